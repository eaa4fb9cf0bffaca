//! The C library functions Baton models (`memset`, `memcpy`, `memmove`, `memcmp`, `strlen`,
//! `strcmp`, `strncmp`, `strcpy`, `strncpy`, `strcat`, `strchr`, `abs`) and calls of other
//! functions without a body: programs in the style of sv-benchmarks (string handling,
//! buffers, struct copies, `memset`-initialised arrays, heap blocks), each with a buggy twin,
//! under the explicit, predicate and CHC analyses — no wrong verdict, every `false` replayed,
//! and the explicit analysis decides what it can compute exactly; the interpreter's endings on
//! undefined and unmodelled calls; the frontend's rejections; residual C with library calls.

#[path = "support/memory_programs.rs"]
mod memory_programs;

use baton::analyses::AnalysisKind;
use baton::cfa::emit_c::emit_c;
use baton::cfa::interpreter::Ending;
use baton::cfa::semantics::UndefinedBehavior;
use baton::cfa::types::DataModel;
use baton::verdict::Verdict;
use memory_programs::{assert_errors, assert_sound, gcc_compiles, have_gcc, program, run, verify};

const LIBC: &str = "typedef unsigned long size_t;\n\
extern void *malloc(size_t);\nextern void free(void *);\n\
extern void *memset(void *, int, size_t);\nextern void *memcpy(void *, const void *, size_t);\n\
extern void *memmove(void *, const void *, size_t);\nextern int memcmp(const void *, const void *, size_t);\n\
extern size_t strlen(const char *);\nextern int strcmp(const char *, const char *);\n\
extern int strncmp(const char *, const char *, size_t);\nextern char *strcpy(char *, const char *);\n\
extern char *strncpy(char *, const char *, size_t);\nextern char *strcat(char *, const char *);\n\
extern char *strchr(const char *, int);\nextern int abs(int);\nextern int printf(const char *, ...);\n\
extern int puts(const char *);\n";

/// A program (name, safe twin, buggy twin, the analyses that decide both).
struct Twins {
    name: &'static str,
    safe: String,
    buggy: String,
    decided_by: &'static [AnalysisKind],
}

const EXPLICIT: &[AnalysisKind] = &[AnalysisKind::Explicit];

/// `body` of `main` with `BUG` replaced by 0 (safe) or 1 (buggy).
fn twins(name: &'static str, globals: &str, body: &str, decided_by: &'static [AnalysisKind]) -> Twins {
    let text = |bug: &str| {
        format!(
            "{LIBC}{globals}\nint main(void) {{\n{}\n  return 0;\n}}\n",
            body.replace("BUG", bug)
        )
    };
    Twins {
        name,
        safe: text("0"),
        buggy: text("1"),
        decided_by,
    }
}

fn programs() -> Vec<Twins> {
    vec![
        // The wrong `false` found before the library was modelled: `memset` and `memcpy` were
        // nondet calls with their arguments dropped.
        twins(
            "memset_memcpy_array",
            "",
            "  int a[4]; memset(a, 0, sizeof a);\n  if (BUG) a[2] = 7;\n  int b[4]; memcpy(b, a, sizeof a);\n  \
             if (b[2] != 0) reach_error();",
            EXPLICIT,
        ),
        // The other one: `strlen`'s result was an input.
        twins(
            "strlen_literal",
            "",
            "  if (strlen(\"hi\") != 2 + BUG) reach_error();",
            EXPLICIT,
        ),
        twins(
            "byte_patterns",
            "",
            "  int a[8]; memset(a, 0xff, sizeof a);\n  unsigned short u[4]; memset(u, 0x12, sizeof u);\n  \
             long long l = 0; memset(&l, 1, 3);\n  \
             if (a[3] != -1 || u[2] != 0x1212 || l != 0x010101) reach_error();\n  \
             if (BUG && a[5] == -1) reach_error();",
            EXPLICIT,
        ),
        twins(
            "string_building",
            "",
            "  char buf[16];\n  strcpy(buf, \"net\");\n  strcat(buf, \"-\");\n  strcat(buf, \"dev\");\n  \
             if (strlen(buf) != 7 || strcmp(buf, \"net-dev\") != 0) reach_error();\n  \
             char *dash = strchr(buf, '-');\n  if (dash != buf + 3 || strchr(buf, 'x') != 0) reach_error();\n  \
             if (strncmp(buf, \"net-bus\", 4) != 0) reach_error();\n  \
             if (BUG && strcmp(buf, \"net-dex\") < 0) reach_error();\n  printf(\"%s\\n\", buf);",
            EXPLICIT,
        ),
        twins(
            "strncpy_padding",
            "",
            "  char d[8];\n  memset(d, 'x', sizeof d);\n  strncpy(d, \"ab\", sizeof d - 1);\n  \
             if (d[1] != 'b' || d[2] != 0 || d[6] != 0 || d[7] != 'x') reach_error();\n  \
             if (BUG && d[7] != 0) reach_error();",
            EXPLICIT,
        ),
        twins(
            "struct_copies",
            "struct packet { char kind; int len; short flags[3]; long long stamp; };",
            "  struct packet p, q;\n  memset(&p, 0, sizeof p);\n  p.kind = 'd'; p.len = 40; p.flags[1] = -3; p.stamp = 7;\n  \
             memcpy(&q, &p, sizeof p);\n  p.len = 41;\n  \
             if (q.kind != 'd' || q.len != 40 || q.flags[1] != -3 || q.flags[2] != 0 || q.stamp != 7) reach_error();\n  \
             if (memcmp(&p, &q, sizeof p) == 0) reach_error();\n  \
             if (BUG) memcpy(&q, &p, sizeof p);\n  if (q.len != 40) reach_error();",
            EXPLICIT,
        ),
        twins(
            "heap_buffer_shift",
            "",
            "  int n = __VERIFIER_nondet_int();\n  if (!(n == 3 || n == 5)) return 0;\n  \
             int *p = malloc(n * sizeof(int));\n  memset(p, 0, n * sizeof(int));\n  \
             for (int i = 0; i < n; i++) p[i] += i;\n  memmove(p + 1, p, (n - 1) * sizeof(int));\n  \
             if (p[0] != 0 || p[1] != 0 || p[n - 1] != n - 2 - BUG) reach_error();\n  free(p);",
            EXPLICIT,
        ),
        twins(
            "key_compare",
            "",
            "  unsigned char k1[6], k2[6];\n  for (int i = 0; i < 6; i++) k1[i] = (unsigned char) (i * 37);\n  \
             memcpy(k2, k1, sizeof k1);\n  if (memcmp(k1, k2, sizeof k1) != 0) reach_error();\n  \
             k2[4] = k2[4] + 1;\n  if (memcmp(k1, k2, 4) != 0) reach_error();\n  \
             if (BUG && memcmp(k1, k2, sizeof k1) != 0) reach_error();",
            EXPLICIT,
        ),
        twins(
            "absolute_values",
            "",
            "  int x = __VERIFIER_nondet_int();\n  if (x < -5 || x > 5) return 0;\n  \
             if (abs(x) < 0 || abs(x) > 5) reach_error();\n  if (BUG && abs(x) == 4) reach_error();",
            // The explicit analysis knows no ranges.
            &[AnalysisKind::Predicate],
        ),
        // Lengths from inputs: the explicit analysis forgets what the calls write, so it
        // cannot decide; the predicate analysis encodes them exactly (constant addresses).
        twins(
            "nondet_length",
            "",
            "  char buf[8];\n  int n = __VERIFIER_nondet_int();\n  if (n < 0 || n > 7) return 0;\n  \
             memset(buf, 'a', n);\n  buf[n] = 0;\n  if (strlen(buf) > 7) reach_error();\n  \
             if (BUG && strlen(buf) == 5) reach_error();",
            &[AnalysisKind::Predicate],
        ),
    ]
}

#[test]
fn library_programs_get_no_wrong_verdict() {
    let mut decided = 0;
    for t in programs() {
        for (text, reachable) in [(&t.safe, false), (&t.buggy, true)] {
            let p = program(&format!("{}.c", t.name), text, DataModel::ILP32);
            for kind in [AnalysisKind::Explicit, AnalysisKind::Predicate, AnalysisKind::Chc] {
                let out = verify(kind, &p);
                assert_sound(t.name, kind, &p, reachable, &out);
                if out.verdict != Verdict::Unknown {
                    decided += 1;
                }
                eprintln!(
                    "{} (bug: {reachable}) {kind:?}: {} ({})",
                    t.name, out.verdict, out.reason
                );
                if t.decided_by.contains(&kind) {
                    let expected = if reachable { Verdict::False } else { Verdict::True };
                    assert_eq!(
                        out.verdict, expected,
                        "{} (bug: {reachable}): {}",
                        t.name, out.reason
                    );
                }
            }
        }
    }
    eprintln!("{decided} of {} runs decided", programs().len() * 6);
}

#[test]
fn the_wrong_verdicts_of_unmodelled_calls_are_gone() {
    let memset = program(
        "memset.c",
        &format!(
            "{LIBC}int main() {{ int a[4]; memset(a, 0, sizeof a); int b[4]; memcpy(b, a, sizeof a);\n\
             if (b[2] != 0) reach_error(); return 0; }}\n"
        ),
        DataModel::ILP32,
    );
    let strlen = program(
        "strlen.c",
        &format!("{LIBC}int main() {{ if (strlen(\"hi\") != 2) reach_error(); return 0; }}\n"),
        DataModel::ILP32,
    );
    for p in [&memset, &strlen] {
        for kind in [AnalysisKind::Explicit, AnalysisKind::Predicate, AnalysisKind::Chc] {
            let out = verify(kind, p);
            assert_ne!(out.verdict, Verdict::False, "{kind:?}: {}", out.reason);
            if kind != AnalysisKind::Chc {
                assert_eq!(out.verdict, Verdict::True, "{kind:?}: {}", out.reason);
            }
        }
    }
    // The callee may write `x`: no verdict can be vouched for.
    assert_errors(&[(
        "void reach_error(void);\nextern void init(int *p);\nint main() {\n  int x = 0;\n  init(&x);\n  \
         if (x == 5) reach_error();\n  return 0;\n}\n",
        "e.c:5: unsupported: call of `init`, a function without a body, that may write through its pointer argument",
    )]);
}

#[test]
fn results_of_functions_without_a_body_are_no_inputs() {
    let text = "extern int sensor(int channel);\nint main(void) {\n  int v = sensor(3);\n  \
                printf(\"%d\\n\", v);\n  if (v > 100) reach_error();\n  return 0;\n}\n";
    let p = program("sensor.c", &format!("{LIBC}{text}"), DataModel::ILP32);
    for kind in [AnalysisKind::Explicit, AnalysisKind::Predicate, AnalysisKind::Chc] {
        let out = verify(kind, &p);
        assert_eq!(out.verdict, Verdict::Unknown, "{kind:?}: {}", out.reason);
        assert!(out.reason.contains("`sensor`"), "{kind:?}: {}", out.reason);
    }
    match run(&p, &[]) {
        Ending::Unmodelled { what, .. } => assert!(what.contains("`sensor`"), "{what}"),
        other => panic!("{other}"),
    }
    // A result that is not used, and output functions: the path goes on.
    let text = "extern void led(int on);\nint main(void) {\n  led(1);\n  puts(\"on\");\n  \
                int x = __VERIFIER_nondet_int();\n  if (x == 3) reach_error();\n  return 0;\n}\n";
    let p = program("led.c", &format!("{LIBC}{text}"), DataModel::ILP32);
    let out = verify(AnalysisKind::Explicit, &p);
    assert_eq!(out.verdict, Verdict::False, "{}", out.reason);
    assert!(run(&p, &[3]).is_error());
    // gcc's branch hint is its first argument.
    let text = "int main(void) {\n  int x = __VERIFIER_nondet_int();\n  \
                if (__builtin_expect(!!(x == 42), 0)) reach_error();\n  return 0;\n}\n";
    let p = program("expect.c", text, DataModel::ILP32);
    let out = verify(AnalysisKind::Explicit, &p);
    assert_eq!(out.verdict, Verdict::False, "{}", out.reason);
    assert_eq!(out.counterexample.map(|c| c.inputs), Some(vec![42]));
}

#[test]
fn undefined_and_unmodelled_calls_end_runs() {
    let ub = |body: &str| {
        let p = program(
            "ub.c",
            &format!("{LIBC}int main(void) {{\n{body}\n  return 0;\n}}\n"),
            DataModel::LP64,
        );
        match run(&p, &[]) {
            Ending::UndefinedBehavior { what, line } => (what, line),
            other => panic!("{body}: {other}"),
        }
    };
    let line = LIBC.lines().count() as u32 + 6;
    assert_eq!(
        ub("  int a[4] = {1, 2, 3, 4};\n  memcpy(a + 1, a, 8);"),
        (UndefinedBehavior::OverlappingCopy, line)
    );
    assert_eq!(
        ub("  char s[3] = {'a', 'b', 'c'};\n  return strlen(s);"),
        (UndefinedBehavior::PointerOutOfBounds, line)
    );
    assert_eq!(
        ub("  int a[2];\n  memset(a, 0, 9);"),
        (UndefinedBehavior::PointerOutOfBounds, line)
    );
    assert_eq!(
        ub("  memset(0, 0, 0);"),
        (UndefinedBehavior::NullDereference, line - 1)
    );
    assert_eq!(
        ub("  char *s = \"ab\";\n  s[0] = 'x';"),
        (UndefinedBehavior::StringLiteralWrite, line)
    );
    assert_eq!(
        ub("  char *s = \"ab\";\n  strcpy(s, \"x\");"),
        (UndefinedBehavior::StringLiteralWrite, line)
    );
    // C defines it, Baton's variables cannot hold indeterminate bytes.
    let p = program(
        "unmodelled.c",
        &format!("{LIBC}int main(void) {{\n  int x;\n  int *p = malloc(4);\n  memcpy(&x, p, 4);\n  return x;\n}}\n"),
        DataModel::ILP32,
    );
    assert!(
        matches!(run(&p, &[]), Ending::Unmodelled { .. }),
        "{}",
        run(&p, &[])
    );
    // The analyses end the undefined paths: a bug only behind one is no bug.
    let behind_ub = format!(
        "{LIBC}int main(void) {{\n  int a[4] = {{1, 2, 3, 4}};\n  int k = __VERIFIER_nondet_int();\n  \
         if (k == 1) {{ memcpy(a + k, a, 8); reach_error(); }}\n  return 0;\n}}\n"
    );
    let p = program("behind.c", &behind_ub, DataModel::ILP32);
    let out = verify(AnalysisKind::Explicit, &p);
    assert_eq!(out.verdict, Verdict::True, "{}", out.reason);
}

#[test]
fn calls_that_may_write_unmodelled_memory_are_rejected() {
    assert_errors(&[
        (
            "struct cfg { int *slot; } g;\nextern int tick(void);\nint main(void) {\n  return tick();\n}\n",
            "e.c:4: unsupported: call of `tick`, a function without a body, that may write through the pointer-typed global `g`",
        ),
        (
            "extern int sum(long p);\nint main(void) {\n  int a[2] = {1, 2};\n  return sum((long) a);\n}\n",
            "e.c:4: unsupported: call of `sum`, a function without a body, that may write through its pointer argument",
        ),
        (
            "extern void *stdin;\nextern int fprintf(void *, const char *, ...);\nint main(void) {\n  \
             fprintf(stdin, \"x\");\n  return 0;\n}\n",
            "e.c:4: unsupported: `fprintf` on a stream other than stdout or stderr",
        ),
        (
            "extern void *stderr;\nextern int fprintf(void *, const char *, ...);\nint main(void) {\n  \
             int n = fprintf(stderr, \"x\");\n  return n;\n}\n",
            "e.c:4: unsupported: the result of `fprintf`",
        ),
    ]);
    // A null pointer and a string literal cannot be written through; stdout and stderr output
    // does nothing.
    let p = program(
        "fine.c",
        "extern long time(long *t);\nextern int getenv_len(const char *name);\nextern void *stderr;\n\
         extern int fprintf(void *, const char *, ...);\nint main(void) {\n  long t = time(0);\n  \
         int n = getenv_len(\"HOME\");\n  fprintf(stderr, \"%ld %d\\n\", t, n);\n  return 0;\n}\n",
        DataModel::LP64,
    );
    assert!(matches!(run(&p, &[]), Ending::Unmodelled { .. }));
}

#[test]
fn emitted_library_calls_compile_and_read_back() {
    if !have_gcc() {
        return;
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    for t in programs() {
        for model in [DataModel::ILP32, DataModel::LP64] {
            let p = program(&format!("{}.c", t.name), &t.buggy, model);
            let c = emit_c(&p);
            match gcc_compiles(&c, t.name, model, dir.path()) {
                Ok(_) => {}
                Err(e) => panic!("{}: emitted C does not compile ({model}):\n{e}\n{c}", t.name),
            }
            let again = baton::frontend::load_source(&format!("{}.c", t.name), &c, model)
                .unwrap_or_else(|e| panic!("{}: emitted C not read back: {e}\n{c}", t.name));
            for inputs in [vec![], vec![3], vec![5], vec![4]] {
                let (a, b) = (run(&p, &inputs), run(&again, &inputs));
                assert_eq!(a.is_error(), b.is_error(), "{} {inputs:?}: {a} / {b}", t.name);
                assert_eq!(a.kind(), b.kind(), "{} {inputs:?}: {a} / {b}", t.name);
            }
        }
    }
}

/// The predicate analysis' path formulas encode library calls on constant addresses exactly:
/// along every run of the interpreter, the formula with the run's inputs is satisfiable (no
/// execution is lost), and it fixes `strlen`'s result and the signs of the comparisons to the
/// interpreter's.
#[test]
fn path_formulas_of_library_calls_admit_exactly_the_interpreters_runs() {
    use baton::analyses::predicate::formula::{bv_const, PathFormula};
    use baton::analyses::predicate::solver::{Satisfiability, SolverConfig};
    use baton::cfa::interpreter::{execute, ExecOptions};
    use baton::cpa::Step;
    use z3::ast::Bool;

    let text = format!(
        "{LIBC}int main(void) {{\n  char buf[8];\n  char src[8] = \"xxxa\";\n  int a[4] = {{1, 2, 3, 4}};\n  \
         int b[4] = {{0}};\n  int n = __VERIFIER_nondet_int();\n  if (n < 0 || n > 7) return 0;\n  \
         memset(buf, 'x', n);\n  buf[n] = 0;\n  int m = __VERIFIER_nondet_int();\n  \
         if (m < 0 || m > 16) return 0;\n  memcpy(b, a, m);\n  int len = (int) strlen(buf);\n  \
         int c = strcmp(buf, src);\n  int k = strncmp(buf, \"xxq\", 3);\n  char d[8];\n  strcpy(d, buf);\n  \
         return len + c + k + b[1] + d[0];\n}}\n"
    );
    let p = program("formula.c", &text, DataModel::ILP32);
    let var = |name: &str| {
        p.variables
            .iter()
            .position(|v| v.name == name)
            .map(|i| baton::cfa::VarId(i as u32))
            .unwrap_or_else(|| panic!("no variable {name}"))
    };
    let config = SolverConfig::default();
    for n in 0..8 {
        for m in [0, 4, 6, 16] {
            let run = execute(
                &p,
                &[n, m],
                &ExecOptions {
                    record_path: true,
                    ..Default::default()
                },
            );
            let steps = run.path.iter().map(|&e| Step::Edge(e));
            let pf = PathFormula::program_start(&p)
                .extend_all(steps, &p)
                .expect("encodes");
            let mut parts = vec![pf.formula.clone(), pf.uninitialized_zero()];
            for (t, v) in pf.nondets.iter().zip(&run.nondet_values) {
                parts.push(t.term.eq(bv_const(*v, t.term.get_size())));
            }
            let runs = Bool::and(&parts);
            assert!(
                matches!(config.check(&runs), Satisfiability::Sat(_)),
                "n = {n}, m = {m}: the run is not a model of its path formula"
            );
            let final_value = |name: &str| run.final_values[var(name).index()];
            let term = |name: &str| pf.current(var(name), &p).expect("a variable");
            let zero = bv_const(0, 32);
            let sign_differs = |name: &str| {
                let v = final_value(name);
                let t = term(name);
                match v.signum() {
                    0 => t.eq(&zero).not(),
                    -1 => t.bvslt(&zero).not(),
                    _ => t.bvsgt(&zero).not(),
                }
            };
            for other in [
                term("main::len").eq(bv_const(final_value("main::len"), 32)).not(),
                sign_differs("main::c"),
                sign_differs("main::k"),
            ] {
                let formula = Bool::and(&[runs.clone(), other]);
                assert!(
                    matches!(config.check(&formula), Satisfiability::Unsat),
                    "n = {n}, m = {m}: the formula allows another result"
                );
            }
        }
    }
}
