//! The predicate analysis (`--analysis predicate`) on small programs of our own: proofs that
//! need predicates, real bugs with replayed counterexamples, unsigned wrap-around, the seed 000
//! examples (Fig. 2 with a give-up condition, Fig. 3 as a second, guided stage), loop
//! invariants, the CLI, and (with `BATON_SV_BENCHMARKS`) no wrong verdict on small tasks.

#[path = "support/loop_programs.rs"]
mod loop_programs;

use baton::analyses::{run_analysis, AnalysisKind, AnalysisOutcome};
use baton::cfa::interpreter::{execute, ExecOptions};
use baton::cfa::semantics::SignedOverflow;
use baton::cfa::types::DataModel;
use baton::cfa::Program;
use baton::condition::{self, ConditionRunner};
use baton::cpa::engine::Guide;
use baton::frontend::{load_program, load_source};
use baton::task::Task;
use baton::verdict::{Classification, Verdict};
use loop_programs::options;
use std::path::PathBuf;

fn program(text: &str) -> Program {
    load_source("test.c", text, DataModel::ILP32).expect("test program lowers")
}

fn verify(p: &Program, give_up: &[&str]) -> AnalysisOutcome {
    run_analysis(AnalysisKind::Predicate, p, &options(give_up), None)
}

const PRELUDE: &str = "extern int __VERIFIER_nondet_int(void);\nextern unsigned int __VERIFIER_nondet_uint(void);\nvoid reach_error(void) {}\n";

fn src(body: &str) -> Program {
    program(&format!("{PRELUDE}{body}"))
}

/// Checks a `false` verdict: a counterexample whose inputs replay to the error.
fn assert_replayed_violation(p: &Program, outcome: &AnalysisOutcome) {
    assert_eq!(outcome.verdict, Verdict::False, "{}", outcome.reason);
    let cex = outcome.counterexample.as_ref().expect("counterexample");
    let run = execute(p, &cex.inputs, &ExecOptions::default());
    assert!(run.ending.is_error(), "replay ends with {}", run.ending);
}

#[test]
fn counter_loop_needs_a_lower_bound_predicate() {
    let p = src("int main(void) { int n = __VERIFIER_nondet_int(); int i = 0; \
         while (i < n) { i++; } if (i < 0) reach_error(); return 0; }");
    let outcome = verify(&p, &[]);
    assert_eq!(outcome.verdict, Verdict::True, "{}", outcome.reason);
    assert!(outcome.predicates >= 1, "a proof needs predicates");
    // The loop head's invariant excludes negative counters.
    assert_eq!(outcome.invariants.len(), 1, "{:?}", outcome.invariants);
    let inv = &outcome.invariants[0].1;
    assert!(inv.contains('i'), "invariant `{inv}` talks about i");
    assert_ne!(inv, "1");
}

#[test]
fn spurious_path_removed_by_a_two_variable_predicate() {
    let p = src("int main(void) { int x = __VERIFIER_nondet_int(); int y = x; \
         while (__VERIFIER_nondet_int()) { x++; y++; } if (x != y) reach_error(); return 0; }");
    let outcome = verify(&p, &[]);
    assert_eq!(outcome.verdict, Verdict::True, "{}", outcome.reason);
    assert!(
        outcome
            .invariants
            .iter()
            .any(|(_, inv)| inv.contains("x") && inv.contains("y")),
        "{:?}",
        outcome.invariants
    );
}

#[test]
fn real_bug_deep_in_a_loop_is_found_and_replayed() {
    let p = src(
        "int main(void) { int i = 0; int s = 0; while (i < 100) { s += 2; \
         if (i == 3 && s == 8) reach_error(); i++; } return 0; }",
    );
    let outcome = verify(&p, &[]);
    assert_replayed_violation(&p, &outcome);
    assert!(outcome
        .counterexample
        .as_ref()
        .is_some_and(|c| c.steps.len() > 3 * 3));
}

#[test]
fn bug_depending_on_an_input_is_found() {
    let p = src("int main(void) { int x = __VERIFIER_nondet_int(); int i = 0; \
         while (i < 100) { i++; } if (x == i + 5) reach_error(); return 0; }");
    let outcome = verify(&p, &["repeating-locations=3"]);
    // The loop is cut by the give-up condition, so the analysis cannot reach the check.
    assert_eq!(outcome.verdict, Verdict::Unknown, "{}", outcome.reason);
    let direct = src(
        "int main(void) { int x = __VERIFIER_nondet_int(); int y = x * 3; \
         if (y == 2147483646) reach_error(); return 0; }",
    );
    let outcome = verify(&direct, &[]);
    assert_replayed_violation(&direct, &outcome);
    // 2147483645 is no multiple of 3: only an overflowing product reaches it.
    let mut overflowing = src(
        "int main(void) { int x = __VERIFIER_nondet_int(); int y = x * 3; \
         if (y == 2147483645) reach_error(); return 0; }",
    );
    let outcome = verify(&overflowing, &[]);
    assert_eq!(outcome.verdict, Verdict::True, "{}", outcome.reason);
    overflowing.signed_overflow = SignedOverflow::Wrap;
    let outcome = verify(&overflowing, &[]);
    assert_replayed_violation(&overflowing, &outcome);
}

#[test]
fn unsigned_wrap_around() {
    let safe = src("int main(void) { unsigned int x = __VERIFIER_nondet_uint(); \
         if (x > 0u) { unsigned int y = x - 1u; if (y >= x) reach_error(); } return 0; }");
    let outcome = verify(&safe, &[]);
    assert_eq!(outcome.verdict, Verdict::True, "{}", outcome.reason);

    let unsafe_ = src(
        "int main(void) { unsigned int x = __VERIFIER_nondet_uint(); unsigned int y = x + 1u; \
         if (y < x) reach_error(); return 0; }",
    );
    let outcome = verify(&unsafe_, &[]);
    assert_replayed_violation(&unsafe_, &outcome);
    assert_eq!(
        outcome.counterexample.as_ref().map(|c| c.inputs.clone()),
        Some(vec![4294967295])
    );
}

/// Seed 000, Fig. 2: the loop branch keeps a predicate analysis busy; with the loop bounded by
/// a give-up condition, the violated assertion after the `if` is found quickly.
const FIG2: &str = "int main(void) {\n  int x = 1;\n  if (__VERIFIER_nondet_int()) {\n    while (x < 10000) {\n      x++;\n    }\n    if (!(x == 10000)) reach_error();\n  } else {\n    x = 0;\n  }\n  if (!(x != 0)) reach_error();\n  return 0;\n}\n";

#[test]
fn fig2_bounded_loop_then_the_bug_after_the_if() {
    let p = src(FIG2);
    let outcome = verify(&p, &["repeating-locations=5"]);
    assert_replayed_violation(&p, &outcome);
    let cex = outcome.counterexample.as_ref().expect("counterexample");
    assert_eq!(cex.inputs, vec![0], "the else branch");
}

/// Seed 000, Fig. 3 with the loop bound of the paper.
const FIG3: &str = "int main() {\n  int p = __VERIFIER_nondet_int();\n  if (p) {\n    int i;\n    for (i = 0; i < 1000000; i++);\n    if (!(i >= 1000000)) reach_error();\n  } else {\n    int x = 5;\n    int y = 6;\n    int r = x * y;\n    if (!(r >= x)) reach_error();\n  }\n  return 0;\n}\n";

#[test]
fn fig3_two_stages_explicit_then_guided_predicate() {
    let p = src(FIG3);
    let first = run_analysis(
        AnalysisKind::Explicit,
        &p,
        &options(&["repeating-locations=100"]),
        None,
    );
    assert_eq!(first.verdict, Verdict::Unknown, "{}", first.reason);
    let record = ExecOptions {
        record_path: true,
        ..Default::default()
    };
    assert!(first.condition.covers(&execute(&p, &[0], &record).path));
    assert!(!first.condition.covers(&execute(&p, &[1], &record).path));

    // Through the file formats, as the CLI passes conditions on.
    let text = condition::write(&first.condition, &p, condition::Format::GraphMl);
    let back = condition::parse(&text, "c.graphml", &p).expect("condition reads back");
    let runner = ConditionRunner::new(&back);
    let second = run_analysis(
        AnalysisKind::Predicate,
        &p,
        &options(&["cpu-time=60s"]),
        Some(&runner as &dyn Guide),
    );
    assert_eq!(second.verdict, Verdict::True, "{}", second.reason);
    assert!(second.stats.guide_accepted >= 1);
    // No unrolling of the million iterations: the guide follows the first stage's 100 unrolled
    // iterations (its condition tracks them), after that predicates cover the loop.
    assert!(second.reached_states < 5_000, "{} states", second.reached_states);
    // Guided runs report no invariants (the guide's part was not explored).
    assert!(second.invariants.is_empty());
}

#[test]
fn path_formula_size_cuts_long_counterexamples() {
    let p = src("int main(void) { int i = 0; while (i < 3) { i++; } if (i == 3) reach_error(); return 0; }");
    let cut = verify(&p, &["path-formula-size=10"]);
    assert_eq!(cut.verdict, Verdict::Unknown, "{}", cut.reason);
    assert!(cut.reason.contains("path-formula-size=10"), "{}", cut.reason);
    let found = verify(&p, &[]);
    assert_replayed_violation(&p, &found);
}

#[test]
fn give_up_conditions_stop_the_analysis() {
    let p = src(
        "int main(void) { int i = 0; while (i < 1000) { i++; } if (i == 1000) reach_error(); return 0; }",
    );
    let outcome = verify(&p, &["reached-states=5"]);
    assert_eq!(outcome.verdict, Verdict::Unknown);
    assert!(outcome.reason.contains("reached-states"), "{}", outcome.reason);
}

#[test]
fn cli_prints_invariants_in_json() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("loop.c");
    std::fs::write(
        &file,
        format!(
            "{PRELUDE}int main(void) {{ int n = __VERIFIER_nondet_int(); int i = 0; \
             while (i < n) {{ i++; }} if (i < 0) reach_error(); return 0; }}"
        ),
    )
    .expect("write program");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(["verify", "--analysis", "predicate", "--json"])
        .arg(&file)
        .output()
        .expect("baton runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["verdict"], "true");
    let invariants = json["invariants"].as_array().expect("invariants");
    assert_eq!(invariants.len(), 1, "{json}");
    assert_eq!(invariants[0]["function"], "main");
}

/// No wrong verdict on the five smallest systemc tasks with a short CPU budget.
#[test]
fn no_wrong_verdict_on_small_benchmark_tasks() {
    let Ok(root) = std::env::var("BATON_SV_BENCHMARKS") else {
        eprintln!("skipped: BATON_SV_BENCHMARKS is not set");
        return;
    };
    let root = PathBuf::from(root);
    let tasks = [
        "c/systemc/pc_sfifo_1.cil-1.yml",
        "c/systemc/pc_sfifo_1.cil-2.yml",
        "c/systemc/kundu1.cil.yml",
        "c/systemc/bist_cell.cil.yml",
        "c/systemc/token_ring.01.cil-1.yml",
    ];
    for yml in tasks {
        let task = Task::load(&root.join(yml), DataModel::ILP32).expect("task loads");
        let p = load_program(&task.program, task.data_model).expect("program loads");
        let outcome = verify(&p, &["cpu-time=5s"]);
        let judged = outcome.verdict.classify(task.expected);
        eprintln!("{yml}: {} ({judged:?}) {}", outcome.verdict, outcome.reason);
        assert_ne!(judged, Classification::Wrong, "{yml}: {}", outcome.reason);
        if outcome.verdict == Verdict::False {
            assert_replayed_violation(&p, &outcome);
        }
    }
}

/// A branch the known values cannot decide (`y == x` after `y = x + 1`) is only checked at the
/// block's abstraction: the error location's block is then found infeasible, not reported,
/// also when the known values decide every predicate there (`g == 0`, learned in the loop).
#[test]
fn branches_checked_per_block_still_prune_infeasible_paths() {
    let p = src(
        "int main(void) { int x = __VERIFIER_nondet_int(); int y = x + 1; \
         if (y == x) reach_error(); return 0; }",
    );
    let outcome = verify(&p, &[]);
    assert_eq!(outcome.verdict, Verdict::True, "{}", outcome.reason);
    assert_eq!(outcome.predicates, 0, "no refinement needed: {}", outcome.reason);
    let p = src(
        "int g = 0;\nint main(void) { while (__VERIFIER_nondet_int()) { if (g != 0) reach_error(); }\n\
         int x = __VERIFIER_nondet_int(); int y = x + 1; if (y == x) { g = 1; }\n\
         if (g != 0) reach_error(); return 0; }",
    );
    let outcome = verify(&p, &[]);
    assert_eq!(outcome.verdict, Verdict::True, "{}", outcome.reason);
    assert_eq!(
        outcome.predicates, 1,
        "only `g == 0` is needed: {}",
        outcome.reason
    );
}

/// A state machine over a global, as in the drivers and protocols of sv-benchmarks: the known
/// values of `x == c` literals decide its branches; the safe variant is proved, the unsafe one
/// yields a counterexample that replays.
#[test]
fn state_machine_over_a_global_is_proved_and_its_bug_found() {
    let machine = |bad: i32| {
        src(&format!(
            "int s = 0;\nint main(void) {{ while (__VERIFIER_nondet_int()) {{\n\
             if (s == 0) {{ s = 1; }} else if (s == 1) {{ if (__VERIFIER_nondet_int()) s = 2; else s = 0; }}\n\
             else if (s == 2) {{ s = 0; }}\n if (s == {bad}) reach_error(); }}\n return 0; }}"
        ))
    };
    let safe = machine(3);
    let outcome = verify(&safe, &["cpu-time=60s"]);
    assert_eq!(outcome.verdict, Verdict::True, "{}", outcome.reason);
    let unsafe_ = machine(2);
    let outcome = verify(&unsafe_, &["cpu-time=60s"]);
    assert_replayed_violation(&unsafe_, &outcome);
}

/// Where refinement puts predicates over globals: shared by every abstraction point (the
/// default) or only where found. Both prove a program whose global matters in two loops; the
/// shared precision needs fewer entries (the predicate is learned once, not per loop head).
#[test]
fn predicates_over_globals_are_shared_or_kept_per_location() {
    use baton::analyses::predicate::{verify_with, PredicateOptions, PredicateSharing};
    let p = src("int g = 0;\nint main(void) {\n\
         while (__VERIFIER_nondet_int()) { if (g != 0) reach_error(); }\n\
         while (__VERIFIER_nondet_int()) { if (g != 0) reach_error(); }\n return 0; }");
    let run = |sharing| {
        let predicate = PredicateOptions {
            sharing,
            ..PredicateOptions::default()
        };
        verify_with(&p, &options(&[]), &predicate, None)
    };
    let shared = run(PredicateSharing::Global);
    let local = run(PredicateSharing::Location);
    assert_eq!(shared.verdict, Verdict::True, "{}", shared.reason);
    assert_eq!(local.verdict, Verdict::True, "{}", local.reason);
    assert_eq!(shared.predicates, 1, "`g == 0` once");
    assert!(
        local.predicates >= 2,
        "`g == 0` at both loop heads: {}",
        local.predicates
    );
}

/// A token ring of `n` processes in the style of the SystemC tasks (transmitter, token_ring):
/// a scheduler runs runnable processes in a nondet order, each passes the token on and
/// notifies the next by an event flag, and every round wakes and resets the flags with `n`
/// independent branches in a row (`2^n` paths per call). The last process passes the token to
/// `last_to`: 1 closes the ring (safe), `n + 1` leaves it (the check fails after one round).
fn token_ring(n: usize, last_to: usize) -> Program {
    let mut text = String::from("int tok = 1;\n");
    for i in 1..=n {
        text += &format!("int st{i};\nint e{i} = 0;\n");
    }
    for i in 1..=n {
        let next = if i == n { last_to } else { i + 1 };
        let flag = if i == n { 1 } else { i + 1 };
        text += &format!(
            "void proc{i}(void) {{ if (tok == {i}) {{ tok = {next}; e{flag} = 1; }} st{i} = 1; }}\n"
        );
    }
    let wake: String = (1..=n).map(|i| format!("if (e{i} == 1) st{i} = 0; ")).collect();
    let reset: String = (1..=n).map(|i| format!("if (e{i} == 1) e{i} = 0; ")).collect();
    let any: Vec<String> = (1..=n).map(|i| format!("st{i} == 0")).collect();
    let run: String = (1..=n)
        .map(|i| format!("if (st{i} == 0 && __VERIFIER_nondet_int()) proc{i}(); "))
        .collect();
    let start: String = (1..=n).map(|i| format!("st{i} = 0; ")).collect();
    text += &format!(
        "void wake(void) {{ {wake}}}\nvoid reset(void) {{ {reset}}}\n\
         int main(void) {{ {start}\n while (1) {{ while ({}) {{ {run}}}\n\
         wake(); reset(); if (tok < 1 || tok > {n}) reach_error(); }} return 0; }}\n",
        any.join(" || ")
    );
    src(&text)
}

/// Blocks end where paths join by default: the token ring's branches in a row meet in one
/// abstraction instead of `2^n` paths each abstracted on its own. The safe ring is proved and
/// the broken one's bug found and replayed, within far fewer states than with abstraction only
/// at loop heads and function entries and exits.
#[test]
fn token_ring_is_decided_with_blocks_ending_at_joins() {
    use baton::analyses::predicate::{verify_with, BlockEncoding, PredicateOptions};
    let run = |p: &Program, encoding| {
        let predicate = PredicateOptions {
            encoding,
            ..PredicateOptions::default()
        };
        verify_with(p, &options(&[]), &predicate, None)
    };
    let n = 4;
    let safe = token_ring(n, 1);
    let joins = run(&safe, BlockEncoding::Joins);
    assert_eq!(joins.verdict, Verdict::True, "{}", joins.reason);
    let loops = run(&safe, BlockEncoding::Loops);
    assert_eq!(loops.verdict, Verdict::True, "{}", loops.reason);
    assert!(
        joins.stats.created < loops.stats.created,
        "joins {} states, loops {}",
        joins.stats.created,
        loops.stats.created
    );
    let broken = token_ring(n, n + 1);
    let found = run(&broken, BlockEncoding::Joins);
    assert_replayed_violation(&broken, &found);
}
