//! Predicates that generalise across loop iterations.
//!
//! Weakest preconditions along an unrolled loop name one predicate per unrolling:
//! `((j + 1) + 1) < i`, then `(((j + 1) + 1) + 1) < i`, and so on, and CEGAR never ends. Two
//! rewritings keep what the iterations have in common:
//!
//! - [`normalise`] collects the linear terms of a comparison (`i + 3 < 10` for
//!   `((i + 1) + 1) + 1 < 10`, `s + 10*i == 0` for a sum unrolled ten times). It is exact in
//!   the wrap-around arithmetic predicates are encoded with (a ring identity), so a refinement
//!   with normalised predicates still rules its path out.
//! - [`relations`] drops the iteration-specific constant of a comparison between two
//!   variables, `x + c op y + d`, and keeps the relation: `x < y` and `x == y` (which together
//!   also express `x <= y`, `x > y`). These are extra predicates, a guess at the loop
//!   invariant; the analysis computes its abstraction with them like with any other, so a
//!   wrong guess costs states, never soundness.

use crate::cfa::expr::{BinaryOp, Expr, ExprKind, UnaryOp};
use crate::cfa::types::IntType;
use crate::cfa::VarId;
use std::collections::BTreeMap;

/// A linear combination `Σ coefficient·variable + constant` in the arithmetic of `ty`
/// (wrap-around modulo 2^bits).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Linear {
    ty: IntType,
    terms: BTreeMap<VarId, i128>,
    constant: i128,
}

impl Linear {
    fn constant(value: i128, ty: IntType) -> Linear {
        Linear {
            ty,
            terms: BTreeMap::new(),
            constant: ty.normalize(value),
        }
    }

    fn add(mut self, other: &Linear, sign: i128) -> Linear {
        for (v, c) in &other.terms {
            let entry = self.terms.entry(*v).or_insert(0);
            *entry = self.ty.normalize(*entry + sign * c);
        }
        self.terms.retain(|_, c| *c != 0);
        self.constant = self.ty.normalize(self.constant + sign * other.constant);
        self
    }

    fn scale(mut self, factor: i128) -> Linear {
        for c in self.terms.values_mut() {
            *c = self.ty.normalize(*c * factor);
        }
        self.terms.retain(|_, c| *c != 0);
        self.constant = self.ty.normalize(self.constant * factor);
        self
    }

    /// The expression: terms in variable order, then the constant (if not zero).
    fn to_expr(&self) -> Expr {
        let ty = self.ty;
        let mut out: Option<Expr> = None;
        for (&v, &c) in &self.terms {
            let var = Expr::var(v, ty);
            out = Some(match (out, c) {
                (None, 1) => var,
                (None, c) => Expr::binary(BinaryOp::Mul, Expr::constant(c, ty), var, ty),
                (Some(e), 1) => Expr::binary(BinaryOp::Add, e, var, ty),
                (Some(e), -1) => Expr::binary(BinaryOp::Sub, e, var, ty),
                (Some(e), c) => Expr::binary(
                    BinaryOp::Add,
                    e,
                    Expr::binary(BinaryOp::Mul, Expr::constant(c, ty), var, ty),
                    ty,
                ),
            });
        }
        match out {
            None => Expr::constant(self.constant, ty),
            Some(e) if self.constant == 0 => e,
            Some(e) => Expr::binary(BinaryOp::Add, e, Expr::constant(self.constant, ty), ty),
        }
    }
}

/// `e` as a linear combination, if it is one: variables, constants, `+`, `-`, negation and
/// products with a constant, every node of one type wider than `_Bool`.
fn linear(e: &Expr) -> Option<Linear> {
    let ty = e.ty;
    if ty.is_bool() {
        return None;
    }
    let same = |a: &Expr| if a.ty == ty { linear(a) } else { None };
    match &e.kind {
        ExprKind::Const(c) => Some(Linear::constant(*c, ty)),
        ExprKind::Var(v) => Some(Linear {
            ty,
            terms: BTreeMap::from([(*v, 1)]),
            constant: 0,
        }),
        ExprKind::Unary(UnaryOp::Neg, a) => Some(same(a)?.scale(-1)),
        ExprKind::Binary(BinaryOp::Add, a, b) => Some(same(a)?.add(&same(b)?, 1)),
        ExprKind::Binary(BinaryOp::Sub, a, b) => Some(same(a)?.add(&same(b)?, -1)),
        ExprKind::Binary(BinaryOp::Mul, a, b) => {
            let (a, b) = (same(a)?, same(b)?);
            if a.terms.is_empty() {
                Some(b.scale(a.constant))
            } else if b.terms.is_empty() {
                Some(a.scale(b.constant))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The two linear sides of a comparison of operands of one type.
fn comparison(atom: &Expr) -> Option<(BinaryOp, Linear, Linear)> {
    match &atom.kind {
        ExprKind::Binary(op, a, b) if op.is_comparison() && a.ty == b.ty => {
            Some((*op, linear(a)?, linear(b)?))
        }
        _ => None,
    }
}

/// `atom` with the linear terms of its sides collected; an equality or disequality as
/// `positive terms == negative terms + constant`. Exact in wrap-around arithmetic; a negation
/// is dropped (a predicate tracks its atom's negation as well); other atoms are returned
/// unchanged.
pub fn normalise(atom: &Expr) -> Expr {
    let atom = without_negation(atom);
    let Some((op, lhs, rhs)) = comparison(atom) else {
        return atom.clone();
    };
    let (lhs, rhs) = if matches!(op, BinaryOp::Eq | BinaryOp::Ne) {
        let diff = lhs.add(&rhs, -1);
        let ty = diff.ty;
        let mut left = Linear::constant(0, ty);
        let mut right = Linear::constant(-diff.constant, ty);
        for (v, c) in diff.terms {
            // Coefficients are normalised: a negative one is the smaller of the two
            // representations for signed types; for unsigned ones compare with the half.
            let negative = if ty.signed { c < 0 } else { c > ty.max() / 2 };
            if negative {
                right.terms.insert(v, ty.normalize(-c));
            } else {
                left.terms.insert(v, c);
            }
        }
        if left.terms.is_empty() {
            (right.add(&Linear::constant(0, ty), 1), Linear::constant(0, ty))
        } else {
            (left, right)
        }
    } else {
        (lhs, rhs)
    };
    Expr::binary(op, lhs.to_expr(), rhs.to_expr(), atom.ty)
}

/// True if [`normalise`] rewrites `atom` beyond dropping a negation: its terms repeat or its
/// constants add up, the mark of an unrolled loop.
pub fn collapses(atom: &Expr) -> bool {
    normalise(atom) != *without_negation(atom)
}

fn without_negation(mut e: &Expr) -> &Expr {
    while let ExprKind::Unary(UnaryOp::LogNot, inner) = &e.kind {
        e = inner;
    }
    e
}

/// For a comparison `x + c op y + d` between two variables of one type (up to constants),
/// the relations `x < y` and `x == y` without the constants; nothing for other atoms.
pub fn relations(atom: &Expr) -> Vec<Expr> {
    let Some((_, lhs, rhs)) = comparison(without_negation(atom)) else {
        return Vec::new();
    };
    let ty = lhs.ty;
    let diff = lhs.add(&rhs, -1);
    let terms: Vec<(VarId, i128)> = diff.terms.iter().map(|(v, c)| (*v, *c)).collect();
    let [(x, a), (y, b)] = terms[..] else {
        return Vec::new();
    };
    if ty.normalize(a + b) != 0 || (a != 1 && b != 1) {
        return Vec::new();
    }
    let (x, y) = (Expr::var(x, ty), Expr::var(y, ty));
    [BinaryOp::Lt, BinaryOp::Eq]
        .into_iter()
        .map(|op| Expr::binary(op, x.clone(), y.clone(), IntType::INT))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(i: u32) -> Expr {
        Expr::var(VarId(i), IntType::INT)
    }

    fn add(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Add, a, b, IntType::INT)
    }

    fn cmp(op: BinaryOp, a: Expr, b: Expr) -> Expr {
        Expr::binary(op, a, b, IntType::INT)
    }

    #[test]
    fn unrolled_increments_collapse() {
        let i3 = add(add(add(v(0), Expr::int(1)), Expr::int(1)), Expr::int(1));
        assert_eq!(
            normalise(&cmp(BinaryOp::Lt, i3.clone(), Expr::int(10))),
            cmp(BinaryOp::Lt, add(v(0), Expr::int(3)), Expr::int(10))
        );
        // s + i + (i + 1) == 45  becomes  2*i + s == 44 (i before s: variable order).
        let sum = add(add(v(1), v(0)), add(v(0), Expr::int(1)));
        let two_i = Expr::binary(BinaryOp::Mul, Expr::int(2), v(0), IntType::INT);
        assert_eq!(
            normalise(&cmp(BinaryOp::Eq, sum, Expr::int(45))),
            cmp(BinaryOp::Eq, add(two_i, v(1)), Expr::int(44))
        );
        // Variables on the side where their coefficient is positive; negation dropped.
        let diff = cmp(
            BinaryOp::Eq,
            Expr::binary(BinaryOp::Sub, v(1), v(0), IntType::INT),
            Expr::int(2),
        );
        let negated = Expr::unary(UnaryOp::LogNot, diff, IntType::INT);
        assert_eq!(
            normalise(&negated),
            cmp(BinaryOp::Eq, v(1), add(v(0), Expr::int(2)))
        );
        assert!(collapses(&negated));
        assert!(!collapses(&cmp(BinaryOp::Lt, v(0), Expr::int(10))));
        // Not linear: unchanged.
        let product = cmp(
            BinaryOp::Eq,
            Expr::binary(BinaryOp::Mul, v(0), v(1), IntType::INT),
            Expr::int(4),
        );
        assert_eq!(normalise(&product), product);
    }

    #[test]
    fn relations_drop_the_iteration_constant() {
        let atom = cmp(BinaryOp::Lt, add(add(v(2), Expr::int(1)), Expr::int(1)), v(5));
        assert_eq!(
            relations(&atom),
            vec![cmp(BinaryOp::Lt, v(2), v(5)), cmp(BinaryOp::Eq, v(2), v(5))]
        );
        // One variable, or a scaled one: no relation.
        assert!(relations(&cmp(BinaryOp::Lt, v(2), Expr::int(3))).is_empty());
        let doubled = Expr::binary(BinaryOp::Mul, Expr::int(2), v(2), IntType::INT);
        assert!(relations(&cmp(BinaryOp::Eq, doubled, v(5))).is_empty());
    }
}
