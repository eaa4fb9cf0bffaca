//! The Boolean skeleton of an invariant: its distinct atoms, numbered, and its connectives over
//! those numbers, evaluated in Kleene's three-valued logic. The validator checks a large
//! disjunctive invariant (an analysis' abstraction: many cubes over a few dozen predicates)
//! the way the analysis computed it — by the truth values of its atoms after a path — and
//! needs that evaluation fast and often ([`crate::witness::inductive`]).

use super::invariant::Formula;
use crate::cfa::expr::Expr;

/// Invariants (a conjunction) with their atoms numbered.
#[derive(Debug, Clone)]
pub struct Skeleton {
    /// The distinct atoms, in the order they first occur.
    pub atoms: Vec<Expr>,
    /// The conjuncts over atom numbers.
    parts: Vec<Shape>,
}

#[derive(Debug, Clone)]
enum Shape {
    Atom(usize),
    Not(Box<Shape>),
    And(Box<Shape>, Box<Shape>),
    Or(Box<Shape>, Box<Shape>),
    Ite(Box<Shape>, Box<Shape>, Box<Shape>),
}

impl Skeleton {
    /// The skeleton of the conjunction of `invariants`.
    pub fn of(invariants: &[Formula]) -> Skeleton {
        let mut atoms = Vec::new();
        let parts = invariants.iter().map(|f| shape(f, &mut atoms)).collect();
        Skeleton { atoms, parts }
    }

    /// The truth of the conjunction where atom `i` has the truth `values[i]` (`None`: open);
    /// `None` where it depends on open atoms.
    pub fn eval(&self, values: &[Option<bool>]) -> Option<bool> {
        let mut all = Some(true);
        for part in &self.parts {
            match part.eval(values) {
                Some(false) => return Some(false),
                Some(true) => {}
                None => all = None,
            }
        }
        all
    }

    /// Fewest atoms whose truth values decide the conjunction true, from an assignment that
    /// makes it true: atoms are left open one by one while it stays true (so one blocking
    /// clause excludes every assignment that agrees on the rest, a cube of the invariant).
    pub fn deciding(&self, mut values: Vec<Option<bool>>) -> Vec<Option<bool>> {
        for i in 0..values.len() {
            let value = values[i].take();
            if self.eval(&values) != Some(true) {
                values[i] = value;
            }
        }
        values
    }
}

/// Number of top-level disjuncts of `f` (a DNF's cubes).
pub fn disjuncts(f: &Formula) -> usize {
    match f {
        Formula::Or(a, b) => disjuncts(a) + disjuncts(b),
        _ => 1,
    }
}

fn shape(f: &Formula, atoms: &mut Vec<Expr>) -> Shape {
    let sub = |g: &Formula, atoms: &mut Vec<Expr>| Box::new(shape(g, atoms));
    match f {
        Formula::Atom(e) => Shape::Atom(match atoms.iter().position(|a| a == e) {
            Some(i) => i,
            None => {
                atoms.push(e.clone());
                atoms.len() - 1
            }
        }),
        Formula::Not(g) => Shape::Not(sub(g, atoms)),
        Formula::And(a, b) => {
            let a = sub(a, atoms);
            Shape::And(a, sub(b, atoms))
        }
        Formula::Or(a, b) => {
            let a = sub(a, atoms);
            Shape::Or(a, sub(b, atoms))
        }
        Formula::Ite(c, a, b) => {
            let c = sub(c, atoms);
            let a = sub(a, atoms);
            Shape::Ite(c, a, sub(b, atoms))
        }
    }
}

impl Shape {
    fn eval(&self, values: &[Option<bool>]) -> Option<bool> {
        match self {
            Shape::Atom(i) => values.get(*i).copied().flatten(),
            Shape::Not(f) => f.eval(values).map(|b| !b),
            Shape::And(a, b) => match a.eval(values) {
                Some(false) => Some(false),
                x => match (x, b.eval(values)) {
                    (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                },
            },
            Shape::Or(a, b) => match a.eval(values) {
                Some(true) => Some(true),
                x => match (x, b.eval(values)) {
                    (_, Some(true)) => Some(true),
                    (Some(false), Some(false)) => Some(false),
                    _ => None,
                },
            },
            Shape::Ite(c, a, b) => match c.eval(values) {
                Some(true) => a.eval(values),
                Some(false) => b.eval(values),
                None => match (a.eval(values), b.eval(values)) {
                    (Some(x), Some(y)) if x == y => Some(x),
                    _ => None,
                },
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::expr::Expr;

    fn atom(i: i128) -> Formula {
        Formula::Atom(Expr::int(i))
    }

    fn or(a: Formula, b: Formula) -> Formula {
        Formula::Or(Box::new(a), Box::new(b))
    }

    fn and(a: Formula, b: Formula) -> Formula {
        Formula::And(Box::new(a), Box::new(b))
    }

    #[test]
    fn open_atoms_leave_only_what_decides() {
        // (a && b) || (!a && c), and d.
        let f = or(
            and(atom(1), atom(2)),
            and(Formula::Not(Box::new(atom(1))), atom(3)),
        );
        let s = Skeleton::of(&[f.clone(), atom(4)]);
        assert_eq!(s.atoms.len(), 4);
        assert_eq!(disjuncts(&f), 2);
        assert_eq!(
            s.eval(&[Some(true), Some(true), Some(false), Some(true)]),
            Some(true)
        );
        assert_eq!(
            s.eval(&[Some(true), Some(false), Some(true), Some(true)]),
            Some(false)
        );
        // False whatever the open atom: one conjunct is false.
        assert_eq!(s.eval(&[None, None, None, Some(false)]), Some(false));
        assert_eq!(s.eval(&[Some(false), None, Some(true), Some(true)]), Some(true));
        // Kleene's logic is cautious: `a || !a` with `a` open is open.
        assert_eq!(s.eval(&[None, Some(true), Some(true), Some(true)]), None);
        // Only a, b and d decide the first assignment; c is left open.
        assert_eq!(
            s.deciding(vec![Some(true), Some(true), Some(false), Some(true)]),
            vec![Some(true), Some(true), None, Some(true)]
        );
    }
}
