//! Incremental re-verification from a previous version's proof (seed 002, issue 14):
//! `baton verify --analysis predicate --proof-out/--proof-in`.

#[path = "support/cli.rs"]
mod cli;
#[path = "support/proofs.rs"]
mod proofs;
#[path = "support/shared.rs"]
mod shared;

use cli::baton;
use proofs::{data, kbfilter, reuse};
use serde_json::Value;
use std::path::{Path, PathBuf};

const ANALYSIS: &str = "predicate";

fn verify(program: &str, extra: &[&str]) -> Value {
    proofs::verify(ANALYSIS, program, extra)
}

fn proof_of(program: &str, dir: &Path, name: &str) -> (Value, PathBuf) {
    proofs::proof_of(ANALYSIS, program, dir, name)
}

#[test]
fn unchanged_program_explores_no_new_state() {
    let dir = tempfile::tempdir().expect("temp dir");
    for version in ["v3", "v4"] {
        let (scratch, proof) = proof_of(&kbfilter(version), dir.path(), version);
        let again = verify(
            &kbfilter(version),
            &["--proof-in", proof.to_str().expect("utf-8")],
        );
        assert_eq!(again["verdict"], scratch["verdict"], "{version}");
        assert_eq!(reuse(&again, "new_states"), 0, "{version}: {again}");
        assert_eq!(reuse(&again, "frontier"), 0, "{version}");
        if version == "v3" {
            assert_eq!(
                reuse(&again, "reused_nodes"),
                reuse(&again, "old_nodes"),
                "{version}"
            );
        }
    }
}

/// Verifies `version` of Example from Example's proof: it must keep the whole proof, true,
/// with at most `new_states` states explored anew.
fn keeps_examples_proof(version: &str, new_states: u64) {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, proof) = proof_of(&data("example.c"), dir.path(), "example");
    let result = verify(&data(version), &["--proof-in", proof.to_str().expect("utf-8")]);
    assert_eq!(result["verdict"], "true");
    assert_eq!(
        reuse(&result, "reused_nodes"),
        reuse(&result, "old_nodes"),
        "{result}"
    );
    assert_eq!(reuse(&result, "frontier"), 0, "{result}");
    assert!(reuse(&result, "new_states") <= new_states, "{result}");
}

#[test]
fn change_that_touches_no_predicate_keeps_the_proof() {
    // Seed 002's Example1: a counter and a data buffer added to Example; only the added
    // statements are new states.
    keeps_examples_proof("example1.c", 3);
}

#[test]
fn renamed_local_keeps_the_proof() {
    // `Example` with `main`'s local `b` renamed: locals are matched by position.
    keeps_examples_proof("example_renamed.c", 0);
}

#[test]
fn proof_is_met_again_behind_a_changed_branch() {
    // A branch put in front of an old one at the start of `ioOperation` (`if (new) … else if
    // (old)`, a changed line of the diff), passed by every loop iteration: the states behind
    // it follow the old proof again (12 of 34 old nodes and 28 new states before).
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, proof) = proof_of(&data("example.c"), dir.path(), "example");
    let proof_in = ["--proof-in", proof.to_str().expect("utf-8")];
    let result = verify(&data("example_front.c"), &proof_in);
    assert_eq!(result["verdict"], "true", "{result}");
    assert!(
        reuse(&result, "reused_nodes") + 1 >= reuse(&result, "old_nodes"),
        "{result}"
    );
    assert!(reuse(&result, "new_states") <= 8, "{result}");
    // The same change with a bug in the new branch: the proof met again behind it hides
    // nothing.
    let result = verify(&data("example_front_bug.c"), &proof_in);
    assert_eq!(result["verdict"], "false(unreach-call)", "{result}");
    assert!(proofs::replayed(&result), "{result}");
}

#[test]
fn breaking_change_reexplores_from_the_frontier_and_finds_the_bug() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (scratch, proof) = proof_of(&kbfilter("v3"), dir.path(), "v3");
    assert_eq!(scratch["verdict"], "true");
    // The fourth KbFilter step: REMOVE_DEVICE returns STATUS_SUCCESS whatever happened.
    let result = verify(&kbfilter("v4"), &["--proof-in", proof.to_str().expect("utf-8")]);
    assert_eq!(result["verdict"], "false(unreach-call)", "{result}");
    assert_eq!(result["classification"], "Correct");
    let replay = result["counterexample"]["replay"]
        .as_str()
        .expect("replayed counterexample");
    assert!(replay.contains("reach_error"), "{replay}");
    assert!(reuse(&result, "frontier") > 0, "{result}");
    assert!(reuse(&result, "reused_nodes") > 0, "{result}");
    // The bug of seed 002's Example, found from Example's proof.
    let (_, proof) = proof_of(&data("example.c"), dir.path(), "example");
    let result = verify(
        &data("example_bug.c"),
        &["--proof-in", proof.to_str().expect("utf-8")],
    );
    assert_eq!(result["verdict"], "false(unreach-call)", "{result}");
    assert!(result["counterexample"]["replay"]
        .as_str()
        .is_some_and(|r| r.contains("reach_error")));
}

#[test]
fn whole_kbfilter_development_keeps_the_verdicts() {
    proofs::kbfilter_development_keeps_the_verdicts(ANALYSIS);
}
#[test]
fn proof_of_another_program_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, proof) = proof_of(&data("example.c"), dir.path(), "example");
    let proof = proof.to_str().expect("utf-8");
    let (code, _, err) = baton(&[
        "verify",
        &kbfilter("v1"),
        "--analysis",
        "predicate",
        "--proof-in",
        proof,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("a proof of another program") && err.contains(proof),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn malformed_proof_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, good) = proof_of(&data("example.c"), dir.path(), "example");
    let text = std::fs::read_to_string(&good).expect("proof");
    let mut value: Value = serde_json::from_str(&text).expect("proof is JSON");
    value["nodes"][1]["location"] = Value::from(100_000);
    let mut other_version = serde_json::from_str::<Value>(&text).expect("proof is JSON");
    other_version["version"] = Value::from(99);
    let cases = [
        ("garbage", "this is not json".to_string(), "not a Baton proof"),
        (
            "truncated",
            text[..text.len() / 2].to_string(),
            "not a Baton proof",
        ),
        (
            "wrong-format",
            "{\"format\": \"graphml\"}".to_string(),
            "is not `baton-proof`",
        ),
        ("version", other_version.to_string(), "version 99"),
        ("bad-id", value.to_string(), "node 1 refers to a missing location"),
    ];
    for (name, content, expected) in cases {
        let path = dir.path().join(format!("{name}.proof"));
        std::fs::write(&path, content).expect("write");
        let path = path.to_str().expect("utf-8");
        let (code, _, err) = baton(&[
            "verify",
            &data("example.c"),
            "--analysis",
            "predicate",
            "--proof-in",
            path,
        ]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(path) && err.contains(expected), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    let (code, _, err) = baton(&[
        "verify",
        &data("example.c"),
        "--proof-in",
        good.to_str().expect("utf-8"),
    ]);
    assert_eq!(
        code, 2,
        "a predicate proof is refused by the explicit analysis: {err}"
    );
    assert!(err.contains("a proof of the predicate analysis"), "{err}");
}

#[test]
fn shared_variant_pair_finds_the_bug_from_the_correct_version() {
    if let Some(root) = shared::benchmarks() {
        proofs::shared_variant_pair_finds_the_bug(ANALYSIS, &root);
    }
}
#[test]
fn flow_stage_continues_from_the_previous_proof() {
    proofs::flow_stage_continues_from_the_previous_proof(ANALYSIS, &kbfilter("v3"), &kbfilter("v4"));
}
/// `bench --sequences`: results of `bench` in `dir/out` (the lines of `results.jsonl`).
fn bench_sequences(dir: &Path, sequences: &Path) -> Vec<Value> {
    let out = dir.join("out");
    let (code, stdout, err) = baton(&[
        "bench",
        "--sequences",
        sequences.to_str().expect("utf-8"),
        "--run",
        "p=verify --analysis predicate --give-up cpu-time=60s",
        "--output-dir",
        out.to_str().expect("utf-8"),
        "--jobs",
        "1",
    ]);
    assert_eq!(code, 0, "{stdout}{err}");
    let jsonl = std::fs::read_to_string(out.join("results.jsonl")).expect("results.jsonl");
    jsonl
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

#[test]
fn bench_runs_a_sequence_from_scratch_and_incrementally() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sequences = dir.path().join("sequences.yaml");
    let kb = format!("{}/benchmarks/incremental/kbfilter", env!("CARGO_MANIFEST_DIR"));
    std::fs::write(
        &sequences,
        format!("sequences:\n  - name: kb\n    versions: [{kb}/kbfilter_v3.yml, {kb}/kbfilter_v4.yml]\n"),
    )
    .expect("write");
    let results = bench_sequences(dir.path(), &sequences);
    let run = |rd: &str, version: &str| -> &Value {
        results
            .iter()
            .find(|r| r["run_definition"] == rd && r["task"].as_str().is_some_and(|t| t.ends_with(version)))
            .unwrap_or_else(|| panic!("no {rd} run on {version}: {results:?}"))
    };
    assert_eq!(results.len(), 4, "{results:?}");
    for rd in ["p", "p.incremental"] {
        assert_eq!(run(rd, "kbfilter_v3.yml")["verdict"], "true");
        assert_eq!(run(rd, "kbfilter_v4.yml")["verdict"], "false(unreach-call)");
        assert_eq!(run(rd, "kbfilter_v4.yml")["sequence"]["index"], 1);
        assert!(run(rd, "kbfilter_v4.yml")["reached_states"].as_u64() > Some(0));
    }
    // The first version leaves a proof, the second starts from it.
    let first = run("p.incremental", "kbfilter_v3.yml");
    assert!(first["incremental"].is_null(), "{first}");
    let second = run("p.incremental", "kbfilter_v4.yml");
    let args: Vec<&str> = second["args"]
        .as_array()
        .expect("args")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        args.windows(2)
            .any(|w| w[0] == "--proof-in" && w[1].ends_with("kb/0.proof")),
        "{args:?}"
    );
    assert!(reuse(second, "reused_nodes") > 0, "{second}");
    assert!(run("p", "kbfilter_v4.yml")["incremental"].is_null());
    // Both run sets are result files `table` compares.
    let (code, table, err) = baton(&["table", dir.path().join("out").to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    assert!(table.contains("p.incremental"), "{table}");
    // A rerun resumes every run, the incremental ones too (their proofs are there).
    let again = bench_sequences(dir.path(), &sequences);
    assert_eq!(again.len(), 4, "nothing performed again: {again:?}");
    // Without its proof, the second incremental run is performed again, the first too.
    std::fs::remove_file(dir.path().join("out/proofs/p.incremental/kb/0.proof")).expect("proof");
    let again = bench_sequences(dir.path(), &sequences);
    assert_eq!(again.len(), 6, "{again:?}");
}

#[test]
fn sequences_with_a_task_twice_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sequences = dir.path().join("sequences.yaml");
    let v1 = kbfilter("v1");
    std::fs::write(
        &sequences,
        format!("sequences:\n  - name: a\n    versions: [{v1}]\n  - name: b\n    versions:\n      - {v1}\n"),
    )
    .expect("write");
    let (code, _, err) = baton(&[
        "bench",
        "--sequences",
        sequences.to_str().expect("utf-8"),
        "--run",
        "p=verify --analysis predicate",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("sequences.yaml:6:") && err.contains("sequence `a`"),
        "{err}"
    );
}

#[test]
fn false_or_cut_run_keeps_the_previous_proof() {
    proofs::false_or_cut_run_keeps_the_previous_proof(
        ANALYSIS,
        [&kbfilter("v3"), &kbfilter("v4"), &kbfilter("v4_fixed")],
    );
}
