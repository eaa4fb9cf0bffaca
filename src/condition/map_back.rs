//! Carrying a condition found on a residual program back to the original program.
//!
//! A stage that runs on the residual program `red(P, A)` of the accumulated condition `A`
//! hands on a condition `C_r` about the residual (or about the CFA a tool re-read from its C,
//! see [`crate::reducer::align`]). [`map_back`] turns it into a condition `M` about the original
//! program `P` with:
//!
//! * **sound**: `M` covers an original path only if every execution through it is verified,
//!   i.e. either covered by `A` or, on the residual, covered by `C_r`;
//! * **complete for uncovered paths**: if `C_r` covers the residual path `r(p)` of an original
//!   path `p` that `A` does not cover, `M` covers `p` (up to residual edges without spelling).
//!
//! Construction. The reducer is deterministic (its product nodes hold the *set* of `A`'s
//! states, Algorithm 1 determinised), so an original path `p` not covered by `A` has exactly
//! one residual path `r(p)`, and the residual location reached tells where `p` is in the
//! product. `M` is the product of the residual CFA with `C_r` run as a set of states (so
//! nondeterministic `C_r` are handled as Def. 2.2 says: some run accepts): a state of `M` is a
//! triple (residual location, residual call stack, set of `C_r` states). Reading the original
//! edge `g` at residual location `n` moves along the residual edge out of `n` that reads `g`
//! ([`crate::reducer::Residual::edge_reads`]) — into the callee's entry for a call the residual
//! program kept as a call — feeds `C_r` that edge's spelling, then follows the residual edges
//! that read nothing (the rest of an inlined call's parameter assignments, returns from inlined
//! callees) and the returns from kept calls (feeding `C_r` what the
//! alignment reads at the return) the same way. As soon as `C_r` accepts,
//! `M` goes to its accepting sink; when no `C_r` run is left, or the original edge has no
//! residual edge (the path is covered by `A`, so `M` need not cover it) or its residual edge
//! has no spelling, `M` has no transition. Following edges that read nothing before a `C_r`
//! acceptance is sound because each such edge is the only way on from its location.
//!
//! Why acceptance is sound: `M` accepts after a prefix `q` when `C_r` accepted on a prefix of
//! the spelling of `r(q)`. Every original execution extending `q` is either covered by `A` or
//! has a residual execution extending that prefix (Res, seed 001 Def. 2.3), which `C_r`
//! verified. `M` covers nothing else. Baton's state assumptions are only `true` and `false`
//! and a `false` transition is never followed, so no expression, and no variable the emitter
//! renamed, has to be carried over.

use super::{
    Assumption, ConditionAutomaton, ConditionError, ConditionRunner, ConditionState, Cut, StateId, Transition,
};
use crate::cfa::{EdgeId, LocId, LocationKind, Operation, Program};
use crate::reducer::align::Alignment;
use crate::reducer::Residual;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::Path;

/// Default bound on the states of a mapped condition.
pub const DEFAULT_MAX_STATES: usize = 1_000_000;

/// Largest condition file [`map_back_file`] reads: mapping runs in Baton itself, outside any
/// stage's budget, and a condition of millions of ARG states takes gigabytes to read.
pub const MAX_CONDITION_BYTES: u64 = 64 << 20;

/// Why a residual condition could not be mapped back.
#[derive(Debug, thiserror::Error)]
pub enum MapBackError {
    #[error(transparent)]
    Condition(#[from] ConditionError),
    #[error("{0}")]
    Program(String),
    #[error("the alignment has {found} spellings but the residual program has {expected} edges")]
    Alignment { expected: usize, found: usize },
    #[error("the mapped condition would exceed {limit} states")]
    TooLarge { limit: usize },
    #[error("{file}: {bytes} bytes, more than the {limit} bytes Baton maps back")]
    FileTooLarge { file: String, bytes: u64, limit: u64 },
}

/// The condition about `original` that covers what `condition` (about the program `alignment`
/// spells the residual in) covers of `residual` (see the module documentation).
pub fn map_back(
    original: &Program,
    residual: &Residual,
    alignment: &Alignment,
    condition: &ConditionAutomaton,
    max_states: usize,
) -> Result<ConditionAutomaton, MapBackError> {
    condition.check_well_formed()?;
    let program = &residual.program;
    if alignment.spellings.len() != program.edges.len()
        || alignment.at_return.len() != program.edges.len()
        || residual.edge_reads.len() != program.edges.len()
    {
        return Err(MapBackError::Alignment {
            expected: program.edges.len(),
            found: alignment.spellings.len(),
        });
    }
    let mapper = Mapper {
        residual,
        alignment,
        runner: ConditionRunner::new(condition),
    };
    let nothing = || ConditionAutomaton::nothing_verified(&original.hash);
    let everything = || ConditionAutomaton::fully_verified(&original.hash);
    let Some(prelude) = &alignment.prelude else {
        return Ok(nothing());
    };
    let start = mapper
        .read(mapper.runner.initial(), prelude)
        .and_then(|states| mapper.settle(program.main().entry, Vec::new(), states));
    let start = match start {
        Err(Stop::Covered) => return Ok(everything()),
        Err(Stop::Dead) => return Ok(nothing()),
        Ok(node) => node,
    };

    let mut builder = Builder::new();
    let initial = builder.state(start.clone());
    let mut queue = VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        let from = builder.ids[&node];
        let (at, stack, states) = node;
        for &e in program.out_edges(at) {
            let (Some(reads), Some(spelling)) =
                (residual.edge_reads[e.index()], &alignment.spellings[e.index()])
            else {
                continue;
            };
            let (to, mut stack) = (program.edge(e).to, stack.clone());
            let to = match program.edge(e).op {
                // A kept call: on into the callee.
                Operation::Call { callee, .. } => {
                    stack.push(e);
                    program.function(callee).entry
                }
                _ => to,
            };
            let next = mapper
                .read(states.clone(), spelling)
                .and_then(|s| mapper.settle(to, stack, s));
            let to = match next {
                Err(Stop::Covered) => ACCEPTING,
                Err(Stop::Dead) => continue,
                Ok(node) => match builder.ids.get(&node) {
                    Some(&q) => q,
                    None => {
                        if builder.locations.len() >= max_states {
                            return Err(MapBackError::TooLarge { limit: max_states });
                        }
                        let q = builder.state(node.clone());
                        queue.push_back(node);
                        q
                    }
                },
            };
            builder.transitions.entry((from, to)).or_default().insert(reads);
        }
    }
    let mapped = builder.finish(&original.hash, initial);
    mapped.check_well_formed()?;
    Ok(mapped)
}

/// Maps the condition file a tool wrote about the C file `residual_file` (emitted from
/// `residual`) back to `original`: re-reads the C file as the tool did, aligns, and maps.
pub fn map_back_file(
    original: &Program,
    residual: &Residual,
    residual_file: &Path,
    condition_file: &Path,
) -> Result<ConditionAutomaton, MapBackError> {
    let bytes = std::fs::metadata(condition_file).map(|m| m.len()).unwrap_or(0);
    if bytes > MAX_CONDITION_BYTES {
        return Err(MapBackError::FileTooLarge {
            file: condition_file.display().to_string(),
            bytes,
            limit: MAX_CONDITION_BYTES,
        });
    }
    let reread = crate::frontend::load_program(residual_file, original.data_model)
        .map_err(|e| MapBackError::Program(e.to_string()))?;
    let condition = super::load(condition_file, &reread)?;
    let alignment = Alignment::reparsed(&residual.program, &reread);
    map_back(original, residual, &alignment, &condition, DEFAULT_MAX_STATES)
}

/// Maps a condition about the residual CFA itself (e.g. CBMC's bounded condition computed on
/// it: every cycle of the emitted C is a cycle of the residual CFA) back to `original`.
pub fn map_back_residual(
    original: &Program,
    residual: &Residual,
    condition: &ConditionAutomaton,
) -> Result<ConditionAutomaton, MapBackError> {
    let alignment = Alignment::identity(&residual.program);
    map_back(original, residual, &alignment, condition, DEFAULT_MAX_STATES)
}

/// The accepting sink of a mapped condition.
const ACCEPTING: StateId = StateId(0);

/// A state of the mapped condition: residual location, the residual call edges of the active
/// calls (innermost last) and the set of `C_r` states.
type Node = (LocId, Vec<EdgeId>, BTreeSet<StateId>);

/// Why the mapped condition stops following a path.
enum Stop {
    /// Some `C_r` run accepted on the way.
    Covered,
    /// No `C_r` run is left, or the way has no spelling.
    Dead,
}

struct Mapper<'a> {
    residual: &'a Residual,
    alignment: &'a Alignment,
    runner: ConditionRunner<'a>,
}

impl Mapper<'_> {
    /// Runs `C_r` from `states` over `edges`.
    fn read(&self, mut states: BTreeSet<StateId>, edges: &[EdgeId]) -> Result<BTreeSet<StateId>, Stop> {
        if self.runner.accepts(&states) {
            return Err(Stop::Covered);
        }
        for &e in edges {
            if states.is_empty() {
                return Err(Stop::Dead);
            }
            states = self.runner.step(&states, e);
            if self.runner.accepts(&states) {
                return Err(Stop::Covered);
            }
        }
        if states.is_empty() {
            Err(Stop::Dead)
        } else {
            Ok(states)
        }
    }

    /// Follows the residual edges that read nothing from `at` (each the only edge of its
    /// location) and the returns of kept calls, and stops at the first location where the
    /// original path reads an edge.
    fn settle(
        &self,
        mut at: LocId,
        mut stack: Vec<EdgeId>,
        mut states: BTreeSet<StateId>,
    ) -> Result<Node, Stop> {
        let program = &self.residual.program;
        for _ in 0..=program.locations.len() + stack.len() {
            if program.location(at).kind == LocationKind::FunctionExit {
                if let Some(call) = stack.pop() {
                    states = self.read(states, &self.alignment.at_return[call.index()])?;
                    at = program.edge(call).to;
                    continue;
                }
            }
            let &[e] = program.out_edges(at) else {
                return Ok((at, stack, states));
            };
            if self.residual.edge_reads[e.index()].is_some() {
                return Ok((at, stack, states));
            }
            let spelling = self.alignment.spellings[e.index()].as_ref().ok_or(Stop::Dead)?;
            states = self.read(states, spelling)?;
            at = program.edge(e).to;
        }
        // A cycle of edges that read nothing: the reducer builds none; cover nothing.
        Err(Stop::Dead)
    }
}

/// Collects the states and transitions of the mapped condition.
struct Builder {
    /// The residual location of each state (index 0, the accepting sink, has none).
    locations: Vec<Option<LocId>>,
    ids: HashMap<Node, StateId>,
    transitions: BTreeMap<(StateId, StateId), BTreeSet<EdgeId>>,
}

impl Builder {
    fn new() -> Builder {
        Builder {
            locations: vec![None],
            ids: HashMap::new(),
            transitions: BTreeMap::new(),
        }
    }

    fn state(&mut self, node: Node) -> StateId {
        let id = StateId(self.locations.len() as u32);
        self.locations.push(Some(node.0));
        self.ids.insert(node, id);
        id
    }

    /// The automaton, without the states from which the accepting sink cannot be reached
    /// (they cover nothing).
    fn finish(self, hash: &str, initial: StateId) -> ConditionAutomaton {
        let mut predecessors: HashMap<StateId, Vec<StateId>> = HashMap::new();
        for &(from, to) in self.transitions.keys() {
            predecessors.entry(to).or_default().push(from);
        }
        let mut useful = BTreeSet::from([ACCEPTING]);
        let mut work = vec![ACCEPTING];
        while let Some(q) = work.pop() {
            for &p in predecessors.get(&q).map(Vec::as_slice).unwrap_or(&[]) {
                if useful.insert(p) {
                    work.push(p);
                }
            }
        }
        if !useful.contains(&initial) {
            return ConditionAutomaton::nothing_verified(hash);
        }
        let renumber: HashMap<StateId, StateId> = useful
            .iter()
            .enumerate()
            .map(|(i, &q)| (q, StateId(i as u32)))
            .collect();
        let states = useful
            .iter()
            .map(|&q| ConditionState {
                name: match self.locations[q.index()] {
                    None => "mapped_true".into(),
                    Some(at) => format!("mapped{}_{}", q.0, at.0),
                },
                accepting: q == ACCEPTING,
            })
            .collect();
        let transitions = self
            .transitions
            .into_iter()
            .filter(|((from, to), _)| useful.contains(from) && useful.contains(to))
            .map(|((from, to), edges)| Transition {
                from: renumber[&from],
                edges,
                assumption: Assumption::True,
                to: renumber[&to],
                cut: Cut::Explored,
            })
            .collect();
        ConditionAutomaton {
            program_hash: hash.to_string(),
            states,
            initial: renumber[&initial],
            transitions,
            state_cuts: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::emit_c::{emit_c, location_label};
    use crate::cfa::LocationKind;
    use crate::condition::fixtures;
    use crate::reducer::{reduce, DEFAULT_MAX_LOCATIONS};

    fn e(i: u32) -> EdgeId {
        EdgeId(i)
    }

    fn state(name: &str, accepting: bool) -> ConditionState {
        ConditionState {
            name: name.into(),
            accepting,
        }
    }

    fn tr(from: u32, edges: BTreeSet<EdgeId>, to: u32) -> Transition {
        Transition {
            from: StateId(from),
            edges,
            assumption: Assumption::True,
            to: StateId(to),
            cut: Cut::Explored,
        }
    }

    /// The fixture and its residual program for a condition that looks inside `f` (its state
    /// changes on `f`'s return statement E11) and verifies the error branch E7 after it, so
    /// the call is inlined (a condition with nothing to cut behind `f` would leave it a call).
    fn fixture_residual() -> (Program, Residual) {
        let program = fixtures::program();
        let others: BTreeSet<EdgeId> = program.edge_ids().filter(|&g| g != e(11)).collect();
        let after_f: BTreeSet<EdgeId> = others.iter().copied().filter(|&g| g != e(7)).collect();
        let inside_f = ConditionAutomaton {
            program_hash: program.hash.clone(),
            states: vec![state("q0", false), state("q1", false), state("acc", true)],
            initial: StateId(0),
            transitions: vec![
                tr(0, others, 0),
                tr(0, [e(11)].into(), 1),
                tr(1, after_f, 1),
                tr(1, [e(7)].into(), 2),
            ],
            state_cuts: Vec::new(),
        };
        let residual =
            reduce(&program, &inside_f, DEFAULT_MAX_LOCATIONS).unwrap_or_else(|err| panic!("{err}"));
        assert!(residual.program.functions.len() == 1, "f is inlined");
        (program, residual)
    }

    /// The fixture and its residual program for "nothing verified": the call of `f` stays a
    /// call of a copy of `f`.
    fn fixture_residual_with_call() -> (Program, Residual) {
        let program = fixtures::program();
        let nothing = ConditionAutomaton::nothing_verified(&program.hash);
        let residual =
            reduce(&program, &nothing, DEFAULT_MAX_LOCATIONS).unwrap_or_else(|err| panic!("{err}"));
        assert!(residual.program.functions.len() == 2, "f is called");
        (program, residual)
    }

    /// The residual edges that read the original edge `g`.
    fn reading(residual: &Residual, g: u32) -> BTreeSet<EdgeId> {
        residual
            .program
            .edge_ids()
            .filter(|r| residual.edge_reads[r.index()] == Some(e(g)))
            .collect()
    }

    /// The residual edges that read nothing.
    fn silent(residual: &Residual) -> BTreeSet<EdgeId> {
        residual
            .program
            .edge_ids()
            .filter(|r| residual.edge_reads[r.index()].is_none())
            .collect()
    }

    /// A condition about the residual: `q0` loops on every residual edge except `accept_on`,
    /// which leads to the accepting state.
    fn accept_on(residual: &Residual, accept_on: BTreeSet<EdgeId>) -> ConditionAutomaton {
        let others = residual
            .program
            .edge_ids()
            .filter(|r| !accept_on.contains(r))
            .collect();
        ConditionAutomaton {
            program_hash: residual.program.hash.clone(),
            states: vec![state("q0", false), state("acc", true)],
            initial: StateId(0),
            transitions: vec![tr(0, others, 0), tr(0, accept_on, 1)],
            state_cuts: Vec::new(),
        }
    }

    fn mapped(original: &Program, residual: &Residual, condition: &ConditionAutomaton) -> ConditionAutomaton {
        map_back_residual(original, residual, condition).unwrap_or_else(|err| panic!("{err}"))
    }

    fn path(edges: &[u32]) -> Vec<EdgeId> {
        edges.iter().map(|&i| e(i)).collect()
    }

    /// The fixture's paths (see `fixtures`): then-branch, else-branch through `f`, each into
    /// the error or to the return.
    const THEN_OK: &[u32] = &[0, 1, 2, 4, 5, 8, 10];
    const THEN_ERR: &[u32] = &[0, 1, 2, 4, 5, 7, 9];
    const ELSE_OK: &[u32] = &[0, 1, 3, 6, 11, 8, 10];
    const ELSE_ERR: &[u32] = &[0, 1, 3, 6, 11, 7, 9];

    #[test]
    fn residual_branch_condition_maps_to_the_original_branch() {
        let (program, residual) = fixture_residual();
        let c = accept_on(&residual, reading(&residual, 3));
        let m = mapped(&program, &residual, &c);
        assert!(m.covers(&path(ELSE_OK)) && m.covers(&path(ELSE_ERR)) && m.covers(&path(&[0, 1, 3])));
        assert!(!m.covers(&path(THEN_OK)) && !m.covers(&path(THEN_ERR)) && !m.covers(&path(&[0, 1])));
    }

    /// An acceptance on an edge that reads nothing (the return from the inlined `f`) is
    /// carried to the original edge before it (`f`'s return statement), never earlier.
    #[test]
    fn acceptance_on_a_silent_return_moves_to_the_edge_before() {
        let (program, residual) = fixture_residual();
        // The residual's silent edge: the return from `f`.
        let returns: BTreeSet<EdgeId> = silent(&residual)
            .into_iter()
            .filter(|&r| residual.program.edge(r).to != residual.program.main().exit)
            .collect();
        assert_eq!(returns.len(), 1);
        let m = mapped(&program, &residual, &accept_on(&residual, returns));
        assert!(m.covers(&path(&[0, 1, 3, 6, 11])));
        assert!(!m.covers(&path(&[0, 1, 3, 6])));
        assert!(!m.covers(&path(THEN_OK)));
        // Acceptance on the edges into main's exit (reading its return statement) covers the
        // complete paths to the return only.
        let last: BTreeSet<EdgeId> = residual
            .program
            .edge_ids()
            .filter(|&r| residual.program.edge(r).to == residual.program.main().exit)
            .collect();
        assert!(!last.is_empty());
        let m = mapped(&program, &residual, &accept_on(&residual, last));
        assert!(m.covers(&path(THEN_OK)) && m.covers(&path(ELSE_OK)));
        assert!(!m.covers(&path(&[0, 1, 2, 4, 5, 8])) && !m.covers(&path(ELSE_ERR)));
    }

    /// With an accumulated condition, the residual misses what it covers; a nondeterministic
    /// residual condition covers a path when one of its runs accepts.
    #[test]
    fn nondeterministic_condition_on_a_reduced_program() {
        let program = fixtures::program();
        // A covers the then-branch.
        let a = ConditionAutomaton {
            program_hash: program.hash.clone(),
            states: vec![state("a0", false), state("a1", true)],
            initial: StateId(0),
            transitions: vec![tr(0, [e(0), e(1)].into(), 0), tr(0, [e(2)].into(), 1)],
            state_cuts: Vec::new(),
        };
        let residual = reduce(&program, &a, DEFAULT_MAX_LOCATIONS).unwrap_or_else(|err| panic!("{err}"));
        assert!(reading(&residual, 2).is_empty(), "the then-branch is cut");
        // Two runs: one dies at the call, the other accepts after `!(x == 0)`.
        let all: BTreeSet<EdgeId> = residual.program.edge_ids().collect();
        let call = reading(&residual, 6);
        let not_call: BTreeSet<EdgeId> = all.difference(&call).copied().collect();
        let c = ConditionAutomaton {
            program_hash: residual.program.hash.clone(),
            states: vec![state("q0", false), state("dies", false), state("acc", true)],
            initial: StateId(0),
            transitions: vec![
                tr(0, all.clone(), 0),
                tr(0, all, 1),
                tr(1, not_call, 1),
                tr(0, reading(&residual, 8), 2),
            ],
            state_cuts: Vec::new(),
        };
        let m = mapped(&program, &residual, &c);
        assert!(m.covers(&path(ELSE_OK)));
        assert!(!m.covers(&path(ELSE_ERR)));
        // The union with A covers exactly what either verified.
        let u = crate::condition::union(&[a, m]).unwrap_or_else(|err| panic!("{err}"));
        assert!(u.covers(&path(THEN_OK)) && u.covers(&path(THEN_ERR)) && u.covers(&path(ELSE_OK)));
        assert!(!u.covers(&path(ELSE_ERR)));
    }

    /// Through a kept call: an acceptance inside the callee covers the original paths through
    /// `f` from there on; one after the return covers them after the return only.
    #[test]
    fn conditions_map_back_through_a_kept_call() {
        let (program, residual) = fixture_residual_with_call();
        let m = mapped(&program, &residual, &accept_on(&residual, reading(&residual, 11)));
        assert!(m.covers(&path(&[0, 1, 3, 6, 11])) && m.covers(&path(ELSE_ERR)));
        assert!(!m.covers(&path(&[0, 1, 3, 6])) && !m.covers(&path(THEN_OK)));
        let m = mapped(&program, &residual, &accept_on(&residual, reading(&residual, 7)));
        assert!(m.covers(&path(ELSE_ERR)) && m.covers(&path(THEN_ERR)));
        assert!(!m.covers(&path(ELSE_OK)) && !m.covers(&path(&[0, 1, 3, 6, 11])));
    }

    #[test]
    fn trivial_residual_conditions_map_to_trivial_conditions() {
        let (program, residual) = fixture_residual();
        let full = ConditionAutomaton::fully_verified(&residual.program.hash);
        assert!(mapped(&program, &residual, &full).is_trivial_full());
        let none = ConditionAutomaton::nothing_verified(&residual.program.hash);
        assert!(mapped(&program, &residual, &none).is_trivial_empty());
        // A residual condition that accepts nowhere reachable maps to an empty one.
        let dead = accept_on(&residual, BTreeSet::new());
        let m = mapped(&program, &residual, &dead);
        assert!(m.is_trivial_empty() && m.states.len() == 1, "{m:?}");
    }

    /// Every residual edge of the fixture is spelled by a path of the CFA re-read from the
    /// emitted C, from the label of its source to the label of its target (or the error).
    #[test]
    fn reread_cfa_spells_every_residual_edge() {
        for (program, residual) in [fixture_residual(), fixture_residual_with_call()] {
            reread_cfa_spells_the_residual(&program, &residual);
        }
    }

    fn reread_cfa_spells_the_residual(program: &Program, residual: &Residual) {
        let text = emit_c(&residual.program);
        let reread = crate::frontend::load_source("residual.c", &text, program.data_model)
            .unwrap_or_else(|err| panic!("{err}"));
        let alignment = Alignment::reparsed(&residual.program, &reread);
        assert_eq!(alignment.unmatched(), 0, "{alignment:?}");
        let label = |l: LocId| reread.location(l).label.clone();
        let prelude = alignment.prelude.clone().unwrap_or_else(|| panic!("no prelude"));
        let entry_label = Some(location_label(residual.program.main().entry));
        match prelude.last() {
            Some(&last) => assert_eq!(label(reread.edge(last).to), entry_label),
            None => assert_eq!(label(reread.main().entry), entry_label),
        }
        // Consecutive edges, or a callee's exit followed by the caller's edges after the call.
        let chained = |path: &[EdgeId]| {
            for pair in path.windows(2) {
                let (a, b) = (reread.edge(pair[0]), reread.edge(pair[1]));
                let returned = reread.location(a.to).kind == LocationKind::FunctionExit
                    && reread.location(a.to).func != reread.location(b.from).func;
                assert!(returned || a.to == b.from, "{pair:?}");
            }
        };
        for r in residual.program.edge_ids() {
            let spelling = alignment.spellings[r.index()].clone().unwrap_or_default();
            let edge = residual.program.edge(r);
            let first = reread.edge(spelling[0]);
            if let Operation::Call { callee, .. } = edge.op {
                // Up to the re-read call, then the callee's declarations up to its entry label;
                // at the return, from the callee's exit label to the return site's label.
                let callee = residual.program.function(callee);
                let call = spelling
                    .iter()
                    .position(|&g| matches!(reread.edge(g).op, Operation::Call { .. }))
                    .unwrap_or_else(|| panic!("no call in {spelling:?}"));
                chained(&spelling[..=call]);
                chained(&spelling[call + 1..]);
                let entry = spelling[call + 1..]
                    .last()
                    .map_or_else(|| label(reread.main().entry), |&g| label(reread.edge(g).to));
                let after = &alignment.at_return[r.index()];
                chained(after);
                assert_eq!(label(first.from), Some(location_label(edge.from)));
                assert_eq!(entry, Some(location_label(callee.entry)));
                assert_eq!(
                    label(reread.edge(after[0]).from),
                    Some(location_label(callee.exit))
                );
                assert_eq!(
                    label(reread.edge(after[after.len() - 1]).to),
                    Some(location_label(edge.to))
                );
                continue;
            }
            assert_eq!(label(first.from), Some(location_label(edge.from)));
            for pair in spelling.windows(2) {
                assert_eq!(reread.edge(pair[0]).to, reread.edge(pair[1]).from);
            }
            let end = reread.edge(spelling[spelling.len() - 1]).to;
            if residual.program.location(edge.to).kind == LocationKind::Error {
                assert_eq!(reread.location(end).kind, LocationKind::Error);
            } else {
                assert_eq!(label(end), Some(location_label(edge.to)));
            }
        }
    }
}
