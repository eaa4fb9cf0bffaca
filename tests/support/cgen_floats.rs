//! Random straight-line-and-branch programs over `float`, `double` and `unsigned int`, for the
//! gcc differential test of IEEE-754 arithmetic, conversions and union type punning.
//!
//! Float values come from integer nondet inputs, converted (`(float)n / 8`) or reinterpreted
//! through a union (any bit pattern: NaN, infinities, subnormals). Expressions use `+ - * /`,
//! unary `-`, comparisons, `!`, conversions between all three types and literals in decimal
//! and hexadecimal. Conversions to an integer type are guarded by a range check, so no program
//! has undefined behaviour. A NaN's sign and payload are not C semantics (gcc's folding of
//! `a - -b` into `b + a` picks the other operand's NaN), so only numbers' bytes are read back. `main` returns a hash of every variable's bytes.

use super::cgen::{GenProgram, Rng, NONDETS};

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
    Uint,
}

impl Ty {
    fn c(self) -> &'static str {
        match self {
            Ty::Float => "float",
            Ty::Double => "double",
            Ty::Uint => "unsigned int",
        }
    }

    fn var(self, i: usize) -> String {
        match self {
            Ty::Float => format!("f{i}"),
            Ty::Double => format!("d{i}"),
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
        let lit = *self.rng.pick(LITERALS);
        if ty == Ty::Float && self.rng.chance(60) {
            // A `float` literal (suffix f) where the text allows one.
            format!("{lit}f")
        } else {
            lit.to_string()
        }
    }

    /// A floating-point expression of about `depth` levels.
    fn float_expr(&mut self, ty: Ty, depth: usize) -> String {
        if depth == 0 || self.rng.chance(25) {
            return match self.rng.below(4) {
                0 => self.literal(ty),
                _ => self.any_var(ty),
            };
        }
        match self.rng.below(8) {
            0..=3 => {
                let op = *self.rng.pick(&["+", "-", "*", "/"]);
                // Mixed operand types exercise the usual arithmetic conversions.
                let other = if self.rng.chance(30) { Ty::Double } else { ty };
                let a = self.float_expr(ty, depth - 1);
                let b = self.float_expr(other, depth - 1);
                format!("({}) ({a} {op} {b})", ty.c())
            }
            4 => format!("(- {})", self.float_expr(ty, depth - 1)),
            5 => {
                let from = if ty == Ty::Float { Ty::Double } else { Ty::Float };
                format!("({}) {}", ty.c(), self.float_expr(from, depth - 1))
            }
            6 => format!("({}) {}", ty.c(), self.any_var(Ty::Uint)),
            _ => format!("({}) (int) {}", ty.c(), self.any_var(Ty::Uint)),
        }
    }

    /// A comparison (an `int` 0 or 1) of two floating-point expressions.
    fn comparison(&mut self, depth: usize) -> String {
        let ty = if self.rng.chance(50) {
            Ty::Float
        } else {
            Ty::Double
        };
        let a = self.float_expr(ty, depth);
        let b = self.float_expr(ty, depth);
        let op = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
        if self.rng.chance(20) {
            format!("(!{a})")
        } else {
            format!("({a} {op} {b})")
        }
    }

    /// `x` converted to `unsigned int` only when in range (`?:` evaluates one branch).
    fn guarded_to_uint(&mut self, x: &str) -> String {
        if self.rng.chance(50) {
            format!("(({x}) > -1.0 && ({x}) < 4294967296.0 ? (unsigned int) ({x}) : 7u)")
        } else {
            format!("(({x}) > -2147483649.0 && ({x}) < 2147483648.0 ? (unsigned int) (int) ({x}) : 9u)")
        }
    }

    fn statement(&mut self) {
        let u = self.rng.below(VARS);
        match self.rng.below(10) {
            0..=2 => {
                let ty = *self.rng.pick(&[Ty::Float, Ty::Double]);
                let target = self.any_var(ty);
                let e = self.float_expr(ty, 3);
                self.lines.push(format!("  {target} = {e};"));
            }
            3 => {
                let ty = *self.rng.pick(&[Ty::Float, Ty::Double]);
                let x = self.float_expr(ty, 2);
                let conv = self.guarded_to_uint(&x);
                self.lines.push(format!("  u{u} = {conv};"));
            }
            4 | 5 => {
                let c = self.comparison(2);
                let ty = *self.rng.pick(&[Ty::Float, Ty::Double]);
                let target = self.any_var(ty);
                let e = self.float_expr(ty, 2);
                self.lines.push(format!(
                    "  if {c} {{ u{u} = u{u} * 3u + 1u; }} else {{ {target} = {e}; }}"
                ));
            }
            6 => {
                let op = *self.rng.pick(&["+=", "-=", "*=", "/="]);
                let ty = *self.rng.pick(&[Ty::Float, Ty::Double]);
                let target = self.any_var(ty);
                let e = self.float_expr(ty, 2);
                self.lines.push(format!("  {target} {op} {e};"));
            }
            7 => {
                let ty = *self.rng.pick(&[Ty::Float, Ty::Double]);
                let target = self.any_var(ty);
                let op = *self.rng.pick(&["++", "--"]);
                self.lines.push(format!("  {target}{op};"));
            }
            8 => {
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
    g.lines.push(format!("double {prefix}g = 0.1;"));
    g.lines.push("int main(void) {".into());
    g.lines
        .push(format!("  union {prefix}fbits pf; union {prefix}dbits pd;"));
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
    }
    for _ in 0..4 + g.rng.below(8) {
        g.statement();
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
    }
    g.lines.push("  return (int) (h & 0x7fffffffu);".into());
    g.lines.push("}".into());
    GenProgram {
        prefix: prefix.to_string(),
        lines: g.lines,
        decl_lines,
    }
}
