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
