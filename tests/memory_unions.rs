//! Unions with struct, array, union, pointer and `_Bool` members (`src/frontend/lower/
//! memory_union.rs`): type punning between a word, its halves and its bytes, such unions in
//! structs and arrays and on the heap, initialisers (first member and designated), whole-union
//! assignment, `.` and `->`, `sizeof` and `_Alignof`. Each program has a buggy twin; gcc
//! (-m32 and -m64) is the oracle where it is installed, the interpreter ends both twins as gcc
//! does, the explicit analysis decides them (every `false` replayed), the predicate and CHC
//! analyses are never wrong, and the emitted C compiles, behaves as gcc runs the original and
//! reads back.

#[path = "support/memory_programs.rs"]
mod memory_programs;

use baton::analyses::AnalysisKind;
use baton::cfa::types::DataModel;
use baton::cfa::Program;
use baton::verdict::Verdict;
use memory_programs::{assert_errors, run, verify, Twins};

/// The unions the programs use: a word beside its halves and its bytes, a pointer beside an
/// integer and a `_Bool`, a union inside a struct (with padding in LP64), a union of a union,
/// a `long long` and a struct whose layout differs between the data models, and one with
/// anonymous struct and union members.
const DECLS: &str = "extern void *malloc(unsigned long);\nextern void free(void *);\n\
struct pair { short lo; short hi; };\n\
union U { struct pair parts; int whole; unsigned char bytes[4]; };\n\
union P { int *ptr; unsigned long addr; _Bool flag; };\n\
struct node { int tag; union U u; struct node *next; };\n\
union N { union U inner; long long wide; struct { char c; double d; } pad; };\n\
union S { int i; float f; };\n\
struct box { char c; union S s; union U u[2]; };\n\
union A { struct { unsigned short lo; unsigned short hi; }; unsigned int word; union { unsigned char b0; signed char s0; }; };\n\
union U gu = { .whole = 0x01020304 };\n\
struct node gn[2] = { { 1, { { 5, 6 } }, 0 }, { 2, { .whole = -1 }, 0 } };\n\
union N gz;\n";

/// (name, statements, a condition gcc makes true after them): see [`Twins`].
const PROGRAMS: &[(&str, &str, &str)] = &[
    (
        "punning",
        "union U u;\n  u.whole = 0x00020001;",
        "u.parts.lo == 1 && u.parts.hi == 2 && u.bytes[2] == 2 && u.bytes[3] == 0",
    ),
    (
        "bytes_into_word",
        "union U u;\n  u.whole = 0;\n  u.bytes[1] = 0xff;\n  u.parts.hi = -1;",
        "u.whole == (int)0xffffff00 && u.parts.lo == -256 && u.bytes[3] == 255",
    ),
    (
        "global_initialisers",
        "",
        "gu.bytes[0] == 4 && gu.parts.hi == 0x0102 && gn[1].u.parts.lo == -1 \
         && gn[0].u.whole == (6 << 16) + 5 && gn[0].next == 0 && gz.wide == 0",
    ),
    (
        "local_initialisers",
        "union U a = { .bytes = { 1, 2 } };\n  union U b = { { 7, 8 } };\n  \
         struct node n = { 3, { .whole = 0x10203 }, &n };\n  struct box x = { 'a', { 5 }, { { .whole = 9 } } };",
        "a.whole == 0x0201 && b.whole == 0x80007 && n.u.bytes[2] == 1 && n.next->tag == 3 \
         && x.s.i == 5 && x.u[0].bytes[0] == 9 && x.u[1].whole == 0",
    ),
    (
        "through_pointers",
        "struct node *p = &gn[0];\n  p->u.bytes[0] = 9;\n  p->next = &gn[1];\n  \
         union U *q = &p->next->u;\n  q->parts.hi = 0;",
        "gn[0].u.parts.lo == 9 && p->next->u.whole == 0xffff && (*q).bytes[1] == 255",
    ),
    (
        "assignment",
        "union U a, b;\n  a.whole = 77;\n  b = a;\n  a.whole = 1;\n  a = a;\n  \
         struct node m = gn[0];\n  m.u.whole = 3;\n  gn[1] = m;",
        "b.parts.lo == 77 && a.whole == 1 && gn[0].u.whole != 3 && m.tag == 1 \
         && m.u.bytes[0] == 3 && gn[1].u.parts.lo == 3",
    ),
    (
        "pointer_member",
        "int x = 5;\n  union P p;\n  p.ptr = &x;\n  *p.ptr = 6;",
        "x == 6 && p.addr == (unsigned long)&x",
    ),
    (
        "bool_member",
        "union P p;\n  p.addr = 0;\n  p.flag = 7;",
        "p.addr == 1 && p.flag",
    ),
    (
        "nested_unions",
        "union N n;\n  n.wide = 0;\n  n.inner.whole = 0x7f;\n  n.pad.c = 1;\n  struct box x;\n  \
         x.s.f = 1.0f;\n  x.u[1].parts.lo = 2;",
        "n.wide == 1 && n.inner.bytes[0] == 1 && x.s.i == 0x3f800000 && x.u[1].bytes[0] == 2",
    ),
    (
        "sizes_and_alignment",
        "",
        "sizeof(union U) == 4 && sizeof(union P) == sizeof(long) && sizeof(struct node) == 4 + 4 + sizeof(void *) \
         && sizeof(union N) == (sizeof(long) == 8 ? 16 : 12) && _Alignof(union N) == (sizeof(long) == 8 ? 8 : 4) \
         && sizeof(struct box) == 16 && sizeof gn == 2 * sizeof(struct node) \
         && __builtin_offsetof(struct box, u[1].parts.hi) == 14",
    ),
    (
        "heap",
        "union U *h = malloc(sizeof *h);\n  h->whole = 0x01000000;\n  unsigned char top = h->bytes[3];\n  \
         h->parts.lo = 4;\n  int w = h->whole;\n  free(h);",
        "top == 1 && w == 0x01000004",
    ),
    (
        "anonymous_members",
        "union A a;\n  a.word = 0x8001ff82u;\n  union A *pa = &a;\n  pa->hi = 7;",
        "a.lo == 0xff82 && a.word == 0x0007ff82u && a.b0 == 130 && pa->s0 == -126 && sizeof(union A) == 4 \
         && sizeof a.lo == 2",
    ),
    (
        "nondet_word",
        "union U u;\n  u.whole = __VERIFIER_nondet_int();",
        "u.parts.lo == (short)u.whole && u.bytes[0] == (unsigned char)u.whole",
    ),
];

/// The programs with their twins; the nondet function returns 0x12345.
const TWINS: Twins = Twins {
    file: "unions.c",
    decls: DECLS,
    programs: PROGRAMS,
    nondet: 0x12345,
    nondeterministic: &["nondet_word"],
};

fn program(body: &str, model: DataModel) -> Program {
    memory_programs::program("unions.c", body, model)
}

/// Every member read gives the bytes gcc reads: the interpreter ends both twins as gcc does,
/// the explicit analysis decides them exactly (but for the nondeterministic one), the
/// predicate and CHC analyses never answer wrongly.
#[test]
fn members_read_the_bytes_gcc_reads() {
    TWINS.assert_decided();
}

/// The emitted C compiles, gcc running it reaches the error exactly in the buggy twins, and
/// it reads back to a program the interpreter ends the same way.
#[test]
fn emitted_programs_keep_the_unions() {
    TWINS.assert_emitted_behave();
}

/// Reading a member of a `malloc`ed union never written is undefined behaviour (as for any
/// heap object); bytes a union assignment copies need not have been written.
#[test]
fn uninitialised_heap_unions_follow_the_memory_model() {
    let p = program(
        &format!(
            "{DECLS}int main(void) {{\n  union U *h = malloc(sizeof *h);\n  union U *k = malloc(sizeof *k);\n  \
             h->parts.lo = 1;\n  *k = *h;\n  if (k->parts.lo != 1) reach_error();\n  \
             if (k->parts.hi == 3) reach_error();\n  return 0;\n}}\n"
        ),
        DataModel::ILP32,
    );
    let ending = run(&p, &[]);
    assert!(!ending.is_error(), "{ending}");
    assert!(ending.to_string().contains("uninitialised"), "{ending}");
    for kind in [AnalysisKind::Explicit, AnalysisKind::Predicate] {
        let outcome = verify(kind, &p);
        assert_ne!(outcome.verdict, Verdict::False, "{kind:?}: {}", outcome.reason);
    }
}

/// What is not modelled is rejected with the program's line.
#[test]
fn unmodelled_unions_get_one_line_errors() {
    assert_errors(&[
        (
            "union V { struct { int a; } s; long double d; };\nint main(void) { union V v; v.s.a = 1; return 0; }\n",
            "e.c:2: unsupported: union with a member of type long double",
        ),
        (
            "union V { struct { int a; } s; int b; };\nint f(union V v) { return v.b; }\n\
             int main(void) { union V v; v.b = 1; return f(v); }\n",
            "e.c:2: unsupported: union with aggregate members used as a value (only assignment, initialisation and member access are modelled)",
        ),
        (
            "union V { int a[2]; int b; };\nint main(void) { static union V v; v.b = 1; return v.a[0]; }\n",
            "e.c:2: unsupported: static local union with aggregate members (or a struct holding one)",
        ),
        (
            "union V { struct { int a; }; int b; };\nint main(void) { union V v = { .a = 1 }; return v.b; }\n",
            "e.c:2: unsupported: designated initializer of a union with an anonymous member",
        ),
        (
            // Once dropped silently (sizeof 4 where gcc says 8).
            "struct S { int a; union { int b; float c; }; };\nint main(void) { struct S s; s.a = sizeof(struct S); return s.a; }\n",
            "e.c:2: unsupported: anonymous struct or union member",
        ),
        (
            "union V { int a[2]; int b : 3; };\nint main(void) { union V v; v.b = 1; return 0; }\n",
            "e.c:2: unsupported: bit-field in a union",
        ),
    ]);
}
