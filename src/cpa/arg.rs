//! The abstract reachability graph (ARG): every abstract state the engine created, with its
//! parent, children, covering and why exploration stopped there.
//!
//! The ARG is what conditions are made from (`condition::from_arg`) and where counterexample
//! paths come from.

use super::control::ControlState;
use super::monitor::MonitorValue;
use super::Step;
use smallvec::SmallVec;
use std::collections::BTreeSet;

/// Index of a node in the ARG.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The state of a condition automaton used as a guide: the set of automaton states a
/// (possibly nondeterministic) run can be in; empty once every run has stopped.
pub type GuideStates = BTreeSet<crate::condition::StateId>;

/// Where a node stands in the exploration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeStatus {
    /// In the waitlist, not yet expanded (a frontier state when the analysis stops).
    Waiting,
    /// Successors computed.
    Expanded,
    /// Subsumed by another state at the same control state (stop operator).
    CoveredBy(NodeId),
    /// Cut off by a give-up condition or an analysis failure: not verified (assumption false).
    Cut(String),
    /// At an error location or otherwise a target state.
    Target,
    /// The guide automaton accepted: the path from here on was verified by an earlier stage.
    GuideAccepted,
    /// Removed by refinement (lazy abstraction); ignored everywhere.
    Removed,
}

/// The successors of a node with the steps to them; most nodes have one or two, kept inline
/// (an ARG has millions of nodes: one allocation less each).
pub type Children = SmallVec<[(Step, NodeId); 2]>;

/// One abstract state of the composite analysis.
#[derive(Debug, Clone)]
pub struct ArgNode<S> {
    pub control: ControlState,
    pub state: S,
    pub monitors: Vec<MonitorValue>,
    pub guide: Option<GuideStates>,
    pub parent: Option<(NodeId, Step)>,
    pub children: Children,
    pub status: NodeStatus,
    /// True once the successors of every step were computed. A step without a child is then
    /// infeasible (its successor is bottom); while false (the expansion stopped at a target),
    /// a missing child means "not computed".
    pub fully_expanded: bool,
}

/// The graph of all nodes; the root is node 0.
#[derive(Debug, Clone)]
pub struct Arg<S> {
    pub nodes: Vec<ArgNode<S>>,
}

impl<S> Arg<S> {
    pub fn node(&self, id: NodeId) -> &ArgNode<S> {
        &self.nodes[id.index()]
    }

    pub fn root(&self) -> NodeId {
        NodeId(0)
    }

    /// All node ids, removed ones included.
    pub fn ids(&self) -> impl Iterator<Item = NodeId> {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    /// Nodes that are part of the graph (not removed by refinement).
    pub fn live_ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.ids().filter(|&n| self.node(n).status != NodeStatus::Removed)
    }

    /// The steps from the root to `node`, with the nodes they lead to.
    pub fn path_to(&self, node: NodeId) -> Vec<(Step, NodeId)> {
        let mut out = Vec::new();
        let mut current = node;
        while let Some((parent, step)) = self.node(current).parent {
            out.push((step, current));
            current = parent;
        }
        out.reverse();
        out
    }

    /// Number of live nodes.
    pub fn len(&self) -> usize {
        self.live_ids().count()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}
