//! The C library functions ([`crate::cfa::library`]) in the explicit-value analysis.
//!
//! Where the pointers, lengths and the bytes that decide how far a function goes are known,
//! it runs exactly as on the interpreter, over the state's known values: named objects
//! (scalars and tracked arrays; untracked arrays read as unknown bytes) and the heap. Where
//! something is unknown, or the interpreter would not model the call, what the function may
//! write is forgotten — the object its destination points into, or with an unknown
//! destination every address-taken variable and heap block — and its result is unknown (the
//! destination itself for the functions that return it). The result of a comparison is
//! known only when it is 0: C fixes only the sign of the others, which the state keeps. A call that is certainly
//! undefined (a null pointer, a range outside its object, overlapping copies, a write into a
//! string literal) ends the path.

use super::pointers::{havoc_reachable, Access, Objects};
use super::ExplicitState;
use super::KnownArrays;
use crate::cfa::address::HEAP_BASE;
use crate::cfa::bytes::{element_pieces, element_writes, Byte, Piece};
use crate::cfa::expr::Expr;
use crate::cfa::heap::Fault;
use crate::cfa::library::{self, LibFunction, LibType, Memory, Stop};
use crate::cfa::memory;
use crate::cfa::semantics::UndefinedBehavior;
use crate::cfa::{Scope, VarId};
use std::cell::RefCell;

/// What a range of memory lies in.
enum Range {
    /// A scalar variable or a tracked array: the range starts `offset` bytes into it.
    Var {
        var: VarId,
        offset: u64,
    },
    /// An array whose elements are not tracked.
    Untracked {
        var: VarId,
    },
    Heap,
}

/// The state's memory as a library function sees it.
struct StateMemory<'a, 'p> {
    state: &'a mut ExplicitState,
    objects: &'a Objects<'p>,
    /// Why the analysis gives up on the call, if it must.
    give_up: RefCell<Option<String>>,
}

impl StateMemory<'_, '_> {
    /// The object `len` bytes at `address` lie in.
    fn range(&self, address: u64, len: u64) -> Result<Range, Fault> {
        let Objects {
            statics,
            recursive,
            program,
        } = *self.objects;
        if address == 0 {
            return Err(UndefinedBehavior::NullDereference.into());
        }
        if statics.is_function(address) {
            return Err(UndefinedBehavior::FunctionAccess.into());
        }
        if address >= HEAP_BASE {
            return Ok(Range::Heap);
        }
        // Outside every variable: undefined, unless inside a struct laid out as one object.
        let outside = |ub: UndefinedBehavior| match statics.across_members(address, len) {
            Some(what) => {
                *self.give_up.borrow_mut() = Some(what.clone());
                Fault::Unmodelled(what)
            }
            None => ub.into(),
        };
        let (var, offset, size) = statics
            .find(address)
            .ok_or_else(|| outside(UndefinedBehavior::InvalidPointer))?;
        if let Scope::Local(f) = program.variable(var).scope {
            if recursive.get(f.index()).copied().unwrap_or(true) {
                let why = "pointer to a local of a recursive function";
                *self.give_up.borrow_mut() = Some(why.into());
                return Err(Fault::Unmodelled(why.into()));
            }
        }
        if offset.checked_add(len).is_none_or(|end| end > size) {
            return Err(outside(UndefinedBehavior::PointerOutOfBounds));
        }
        let v = program.variable(var);
        if v.array.is_some() && KnownArrays::tracked_extents(program, var).is_none() {
            return Ok(Range::Untracked { var });
        }
        Ok(Range::Var { var, offset })
    }

    /// Element `i` of a scalar variable or tracked array (`None`: unknown).
    fn element(&self, var: VarId, i: u64) -> Option<i128> {
        match self.objects.program.variable(var).array {
            None => self.state.get(var),
            Some(_) => self.state.arrays.get(var, i),
        }
    }
}

impl Memory for StateMemory<'_, '_> {
    type V = Option<i128>;

    fn read(&self, address: u64, len: u64) -> Result<Vec<Piece<Option<i128>>>, Fault> {
        match self.range(address, len)? {
            Range::Heap => self.state.heap.pieces(address, len),
            Range::Untracked { .. } => Ok(vec![Piece::Bytes {
                at: 0,
                len,
                byte: Byte::Unknown,
            }]),
            Range::Var { var, offset } => {
                let ty = self.objects.program.variable(var).ty;
                Ok(element_pieces(ty, offset, len, |i| self.element(var, i)))
            }
        }
    }

    fn write(&mut self, address: u64, len: u64, pieces: &[Piece<Option<i128>>]) -> Result<(), Fault> {
        let program = self.objects.program;
        match self.range(address, len)? {
            Range::Heap => self.state.heap.write_pieces(address, len, pieces),
            Range::Untracked { var } | Range::Var { var, .. } if program.variable(var).read_only => {
                Err(UndefinedBehavior::StringLiteralWrite.into())
            }
            // Its elements are unknown whatever is written.
            Range::Untracked { .. } => Ok(()),
            Range::Var { var, offset } => {
                let v = program.variable(var);
                let writes = element_writes(v.ty, offset, len, pieces, |i| self.element(var, i))?;
                let count = KnownArrays::tracked_extents(program, var)
                    .and_then(|e| memory::element_count(&e))
                    .unwrap_or(0);
                for (i, value) in writes {
                    match v.array {
                        None => self.state.set(var, value),
                        Some(_) => self.state.arrays.set(var, count, i, value),
                    }
                }
                Ok(())
            }
        }
    }
}

/// The effect of `function` on `args` in `next` (a copy of the state before the call), its
/// result written to `result`.
pub fn transfer(
    next: &mut ExplicitState,
    function: LibFunction,
    args: &[Expr],
    result: Option<VarId>,
    objects: &Objects,
) -> Access<()> {
    let program = objects.program;
    let mut values = Vec::with_capacity(args.len());
    for a in args {
        match next.eval(a, program.signed_overflow) {
            Ok(v) => values.push(v),
            Err(_) => return Access::Undefined,
        }
    }
    let before = next.clone();
    let mut memory = StateMemory {
        state: next,
        objects,
        give_up: RefCell::new(None),
    };
    let outcome = library::call(function, &values, &mut memory);
    if let Some(why) = memory.give_up.into_inner() {
        return Access::GiveUp(why);
    }
    let value = match outcome {
        Ok(Some(v)) if !function.exact_result(v) => {
            // C fixes only the sign of a comparison.
            if let Some(r) = result {
                next.set_sign(r, v);
            }
            return Access::Done(());
        }
        Ok(v) => v,
        Err(Stop::Fault(Fault::Undefined(_))) => return Access::Undefined,
        Err(Stop::Fault(Fault::Unmodelled(_) | Fault::Limit) | Stop::Unknown) => {
            // Start again from the state before: forget what the call may write.
            *next = before;
            if function.writes() {
                let destination = values.first().copied().flatten();
                if let Access::GiveUp(why) = havoc_reachable(next, destination, objects) {
                    return Access::GiveUp(why);
                }
            }
            match function.returns() {
                // The functions returning a pointer that write return their destination.
                LibType::Pointer if function.writes() => values.first().copied().flatten(),
                _ => None,
            }
        }
    };
    if let Some(r) = result {
        next.set(r, value.map(|v| program.variable(r).ty.normalize(v)));
    }
    Access::Done(())
}
