//! Bad input gets a clear error naming the file (and line), a non-zero exit and never a panic,
//! a crash or a hang: limits out of range, deep nesting, devices and FIFOs, deep YAML and XML,
//! redefinitions, unusable benchmark definitions, names leaving the output directory, and
//! conditions used with another program. Everything runs through the binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const PROGRAM: &str = "extern void reach_error(void);\nextern int __VERIFIER_nondet_int(void);\nint main(void) {\n  int x = __VERIFIER_nondet_int();\n  if (x == 42) reach_error();\n  return 0;\n}\n";

fn baton(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("baton starts")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts a clean failure: exit status 2 (bad input), no panic, and stderr containing every
/// one of `needles`. Returns stderr.
fn fails_cleanly(out: &Output, needles: &[&str]) -> String {
    let err = stderr(out);
    assert!(!err.contains("panicked"), "panic: {err}");
    assert_eq!(
        out.status.code(),
        Some(2),
        "exit status {:?}, stderr: {err}",
        out.status
    );
    for n in needles {
        assert!(err.contains(n), "expected `{n}` in: {err}");
    }
    err
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

fn c_program(body: &str) -> String {
    format!("extern int __VERIFIER_nondet_int(void);\nextern void reach_error(void);\nint main(void) {{\n  int y = __VERIFIER_nondet_int();\n  int x = 0;\n{body}\n  if (x == 7) reach_error();\n  return 0;\n}}\n")
}

#[test]
fn durations_and_sizes_out_of_range_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "p.c", PROGRAM);
    for (give_up, needle) in [
        ("cpu-time=18446744073709551616s", "too large"),
        ("path-time=18446744073709551616s", "too large"),
        ("memory=99999999999999999999GB", "too large"),
        ("cpu-time=0s", "must be positive"),
    ] {
        let out = baton(
            &["verify", "p.c", "--analysis", "explicit", "--give-up", give_up],
            d,
        );
        fails_cleanly(&out, &[needle]);
    }

    let flow = "flow: f\nbudget: { cpu_time: 18446744073709551616s }\nstages:\n  - tool: explicit\n";
    write(d, "huge.yaml", flow);
    let out = baton(&["run", "huge.yaml", "p.c"], d);
    fails_cleanly(&out, &["huge.yaml:2:", "too large"]);
    let zero = "flow: f\nstages:\n  - tool: explicit\n    budget: { memory: 0 }\n";
    write(d, "zero.yaml", zero);
    let out = baton(&["run", "zero.yaml", "p.c"], d);
    fails_cleanly(&out, &["zero.yaml:4:", "must be positive"]);

    let out = baton(
        &[
            "bench",
            "--tasks",
            "p.c",
            "--run",
            "a=verify --analysis explicit",
            "--timelimit",
            "18446744073709551616s",
            "--output-dir",
            "out",
        ],
        d,
    );
    fails_cleanly(&out, &["too large"]);
    assert!(!d.join("out").exists());
}

#[test]
fn deep_nesting_is_handled_or_rejected_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let parens = format!("  x = {}y{};", "(".repeat(5000), ")".repeat(5000));
    let ifs = format!("{}  x = 7;", "  if (y)\n".repeat(3000));
    let blocks = format!("{}x = 7;{}", "{".repeat(20_000), "}".repeat(20_000));
    let sums = format!("  x = {}y;", "y + ".repeat(20_000));
    for (name, body) in [
        ("parens", &parens),
        ("ifs", &ifs),
        ("blocks", &blocks),
        ("sums", &sums),
    ] {
        let file = format!("{name}.c");
        write(d, &file, &c_program(body));
        for args in [
            vec!["cfa", file.as_str()],
            vec![
                "verify",
                file.as_str(),
                "--analysis",
                "explicit",
                "--give-up",
                "cpu-time=5s",
            ],
            vec![
                "verify",
                file.as_str(),
                "--analysis",
                "predicate",
                "--give-up",
                "cpu-time=5s",
            ],
        ] {
            let out = baton(&args, d);
            let err = stderr(&out);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{name} {args:?}: {:?} {err}",
                out.status
            );
        }
    }
    let too_deep = format!("  x = {}y{};", "(".repeat(60_000), ")".repeat(60_000));
    write(d, "too_deep.c", &c_program(&too_deep));
    let out = baton(&["cfa", "too_deep.c"], d);
    fails_cleanly(&out, &["too_deep.c:6: unsupported: nesting deeper than"]);
    let unbraced = format!("{}  x = 7;", "  if (y)\n".repeat(60_000));
    write(d, "too_deep_ifs.c", &c_program(&unbraced));
    let out = baton(&["cfa", "too_deep_ifs.c"], d);
    fails_cleanly(&out, &["too_deep_ifs.c:", "unsupported: nesting deeper than"]);
}

#[test]
fn devices_fifos_and_directories_are_not_programs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "zero.c",
        "#include \"/dev/zero\"\nint main(void) { return 0; }\n",
    );
    let out = baton(&["cfa", "zero.c"], d);
    fails_cleanly(&out, &["zero.c: preprocessor failed"]);

    let fifo = d.join("fifo.c");
    mkfifo(&fifo);
    let out = baton(&["cfa", "fifo.c"], d);
    fails_cleanly(&out, &["fifo.c: cannot read: not a regular file"]);
    let out = baton(&["verify", "fifo.c", "--analysis", "explicit"], d);
    fails_cleanly(&out, &["fifo.c", "not a regular file"]);
    // `cfa` takes a program or a task, as `verify` does: neither of these is one.
    let out = baton(&["cfa", "/dev/zero"], d);
    fails_cleanly(&out, &["/dev/zero: not a task"]);
    let out = baton(&["cfa", "."], d);
    fails_cleanly(&out, &[".: not a task"]);

    write(d, "p.c", PROGRAM);
    let fifo_flow = d.join("flow.yaml");
    mkfifo(&fifo_flow);
    let out = baton(&["run", "flow.yaml", "p.c"], d);
    fails_cleanly(&out, &["flow.yaml", "not a regular file"]);
    write(d, "notes.txt", PROGRAM);
    let out = baton(&["verify", "notes.txt", "--analysis", "explicit"], d);
    fails_cleanly(&out, &["notes.txt: not a task"]);
}

#[test]
fn deep_yaml_and_xml_are_rejected_before_parsing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "p.c", PROGRAM);
    // About 200 KB of flow nesting: the YAML parser alone would take minutes.
    let flow = format!(
        "flow: f\nstages: {}{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    write(d, "deep.yaml", &flow);
    let out = baton(&["run", "deep.yaml", "p.c"], d);
    fails_cleanly(&out, &["deep.yaml:2: YAML nested deeper than"]);
    let indented: String = (0..200).map(|i| format!("{}k{i}:\n", " ".repeat(i))).collect();
    write(
        d,
        "deep.yml",
        &format!("format_version: '2.0'\ninput_files: 'p.c'\n{indented}"),
    );
    let out = baton(&["verify", "deep.yml", "--analysis", "explicit"], d);
    fails_cleanly(&out, &["deep.yml:", "YAML nested deeper than"]);

    for (file, root, element, args) in [
        (
            "deep.graphml",
            "graphml",
            "a",
            vec!["reduce", "p.c", "--condition", "deep.graphml"],
        ),
        (
            "deep.xml",
            "benchmark",
            "tasks",
            vec!["bench", "deep.xml", "--output-dir", "out"],
        ),
    ] {
        let open = format!("<{element}>").repeat(10_000);
        let close = format!("</{element}>").repeat(10_000);
        write(
            d,
            file,
            &format!("<?xml version=\"1.0\"?>\n<{root}>{open}{close}</{root}>\n"),
        );
        let out = baton(&args, d);
        fails_cleanly(&out, &[&format!("{file}:2:"), "nested deeper than"]);
    }
}

#[test]
fn redefinitions_are_rejected_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases = [
        (
            "block.c",
            "int main(void) {\n  int x = 0;\n  int x = 1;\n  return x;\n}\n",
            "block.c:3: error: redefinition of `x`",
        ),
        (
            "global.c",
            "int x = 1;\nint x = 2;\nint main(void) { return x; }\n",
            "global.c:2: error: redefinition of `x`",
        ),
        (
            "param.c",
            "int f(int a, int a) { return a; }\nint main(void) { return f(1, 2); }\n",
            "param.c:1: error: redefinition of parameter `a`",
        ),
        (
            "shadow.c",
            "int f(int a) {\n  int a = 2;\n  return a;\n}\nint main(void) { return f(1); }\n",
            "shadow.c:2: error: redefinition of `a`",
        ),
        (
            "function.c",
            "int f(void) { return 0; }\nint f(void) { return 1; }\nint main(void) { return f(); }\n",
            "function.c:2: error: redefinition of `f`",
        ),
    ];
    for (file, text, message) in cases {
        write(d, file, text);
        fails_cleanly(&baton(&["cfa", file], d), &[message]);
    }
    // What C allows: tentative definitions, an inner block's own `x`, repeated extern.
    let legal = "int g;\nint g;\nint h = 1;\nint h;\nint main(void) {\n  extern int g;\n  extern int g;\n  int x = 0;\n  { int x = 1; }\n  for (int i = 0; i < 1; i++) { int i = 2; }\n  return x + g + h;\n}\n";
    write(d, "legal.c", legal);
    let out = baton(&["cfa", "legal.c"], d);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn bench_checks_run_definitions_and_names_before_running() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "p.c", PROGRAM);
    for (run, needle) in [
        (
            "a=frobnicate",
            "run definition `a`: unrecognized subcommand 'frobnicate'",
        ),
        ("a=run missing.yaml", "run definition `a`: "),
        ("a=verify --analysis nope", "unknown analysis `nope`"),
        ("a=cfa", "`cfa` cannot be benchmarked"),
    ] {
        let out = baton(
            &["bench", "--tasks", "p.c", "--run", run, "--output-dir", "out"],
            d,
        );
        fails_cleanly(&out, &[needle]);
        assert!(!d.join("out").exists(), "{run}: output written before the check");
    }
    for (name, run, needle) in [
        (
            "../X",
            "a=verify --analysis explicit",
            "invalid benchmark name `../X`",
        ),
        (
            "b",
            "..=verify --analysis explicit",
            "invalid run definition name `..`",
        ),
    ] {
        let args = [
            "bench",
            "--tasks",
            "p.c",
            "--run",
            run,
            "--name",
            name,
            "--output-dir",
            "out",
        ];
        fails_cleanly(&baton(&args, d), &[needle]);
    }
    assert!(!d.join("out").exists() && !d.join("X.results.a.xml").exists());

    // Every run ends in ERROR (the program cannot be lowered): non-zero exit, results kept.
    write(d, "dup.c", "int main(void) { int x = 0; int x = 1; return x; }\n");
    let out = baton(
        &[
            "bench",
            "--tasks",
            "dup.c",
            "--run",
            "a=verify --analysis explicit",
            "--output-dir",
            "out",
        ],
        d,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("every run ended in ERROR"), "{err}");
    // The run's reason is the message of the JSON error document its `baton --json` printed.
    let jsonl = std::fs::read_to_string(d.join("out/results.jsonl")).unwrap();
    let result: serde_json::Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    let reason = result["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("dup.c:1"), "{jsonl}");
}

#[test]
fn a_condition_for_another_program_names_both_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "a.c", PROGRAM);
    write(d, "b.c", &PROGRAM.replace("42", "43"));
    for format in ["a.graphml", "a.spc"] {
        let out = baton(
            &[
                "verify",
                "a.c",
                "--analysis",
                "explicit",
                "--give-up",
                "reached-states=3",
                "--condition-out",
                format,
            ],
            d,
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let out = baton(&["reduce", "b.c", "--condition", format], d);
        fails_cleanly(
            &out,
            &[
                &format!("{format}: condition is for the program with sha256"),
                "but b.c has sha256",
            ],
        );
    }
}
