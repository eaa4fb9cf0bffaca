//! Runs the real CBMC pipeline (installed by scripts/install-tools.sh) on the own programs in
//! tests/data/cbmc/. Skips with a printed reason when CBMC is not installed (looked up in
//! `$BATON_TOOLS_DIR/bin`, `/opt/baton-tools/bin`, then `PATH`).

use baton::adapters::cbmc::{self, CbmcOutcome, CbmcTools};
use baton::adapters::registry::Registry;
use baton::adapters::CommandLine;
use baton::cfa::types::DataModel;
use std::path::Path;

fn run(cmd: &CommandLine) -> (Option<i32>, String, String) {
    let out = cmd
        .to_command()
        .output()
        .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", cmd.program));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn check(tools: &CbmcTools, name: &str, model: DataModel, unwind: u32) -> CbmcOutcome {
    let program = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/cbmc")
        .join(format!("{name}.c"));
    check_file(tools, &program, model, unwind)
}

fn check_file(tools: &CbmcTools, program: &Path, model: DataModel, unwind: u32) -> CbmcOutcome {
    let work = tempfile::tempdir().expect("tempdir");
    let p = cbmc::pipeline(tools, program, work.path(), model, unwind);
    let (code, out, err) = run(&p.compile);
    if let Some(failure) = cbmc::step_failure("goto-cc", code, &out, &err) {
        return failure;
    }
    let (code, out, err) = run(&p.instrument);
    if let Some(failure) = cbmc::step_failure("goto-instrument", code, &out, &err) {
        return failure;
    }
    let (code, out, err) = run(&p.instrument_nondet);
    if let Some(failure) = cbmc::step_failure("goto-instrument", code, &out, &err) {
        return failure;
    }
    let (code, out, _) = run(&p.verify);
    cbmc::parse_output(&out, code, unwind)
}

#[test]
fn real_cbmc_runs() {
    let registry = Registry::builtin().expect("built-in adapters");
    let config = registry.get("cbmc").expect("cbmc adapter");
    let Some(tools) = CbmcTools::locate(config) else {
        eprintln!("skipping: cbmc/goto-cc/goto-instrument not found (run scripts/install-tools.sh)");
        return;
    };
    let (_, version, _) = run(&CommandLine::new(&tools.cbmc).arg("--version"));
    let parsed = cbmc::parse_version(&version);
    assert!(matches!(parsed, Some((6, _, _))), "CBMC version {version:?}");

    assert_eq!(check(&tools, "safe", DataModel::LP64, 5), CbmcOutcome::Safe);
    assert_eq!(
        check(&tools, "empty_reach_error", DataModel::LP64, 5),
        CbmcOutcome::Violation {
            property: "reach_error.assertion.1".into(),
            nondet_values: vec![-7, 200],
        }
    );
    match check(&tools, "verifier_error", DataModel::LP64, 5) {
        CbmcOutcome::Violation {
            property,
            nondet_values,
        } => {
            assert_eq!(property, "__baton_VERIFIER_error.assertion.1");
            assert_eq!(nondet_values.len(), 2);
            assert!(nondet_values[0] > 1000 && nondet_values[1] == 4_000_000_000);
        }
        other => panic!("verifier_error: {other:?}"),
    }
    assert_eq!(
        check(&tools, "loop", DataModel::ILP32, 5),
        CbmcOutcome::SafeWithinBound { unwind: 5 }
    );
    // With a bound above the loop's 100 iterations, the proof is complete.
    assert_eq!(check(&tools, "loop", DataModel::ILP32, 101), CbmcOutcome::Safe);
    match check(&tools, "types_ilp32", DataModel::ILP32, 5) {
        CbmcOutcome::Violation { nondet_values, .. } => {
            assert_eq!(nondet_values, vec![1, -100, -30000, 4294967295, -5000000000]);
        }
        other => panic!("types_ilp32: {other:?}"),
    }
    match check(&tools, "assign_forms", DataModel::ILP32, 5) {
        CbmcOutcome::Violation { nondet_values, .. } => {
            assert_eq!(nondet_values.len(), 4, "{nondet_values:?}");
            assert_eq!(nondet_values[..2], [5, 65535]);
        }
        other => panic!("assign_forms: {other:?}"),
    }
    assert!(matches!(
        check(&tools, "syntax_error", DataModel::ILP32, 5),
        CbmcOutcome::Error(m) if m.starts_with("goto-cc failed")
    ));
}

#[derive(serde::Deserialize)]
struct TaskYml {
    input_files: String,
    options: TaskOptions,
}

#[derive(serde::Deserialize)]
struct TaskOptions {
    data_model: String,
}

/// CBMC on three sv-benchmarks tasks with known verdicts (read from `BATON_SV_BENCHMARKS`):
/// a true task CBMC proves, a true task it only bounds, a false one it finds.
#[test]
fn real_cbmc_on_sv_benchmarks() {
    let Some(root) = std::env::var_os("BATON_SV_BENCHMARKS") else {
        eprintln!("skipping: BATON_SV_BENCHMARKS is not set");
        return;
    };
    let registry = Registry::builtin().expect("built-in adapters");
    let config = registry.get("cbmc").expect("cbmc adapter");
    let Some(tools) = CbmcTools::locate(config) else {
        eprintln!("skipping: cbmc/goto-cc/goto-instrument not found (run scripts/install-tools.sh)");
        return;
    };
    let root = Path::new(&root);
    let tasks = [
        ("c/ntdrivers-simplified/kbfiltr_simpl1.cil.yml", "safe"),
        ("c/systemc/token_ring.01.cil-1.yml", "bounded"),
        ("c/systemc/transmitter.01.cil.yml", "violation"),
    ];
    for (yml, expected) in tasks {
        let yml_path = root.join(yml);
        let text =
            std::fs::read_to_string(&yml_path).unwrap_or_else(|e| panic!("{}: {e}", yml_path.display()));
        let task: TaskYml = serde_norway::from_str(&text).expect("task yml");
        let model = if task.options.data_model == "LP64" {
            DataModel::LP64
        } else {
            DataModel::ILP32
        };
        let program = yml_path
            .parent()
            .expect("yml has a folder")
            .join(&task.input_files);
        let outcome = check_file(&tools, &program, model, 3);
        let ok = match expected {
            "safe" => outcome == CbmcOutcome::Safe,
            "bounded" => outcome == CbmcOutcome::SafeWithinBound { unwind: 3 },
            _ => {
                matches!(&outcome, CbmcOutcome::Violation { nondet_values, .. } if !nondet_values.is_empty())
            }
        };
        assert!(ok, "{yml}: expected {expected}, got {outcome:?}");
    }
}
