//! Structs (and arrays of pointers, which struct programs keep) through every layer: the frontend's lowering (records of scalar cells, `sizeof`
//! with gcc's padding, initialisers, copies), the interpreter's undefined behaviour (out of
//! bounds in an array of structs or a member array), the explicit and predicate analyses (never
//! wrong, every `false` replayed), CHC (never wrong) and the C emitter (residual-style output
//! compiles with gcc and reads back).

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
use memory_programs::{assert_errors, gcc_compiles, have_gcc, run, verify};

fn program(body: &str, model: DataModel) -> Program {
    memory_programs::program("structs.c", body, model)
}

#[test]
fn sizes_follow_gcc_padding_in_both_data_models() {
    // (ILP32, LP64) sizes: i386 aligns long long and double to 4 inside structs.
    let cases = [
        ("struct s { char c; double d; }", 12, 16),
        ("struct s { char c; long long q; char e; }", 16, 24),
        ("struct s { char c; long l; }", 8, 16),
        ("struct s { int a; char b; }", 8, 8),
        ("struct s { short a; char b[3]; }", 6, 6),
        ("struct s { char *p; char c; }", 8, 16),
        ("struct s { struct { char c; short h; } in[3]; char t; }", 14, 14),
        ("struct s { char c; union { double d; int i; } u; }", 12, 16),
    ];
    for (decl, ilp32, lp64) in cases {
        let body = format!("{decl};\nint main(void) {{\n  return sizeof(struct s);\n}}\n");
        for (model, size) in [(DataModel::ILP32, ilp32), (DataModel::LP64, lp64)] {
            let p = program(&body, model);
            assert_eq!(
                run(&p, &[]),
                Ending::Returned { value: Some(size) },
                "{decl} in {model}"
            );
        }
    }
}

#[test]
fn initialisers_copies_and_members_follow_c() {
    let body = "struct in { int a[2]; char c; };\nstruct out { struct in x; struct in y[2]; long z; };\n\
                struct out g = {{{1, 2}, 3}, {[1] = {.c = 9}}, 7};\n\
                int main(void) {\n  struct out l = {1, 2, 3, 4, 5, 6};\n  struct in t = g.x;\n  \
                l.y[1] = t;\n  g.y[0].a[1] = 40;\n  struct out m = g;\n  \
                return l.x.a[0] * 1000000 + l.x.c * 100000 + l.y[0].a[1] * 10000 + l.y[1].a[1] * 1000 \
                + m.y[1].c * 100 + m.y[0].a[1] + (int) l.z;\n}\n";
    for model in [DataModel::ILP32, DataModel::LP64] {
        let p = program(body, model);
        // l = {{1,2},3}, {{4,5},6}, ...: brace elision fills in order; l.y[1] = g.x.
        assert_eq!(
            run(&p, &[]),
            Ending::Returned {
                value: Some(1_000_000 + 300_000 + 50_000 + 2000 + 900 + 40)
            }
        );
    }
}

#[test]
fn structs_pass_by_value() {
    let body = "struct p { int x; char c; };\nstruct p t[2] = {{1, 2}, {3, 4}};\n\
                int f(struct p a, int k) {\n  a.x += k;\n  return a.x * 10 + a.c;\n}\n\
                int main(void) {\n  struct p l = {5, 6};\n  int r = f(l, 1) * 1000 + f(t[1], 2);\n  \
                return r + l.x * 100000 + t[1].x * 1000000;\n}\n";
    for model in [DataModel::ILP32, DataModel::LP64] {
        let p = program(body, model);
        // The callee changes its copy only.
        assert_eq!(
            run(&p, &[]),
            Ending::Returned {
                value: Some(3_000_000 + 500_000 + 66_000 + 54)
            }
        );
    }
}

#[test]
fn arrays_of_pointers_store_and_compare() {
    let body = "struct node { int v; struct node *next; };\nstruct node *tab[4];\n\
                int *q[2][2] = {{0}, {0, (int *) 0}};\nint main(void) {\n  \
                int k = __VERIFIER_nondet_int();\n  if (k < 0 || k > 3) return 0;\n  \
                tab[k] = (struct node *) 0;\n  if (tab[k] != (void *) 0 || q[1][1] != 0) reach_error();\n  \
                return sizeof(tab) + sizeof(q) * 100;\n}\n";
    for (model, size) in [(DataModel::ILP32, 1616), (DataModel::LP64, 3232)] {
        let p = program(body, model);
        assert_eq!(run(&p, &[2]), Ending::Returned { value: Some(size) });
        for kind in [AnalysisKind::Explicit, AnalysisKind::Predicate] {
            assert_ne!(verify(kind, &p).verdict, Verdict::False, "{kind:?}");
        }
    }
}

#[test]
fn out_of_bounds_in_structs_is_undefined_behaviour() {
    let p = program(
        "struct s { int a[3]; int n; };\nstruct s t[2];\nint main(void) {\n  int i = __VERIFIER_nondet_int();\n  \
         int j = __VERIFIER_nondet_int();\n  t[i].a[j] = 1;\n  return t[1].a[2];\n}\n",
        DataModel::ILP32,
    );
    let oob = Ending::UndefinedBehavior {
        what: UndefinedBehavior::ArrayIndexOutOfBounds,
        line: 9,
    };
    assert_eq!(run(&p, &[1, 2]), Ending::Returned { value: Some(1) });
    // `t[0].a[3]` is out of bounds although it is `t[0].n` in memory.
    assert_eq!(run(&p, &[0, 3]), oob);
    assert_eq!(run(&p, &[2, 0]), oob);
}

/// Programs whose error is reachable only through struct contents, and their safe twins:
/// (name, program, error reachable, the explicit analysis decides it). An element read at a
/// nondeterministic index, or a nondeterministic value stored in an array, is unknown to the
/// explicit analysis, whose counterexample then does not replay: it answers `unknown`.
const CASES: &[(&str, &str, bool, bool)] = &[
    (
        "copy",
        "struct p { int x; int y; };\nint main(void) {\n  struct p a = {1, 2};\n  struct p b;\n  \
         a.y = __VERIFIER_nondet_int();\n  b = a;\n  if (b.x == 1 && b.y == 42) reach_error();\n  return 0;\n}\n",
        true,
        true,
    ),
    (
        "copy_safe",
        "struct p { int x; int y; };\nint main(void) {\n  struct p a = {1, 2};\n  struct p b;\n  \
         a.y = __VERIFIER_nondet_int();\n  b = a;\n  if (b.x != 1) reach_error();\n  return 0;\n}\n",
        false,
        true,
    ),
    (
        "array_of_structs",
        "struct s { int n; char used; };\nstruct s t[4];\nint main(void) {\n  int i;\n  \
         for (i = 0; i < 4; i++) { t[i].n = i * 2; t[i].used = 1; }\n  int k = __VERIFIER_nondet_int();\n  \
         if (k < 0 || k > 3) return 0;\n  if (t[k].n == 6 && t[k].used) reach_error();\n  return 0;\n}\n",
        true,
        false,
    ),
    (
        "array_of_structs_safe",
        "struct s { int n; char used; };\nstruct s t[4];\nint main(void) {\n  int i;\n  \
         for (i = 0; i < 4; i++) { t[i].n = i * 2; t[i].used = 1; }\n  int k = __VERIFIER_nondet_int();\n  \
         if (k < 0 || k > 3) return 0;\n  if (t[k].n % 2 != 0 || !t[k].used) reach_error();\n  return 0;\n}\n",
        false,
        false,
    ),
    (
        "nested",
        "struct in { int v[2]; };\nstruct out { struct in a; struct in b; };\nint main(void) {\n  \
         struct out o = {{{1, 2}}, {{3, 4}}};\n  o.a = o.b;\n  o.b.v[0] = __VERIFIER_nondet_int();\n  \
         if (o.b.v[0] == 7 && o.a.v[0] + o.a.v[1] == 7) reach_error();\n  return 0;\n}\n",
        true,
        false,
    ),
    (
        "by_value",
        "struct p { int x; int y; };\nint sum(struct p a) { a.x = a.x + 1; return a.x + a.y; }\n\
         int main(void) {\n  struct p v = {1, 2};\n  v.y = __VERIFIER_nondet_int();\n  \
         if (v.y < 0 || v.y > 100) return 0;\n  int s = sum(v);\n  \
         if (v.x != 1 || s != v.y + 2) reach_error();\n  return 0;\n}\n",
        false,
        false,
    ),
];

#[test]
fn analyses_are_sound_on_structs() {
    for &(name, body, reachable, decides) in CASES {
        let p = program(body, DataModel::ILP32);
        for kind in [AnalysisKind::Explicit, AnalysisKind::Predicate, AnalysisKind::Chc] {
            let outcome = verify(kind, &p);
            match outcome.verdict {
                Verdict::True => assert!(!reachable, "{name}: {kind:?} says true on a reachable error"),
                Verdict::False => {
                    assert!(reachable, "{name}: {kind:?} says false on a safe program");
                    if let Some(cex) = outcome.counterexample.as_ref() {
                        assert!(
                            run(&p, &cex.inputs).is_error(),
                            "{name}: {kind:?} counterexample does not replay"
                        );
                    }
                }
                Verdict::Unknown => {}
            }
            // The explicit analysis decides these small programs.
            if kind == AnalysisKind::Explicit && decides {
                let expected = if reachable { Verdict::False } else { Verdict::True };
                assert_eq!(outcome.verdict, expected, "{name}: {}", outcome.reason);
            }
        }
    }
}

#[test]
fn emitted_structs_compile_and_read_back() {
    if !have_gcc() {
        return;
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    for &(name, body, _, _) in CASES {
        for model in [DataModel::ILP32, DataModel::LP64] {
            let p = program(body, model);
            let c = emit_c(&p);
            match gcc_compiles(&c, name, model, dir.path()) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(stderr) => panic!("{name} ({model}) does not compile:\n{stderr}\n{c}"),
            }
            let back = load_source("back.c", &c, model).unwrap_or_else(|e| panic!("{name}: {e}"));
            for inputs in [vec![], vec![42], vec![3, 42], vec![5]] {
                assert_eq!(
                    run(&back, &inputs).is_error(),
                    run(&p, &inputs).is_error(),
                    "{name} ({model}) on {inputs:?}"
                );
            }
        }
    }
}

#[test]
fn unmodelled_struct_uses_get_one_line_errors() {
    let cases = [
        (
            "struct s { int a; };\nstruct s f(void) {\n  struct s v = {1};\n  return v;\n}\nint main(void) {\n  return f().a;\n}\n",
            "e.c:2: unsupported: struct used as a value (returned, cast or compared; only assignment, initialisation, passing and member access are modelled)",
        ),
        (
            "struct s { int a; };\nint f(struct s v) {\n  struct s *p = &v;\n  return p->a;\n}\nint main(void) {\n  struct s x = {1};\n  return f(x);\n}\n",
            "e.c:3: unsupported: address of a struct or union variable",
        ),
        (
            "struct s { int a; };\nint main(void) {\n  static struct s v;\n  struct s *p = &v;\n  return p->a;\n}\n",
            "e.c:3: unsupported: address of a static local struct",
        ),
        (
            "struct s { int a : 3; };\nint main(void) {\n  struct s v;\n  return 0;\n}\n",
            "e.c:3: unsupported: bit-field in a struct",
        ),
        (
            "struct s { union { int i; double d; } u; };\nint main(void) {\n  struct s v = {{1}};\n  return v.u.i;\n}\n",
            "e.c:3: unsupported: initializer of a union inside a struct",
        ),
        (
            "struct s { int *p; };\nint main(void) {\n  struct s v = {0};\n  return v.p * 2 == 0;\n}\n",
            "e.c:4: unsupported: `*` on a pointer",
        ),
        (
            "struct s { int a; };\nint main(void) {\n  struct s v = {1, 2};\n  return v.a;\n}\n",
            "e.c:3: error: excess elements in initializer",
        ),
        (
            "struct s { int a; };\nint main(void) {\n  struct s v = {1};\n  return v.b;\n}\n",
            "e.c:4: error: no member `b` in the struct",
        ),
    ];
    assert_errors(&cases);
    // A struct type nobody uses as a value (as in libc headers) is no reason to reject.
    assert!(load_source(
        "e.c",
        "struct timespec { long tv_sec; long tv_nsec; };\nstruct flex { int n; int d[]; };\nint main(void) { return 0; }\n",
        DataModel::ILP32
    )
    .is_ok());
}
