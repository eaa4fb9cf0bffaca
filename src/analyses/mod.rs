//! Baton's native analyses on the CPA engine, and what they share: running the engine to a
//! verdict, replaying counterexamples on the concrete interpreter, and making the condition.
//!
//! Verdicts are conservative: `true` only when the reached set is complete and nothing was cut
//! (states left to an earlier stage's condition by the guide count as verified);
//! `false(unreach-call)` only when a counterexample with concrete nondet values replays to the
//! error on the interpreter; otherwise `unknown`.
//!
//! Undefined behaviour (see [`crate::cfa::semantics`]; signed overflow unless the program's
//! [`Program::signed_overflow`] is `wrap`) ends a path in every analysis and in the replay:
//! sv-benchmarks tasks are free of it by convention, so such a path is no counterexample, and a
//! `true` holds for every execution without it. The reason of a definite verdict says so.

pub mod chc;
pub mod explicit;
pub mod incremental;
pub mod predicate;

use crate::cfa::interpreter::{execute, Ending, ExecOptions};
use crate::cfa::{Operation, Program};
use crate::condition::from_arg::condition_from_arg;
use crate::condition::ConditionAutomaton;
use crate::cpa::arg::{NodeId, NodeStatus};
use crate::cpa::budget::writing_reserve;
use crate::cpa::control::ControlState;
use crate::cpa::engine::{Engine, EngineStats, Guide, RunOutcome, SearchOrder};
use crate::cpa::monitor::GiveUp;
use crate::cpa::{Cpa, Step};
use crate::verdict::Verdict;
use predicate::solver::SolverConfig;

/// Which native analysis to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnalysisKind {
    Explicit,
    /// Predicate abstraction with lazy abstraction and CEGAR.
    Predicate,
    /// Constrained Horn clauses solved by Z3's Spacer.
    Chc,
}

impl std::str::FromStr for AnalysisKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "explicit" => Ok(AnalysisKind::Explicit),
            "predicate" => Ok(AnalysisKind::Predicate),
            "chc" => Ok(AnalysisKind::Chc),
            _ => Err(format!(
                "unknown analysis `{s}` (expected explicit, predicate or chc)"
            )),
        }
    }
}

/// Runs a native analysis to a verdict, guided by `guide` when given.
pub fn run_analysis(
    kind: AnalysisKind,
    program: &Program,
    options: &AnalysisOptions,
    guide: Option<&dyn Guide>,
) -> AnalysisOutcome {
    match kind {
        AnalysisKind::Explicit => explicit::verify(program, options, guide),
        AnalysisKind::Predicate => predicate::verify(program, options, guide),
        AnalysisKind::Chc => chc::verify(program, options, guide),
    }
}

/// Options every native analysis takes.
#[derive(Debug, Clone, Default)]
pub struct AnalysisOptions {
    pub give_up: Vec<GiveUp>,
    pub order: SearchOrder,
}

impl AnalysisOptions {
    /// The limit of the `cpu-time` give-up (the smallest, if given twice), if there is one.
    pub fn cpu_time_limit(&self) -> Option<std::time::Duration> {
        crate::cpa::monitor::cpu_time_limit(&self.give_up)
    }

    /// The limit of the `memory` give-up (the smallest, if given twice), else the default
    /// every native analysis has ([`crate::cpa::budget::default_memory_limit`]).
    pub fn memory_limit(&self) -> Option<u64> {
        self.give_up
            .iter()
            .filter_map(|g| match g {
                GiveUp::Memory(limit) => Some(*limit),
                _ => None,
            })
            .min()
            .or_else(crate::cpa::budget::default_memory_limit)
    }
}

/// A violation of the property, confirmed on the concrete interpreter.
#[derive(Debug, Clone)]
pub struct Counterexample {
    /// The path of the analysis from program start to the error.
    pub steps: Vec<Step>,
    /// The nondet values, in order, that lead there.
    pub inputs: Vec<i128>,
    /// How the replay on the interpreter ended (an error ending).
    pub replay: Ending,
}

/// What a native analysis run returns.
#[derive(Debug, Clone)]
pub struct AnalysisOutcome {
    pub verdict: Verdict,
    /// Why the verdict is what it is (e.g. `complete`, `cpu-time=10s`, `3 states cut`).
    pub reason: String,
    pub counterexample: Option<Counterexample>,
    /// What was verified (fully verified for `true`).
    pub condition: ConditionAutomaton,
    /// The CPU-time deadline cut the condition short: it hands on less than was verified.
    pub condition_cut_short: bool,
    pub stats: EngineStats,
    /// Live ARG nodes at the end.
    pub reached_states: usize,
    /// Loop-head invariants `(location, C expression)` of a `true` proof, where the analysis
    /// provides them (the predicate analysis without a guide; the chc analysis gives SMT-LIB
    /// formulas over the variables' names); empty otherwise.
    pub invariants: Vec<(crate::cfa::LocId, String)>,
    /// Contracts of the recursive functions of a `true` proof, where the analysis provides
    /// loop invariants (they are checked with them).
    pub contracts: Vec<crate::witness::correctness::ContractText>,
    /// Number of predicates in the final precision (0 for analyses without predicates).
    pub predicates: usize,
}

/// What an analysis decides about a target state the engine reached.
pub enum TargetDecision {
    /// A real violation.
    Violation(Counterexample),
    /// Not confirmed: the state is cut (recorded as not verified) and exploration goes on.
    NotConfirmed(String),
    /// The analysis refined itself (e.g. CEGAR) and changed the ARG; exploration goes on.
    Refined,
}

/// Step limit for replays: counterexample paths of the analyses are far shorter.
const REPLAY_STEPS: u64 = 10_000_000;

/// Replays nondet values on the interpreter: how the run ends.
pub fn replay(program: &Program, inputs: &[i128]) -> Ending {
    let run = execute(
        program,
        inputs,
        &ExecOptions {
            max_steps: REPLAY_STEPS,
            record_path: false,
        },
    );
    run.ending
}

/// Replays nondet values on the interpreter; `Some(ending)` if the run reaches the error.
pub fn replay_to_error(program: &Program, inputs: &[i128]) -> Option<Ending> {
    Some(replay(program, inputs)).filter(Ending::is_error)
}

/// Confirms a path to an error location: solves its bit-precise path formula for nondet values
/// (with `solver`'s limits) and replays them on the interpreter; only a replay that reaches the
/// error is a violation. A path without nondet steps needs no solving (its inputs are the empty
/// list): that saves encoding long paths such as deep recursion on constants.
pub fn confirm_path(program: &Program, steps: Vec<Step>, solver: &SolverConfig) -> TargetDecision {
    let inputs = if nondet_free(program, &steps) {
        Some(Vec::new())
    } else {
        predicate::formula::concrete_inputs(program, &steps, solver)
    };
    let Some(inputs) = inputs else {
        return TargetDecision::NotConfirmed("error path infeasible or not solvable".into());
    };
    // The reason names what stopped the run (a function without a body whose result the
    // path uses, say).
    match replay(program, &inputs) {
        replay if replay.is_error() => TargetDecision::Violation(Counterexample {
            steps,
            inputs,
            replay,
        }),
        other => TargetDecision::NotConfirmed(format!(
            "counterexample does not replay on the interpreter ({other})"
        )),
    }
}

/// True if no step of the path reads a nondet value: its only input is the empty list.
pub fn nondet_free(program: &Program, steps: &[Step]) -> bool {
    !steps
        .iter()
        .any(|s| matches!(s, Step::Edge(e) if matches!(program.edge(*e).op, Operation::Nondet { .. })))
}

/// True if the run of the program without inputs takes exactly the edges of the path `steps`
/// to the error: then the path needs no solving to be confirmed.
pub fn is_the_run_to_error(program: &Program, steps: &[Step]) -> bool {
    let run = execute(
        program,
        &[],
        &ExecOptions {
            max_steps: steps.len() as u64 + 1,
            record_path: true,
        },
    );
    let edges = steps.iter().filter_map(|s| match s {
        Step::Edge(e) => Some(*e),
        Step::Return { .. } => None,
    });
    run.ending.is_error() && run.path.iter().copied().eq(edges)
}

/// Runs the engine to a verdict, asking `on_target` about each target state.
pub fn run_to_verdict<C: Cpa>(
    engine: &mut Engine<'_, C>,
    mut on_target: impl FnMut(&mut Engine<'_, C>, NodeId) -> TargetDecision,
) -> AnalysisOutcome {
    let program = engine.program();
    let cpu_before = crate::cpa::monitor::process_cpu_time();
    let (verdict, reason, counterexample) = loop {
        match engine.run() {
            RunOutcome::Target(node) => match on_target(engine, node) {
                TargetDecision::Violation(cex) => break (Verdict::False, "error reached".into(), Some(cex)),
                TargetDecision::NotConfirmed(why) => engine.cut(node, why),
                TargetDecision::Refined => {}
            },
            RunOutcome::Stopped(g) => break (Verdict::Unknown, format!("gave up: {g}"), None),
            RunOutcome::Complete => {
                let arg = engine.arg();
                let unverified = arg
                    .live_ids()
                    .filter(|&n| matches!(arg.node(n).status, NodeStatus::Cut(_) | NodeStatus::Waiting))
                    .count();
                if unverified == 0 {
                    break (Verdict::True, "complete".into(), None);
                }
                let first = arg.live_ids().find_map(|n| match &arg.node(n).status {
                    NodeStatus::Cut(r) => Some(r.clone()),
                    _ => None,
                });
                let reason = format!(
                    "{unverified} states not verified (first: {})",
                    first.unwrap_or_default()
                );
                break (Verdict::Unknown, reason, None);
            }
        }
    };
    let reason = if verdict.is_definite() {
        format!("{reason}; {}", program.signed_overflow.assumption())
    } else {
        reason
    };
    let (condition, condition_cut_short) = match verdict {
        Verdict::True => (ConditionAutomaton::fully_verified(&program.hash), false),
        // A violation ends the flow; the condition then is what was explored without error.
        _ => {
            // Built by the deadline less the time writing it will take (see `cpa::budget`).
            let nodes = engine.arg().nodes.len();
            let deadline = engine
                .cpu_deadline()
                .map(|d| d.earlier_by(writing_reserve(nodes)));
            let cpa = engine.cpa();
            let valuation = |state: &C::State, control: &ControlState| cpa.valuation(state, control, program);
            let built = condition_from_arg(engine.arg(), program, deadline, Some(&valuation));
            (built.automaton, built.cut_short)
        }
    };
    // CPU time of the whole analysis: exploration, counterexample checks and the condition.
    let mut stats = engine.stats().clone();
    stats.cpu_time = crate::cpa::monitor::process_cpu_time().saturating_sub(cpu_before);
    AnalysisOutcome {
        verdict,
        reason,
        counterexample,
        condition,
        condition_cut_short,
        stats,
        reached_states: engine.arg().len(),
        invariants: Vec::new(),
        contracts: Vec::new(),
        predicates: 0,
    }
}
