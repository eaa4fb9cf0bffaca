//! Checking invariants as a proof: every loop head is a cut point (with the witness' invariant
//! there, or `true`), and every loop-free path between cut points — from the program start, or
//! from a cut point assuming its invariant — is encoded with Baton's bit-precise path formulas
//! and checked with Z3: arriving at a cut point, its invariant must hold (initiation from the
//! start, consecution from a cut point); arriving at an error location must be impossible.
//! If all hold, the invariants are inductive and the error is unreachable.
//!
//! From a cut point inside a callee the call stack is unknown: returning from the callee leads
//! to every call site (context-insensitive, which only adds paths). Executions with undefined
//! behaviour are excluded by the path formulas, as everywhere in Baton. A failing initiation
//! from the program start is a real execution (up to the values of uninitialised locals, which
//! C leaves open) that breaks an invariant or reaches the error: the witness is refuted; a
//! failing consecution only shows the invariants are not inductive: unknown.
//!
//! An analysis' invariant is often a disjunction of many cubes over a few dozen atoms (its
//! predicates): one query "the path, and no cube after it" kept Z3 busy for minutes on
//! token_ring.03's (54 cubes), where the analysis found the same states quickly. So an
//! invariant of [`ENUMERATE_MIN_DISJUNCTS`] disjuncts or more is checked as the analysis
//! computes its abstraction: the truth values of its atoms after the path are enumerated (each
//! a satisfiable query) and evaluated in its Boolean structure ([`Skeleton`]); an assignment
//! that falsifies it is a state after the path where it does not hold; one that satisfies it
//! is blocked for the next query with the atoms its truth does not depend on left open (one
//! query covers a cube). After [`MAX_ASSIGNMENTS`] assignments after one path, the rest is the
//! one query against its negation. Smaller invariants always get that one query (enumerating
//! their atoms costs more queries than it saves).

use super::invariant::Formula;
use super::skeleton::{disjuncts, Skeleton};
use crate::analyses::predicate::formula::{ExprEncoder, PathFormula};
use crate::analyses::predicate::solver::{PooledSolver, SolverConfig};
use crate::cfa::{EdgeId, LocId, LocationKind, Operation, Program};
use crate::cpa::budget::CpuDeadline;
use crate::cpa::Step;
use std::collections::BTreeMap;
use std::time::Duration;
use z3::ast::Bool;
use z3::SatResult;

/// Limits of one check.
#[derive(Debug, Clone, Copy)]
pub struct CheckLimits {
    /// CPU time for the whole check.
    pub cpu_time: Duration,
    /// Most CFA steps encoded over all paths (the number of paths between cut points can grow
    /// exponentially with the branches of a loop body).
    pub max_steps: usize,
}

impl Default for CheckLimits {
    fn default() -> Self {
        CheckLimits {
            cpu_time: Duration::from_secs(60),
            max_steps: 200_000,
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

/// Checks the invariants `given` (conjunctions per location; every loop head is a cut point,
/// with `true` where none is given); unknown for a recursive program. Runs on its own thread with a large stack: the search
/// recurses along each path between cut points.
pub fn check(program: &Program, given: &BTreeMap<LocId, Vec<Formula>>, limits: CheckLimits) -> Proof {
    // Path formulas between cut points hold one copy of each local: an activation of a
    // recursive function would overwrite the locals of the one below.
    if program.has_recursion() {
        return Proof::Unknown("recursive program: invariants between cut points are not checked".into());
    }
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("inductive".into())
            .stack_size(CHECK_STACK_BYTES)
            .spawn_scoped(s, || check_here(program, given, limits))
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

/// Stack of the checking thread (reserved address space, touched as deep as paths go).
const CHECK_STACK_BYTES: usize = 1 << 30;

fn check_here(program: &Program, given: &BTreeMap<LocId, Vec<Formula>>, limits: CheckLimits) -> Proof {
    let mut cuts: BTreeMap<LocId, Vec<Formula>> = given.clone();
    for loc in program.location_ids() {
        if program.location(loc).loop_head {
            cuts.entry(loc).or_default();
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
        solver: &solver,
        deadline,
        steps_left: limits.max_steps,
        from_start: true,
    };
    let start = PathFormula::program_start(program);
    if let Err(p) = checker.from(program.main().entry, start) {
        return p;
    }
    checker.from_start = false;
    for (loc, invariants) in &cuts {
        let assumed = conjunction(program, invariants, &PathFormula::empty());
        if let Err(p) = checker.from(*loc, PathFormula::starting_with(assumed)) {
            return p;
        }
    }
    Proof::Holds
}

fn conjunction(program: &Program, invariants: &[Formula], at: &PathFormula) -> Bool {
    let parts: Vec<Bool> = invariants.iter().map(|f| f.encode(program, &at.ssa)).collect();
    Bool::and(&parts)
}

struct Checker<'a> {
    program: &'a Program,
    cuts: &'a BTreeMap<LocId, Vec<Formula>>,
    /// The cut points whose invariants are checked by enumerating their atoms' truth values.
    skeletons: &'a BTreeMap<LocId, Skeleton>,
    /// One incremental solver: a scope per step of the current path.
    solver: &'a PooledSolver,
    deadline: CpuDeadline,
    steps_left: usize,
    /// Paths start at the program start (failures refute) rather than at a cut point.
    from_start: bool,
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

    fn fail(&self, what: String) -> Proof {
        if self.from_start {
            Proof::Refuted(what)
        } else {
            Proof::Unknown(format!("the invariants are not inductive: {what}"))
        }
    }

    /// Every path from `start`, whose formula so far is `pf`, to the next cut points, error or
    /// end.
    fn from(&mut self, start: LocId, pf: PathFormula) -> Result<(), Proof> {
        self.solver.push();
        self.solver.assert(&pf.formula);
        let result = self.walk(start, &[], &pf);
        self.solver.pop(1);
        result
    }

    /// Extends the path at `loc` (inside the calls `stack`; `pf` holds the SSA map) by each
    /// outgoing edge.
    fn walk(&mut self, loc: LocId, stack: &[EdgeId], pf: &PathFormula) -> Result<(), Proof> {
        let out = self.program.out_edges(loc);
        for &id in out {
            if self.steps_left == 0 {
                return Err(Proof::Unknown("too many paths between loop heads".into()));
            }
            if self.deadline.passed() {
                return Err(Proof::Unknown("the CPU-time limit of the check passed".into()));
            }
            self.steps_left -= 1;
            let edge = self.program.edge(id);
            let mut stack = stack.to_vec();
            let to = match &edge.op {
                Operation::Call { callee, .. } => {
                    stack.push(id);
                    self.program.function(*callee).entry
                }
                _ => edge.to,
            };
            let branch = edge.op.is_assume() && out.len() > 1;
            self.step(Step::Edge(id), pf, |c, next| {
                if branch && !c.sat(None)? {
                    return Ok(());
                }
                c.arrive(to, stack, next)
            })?;
        }
        Ok(())
    }

    /// Encodes `step` after `pf` in a new solver scope and continues with `then`.
    fn step(
        &mut self,
        step: Step,
        pf: &PathFormula,
        then: impl FnOnce(&mut Self, &PathFormula) -> Result<(), Proof>,
    ) -> Result<(), Proof> {
        // Only the step's own conjuncts go to the solver: the path so far is asserted already.
        let mut base = pf.clone();
        base.formula = Bool::from_bool(true);
        let next = base
            .extend(step, self.program)
            .map_err(|e| Proof::Unknown(e.to_string()))?;
        self.solver.push();
        self.solver.assert(&next.formula);
        let result = then(self, &next);
        self.solver.pop(1);
        result
    }

    /// A path arrives at `loc`: checks an obligation there, or goes on.
    fn arrive(&mut self, loc: LocId, mut stack: Vec<EdgeId>, pf: &PathFormula) -> Result<(), Proof> {
        let location = self.program.location(loc);
        if let Some(invariants) = self.cuts.get(&loc) {
            if self.breaks(loc, invariants, pf)? {
                return Err(self.fail(format!("an invariant at {} does not hold", self.describe(loc))));
            }
            return Ok(());
        }
        match location.kind {
            LocationKind::Error => {
                if self.sat(None)? {
                    return Err(self.fail(format!("the error location {} is reachable", self.describe(loc))));
                }
                Ok(())
            }
            LocationKind::Terminal => Ok(()),
            LocationKind::FunctionExit => {
                if let Some(call) = stack.pop() {
                    let to = self.program.edge(call).to;
                    return self.step(Step::Return { call }, pf, |c, next| c.arrive(to, stack, next));
                }
                if location.func == self.program.entry_function {
                    return Ok(());
                }
                // Unknown call stack: back to every call site.
                let calls: Vec<EdgeId> = self
                    .program
                    .edge_ids()
                    .filter(|&e| {
                        matches!(self.program.edge(e).op, Operation::Call { callee, .. } if callee == location.func)
                    })
                    .collect();
                for call in calls {
                    let to = self.program.edge(call).to;
                    self.step(Step::Return { call }, pf, |c, next| {
                        c.arrive(to, Vec::new(), next)
                    })?;
                }
                Ok(())
            }
            LocationKind::Normal => self.walk(loc, &stack, pf),
        }
    }
}
