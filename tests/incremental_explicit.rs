//! Incremental re-verification with the explicit-value analysis (seed 002 adapted to values,
//! issue 14): `baton verify --analysis explicit --proof-out/--proof-in`, as a flow stage and in
//! `bench --sequences`.

#[path = "support/cli.rs"]
mod cli;
#[path = "support/proofs.rs"]
mod proofs;
#[path = "support/shared.rs"]
mod shared;

use cli::baton;
use proofs::{data, kbfilter, replayed, reuse, tank};
use serde_json::Value;
use std::path::{Path, PathBuf};

const ANALYSIS: &str = "explicit";

fn verify(program: &str, extra: &[&str]) -> Value {
    proofs::verify(ANALYSIS, program, extra)
}

fn proof_of(program: &str, dir: &Path, name: &str) -> (Value, PathBuf) {
    proofs::proof_of(ANALYSIS, program, dir, name)
}

#[test]
fn unchanged_program_explores_no_new_state() {
    let dir = tempfile::tempdir().expect("temp dir");
    let example = data("example.c");
    let v4 = kbfilter("v4");
    for (name, program) in [("example", &example), ("v4", &v4)] {
        let (scratch, proof) = proof_of(program, dir.path(), name);
        let text = std::fs::read_to_string(&proof).expect("proof");
        let document: Value = serde_json::from_str(&text).expect("JSON proof");
        assert_eq!(document["analysis"], "explicit");
        let again = verify(program, &["--proof-in", proof.to_str().expect("utf-8")]);
        assert_eq!(again["verdict"], scratch["verdict"], "{name}");
        assert_eq!(
            again["reached_states"], scratch["reached_states"],
            "{name}: {again}"
        );
        if name == "example" {
            assert_eq!(again["verdict"], "true");
            assert_eq!(reuse(&again, "new_states"), 0, "{again}");
            assert_eq!(
                reuse(&again, "reused_nodes"),
                reuse(&again, "old_nodes"),
                "{again}"
            );
        } else {
            // The old proof's only unexplored node is the target: it is reached again.
            assert_eq!(again["verdict"], "false(unreach-call)");
            assert!(replayed(&again), "{again}");
            assert!(reuse(&again, "new_states") <= 2, "{again}");
        }
    }
}

#[test]
fn change_outside_the_tracked_values_keeps_the_proof() {
    // A new global flag set in `ioOperation` (its value passes through the reused part), a
    // dead local added there (its value is dropped, so the state after it is the old one
    // again) and a statement changed behind a branch the proof shows infeasible.
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, proof) = proof_of(&data("example.c"), dir.path(), "example");
    let result = verify(
        &data("example_untracked.c"),
        &["--proof-in", proof.to_str().expect("utf-8")],
    );
    assert_eq!(result["verdict"], "true", "{result}");
    assert_eq!(
        reuse(&result, "reused_nodes"),
        reuse(&result, "old_nodes"),
        "{result}"
    );
    assert!(reuse(&result, "new_states") <= 4, "{result}");
}

#[test]
fn breaking_change_reexplores_from_the_frontier_and_finds_the_bug() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (scratch, proof) = proof_of(&data("example.c"), dir.path(), "example");
    assert_eq!(scratch["verdict"], "true");
    let result = verify(
        &data("example_bug.c"),
        &["--proof-in", proof.to_str().expect("utf-8")],
    );
    assert_eq!(result["verdict"], "false(unreach-call)", "{result}");
    assert!(replayed(&result), "{result}");
    assert!(reuse(&result, "frontier") > 0, "{result}");
    assert!(reuse(&result, "reused_nodes") > 0, "{result}");
    // The fourth KbFilter step from the third's proof.
    let (_, proof) = proof_of(&kbfilter("v3"), dir.path(), "v3");
    let result = verify(&kbfilter("v4"), &["--proof-in", proof.to_str().expect("utf-8")]);
    assert_eq!(result["verdict"], "false(unreach-call)", "{result}");
    assert_eq!(result["classification"], "Correct");
    assert!(replayed(&result), "{result}");
    assert!(reuse(&result, "reused_nodes") > 0, "{result}");
}

#[test]
fn same_calls_to_swapped_parameters_are_not_reused() {
    // The calls' operations are the old ones, but the callee's parameters are swapped: the old
    // values after the call are not the new ones, and the bug must be found.
    let dir = tempfile::tempdir().expect("temp dir");
    let (scratch, proof) = proof_of(&data("parameters.c"), dir.path(), "parameters");
    assert_eq!(scratch["verdict"], "true");
    let result = verify(
        &data("parameters_swapped.c"),
        &["--proof-in", proof.to_str().expect("utf-8")],
    );
    assert_eq!(result["verdict"], "false(unreach-call)", "{result}");
    assert!(replayed(&result), "{result}");
}

#[test]
fn whole_kbfilter_development_keeps_the_verdicts() {
    proofs::kbfilter_development_keeps_the_verdicts(ANALYSIS);
}
#[test]
fn proof_of_another_program_or_analysis_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, proof) = proof_of(&data("example.c"), dir.path(), "example");
    let proof = proof.to_str().expect("utf-8");
    let refused = |program: &str, analysis: &str, proof: &str, expected: &str| {
        let (code, _, err) = baton(&["verify", program, "--analysis", analysis, "--proof-in", proof]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(expected) && err.contains(proof), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    };
    refused(&kbfilter("v1"), "explicit", proof, "a proof of another program");
    refused(
        &data("example.c"),
        "predicate",
        proof,
        "a proof of the explicit analysis, not of the predicate analysis",
    );
    let predicate = dir.path().join("predicate.proof");
    let (code, _, err) = baton(&[
        "verify",
        &data("example.c"),
        "--analysis",
        "predicate",
        "--proof-out",
        predicate.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    refused(
        &data("example.c"),
        "explicit",
        predicate.to_str().expect("utf-8"),
        "a proof of the predicate analysis, not of the explicit analysis",
    );
    let (code, _, err) = baton(&[
        "verify",
        &data("example.c"),
        "--analysis",
        "chc",
        "--proof-in",
        proof,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("need --analysis predicate or explicit"), "{err}");
}

#[test]
fn shared_variant_pair_finds_the_bug_from_the_correct_version() {
    if let Some(root) = shared::benchmarks() {
        proofs::shared_variant_pair_finds_the_bug(ANALYSIS, &root);
    }
}
#[test]
fn flow_stage_continues_from_the_previous_proof() {
    proofs::flow_stage_continues_from_the_previous_proof(
        ANALYSIS,
        &data("example.c"),
        &data("example_bug.c"),
    );
}
#[test]
fn bench_runs_a_sequence_incrementally_with_explicit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sequences = dir.path().join("sequences.yaml");
    let (example, bug) = (data("example.c"), data("example_bug.c"));
    // A sequence's versions are task files (or programs) in development order.
    std::fs::write(
        &sequences,
        format!("sequences:\n  - name: ex\n    versions: [{example}, {bug}]\n"),
    )
    .expect("write");
    let out = dir.path().join("out");
    let (code, stdout, err) = baton(&[
        "bench",
        "--sequences",
        sequences.to_str().expect("utf-8"),
        "--run",
        "e=verify --analysis explicit",
        "--output-dir",
        out.to_str().expect("utf-8"),
        "--jobs",
        "1",
    ]);
    assert_eq!(code, 0, "{stdout}{err}");
    let results: Vec<Value> = std::fs::read_to_string(out.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(results.len(), 4, "{results:?}");
    let second = results
        .iter()
        .find(|r| r["run_definition"] == "e.incremental" && r["sequence"]["index"] == 1)
        .expect("incremental run of the second version");
    assert_eq!(second["verdict"], "false(unreach-call)", "{second}");
    assert!(reuse(second, "reused_nodes") > 0, "{second}");
}

#[test]
fn false_or_cut_run_keeps_the_previous_proof() {
    proofs::false_or_cut_run_keeps_the_previous_proof(
        ANALYSIS,
        [&tank("v4"), &tank("v5"), &tank("v5_fixed")],
    );
}
