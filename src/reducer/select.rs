//! Which precise product nodes a residual program keeps.
//!
//! A precise node (automaton states other than `q_r`) is worth its copy of the program only if
//! a cut — a covered transition the residual does not take — is reachable from it: from any
//! other node the residual goes on with every path, as `q_r` does. Within a size cap the
//! residual keeps the cuts nearest the entry (breadth-first depth of the node they leave) with
//! every node on a path to them: a cut near the entry removes the most paths, and keeping all
//! the paths to a cut makes it cut every covered path through it.

use super::{Product, ProductNode};
use crate::cfa::LocId;
use std::collections::{HashSet, VecDeque};

/// The cuts of a product ranked for keeping, and the graph to find the nodes leading to them.
pub(super) struct Choice<'a> {
    product: &'a Product,
    /// Locations that cuts leave, each once, nearest the entry first.
    ranked: Vec<LocId>,
    /// The precise nodes from which some cut is reachable.
    useful: usize,
}

impl<'a> Choice<'a> {
    pub(super) fn new(product: &'a Product) -> Self {
        let program = &product.residual.program;
        let n = program.locations.len();
        let mut cut = vec![false; n];
        for l in &product.cut_from {
            cut[l.index()] = true;
        }
        // Breadth-first from the entry: the cut locations in order of depth.
        let mut seen = vec![false; n];
        let mut queue = VecDeque::from([program.main().entry]);
        seen[program.main().entry.index()] = true;
        let mut ranked = Vec::new();
        while let Some(l) = queue.pop_front() {
            if cut[l.index()] {
                ranked.push(l);
            }
            for &e in program.out_edges(l) {
                let to = program.edge(e).to;
                if !seen[to.index()] {
                    seen[to.index()] = true;
                    queue.push_back(to);
                }
            }
        }
        let mut choice = Choice {
            product,
            ranked,
            useful: 0,
        };
        choice.useful = choice.keep(choice.ranked.len()).len();
        choice
    }

    /// The number of locations cuts leave (the most [`Choice::keep`] can take).
    pub(super) fn cut_locations(&self) -> usize {
        self.ranked.len()
    }

    /// The number of precise nodes from which some cut is reachable (what the exact residual
    /// keeps).
    pub(super) fn useful_nodes(&self) -> usize {
        self.useful
    }

    /// The precise nodes on some path to one of the first `k` cut locations (themselves
    /// included): every node that reaches them, found backwards.
    pub(super) fn keep(&self, k: usize) -> HashSet<ProductNode> {
        let program = &self.product.residual.program;
        let mut seen = vec![false; program.locations.len()];
        let mut stack: Vec<LocId> = self.ranked.iter().take(k).copied().collect();
        for l in &stack {
            seen[l.index()] = true;
        }
        let mut kept = HashSet::new();
        while let Some(l) = stack.pop() {
            if let Some(node) = &self.product.nodes[l.index()] {
                // `q_r` never leads back to a precise node.
                if node.states.is_empty() {
                    continue;
                }
                kept.insert(node.clone());
            }
            for &e in program.in_edges(l) {
                let from = program.edge(e).from;
                if !seen[from.index()] {
                    seen[from.index()] = true;
                    stack.push(from);
                }
            }
        }
        kept
    }
}
