//! Random programs over structs, for the gcc differential test of Baton's struct model.
//!
//! Each program declares two struct types with random members (integers of every width,
//! `double`, arrays, the first struct nested in the second, an array of it), global and local
//! objects of them (single structs and arrays of structs), with random initialisers (nested
//! and elided braces, designators, partial lists). Statements write and read members through
//! any access path (`o[i].in.a[j]`, indices from inputs reduced modulo the extent), copy
//! whole structs and sub-structs, pass structs by value and branch on members. Arithmetic is unsigned and doubles
//! hold small non-negative integers, so no program has undefined behaviour. `main` returns a
//! hash of every scalar of every object and of the `sizeof` of both types (gcc's padding in
//! the data model under test).

use super::cgen::{GenProgram, Rng, NONDETS};

/// Member scalar types: C spelling, and whether it is a `double`.
const SCALARS: &[(&str, bool)] = &[
    ("char", false),
    ("unsigned char", false),
    ("short", false),
    ("unsigned short", false),
    ("int", false),
    ("unsigned int", false),
    ("long", false),
    ("long long", false),
    ("unsigned long long", false),
    ("double", true),
    ("_Bool", false),
];

/// A generated type.
#[derive(Clone)]
enum Ty {
    /// Index into [`SCALARS`].
    Scalar(usize),
    /// Struct 0 (the inner one) or 1.
    Struct(usize),
    Array(Box<Ty>, usize),
}

struct StructGen {
    rng: Rng,
    prefix: String,
    /// Members of struct 0 and struct 1.
    structs: Vec<Vec<(String, Ty)>>,
    lines: Vec<String>,
}

/// A scalar reachable in an object: its access path (with index placeholders `{k}`), its
/// scalar kind and the extents of the placeholders.
struct ScalarPath {
    text: Vec<String>,
    extents: Vec<usize>,
    scalar: usize,
}

impl StructGen {
    fn c_type(&self, t: &Ty) -> String {
        match t {
            Ty::Scalar(k) => SCALARS[*k].0.to_string(),
            Ty::Struct(k) => format!("struct {}s{k}", self.prefix),
            Ty::Array(elem, _) => self.c_type(elem),
        }
    }

    fn declaration(&self, t: &Ty, name: &str) -> String {
        let mut dims = String::new();
        let mut base = t;
        while let Ty::Array(elem, n) = base {
            dims.push_str(&format!("[{n}]"));
            base = elem;
        }
        format!("{} {name}{dims}", self.c_type(base))
    }

    fn member_type(&mut self, outer: bool) -> Ty {
        let scalar = Ty::Scalar(self.rng.below(SCALARS.len()));
        match self.rng.below(if outer { 7 } else { 5 }) {
            0 => Ty::Array(Box::new(scalar), 1 + self.rng.below(3)),
            5 => Ty::Struct(0),
            6 => Ty::Array(Box::new(Ty::Struct(0)), 1 + self.rng.below(2)),
            _ => scalar,
        }
    }

    /// Every scalar of an object of type `t` named by `path`.
    fn scalars(&self, t: &Ty, path: Vec<String>, extents: Vec<usize>, out: &mut Vec<ScalarPath>) {
        match t {
            Ty::Scalar(k) => out.push(ScalarPath {
                text: path,
                extents,
                scalar: *k,
            }),
            Ty::Struct(k) => {
                for (name, m) in &self.structs[*k] {
                    let mut p = path.clone();
                    if let Some(last) = p.last_mut() {
                        last.push_str(&format!(".{name}"));
                    }
                    self.scalars(m, p, extents.clone(), out);
                }
            }
            Ty::Array(elem, n) => {
                let mut p = path;
                p.push(String::new());
                let mut e = extents;
                e.push(*n);
                self.scalars(elem, p, e, out);
            }
        }
    }

    /// A scalar's path with index expressions chosen at random.
    fn access(&mut self, s: &ScalarPath) -> String {
        let mut out = s.text[0].clone();
        for (k, &n) in s.extents.iter().enumerate() {
            let index = match self.rng.below(3) {
                0 => format!("{}", self.rng.below(n)),
                _ => format!("v{} % {n}u", self.rng.below(3)),
            };
            out.push_str(&format!("[{index}]{}", s.text[k + 1]));
        }
        out
    }

    /// An initializer for type `t`: braces, partial lists, elision, designators.
    fn initializer(&mut self, t: &Ty) -> String {
        match t {
            Ty::Scalar(k) => self.constant(*k),
            Ty::Struct(k) => {
                let members = self.structs[*k].clone();
                let take = 1 + self.rng.below(members.len());
                let mut parts = Vec::new();
                for (name, m) in members.iter().take(take) {
                    let value = self.initializer(m);
                    if self.rng.chance(20) {
                        parts.push(format!(".{name} = {value}"));
                    } else {
                        parts.push(value);
                    }
                }
                format!("{{ {} }}", parts.join(", "))
            }
            Ty::Array(elem, n) => {
                let take = 1 + self.rng.below(*n);
                let parts: Vec<String> = (0..take).map(|_| self.initializer(elem)).collect();
                format!("{{ {} }}", parts.join(", "))
            }
        }
    }

    fn constant(&mut self, k: usize) -> String {
        if SCALARS[k].1 {
            format!("{}.5", self.rng.below(100))
        } else {
            format!("{}", self.rng.below(300))
        }
    }

    /// An unsigned expression over inputs and scalars.
    fn value(&mut self, scalars: &[ScalarPath], depth: usize) -> String {
        if depth == 0 || self.rng.chance(30) {
            return match self.rng.below(3) {
                0 => format!("{}u", self.rng.below(1000)),
                1 => format!("v{}", self.rng.below(3)),
                _ => {
                    let s = &scalars[self.rng.below(scalars.len())];
                    format!("(unsigned int) {}", self.access(s))
                }
            };
        }
        let op = *self.rng.pick(&["+", "*", "^", "-", "|"]);
        let a = self.value(scalars, depth - 1);
        let b = self.value(scalars, depth - 1);
        format!("({a} {op} {b})")
    }

    fn statement(&mut self, scalars: &[ScalarPath], copies: &[(String, String)]) -> String {
        match self.rng.below(10) {
            0..=4 => {
                let s = &scalars[self.rng.below(scalars.len())];
                let target = self.access(s);
                let value = self.value(scalars, 2);
                if SCALARS[s.scalar].1 {
                    format!("{target} = (double) ({value} % 4096u);")
                } else {
                    format!("{target} = {value};")
                }
            }
            5 | 6 if !copies.is_empty() => {
                let (a, b) = self.rng.pick(copies).clone();
                let (a, b) = (self.indexed(&a), self.indexed(&b));
                format!("{a} = {b};")
            }
            7 => {
                let s = &scalars[self.rng.below(scalars.len())];
                let t = &scalars[self.rng.below(scalars.len())];
                let (a, b) = (self.access(s), self.access(t));
                let inner = self.statement(scalars, copies);
                format!("if ({a} < {b}) {{ {inner} }}")
            }
            _ => {
                let s = &scalars[self.rng.below(scalars.len())];
                if SCALARS[s.scalar].1 {
                    return format!("v0 = v0 + (unsigned int) {};", self.access(s));
                }
                let target = self.access(s);
                format!("{target} += v{};", self.rng.below(3))
            }
        }
    }

    /// Replaces index placeholders `[#n]` by random in-range indices.
    fn indexed(&mut self, path: &str) -> String {
        let mut out = String::new();
        let mut rest = path;
        while let Some(i) = rest.find("[#") {
            out.push_str(&rest[..i]);
            let close = rest[i..].find(']').map_or(rest.len(), |c| i + c);
            let n: usize = rest[i + 2..close].parse().unwrap_or(1);
            let index = if self.rng.chance(50) {
                format!("{}", self.rng.below(n))
            } else {
                format!("v{} % {n}u", self.rng.below(3))
            };
            out.push_str(&format!("[{index}]"));
            rest = &rest[(close + 1).min(rest.len())..];
        }
        out.push_str(rest);
        out
    }
}

/// The program of `seed`, every file-scope name starting with `prefix`.
pub fn generate(seed: u64, prefix: &str) -> GenProgram {
    let mut g = StructGen {
        rng: Rng::new(seed ^ 0x5eed_57c7_0000_0000),
        prefix: prefix.to_string(),
        structs: Vec::new(),
        lines: Vec::new(),
    };
    for (suffix, ty) in NONDETS {
        g.lines
            .push(format!("extern {ty} __VERIFIER_nondet_{suffix}(void);"));
    }
    let decl_lines = g.lines.len();
    for outer in [false, true] {
        let count = 1 + g.rng.below(4);
        let members: Vec<(String, Ty)> = (0..count)
            .map(|i| (format!("m{i}"), g.member_type(outer)))
            .collect();
        g.structs.push(members);
    }
    for k in 0..2 {
        let members: Vec<String> = g.structs[k]
            .clone()
            .iter()
            .map(|(name, t)| format!("{};", g.declaration(t, name)))
            .collect();
        g.lines
            .push(format!("struct {prefix}s{k} {{ {} }};", members.join(" ")));
    }
    // Objects: (name, type, global).
    let n_arr = 1 + g.rng.below(3);
    let objects = [
        (format!("{prefix}g"), Ty::Struct(1), true),
        (
            format!("{prefix}ga"),
            Ty::Array(Box::new(Ty::Struct(1)), n_arr),
            true,
        ),
        ("l".to_string(), Ty::Struct(1), false),
        ("la".to_string(), Ty::Array(Box::new(Ty::Struct(0)), 3), false),
        ("li".to_string(), Ty::Struct(0), false),
    ];
    for (name, t, global) in &objects {
        if !*global {
            continue;
        }
        let init = if g.rng.chance(50) {
            format!(" = {}", g.initializer(t))
        } else {
            String::new()
        };
        g.lines.push(format!("{}{init};", g.declaration(t, name)));
    }
    // A function taking struct 0 by value (when it has no array member): it changes its copy.
    let by_value = g.structs[0].iter().all(|(_, t)| matches!(t, Ty::Scalar(_)));
    if by_value {
        let (first, t) = g.structs[0][0].clone();
        let write = match t {
            Ty::Scalar(k) if SCALARS[k].1 => format!("x.{first} = (double) (k % 64u);"),
            _ => format!("x.{first} += k;"),
        };
        let sum: Vec<String> = g.structs[0]
            .iter()
            .map(|(name, _)| format!("(unsigned int) x.{name}"))
            .collect();
        g.lines.push(format!(
            "unsigned int {prefix}f(struct {prefix}s0 x, unsigned int k) {{ {write} return k * 7u + {}; }}",
            sum.join(" * 3u + ")
        ));
    }
    g.lines.push("int main(void) {".into());
    for i in 0..3 {
        g.lines
            .push(format!("  unsigned int v{i} = __VERIFIER_nondet_uint();"));
    }
    for (name, t, global) in &objects {
        if *global {
            continue;
        }
        // Locals are always initialised: reading an indeterminate value has no C meaning.
        let init = if g.rng.chance(30) {
            "{ 0 }".to_string()
        } else {
            g.initializer(t)
        };
        g.lines.push(format!("  {} = {init};", g.declaration(t, name)));
    }
    let mut scalars = Vec::new();
    for (name, t, _) in &objects {
        g.scalars(t, vec![name.clone()], Vec::new(), &mut scalars);
    }
    // Struct copies between objects (and sub-objects) of the same type.
    let g_name = format!("{prefix}g");
    let ga = format!("{prefix}ga[#{n_arr}]");
    let mut copies = vec![
        ("l".to_string(), g_name.clone()),
        (ga.clone(), "l".to_string()),
        (g_name.clone(), ga.clone()),
        ("la[#3]".to_string(), "li".to_string()),
        ("li".to_string(), "la[#3]".to_string()),
    ];
    for (name, t) in g.structs[1].clone() {
        match t {
            Ty::Struct(0) => {
                copies.push((format!("l.{name}"), "li".into()));
                copies.push(("la[#3]".into(), format!("{ga}.{name}")));
            }
            Ty::Array(_, n) if matches!(t, Ty::Array(ref e, _) if matches!(**e, Ty::Struct(0))) => {
                copies.push((format!("{g_name}.{name}[#{n}]"), "la[#3]".into()));
                copies.push(("li".into(), format!("l.{name}[#{n}]")));
            }
            _ => {}
        }
    }
    for _ in 0..6 + g.rng.below(10) {
        let s = if by_value && g.rng.chance(15) {
            let arg = *g.rng.pick(&["li", "la[#3]"]);
            let arg = g.indexed(arg);
            format!("v1 = v1 + {prefix}f({arg}, v{});", g.rng.below(3))
        } else {
            g.statement(&scalars, &copies)
        };
        g.lines.push(format!("  {s}"));
    }
    g.lines.push("  unsigned int h = v1 ^ 17u;".into());
    g.lines.push(format!(
        "  h = h * 31u + (unsigned int) sizeof(struct {prefix}s0) + 1000u * (unsigned int) sizeof(struct {prefix}s1);"
    ));
    g.lines
        .push(format!("  h = h * 31u + (unsigned int) sizeof {prefix}ga;"));
    for s in &scalars {
        // Every element of every scalar path, by nested loops over its indices.
        let mut access = s.text[0].clone();
        let mut open = String::new();
        let mut close = String::new();
        for (k, &n) in s.extents.iter().enumerate() {
            open.push_str(&format!("for (int i{k} = 0; i{k} < {n}; i{k}++) "));
            access.push_str(&format!("[i{k}]{}", s.text[k + 1]));
            close.push(' ');
        }
        g.lines.push(format!(
            "  {open}{{ h = h * 31u + (unsigned int) {access}; }}{close}"
        ));
    }
    g.lines.push("  return (int) (h & 0x7fffffffu);".into());
    g.lines.push("}".into());
    GenProgram {
        prefix: prefix.to_string(),
        lines: g.lines,
        decl_lines,
    }
}
