//! Undefined behaviour is not a counterexample (sv-benchmarks' convention, issue 12): programs
//! of our own whose only way to the error is signed overflow, an overflowing shift or a
//! division by zero get no `false` from the explicit or the predicate analysis, from replay or
//! from a flow; `--signed-overflow wrap` restores wrap-around and with it their bugs; a bug
//! reachable without overflow is still found in both modes.

use baton::analyses::{replay_to_error, run_analysis, AnalysisKind, AnalysisOptions, AnalysisOutcome};
use baton::cfa::interpreter::{execute, Ending, ExecOptions};
use baton::cfa::semantics::{SignedOverflow, UndefinedBehavior};
use baton::cfa::types::DataModel;
use baton::cfa::Program;
use baton::cpa::monitor::GiveUp;
use baton::frontend::load_source;
use baton::verdict::Verdict;
use std::path::Path;
#[path = "support/cli.rs"]
mod cli;
use cli::baton;

/// Two counters that only grow (in the style of loop benchmarks with a conjunctive
/// invariant): `x >= 1 && y >= 1` fails only after `x * 64 + y` overflowed, in the sixth
/// iteration (line 7).
const GROW: &str = "extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int main(void) {
  int x = 1;
  int y = 1;
  while (__VERIFIER_nondet_int()) {
    x = x * 64 + y;
    y = x;
  }
  if (!(x >= 1 && y >= 1)) reach_error();
  return 0;
}
";

/// GROW with a bug three iterations deep, before any overflow.
fn grow_bug() -> String {
    GROW.replace("!(x >= 1 && y >= 1)", "x == 274625 && y == x")
}

/// The classic overflow test `x + 1 < x`.
const INCREMENT: &str = "extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = x + 1;
  if (y < x) reach_error();
  return 0;
}
";

/// `1 << k` is negative only for k = 31, which shifts into the sign bit (undefined).
const SHIFT: &str = "extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int main(void) {
  int k = __VERIFIER_nondet_int();
  if (k >= 0 && k < 40) {
    int v = 1 << k;
    if (v < 0) reach_error();
  }
  return 0;
}
";

/// Both errors lie behind a division by zero: one by a known zero, one by an input.
const DIVISION: &str = "extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int main(void) {
  int d = 0;
  int n = __VERIFIER_nondet_int();
  while (__VERIFIER_nondet_int()) {
    n = n + 1;
    if (n == 10) {
      int q = 100 / d;
      reach_error();
    }
  }
  int x = __VERIFIER_nondet_int();
  int r = 100 / x;
  if (x == 0) reach_error();
  return r;
}
";

fn program(text: &str, overflow: SignedOverflow) -> Program {
    let mut p = load_source("test.c", text, DataModel::ILP32).expect("test program lowers");
    p.signed_overflow = overflow;
    p
}

fn verify(kind: AnalysisKind, p: &Program) -> AnalysisOutcome {
    let options = AnalysisOptions {
        give_up: vec!["cpu-time=30s".parse::<GiveUp>().expect("valid give-up")],
        ..Default::default()
    };
    run_analysis(kind, p, &options, None)
}

/// A `false` whose counterexample replays to the error (under the program's semantics).
fn assert_replayed_violation(p: &Program, outcome: &AnalysisOutcome, what: &str) {
    assert_eq!(outcome.verdict, Verdict::False, "{what}: {}", outcome.reason);
    let cex = outcome.counterexample.as_ref().expect("counterexample");
    assert!(replay_to_error(p, &cex.inputs).is_some(), "{what}: replays");
}

const ANALYSES: [AnalysisKind; 2] = [AnalysisKind::Explicit, AnalysisKind::Predicate];

#[test]
fn signed_overflow_on_the_way_to_the_error_is_no_counterexample() {
    for (name, text) in [("grow", GROW), ("increment", INCREMENT), ("shift", SHIFT)] {
        let p = program(text, SignedOverflow::Undefined);
        for kind in ANALYSES {
            let outcome = verify(kind, &p);
            assert_ne!(
                outcome.verdict,
                Verdict::False,
                "{name} {kind:?}: {}",
                outcome.reason
            );
            if outcome.verdict == Verdict::True {
                assert!(
                    outcome.reason.contains("excluded, as sv-benchmarks assumes"),
                    "{}",
                    outcome.reason
                );
            }
        }
        // The predicate analysis proves all three; the explicit one the loop whose values it
        // knows (the others it cannot decide: `x + 1` of an unknown `x` is unknown).
        assert_eq!(
            verify(AnalysisKind::Predicate, &p).verdict,
            Verdict::True,
            "{name}"
        );
    }
    let grow = program(GROW, SignedOverflow::Undefined);
    assert_eq!(verify(AnalysisKind::Explicit, &grow).verdict, Verdict::True);
}

#[test]
fn with_wrap_around_the_overflow_bugs_are_found_and_replayed() {
    let grow = program(GROW, SignedOverflow::Wrap);
    let outcome = verify(AnalysisKind::Explicit, &grow);
    assert_replayed_violation(&grow, &outcome, "grow explicit");
    assert!(
        outcome.reason.contains("signed-overflow: wrap"),
        "{}",
        outcome.reason
    );
    for (name, text) in [("increment", INCREMENT), ("shift", SHIFT)] {
        let p = program(text, SignedOverflow::Wrap);
        for kind in ANALYSES {
            let outcome = verify(kind, &p);
            assert_replayed_violation(&p, &outcome, &format!("{name} {kind:?}"));
        }
    }
}

#[test]
fn a_bug_reachable_without_overflow_is_found_in_both_modes() {
    for overflow in [SignedOverflow::Undefined, SignedOverflow::Wrap] {
        let p = program(&grow_bug(), overflow);
        for kind in ANALYSES {
            let outcome = verify(kind, &p);
            assert_replayed_violation(&p, &outcome, &format!("{kind:?} {overflow}"));
            let cex = outcome.counterexample.as_ref().expect("counterexample");
            let iterations = cex.inputs.iter().take_while(|v| **v != 0).count();
            assert_eq!(iterations, 3, "{:?}", cex.inputs);
        }
    }
}

#[test]
fn division_by_zero_before_the_error_is_no_counterexample() {
    for overflow in [SignedOverflow::Undefined, SignedOverflow::Wrap] {
        let p = program(DIVISION, overflow);
        let explicit = verify(AnalysisKind::Explicit, &p);
        assert_ne!(
            explicit.verdict,
            Verdict::False,
            "{overflow}: {}",
            explicit.reason
        );
        let predicate = verify(AnalysisKind::Predicate, &p);
        assert_eq!(
            predicate.verdict,
            Verdict::True,
            "{overflow}: {}",
            predicate.reason
        );
    }
    // The division by the known zero ends the explicit analysis' path: with only that error
    // the program is proved.
    let known_zero = DIVISION.replace("if (x == 0) reach_error();", "");
    let outcome = verify(
        AnalysisKind::Explicit,
        &program(&known_zero, SignedOverflow::Undefined),
    );
    assert_eq!(outcome.verdict, Verdict::True, "{}", outcome.reason);
}

#[test]
fn replay_ends_at_the_overflow() {
    // Six iterations: the sixth overflows at line 7.
    let inputs = [1, 1, 1, 1, 1, 1, 0];
    let strict = program(GROW, SignedOverflow::Undefined);
    let run = execute(&strict, &inputs, &ExecOptions::default());
    assert_eq!(
        run.ending,
        Ending::UndefinedBehavior {
            what: UndefinedBehavior::SignedOverflow,
            line: 7
        }
    );
    assert_eq!(
        run.ending.to_string(),
        "undefined behaviour: signed integer overflow at line 7"
    );
    assert!(replay_to_error(&strict, &inputs).is_none());
    let wrapping = program(GROW, SignedOverflow::Wrap);
    assert!(execute(&wrapping, &inputs, &ExecOptions::default())
        .ending
        .is_error());
    assert!(replay_to_error(&wrapping, &inputs).is_some());
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("JSON expected ({e}): {out}"))
}

#[test]
fn cli_exec_verify_and_run_say_what_they_assume() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("grow.c");
    std::fs::write(&file, GROW).expect("write");
    let grow = file.to_str().expect("utf-8 path");

    let (code, out, _) = baton(&["exec", grow, "--inputs", "1,1,1,1,1,1,0"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("undefined behaviour: signed integer overflow at line 7"),
        "{out}"
    );
    let (code, out, _) = baton(&[
        "exec",
        grow,
        "--inputs",
        "1,1,1,1,1,1,0",
        "--signed-overflow",
        "wrap",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("reach_error() reached at line 10"), "{out}");
    let (code, _, err) = baton(&["exec", grow, "--signed-overflow", "trap"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("undefined or wrap"), "{err}");

    let (code, out, _) = baton(&["verify", grow, "--json"]);
    assert_eq!(code, 0);
    let v = json(&out);
    assert_eq!(v["verdict"], "true", "{v}");
    assert_eq!(v["assumptions"], serde_json::json!(["no-undefined-behaviour"]));
    assert_eq!(v["signed_overflow"], "undefined");
    let (_, out, _) = baton(&["verify", grow]);
    assert!(
        out.contains("assumed: paths with undefined behaviour (signed overflow"),
        "{out}"
    );
    let (code, out, _) = baton(&["verify", grow, "--json", "--signed-overflow", "wrap"]);
    assert_eq!(code, 0);
    let v = json(&out);
    assert_eq!(v["verdict"], "false(unreach-call)", "{v}");
    assert_eq!(v["signed_overflow"], "wrap");
    assert_eq!(
        v["assumptions"],
        serde_json::json!(["no-undefined-behaviour", "signed-overflow-wraps"])
    );

    // A flow passes the semantics to its native stages and replays under it.
    let flow = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/native.yaml");
    let flow = flow.to_str().expect("utf-8 path");
    let (code, out, err) = baton(&["run", flow, grow, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["verdict"], "true", "{v}");
    assert_eq!(v["assumptions"], serde_json::json!(["no-undefined-behaviour"]));
    let (code, out, err) = baton(&["run", flow, grow, "--json", "--signed-overflow", "wrap"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["verdict"], "false(unreach-call)", "{v}");
    assert_eq!(v["signed_overflow"], "wrap");
    let (_, out, _) = baton(&["run", flow, grow]);
    assert!(out.contains("assumed: paths with undefined behaviour"), "{out}");

    // The flow file can say it too (so `bench` runs wrap-around flows); the command line wins.
    let native = std::fs::read_to_string(flow).expect("configs/native.yaml");
    let wrap_flow = dir.path().join("native-wrap.yaml");
    std::fs::write(&wrap_flow, format!("signed-overflow: wrap\n{native}")).expect("write");
    let wrap_flow = wrap_flow.to_str().expect("utf-8 path");
    let (code, out, err) = baton(&["run", wrap_flow, grow, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["verdict"], "false(unreach-call)", "{v}");
    assert_eq!(v["signed_overflow"], "wrap");
    let (code, out, err) = baton(&["run", wrap_flow, grow, "--json", "--signed-overflow", "undefined"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["verdict"], "true");
    std::fs::write(
        dir.path().join("bad.yaml"),
        format!("signed-overflow: trap\n{native}"),
    )
    .expect("write");
    let bad = dir.path().join("bad.yaml");
    let (code, _, err) = baton(&["run", bad.to_str().expect("utf-8 path"), grow]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.yaml") && err.contains("trap"), "{err}");
}

/// CBMC wraps signed overflow and finds GROW's overflow "bug"; its replay on Baton's
/// interpreter meets the overflow first, so the flow does not answer `false`, unless the flow
/// itself runs with wrap-around.
#[test]
fn a_tool_counterexample_through_overflow_is_not_reported() {
    let installed = ["cbmc", "goto-cc", "goto-instrument"]
        .iter()
        .all(|t| baton::adapters::find_executable(t).is_some());
    if !installed {
        eprintln!("skipping: cbmc not installed (run scripts/install-tools.sh)");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("grow.c");
    std::fs::write(&file, GROW).expect("write");
    let flow = dir.path().join("cbmc.yaml");
    std::fs::write(
        &flow,
        "flow: c\nbudget: { cpu_time: 60s }\nstages:\n  - name: bmc\n    tool: cbmc\n    options: { unwind: 8 }\n",
    )
    .expect("write");
    let (flow, grow) = (flow.to_str().expect("utf-8"), file.to_str().expect("utf-8"));
    let (code, out, err) = baton(&["run", flow, grow, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_ne!(v["verdict"], "false(unreach-call)", "{v}");
    let note = v["stages"][0]["note"].as_str().unwrap_or("");
    assert!(note.contains("does not reach the error"), "{note}");
    let (code, out, err) = baton(&["run", flow, grow, "--json", "--signed-overflow", "wrap"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["verdict"], "false(unreach-call)", "{v}");
}
