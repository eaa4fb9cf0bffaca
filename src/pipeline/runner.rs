//! Runs a flow: stages one after another under budgets, each handing on what it verified.
//!
//! Every external tool a flow names is looked up before anything runs. A stage's budget is
//! capped by what is left of the flow's (CPU time as measured). The first `true`/`false` ends
//! the flow; otherwise the stage's condition (about the original program) joins the
//! accumulated one ([`condition::union`]) and the next stage gets its input:
//! `reduce` → the residual C program of the accumulated condition, `identity` → the original,
//! `guide` → the original with the accumulated condition as guide (native analyses only).
//!
//! Soundness rules:
//! * A `false` is reported only after the counterexample's nondet values reach the error on
//!   Baton's interpreter running the ORIGINAL program (the residual program consumes nondet
//!   values in the original's order, so values found on a residual replay on the original).
//!   The replay uses the flow's semantics ([`RunOptions::signed_overflow`]) and ends at
//!   undefined behaviour: a tool's counterexample through signed overflow (CBMC and AFL++ wrap)
//!   is no `false` unless the flow runs with wrap-around.
//! * A `true` on a residual program means the whole program is verified: every execution the
//!   accumulated condition does not cover is an execution of the residual program.
//! * A condition computed on a residual program talks about the residual (another program
//!   hash); [`condition::map_back`] carries it back to the original through the reducer's
//!   provenance before it joins the accumulated condition, unless the next residual program
//!   would get larger (a path-sensitive condition can unroll the program).
//! * A stage killed by its budget (TIMEOUT, OUT OF MEMORY) or failing adds nothing.
//! * CBMC's "safe within bound K" on the original program adds the bounded condition of
//!   [`crate::adapters::bounded`]; on a residual program, the bounded condition of the
//!   residual CFA mapped back.
//! * AFL++ and KLEE only ever contribute bugs (after replay); their conditions are empty.
//!
//! Native stages run as a subprocess of Baton itself (`baton verify … --json`) so that the
//! hard CPU and memory limits of [`crate::exec`] apply; the soft `cpu-time` give-up is set to
//! 90 % of the stage's CPU budget so the analysis stops by itself and still writes its
//! condition before the hard limit.

use super::flow::{Budget, Flow, FlowError, Stage, StageInput, NATIVE_TOOLS};
use crate::adapters::{self, afl, bounded, cbmc, klee, AdapterError, CommandLine, Tool, ToolConfig};
use crate::analyses::replay_to_error;
use crate::cfa::emit_c::emit_c;
use crate::cfa::semantics::SignedOverflow;
use crate::cfa::types::DataModel;
use crate::cfa::Program;
use crate::condition::{self, ConditionAutomaton};
use crate::exec::{self, Limits, RunReport, RunStatus, ToolCommand, WorkDir};
use crate::frontend::load_program;
use crate::reducer;
use crate::task::Task;
use crate::verdict::Verdict;
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
}

/// One stage's row of the report.
#[derive(Debug, Clone, Serialize)]
pub struct StageReport {
    pub name: String,
    pub tool: String,
    /// `reduce`, `identity` or `guide`; `residual` when a reduced program was actually used.
    pub input: String,
    /// BenchExec status of the stage's (last) process, or `not run`.
    pub status: String,
    /// The stage's verdict after replay/mapping (BenchExec string).
    pub verdict: String,
    pub cpu_time_s: f64,
    pub wall_time_s: f64,
    /// Peak memory in bytes of the stage's processes (maximum), where measured.
    pub peak_memory: Option<u64>,
    /// Covered share of CFA edges of the accumulated condition after this stage.
    pub covered_share: f64,
    /// Locations of the program the stage ran on (the residual for reduced input).
    pub program_locations: usize,
    /// Locations of the original program.
    pub original_locations: usize,
    /// Why the verdict is what it is.
    pub note: String,
}

/// The result of a flow run.
#[derive(Debug, Clone, Serialize)]
pub struct FlowReport {
    pub flow: String,
    pub task: String,
    /// BenchExec verdict string.
    pub verdict: String,
    pub expected: Option<bool>,
    /// Sum of the stages' CPU time.
    pub cpu_time_s: f64,
    pub wall_time_s: f64,
    /// The stage that decided a definite verdict.
    pub deciding_stage: Option<String>,
    pub stages: Vec<StageReport>,
    /// Where the stages' files are (only when kept).
    pub work_dir: Option<PathBuf>,
    /// What the verdict assumes (stable keys, e.g. `no-undefined-behaviour`).
    pub assumptions: Vec<&'static str>,
    pub signed_overflow: SignedOverflow,
    #[serde(skip)]
    pub verdict_value: Verdict,
}

/// The adapter tools a flow may name (from `tool-adapters/`).
pub fn adapter_tools() -> Vec<String> {
    ["cbmc", "afl", "klee"].iter().map(|s| s.to_string()).collect()
}

fn adapter(tool: &str) -> Option<Tool> {
    match tool {
        "cbmc" => Some(Tool::Cbmc),
        "afl" => Some(Tool::Afl),
        "klee" => Some(Tool::Klee),
        _ => None,
    }
}

/// Loads and validates a flow file against the native analyses and the adapters.
pub fn load_flow(path: &Path) -> Result<Flow, RunError> {
    Ok(Flow::load(path, &adapter_tools())?)
}

fn looked_in() -> String {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("BATON_TOOLS_DIR") {
        dirs.push(format!("{}/bin", PathBuf::from(d).display()));
    }
    dirs.push(format!("{}/bin", adapters::DEFAULT_TOOLS_DIR));
    dirs.push("PATH".into());
    dirs.join(", ")
}

/// Checks that every executable of every external stage exists; the first missing one is an
/// error. Runs before any stage.
pub fn check_tools(flow: &Flow) -> Result<(), RunError> {
    for stage in &flow.stages {
        let Some(tool) = adapter(&stage.tool) else {
            continue;
        };
        let config = tool
            .builtin_config()
            .map_err(|e| RunError::Input(e.to_string()))?;
        // The tool's own executable (the version command's) first, then the helpers.
        let mut names: Vec<String> = config.version_command.first().cloned().into_iter().collect();
        names.extend(config.executables.values().cloned());
        for name in names {
            if adapters::find_executable(&name).is_none() {
                let hint = if tool == Tool::Klee {
                    "KLEE cannot be installed on this machine (see tool-adapters/README.md); remove the klee stage".to_string()
                } else {
                    "run scripts/install-tools.sh".to_string()
                };
                return Err(RunError::ToolMissing {
                    stage: stage.name.clone(),
                    tool: stage.tool.clone(),
                    executable: name,
                    looked: looked_in(),
                    hint,
                });
            }
        }
    }
    Ok(())
}

/// What one stage found, before it is combined with the flow's state.
struct StageResult {
    verdict: Verdict,
    /// New condition about the ORIGINAL program, if any.
    condition: Option<ConditionAutomaton>,
    status: String,
    cpu: Duration,
    wall: Duration,
    peak_memory: Option<u64>,
    note: String,
}

impl StageResult {
    fn new() -> StageResult {
        StageResult {
            verdict: Verdict::Unknown,
            condition: None,
            status: "not run".into(),
            cpu: Duration::ZERO,
            wall: Duration::ZERO,
            peak_memory: None,
            note: String::new(),
        }
    }

    /// Accounts one process run; its status becomes the stage's status.
    fn add(&mut self, report: &RunReport) {
        self.add_usage(report);
        self.status = report.status.benchexec_string();
    }

    /// Accounts the resources of a helper run (a crash replay) without taking its status.
    fn add_usage(&mut self, report: &RunReport) {
        self.cpu += report.cpu_time;
        self.wall += report.wall_time;
        self.peak_memory = match (self.peak_memory, report.peak_memory) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }
}

/// The program a stage runs on.
struct StageProgram {
    file: PathBuf,
    /// The residual program with its provenance when `file` was emitted from it (conditions
    /// on it are mapped back to the original).
    residual: Option<Box<reducer::Residual>>,
    locations: usize,
    /// The accumulated condition written for guide mode.
    guide: Option<PathBuf>,
}

/// Runs a flow on a task (a `.yml` task definition or a C file).
pub fn run_flow(
    flow: &Flow,
    task_path: &Path,
    data_model: Option<DataModel>,
    options: &RunOptions,
) -> Result<FlowReport, RunError> {
    check_tools(flow)?;
    let mut task =
        Task::load(task_path, data_model.unwrap_or_default()).map_err(|e| RunError::Input(e.to_string()))?;
    if let Some(m) = data_model {
        task.data_model = m;
    }
    let mut original =
        load_program(&task.program, task.data_model).map_err(|e| RunError::Input(e.to_string()))?;
    // Replays of every stage's counterexample run under the flow's semantics.
    original.signed_overflow = options.signed_overflow;
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
    let mut used_cpu = Duration::ZERO;
    let mut conditions: Vec<ConditionAutomaton> = Vec::new();
    let mut accumulated = ConditionAutomaton::nothing_verified(&original.hash);
    let mut rows = Vec::new();
    let mut verdict = Verdict::Unknown;
    let mut deciding = None;
    let model = task.data_model;

    for (index, stage) in flow.stages.iter().enumerate() {
        let remaining = Budget {
            cpu_time: flow.budget.cpu_time.map(|c| c.saturating_sub(used_cpu)),
            wall_time: flow.budget.wall_time.map(|w| w.saturating_sub(started.elapsed())),
            memory: flow.budget.memory,
        };
        let budget = stage.budget.capped_by(remaining);
        let dir = root.join(format!("{:02}-{}", index + 1, sanitize(&stage.name)));
        std::fs::create_dir_all(&dir)
            .map_err(|e| internal(&stage.name, format!("{}: {e}", dir.display())))?;
        let mut row = StageReport {
            name: stage.name.clone(),
            tool: stage.tool.clone(),
            input: input_name(stage.input).into(),
            status: "not run".into(),
            verdict: Verdict::Unknown.benchexec().into(),
            cpu_time_s: 0.0,
            wall_time_s: 0.0,
            peak_memory: None,
            covered_share: accumulated.summary(&original).covered_share(),
            program_locations: original.locations.len(),
            original_locations: original.locations.len(),
            note: String::new(),
        };
        if budget.cpu_time.is_some_and(|c| c.is_zero()) || budget.wall_time.is_some_and(|w| w.is_zero()) {
            row.note = "flow budget exhausted".into();
            rows.push(row);
            break;
        }
        // The stage's input program.
        let input = match prepare_input(stage, &original, &original_file, &accumulated, &dir) {
            Ok(Prepared::Program(p)) => p,
            Ok(Prepared::Verified(why)) => {
                row.note = why;
                row.verdict = Verdict::True.benchexec().into();
                verdict = Verdict::True;
                deciding = Some(format!("{} (reducer)", stage.name));
                rows.push(row);
                break;
            }
            Err(e) => return Err(internal(&stage.name, e)),
        };
        if input.residual.is_some() {
            row.input = "residual".into();
        }
        row.program_locations = input.locations;
        let result = if NATIVE_TOOLS.contains(&stage.tool.as_str()) {
            run_native(stage, &budget, &input, &original, model, &dir, options)
        } else {
            match adapter(&stage.tool) {
                Some(Tool::Cbmc) => run_cbmc(stage, &budget, &input, &original, model, &dir),
                Some(Tool::Afl) => run_afl(stage, &budget, &input, &original, model, &dir),
                Some(Tool::Klee) => run_klee(stage, &budget, &input, &original, model, &dir),
                None => Err(format!("unknown tool `{}`", stage.tool)),
            }
        }
        .map_err(|e| internal(&stage.name, e))?;
        used_cpu += result.cpu;
        row.status = result.status.clone();
        row.verdict = result.verdict.benchexec().into();
        row.cpu_time_s = result.cpu.as_secs_f64();
        row.wall_time_s = result.wall.as_secs_f64();
        row.peak_memory = result.peak_memory;
        row.note = result.note.clone();
        if result.verdict.is_definite() {
            verdict = result.verdict;
            deciding = Some(stage.name.clone());
            if verdict == Verdict::True {
                row.covered_share = 1.0;
            }
            rows.push(row);
            break;
        }
        if let Some(c) = result.condition {
            if !c.is_trivial_empty() {
                conditions.push(c);
                let united =
                    condition::union(&conditions).map_err(|e| internal(&stage.name, e.to_string()))?;
                // A condition mapped back from a residual is used only if the next residual
                // gets no larger than this one.
                if input
                    .residual
                    .as_ref()
                    .is_some_and(|r| !reducer::no_larger(&original, &united, r))
                {
                    conditions.pop();
                    row.note
                        .push_str("; mapped-back condition not used: it would enlarge the residual program");
                } else {
                    accumulated = united;
                }
            }
        }
        row.covered_share = accumulated.summary(&original).covered_share();
        rows.push(row);
    }
    let cpu: f64 = rows.iter().map(|r| r.cpu_time_s).sum();
    Ok(FlowReport {
        flow: flow.name.clone(),
        task: task.definition.display().to_string(),
        verdict: verdict.benchexec().to_string(),
        expected: task.expected,
        cpu_time_s: cpu,
        wall_time_s: started.elapsed().as_secs_f64(),
        deciding_stage: deciding,
        stages: rows,
        work_dir: options.keep_dir.as_ref().map(|_| root.clone()),
        assumptions: options.signed_overflow.assumption_keys(),
        signed_overflow: options.signed_overflow,
        verdict_value: verdict,
    })
}

fn input_name(input: StageInput) -> &'static str {
    match input {
        StageInput::Reduce => "reduce",
        StageInput::Identity => "identity",
        StageInput::Guide => "guide",
    }
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A residual program may have at most this many times the original's locations …
const RESIDUAL_GROWTH_LIMIT: usize = 50;
/// … or this many locations, whichever is more; otherwise the stage gets the original.
const RESIDUAL_MIN_LIMIT: usize = 20_000;

enum Prepared {
    Program(StageProgram),
    /// The accumulated condition already settles the task (`true`); the reason.
    Verified(String),
}

fn prepare_input(
    stage: &Stage,
    original: &Program,
    original_file: &Path,
    accumulated: &ConditionAutomaton,
    dir: &Path,
) -> Result<Prepared, String> {
    let plain = |guide: Option<PathBuf>| StageProgram {
        file: original_file.to_path_buf(),
        residual: None,
        locations: original.locations.len(),
        guide,
    };
    if accumulated.is_trivial_full() {
        return Ok(Prepared::Verified(
            "the accumulated condition covers every path".into(),
        ));
    }
    let nothing_yet = accumulated.is_trivial_empty();
    match stage.input {
        StageInput::Identity => Ok(Prepared::Program(plain(None))),
        StageInput::Guide if nothing_yet => Ok(Prepared::Program(plain(None))),
        StageInput::Guide => {
            let path = dir.join("condition-in.graphml");
            std::fs::write(
                &path,
                condition::write(accumulated, original, condition::Format::GraphMl),
            )
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
            Ok(Prepared::Program(plain(Some(path))))
        }
        // Nothing verified yet: the residual is the original program.
        StageInput::Reduce if nothing_yet => Ok(Prepared::Program(plain(None))),
        StageInput::Reduce => {
            // A condition from a long analysis can unroll the program enormously; past this
            // size a tool is better served by the original program (IDENTITY is a reducer too).
            let limit = (original.locations.len() * RESIDUAL_GROWTH_LIMIT).max(RESIDUAL_MIN_LIMIT);
            let residual = match reducer::reduce(original, accumulated, limit) {
                Ok(r) => r,
                Err(reducer::ReduceError::TooLarge { .. }) => return Ok(Prepared::Program(plain(None))),
                Err(e) => return Err(format!("reducer: {e}")),
            };
            if residual.error_unreachable() {
                return Ok(Prepared::Verified(
                    "the residual program of the accumulated condition cannot reach the error".into(),
                ));
            }
            let path = dir.join("residual.c");
            std::fs::write(&path, emit_c(&residual.program))
                .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
            Ok(Prepared::Program(StageProgram {
                file: path,
                locations: residual.program.locations.len(),
                residual: Some(Box::new(residual)),
                guide: None,
            }))
        }
    }
}

/// Limits of one process: what is left of the stage budget after `used` CPU time.
fn limits(budget: &Budget, used: Duration) -> Limits {
    let cpu = budget
        .cpu_time
        .map(|c| c.saturating_sub(used).max(Duration::from_millis(100)));
    Limits {
        cpu_time: cpu,
        // Without a wall limit a tool that sleeps could hang the flow: allow twice the CPU time.
        wall_time: budget.wall_time.or(cpu.map(|c| c * 2 + Duration::from_secs(10))),
        memory: budget.memory,
        ..Limits::default()
    }
}

fn killed(status: &RunStatus) -> bool {
    matches!(status, RunStatus::Timeout | RunStatus::OutOfMemory)
}

/// Replays nondet values on the original program; the verdict and a note.
fn confirm(original: &Program, values: &[i128], source: &str) -> (Verdict, String) {
    match replay_to_error(original, values) {
        Some(ending) => (
            Verdict::False,
            format!(
                "{source}; replay of {} values on the original program: {ending}",
                values.len()
            ),
        ),
        None => (
            Verdict::Unknown,
            format!(
                "{source}, but the replay of {} values on the original program does not reach the error",
                values.len()
            ),
        ),
    }
}

fn to_tool_command(cmd: &CommandLine, workdir: &Path) -> Result<ToolCommand, String> {
    let mut argv = vec![cmd.program.clone().into_os_string()];
    argv.extend(cmd.args.iter().cloned());
    let stdin = match &cmd.stdin {
        Some(path) => Some(std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?),
        None => None,
    };
    Ok(ToolCommand {
        argv,
        env: cmd.env.clone(),
        stdin,
        workdir: WorkDir::Keep(workdir.to_path_buf()),
    })
}

fn run_step(cmd: &CommandLine, limits: &Limits, workdir: &Path) -> Result<RunReport, String> {
    let tool = to_tool_command(cmd, workdir)?;
    exec::run(&tool, limits).map_err(|e| format!("{}: {e}", cmd.program.display()))
}

fn run_native(
    stage: &Stage,
    budget: &Budget,
    input: &StageProgram,
    original: &Program,
    model: DataModel,
    dir: &Path,
    options: &RunOptions,
) -> Result<StageResult, String> {
    let condition_out = dir.join("condition.graphml");
    let mut argv: Vec<std::ffi::OsString> = vec![
        options.baton.clone().into_os_string(),
        "verify".into(),
        input.file.clone().into_os_string(),
        "--data-model".into(),
        model.to_string().into(),
        "--analysis".into(),
        stage.tool.clone().into(),
        "--signed-overflow".into(),
        options.signed_overflow.to_string().into(),
    ];
    if let Some(cpu) = budget.cpu_time {
        argv.push("--give-up".into());
        argv.push(format!("cpu-time={}s", (cpu.as_secs_f64() * 0.9).max(0.05)).into());
    }
    for g in &stage.give_up {
        argv.push("--give-up".into());
        argv.push(g.to_string().into());
    }
    if let Some(guide) = &input.guide {
        argv.push("--condition-in".into());
        argv.push(guide.clone().into_os_string());
    }
    argv.push("--condition-out".into());
    argv.push(condition_out.clone().into_os_string());
    argv.push("--json".into());
    let cmd = ToolCommand {
        argv,
        env: Vec::new(),
        stdin: None,
        workdir: WorkDir::Keep(dir.join("run")),
    };
    let report =
        exec::run(&cmd, &limits(budget, Duration::ZERO)).map_err(|e| format!("baton verify: {e}"))?;
    let mut result = StageResult::new();
    result.add(&report);
    if killed(&report.status) {
        result.note = "killed by the stage budget; nothing new covered".into();
        return Ok(result);
    }
    if report.status != RunStatus::Done {
        let err = report.stderr_text().map_err(|e| e.to_string())?;
        result.note = format!("baton verify failed: {}", err.lines().next().unwrap_or("").trim());
        return Ok(result);
    }
    let json: serde_json::Value = serde_json::from_str(&report.stdout_text().map_err(|e| e.to_string())?)
        .map_err(|e| format!("baton verify printed no JSON result: {e}"))?;
    let stage_verdict = json.get("verdict").and_then(|v| v.as_str()).unwrap_or("unknown");
    let reason = json
        .get("reason")
        .and_then(|v| v.as_str())
        .unwrap_or("")
        .to_string();
    match crate::bench::report::parse_verdict(stage_verdict) {
        Verdict::True => {
            result.verdict = Verdict::True;
            result.note = if input.residual.is_some() {
                "the residual program is verified, hence the whole program".into()
            } else {
                reason
            };
        }
        Verdict::False => {
            let values: Vec<i128> = json
                .pointer("/counterexample/inputs")
                .and_then(|v| v.as_array())
                .map(|a| a.iter().filter_map(|x| x.as_str()?.parse().ok()).collect())
                .unwrap_or_default();
            let (v, note) = confirm(original, &values, "counterexample");
            result.verdict = v;
            result.note = note;
        }
        Verdict::Unknown => {
            result.note = reason;
            let loaded = match &input.residual {
                Some(r) => condition::map_back::map_back_file(original, r, &input.file, &condition_out)
                    .map_err(|e| e.to_string()),
                None => condition::load(&condition_out, original).map_err(|e| e.to_string()),
            };
            match loaded {
                Ok(c) => result.condition = Some(c),
                Err(e) => result.note.push_str(&format!("; condition not used: {e}")),
            }
        }
    }
    Ok(result)
}

fn config(tool: Tool) -> Result<ToolConfig, String> {
    tool.builtin_config().map_err(|e: AdapterError| e.to_string())
}

fn run_cbmc(
    stage: &Stage,
    budget: &Budget,
    input: &StageProgram,
    original: &Program,
    model: DataModel,
    dir: &Path,
) -> Result<StageResult, String> {
    let config = config(Tool::Cbmc)?;
    let tools = cbmc::CbmcTools::locate(&config)
        .map_err(|e| e.to_string())?
        .ok_or("cbmc not found")?;
    let unwind: u32 = match stage.options.get("unwind") {
        Some(u) => u
            .parse()
            .map_err(|_| format!("option unwind `{u}` is not a number"))?,
        None => 1,
    };
    let p = cbmc::pipeline(&tools, &input.file, dir, model, unwind);
    let mut result = StageResult::new();
    let steps = [
        ("goto-cc", &p.compile),
        ("goto-instrument", &p.instrument),
        ("goto-instrument", &p.instrument_nondet),
    ];
    for (i, (name, cmd)) in steps.iter().enumerate() {
        let report = run_step(
            cmd,
            &limits(budget, result.cpu),
            &dir.join(format!("step{}", i + 1)),
        )?;
        result.add(&report);
        if killed(&report.status) {
            result.note = format!("{name} killed by the stage budget");
            return Ok(result);
        }
        let out = report.stdout_text().map_err(|e| e.to_string())?;
        let err = report.stderr_text().map_err(|e| e.to_string())?;
        if let Some(cbmc::CbmcOutcome::Error(e)) = cbmc::step_failure(name, report.exit_code, &out, &err) {
            result.note = e;
            return Ok(result);
        }
    }
    let report = run_step(&p.verify, &limits(budget, result.cpu), &dir.join("step4"))?;
    result.add(&report);
    if killed(&report.status) {
        result.note = "cbmc killed by the stage budget; nothing new covered".into();
        return Ok(result);
    }
    let out = report.stdout_text().map_err(|e| e.to_string())?;
    match cbmc::parse_output(&out, report.exit_code, unwind) {
        cbmc::CbmcOutcome::Violation {
            nondet_values,
            property,
        } => {
            let (v, note) = confirm(original, &nondet_values, &format!("cbmc: {property} fails"));
            result.verdict = v;
            result.note = note;
        }
        cbmc::CbmcOutcome::Safe => {
            result.verdict = Verdict::True;
            result.note = format!("cbmc: safe, all loops fully unwound (unwind {unwind})");
        }
        cbmc::CbmcOutcome::SafeWithinBound { unwind } => {
            let c = match &input.residual {
                Some(r) => condition::map_back::map_back_residual(
                    original,
                    r,
                    &bounded::bounded_condition(&r.program, unwind, bounded::DEFAULT_MAX_STATES),
                ),
                None => Ok(bounded::bounded_condition(
                    original,
                    unwind,
                    bounded::DEFAULT_MAX_STATES,
                )),
            };
            result.note = match &c {
                Err(e) => format!("cbmc: safe within unwind {unwind}; bounded condition not used: {e}"),
                Ok(c) if c.is_trivial_empty() => {
                    format!("cbmc: safe within unwind {unwind}; no bounded condition for this program")
                }
                Ok(_) => format!(
                    "cbmc: safe within unwind {unwind}; paths with at most {} loop-head visits verified",
                    unwind.saturating_sub(1)
                ),
            };
            result.condition = c.ok();
        }
        cbmc::CbmcOutcome::Error(e) => result.note = e,
    }
    Ok(result)
}

fn run_afl(
    _stage: &Stage,
    budget: &Budget,
    input: &StageProgram,
    original: &Program,
    model: DataModel,
    dir: &Path,
) -> Result<StageResult, String> {
    let config = config(Tool::Afl)?;
    let tools = afl::AflTools::locate(&config)
        .map_err(|e| e.to_string())?
        .ok_or("afl-clang-fast/afl-fuzz not found")?;
    let harness = dir.join("afl-harness.c");
    std::fs::write(&harness, afl::HARNESS_C).map_err(|e| format!("{}: {e}", harness.display()))?;
    let binary = dir.join("prog-afl");
    let mut result = StageResult::new();
    let build = afl::build_command(&tools, &harness, &input.file, &binary, model);
    let report = run_step(&build, &limits(budget, Duration::ZERO), &dir.join("build"))?;
    result.add(&report);
    if report.status != RunStatus::Done {
        let err = report.stderr_text().map_err(|e| e.to_string())?;
        result.note = format!("afl build failed: {}", err.lines().next().unwrap_or("").trim());
        return Ok(result);
    }
    let default_s = config.default_u64("time_limit_s").unwrap_or(60);
    let seconds = budget
        .cpu_time
        .map(|c| c.saturating_sub(result.cpu).as_secs())
        .unwrap_or(default_s)
        .max(1);
    let in_dir = dir.join("afl-in");
    let out_dir = dir.join("afl-out");
    std::fs::create_dir_all(&in_dir).map_err(|e| format!("{}: {e}", in_dir.display()))?;
    std::fs::write(in_dir.join("seed"), afl::seed_input())
        .map_err(|e| format!("{}: {e}", in_dir.display()))?;
    let fuzz = afl::fuzz_command(&tools, &config, &in_dir, &out_dir, &binary, seconds);
    let mut fuzz_limits = limits(budget, result.cpu);
    fuzz_limits.wall_time = Some(Duration::from_secs(seconds + 10));
    let report = run_step(&fuzz, &fuzz_limits, &dir.join("fuzz"))?;
    result.add(&report);
    let crashes = afl::crash_inputs(&out_dir).map_err(|e| e.to_string())?;
    if crashes.is_empty() {
        result.note = format!("afl: no crash in {seconds} s");
        return Ok(result);
    }
    let mut notes = Vec::new();
    for (i, crash) in crashes.iter().take(10).enumerate() {
        let log = dir.join(format!("crash{i}.log"));
        let replay = afl::replay_command(&binary, crash, &log);
        let replay_limits = Limits {
            cpu_time: Some(Duration::from_secs(10)),
            wall_time: Some(Duration::from_secs(20)),
            ..Limits::default()
        };
        let report = run_step(&replay, &replay_limits, &dir.join(format!("replay{i}")))?;
        result.add_usage(&report);
        let Ok(text) = std::fs::read_to_string(&log) else {
            notes.push(format!("crash {i}: no value log"));
            continue;
        };
        let decoded = match afl::decode_nondet_log(&text, model, &log.display().to_string()) {
            Ok(d) => d,
            Err(e) => {
                notes.push(e.to_string());
                continue;
            }
        };
        if decoded.error_function.is_none() {
            notes.push(format!("crash {i} does not enter the error function"));
            continue;
        }
        let (v, note) = confirm(original, &decoded.values(), "afl crash");
        if v == Verdict::False {
            result.verdict = v;
            result.note = note;
            return Ok(result);
        }
        notes.push(note);
    }
    result.note = notes.join("; ");
    Ok(result)
}

fn run_klee(
    _stage: &Stage,
    budget: &Budget,
    input: &StageProgram,
    original: &Program,
    model: DataModel,
    dir: &Path,
) -> Result<StageResult, String> {
    let config = config(Tool::Klee)?;
    let tools = klee::KleeTools::locate(&config)
        .map_err(|e| e.to_string())?
        .ok_or("klee not found")?;
    let harness = dir.join("klee-harness.c");
    std::fs::write(&harness, klee::HARNESS_C).map_err(|e| format!("{}: {e}", harness.display()))?;
    let out_dir = dir.join("klee-out");
    let max_time = budget
        .cpu_time
        .map(|c| (c.as_secs_f64() * 0.9) as u64)
        .unwrap_or_else(|| config.default_u64("max_time_s").unwrap_or(60))
        .max(1);
    let p = klee::pipeline(&tools, &harness, &input.file, dir, &out_dir, model, max_time);
    let mut result = StageResult::new();
    for (i, cmd) in [&p.compile_harness, &p.compile_program, &p.link, &p.run]
        .iter()
        .enumerate()
    {
        let report = run_step(
            cmd,
            &limits(budget, result.cpu),
            &dir.join(format!("step{}", i + 1)),
        )?;
        result.add(&report);
        if killed(&report.status) {
            result.note = "klee killed by the stage budget".into();
            return Ok(result);
        }
        if i < 3 && report.status != RunStatus::Done {
            let err = report.stderr_text().map_err(|e| e.to_string())?;
            result.note = format!(
                "klee build step {} failed: {}",
                i + 1,
                err.lines().next().unwrap_or("").trim()
            );
            return Ok(result);
        }
    }
    match klee::read_output_dir(&out_dir, model).map_err(|e| e.to_string())? {
        klee::KleeOutcome::Violation {
            nondet_values,
            test_id,
        } => {
            let (v, note) = confirm(original, &nondet_values, &format!("klee test {test_id}"));
            result.verdict = v;
            result.note = note;
        }
        klee::KleeOutcome::Safe => {
            result.verdict = Verdict::True;
            result.note = "klee explored every path".into();
        }
        klee::KleeOutcome::Unknown(why) => result.note = why,
    }
    Ok(result)
}

/// The report as text: one row per stage and the final verdict.
pub fn render_text(report: &FlowReport) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<16} {:<9} {:<9} {:<14} {:<8} {:>8} {:>8} {:>9} {:>8} {:>15}",
        "stage", "tool", "input", "status", "verdict", "cpu s", "wall s", "mem MB", "covered", "locations"
    );
    for s in &report.stages {
        let _ = writeln!(
            out,
            "{:<16} {:<9} {:<9} {:<14} {:<8} {:>8.2} {:>8.2} {:>9} {:>7.1}% {:>15}",
            s.name,
            s.tool,
            s.input,
            s.status,
            s.verdict,
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
    let _ = writeln!(
        out,
        "verdict: {} (decided by {}); cpu time {:.2} s, wall time {:.2} s",
        report.verdict,
        report.deciding_stage.as_deref().unwrap_or("no stage"),
        report.cpu_time_s,
        report.wall_time_s
    );
    let _ = writeln!(out, "assumed: {}", report.signed_overflow.assumption());
    if let Some(dir) = &report.work_dir {
        let _ = writeln!(out, "stage files: {}", dir.display());
    }
    out
}
