//! The predicate analysis on the loop programs of `support/loop_programs.rs` (shared with the
//! Horn-clause analysis' tests): refinement with predicates that generalise across loop
//! iterations (relations without iteration constants, collected linear terms, the values an
//! unrolled loop with a constant bound fixes) decides each safe and buggy variant. Before it,
//! the two phases and the sum with a constant bound gave up (one predicate per unrolling).
//! Verdicts are asserted, never times; the budget only keeps a regression from hanging.

#[path = "support/loop_programs.rs"]
mod loop_programs;

use baton::analyses::{AnalysisKind, AnalysisOptions};
use loop_programs::{options, CALLS, COUNTER, DOWN, NESTED, SUM, TWO_PHASES};

fn budget() -> AnalysisOptions {
    options(&["cpu-time=300s"])
}

fn assert_safe(body: &str, loops: usize) {
    loop_programs::assert_safe(AnalysisKind::Predicate, &budget(), body, loops);
}

fn assert_bug(body: &str) -> Vec<i128> {
    loop_programs::assert_bug(AnalysisKind::Predicate, &budget(), body)
}

#[test]
fn two_phases_need_relations_between_the_counters() {
    assert_safe(&TWO_PHASES.replace("CHECK", "n >= 0 && j != n"), 2);
    assert_eq!(assert_bug(&TWO_PHASES.replace("CHECK", "j == 3")), vec![3]);
}

#[test]
fn a_sum_with_a_constant_bound_is_unrolled_by_its_values() {
    assert_safe(&SUM.replace("CMP", "!="), 1);
    assert_bug(&SUM.replace("CMP", "=="));
}

#[test]
fn counters_down_counting_nested_loops_and_calls() {
    assert_safe(&COUNTER.replace("CHECK", "n >= 0 && i != n"), 1);
    assert_eq!(assert_bug(&COUNTER.replace("CHECK", "i == 5")), vec![5]);
    assert_safe(&DOWN.replace("LIMIT", "-2"), 1);
    assert_bug(&DOWN.replace("LIMIT", "-1"));
    assert_safe(&NESTED.replace("CHECK", "j != i"), 2);
    assert_bug(&NESTED.replace("CHECK", "j > 3"));
    assert_safe(&CALLS.replace("CMP", "!="), 1);
    assert_bug(&CALLS.replace("CMP", "=="));
}
