//! Flattened structs whose members' addresses are taken: their leaves laid out as one object.
//!
//! A struct variable is one variable per leaf ([`super::record`]). Once the program takes the
//! address of one of its scalar members (`&r.value`, `&s.a[2]`, `&o.in.v`), every leaf gets
//! the address of its offset in gcc's layout of the struct, inside one object placed like any
//! address-taken variable ([`crate::cfa::address::place`]), and the leaves are recorded as a
//! [`RecordObject`]. So what a program can see of the layout through member addresses —
//! differences, relational comparisons, arithmetic from one member to another
//! (`(char *)&r.tag + 4`), a member's address cast to an integer, `container_of`-style
//! arithmetic back to the first member — is gcc's, in both data models, with no new CFA
//! operation: an access through such an address reaches the leaf at that offset.
//!
//! Leaves that are not contiguous in gcc's layout — the members of an array of structs (the
//! leaf `a.x` of `struct S a[4]` holds every element's `x`), or of a struct with an array of
//! structs inside — cannot be laid out so: such a record lives in memory instead
//! ([`super::boxed`]). The leaves of a struct parameter are parameters, which the C emitter
//! cannot lay out as one object: the address of a member of a struct parameter is
//! `unsupported`, as is the address of a struct parameter itself.

use super::record::{is_record, leaf_count};
use super::*;
use crate::cfa::address::{self, RecordObject};

impl Lowerer<'_> {
    /// Lays out every leaf of the record variable whose first leaf is `first` (of type `t`)
    /// at its offset in gcc's layout, inside one object; nothing to do if they already are.
    pub(super) fn place_record(&mut self, first: VarId, t: &CType, at: usize) -> Result<()> {
        let leaves: Vec<VarId> = (0..leaf_count(t)).map(|k| VarId(first.0 + k as u32)).collect();
        if leaves.iter().any(|v| self.variables[v.index()].address.is_some()) {
            return Ok(());
        }
        let mut offsets = Vec::with_capacity(leaves.len());
        if !self.leaf_offsets(t, 0, &mut offsets, at)? {
            return Err(self.request_box(first, at, "address of a member of an array of structs"));
        }
        let parameter = self
            .fs
            .as_ref()
            .is_some_and(|fs| self.functions[fs.id.index()].params.contains(&first));
        if parameter {
            return Err(self.unsupported(at, "address of a member of a struct parameter"));
        }
        let (size, _) = self.layout_of(t, at)?;
        let Some((start, next)) = address::place(self.next_address, size, address::HEAP_BASE) else {
            return Err(self.unsupported(at, "address-taken objects larger than the static address space"));
        };
        self.next_address = next;
        for (v, offset) in leaves.iter().zip(offsets) {
            self.variables[v.index()].address = Some(start + offset);
        }
        self.record_objects.push(RecordObject {
            members: leaves,
            size,
        });
        Ok(())
    }

    /// Appends the offset of every leaf of an object of type `t` at offset `base`, in
    /// declaration order; false if its leaves are not contiguous in gcc's layout (it is or
    /// holds an array of structs).
    fn leaf_offsets(&self, t: &CType, base: u64, out: &mut Vec<u64>, at: usize) -> Result<bool> {
        match t {
            CType::Struct(s) => {
                for ((_, m), offset) in s.members.iter().zip(self.member_offsets(s, at)?) {
                    if !self.leaf_offsets(m, base.saturating_add(offset), out, at)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            CType::Array(elem, _) if is_record(elem) => Ok(false),
            _ => {
                out.push(base);
                Ok(true)
            }
        }
    }
}
