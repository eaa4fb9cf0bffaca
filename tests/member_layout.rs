//! The layout of a flattened struct seen through its members' addresses: differences,
//! relational comparisons, arithmetic from one member to another, member addresses as
//! integers, `offsetof`, `container_of`-style arithmetic, arrays of structs and nested
//! structs give gcc's values in both data models, in the interpreter, the explicit, predicate
//! and CHC analyses and the emitted C (`src/frontend/lower/placed.rs`); accesses across
//! members or into padding are `unknown`, never a verdict; what cannot be laid out is
//! rejected with its line. gcc (-m32 and -m64) is the oracle where it is installed.

#[path = "support/memory_programs.rs"]
mod memory_programs;

use baton::analyses::AnalysisKind;
use baton::cfa::types::DataModel;
use baton::cfa::Program;
use baton::verdict::Verdict;
use memory_programs::{assert_errors, have_gcc, run, verify, Twins};

/// The structs the programs use: padding after `tag` and inside `in`, a `long long` member
/// aligned differently in the two data models, an array member.
const DECLS: &str = "struct in { char c; long long d; };\n\
struct rec { char tag; int value; struct in n; short arr[3]; };\n\
struct rec g = { 1, 2, { 3, 4 }, { 5, 6, 7 } };\n\
struct rec ga[3];\n";

/// (name, statements, a condition gcc makes true after them): see [`Twins`].
const PROGRAMS: &[(&str, &str, &str)] = &[
    ("difference", "", "(char *)&g.value - (char *)&g.tag == 4"),
    (
        "nested_difference",
        "",
        "(char *)&g.n.d - (char *)&g.tag == (sizeof(long) == 8 ? 16 : 12) \
         && (char *)&g.arr[2] - (char *)&g.n.c == (sizeof(long) == 8 ? 20 : 16)",
    ),
    (
        "relational",
        "struct rec l;\n  l.tag = 0;",
        "(char *)&l.tag < (char *)&l.n.c && (char *)&l.arr[0] > (char *)&l.n.d \
         && &l.arr[0] < &l.arr[2] && (char *)&l.value >= (char *)&l.tag + 4",
    ),
    (
        "read_through_arithmetic",
        "g.value = 9;",
        "*(int *)((char *)&g.tag + 4) == 9",
    ),
    (
        "write_through_arithmetic",
        "struct rec l;\n  l.arr[1] = 0;\n  \
         *(short *)((char *)&l.n.c + __builtin_offsetof(struct rec, arr[1]) - __builtin_offsetof(struct rec, n)) = 5;",
        "l.arr[1] == 5",
    ),
    (
        "as_integers",
        "",
        "(unsigned long)&g.arr[2] - (unsigned long)&g.tag == __builtin_offsetof(struct rec, arr[2])",
    ),
    (
        "array_of_structs",
        "",
        "(char *)&ga[1].value - (char *)&ga[0].tag == sizeof(struct rec) + 4 \
         && (char *)&ga[1].tag > (char *)&ga[0].arr[2]",
    ),
    (
        "nondet_index",
        "struct rec l;\n  int k = __VERIFIER_nondet_int();\n  if (k < 0 || k > 2) return 0;",
        "(char *)&l.arr[k] - (char *)&l.tag == __builtin_offsetof(struct rec, arr) + 2 * k",
    ),
    (
        "container_of",
        "struct rec l;\n  l.value = 7;\n  \
         struct rec *back = (struct rec *)((char *)&l.value - __builtin_offsetof(struct rec, value));\n  \
         back->arr[1] = 3;",
        "back->value + l.arr[1] == 10",
    ),
    (
        "offsetof",
        "",
        "__builtin_offsetof(struct rec, n.d) + __builtin_offsetof(struct rec, arr[2]) \
         == (sizeof(long) == 8 ? 44 : 36)",
    ),
];

/// The programs with their twins; the nondet function returns 1.
const TWINS: Twins = Twins {
    file: "layout.c",
    decls: DECLS,
    programs: PROGRAMS,
    nondet: 1,
    nondeterministic: &["nondet_index"],
};

fn program(body: &str, model: DataModel) -> Program {
    memory_programs::program("layout.c", body, model)
}

/// Every observation of the layout gives gcc's value: the interpreter ends both twins as gcc
/// does, the explicit analysis decides them exactly, the predicate and CHC analyses never
/// answer wrongly.
#[test]
fn member_addresses_give_gccs_layout() {
    TWINS.assert_decided();
}

/// The emitted C declares the leaves of such a struct as one C struct with gcc's layout: it
/// compiles, gcc running it reaches the error exactly in the buggy twins, and it reads back.
#[test]
fn emitted_programs_keep_the_layout() {
    TWINS.assert_emitted_behave();
}

/// Accesses that cover several members or padding (allowed in C through `char`, reading an
/// object's representation) are not modelled: `unknown`, never `true`, though gcc reaches
/// the error. A byte stored into an `int` through a pointer leaves it unknown to the
/// predicate analysis (it was unchanged, a wrong `true`).
#[test]
fn accesses_across_members_are_unknown() {
    let programs = [
        "struct two { char a; char b; int v; } s;\nint main(void) {\n  s.a = 1; s.b = 2;\n  \
         if (*(unsigned short *)&s.a == 0x0201) reach_error();\n  return 0;\n}\n",
        "struct two { char a; char b; int v; } s;\nint main(void) {\n  \
         *(unsigned short *)&s.a = 0x0201;\n  if (s.b == 2) reach_error();\n  return 0;\n}\n",
        "struct pad { char a; int v; } s;\nint main(void) {\n  char *p = (char *)&s.a + 2;\n  \
         *p = 5;\n  if (*p == 5) reach_error();\n  return 0;\n}\n",
        "int x;\nint main(void) {\n  *(char *)&x = 1;\n  if (x == 1) reach_error();\n  return 0;\n}\n",
        "struct pad { char a; int v; } s;\nint main(void) {\n  char *p = (char *)&s.v;\n  \
         p[1] = 1;\n  if (s.v == 256) reach_error();\n  return 0;\n}\n",
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    let gcc = have_gcc();
    for (k, body) in programs.iter().enumerate() {
        let label = format!("program {k}");
        if gcc {
            assert_eq!(
                TWINS.gcc_reaches_error(body, DataModel::LP64, dir.path()),
                Some(true),
                "{label}: gcc"
            );
        }
        let p = program(body, DataModel::ILP32);
        let ending = run(&p, &[]);
        assert!(ending.to_string().contains("not modelled"), "{label}: {ending}");
        for kind in [AnalysisKind::Explicit, AnalysisKind::Predicate] {
            let outcome = verify(kind, &p);
            assert_eq!(
                outcome.verdict,
                Verdict::Unknown,
                "{label}, {kind:?}: {}",
                outcome.reason
            );
        }
    }
}

/// A struct parameter's leaves are parameters, which cannot be laid out as one object.
#[test]
fn member_addresses_of_struct_parameters_are_unsupported() {
    assert_errors(&[(
        "struct rec { char tag; int value; };\n\
         int f(struct rec p) { return (char *)&p.value - (char *)&p.tag; }\n\
         int main(void) { struct rec l; l.value = 7; return f(l); }\n",
        "e.c:2: unsupported: address of a member of a struct parameter",
    )]);
}
