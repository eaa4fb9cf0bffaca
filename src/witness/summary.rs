//! Calls of recursive functions in the validator: not entered but summarised by the callee's
//! contract, as a modular proof does. At the call the callee's `requires` must hold (checked
//! by the caller, [`Summary::bound`]); after it, everything the call may change has a new
//! value, constrained only by the callee's `ensures` (with the entry values of the call), the
//! result is assigned and the caller's own locals are as before the call (each activation has
//! its own).
//! What a call may change is [`Effects`]' business.

use super::contract::Clauses;
use crate::analyses::predicate::formula::{EncodeError, PathFormula};
use crate::cfa::effects::Effects;
use crate::cfa::{EdgeId, FuncId, Operation, Program, Scope, VarId};
use crate::cpa::Step;
use z3::ast::Bool;

/// One summarised call on a path.
pub struct Summary {
    /// The path with the callee's parameters bound (its `requires` must hold here); its
    /// formula is the binding's alone.
    pub bound: PathFormula,
    /// The path at the return site; its formula is what the call adds after the binding.
    pub returned: PathFormula,
}

impl Summary {
    /// The call `call` of `callee` after `before` (whose formula is not repeated), with the
    /// callee's contract `clauses`.
    pub fn of(
        program: &Program,
        effects: &Effects,
        clauses: &Clauses,
        call: EdgeId,
        callee: FuncId,
        before: &PathFormula,
    ) -> Result<Summary, EncodeError> {
        let mut base = before.clone();
        base.formula = Bool::from_bool(true);
        let bound = base.extend(Step::Edge(call), program)?;
        let mut after = bound.clone();
        after.formula = Bool::from_bool(true);
        let function = program.function(callee);
        let pointers = effects.through_pointers(callee);
        let changed = function
            .return_var
            .into_iter()
            .chain(effects.globals(callee).iter().copied());
        let address_taken_globals = program
            .address_taken()
            .filter(|v| pointers && program.variable(*v).scope == Scope::Global);
        for v in changed.chain(address_taken_globals) {
            after.ssa.bump(v);
        }
        let (ties, ensured) = clauses.ensured(program, Some(&bound.ssa), &after.ssa);
        let mut returned = after
            .conjoin(&Bool::and(&[ties, ensured]))
            .extend(Step::Return { call }, program)?;
        // The caller's activation keeps its locals (the callee's are another activation's),
        // but for the variable the call's result was just assigned to (in a function calling
        // itself, a local of both).
        let result = match &program.edge(call).op {
            Operation::Call { result, .. } => *result,
            _ => None,
        };
        for (i, v) in program.variables.iter().enumerate() {
            let var = VarId(i as u32);
            if v.scope == Scope::Local(callee) && Some(var) != result {
                returned.ssa.restore(var, before.ssa.get(var));
            }
        }
        if pointers {
            for v in program.address_taken() {
                if program.variable(v).scope != Scope::Global {
                    returned.ssa.bump(v);
                }
            }
        }
        Ok(Summary { bound, returned })
    }
}
