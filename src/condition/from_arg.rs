//! Conditions from the ARG: seed 000's "Assumptions Post-Processing" as an automaton.
//!
//! A node is *unsafe* when it is a frontier state (still waiting), was cut by a give-up
//! condition, is a target, or when something below it (a child, or the state covering it) is
//! unsafe. Every safe node collapses into the accepting sink `__TRUE`: all paths through it
//! were verified. Unsafe leaves go to the non-accepting sink `__FALSE` (the assumption `false`
//! of seed 000: not verified). Every other unsafe node becomes one automaton state whose
//! transitions follow the ARG's edges; a covered node stands for the node covering it, and a
//! callee's exit stands for the return site (returns are silent for conditions).

use super::{Assumption, ConditionAutomaton, ConditionState, StateId, Transition};
use crate::cfa::{EdgeId, Program};
use crate::cpa::arg::{Arg, NodeId, NodeStatus};
use crate::cpa::Step;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// Builds the condition of an analysis run from its ARG.
pub fn condition_from_arg<S>(arg: &Arg<S>, program: &Program) -> ConditionAutomaton {
    let unsafe_nodes = unsafe_nodes(arg);
    let root = arg.root();
    if !unsafe_nodes.contains(&root) {
        return ConditionAutomaton::fully_verified(&program.hash);
    }

    let mut builder = Builder::new(&program.hash);
    // Automaton states for unsafe, non-aliased nodes, discovered from the root.
    let start = representative(arg, root);
    let initial = builder.state_for(start);
    let mut queue = VecDeque::from([start]);
    let mut done = BTreeSet::new();
    while let Some(n) = queue.pop_front() {
        if !done.insert(n) {
            continue;
        }
        let from = builder.state_for(n);
        for &(step, child) in &arg.node(n).children {
            let Step::Edge(edge) = step else { continue };
            if arg.node(child).status == NodeStatus::Removed {
                continue;
            }
            let to = if !unsafe_nodes.contains(&child) {
                builder.accepting
            } else {
                let target = representative(arg, child);
                if is_leaf(arg, target) {
                    builder.rejecting
                } else {
                    queue.push_back(target);
                    builder.state_for(target)
                }
            };
            builder.add(from, edge, to);
        }
    }
    builder.finish(initial)
}

/// Nodes from which some path leads to a frontier, cut or target node.
fn unsafe_nodes<S>(arg: &Arg<S>) -> BTreeSet<NodeId> {
    // Reverse dependencies: a node's unsafety flows to its parent and to nodes it covers.
    let mut dependents: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
    let mut queue = VecDeque::new();
    let mut result = BTreeSet::new();
    for n in arg.live_ids() {
        let node = arg.node(n);
        if let Some((parent, _)) = node.parent {
            dependents.entry(n).or_default().push(parent);
        }
        match &node.status {
            NodeStatus::CoveredBy(m) => dependents.entry(*m).or_default().push(n),
            NodeStatus::Waiting | NodeStatus::Cut(_) | NodeStatus::Target => {
                if result.insert(n) {
                    queue.push_back(n);
                }
            }
            NodeStatus::Expanded | NodeStatus::GuideAccepted | NodeStatus::Removed => {}
        }
    }
    while let Some(n) = queue.pop_front() {
        for &d in dependents.get(&n).map(Vec::as_slice).unwrap_or_default() {
            if arg.node(d).status != NodeStatus::Removed && result.insert(d) {
                queue.push_back(d);
            }
        }
    }
    result
}

/// The node whose automaton state `n` shares: the covering node for a covered node, the
/// return site for a callee's exit (whose only step is the silent return).
fn representative<S>(arg: &Arg<S>, mut n: NodeId) -> NodeId {
    // Each hop moves to another location or to a non-covered node, so chains are short; the
    // bound only guards against a malformed ARG.
    for _ in 0..arg.nodes.len() {
        let node = arg.node(n);
        match node.status {
            NodeStatus::CoveredBy(m) => n = m,
            _ => match node.children.as_slice() {
                [(Step::Return { .. }, child)] => n = *child,
                _ => return n,
            },
        }
    }
    n
}

/// True for a node without successors in the ARG (frontier, cut or target).
fn is_leaf<S>(arg: &Arg<S>, n: NodeId) -> bool {
    matches!(
        arg.node(n).status,
        NodeStatus::Waiting | NodeStatus::Cut(_) | NodeStatus::Target
    ) || arg
        .node(n)
        .children
        .iter()
        .all(|&(_, c)| arg.node(c).status == NodeStatus::Removed)
}

struct Builder {
    hash: String,
    states: Vec<ConditionState>,
    ids: HashMap<NodeId, StateId>,
    accepting: StateId,
    rejecting: StateId,
    /// Edge sets per (from, to).
    transitions: BTreeMap<(StateId, StateId), BTreeSet<EdgeId>>,
}

impl Builder {
    fn new(hash: &str) -> Builder {
        let states = vec![
            ConditionState {
                name: "__TRUE".into(),
                accepting: true,
            },
            ConditionState {
                name: "__FALSE".into(),
                accepting: false,
            },
        ];
        Builder {
            hash: hash.to_string(),
            states,
            ids: HashMap::new(),
            accepting: StateId(0),
            rejecting: StateId(1),
            transitions: BTreeMap::new(),
        }
    }

    fn state_for(&mut self, n: NodeId) -> StateId {
        if let Some(&s) = self.ids.get(&n) {
            return s;
        }
        let id = StateId(self.states.len() as u32);
        self.states.push(ConditionState {
            name: format!("ARG{}", n.0),
            accepting: false,
        });
        self.ids.insert(n, id);
        id
    }

    fn add(&mut self, from: StateId, edge: EdgeId, to: StateId) {
        self.transitions.entry((from, to)).or_default().insert(edge);
    }

    fn finish(self, initial: StateId) -> ConditionAutomaton {
        let transitions = self
            .transitions
            .into_iter()
            .map(|((from, to), edges)| Transition {
                from,
                edges,
                assumption: Assumption::True,
                to,
            })
            .collect();
        ConditionAutomaton {
            program_hash: self.hash,
            states: self.states,
            initial,
            transitions,
        }
    }
}
