//! `baton exec` end to end.

#[path = "support/cli.rs"]
mod cli;
use cli::baton;

const PROGRAM: &str = "extern int __VERIFIER_nondet_int(void);\n\
void reach_error(void);\n\
extern void abort(void);\n\
int f(int a) {\n\
  return a * 2;\n\
}\n\
int main(void) {\n\
  int x = __VERIFIER_nondet_int();\n\
  int y = f(x);\n\
  if (y == 14) reach_error();\n\
  if (y == 2) abort();\n\
  while (y < 0) { }\n\
  return y;\n\
}\n";

#[test]
fn exec_prints_endings_and_inputs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("p.c");
    std::fs::write(&file, PROGRAM).expect("write");
    let path = file.to_str().expect("utf-8 path");

    let (code, out, _) = baton(&["exec", path, "--inputs", "7"]);
    assert_eq!(code, 0);
    assert!(out.contains("error: reach_error() reached at line 10"), "{out}");
    assert!(out.contains("1 of 1 inputs consumed"), "{out}");

    let (code, out, _) = baton(&["exec", path, "--inputs", "1,5"]);
    assert_eq!(code, 0);
    assert!(out.contains("aborted at line 11"), "{out}");
    assert!(out.contains("1 of 2 inputs consumed"), "{out}");

    let (code, out, _) = baton(&["exec", path, "--inputs", "-3", "--max-steps", "1000"]);
    assert_eq!(code, 0);
    assert!(out.contains("step limit 1000 reached"), "{out}");

    let (code, out, _) = baton(&["exec", path, "--data-model", "LP64"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("returned 0\n"), "{out}");
    assert!(out.contains("0 of 0 inputs consumed"), "{out}");

    let (code, out, _) = baton(&["exec", path, "--inputs", "4", "--trace"]);
    assert_eq!(code, 0);
    assert!(out.contains("return from f  [main::y = 8]"), "{out}");
    assert!(out.contains("line 5: return"), "{out}");
    assert!(out.contains("returned 8"), "{out}");
}

#[test]
fn exec_reports_load_errors_with_status_2() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("missing.c");
    let (code, _, err) = baton(&["exec", missing.to_str().expect("utf-8")]);
    assert_eq!(code, 2);
    assert!(err.contains("missing.c"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

/// `exec` and `cfa` take a task definition as the other commands do, in the task's data model.
#[test]
fn exec_and_cfa_read_task_definitions_in_their_data_model() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("long.c"),
        "void reach_error(void);\nint main(void) {\n  if (sizeof(long) == 8) reach_error();\n  return 0;\n}\n",
    )
    .expect("write");
    let task = |model: &str| {
        let file = dir.path().join(format!("long-{model}.yml"));
        std::fs::write(
            &file,
            format!(
                "format_version: '2.0'\ninput_files: 'long.c'\nproperties: []\noptions:\n  language: C\n  data_model: {model}\n"
            ),
        )
        .expect("write");
        file.to_str().expect("utf-8 path").to_string()
    };
    let (lp64, ilp32) = (task("LP64"), task("ILP32"));
    let (code, out, err) = baton(&["exec", &lp64]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("reach_error() reached at line 3"), "{out}");
    let (code, out, err) = baton(&["exec", &ilp32]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("reach_error"), "{out}");
    // `--data-model` overrides the task's.
    let (_, out, _) = baton(&["exec", &ilp32, "--data-model", "LP64"]);
    assert!(out.contains("reach_error() reached at line 3"), "{out}");
    let (code, out, err) = baton(&["cfa", &lp64]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("main"), "{out}");
}
