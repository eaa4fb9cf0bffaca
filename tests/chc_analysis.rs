//! The Horn-clause analysis (`--analysis chc`) on loop programs of our own, in sv-benchmarks
//! conventions: counters to nondet bounds, two phases, down-counting loops, sums with constant
//! bounds, nested counters, calls in loops — each safe (`true`, with loop-head invariants) and
//! buggy (`false`, with a counterexample that replays to the error). Verdicts are asserted,
//! never times.

#[path = "support/loop_programs.rs"]
mod loop_programs;

use baton::analyses::{run_analysis, AnalysisKind, AnalysisOutcome};
use baton::cfa::Program;
use baton::verdict::Verdict;
use loop_programs::{options, program, CALLS, COUNTER, DOWN, NESTED, SUM, TWO_PHASES};

fn chc(p: &Program, give_up: &[&str]) -> AnalysisOutcome {
    run_analysis(AnalysisKind::Chc, p, &options(give_up), None)
}

fn assert_safe(body: &str, loops: usize) {
    loop_programs::assert_safe(AnalysisKind::Chc, &options(&[]), body, loops);
}

fn assert_bug(body: &str) -> Vec<i128> {
    loop_programs::assert_bug(AnalysisKind::Chc, &options(&[]), body)
}

#[test]
fn counter_to_a_nondet_bound() {
    assert_safe(&COUNTER.replace("CHECK", "n >= 0 && i != n"), 1);
    let inputs = assert_bug(&COUNTER.replace("CHECK", "i == 5"));
    assert_eq!(inputs, vec![5]);
}

#[test]
fn two_phases() {
    assert_safe(&TWO_PHASES.replace("CHECK", "n >= 0 && j != n"), 2);
    assert_eq!(assert_bug(&TWO_PHASES.replace("CHECK", "j == 3")), vec![3]);
}

#[test]
fn down_counting() {
    assert_safe(&DOWN.replace("LIMIT", "-2"), 1);
    assert_bug(&DOWN.replace("LIMIT", "-1"));
}

#[test]
fn sum_with_a_constant_bound() {
    assert_safe(&SUM.replace("CMP", "!="), 1);
    assert_bug(&SUM.replace("CMP", "=="));
}

#[test]
fn nested_counters() {
    assert_safe(&NESTED.replace("CHECK", "j != i"), 2);
    let inputs = assert_bug(&NESTED.replace("CHECK", "j > 3"));
    assert!(inputs[0] >= 5, "{inputs:?}");
}

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
