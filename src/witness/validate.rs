//! Baton as a witness validator (`baton validate TASK WITNESS`).
//!
//! - A violation witness is confirmed when its values, replayed on Baton's interpreter, reach
//!   the error at the witness' target, the run passing each `function_return` waypoint's line
//!   in order. A run that follows the witness to another end (or another target line) refutes
//!   it; missing values make it unknown.
//! - A correctness witness is confirmed when its invariants (and the contracts of its recursive
//!   functions) are inductive and imply safety ([`super::inductive`]); refuted when a run from
//!   the program start breaks one of them.
//!
//! Validation never confirms on a guess: an invariant whose location matches no loop head, or
//! whose expression Baton cannot read, is left out (the proof is then attempted without it).

use super::format::{self, Entry, EntryType, InvariantKind, WaypointKind};
use super::graphml::{graphml_sequence, graphml_values, is_graphml};
use super::guided::{self, deciding_edges};
use super::inductive::{check, CheckLimits, Invariants, Proof};
use super::invariant::parse_invariant;
use super::source_of;
use super::violation::{
    followed, nondet_type_at, plain_condition_lines, replay, witness_values, WitnessValue,
};
use crate::cfa::interpreter::Ending;
use crate::cfa::{EdgeId, LocId, Operation, Program};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

/// What validation concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Judgement {
    Confirmed,
    Refuted,
    Unknown,
}

/// A judgement and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Validation {
    /// `violation` or `correctness`.
    pub witness: &'static str,
    pub judgement: Judgement,
    pub reason: String,
    /// The nondet values of the run that confirmed a violation witness.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<i128>>,
}

impl Validation {
    pub(crate) fn violation(judgement: Judgement, reason: impl Into<String>) -> Validation {
        Validation {
            witness: "violation",
            judgement,
            reason: reason.into(),
            values: None,
        }
    }
}

/// Validates the witness text `text` (named `file` in errors) against `program`; an error for
/// a witness that cannot be read.
pub fn validate_text(
    program: &Program,
    text: &str,
    file: &str,
    limits: CheckLimits,
) -> Result<Validation, String> {
    if is_graphml(text) {
        // Its values first; where they do not decide, a search along its edges.
        let by_values = graphml_values(text).map(|values| validate_values(program, &values, None, &[]));
        if let Ok(v) = &by_values {
            if v.judgement != Judgement::Unknown {
                return Ok(v.clone());
            }
        }
        let entry = match graphml_sequence(program, text) {
            Ok(entry) => entry,
            Err(e) => return by_values.map_err(|_| format!("{file}: {e}")),
        };
        return Ok(validate_violation(program, &entry, limits.cpu_time));
    }
    let entries = format::parse(text, file).map_err(|e| e.to_string())?;
    if let Some(entry) = entries
        .iter()
        .find(|e| e.entry_type == EntryType::ViolationSequence)
    {
        return Ok(validate_violation(program, entry, limits.cpu_time));
    }
    Ok(validate_correctness(program, &entries, limits))
}

/// Validates the witness file `path` against `program` (see [`validate_text`]).
pub fn validate_file(program: &Program, path: &Path, limits: CheckLimits) -> Result<Validation, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    validate_text(program, &text, &path.display().to_string(), limits)
}

/// The values of a violation witness file that Baton confirms on `program` within `cpu_time`
/// (none left: not validated), with the validator's reason; why not otherwise.
pub fn confirmed_values(
    program: &Program,
    path: &Path,
    cpu_time: Option<Duration>,
) -> Result<(Vec<i128>, String), String> {
    let limits = CheckLimits {
        cpu_time: cpu_time.unwrap_or(CheckLimits::default().cpu_time),
        ..CheckLimits::default()
    };
    if limits.cpu_time.is_zero() {
        return Err("no CPU time of the budget left to validate it".into());
    }
    let v = validate_file(program, path, limits)?;
    match (v.judgement, v.values) {
        (Judgement::Confirmed, Some(values)) => Ok((values, v.reason)),
        (Judgement::Confirmed, None) => Err(format!("{}: not a violation witness", path.display())),
        (judgement, _) => Err(format!("{judgement:?}: {}", v.reason)),
    }
}

/// Replays the values of a violation sequence; where they do not decide (missing or too few
/// values), searches along its waypoints ([`super::guided`]) within `cpu_time`.
pub fn validate_violation(program: &Program, entry: &Entry, cpu_time: Duration) -> Validation {
    let replayed = replay_violation(program, entry);
    if replayed.judgement != Judgement::Unknown {
        return replayed;
    }
    match guided::resolve(program, entry) {
        Ok(sequence) => {
            let searched = guided::search(program, &sequence, cpu_time);
            match searched.judgement {
                Judgement::Unknown => Validation {
                    reason: format!("{}; {}", replayed.reason, searched.reason),
                    ..searched
                },
                _ => searched,
            }
        }
        Err(why) => Validation {
            reason: format!("{}; {}", replayed.reason, why.reason),
            ..why
        },
    }
}

/// Replays the values of a violation sequence (its `function_return` waypoints).
fn replay_violation(program: &Program, entry: &Entry) -> Validation {
    let values = match witness_values(entry, &|line| nondet_type_at(program, line)) {
        Ok(v) => v,
        Err(e) => return Validation::violation(Judgement::Unknown, e),
    };
    let target = followed(entry)
        .into_iter()
        .find(|w| w.kind == WaypointKind::Target)
        .map(|w| w.location.line);
    // Returns of functions with a body are waypoints too; only nondet calls take values.
    let lines_of = |nondet: bool| -> BTreeSet<u32> {
        program
            .edges
            .iter()
            .filter(|e| e.source.file == 0 && matches!(e.op, Operation::Nondet { .. }) == nondet)
            .filter(|e| nondet || matches!(e.op, Operation::Call { .. }))
            .map(|e| e.source.line)
            .collect()
    };
    let (nondet_lines, call_lines) = (lines_of(true), lines_of(false));
    // The order the run must pass nondet values and branches in (branches on lines where
    // Baton's branch flags are the statements' outcomes).
    let plain = plain_condition_lines(program);
    let mut order = Vec::new();
    for w in followed(entry) {
        match w.kind {
            WaypointKind::Branching if plain.contains(&w.location.line) => {
                match w.constraint.as_ref().map(|c| c.value.trim()) {
                    Some("true" | "1") => order.push(Passed::Branch(w.location.line, true)),
                    Some("false" | "0") => order.push(Passed::Branch(w.location.line, false)),
                    _ => {}
                }
            }
            WaypointKind::FunctionReturn
                if w.constraint.is_some() && nondet_lines.contains(&w.location.line) =>
            {
                order.push(Passed::Value)
            }
            _ => {}
        }
    }
    let mut nondets = Vec::new();
    for v in values {
        if nondet_lines.contains(&v.line) {
            nondets.push(v);
        } else if !call_lines.contains(&v.line) {
            return Validation::violation(
                Judgement::Refuted,
                format!(
                    "a function_return waypoint at line {}, where no function is called",
                    v.line
                ),
            );
        }
    }
    validate_values(program, &nondets, target, &order)
}

/// What a run passes, in a violation sequence's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Passed {
    /// The next nondet value is returned.
    Value,
    /// The condition at the line is decided with this outcome (Baton's deciding assume edge).
    Branch(u32, bool),
}

/// Whether the run along `path` passes `order`: the k-th `Value` is the run's k-th nondet
/// call, each branch is decided after what comes before it (at any of its occurrences).
fn passes_in_order(program: &Program, path: &[EdgeId], order: &[Passed]) -> Result<(), String> {
    let deciding = deciding_edges(program);
    let mut nondet_positions = path
        .iter()
        .enumerate()
        .filter(|(_, &e)| matches!(program.edge(e).op, Operation::Nondet { .. }))
        .map(|(i, _)| i);
    let mut at = 0;
    for passed in order {
        match *passed {
            Passed::Value => match nondet_positions.next() {
                Some(i) if i >= at => at = i,
                _ => {
                    return Err(
                        "the run does not take the witness' values in the order of its waypoints".into(),
                    )
                }
            },
            Passed::Branch(line, taken) => {
                let found = path[at..].iter().position(|&e| {
                    let edge = program.edge(e);
                    edge.source.file == 0
                        && edge.source.line == line
                        && deciding.contains(&e)
                        && matches!(edge.op, Operation::Assume { branch, .. } if branch == taken)
                });
                match found {
                    Some(k) => at += k + 1,
                    None => {
                        return Err(format!(
                            "the run does not pass the branching waypoint at line {line} ({taken}) in order"
                        ))
                    }
                }
            }
        }
    }
    Ok(())
}

/// Replays witness values: the run must pass each value's line in order (line 0: any), the
/// values and the branching waypoints in `order`, and reach the error (at `target`'s line,
/// when given).
fn validate_values(
    program: &Program,
    values: &[WitnessValue],
    target: Option<u32>,
    order: &[Passed],
) -> Validation {
    let inputs: Vec<i128> = values.iter().map(|v| v.value).collect();
    let run = replay(program, &inputs);
    let nondet_lines = run
        .path
        .iter()
        .map(|&id| program.edge(id))
        .filter(|e| matches!(e.op, Operation::Nondet { .. }))
        .map(|e| e.source.line);
    for (i, (line, v)) in nondet_lines.zip(values).enumerate() {
        if v.line != 0 && v.line != line {
            return Validation::violation(
                Judgement::Refuted,
                format!(
                    "value {} of the witness is for a call at line {}, the run calls at line {line}",
                    i + 1,
                    v.line
                ),
            );
        }
    }
    let used = run.inputs_consumed;
    let in_order = passes_in_order(program, &run.path, order);
    match &run.ending {
        Ending::ErrorReached { line, .. } => match target {
            Some(t) if t != *line => Validation::violation(
                Judgement::Refuted,
                format!("the run reaches the error at line {line}, the witness' target is at line {t}"),
            ),
            _ if in_order.is_err() => {
                Validation::violation(Judgement::Unknown, in_order.err().unwrap_or_default())
            }
            _ if used < values.len() => Validation::violation(
                Judgement::Unknown,
                format!(
                    "the run reaches the error ({}) after {used} of the witness' {} values",
                    run.ending,
                    values.len()
                ),
            ),
            _ => Validation {
                values: Some(inputs.clone()),
                ..Validation::violation(
                    Judgement::Confirmed,
                    format!("replay of {} values: {}", values.len(), run.ending),
                )
            },
        },
        ending => {
            let nondets = run.nondet_values.len();
            if nondets > values.len() {
                Validation::violation(
                    Judgement::Unknown,
                    format!(
                        "the witness gives {} values, the run takes {nondets} (0 for the rest) and ends: {ending}",
                        values.len()
                    ),
                )
            } else {
                Validation::violation(
                    Judgement::Refuted,
                    format!("the run following the witness ends: {ending}"),
                )
            }
        }
    }
}

/// Checks the invariants and function contracts of the witness' invariant sets as a proof.
pub fn validate_correctness(program: &Program, entries: &[Entry], limits: CheckLimits) -> Validation {
    let mut given = Invariants::default();
    let mut notes: Vec<String> = Vec::new();
    let (mut used, mut contracts) = (0, 0);
    let recursive = program.recursive_functions();
    let invariants = entries
        .iter()
        .filter(|e| e.entry_type == EntryType::InvariantSet)
        .flat_map(|e| &e.content)
        .filter_map(|c| c.invariant());
    for inv in invariants {
        let line = inv.location.line;
        if inv.kind == InvariantKind::FunctionContract {
            match contract_function(program, &inv.location) {
                Some(_) if inv.format != "c_expression" && inv.format != "acsl_expression" => {
                    notes.push(format!("line {line}: format `{}` not read", inv.format))
                }
                Some(f) if recursive[f.index()] => {
                    let clauses = given.contracts.entry(f).or_default();
                    match clauses.add(program, f, inv.requires.as_deref(), inv.ensures.as_deref()) {
                        Ok(()) => contracts += 1,
                        Err(e) => notes.push(format!("line {line}: {e}")),
                    }
                }
                // Calls of other functions are entered: their contracts are not needed.
                Some(f) => notes.push(format!(
                    "line {line}: the contract of `{}`, which is not recursive",
                    program.function(f).name
                )),
                None => notes.push(format!("line {line}: no function there")),
            }
            continue;
        }
        if inv.format != "c_expression" {
            notes.push(format!("line {line}: format `{}` not read", inv.format));
            continue;
        }
        let locations = matching_locations(program, inv.kind, &inv.location);
        if locations.is_empty() {
            notes.push(format!(
                "line {line}: no {} there",
                match inv.kind {
                    InvariantKind::LoopInvariant => "loop head",
                    _ => "statement",
                }
            ));
            continue;
        }
        let value = inv.value.as_deref().unwrap_or("1");
        for loc in locations {
            match parse_invariant(value, program, program.location(loc).func) {
                Ok(f) => {
                    given.at.entry(loc).or_default().push(f);
                    used += 1;
                }
                Err(e) => notes.push(format!("line {line}: {e}")),
            }
        }
    }
    let (judgement, why) = match check(program, &given, limits) {
        Proof::Holds => (
            Judgement::Confirmed,
            match contracts {
                0 => format!("{used} invariant(s) inductive; the error is unreachable"),
                _ => format!(
                    "{used} invariant(s) and {contracts} contract(s) inductive; the error is unreachable"
                ),
            },
        ),
        Proof::Refuted(why) => (Judgement::Refuted, why),
        Proof::Unknown(why) => (Judgement::Unknown, why),
    };
    let reason = if notes.is_empty() {
        why
    } else {
        format!("{why}; left out: {}", notes.join("; "))
    };
    Validation {
        witness: "correctness",
        judgement,
        reason,
        values: None,
    }
}

/// The function a contract's location names: by its `function`, else the function defined on
/// its line.
fn contract_function(program: &Program, at: &format::Location) -> Option<crate::cfa::FuncId> {
    match &at.function {
        Some(name) => program.function_by_name(name),
        None => program
            .functions
            .iter()
            .position(|f| f.source.file == 0 && f.source.line == at.line)
            .map(|i| crate::cfa::FuncId(i as u32)),
    }
}

/// The CFA locations an invariant's location names: loop heads whose condition is on its line
/// (loop invariants), or the first location of a statement on its line (location invariants),
/// in the named function.
fn matching_locations(program: &Program, kind: InvariantKind, at: &format::Location) -> Vec<LocId> {
    program
        .location_ids()
        .filter(|&l| {
            let location = program.location(l);
            let function = &program.function(location.func).name;
            if at.function.as_ref().is_some_and(|f| f != function) {
                return false;
            }
            if source_of(program, l).is_none_or(|s| s.line != at.line) {
                return false;
            }
            match kind {
                InvariantKind::LoopInvariant => location.loop_head,
                InvariantKind::FunctionContract => false,
                InvariantKind::LocationInvariant => program
                    .in_edges(l)
                    .iter()
                    .all(|&e| program.edge(e).source.line != at.line),
            }
        })
        .collect()
}
