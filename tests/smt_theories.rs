//! Floats and arrays in the SMT encodings: the predicate analysis' path formulas encode `float`
//! and `double` operations in Z3's floating-point theory and arrays in its array theory, so
//! small loop-free programs over them are decided exactly — safe ones `true`, buggy ones `false`
//! with a counterexample that replays on the interpreter — and a path through undefined
//! behaviour (an out-of-range float → int conversion, an access out of bounds) is never a
//! counterexample. The CHC analysis, which uses the same encoding for its bit-precise clauses,
//! must never answer wrongly on them.

use baton::analyses::{replay_to_error, run_analysis, AnalysisKind, AnalysisOptions, AnalysisOutcome};
use baton::cfa::types::DataModel;
use baton::cfa::Program;
use baton::cpa::monitor::GiveUp;
use baton::frontend::load_source;
use baton::verdict::Verdict;

const PRELUDE: &str =
    "extern float __VERIFIER_nondet_float(void);\nextern double __VERIFIER_nondet_double(void);\n\
                       extern int __VERIFIER_nondet_int(void);\nvoid reach_error(void) {}\n";

fn program(body: &str) -> Program {
    load_source("theories.c", &format!("{PRELUDE}{body}"), DataModel::ILP32).expect("test program lowers")
}

fn verify(kind: AnalysisKind, p: &Program) -> AnalysisOutcome {
    let options = AnalysisOptions {
        give_up: ["cpu-time=60s", "memory=2GB"]
            .iter()
            .map(|g| g.parse::<GiveUp>().expect("valid give-up"))
            .collect(),
        ..Default::default()
    };
    run_analysis(kind, p, &options, None)
}

/// What the predicate analysis must answer.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    /// `true`.
    Safe,
    /// `false`, with a counterexample that replays.
    Bug,
    /// The error is reachable only through undefined behaviour: anything but `false`.
    NotACounterexample,
}

const PROGRAMS: &[(&str, Expect, &str)] = &[
    (
        "float addition rounds to nearest even",
        Expect::Bug,
        "int main(void) { float f = __VERIFIER_nondet_float(); if (f >= 16777216.0f && f <= 16777216.0f) { \
         f = f + 1.0f; if (f == 16777216.0f) reach_error(); } return 0; }",
    ),
    (
        "float addition of one changes the value",
        Expect::Safe,
        "int main(void) { float f = __VERIFIER_nondet_float(); if (f >= 1.0f && f <= 2.0f) { \
         float g = f + 1.0f; if (g == f) reach_error(); } return 0; }",
    ),
    (
        "NaN is not equal to itself",
        Expect::Bug,
        "int main(void) { float x = __VERIFIER_nondet_float(); if (x != x) reach_error(); return 0; }",
    ),
    (
        "a bounded double has no NaN",
        Expect::Safe,
        "int main(void) { double x = __VERIFIER_nondet_double(); if (x > -4.0 && x < 4.0) { \
         if (x != x) reach_error(); if (-x > 4.0) reach_error(); } return 0; }",
    ),
    (
        "conversion truncates toward zero",
        Expect::Safe,
        "int main(void) { float x = __VERIFIER_nondet_float(); if (x > -10.0f && x < 10.0f) { int i = (int) x; \
         if (i == 9 && x < 9.0f) reach_error(); if (i == 0 && x <= -1.0f) reach_error(); } return 0; }",
    ),
    (
        "conversion to int and back",
        Expect::Bug,
        "int main(void) { float x = __VERIFIER_nondet_float(); if (x > 0.0f && x < 10.0f) { int i = (int) x; \
         double d = i; if (d == 9.0 && x > 9.5f) reach_error(); } return 0; }",
    ),
    (
        "int to float rounds",
        Expect::Bug,
        "int main(void) { int n = __VERIFIER_nondet_int(); if (n > 16777216) { float f = n; \
         if ((int) f != n) reach_error(); } return 0; }",
    ),
    (
        "out-of-range conversion is undefined, not a counterexample",
        Expect::NotACounterexample,
        "int main(void) { float x = __VERIFIER_nondet_float(); int i = (int) x; if (x > 3e9f) reach_error(); \
         return i; }",
    ),
    (
        "stored element is read back",
        Expect::Safe,
        "int main(void) { int a[5] = {0}; int i = __VERIFIER_nondet_int(); if (i < 0 || i >= 5) return 0; \
         a[i] = 7; int j = __VERIFIER_nondet_int(); if (j < 0 || j >= 5) return 0; \
         if (a[j] == 7 && j != i) reach_error(); if (a[i] != 7) reach_error(); return 0; }",
    ),
    (
        "global array initialiser and one doubled element",
        Expect::Bug,
        "int g[4] = {1, 2, 3, 4}; int main(void) { int i = __VERIFIER_nondet_int(); if (i < 0 || i > 3) return 0; \
         g[i] = g[i] * 2; if (g[0] + g[1] + g[2] + g[3] == 14) reach_error(); return 0; }",
    ),
    (
        "global array sum out of reach",
        Expect::Safe,
        "int g[4] = {1, 2, 3, 4}; int main(void) { int i = __VERIFIER_nondet_int(); if (i < 0 || i > 3) return 0; \
         g[i] = g[i] * 2; if (g[0] + g[1] + g[2] + g[3] == 15) reach_error(); return 0; }",
    ),
    (
        "two-dimensional array",
        Expect::Bug,
        "int main(void) { int m[2][3]; int i = __VERIFIER_nondet_int(); int j = __VERIFIER_nondet_int(); \
         if (i < 0 || i > 1 || j < 0 || j > 2) return 0; m[i][j] = 5; m[1][2] = 1; \
         if (m[i][j] == 5 && i == 1) reach_error(); return 0; }",
    ),
    (
        "array of doubles",
        Expect::Bug,
        "int main(void) { double a[3] = {0.0}; int i = __VERIFIER_nondet_int(); if (i < 0 || i > 2) return 0; \
         a[i] = 0.5; a[2] = a[2] + a[i]; if (a[2] == 1.0) reach_error(); return 0; }",
    ),
    (
        "access out of bounds is undefined, not a counterexample",
        Expect::NotACounterexample,
        "int main(void) { int a[3] = {0}; int i = __VERIFIER_nondet_int(); if (i == 3) { a[i] = 1; \
         reach_error(); } return 0; }",
    ),
];

#[test]
fn predicate_analysis_decides_small_float_and_array_programs() {
    for (name, expect, body) in PROGRAMS {
        let p = program(body);
        let outcome = verify(AnalysisKind::Predicate, &p);
        match expect {
            Expect::Safe => assert_eq!(outcome.verdict, Verdict::True, "{name}: {}", outcome.reason),
            Expect::Bug => {
                assert_eq!(outcome.verdict, Verdict::False, "{name}: {}", outcome.reason);
                let cex = outcome.counterexample.as_ref().expect("a counterexample");
                assert!(replay_to_error(&p, &cex.inputs).is_some(), "{name}: replays");
            }
            Expect::NotACounterexample => {
                assert_ne!(outcome.verdict, Verdict::False, "{name}: {}", outcome.reason)
            }
        }
    }
}

#[test]
fn chc_analysis_is_sound_on_float_and_array_programs() {
    for (name, expect, body) in PROGRAMS {
        let p = program(body);
        let outcome = verify(AnalysisKind::Chc, &p);
        match outcome.verdict {
            Verdict::True => assert_ne!(*expect, Expect::Bug, "{name}: wrong true"),
            Verdict::False => {
                assert_eq!(*expect, Expect::Bug, "{name}: wrong false");
                let cex = outcome.counterexample.as_ref().expect("a counterexample");
                assert!(replay_to_error(&p, &cex.inputs).is_some(), "{name}: replays");
            }
            Verdict::Unknown => {}
        }
    }
}
