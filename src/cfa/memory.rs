//! The memory model of the CFA: array objects, their layout and their element addressing.
//!
//! An array is a program variable whose [`Variable::array`](super::Variable) gives its
//! dimensions; [`Variable::ty`](super::Variable) is then the element type. Elements are
//! addressed by one index per dimension (`a[i][j]`), each checked against its own extent as C
//! requires (`a[0][n]` is out of bounds even when `a[1][0]` exists). Elements are stored in
//! row-major order, as gcc lays them out, so the flat position of an element is the same in
//! every layer. Arrays are read by [`Operation::Load`](super::Operation) and written by
//! [`Operation::Store`](super::Operation) edges; expressions stay scalar.
//!
//! The interpreter, the analyses and the C emitter all use [`ArrayShape`] for sizes and
//! [`flat_index`] for addressing, so they cannot disagree on where an element lives.

use super::semantics::UndefinedBehavior;
use super::types::{DataModel, IntType};
use super::VarId;
use serde::{Deserialize, Serialize};

/// The length of one dimension of an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Extent {
    /// A constant length (`int a[10]`).
    Fixed(u64),
    /// A variable-length dimension (`int a[n]`): the length is the value `var` holds when the
    /// array's `Declare` edge executes. The frontend gives every such dimension its own
    /// variable, written once just before the declaration.
    Var(VarId),
}

/// The dimensions of an array variable and, for a global, its static initial elements.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ArrayShape {
    /// One extent per dimension, outermost first.
    pub dims: Vec<Extent>,
    /// Initial elements of a global array as (flat index, value), the value normalised to the
    /// element type; every other element of a global array is 0.
    pub initial: Vec<(u64, i128)>,
}

impl ArrayShape {
    /// The constant extents, if no dimension is variable.
    pub fn fixed_extents(&self) -> Option<Vec<u64>> {
        self.dims
            .iter()
            .map(|d| match d {
                Extent::Fixed(n) => Some(*n),
                Extent::Var(_) => None,
            })
            .collect()
    }

    /// `sizeof` of an array with elements of type `element`, if its size is constant (gcc's
    /// layout in both data models: elements back to back, no padding between them).
    pub fn size_bytes(&self, element: IntType) -> Option<u64> {
        let count = element_count(&self.fixed_extents()?)?;
        count.checked_mul(u64::from(element.size_bytes()))
    }

    /// The variables holding variable extents.
    pub fn extent_vars(&self) -> impl Iterator<Item = VarId> + '_ {
        self.dims.iter().filter_map(|d| match d {
            Extent::Var(v) => Some(*v),
            Extent::Fixed(_) => None,
        })
    }
}

/// The alignment gcc gives a scalar of type `ty` inside a struct: its size, except that the
/// i386 System V ABI (ILP32) aligns 8-byte scalars (`long long`, `double`) to 4 bytes.
pub fn member_alignment(ty: IntType, model: DataModel) -> u64 {
    let size = u64::from(ty.size_bytes());
    match model {
        DataModel::ILP32 => size.min(4),
        DataModel::LP64 => size,
    }
}

/// The byte layout of a struct whose members have these (size, alignment), in declaration
/// order, as gcc lays it out: each member at the next multiple of its alignment, the whole
/// padded to a multiple of the largest alignment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordLayout {
    /// The byte offset of each member.
    pub offsets: Vec<u64>,
    /// `sizeof` the struct (`None` on overflow).
    pub size: Option<u64>,
    /// The struct's alignment.
    pub align: u64,
}

/// Lays out a struct with members of these (size, alignment).
pub fn record_layout(members: &[(u64, u64)]) -> RecordLayout {
    let mut offsets = Vec::with_capacity(members.len());
    let mut end: Option<u64> = Some(0);
    let mut align = 1;
    for &(size, a) in members {
        let a = a.max(1);
        align = align.max(a);
        let start = end.and_then(|e| e.checked_next_multiple_of(a));
        offsets.push(start.unwrap_or(u64::MAX));
        end = start.and_then(|s| s.checked_add(size));
    }
    RecordLayout {
        offsets,
        size: end.and_then(|e| e.checked_next_multiple_of(align)),
        align,
    }
}

/// The number of elements of an array with these extents (`None` on overflow).
pub fn element_count(extents: &[u64]) -> Option<u64> {
    extents.iter().try_fold(1u64, |n, &e| n.checked_mul(e))
}

/// The row-major position of the element `index` (one value per dimension) in an array with
/// these extents; out-of-bounds if any index is outside `0..extent` of its dimension.
pub fn flat_index(extents: &[u64], index: &[i128]) -> Result<u64, UndefinedBehavior> {
    if extents.len() != index.len() {
        return Err(UndefinedBehavior::ArrayIndexOutOfBounds);
    }
    let mut flat: u64 = 0;
    for (&extent, &i) in extents.iter().zip(index) {
        if i < 0 || i >= i128::from(extent) {
            return Err(UndefinedBehavior::ArrayIndexOutOfBounds);
        }
        // In range: `flat * extent + i` is below the element count, which fits in u64.
        flat = flat * extent + i as u64;
    }
    Ok(flat)
}

/// The length a variable extent holding `value` gives: C requires it to be positive.
pub fn extent_from_value(value: i128) -> Result<u64, UndefinedBehavior> {
    if value <= 0 {
        return Err(UndefinedBehavior::ArraySizeNotPositive);
    }
    u64::try_from(value).map_err(|_| UndefinedBehavior::ArraySizeNotPositive)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_major_addressing_checks_each_dimension() {
        let ext = [3, 4];
        assert_eq!(flat_index(&ext, &[0, 0]), Ok(0));
        assert_eq!(flat_index(&ext, &[1, 2]), Ok(6));
        assert_eq!(flat_index(&ext, &[2, 3]), Ok(11));
        // `a[0][4]` is out of bounds although `a[1][0]` exists.
        assert!(flat_index(&ext, &[0, 4]).is_err());
        assert!(flat_index(&ext, &[3, 0]).is_err());
        assert!(flat_index(&ext, &[-1, 0]).is_err());
        assert!(flat_index(&ext, &[0]).is_err());
    }

    #[test]
    fn sizes_follow_gcc_layout() {
        let shape = ArrayShape {
            dims: vec![Extent::Fixed(3), Extent::Fixed(5)],
            initial: vec![],
        };
        assert_eq!(shape.size_bytes(IntType::INT), Some(60));
        assert_eq!(shape.size_bytes(IntType::CHAR), Some(15));
        assert_eq!(shape.size_bytes(IntType::LLONG), Some(120));
        let vla = ArrayShape {
            dims: vec![Extent::Var(VarId(0))],
            initial: vec![],
        };
        assert_eq!(vla.size_bytes(IntType::INT), None);
        assert_eq!(extent_from_value(0), Err(UndefinedBehavior::ArraySizeNotPositive));
        assert_eq!(extent_from_value(7), Ok(7));
    }

    #[test]
    fn records_are_padded_as_gcc_pads_them() {
        // struct { char c; double d; }: 12 bytes on i386, 16 on x86-64.
        for (model, size) in [(DataModel::ILP32, 12), (DataModel::LP64, 16)] {
            let d = IntType::DOUBLE;
            let l = record_layout(&[(1, 1), (8, member_alignment(d, model))]);
            assert_eq!(l.size, Some(size));
            assert_eq!(l.offsets, vec![0, size - 8]);
        }
        // struct { int a; char b; }: 8 bytes, aligned to 4.
        let l = record_layout(&[(4, 4), (1, 1)]);
        assert_eq!((l.size, l.align, l.offsets), (Some(8), 4, vec![0, 4]));
        // struct { short s; char c[3]; }: 6 bytes.
        assert_eq!(record_layout(&[(2, 2), (3, 1)]).size, Some(6));
    }
}
