//! The predicate analysis as a CPA on the engine: lazy abstraction with CEGAR (seed 000 §III,
//! seed 002 §2) over the formula layer of this module.
//!
//! A state is the abstract state computed at the last abstraction point (loop heads, function
//! entries and exits, error locations and, with the default [`BlockEncoding::Joins`], the
//! locations where paths join in functions without loops or arrays) together with the path formula of
//! the steps since then.
//! At an abstraction point the path formula is abstracted with the Boolean abstraction over the
//! predicates of the precision there, and a new block starts. Coverage is checked only at
//! abstraction points (entailment of abstract states). A target state's path is analysed by
//! [`super::refinement::analyse`]: a feasible path is confirmed on the concrete interpreter, an
//! infeasible one refines the precision and removes the part of the ARG below the pivot.
//!
//! Several things keep the solver out of the common case: values the block start fixes (`x == c`
//! literals) are carried through the block by the explicit-value transfer and decide branches
//! and predicates directly; a branch or predicate whose variables the block has not written
//! takes its truth from the start abstraction where every cube agrees on it; the predicates
//! of a block that decided all its branches and wrote none of their variables keep the
//! start's minterms over them; and entailment between minterm states over the same predicates
//! is cube inclusion. Predicates over globals only are shared by every abstraction point
//! ([`PredicateSharing::Global`]).
//!
//! Recursion is explored with the call stack up to the `recursion-depth` give-up (the engine
//! cuts deeper calls; they go into the condition). Locals are one variable for all activations
//! of a function, and only a path formula that saw a call knows where to restore the caller's
//! locals on its return ([`PathFormula`] keeps their SSA indices per call). So no block ends
//! while a call of a recursive function is active: a block spans the whole recursion (at the
//! places where it would end, an undecided block is checked for satisfiability instead, so
//! that infeasible calls end early), coverage happens only outside recursion, and a loop
//! inside recursion, which no abstraction would end, is cut. Refinement sees the path formula
//! of the whole path, with an activation per call.

use super::abstraction::{boolean_abstraction, AbstractState, Literal, Precision, Predicate};
use super::formula::{PathFormula, SsaMap};
use super::refinement::{self, Block, Refinement, RefinementOptions};
use super::solver::{Satisfiability, SolverConfig};
use super::step::{step_effect, StepEffect, Typed};
use crate::analyses::explicit::{learned_equality, ExplicitCpa, ExplicitState};
use crate::analyses::incremental::{Previous, ProofTrack};
use crate::analyses::{
    confirm_path, is_the_run_to_error, nondet_free, run_to_verdict, AnalysisOptions, AnalysisOutcome,
    TargetDecision,
};
use crate::cfa::expr::Expr;
use crate::cfa::semantics::{self, SignedOverflow};
use crate::cfa::{FuncId, LocId, LocationKind, Operation, Program, Scope};
use crate::cpa::arg::{Arg, NodeId, NodeStatus};
use crate::cpa::budget::{last_query, CpuDeadline};
use crate::cpa::engine::{Engine, Guide};
use crate::cpa::monitor::GiveUp;
use crate::cpa::{Cpa, CpaError, LinearCoverIndex, Step, Transfer};
use crate::verdict::Verdict;
use std::collections::BTreeMap;
use std::rc::Rc;
use z3::ast::Bool;

/// Default bound on the number of cubes of a Boolean abstraction before it falls back to the
/// (weaker, still sound) Cartesian abstraction.
pub const DEFAULT_ABSTRACTION_LIMIT: usize = 256;

/// A state of the predicate analysis.
#[derive(Debug, Clone)]
pub struct PredicateState {
    /// The abstract state at the start of the current block.
    pub abstraction: Rc<AbstractState>,
    /// The abstraction point where the current block started.
    pub block_start: LocId,
    /// The path formula of the current block (length 0 right at an abstraction point).
    pub pf: PathFormula,
    /// True only for the initial state, whose block formula also fixes the globals' initial
    /// values (its abstraction `true` alone would say less than it means).
    pub at_program_start: bool,
    /// Variable values every concrete state of this one has: equalities of the block's start
    /// abstraction (or the globals' initial values) carried through the block by the
    /// explicit-value transfer. They decide branches and predicates without the solver.
    pub known: ExplicitState,
    /// The predicates the block's start abstraction was computed over (the precision there at
    /// that time; refinement may have added more since).
    pub tracked: Rc<Vec<Predicate>>,
    /// True if the block passed a branch that neither the known values nor the solver
    /// decided yet: the block's path formula may be unsatisfiable, so its abstraction must
    /// ask the solver.
    pub unchecked: bool,
    /// The node of a previous version's proof this state follows (incremental runs only).
    pub proof: Option<ProofTrack>,
    /// How many calls of recursive functions are active (the engine's call stack, as far as
    /// this analysis needs it). While any is, no block ends: see [`PredicateCpa`].
    pub recursive_calls: u32,
    /// The path formula of the block that ended here, if its satisfiability is still open:
    /// the known values fixed every predicate but not every branch. Checked by
    /// [`Cpa::confirm`] only if the state is not covered (most such states are).
    pub unconfirmed: Option<Bool>,
}

/// The predicate CPA.
#[derive(Debug, Clone)]
pub struct PredicateCpa<'p> {
    program: &'p Program,
    explicit: ExplicitCpa,
    config: SolverConfig,
    abstraction_limit: usize,
    abstraction_point: Vec<bool>,
    /// Per function: whether it is recursive (see [`Program::recursive_functions`]).
    recursive: Vec<bool>,
    previous: Option<&'p Previous>,
}

impl<'p> PredicateCpa<'p> {
    /// Prepares the analysis for `program`: abstraction points are loop heads, function entries
    /// and exits, and error locations, and with [`BlockEncoding::Joins`] also the locations
    /// where paths join in functions without loops or arrays.
    pub fn new(
        program: &'p Program,
        config: SolverConfig,
        abstraction_limit: usize,
        encoding: BlockEncoding,
    ) -> Self {
        let mut abstraction_point: Vec<bool> = program
            .locations
            .iter()
            .map(|l| l.loop_head || matches!(l.kind, LocationKind::FunctionExit | LocationKind::Error))
            .collect();
        for f in &program.functions {
            if let Some(p) = abstraction_point.get_mut(f.entry.index()) {
                *p = true;
            }
        }
        if encoding == BlockEncoding::Joins {
            let mut incoming = vec![0usize; program.locations.len()];
            for e in &program.edges {
                if let Some(n) = incoming.get_mut(e.to.index()) {
                    *n += 1;
                }
            }
            // Functions with loops, or with array reads and writes, keep their blocks whole:
            // predicates never name array elements, so an abstraction inside array code
            // forgets what the block's path formula knows about them exactly.
            let mut keep_whole = vec![false; program.functions.len()];
            let memory_edges = program.edges.iter().filter(|e| e.op.touches_memory(program));
            let memory_locs = memory_edges.map(|e| program.location(e.from));
            for l in program
                .locations
                .iter()
                .filter(|l| l.loop_head)
                .chain(memory_locs)
            {
                if let Some(h) = keep_whole.get_mut(l.func.index()) {
                    *h = true;
                }
            }
            for ((p, n), l) in abstraction_point.iter_mut().zip(incoming).zip(&program.locations) {
                *p |= n >= 2 && !keep_whole.get(l.func.index()).copied().unwrap_or(true);
            }
        }
        PredicateCpa {
            program,
            explicit: ExplicitCpa::new(program),
            config,
            abstraction_limit,
            abstraction_point,
            recursive: program.recursive_functions(),
            previous: None,
        }
    }

    /// The analysis reusing a previous version's proof where it conforms (seed 002).
    pub fn continuing(self, previous: Option<&'p Previous>) -> Self {
        PredicateCpa { previous, ..self }
    }

    /// True if abstraction happens at `loc` (outside recursion).
    pub fn is_abstraction_point(&self, loc: LocId) -> bool {
        self.abstraction_point.get(loc.index()).copied().unwrap_or(false)
    }

    fn is_recursive(&self, func: FuncId) -> bool {
        self.recursive.get(func.index()).copied().unwrap_or(false)
    }

    /// The number of active calls of recursive functions after a step over an edge with
    /// operation `op`: one more on a call of one, one less on the return from it.
    fn recursive_calls_after(&self, calls: u32, step: Step, op: &Operation) -> u32 {
        match (step, op) {
            (Step::Edge(_), Operation::Call { callee, .. }) if self.is_recursive(*callee) => calls + 1,
            (Step::Return { .. }, Operation::Call { callee, .. }) if self.is_recursive(*callee) => {
                calls.saturating_sub(1)
            }
            _ => calls,
        }
    }

    /// Why a step inside recursion, to `target`, is beyond this analysis, if it is: a loop
    /// (no block ends inside recursion, so nothing would end its unrolling), or an access
    /// through a pointer that may reach a local of a recursive function (locals are one
    /// variable for all activations; the pointer may reach another activation's).
    fn unmodelled_in_recursion(&self, step: Step, target: LocId, program: &Program) -> Option<String> {
        if program.location(target).loop_head {
            return Some(
                "loop inside a recursive call (the predicate analysis abstracts no state there)".into(),
            );
        }
        let objects = match step_effect(step, program) {
            Ok(StepEffect::LoadThrough { objects, .. } | StepEffect::StoreThrough { objects, .. }) => objects,
            // A library function may read any address-taken variable.
            Ok(StepEffect::Library { .. }) => program
                .address_taken()
                .map(|var| Typed {
                    var,
                    ty: program.variable(var).ty,
                })
                .collect(),
            _ => return None,
        };
        let recursive_local = |o: &Typed| match program.variables.get(o.var.index()).map(|v| v.scope) {
            Some(Scope::Local(f)) => self.is_recursive(f),
            _ => false,
        };
        objects
            .iter()
            .any(recursive_local)
            .then(|| "access through a pointer to a local of a recursive function inside recursion".into())
    }
}

impl PredicateCpa<'_> {
    /// The Boolean abstraction of a block's path formula `pf`: predicates the known values
    /// decide are fixed literals, only the others go to the solver (none at all for the
    /// state machines of typical tasks, whose predicates compare variables with constants).
    /// With `unchecked` false every branch of the block was decided by the known values, so
    /// the path formula is satisfiable (the block start is) and the solver is not needed for
    /// that either; otherwise an unsatisfiable block yields `false` (the branch was infeasible).
    /// When the known values fix every predicate, that check is left open: the block formula
    /// comes back with the abstraction, for [`Cpa::confirm`].
    fn abstract_block(
        &self,
        start: &AbstractState,
        pf: &PathFormula,
        predicates: &[Predicate],
        known: &ExplicitState,
        unchecked: bool,
    ) -> (AbstractState, Option<Bool>) {
        let mut fixed = Vec::new();
        let mut open = Vec::new();
        for p in predicates {
            // Predicates wrap around on signed overflow, as their encoding does.
            let value = match semantics::eval(p.expr(), &|v| known.get(v), SignedOverflow::Wrap) {
                Ok(Some(value)) => Some(value != 0),
                _ if unchanged_in_block(pf, p.expr()) => start.fixes(p.expr()),
                _ => None,
            };
            match value {
                Some(positive) => fixed.push(Literal {
                    predicate: p.clone(),
                    positive,
                }),
                None => open.push(p.clone()),
            }
        }
        if open.is_empty() {
            let abs = AbstractState {
                minterms: !fixed.is_empty(),
                cubes: vec![fixed],
            };
            return (abs, unchecked.then(|| pf.formula.clone()));
        }
        // A block that decided all its branches and wrote none of the open predicates'
        // variables keeps their combinations from its start: the start's minterms over them.
        if let Some(cubes) = (!unchecked)
            .then(|| start.project(&open))
            .flatten()
            .filter(|_| open.iter().all(|p| unchanged_in_block(pf, p.expr())))
        {
            let abs = AbstractState {
                minterms: true,
                cubes: cubes
                    .into_iter()
                    .map(|mut cube| {
                        cube.extend(fixed.iter().cloned());
                        cube
                    })
                    .collect(),
            };
            return (abs, None);
        }
        // Minterms over `open` plus the same fixed literals are minterms over all predicates.
        let mut abs = boolean_abstraction(pf, &open, self.program, &self.config, self.abstraction_limit);
        for cube in &mut abs.cubes {
            cube.extend(fixed.iter().cloned());
        }
        (abs, None)
    }

    /// False only if the solver finds `formula` unsatisfiable.
    fn feasible(&self, formula: &Bool) -> bool {
        !matches!(self.config.check(formula), Satisfiability::Unsat)
    }
}

/// True if the block `pf` has not written any variable of `e`: its value is the one at the
/// block start.
fn unchanged_in_block(pf: &PathFormula, e: &Expr) -> bool {
    e.vars().iter().all(|&v| pf.ssa.get(v) == 0)
}

/// The truth of branch condition `cond` after the block `pf` that the block's start
/// abstraction `start` fixes: every cube has the literal of its predicate and the block has
/// not written any of its variables. `None` as well for a condition whose evaluation can be
/// undefined (the path formula excludes those paths, the predicate wraps around).
fn fixed_since_start(
    start: &AbstractState,
    pf: &PathFormula,
    cond: &Expr,
    program: &Program,
) -> Option<bool> {
    if !unchanged_in_block(pf, cond)
        || !semantics::defined_conditions(cond, program.signed_overflow).is_empty()
    {
        return None;
    }
    start.fixes(cond)
}

/// The values an abstract state fixes: `x == c` literals that hold in every cube.
fn known_from_abstraction(abs: &AbstractState, program: &Program) -> ExplicitState {
    let mut known = ExplicitState::default();
    let Some((first, rest)) = abs.cubes.split_first() else {
        return known;
    };
    for l in first.iter().filter(|l| l.positive) {
        if rest.iter().all(|c| c.contains(l)) {
            if let Some((var, value)) = learned_equality(l.predicate.expr(), true, program) {
                known.values.insert(var, value);
            }
        }
    }
    known
}

fn encode_error(e: impl std::fmt::Display) -> CpaError {
    CpaError(format!("path formula: {e}"))
}

impl Cpa for PredicateCpa<'_> {
    type State = PredicateState;
    type Precision = Precision;
    type CoverIndex = LinearCoverIndex<PredicateState>;

    fn initial_state(&self, program: &Program) -> PredicateState {
        let entry = program.main().entry;
        PredicateState {
            abstraction: Rc::new(AbstractState::top()),
            block_start: entry,
            pf: PathFormula::program_start(program),
            at_program_start: true,
            known: self.explicit.initial_state(program),
            tracked: Rc::new(Vec::new()),
            unchecked: false,
            proof: self.previous.and_then(|p| p.initial(program)),
            recursive_calls: 0,
            unconfirmed: None,
        }
    }

    fn transfer(
        &self,
        state: &PredicateState,
        step: Step,
        precision: &Precision,
        program: &Program,
    ) -> Result<Transfer<PredicateState>, CpaError> {
        let edge = program
            .edges
            .get(step.edge().index())
            .ok_or_else(|| CpaError(format!("no edge {}", step.edge())))?;
        let known = match self.explicit.transfer(&state.known, step, &(), program)? {
            // The known values already rule the step out.
            Transfer::Successors(mut next) => match next.pop() {
                Some(k) => k,
                None => return Ok(Transfer::Successors(Vec::new())),
            },
            // The explicit-value transfer never gives up (undefined behaviour ends the path
            // there); should it, forget the values and let the formula decide.
            Transfer::GiveUp(_) => ExplicitState::default(),
        };
        let pf = state.pf.extend(step, program).map_err(encode_error)?;
        let target = match step {
            Step::Return { call } => program.edge(call).to,
            Step::Edge(_) => match &edge.op {
                Operation::Call { callee, .. } => program.function(*callee).entry,
                _ => edge.to,
            },
        };
        let decided = match (step, &edge.op) {
            (Step::Edge(_), Operation::Assume { cond, branch }) => {
                let by_values = matches!(
                    semantics::eval(cond, &|v| state.known.get(v), program.signed_overflow),
                    Ok(Some(_))
                );
                // Else the start abstraction may fix the condition's truth.
                by_values
                    || match fixed_since_start(&state.abstraction, &state.pf, cond, program) {
                        Some(value) if value != *branch => return Ok(Transfer::Successors(Vec::new())),
                        Some(_) => true,
                        None => false,
                    }
            }
            _ => true,
        };
        // A branch the known values do not decide is checked once for the whole block, at its
        // abstraction: one solver call per block instead of one per branch.
        let mut unchecked = state.unchecked || !decided;
        let track = match (self.previous, state.proof) {
            (Some(previous), Some(t)) => previous.follow(t, step, program),
            _ => None,
        };
        let recursive_calls = self.recursive_calls_after(state.recursive_calls, step, &edge.op);
        if recursive_calls > 0 {
            if let Some(reason) = self.unmodelled_in_recursion(step, target, program) {
                return Ok(Transfer::GiveUp(reason));
            }
            // No block ends inside recursion; where one would, the block so far is checked
            // instead (if a branch is undecided), so that infeasible calls end here rather
            // than at the depth bound.
            if unchecked && self.is_abstraction_point(target) {
                match self.config.check(&pf.formula) {
                    Satisfiability::Unsat => return Ok(Transfer::Successors(Vec::new())),
                    Satisfiability::Sat(_) => unchecked = false,
                    Satisfiability::Unknown(_) => {}
                }
            }
        } else if self.is_abstraction_point(target) {
            let predicates = precision.predicates_at(target);
            let reused = self.previous.zip(track).and_then(|(previous, t)| {
                let abstract_new = |new: &[Predicate]| {
                    let (abs, unconfirmed) =
                        self.abstract_block(&state.abstraction, &pf, new, &known, unchecked);
                    match unconfirmed {
                        Some(block) if !self.feasible(&block) => AbstractState::bottom(),
                        _ => abs,
                    }
                };
                let abs = previous.reuse(t, &pf, &predicates, program, &self.config, abstract_new)?;
                Some((Rc::new(abs), t))
            });
            if let Some((abs, t)) = reused {
                if abs.is_bottom() {
                    return Ok(Transfer::Successors(Vec::new()));
                }
                let start = abs.to_formula(&SsaMap::new(), program);
                return Ok(Transfer::Successors(vec![PredicateState {
                    known: known_from_abstraction(&abs, program),
                    abstraction: abs,
                    block_start: target,
                    pf: PathFormula::starting_with(start),
                    at_program_start: false,
                    tracked: Rc::new(predicates),
                    unchecked: false,
                    proof: Some(ProofTrack { identical: true, ..t }),
                    recursive_calls,
                    unconfirmed: None,
                }]));
            }
            // Sound in every case: solver failures fall back to weaker abstractions, and
            // `false` comes only from an unsatisfiable block formula.
            let (abs, unconfirmed) =
                self.abstract_block(&state.abstraction, &pf, &predicates, &known, unchecked);
            if abs.is_bottom() {
                return Ok(Transfer::Successors(Vec::new()));
            }
            let start = abs.to_formula(&SsaMap::new(), program);
            let known = known_from_abstraction(&abs, program);
            let proof = self.previous.and_then(|p| p.anchor(target, &abs));
            return Ok(Transfer::Successors(vec![PredicateState {
                abstraction: Rc::new(abs),
                block_start: target,
                pf: PathFormula::starting_with(start),
                at_program_start: false,
                known,
                tracked: Rc::new(predicates),
                unchecked: false,
                proof,
                recursive_calls,
                unconfirmed,
            }]));
        }
        Ok(Transfer::Successors(vec![PredicateState {
            abstraction: state.abstraction.clone(),
            block_start: state.block_start,
            pf,
            at_program_start: state.at_program_start,
            known,
            tracked: state.tracked.clone(),
            unchecked,
            proof: track,
            recursive_calls,
            unconfirmed: None,
        }]))
    }

    /// Only states at abstraction points are compared: `a ⊑ b` if `a`'s abstract state entails
    /// `b`'s (the solver failing to decide means not covered).
    fn less_or_equal(&self, a: &PredicateState, b: &PredicateState) -> bool {
        a.pf.length == 0
            && b.pf.length == 0
            && !b.at_program_start
            && !a.at_program_start
            && a.abstraction.entails(&b.abstraction, self.program, &self.config)
    }

    /// Checks the block formula a state's abstraction left open.
    fn confirm(&self, state: &mut PredicateState) -> bool {
        state.unconfirmed.take().is_none_or(|block| self.feasible(&block))
    }

    fn forget_unconfirmed(&self, state: &mut PredicateState) {
        state.unconfirmed = None;
    }

    fn index_insert(&self, index: &mut Self::CoverIndex, state: &PredicateState, node: NodeId) {
        if state.pf.length == 0 {
            index.insert(state, node);
        }
    }

    fn index_remove(&self, index: &mut Self::CoverIndex, _state: &PredicateState, node: NodeId) {
        index.remove(node);
    }

    fn covering(&self, index: &Self::CoverIndex, state: &PredicateState) -> Vec<NodeId> {
        if state.pf.length != 0 {
            return Vec::new();
        }
        index.covering(state, |a, b| self.less_or_equal(a, b))
    }
}

/// The abstract counterexample of a target node: its path split into blocks at the nodes that
/// start a block, with the nodes where the blocks start.
fn blocks_to(arg: &Arg<PredicateState>, node: NodeId) -> (Vec<Block>, Vec<NodeId>) {
    let root = arg.root();
    let root_state = &arg.node(root).state;
    let mut blocks = vec![Block {
        start: root_state.block_start,
        state: (*root_state.abstraction).clone(),
        steps: Vec::new(),
    }];
    let mut starts = vec![root];
    let path = arg.path_to(node);
    let last = path.len().saturating_sub(1);
    for (i, (step, n)) in path.into_iter().enumerate() {
        if let Some(b) = blocks.last_mut() {
            b.steps.push(step);
        }
        let s = &arg.node(n).state;
        if i < last && s.pf.length == 0 {
            blocks.push(Block {
                start: s.block_start,
                state: (*s.abstraction).clone(),
                steps: Vec::new(),
            });
            starts.push(n);
        }
    }
    (blocks, starts)
}

/// Where a predicate found by refinement is tracked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PredicateSharing {
    /// Only at the abstraction points where refinement found it.
    Location,
    /// Predicates over global variables only are tracked at every abstraction point (the
    /// state variables of the drivers and protocol machines of sv-benchmarks matter all over
    /// the program; learning them once per location costs a refinement each); predicates
    /// over locals stay at their location.
    #[default]
    Global,
}

/// Where blocks end (seed 000 §III: adjustable block encoding).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BlockEncoding {
    /// Abstraction at loop heads, function entries and exits, and error locations only: a
    /// block is every path between two of them, and `n` branches in a row are `2^n` paths,
    /// each abstracted on its own.
    Loops,
    /// Also where paths join (locations with two or more incoming edges) in functions
    /// without loops or array accesses, whose whole body is otherwise one block: the paths of a branch meet in
    /// one abstraction, and states that abstract alike cover each other there — what merging
    /// the paths of a large block achieves, on an ARG that stays a tree. In a function with
    /// loops every iteration is a block already; there, joins as block ends cost more
    /// refinements than they save (Table II's ssh tasks: s3_clnt_1.cil-1 from 16 s to a 60 s
    /// timeout, one local predicate per join and refinement).
    #[default]
    Joins,
}

/// Options of the predicate analysis beyond the engine's.
#[derive(Debug, Clone, Copy)]
pub struct PredicateOptions {
    pub solver: SolverConfig,
    /// Cube limit of the Boolean abstraction.
    pub abstraction_limit: usize,
    /// Counterexamples whose path has more steps than this are not analysed but cut (seed
    /// 000 Fig. 7 "size of path formula"); `None`: no limit.
    pub max_path_formula: Option<u64>,
    pub refinement: RefinementOptions,
    pub sharing: PredicateSharing,
    pub encoding: BlockEncoding,
}

impl Default for PredicateOptions {
    fn default() -> Self {
        PredicateOptions {
            solver: SolverConfig::default(),
            abstraction_limit: DEFAULT_ABSTRACTION_LIMIT,
            max_path_formula: None,
            refinement: RefinementOptions::default(),
            sharing: PredicateSharing::default(),
            encoding: BlockEncoding::default(),
        }
    }
}

/// Lazy abstraction: removes everything below the block start `node`, so that its block is
/// expanded again with the current precision.
fn reexpand(engine: &mut Engine<'_, PredicateCpa<'_>>, node: NodeId) {
    let children: Vec<NodeId> = engine.arg().node(node).children.iter().map(|&(_, c)| c).collect();
    for c in children {
        engine.remove_subtree(c);
    }
}

/// Decides about a target node: confirm a feasible path, refine for an infeasible one.
fn on_target(
    engine: &mut Engine<'_, PredicateCpa<'_>>,
    node: NodeId,
    options: &PredicateOptions,
    previous: Option<&Previous>,
) -> TargetDecision {
    let program = engine.program();
    let (blocks, starts) = blocks_to(engine.arg(), node);
    let steps: Vec<Step> = blocks.iter().flat_map(|b| b.steps.iter().copied()).collect();
    if let Some(max) = options.max_path_formula {
        if steps.len() as u64 > max {
            return TargetDecision::NotConfirmed(format!("path-formula-size={max}"));
        }
    }
    // A path without nondet values that the program's run takes (recursion on constants:
    // fib(20) makes 21,891 calls) is confirmed without building its formula.
    if nondet_free(program, &steps) && is_the_run_to_error(program, &steps) {
        return confirm_path(program, steps, &options.solver);
    }
    let analysis = refinement::analyse(
        &blocks,
        &engine.precision,
        program,
        &options.solver,
        options.refinement,
    );
    match analysis {
        Err(e) => TargetDecision::NotConfirmed(format!("refinement failed: {e}")),
        // The path formula excludes undefined behaviour; the replay checks the values.
        Ok(Refinement::Feasible(_)) => confirm_path(program, steps, &options.solver),
        Ok(Refinement::Refined { pivot, predicates }) => {
            let Some(&start) = starts.get(pivot) else {
                return TargetDecision::NotConfirmed(format!("refinement pivot {pivot} out of range"));
            };
            for lp in predicates {
                for p in lp.predicates {
                    let over_globals = p.vars().iter().all(|v| {
                        program
                            .variables
                            .get(v.index())
                            .is_some_and(|x| x.scope == Scope::Global)
                    });
                    if options.sharing == PredicateSharing::Global && over_globals {
                        engine.precision.add_global(p);
                    } else {
                        engine.precision.add(lp.location, p);
                    }
                }
            }
            reexpand(engine, start);
            TargetDecision::Refined
        }
        Ok(Refinement::NoProgress { pivot }) => {
            // Predicates shared from elsewhere may be tracked now at a block start whose
            // abstraction predates them: recompute from the first such block instead of
            // giving up.
            let stale = (pivot + 1..starts.len()).find(|&i| {
                let state = &engine.arg().node(starts[i]).state;
                engine
                    .precision
                    .predicates_at(state.block_start)
                    .iter()
                    .any(|p| !state.tracked.contains(p))
            });
            if let Some(i) = stale {
                reexpand(engine, starts[i - 1]);
                return TargetDecision::Refined;
            }
            // A region reused from a previous version's proof may be weaker than the
            // analysis' own abstraction of the new block: the deepest one on the path is
            // abstracted anew (again and again, while there are some).
            let reused = (1..starts.len())
                .rev()
                .find_map(|i| Some((i, engine.arg().node(starts[i]).state.proof?.node)));
            if let (Some(previous), Some((i, old))) = (previous, reused) {
                previous.ban(old);
                reexpand(engine, starts[i - 1]);
                return TargetDecision::Refined;
            }
            TargetDecision::NotConfirmed("refinement found no new predicates".into())
        }
        Ok(Refinement::Unknown(why)) => TargetDecision::NotConfirmed(format!("solver: {why}")),
    }
}

/// Loop-head invariants from the ARG: for each loop head with states, the disjunction of the
/// abstract states of its live, not covered states, as C expressions over names a witness can
/// use there. Valid invariants only when the analysis proved the program (`true`) without a
/// guide (with a guide, paths the guide accepted were not explored).
pub fn loop_invariants(arg: &Arg<PredicateState>, program: &Program) -> Vec<(LocId, String)> {
    let mut per_loc: BTreeMap<LocId, Vec<String>> = BTreeMap::new();
    for id in arg.live_ids() {
        let n = arg.node(id);
        if !matches!(n.status, NodeStatus::Expanded | NodeStatus::Waiting) {
            continue;
        }
        let loc = n.control.location;
        if !program.location(loc).loop_head || n.state.pf.length != 0 {
            continue;
        }
        let inv = n
            .state
            .abstraction
            .invariant_c(program, program.location(loc).func);
        let parts = per_loc.entry(loc).or_default();
        if !parts.contains(&inv) {
            parts.push(inv);
        }
    }
    per_loc
        .into_iter()
        .map(|(loc, parts)| {
            let expr = if parts.iter().any(|p| p == "1") {
                "1".to_string()
            } else if parts.len() == 1 {
                parts[0].clone()
            } else {
                let wrapped: Vec<String> = parts.iter().map(|p| format!("({p})")).collect();
                wrapped.join(" || ")
            };
            (loc, expr)
        })
        .collect()
}

/// Runs the predicate analysis to a verdict with explicit predicate options; `guide` is a
/// condition of earlier stages whose covered paths are not explored again.
pub fn verify_with(
    program: &Program,
    options: &AnalysisOptions,
    predicate: &PredicateOptions,
    guide: Option<&dyn Guide>,
) -> AnalysisOutcome {
    run(program, options, predicate, guide, None, |_, _| ()).0
}

/// Runs the predicate analysis to a verdict, continuing from a previous version's proof where
/// it conforms (seed 002); `finish` looks at the final engine (ARG and precision) once the
/// outcome is known.
pub fn run<T>(
    program: &Program,
    options: &AnalysisOptions,
    predicate: &PredicateOptions,
    guide: Option<&dyn Guide>,
    previous: Option<&Previous>,
    finish: impl FnOnce(&Engine<'_, PredicateCpa<'_>>, &AnalysisOutcome) -> T,
) -> (AnalysisOutcome, T) {
    // Solver queries end by the cpu-time deadline (the engine's, counted from a little later).
    let deadline = options
        .cpu_time_limit()
        .map(|limit| last_query(CpuDeadline::after(limit)));
    let predicate = &PredicateOptions {
        solver: predicate
            .solver
            .until(deadline)
            .within_memory(options.memory_limit()),
        ..*predicate
    };
    let cpa = PredicateCpa::new(
        program,
        predicate.solver,
        predicate.abstraction_limit,
        predicate.encoding,
    )
    .continuing(previous);
    // Recursion is explored up to the `recursion-depth` give-up (the engine's default without
    // one); deeper calls are cut and go into the condition.
    let mut engine = Engine::new(program, cpa, options.order, options.give_up.clone(), guide);
    if let Some(previous) = previous {
        engine.precision = previous.precision().clone();
    }
    let mut outcome = run_to_verdict(&mut engine, |engine, node| {
        on_target(engine, node, predicate, previous)
    });
    if outcome.verdict == Verdict::True && guide.is_none() {
        outcome.invariants = loop_invariants(engine.arg(), program);
    }
    outcome.predicates = engine.precision.len();
    let finished = finish(&engine, &outcome);
    (outcome, finished)
}

impl PredicateOptions {
    /// The defaults, with `path-formula-size` among the give-up conditions limiting the
    /// counterexamples refined.
    pub fn for_analysis(options: &AnalysisOptions) -> PredicateOptions {
        let max_path_formula = options.give_up.iter().find_map(|g| match g {
            GiveUp::PathFormulaSize(n) => Some(*n),
            _ => None,
        });
        PredicateOptions {
            max_path_formula,
            ..PredicateOptions::default()
        }
    }
}

/// Runs the predicate analysis to a verdict (`path-formula-size` among the give-up conditions
/// limits the counterexamples it refines).
pub fn verify(program: &Program, options: &AnalysisOptions, guide: Option<&dyn Guide>) -> AnalysisOutcome {
    verify_with(program, options, &PredicateOptions::for_analysis(options), guide)
}
