//! The correctness witness of a `true` that no stage proved on the original program by
//! itself: decided on a residual program, with a guide, or by the accumulated condition.
//!
//! The residual program's invariants describe only the executions the earlier stages did not
//! verify, and the earlier stages (which gave up) leave no invariants of their part; neither
//! is an invariant of the original program. So the invariants are derived anew on the
//! ORIGINAL program: the explicit analysis, then (if it does not finish or its witness does not
//! validate) the predicate analysis runs on it without a guide (`baton verify --witness`, as a
//! subprocess under the hard limits of what is left of the flow's budget), and a witness is
//! used only after `baton validate` (also a subprocess, with the rest of that budget) confirms
//! it: its invariants are inductive and imply safety. A witness that does not validate is never
//! written.

use super::flow::Budget;
use super::stage::{verify_command, FlowState};
use crate::adapters::run::{first_line, killed, StepError, Steps};
use crate::exec::{Limits, RunStatus};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// At most this much CPU time goes into a derived witness (derivation and validation), even
/// when more of the flow's budget is left. A third of Table III's budget (900 s): the
/// predicate analysis needs 112 s on token_ring.05's original program, whose invariants the
/// validator then confirms in 13 s (125 s in all, release build on a loaded machine); with
/// 120 s it would have 81 s and give up (as in the Table III sweep of a build with 120 s).
pub const MAX_WITNESS_CPU: Duration = Duration::from_secs(300);

/// Less time than this is not worth starting for.
const MIN_WITNESS_CPU: Duration = Duration::from_millis(500);

/// Share of the witness budget the derivation may use; validation gets the rest.
const DERIVATION_SHARE: f64 = 0.75;

/// A derived and validated correctness witness.
#[derive(Debug, Clone)]
pub struct DerivedWitness {
    /// The witness file (in the work directory).
    pub file: PathBuf,
    /// What was done, for the report.
    pub note: String,
}

/// What deriving cost, and what came of it.
#[derive(Debug)]
pub struct Derivation {
    pub cpu: Duration,
    pub outcome: Result<DerivedWitness, String>,
}

/// Derives the correctness witness of the original program in `dir` within what is `left` of
/// the flow's budget, and at most [`MAX_WITNESS_CPU`].
pub fn derive(state: &FlowState<'_>, left: &Budget, dir: &Path) -> Derivation {
    let budget = left.cpu_time.map_or(MAX_WITNESS_CPU, |c| c.min(MAX_WITNESS_CPU));
    let mut steps = Steps::new(
        Limits {
            cpu_time: Some(budget.mul_f64(DERIVATION_SHARE)),
            wall_time: left.wall_time,
            memory: left.memory,
            ..Limits::default()
        },
        None,
    );
    let outcome = if budget < MIN_WITNESS_CPU || left.wall_time.is_some_and(|w| w < MIN_WITNESS_CPU) {
        Err("no time of the flow's budget left to derive one".into())
    } else {
        derive_in(state, &mut steps, budget, left, dir)
    };
    Derivation {
        cpu: steps.cpu,
        outcome,
    }
}

/// The analyses that derive the witness, in order, each with the share of what is left of the
/// witness budget it may use (derivation and validation): the explicit analysis, where it
/// completes on the original, finds and validates its values in moments (s3_srvr_7: 0.4 s
/// against 60 s for the predicate analysis' 600 KB invariant); the predicate analysis'
/// abstractions cover the programs it cannot finish.
const DERIVERS: [(&str, f64); 2] = [("explicit", 0.1), ("predicate", 1.0)];

fn derive_in(
    state: &FlowState<'_>,
    steps: &mut Steps,
    budget: Duration,
    left: &Budget,
    dir: &Path,
) -> Result<DerivedWitness, String> {
    let mut failures = Vec::new();
    for (analysis, share) in DERIVERS {
        let cap = budget.saturating_sub(steps.cpu).mul_f64(share);
        if cap < MIN_WITNESS_CPU {
            failures.push(format!("{analysis}: no time left"));
            continue;
        }
        match derive_with(state, steps, analysis, cap, left, &dir.join(analysis)) {
            Ok(witness) => return Ok(witness),
            Err(why) => failures.push(format!("{analysis}: {why}")),
        }
    }
    Err(failures.join("; "))
}

/// A witness of `analysis` on the original program, validated, within `cap` CPU time.
fn derive_with(
    state: &FlowState<'_>,
    steps: &mut Steps,
    analysis: &str,
    cap: Duration,
    left: &Budget,
    dir: &Path,
) -> Result<DerivedWitness, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let file = dir.join("witness.yml");
    let before = steps.cpu;
    let derive_cpu = cap.mul_f64(DERIVATION_SHARE);
    let cmd = verify_command(state, state.original_file, analysis)
        .arg("--give-up")
        .arg(format!(
            "cpu-time={}s",
            (derive_cpu.as_secs_f64() * 0.9).max(0.05)
        ))
        .arg("--witness")
        .arg(&file)
        .arg("--json");
    let report = steps.run(&cmd, &dir.join("run")).map_err(step_error)?;
    let derived_in = report.cpu_time;
    let verdict = json_field(&report, "verdict")?;
    if verdict != "true" {
        let reason = json_field(&report, "reason").unwrap_or_default();
        return Err(format!(
            "the {analysis} analysis on the original program answered {verdict} ({})",
            first_line(&reason)
        ));
    }
    let rest = cap.saturating_sub(steps.cpu.saturating_sub(before));
    if rest < Duration::from_millis(100) {
        return Err("no CPU time of the witness budget left to validate it".into());
    }
    let validate = crate::adapters::CommandLine::new(state.baton)
        .arg("validate")
        .arg(state.original_file)
        .arg(&file)
        .arg("--data-model")
        .arg(state.model.to_string())
        .arg("--signed-overflow")
        .arg(state.signed_overflow.to_string())
        .arg("--cpu-time")
        .arg(format!("{}ms", (rest.as_millis() * 9 / 10).max(50)))
        .arg("--json");
    let limits = Limits {
        cpu_time: Some(rest),
        wall_time: Some(
            left.wall_time
                .map(|w| w.saturating_sub(steps.wall))
                .unwrap_or(Duration::MAX)
                .min(rest * 2 + Duration::from_secs(10)),
        ),
        memory: left.memory,
        ..Limits::default()
    };
    let checked = steps
        .run_helper(&validate, &dir.join("validate"), &limits)
        .map_err(step_error)?;
    let judgement = json_field(&checked, "judgement")?;
    let why = json_field(&checked, "reason").unwrap_or_default();
    if judgement != "confirmed" {
        return Err(format!(
            "the invariants the {analysis} analysis found on the original program did not validate ({judgement}: {why})"
        ));
    }
    Ok(DerivedWitness {
        file,
        note: format!(
            "derived on the original program by the {analysis} analysis ({:.2} s CPU) and validated ({why})",
            derived_in.as_secs_f64()
        ),
    })
}

fn step_error(e: StepError) -> String {
    match e {
        StepError::Stopped => "stopped".into(),
        StepError::Failed(why) => why,
    }
}

/// A string field of the JSON document a Baton subprocess printed, or why there is none.
fn json_field(report: &crate::exec::RunReport, key: &str) -> Result<String, String> {
    if killed(&report.status) {
        return Err(format!(
            "stopped by the witness budget ({})",
            report.status.benchexec_string()
        ));
    }
    let text = report.stdout_text().map_err(|e| e.to_string())?;
    if report.status != RunStatus::Done {
        let why = crate::cli_json::error_message(&text).unwrap_or_else(|| report.status.benchexec_string());
        return Err(format!("failed: {}", first_line(&why)));
    }
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("printed no JSON result: {e}"))?;
    json.get(key)
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .ok_or_else(|| format!("its JSON result has no `{key}`"))
}
