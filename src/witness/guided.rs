//! Waypoint-guided validation of a violation witness whose values are missing or incomplete.
//!
//! The witness' segments become an automaton run in product with Baton's explicit-value
//! analysis ([`GuidedCpa`]): a state knows which segment's `follow` waypoint comes next, a step
//! that passes it may advance (or stay: the spec lets a waypoint be passed at any of its
//! occurrences), a step that passes one of the segment's `avoid` waypoints ends the path, and
//! so does a call of the error function before the target. Nondet values the witness does not
//! fix stay unknown and are explored; a `function_return` value (`\result == v`) fixes the
//! value. Only paths consistent with the waypoints are explored.
//!
//! A violation is confirmed only by a concrete run: the path of a target state is encoded with
//! the waypoints' constraints (values, assumptions), solved with Z3, and the values replayed on
//! the interpreter, which must follow the same path to the error.
//!
//! Waypoints on the original program's lines: `branching` (the assume edge that decides the
//! condition at the line, its branch flag taken as the outcome: for a negated or compound
//! condition Baton's CFA may place the outcomes differently, so a search that finds nothing
//! with branching waypoints is `unknown`, not a refutation), `function_return` (a nondet call
//! or a call of a defined function at the line), `function_enter` (a call at the line),
//! `assumption` (a C expression at the start of a statement at the line) and `target` (the
//! call of the error function at the line).

use super::format::{Action, Entry, Waypoint, WaypointKind};
use super::invariant::{parse_invariant, Formula};
use super::source_of;
use super::validate::{Judgement, Validation};
use super::violation::{nondet_type_at, replay, result_value};
use crate::analyses::explicit::{learned_equality, ExplicitCoverIndex, ExplicitCpa, ExplicitState};
use crate::analyses::predicate::formula::{bv_const, solve_inputs, PathFormula};
use crate::analyses::predicate::solver::SolverConfig;
use crate::analyses::{run_to_verdict, Counterexample, TargetDecision};
use crate::cfa::semantics;
use crate::cfa::{EdgeId, FuncId, LocId, Operation, Program};
use crate::cpa::arg::NodeId;
use crate::cpa::budget::last_query;
use crate::cpa::engine::{Engine, SearchOrder};
use crate::cpa::monitor::GiveUp;
use crate::cpa::{Cpa, CpaError, Step, Transfer};
use crate::verdict::Verdict;
use std::collections::{HashMap, HashSet};
use std::time::Duration;
use z3::ast::Bool;

/// What a waypoint asks of one step, resolved against the program's CFA.
#[derive(Debug, Clone)]
enum Event {
    /// The deciding assume edge of the condition at `line`, with this branch.
    Branch { line: u32, taken: bool },
    /// A nondet call or a call of a defined function at `line` returns (`\result == value`).
    Return { line: u32, value: Option<i128> },
    /// A function is called at `line`.
    Enter { line: u32 },
    /// Control reaches the start of a statement at `line`, where `formula` holds.
    Assumption { line: u32, formula: Formula },
    /// The error function is called at `line`.
    Target { line: u32 },
}

/// One segment: paths must not pass `avoid` before they pass `follow`.
#[derive(Debug, Clone)]
struct Segment {
    avoid: Vec<Event>,
    follow: Event,
}

/// A violation sequence resolved against a program.
#[derive(Debug, Clone)]
pub struct Sequence {
    segments: Vec<Segment>,
    /// Assume edges that decide a condition (their target evaluates no more of it).
    deciding: HashSet<EdgeId>,
    /// The sequence has branching waypoints (matched by Baton's assume edges).
    has_branching: bool,
}

/// The line of an edge in the program file itself.
fn line_of(program: &Program, edge: EdgeId) -> Option<u32> {
    let at = program.edge(edge).source;
    (at.file == 0).then_some(at.line)
}

/// Assume edges whose target evaluates no further part of the condition on their line.
pub(super) fn deciding_edges(program: &Program) -> HashSet<EdgeId> {
    let is_assume_at = |e: EdgeId, line: Option<u32>| {
        matches!(program.edge(e).op, Operation::Assume { .. }) && line_of(program, e) == line
    };
    (0..program.edges.len())
        .map(|i| EdgeId(i as u32))
        .filter(|&e| {
            let line = line_of(program, e);
            is_assume_at(e, line)
                && !program
                    .out_edges(program.edge(e).to)
                    .iter()
                    .any(|&o| is_assume_at(o, line))
        })
        .collect()
}

/// Resolves the violation sequence `entry` against `program`; a judgement for a witness whose
/// waypoints Baton cannot use (unknown) or that names a target where no error function is
/// called (refuted).
pub fn resolve(program: &Program, entry: &Entry) -> Result<Sequence, Validation> {
    let unknown = |why: String| Validation::violation(Judgement::Unknown, why);
    let deciding = deciding_edges(program);
    let edges_at = |line: u32, pred: &dyn Fn(&Operation) -> bool| {
        (0..program.edges.len())
            .map(|i| EdgeId(i as u32))
            .any(|e| line_of(program, e) == Some(line) && pred(&program.edge(e).op))
    };
    let is_call = |op: &Operation| matches!(op, Operation::Call { .. } | Operation::Nondet { .. });
    let mut segments = Vec::new();
    let mut has_branching = false;
    for item in &entry.content {
        let Some(segment) = &item.segment else { continue };
        let mut avoid = Vec::new();
        let mut follow = None;
        for w in segment.iter().map(|w| &w.waypoint) {
            let line = w.location.line;
            let constraint = w.constraint.as_ref().map(|c| c.value.trim());
            let event = match w.kind {
                WaypointKind::Branching => {
                    let taken = match constraint {
                        Some("true" | "1") => true,
                        Some("false" | "0") => false,
                        other => {
                            return Err(unknown(format!(
                                "line {line}: branching waypoint with constraint {other:?} (true or false expected)"
                            )))
                        }
                    };
                    if !deciding.iter().any(|&e| line_of(program, e) == Some(line)) {
                        return Err(unknown(format!(
                            "line {line}: branching waypoint where Baton's CFA has no condition"
                        )));
                    }
                    has_branching = true;
                    Event::Branch { line, taken }
                }
                WaypointKind::FunctionReturn => {
                    if !edges_at(line, &is_call) {
                        return Err(Validation::violation(
                            Judgement::Refuted,
                            format!("a function_return waypoint at line {line}, where no function is called"),
                        ));
                    }
                    let value = match constraint {
                        None => None,
                        Some(c) => Some(result_value(c, nondet_type_at(program, line)).ok_or_else(|| {
                            unknown(format!(
                                "line {line}: function_return constraint `{c}` not read (\\result == N expected)"
                            ))
                        })?),
                    };
                    if value.is_some() && w.action == Action::Avoid {
                        return Err(unknown(format!(
                            "line {line}: avoid waypoints with a value are not supported"
                        )));
                    }
                    Event::Return { line, value }
                }
                WaypointKind::FunctionEnter => {
                    if !edges_at(line, &is_call) {
                        return Err(unknown(format!(
                            "line {line}: function_enter waypoint where no function is called"
                        )));
                    }
                    Event::Enter { line }
                }
                WaypointKind::Assumption => {
                    if w.action == Action::Avoid {
                        return Err(unknown(format!(
                            "line {line}: avoid waypoints of type assumption are not supported"
                        )));
                    }
                    Event::Assumption {
                        line,
                        formula: assumption(program, w)?,
                    }
                }
                WaypointKind::Target => {
                    if !edges_at(line, &|op| matches!(op, Operation::Error { .. })) {
                        return Err(Validation::violation(
                            Judgement::Refuted,
                            format!("the target at line {line} is no call of the error function"),
                        ));
                    }
                    Event::Target { line }
                }
            };
            match w.action {
                Action::Follow => follow = Some(event),
                Action::Avoid => avoid.push(event),
            }
        }
        let follow = follow.ok_or_else(|| unknown("a segment without a follow waypoint".into()))?;
        segments.push(Segment { avoid, follow });
    }
    if !matches!(
        segments.last(),
        Some(Segment {
            follow: Event::Target { .. },
            ..
        })
    ) {
        return Err(unknown("the sequence does not end at a target".into()));
    }
    Ok(Sequence {
        segments,
        deciding,
        has_branching,
    })
}

/// The formula of an assumption waypoint, read in its function (named, or the function of a
/// statement at its line).
fn assumption(program: &Program, w: &Waypoint) -> Result<Formula, Validation> {
    let unknown = |why: String| Validation::violation(Judgement::Unknown, why);
    let line = w.location.line;
    let Some(c) = &w.constraint else {
        return Err(unknown(format!(
            "line {line}: assumption waypoint without a constraint"
        )));
    };
    if c.format.as_deref().is_some_and(|f| f != "c_expression") {
        return Err(unknown(format!(
            "line {line}: assumption in format `{}` not read",
            c.format.as_deref().unwrap_or_default()
        )));
    }
    let func: FuncId = match &w.location.function {
        Some(name) => program
            .function_by_name(name)
            .ok_or_else(|| unknown(format!("line {line}: no function `{name}`")))?,
        None => program
            .location_ids()
            .find(|&l| source_of(program, l).is_some_and(|s| s.line == line))
            .map(|l| program.location(l).func)
            .ok_or_else(|| unknown(format!("line {line}: no statement there")))?,
    };
    parse_invariant(&c.value, program, func).map_err(|e| unknown(format!("line {line}: {e}")))
}

/// The location a step leads to.
fn step_target(program: &Program, step: Step) -> LocId {
    match step {
        Step::Return { call } => program.edge(call).to,
        Step::Edge(e) => match &program.edge(e).op {
            Operation::Call { callee, .. } => program.function(*callee).entry,
            _ => program.edge(e).to,
        },
    }
}

/// Whether the formula holds in an explicit state: `None` where values are unknown.
fn holds(f: &Formula, state: &ExplicitState, program: &Program) -> Option<bool> {
    Some(match f {
        Formula::Atom(e) => semantics::eval(e, &|v| state.get(v), program.signed_overflow).ok()?? != 0,
        Formula::Not(a) => !holds(a, state, program)?,
        Formula::And(a, b) => match (holds(a, state, program), holds(b, state, program)) {
            (Some(false), _) | (_, Some(false)) => false,
            (x, y) => x? && y?,
        },
        Formula::Or(a, b) => match (holds(a, state, program), holds(b, state, program)) {
            (Some(true), _) | (_, Some(true)) => true,
            (x, y) => x? || y?,
        },
        Formula::Ite(c, a, b) => {
            if holds(c, state, program)? {
                holds(a, state, program)?
            } else {
                holds(b, state, program)?
            }
        }
    })
}

/// Sets the variables the conjuncts `x == c` of an assumed formula fix.
fn learn(f: &Formula, state: &mut ExplicitState, program: &Program) {
    match f {
        Formula::And(a, b) => {
            learn(a, state, program);
            learn(b, state, program);
        }
        Formula::Atom(e) => {
            if let Some((var, value)) = learned_equality(e, true, program) {
                state.values.insert(var, value);
            }
        }
        _ => {}
    }
}

impl Sequence {
    /// The state after `step` passes `event` (a returned value fixed), or `None` if the step
    /// does not pass it.
    fn pass(
        &self,
        event: &Event,
        step: Step,
        after: &ExplicitState,
        program: &Program,
    ) -> Option<ExplicitState> {
        let edge = program.edge(step.edge());
        let at = |line: u32| line_of(program, step.edge()) == Some(line);
        match (event, step) {
            (Event::Branch { line, taken }, Step::Edge(e)) => match edge.op {
                Operation::Assume { branch, .. }
                    if at(*line) && branch == *taken && self.deciding.contains(&e) =>
                {
                    Some(after.clone())
                }
                _ => None,
            },
            (Event::Return { line, value }, Step::Edge(_)) => match &edge.op {
                Operation::Nondet { lhs, ty, .. } if at(*line) => {
                    let mut next = after.clone();
                    if let (Some(v), Some(x)) = (value, lhs) {
                        let ty_x = program.variable(*x).ty;
                        next.values.insert(*x, ty_x.normalize(ty.normalize(*v)));
                    }
                    Some(next)
                }
                _ => None,
            },
            (Event::Return { line, value }, Step::Return { .. }) => match &edge.op {
                Operation::Call { result, .. } if at(*line) => {
                    let mut next = after.clone();
                    if let (Some(v), Some(r)) = (value, result) {
                        let v = program.variable(*r).ty.normalize(*v);
                        match after.get(*r) {
                            Some(known) if known != v => return None,
                            _ => next.values.insert(*r, v),
                        }
                    }
                    Some(next)
                }
                _ => None,
            },
            (Event::Enter { line }, Step::Edge(_)) => {
                matches!(edge.op, Operation::Call { .. } | Operation::Nondet { .. })
                    .then(|| after.clone())
                    .filter(|_| at(*line))
            }
            (Event::Assumption { line, formula }, _) => {
                let starts = source_of(program, step_target(program, step)).is_some_and(|s| s.line == *line);
                if !starts || at(*line) || holds(formula, after, program) == Some(false) {
                    return None;
                }
                let mut next = after.clone();
                learn(formula, &mut next, program);
                Some(next)
            }
            (Event::Target { line }, Step::Edge(_)) => {
                (matches!(edge.op, Operation::Error { .. }) && at(*line)).then(|| after.clone())
            }
            _ => None,
        }
    }

    /// What the path formula must add where `step` passed `event`: the returned value, or the
    /// assumption at the current SSA indices.
    fn constraint(&self, event: &Event, step: Step, path: &PathFormula, program: &Program) -> Option<Bool> {
        match (event, step) {
            (Event::Return { value: Some(v), .. }, Step::Edge(_)) => {
                let n = path.nondets.last()?;
                Some(n.term.eq(bv_const(n.ty.normalize(*v), n.term.get_size())))
            }
            (Event::Return { value: Some(v), .. }, Step::Return { call }) => {
                let Operation::Call { result: Some(r), .. } = &program.edge(call).op else {
                    return None;
                };
                let term = path.current(*r, program).ok()?;
                let v = program.variable(*r).ty.normalize(*v);
                Some(term.eq(bv_const(v, term.get_size())))
            }
            (Event::Assumption { formula, .. }, _) => Some(formula.encode(program, &path.ssa)),
            _ => None,
        }
    }
}

/// A state of the product: the explicit values and the segment whose `follow` comes next.
#[derive(Debug, Clone)]
pub struct GuidedState {
    explicit: ExplicitState,
    next: usize,
}

/// The explicit-value analysis restricted to the paths a violation sequence allows.
pub struct GuidedCpa<'s> {
    explicit: ExplicitCpa,
    sequence: &'s Sequence,
}

impl Cpa for GuidedCpa<'_> {
    type State = GuidedState;
    type Precision = ();
    type CoverIndex = HashMap<usize, ExplicitCoverIndex>;

    fn initial_state(&self, program: &Program) -> GuidedState {
        GuidedState {
            explicit: self.explicit.initial_state(program),
            next: 0,
        }
    }

    fn transfer(
        &self,
        state: &GuidedState,
        step: Step,
        _precision: &(),
        program: &Program,
    ) -> Result<Transfer<GuidedState>, CpaError> {
        let inner = match self.explicit.transfer(&state.explicit, step, &(), program)? {
            Transfer::Successors(s) => s,
            Transfer::GiveUp(why) => return Ok(Transfer::GiveUp(why)),
        };
        let calls_error =
            matches!(program.edge(step.edge()).op, Operation::Error { .. }) && matches!(step, Step::Edge(_));
        let mut out = Vec::new();
        let Some(segment) = self.sequence.segments.get(state.next) else {
            return Ok(Transfer::Successors(out));
        };
        for s in inner {
            let passed = self.sequence.pass(&segment.follow, step, &s, program);
            let avoided = segment
                .avoid
                .iter()
                .any(|a| self.sequence.pass(a, step, &s, program).is_some());
            // Staying is explored first to last: depth-first search pops the advance first.
            if !avoided && !calls_error {
                out.push(GuidedState {
                    explicit: s,
                    next: state.next,
                });
            }
            if let Some(p) = passed {
                out.push(GuidedState {
                    explicit: p,
                    next: state.next + 1,
                });
            }
        }
        Ok(Transfer::Successors(out))
    }

    fn less_or_equal(&self, a: &GuidedState, b: &GuidedState) -> bool {
        a.next == b.next && self.explicit.less_or_equal(&a.explicit, &b.explicit)
    }

    fn index_insert(&self, index: &mut Self::CoverIndex, state: &GuidedState, node: NodeId) {
        self.explicit
            .index_insert(index.entry(state.next).or_default(), &state.explicit, node);
    }

    fn index_remove(&self, index: &mut Self::CoverIndex, state: &GuidedState, node: NodeId) {
        if let Some(i) = index.get_mut(&state.next) {
            self.explicit.index_remove(i, &state.explicit, node);
        }
    }

    fn covering(&self, index: &Self::CoverIndex, state: &GuidedState) -> Vec<NodeId> {
        index
            .get(&state.next)
            .map(|i| self.explicit.covering(i, &state.explicit))
            .unwrap_or_default()
    }
}

/// Searches for a violation along the waypoints of `sequence` within `cpu_time`; confirmed
/// only by a replay that follows the path found to the error (the values in the judgement).
pub fn search(program: &Program, sequence: &Sequence, cpu_time: Duration) -> Validation {
    let cpa = GuidedCpa {
        explicit: ExplicitCpa::new(program),
        sequence,
    };
    let mut engine = Engine::new(
        program,
        cpa,
        SearchOrder::Dfs,
        vec![GiveUp::CpuTime(cpu_time)],
        None,
    );
    let solver = SolverConfig::default().until(engine.cpu_deadline().map(last_query));
    let segments = sequence.segments.len();
    let outcome = run_to_verdict(&mut engine, |engine, node| {
        let arg = engine.arg();
        if arg.node(node).state.next < segments {
            return TargetDecision::NotConfirmed("the error is reached before the witness' target".into());
        }
        let path = arg.path_to(node);
        let mut formula = PathFormula::program_start(program);
        let mut before = arg.node(arg.root()).state.next;
        for &(step, n) in &path {
            formula = match formula.extend(step, program) {
                Ok(f) => f,
                Err(e) => return TargetDecision::NotConfirmed(format!("path not encoded: {e}")),
            };
            let next = arg.node(n).state.next;
            if next > before {
                let event = &sequence.segments[before].follow;
                if let Some(c) = sequence.constraint(event, step, &formula, program) {
                    formula = formula.conjoin(&c);
                }
            }
            before = next;
        }
        let Some(inputs) = solve_inputs(&formula, &solver) else {
            return TargetDecision::NotConfirmed(
                "the path through the waypoints is infeasible or not solved".into(),
            );
        };
        let run = replay(program, &inputs);
        let edges: Vec<EdgeId> = path
            .iter()
            .filter_map(|(s, _)| match s {
                Step::Edge(e) => Some(*e),
                Step::Return { .. } => None,
            })
            .collect();
        if !run.ending.is_error() || run.path != edges {
            return TargetDecision::NotConfirmed(format!(
                "the replay of the path's values leaves it ({})",
                run.ending
            ));
        }
        TargetDecision::Violation(Counterexample {
            steps: path.into_iter().map(|(s, _)| s).collect(),
            inputs,
            replay: run.ending,
        })
    });
    match (outcome.verdict, outcome.counterexample) {
        (Verdict::False, Some(cex)) => Validation {
            values: Some(cex.inputs.clone()),
            ..Validation::violation(
                Judgement::Confirmed,
                format!(
                    "waypoint-guided search: a path through the witness' {segments} waypoint(s) replays with {} values: {}",
                    cex.inputs.len(),
                    cex.replay
                ),
            )
        },
        (Verdict::True, _) if sequence.has_branching => Validation::violation(
            Judgement::Unknown,
            "no path reaches the target through the waypoints as Baton matches them (branching waypoints on Baton's assume edges)",
        ),
        (Verdict::True, _) => Validation::violation(
            Judgement::Refuted,
            "no execution passes the witness' waypoints to its target",
        ),
        _ => Validation::violation(
            Judgement::Unknown,
            format!("waypoint-guided search: {}", outcome.reason),
        ),
    }
}
