//! State cuts (seed 000's assumption `(pc = l) ⇒ φ` on an edge, `condition::state_cut`):
//! where an explicit-value run verified everything after a step from a state it knows
//! exactly, in a function with one calling context and a program of plain integers, its
//! condition covers that step from every state with those values, whatever the path. The
//! reducer applies such a cut as a guard on the step's residual copies instead of copying the
//! program per path: the residual stays the original's size. Tested by execution (Res, through
//! `tests/support/res_check.rs`), through both file formats and through gcc; and where the
//! claim would depend on the path (two calling contexts, addresses, a guide) there are none.

#[path = "support/res_check.rs"]
mod res_check;
#[path = "support/shared.rs"]
mod shared;

use baton::analyses::{run_analysis, AnalysisKind, AnalysisOptions};
use baton::cfa::emit_c::emit_c;
use baton::cfa::interpreter::{execute, ExecOptions};
use baton::cfa::types::DataModel;
use baton::cfa::Program;
use baton::condition::{self, ConditionAutomaton, ConditionRunner, Cut, Format};
use baton::cpa::engine::{Guide, SearchOrder};
use baton::cpa::monitor::GiveUp;
use baton::reducer::{reduce, DEFAULT_MAX_LOCATIONS};
use baton::verdict::Verdict;
use res_check::{check_res, input_lists, outcome, CoveredRuns, Tally};
use std::process::Command;

const HEADER: &str = "extern void __assert_fail(const char *, const char *, unsigned int, const char *);\n\
void reach_error() { __assert_fail(\"0\", \"t.c\", 3, \"reach_error\"); }\n\
extern int __VERIFIER_nondet_int(void);\n\
extern void exit(int);\n";

/// A protocol loop in the style of the ssh-simplified tasks: every round may fail (the run
/// ends), the state variable steps through known values, the bug needs a nondet flag late.
const PROTOCOL: &str = "int main(void) {\n\
  int state = 1;\n\
  int rounds = 0;\n\
  while (1) {\n\
    if (!__VERIFIER_nondet_int()) exit(1);\n\
    if (state < 6) state = state + 1; else state = 1;\n\
    rounds++;\n\
    if (state == 6 && rounds > 40 && __VERIFIER_nondet_int() == 7) reach_error();\n\
  }\n\
  return 0;\n\
}\n";

fn program(name: &str, body: &str) -> Program {
    baton::frontend::load_source(name, &format!("{HEADER}{body}"), DataModel::ILP32)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The condition of a breadth-first explicit run cut after `states` states, guided by `guide`.
fn explicit(program: &Program, states: u64, guide: Option<&dyn Guide>) -> ConditionAutomaton {
    let options = AnalysisOptions {
        give_up: vec![GiveUp::ReachedStates(states)],
        order: SearchOrder::Bfs,
    };
    run_analysis(AnalysisKind::Explicit, program, &options, guide).condition
}

#[test]
fn verified_steps_become_state_cuts_and_copy_no_code() {
    let program = program("protocol.c", PROTOCOL);
    let condition = explicit(&program, 300, None);
    assert!(!condition.state_cuts.is_empty(), "{}", condition.render(&program));
    // Every cut the state cuts make is also a cut of the path (for guides), marked so.
    let marked: Vec<_> = condition
        .transitions
        .iter()
        .filter(|t| t.cut == Cut::InStateCut)
        .flat_map(|t| t.edges.iter().copied())
        .collect();
    assert!(!marked.is_empty());
    assert!(marked
        .iter()
        .all(|e| condition.state_cuts.iter().any(|c| c.edge == *e)));

    let residual = reduce(&program, &condition, DEFAULT_MAX_LOCATIONS).unwrap_or_else(|e| panic!("{e}"));
    assert!(residual.guarded_edges > 0);
    assert!(
        residual.program.locations.len() <= program.locations.len(),
        "{} residual locations, {} original",
        residual.program.locations.len(),
        program.locations.len()
    );
    // Without the state cuts the same verified steps unroll the loop.
    let mut by_path = condition.clone();
    by_path.state_cuts.clear();
    for t in &mut by_path.transitions {
        if t.cut == Cut::InStateCut {
            t.cut = Cut::Explored;
        }
    }
    let unrolled = reduce(&program, &by_path, DEFAULT_MAX_LOCATIONS).unwrap_or_else(|e| panic!("{e}"));
    assert!(unrolled.program.locations.len() > 2 * program.locations.len());

    let (inputs, tally) = res_holds("protocol", &program, &condition, &residual.program, 0x57a7e, 400);
    assert!(tally.covered > 0 && tally.covered < tally.runs, "{tally:?}");

    // The state cuts survive both file formats: the same residual.
    for format in [Format::GraphMl, Format::CpaChecker] {
        let text = condition::write(&condition, &program, format);
        let read = condition::parse(&text, "c", &program).unwrap_or_else(|e| panic!("{format}: {e}"));
        assert_eq!(read.state_cuts, condition.state_cuts, "{format}");
        let again = reduce(&program, &read, DEFAULT_MAX_LOCATIONS).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            again.program.edges.len(),
            residual.program.edges.len(),
            "{format}"
        );
    }

    emitted_c_compiles_and_runs_as_the_residual(&residual.program, &inputs);
}

/// Res by execution on `count` random input lists (from `seed`) and runs taking the loop's
/// first branch 0 to 59 times: covered runs (by a state cut, on any path) are cut off, the
/// others run as in the original. Returns the inputs and what the checker saw.
fn res_holds(
    name: &str,
    program: &Program,
    condition: &ConditionAutomaton,
    residual: &Program,
    seed: u64,
    count: usize,
) -> (Vec<Vec<i128>>, Tally) {
    let mut inputs = input_lists(program, seed, count);
    inputs.extend((0..60).map(|k| vec![1; k]));
    let mut tally = Tally::default();
    let violations = check_res(
        name,
        program,
        condition,
        residual,
        &inputs,
        res_check::ORIGINAL_STEPS,
        &mut tally,
        CoveredRuns::MustBeCut,
    );
    assert!(violations.is_empty(), "{}", violations.join("\n"));
    (inputs, tally)
}

/// The emitted C of `residual` compiles with gcc and, read back, runs as the residual CFA on
/// (the first hundred of) `inputs`.
fn emitted_c_compiles_and_runs_as_the_residual(residual: &Program, inputs: &[Vec<i128>]) {
    let text = emit_c(residual);
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("residual.c");
    std::fs::write(&file, &text).expect("write");
    let gcc = Command::new("gcc")
        .args(["-m64", "-c", "-w", "-o"])
        .arg(dir.path().join("residual.o"))
        .arg(&file)
        .output()
        .expect("gcc runs");
    assert!(gcc.status.success(), "{}", String::from_utf8_lossy(&gcc.stderr));
    let reread =
        baton::frontend::load_source("residual.c", &text, DataModel::ILP32).unwrap_or_else(|e| panic!("{e}"));
    for input in inputs.iter().take(100) {
        let run = |p: &Program| outcome(&execute(p, input, &ExecOptions::default()));
        assert_eq!(run(&reread), run(residual), "inputs {input:?}");
    }
}

/// The protocol's round in a function called from one place, its exit taken on a condition
/// that may overflow: the guard of that step's state cut is an assume of its own before the
/// branch, a location the copy of the function must declare.
const ROUND_IN_FUNCTION: &str = "int state = 1;\n\
int rounds = 0;\n\
void round_trip(void) {\n\
  int stop = __VERIFIER_nondet_int();\n\
  if (stop - 5 == 0) exit(1);\n\
  if (state < 6) state = state + 1; else state = 1;\n\
  rounds++;\n\
  if (state == 6 && rounds > 40 && __VERIFIER_nondet_int() == 7) reach_error();\n\
}\n\
int main(void) {\n\
  while (1) round_trip();\n\
  return 0;\n\
}\n";

/// Regression: the location of a guard in a copied function was left out of the copy's
/// locations, and the emitted C jumped to a label it never defined (s3_clnt_1's residual).
#[test]
fn guards_in_called_functions_are_emitted() {
    let program = program("round.c", ROUND_IN_FUNCTION);
    let condition = explicit(&program, 300, None);
    let residual = reduce(&program, &condition, DEFAULT_MAX_LOCATIONS).unwrap_or_else(|e| panic!("{e}"));
    assert!(residual.guarded_edges > 0, "{}", condition.render(&program));
    assert!(
        residual.program.functions.len() > 1,
        "round_trip is kept as a call"
    );
    let (inputs, _) = res_holds("round", &program, &condition, &residual.program, 0x60a2d, 200);
    emitted_c_compiles_and_runs_as_the_residual(&residual.program, &inputs);
}

/// The protocol's round in a function called from two places: what follows a step in `step`
/// depends on where it returns to, so its cuts stay cuts of the path.
const TWO_CONTEXTS: &str = "int state = 1;\n\
int rounds = 0;\n\
void step(void) {\n\
  if (!__VERIFIER_nondet_int()) exit(1);\n\
  if (state < 6) state = state + 1; else state = 1;\n\
  rounds++;\n\
}\n\
int main(void) {\n\
  while (1) {\n\
    step();\n\
    step();\n\
    if (state == 5 && rounds > 40 && __VERIFIER_nondet_int() == 7) reach_error();\n\
  }\n\
  return 0;\n\
}\n";

/// An address taken: a valuation of variables does not say what memory holds.
const ADDRESS: &str = "int main(void) {\n\
  int state = 1;\n\
  int *p = &state;\n\
  while (1) {\n\
    if (!__VERIFIER_nondet_int()) exit(1);\n\
    *p = *p < 6 ? *p + 1 : 1;\n\
    if (state == 6 && __VERIFIER_nondet_int() == 7) reach_error();\n\
  }\n\
  return 0;\n\
}\n";

#[test]
fn no_state_cuts_where_the_path_matters() {
    for (name, body) in [("two_contexts.c", TWO_CONTEXTS), ("address.c", ADDRESS)] {
        let program = program(name, body);
        let condition = explicit(&program, 300, None);
        assert!(condition.state_cuts.is_empty(), "{name}");
        assert!(
            condition.transitions.iter().all(|t| t.cut != Cut::InStateCut),
            "{name}"
        );
        assert!(
            condition
                .transitions
                .iter()
                .any(|t| t.cut == Cut::Explored && condition.is_accepting(t.to)),
            "{name}: the run verified something"
        );
    }
    // Guided by an earlier condition, part of what the run verified is the earlier
    // condition's, which depends on the path.
    let program = program("protocol.c", PROTOCOL);
    let earlier = explicit(&program, 40, None);
    let runner = ConditionRunner::new(&earlier);
    let condition = explicit(&program, 300, Some(&runner));
    assert!(condition.state_cuts.is_empty());
}

/// token_ring.03 (expected `true`): the explicit analysis covers most of it by state cuts and
/// gives up; the predicate analysis proves the guarded residual with the predicates it proves
/// the original with, because it explains infeasible paths by the program's conditions before
/// the guards' (`Expr::is_state_exclusion`). Predicates from the guards name covered states
/// one by one. Skipped with a printed reason without the task.
#[test]
fn the_predicate_analysis_proves_a_guarded_residual_as_the_original() {
    let Some(dir) = shared::benchmarks() else { return };
    let file = dir.join("c/systemc/token_ring.03.cil-2.yml");
    if !file.is_file() {
        println!("SKIP: {} is not in BATON_SV_BENCHMARKS", file.display());
        return;
    }
    let task = baton::task::Task::load(&file, Default::default()).expect("task loads");
    assert_eq!(task.expected, Some(true));
    let program = baton::frontend::load_program(&task.program, task.data_model).expect("program lowers");
    let explicit = run_analysis(
        AnalysisKind::Explicit,
        &program,
        &AnalysisOptions::default(),
        None,
    );
    assert_eq!(explicit.verdict, Verdict::Unknown, "{}", explicit.reason);
    assert!(!explicit.condition.state_cuts.is_empty());
    let residual =
        reduce(&program, &explicit.condition, DEFAULT_MAX_LOCATIONS).unwrap_or_else(|e| panic!("{e}"));
    assert!(residual.guarded_edges > 0);
    assert!(residual.program.locations.len() <= program.locations.len() + residual.guarded_edges);
    let options = AnalysisOptions {
        give_up: vec!["cpu-time=45s".parse::<GiveUp>().expect("give-up")],
        ..Default::default()
    };
    let original = run_analysis(AnalysisKind::Predicate, &program, &options, None);
    assert_eq!(original.verdict, Verdict::True, "{}", original.reason);
    let predicate = run_analysis(AnalysisKind::Predicate, &residual.program, &options, None);
    assert_eq!(predicate.verdict, Verdict::True, "{}", predicate.reason);
    // No predicate from a guard: 39 and 39 (58 with the guards' predicates, in twice the time).
    assert!(
        predicate.predicates <= original.predicates,
        "{} predicates on the residual, {} on the original",
        predicate.predicates,
        original.predicates
    );
}
