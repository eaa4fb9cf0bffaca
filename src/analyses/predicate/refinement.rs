//! Counterexample analysis and refinement (CEGAR) for the predicate analysis.
//!
//! An abstract counterexample is a sequence of [`Block`]s, each the steps between two
//! abstraction points with the abstract state the analysis had at the block's start. The
//! concrete path (from the program start, bit-precise) is checked first; a satisfiable path is
//! a real counterexample whose model gives the nondet inputs for the concrete interpreter.
//!
//! For an infeasible path, Z3 4.8 offers no interpolation, so predicates come from weakest
//! preconditions along the path as in seed 002 §2.2. The path is first sliced to the parts of
//! assume conditions its infeasibility needs (a minimal unsat core over one indicator per
//! conjunct of an assume condition, every assignment kept), which keeps the predicates few and
//! relevant. Conjuncts that exclude a concrete state (a state cut's guard in a residual
//! program, [`Expr::is_state_exclusion`]) join the core only when the path is feasible without
//! them, which it never is in a residual of a safe program: the predicates then describe the
//! program, not the states another analysis covered. A path can also be
//! infeasible because it would need undefined behaviour (signed overflow, division by zero):
//! each step's exclusion of it gets an indicator too, and the weakest preconditions of the
//! needed ones add the conditions under which the step is defined
//! ([`semantics::defined_conditions`], e.g. `(long long)x * 64 <= INT_MAX`) to the bad region. Going backwards from the error location,
//! the *bad region* of each block boundary is the conjunction of the path's assume conditions
//! with every later assignment substituted in (a nondet value becomes a Skolem constant).
//! The pivot is the last boundary whose abstract state is disjoint from its bad region; every
//! boundary after it gets the atoms of its bad region as predicates. With the Boolean
//! abstraction these predicates rule the path out (the bad region is a conjunction of them), so
//! a refinement that adds nothing new is reported as [`Refinement::NoProgress`] for the caller
//! to cut that part of the search instead of looping.
//!
//! Weakest preconditions along an unrolled loop name one predicate per unrolling. The atoms
//! are therefore [`generalise::normalise`]d (exactly), and a boundary at a loop head also gets
//! predicates that hold across iterations: the relations of its atoms and of the path's
//! assume conditions without their iteration constants (`j < i`, `j == n` where the atoms say
//! `(j + 2) < i`, `(j + 2) == n`), and for atoms that look unrolled the values the path fixes
//! there (`i == 3` where they say `i + 7 < 10`). Extra predicates never make the analysis
//! unsound, and the atoms themselves still rule the path out.

use super::abstraction::{AbstractState, Precision, Predicate};
use super::formula::{EncodeError, ExprEncoder, PathFormula, SsaMap};
use super::generalise;
use super::solver::{Satisfiability, SolverConfig};
use crate::analyses::explicit::{ExplicitCpa, ExplicitState};
use crate::cfa::expr::{BinaryOp, Expr, ExprKind, UnaryOp};
use crate::cfa::semantics;
use crate::cfa::types::IntType;
use crate::cfa::{FuncId, LocId, Operation, Program, Scope, VarId};
use crate::cpa::{Cpa, Step, Transfer};
use z3::ast::Bool;
use z3::SatResult;

/// A piece of an abstract counterexample between two abstraction points.
#[derive(Debug, Clone)]
pub struct Block {
    /// The abstraction point where the block starts.
    pub start: LocId,
    /// The abstract state the analysis computed at `start`.
    pub state: AbstractState,
    /// The steps of the block in order.
    pub steps: Vec<Step>,
}

/// A concrete counterexample found by [`analyse`].
#[derive(Debug, Clone)]
pub struct Counterexample {
    /// The value of each `Nondet` step along the path, in order (interpreter inputs).
    pub nondet_values: Vec<i128>,
    /// True if every model needs some uninitialised local to be non-zero, which the concrete
    /// interpreter (that reads them as 0) cannot replay.
    pub needs_uninitialized_nonzero: bool,
}

/// New predicates at one abstraction point.
#[derive(Debug, Clone)]
pub struct LocationPredicates {
    pub location: LocId,
    /// Index of the block starting here.
    pub block: usize,
    pub predicates: Vec<Predicate>,
}

/// The outcome of counterexample analysis.
#[derive(Debug, Clone)]
pub enum Refinement {
    /// The path is feasible: a real counterexample.
    Feasible(Counterexample),
    /// The path is infeasible and new predicates rule it out. `pivot` is the index of the
    /// block whose start state already excludes the rest of the path: the ARG is refined from
    /// the successors of that state on. `predicates` lists only predicates not yet in the
    /// precision.
    Refined {
        pivot: usize,
        predicates: Vec<LocationPredicates>,
    },
    /// The path is infeasible, but every predicate found is tracked already: refinement cannot
    /// exclude this path; the caller gives up on this part (not verified).
    NoProgress { pivot: usize },
    /// The solver could not decide feasibility.
    Unknown(String),
}

/// Largest expression (in nodes) kept in a bad region; bigger conjuncts are dropped, which only
/// makes the bad region weaker (fewer predicates), never unsound.
const MAX_ATOM_SIZE: usize = 400;

/// Choices of the refinement procedure.
#[derive(Debug, Clone, Copy, Default)]
pub struct RefinementOptions {
    /// Keep only the bad-region atoms of a chain of unsat cores (see `core_atoms`) instead
    /// of all of them. Fewer predicates per refinement, but more refinements: on
    /// `pc_sfifo_1.cil-1` with a restarting CEGAR loop 11 predicates in 6 refinements (54 s)
    /// against 18 predicates in 3 refinements (4 s) without. Off by default.
    pub minimize_predicates: bool,
}

/// Analyses the abstract counterexample `blocks` (the first one starts at program start, the
/// last one ends at the error location) against the current `precision`.
pub fn analyse(
    blocks: &[Block],
    precision: &Precision,
    program: &Program,
    config: &SolverConfig,
    options: RefinementOptions,
) -> Result<Refinement, EncodeError> {
    let start = PathFormula::program_start(program);
    let path = start.extend_all(blocks.iter().flat_map(|b| b.steps.iter().copied()), program)?;
    match config.check(&path.formula) {
        Satisfiability::Unsat => {}
        Satisfiability::Unknown(why) => return Ok(Refinement::Unknown(why)),
        Satisfiability::Sat(model) => return Ok(Refinement::Feasible(counterexample(&path, model, config))),
    }

    let relevant = relevant_assumes(blocks, &start, program, config)?;
    let bad = bad_regions(blocks, program, relevant.as_ref());
    let path_relations = assumed_relations(blocks, program, relevant.as_ref());
    // The pivot: the last boundary whose abstract state excludes its bad region. Boundary 0
    // uses the concrete program start as well.
    let mut pivot = 0;
    for i in (0..blocks.len()).rev() {
        let ssa = SsaMap::new();
        let mut parts = vec![blocks[i].state.to_formula(&ssa, program)];
        if i == 0 {
            parts.push(start.formula.clone());
        }
        parts.extend(
            bad[i]
                .iter()
                .map(|c| ExprEncoder::for_predicates(program, &ssa).condition(c)),
        );
        if matches!(config.check(&Bool::and(&parts)), Satisfiability::Unsat) {
            pivot = i;
            break;
        }
    }

    let minimal = if options.minimize_predicates {
        let core = core_atoms(blocks, &bad, pivot, &start, program, config)?;
        new_predicates(
            blocks,
            &bad,
            Some(&core),
            &path_relations,
            pivot,
            precision,
            program,
        )
    } else {
        Vec::new()
    };
    let predicates = if minimal.is_empty() {
        // Not minimising, or the minimal atoms are tracked already (e.g. the analysis fell
        // back to the Cartesian abstraction somewhere): every atom of the bad regions.
        new_predicates(blocks, &bad, None, &path_relations, pivot, precision, program)
    } else {
        minimal
    };
    if predicates.is_empty() {
        Ok(Refinement::NoProgress { pivot })
    } else {
        Ok(Refinement::Refined { pivot, predicates })
    }
}

/// True if `atom` can be a predicate: no Skolem constants, some program variable.
fn usable_atom(atom: &Expr, program: &Program) -> bool {
    let nvars = program.variables.len();
    !atom.vars().iter().any(|v| v.index() >= nvars) && Predicate::from_condition(atom).is_some()
}

/// The predicates for each boundary after the pivot that are not in the precision yet: the
/// atoms chosen by `core` where it has a choice for the boundary, else every usable atom, in
/// [`generalise::normalise`]d form. A boundary at a loop head also gets the
/// [`generalise::relations`] of its bad region's atoms and of `path_relations` (those of the
/// path's assume conditions) over variables in scope there: candidates for the loop invariant
/// that hold across iterations, where the atoms alone name one predicate per unrolling.
fn new_predicates(
    blocks: &[Block],
    bad: &[Vec<Expr>],
    core: Option<&[Option<Vec<Expr>>]>,
    path_relations: &[Expr],
    pivot: usize,
    precision: &Precision,
    program: &Program,
) -> Vec<LocationPredicates> {
    let mut forward = ForwardValues::new(blocks);
    let mut out = Vec::new();
    for (i, block) in blocks.iter().enumerate().skip(pivot + 1) {
        let atoms: Vec<&Expr> = match core.and_then(|c| c.get(i)).and_then(Option::as_ref) {
            Some(chosen) => chosen.iter().collect(),
            None => bad[i].iter().filter(|a| usable_atom(a, program)).collect(),
        };
        let mut candidates: Vec<Expr> = atoms.iter().map(|a| generalise::normalise(a)).collect();
        let location = program.location(block.start);
        if location.loop_head {
            candidates.extend(forward.values_for(i, &atoms, program));
            let in_scope = |e: &Expr| {
                e.vars().iter().all(|v| {
                    program
                        .variables
                        .get(v.index())
                        .is_some_and(|x| x.scope == Scope::Global || x.scope == Scope::Local(location.func))
                })
            };
            let own = bad[i]
                .iter()
                .filter(|a| usable_atom(a, program))
                .flat_map(generalise::relations);
            candidates.extend(own.chain(path_relations.iter().cloned()).filter(in_scope));
        }
        let mut new: Vec<Predicate> = Vec::new();
        for atom in &candidates {
            if let Some(p) = Predicate::from_condition(atom) {
                if !precision.contains(block.start, &p) && !new.contains(&p) {
                    new.push(p);
                }
            }
        }
        if !new.is_empty() {
            out.push(LocationPredicates {
                location: block.start,
                block: i,
                predicates: new,
            });
        }
    }
    out
}

/// The values the path fixes at each block start (constant propagation from the program
/// start), computed when first asked for.
struct ForwardValues<'b> {
    blocks: &'b [Block],
    at_start: Option<Vec<Option<ExplicitState>>>,
}

impl<'b> ForwardValues<'b> {
    fn new(blocks: &'b [Block]) -> Self {
        ForwardValues {
            blocks,
            at_start: None,
        }
    }

    /// For the variables of the `atoms` at boundary `i` that look unrolled
    /// ([`generalise::collapses`]) without being related to another variable (no
    /// [`generalise::relations`]) and that the path fixes there, `x == value`: what an
    /// interpolant says after a loop with a constant bound was unrolled (`i == 3`, `s == 3`
    /// where the weakest preconditions name `i + 7 < 10`, `s + 7*i == 24`), and with it the
    /// analysis knows the values and needs no solver in the loop.
    fn values_for(&mut self, i: usize, atoms: &[&Expr], program: &Program) -> Vec<Expr> {
        let mut vars: Vec<VarId> = Vec::new();
        let unrolled = atoms
            .iter()
            .filter(|a| generalise::collapses(a) && generalise::relations(a).is_empty());
        for atom in unrolled {
            for v in atom.vars() {
                if !vars.contains(&v) {
                    vars.push(v);
                }
            }
        }
        if vars.is_empty() {
            return Vec::new();
        }
        let blocks = self.blocks;
        let at_start = self.at_start.get_or_insert_with(|| {
            let explicit = ExplicitCpa::new(program);
            let mut state = Some(explicit.initial_state(program));
            let mut out = Vec::with_capacity(blocks.len());
            for block in blocks {
                out.push(state.clone());
                for step in &block.steps {
                    state = state.and_then(|s| match explicit.transfer(&s, *step, &(), program) {
                        Ok(Transfer::Successors(mut next)) => next.pop(),
                        _ => None,
                    });
                }
            }
            out
        });
        let Some(Some(values)) = at_start.get(i) else {
            return Vec::new();
        };
        vars.iter()
            .filter_map(|&v| {
                let value = values.get(v)?;
                let ty = program.variables.get(v.index())?.ty;
                Some(Expr::binary(
                    BinaryOp::Eq,
                    Expr::var(v, ty),
                    Expr::constant(value, ty),
                    IntType::INT,
                ))
            })
            .collect()
    }
}

/// The [`generalise::relations`] of the assume conditions on the path (only those of the
/// `relevant` parts, if given).
fn assumed_relations(blocks: &[Block], program: &Program, relevant: Option<&Relevance>) -> Vec<Expr> {
    let mut out: Vec<Expr> = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        for (k, step) in block.steps.iter().enumerate() {
            let kept = Kept::of(relevant, i, k);
            let edge = program.edges.get(step.edge().index());
            if let (Step::Edge(_), Some(Operation::Assume { cond, branch })) = (step, edge.map(|e| &e.op)) {
                for (_, part) in kept.parts(cond, *branch) {
                    for r in generalise::relations(&part) {
                        if !out.contains(&r) {
                            out.push(r);
                        }
                    }
                }
            }
        }
    }
    out
}

/// Which parts of the steps of an infeasible path its infeasibility needs: per block, per
/// step, for an assume step one flag per conjunct of its taken condition
/// ([`Expr::truth_conjuncts`]) and a last one for the exclusion of undefined behaviour in it;
/// for another step one flag, its exclusion of undefined behaviour.
type Relevance = Vec<Vec<Vec<bool>>>;

/// The flags of one step in a [`Relevance`]; without one, every part is kept.
#[derive(Clone, Copy)]
struct Kept<'r>(Option<&'r [bool]>);

impl<'r> Kept<'r> {
    fn of(relevant: Option<&'r Relevance>, block: usize, step: usize) -> Self {
        Kept(
            relevant
                .and_then(|r| r.get(block))
                .and_then(|b| b.get(step))
                .map(Vec::as_slice),
        )
    }

    fn flag(self, index: usize) -> bool {
        self.0
            .is_none_or(|flags| flags.get(index).copied().unwrap_or(true))
    }

    /// Whether the step's exclusion of undefined behaviour is kept.
    fn defined(self) -> bool {
        self.0.is_none_or(|flags| flags.last().copied().unwrap_or(true))
    }

    /// The kept conjuncts (with their index) of an assume step's taken condition.
    fn parts(self, cond: &Expr, branch: bool) -> impl Iterator<Item = (usize, Expr)> + use<'r> {
        taken_conjuncts(cond, branch)
            .into_iter()
            .enumerate()
            .filter(move |(j, _)| self.flag(*j))
    }
}

/// The conjuncts of the condition an assume step with `cond` and `branch` requires.
fn taken_conjuncts(cond: &Expr, branch: bool) -> Vec<Expr> {
    let taken = if branch {
        cond.clone()
    } else {
        Expr::unary(UnaryOp::LogNot, cond.clone(), IntType::INT)
    };
    taken.truth_conjuncts()
}

/// Chooses, for each boundary after the pivot, a subset of its bad-region atoms that still
/// rules the path out, by a chain of unsat cores: with `S` the negated chosen atoms of the
/// previous boundary (the pivot's abstract state at first), the atoms chosen for boundary `j`
/// are an unsat core of `S ∧ block(j-1) ∧ atoms(j)`. A Boolean abstraction tracking the chosen
/// atoms then implies the negation of their conjunction at every boundary, so the path stays
/// excluded with far fewer predicates. Where the chain breaks (a core needs Skolem atoms, the
/// solver cannot decide) the remaining boundaries get `None`: use all atoms there.
fn core_atoms(
    blocks: &[Block],
    bad: &[Vec<Expr>],
    pivot: usize,
    start: &PathFormula,
    program: &Program,
    config: &SolverConfig,
) -> Result<Vec<Option<Vec<Expr>>>, EncodeError> {
    let mut out = vec![None; blocks.len()];
    let ssa0 = SsaMap::new();
    let mut state = Some(if pivot == 0 {
        Bool::and(&[start.formula.clone(), blocks[0].state.to_formula(&ssa0, program)])
    } else {
        blocks[pivot].state.to_formula(&ssa0, program)
    });
    for j in pivot + 1..blocks.len() {
        let Some(s) = state.take() else { break };
        let pf = PathFormula::starting_with(s).extend_all(blocks[j - 1].steps.iter().copied(), program)?;
        let atoms: Vec<&Expr> = bad[j].iter().filter(|a| usable_atom(a, program)).collect();
        let solver = config.solver();
        solver.assert(&pf.formula);
        let literals: Vec<Bool> = atoms
            .iter()
            .map(|a| {
                let l = Bool::fresh_const("atom");
                solver.assert(l.implies(ExprEncoder::for_predicates(program, &pf.ssa).condition(a)));
                l
            })
            .collect();
        if solver.check_assumptions(&literals) != SatResult::Unsat {
            break;
        }
        let core = solver.get_unsat_core();
        let chosen: Vec<Expr> = atoms
            .iter()
            .zip(&literals)
            .filter(|(_, l)| core.contains(l))
            .map(|(a, _)| (*a).clone())
            .collect();
        let conj: Vec<Bool> = chosen
            .iter()
            .map(|a| ExprEncoder::for_predicates(program, &ssa0).condition(a))
            .collect();
        state = Some(Bool::and(&conj).not());
        out[j] = Some(chosen);
    }
    Ok(out)
}

/// Builds the counterexample from a model of the whole path (which excludes undefined
/// behaviour), preferring models with uninitialised locals at 0 (what the interpreter replays).
fn counterexample(path: &PathFormula, model: z3::Model, config: &SolverConfig) -> Counterexample {
    let strict = Bool::and(&[path.formula.clone(), path.uninitialized_zero()]);
    if let Satisfiability::Sat(m) = config.check(&strict) {
        return Counterexample {
            nondet_values: path.nondet_values(&m),
            needs_uninitialized_nonzero: false,
        };
    }
    Counterexample {
        nondet_values: path.nondet_values(&model),
        needs_uninitialized_nonzero: true,
    }
}

/// Replaces every read of `var` in `e` by `value` (a value of `var`'s type).
fn substitute(e: &Expr, var: VarId, value: &Expr) -> Expr {
    match &e.kind {
        ExprKind::Var(v) if *v == var => value.clone().cast(e.ty),
        ExprKind::Const(_) | ExprKind::Var(_) | ExprKind::Address { .. } | ExprKind::Function { .. } => {
            e.clone()
        }
        ExprKind::Unary(op, a) => Expr::unary(*op, substitute(a, var, value), e.ty),
        ExprKind::Binary(op, a, b) => {
            Expr::binary(*op, substitute(a, var, value), substitute(b, var, value), e.ty)
        }
        ExprKind::Cast(a) => Expr {
            kind: ExprKind::Cast(Box::new(substitute(a, var, value))),
            ty: e.ty,
        },
        ExprKind::Bitcast(a) => Expr {
            kind: ExprKind::Bitcast(Box::new(substitute(a, var, value))),
            ty: e.ty,
        },
    }
}

fn size(e: &Expr) -> usize {
    match &e.kind {
        ExprKind::Const(_) | ExprKind::Var(_) | ExprKind::Address { .. } | ExprKind::Function { .. } => 1,
        ExprKind::Unary(_, a) | ExprKind::Cast(a) | ExprKind::Bitcast(a) => 1 + size(a),
        ExprKind::Binary(_, a, b) => 1 + size(a) + size(b),
    }
}

fn reads(e: &Expr, var: VarId) -> bool {
    let mut found = false;
    e.for_each_var(&mut |v| found |= v == var);
    found
}

/// Weakest-precondition state: the conjuncts (conditions `!= 0`) of the bad region.
///
/// A recursive function's locals are one variable for all its activations. Going back over
/// the return from a call of one, the conjuncts read the caller's view of its locals (the
/// activation below, restored by the return), which the callee's body does not write: they
/// are renamed to placeholders (variable ids beyond the program's, like Skolem constants)
/// until the matching call, where they become the locals again.
struct Wp<'p> {
    program: &'p Program,
    conjuncts: Vec<Expr>,
    next_skolem: u32,
    /// Per function: whether it is recursive.
    recursive: Vec<bool>,
    /// Per return gone back over from a recursive callee, innermost last: placeholder and
    /// local of the caller's view.
    suspended: Vec<Vec<(VarId, VarId)>>,
}

impl Wp<'_> {
    fn new(program: &Program) -> Wp<'_> {
        Wp {
            program,
            conjuncts: Vec::new(),
            next_skolem: 0,
            recursive: program.recursive_functions(),
            suspended: Vec::new(),
        }
    }

    fn is_recursive(&self, func: FuncId) -> bool {
        self.recursive.get(func.index()).copied().unwrap_or(false)
    }

    /// A variable id beyond the program's (a Skolem constant or placeholder).
    fn fresh(&mut self) -> VarId {
        let id = VarId(self.program.variables.len() as u32 + self.next_skolem);
        self.next_skolem += 1;
        id
    }

    fn is_read(&self, var: VarId) -> bool {
        self.conjuncts.iter().any(|c| reads(c, var))
    }

    /// The locals of `func` the conjuncts read, other than those in `except`.
    fn read_locals(&self, func: FuncId, except: &[VarId]) -> Vec<VarId> {
        let local = |(i, v): (usize, &crate::cfa::Variable)| {
            let var = VarId(i as u32);
            (v.scope == Scope::Local(func) && !except.contains(&var) && self.is_read(var)).then_some(var)
        };
        self.program
            .variables
            .iter()
            .enumerate()
            .filter_map(local)
            .collect()
    }

    /// Renames `var` to a fresh placeholder of its type, returned.
    fn rename(&mut self, var: VarId) -> VarId {
        let placeholder = self.fresh();
        let ty = self.program.variable(var).ty;
        self.assign(var, &Expr::var(placeholder, ty));
        placeholder
    }
    fn assign(&mut self, var: VarId, value: &Expr) {
        for c in &mut self.conjuncts {
            if reads(c, var) {
                *c = substitute(c, var, value);
            }
        }
        self.conjuncts.retain(|c| size(c) <= MAX_ATOM_SIZE);
    }

    /// `var` gets an unknown value: a Skolem constant (a variable id beyond the program's).
    fn havoc(&mut self, var: VarId) {
        let Some(v) = self.program.variables.get(var.index()) else {
            return;
        };
        if !self.conjuncts.iter().any(|c| reads(c, var)) {
            return;
        }
        let ty = v.ty;
        let skolem = self.fresh();
        self.assign(var, &Expr::var(skolem, ty));
    }

    /// Adds conditions (each `!= 0`) to the bad region.
    fn require(&mut self, conditions: impl IntoIterator<Item = Expr>) {
        for c in conditions.into_iter().flat_map(|c| c.truth_conjuncts()) {
            if c.as_const().is_none() && size(&c) <= MAX_ATOM_SIZE && !self.conjuncts.contains(&c) {
                self.conjuncts.push(c);
            }
        }
    }

    /// The conditions under which evaluating `e` is defined, with `keep`.
    fn require_defined(&mut self, e: &Expr, keep: bool) {
        if keep {
            self.require(semantics::defined_conditions(e, self.program.signed_overflow));
        }
    }

    /// Goes back over `step`; an assume step adds the conjuncts of its condition `kept`, and
    /// every step (as `kept`)
    /// the conditions under which its expressions are defined (paths through undefined
    /// behaviour are infeasible).
    fn step_back(&mut self, step: Step, kept: Kept<'_>) {
        let keep = kept.defined();
        let program = self.program;
        let Some(edge) = program.edges.get(step.edge().index()) else {
            return;
        };
        match (step, &edge.op) {
            (Step::Return { .. }, Operation::Call { callee, result, .. }) => {
                let mut result = *result;
                if self.is_recursive(*callee) {
                    let renamed: Vec<(VarId, VarId)> = self
                        .read_locals(*callee, &[])
                        .into_iter()
                        .map(|v| (self.rename(v), v))
                        .collect();
                    // The result is written after the return restored the caller's view.
                    if let Some(&(placeholder, _)) = renamed.iter().find(|(_, v)| Some(*v) == result) {
                        result = Some(placeholder);
                    }
                    self.suspended.push(renamed);
                }
                if let (Some(res), Some(rv)) = (result, program.function(*callee).return_var) {
                    let rv_ty = program.variable(rv).ty;
                    self.assign(res, &Expr::var(rv, rv_ty));
                }
            }
            (Step::Return { .. }, _) => {}
            (Step::Edge(_), op) => match op {
                Operation::Declare { var, init: Some(e) } | Operation::Assign { lhs: var, rhs: e } => {
                    let ty = program.variable(*var).ty;
                    self.assign(*var, &e.clone().cast(ty));
                    self.require_defined(e, keep);
                }
                Operation::Declare { var, init: None } => self.havoc(*var),
                // Memory is not modelled: a loaded value is unconstrained.
                Operation::Load { lhs, .. } => self.havoc(*lhs),
                Operation::Nondet { lhs: Some(var), .. }
                | Operation::Library {
                    result: Some(var), ..
                }
                | Operation::External {
                    result: Some(var), ..
                } => self.havoc(*var),
                Operation::Assume { cond, branch } => {
                    self.require(kept.parts(cond, *branch).map(|(_, part)| part));
                    self.require_defined(cond, keep);
                }
                Operation::Call { callee, args, .. } => {
                    let f = program.function(*callee);
                    let recursive = self.is_recursive(*callee);
                    if recursive {
                        // The callee's other locals have no value yet at its entry.
                        for v in self.read_locals(*callee, &f.params) {
                            self.havoc(v);
                        }
                    }
                    // Parameters are assigned from arguments read in the caller, all at once
                    // (an argument may read a parameter of a recursive callee).
                    let read: Vec<(VarId, &Expr)> = f
                        .params
                        .iter()
                        .zip(args)
                        .filter(|(p, _)| self.is_read(**p))
                        .map(|(p, a)| (*p, a))
                        .collect();
                    let renamed: Vec<(VarId, Expr)> = read
                        .into_iter()
                        .map(|(p, a)| (self.rename(p), a.clone().cast(program.variable(p).ty)))
                        .collect();
                    for (placeholder, a) in renamed {
                        self.assign(placeholder, &a);
                    }
                    if recursive {
                        for (placeholder, v) in self.suspended.pop().unwrap_or_default() {
                            let ty = program.variable(v).ty;
                            self.assign(placeholder, &Expr::var(v, ty));
                        }
                    }
                    for a in args {
                        self.require_defined(a, keep);
                    }
                }
                Operation::Return { value: Some(e) } => {
                    let f = program.function(program.location(edge.from).func);
                    if let Some(rv) = f.return_var {
                        let ty = program.variable(rv).ty;
                        self.assign(rv, &e.clone().cast(ty));
                        self.require_defined(e, keep);
                    }
                }
                _ => {}
            },
        }
    }
}

/// The bad region at the start of each block: conditions (each meaning `!= 0`) over the
/// variables at that point (and Skolem constants for later nondet values) under which the
/// rest of the path can be executed. Only called on paths whose formula was built, so every
/// edge, function, location and variable id on them exists.
///
/// With `relevant`, the other parts of assume conditions (and exclusions of undefined
/// behaviour) are left out: the bad regions are then those of the path sliced to what makes
/// it infeasible, with far fewer (and only relevant) atoms.
fn bad_regions(blocks: &[Block], program: &Program, relevant: Option<&Relevance>) -> Vec<Vec<Expr>> {
    let mut wp = Wp::new(program);
    let mut out = vec![Vec::new(); blocks.len()];
    for (i, block) in blocks.iter().enumerate().rev() {
        for (k, step) in block.steps.iter().enumerate().rev() {
            wp.step_back(*step, Kept::of(relevant, i, k));
        }
        out[i] = wp.conjuncts.clone();
    }
    out
}

/// Most assume steps in an unsat core that are tried one by one for removal.
const CORE_MINIMIZE_LIMIT: usize = 40;

/// An indicator literal of one part of one step of a path (see [`Relevance`]).
struct Indicator {
    literal: Bool,
    block: usize,
    step: usize,
    part: usize,
    /// What the indicator stands for is tried last (see below).
    kind: IndicatorKind,
}

/// The kinds of step parts, in the order a refinement tries to explain infeasibility by.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum IndicatorKind {
    /// A conjunct of an assume condition of the program.
    Assume,
    /// The exclusion of undefined behaviour in a step.
    Defined,
    /// A conjunct of an assume condition that excludes a concrete state
    /// ([`Expr::is_state_exclusion`]), as a state cut's guard in a residual program does.
    /// A path of a safe program is infeasible without them (dropping them gives a path of the
    /// original program), and predicates from the program's own conditions generalise where
    /// those naming covered states do not.
    StateExclusion,
}

/// The parts of the infeasible path `blocks` its infeasibility needs (a [`Relevance`]), from
/// an unsat core over one indicator literal per conjunct of an assume condition and per
/// exclusion of undefined behaviour, made minimal by deletion when small. The core is looked
/// for among the kinds of [`IndicatorKind`] in order, the later ones only when the earlier
/// ones do not make the path infeasible. `None` when the solver gives no core (then every
/// part counts).
fn relevant_assumes(
    blocks: &[Block],
    start: &PathFormula,
    program: &Program,
    config: &SolverConfig,
) -> Result<Option<Relevance>, EncodeError> {
    let solver = config.solver();
    let mut pf = start.clone();
    let mut indicators: Vec<Indicator> = Vec::new();
    let mut relevant: Relevance = Vec::with_capacity(blocks.len());
    for (i, block) in blocks.iter().enumerate() {
        let mut flags = Vec::with_capacity(block.steps.len());
        for (k, step) in block.steps.iter().enumerate() {
            let edge = program
                .edges
                .get(step.edge().index())
                .ok_or(EncodeError::NoSuchEdge(step.edge()))?;
            let mut indicate = |holds: Bool, part: usize, kind: IndicatorKind| {
                let literal = Bool::fresh_const("part");
                solver.assert(literal.implies(holds));
                indicators.push(Indicator {
                    literal,
                    block: i,
                    step: k,
                    part,
                    kind,
                });
            };
            match (step, &edge.op) {
                (Step::Edge(_), Operation::Assume { cond, branch }) => {
                    let parts = taken_conjuncts(cond, *branch);
                    let mut enc = ExprEncoder::new(program, &pf.ssa);
                    for (j, part) in parts.iter().enumerate() {
                        let kind = if part.is_state_exclusion() {
                            IndicatorKind::StateExclusion
                        } else {
                            IndicatorKind::Assume
                        };
                        indicate(enc.condition(part), j, kind);
                    }
                    if !enc.undefined.is_empty() {
                        indicate(
                            Bool::or(&enc.undefined).not(),
                            parts.len(),
                            IndicatorKind::Defined,
                        );
                    }
                    flags.push(vec![false; parts.len() + 1]);
                }
                _ => {
                    let (next, undefined) = pf.extend_split(*step, program)?;
                    pf = next;
                    if let Some(ub) = undefined {
                        indicate(ub.not(), 0, IndicatorKind::Defined);
                    }
                    flags.push(vec![false]);
                }
            }
        }
        relevant.push(flags);
    }
    solver.assert(&pf.formula);
    // Most infeasible paths need only assume conditions: their cores (and the deletion checks
    // below) stay over those; the other kinds join only when needed.
    let mut core: Option<Vec<Bool>> = None;
    for kind in [
        IndicatorKind::Assume,
        IndicatorKind::Defined,
        IndicatorKind::StateExclusion,
    ] {
        if kind != IndicatorKind::Assume && !indicators.iter().any(|x| x.kind == kind) {
            continue;
        }
        let tried: Vec<Bool> = indicators
            .iter()
            .filter(|x| x.kind <= kind)
            .map(|x| x.literal.clone())
            .collect();
        if solver.check_assumptions(&tried) == SatResult::Unsat {
            core = Some(solver.get_unsat_core());
            break;
        }
    }
    let Some(mut core) = core else {
        return Ok(None);
    };
    if core.len() <= CORE_MINIMIZE_LIMIT {
        let mut at = 0;
        while at < core.len() {
            let mut without = core.clone();
            without.remove(at);
            if solver.check_assumptions(&without) == SatResult::Unsat {
                core = without;
            } else {
                at += 1;
            }
        }
    }
    for x in &indicators {
        if core.contains(&x.literal) {
            relevant[x.block][x.step][x.part] = true;
        }
    }
    Ok(Some(relevant))
}
