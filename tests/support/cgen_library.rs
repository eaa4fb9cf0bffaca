//! Random programs calling the C library's memory and string functions, for the gcc
//! differential test of Baton's model of them (`src/cfa/library.rs`).
//!
//! Each program has arrays of integers of several widths (global and local), a struct type
//! with random integer members (local, global and heap objects of it, whose addresses are
//! taken), an `int` heap block, and strings (local `char` arrays and a heap block). Statements
//! `memset` ranges with byte patterns, `memcpy` between different objects of any element
//! types (so values are split into and composed from bytes), `memmove` within one object
//! (overlapping), compare with `memcmp`, and build strings with `strcpy`, `strncpy`, `strcat`
//! and `memset`, measuring and comparing them with `strlen`, `strcmp`, `strncmp` and
//! `strchr`. Offsets and lengths come from inputs (reduced into range) or constants. No
//! program has undefined behaviour: ranges stay in their objects, `memcpy` never overlaps,
//! every object is set before it is read, strings keep a NUL inside their array (the generator
//! keeps an upper bound of each string's length), and only the sign of a comparison is used
//! (C fixes nothing more). `main` returns a hash of every element of every array and every
//! byte of the structs and strings.

use super::cgen::{GenProgram, Rng};

/// Element types of the arrays: C spelling and size in bytes.
const ELEMENTS: &[(&str, usize)] = &[
    ("unsigned char", 1),
    ("short", 2),
    ("int", 4),
    ("unsigned int", 4),
    ("long long", 8),
];

/// Struct member types: C spelling and size.
const MEMBERS: &[(&str, usize)] = &[
    ("char", 1),
    ("unsigned char", 1),
    ("short", 2),
    ("int", 4),
    ("unsigned int", 4),
    ("long long", 8),
];

/// Bytes for `memset`.
const PATTERNS: &[&str] = &["0", "0xff", "0x7f", "0x80", "0x41", "1", "0x1ff", "-2"];

/// Words the strings are made of.
const WORDS: &[&str] = &["", "a", "ab", "abc", "xyz", "hello", "b", "ba", "zz"];

/// An array-like object: its expression (a name or a pointer), element type, length.
#[derive(Clone)]
struct Array {
    name: String,
    element: usize,
    len: usize,
}

impl Array {
    fn bytes(&self) -> usize {
        self.len * ELEMENTS[self.element].1
    }
}

/// A string buffer: its expression, its size, and an upper bound of its string's length.
#[derive(Clone)]
struct Text {
    name: String,
    size: usize,
    max_len: usize,
}

struct LibraryGen {
    rng: Rng,
    prefix: String,
    arrays: Vec<Array>,
    texts: Vec<Text>,
    /// Struct objects (as expressions of their address).
    structs: Vec<String>,
    members: Vec<(String, usize)>,
    lines: Vec<String>,
}

impl LibraryGen {
    /// An input-dependent or constant number in `0..=max`.
    fn up_to(&mut self, max: usize) -> String {
        if self.rng.chance(50) {
            format!("{}u", self.rng.below(max + 1))
        } else {
            format!("(v{} % {}u)", self.rng.below(3), max + 1)
        }
    }

    /// A sub-range of `a`: (start element, element count) as C expressions, with the count's
    /// upper bound fixed by the start.
    fn range(&mut self, a: &Array) -> (usize, String) {
        let start = self.rng.below(a.len);
        let count = self.up_to(a.len - start);
        (start, count)
    }

    fn element_write(&mut self) -> String {
        let a = self.arrays[self.rng.below(self.arrays.len())].clone();
        let index = self.up_to(a.len - 1);
        let other = self.arrays[self.rng.below(self.arrays.len())].clone();
        let read = format!("{}[{}]", other.name, self.up_to(other.len - 1));
        format!(
            "{}[{index}] = ({}) (v{} * 2654435761u + (unsigned int) {read});",
            a.name,
            ELEMENTS[a.element].0,
            self.rng.below(3)
        )
    }

    fn memset(&mut self) -> String {
        let a = self.arrays[self.rng.below(self.arrays.len())].clone();
        let (start, count) = self.range(&a);
        let byte = if self.rng.chance(20) {
            format!("(int) v{}", self.rng.below(3))
        } else {
            self.rng.pick(PATTERNS).to_string()
        };
        format!(
            "memset({} + {start}, {byte}, {count} * sizeof {}[0]);",
            a.name, a.name
        )
    }

    /// Two byte ranges of arrays (possibly the same) of one length: the arrays as `char *`
    /// plus offsets, the length, and whether the arrays are the same.
    fn two_ranges(&mut self) -> (String, String, String, bool) {
        let a = self.arrays[self.rng.below(self.arrays.len())].clone();
        let b = self.arrays[self.rng.below(self.arrays.len())].clone();
        let (da, db) = (self.rng.below(a.bytes()), self.rng.below(b.bytes()));
        let n = self.up_to((a.bytes() - da).min(b.bytes() - db));
        let at = |x: &Array, d: usize| format!("(char *) {} + {d}", x.name);
        (at(&a, da), at(&b, db), n, a.name == b.name)
    }

    /// `memcpy` between two different objects, in bytes (values split and composed), or
    /// `memmove` inside one.
    fn copy(&mut self) -> String {
        let (a, b, n, same) = self.two_ranges();
        let function = if same { "memmove" } else { "memcpy" };
        format!("{function}({a}, {b}, {n});")
    }

    fn compare(&mut self) -> String {
        let (a, b, n, _) = self.two_ranges();
        format!("{{ int r = memcmp({a}, {b}, {n}); h = h * 31u + (unsigned int) ((r > 0) - (r < 0)) + 1u; }}")
    }

    fn struct_statement(&mut self) -> String {
        let s = self.structs[self.rng.below(self.structs.len())].clone();
        let t = self.structs[self.rng.below(self.structs.len())].clone();
        let size = format!("sizeof(struct {}S)", self.prefix);
        match self.rng.below(5) {
            0 => {
                let byte = self.rng.pick(PATTERNS).to_string();
                format!("memset({s}, {byte}, {size});")
            }
            1 if s != t => format!("memcpy({s}, {t}, {size});"),
            2 => {
                let k = self.rng.below(self.members.len());
                let (m, ty) = self.members[k].clone();
                format!(
                    "({s})->{m} = ({}) (v{} + 77u);",
                    MEMBERS[ty].0,
                    self.rng.below(3)
                )
            }
            3 => format!(
                "{{ int r = memcmp({s}, {t}, {size}); h = h * 31u + (unsigned int) ((r > 0) - (r < 0)) + 5u; }}"
            ),
            // Bytes of a struct into an array and back (no more than the members' bytes,
            // which the struct's size is at least).
            _ => {
                let a = self.arrays[self.rng.below(self.arrays.len())].clone();
                let members: usize = self.members.iter().map(|(_, t)| MEMBERS[*t].1).sum();
                let n = self.up_to(a.bytes().min(members));
                if self.rng.chance(50) {
                    format!("memcpy({}, {s}, {n});", a.name)
                } else {
                    format!("memcpy({s}, {}, {n});", a.name)
                }
            }
        }
    }

    fn string_statement(&mut self) -> String {
        let i = self.rng.below(self.texts.len());
        let j = self.rng.below(self.texts.len());
        let (x, y) = (self.texts[i].clone(), self.texts[j].clone());
        match self.rng.below(9) {
            0 => {
                let w = *self.rng.pick(WORDS);
                if w.len() < x.size {
                    self.texts[i].max_len = w.len();
                    format!("strcpy({}, \"{w}\");", x.name)
                } else {
                    String::new()
                }
            }
            1 if i != j && x.max_len + y.max_len < x.size => {
                self.texts[i].max_len = x.max_len + y.max_len;
                format!("strcat({}, {});", x.name, y.name)
            }
            2 if i != j && y.max_len < x.size => {
                // A terminated copy: at least one NUL is copied.
                let n = y.max_len + 1 + self.rng.below(x.size - y.max_len);
                self.texts[i].max_len = y.max_len;
                format!("strncpy({}, {}, {n});", x.name, y.name)
            }
            3 => {
                let m = self.rng.below(x.size);
                self.texts[i].max_len = m;
                let c = b'a' + self.rng.below(26) as u8;
                format!("memset({}, '{}', {m}); {}[{m}] = 0;", x.name, c as char, x.name)
            }
            4 => {
                let at = self.up_to(x.max_len);
                format!("{}[{at}] = 0;", x.name)
            }
            5 => format!("h = h * 31u + (unsigned int) strlen({});", x.name),
            6 => format!(
                "{{ int r = strcmp({}, {}); h = h * 31u + (unsigned int) ((r > 0) - (r < 0)) + 2u; }}",
                x.name, y.name
            ),
            7 => {
                let n = self.up_to(x.size);
                format!(
                    "{{ int r = strncmp({}, {}, {n}); h = h * 31u + (unsigned int) ((r > 0) - (r < 0)) + 3u; }}",
                    x.name, y.name
                )
            }
            _ => {
                let c = if self.rng.chance(20) {
                    "0".to_string()
                } else {
                    format!("'{}'", (b'a' + self.rng.below(26) as u8) as char)
                };
                format!(
                    "{{ char *q = strchr({}, {c}); h = h * 31u + (q ? (unsigned int) (q - {}) : 99u); }}",
                    x.name, x.name
                )
            }
        }
    }
}

/// The program of `seed`, every file-scope name starting with `prefix`.
pub fn generate(seed: u64, prefix: &str) -> GenProgram {
    let mut g = LibraryGen {
        rng: Rng::new(seed ^ 0x11b_5eed_0000_0000),
        prefix: prefix.to_string(),
        arrays: Vec::new(),
        texts: Vec::new(),
        structs: Vec::new(),
        members: Vec::new(),
        lines: Vec::new(),
    };
    g.lines.extend(
        [
            "extern unsigned int __VERIFIER_nondet_uint(void);",
            "extern void *malloc(unsigned long);",
            "extern void *calloc(unsigned long, unsigned long);",
            "extern void free(void *);",
            "extern void *memset(void *, int, unsigned long);",
            "extern void *memcpy(void *, const void *, unsigned long);",
            "extern void *memmove(void *, const void *, unsigned long);",
            "extern int memcmp(const void *, const void *, unsigned long);",
            "extern unsigned long strlen(const char *);",
            "extern int strcmp(const char *, const char *);",
            "extern int strncmp(const char *, const char *, unsigned long);",
            "extern char *strcpy(char *, const char *);",
            "extern char *strncpy(char *, const char *, unsigned long);",
            "extern char *strcat(char *, const char *);",
            "extern char *strchr(const char *, int);",
        ]
        .map(String::from),
    );
    let decl_lines = g.lines.len();
    let member_count = 2 + g.rng.below(4);
    g.members = (0..member_count)
        .map(|k| (format!("m{k}"), g.rng.below(MEMBERS.len())))
        .collect();
    let members: Vec<String> = g
        .members
        .iter()
        .map(|(m, t)| format!("{} {m};", MEMBERS[*t].0))
        .collect();
    g.lines
        .push(format!("struct {prefix}S {{ {} }};", members.join(" ")));
    let global = Array {
        name: format!("{prefix}ga"),
        element: g.rng.below(ELEMENTS.len()),
        len: 3 + g.rng.below(4),
    };
    let inits: Vec<String> = (0..global.len).map(|k| format!("{}", k * 37 + 5)).collect();
    g.lines.push(format!(
        "{} {}[{}] = {{ {} }};",
        ELEMENTS[global.element].0,
        global.name,
        global.len,
        inits.join(", ")
    ));
    g.lines.push(format!("struct {prefix}S {prefix}gs;"));
    g.lines.push("int main(void) {".into());
    g.lines.push("  unsigned int h = 7u;".into());
    for i in 0..3 {
        g.lines
            .push(format!("  unsigned int v{i} = __VERIFIER_nondet_uint();"));
    }
    g.arrays.push(global);
    for k in 0..2 + g.rng.below(2) {
        let a = Array {
            name: format!("a{k}"),
            element: g.rng.below(ELEMENTS.len()),
            len: 2 + g.rng.below(6),
        };
        g.lines.push(format!(
            "  {} {}[{}] = {{ {} }};",
            ELEMENTS[a.element].0,
            a.name,
            a.len,
            g.rng.below(1000)
        ));
        g.arrays.push(a);
    }
    // An `int` heap block, set before it is read.
    let heap = Array {
        name: "hp".into(),
        element: 2,
        len: 2 + g.rng.below(5),
    };
    g.lines.push(format!(
        "  int *hp = malloc({} * sizeof(int)); memset(hp, 0, {} * sizeof(int));",
        heap.len, heap.len
    ));
    g.arrays.push(heap);
    // Structs: local (its bytes set first: padding has no value before), global (zero), heap.
    g.lines.push(format!(
        "  struct {prefix}S st; memset(&st, 0, sizeof st); st.m0 = ({}) v0;",
        MEMBERS[g.members[0].1].0
    ));
    g.lines.push(format!(
        "  struct {prefix}S *sp = calloc(1, sizeof(struct {prefix}S));"
    ));
    g.structs = vec!["&st".into(), format!("&{prefix}gs"), "sp".into()];
    // Strings: local arrays from literals (the rest of the array zero) and a heap block.
    for k in 0..2 {
        let size = 4 + g.rng.below(9);
        let w = *g.rng.pick(WORDS);
        let w = if w.len() < size { w } else { "" };
        g.lines.push(format!("  char s{k}[{size}] = \"{w}\";"));
        g.texts.push(Text {
            name: format!("s{k}"),
            size,
            max_len: w.len(),
        });
    }
    let size = 4 + g.rng.below(9);
    g.lines
        .push(format!("  char *hs = malloc({size}); memset(hs, 0, {size});"));
    g.texts.push(Text {
        name: "hs".into(),
        size,
        max_len: 0,
    });
    for _ in 0..8 + g.rng.below(12) {
        let s = match g.rng.below(20) {
            0 | 1 => g.element_write(),
            2..=4 => g.memset(),
            5..=7 => g.copy(),
            8 | 9 => g.compare(),
            10..=12 => g.struct_statement(),
            _ => g.string_statement(),
        };
        if !s.is_empty() {
            g.lines.push(format!("  {s}"));
        }
    }
    // Every element of every array, every byte of the structs and strings (Baton reads a
    // named array only as its own element type).
    for a in &g.arrays {
        g.lines.push(format!(
            "  for (unsigned int i = 0; i < {}u; i++) h = h * 31u + (unsigned int) {}[i];",
            a.len, a.name
        ));
    }
    let mut objects: Vec<(String, String)> = Vec::new();
    for s in &g.structs {
        objects.push((s.clone(), format!("sizeof(struct {prefix}S)")));
    }
    for t in &g.texts {
        objects.push((t.name.clone(), format!("{}u", t.size)));
    }
    for (object, size) in objects {
        g.lines.push(format!(
            "  for (unsigned int i = 0; i < {size}; i++) h = h * 31u + ((unsigned char *) ({object}))[i];"
        ));
    }
    g.lines.push("  free(hp); free(sp); free(hs);".into());
    g.lines.push("  return (int) (h & 0x7fffffffu);".into());
    g.lines.push("}".into());
    GenProgram {
        prefix: prefix.to_string(),
        lines: g.lines,
        decl_lines,
    }
}
