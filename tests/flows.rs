//! `baton run FLOW PROGRAM`: flow validation, tool checks, native stages handing conditions on,
//! and (when installed) real CBMC and AFL++ stages with replay on the original program.

#[path = "support/tools.rs"]
mod tools;
use std::path::Path;
use std::process::{Command, Output};
use tools::cbmc_installed;

const SAFE: &str = "extern int __VERIFIER_nondet_int(void);\nvoid reach_error(void) {}\nint main(void) {\n  int y = __VERIFIER_nondet_int();\n  if (y > 0) { int a = 1; a = a + 1; return 0; }\n  int x = __VERIFIER_nondet_int();\n  int i = 0, s = 0;\n  while (i < 8) { i++; if (x > 3) s += 2; else s += 1; }\n  if (s > 16) reach_error();\n  return 0;\n}\n";

const BUG: &str = "extern int __VERIFIER_nondet_int(void);\nvoid reach_error(void) {}\nint main(void) {\n  int y = __VERIFIER_nondet_int();\n  if (y > 0) { int a = 1; a = a + 1; return 0; }\n  int n = __VERIFIER_nondet_int();\n  int x = __VERIFIER_nondet_int();\n  int i = 0;\n  if (n < 0 || n > 10) return 0;\n  while (i < n) { i++; }\n  if (x == 4660 && i == 3) reach_error();\n  return 0;\n}\n";

/// BUG with the two comparisons nested, so the fuzzer gets coverage feedback for each; `x >
/// 4660` rather than a magic value, which AFL++ 4.04c's input-to-state stage sometimes missed
/// for a whole 20 s budget on a loaded machine (3 of 8 runs).
const AFL_BUG: &str = "extern int __VERIFIER_nondet_int(void);\nvoid reach_error(void) {}\nint main(void) {\n  int y = __VERIFIER_nondet_int();\n  if (y > 0) { int a = 1; a = a + 1; return 0; }\n  int n = __VERIFIER_nondet_int();\n  int x = __VERIFIER_nondet_int();\n  int i = 0;\n  if (n < 0 || n > 10) return 0;\n  while (i < n) { i++; }\n  if (x > 4660) { if (n == 3) reach_error(); }\n  return 0;\n}\n";

/// A safe program whose only loop is never entered for x != 7: CBMC with unwind 1 cannot
/// prove it, but its bounded condition covers the loop-free paths.
const SAFE_LOOP: &str = "extern int __VERIFIER_nondet_int(void);\nvoid reach_error(void) {}\nint main(void) {\n  int x = __VERIFIER_nondet_int();\n  int i = 0;\n  if (x == 7) { while (i < 5) { i++; } }\n  if (i > 5) reach_error();\n  return 0;\n}\n";

fn baton(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(args)
        .output()
        .expect("baton runs")
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.display().to_string()
}

fn json_run(flow: &str, program: &str) -> serde_json::Value {
    json_run_with(flow, program, &[])
}

/// [`json_run`] with further arguments.
fn json_run_with(flow: &str, program: &str, more: &[&str]) -> serde_json::Value {
    let out = baton(&[&["run", flow, program, "--json"], more].concat());
    assert!(
        out.status.success(),
        "baton run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

/// The first stage gives up after STATES reached states: enough to finish the early-return
/// branch of SAFE/BUG (a non-empty condition), not enough for a verdict.
const TWO_EXPLICIT: &str = "flow: two\nbudget: { cpu_time: 60s, memory: 2GB }\nstages:\n  - name: cut-short\n    tool: explicit\n    give_up: { reached-states: STATES }\n  - name: second\n    tool: explicit\n    budget: { cpu_time: 20s }\n    input: INPUT\n";

#[test]
fn two_native_stages_give_the_right_verdicts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let safe = write(dir.path(), "safe.c", SAFE);
    let bug = write(dir.path(), "bug.c", BUG);
    for input in ["reduce", "guide", "identity"] {
        let flow = TWO_EXPLICIT.replace("INPUT", input);
        let safe_flow = write(
            dir.path(),
            &format!("s-{input}.yaml"),
            &flow.replace("STATES", "70"),
        );
        let bug_flow = write(
            dir.path(),
            &format!("b-{input}.yaml"),
            &flow.replace("STATES", "30"),
        );
        let r = json_run(&safe_flow, &safe);
        assert_eq!(r["verdict"], "true", "{input}: {r}");
        assert_eq!(r["deciding_stage"], "second", "{input}: {r}");
        assert_eq!(r["stages"][0]["verdict"], "unknown", "{input}: {r}");
        assert!(
            r["stages"][0]["covered_share"].as_f64().unwrap_or(0.0) > 0.0,
            "{r}"
        );
        let r = json_run(&bug_flow, &bug);
        assert_eq!(r["verdict"], "false(unreach-call)", "{input}: {r}");
        // The flow's CPU time is its stages' and the runner's own work between them.
        let stages: f64 = r["stages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s["cpu_time_s"].as_f64())
            .sum();
        let runner = r["runner_cpu_time_s"].as_f64().expect("runner CPU time");
        let total = r["cpu_time_s"].as_f64().expect("CPU time");
        assert!(runner > 0.0 && (total - stages - runner).abs() < 1e-6, "{r}");
        assert_eq!(r["stages"].as_array().map(Vec::len), Some(2));
    }
    // The reduced input really is a residual program.
    let flow = write(
        dir.path(),
        "r.yaml",
        &TWO_EXPLICIT.replace("INPUT", "reduce").replace("STATES", "30"),
    );
    let r = json_run(&flow, &bug);
    assert_eq!(r["stages"][1]["input"], "residual", "{r}");
    // Within the default cap of three times the original's locations, and it says what it kept.
    let stage = &r["stages"][1];
    let (size, original) = (&stage["program_locations"], &stage["original_locations"]);
    assert!(
        size.as_u64()
            .zip(original.as_u64())
            .is_some_and(|(s, o)| s <= 3 * o),
        "{r}"
    );
    let kept = stage["cuts_kept"].as_f64().unwrap_or(-1.0);
    assert!((0.0..=1.0).contains(&kept), "{r}");
    assert!(
        stage["note"]
            .as_str()
            .is_some_and(|n| n.contains("of the exact residual's cuts")),
        "{r}"
    );
}

#[test]
fn malformed_flow_is_reported_with_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let prog = write(dir.path(), "safe.c", SAFE);
    let flow = write(
        dir.path(),
        "bad.yaml",
        "flow: bad\nstages:\n  - name: a\n    tool: explicit\n  - name: b\n    tool: frobnicate\n",
    );
    let out = baton(&["run", &flow, &prog]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.yaml:6:") && err.contains("unknown tool `frobnicate`"),
        "{err}"
    );
    let out = baton(&["run", &flow.replace("bad.yaml", "missing.yaml"), &prog]);
    assert_eq!(out.status.code(), Some(2));
    let flow = write(dir.path(), "ok.yaml", "flow: ok\nstages:\n  - tool: explicit\n");
    let out = baton(&["run", &flow, &dir.path().join("nope.c").display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn missing_tool_fails_before_the_flow_starts() {
    if baton::adapters::find_executable("klee").is_some() {
        eprintln!("skipping: klee is installed, cannot test a missing tool with it");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let prog = write(dir.path(), "safe.c", SAFE);
    let keep = dir.path().join("keep");
    let flow = write(
        dir.path(),
        "k.yaml",
        "flow: k\nstages:\n  - name: first\n    tool: explicit\n  - name: sym\n    tool: klee\n",
    );
    let out = baton(&["run", &flow, &prog, "--keep-dir", &keep.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not found (looked in"), "{err}");
    assert!(err.contains("KLEE cannot be installed on this machine"), "{err}");
    // Nothing ran: no stage directory was made.
    assert!(!keep.join("01-first").exists());
}

/// One CBMC stage.
const CBMC_FLOW: &str =
    "flow: c\nbudget: { cpu_time: 60s }\nstages:\n  - name: bmc\n    tool: cbmc\n    options: { unwind: 20 }\n";

#[test]
fn cbmc_stage_proves_and_refutes() {
    if !cbmc_installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let flow = write(dir.path(), "c.yaml", CBMC_FLOW);
    let r = json_run(&flow, &write(dir.path(), "safe.c", SAFE));
    assert_eq!(r["verdict"], "true", "{r}");
    assert_eq!(r["deciding_stage"], "bmc");
    let r = json_run(&flow, &write(dir.path(), "bug.c", BUG));
    assert_eq!(r["verdict"], "false(unreach-call)", "{r}");
    let note = r["stages"][0]["note"].as_str().unwrap_or("");
    assert!(note.contains("replay"), "{note}");
}

/// `1.0L + 0x1p-70L == 1.0L` with gcc's x87 `long double`, not in CBMC's wider format.
const LONG_DOUBLE_ROUNDS: &str = "void reach_error(void) {}\nint main(void) {\n  long double x = 1.0L;\n  long double y = x + 0x1p-70L;\n  if (y OP x) reach_error();\n  return 0;\n}\n";

/// A bug CBMC finds with `long double` values that are x87 values too.
const LONG_DOUBLE_BUG: &str = "extern long double __VERIFIER_nondet_long_double(void);\nvoid reach_error(void) {}\nint main(void) {\n  long double x = __VERIFIER_nondet_long_double();\n  long double y = __VERIFIER_nondet_long_double();\n  if (x == 2.5L && y > 1e4000L) reach_error();\n  return 0;\n}\n";

/// CBMC computes `long double` in a wider format than gcc's x87: its proof of a program that
/// is unsafe with gcc is not believed, its counterexample of a program that is safe with gcc
/// does not replay, and one that is a counterexample with gcc too is confirmed; in both data
/// models.
#[test]
fn cbmc_stage_on_long_double_programs() {
    if !cbmc_installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let flow = write(dir.path(), "c.yaml", CBMC_FLOW);
    let unsafe_for_gcc = write(dir.path(), "eq.c", &LONG_DOUBLE_ROUNDS.replace("OP", "=="));
    let safe_for_gcc = write(dir.path(), "ne.c", &LONG_DOUBLE_ROUNDS.replace("OP", "!="));
    let bug = write(dir.path(), "bug.c", LONG_DOUBLE_BUG);
    for model in ["ILP32", "LP64"] {
        let run = |program: &str| json_run_with(&flow, program, &["--data-model", model]);
        let r = run(&unsafe_for_gcc);
        assert_eq!(r["verdict"], "unknown", "{model}: {r}");
        let note = r["stages"][0]["note"].as_str().unwrap_or("");
        assert!(note.contains("not believed"), "{model}: {note}");
        let r = run(&safe_for_gcc);
        assert_eq!(r["verdict"], "unknown", "{model}: {r}");
        let note = r["stages"][0]["note"].as_str().unwrap_or("");
        assert!(note.contains("does not reach the error"), "{model}: {note}");
        let r = run(&bug);
        assert_eq!(r["verdict"], "false(unreach-call)", "{model}: {r}");
    }
}

#[test]
fn cbmc_bounded_condition_then_explicit() {
    if !cbmc_installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let flow = write(
        dir.path(),
        "cb.yaml",
        "flow: cb\nbudget: { cpu_time: 60s, memory: 2GB }\nstages:\n  - name: bmc-k1\n    tool: cbmc\n    options: { unwind: 1 }\n  - name: explicit\n    tool: explicit\n    input: reduce\n",
    );
    let r = json_run(&flow, &write(dir.path(), "safe.c", SAFE_LOOP));
    assert_eq!(r["verdict"], "true", "{r}");
    assert_eq!(r["stages"][0]["verdict"], "unknown", "{r}");
    // CBMC's bounded result was handed on: the explicit stage ran on a residual program.
    assert!(
        r["stages"][0]["covered_share"].as_f64().unwrap_or(0.0) > 0.0,
        "{r}"
    );
    assert_eq!(r["stages"][1]["input"], "residual", "{r}");
    let r = json_run(&flow, &write(dir.path(), "bug.c", BUG));
    assert_eq!(r["verdict"], "false(unreach-call)", "{r}");
}

#[test]
fn afl_on_residual_finds_bug_confirmed_on_original() {
    if baton::adapters::find_executable("afl-clang-fast").is_none()
        || baton::adapters::find_executable("afl-fuzz").is_none()
    {
        eprintln!("skipping: afl-clang-fast/afl-fuzz not installed");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let flow = write(
        dir.path(),
        "a.yaml",
        "flow: a\nbudget: { cpu_time: 60s, memory: 2GB }\nstages:\n  - name: explicit\n    tool: explicit\n    give_up: { reached-states: 30 }\n  - name: afl\n    tool: afl\n    budget: { cpu_time: 20s }\n    input: reduce\n",
    );
    let r = json_run(&flow, &write(dir.path(), "bug.c", AFL_BUG));
    assert_eq!(r["stages"][0]["verdict"], "unknown", "{r}");
    assert_eq!(r["stages"][1]["input"], "residual", "{r}");
    assert_eq!(r["verdict"], "false(unreach-call)", "{r}");
    assert_eq!(r["deciding_stage"], "afl", "{r}");
    let note = r["stages"][1]["note"].as_str().unwrap_or("");
    assert!(note.contains("replay") && note.contains("original"), "{note}");
}

#[test]
fn shipped_configs_are_valid_flows() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("configs/ exists") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("yaml") {
            continue;
        }
        let registry = baton::adapters::registry::Registry::builtin().expect("built-in adapters");
        let flow = baton::pipeline::runner::load_flow(&path, &registry)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let identity = path.to_string_lossy().contains("-identity");
        assert_eq!(
            identity,
            flow.name.ends_with("-identity"),
            "{}: name",
            path.display()
        );
        count += 1;
    }
    assert!(count >= 12, "only {count} flows in configs/");
}

/// `run --cpu-time` and `run --wall-time` cap the flow's budget: a flow of 600 s whose one
/// stage never decides ends by itself within the cap (what `bench` relies on to keep a flow,
/// witness included, inside its run's time limits).
#[test]
fn time_options_cap_the_flow_budget() {
    let dir = tempfile::tempdir().expect("temp dir");
    let flow = write(
        dir.path(),
        "long.yaml",
        "flow: long\nbudget: { cpu_time: 600s, memory: 2GB }\nstages:\n  - name: endless\n    tool: explicit\n",
    );
    let program = write(
        dir.path(),
        "endless.c",
        "extern unsigned int __VERIFIER_nondet_uint(void);\nvoid reach_error(void) {}\nint main(void) {\n  unsigned int n = __VERIFIER_nondet_uint(); unsigned long long s = 0;\n  for (unsigned int i = 0; i <= n; i++) { s = s + i; }\n  if (n == 0 && s == 7) reach_error();\n  return 0;\n}\n",
    );
    // Generous against the 2 s cap; without it the stage would run for 600 s.
    for (option, measure, most) in [
        ("--cpu-time", "cpu_time_s", 10.0),
        ("--wall-time", "wall_time_s", 30.0),
    ] {
        let out = baton(&["run", &flow, &program, "--json", option, "2s"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
        assert_eq!(r["verdict"], "unknown", "{r}");
        let used = r[measure].as_f64().expect(measure);
        assert!(
            used < most,
            "{used} s ({measure}) under a 2 s cap ({option}): {r}"
        );
    }
}
