//! A random generator of small, terminating, UB-free C programs in the sv-benchmarks style.
//!
//! The generator *is* the corpus: a seed determines the program, so tests need no stored files.
//! Programs use every integer type (all widths and signedness, `_Bool`, typedefs, enums),
//! globals with initialisers, locals, casts, all arithmetic, bitwise, shift, comparison and
//! logical operators, compound assignments, `++`/`--`, `?:`, `if`/`else`, bounded `for`,
//! `while`, `do` and backward-`goto` loops with `break`/`continue`, `switch` with fall-through,
//! forward `goto`, calls with parameters and return values (no recursion: a function only calls
//! functions defined before it), `__VERIFIER_nondet_*`, `__VERIFIER_assume`, `abort`, `exit` and
//! `reach_error`, and arrays ([`arrays`]: global and local, one- and two-dimensional, with
//! initialiser lists, variable-length ones). `main` ends by returning (or `exit`ing with) a hash of all its variables and
//! all globals, so differing values show up, not only differing control flow.
//!
//! Undefined behaviour is avoided by construction: divisors are guarded
//! (`b == 0 || b == -1 ? 3 : b`), shift counts are masked below the width of the (explicitly
//! cast) left operand, every loop has a dedicated counter that its body never writes, and
//! expressions have no side effects (so evaluation order never matters). Signed overflow is
//! left in on purpose: the programs are compiled with `gcc -fwrapv` and interpreted with
//! Baton's wrap-around semantics, and runs under the default semantics (overflow undefined)
//! must end at the overflow.
//!
//! Each program is a list of lines, one statement per line, so the line of a `reach_error()`,
//! `abort()` or `__VERIFIER_assume` call is known and comparable. The first
//! [`GenProgram::decl_lines`] lines are the sv-benchmarks-style declarations of the special
//! functions; a gcc harness replaces them by its own definitions.

#![allow(dead_code)]

#[path = "cgen_arrays.rs"]
mod arrays;
use arrays::Arr;

/// A deterministic pseudo-random generator (SplitMix64): no dependency, stable across versions.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5eed_ba70_c0de_0001)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }

    /// An index chosen with the given weights.
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut r = (self.next_u64() % u64::from(total.max(1))) as u32;
        for (i, &w) in weights.iter().enumerate() {
            if r < w {
                return i;
            }
            r -= w;
        }
        weights.len() - 1
    }
}

/// A C integer type the generator uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CType {
    /// Spellings of the type (the first is canonical).
    pub spellings: &'static [&'static str],
    /// The largest shift count allowed after promotion in *both* data models.
    pub shift_mask: u32,
}

/// All integer types of C the generator uses.
pub const TYPES: &[CType] = &[
    CType {
        spellings: &["_Bool"],
        shift_mask: 31,
    },
    CType {
        spellings: &["char"],
        shift_mask: 31,
    },
    CType {
        spellings: &["signed char"],
        shift_mask: 31,
    },
    CType {
        spellings: &["unsigned char"],
        shift_mask: 31,
    },
    CType {
        spellings: &["short", "short int", "signed short"],
        shift_mask: 31,
    },
    CType {
        spellings: &["unsigned short", "unsigned short int"],
        shift_mask: 31,
    },
    CType {
        spellings: &["int", "signed int", "signed"],
        shift_mask: 31,
    },
    CType {
        spellings: &["unsigned int", "unsigned"],
        shift_mask: 31,
    },
    // `long` is 32 or 64 bits depending on the data model: 31 is safe in both.
    CType {
        spellings: &["long", "long int", "signed long"],
        shift_mask: 31,
    },
    CType {
        spellings: &["unsigned long", "unsigned long int", "long unsigned"],
        shift_mask: 31,
    },
    CType {
        spellings: &["long long", "long long int", "signed long long"],
        shift_mask: 63,
    },
    CType {
        spellings: &["unsigned long long", "unsigned long long int"],
        shift_mask: 63,
    },
];

/// The `__VERIFIER_nondet_*` functions the programs call: (suffix, C return type).
pub const NONDETS: &[(&str, &str)] = &[
    ("bool", "_Bool"),
    ("char", "char"),
    ("uchar", "unsigned char"),
    ("short", "short"),
    ("ushort", "unsigned short"),
    ("int", "int"),
    ("uint", "unsigned int"),
    ("long", "long"),
    ("ulong", "unsigned long"),
];

/// Interesting input values: 0, ±1, and the extremes of every integer type.
pub const BOUNDARY_VALUES: &[i128] = &[
    0,
    1,
    -1,
    2,
    -2,
    7,
    127,
    -128,
    128,
    255,
    256,
    32767,
    -32768,
    65535,
    65536,
    2147483647,
    -2147483648,
    2147483648,
    4294967295,
    4294967296,
    9223372036854775807,
    -9223372036854775808,
    18446744073709551615,
];

/// A generated program.
#[derive(Debug, Clone)]
pub struct GenProgram {
    /// Prefix of every file-scope identifier (so several programs fit one translation unit).
    pub prefix: String,
    /// The program, one statement per line.
    pub lines: Vec<String>,
    /// The first `decl_lines` lines declare the special functions (nondet, assume, …).
    pub decl_lines: usize,
}

impl GenProgram {
    /// The whole program text.
    pub fn text(&self) -> String {
        let mut s = self.lines.join("\n");
        s.push('\n');
        s
    }
}

/// Deterministic input lists for a program: boundary values, small numbers and random 64-bit
/// values, of varying lengths (including the empty list).
pub fn input_lists(seed: u64, count: usize) -> Vec<Vec<i128>> {
    let mut rng = Rng::new(seed.wrapping_mul(0x1000_0000_01b3) ^ 0xabcdef);
    let mut lists = vec![Vec::new()];
    // One list of all zeros and one of all -1: the classic corner cases.
    lists.push(vec![0; 16]);
    lists.push(vec![-1; 16]);
    while lists.len() < count {
        let len = rng.below(18);
        let list = (0..len)
            .map(|_| match rng.below(10) {
                0..=4 => *rng.pick(BOUNDARY_VALUES),
                5..=7 => rng.below(21) as i128 - 10,
                8 => i128::from(rng.next_u64() as i64),
                _ => i128::from(rng.next_u64()),
            })
            .collect();
        lists.push(list);
    }
    lists
}

#[derive(Clone)]
struct Var {
    name: String,
    ty: usize,
}

struct Func {
    name: String,
    params: Vec<usize>,
    ret: Option<usize>,
    /// A prototype declaration of the function.
    proto: String,
}

/// What a statement may do where it is generated.
#[derive(Clone)]
struct Ctx {
    /// Variables the statement may read and write.
    vars: Vec<Var>,
    /// Enclosing C loops (`break`/`continue` need one).
    loops: usize,
    /// Loop counters in use (C loops and backward-goto loops).
    counter_depth: usize,
    /// Nesting of blocks, bounds the size.
    depth: usize,
    /// Forward labels a `goto` may jump to.
    labels: Vec<String>,
    /// Arrays the statement may read and write elements of.
    arrays: Vec<Arr>,
    /// Functions this one may call.
    callees: usize,
    /// The return type of the current function (`None`: void).
    ret: Option<usize>,
    is_main: bool,
}

struct Gen {
    rng: Rng,
    p: String,
    lines: Vec<String>,
    indent: usize,
    /// Typedef names: (name, underlying type index).
    typedefs: Vec<(String, usize)>,
    /// Enum constants (all `int`).
    enum_consts: Vec<String>,
    /// Name of the enum type that has a negative constant (its type is `int` in gcc too).
    signed_enum: Option<String>,
    funcs: Vec<Func>,
    globals: Vec<Var>,
    /// Global arrays, and the arrays of the function being generated.
    global_arrays: Vec<Arr>,
    arrays: Vec<Arr>,
    /// Loop counters (one per nesting depth) of the function being generated.
    counters: Vec<String>,
    labels_made: usize,
}

/// Generates program number `seed`; all file-scope names start with `prefix`.
pub fn generate(seed: u64, prefix: &str) -> GenProgram {
    let g = Gen {
        rng: Rng::new(seed),
        p: prefix.to_string(),
        lines: Vec::new(),
        indent: 0,
        typedefs: Vec::new(),
        enum_consts: Vec::new(),
        signed_enum: None,
        funcs: Vec::new(),
        globals: Vec::new(),
        global_arrays: Vec::new(),
        arrays: Vec::new(),
        counters: Vec::new(),
        labels_made: 0,
    };
    g.program()
}

const MAX_LOOP_DEPTH: usize = 2;
const MAX_DEPTH: usize = 3;

impl Gen {
    fn line(&mut self, s: impl AsRef<str>) {
        let pad = "  ".repeat(self.indent);
        self.lines.push(format!("{pad}{}", s.as_ref()));
    }

    /// A spelling of type `ty`, possibly through a typedef.
    fn spell(&mut self, ty: usize) -> String {
        let aliases: Vec<String> = self
            .typedefs
            .iter()
            .filter(|(_, t)| *t == ty)
            .map(|(n, _)| n.clone())
            .collect();
        if !aliases.is_empty() && self.rng.chance(30) {
            return self.rng.pick(&aliases).clone();
        }
        self.rng.pick(TYPES[ty].spellings).to_string()
    }

    fn any_type(&mut self) -> usize {
        self.rng.below(TYPES.len())
    }

    fn program(mut self) -> GenProgram {
        // Declarations of the special functions (replaced by the gcc harness).
        self.line("extern void abort(void);");
        self.line("extern void exit(int);");
        self.line("extern void __VERIFIER_assume(int);");
        self.line("void reach_error(void);");
        self.line("extern void __VERIFIER_error(void);");
        self.line("extern void __assert_fail(const char *, const char *, unsigned int, const char *);");
        for (suffix, ty) in NONDETS {
            self.line(format!("extern {ty} __VERIFIER_nondet_{suffix}(void);"));
        }
        let decl_lines = self.lines.len();

        // Typedefs and enums.
        for i in 0..self.rng.below(3) {
            let ty = self.any_type();
            let name = format!("{}t{i}", self.p);
            let base = self.rng.pick(TYPES[ty].spellings).to_string();
            self.line(format!("typedef {base} {name};"));
            self.typedefs.push((name, ty));
        }
        for i in 0..1 + self.rng.below(2) {
            let negative = i == 0 || self.rng.chance(50);
            let tag = format!("{}e{i}", self.p);
            let mut items = Vec::new();
            for j in 0..2 + self.rng.below(3) {
                let name = format!("{}E{i}_{j}", self.p);
                let item = match self.rng.below(3) {
                    0 => name.clone(),
                    1 if negative && j == 0 => format!("{name} = -{}", 1 + self.rng.below(5)),
                    _ => format!("{name} = {}", self.rng.below(40)),
                };
                items.push(item);
                self.enum_consts.push(name);
            }
            if negative && !items[0].contains('-') {
                items[0] = format!("{}E{i}_0 = -3", self.p);
            }
            self.line(format!("enum {tag} {{ {} }};", items.join(", ")));
            if negative && self.signed_enum.is_none() {
                self.signed_enum = Some(format!("enum {tag}"));
            }
        }

        // Globals.
        for i in 0..2 + self.rng.below(4) {
            let ty = self.any_type();
            let name = format!("{}g{i}", self.p);
            let spelled = self.spell(ty);
            let spelled = if self.rng.chance(20) {
                format!("static {spelled}")
            } else {
                spelled
            };
            if self.rng.chance(25) {
                self.line(format!("{spelled} {name};"));
            } else {
                let init = self.const_init();
                self.line(format!("{spelled} {name} = {init};"));
            }
            self.globals.push(Var { name, ty });
        }
        for i in 0..self.rng.below(3) {
            self.global_array(i);
        }
        if let Some(e) = self.signed_enum.clone() {
            let name = format!("{}ge", self.p);
            let c = self.rng.pick(&self.enum_consts).clone();
            self.line(format!("{e} {name} = {c};"));
            // Enum variables with a negative constant have type int (gcc and C agree).
            self.globals.push(Var {
                name,
                ty: 6, // int
            });
        }

        // Functions, each calling only earlier ones.
        let nfuncs = self.rng.below(4);
        let mut chunks = Vec::new();
        for i in 0..nfuncs {
            let start = self.lines.len();
            self.function(i);
            chunks.push(self.lines.split_off(start));
        }
        let start = self.lines.len();
        self.main_function(nfuncs);
        chunks.push(self.lines.split_off(start));
        if nfuncs > 0 && self.rng.chance(40) {
            // Prototypes first, then the definitions in any order.
            let protos: Vec<String> = self.funcs.iter().map(|f| f.proto.clone()).collect();
            self.lines.extend(protos);
            for i in (1..chunks.len()).rev() {
                let j = self.rng.below(i + 1);
                chunks.swap(i, j);
            }
        }
        for chunk in chunks {
            self.lines.extend(chunk);
        }
        GenProgram {
            prefix: self.p,
            lines: self.lines,
            decl_lines,
        }
    }

    /// A constant initialiser for a global.
    fn const_init(&mut self) -> String {
        match self.rng.below(5) {
            0 => format!("-{}", self.literal_positive()),
            1 => format!("{} | {}", self.literal_positive(), self.literal_positive()),
            2 => self.rng.pick(&self.enum_consts).clone(),
            3 => {
                let t = self.any_type();
                let spelled = self.rng.pick(TYPES[t].spellings).to_string();
                format!("({spelled}){}", self.literal_positive())
            }
            _ => self.literal_positive(),
        }
    }

    /// An integer literal (non-negative, with various suffixes and bases).
    fn literal_positive(&mut self) -> String {
        const FIXED: &[&str] = &[
            "0",
            "1",
            "2",
            "7",
            "100",
            "127",
            "128",
            "255",
            "0xff",
            "256",
            "32767",
            "65535",
            "0xffff",
            "2147483647",
            "2147483648",
            "4294967295",
            "0xffffffff",
            "0x80000000",
            "4294967296",
            "9223372036854775807",
            "0x7fffffffffffffff",
            "0xffffffffffffffff",
            "18446744073709551615u",
            "1u",
            "3U",
            "10l",
            "5L",
            "6ul",
            "7UL",
            "8ll",
            "9LL",
            "11ull",
            "12ULL",
            "0x7fu",
            "017",
            "'a'",
            "'\\n'",
            "'\\xff'",
            "'\\377'",
            "'\\0'",
        ];
        if self.rng.chance(60) {
            self.rng.pick(FIXED).to_string()
        } else {
            format!("{}", self.rng.below(50))
        }
    }

    fn var_decl_type(&mut self) -> (String, usize) {
        if let Some(e) = self.signed_enum.clone() {
            if self.rng.chance(8) {
                return (e, 6);
            }
        }
        let ty = self.any_type();
        (self.spell(ty), ty)
    }

    fn function(&mut self, index: usize) {
        let name = format!("{}f{index}", self.p);
        let ret = if self.rng.chance(80) {
            Some(self.any_type())
        } else {
            None
        };
        let nparams = self.rng.below(4);
        let mut params = Vec::new();
        let mut vars = self.globals.clone();
        let mut plist = Vec::new();
        for j in 0..nparams {
            let (spelled, ty) = self.var_decl_type();
            let pname = format!("a{j}");
            plist.push(format!("{spelled} {pname}"));
            params.push(ty);
            vars.push(Var { name: pname, ty });
        }
        let ret_spelled = match ret {
            Some(t) => self.spell(t),
            None => "void".into(),
        };
        let plist = if plist.is_empty() {
            "void".to_string()
        } else {
            plist.join(", ")
        };
        // The prototype names the parameters differently or not at all.
        let proto_params: Vec<String> = plist
            .split(", ")
            .map(|p| match p.rsplit_once(' ') {
                Some((ty, _)) if self.rng.chance(50) => ty.to_string(),
                Some((ty, n)) => format!("{ty} q{n}"),
                None => p.to_string(),
            })
            .collect();
        let proto = format!("{ret_spelled} {name}({});", proto_params.join(", "));
        self.line(format!("{ret_spelled} {name}({plist}) {{"));
        self.indent += 1;
        self.body(vars, index, ret, false);
        self.indent -= 1;
        self.line("}");
        self.funcs.push(Func {
            name,
            params,
            ret,
            proto,
        });
    }

    fn main_function(&mut self, nfuncs: usize) {
        self.line("int main(void) {");
        self.indent += 1;
        let vars = self.globals.clone();
        self.body(vars, nfuncs, Some(6), true);
        self.indent -= 1;
        self.line("}");
    }

    /// Locals, counters, statements and the final hashing return of a function.
    fn body(&mut self, mut vars: Vec<Var>, callees: usize, ret: Option<usize>, is_main: bool) {
        self.arrays = self.global_arrays.clone();
        let nlocals = 1 + self.rng.below(4);
        let mut locals = Vec::new();
        for i in 0..nlocals {
            let (spelled, ty) = self.var_decl_type();
            let name = format!("l{i}");
            let init = if is_main && self.rng.chance(40) {
                let (suffix, _) = *self.rng.pick(NONDETS);
                format!("__VERIFIER_nondet_{suffix}()")
            } else {
                let ctx = self.ctx(vars.clone(), callees, ret, is_main);
                self.expr(&ctx, 2)
            };
            let volatile = if self.rng.chance(10) { "volatile " } else { "" };
            self.line(format!("{volatile}{spelled} {name} = {init};"));
            let v = Var { name, ty };
            vars.push(v.clone());
            locals.push(v);
        }
        if self.rng.chance(30) {
            // A static local keeps its value from call to call.
            let (spelled, ty) = self.var_decl_type();
            let init = self.const_init();
            self.line(format!("static {spelled} s0 = {init};"));
            let v = Var {
                name: "s0".into(),
                ty,
            };
            vars.push(v.clone());
            locals.push(v);
        }
        self.counters = (0..=MAX_LOOP_DEPTH).map(|d| format!("c{d}")).collect();
        let counters = self.counters.join(" = 0, ");
        self.line(format!("int {counters} = 0;"));
        let mut local_arrays = Vec::new();
        for i in 0..self.rng.below(3) {
            let ctx = self.ctx(vars.clone(), callees, ret, is_main);
            local_arrays.push(self.local_array(&ctx, i));
        }
        // Top-level statements with forward labels between them.
        let n = 3 + self.rng.below(7);
        let mut label_at: Vec<Option<String>> = vec![None; n + 1];
        for slot in label_at.iter_mut().skip(1) {
            if self.rng.chance(20) {
                *slot = Some(format!("L{}", self.labels_made));
                self.labels_made += 1;
            }
        }
        let mut ctx = self.ctx(vars.clone(), callees, ret, is_main);
        for i in 0..n {
            if let Some(l) = &label_at[i] {
                self.line(format!("{l}: ;"));
            }
            ctx.labels = label_at[i + 1..].iter().flatten().cloned().collect();
            if is_main && i == 0 {
                self.nondet_stmt(&ctx);
            }
            self.stmt(&ctx, true);
        }
        if let Some(l) = &label_at[n] {
            self.line(format!("{l}: ;"));
        }
        // The final return mixes every variable, so wrong values show.
        let mut hash_vars: Vec<Var> = locals;
        if is_main {
            hash_vars.extend(self.globals.iter().cloned());
        } else {
            hash_vars.extend(vars.iter().filter(|v| v.name.starts_with('a')).cloned());
        }
        let mut hashed: Vec<String> = hash_vars.iter().map(|v| v.name.clone()).collect();
        let arrays = if is_main {
            local_arrays.iter().chain(&self.global_arrays).cloned().collect()
        } else {
            local_arrays
        };
        for a in &arrays {
            hashed.extend(a.corner_elements());
        }
        let mut h = "0ULL".to_string();
        for v in &hashed {
            h = format!("(({h}) * 1000003ULL ^ (unsigned long long)({v}))");
        }
        if is_main {
            if self.rng.chance(15) {
                self.line(format!("exit((int)(({h}) ^ (({h}) >> 32)));"));
            } else {
                self.line(format!("return (int)(({h}) ^ (({h}) >> 32));"));
            }
        } else if let Some(t) = ret {
            let spelled = self.spell(t);
            self.line(format!("return ({spelled})({h});"));
        }
    }

    fn ctx(&self, vars: Vec<Var>, callees: usize, ret: Option<usize>, is_main: bool) -> Ctx {
        Ctx {
            vars,
            loops: 0,
            counter_depth: 0,
            depth: 0,
            labels: Vec::new(),
            arrays: self.arrays.clone(),
            callees,
            ret,
            is_main,
        }
    }

    fn var<'a>(&mut self, ctx: &'a Ctx) -> &'a Var {
        self.rng.pick(&ctx.vars)
    }

    /// A side-effect-free expression.
    fn expr(&mut self, ctx: &Ctx, depth: usize) -> String {
        if depth == 0 || self.rng.chance(25) {
            return self.leaf(ctx);
        }
        let d = depth - 1;
        match self.rng.weighted(&[4, 12, 6, 3, 2, 2, 2, 1]) {
            0 => {
                let op = *self.rng.pick(&["-", "~", "!", "+"]);
                format!("({op}{})", self.expr(ctx, d))
            }
            1 => {
                let op = *self.rng.pick(&["+", "-", "*", "&", "|", "^"]);
                format!("({} {op} {})", self.expr(ctx, d), self.expr(ctx, d))
            }
            2 => {
                let op = *self.rng.pick(&["==", "!=", "<", "<=", ">", ">="]);
                format!("({} {op} {})", self.expr(ctx, d), self.expr(ctx, d))
            }
            3 => {
                let op = *self.rng.pick(&["&&", "||"]);
                format!("({} {op} {})", self.expr(ctx, d), self.expr(ctx, d))
            }
            4 => {
                let op = *self.rng.pick(&["/", "%"]);
                let a = self.expr(ctx, d);
                let b = self.expr(ctx, d.min(1));
                format!("({a} {op} {})", Self::guard(&b))
            }
            5 => {
                let op = *self.rng.pick(&["<<", ">>"]);
                let t = self.any_type();
                let spelled = self.spell(t);
                let a = self.expr(ctx, d);
                let s = self.expr(ctx, d.min(1));
                format!("((({spelled})({a})) {op} (({s}) & {}))", TYPES[t].shift_mask)
            }
            6 => {
                let t = self.any_type();
                let spelled = self.spell(t);
                format!("(({spelled})({}))", self.expr(ctx, d))
            }
            _ => format!(
                "({} ? {} : {})",
                self.expr(ctx, d),
                self.expr(ctx, d),
                self.expr(ctx, d)
            ),
        }
    }

    /// A divisor that is neither 0 nor -1 (so neither division by zero nor MIN / -1).
    fn guard(b: &str) -> String {
        format!("(({b}) == 0 || ({b}) == -1 ? 3 : ({b}))")
    }

    fn leaf(&mut self, ctx: &Ctx) -> String {
        if !ctx.arrays.is_empty() && self.rng.chance(12) {
            return self.element(ctx);
        }
        match self.rng.below(20) {
            0..=11 => self.var(ctx).name.clone(),
            12 | 13 => self.rng.pick(&self.enum_consts).clone(),
            14 => {
                let t = self.any_type();
                let spelled = self.spell(t);
                format!("sizeof({spelled})")
            }
            15 => format!("sizeof {}", self.var(ctx).name),
            _ => self.literal_positive(),
        }
    }

    fn cond(&mut self, ctx: &Ctx) -> String {
        if self.rng.chance(70) {
            let op = *self.rng.pick(&["==", "!=", "<", "<=", ">", ">="]);
            let a = self.expr(ctx, 2);
            let b = self.expr(ctx, 1);
            format!("{a} {op} {b}")
        } else {
            self.expr(ctx, 2)
        }
    }

    fn nondet_stmt(&mut self, ctx: &Ctx) {
        let v = self.var(ctx).name.clone();
        let (suffix, _) = *self.rng.pick(NONDETS);
        if self.rng.chance(80) {
            self.line(format!("{v} = __VERIFIER_nondet_{suffix}();"));
        } else {
            let e = self.expr(ctx, 1);
            let op = *self.rng.pick(&["+", "^", "-"]);
            self.line(format!("{v} = __VERIFIER_nondet_{suffix}() {op} {e};"));
        }
    }

    /// A block of statements (the braces are the caller's).
    fn block(&mut self, ctx: &Ctx) {
        self.indent += 1;
        let mut ctx = ctx.clone();
        if self.rng.chance(25) {
            // A block-scoped local, sometimes shadowing a variable of the same name.
            let locals: Vec<String> = ctx
                .vars
                .iter()
                .filter(|v| v.name.starts_with('l'))
                .map(|v| v.name.clone())
                .collect();
            let name = if !locals.is_empty() && self.rng.chance(50) {
                self.rng.pick(&locals).clone()
            } else {
                self.labels_made += 1;
                format!("t{}", self.labels_made)
            };
            let (spelled, ty) = self.var_decl_type();
            // The new variable's scope starts at its declarator: the initialiser must not
            // name it (it would read the new, indeterminate variable).
            ctx.vars.retain(|v| v.name != name);
            let init = self.expr(&ctx, 2);
            self.line(format!("{spelled} {name} = {init};"));
            ctx.vars.push(Var { name, ty });
        }
        self.stmts(&ctx);
        self.indent -= 1;
    }

    /// A block without declarations (after `case` labels and in goto loops).
    fn block_no_decl(&mut self, ctx: &Ctx) {
        self.indent += 1;
        self.stmts(ctx);
        self.indent -= 1;
    }

    fn stmts(&mut self, ctx: &Ctx) {
        let n = 1 + self.rng.below(3);
        for _ in 0..n {
            self.stmt(ctx, false);
        }
    }

    fn stmt(&mut self, ctx: &Ctx, top: bool) {
        let nested = ctx.depth < MAX_DEPTH;
        let can_loop = nested && ctx.counter_depth < MAX_LOOP_DEPTH;
        let weights = [
            25,                                        // 0 assign
            10,                                        // 1 compound
            8,                                         // 2 ++/--
            7,                                         // 3 nondet
            if nested { 10 } else { 0 },               // 4 if
            if can_loop { 8 } else { 0 },              // 5 loop
            if nested { 4 } else { 0 },                // 6 switch
            if ctx.callees > 0 { 7 } else { 0 },       // 7 call
            if ctx.loops > 0 { 4 } else { 0 },         // 8 break/continue
            if ctx.labels.is_empty() { 0 } else { 3 }, // 9 goto
            2,                                         // 10 return
            2,                                         // 11 assume
            1,                                         // 12 abort
            1,                                         // 13 exit
            2,                                         // 14 reach_error
            if top && can_loop { 2 } else { 0 },       // 15 backward goto loop
            8,                                         // 16 side effects in expressions
        ];
        let inner = |ctx: &Ctx| Ctx {
            depth: ctx.depth + 1,
            ..ctx.clone()
        };
        match self.rng.weighted(&weights) {
            0 => {
                let v = self.var(ctx).name.clone();
                let e = self.expr(ctx, 3);
                self.line(format!("{v} = {e};"));
            }
            1 => {
                let v = self.var(ctx).clone();
                let op = *self
                    .rng
                    .pick(&["+=", "-=", "*=", "&=", "|=", "^=", "/=", "%=", "<<=", ">>="]);
                let e = self.expr(ctx, 2);
                let rhs = match op {
                    "/=" | "%=" => {
                        let e = self.expr(ctx, 1);
                        Self::guard(&e)
                    }
                    "<<=" | ">>=" => format!("({e}) & {}", TYPES[v.ty].shift_mask),
                    _ => e,
                };
                self.line(format!("{} {op} {rhs};", v.name));
            }
            2 => {
                let v = self.var(ctx).name.clone();
                let w = self.var(ctx).name.clone();
                let form = self.rng.below(6);
                let s = match form {
                    0 => format!("{v}++;"),
                    1 => format!("{v}--;"),
                    2 => format!("++{v};"),
                    3 => format!("--{v};"),
                    _ if w == v => format!("{v}++;"),
                    4 => format!("{w} = {v}++;"),
                    _ => format!("{w} = --{v};"),
                };
                self.line(s);
            }
            3 => self.nondet_stmt(ctx),
            4 => {
                let c = self.cond(ctx);
                self.line(format!("if ({c}) {{"));
                self.block(&inner(ctx));
                if self.rng.chance(50) {
                    self.line("} else {");
                    self.block(&inner(ctx));
                }
                self.line("}");
            }
            5 => self.loop_stmt(ctx),
            6 => self.switch_stmt(ctx),
            7 => {
                let f = self.rng.below(ctx.callees);
                let name = self.funcs[f].name.clone();
                let ret = self.funcs[f].ret;
                let nparams = self.funcs[f].params.len();
                let args: Vec<String> = (0..nparams).map(|_| self.expr(ctx, 2)).collect();
                let call = format!("{name}({})", args.join(", "));
                if ret.is_some() && self.rng.chance(80) {
                    let v = self.var(ctx).name.clone();
                    self.line(format!("{v} = {call};"));
                } else {
                    self.line(format!("{call};"));
                }
            }
            8 => {
                let c = self.cond(ctx);
                let what = if self.rng.chance(50) { "break" } else { "continue" };
                self.line(format!("if ({c}) {what};"));
            }
            9 => {
                let c = self.cond(ctx);
                let l = self.rng.pick(&ctx.labels).clone();
                self.line(format!("if ({c}) goto {l};"));
            }
            10 => {
                let c = self.cond(ctx);
                match ctx.ret {
                    Some(_) => {
                        let e = self.expr(ctx, 2);
                        self.line(format!("if ({c}) return {e};"));
                    }
                    None => self.line(format!("if ({c}) return;")),
                }
            }
            11 => {
                let c = self.cond(ctx);
                self.line(format!("__VERIFIER_assume({c});"));
            }
            12 => {
                let c = self.cond(ctx);
                if self.rng.chance(25) {
                    self.line(format!(
                        "if ({c}) __assert_fail(\"{c}\", \"{}.c\", 7, \"f\");",
                        self.p
                    ));
                } else {
                    self.line(format!("if ({c}) abort();"));
                }
            }
            13 => {
                let c = self.cond(ctx);
                let e = self.expr(ctx, 2);
                self.line(format!("if ({c}) exit({e});"));
            }
            14 => {
                let c = self.cond(ctx);
                // The older name of the error function still appears in sv-benchmarks.
                let f = if self.rng.chance(20) {
                    "__VERIFIER_error"
                } else {
                    "reach_error"
                };
                self.line(format!("if ({c}) {f}();"));
            }
            16 => self.effect_stmt(ctx),
            _ => {
                // A loop made of a backward goto, bounded by its own counter.
                let counter = self.counters[ctx.counter_depth].clone();
                let label = format!("B{}", self.labels_made);
                self.labels_made += 1;
                let bound = 1 + self.rng.below(3);
                self.line(format!("{counter} = 0;"));
                self.line(format!("{label}: {counter}++;"));
                let body = Ctx {
                    depth: ctx.depth + 1,
                    counter_depth: ctx.counter_depth + 1,
                    ..ctx.clone()
                };
                self.block_no_decl(&body);
                self.line(format!("if ({counter} < {bound}) goto {label};"));
            }
        }
    }

    /// Statements whose expressions have side effects, in forms whose result C defines:
    /// short-circuit and conditional evaluation skipping nondet calls and calls, chained and
    /// comma assignments, calls inside larger expressions (combined only with locals, which the
    /// callee cannot change).
    fn effect_stmt(&mut self, ctx: &Ctx) {
        let local_ctx = Ctx {
            vars: ctx
                .vars
                .iter()
                .filter(|v| !v.name.starts_with(&self.p))
                .cloned()
                .collect(),
            arrays: ctx
                .arrays
                .iter()
                .filter(|a| !a.name.starts_with(&self.p))
                .cloned()
                .collect(),
            ..ctx.clone()
        };
        if !ctx.arrays.is_empty() && self.rng.chance(15) {
            self.element_store(ctx);
            return;
        }
        let local_expr = |g: &mut Gen| {
            if local_ctx.vars.is_empty() {
                g.literal_positive()
            } else {
                g.expr(&local_ctx, 1)
            }
        };
        let (suffix, _) = *self.rng.pick(NONDETS);
        let nondet = format!("__VERIFIER_nondet_{suffix}()");
        let v = self.var(ctx).name.clone();
        let w = self.var(ctx).name.clone();
        let callee = (ctx.callees > 0).then(|| self.rng.below(ctx.callees));
        let local_vars: Vec<String> = local_ctx.vars.iter().map(|v| v.name.clone()).collect();
        match self.rng.below(14) {
            9 => {
                // Post-increment inside a condition (the other side must not read the
                // variable: that would be unsequenced).
                let others = Ctx {
                    vars: ctx.vars.iter().filter(|x| x.name != w).cloned().collect(),
                    ..ctx.clone()
                };
                let e = if others.vars.is_empty() {
                    self.literal_positive()
                } else {
                    self.expr(&others, 1)
                };
                let op = *self.rng.pick(&["++", "--"]);
                let cmp = *self.rng.pick(&["<", ">", "==", "!="]);
                self.line(format!("if ({w}{op} {cmp} {e}) {{"));
                self.block(&Ctx {
                    depth: ctx.depth + 1,
                    ..ctx.clone()
                });
                self.line("}");
            }
            10 if v != w => {
                let c = self.cond(ctx);
                self.line(format!("{v} = ({c}) ? {w}++ : --{w};"));
            }
            11 if callee.is_some_and(|f| self.funcs[f].ret.is_some()) && !local_vars.is_empty() => {
                // Compound assignment of a call result to a local the callee cannot touch.
                let call = self.call_expr(ctx, callee.unwrap_or(0));
                let l = self.rng.pick(&local_vars).clone();
                let op = *self.rng.pick(&["+=", "-=", "^=", "|=", "&=", "*="]);
                self.line(format!("{l} {op} {call};"));
            }
            12 if ctx.depth < MAX_DEPTH => {
                self.line(format!("switch ({nondet}) {{"));
                self.line("case 0:");
                self.block_no_decl(&Ctx {
                    depth: ctx.depth + 1,
                    ..ctx.clone()
                });
                self.line("case 1:");
                self.block_no_decl(&Ctx {
                    depth: ctx.depth + 1,
                    ..ctx.clone()
                });
                self.indent += 1;
                self.line("break;");
                self.indent -= 1;
                self.line("default:");
                self.block_no_decl(&Ctx {
                    depth: ctx.depth + 1,
                    ..ctx.clone()
                });
                self.line("}");
            }
            13 if callee.is_some_and(|f| self.funcs[f].ret.is_some()) => {
                let call = self.call_expr(ctx, callee.unwrap_or(0));
                let c = self.cond(ctx);
                match ctx.ret {
                    Some(_) => self.line(format!("if ({c}) return {call};")),
                    None => self.line(format!("if ({c}) return;")),
                }
            }
            8 if callee.is_some_and(|f| !self.funcs[f].params.is_empty()) => {
                // f(g(...), locals...): g's effects cannot reach the other arguments.
                let f = callee.unwrap_or(0);
                let inner = (0..ctx.callees).find(|&j| self.funcs[j].ret.is_some());
                let mut args = Vec::new();
                for k in 0..self.funcs[f].params.len() {
                    match inner {
                        Some(j) if k == 0 => args.push(self.call_expr(ctx, j)),
                        _ => args.push(local_expr(self)),
                    }
                }
                let call = format!("{}({})", self.funcs[f].name, args.join(", "));
                if self.funcs[f].ret.is_some() {
                    self.line(format!("{v} = {call};"));
                } else {
                    self.line(format!("{call};"));
                }
            }
            0 => {
                let c = self.cond(ctx);
                let op = *self.rng.pick(&["&&", "||"]);
                self.line(format!("{v} = ({c}) {op} {nondet};"));
            }
            1 => {
                let c = self.cond(ctx);
                let e = self.expr(ctx, 2);
                if self.rng.chance(50) {
                    self.line(format!("{v} = ({c}) ? {nondet} : {e};"));
                } else {
                    self.line(format!("{v} = ({c}) ? {e} : {nondet};"));
                }
            }
            2 if v != w => {
                let e = self.expr(ctx, 2);
                self.line(format!("{v} = {w} = {e};"));
            }
            3 if v != w => {
                let e = self.expr(ctx, 2);
                let op = *self.rng.pick(&["+=", "^=", "-=", "|="]);
                self.line(format!("{v} = ({w} {op} 1, {e});"));
            }
            4 if callee.is_some() && self.funcs[callee.unwrap_or(0)].ret.is_some() => {
                let call = self.call_expr(ctx, callee.unwrap_or(0));
                let e = local_expr(self);
                let op = *self.rng.pick(&["+", "^", "*", "-", "<", "=="]);
                self.line(format!("{v} = {call} {op} {e};"));
            }
            5 if callee.is_some() && self.funcs[callee.unwrap_or(0)].ret.is_some() => {
                let call = self.call_expr(ctx, callee.unwrap_or(0));
                let e = local_expr(self);
                let c = self.cond(ctx);
                let op = *self.rng.pick(&["&&", "||"]);
                self.line(format!("if (({c}) {op} {call} > {e}) {{"));
                self.block(&Ctx {
                    depth: ctx.depth + 1,
                    ..ctx.clone()
                });
                self.line("}");
            }
            6 => {
                let c = self.cond(ctx);
                let op = *self.rng.pick(&["&&", "||"]);
                self.line(format!("if ({nondet} {op} ({c})) {{"));
                self.block(&Ctx {
                    depth: ctx.depth + 1,
                    ..ctx.clone()
                });
                self.line("}");
            }
            _ => {
                let e = local_expr(self);
                let op = *self.rng.pick(&["+", "^", "*", "-", ">"]);
                self.line(format!("{v} = {nondet} {op} {e};"));
            }
        }
    }

    fn call_expr(&mut self, ctx: &Ctx, f: usize) -> String {
        let name = self.funcs[f].name.clone();
        let nparams = self.funcs[f].params.len();
        let args: Vec<String> = (0..nparams).map(|_| self.expr(ctx, 2)).collect();
        format!("{name}({})", args.join(", "))
    }

    fn loop_stmt(&mut self, ctx: &Ctx) {
        let counter = self.counters[ctx.counter_depth].clone();
        let bound = 1 + self.rng.below(3);
        let body = Ctx {
            depth: ctx.depth + 1,
            loops: ctx.loops + 1,
            counter_depth: ctx.counter_depth + 1,
            ..ctx.clone()
        };
        match self.rng.below(4) {
            3 => {
                // A loop variable declared in the `for`, invisible to the body's writes.
                self.labels_made += 1;
                let i = format!("i{}", self.labels_made);
                let (spelled, ty) = self.var_decl_type();
                // `_Bool` (also behind a typedef) never reaches the bound.
                let spelled = if ty == 0 { "int".to_string() } else { spelled };
                self.line(format!("for ({spelled} {i} = 0; {i} < {bound}; ++{i}) {{"));
                self.block(&body);
                self.line("}");
            }
            0 if self.rng.chance(30) => {
                self.line(format!("{counter} = 0;"));
                self.line(format!("while ({counter}++ < {bound}) {{"));
                self.block(&body);
                self.line("}");
            }
            0 => {
                self.line(format!(
                    "for ({counter} = 0; {counter} < {bound}; {counter}++) {{"
                ));
                self.block(&body);
                self.line("}");
            }
            1 => {
                self.line(format!("{counter} = 0;"));
                let extra = if self.rng.chance(40) {
                    format!(" && {}", self.cond(ctx))
                } else {
                    String::new()
                };
                self.line(format!("while ({counter} < {bound}{extra}) {{"));
                self.indent += 1;
                self.line(format!("{counter}++;"));
                self.indent -= 1;
                self.block(&body);
                self.line("}");
            }
            _ => {
                self.line(format!("{counter} = 0;"));
                self.line("do {");
                self.indent += 1;
                self.line(format!("{counter}++;"));
                self.indent -= 1;
                self.block(&body);
                let extra = if self.rng.chance(40) {
                    format!(" && {}", self.cond(ctx))
                } else {
                    String::new()
                };
                self.line(format!("}} while ({counter} < {bound}{extra});"));
            }
        }
    }

    fn switch_stmt(&mut self, ctx: &Ctx) {
        let e = self.expr(ctx, 2);
        let scrutinee = if self.rng.chance(50) {
            format!("({e}) & 7")
        } else {
            e
        };
        self.line(format!("switch ({scrutinee}) {{"));
        let body = Ctx {
            depth: ctx.depth + 1,
            ..ctx.clone()
        };
        let mut used: Vec<i64> = Vec::new();
        let ncases = 1 + self.rng.below(4);
        for _ in 0..ncases {
            let mut v = self.rng.below(10) as i64 - 2;
            while used.contains(&v) {
                v += 1;
            }
            used.push(v);
            self.line(format!("case {v}:"));
            self.block_no_decl(&body);
            if self.rng.chance(50) {
                self.indent += 1;
                self.line("break;");
                self.indent -= 1;
            }
        }
        if self.rng.chance(60) {
            self.line("default:");
            self.block_no_decl(&body);
        }
        self.line("}");
    }
}
