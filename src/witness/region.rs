//! The loop-free region of a program from one cut point to the next ones: every location
//! reachable from the start without passing another cut point, with the calls it enters inlined
//! (one node per location and stack of inlined calls), in topological order, each with the
//! transitions that lead to it. The validator encodes a region as one formula, paths merged
//! where they meet (large-block encoding), and checks each pair of cut points with one query
//! ([`super::inductive`]).
//!
//! Calls of the functions that are `summarised` (the recursive ones) are not entered: such a
//! call is one transition to its return site. Every cycle of a CFA passes a loop head, which is
//! a cut point, so a region has no cycle.

use crate::cfa::{EdgeId, LocId, LocationKind, Operation, Program};
use crate::cpa::Step;
use std::collections::HashMap;

/// A location inside the calls (edges, outermost first) entered since the region's start.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Node {
    pub loc: LocId,
    pub stack: Vec<EdgeId>,
}

/// How a transition gets to its node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// One CFA step (a call entered, a return to the call on the stack or, where the stack is
    /// empty, to a call site of the function).
    Step(Step),
    /// The call edge of a summarised function, from the call to its return site.
    Summary(EdgeId),
}

/// A transition from node `from` (an index into [`Region::nodes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition {
    pub from: usize,
    pub via: Via,
}

/// What a node is for the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The region's start.
    Start,
    /// A location inside the region.
    Inner,
    /// Another cut point (or the start again): its invariants must hold on arrival.
    Cut,
    /// An error location: it must be unreachable.
    Error,
    /// The exit of a summarised function outside every inlined call: its contract's `ensures`
    /// must hold.
    Return,
    /// The program ends here (a terminal location, `main`'s exit).
    End,
}

/// A region in topological order: node 0 is the start, every transition comes from an earlier
/// node.
#[derive(Debug, Clone)]
pub struct Region {
    pub nodes: Vec<Node>,
    pub roles: Vec<Role>,
    pub incoming: Vec<Vec<Transition>>,
}

/// The region from `start`: `is_cut` says which locations are cut points, `summarised` (per
/// function) which calls are not entered. Fails with more than `max_nodes` nodes, or on a
/// cycle (a loop without a loop head, which the CFA does not have).
pub fn build(
    program: &Program,
    start: LocId,
    is_cut: &dyn Fn(LocId) -> bool,
    summarised: &[bool],
    max_nodes: usize,
) -> Result<Region, String> {
    let mut index: HashMap<Node, usize> = HashMap::new();
    let mut nodes: Vec<Node> = Vec::new();
    let mut roles: Vec<Role> = Vec::new();
    let mut edges: Vec<Vec<(usize, Via)>> = Vec::new();
    let first = Node {
        loc: start,
        stack: Vec::new(),
    };
    // The start is not indexed: arriving at its location again is a node of its own (a cut
    // to check).
    nodes.push(first);
    roles.push(Role::Start);
    edges.push(Vec::new());
    let mut work = vec![0usize];
    while let Some(i) = work.pop() {
        let node = nodes[i].clone();
        if roles[i] != Role::Start {
            let role = role_of(program, &node, is_cut, summarised);
            roles[i] = role;
            if role != Role::Inner {
                continue;
            }
        }
        for (to, via) in successors(program, &node, summarised) {
            let j = match index.get(&to) {
                Some(&j) => j,
                None => {
                    if nodes.len() >= max_nodes {
                        return Err(format!("more than {max_nodes} locations between loop heads"));
                    }
                    let j = nodes.len();
                    index.insert(to.clone(), j);
                    nodes.push(to);
                    roles.push(Role::Inner);
                    edges.push(Vec::new());
                    work.push(j);
                    j
                }
            };
            edges[i].push((j, via));
        }
    }
    topological(nodes, roles, &edges)
}

/// What a node other than the start is.
fn role_of(program: &Program, node: &Node, is_cut: &dyn Fn(LocId) -> bool, summarised: &[bool]) -> Role {
    let location = program.location(node.loc);
    if is_cut(node.loc) {
        return Role::Cut;
    }
    match location.kind {
        LocationKind::Error => Role::Error,
        LocationKind::Terminal => Role::End,
        LocationKind::FunctionExit if node.stack.is_empty() => {
            if location.func == program.entry_function {
                Role::End
            } else if summarised.get(location.func.index()).copied().unwrap_or(false) {
                Role::Return
            } else {
                Role::Inner
            }
        }
        LocationKind::FunctionExit | LocationKind::Normal => Role::Inner,
    }
}

/// The nodes a node leads to, and how.
fn successors(program: &Program, node: &Node, summarised: &[bool]) -> Vec<(Node, Via)> {
    let location = program.location(node.loc);
    if location.kind == LocationKind::FunctionExit {
        return match node.stack.split_last() {
            Some((&call, below)) => vec![(
                Node {
                    loc: program.edge(call).to,
                    stack: below.to_vec(),
                },
                Via::Step(Step::Return { call }),
            )],
            // The call stack below the start is unknown: back to every call site.
            None => program
                .edge_ids()
                .filter(|&e| {
                    matches!(program.edge(e).op, Operation::Call { callee, .. } if callee == location.func)
                })
                .map(|call| {
                    (
                        Node {
                            loc: program.edge(call).to,
                            stack: Vec::new(),
                        },
                        Via::Step(Step::Return { call }),
                    )
                })
                .collect(),
        };
    }
    program
        .out_edges(node.loc)
        .iter()
        .map(|&id| {
            let edge = program.edge(id);
            match &edge.op {
                Operation::Call { callee, .. }
                    if summarised.get(callee.index()).copied().unwrap_or(false) =>
                {
                    (
                        Node {
                            loc: edge.to,
                            stack: node.stack.clone(),
                        },
                        Via::Summary(id),
                    )
                }
                Operation::Call { callee, .. } => {
                    let mut stack = node.stack.clone();
                    stack.push(id);
                    (
                        Node {
                            loc: program.function(*callee).entry,
                            stack,
                        },
                        Via::Step(Step::Edge(id)),
                    )
                }
                _ => (
                    Node {
                        loc: edge.to,
                        stack: node.stack.clone(),
                    },
                    Via::Step(Step::Edge(id)),
                ),
            }
        })
        .collect()
}

/// The region with its nodes in topological order (Kahn's algorithm, the start first).
fn topological(nodes: Vec<Node>, roles: Vec<Role>, edges: &[Vec<(usize, Via)>]) -> Result<Region, String> {
    let n = nodes.len();
    let mut indegree = vec![0usize; n];
    for out in edges {
        for &(j, _) in out {
            indegree[j] += 1;
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut ready = vec![0usize];
    while let Some(i) = ready.pop() {
        order.push(i);
        for &(j, _) in &edges[i] {
            indegree[j] -= 1;
            if indegree[j] == 0 {
                ready.push(j);
            }
        }
    }
    if order.len() != n {
        return Err("a cycle between loop heads".into());
    }
    let mut position = vec![0usize; n];
    for (k, &i) in order.iter().enumerate() {
        position[i] = k;
    }
    let mut incoming: Vec<Vec<Transition>> = vec![Vec::new(); n];
    for (i, out) in edges.iter().enumerate() {
        for &(j, via) in out {
            incoming[position[j]].push(Transition {
                from: position[i],
                via,
            });
        }
    }
    let mut slots: Vec<Option<(Node, Role)>> = nodes.into_iter().zip(roles).map(Some).collect();
    let (nodes, roles) = order.iter().filter_map(|&i| slots[i].take()).unzip();
    Ok(Region {
        nodes,
        roles,
        incoming,
    })
}

impl Region {
    /// How many paths lead from the start to a node without successors (a cut point, error,
    /// return or end), counted up to `cap` (the count grows exponentially with the branches
    /// one after the other).
    pub fn paths(&self, cap: u64) -> u64 {
        let mut into = vec![0u64; self.nodes.len()];
        let mut leads_on = vec![false; self.nodes.len()];
        if let Some(first) = into.first_mut() {
            *first = 1;
        }
        for (i, incoming) in self.incoming.iter().enumerate() {
            for t in incoming {
                into[i] = into[i].saturating_add(into[t.from]).min(cap);
                leads_on[t.from] = true;
            }
        }
        into.iter()
            .zip(&leads_on)
            .filter(|(_, &on)| !on)
            .fold(0u64, |total, (&n, _)| total.saturating_add(n).min(cap))
    }
}
