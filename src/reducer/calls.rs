//! Which calls the residual program keeps as calls.
//!
//! Inlining a callee copies its body once per call site and automaton state, although the
//! condition often says nothing inside it (the residual state `q_r`, or states none of whose
//! transitions fires on any edge the callee can take). A call whose automaton states are
//! *invariant* under every edge of the callee and its transitive callees is kept as a call: the
//! condition cannot cover or cut any path inside, and the states after the return are the
//! states at the call (returns are silent for conditions), so the product goes on at the return
//! site with the same states. The callee is then a copy of the original function, emitted once
//! and shared by every such call. A recursive function the condition does not look into is
//! just called. A copy never shares locals with an inlined body active at the call: only
//! recursion reaches an active function again, and inlined activations of recursive functions
//! have locals of their own ([`super::activations`]).

use crate::cfa::{EdgeId, FuncId, Operation, Program};
use crate::condition::{ConditionRunner, StateId};
use std::collections::{BTreeSet, HashMap};

/// Decides, with memoisation, whether a call can stay a call.
pub(super) struct CallKeeper<'a> {
    program: &'a Program,
    runner: &'a ConditionRunner<'a>,
    /// Per function: the edges of the functions it can call, transitively, itself included.
    below: HashMap<FuncId, Vec<EdgeId>>,
    invariant: HashMap<(FuncId, BTreeSet<StateId>), bool>,
    /// Per function: true if some path from its entry reaches its exit (a function that always
    /// ends the program or loops forever has no return site to go on at).
    returns: Vec<bool>,
}

impl<'a> CallKeeper<'a> {
    pub(super) fn new(program: &'a Program, runner: &'a ConditionRunner<'a>) -> Self {
        CallKeeper {
            program,
            runner,
            below: HashMap::new(),
            invariant: HashMap::new(),
            returns: can_return(program),
        }
    }

    /// True if a call of `callee` can return.
    pub(super) fn returns(&self, callee: FuncId) -> bool {
        self.returns[callee.index()]
    }

    /// True if a call of `callee` entered in the automaton states `states` (after reading the
    /// call edge) can stay a call: every edge `callee` can take, its callees' included, leaves
    /// `states` as they are (the residual state `q_r`, no states, always qualifies).
    pub(super) fn keeps(&mut self, callee: FuncId, states: &BTreeSet<StateId>) -> bool {
        if states.is_empty() {
            return true;
        }
        let key = (callee, states.clone());
        if let Some(&known) = self.invariant.get(&key) {
            return known;
        }
        let runner = self.runner;
        let edges = self.below(callee);
        let keeps = edges.iter().all(|&e| runner.step(states, e) == *states);
        self.invariant.insert(key, keeps);
        keeps
    }

    /// The edges of the functions `f` can call, transitively, `f` included.
    fn below(&mut self, f: FuncId) -> &[EdgeId] {
        let program = self.program;
        self.below.entry(f).or_insert_with(|| {
            let mut seen = BTreeSet::from([f]);
            let mut work = vec![f];
            let mut edges = Vec::new();
            while let Some(g) = work.pop() {
                for &l in &program.function(g).locations {
                    for &e in program.out_edges(l) {
                        edges.push(e);
                        if let Operation::Call { callee, .. } = program.edge(e).op {
                            if seen.insert(callee) {
                                work.push(callee);
                            }
                        }
                    }
                }
            }
            edges
        })
    }
}

/// Per function: true if some path from its entry reaches its exit, through calls of
/// functions that can return (a least fixpoint over the functions).
fn can_return(program: &Program) -> Vec<bool> {
    let mut returns = vec![false; program.functions.len()];
    loop {
        let mut changed = false;
        for (i, f) in program.functions.iter().enumerate() {
            if returns[i] {
                continue;
            }
            let mut seen = BTreeSet::from([f.entry]);
            let mut work = vec![f.entry];
            while let Some(l) = work.pop() {
                for &e in program.out_edges(l) {
                    let edge = program.edge(e);
                    let passes = match edge.op {
                        Operation::Call { callee, .. } => returns[callee.index()],
                        _ => true,
                    };
                    if passes && seen.insert(edge.to) {
                        work.push(edge.to);
                    }
                }
            }
            if seen.contains(&f.exit) {
                returns[i] = true;
                changed = true;
            }
        }
        if !changed {
            return returns;
        }
    }
}
