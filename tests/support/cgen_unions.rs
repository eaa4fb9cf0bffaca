//! Random programs over unions with aggregate members, for the gcc differential test of
//! Baton's model of them (`src/frontend/lower/memory_union.rs`).
//!
//! Each program declares a struct of random scalars, a union of that struct, a random integer
//! word, an array of bytes and sometimes an array of `unsigned short`, and a struct holding the
//! union between two scalars. Global objects (a union, an array of unions, the outer struct)
//! are zero-initialised or initialised through the first or a designated member; locals are
//! copies of globals, so every byte of every object is determinate. Statements write any
//! member (directly, through an element of the array chosen by an input, through a pointer
//! and `->`), read members of other types (the bytes reinterpreted), copy whole unions and
//! structs holding them, and branch on members. Arithmetic is unsigned, so no program has
//! undefined behaviour. `main` returns a hash of every byte of every object (read through an
//! `unsigned char` pointer) and of the types' `sizeof` and `_Alignof` (gcc's layout in the
//! data model under test).

use super::cgen::{GenProgram, Rng, NONDETS};

/// Integer types of the struct's members and of the word: C spelling.
const SCALARS: &[&str] = &[
    "char",
    "unsigned char",
    "short",
    "unsigned short",
    "int",
    "unsigned int",
    "long",
    "long long",
    "unsigned long long",
];

/// A scalar member reachable in a union: its access path after the union and its C type.
struct Member {
    path: String,
    ty: String,
}

/// Generates the program of `seed`; every file-scope name starts with `prefix`.
pub fn generate(seed: u64, prefix: &str) -> GenProgram {
    let mut rng = Rng::new(seed ^ 0x0010_0010);
    let mut lines = Vec::new();
    for (name, ty) in NONDETS {
        lines.push(format!("extern {ty} __VERIFIER_nondet_{name}(void);"));
    }
    let decl_lines = lines.len();
    let p = prefix;
    // The struct member of the union.
    let fields = 1 + rng.below(4);
    let mut members = Vec::new();
    let mut struct_text = format!("struct {p}part {{");
    for k in 0..fields {
        let ty = *rng.pick(SCALARS);
        struct_text.push_str(&format!(" {ty} m{k};"));
        members.push(Member {
            path: format!(".s.m{k}"),
            ty: ty.to_string(),
        });
    }
    let with_double = rng.chance(30);
    if with_double {
        struct_text.push_str(" double d;");
    }
    struct_text.push_str(" };");
    lines.push(struct_text);
    let word = *rng.pick(SCALARS);
    let bytes = 2 + rng.below(11);
    let mut union_text = format!("union {p}u {{ struct {p}part s; {word} w; unsigned char b[{bytes}];");
    members.push(Member {
        path: ".w".into(),
        ty: word.to_string(),
    });
    let mut arrays = vec![(".b".to_string(), "unsigned char", bytes)];
    if rng.chance(50) {
        let halves = 1 + rng.below(6);
        union_text.push_str(&format!(" unsigned short h[{halves}];"));
        arrays.push((".h".into(), "unsigned short", halves));
    }
    union_text.push_str(" };");
    lines.push(union_text);
    lines.push(format!(
        "struct {p}outer {{ {} tag; union {p}u in; unsigned short n; }};",
        rng.pick(SCALARS)
    ));
    // Globals, zero or initialised through the first or a designated member.
    let g_init = match rng.below(3) {
        0 => String::new(),
        1 => format!(" = {{ {{ {} }} }}", rng.below(300)),
        _ => format!(" = {{ .w = {} }}", rng.below(100_000)),
    };
    lines.push(format!("union {p}u {p}g{g_init};"));
    lines.push(format!(
        "union {p}u {p}ga[3] = {{ {{ .b = {{ {}, {} }} }}, {{ {{ {} }} }} }};",
        rng.below(256),
        rng.below(256),
        rng.below(100)
    ));
    lines.push(format!(
        "struct {p}outer {p}go = {{ {}, {{ .w = {} }}, {} }};",
        rng.below(100),
        rng.below(1000),
        rng.below(1000)
    ));
    lines.push("int main(void) {".into());
    for i in 0..3 {
        lines.push(format!("  unsigned int v{i} = __VERIFIER_nondet_uint();"));
    }
    lines.push(format!("  union {p}u l = {p}g;"));
    lines.push(format!("  struct {p}outer lo = {p}go;"));
    lines.push(format!("  union {p}u *q = &{p}ga[v0 % 3u];"));
    let objects = [
        "l".to_string(),
        format!("{p}g"),
        format!("{p}ga[v1 % 3u]"),
        "lo.in".to_string(),
        format!("{p}go.in"),
        "(*q)".to_string(),
        "q->".to_string(),
    ];
    for _ in 0..8 + rng.below(12) {
        let object = rng.pick(&objects).clone();
        // `m` is a member path starting with `.`.
        let member_of = |m: &str| match object.strip_suffix("->") {
            Some(pointer) => format!("{pointer}->{}", &m[1..]),
            None => format!("{object}{m}"),
        };
        let v = rng.below(3);
        let c = 1 + rng.below(1000);
        let statement = match rng.below(7) {
            0 | 1 => {
                let m = rng.pick(&members);
                format!(
                    "{} = ({}) (v{v} * {c}u + {}u);",
                    member_of(&m.path),
                    m.ty,
                    rng.below(70_000)
                )
            }
            2 => {
                let (a, ty, n) = rng.pick(&arrays);
                format!("{}[v{v} % {n}u] = ({ty}) (v{v} + {c}u);", member_of(a))
            }
            3 => {
                let m = rng.pick(&members);
                let (a, _, n) = rng.pick(&arrays);
                format!(
                    "if ((unsigned int) {} > {c}u) v{v} = v{v} * 3u + {}[{}];",
                    member_of(&m.path),
                    member_of(a),
                    rng.below(*n)
                )
            }
            4 if with_double => format!("{} = (double) (v{v} % 1000u) / 8.0;", member_of(".s.d")),
            5 => {
                let copies = [
                    format!("l = {p}ga[v{v} % 3u];"),
                    format!("{p}ga[v{v} % 3u] = l;"),
                    "lo.in = *q;".to_string(),
                    format!("*q = {p}go.in;"),
                    format!("{p}go = lo;"),
                    format!("lo = {p}go;"),
                    format!("q = &{p}ga[v{v} % 3u];"),
                    "q = &lo.in;".to_string(),
                ];
                rng.pick(&copies).clone()
            }
            _ => {
                let m = rng.pick(&members);
                format!("v{v} = v{v} * 7u + (unsigned int) {};", member_of(&m.path))
            }
        };
        lines.push(format!("  {statement}"));
    }
    lines.push("  unsigned int h = v0 ^ v1 ^ v2;".into());
    lines.push(format!(
        "  h = h * 31u + (unsigned int) sizeof(union {p}u) + 100u * (unsigned int) _Alignof(union {p}u) \
         + 1000u * (unsigned int) sizeof(struct {p}outer);"
    ));
    for object in ["l", &format!("{p}g"), &format!("{p}ga"), "lo", &format!("{p}go")] {
        lines.push(format!(
            "  {{ const unsigned char *c = (const unsigned char *) &{object}; \
             for (unsigned int i = 0; i < sizeof {object}; i++) h = h * 31u + c[i]; }}"
        ));
    }
    lines.push("  return (int) (h & 0x7fffffffu);".into());
    lines.push("}".into());
    GenProgram {
        prefix: prefix.to_string(),
        lines,
        decl_lines,
    }
}
