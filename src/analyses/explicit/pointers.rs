//! Reads and writes through pointers in the explicit-value analysis ([`crate::cfa::address`]).
//!
//! A known address of an address-taken variable reads or writes that variable (one whole
//! scalar or tracked array element) exactly; a known heap address reads or writes the heap
//! block's cell ([`super::heap`]). A write through an unknown address may reach every
//! address-taken variable and every heap block, so all of them become unknown. A known
//! address that certainly faults (null, no object, out of bounds) ends the path like other
//! undefined behaviour; an access the memory model cannot express gives up.

use super::{ExplicitState, KnownArrays};
use crate::cfa::address::{element_at, StaticObjects, HEAP_BASE};
use crate::cfa::expr::Expr;
use crate::cfa::memory;
use crate::cfa::types::IntType;
use crate::cfa::{Program, Scope, VarId};

/// What an access through a pointer does in the explicit domain.
pub enum Access<T> {
    Done(T),
    /// The access certainly has undefined behaviour: the path ends.
    Undefined,
    /// The analysis cannot say what the access does.
    GiveUp(String),
}

/// What the accesses need to know about the program.
pub struct Objects<'a> {
    pub statics: &'a StaticObjects,
    /// Per function: whether it is recursive.
    pub recursive: &'a [bool],
    pub program: &'a Program,
}

/// Where a known address lands.
enum Place {
    /// A scalar variable, or an element (flat position, element count) of a tracked array.
    Var(VarId, Option<(u64, u64)>),
    /// An element of an array whose elements are not tracked.
    Untracked,
    /// A heap address.
    Heap(u64),
}

/// The place of an access of `ty` at the known `address`.
fn place(address: i128, ty: IntType, objects: &Objects) -> Access<Place> {
    let Objects {
        statics,
        recursive,
        program,
    } = *objects;
    let Ok(address) = u64::try_from(address) else {
        return Access::Undefined;
    };
    if address == 0 {
        return Access::Undefined;
    }
    if address >= HEAP_BASE {
        return Access::Done(Place::Heap(address));
    }
    // Outside every variable: undefined, unless inside a struct laid out as one object.
    let len = u64::from(ty.size_bytes());
    let outside = || match statics.across_members(address, len) {
        Some(what) => Access::GiveUp(what),
        None => Access::Undefined,
    };
    let Some((var, offset, size)) = statics.find(address) else {
        return outside();
    };
    let v = program.variable(var);
    if let Scope::Local(f) = v.scope {
        if recursive.get(f.index()).copied().unwrap_or(true) {
            return Access::GiveUp("pointer to a local of a recursive function".into());
        }
    }
    if offset.checked_add(len).is_none_or(|end| end > size) {
        return outside();
    }
    let Some(at) = element_at(offset, ty, v.ty, size) else {
        return Access::GiveUp(format!(
            "access of `{}` through a pointer to another type",
            v.name
        ));
    };
    if v.array.is_none() {
        return Access::Done(Place::Var(var, None));
    }
    Access::Done(match KnownArrays::tracked_extents(program, var) {
        Some(extents) => Place::Var(var, Some((at, memory::element_count(&extents).unwrap_or(0)))),
        None => Place::Untracked,
    })
}

/// The value `*(ty *)address` reads (`None`: unknown).
pub fn load(state: &ExplicitState, address: &Expr, ty: IntType, objects: &Objects) -> Access<Option<i128>> {
    let program = objects.program;
    let address = match state.eval(address, program.signed_overflow) {
        Ok(Some(a)) => a,
        Ok(None) => return Access::Done(None),
        Err(_) => return Access::Undefined,
    };
    match place(address, ty, objects) {
        Access::Done(Place::Var(var, None)) => Access::Done(state.get(var).map(|v| ty.normalize(v))),
        Access::Done(Place::Var(var, Some((at, _)))) => {
            Access::Done(state.arrays.get(var, at).map(|v| ty.normalize(v)))
        }
        Access::Done(Place::Untracked) => Access::Done(None),
        Access::Done(Place::Heap(at)) => state.heap.load(at, ty),
        Access::Undefined => Access::Undefined,
        Access::GiveUp(why) => Access::GiveUp(why),
    }
}

/// `*(ty *)address = value` into `next` (`value` of type `ty`, `None`: unknown).
pub fn store(
    state: &ExplicitState,
    next: &mut ExplicitState,
    address: &Expr,
    ty: IntType,
    value: Option<i128>,
    objects: &Objects,
) -> Access<()> {
    let program = objects.program;
    let address = match state.eval(address, program.signed_overflow) {
        Ok(Some(a)) => a,
        Ok(None) => return havoc_reachable(next, None, objects),
        Err(_) => return Access::Undefined,
    };
    match place(address, ty, objects) {
        Access::Done(Place::Var(var, _)) if program.variable(var).read_only => Access::Undefined,
        Access::Done(Place::Var(var, at)) => {
            let element = program.variable(var).ty;
            let value = value.map(|v| element.normalize(ty.normalize(v)));
            match at {
                None => next.set(var, value),
                Some((flat, count)) => next.arrays.set(var, count, flat, value),
            }
            Access::Done(())
        }
        // Untracked elements are unknown anyway.
        Access::Done(Place::Untracked) => Access::Done(()),
        Access::Done(Place::Heap(at)) => next.heap.store(at, ty, value),
        Access::Undefined => Access::Undefined,
        Access::GiveUp(why) => Access::GiveUp(why),
    }
}

/// A write of unknown extent through `address` (`None`: unknown): the object it points
/// into, or with an unknown address every address-taken variable and every heap cell,
/// becomes unknown.
pub fn havoc_reachable(next: &mut ExplicitState, address: Option<i128>, objects: &Objects) -> Access<()> {
    let Objects {
        statics,
        recursive,
        program,
    } = *objects;
    let recursive_local = |v: VarId| matches!(program.variable(v).scope, Scope::Local(f) if recursive.get(f.index()).copied().unwrap_or(true));
    let Some(address) = address else {
        // Saved activations of a recursive function keep their locals out of reach here.
        if statics.vars().any(recursive_local) {
            return Access::GiveUp(
                "write through an unknown pointer: a local of a recursive function may be reached".into(),
            );
        }
        havoc(next, statics, program);
        return Access::Done(());
    };
    let Ok(address) = u64::try_from(address) else {
        return Access::Done(());
    };
    if address >= HEAP_BASE {
        next.heap.havoc_block(address);
    } else if let Some((var, ..)) = statics.find(address) {
        if recursive_local(var) {
            return Access::GiveUp("write into a local of a recursive function".into());
        }
        forget(next, var, program);
    }
    Access::Done(())
}

/// Every address-taken variable and every heap cell becomes unknown.
fn havoc(next: &mut ExplicitState, statics: &StaticObjects, program: &Program) {
    next.heap.havoc();
    for var in statics.vars() {
        forget(next, var, program);
    }
}

/// Nothing is known of `var` any more.
fn forget(next: &mut ExplicitState, var: VarId, program: &Program) {
    if program.variable(var).array.is_some() {
        next.arrays.forget(var);
    } else {
        next.set(var, None);
    }
}
