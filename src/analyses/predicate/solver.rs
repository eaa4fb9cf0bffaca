//! Z3 solvers for the predicate analysis' queries: a per-thread pool of solvers, a time limit
//! per query, and the analysis' CPU-time deadline.
//!
//! A query never runs past the deadline of the analysis' `cpu-time` give-up: each one gets at
//! most the CPU time left as its Z3 timeout (a wall-clock limit, never shorter than the CPU
//! time a single-threaded query uses), and none is started once the deadline has passed — it
//! answers "unknown" at once, which every caller already treats soundly (a weaker abstraction,
//! "not covered", a counterexample not confirmed).

use crate::cpa::budget::CpuDeadline;
use std::cell::Cell;
use std::collections::HashSet;
use std::time::Duration;
use z3::ast::{Ast, Bool, Dynamic};
use z3::{Model, Params, SatResult, Solver, SortKind, Tactic};

/// Result of a satisfiability check.
#[derive(Debug)]
pub enum Satisfiability {
    Sat(Model),
    Unsat,
    /// The solver gave up (timeout, resource limit, the deadline); the reason as Z3 states it.
    Unknown(String),
}

/// Solver settings shared by the predicate analysis' queries.
#[derive(Debug, Clone, Copy)]
pub struct SolverConfig {
    /// Time limit per query (`None`: no limit).
    pub timeout: Option<Duration>,
    /// No query runs past this point (`None`: no deadline); see the module doc.
    pub deadline: Option<CpuDeadline>,
    /// The analysis' `memory` give-up (resident bytes): the encoding of a long path for its
    /// inputs stops, and its query is not started, once the process holds this much.
    pub memory: Option<u64>,
}

impl Default for SolverConfig {
    fn default() -> Self {
        SolverConfig {
            timeout: Some(Duration::from_secs(10)),
            deadline: None,
            memory: None,
        }
    }
}

/// The reason of an "unknown" answered because the deadline had passed.
const DEADLINE_PASSED: &str = "the analysis' CPU-time deadline passed";

/// Z3's timeout value for "no timeout".
const NO_TIMEOUT_MS: u32 = u32::MAX;

impl SolverConfig {
    /// These settings with queries ending by `deadline`.
    pub fn until(self, deadline: Option<CpuDeadline>) -> SolverConfig {
        SolverConfig { deadline, ..self }
    }

    /// These settings with path encodings stopping at `memory` resident bytes.
    pub fn within_memory(self, memory: Option<u64>) -> SolverConfig {
        SolverConfig { memory, ..self }
    }

    /// True once the process holds the `memory` limit or more.
    pub fn memory_exhausted(&self) -> bool {
        self.memory
            .is_some_and(|limit| crate::cpa::monitor::resident_memory().is_some_and(|m| m >= limit))
    }

    /// The Z3 timeout (ms) for a query started now by a solver set to `current`; `None` once
    /// the deadline has passed. Changing a solver's parameters makes Z3 rebuild it, so the
    /// timeout is kept while it ends the query by the deadline and is not too short (at least
    /// half the time left); otherwise it becomes half the time left: a few changes per run.
    fn query_timeout_ms(&self, current: u32) -> Option<u32> {
        // Z3 reads a timeout of 0 as none: at least 1 ms.
        let ms = |t: Duration| u32::try_from(t.as_millis()).unwrap_or(NO_TIMEOUT_MS - 1).max(1);
        let base = self.timeout.map_or(NO_TIMEOUT_MS, ms);
        let Some(left) = self.deadline.map(CpuDeadline::remaining) else {
            return Some(base);
        };
        if left.is_zero() {
            return None;
        }
        let (upper, lower) = (base.min(ms(left)), base.min(ms(left / 2)));
        Some(if (lower..=upper).contains(&current) {
            current
        } else {
            lower
        })
    }

    /// A solver with these settings, in a fresh assertion scope. Creating a Z3 solver (and its
    /// tactics at the first check) costs far more than the small queries of the analysis, so
    /// solvers are kept in a per-thread pool: the scope is popped and the solver returned to
    /// the pool when the handle is dropped.
    pub fn solver(&self) -> PooledSolver {
        let (timeout_ms, solver) = SOLVER_POOL
            .with(|pool| pool.borrow_mut().pop())
            .unwrap_or_else(|| {
                // Parameters are set before the first scope: setting them later makes Z3 rebuild
                // its solver at the next check (much slower incremental queries).
                let ms = self.query_timeout_ms(NO_TIMEOUT_MS).unwrap_or(1);
                let solver = Solver::new();
                set_timeout(&solver, ms);
                (ms, solver)
            });
        solver.push();
        PooledSolver {
            solver: Some(solver),
            timeout_ms: Cell::new(timeout_ms),
            config: Cell::new(*self),
            deadline_hit: Cell::new(false),
        }
    }

    /// Checks `formula` for satisfiability. A formula with floating-point terms and no arrays
    /// goes only to a bit-blasting solver (Z3's `qffpbv` tactic): the pooled solvers, which are
    /// incremental, use Z3's SMT core, which is slower on floating-point formulas by orders of
    /// magnitude (a ten-multiplication `float` polynomial: twelve minutes against half a minute)
    /// and does not stop at its timeout while it internalises them (`(double) n * 3 / 3`: 9 s
    /// past a 3 s deadline, 1.8 GB), so what the bit-blaster does not decide in time is unknown.
    pub fn check(&self, formula: &Bool) -> Satisfiability {
        if floats_without_arrays(formula) {
            return self.check_bit_blasted(formula);
        }
        let solver = self.solver();
        solver.assert(formula);
        match solver.check() {
            SatResult::Sat => match solver.get_model() {
                Some(m) => Satisfiability::Sat(m),
                None => Satisfiability::Unknown("no model for a satisfiable formula".into()),
            },
            SatResult::Unsat => Satisfiability::Unsat,
            SatResult::Unknown => Satisfiability::Unknown(solver.reason_unknown()),
        }
    }

    /// [`SolverConfig::check`] with a fresh solver of Z3's `qffpbv` tactic (unknown once the
    /// deadline has passed).
    fn check_bit_blasted(&self, formula: &Bool) -> Satisfiability {
        let Some(ms) = self.query_timeout_ms(NO_TIMEOUT_MS) else {
            return Satisfiability::Unknown(DEADLINE_PASSED.into());
        };
        let solver = Tactic::new("qffpbv").solver();
        set_timeout(&solver, ms);
        solver.assert(formula);
        match solver.check() {
            SatResult::Sat => match solver.get_model() {
                Some(m) => Satisfiability::Sat(m),
                None => Satisfiability::Unknown("no model for a satisfiable formula".into()),
            },
            SatResult::Unsat => Satisfiability::Unsat,
            SatResult::Unknown => {
                Satisfiability::Unknown(solver.get_reason_unknown().unwrap_or_else(|| "unknown".into()))
            }
        }
    }
}

/// True if `formula` has a floating-point subterm and no array (each shared subterm is
/// visited once).
fn floats_without_arrays(formula: &Bool) -> bool {
    let mut seen = HashSet::new();
    let mut todo = vec![Dynamic::from_ast(formula)];
    let mut floats = false;
    while let Some(t) = todo.pop() {
        if !seen.insert(t.clone()) {
            continue;
        }
        match t.sort_kind() {
            SortKind::FloatingPoint => floats = true,
            SortKind::Array => return false,
            _ => {}
        }
        todo.extend(t.children());
    }
    floats
}

thread_local! {
    /// Idle solvers (with the timeout in ms they are set to) at their base scope.
    static SOLVER_POOL: std::cell::RefCell<Vec<(u32, Solver)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Most solvers kept idle per thread (nested queries need a few at once).
const SOLVER_POOL_SIZE: usize = 8;

/// A solver of the per-thread pool in its own assertion scope (see [`SolverConfig::solver`]).
/// Its `check` and `check_assumptions` keep the config's timeout and deadline.
pub struct PooledSolver {
    solver: Option<Solver>,
    /// The timeout the solver is set to.
    timeout_ms: Cell<u32>,
    config: Cell<SolverConfig>,
    /// The last query was not started: the deadline had passed.
    deadline_hit: Cell<bool>,
}

impl PooledSolver {
    /// Checks the assertions (`Unknown` without asking Z3 once the deadline has passed).
    pub fn check(&self) -> SatResult {
        self.within_limits(|s| s.check())
    }

    /// Checks the assertions with extra assumptions (as [`PooledSolver::check`]).
    pub fn check_assumptions(&self, assumptions: &[Bool]) -> SatResult {
        self.within_limits(|s| s.check_assumptions(assumptions))
    }

    /// Queries from now on end by `deadline` (`None`: none); returns the deadline they ended by
    /// before, to be set again after a part of the work that has a shorter one.
    pub fn set_deadline(&self, deadline: Option<CpuDeadline>) -> Option<CpuDeadline> {
        let config = self.config.get();
        self.config.set(config.until(deadline));
        config.deadline
    }

    /// Why the last query answered `Unknown`.
    pub fn reason_unknown(&self) -> String {
        if self.deadline_hit.get() {
            return DEADLINE_PASSED.into();
        }
        self.get_reason_unknown().unwrap_or_else(|| "unknown".into())
    }

    fn within_limits(&self, query: impl FnOnce(&Solver) -> SatResult) -> SatResult {
        let Some(ms) = self.config.get().query_timeout_ms(self.timeout_ms.get()) else {
            self.deadline_hit.set(true);
            return SatResult::Unknown;
        };
        self.deadline_hit.set(false);
        // Only near the deadline (or with a pooled solver of other settings) does the timeout
        // change.
        if ms != self.timeout_ms.get() {
            set_timeout(self, ms);
            self.timeout_ms.set(ms);
        }
        query(self)
    }
}

fn set_timeout(solver: &Solver, ms: u32) {
    let mut params = Params::new();
    params.set_u32("timeout", ms);
    solver.set_params(&params);
}

impl std::ops::Deref for PooledSolver {
    type Target = Solver;
    fn deref(&self) -> &Solver {
        // Only `drop` takes the solver out.
        self.solver.as_ref().expect("pooled solver present until dropped")
    }
}

impl Drop for PooledSolver {
    fn drop(&mut self) {
        let Some(solver) = self.solver.take() else { return };
        solver.pop(1);
        let timeout_ms = self.timeout_ms.get();
        // During thread teardown the pool may be gone: the solver is then simply dropped.
        let _ = SOLVER_POOL.try_with(|pool| {
            if let Ok(mut pool) = pool.try_borrow_mut() {
                if pool.len() < SOLVER_POOL_SIZE {
                    pool.push((timeout_ms, solver));
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_formulas_without_arrays_are_bit_blasted() {
        use crate::analyses::predicate::ieee;
        use crate::cfa::types::IntType;
        use z3::ast::{Array, BV};
        let x = ieee::from_bits(&BV::new_const("x", 32), IntType::FLOAT);
        let nan = x.is_nan();
        assert!(floats_without_arrays(&nan));
        assert!(!floats_without_arrays(
            &BV::new_const("y", 8).bvult(BV::from_u64(3, 8))
        ));
        let a = Array::new_const("a", &z3::Sort::bitvector(64), &z3::Sort::bitvector(32));
        let element = a
            .select(&BV::from_u64(0, 64))
            .as_bv()
            .expect("bit-vector element");
        let with_array = Bool::and(&[nan.clone(), element.eq(BV::from_u64(0, 32))]);
        assert!(!floats_without_arrays(&with_array));
        // x != x has a model (NaN) and x < x none, by the bit-blasting solver.
        let config = SolverConfig::default();
        assert!(matches!(config.check_bit_blasted(&nan), Satisfiability::Sat(_)));
        assert!(matches!(
            config.check_bit_blasted(&x.lt(&x)),
            Satisfiability::Unsat
        ));
    }

    /// A query whose bit-vector multiplication Z3 needs a long time for (factoring a 64-bit
    /// semiprime of two primes far from powers of two: 2893585129 × 2885350427; factors next
    /// to 2^32, as in 0xFFFF_FFEA_0000_0055, were sometimes found within the 25 ms).
    fn hard_query() -> Bool {
        use z3::ast::BV;
        let (p, q) = (BV::new_const("p", 64), BV::new_const("q", 64));
        let one = BV::from_u64(1, 64);
        let n = BV::from_u64(0x73DD_A1B6_0EE8_6A93, 64);
        Bool::and(&[
            p.bvmul(&q).eq(&n),
            p.bvugt(&one),
            q.bvugt(&one),
            p.bvult(BV::from_u64(1 << 32, 64)),
            q.bvult(BV::from_u64(1 << 32, 64)),
        ])
    }

    #[test]
    fn no_query_starts_after_the_deadline() {
        let passed = SolverConfig::default().until(Some(CpuDeadline::after(Duration::ZERO)));
        // Even a trivial query is not started.
        match passed.check(&Bool::from_bool(false)) {
            Satisfiability::Unknown(why) => assert_eq!(why, DEADLINE_PASSED),
            other => panic!("expected unknown, got {other:?}"),
        }
        let solver = passed.solver();
        assert_eq!(
            solver.check_assumptions(&[Bool::from_bool(false)]),
            SatResult::Unknown
        );
        // Without a deadline the same queries are answered.
        assert!(matches!(
            SolverConfig::default().check(&Bool::from_bool(false)),
            Satisfiability::Unsat
        ));
    }

    #[test]
    fn queries_get_at_most_the_time_left() {
        let far = SolverConfig::default().until(Some(CpuDeadline::after(Duration::from_secs(3600))));
        assert_eq!(far.query_timeout_ms(NO_TIMEOUT_MS), Some(10_000));
        assert_eq!(far.query_timeout_ms(10_000), Some(10_000));
        let near = SolverConfig::default().until(Some(CpuDeadline::after(Duration::from_millis(200))));
        let halved = near.query_timeout_ms(10_000).expect("deadline not passed");
        assert!((1..=100).contains(&halved), "{halved}");
        // Kept while it ends queries by the deadline: no parameter change per query.
        assert_eq!(near.query_timeout_ms(halved), Some(halved));
        let unlimited = SolverConfig {
            timeout: None,
            deadline: None,
            memory: None,
        };
        assert_eq!(unlimited.query_timeout_ms(NO_TIMEOUT_MS), Some(NO_TIMEOUT_MS));
        // A hard query under a deadline 50 ms away ends as unknown (Z3's timeout), and the
        // solver then goes back to the pool and answers later queries.
        let soon = SolverConfig::default().until(Some(CpuDeadline::after(Duration::from_millis(50))));
        assert!(matches!(soon.check(&hard_query()), Satisfiability::Unknown(_)));
        assert!(matches!(
            SolverConfig::default().check(&Bool::from_bool(true)),
            Satisfiability::Sat(_)
        ));
    }
}
