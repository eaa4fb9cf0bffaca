//! IEEE-754 values as the CFA keeps them: `float` and `double` values are their bit patterns
//! (see [`types`](super::types)). This module is the one place that turns bit patterns into
//! numbers and back: arithmetic as gcc computes it with SSE (`FLT_EVAL_METHOD == 0`,
//! round-to-nearest-even; Rust's `f32`/`f64` operations are the same IEEE operations),
//! conversions with C's rules, and C's floating-point literals (parsed exactly, printed
//! exactly as hexadecimal literals).

use super::expr::BinaryOp;
use super::types::IntType;
use std::cmp::Ordering;

/// A floating-point value of one of the two modelled formats.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Float {
    F32(f32),
    F64(f64),
}

impl Float {
    /// The value a bit pattern of type `ty` (a float type) holds.
    pub fn from_bits(bits: i128, ty: IntType) -> Float {
        if ty.bits == 32 {
            Float::F32(f32::from_bits(bits as u32))
        } else {
            Float::F64(f64::from_bits(bits as u64))
        }
    }

    /// The bit pattern, zero-extended (the normalised value of the float type).
    pub fn to_bits(self) -> i128 {
        match self {
            Float::F32(x) => i128::from(x.to_bits()),
            Float::F64(x) => i128::from(x.to_bits()),
        }
    }

    /// The value as `f64` (exact: every `float` is a `double`).
    pub fn to_f64(self) -> f64 {
        match self {
            Float::F32(x) => f64::from(x),
            Float::F64(x) => x,
        }
    }

    /// True for +0.0 and -0.0: what `!x`, `x != 0` and conditions test.
    pub fn is_zero(self) -> bool {
        self.to_f64() == 0.0
    }
}

/// The bit pattern of `-x`: the sign bit flipped (SSE's `xorps`, also for NaN).
pub fn negate(bits: i128, ty: IntType) -> i128 {
    bits ^ (1i128 << (ty.bits - 1))
}

/// `a op b` for operands of float type `ty`: arithmetic gives a bit pattern of `ty`,
/// comparisons 0 or 1 (false for every comparison with NaN except `!=`). `None` for the
/// operators C does not define on floating-point operands.
pub fn binary(op: BinaryOp, a: i128, b: i128, ty: IntType) -> Option<i128> {
    let (x, y) = (Float::from_bits(a, ty), Float::from_bits(b, ty));
    let ordering = x.to_f64().partial_cmp(&y.to_f64());
    let compare = |holds: fn(Ordering) -> bool| Some(i128::from(ordering.is_some_and(holds)));
    match op {
        BinaryOp::Eq => compare(|o| o == Ordering::Equal),
        BinaryOp::Ne => Some(i128::from(ordering.is_none_or(|o| o != Ordering::Equal))),
        BinaryOp::Lt => compare(|o| o == Ordering::Less),
        BinaryOp::Le => compare(|o| o != Ordering::Greater),
        BinaryOp::Gt => compare(|o| o == Ordering::Greater),
        BinaryOp::Ge => compare(|o| o != Ordering::Less),
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div => Some(
            match (x, y) {
                (Float::F32(x), Float::F32(y)) => Float::F32(match op {
                    BinaryOp::Add => x + y,
                    BinaryOp::Sub => x - y,
                    BinaryOp::Mul => x * y,
                    _ => x / y,
                }),
                (x, y) => {
                    let (x, y) = (x.to_f64(), y.to_f64());
                    Float::F64(match op {
                        BinaryOp::Add => x + y,
                        BinaryOp::Sub => x - y,
                        BinaryOp::Mul => x * y,
                        _ => x / y,
                    })
                }
            }
            .to_bits(),
        ),
        _ => None,
    }
}

/// Converts a normalised value of `from` to `to` as C does (C11 6.3.1.4, 6.3.1.5): integer to
/// floating rounds to nearest; floating to integer truncates toward zero and is `None`
/// (undefined) when the truncated value does not fit `to` or is NaN; floating to `_Bool` is
/// `!= 0`; `double` to `float` rounds to nearest. Integer to integer is not handled here.
pub fn convert(value: i128, from: IntType, to: IntType) -> Option<i128> {
    match (from.float, to.float) {
        (false, true) => Some(if to.bits == 32 {
            Float::F32(value as f32).to_bits()
        } else {
            Float::F64(value as f64).to_bits()
        }),
        (true, true) => {
            let x = Float::from_bits(value, from);
            Some(
                if to.bits == 32 {
                    match x {
                        Float::F32(x) => Float::F32(x),
                        Float::F64(x) => Float::F32(x as f32),
                    }
                } else {
                    Float::F64(x.to_f64())
                }
                .to_bits(),
            )
        }
        (true, false) => {
            let x = Float::from_bits(value, from).to_f64();
            if to.is_bool() {
                return Some(i128::from(x != 0.0));
            }
            let t = x.trunc();
            // Every value of a type of at most 64 bits is within ±2^64, where f64 -> i128 is
            // exact; NaN and larger magnitudes are rejected first.
            if t.is_nan() || t.abs() > 2f64.powi(64) {
                return None;
            }
            let v = t as i128;
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
    Some(if ty.bits == 32 {
        Float::F32(lower.parse().ok()?).to_bits()
    } else {
        Float::F64(lower.parse().ok()?).to_bits()
    })
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
    Some(round_to_format(mantissa, sticky, exponent, ty))
}

/// `mantissa * 2^exponent` (plus a little more if `sticky`) rounded to nearest-even in the
/// format of `ty`: overflow gives infinity, tiny values subnormals or zero.
fn round_to_format(mantissa: u128, sticky: bool, exponent: i64, ty: IntType) -> i128 {
    let (fraction_bits, min_exp, max_exp): (i64, i64, i64) = if ty.bits == 32 {
        (23, -126, 127)
    } else {
        (52, -1022, 1023)
    };
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
    let bias = max_exp;
    if kept >> fraction_bits == 0 {
        kept // subnormal or zero: biased exponent 0
    } else {
        let mut kept = kept;
        let mut lsb = lsb_exp;
        if kept >> (fraction_bits + 1) != 0 {
            kept >>= 1;
            lsb += 1;
        }
        let biased = lsb + fraction_bits + bias;
        if biased > 2 * bias {
            return if ty.bits == 32 {
                i128::from(f32::INFINITY.to_bits())
            } else {
                i128::from(f64::INFINITY.to_bits())
            };
        }
        (i128::from(biased) << fraction_bits) | (kept & ((1i128 << fraction_bits) - 1))
    }
}

/// Writes a C literal that denotes exactly this bit pattern of `ty`: a hexadecimal literal
/// (`0x1.8p+1`, suffix `f` for `float`) for finite values, `__builtin_inf()` or
/// `__builtin_nan()` forms for the others (gcc's builtins; a NaN's payload is kept).
pub fn c_literal(bits: i128, ty: IntType) -> String {
    let (fraction_bits, exp_bias, suffix) = if ty.bits == 32 {
        (23u32, 127i64, "f")
    } else {
        (52u32, 1023i64, "")
    };
    let sign = if (bits >> (ty.bits - 1)) & 1 == 1 { "-" } else { "" };
    let fraction = bits & ((1i128 << fraction_bits) - 1);
    let biased = ((bits >> fraction_bits) & ((1i128 << (ty.bits as u32 - 1 - fraction_bits)) - 1)) as i64;
    let all_ones = (1i64 << (ty.bits as u32 - 1 - fraction_bits)) - 1;
    if biased == all_ones {
        let builtin = if ty.bits == 32 { "f" } else { "" };
        let quiet = 1i128 << (fraction_bits - 1);
        return if fraction == 0 {
            format!("({sign}__builtin_inf{builtin}())")
        } else if fraction & quiet != 0 {
            format!("({sign}__builtin_nan{builtin}(\"{:#x}\"))", fraction & !quiet)
        } else {
            format!("({sign}__builtin_nans{builtin}(\"{fraction:#x}\"))")
        };
    }
    // Fraction digits: 23 bits padded to 24 (6 hex digits), 52 bits are 13 hex digits.
    let (digits, shifted) = if ty.bits == 32 {
        (6, fraction << 1)
    } else {
        (13, fraction)
    };
    let (lead, exp) = if biased == 0 {
        (0, 1 - exp_bias)
    } else {
        (1, biased - exp_bias)
    };
    if biased == 0 && fraction == 0 {
        return format!("({sign}0x0p+0{suffix})");
    }
    format!("({sign}0x{lead}.{shifted:0digits$x}p{exp:+}{suffix})")
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
