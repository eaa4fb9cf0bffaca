//! Floating-point values as the CFA keeps them: `float`, `double` and `long double` values are
//! their bit patterns (see [`types`](super::types)). This module is the one place that turns bit
//! patterns into numbers and back: arithmetic as gcc computes it on x86 Linux, conversions with
//! C's rules, and C's floating-point literals (parsed exactly, printed exactly as hexadecimal
//! literals).
//!
//! - `float` and `double` are IEEE-754 binary32 and binary64 computed with SSE
//!   (`FLT_EVAL_METHOD == 0`, round-to-nearest-even; Rust's `f32`/`f64` operations are the same
//!   IEEE operations).
//! - `long double` is x87's 80-bit extended format: sign, 15-bit exponent (bias 16383) and a
//!   64-bit significand whose integer bit is explicit. Linux runs the x87 unit at 64-bit
//!   precision (its default precision control), so each operation is rounded to nearest-even
//!   at 64 bits — exactly IEEE arithmetic in a format of precision 64 with binary64's layout
//!   of exponents (gradual underflow included). It is computed in software by `rustc_apfloat`,
//!   a port of LLVM's APFloat, whose `X87DoubleExtended` is this format (tests/
//!   differential_gcc.rs compares it with gcc). Bit patterns the x87 unit does not produce
//!   (an integer bit that disagrees with the exponent: unnormals, pseudo-denormals,
//!   pseudo-infinities and pseudo-NaNs) are never values: [`canonical_x87`] maps them to the
//!   canonical pattern of the same significand and exponent, which is how normalising a bit
//!   pattern to `long double` ([`IntType::normalize`]) reads them.
//!
//! Which NaN an operation with a NaN result produces (sign, payload) is not C semantics and
//! differs between gcc's folding and the hardware; only NaN-ness is meant to agree.

use super::expr::BinaryOp;
use super::types::IntType;
use rustc_apfloat::ieee::{Double, Single, X87DoubleExtended as X87};
use rustc_apfloat::{Float as _, FloatConvert as _, Round, Status};
use std::cmp::Ordering;

/// Rounding of every operation and conversion except floating → integer (C's default).
const NEAREST: Round = Round::NearestTiesToEven;

/// A floating-point value of one of the three modelled formats.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Float {
    F32(f32),
    F64(f64),
    /// x87 80-bit extended precision (`long double`).
    X87(X87),
}

impl Float {
    /// The value a bit pattern of type `ty` (a float type) holds.
    pub fn from_bits(bits: i128, ty: IntType) -> Float {
        match ty.bits {
            32 => Float::F32(f32::from_bits(bits as u32)),
            64 => Float::F64(f64::from_bits(bits as u64)),
            _ => Float::X87(X87::from_bits(canonical_x87(bits) as u128)),
        }
    }

    /// The bit pattern, zero-extended (the normalised value of the float type).
    pub fn to_bits(self) -> i128 {
        match self {
            Float::F32(x) => i128::from(x.to_bits()),
            Float::F64(x) => i128::from(x.to_bits()),
            // 80 bits: always fits.
            Float::X87(x) => x.to_bits() as i128,
        }
    }

    /// The value as `f64`: exact for `float` and `double`, a `long double` rounded to nearest
    /// (for display).
    pub fn to_f64(self) -> f64 {
        match self {
            Float::F32(x) => f64::from(x),
            Float::F64(x) => x,
            Float::X87(x) => {
                let double: Double = x.convert_r(NEAREST, &mut false).value;
                f64::from_bits(double.to_bits() as u64)
            }
        }
    }

    /// True for +0.0 and -0.0: what `!x`, `x != 0` and conditions test.
    pub fn is_zero(self) -> bool {
        match self {
            Float::X87(x) => x.is_zero(),
            other => other.to_f64() == 0.0,
        }
    }

    /// True for every NaN.
    pub fn is_nan(self) -> bool {
        match self {
            Float::X87(x) => x.is_nan(),
            other => other.to_f64().is_nan(),
        }
    }

    /// IEEE's ordering of two values of one format (`None`: unordered, a NaN is involved;
    /// -0.0 equals +0.0).
    fn compare(self, other: Float) -> Option<Ordering> {
        match (self, other) {
            (Float::X87(x), Float::X87(y)) => x.partial_cmp(&y),
            (x, y) => x.to_f64().partial_cmp(&y.to_f64()),
        }
    }

    /// `self op other` for `+ - * /` of two values of one format, rounded to nearest-even.
    fn arithmetic(self, op: BinaryOp, other: Float) -> Option<Float> {
        Some(match (self, other) {
            (Float::F32(x), Float::F32(y)) => Float::F32(match op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                BinaryOp::Div => x / y,
                _ => return None,
            }),
            (Float::F64(x), Float::F64(y)) => Float::F64(match op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                BinaryOp::Div => x / y,
                _ => return None,
            }),
            (Float::X87(x), Float::X87(y)) => Float::X87(
                match op {
                    BinaryOp::Add => x.add_r(y, NEAREST),
                    BinaryOp::Sub => x.sub_r(y, NEAREST),
                    BinaryOp::Mul => x.mul_r(y, NEAREST),
                    BinaryOp::Div => x.div_r(y, NEAREST),
                    _ => return None,
                }
                .value,
            ),
            _ => return None,
        })
    }

    /// The value in the format of float type `to`, rounded to nearest (exact when widening).
    fn to_format(self, to: IntType) -> Float {
        let (x87, bits) = (to.bits == 80, to.bits);
        match self {
            Float::F32(x) if bits == 64 => Float::F64(f64::from(x)),
            Float::F64(x) if bits == 32 => Float::F32(x as f32),
            Float::F32(x) if x87 => Float::X87(
                Single::from_bits(u128::from(x.to_bits()))
                    .convert(&mut false)
                    .value,
            ),
            Float::F64(x) if x87 => Float::X87(
                Double::from_bits(u128::from(x.to_bits()))
                    .convert(&mut false)
                    .value,
            ),
            Float::X87(x) if bits == 32 => {
                let single: Single = x.convert_r(NEAREST, &mut false).value;
                Float::F32(f32::from_bits(single.to_bits() as u32))
            }
            Float::X87(x) if bits == 64 => {
                let double: Double = x.convert_r(NEAREST, &mut false).value;
                Float::F64(f64::from_bits(double.to_bits() as u64))
            }
            same => same,
        }
    }

    /// The integer an integer value `v` of at most 64 bits rounds to in the format of `to`.
    fn from_integer(v: i128, to: IntType) -> Float {
        match to.bits {
            32 => Float::F32(v as f32),
            64 => Float::F64(v as f64),
            // Exact: 64 bits of significand.
            _ => Float::X87(X87::from_i128_r(v, NEAREST).value),
        }
    }

    /// The value truncated toward zero, if it is finite and the result fits in an `i128`.
    fn truncated(self) -> Option<i128> {
        match self {
            Float::X87(x) => {
                let r = x.to_i128_r(128, Round::TowardZero, &mut false);
                (!x.is_nan() && !r.status.contains(Status::INVALID_OP)).then_some(r.value)
            }
            other => {
                let t = other.to_f64().trunc();
                // Within ±2^64 f64 -> i128 is exact; NaN and larger magnitudes are rejected.
                (!t.is_nan() && t.abs() <= 2f64.powi(64)).then_some(t as i128)
            }
        }
    }
}

/// The canonical x87 pattern of an 80-bit pattern: its integer bit (bit 63) set exactly when
/// the exponent is not zero, as the x87 unit writes every value (see the module doc).
pub fn canonical_x87(bits: i128) -> i128 {
    const INTEGER_BIT: i128 = 1 << 63;
    let exponent = (bits >> 64) & 0x7fff;
    if exponent == 0 {
        bits & !INTEGER_BIT
    } else {
        bits | INTEGER_BIT
    }
}

/// The bit pattern of `-x`: the sign bit flipped (SSE's `xorps`, x87's `fchs`; also for NaN).
pub fn negate(bits: i128, ty: IntType) -> i128 {
    bits ^ (1i128 << (ty.bits - 1))
}

/// `a op b` for operands of float type `ty`: arithmetic gives a bit pattern of `ty`,
/// comparisons 0 or 1 (false for every comparison with NaN except `!=`). `None` for the
/// operators C does not define on floating-point operands.
pub fn binary(op: BinaryOp, a: i128, b: i128, ty: IntType) -> Option<i128> {
    let (x, y) = (Float::from_bits(a, ty), Float::from_bits(b, ty));
    let ordering = x.compare(y);
    let compare = |holds: fn(Ordering) -> bool| Some(i128::from(ordering.is_some_and(holds)));
    match op {
        BinaryOp::Eq => compare(|o| o == Ordering::Equal),
        BinaryOp::Ne => Some(i128::from(ordering.is_none_or(|o| o != Ordering::Equal))),
        BinaryOp::Lt => compare(|o| o == Ordering::Less),
        BinaryOp::Le => compare(|o| o != Ordering::Greater),
        BinaryOp::Gt => compare(|o| o == Ordering::Greater),
        BinaryOp::Ge => compare(|o| o != Ordering::Less),
        _ => x.arithmetic(op, y).map(Float::to_bits),
    }
}

/// Converts a normalised value of `from` to `to` as C does (C11 6.3.1.4, 6.3.1.5): integer to
/// floating rounds to nearest; floating to integer truncates toward zero and is `None`
/// (undefined) when the truncated value does not fit `to` or is NaN; floating to `_Bool` is
/// `!= 0`; floating to floating is exact when widening and rounds to nearest when narrowing.
/// Integer to integer is not handled here.
pub fn convert(value: i128, from: IntType, to: IntType) -> Option<i128> {
    match (from.float, to.float) {
        (false, true) => Some(Float::from_integer(value, to).to_bits()),
        (true, true) => Some(Float::from_bits(value, from).to_format(to).to_bits()),
        (true, false) => {
            let x = Float::from_bits(value, from);
            if to.is_bool() {
                return Some(i128::from(!x.is_zero()));
            }
            let v = x.truncated()?;
            to.contains(v).then_some(v)
        }
        (false, false) => None,
    }
}

/// The bit pattern of the C floating-point literal `text` (decimal or hexadecimal, without
/// suffix) in type `ty`, rounded to nearest as gcc does (directly to the type, no double
/// rounding). `None` if the text is not a literal.
pub fn parse_literal(text: &str, ty: IntType) -> Option<i128> {
    let lower = text.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        return parse_hex(hex, ty);
    }
    // Rust's parser rounds correctly to nearest-even; it accepts `1.`, `.5`, `1e5`.
    if lower.is_empty() || !lower.chars().all(|c| c.is_ascii_digit() || ".e+-".contains(c)) {
        return None;
    }
    Some(match ty.bits {
        32 => Float::F32(lower.parse().ok()?).to_bits(),
        64 => Float::F64(lower.parse().ok()?).to_bits(),
        _ => {
            // Rust rejects what APFloat would accept (`1e`, `+-1`, a lone `.`): the same
            // grammar for every type.
            lower.parse::<f64>().ok()?;
            X87::from_str_r(&lower, NEAREST).ok()?.value.to_bits() as i128
        }
    })
}

/// The bit layout of a float format.
struct Layout {
    /// Bits of the fraction (below the integer bit).
    fraction: u32,
    /// The exponent bias, which is also the largest exponent of a finite value.
    bias: i64,
    /// x87's extended format stores the integer bit (bit `fraction`).
    explicit_integer_bit: bool,
}

impl Layout {
    fn of(ty: IntType) -> Layout {
        let (fraction, bias, explicit_integer_bit) = match ty.bits {
            32 => (23, 127, false),
            64 => (52, 1023, false),
            _ => (63, 16383, true),
        };
        Layout {
            fraction,
            bias,
            explicit_integer_bit,
        }
    }

    /// The first bit of the exponent field.
    fn exponent_shift(&self) -> u32 {
        self.fraction + u32::from(self.explicit_integer_bit)
    }

    /// The pattern of +infinity.
    fn infinity(&self) -> i128 {
        let integer_bit = i128::from(self.explicit_integer_bit) << self.fraction;
        ((2 * self.bias + 1) as i128) << self.exponent_shift() | integer_bit
    }
}

/// A value of a binary IEEE-754 interchange format of `exponent_bits` and `fraction_bits` (sign
/// bit first, at most 127 bits in all) rounded to nearest in float type `ty`; a NaN becomes the
/// quiet NaN of its sign. What CBMC writes for a `long double`: 15 exponent bits and 80
/// (ILP32) or 112 (LP64) fraction bits, a wider format than x87's.
pub fn from_interchange(bits: u128, exponent_bits: u32, fraction_bits: u32, ty: IntType) -> i128 {
    let layout = Layout::of(ty);
    let sign = i128::from((bits >> (exponent_bits + fraction_bits)) & 1 == 1) << (ty.bits - 1);
    let all_ones = (1u128 << exponent_bits) - 1;
    let exponent = (bits >> fraction_bits) & all_ones;
    let fraction = bits & ((1u128 << fraction_bits) - 1);
    let bias = (1i64 << (exponent_bits - 1)) - 1;
    let magnitude = if exponent == all_ones {
        let quiet = 1i128 << (layout.fraction - 1);
        layout.infinity() | if fraction == 0 { 0 } else { quiet }
    } else if exponent == 0 {
        round_to_format(fraction, false, 1 - bias - i64::from(fraction_bits), &layout)
    } else {
        let mantissa = fraction | 1u128 << fraction_bits;
        round_to_format(
            mantissa,
            false,
            exponent as i64 - bias - i64::from(fraction_bits),
            &layout,
        )
    };
    sign | magnitude
}

/// A hexadecimal literal `h.hhhp±d` (after `0x`): the value `mantissa * 2^exponent`, rounded
/// once to the format's precision.
fn parse_hex(text: &str, ty: IntType) -> Option<i128> {
    let (digits, exponent) = text.split_once('p')?;
    let mut exponent: i64 = exponent.parse().ok()?;
    let (int_part, frac_part) = digits.split_once('.').unwrap_or((digits, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let mut mantissa: u128 = 0;
    let mut sticky = false;
    for (i, c) in int_part.chars().chain(frac_part.chars()).enumerate() {
        let d = u128::from(c.to_digit(16)?);
        if i >= int_part.len() {
            exponent = exponent.checked_sub(4)?;
        }
        if mantissa >> 120 != 0 {
            // Further digits only decide rounding: keep them as a sticky bit.
            sticky |= d != 0;
            exponent = exponent.checked_add(4)?;
        } else {
            mantissa = mantissa * 16 + d;
        }
    }
    Some(round_to_format(mantissa, sticky, exponent, &Layout::of(ty)))
}

/// `mantissa * 2^exponent` (plus a little more if `sticky`) rounded to nearest-even in the
/// format `layout`: overflow gives infinity, tiny values subnormals or zero.
fn round_to_format(mantissa: u128, sticky: bool, exponent: i64, layout: &Layout) -> i128 {
    let fraction_bits = i64::from(layout.fraction);
    let (min_exp, max_exp) = (1 - layout.bias, layout.bias);
    if mantissa == 0 {
        return 0;
    }
    // The value's binary exponent is that of its top bit; the last kept bit has weight
    // 2^(top - fraction_bits), or that of the smallest subnormal for tiny values.
    let len = 128 - i64::from(mantissa.leading_zeros());
    let top_exp = exponent + len - 1;
    let lsb_exp = (top_exp - fraction_bits).max(min_exp - fraction_bits);
    let drop = lsb_exp - exponent;
    let kept = if drop <= 0 {
        mantissa << (-drop) as u32
    } else if drop >= 128 {
        0
    } else {
        let drop = drop as u32;
        let rest = mantissa & ((1u128 << drop) - 1);
        let half = 1u128 << (drop - 1);
        let kept = mantissa >> drop;
        let round_up = rest > half || (rest == half && (sticky || kept & 1 == 1));
        kept + u128::from(round_up)
    };
    // The biased exponent follows from the kept bits: a carry out of rounding (or a
    // subnormal rounding up to the smallest normal) moves it up by itself.
    let kept = kept as i128;
    if kept >> fraction_bits == 0 {
        return kept; // subnormal or zero: biased exponent 0 (and integer bit 0)
    }
    let mut kept = kept;
    let mut lsb = lsb_exp;
    if kept >> (fraction_bits + 1) != 0 {
        kept >>= 1;
        lsb += 1;
    }
    let biased = lsb + fraction_bits + max_exp;
    if biased > 2 * max_exp {
        return layout.infinity();
    }
    let significand = if layout.explicit_integer_bit {
        kept
    } else {
        kept & ((1i128 << fraction_bits) - 1)
    };
    (i128::from(biased) << layout.exponent_shift()) | significand
}

/// Writes a C literal that denotes exactly this bit pattern of `ty`: a hexadecimal literal
/// (`0x1.8p+1`, suffix `f` for `float`, `L` for `long double`) for finite values,
/// `__builtin_inf()` or `__builtin_nan()` forms for the others (gcc's builtins, suffixed `f` or
/// `l` likewise; a NaN's payload is kept).
pub fn c_literal(bits: i128, ty: IntType) -> String {
    let layout = Layout::of(ty);
    let (suffix, builtin) = match ty.bits {
        32 => ("f", "f"),
        64 => ("", ""),
        _ => ("L", "l"),
    };
    let sign = if (bits >> (ty.bits - 1)) & 1 == 1 { "-" } else { "" };
    let fraction = bits & ((1i128 << layout.fraction) - 1);
    let biased = ((bits >> layout.exponent_shift()) & (2 * layout.bias as i128 + 1)) as i64;
    if biased == 2 * layout.bias + 1 {
        let quiet = 1i128 << (layout.fraction - 1);
        return if fraction == 0 {
            format!("({sign}__builtin_inf{builtin}())")
        } else if fraction & quiet != 0 {
            format!("({sign}__builtin_nan{builtin}(\"{:#x}\"))", fraction & !quiet)
        } else {
            format!("({sign}__builtin_nans{builtin}(\"{fraction:#x}\"))")
        };
    }
    if biased == 0 && fraction == 0 {
        return format!("({sign}0x0p+0{suffix})");
    }
    // Fraction digits: whole hex digits, the fraction's bits at the top (23 bits padded to 24,
    // 52 bits are 13 digits, 63 bits padded to 64).
    let digits = layout.fraction.div_ceil(4) as usize;
    let shifted = fraction << (4 * digits as u32 - layout.fraction);
    let (lead, exp) = if biased == 0 {
        (0, 1 - layout.bias)
    } else {
        (1, biased - layout.bias)
    };
    format!("({sign}0x{lead}.{shifted:0digits$x}p{exp:+}{suffix})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::types::DataModel;

    /// `long double` (its values are the same in both data models).
    fn ld() -> IntType {
        DataModel::ILP32.long_double()
    }

    fn f64_bits(x: f64) -> i128 {
        i128::from(x.to_bits())
    }

    fn f32_bits(x: f32) -> i128 {
        i128::from(x.to_bits())
    }

    #[test]
    fn literals_parse_as_c_does() {
        let d = IntType::DOUBLE;
        let f = IntType::FLOAT;
        assert_eq!(parse_literal("0.1", d), Some(f64_bits(0.1)));
        assert_eq!(parse_literal("0.1", f), Some(f32_bits(0.1f32)));
        assert_eq!(parse_literal("1e-10", d), Some(f64_bits(1e-10)));
        assert_eq!(parse_literal("20.", d), Some(f64_bits(20.0)));
        assert_eq!(parse_literal(".5", d), Some(f64_bits(0.5)));
        assert_eq!(parse_literal("0x1.8p1", d), Some(f64_bits(3.0)));
        assert_eq!(parse_literal("0x.8p0", f), Some(f32_bits(0.5)));
        assert_eq!(parse_literal("0X1P-1074", d), Some(1));
        assert_eq!(parse_literal("0x1p-1075", d), Some(0));
        assert_eq!(parse_literal("0x1.8p-1075", d), Some(1));
        assert_eq!(parse_literal("0x1p1024", d), Some(f64_bits(f64::INFINITY)));
        assert_eq!(parse_literal("0x1.fffffffffffff8p0", d), Some(f64_bits(2.0)));
        assert_eq!(
            parse_literal("0x1.fffffffffffff7p0", d),
            Some(f64_bits(2.0 - f64::EPSILON))
        );
        assert_eq!(parse_literal("0x1.000001p0", f), Some(f32_bits(1.0)));
        assert_eq!(
            parse_literal("0x1.000003p0", f),
            Some(f32_bits(1.0 + 2.0 * f32::EPSILON))
        );
        assert_eq!(parse_literal("0x1p-149", f), Some(1));
        assert_eq!(
            parse_literal("0x1.fffffep-127", f),
            Some(f32_bits(f32::MIN_POSITIVE))
        );
        assert_eq!(parse_literal("abc", d), None);
    }

    #[test]
    fn literals_print_exactly() {
        for x in [
            0.0,
            -0.0,
            1.0,
            0.1,
            -3.5,
            1e-310,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
        ] {
            let text = c_literal(f64_bits(x), IntType::DOUBLE);
            let inner = text
                .trim_start_matches("(-")
                .trim_start_matches('(')
                .trim_end_matches(')');
            let back = parse_literal(inner, IntType::DOUBLE).map(|b| {
                if text.starts_with("(-") {
                    negate(b, IntType::DOUBLE)
                } else {
                    b
                }
            });
            assert_eq!(back, Some(f64_bits(x)), "{x} printed as {text}");
        }
        for x in [0.1f32, 1.5, -1e-40, f32::MAX, 1e-45] {
            let text = c_literal(f32_bits(x), IntType::FLOAT);
            assert!(text.ends_with("f)"), "{text}");
            let inner = text.trim_start_matches("(-").trim_start_matches('(');
            let inner = inner.trim_end_matches(')').trim_end_matches('f');
            let back = parse_literal(inner, IntType::FLOAT).map(|b| {
                if text.starts_with("(-") {
                    negate(b, IntType::FLOAT)
                } else {
                    b
                }
            });
            assert_eq!(back, Some(f32_bits(x)), "{x} printed as {text}");
        }
        assert_eq!(
            c_literal(f64_bits(f64::INFINITY), IntType::DOUBLE),
            "(__builtin_inf())"
        );
        assert_eq!(
            c_literal(f32_bits(f32::NEG_INFINITY), IntType::FLOAT),
            "(-__builtin_inff())"
        );
    }

    #[test]
    fn arithmetic_comparisons_and_conversions() {
        let d = IntType::DOUBLE;
        let f = IntType::FLOAT;
        let nan = f64_bits(f64::NAN);
        assert_eq!(
            binary(BinaryOp::Add, f64_bits(0.1), f64_bits(0.2), d),
            Some(f64_bits(0.1 + 0.2))
        );
        assert_eq!(
            binary(BinaryOp::Div, f32_bits(1.0), f32_bits(0.0), f),
            Some(f32_bits(f32::INFINITY))
        );
        assert_eq!(binary(BinaryOp::Eq, nan, nan, d), Some(0));
        assert_eq!(binary(BinaryOp::Ne, nan, nan, d), Some(1));
        assert_eq!(binary(BinaryOp::Le, nan, f64_bits(1.0), d), Some(0));
        assert_eq!(binary(BinaryOp::Eq, f64_bits(0.0), f64_bits(-0.0), d), Some(1));
        assert_eq!(binary(BinaryOp::Rem, f64_bits(1.0), f64_bits(1.0), d), None);
        assert_eq!(negate(f32_bits(2.0), f), f32_bits(-2.0));
        assert_eq!(convert(f64_bits(-2.9), d, IntType::INT), Some(-2));
        assert_eq!(convert(f64_bits(2147483647.9), d, IntType::INT), Some(2147483647));
        assert_eq!(convert(f64_bits(2147483648.0), d, IntType::INT), None);
        assert_eq!(convert(f64_bits(-1.0), d, IntType::UINT), None);
        assert_eq!(convert(f64_bits(-0.9), d, IntType::UINT), Some(0));
        assert_eq!(convert(nan, d, IntType::LLONG), None);
        assert_eq!(convert(nan, d, IntType::BOOL), Some(1));
        assert_eq!(convert(f64_bits(0.1), d, f), Some(f32_bits(0.1f32)));
        assert_eq!(convert(f32_bits(0.1), f, d), Some(f64_bits(f64::from(0.1f32))));
        assert_eq!(
            convert(i128::from(u64::MAX), IntType::ULLONG, f),
            Some(f32_bits(u64::MAX as f32))
        );
        assert_eq!(convert(16777217, IntType::INT, f), Some(f32_bits(16777216.0)));
    }

    /// Expected patterns printed by gcc 12 (x86-64, `memcpy` of the `long double`'s 10 bytes).
    #[test]
    fn long_double_literals_parse_as_gcc_does() {
        let ld = ld();
        for (text, bits) in [
            ("1.0", 0x3fff_8000_0000_0000_0000i128),
            ("0.1", 0x3ffb_cccc_cccc_cccc_cccd),
            ("1e4932", 0x7ffe_d72c_b2a9_5c7e_f6cd),
            ("1.18973149535723176502e+4932", 0x7ffe_ffff_ffff_ffff_ffff),
            ("1.2e4932", 0x7fff_8000_0000_0000_0000),
            ("0x1p-16445", 1),
            ("0x1p-16446", 0),
            ("0x1.8p-16446", 1),
            ("0x1.00000000000000008p0", 0x3fff_8000_0000_0000_0000),
            ("0x1.00000000000000018p0", 0x3fff_8000_0000_0000_0001),
            ("0x1.fffffffffffffffep16383", 0x7ffe_ffff_ffff_ffff_ffff),
            ("0x1p16384", 0x7fff_8000_0000_0000_0000),
            ("0x1p-16382", 0x0001_8000_0000_0000_0000),
            ("0x1.fffffffffffffffep-16383", 0x0001_8000_0000_0000_0000),
            ("3.6451995318824746025e-4951", 1),
            ("1.8225997659412373012e-4951", 0),
            ("123456789012345678901234567890", 0x405f_c774_87fb_61b9_f077),
            ("20.", 0x4003_a000_0000_0000_0000),
            (".5", 0x3ffe_8000_0000_0000_0000),
        ] {
            assert_eq!(parse_literal(text, ld), Some(bits), "{text}");
        }
        for bad in ["", ".", "1e", "inf", "nan", "1.0.0", "+-1", "0x1.8"] {
            assert_eq!(parse_literal(bad, ld), None, "{bad}");
        }
    }

    #[test]
    fn long_double_literals_print_exactly() {
        let ld = ld();
        for bits in [
            0i128,
            1,
            0x3fff_8000_0000_0000_0000,
            0x3ffd_aaaa_aaaa_aaaa_aaab,
            0xbffb_cccc_cccc_cccc_cccd,
            0x7ffe_ffff_ffff_ffff_ffff,
            0x0000_7fff_ffff_ffff_ffff,
            0x0001_8000_0000_0000_0000,
            0x8000_0000_0000_0000_0000,
        ] {
            let text = c_literal(bits, ld);
            assert!(text.ends_with("L)"), "{text}");
            let negative = text.starts_with("(-");
            let inner = text.trim_start_matches("(-").trim_start_matches('(');
            let inner = inner.trim_end_matches(')').trim_end_matches('L');
            let back = parse_literal(inner, ld).map(|b| if negative { negate(b, ld) } else { b });
            assert_eq!(back, Some(bits), "{bits:#x} printed as {text}");
        }
        assert_eq!(
            c_literal(0x3fff_8000_0000_0000_0000, ld),
            "(0x1.0000000000000000p+0L)"
        );
        assert_eq!(c_literal(1, ld), "(0x0.0000000000000002p-16382L)");
        assert_eq!(c_literal(0x7fff_8000_0000_0000_0000, ld), "(__builtin_infl())");
        assert_eq!(c_literal(0xffff_8000_0000_0000_0000, ld), "(-__builtin_infl())");
        // gcc's `__builtin_nanl("0x5")` and `__builtin_nansl("0x5")`.
        assert_eq!(
            c_literal(0x7fff_c000_0000_0000_0005, ld),
            "(__builtin_nanl(\"0x5\"))"
        );
        assert_eq!(
            c_literal(0x7fff_8000_0000_0000_0005, ld),
            "(__builtin_nansl(\"0x5\"))"
        );
    }

    /// Expected values printed by gcc 12 (x86-64, the x87 unit at its default precision).
    #[test]
    fn long_double_arithmetic_and_conversions_as_gcc_computes_them() {
        let (ld, d, f) = (ld(), IntType::DOUBLE, IntType::FLOAT);
        let one = 0x3fff_8000_0000_0000_0000;
        let three = convert(3, IntType::INT, ld).unwrap();
        let third = binary(BinaryOp::Div, one, three, ld).unwrap();
        assert_eq!(third, 0x3ffd_aaaa_aaaa_aaaa_aaab);
        // 1 + 2^-70 is 1 at 64 bits of precision.
        let tiny = parse_literal("0x1p-70", ld).unwrap();
        assert_eq!(binary(BinaryOp::Add, one, tiny, ld), Some(one));
        assert_eq!(
            binary(
                BinaryOp::Eq,
                binary(BinaryOp::Add, one, tiny, ld).unwrap(),
                one,
                ld
            ),
            Some(1)
        );
        let ulong_max = i128::from(u64::MAX);
        let as_ld = convert(ulong_max, IntType::ULLONG, ld).unwrap();
        assert_eq!(as_ld, 0x403e_ffff_ffff_ffff_ffff);
        assert_eq!(convert(as_ld, ld, IntType::ULLONG), Some(ulong_max));
        assert_eq!(convert(as_ld, ld, IntType::LLONG), None);
        let two_64 = binary(BinaryOp::Add, as_ld, one, ld).unwrap();
        assert_eq!(convert(two_64, ld, IntType::ULLONG), None);
        let min = convert(i128::from(i64::MIN), IntType::LLONG, ld).unwrap();
        assert_eq!(convert(min, ld, IntType::LLONG), Some(i128::from(i64::MIN)));
        assert_eq!(convert(negate(third, ld), ld, IntType::UINT), Some(0));
        let nan = binary(BinaryOp::Div, 0, 0, ld).unwrap();
        assert!(Float::from_bits(nan, ld).is_nan());
        assert_eq!(convert(nan, ld, IntType::INT), None);
        assert_eq!(convert(nan, ld, IntType::BOOL), Some(1));
        assert_eq!(binary(BinaryOp::Ne, nan, nan, ld), Some(1));
        assert_eq!(binary(BinaryOp::Le, nan, one, ld), Some(0));
        assert_eq!(binary(BinaryOp::Eq, 0, negate(0, ld), ld), Some(1));
        assert_eq!(binary(BinaryOp::Rem, one, one, ld), None);
        // Narrowing rounds once, to nearest-even, subnormals included.
        let to_double = |text: &str| {
            let x = parse_literal(text, ld).unwrap();
            convert(x, ld, d).map(|b| f64::from_bits(b as u64))
        };
        assert_eq!(convert(third, ld, d), Some(i128::from((1.0f64 / 3.0).to_bits())));
        assert_eq!(convert(third, ld, f), Some(i128::from((1.0f32 / 3.0).to_bits())));
        assert_eq!(to_double("0x1.00000000000008p0"), Some(1.0));
        assert_eq!(to_double("0x1.000000000000081p0"), Some(1.0 + f64::EPSILON));
        assert_eq!(to_double("0x1.8p-1074"), Some(f64::from_bits(2)));
        assert_eq!(to_double("0x1.0000000000001p-1074"), Some(f64::from_bits(1)));
        assert_eq!(to_double("0x1.fffffffffffff8p1023"), Some(f64::INFINITY));
        // Widening is exact; a double NaN stays NaN.
        let tenth = i128::from(0.1f64.to_bits());
        assert_eq!(convert(convert(tenth, d, ld).unwrap(), ld, d), Some(tenth));
        let double_nan = convert(i128::from(f64::NAN.to_bits()), d, ld).unwrap();
        assert!(Float::from_bits(double_nan, ld).is_nan());
    }

    /// Patterns the x87 unit does not produce read as the canonical pattern of their exponent
    /// and fraction, which is what normalising to `long double` makes of them.
    #[test]
    fn non_canonical_x87_patterns() {
        let ld = ld();
        for (bits, canonical) in [
            (0x3fff_0000_0000_0000_0000i128, 0x3fff_8000_0000_0000_0000i128), // unnormal
            (0x0000_8000_0000_0000_0001, 0x0000_0000_0000_0000_0001),         // pseudo-denormal
            (0x7fff_0000_0000_0000_0000, 0x7fff_8000_0000_0000_0000),         // pseudo-infinity
            (0x7fff_4000_0000_0000_0000, 0x7fff_c000_0000_0000_0000),         // pseudo-NaN
        ] {
            assert_eq!(ld.normalize(bits), canonical, "{bits:#x}");
            assert!(!ld.contains(bits) && ld.contains(canonical));
            let x = Float::from_bits(bits, ld);
            assert_eq!(x.to_bits(), canonical, "{bits:#x}");
        }
        assert_eq!(ld.normalize(-1), 0xffff_ffff_ffff_ffff_ffff);
    }

    /// CBMC's `long double` values (15 exponent bits, 80 or 112 fraction bits) round to the
    /// nearest x87 value.
    #[test]
    fn wider_interchange_formats_round_to_long_double() {
        let ld = ld();
        // 1.0 + 2^-64 + 2^-80 (ILP32 layout: 80 fraction bits): just above a tie, rounds up.
        let bits = (0x3fffu128 << 80) | (1u128 << 16) | 1;
        assert_eq!(from_interchange(bits, 15, 80, ld), 0x3fff_8000_0000_0000_0001);
        // -1.5 in binary128's layout.
        let bits = (0xbfffu128 << 112) | (1u128 << 111);
        assert_eq!(from_interchange(bits, 15, 112, ld), 0xbfff_c000_0000_0000_0000);
        // The smallest binary128 subnormal is 0 in long double; infinity and NaN stay so.
        assert_eq!(from_interchange(1, 15, 112, ld), 0);
        assert_eq!(
            from_interchange(0x7fffu128 << 112, 15, 112, ld),
            0x7fff_8000_0000_0000_0000
        );
        let nan = from_interchange((0xffffu128 << 112) | 5, 15, 112, ld);
        assert_eq!(nan, 0xffff_c000_0000_0000_0000);
        // Formats Baton has: exact.
        let third = i128::from((1.0f64 / 3.0).to_bits());
        assert_eq!(from_interchange(third as u128, 11, 52, IntType::DOUBLE), third);
    }
}
