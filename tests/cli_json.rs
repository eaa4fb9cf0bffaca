//! `--json` on every subcommand: one document on stdout with Baton's version first; failures
//! as error documents with the usual exit status.

#[path = "support/bench_tasks.rs"]
mod bench_tasks;
use bench_tasks::{baton, tasks};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

/// Parses stdout as one JSON document and checks its `version` key.
fn document(out: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let value: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is one JSON document ({e}):\n{stdout}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(value["version"], env!("CARGO_PKG_VERSION"), "{stdout}");
    value
}

/// Runs `baton ARGS --json` in `dir`, expects success and returns the document.
fn json_ok(args: &[&str], dir: &Path) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let out = baton(&all, dir);
    let value = document(&out);
    assert_eq!(out.status.code(), Some(0), "{value}");
    value
}

#[test]
fn every_subcommand_prints_a_versioned_document() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    tasks(d);

    let cfa = json_ok(&["cfa", "buggy.c"], d);
    assert!(cfa["functions"].is_array(), "{cfa}");

    let exec = json_ok(&["exec", "buggy.c", "--inputs", "42", "--trace"], d);
    assert_eq!(exec["ending"], "error_reached", "{exec}");
    assert_eq!(exec["nondet_values"], serde_json::json!(["42"]));
    assert!(!exec["trace"].as_array().unwrap().is_empty(), "{exec}");

    let verify = json_ok(&["verify", "safe.yml", "--condition-out", "safe.graphml"], d);
    assert_eq!(verify["verdict"], "true", "{verify}");

    let reduce = json_ok(&["reduce", "safe.c", "--condition", "safe.graphml"], d);
    assert!(reduce["residual_program"].as_str().is_some(), "{reduce}");
    assert!(reduce["original"]["locations"].as_u64().unwrap() > 0, "{reduce}");
    // A fully verified condition leaves nothing to track and nothing the cap could drop.
    assert_eq!(reduce["coverage"]["tracked_locations"], 0, "{reduce}");
    assert_eq!(reduce["coverage"]["cuts_kept_fraction"], 1.0, "{reduce}");
    let identity = json_ok(
        &[
            "reduce",
            "safe.c",
            "--condition",
            "safe.graphml",
            "--reducer",
            "identity",
        ],
        d,
    );
    assert!(identity["coverage"].is_null(), "{identity}");

    let flow = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/native.yaml");
    let run = json_ok(&["run", flow.to_str().unwrap(), "buggy.yml"], d);
    assert_eq!(run["verdict"], "false(unreach-call)", "{run}");

    let tools = json_ok(&["tools"], d);
    assert!(
        tools["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["tool"] == "cbmc"),
        "{tools}"
    );

    let bench = json_ok(
        &[
            "bench",
            "--tasks",
            "safe.yml",
            "buggy.yml",
            "--run",
            "e=verify --analysis explicit",
            "--timelimit",
            "10s",
            "--jobs",
            "1",
            "--output-dir",
            "out",
        ],
        d,
    );
    assert_eq!(bench["executed"], 2, "{bench}");
    assert_eq!(
        bench["run_definitions"][0]["counts"]["correct_true"], 1,
        "{bench}"
    );
    assert_eq!(
        bench["run_definitions"][0]["counts"]["correct_false"], 1,
        "{bench}"
    );

    let table = json_ok(&["table", "out"], d);
    let column = &table["columns"][0];
    assert_eq!(column["counts"]["score"], 3, "{table}");
    assert_eq!(column["results"].as_array().unwrap().len(), 2, "{table}");
}

#[test]
fn input_errors_are_json_documents_with_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for args in [
        vec!["verify", "missing.c", "--json"],
        vec!["exec", "missing.c", "--json"],
        vec!["table", "missing-results", "--json"],
        // An argument clap rejects.
        vec!["verify", "x.c", "--no-such-option", "--json"],
    ] {
        let out = baton(&args, d);
        let value = document(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {value}");
        assert_eq!(value["error"]["kind"], "input", "{args:?}: {value}");
        assert!(!value["error"]["message"].as_str().unwrap().is_empty());
    }
}

#[test]
fn help_documents_the_exit_statuses() {
    let out = baton(&["--help"], Path::new("."));
    let help = String::from_utf8_lossy(&out.stdout);
    for line in ["Exit status:", "  1 ", "  2 ", "\"version\""] {
        assert!(help.contains(line), "{line} in:\n{help}");
    }
}
