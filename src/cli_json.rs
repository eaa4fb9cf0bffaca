//! The JSON documents `baton … --json` prints: every document is one object whose first key is
//! `version` (Baton's version), keys in snake case; a failed command prints an error document
//! `{"version": …, "error": {"kind": "input"|"internal", "message": …}}` instead.

use crate::adapters::registry::ToolStatus;
use crate::bench::report::Counts;
use crate::bench::table::Column;
use crate::bench::{BenchOutcome, RunResult};
use crate::cfa::interpreter::Execution;
use serde::Serialize;
use std::path::PathBuf;

/// Baton's version, the `version` key of every document.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A document: `version` first, then the body's keys (the body must serialize as a map).
#[derive(Serialize)]
pub struct Versioned<'a, T: Serialize> {
    pub version: &'static str,
    #[serde(flatten)]
    pub body: &'a T,
}

/// The pretty-printed document of a body.
pub fn document<T: Serialize>(body: &T) -> serde_json::Result<String> {
    serde_json::to_string_pretty(&Versioned {
        version: VERSION,
        body,
    })
}

/// Whose fault a failure is: the input's (exit status 2) or Baton's or its tools' (1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    Input,
    Internal,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    kind: ErrorKind,
    message: &'a str,
}

#[derive(Serialize)]
struct ErrorDocument<'a> {
    error: ErrorBody<'a>,
}

/// The error document of a failure.
pub fn error_document(kind: ErrorKind, message: &str) -> String {
    document(&ErrorDocument {
        error: ErrorBody { kind, message },
    })
    // Serializing strings and an enum cannot fail; the fallback keeps the shape regardless.
    .unwrap_or_else(|_| format!("{{\"version\": \"{VERSION}\", \"error\": {{\"kind\": \"internal\"}}}}"))
}

/// The message of an error document (what a `baton … --json` child printed when it failed).
pub fn error_message(stdout: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(stdout.trim()).ok()?;
    Some(value.get("error")?.get("message")?.as_str()?.to_string())
}

/// `baton exec --json`: how a run of the interpreter ended.
#[derive(Debug, Serialize)]
pub struct ExecReport {
    /// The ending's kind (`error_reached`, `returned`, `step_limit`, …).
    pub ending: &'static str,
    /// The ending in words, as the text output prints it.
    pub description: String,
    pub steps: u64,
    pub inputs_given: usize,
    pub inputs_consumed: usize,
    /// The values the nondet calls returned, in order (decimal strings: they may exceed what
    /// a JSON reader holds in a double).
    pub nondet_values: Vec<String>,
    /// Every executed edge with the values it assigned (`--trace` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<Vec<String>>,
}

impl ExecReport {
    pub fn new(run: &Execution, inputs_given: usize, trace: Option<Vec<String>>) -> ExecReport {
        ExecReport {
            ending: run.ending.kind(),
            description: run.ending.to_string(),
            steps: run.steps,
            inputs_given,
            inputs_consumed: run.inputs_consumed,
            nondet_values: run.nondet_values.iter().map(i128::to_string).collect(),
            trace,
        }
    }
}

/// Sizes of a program, for `baton reduce --json`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ProgramSize {
    pub locations: usize,
    pub edges: usize,
    pub lines: usize,
}

/// `baton reduce --json`: the residual program's size against the original's.
#[derive(Debug, Serialize)]
pub struct ReduceReport {
    pub reducer: String,
    /// The file the residual program was written to, if `--output` was given.
    pub output: Option<PathBuf>,
    /// The residual program's text when it was not written to a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub residual_program: Option<String>,
    pub original: ProgramSize,
    pub residual: ProgramSize,
    /// How much of the condition the residual keeps; `None` for the identity reducer.
    pub coverage: Option<ResidualCoverage>,
    pub reduce_time_s: f64,
}

/// How much of the condition a residual program keeps (`baton reduce --json`): within a size
/// cap it may track the condition at fewer locations and so cut fewer covered paths than the
/// exact residual.
#[derive(Debug, Serialize)]
pub struct ResidualCoverage {
    /// Residual locations where the condition is still tracked (the rest is original code).
    pub tracked_locations: usize,
    /// Covered transitions the residual does not take.
    pub cuts_kept: usize,
    /// The same for the exact residual (without a cap).
    pub cuts_exact: usize,
    /// `cuts_kept / cuts_exact` (1 when the exact residual cuts nothing).
    pub cuts_kept_fraction: f64,
    /// Residual edges guarded by the condition's state cuts (they cut covered executions
    /// without copying code).
    pub guarded_edges: usize,
}

/// One executable of an adapter in `baton tools --json`.
#[derive(Debug, Serialize)]
pub struct ToolExecutable {
    pub role: String,
    /// Where it was found; `None` when not found.
    pub path: Option<PathBuf>,
    /// The names looked for, when not found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub names_tried: Option<String>,
}

/// One adapter in `baton tools --json`.
#[derive(Debug, Serialize)]
pub struct ToolEntry {
    pub tool: String,
    pub origin: String,
    pub version: Option<String>,
    pub executables: Vec<ToolExecutable>,
    pub not_installable: Option<String>,
}

/// `baton tools --json`: the adapters and the native analyses.
#[derive(Debug, Serialize)]
pub struct ToolsReport {
    pub tools: Vec<ToolEntry>,
    pub native_analyses: Vec<&'static str>,
}

impl ToolsReport {
    pub fn new(statuses: &[ToolStatus], native_analyses: Vec<&'static str>) -> ToolsReport {
        let tools = statuses
            .iter()
            .map(|s| ToolEntry {
                tool: s.tool.clone(),
                origin: s.origin.clone(),
                version: s.version.clone(),
                executables: s
                    .executables
                    .iter()
                    .map(|(role, found)| ToolExecutable {
                        role: role.clone(),
                        path: found.as_ref().ok().cloned(),
                        names_tried: found.as_ref().err().cloned(),
                    })
                    .collect(),
                not_installable: s.not_installable.clone(),
            })
            .collect();
        ToolsReport {
            tools,
            native_analyses,
        }
    }
}

/// Counts of one run definition, for `bench --json` and `table --json`: the number of runs
/// and [`Counts`]' keys.
#[derive(Debug, Serialize)]
pub struct CountsEntry {
    pub runs: usize,
    #[serde(flatten)]
    pub counts: Counts,
}

impl CountsEntry {
    fn of(results: &[RunResult]) -> CountsEntry {
        CountsEntry {
            runs: results.len(),
            counts: Counts::of(results),
        }
    }
}

/// One run definition of `bench --json`.
#[derive(Debug, Serialize)]
pub struct BenchRunDefinition {
    pub name: String,
    pub counts: CountsEntry,
}

/// `baton bench --json`: what was run and where the results are.
#[derive(Debug, Serialize)]
pub struct BenchReport {
    pub executed: usize,
    pub resumed: usize,
    pub output_dir: PathBuf,
    pub xml_files: Vec<PathBuf>,
    pub run_definitions: Vec<BenchRunDefinition>,
}

impl BenchReport {
    pub fn new(outcome: &BenchOutcome, output_dir: PathBuf) -> BenchReport {
        BenchReport {
            executed: outcome.executed,
            resumed: outcome.resumed,
            output_dir,
            xml_files: outcome.xml_files.clone(),
            run_definitions: outcome
                .results
                .iter()
                .map(|(name, results)| BenchRunDefinition {
                    name: name.clone(),
                    counts: CountsEntry::of(results),
                })
                .collect(),
        }
    }
}

/// One provenance item (limits, host, version, …) of a table column.
#[derive(Debug, Serialize)]
pub struct ProvenanceEntry {
    pub name: String,
    pub value: String,
}

/// One column of `table --json`: a run definition's provenance, counts and results.
#[derive(Debug, Serialize)]
pub struct TableColumn<'a> {
    pub label: &'a str,
    pub provenance: Vec<ProvenanceEntry>,
    pub counts: CountsEntry,
    pub results: &'a [RunResult],
}

/// `baton table --json`: the compared columns.
#[derive(Debug, Serialize)]
pub struct TableReport<'a> {
    pub columns: Vec<TableColumn<'a>>,
}

impl<'a> TableReport<'a> {
    pub fn new(columns: &'a [Column]) -> TableReport<'a> {
        TableReport {
            columns: columns
                .iter()
                .map(|c| TableColumn {
                    label: &c.label,
                    provenance: c
                        .provenance
                        .iter()
                        .map(|(name, value)| ProvenanceEntry {
                            name: name.clone(),
                            value: value.clone(),
                        })
                        .collect(),
                    counts: CountsEntry::of(&c.results),
                    results: &c.results,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_start_with_the_version() {
        let text = document(&serde_json::json!({"verdict": "true"})).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["version"], VERSION);
        assert_eq!(value["verdict"], "true");
        assert!(text.trim_start().starts_with("{\n  \"version\""), "{text}");
    }

    #[test]
    fn error_documents_name_kind_and_message() {
        let value: serde_json::Value =
            serde_json::from_str(&error_document(ErrorKind::Input, "x.c: no such file")).unwrap();
        assert_eq!(value["version"], VERSION);
        assert_eq!(value["error"]["kind"], "input");
        assert_eq!(value["error"]["message"], "x.c: no such file");
        let text = error_document(ErrorKind::Internal, "disk full");
        assert_eq!(error_message(&text).as_deref(), Some("disk full"));
        assert_eq!(error_message("{\"verdict\": \"true\"}"), None);
    }
}
