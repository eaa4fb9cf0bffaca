//! The one implementation of C integer semantics in Baton.
//!
//! The concrete interpreter evaluates with every value known; the explicit-value analysis
//! evaluates with some values unknown (`None`). Both call [`eval`], so the two can never
//! disagree on what an operator means. Signed overflow wraps (gcc's `-fwrapv` behaviour, which
//! is also what sv-benchmarks verifiers assume for reachability); the operations C leaves
//! undefined and x86 traps on are reported as [`UndefinedBehavior`].

use super::expr::{BinaryOp, Expr, ExprKind, UnaryOp};
use super::types::IntType;
use super::VarId;
use thiserror::Error;

/// An operation whose result C does not define and Baton will not guess.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum UndefinedBehavior {
    #[error("division by zero")]
    DivisionByZero,
    #[error("signed division overflow (MIN / -1)")]
    DivisionOverflow,
    #[error("shift by a negative amount or by at least the width of the type")]
    ShiftOutOfRange,
}

/// Applies a unary operator to a normalised operand of type `operand`, giving a value of `result`.
pub fn unary(op: UnaryOp, value: i128, result: IntType) -> i128 {
    match op {
        UnaryOp::Neg => result.normalize(-value),
        UnaryOp::BitNot => result.normalize(!value),
        UnaryOp::LogNot => i128::from(value == 0),
    }
}

/// Applies a binary operator. `a` and `b` are normalised values of `operand` (for shifts: `a` of
/// the result type, `b` of its own type); the result is normalised to `result`.
pub fn binary(
    op: BinaryOp,
    a: i128,
    b: i128,
    operand: IntType,
    result: IntType,
) -> Result<i128, UndefinedBehavior> {
    let norm = |v: i128| result.normalize(v);
    Ok(match op {
        BinaryOp::Add => norm(a + b),
        BinaryOp::Sub => norm(a - b),
        BinaryOp::Mul => norm(a.wrapping_mul(b)),
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
                norm(a << b)
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

/// Evaluates `expr` with variable values from `env` (`None` = unknown).
///
/// Returns `Ok(None)` when the value depends on an unknown variable, and an error when the
/// evaluation certainly hits undefined behaviour. With unknown operands, undefined behaviour
/// that *might* happen is not reported; callers that need to know (the explicit-value analysis
/// deciding whether it can answer `true`) check [`may_be_undefined`].
pub fn eval(expr: &Expr, env: &impl Fn(VarId) -> Option<i128>) -> Result<Option<i128>, UndefinedBehavior> {
    Ok(match &expr.kind {
        ExprKind::Const(v) => Some(*v),
        ExprKind::Var(v) => env(*v).map(|x| expr.ty.normalize(x)),
        ExprKind::Cast(e) => eval(e, env)?.map(|x| expr.ty.normalize(x)),
        ExprKind::Unary(op, e) => eval(e, env)?.map(|x| unary(*op, x, expr.ty)),
        ExprKind::Binary(op, a, b) => {
            let va = eval(a, env)?;
            let vb = eval(b, env)?;
            match (va, vb) {
                (Some(x), Some(y)) => Some(binary(*op, x, y, a.ty, expr.ty)?),
                // Absorbing elements keep a value known although one side is not.
                (Some(0), None) | (None, Some(0)) if matches!(op, BinaryOp::Mul | BinaryOp::BitAnd) => {
                    Some(0)
                }
                _ => None,
            }
        }
    })
}

/// Evaluates an expression whose variables are all known.
pub fn eval_concrete(expr: &Expr, env: &impl Fn(VarId) -> i128) -> Result<i128, UndefinedBehavior> {
    // Every variable is known, so `eval` always yields a value.
    Ok(eval(expr, &|v| Some(env(v)))?.unwrap_or(0))
}

/// True if evaluating `expr` could hit undefined behaviour for some values of the unknown
/// variables (a division or shift whose right operand is not a known safe constant).
pub fn may_be_undefined(expr: &Expr, env: &impl Fn(VarId) -> Option<i128>) -> bool {
    match &expr.kind {
        ExprKind::Const(_) | ExprKind::Var(_) => false,
        ExprKind::Cast(e) | ExprKind::Unary(_, e) => may_be_undefined(e, env),
        ExprKind::Binary(op, a, b) => {
            if may_be_undefined(a, env) || may_be_undefined(b, env) {
                return true;
            }
            match op {
                BinaryOp::Div | BinaryOp::Rem | BinaryOp::Shl | BinaryOp::Shr => {
                    let va = eval(a, env).ok().flatten();
                    let vb = eval(b, env).ok().flatten();
                    match (va, vb) {
                        (Some(x), Some(y)) => binary(*op, x, y, a.ty, expr.ty).is_err(),
                        _ => true,
                    }
                }
                _ => false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin(op: BinaryOp, a: i128, b: i128, ty: IntType) -> Result<i128, UndefinedBehavior> {
        binary(op, a, b, ty, if op.is_comparison() { IntType::INT } else { ty })
    }

    #[test]
    fn division_truncates_toward_zero() {
        assert_eq!(bin(BinaryOp::Div, -7, 2, IntType::INT), Ok(-3));
        assert_eq!(bin(BinaryOp::Rem, -7, 2, IntType::INT), Ok(-1));
        assert_eq!(bin(BinaryOp::Rem, 7, -2, IntType::INT), Ok(1));
        assert_eq!(
            bin(BinaryOp::Div, 1, 0, IntType::INT),
            Err(UndefinedBehavior::DivisionByZero)
        );
        assert_eq!(
            bin(BinaryOp::Div, i128::from(i32::MIN), -1, IntType::INT),
            Err(UndefinedBehavior::DivisionOverflow)
        );
    }

    #[test]
    fn unsigned_wraps_and_signed_wraps() {
        assert_eq!(bin(BinaryOp::Sub, 0, 1, IntType::UINT), Ok(4294967295));
        assert_eq!(
            bin(BinaryOp::Add, i128::from(i32::MAX), 1, IntType::INT),
            Ok(i128::from(i32::MIN))
        );
        assert_eq!(bin(BinaryOp::Mul, 65536, 65536, IntType::UINT), Ok(0));
    }

    #[test]
    fn shifts() {
        assert_eq!(bin(BinaryOp::Shr, -8, 1, IntType::INT), Ok(-4));
        assert_eq!(bin(BinaryOp::Shr, 4294967288, 1, IntType::UINT), Ok(2147483644));
        assert_eq!(bin(BinaryOp::Shl, 1, 31, IntType::INT), Ok(i128::from(i32::MIN)));
        assert_eq!(
            bin(BinaryOp::Shl, 1, 32, IntType::INT),
            Err(UndefinedBehavior::ShiftOutOfRange)
        );
    }

    #[test]
    fn unknowns_propagate_except_absorbing() {
        let x = Expr::var(VarId(0), IntType::INT);
        let e = Expr::binary(BinaryOp::Mul, x.clone(), Expr::int(0), IntType::INT);
        assert_eq!(eval(&e, &|_| None), Ok(Some(0)));
        let e = Expr::binary(BinaryOp::Add, x, Expr::int(1), IntType::INT);
        assert_eq!(eval(&e, &|_| None), Ok(None));
        assert_eq!(eval(&e, &|_| Some(41)), Ok(Some(42)));
    }
}
