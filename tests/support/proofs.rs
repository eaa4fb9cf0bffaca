//! Helpers of the incremental re-verification tests (seed 002): the test programs, and
//! `verify --analysis A --json` from and to proofs.
#![allow(dead_code)] // each test binary uses part of it

use super::cli::baton;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A program of `tests/data/incremental`.
pub fn data(name: &str) -> String {
    format!("{}/tests/data/incremental/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A version of the KbFilter development (`benchmarks/incremental/kbfilter`).
pub fn kbfilter(version: &str) -> String {
    format!(
        "{}/benchmarks/incremental/kbfilter/kbfilter_{version}.yml",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// `verify --analysis ANALYSIS --json` with extra arguments; the parsed result.
pub fn verify(analysis: &str, program: &str, extra: &[&str]) -> Value {
    let mut args = vec!["verify", program, "--analysis", analysis, "--json"];
    args.extend(extra);
    let (code, out, err) = baton(&args);
    assert_eq!(code, 0, "baton {args:?} failed: {err}");
    serde_json::from_str(&out).expect("JSON result")
}

/// Verifies `program` from scratch and writes its proof to `dir/name.proof`.
pub fn proof_of(analysis: &str, program: &str, dir: &Path, name: &str) -> (Value, PathBuf) {
    let path = dir.join(format!("{name}.proof"));
    let result = verify(
        analysis,
        program,
        &["--proof-out", path.to_str().expect("utf-8 path")],
    );
    (result, path)
}

/// A count of the result's `incremental` statistics.
pub fn reuse(result: &Value, key: &str) -> u64 {
    result["incremental"][key]
        .as_u64()
        .expect("incremental statistics")
}

/// A version of the tank controller's development (`benchmarks/incremental/tank`).
pub fn tank(version: &str) -> String {
    format!(
        "{}/benchmarks/incremental/tank/tank_{version}.yml",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A `false` run on a previous proof, or one the budget cuts on a `true` proof, leaves that
/// proof for the next version (`versions`: a correct version, the next one with a bug and
/// its fix; the first one's proof is carried over the bug to the fix), and the carried proof
/// hides no bug: the buggy version verified from it is `false` again, replayed.
pub fn false_or_cut_run_keeps_the_previous_proof(analysis: &str, versions: [&str; 3]) {
    let [before, bug, fixed] = versions;
    let dir = tempfile::tempdir().expect("temp dir");
    let (scratch, first) = proof_of(analysis, before, dir.path(), "before");
    assert_eq!(scratch["verdict"], "true", "{scratch}");
    let carried = dir.path().join("bug.proof");
    let path = |p: &Path| p.to_str().expect("utf-8").to_string();
    let replayed = |result: &Value| {
        result["counterexample"]["replay"]
            .as_str()
            .is_some_and(|r| r.contains("reach_error"))
    };
    let found = verify(
        analysis,
        bug,
        &["--proof-in", &path(&first), "--proof-out", &path(&carried)],
    );
    assert_eq!(found["verdict"], "false(unreach-call)", "{found}");
    assert!(replayed(&found), "{found}");
    let read = |p: &Path| std::fs::read(p).expect("proof");
    assert!(
        read(&carried) == read(&first),
        "the buggy version left its own proof"
    );
    let again = verify(analysis, bug, &["--proof-in", &path(&carried)]);
    assert_eq!(again["verdict"], "false(unreach-call)", "{again}");
    assert!(replayed(&again), "{again}");
    let result = verify(analysis, fixed, &["--proof-in", &path(&carried)]);
    assert_eq!(result["verdict"], "true", "{result}");
    assert!(reuse(&result, "reused_nodes") > 0, "{result}");
    // A run the budget cuts leaves the complete proof it started from, too; the bug is
    // found from it again.
    let cut_proof = dir.path().join("cut.proof");
    let cut = verify(
        analysis,
        fixed,
        &[
            "--proof-in",
            &path(&carried),
            "--proof-out",
            &path(&cut_proof),
            "--give-up",
            "reached-states=2",
        ],
    );
    assert_eq!(cut["verdict"], "unknown", "{cut}");
    assert!(read(&cut_proof) == read(&first), "the cut run left its own proof");
    let again = verify(analysis, bug, &["--proof-in", &path(&cut_proof)]);
    assert_eq!(again["verdict"], "false(unreach-call)", "{again}");
    assert!(replayed(&again), "{again}");
}
