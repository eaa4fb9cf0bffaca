//! The CPA algorithm: reached set, waitlist, stop-sep, give-up monitors, guide automaton and
//! the ARG it builds.

use super::arg::{Arg, ArgNode, Children, GuideStates, NodeId, NodeStatus};
use super::budget::{default_memory_limit, finishing_reserve, CpuDeadline};
use super::control::ControlState;
use super::monitor::{
    cpu_time_limit, process_cpu_time, resident_memory, GiveUp, StepInfo, DEFAULT_RECURSION_DEPTH,
};
use super::{Cpa, Step, Transfer};
use crate::cfa::{Operation, Program};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Set by a process that exits as soon as its analysis is reported (see [`exit_follows_analysis`]).
static EXIT_FOLLOWS_ANALYSIS: AtomicBool = AtomicBool::new(false);

/// Declares that this process exits right after its analysis (the `verify` command, which is
/// also what native flow stages run): engines then leave their ARG, reached set and waitlist
/// to the operating system instead of freeing them node by node. On ARGs of millions of states
/// freeing takes seconds of CPU time, which the stage's `cpu-time` budget would otherwise have
/// to reserve.
pub fn exit_follows_analysis() {
    EXIT_FOLLOWS_ANALYSIS.store(true, Ordering::Relaxed);
}

/// Order in which the waitlist hands out states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchOrder {
    /// Depth-first (finds deep bugs quickly; the order of seed 000's explicit runs).
    #[default]
    Dfs,
    /// Breadth-first (shortest counterexamples first).
    Bfs,
}

impl std::str::FromStr for SearchOrder {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "dfs" => Ok(SearchOrder::Dfs),
            "bfs" => Ok(SearchOrder::Bfs),
            _ => Err(format!("unknown search order `{s}` (expected dfs or bfs)")),
        }
    }
}

/// A condition automaton run alongside the analysis (guide mode, seed 000 §IV-C): paths it
/// accepts were verified by an earlier stage and are not explored again. Returns are silent.
pub trait Guide {
    /// The automaton states at program start.
    fn initial(&self) -> GuideStates;
    /// The automaton states after a CFA edge.
    fn step(&self, states: &GuideStates, step: Step) -> GuideStates;
    /// True if the set contains an accepting state.
    fn accepts(&self, states: &GuideStates) -> bool;
}

/// Successors known without the transfer: reused from a previous version's proof (seed 002),
/// where the caller checked that the transfer would compute the same.
pub trait Reuse<S> {
    /// All successors of the waiting node `id` about to be expanded, one state per step, each
    /// with whether to look for a cover (a state left uncovered is only explored more than
    /// needed); `None`: compute them with the transfer.
    fn successors(&mut self, arg: &Arg<S>, id: NodeId) -> Option<Vec<(Step, S, bool)>>;
    /// The nodes made for the successors of `id` given by [`Reuse::successors`], in their
    /// order, with whether each is queued (not cut, covered or left to the guide). A successor
    /// [`Cpa::confirm`] finds infeasible gets no node.
    fn added(&mut self, id: NodeId, children: &[(NodeId, bool)]);
}

/// How one engine run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunOutcome {
    /// The waitlist is empty: every state not cut or guided away was explored.
    Complete,
    /// A target state was reached; exploration can resume with [`Engine::run`].
    Target(NodeId),
    /// A global give-up condition fired; the waitlist is the unexplored frontier.
    Stopped(GiveUp),
}

/// Counters of one analysis run.
#[derive(Debug, Clone, Default)]
pub struct EngineStats {
    /// States taken from the waitlist and expanded.
    pub expanded: u64,
    /// ARG nodes created (the root included).
    pub created: u64,
    /// New states subsumed by a reached state.
    pub covered: u64,
    /// States cut by give-up conditions or analysis failures.
    pub cut: u64,
    /// States where the guide automaton accepted.
    pub guide_accepted: u64,
    /// New states [`Cpa::confirm`] found infeasible after the stop operator.
    pub infeasible: u64,
    /// Largest waitlist size seen.
    pub max_waitlist: usize,
    /// CPU time: of the engine runs, or (in an analysis outcome) of the whole analysis.
    pub cpu_time: Duration,
}

/// Where a new successor ended up.
enum Added {
    /// In the reached set, to be queued.
    Reached(NodeId),
    /// A target state.
    Target(NodeId),
    /// Cut, covered or left to the guide.
    Settled(NodeId),
    /// Found infeasible by [`Cpa::confirm`]: no node.
    Infeasible,
}

/// Longest time (wall clock) between two looks at the CPU-time and memory limits.
const SLOW_CHECK_INTERVAL: Duration = Duration::from_millis(10);

/// One analysis with its reached set, waitlist and ARG.
pub struct Engine<'p, C: Cpa> {
    program: &'p Program,
    cpa: C,
    /// The current precision (refined by CEGAR between runs).
    pub precision: C::Precision,
    order: SearchOrder,
    give_up: Vec<GiveUp>,
    path_monitors: Vec<GiveUp>,
    guide: Option<&'p dyn Guide>,
    reuse: Option<Box<dyn Reuse<C::State> + 'p>>,
    arg: Arg<C::State>,
    waitlist: VecDeque<NodeId>,
    reached: FxHashMap<ControlState, C::CoverIndex>,
    reached_count: u64,
    states_per_location: Vec<u64>,
    posts_per_edge: Vec<u64>,
    stats: EngineStats,
    cpu_at_start: Duration,
    /// When the slow limits (CPU time, memory) were last checked.
    last_slow_check: Instant,
    /// Check the slow limits before the next expansion.
    check_now: bool,
    /// Set once the process holds half its `memory` give-up: from then on, removed nodes let
    /// go of their states ([`Engine::mark_removed`]).
    reclaim_removed: bool,
}

impl<C: Cpa> Drop for Engine<'_, C> {
    fn drop(&mut self) {
        if EXIT_FOLLOWS_ANALYSIS.load(Ordering::Relaxed) {
            std::mem::forget(std::mem::take(&mut self.arg.nodes));
            std::mem::forget(std::mem::take(&mut self.reached));
            std::mem::forget(std::mem::take(&mut self.waitlist));
        }
    }
}

impl<'p, C: Cpa> Engine<'p, C> {
    /// Creates the engine with the initial state in the waitlist. Without a `memory` give-up
    /// the default limit of [`default_memory_limit`] applies, and on a recursive program
    /// without a `recursion-depth` give-up [`DEFAULT_RECURSION_DEPTH`].
    pub fn new(
        program: &'p Program,
        cpa: C,
        order: SearchOrder,
        mut give_up: Vec<GiveUp>,
        guide: Option<&'p dyn Guide>,
    ) -> Self {
        if !give_up.iter().any(|g| matches!(g, GiveUp::Memory(_))) {
            give_up.extend(default_memory_limit().map(GiveUp::Memory));
        }
        if !give_up.iter().any(|g| matches!(g, GiveUp::RecursionDepth(_))) && program.has_recursion() {
            give_up.push(GiveUp::RecursionDepth(DEFAULT_RECURSION_DEPTH));
        }
        let path_monitors: Vec<GiveUp> = give_up.iter().copied().filter(|g| g.is_path_monitor()).collect();
        let control = ControlState::initial(program);
        let root = ArgNode {
            monitors: path_monitors.iter().map(|m| m.initial_value(&control)).collect(),
            guide: guide.map(|g| g.initial()),
            state: cpa.initial_state(program),
            control,
            parent: None,
            children: Children::new(),
            status: NodeStatus::Waiting,
            fully_expanded: false,
        };
        let mut engine = Engine {
            program,
            cpa,
            precision: C::Precision::default(),
            order,
            give_up,
            path_monitors,
            guide,
            reuse: None,
            arg: Arg { nodes: Vec::new() },
            waitlist: VecDeque::new(),
            reached: FxHashMap::default(),
            reached_count: 0,
            states_per_location: vec![0; program.locations.len()],
            posts_per_edge: vec![0; program.edges.len()],
            stats: EngineStats::default(),
            cpu_at_start: process_cpu_time(),
            last_slow_check: Instant::now(),
            check_now: true,
            reclaim_removed: false,
        };
        let accepted = engine
            .guide
            .is_some_and(|g| root.guide.as_ref().is_some_and(|s| g.accepts(s)));
        let id = engine.push_node(root);
        if accepted {
            engine.arg.nodes[id.index()].status = NodeStatus::GuideAccepted;
            engine.stats.guide_accepted += 1;
        } else {
            engine.add_reached(id);
            engine.waitlist.push_back(id);
        }
        engine
    }

    /// Takes successors from `reuse` where it knows them, instead of the transfer.
    pub fn reuse(&mut self, reuse: Box<dyn Reuse<C::State> + 'p>) {
        self.reuse = Some(reuse);
    }

    /// The analysis.
    pub fn cpa(&self) -> &C {
        &self.cpa
    }

    /// The ARG built so far.
    pub fn arg(&self) -> &Arg<C::State> {
        &self.arg
    }

    /// Counters so far.
    pub fn stats(&self) -> &EngineStats {
        &self.stats
    }

    /// The program under analysis.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// The give-up conditions in force (with the default memory limit if none was given).
    pub fn give_up(&self) -> &[GiveUp] {
        &self.give_up
    }

    /// When the CPU time of the (smallest) `cpu-time` give-up runs out, counted from the
    /// engine's creation, condition included; `None` without that give-up.
    pub fn cpu_deadline(&self) -> Option<CpuDeadline> {
        let limit = cpu_time_limit(&self.give_up)?;
        Some(CpuDeadline::at(self.cpu_at_start.saturating_add(limit)))
    }

    /// When the engine stops exploring under its `cpu-time` give-up: [`Engine::cpu_deadline`]
    /// less the time building and writing the condition of the current ARG will take. Work
    /// between expansions (confirming a counterexample) must end by then too, or it eats what
    /// the condition needs.
    pub fn stop_deadline(&self) -> Option<CpuDeadline> {
        self.cpu_deadline()
            .map(|d| d.earlier_by(finishing_reserve(self.arg.nodes.len())))
    }

    fn push_node(&mut self, node: ArgNode<C::State>) -> NodeId {
        let id = NodeId(self.arg.nodes.len() as u32);
        self.arg.nodes.push(node);
        self.stats.created += 1;
        id
    }

    fn add_reached(&mut self, id: NodeId) {
        let node = &self.arg.nodes[id.index()];
        let index = self.reached.entry(node.control.clone()).or_default();
        self.cpa.index_insert(index, &node.state, id);
        self.reached_count += 1;
        self.states_per_location[node.control.location.index()] += 1;
    }

    fn remove_reached(&mut self, id: NodeId) {
        let node = &self.arg.nodes[id.index()];
        let in_reached = matches!(node.status, NodeStatus::Waiting | NodeStatus::Expanded);
        if let (true, Some(index)) = (in_reached, self.reached.get_mut(&node.control)) {
            self.cpa.index_remove(index, &node.state, id);
            self.reached_count -= 1;
            self.states_per_location[node.control.location.index()] -= 1;
        }
    }

    /// Marks a node as not verified (e.g. a target whose counterexample did not replay), so
    /// that exploration can go on without it.
    pub fn cut(&mut self, id: NodeId, reason: impl Into<String>) {
        self.arg.nodes[id.index()].status = NodeStatus::Cut(reason.into());
        self.stats.cut += 1;
    }

    /// Lazy abstraction: removes `pivot` and everything below it, uncovers states covered by
    /// removed ones and puts the pivot's parent back into the waitlist, to be re-expanded with
    /// the current (refined) precision.
    pub fn remove_subtree(&mut self, pivot: NodeId) {
        let mut stack = vec![pivot];
        let mut removed = FxHashSet::default();
        while let Some(n) = stack.pop() {
            if !removed.insert(n) {
                continue;
            }
            stack.extend(self.arg.nodes[n.index()].children.iter().map(|&(_, c)| c));
        }
        for &n in &removed {
            self.remove_reached(n);
            self.mark_removed(n);
        }
        for i in 0..self.arg.nodes.len() {
            if let NodeStatus::CoveredBy(m) = self.arg.nodes[i].status {
                if removed.contains(&m) {
                    let id = NodeId(i as u32);
                    self.arg.nodes[i].status = NodeStatus::Waiting;
                    self.add_reached(id);
                    self.waitlist.push_back(id);
                }
            }
        }
        if let Some((parent, _)) = self.arg.nodes[pivot.index()].parent {
            self.arg.nodes[parent.index()]
                .children
                .retain(|&mut (_, c)| !removed.contains(&c));
            if self.arg.nodes[parent.index()].status == NodeStatus::Expanded {
                self.arg.nodes[parent.index()].status = NodeStatus::Waiting;
                self.waitlist.push_back(parent);
            }
        }
    }

    /// Marks a node removed. It stays in the ARG (node ids are indices), and under memory
    /// pressure lets go of what its state holds (path formulas, solver terms): refinement
    /// removes many more nodes over a run than stay. Kept otherwise, as freeing them costs
    /// time (toy2.cil, predicate: 5.0 GB and 16 s when kept, 3.6 GB and 21 s when freed).
    fn mark_removed(&mut self, id: NodeId) {
        if self.reclaim_removed {
            self.release_state(id);
        }
        self.arg.nodes[id.index()].status = NodeStatus::Removed;
    }

    /// Gives node `id` a copy of the root's state, which shares all it holds.
    fn release_state(&mut self, id: NodeId) {
        let root = self.arg.root();
        if id != root {
            self.arg.nodes[id.index()].state = self.arg.nodes[root.index()].state.clone();
        }
    }

    /// Lets go of the states of the nodes removed so far, and of those removed from now on.
    fn reclaim_removed_states(&mut self) {
        self.reclaim_removed = true;
        for i in 0..self.arg.nodes.len() {
            if self.arg.nodes[i].status == NodeStatus::Removed {
                self.release_state(NodeId(i as u32));
            }
        }
    }

    fn pop(&mut self) -> Option<NodeId> {
        loop {
            let id = match self.order {
                SearchOrder::Dfs => self.waitlist.pop_back(),
                SearchOrder::Bfs => self.waitlist.pop_front(),
            }?;
            // Entries can be stale after refinement or re-adding.
            if self.arg.nodes[id.index()].status == NodeStatus::Waiting {
                return Some(id);
            }
        }
    }

    fn global_limit_hit(&mut self) -> Option<GiveUp> {
        // At the start of every run (after a counterexample check or refinement, which may
        // have taken long), every 64 expansions, or sooner when expansions are slow (e.g.
        // solver calls of the predicate analysis): the wall clock is cheap to read.
        let check_slow = std::mem::take(&mut self.check_now)
            || self.stats.expanded.is_multiple_of(64)
            || self.last_slow_check.elapsed() >= SLOW_CHECK_INTERVAL;
        if check_slow {
            self.last_slow_check = Instant::now();
        }
        let mut pressure = false;
        let mut fired = None;
        for &g in &self.give_up {
            let hit = match g {
                GiveUp::ReachedStates(n) => self.reached_count >= n,
                // Stops early by the time building and writing the condition will take.
                // The deadline is the smallest limit's, which is the one named.
                GiveUp::CpuTime(limit) if check_slow => {
                    Some(limit) == cpu_time_limit(&self.give_up)
                        && self.stop_deadline().is_some_and(CpuDeadline::passed)
                }
                GiveUp::Memory(limit) if check_slow => {
                    let resident = resident_memory();
                    pressure |= resident.is_some_and(|m| m >= limit / 2);
                    resident.is_some_and(|m| m >= limit)
                }
                _ => false,
            };
            if hit {
                fired = Some(g);
                break;
            }
        }
        if pressure && !self.reclaim_removed {
            self.reclaim_removed_states();
        }
        fired
    }

    /// Explores until the waitlist is empty, a target is reached, or a global give-up
    /// condition fires.
    pub fn run(&mut self) -> RunOutcome {
        self.check_now = true;
        let cpu_before = process_cpu_time();
        let outcome = self.explore();
        self.stats.cpu_time += process_cpu_time().saturating_sub(cpu_before);
        outcome
    }

    fn explore(&mut self) -> RunOutcome {
        loop {
            if let Some(g) = self.global_limit_hit() {
                return RunOutcome::Stopped(g);
            }
            let Some(id) = self.pop() else {
                return RunOutcome::Complete;
            };
            if let Some(mut reuse) = self.reuse.take() {
                let added = reuse
                    .successors(&self.arg, id)
                    .and_then(|successors| self.expand_with(id, successors));
                if let Some(added) = &added {
                    reuse.added(id, added);
                }
                self.reuse = Some(reuse);
                if added.is_some() {
                    continue;
                }
            }
            self.stats.expanded += 1;
            self.arg.nodes[id.index()].status = NodeStatus::Expanded;
            self.arg.nodes[id.index()].fully_expanded = false;
            let control = self.arg.nodes[id.index()].control.clone();
            let mut new_nodes = Vec::new();
            for step in control.steps(self.program) {
                if let Some(target) = self.expand_step(id, &control, step, &mut new_nodes) {
                    // Keep the siblings explorable when the run resumes.
                    self.queue(new_nodes);
                    return RunOutcome::Target(target);
                }
            }
            self.arg.nodes[id.index()].fully_expanded = true;
            self.queue(new_nodes);
            self.stats.max_waitlist = self.stats.max_waitlist.max(self.waitlist.len());
        }
    }

    fn queue(&mut self, new_nodes: Vec<NodeId>) {
        // DFS pops the last successor first, as CPAchecker does (for a branch: the else side).
        match self.order {
            SearchOrder::Dfs => self.waitlist.extend(new_nodes),
            SearchOrder::Bfs => self.waitlist.extend(new_nodes),
        }
    }

    /// Computes the successors of node `id` for one step; returns a target node if one was
    /// created.
    fn expand_step(
        &mut self,
        id: NodeId,
        control: &ControlState,
        step: Step,
        new_nodes: &mut Vec<NodeId>,
    ) -> Option<NodeId> {
        let next_control = control.successor(step, self.program);
        let started = Instant::now();
        let transfer = self.cpa.transfer(
            &self.arg.nodes[id.index()].state,
            step,
            &self.precision,
            self.program,
        );
        let elapsed = started.elapsed();
        let edge_index = step.edge().index();
        self.posts_per_edge[edge_index] += 1;
        let successors = match transfer {
            Ok(Transfer::Successors(s)) => s,
            Ok(Transfer::GiveUp(reason)) => {
                let state = self.arg.nodes[id.index()].state.clone();
                self.add_cut_child(id, step, next_control, state, reason);
                return None;
            }
            Err(e) => {
                let state = self.arg.nodes[id.index()].state.clone();
                self.add_cut_child(id, step, next_control, state, format!("analysis failure: {e}"));
                return None;
            }
        };
        for state in successors {
            let state = self.cpa.adjust_precision(state, &self.precision, self.program);
            match self.add_successor(id, step, &next_control, state, elapsed, true) {
                Added::Target(child) => return Some(child),
                Added::Reached(child) => new_nodes.push(child),
                Added::Settled(_) | Added::Infeasible => {}
            }
        }
        None
    }

    /// Expands the waiting node `id` with the successors [`Reuse`] gave. Refuses (`None`, the
    /// node untouched, left to normal exploration, which reports the target) if a successor
    /// would be a target. Otherwise returns per successor its node and whether it is queued.
    fn expand_with(
        &mut self,
        id: NodeId,
        successors: Vec<(Step, C::State, bool)>,
    ) -> Option<Vec<(NodeId, bool)>> {
        if self.arg.nodes[id.index()].status != NodeStatus::Waiting {
            return None;
        }
        let control = self.arg.nodes[id.index()].control.clone();
        let mut next = Vec::with_capacity(successors.len());
        for (step, state, _) in &successors {
            let next_control = control.successor(*step, self.program);
            if next_control.is_error(self.program) || self.cpa.is_target(state) {
                return None;
            }
            next.push(next_control);
        }
        self.arg.nodes[id.index()].status = NodeStatus::Expanded;
        self.arg.nodes[id.index()].fully_expanded = true;
        let mut out = Vec::with_capacity(successors.len());
        for ((step, state, find_cover), next_control) in successors.into_iter().zip(next) {
            self.posts_per_edge[step.edge().index()] += 1;
            let added = self.add_successor(id, step, &next_control, state, Duration::ZERO, find_cover);
            out.push(match added {
                Added::Reached(child) => {
                    self.waitlist.push_back(child);
                    (child, true)
                }
                Added::Settled(child) | Added::Target(child) => (child, false),
                Added::Infeasible => continue,
            });
        }
        Some(out)
    }

    /// Adds the successor `state` of node `id` by `step` to the ARG with its monitors and
    /// guide states, and settles it: cut by a give-up, left to the guide, a target, covered
    /// (if `find_cover`), or added to the reached set (the caller queues it). A state neither
    /// covered nor left to the guide is confirmed first: an infeasible one gets no node.
    fn add_successor(
        &mut self,
        id: NodeId,
        step: Step,
        next_control: &ControlState,
        mut state: C::State,
        elapsed: Duration,
        find_cover: bool,
    ) -> Added {
        let edge_index = step.edge().index();
        let parent = &self.arg.nodes[id.index()];
        let info = StepInfo {
            step,
            target: next_control,
            program: self.program,
            elapsed,
        };
        let mut fired = None;
        let mut monitors = Vec::with_capacity(self.path_monitors.len());
        for (m, value) in self.path_monitors.iter().zip(&parent.monitors) {
            let (v, hit) = m.step(value, &info);
            if hit && fired.is_none() {
                fired = Some(m.to_string());
            }
            monitors.push(v);
        }
        let guide = match (self.guide, &parent.guide) {
            (Some(g), Some(states)) => Some(g.step(states, step)),
            _ => None,
        };
        let guide_accepts = self
            .guide
            .is_some_and(|g| guide.as_ref().is_some_and(|s| g.accepts(s)));
        for &g in &self.give_up {
            match g {
                GiveUp::StatesPerLocation(n)
                    if self.states_per_location[next_control.location.index()] >= n =>
                {
                    fired.get_or_insert_with(|| g.to_string());
                }
                GiveUp::BusyEdge(n) if self.posts_per_edge[edge_index] > n => {
                    fired.get_or_insert_with(|| g.to_string());
                }
                GiveUp::RecursionDepth(n)
                    if fired.is_none()
                        && matches!(step, Step::Edge(e) if matches!(self.program.edge(e).op, Operation::Call { .. }))
                        && next_control.call_stack.recursion_depth(self.program) > n =>
                {
                    fired = Some(g.to_string());
                }
                _ => {}
            }
        }
        let is_target = next_control.is_error(self.program) || self.cpa.is_target(&state);
        let cover = (!guide_accepts && fired.is_none() && !is_target && find_cover)
            .then(|| self.find_cover(next_control, &state, guide.as_ref()))
            .flatten();
        if guide_accepts || cover.is_some() {
            self.cpa.forget_unconfirmed(&mut state);
        } else if !self.cpa.confirm(&mut state) {
            self.stats.infeasible += 1;
            return Added::Infeasible;
        }
        let node = ArgNode {
            control: next_control.clone(),
            state,
            monitors,
            guide,
            parent: Some((id, step)),
            children: Children::new(),
            status: NodeStatus::Waiting,
            fully_expanded: false,
        };
        let child = self.push_node(node);
        self.arg.nodes[id.index()].children.push((step, child));
        if guide_accepts {
            self.arg.nodes[child.index()].status = NodeStatus::GuideAccepted;
            self.stats.guide_accepted += 1;
            return Added::Settled(child);
        }
        if let Some(reason) = fired {
            self.arg.nodes[child.index()].status = NodeStatus::Cut(reason);
            self.stats.cut += 1;
            return Added::Settled(child);
        }
        if is_target {
            self.arg.nodes[child.index()].status = NodeStatus::Target;
            return Added::Target(child);
        }
        if let Some(cover) = cover {
            self.arg.nodes[child.index()].status = NodeStatus::CoveredBy(cover);
            self.stats.covered += 1;
            return Added::Settled(child);
        }
        self.add_reached(child);
        Added::Reached(child)
    }

    fn add_cut_child(
        &mut self,
        id: NodeId,
        step: Step,
        control: ControlState,
        state: C::State,
        reason: String,
    ) {
        let parent = &self.arg.nodes[id.index()];
        let node = ArgNode {
            control,
            state,
            monitors: parent.monitors.clone(),
            guide: parent.guide.clone(),
            parent: Some((id, step)),
            children: Children::new(),
            status: NodeStatus::Cut(reason),
            fully_expanded: false,
        };
        let child = self.push_node(node);
        self.arg.nodes[id.index()].children.push((step, child));
        self.stats.cut += 1;
    }

    /// Stop-sep: a reached, not cut state at the same control state that is at least as
    /// general, whose guide covers no more paths than the new state's.
    fn find_cover(
        &self,
        control: &ControlState,
        state: &C::State,
        guide: Option<&GuideStates>,
    ) -> Option<NodeId> {
        let index = self.reached.get(control)?;
        self.cpa.covering(index, state).into_iter().find(|&m| {
            let other = &self.arg.nodes[m.index()];
            matches!(other.status, NodeStatus::Waiting | NodeStatus::Expanded)
                && match (guide, &other.guide) {
                    (Some(mine), Some(theirs)) => theirs.is_subset(mine),
                    _ => true,
                }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::types::DataModel;
    use crate::cfa::Operation;
    use crate::cpa::{CpaError, LinearCoverIndex, Transfer};
    use std::cell::Cell;

    /// A CPA of one flag, set by the `then` branch of a condition on the variable `dead`,
    /// whose [`Cpa::confirm`] rejects flagged states and counts its calls. States also count
    /// their steps, which the order ignores.
    struct DeadBranches {
        confirmed: Cell<u64>,
    }

    #[derive(Debug, Clone, PartialEq)]
    struct Mark {
        dead: bool,
        steps: u32,
    }

    impl Cpa for DeadBranches {
        type State = Mark;
        type Precision = ();
        type CoverIndex = LinearCoverIndex<Mark>;

        fn initial_state(&self, _: &Program) -> Mark {
            Mark {
                dead: false,
                steps: 0,
            }
        }

        fn transfer(
            &self,
            mark: &Mark,
            step: Step,
            _: &(),
            program: &Program,
        ) -> Result<Transfer<Mark>, CpaError> {
            let enters_dead = match (step, &program.edge(step.edge()).op) {
                (Step::Edge(_), Operation::Assume { cond, branch: true }) => cond
                    .vars()
                    .iter()
                    .any(|&v| program.variable(v).source_name == "dead"),
                _ => false,
            };
            Ok(Transfer::Successors(vec![Mark {
                dead: mark.dead || enters_dead,
                steps: mark.steps + 1,
            }]))
        }

        fn less_or_equal(&self, a: &Mark, b: &Mark) -> bool {
            a.dead == b.dead
        }

        fn index_insert(&self, index: &mut Self::CoverIndex, state: &Mark, node: NodeId) {
            index.insert(state, node);
        }

        fn index_remove(&self, index: &mut Self::CoverIndex, _: &Mark, node: NodeId) {
            index.remove(node);
        }

        fn covering(&self, index: &Self::CoverIndex, state: &Mark) -> Vec<NodeId> {
            index.covering(state, |a, b| self.less_or_equal(a, b))
        }

        fn confirm(&self, mark: &mut Mark) -> bool {
            self.confirmed.set(self.confirmed.get() + 1);
            !mark.dead
        }
    }

    const DEAD_BRANCHES: &str = "extern int __VERIFIER_nondet_int(void);
        int main() {
          int live = __VERIFIER_nondet_int();
          int dead = __VERIFIER_nondet_int();
          int y = 0;
          if (live) y = 1; else y = 2;
          if (dead) y = 3;
          return y;
        }";

    fn dead_branches() -> Program {
        crate::frontend::load_source("dead.c", DEAD_BRANCHES, DataModel::ILP32).expect("program")
    }

    #[test]
    fn states_are_confirmed_after_the_stop_operator_and_dropped_if_infeasible() {
        let program = dead_branches();
        let cpa = DeadBranches {
            confirmed: Cell::new(0),
        };
        let mut engine = Engine::new(&program, cpa, SearchOrder::Dfs, Vec::new(), None);
        assert_eq!(engine.run(), RunOutcome::Complete);
        let stats = engine.stats().clone();
        // One path meets the other after `if (live)` and is covered there; `then` of
        // `if (dead)` is dropped, and nothing after it is explored.
        assert!(stats.covered >= 1, "{stats:?}");
        assert_eq!(stats.infeasible, 1, "{stats:?}");
        assert!(
            engine.arg().nodes.iter().all(|n| !n.state.dead),
            "a rejected state got a node"
        );
        // Every state but the root and the covered ones was confirmed, and so was the
        // rejected one: covered states never are.
        let confirmed = engine.cpa().confirmed.get();
        assert_eq!(
            confirmed,
            stats.created - 1 - stats.covered + stats.infeasible,
            "{stats:?}"
        );
    }

    /// Removes everything below the root's child, returning how many removed nodes still hold
    /// a state of their own (not the root's).
    fn states_kept_after_removal(give_up: Vec<GiveUp>) -> usize {
        let program = dead_branches();
        let cpa = DeadBranches {
            confirmed: Cell::new(0),
        };
        let mut engine = Engine::new(&program, cpa, SearchOrder::Dfs, give_up, None);
        engine.run();
        let root = engine.arg().root();
        let (_, child) = engine.arg().node(root).children[0];
        engine.remove_subtree(child);
        let removed: Vec<&ArgNode<Mark>> = (engine.arg().nodes.iter())
            .filter(|n| n.status == NodeStatus::Removed)
            .collect();
        assert!(removed.len() > 3, "{}", removed.len());
        removed.iter().filter(|n| n.state.steps != 0).count()
    }

    #[test]
    fn removed_nodes_let_go_of_their_states_under_memory_pressure() {
        // Far from the default memory limit, removed nodes keep their states (freeing costs).
        assert!(states_kept_after_removal(Vec::new()) > 0);
        // With a `memory` give-up of less than twice what the process holds, they are freed.
        let held = resident_memory().expect("resident memory is known");
        assert_eq!(states_kept_after_removal(vec![GiveUp::Memory(held / 2 * 3)]), 0);
    }
}
