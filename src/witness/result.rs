//! The value a `\result == c` constraint gives a call's result (violation witnesses'
//! `function_return` waypoints, GraphML assumptions): `c` is a C constant — an integer, a
//! decimal or hexadecimal floating-point literal (parsed exactly, [`crate::cfa::float`]),
//! gcc's `__builtin_inf`/`__builtin_nan` forms Baton writes for the other floating-point
//! values (suffixed `f` for `float`, `l` for `long double`) — possibly negated, parenthesised
//! and cast. The value is returned as the result's type carries it: an integer as itself, a
//! `float`, `double` or `long double` as its bit pattern.

use crate::cfa::float;
use crate::cfa::types::{DataModel, IntType};

/// A constant of a constraint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Constant {
    Int(i128),
    /// A floating-point value: its bit pattern in type `ty`.
    Float {
        bits: i128,
        ty: IntType,
    },
}

/// The type integer constants are converted from (wide enough for every literal Baton reads).
const INT_SOURCE: IntType = IntType::LLONG;

/// `long double` for constants: its values' bit patterns are the same in both data models (only
/// the padding after them differs), and constants only carry bit patterns.
fn long_double() -> IntType {
    DataModel::ILP32.long_double()
}

/// True if `a` and `b` have the same values (the same type, up to a `long double`'s padding).
fn same_values(a: IntType, b: IntType) -> bool {
    (a.bits, a.signed, a.float) == (b.bits, b.signed, b.float)
}

impl Constant {
    fn negate(self) -> Constant {
        match self {
            Constant::Int(v) => Constant::Int(-v),
            Constant::Float { bits, ty } => Constant::Float {
                bits: float::negate(bits, ty),
                ty,
            },
        }
    }

    /// The constant cast to `to` (C's conversion, rounding as C does).
    fn cast(self, to: IntType) -> Option<Constant> {
        match (self, to.is_float()) {
            // Integer casts of integer constants: the value as written (as before).
            (Constant::Int(_), false) => Some(self),
            (Constant::Int(v), true) => Some(Constant::Float {
                bits: float::convert(v, INT_SOURCE, to)?,
                ty: to,
            }),
            (Constant::Float { bits, ty }, true) => Some(Constant::Float {
                bits: if same_values(ty, to) {
                    bits
                } else {
                    float::convert(bits, ty, to)?
                },
                ty: to,
            }),
            (Constant::Float { bits, ty }, false) => Some(Constant::Int(float::convert(bits, ty, to)?)),
        }
    }

    /// The value of type `ty` equal to the constant (exactly: no rounding), if there is one.
    fn as_type(self, ty: IntType) -> Option<i128> {
        match self {
            Constant::Int(v) if !ty.is_float() => Some(v),
            Constant::Float { bits, ty: t } if same_values(t, ty) => Some(bits),
            _ => {
                let (from, value) = match self {
                    Constant::Int(v) => (INT_SOURCE, v),
                    Constant::Float { bits, ty } => (ty, bits),
                };
                let converted = float::convert(value, from, ty)?;
                (float::convert(converted, ty, from)? == value).then_some(converted)
            }
        }
    }
}

/// The value `\result == c` (also `c == \result`, in parentheses, with a `;`) gives a result
/// of type `ty`; `None` if the text is no such constraint or no value of `ty` equals `c`.
pub fn result_value(text: &str, ty: IntType) -> Option<i128> {
    let text = text.trim().trim_end_matches(';').trim();
    let text = strip_parens(text).unwrap_or(text);
    let (lhs, rhs) = text.split_once("==")?;
    let constant = match (lhs.trim(), rhs.trim()) {
        ("\\result", c) | (c, "\\result") => constant(c)?,
        _ => return None,
    };
    constant.as_type(ty)
}

/// `inner` of `(inner)` when the parentheses enclose the whole text.
fn strip_parens(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('(')?.strip_suffix(')')?;
    let mut depth = 0i32;
    for c in inner.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return None;
        }
    }
    (depth == 0).then_some(inner)
}

/// A constant expression: literal, `-`/`+`, parentheses, casts, gcc's inf/nan builtins.
fn constant(text: &str) -> Option<Constant> {
    let text = text.trim();
    if let Some(rest) = text.strip_prefix('-') {
        return Some(constant(rest)?.negate());
    }
    if let Some(rest) = text.strip_prefix('+') {
        return constant(rest);
    }
    if let Some(inner) = strip_parens(text) {
        return constant(inner);
    }
    if let Some(rest) = text.strip_prefix('(') {
        let (name, operand) = rest.split_once(')')?;
        return constant(operand)?.cast(type_named(name)?);
    }
    if let Some(builtin) = text.strip_prefix("__builtin_") {
        return special(builtin);
    }
    literal(text)
}

/// The arithmetic type a cast names.
fn type_named(name: &str) -> Option<IntType> {
    let words: Vec<&str> = name.split_whitespace().collect();
    Some(match words.as_slice() {
        ["float"] => IntType::FLOAT,
        ["double"] => IntType::DOUBLE,
        ["long", "double"] => long_double(),
        words
            if words.iter().all(|w| {
                matches!(
                    *w,
                    "signed" | "unsigned" | "char" | "short" | "int" | "long" | "_Bool"
                )
            }) && !words.is_empty() =>
        {
            IntType::LLONG
        }
        _ => return None,
    })
}

/// `inf()`, `nan("0x…")`, `nans(…)` (after `__builtin_`), each also with suffix `f` (`float`)
/// or `l` (`long double`).
fn special(builtin: &str) -> Option<Constant> {
    let (name, args) = builtin.split_once('(')?;
    let args = args.strip_suffix(')')?.trim();
    let kinds = ["inf", "nan", "nans"];
    let (kind, ty) = match (name.strip_suffix('f'), name.strip_suffix('l')) {
        (Some(k), _) if kinds.contains(&k) => (k, IntType::FLOAT),
        (_, Some(k)) if kinds.contains(&k) => (k, long_double()),
        _ => (name, IntType::DOUBLE),
    };
    // x87's integer bit (bit 63) is set in every infinity and NaN; the fraction is below it.
    let (fraction_bits, integer_bit): (u32, u32) = match ty.bits {
        32 => (23, 0),
        64 => (52, 0),
        _ => (63, 1),
    };
    let exponent_bits = u32::from(ty.bits) - 1 - fraction_bits - integer_bit;
    let exponent = ((1i128 << exponent_bits) - 1) << (fraction_bits + integer_bit)
        | i128::from(integer_bit) << fraction_bits;
    let payload = || -> Option<i128> {
        let quoted = args.strip_prefix('"')?.strip_suffix('"')?;
        let payload = if quoted.is_empty() {
            0
        } else {
            super::graphml::parse_int(quoted)?
        };
        (0..1i128 << (fraction_bits - 1))
            .contains(&payload)
            .then_some(payload)
    };
    let bits = match kind {
        "inf" if args.is_empty() => exponent,
        "nan" => exponent | 1i128 << (fraction_bits - 1) | payload()?,
        "nans" => exponent | payload()?.max(1),
        _ => return None,
    };
    Some(Constant::Float { bits, ty })
}

/// An integer or floating-point literal with its suffixes.
fn literal(text: &str) -> Option<Constant> {
    let lower = text.to_ascii_lowercase();
    let hex = lower.starts_with("0x");
    let is_float = if hex {
        lower.contains('p')
    } else {
        lower.contains(['.', 'e'])
    };
    if !is_float {
        return super::graphml::parse_int(text).map(Constant::Int);
    }
    let (digits, ty) = match (lower.strip_suffix('f'), lower.strip_suffix('l')) {
        (Some(d), _) => (d, IntType::FLOAT),
        (_, Some(d)) => (d, long_double()),
        _ => (lower.as_str(), IntType::DOUBLE),
    };
    Some(Constant::Float {
        bits: float::parse_literal(digits, ty)?,
        ty,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits64(x: f64) -> Option<i128> {
        Some(i128::from(x.to_bits()))
    }

    fn bits32(x: f32) -> Option<i128> {
        Some(i128::from(x.to_bits()))
    }

    #[test]
    fn integer_results() {
        let int = IntType::INT;
        assert_eq!(result_value("\\result == 5", int), Some(5));
        assert_eq!(result_value("\\result == -7;", int), Some(-7));
        assert_eq!(result_value("\\result == (unsigned int)0x10U", int), Some(16));
        assert_eq!(result_value("3 == \\result", int), Some(3));
        assert_eq!(result_value("(\\result == 3)", int), Some(3));
        assert_eq!(result_value("\\result == 2.0", int), Some(2));
        assert_eq!(result_value("\\result == 2.5", int), None);
        assert_eq!(result_value("\\result > 5", int), None);
        assert_eq!(result_value("x == 5", int), None);
    }

    #[test]
    fn floating_point_results_as_baton_writes_them() {
        let (d, f) = (IntType::DOUBLE, IntType::FLOAT);
        for x in [3.0, -0.1, 1e-310, f64::MAX, -0.0] {
            let written = format!("\\result == {}", float::c_literal(bits64(x).unwrap(), d));
            assert_eq!(result_value(&written, d), bits64(x), "{written}");
        }
        for x in [3.0f32, -0.1, 1e-40, f32::MIN] {
            let written = format!("\\result == {}", float::c_literal(bits32(x).unwrap(), f));
            assert_eq!(result_value(&written, f), bits32(x), "{written}");
        }
        for bits in [
            bits64(f64::INFINITY),
            bits64(f64::NEG_INFINITY),
            Some(0x7ff8_0000_0000_0001),
            Some(0xfff0_0000_0000_0002u64 as i128),
        ] {
            let bits = bits.unwrap();
            let written = format!("\\result == {}", float::c_literal(bits, d));
            assert_eq!(result_value(&written, d), Some(bits), "{written}");
        }
        let nan = i128::from(f32::NAN.to_bits());
        let written = format!("\\result == {}", float::c_literal(nan, f));
        assert_eq!(result_value(&written, f), Some(nan), "{written}");
    }

    #[test]
    fn long_double_results_as_baton_writes_them() {
        for model in [DataModel::ILP32, DataModel::LP64] {
            let ld = model.long_double();
            for bits in [
                0x3fff_8000_0000_0000_0000i128, // 1
                0xbffd_aaaa_aaaa_aaaa_aaab,     // -1/3
                0x0000_0000_0000_0000_0001,     // the smallest subnormal
                0x7ffe_ffff_ffff_ffff_ffff,     // the largest finite value
                0x8000_0000_0000_0000_0000,     // -0
                0x7fff_8000_0000_0000_0000,     // infinity
                0xffff_c000_0000_0000_0005,     // a quiet NaN with a payload
                0x7fff_8000_0000_0000_0003,     // a signalling NaN
            ] {
                let written = format!("\\result == {}", float::c_literal(bits, ld));
                assert_eq!(result_value(&written, ld), Some(bits), "{written}");
            }
        }
        let ld = DataModel::LP64.long_double();
        let third = float::binary(
            crate::cfa::expr::BinaryOp::Div,
            float::convert(1, IntType::INT, ld).unwrap(),
            float::convert(3, IntType::INT, ld).unwrap(),
            ld,
        );
        assert_eq!(result_value("\\result == 0.333333333333333333342L", ld), third);
        // A double literal is a long double value; 1/3 in long double is no double value.
        assert_eq!(
            result_value("\\result == 0.5", ld),
            Some(0x3ffe_8000_0000_0000_0000)
        );
        assert_eq!(
            result_value("\\result == 0.1", ld),
            float::convert(bits64(0.1).unwrap(), IntType::DOUBLE, ld)
        );
        assert_eq!(result_value("\\result == 0.1L", IntType::DOUBLE), None);
        assert_eq!(
            result_value("\\result == (double)0.1L", IntType::DOUBLE),
            bits64(0.1)
        );
        assert_eq!(
            result_value("\\result == (long double)7", ld),
            Some(0x4001_e000_0000_0000_0000)
        );
    }

    #[test]
    fn decimal_constants_and_casts() {
        let (d, f) = (IntType::DOUBLE, IntType::FLOAT);
        assert_eq!(result_value("\\result == 0x1.8p+1", d), bits64(3.0));
        assert_eq!(result_value("\\result == (0x1.8p+1)", d), bits64(3.0));
        assert_eq!(result_value("\\result == 0.1", d), bits64(0.1));
        assert_eq!(result_value("\\result == -2.5e3", d), bits64(-2500.0));
        assert_eq!(result_value("\\result == 3", d), bits64(3.0));
        assert_eq!(result_value("\\result == 0.5", f), bits32(0.5));
        assert_eq!(result_value("\\result == 0.1f", f), bits32(0.1));
        // No float equals the double 0.1; the cast rounds it to one.
        assert_eq!(result_value("\\result == 0.1", f), None);
        assert_eq!(result_value("\\result == (float)0.1", f), bits32(0.1));
        assert_eq!(
            result_value("\\result == (double)(float)0.1", d),
            bits64(f64::from(0.1f32))
        );
        assert_eq!(result_value("\\result == (double)7", d), bits64(7.0));
        assert_eq!(result_value("\\result == (struct s)7", d), None);
        assert_eq!(result_value("\\result == 1.0.0", d), None);
    }
}
