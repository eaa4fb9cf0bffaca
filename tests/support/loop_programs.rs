//! Loop programs of our own in sv-benchmarks conventions (counters to nondet bounds, two
//! phases, down-counting loops, sums with constant bounds, nested counters, calls in loops),
//! each with a `CHECK`/`CMP`/`LIMIT` hole for a safe and a buggy variant, and the assertions
//! the analyses that decide them share.
#![allow(dead_code)]

use baton::analyses::{run_analysis, AnalysisKind, AnalysisOptions};
use baton::cfa::interpreter::{execute, ExecOptions};
use baton::cfa::types::DataModel;
use baton::cfa::Program;
use baton::cpa::monitor::GiveUp;
use baton::frontend::load_source;
use baton::verdict::Verdict;

const PRELUDE: &str = "extern int __VERIFIER_nondet_int(void);\nextern unsigned int __VERIFIER_nondet_uint(void);\nvoid reach_error(void) {}\n";

/// The program `body` after the declarations of the verifier functions.
pub fn program(body: &str) -> Program {
    load_source("loops.c", &format!("{PRELUDE}{body}"), DataModel::ILP32).expect("test program lowers")
}

/// Options with the give-up conditions `give_up` (e.g. `cpu-time=120s`).
pub fn options(give_up: &[&str]) -> AnalysisOptions {
    AnalysisOptions {
        give_up: give_up
            .iter()
            .map(|g| g.parse::<GiveUp>().expect("valid give-up"))
            .collect(),
        ..Default::default()
    }
}

/// `true` from analysis `kind`, fully verified, with an invariant for each of the `loops`
/// loop heads.
pub fn assert_safe(kind: AnalysisKind, options: &AnalysisOptions, body: &str, loops: usize) {
    let p = program(body);
    let outcome = run_analysis(kind, &p, options, None);
    assert_eq!(outcome.verdict, Verdict::True, "{}\n{body}", outcome.reason);
    assert!(outcome.condition.is_trivial_full());
    assert!(outcome.counterexample.is_none());
    assert!(
        outcome.invariants.len() >= loops,
        "{loops} loop heads, invariants {:?}",
        outcome.invariants
    );
}

/// `false` from analysis `kind`, with inputs that replay to the error on the interpreter.
pub fn assert_bug(kind: AnalysisKind, options: &AnalysisOptions, body: &str) -> Vec<i128> {
    let p = program(body);
    let outcome = run_analysis(kind, &p, options, None);
    assert_eq!(outcome.verdict, Verdict::False, "{}\n{body}", outcome.reason);
    let cex = outcome
        .counterexample
        .expect("a false verdict has a counterexample");
    let run = execute(&p, &cex.inputs, &ExecOptions::default());
    assert!(run.ending.is_error(), "replay ends with {}", run.ending);
    cex.inputs
}

pub const COUNTER: &str = "int main(void) { int n = __VERIFIER_nondet_int(); int i = 0;\n\
    while (i < n) { i++; }\n\
    if (CHECK) reach_error(); return 0; }";

pub const TWO_PHASES: &str = "int main(void) { int n = __VERIFIER_nondet_int(); int i = 0; int j = 0;\n\
    while (i < n) { i++; }\n\
    while (j < i) { j++; }\n\
    if (CHECK) reach_error(); return 0; }";

pub const DOWN: &str = "int main(void) { int n = __VERIFIER_nondet_int(); int x = n;\n\
    while (x > 0) { x -= 3; }\n\
    if (n >= 0 && x < LIMIT) reach_error(); return 0; }";

pub const SUM: &str = "int main(void) { int s = 0;\n\
    for (int i = 0; i < 10; i++) { s += i; }\n\
    if (s CMP 45) reach_error(); return 0; }";

pub const NESTED: &str = "int main(void) { int n = __VERIFIER_nondet_int(); int i = 0;\n\
    while (i < n) { int j = 0; while (j < i) { j++; }\n\
      if (CHECK) reach_error(); i++; }\n\
    return 0; }";

pub const CALLS: &str = "unsigned int step(unsigned int x) { return x + 2; }\n\
    int main(void) { unsigned int n = __VERIFIER_nondet_uint(); unsigned int x = 0;\n\
    while (__VERIFIER_nondet_int()) { x = step(x); }\n\
    if (x % 2 CMP 0) reach_error(); return 0; }";
