//! Pointers in the memory model: where objects live and what an address points to.
//!
//! A pointer value is an unsigned integer of pointer width ([`DataModel::pointer`](super::types::DataModel::pointer)), as in C:
//! copies, comparisons, conversions and arithmetic (scaled by the frontend) are integer
//! operations, so every layer already agrees on them. What an address *means* is a
//! [`Pointer`]: an object and a byte offset into it, or null (address 0). Objects are
//! - named variables whose address the program takes (`&x`, `&a[i]`, an array decaying to a
//!   pointer): each gets a fixed address when the frontend first takes it
//!   ([`Variable::address`](super::Variable)), from [`STATIC_BASE`] upwards;
//! - functions whose address the program takes (`&f`, `f` as a value): each gets a fixed
//!   address of a one-byte object from the same space as variables, with no storage — a read
//!   or write through it is undefined behaviour; the CFA names it only in the expressions
//!   that take it ([`ExprKind::Function`](super::expr::ExprKind));
//! - heap blocks (`malloc`, `calloc`, `realloc`, `alloca`): addresses from [`HEAP_BASE`]
//!   upwards in allocation order, never reused, so a pointer into a freed block stays
//!   recognisable as dangling.
//!
//! Objects are placed [`OBJECT_ALIGN`]-aligned with at least [`OBJECT_GAP`] bytes between
//! them: a pointer one past the end of an object never equals the start of the next one, as
//! in C. The absolute numbers are Baton's, not gcc's; a program that looks at them (a pointer
//! converted to an integer and printed, relational comparison of pointers into different
//! objects) has no single C meaning.
//!
//! A struct in a heap block has no variables of its own: its members are the block's bytes at
//! the offsets of gcc's layout ([`super::memory::record_layout`]), which the frontend adds to
//! the block's address. A named struct is flattened into one variable per scalar member (its
//! *leaves*); when the program takes the address of one of them, every leaf is placed at its
//! offset in gcc's layout inside one object ([`RecordObject`]), so differences, comparisons
//! and arithmetic between member addresses (`(char *)&r.b - (char *)&r.a`,
//! `(char *)&r.a + 4`) give gcc's values. A named struct (or array of structs, or
//! variable-length array) whose address is taken as a whole, or an array of structs one of
//! whose members' address is taken (its leaves are arrays over the elements, not gcc's
//! layout), is a block of its own instead ([`super::AllocKind::Automatic`], made by its
//! declaration), with the same layout.

use super::types::IntType;
use super::{Program, VarId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The address of the first static object.
pub const STATIC_BASE: u64 = 0x1000;
/// The address of the first heap block; static objects end below it.
pub const HEAP_BASE: u64 = 0x4000_0000;
/// The alignment of every object's start.
pub const OBJECT_ALIGN: u64 = 16;
/// The fewest bytes between one object's end and the next one's start.
pub const OBJECT_GAP: u64 = 16;

/// The leaves of a flattened struct variable laid out as one object: each leaf's
/// [`Variable::address`](super::Variable) is the object's start plus the leaf's offset in
/// gcc's layout of the struct. The C emitter declares them as one C struct with that layout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordObject {
    /// The leaves in declaration order (the first one at offset 0).
    pub members: Vec<VarId>,
    /// `sizeof` the struct.
    pub size: u64,
}

/// The object an address points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Object {
    /// A named variable (scalar or array).
    Var(VarId),
    /// The heap block of this number (0 for the first allocation of a run).
    Heap(u32),
}

/// What a non-null address means: a byte offset into an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pointer {
    pub object: Object,
    pub offset: u64,
}

/// The next free address after an object of `size` bytes placed at the first aligned
/// address at or after `next`: `(start, next)`, or `None` if it does not fit below `limit`.
pub fn place(next: u64, size: u64, limit: u64) -> Option<(u64, u64)> {
    let start = next.checked_next_multiple_of(OBJECT_ALIGN)?;
    let end = start.checked_add(size.max(1))?.checked_add(OBJECT_GAP)?;
    (end <= limit).then_some((start, end))
}

/// The size in bytes of a variable as an object: its type's size, or its whole array's size
/// (`None` for a variable-length array, which has no static address).
pub fn variable_size(program: &Program, var: VarId) -> Option<u64> {
    let v = program.variable(var);
    match &v.array {
        None => Some(u64::from(v.ty.size_bytes())),
        Some(shape) => shape.size_bytes(v.ty),
    }
}

/// The named objects of a program whose address is taken, by address: decodes an address
/// into a variable and an offset.
#[derive(Debug, Clone, Default)]
pub struct StaticObjects {
    /// (start, size, variable), sorted by start.
    objects: Vec<(u64, u64, VarId)>,
    /// (start, size) of every [`RecordObject`], sorted by start.
    records: Vec<(u64, u64)>,
    /// The addresses of the functions whose address the program takes.
    functions: BTreeSet<u64>,
}

impl StaticObjects {
    /// The address-taken variables of `program`.
    pub fn of(program: &Program) -> StaticObjects {
        let mut objects: Vec<(u64, u64, VarId)> = program
            .variables
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let var = VarId(i as u32);
                Some((v.address?, variable_size(program, var)?, var))
            })
            .collect();
        objects.sort_unstable();
        let mut functions = BTreeSet::new();
        for e in &program.edges {
            e.op.for_each_expr(&mut |x| {
                x.for_each_function(&mut |a| {
                    functions.insert(a);
                })
            });
        }
        let mut records: Vec<(u64, u64)> = program
            .record_objects
            .iter()
            .filter_map(|o| Some((program.variable(*o.members.first()?).address?, o.size)))
            .collect();
        records.sort_unstable();
        StaticObjects {
            objects,
            functions,
            records,
        }
    }

    /// True if `address` is the address of a function (which has no storage).
    pub fn is_function(&self, address: u64) -> bool {
        self.functions.contains(&address)
    }

    /// True if no variable's address is taken.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// The variables whose address is taken.
    pub fn vars(&self) -> impl Iterator<Item = VarId> + '_ {
        self.objects.iter().map(|o| o.2)
    }

    /// The variable whose bytes (or one-past-the-end position) `address` is in, with the
    /// offset and the variable's size.
    pub fn find(&self, address: u64) -> Option<(VarId, u64, u64)> {
        let i = self.objects.partition_point(|o| o.0 <= address);
        let &(start, size, var) = self.objects.get(i.checked_sub(1)?)?;
        let offset = address - start;
        (offset <= size).then_some((var, offset, size))
    }

    /// What an access of `len` bytes at `address` that is not inside one variable reaches, if
    /// it lies inside a struct whose leaves are laid out as one object ([`RecordObject`]):
    /// several members, or padding. C allows that (through `char`, say), and Baton does not
    /// model a struct's bytes, so such an access is unmodelled rather than undefined.
    pub fn across_members(&self, address: u64, len: u64) -> Option<String> {
        let i = self.records.partition_point(|r| r.0 <= address);
        let &(start, size) = self.records.get(i.checked_sub(1)?)?;
        let end = address.checked_add(len)?;
        (end <= start.checked_add(size)?)
            .then(|| "access through a pointer across the members of a struct or into its padding".into())
    }
}

/// Where an access of `ty` at `offset` lands in a variable of element type `element` and
/// `size` bytes: the flat element index, if the access is one whole element (for a scalar
/// variable: offset 0 and the variable's own size).
pub fn element_at(offset: u64, ty: IntType, element: IntType, size: u64) -> Option<u64> {
    let width = u64::from(element.size_bytes());
    (ty.size_bytes() == element.size_bytes()
        && offset.is_multiple_of(width)
        && offset.checked_add(width)? <= size)
        .then(|| offset / width)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_are_aligned_and_apart() {
        let (a, next) = place(STATIC_BASE, 4, HEAP_BASE).unwrap();
        assert_eq!(a, STATIC_BASE);
        let (b, _) = place(next, 8, HEAP_BASE).unwrap();
        assert_eq!(b % OBJECT_ALIGN, 0);
        // One past the end of `a` is not `b`.
        assert!(a + 4 < b);
        assert_eq!(place(HEAP_BASE - 8, 64, HEAP_BASE), None);
    }

    #[test]
    fn accesses_must_hit_whole_elements() {
        assert_eq!(element_at(8, IntType::INT, IntType::INT, 40), Some(2));
        assert_eq!(element_at(6, IntType::INT, IntType::INT, 40), None);
        assert_eq!(element_at(40, IntType::INT, IntType::INT, 40), None);
        assert_eq!(element_at(0, IntType::CHAR, IntType::INT, 4), None);
        assert_eq!(element_at(0, IntType::FLOAT, IntType::INT, 4), Some(0));
    }
}
