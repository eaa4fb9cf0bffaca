//! Witnesses: verdicts others can check.
//!
//! - [`format`](mod@format): the SV-COMP witness format 2.0 (YAML) — reading with positions, writing.
//! - [`violation`]: a violation witness (`violation_sequence`) from replayed nondet values,
//!   and the values a violation witness gives.
//! - [`correctness`]: a correctness witness (`invariant_set`) from loop invariants and, for
//!   recursive functions, function contracts (format 2.1).
//! - [`contract`]: function contracts as formulas (`\old` values at the entry).
//! - [`graphml`]: GraphML 1.x witnesses (read for tools that still write them; written on
//!   request).
//! - [`invariant`]: invariants (C expressions) as formulas over the program's variables.
//! - [`result`]: the value a `\result == c` constraint gives (integers, exact floats).
//! - [`inductive`]: whether invariants are inductive and imply safety (Z3 over the CFA), one
//!   [`region`] between cut points at a time, calls of recursive functions [`summary`]-ised.
//! - [`validate`]: Baton as a validator (violation witnesses replayed, correctness witnesses
//!   checked by [`inductive`]).
//! - [`guided`]: violation witnesses without (complete) values validated by the explicit
//!   analysis restricted to the paths their waypoints allow.
//!
//! Every witness is about the ORIGINAL program: violation witnesses come from a replay on the
//! original program's CFA, whose positions are the original file's lines (residual programs
//! only ever provide the nondet values, which replay on the original).

pub mod contract;
pub mod correctness;
pub mod format;
pub mod graphml;
pub mod guided;
pub mod inductive;
pub mod invariant;
pub mod region;
pub mod result;
pub mod skeleton;
pub mod summary;
pub mod validate;
pub mod violation;

use crate::cfa::{LocId, Program, SourceLoc};
use format::{Location, Metadata, Producer, TaskInfo, FORMAT_VERSION};
use std::path::Path;

/// The specification of `unreach-call` as the task's property file states it.
pub const UNREACH_CALL: &str = "G ! call(reach_error())";

/// Which witness file format to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WitnessFormat {
    /// SV-COMP format 2.0 (YAML).
    #[default]
    Yaml,
    /// GraphML 1.x.
    GraphMl,
}

impl std::str::FromStr for WitnessFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "yaml" | "2.0" => Ok(WitnessFormat::Yaml),
            "graphml" | "1.0" => Ok(WitnessFormat::GraphMl),
            _ => Err(format!("unknown witness format `{s}` (yaml or graphml)")),
        }
    }
}

impl WitnessFormat {
    /// The format by a file's extension (`.graphml` → GraphML, anything else → YAML).
    pub fn of_path(path: &Path) -> WitnessFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some("graphml") => WitnessFormat::GraphMl,
            _ => WitnessFormat::Yaml,
        }
    }
}

/// The metadata of a witness Baton writes about `program`.
pub fn metadata(program: &Program) -> Metadata {
    let file = program_file(program);
    Metadata {
        format_version: FORMAT_VERSION.into(),
        uuid: uuid::Uuid::new_v4().to_string(),
        creation_time: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        producer: Producer {
            name: "Baton".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            configuration: None,
            description: None,
            command_line: None,
        },
        task: TaskInfo {
            input_files: vec![file.clone()],
            input_file_hashes: [(file, program.hash.clone())].into_iter().collect(),
            specification: UNREACH_CALL.into(),
            data_model: program.data_model.to_string(),
            language: "C".into(),
        },
    }
}

/// The program file's name as the frontend recorded it.
pub fn program_file(program: &Program) -> String {
    program.files.first().cloned().unwrap_or_default()
}

/// A witness location for a source position in function `function`.
fn location(program: &Program, at: SourceLoc, function: &str) -> Location {
    Location {
        file_name: program
            .files
            .get(at.file as usize)
            .cloned()
            .unwrap_or_else(|| program_file(program)),
        line: at.line,
        column: (at.column > 0).then_some(at.column),
        function: Some(function.to_string()),
    }
}

/// Where a CFA location is in the program file: the position of its first outgoing edge (for a
/// loop head, the loop condition), if that edge is in the program file itself.
pub fn source_of(program: &Program, loc: LocId) -> Option<SourceLoc> {
    let edge = program.out_edges(loc).first()?;
    let at = program.edge(*edge).source;
    (at.file == 0 && at.line > 0).then_some(at)
}

/// What a definite verdict comes with, for its witness.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evidence {
    /// Nondet values that replay to the error on the original program.
    Values(Vec<i128>),
    /// Loop-head invariants (and contracts of recursive functions) of a proof of the
    /// original program.
    Invariants(correctness::ProofInvariants),
    /// A witness file a stage wrote (a native stage's, or an external tool's, kept as is).
    File(std::path::PathBuf),
}

/// Writes the witness of `evidence` about `program` to `path` in `format`; a file is copied
/// as it is. Returns what was written, naming `path` (a stage's own file is in a work
/// directory that may be gone when the caller reports it).
pub fn write_witness(
    program: Option<&Program>,
    evidence: &Evidence,
    path: &Path,
    format: WitnessFormat,
) -> Result<String, String> {
    let cannot_write = |e: std::io::Error| format!("{}: cannot write: {e}", path.display());
    let lowered = || program.ok_or("no witness: Baton cannot lower the program");
    let (text, what) = match evidence {
        Evidence::File(file) => {
            std::fs::copy(file, path)
                .map_err(|e| format!("{}: cannot copy to {}: {e}", file.display(), path.display()))?;
            return Ok(format!(
                "witness {} (the deciding stage's own, copied)",
                path.display()
            ));
        }
        Evidence::Values(values) => {
            let program = lowered()?;
            let run = violation::violating_run(program, values)?;
            match format {
                WitnessFormat::Yaml => (
                    format::to_yaml(&violation::violation_witness(program, &run)),
                    "violation witness",
                ),
                WitnessFormat::GraphMl => (
                    graphml::violation_graphml(program, &run),
                    "violation witness (GraphML)",
                ),
            }
        }
        Evidence::Invariants(invariants) => match format {
            WitnessFormat::Yaml => (
                format::to_yaml(&correctness::correctness_witness(lowered()?, invariants)),
                "correctness witness",
            ),
            WitnessFormat::GraphMl => {
                return Err("no witness: correctness witnesses are written in format 2.0 (YAML) only".into())
            }
        },
    };
    std::fs::write(path, text).map_err(cannot_write)?;
    Ok(format!("{what} {}", path.display()))
}
