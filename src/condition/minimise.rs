//! Minimising a condition automaton: the same covered paths (Def. 2.2) with fewer states.
//!
//! The state cuts stay as they are (they cover by state, not by path).
//!
//! The reducer's product has one node per (control state, set of automaton states), so every
//! automaton state the condition does not need becomes copies of program code. [`minimise`]
//! keeps what the condition says and drops how it was written down:
//!
//! * transitions that can never be part of a covering run go: those with an assumption other
//!   than `true`, with no edge, out of accepting states (a path is covered once it reaches one)
//!   or into states from which no accepting state can be reached (*dead* states: the condition
//!   has nothing left to say there, so the reducer falls back to the original code, `q_r`);
//! * states that cover the same continuations are merged: the coarsest bisimulation, found by
//!   partition refinement (all accepting states in one block, blocks split by the edges and
//!   target blocks of their transitions until nothing splits). Bisimilar states have the same
//!   covered continuations, so the quotient covers exactly the paths the input covers, also for
//!   nondeterministic automata.
//!
//! Each refinement round looks only at the states a successor of which changed block; when the
//! work passes the caller's budget the merging is left out (the result of the first bullet
//! alone is returned, also exact).

use super::{Assumption, ConditionAutomaton, ConditionState, Cut, StateId, Transition};
use crate::cfa::EdgeId;
use std::collections::HashMap;

/// Default bound on the work of the refinement: transition edges visited over all rounds.
pub const DEFAULT_REFINEMENT_WORK: usize = 50_000_000;

/// A state's outgoing behaviour: its (edge, target) pairs, sorted, without repeats.
type Moves = Vec<(EdgeId, u32)>;

/// The condition covering the same paths as `condition` with dead states and unusable
/// transitions removed and bisimilar states merged (see the module documentation). Merging is
/// left out when it would visit more than `max_work` transition edges.
pub fn minimise(condition: &ConditionAutomaton, max_work: usize) -> ConditionAutomaton {
    let hash = &condition.program_hash;
    if condition.is_trivial_full() {
        return ConditionAutomaton::fully_verified(hash);
    }
    let n = condition.states.len();
    let accepting: Vec<bool> = (0..n).map(|i| condition.states[i].accepting).collect();
    // Transitions a covering run can use, per source state.
    let mut moves: Vec<Moves> = vec![Vec::new(); n];
    for t in &condition.transitions {
        let usable = t.assumption == Assumption::True && t.from.index() < n && t.to.index() < n;
        if usable && !accepting[t.from.index()] {
            moves[t.from.index()].extend(t.edges.iter().map(|&e| (e, t.to.0)));
        }
    }
    let live = live_states(condition.initial, &moves, &accepting);
    if !live[condition.initial.index()] {
        return ConditionAutomaton {
            state_cuts: condition.state_cuts.clone(),
            ..ConditionAutomaton::nothing_verified(hash)
        };
    }
    for (q, m) in moves.iter_mut().enumerate() {
        if live[q] {
            m.retain(|&(_, to)| live[to as usize]);
            m.sort_unstable();
            m.dedup();
        } else {
            m.clear();
        }
    }
    let block = refine(&moves, &accepting, &live, max_work).unwrap_or_else(|| {
        let mut next = 0;
        (0..n)
            .map(|q| {
                let b = next;
                next += u32::from(live[q]);
                b
            })
            .collect()
    });
    quotient(condition, &moves, &live, &block)
}

/// Per state: reachable from `initial` and some accepting state is reachable from it.
fn live_states(initial: StateId, moves: &[Moves], accepting: &[bool]) -> Vec<bool> {
    let n = moves.len();
    let mut reachable = vec![false; n];
    let mut stack = vec![initial.index()];
    reachable[initial.index()] = true;
    let mut predecessors: Vec<Vec<u32>> = vec![Vec::new(); n];
    while let Some(q) = stack.pop() {
        for &(_, to) in &moves[q] {
            predecessors[to as usize].push(q as u32);
            if !reachable[to as usize] {
                reachable[to as usize] = true;
                stack.push(to as usize);
            }
        }
    }
    let mut live = vec![false; n];
    let mut stack: Vec<usize> = (0..n).filter(|&q| reachable[q] && accepting[q]).collect();
    for &q in &stack {
        live[q] = true;
    }
    while let Some(q) = stack.pop() {
        for &p in &predecessors[q] {
            if !live[p as usize] {
                live[p as usize] = true;
                stack.push(p as usize);
            }
        }
    }
    live
}

/// The coarsest bisimulation of the live states as a block number per state (dense from 0 for
/// live states), or `None` when the work passes `max_work`.
///
/// Members of a block share its *signature* (their moves with targets replaced by blocks),
/// except *dirty* states, a successor of which changed block. Each round recomputes only the
/// dirty states' signatures and splits their blocks by them: the clean members, or if none the
/// largest group, keep the block; every other group gets a new block, which makes its members'
/// predecessors dirty. Every move is a split, so there are fewer rounds than states, and a
/// chain of states is split in linear rather than quadratic work.
fn refine(moves: &[Moves], accepting: &[bool], live: &[bool], max_work: usize) -> Option<Vec<u32>> {
    let n = moves.len();
    let mut predecessors: Vec<Vec<u32>> = vec![Vec::new(); n];
    for q in (0..n).filter(|&q| live[q]) {
        for &(_, to) in &moves[q] {
            predecessors[to as usize].push(q as u32);
        }
    }
    for p in &mut predecessors {
        p.dedup();
    }
    let mut block: Vec<u32> = (0..n).map(|q| u32::from(!accepting[q])).collect();
    let mut size = vec![0usize; 2];
    for q in (0..n).filter(|&q| live[q]) {
        size[block[q] as usize] += 1;
    }
    // The signature of each block's clean members (meaningless while it has none).
    let mut signatures: Vec<Moves> = vec![Vec::new(); 2];
    let mut dirty: Vec<u32> = (0..n as u32).filter(|&q| live[q as usize]).collect();
    let mut is_dirty = vec![false; n];
    let mut work = 0usize;
    while !dirty.is_empty() {
        // Per block: its dirty members, grouped by signature.
        let mut examined: HashMap<u32, HashMap<Moves, Vec<u32>>> = HashMap::new();
        for &q in &dirty {
            is_dirty[q as usize] = false;
            work += moves[q as usize].len() + 1;
            if work > max_work {
                return None;
            }
            let mut signature: Moves = moves[q as usize]
                .iter()
                .map(|&(e, to)| (e, block[to as usize]))
                .collect();
            signature.sort_unstable();
            signature.dedup();
            let groups = examined.entry(block[q as usize]).or_default();
            groups.entry(signature).or_default().push(q);
        }
        dirty.clear();
        let mut examined: Vec<(u32, HashMap<Moves, Vec<u32>>)> = examined.into_iter().collect();
        examined.sort_unstable_by_key(|(b, _)| *b);
        for (b, groups) in examined {
            let in_groups: usize = groups.values().map(Vec::len).sum();
            let mut groups: Vec<(Moves, Vec<u32>)> = groups.into_iter().collect();
            // Deterministic: larger groups first, then by signature.
            groups.sort_unstable_by(|x, y| y.1.len().cmp(&x.1.len()).then_with(|| x.0.cmp(&y.0)));
            let mut groups = groups.into_iter();
            if in_groups == size[b as usize] {
                if let Some((signature, _)) = groups.next() {
                    signatures[b as usize] = signature;
                }
            }
            for (signature, members) in groups {
                if signature == signatures[b as usize] {
                    continue;
                }
                let fresh = signatures.len() as u32;
                signatures.push(signature);
                size.push(members.len());
                size[b as usize] -= members.len();
                for &q in &members {
                    block[q as usize] = fresh;
                    for &p in &predecessors[q as usize] {
                        if !is_dirty[p as usize] {
                            is_dirty[p as usize] = true;
                            dirty.push(p);
                        }
                    }
                }
            }
        }
    }
    // Dense numbers in the order of first appearance.
    let mut dense: HashMap<u32, u32> = HashMap::new();
    for q in (0..n).filter(|&q| live[q]) {
        let next = dense.len() as u32;
        block[q] = *dense.entry(block[q]).or_insert(next);
    }
    Some(block)
}

/// The automaton of the blocks: one state per block (named after its first state), the moves
/// of its first state with targets replaced by blocks, grouped by target.
fn quotient(
    condition: &ConditionAutomaton,
    moves: &[Moves],
    live: &[bool],
    block: &[u32],
) -> ConditionAutomaton {
    let n = moves.len();
    let mut first: Vec<Option<usize>> = Vec::new();
    for q in (0..n).filter(|&q| live[q]) {
        let b = block[q] as usize;
        if first.len() <= b {
            first.resize(b + 1, None);
        }
        first[b].get_or_insert(q);
    }
    let states: Vec<ConditionState> = first
        .iter()
        .map(|q| condition.states[q.unwrap_or_default()].clone())
        .collect();
    let mut transitions = Vec::new();
    for (b, q) in first.iter().enumerate() {
        let Some(q) = *q else { continue };
        let mut by_target: Vec<(u32, EdgeId)> =
            moves[q].iter().map(|&(e, to)| (block[to as usize], e)).collect();
        by_target.sort_unstable();
        for group in by_target.chunk_by(|a, b| a.0 == b.0) {
            transitions.push(Transition {
                from: StateId(b as u32),
                edges: group.iter().map(|&(_, e)| e).collect(),
                assumption: Assumption::True,
                to: StateId(group[0].0),
                cut: Cut::Explored,
            });
        }
    }
    ConditionAutomaton {
        program_hash: condition.program_hash.clone(),
        states,
        initial: StateId(block[condition.initial.index()]),
        transitions,
        state_cuts: condition.state_cuts.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(name: &str, accepting: bool) -> ConditionState {
        ConditionState {
            name: name.into(),
            accepting,
        }
    }

    fn go(from: u32, edges: &[u32], to: u32) -> Transition {
        Transition {
            from: StateId(from),
            edges: edges.iter().map(|&e| EdgeId(e)).collect(),
            assumption: Assumption::True,
            to: StateId(to),
            cut: Cut::Explored,
        }
    }

    /// Every edge sequence over `alphabet` up to length `len`.
    fn paths(alphabet: &[u32], len: usize) -> Vec<Vec<EdgeId>> {
        let mut all = vec![Vec::new()];
        let mut layer = vec![Vec::new()];
        for _ in 0..len {
            let mut next = Vec::new();
            for p in &layer {
                for &e in alphabet {
                    let mut q: Vec<EdgeId> = p.clone();
                    q.push(EdgeId(e));
                    next.push(q);
                }
            }
            all.extend(next.iter().cloned());
            layer = next;
        }
        all
    }

    /// Asserts that `m` covers exactly the paths over `alphabet` up to length `len` that `c` covers.
    fn assert_same_coverage(c: &ConditionAutomaton, m: &ConditionAutomaton, alphabet: &[u32], len: usize) {
        for p in paths(alphabet, len) {
            assert_eq!(c.covers(&p), m.covers(&p), "path {p:?}");
        }
    }

    /// Two loop unrollings that behave the same (each: E1 verified, E2 on), a dead chain and a
    /// `false` transition: minimised to one looping state and the accepting sink.
    fn unrolled() -> ConditionAutomaton {
        ConditionAutomaton {
            program_hash: "h".into(),
            states: vec![
                state("T1", true),
                state("A", false),
                state("B", false),
                state("T2", true),
                state("D1", false),
                state("D2", false),
            ],
            initial: StateId(1),
            transitions: vec![
                go(1, &[1], 0),
                go(1, &[2], 2),
                go(2, &[1], 3),
                go(2, &[2], 1),
                go(1, &[3], 4),
                go(4, &[3], 5),
                Transition {
                    assumption: Assumption::False,
                    ..go(2, &[4], 0)
                },
            ],
            state_cuts: Vec::new(),
        }
    }

    #[test]
    fn equivalent_states_merge_and_dead_states_go() {
        let c = unrolled();
        let m = minimise(&c, DEFAULT_REFINEMENT_WORK);
        assert!(m.check_well_formed().is_ok());
        assert_eq!(m.states.len(), 2, "{m:?}");
        assert_same_coverage(&c, &m, &[1, 2, 3, 4], 5);
    }

    #[test]
    fn without_budget_only_dead_states_go() {
        let c = unrolled();
        let m = minimise(&c, 0);
        assert_eq!(m.states.len(), 4, "{m:?}");
        assert_same_coverage(&c, &m, &[1, 2, 3, 4], 5);
    }

    #[test]
    fn conditions_without_reachable_acceptance_say_nothing() {
        let mut c = unrolled();
        c.transitions.retain(|t| t.to != StateId(0) && t.to != StateId(3));
        assert!(minimise(&c, DEFAULT_REFINEMENT_WORK).is_trivial_empty());
        assert!(minimise(&ConditionAutomaton::fully_verified("h"), 0).is_trivial_full());
    }

    #[test]
    fn nondeterministic_choices_keep_their_covered_paths() {
        // From A, E1 goes to B (then E2 verified) or to C (then E3 verified).
        let c = ConditionAutomaton {
            program_hash: "h".into(),
            states: vec![
                state("T", true),
                state("A", false),
                state("B", false),
                state("C", false),
            ],
            initial: StateId(1),
            transitions: vec![
                go(1, &[1], 2),
                go(1, &[1], 3),
                go(2, &[2], 0),
                go(3, &[3], 0),
                go(3, &[1], 1),
            ],
            state_cuts: Vec::new(),
        };
        let m = minimise(&c, DEFAULT_REFINEMENT_WORK);
        assert_same_coverage(&c, &m, &[1, 2, 3], 6);
    }

    #[test]
    fn random_automata_keep_their_covered_paths() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |bound: u32| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 33) % u64::from(bound)) as u32
        };
        for _ in 0..300 {
            let count = 2 + next(7);
            let states = (0..count)
                .map(|i| state(&format!("s{i}"), i > 0 && next(4) == 0))
                .collect();
            let mut transitions = Vec::new();
            for _ in 0..next(3 * count) {
                let (from, to) = (next(count), next(count));
                transitions.push(go(from, &[1 + next(3), 1 + next(3)], to));
            }
            let mut c = ConditionAutomaton {
                program_hash: "h".into(),
                states,
                initial: StateId(0),
                transitions,
                state_cuts: Vec::new(),
            };
            // Def. 2.1: nothing leaves the accepting states.
            let accepting: Vec<bool> = c.states.iter().map(|s| s.accepting).collect();
            c.transitions
                .retain(|t| !accepting[t.from.index()] || accepting[t.to.index()]);
            let m = minimise(&c, DEFAULT_REFINEMENT_WORK);
            assert!(m.check_well_formed().is_ok(), "{m:?}");
            assert!(m.states.len() <= c.states.len());
            assert_same_coverage(&c, &m, &[1, 2, 3], 6);
        }
    }
}
