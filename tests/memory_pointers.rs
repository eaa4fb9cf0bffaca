//! Pointers and the heap through every layer: the frontend (address-of, decay, `*p`, `p->f`,
//! `p[i]`, arithmetic, `malloc` and friends), the interpreter's C semantics and undefined
//! behaviour (null, dangling, out of bounds, double free), the analyses (never a wrong
//! verdict, every `false` replayed, also where ignoring a write through a pointer would make
//! `true` easy) and the C emitter (output compiles with gcc and reads back to the same runs).
//! Programs in the style of sv-benchmarks' heap-manipulation and list-properties tasks.

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

const HEAP: &str =
    "typedef unsigned long size_t;\nextern void *malloc(size_t);\nextern void *calloc(size_t, size_t);\n\
                    extern void *realloc(void *, size_t);\nextern void free(void *);\n";

fn program(body: &str, model: DataModel) -> Program {
    memory_programs::program("pointers.c", &format!("{HEAP}{body}"), model)
}

/// A singly linked list of `n` nodes (0 ≤ n ≤ 5) holding 0..n-1, built at the head, summed
/// while it is freed; the error needs the sum `target`.
fn list(target: i32) -> String {
    format!(
        "struct node {{ int value; struct node *next; }};\n\
         int main(void) {{\n  struct node *head = (void *)0;\n  int n = __VERIFIER_nondet_int();\n  \
         if (n < 0 || n > 5) return 0;\n  for (int i = 0; i < n; i++) {{\n    \
         struct node *x = (struct node *)malloc(sizeof(struct node));\n    x->value = i;\n    \
         x->next = head;\n    head = x;\n  }}\n  int sum = 0;\n  struct node *p = head;\n  \
         while (p != 0) {{\n    sum += p->value;\n    struct node *q = p->next;\n    free(p);\n    \
         p = q;\n  }}\n  if (sum == {target}) reach_error();\n  return sum;\n}}\n"
    )
}

#[test]
fn linked_list_built_with_malloc_and_walked() {
    for model in [DataModel::ILP32, DataModel::LP64] {
        let p = program(&list(10), model);
        assert!(run(&p, &[5]).is_error(), "{model}");
        assert_eq!(run(&p, &[4]), Ending::Returned { value: Some(6) }, "{model}");
        assert_eq!(run(&p, &[0]), Ending::Returned { value: Some(0) }, "{model}");
    }
}

#[test]
fn addresses_of_variables_elements_and_members_alias_them() {
    let body = "struct pair { int a; int b; };\nint g[4];\n\
                int main(void) {\n  int x = 1;\n  int *p = &x;\n  *p += 41;\n  int *q = g;\n  \
                q[3] = 5;\n  int *r = &g[1];\n  *(r + 1) = 6;\n  struct pair s;\n  int *m = &s.b;\n  *m = 7;\n  \
                struct pair *h = malloc(sizeof(struct pair));\n  h->a = 100;\n  int *hb = &h->b;\n  \
                *hb = 200;\n  long d = &g[3] - r;\n  int t = h->a + h->b;\n  free(h);\n  \
                return x * 1000 + g[3] * 100 + g[2] * 10 + s.b + (int) d + t;\n}\n";
    for model in [DataModel::ILP32, DataModel::LP64] {
        let p = program(body, model);
        // 42000 + 500 + 60 + 7 + 2 + 300
        assert_eq!(run(&p, &[]), Ending::Returned { value: Some(42869) }, "{model}");
    }
}

#[test]
fn calloc_zeroes_and_realloc_keeps_what_fits() {
    let body = "int main(void) {\n  int *a = calloc(3, sizeof(int));\n  a[1] = 4;\n  \
                int *b = realloc(a, 2 * sizeof(int));\n  int r = b[0] * 10 + b[1];\n  free(b);\n  return r;\n}\n";
    let p = program(body, DataModel::LP64);
    assert_eq!(run(&p, &[]), Ending::Returned { value: Some(4) });
}

#[test]
fn heap_and_pointer_undefined_behaviour_ends_the_run() {
    use UndefinedBehavior as U;
    // (statement, undefined behaviour); each on line 7 of the program.
    let cases = [
        ("int *p = (void *)0;\n  return *p;", U::NullDereference),
        (
            "int *p = malloc(sizeof(int));\n  *p = 1;\n  free(p);\n  return *p;",
            U::DanglingPointer,
        ),
        (
            "int *p = malloc(sizeof(int));\n  free(p);\n  free(p);\n  return 0;",
            U::DoubleFree,
        ),
        (
            "int *p = malloc(2 * sizeof(int));\n  p[2] = 1;\n  return 0;",
            U::PointerOutOfBounds,
        ),
        (
            "int *p = malloc(2 * sizeof(int));\n  free(p + 1);\n  return 0;",
            U::InvalidFree,
        ),
        (
            "int *p = malloc(sizeof(int));\n  return *p;",
            U::UninitializedRead,
        ),
        ("int a[2];\n  int *p = a;\n  return p[2];", U::PointerOutOfBounds),
        ("int *p = local();\n  return *p;", U::DanglingPointer),
    ];
    for (stmt, what) in cases {
        let body =
            format!("int *local(void) {{\n  int l = 3;\n  return &l;\n}}\nint main(void) {{\n  {stmt}\n}}\n");
        let p = program(&body, DataModel::ILP32);
        match run(&p, &[]) {
            Ending::UndefinedBehavior { what: got, .. } => assert_eq!(got, what, "{stmt}"),
            other => panic!("{stmt}: ended with {other}"),
        }
    }
}

/// Writes through pointers the analyses must see: ignoring `*p = 1` (or the heap write)
/// would make each error look unreachable, an easy wrong `true`.
#[test]
fn writes_through_pointers_never_give_a_wrong_verdict() {
    let unsafe_programs = [
        "int main(void) {\n  int x = 0;\n  int *p = &x;\n  *p = 1;\n  if (x == 1) reach_error();\n  return 0;\n}\n",
        "int a[3];\nint main(void) {\n  int *p = a + 1;\n  p[1] = 5;\n  if (a[2] == 5) reach_error();\n  return 0;\n}\n",
        "int main(void) {\n  int *p = malloc(sizeof(int));\n  *p = 5;\n  if (*p == 5) reach_error();\n  return 0;\n}\n",
        "int main(void) {\n  int x = 0, y = 0;\n  int *p = __VERIFIER_nondet_int() ? &x : &y;\n  *p = 1;\n  \
         if (y == 1) reach_error();\n  return 0;\n}\n",
    ];
    let safe_programs = [
        "int main(void) {\n  int x = 0;\n  int *p = &x;\n  *p = 1;\n  if (x != 1) reach_error();\n  return 0;\n}\n",
        "int main(void) {\n  int x = 0, y = 0;\n  int *p = __VERIFIER_nondet_int() ? &x : &y;\n  *p = 1;\n  \
         if (x + y != 1) reach_error();\n  return 0;\n}\n",
        &list(11),
    ];
    for kind in [AnalysisKind::Explicit, AnalysisKind::Predicate, AnalysisKind::Chc] {
        for text in unsafe_programs {
            let p = program(text, DataModel::ILP32);
            let out = verify(kind, &p);
            assert_ne!(out.verdict, Verdict::True, "{kind:?} on\n{text}");
            if out.verdict == Verdict::False {
                let cex = out.counterexample.expect("a false has its counterexample");
                assert!(cex.replay.is_error(), "{kind:?} on\n{text}");
            }
        }
        for text in safe_programs {
            let p = program(text, DataModel::ILP32);
            assert_ne!(verify(kind, &p).verdict, Verdict::False, "{kind:?} on\n{text}");
        }
    }
    // Known addresses are followed exactly (the explicit values; the path formulas select the
    // variable a pointer's value hits): both analyses decide the aliasing programs.
    for kind in [AnalysisKind::Explicit, AnalysisKind::Predicate] {
        for (text, verdict) in [
            (unsafe_programs[0], Verdict::False),
            (unsafe_programs[3], Verdict::False),
            (safe_programs[0], Verdict::True),
            (safe_programs[1], Verdict::True),
        ] {
            let p = program(text, DataModel::ILP32);
            assert_eq!(verify(kind, &p).verdict, verdict, "{kind:?} on\n{text}");
        }
    }
}

#[test]
fn emitted_pointer_programs_compile_and_read_back() {
    let programs = [
        ("list", list(10)),
        (
            "alias",
            "int g[4];\nint main(void) {\n  int x = __VERIFIER_nondet_int();\n  int *p = &x;\n  int *q = g;\n  \
             q[x & 3] = *p;\n  int *h = calloc(2, sizeof(int));\n  h[1] = g[1];\n  int r = h[1];\n  free(h);\n  \
             if (r == 5) reach_error();\n  return r;\n}\n"
                .to_string(),
        ),
    ];
    if !have_gcc() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, text) in &programs {
        for model in [DataModel::ILP32, DataModel::LP64] {
            let p = program(text, model);
            let c = emit_c(&p);
            match gcc_compiles(&c, name, model, dir.path()) {
                Ok(_) => {}
                Err(stderr) => panic!("{name} ({model}) does not compile:\n{stderr}\n{c}"),
            }
            let back = load_source("emitted.c", &c, model).unwrap_or_else(|e| panic!("{name}: {e}\n{c}"));
            for input in [0, 1, 4, 5] {
                assert_eq!(
                    run(&back, &[input]),
                    run(&p, &[input]),
                    "{name} ({model}) on {input}"
                );
            }
        }
    }
}

#[test]
fn what_the_memory_model_does_not_hold_is_rejected_with_its_line() {
    assert_errors(&[
        (
            "struct s { int a; int b; };\nint f(struct s v) {\n  struct s *p = &v;\n  return p->b;\n}\nint main(void) {\n  struct s x = {1, 2};\n  return f(x);\n}\n",
            "e.c:3: unsupported: address of a struct or union variable",
        ),
        (
            "int main(void) {\n  int n = 3;\n  int a[n][2];\n  int *p = &a[1][0];\n  return 0;\n}\n",
            "e.c:3: unsupported: pointer into a multi-dimensional variable-length array",
        ),
    ]);
}

/// Found by the gcc differential test (tests/support/cgen_pointers.rs): a pointer member of
/// a struct variable or an element of an array of pointers subscripted (`v.p[i]`, `pa[i][j]`)
/// designates what it points to (both were rejected as "subscripted value is not an array"),
/// and pointers to members of one struct compare in declaration order whichever member's
/// address is taken first (they compared in the order the addresses were taken). gcc
/// returns 7074 in both data models.
#[test]
fn pointer_members_and_member_addresses_follow_c() {
    let body = "struct view { int *p; int n; };\nstruct pair { int x; int y; };\nstruct pair g;\n\
                int main(void) {\n  int a[3] = { 1, 2, 3 };\n  struct view v;\n  v.p = a;\n  v.n = 3;\n  \
                v.p[v.n - 1] = 7;\n  struct pair s;\n  int *b = &s.y;\n  int *c = &s.x;\n  int *gb = &g.y;\n  \
                int *ga = &g.x;\n  int *pa[2];\n  pa[0] = a;\n  pa[1] = &a[1];\n  \
                return pa[1][1] * 1000 + a[2] * 10 + (c < b) + (ga < gb) + (b > c) + (v.p[0] == 1);\n}\n";
    for model in [DataModel::ILP32, DataModel::LP64] {
        let p = program(body, model);
        assert_eq!(run(&p, &[]), Ending::Returned { value: Some(7074) }, "{model}");
    }
}
