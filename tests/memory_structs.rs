//! Structs (and arrays of pointers, which struct programs keep) through every layer: the frontend's lowering (records of scalar cells, `sizeof`
//! with gcc's padding, initialisers, copies), the interpreter's undefined behaviour (out of
//! bounds in an array of structs or a member array), the explicit and predicate analyses (never
//! wrong, every `false` replayed), CHC (never wrong) and the C emitter (residual-style output
//! compiles with gcc and reads back).

#[path = "support/memory_programs.rs"]
mod memory_programs;
#[path = "support/res_check.rs"]
mod res_check;

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
            assert_sound(name, kind, &p, reachable, &outcome);
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

/// Declarations the heap-style programs below use (after the prelude).
const HEAP_DECLS: &str =
    "typedef unsigned long size_t;\nextern void *malloc(size_t);\nextern void free(void *);\n";

/// Whole named structs behind pointers (`&l`, `&g_dev`, an array of structs decaying), struct
/// copies through pointers, a row of a two-dimensional array and a variable-length array
/// behind pointers: the value gcc computes (219 with `-m32` and `-m64`).
const IN_MEMORY: &str = "struct node { int data; struct node *next; struct node *prev; };\n\
struct list { struct node head; int len; };\n\
static void init(struct list *l) { l->head.next = &l->head; l->head.prev = &l->head; l->len = 0; }\n\
static void push(struct list *l, int v) {\n  struct node *n = malloc(sizeof *n);\n  \
n->data = v; n->next = l->head.next; n->prev = &l->head;\n  l->head.next->prev = n; l->head.next = n; l->len++;\n}\n\
struct ops { int (*probe)(int); int flags; };\n\
struct dev { int id; struct ops op; struct node cache[3]; };\n\
static int probe_a(int x) { return x + 1; }\n\
struct dev g_dev = { 7, { probe_a, 3 } };\n\
struct pt { int x; long y; char c; };\n\
int sum(struct pt p) { return p.x + (int)p.y + p.c; }\n\
int main(void) {\n  struct list l;\n  init(&l);\n  for (int i = 0; i < 4; i++) push(&l, i * 10);\n  int s = 0;\n  \
for (struct node *p = l.head.next; p != &l.head; p = p->next) s += p->data;\n  \
struct dev *d = &g_dev;\n  s += d->op.probe(d->id) + (*d).op.flags;\n  \
struct pt a = {1, 2, 3};\n  struct pt *q = malloc(sizeof(struct pt));\n  *q = a;\n  q->x += 5;\n  \
struct pt b = *q;\n  s += sum(*q) + b.x;\n  struct pt arr[4];\n  struct pt *pa = arr;\n  \
for (int i = 0; i < 4; i++) { pa[i].x = i; (pa + i)->y = i * 3; arr[i].c = 1; }\n  \
s += arr[3].x + (int)arr[2].y + (pa+1)->c;\n  d->cache[1] = l.head;\n  s += d->cache[1].next == l.head.next;\n  \
struct node *nn = &d->cache[2];\n  nn->data = 99;\n  s += g_dev.cache[2].data;\n  int m[3][4];\n  \
for (int i = 0; i < 3; i++) for (int j = 0; j < 4; j++) m[i][j] = i * 4 + j;\n  \
int *r = m[1]; int (*row)[4] = m;\n  s += r[3] + row[2][1];\n  \
int n = 6; int vla[n]; int *vp = vla;\n  for (int i = 0; i < n; i++) vp[i] = i; s += vla[5];\n  \
free(q);\n  return s % 256;\n}\n";

#[test]
fn named_structs_live_in_memory_at_gccs_layout() {
    let body = format!("{HEAP_DECLS}{IN_MEMORY}");
    for model in [DataModel::ILP32, DataModel::LP64] {
        let p = program(&body, model);
        assert_eq!(run(&p, &[]), Ending::Returned { value: Some(219) }, "{model}");
    }
}

#[test]
fn misuse_of_structs_in_memory_is_undefined_behaviour() {
    let ub = |what, line| Ending::UndefinedBehavior { what, line };
    let cases = [
        // A pointer to a local struct kept after its function returned.
        (
            "struct s { int a; int b; };\nstruct s *keep(void) {\n  struct s v = {1, 2};\n  struct s *p = &v;\n  return p;\n}\n\
             int main(void) {\n  struct s *p = keep();\n  return p->b;\n}\n",
            vec![],
            ub(UndefinedBehavior::DanglingPointer, 12),
        ),
        // One element past an array of structs, through a pointer into it.
        (
            "struct s { int a; char c; };\nint main(void) {\n  struct s t[3];\n  struct s *p = t;\n  \
             int i = __VERIFIER_nondet_int();\n  p[i].a = 1;\n  return t[0].a;\n}\n",
            vec![3],
            ub(UndefinedBehavior::PointerOutOfBounds, 9),
        ),
        (
            "struct s { int a; char c; };\nint main(void) {\n  struct s *p = 0;\n  return (*p).a;\n}\n",
            vec![],
            ub(UndefinedBehavior::NullDereference, 7),
        ),
        // A variable-length array behind a pointer: its length bounds the pointer.
        (
            "int main(void) {\n  int n = __VERIFIER_nondet_int();\n  int a[n];\n  int *p = a;\n  p[n] = 1;\n  return 0;\n}\n",
            vec![2],
            ub(UndefinedBehavior::PointerOutOfBounds, 8),
        ),
        (
            "int main(void) {\n  int n = __VERIFIER_nondet_int();\n  int a[n];\n  int *p = a;\n  return p == 0;\n}\n",
            vec![0],
            ub(UndefinedBehavior::ArraySizeNotPositive, 6),
        ),
    ];
    for (body, inputs, expected) in cases {
        for model in [DataModel::ILP32, DataModel::LP64] {
            let p = program(body, model);
            assert_eq!(run(&p, &inputs), expected, "{model}:\n{body}");
        }
    }
}

/// Programs in the style of sv-benchmarks' list-properties (a doubly linked list with a sentinel
/// node inside a struct), heap-manipulation (tree insertion through a pointer to a pointer), ldv
/// (a driver struct with an ops struct of function pointers, a nested anonymous struct) and
/// product-lines (feature flags, messages copied into clients' inboxes): (name, body, an input
/// list reaching the error). The line marked `/* bug */` is the error; without it the program is safe.
const HEAP_STYLE: &[(&str, &str, &[i128])] = &[
    (
        "dll",
        "struct node { int data; struct node *next; struct node *prev; };\n\
struct list { struct node head; int len; };\n\
static void list_init(struct list *l) { l->head.next = &l->head; l->head.prev = &l->head; l->len = 0; }\n\
static void list_add(struct list *l, int v) {\n\
  struct node *n = malloc(sizeof(struct node));\n\
  n->data = v; n->prev = l->head.prev; n->next = &l->head;\n\
  l->head.prev->next = n; l->head.prev = n; l->len++;\n\
}\n\
int main(void) {\n\
  struct list l;\n\
  list_init(&l);\n\
  int n = __VERIFIER_nondet_int();\n\
  if (n < 0 || n > 4) return 0;\n\
  for (int i = 0; i < n; i++) list_add(&l, i == 2 ? 7 : 1);\n\
  int count = 0, sum = 0;\n\
  for (struct node *p = l.head.next; p != &l.head; p = p->next) { count++; sum += p->data; }\n\
  if (count != l.len || l.head.prev->next != &l.head) reach_error();\n\
  if (sum == 9) reach_error(); /* bug */\n\
  while (l.head.next != &l.head) { struct node *x = l.head.next; l.head.next = x->next; free(x); }\n\
  return 0;\n\
}\n",
        &[3],
    ),
    (
        "tree",
        "struct tree { int key; struct tree *left, *right; };\n\
static void insert(struct tree **root, int k) {\n\
  struct tree **p = root;\n\
  while (*p) p = k < (*p)->key ? &(*p)->left : &(*p)->right;\n\
  *p = malloc(sizeof **p);\n\
  (*p)->key = k; (*p)->left = 0; (*p)->right = 0;\n\
}\n\
int main(void) {\n\
  struct tree *root = 0;\n\
  int a = __VERIFIER_nondet_int(), b = __VERIFIER_nondet_int();\n\
  insert(&root, 5); insert(&root, a); insert(&root, b);\n\
  struct tree top = *root;\n\
  if (top.key != 5 || (top.left && top.left->key >= 5)) reach_error();\n\
  if (root->left && root->left->right && root->left->right->key == 4) reach_error(); /* bug */\n\
  return 0;\n\
}\n",
        &[3, 4],
    ),
    (
        "driver",
        "struct dev;\n\
struct ops { int (*probe)(struct dev *); void (*remove)(struct dev *); };\n\
struct dev { int id; int state; const struct ops *ops; struct { int irq; int flags; } res; };\n\
static int my_probe(struct dev *d) { if (d->res.irq < 0) return -1; d->state = 1; return 0; }\n\
static void my_remove(struct dev *d) { d->state = 0; }\n\
static const struct ops my_ops = { my_probe, my_remove };\n\
struct dev g_dev;\n\
int main(void) {\n\
  struct dev *d = &g_dev;\n\
  d->ops = &my_ops;\n\
  d->res.irq = __VERIFIER_nondet_int();\n\
  int r = d->ops->probe(d);\n\
  if (r == 0 && d->state != 1) reach_error();\n\
  if (r == 0) {\n\
    struct dev copy = *d;\n\
    d->ops->remove(d);\n\
    if (copy.state == 1 && g_dev.state == 0 && copy.res.irq == 13) reach_error(); /* bug */\n\
  }\n\
  return 0;\n\
}\n",
        &[13],
    ),
    (
        "product",
        "int feature_encrypt, feature_sign;\n\
struct msg { int id; int encrypted; int signed_by; struct msg *next; };\n\
struct client { int key; struct msg inbox[3]; int count; };\n\
static void deliver(struct client *c, struct msg *m) { if (c->count < 3) { c->inbox[c->count] = *m; c->count++; } }\n\
static void send(struct client *from, struct client *to, int id) {\n\
  struct msg m = { id, 0, 0, 0 };\n\
  if (feature_encrypt) m.encrypted = from->key;\n\
  if (feature_sign) m.signed_by = from->key;\n\
  deliver(to, &m);\n\
}\n\
struct client clients[2];\n\
int main(void) {\n\
  feature_encrypt = __VERIFIER_nondet_int();\n\
  feature_sign = __VERIFIER_nondet_int();\n\
  struct client *alice = &clients[0], *bob = clients + 1;\n\
  alice->key = 11; bob->key = 22;\n\
  send(alice, bob, 1); send(bob, alice, 2);\n\
  struct msg *last = &bob->inbox[bob->count - 1];\n\
  if (feature_encrypt && last->encrypted != alice->key) reach_error();\n\
  if (feature_sign && !feature_encrypt && last->signed_by == 11) reach_error(); /* bug */\n\
  return 0;\n\
}\n",
        &[0, 1],
    ),
];

/// The buggy (`reachable`) or safe variant of a [`HEAP_STYLE`] program.
fn heap_style(body: &str, reachable: bool, model: DataModel) -> Program {
    let text = if reachable {
        body.to_string()
    } else {
        body.replace("reach_error(); /* bug */", "abort(); /* bug */")
    };
    program(&format!("{HEAP_DECLS}{text}"), model)
}

#[test]
fn analyses_are_sound_on_heap_style_programs() {
    for &(name, body, bug) in HEAP_STYLE {
        for reachable in [true, false] {
            let p = heap_style(body, reachable, DataModel::ILP32);
            assert_eq!(run(&p, bug).is_error(), reachable, "{name}: the bug input");
            for kind in [AnalysisKind::Explicit, AnalysisKind::Predicate] {
                let outcome = verify(kind, &p);
                assert_sound(name, kind, &p, reachable, &outcome);
                // The explicit analysis tracks the heap: it finds these bugs.
                if kind == AnalysisKind::Explicit && reachable && name != "driver" {
                    assert_eq!(outcome.verdict, Verdict::False, "{name}: {}", outcome.reason);
                }
            }
        }
    }
}

#[test]
fn heap_style_programs_emit_compilable_c_that_reads_back() {
    if !have_gcc() {
        return;
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let in_memory = format!("{HEAP_DECLS}{IN_MEMORY}");
    let programs = HEAP_STYLE
        .iter()
        .map(|&(name, body, bug)| (name, format!("{HEAP_DECLS}{body}"), bug))
        .chain([("in_memory", in_memory, &[][..])]);
    for (name, text, bug) in programs {
        for model in [DataModel::ILP32, DataModel::LP64] {
            let p = program(&text, model);
            let c = emit_c(&p);
            match gcc_compiles(&c, name, model, dir.path()) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(stderr) => panic!("{name} ({model}) does not compile:\n{stderr}\n{c}"),
            }
            // `in_memory` copies a member never written: 0 to Baton's interpreter, as for an
            // uninitialised local, also after the round trip through C.
            let back = load_source("back.c", &c, model).unwrap_or_else(|e| panic!("{name}: {e}"));
            for inputs in [bug.to_vec(), vec![], vec![0, 0], vec![2, 1], vec![-1, 9]] {
                assert_eq!(
                    format!("{:?}", run(&back, &inputs)).split(" line").next(),
                    format!("{:?}", run(&p, &inputs)).split(" line").next(),
                    "{name} ({model}) on {inputs:?}"
                );
            }
        }
    }
}

#[test]
fn residuals_of_cut_explicit_runs_compile_and_satisfy_res() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut violations = Vec::new();
    let mut tally = res_check::Tally::default();
    for (k, &(name, body, bug)) in HEAP_STYLE.iter().enumerate() {
        for reachable in [true, false] {
            let p = heap_style(body, reachable, DataModel::ILP32);
            let mut inputs = res_check::input_lists(&p, 0x57 + k as u64, 40);
            inputs.push(bug.to_vec());
            for give_up in ["path-length=25", "reached-states=40", "repeating-locations=2"] {
                let label = format!(
                    "{name} ({}) / explicit {give_up}",
                    if reachable { "buggy" } else { "safe" }
                );
                let residual = res_check::residual_of_cut_explicit_run(
                    &label,
                    &p,
                    give_up,
                    &inputs,
                    &mut violations,
                    &mut tally,
                );
                if have_gcc() {
                    let c = emit_c(&residual);
                    if let Err(stderr) = gcc_compiles(&c, name, DataModel::ILP32, dir.path()) {
                        panic!("{label}: the residual does not compile:\n{stderr}\n{c}");
                    }
                }
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
    // Not vacuous: covered and uncovered runs, errors in the residuals.
    assert!(tally.covered > 0 && tally.covered < tally.runs, "{tally:?}");
    assert!(tally.residual_errors > 0, "{tally:?}");
}
