//! Extractors: the Rust procedures behind adapters whose outcome needs more than result rules.
//! An adapter names one with `contributes: NAME`; each runs its own steps with the adapter's
//! executables and options and reads the tool's files into a [`Finding`]:
//! * `bounded` — CBMC's pipeline (goto-cc → goto-instrument → cbmc --json-ui, `cbmc.rs`): the
//!   counterexample's nondet values, a proof, or "safe within the bound" as the bounded
//!   condition of `bounded.rs`;
//! * `afl` — build with Baton's harness, fuzz, replay each crash to log its nondet values;
//! * `klee` — bitcode of program and harness, `klee`, the `.ktest` inputs of the error path.
//!
//! The adapter's result rules read the main step's output first; an `error` (or a broken
//! limit, a signal) ends the stage there.

use super::run::{interpret, Finding, Outcome, StageTask, StepError, Steps};
use super::spec::Adapter;
use super::{afl, bounded, cbmc, klee};
use crate::exec::{Limits, RunStatus};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// The extractors Baton has.
pub const NAMES: [&str; 3] = ["bounded", "afl", "klee"];

/// Runs extractor `name`.
pub fn run(
    name: &str,
    adapter: &Adapter,
    exes: &BTreeMap<String, PathBuf>,
    task: &StageTask<'_>,
    steps: &mut Steps,
) -> Result<Outcome, StepError> {
    match name {
        "bounded" => run_bounded(adapter, exes, task, steps),
        "afl" => run_afl(adapter, exes, task, steps),
        "klee" => run_klee(adapter, exes, task, steps),
        other => Err(StepError::Failed(format!("no extractor `{other}`"))),
    }
}

/// The executable of `role` (the registry checked that every role was found).
pub fn role(exes: &BTreeMap<String, PathBuf>, role: &str) -> Result<PathBuf, String> {
    exes.get(role)
        .cloned()
        .ok_or_else(|| format!("the adapter declares no executable for role `{role}`"))
}

/// An option as an integer (the adapter declared its type, so parsing only fails on a bug).
fn int_option(task: &StageTask<'_>, key: &str) -> Result<Option<u64>, String> {
    task.options
        .get(key)
        .map(|v| {
            v.parse::<u64>()
                .map_err(|_| format!("option {key} `{v}` is not a non-negative integer"))
        })
        .transpose()
}

/// Whether the rules (or a limit or signal) already ended the stage.
fn failed(outcome: &Outcome) -> bool {
    !matches!(
        outcome.status.as_str(),
        "true" | "false(unreach-call)" | "unknown"
    )
}

fn run_bounded(
    adapter: &Adapter,
    exes: &BTreeMap<String, PathBuf>,
    task: &StageTask<'_>,
    steps: &mut Steps,
) -> Result<Outcome, StepError> {
    let tools = cbmc::CbmcTools::from_roles(exes)?;
    let unwind = int_option(task, "unwind")?.unwrap_or(1);
    let unwind = u32::try_from(unwind).map_err(|_| format!("unwind {unwind} is too large"))?;
    // goto-cc does not preprocess `.i` files, so the `-D` renames of the error and nondet
    // functions would not apply (CBMC would then turn `__VERIFIER_error()` into an assertion of
    // the caller, which is not the reach-error property): preprocess such a file again as `.c`.
    let program = if task.program.extension().is_some_and(|e| e == "c") {
        task.program.to_path_buf()
    } else {
        let copy = task.dir.join("program.c");
        std::fs::copy(task.program, &copy).map_err(|e| format!("{}: {e}", copy.display()))?;
        copy
    };
    let p = cbmc::pipeline(&tools, &program, task.dir, task.model, unwind);
    let prep = [
        ("goto-cc", &p.compile),
        ("goto-instrument", &p.instrument),
        ("goto-instrument", &p.instrument_nondet),
    ];
    for (i, (name, cmd)) in prep.iter().enumerate() {
        let report = steps.run(cmd, &task.dir.join(format!("step{}", i + 1)))?;
        if super::run::killed(&report.status) {
            return Ok(Outcome::nothing(
                steps.status.clone(),
                format!("{name} stopped by the stage budget"),
            ));
        }
        let out = report.stdout_text()?;
        let err = report.stderr_text()?;
        if let Some(cbmc::CbmcOutcome::Error(e)) = cbmc::step_failure(name, report.exit_code, &out, &err) {
            return Ok(Outcome::nothing(format!("ERROR ({name})"), e));
        }
    }
    let report = steps.run(&p.verify, &task.dir.join("step4"))?;
    let first = interpret(adapter, &report);
    let out = report.stdout_text()?;
    let parsed = cbmc::parse_output(&out, report.exit_code, unwind);
    if failed(&first) {
        let mut o = first;
        if let cbmc::CbmcOutcome::Error(e) = parsed {
            o.note = format!("{}; {e}", o.note);
        }
        return Ok(o);
    }
    // A program Baton cannot lower is searched for the words (also where no value is computed).
    let long_double = match task.cfa {
        Some(cfa) => cbmc::uses_long_double(cfa),
        None => std::fs::read_to_string(task.program).map_or(true, |text| text.contains("long double")),
    };
    Ok(match parsed {
        cbmc::CbmcOutcome::Violation {
            nondet_values,
            property,
        } => Outcome::bug(vec![nondet_values], format!("cbmc: {property} fails"), ""),
        cbmc::CbmcOutcome::Safe | cbmc::CbmcOutcome::SafeWithinBound { .. } if long_double => {
            Outcome::nothing(
                "unknown",
                "cbmc: safe, not believed: CBMC computes long double in a wider format than gcc's x87 \
             extended precision",
            )
        }
        cbmc::CbmcOutcome::Safe => {
            Outcome::proof(format!("cbmc: safe, all loops fully unwound (unwind {unwind})"))
        }
        cbmc::CbmcOutcome::SafeWithinBound { unwind } => match task.cfa {
            Some(cfa) => {
                let c = bounded::bounded_condition(cfa, unwind, bounded::DEFAULT_MAX_STATES);
                let note = if c.is_trivial_empty() {
                    format!("cbmc: safe within unwind {unwind}; no bounded condition for this program")
                } else {
                    format!(
                        "cbmc: safe within unwind {unwind}; paths with at most {} loop-head visits verified",
                        unwind.saturating_sub(1)
                    )
                };
                Outcome {
                    status: "unknown".into(),
                    finding: Finding::Condition(c),
                    note,
                }
            }
            None => Outcome::nothing(
                "unknown",
                format!("cbmc: safe within unwind {unwind}; no condition (Baton cannot lower the program)"),
            ),
        },
        cbmc::CbmcOutcome::Error(e) => Outcome::nothing("ERROR (invalid output)", e),
    })
}

fn run_afl(
    adapter: &Adapter,
    exes: &BTreeMap<String, PathBuf>,
    task: &StageTask<'_>,
    steps: &mut Steps,
) -> Result<Outcome, StepError> {
    let tools = afl::AflTools::from_roles(exes)?;
    let dir = task.dir;
    let harness = dir.join("afl-harness.c");
    std::fs::write(&harness, afl::HARNESS_C).map_err(|e| format!("{}: {e}", harness.display()))?;
    let binary = dir.join("prog-afl");
    let build = afl::build_command(&tools, &harness, task.program, &binary, task.model);
    let report = steps.run(&build, &dir.join("build"))?;
    if report.status != RunStatus::Done {
        let err = report.stderr_text()?;
        return Ok(Outcome::nothing(
            steps.status.clone(),
            format!("afl build failed: {}", super::run::first_line(&err)),
        ));
    }
    let seconds = match int_option(task, "fuzz_time_s")? {
        Some(s) => s,
        None => steps
            .cpu_budget()
            .map(|c| c.saturating_sub(steps.cpu).as_secs())
            .unwrap_or(60),
    }
    .max(1);
    let in_dir = dir.join("afl-in");
    let out_dir = dir.join("afl-out");
    std::fs::create_dir_all(&in_dir).map_err(|e| format!("{}: {e}", in_dir.display()))?;
    std::fs::write(in_dir.join("seed"), afl::seed_input())
        .map_err(|e| format!("{}: {e}", in_dir.display()))?;
    let fuzz = afl::fuzz_command(&tools, &adapter.spec.env, &in_dir, &out_dir, &binary, seconds);
    let report = steps.run(&fuzz, &dir.join("fuzz"))?;
    let first = interpret(adapter, &report);
    let crashes = afl::crash_inputs(&out_dir).map_err(|e| e.to_string())?;
    if crashes.is_empty() {
        if failed(&first) {
            return Ok(first);
        }
        return Ok(Outcome::nothing(
            "unknown",
            format!("afl: no crash in {seconds} s"),
        ));
    }
    let mut candidates = Vec::new();
    let mut notes = Vec::new();
    for (i, crash) in crashes.iter().take(10).enumerate() {
        let log = dir.join(format!("crash{i}.log"));
        let replay = afl::replay_command(&binary, crash, &log);
        let replay_limits = Limits {
            cpu_time: Some(Duration::from_secs(10)),
            wall_time: Some(Duration::from_secs(20)),
            ..Limits::default()
        };
        steps.run_helper(&replay, &dir.join(format!("replay{i}")), &replay_limits)?;
        let Ok(text) = std::fs::read_to_string(&log) else {
            notes.push(format!("crash {i}: no value log"));
            continue;
        };
        match afl::decode_nondet_log(&text, task.model, &log.display().to_string()) {
            Ok(d) if d.error_function.is_some() => candidates.push(d.values()),
            Ok(_) => notes.push(format!("crash {i} does not enter the error function")),
            Err(e) => notes.push(e.to_string()),
        }
    }
    if candidates.is_empty() {
        return Ok(Outcome::nothing("unknown", notes.join("; ")));
    }
    Ok(Outcome::bug(candidates, "afl crash", notes.join("; ")))
}

fn run_klee(
    adapter: &Adapter,
    exes: &BTreeMap<String, PathBuf>,
    task: &StageTask<'_>,
    steps: &mut Steps,
) -> Result<Outcome, StepError> {
    let tools = klee::KleeTools::from_roles(exes)?;
    let dir = task.dir;
    let harness = dir.join("klee-harness.c");
    std::fs::write(&harness, klee::HARNESS_C).map_err(|e| format!("{}: {e}", harness.display()))?;
    let out_dir = dir.join("klee-out");
    let max_time = match int_option(task, "max_time_s")? {
        Some(s) => s,
        None => steps
            .cpu_budget()
            .map(|c| (c.as_secs_f64() * 0.9) as u64)
            .unwrap_or(60),
    }
    .max(1);
    let p = klee::pipeline(
        &tools,
        &harness,
        task.program,
        dir,
        &out_dir,
        task.model,
        max_time,
    );
    for (i, cmd) in [&p.compile_harness, &p.compile_program, &p.link]
        .iter()
        .enumerate()
    {
        let report = steps.run(cmd, &dir.join(format!("step{}", i + 1)))?;
        if report.status != RunStatus::Done {
            let err = report.stderr_text()?;
            return Ok(Outcome::nothing(
                steps.status.clone(),
                format!(
                    "klee build step {} failed: {}",
                    i + 1,
                    super::run::first_line(&err)
                ),
            ));
        }
    }
    let report = steps.run(&p.run, &dir.join("step4"))?;
    let first = interpret(adapter, &report);
    if failed(&first) {
        return Ok(first);
    }
    Ok(
        match klee::read_output_dir(&out_dir, task.model).map_err(|e| e.to_string())? {
            klee::KleeOutcome::Violation {
                nondet_values,
                test_id,
            } => Outcome::bug(vec![nondet_values], format!("klee test {test_id}"), ""),
            klee::KleeOutcome::Safe => Outcome::proof("klee explored every path"),
            klee::KleeOutcome::Unknown(why) => Outcome::nothing("unknown", why),
        },
    )
}
