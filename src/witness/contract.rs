//! Function contracts of correctness witnesses (format 2.1): what a recursive function
//! requires at its entry and ensures on its return, read as formulas and encoded for the
//! validator's summaries of calls.
//!
//! An `ensures` clause relates two states: the one on return (globals, `\result`) and the one
//! at the entry (`\old(e)`, and the parameters, as in ACSL: a function may change its
//! parameters, the contract speaks of the values it was called with). In a formula, the entry
//! value of variable `v` is the variable [`old_value`]`(v)`, an id beyond the program's
//! variables; [`Clauses::ensured`] ties it to `v`'s term in the entry state, or leaves it
//! open where that state is not known (a path that starts inside the function).

use super::invariant::{parse_clause, Formula, Reading};
use crate::analyses::predicate::formula::{var_term, SsaMap};
use crate::cfa::{FuncId, Program, VarId};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU32, Ordering};
use z3::ast::Bool;

/// The variable standing for `var`'s value at the function's entry in an `ensures` clause.
pub fn old_value(program: &Program, var: VarId) -> VarId {
    VarId(program.variables.len() as u32 + var.0)
}

/// The program variable a variable of a clause is (itself, or the one whose entry value it
/// stands for).
pub fn current_value(program: &Program, var: VarId) -> VarId {
    let n = program.variables.len() as u32;
    if var.0 >= n {
        VarId(var.0 - n)
    } else {
        var
    }
}

/// The clauses of one function's contracts (all of them conjoined).
#[derive(Debug, Clone, Default)]
pub struct Clauses {
    pub requires: Vec<Formula>,
    pub ensures: Vec<Formula>,
}

/// Unique SSA indices for entry values (each use of a contract has its own).
static OLD_INDEX: AtomicU32 = AtomicU32::new(1);

impl Clauses {
    /// Adds a contract's clauses (`None`: `1`) of `func`.
    pub fn add(
        &mut self,
        program: &Program,
        func: FuncId,
        requires: Option<&str>,
        ensures: Option<&str>,
    ) -> Result<(), String> {
        if let Some(r) = requires {
            self.requires
                .push(parse_clause(r, program, func, Reading::Requires)?);
        }
        if let Some(e) = ensures {
            self.ensures
                .push(parse_clause(e, program, func, Reading::Ensures)?);
        }
        Ok(())
    }

    /// The `ensures` clauses with the return state at `post` and the entry state at `pre`
    /// (`None`: any entry state, each entry value a fresh term): the equations that tie the
    /// entry values to `pre`, and the clauses.
    pub fn ensured(&self, program: &Program, pre: Option<&SsaMap>, post: &SsaMap) -> (Bool, Bool) {
        let mut olds = BTreeSet::new();
        for f in &self.ensures {
            f.for_each_atom(&mut |e| {
                e.for_each_var(&mut |v| {
                    if current_value(program, v) != v {
                        olds.insert(v);
                    }
                })
            });
        }
        let mut at = post.clone();
        let mut ties = Vec::new();
        for old in olds {
            let var = current_value(program, old);
            let ty = program.variable(var).ty;
            let index = OLD_INDEX.fetch_add(1, Ordering::Relaxed);
            at.restore(old, index);
            if let Some(pre) = pre {
                ties.push(var_term(old, ty, index).eq(var_term(var, ty, pre.get(var))));
            }
        }
        let clauses: Vec<Bool> = self.ensures.iter().map(|f| f.encode(program, &at)).collect();
        (Bool::and(&ties), Bool::and(&clauses))
    }

    /// The `requires` clauses at `state`.
    pub fn required(&self, program: &Program, state: &SsaMap) -> Bool {
        let parts: Vec<Bool> = self.requires.iter().map(|f| f.encode(program, state)).collect();
        Bool::and(&parts)
    }
}
