//! Condition automata (seed 001, Def. 2.1/2.2): what a verifier has verified, as an automaton
//! over CFA edges.
//!
//! A [`ConditionAutomaton`] has states, one initial state, a set of accepting states and
//! transitions labelled with a set of CFA edges and a state assumption. Accepting states mean
//! "every path that got here is verified". Well-formedness (Def. 2.1): no transition leaves the
//! accepting set.
//!
//! Coverage (Def. 2.2): a path `g_1 … g_n` is covered if some run `q_0 → … → q_k` with
//! `0 <= k <= n` reads the prefix `g_1 … g_k` (each `g_i` in the edge set of the i-th
//! transition), every assumption on the run holds, and `q_k` is accepting. Baton's assumptions are
//! only [`Assumption::True`] and [`Assumption::False`]; a transition with a `false` (or any
//! non-`true`) assumption can never be part of a covering run, so the reducer and the guide treat
//! it like a missing transition (Alg. 1 of seed 001 sends such edges to the residual state).
//!
//! File formats: [`graphml`] (SV-COMP witness style) and [`cpachecker`] (CPAchecker's
//! `AssumptionAutomaton` text format); [`load`] detects the format by content.

pub mod cpachecker;
pub mod from_arg;
pub mod graphml;
pub mod map_back;
pub mod minimise;
pub mod state_cut;

use crate::cfa::{EdgeId, Operation, Program};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

/// A state of a condition automaton (index into [`ConditionAutomaton::states`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct StateId(pub u32);

impl StateId {
    /// The index into [`ConditionAutomaton::states`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A condition automaton bound to one program (by the SHA-256 of its source file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConditionAutomaton {
    /// SHA-256 (hex) of the program file this condition talks about ([`Program::hash`]).
    pub program_hash: String,
    pub states: Vec<ConditionState>,
    pub initial: StateId,
    pub transitions: Vec<Transition>,
    /// Executions covered by the state they take an edge in, on any path
    /// ([`state_cut::StateCut`]); a path is covered if the automaton or a state cut covers it.
    #[serde(default)]
    pub state_cuts: Vec<state_cut::StateCut>,
}

/// A state; `name` is unique within the automaton and used by the file formats.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConditionState {
    pub name: String,
    /// Paths reaching this state are verified.
    pub accepting: bool,
}

/// A transition `from --(edges, assumption)--> to`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transition {
    pub from: StateId,
    /// The CFA edges this transition reads (Def. 2.1: an element of `2^G`).
    pub edges: BTreeSet<EdgeId>,
    pub assumption: Assumption,
    pub to: StateId,
    /// What the transition's cut stands for (only meaningful into an accepting state).
    #[serde(default)]
    pub cut: Cut,
}

/// What a transition into an accepting state stands for. A guided analysis follows every one
/// (it then need not prove the edges infeasible, or explore the verified executions, itself);
/// a reducer copies program code only for [`Cut::Explored`] ones
/// ([`ConditionAutomaton::reducer_view`]). Only a hint: dropping a transition covers fewer
/// paths, which is always sound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
pub enum Cut {
    /// The verifier verified the executions through it (or nothing more is known).
    #[default]
    Explored,
    /// The verifier found the edges infeasible after the run's prefix: no execution to remove,
    /// so copying code to cut them would give a residual with the same executions.
    Infeasible,
    /// Its executions are also covered by one of the condition's [`state_cut::StateCut`]s,
    /// which a reducer applies without copying code.
    InStateCut,
}

impl Cut {
    /// The word a file format writes for the cut (nothing for [`Cut::Explored`]).
    pub fn word(self) -> Option<&'static str> {
        match self {
            Cut::Explored => None,
            Cut::Infeasible => Some("infeasible"),
            Cut::InStateCut => Some("state-cut"),
        }
    }

    /// The cut a format's word names.
    pub fn from_word(word: &str) -> Option<Cut> {
        match word {
            "infeasible" => Some(Cut::Infeasible),
            "state-cut" => Some(Cut::InStateCut),
            _ => None,
        }
    }
}

/// A state assumption. Only `True` lets a reducer or guide follow a transition; anything a
/// verifier could not establish unconditionally is `False` (sound: it covers fewer paths).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Assumption {
    True,
    False,
}

/// Errors about conditions: ill-formed automata, wrong program, unreadable files.
#[derive(Debug, thiserror::Error)]
pub enum ConditionError {
    #[error("condition is not well-formed (Def. 2.1): transition {index} goes from accepting state `{from}` to non-accepting state `{to}`")]
    LeavesAccepting { index: usize, from: String, to: String },
    #[error("condition is malformed: {0}")]
    Malformed(String),
    /// The condition was written for another program; names both files.
    #[error(
        "{condition}: condition is for the program with sha256 {expected}, but {program} has sha256 {found}"
    )]
    WrongProgram {
        condition: String,
        program: String,
        expected: String,
        found: String,
    },
    #[error("transition {index} names CFA edge {edge}, but the program has only {count} edges")]
    UnknownEdge {
        index: usize,
        edge: EdgeId,
        count: usize,
    },
    #[error("{file}:{line}: {message}")]
    Parse {
        file: String,
        line: usize,
        message: String,
    },
    #[error("{file}: {message}")]
    File { file: String, message: String },
    #[error("cannot combine conditions: {0}")]
    Combine(String),
}

impl ConditionAutomaton {
    /// The condition "everything verified": a single accepting initial state.
    pub fn fully_verified(program_hash: &str) -> ConditionAutomaton {
        ConditionAutomaton {
            program_hash: program_hash.to_string(),
            states: vec![ConditionState {
                name: "q0".into(),
                accepting: true,
            }],
            initial: StateId(0),
            transitions: Vec::new(),
            state_cuts: Vec::new(),
        }
    }

    /// The condition "nothing verified": a single non-accepting initial state, no transitions.
    pub fn nothing_verified(program_hash: &str) -> ConditionAutomaton {
        ConditionAutomaton {
            program_hash: program_hash.to_string(),
            states: vec![ConditionState {
                name: "q0".into(),
                accepting: false,
            }],
            initial: StateId(0),
            transitions: Vec::new(),
            state_cuts: Vec::new(),
        }
    }

    /// The condition as a reducer uses it: without the transitions of [`Cut::Infeasible`] and
    /// [`Cut::InStateCut`] cuts — the same executions covered (the state cuts stay), with
    /// fewer paths to tell apart — so that the reducer copies program code only for cuts that
    /// remove executions no state cut removes.
    pub fn reducer_view(mut self) -> ConditionAutomaton {
        self.transitions.retain(|t| t.cut == Cut::Explored);
        self
    }

    /// True if the condition covers every path (its initial state is accepting).
    pub fn is_trivial_full(&self) -> bool {
        self.states.get(self.initial.index()).is_some_and(|s| s.accepting)
    }

    /// True if the condition covers no path: no accepting state is reachable from the initial
    /// state over transitions with assumption `true`, and it has no state cut.
    pub fn is_trivial_empty(&self) -> bool {
        self.state_cuts.is_empty() && self.automaton_covers_nothing()
    }

    /// True if the automaton (the state cuts aside) covers no path.
    pub fn automaton_covers_nothing(&self) -> bool {
        let reachable = self.reachable_true();
        !self.states.iter().zip(reachable).any(|(s, r)| r && s.accepting)
    }

    /// True if `q` exists and is accepting.
    pub fn is_accepting(&self, q: StateId) -> bool {
        self.states.get(q.index()).is_some_and(|s| s.accepting)
    }

    /// The name of a state (`?N` for an out-of-range id).
    pub fn state_name(&self, q: StateId) -> String {
        match self.states.get(q.index()) {
            Some(s) => s.name.clone(),
            None => format!("?{}", q.0),
        }
    }

    /// Looks a state up by name.
    pub fn state_by_name(&self, name: &str) -> Option<StateId> {
        self.states
            .iter()
            .position(|s| s.name == name)
            .map(|i| StateId(i as u32))
    }

    /// Structural checks independent of the program: state ids in range, state names unique and
    /// non-empty, and Def. 2.1 well-formedness (no transition leaves the accepting set).
    pub fn check_well_formed(&self) -> Result<(), ConditionError> {
        let n = self.states.len();
        if self.initial.index() >= n {
            return Err(ConditionError::Malformed(format!(
                "initial state {} does not exist ({n} states)",
                self.initial.0
            )));
        }
        let mut names = BTreeSet::new();
        for s in &self.states {
            let word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '$');
            if s.name.is_empty() || !s.name.chars().all(word) {
                return Err(ConditionError::Malformed(format!(
                    "state name `{}` is empty or has characters other than letters, digits, `_`, `.`, `$`",
                    s.name
                )));
            }
            if !names.insert(s.name.as_str()) {
                return Err(ConditionError::Malformed(format!(
                    "state name `{}` is used twice",
                    s.name
                )));
            }
        }
        for (index, t) in self.transitions.iter().enumerate() {
            for q in [t.from, t.to] {
                if q.index() >= n {
                    return Err(ConditionError::Malformed(format!(
                        "transition {index} uses state {} which does not exist ({n} states)",
                        q.0
                    )));
                }
            }
            if self.is_accepting(t.from) && !self.is_accepting(t.to) {
                return Err(ConditionError::LeavesAccepting {
                    index,
                    from: self.state_name(t.from),
                    to: self.state_name(t.to),
                });
            }
        }
        Ok(())
    }

    /// Full validation against a program: well-formedness, the program hash, and every edge id
    /// naming an edge of `program`.
    pub fn validate(&self, program: &Program) -> Result<(), ConditionError> {
        if self.program_hash != program.hash {
            return Err(ConditionError::WrongProgram {
                condition: "condition".into(),
                program: program.files.first().cloned().unwrap_or_default(),
                expected: self.program_hash.clone(),
                found: program.hash.clone(),
            });
        }
        self.check_well_formed()?;
        let count = program.edges.len();
        for (index, t) in self.transitions.iter().enumerate() {
            if let Some(&edge) = t.edges.iter().find(|e| e.index() >= count) {
                return Err(ConditionError::UnknownEdge { index, edge, count });
            }
        }
        for cut in &self.state_cuts {
            if cut.edge.index() >= count {
                return Err(ConditionError::Malformed(format!(
                    "a state cut names CFA edge {}, but the program has only {count} edges",
                    cut.edge
                )));
            }
            let variables = program.variables.len();
            if cut.states.iter().flatten().any(|(v, _)| v.index() >= variables) {
                return Err(ConditionError::Malformed(format!(
                    "a state cut names a variable the program does not have (it has {variables})"
                )));
            }
        }
        Ok(())
    }

    /// The transitions leaving `q`, in order.
    pub fn transitions_from(&self, q: StateId) -> impl Iterator<Item = &Transition> + '_ {
        self.transitions.iter().filter(move |t| t.from == q)
    }

    /// For each state, the indices of the transitions leaving it, in order (one pass over the
    /// transitions, for writing every state's transitions in linear time).
    pub fn transitions_by_state(&self) -> Vec<Vec<usize>> {
        let mut by_state = vec![Vec::new(); self.states.len()];
        for (k, t) in self.transitions.iter().enumerate() {
            if let Some(list) = by_state.get_mut(t.from.index()) {
                list.push(k);
            }
        }
        by_state
    }

    /// The set of states a run starts in.
    pub fn start_states(&self) -> BTreeSet<StateId> {
        BTreeSet::from([self.initial])
    }

    /// True if some state of `states` is accepting.
    pub fn any_accepting(&self, states: &BTreeSet<StateId>) -> bool {
        states.iter().any(|&q| self.is_accepting(q))
    }

    /// A cursor for following one path edge by edge.
    pub fn cursor(&self) -> Cursor<'_> {
        Cursor::new(self)
    }

    /// Def. 2.2: does the automaton cover the path (a sequence of CFA edges)? True as soon as a
    /// run on some prefix (including the empty one) reaches an accepting state. The state cuts
    /// need the states along the path ([`state_cut::StateCut::holds`]).
    pub fn covers(&self, path: &[EdgeId]) -> bool {
        let mut cursor = self.cursor();
        for &edge in path {
            if cursor.covered() || cursor.is_dead() {
                break;
            }
            cursor.step(edge);
        }
        cursor.covered()
    }

    /// Per state: reachable from the initial state over transitions with assumption `true`.
    fn reachable_true(&self) -> Vec<bool> {
        let by_state = self.transitions_by_state();
        let mut seen = vec![false; self.states.len()];
        let mut work = Vec::new();
        if let Some(s) = seen.get_mut(self.initial.index()) {
            *s = true;
            work.push(self.initial);
        }
        while let Some(q) = work.pop() {
            for &k in &by_state[q.index()] {
                let t = &self.transitions[k];
                if t.assumption != Assumption::True || t.edges.is_empty() {
                    continue;
                }
                if let Some(s) = seen.get_mut(t.to.index()) {
                    if !*s {
                        *s = true;
                        work.push(t.to);
                    }
                }
            }
        }
        seen
    }

    /// Counts and the covered share of CFA edges; see [`ConditionSummary`].
    pub fn summary(&self, program: &Program) -> ConditionSummary {
        let total = program.edges.len();
        let full = self.is_trivial_full();
        let mut frontier = vec![false; total];
        let mut mentioned = vec![false; total];
        for t in &self.transitions {
            let into_accepting =
                t.assumption == Assumption::True && !self.is_accepting(t.from) && self.is_accepting(t.to);
            for e in t.edges.iter().filter(|e| e.index() < total) {
                mentioned[e.index()] = true;
                frontier[e.index()] |= into_accepting;
            }
        }
        let count = |marks: Vec<bool>| marks.into_iter().filter(|&m| m).count();
        let covered_edges = if full { total } else { count(frontier) };
        ConditionSummary {
            program_hash: self.program_hash.clone(),
            states: self.states.len(),
            accepting_states: self.states.iter().filter(|s| s.accepting).count(),
            transitions: self.transitions.len(),
            false_transitions: self
                .transitions
                .iter()
                .filter(|t| t.assumption == Assumption::False)
                .count(),
            initial_accepting: full,
            covers_nothing: self.is_trivial_empty(),
            state_cuts: self.state_cuts.len(),
            cfa_edges: total,
            mentioned_edges: count(mentioned),
            covered_edges,
        }
    }

    /// A readable listing of the automaton, one transition per line, with edges rendered as
    /// `E<id> N<from>→N<to> file:line "<operation>"`.
    pub fn render(&self, program: &Program) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "condition for program sha256 {} (initial {})",
            self.program_hash,
            self.state_name(self.initial)
        );
        let by_state = self.transitions_by_state();
        for (i, s) in self.states.iter().enumerate() {
            let _ = write!(
                out,
                "state {}{}",
                s.name,
                if s.accepting { " (accepting)" } else { "" }
            );
            let _ = writeln!(out);
            for t in by_state[i].iter().map(|&k| &self.transitions[k]) {
                let _ = writeln!(
                    out,
                    "  -> {}{}",
                    self.state_name(t.to),
                    if t.assumption == Assumption::False {
                        " assuming false"
                    } else {
                        ""
                    }
                );
                for &e in &t.edges {
                    let _ = writeln!(out, "       {}", describe_edge(program, e));
                }
            }
        }
        for cut in &self.state_cuts {
            let _ = writeln!(out, "state cut {}", cut.render(program));
            let _ = writeln!(out, "       {}", describe_edge(program, cut.edge));
        }
        out
    }

    /// Seed-000-style assumption formulas `(pc = l) ⇒ false` for the locations where the
    /// condition gives up: the source location of every edge that some reachable non-accepting
    /// state reads on a transition with assumption `false`. This is a path-insensitive
    /// *summary* (the automaton itself is path-sensitive), meant for humans.
    pub fn render_location_assumptions(&self, program: &Program) -> Vec<String> {
        let reach = self.reachable_true();
        let mut locs = BTreeSet::new();
        for t in &self.transitions {
            if t.assumption == Assumption::False && reach.get(t.from.index()).copied().unwrap_or(false) {
                for &e in &t.edges {
                    if e.index() < program.edges.len() {
                        locs.insert(program.edge(e).from);
                    }
                }
            }
        }
        locs.into_iter().map(|l| format!("(pc = {l}) ⇒ false")).collect()
    }
}

/// `E<id> N<from>→N<to> file:line "<operation>"` (or `E<id> (not in program)`).
pub(crate) fn describe_edge(program: &Program, e: EdgeId) -> String {
    match program.edges.get(e.index()) {
        Some(edge) => format!(
            "{e} {}→{} {} \"{}\"",
            edge.from,
            edge.to,
            program.describe(edge.source),
            program.render_operation(&edge.op)
        ),
        None => format!("{e} (not in program)"),
    }
}

/// Runs a condition automaton as a set-of-states simulation (Def. 2.2), with the transitions
/// indexed by source state. The reducer, guide mode and [`Cursor`] all step through this.
#[derive(Debug, Clone)]
pub struct ConditionRunner<'a> {
    automaton: &'a ConditionAutomaton,
    /// Outgoing transitions with assumption `true`, per state.
    outgoing: Vec<Vec<usize>>,
}

impl<'a> ConditionRunner<'a> {
    /// Indexes the automaton's transitions.
    pub fn new(automaton: &'a ConditionAutomaton) -> ConditionRunner<'a> {
        let mut outgoing = vec![Vec::new(); automaton.states.len()];
        for (i, t) in automaton.transitions.iter().enumerate() {
            if t.assumption == Assumption::True {
                if let Some(list) = outgoing.get_mut(t.from.index()) {
                    list.push(i);
                }
            }
        }
        ConditionRunner { automaton, outgoing }
    }

    /// The automaton this runner steps through.
    pub fn automaton(&self) -> &'a ConditionAutomaton {
        self.automaton
    }

    /// The set of states a run starts in.
    pub fn initial(&self) -> BTreeSet<StateId> {
        self.automaton.start_states()
    }

    /// Every state reachable from `states` by one transition with assumption `true` whose edge
    /// set contains `edge`; empty when every run stops.
    pub fn step(&self, states: &BTreeSet<StateId>, edge: EdgeId) -> BTreeSet<StateId> {
        let mut next = BTreeSet::new();
        for q in states {
            for &i in self.outgoing.get(q.index()).map(Vec::as_slice).unwrap_or(&[]) {
                let t = &self.automaton.transitions[i];
                if t.edges.contains(&edge) {
                    next.insert(t.to);
                }
            }
        }
        next
    }

    /// True if some state of `states` is accepting: the path so far is covered.
    pub fn accepts(&self, states: &BTreeSet<StateId>) -> bool {
        self.automaton.any_accepting(states)
    }
}

impl crate::cpa::engine::Guide for ConditionRunner<'_> {
    fn initial(&self) -> BTreeSet<StateId> {
        ConditionRunner::initial(self)
    }

    fn step(&self, states: &BTreeSet<StateId>, step: crate::cpa::Step) -> BTreeSet<StateId> {
        match step {
            crate::cpa::Step::Edge(e) => ConditionRunner::step(self, states, e),
            // Returns are silent for conditions.
            crate::cpa::Step::Return { .. } => states.clone(),
        }
    }

    fn accepts(&self, states: &BTreeSet<StateId>) -> bool {
        ConditionRunner::accepts(self, states)
    }
}

/// Follows one path through a condition automaton (set-of-states simulation of Def. 2.2).
///
/// `covered()` stays true once some prefix was covered; `is_dead()` says no run is left, so the
/// path can never become covered (unless it already is).
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    runner: ConditionRunner<'a>,
    states: BTreeSet<StateId>,
    covered: bool,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of a path.
    pub fn new(automaton: &'a ConditionAutomaton) -> Cursor<'a> {
        let runner = ConditionRunner::new(automaton);
        let states = runner.initial();
        let covered = runner.accepts(&states);
        Cursor {
            runner,
            states,
            covered,
        }
    }

    /// Reads one CFA edge.
    pub fn step(&mut self, edge: EdgeId) {
        self.states = self.runner.step(&self.states, edge);
        if self.runner.accepts(&self.states) {
            self.covered = true;
        }
    }

    /// The states the automaton can be in after the edges read so far.
    pub fn states(&self) -> &BTreeSet<StateId> {
        &self.states
    }

    /// True if the path read so far has a covered prefix (Def. 2.2).
    pub fn covered(&self) -> bool {
        self.covered
    }

    /// True if no run is left.
    pub fn is_dead(&self) -> bool {
        self.states.is_empty()
    }
}

/// Nondeterministic disjoint union: a path is covered by the result iff some input covers it.
///
/// Construction: the states of all inputs (renamed `c<i>_<name>`), plus a fresh initial state
/// `union_init` whose outgoing transitions copy the outgoing transitions of every input's
/// initial state. If some input's initial state is accepting, every path is covered and the
/// result is [`ConditionAutomaton::fully_verified`] (this also keeps Def. 2.1: an accepting
/// fresh initial state must not copy transitions into non-accepting states). The state cuts
/// are those of all inputs. All inputs must talk about the same program.
pub fn union(conditions: &[ConditionAutomaton]) -> Result<ConditionAutomaton, ConditionError> {
    let Some(first) = conditions.first() else {
        return Err(ConditionError::Combine("no conditions given".into()));
    };
    let hash = first.program_hash.clone();
    for c in conditions {
        if c.program_hash != hash {
            return Err(ConditionError::Combine(format!(
                "conditions belong to different programs (sha256 {hash} and {})",
                c.program_hash
            )));
        }
        c.check_well_formed()?;
    }
    if conditions.iter().any(ConditionAutomaton::is_trivial_full) {
        return Ok(ConditionAutomaton::fully_verified(&hash));
    }
    let mut states = vec![ConditionState {
        name: "union_init".into(),
        accepting: false,
    }];
    let mut transitions = Vec::new();
    for (ci, c) in conditions.iter().enumerate() {
        let offset = states.len() as u32;
        let map = |q: StateId| StateId(q.0 + offset);
        states.extend(c.states.iter().map(|s| ConditionState {
            name: format!("c{ci}_{}", s.name),
            accepting: s.accepting,
        }));
        for t in &c.transitions {
            transitions.push(Transition {
                from: map(t.from),
                to: map(t.to),
                ..t.clone()
            });
            if t.from == c.initial {
                transitions.push(Transition {
                    from: StateId(0),
                    to: map(t.to),
                    ..t.clone()
                });
            }
        }
    }
    let result = ConditionAutomaton {
        program_hash: hash,
        states,
        initial: StateId(0),
        transitions,
        state_cuts: conditions
            .iter()
            .flat_map(|c| c.state_cuts.iter().cloned())
            .collect(),
    };
    result.check_well_formed()?;
    Ok(result)
}

/// Summary of a condition for humans and reports.
///
/// *Covered share of CFA edges*: the fraction of the program's CFA edges that appear on some
/// transition with assumption `true` from a non-accepting into an accepting state, i.e. edges
/// at which the condition says "verified from here on" for at least one run. Self-loops inside
/// the accepting part are not counted (they say nothing new). If the initial state is
/// accepting the share is 1. It is a cheap indicator of how much the condition hands on, not a
/// measure of covered paths.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConditionSummary {
    pub program_hash: String,
    pub states: usize,
    pub accepting_states: usize,
    pub transitions: usize,
    /// Transitions with assumption `false` (the verifier gave up there).
    pub false_transitions: usize,
    /// The initial state is accepting: everything is covered.
    pub initial_accepting: bool,
    /// No accepting state is reachable and there is no state cut: nothing is covered.
    pub covers_nothing: bool,
    /// State cuts (edges with states in which executions are covered).
    #[serde(default)]
    pub state_cuts: usize,
    /// Number of CFA edges of the program.
    pub cfa_edges: usize,
    /// CFA edges named on any transition.
    pub mentioned_edges: usize,
    /// CFA edges counted as covered (see the type's doc).
    pub covered_edges: usize,
}

impl ConditionSummary {
    /// `covered_edges / cfa_edges` (0 for a program without edges).
    pub fn covered_share(&self) -> f64 {
        if self.cfa_edges == 0 {
            0.0
        } else {
            self.covered_edges as f64 / self.cfa_edges as f64
        }
    }
}

impl fmt::Display for ConditionSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "condition for program sha256 {}", self.program_hash)?;
        writeln!(
            f,
            "  states: {} ({} accepting), transitions: {} ({} with assumption false)",
            self.states, self.accepting_states, self.transitions, self.false_transitions
        )?;
        let verdict = if self.initial_accepting {
            "everything covered (initial state accepting)"
        } else if self.covers_nothing {
            "nothing covered (no accepting state reachable)"
        } else {
            "partially covered"
        };
        writeln!(f, "  {verdict}")?;
        writeln!(
            f,
            "  CFA edges: {} total, {} named by transitions, {} on transitions into accepting states",
            self.cfa_edges, self.mentioned_edges, self.covered_edges
        )?;
        if self.state_cuts > 0 {
            writeln!(
                f,
                "  state cuts: {} (edges where states are covered on any path)",
                self.state_cuts
            )?;
        }
        write!(
            f,
            "  covered share of CFA edges: {:.1}%",
            100.0 * self.covered_share()
        )
    }
}

/// The two file formats Baton reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    GraphMl,
    CpaChecker,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::GraphMl => "graphml",
            Format::CpaChecker => "cpachecker",
        })
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "graphml" => Ok(Format::GraphMl),
            "cpachecker" | "spc" => Ok(Format::CpaChecker),
            other => Err(format!(
                "unknown condition format `{other}` (expected graphml or cpachecker)"
            )),
        }
    }
}

/// Guesses the format from the text: XML starts with `<`, CPAchecker's contains `AUTOMATON`.
pub fn detect_format(text: &str) -> Option<Format> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with('<') {
        Some(Format::GraphMl)
    } else if text.contains("AUTOMATON") {
        Some(Format::CpaChecker)
    } else {
        None
    }
}

/// Reads a condition from a file in either format, for `program`, and validates it.
pub fn load(path: &Path, program: &Program) -> Result<ConditionAutomaton, ConditionError> {
    let name = path.display().to_string();
    let text = crate::input_file::read_text(path, crate::input_file::MAX_CONDITION_BYTES).map_err(|e| {
        ConditionError::File {
            file: name.clone(),
            message: e.to_string(),
        }
    })?;
    parse(&text, &name, program)
}

/// Parses a condition from text in either format (detected by content) and validates it.
pub fn parse(text: &str, source_name: &str, program: &Program) -> Result<ConditionAutomaton, ConditionError> {
    match detect_format(text) {
        Some(Format::GraphMl) => graphml::read_graphml(text, source_name, program),
        Some(Format::CpaChecker) => cpachecker::read_cpachecker(text, source_name, program),
        None => Err(ConditionError::File {
            file: source_name.to_string(),
            message: "neither GraphML nor a CPAchecker automaton".into(),
        }),
    }
}

/// Writes a condition in the given format.
pub fn write(automaton: &ConditionAutomaton, program: &Program, format: Format) -> String {
    match format {
        Format::GraphMl => graphml::write_graphml(automaton, program),
        Format::CpaChecker => cpachecker::write_cpachecker(automaton, program),
    }
}

/// The text a streaming writer writes (writing into memory cannot fail; the writers write
/// UTF-8 only).
fn to_text(write: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    let _ = write(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Writes a condition in the given format to a file, streamed (a condition of a big ARG is
/// never held in memory as text).
pub fn write_file(
    path: &Path,
    automaton: &ConditionAutomaton,
    program: &Program,
    format: Format,
) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    match format {
        Format::GraphMl => graphml::write_graphml_to(&mut out, automaton, program)?,
        Format::CpaChecker => cpachecker::write_cpachecker_to(&mut out, automaton, program)?,
    }
    out.flush()
}

/// The name of the function an edge belongs to.
pub(crate) fn edge_function(program: &Program, e: EdgeId) -> &str {
    let edge = program.edge(e);
    &program.function(program.location(edge.from).func).name
}

/// True for operations that are assume edges with the given branch.
pub(crate) fn is_assume_branch(op: &Operation, want: bool) -> bool {
    matches!(op, Operation::Assume { branch, .. } if *branch == want)
}

#[cfg(test)]
pub(crate) mod fixtures;

#[cfg(test)]
mod tests;
