//! Declarations a program never uses are never a reason to reject it (issue #11): libc headers
//! through gcc, unused prototypes with function pointers, unused struct typedefs, unused
//! definitions with floats. Every use of what Baton does not model is still rejected, at the
//! program's own line.

use baton::cfa::types::DataModel;
use baton::frontend::load_source;
use std::path::Path;
use std::process::Command;

fn names_of_functions(text: &str) -> Vec<String> {
    match load_source("t.c", text, DataModel::ILP32) {
        Ok(p) => p.functions.iter().map(|f| f.name.clone()).collect(),
        Err(e) => panic!("lowering failed: {e}\n{text}"),
    }
}

fn error_of(text: &str) -> String {
    match load_source("t.c", text, DataModel::ILP32) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn baton(args: &[&str], dir: &Path) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run baton");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

const HEADERS: &str = "#include <stdlib.h>\n#include <stdio.h>\n#include <string.h>\n\
#include <math.h>\n#include <assert.h>\n#include <signal.h>\n#include <time.h>\n#include <ctype.h>\n";

/// An integer program after [`HEADERS`]: `y` is 1 or 2; `CHECK` is the error condition.
const INTEGER_PROGRAM: &str = "extern int __VERIFIER_nondet_int(void);\n\
void reach_error(void) { assert(0); }\n\
int main(void) {\n  int x = __VERIFIER_nondet_int();\n  int y = x > 3 ? 1 : 2;\n\
  if (CHECK) reach_error();\n  return 0;\n}\n";

#[test]
fn integer_programs_with_libc_headers_lower_and_verify() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (check, verdict) in [("y == 3", "true"), ("y == 2", "false(unreach-call)")] {
        let file = dir.path().join("p.c");
        let text = format!("{HEADERS}{}", INTEGER_PROGRAM.replace("CHECK", check));
        std::fs::write(&file, text).expect("write");
        let (ok, stdout, stderr) = baton(&["verify", "p.c", "--analysis", "explicit"], dir.path());
        assert!(ok, "{stderr}");
        assert_eq!(
            stdout.lines().next(),
            Some(format!("verdict: {verdict}").as_str()),
            "{stdout}"
        );
    }
}

#[test]
fn unused_declarations_and_definitions_are_accepted() {
    let text = "typedef struct node { int v; struct node *next; double w; } node_t;\n\
        typedef int (*compare_t)(const void *, const void *);\n\
        typedef __builtin_va_list va_t;\n\
        union u { int i; float f; };\n\
        enum color { RED, GREEN = RED ? 5 : 7, BLUE = GREEN && 0 };\n\
        extern int atexit(void (*)(void));\n\
        extern void qsort(void *, unsigned long, unsigned long, int (*)(const void *, const void *));\n\
        void (*signal(int sig, void (*handler)(int)))(int);\n\
        extern int printf(const char *, ...);\n\
        extern int vprintf(const char *, va_t);\n\
        extern double sqrt(double);\n\
        extern char *names[2];\n\
        extern float ratio;\n\
        node_t head;\n\
        float scale = 1.5f;\n\
        int counter;\n\
        int *alias = &counter;\n\
        void (*handler)(void) = 0;\n\
        static double unused_float(double x) { return sqrt(x) * scale; }\n\
        static int unused_pointer_call(void) { handler(); return unused_float(2.0) > 1; }\n\
        int unused_variadic(int n, ...) { return n; }\n\
        int unused_knr(a) int a; { return a; }\n\
        int helper(int a) { return a + GREEN; }\n\
        int main(void) {\n  counter = helper(1);\n  printf(\"%d\", counter);\n  return counter;\n}\n";
    assert_eq!(names_of_functions(text), ["helper", "main"]);
}

#[test]
fn uses_of_unmodelled_constructs_are_rejected_at_the_programs_line() {
    let cases = [
        (
            "extern int atexit(void (*)(void));\nvoid bye(void) {}\nint main(void) {\n  atexit(bye);\n  return 0;\n}\n",
            "t.c:4: unsupported: function pointer passed to a function without a body (it may call it)",
        ),
        (
            "int (*fp)(int, ...) = 0;\nint main(void) {\n  return fp(1);\n}\n",
            "t.c:3: unsupported: call through a pointer to a variadic function",
        ),
        (
            "_Complex double f = 1.5;\nvoid reach_error(void) {}\nint main(void) {\n  if (f > 1) reach_error();\n  return 0;\n}\n",
            "t.c:4: unsupported: complex type (`f` declared at t.c:1)",
        ),
        (
            "extern int names[2];\nint main(void) {\n  return names[0];\n}\n",
            "t.c:3: unsupported: extern array (`names` declared at t.c:1)",
        ),
        (
            "int helper(void) {\n  _Complex double g = 2;\n  return g > 1;\n}\nint main(void) {\n  return helper();\n}\n",
            "t.c:2: unsupported: complex type",
        ),
        (
            "extern _Complex double csqrt(_Complex double);\nint main(void) {\n  int x = 4;\n  int r = csqrt(x);\n  return r;\n}\n",
            "t.c:4: unsupported: complex type",
        ),
        (
            "int v(int n, ...) { return n; }\nint main(void) {\n  return v(1, 2);\n}\n",
            "t.c:1: unsupported: variadic function `v`",
        ),
        (
            "void reach_error(void) {}\n__attribute__((constructor)) void early(void) { reach_error(); }\n\
             int main(void) { return 0; }\n",
            "t.c:2: unsupported: function run before or after main (constructor or destructor attribute)",
        ),
        (
            // gcc calls `done` when `x` leaves its scope: an error call no CFA edge would show.
            "void reach_error(void) {}
void done(int *p) { reach_error(); }
             int main(void) {
  int x __attribute__((cleanup(done))) = 1;
  return 0;
}
",
            "t.c:4: unsupported: cleanup attribute (a function called when the variable leaves its scope)",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(error_of(text), expected, "for:\n{text}");
    }
}

#[test]
fn errors_inside_header_functions_name_the_programs_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let header = dir.path().join("helpers.h");
    std::fs::write(
        &header,
        "static inline int unused_in_header(void) { _Complex double f = 1; return f > 0; }\n\
         static inline int twice(int a) {\n  _Complex double d = a;\n  return a * 2;\n}\n",
    )
    .expect("write header");
    let include = format!("#include \"{}\"\n", header.display());
    let unused = format!("{include}int main(void) {{\n  return 0;\n}}\n");
    assert_eq!(names_of_functions(&unused), ["main"]);
    let used = format!("{include}int main(void) {{\n  return twice(2);\n}}\n");
    assert_eq!(
        error_of(&used),
        format!("t.c:3: unsupported: complex type (at {}:3)", header.display())
    );
}

#[test]
fn residuals_of_programs_with_unused_declarations_compile() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!(
        "{HEADERS}typedef struct pair {{ int a; double b; }} pair_t;\n\
         extern int atexit(void (*)(void));\n{}",
        INTEGER_PROGRAM.replace("CHECK", "y == 2")
    );
    std::fs::write(dir.path().join("p.c"), text).expect("write");
    let (ok, _, stderr) = baton(
        &[
            "verify",
            "p.c",
            "--analysis",
            "explicit",
            "--give-up",
            "path-length=3",
            "--condition-out",
            "c.graphml",
        ],
        dir.path(),
    );
    assert!(ok, "{stderr}");
    let (ok, _, stderr) = baton(
        &["reduce", "p.c", "--condition", "c.graphml", "-o", "r.c"],
        dir.path(),
    );
    assert!(ok, "{stderr}");
    let residual = std::fs::read_to_string(dir.path().join("r.c")).expect("residual written");
    assert!(residual.contains("int main(void)"), "{residual}");
    let gcc = Command::new("gcc")
        .args(["-m32", "-c", "r.c", "-o", "r.o"])
        .current_dir(dir.path())
        .output()
        .expect("run gcc");
    assert!(gcc.status.success(), "{}", String::from_utf8_lossy(&gcc.stderr));
}
