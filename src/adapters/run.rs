//! Running one adapter on one program: the steps (processes) under the stage's limits, and the
//! generic procedure every declarative adapter uses (argv template → run → result rules →
//! witness / condition). Extractors (`extract.rs`) run their own steps with the same [`Steps`].

use super::spec::{self, Adapter, ArgItem, RuleVerdict};
use super::{extract, prepare, witness, CommandLine};
use crate::cfa::types::DataModel;
use crate::cfa::Program;
use crate::condition::ConditionAutomaton;
use crate::exec::{self, ExecError, Limits, RunReport, RunStatus, ToolCommand, WorkDir};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The environment variable that marks every process of a stage that may be stopped from
/// outside (a member of a parallel group): its value identifies the stage.
pub const STAGE_MARK_ENV: &str = "BATON_STAGE_MARK";

/// The text of `unreach-call.prp`, the SV-COMP reachability property.
pub const UNREACH_CALL_PRP: &str = "CHECK( init(main()), LTL(G ! call(reach_error())) )\n";

/// A request to stop a stage from outside: a flag checked before each step, and a mark set in
/// each step's environment so that running processes can be found and killed.
#[derive(Debug, Clone)]
pub struct StopSignal {
    flag: Arc<AtomicBool>,
    /// The value of [`STAGE_MARK_ENV`] in the stage's processes.
    pub mark: String,
}

impl StopSignal {
    /// A fresh signal with a mark unique to this process and `name`.
    pub fn new(name: &str) -> StopSignal {
        StopSignal {
            flag: Arc::new(AtomicBool::new(false)),
            mark: format!("{}-{name}", std::process::id()),
        }
    }

    /// Asks the stage to stop (its next step does not start).
    pub fn raise(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }

    /// Whether a stop was asked for.
    pub fn raised(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }
}

/// Why a step did not give a report.
#[derive(Debug)]
pub enum StepError {
    /// The stage was stopped from outside before the step started.
    Stopped,
    /// Baton could not do its part (write a file, start the tool).
    Failed(String),
}

impl From<ExecError> for StepError {
    fn from(e: ExecError) -> StepError {
        StepError::Failed(e.to_string())
    }
}

impl From<String> for StepError {
    fn from(s: String) -> StepError {
        StepError::Failed(s)
    }
}

/// The processes of one stage: limits (what is left of the stage budget for each step),
/// accounted resources, and the stop signal.
#[derive(Debug)]
pub struct Steps {
    budget: Limits,
    stop: Option<StopSignal>,
    /// CPU time used so far.
    pub cpu: Duration,
    /// Wall time used so far.
    pub wall: Duration,
    /// Peak memory of any step.
    pub peak_memory: Option<u64>,
    /// The last main step's status (BenchExec text), `not run` before.
    pub status: String,
}

impl Steps {
    /// Steps under the stage's limits (`cpu_time`, `wall_time`, `memory` of the whole stage).
    pub fn new(budget: Limits, stop: Option<StopSignal>) -> Steps {
        Steps {
            budget,
            stop,
            cpu: Duration::ZERO,
            wall: Duration::ZERO,
            peak_memory: None,
            status: "not run".into(),
        }
    }

    /// The stage's CPU budget, if any.
    pub fn cpu_budget(&self) -> Option<Duration> {
        self.budget.cpu_time
    }

    /// The stage's memory limit in bytes, if any.
    pub fn memory_budget(&self) -> Option<u64> {
        self.budget.memory
    }

    /// Limits of the next process: what is left of the stage budget.
    pub fn limits(&self) -> Limits {
        let cpu = self
            .budget
            .cpu_time
            .map(|c| c.saturating_sub(self.cpu).max(Duration::from_millis(100)));
        Limits {
            cpu_time: cpu,
            // Without a wall limit a tool that sleeps could hang the flow: twice the CPU time.
            wall_time: self
                .budget
                .wall_time
                .map(|w| w.saturating_sub(self.wall).max(Duration::from_millis(100)))
                .or(cpu.map(|c| c * 2 + Duration::from_secs(10))),
            memory: self.budget.memory,
            ..Limits::default()
        }
    }

    /// Runs a main step: its status becomes the stage's.
    pub fn run(&mut self, cmd: &CommandLine, workdir: &Path) -> Result<RunReport, StepError> {
        let limits = self.limits();
        self.run_with(cmd, workdir, &limits, true)
    }

    /// Runs a helper step (e.g. a crash replay) under its own limits; only its resources count.
    pub fn run_helper(
        &mut self,
        cmd: &CommandLine,
        workdir: &Path,
        limits: &Limits,
    ) -> Result<RunReport, StepError> {
        self.run_with(cmd, workdir, limits, false)
    }

    fn run_with(
        &mut self,
        cmd: &CommandLine,
        workdir: &Path,
        limits: &Limits,
        main: bool,
    ) -> Result<RunReport, StepError> {
        if self.stop.as_ref().is_some_and(StopSignal::raised) {
            return Err(StepError::Stopped);
        }
        let mut env = cmd.env.clone();
        if let Some(stop) = &self.stop {
            env.push((STAGE_MARK_ENV.into(), stop.mark.clone().into()));
        }
        let stdin = match &cmd.stdin {
            Some(path) => Some(std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?),
            None => None,
        };
        let mut argv = vec![cmd.program.clone().into_os_string()];
        argv.extend(cmd.args.iter().cloned());
        let tool = ToolCommand {
            argv,
            env,
            stdin,
            workdir: WorkDir::Keep(workdir.to_path_buf()),
        };
        let report = exec::run(&tool, limits).map_err(|e| format!("{}: {e}", cmd.program.display()))?;
        self.cpu += report.cpu_time;
        self.wall += report.wall_time;
        self.peak_memory = match (self.peak_memory, report.peak_memory) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        if main {
            self.status = report.status.benchexec_string();
        }
        if self.stop.as_ref().is_some_and(StopSignal::raised) {
            self.status = "STOPPED".into();
            return Err(StepError::Stopped);
        }
        Ok(report)
    }
}

/// Whether a run was ended by a limit.
pub fn killed(status: &RunStatus) -> bool {
    matches!(status, RunStatus::Timeout | RunStatus::OutOfMemory)
}

/// A run's output as the result rules see it: stdout, then stderr.
pub fn output_text(report: &RunReport) -> Result<String, ExecError> {
    let mut text = report.stdout_text()?;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&report.stderr_text()?);
    Ok(text)
}

/// The first non-empty line of a text, trimmed (for notes).
pub fn first_line(text: &str) -> &str {
    text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("")
}

/// What one stage found, in terms of the program it ran on.
#[derive(Debug, Clone)]
pub enum Finding {
    /// Nothing usable.
    Nothing,
    /// The error is unreachable in the program.
    Proof,
    /// The error is reachable; candidate paths as nondet values, where the tool gave them.
    Bug {
        /// Each candidate's `__VERIFIER_nondet_*` return values in call order (none: unknown).
        candidates: Vec<Vec<i128>>,
        /// Where the claim comes from (for notes).
        source: String,
        /// The tool's violation witness, validated by Baton where no candidate replays.
        witness: Option<PathBuf>,
    },
    /// What the tool verified, about the program it ran on.
    Condition(ConditionAutomaton),
    /// A file holding what the tool verified, about the program it ran on, in a format
    /// [`crate::condition::load`] reads (loaded only where it is used).
    ConditionFile(PathBuf),
}

/// A stage's outcome: what the tool said (BenchExec status), what it found, why.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The tool's result as BenchExec names it (`true`, `false(unreach-call)`, `unknown`,
    /// `ERROR (…)`, `TIMEOUT`, …).
    pub status: String,
    /// What it contributes.
    pub finding: Finding,
    /// Why.
    pub note: String,
}

impl Outcome {
    /// An outcome with a status and a note and nothing found.
    pub fn nothing(status: impl Into<String>, note: impl Into<String>) -> Outcome {
        Outcome {
            status: status.into(),
            finding: Finding::Nothing,
            note: note.into(),
        }
    }

    /// A proof: the stage verified the whole program it ran on.
    pub fn proof(note: impl Into<String>) -> Outcome {
        Outcome {
            status: "true".into(),
            finding: Finding::Proof,
            note: note.into(),
        }
    }

    /// A bug: candidate nondet values (replayed before anything is reported) and their source.
    pub fn bug(candidates: Vec<Vec<i128>>, source: impl Into<String>, note: impl Into<String>) -> Outcome {
        Outcome {
            status: "false(unreach-call)".into(),
            finding: Finding::Bug {
                candidates,
                source: source.into(),
                witness: None,
            },
            note: note.into(),
        }
    }
}

/// Everything an adapter needs to run one stage.
#[derive(Debug, Clone, Copy)]
pub struct StageTask<'a> {
    /// The C file the tool runs on (original or residual).
    pub program: &'a Path,
    /// Baton's CFA of that file, where Baton can lower it (extractors build conditions on it).
    pub cfa: Option<&'a Program>,
    /// The data model.
    pub model: DataModel,
    /// The stage's own directory.
    pub dir: &'a Path,
    /// The stage's options, checked, defaults filled in.
    pub options: &'a BTreeMap<String, String>,
}

/// Runs an adapter on a task: its extractor's procedure, or the generic declarative one.
pub fn run_adapter(adapter: &Adapter, task: &StageTask<'_>, steps: &mut Steps) -> Result<Outcome, StepError> {
    let exes = adapter
        .executables()
        .map_err(|(role, names)| format!("{} not found ({role})", names))?;
    match adapter.spec.contributes.as_str() {
        "nothing" | "replay-bug" => run_declared(adapter, &exes, task, steps),
        name => extract::run(name, adapter, &exes, task, steps),
    }
}

/// The argv of the adapter's command template for `task`.
pub fn render_command(
    adapter: &Adapter,
    exes: &BTreeMap<String, PathBuf>,
    values: &dyn Fn(&str) -> Option<String>,
    options: &BTreeMap<String, String>,
) -> Result<CommandLine, String> {
    let lookup = |name: &str| -> Option<String> {
        if let Some(o) = name.strip_prefix("options.") {
            return options.get(o).cloned();
        }
        exes.get(name)
            .map(|p| p.display().to_string())
            .or_else(|| values(name))
    };
    let mut argv: Vec<String> = Vec::new();
    for item in &adapter.spec.command {
        match item {
            ArgItem::Plain(s) => argv.push(spec::substitute(s, &lookup)?),
            ArgItem::When { when, args } => {
                if options.get(when).is_some_and(|v| v != "false") {
                    for a in args {
                        argv.push(spec::substitute(a, &lookup)?);
                    }
                }
            }
        }
    }
    let (program, args) = argv.split_first().ok_or("the command is empty")?;
    let mut cmd = CommandLine::new(program);
    cmd.args = args.iter().map(Into::into).collect();
    for (k, v) in &adapter.spec.env {
        cmd.env.push((k.into(), spec::substitute(v, &lookup)?.into()));
    }
    Ok(cmd)
}

/// The generic procedure: prepare the program, run the command, apply the result rules, read the
/// witness (`replay-bug`) or condition.
fn run_declared(
    adapter: &Adapter,
    exes: &BTreeMap<String, PathBuf>,
    task: &StageTask<'_>,
    steps: &mut Steps,
) -> Result<Outcome, StepError> {
    let workdir = task.dir.join("run");
    std::fs::create_dir_all(&workdir).map_err(|e| format!("{}: {e}", workdir.display()))?;
    let program = match &adapter.spec.prepare {
        Some(name) => prepare::apply(name, task.program, task.dir)?,
        None => task.program.to_path_buf(),
    };
    let property = task.dir.join("unreach-call.prp");
    std::fs::write(&property, UNREACH_CALL_PRP).map_err(|e| format!("{}: {e}", property.display()))?;
    let witness_path = workdir.join("witness.graphml");
    let bits = if task.model == DataModel::LP64 { "64" } else { "32" };
    let cpu_s = steps
        .cpu_budget()
        .map(|c| c.as_secs().max(1).to_string())
        .unwrap_or_else(|| "900".into());
    let values = |name: &str| -> Option<String> {
        Some(match name {
            "program" => program.display().to_string(),
            "property" => property.display().to_string(),
            "data_model" => task.model.to_string(),
            "bits" => bits.to_string(),
            "workdir" => workdir.display().to_string(),
            "witness" => witness_path.display().to_string(),
            "cpu_time_s" => cpu_s.clone(),
            _ => return None,
        })
    };
    let cmd = render_command(adapter, exes, &values, task.options)?;
    let report = steps.run(&cmd, &workdir)?;
    let mut outcome = interpret(adapter, &report);
    match (&outcome.finding, adapter.spec.contributes.as_str()) {
        (Finding::Bug { .. }, "replay-bug") => {
            let file = match &adapter.spec.witness {
                Some(globs) => globs
                    .find_in(&workdir)
                    .ok_or_else(|| format!("no file {globs} in {}", workdir.display())),
                None => Err("the adapter names no witness".into()),
            };
            match file {
                Ok(file) => {
                    let candidates = match witness::nondet_values_in(&file) {
                        Ok(values) => vec![values],
                        Err(why) => {
                            outcome.note.push_str(&format!("; no inputs to replay: {why}"));
                            Vec::new()
                        }
                    };
                    outcome.finding = Finding::Bug {
                        candidates,
                        source: format!("{}: violation witness {}", adapter.name(), file.display()),
                        witness: Some(file),
                    };
                }
                Err(why) => outcome.note.push_str(&format!("; no inputs to replay: {why}")),
            }
        }
        (Finding::Nothing, _) if outcome.status == "unknown" => {
            if let Some(glob) = &adapter.spec.condition {
                match find_file(&workdir, glob) {
                    Some(file) => outcome.finding = Finding::ConditionFile(file),
                    None => outcome.note.push_str("; no condition written"),
                }
            }
        }
        _ => {}
    }
    Ok(outcome)
}

/// The first file below `dir` matching `pattern` (a glob relative to `dir`).
pub fn find_file(dir: &Path, pattern: &str) -> Option<PathBuf> {
    let full = dir.join(pattern);
    glob::glob(&full.to_string_lossy())
        .ok()?
        .filter_map(Result::ok)
        .find(|p| p.is_file())
}

/// Reads a finished run with the adapter's result rules (after BenchExec's order: a broken limit
/// or a signal first, then the rules; no matching rule is `ERROR (invalid output)`).
pub fn interpret(adapter: &Adapter, report: &RunReport) -> Outcome {
    let name = adapter.name();
    if killed(&report.status) {
        return Outcome::nothing(
            report.status.benchexec_string(),
            format!("{name} stopped by the stage budget; nothing new covered"),
        );
    }
    if let Some(sig) = report.signal {
        return Outcome::nothing(
            format!("KILLED BY SIGNAL {sig}"),
            format!("{name} was killed by signal {sig}"),
        );
    }
    let output = match output_text(report) {
        Ok(output) => output,
        Err(e) => return Outcome::nothing("ERROR (output unreadable)", format!("{name}: {e}")),
    };
    let Some(rule) = spec::first_match(&adapter.rules, report.exit_code, &output) else {
        return Outcome::nothing(
            "ERROR (invalid output)",
            format!(
                "{name}: no result rule matches (exit code {}; output starts {:?})",
                report.exit_code.map_or("none".into(), |c| c.to_string()),
                first_line(&output).chars().take(120).collect::<String>()
            ),
        );
    };
    let why = |default: &str| {
        format!(
            "{name}: {} (result rule {})",
            rule.note.as_deref().unwrap_or(default),
            rule.index
        )
    };
    match rule.verdict {
        RuleVerdict::True => Outcome::proof(why("the error is unreachable")),
        RuleVerdict::False => Outcome::bug(Vec::new(), name, why("the error is reachable")),
        RuleVerdict::Unknown => Outcome::nothing("unknown", why("no verdict")),
        RuleVerdict::Error => Outcome::nothing(
            format!(
                "ERROR ({})",
                report.exit_code.map_or("error".into(), |c| c.to_string())
            ),
            why("the tool failed"),
        ),
    }
}
