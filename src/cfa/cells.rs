//! The contents of one heap block ([`super::heap`]): typed values and runs of equal bytes,
//! keyed by byte offset, over the block's [`Fill`] (what bytes never written hold).
//!
//! A write of a `T` at offset `o` stores one value entry over `o..o + sizeof(T)`; a run entry
//! is `n` bytes that all hold one byte (`memset`, and bytes copied from elsewhere without a
//! type of their own). Entries never overlap. A write over part of a value entry splits that
//! value into its bytes (single-byte runs) first, so every byte always has one meaning and
//! nothing a program can do is unrepresentable; a read of a `T` that is exactly one value
//! entry of `T`'s size is that value read as `T` (the same bits), any other read composes the
//! value from the bytes it covers ([`super::bytes`]). Runs equal to the fill are dropped and
//! equal neighbouring runs merged, so equal contents have equal entries (the explicit
//! analysis compares states by them).

use super::bytes::{byte_of, compose, Byte, Composed, Piece};
use super::heap::{CellValue, Fault};
use super::semantics::UndefinedBehavior;
use super::types::IntType;
use std::collections::BTreeMap;

/// What bytes never written (or set by a run) hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fill {
    /// Indeterminate (`malloc`): reading them is undefined behaviour.
    Uninitialized,
    /// This byte (0 for `calloc`; any byte after `memset`).
    Byte(u8),
    /// Anything (analysis only: a write through an unknown pointer may have reached them).
    Unknown,
}

impl Fill {
    /// Every byte zero (`calloc`).
    pub const ZERO: Fill = Fill::Byte(0);

    /// The byte each of these bytes is.
    pub fn byte(self) -> Byte {
        match self {
            Fill::Uninitialized => Byte::Uninitialized,
            Fill::Byte(b) => Byte::Known(b),
            Fill::Unknown => Byte::Unknown,
        }
    }

    /// The fill made of copies of `byte`.
    pub fn of(byte: Byte) -> Fill {
        match byte {
            Byte::Known(b) => Fill::Byte(b),
            Byte::Unknown => Fill::Unknown,
            Byte::Uninitialized => Fill::Uninitialized,
        }
    }
}

/// One entry of a block's contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Entry<V> {
    /// A value of this type (normalised to it).
    Value(IntType, V),
    /// This many bytes, each the fill's byte.
    Run(u64, Fill),
}

impl<V> Entry<V> {
    fn len(&self) -> u64 {
        match self {
            Entry::Value(ty, _) => u64::from(ty.size_bytes()),
            Entry::Run(n, _) => *n,
        }
    }
}

/// The contents of a block.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Contents<V> {
    fill: Fill,
    /// offset -> entry; entries do not overlap.
    entries: BTreeMap<u64, Entry<V>>,
}

impl<V: CellValue> Contents<V> {
    /// Contents where every byte holds `fill`.
    pub fn new(fill: Fill) -> Contents<V> {
        Contents {
            fill,
            entries: BTreeMap::new(),
        }
    }

    /// What bytes never written hold.
    pub fn fill(&self) -> Fill {
        self.fill
    }

    /// True if nothing was written.
    pub fn is_blank(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries overlapping `from..to`, by offset.
    fn overlapping(&self, from: u64, to: u64) -> Vec<(u64, Entry<V>)> {
        let before = self
            .entries
            .range(..from)
            .next_back()
            .filter(|(&at, e)| at + e.len() > from);
        let inside = self.entries.range(from..to);
        before
            .into_iter()
            .chain(inside)
            .map(|(&at, &e)| (at, e))
            .collect()
    }

    /// The byte at offset `at`.
    fn byte(&self, at: u64) -> Byte {
        match self.overlapping(at, at + 1).first() {
            Some((start, Entry::Value(_, v))) => byte_of(*v, at - start),
            Some((_, Entry::Run(_, fill))) => fill.byte(),
            None => self.fill.byte(),
        }
    }

    /// The value of a `ty` at `offset`.
    pub fn read(&self, offset: u64, ty: IntType) -> Result<V, Fault> {
        let width = u64::from(ty.size_bytes());
        let found = self.overlapping(offset, offset + width);
        if let [(at, Entry::Value(cell_ty, value))] = found.as_slice() {
            if *at == offset && cell_ty.size_bytes() == ty.size_bytes() && !ty.is_bool() {
                return Ok(value.normalize(ty));
            }
        }
        match compose((offset..offset + width).map(|p| self.byte(p)), ty)? {
            Composed::Value(v) => Ok(v),
            Composed::Uninitialized => Err(UndefinedBehavior::UninitializedRead.into()),
        }
    }

    /// True if `value` (a `ty`) is stored at `offset` as it would be written.
    pub fn holds(&self, offset: u64, ty: IntType, value: V) -> bool {
        self.entries.get(&offset) == Some(&Entry::Value(ty, value.normalize(ty)))
    }

    /// Writes a `ty` at `offset`.
    pub fn write(&mut self, offset: u64, ty: IntType, value: V) {
        if self.holds(offset, ty, value) {
            return;
        }
        let value = value.normalize(ty);
        let width = u64::from(ty.size_bytes());
        self.clear_range(offset, offset + width);
        self.entries.insert(offset, Entry::Value(ty, value));
        self.tidy_runs(offset, offset + width);
    }

    /// Sets `len` bytes from `offset` to `fill`.
    pub fn set_bytes(&mut self, offset: u64, len: u64, fill: Fill) {
        if len == 0 {
            return;
        }
        self.clear_range(offset, offset + len);
        self.entries.insert(offset, Entry::Run(len, fill));
        self.tidy_runs(offset, offset + len);
    }

    /// Bytes `offset..offset + len` as pieces: values wholly inside keep their type.
    pub fn pieces(&self, offset: u64, len: u64) -> Vec<Piece<V>> {
        let end = offset + len;
        let mut pieces = Vec::new();
        let mut pos = offset;
        let gap_to = |pieces: &mut Vec<Piece<V>>, pos: &mut u64, to: u64| {
            if to > *pos {
                pieces.push(Piece::Bytes {
                    at: *pos - offset,
                    len: to - *pos,
                    byte: self.fill.byte(),
                });
                *pos = to;
            }
        };
        for (at, entry) in self.overlapping(offset, end) {
            gap_to(&mut pieces, &mut pos, at);
            let stop = (at + entry.len()).min(end);
            match entry {
                Entry::Value(ty, value) if at >= offset && stop == at + entry.len() => {
                    pieces.push(Piece::Value {
                        at: at - offset,
                        ty,
                        value,
                    })
                }
                Entry::Value(_, value) => {
                    for p in pos..stop {
                        pieces.push(Piece::Bytes {
                            at: p - offset,
                            len: 1,
                            byte: byte_of(value, p - at),
                        });
                    }
                }
                Entry::Run(_, fill) => pieces.push(Piece::Bytes {
                    at: pos - offset,
                    len: stop - pos,
                    byte: fill.byte(),
                }),
            }
            pos = stop;
        }
        gap_to(&mut pieces, &mut pos, end);
        pieces
    }

    /// Writes `pieces` (of a range read with [`Contents::pieces`], in order) from `offset` on.
    pub fn write_pieces(&mut self, offset: u64, pieces: &[Piece<V>]) {
        for piece in pieces {
            match *piece {
                Piece::Value { at, ty, value } => self.write(offset + at, ty, value),
                Piece::Bytes { at, len, byte } => self.set_bytes(offset + at, len, Fill::of(byte)),
            }
        }
    }

    /// Makes every byte `fill`, as if nothing had been written.
    pub fn reset(&mut self, fill: Fill) {
        self.entries.clear();
        self.fill = fill;
    }

    /// The contents of the first `size` bytes (`realloc` to a smaller size): a value that
    /// does not fit keeps the bytes that do.
    pub fn truncated(&self, size: u64) -> Contents<V> {
        let mut kept = self.clone();
        kept.clear_range(size, u64::MAX);
        kept
    }

    /// Removes what lies in `from..to`: entries inside go, runs reaching out keep their parts
    /// outside, values reaching out are split into bytes first.
    fn clear_range(&mut self, from: u64, to: u64) {
        for (at, entry) in self.overlapping(from, to) {
            let end = at.saturating_add(entry.len());
            self.entries.remove(&at);
            let fill = match entry {
                Entry::Run(_, fill) => fill,
                Entry::Value(_, value) => {
                    // Keep the bytes outside the range, one run each.
                    for p in (at..from).chain(to..end) {
                        self.entries
                            .insert(p, Entry::Run(1, Fill::of(byte_of(value, p - at))));
                    }
                    continue;
                }
            };
            if at < from {
                self.entries.insert(at, Entry::Run(from - at, fill));
            }
            if end > to {
                self.entries.insert(to, Entry::Run(end - to, fill));
            }
        }
    }

    /// Merges runs with equal neighbours around `from..to` (and the bytes of a value split
    /// next to it) and drops runs equal to the fill.
    fn tidy_runs(&mut self, from: u64, to: u64) {
        // Values are at most 16 bytes wide: the bytes of one split are that close.
        let (from, to) = (from.saturating_sub(16), to.saturating_add(16));
        let start = self.entries.range(..from).next_back().map_or(from, |(&at, _)| at);
        let around: Vec<(u64, Entry<V>)> = self.entries.range(start..=to).map(|(&at, &e)| (at, e)).collect();
        let mut merged: Vec<(u64, Entry<V>)> = Vec::with_capacity(around.len());
        for (at, entry) in around {
            self.entries.remove(&at);
            match (merged.last_mut(), entry) {
                (Some((prev_at, Entry::Run(n, f))), Entry::Run(m, g)) if *prev_at + *n == at && *f == g => {
                    *n += m;
                }
                _ => merged.push((at, entry)),
            }
        }
        for (at, entry) in merged {
            if !matches!(entry, Entry::Run(_, f) if f == self.fill) {
                self.entries.insert(at, entry);
            }
        }
    }
}

/// The contents of the explicit-value analysis: values and bytes may be unknown.
impl Contents<Option<i128>> {
    /// `self ⊑ other`: every byte `other` knows, `self` knows alike, and every read that is
    /// undefined in `other` is in `self` too. Compared entry by entry (the same entries,
    /// `other`'s possibly unknown), or with `other` knowing nothing at all.
    pub fn less_or_equal(&self, other: &Contents<Option<i128>>) -> bool {
        if other.fill == Fill::Unknown && other.entries.is_empty() {
            return true;
        }
        let entry_le = |a: &Entry<Option<i128>>, b: &Entry<Option<i128>>| match (a, b) {
            (Entry::Value(ta, va), Entry::Value(tb, vb)) => ta == tb && (vb.is_none() || va == vb),
            (Entry::Run(na, fa), Entry::Run(nb, fb)) => na == nb && (fa == fb || *fb == Fill::Unknown),
            _ => false,
        };
        let fill_le = self.fill == other.fill || other.fill == Fill::Unknown;
        // Entries only `self` has are read in `other` as its fill, which must then be anything.
        let same_keys = self.entries.len() == other.entries.len() || other.fill == Fill::Unknown;
        fill_le
            && same_keys
            && other
                .entries
                .iter()
                .all(|(at, b)| self.entries.get(at).is_some_and(|a| entry_le(a, b)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_values_and_bytes() {
        let mut c: Contents<i128> = Contents::new(Fill::Uninitialized);
        c.write(4, IntType::INT, -3);
        assert_eq!(c.read(4, IntType::INT), Ok(-3));
        assert_eq!(c.read(4, IntType::UINT), Ok(4294967293));
        // Part of a value: its bytes (little-endian).
        assert_eq!(c.read(4, IntType::SHORT), Ok(-3));
        assert_eq!(c.read(6, IntType::SHORT), Ok(-1));
        // Bytes never written.
        assert_eq!(
            c.read(2, IntType::INT),
            Err(Fault::Undefined(UndefinedBehavior::UninitializedRead))
        );
        // Overwriting part of a value splits it into bytes.
        c.write(6, IntType::USHORT, 0);
        assert_eq!(c.read(4, IntType::INT), Ok(0xfffd));
        c.write(4, IntType::INT, 9);
        assert_eq!(c.entries.len(), 1);
    }

    #[test]
    fn runs_from_memset_are_read_as_patterns_and_tidied() {
        let mut c: Contents<i128> = Contents::new(Fill::Uninitialized);
        c.write(0, IntType::INT, 5);
        c.set_bytes(0, 16, Fill::Byte(0xff));
        assert_eq!(c.read(0, IntType::INT), Ok(-1));
        assert_eq!(c.read(12, IntType::UINT), Ok(0xffff_ffff));
        assert_eq!(c.entries.len(), 1);
        c.write(8, IntType::INT, 1);
        assert_eq!(c.read(4, IntType::INT), Ok(-1));
        assert_eq!(c.read(8, IntType::INT), Ok(1));
        assert_eq!(c.read(12, IntType::INT), Ok(-1));
        c.set_bytes(8, 4, Fill::Byte(0xff));
        assert_eq!(c.entries.len(), 1, "equal neighbouring runs merge");
        c.set_bytes(0, 16, Fill::Uninitialized);
        assert!(c.is_blank(), "runs equal to the fill are dropped");
    }

    #[test]
    fn pieces_keep_whole_values_typed() {
        let mut c: Contents<i128> = Contents::new(Fill::ZERO);
        c.write(0, IntType::INT, 7);
        c.write(4, IntType::CHAR, -1);
        c.write(8, IntType::DOUBLE, 0x4000_0000_0000_0000);
        let pieces = c.pieces(0, 16);
        assert_eq!(pieces.len(), 4, "{pieces:?}");
        let mut d: Contents<i128> = Contents::new(Fill::Uninitialized);
        d.write_pieces(16, &pieces);
        assert_eq!(d.read(16, IntType::INT), Ok(7));
        assert_eq!(d.read(20, IntType::CHAR), Ok(-1));
        // The padding bytes were zero.
        assert_eq!(d.read(21, IntType::CHAR), Ok(0));
        assert_eq!(d.read(24, IntType::DOUBLE), Ok(0x4000_0000_0000_0000));
        // A range splitting a value gives its bytes: two of the int, the char, a gap byte.
        let split = c.pieces(2, 4);
        assert_eq!(split.len(), 4);
        assert_eq!(d.entries.len(), 4);
        assert_eq!(c.truncated(2).read(0, IntType::SHORT), Ok(7));
    }

    #[test]
    fn analysis_contents_order_by_knowledge() {
        let mut a: Contents<Option<i128>> = Contents::new(Fill::Uninitialized);
        a.write(0, IntType::INT, Some(1));
        let mut b = a.clone();
        b.write(0, IntType::INT, None);
        assert!(a.less_or_equal(&b) && !b.less_or_equal(&a));
        assert_eq!(b.read(0, IntType::INT), Ok(None));
        let mut unknown = a.clone();
        unknown.reset(Fill::Unknown);
        assert!(a.less_or_equal(&unknown) && !unknown.less_or_equal(&a));
        assert_eq!(unknown.read(1, IntType::SHORT), Ok(None));
    }
}
