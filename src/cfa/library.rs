//! The C library functions Baton models (C11 7.24, `<string.h>`): what
//! [`Operation::Library`](super::Operation) edges do, for the concrete interpreter and the
//! explicit-value analysis alike.
//!
//! Each function works on memory as bytes ([`super::bytes`]) through [`Memory`], which the
//! interpreter and the analysis implement over their own named objects and heap. A range a
//! function reads or writes must lie wholly in one object (else undefined behaviour, as is a
//! null pointer even with a length of 0, C11 7.24.1p2); copies between overlapping objects are
//! undefined for `memcpy`, `strcpy`, `strncpy` and `strcat`; a string must end (a NUL byte)
//! inside its object. Writing into a string literal is undefined (the memory says so).
//!
//! The comparison functions return the difference of the first differing bytes as `unsigned
//! char`s (glibc's x86 implementations do); C fixes only the sign, and gcc folds calls on
//! constants to -1, 0 or 1, so the analyses take only `0` as exact (see
//! [`LibFunction::exact_result`]).
//!
//! With values that may be unknown (the analysis), a function stops with [`Stop::Unknown`]
//! where it would need one: the caller then forgets what the function may write.

use super::bytes::{Byte, Piece};
use super::heap::{CellValue, Fault};
use super::semantics::UndefinedBehavior;
use super::types::{DataModel, IntType};
use serde::{Deserialize, Serialize};

/// A library function of `<string.h>` that Baton models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LibFunction {
    Memset,
    Memcpy,
    Memmove,
    Memcmp,
    Strlen,
    Strcmp,
    Strncmp,
    Strcpy,
    Strncpy,
    Strcat,
    Strchr,
}

/// The C type of a parameter or result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LibType {
    /// A pointer (`void *`, `char *`, their `const` kinds).
    Pointer,
    /// `int`.
    Int,
    /// `size_t`.
    Size,
}

impl LibType {
    /// The CFA type of a value of this type.
    pub fn int_type(self, model: DataModel) -> IntType {
        match self {
            LibType::Pointer => model.pointer(),
            LibType::Int => IntType::INT,
            LibType::Size => model.ulong(),
        }
    }
}

impl LibFunction {
    /// Every modelled function.
    pub const ALL: [LibFunction; 11] = [
        LibFunction::Memset,
        LibFunction::Memcpy,
        LibFunction::Memmove,
        LibFunction::Memcmp,
        LibFunction::Strlen,
        LibFunction::Strcmp,
        LibFunction::Strncmp,
        LibFunction::Strcpy,
        LibFunction::Strncpy,
        LibFunction::Strcat,
        LibFunction::Strchr,
    ];

    /// The C name.
    pub fn name(self) -> &'static str {
        match self {
            LibFunction::Memset => "memset",
            LibFunction::Memcpy => "memcpy",
            LibFunction::Memmove => "memmove",
            LibFunction::Memcmp => "memcmp",
            LibFunction::Strlen => "strlen",
            LibFunction::Strcmp => "strcmp",
            LibFunction::Strncmp => "strncmp",
            LibFunction::Strcpy => "strcpy",
            LibFunction::Strncpy => "strncpy",
            LibFunction::Strcat => "strcat",
            LibFunction::Strchr => "strchr",
        }
    }

    /// The function called `name` (also gcc's `__builtin_` form).
    pub fn by_name(name: &str) -> Option<LibFunction> {
        let name = name.strip_prefix("__builtin_").unwrap_or(name);
        LibFunction::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The parameters' types.
    pub fn params(self) -> &'static [LibType] {
        use LibType::*;
        match self {
            LibFunction::Memset => &[Pointer, Int, Size],
            LibFunction::Memcpy | LibFunction::Memmove | LibFunction::Memcmp => &[Pointer, Pointer, Size],
            LibFunction::Strlen => &[Pointer],
            LibFunction::Strcmp | LibFunction::Strcpy | LibFunction::Strcat => &[Pointer, Pointer],
            LibFunction::Strncmp | LibFunction::Strncpy => &[Pointer, Pointer, Size],
            LibFunction::Strchr => &[Pointer, Int],
        }
    }

    /// The result's type.
    pub fn returns(self) -> LibType {
        match self {
            LibFunction::Memcmp | LibFunction::Strcmp | LibFunction::Strncmp => LibType::Int,
            LibFunction::Strlen => LibType::Size,
            _ => LibType::Pointer,
        }
    }

    /// True for the functions that write memory.
    pub fn writes(self) -> bool {
        matches!(
            self,
            LibFunction::Memset
                | LibFunction::Memcpy
                | LibFunction::Memmove
                | LibFunction::Strcpy
                | LibFunction::Strncpy
                | LibFunction::Strcat
        )
    }

    /// True if the result is exactly what every C implementation returns; the comparison
    /// functions fix only its sign, so only a result of 0 is exact for them.
    pub fn exact_result(self, result: i128) -> bool {
        self.returns() != LibType::Int || result == 0
    }

    /// The standard prototype, for C emission (`size_t` spelled for `model`).
    pub fn prototype(self, model: DataModel) -> String {
        let size = model.ulong().c_name(model);
        let name = self.name();
        match self {
            LibFunction::Memset => format!("void *{name}(void *, int, {size})"),
            LibFunction::Memcpy | LibFunction::Memmove => {
                format!("void *{name}(void *, const void *, {size})")
            }
            LibFunction::Memcmp => format!("int {name}(const void *, const void *, {size})"),
            LibFunction::Strlen => format!("{size} {name}(const char *)"),
            LibFunction::Strcmp => format!("int {name}(const char *, const char *)"),
            LibFunction::Strncmp => format!("int {name}(const char *, const char *, {size})"),
            LibFunction::Strcpy | LibFunction::Strcat => format!("char *{name}(char *, const char *)"),
            LibFunction::Strncpy => format!("char *{name}(char *, const char *, {size})"),
            LibFunction::Strchr => format!("char *{name}(const char *, int)"),
        }
    }

    /// The C type of parameter `i` as the emitter casts arguments to it.
    pub fn c_param(self, i: usize, model: DataModel) -> &'static str {
        match self.params().get(i) {
            Some(LibType::Pointer)
                if matches!(
                    self,
                    LibFunction::Memset | LibFunction::Memcpy | LibFunction::Memmove | LibFunction::Memcmp
                ) =>
            {
                "void *"
            }
            Some(LibType::Pointer) => "char *",
            Some(LibType::Int) => "int",
            Some(LibType::Size) | None => model.ulong().c_name(model),
        }
    }
}

/// The output functions Baton keeps as calls of functions without a body, which write no
/// program memory (C11 7.21.6.3, 7.21.7.8, 7.21.7.9, 7.21.10.4): name, prototype, and per
/// fixed parameter whether it is a (`const char *`) pointer.
pub const OUTPUT_FUNCTIONS: [(&str, &str, &[bool]); 4] = [
    ("printf", "int printf(const char *, ...)", &[true]),
    ("puts", "int puts(const char *)", &[true]),
    ("putchar", "int putchar(int)", &[false]),
    ("perror", "void perror(const char *)", &[true]),
];

/// Memory as a library function reads and writes it.
pub trait Memory {
    type V: CellValue;
    /// The bytes `address..address + len` as pieces; the range must lie in one object.
    fn read(&self, address: u64, len: u64) -> Result<Vec<Piece<Self::V>>, Fault>;
    /// Writes `pieces` (covering `0..len`) over `address..address + len`; the range must lie
    /// in one object that may be written.
    fn write(&mut self, address: u64, len: u64, pieces: &[Piece<Self::V>]) -> Result<(), Fault>;
}

/// Why a library function did not complete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    Fault(Fault),
    /// A value it needs (a pointer, a length, a byte that decides how far it goes) is
    /// unknown (analysis only).
    Unknown,
}

impl From<Fault> for Stop {
    fn from(f: Fault) -> Stop {
        Stop::Fault(f)
    }
}

impl From<UndefinedBehavior> for Stop {
    fn from(what: UndefinedBehavior) -> Stop {
        Stop::Fault(Fault::Undefined(what))
    }
}

/// Calls `function` with `args` (converted to its parameter types) on `memory`: its result,
/// the value of its return type.
pub fn call<M: Memory>(function: LibFunction, args: &[M::V], memory: &mut M) -> Result<M::V, Stop> {
    let params = function.params();
    if args.len() != params.len() {
        return Err(Fault::Unmodelled(format!("`{}` with {} arguments", function.name(), args.len())).into());
    }
    // A null pointer is undefined whatever the other arguments are.
    for (a, p) in args.iter().zip(params) {
        if *p == LibType::Pointer && a.known() == Some(0) {
            return Err(UndefinedBehavior::NullDereference.into());
        }
    }
    let known: Vec<i128> = args
        .iter()
        .map(|a| a.known())
        .collect::<Option<_>>()
        .ok_or(Stop::Unknown)?;
    let address =
        |i: usize| u64::try_from(known[i]).map_err(|_| Stop::from(UndefinedBehavior::InvalidPointer));
    let size =
        |i: usize| u64::try_from(known[i]).map_err(|_| Stop::from(UndefinedBehavior::PointerOutOfBounds));
    let pointer = |a: u64| Ok(M::V::from_known(i128::from(a)));
    let int = |v: i128| Ok(M::V::from_known(v));
    match function {
        LibFunction::Memset => {
            let (d, n) = (address(0)?, size(2)?);
            // The byte is the argument converted to `unsigned char`.
            let byte = Byte::Known(known[1] as u8);
            memory.write(d, n, &[Piece::Bytes { at: 0, len: n, byte }])?;
            pointer(d)
        }
        LibFunction::Memcpy | LibFunction::Memmove => {
            let (d, s, n) = (address(0)?, address(1)?, size(2)?);
            if function == LibFunction::Memcpy {
                no_overlap((d, n), (s, n))?;
            }
            copy(memory, d, s, n)?;
            pointer(d)
        }
        LibFunction::Memcmp => {
            let (a, b, n) = (address(0)?, address(1)?, size(2)?);
            let (x, y) = (memory.read(a, n)?, memory.read(b, n)?);
            for k in 0..n {
                let (p, q) = (
                    known_byte(super::bytes::byte_in(&x, k))?,
                    known_byte(super::bytes::byte_in(&y, k))?,
                );
                if p != q {
                    return int(i128::from(p) - i128::from(q));
                }
            }
            int(0)
        }
        LibFunction::Strlen => int(i128::from(string_length(memory, address(0)?, None)?)),
        LibFunction::Strcmp | LibFunction::Strncmp => {
            let (a, b) = (address(0)?, address(1)?);
            let limit = match function {
                LibFunction::Strncmp => size(2)?,
                _ => u64::MAX,
            };
            let mut k = 0;
            while k < limit {
                let p = known_byte(byte_at(memory, a, k)?)?;
                let q = known_byte(byte_at(memory, b, k)?)?;
                if p != q {
                    return int(i128::from(p) - i128::from(q));
                }
                if p == 0 {
                    break;
                }
                k += 1;
            }
            int(0)
        }
        LibFunction::Strcpy => {
            let (d, s) = (address(0)?, address(1)?);
            let n = string_length(memory, s, None)? + 1;
            no_overlap((d, n), (s, n))?;
            copy(memory, d, s, n)?;
            pointer(d)
        }
        LibFunction::Strncpy => {
            let (d, s, n) = (address(0)?, address(1)?, size(2)?);
            // At most `n` characters are read; the rest of the `n` written are NULs.
            let copied = string_length(memory, s, Some(n))?;
            no_overlap((d, n), (s, (copied + 1).min(n)))?;
            let mut pieces = memory.read(s, copied)?;
            if n > copied {
                pieces.push(Piece::Bytes {
                    at: copied,
                    len: n - copied,
                    byte: Byte::Known(0),
                });
            }
            memory.write(d, n, &pieces)?;
            pointer(d)
        }
        LibFunction::Strcat => {
            let (d, s) = (address(0)?, address(1)?);
            let end = string_length(memory, d, None)?;
            let n = string_length(memory, s, None)? + 1;
            no_overlap((d, end + n), (s, n))?;
            let at = d.checked_add(end).ok_or(UndefinedBehavior::PointerOutOfBounds)?;
            copy(memory, at, s, n)?;
            pointer(d)
        }
        LibFunction::Strchr => {
            let s = address(0)?;
            // The character is the argument converted to `char`.
            let c = known[1] as u8;
            let mut k = 0u64;
            loop {
                let b = known_byte(byte_at(memory, s, k)?)?;
                if b == c {
                    return pointer(s + k);
                }
                if b == 0 {
                    return int(0);
                }
                k += 1;
            }
        }
    }
}

/// Copies `n` bytes from `s` to `d` (all read before any is written).
fn copy<M: Memory>(memory: &mut M, d: u64, s: u64, n: u64) -> Result<(), Stop> {
    let pieces = memory.read(s, n)?;
    memory.write(d, n, &pieces)?;
    Ok(())
}

/// Copying between `a` and `b` (start, length) must not overlap.
fn no_overlap(a: (u64, u64), b: (u64, u64)) -> Result<(), Stop> {
    let overlap = a.1 > 0 && b.1 > 0 && a.0 < b.0.saturating_add(b.1) && b.0 < a.0.saturating_add(a.1);
    if overlap {
        return Err(UndefinedBehavior::OverlappingCopy.into());
    }
    Ok(())
}

/// The byte at `base + k`.
fn byte_at<M: Memory>(memory: &M, base: u64, k: u64) -> Result<Byte, Stop> {
    let at = base.checked_add(k).ok_or(UndefinedBehavior::PointerOutOfBounds)?;
    let pieces = memory.read(at, 1)?;
    Ok(super::bytes::byte_in(&pieces, 0))
}

/// The value of a byte a function must know to go on.
fn known_byte(b: Byte) -> Result<u8, Stop> {
    match b {
        Byte::Known(b) => Ok(b),
        Byte::Unknown => Err(Stop::Unknown),
        Byte::Uninitialized => Err(Fault::Unmodelled(
            "a string or memory comparison reading indeterminate bytes (never-written heap memory)".into(),
        )
        .into()),
    }
}

/// The length of the string at `s` (bytes before its NUL), or `limit` if no NUL comes before.
fn string_length<M: Memory>(memory: &M, s: u64, limit: Option<u64>) -> Result<u64, Stop> {
    let mut k = 0;
    while limit.is_none_or(|n| k < n) {
        if known_byte(byte_at(memory, s, k)?)? == 0 {
            return Ok(k);
        }
        k += 1;
    }
    Ok(k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::heap::{Fill, Heap};

    /// Memory of heap blocks only.
    struct Blocks(Heap<i128>);

    impl Memory for Blocks {
        type V = i128;
        fn read(&self, address: u64, len: u64) -> Result<Vec<Piece<i128>>, Fault> {
            self.0.pieces(address, len)
        }
        fn write(&mut self, address: u64, len: u64, pieces: &[Piece<i128>]) -> Result<(), Fault> {
            self.0.write_pieces(address, len, pieces)
        }
    }

    fn string(m: &mut Blocks, s: &[u8]) -> u64 {
        let a =
            m.0.allocate(Some(s.len() as u64), Fill::Uninitialized, None)
                .unwrap()
                .unwrap();
        for (k, &b) in s.iter().enumerate() {
            m.0.write(a + k as u64, IntType::CHAR, i128::from(b)).unwrap();
        }
        a
    }

    #[test]
    fn strings_are_measured_compared_and_copied() {
        let mut m = Blocks(Heap::new(32));
        let hi = string(&mut m, b"hi\0");
        let ho = string(&mut m, b"ho\0");
        let a = |x: u64| i128::from(x);
        assert_eq!(call(LibFunction::Strlen, &[a(hi)], &mut m), Ok(2));
        assert_eq!(
            call(LibFunction::Strcmp, &[a(hi), a(ho)], &mut m),
            Ok(i128::from(b'i') - i128::from(b'o'))
        );
        assert_eq!(call(LibFunction::Strncmp, &[a(hi), a(ho), 1], &mut m), Ok(0));
        assert_eq!(
            call(LibFunction::Strchr, &[a(hi), i128::from(b'i')], &mut m),
            Ok(a(hi + 1))
        );
        assert_eq!(
            call(LibFunction::Strchr, &[a(hi), i128::from(b'x')], &mut m),
            Ok(0)
        );
        assert_eq!(call(LibFunction::Strchr, &[a(hi), 0], &mut m), Ok(a(hi + 2)));
        let buf = m.0.allocate(Some(6), Fill::Uninitialized, None).unwrap().unwrap();
        call(LibFunction::Strcpy, &[a(buf), a(hi)], &mut m).unwrap();
        call(LibFunction::Strcat, &[a(buf), a(ho)], &mut m).unwrap();
        assert_eq!(call(LibFunction::Strlen, &[a(buf)], &mut m), Ok(4));
        // One more character does not fit.
        assert_eq!(
            call(LibFunction::Strcat, &[a(buf), a(ho)], &mut m),
            Err(UndefinedBehavior::PointerOutOfBounds.into())
        );
        // strncpy pads with NULs and does not terminate a full copy.
        call(LibFunction::Strncpy, &[a(buf), a(ho), 6], &mut m).unwrap();
        assert_eq!(m.0.read(buf + 5, IntType::CHAR), Ok(0));
        let unterminated = string(&mut m, b"abc");
        assert_eq!(
            call(LibFunction::Strlen, &[a(unterminated)], &mut m),
            Err(UndefinedBehavior::PointerOutOfBounds.into())
        );
        assert_eq!(
            call(
                LibFunction::Strncmp,
                &[a(unterminated), a(unterminated), 3],
                &mut m
            ),
            Ok(0)
        );
    }

    #[test]
    fn memory_functions_and_their_undefined_cases() {
        let mut m = Blocks(Heap::new(64));
        let a = m.0.allocate(Some(8), Fill::Uninitialized, None).unwrap().unwrap();
        let p = |x: u64| i128::from(x);
        call(LibFunction::Memset, &[p(a), 0x1ff, 8], &mut m).unwrap();
        assert_eq!(m.0.read(a + 4, IntType::INT), Ok(-1));
        m.0.write(a, IntType::INT, 5).unwrap();
        // Overlapping: memmove is fine, memcpy is not.
        assert_eq!(
            call(LibFunction::Memcpy, &[p(a + 2), p(a), 4], &mut m),
            Err(UndefinedBehavior::OverlappingCopy.into())
        );
        call(LibFunction::Memmove, &[p(a + 4), p(a), 4], &mut m).unwrap();
        assert_eq!(m.0.read(a + 4, IntType::INT), Ok(5));
        assert_eq!(call(LibFunction::Memcmp, &[p(a), p(a + 4), 4], &mut m), Ok(0));
        m.0.write(a + 4, IntType::INT, 6).unwrap();
        assert_eq!(call(LibFunction::Memcmp, &[p(a), p(a + 4), 4], &mut m), Ok(-1));
        assert_eq!(
            call(LibFunction::Memset, &[0, 0, 0], &mut m),
            Err(UndefinedBehavior::NullDereference.into())
        );
        assert_eq!(
            call(LibFunction::Memcmp, &[p(a), p(a + 4), 8], &mut m),
            Err(UndefinedBehavior::PointerOutOfBounds.into())
        );
        assert_eq!(
            LibFunction::by_name("__builtin_memcpy"),
            Some(LibFunction::Memcpy)
        );
        assert!(LibFunction::Strcmp.exact_result(0) && !LibFunction::Strcmp.exact_result(-1));
    }
}
