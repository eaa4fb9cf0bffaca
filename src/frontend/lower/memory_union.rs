//! Unions with aggregate, pointer or `_Bool` members (`union { struct { short lo, hi; } parts;
//! int whole; char bytes[4]; }`), as driver and heap code uses them.
//!
//! Such a union cannot be one CFA variable of its widest member's type, as a union of scalars
//! is ([`super::union`]): it is one object of bytes in memory, laid out as gcc lays it out
//! (size: its largest member rounded up to its strictest alignment). Every object whose type
//! holds one by value — the union itself, an array of them, a struct with one inside — lives
//! in memory from its declaration on ([`super::boxed`]), and every use is a use through a
//! pointer ([`super::pointer`]): a member is the typed access at offset 0 of the union (and at
//! its own offsets inside nested members; a member of an anonymous struct or union member is
//! found there, named `""`), so `u.parts.lo` is a `LoadPtr` of a `short` at the
//! union's address and `u.bytes[2]` one of a `char` two bytes on. The memory model composes a
//! read from the bytes it covers ([`crate::cfa::cells`]), little-endian as on x86, so a member
//! read reinterprets what another member wrote as gcc does; no layer of the CFA needs anything
//! new.
//!
//! Initialisation follows C11 6.7.9: a braced list initialises a union's first member, or the
//! member a designator names; a local with a braced initialiser is zeroed first, as gcc does
//! (every byte, padding and bytes beyond the initialised member included). Assignment,
//! initialisation by another object and copies of structs holding such a union copy the bytes
//! (`memmove`), so bytes never written stay what they were. A `long double` anywhere in such
//! a union is `unsupported` (its padding bytes are what gcc leaves there).

use super::array::Place;
use super::braced::sub_object_type;
use super::record::{is_record, STRUCT_VALUE};
use super::*;
use crate::cfa::library::LibFunction;
use crate::frontend::types::MemoryUnionType;

/// The union in memory of these members (never empty), or what makes it unmodelled.
pub(super) fn memory_union_of(members: Vec<(String, CType)>) -> CType {
    for (_, t) in &members {
        if let Err(what) = storable(t) {
            return CType::Unsupported(format!("union with a member of {what}"));
        }
    }
    CType::MemoryUnion(MemoryUnionType { members })
}

/// Whether an object of type `t` can be a member of a union in memory; else what it is.
fn storable(t: &CType) -> std::result::Result<(), String> {
    match t {
        CType::Int(i) if i.is_long_double() => Err("type long double".into()),
        CType::Int(_) | CType::Ptr(_) => Ok(()),
        CType::Union(u) if u.members.iter().any(|(_, m)| m.is_long_double()) => {
            Err("type long double".into())
        }
        CType::Union(_) => Ok(()),
        CType::Array(elem, ArrayLen::Fixed(_)) => storable(elem),
        CType::Array(..) => Err("array type of variable or unspecified length".into()),
        CType::Struct(s) => s.members.iter().try_for_each(|(_, m)| storable(m)),
        CType::MemoryUnion(u) => u.members.iter().try_for_each(|(_, m)| storable(m)),
        CType::Void => Err("type void".into()),
        CType::Func(_) => Err("function type".into()),
        CType::Incomplete { .. } => Err("incomplete type".into()),
        CType::Unsupported(what) => Err(what.clone()),
    }
}

/// Whether an object of type `t` holds a union in memory by value (so lives in memory).
pub(super) fn holds_memory_union(t: &CType) -> bool {
    match t {
        CType::MemoryUnion(_) => true,
        CType::Array(elem, _) => holds_memory_union(elem),
        CType::Struct(s) => s.members.iter().any(|(_, m)| holds_memory_union(m)),
        _ => false,
    }
}

/// What `unsupported` says about a union in memory used as a value.
pub(super) const UNION_VALUE: &str = "union with aggregate members used as a value (only assignment, initialisation and member access are modelled)";

impl Lowerer<'_> {
    /// `sizeof` and alignment of the union in memory `u` as gcc lays it out.
    pub(super) fn memory_union_layout(&self, u: &MemoryUnionType, at: usize) -> Result<(u64, u64)> {
        let (mut size, mut align) = (0u64, 1u64);
        for (_, m) in &u.members {
            let (s, a) = self.layout_of(m, at)?;
            size = size.max(s);
            align = align.max(a);
        }
        let padded = size
            .div_ceil(align)
            .checked_mul(align)
            .ok_or_else(|| self.malformed(at, "union too large"))?;
        Ok((padded, align))
    }

    /// Initialises the object of type `t` (which holds a union in memory) at `address` from
    /// `init`; with a braced list, `zero` first sets every byte to 0.
    pub(super) fn initialize_in_memory(
        &mut self,
        address: Expr,
        t: &CType,
        init: &Node<Initializer>,
        zero: bool,
        at: usize,
    ) -> Result<()> {
        let items = match &init.node {
            Initializer::Expression(e) => return self.copy_in_memory(address, e, t, at),
            Initializer::List(items) => items,
        };
        let mut writes = Vec::new();
        for initial in self.braced_initials(t, items, at)? {
            let ty = match &initial.ty {
                CType::Union(_) if matches!(self.type_of(initial.e), Ok(CType::Union(_))) => {
                    return Err(self.unsupported(initial.e.span.start, "union initialised by a union value"));
                }
                // A union of scalars: its first member.
                CType::Union(u) => u.members[0].1,
                other => self.value_type(other, at)?,
            };
            let (mut sub, mut offset) = (t.clone(), 0);
            for &k in &initial.path {
                (sub, offset) = self.sub_object_in_memory(&sub, k, offset, at)?;
            }
            writes.push((offset, ty, initial.e));
        }
        if zero {
            let (size, _) = self.layout_of(t, at)?;
            self.pos = at;
            self.emit(Operation::Library {
                function: LibFunction::Memset,
                args: vec![
                    address.clone(),
                    Expr::constant(0, IntType::INT),
                    Expr::constant(i128::from(size), self.model.ulong()),
                ],
                result: None,
            })?;
        }
        let ptr = self.model.pointer();
        for (offset, ty, e) in writes {
            let value = self.rvalue(e)?.e.cast(ty);
            self.pos = at;
            let place = Place::Deref {
                address: fold(Expr::binary(
                    BinaryOp::Add,
                    address.clone(),
                    Expr::constant(i128::from(offset), ptr),
                    ptr,
                )),
            };
            self.write_place(&place, value)?;
        }
        Ok(())
    }

    /// Sub-object `k` of aggregate `t` at byte `base`: its type and byte offset.
    fn sub_object_in_memory(&self, t: &CType, k: u64, base: u64, at: usize) -> Result<(CType, u64)> {
        let outside = || self.malformed(at, "initializer outside the object");
        let sub = sub_object_type(t, k).cloned().ok_or_else(outside)?;
        let offset = match t {
            CType::Struct(s) => {
                let offsets = self.member_offsets(s, at)?;
                let k = usize::try_from(k).map_err(|_| outside())?;
                *offsets.get(k).ok_or_else(outside)?
            }
            CType::Array(elem, _) => k.saturating_mul(self.layout_of(elem, at)?.0),
            _ => 0,
        };
        Ok((sub, base.saturating_add(offset)))
    }

    /// Copies the object `src` designates, of type `t` (which holds a union in memory), to
    /// `address`: its bytes, as they are (`memmove`: `u = u` is a copy onto itself).
    pub(super) fn copy_in_memory(
        &mut self,
        address: Expr,
        src: &Node<Expression>,
        t: &CType,
        at: usize,
    ) -> Result<()> {
        let Some((from, st)) = self.pointed_object(src)? else {
            let what = if is_record(t) { STRUCT_VALUE } else { UNION_VALUE };
            return Err(self.unsupported(src.span.start, what));
        };
        if st != *t {
            return Err(self.malformed(at, "union or struct value of an incompatible type"));
        }
        let (size, _) = self.layout_of(t, at)?;
        self.pos = at;
        self.emit(Operation::Library {
            function: LibFunction::Memmove,
            args: vec![
                address,
                from,
                Expr::constant(i128::from(size), self.model.ulong()),
            ],
            result: None,
        })
    }
}
