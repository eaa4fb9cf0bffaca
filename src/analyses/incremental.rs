//! Incremental re-verification of a changed program (seed 002, *Extreme Model Checking*, §3):
//! the predicate analysis of a new version walks the ARG saved for an old version
//! ([`Proof`]) in lock-step with its own exploration, and reuses each old reachable region
//! that still holds, so that only the frontier where the old proof breaks is explored anew.
//!
//! - *matchEdges* (Alg. 2): the steps out of a new state are matched to the children of the
//!   old node it follows. Branches match only a syntactically identical condition (after the
//!   variables are mapped by name, a function's renamed locals by position); a basic-block
//!   edge matches the old one edge of a node with one edge. A line diff of the two sources ([`similar`]) makes the walk robust to inserted
//!   and deleted lines: a new statement on an inserted line is stepped over (the new state
//!   keeps following the same old node), an old statement on a deleted line is skipped.
//! - *checkConformance* (Alg. 1): where the new exploration reaches a block start, the old
//!   node's region `r̄` is reused if `sp(r, block) ⇒ r̄` holds for the new block — the seed's
//!   test that the weakest preconditions of the tracked predicates are unchanged, decided with
//!   Z3 (a rename of an auxiliary variable or an added assignment to an untracked one passes;
//!   the query is skipped when the block's operations are the old ones). Otherwise the
//!   state is abstracted as usual and exploration goes on from there without the old proof:
//!   that state is on the frontier.
//! - Re-matching after the frontier ([`Previous::anchor`]): a state explored anew at a block
//!   start whose abstract state entails the region of an old node at the same location
//!   follows that node again, so that a change in one place (a branch added at the start of
//!   a function every loop iteration calls) does not discard the proof everywhere after it.
//!
//! Soundness does not depend on the matching: every reused region is implied by the new
//! program's own path formula, every step of the new CFA is explored, and coverage, targets,
//! refinement and counterexample replay are the analysis' own. A non-conforming proof only
//! costs reuse.

use crate::analyses::predicate::abstraction::{AbstractState, Precision, Predicate};
use crate::analyses::predicate::cpa::PredicateOptions;
use crate::analyses::predicate::cpa::PredicateState;
use crate::analyses::predicate::formula::PathFormula;
use crate::analyses::predicate::proof::{
    Proof, ProofAnalysis, ProofError, ProofNode, ProofStatus, ProofStep,
};
use crate::analyses::predicate::solver::{Satisfiability, SolverConfig};
use crate::analyses::{predicate, AnalysisOptions, AnalysisOutcome};
use crate::cfa::expr::{Expr, ExprKind};
use crate::cfa::{EdgeId, FuncId, LocId, LocationKind, Operation, Program, Scope, SourceLoc, VarId};
use crate::cpa::arg::{Arg, NodeId};
use crate::cpa::engine::Guide;
use crate::cpa::Step;
use crate::verdict::Verdict;
use serde::{Deserialize, Serialize};
use similar::{capture_diff_slices, Algorithm, DiffTag};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use z3::ast::Bool;

/// Least share of source lines a new version must have in common with the proof's program.
pub const MIN_SHARED_LINES: f64 = 0.5;

/// Why a proof cannot be used for a program.
#[derive(Debug, thiserror::Error)]
pub enum IncrementalError {
    #[error(transparent)]
    Proof(#[from] ProofError),
    #[error(
        "{proof}: a proof of another program ({old}, sha256 {hash}): only {share:.0} % of its lines \
         are in {new}, at least {min:.0} % needed for a version of it"
    )]
    OtherProgram {
        proof: PathBuf,
        old: String,
        hash: String,
        new: String,
        share: f64,
        min: f64,
    },
    #[error("{proof}: the proof was made for {what}")]
    OtherSemantics { proof: PathBuf, what: String },
    #[error("{proof}: a proof of the {found} analysis, not of the {wanted} analysis")]
    OtherAnalysis {
        proof: PathBuf,
        found: ProofAnalysis,
        wanted: ProofAnalysis,
    },
}

/// How a new source line relates to the old program's lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineChange {
    Same,
    Changed,
    Inserted,
}

/// The old node a new state follows in the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProofTrack {
    /// Index of the old node.
    pub node: u32,
    /// Every operation since the block start is the old one (after mapping variables) and the
    /// block start reused the old region: the old child's region holds without a query.
    pub identical: bool,
    /// The state steps over an inserted statement: it follows `node` without being it.
    pub stutter: bool,
}

/// A proof prepared for a new program: the old variables, functions and lines mapped to the
/// new ones, regions translated.
#[derive(Debug)]
pub struct Previous {
    proof: Proof,
    regions: Vec<Option<Rc<AbstractState>>>,
    tracked: Vec<Vec<Predicate>>,
    vars: Vec<Option<VarId>>,
    funcs: Vec<Option<FuncId>>,
    new_lines: Vec<LineChange>,
    old_changed: Vec<bool>,
    baseline: Precision,
    /// Old locations to new ones (by function, kind and line).
    locations: HashMap<LocId, LocId>,
    /// Per new location, the expanded old nodes with a region at the old location it is:
    /// where a state explored anew meets the old proof again ([`Previous::anchor`]).
    anchors: HashMap<LocId, Vec<u32>>,
    /// Program start means the same in both versions (every old global, same initial value).
    same_start: bool,
    /// Old nodes whose region must not be reused: refinement found it too weak.
    banned: RefCell<HashSet<u32>>,
}

impl Previous {
    /// Loads the proof at `path` and prepares it for `analysis` of `program`, whose source
    /// text is `source`.
    pub fn load(
        path: &Path,
        analysis: ProofAnalysis,
        program: &Program,
        source: &str,
    ) -> Result<Previous, IncrementalError> {
        let proof = Proof::load(path)?;
        Previous::prepare(proof, path, analysis, program, source)
    }

    /// Prepares a loaded proof; refuses a proof of another analysis, another program or other
    /// C semantics.
    pub fn prepare(
        proof: Proof,
        path: &Path,
        analysis: ProofAnalysis,
        program: &Program,
        source: &str,
    ) -> Result<Previous, IncrementalError> {
        if proof.analysis != analysis {
            return Err(IncrementalError::OtherAnalysis {
                proof: path.to_path_buf(),
                found: proof.analysis,
                wanted: analysis,
            });
        }
        let old = &proof.cfa;
        let semantics = |what: String| IncrementalError::OtherSemantics {
            proof: path.to_path_buf(),
            what,
        };
        if old.data_model != program.data_model {
            return Err(semantics(format!("the data model {:?}", old.data_model)));
        }
        if old.signed_overflow != program.signed_overflow {
            return Err(semantics(format!("signed overflow `{:?}`", old.signed_overflow)));
        }
        let new_lines: Vec<&str> = source.lines().collect();
        let old_lines: Vec<&str> = proof.program.lines.iter().map(String::as_str).collect();
        let mut line_change = vec![LineChange::Changed; new_lines.len()];
        let mut old_changed = vec![false; old_lines.len()];
        let mut old_to_new: Vec<Option<usize>> = vec![None; old_lines.len()];
        let mut shared = 0;
        for op in capture_diff_slices(Algorithm::Myers, &old_lines, &new_lines) {
            let (tag, o, n) = op.as_tag_tuple();
            match tag {
                DiffTag::Equal => {
                    shared += n.len();
                    for (i, j) in o.zip(n) {
                        line_change[j] = LineChange::Same;
                        old_to_new[i] = Some(j);
                    }
                }
                DiffTag::Delete => o.for_each(|i| old_changed[i] = true),
                DiffTag::Insert => n.for_each(|j| line_change[j] = LineChange::Inserted),
                DiffTag::Replace => o.for_each(|i| old_changed[i] = true),
            }
        }
        let share = shared as f64 / old_lines.len().max(new_lines.len()).max(1) as f64;
        if share < MIN_SHARED_LINES {
            return Err(IncrementalError::OtherProgram {
                proof: path.to_path_buf(),
                old: proof.program.file.clone(),
                hash: proof.program.sha256.clone(),
                new: program.files.first().cloned().unwrap_or_default(),
                share: 100.0 * share,
                min: 100.0 * MIN_SHARED_LINES,
            });
        }
        let funcs = map_functions(old, program);
        let vars = map_variables(old, program, &funcs);
        let same_start = old
            .globals()
            .all(|(id, v)| vars[id.index()].is_some_and(|n| program.variable(n).initial == v.initial));
        let predicates: Vec<Option<Predicate>> = proof
            .predicates
            .iter()
            .map(|e| map_expr(e, &vars).and_then(|e| Predicate::from_condition(&e)))
            .collect();
        let pick = |ids: &[u32]| -> Vec<Predicate> {
            ids.iter()
                .filter_map(|&i| predicates.get(i as usize).cloned().flatten())
                .collect()
        };
        let regions: Vec<Option<Rc<AbstractState>>> = (0..proof.nodes.len())
            .map(|i| proof.region(i, &predicates).map(Rc::new))
            .collect();
        let tracked = proof
            .nodes
            .iter()
            .map(|n| n.region.as_ref().map(|r| pick(&r.tracked)).unwrap_or_default())
            .collect();
        let mut baseline = Precision::new();
        for p in pick(&proof.precision.global) {
            baseline.add_global(p);
        }
        let locations = map_locations(old, program, &funcs, &old_to_new);
        let mut anchors: HashMap<LocId, Vec<u32>> = HashMap::new();
        for (i, (node, region)) in proof.nodes.iter().zip(&regions).enumerate() {
            if let (Some(&new), Some(_), ProofStatus::Expanded) =
                (locations.get(&node.location), region, &node.status)
            {
                anchors.entry(new).or_default().push(i as u32);
            }
        }
        for (loc, ids) in &proof.precision.local {
            if let Some(&new) = locations.get(loc) {
                for p in pick(ids) {
                    baseline.add(new, p);
                }
            }
        }
        Ok(Previous {
            regions,
            tracked,
            vars,
            funcs,
            new_lines: line_change,
            old_changed,
            baseline,
            locations,
            anchors,
            same_start,
            proof,
            banned: RefCell::default(),
        })
    }

    /// The precision the new run starts with: the old one, mapped.
    pub fn precision(&self) -> &Precision {
        &self.baseline
    }

    /// Stops reusing the region of old node `node`: refinement found no predicate that
    /// removes a spurious path through it, the analysis' own abstraction may.
    pub fn ban(&self, node: u32) {
        self.banned.borrow_mut().insert(node);
    }

    /// Number of nodes of the old ARG.
    pub fn old_nodes(&self) -> usize {
        self.proof.nodes.len()
    }

    /// Node `i` of the old ARG.
    pub fn old_node(&self, i: u32) -> Option<&ProofNode> {
        self.proof.nodes.get(i as usize)
    }

    /// The old program's CFA.
    pub fn old_program(&self) -> &Program {
        &self.proof.cfa
    }

    /// The new variable an old one is (same name, type and scope, or a renamed local).
    pub fn map_var(&self, old: VarId) -> Option<VarId> {
        self.vars.get(old.index()).copied().flatten()
    }

    /// The new location an old one is (same function, kind and source line), if any.
    pub fn map_location(&self, old: LocId) -> Option<LocId> {
        self.locations.get(&old).copied()
    }

    /// The new function an old one is (same name).
    pub fn map_func(&self, old: FuncId) -> Option<FuncId> {
        self.funcs.get(old.index()).copied().flatten()
    }

    /// matchEdges, exactly: the child of old node `n` by the step whose (mapped) operation is
    /// the new `step`'s, and that step.
    pub fn exact_child(&self, n: u32, step: Step, program: &Program) -> Option<(ProofStep, u32)> {
        let same = |old: EdgeId, new: EdgeId| {
            self.map_op(&self.proof.cfa.edge(old).op).as_ref() == Some(&program.edge(new).op)
        };
        self.proof
            .nodes
            .get(n as usize)?
            .children
            .iter()
            .copied()
            .find(|&(s, _)| match (s, step) {
                (ProofStep::Return(old), Step::Return { call })
                | (ProofStep::Edge(old), Step::Edge(call)) => same(old, call),
                _ => false,
            })
    }

    /// The old operation of `old` maps to the new edge `new`'s.
    pub fn same_operation(&self, old: EdgeId, new: EdgeId, program: &Program) -> bool {
        self.map_op(&self.proof.cfa.edge(old).op).as_ref() == Some(&program.edge(new).op)
    }

    /// The old root, for the new initial state (same entry function).
    pub fn initial(&self, program: &Program) -> Option<ProofTrack> {
        (self.proof.cfa.main().name == program.main().name).then_some(ProofTrack {
            node: 0,
            identical: self.same_start,
            stutter: false,
        })
    }

    fn line_change(&self, source: SourceLoc) -> LineChange {
        let index = (source.line as usize).checked_sub(1);
        match index.and_then(|i| self.new_lines.get(i)) {
            Some(&change) if source.file == 0 => change,
            _ => LineChange::Same,
        }
    }

    /// The old statement's line was deleted or changed.
    fn old_line_changed(&self, source: SourceLoc) -> bool {
        let index = (source.line as usize).checked_sub(1);
        source.file == 0
            && index
                .and_then(|i| self.old_changed.get(i))
                .copied()
                .unwrap_or(false)
    }

    /// The old operation mapped into the new program's ids (`None` if something is missing).
    fn map_op(&self, op: &Operation) -> Option<Operation> {
        map_operation(op, &self.vars, &self.funcs)
    }

    /// The expanded old node a covered one stands for (its cover, transitively).
    fn expanded(&self, mut n: u32) -> Option<u32> {
        for _ in 0..self.proof.nodes.len() {
            match &self.proof.nodes.get(n as usize)?.status {
                ProofStatus::Expanded => return Some(n),
                ProofStatus::CoveredBy(m) => n = *m,
                ProofStatus::Frontier(_) => return None,
            }
        }
        None
    }

    /// matchEdges: the old node a new state's successor by `step` follows, if any.
    pub fn follow(&self, track: ProofTrack, step: Step, program: &Program) -> Option<ProofTrack> {
        let mut n = self.expanded(track.node)?;
        let mut identical = track.identical;
        let children = |n: u32| &self.proof.nodes[n as usize].children;
        let advance = |node: u32, identical: bool| ProofTrack {
            node,
            identical,
            stutter: false,
        };
        let call = match step {
            Step::Return { call } => {
                return children(n).iter().find_map(|&(s, c)| match s {
                    ProofStep::Return(old_call) => Some(advance(
                        c,
                        identical && self.same_operation(old_call, call, program),
                    )),
                    ProofStep::Edge(_) => None,
                });
            }
            Step::Edge(e) => e,
        };
        let edge = program.edge(call);
        let exact = |n: u32| self.exact_child(n, step, program).map(|(_, c)| c);
        let single_old = |n: u32| match children(n).as_slice() {
            [(ProofStep::Edge(old), c)] => Some((&self.proof.cfa.edge(*old).op, *old, *c)),
            _ => None,
        };
        let new_line = self.line_change(edge.source);
        let one_edge = program.out_edges(edge.from).len() == 1;
        loop {
            if let Some(c) = exact(n) {
                return Some(advance(c, identical));
            }
            let Some((old_op, old, c)) = single_old(n) else {
                break;
            };
            let old_changed = self.old_line_changed(self.proof.cfa.edge(old).source);
            // A changed statement for a changed one.
            if one_edge && old_changed && new_line == LineChange::Changed && self.compatible(old_op, &edge.op)
            {
                return Some(advance(c, false));
            }
            // An old statement on a deleted or changed line is skipped.
            match self.expanded(c) {
                Some(c) if old_changed && !structural(old_op) && c != n => {
                    n = c;
                    identical = false;
                }
                _ => break,
            }
        }
        // A new statement or branch on an inserted or changed line is stepped over: a branch
        // put in front of an old one (`if (new) … else if (old)`) is often a changed line of
        // the diff, and the old branch after it matches again.
        let steps_over = new_line != LineChange::Same && !structural(&edge.op);
        if steps_over {
            return Some(ProofTrack {
                node: n,
                identical: false,
                stutter: true,
            });
        }
        // A basic block against a basic block: the region check decides.
        match single_old(n) {
            Some((old_op, _, c)) if one_edge && self.compatible(old_op, &edge.op) => Some(advance(c, false)),
            _ => None,
        }
    }

    /// Re-matching after the frontier (seed 002's Alg. 1 from a new state): an old node the
    /// new state at block start `location` with abstract state `state` can follow, an
    /// expanded old node at the old location `location` is whose region `state` entails
    /// (decided without the solver). From there the old subtree is reused as from a
    /// conforming node: its regions over-approximate what the old blocks reach from a weaker
    /// state, and the new blocks are checked against the old ones edge by edge as always.
    pub fn anchor(&self, location: LocId, state: &AbstractState) -> Option<ProofTrack> {
        let banned = self.banned.borrow();
        self.anchors.get(&location)?.iter().find_map(|&node| {
            let region = self.regions.get(node as usize)?.as_ref()?;
            (!banned.contains(&node) && state.entails_without_solver(region) == Some(true)).then_some(
                ProofTrack {
                    node,
                    identical: true,
                    stutter: false,
                },
            )
        })
    }

    /// Two single edges may stand for each other: neither is a branch, and calls go to the
    /// same function (the control flow after them is the same).
    fn compatible(&self, old: &Operation, new: &Operation) -> bool {
        match (old, new) {
            (Operation::Assume { .. }, _) | (_, Operation::Assume { .. }) => false,
            (Operation::Call { callee: a, .. }, Operation::Call { callee: b, .. }) => {
                self.funcs.get(a.index()).copied().flatten() == Some(*b)
            }
            _ => std::mem::discriminant(old) == std::mem::discriminant(new),
        }
    }

    /// checkConformance at a block start: the old node's region if the new block's path
    /// formula `pf` implies it. Where the new run tracks predicates the old region was not
    /// computed over (its refinements), the old region is conjoined with `abstract_new`'s
    /// abstraction of the block over just those predicates: an over-approximation of the
    /// block (both parts are implied by `pf`) that entails the old region (so the old subtree
    /// still applies), at the cost of an abstraction over the few new predicates instead of
    /// all (if it is too weak for a refinement, the node is banned and abstracted anew).
    /// `None` puts the state on the frontier.
    pub fn reuse(
        &self,
        track: ProofTrack,
        pf: &PathFormula,
        predicates: &[Predicate],
        program: &Program,
        config: &SolverConfig,
        abstract_new: impl FnOnce(&[Predicate]) -> AbstractState,
    ) -> Option<AbstractState> {
        if track.stutter || self.banned.borrow().contains(&track.node) {
            return None;
        }
        let region = self.regions.get(track.node as usize)?.as_ref()?;
        let tracked = &self.tracked[track.node as usize];
        if !track.identical && !region.is_top() {
            let query = Bool::and(&[pf.formula.clone(), region.to_formula(&pf.ssa, program).not()]);
            if !matches!(config.check(&query), Satisfiability::Unsat) {
                return None;
            }
        }
        let new: Vec<Predicate> = predicates
            .iter()
            .filter(|p| !tracked.contains(p))
            .cloned()
            .collect();
        if new.is_empty() {
            return Some((**region).clone());
        }
        Some(region.conjoin(&abstract_new(&new)))
    }
}

/// What a run on an old proof reused.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReuseStats {
    /// Nodes of the old ARG.
    pub old_nodes: usize,
    /// Old nodes some state of the new ARG is (matched, region conforming).
    pub reused_nodes: usize,
    /// States explored anew (beyond the frontier, or stepping over inserted statements).
    pub new_states: usize,
    /// New states whose parent followed the old proof and which do not: where it broke.
    pub frontier: usize,
}

impl ReuseStats {
    /// Counts the final ARG of a run on `previous`.
    pub fn of(arg: &Arg<PredicateState>, previous: &Previous) -> ReuseStats {
        let mut stats = ReuseStats {
            old_nodes: previous.old_nodes(),
            ..ReuseStats::default()
        };
        let mut old = HashSet::new();
        for id in arg.live_ids() {
            let node = arg.node(id);
            if let Some(t) = node.state.proof.filter(|t| !t.stutter) {
                old.insert(t.node);
                continue;
            }
            stats.new_states += 1;
            let followed = |n: NodeId| arg.node(n).state.proof.is_some();
            if !followed(id) && node.parent.is_some_and(|(p, _)| followed(p)) {
                stats.frontier += 1;
            }
        }
        stats.reused_nodes = old.len();
        stats
    }
}

/// A predicate-analysis run that may start from a previous version's proof and may record
/// its own.
#[derive(Debug)]
pub struct IncrementalOutcome {
    pub outcome: AnalysisOutcome,
    /// What was reused, for a run on a previous proof.
    pub reuse: Option<ReuseStats>,
    /// The run's own proof, when asked for and not [`keeps_previous`] (an error if it cannot
    /// be recorded: the verdict stands).
    pub proof: Option<Result<Proof, ProofError>>,
}

/// A run on a previous proof that does not prove its version leaves that proof, not its own,
/// for the next version when the previous one is complete or the run found a bug: a `false`
/// run's ARG stops at the counterexample and a cut run's ARG at its budget (the rest of it is
/// frontier, explored again by the next version), while the previous proof is the last one
/// of an ancestor. The fix of a bug then re-verifies from the proof of the version before the
/// bug, and a version the budget cut does not lose its predecessor's proof. Reuse is sound
/// from any proof (see the module documentation), so an older one only changes how much
/// conforms.
pub fn keeps_previous(verdict: Verdict, previous: Option<&Previous>) -> bool {
    previous.is_some_and(|p| match verdict {
        Verdict::True => false,
        Verdict::False => true,
        Verdict::Unknown => p.proof.verdict == Verdict::True.benchexec(),
    })
}

/// Runs the predicate analysis on `program` (source text `source`), reusing `previous` where
/// it conforms and recording the final ARG and precision as a proof if `record`.
pub fn verify(
    program: &Program,
    source: &str,
    options: &AnalysisOptions,
    guide: Option<&dyn Guide>,
    previous: Option<&Previous>,
    record: bool,
) -> IncrementalOutcome {
    let predicate = PredicateOptions::for_analysis(options);
    let (outcome, (reuse, proof)) = predicate::cpa::run(
        program,
        options,
        &predicate,
        guide,
        previous,
        |engine, outcome| {
            let reuse = previous.map(|p| ReuseStats::of(engine.arg(), p));
            let proof = (record && !keeps_previous(outcome.verdict, previous)).then(|| {
                Proof::record(
                    engine.arg(),
                    &engine.precision,
                    program,
                    source,
                    outcome.verdict.benchexec(),
                )
            });
            (reuse, proof)
        },
    );
    IncrementalOutcome {
        outcome,
        reuse,
        proof,
    }
}

/// Operations that change the control state beyond the next location: they are never
/// stepped over.
fn structural(op: &Operation) -> bool {
    matches!(
        op,
        Operation::Call { .. } | Operation::Return { .. } | Operation::Error { .. }
    )
}

fn map_functions(old: &Program, new: &Program) -> Vec<Option<FuncId>> {
    let by_name: HashMap<&str, FuncId> = new
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.as_str(), FuncId(i as u32)))
        .collect();
    old.functions
        .iter()
        .map(|f| by_name.get(f.name.as_str()).copied())
        .collect()
}

/// Old variables to new ones of the same (qualified) name, type and scope, or renamed locals.
fn map_variables(old: &Program, new: &Program, funcs: &[Option<FuncId>]) -> Vec<Option<VarId>> {
    let by_name: HashMap<&str, VarId> = new
        .variables
        .iter()
        .enumerate()
        .map(|(i, v)| (v.name.as_str(), VarId(i as u32)))
        .collect();
    let mut map: Vec<Option<VarId>> = old
        .variables
        .iter()
        .map(|v| {
            let id = *by_name.get(v.name.as_str())?;
            let n = new.variable(id);
            let same_scope = match (v.scope, n.scope) {
                (Scope::Global, Scope::Global) => true,
                (Scope::Local(f), Scope::Local(g)) => funcs.get(f.index()).copied().flatten() == Some(g),
                _ => false,
            };
            (same_scope && n.ty == v.ty).then_some(id)
        })
        .collect();
    // Renamed locals (seed 002): a function whose locals have other names but the same
    // number and types, in declaration order, maps them by position. Any injective mapping
    // is sound (a program's meaning does not depend on its variables' names); the region
    // checks decide whether the old proof still applies.
    let locals = |p: &Program, f: FuncId| -> Vec<VarId> {
        (0..p.variables.len())
            .map(|i| VarId(i as u32))
            .filter(|&v| p.variable(v).scope == Scope::Local(f))
            .collect()
    };
    for (f, g) in funcs.iter().enumerate() {
        let Some(g) = *g else { continue };
        let (old_locals, new_locals) = (locals(old, FuncId(f as u32)), locals(new, g));
        let names = |p: &Program, vs: &[VarId]| -> HashSet<String> {
            vs.iter().map(|&v| p.variable(v).name.clone()).collect()
        };
        let renamed = old_locals.len() == new_locals.len()
            && names(old, &old_locals) != names(new, &new_locals)
            && old_locals.iter().zip(&new_locals).all(|(&a, &b)| {
                let (a, b) = (old.variable(a), new.variable(b));
                a.ty == b.ty && a.array == b.array && a.temporary == b.temporary
            });
        if renamed {
            for (a, b) in old_locals.into_iter().zip(new_locals) {
                map[a.index()] = Some(b);
            }
        }
    }
    map
}

/// Old locations to new ones, for the precision: function entries and exits by function,
/// other locations by function, kind and the line their first edge is on.
fn map_locations(
    old: &Program,
    new: &Program,
    funcs: &[Option<FuncId>],
    old_to_new: &[Option<usize>],
) -> HashMap<LocId, LocId> {
    let line = |p: &Program, loc: LocId| {
        p.out_edges(loc)
            .iter()
            .map(|&e| p.edge(e).source)
            .filter(|s| s.file == 0 && s.line > 0)
            .map(|s| s.line as usize - 1)
            .min()
    };
    let key = |p: &Program, loc: LocId, line: usize| {
        let l = p.location(loc);
        (l.func, l.loop_head, matches!(l.kind, LocationKind::Error), line)
    };
    let mut by_key = HashMap::new();
    for i in 0..new.locations.len() {
        let loc = LocId(i as u32);
        if let Some(l) = line(new, loc) {
            by_key.entry(key(new, loc, l)).or_insert(loc);
        }
    }
    let mut map = HashMap::new();
    for (f, g) in old.functions.iter().zip(funcs) {
        if let Some(g) = g {
            map.insert(f.entry, new.function(*g).entry);
            map.insert(f.exit, new.function(*g).exit);
        }
    }
    for i in 0..old.locations.len() {
        let loc = LocId(i as u32);
        let Some(func) = funcs.get(old.location(loc).func.index()).copied().flatten() else {
            continue;
        };
        let Some(l) = line(old, loc).and_then(|l| old_to_new.get(l).copied().flatten()) else {
            continue;
        };
        let (_, head, error, _) = key(old, loc, l);
        if let Some(&n) = by_key.get(&(func, head, error, l)) {
            map.entry(loc).or_insert(n);
        }
    }
    map
}

fn map_expr(e: &Expr, vars: &[Option<VarId>]) -> Option<Expr> {
    let kind = match &e.kind {
        ExprKind::Const(c) => ExprKind::Const(*c),
        // Addresses are placed per program: a changed program may place them elsewhere.
        ExprKind::Address { .. } | ExprKind::Function { .. } => return None,
        ExprKind::Var(v) => ExprKind::Var(vars.get(v.index()).copied().flatten()?),
        ExprKind::Unary(op, a) => ExprKind::Unary(*op, Box::new(map_expr(a, vars)?)),
        ExprKind::Binary(op, a, b) => {
            ExprKind::Binary(*op, Box::new(map_expr(a, vars)?), Box::new(map_expr(b, vars)?))
        }
        ExprKind::Cast(a) => ExprKind::Cast(Box::new(map_expr(a, vars)?)),
        ExprKind::Bitcast(a) => ExprKind::Bitcast(Box::new(map_expr(a, vars)?)),
    };
    Some(Expr { kind, ty: e.ty })
}

fn map_operation(op: &Operation, vars: &[Option<VarId>], funcs: &[Option<FuncId>]) -> Option<Operation> {
    let var = |v: &VarId| vars.get(v.index()).copied().flatten();
    let expr = |e: &Expr| map_expr(e, vars);
    let opt_expr = |e: &Option<Expr>| match e {
        Some(e) => expr(e).map(Some),
        None => Some(None),
    };
    let opt_var = |v: &Option<VarId>| match v {
        Some(v) => var(v).map(Some),
        None => Some(None),
    };
    Some(match op {
        Operation::Skip => Operation::Skip,
        Operation::Declare { var: v, init } => Operation::Declare {
            var: var(v)?,
            init: opt_expr(init)?,
        },
        Operation::Assign { lhs, rhs } => Operation::Assign {
            lhs: var(lhs)?,
            rhs: expr(rhs)?,
        },
        Operation::Load { lhs, array, index } => Operation::Load {
            lhs: var(lhs)?,
            array: var(array)?,
            index: index.iter().map(expr).collect::<Option<_>>()?,
        },
        Operation::Store { array, index, rhs } => Operation::Store {
            array: var(array)?,
            index: index.iter().map(expr).collect::<Option<_>>()?,
            rhs: expr(rhs)?,
        },
        Operation::Nondet { lhs, ty, function } => Operation::Nondet {
            lhs: opt_var(lhs)?,
            ty: *ty,
            function: function.clone(),
        },
        Operation::Assume { cond, branch } => Operation::Assume {
            cond: expr(cond)?,
            branch: *branch,
        },
        Operation::External {
            function,
            args,
            result,
        } => Operation::External {
            function: function.clone(),
            args: args.iter().map(expr).collect::<Option<_>>()?,
            result: opt_var(result)?,
        },
        Operation::Call { callee, args, result } => Operation::Call {
            callee: funcs.get(callee.index()).copied().flatten()?,
            args: args.iter().map(expr).collect::<Option<_>>()?,
            result: opt_var(result)?,
        },
        Operation::Return { value } => Operation::Return {
            value: opt_expr(value)?,
        },
        Operation::Error { function } => Operation::Error {
            function: function.clone(),
        },
        Operation::Abort { function } => Operation::Abort {
            function: function.clone(),
        },
        Operation::Exit { code } => Operation::Exit { code: expr(code)? },
        Operation::Undefined { what } => Operation::Undefined { what: *what },
        // What these read or write depends on where objects are placed (see `map_expr`).
        Operation::LoadPtr { .. }
        | Operation::StorePtr { .. }
        | Operation::Alloc { .. }
        | Operation::Free { .. }
        | Operation::Library { .. } => return None,
    })
}
