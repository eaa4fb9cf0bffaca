//! Reducers: condition × program → residual program (seed 001 §2.2).
//!
//! [`reduce`] is Algorithm 1 REDUCER on the minimised condition
//! ([`crate::condition::minimise`]): it explores pairs (control state, automaton state) from
//! (entry, initial), follows transitions whose assumption is `true`, never enters an accepting
//! state, and continues in the residual state `q_r` (a copy of the rest of the program) where no
//! transition matches. Calls are inlined on the way (unfolded by call stack) where the
//! condition looks inside the callee; a call the condition cannot tell anything about inside
//! stays a call of a copy of the original function (`calls`), emitted once and shared by all
//! such calls. Recursive functions are inlined the same way, each inlined activation with
//! locals of its own (`activations`), down to [`MAX_INLINED_RECURSION`] recursive calls: a
//! depth-cut condition stops telling states apart where its analysis stopped, and from there
//! the calls are calls of the copy. Deeper (a minimised condition can merge states across
//! depths), the product falls back to `q_r` and keeps the call, so it is finite whatever the
//! condition, and every uncovered path stays. The residual program is `main` (the product) and
//! those copies. Every product node at `main`'s exit is one location (nothing
//! follows there), and a condition that covers nothing starts in `q_r`, so its residual is the
//! original's reachable code and no larger. A product node from which no cut (a covered
//! transition, not taken) is reachable falls back to `q_r` too: the same paths, no copy.
//! [`reduce_within`] caps the residual's size (`select`): where the exact product is larger
//! than the cap, it keeps the cuts nearest the entry with every product node on a path to them
//! and falls back to `q_r` everywhere else — sound (every uncovered path stays), cutting fewer
//! covered paths; [`Coverage`] says how much it kept (cuts and precise locations against the
//! exact residual's). Flows cap every `input: reduce` residual (`max_ratio:`, default 3 × the
//! original's locations, [`crate::pipeline::flow::DEFAULT_MAX_RATIO`]). The IDENTITY reducer of
//! seed 001's null hypothesis needs no code: it hands on the original file
//! (`baton reduce --reducer identity`, `input: identity` in flows).
//!
//! The residual program keeps the original's variables (plus the inlined activations' copies
//! of recursive functions' locals), operations and source positions, and
//! consumes nondet values in the same order as the original, so a counterexample of the
//! residual program is one of the original with the same nondet values; [`Residual::origin`]
//! tells for each residual location where it came from, and [`Residual::edge_reads`] which
//! original edge each residual edge reads (the provenance that lets
//! [`crate::condition::map_back`] carry a condition about the residual back to the original;
//! [`align`] matches the residual CFA to the one a tool builds from the emitted C).

mod activations;
pub mod align;
mod calls;
mod select;

use crate::cfa::expr::{BinaryOp, Expr, UnaryOp};
use crate::cfa::types::IntType;
use crate::cfa::{Edge, EdgeId, FuncId, Function, LocId, Location, LocationKind, Operation, Program, Scope};
use crate::condition::minimise::{minimise, DEFAULT_REFINEMENT_WORK};
use crate::condition::state_cut::{StateCut, Valuation};
use crate::condition::{ConditionAutomaton, ConditionError, ConditionRunner, StateId};
use crate::cpa::control::ControlState;
use crate::cpa::Step;
use activations::{Activation, Activations};
use calls::CallKeeper;
use select::Choice;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use thiserror::Error;

/// Why a program could not be reduced.
#[derive(Debug, Error)]
pub enum ReduceError {
    #[error(transparent)]
    Condition(#[from] ConditionError),
    #[error("the residual program would exceed {limit} locations (the condition unrolls too much)")]
    TooLarge { limit: usize },
    /// The product runs `main`'s body with the original locals; a call of `main` from inside
    /// the program would need a copy of `main` with its own.
    #[error("residual of a program that calls `{function}` recursively: unsupported")]
    RecursiveMain { function: String },
}

/// Where a residual location comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The original location (for inlined callees: the callee's location).
    pub location: LocId,
    /// The original call edges active there, outermost first; empty in the copies of original
    /// functions (they are shared by all the calls kept as calls).
    pub call_stack: Vec<EdgeId>,
    /// The states of the minimised condition ([`crate::condition::minimise`]) some run is in;
    /// empty for the residual state `q_r` and in the copies of original functions (the states
    /// stay what they were at the call).
    pub automaton_states: BTreeSet<StateId>,
}

/// A residual program with its map back to the original.
#[derive(Debug, Clone)]
pub struct Residual {
    pub program: Program,
    /// Per residual location: where it comes from (`None` for helper locations between the
    /// parameter assignments of an inlined call, and after a kept call that never returns).
    pub origin: Vec<Option<Origin>>,
    /// Per residual edge: the original CFA edge a condition automaton reads when the residual
    /// program takes it (a call kept as a call reads the original call edge, and every edge
    /// of a copied function its original). `None` for edges that read nothing: the second and later parameter
    /// assignments of an inlined call (the call edge is read by the first) and the return from
    /// an inlined callee (returns are silent for conditions).
    pub edge_reads: Vec<Option<EdgeId>>,
    /// The condition's covered transitions the residual program cuts: product steps into an
    /// accepting state, which the residual does not take (with [`Residual::precise_locations`]
    /// the figure of how much of the condition's covered part it keeps, [`Coverage`]).
    pub cuts: usize,
    /// Residual edges guarded by the condition's state cuts (every copy of an edge a state cut
    /// names: the step is taken only from states the cut does not cover).
    pub guarded_edges: usize,
}

/// How much of a condition's covered part a residual program keeps, in two cheap figures:
/// its precise locations (product nodes with automaton states other than `q_r`) and its cuts
/// (covered transitions not taken). A capped residual ([`reduce_within`]) is compared with
/// the exact one by these; both apply every state cut ([`Residual::guarded_edges`]), which
/// copies no code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Coverage {
    pub precise: usize,
    pub cuts: usize,
}

impl Coverage {
    /// `self`'s cuts as a fraction of `exact`'s (1 where `exact` cuts nothing).
    pub fn cuts_fraction(&self, exact: &Coverage) -> f64 {
        if exact.cuts == 0 {
            1.0
        } else {
            self.cuts as f64 / exact.cuts as f64
        }
    }
}

impl Residual {
    /// What the residual keeps of the condition's covered part.
    pub fn coverage(&self) -> Coverage {
        Coverage {
            precise: self.precise_locations(),
            cuts: self.cuts,
        }
    }

    /// The number of locations where the condition is still tracked (automaton states other
    /// than `q_r`): the product's precise part, the rest is original code.
    pub fn precise_locations(&self) -> usize {
        self.origin
            .iter()
            .flatten()
            .filter(|o| !o.automaton_states.is_empty())
            .count()
    }

    /// True if no path of the residual program reaches an error location.
    pub fn error_unreachable(&self) -> bool {
        !self
            .program
            .locations
            .iter()
            .any(|l| l.kind == LocationKind::Error)
    }
}

/// True if the residual program of `condition` has at most as many locations as `than` (a
/// condition that grew by a mapped-back one can unroll the program: more locations, fewer
/// paths). Stops as soon as the bound is passed.
pub fn no_larger(program: &Program, condition: &ConditionAutomaton, than: &Residual) -> bool {
    let limit = than.program.locations.len();
    reduce(program, condition, limit).is_ok_and(|r| r.program.locations.len() <= limit)
}

/// Default bound on residual locations: conditions from long analyses can unroll a lot.
pub const DEFAULT_MAX_LOCATIONS: usize = 2_000_000;

/// The product node of Algorithm 1, with the automaton part determinised on the fly: the set
/// of automaton states some run can be in. The empty set is the residual state `q_r`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ProductNode {
    control: ControlState,
    states: BTreeSet<StateId>,
}

/// Algorithm 1 REDUCER of seed 001, with calls inlined where the condition looks inside them
/// and the condition determinised (a path is cut as soon as some run accepts, Def. 2.2), so the
/// residual program is deterministic whenever the program is, even for unions of conditions.
/// A product node from which no cut is reachable falls back to `q_r`: the same paths go on
/// from there, without a copy of the program per automaton state.
pub fn reduce(
    program: &Program,
    condition: &ConditionAutomaton,
    max_locations: usize,
) -> Result<Residual, ReduceError> {
    condition.validate(program)?;
    let condition = essential(condition);
    let runner = ConditionRunner::new(&condition);
    let exact = product(program, &runner, max_locations, all_of(&condition))?;
    let choice = Choice::new(&exact);
    if choice.useful_nodes() == exact.residual.precise_locations() {
        return Ok(exact.residual);
    }
    let useful = choice.keep(choice.cut_locations());
    Ok(product(program, &runner, max_locations, Keep::Only(&useful))?.residual)
}

/// A residual program within a size cap ([`reduce_within`]) and what the exact one would keep.
#[derive(Debug, Clone)]
pub struct Capped {
    pub residual: Residual,
    /// The exact residual's [`Coverage`] (of the product's first `max_locations` locations,
    /// breadth-first, where the exact product is larger).
    pub exact: Coverage,
}

/// A residual program of at most `cap` locations where one exists: the exact residual of
/// [`reduce`] if it fits; otherwise the one keeping the most cuts nearest the entry that fits.
/// The cuts (covered transitions) of the exact product are ranked by the breadth-first depth of
/// their node, and the residual keeps the first `k` of them with every product node on a path
/// to them (`select`); every other node falls back to `q_r` (the original code from there
/// on). A cut near the entry removes the most paths for the fewest copied locations, and a node
/// kept without a cut behind it would copy code without removing a path. Falling back keeps
/// every path the condition did not cover (Res) and cuts fewer covered ones. With no cut kept the
/// residual is the original's reachable code, which fits any `cap` of at least the original's
/// size; a smaller `cap` may not be met.
pub fn reduce_within(
    program: &Program,
    condition: &ConditionAutomaton,
    cap: usize,
    max_locations: usize,
) -> Result<Capped, ReduceError> {
    condition.validate(program)?;
    let condition = essential(condition);
    let runner = ConditionRunner::new(&condition);
    let explored = match product(program, &runner, max_locations, all_of(&condition)) {
        Ok(p) => p,
        // Choose among the first nodes, breadth-first (the q_r part adds at most the original).
        Err(ReduceError::TooLarge { .. }) => {
            product(program, &runner, max_locations, Keep::Breadth(max_locations / 2))?
        }
        Err(e) => return Err(e),
    };
    let choice = Choice::new(&explored);
    let exact = Coverage {
        precise: choice.useful_nodes(),
        cuts: explored.residual.cuts,
    };
    // A build past the cap stops there: only its failure matters.
    let build = |k: usize| {
        product(
            program,
            &runner,
            cap.saturating_add(1),
            Keep::Only(&choice.keep(k)),
        )
    };
    let all = choice.cut_locations();
    let mut high = all;
    match build(all) {
        Ok(p) if p.residual.program.locations.len() <= cap => {
            return Ok(Capped {
                residual: p.residual,
                exact,
            })
        }
        Ok(_) | Err(ReduceError::TooLarge { .. }) => {}
        Err(e) => return Err(e),
    }
    let mut best = product(program, &runner, max_locations, Keep::Only(&choice.keep(0)))?;
    let mut low = 0;
    // The most cuts found to fit, by bisection (sizes grow with the cuts kept).
    while low + 1 < high {
        let mid = low + (high - low) / 2;
        match build(mid) {
            Ok(p) if p.residual.program.locations.len() <= cap => {
                best = p;
                low = mid;
            }
            Ok(_) | Err(ReduceError::TooLarge { .. }) => high = mid,
            Err(e) => return Err(e),
        }
    }
    // Guards of state cuts may add locations of their own: past the cap, they are given up too.
    if best.residual.program.locations.len() > cap && !condition.state_cuts.is_empty() {
        let unguarded = ConditionAutomaton {
            state_cuts: Vec::new(),
            ..condition.clone()
        };
        let runner = ConditionRunner::new(&unguarded);
        best = product(program, &runner, max_locations, Keep::Only(&choice.keep(low)))?;
    }
    Ok(Capped {
        residual: best.residual,
        exact,
    })
}

/// What the product needs of `condition`: only what it says matters, not how it is written —
/// fewer automaton states, fewer product nodes, and dead states become the residual state
/// `q_r` (minimised); cuts of infeasible edges are left out, since copying code to cut them
/// would remove no execution (the residual has the same executions, the original's code), and
/// so are cuts a state cut makes too (applied as guards instead, without copies; the
/// predicate analysis explains infeasible paths without guards where it can:
/// [`crate::cfa::expr::Expr::is_state_exclusion`]).
fn essential(condition: &ConditionAutomaton) -> ConditionAutomaton {
    minimise(&condition.clone().reducer_view(), DEFAULT_REFINEMENT_WORK)
}

/// Every precise node, or none for a condition that covers nothing (its product starts in
/// `q_r`: the original code).
fn all_of(condition: &ConditionAutomaton) -> Keep<'static> {
    if condition.automaton_covers_nothing() {
        Keep::Breadth(0)
    } else {
        Keep::All
    }
}

/// Which precise product nodes a product keeps; the others fall back to `q_r`.
enum Keep<'a> {
    All,
    /// The first ones, breadth-first.
    Breadth(usize),
    Only(&'a HashSet<ProductNode>),
}

/// A residual program with the product node of each of its locations (`None` for helper
/// locations, the exit and the copies of original functions) and the locations its cuts leave.
struct Product {
    residual: Residual,
    nodes: Vec<Option<ProductNode>>,
    /// Per cut: the location it leaves (one entry per covered transition not taken).
    cut_from: Vec<LocId>,
}

/// Algorithm 1 on the minimised condition `runner` runs, keeping the precise nodes `keep`
/// says.
fn product(
    program: &Program,
    runner: &ConditionRunner<'_>,
    max_locations: usize,
    keep: Keep<'_>,
) -> Result<Product, ReduceError> {
    let mut keeper = CallKeeper::new(program, runner);
    let mut builder = ResidualBuilder::new(program, &runner.automaton().state_cuts);
    // The copy of a recursive `main` would share `main`'s own locals (the product's).
    let main = program.entry_function;
    if builder.activations.is_recursive(main) {
        return Err(ReduceError::RecursiveMain {
            function: program.function(main).name.clone(),
        });
    }
    let control = ControlState::initial(program);
    let initial = if matches!(keep, Keep::Breadth(0)) {
        BTreeSet::new()
    } else {
        runner.initial()
    };
    if runner.accepts(&initial) {
        // Everything is covered: the residual program has no execution at all. Its `main`
        // blocks at once (an `assume(0)` edge); a `main` that returned would be an execution
        // the original does not have, against Res (ex(red(C, A)) ⊆ ex(C)).
        let entry = builder.location(LocationKind::Normal, None);
        let exit = builder.location(LocationKind::FunctionExit, None);
        builder.edge(
            entry,
            exit,
            Operation::Assume {
                cond: Expr::int(0),
                branch: true,
            },
            program.main().source,
            None,
        );
        let mut residual = builder.finish(entry, exit);
        residual.cuts = 1;
        return Ok(Product {
            nodes: vec![None; residual.program.locations.len()],
            residual,
            cut_from: vec![entry],
        });
    }
    let mut start = ProductNode {
        control,
        states: initial,
    };
    if let Keep::Only(set) = keep {
        if !set.contains(&start) {
            start.states = BTreeSet::new();
        }
    }
    let mut ids: HashMap<ProductNode, LocId> = HashMap::new();
    let mut waitlist = VecDeque::new();
    let mut cut_from = Vec::new();
    // Every product node at `main`'s exit is this one location: nothing follows there.
    let exit = builder.location(LocationKind::FunctionExit, None);
    let main_exit = program.main().exit;
    let entry = builder.product_location(&start, program);
    let mut precise = usize::from(!start.states.is_empty());
    ids.insert(start.clone(), entry);
    waitlist.push_back(start);

    while let Some(node) = waitlist.pop_front() {
        let from = ids[&node];
        for step in node.control.steps(program) {
            let mut states = match step {
                // Returns are silent for conditions.
                Step::Return { .. } => node.states.clone(),
                Step::Edge(e) => runner.step(&node.states, e),
            };
            if runner.accepts(&states) {
                // Covered from here on: cut off.
                cut_from.push(from);
                continue;
            }
            let next_in = |states: &mut BTreeSet<StateId>, keeper: &mut CallKeeper| {
                next_control(program, &node.control, step, states, keeper, &builder.activations)
            };
            let mut next = next_in(&mut states, &mut keeper);
            if let Next::Goes { control, .. } = &next {
                let candidate = || ProductNode {
                    control: control.clone(),
                    states: states.clone(),
                };
                let falls_back = !states.is_empty()
                    && match keep {
                        Keep::All => false,
                        // Past the budget, a new precise node falls back to `q_r`.
                        Keep::Breadth(b) => precise >= b && !ids.contains_key(&candidate()),
                        Keep::Only(set) => !set.contains(&candidate()),
                    };
                if falls_back {
                    states = BTreeSet::new();
                    next = next_in(&mut states, &mut keeper);
                }
            }
            let here = builder.activations.at(&node.control);
            let (kept, control) = match next {
                Next::Goes { kept, control } => (kept, control),
                Next::Ends => {
                    // A kept call that never returns: nothing after it.
                    let end = builder.location(LocationKind::Normal, None);
                    builder.kept_call(from, end, step.edge(), here);
                    continue;
                }
            };
            let there = builder.activations.at(&control);
            let to = if control.location == main_exit && control.call_stack.top().is_none() {
                exit
            } else {
                let next = ProductNode { control, states };
                match ids.get(&next) {
                    Some(&l) => l,
                    None => {
                        if builder.locations.len() >= max_locations {
                            return Err(ReduceError::TooLarge { limit: max_locations });
                        }
                        precise += usize::from(!next.states.is_empty());
                        let l = builder.product_location(&next, program);
                        ids.insert(next.clone(), l);
                        waitlist.push_back(next);
                        l
                    }
                }
            };
            if kept {
                builder.kept_call(from, to, step.edge(), here);
            } else {
                builder.step(from, to, step, here, there);
            }
        }
    }
    let mut residual = builder.finish(entry, exit);
    residual.cuts = cut_from.len();
    let mut nodes = vec![None; residual.program.locations.len()];
    for (node, l) in ids {
        nodes[l.index()] = Some(node);
    }
    Ok(Product {
        residual,
        nodes,
        cut_from,
    })
}

/// Where the product goes on after `step` from `control` in the automaton states `states`.
enum Next {
    /// To `control`; `kept`: the step is a call that stays a call (the product goes on at the
    /// return site).
    Goes { kept: bool, control: ControlState },
    /// A call kept as a call that never returns.
    Ends,
}

/// The most recursive calls the product inlines on one call stack: as many as the explicit
/// analysis explores unless told otherwise, so the conditions it hands on are inlined as far as
/// they distinguish states. Deeper, the product falls back to `q_r` and keeps the call: the
/// product stays finite whatever the condition (a minimised one may merge states across depths).
pub const MAX_INLINED_RECURSION: u64 = crate::cpa::monitor::DEFAULT_RECURSION_DEPTH;

/// The next control state of `step` (see [`Next`]). A call of a recursive function the product
/// does not inline ([`MAX_INLINED_RECURSION`], [`activations`]) where the condition looks inside
/// falls back to `q_r`: `states` become empty and the call stays a call (every path through
/// it stays, Res).
fn next_control(
    program: &Program,
    control: &ControlState,
    step: Step,
    states: &mut BTreeSet<StateId>,
    keeper: &mut CallKeeper,
    activations: &Activations,
) -> Next {
    // The callee of a call that stays a call.
    let call = match (step, &program.edge(step.edge()).op) {
        (Step::Edge(_), Operation::Call { callee, .. }) => Some(*callee),
        _ => None,
    };
    let Some(callee) = call else {
        return Next::Goes {
            kept: false,
            control: control.successor(step, program),
        };
    };
    let inlined = control.successor(step, program);
    if !keeper.keeps(callee, states) {
        let inlines = !activations.is_recursive(callee)
            || (activations.inlinable(callee)
                && inlined.call_stack.recursion_depth(program) <= MAX_INLINED_RECURSION);
        if inlines {
            return Next::Goes {
                kept: false,
                control: inlined,
            };
        }
        states.clear();
    }
    if !keeper.returns(callee) {
        return Next::Ends;
    }
    Next::Goes {
        kept: true,
        control: ControlState {
            location: program.edge(step.edge()).to,
            call_stack: control.call_stack.clone(),
        },
    }
}

struct ResidualBuilder<'p> {
    original: &'p Program,
    locations: Vec<Location>,
    edges: Vec<Edge>,
    origin: Vec<Option<Origin>>,
    edge_reads: Vec<Option<EdgeId>>,
    /// Original function -> its copy in the residual program ([`calls`]).
    copies: HashMap<FuncId, FuncId>,
    /// The copies, by residual function id minus one (`None` while being copied).
    copied: Vec<Option<Function>>,
    /// The original functions whose original locals the product uses (inlined somewhere or
    /// `main`; inlined recursive functions use fresh ones).
    inlined: BTreeSet<FuncId>,
    /// The locals of inlined activations of recursive functions.
    activations: Activations<'p>,
    /// Per original edge a state cut names: the guard of its residual copies.
    guards: HashMap<EdgeId, Expr>,
    guarded_edges: usize,
}

impl<'p> ResidualBuilder<'p> {
    fn new(original: &'p Program, state_cuts: &[StateCut]) -> Self {
        let mut states: HashMap<EdgeId, Vec<Valuation>> = HashMap::new();
        for cut in state_cuts {
            states
                .entry(cut.edge)
                .or_default()
                .extend(cut.states.iter().cloned());
        }
        let guards = states
            .into_iter()
            .map(|(edge, states)| (edge, StateCut { edge, states }.guard(original)))
            .collect();
        ResidualBuilder {
            guards,
            guarded_edges: 0,
            original,
            locations: Vec::new(),
            edges: Vec::new(),
            origin: Vec::new(),
            edge_reads: Vec::new(),
            copies: HashMap::new(),
            copied: Vec::new(),
            inlined: BTreeSet::new(),
            activations: Activations::new(original),
        }
    }

    /// A new location of the residual `main`.
    fn location(&mut self, kind: LocationKind, origin: Option<Origin>) -> LocId {
        self.location_in(FuncId(0), kind, origin)
    }

    fn location_in(&mut self, func: FuncId, kind: LocationKind, origin: Option<Origin>) -> LocId {
        let id = LocId(self.locations.len() as u32);
        self.locations.push(Location {
            func,
            kind,
            loop_head: false,
            label: None,
        });
        self.origin.push(origin);
        id
    }

    fn product_location(&mut self, node: &ProductNode, program: &Program) -> LocId {
        let original = program.location(node.control.location);
        if !self.activations.is_recursive(original.func) {
            self.inlined.insert(original.func);
        }
        let kind = match original.kind {
            LocationKind::FunctionExit => LocationKind::Normal,
            k => k,
        };
        let id = self.location(
            kind,
            Some(Origin {
                location: node.control.location,
                call_stack: node.control.call_stack.calls(),
                automaton_states: node.states.clone(),
            }),
        );
        self.locations[id.index()].label = original.label.clone();
        id
    }

    /// The residual edge `from → to` that reads the original edge `reads`, guarded where a
    /// state cut names that edge: an assume edge whose condition is never undefined takes the
    /// guard into its condition (no new location); another assume edge is followed by an
    /// assume of the guard (a branch is left by exactly one of its edges: a guard ahead of
    /// each would let a run past one guard and block it at that edge's condition, although
    /// the other edge's guard lets it through — an uncovered run lost); another edge is
    /// preceded by an assume of the guard (so a covered run blocks before undefined behaviour
    /// the edge may have).
    fn edge(
        &mut self,
        mut from: LocId,
        to: LocId,
        mut op: Operation,
        source: crate::cfa::SourceLoc,
        reads: Option<EdgeId>,
    ) {
        if let Some(guard) = reads.and_then(|e| self.guards.get(&e)).cloned() {
            self.guarded_edges += 1;
            match op {
                Operation::Assume { cond, branch } if cond.never_undefined() => {
                    let taken = if branch {
                        let zero = Expr::constant(0, cond.ty);
                        Expr::binary(BinaryOp::Ne, cond, zero, IntType::INT)
                    } else {
                        Expr::unary(UnaryOp::LogNot, cond, IntType::INT)
                    };
                    op = Operation::Assume {
                        cond: Expr::binary(BinaryOp::BitAnd, taken, guard, IntType::INT),
                        branch: true,
                    };
                }
                Operation::Assume { .. } => {
                    let taken = self.location_beside(to);
                    self.push(from, taken, op, source, reads);
                    self.push(
                        taken,
                        to,
                        Operation::Assume {
                            cond: guard,
                            branch: true,
                        },
                        source,
                        None,
                    );
                    return;
                }
                _ => {
                    let guarded = self.location_beside(from);
                    self.push(
                        from,
                        guarded,
                        Operation::Assume {
                            cond: guard,
                            branch: true,
                        },
                        source,
                        None,
                    );
                    from = guarded;
                }
            }
        }
        self.push(from, to, op, source, reads);
    }

    /// A new location in the function of `at`, with its origin (for a guard beside it).
    fn location_beside(&mut self, at: LocId) -> LocId {
        let origin = self.origin[at.index()].clone();
        self.location_in(self.locations[at.index()].func, LocationKind::Normal, origin)
    }

    /// Adds the residual edge `from → to` with `op`, reading the original edge `reads`.
    fn push(
        &mut self,
        from: LocId,
        to: LocId,
        op: Operation,
        source: crate::cfa::SourceLoc,
        reads: Option<EdgeId>,
    ) {
        self.edges.push(Edge { from, to, op, source });
        self.edge_reads.push(reads);
    }

    /// Adds the residual edges for one original step taken in the activation `here` into the
    /// activation `there` (the callee's for a call, the caller's for a return): the operation
    /// itself, an inlined call as parameter assignments, a return as the assignment of the
    /// call's result.
    fn step(
        &mut self,
        from: LocId,
        to: LocId,
        step: Step,
        here: Option<Activation>,
        there: Option<Activation>,
    ) {
        let program = self.original;
        let edge = program.edge(step.edge());
        let source = edge.source;
        let reads = match step {
            Step::Edge(e) => Some(e),
            Step::Return { .. } => None,
        };
        match (step, &edge.op) {
            (Step::Edge(_), Operation::Call { callee, args, .. }) => {
                let params = &program.function(*callee).params;
                let mut assigns = Vec::with_capacity(params.len());
                for (&p, a) in params.iter().zip(args) {
                    let lhs = self.activations.var(p, there);
                    let rhs = self.activations.rename_expr(a, here);
                    assigns.push(Operation::Assign { lhs, rhs });
                }
                self.chain(from, to, assigns, source, reads);
            }
            (Step::Return { .. }, Operation::Call { callee, result, .. }) => {
                let callee = program.function(*callee);
                let op = match (result, callee.return_var) {
                    (Some(r), Some(rv)) => {
                        let ty = program.variable(*r).ty;
                        let returned = self.activations.var(rv, here);
                        let value = Expr::var(returned, program.variable(rv).ty).cast(ty);
                        Operation::Assign {
                            lhs: self.activations.var(*r, there),
                            rhs: value,
                        }
                    }
                    _ => Operation::Skip,
                };
                self.edge(from, to, op, source, None);
            }
            (_, Operation::Return { value }) => {
                let func = program.function(program.location(edge.from).func);
                let op = match (func.return_var, value) {
                    (Some(rv), Some(v)) => Operation::Assign {
                        lhs: rv,
                        rhs: v.clone(),
                    },
                    _ => Operation::Skip,
                };
                let op = self.activations.rename(&op, here);
                self.edge(from, to, op, source, reads);
            }
            (_, op) => {
                let op = self.activations.rename(op, here);
                self.edge(from, to, op, source, reads)
            }
        }
    }

    /// The call edge `call`, taken in the activation `here`, kept as a call (of the copy of
    /// its callee) from `from` to `to`.
    fn kept_call(&mut self, from: LocId, to: LocId, call: EdgeId, here: Option<Activation>) {
        let edge = self.original.edge(call);
        let op = self.activations.rename(&edge.op, here);
        let op = self.copied_op(&op);
        self.edge(from, to, op, edge.source, Some(call));
    }

    /// `op` in a copied function or a kept call: calls go to the copies of their callees.
    fn copied_op(&mut self, op: &Operation) -> Operation {
        match op {
            Operation::Call { callee, args, result } => Operation::Call {
                callee: self.copy_of(*callee),
                args: args.clone(),
                result: *result,
            },
            op => op.clone(),
        }
    }

    /// The residual function that is a copy of the original function `f`: made on first use
    /// (with copies of the functions it calls), shared afterwards. Its edges read their
    /// originals.
    fn copy_of(&mut self, f: FuncId) -> FuncId {
        if let Some(&c) = self.copies.get(&f) {
            return c;
        }
        let program = self.original;
        let id = FuncId(self.copied.len() as u32 + 1);
        self.copies.insert(f, id);
        self.copied.push(None);
        let function = program.function(f);
        let mut at = HashMap::new();
        let first = self.locations.len();
        for &l in &function.locations {
            let original = program.location(l);
            let origin = Origin {
                location: l,
                call_stack: Vec::new(),
                automaton_states: BTreeSet::new(),
            };
            let copy = self.location_in(id, original.kind, Some(origin));
            self.locations[copy.index()].label = original.label.clone();
            at.insert(l, copy);
        }
        for &l in &function.locations {
            for &e in program.out_edges(l) {
                let edge = program.edge(e);
                let op = self.copied_op(&edge.op);
                self.edge(at[&l], at[&edge.to], op, edge.source, Some(e));
            }
        }
        self.copied[id.index() - 1] = Some(Function {
            entry: at[&function.entry],
            exit: at[&function.exit],
            // The copies, and the locations guards of state cuts added between them.
            locations: (first..self.locations.len())
                .filter(|&l| self.locations[l].func == id)
                .map(|l| LocId(l as u32))
                .collect(),
            ..function.clone()
        });
        id
    }

    /// Operations in sequence from `from` to `to` (a skip when there are none). Parameter
    /// assignments in sequence are exact: arguments cannot read the callee's parameters (a
    /// recursive callee's inlined activation has locals of its own, [`activations`]). The
    /// first edge reads `reads`, the others nothing.
    fn chain(
        &mut self,
        from: LocId,
        to: LocId,
        ops: Vec<Operation>,
        source: crate::cfa::SourceLoc,
        reads: Option<EdgeId>,
    ) {
        if ops.is_empty() {
            self.edge(from, to, Operation::Skip, source, reads);
            return;
        }
        let n = ops.len();
        let mut current = from;
        for (i, op) in ops.into_iter().enumerate() {
            let next = if i + 1 == n {
                to
            } else {
                self.location(LocationKind::Normal, None)
            };
            self.edge(current, next, op, source, if i == 0 { reads } else { None });
            current = next;
        }
    }

    fn finish(self, entry: LocId, exit: LocId) -> Residual {
        let original = self.original;
        let main = original.main();
        let mut variables = original.variables.clone();
        for v in &mut variables {
            if let Scope::Local(f) = v.scope {
                // A function only called has its locals in its copy; inlined ones are `main`'s.
                v.scope = match self.copies.get(&f) {
                    Some(&copy) if !self.inlined.contains(&f) => Scope::Local(copy),
                    _ => Scope::Local(FuncId(0)),
                };
            }
        }
        // The locals of inlined activations of recursive functions are `main`'s.
        variables.extend(self.activations.into_fresh());
        let function = Function {
            name: main.name.clone(),
            params: Vec::new(),
            return_type: main.return_type,
            return_var: main.return_var,
            entry,
            exit,
            locations: (0..self.locations.len() as u32)
                .map(LocId)
                .filter(|l| self.locations[l.index()].func == FuncId(0))
                .collect(),
            source: main.source,
        };
        let program = Program {
            files: original.files.clone(),
            hash: original.hash.clone(),
            data_model: original.data_model,
            signed_overflow: original.signed_overflow,
            variables,
            record_objects: original.record_objects.clone(),
            functions: std::iter::once(function)
                .chain(self.copied.into_iter().flatten())
                .collect(),
            locations: self.locations,
            edges: self.edges,
            entry_function: FuncId(0),
            out_edges: Vec::new(),
            in_edges: Vec::new(),
        }
        .finish();
        Residual {
            program,
            origin: self.origin,
            edge_reads: self.edge_reads,
            cuts: 0,
            guarded_edges: self.guarded_edges,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::interpreter::{execute, Ending, ExecOptions};
    use crate::cfa::types::DataModel;

    /// Regression: the residual of a condition covering everything returned from `main` at
    /// once, an execution (a return after no input) the original program does not have.
    #[test]
    fn fully_covered_residual_has_no_execution() {
        let text = "extern int __VERIFIER_nondet_int(void);\n\
                    int main(void) { int x = __VERIFIER_nondet_int(); return x; }\n";
        let program =
            crate::frontend::load_source("full.c", text, DataModel::ILP32).unwrap_or_else(|e| panic!("{e}"));
        let residual = reduce(
            &program,
            &ConditionAutomaton::fully_verified(&program.hash),
            DEFAULT_MAX_LOCATIONS,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(residual.error_unreachable());
        let run = execute(&residual.program, &[7], &ExecOptions::default());
        assert!(
            matches!(run.ending, Ending::AssumptionViolated { .. }),
            "{}",
            run.ending
        );
        assert_eq!(run.inputs_consumed, 0);
    }
}
