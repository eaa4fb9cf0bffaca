//! The one implementation of C's arithmetic semantics in Baton (integers here, IEEE-754
//! floating point through [`super::float`]).
//!
//! The concrete interpreter evaluates with every value known; the explicit-value analysis
//! evaluates with some values unknown (`None`). Both call [`eval`], so the two can never
//! disagree on what an operator means; the predicate analysis' bit-vector encoding follows the
//! same rules (and is tested against them).
//!
//! Operations C leaves undefined are reported as [`UndefinedBehavior`]: division by zero,
//! `MIN / -1`, shifts by a negative amount or by the width or more, and — under
//! [`SignedOverflow::Undefined`], the default — signed overflow of `+`, `-`, `*`, unary `-` and
//! `<<` (a left shift of a negative value, or one whose result the signed type cannot hold;
//! C11 6.5.5, 6.5.7). sv-benchmarks tasks are free of undefined behaviour by convention, so
//! every analysis and the replay of counterexamples treat a path that executes one of these as
//! ending there: it is never a counterexample. [`SignedOverflow::Wrap`] keeps gcc's `-fwrapv`
//! wrap-around for users who want it. Conversions to a signed type that cannot hold the value
//! are implementation-defined, not undefined (C11 6.3.1.3): they wrap, as gcc does, in both
//! modes.

use super::expr::{BinaryOp, Expr, ExprKind, UnaryOp};
use super::float;
use super::types::IntType;
use super::VarId;
use serde::{Deserialize, Serialize};
use std::fmt;
use thiserror::Error;

/// An operation whose result C does not define and Baton will not guess.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error, Serialize, Deserialize)]
pub enum UndefinedBehavior {
    #[error("division by zero")]
    DivisionByZero,
    #[error("signed division overflow (MIN / -1)")]
    DivisionOverflow,
    #[error("shift by a negative amount or by at least the width of the type")]
    ShiftOutOfRange,
    /// `+`, `-`, `*`, unary `-` or `<<` whose exact result the signed type cannot hold, or a
    /// left shift of a negative value (only under [`SignedOverflow::Undefined`]).
    #[error("signed integer overflow")]
    SignedOverflow,
    /// An array element accessed with an index outside its dimension.
    #[error("array index out of bounds")]
    ArrayIndexOutOfBounds,
    /// A variable-length array declared with a size that is not positive.
    #[error("variable-length array size not positive")]
    ArraySizeNotPositive,
    /// A floating-point value converted to an integer type that cannot hold its integer part
    /// (or a NaN converted to an integer; C11 6.3.1.4).
    #[error("floating-point value out of the range of the integer type it is converted to")]
    FloatConversionOutOfRange,
    /// An integer-only operator (`%`, shifts, bitwise) on floating-point operands: the
    /// frontend never builds one, C does not define it.
    #[error("integer operator on floating-point operands")]
    IntegerOperatorOnFloat,
    /// A read or write through a null pointer (`free(NULL)` is fine).
    #[error("null pointer dereference")]
    NullDereference,
    /// An access through an address that is in no object (nor one past its end).
    #[error("access through a pointer to no object")]
    InvalidPointer,
    /// An access that does not lie wholly inside the object its pointer points into.
    #[error("access outside the bounds of the pointed-to object")]
    PointerOutOfBounds,
    /// An access through a pointer into a freed heap block or a local whose function
    /// returned.
    #[error("access through a dangling pointer (use after free or after the end of its lifetime)")]
    DanglingPointer,
    /// `free` or `realloc` of a heap block already freed.
    #[error("double free")]
    DoubleFree,
    /// `free` or `realloc` of a pointer that is not the start of a block from `malloc`,
    /// `calloc` or `realloc`.
    #[error("free of a pointer that is not the start of an allocated block")]
    InvalidFree,
    /// A read of heap memory never written since `malloc` (an indeterminate value).
    #[error("read of uninitialised heap memory")]
    UninitializedRead,
    /// A call through a pointer that is not the address of a function of a type compatible
    /// with the pointer's (null, the address of an object, of another kind of function).
    #[error("call through a pointer that is not the address of a function of a compatible type")]
    InvalidFunctionCall,
    /// A read or write through the address of a function (a function has no storage).
    #[error("access through a pointer to a function")]
    FunctionAccess,
    /// A write into a string literal (C11 6.4.5p7).
    #[error("write into a string literal")]
    StringLiteralWrite,
    /// `memcpy`, `strcpy`, `strncpy` or `strcat` between overlapping objects (C11 7.24.2).
    #[error("copy between overlapping objects")]
    OverlappingCopy,
}

/// What signed arithmetic overflow means: undefined behaviour as in C (paths through it are
/// excluded, as sv-benchmarks assumes) or gcc's `-fwrapv` wrap-around.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SignedOverflow {
    #[default]
    Undefined,
    Wrap,
}

impl SignedOverflow {
    /// Stable keys of what an analysis under this mode assumes (`--json` outputs).
    pub fn assumption_keys(self) -> Vec<&'static str> {
        match self {
            SignedOverflow::Undefined => vec!["no-undefined-behaviour"],
            SignedOverflow::Wrap => vec!["no-undefined-behaviour", "signed-overflow-wraps"],
        }
    }

    /// What an analysis under this mode assumes, in words (verdict reasons, reports).
    pub fn assumption(self) -> &'static str {
        match self {
            SignedOverflow::Undefined => {
                "paths with undefined behaviour (signed overflow, division by zero, shift out of range, \
                 float to integer conversion out of range, access out of bounds or through a null, \
                 dangling or function pointer, invalid or double free, read of uninitialised heap \
                 memory, call through an invalid function pointer) excluded, as sv-benchmarks assumes"
            }
            SignedOverflow::Wrap => {
                "signed-overflow: wrap; paths with other undefined behaviour (division by zero, \
                 shift out of range, float to integer conversion out of range, access out of bounds or \
                 through a null, dangling or function pointer, invalid or double free, read of \
                 uninitialised heap memory, call through an invalid function pointer) excluded"
            }
        }
    }
}

impl std::str::FromStr for SignedOverflow {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "undefined" => Ok(SignedOverflow::Undefined),
            "wrap" => Ok(SignedOverflow::Wrap),
            other => Err(format!(
                "unknown signed-overflow semantics `{other}` (expected undefined or wrap)"
            )),
        }
    }
}

impl fmt::Display for SignedOverflow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SignedOverflow::Undefined => "undefined",
            SignedOverflow::Wrap => "wrap",
        })
    }
}

/// The result of an operation whose exact value is `exact` (`None`: beyond `i128`) and whose
/// value wrapped around modulo 2^128 is `wrapped`: signed overflow if `result` is signed, cannot
/// hold the exact value and overflow is undefined; else `wrapped` converted to `result`.
fn fit(
    exact: Option<i128>,
    wrapped: i128,
    result: IntType,
    overflow: SignedOverflow,
) -> Result<i128, UndefinedBehavior> {
    let undefined = overflow == SignedOverflow::Undefined && result.signed;
    if undefined && !exact.is_some_and(|v| result.contains(v)) {
        return Err(UndefinedBehavior::SignedOverflow);
    }
    Ok(result.normalize(wrapped))
}

/// Applies a unary operator to a normalised operand, giving a value of `result`.
pub fn unary(
    op: UnaryOp,
    value: i128,
    result: IntType,
    overflow: SignedOverflow,
) -> Result<i128, UndefinedBehavior> {
    match op {
        UnaryOp::Neg if result.is_float() => Ok(float::negate(value, result)),
        UnaryOp::BitNot if result.is_float() => Err(UndefinedBehavior::IntegerOperatorOnFloat),
        UnaryOp::Neg => fit(value.checked_neg(), value.wrapping_neg(), result, overflow),
        UnaryOp::BitNot => Ok(result.normalize(!value)),
        UnaryOp::LogNot => Ok(i128::from(value == 0)),
    }
}

/// Applies a binary operator. `a` and `b` are normalised values of `operand` (for shifts: `a` of
/// the result type, `b` of its own type); the result is normalised to `result`. Overflow is
/// judged on the exact result of the operand values against `result` (the frontend gives `+`,
/// `-`, `*` operands of the result type already).
pub fn binary(
    op: BinaryOp,
    a: i128,
    b: i128,
    operand: IntType,
    result: IntType,
    overflow: SignedOverflow,
) -> Result<i128, UndefinedBehavior> {
    if operand.is_float() {
        return float::binary(op, a, b, operand).ok_or(UndefinedBehavior::IntegerOperatorOnFloat);
    }
    let norm = |v: i128| result.normalize(v);
    Ok(match op {
        BinaryOp::Add => fit(a.checked_add(b), a.wrapping_add(b), result, overflow)?,
        BinaryOp::Sub => fit(a.checked_sub(b), a.wrapping_sub(b), result, overflow)?,
        BinaryOp::Mul => fit(a.checked_mul(b), a.wrapping_mul(b), result, overflow)?,
        BinaryOp::Div | BinaryOp::Rem => {
            if b == 0 {
                return Err(UndefinedBehavior::DivisionByZero);
            }
            if operand.signed && a == operand.min() && b == -1 {
                return Err(UndefinedBehavior::DivisionOverflow);
            }
            // i128 division truncates toward zero, as C does.
            if op == BinaryOp::Div {
                norm(a / b)
            } else {
                norm(a % b)
            }
        }
        BinaryOp::Shl | BinaryOp::Shr => {
            if b < 0 || b >= i128::from(result.bits) {
                return Err(UndefinedBehavior::ShiftOutOfRange);
            }
            if op == BinaryOp::Shl {
                if a < 0 && result.signed && overflow == SignedOverflow::Undefined {
                    return Err(UndefinedBehavior::SignedOverflow);
                }
                // 0 <= b < 64 here; `a << b` drops bits beyond i128, which wrap-around drops too.
                fit(a.checked_mul(1i128 << b), a << b, result, overflow)?
            } else {
                // `a` is normalised, so `>>` on i128 is arithmetic for negative signed values
                // and logical for unsigned ones.
                norm(a >> b)
            }
        }
        BinaryOp::BitAnd => norm(a & b),
        BinaryOp::BitOr => norm(a | b),
        BinaryOp::BitXor => norm(a ^ b),
        BinaryOp::Eq => i128::from(a == b),
        BinaryOp::Ne => i128::from(a != b),
        BinaryOp::Lt => i128::from(a < b),
        BinaryOp::Le => i128::from(a <= b),
        BinaryOp::Gt => i128::from(a > b),
        BinaryOp::Ge => i128::from(a >= b),
    })
}

/// Converts a normalised value of `from` to `to` (C11 6.3.1): integers wrap (gcc's choice for
/// signed targets), floating-point conversions follow [`float::convert`]; a floating-point
/// value whose integer part `to` cannot hold is undefined.
pub fn convert(value: i128, from: IntType, to: IntType) -> Result<i128, UndefinedBehavior> {
    if from.is_float() || to.is_float() {
        float::convert(value, from, to).ok_or(UndefinedBehavior::FloatConversionOutOfRange)
    } else {
        Ok(to.normalize(value))
    }
}

/// Evaluates `expr` with variable values from `env` (`None` = unknown).
///
/// Returns `Ok(None)` when the value depends on an unknown variable, and an error when the
/// evaluation certainly hits undefined behaviour. With unknown operands, undefined behaviour
/// that *might* happen is not reported: the value is then unknown, which over-approximates the
/// executions without undefined behaviour (the only ones that count).
pub fn eval(
    expr: &Expr,
    env: &impl Fn(VarId) -> Option<i128>,
    overflow: SignedOverflow,
) -> Result<Option<i128>, UndefinedBehavior> {
    Ok(match &expr.kind {
        ExprKind::Const(v) => Some(*v),
        ExprKind::Address { address, .. } | ExprKind::Function { address, .. } => {
            Some(expr.ty.normalize(i128::from(*address)))
        }
        ExprKind::Var(v) => env(*v).map(|x| expr.ty.normalize(x)),
        ExprKind::Cast(e) => match eval(e, env, overflow)? {
            Some(x) => Some(convert(x, e.ty, expr.ty)?),
            None => None,
        },
        // The same bytes read as the node's type: a bit pattern of the same size.
        ExprKind::Bitcast(e) => eval(e, env, overflow)?.map(|x| expr.ty.normalize(x)),
        ExprKind::Unary(UnaryOp::LogNot, e) if e.ty.is_float() => {
            eval(e, env, overflow)?.map(|x| i128::from(float::Float::from_bits(x, e.ty).is_zero()))
        }
        ExprKind::Unary(op, e) => match eval(e, env, overflow)? {
            Some(x) => Some(unary(*op, x, expr.ty, overflow)?),
            None => None,
        },
        ExprKind::Binary(op, a, b) => {
            let va = eval(a, env, overflow)?;
            let vb = eval(b, env, overflow)?;
            match (va, vb) {
                (Some(x), Some(y)) => Some(binary(*op, x, y, a.ty, expr.ty, overflow)?),
                // Absorbing elements keep a value known although one side is not.
                (Some(0), None) | (None, Some(0))
                    if matches!(op, BinaryOp::Mul | BinaryOp::BitAnd) && !a.ty.is_float() =>
                {
                    Some(0)
                }
                _ => None,
            }
        }
    })
}

/// Evaluates an expression whose variables are all known.
pub fn eval_concrete(
    expr: &Expr,
    env: &impl Fn(VarId) -> i128,
    overflow: SignedOverflow,
) -> Result<i128, UndefinedBehavior> {
    // Every variable is known, so `eval` always yields a value.
    Ok(eval(expr, &|v| Some(env(v)), overflow)?.unwrap_or(0))
}

/// Conditions (each meaning `!= 0`) under which evaluating `expr` has no undefined behaviour,
/// as expressions over the same variables, for the weakest preconditions of the predicate
/// analysis' refinement. Signed `+ - *`, unary `-` and `<<` of types up to 32 bits are checked
/// exactly in `long long`; wider ones (which have no wider type) give no condition, so the
/// conjunction may be weaker than "defined" there, never stronger: every evaluation without
/// undefined behaviour satisfies all of them (read with [`SignedOverflow::Wrap`]).
pub fn defined_conditions(expr: &Expr, overflow: SignedOverflow) -> Vec<Expr> {
    let mut out = Vec::new();
    collect_defined(expr, overflow, &mut out);
    out
}

fn collect_defined(expr: &Expr, overflow: SignedOverflow, out: &mut Vec<Expr>) {
    let ll = IntType::LLONG;
    let int = IntType::INT;
    let cmp = |op: BinaryOp, a: Expr, b: Expr| Expr::binary(op, a, b, int);
    let ty = expr.ty;
    // Signed overflow is checked in `long long` for operations in types of at most 32 bits.
    let checked = overflow == SignedOverflow::Undefined && ty.signed && ty.bits <= 32;
    let in_range = |exact: Expr, out: &mut Vec<Expr>| {
        out.push(cmp(BinaryOp::Ge, exact.clone(), Expr::constant(ty.min(), ll)));
        out.push(cmp(BinaryOp::Le, exact, Expr::constant(ty.max(), ll)));
    };
    match &expr.kind {
        ExprKind::Const(_) | ExprKind::Var(_) | ExprKind::Address { .. } | ExprKind::Function { .. } => {}
        ExprKind::Cast(e) | ExprKind::Bitcast(e) => collect_defined(e, overflow, out),
        ExprKind::Unary(op, e) => {
            collect_defined(e, overflow, out);
            if *op == UnaryOp::Neg && checked && e.ty == ty {
                out.push(cmp(BinaryOp::Ne, (**e).clone(), Expr::constant(ty.min(), ty)));
            }
        }
        ExprKind::Binary(op, a, b) => {
            collect_defined(a, overflow, out);
            collect_defined(b, overflow, out);
            let (x, y) = ((**a).clone(), (**b).clone());
            match op {
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul if checked && a.ty == ty && b.ty == ty => {
                    in_range(Expr::binary(*op, x.cast(ll), y.cast(ll), ll), out);
                }
                // Floating-point division by zero is IEEE-754's infinity or NaN, not undefined.
                BinaryOp::Div | BinaryOp::Rem if !ty.is_float() => {
                    out.push(cmp(BinaryOp::Ne, y.clone(), Expr::constant(0, b.ty)));
                    if a.ty.signed && b.ty.signed {
                        let not_min = cmp(BinaryOp::Ne, x, Expr::constant(a.ty.min(), a.ty));
                        let not_minus_one = cmp(BinaryOp::Ne, y, Expr::constant(-1, b.ty));
                        out.push(Expr::binary(BinaryOp::BitOr, not_min, not_minus_one, int));
                    }
                }
                BinaryOp::Shl | BinaryOp::Shr => {
                    if b.ty.signed {
                        out.push(cmp(BinaryOp::Ge, y.clone(), Expr::constant(0, b.ty)));
                    }
                    if b.ty.contains(i128::from(ty.bits)) {
                        out.push(cmp(
                            BinaryOp::Lt,
                            y.clone(),
                            Expr::constant(i128::from(ty.bits), b.ty),
                        ));
                    }
                    if *op == BinaryOp::Shl && checked && a.ty == ty {
                        out.push(cmp(BinaryOp::Ge, x.clone(), Expr::constant(0, ty)));
                        // With 0 <= x < 2^31 and 0 <= y < 32 the exact value fits in long long.
                        let exact = Expr::binary(BinaryOp::Shl, x.cast(ll), y, ll);
                        out.push(cmp(BinaryOp::Le, exact, Expr::constant(ty.max(), ll)));
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use SignedOverflow::{Undefined, Wrap};

    fn bin_in(
        mode: SignedOverflow,
        op: BinaryOp,
        a: i128,
        b: i128,
        ty: IntType,
    ) -> Result<i128, UndefinedBehavior> {
        binary(
            op,
            a,
            b,
            ty,
            if op.is_comparison() { IntType::INT } else { ty },
            mode,
        )
    }

    fn bin(op: BinaryOp, a: i128, b: i128, ty: IntType) -> Result<i128, UndefinedBehavior> {
        bin_in(Undefined, op, a, b, ty)
    }

    const INT_MAX: i128 = i32::MAX as i128;
    const INT_MIN: i128 = i32::MIN as i128;

    #[test]
    fn division_truncates_toward_zero() {
        assert_eq!(bin(BinaryOp::Div, -7, 2, IntType::INT), Ok(-3));
        assert_eq!(bin(BinaryOp::Rem, -7, 2, IntType::INT), Ok(-1));
        assert_eq!(bin(BinaryOp::Rem, 7, -2, IntType::INT), Ok(1));
        for mode in [Undefined, Wrap] {
            assert_eq!(
                bin_in(mode, BinaryOp::Div, 1, 0, IntType::INT),
                Err(UndefinedBehavior::DivisionByZero)
            );
            assert_eq!(
                bin_in(mode, BinaryOp::Div, INT_MIN, -1, IntType::INT),
                Err(UndefinedBehavior::DivisionOverflow)
            );
        }
    }

    #[test]
    fn unsigned_wraps_signed_overflow_is_undefined_unless_wrap() {
        assert_eq!(bin(BinaryOp::Sub, 0, 1, IntType::UINT), Ok(4294967295));
        assert_eq!(bin(BinaryOp::Mul, 65536, 65536, IntType::UINT), Ok(0));
        let max64 = i128::from(u64::MAX);
        assert_eq!(bin(BinaryOp::Mul, max64, max64, IntType::ULLONG), Ok(1));
        let overflowing = [
            (BinaryOp::Add, INT_MAX, 1, INT_MIN),
            (BinaryOp::Sub, INT_MIN, 1, INT_MAX),
            (BinaryOp::Mul, 65536, 65536, 0),
            (BinaryOp::Shl, 1, 31, INT_MIN),
            (BinaryOp::Shl, 3, 30, INT_MIN + (1 << 30)),
            (BinaryOp::Shl, -1, 1, -2),
        ];
        for (op, a, b, wrapped) in overflowing {
            let what = format!("{a} {} {b}", op.symbol());
            assert_eq!(
                bin(op, a, b, IntType::INT),
                Err(UndefinedBehavior::SignedOverflow),
                "{what}"
            );
            assert_eq!(bin_in(Wrap, op, a, b, IntType::INT), Ok(wrapped), "{what}");
        }
        assert_eq!(bin(BinaryOp::Add, INT_MAX - 1, 1, IntType::INT), Ok(INT_MAX));
        assert_eq!(bin(BinaryOp::Mul, -65536, 32768, IntType::INT), Ok(INT_MIN));
        assert_eq!(bin(BinaryOp::Shl, 1, 30, IntType::INT), Ok(1 << 30));
        let llong_max = i128::from(i64::MAX);
        assert_eq!(
            bin(BinaryOp::Mul, llong_max, llong_max, IntType::LLONG),
            Err(UndefinedBehavior::SignedOverflow)
        );
        assert_eq!(
            bin_in(Wrap, BinaryOp::Mul, llong_max, llong_max, IntType::LLONG),
            Ok(1)
        );
        assert_eq!(
            unary(UnaryOp::Neg, INT_MIN, IntType::INT, Undefined),
            Err(UndefinedBehavior::SignedOverflow)
        );
        assert_eq!(unary(UnaryOp::Neg, INT_MIN, IntType::INT, Wrap), Ok(INT_MIN));
        assert_eq!(unary(UnaryOp::Neg, 1, IntType::UINT, Undefined), Ok(4294967295));
        assert_eq!(unary(UnaryOp::BitNot, 0, IntType::INT, Undefined), Ok(-1));
    }

    #[test]
    fn conversions_wrap_in_both_modes() {
        // (signed char)(c + 1) with c = 127: the int addition is fine, the conversion wraps.
        let c = Expr::var(VarId(0), IntType::CHAR);
        let e =
            Expr::binary(BinaryOp::Add, c.cast(IntType::INT), Expr::int(1), IntType::INT).cast(IntType::CHAR);
        for mode in [Undefined, Wrap] {
            assert_eq!(eval(&e, &|_| Some(127), mode), Ok(Some(-128)));
        }
    }

    #[test]
    fn shifts() {
        assert_eq!(bin(BinaryOp::Shr, -8, 1, IntType::INT), Ok(-4));
        assert_eq!(bin(BinaryOp::Shr, 4294967288, 1, IntType::UINT), Ok(2147483644));
        assert_eq!(bin(BinaryOp::Shl, 1, 31, IntType::UINT), Ok(1 << 31));
        assert_eq!(
            bin(BinaryOp::Shl, i128::from(u64::MAX), 63, IntType::ULLONG),
            Ok(1 << 63)
        );
        for mode in [Undefined, Wrap] {
            assert_eq!(
                bin_in(mode, BinaryOp::Shl, 1, 32, IntType::INT),
                Err(UndefinedBehavior::ShiftOutOfRange)
            );
            assert_eq!(
                bin_in(mode, BinaryOp::Shr, 1, -1, IntType::INT),
                Err(UndefinedBehavior::ShiftOutOfRange)
            );
        }
    }

    #[test]
    fn unknowns_propagate_except_absorbing() {
        let x = Expr::var(VarId(0), IntType::INT);
        let e = Expr::binary(BinaryOp::Mul, x.clone(), Expr::int(0), IntType::INT);
        assert_eq!(eval(&e, &|_| None, Undefined), Ok(Some(0)));
        let e = Expr::binary(BinaryOp::Add, x, Expr::int(1), IntType::INT);
        // Might overflow, but an unknown value is all the caller learns.
        assert_eq!(eval(&e, &|_| None, Undefined), Ok(None));
        assert_eq!(eval(&e, &|_| Some(41), Undefined), Ok(Some(42)));
        assert_eq!(
            eval(&e, &|_| Some(INT_MAX), Undefined),
            Err(UndefinedBehavior::SignedOverflow)
        );
        assert_eq!(eval(&e, &|_| Some(INT_MAX), Wrap), Ok(Some(INT_MIN)));
    }

    /// `defined_conditions` all hold exactly when the evaluation is defined (types up to 32
    /// bits), and hold whenever it is defined (64-bit types).
    #[test]
    fn defined_conditions_describe_undefined_behaviour() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let ops = [
            BinaryOp::Add,
            BinaryOp::Sub,
            BinaryOp::Mul,
            BinaryOp::Div,
            BinaryOp::Rem,
            BinaryOp::Shl,
            BinaryOp::Shr,
        ];
        let (mut defined, mut undefined) = (0, 0);
        for _ in 0..20_000 {
            let ty = [IntType::INT, IntType::UINT, IntType::LLONG][next(3) as usize];
            let op = ops[next(ops.len() as u64) as usize];
            let amount_ty = if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
                IntType::INT
            } else {
                ty
            };
            let (x, y, z) = (
                Expr::var(VarId(0), ty),
                Expr::var(VarId(1), amount_ty),
                Expr::var(VarId(2), ty),
            );
            let inner = Expr::binary(op, x, y, ty);
            let expr = match next(3) {
                0 => inner,
                1 => Expr::unary(UnaryOp::Neg, inner, ty),
                _ => Expr::binary(BinaryOp::Add, inner, z, ty),
            };
            let pick = |t: IntType, r: u64| match r % 6 {
                0 => t.min(),
                1 => t.max(),
                2 => [0, 1, -1, 2, 31, 32, 63][(r / 6 % 7) as usize],
                3 => t.max() / 2 + (r / 6 % 3) as i128,
                4 => t.min() / 2 - (r / 6 % 3) as i128,
                _ => (r / 6) as i128 - 1_000,
            };
            let values = [
                pick(ty, next(1 << 40)),
                pick(amount_ty, next(1 << 40)),
                pick(ty, next(1 << 40)),
            ];
            let env = |v: VarId| Some(values[v.index()]);
            let is_defined = eval(&expr, &env, Undefined).is_ok();
            let conditions = defined_conditions(&expr, Undefined);
            let all_hold = conditions
                .iter()
                .all(|c| matches!(eval(c, &env, Wrap), Ok(Some(v)) if v != 0));
            if is_defined {
                defined += 1;
                assert!(
                    all_hold,
                    "{expr} at {values:?}: defined, but not all of {conditions:?} hold"
                );
            } else {
                undefined += 1;
                assert!(
                    !all_hold || ty.bits == 64,
                    "{expr} at {values:?}: undefined, but all of {conditions:?} hold"
                );
            }
        }
        assert!(
            defined > 5_000 && undefined > 2_000,
            "{defined} defined, {undefined} undefined"
        );
        // Wrap-around asks only for what stays undefined.
        let e = Expr::binary(
            BinaryOp::Add,
            Expr::var(VarId(0), IntType::INT),
            Expr::int(1),
            IntType::INT,
        );
        assert!(defined_conditions(&e, Wrap).is_empty());
        assert_eq!(defined_conditions(&e, Undefined).len(), 2);
    }

    #[test]
    fn modes_parse_and_print() {
        for mode in [Undefined, Wrap] {
            assert_eq!(mode.to_string().parse::<SignedOverflow>(), Ok(mode));
        }
        assert!("trap".parse::<SignedOverflow>().is_err());
        assert_eq!(SignedOverflow::default(), Undefined);
    }
}
