//! Path formulas over mathematical integers: the encoding Spacer generalises best (bit-vector
//! clauses of a ten-iteration sum took it tens of seconds).
//!
//! Every value is the exact C value of its type, so `+`, `-`, `*`, comparisons, division and
//! remainder (truncating, by sign cases), shifts by constants and masks `x & (2^k - 1)` are
//! exact; conversions and unsigned arithmetic wrap with `mod 2^n` where the operands' type
//! ranges say a result may leave its type; signed overflow, division by zero, `MIN / -1` and
//! out-of-range shifts are undefined behaviour and exclude the path, as in
//! [`crate::analyses::predicate::formula`]. The other bitwise operations and shifts by variables
//! yield a fresh value of the result type: an over-approximation (more paths, never fewer), so
//! a proof stays sound and a counterexample is checked bit-precisely before it counts; the
//! path then says it is not [`IntPath::exact`].

use crate::analyses::predicate::formula::{EncodeError, SsaMap};
use crate::analyses::predicate::step::{step_effect, StepEffect};
use crate::cfa::expr::{BinaryOp, Expr, ExprKind, UnaryOp};
use crate::cfa::semantics::SignedOverflow;
use crate::cfa::types::IntType;
use crate::cfa::{Program, VarId};
use crate::cpa::Step;
use std::sync::atomic::{AtomicU64, Ordering};
use z3::ast::{Bool, Int};

/// Unique suffix of fresh constants.
static FRESH: AtomicU64 = AtomicU64::new(0);

fn fresh(prefix: &str) -> Int {
    Int::new_const(format!("{prefix}!{}", FRESH.fetch_add(1, Ordering::Relaxed)))
}

/// The integer constant of `var` at SSA index `index`.
pub fn int_var(var: VarId, index: u32) -> Int {
    Int::new_const(format!("i{}@{}", var.0, index))
}

/// `lo <= term <= hi` for the range of `ty`.
pub fn in_range(term: &Int, ty: IntType) -> Bool {
    Bool::and(&[
        term.ge(Int::from_i128(ty.min())),
        term.le(Int::from_i128(ty.max())),
    ])
}

/// A value with bounds its types guarantee (`lo <= term <= hi`).
#[derive(Clone)]
struct Val {
    term: Int,
    lo: i128,
    hi: i128,
}

impl Val {
    fn of_type(term: Int, ty: IntType) -> Val {
        Val {
            term,
            lo: ty.min(),
            hi: ty.max(),
        }
    }

    fn constant(v: i128) -> Val {
        Val {
            term: Int::from_i128(v),
            lo: v,
            hi: v,
        }
    }

    fn as_const(&self) -> Option<i128> {
        (self.lo == self.hi).then_some(self.lo)
    }

    fn fits(&self, ty: IntType) -> bool {
        ty.min() <= self.lo && self.hi <= ty.max()
    }
}

/// 0/1 of a condition.
fn indicator(c: &Bool) -> Val {
    Val {
        term: c.ite(&Int::from_i64(1), &Int::from_i64(0)),
        lo: 0,
        hi: 1,
    }
}

/// `v` converted to `ty` as C does (to `_Bool`: `!= 0`; otherwise modulo 2^bits).
fn wrap(v: Val, ty: IntType) -> Val {
    if ty.is_bool() {
        if v.lo >= 0 && v.hi <= 1 {
            return v;
        }
        return indicator(&v.term.eq(Int::from_i64(0)).not());
    }
    if v.fits(ty) {
        return v;
    }
    let modulus = Int::from_i128(1i128 << ty.bits);
    let term = if ty.signed {
        let half = Int::from_i128(1i128 << (ty.bits - 1));
        Int::sub(&[&Int::add(&[&v.term, &half]).modulo(&modulus), &half])
    } else {
        v.term.modulo(&modulus)
    };
    Val::of_type(term, ty)
}

/// Bounds of `f(x, y)` over the corners of two intervals (exact for `+`, `-`, `*`); `None` if
/// a corner overflows `i128`.
fn corners(x: &Val, y: &Val, f: impl Fn(i128, i128) -> Option<i128>) -> Option<(i128, i128)> {
    let vals = [f(x.lo, y.lo)?, f(x.lo, y.hi)?, f(x.hi, y.lo)?, f(x.hi, y.hi)?];
    Some((*vals.iter().min()?, *vals.iter().max()?))
}

/// Encodes expressions at one SSA map.
struct Encoder<'a> {
    program: &'a Program,
    ssa: &'a SsaMap,
    overflow: SignedOverflow,
    /// Conditions under which an encoded operation is undefined.
    undefined: Vec<Bool>,
    /// Range constraints of fresh values.
    side: Vec<Bool>,
    /// False once an operation was over-approximated.
    exact: bool,
}

impl Encoder<'_> {
    fn var_type(&self, var: VarId, node_ty: IntType) -> IntType {
        self.program
            .variables
            .get(var.index())
            .map(|v| v.ty)
            .unwrap_or(node_ty)
    }

    /// A fresh value of `ty`: what an operation the encoding does not model may yield.
    fn unmodelled(&mut self, ty: IntType) -> Val {
        self.exact = false;
        let term = fresh("op");
        self.side.push(in_range(&term, ty));
        Val::of_type(term, ty)
    }

    /// A value of type `from` converted to `to`: unmodelled when either is a float type and
    /// they differ (IEEE-754 conversions are not modelled), else wrapped.
    fn convert(&mut self, v: Val, from: IntType, to: IntType) -> Val {
        if from != to && (from.is_float() || to.is_float()) {
            self.unmodelled(to)
        } else {
            wrap(v, to)
        }
    }

    /// The result of an exact computation in type `ty`: undefined if a signed type cannot hold
    /// it (unless overflow wraps), wrapped otherwise.
    fn result(&mut self, exact: Val, ty: IntType) -> Val {
        if ty.signed && self.overflow == SignedOverflow::Undefined {
            if !exact.fits(ty) {
                self.undefined.push(in_range(&exact.term, ty).not());
            }
            Val {
                lo: exact.lo.max(ty.min()),
                hi: exact.hi.min(ty.max()),
                term: exact.term,
            }
        } else {
            wrap(exact, ty)
        }
    }

    fn value(&mut self, expr: &Expr) -> Val {
        let ty = expr.ty;
        if expr.is_float_operation() {
            return self.unmodelled(ty);
        }
        match &expr.kind {
            ExprKind::Const(v) => Val::constant(ty.normalize(*v)),
            ExprKind::Address { address, .. } | ExprKind::Function { address, .. } => {
                Val::constant(ty.normalize(i128::from(*address)))
            }
            ExprKind::Var(v) => {
                let declared = self.var_type(*v, ty);
                self.convert(
                    Val::of_type(int_var(*v, self.ssa.get(*v)), declared),
                    declared,
                    ty,
                )
            }
            // A bitcast reads a bit pattern as another type of the same size: wrapping the
            // normalised value into `ty` is exactly that.
            ExprKind::Cast(e) | ExprKind::Bitcast(e) => {
                let inner = self.value(e);
                wrap(inner, ty)
            }
            ExprKind::Unary(UnaryOp::LogNot, e) => indicator(&self.condition(e).not()),
            ExprKind::Unary(UnaryOp::Neg, e) => {
                let x = self.value(e);
                let exact = Val {
                    term: x.term.unary_minus(),
                    lo: -x.hi,
                    hi: -x.lo,
                };
                self.result(exact, ty)
            }
            ExprKind::Unary(UnaryOp::BitNot, e) => {
                // ~x = -x - 1 in two's complement, of any width: exact, then wrapped.
                let x = self.value(e);
                let exact = Val {
                    term: Int::sub(&[&x.term.unary_minus(), &Int::from_i64(1)]),
                    lo: -x.hi - 1,
                    hi: -x.lo - 1,
                };
                wrap(exact, ty)
            }
            ExprKind::Binary(op, a, b) if op.is_comparison() => indicator(&self.comparison(*op, a, b)),
            ExprKind::Binary(op, a, b) => self.arithmetic(*op, a, b, ty),
        }
    }

    fn condition(&mut self, expr: &Expr) -> Bool {
        if expr.is_float_operation() || expr.ty.is_float() {
            // Comparisons of floats (and a float's zero-ness) are not modelled.
            return self.unmodelled(IntType::BOOL).term.eq(Int::from_i64(1));
        }
        match &expr.kind {
            ExprKind::Binary(op, a, b) if op.is_comparison() => self.comparison(*op, a, b),
            ExprKind::Unary(UnaryOp::LogNot, e) => self.condition(e).not(),
            ExprKind::Const(v) => Bool::from_bool(*v != 0),
            _ => self.value(expr).term.eq(Int::from_i64(0)).not(),
        }
    }

    /// Comparisons are of the operands' exact values.
    fn comparison(&mut self, op: BinaryOp, a: &Expr, b: &Expr) -> Bool {
        let x = self.value(a).term;
        let y = self.value(b).term;
        match op {
            BinaryOp::Eq => x.eq(&y),
            BinaryOp::Ne => x.eq(&y).not(),
            BinaryOp::Lt => x.lt(&y),
            BinaryOp::Le => x.le(&y),
            BinaryOp::Gt => x.gt(&y),
            _ => x.ge(&y),
        }
    }

    fn arithmetic(&mut self, op: BinaryOp, a: &Expr, b: &Expr, ty: IntType) -> Val {
        let x = self.value(a);
        let y = self.value(b);
        let zero = Int::from_i64(0);
        match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => {
                let (term, bounds) = match op {
                    BinaryOp::Add => (Int::add(&[&x.term, &y.term]), corners(&x, &y, i128::checked_add)),
                    BinaryOp::Sub => (Int::sub(&[&x.term, &y.term]), corners(&x, &y, i128::checked_sub)),
                    _ => (Int::mul(&[&x.term, &y.term]), corners(&x, &y, i128::checked_mul)),
                };
                let (lo, hi) = bounds.unwrap_or((i128::MIN, i128::MAX));
                self.result(Val { term, lo, hi }, ty)
            }
            BinaryOp::Div | BinaryOp::Rem => {
                let mut ub = vec![y.term.eq(&zero)];
                if a.ty.signed && b.ty.signed {
                    ub.push(Bool::and(&[
                        x.term.eq(Int::from_i128(a.ty.min())),
                        y.term.eq(Int::from_i64(-1)),
                    ]));
                }
                self.undefined.push(Bool::or(&ub));
                // Truncation toward zero from the (floor) division of the absolute values.
                let abs = |v: &Int| v.ge(&zero).ite(v, &v.unary_minus());
                let q_abs = abs(&x.term).div(abs(&y.term));
                let same_sign = x.term.ge(&zero).eq(y.term.ge(&zero));
                let q = same_sign.ite(&q_abs, &q_abs.unary_minus());
                let mx =
                    x.lo.unsigned_abs()
                        .max(x.hi.unsigned_abs())
                        .min(i128::MAX as u128) as i128;
                let my =
                    y.lo.unsigned_abs()
                        .max(y.hi.unsigned_abs())
                        .min(i128::MAX as u128) as i128;
                let exact = if op == BinaryOp::Div {
                    Val {
                        term: q,
                        lo: -mx,
                        hi: mx,
                    }
                } else {
                    let m = mx.min(my);
                    Val {
                        term: Int::sub(&[&x.term, &Int::mul(&[&y.term, &q])]),
                        lo: -m,
                        hi: m,
                    }
                };
                wrap(exact, ty)
            }
            BinaryOp::Shl | BinaryOp::Shr => {
                let rbits = i128::from(ty.bits);
                let Some(k) = y.as_const().filter(|k| (0..rbits).contains(k)) else {
                    self.undefined
                        .push(Bool::or(&[y.term.lt(&zero), y.term.ge(Int::from_i128(rbits))]));
                    return self.unmodelled(ty);
                };
                let factor = 1i128 << k;
                if op == BinaryOp::Shr {
                    // Floor division by a power of two: the arithmetic shift of signed values.
                    let exact = Val {
                        term: x.term.div(Int::from_i128(factor)),
                        lo: x.lo.div_euclid(factor),
                        hi: x.hi.div_euclid(factor),
                    };
                    return wrap(exact, ty);
                }
                let (lo, hi) =
                    corners(&x, &Val::constant(factor), i128::checked_mul).unwrap_or((i128::MIN, i128::MAX));
                let exact = Val {
                    term: Int::mul(&[&x.term, &Int::from_i128(factor)]),
                    lo,
                    hi,
                };
                if a.ty.signed && self.overflow == SignedOverflow::Undefined && ty.signed && x.lo < 0 {
                    self.undefined.push(x.term.lt(&zero));
                }
                self.result(exact, ty)
            }
            _ => {
                let bool_like = |v: &Val| v.lo >= 0 && v.hi <= 1;
                let nonzero = |v: &Val| v.term.eq(Int::from_i64(0)).not();
                if bool_like(&x) && bool_like(&y) {
                    let c = match op {
                        BinaryOp::BitAnd => Bool::and(&[nonzero(&x), nonzero(&y)]),
                        BinaryOp::BitOr => Bool::or(&[nonzero(&x), nonzero(&y)]),
                        _ => x.term.eq(&y.term).not(),
                    };
                    return wrap(indicator(&c), ty);
                }
                // x & (2^k - 1) is x mod 2^k in two's complement.
                let mask = |v: &Val| v.as_const().filter(|m| *m > 0 && (m & (m + 1)) == 0);
                if op == BinaryOp::BitAnd {
                    let masked = match (mask(&x), mask(&y)) {
                        (_, Some(m)) => Some((&x, m)),
                        (Some(m), _) => Some((&y, m)),
                        _ => None,
                    };
                    if let Some((v, m)) = masked {
                        let exact = Val {
                            term: v.term.modulo(Int::from_i128(m + 1)),
                            lo: 0,
                            hi: m,
                        };
                        return wrap(exact, ty);
                    }
                }
                self.unmodelled(ty)
            }
        }
    }
}

/// A path formula over integers in SSA form (see the module doc).
#[derive(Clone)]
pub struct IntPath {
    pub parts: Vec<Bool>,
    pub ssa: SsaMap,
    /// True while no operation was over-approximated.
    pub exact: bool,
}

impl IntPath {
    /// The empty path (no constraint).
    pub fn empty() -> IntPath {
        IntPath {
            parts: Vec::new(),
            ssa: SsaMap::new(),
            exact: true,
        }
    }

    /// The program start: every global at index 0 equals its static initial value.
    pub fn program_start(program: &Program) -> IntPath {
        let mut path = IntPath::empty();
        path.parts = program
            .globals()
            .map(|(id, v)| int_var(id, 0).eq(Int::from_i128(v.ty.normalize(v.initial))))
            .collect();
        path
    }

    /// The formula: the conjunction of the parts.
    pub fn formula(&self) -> Bool {
        Bool::and(&self.parts)
    }

    /// Extends by `step`, its undefined behaviour excluded.
    pub fn extend(&mut self, step: Step, program: &Program) -> Result<(), EncodeError> {
        let effect = step_effect(step, program)?;
        let before = self.ssa.clone();
        let mut enc = Encoder {
            program,
            ssa: &before,
            overflow: program.signed_overflow,
            undefined: Vec::new(),
            side: Vec::new(),
            exact: true,
        };
        // (variable, value) writes, made after every read of the step.
        let mut writes: Vec<(VarId, Val)> = Vec::new();
        match effect {
            StepEffect::Nothing => {}
            StepEffect::ReturnFromCall { result, .. } => {
                if let Some((res, rv)) = result {
                    let v = Val::of_type(int_var(rv.var, before.get(rv.var)), rv.ty);
                    writes.push((res.var, enc.convert(v, rv.ty, res.ty)));
                }
            }
            StepEffect::Assign { target, value } => {
                let v = enc.value(value);
                writes.push((target.var, enc.convert(v, value.ty, target.ty)));
            }
            StepEffect::Uninitialized { target } => {
                let v = fresh("uninit");
                enc.side.push(in_range(&v, target.ty));
                writes.push((target.var, Val::of_type(v, target.ty)));
            }
            // Array contents are not tracked: a load yields any value of its type, a store or
            // the creation of an array changes nothing the relations hold (an
            // over-approximation; the bit-precise encoding has arrays).
            StepEffect::Load { target, .. } => {
                let v = enc.unmodelled(target.ty);
                writes.push((target.var, v));
            }
            StepEffect::Store { .. } | StepEffect::CreateArray { .. } => enc.exact = false,
            StepEffect::LoadThrough { target, .. } => {
                let v = enc.unmodelled(target.ty);
                writes.push((target.var, v));
            }
            // What the write may reach becomes arbitrary.
            // A library function's result and what it writes are not encoded over integers.
            StepEffect::Library {
                result, may_write, ..
            } => {
                for t in result.into_iter().chain(may_write) {
                    if program.variable(t.var).array.is_some() {
                        enc.exact = false;
                    } else {
                        let v = enc.unmodelled(t.ty);
                        writes.push((t.var, v));
                    }
                }
            }
            StepEffect::Havoc { targets } | StepEffect::StoreThrough { objects: targets, .. } => {
                for t in targets {
                    if program.variable(t.var).array.is_some() {
                        enc.exact = false;
                    } else {
                        let v = enc.unmodelled(t.ty);
                        writes.push((t.var, v));
                    }
                }
            }
            StepEffect::Nondet { target, ty } => {
                if let Some(t) = target {
                    let v = fresh("nondet");
                    enc.side.push(in_range(&v, ty));
                    writes.push((t.var, enc.convert(Val::of_type(v, ty), ty, t.ty)));
                }
            }
            StepEffect::Assume { cond, branch } => {
                let c = enc.condition(cond);
                enc.side.push(if branch { c } else { c.not() });
            }
            StepEffect::Call { params, .. } => {
                for (p, a) in params {
                    let v = enc.value(a);
                    writes.push((p.var, enc.convert(v, a.ty, p.ty)));
                }
            }
        }
        self.exact &= enc.exact;
        self.parts.append(&mut enc.side);
        if !enc.undefined.is_empty() {
            self.parts.push(Bool::or(&enc.undefined).not());
        }
        for (var, v) in writes {
            let index = self.ssa.bump(var);
            self.parts.push(int_var(var, index).eq(&v.term));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::semantics;
    use crate::cfa::types::DataModel;
    use crate::cfa::{FuncId, Scope, Variable};
    use z3::ast::Ast;

    const TYPES: [IntType; 7] = [
        IntType::BOOL,
        IntType::CHAR,
        IntType::UCHAR,
        IntType::INT,
        IntType::UINT,
        IntType::LLONG,
        IntType::ULLONG,
    ];

    /// A program whose only parts are two variables `x`, `y` of the given types.
    fn two_variables(tx: IntType, ty: IntType) -> Program {
        let var = |name: &str, ty| Variable {
            name: name.into(),
            source_name: name.into(),
            ty,
            scope: Scope::Global,
            array: None,
            initial: 0,
            temporary: false,
            read_only: false,
            address: None,
        };
        Program {
            files: vec!["test.c".into()],
            hash: String::new(),
            data_model: DataModel::ILP32,
            signed_overflow: SignedOverflow::Undefined,
            variables: vec![var("x", tx), var("y", ty)],
            record_objects: Vec::new(),
            functions: Vec::new(),
            locations: Vec::new(),
            edges: Vec::new(),
            entry_function: FuncId(0),
            out_edges: Vec::new(),
            in_edges: Vec::new(),
        }
    }

    /// Values at the edges of a type's range and small ones.
    fn samples(ty: IntType) -> Vec<i128> {
        let mut v = vec![
            ty.min(),
            ty.min() + 1,
            ty.max(),
            ty.max() - 1,
            0,
            1,
            2,
            3,
            7,
            -1,
            -2,
            -8,
            31,
            64,
        ];
        v.iter_mut().for_each(|x| *x = ty.normalize(*x));
        v.sort();
        v.dedup();
        v
    }

    /// Encodes `expr` at `x = vx, y = vy`; compares with the interpreter's semantics: the same
    /// value where the encoding is exact, undefined behaviour exactly where it is.
    fn agrees(expr: &Expr, program: &Program, vx: i128, vy: i128) {
        let env = |v: VarId| if v.0 == 0 { vx } else { vy };
        let expected = semantics::eval_concrete(expr, &env, program.signed_overflow);
        let ssa = SsaMap::new();
        let mut enc = Encoder {
            program,
            ssa: &ssa,
            overflow: program.signed_overflow,
            undefined: Vec::new(),
            side: Vec::new(),
            exact: true,
        };
        let value = enc.value(expr);
        let (x, y) = (int_var(VarId(0), 0), int_var(VarId(1), 0));
        let (cx, cy) = (Int::from_i128(vx), Int::from_i128(vy));
        let at = |t: &Int| t.substitute(&[(&x, &cx), (&y, &cy)]).simplify();
        let ub = Bool::or(&enc.undefined)
            .substitute(&[(&x, &cx), (&y, &cy)])
            .simplify()
            .as_bool();
        match expected {
            Ok(v) => {
                assert_eq!(ub, Some(false), "spurious UB: {expr} at x={vx}, y={vy}");
                if enc.exact {
                    assert_eq!(at(&value.term).as_i128(), Some(v), "{expr} at x={vx}, y={vy}");
                    assert!(
                        value.lo <= v && v <= value.hi,
                        "bounds of {expr} at x={vx}, y={vy}"
                    );
                }
            }
            Err(_) if enc.exact => assert_eq!(ub, Some(true), "missed UB: {expr} at x={vx}, y={vy}"),
            // An over-approximated operation may leave undefined behaviour in (more paths).
            Err(_) => {}
        }
    }

    #[test]
    fn integer_encoding_agrees_with_semantics() {
        use BinaryOp::*;
        let mut cases = 0;
        for tx in TYPES {
            for ty in TYPES {
                let program = two_variables(tx, ty);
                let (x, y) = (Expr::var(VarId(0), tx), Expr::var(VarId(1), ty));
                let common = if tx.bits >= ty.bits { tx } else { ty }.promoted();
                let mut exprs = vec![
                    x.clone().cast(ty),
                    Expr::unary(UnaryOp::Neg, x.clone().cast(tx.promoted()), tx.promoted()),
                    Expr::unary(UnaryOp::BitNot, x.clone().cast(tx.promoted()), tx.promoted()),
                    Expr::unary(UnaryOp::LogNot, x.clone(), IntType::INT),
                    Expr::binary(BitAnd, x.clone().cast(common), Expr::constant(7, common), common),
                    Expr::binary(Shl, x.clone().cast(tx.promoted()), Expr::int(3), tx.promoted()),
                    Expr::binary(Shr, x.clone().cast(tx.promoted()), Expr::int(1), tx.promoted()),
                    Expr::binary(Shl, x.clone().cast(tx.promoted()), y.clone(), tx.promoted()),
                ];
                for op in [Add, Sub, Mul, Div, Rem, BitAnd, BitOr, BitXor, Lt, Eq, Ge] {
                    let result = if op.is_comparison() { IntType::INT } else { common };
                    exprs.push(Expr::binary(
                        op,
                        x.clone().cast(common),
                        y.clone().cast(common),
                        result,
                    ));
                }
                for expr in &exprs {
                    for vx in samples(tx) {
                        for vy in samples(ty) {
                            agrees(expr, &program, vx, vy);
                            cases += 1;
                        }
                    }
                }
            }
        }
        assert!(cases > 10_000, "{cases} cases");
    }
}
