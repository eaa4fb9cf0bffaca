//! Memory as bytes: what the C library's memory and string functions ([`super::library`]) see.
//!
//! Baton's memory holds typed values (array elements of named objects, cells of heap blocks,
//! see [`super::heap`]); `memcpy` and its kin work on the bytes under them. A value's bytes
//! are its normalised bits in little-endian order, as on x86 in both data models (a float's
//! value is its bit pattern, see [`super::types`]), so splitting a value into bytes and
//! composing bytes into a value are exact. A range of memory is read as [`Piece`]s: values
//! lying wholly inside the range keep their type (a `memcpy` of a struct copies its members
//! as they are), everything else is bytes. Composing a value from bytes that are not all known
//! gives an unknown value where the cell kind has one (the explicit analysis), and never a
//! made-up one: bytes never written (indeterminate) say so, and a `_Bool` made of a byte other
//! than 0 or 1 (a trap representation to gcc) is [`Fault::Unmodelled`].

use super::heap::{CellValue, Fault};
use super::types::IntType;

/// One byte of memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Byte {
    Known(u8),
    /// Any byte (analysis only).
    Unknown,
    /// Never written since its object was made without a value (`malloc`): indeterminate.
    Uninitialized,
}

/// A part of a range of memory, at an offset from the range's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<V> {
    /// A value of type `ty` stored whole at `at`.
    Value { at: u64, ty: IntType, value: V },
    /// `len` bytes from `at` on, each of them `byte`.
    Bytes { at: u64, len: u64, byte: Byte },
}

impl<V: CellValue> Piece<V> {
    /// The offset of the first byte.
    pub fn at(&self) -> u64 {
        match self {
            Piece::Value { at, .. } | Piece::Bytes { at, .. } => *at,
        }
    }

    /// The number of bytes.
    pub fn size(&self) -> u64 {
        match self {
            Piece::Value { ty, .. } => u64::from(ty.size_bytes()),
            Piece::Bytes { len, .. } => *len,
        }
    }

    /// The byte `k` bytes after the piece's start.
    pub fn byte(&self, k: u64) -> Byte {
        match self {
            Piece::Value { value, .. } => byte_of(*value, k),
            Piece::Bytes { byte, .. } => *byte,
        }
    }
}

/// Byte `k` (0: the lowest) of a value.
pub fn byte_of<V: CellValue>(value: V, k: u64) -> Byte {
    match value.known() {
        Some(v) if k < 16 => Byte::Known(((v as u128) >> (8 * k)) as u8),
        Some(_) => Byte::Known(0),
        None => Byte::Unknown,
    }
}

/// What bytes compose to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Composed<V> {
    Value(V),
    /// Some byte was never written.
    Uninitialized,
}

/// The value of type `ty` whose bytes (lowest first, `ty`'s size of them) these are.
pub fn compose<V: CellValue>(
    bytes: impl IntoIterator<Item = Byte>,
    ty: IntType,
) -> Result<Composed<V>, Fault> {
    let mut raw: u128 = 0;
    let mut unknown = false;
    for (k, b) in bytes.into_iter().enumerate() {
        match b {
            Byte::Known(b) => raw |= u128::from(b) << (8 * k),
            Byte::Unknown => unknown = true,
            Byte::Uninitialized => return Ok(Composed::Uninitialized),
        }
    }
    if unknown {
        return V::unknown()
            .map(Composed::Value)
            .ok_or_else(|| Fault::Unmodelled("a value made of unknown bytes".into()));
    }
    if ty.is_bool() && raw > 1 {
        return Err(Fault::Unmodelled(
            "a _Bool made of a byte other than 0 or 1".into(),
        ));
    }
    Ok(Composed::Value(V::from_known(ty.normalize(raw as i128))))
}

/// The byte at offset `k` of a range read as `pieces` (sorted by offset, covering the range).
pub fn byte_in<V: CellValue>(pieces: &[Piece<V>], k: u64) -> Byte {
    let i = pieces.partition_point(|p| p.at() <= k);
    match i.checked_sub(1).map(|i| &pieces[i]) {
        Some(p) if k < p.at() + p.size() => p.byte(k - p.at()),
        _ => Byte::Unknown,
    }
}

/// The pieces of bytes `offset..offset + len` of an object made of elements of type
/// `element`, whose element `i` is `get(i)`: whole elements in the range keep their type.
pub fn element_pieces<V: CellValue>(
    element: IntType,
    offset: u64,
    len: u64,
    get: impl Fn(u64) -> V,
) -> Vec<Piece<V>> {
    let width = u64::from(element.size_bytes());
    let end = offset + len;
    let mut pieces = Vec::new();
    let mut pos = offset;
    while pos < end {
        let i = pos / width;
        let start = i * width;
        let value = get(i);
        if start == pos && start + width <= end {
            pieces.push(Piece::Value {
                at: pos - offset,
                ty: element,
                value,
            });
            pos += width;
        } else {
            // Part of an element: byte by byte.
            let stop = (start + width).min(end);
            for p in pos..stop {
                pieces.push(Piece::Bytes {
                    at: p - offset,
                    len: 1,
                    byte: byte_of(value, p - start),
                });
            }
            pos = stop;
        }
    }
    pieces
}

/// The elements (index, new value) that writing `pieces` over bytes `offset..offset + len`
/// of an object of elements of type `element` changes; `get(i)` is element `i` before. An
/// element only partly in the range keeps its other bytes. A byte never written (copied from
/// fresh `malloc` memory) cannot be stored in an element: [`Fault::Unmodelled`].
pub fn element_writes<V: CellValue>(
    element: IntType,
    offset: u64,
    len: u64,
    pieces: &[Piece<V>],
    get: impl Fn(u64) -> V,
) -> Result<Vec<(u64, V)>, Fault> {
    let width = u64::from(element.size_bytes());
    let end = offset + len;
    let mut writes = Vec::new();
    if len == 0 {
        return Ok(writes);
    }
    for i in offset / width..=(end - 1) / width {
        let start = i * width;
        // One piece that is exactly this element: its value, read as the element's type.
        let whole = pieces
            .iter()
            .find(|p| p.at() + offset == start && p.size() == width);
        let inside = start >= offset && start + width <= end && !element.is_bool();
        if let (true, Some(Piece::Value { value, .. })) = (inside, whole) {
            writes.push((i, value.normalize(element)));
            continue;
        }
        let old = get(i);
        let bytes = (start..start + width).map(|p| {
            if (offset..end).contains(&p) {
                byte_in(pieces, p - offset)
            } else {
                byte_of(old, p - start)
            }
        });
        match compose(bytes, element)? {
            Composed::Value(v) => writes.push((i, v)),
            Composed::Uninitialized => {
                return Err(Fault::Unmodelled(
                    "indeterminate bytes (never-written heap memory) copied into a variable".into(),
                ))
            }
        }
    }
    Ok(writes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_split_into_little_endian_bytes_and_back() {
        let v: i128 = IntType::INT.normalize(0x1234_5678);
        let bytes: Vec<Byte> = (0..4).map(|k| byte_of(v, k)).collect();
        assert_eq!(bytes[0], Byte::Known(0x78));
        assert_eq!(bytes[3], Byte::Known(0x12));
        assert_eq!(compose::<i128>(bytes, IntType::INT), Ok(Composed::Value(v)));
        // A byte pattern on an `int`: `memset(&x, 0xff, 4)` gives -1.
        let ff = [Byte::Known(0xff); 4];
        assert_eq!(compose::<i128>(ff, IntType::INT), Ok(Composed::Value(-1)));
        assert_eq!(
            compose::<i128>(ff, IntType::UINT),
            Ok(Composed::Value(0xffff_ffff))
        );
        // Negative values: two's complement bytes.
        assert_eq!(byte_of(-2i128, 1), Byte::Known(0xff));
        assert!(matches!(
            compose::<i128>([Byte::Known(2)], IntType::BOOL),
            Err(Fault::Unmodelled(_))
        ));
        assert_eq!(
            compose::<i128>([Byte::Known(1), Byte::Uninitialized], IntType::SHORT),
            Ok(Composed::Uninitialized)
        );
        assert_eq!(
            compose::<Option<i128>>([Byte::Known(1), Byte::Unknown], IntType::SHORT),
            Ok(Composed::Value(None))
        );
        assert!(matches!(
            compose::<i128>([Byte::Known(1), Byte::Unknown], IntType::SHORT),
            Err(Fault::Unmodelled(_))
        ));
    }

    #[test]
    fn element_ranges_keep_whole_elements_typed() {
        let a = [1i128, -1, 7];
        let pieces = element_pieces(IntType::INT, 2, 8, |i| a[i as usize]);
        // Two bytes of a[0], a[1] whole, two bytes of a[2].
        assert_eq!(pieces.len(), 5);
        assert_eq!(
            pieces[2],
            Piece::Value {
                at: 2,
                ty: IntType::INT,
                value: -1
            }
        );
        assert_eq!(byte_in(&pieces, 0), Byte::Known(0));
        assert_eq!(byte_in(&pieces, 6), Byte::Known(7));
        // Writing them one byte further: a[0] keeps its low 3 bytes, and so on.
        let writes = element_writes(IntType::INT, 3, 8, &pieces, |i| a[i as usize]).unwrap();
        assert_eq!(writes.len(), 3);
        assert_eq!(writes[0], (0, 1));
        assert_eq!(writes[1], (1, IntType::INT.normalize(0xffff_ff00)));
        // A whole value of another type of the same size is read as the element's type.
        let float = [Piece::Value {
            at: 0,
            ty: IntType::FLOAT,
            value: 0x3f80_0000i128,
        }];
        let writes = element_writes(IntType::INT, 4, 4, &float, |i| a[i as usize]).unwrap();
        assert_eq!(writes, vec![(1, 0x3f80_0000)]);
        let fresh = [Piece::Bytes {
            at: 0,
            len: 4,
            byte: Byte::Uninitialized,
        }];
        assert!(matches!(
            element_writes::<i128>(IntType::INT, 0, 4, &fresh, |i| a[i as usize]),
            Err(Fault::Unmodelled(_))
        ));
    }
}
