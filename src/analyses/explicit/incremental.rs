//! Incremental re-verification with the explicit-value analysis (seed 002 adapted to values):
//! the proof a run leaves ([`Proof`], analysis `explicit`) records each ARG node's known
//! values; a later version's run rebuilds the part of the old ARG that still conforms before it
//! explores anything, and explores only from the frontier where the old proof breaks.
//!
//! An explicit state's successor is a function of its values and the step's operation, so the
//! seed's conformance check (Alg. 1) needs no solver here: starting from the root, whose new
//! initial state must equal the old one, a new node that is an old expanded node (same values)
//! takes over the old node's children without any transfer when its location *conforms*:
//!
//! - its steps match the old location's steps one to one by (mapped) operation (*matchEdges*,
//!   [`Previous::exact_child`] and [`Previous::same_operation`], shared with the predicate
//!   analysis): so every successor has the old child's values, and a step without an old child
//!   was infeasible (the old node was fully expanded) and still is;
//! - the locals live at each step's target are the old target's (the analysis drops dead
//!   values there), every variable the operations use has the old type and array shape, and
//!   the functions called and returned from have the old parameters and return variable;
//! - no successor is at an error location (the engine's own exploration reports targets) and
//!   every old child's values are recorded (states that know array elements, heap blocks or
//!   saved frames of recursive calls are not, and nothing is reused on a recursive program).
//!
//! Globals the old program does not have (a new version's logging, say) are no obstacle: no
//! operation reused reads or writes them, so their values pass from a node to its successors
//! unchanged; the other values must be the old node's.
//!
//! Old covered children are checked for a cover in the new ARG; old frontier children (waiting,
//! cut, a target's siblings) and every node whose location does not conform are queued and
//! explored by the analysis as usual. Soundness does not rest on the old run: the rebuilt part
//! is exactly the ARG the transfer would build (only cover checks are skipped, which costs at
//! most extra exploration), and targets, counterexample replay and give-ups are the analysis'
//! own. Grafting stops at the CPU-time give-up's deadline; what is left is queued.

use super::{ExplicitCpa, ExplicitState, KnownHeap, KnownValues};
use crate::analyses::incremental::{keeps_previous, IncrementalOutcome, Previous, ReuseStats};
use crate::analyses::predicate::proof::{Proof, ProofAnalysis, ProofStatus, ProofStep};
use crate::analyses::AnalysisOptions;
use crate::cfa::{EdgeId, FuncId, LocId, Program, Scope, VarId};
use crate::cpa::arg::{Arg, NodeId};
use crate::cpa::engine::{Guide, Reuse};
use crate::cpa::Step;
use rustc_hash::FxHashSet;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// Runs the explicit-value analysis on `program` (source text `source`), rebuilding the part
/// of `previous` that conforms first, and records the final ARG as a proof if `record`.
pub fn verify(
    program: &Program,
    source: &str,
    options: &AnalysisOptions,
    guide: Option<&dyn Guide>,
    previous: Option<&Previous>,
    record: bool,
) -> IncrementalOutcome {
    let (outcome, (reuse, proof)) = super::run(
        program,
        options,
        guide,
        |engine| {
            let graft = Rc::new(RefCell::new(Graft::new(previous?, program)));
            engine.reuse(Box::new(Rc::clone(&graft)));
            Some(graft)
        },
        |engine, outcome, graft| {
            let reuse = previous
                .zip(graft)
                .map(|(p, graft)| stats(engine.arg(), p, &graft.borrow().grafted));
            let proof = (record && !keeps_previous(outcome.verdict, previous)).then(|| {
                Proof::record_nodes(
                    engine.arg(),
                    program,
                    source,
                    outcome.verdict.benchexec(),
                    ProofAnalysis::Explicit,
                    |state| (None, recorded_values(state, program)),
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

/// The values a proof records of a state: `None` where it knows array elements, signs of
/// comparison results, has saved frames or heap blocks (not recorded, never reused).
fn recorded_values(state: &ExplicitState, program: &Program) -> Option<Vec<(VarId, i128)>> {
    let plain = state.arrays == Default::default()
        && state.signs.is_empty()
        && state.saved.pop().is_none()
        && state.heap.is_empty(program.data_model.pointer_bits());
    plain.then(|| state.values.iter().map(|(&v, &x)| (v, x)).collect())
}

/// The new nodes rebuilt from old ones: new node → old node.
type Grafted = HashMap<NodeId, u32>;

/// What a run on an old proof reused: old nodes rebuilt, states explored anew, and those of
/// them whose parent was rebuilt (where the old proof broke).
fn stats(arg: &Arg<ExplicitState>, previous: &Previous, grafted: &Grafted) -> ReuseStats {
    let mut stats = ReuseStats {
        old_nodes: previous.old_nodes(),
        reused_nodes: grafted.values().collect::<HashSet<_>>().len(),
        ..ReuseStats::default()
    };
    for id in arg.live_ids().filter(|id| !grafted.contains_key(id)) {
        stats.new_states += 1;
        if arg.node(id).parent.is_some_and(|(p, _)| grafted.contains_key(&p)) {
            stats.frontier += 1;
        }
    }
    stats
}

/// The old proof's nodes rebuilt in the new ARG (the engine asks before each expansion).
struct Graft<'a> {
    previous: &'a Previous,
    program: &'a Program,
    /// Nothing is reused on a recursive program or one with another entry function.
    usable: bool,
    /// Liveness of the old program's locals.
    old_cpa: ExplicitCpa,
    new_cpa: ExplicitCpa,
    /// Per old variable: its new variable with the same type and array shape.
    vars: Vec<Option<VarId>>,
    /// Per new variable: it is one of `vars`.
    mapped: Vec<bool>,
    /// Per new variable: a scalar global the old program does not have.
    new_global: Vec<bool>,
    /// Per new function: its old one has the same parameters and return variable.
    same_signature: Vec<bool>,
    /// Conformance of (old target, new target) by their live locals, computed once.
    live_same: HashMap<(LocId, LocId), bool>,
    /// Whether an old edge's (mapped) operation is a new edge's, computed once.
    same_op: HashMap<(EdgeId, EdgeId), bool>,
    /// Old expanded nodes by their (mapped) location and values: where a state explored anew
    /// meets the old proof again.
    old_states: HashMap<(LocId, KnownValues), Vec<u32>>,
    /// New nodes that are old ones (same values, conforming location).
    grafted: Grafted,
    /// The old nodes of the successors last given, in order.
    pending: Vec<u32>,
}

impl Reuse<ExplicitState> for Rc<RefCell<Graft<'_>>> {
    fn successors(
        &mut self,
        arg: &Arg<ExplicitState>,
        id: NodeId,
    ) -> Option<Vec<(Step, ExplicitState, bool)>> {
        self.borrow_mut().successors_of(arg, id)
    }

    fn added(&mut self, _id: NodeId, children: &[(NodeId, bool)]) {
        let mut graft = self.borrow_mut();
        let pending = std::mem::take(&mut graft.pending);
        for (&(child, _), old) in children.iter().zip(pending) {
            graft.grafted.insert(child, old);
        }
    }
}

impl<'a> Graft<'a> {
    fn new(previous: &'a Previous, program: &'a Program) -> Graft<'a> {
        let old = previous.old_program();
        let vars: Vec<Option<VarId>> = (0..old.variables.len())
            .map(|i| {
                let v = VarId(i as u32);
                let n = previous.map_var(v)?;
                let (a, b) = (old.variable(v), program.variable(n));
                (a.ty == b.ty && a.array == b.array).then_some(n)
            })
            .collect();
        let mut mapped = vec![false; program.variables.len()];
        for v in vars.iter().flatten() {
            mapped[v.index()] = true;
        }
        let new_global = program
            .variables
            .iter()
            .zip(&mapped)
            .map(|(v, &mapped)| !mapped && v.scope == Scope::Global && v.array.is_none())
            .collect();
        let mut same_signature = vec![false; program.functions.len()];
        for (i, f) in old.functions.iter().enumerate() {
            let Some(g) = previous.map_func(FuncId(i as u32)) else {
                continue;
            };
            let n = program.function(g);
            let map = |v: &VarId| vars[v.index()];
            same_signature[g.index()] = f.params.len() == n.params.len()
                && f.params.iter().map(map).eq(n.params.iter().map(|&v| Some(v)))
                && f.return_var.map(|v| map(&v)) == n.return_var.map(Some);
        }
        let mut graft = Graft {
            previous,
            program,
            usable: !program.has_recursion() && previous.initial(program).is_some(),
            old_cpa: ExplicitCpa::new(old),
            new_cpa: ExplicitCpa::new(program),
            vars,
            mapped,
            new_global,
            same_signature,
            live_same: HashMap::new(),
            same_op: HashMap::new(),
            old_states: HashMap::new(),
            grafted: Grafted::new(),
            pending: Vec::new(),
        };
        for i in 0..previous.old_nodes() as u32 {
            let location = previous
                .old_node(i)
                .and_then(|n| previous.map_location(n.location));
            if let (true, Some(location), Some(state)) = (graft.expanded(i), location, graft.state_of(i)) {
                graft
                    .old_states
                    .entry((location, state.values))
                    .or_default()
                    .push(i);
            }
        }
        graft
    }

    /// The successors of new node `id` if it is an old expanded node at a conforming location.
    fn successors_of(
        &mut self,
        arg: &Arg<ExplicitState>,
        id: NodeId,
    ) -> Option<Vec<(Step, ExplicitState, bool)>> {
        if !self.usable {
            return None;
        }
        let node = arg.node(id);
        recorded_values(&node.state, self.program)?;
        // The values of globals the old program does not have pass through unchanged (no
        // operation reused reads or writes them); the rest must be an old node's values.
        let mut values = node.state.values.clone();
        let extra = values.split_off(|v| !self.mapped[v.index()]);
        if extra.keys().any(|&v| !self.new_global[v.index()]) {
            return None;
        }
        let candidates = match self.grafted.get(&id) {
            Some(&old) => vec![old],
            None => self
                .old_states
                .get(&(node.control.location, values))
                .cloned()
                .unwrap_or_default(),
        };
        for old in candidates {
            if let Some(successors) = self.successors(arg, id, old, &extra) {
                self.grafted.insert(id, old);
                self.pending = successors.iter().map(|&(_, _, c)| c).collect();
                return Some(
                    successors
                        .into_iter()
                        .map(|(step, state, c)| (step, state, !self.expanded(c)))
                        .collect(),
                );
            }
        }
        None
    }

    fn expanded(&self, old: u32) -> bool {
        self.previous
            .old_node(old)
            .is_some_and(|n| n.status == ProofStatus::Expanded && !n.partial)
    }

    /// The recorded values of old node `old` as a new state.
    fn state_of(&self, old: u32) -> Option<ExplicitState> {
        let mut values = KnownValues::default();
        for &(v, x) in self.previous.old_node(old)?.values.as_ref()? {
            values.insert(self.vars.get(v.index()).copied().flatten()?, x);
        }
        Some(ExplicitState {
            values,
            heap: KnownHeap::empty(self.program.data_model.pointer_bits()),
            ..ExplicitState::default()
        })
    }

    /// The successors of new node `id`, which is old node `old` (same values), per step with
    /// the old child, if its location conforms (see the module documentation).
    fn successors(
        &mut self,
        arg: &Arg<ExplicitState>,
        id: NodeId,
        old: u32,
        extra: &KnownValues,
    ) -> Option<Vec<(Step, ExplicitState, u32)>> {
        let (program, previous) = (self.program, self.previous);
        let old_program = previous.old_program();
        let node = previous.old_node(old)?;
        if !self.expanded(old) {
            return None;
        }
        let control = arg.node(id).control.clone();
        let func = program.location(control.location).func;
        if !self.same_signature[func.index()] {
            return None;
        }
        let steps = control.steps(program);
        // The old location's edges, each to be matched once (returns: by the old child).
        let mut old_edges: Vec<Option<_>> = old_program
            .out_edges(node.location)
            .iter()
            .map(|&e| Some(e))
            .collect();
        let returns = steps.iter().any(|s| matches!(s, Step::Return { .. }));
        if returns != old_edges.is_empty() {
            return None;
        }
        let mut out = Vec::with_capacity(steps.len());
        for step in steps {
            let edge = program.edge(step.edge());
            let mut ok = true;
            edge.op.for_each_var(&mut |v| ok &= self.mapped[v.index()]);
            if let crate::cfa::Operation::Call { callee, .. } = &edge.op {
                ok &= self.same_signature[callee.index()];
            }
            if !ok {
                return None;
            }
            let child = match step {
                Step::Return { .. } => Some(previous.exact_child(old, step, program)?),
                Step::Edge(e) => {
                    let same_op = &mut self.same_op;
                    let slot = old_edges.iter_mut().find(|o| {
                        o.is_some_and(|o| {
                            *same_op
                                .entry((o, e))
                                .or_insert_with(|| previous.same_operation(o, e, program))
                        })
                    })?;
                    let old_edge = slot.take()?;
                    node.children
                        .iter()
                        .copied()
                        .find(|&(s, _)| s == ProofStep::Edge(old_edge))
                }
            };
            let next = control.successor(step, program).location;
            let Some((_, c)) = child else {
                // Infeasible in the old version from the same values: infeasible now.
                continue;
            };
            let old_next = previous.old_node(c)?.location;
            if !self.same_live(old_next, next) {
                return None;
            }
            let mut state = self.state_of(c)?;
            state.values.extend_from(extra);
            out.push((step, state, c));
        }
        old_edges.iter().all(Option::is_none).then_some(out)
    }

    /// The locals live at the old location `old` are those live at the new one `new`.
    fn same_live(&mut self, old: LocId, new: LocId) -> bool {
        let (old_cpa, new_cpa, vars) = (&self.old_cpa, &self.new_cpa, &self.vars);
        *self.live_same.entry((old, new)).or_insert_with(|| {
            let old_live: Option<FxHashSet<VarId>> =
                old_cpa.live_locals(old).iter().map(|v| vars[v.index()]).collect();
            old_live.as_ref() == Some(new_cpa.live_locals(new))
        })
    }
}
