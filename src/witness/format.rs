//! The SV-COMP witness format 2.0 (sv-witnesses, YAML): a file is a list of entries, each a
//! `violation_sequence` (segments of waypoints ending at the target) or an `invariant_set`
//! (loop and location invariants as C expressions), with metadata naming the producer and the
//! task. Format 2.1 adds `function_contract`s to invariant sets (Heizmann et al.,
//! *Correctness Witnesses with Function Contracts*, 2025): a function's `requires` and
//! `ensures` clauses, ACSL expressions that may use `\result` and `\old(…)`. Reading keeps
//! YAML's positions in errors; writing produces what CPAchecker and Goblint write.

use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use thiserror::Error;

/// The format version Baton writes (and the major version it reads).
pub const FORMAT_VERSION: &str = "2.0";

/// The format version of witnesses with function contracts, which 2.0 cannot express.
pub const CONTRACT_FORMAT_VERSION: &str = "2.1";

/// Why a witness file cannot be used.
#[derive(Debug, Error)]
pub enum FormatError {
    #[error("{file}: cannot read: {message}")]
    Io { file: String, message: String },
    #[error("{file}:{line}: {message}")]
    Malformed {
        file: String,
        line: usize,
        message: String,
    },
    #[error("{file}: {message}")]
    Invalid { file: String, message: String },
}

/// One entry of a witness file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub entry_type: EntryType,
    pub metadata: Metadata,
    pub content: Vec<ContentItem>,
}

/// The kinds of entries of format 2.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryType {
    ViolationSequence,
    InvariantSet,
}

/// Who wrote the witness, for which task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    pub format_version: String,
    pub uuid: String,
    pub creation_time: String,
    pub producer: Producer,
    pub task: TaskInfo,
}

/// The verifier that wrote the witness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Producer {
    pub name: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_line: Option<String>,
}

/// The verification task the witness is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskInfo {
    pub input_files: Vec<String>,
    /// SHA-256 (hex) per input file.
    pub input_file_hashes: BTreeMap<String, String>,
    /// The property as an LTL formula, e.g. `G ! call(reach_error())`.
    pub specification: String,
    /// `ILP32` or `LP64`.
    pub data_model: String,
    pub language: String,
}

/// One element of an entry's content: a segment (violation sequence) or an invariant (a
/// function contract is written as an `invariant` of type `function_contract`, as format 2.1
/// has it; newer writers wrap it in `contract`, which is read too).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContentItem {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment: Option<Vec<WaypointItem>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invariant: Option<Invariant>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<Invariant>,
}

impl ContentItem {
    /// The invariant or contract of the item.
    pub fn invariant(&self) -> Option<&Invariant> {
        self.invariant.as_ref().or(self.contract.as_ref())
    }
}

/// A waypoint of a segment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaypointItem {
    pub waypoint: Waypoint,
}

/// A program point the violating execution passes (`follow`) or does not pass (`avoid`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Waypoint {
    #[serde(rename = "type")]
    pub kind: WaypointKind,
    pub action: Action,
    pub location: Location,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraint: Option<Constraint>,
}

/// What a waypoint describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaypointKind {
    /// A C expression that holds at the location.
    Assumption,
    /// The violation (the call of the error function).
    Target,
    FunctionEnter,
    /// A call returns; the constraint (`\result == 5`) gives the returned value.
    FunctionReturn,
    /// A branch (`if`, loop condition) is taken (`true`) or not (`false`).
    Branching,
}

/// Whether the execution passes the waypoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Follow,
    Avoid,
}

/// A position in a program file (lines and columns from 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    pub file_name: String,
    pub line: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
}

/// The constraint of a waypoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Constraint {
    #[serde(deserialize_with = "scalar_string")]
    pub value: String,
    /// `c_expression` or `acsl_expression`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
}

/// An invariant of an `invariant_set`: a loop or location invariant has a `value`; a
/// function contract has `requires` and `ensures` (each `1` when left out).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invariant {
    #[serde(rename = "type")]
    pub kind: InvariantKind,
    pub location: Location,
    #[serde(
        default,
        deserialize_with = "optional_scalar",
        skip_serializing_if = "Option::is_none"
    )]
    pub value: Option<String>,
    #[serde(
        default,
        deserialize_with = "optional_scalar",
        skip_serializing_if = "Option::is_none"
    )]
    pub requires: Option<String>,
    #[serde(
        default,
        deserialize_with = "optional_scalar",
        skip_serializing_if = "Option::is_none"
    )]
    pub ensures: Option<String>,
    pub format: String,
}

/// Where an invariant holds: at a loop head (each time the loop condition is evaluated),
/// before the statement at the location, or (a function contract) at the entry (`requires`)
/// and on every return (`ensures`) of the function the location names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InvariantKind {
    LoopInvariant,
    LocationInvariant,
    FunctionContract,
}

/// A YAML scalar as text: `value: true` and `value: "true"` mean the same.
fn scalar_string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    match serde_norway::Value::deserialize(d)? {
        serde_norway::Value::String(s) => Ok(s),
        serde_norway::Value::Bool(b) => Ok(b.to_string()),
        serde_norway::Value::Number(n) => Ok(n.to_string()),
        _ => Err(serde::de::Error::custom("expected a string")),
    }
}

/// An optional YAML scalar as text.
fn optional_scalar<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    scalar_string(d).map(Some)
}

/// Parses a witness file's text; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<Vec<Entry>, FormatError> {
    let entries: Vec<Entry> = serde_norway::from_str(text).map_err(|e| FormatError::Malformed {
        file: file.to_string(),
        line: e.location().map_or(1, |l| l.line()),
        message: e.to_string(),
    })?;
    let invalid = |message: String| FormatError::Invalid {
        file: file.to_string(),
        message,
    };
    if entries.is_empty() {
        return Err(invalid("the witness has no entries".into()));
    }
    for (i, entry) in entries.iter().enumerate() {
        let n = i + 1;
        let version = &entry.metadata.format_version;
        if version.split('.').next() != Some("2") {
            return Err(invalid(format!(
                "entry {n}: format_version `{version}` (Baton reads format 2.x)"
            )));
        }
        for (j, item) in entry.content.iter().enumerate() {
            let what = match entry.entry_type {
                EntryType::ViolationSequence => item.segment.as_ref().map(|_| ()).ok_or("a segment"),
                EntryType::InvariantSet => item.invariant().ok_or("an invariant").and_then(check_invariant),
            };
            if let Err(expected) = what {
                return Err(invalid(format!(
                    "entry {n}, content item {}: expected {expected}",
                    j + 1
                )));
            }
        }
        if entry.entry_type == EntryType::ViolationSequence {
            check_sequence(entry).map_err(|m| invalid(format!("entry {n}: {m}")))?;
        }
    }
    Ok(entries)
}

/// A loop or location invariant has a value; a function contract has none.
fn check_invariant(inv: &Invariant) -> Result<(), &'static str> {
    match (inv.kind, &inv.value) {
        (InvariantKind::FunctionContract, None) => Ok(()),
        (InvariantKind::FunctionContract, Some(_)) => {
            Err("a function contract with `requires` and `ensures`, not a `value`")
        }
        (_, Some(_)) if inv.requires.is_none() && inv.ensures.is_none() => Ok(()),
        (_, Some(_)) => Err("`requires` and `ensures` only in a function contract"),
        (_, None) => Err("an invariant with a `value`"),
    }
}

/// The rules of a violation sequence: each segment has at most one `follow` waypoint, the last
/// one; the last segment follows the target, and only it has a target.
fn check_sequence(entry: &Entry) -> Result<(), String> {
    let segments: Vec<&Vec<WaypointItem>> = entry.content.iter().filter_map(|c| c.segment.as_ref()).collect();
    let last = segments
        .len()
        .checked_sub(1)
        .ok_or("a violation sequence without segments")?;
    for (i, segment) in segments.iter().enumerate() {
        let Some((end, before)) = segment.split_last() else {
            return Err(format!("segment {} is empty", i + 1));
        };
        if before.iter().any(|w| w.waypoint.action == Action::Follow) {
            return Err(format!(
                "segment {}: a follow waypoint that is not the last",
                i + 1
            ));
        }
        let target = end.waypoint.kind == WaypointKind::Target;
        if target != (i == last) {
            return Err(format!(
                "segment {}: the target must be the follow waypoint of the last segment",
                i + 1
            ));
        }
        if end.waypoint.action != Action::Follow {
            return Err(format!("segment {}: the last waypoint must be `follow`", i + 1));
        }
    }
    Ok(())
}

/// Reads a witness file.
pub fn read(path: &Path) -> Result<Vec<Entry>, FormatError> {
    let text = std::fs::read_to_string(path).map_err(|e| FormatError::Io {
        file: path.display().to_string(),
        message: e.to_string(),
    })?;
    parse(&text, &path.display().to_string())
}

/// The entries as YAML text.
pub fn to_yaml(entries: &[Entry]) -> String {
    serde_norway::to_string(entries).expect("witness entries serialise")
}
