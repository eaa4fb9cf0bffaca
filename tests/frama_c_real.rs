//! Frama-C's Eva through the built-in `frama-c-eva` adapter, for real (Debian bookworm's
//! `frama-c-base`, installed by scripts/install-tools.sh): an unreachable error is `true` (the
//! assertion Baton puts into `reach_error` is Dead); a reachable one is `unknown`, never
//! `false`, since Eva gives no inputs to replay; nor is a `true` believed where Eva cut paths
//! at a function it has no model of (it once proved an alloca-reachable error "dead"), nor on a
//! program with threads (Eva's pthread_create never runs the thread).

use std::path::Path;
use std::process::Command;

const SAFE: &str = "extern int __VERIFIER_nondet_int(void);\nextern void __assert_fail(const char *, const char *, unsigned int, const char *);\nvoid reach_error() { __assert_fail(\"0\", \"safe.c\", 3, \"reach_error\"); }\nint main(void) {\n  int x = __VERIFIER_nondet_int();\n  int i = 0, s = 0;\n  while (i < 10) { i++; s += 2; }\n  if (x > 5 && x < 3) reach_error();\n  if (s != 20) reach_error();\n  return 0;\n}\n";

const UNSAFE: &str = "extern int __VERIFIER_nondet_int(void);\nextern void __assert_fail(const char *, const char *, unsigned int, const char *);\nvoid reach_error() { __assert_fail(\"0\", \"unsafe.c\", 3, \"reach_error\"); }\nint main(void) {\n  int x = __VERIFIER_nondet_int();\n  int i = 0;\n  while (i < 10) { i++; }\n  if (x > 5 && x < 9 && i == 10) reach_error();\n  return 0;\n}\n";

/// Reaches the error (v = 4) through storage Eva has no model of: a struct in gcc's automatic
/// storage, as residual programs place structs whose address is taken.
const UNSAFE_ALLOCA: &str = "extern int __VERIFIER_nondet_int(void);\nvoid reach_error(void) {}\nstruct pt { int x; int y; };\nint main(void) {\n  struct pt *s = (struct pt *)__builtin_alloca_with_align(sizeof(struct pt), 128);\n  int v = __VERIFIER_nondet_int();\n  s->x = v; s->y = v + 1;\n  if (v > 0 && v < 10 && s->y == 5) reach_error();\n  return 0;\n}\n";

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.display().to_string()
}

#[test]
fn eva_proves_safe_and_never_refutes() {
    if baton::adapters::find_executable("frama-c").is_none() {
        eprintln!("skipping: frama-c not installed (run scripts/install-tools.sh)");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let flow = write(
        dir.path(),
        "eva.yaml",
        "flow: eva\nbudget: { cpu_time: 120s }\nstages:\n  - name: eva\n    tool: frama-c-eva\n    options: { precision: 2 }\n",
    );
    let run = |program: &str| -> serde_json::Value {
        let out = Command::new(env!("CARGO_BIN_EXE_baton"))
            .args(["run", &flow, program, "--json"])
            .output()
            .expect("baton runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).expect("JSON")
    };
    let r = run(&write(dir.path(), "safe.c", SAFE));
    assert_eq!(r["verdict"], "true", "{r}");
    assert_eq!(r["stages"][0]["status"], "true", "{r}");
    let threads = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benchmarks/programs/threads_unsafe.c"
    ))
    .expect("threads_unsafe.c");
    for (name, text) in [
        ("unsafe.c", UNSAFE),
        ("unsafe_alloca.c", UNSAFE_ALLOCA),
        ("threads_unsafe.c", threads.as_str()),
    ] {
        let r = run(&write(dir.path(), name, text));
        assert_eq!(r["verdict"], "unknown", "{name}: {r}");
        assert_eq!(r["stages"][0]["status"], "unknown", "{name}: {r}");
    }
}
