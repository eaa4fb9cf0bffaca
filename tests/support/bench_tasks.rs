//! Small tasks of our own for the batch-mode tests: programs, task definitions, the property
//! file, and running the `baton` binary in a folder.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Safe: `reach_error` is dead.
pub const SAFE: &str = "extern void reach_error(void);\nextern int __VERIFIER_nondet_int(void);\nint main() { int x = __VERIFIER_nondet_int(); int y = 0; if (x > 0) y = 1; else y = 2; if (y == 0) reach_error(); return 0; }\n";
/// Unsafe for the input 42.
pub const BUGGY: &str = "extern void reach_error(void);\nextern int __VERIFIER_nondet_int(void);\nint main() { int x = __VERIFIER_nondet_int(); if (x == 42) reach_error(); return 0; }\n";
/// Safe, but the explicit analysis unrolls the counter without end.
pub const ENDLESS: &str = "extern void reach_error(void);\nint main() { unsigned int i = 0; while (1) { i = i + 1; if (i == 0) { i = 1; } } return 0; }\n";

/// `bench` arguments: the safe and the buggy task under the explicit analysis.
pub const EXPLICIT_ON_SAFE_AND_BUGGY: [&str; 6] = [
    "bench",
    "--tasks",
    "safe.yml",
    "buggy.yml",
    "--run",
    "explicit=verify --analysis explicit",
];

/// Writes task definition `NAME.yml` for `program` with the expected verdict of unreach-call.
pub fn task(dir: &Path, name: &str, program: &str, expected: bool) -> PathBuf {
    let yml = dir.join(format!("{name}.yml"));
    std::fs::write(
        &yml,
        format!("format_version: '2.0'\ninput_files: '{program}'\nproperties:\n  - property_file: properties/unreach-call.prp\n    expected_verdict: {expected}\noptions:\n  language: C\n  data_model: ILP32\n"),
    )
    .unwrap();
    yml
}

/// The text of SV-COMP's `unreach-call.prp`.
pub const UNREACH_CALL: &str = "CHECK( init(main()), LTL(G ! call(reach_error())) )\n";

/// Writes safe, buggy, mislabeled (buggy program said to be safe) and endless tasks, and the
/// property file `properties/unreach-call.prp` they name.
pub fn tasks(dir: &Path) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir.join("properties")).unwrap();
    std::fs::write(dir.join("properties/unreach-call.prp"), UNREACH_CALL).unwrap();
    std::fs::write(dir.join("safe.c"), SAFE).unwrap();
    std::fs::write(dir.join("buggy.c"), BUGGY).unwrap();
    std::fs::write(dir.join("endless.c"), ENDLESS).unwrap();
    vec![
        task(dir, "safe", "safe.c", true),
        task(dir, "buggy", "buggy.c", false),
        task(dir, "mislabeled", "buggy.c", true),
        task(dir, "endless", "endless.c", true),
    ]
}

/// A temporary folder with [`tasks`] and the benchmark definition `def.xml`.
pub fn tasks_and_definition(xml: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    tasks(dir.path());
    std::fs::write(dir.path().join("def.xml"), xml).unwrap();
    dir
}

/// Runs `baton ARGS` in `cwd`.
pub fn baton(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

/// Bytes as text (lossy).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
