//! The interpreter's side of the C library functions ([`crate::cfa::library`]): its named
//! objects and heap as the [`Memory`] the functions read and write.

use super::{fault, Ending, Region, Run};
use crate::cfa::bytes::{element_pieces, element_writes, Piece};
use crate::cfa::expr::Expr;
use crate::cfa::heap::Fault;
use crate::cfa::library::{self, LibFunction, Memory, Stop};
use crate::cfa::semantics::UndefinedBehavior;
use crate::cfa::VarId;

impl Run<'_> {
    /// The values of `args`, in order.
    pub(super) fn evaluate(&self, args: &[Expr], line: u32) -> Result<Vec<i128>, Ending> {
        args.iter()
            .map(|a| {
                self.eval(a)
                    .map_err(|what| Ending::UndefinedBehavior { what, line })
            })
            .collect()
    }

    /// Runs a library function on `args`: its result.
    pub(super) fn call_library(
        &mut self,
        function: LibFunction,
        args: &[i128],
        line: u32,
    ) -> Result<i128, Ending> {
        library::call(function, args, self).map_err(|stop| match stop {
            Stop::Fault(f) => fault(f, line),
            // Concrete values are always known.
            Stop::Unknown => Ending::Unmodelled {
                what: format!("`{}` on values not known", function.name()),
                line,
            },
        })
    }

    /// An array variable must exist (a variable-length array is made by its declaration).
    fn check_live(&self, var: VarId) -> Result<(), Fault> {
        if self.program.variable(var).array.is_some() && self.arrays[var.index()].is_none() {
            return Err(UndefinedBehavior::DanglingPointer.into());
        }
        Ok(())
    }

    /// Element `i` of the live variable `var` (its value for a scalar); 0 for an index past
    /// its elements, which [`Run::region`]'s bounds exclude.
    fn element_value(&self, var: VarId, i: u64) -> i128 {
        match &self.arrays[var.index()] {
            Some(a) => a.elements.get(i as usize).copied().unwrap_or(0),
            None => self.values[var.index()],
        }
    }
}

impl Memory for Run<'_> {
    type V = i128;

    fn read(&self, address: u64, len: u64) -> Result<Vec<Piece<i128>>, Fault> {
        match self.region(address, len)? {
            Region::Heap => self.heap.pieces(address, len),
            Region::Var { var, offset, .. } => {
                self.check_live(var)?;
                let ty = self.program.variable(var).ty;
                Ok(element_pieces(ty, offset, len, |i| self.element_value(var, i)))
            }
        }
    }

    fn write(&mut self, address: u64, len: u64, pieces: &[Piece<i128>]) -> Result<(), Fault> {
        match self.region(address, len)? {
            Region::Heap => self.heap.write_pieces(address, len, pieces),
            Region::Var { var, offset, .. } => {
                let v = self.program.variable(var);
                if v.read_only {
                    return Err(UndefinedBehavior::StringLiteralWrite.into());
                }
                self.check_live(var)?;
                let writes = element_writes(v.ty, offset, len, pieces, |i| self.element_value(var, i))?;
                for (i, value) in writes {
                    match &mut self.arrays[var.index()] {
                        Some(a) => {
                            if let Some(slot) = a.elements.get_mut(i as usize) {
                                *slot = value;
                            }
                        }
                        None => self.values[var.index()] = value,
                    }
                }
                Ok(())
            }
        }
    }
}
