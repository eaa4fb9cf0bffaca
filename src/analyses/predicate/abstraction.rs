//! Predicates, precisions and predicate abstraction (Cartesian and Boolean).
//!
//! A [`Predicate`] is a comparison over *unindexed* program variables, kept as a typed
//! [`Expr`]; it is instantiated at any SSA map with the bit-precise encoding of
//! [`super::formula`]. An [`AbstractState`] is a Boolean combination of predicates in
//! disjunctive normal form: one cube for the Cartesian abstraction, one cube per satisfying
//! assignment of the predicates' indicator literals for the Boolean abstraction.

use super::formula::{ExprEncoder, PathFormula, SsaMap};
use super::solver::{Satisfiability, SolverConfig};
use crate::cfa::expr::{BinaryOp, Expr, ExprKind, UnaryOp};
use crate::cfa::types::IntType;
use crate::cfa::{FuncId, LocId, Program, Scope, VarId};
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;
use z3::ast::Bool;
use z3::SatResult;

/// A predicate: the C condition `expr != 0`, in a canonical form whose top operator is `==`,
/// `<` or `<=` (a predicate and its negation are the same predicate for abstraction).
/// Shared: states and precisions hold many copies of few predicates, and compare them often
/// (coverage checks), so copies are one pointer and equal copies compare without a walk.
#[derive(Debug, Clone, Eq)]
pub struct Predicate {
    expr: Rc<Expr>,
}

impl PartialEq for Predicate {
    fn eq(&self, other: &Predicate) -> bool {
        Rc::ptr_eq(&self.expr, &other.expr) || self.expr == other.expr
    }
}

/// The expression's hash, as equality compares expressions.
impl std::hash::Hash for Predicate {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.expr.hash(state);
    }
}

impl Predicate {
    /// The predicate tracking the truth of condition `cond` (`cond != 0`), canonicalised:
    /// `!` is dropped, `!=` becomes `==`, `>=` becomes `<`, `>` becomes `<=`, a
    /// non-comparison `e` becomes `e == 0`. Returns `None` for conditions without variables
    /// (they are constant, tracking them is useless).
    pub fn from_condition(cond: &Expr) -> Option<Predicate> {
        Predicate::with_sense(cond).map(|(p, _)| p)
    }

    /// The predicate of [`Predicate::from_condition`] and whether `cond != 0` is that
    /// predicate (`true`) or its negation (`false`).
    pub fn with_sense(cond: &Expr) -> Option<(Predicate, bool)> {
        let mut e = cond;
        let mut same = true;
        while let ExprKind::Unary(UnaryOp::LogNot, inner) = &e.kind {
            e = inner;
            same = !same;
        }
        if e.vars().is_empty() {
            return None;
        }
        let expr = match &e.kind {
            ExprKind::Binary(op, a, b) if op.is_comparison() => {
                let canonical = match op {
                    BinaryOp::Ne => BinaryOp::Eq,
                    BinaryOp::Ge => BinaryOp::Lt,
                    BinaryOp::Gt => BinaryOp::Le,
                    other => *other,
                };
                if canonical != *op {
                    same = !same;
                }
                let op = canonical;
                Expr::binary(op, (**a).clone(), (**b).clone(), IntType::INT)
            }
            // `e != 0` is the negation of `e == 0`.
            _ => {
                same = !same;
                Expr::binary(BinaryOp::Eq, e.clone(), Expr::constant(0, e.ty), IntType::INT)
            }
        };
        Some((Predicate { expr: Rc::new(expr) }, same))
    }

    /// The canonical comparison.
    pub fn expr(&self) -> &Expr {
        &self.expr
    }

    /// The variables the predicate mentions.
    pub fn vars(&self) -> Vec<VarId> {
        self.expr.vars()
    }

    /// The predicate over the variables' terms at the indices of `ssa`. Signed overflow wraps
    /// ([`ExprEncoder::for_predicates`]); another operation with undefined behaviour inside
    /// yields a fresh unconstrained value per instantiation.
    pub fn instantiate(&self, ssa: &SsaMap, program: &Program) -> Bool {
        ExprEncoder::for_predicates(program, ssa).condition(&self.expr)
    }

    /// The predicate as a C expression over source-level variable names.
    pub fn to_c(&self, program: &Program) -> String {
        let mut s = String::new();
        self.expr
            .write_c(&mut s, program.data_model, &|v| source_name(program, v));
        s
    }
}

fn source_name(program: &Program, v: VarId) -> String {
    program
        .variables
        .get(v.index())
        .map(|x| x.source_name.clone())
        .unwrap_or_else(|| format!("__skolem{}", v.0))
}

impl fmt::Display for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.expr)
    }
}

/// The predicates tracked per location, plus global ones tracked everywhere.
#[derive(Debug, Clone, Default)]
pub struct Precision {
    pub global: Vec<Predicate>,
    pub local: HashMap<LocId, Vec<Predicate>>,
}

impl Precision {
    /// The empty precision.
    pub fn new() -> Precision {
        Precision::default()
    }

    /// The predicates to track at `loc` (global ones first, no duplicates).
    pub fn predicates_at(&self, loc: LocId) -> Vec<Predicate> {
        let mut out = self.global.clone();
        for p in self.local.get(&loc).into_iter().flatten() {
            if !out.contains(p) {
                out.push(p.clone());
            }
        }
        out
    }

    /// True if `p` is tracked at `loc` (locally or globally).
    pub fn contains(&self, loc: LocId, p: &Predicate) -> bool {
        self.global.contains(p) || self.local.get(&loc).is_some_and(|ps| ps.contains(p))
    }

    /// Adds `p` at `loc`; returns false if it was tracked there already.
    pub fn add(&mut self, loc: LocId, p: Predicate) -> bool {
        if self.contains(loc, &p) {
            return false;
        }
        self.local.entry(loc).or_default().push(p);
        true
    }

    /// Adds `p` everywhere; returns false if it was global already.
    pub fn add_global(&mut self, p: Predicate) -> bool {
        if self.global.contains(&p) {
            return false;
        }
        self.global.push(p);
        true
    }

    /// Total number of (location, predicate) entries plus global predicates.
    pub fn len(&self) -> usize {
        self.global.len() + self.local.values().map(Vec::len).sum::<usize>()
    }

    /// True if no predicate is tracked anywhere.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A predicate or its negation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Literal {
    pub predicate: Predicate,
    pub positive: bool,
}

/// An abstract state: a disjunction of cubes (conjunctions of literals). No cube is `false`;
/// one empty cube is `true`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AbstractState {
    pub cubes: Vec<Vec<Literal>>,
    /// True if every cube assigns every predicate of one common set (a Boolean abstraction's
    /// minterms): entailment between two such states over the same set is cube inclusion.
    pub minterms: bool,
}

impl AbstractState {
    /// `true`: every concrete state.
    pub fn top() -> AbstractState {
        AbstractState {
            cubes: vec![Vec::new()],
            minterms: false,
        }
    }

    /// `false`: no concrete state (the block is infeasible).
    pub fn bottom() -> AbstractState {
        AbstractState {
            cubes: Vec::new(),
            minterms: false,
        }
    }

    /// True if this is `false`.
    pub fn is_bottom(&self) -> bool {
        self.cubes.is_empty()
    }

    /// True if some cube is empty (the state is `true`).
    pub fn is_top(&self) -> bool {
        self.cubes.iter().any(Vec::is_empty)
    }

    /// The state as a formula over the variables at the indices of `ssa` (index 0 for the
    /// start of the next block).
    pub fn to_formula(&self, ssa: &SsaMap, program: &Program) -> Bool {
        let cubes: Vec<Bool> = self
            .cubes
            .iter()
            .map(|cube| {
                let lits: Vec<Bool> = cube
                    .iter()
                    .map(|l| {
                        let p = l.predicate.instantiate(ssa, program);
                        if l.positive {
                            p
                        } else {
                            p.not()
                        }
                    })
                    .collect();
                Bool::and(&lits)
            })
            .collect();
        Bool::or(&cubes)
    }

    /// The truth of condition `cond` (`cond != 0`) in every concrete state of `self`, if
    /// every cube has the literal of its predicate with one polarity; `None` otherwise (and
    /// for `false`, which fixes nothing worth knowing).
    pub fn fixes(&self, cond: &Expr) -> Option<bool> {
        let (p, same) = Predicate::with_sense(cond)?;
        let (first, rest) = self.cubes.split_first()?;
        let l = first.iter().find(|l| l.predicate == p)?;
        rest.iter().all(|c| c.contains(l)).then_some(l.positive == same)
    }

    /// The minterms of `self` restricted to `predicates` (each once), if `self` is a minterm
    /// state over all of them: the strongest Boolean combination of `predicates` that `self`
    /// implies. `None` otherwise.
    pub fn project(&self, predicates: &[Predicate]) -> Option<Vec<Vec<Literal>>> {
        let first = self.cubes.first()?;
        if !self.minterms || !predicates.iter().all(|p| first.iter().any(|l| l.predicate == *p)) {
            return None;
        }
        let mut out: Vec<Vec<Literal>> = Vec::new();
        for cube in &self.cubes {
            let restricted: Vec<Literal> = cube
                .iter()
                .filter(|l| predicates.contains(&l.predicate))
                .cloned()
                .collect();
            if !out.contains(&restricted) {
                out.push(restricted);
            }
        }
        Some(out)
    }

    /// `self ∧ other`, the cubes of both combined. Minterms over two disjoint predicate sets
    /// give minterms over their union (some may be unsatisfiable: [`Self::entails`] then
    /// only misses an inclusion, which is sound).
    pub fn conjoin(&self, other: &AbstractState) -> AbstractState {
        let cubes = self
            .cubes
            .iter()
            .flat_map(|c| {
                other.cubes.iter().map(move |d| {
                    let mut cube = c.clone();
                    cube.extend(d.iter().filter(|l| !c.contains(l)).cloned());
                    cube
                })
            })
            .filter(|cube| {
                !cube.iter().any(|l| {
                    cube.iter()
                        .any(|m| m.predicate == l.predicate && m.positive != l.positive)
                })
            })
            .collect::<Vec<_>>();
        AbstractState {
            minterms: self.minterms && other.minterms && !cubes.is_empty(),
            cubes,
        }
    }

    /// `self ⊑ other` (every state of `self` is one of `other`), for the stop operator.
    /// A solver that cannot decide yields `false` (not covered), which is always sound.
    pub fn entails(&self, other: &AbstractState, program: &Program, config: &SolverConfig) -> bool {
        if let Some(entailed) = self.entails_without_solver(other) {
            return entailed;
        }
        let ssa = SsaMap::new();
        let query = Bool::and(&[
            self.to_formula(&ssa, program),
            other.to_formula(&ssa, program).not(),
        ]);
        matches!(config.check(&query), Satisfiability::Unsat)
    }

    /// Entailment where it is decided without the solver: `Some(true)` for the trivial and
    /// the syntactic cases (every cube of `self` contains some cube of `other`), the answer
    /// of `minterm_inclusion` where that applies, otherwise `None`.
    pub fn entails_without_solver(&self, other: &AbstractState) -> Option<bool> {
        if self.is_bottom() || other.is_top() || self == other {
            return Some(true);
        }
        if self
            .cubes
            .iter()
            .all(|c| other.cubes.iter().any(|d| d.iter().all(|l| c.contains(l))))
        {
            return Some(true);
        }
        self.minterm_inclusion(other)
    }

    /// Entailment without the solver when both states are minterms and `other`'s predicates
    /// are among `self`'s (the usual case: `other` was abstracted earlier, with a precision
    /// that has only grown since). Each minterm of `self` is satisfiable and fixes every
    /// predicate of `other`, whose minterms are pairwise disjoint, so `self ⊑ other` exactly
    /// when each minterm of `self` extends one of `other`. `None` when that does not apply.
    fn minterm_inclusion(&self, other: &AbstractState) -> Option<bool> {
        if !self.minterms || !other.minterms {
            return None;
        }
        let (mine, theirs) = (self.cubes.first()?, other.cubes.first()?);
        let basis_included = theirs
            .iter()
            .all(|l| mine.iter().any(|m| m.predicate == l.predicate));
        if !basis_included {
            return None;
        }
        Some(
            self.cubes
                .iter()
                .all(|c| other.cubes.iter().any(|d| d.iter().all(|l| c.contains(l)))),
        )
    }

    /// The state as a C expression over source-level names (`1` for true, `0` for false),
    /// e.g. for the invariants of a correctness witness.
    pub fn to_c(&self, program: &Program) -> String {
        if self.is_top() {
            return "1".into();
        }
        if self.is_bottom() {
            return "0".into();
        }
        let cube = |c: &Vec<Literal>| {
            let lits: Vec<String> = c
                .iter()
                .map(|l| {
                    let p = l.predicate.to_c(program);
                    if l.positive {
                        p
                    } else {
                        format!("!{p}")
                    }
                })
                .collect();
            lits.join(" && ")
        };
        if self.cubes.len() == 1 {
            return cube(&self.cubes[0]);
        }
        let parts: Vec<String> = self.cubes.iter().map(|c| format!("({})", cube(c))).collect();
        parts.join(" || ")
    }
}

impl AbstractState {
    /// The state as an invariant for a correctness witness at a location of function `func`:
    /// like [`AbstractState::to_c`], but literals over variables a witness cannot name there
    /// (frontend temporaries, locals of other functions) are left out. Leaving a literal out
    /// of a cube only weakens the formula, so the result is still an invariant.
    pub fn invariant_c(&self, program: &Program, func: FuncId) -> String {
        let nameable = |p: &Predicate| {
            p.vars().iter().all(|v| {
                program.variables.get(v.index()).is_some_and(|x| {
                    !x.temporary && (x.scope == Scope::Global || x.scope == Scope::Local(func))
                })
            })
        };
        let weakened = AbstractState {
            minterms: false,
            cubes: self
                .cubes
                .iter()
                .map(|c| c.iter().filter(|l| nameable(&l.predicate)).cloned().collect())
                .collect(),
        };
        weakened.to_c(program)
    }
}

impl fmt::Display for AbstractState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_bottom() {
            return f.write_str("false");
        }
        let parts: Vec<String> = self
            .cubes
            .iter()
            .map(|c| {
                if c.is_empty() {
                    "true".to_string()
                } else {
                    let lits: Vec<String> = c
                        .iter()
                        .map(|l| format!("{}{}", if l.positive { "" } else { "!" }, l.predicate))
                        .collect();
                    lits.join(" & ")
                }
            })
            .collect();
        f.write_str(&parts.join(" | "))
    }
}

/// Cartesian abstraction: the conjunction of every predicate (or negation) the path formula
/// implies. Two queries per predicate; a query the solver cannot decide adds nothing (sound).
/// `false` if the path formula is unsatisfiable.
pub fn cartesian_abstraction(
    pf: &PathFormula,
    predicates: &[Predicate],
    program: &Program,
    config: &SolverConfig,
) -> AbstractState {
    let solver = config.solver();
    solver.assert(&pf.formula);
    if solver.check() == SatResult::Unsat {
        return AbstractState::bottom();
    }
    let mut cube = Vec::new();
    for p in predicates {
        let inst = p.instantiate(&pf.ssa, program);
        for positive in [true, false] {
            let refuted = if positive { inst.not() } else { inst.clone() };
            if solver.check_assumptions(&[refuted]) == SatResult::Unsat {
                cube.push(Literal {
                    predicate: p.clone(),
                    positive,
                });
                break;
            }
        }
    }
    AbstractState {
        cubes: vec![cube],
        minterms: false,
    }
}

/// Boolean abstraction: the strongest Boolean combination of the predicates implied by the
/// path formula, by enumerating the satisfying assignments of one indicator literal per
/// predicate (AllSAT). With more than `limit` assignments, or when the solver cannot decide,
/// falls back to the Cartesian abstraction (weaker, still sound).
pub fn boolean_abstraction(
    pf: &PathFormula,
    predicates: &[Predicate],
    program: &Program,
    config: &SolverConfig,
    limit: usize,
) -> AbstractState {
    let solver = config.solver();
    solver.assert(&pf.formula);
    let indicators: Vec<Bool> = predicates
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let b = Bool::fresh_const(&format!("pred{i}"));
            solver.assert(b.iff(p.instantiate(&pf.ssa, program)));
            b
        })
        .collect();
    let mut cubes: Vec<Vec<Literal>> = Vec::new();
    loop {
        match solver.check() {
            SatResult::Unsat => break,
            SatResult::Unknown => return cartesian_abstraction(pf, predicates, program, config),
            SatResult::Sat => {}
        }
        if cubes.len() >= limit {
            return cartesian_abstraction(pf, predicates, program, config);
        }
        let Some(model) = solver.get_model() else {
            return cartesian_abstraction(pf, predicates, program, config);
        };
        let mut cube = Vec::new();
        let mut blocking = Vec::new();
        for (b, p) in indicators.iter().zip(predicates) {
            let value = model.eval(b, true).and_then(|v| v.as_bool()).unwrap_or(false);
            cube.push(Literal {
                predicate: p.clone(),
                positive: value,
            });
            blocking.push(if value { b.not() } else { b.clone() });
        }
        cubes.push(cube);
        if blocking.is_empty() {
            // No predicates: the state is `true`.
            break;
        }
        solver.assert(Bool::or(&blocking));
    }
    AbstractState {
        minterms: !predicates.is_empty(),
        cubes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x() -> Expr {
        Expr::var(VarId(0), IntType::INT)
    }

    fn cmp(op: BinaryOp, a: Expr, b: Expr) -> Expr {
        Expr::binary(op, a, b, IntType::INT)
    }

    #[test]
    fn predicates_are_canonical() {
        let canon = |e: Expr| Predicate::from_condition(&e).map(|p| p.expr().clone());
        let lt = cmp(BinaryOp::Lt, x(), Expr::int(3));
        assert_eq!(canon(cmp(BinaryOp::Ge, x(), Expr::int(3))), Some(lt.clone()));
        assert_eq!(
            canon(Expr::unary(UnaryOp::LogNot, lt.clone(), IntType::INT)),
            Some(lt.clone())
        );
        assert_eq!(
            canon(cmp(BinaryOp::Gt, x(), Expr::int(3))),
            Some(cmp(BinaryOp::Le, x(), Expr::int(3)))
        );
        assert_eq!(
            canon(cmp(BinaryOp::Ne, x(), Expr::int(3))),
            Some(cmp(BinaryOp::Eq, x(), Expr::int(3)))
        );
        // A plain value `x & 1` is tracked as `(x & 1) == 0`.
        let and = Expr::binary(BinaryOp::BitAnd, x(), Expr::int(1), IntType::INT);
        assert_eq!(
            canon(and.clone()),
            Some(cmp(BinaryOp::Eq, and.clone(), Expr::int(0)))
        );
        // Constants are not predicates.
        assert_eq!(canon(cmp(BinaryOp::Lt, Expr::int(1), Expr::int(3))), None);
        // The sense: whether the condition is the predicate or its negation.
        let sense = |e: Expr| Predicate::with_sense(&e).map(|(p, same)| (p.expr().clone(), same));
        assert_eq!(sense(lt.clone()), Some((lt.clone(), true)));
        assert_eq!(
            sense(cmp(BinaryOp::Ge, x(), Expr::int(3))),
            Some((lt.clone(), false))
        );
        let not_ge = Expr::unary(
            UnaryOp::LogNot,
            cmp(BinaryOp::Ge, x(), Expr::int(3)),
            IntType::INT,
        );
        assert_eq!(sense(not_ge), Some((lt, true)));
        assert_eq!(
            sense(and.clone()),
            Some((cmp(BinaryOp::Eq, and, Expr::int(0)), false))
        );
    }

    #[test]
    fn conjoin_combines_cubes_and_drops_contradictions() {
        let p = Predicate::from_condition(&cmp(BinaryOp::Lt, x(), Expr::int(0))).expect("predicate");
        let q = Predicate::from_condition(&cmp(BinaryOp::Eq, x(), Expr::int(1))).expect("predicate");
        let lit = |p: &Predicate, positive| Literal {
            predicate: p.clone(),
            positive,
        };
        let over_p = AbstractState {
            cubes: vec![vec![lit(&p, true)], vec![lit(&p, false)]],
            minterms: true,
        };
        let over_q = AbstractState {
            cubes: vec![vec![lit(&q, false)]],
            minterms: true,
        };
        let both = over_p.conjoin(&over_q);
        assert_eq!(
            both.cubes,
            vec![
                vec![lit(&p, true), lit(&q, false)],
                vec![lit(&p, false), lit(&q, false)]
            ]
        );
        assert!(both.minterms);
        let not_p = AbstractState {
            cubes: vec![vec![lit(&p, false)]],
            minterms: true,
        };
        assert_eq!(
            AbstractState {
                cubes: vec![vec![lit(&p, true)]],
                minterms: true
            }
            .conjoin(&not_p),
            AbstractState::bottom()
        );
        assert_eq!(AbstractState::top().conjoin(&not_p).cubes, not_p.cubes);
    }

    #[test]
    fn precision_tracks_local_and_global_predicates() {
        let p = Predicate::from_condition(&cmp(BinaryOp::Lt, x(), Expr::int(0))).expect("predicate");
        let q = Predicate::from_condition(&cmp(BinaryOp::Eq, x(), Expr::int(1))).expect("predicate");
        let mut prec = Precision::new();
        assert!(prec.is_empty());
        assert!(prec.add(LocId(3), p.clone()));
        assert!(!prec.add(LocId(3), p.clone()));
        assert!(prec.contains(LocId(3), &p));
        assert!(!prec.contains(LocId(4), &p));
        assert!(prec.add_global(q.clone()));
        assert!(prec.contains(LocId(4), &q));
        assert!(!prec.add(LocId(4), q.clone()));
        assert_eq!(prec.predicates_at(LocId(3)), vec![q.clone(), p]);
        assert_eq!(prec.predicates_at(LocId(9)), vec![q]);
        assert_eq!(prec.len(), 2);
    }
}
