//! Scalar types and data models: the value domain of Baton's CFA.
//!
//! Every C scalar the frontend accepts (integers of all widths and signedness, `_Bool`, enums,
//! pointers that are only stored and compared, `float`, `double` and `long double`) becomes an
//! [`IntType`]. Values are kept as `i128` *normalised* to their type: sign-extended for signed
//! types, zero-extended for unsigned ones, `0`/`1` for `_Bool`, and for the floating-point types
//! the bit pattern (IEEE-754 binary32 / binary64, x87's 80-bit extended format for `long
//! double`), zero-extended. A float value is thus its bytes, as in memory: reinterpreting a
//! union's bytes is the identity on the bit pattern. A `long double` object has padding bytes
//! after its 10 value bytes (gcc: 12 bytes under ILP32, 16 under LP64), so its type depends on
//! the data model like `long`'s does ([`DataModel::long_double`]).

use super::float;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The data model of a task: sizes of `long` and pointers (sv-benchmarks' `data_model`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum DataModel {
    /// 32-bit `int`, `long` and pointers: the sv-benchmarks default for these tasks.
    #[default]
    ILP32,
    /// 32-bit `int`, 64-bit `long` and pointers.
    LP64,
}

impl DataModel {
    /// Width of `long` in bits.
    pub fn long_bits(self) -> u8 {
        match self {
            DataModel::ILP32 => 32,
            DataModel::LP64 => 64,
        }
    }

    /// Width of a pointer in bits.
    pub fn pointer_bits(self) -> u8 {
        self.long_bits()
    }

    /// The gcc flag selecting this model (`-m32` / `-m64`).
    pub fn gcc_flag(self) -> &'static str {
        match self {
            DataModel::ILP32 => "-m32",
            DataModel::LP64 => "-m64",
        }
    }

    /// The C type `int`.
    pub fn int(self) -> IntType {
        IntType::INT
    }

    /// The C type `long`.
    pub fn long(self) -> IntType {
        IntType::signed(self.long_bits())
    }

    /// The C type `unsigned long`.
    pub fn ulong(self) -> IntType {
        IntType::unsigned(self.long_bits())
    }

    /// The type Baton gives pointers: an unsigned integer of pointer width.
    pub fn pointer(self) -> IntType {
        IntType::unsigned(self.pointer_bits())
    }

    /// The C type `long double`: x87's 80-bit extended format, as gcc has it on x86 Linux,
    /// in 12 bytes under ILP32 (i386 System V ABI) and 16 under LP64 (x86-64 ABI).
    pub fn long_double(self) -> IntType {
        IntType {
            bits: 80,
            signed: false,
            float: true,
            padding: match self {
                DataModel::ILP32 => 2,
                DataModel::LP64 => 6,
            },
        }
    }
}

impl std::str::FromStr for DataModel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_uppercase().as_str() {
            "ILP32" => Ok(DataModel::ILP32),
            "LP64" => Ok(DataModel::LP64),
            other => Err(format!("unknown data model `{other}` (expected ILP32 or LP64)")),
        }
    }
}

impl fmt::Display for DataModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DataModel::ILP32 => "ILP32",
            DataModel::LP64 => "LP64",
        })
    }
}

/// A scalar type: width in bits and signedness of an integer (`bits == 1` is `_Bool`), or a
/// floating-point type (`float`: 32 bits, `double`: 64 bits, `long double`: 80 bits) when
/// `float` is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct IntType {
    /// Width of the value in bits (also of a float's bit pattern).
    pub bits: u8,
    pub signed: bool,
    /// True for the floating-point types: values are bit patterns, arithmetic is IEEE-754's.
    #[serde(default)]
    pub float: bool,
    /// Bytes of an object of this type after its value's bytes: 0, except for `long double`
    /// (see [`DataModel::long_double`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub padding: u8,
}

/// For serde: a `padding` of 0 is left out, so files of types without padding stay as they were.
fn is_zero(padding: &u8) -> bool {
    *padding == 0
}

impl IntType {
    pub const BOOL: IntType = IntType {
        bits: 1,
        signed: false,
        float: false,
        padding: 0,
    };
    pub const CHAR: IntType = IntType {
        bits: 8,
        signed: true,
        float: false,
        padding: 0,
    };
    pub const UCHAR: IntType = IntType {
        bits: 8,
        signed: false,
        float: false,
        padding: 0,
    };
    pub const SHORT: IntType = IntType {
        bits: 16,
        signed: true,
        float: false,
        padding: 0,
    };
    pub const USHORT: IntType = IntType {
        bits: 16,
        signed: false,
        float: false,
        padding: 0,
    };
    pub const INT: IntType = IntType {
        bits: 32,
        signed: true,
        float: false,
        padding: 0,
    };
    pub const UINT: IntType = IntType {
        bits: 32,
        signed: false,
        float: false,
        padding: 0,
    };
    pub const LLONG: IntType = IntType {
        bits: 64,
        signed: true,
        float: false,
        padding: 0,
    };
    pub const ULLONG: IntType = IntType {
        bits: 64,
        signed: false,
        float: false,
        padding: 0,
    };

    /// `float` (IEEE-754 binary32).
    pub const FLOAT: IntType = IntType {
        bits: 32,
        signed: false,
        float: true,
        padding: 0,
    };
    /// `double` (IEEE-754 binary64).
    pub const DOUBLE: IntType = IntType {
        bits: 64,
        signed: false,
        float: true,
        padding: 0,
    };

    pub const fn signed(bits: u8) -> IntType {
        IntType {
            bits,
            signed: true,
            float: false,
            padding: 0,
        }
    }

    pub const fn unsigned(bits: u8) -> IntType {
        IntType {
            bits,
            signed: false,
            float: false,
            padding: 0,
        }
    }

    /// True for `_Bool`, whose conversion is `!= 0` rather than truncation.
    pub fn is_bool(self) -> bool {
        self.bits == 1
    }

    /// True for `float`, `double` and `long double`.
    pub fn is_float(self) -> bool {
        self.float
    }

    /// True for `long double` (x87 extended precision, in either data model).
    pub fn is_long_double(self) -> bool {
        self.float && self.bits == 80
    }

    /// The integer type of the same size: what a float's bit pattern is as an unsigned number.
    pub fn bits_type(self) -> IntType {
        IntType::unsigned(self.bits)
    }

    /// Size in bytes (`sizeof`): the value's bytes and the padding after them.
    pub fn size_bytes(self) -> u32 {
        if self.is_bool() {
            1
        } else {
            u32::from(self.bits) / 8 + u32::from(self.padding)
        }
    }

    /// Smallest value of the type (for a float type: of its bit patterns).
    pub fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }

    /// Largest value of the type (for a float type: of its bit patterns).
    pub fn max(self) -> i128 {
        if self.is_bool() {
            1
        } else if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }

    /// Converts any integer to this type as C does (C11 6.3.1.2, 6.3.1.3 with wrap-around,
    /// which is what gcc does for signed targets). For a float type the integer is a bit
    /// pattern: its low bits are kept, and a `long double` pattern is made canonical
    /// ([`float::canonical_x87`]).
    pub fn normalize(self, value: i128) -> i128 {
        if self.is_bool() {
            return i128::from(value != 0);
        }
        let bits = u32::from(self.bits);
        let mask: i128 = if bits >= 127 { -1 } else { (1i128 << bits) - 1 };
        let low = value & mask;
        if self.is_long_double() {
            float::canonical_x87(low)
        } else if self.signed && (low >> (bits - 1)) & 1 == 1 {
            low - (1i128 << bits)
        } else {
            low
        }
    }

    /// True if `value` is already a normalised value of this type.
    pub fn contains(self, value: i128) -> bool {
        value >= self.min()
            && value <= self.max()
            && (!self.is_long_double() || self.normalize(value) == value)
    }

    /// Integer promotion (C11 6.3.1.1): every integer narrower than `int` becomes `int`;
    /// floating-point types stay as they are.
    pub fn promoted(self) -> IntType {
        if self.bits < 32 && !self.float {
            IntType::INT
        } else {
            self
        }
    }

    /// Rank for the usual arithmetic conversions; widths stand in for ranks, which is exact
    /// for the types Baton models (long long and long of the same width convert alike).
    fn rank(self) -> u8 {
        self.bits
    }

    /// The usual arithmetic conversions (C11 6.3.1.8) of two operand types. With a
    /// floating-point operand the wider floating-point type wins (gcc with SSE evaluates in
    /// the operands' type, `FLT_EVAL_METHOD == 0`).
    pub fn common(a: IntType, b: IntType) -> IntType {
        match (a.float, b.float) {
            (true, true) => return if a.bits >= b.bits { a } else { b },
            (true, false) => return a,
            (false, true) => return b,
            (false, false) => {}
        }
        let (a, b) = (a.promoted(), b.promoted());
        if a == b {
            return a;
        }
        if a.signed == b.signed {
            return if a.rank() >= b.rank() { a } else { b };
        }
        let (s, u) = if a.signed { (a, b) } else { (b, a) };
        if u.rank() >= s.rank() {
            u
        } else {
            // The signed type is wider, so it represents every value of the unsigned one.
            s
        }
    }

    /// The C spelling of this type, for emitted C code.
    pub fn c_name(self, model: DataModel) -> &'static str {
        if self.float {
            return match self.bits {
                32 => "float",
                64 => "double",
                _ => "long double",
            };
        }
        match (self.bits, self.signed) {
            (1, _) => "_Bool",
            (8, true) => "signed char",
            (8, false) => "unsigned char",
            (16, true) => "short",
            (16, false) => "unsigned short",
            (32, true) => "int",
            (32, false) => "unsigned int",
            (64, true) if model.long_bits() == 64 => "long",
            (64, false) if model.long_bits() == 64 => "unsigned long",
            (64, true) => "long long",
            (64, false) => "unsigned long long",
            _ => "int",
        }
    }

    /// The `__VERIFIER_nondet_*` suffix that yields this type.
    pub fn nondet_suffix(self, model: DataModel) -> &'static str {
        if self.float {
            return match self.bits {
                32 => "float",
                64 => "double",
                _ => "long_double",
            };
        }
        match (self.bits, self.signed) {
            (1, _) => "bool",
            (8, true) => "char",
            (8, false) => "uchar",
            (16, true) => "short",
            (16, false) => "ushort",
            (32, true) => "int",
            (32, false) => "uint",
            (64, true) if model.long_bits() == 64 => "long",
            (64, false) if model.long_bits() == 64 => "ulong",
            (64, true) => "longlong",
            (64, false) => "ulonglong",
            _ => "int",
        }
    }
}

impl fmt::Display for IntType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_bool() {
            f.write_str("bool")
        } else if self.float {
            write!(f, "f{}", self.bits)
        } else {
            write!(f, "{}{}", if self.signed { "i" } else { "u" }, self.bits)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_wraps_like_c() {
        assert_eq!(IntType::UCHAR.normalize(-1), 255);
        assert_eq!(IntType::CHAR.normalize(200), -56);
        assert_eq!(IntType::INT.normalize(1i128 << 31), -(1i128 << 31));
        assert_eq!(IntType::UINT.normalize(-1), 4294967295);
        assert_eq!(IntType::LLONG.normalize(1i128 << 63), i128::from(i64::MIN));
        assert_eq!(IntType::ULLONG.normalize(-1), i128::from(u64::MAX));
        assert_eq!(IntType::BOOL.normalize(256), 1);
        assert_eq!(IntType::BOOL.normalize(0), 0);
    }

    #[test]
    fn usual_arithmetic_conversions() {
        assert_eq!(IntType::common(IntType::CHAR, IntType::UCHAR), IntType::INT);
        assert_eq!(IntType::common(IntType::INT, IntType::UINT), IntType::UINT);
        assert_eq!(IntType::common(IntType::UINT, IntType::LLONG), IntType::LLONG);
        assert_eq!(IntType::common(IntType::ULLONG, IntType::INT), IntType::ULLONG);
        let m = DataModel::ILP32;
        assert_eq!(IntType::common(m.long(), IntType::UINT), IntType::UINT);
        let m = DataModel::LP64;
        assert_eq!(IntType::common(m.long(), IntType::UINT), m.long());
        assert_eq!(IntType::common(IntType::FLOAT, IntType::LLONG), IntType::FLOAT);
        assert_eq!(IntType::common(IntType::FLOAT, IntType::DOUBLE), IntType::DOUBLE);
        assert_eq!(IntType::common(IntType::UCHAR, IntType::DOUBLE), IntType::DOUBLE);
        assert_eq!(IntType::FLOAT.promoted(), IntType::FLOAT);
    }
}
