//! C types as the frontend sees them, and C's typing of integer and character constants.

use crate::cfa::float;
use crate::cfa::types::{DataModel, IntType};
use lang_c::ast::{Float, FloatBase, FloatFormat, Integer, IntegerBase, IntegerSize};

/// A C type after resolving typedefs. Only `Int` and `Ptr` values exist in the CFA; arrays are
/// objects whose elements are such values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CType {
    Void,
    Int(IntType),
    /// An object pointer to the given type, a pointer-width unsigned integer (see
    /// [`crate::cfa::address`]); the pointee says what a dereference reads and how far
    /// arithmetic steps.
    Ptr(Box<CType>),
    /// A struct or union named by a tag not (yet) defined where it was named (`struct node
    /// *next` inside `struct node`): resolved by the tag when a pointer to it is followed.
    Incomplete {
        tag: String,
        union: bool,
    },
    /// An array of the element type (itself an array for more dimensions).
    Array(Box<CType>, ArrayLen),
    /// A union of scalars of one size: one variable of its storage type.
    Union(UnionType),
    /// A union with a member of another kind (struct, array, union, pointer, `_Bool`): one
    /// object of bytes in memory (see the lowering's `memory_union` module).
    MemoryUnion(MemoryUnionType),
    /// A struct: one variable per scalar leaf (see the lowering's `record` module).
    Struct(StructType),
    /// A function type: a value only as the pointer it decays to (see [`FunctionType`]).
    Func(Box<FunctionType>),
    /// A type Baton does not model; the string names it for the error message. Declaring
    /// such a type is fine, using it for a value is `unsupported`.
    Unsupported(String),
}

/// A function's type: what a pointer to it must agree with to be called through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FunctionType {
    pub ret: CType,
    /// `None` for an unprototyped `f()`.
    pub params: Option<Vec<CType>>,
    pub variadic: bool,
}

/// A union whose members are scalars of one size (see the lowering's `union` module).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnionType {
    /// Member names and types, in declaration order; never empty.
    pub members: Vec<(String, IntType)>,
}

impl UnionType {
    /// The type of the variable holding the union's bytes: the first of its widest members.
    pub(crate) fn storage(&self) -> IntType {
        let widest = self.members.iter().map(|(_, t)| t.bits).max().unwrap_or(0);
        self.members
            .iter()
            .map(|(_, t)| *t)
            .find(|t| t.bits == widest)
            .unwrap_or(IntType::INT)
    }
}

/// A union with aggregate, pointer or `_Bool` members: every member is at offset 0 of one
/// object in memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MemoryUnionType {
    /// Member names and types, in declaration order; never empty.
    pub members: Vec<(String, CType)>,
}

/// A struct's members, in declaration order; never empty. Member types are scalars, unions,
/// structs or arrays of fixed length of these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StructType {
    pub members: Vec<(String, CType)>,
}

/// The length of an array type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ArrayLen {
    /// A constant length.
    Fixed(u64),
    /// A variable length (`int a[n]`): the size expression, by its index in the lowerer's
    /// table of size expressions, evaluated when the declaration runs.
    Variable(usize),
    /// No length given (`int a[] = {...}`, or a parameter).
    Unspecified,
}

impl CType {
    /// A pointer to `t`.
    pub(crate) fn pointer_to(t: CType) -> CType {
        CType::Ptr(Box::new(t))
    }

    /// The type of a function returning `ret` with parameters `params`.
    pub(crate) fn function(ret: CType, params: Option<Vec<CType>>, variadic: bool) -> CType {
        CType::Func(Box::new(FunctionType {
            ret,
            params,
            variadic,
        }))
    }

    /// The function type, if this is a pointer to a function (or a function type itself,
    /// which is used as the pointer it decays to).
    pub(crate) fn called_function(&self) -> Option<&FunctionType> {
        match self {
            CType::Func(f) => Some(f),
            CType::Ptr(t) => match &**t {
                CType::Func(f) => Some(f),
                _ => None,
            },
            _ => None,
        }
    }

    /// The pointee type, if this is a pointer.
    pub(crate) fn pointee(&self) -> Option<CType> {
        match self {
            CType::Ptr(t) => Some((**t).clone()),
            _ => None,
        }
    }

    /// The dimensions of an array type (outermost first) and its element type, which is not
    /// an array; `None` if the type is not an array.
    pub(crate) fn array_dims(&self) -> Option<(Vec<ArrayLen>, &CType)> {
        let mut dims = Vec::new();
        let mut t = self;
        while let CType::Array(elem, len) = t {
            dims.push(len.clone());
            t = elem;
        }
        (!dims.is_empty()).then_some((dims, t))
    }
}

/// The value and type C gives an integer constant (C11 6.4.4.1), or `None` if it fits no type.
pub(crate) fn integer_constant(c: &Integer, model: DataModel) -> Option<(i128, IntType)> {
    let radix = match c.base {
        IntegerBase::Decimal => 10,
        IntegerBase::Octal => 8,
        IntegerBase::Hexadecimal => 16,
        IntegerBase::Binary => 2,
    };
    let digits: String = c.number.chars().filter(|ch| *ch != '\'').collect();
    let digits = match c.base {
        IntegerBase::Hexadecimal => digits
            .trim_start_matches("0x")
            .trim_start_matches("0X")
            .to_string(),
        IntegerBase::Binary => digits
            .trim_start_matches("0b")
            .trim_start_matches("0B")
            .to_string(),
        _ => digits,
    };
    let value = if digits.is_empty() {
        0
    } else {
        u128::from_str_radix(&digits, radix).ok()?
    };
    let value = i128::try_from(value).ok()?;
    let decimal = matches!(c.base, IntegerBase::Decimal);
    let (int, uint, long, ulong, llong, ullong) = (
        IntType::INT,
        IntType::UINT,
        model.long(),
        model.ulong(),
        IntType::LLONG,
        IntType::ULLONG,
    );
    let candidates: Vec<IntType> = match (c.suffix.size, c.suffix.unsigned, decimal) {
        (IntegerSize::Int, false, true) => vec![int, long, llong],
        (IntegerSize::Int, false, false) => vec![int, uint, long, ulong, llong, ullong],
        (IntegerSize::Int, true, _) => vec![uint, ulong, ullong],
        (IntegerSize::Long, false, true) => vec![long, llong],
        (IntegerSize::Long, false, false) => vec![long, ulong, llong, ullong],
        (IntegerSize::Long, true, _) => vec![ulong, ullong],
        (IntegerSize::LongLong, false, true) => vec![llong],
        (IntegerSize::LongLong, false, false) => vec![llong, ullong],
        (IntegerSize::LongLong, true, _) => vec![ullong],
    };
    candidates
        .into_iter()
        .find(|t| t.contains(value))
        .map(|t| (value, t))
}

/// The bit pattern and type C gives a floating-point constant (C11 6.4.4.2): `double`, `float`
/// with suffix `f`, `long double` (of the data model `model`) with suffix `l`, rounded to
/// nearest. `Err(Some(what))` names what Baton does not model (an imaginary or `_FloatN`
/// constant); `Err(None)`: the text is malformed.
pub(crate) fn float_constant(c: &Float, model: DataModel) -> Result<(i128, IntType), Option<&'static str>> {
    if c.suffix.imaginary {
        return Err(Some("imaginary constant"));
    }
    let ty = match c.suffix.format {
        FloatFormat::Float => IntType::FLOAT,
        FloatFormat::Double => IntType::DOUBLE,
        FloatFormat::LongDouble => model.long_double(),
        FloatFormat::TS18661Format(_) => return Err(Some("_FloatN constant")),
    };
    let text = match c.base {
        FloatBase::Decimal => c.number.to_string(),
        FloatBase::Hexadecimal => {
            let digits = c.number.trim_start_matches("0x").trim_start_matches("0X");
            format!("0x{digits}")
        }
    };
    float::parse_literal(&text, ty).map(|bits| (bits, ty)).ok_or(None)
}

/// The value of a character constant such as `'a'`, `'\n'`, `'\x41'` or `'\101'` (type `int`;
/// plain `char` is signed, so `'\xff'` is -1 as with gcc on x86). `None` for multi-character
/// and wide constants.
pub(crate) fn character_constant(text: &str) -> Option<i128> {
    let inner = text.strip_prefix('\'')?.strip_suffix('\'')?;
    let value: i128 = if let Some(esc) = inner.strip_prefix('\\') {
        let first = esc.chars().next()?;
        let simple = |v: i128| if esc.len() == 1 { Some(v) } else { None };
        match first {
            'n' => simple(10)?,
            't' => simple(9)?,
            'r' => simple(13)?,
            'a' => simple(7)?,
            'b' => simple(8)?,
            'f' => simple(12)?,
            'v' => simple(11)?,
            'e' => simple(27)?,
            '\\' | '\'' | '"' | '?' => simple(first as i128)?,
            '0'..='7' if esc.len() <= 3 => i128::from_str_radix(esc, 8).ok()?,
            'x' if esc.len() > 1 => i128::from_str_radix(&esc[1..], 16).ok()?,
            _ => return None,
        }
    } else {
        let mut chars = inner.chars();
        let c = chars.next()?;
        if chars.next().is_some() || !c.is_ascii() {
            return None;
        }
        c as i128
    };
    if !(0..=255).contains(&value) {
        return None;
    }
    Some(IntType::CHAR.normalize(value))
}

/// The bytes of a (possibly concatenated) narrow string literal with its terminating NUL, as
/// `char` values; `None` for wide or UTF-8 literals and malformed escapes.
pub(crate) fn string_literal(parts: &[String]) -> Option<Vec<i128>> {
    let mut out = Vec::new();
    for part in parts {
        let inner = part.strip_prefix('"')?.strip_suffix('"')?;
        let mut chars = inner.chars().peekable();
        while let Some(c) = chars.next() {
            let mut token = String::from(c);
            if c == '\\' {
                let e = chars.next()?;
                token.push(e);
                let more = |ch: &char| match e {
                    '0'..='7' => ch.is_digit(8),
                    'x' => ch.is_ascii_hexdigit(),
                    _ => false,
                };
                let limit = if e == 'x' { usize::MAX } else { 2 };
                let mut taken = 0;
                while taken < limit && chars.peek().is_some_and(more) {
                    token.push(chars.next()?);
                    taken += 1;
                }
            }
            out.push(character_constant(&format!("'{token}'"))?);
        }
    }
    out.push(0);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lang_c::ast::IntegerSuffix;

    #[test]
    fn string_literals_decode_escapes() {
        let parts = ["\"a\\n\\x41\\101\"".to_string(), "\"\\0z\"".to_string()];
        assert_eq!(string_literal(&parts), Some(vec![97, 10, 65, 65, 0, 122, 0]));
        assert_eq!(string_literal(&["L\"a\"".to_string()]), None);
        assert_eq!(string_literal(&["\"\\xff\"".to_string()]), Some(vec![-1, 0]));
    }

    fn int(base: IntegerBase, number: &str, size: IntegerSize, unsigned: bool) -> Integer {
        Integer {
            base,
            number: number.into(),
            suffix: IntegerSuffix {
                size,
                unsigned,
                imaginary: false,
            },
        }
    }

    #[test]
    fn constant_types_follow_c11() {
        let m = DataModel::ILP32;
        let d = |n: &str| integer_constant(&int(IntegerBase::Decimal, n, IntegerSize::Int, false), m);
        let h = |n: &str| integer_constant(&int(IntegerBase::Hexadecimal, n, IntegerSize::Int, false), m);
        assert_eq!(d("5"), Some((5, IntType::INT)));
        assert_eq!(d("2147483648"), Some((2147483648, IntType::LLONG)));
        assert_eq!(d("4294967295"), Some((4294967295, IntType::LLONG)));
        assert_eq!(h("FFFFFFFF"), Some((4294967295, IntType::UINT)));
        assert_eq!(h("7fffffff"), Some((2147483647, IntType::INT)));
        assert_eq!(h("100000000"), Some((1 << 32, IntType::LLONG)));
        let u = integer_constant(&int(IntegerBase::Decimal, "1", IntegerSize::Long, true), m);
        assert_eq!(u, Some((1, IntType::UINT)));
        let lp = integer_constant(
            &int(IntegerBase::Decimal, "2147483648", IntegerSize::Int, false),
            DataModel::LP64,
        );
        assert_eq!(lp, Some((2147483648, IntType::LLONG)));
        let o = integer_constant(&int(IntegerBase::Octal, "017", IntegerSize::Int, false), m);
        assert_eq!(o, Some((15, IntType::INT)));
    }

    #[test]
    fn character_constants() {
        assert_eq!(character_constant("'a'"), Some(97));
        assert_eq!(character_constant("'\\n'"), Some(10));
        assert_eq!(character_constant("'\\0'"), Some(0));
        assert_eq!(character_constant("'\\x41'"), Some(65));
        assert_eq!(character_constant("'\\101'"), Some(65));
        assert_eq!(character_constant("'\\xff'"), Some(-1));
        assert_eq!(character_constant("'\\''"), Some(39));
        assert_eq!(character_constant("'ab'"), None);
    }
}
