//! Runs a flow: stages one after another under budgets, each handing on what it verified;
//! `parallel:` groups run their stages at once ([`super::parallel`]).
//!
//! Every tool a flow names is looked up, and every stage's options are checked against its
//! adapter, before anything runs. A stage's budget is capped by what is left of the flow's (CPU
//! time as measured: the stages' and the runner's own). The first `true`/`false` ends the flow; otherwise the stage's condition
//! (about the original program) joins the accumulated one ([`condition::union`]) and the next
//! stage gets its input: `reduce` → the residual C program of the accumulated condition,
//! `identity` → the original, `guide` → the original with the accumulated condition as guide
//! (native analyses only). What a stage's outcome means is decided in [`super::stage`].
//!
//! A program Baton's frontend cannot lower does not end the flow: stages that need Baton's CFA
//! (native analyses, guides) are skipped with status `unsupported` and the frontend's reason,
//! every external stage gets the original program.

use super::flow::{Budget, Flow, FlowError};
use super::parallel::{run_group, Member};
use super::proof_witness;
use super::stage::{run_stage, sanitize, FlowState, StageOutcome, StageReport};
use crate::adapters::registry::{search_path_text, Registry};
use crate::cfa::semantics::SignedOverflow;
use crate::cfa::types::DataModel;
use crate::condition::{self, ConditionAutomaton};
use crate::exec;
use crate::frontend::{load_program, FrontendError};
use crate::task::Task;
use crate::verdict::Verdict;
use crate::witness::{write_witness, Evidence, WitnessFormat};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why a flow could not be run (bad flow, bad program, missing tool) or broke down.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The flow file is malformed.
    #[error(transparent)]
    Flow(#[from] FlowError),
    /// An executable a stage needs is not installed.
    #[error("stage `{stage}` (tool {tool}): {executable} not found (looked in {looked}); {hint}")]
    ToolMissing {
        stage: String,
        tool: String,
        executable: String,
        looked: String,
        hint: String,
    },
    /// The task or program cannot be used.
    #[error("{0}")]
    Input(String),
    /// Baton itself could not do its part (write files, start a tool).
    #[error("stage `{stage}`: {message}")]
    Internal { stage: String, message: String },
}

impl RunError {
    /// True for errors caused by the inputs (flow, program, installed tools): exit status 2.
    pub fn is_input_error(&self) -> bool {
        !matches!(self, RunError::Internal { .. })
    }
}

/// Options of a flow run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Keep every stage's files here (created if missing); otherwise a temporary directory.
    pub keep_dir: Option<PathBuf>,
    /// The `baton` executable native stages run as (normally `std::env::current_exe()`).
    pub baton: PathBuf,
    /// What signed overflow means for every stage's analysis and every replay.
    pub signed_overflow: SignedOverflow,
    /// Write the witness of a definite verdict here, in this format.
    pub witness: Option<(PathBuf, WitnessFormat)>,
}

/// The result of a flow run.
#[derive(Debug, Clone, Serialize)]
pub struct FlowReport {
    pub flow: String,
    pub task: String,
    /// BenchExec verdict string.
    pub verdict: String,
    /// For a `false`: whether Baton replayed its counterexample on the original program.
    pub confirmed: Option<bool>,
    pub expected: Option<bool>,
    /// CPU time of the flow: the stages' and the runner's own (`runner_cpu_time_s`).
    pub cpu_time_s: f64,
    /// CPU time the runner spent itself between the stages: reading, mapping back and uniting
    /// conditions, reducing programs, replaying counterexamples. Part of `cpu_time_s` and of
    /// the flow's budget: a condition of millions of states takes seconds to read.
    pub runner_cpu_time_s: f64,
    pub wall_time_s: f64,
    /// The stage that decided a definite verdict.
    pub deciding_stage: Option<String>,
    /// Why Baton cannot lower the program, if it cannot (its CFA stages were skipped).
    pub unsupported: Option<String>,
    /// The stages skipped because Baton cannot lower the program.
    pub skipped_stages: Vec<String>,
    pub stages: Vec<StageReport>,
    /// Where the stages' files are (only when kept).
    /// What the verdict assumes (stable keys, e.g. `no-undefined-behaviour`).
    pub assumptions: Vec<&'static str>,
    pub signed_overflow: SignedOverflow,
    pub work_dir: Option<PathBuf>,
    /// The witness written (`--witness`), or why there is none.
    pub witness: Option<String>,
    /// CPU time spent deriving and validating the witness of a `true` no stage proved on the
    /// original program by itself (not part of `cpu_time_s`).
    pub witness_cpu_time_s: f64,
    #[serde(skip)]
    pub verdict_value: Verdict,
}

/// Loads a flow file and validates it against the native analyses and the adapters of
/// `registry`: unknown tools, unknown options, wrong option types or values are errors with the
/// flow file's line.
pub fn load_flow(path: &Path, registry: &Registry) -> Result<Flow, RunError> {
    let flow = Flow::load(path, &registry.names())?;
    for stage in &flow.stages {
        let Some(adapter) = registry.get(&stage.tool) else {
            continue;
        };
        if let Err((key, message)) = adapter.resolve_options(&stage.options) {
            return Err(RunError::Flow(FlowError {
                file: path.display().to_string(),
                line: stage.option_lines.get(&key).copied().unwrap_or(stage.line),
                message: format!("stage `{}`: {message}", stage.name),
            }));
        }
    }
    Ok(flow)
}

/// Checks that every executable of every external stage exists; the first missing one is an
/// error. Runs before any stage.
pub fn check_tools(flow: &Flow, registry: &Registry) -> Result<(), RunError> {
    for stage in &flow.stages {
        let Some(adapter) = registry.get(&stage.tool) else {
            continue;
        };
        if let Err((_, names)) = adapter.executables() {
            return Err(RunError::ToolMissing {
                stage: stage.name.clone(),
                tool: stage.tool.clone(),
                executable: names,
                looked: search_path_text(),
                hint: adapter.missing_hint(),
            });
        }
    }
    Ok(())
}

/// Runs a flow on a task (a `.yml` task definition or a C file).
pub fn run_flow(
    flow: &Flow,
    registry: &Registry,
    task_path: &Path,
    data_model: Option<DataModel>,
    options: &RunOptions,
) -> Result<FlowReport, RunError> {
    check_tools(flow, registry)?;
    let mut task =
        Task::load(task_path, data_model.unwrap_or_default()).map_err(|e| RunError::Input(e.to_string()))?;
    if let Some(m) = data_model {
        task.data_model = m;
    }
    let lowered = match load_program(&task.program, task.data_model) {
        // Replays of every stage's counterexample run under the flow's semantics.
        Ok(mut p) => {
            p.signed_overflow = options.signed_overflow;
            Ok(p)
        }
        Err(e @ FrontendError::Io { .. }) => return Err(RunError::Input(e.to_string())),
        Err(e) => Err(e.to_string()),
    };
    let original = lowered.as_ref().map_err(String::as_str);
    let original_file = std::fs::canonicalize(&task.program)
        .map_err(|e| RunError::Input(format!("{}: {e}", task.program.display())))?;
    let internal = |stage: &str, message: String| RunError::Internal {
        stage: stage.to_string(),
        message,
    };
    // The work directory: kept, or a temporary one deleted at the end.
    let temp;
    let root: PathBuf = match &options.keep_dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| internal("-", format!("{}: {e}", dir.display())))?;
            std::fs::canonicalize(dir).map_err(|e| internal("-", format!("{}: {e}", dir.display())))?
        }
        None => {
            temp = exec::lifecycle::PrivateTempDir::new()
                .map_err(|e| internal("-", format!("cannot create a temporary directory: {e}")))?;
            temp.path().to_path_buf()
        }
    };

    let started = std::time::Instant::now();
    // The stages' CPU time (their processes); the runner's own (lowering, reducing, uniting
    // conditions: token_ring.08 under Table III's flow, 2.1 s) is measured apart
    // (`runner_cpu`) and counts against the budget as much: a limit from outside measures both.
    let mut used_cpu = Duration::ZERO;
    let runner_started = crate::cpa::monitor::process_cpu_time();
    let runner_cpu = || crate::cpa::monitor::process_cpu_time().saturating_sub(runner_started);
    let hash = original.map_or(String::new(), |p| p.hash.clone());
    let mut conditions: Vec<ConditionAutomaton> = Vec::new();
    let mut accumulated = ConditionAutomaton::nothing_verified(&hash);
    let nothing = accumulated.clone();
    // What every stage knows, with the accumulated condition of its time.
    let flow_state = FlowState {
        registry,
        original,
        original_file: &original_file,
        model: task.data_model,
        trust: flow.trust,
        accumulated: &nothing,
        baton: &options.baton,
        signed_overflow: options.signed_overflow,
    };
    let mut rows: Vec<StageReport> = Vec::new();
    let mut verdict = Verdict::Unknown;
    let mut confirmed = None;
    let mut deciding = None;
    let mut evidence = None;

    let mut index = 0;
    while index < flow.stages.len() {
        // The unit: one stage, or the consecutive stages of one parallel group.
        let group = flow.stages[index].group;
        let end = match group {
            Some(g) => {
                index
                    + flow.stages[index..]
                        .iter()
                        .take_while(|s| s.group == Some(g))
                        .count()
            }
            None => index + 1,
        };
        let unit = &flow.stages[index..end];
        let remaining = Budget {
            cpu_time: flow
                .budget
                .cpu_time
                .map(|c| c.saturating_sub(used_cpu + runner_cpu())),
            wall_time: flow.budget.wall_time.map(|w| w.saturating_sub(started.elapsed())),
            memory: memory_left(flow.budget.memory),
        };
        if remaining.cpu_time.is_some_and(|c| c.is_zero()) || remaining.wall_time.is_some_and(|w| w.is_zero())
        {
            if let Some(last) = rows.last_mut() {
                last.note.push_str("; flow budget exhausted");
            }
            break;
        }
        let state = FlowState {
            accumulated: &accumulated,
            ..flow_state
        };
        let members: Vec<Member<'_>> = unit
            .iter()
            .enumerate()
            .map(|(k, stage)| Member {
                stage,
                budget: stage.budget.capped_by(remaining),
                dir: root.join(format!("{:02}-{}", index + k + 1, sanitize(&stage.name))),
            })
            .collect();
        let outcomes: Vec<StageOutcome> = if group.is_some() {
            run_group(&state, &members).map_err(|e| internal(&unit[0].name, e))?
        } else {
            let m = &members[0];
            vec![run_stage(&state, m.stage, &m.budget, &m.dir, None)
                .map_err(|e| internal(&m.stage.name, e))?]
        };
        index = end;
        let mut decided = false;
        let mut new_condition = false;
        for o in &outcomes {
            used_cpu += o.cpu;
            if o.verdict.is_definite() && !decided {
                decided = true;
                verdict = o.verdict;
                confirmed = o.row.confirmed;
                deciding = Some(o.row.name.clone());
                evidence = o.evidence.clone();
            }
            if let Some(c) = &o.condition {
                if !c.is_trivial_empty() {
                    conditions.push(c.clone());
                    new_condition = true;
                }
            }
        }
        if !decided && new_condition {
            accumulated =
                condition::union(&conditions).map_err(|e| internal(&unit[0].name, e.to_string()))?;
        }
        for mut o in outcomes {
            if !decided {
                if let Ok(p) = original {
                    o.row.covered_share = accumulated.summary(p).covered_share();
                }
            }
            rows.push(o.row);
        }
        if decided {
            break;
        }
    }
    let runner_cpu_time = runner_cpu();
    // A `true` no stage proved on the original program by itself: its witness is derived on
    // the original and validated, within what is left of the flow's budget.
    let mut witness_cpu = Duration::ZERO;
    let mut derived = None;
    if let (Some((_, WitnessFormat::Yaml)), Verdict::True, None, Ok(_)) =
        (&options.witness, verdict, &evidence, original)
    {
        let left = Budget {
            cpu_time: flow
                .budget
                .cpu_time
                .map(|c| c.saturating_sub(used_cpu + runner_cpu())),
            wall_time: flow.budget.wall_time.map(|w| w.saturating_sub(started.elapsed())),
            memory: memory_left(flow.budget.memory),
        };
        let derivation = proof_witness::derive(
            &FlowState {
                accumulated: &accumulated,
                ..flow_state
            },
            &left,
            &root.join("witness"),
        );
        witness_cpu = derivation.cpu;
        derived = Some(match derivation.outcome {
            Ok(d) => {
                evidence = Some(Evidence::File(d.file));
                Ok(d.note)
            }
            Err(why) => Err(why),
        });
    }
    let witness = options
        .witness
        .as_ref()
        .map(|(path, format)| match (&evidence, &derived) {
            (Some(e), Some(Ok(note))) => match write_witness(original.ok(), e, path, *format) {
                Ok(_) => format!("correctness witness {} ({note})", path.display()),
                Err(why) => why,
            },
            (Some(e), _) => write_witness(original.ok(), e, path, *format).unwrap_or_else(|why| why),
            (None, Some(Err(why))) => {
                format!("none: no stage proved the original program by itself, and {why}")
            }
            (None, _) if verdict.is_definite() => {
                "none: the deciding stage left no witness of the whole program".into()
            }
            (None, _) => "none: no definite verdict".into(),
        });
    let cpu: f64 = rows.iter().map(|r| r.cpu_time_s).sum::<f64>() + runner_cpu_time.as_secs_f64();
    let skipped_stages = rows
        .iter()
        .filter(|r| r.status == "unsupported")
        .map(|r| r.name.clone())
        .collect();
    Ok(FlowReport {
        flow: flow.name.clone(),
        task: task.definition.display().to_string(),
        verdict: verdict.benchexec().to_string(),
        confirmed,
        expected: task.expected,
        cpu_time_s: cpu,
        runner_cpu_time_s: runner_cpu_time.as_secs_f64(),
        wall_time_s: started.elapsed().as_secs_f64(),
        deciding_stage: deciding,
        unsupported: original.err().map(str::to_string),
        skipped_stages,
        stages: rows,
        work_dir: options.keep_dir.as_ref().map(|_| root.clone()),
        assumptions: options.signed_overflow.assumption_keys(),
        signed_overflow: options.signed_overflow,
        witness,
        witness_cpu_time_s: witness_cpu.as_secs_f64(),
        verdict_value: verdict,
    })
}

/// The memory a stage may use: the flow's memory budget, but no more than this process may
/// still use besides what it holds (the accumulated condition, the residual program), since a
/// stage's processes and the runner share one limit set from outside (a cgroup, `ulimit -v`).
fn memory_left(budget: Option<u64>) -> Option<u64> {
    let held = crate::cpa::monitor::resident_memory().unwrap_or(0);
    let free = crate::cpa::budget::available_memory().map(|a| a.saturating_sub(held));
    match (budget, free) {
        (Some(b), Some(f)) => Some(b.min(f)),
        (b, f) => b.or(f),
    }
}

/// The report as text: one row per stage and the final verdict.
pub fn render_text(report: &FlowReport) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<16} {:<11} {:<9} {:<19} {:<19} {:>8} {:>8} {:>9} {:>8} {:>15}",
        "stage", "tool", "input", "status", "verdict", "cpu s", "wall s", "mem MB", "covered", "locations"
    );
    for s in &report.stages {
        let _ = writeln!(
            out,
            "{:<16} {:<11} {:<9} {:<19} {:<19} {:>8.2} {:>8.2} {:>9} {:>7.1}% {:>15}",
            match s.parallel_group {
                Some(g) => format!("|{g} {}", s.name),
                None => s.name.clone(),
            },
            s.tool,
            s.input,
            s.status,
            if s.confirmed == Some(false) {
                format!("{} [unconfirmed]", s.verdict)
            } else {
                s.verdict.clone()
            },
            s.cpu_time_s,
            s.wall_time_s,
            s.peak_memory
                .map_or("-".to_string(), |m| format!("{:.1}", m as f64 / 1e6)),
            100.0 * s.covered_share,
            format!("{}/{}", s.program_locations, s.original_locations),
        );
        if !s.note.is_empty() {
            let _ = writeln!(out, "  {}", s.note);
        }
    }
    if let Some(why) = &report.unsupported {
        let _ = writeln!(
            out,
            "Baton cannot lower the program ({why}); stages skipped: {}",
            if report.skipped_stages.is_empty() {
                "none".to_string()
            } else {
                report.skipped_stages.join(", ")
            }
        );
    }
    let _ = writeln!(
        out,
        "verdict: {}{} (decided by {}); cpu time {:.2} s (runner {:.2} s), wall time {:.2} s",
        report.verdict,
        if report.confirmed == Some(false) {
            " [unconfirmed]"
        } else {
            ""
        },
        report.deciding_stage.as_deref().unwrap_or("no stage"),
        report.cpu_time_s,
        report.runner_cpu_time_s,
        report.wall_time_s
    );
    let _ = writeln!(out, "assumed: {}", report.signed_overflow.assumption());
    if let Some(dir) = &report.work_dir {
        let _ = writeln!(out, "stage files: {}", dir.display());
    }
    if let Some(w) = &report.witness {
        let _ = writeln!(out, "witness: {w}");
    }
    out
}
