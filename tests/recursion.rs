//! Recursion and mutual recursion through every layer: the interpreter gives every activation
//! its own locals (checked against gcc-compiled runs) and stops unbounded recursion at its
//! call-depth limit; the explicit and the predicate analysis explore with the call stack and
//! hand what their `recursion-depth` give-up cut on over as a condition (the predicate analysis
//! finds bugs inside recursion and proves recursion within the bound); CHC refuses recursive
//! programs with a clear reason; the reducer keeps recursive calls as calls or, where a
//! depth-cut condition looks inside, inlines them (Res by execution, gcc compiles the
//! residuals, a flow decides on them); on the shared recursive tasks no analysis answers
//! wrongly and every `false` replays.

#[path = "support/cgen.rs"]
mod cgen;
#[path = "support/gcc_harness.rs"]
mod gcc_harness;
#[path = "support/res_check.rs"]
mod res_check;
#[path = "support/shared.rs"]
mod shared;

use baton::analyses::{replay_to_error, run_analysis, AnalysisKind, AnalysisOptions, AnalysisOutcome};
use baton::cfa::emit_c::emit_c;
use baton::cfa::interpreter::{execute, Ending, ExecOptions, MAX_CALL_DEPTH};
use baton::cfa::types::DataModel;
use baton::cfa::{Operation, Program};
use baton::condition::state_cut::execute_covered;
use baton::condition::{Assumption, ConditionAutomaton, Cut};
use baton::cpa::monitor::GiveUp;
use baton::frontend::{load_program, load_source};
use baton::reducer::DEFAULT_MAX_LOCATIONS;
use baton::task::Task;
use baton::verdict::{Classification, Verdict};
use cgen::GenProgram;
use res_check::{check_res, input_lists, outcome as res_outcome, CoveredRuns, Tally, ORIGINAL_STEPS};
use std::process::Command;

/// Declarations every program starts with (the gcc harness defines these functions).
const DECLS: [&str; 3] = [
    "extern int __VERIFIER_nondet_int(void);",
    "extern void abort(void);",
    "void reach_error(void);",
];

/// Factorial; the error is reachable with input 5.
const FACT: &str = "
int P_fact(int n) {
  if (n <= 1) return 1;
  int r = P_fact(n - 1);
  return n * r;
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x < 0 || x > 12) return 0;
  int y = P_fact(x);
  if (y == 120) reach_error();
  return y;
}";

/// Fibonacci with two recursive calls whose results live in locals across the second call.
const FIB: &str = "
int P_fib(int n) {
  if (n < 2) return n;
  int a = P_fib(n - 1);
  int b = P_fib(n - 2);
  return a + b;
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x < 0 || x > 15) return 0;
  int y = P_fib(x);
  if (y == 55) reach_error();
  return y;
}";

/// Ackermann's function for small arguments (a recursive call as an argument).
const ACK: &str = "
int P_ack(int m, int n) {
  if (m == 0) return n + 1;
  if (n == 0) return P_ack(m - 1, 1);
  return P_ack(m - 1, P_ack(m, n - 1));
}
int main(void) {
  int m = __VERIFIER_nondet_int();
  int n = __VERIFIER_nondet_int();
  if (m < 0 || m > 2 || n < 0 || n > 3) return 0;
  int r = P_ack(m, n);
  if (r == 9) reach_error();
  return r;
}";

/// Mutual recursion: exactly one of even and odd holds.
const EVEN_ODD: &str = "
int P_odd(int n);
int P_even(int n) { if (n == 0) return 1; return P_odd(n - 1); }
int P_odd(int n) { if (n == 0) return 0; return P_even(n - 1); }
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x < 0 || x > 30) return 0;
  int e = P_even(x);
  int o = P_odd(x);
  if (e == o) reach_error();
  return 2 * e + o;
}";

/// A local array in each activation.
const ARRAY: &str = "
int P_tri(int n) {
  int a[3];
  a[0] = n; a[1] = 2 * n; a[2] = 0;
  if (n > 0) a[2] = P_tri(n - 1);
  return a[0] + a[1] + a[2];
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x < 0 || x > 10) return 0;
  return P_tri(x);
}";

/// Recursion called from a loop; safe (0 + 1 + 3 + 6).
const AFTER_LOOP: &str = "
int P_sum(int n) { if (n == 0) return 0; return n + P_sum(n - 1); }
int main(void) {
  int s = 0;
  for (int i = 0; i < 4; i++) s = s + P_sum(i);
  if (s != 10) reach_error();
  return s;
}";

/// Recursion whose depth the input chooses: with x == 5 it is shallow; the bug (5! == 120) is
/// reachable. `SAFE` is the same with the check the right way round.
const FACT_EQ_BUGGY: &str = "
int P_fact(int n) { if (n <= 1) return 1; return n * P_fact(n - 1); }
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 5) { if (P_fact(x) == 120) reach_error(); }
  return 0;
}";
const FACT_EQ_SAFE: &str = "
int P_fact(int n) { if (n <= 1) return 1; return n * P_fact(n - 1); }
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 5) { if (P_fact(x) != 120) reach_error(); }
  return 0;
}";

/// Mutual recursion to a depth the input chooses without bound.
const EVEN_ODD_UNBOUNDED: &str = "
int P_odd(int n);
int P_even(int n) { if (n <= 0) return 1; return P_odd(n - 1); }
int P_odd(int n) { if (n <= 0) return 0; return P_even(n - 1); }
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (P_even(x) == P_odd(x)) reach_error();
  return 0;
}";

/// The program with its functions prefixed (so several fit one gcc translation unit).
fn gen(prefix: &str, body: &str) -> GenProgram {
    let mut lines: Vec<String> = DECLS.iter().map(|s| s.to_string()).collect();
    lines.extend(
        body.trim_start_matches('\n')
            .lines()
            .map(|l| l.replace("P_", prefix)),
    );
    GenProgram {
        prefix: prefix.to_string(),
        lines,
        decl_lines: DECLS.len(),
    }
}

fn lower(p: &GenProgram) -> Program {
    load_source(&format!("{}.c", p.prefix), &p.text(), DataModel::LP64)
        .unwrap_or_else(|e| panic!("{}: lowering failed: {e}", p.prefix))
}

fn verify(kind: AnalysisKind, program: &Program, give_up: &[&str]) -> AnalysisOutcome {
    let options = AnalysisOptions {
        give_up: give_up
            .iter()
            .map(|g| g.parse::<GiveUp>().expect("give-up"))
            .collect(),
        ..Default::default()
    };
    run_analysis(kind, program, &options, None)
}

/// An interpreter run in the harness' words (`RETURN v n`, `ERROR line n`, …).
fn render(ending: &Ending, nondets: usize) -> String {
    match ending {
        Ending::ErrorReached { line, .. } => format!("ERROR {line} {nondets}"),
        Ending::Returned { value: Some(v) } => format!("RETURN {v} {nondets}"),
        other => format!("OTHER {other}"),
    }
}

#[test]
fn interpreter_agrees_with_gcc_on_recursive_programs() {
    let dir = tempfile::tempdir().expect("temp dir");
    if let Err(why) = gcc_harness::gcc_works("-m64", dir.path()) {
        eprintln!("skipping: {why}");
        return;
    }
    let programs: Vec<GenProgram> = [FACT, FIB, ACK, EVEN_ODD, ARRAY, AFTER_LOOP]
        .iter()
        .enumerate()
        .map(|(i, body)| gen(&format!("r{i}_"), body))
        .collect();
    let exe = gcc_harness::compile_batch(&programs, "-m64", &[], dir.path(), "recursion")
        .unwrap_or_else(|e| panic!("{e}"));
    let mut runs: Vec<(usize, Vec<i128>)> = Vec::new();
    for k in 0..programs.len() {
        for x in -1..=16 {
            runs.push((k, vec![x, (x + 1) % 5]));
        }
    }
    let native = gcc_harness::run_batch(&exe, &runs).unwrap_or_else(|e| panic!("{e}"));
    let lowered: Vec<Program> = programs.iter().map(lower).collect();
    let mut kinds = std::collections::BTreeSet::new();
    for ((k, inputs), expected) in runs.iter().zip(&native) {
        let run = execute(&lowered[*k], inputs, &ExecOptions::default());
        let got = render(&run.ending, run.nondet_values.len());
        assert_eq!(&got, expected, "{} on {inputs:?}", programs[*k].prefix);
        kinds.insert(got.split(' ').next().map(str::to_string));
    }
    assert_eq!(kinds.len(), 2, "both returns and errors were compared: {kinds:?}");
}

#[test]
fn unbounded_recursion_ends_at_the_call_depth_limit() {
    let p = lower(&gen(
        "u_",
        "int P_f(int n) { return P_f(n + 1) + 1; }\nint main(void) { return P_f(0); }",
    ));
    let run = execute(&p, &[], &ExecOptions::default());
    assert_eq!(run.ending, Ending::CallDepthLimit { line: 4 });
    assert!(run.steps > MAX_CALL_DEPTH as u64);
}

#[test]
fn explicit_analysis_decides_bounded_recursion() {
    let buggy = lower(&gen("b_", FACT_EQ_BUGGY));
    let outcome = verify(AnalysisKind::Explicit, &buggy, &["cpu-time=20s"]);
    assert_eq!(outcome.verdict, Verdict::False, "{}", outcome.reason);
    let cex = outcome.counterexample.expect("a counterexample");
    assert_eq!(cex.inputs, vec![5]);
    assert!(replay_to_error(&buggy, &cex.inputs).is_some());

    // A long path without nondet values (fib(18) makes 8361 calls) is replayed, not solved.
    let constant = "
int P_fib(int n) { if (n < 2) return n; return P_fib(n - 1) + P_fib(n - 2); }
int main(void) { if (P_fib(18) == 2584) reach_error(); return 0; }";
    let outcome = verify(
        AnalysisKind::Explicit,
        &lower(&gen("c_", constant)),
        &["cpu-time=20s"],
    );
    assert_eq!(outcome.verdict, Verdict::False, "{}", outcome.reason);

    for body in [FACT_EQ_SAFE, AFTER_LOOP] {
        let safe = lower(&gen("s_", body));
        let outcome = verify(AnalysisKind::Explicit, &safe, &["cpu-time=20s"]);
        assert_eq!(outcome.verdict, Verdict::True, "{}", outcome.reason);
    }
}

#[test]
fn recursion_depth_give_up_becomes_a_condition() {
    // fact(5) needs 4 recursive calls: with 3 allowed the path is cut, never `true`.
    let safe = lower(&gen("d_", FACT_EQ_SAFE));
    let outcome = verify(
        AnalysisKind::Explicit,
        &safe,
        &["cpu-time=20s", "recursion-depth=3"],
    );
    assert_eq!(outcome.verdict, Verdict::Unknown);
    assert!(outcome.reason.contains("recursion-depth=3"), "{}", outcome.reason);
    assert!(
        !outcome.condition.is_trivial_empty(),
        "the paths with x != 5 are verified"
    );
    // Unbounded depth: the default give-up ends the analysis.
    let unbounded = lower(&gen("e_", EVEN_ODD_UNBOUNDED));
    let outcome = verify(AnalysisKind::Explicit, &unbounded, &["cpu-time=20s"]);
    assert_eq!(outcome.verdict, Verdict::Unknown, "{}", outcome.reason);
    assert!(outcome.reason.contains("recursion-depth="), "{}", outcome.reason);
}

#[test]
fn chc_refuses_recursion() {
    for body in [FACT_EQ_SAFE, AFTER_LOOP, EVEN_ODD, FACT_EQ_BUGGY] {
        let p = lower(&gen("q_", body));
        let outcome = verify(AnalysisKind::Chc, &p, &["cpu-time=10s"]);
        assert_eq!(outcome.verdict, Verdict::Unknown);
        assert!(outcome.reason.contains("recursion"), "{}", outcome.reason);
    }
}

/// The error inside the recursion, five calls deep, with input 2.
const DEEP_BUG: &str = "
int P_down(int n, int d) {
  if (d == 5) { if (n == 7) reach_error(); return 0; }
  return P_down(n + 1, d + 1);
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  return P_down(x, 0);
}";

/// Recursion on a counter bounded by the constant 10, from an input start.
const COUNT_TO_TEN: &str = "
int P_count(int n) {
  if (n >= 10) return n;
  return P_count(n + 1);
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x < 0 || x > 10) return 0;
  if (P_count(x) != 10) reach_error();
  return 0;
}";

/// Safe, but the input chooses the depth up to 1000.
const SUM_UNBOUNDED: &str = "
int P_sum(int n) {
  if (n <= 0) return 0;
  return n + P_sum(n - 1);
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x < 0 || x > 1000) return 0;
  if (P_sum(x) < 0) reach_error();
  return 0;
}";

/// Three functions calling each other in a cycle: `P_a(n)` is `n % 3`; the error is reachable
/// with x == 8, 11, ….
const CYCLE_OF_THREE_BUGGY: &str = "
int P_b(int n);
int P_c(int n);
int P_a(int n) { if (n <= 0) return 0; return P_b(n - 1); }
int P_b(int n) { if (n <= 0) return 1; return P_c(n - 1); }
int P_c(int n) { if (n <= 0) return 2; return P_a(n - 1); }
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x < 0 || x > 20) return 0;
  if (x > 6 && P_a(x) == 2) reach_error();
  return 0;
}";

/// The predicate analysis' outcome on `p` with `recursion-depth=depth`: `unknown`, because of
/// that bound.
fn cut_at_depth(p: &Program, depth: u64) -> AnalysisOutcome {
    let bound = format!("recursion-depth={depth}");
    let outcome = verify(AnalysisKind::Predicate, p, &["cpu-time=30s", &bound]);
    assert_eq!(outcome.verdict, Verdict::Unknown, "{}", outcome.reason);
    assert!(outcome.reason.contains(&bound), "{}", outcome.reason);
    outcome
}

/// A `false` of the predicate analysis with the inputs it found, replayed to the error.
fn assert_replayed_false(p: &Program, give_up: &[&str]) -> Vec<i128> {
    let outcome = verify(AnalysisKind::Predicate, p, give_up);
    assert_eq!(outcome.verdict, Verdict::False, "{}", outcome.reason);
    let cex = outcome.counterexample.expect("a counterexample");
    assert!(
        replay_to_error(p, &cex.inputs).is_some(),
        "replays: {:?}",
        cex.inputs
    );
    cex.inputs
}

#[test]
fn predicate_analysis_finds_bugs_inside_and_after_recursion() {
    let deep = lower(&gen("g_", DEEP_BUG));
    assert_eq!(assert_replayed_false(&deep, &["cpu-time=20s"]), vec![2]);
    // With the bug deeper than the bound, the path is cut: never `true`.
    cut_at_depth(&deep, 4);

    let fact = lower(&gen("h_", FACT_EQ_BUGGY));
    assert_eq!(assert_replayed_false(&fact, &["cpu-time=20s"]), vec![5]);
    let mutual = lower(&gen("i_", CYCLE_OF_THREE_BUGGY));
    let inputs = assert_replayed_false(&mutual, &["cpu-time=20s"]);
    assert!(inputs[0] > 6 && inputs[0] % 3 == 2, "{inputs:?}");
    // A bug before any recursive call.
    let early = "
int P_fact(int n) { if (n <= 1) return 1; return n * P_fact(n - 1); }
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 3) reach_error();
  return P_fact(x);
}";
    assert_eq!(
        assert_replayed_false(&lower(&gen("j_", early)), &["cpu-time=20s"]),
        vec![3]
    );
}

#[test]
fn predicate_analysis_proves_recursion_within_the_depth_bound() {
    for body in [COUNT_TO_TEN, FACT_EQ_SAFE, AFTER_LOOP, EVEN_ODD, ARRAY] {
        let p = lower(&gen("k_", body));
        let outcome = verify(AnalysisKind::Predicate, &p, &["cpu-time=30s"]);
        assert_eq!(outcome.verdict, Verdict::True, "{body}: {}", outcome.reason);
        assert!(outcome.condition.is_trivial_full());
        // The correctness witness' invariants are at loop heads outside recursion only.
        let recursive = p.recursive_functions();
        for (loc, _) in &outcome.invariants {
            assert!(!recursive[p.location(*loc).func.index()], "{body}: {loc:?}");
        }
        if body == AFTER_LOOP {
            assert_eq!(
                outcome.invariants.len(),
                1,
                "main's loop: {:?}",
                outcome.invariants
            );
        }
    }
    // Ten calls deep need a bound of ten.
    cut_at_depth(&lower(&gen("l_", COUNT_TO_TEN)), 9);
}

#[test]
fn predicate_analysis_hands_deeper_recursion_over_as_a_condition() {
    let p = lower(&gen("m_", SUM_UNBOUNDED));
    let outcome = cut_at_depth(&p, 20);
    let condition = &outcome.condition;
    condition.validate(&p).expect("a condition of this program");
    // Not verified (into the sink `__FALSE`): the recursive call below depth 20, nothing else.
    let sum = p.function_by_name("m_sum").expect("m_sum");
    let recursive_call = p
        .edge_ids()
        .find(|&e| {
            let edge = p.edge(e);
            matches!(edge.op, Operation::Call { callee, .. } if callee == sum)
                && p.location(edge.from).func == sum
        })
        .expect("the recursive call");
    let not_verified_sink = condition.state_by_name("__FALSE").expect("a not-verified sink");
    let not_verified: Vec<_> = condition
        .transitions
        .iter()
        .filter(|t| t.to == not_verified_sink || t.assumption == Assumption::False)
        .collect();
    assert!(!not_verified.is_empty());
    assert!(not_verified.iter().all(|t| t.edges == [recursive_call].into()));
    // Shallow runs are covered, deep ones are not.
    let path = |x: i128| {
        let options = ExecOptions {
            record_path: true,
            ..ExecOptions::default()
        };
        execute(&p, &[x], &options).path
    };
    for x in [-3, 0, 1, 7, 19] {
        assert!(condition.covers(&path(x)), "x = {x} is verified");
    }
    for x in [21, 100, 1000] {
        assert!(!condition.covers(&path(x)), "x = {x} is not verified");
    }
    // Mutual recursion to any depth.
    cut_at_depth(&lower(&gen("n_", EVEN_ODD_UNBOUNDED)), 8);
}

/// A recursive function the condition does not look inside stays a call of its copy (its
/// locals per activation, so the residual runs as the original does). One the condition of a
/// depth-cut run looks inside is inlined as far as the condition tells states apart: the
/// residual cuts the covered inputs and runs every other one as the original does.
#[test]
fn reducer_keeps_recursive_calls_or_inlines_them() {
    let p = lower(&gen("x_", FACT));
    let residual = baton::reducer::reduce(&p, &ConditionAutomaton::nothing_verified(&p.hash), 10_000)
        .expect("nothing verified: the recursive function stays a call");
    for x in [-1i128, 0, 1, 4, 5, 6, 12, 13] {
        let run = |prog: &Program| render(&execute(prog, &[x], &ExecOptions::default()).ending, 1);
        assert_eq!(run(&residual.program), run(&p), "input {x}");
    }
    // The condition of a depth-cut run distinguishes states inside `fact`.
    let cut = lower(&gen("r_", FACT));
    let outcome = verify(
        AnalysisKind::Explicit,
        &cut,
        &["cpu-time=20s", "memory=1GB", "recursion-depth=3"],
    );
    assert_eq!(outcome.verdict, Verdict::Unknown, "{}", outcome.reason);
    // Its cuts inside `fact` are of edges found infeasible, which the reducer copies no code
    // for; taken as cuts of the path (the same coverage), they make it track the condition
    // inside the recursion.
    let mut outcome = outcome;
    for t in &mut outcome.condition.transitions {
        t.cut = Cut::Explored;
    }
    let residual = baton::reducer::reduce(&cut, &outcome.condition, 10_000)
        .unwrap_or_else(|e| panic!("the depth-cut condition gives a residual: {e}"));
    assert!(residual.precise_locations() > 0 && residual.cuts + residual.guarded_edges > 0);
    let mut covered = 0;
    for x in -2i128..=14 {
        let (original, is_covered) = execute_covered(&cut, &outcome.condition, &[x], &ExecOptions::default());
        let reduced = execute(&residual.program, &[x], &ExecOptions::default());
        assert_eq!(original.ending.is_error(), x == 5);
        if is_covered {
            assert_ne!(x, 5, "the bug is never covered");
            covered += 1;
            assert!(
                matches!(reduced.ending, Ending::AssumptionViolated { .. }),
                "input {x} is covered, so cut: {}",
                reduced.ending
            );
        } else {
            assert_eq!(
                render(&reduced.ending, reduced.inputs_consumed),
                render(&original.ending, original.inputs_consumed),
                "input {x} is not covered"
            );
        }
    }
    // Out of range, within three recursive calls (x in 0..=4), and — by the state cut after the
    // call, which the run verified for any result other than 120 — deeper runs too; the bug
    // (x = 5) stays.
    assert!(covered >= 8, "{covered} covered");
    // Only a `main` that is called again is refused, with its name (flows then hand on the
    // original program).
    let again = lower(&gen(
        "m_",
        "int d = 0;\nint main(void) { d++; if (d < 3) return main(); return 0; }",
    ));
    let err = baton::reducer::reduce(&again, &ConditionAutomaton::nothing_verified(&again.hash), 10_000)
        .expect_err("a recursive main is refused");
    assert_eq!(
        err.to_string(),
        "residual of a program that calls `main` recursively: unsupported"
    );
}

/// Own recursive programs (name, body, error reachable): factorial, mutual recursion, a
/// Fibonacci function with a bug six calls deep and a recursive function with a loop inside.
/// Their explicit runs with `recursion-depth=3` stop inside the recursion.
const INSIDE: [(&str, &str, bool); 4] = [
    (
        "fact",
        "
int P_fact(int n) { if (n <= 1) return 1; return n * P_fact(n - 1); }
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 2 || x == 5) { if (P_fact(x) != 120 && x == 5) reach_error(); }
  return 0;
}",
        false,
    ),
    (
        "even_odd",
        "
int P_odd(int n);
int P_even(int n) { if (n == 0) return 1; return P_odd(n - 1); }
int P_odd(int n) { if (n == 0) return 0; return P_even(n - 1); }
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 2 || x == 9) { if (P_even(x) == P_odd(x)) reach_error(); }
  return 0;
}",
        false,
    ),
    (
        "fib_deep_bug",
        "
int P_fib(int n, int d) {
  if (d == 6 && n == 3) reach_error();
  if (n < 2) return n;
  int a = P_fib(n - 1, d + 1);
  int b = P_fib(n - 2, d + 1);
  return a + b;
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 4 || x == 9) return P_fib(x, 0);
  return 0;
}",
        true,
    ),
    (
        "loop_inside",
        "
int P_sum(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += __VERIFIER_nondet_int() & 1;
  if (n == 0) return s;
  return s + P_sum(n - 1);
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  int r = 0;
  if (x == 2 || x == 4) r = P_sum(x);
  if (r > 9) reach_error();
  return r;
}",
        true,
    ),
];

/// The residuals of depth-cut conditions that look inside the recursion: they inline it, cut
/// covered paths, satisfy Res by execution on many inputs (tests/support/res_check.rs), compile
/// with gcc, and their emitted C read back runs as the residual CFA does.
#[test]
fn residuals_inside_recursion_satisfy_res() {
    let dir = tempfile::tempdir().expect("temp dir");
    let gcc = gcc_harness::gcc_works("-m64", dir.path());
    if let Err(why) = &gcc {
        eprintln!("not compiling residuals: {why}");
    }
    let mut violations = Vec::new();
    let mut tally = Tally::default();
    for (k, (name, body, _)) in INSIDE.iter().enumerate() {
        let program = lower(&gen(&format!("i{k}_"), body));
        let outcome = verify(
            AnalysisKind::Explicit,
            &program,
            &["cpu-time=20s", "memory=1GB", "recursion-depth=3"],
        );
        assert!(
            outcome.reason.contains("recursion-depth=3"),
            "{name}: {}",
            outcome.reason
        );
        let residual = baton::reducer::reduce(&program, &outcome.condition, DEFAULT_MAX_LOCATIONS)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            residual.cuts + residual.guarded_edges > 0,
            "{name}: the residual cuts covered paths"
        );
        let mut inputs = input_lists(&program, 0x5ec + k as u64, 300);
        inputs.extend((-2..=12).map(|x| vec![x, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]));
        violations.extend(check_res(
            name,
            &program,
            &outcome.condition,
            &residual.program,
            &inputs,
            ORIGINAL_STEPS,
            &mut tally,
            CoveredRuns::MustBeCut,
        ));
        let text = emit_c(&residual.program);
        let reread = load_source("residual.c", &text, DataModel::LP64)
            .unwrap_or_else(|e| panic!("{name}: the emitted residual does not read back: {e}"));
        for input in &inputs {
            let run = |p: &Program| res_outcome(&execute(p, input, &ExecOptions::default()));
            assert_eq!(
                run(&reread),
                run(&residual.program),
                "{name}: emitted C on {input:?}"
            );
        }
        if gcc.is_ok() {
            let file = dir.path().join(format!("{name}.c"));
            std::fs::write(&file, &text).expect("write residual");
            let out = Command::new("gcc")
                .args(["-m64", "-c", "-w", "-o"])
                .arg(dir.path().join(format!("{name}.o")))
                .arg(&file)
                .output()
                .expect("gcc runs");
            assert!(
                out.status.success(),
                "{name}: gcc rejects the residual: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    for v in violations.iter().take(10) {
        eprintln!("{v}");
    }
    assert!(violations.is_empty(), "{} Res violations", violations.len());
    println!("{tally:?}");
    assert!(
        tally.covered > 0 && tally.residual_normal > 0 && tally.residual_errors > 0,
        "{tally:?}"
    );
}

/// A flow whose first stage stops inside the recursion hands the residual program on; the
/// explicit analysis decides it (the recursion is deeper than the first stage went), and the
/// verdict is the right one, a `false` replayed on the original.
#[test]
fn flow_decides_on_the_residual_inside_recursion() {
    let dir = tempfile::tempdir().expect("temp dir");
    let flow = dir.path().join("flow.yaml");
    std::fs::write(
        &flow,
        "flow: depth-cut\nbudget: { cpu_time: 120s, memory: 2GB }\nstages:\n  \
         - name: shallow\n    tool: explicit\n    give_up: { recursion-depth: 3 }\n  \
         - name: deep\n    tool: explicit\n    budget: { cpu_time: 30s }\n    input: reduce\n  \
         - name: predicate\n    tool: predicate\n    budget: { cpu_time: 20s }\n    input: reduce\n",
    )
    .expect("write flow");
    for (k, (name, body, bug)) in INSIDE.iter().enumerate() {
        let file = dir.path().join(format!("{name}.c"));
        std::fs::write(&file, gen(&format!("f{k}_"), body).text()).expect("write program");
        let out = Command::new(env!("CARGO_BIN_EXE_baton"))
            .arg("run")
            .arg(&flow)
            .arg(&file)
            .arg("--json")
            .output()
            .expect("baton runs");
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let expected = if *bug { "false(unreach-call)" } else { "true" };
        assert_eq!(r["verdict"], expected, "{name}: {r}");
        assert_eq!(r["stages"][0]["verdict"], "unknown", "{name}: {r}");
        assert_eq!(r["stages"][1]["input"], "residual", "{name}: {r}");
        assert_eq!(r["deciding_stage"], "deep", "{name}: {r}");
    }
}

/// The development set's recursive tasks (rows `D` under `c/recursive*`): no wrong answer from
/// the explicit or the predicate analysis, and every `false` replays.
#[test]
fn shared_recursive_tasks_get_no_wrong_answer() {
    let Some(dir) = shared::benchmarks() else { return };
    let tasks: Vec<_> = shared::development_tasks(&dir)
        .into_iter()
        .filter(|(_, _, file)| file.to_string_lossy().contains("/c/recursive"))
        .collect();
    assert!(!tasks.is_empty(), "the development set has recursive tasks");
    let (mut correct, mut answers) = (0, 0);
    for (_, name, file) in &tasks {
        let task = Task::load(file, Default::default()).expect("task loads");
        let program = load_program(&task.program, task.data_model)
            .unwrap_or_else(|e| panic!("{name}: does not lower: {e}"));
        for (kind, cpu) in [
            (AnalysisKind::Explicit, "cpu-time=3s"),
            (AnalysisKind::Predicate, "cpu-time=2s"),
        ] {
            let outcome = verify(kind, &program, &[cpu, "memory=2GB"]);
            if let Some(cex) = &outcome.counterexample {
                assert!(
                    replay_to_error(&program, &cex.inputs).is_some(),
                    "{name}: the counterexample replays"
                );
            }
            let class = outcome.verdict.classify(task.expected);
            assert_ne!(
                class,
                Classification::Wrong,
                "{name} ({kind:?}): {}",
                outcome.reason
            );
            correct += usize::from(class == Classification::Correct);
            answers += 1;
        }
    }
    eprintln!("recursive development tasks: {correct} correct answers of {answers}");
}
