//! What a call of a function may change: the globals written in it and in every function it
//! may call, and — where one of them writes through a pointer — every variable whose address
//! the program takes (the caller's locals included). The validator havocs these across a
//! summarised call of a recursive function; the analyses' contracts state their values.

use super::{FuncId, Operation, Program, Scope, VarId};
use std::collections::BTreeSet;

/// What a call of each function may change.
#[derive(Debug, Clone)]
pub struct Effects {
    /// Per function: the globals it and its callees write.
    globals: Vec<BTreeSet<VarId>>,
    /// Per function: whether it or a callee writes through a pointer.
    through_pointers: Vec<bool>,
}

impl Effects {
    /// The effects of every function of `program`.
    pub fn of(program: &Program) -> Effects {
        let n = program.functions.len();
        let mut direct: Vec<BTreeSet<VarId>> = vec![BTreeSet::new(); n];
        let mut pointers = vec![false; n];
        let mut callees: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
        for edge in &program.edges {
            let f = program.location(edge.from).func.index();
            let written = match &edge.op {
                Operation::Store { array, .. } => Some(*array),
                op => op.written_var(),
            };
            if let Some(v) = written.filter(|v| program.variable(*v).scope == Scope::Global) {
                direct[f].insert(v);
            }
            match &edge.op {
                Operation::StorePtr { .. } => pointers[f] = true,
                // A library function that writes memory writes through its pointer arguments.
                Operation::Library { function, .. } if function.writes() => pointers[f] = true,
                Operation::Call { callee, .. } => {
                    callees[f].insert(callee.index());
                }
                _ => {}
            }
        }
        let mut globals = Vec::with_capacity(n);
        let mut through_pointers = Vec::with_capacity(n);
        for f in 0..n {
            let mut seen = vec![false; n];
            let mut work = vec![f];
            let (mut written, mut pointer) = (BTreeSet::new(), false);
            while let Some(g) = work.pop() {
                if std::mem::replace(&mut seen[g], true) {
                    continue;
                }
                written.extend(direct[g].iter().copied());
                pointer |= pointers[g];
                work.extend(callees[g].iter().copied());
            }
            globals.push(written);
            through_pointers.push(pointer);
        }
        Effects {
            globals,
            through_pointers,
        }
    }

    /// The globals a call of `f` may write.
    pub fn globals(&self, f: FuncId) -> &BTreeSet<VarId> {
        &self.globals[f.index()]
    }

    /// Whether a call of `f` may write through a pointer (any address-taken variable).
    pub fn through_pointers(&self, f: FuncId) -> bool {
        self.through_pointers[f.index()]
    }
}
