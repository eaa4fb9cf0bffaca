//! A verifier added without touching Rust: a shell script that behaves like an SV-COMP verifier
//! and one YAML adapter in a directory given with `--adapters`. Each of its behaviours (true,
//! false with a witness, false with a witness that does not replay, unknown, crash, garbage
//! output) gives the right stage status and verdict; option mistakes are errors with the flow
//! file's line before anything runs; a parallel group stops a hanging member with its whole
//! process tree as soon as another member decides.

use std::path::Path;
use std::process::{Command, Output};

#[path = "support/cgroup_run.rs"]
mod cgroup_run;

/// The fake verifier. `--mode` picks its behaviour; witnesses go to its working directory.
const FAKE_SH: &str = r#"#!/bin/sh
# An SV-COMP-style verifier for Baton's tests; argv: --mode MODE PROGRAM --propertyfile PRP --BITS
mode=$2
prog=$3
[ -f "$prog" ] || { echo "no program $prog"; exit 1; }
witness() {
  cat > witness.graphml <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="directed">
<data key="witness-type">violation_witness</data>
<node id="N0"><data key="entry">true</data></node>
<edge source="N0" target="N1"><data key="assumption">\result == $1;</data><data key="assumption.resultfunction">__VERIFIER_nondet_int</data></edge>
</graph></graphml>
EOF
}
case "$mode" in
  safe) echo "Checking $prog"; echo "VERIFICATION SUCCESSFUL"; exit 0 ;;
  slow-safe) sleep 1; echo "VERIFICATION SUCCESSFUL"; exit 0 ;;
  unsafe) witness 42; echo "VERIFICATION FAILED"; exit 10 ;;
  wrong-witness) witness 7; echo "VERIFICATION FAILED"; exit 10 ;;
  unknown) echo "VERIFICATION UNKNOWN"; exit 0 ;;
  crash) echo "Checking"; kill -SEGV $$ ;;
  garbage) echo "%%% 0xdeadbeef lorem ipsum"; exit 0 ;;
  hang) sleep 1000 & sleep 1001 ;;
  hog) dd if=/dev/zero of=/dev/null bs=1500M count=1 2>/dev/null; echo "VERIFICATION SUCCESSFUL"; exit 0 ;;
esac
"#;

const FAKE_YAML: &str = r#"# A fake verifier (tests/user_adapters.rs).
tool: fakever
about: Fakever, a shell script that prints SV-COMP verdicts
executables: { verifier: ./fakever.sh }
version: { command: ["{verifier}", --mode, version, /dev/null], regex: 'never' }
options:
  mode:
    type: string
    allowed: [safe, slow-safe, unsafe, wrong-witness, unknown, crash, garbage, hang, hog]
    default: safe
command: ["{verifier}", --mode, "{options.mode}", "{program}", --propertyfile, "{property}", "--{bits}"]
result:
  - { exit_code: 0, line: '^VERIFICATION SUCCESSFUL$', verdict: true }
  - { exit_code: 10, line: '^VERIFICATION FAILED$', verdict: false }
  - { line: '^VERIFICATION UNKNOWN$', verdict: unknown }
witness: witness.graphml
contributes: replay-bug
"#;

const BUG: &str = "extern int __VERIFIER_nondet_int(void);\nvoid reach_error(void) {}\nint main(void) {\n  int x = __VERIFIER_nondet_int();\n  if (x == 42) reach_error();\n  return 0;\n}\n";

/// A bug behind an early return and a loop: a short native analysis verifies the `y > 0` branch
/// and gives up in the loop.
const EARLY_BUG: &str = "extern int __VERIFIER_nondet_int(void);\nvoid reach_error(void) {}\nint main(void) {\n  int y = __VERIFIER_nondet_int();\n  if (y > 0) { int a = 1; a = a + 1; return 0; }\n  int n = __VERIFIER_nondet_int();\n  int x = __VERIFIER_nondet_int();\n  int i = 0;\n  if (n < 0 || n > 10) return 0;\n  while (i < n) { i++; }\n  if (x == 4660 && i == 3) reach_error();\n  return 0;\n}\n";

/// A program Baton's frontend rejects (inline assembly).
const ASM_BUG: &str = "extern int __VERIFIER_nondet_int(void);\nvoid reach_error(void) {}\nint main(void) {\n  int x = __VERIFIER_nondet_int();\n  __asm__ volatile (\"nop\");\n  if (x == 42) reach_error();\n  return 0;\n}\n";

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.display().to_string()
}

/// A directory with the fake verifier and its adapter.
fn adapter_dir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("fakever.sh");
    std::fs::write(&script, FAKE_SH).expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    write(dir.path(), "fakever.yaml", FAKE_YAML);
    dir
}

fn baton(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(args)
        .output()
        .expect("baton runs")
}

fn run_json(adapters: &Path, flow: &str, program: &str) -> serde_json::Value {
    let out = baton(&[
        "run",
        flow,
        program,
        "--json",
        "--adapters",
        &adapters.display().to_string(),
    ]);
    assert!(
        out.status.success(),
        "baton run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn one_stage(dir: &Path, mode: &str) -> String {
    write(
        dir,
        &format!("{mode}.yaml"),
        &format!("flow: fake-{mode}\nbudget: {{ cpu_time: 30s }}\nstages:\n  - name: fake\n    tool: fakever\n    options: {{ mode: {mode} }}\n"),
    )
}

#[test]
fn every_behaviour_gives_the_right_status() {
    let adapters = adapter_dir();
    let dir = tempfile::tempdir().expect("tempdir");
    let bug = write(dir.path(), "bug.c", BUG);
    // (mode, status, verdict, confirmed)
    let cases = [
        ("safe", "true", "true", None),
        ("unsafe", "false(unreach-call)", "false(unreach-call)", Some(true)),
        ("wrong-witness", "false(unreach-call)", "unknown", None),
        ("unknown", "unknown", "unknown", None),
        ("crash", "KILLED BY SIGNAL 11", "unknown", None),
        ("garbage", "ERROR (invalid output)", "unknown", None),
    ];
    for (mode, status, verdict, confirmed) in cases {
        let r = run_json(adapters.path(), &one_stage(dir.path(), mode), &bug);
        let stage = &r["stages"][0];
        assert_eq!(stage["status"], status, "{mode}: {r}");
        assert_eq!(stage["verdict"], verdict, "{mode}: {r}");
        assert_eq!(r["verdict"], verdict, "{mode}: {r}");
        assert_eq!(stage["confirmed"].as_bool(), confirmed, "{mode}: {r}");
    }
    // A false on a program Baton cannot lower is reported, unconfirmed; with
    // `trust: replayed-only` it is unknown.
    let asm = write(dir.path(), "asm.c", ASM_BUG);
    let unsafe_flow = one_stage(dir.path(), "unsafe");
    let r = run_json(adapters.path(), &unsafe_flow, &asm);
    assert_eq!(r["verdict"], "false(unreach-call)", "{r}");
    assert_eq!(r["confirmed"], false, "{r}");
    assert!(
        r["unsupported"].as_str().unwrap_or("").contains("unsupported"),
        "{r}"
    );
    let text = baton(&[
        "run",
        &unsafe_flow,
        &asm,
        "--adapters",
        &adapters.path().display().to_string(),
    ]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("false(unreach-call) [unconfirmed]"), "{text}");
    let strict = write(
        dir.path(),
        "strict.yaml",
        &std::fs::read_to_string(&unsafe_flow)
            .expect("flow")
            .replace("budget:", "trust: replayed-only\nbudget:"),
    );
    let r = run_json(adapters.path(), &strict, &asm);
    assert_eq!(r["verdict"], "unknown", "{r}");
    // The adapter directory also comes from BATON_ADAPTERS, and `baton tools` lists the tool.
    let out = Command::new(env!("CARGO_BIN_EXE_baton"))
        .arg("tools")
        .env("BATON_ADAPTERS", adapters.path())
        .output()
        .expect("baton tools");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().any(|l| l.starts_with("fakever")), "{text}");
    assert!(text.contains("fakever.sh"), "{text}");
}

#[test]
fn option_mistakes_are_errors_before_anything_runs() {
    let adapters = adapter_dir();
    let dir = tempfile::tempdir().expect("tempdir");
    let bug = write(dir.path(), "bug.c", BUG);
    let keep = dir.path().join("keep");
    for (options, expected) in [
        (
            "{ unwnid: 2 }",
            "unknown option `unwnid` for tool `fakever` (declared: mode)",
        ),
        ("{ mode: fast }", "`fast` is not allowed"),
    ] {
        let flow = write(
            dir.path(),
            "bad.yaml",
            &format!("flow: bad\nstages:\n  - name: first\n    tool: explicit\n  - name: fake\n    tool: fakever\n    options: {options}\n"),
        );
        let out = baton(&[
            "run",
            &flow,
            &bug,
            "--keep-dir",
            &keep.display().to_string(),
            "--adapters",
            &adapters.path().display().to_string(),
        ]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("bad.yaml:7:") && err.contains(expected), "{err}");
        assert!(!keep.join("01-first").exists(), "a stage ran");
    }
    // Built-in adapters check their options too.
    let flow = write(
        dir.path(),
        "cbmc.yaml",
        "flow: c\nstages:\n  - name: bmc\n    tool: cbmc\n    options: { unwind: many }\n",
    );
    let err = String::from_utf8_lossy(&baton(&["run", &flow, &bug]).stderr).into_owned();
    assert!(
        err.contains("cbmc.yaml:5:") && err.contains("not an integer"),
        "{err}"
    );
}

/// Processes whose environment holds Baton's stage mark for a `baton` process `pid`.
fn marked_processes(pid: u32) -> Vec<String> {
    let needle = format!("BATON_STAGE_MARK={pid}-");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ
            .split(|&b| b == 0)
            .any(|v| v.starts_with(needle.as_bytes()))
        {
            found.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    found
}

#[test]
fn parallel_group_stops_a_hanging_member_when_another_decides() {
    let adapters = adapter_dir();
    let dir = tempfile::tempdir().expect("tempdir");
    let bug = write(dir.path(), "bug.c", BUG);
    let flow = write(
        dir.path(),
        "par.yaml",
        "flow: par\nbudget: { cpu_time: 300s }\nstages:\n  - parallel:\n      - name: hang\n        tool: fakever\n        options: { mode: hang }\n      - name: decide\n        tool: fakever\n        options: { mode: slow-safe }\n  - name: never\n    tool: explicit\n",
    );
    let child = Command::new(env!("CARGO_BIN_EXE_baton"))
        .args([
            "run",
            &flow,
            &bug,
            "--json",
            "--adapters",
            &adapters.path().display().to_string(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("baton runs");
    let pid = child.id();
    let out = child.wait_with_output().expect("baton ends");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(r["verdict"], "true", "{r}");
    assert_eq!(r["deciding_stage"], "decide", "{r}");
    let stages = r["stages"].as_array().expect("stages");
    assert_eq!(stages.len(), 2, "the stage after the group does not run: {r}");
    assert_eq!(stages[0]["status"], "STOPPED", "{r}");
    assert_eq!(stages[0]["parallel_group"], 1, "{r}");
    // The hanging member sleeps 1000 s: the flow ended because it was stopped, not by a limit.
    assert!(r["wall_time_s"].as_f64().unwrap_or(1e9) < 120.0, "{r}");
    assert!(
        marked_processes(pid).is_empty(),
        "processes of the group are left"
    );
}

#[test]
fn parallel_group_unites_the_conditions_when_none_decides() {
    let adapters = adapter_dir();
    let dir = tempfile::tempdir().expect("tempdir");
    let bug = write(dir.path(), "bug.c", EARLY_BUG);
    let flow = write(
        dir.path(),
        "par.yaml",
        "flow: par\nbudget: { cpu_time: 60s }\nstages:\n  - parallel:\n      - name: a\n        tool: fakever\n        options: { mode: unknown }\n      - name: b\n        tool: explicit\n        give_up: { reached-states: 30 }\n  - name: last\n    tool: explicit\n",
    );
    let r = run_json(adapters.path(), &flow, &bug);
    assert_eq!(r["verdict"], "false(unreach-call)", "{r}");
    assert_eq!(r["deciding_stage"], "last", "{r}");
    assert_eq!(r["stages"].as_array().map(Vec::len), Some(3), "{r}");
    assert!(
        r["stages"][1]["covered_share"].as_f64().unwrap_or(0.0) > 0.0,
        "{r}"
    );
    assert_eq!(r["stages"][2]["input"], "residual", "{r}");
}

/// An adapter whose tool writes a condition file (as CPAchecker writes its assumption
/// automaton, `condition:` in the adapter): Baton reads it back as the stage's condition, and
/// the next stage runs on the residual program.
#[test]
fn a_condition_file_the_tool_writes_is_read_back() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let bug = write(dir.path(), "bug.c", EARLY_BUG);
    // The "tool's" automaton: what a short explicit analysis verified, in CPAchecker's format.
    let automaton = dir.path().join("automaton.txt");
    let out = baton(&[
        "verify",
        &bug,
        "--give-up",
        "reached-states=30",
        "--condition-out",
        &automaton.display().to_string(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let adapters = tempfile::tempdir().expect("tempdir");
    let script = adapters.path().join("condtool.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nmkdir -p output && cp {} output/AssumptionAutomaton.txt\necho 'Verification result: UNKNOWN, incomplete analysis.'\n",
            automaton.display()
        ),
    )
    .expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    write(
        adapters.path(),
        "condtool.yaml",
        "tool: condtool\nexecutables: { verifier: ./condtool.sh }\ncommand: [\"{verifier}\", \"{program}\"]\nresult:\n  - { line: '^Verification result: UNKNOWN', verdict: unknown }\ncondition: output/AssumptionAutomaton.txt\ncontributes: nothing\n",
    );
    let flow = write(
        dir.path(),
        "cond.yaml",
        "flow: cond\nbudget: { cpu_time: 60s }\nstages:\n  - name: cond\n    tool: condtool\n  - name: explicit\n    tool: explicit\n    input: reduce\n",
    );
    let r = run_json(adapters.path(), &flow, &bug);
    assert_eq!(r["stages"][0]["status"], "unknown", "{r}");
    assert!(
        r["stages"][0]["covered_share"].as_f64().unwrap_or(0.0) > 0.0,
        "{r}"
    );
    assert_eq!(r["stages"][1]["input"], "residual", "{r}");
    assert_eq!(r["verdict"], "false(unreach-call)", "{r}");
}

/// Processes whose command line mentions `needle` (the fake verifier's directory).
fn processes_mentioning(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if String::from_utf8_lossy(&cmdline).contains(needle) {
            found.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    found
}

/// A tool that hangs when asked for its version does not hang `baton tools`: the query is
/// stopped, the version is reported as unknown, and no process of it is left.
#[test]
fn tools_survives_a_version_command_that_hangs() {
    let adapters = adapter_dir();
    write(
        adapters.path(),
        "hangver.yaml",
        &FAKE_YAML
            .replace("tool: fakever", "tool: hangver")
            .replace("--mode, version, /dev/null", "--mode, hang, \"{verifier}\""),
    );
    let dir = adapters.path().display().to_string();
    let out = baton(&["tools", "--adapters", &dir]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("hangver"))
        .unwrap_or_else(|| panic!("hangver listed:\n{text}"));
    assert!(line.contains("version unknown"), "{line}");
    assert!(
        processes_mentioning(&dir).is_empty(),
        "a version query outlived `baton tools`"
    );
}

/// Run inside a memory limit set from outside (a cgroup, as `bench --memlimit` and BenchExec
/// set it), a flow gives its stages no more than that: a stage that needs more ends alone, out
/// of memory, and the next stage decides, where the flow's own budget (here 15 GB) would have
/// let the stage take the whole flow down.
#[test]
fn a_stage_out_of_the_flows_memory_ends_alone() {
    use baton::exec::ToolCommand;
    let adapters = adapter_dir();
    let dir = tempfile::tempdir().expect("tempdir");
    let bug = write(dir.path(), "bug.c", BUG);
    let flow = write(
        dir.path(),
        "hog.yaml",
        "flow: hog\nbudget: { cpu_time: 60s, memory: 15GB }\nstages:\n  - name: hog\n    tool: fakever\n    options: { mode: hog }\n  - name: explicit\n    tool: explicit\n",
    );
    let adapters_dir = adapters.path().display().to_string();
    let command = ToolCommand::new([
        env!("CARGO_BIN_EXE_baton"),
        "run",
        &flow,
        &bug,
        "--json",
        "--adapters",
        &adapters_dir,
    ]);
    let Some((_, r)) =
        cgroup_run::json_under_memory_limit(&command, 800 << 20, std::time::Duration::from_secs(60))
    else {
        return;
    };
    assert_eq!(r["stages"][0]["status"], "OUT OF MEMORY", "{r}");
    assert_eq!(r["verdict"], "false(unreach-call)", "{r}");
}
