//! `validate`: a witness checked against a program or task.

use super::{load_input, write_stdout, Failure, InputArgs, SemanticsArgs};
use baton::cli_json::document;
use baton::witness::inductive::CheckLimits;
use baton::witness::validate::validate_file;
use std::path::PathBuf;

#[derive(clap::Args)]
pub(crate) struct ValidateArgs {
    #[command(flatten)]
    pub(crate) input: InputArgs,
    /// The witness file.
    pub(crate) witness: PathBuf,
    /// CPU time for checking a correctness witness's invariants (e.g. 60s).
    #[arg(long, default_value = "60s", value_parser = humantime::parse_duration)]
    pub(crate) cpu_time: std::time::Duration,
    /// Print the result as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) semantics: SemanticsArgs,
}

/// Validates a witness and prints the judgement (exit status 0 for every judgement).
pub(crate) fn validate(a: ValidateArgs) -> Result<(), Failure> {
    let (task, mut program) = load_input(&a.input)?;
    program.signed_overflow = a.semantics.signed_overflow.unwrap_or_default();
    let limits = CheckLimits {
        cpu_time: a.cpu_time,
        ..CheckLimits::default()
    };
    let v = validate_file(&program, &a.witness, limits).map_err(Failure::input)?;
    if a.json {
        let value = serde_json::json!({
            "task": task.name(), "witness_file": a.witness.display().to_string(),
            "witness": v.witness, "judgement": v.judgement, "reason": v.reason, "values": v.values,
        });
        outln!("{}", document(&value).map_err(Failure::other)?);
    } else {
        outln!("{} witness: {:?} ({})", v.witness, v.judgement, v.reason);
    }
    Ok(())
}
