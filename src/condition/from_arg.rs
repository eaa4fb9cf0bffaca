//! Conditions from the ARG: seed 000's "Assumptions Post-Processing" as an automaton.
//!
//! A node is *unsafe* when it is a frontier state (still waiting), was cut by a give-up
//! condition, is a target, or when something below it (a child, or the state covering it) is
//! unsafe. Every safe node collapses into the accepting sink `__TRUE`: all paths through it
//! were verified. Unsafe leaves go to the non-accepting sink `__FALSE` (the assumption `false`
//! of seed 000: not verified). Every other unsafe node becomes one automaton state whose
//! transitions follow the ARG's edges; a covered node stands for the node covering it, and a
//! callee's exit stands for the return site (returns are silent for conditions). An edge the
//! analysis found infeasible from a node (the node's expansion ran to its end and gave no
//! successor for the edge) leads into `__TRUE`: no execution takes it. A node whose expansion
//! stopped early (at a target) has no transition for the edges it did not compute.
//!
//! The construction is linear in the ARG (arrays indexed by node, no maps) because it runs
//! after a give-up, inside the analysis' budget. With a deadline it is an *anytime*
//! construction: the automaton states are built breadth-first from the root, and when the
//! deadline passes, the states not yet built keep no transitions. A non-accepting state without
//! transitions covers nothing, so the cut-short condition covers a subset of the paths of the
//! full one — less verified work is handed on, but nothing unverified.

use super::state_cut::{integers_only, single_context_functions, StateCut, Valuation};
use super::{Assumption, ConditionAutomaton, ConditionState, Cut, StateId, Transition};
use crate::cfa::{EdgeId, Program};
use crate::cpa::arg::{Arg, NodeId, NodeStatus};
use crate::cpa::budget::CpuDeadline;
use crate::cpa::control::ControlState;
use crate::cpa::Step;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A condition built from an ARG.
#[derive(Debug, Clone)]
pub struct ArgCondition {
    pub automaton: ConditionAutomaton,
    /// True if the deadline passed before every state was built (see the module doc).
    pub cut_short: bool,
}

/// Automaton states built between two looks at the clock.
const STATES_PER_CLOCK_CHECK: usize = 1024;

/// An analysis' reading of its state at a control state as a valuation
/// ([`crate::cpa::Cpa::valuation`]).
pub type Valuations<'a, S> = &'a dyn Fn(&S, &ControlState) -> Option<Valuation>;

/// Most states one state cut lists; further cuts at its edge stay cuts of the path.
const MAX_STATES_PER_CUT: usize = 256;

/// Builds the condition of an analysis run from its ARG, stopping to add transitions when
/// `deadline` passes (see the module doc). With `valuations`, a cut whose node's state is a
/// valuation is also made a state cut (see [`StateCuts`]).
pub fn condition_from_arg<S>(
    arg: &Arg<S>,
    program: &Program,
    deadline: Option<CpuDeadline>,
    valuations: Option<Valuations<'_, S>>,
) -> ArgCondition {
    let unsafe_nodes = unsafe_nodes(arg);
    let root = arg.root();
    if !unsafe_nodes[root.index()] {
        return ArgCondition {
            automaton: ConditionAutomaton::fully_verified(&program.hash),
            cut_short: false,
        };
    }

    let mut builder = Builder::new(&program.hash, arg.nodes.len());
    let mut state_cuts = StateCuts::new(arg, program, valuations);
    // Automaton states for unsafe, non-aliased nodes, discovered from the root. A node is
    // queued once: when its automaton state is created.
    let start = representative(arg, root);
    let initial = builder.state_for(start).0;
    let mut queue = VecDeque::from([start]);
    let mut built = 0;
    let mut cut_short = false;
    // (target, cut, edge) per step of the node.
    let mut out: Vec<(StateId, Cut, EdgeId)> = Vec::new();
    while let Some(n) = queue.pop_front() {
        built += 1;
        if built % STATES_PER_CLOCK_CHECK == 0 && deadline.is_some_and(CpuDeadline::passed) {
            cut_short = true;
            break;
        }
        let from = builder.state_for(n).0;
        out.clear();
        for &(step, child) in &arg.node(n).children {
            let Step::Edge(edge) = step else { continue };
            if arg.node(child).status == NodeStatus::Removed {
                continue;
            }
            if !unsafe_nodes[child.index()] {
                let cut = if state_cuts.add(arg.node(n), edge) {
                    Cut::InStateCut
                } else {
                    Cut::Explored
                };
                out.push((builder.accepting, cut, edge));
                continue;
            }
            let target = representative(arg, child);
            let to = if is_leaf(arg, target) {
                builder.rejecting
            } else {
                let (state, created) = builder.state_for(target);
                if created {
                    queue.push_back(target);
                }
                state
            };
            out.push((to, Cut::Explored, edge));
        }
        // A step of a fully expanded node without a child is infeasible: no execution takes
        // it, so every path through it is verified (a cut that removes no execution).
        let node = arg.node(n);
        if node.status == NodeStatus::Expanded && node.fully_expanded {
            for step in node.control.steps(program) {
                if let Step::Edge(edge) = step {
                    if !node.children.iter().any(|&(s, _)| s == step) {
                        out.push((builder.accepting, Cut::Infeasible, edge));
                    }
                }
            }
        }
        builder.add_transitions(from, &mut out);
    }
    let mut automaton = builder.finish(initial);
    automaton.state_cuts = state_cuts.finish();
    ArgCondition { automaton, cut_short }
}

/// The state cuts of a condition from the ARG: where a node's step leads into a verified
/// subtree and the analysis reads the node's state as a valuation, every execution that takes
/// the step from a state with those values is verified — the subtree was explored for all of
/// them. That holds independently of the path only if the location determines the call stack
/// (the function has a single calling context), the values are plain integers (no addresses,
/// [`integers_only`]), and no guide decided part of the subtree (an earlier condition's
/// coverage depends on the path); otherwise no state cuts are made.
struct StateCuts<'a, S> {
    valuations: Option<Valuations<'a, S>>,
    single_context: Vec<bool>,
    program: &'a Program,
    by_edge: BTreeMap<EdgeId, BTreeSet<Valuation>>,
}

impl<'a, S> StateCuts<'a, S> {
    fn new(arg: &Arg<S>, program: &'a Program, valuations: Option<Valuations<'a, S>>) -> Self {
        let usable = arg.node(arg.root()).guide.is_none() && integers_only(program);
        StateCuts {
            valuations: valuations.filter(|_| usable),
            single_context: if usable {
                single_context_functions(program)
            } else {
                Vec::new()
            },
            program,
            by_edge: BTreeMap::new(),
        }
    }

    /// Records the state cut of `node`'s step `edge` into a verified subtree; false if there is
    /// none.
    fn add(&mut self, node: &crate::cpa::arg::ArgNode<S>, edge: EdgeId) -> bool {
        let Some(valuation) = self.valuations else {
            return false;
        };
        let function = self.program.location(node.control.location).func;
        if !self
            .single_context
            .get(function.index())
            .copied()
            .unwrap_or(false)
        {
            return false;
        }
        let Some(values) = valuation(&node.state, &node.control) else {
            return false;
        };
        let states = self.by_edge.entry(edge).or_default();
        if states.len() >= MAX_STATES_PER_CUT && !states.contains(&values) {
            return false;
        }
        states.insert(values);
        true
    }

    fn finish(self) -> Vec<StateCut> {
        self.by_edge
            .into_iter()
            .map(|(edge, states)| StateCut {
                edge,
                states: states.into_iter().collect(),
            })
            .collect()
    }
}

/// Per node: true if some path from it leads to a frontier, cut or target node.
fn unsafe_nodes<S>(arg: &Arg<S>) -> Vec<bool> {
    let count = arg.nodes.len();
    // The nodes each node covers, as one array sliced by `covered_start` (a node's unsafety
    // flows to its parent and to the nodes it covers).
    let mut covered_start = vec![0u32; count + 1];
    for n in arg.live_ids() {
        if let NodeStatus::CoveredBy(m) = arg.node(n).status {
            covered_start[m.index() + 1] += 1;
        }
    }
    for i in 0..count {
        covered_start[i + 1] += covered_start[i];
    }
    let mut fill = covered_start.clone();
    let mut covered = vec![NodeId(0); covered_start[count] as usize];
    let mut result = vec![false; count];
    let mut stack = Vec::new();
    for n in arg.live_ids() {
        match arg.node(n).status {
            NodeStatus::CoveredBy(m) => {
                covered[fill[m.index()] as usize] = n;
                fill[m.index()] += 1;
            }
            NodeStatus::Waiting | NodeStatus::Cut(_) | NodeStatus::Target => {
                result[n.index()] = true;
                stack.push(n);
            }
            NodeStatus::Expanded | NodeStatus::GuideAccepted | NodeStatus::Removed => {}
        }
    }
    while let Some(n) = stack.pop() {
        let parent = arg.node(n).parent.map(|(p, _)| p);
        let range = covered_start[n.index()] as usize..covered_start[n.index() + 1] as usize;
        for d in parent.into_iter().chain(covered[range].iter().copied()) {
            if !result[d.index()] && arg.node(d).status != NodeStatus::Removed {
                result[d.index()] = true;
                stack.push(d);
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

/// No automaton state for the node (yet).
const NO_STATE: u32 = u32::MAX;

struct Builder {
    hash: String,
    states: Vec<ConditionState>,
    /// The automaton state of each ARG node, or [`NO_STATE`].
    ids: Vec<u32>,
    accepting: StateId,
    rejecting: StateId,
    transitions: Vec<Transition>,
}

impl Builder {
    fn new(hash: &str, nodes: usize) -> Builder {
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
            ids: vec![NO_STATE; nodes],
            accepting: StateId(0),
            rejecting: StateId(1),
            transitions: Vec::new(),
        }
    }

    /// The state of node `n`, and whether it was created now.
    fn state_for(&mut self, n: NodeId) -> (StateId, bool) {
        let id = self.ids[n.index()];
        if id != NO_STATE {
            return (StateId(id), false);
        }
        let id = self.states.len() as u32;
        self.states.push(ConditionState {
            name: format!("ARG{}", n.0),
            accepting: false,
        });
        self.ids[n.index()] = id;
        (StateId(id), true)
    }

    /// Adds the transitions of state `from`: one per target state and kind (infeasible steps
    /// apart) with all edges leading there.
    fn add_transitions(&mut self, from: StateId, out: &mut [(StateId, Cut, EdgeId)]) {
        out.sort_unstable();
        for group in out.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
            self.transitions.push(Transition {
                from,
                edges: group.iter().map(|&(_, _, e)| e).collect::<BTreeSet<_>>(),
                assumption: Assumption::True,
                to: group[0].0,
                cut: group[0].1,
            });
        }
    }

    fn finish(mut self, initial: StateId) -> ConditionAutomaton {
        // In the order of (from, to): states are built in the order of their ids.
        self.transitions.sort_by_key(|t| (t.from, t.to));
        ConditionAutomaton {
            program_hash: self.hash,
            states: self.states,
            initial,
            transitions: self.transitions,
            state_cuts: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::condition::fixtures;
    use crate::cpa::arg::{ArgNode, Children};
    use crate::cpa::budget::CpuDeadline;
    use crate::cpa::control::ControlState;
    use std::time::Duration;

    /// An ARG node without children.
    fn node(
        control: &ControlState,
        parent: Option<(NodeId, Step)>,
        status: NodeStatus,
        fully_expanded: bool,
    ) -> ArgNode<()> {
        ArgNode {
            control: control.clone(),
            state: (),
            monitors: Vec::new(),
            guide: None,
            parent,
            children: Children::new(),
            status,
            fully_expanded,
        }
    }

    /// An ARG over the fixture program: a chain of `len` expanded nodes along edge E0 (the
    /// edges do not matter to the construction) ending in a frontier node, with a covered
    /// side branch at every node.
    fn chain(len: u32) -> Arg<()> {
        let program = fixtures::program();
        let control = ControlState::initial(&program);
        // The chain's edges are not its location's (N0's): no edge counts as infeasible.
        let node = |parent, status| node(&control, parent, status, false);
        let mut arg = Arg {
            nodes: vec![node(None, NodeStatus::Expanded)],
        };
        let mut parent = NodeId(0);
        for i in 0..len {
            let last = i + 1 == len;
            let next = NodeId(arg.nodes.len() as u32);
            let side = NodeId(next.0 + 1);
            let status = if last {
                NodeStatus::Waiting
            } else {
                NodeStatus::Expanded
            };
            arg.nodes
                .push(node(Some((parent, Step::Edge(EdgeId(2)))), status));
            arg.nodes.push(node(
                Some((parent, Step::Edge(EdgeId(3)))),
                NodeStatus::CoveredBy(NodeId(0)),
            ));
            arg.nodes[parent.index()]
                .children
                .extend([(Step::Edge(EdgeId(2)), next), (Step::Edge(EdgeId(3)), side)]);
            parent = next;
        }
        arg
    }

    #[test]
    fn unsafe_chain_becomes_states_and_covered_branches_point_back() {
        let program = fixtures::program();
        let arg = chain(3);
        let c = condition_from_arg(&arg, &program, None, None);
        assert!(!c.cut_short);
        let a = &c.automaton;
        // __TRUE, __FALSE, ARG0 and the two inner chain nodes; the frontier leaf is __FALSE.
        assert_eq!(a.states.len(), 5);
        assert_eq!(a.state_name(a.initial), "ARG0");
        // Every chain node: E2 deeper (the last one into __FALSE), E3 back to ARG0 (the
        // covering node, unsafe through the chain).
        assert_eq!(a.transitions.len(), 6);
        assert!(!a.covers(&[EdgeId(2), EdgeId(2), EdgeId(2)]));
        assert!(a.is_trivial_empty());
    }

    #[test]
    fn safe_arg_is_fully_verified() {
        let program = fixtures::program();
        let mut arg = chain(2);
        let last = arg.nodes.len() - 2;
        arg.nodes[last].status = NodeStatus::Expanded;
        let c = condition_from_arg(&arg, &program, None, None);
        assert!(c.automaton.is_trivial_full());
    }

    #[test]
    fn a_passed_deadline_leaves_a_smaller_condition_that_covers_no_more() {
        let program = fixtures::program();
        let mut arg = chain(10_000);
        // A safe branch at the root: covered by the full condition, through E1 into __TRUE.
        let safe = NodeId(arg.nodes.len() as u32);
        let mut leaf = arg.nodes[2].clone();
        leaf.parent = Some((NodeId(0), Step::Edge(EdgeId(1))));
        leaf.status = NodeStatus::GuideAccepted;
        arg.nodes.push(leaf);
        arg.nodes[0].children.push((Step::Edge(EdgeId(1)), safe));
        let full = condition_from_arg(&arg, &program, None, None);
        assert!(!full.cut_short);
        assert!(full.automaton.covers(&[EdgeId(1)]));
        let passed = CpuDeadline::after(Duration::ZERO);
        let short = condition_from_arg(&arg, &program, Some(passed), None);
        assert!(short.cut_short);
        assert!(short.automaton.transitions.len() < full.automaton.transitions.len());
        assert!(short.automaton.check_well_formed().is_ok());
        // The first states are built before the clock is read: the safe branch is kept.
        assert!(short.automaton.covers(&[EdgeId(1)]));
    }

    /// A node at the fixture's branch N2 (edges E2 and E3) with a frontier child through E2
    /// only: E3 gave no successor.
    fn branch_with_one_child(fully_expanded: bool) -> Arg<()> {
        let control = ControlState {
            location: crate::cfa::LocId(2),
            call_stack: Default::default(),
        };
        let node = |parent, status, fully_expanded| node(&control, parent, status, fully_expanded);
        let mut root = node(None, NodeStatus::Expanded, fully_expanded);
        root.children.push((Step::Edge(EdgeId(2)), NodeId(1)));
        let child = node(
            Some((NodeId(0), Step::Edge(EdgeId(2)))),
            NodeStatus::Waiting,
            false,
        );
        Arg {
            nodes: vec![root, child],
        }
    }

    #[test]
    fn an_edge_without_successor_of_a_fully_expanded_node_is_verified() {
        let program = fixtures::program();
        let c = condition_from_arg(&branch_with_one_child(true), &program, None, None);
        assert!(c.automaton.covers(&[EdgeId(3)]));
        assert!(!c.automaton.covers(&[EdgeId(2)]));
    }

    #[test]
    fn an_edge_not_computed_by_a_cut_off_expansion_is_not_verified() {
        let program = fixtures::program();
        let c = condition_from_arg(&branch_with_one_child(false), &program, None, None);
        assert!(!c.automaton.covers(&[EdgeId(3)]));
        assert!(!c.automaton.covers(&[EdgeId(2)]));
    }
}
