//! The interpreter's heap: blocks from `malloc`, `calloc`, `realloc` and `alloca`, addressed
//! as [`super::super::address`] lays them out.
//!
//! A block holds typed cells keyed by byte offset: a write of a `T` at offset `o` replaces
//! every cell overlapping `o..o + sizeof(T)`; a read must meet one whole cell of the same
//! size (read as `T`: the same bits), or untouched bytes of a `calloc` block (zero).
//! Anything else is either undefined behaviour (outside the block, uninitialised `malloc`
//! memory, a freed block) or an access the cell model cannot express (reading part of a
//! cell, several cells as one value), which ends the run as [`Fault::Unmodelled`] rather
//! than giving a value C might not give.

use crate::cfa::address::{self, HEAP_BASE};
use crate::cfa::semantics::UndefinedBehavior;
use crate::cfa::types::IntType;
use std::collections::BTreeMap;

/// The most blocks one run may allocate.
pub const MAX_HEAP_BLOCKS: usize = 1 << 20;

/// Why a heap operation did not complete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    Undefined(UndefinedBehavior),
    /// C defines the access, the cell model does not represent it.
    Unmodelled(String),
    /// Out of blocks or of address space.
    Limit,
}

impl From<UndefinedBehavior> for Fault {
    fn from(what: UndefinedBehavior) -> Fault {
        Fault::Undefined(what)
    }
}

/// One heap block.
#[derive(Debug)]
struct Block {
    start: u64,
    size: u64,
    live: bool,
    /// Bytes never written read as zero (`calloc`).
    zeroed: bool,
    /// For an `alloca` block: the call depth of the function that made it.
    stack_depth: Option<usize>,
    /// offset -> (type, value normalised to it)
    cells: BTreeMap<u64, (IntType, i128)>,
}

/// Every block of a run, in allocation (and address) order.
#[derive(Debug)]
pub struct Heap {
    blocks: Vec<Block>,
    next: u64,
    /// One past the highest address a pointer of the data model can hold.
    limit: u64,
}

impl Heap {
    /// An empty heap for pointers of `pointer_bits` bits.
    pub fn new(pointer_bits: u8) -> Heap {
        Heap {
            blocks: Vec::new(),
            next: HEAP_BASE,
            limit: 1u64.checked_shl(u32::from(pointer_bits)).unwrap_or(u64::MAX),
        }
    }

    /// A new block of `size` bytes; `stack_depth` for `alloca`. Returns its address.
    pub fn allocate(&mut self, size: u64, zeroed: bool, stack_depth: Option<usize>) -> Result<u64, Fault> {
        if self.blocks.len() >= MAX_HEAP_BLOCKS {
            return Err(Fault::Limit);
        }
        let (start, next) = address::place(self.next, size, self.limit).ok_or(Fault::Limit)?;
        self.next = next;
        self.blocks.push(Block {
            start,
            size,
            live: true,
            zeroed,
            stack_depth,
            cells: BTreeMap::new(),
        });
        Ok(start)
    }

    /// The block `address` points into (or one past), with the offset.
    fn find(&self, address: u64) -> Option<(usize, u64)> {
        let i = self
            .blocks
            .partition_point(|b| b.start <= address)
            .checked_sub(1)?;
        let offset = address - self.blocks[i].start;
        (offset <= self.blocks[i].size).then_some((i, offset))
    }

    /// The live block and offset of an access of `width` bytes at `address`.
    fn access(&self, address: u64, width: u64) -> Result<(usize, u64), Fault> {
        let (i, offset) = self.find(address).ok_or(UndefinedBehavior::InvalidPointer)?;
        let block = &self.blocks[i];
        if !block.live {
            return Err(UndefinedBehavior::DanglingPointer.into());
        }
        if offset.checked_add(width).is_none_or(|end| end > block.size) {
            return Err(UndefinedBehavior::PointerOutOfBounds.into());
        }
        Ok((i, offset))
    }

    /// Reads a `ty` at `address`.
    pub fn read(&self, address: u64, ty: IntType) -> Result<i128, Fault> {
        let width = u64::from(ty.size_bytes());
        let (i, offset) = self.access(address, width)?;
        let block = &self.blocks[i];
        let end = offset + width;
        // The cell starting at or before the access, and any starting inside it.
        let before = block.cells.range(..=offset).next_back();
        let inside = block.cells.range(offset + 1..end).next();
        match (before, inside) {
            (Some((&at, &(cell_ty, value))), None)
                if at == offset && cell_ty.size_bytes() == ty.size_bytes() =>
            {
                Ok(ty.normalize(value))
            }
            (Some((&at, &(cell_ty, _))), _) if at + u64::from(cell_ty.size_bytes()) > offset => Err(
                Fault::Unmodelled("read of part of, or more than, a value stored in a heap block".into()),
            ),
            (_, Some(_)) => Err(Fault::Unmodelled(
                "read of part of, or more than, a value stored in a heap block".into(),
            )),
            _ if block.zeroed => Ok(0),
            _ => Err(UndefinedBehavior::UninitializedRead.into()),
        }
    }

    /// Writes `value` (normalised to `ty`) at `address`.
    pub fn write(&mut self, address: u64, ty: IntType, value: i128) -> Result<(), Fault> {
        let width = u64::from(ty.size_bytes());
        let (i, offset) = self.access(address, width)?;
        let block = &mut self.blocks[i];
        // A cell overwritten in part would leave bytes the cell model cannot name.
        // Cells are at most 16 bytes wide.
        let partial = block
            .cells
            .range(offset.saturating_sub(16)..offset + width)
            .any(|(&at, (t, _))| {
                at + u64::from(t.size_bytes()) > offset && (at, t.size_bytes()) != (offset, ty.size_bytes())
            });
        if partial {
            return Err(Fault::Unmodelled(
                "write over part of, or more than, a value stored in a heap block".into(),
            ));
        }
        block.cells.insert(offset, (ty, ty.normalize(value)));
        Ok(())
    }

    /// The block `address` starts, which must be live and from `malloc`/`calloc`/`realloc`.
    fn freeable(&self, address: u64) -> Result<usize, Fault> {
        match self.find(address) {
            Some((i, 0)) if self.blocks[i].stack_depth.is_none() => {
                if self.blocks[i].live {
                    Ok(i)
                } else {
                    Err(UndefinedBehavior::DoubleFree.into())
                }
            }
            _ => Err(UndefinedBehavior::InvalidFree.into()),
        }
    }

    /// `free(address)` for a non-null heap address.
    pub fn free(&mut self, address: u64) -> Result<(), Fault> {
        let i = self.freeable(address)?;
        let block = &mut self.blocks[i];
        block.live = false;
        block.cells.clear();
        Ok(())
    }

    /// `realloc(address, size)` for a non-null heap address: a new block with every cell of
    /// the old one that fits, the old one freed.
    pub fn reallocate(&mut self, address: u64, size: u64) -> Result<u64, Fault> {
        let i = self.freeable(address)?;
        if size == 0 {
            return Err(Fault::Unmodelled("realloc to size 0".into()));
        }
        let zeroed = self.blocks[i].zeroed;
        if zeroed && size > self.blocks[i].size {
            // The new bytes are indeterminate, the old untouched ones zero: not one flag.
            return Err(Fault::Unmodelled("realloc growing a calloc block".into()));
        }
        let start = self.allocate(size, zeroed, None)?;
        let old = std::mem::take(&mut self.blocks[i].cells);
        self.blocks[i].live = false;
        let new = self.blocks.last_mut().ok_or(Fault::Limit)?;
        new.cells = old
            .into_iter()
            .filter(|(at, (t, _))| at + u64::from(t.size_bytes()) <= size)
            .collect();
        Ok(start)
    }

    /// Frees the `alloca` blocks of calls deeper than `depth` (their function returned).
    pub fn end_frames_above(&mut self, depth: usize) {
        for block in self.blocks.iter_mut().rev() {
            if block.stack_depth.is_some_and(|d| d > depth) && block.live {
                block.live = false;
                block.cells.clear();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_read_back_whole() {
        let mut heap = Heap::new(32);
        let a = heap.allocate(8, false, None).unwrap();
        assert_eq!(
            heap.read(a, IntType::INT),
            Err(Fault::Undefined(UndefinedBehavior::UninitializedRead))
        );
        heap.write(a + 4, IntType::INT, -3).unwrap();
        assert_eq!(heap.read(a + 4, IntType::INT), Ok(-3));
        assert_eq!(heap.read(a + 4, IntType::UINT), Ok(4294967293));
        assert!(matches!(
            heap.read(a + 4, IntType::SHORT),
            Err(Fault::Unmodelled(_))
        ));
        assert!(matches!(
            heap.read(a + 2, IntType::INT),
            Err(Fault::Unmodelled(_))
        ));
        assert_eq!(
            heap.read(a + 8, IntType::INT),
            Err(Fault::Undefined(UndefinedBehavior::PointerOutOfBounds))
        );
        let z = heap.allocate(8, true, None).unwrap();
        assert_eq!(heap.read(z + 4, IntType::INT), Ok(0));
        // Between the blocks: no object.
        assert_eq!(
            heap.read(a + 12, IntType::INT),
            Err(Fault::Undefined(UndefinedBehavior::InvalidPointer))
        );
    }

    #[test]
    fn free_and_realloc() {
        let mut heap = Heap::new(32);
        let a = heap.allocate(8, false, None).unwrap();
        heap.write(a, IntType::INT, 7).unwrap();
        heap.write(a + 4, IntType::INT, 8).unwrap();
        let b = heap.reallocate(a, 4).unwrap();
        assert_eq!(heap.read(b, IntType::INT), Ok(7));
        assert_eq!(
            heap.read(a, IntType::INT),
            Err(Fault::Undefined(UndefinedBehavior::DanglingPointer))
        );
        assert_eq!(heap.free(a), Err(Fault::Undefined(UndefinedBehavior::DoubleFree)));
        assert_eq!(
            heap.free(b + 4),
            Err(Fault::Undefined(UndefinedBehavior::InvalidFree))
        );
        heap.free(b).unwrap();
        let s = heap.allocate(4, false, Some(2)).unwrap();
        assert_eq!(
            heap.free(s),
            Err(Fault::Undefined(UndefinedBehavior::InvalidFree))
        );
        heap.end_frames_above(1);
        assert_eq!(
            heap.write(s, IntType::INT, 1),
            Err(Fault::Undefined(UndefinedBehavior::DanglingPointer))
        );
    }
}
