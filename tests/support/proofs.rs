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

/// The result carries a replayed counterexample that reaches the error.
pub fn replayed(result: &Value) -> bool {
    result["counterexample"]["replay"]
        .as_str()
        .is_some_and(|r| r.contains("reach_error"))
}

/// The whole KbFilter development, each version from the proof the one before left: the
/// verdicts are those from scratch, never wrong, every `false` replayed.
pub fn kbfilter_development_keeps_the_verdicts(analysis: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut previous: Option<PathBuf> = None;
    for version in ["v1", "v2", "v2_fixed", "v3", "v4", "v4_fixed"] {
        let scratch = verify(analysis, &kbfilter(version), &[]);
        let proof = dir.path().join(format!("{version}.proof"));
        let mut args = vec!["--proof-out", proof.to_str().expect("utf-8")];
        if let Some(p) = &previous {
            args.extend(["--proof-in", p.to_str().expect("utf-8")]);
        }
        let result = verify(analysis, &kbfilter(version), &args);
        assert_eq!(result["verdict"], scratch["verdict"], "{version}: {result}");
        assert_ne!(result["classification"], "Wrong", "{version}: {result}");
        if result["verdict"] == "false(unreach-call)" {
            assert!(replayed(&result), "{version}: {result}");
        }
        previous = Some(proof);
    }
}

/// The bug of a shared variant pair (`kbfiltr_simpl2` -1 then -2, under `root`) found from
/// the correct version's proof, replayed, with part of the proof reused.
pub fn shared_variant_pair_finds_the_bug(analysis: &str, root: &Path) {
    let dir = tempfile::tempdir().expect("temp dir");
    let task = |name: &str| {
        root.join("c/ntdrivers-simplified")
            .join(name)
            .to_string_lossy()
            .into_owned()
    };
    let (scratch, proof) = proof_of(
        analysis,
        &task("kbfiltr_simpl2.cil-1.yml"),
        dir.path(),
        "simpl2-1",
    );
    assert_eq!(scratch["verdict"], "true");
    let result = verify(
        analysis,
        &task("kbfiltr_simpl2.cil-2.yml"),
        &["--proof-in", proof.to_str().expect("utf-8")],
    );
    assert_eq!(result["verdict"], "false(unreach-call)", "{result}");
    assert!(replayed(&result), "{result}");
    assert!(reuse(&result, "reused_nodes") > 0, "{result}");
}

/// A flow stage of `analysis` with `proof-in` and `proof-out` the same file: from scratch
/// while there is no proof (`correct` is true), from the proof it left on the same program
/// again, and the bug of `buggy` found from it, confirmed.
pub fn flow_stage_continues_from_the_previous_proof(analysis: &str, correct: &str, buggy: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let proof = dir.path().join("previous.proof");
    let flow = dir.path().join("incremental.yaml");
    let text = format!(
        "flow: incremental\nstages:\n  - name: {analysis}\n    tool: {analysis}\n    input: identity\n    options: {{ proof-in: {p}, proof-out: {p} }}\n",
        p = proof.display()
    );
    std::fs::write(&flow, text).expect("flow");
    let flow = flow.to_str().expect("utf-8");
    let run = |program: &str| {
        let (code, out, err) = baton(&["run", flow, program, "--json"]);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<Value>(&out).expect("JSON report")
    };
    assert_eq!(run(correct)["verdict"], "true");
    assert!(proof.exists());
    let again = run(correct);
    assert_eq!(again["verdict"], "true");
    let note = again["stages"][0]["note"].as_str().expect("note");
    assert!(note.contains("states explored anew"), "{note}");
    let report = run(buggy);
    assert_eq!(report["verdict"], "false(unreach-call)", "{report}");
    assert_eq!(report["confirmed"], true, "{report}");
}
