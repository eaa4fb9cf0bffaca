//! Arrays in generated programs: global arrays (one- and two-dimensional, with full, partial
//! or no initialiser list), local arrays (with initialiser lists, string literals with
//! escapes, and variable-length ones filled by a loop, so no element is ever read
//! uninitialised), element reads in expressions
//! and element writes (`=`, compound assignments, `++`/`--`).
//!
//! Every index is `(unsigned)(e) % extent`, in bounds by construction, so the programs stay
//! free of undefined behaviour.

use super::{Ctx, Gen};

/// An array the generated code may use.
#[derive(Clone)]
pub struct Arr {
    pub name: String,
    /// Extents as C expressions, outermost first: a constant or the variable holding a
    /// variable length (never written after the declaration).
    pub dims: Vec<String>,
}

impl Arr {
    /// Its first and last elements, for the final hash.
    pub fn corner_elements(&self) -> Vec<String> {
        let first: String = self.dims.iter().map(|_| "[0]").collect();
        let last: String = self.dims.iter().map(|d| format!("[{d} - 1]")).collect();
        vec![format!("{}{first}", self.name), format!("{}{last}", self.name)]
    }
}

impl Gen {
    /// Extents of a new fixed-size array: one or two dimensions of 1 to 5.
    fn fixed_dims(&mut self) -> Vec<usize> {
        let n = if self.rng.chance(30) { 2 } else { 1 };
        (0..n).map(|_| 1 + self.rng.below(5)).collect()
    }

    /// An initialiser list for these extents (possibly partial: the rest is 0), with
    /// elements from `element`.
    fn init_list(&mut self, dims: &[usize], element: &mut dyn FnMut(&mut Gen) -> String) -> String {
        let count = 1 + self.rng.below(dims[0]);
        let items: Vec<String> = (0..count)
            .map(|_| {
                if dims.len() > 1 {
                    self.init_list(&dims[1..], element)
                } else {
                    element(self)
                }
            })
            .collect();
        format!("{{ {} }}", items.join(", "))
    }

    /// Declares global array number `i`.
    pub(super) fn global_array(&mut self, i: usize) {
        let ty = self.any_type();
        let spelled = self.spell(ty);
        let name = format!("{}A{i}", self.p);
        let dims = self.fixed_dims();
        let shape: String = dims.iter().map(|d| format!("[{d}]")).collect();
        if self.rng.chance(25) {
            self.line(format!("{spelled} {name}{shape};"));
        } else {
            let init = self.init_list(&dims, &mut |g| g.const_init());
            self.line(format!("{spelled} {name}{shape} = {init};"));
        }
        self.global_arrays.push(Arr {
            name,
            dims: dims.iter().map(|d| d.to_string()).collect(),
        });
    }

    /// Declares local array number `i` of the current function, every element initialised.
    pub(super) fn local_array(&mut self, ctx: &Ctx, i: usize) -> Arr {
        let ty = self.any_type();
        let spelled = self.spell(ty);
        let name = format!("la{i}");
        let arr = if self.rng.chance(10) {
            // A string literal with escapes initialises a `char` array.
            const PIECES: &[&str] = &["a", "Z", "0", " ", "\\n", "\\t", "\\177", "\\200", "\\377", "\\0"];
            let text: String = (0..self.rng.below(6)).map(|_| *self.rng.pick(PIECES)).collect();
            let (shape, len) = if self.rng.chance(50) {
                ("[]".to_string(), None)
            } else {
                let n = 1 + self.rng.below(8);
                (format!("[{n}]"), Some(n))
            };
            // Too long for the array: cut it (not counting the NUL gcc may drop).
            let text = match len {
                Some(n) => {
                    let mut kept = String::new();
                    let mut count = 0;
                    let mut rest = text.as_str();
                    while let Some(piece) = PIECES.iter().find(|p| rest.starts_with(**p)) {
                        if count == n {
                            break;
                        }
                        kept.push_str(piece);
                        count += 1;
                        rest = &rest[piece.len()..];
                    }
                    kept
                }
                None => text,
            };
            self.line(format!("char {name}{shape} = \"{text}\";"));
            let dims = vec![format!("sizeof {name}")];
            Arr { name, dims }
        } else if self.rng.chance(40) {
            // A variable-length array of 1 to 5 elements, filled by a loop.
            let n = format!("n{i}");
            let size = self.expr(ctx, 1);
            self.line(format!("int {n} = 1 + (int)((unsigned)({size}) % 5u);"));
            self.line(format!("{spelled} {name}[{n}];"));
            let value = self.expr(ctx, 2);
            self.line(format!("for (c0 = 0; c0 < {n}; c0++) {name}[c0] = {value};"));
            Arr { name, dims: vec![n] }
        } else {
            let dims = self.fixed_dims();
            let shape: String = dims.iter().map(|d| format!("[{d}]")).collect();
            let init = self.init_list(&dims, &mut |g| g.expr(ctx, 1));
            self.line(format!("{spelled} {name}{shape} = {init};"));
            Arr {
                name,
                dims: dims.iter().map(|d| d.to_string()).collect(),
            }
        };
        self.arrays.push(arr.clone());
        arr
    }

    /// An element of one of `ctx`'s arrays, with in-bounds indices.
    fn element_of(&mut self, ctx: &Ctx) -> String {
        let a = self.rng.pick(&ctx.arrays).clone();
        // Index expressions read no arrays, which bounds the nesting.
        let plain = Ctx {
            arrays: Vec::new(),
            ..ctx.clone()
        };
        let mut s = a.name.clone();
        for d in &a.dims {
            let e = self.expr(&plain, 1);
            s.push_str(&format!("[(unsigned)({e}) % (unsigned)({d})]"));
        }
        s
    }

    /// An element read in an expression.
    pub(super) fn element(&mut self, ctx: &Ctx) -> String {
        self.element_of(ctx)
    }

    /// A statement writing an element.
    pub(super) fn element_store(&mut self, ctx: &Ctx) {
        let target = self.element_of(ctx);
        let plain = Ctx {
            arrays: Vec::new(),
            ..ctx.clone()
        };
        match self.rng.below(4) {
            0 => {
                let e = self.expr(ctx, 2);
                self.line(format!("{target} = {e};"));
            }
            1 => {
                let e = self.expr(&plain, 2);
                let op = *self.rng.pick(&["+=", "-=", "^=", "|=", "&="]);
                self.line(format!("{target} {op} {e};"));
            }
            2 => {
                let op = *self.rng.pick(&["++", "--"]);
                self.line(format!("{target}{op};"));
            }
            _ => {
                let v = self.rng.pick(&ctx.vars).name.clone();
                let e = self.expr(&plain, 1);
                self.line(format!("{v} = {target} = {e};"));
            }
        }
    }
}
