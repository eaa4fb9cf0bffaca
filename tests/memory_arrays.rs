//! Arrays through every layer: the frontend's lowering (layout, initialisers, variable
//! lengths), the interpreter's undefined behaviour (out of bounds, non-positive VLA size), the
//! explicit analysis (sound: unknown elements), the predicate analysis (sound, with Z3's array
//! theory) and the C emitter (residuals compile with gcc).

#[path = "support/memory_programs.rs"]
mod memory_programs;

use baton::analyses::AnalysisKind;
use baton::cfa::emit_c::emit_c;
use baton::cfa::interpreter::Ending;
use baton::cfa::semantics::UndefinedBehavior;
use baton::cfa::types::DataModel;
use baton::cfa::Program;
use baton::frontend::load_source;
use baton::verdict::Verdict;
use memory_programs::{assert_errors, assert_sound, gcc_compiles, have_gcc, run, verify};

fn program(body: &str, model: DataModel) -> Program {
    memory_programs::program("arrays.c", body, model)
}

#[test]
fn sizes_and_initialisers_follow_gcc() {
    let body = "int g[3][2] = {{1, 2}, [1] = {3}};\nint h[] = {5, 6, 7};\n\
                int main(void) {\n  char c[5];\n  long l[2][3];\n  int b[4] = {1, 2};\n  \
                return sizeof(g) * 1000000 + sizeof(h) * 10000 + sizeof(c) * 1000 + sizeof(l) + \
                g[1][0] * 100 + g[2][1] * 10 + h[2] + b[1] + b[3];\n}\n";
    let ilp32 = program(body, DataModel::ILP32);
    assert_eq!(
        run(&ilp32, &[]),
        Ending::Returned {
            value: Some(24_125_024 + 300 + 7 + 2)
        }
    );
    let lp64 = program(body, DataModel::LP64);
    assert_eq!(
        run(&lp64, &[]),
        Ending::Returned {
            value: Some(24_125_048 + 300 + 7 + 2)
        }
    );
}

#[test]
fn string_literals_initialise_char_arrays() {
    let body = "char greeting[] = \"hi\\n\";\nint main(void) {\n  char s[3] = \"abc\";\n  unsigned char u[8] = \"\\xff\";\n  \
                return sizeof(greeting) * 10000 + greeting[2] * 100 + s[2] + u[0] + u[1];\n}\n";
    let p = program(body, DataModel::ILP32);
    assert_eq!(
        run(&p, &[]),
        Ending::Returned {
            value: Some(40_000 + 1000 + 99 + 255)
        }
    );
    let err = load_source(
        "s.c",
        "int main(void) {\n  char s[2] = \"abc\";\n  return s[0];\n}\n",
        DataModel::ILP32,
    )
    .err()
    .map(|e| e.to_string());
    assert_eq!(
        err.as_deref(),
        Some("s.c:2: error: initializer-string for array is too long")
    );
}

#[test]
fn out_of_bounds_and_bad_sizes_are_undefined_behaviour() {
    let p = program(
        "int main(void) {\n  int a[3][4] = {0};\n  int i = __VERIFIER_nondet_int();\n  int j = __VERIFIER_nondet_int();\n  \
         a[i][j] = 1;\n  return a[j][i];\n}\n",
        DataModel::ILP32,
    );
    let oob = |line| Ending::UndefinedBehavior {
        what: UndefinedBehavior::ArrayIndexOutOfBounds,
        line,
    };
    assert_eq!(run(&p, &[2, 3]), oob(9), "a[3][2] is read");
    assert_eq!(run(&p, &[1, 2]), Ending::Returned { value: Some(0) });
    assert_eq!(run(&p, &[2, 1]), Ending::Returned { value: Some(0) });
    // `a[0][4]` is out of bounds although the flat position exists.
    assert_eq!(run(&p, &[0, 4]), oob(8));
    assert_eq!(run(&p, &[-1, 0]), oob(8));
    let vla = program(
        "int main(void) {\n  int n = __VERIFIER_nondet_int();\n  int a[n];\n  a[n - 1] = 5;\n  return a[n - 1];\n}\n",
        DataModel::ILP32,
    );
    assert_eq!(run(&vla, &[4]), Ending::Returned { value: Some(5) });
    assert_eq!(
        run(&vla, &[0]),
        Ending::UndefinedBehavior {
            what: UndefinedBehavior::ArraySizeNotPositive,
            line: 6
        }
    );
    assert_eq!(run(&vla, &[1 << 30]), Ending::MemoryLimit { line: 6 });
}

/// Programs whose error is reachable only through array contents, and their safe twins.
const CASES: &[(&str, &str, bool)] = &[
    (
        "copy",
        "int main(void) {\n  int a[4];\n  int b[4];\n  int i;\n  for (i = 0; i < 4; i++) a[i] = __VERIFIER_nondet_int();\n  \
         for (i = 0; i < 4; i++) b[i] = a[i];\n  if (b[2] == 42) reach_error();\n  return 0;\n}\n",
        true,
    ),
    (
        "constant",
        "int t[3] = {1, 2, 3};\nint main(void) {\n  int i = __VERIFIER_nondet_int();\n  if (i < 0 || i > 2) return 0;\n  \
         t[i] = t[i] + 1;\n  if (t[0] + t[1] + t[2] != 7) reach_error();\n  return 0;\n}\n",
        false,
    ),
    (
        "vla",
        "int main(void) {\n  int n = __VERIFIER_nondet_int();\n  if (n < 1 || n > 5) return 0;\n  int a[n];\n  int i;\n  \
         for (i = 0; i < n; i++) a[i] = i;\n  if (a[n - 1] == 3) reach_error();\n  return 0;\n}\n",
        true,
    ),
];

#[test]
fn analyses_are_sound_on_arrays() {
    for &(name, body, reachable) in CASES {
        let p = program(body, DataModel::ILP32);
        for kind in [AnalysisKind::Explicit, AnalysisKind::Predicate] {
            assert_sound(name, kind, &p, reachable, &verify(kind, &p));
        }
    }
}

#[test]
fn emitted_arrays_compile_and_keep_the_layout() {
    if !have_gcc() {
        return;
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    for &(name, body, _) in CASES {
        for model in [DataModel::ILP32, DataModel::LP64] {
            let p = program(body, model);
            match gcc_compiles(&emit_c(&p), name, model, dir.path()) {
                Ok(_) => {}
                Err(stderr) => panic!("{name} ({model}) does not compile:\n{stderr}"),
            }
        }
    }
}

#[test]
fn array_misuse_gets_one_line_errors() {
    let cases = [
        (
            "int main(void) {\n  int a[2] = {1, 2, 3};\n  return a[0];\n}\n",
            "e.c:2: error: excess elements in array initializer",
        ),
        (
            "int main(void) {\n  int a[3];\n  return a[1][0];\n}\n",
            "e.c:3: error: subscripted value is not an array",
        ),
        (
            "int main(void) {\n  int a[0];\n  return 0;\n}\n",
            "e.c:2: unsupported: zero-length array",
        ),
        (
            "int main(void) {\n  int a[] = {[1] = 2};\n  return a[1];\n}\n",
            "e.c:2: unsupported: designated initializer of an array of unspecified size",
        ),
        (
            "int main(void) {\n  int a[3] = {[3] = 2};\n  return a[1];\n}\n",
            "e.c:2: error: array designator outside the array",
        ),
        (
            "int main(void) {\n  int n = 2;\n  int a[n][n];\n  return a[1] == 0;\n}\n",
            "e.c:3: unsupported: pointer into a multi-dimensional variable-length array",
        ),
    ];
    assert_errors(&cases);
    // A zero-length array nobody uses (as in some headers) is no reason to reject a program.
    assert!(load_source(
        "e.c",
        "int z[0];\nint main(void) { return 0; }\n",
        DataModel::ILP32
    )
    .is_ok());
}

#[test]
fn explicit_analysis_tracks_small_arrays_soundly() {
    let explicit = |body: &str| verify(AnalysisKind::Explicit, &program(body, DataModel::ILP32));
    let sum = explicit(
        "int a[3] = {1, 2, 3};\nint main(void) {\n  int s = 0;\n  int i;\n  for (i = 0; i < 3; i++) s += a[i];\n  \
         if (s != 6) reach_error();\n  return 0;\n}\n",
    );
    assert_eq!(sum.verdict, Verdict::True, "{}", sum.reason);
    let bug = explicit(
        "int main(void) {\n  int a[2][2];\n  a[0][1] = 5;\n  a[1][0] = a[0][1] + 1;\n  int x = __VERIFIER_nondet_int();\n  \
         if (a[1][0] == 6 && x == 3) reach_error();\n  return 0;\n}\n",
    );
    assert_eq!(bug.verdict, Verdict::False, "{}", bug.reason);
    // A write through an unknown index may change any element: never `true` here.
    let unknown_index = explicit(
        "int main(void) {\n  int a[2] = {0, 0};\n  a[__VERIFIER_nondet_int() & 1] = 1;\n  \
         if (a[0] == 0) reach_error();\n  return 0;\n}\n",
    );
    assert_ne!(unknown_index.verdict, Verdict::True, "{}", unknown_index.reason);
    // A large array is not tracked: its elements are unknown.
    let large = explicit(
        "int a[1000];\nint main(void) {\n  a[3] = 1;\n  if (a[3] != 1) reach_error();\n  return 0;\n}\n",
    );
    assert_ne!(large.verdict, Verdict::True, "{}", large.reason);
}
