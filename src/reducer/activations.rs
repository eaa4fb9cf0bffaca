//! Locals of the inlined activations of recursive functions.
//!
//! In the residual CFA an inlined callee's locals are `main`'s, one set per original variable.
//! That is exact for a function that is not recursive (two of its activations are never active
//! at once), but the activations of a recursive function the product inlines nest: each needs
//! its own locals. The *k*-th inlined activation of a recursive function `f` on a call stack
//! (`k` counted from 0, outermost first) uses fresh variables, copies of `f`'s locals
//! (parameters, return variable and temporaries included) made once per `(f, k)`: two
//! activations active at once have different `k`, and activations that are not active at once
//! may share them as the calls of a non-recursive function do. The original variables stay with
//! the copy of `f` that calls kept as calls run ([`super::calls`]), where C gives every
//! activation its own locals; so no kept call can clobber an inlined activation's locals.
//!
//! A recursive function with a local whose address is taken is never inlined (its copies would
//! need addresses of their own): the product falls back to `q_r` at such a call and keeps it.

use crate::cfa::expr::Expr;
use crate::cfa::memory::{ArrayShape, Extent};
use crate::cfa::{FuncId, Operation, Program, Scope, VarId, Variable};
use crate::cpa::control::ControlState;
use std::collections::HashMap;

/// One inlined activation of a recursive function: the function and how many inlined
/// activations of it are active below this one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Activation {
    func: FuncId,
    index: u32,
}

/// The fresh locals of every inlined activation met so far.
pub(super) struct Activations<'p> {
    program: &'p Program,
    /// Per function: true if it is recursive.
    recursive: Vec<bool>,
    /// Per function: its local variables.
    locals: Vec<Vec<VarId>>,
    /// Per activation: original local -> its fresh copy.
    renaming: HashMap<Activation, HashMap<VarId, VarId>>,
    /// The fresh variables, numbered after the original program's.
    fresh: Vec<Variable>,
    /// The empty renaming (outside recursive functions).
    unchanged: HashMap<VarId, VarId>,
}

impl<'p> Activations<'p> {
    pub(super) fn new(program: &'p Program) -> Self {
        let mut locals = vec![Vec::new(); program.functions.len()];
        for (i, v) in program.variables.iter().enumerate() {
            if let Scope::Local(f) = v.scope {
                if let Some(list) = locals.get_mut(f.index()) {
                    list.push(VarId(i as u32));
                }
            }
        }
        Activations {
            program,
            recursive: program.recursive_functions(),
            locals,
            renaming: HashMap::new(),
            fresh: Vec::new(),
            unchanged: HashMap::new(),
        }
    }

    /// True if `f` is recursive.
    pub(super) fn is_recursive(&self, f: FuncId) -> bool {
        self.recursive[f.index()]
    }

    /// True if the product may inline calls of the recursive function `f`: none of its locals
    /// has its address taken.
    pub(super) fn inlinable(&self, f: FuncId) -> bool {
        self.locals[f.index()]
            .iter()
            .all(|&v| self.program.variable(v).address.is_none())
    }

    /// The activation the product runs in at `control`: `None` where the original variables
    /// are used (outside recursive functions).
    pub(super) fn at(&self, control: &ControlState) -> Option<Activation> {
        let func = self.program.location(control.location).func;
        if !self.is_recursive(func) {
            return None;
        }
        let calls = control
            .call_stack
            .calls()
            .into_iter()
            .filter(|&c| matches!(self.program.edge(c).op, Operation::Call { callee, .. } if callee == func))
            .count();
        Some(Activation {
            func,
            index: calls.saturating_sub(1) as u32,
        })
    }

    /// `op` as `activation` runs it: its function's locals are the activation's.
    pub(super) fn rename(&mut self, op: &Operation, activation: Option<Activation>) -> Operation {
        let map = self.renaming(activation);
        op.rename_vars(&|v| map.get(&v).copied().unwrap_or(v))
    }

    /// `e` as `activation` evaluates it.
    pub(super) fn rename_expr(&mut self, e: &Expr, activation: Option<Activation>) -> Expr {
        let map = self.renaming(activation);
        e.rename_vars(&|v| map.get(&v).copied().unwrap_or(v))
    }

    /// The variable `v` names in `activation`.
    pub(super) fn var(&mut self, v: VarId, activation: Option<Activation>) -> VarId {
        self.renaming(activation).get(&v).copied().unwrap_or(v)
    }

    /// The fresh variables, in the order of their ids (after the original program's).
    pub(super) fn into_fresh(self) -> Vec<Variable> {
        self.fresh
    }

    /// The renaming of `activation`'s locals (none outside recursive functions).
    fn renaming(&mut self, activation: Option<Activation>) -> &HashMap<VarId, VarId> {
        let Some(a) = activation else {
            return &self.unchanged;
        };
        if !self.renaming.contains_key(&a) {
            let first = self.program.variables.len() + self.fresh.len();
            let locals = &self.locals[a.func.index()];
            let map: HashMap<VarId, VarId> = locals
                .iter()
                .enumerate()
                .map(|(i, &v)| (v, VarId((first + i) as u32)))
                .collect();
            for &v in locals {
                let original = self.program.variable(v);
                // A variable-length dimension is a local of the same function.
                let array = original.array.as_ref().map(|shape| ArrayShape {
                    dims: shape
                        .dims
                        .iter()
                        .map(|d| match d {
                            Extent::Var(x) => Extent::Var(map.get(x).copied().unwrap_or(*x)),
                            d => *d,
                        })
                        .collect(),
                    initial: shape.initial.clone(),
                });
                self.fresh.push(Variable {
                    name: format!("{}'{}", original.name, a.index + 1),
                    scope: Scope::Local(FuncId(0)),
                    array,
                    ..original.clone()
                });
            }
            self.renaming.insert(a, map);
        }
        &self.renaming[&a]
    }
}
