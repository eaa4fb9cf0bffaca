//! Violation witnesses: a `violation_sequence` from nondet values that reach the error on the
//! interpreter, and the values a violation witness gives back.
//!
//! The witness is built by replaying the values on the ORIGINAL program: every executed
//! `__VERIFIER_nondet_*` call becomes a `function_return` waypoint (`\result == v`, at the
//! call's line), every branch the run decides a `branching` waypoint (`true`: the `if`'s then
//! part or the loop body is entered), and the executed call of the error function the
//! `target`. Baton's CFA splits `&&` and `||` into several branches: the one that decides the
//! condition (its target evaluates no more of the line's condition) gives the waypoint. A `!`
//! or `?:` swaps which of Baton's branches is the statement's `true`: no branching waypoint is
//! written for a line whose text has one (the values alone determine the run anyway).

use super::format::{
    Action, Constraint, ContentItem, Entry, EntryType, Waypoint, WaypointItem, WaypointKind,
};
use super::guided::deciding_edges;
pub use super::result::result_value;
use super::{location, metadata};
use crate::cfa::interpreter::{execute, Ending, ExecOptions, Execution};
use crate::cfa::types::IntType;
use crate::cfa::{Operation, Program, SourceLoc};
use std::collections::HashSet;

/// Step limit of replays for witnesses (counterexample paths are far shorter).
pub const REPLAY_STEPS: u64 = 10_000_000;

/// A nondet value of a witness: the value and the line of the call that returns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WitnessValue {
    pub line: u32,
    pub value: i128,
}

/// A point of a violating run a witness names: a nondet call and its value, or the call of
/// the error function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathPoint {
    pub at: SourceLoc,
    /// The function the call is in.
    pub function: String,
    /// The called function (`__VERIFIER_nondet_int`, `reach_error`).
    pub callee: String,
    /// The value a nondet call returned; `None` for the error call.
    pub value: Option<i128>,
    /// The type of the nondet call's value (a float's value is its bit pattern).
    pub ty: IntType,
    /// For a branch the run decides: the condition's outcome (`callee` is empty, no value).
    pub branch: Option<bool>,
}

impl PathPoint {
    /// True for the call of the error function.
    pub fn is_target(&self) -> bool {
        self.value.is_none() && self.branch.is_none()
    }

    /// The returned value as a C expression: the number, or for a float an exact literal.
    pub fn value_c(&self) -> Option<String> {
        let v = self.value?;
        Some(if self.ty.is_float() {
            crate::cfa::float::c_literal(v, self.ty)
        } else {
            v.to_string()
        })
    }
}

/// Runs `program` on `inputs` with the path recorded, as long as a replay may take.
pub fn replay(program: &Program, inputs: &[i128]) -> Execution {
    execute(
        program,
        inputs,
        &ExecOptions {
            max_steps: REPLAY_STEPS,
            record_path: true,
        },
    )
}

/// The nondet calls and the error call of the run of `inputs` on `program`, or why there is
/// no violation (the values do not reach the error).
pub fn violating_run(program: &Program, inputs: &[i128]) -> Result<Vec<PathPoint>, String> {
    let run = replay(program, inputs);
    if !matches!(run.ending, Ending::ErrorReached { .. }) {
        return Err(format!("the values do not reach the error ({})", run.ending));
    }
    let mut values = run.nondet_values.iter();
    let mut points = Vec::new();
    let deciding = deciding_edges(program);
    let plain = plain_condition_lines(program);
    for id in &run.path {
        let edge = program.edge(*id);
        let function = program.function(program.location(edge.from).func).name.clone();
        let point = |callee: &str, value, ty, branch| PathPoint {
            at: edge.source,
            function: function.clone(),
            callee: callee.to_string(),
            value,
            ty,
            branch,
        };
        match &edge.op {
            Operation::Nondet {
                function: callee, ty, ..
            } => points.push(point(
                callee,
                Some(values.next().copied().unwrap_or(0)),
                *ty,
                None,
            )),
            Operation::Error { function: callee } => points.push(point(callee, None, IntType::INT, None)),
            Operation::Assume { branch, .. }
                if deciding.contains(id)
                    && edge.source.file == 0
                    && program.out_edges(edge.from).len() > 1
                    && plain.contains(&edge.source.line) =>
            {
                points.push(point("", None, IntType::INT, Some(*branch)))
            }
            _ => {}
        }
    }
    if points.last().is_none_or(|p| !p.is_target()) {
        return Err("the run reached the error location without a call of the error function".into());
    }
    Ok(points)
}

/// Lines of the program file whose text has no `!` (other than in `!=`) and no `?`: there,
/// Baton's branch flags are the conditions' outcomes. None when the file cannot be read or is
/// not the file the program was built from.
pub(super) fn plain_condition_lines(program: &Program) -> HashSet<u32> {
    let text = std::fs::read(super::program_file(program))
        .ok()
        .filter(|bytes| crate::frontend::sha256_hex(bytes) == program.hash);
    let Some(text) = text else {
        return HashSet::new();
    };
    String::from_utf8_lossy(&text)
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.contains('?') && !line.replace("!=", "").contains('!'))
        .map(|(i, _)| i as u32 + 1)
        .collect()
}

/// The violation witness (format 2.0) of a violating run: a `function_return` waypoint per
/// nondet value and a `branching` waypoint per decided branch, in the run's order, then the
/// target.
pub fn violation_witness(program: &Program, run: &[PathPoint]) -> Vec<Entry> {
    let content = run
        .iter()
        .map(|p| {
            let (kind, constraint) = match (p.value_c(), p.branch) {
                (Some(v), _) => (
                    WaypointKind::FunctionReturn,
                    Some(Constraint {
                        value: format!("\\result == {v}"),
                        format: Some("acsl_expression".into()),
                    }),
                ),
                (None, Some(taken)) => (
                    WaypointKind::Branching,
                    Some(Constraint {
                        value: taken.to_string(),
                        format: None,
                    }),
                ),
                (None, None) => (WaypointKind::Target, None),
            };
            ContentItem {
                segment: Some(vec![WaypointItem {
                    waypoint: Waypoint {
                        kind,
                        action: Action::Follow,
                        location: location(program, p.at, &p.function),
                        constraint,
                    },
                }]),
                invariant: None,
                contract: None,
            }
        })
        .collect();
    vec![Entry {
        entry_type: EntryType::ViolationSequence,
        metadata: metadata(program),
        content,
    }]
}

/// The `follow` waypoints of a violation sequence, in order.
pub fn followed(entry: &Entry) -> Vec<&Waypoint> {
    entry
        .content
        .iter()
        .filter_map(|c| c.segment.as_ref()?.last())
        .map(|w| &w.waypoint)
        .filter(|w| w.action == Action::Follow)
        .collect()
}

/// The values of the `function_return` waypoints whose constraint is `\result == c`, in order,
/// for results of type `result_type(line)` ([`result_value`]); an error for a
/// `function_return` constraint that gives no such value.
pub fn witness_values(
    entry: &Entry,
    result_type: &dyn Fn(u32) -> IntType,
) -> Result<Vec<WitnessValue>, String> {
    let mut out = Vec::new();
    for w in followed(entry) {
        if w.kind != WaypointKind::FunctionReturn {
            continue;
        }
        let Some(c) = &w.constraint else { continue };
        let ty = result_type(w.location.line);
        let value = result_value(&c.value, ty).ok_or_else(|| {
            format!(
                "line {}: function_return constraint `{}` gives no {} value of \\result",
                w.location.line,
                c.value,
                if ty.is_float() {
                    "floating-point"
                } else {
                    "integer"
                }
            )
        })?;
        out.push(WitnessValue {
            line: w.location.line,
            value,
        });
    }
    Ok(out)
}

/// The type of the result of the nondet call at `line` of the program file (a floating-point
/// value is its bit pattern); `long long` where there is none.
pub fn nondet_type_at(program: &Program, line: u32) -> IntType {
    program
        .edges
        .iter()
        .filter(|e| e.source.file == 0 && e.source.line == line)
        .find_map(|e| match e.op {
            Operation::Nondet { ty, .. } => Some(ty),
            _ => None,
        })
        .unwrap_or(IntType::LLONG)
}
