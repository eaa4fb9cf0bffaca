//! The explicit-value analysis on small programs of our own: verdicts, each give-up condition
//! firing at exactly its threshold, the conditions it writes, and guide mode.

use baton::analyses::{run_analysis, AnalysisKind, AnalysisOptions, AnalysisOutcome};
use baton::cfa::interpreter::{execute, ExecOptions};
use baton::cfa::types::DataModel;
use baton::cfa::Program;
use baton::condition::{self, ConditionRunner, Format};
use baton::cpa::engine::Guide;
use baton::cpa::monitor::GiveUp;
use baton::frontend::load_source;
use baton::verdict::Verdict;

fn program(text: &str) -> Program {
    load_source("test.c", text, DataModel::ILP32).expect("test program lowers")
}

fn verify(p: &Program, give_up: &[&str]) -> AnalysisOutcome {
    let options = AnalysisOptions {
        give_up: give_up
            .iter()
            .map(|g| g.parse::<GiveUp>().expect("valid give-up"))
            .collect(),
        ..Default::default()
    };
    run_analysis(AnalysisKind::Explicit, p, &options, None)
}

fn verify_guided(p: &Program, give_up: &[&str], guide: &condition::ConditionAutomaton) -> AnalysisOutcome {
    let options = AnalysisOptions {
        give_up: give_up
            .iter()
            .map(|g| g.parse::<GiveUp>().expect("valid give-up"))
            .collect(),
        ..Default::default()
    };
    let runner = ConditionRunner::new(guide);
    run_analysis(AnalysisKind::Explicit, p, &options, Some(&runner as &dyn Guide))
}

const PRELUDE: &str =
    "extern void abort(void);\nextern int __VERIFIER_nondet_int(void);\nvoid reach_error(void) {}\n";

/// A loop of ten iterations, safe.
fn counter_loop() -> Program {
    program(&format!("{PRELUDE}int main(void) {{ int i = 0; while (i < 10) {{ i++; }} if (i != 10) reach_error(); return 0; }}"))
}

#[test]
fn safe_and_buggy_programs() {
    let safe = verify(&counter_loop(), &[]);
    assert_eq!(safe.verdict, Verdict::True, "{}", safe.reason);
    assert!(safe.condition.is_trivial_full());

    let buggy = program(&format!(
        "{PRELUDE}int main(void) {{ int x = __VERIFIER_nondet_int(); int y = x + 1; if (x == 41) {{ if (y == 42) reach_error(); }} return 0; }}"
    ));
    let outcome = verify(&buggy, &[]);
    assert_eq!(outcome.verdict, Verdict::False);
    let cex = outcome.counterexample.expect("counterexample");
    assert_eq!(cex.inputs, vec![41]);
    assert!(execute(&buggy, &cex.inputs, &ExecOptions::default())
        .ending
        .is_error());
}

#[test]
fn unsigned_arithmetic_wraps() {
    // Safe only because unsigned arithmetic wraps: u + 1 == 0 exactly when u is the maximum.
    let p = program(&format!(
        "{PRELUDE}int main(void) {{ unsigned int u = 4294967295u; u = u + 1; if (u != 0) reach_error(); \
         unsigned char c = 200; c = c + c; if (c != 144) reach_error(); return 0; }}"
    ));
    assert_eq!(verify(&p, &[]).verdict, Verdict::True);
}

#[test]
fn an_error_path_the_domain_cannot_rule_out_is_unknown_never_false() {
    // The explicit domain keeps no disequalities: after `if (c)` it still allows c == 0, so it
    // reaches the error, the replay fails, and the answer must be unknown.
    let p = program(&format!(
        "{PRELUDE}int main(void) {{ int c = __VERIFIER_nondet_int(); if (c) {{ if (!c) reach_error(); }} return 0; }}"
    ));
    let outcome = verify(&p, &[]);
    assert_eq!(outcome.verdict, Verdict::Unknown);
    assert!(outcome.reason.contains("not verified"), "{}", outcome.reason);
}

#[test]
fn path_length_fires_at_exactly_its_threshold() {
    let p = counter_loop();
    // Find the length of the longest path: the smallest threshold with a `true` verdict.
    let longest = (1..200)
        .find(|&n| verify(&p, &[&format!("path-length={n}")]).verdict == Verdict::True)
        .unwrap();
    let below = verify(&p, &[&format!("path-length={}", longest - 1)]);
    assert_eq!(below.verdict, Verdict::Unknown);
    assert_eq!(below.stats.cut, 1, "exactly the state after the last step is cut");
    assert!(
        below.reason.contains(&format!("path-length={}", longest - 1)),
        "{}",
        below.reason
    );
}

#[test]
fn repeating_locations_fires_at_exactly_its_threshold() {
    let p = counter_loop();
    // The loop head is visited 11 times (i = 0..10).
    assert_eq!(verify(&p, &["repeating-locations=11"]).verdict, Verdict::True);
    let cut = verify(&p, &["repeating-locations=10"]);
    assert_eq!(cut.verdict, Verdict::Unknown);
    assert_eq!(cut.stats.cut, 1);
    assert!(cut.reason.contains("repeating-locations=10"), "{}", cut.reason);
}

#[test]
fn assume_edges_fires_at_exactly_its_threshold() {
    let p = counter_loop();
    // 11 loop-condition assumes and one at the final check.
    assert_eq!(verify(&p, &["assume-edges=12"]).verdict, Verdict::True);
    let cut = verify(&p, &["assume-edges=11"]);
    assert_eq!(cut.verdict, Verdict::Unknown);
    assert!(cut.reason.contains("assume-edges=11"), "{}", cut.reason);
}

#[test]
fn reached_states_fires_at_exactly_its_threshold() {
    let p = counter_loop();
    let full = verify(&p, &[]);
    let n = full.reached_states as u64;
    assert_eq!(
        verify(&p, &[&format!("reached-states={}", n + 1)]).verdict,
        Verdict::True
    );
    let stopped = verify(&p, &[&format!("reached-states={n}")]);
    assert_eq!(stopped.verdict, Verdict::Unknown);
    assert!(
        stopped.reason.contains("gave up: reached-states"),
        "{}",
        stopped.reason
    );
}

#[test]
fn states_per_location_and_busy_edge_fire_at_their_thresholds() {
    let p = counter_loop();
    // The loop head carries 11 states (i = 0..10).
    assert_eq!(verify(&p, &["states-per-location=11"]).verdict, Verdict::True);
    let cut = verify(&p, &["states-per-location=10"]);
    assert_eq!(cut.verdict, Verdict::Unknown);
    assert!(cut.reason.contains("states-per-location=10"), "{}", cut.reason);
    // The loop's back edge is used 10 times; the loop-entry assume 11 times.
    assert_eq!(verify(&p, &["busy-edge=11"]).verdict, Verdict::True);
    let busy = verify(&p, &["busy-edge=10"]);
    assert_eq!(busy.verdict, Verdict::Unknown);
    assert!(busy.reason.contains("busy-edge=10"), "{}", busy.reason);
}

#[test]
fn global_time_and_memory_limits_stop_the_analysis() {
    // Never finishes for the explicit analysis: the counter grows without bound.
    let endless = program(&format!(
        "{PRELUDE}int main(void) {{ int n = __VERIFIER_nondet_int(); int i = 0; while (i != n) {{ i++; }} return 0; }}"
    ));
    let timed = verify(&endless, &["cpu-time=200ms"]);
    assert_eq!(timed.verdict, Verdict::Unknown);
    assert!(timed.reason.contains("cpu-time"), "{}", timed.reason);
    let memory = verify(&endless, &["memory=1MB"]);
    assert_eq!(memory.verdict, Verdict::Unknown);
    assert!(memory.reason.contains("memory"), "{}", memory.reason);
    let path_time = verify(&endless, &["path-time=1ms"]);
    assert_eq!(path_time.verdict, Verdict::Unknown);
    assert!(path_time.reason.contains("path-time"), "{}", path_time.reason);
}

/// Seed 000, Fig. 3: a loop branch the explicit analysis cannot finish and an `else` branch it
/// verifies easily.
const FIG3: &str = "extern int __VERIFIER_nondet_int(void);\nvoid reach_error(void) {}\n\
int main() {\n  int p = __VERIFIER_nondet_int();\n  if (p) {\n    int i;\n    for (i = 0; i < 10000; i++);\n    if (!(i >= 10000)) reach_error();\n  } else {\n    int x = 5;\n    int y = 6;\n    int r = x * y;\n    if (!(r >= x)) reach_error();\n  }\n  return 0;\n}\n";

#[test]
fn fig3_condition_covers_the_else_branch_only() {
    let p = program(FIG3);
    let outcome = verify(&p, &["repeating-locations=100"]);
    assert_eq!(outcome.verdict, Verdict::Unknown);
    let record = ExecOptions {
        record_path: true,
        ..Default::default()
    };
    let else_path = execute(&p, &[0], &record).path;
    let loop_path = execute(&p, &[1], &record).path;
    assert!(
        outcome.condition.covers(&else_path),
        "the else branch was verified"
    );
    assert!(!outcome.condition.covers(&loop_path), "the loop branch was cut");

    // Guided by that condition, a second run never enters the else branch and finishes the
    // loop branch (with a larger budget).
    let second = verify_guided(&p, &[], &outcome.condition);
    assert_eq!(second.verdict, Verdict::True, "{}", second.reason);
    assert!(second.stats.guide_accepted >= 1);
}

#[test]
fn conditions_of_the_analysis_round_trip_through_both_formats() {
    let p = program(FIG3);
    let outcome = verify(&p, &["repeating-locations=50"]);
    for format in [Format::GraphMl, Format::CpaChecker] {
        let text = condition::write(&outcome.condition, &p, format);
        let back = condition::parse(&text, "cond", &p).expect("reads back");
        assert_eq!(back, outcome.condition, "{format:?}");
    }
}

#[test]
fn a_condition_of_another_program_is_rejected() {
    let p = program(FIG3);
    let other = counter_loop();
    let outcome = verify(&p, &["repeating-locations=50"]);
    let text = condition::write(&outcome.condition, &p, Format::GraphMl);
    let err = condition::parse(&text, "cond.graphml", &other)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("cond.graphml: condition is for the program with sha256"),
        "{err}"
    );
}
