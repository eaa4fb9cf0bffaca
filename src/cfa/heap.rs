//! Heap blocks of the memory model: `malloc`, `calloc`, `realloc` and `alloca` blocks, addressed
//! as [`super::address`] lays them out. One model for the concrete interpreter and the
//! explicit-value analysis, which differ only in what a cell holds ([`CellValue`]): a value,
//! or for the analysis a value that may be unknown.
//!
//! A block's contents ([`super::cells`]) are typed values and runs of equal bytes by byte
//! offset over its [`Fill`] (zero for `calloc`, indeterminate for `malloc`): a read of a `T`
//! that meets one whole value of `T`'s size reads it as `T` (the same bits), any other read
//! composes its value from the bytes it covers. Outside the block, in a freed block, or over
//! bytes never written of `malloc` memory an access is undefined behaviour.
//!
//! Allocation is deterministic: the n-th block of a run starts where [`address::place`] puts
//! it after the (n-1)-th, so an analysis that follows one path allocates at the addresses the
//! interpreter will when it replays the path. A block of unknown size (analysis only) is the
//! last one placed: the addresses of later blocks are unknown ([`Heap::allocate`] gives
//! `None`), and any address from the start of that block on falls into it.
//!
//! Blocks are shared between clones of a heap until one of them changes a block (copy on
//! write, in a persistent vector), so an analysis can keep one heap per state.

use super::address::{self, HEAP_BASE};
use super::bytes::Piece;
use super::cells::Contents;
pub use super::cells::Fill;
use super::semantics::UndefinedBehavior;
use super::types::IntType;
use std::fmt::Debug;
use std::hash::Hash;
use std::rc::Rc;

/// The most blocks one run (or one analysis path) may allocate.
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

/// What a cell holds: a concrete value (`i128`) or a value that may be unknown
/// (`Option<i128>`, `None` unknown).
pub trait CellValue: Copy + Eq + Hash + Debug {
    /// The value read (or stored) as `ty`: the same bits.
    fn normalize(self, ty: IntType) -> Self;
    /// The value, if it is known.
    fn known(self) -> Option<i128>;
    /// A known value.
    fn from_known(value: i128) -> Self;
    /// An unknown value, if this kind of cell can hold one.
    fn unknown() -> Option<Self>;
}

impl CellValue for i128 {
    fn normalize(self, ty: IntType) -> i128 {
        ty.normalize(self)
    }
    fn known(self) -> Option<i128> {
        Some(self)
    }
    fn from_known(value: i128) -> i128 {
        value
    }
    fn unknown() -> Option<i128> {
        None
    }
}

impl CellValue for Option<i128> {
    fn normalize(self, ty: IntType) -> Option<i128> {
        self.map(|v| ty.normalize(v))
    }
    fn known(self) -> Option<i128> {
        self
    }
    fn from_known(value: i128) -> Option<i128> {
        Some(value)
    }
    fn unknown() -> Option<Option<i128>> {
        Some(None)
    }
}

/// One heap block.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Block<V> {
    start: u64,
    /// `None`: unknown (analysis only).
    size: Option<u64>,
    live: bool,
    /// For an `alloca` block: the call depth of the function that made it.
    stack_depth: Option<usize>,
    contents: Contents<V>,
}

/// Every block of a run, in allocation (and address) order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Heap<V> {
    /// A persistent vector: a change copies one path of the tree, not every block.
    blocks: Rc<im::Vector<Rc<Block<V>>>>,
    /// Where the next block is placed; `None` after a block of unknown size.
    next: Option<u64>,
    /// One past the highest address a pointer of the data model can hold.
    limit: u64,
}

impl<V: CellValue> Heap<V> {
    /// An empty heap for pointers of `pointer_bits` bits.
    pub fn new(pointer_bits: u8) -> Heap<V> {
        Heap {
            blocks: Rc::new(im::Vector::new()),
            next: Some(HEAP_BASE),
            limit: 1u64.checked_shl(u32::from(pointer_bits)).unwrap_or(u64::MAX),
        }
    }

    /// A new block of `size` bytes (`None`: unknown) whose never-written bytes hold `fill`;
    /// `stack_depth` for `alloca`. Returns its address, `None` if it is unknown (a block of
    /// unknown size was placed before; the new block is not tracked).
    pub fn allocate(
        &mut self,
        size: Option<u64>,
        fill: Fill,
        stack_depth: Option<usize>,
    ) -> Result<Option<u64>, Fault> {
        if self.blocks.len() >= MAX_HEAP_BLOCKS {
            return Err(Fault::Limit);
        }
        let Some(next) = self.next else {
            return Ok(None);
        };
        let (start, after) = address::place(next, size.unwrap_or(0), self.limit).ok_or(Fault::Limit)?;
        self.next = size.map(|_| after);
        Rc::make_mut(&mut self.blocks).push_back(Rc::new(Block {
            start,
            size,
            live: true,
            stack_depth,
            contents: Contents::new(fill),
        }));
        Ok(Some(start))
    }

    /// The block `address` points into (or one past), with the offset.
    fn find(&self, address: u64) -> Option<(usize, u64)> {
        let i = match self.blocks.binary_search_by(|b| b.start.cmp(&address)) {
            Ok(i) => i,
            Err(i) => i.checked_sub(1)?,
        };
        let block = &self.blocks[i];
        let offset = address - block.start;
        block
            .size
            .is_none_or(|size| offset <= size)
            .then_some((i, offset))
    }

    /// The live block and offset of an access of `width` bytes at `address`.
    fn access(&self, address: u64, width: u64) -> Result<(usize, u64), Fault> {
        let (i, offset) = self.find(address).ok_or(UndefinedBehavior::InvalidPointer)?;
        let block = &self.blocks[i];
        if !block.live {
            return Err(UndefinedBehavior::DanglingPointer.into());
        }
        let end = offset
            .checked_add(width)
            .ok_or(UndefinedBehavior::PointerOutOfBounds)?;
        if block.size.is_some_and(|size| end > size) {
            return Err(UndefinedBehavior::PointerOutOfBounds.into());
        }
        Ok((i, offset))
    }

    /// Reads a `ty` at `address`.
    pub fn read(&self, address: u64, ty: IntType) -> Result<V, Fault> {
        let (i, offset) = self.access(address, u64::from(ty.size_bytes()))?;
        self.blocks[i].contents.read(offset, ty)
    }

    /// Writes `value` (normalised to `ty`) at `address`.
    pub fn write(&mut self, address: u64, ty: IntType, value: V) -> Result<(), Fault> {
        let (i, offset) = self.access(address, u64::from(ty.size_bytes()))?;
        // Writing what is there already copies no block.
        if !self.blocks[i].contents.holds(offset, ty, value) {
            self.block_mut(i).contents.write(offset, ty, value);
        }
        Ok(())
    }

    /// The bytes `address..address + len` of a live block, as pieces; the range must lie in
    /// the block.
    pub fn pieces(&self, address: u64, len: u64) -> Result<Vec<Piece<V>>, Fault> {
        let (i, offset) = self.access(address, len)?;
        Ok(self.blocks[i].contents.pieces(offset, len))
    }

    /// Writes `pieces` of a range of `len` bytes from `address` on; the range must lie in a
    /// live block.
    pub fn write_pieces(&mut self, address: u64, len: u64, pieces: &[Piece<V>]) -> Result<(), Fault> {
        let (i, offset) = self.access(address, len)?;
        if len > 0 {
            self.block_mut(i).contents.write_pieces(offset, pieces);
        }
        Ok(())
    }

    /// Block `i`, copied first if another heap shares it.
    fn block_mut(&mut self, i: usize) -> &mut Block<V> {
        Rc::make_mut(&mut Rc::make_mut(&mut self.blocks)[i])
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

    /// Ends block `i`: its contents are gone.
    fn end(&mut self, i: usize) {
        let block = self.block_mut(i);
        block.live = false;
        block.contents.reset(Fill::Uninitialized);
    }

    /// `free(address)` for a non-null heap address.
    pub fn free(&mut self, address: u64) -> Result<(), Fault> {
        let i = self.freeable(address)?;
        self.end(i);
        Ok(())
    }

    /// `realloc(address, size)` for a non-null heap address: a new block with every cell of
    /// the old one that fits, the old one freed. Returns the new block's address (`None`:
    /// unknown, see [`Heap::allocate`]).
    pub fn reallocate(&mut self, address: u64, size: Option<u64>) -> Result<Option<u64>, Fault> {
        let i = self.freeable(address)?;
        if size == Some(0) {
            return Err(Fault::Unmodelled("realloc to size 0".into()));
        }
        let old = Rc::clone(&self.blocks[i]);
        let fill = old.contents.fill();
        // Bytes beyond the old size are indeterminate: where the old block's untouched bytes
        // are not, they are a run of their own.
        let grown = match (old.size, size) {
            (Some(old), Some(new)) if new > old => Some((old, new - old)),
            (Some(_), Some(_)) => None,
            _ if fill == Fill::Uninitialized => None,
            _ => return Err(Fault::Unmodelled("realloc of a block of unknown size".into())),
        };
        let start = self.allocate(size, fill, None)?;
        self.end(i);
        if start.is_some() {
            let last = self.blocks.len() - 1;
            let mut contents = match size {
                Some(size) => old.contents.truncated(size),
                None => old.contents.clone(),
            };
            if let Some((from, len)) = grown {
                contents.set_bytes(from, len, Fill::Uninitialized);
            }
            self.block_mut(last).contents = contents;
        }
        Ok(start)
    }

    /// Frees the `alloca` blocks of calls deeper than `depth` (their function returned).
    pub fn end_frames_above(&mut self, depth: usize) {
        for i in (0..self.blocks.len()).rev() {
            let block = &self.blocks[i];
            if block.stack_depth.is_some_and(|d| d > depth) && block.live {
                self.end(i);
            }
        }
    }
}

/// The heap of the explicit-value analysis: cell values and block contents may be unknown.
impl Heap<Option<i128>> {
    /// A write through an unknown pointer: every byte of every live block may have changed.
    pub fn havoc(&mut self) {
        for i in 0..self.blocks.len() {
            let block = &self.blocks[i];
            if block.live && (block.contents.fill() != Fill::Unknown || !block.contents.is_blank()) {
                self.block_mut(i).contents.reset(Fill::Unknown);
            }
        }
    }

    /// A write of unknown extent into the block `address` points into: every byte of it may
    /// have changed. Nothing happens if `address` is in no live block.
    pub fn havoc_block(&mut self, address: u64) {
        if let Some((i, _)) = self.find(address).filter(|&(i, _)| self.blocks[i].live) {
            self.block_mut(i).contents.reset(Fill::Unknown);
        }
    }

    /// `self ⊑ other`: the same blocks at the same places, live alike, and every value a read
    /// of `other` gives (or every read of it that is undefined) `self` gives too.
    pub fn less_or_equal(&self, other: &Heap<Option<i128>>) -> bool {
        if Rc::ptr_eq(&self.blocks, &other.blocks) {
            return self.next == other.next;
        }
        self.next == other.next
            && self.blocks.len() == other.blocks.len()
            && self
                .blocks
                .iter()
                .zip(other.blocks.iter())
                .all(|(a, b)| Rc::ptr_eq(a, b) || block_less_or_equal(a, b))
    }
}

/// [`Heap::less_or_equal`] for one block.
fn block_less_or_equal(a: &Block<Option<i128>>, b: &Block<Option<i128>>) -> bool {
    let same_place = (a.start, a.size, a.live, a.stack_depth) == (b.start, b.size, b.live, b.stack_depth);
    same_place && a.contents.less_or_equal(&b.contents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_read_back_whole() {
        let mut heap: Heap<i128> = Heap::new(32);
        let a = heap
            .allocate(Some(8), Fill::Uninitialized, None)
            .unwrap()
            .unwrap();
        assert_eq!(
            heap.read(a, IntType::INT),
            Err(Fault::Undefined(UndefinedBehavior::UninitializedRead))
        );
        heap.write(a + 4, IntType::INT, -3).unwrap();
        assert_eq!(heap.read(a + 4, IntType::INT), Ok(-3));
        assert_eq!(heap.read(a + 4, IntType::UINT), Ok(4294967293));
        // Part of a value: its bytes.
        assert_eq!(heap.read(a + 4, IntType::SHORT), Ok(-3));
        // Partly never written.
        assert_eq!(
            heap.read(a + 2, IntType::INT),
            Err(Fault::Undefined(UndefinedBehavior::UninitializedRead))
        );
        assert_eq!(
            heap.read(a + 8, IntType::INT),
            Err(Fault::Undefined(UndefinedBehavior::PointerOutOfBounds))
        );
        let z = heap.allocate(Some(8), Fill::ZERO, None).unwrap().unwrap();
        assert_eq!(heap.read(z + 4, IntType::INT), Ok(0));
        let pieces = heap.pieces(a + 4, 4).unwrap();
        heap.write_pieces(z + 2, 4, &pieces).unwrap();
        assert_eq!(
            heap.write_pieces(z + 6, 4, &pieces),
            Err(Fault::Undefined(UndefinedBehavior::PointerOutOfBounds))
        );
        assert_eq!(heap.read(z + 2, IntType::INT), Ok(-3));
        assert_eq!(heap.read(z, IntType::SHORT), Ok(0));
        // Between the blocks: no object.
        assert_eq!(
            heap.read(a + 12, IntType::INT),
            Err(Fault::Undefined(UndefinedBehavior::InvalidPointer))
        );
    }

    #[test]
    fn free_and_realloc() {
        let mut heap: Heap<i128> = Heap::new(32);
        let a = heap
            .allocate(Some(8), Fill::Uninitialized, None)
            .unwrap()
            .unwrap();
        heap.write(a, IntType::INT, 7).unwrap();
        heap.write(a + 4, IntType::INT, 8).unwrap();
        let b = heap.reallocate(a, Some(4)).unwrap().unwrap();
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
        // A calloc block grown: the new bytes are indeterminate, the old ones still zero.
        let c = heap.allocate(Some(4), Fill::ZERO, None).unwrap().unwrap();
        let c = heap.reallocate(c, Some(8)).unwrap().unwrap();
        assert_eq!(heap.read(c, IntType::INT), Ok(0));
        assert_eq!(
            heap.read(c + 4, IntType::INT),
            Err(Fault::Undefined(UndefinedBehavior::UninitializedRead))
        );
        let s = heap
            .allocate(Some(4), Fill::Uninitialized, Some(2))
            .unwrap()
            .unwrap();
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

    #[test]
    fn clones_share_blocks_until_one_changes() {
        let mut heap: Heap<Option<i128>> = Heap::new(64);
        let a = heap
            .allocate(Some(8), Fill::Uninitialized, None)
            .unwrap()
            .unwrap();
        heap.write(a, IntType::INT, Some(1)).unwrap();
        let before = heap.clone();
        heap.write(a, IntType::INT, Some(1)).unwrap();
        assert!(Rc::ptr_eq(&before.blocks, &heap.blocks));
        heap.write(a + 4, IntType::INT, None).unwrap();
        assert_eq!(
            before.read(a + 4, IntType::INT),
            Err(Fault::Undefined(UndefinedBehavior::UninitializedRead))
        );
        assert_eq!(heap.read(a + 4, IntType::INT), Ok(None));
        // Knowing a value is below not knowing it; a different block layout is incomparable.
        assert!(before.less_or_equal(&before.clone()));
        assert!(!before.less_or_equal(&heap) && !heap.less_or_equal(&before));
        let mut more = heap.clone();
        more.write(a + 4, IntType::INT, Some(5)).unwrap();
        assert!(more.less_or_equal(&heap) && !heap.less_or_equal(&more));
        let mut havocked = more.clone();
        havocked.havoc();
        assert_eq!(havocked.read(a, IntType::INT), Ok(None));
        assert!(more.less_or_equal(&havocked) && !havocked.less_or_equal(&more));
        let mut bigger = more.clone();
        bigger.allocate(Some(4), Fill::ZERO, None).unwrap();
        assert!(!bigger.less_or_equal(&more) && !more.less_or_equal(&bigger));
    }

    #[test]
    fn a_block_of_unknown_size_is_the_last_placed() {
        let mut heap: Heap<Option<i128>> = Heap::new(64);
        let a = heap.allocate(None, Fill::Uninitialized, None).unwrap().unwrap();
        // Any offset is inside it (whether it is in bounds is unknown).
        heap.write(a + 1000, IntType::INT, Some(3)).unwrap();
        assert_eq!(heap.read(a + 1000, IntType::INT), Ok(Some(3)));
        assert_eq!(heap.allocate(Some(4), Fill::ZERO, None), Ok(None));
        heap.free(a).unwrap();
        assert_eq!(
            heap.read(a, IntType::INT),
            Err(Fault::Undefined(UndefinedBehavior::DanglingPointer))
        );
    }
}
