//! Flows never die on a program Baton's frontend cannot lower: the stages that need Baton's CFA
//! are skipped with status `unsupported` and the frontend's reason, the CBMC stage runs on the
//! original program and its verdict is reported (a `false` unconfirmed, since Baton cannot
//! replay it). Own programs with constructs that stay unsupported (threads, inline assembly),
//! and a sample of the development set (rows `D` of MANIFEST.csv, when BATON_SV_BENCHMARKS is
//! set). Zero wrong verdicts.

#[path = "support/tools.rs"]
mod tools;
use std::path::Path;
use std::process::Command;
use tools::cbmc_installed;

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .display()
        .to_string()
}

/// `baton run FLOW INPUT --json` with CBMC's unwinding lowered to `unwind`; exit 0 required.
fn run(flow: &str, input: &str, unwind: u32, dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(repo(flow)).expect("flow");
    let text = regex::Regex::new(r"unwind: \d+")
        .expect("regex")
        .replace_all(&text, format!("unwind: {unwind}").as_str())
        .replace("budget: { cpu_time: 900s", "budget: { cpu_time: 120s");
    let flow_file = dir.join(Path::new(flow).file_name().expect("name"));
    std::fs::write(&flow_file, text).expect("write flow");
    let out = Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(["run", &flow_file.display().to_string(), input, "--json"])
        .output()
        .expect("baton runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{flow} on {input}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// The verdict is not wrong; the CBMC stage ran; every native stage was skipped with a reason.
fn check(r: &serde_json::Value, expected: Option<bool>, what: &str) {
    let verdict = r["verdict"].as_str().unwrap_or("");
    match (expected, verdict) {
        (Some(true), v) => assert!(v == "true" || v == "unknown", "{what}: wrong {v}: {r}"),
        (Some(false), v) => assert!(v.starts_with("false") || v == "unknown", "{what}: wrong {v}: {r}"),
        (None, _) => {}
    }
    let stages = r["stages"].as_array().expect("stages");
    let cbmc = stages.iter().find(|s| s["tool"] == "cbmc").expect("a cbmc stage");
    assert_ne!(cbmc["status"], "unsupported", "{what}: {r}");
    assert_ne!(cbmc["status"], "not run", "{what}: {r}");
    if r["unsupported"].is_string() {
        for s in stages
            .iter()
            .filter(|s| s["tool"] == "explicit" || s["tool"] == "predicate")
        {
            assert_eq!(s["status"], "unsupported", "{what}: {r}");
            assert!(
                s["note"].as_str().unwrap_or("").contains("unsupported"),
                "{what}: {r}"
            );
        }
        if verdict.starts_with("false") {
            assert_eq!(r["confirmed"], false, "{what}: {r}");
        }
    }
}

#[test]
fn own_programs_with_threads_and_inline_assembly() {
    if !cbmc_installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    for (program, expected) in [
        ("threads_safe.c", true),
        ("threads_unsafe.c", false),
        ("asm_safe.c", true),
        ("asm_unsafe.c", false),
    ] {
        let input = repo(&format!("benchmarks/programs/{program}"));
        for flow in ["configs/predicate-then-cbmc.yaml", "configs/comb-b.yaml"] {
            let r = run(flow, &input, 2, dir.path());
            assert!(r["unsupported"].is_string(), "{program} is lowered now: {r}");
            check(&r, Some(expected), &format!("{flow} on {program}"));
            // These programs have no loops: CBMC decides them.
            let want = if expected { "true" } else { "false(unreach-call)" };
            assert_eq!(r["verdict"], want, "{flow} on {program}: {r}");
        }
        let r = run("configs/predicate-then-cbmc.yaml", &input, 2, dir.path());
        assert_eq!(r["skipped_stages"], serde_json::json!(["predicate"]), "{r}");
    }
    // A preprocessed `.i` file (which goto-cc does not preprocess again) calling the old error
    // function `__VERIFIER_error`, with floats Baton rejects: CBMC must find the error call, not
    // mistake it for an assertion of `main`.
    let i_file = dir.path().join("float_error.i");
    std::fs::write(
        &i_file,
        "extern void __VERIFIER_error(void);\nextern float __VERIFIER_nondet_float(void);\nint main() {\n  float x = __VERIFIER_nondet_float();\n  if (x > 1.0f && x < 2.0f) __VERIFIER_error();\n  return 0;\n}\n",
    )
    .expect("write");
    let r = run(
        "configs/comb-b.yaml",
        &i_file.display().to_string(),
        1,
        dir.path(),
    );
    assert_eq!(r["verdict"], "false(unreach-call)", "{r}");
}

#[test]
fn development_set_sample() {
    let Some(root) = std::env::var_os("BATON_SV_BENCHMARKS") else {
        eprintln!("skipping: BATON_SV_BENCHMARKS is not set");
        return;
    };
    if !cbmc_installed() {
        return;
    }
    let root = Path::new(&root);
    let manifest = std::fs::read_to_string(root.join("MANIFEST.csv")).expect("MANIFEST.csv");
    let tasks: Vec<(String, bool)> = manifest
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f.first() == Some(&"D")).then(|| (f[2].to_string(), f[3] == "true"))
        })
        .collect();
    assert_eq!(tasks.len(), 50, "development set size");
    let dir = tempfile::tempdir().expect("tempdir");
    // Every tenth task keeps the test short; the whole set is measured by
    // scripts/measure-unsupported.sh.
    for (task, expected) in tasks.iter().step_by(10) {
        let input = root.join(task).display().to_string();
        let r = run("configs/comb-b.yaml", &input, 1, dir.path());
        check(&r, Some(*expected), task);
        assert_eq!(r["expected"].as_bool(), Some(*expected), "{task}: {r}");
    }
}
