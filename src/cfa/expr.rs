//! Side-effect-free, fully typed expressions: the operand language of CFA edges.
//!
//! The frontend makes every implicit conversion explicit, so each node's type is exact:
//! operands of arithmetic and comparison operators already have their common type, the left
//! operand of a shift its promoted type. Calls, assignments, `&&`, `||` and `?:` never appear
//! here; they become edges.

use super::types::IntType;
use super::VarId;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A typed expression node.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: IntType,
}

/// What an expression computes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ExprKind {
    /// A constant, normalised to the node's type.
    Const(i128),
    /// The current value of a variable.
    Var(VarId),
    /// `&var`: the fixed address of an address-taken variable (see
    /// [`super::address`]), of pointer type. It reads no value.
    Address {
        var: VarId,
        address: u64,
    },
    /// `&f`: the fixed address of a function whose address the program takes (see
    /// [`super::address`]), of pointer type; `name` is the function's C name.
    Function {
        name: String,
        address: u64,
    },
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// Conversion of the operand's value to the node's type (C's cast).
    Cast(Box<Expr>),
    /// The operand's bytes read as the node's type, of the same size (a union member written
    /// as one type and read as another).
    Bitcast(Box<Expr>),
}

/// Unary operators. `LogNot` yields an `int` 0 or 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UnaryOp {
    Neg,
    BitNot,
    LogNot,
}

/// Binary operators. Comparisons yield an `int` 0 or 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinaryOp {
    /// True for the six relational and equality operators.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        )
    }

    /// The C spelling.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
        }
    }
}

impl UnaryOp {
    /// The C spelling.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::BitNot => "~",
            UnaryOp::LogNot => "!",
        }
    }
}

impl Expr {
    /// A constant of type `ty` (normalised; for a float type `value` is the bit pattern).
    pub fn constant(value: i128, ty: IntType) -> Expr {
        Expr {
            kind: ExprKind::Const(ty.normalize(value)),
            ty,
        }
    }

    /// The `int` constant `value`.
    pub fn int(value: i128) -> Expr {
        Expr::constant(value, IntType::INT)
    }

    /// A variable reference.
    pub fn var(id: VarId, ty: IntType) -> Expr {
        Expr {
            kind: ExprKind::Var(id),
            ty,
        }
    }

    /// The C value `value` (an integer) converted to `ty`: for a float type the nearest
    /// floating-point value, for an integer type `value` wrapped.
    pub fn number(value: i128, ty: IntType) -> Expr {
        Expr::constant(value, IntType::LLONG).cast(ty)
    }

    /// Converts to `ty`, omitting no-op casts and folding constants (a conversion whose
    /// result C does not define stays a cast, for the evaluation to report).
    pub fn cast(self, ty: IntType) -> Expr {
        if self.ty == ty {
            return self;
        }
        if let ExprKind::Const(v) = self.kind {
            if let Ok(converted) = super::semantics::convert(v, self.ty, ty) {
                return Expr::constant(converted, ty);
            }
        }
        Expr {
            kind: ExprKind::Cast(Box::new(self)),
            ty,
        }
    }

    /// The same bytes read as `ty`, which has the size of `self.ty` (between integer types
    /// that is a conversion).
    pub fn bitcast(self, ty: IntType) -> Expr {
        if self.ty == ty || (!self.ty.is_float() && !ty.is_float()) {
            return self.cast(ty);
        }
        if let ExprKind::Const(v) = self.kind {
            return Expr::constant(v, ty);
        }
        Expr {
            kind: ExprKind::Bitcast(Box::new(self)),
            ty,
        }
    }

    /// A unary node with an explicit result type.
    pub fn unary(op: UnaryOp, operand: Expr, ty: IntType) -> Expr {
        Expr {
            kind: ExprKind::Unary(op, Box::new(operand)),
            ty,
        }
    }

    /// A binary node with an explicit result type.
    pub fn binary(op: BinaryOp, lhs: Expr, rhs: Expr, ty: IntType) -> Expr {
        Expr {
            kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
            ty,
        }
    }

    /// True if evaluating the expression is never undefined behaviour (see
    /// [`super::semantics`]): no arithmetic that may overflow a signed type, no division or
    /// shift, no floating-point operation or conversion — comparisons, bitwise and logical
    /// operators, unsigned arithmetic and integer conversions of variables and constants.
    pub fn never_undefined(&self) -> bool {
        match &self.kind {
            ExprKind::Const(_) | ExprKind::Var(_) | ExprKind::Address { .. } | ExprKind::Function { .. } => {
                true
            }
            _ if self.is_float_operation() => false,
            ExprKind::Unary(op, e) => (*op != UnaryOp::Neg || !self.ty.signed) && e.never_undefined(),
            ExprKind::Binary(op, a, b) => {
                let defined = match op {
                    BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => !self.ty.signed,
                    BinaryOp::Div | BinaryOp::Rem | BinaryOp::Shl | BinaryOp::Shr => false,
                    _ => true,
                };
                defined && a.never_undefined() && b.never_undefined()
            }
            ExprKind::Cast(e) | ExprKind::Bitcast(e) => e.never_undefined(),
        }
    }

    /// True if the value is 0 or 1 by construction: a comparison, a logical not, or a bitwise
    /// and / or of such (how the reducer writes the guards of state cuts).
    pub fn is_truth_value(&self) -> bool {
        match &self.kind {
            ExprKind::Const(c) => *c == 0 || *c == 1,
            ExprKind::Unary(UnaryOp::LogNot, _) => true,
            ExprKind::Binary(op, _, _) if op.is_comparison() => true,
            ExprKind::Binary(BinaryOp::BitAnd | BinaryOp::BitOr, a, b) => {
                a.is_truth_value() && b.is_truth_value()
            }
            _ => false,
        }
    }

    /// The conjuncts of this condition: all are non-zero exactly when it is. `a & b` and
    /// `!(a | b)` over truth values are split, so an analysis that keeps small conditions
    /// keeps the parts of a large conjunction it can use.
    pub fn truth_conjuncts(&self) -> Vec<Expr> {
        let not = |e: &Expr| Expr::unary(UnaryOp::LogNot, e.clone(), IntType::INT);
        match &self.kind {
            ExprKind::Binary(BinaryOp::BitAnd, a, b) if a.is_truth_value() && b.is_truth_value() => {
                let mut out = a.truth_conjuncts();
                out.extend(b.truth_conjuncts());
                out
            }
            ExprKind::Unary(UnaryOp::LogNot, inner) => match &inner.kind {
                ExprKind::Binary(BinaryOp::BitOr, a, b) if a.is_truth_value() && b.is_truth_value() => {
                    let mut out = not(a).truth_conjuncts();
                    out.extend(not(b).truth_conjuncts());
                    out
                }
                ExprKind::Unary(UnaryOp::LogNot, x) if x.is_truth_value() => x.truth_conjuncts(),
                _ => vec![self.clone()],
            },
            _ => vec![self.clone()],
        }
    }

    /// True if this condition excludes one concrete state: `!(x == 1 & y == 2 & …)` over at
    /// least two variables — what a state cut's guard is made of ([`Self::truth_conjuncts`]
    /// splits a guard into these). A refinement prefers to explain an infeasible path without
    /// them: the guard only removes executions another analysis has covered, and predicates
    /// naming its states do not generalise.
    pub fn is_state_exclusion(&self) -> bool {
        fn equalities(e: &Expr) -> Option<usize> {
            let is_var = |e: &Expr| match &e.kind {
                ExprKind::Var(_) => true,
                ExprKind::Cast(x) => matches!(x.kind, ExprKind::Var(_)),
                _ => false,
            };
            match &e.kind {
                ExprKind::Binary(BinaryOp::Eq, a, b)
                    if (is_var(a) && b.as_const().is_some()) || (is_var(b) && a.as_const().is_some()) =>
                {
                    Some(1)
                }
                ExprKind::Binary(BinaryOp::BitAnd, a, b) => Some(equalities(a)? + equalities(b)?),
                _ => None,
            }
        }
        match &self.kind {
            ExprKind::Unary(UnaryOp::LogNot, inner) => equalities(inner).is_some_and(|n| n >= 2),
            _ => false,
        }
    }

    /// True if this node (not its operands) computes with IEEE-754 semantics: an operator on
    /// floating-point operands, or a conversion from or to a floating-point type. Copies,
    /// constants and [`ExprKind::Bitcast`] only move bit patterns. Encodings that model
    /// integers only must leave such a node's value unconstrained.
    pub fn is_float_operation(&self) -> bool {
        match &self.kind {
            ExprKind::Unary(_, a) | ExprKind::Binary(_, a, _) => a.ty.is_float() || self.ty.is_float(),
            ExprKind::Cast(a) => a.ty != self.ty && (a.ty.is_float() || self.ty.is_float()),
            ExprKind::Const(_)
            | ExprKind::Var(_)
            | ExprKind::Address { .. }
            | ExprKind::Function { .. }
            | ExprKind::Bitcast(_) => false,
        }
    }

    /// The constant value, if this is a constant.
    pub fn as_const(&self) -> Option<i128> {
        match self.kind {
            ExprKind::Const(v) => Some(v),
            _ => None,
        }
    }

    /// Calls `f` on every variable the expression reads.
    pub fn for_each_var(&self, f: &mut impl FnMut(VarId)) {
        match &self.kind {
            ExprKind::Const(_) | ExprKind::Address { .. } | ExprKind::Function { .. } => {}
            ExprKind::Var(v) => f(*v),
            ExprKind::Unary(_, e) | ExprKind::Cast(e) | ExprKind::Bitcast(e) => e.for_each_var(f),
            ExprKind::Binary(_, a, b) => {
                a.for_each_var(f);
                b.for_each_var(f);
            }
        }
    }

    /// The expression with every variable it reads, `v`, replaced by `f(v)`. Addresses
    /// taken (`&var`) stay as they are: an address-taken variable is one object at one address.
    pub fn rename_vars(&self, f: &impl Fn(VarId) -> VarId) -> Expr {
        let kind = match &self.kind {
            ExprKind::Var(v) => ExprKind::Var(f(*v)),
            ExprKind::Const(_) | ExprKind::Address { .. } | ExprKind::Function { .. } => self.kind.clone(),
            ExprKind::Unary(op, e) => ExprKind::Unary(*op, Box::new(e.rename_vars(f))),
            ExprKind::Cast(e) => ExprKind::Cast(Box::new(e.rename_vars(f))),
            ExprKind::Bitcast(e) => ExprKind::Bitcast(Box::new(e.rename_vars(f))),
            ExprKind::Binary(op, a, b) => {
                ExprKind::Binary(*op, Box::new(a.rename_vars(f)), Box::new(b.rename_vars(f)))
            }
        };
        Expr { kind, ty: self.ty }
    }

    /// Calls `f` on every variable whose address (`&var`) the expression takes, with it.
    pub fn for_each_address(&self, f: &mut impl FnMut(VarId, u64)) {
        match &self.kind {
            ExprKind::Const(_) | ExprKind::Var(_) | ExprKind::Function { .. } => {}
            ExprKind::Address { var, address } => f(*var, *address),
            ExprKind::Unary(_, e) | ExprKind::Cast(e) | ExprKind::Bitcast(e) => e.for_each_address(f),
            ExprKind::Binary(_, a, b) => {
                a.for_each_address(f);
                b.for_each_address(f);
            }
        }
    }

    /// Calls `f` on the address of every function whose address the expression takes
    /// ([`ExprKind::Function`]).
    pub fn for_each_function(&self, f: &mut impl FnMut(u64)) {
        self.for_each_function_taken(&mut |_, a| f(a));
    }

    /// Calls `f` on the name of every function whose address the expression takes.
    pub fn for_each_function_name(&self, f: &mut impl FnMut(&str)) {
        self.for_each_function_taken(&mut |n, _| f(n));
    }

    fn for_each_function_taken(&self, f: &mut impl FnMut(&str, u64)) {
        match &self.kind {
            ExprKind::Function { name, address } => f(name, *address),
            ExprKind::Const(_) | ExprKind::Var(_) | ExprKind::Address { .. } => {}
            ExprKind::Unary(_, e) | ExprKind::Cast(e) | ExprKind::Bitcast(e) => e.for_each_function_taken(f),
            ExprKind::Binary(_, a, b) => {
                a.for_each_function_taken(f);
                b.for_each_function_taken(f);
            }
        }
    }

    /// The variables the expression reads, in order of first occurrence.
    pub fn vars(&self) -> Vec<VarId> {
        let mut out = Vec::new();
        self.for_each_var(&mut |v| {
            if !out.contains(&v) {
                out.push(v)
            }
        });
        out
    }

    /// Writes the expression as C, naming variables with `name`.
    pub fn write_c(&self, out: &mut String, model: super::types::DataModel, name: &impl Fn(VarId) -> String) {
        use std::fmt::Write;
        match &self.kind {
            ExprKind::Const(v) => write_c_constant(out, *v, self.ty, model),
            ExprKind::Var(v) => out.push_str(&name(*v)),
            ExprKind::Address { var, .. } => {
                let _ = write!(out, "(({})&{})", self.ty.c_name(model), name(*var));
            }
            ExprKind::Function { name, .. } => {
                let _ = write!(out, "(({})&{name})", self.ty.c_name(model));
            }
            ExprKind::Unary(op, e) => {
                let _ = write!(out, "({}", op.symbol());
                e.write_c(out, model, name);
                out.push(')');
            }
            ExprKind::Binary(op, a, b) => {
                out.push('(');
                a.write_c(out, model, name);
                let _ = write!(out, " {} ", op.symbol());
                b.write_c(out, model, name);
                out.push(')');
            }
            ExprKind::Cast(e) => {
                let _ = write!(out, "(({})", self.ty.c_name(model));
                e.write_c(out, model, name);
                out.push(')');
            }
            ExprKind::Bitcast(e) => {
                // A compound literal of a union of both types: gcc reads the other member's
                // bytes (C11 6.5.2.3, footnote 95).
                let _ = write!(
                    out,
                    "((union {{ {} from; {} to; }}){{ .from = ",
                    e.ty.c_name(model),
                    self.ty.c_name(model)
                );
                e.write_c(out, model, name);
                out.push_str(" }).to");
            }
        }
    }
}

/// Writes a constant so that a C compiler gives it exactly type `ty` and value `v`.
fn write_c_constant(out: &mut String, v: i128, ty: IntType, model: super::types::DataModel) {
    use std::fmt::Write;
    if ty.is_float() {
        out.push_str(&super::float::c_literal(v, ty));
    } else if ty == IntType::INT && v != i128::from(i32::MIN) {
        let _ = write!(out, "{v}");
    } else if ty.signed && v == ty.min() {
        // The most negative value has no literal: write it as (-MAX - 1), with the 64-bit
        // maximum suffixed so the literal has a 64-bit type in every data model.
        let suffix = if ty.bits == 64 { "LL" } else { "" };
        let _ = write!(out, "(({})(-{}{suffix} - 1))", ty.c_name(model), -(v + 1));
    } else {
        let suffix = if ty.signed { "LL" } else { "ULL" };
        let _ = write!(out, "(({}){v}{suffix})", ty.c_name(model));
    }
}

impl fmt::Display for Expr {
    /// A compact rendering with variables as `v<N>`, for debugging and DOT labels.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Const(v) if self.ty.is_float() => {
                write!(f, "{:?}", super::float::Float::from_bits(*v, self.ty).to_f64())
            }
            ExprKind::Const(v) => write!(f, "{v}"),
            ExprKind::Var(v) => write!(f, "v{}", v.0),
            ExprKind::Address { var, .. } => write!(f, "&v{}", var.0),
            ExprKind::Function { name, .. } => write!(f, "&{name}"),
            ExprKind::Unary(op, e) => write!(f, "{}{}", op.symbol(), e),
            ExprKind::Binary(op, a, b) => write!(f, "({} {} {})", a, op.symbol(), b),
            ExprKind::Cast(e) => write!(f, "({}){}", self.ty, e),
            ExprKind::Bitcast(e) => write!(f, "bits<{}>{}", self.ty, e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::types::DataModel;

    fn c(e: &Expr) -> String {
        let mut s = String::new();
        e.write_c(&mut s, DataModel::ILP32, &|v| format!("v{}", v.0));
        s
    }

    /// A state-cut guard `(b != 0) & !((x == 1 & y == 2) | (x == 3))` splits into the branch
    /// condition and one negated state each; `&` of a non-truth value stays whole.
    #[test]
    fn truth_conjuncts_split_guards_only() {
        let int = IntType::INT;
        let v = |k: u32| Expr::var(VarId(k), int);
        let eq = |k: u32, n: i128| Expr::binary(BinaryOp::Eq, v(k), Expr::int(n), int);
        let and = |a, b| Expr::binary(BinaryOp::BitAnd, a, b, int);
        let or = |a, b| Expr::binary(BinaryOp::BitOr, a, b, int);
        let not = |a| Expr::unary(UnaryOp::LogNot, a, int);
        let branch = Expr::binary(BinaryOp::Ne, v(0), Expr::int(0), int);
        let state = and(eq(1, 1), eq(2, 2));
        let guard = and(branch.clone(), not(or(state.clone(), eq(1, 3))));
        let parts: Vec<String> = guard.truth_conjuncts().iter().map(c).collect();
        let want: Vec<String> = [branch, not(state), not(eq(1, 3))].iter().map(c).collect();
        assert_eq!(parts, want);
        let bits = and(v(1), eq(2, 2));
        assert_eq!(bits.truth_conjuncts(), vec![bits.clone()]);
    }

    /// A negated state over two or more variables is a state exclusion; a program's own
    /// `!(x == 3)` or `!(x < 3 & y == 1)` is not.
    #[test]
    fn state_exclusions_are_negated_states() {
        let int = IntType::INT;
        let v = |k: u32| Expr::var(VarId(k), int);
        let eq = |k: u32, n: i128| Expr::binary(BinaryOp::Eq, v(k), Expr::int(n), int);
        let and = |a, b| Expr::binary(BinaryOp::BitAnd, a, b, int);
        let not = |a| Expr::unary(UnaryOp::LogNot, a, int);
        assert!(not(and(eq(1, 1), and(eq(2, 2), eq(3, 0)))).is_state_exclusion());
        assert!(!not(eq(1, 3)).is_state_exclusion());
        let less = Expr::binary(BinaryOp::Lt, v(1), Expr::int(3), int);
        assert!(!not(and(less, eq(2, 1))).is_state_exclusion());
        assert!(!and(eq(1, 1), eq(2, 2)).is_state_exclusion());
    }

    /// Regression: the most negative value of a signed type was written without its minus sign
    /// (`(signed char)(127 - 1)` for -128, `(int)(2147483647 - 1)` for INT_MIN).
    #[test]
    fn most_negative_constants_keep_their_sign() {
        assert_eq!(
            c(&Expr::constant(-128, IntType::CHAR)),
            "((signed char)(-127 - 1))"
        );
        assert_eq!(
            c(&Expr::constant(-32768, IntType::SHORT)),
            "((short)(-32767 - 1))"
        );
        assert_eq!(c(&Expr::int(i128::from(i32::MIN))), "((int)(-2147483647 - 1))");
        assert_eq!(
            c(&Expr::constant(i128::from(i64::MIN), IntType::LLONG)),
            "((long long)(-9223372036854775807LL - 1))"
        );
        assert_eq!(c(&Expr::constant(-127, IntType::CHAR)), "((signed char)-127LL)");
        assert_eq!(c(&Expr::int(-5)), "-5");
    }
}
