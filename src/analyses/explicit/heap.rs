//! Heap contents in the explicit-value analysis: the memory model's heap
//! ([`crate::cfa::heap`]) with cells whose values may be unknown.
//!
//! Along a path the analysis allocates blocks exactly as the interpreter does (same order,
//! same sizes, so the same addresses: a counterexample replays), frees them, and reads and
//! writes their cells through known addresses. What it does not know it says so: a block of
//! unknown size takes any offset (and the blocks after it have unknown addresses), a cell
//! written with an unknown value reads as unknown, and a write through an unknown pointer
//! makes every byte of every live block unknown ([`Heap::havoc`]). A `free` or `realloc`
//! through an unknown pointer frees nothing the analysis knows of: a block it keeps as live
//! may be gone, which only adds executions that have undefined behaviour.
//!
//! A state may also know nothing of the heap ([`KnownHeap::default`], as the predicate
//! analysis' known values after an abstraction): then every heap read is unknown, every
//! allocation has an unknown address, and writes and frees change nothing known.
//!
//! A known access that is certainly undefined (null, dangling, out of bounds, double or
//! invalid free, a read of uninitialised `malloc` memory) ends the path, as everywhere in
//! the analysis; an access the cell model cannot express gives up.

use super::pointers::Access;
use crate::cfa::bytes::{Byte, Piece};
use crate::cfa::heap::{Fault, Fill, Heap};
use crate::cfa::types::IntType;
use crate::cfa::AllocKind;

/// The heap of an explicit-value state (`None`: nothing known about it).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct KnownHeap(Option<Heap<Option<i128>>>);

/// What a heap fault means for the analysis.
fn access<T>(fault: Fault) -> Access<T> {
    match fault {
        Fault::Undefined(_) => Access::Undefined,
        Fault::Unmodelled(why) => Access::GiveUp(why),
        Fault::Limit => Access::GiveUp("heap exhausted (block count or address space)".into()),
    }
}

impl KnownHeap {
    /// The heap at program start: no block, for pointers of `pointer_bits` bits.
    pub fn empty(pointer_bits: u8) -> KnownHeap {
        KnownHeap(Some(Heap::new(pointer_bits)))
    }

    /// True if the heap is known and no block was allocated.
    pub fn is_empty(&self, pointer_bits: u8) -> bool {
        *self == KnownHeap::empty(pointer_bits)
    }

    /// The value of a `ty` read at the heap address `address`.
    pub fn load(&self, address: u64, ty: IntType) -> Access<Option<i128>> {
        let Some(heap) = &self.0 else {
            return Access::Done(None);
        };
        heap.read(address, ty).map_or_else(access, Access::Done)
    }

    /// The bytes `address..address + len` at a heap address, as pieces.
    pub fn pieces(&self, address: u64, len: u64) -> Result<Vec<Piece<Option<i128>>>, Fault> {
        match &self.0 {
            None => Ok(vec![Piece::Bytes {
                at: 0,
                len,
                byte: Byte::Unknown,
            }]),
            Some(heap) => heap.pieces(address, len),
        }
    }

    /// Writes the pieces of a range of `len` bytes at a heap address.
    pub fn write_pieces(
        &mut self,
        address: u64,
        len: u64,
        pieces: &[Piece<Option<i128>>],
    ) -> Result<(), Fault> {
        match &mut self.0 {
            None => Ok(()),
            Some(heap) => heap.write_pieces(address, len, pieces),
        }
    }

    /// A write of unknown extent into the block at `address` (see [`Heap::havoc_block`]).
    pub fn havoc_block(&mut self, address: u64) {
        if let Some(heap) = &mut self.0 {
            heap.havoc_block(address);
        }
    }

    /// Writes a `ty` (`None`: unknown) at the heap address `address`.
    pub fn store(&mut self, address: u64, ty: IntType, value: Option<i128>) -> Access<()> {
        match &mut self.0 {
            None => Access::Done(()),
            Some(heap) => heap.write(address, ty, value).map_or_else(access, Access::Done),
        }
    }

    /// A write through an unknown pointer may have changed every live block.
    pub fn havoc(&mut self) {
        if let Some(heap) = &mut self.0 {
            heap.havoc();
        }
    }

    /// A new block made by `kind` of `size` bytes (`None`: unknown); `from` is `realloc`'s
    /// pointer (`None`: unknown). Returns the block's address (`None`: unknown).
    pub fn allocate(
        &mut self,
        kind: &AllocKind,
        size: Option<i128>,
        from: Option<i128>,
    ) -> Access<Option<i128>> {
        let Some(heap) = &mut self.0 else {
            return Access::Done(None);
        };
        let size = match size.map(u64::try_from) {
            Some(Ok(n)) => Some(n),
            // The interpreter ends such a run at its memory limit: no counterexample.
            Some(Err(_)) => return Access::GiveUp("allocation of a negative size".into()),
            None => None,
        };
        let made = match kind {
            AllocKind::Malloc => heap.allocate(size, Fill::Uninitialized, None),
            AllocKind::Calloc => heap.allocate(size, Fill::ZERO, None),
            // The analysis does not count calls: the block stays live after its function
            // returns (an access then is undefined behaviour, so no execution is lost).
            AllocKind::Alloca => heap.allocate(size, Fill::Uninitialized, Some(usize::MAX)),
            // Read before written, it holds any value, as an uninitialised local does.
            AllocKind::Automatic => heap.allocate(size, Fill::Unknown, Some(usize::MAX)),
            AllocKind::Realloc { .. } => match from.map(u64::try_from) {
                Some(Ok(0)) => heap.allocate(size, Fill::Uninitialized, None),
                Some(Ok(a)) => heap.reallocate(a, size),
                Some(Err(_)) => return Access::Undefined,
                // Some block (or none) moves here: its contents are not known.
                None => heap.allocate(size, Fill::Unknown, None),
            },
        };
        match made {
            Ok(a) => Access::Done(a.map(i128::from)),
            Err(f) => access(f),
        }
    }

    /// `free(address)` (`None`: unknown) of a non-null address.
    pub fn free(&mut self, address: Option<i128>) -> Access<()> {
        let (Some(heap), Some(address)) = (&mut self.0, address) else {
            return Access::Done(());
        };
        let Ok(address) = u64::try_from(address) else {
            return Access::Undefined;
        };
        heap.free(address).map_or_else(access, Access::Done)
    }

    /// `self ⊑ other`: `other` knows nothing of the heap, or no more than `self`.
    pub fn less_or_equal(&self, other: &KnownHeap) -> bool {
        match (&self.0, &other.0) {
            (_, None) => true,
            (None, Some(_)) => false,
            (Some(a), Some(b)) => a.less_or_equal(b),
        }
    }
}
