//! Random programs over pointers and the heap, for the gcc differential test of Baton's
//! memory model (`src/cfa/address.rs`, the interpreter's heap).
//!
//! Each program has *objects* of one or two element types (integers of several widths,
//! `double`): local and global scalars and arrays, rows of a two-dimensional array, scalar and
//! array members of a local struct, of an element of a local array of structs and of a heap
//! struct, heap arrays from `malloc` (initialised element by element), `calloc` (zero),
//! `realloc` (grown from a `malloc` block or from null, shrunk from a `calloc` block) and
//! from a helper that allocates through an out-parameter (`T **`). Pointer variables take
//! addresses (`&x`, `&a[k]`, `&s.m`, `&r->m[k]`, array decay), move within their object
//! (`p + j`, `p - j`, `&p[j]`, a helper returning `p + k`), are null or chosen by `?:`, live in
//! an array of pointers, a struct member (`view.p[j]`) and behind a pointer to a pointer
//! (`**pp`, `*pp = …`). Statements read and write through them (`*p`, `p[j]`, `p[v % n]`,
//! `r->m`), pass them to helpers (out-parameters, swap, sums, fills), walk them in loops,
//! subtract and compare them; a linked list of input-dependent length is built (at the head
//! or through a `next` pointer to pointer), walked, searched, pruned, reversed and freed.
//!
//! The generator knows statically where every pointer may point (its alternatives: object
//! and offset, and whether it may be null), so the programs have no undefined behaviour by
//! construction: every access is inside its object and initialised, null pointers are only
//! dereferenced behind a check, differences and relational comparisons are only between
//! pointers into one object, nothing is used after `free`, arithmetic is unsigned (values are
//! converted to the element type) and doubles hold small non-negative integers. No address is
//! printed (Baton's addresses are not gcc's, by design): `main` returns a hash of every
//! object's elements, pointer differences, comparison results and `sizeof`s.
//!
//! Named structs in memory (`src/frontend/lower/boxed.rs`): pointers to the whole local struct
//! (`sp = &s`, then `sp->m`, `(*sp).m`), to an element of a decayed array of structs
//! (`lp = la`, `lp[k].m`, `(lp + k)->m`) and to a global struct; struct copies through pointers
//! (`t = *r`, `la[i] = *r`, `*r = la[0]`, `*d = *s` in a helper, a struct argument `*prp`); a
//! row of a two-dimensional array decaying (`m[r]`, `*(m + r)`, through `int (*row)[3]`); a
//! variable-length array decaying.
//!
//! The layout of `struct rec` seen through member addresses (`src/frontend/lower/placed.rs`):
//! byte differences, comparisons and equality of member addresses of one struct (flattened,
//! in memory or on the heap) and of different elements of the array of structs, a member read
//! through arithmetic from another member's address, member addresses as integers, and
//! `__builtin_offsetof`.
//!
//! Left out because Baton does not model it (`unsupported` with its line): growing a `calloc`
//! block with `realloc` (its new bytes are indeterminate, the old ones zero). Left out as well:
//! equality of a pointer one past the end of an object with a pointer into another object (C
//! lets it be true, gcc may place the objects next to each other; Baton never does).

use super::cgen::{GenProgram, Rng, NONDETS};

/// Element types: C spelling, short name for helper functions, whether it is `double`.
const ELEMS: &[(&str, &str, bool)] = &[
    ("int", "i", false),
    ("unsigned int", "u", false),
    ("short", "s", false),
    ("unsigned char", "uc", false),
    ("long", "l", false),
    ("long long", "ll", false),
    ("unsigned long long", "ull", false),
    ("double", "d", true),
];

/// An object pointers may point into: `len` elements of type `ty`.
struct Obj {
    /// An expression for the address of element 0.
    base: Vec<String>,
    /// Element `{}` as an lvalue.
    elem: String,
    ty: usize,
    len: usize,
    /// For a struct member: the struct (`s.`, `la[1].`, `r->`); pointers to members of one
    /// struct compare in declaration order.
    aggregate: Option<String>,
}

impl Obj {
    fn at(&self, i: &str) -> String {
        self.elem.replace("{}", i)
    }
}

/// Where a pointer may point: (object, element offset) alternatives, and whether it may be null.
#[derive(Clone, Default)]
struct Target {
    alts: Vec<(usize, usize)>,
    null: bool,
}

/// A pointer variable (or an lvalue holding a pointer) and where it may point.
struct PVar {
    name: String,
    ty: usize,
    target: Target,
}

struct PointerGen {
    rng: Rng,
    p: String,
    lines: Vec<String>,
    /// Element types of this program (indices into [`ELEMS`]).
    types: Vec<usize>,
    objs: Vec<Obj>,
    ptrs: Vec<PVar>,
    /// Pointer-to-pointer variables: (name, index of the pointer variable they point to).
    pps: Vec<(String, usize)>,
    /// Heap blocks to free at the end.
    frees: Vec<String>,
    /// Ways to name a `struct rec` object (`s.`, `la[1].`, `sp->`, `r->`, ...).
    roots: Vec<String>,
}

impl PointerGen {
    fn line(&mut self, s: impl AsRef<str>) {
        self.lines.push(format!("  {}", s.as_ref()));
    }

    fn c(&self, ty: usize) -> &'static str {
        ELEMS[ty].0
    }

    /// `value` (an `unsigned int` expression) converted to element type `ty`.
    fn conv(&self, ty: usize, value: &str) -> String {
        if ELEMS[ty].2 {
            format!("(double) (({value}) % 4096u)")
        } else {
            format!("({}) ({value})", ELEMS[ty].0)
        }
    }

    /// The smallest number of elements from any alternative to its object's end.
    fn room(&self, t: &Target) -> usize {
        t.alts
            .iter()
            .map(|&(o, off)| self.objs[o].len - off)
            .min()
            .unwrap_or(0)
    }

    /// The one object all alternatives point into, if the pointer is never null.
    fn single(&self, t: &Target) -> Option<usize> {
        let first = t.alts.first()?.0;
        (!t.null && t.alts.iter().all(|a| a.0 == first)).then_some(first)
    }

    /// Pointer variables of type `ty` that can be dereferenced (`room >= 1`), null-checked or not.
    fn derefable(&self, ty: Option<usize>, allow_null: bool) -> Vec<usize> {
        (0..self.ptrs.len())
            .filter(|&i| {
                let t = &self.ptrs[i].target;
                ty.is_none_or(|ty| self.ptrs[i].ty == ty)
                    && !t.alts.is_empty()
                    && self.room(t) >= 1
                    && (allow_null || !t.null)
            })
            .collect()
    }

    /// A small unsigned expression over inputs, the accumulator and values read through pointers.
    fn value(&mut self, depth: usize) -> String {
        if depth == 0 || self.rng.chance(40) {
            return match self.rng.below(4) {
                0 => format!("{}u", self.rng.below(1000)),
                1 => "acc".to_string(),
                2 => match self.derefable(None, false).as_slice() {
                    [] => "v0".to_string(),
                    cands => {
                        let i = *self.rng.pick(cands);
                        let read = self.read(i);
                        format!("(unsigned int) {read}")
                    }
                },
                _ => format!("v{}", self.rng.below(3)),
            };
        }
        let op = *self.rng.pick(&["+", "*", "^", "-", "|"]);
        let a = self.value(depth - 1);
        let b = self.value(depth - 1);
        format!("({a} {op} {b})")
    }

    /// An lvalue of an element through pointer `i` (which has room and is never null).
    fn read(&mut self, i: usize) -> String {
        let room = self.room(&self.ptrs[i].target);
        let name = self.ptrs[i].name.clone();
        match self.rng.below(4) {
            0 => format!("*{name}"),
            1 => format!("{name}[{}]", self.rng.below(room)),
            2 => format!("{name}[v{} % {room}u]", self.rng.below(3)),
            _ => format!("*({name} + {})", self.rng.below(room)),
        }
    }

    /// A condition for `?:` and `if`.
    fn cond(&mut self) -> String {
        match self.rng.below(3) {
            0 => format!("(v{} & {}u)", self.rng.below(3), 1 << self.rng.below(4)),
            1 => format!("(v{} > v{})", self.rng.below(3), self.rng.below(3)),
            _ => format!("(acc & {}u)", 1 << self.rng.below(3)),
        }
    }

    /// A pointer expression of type `ty` and where it points; never null if `nonnull`.
    fn pointer(&mut self, ty: usize, nonnull: bool, depth: usize) -> (String, Target) {
        let others: Vec<usize> = (0..self.ptrs.len())
            .filter(|&i| self.ptrs[i].ty == ty && !self.ptrs[i].target.alts.is_empty())
            .filter(|&i| !nonnull || !self.ptrs[i].target.null)
            .collect();
        let choice = self.rng.below(10);
        if choice < 4 || others.is_empty() {
            // An object's element (or one past its end).
            let objs: Vec<usize> = (0..self.objs.len()).filter(|&o| self.objs[o].ty == ty).collect();
            let o = *self.rng.pick(&objs);
            let len = self.objs[o].len;
            let k = self.rng.below(len + 1);
            let base = self.rng.pick(&self.objs[o].base).clone();
            let text = if k == len || self.rng.chance(40) {
                format!("{base} + {k}")
            } else {
                format!("&{}", self.objs[o].at(&k.to_string()))
            };
            return (
                text,
                Target {
                    alts: vec![(o, k)],
                    null: false,
                },
            );
        }
        if choice == 4 && !nonnull {
            return (
                "(void *) 0".to_string(),
                Target {
                    alts: Vec::new(),
                    null: true,
                },
            );
        }
        if choice <= 6 && depth > 0 {
            let (a, ta) = self.pointer(ty, nonnull, depth - 1);
            let (b, tb) = self.pointer(ty, nonnull, depth - 1);
            let c = self.cond();
            let mut alts = ta.alts;
            alts.extend(tb.alts);
            return (
                format!("{c} ? {a} : {b}"),
                Target {
                    alts,
                    null: ta.null || tb.null,
                },
            );
        }
        let q = *self.rng.pick(&others);
        let (name, t) = (self.ptrs[q].name.clone(), self.ptrs[q].target.clone());
        let room = self.room(&t);
        let behind = t.alts.iter().map(|a| a.1).min().unwrap_or(0);
        let shift = |t: &Target, d: isize| Target {
            alts: t
                .alts
                .iter()
                .map(|&(o, off)| (o, off.wrapping_add_signed(d)))
                .collect(),
            null: false,
        };
        if t.null {
            return (name, t);
        }
        match self.rng.below(5) {
            0 => {
                let j = self.rng.below(room + 1);
                (format!("{name} + {j}"), shift(&t, j as isize))
            }
            1 if behind > 0 => {
                let j = 1 + self.rng.below(behind);
                (format!("{name} - {j}"), shift(&t, -(j as isize)))
            }
            2 if room > 0 => {
                let j = self.rng.below(room);
                (format!("&{name}[{j}]"), shift(&t, j as isize))
            }
            3 => {
                let j = self.rng.below(room + 1);
                let f = format!("{}adv_{}", self.p, ELEMS[ty].1);
                (format!("{f}({name}, {j})"), shift(&t, j as isize))
            }
            _ => {
                // Through a pointer to a pointer, if one points to `q`.
                match self.pps.iter().find(|(_, to)| *to == q) {
                    Some((pp, _)) => (format!("*{pp}"), t),
                    None => (name, t),
                }
            }
        }
    }

    /// Declares the objects of element type `ty`; `main` has begun.
    fn objects(&mut self, ty: usize, k: usize) {
        let c = self.c(ty);
        let p = self.p.clone();
        // A local scalar.
        let x = format!("x{k}");
        let small = self.rng.below(50);
        let init = self.conv(ty, &format!("v{} + {small}u", k % 3));
        self.line(format!("{c} {x} = {init};"));
        self.objs.push(Obj {
            base: vec![format!("&{x}")],
            elem: x.clone(),
            ty,
            len: 1,
            aggregate: None,
        });
        // A local array with an initialiser list.
        let n = 2 + self.rng.below(4);
        let items: Vec<String> = (0..n).map(|_| format!("{}", self.rng.below(200))).collect();
        let a = format!("a{k}");
        self.line(format!("{c} {a}[{n}] = {{ {} }};", items.join(", ")));
        self.objs.push(Obj {
            base: vec![a.clone(), format!("&{a}[0]")],
            elem: format!("{a}[{{}}]"),
            ty,
            len: n,
            aggregate: None,
        });
        // The global array (declared before `main`).
        let g = format!("{p}g{k}");
        self.objs.push(Obj {
            base: vec![g.clone(), format!("&{g}[0]")],
            elem: format!("{g}[{{}}]"),
            ty,
            len: 4,
            aggregate: None,
        });
        // A row of a two-dimensional array.
        if self.rng.chance(50) {
            let m = format!("m{k}");
            self.line(format!("{c} {m}[2][3] = {{ {{ 1, 2, 3 }}, {{ 4, 5 }} }};"));
            let r = self.rng.below(2);
            // The row decays (`m[r]`, `*(m + r)`), or is reached through a pointer to a row.
            let mut base = vec![
                format!("&{m}[{r}][0]"),
                format!("{m}[{r}]"),
                format!("*({m} + {r})"),
            ];
            if self.rng.chance(50) {
                self.line(format!("{c} (*{m}_row)[3] = {m};"));
                base.push(format!("{m}_row[{r}]"));
            }
            self.objs.push(Obj {
                base,
                elem: format!("{m}[{r}][{{}}]"),
                ty,
                len: 3,
                aggregate: None,
            });
        }
        // A variable-length array (of length 3, not known to the compiler), decaying.
        if self.rng.chance(40) {
            let vl = format!("vl{k}");
            let init = self.conv(ty, &format!("v{} + (unsigned int) i", k % 3));
            self.line(format!("int {vl}_n = 3 + (int) (v1 & 0u);"));
            self.line(format!("{c} {vl}[{vl}_n];"));
            self.line(format!("for (int i = 0; i < {vl}_n; i++) {vl}[i] = {init};"));
            self.objs.push(Obj {
                base: vec![vl.clone(), format!("&{vl}[0]")],
                elem: format!("{vl}[{{}}]"),
                ty,
                len: 3,
                aggregate: None,
            });
        }
        // A heap array: malloc (initialised by a loop), calloc, or realloc.
        let h = format!("h{k}");
        let n = 1 + self.rng.below(5);
        let factor = 1 + self.rng.below(9);
        let init = self.conv(ty, &format!("v{} * {factor}u + (unsigned int) i", k % 3));
        match self.rng.below(5) {
            0 => {
                self.line(format!("{c} *{h} = ({c} *) calloc({n}, sizeof({c}));"));
            }
            1 => {
                // Grown from a malloc block (or from null): the new elements are written.
                let m = 1 + self.rng.below(n);
                let from = if self.rng.chance(30) {
                    "(void *) 0".to_string()
                } else {
                    self.line(format!("{c} *{h}_0 = ({c} *) malloc({m} * sizeof({c}));"));
                    self.line(format!("for (int i = 0; i < {m}; i++) {h}_0[i] = {init};"));
                    format!("{h}_0")
                };
                let start = if from.starts_with('(') { 0 } else { m };
                self.line(format!("{c} *{h} = ({c} *) realloc({from}, {n} * sizeof({c}));"));
                self.line(format!("for (int i = {start}; i < {n}; i++) {h}[i] = {init};"));
            }
            2 => {
                // Shrunk from a calloc block.
                self.line(format!("{c} *{h}_0 = ({c} *) calloc({}, sizeof({c}));", n + 2));
                self.line(format!("{h}_0[{n} - 1] = {init};").replace("(unsigned int) i", "1u"));
                self.line(format!("{c} *{h} = ({c} *) realloc({h}_0, {n} * sizeof({c}));"));
            }
            3 => {
                // Through an out-parameter.
                self.line(format!("{c} *{h};"));
                self.line(format!("{p}alloc_{}(&{h}, {n}, v{});", ELEMS[ty].1, k % 3));
            }
            _ => {
                self.line(format!("{c} *{h} = malloc({n} * sizeof *{h});"));
                self.line(format!("for (int i = 0; i < {n}; i++) {h}[i] = {init};"));
            }
        }
        self.frees.push(h.clone());
        self.objs.push(Obj {
            base: vec![h.clone(), format!("&{h}[0]")],
            elem: format!("{h}[{{}}]"),
            ty,
            len: n,
            aggregate: None,
        });
        // A heap scalar.
        if self.rng.chance(50) {
            let hs = format!("hs{k}");
            self.line(format!("{c} *{hs} = ({c} *) malloc(sizeof({c}));"));
            let v = self.conv(ty, "v2 ^ 5u");
            self.line(format!("*{hs} = {v};"));
            self.frees.push(hs.clone());
            self.objs.push(Obj {
                base: vec![hs.clone()],
                elem: format!("{hs}[{{}}]"),
                ty,
                len: 1,
                aggregate: None,
            });
        }
    }

    /// The members of `struct rec` of type `ty` in object `root` (`s.`, `la[1].`, `r->`).
    fn member_objects(&mut self, root: &str, ty: usize, types: &[usize]) {
        for (m, &mt) in ["a", "b"].iter().zip(types) {
            if mt == ty {
                self.objs.push(Obj {
                    base: vec![format!("&{root}{m}")],
                    elem: format!("{root}{m}"),
                    ty,
                    len: 1,
                    aggregate: Some(root.to_string()),
                });
            }
        }
        if types[0] == ty {
            self.objs.push(Obj {
                base: vec![format!("&{root}arr[0]")],
                elem: format!("{root}arr[{{}}]"),
                ty,
                len: 3,
                aggregate: Some(root.to_string()),
            });
        }
    }

    /// A statement of `main`.
    fn statement(&mut self) {
        let ty = *self.rng.pick(&self.types.clone());
        match self.rng.below(14) {
            0 | 1 => {
                // A write through a pointer (behind a null check if it may be null).
                let cands = self.derefable(Some(ty), true);
                if cands.is_empty() {
                    return self.accumulate();
                }
                let i = *self.rng.pick(&cands);
                let target = self.read(i);
                let value = self.value(2);
                let v = self.conv(ty, &value);
                let write = if !ELEMS[ty].2 && self.rng.chance(30) {
                    format!(
                        "{target} = ({}) ((unsigned long long) {target} + {value});",
                        self.c(ty)
                    )
                } else {
                    format!("{target} = {v};")
                };
                if self.ptrs[i].target.null {
                    let name = &self.ptrs[i].name;
                    let check = self
                        .rng
                        .pick(&[name.clone(), format!("{name} != 0"), format!("0 != {name}")])
                        .clone();
                    self.line(format!("if ({check}) {write}"));
                } else {
                    self.line(write);
                }
            }
            2 | 3 => {
                // A pointer moves (or is set afresh).
                let cands: Vec<usize> = (0..self.ptrs.len()).filter(|&i| self.ptrs[i].ty == ty).collect();
                let i = *self.rng.pick(&cands);
                let (text, target) = self.pointer(ty, false, 1);
                let name = self.ptrs[i].name.clone();
                match self.pps.iter().find(|(_, to)| *to == i) {
                    Some((pp, _)) if self.rng.chance(40) => {
                        let pp = pp.clone();
                        self.line(format!("*{pp} = {text};"));
                    }
                    _ => self.line(format!("{name} = {text};")),
                }
                self.ptrs[i].target = target;
            }
            4 => self.accumulate(),
            5 => {
                // Differences and relational comparisons of pointers into one object.
                let same: Vec<(usize, usize)> = (0..self.ptrs.len())
                    .flat_map(|i| (0..self.ptrs.len()).map(move |j| (i, j)))
                    .filter(|&(i, j)| {
                        self.ptrs[i].ty == self.ptrs[j].ty
                            && self.single(&self.ptrs[i].target).is_some()
                            && self.single(&self.ptrs[i].target) == self.single(&self.ptrs[j].target)
                    })
                    .collect();
                // Pointers into members of one struct (never one past a member's end, which
                // may be the next member's address in gcc) compare by declaration order.
                // (Members of different elements of the array of structs are compared in
                // `member_layout`.)
                let members: Vec<(usize, usize)> = (0..self.ptrs.len())
                    .flat_map(|i| (0..self.ptrs.len()).map(move |j| (i, j)))
                    .filter(|&(i, j)| {
                        let (ti, tj) = (&self.ptrs[i].target, &self.ptrs[j].target);
                        let agg = |t: &Target| self.single(t).and_then(|o| self.objs[o].aggregate.clone());
                        agg(ti).is_some() && agg(ti) == agg(tj) && self.room(ti) >= 1 && self.room(tj) >= 1
                    })
                    .collect();
                if !members.is_empty() && (same.is_empty() || self.rng.chance(40)) {
                    let (i, j) = *self.rng.pick(&members);
                    let (a, b) = (self.ptrs[i].name.clone(), self.ptrs[j].name.clone());
                    let op = *self.rng.pick(&["<", "<=", ">", ">="]);
                    return self.line(format!("acc = acc * 31u + ({a} {op} {b});"));
                }
                if same.is_empty() {
                    return self.accumulate();
                }
                let (i, j) = *self.rng.pick(&same);
                let (a, b) = (self.ptrs[i].name.clone(), self.ptrs[j].name.clone());
                let op = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                if self.rng.chance(50) {
                    self.line(format!("acc = acc * 31u + (unsigned int) ({a} - {b});"));
                } else {
                    self.line(format!("acc = acc * 31u + ({a} {op} {b});"));
                }
            }
            6 => {
                // Equality and null checks (never one past an end against another object).
                let i = self.rng.below(self.ptrs.len());
                let name = self.ptrs[i].name.clone();
                let ok: Vec<usize> = (0..self.ptrs.len())
                    .filter(|&j| {
                        self.ptrs[j].ty == self.ptrs[i].ty
                            && ((self.room(&self.ptrs[i].target) >= 1
                                && self.room(&self.ptrs[j].target) >= 1)
                                || (self.single(&self.ptrs[i].target).is_some()
                                    && self.single(&self.ptrs[i].target)
                                        == self.single(&self.ptrs[j].target)))
                    })
                    .collect();
                match (self.rng.below(3), ok.as_slice()) {
                    (0, [_, ..]) => {
                        let j = *self.rng.pick(&ok);
                        let other = self.ptrs[j].name.clone();
                        self.line(format!("if ({name} == {other}) acc += 3u; else acc ^= 5u;"));
                    }
                    (1, _) => self.line(format!("acc = acc * 31u + ({name} == 0) + 2u * !{name};")),
                    _ => {
                        if self.room(&self.ptrs[i].target) >= 1 {
                            self.line(format!(
                                "acc = acc * 31u + ({name} ? (unsigned int) *{name} : 7u);"
                            ));
                        } else {
                            self.line(format!("acc = acc * 31u + ({name} != 0 ? 1u : 2u);"));
                        }
                    }
                }
            }
            7 => {
                // Helpers: an out-parameter, a swap, a sum, a fill.
                let cands = self.derefable(Some(ty), false);
                if cands.is_empty() {
                    return self.accumulate();
                }
                let i = *self.rng.pick(&cands);
                let j = *self.rng.pick(&cands);
                let (a, b) = (self.ptrs[i].name.clone(), self.ptrs[j].name.clone());
                let room = self.room(&self.ptrs[i].target);
                let (f, k) = (self.p.clone(), ELEMS[ty].1);
                let n = 1 + self.rng.below(room);
                match self.rng.below(5) {
                    0 => {
                        let v = self.value(1);
                        self.line(format!("{f}set_{k}({a}, {v});"));
                    }
                    1 => self.line(format!("{f}swap_{k}({a}, {b});")),
                    2 => self.line(format!("acc = acc * 31u + {f}sum_{k}({a}, {n});")),
                    3 => self.line(format!("{f}fill_{k}({a}, {n}, acc);")),
                    _ => self.line(format!("acc = acc * 31u + (unsigned int) *{f}max_{k}({a}, {b});")),
                }
            }
            8 => {
                // A loop walking a pointer through its object.
                let cands = self.derefable(Some(ty), false);
                if cands.is_empty() {
                    return self.accumulate();
                }
                let i = *self.rng.pick(&cands);
                let name = self.ptrs[i].name.clone();
                let n = 1 + self.rng.below(self.room(&self.ptrs[i].target));
                let c = self.c(ty);
                match self.rng.below(3) {
                    0 => self.line(format!(
                        "for ({c} *it = {name}; it < {name} + {n}; it++) acc = acc * 31u + (unsigned int) *it;"
                    )),
                    1 => self.line(format!(
                        "for ({c} *it = {name} + {n}; it != {name}; ) {{ it--; acc = acc * 33u + (unsigned int) *it; }}"
                    )),
                    _ => {
                        let v = self.conv(ty, "acc + (unsigned int) k");
                        self.line(format!("for (int k = 0; k < {n}; k++) {name}[k] = {v};"));
                    }
                }
            }
            9 if !self.pps.is_empty() => {
                // Through a pointer to a pointer.
                let (pp, q) = self.pps[self.rng.below(self.pps.len())].clone();
                let t = self.ptrs[q].target.clone();
                if !t.null && self.room(&t) >= 1 {
                    let v = self.value(1);
                    let v = self.conv(self.ptrs[q].ty, &v);
                    let at = self.rng.below(self.room(&t));
                    self.line(format!("(*{pp})[{at}] = {v};"));
                    self.line(format!("acc = acc * 31u + (unsigned int) **{pp};"));
                } else {
                    self.line(format!("acc = acc * 31u + (*{pp} == 0);"));
                }
            }
            10 => {
                // The array of pointers (every entry has room and is never null).
                let pa = format!("pa{}", self.types.iter().position(|&t| t == ty).unwrap_or(0));
                let v = self.value(1);
                let v = self.conv(ty, &v);
                match self.rng.below(3) {
                    0 => self.line(format!("*{pa}[v1 % 3u] = {v};")),
                    1 => {
                        let j = self.rng.below(3);
                        self.line(format!("acc = acc * 31u + (unsigned int) {pa}[{j}][0];"));
                    }
                    _ => {
                        let (text, _) = self.pointer_with_room(ty);
                        let j = self.rng.below(3);
                        self.line(format!("{pa}[{j}] = {text};"));
                    }
                }
            }
            11 => {
                // The view: a pointer and a length in a struct.
                let v = format!("view{}", self.types.iter().position(|&t| t == ty).unwrap_or(0));
                let (f, k) = (self.p.clone(), ELEMS[ty].1);
                match self.rng.below(3) {
                    0 => self.line(format!("acc = acc * 31u + {f}sum_{k}({v}.p, {v}.n);")),
                    1 => {
                        let value = self.value(1);
                        let value = self.conv(ty, &value);
                        self.line(format!("{v}.p[{v}.n - 1] = {value};"));
                    }
                    _ => self.line(format!(
                        "acc = acc * 31u + (unsigned int) {v}.p[v0 % (unsigned int) {v}.n];"
                    )),
                }
            }
            _ => {
                // Writes and reads of heap struct members through `->`.
                let value = self.value(1);
                let t0 = self.types[0];
                let v = self.conv(t0, &value);
                match self.rng.below(3) {
                    0 => self.line(format!("r->arr[v2 % 3u] = {v};")),
                    1 => self.line(format!("r->link->a = {v};")),
                    _ => self.line("acc = acc * 31u + (unsigned int) r->link->arr[1] + (unsigned int) r->b;"),
                }
            }
        }
    }

    /// Statements that see the layout of `struct rec` through member addresses: byte
    /// differences, relational comparisons and equality of member addresses within one
    /// struct and across the elements of the array of structs, a member read through
    /// arithmetic from another member's address, member addresses converted to integers, and
    /// `offsetof`.
    fn member_layout(&mut self) {
        const MEMBERS: &[&str] = &["a", "b", "arr[0]", "arr[1]", "arr[2]", "link"];
        const OPS: &[&str] = &["<", "<=", ">", ">=", "==", "!="];
        let p = self.p.clone();
        let (t0, t1) = (self.c(self.types[0]), self.c(self.types[self.types.len() - 1]));
        for _ in 0..1 + self.rng.below(4) {
            let r = self.rng.pick(&self.roots).clone();
            let (m, n) = (*self.rng.pick(MEMBERS), *self.rng.pick(MEMBERS));
            let (i, j) = (self.rng.below(2), self.rng.below(2));
            let op = *self.rng.pick(OPS);
            let k = self.rng.below(3);
            let line = match self.rng.below(7) {
                0 => format!("acc = acc * 31u + (unsigned int) ((char *) &{r}{m} - (char *) &{r}{n});"),
                1 => format!("acc = acc * 31u + ((char *) &{r}{m} {op} (char *) &{r}{n});"),
                2 => format!(
                    "acc = acc * 31u + (unsigned int) ((char *) &la[{i}].{m} - (char *) &la[{j}].{n});"
                ),
                3 => format!("acc = acc * 31u + ((char *) &la[{i}].{m} {op} (char *) &la[{j}].{n});"),
                4 => format!(
                    "acc = acc * 31u + (unsigned int) *({t1} *) ((char *) &{r}a + ((char *) &{r}b - (char *) &{r}a));"
                ),
                5 => format!(
                    "acc = acc * 31u + (unsigned int) *({t0} *) ((char *) &{r}b + ((char *) &{r}arr[{k}] - (char *) &{r}b));"
                ),
                _ => format!(
                    "acc = acc * 31u + (unsigned int) ((unsigned long) &{r}{m} - (unsigned long) &{r}a) \
                     + 7u * (unsigned int) __builtin_offsetof(struct {p}rec, {n});"
                ),
            };
            self.line(line);
        }
    }

    /// A pointer to an element of type `ty` (never null, never one past the end).
    fn pointer_with_room(&mut self, ty: usize) -> (String, Target) {
        loop {
            let (text, t) = self.pointer(ty, true, 1);
            if self.room(&t) >= 1 {
                return (text, t);
            }
        }
    }

    fn accumulate(&mut self) {
        let v = self.value(2);
        self.line(format!("acc = acc * 31u + {v};"));
    }

    /// Helper functions for element type `ty`.
    fn helpers(&mut self, ty: usize) {
        let (c, k, p) = (self.c(ty), ELEMS[ty].1, self.p.clone());
        let set = self.conv(ty, "v * 3u + 1u");
        let fill = self.conv(ty, "v + (unsigned int) i * 13u");
        let alloc = self.conv(ty, "v ^ (unsigned int) i");
        self.lines.extend([
            format!("void {p}set_{k}({c} *out, unsigned int v) {{ *out = {set}; }}"),
            format!("void {p}swap_{k}({c} *a, {c} *b) {{ {c} t = *a; *a = *b; *b = t; }}"),
            format!(
                "unsigned int {p}sum_{k}(const {c} *q, int n) {{ unsigned int s = 7u; for (int i = 0; i < n; i++) s = s * 31u + (unsigned int) q[i]; return s; }}"
            ),
            format!("void {p}fill_{k}({c} *q, int n, unsigned int v) {{ for (int i = 0; i < n; i++) q[i] = {fill}; }}"),
            format!("{c} *{p}adv_{k}({c} *q, int k) {{ return q + k; }}"),
            format!("{c} *{p}max_{k}({c} *a, {c} *b) {{ return *a < *b ? b : a; }}"),
            format!(
                "void {p}alloc_{k}({c} **out, int n, unsigned int v) {{ {c} *q = ({c} *) malloc((unsigned long) n * sizeof({c})); for (int i = 0; i < n; i++) q[i] = {alloc}; *out = q; }}"
            ),
        ]);
    }

    /// A linked list of input-dependent length: built, walked, searched, pruned, reversed, freed.
    fn list(&mut self) {
        let (p, t0) = (self.p.clone(), self.types[0]);
        let node = format!("struct {p}node");
        let v = self.conv(t0, "v0 + (unsigned int) i * 7u");
        self.line(format!("{node} *head = (void *) 0;"));
        let modulus = 2 + self.rng.below(6);
        self.line(format!("int n = (int) (v1 % {modulus}u);"));
        if self.rng.chance(50) {
            self.line(format!(
                "for (int i = 0; i < n; i++) {{ {node} *x = ({node} *) malloc(sizeof({node})); x->v = {v}; x->next = head; head = x; }}"
            ));
        } else {
            self.line(format!("{node} **tail = &head;"));
            self.line(format!(
                "for (int i = 0; i < n; i++) {{ {node} *x = malloc(sizeof *x); x->v = {v}; x->next = 0; *tail = x; tail = &x->next; }}"
            ));
        }
        self.line(format!(
            "for ({node} *it = head; it != 0; it = it->next) acc = acc * 31u + (unsigned int) it->v;"
        ));
        if self.rng.chance(50) {
            let step = 7 * self.rng.below(4);
            let key = self.conv(t0, &format!("v0 + {step}u"));
            self.line(format!("{node} *f = head;"));
            self.line(format!("while (f && f->v != {key}) f = f->next;"));
            self.line("acc = acc * 31u + (f ? 1u + (unsigned int) f->v : 0u);");
        }
        if self.rng.chance(50) {
            self.line(format!("{node} **pp = &head;"));
            self.line(format!(
                "while (*pp) {{ if (((unsigned int) (*pp)->v & 1u) == 0u) {{ {node} *d = *pp; *pp = d->next; free(d); }} else pp = &(*pp)->next; }}"
            ));
        }
        if self.rng.chance(50) {
            self.line(format!("{node} *prev = 0;"));
            self.line(format!(
                "while (head) {{ {node} *nx = head->next; head->next = prev; prev = head; head = nx; }}"
            ));
            self.line("head = prev;");
        }
        self.line(format!("acc = acc * 31u + (unsigned int) {p}len(head);"));
        self.line(format!(
            "while (head != 0) {{ {node} *nx = head->next; acc = acc * 7u + (unsigned int) head->v; free(head); head = nx; }}"
        ));
    }
}

/// The program of `seed`, every file-scope name starting with `prefix`.
pub fn generate(seed: u64, prefix: &str) -> GenProgram {
    let mut g = PointerGen {
        rng: Rng::new(seed ^ 0x5eed_9017_0000_0000),
        p: prefix.to_string(),
        lines: Vec::new(),
        types: Vec::new(),
        objs: Vec::new(),
        ptrs: Vec::new(),
        pps: Vec::new(),
        frees: Vec::new(),
        roots: Vec::new(),
    };
    for (suffix, ty) in NONDETS {
        g.lines
            .push(format!("extern {ty} __VERIFIER_nondet_{suffix}(void);"));
    }
    g.lines.extend(
        [
            "typedef unsigned long size_t;",
            "extern void *malloc(size_t);",
            "extern void *calloc(size_t, size_t);",
            "extern void *realloc(void *, size_t);",
            "extern void free(void *);",
        ]
        .map(String::from),
    );
    let decl_lines = g.lines.len();
    let p = prefix.to_string();
    let first = g.rng.below(ELEMS.len());
    g.types.push(first);
    if g.rng.chance(50) {
        let second = g.rng.below(ELEMS.len());
        if second != first {
            g.types.push(second);
        }
    }
    let types = g.types.clone();
    // struct rec: members a (type 0), b (the last type), arr (type 0), link.
    let (t0, t1) = (types[0], types[types.len() - 1]);
    let member_types = [t0, t1];
    g.lines.push(format!(
        "struct {p}rec {{ {} a; {} b; {} arr[3]; struct {p}rec *link; }};",
        g.c(t0),
        g.c(t1),
        g.c(t0)
    ));
    g.lines.push(format!(
        "struct {p}node {{ {} v; struct {p}node *next; }};",
        g.c(t0)
    ));
    g.lines.push(format!(
        "int {p}len(struct {p}node *n) {{ return n ? 1 + {p}len(n->next) : 0; }}"
    ));
    g.lines
        .push(format!("struct {p}rec {p}gs = {{ 5, 6, {{ 7 }} }};"));
    g.lines.push(format!(
        "void {p}copy_rec(struct {p}rec *d, const struct {p}rec *s) {{ *d = *s; }}"
    ));
    g.lines
        .push(format!("struct {p}pair {{ {} x; {} y; }};", g.c(t0), g.c(t1)));
    g.lines.push(format!("struct {p}pair {p}gpair = {{ 3, 4 }};"));
    g.lines.push(format!(
        "unsigned int {p}pair_sum(struct {p}pair q) {{ return (unsigned int) q.x * 3u + (unsigned int) q.y; }}"
    ));
    for (k, &ty) in types.iter().enumerate() {
        let init = if g.rng.chance(50) { " = { 9, 8, 7 }" } else { "" };
        g.lines.push(format!("{} {p}g{k}[4]{init};", g.c(ty)));
        g.lines
            .push(format!("struct {p}view{k} {{ {} *p; int n; }};", g.c(ty)));
        g.helpers(ty);
    }
    g.lines.push("int main(void) {".into());
    for i in 0..3 {
        g.line(format!("unsigned int v{i} = __VERIFIER_nondet_uint();"));
    }
    g.line("unsigned int acc = v0 ^ 0x9e37u;");
    for (k, &ty) in types.iter().enumerate() {
        g.objects(ty, k);
    }
    // Struct objects: a local struct, an array of structs, two linked heap structs.
    g.line(format!("struct {p}rec s = {{ 0 }};"));
    g.line(format!("struct {p}rec la[2] = {{ {{ 1, 2, {{ 3 }} }} }};"));
    // Struct pointers to named structs: the whole local, an element of the decayed array of
    // structs, the global.
    let mut roots = vec!["s.".to_string(), format!("la[{}].", g.rng.below(2))];
    if g.rng.chance(50) {
        g.line(format!("struct {p}rec *sp = &s;"));
        roots.push(if g.rng.chance(50) { "sp->" } else { "(*sp)." }.into());
    }
    if g.rng.chance(50) {
        g.line(format!("struct {p}rec *lp = la;"));
        let k = g.rng.below(2);
        roots.push(if g.rng.chance(50) {
            format!("lp[{k}].")
        } else {
            format!("(lp + {k})->")
        });
    }
    if g.rng.chance(50) {
        g.line(format!("struct {p}rec *gp = &{p}gs;"));
        roots.push("gp->".into());
        roots.push(format!("{p}gs."));
    }
    let a = g.conv(t0, "v1 + 1u");
    let b = g.conv(t1, "v2 + 2u");
    let alloc = if g.rng.chance(50) {
        format!("(struct {p}rec *) malloc(sizeof(struct {p}rec))")
    } else {
        format!("calloc(1, sizeof(struct {p}rec))")
    };
    g.line(format!("struct {p}rec *r = {alloc};"));
    g.line(format!("r->a = {a}; r->b = {b}; r->link = r;"));
    g.line("for (int i = 0; i < 3; i++) r->arr[i] = r->a;");
    if g.rng.chance(50) {
        g.line(format!("struct {p}rec *r2 = calloc(1, sizeof *r2);"));
        g.line("r2->link = r; r->link = r2;");
        g.frees.push("r2".into());
    }
    g.frees.push("r".into());
    // Struct copies through pointers (every member of `*r` is written; `r->link` stays `r`).
    if g.rng.chance(50) {
        g.line(format!("struct {p}rec t = *r;"));
        roots.push("t.".into());
    }
    match g.rng.below(4) {
        0 => g.line("la[v0 % 2u] = *r;"),
        1 => g.line("*r = la[0]; r->link = r;"),
        2 => g.line(format!("{p}copy_rec(&la[1], r);")),
        _ => g.line(format!("{p}copy_rec(r, &s); r->link = r;")),
    }
    if g.rng.chance(50) {
        g.line(format!(
            "struct {p}pair pr = {{ {}, {} }};",
            g.conv(t0, "v2"),
            g.conv(t1, "v0")
        ));
        g.line(format!("struct {p}pair *prp = &pr;"));
        g.line(format!("acc = acc * 31u + {p}pair_sum(*prp);"));
        g.line(format!("*prp = {p}gpair;"));
        g.line(format!("acc = acc * 31u + {p}pair_sum(pr);"));
    }
    for &ty in &types {
        for root in roots.clone() {
            g.member_objects(&root, ty, &member_types);
        }
        g.member_objects("r->", ty, &member_types);
    }
    // Pointer variables: two or three per type, maybe a pointer to one of them.
    for (k, &ty) in types.iter().enumerate() {
        let c = g.c(ty);
        for j in 0..2 + g.rng.below(2) {
            let name = format!("p{k}_{j}");
            let (text, target) = g.pointer(ty, false, 1);
            g.line(format!("{c} *{name} = {text};"));
            g.ptrs.push(PVar { name, ty, target });
        }
        if g.rng.chance(60) {
            let q = g.ptrs.len() - 1 - g.rng.below(2);
            let pp = format!("pp{k}");
            g.line(format!("{c} **{pp} = &{};", g.ptrs[q].name));
            g.pps.push((pp, q));
        }
        let entries: Vec<String> = (0..3).map(|_| g.pointer_with_room(ty).0).collect();
        g.line(format!("{c} *pa{k}[3];"));
        for (i, e) in entries.iter().enumerate() {
            g.line(format!("pa{k}[{i}] = {e};"));
        }
        let o = g.rng.below(g.objs.len());
        let o = (o..g.objs.len())
            .chain(0..o)
            .find(|&o| g.objs[o].ty == ty)
            .unwrap_or(0);
        let (base, len) = (g.objs[o].base[0].clone(), g.objs[o].len);
        g.line(format!("struct {p}view{k} view{k};"));
        g.line(format!("view{k}.p = {base}; view{k}.n = {len};"));
    }
    for _ in 0..8 + g.rng.below(16) {
        g.statement();
    }
    if g.rng.chance(60) {
        g.list();
    }
    // Last, so that the programs before it stay those of earlier versions of the generator.
    g.roots = roots;
    g.roots.push("r->".into());
    g.member_layout();
    // The hash: every element of every object, where pointers point, sizes.
    for o in 0..g.objs.len() {
        let (len, elem) = (g.objs[o].len, g.objs[o].at("i"));
        g.line(format!(
            "for (int i = 0; i < {len}; i++) acc = acc * 31u + (unsigned int) {elem};"
        ));
    }
    for i in 0..g.ptrs.len() {
        let name = g.ptrs[i].name.clone();
        match g.single(&g.ptrs[i].target) {
            Some(o) => {
                let base = g.objs[o].base[0].clone();
                g.line(format!("acc = acc * 31u + (unsigned int) ({name} - {base});"));
            }
            None => g.line(format!("acc = acc * 31u + ({name} == 0);")),
        }
    }
    g.line(format!(
        "acc = acc * 31u + (unsigned int) sizeof(struct {p}rec) + 1000u * (unsigned int) sizeof(struct {p}node);"
    ));
    for f in g.frees.clone() {
        g.line(format!("free({f});"));
    }
    g.line("return (int) (acc & 0x7fffffffu);");
    g.lines.push("}".into());
    GenProgram {
        prefix: p,
        lines: g.lines,
        decl_lines,
    }
}
