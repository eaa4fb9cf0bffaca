//! The condition a bounded model checker hands on: "complete paths with few loop-head visits
//! are verified".
//!
//! CBMC with `--unwind K --unwinding-assertions` that finds no violation but a failed unwinding
//! assertion has explored every execution in which each loop runs at most K-1 complete
//! iterations (a loop whose body runs K times may need a K+1-th condition check, which the
//! assertion cuts off; counting K-1 is the safe reading of CBMC's bound). Baton expresses an
//! under-approximation of that as a condition automaton over CFA edges:
//!
//! *a complete path (ending in `main`'s exit or a terminal location such as `abort()`/`exit()`)
//! on which DFS loop heads are entered at most K-1 times in total is verified.*
//!
//! Why it is sound: every iteration of a CBMC loop goes around a cycle of the CFA, and every
//! cycle of a function's CFA contains a target of a DFS back edge, i.e. a location marked
//! `loop_head` ([`crate::cfa::Location::loop_head`]). Successive iterations of one loop are
//! disjoint stretches of the path, so a loop that ran m iterations contributed at least m
//! loop-head visits; a path with at most K-1 visits in total therefore has every loop at most
//! K-1 iterations, which CBMC explored. Counting totals across loops and across calls (the
//! automaton reads CFA edges only; returns are silent) covers fewer paths than CBMC's per-loop,
//! per-entry count, which only loses coverage. Recursion is also bounded by `--unwind`, but
//! loop heads do not see it, so programs with recursion get [`ConditionAutomaton::nothing_verified`].
//! Only complete paths are accepted (acceptance means "verified from here on", which is true
//! for a path that has ended); paths into an error location are never accepted.
//!
//! Loop-head visits: an edge visits its target location, except a call edge, which visits the
//! callee's entry (counted) and later its return site (counted already at the call: counting
//! early can only over-count). The start of `main` visits `main`'s entry.

use crate::cfa::{EdgeId, LocationKind, Operation, Program};
use crate::condition::{Assumption, ConditionAutomaton, ConditionState, Cut, StateId, Transition};
use std::collections::{BTreeMap, BTreeSet};

/// Most counter states the automaton may have before falling back to "nothing verified".
pub const DEFAULT_MAX_STATES: usize = 10_000;

/// The condition for a CBMC run with `--unwind unwind` that ended safe within the bound (see
/// the module documentation). Returns "nothing verified" for recursive programs, `unwind` 0, or
/// when more than `max_states` states would be needed.
pub fn bounded_condition(program: &Program, unwind: u32, max_states: usize) -> ConditionAutomaton {
    let nothing = || ConditionAutomaton::nothing_verified(&program.hash);
    if unwind == 0 || program.has_recursion() {
        return nothing();
    }
    let allowed = unwind - 1;
    let counters = allowed as usize + 1;
    if counters + 1 > max_states {
        return nothing();
    }
    let main = program.main();
    let initial = u32::from(program.location(main.entry).loop_head);
    if initial > allowed {
        return nothing();
    }
    let done = StateId(counters as u32);
    let mut states: Vec<ConditionState> = (0..counters)
        .map(|c| ConditionState {
            name: format!("visits{c}"),
            accepting: false,
        })
        .collect();
    states.push(ConditionState {
        name: "complete".into(),
        accepting: true,
    });
    // (from, to) -> edges
    let mut groups: BTreeMap<(u32, u32), BTreeSet<EdgeId>> = BTreeMap::new();
    for (i, edge) in program.edges.iter().enumerate() {
        let id = EdgeId(i as u32);
        let to = program.location(edge.to);
        let mut visits = u32::from(to.loop_head);
        if let Operation::Call { callee, .. } = &edge.op {
            visits += u32::from(program.location(program.function(*callee).entry).loop_head);
        }
        let ends = to.kind == LocationKind::Terminal || edge.to == main.exit;
        if to.kind == LocationKind::Error {
            continue;
        }
        for c in 0..=allowed {
            let next = c + visits;
            if next > allowed {
                continue;
            }
            let target = if ends { done.0 } else { next };
            groups.entry((c, target)).or_default().insert(id);
        }
    }
    let transitions = groups
        .into_iter()
        .map(|((from, to), edges)| Transition {
            from: StateId(from),
            edges,
            assumption: Assumption::True,
            to: StateId(to),
            cut: Cut::Explored,
        })
        .collect();
    ConditionAutomaton {
        program_hash: program.hash.clone(),
        states,
        initial: StateId(initial),
        transitions,
        state_cuts: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::types::DataModel;
    use crate::frontend::load_program;

    fn program(text: &str) -> (tempfile::TempDir, Program) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.c");
        std::fs::write(&path, text).unwrap();
        let p = load_program(&path, DataModel::ILP32).unwrap();
        (dir, p)
    }

    /// Edge ids of the path the interpreter takes with `inputs`.
    fn path_of(p: &Program, inputs: &[i128]) -> Vec<EdgeId> {
        use crate::cfa::interpreter::{execute_observed, ExecOptions, Step};
        let mut edges = Vec::new();
        let mut record = |s: &Step| {
            if let Step::Edge { edge, .. } = s {
                edges.push(*edge);
            }
        };
        execute_observed(
            p,
            inputs,
            &ExecOptions {
                max_steps: 10_000,
                record_path: false,
            },
            &mut record,
        );
        edges
    }

    const LOOP: &str = "extern int __VERIFIER_nondet_int(void);\nvoid reach_error(void){}\nint main(void){ int n = __VERIFIER_nondet_int(); int i = 0; if (n > 5) { while (i < n) { i++; } } if (i > 100) reach_error(); return 0; }\n";

    #[test]
    fn covers_loop_free_paths_only_with_unwind_one() {
        let (_d, p) = program(LOOP);
        let c = bounded_condition(&p, 1, DEFAULT_MAX_STATES);
        c.check_well_formed().unwrap();
        c.validate(&p).unwrap();
        assert!(c.covers(&path_of(&p, &[3])), "loop-free path must be covered");
        assert!(!c.covers(&path_of(&p, &[7])), "looping path must not be covered");
        let c3 = bounded_condition(&p, 3, DEFAULT_MAX_STATES);
        assert!(c3.covers(&path_of(&p, &[3])));
        assert!(!c3.covers(&path_of(&p, &[200])));
    }

    #[test]
    fn degenerate_bounds_give_nothing() {
        let (_d, q) = program(LOOP);
        assert!(!q.has_recursion());
        assert!(bounded_condition(&q, 0, DEFAULT_MAX_STATES).is_trivial_empty());
        assert!(bounded_condition(&q, 50, 10).is_trivial_empty());
    }
}
