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

use super::invariant::Formula;
use crate::analyses::predicate::formula::PathFormula;
use crate::analyses::predicate::solver::{Satisfiability, SolverConfig};
use crate::cfa::{EdgeId, LocId, LocationKind, Operation, Program};
use crate::cpa::budget::CpuDeadline;
use crate::cpa::Step;
use std::collections::BTreeMap;
use std::time::Duration;
use z3::ast::Bool;

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

/// Checks the invariants `cuts` (conjunctions per location; every loop head is a cut point,
/// with `true` where none is given).
pub fn check(program: &Program, given: &BTreeMap<LocId, Vec<Formula>>, limits: CheckLimits) -> Proof {
    let mut cuts: BTreeMap<LocId, Vec<Formula>> = given.clone();
    for loc in program.location_ids() {
        if program.location(loc).loop_head {
            cuts.entry(loc).or_default();
        }
    }
    let deadline = CpuDeadline::after(limits.cpu_time);
    let mut checker = Checker {
        program,
        cuts: &cuts,
        solver: SolverConfig::default().until(Some(deadline)),
        deadline,
        steps_left: limits.max_steps,
        from_start: true,
    };
    let entry = program.main().entry;
    if let Err(p) = checker.paths_from(entry, PathFormula::program_start(program)) {
        return p;
    }
    checker.from_start = false;
    for (loc, invariants) in &cuts {
        let assumed = conjunction(program, invariants, &PathFormula::empty());
        if let Err(p) = checker.paths_from(*loc, PathFormula::starting_with(assumed)) {
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
    solver: SolverConfig,
    deadline: CpuDeadline,
    steps_left: usize,
    /// Paths start at the program start (failures refute) rather than at a cut point.
    from_start: bool,
}

/// A path being extended: where it is, the calls it is inside, its formula.
struct Partial {
    loc: LocId,
    stack: Vec<EdgeId>,
    pf: PathFormula,
}

impl Checker<'_> {
    fn describe(&self, loc: LocId) -> String {
        let f = &self.program.function(self.program.location(loc).func).name;
        match super::source_of(self.program, loc) {
            Some(at) => format!("{} in {f}", self.program.describe(at)),
            None => format!("{loc} in {f}"),
        }
    }

    fn sat(&self, formula: &Bool) -> Result<bool, Proof> {
        match self.solver.check(formula) {
            Satisfiability::Sat(_) => Ok(true),
            Satisfiability::Unsat => Ok(false),
            Satisfiability::Unknown(why) => Err(Proof::Unknown(format!("solver: {why}"))),
        }
    }

    fn fail(&self, what: String) -> Proof {
        if self.from_start {
            Proof::Refuted(what)
        } else {
            Proof::Unknown(format!("the invariants are not inductive: {what}"))
        }
    }

    /// Every path from `start` (formula `pf`) to the next cut points, error or end.
    fn paths_from(&mut self, start: LocId, pf: PathFormula) -> Result<(), Proof> {
        let mut work = vec![Partial {
            loc: start,
            stack: Vec::new(),
            pf,
        }];
        while let Some(p) = work.pop() {
            let out = self.program.out_edges(p.loc);
            for &id in out {
                if self.steps_left == 0 {
                    return Err(Proof::Unknown("too many paths between loop heads".into()));
                }
                if self.deadline.passed() {
                    return Err(Proof::Unknown("the CPU-time limit of the check passed".into()));
                }
                self.steps_left -= 1;
                let edge = self.program.edge(id);
                let pf =
                    p.pf.extend(Step::Edge(id), self.program)
                        .map_err(|e| Proof::Unknown(e.to_string()))?;
                if edge.op.is_assume() && out.len() > 1 && !self.sat(&pf.formula)? {
                    continue;
                }
                let mut stack = p.stack.clone();
                let to = match &edge.op {
                    Operation::Call { callee, .. } => {
                        stack.push(id);
                        self.program.function(*callee).entry
                    }
                    _ => edge.to,
                };
                self.arrive(to, stack, pf, &mut work)?;
            }
        }
        Ok(())
    }

    /// A path arrives at `loc`: checks an obligation there, or queues the path.
    fn arrive(
        &mut self,
        loc: LocId,
        mut stack: Vec<EdgeId>,
        pf: PathFormula,
        work: &mut Vec<Partial>,
    ) -> Result<(), Proof> {
        let location = self.program.location(loc);
        if let Some(invariants) = self.cuts.get(&loc) {
            let holds = conjunction(self.program, invariants, &pf);
            if self.sat(&Bool::and(&[pf.formula.clone(), holds.not()]))? {
                return Err(self.fail(format!("an invariant at {} does not hold", self.describe(loc))));
            }
            return Ok(());
        }
        match location.kind {
            LocationKind::Error => {
                if self.sat(&pf.formula)? {
                    return Err(self.fail(format!("the error location {} is reachable", self.describe(loc))));
                }
                Ok(())
            }
            LocationKind::Terminal => Ok(()),
            LocationKind::FunctionExit => {
                if let Some(call) = stack.pop() {
                    let pf = self.returned(call, &pf)?;
                    return self.arrive(self.program.edge(call).to, stack, pf, work);
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
                    let pf = self.returned(call, &pf)?;
                    self.arrive(self.program.edge(call).to, Vec::new(), pf, work)?;
                }
                Ok(())
            }
            LocationKind::Normal => {
                work.push(Partial { loc, stack, pf });
                Ok(())
            }
        }
    }

    fn returned(&self, call: EdgeId, pf: &PathFormula) -> Result<PathFormula, Proof> {
        pf.extend(Step::Return { call }, self.program)
            .map_err(|e| Proof::Unknown(e.to_string()))
    }
}
