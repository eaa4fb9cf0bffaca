//! Invariants of witnesses (C expressions) as formulas over a program's variables: parsed
//! with `lang-c`'s expression parser, names resolved in the scope of one function (its
//! non-temporary locals, then globals), typed with C's usual arithmetic conversions, and
//! encoded for Z3 at any SSA map. The clauses of function contracts are read the same way
//! with the names a contract may use ([`Reading`]): `\old(e)` and the parameters in an
//! `ensures` clause are values at the function's entry ([`super::contract::old_value`]).
//!
//! Arithmetic in an invariant is encoded with wrap-around for signed overflow and with a fixed
//! value for every other operation with undefined behaviour (`n % 0 == n`): an invariant is a
//! Boolean function of the state, and any fixed function serves as the candidate of an
//! inductive proof (see [`crate::analyses::predicate::formula::ExprEncoder::for_invariants`]).

use crate::analyses::predicate::formula::{ExprEncoder, SsaMap};
use crate::cfa::expr::{BinaryOp, Expr, UnaryOp};
use crate::cfa::types::IntType;
use crate::cfa::{FuncId, Program, Scope, VarId};
use lang_c::ast::{
    BinaryOperator, BlockItem, Constant, Expression, ExternalDeclaration, IntegerBase, SpecifierQualifier,
    Statement, TypeSpecifier, UnaryOperator,
};
use lang_c::span::Node;
use z3::ast::Bool;

/// A C condition: Boolean connectives over integer expressions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Formula {
    /// `expr != 0`.
    Atom(Expr),
    Not(Box<Formula>),
    And(Box<Formula>, Box<Formula>),
    Or(Box<Formula>, Box<Formula>),
    /// `c ? a : b` as a condition.
    Ite(Box<Formula>, Box<Formula>, Box<Formula>),
}

impl Formula {
    /// The formula over the variables' terms at the indices of `ssa`.
    pub fn encode(&self, program: &Program, ssa: &SsaMap) -> Bool {
        match self {
            Formula::Atom(e) => ExprEncoder::for_invariants(program, ssa).condition(e),
            Formula::Not(f) => f.encode(program, ssa).not(),
            Formula::And(a, b) => Bool::and(&[a.encode(program, ssa), b.encode(program, ssa)]),
            Formula::Or(a, b) => Bool::or(&[a.encode(program, ssa), b.encode(program, ssa)]),
            Formula::Ite(c, a, b) => c
                .encode(program, ssa)
                .ite(&a.encode(program, ssa), &b.encode(program, ssa)),
        }
    }

    /// The constant `true`.
    pub fn truth() -> Formula {
        Formula::Atom(Expr::int(1))
    }

    /// Calls `f` on every atom.
    pub fn for_each_atom(&self, f: &mut impl FnMut(&Expr)) {
        match self {
            Formula::Atom(e) => f(e),
            Formula::Not(a) => a.for_each_atom(f),
            Formula::And(a, b) | Formula::Or(a, b) => {
                a.for_each_atom(f);
                b.for_each_atom(f);
            }
            Formula::Ite(c, a, b) => {
                c.for_each_atom(f);
                a.for_each_atom(f);
                b.for_each_atom(f);
            }
        }
    }
}

/// Which names an expression of a witness may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// An invariant at a location of the function: its locals, then globals.
    State,
    /// A contract's `requires` clause: the function's parameters and globals at its entry.
    Requires,
    /// A contract's `ensures` clause (ACSL): `\result`, globals on return, `\old(e)` (`e` at
    /// the entry) and the parameters (their values at the entry, as in ACSL).
    Ensures,
}

/// Parses `text` as a C expression over the variables visible in `func`.
pub fn parse_invariant(text: &str, program: &Program, func: FuncId) -> Result<Formula, String> {
    parse_clause(text, program, func, Reading::State)
}

/// The identifiers `\result` and `\old` are read as (lang-c parses C, not ACSL).
const RESULT_NAME: &str = "__baton_result";
const OLD_NAME: &str = "__baton_old";

/// Parses `text` as an expression of `func`'s scope as `reading` has it.
pub fn parse_clause(
    text: &str,
    program: &Program,
    func: FuncId,
    reading: Reading,
) -> Result<Formula, String> {
    let c = if reading == Reading::Ensures {
        text.replace("\\result", RESULT_NAME).replace("\\old", OLD_NAME)
    } else {
        text.to_string()
    };
    if let Some(at) = c.find('\\') {
        let construct: String = c[at..]
            .chars()
            .take_while(|ch| *ch == '\\' || ch.is_alphanumeric())
            .collect();
        return Err(format!("`{text}`: `{construct}` is not supported"));
    }
    let parsed = parse_expression(&c).map_err(|m| format!("`{text}`: {m}"))?;
    let scope = Resolver {
        program,
        func,
        reading,
        old: false,
    };
    scope.formula(&parsed).map_err(|m| format!("`{text}`: {m}"))
}

/// The opening of the one-statement function `lang-c` parses an expression in.
const WRAP_START: &str = "void __baton_invariant(void) { (";

/// Parses one C expression (lang-c's parser reads translation units: the expression is
/// wrapped as the only statement of a function, and anything else is an error).
fn parse_expression(text: &str) -> Result<Node<Expression>, String> {
    let source = format!("{WRAP_START}{text}\n); }}\n");
    let parsed =
        lang_c::driver::parse_preprocessed(&lang_c::driver::Config::with_gcc(), source).map_err(|e| {
            let mut expected: Vec<&str> = e.expected.iter().copied().collect();
            expected.sort_unstable();
            let column = if e.line == 1 {
                e.column.saturating_sub(WRAP_START.len())
            } else {
                e.column
            };
            format!(
                "syntax error at column {column}, expected one of {}",
                expected.join(" ")
            )
        })?;
    let not_one = || "not a single C expression".to_string();
    let [item] = parsed.unit.0.as_slice() else {
        return Err(not_one());
    };
    let ExternalDeclaration::FunctionDefinition(f) = &item.node else {
        return Err(not_one());
    };
    let Statement::Compound(items) = &f.node.statement.node else {
        return Err(not_one());
    };
    let [stmt] = items.as_slice() else {
        return Err(not_one());
    };
    let BlockItem::Statement(s) = &stmt.node else {
        return Err(not_one());
    };
    match &s.node {
        Statement::Expression(Some(e)) => Ok((**e).clone()),
        _ => Err(not_one()),
    }
}

struct Resolver<'a> {
    program: &'a Program,
    func: FuncId,
    reading: Reading,
    /// Inside `\old(…)`: names are values at the entry.
    old: bool,
}

impl Resolver<'_> {
    fn formula(&self, e: &Node<Expression>) -> Result<Formula, String> {
        match &e.node {
            Expression::BinaryOperator(b) => {
                let (l, r) = (&b.node.lhs, &b.node.rhs);
                match b.node.operator.node {
                    BinaryOperator::LogicalAnd => Ok(Formula::And(
                        Box::new(self.formula(l)?),
                        Box::new(self.formula(r)?),
                    )),
                    BinaryOperator::LogicalOr => Ok(Formula::Or(
                        Box::new(self.formula(l)?),
                        Box::new(self.formula(r)?),
                    )),
                    _ => Ok(Formula::Atom(self.expr(e)?)),
                }
            }
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Negate => {
                Ok(Formula::Not(Box::new(self.formula(&u.node.operand)?)))
            }
            Expression::Conditional(c) => Ok(Formula::Ite(
                Box::new(self.formula(&c.node.condition)?),
                Box::new(self.formula(&c.node.then_expression)?),
                Box::new(self.formula(&c.node.else_expression)?),
            )),
            _ => Ok(Formula::Atom(self.expr(e)?)),
        }
    }

    /// The variable `name` names here: for an `ensures` clause, a parameter or a global inside
    /// `\old(…)` is its value at the entry ([`super::contract::old_value`]).
    fn variable(&self, name: &str) -> Result<VarId, String> {
        let v = self.declared(name)?;
        let is_param = self.program.function(self.func).params.contains(&v);
        match self.reading {
            Reading::State => Ok(v),
            Reading::Requires | Reading::Ensures
                if !is_param && self.program.variable(v).scope != Scope::Global =>
            {
                Err(format!(
                    "`{name}` is a local: a contract names parameters and globals"
                ))
            }
            Reading::Requires => Ok(v),
            Reading::Ensures if is_param || self.old => Ok(super::contract::old_value(self.program, v)),
            Reading::Ensures => Ok(v),
        }
    }

    fn declared(&self, name: &str) -> Result<VarId, String> {
        let visible = |scope: Scope| {
            let found: Vec<VarId> = self
                .program
                .variables
                .iter()
                .enumerate()
                .filter(|(_, v)| !v.temporary && v.scope == scope && v.source_name == name)
                .map(|(i, _)| VarId(i as u32))
                .collect();
            found
        };
        let locals = visible(Scope::Local(self.func));
        match locals.as_slice() {
            [one] => return Ok(*one),
            [] => {}
            _ => return Err(format!("`{name}` names several locals of the function")),
        }
        match visible(Scope::Global).as_slice() {
            [one] => Ok(*one),
            _ => Err(format!("no variable `{name}` in this scope")),
        }
    }

    fn expr(&self, e: &Node<Expression>) -> Result<Expr, String> {
        let model = self.program.data_model;
        match &e.node {
            Expression::Identifier(id) if id.node.name == RESULT_NAME && self.reading == Reading::Ensures => {
                let f = self.program.function(self.func);
                match f.return_var {
                    Some(rv) if !self.old => Ok(Expr::var(rv, self.program.variable(rv).ty)),
                    Some(_) => Err("`\\result` inside `\\old`".into()),
                    None => Err(format!("`\\result` of `{}`, which returns nothing", f.name)),
                }
            }
            Expression::Identifier(id) => {
                let v = self.variable(&id.node.name)?;
                let declared = super::contract::current_value(self.program, v);
                Ok(Expr::var(v, self.program.variable(declared).ty))
            }
            Expression::Call(c) if self.reading == Reading::Ensures => {
                match (&c.node.callee.node, c.node.arguments.as_slice()) {
                    (Expression::Identifier(id), [arg]) if id.node.name == OLD_NAME => {
                        Resolver { old: true, ..*self }.expr(arg)
                    }
                    _ => Err("only side-effect-free operators are allowed".into()),
                }
            }
            Expression::Constant(c) => match &c.node {
                Constant::Integer(i) => integer_constant(i, model),
                Constant::Character(ch) => match ch.trim_matches('\'').as_bytes() {
                    [b] => Ok(Expr::int(i128::from(*b))),
                    _ => Err(format!("character constant {ch} is not supported")),
                },
                Constant::Float(_) => Err("floating-point constants are not supported".into()),
            },
            Expression::UnaryOperator(u) => {
                let x = self.expr(&u.node.operand)?;
                match u.node.operator.node {
                    UnaryOperator::Plus => Ok(promote(x)),
                    UnaryOperator::Minus => {
                        let x = promote(x);
                        let ty = x.ty;
                        Ok(Expr::unary(UnaryOp::Neg, x, ty))
                    }
                    UnaryOperator::Complement => {
                        let x = promote(x);
                        let ty = x.ty;
                        Ok(Expr::unary(UnaryOp::BitNot, x, ty))
                    }
                    UnaryOperator::Negate => Ok(Expr::unary(UnaryOp::LogNot, x, IntType::INT)),
                    _ => Err("only side-effect-free operators are allowed".into()),
                }
            }
            Expression::BinaryOperator(b) => {
                let op = match b.node.operator.node {
                    BinaryOperator::Multiply => BinaryOp::Mul,
                    BinaryOperator::Divide => BinaryOp::Div,
                    BinaryOperator::Modulo => BinaryOp::Rem,
                    BinaryOperator::Plus => BinaryOp::Add,
                    BinaryOperator::Minus => BinaryOp::Sub,
                    BinaryOperator::ShiftLeft => BinaryOp::Shl,
                    BinaryOperator::ShiftRight => BinaryOp::Shr,
                    BinaryOperator::Less => BinaryOp::Lt,
                    BinaryOperator::Greater => BinaryOp::Gt,
                    BinaryOperator::LessOrEqual => BinaryOp::Le,
                    BinaryOperator::GreaterOrEqual => BinaryOp::Ge,
                    BinaryOperator::Equals => BinaryOp::Eq,
                    BinaryOperator::NotEquals => BinaryOp::Ne,
                    BinaryOperator::BitwiseAnd => BinaryOp::BitAnd,
                    BinaryOperator::BitwiseXor => BinaryOp::BitXor,
                    BinaryOperator::BitwiseOr => BinaryOp::BitOr,
                    BinaryOperator::LogicalAnd | BinaryOperator::LogicalOr => {
                        return Err("`&&` and `||` only as conditions, not inside arithmetic".into())
                    }
                    _ => return Err("only side-effect-free operators are allowed".into()),
                };
                let (x, y) = (self.expr(&b.node.lhs)?, self.expr(&b.node.rhs)?);
                Ok(binary(op, x, y))
            }
            Expression::Cast(c) => {
                let ty = cast_type(&c.node.type_name.node.specifiers, model)?;
                Ok(self.expr(&c.node.expression)?.cast(ty))
            }
            _ => Err("unsupported expression (only integer variables, constants and operators)".into()),
        }
    }
}

fn promote(x: Expr) -> Expr {
    let ty = x.ty.promoted();
    if ty == x.ty {
        x
    } else {
        x.cast(ty)
    }
}

fn convert(x: Expr, ty: IntType) -> Expr {
    if x.ty == ty {
        x
    } else {
        x.cast(ty)
    }
}

/// A binary operator with C's conversions: shifts by the promoted left operand, everything
/// else by the usual arithmetic conversions; comparisons yield `int`.
fn binary(op: BinaryOp, x: Expr, y: Expr) -> Expr {
    if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
        let (x, y) = (promote(x), promote(y));
        let ty = x.ty;
        return Expr::binary(op, x, y, ty);
    }
    let common = IntType::common(x.ty, y.ty);
    let (x, y) = (convert(x, common), convert(y, common));
    let ty = if op.is_comparison() { IntType::INT } else { common };
    Expr::binary(op, x, y, ty)
}

/// An integer constant with the type C gives it (C11 6.4.4.1).
fn integer_constant(i: &lang_c::ast::Integer, model: crate::cfa::types::DataModel) -> Result<Expr, String> {
    let radix = match i.base {
        IntegerBase::Decimal => 10,
        IntegerBase::Octal => 8,
        IntegerBase::Hexadecimal => 16,
        IntegerBase::Binary => 2,
    };
    let value =
        i128::from_str_radix(&i.number, radix).map_err(|e| format!("integer constant {}: {e}", i.number))?;
    let long = i.suffix.size != lang_c::ast::IntegerSize::Int;
    let long_long = i.suffix.size == lang_c::ast::IntegerSize::LongLong;
    let decimal = radix == 10;
    let mut candidates: Vec<IntType> = Vec::new();
    let signed_ok = !i.suffix.unsigned;
    let unsigned_ok = i.suffix.unsigned || !decimal;
    if !long && !long_long {
        if signed_ok {
            candidates.push(IntType::INT);
        }
        if unsigned_ok {
            candidates.push(IntType::UINT);
        }
    }
    if !long_long {
        if signed_ok {
            candidates.push(model.long());
        }
        if unsigned_ok || !signed_ok {
            candidates.push(model.ulong());
        }
    }
    if signed_ok {
        candidates.push(IntType::LLONG);
    }
    candidates.push(IntType::ULLONG);
    candidates
        .into_iter()
        .find(|t| t.contains(value))
        .map(|t| Expr::constant(value, t))
        .ok_or_else(|| format!("integer constant {} is too large", i.number))
}

/// The integer type a cast names (`unsigned int`, `long`, `_Bool`, …).
fn cast_type(
    specs: &[Node<SpecifierQualifier>],
    model: crate::cfa::types::DataModel,
) -> Result<IntType, String> {
    let (mut signed, mut unsigned, mut longs, mut base) = (false, false, 0, None);
    for s in specs {
        let SpecifierQualifier::TypeSpecifier(t) = &s.node else {
            continue;
        };
        match t.node {
            TypeSpecifier::Signed => signed = true,
            TypeSpecifier::Unsigned => unsigned = true,
            TypeSpecifier::Long => longs += 1,
            TypeSpecifier::Int => base = base.or(Some(32)),
            TypeSpecifier::Short => base = Some(16),
            TypeSpecifier::Char => base = Some(8),
            TypeSpecifier::Bool => return Ok(IntType::BOOL),
            _ => return Err("casts only to integer types".into()),
        }
    }
    let bits = match (base, longs) {
        (Some(8), _) => 8,
        (Some(16), _) => 16,
        (_, 0) => 32,
        (_, 1) => model.long().bits,
        _ => 64,
    };
    if bits == 8 && !signed && !unsigned {
        // Plain `char` is signed on the targets Baton models.
        return Ok(IntType::CHAR);
    }
    Ok(if unsigned {
        IntType::unsigned(bits)
    } else {
        IntType::signed(bits)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::load_program;

    fn program() -> (tempfile::TempDir, Program) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("p.c");
        std::fs::write(
            &path,
            "int g;\nint main(void) { unsigned int u = 1; char c = 2; while (g < 3) { g++; } return u + c; }\n",
        )
        .expect("write");
        let p = load_program(&path, Default::default()).expect("lowers");
        (dir, p)
    }

    #[test]
    fn invariants_are_typed_as_c_types_them() {
        let (_dir, p) = program();
        let main = p.function_by_name("main").expect("main");
        let f = parse_invariant("u - 2 > 0 && (c == 2 || !g)", &p, main).expect("parses");
        let Formula::And(a, _) = &f else { panic!("{f:?}") };
        // `u - 2` is unsigned: the comparison is unsigned.
        let Formula::Atom(e) = a.as_ref() else {
            panic!("{a:?}")
        };
        let crate::cfa::expr::ExprKind::Binary(BinaryOp::Gt, l, _) = &e.kind else {
            panic!("{e:?}")
        };
        assert_eq!(l.ty, IntType::UINT);
        assert!(parse_invariant("((long long)-2147483648LL) <= g", &p, main).is_ok());
        assert!(parse_invariant("0xffffffff == u", &p, main).is_ok());
    }

    #[test]
    fn bad_invariants_say_what_is_wrong() {
        let (_dir, p) = program();
        let main = p.function_by_name("main").expect("main");
        let err = parse_invariant("x > 0", &p, main).unwrap_err();
        assert!(err.contains("no variable `x`"), "{err}");
        let err = parse_invariant("g >", &p, main).unwrap_err();
        assert!(err.contains("syntax error"), "{err}");
        let err = parse_invariant("g++ > 0", &p, main).unwrap_err();
        assert!(err.contains("side-effect-free"), "{err}");
        let err = parse_invariant("g > 0); int h; (1", &p, main).unwrap_err();
        assert!(
            err.contains("not a single C expression") || err.contains("syntax error"),
            "{err}"
        );
    }
}
