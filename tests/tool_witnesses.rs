//! A flow confirms an external tool's `false` through the tool's violation witness when the
//! witness gives no values that replay: Baton's validator (waypoint-guided where values are
//! missing) must confirm it, and its values must reach the error on the original program;
//! otherwise the stage answers `unknown` with the reason.
//!
//! Ultimate Automizer writes format-2.0 YAML violation witnesses with `branching` waypoints and
//! no values, but it cannot be installed on these machines (Java 11 and its release archive):
//! the tool here is a shell script that prints Automizer's result line and writes a
//! handwritten witness in that documented format.

use std::path::Path;
use std::process::Command;

/// The bug needs x > 100 and y == x + 5; the error call is at line 8.
const BUG: &str = "extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  if (x > 100) {
    if (y == x + 5) {
      reach_error();
    }
  }
  return 0;
}
";

const ADAPTER: &str = r#"# A fake Ultimate Automizer (tests/tool_witnesses.rs): prints its result line and copies the
# witness named by the `witness` option (from witnesses/) to witness.yml, and writes an unusable
# witness.graphml (the YAML witness comes first in `witness`).
tool: fakeua
about: a shell script printing Automizer's result and writing a format-2.0 witness
executables: { verifier: ./fakeua.sh }
options:
  witness: { type: string, default: branches }
command: ["{verifier}", "{options.witness}", "{program}"]
result:
  - { line: '^FALSE', verdict: false }
  - { line: '^TRUE', verdict: true }
  - { verdict: unknown }
witness: [witness.yml, witness.graphml]
contributes: replay-bug
"#;

const SCRIPT: &str =
    "#!/bin/sh\ncp \"$(dirname \"$0\")/witnesses/$1.yml\" witness.yml\necho '<graphml>' > witness.graphml\necho 'Result:'\necho 'FALSE'\n";

/// A format-2.0 violation witness about `bug.c` with one segment per waypoint.
fn witness(waypoints: &[&str]) -> String {
    let mut text = "- entry_type: violation_sequence
  metadata:
    format_version: '2.0'
    uuid: 5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b
    creation_time: '2026-11-25T04:00:00Z'
    producer: { name: Automizer, version: 0.3.0 }
    task:
      input_files: [bug.c]
      input_file_hashes: { bug.c: '0' }
      specification: G ! call(reach_error())
      data_model: ILP32
      language: C
  content:
"
    .to_string();
    for w in waypoints {
        text.push_str(&format!(
            "  - segment:\n    - waypoint: {{ action: follow, {w} }}\n"
        ));
    }
    text
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.display().to_string()
}

fn run(adapters: &Path, flow: &str, program: &str) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(["run", flow, program, "--json", "--adapters"])
        .arg(adapters)
        .output()
        .expect("baton runs");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn an_external_false_is_confirmed_through_its_witness() {
    use std::os::unix::fs::PermissionsExt;
    let adapters = tempfile::tempdir().expect("tempdir");
    let script = adapters.path().join("fakeua.sh");
    std::fs::write(&script, SCRIPT).expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    write(adapters.path(), "fakeua.yaml", ADAPTER);
    let at = |line: u32| format!("location: {{ file_name: bug.c, line: {line}, function: main }}");
    let target = format!("type: target, {}", at(8));
    let witnesses = adapters.path().join("witnesses");
    std::fs::create_dir(&witnesses).expect("mkdir");
    write(
        &witnesses,
        "branches.yml",
        &witness(&[
            &format!("type: branching, {}, constraint: {{ value: 'true' }}", at(6)),
            &format!("type: branching, {}, constraint: {{ value: 'true' }}", at(7)),
            &target,
        ]),
    );
    // x = 50 never reaches the error.
    write(
        &witnesses,
        "wrong.yml",
        &witness(&[
            &format!(
                "type: function_return, {}, constraint: {{ value: '\\result == 50', format: acsl_expression }}",
                at(4)
            ),
            &target,
        ]),
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let bug = write(dir.path(), "bug.c", BUG);
    let flow = |name: &str| {
        write(
            dir.path(),
            &format!("{name}.yaml"),
            &format!("flow: ua\nbudget: {{ cpu_time: 30s }}\nstages:\n  - name: ua\n    tool: fakeua\n    options: {{ witness: {name} }}\n"),
        )
    };

    let report = run(adapters.path(), &flow("branches"), &bug);
    let stage = &report["stages"][0];
    assert_eq!(report["verdict"], "false(unreach-call)", "{report}");
    assert_eq!(stage["confirmed"], true, "{report}");
    let note = stage["note"].as_str().expect("note");
    assert!(note.contains("Baton validated the witness"), "{note}");

    let report = run(adapters.path(), &flow("wrong"), &bug);
    let stage = &report["stages"][0];
    assert_eq!(report["verdict"], "unknown", "{report}");
    assert_eq!(stage["status"], "false(unreach-call)", "{report}");
    let note = stage["note"].as_str().expect("note");
    assert!(note.contains("witness not confirmed: Refuted"), "{note}");
}

/// The built-in adapters of tools that write format-2.0 witnesses look for them first.
#[test]
fn builtin_adapters_look_for_yaml_witnesses_first() {
    let registry = baton::adapters::registry::Registry::load(&[]).expect("built-in adapters");
    for (tool, yaml, graphml) in [
        ("cpachecker", "output/witness-2*.yml", "output/witness.graphml"),
        ("uautomizer", "witness.yml", "witness.graphml"),
    ] {
        let adapter = registry.get(tool).expect("built in");
        let patterns = &adapter.spec.witness.as_ref().expect("a witness pattern").0;
        assert_eq!(patterns, &[yaml.to_string(), graphml.to_string()], "{tool}");
    }
}
