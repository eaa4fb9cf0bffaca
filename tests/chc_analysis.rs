//! The Horn-clause analysis (`--analysis chc`) on loop programs of our own, in sv-benchmarks
//! conventions: counters to nondet bounds, two phases, down-counting loops, sums with constant
//! bounds, nested counters, calls in loops — each safe (`true`, with loop-head invariants) and
//! buggy (`false`, with a counterexample that replays to the error). Verdicts are asserted,
//! never times.

use baton::analyses::{run_analysis, AnalysisKind, AnalysisOptions, AnalysisOutcome};
use baton::cfa::interpreter::{execute, ExecOptions};
use baton::cfa::types::DataModel;
use baton::cfa::Program;
use baton::cpa::monitor::GiveUp;
use baton::frontend::load_source;
use baton::verdict::Verdict;

const PRELUDE: &str = "extern int __VERIFIER_nondet_int(void);\nextern unsigned int __VERIFIER_nondet_uint(void);\nvoid reach_error(void) {}\n";

fn program(body: &str) -> Program {
    load_source("loops.c", &format!("{PRELUDE}{body}"), DataModel::ILP32).expect("test program lowers")
}

fn chc(p: &Program, give_up: &[&str]) -> AnalysisOutcome {
    let options = AnalysisOptions {
        give_up: give_up
            .iter()
            .map(|g| g.parse::<GiveUp>().expect("valid give-up"))
            .collect(),
        ..Default::default()
    };
    run_analysis(AnalysisKind::Chc, p, &options, None)
}

/// `true`, fully verified, with an invariant for each loop head.
fn assert_safe(body: &str, loops: usize) {
    let p = program(body);
    let outcome = chc(&p, &[]);
    assert_eq!(outcome.verdict, Verdict::True, "{}\n{body}", outcome.reason);
    assert!(outcome.condition.is_trivial_full());
    assert!(outcome.counterexample.is_none());
    assert!(
        outcome.invariants.len() >= loops,
        "{loops} loop heads, invariants {:?}",
        outcome.invariants
    );
}

/// `false`, with inputs that replay to the error on the interpreter.
fn assert_bug(body: &str) -> Vec<i128> {
    let p = program(body);
    let outcome = chc(&p, &[]);
    assert_eq!(outcome.verdict, Verdict::False, "{}\n{body}", outcome.reason);
    let cex = outcome
        .counterexample
        .expect("a false verdict has a counterexample");
    let run = execute(&p, &cex.inputs, &ExecOptions::default());
    assert!(run.ending.is_error(), "replay ends with {}", run.ending);
    cex.inputs
}

const COUNTER: &str = "int main(void) { int n = __VERIFIER_nondet_int(); int i = 0;\n\
    while (i < n) { i++; }\n\
    if (CHECK) reach_error(); return 0; }";

#[test]
fn counter_to_a_nondet_bound() {
    assert_safe(&COUNTER.replace("CHECK", "n >= 0 && i != n"), 1);
    let inputs = assert_bug(&COUNTER.replace("CHECK", "i == 5"));
    assert_eq!(inputs, vec![5]);
}

const TWO_PHASES: &str = "int main(void) { int n = __VERIFIER_nondet_int(); int i = 0; int j = 0;\n\
    while (i < n) { i++; }\n\
    while (j < i) { j++; }\n\
    if (CHECK) reach_error(); return 0; }";

#[test]
fn two_phases() {
    assert_safe(&TWO_PHASES.replace("CHECK", "n >= 0 && j != n"), 2);
    assert_eq!(assert_bug(&TWO_PHASES.replace("CHECK", "j == 3")), vec![3]);
}

const DOWN: &str = "int main(void) { int n = __VERIFIER_nondet_int(); int x = n;\n\
    while (x > 0) { x -= 3; }\n\
    if (n >= 0 && x < LIMIT) reach_error(); return 0; }";

#[test]
fn down_counting() {
    assert_safe(&DOWN.replace("LIMIT", "-2"), 1);
    assert_bug(&DOWN.replace("LIMIT", "-1"));
}

const SUM: &str = "int main(void) { int s = 0;\n\
    for (int i = 0; i < 10; i++) { s += i; }\n\
    if (s CMP 45) reach_error(); return 0; }";

#[test]
fn sum_with_a_constant_bound() {
    assert_safe(&SUM.replace("CMP", "!="), 1);
    assert_bug(&SUM.replace("CMP", "=="));
}

const NESTED: &str = "int main(void) { int n = __VERIFIER_nondet_int(); int i = 0;\n\
    while (i < n) { int j = 0; while (j < i) { j++; }\n\
      if (CHECK) reach_error(); i++; }\n\
    return 0; }";

#[test]
fn nested_counters() {
    assert_safe(&NESTED.replace("CHECK", "j != i"), 2);
    let inputs = assert_bug(&NESTED.replace("CHECK", "j > 3"));
    assert!(inputs[0] >= 5, "{inputs:?}");
}

const CALLS: &str = "unsigned int step(unsigned int x) { return x + 2; }\n\
    int main(void) { unsigned int n = __VERIFIER_nondet_uint(); unsigned int x = 0;\n\
    while (__VERIFIER_nondet_int()) { x = step(x); }\n\
    if (x % 2 CMP 0) reach_error(); return 0; }";

#[test]
fn calls_in_loops_and_unsigned_wrap_around() {
    assert_safe(&CALLS.replace("CMP", "!="), 1);
    assert_bug(&CALLS.replace("CMP", "=="));
}

/// Signed overflow is undefined behaviour: a path through it is no counterexample, and a bug
/// that needs it is none.
#[test]
fn paths_through_signed_overflow_are_no_counterexamples() {
    assert_safe(
        "int main(void) { int x = 0; while (__VERIFIER_nondet_int()) { x++; }\n\
         if (x < 0) reach_error(); return 0; }",
        1,
    );
}

/// A give-up (here a memory limit the process is already above) ends the analysis with
/// `unknown` and nothing verified, so a later stage sees the whole program.
#[test]
fn a_give_up_answers_unknown_with_nothing_verified() {
    let p = program(&COUNTER.replace("CHECK", "n >= 0 && i != n"));
    let outcome = chc(&p, &["memory=1B"]);
    assert_eq!(outcome.verdict, Verdict::Unknown, "{}", outcome.reason);
    assert!(outcome.reason.contains("memory"), "{}", outcome.reason);
    assert!(outcome.condition.is_trivial_empty());
}
