//! Checking seed 001's residual condition **Res** by execution (used by
//! tests/reducer_soundness.rs).
//!
//! Res: `ex(C) \ {ex(π) | A covers π} ⊆ ex(red(C, A)) ⊆ ex(C)`. Both programs consume nondet
//! values in the same order, so one input list names "the same" execution of both. Per input
//! list the checker runs the original (recording its path) and the residual and demands:
//!
//! - (a) `ex(red) ⊆ ex(C)`: if the residual run ends normally (error, abort, exit, return or
//!   undefined behaviour, not blocked and not at the step limit), the original ends the same way
//!   (same kind, same line/code/value, same number of inputs consumed).
//! - (b) `ex(C) \ covered ⊆ ex(red)`: if the original's path is not covered (Def. 2.2 through a
//!   [`Cursor`], or a state cut holds in the state the run takes its edge in) and the run is
//!   finite, the residual ends the same way; an original run that blocks in an assumption must
//!   block in the residual too, after the same inputs.
//! - (c) covered paths: Res alone only says that a residual run of a covered input is still an
//!   execution of the original (so it may reach the error only if the original does). Algorithm 1
//!   never enters an accepting state, so the residual copy of a covered path is cut at the edge
//!   that completes the covering prefix: the residual run must *block* (assumption violated or
//!   stuck) after consuming no more inputs than the original. This stronger property is checked,
//!   and it implies the weaker one — except for a run that ends in the same undefined behaviour
//!   in both (a state cut's guard on a branch is checked after the branch condition).

use baton::analyses::{run_analysis, AnalysisKind, AnalysisOptions};
use baton::cfa::expr::{Expr, ExprKind};
use baton::cfa::interpreter::{execute, Ending, ExecOptions, Execution};
use baton::cfa::{Operation, Program};
use baton::condition::state_cut::execute_covered;
use baton::condition::ConditionAutomaton;
use baton::cpa::monitor::GiveUp;
use baton::reducer::{reduce, DEFAULT_MAX_LOCATIONS};
use std::collections::BTreeSet;

/// Step limit for original runs of the own programs (the shared tasks use less: many of them
/// loop forever once the inputs run out).
pub const ORIGINAL_STEPS: u64 = 200_000;

/// How a run ended, reduced to what must agree between the original and the residual.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A normal ending: kind, line or value, and the inputs consumed.
    Normal(String),
    /// No edge was passable (an assumption failed, or a location without edges): a covered
    /// or infeasible continuation. Carries the inputs consumed.
    Blocked(usize),
    /// The step limit was hit.
    Limit,
}

/// The outcome of a run.
pub fn outcome(e: &Execution) -> Outcome {
    let n = e.inputs_consumed;
    let normal = |s: String| Outcome::Normal(format!("{s} after {n} inputs"));
    match &e.ending {
        Ending::ErrorReached { function, line } => normal(format!("error {function}() at line {line}")),
        Ending::Aborted { line } => normal(format!("abort at line {line}")),
        Ending::Exited { code } => normal(format!("exit({code})")),
        Ending::Returned { value } => normal(format!("return {value:?}")),
        Ending::UndefinedBehavior { what, line } => {
            normal(format!("undefined behaviour {what} at line {line}"))
        }
        Ending::InvalidProgram { reason } => normal(format!("INVALID PROGRAM {reason}")),
        Ending::AssumptionViolated { .. } | Ending::Stuck { .. } => Outcome::Blocked(n),
        Ending::StepLimit
        | Ending::MemoryLimit { .. }
        | Ending::CallDepthLimit { .. }
        | Ending::Unmodelled { .. } => Outcome::Limit,
    }
}

/// Counts of what the checker saw, to make sure the checks were not vacuous.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    pub runs: usize,
    pub covered: usize,
    pub residual_normal: usize,
    pub residual_errors: usize,
    pub original_errors: usize,
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, o: Tally) {
        self.runs += o.runs;
        self.covered += o.covered;
        self.residual_normal += o.residual_normal;
        self.residual_errors += o.residual_errors;
        self.original_errors += o.original_errors;
    }
}

/// Largest number of residual edges one original step can turn into (an inlined call becomes
/// one assignment per parameter, the silent return one more edge).
pub fn step_factor(program: &Program) -> u64 {
    let params = program
        .functions
        .iter()
        .map(|f| f.params.len())
        .max()
        .unwrap_or(0);
    params as u64 + 2
}

/// What (c) demands of covered runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoveredRuns {
    /// Cut off in the residual (Algorithm 1's exact residual).
    MustBeCut,
    /// Cut off or not: a size-capped residual (tests/reducer_soundness.rs only) gives part of the condition up. `Tally::covered`
    /// then counts only the covered runs that are cut off.
    #[allow(dead_code)] // each test binary uses part of it
    MayStay,
}

/// Checks (a), (b) and (c) (as `covered_runs` says) on every input list, with `max_steps` for the original runs;
/// returns the violations found.
///
/// The residual run follows the original's path (the reducer keeps every operation and adds
/// only parameter and return assignments), so it gets `step_factor` times the original's steps:
/// a residual run that needs more cannot be the same execution and shows up as a mismatch.
#[allow(clippy::too_many_arguments)]
pub fn check_res(
    name: &str,
    original: &Program,
    condition: &ConditionAutomaton,
    residual: &Program,
    inputs: &[Vec<i128>],
    max_steps: u64,
    tally: &mut Tally,
    covered_runs: CoveredRuns,
) -> Vec<String> {
    let cuts_covered = covered_runs == CoveredRuns::MustBeCut;
    let mut violations = Vec::new();
    let original_options = ExecOptions {
        max_steps,
        record_path: true,
    };
    let factor = step_factor(original);
    for input in inputs {
        let (orig, covered) = execute_covered(original, condition, input, &original_options);
        let residual_options = ExecOptions {
            max_steps: orig.steps * factor + 8,
            record_path: false,
        };
        let res = execute(residual, input, &residual_options);
        // The residual got a larger step budget: if it finished where the original hit its
        // limit, give the original the residual's steps (it never needs more) before judging.
        let (orig, covered) = if outcome(&orig) == Outcome::Limit && outcome(&res) != Outcome::Limit {
            let options = ExecOptions {
                max_steps: res.steps + 8,
                record_path: true,
            };
            execute_covered(original, condition, input, &options)
        } else {
            (orig, covered)
        };
        let (o, r) = (outcome(&orig), outcome(&res));
        let cut = matches!(r, Outcome::Blocked(n) if n <= orig.inputs_consumed);
        tally.runs += 1;
        tally.covered += usize::from(covered && (cuts_covered || cut));
        tally.original_errors += usize::from(orig.ending.is_error());
        tally.residual_errors += usize::from(res.ending.is_error());
        let mut fail = |what: &str| {
            violations.push(format!(
                "{name}: {what}: inputs {input:?}: original {} ({o:?}), residual {} ({r:?}), covered {covered}",
                orig.ending, res.ending
            ))
        };
        // (a) every execution of the residual is one of the original.
        if let Outcome::Normal(_) = r {
            tally.residual_normal += 1;
            if o != r {
                fail("(a) residual execution is not an execution of the original");
            }
        }
        // A covered run may end in the same undefined behaviour in the residual: a guard of a
        // state cut follows the branch condition it guards (`reducer`'s `ResidualBuilder::edge`),
        // so undefined behaviour in that condition comes first. No verifier looks past it.
        let same_undefined = o == r && matches!(res.ending, Ending::UndefinedBehavior { .. });
        if covered {
            // (c) a covered path is cut off in the residual.
            if cuts_covered && !cut && !same_undefined {
                fail("(c) covered execution is not cut off in the residual");
            }
        } else if o != Outcome::Limit && o != r {
            // (b) an uncovered finite execution of the original happens in the residual.
            fail("(b) uncovered execution of the original is missing from the residual");
        }
    }
    violations
}

/// The residual program of an explicit run of `program` cut by the give-up condition `give_up`
/// (e.g. `path-length=20`); the Res violations of the runs on `inputs` (covered runs must be cut)
/// go to `violations`, labelled `label`, and the runs are counted in `tally`.
#[allow(dead_code)] // each test binary uses part of it
pub fn residual_of_cut_explicit_run(
    label: &str,
    program: &Program,
    give_up: &str,
    inputs: &[Vec<i128>],
    violations: &mut Vec<String>,
    tally: &mut Tally,
) -> Program {
    let options = AnalysisOptions {
        give_up: vec![give_up.parse::<GiveUp>().expect("give-up")],
        ..Default::default()
    };
    let condition = run_analysis(AnalysisKind::Explicit, program, &options, None).condition;
    let residual = reduce(program, &condition, DEFAULT_MAX_LOCATIONS)
        .unwrap_or_else(|e| panic!("{label}: reduce failed: {e}"));
    let mut local = Tally::default();
    violations.extend(check_res(
        label,
        program,
        &condition,
        &residual.program,
        inputs,
        ORIGINAL_STEPS,
        &mut local,
        CoveredRuns::MustBeCut,
    ));
    *tally += local;
    residual.program
}

/// Every constant that appears in the program's expressions.
pub fn program_constants(program: &Program) -> BTreeSet<i128> {
    fn walk(e: &Expr, out: &mut BTreeSet<i128>) {
        match &e.kind {
            ExprKind::Const(v) => {
                out.insert(*v);
            }
            ExprKind::Var(_) | ExprKind::Address { .. } | ExprKind::Function { .. } => {}
            ExprKind::Unary(_, a) | ExprKind::Cast(a) | ExprKind::Bitcast(a) => walk(a, out),
            ExprKind::Binary(_, a, b) => {
                walk(a, out);
                walk(b, out);
            }
        }
    }
    let mut out = BTreeSet::new();
    for e in &program.edges {
        match &e.op {
            Operation::Declare { init: Some(x), .. }
            | Operation::Assign { rhs: x, .. }
            | Operation::Assume { cond: x, .. }
            | Operation::Return { value: Some(x) }
            | Operation::Exit { code: x } => walk(x, &mut out),
            Operation::Call { args, .. } => args.iter().for_each(|a| walk(a, &mut out)),
            _ => {}
        }
    }
    for (_, v) in program.globals() {
        out.insert(v.initial);
    }
    out
}

/// SplitMix64: a small deterministic generator for input lists.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// `count` input lists for `program`, deterministic in `seed`: a mix of small values, type
/// boundaries, and the program's constants and their neighbours (so equality branches on
/// constants are taken), of lengths from 0 to a few hundred.
pub fn input_lists(program: &Program, seed: u64, count: usize) -> Vec<Vec<i128>> {
    let mut pool: Vec<i128> = Vec::new();
    for c in program_constants(program) {
        pool.extend([c, c - 1, c + 1]);
    }
    let boundaries: [i128; 14] = [
        0,
        1,
        -1,
        2,
        127,
        128,
        255,
        256,
        32767,
        65535,
        i32::MAX as i128,
        i32::MIN as i128,
        u32::MAX as i128,
        i64::MIN as i128,
    ];
    let mut rng = Rng::new(seed ^ (program.edges.len() as u64).wrapping_mul(0x1000_0000_01b3));
    let lengths = [0usize, 1, 2, 3, 5, 8, 13, 21, 40, 80, 200, 400];
    let mut lists = Vec::with_capacity(count);
    for i in 0..count {
        let len = lengths[i % lengths.len()] + rng.below(4) as usize;
        // Some lists repeat one value (drives loops that wait for a value), some take only the
        // program's constants (drives chains of equality branches), the others mix.
        let mode = rng.below(5);
        let repeat = mode == 0;
        let constants_only = mode == 1 && !pool.is_empty();
        let mut list = Vec::with_capacity(len);
        let pick = |rng: &mut Rng| -> i128 {
            match rng.below(10) {
                0..=4 if !pool.is_empty() => pool[rng.below(pool.len() as u64) as usize],
                0..=6 => rng.below(8) as i128 - 2,
                7 | 8 => boundaries[rng.below(boundaries.len() as u64) as usize],
                _ => rng.next() as i64 as i128,
            }
        };
        let first = pick(&mut rng);
        for _ in 0..len {
            list.push(if repeat {
                first
            } else if constants_only {
                pool[rng.below(pool.len() as u64) as usize]
            } else {
                pick(&mut rng)
            });
        }
        lists.push(list);
    }
    lists
}
