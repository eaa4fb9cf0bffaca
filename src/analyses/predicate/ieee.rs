//! IEEE-754 terms for path formulas: `float`, `double` and `long double` values are bit patterns
//! in the CFA (see [`crate::cfa::float`]), and their operations are encoded with Z3's
//! floating-point theory exactly as [`crate::cfa::float`] and the interpreter compute them with
//! SSE and x87: round-to-nearest-even arithmetic, IEEE comparisons (false with NaN, except
//! `!=`), integer ↔ floating conversions rounding to nearest, and C's truncating floating →
//! integer conversion, undefined for NaN and out-of-range values.
//!
//! `long double` is Z3's sort of 15 exponent bits and 64 significand bits: x87's extended
//! format at 64-bit precision has exactly its values (the same exponent range, subnormals
//! included) and its round-to-nearest-even results. Only the encoding differs: x87 stores the
//! integer bit, which is 1 exactly when the exponent field is not 0 in every canonical pattern
//! (the only ones the interpreter holds, [`crate::cfa::float::canonical_x87`]); it is dropped on
//! the way to Z3's 79-bit IEEE form and put back from the exponent on the way out. A variable's
//! bit-vector may thus hold a non-canonical pattern (a nondet or uninitialised one): every
//! operation reads it as the canonical pattern with its exponent and fraction, as the
//! interpreter normalises it, and model values are normalised before replay.
//!
//! Bit patterns become floating-point terms with Z3's `to_fp` of a bit-vector (every NaN pattern
//! is NaN) and go back with `to_ieee_bv`, except for NaN: which NaN pattern the hardware produces
//! (a propagated payload or the default NaN) is not modelled, so a NaN result is any quiet NaN
//! pattern (a fresh sign and payload) — more executions than there are, never fewer.
//!
//! The `z3` crate 0.22 has no bindings for `to_fp` from a bit-vector or from an integer; the
//! three conversions below call `z3-sys` (the crate's own bindings) directly.

use super::formula::fresh_name;
use crate::cfa::expr::BinaryOp;
use crate::cfa::types::IntType;
use z3::ast::{Ast, Bool, Float, RoundingMode, BV};
use z3::Sort;

/// The floating-point sort of a float type (`float`: binary32, `double`: binary64, `long
/// double`: 15 exponent and 64 significand bits).
pub fn sort(ty: IntType) -> Sort {
    match ty.bits {
        32 => Sort::float32(),
        64 => Sort::double(),
        _ => Sort::float(X87_EXPONENT, X87_FRACTION + 1),
    }
}

/// Exponent bits of x87's extended format.
const X87_EXPONENT: u32 = 15;
/// Fraction bits of x87's extended format (below its explicit integer bit, bit 63).
const X87_FRACTION: u32 = 63;

/// The bit pattern in IEEE's interchange layout that Z3 converts: an x87 pattern without its
/// integer bit (79 bits), every other pattern as it is.
fn ieee_layout(bits: &BV, ty: IntType) -> BV {
    if !ty.is_long_double() {
        return bits.clone();
    }
    bits.extract(79, 64).concat(bits.extract(X87_FRACTION - 1, 0))
}

/// The x87 pattern of a 79-bit IEEE-layout pattern: the integer bit inserted, 1 unless the
/// exponent field is 0 (canonical, see the module doc).
fn x87_layout(ieee: &BV) -> BV {
    let exponent = ieee.extract(77, X87_FRACTION);
    let integer_bit = exponent
        .eq(BV::from_u64(0, X87_EXPONENT))
        .ite(&BV::from_u64(0, 1), &BV::from_u64(1, 1));
    ieee.extract(78, X87_FRACTION)
        .concat(&integer_bit)
        .concat(ieee.extract(X87_FRACTION - 1, 0))
}

/// Wraps the result of a `z3-sys` constructor. Z3 returns null only for ill-sorted arguments,
/// which the callers exclude by construction (sizes come from the same [`IntType`]).
fn wrap_float(ctx: &z3::Context, raw: Option<z3_sys::Z3_ast>) -> Float {
    let raw = raw.expect("Z3 floating-point conversion of well-sorted arguments");
    // SAFETY: `raw` is a valid AST of the context `ctx` just returned by Z3; `wrap` takes a
    // reference to it.
    unsafe { Float::wrap(ctx, raw) }
}

/// The value the bit pattern `bits` (of width `ty.bits`) denotes in float type `ty`.
pub fn from_bits(bits: &BV, ty: IntType) -> Float {
    let ctx = bits.get_ctx();
    let s = sort(ty);
    // SAFETY: both arguments belong to the thread-local context; the sort's width equals the
    // bit-vector's (`ty.bits`, 79 for `long double`'s IEEE layout).
    let bits = ieee_layout(bits, ty);
    let raw = unsafe { z3_sys::Z3_mk_fpa_to_fp_bv(ctx.get_z3_context(), bits.get_z3_ast(), s.get_z3_sort()) };
    wrap_float(ctx, raw)
}

/// The integer `value` (a bit-vector read as signed or unsigned) rounded to nearest in `ty`.
pub fn from_integer(value: &BV, signed: bool, ty: IntType) -> Float {
    let ctx = value.get_ctx();
    let s = sort(ty);
    let rm = RoundingMode::round_nearest_ties_to_even();
    // SAFETY: as in `from_bits`; the rounding mode is a term of the same context.
    let raw = unsafe {
        if signed {
            z3_sys::Z3_mk_fpa_to_fp_signed(
                ctx.get_z3_context(),
                rm.get_z3_ast(),
                value.get_z3_ast(),
                s.get_z3_sort(),
            )
        } else {
            z3_sys::Z3_mk_fpa_to_fp_unsigned(
                ctx.get_z3_context(),
                rm.get_z3_ast(),
                value.get_z3_ast(),
                s.get_z3_sort(),
            )
        }
    };
    wrap_float(ctx, raw)
}

/// `x` (of float type `from`) converted to float type `to`, rounding to nearest.
pub fn to_float_type(x: &Float, from: IntType, to: IntType) -> Float {
    if from.bits == to.bits {
        return x.clone();
    }
    let ctx = x.get_ctx();
    let s = sort(to);
    let rm = RoundingMode::round_nearest_ties_to_even();
    // SAFETY: as in `from_integer`.
    let raw = unsafe {
        z3_sys::Z3_mk_fpa_to_fp_float(
            ctx.get_z3_context(),
            rm.get_z3_ast(),
            x.get_z3_ast(),
            s.get_z3_sort(),
        )
    };
    wrap_float(ctx, raw)
}

/// The bit pattern of `x` in float type `ty`: exact for every value but NaN, any quiet NaN
/// pattern for NaN (see the module doc).
pub fn to_bits(x: &Float, ty: IntType) -> BV {
    let fraction = match ty.bits {
        32 => 23,
        64 => 52,
        _ => X87_FRACTION,
    };
    let exponent = u32::from(ty.bits) - 1 - fraction - u32::from(ty.is_long_double());
    let sign = BV::new_const(fresh_name("nan_sign"), 1);
    let payload = BV::new_const(fresh_name("nan_payload"), fraction - 1);
    let quiet_nan = sign
        .concat(BV::from_i64(-1, exponent))
        .concat(BV::from_u64(1, 1))
        .concat(&payload);
    let ieee = x.is_nan().ite(&quiet_nan, &x.to_ieee_bv());
    if ty.is_long_double() {
        x87_layout(&ieee)
    } else {
        ieee
    }
}

/// The bit pattern of `-x` for the bit pattern `bits` of float type `ty`: the sign bit flipped
/// (SSE's `xorps`, also for NaN).
pub fn negate_bits(bits: &BV, ty: IntType) -> BV {
    let sign = BV::from_u64(1, 1).concat(BV::from_u64(0, u32::from(ty.bits) - 1));
    bits.bvxor(&sign)
}

/// `x op y` for `+`, `-`, `*`, `/`, rounding to nearest-even; `None` for other operators.
pub fn arithmetic(op: BinaryOp, x: &Float, y: &Float) -> Option<Float> {
    let rm = RoundingMode::round_nearest_ties_to_even();
    Some(match op {
        BinaryOp::Add => x.add_with_rounding_mode(y, &rm),
        BinaryOp::Sub => x.sub_with_rounding_mode(y, &rm),
        BinaryOp::Mul => x.mul_with_rounding_mode(y, &rm),
        BinaryOp::Div => x.div_with_rounding_mode(y, &rm),
        _ => return None,
    })
}

/// The comparison `x op y` as C evaluates it on IEEE values (every comparison with NaN is
/// false except `!=`; `-0.0 == 0.0`); `None` for operators that are not comparisons.
pub fn compare(op: BinaryOp, x: &Float, y: &Float) -> Option<Bool> {
    Some(match op {
        BinaryOp::Eq => x.eq_fpa(y),
        BinaryOp::Ne => x.eq_fpa(y).not(),
        BinaryOp::Lt => x.lt(y),
        BinaryOp::Le => x.le(y),
        BinaryOp::Gt => x.gt(y),
        BinaryOp::Ge => x.ge(y),
        _ => return None,
    })
}

/// A floating-point constant of float type `ty` holding `v` (exact for 0 and the powers of two
/// `±2^k`, `k <= 64`, in every format).
fn constant(v: f64, ty: IntType) -> Float {
    match ty.bits {
        32 => Float::from_f32(v as f32),
        64 => Float::from_f64(v),
        _ => to_float_type(&Float::from_f64(v), IntType::DOUBLE, ty),
    }
}

/// `x` (of float type `from`) converted to the integer type `to` as C does: `_Bool` is `x != 0`
/// (NaN is true); otherwise the value truncated toward zero, with the condition under which the
/// conversion is undefined (NaN, infinite, or a truncated value `to` cannot hold).
pub fn to_integer(x: &Float, from: IntType, to: IntType) -> (BV, Bool) {
    let bits = u32::from(to.bits);
    if to.is_bool() {
        let nonzero = x.is_zero().not();
        return (
            nonzero.ite(&BV::from_u64(1, 1), &BV::from_u64(0, 1)),
            Bool::from_bool(false),
        );
    }
    let truncated = x.round_to_integral_with_rounding_mode(&RoundingMode::round_towards_zero());
    // The range as powers of two, exact in both formats: [-2^(n-1), 2^(n-1)) or [0, 2^n).
    let (low, high) = if to.signed {
        let half = 2f64.powi(i32::from(to.bits) - 1);
        (constant(-half, from), constant(half, from))
    } else {
        (constant(0.0, from), constant(2f64.powi(i32::from(to.bits)), from))
    };
    // NaN fails both comparisons, infinities one of them.
    let defined = Bool::and(&[truncated.ge(&low), truncated.lt(&high)]);
    let rz = RoundingMode::round_towards_zero();
    let value = if to.signed {
        x.to_sbv_with_rounding_mode(&rz, bits)
    } else {
        x.to_ubv_with_rounding_mode(&rz, bits)
    };
    (value, defined.not())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyses::predicate::formula::{bv_const, bv_value};
    use crate::cfa::float;
    use crate::cfa::types::DataModel;

    const D: IntType = IntType::DOUBLE;
    const F: IntType = IntType::FLOAT;

    /// `long double` (the same format in both data models).
    fn long_double() -> IntType {
        DataModel::LP64.long_double()
    }

    fn float_types() -> [IntType; 3] {
        [F, D, long_double()]
    }

    /// `x` rounded to the float type `ty`.
    fn bits_of(x: f64, ty: IntType) -> i128 {
        float::convert(i128::from(x.to_bits()), D, ty).expect("float to float")
    }

    fn samples(ty: IntType) -> Vec<i128> {
        let mut v: Vec<i128> = [
            0.0,
            -0.0,
            1.0,
            -1.5,
            0.1,
            2.5,
            3.5,
            1e10,
            -2147483648.0,
            2147483647.9,
            4294967295.5,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1e-310,
            16777217.0,
            1e300,
        ]
        .iter()
        .map(|x| bits_of(*x, ty))
        .collect();
        v.push(1); // the smallest subnormal
        if ty.is_long_double() {
            // Values only the extended format has: 1/3 and 2^64 - 1 at 64 bits, 2^63 + 0.5,
            // the largest finite value and the smallest normal one.
            let third = float::binary(BinaryOp::Div, bits_of(1.0, ty), bits_of(3.0, ty), ty);
            v.push(third.expect("division"));
            v.push(float::convert(i128::from(u64::MAX), IntType::ULLONG, ty).expect("exact"));
            v.push(float::parse_literal("0x1.0000000000000001p63", ty).expect("literal"));
            v.push(0x7ffe_ffff_ffff_ffff_ffff);
            v.push(0x0001_8000_0000_0000_0000);
            v.push(0x0000_7fff_ffff_ffff_ffff);
        }
        v
    }

    /// The constant value of `term` (all its free constants are NaN sign/payload choices).
    fn eval_bits(term: &BV, ty: IntType) -> Option<i128> {
        bv_value(&term.simplify(), ty)
    }

    fn term(bits: i128, ty: IntType) -> Float {
        from_bits(&bv_const(bits, u32::from(ty.bits)), ty)
    }

    #[test]
    fn arithmetic_and_comparisons_agree_with_the_interpreter() {
        use BinaryOp::*;
        for ty in float_types() {
            for a in samples(ty) {
                for b in samples(ty) {
                    let (x, y) = (term(a, ty), term(b, ty));
                    for op in [Add, Sub, Mul, Div] {
                        let expected = float::binary(op, a, b, ty).expect("arithmetic");
                        let r = arithmetic(op, &x, &y).expect("arithmetic");
                        let is_nan = r.is_nan().simplify().as_bool();
                        if float::Float::from_bits(expected, ty).is_nan() {
                            assert_eq!(is_nan, Some(true), "{a:#x} {op:?} {b:#x}");
                        } else {
                            assert_eq!(
                                eval_bits(&to_bits(&r, ty), ty),
                                Some(expected),
                                "{a:#x} {op:?} {b:#x} ({ty})"
                            );
                        }
                    }
                    for op in [Eq, Ne, Lt, Le, Gt, Ge] {
                        let expected = float::binary(op, a, b, ty).expect("comparison");
                        let c = compare(op, &x, &y).expect("comparison").simplify().as_bool();
                        assert_eq!(c, Some(expected == 1), "{a:#x} {op:?} {b:#x}");
                    }
                }
            }
        }
    }

    #[test]
    fn conversions_agree_with_the_interpreter() {
        let ints = [
            IntType::BOOL,
            IntType::CHAR,
            IntType::UINT,
            IntType::INT,
            IntType::LLONG,
            IntType::ULLONG,
        ];
        for ty in float_types() {
            for a in samples(ty) {
                let x = term(a, ty);
                for to in ints {
                    let (v, ub) = to_integer(&x, ty, to);
                    match float::convert(a, ty, to) {
                        Some(expected) => {
                            assert_eq!(ub.simplify().as_bool(), Some(false), "{a:#x} to {to:?}");
                            assert_eq!(eval_bits(&v, to), Some(expected), "{a:#x} to {to:?}");
                        }
                        None => assert_eq!(ub.simplify().as_bool(), Some(true), "{a:#x} to {to:?}"),
                    }
                }
                for other in float_types() {
                    let expected = float::convert(a, ty, other).expect("float to float");
                    let c = to_float_type(&x, ty, other);
                    if float::Float::from_bits(expected, other).is_nan() {
                        assert_eq!(c.is_nan().simplify().as_bool(), Some(true));
                    } else {
                        assert_eq!(
                            eval_bits(&to_bits(&c, other), other),
                            Some(expected),
                            "{a:#x} from {ty} to {other}"
                        );
                    }
                }
            }
            for from in ints {
                for v in [
                    0i128,
                    1,
                    -1,
                    127,
                    16777217,
                    i128::from(u64::MAX),
                    i128::from(i64::MIN),
                ] {
                    let v = from.normalize(v);
                    let expected = float::convert(v, from, ty).expect("int to float");
                    let f = from_integer(&bv_const(v, u32::from(from.bits)), from.signed, ty);
                    assert_eq!(
                        eval_bits(&to_bits(&f, ty), ty),
                        Some(expected),
                        "{v} from {from:?}"
                    );
                }
            }
            let minus_two = bv_const(bits_of(-2.0, ty), u32::from(ty.bits));
            assert_eq!(
                eval_bits(&negate_bits(&minus_two, ty), ty),
                Some(bits_of(2.0, ty))
            );
        }
    }

    /// True if `bits` is a canonical `long double` pattern.
    fn is_canonical(bits: &BV) -> Bool {
        x87_layout(&ieee_layout(bits, long_double())).eq(bits)
    }

    /// A `long double` pattern is canonical exactly when the interpreter's normalisation keeps
    /// it, a NaN result is a canonical quiet NaN, and every pattern means what its canonical
    /// pattern means.
    #[test]
    fn x87_patterns_are_canonical() {
        let ty = long_double();
        for bits in [
            0i128,
            1,
            0x3fff_8000_0000_0000_0000,
            0x3fff_0000_0000_0000_0000,
            0x0000_8000_0000_0000_0001,
            0x7fff_0000_0000_0000_0000,
            0x7fff_c000_0000_0000_0000,
            0xffff_4000_0000_0000_0001,
        ] {
            let canonical = is_canonical(&bv_const(bits, 80)).simplify().as_bool();
            assert_eq!(canonical, Some(ty.normalize(bits) == bits), "{bits:#x}");
            let same = term(bits, ty)
                .eq(term(ty.normalize(bits), ty))
                .simplify()
                .as_bool();
            assert_eq!(same, Some(true), "{bits:#x}");
        }
        let nan = arithmetic(BinaryOp::Div, &term(0, ty), &term(0, ty)).expect("division");
        let solver = z3::Solver::new();
        solver.assert(is_canonical(&to_bits(&nan, ty)).not());
        assert_eq!(solver.check(), z3::SatResult::Unsat);
    }
}
