//! Checking a region path by path: every path through the region from its start is encoded on
//! its own, one solver scope per transition, and a branch whose path is infeasible is not
//! followed. Where a region has few feasible paths this is cheaper than its one formula
//! (pc_sfifo_1-2's predicate witness: see [`super::WALKED_PATHS`]); where it has many, the region
//! is checked as one formula. Both check the same
//! obligations on arrival ([`Checker::arrived`]).
//!
//! Where a region's one formula is stuck, the region is split at its branch points by the same
//! walk: after each branch, the rest of the region from there is tried as one formula of its
//! own (with the path so far asserted), and only where that is stuck too does the walk go on
//! into it. The pieces cover every path, each obligation on arrival is checked in every piece
//! that reaches it.

use super::{Arrival, Checker, EntryState, Proof};
use crate::witness::region::{Region, Via};
use z3::ast::Bool;

/// How a walk through a region ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Walk {
    /// Every path was checked: all obligations hold.
    Done,
    /// The walk took all its steps before it was through: nothing is shown.
    OutOfSteps,
}

/// The region being walked, with what the walk needs of it.
struct Walker<'r> {
    region: &'r Region,
    /// Per node: the nodes it leads to, and how.
    outgoing: Vec<Vec<(usize, Via)>>,
    entry: Option<&'r EntryState>,
    steps_left: usize,
    /// After each branch, the rest of the region is tried as one formula first.
    split: bool,
}

impl<'r> Walker<'r> {
    fn new(region: &'r Region, entry: Option<&'r EntryState>, steps_left: usize, split: bool) -> Self {
        let mut outgoing: Vec<Vec<(usize, Via)>> = vec![Vec::new(); region.nodes.len()];
        for (to, incoming) in region.incoming.iter().enumerate() {
            for t in incoming {
                outgoing[t.from].push((to, t.via));
            }
        }
        Walker {
            region,
            outgoing,
            entry,
            steps_left,
            split,
        }
    }
}

impl Checker<'_> {
    /// Checks every path through `region` from `start` (asserted already) in at most `steps`
    /// transitions.
    pub(super) fn walk_paths(
        &mut self,
        region: &Region,
        start: Arrival,
        entry: Option<&EntryState>,
        steps: usize,
    ) -> Result<Walk, Proof> {
        let mut walker = Walker::new(region, entry, steps, false);
        self.follow(&mut walker, 0, &start)
    }

    /// Checks `region` from `start` (asserted already) split at its branch points: the rest
    /// after each branch as one formula, walked on where that is stuck (see the module doc).
    /// Bounded by the check's steps and time only.
    pub(super) fn walk_split(
        &mut self,
        region: &Region,
        start: Arrival,
        entry: Option<&EntryState>,
    ) -> Result<(), Proof> {
        let mut walker = Walker::new(region, entry, usize::MAX, true);
        match self.follow(&mut walker, 0, &start)? {
            Walk::Done => Ok(()),
            Walk::OutOfSteps => Err(Proof::Unknown("the split region was not walked through".into())),
        }
    }

    /// Follows each transition out of `node`, reached by the path `at`.
    fn follow(&mut self, walker: &mut Walker, node: usize, at: &Arrival) -> Result<Walk, Proof> {
        let out = walker.outgoing[node].clone();
        let branching = out.len() > 1;
        for (to, via) in out {
            if walker.steps_left == 0 {
                return Ok(Walk::OutOfSteps);
            }
            walker.steps_left -= 1;
            self.tick()?;
            let summaries = self.summaries;
            self.solver.push();
            let result = self.take(walker, to, via, at, branching);
            self.solver.pop(1);
            self.summaries = summaries;
            if result? == Walk::OutOfSteps {
                return Ok(Walk::OutOfSteps);
            }
        }
        Ok(Walk::Done)
    }

    /// Takes the transition `via` to node `to` after the path `at` (in a solver scope of its
    /// own); a branch whose path is infeasible ends there.
    fn take(
        &mut self,
        walker: &mut Walker,
        to: usize,
        via: Via,
        at: &Arrival,
        branching: bool,
    ) -> Result<Walk, Proof> {
        let Some((taken, path)) = self.transition(at, via)? else {
            return Ok(Walk::Done);
        };
        self.solver.assert(&taken);
        if branching && !self.sat(None)? {
            return Ok(Walk::Done);
        }
        let next = Arrival {
            reached: Bool::from_bool(true),
            path,
        };
        self.arrived(walker.region, to, &next, walker.entry)?;
        if walker.split
            && branching
            && !walker.outgoing[to].is_empty()
            && self.formula_within_share(walker.region, to, next.clone(), walker.entry)?
        {
            return Ok(Walk::Done);
        }
        self.follow(walker, to, &next)
    }
}
