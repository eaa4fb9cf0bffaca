//! Witnesses in tests: programs written and lowered, analyses under short limits, the witness
//! of a definite verdict as Baton writes it, its schema check and its validation.
#![allow(dead_code)] // each test binary uses part of it

use baton::analyses::{run_analysis, AnalysisKind, AnalysisOptions, AnalysisOutcome};
use baton::cfa::Program;
use baton::cpa::monitor::GiveUp;
use baton::frontend::load_program;
use baton::verdict::Verdict;
use baton::witness::correctness::ProofInvariants;
use baton::witness::inductive::CheckLimits;
use baton::witness::validate::{validate_text, Judgement, Validation};
use baton::witness::{write_witness, Evidence, WitnessFormat};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Writes `text` to `dir/name` and lowers it.
pub fn program(dir: &Path, name: &str, text: &str) -> (PathBuf, Program) {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write program");
    let program = load_program(&path, Default::default()).expect("program lowers");
    (path, program)
}

/// Runs `kind` on `program` with `cpu` CPU time and 2 GB.
pub fn analyse(kind: AnalysisKind, program: &Program, cpu: &str) -> AnalysisOutcome {
    let options = AnalysisOptions {
        give_up: vec![
            format!("cpu-time={cpu}").parse::<GiveUp>().expect("give-up"),
            "memory=2GB".parse::<GiveUp>().expect("give-up"),
        ],
        ..Default::default()
    };
    run_analysis(kind, program, &options, None)
}

/// The witness of a definite verdict as Baton writes it, as text.
pub fn witness(program: &Program, outcome: &AnalysisOutcome, file: &Path) -> String {
    let evidence = match outcome.verdict {
        Verdict::False => Evidence::Values(
            outcome
                .counterexample
                .as_ref()
                .expect("counterexample")
                .inputs
                .clone(),
        ),
        Verdict::True => Evidence::Invariants(ProofInvariants {
            loops: outcome.invariants.clone(),
            contracts: outcome.contracts.clone(),
        }),
        Verdict::Unknown => panic!("no definite verdict"),
    };
    write_witness(Some(program), &evidence, file, WitnessFormat::Yaml).expect("witness written");
    std::fs::read_to_string(file).expect("witness readable")
}

/// Checks `text` against the JSON Schema of its format version (2.0, or 2.1 with function
/// contracts); the errors, if any.
pub fn schema_errors(text: &str) -> Vec<String> {
    let file = if text.contains("format_version: '2.1'") {
        "witness-2.1.schema.json"
    } else {
        "witness-2.0.schema.json"
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(file);
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("schema readable"))
            .expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let instance: serde_json::Value = serde_norway::from_str(text).expect("witness is YAML");
    validator
        .iter_errors(&instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// Validates the witness `text` with 30 s for a correctness witness' check.
pub fn validate(program: &Program, text: &str) -> Validation {
    validate_with(program, text, CheckLimits::default().walked_paths)
}

/// Validates the witness `text` with 30 s for a correctness witness' check, regions of at most
/// `walked_paths` paths checked path by path.
pub fn validate_with(program: &Program, text: &str, walked_paths: u64) -> Validation {
    let limits = CheckLimits {
        cpu_time: Duration::from_secs(30),
        walked_paths,
        ..CheckLimits::default()
    };
    validate_text(program, text, "witness.yml", limits).expect("witness readable")
}

/// Each region as one formula, and each path by path.
pub const BOTH_CHECKS: [u64; 2] = [0, u64::MAX];

/// Validates the witness `text` with each region checked as one formula and path by path:
/// both checks must come to the same judgement; that judgement.
pub fn validate_both_ways(program: &Program, text: &str) -> Validation {
    let [formula, paths] = BOTH_CHECKS.map(|walked| validate_with(program, text, walked));
    assert_eq!(
        formula.judgement, paths.judgement,
        "as one formula: {}; path by path: {}",
        formula.reason, paths.reason
    );
    formula
}

/// The witness `text` with `from` replaced by `to` (`from` must be in it) is not confirmed,
/// neither with its regions checked as one formula nor path by path.
pub fn never_confirmed(p: &Program, text: &str, from: &str, to: &str) {
    assert!(text.contains(from), "`{from}` not in the witness:\n{text}");
    let mutated = text.replacen(from, to, 1);
    for walked in BOTH_CHECKS {
        let v = validate_with(p, &mutated, walked);
        assert_ne!(
            v.judgement,
            Judgement::Confirmed,
            "`{from}` → `{to}` confirmed (regions of up to {walked} paths walked): {}",
            v.reason
        );
    }
}
