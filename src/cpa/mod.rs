//! The CPA engine: configurable program analysis after Beyer, Henzinger and Théoduloz, as in
//! CPAchecker and seed 000 §III-B.
//!
//! An analysis is a [`Cpa`] (abstract domain, transfer relation, stop via the partial order,
//! precision adjustment, target states). The engine composes it with the control part
//! ([`control`]: the location and call-stack CPAs), the give-up monitors
//! ([`monitor`]: seed 000 Fig. 7, whose firing strengthens a state to the assumption `false`),
//! and optionally a condition automaton used as a guide; it explores the state space with a
//! reached set and a waitlist and records the abstract reachability graph ([`arg`]).
//! [`budget`] keeps a run inside its CPU-time and memory limits.

pub mod arg;
pub mod budget;
pub mod control;
pub mod engine;
pub mod monitor;

use crate::cfa::{EdgeId, Program};
use crate::condition::state_cut::Valuation;
use arg::NodeId;
use control::ControlState;
use std::fmt;
use thiserror::Error;

/// One step of a path: a CFA edge, or the return from a callee's exit to the return site of
/// the call edge `call` (returns are implied by the call stack, not separate CFA edges).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    Edge(EdgeId),
    Return { call: EdgeId },
}

impl Step {
    /// The CFA edge this step belongs to (for a return: its call edge).
    pub fn edge(self) -> EdgeId {
        match self {
            Step::Edge(e) | Step::Return { call: e } => e,
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Edge(e) => write!(f, "{e}"),
            Step::Return { call } => write!(f, "return({call})"),
        }
    }
}

/// An error inside an analysis that makes a state's successors unknowable. The engine cuts the
/// state (not verified) and goes on; it never turns into a verdict.
#[derive(Debug, Clone, Error)]
#[error("{0}")]
pub struct CpaError(pub String);

/// What a transfer yields for one step.
#[derive(Debug, Clone)]
pub enum Transfer<S> {
    /// The successors (empty: the step is infeasible from this state).
    Successors(Vec<S>),
    /// The analysis cannot tell (e.g. certain undefined behaviour): the state is cut there and
    /// recorded as not verified.
    GiveUp(String),
}

/// A configurable program analysis over Baton's CFA (the data part; control is separate).
pub trait Cpa {
    /// Abstract state of the analysis' domain.
    type State: Clone + fmt::Debug;
    /// Precision (e.g. predicates per location); `()` for analyses without one.
    type Precision: Clone + Default;

    /// The abstract state at program start.
    fn initial_state(&self, program: &Program) -> Self::State;

    /// Abstract successors of `state` for one step (transfer relation).
    fn transfer(
        &self,
        state: &Self::State,
        step: Step,
        precision: &Self::Precision,
        program: &Program,
    ) -> Result<Transfer<Self::State>, CpaError>;

    /// The partial order of the domain: `a ⊑ b` (every concrete state of `a` is one of `b`).
    fn less_or_equal(&self, a: &Self::State, b: &Self::State) -> bool;

    /// Index of the reached states at one control state, for the stop operator (stop-sep):
    /// it finds the states that cover a new one without comparing against all of them.
    type CoverIndex: Default;

    /// Adds a reached state to the index.
    fn index_insert(&self, index: &mut Self::CoverIndex, state: &Self::State, node: NodeId);

    /// Removes a state (refinement removed it from the reached set).
    fn index_remove(&self, index: &mut Self::CoverIndex, state: &Self::State, node: NodeId);

    /// The indexed nodes whose states `b` satisfy `state ⊑ b`.
    fn covering(&self, index: &Self::CoverIndex, state: &Self::State) -> Vec<NodeId>;

    /// Precision adjustment, applied to every new successor before the stop check.
    fn adjust_precision(
        &self,
        state: Self::State,
        _precision: &Self::Precision,
        _program: &Program,
    ) -> Self::State {
        state
    }

    /// Whether a new state the engine keeps (to explore, to report as a target, or to record
    /// as cut) has concrete states. An analysis may leave a satisfiability check open in its
    /// transfer and answer it here, after the stop operator: a covered state (or one the guide
    /// accepted) never needs it. `false` drops the state. Sound answers only: `true` when
    /// unsure. The default: every state was decided by the transfer.
    fn confirm(&self, _state: &mut Self::State) -> bool {
        true
    }

    /// A new state that the stop operator covered or the guide accepted: it is not explored,
    /// so a check [`Cpa::confirm`] would have made is dropped (with what it needed to keep).
    /// Should refinement uncover it later, it is explored unchecked (sound, only less pruned).
    fn forget_unconfirmed(&self, _state: &mut Self::State) {}

    /// True if the state is a target (besides states at error locations, which the engine
    /// recognises from the control part).
    fn is_target(&self, _state: &Self::State) -> bool {
        false
    }

    /// The state at `control` as a valuation of variables a state cut can name there
    /// (globals and the current function's locals) that pins what the rest of the run can
    /// depend on: every concrete state with these values (and any values of the callers'
    /// locals that are dead after their calls return) is one of the abstract state's. `None`
    /// (the default) where the analysis cannot say that. Conditions use it for state cuts
    /// ([`crate::condition::state_cut`]).
    fn valuation(
        &self,
        _state: &Self::State,
        _control: &ControlState,
        _program: &Program,
    ) -> Option<Valuation> {
        None
    }
}

/// A cover index for any CPA: all states at the control state, compared one by one with
/// [`Cpa::less_or_equal`]. Linear in the number of states; analyses with many states per
/// location provide a better index.
#[derive(Debug, Clone)]
pub struct LinearCoverIndex<S> {
    entries: Vec<(NodeId, S)>,
}

impl<S> Default for LinearCoverIndex<S> {
    fn default() -> Self {
        LinearCoverIndex { entries: Vec::new() }
    }
}

impl<S: Clone> LinearCoverIndex<S> {
    pub fn insert(&mut self, state: &S, node: NodeId) {
        self.entries.push((node, state.clone()));
    }

    pub fn remove(&mut self, node: NodeId) {
        self.entries.retain(|(n, _)| *n != node);
    }

    /// The nodes whose state `b` satisfies `leq(state, b)`.
    pub fn covering(&self, state: &S, leq: impl Fn(&S, &S) -> bool) -> Vec<NodeId> {
        self.entries
            .iter()
            .filter(|(_, b)| leq(state, b))
            .map(|(n, _)| *n)
            .collect()
    }
}
