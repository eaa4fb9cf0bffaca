//! Random straight-line-and-branch programs over `float`, `double`, `long double` and `unsigned
//! int`, for the gcc differential test of IEEE-754 and x87 extended arithmetic, conversions and
//! union type punning.
//!
//! Float values come from integer nondet inputs, converted (`(float)n / 8`) or reinterpreted
//! through a union (any bit pattern: NaN, infinities, subnormals); `long double` values from
//! integers (up to 64 bits, exact), scaled far beyond `double`'s range, and from the punned
//! `double`s. Expressions use `+ - * /`, unary `-`, comparisons, `!`, conversions between all
//! four types (and `long double` to and from 64-bit integers) and literals in decimal and
//! hexadecimal (with `L`: more digits than a `double` holds, subnormals and extremes of the
//! extended format). Conversions to an integer type are guarded by a range check, so no program
//! has undefined behaviour. A struct with `long double` members, reached through a pointer,
//! adds gcc's layout (`sizeof`, member offsets) of both data models. A NaN's sign and payload
//! are not C semantics (gcc's folding of `a - -b` into `b + a` picks the other operand's NaN),
//! so only numbers' bytes are read back: a `long double`'s exactly by arithmetic (its exponent
//! by scaling with powers of two, its 63 fraction bits as an integer, the sign of zero through
//! a `double`), as no union of Baton's reads its bytes. `main` returns a hash of every
//! variable.

use super::cgen::{GenProgram, Rng, NONDETS};

/// `long double` literals: more digits than a `double` holds, halfway cases of the extended
/// format, its subnormals, extremes and overflow.
const LONG_DOUBLE_LITERALS: &[&str] = &[
    "0.1L",
    "3.14159265358979323846264338327950288L",
    "1.00000000000000000005421010862427522L",
    "0x1.00000000000000008p0L",
    "0x1.00000000000000018p0L",
    "0x1p-70L",
    "1e-4940L",
    "0x1p-16445L",
    "0x1.fffffffffffffffep16383L",
    "1.18973149535723176502e+4932L",
    "1e4933L",
    "18446744073709551615.0L",
    "-9223372036854775808.0L",
    "1e400L",
    "-0.0L",
    "0.333333333333333333342L",
];

/// Literals with their C spelling: exact, inexact, tiny, huge, negative zero, hexadecimal.
const LITERALS: &[&str] = &[
    "0.0",
    "-0.0",
    "1.0",
    "0.5",
    "0.1",
    "3.0",
    "1e-10",
    "1e30",
    "1e-40",
    "2.5e-300",
    "0x1.8p1",
    "0x1p-1074",
    "0x1.fffffep127",
    "16777217.0",
    "4294967295.0",
    "1e308",
    "0.3333333333333333",
];

struct FloatGen {
    rng: Rng,
    lines: Vec<String>,
}

/// The scalar types of generated variables.
#[derive(Clone, Copy, PartialEq)]
enum Ty {
    Float,
    Double,
    LongDouble,
    Uint,
}

/// The floating-point types.
const FLOATS: [Ty; 3] = [Ty::Float, Ty::Double, Ty::LongDouble];

impl Ty {
    fn c(self) -> &'static str {
        match self {
            Ty::Float => "float",
            Ty::Double => "double",
            Ty::LongDouble => "long double",
            Ty::Uint => "unsigned int",
        }
    }

    fn var(self, i: usize) -> String {
        match self {
            Ty::Float => format!("f{i}"),
            Ty::Double => format!("d{i}"),
            Ty::LongDouble => format!("l{i}"),
            Ty::Uint => format!("u{i}"),
        }
    }
}

const VARS: usize = 3;

impl FloatGen {
    fn any_var(&mut self, ty: Ty) -> String {
        ty.var(self.rng.below(VARS))
    }

    fn literal(&mut self, ty: Ty) -> String {
        if ty == Ty::LongDouble && self.rng.chance(50) {
            return self.rng.pick(LONG_DOUBLE_LITERALS).to_string();
        }
        let lit = *self.rng.pick(LITERALS);
        if ty == Ty::Float && self.rng.chance(60) {
            // A `float` literal (suffix f) where the text allows one.
            format!("{lit}f")
        } else if ty == Ty::LongDouble && self.rng.chance(60) {
            format!("{lit}L")
        } else {
            lit.to_string()
        }
    }

    /// A floating-point type other than `ty`.
    fn other_float(&mut self, ty: Ty) -> Ty {
        let others: Vec<Ty> = FLOATS.into_iter().filter(|&t| t != ty).collect();
        *self.rng.pick(&others)
    }

    /// A floating-point expression of about `depth` levels.
    fn float_expr(&mut self, ty: Ty, depth: usize) -> String {
        if depth == 0 || self.rng.chance(25) {
            return match self.rng.below(4) {
                0 => self.literal(ty),
                _ => self.any_var(ty),
            };
        }
        match self.rng.below(9) {
            0..=3 => {
                let op = *self.rng.pick(&["+", "-", "*", "/"]);
                // Mixed operand types exercise the usual arithmetic conversions.
                let other = if self.rng.chance(30) {
                    self.other_float(ty)
                } else {
                    ty
                };
                let a = self.float_expr(ty, depth - 1);
                let b = self.float_expr(other, depth - 1);
                format!("({}) ({a} {op} {b})", ty.c())
            }
            4 => format!("(- {})", self.float_expr(ty, depth - 1)),
            5 => {
                let from = self.other_float(ty);
                format!("({}) {}", ty.c(), self.float_expr(from, depth - 1))
            }
            6 => format!("({}) {}", ty.c(), self.any_var(Ty::Uint)),
            7 => format!("({}) (int) {}", ty.c(), self.any_var(Ty::Uint)),
            // 64-bit integers: exact in `long double`, rounded in the others.
            _ => {
                let (a, b) = (self.any_var(Ty::Uint), self.any_var(Ty::Uint));
                if self.rng.chance(50) {
                    format!("({}) ((unsigned long long) {a} << 32 | {b})", ty.c())
                } else {
                    format!("({}) (long long) ((unsigned long long) {a} << 32 | {b})", ty.c())
                }
            }
        }
    }

    /// A comparison (an `int` 0 or 1) of two floating-point expressions.
    fn comparison(&mut self, depth: usize) -> String {
        let ty = *self.rng.pick(&FLOATS);
        let a = self.float_expr(ty, depth);
        let b = self.float_expr(ty, depth);
        let op = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
        if self.rng.chance(20) {
            format!("(!{a})")
        } else {
            format!("({a} {op} {b})")
        }
    }

    /// `x` converted to `unsigned int` only when in range (`?:` evaluates one branch); a `long
    /// double` also through the 64-bit integer types.
    fn guarded_to_uint(&mut self, x: &str, ty: Ty) -> String {
        match self.rng.below(if ty == Ty::LongDouble { 4 } else { 2 }) {
            0 => format!("(({x}) > -1.0 && ({x}) < 4294967296.0 ? (unsigned int) ({x}) : 7u)"),
            1 => format!("(({x}) > -2147483649.0 && ({x}) < 2147483648.0 ? (unsigned int) (int) ({x}) : 9u)"),
            2 => format!(
                "(({x}) > -1.0L && ({x}) < 18446744073709551616.0L ? \
                 (unsigned int) ((unsigned long long) ({x}) >> 29) : 5u)"
            ),
            _ => format!(
                "(({x}) > -9223372036854775809.0L && ({x}) < 9223372036854775808.0L ? \
                 (unsigned int) ((long long) ({x}) >> 31) : 3u)"
            ),
        }
    }

    fn statement(&mut self, prefix: &str) {
        let u = self.rng.below(VARS);
        match self.rng.below(11) {
            0..=2 => {
                let ty = *self.rng.pick(&FLOATS);
                let target = self.any_var(ty);
                let e = self.float_expr(ty, 3);
                self.lines.push(format!("  {target} = {e};"));
            }
            3 => {
                let ty = *self.rng.pick(&FLOATS);
                let x = self.float_expr(ty, 2);
                let conv = self.guarded_to_uint(&x, ty);
                self.lines.push(format!("  u{u} = {conv};"));
            }
            4 | 5 => {
                let c = self.comparison(2);
                let ty = *self.rng.pick(&FLOATS);
                let target = self.any_var(ty);
                let e = self.float_expr(ty, 2);
                self.lines.push(format!(
                    "  if {c} {{ u{u} = u{u} * 3u + 1u; }} else {{ {target} = {e}; }}"
                ));
            }
            6 => {
                let op = *self.rng.pick(&["+=", "-=", "*=", "/="]);
                let ty = *self.rng.pick(&FLOATS);
                let target = self.any_var(ty);
                let other = self.other_float(ty);
                let operand = if self.rng.chance(30) { other } else { ty };
                let e = self.float_expr(operand, 2);
                self.lines.push(format!("  {target} {op} {e};"));
            }
            7 => {
                let ty = *self.rng.pick(&FLOATS);
                let target = self.any_var(ty);
                let op = *self.rng.pick(&["++", "--"]);
                self.lines.push(format!("  {target}{op};"));
            }
            8 => {
                // The struct's `long double` members, in memory through a pointer.
                let l = self.any_var(Ty::LongDouble);
                let e = self.float_expr(Ty::LongDouble, 2);
                let k = self.rng.below(2);
                self.lines.push(format!(
                    "  ps->x = {e}; ps->y[{k}] = ps->x * {l}; {l} = ps->y[{k}] - ps->y[{}]; \
                     u{u} = u{u} + (unsigned int) sizeof(struct {prefix}sld);",
                    1 - k
                ));
            }
            9 => {
                // Punning: a float's bytes as an integer and back.
                let f = self.any_var(Ty::Float);
                // Only a number's bytes: gcc's folding may change a NaN's sign and payload.
                self.lines.push(format!(
                    "  if ({f} == {f}) {{ pf.f = {f}; u{u} = pf.u; pf.u = pf.u ^ u{u} >> 3; {f} = pf.f; }}"
                ));
            }
            _ => {
                let d = self.any_var(Ty::Double);
                self.lines.push(format!(
                    "  if ({d} == {d}) {{ pd.d = {d}; pd.lo = pd.lo + u{u}; {d} = pd.d; u{u} = pd.lo; }}"
                ));
            }
        }
    }
}

/// A function of the program returning a hash of a `long double`'s value, exact without
/// reading its bytes (see the module doc): NaN, zeros by sign, infinities by sign, and for
/// numbers the sign, the exponent and the 63 fraction bits of the normalised significand.
fn long_double_hash(prefix: &str) -> Vec<String> {
    [
        "static unsigned int PREFIXld_hash(long double x) {",
        "  union PREFIXdbits b;",
        "  unsigned int h;",
        "  int e = 0;",
        "  unsigned long long m;",
        "  if (x != x) return 3u;",
        "  if (x == 0.0L) { b.d = (double) x; return 4u + (unsigned int) (b.u >> 63); }",
        "  if (x - x != 0.0L) return x < 0.0L ? 6u : 7u;",
        "  h = x < 0.0L ? 11u : 13u;",
        "  if (x < 0.0L) x = -x;",
        "  while (x >= 0x1p64L) { x = x * 0x1p-64L; e = e + 64; }",
        "  while (x >= 2.0L) { x = x * 0.5L; e = e + 1; }",
        "  while (x < 0x1p-64L) { x = x * 0x1p64L; e = e - 64; }",
        "  while (x < 1.0L) { x = x * 2.0L; e = e - 1; }",
        "  m = (unsigned long long) ((x - 1.0L) * 0x1p63L);",
        "  return h * 31u + (unsigned int) e * 17u + (unsigned int) (m ^ m >> 32);",
        "}",
    ]
    .iter()
    .map(|line| line.replace("PREFIX", prefix))
    .collect()
}

/// The program of `seed`, every file-scope name starting with `prefix`.
pub fn generate(seed: u64, prefix: &str) -> GenProgram {
    let mut g = FloatGen {
        rng: Rng::new(seed ^ 0x5eed_f10a_7000_0000),
        lines: Vec::new(),
    };
    for (suffix, ty) in NONDETS {
        g.lines
            .push(format!("extern {ty} __VERIFIER_nondet_{suffix}(void);"));
    }
    let decl_lines = g.lines.len();
    g.lines
        .push(format!("union {prefix}fbits {{ float f; unsigned int u; }};"));
    g.lines.push(format!(
        "union {prefix}dbits {{ double d; unsigned int lo; unsigned long long u; }};"
    ));
    g.lines.push(format!(
        "struct {prefix}sld {{ char c; long double x; short s; long double y[2]; }};"
    ));
    g.lines.push(format!("double {prefix}g = 0.1;"));
    g.lines.push(format!("long double {prefix}third = 1.0L / 3;"));
    g.lines.extend(long_double_hash(prefix));
    g.lines.push("int main(void) {".into());
    g.lines
        .push(format!("  union {prefix}fbits pf; union {prefix}dbits pd;"));
    g.lines.push(format!(
        "  struct {prefix}sld sl = {{ 1, 0.5L, 2, {{ 0.25L, {prefix}third }} }}; struct {prefix}sld *ps = &sl;"
    ));
    for i in 0..VARS {
        g.lines
            .push(format!("  unsigned int u{i} = __VERIFIER_nondet_uint();"));
    }
    for i in 0..VARS {
        // Either a value converted from an integer or an arbitrary bit pattern.
        if g.rng.chance(50) {
            g.lines
                .push(format!("  float f{i} = (float) __VERIFIER_nondet_int() / 8.0f;"));
        } else {
            g.lines.push(format!(
                "  float f{i}; pf.u = __VERIFIER_nondet_uint(); f{i} = pf.f;"
            ));
        }
        if g.rng.chance(50) {
            g.lines.push(format!(
                "  double d{i} = (double) __VERIFIER_nondet_int() * {prefix}g;"
            ));
        } else {
            g.lines.push(format!(
                "  double d{i}; pd.u = __VERIFIER_nondet_uint(); pd.u = pd.u << 32 | __VERIFIER_nondet_uint(); d{i} = pd.d;"
            ));
        }
        // From an integer (all 64 bits exact), scaled beyond double's range, or from a double.
        g.lines.push(match g.rng.below(4) {
            0 => format!("  long double l{i} = (long double) __VERIFIER_nondet_int() / 3.0L;"),
            1 => format!(
                "  long double l{i} = (long double) ((unsigned long long) __VERIFIER_nondet_uint() << 32 | __VERIFIER_nondet_uint());"
            ),
            2 => format!(
                "  long double l{i} = (long double) __VERIFIER_nondet_int() * {};",
                g.rng.pick(&["0x1p16000L", "0x1p-16420L", "0x1p-1100L", "{prefix}third"])
                    .replace("{prefix}", prefix)
            ),
            _ => format!("  long double l{i} = d{i};"),
        });
    }
    for _ in 0..4 + g.rng.below(8) {
        g.statement(prefix);
    }
    // The hash: every variable's bytes; a NaN counts as one value (payloads may differ).
    g.lines.push("  unsigned int h = 17u;".into());
    for i in 0..VARS {
        g.lines.push(format!(
            "  pf.f = f{i}; h = h * 31u + (f{i} == f{i} ? pf.u : 1u);"
        ));
        g.lines.push(format!(
            "  pd.d = d{i}; h = h * 31u + (d{i} == d{i} ? (unsigned int) (pd.u ^ pd.u >> 32) : 2u);"
        ));
        g.lines.push(format!("  h = h * 31u + u{i};"));
        g.lines.push(format!("  h = h * 31u + {prefix}ld_hash(l{i});"));
    }
    // gcc's layout of the struct in this data model, and its members' values.
    g.lines.push(format!(
        "  h = h * 31u + (unsigned int) sizeof(struct {prefix}sld) * 7u + (unsigned int) sizeof(long double);"
    ));
    g.lines.push(
        "  h = h * 31u + (unsigned int) ((char *) &ps->x - (char *) ps) * 5u + (unsigned int) ((char *) &ps->y[1] - (char *) &ps->s);"
            .into(),
    );
    g.lines.push(format!(
        "  h = h * 31u + {prefix}ld_hash(ps->x) + {prefix}ld_hash(sl.y[0]) + {prefix}ld_hash(sl.y[1]);"
    ));
    g.lines.push("  return (int) (h & 0x7fffffffu);".into());
    g.lines.push("}".into());
    GenProgram {
        prefix: prefix.to_string(),
        lines: g.lines,
        decl_lines,
    }
}
