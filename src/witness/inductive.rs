//! Checking invariants as a proof. Every loop head is a cut point (with the witness' invariant
//! there, or `true`), and so is every location with a location invariant and the entry of every
//! recursive function (its contract's `requires`). The loop-free region from each cut point —
//! and from the program start — to the next ones is encoded with Baton's bit-precise path
//! formulas and checked with Z3: path by path where it has few paths ([`paths`]), otherwise
//! as one formula, the paths through it merged where they meet (large-block encoding,
//! [`super::region`]), one query per cut point it reaches. One formula that is not decided
//! within [`FORMULA_SHARE`] of the check's time left is not the end: the region is split at
//! its branch points, and the rest of the region after each branch is checked as one formula
//! of its own (split again where that is stuck too, down to single paths; [`paths`]). Every
//! path of the region is in one of the pieces, so the pieces together check what the one
//! formula would have. Either way, arriving at a cut
//! point, its invariant must hold (initiation from the start, consecution from a cut point
//! assuming its invariant); arriving at an error location must be impossible; arriving at the
//! exit of a recursive function, its contract's `ensures` must hold. If all hold, the
//! invariants are inductive and the error is unreachable.
//!
//! Calls of recursive functions are not entered but summarised by the callee's contract
//! ([`super::summary`]): its `requires` must hold at the call, its `ensures` is assumed after
//! it. From a cut point inside a callee the call stack is unknown: returning from the callee
//! leads to every call site (context-insensitive, which only adds paths). Executions with
//! undefined behaviour are excluded by the path formulas, as everywhere in Baton. A failing
//! initiation from the program start is a real execution (up to the values of uninitialised
//! locals, which C leaves open) that breaks an invariant or reaches the error — unless a
//! summarised call is on the way: the witness is refuted; a failing consecution only shows the
//! invariants are not inductive: unknown.
//!
//! An analysis' invariant is often a disjunction of many cubes over a few dozen atoms (its
//! predicates): one query "the region, and no cube after it" kept Z3 busy for minutes on
//! token_ring.03's (54 cubes), where the analysis found the same states quickly. So an
//! invariant of [`ENUMERATE_MIN_DISJUNCTS`] disjuncts or more is checked as the analysis
//! computes its abstraction: the truth values of its atoms on arrival are enumerated (each
//! a satisfiable query) and evaluated in its Boolean structure ([`Skeleton`]); an assignment
//! that falsifies it is a state on arrival where it does not hold; one that satisfies it
//! is blocked for the next query with the atoms its truth does not depend on left open (one
//! query covers a cube). After [`MAX_ASSIGNMENTS`] assignments for one arrival, the rest is the
//! one query against its negation. Smaller invariants always get that one query (enumerating
//! their atoms costs more queries than it saves).

mod paths;

use super::contract::Clauses;
use super::invariant::Formula;
use super::region::{self, Region, Role, Via};
use super::skeleton::{disjuncts, Skeleton};
use super::summary::Summary;
use crate::analyses::predicate::formula::{EncodeError, ExprEncoder, PathFormula, SsaMap};
use crate::analyses::predicate::solver::{PooledSolver, SolverConfig};
use crate::cfa::effects::Effects;
use crate::cfa::{FuncId, LocId, Program};
use crate::cpa::budget::CpuDeadline;
use paths::Walk;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::time::Duration;
use z3::ast::Bool;
use z3::SatResult;

/// Limits of one check.
#[derive(Debug, Clone, Copy)]
pub struct CheckLimits {
    /// CPU time for the whole check.
    pub cpu_time: Duration,
    /// Most CFA steps encoded over all regions (a region holds every location reachable
    /// between cut points, each inlined call's locations once per call).
    pub max_steps: usize,
    /// Regions of at most this many paths are checked path by path first, larger ones as one
    /// formula (0: every region as one formula; `u64::MAX`: every region path by path, as one
    /// formula only where the walk is not through in `path_steps` transitions).
    pub walked_paths: u64,
    /// Most transitions one region is walked path by path before it is checked as one
    /// formula.
    pub path_steps: usize,
    /// Share of the check's time left that one formula (of a region, or of the rest of a
    /// region after a branch) may take before the region is split at its branch points (1.0:
    /// all of it, split only where the solver gives up on a query before; 0.0: every formula
    /// is split at once, down to single paths).
    pub formula_share: f64,
}

impl Default for CheckLimits {
    fn default() -> Self {
        CheckLimits {
            cpu_time: Duration::from_secs(60),
            max_steps: 200_000,
            walked_paths: WALKED_PATHS,
            path_steps: PATH_STEPS,
            formula_share: FORMULA_SHARE,
        }
    }
}

/// The outcome of a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Proof {
    /// Inductive, and the error is unreachable.
    Holds,
    /// A path from the program start breaks an invariant or reaches the error.
    Refuted(String),
    /// Not shown either way (not inductive, too many paths, solver unknown).
    Unknown(String),
}

/// What a correctness witness gives, as formulas.
#[derive(Debug, Clone, Default)]
pub struct Invariants {
    /// Invariants (a conjunction) per location.
    pub at: BTreeMap<LocId, Vec<Formula>>,
    /// Contracts per function (for the recursive ones: others are entered at their calls).
    pub contracts: BTreeMap<FuncId, Clauses>,
}

/// Checks the invariants `given` (conjunctions per location; every loop head is a cut point,
/// with `true` where none is given; recursive functions with their contracts, `true` where none
/// is given). Runs on its own thread with a large stack (Z3's formulas of large regions are
/// deep).
pub fn check(program: &Program, given: &Invariants, limits: CheckLimits) -> Proof {
    let summarised = program.recursive_functions();
    if summarised
        .get(program.entry_function.index())
        .copied()
        .unwrap_or(false)
    {
        return Proof::Unknown("`main` calls itself: its contract is not checked".into());
    }
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("inductive".into())
            .stack_size(CHECK_STACK_BYTES)
            .spawn_scoped(s, || check_here(program, given, &summarised, limits))
            .map_err(|e| Proof::Unknown(format!("cannot start the check: {e}")))
            .and_then(|t| t.join().map_err(|_| Proof::Unknown("the check failed".into())))
            .unwrap_or_else(|p| p)
    })
}

/// Invariants with this many top-level disjuncts or more are checked by enumerating the truth
/// values of their atoms (see the module doc).
pub const ENUMERATE_MIN_DISJUNCTS: usize = 8;

/// Most truth assignments of an invariant's atoms enumerated after one path (each blocked
/// assignment covers a cube); beyond, the rest is one query against its negation.
const MAX_ASSIGNMENTS: usize = 256;

/// Regions of at most this many paths are checked path by path first by default (pc_sfifo_1-2's
/// predicate witness: regions of up to 822 paths, all confirmed in 0.2 s; as one formula one
/// of them, of 148 paths, was not decided in 30 s), regions of more as one formula (a loop
/// body of 24 branches, 2^24 paths: 0.05 s; walking its first 20,000 steps took 4.6 s).
pub const WALKED_PATHS: u64 = 4096;

/// Most transitions a region is walked path by path by default before it is checked as one
/// formula.
pub const PATH_STEPS: usize = 50_000;

/// Share of the check's time left one formula may take by default before its region is split:
/// half, so that a formula that gets stuck leaves at least as much time to the pieces (a
/// formula Z3 decides at all is mostly decided in moments: pc_sfifo_1-2's and token_ring's
/// regions in well under a second, see [`WALKED_PATHS`]).
pub const FORMULA_SHARE: f64 = 0.5;

/// A summarised function whose entry a region starts at, and the state there.
type EntryState = (FuncId, SsaMap);

/// Stack of the checking thread (reserved address space, touched as deep as paths go).
const CHECK_STACK_BYTES: usize = 1 << 30;

fn check_here(program: &Program, given: &Invariants, summarised: &[bool], limits: CheckLimits) -> Proof {
    let mut cuts: BTreeMap<LocId, Vec<Formula>> = given.at.clone();
    for loc in program.location_ids() {
        if program.location(loc).loop_head {
            cuts.entry(loc).or_default();
        }
    }
    let no_contract = Clauses::default();
    let mut contracts: BTreeMap<FuncId, &Clauses> = BTreeMap::new();
    for (i, function) in program.functions.iter().enumerate() {
        if summarised[i] {
            let f = FuncId(i as u32);
            let clauses = given.contracts.get(&f).unwrap_or(&no_contract);
            cuts.entry(function.entry)
                .or_default()
                .extend(clauses.requires.iter().cloned());
            contracts.insert(f, clauses);
        }
    }
    let deadline = CpuDeadline::after(limits.cpu_time);
    // No time limit per query but the check's own: one hard query can be the whole check
    // (a query limit of its own would answer unknown while the check's budget is left).
    let config = SolverConfig {
        timeout: None,
        deadline: Some(deadline),
        memory: None,
    };
    let solver = config.solver();
    let skeletons: BTreeMap<LocId, Skeleton> = cuts
        .iter()
        .filter(|(_, invariants)| invariants.iter().any(|f| disjuncts(f) >= ENUMERATE_MIN_DISJUNCTS))
        .map(|(&loc, invariants)| (loc, Skeleton::of(invariants)))
        .collect();
    let mut checker = Checker {
        program,
        cuts: &cuts,
        skeletons: &skeletons,
        contracts: &contracts,
        summarised,
        effects: Effects::of(program),
        solver: &solver,
        deadline,
        steps_left: limits.max_steps,
        walked_paths: limits.walked_paths,
        path_steps: limits.path_steps,
        formula_share: limits.formula_share.clamp(0.0, 1.0),
        from_start: true,
        summaries: 0,
        failed: Cell::new(false),
    };
    let main = program.main().entry;
    let start = PathFormula::program_start(program);
    if let Some(invariants) = cuts.get(&main) {
        // The program start is also a cut point: initiation there.
        if let Err(p) = checker.arrival(main, invariants, &Bool::from_bool(true), &start) {
            return p;
        }
    }
    if let Err(p) = checker.region(main, start) {
        return p;
    }
    checker.from_start = false;
    for (loc, invariants) in &cuts {
        let assumed = conjunction(program, invariants, &PathFormula::empty());
        if let Err(p) = checker.region(*loc, PathFormula::starting_with(assumed)) {
            return p;
        }
    }
    Proof::Holds
}

fn conjunction(program: &Program, invariants: &[Formula], at: &PathFormula) -> Bool {
    let parts: Vec<Bool> = invariants.iter().map(|f| f.encode(program, &at.ssa)).collect();
    Bool::and(&parts)
}

/// How a node of a region is reached: the condition of arriving there, and the (joined) path.
#[derive(Clone)]
struct Arrival {
    reached: Bool,
    path: PathFormula,
}

struct Checker<'a> {
    program: &'a Program,
    cuts: &'a BTreeMap<LocId, Vec<Formula>>,
    /// The cut points whose invariants are checked by enumerating their atoms' truth values.
    skeletons: &'a BTreeMap<LocId, Skeleton>,
    /// The contracts of the summarised functions.
    contracts: &'a BTreeMap<FuncId, &'a Clauses>,
    /// Per function: calls of it are summarised (it is recursive).
    summarised: &'a [bool],
    effects: Effects,
    /// One incremental solver: a scope per region, and one per query in it.
    solver: &'a PooledSolver,
    deadline: CpuDeadline,
    steps_left: usize,
    /// Regions of at most this many paths are checked path by path first.
    walked_paths: u64,
    /// Most transitions one region is walked.
    path_steps: usize,
    /// Share of the time left one formula may take before its region is split.
    formula_share: f64,
    /// Regions start at the program start (failures refute) rather than at a cut point.
    from_start: bool,
    /// Summarised calls encoded in the current region (after one, a failure is no execution).
    summaries: usize,
    /// An obligation was found broken (set by [`Checker::fail`]): an unknown that follows is
    /// no stuck formula.
    failed: Cell<bool>,
}

impl Checker<'_> {
    fn describe(&self, loc: LocId) -> String {
        let f = &self.program.function(self.program.location(loc).func).name;
        match super::source_of(self.program, loc) {
            Some(at) => format!("{} in {f}", self.program.describe(at)),
            None => format!("{loc} in {f}"),
        }
    }

    /// Whether the solver's assertions and `extra` are satisfiable.
    fn sat(&self, extra: Option<&Bool>) -> Result<bool, Proof> {
        let result = match extra {
            Some(b) => self.solver.check_assumptions(std::slice::from_ref(b)),
            None => self.solver.check(),
        };
        match result {
            SatResult::Sat => Ok(true),
            SatResult::Unsat => Ok(false),
            SatResult::Unknown => Err(Proof::Unknown(format!(
                "solver: {}",
                self.solver.reason_unknown()
            ))),
        }
    }

    /// Whether some state after the path (the solver's assertions; `pf` for the SSA map)
    /// breaks the invariants at `loc`.
    fn breaks(&self, loc: LocId, invariants: &[Formula], pf: &PathFormula) -> Result<bool, Proof> {
        let Some(skeleton) = self.skeletons.get(&loc) else {
            let holds = conjunction(self.program, invariants, pf);
            return self.sat(Some(&holds.not()));
        };
        self.solver.push();
        let indicators: Vec<Bool> = skeleton
            .atoms
            .iter()
            .map(|a| {
                let b = Bool::fresh_const("atom");
                let value = ExprEncoder::for_invariants(self.program, &pf.ssa).condition(a);
                self.solver.assert(b.iff(&value));
                b
            })
            .collect();
        let result = self.enumerate(skeleton, &indicators, invariants, pf);
        self.solver.pop(1);
        result
    }
    /// The enumeration of [`Checker::breaks`] (see the module doc), in the scope that defines
    /// the atoms' `indicators`.
    fn enumerate(
        &self,
        skeleton: &Skeleton,
        indicators: &[Bool],
        invariants: &[Formula],
        pf: &PathFormula,
    ) -> Result<bool, Proof> {
        for _ in 0..MAX_ASSIGNMENTS {
            if self.deadline.passed() {
                return Err(Proof::Unknown("the CPU-time limit of the check passed".into()));
            }
            if !self.sat(None)? {
                return Ok(false);
            }
            let Some(model) = self.solver.get_model() else {
                return Err(Proof::Unknown("the solver gave no model".into()));
            };
            let values: Vec<Option<bool>> = indicators
                .iter()
                .map(|b| model.eval(b, true).and_then(|v| v.as_bool()))
                .collect();
            if skeleton.eval(&values) != Some(true) {
                return Ok(true);
            }
            let blocking: Vec<Bool> = indicators
                .iter()
                .zip(skeleton.deciding(values))
                .filter_map(|(b, v)| v.map(|v| if v { b.not() } else { b.clone() }))
                .collect();
            if blocking.is_empty() {
                // True whatever its atoms' values.
                return Ok(false);
            }
            self.solver.assert(Bool::or(&blocking));
        }
        let holds = conjunction(self.program, invariants, pf);
        self.sat(Some(&holds.not()))
    }

    /// A failure: a refutation from the program start before any summarised call, otherwise
    /// "not inductive".
    fn fail(&self, what: String) -> Proof {
        self.failed.set(true);
        if self.from_start && self.summaries == 0 {
            Proof::Refuted(what)
        } else {
            Proof::Unknown(format!("the invariants are not inductive: {what}"))
        }
    }

    fn tick(&mut self) -> Result<(), Proof> {
        if self.steps_left == 0 {
            return Err(Proof::Unknown("too many locations between loop heads".into()));
        }
        if self.deadline.passed() {
            return Err(Proof::Unknown("the CPU-time limit of the check passed".into()));
        }
        self.steps_left -= 1;
        Ok(())
    }

    /// Arriving at cut point `loc` where `reached` holds after `pf`: its invariants must hold.
    fn arrival(
        &self,
        loc: LocId,
        invariants: &[Formula],
        reached: &Bool,
        pf: &PathFormula,
    ) -> Result<(), Proof> {
        self.solver.push();
        self.solver.assert(reached);
        let broken = self.breaks(loc, invariants, pf);
        self.solver.pop(1);
        if broken? {
            return Err(self.fail(format!("an invariant at {} does not hold", self.describe(loc))));
        }
        Ok(())
    }

    /// Checks the region from `start`, whose path so far is `pf`.
    fn region(&mut self, start: LocId, pf: PathFormula) -> Result<(), Proof> {
        let cuts = self.cuts;
        let is_cut = |l: LocId| cuts.contains_key(&l);
        let region = region::build(
            self.program,
            start,
            &is_cut,
            self.summarised,
            self.steps_left.max(1),
        )
        .map_err(Proof::Unknown)?;
        self.solver.push();
        self.summaries = 0;
        let result = self.check_region(&region, pf);
        self.solver.pop(1);
        result
    }

    /// Checks the region from its start, whose path so far is `start`: path by path if it has
    /// at most `walked_paths` paths (and the walk is through in `path_steps` transitions),
    /// otherwise as one formula, split at its branch points where that formula is stuck.
    fn check_region(&mut self, region: &Region, start: PathFormula) -> Result<(), Proof> {
        // Paths from a function's entry know its entry state (for its `ensures` clauses) —
        // unless an edge leads back to the entry (a loop there: its state is no entry state).
        let start_loc = region.nodes[0].loc;
        let start_func = self.program.location(start_loc).func;
        let entry_state = (self.program.function(start_func).entry == start_loc
            && self.program.in_edges(start_loc).is_empty())
        .then(|| (start_func, start.ssa.clone()));
        self.solver.assert(&start.formula);
        let mut first = start;
        first.formula = Bool::from_bool(true);
        let first = Arrival {
            reached: Bool::from_bool(true),
            path: first,
        };
        if region.paths(self.walked_paths.saturating_add(1)) <= self.walked_paths {
            let steps = self.path_steps.min(self.steps_left);
            if self.walk_paths(region, first.clone(), entry_state.as_ref(), steps)? == Walk::Done {
                return Ok(());
            }
        }
        self.summaries = 0;
        if self.formula_within_share(region, 0, first.clone(), entry_state.as_ref())? {
            return Ok(());
        }
        self.walk_split(region, first, entry_state.as_ref())
    }

    /// Checks the rest of `region` after node `from` (reached by `at`, which the solver's
    /// assertions hold) as one formula, in a solver scope of its own, within `formula_share` of
    /// the check's time left. `Ok(false)`: the formula is stuck (that time ran out, or the
    /// solver gave up on a query), nothing is shown; a broken obligation is an error as always.
    fn formula_within_share(
        &mut self,
        region: &Region,
        from: usize,
        at: Arrival,
        entry_state: Option<&EntryState>,
    ) -> Result<bool, Proof> {
        let check = self.deadline;
        let attempt = CpuDeadline::after(check.remaining().mul_f64(self.formula_share));
        let summaries = self.summaries;
        self.deadline = attempt;
        let outer = self.solver.set_deadline(Some(attempt));
        self.solver.push();
        let result = self.check_formula(region, from, at, entry_state);
        self.solver.pop(1);
        self.solver.set_deadline(outer);
        self.deadline = check;
        self.summaries = summaries;
        match result {
            Ok(()) => Ok(true),
            Err(Proof::Unknown(_)) if !self.failed.get() && !check.passed() => Ok(false),
            Err(p) => Err(p),
        }
    }

    /// Checks the rest of the region after node `from`, reached by `first`, as one formula, its
    /// paths merged where they meet.
    fn check_formula(
        &mut self,
        region: &Region,
        from: usize,
        first: Arrival,
        entry_state: Option<&EntryState>,
    ) -> Result<(), Proof> {
        let mut arrivals: Vec<Option<Arrival>> = vec![None; region.nodes.len()];
        arrivals[from] = Some(first);
        for i in from + 1..region.nodes.len() {
            let mut parts: Vec<(Bool, PathFormula)> = Vec::new();
            for t in &region.incoming[i] {
                let Some(before) = arrivals[t.from].as_ref() else {
                    continue;
                };
                self.tick()?;
                if let Some(part) = self.transition(before, t.via)? {
                    parts.push(part);
                }
            }
            let arrival = self.join(parts)?;
            if let Some(a) = &arrival {
                self.arrived(region, i, a, entry_state)?;
            }
            arrivals[i] = arrival;
        }
        Ok(())
    }

    /// The obligations on arriving at node `i` of `region` by `a`: a cut point's invariants
    /// hold, an error location is unreachable, a summarised function's `ensures` hold on its
    /// return (`entry_state`: the region started at that function's entry).
    fn arrived(
        &self,
        region: &Region,
        i: usize,
        a: &Arrival,
        entry_state: Option<&EntryState>,
    ) -> Result<(), Proof> {
        let loc = region.nodes[i].loc;
        match region.roles[i] {
            Role::Cut => self.arrival(loc, &self.cuts[&loc], &a.reached, &a.path),
            Role::Error => {
                if self.sat(Some(&a.reached))? {
                    return Err(self.fail(format!("the error location {} is reachable", self.describe(loc))));
                }
                Ok(())
            }
            Role::Return => {
                let func = self.program.location(loc).func;
                let entry = entry_state.filter(|(f, _)| *f == func).map(|(_, s)| s);
                self.ensured(func, a, entry)
            }
            Role::Start | Role::Inner | Role::End => Ok(()),
        }
    }

    /// The condition of taking transition `via` from `from`, and the path after it.
    fn transition(&mut self, from: &Arrival, via: Via) -> Result<Option<(Bool, PathFormula)>, Proof> {
        let unknown = |e: EncodeError| Proof::Unknown(e.to_string());
        match via {
            Via::Step(step) => {
                let next = from.path.extend(step, self.program).map_err(unknown)?;
                let taken = Bool::and(&[from.reached.clone(), next.formula.clone()]);
                let mut path = next;
                path.formula = Bool::from_bool(true);
                Ok(Some((taken, path)))
            }
            Via::Summary(call) => {
                let crate::cfa::Operation::Call { callee, .. } = self.program.edge(call).op else {
                    return Err(Proof::Unknown(format!("edge {call} is no call")));
                };
                let no_contract = Clauses::default();
                let clauses = self.contracts.get(&callee).copied().unwrap_or(&no_contract);
                let summary = Summary::of(self.program, &self.effects, clauses, call, callee, &from.path)
                    .map_err(unknown)?;
                let called = Bool::and(&[from.reached.clone(), summary.bound.formula.clone()]);
                let entry = self.program.function(callee).entry;
                let required = &self.cuts[&entry];
                self.solver.push();
                self.solver.assert(&called);
                let broken = self.breaks(entry, required, &summary.bound);
                self.solver.pop(1);
                if broken? {
                    return Err(self.fail(format!(
                        "the contract of `{}` is not met at the call at {}",
                        self.program.function(callee).name,
                        self.program.describe(self.program.edge(call).source)
                    )));
                }
                self.summaries += 1;
                let taken = Bool::and(&[called, summary.returned.formula.clone()]);
                let mut path = summary.returned;
                path.formula = Bool::from_bool(true);
                Ok(Some((taken, path)))
            }
        }
    }

    /// The arrival where the paths `parts` meet (none: the node is not reached).
    fn join(&self, mut parts: Vec<(Bool, PathFormula)>) -> Result<Option<Arrival>, Proof> {
        if parts.len() <= 1 {
            return Ok(parts.pop().map(|(reached, path)| Arrival { reached, path }));
        }
        let joined = PathFormula::join(self.program, &parts).map_err(|e| Proof::Unknown(e.to_string()))?;
        let reached = Bool::fresh_const("reached");
        let conditions: Vec<Bool> = parts.into_iter().map(|(c, _)| c).collect();
        self.solver.assert(reached.iff(Bool::or(&conditions)));
        self.solver.assert(&joined.formula);
        let mut path = joined;
        path.formula = Bool::from_bool(true);
        Ok(Some(Arrival { reached, path }))
    }

    /// Arriving at the exit of summarised function `func`: its `ensures` must hold, with the
    /// entry state `entry` where the region started at the function's entry (any other).
    fn ensured(&self, func: FuncId, at: &Arrival, entry: Option<&SsaMap>) -> Result<(), Proof> {
        let Some(clauses) = self.contracts.get(&func) else {
            return Ok(());
        };
        if clauses.ensures.is_empty() {
            return Ok(());
        }
        let (ties, holds) = clauses.ensured(self.program, entry, &at.path.ssa);
        let broken = Bool::and(&[at.reached.clone(), ties, holds.not()]);
        if self.sat(Some(&broken))? {
            return Err(self.fail(format!(
                "the contract of `{}` does not hold on its return",
                self.program.function(func).name
            )));
        }
        Ok(())
    }
}
