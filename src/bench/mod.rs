//! Batch mode: many tasks × run definitions in parallel, reported like BenchExec.
//!
//! Every run is a subprocess of the Baton binary itself, started through [`crate::exec::run`]
//! under hard limits (CPU time, memory, wall time = 2 × CPU + 10 s), so a run that crashes, loops
//! or allocates without end cannot harm the others. A run definition is the argv after `baton`
//! (e.g. `verify --analysis explicit --give-up cpu-time=10s`); the task path and `--json` are
//! appended, and the verdict is read from the JSON object the subcommand prints (`"verdict"`,
//! `"cpu_time_s"`, `"reason"`). A run killed by a limit has the BenchExec status `TIMEOUT` or
//! `OUT OF MEMORY` and verdict unknown.
//!
//! Results are written into the output directory as runs finish (`results.jsonl`, one result
//! XML per run definition, `results.csv`, `logs/`, and at the end BenchExec's
//! `<name>.logfiles.zip` of the logs, see [`logzip`]); a rerun with the same output directory skips
//! the runs already recorded with the same arguments and limits (resume). A `results.jsonl`
//! record and its newline are one `write`; a line cut short by a kill is skipped with a warning
//! and its run performed again.
//!
//! SIGINT, SIGTERM or SIGHUP (once) stop the benchmark: no new run starts, the runs under way
//! end at once (their process trees killed) and are not recorded, so a rerun performs them;
//! the recorded results stay, and Baton exits with 128 + the signal.

pub mod definition;
pub mod inputs;
pub mod logzip;
pub mod plots;
pub mod report;
pub mod runner;
pub mod sequences;
pub mod table;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;

pub use definition::load_benchmark_xml;
pub use inputs::{parse_run_definition, tasks_from_manifest, tasks_from_set};
pub use report::{Category, RunResult};
pub use runner::{run_benchmark, BenchOptions, BenchOutcome};
pub use sequences::{load_sequences, Sequence};
pub use table::{keep_common_tasks, load_results, render_html, render_text, scatter_pairs};

/// Why a benchmark cannot be run or a result cannot be read or written.
#[derive(Debug, Error)]
pub enum BenchError {
    /// A file could not be read or written.
    #[error("{file}: {what}: {source}")]
    Io {
        file: String,
        what: &'static str,
        source: std::io::Error,
    },
    /// An input file is malformed at a line.
    #[error("{file}:{line}: {message}")]
    Malformed {
        file: String,
        line: usize,
        message: String,
    },
    /// An input is unusable for another reason.
    #[error("{0}")]
    Invalid(String),
}

impl BenchError {
    pub(crate) fn io(file: impl Into<PathBuf>, what: &'static str, source: std::io::Error) -> Self {
        BenchError::Io {
            file: file.into().display().to_string(),
            what,
            source,
        }
    }
}

/// A named configuration: the arguments after `baton` (the task path is appended). From a
/// benchmark definition it is BenchExec's run set: a `<rundefinition>` with its tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunDefinition {
    /// Name used in result files and tables (unique within a benchmark).
    pub name: String,
    /// Baton subcommand and its options, e.g. `["verify", "--analysis", "explicit"]`.
    pub args: Vec<String>,
    /// Task definitions (canonical paths) this run definition runs on.
    pub tasks: Vec<PathBuf>,
    /// What the benchmark definition says about single tasks (absent: nothing).
    pub settings: HashMap<PathBuf, TaskSettings>,
    /// Incremental (seed 002): the tasks are versions of the benchmark's [`Sequence`]s, run in
    /// order, each from the proof the run on the version before left (`--proof-in/--proof-out`).
    pub incremental: bool,
}

/// What a benchmark definition's `<tasks>` element adds to the runs of its tasks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskSettings {
    /// The `<tasks>` element's `<option>`s (after the run definition's); the per-task
    /// variables (`${taskdef_name}`, `${inputfile_path}`, `${logfile_path}`, …) are
    /// substituted when the run starts ([`definition::substitute_task_vars`]).
    pub args: Vec<String>,
    /// The property file the definition names for the task (`<propertyfile>`).
    pub property_file: Option<PathBuf>,
}

impl RunDefinition {
    /// A run definition with the same arguments for every task.
    pub fn new(name: String, args: Vec<String>, tasks: Vec<PathBuf>) -> RunDefinition {
        RunDefinition {
            name,
            args,
            tasks,
            settings: HashMap::new(),
            incremental: false,
        }
    }

    /// The arguments of the run on `task` (its `<tasks>` options appended, variables
    /// substituted); `log_dir` is where the run definition's logs go.
    pub fn args_for(&self, task: &Path, log_dir: &Path) -> Vec<String> {
        let mut args = self.args.clone();
        if let Some(s) = self.settings.get(task) {
            args.extend(s.args.iter().cloned());
        }
        args.iter()
            .map(|a| definition::substitute_task_vars(a, task, log_dir))
            .collect()
    }
}

/// Limits of every run of a benchmark, BenchExec style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchLimits {
    /// CPU time after which a result does not count (`timelimit`).
    pub cpu_time: Duration,
    /// CPU time at which the run is killed (`hardtimelimit`, at least `cpu_time`).
    pub hard_cpu_time: Duration,
    /// Memory of the run's process tree in bytes (`memlimit`).
    pub memory: Option<u64>,
    /// Wall time at which the run is killed (`walltimelimit`; default: see [`Self::wall_time`]).
    pub wall_time: Option<Duration>,
    /// Cores per run (`cpuCores`); recorded in the results.
    pub cpu_cores: Option<u32>,
}

impl Default for BenchLimits {
    /// 900 s CPU time (SV-COMP's limit), no memory limit.
    fn default() -> Self {
        BenchLimits {
            cpu_time: Duration::from_secs(900),
            hard_cpu_time: Duration::from_secs(900),
            memory: None,
            wall_time: None,
            cpu_cores: None,
        }
    }
}

impl BenchLimits {
    /// The wall-time limit: `walltimelimit`, else twice the hard CPU limit plus 10 s.
    pub fn wall_time(&self) -> Duration {
        self.wall_time
            .unwrap_or(self.hard_cpu_time * 2 + Duration::from_secs(10))
    }

    /// A text that identifies the limits (results are resumed only under equal limits).
    pub fn key(&self) -> String {
        let mut key = format!(
            "cpu={}s hard={}s mem={}",
            self.cpu_time.as_secs_f64(),
            self.hard_cpu_time.as_secs_f64(),
            self.memory.map(|m| format!("{m}B")).unwrap_or_else(|| "-".into())
        );
        if let Some(w) = self.wall_time {
            key.push_str(&format!(" wall={}s", w.as_secs_f64()));
        }
        key
    }
}

/// A benchmark: a name, run definitions with their tasks, and limits.
#[derive(Debug, Clone)]
pub struct Benchmark {
    /// Name of the benchmark (result file names start with it).
    pub name: String,
    pub run_definitions: Vec<RunDefinition>,
    pub limits: BenchLimits,
    /// Problems that do not stop the benchmark (e.g. a pattern that matches no file).
    pub warnings: Vec<String>,
    /// Version sequences: their versions are tasks of every run definition, and incremental
    /// run definitions run them in order.
    pub sequences: Vec<Sequence>,
}

/// What the command line asks for: a benchmark definition XML or tasks plus run definitions,
/// and limits that override the definition's.
#[derive(Debug, Clone, Default)]
pub struct BenchRequest {
    /// A BenchExec benchmark definition.
    pub definition: Option<PathBuf>,
    /// Task definitions.
    pub tasks: Vec<PathBuf>,
    /// The shared `MANIFEST.csv` and maybe the paper table to select.
    pub manifest: Option<PathBuf>,
    pub table: Option<String>,
    /// An sv-benchmarks `.set` file.
    pub set: Option<PathBuf>,
    /// A file of version sequences ([`sequences`]): each predicate or explicit `verify` run definition
    /// also runs them incrementally, as run definition `NAME.incremental`.
    pub sequences: Option<PathBuf>,
    /// Run definitions `NAME=ARGS`.
    pub runs: Vec<String>,
    /// `--timelimit`, `--hardtimelimit`, `--walltimelimit`, `--memlimit` texts.
    pub timelimit: Option<String>,
    pub hardtimelimit: Option<String>,
    pub walltimelimit: Option<String>,
    pub memlimit: Option<String>,
    /// Benchmark name (default: the definition's file name, else `baton-bench`).
    pub name: Option<String>,
}

/// Builds the benchmark a request describes. Tasks given on the command line are added to
/// every run definition; `--run` definitions are added to the definition file's.
pub fn prepare(request: &BenchRequest) -> Result<Benchmark, BenchError> {
    let mut bench = match &request.definition {
        Some(path) => load_benchmark_xml(path)?,
        None => Benchmark {
            name: "baton-bench".into(),
            run_definitions: Vec::new(),
            limits: BenchLimits::default(),
            warnings: Vec::new(),
            sequences: Vec::new(),
        },
    };
    if let Some(name) = &request.name {
        inputs::check_file_name(name, "benchmark name").map_err(BenchError::Invalid)?;
        bench.name = name.clone();
    }
    let mut tasks = Vec::new();
    for t in &request.tasks {
        inputs::push_unique(&mut tasks, [inputs::canonical_task(t)?]);
    }
    if let Some(m) = &request.manifest {
        inputs::push_unique(&mut tasks, tasks_from_manifest(m, request.table.as_deref())?);
    } else if request.table.is_some() {
        return Err(BenchError::Invalid("--table needs --manifest".into()));
    }
    if let Some(set) = &request.set {
        inputs::push_unique(&mut tasks, tasks_from_set(set, &mut bench.warnings)?);
    }
    if let Some(path) = &request.sequences {
        bench.sequences = load_sequences(path)?;
        let versions = bench.sequences.iter().flat_map(|s| s.versions.iter().cloned());
        inputs::push_unique(&mut tasks, versions);
    }
    for rd in &mut bench.run_definitions {
        inputs::push_unique(&mut rd.tasks, tasks.iter().cloned());
    }
    for text in &request.runs {
        let (name, args) = parse_run_definition(text)?;
        if bench.run_definitions.iter().any(|r| r.name == name) {
            return Err(BenchError::Invalid(format!(
                "run definition `{name}` given twice"
            )));
        }
        bench
            .run_definitions
            .push(RunDefinition::new(name, args, tasks.clone()));
    }
    add_incremental_run_definitions(&mut bench)?;
    skip_unsupported_tasks(&mut bench)?;
    if bench.run_definitions.is_empty() {
        return Err(BenchError::Invalid(
            "no run definitions: give --run NAME='ARGS' or a benchmark definition".into(),
        ));
    }
    if let Some(rd) = bench.run_definitions.iter().find(|rd| rd.tasks.is_empty()) {
        return Err(BenchError::Invalid(format!(
            "run definition `{}` has no tasks: give --tasks, --manifest or --set",
            rd.name
        )));
    }
    if let Some(t) = &request.timelimit {
        bench.limits.cpu_time = parse_time(t)?;
        bench.limits.hard_cpu_time = bench.limits.cpu_time;
    }
    if let Some(t) = &request.hardtimelimit {
        bench.limits.hard_cpu_time = parse_time(t)?;
    }
    bench.limits.hard_cpu_time = bench.limits.hard_cpu_time.max(bench.limits.cpu_time);
    if let Some(t) = &request.walltimelimit {
        bench.limits.wall_time = Some(parse_time(t)?);
    }
    if let Some(m) = &request.memlimit {
        bench.limits.memory = Some(parse_memory(m)?);
    }
    Ok(bench)
}

/// With version sequences: for every run definition of the predicate or explicit analysis
/// (`verify --analysis predicate|explicit`), a run definition `NAME.incremental` with the same arguments that
/// runs the sequences' versions incrementally; other run definitions run them from scratch
/// only (a warning says so).
fn add_incremental_run_definitions(bench: &mut Benchmark) -> Result<(), BenchError> {
    if bench.sequences.is_empty() {
        return Ok(());
    }
    let versions: Vec<PathBuf> = bench
        .sequences
        .iter()
        .flat_map(|s| s.versions.iter().cloned())
        .collect();
    let mut added = Vec::new();
    for rd in &bench.run_definitions {
        // `verify`'s analysis (explicit unless given).
        let analysis = rd
            .args
            .windows(2)
            .find_map(|w| (w[0] == "--analysis").then_some(w[1].as_str()))
            .or_else(|| rd.args.iter().find_map(|a| a.strip_prefix("--analysis=")))
            .unwrap_or("explicit");
        let with_proofs =
            rd.args.first().is_some_and(|a| a == "verify") && matches!(analysis, "predicate" | "explicit");
        if !with_proofs {
            bench.warnings.push(format!(
                "run definition `{}` runs the sequences from scratch only (proofs need `verify --analysis predicate` or `explicit`)",
                rd.name
            ));
            continue;
        }
        if rd
            .args
            .iter()
            .any(|a| a.starts_with("--proof-in") || a.starts_with("--proof-out"))
        {
            return Err(BenchError::Invalid(format!(
                "run definition `{}`: with --sequences, Baton gives the proof files itself",
                rd.name
            )));
        }
        let name = format!("{}.incremental", rd.name);
        if bench.run_definitions.iter().any(|r| r.name == name) {
            return Err(BenchError::Invalid(format!(
                "run definition `{name}` exists: it is the name of `{}` run incrementally",
                rd.name
            )));
        }
        added.push(RunDefinition {
            name,
            tasks: rd
                .tasks
                .iter()
                .filter(|t| versions.contains(t))
                .cloned()
                .collect(),
            incremental: true,
            ..rd.clone()
        });
    }
    bench.run_definitions.extend(added);
    Ok(())
}

/// Drops the tasks Baton does not verify (no `unreach-call` property, read by content) from
/// every run definition, as BenchExec skips tasks without the benchmark's property, with a
/// warning naming each; other task errors stop the benchmark.
fn skip_unsupported_tasks(bench: &mut Benchmark) -> Result<(), BenchError> {
    let mut verdicts: HashMap<PathBuf, bool> = HashMap::new();
    for rd in &mut bench.run_definitions {
        for t in &rd.tasks {
            if verdicts.contains_key(t) {
                continue;
            }
            match crate::task::Task::load(t, Default::default()) {
                Ok(_) => verdicts.insert(t.clone(), true),
                Err(e @ crate::task::TaskError::Unsupported { .. }) => {
                    bench.warnings.push(format!("task skipped: {e}"));
                    verdicts.insert(t.clone(), false)
                }
                Err(e) => return Err(BenchError::Invalid(e.to_string())),
            };
        }
        rd.tasks.retain(|t| verdicts.get(t).copied().unwrap_or(true));
    }
    Ok(())
}

/// Parses a benchmark or result XML file into a tree; errors name the file and line.
pub(crate) fn parse_xml(text: &str, file: &str, root_name: &str) -> Result<crate::xml::Element, BenchError> {
    crate::xml::parse(text, root_name).map_err(|e| BenchError::Malformed {
        file: file.to_string(),
        line: e.line,
        message: e.message,
    })
}

/// Parses a time limit (see [`crate::units::parse_duration`]).
pub fn parse_time(text: &str) -> Result<Duration, BenchError> {
    crate::units::parse_duration(text).map_err(|e| BenchError::Invalid(e.to_string()))
}

/// Parses a memory limit in bytes (see [`crate::units::parse_size`]).
pub fn parse_memory(text: &str) -> Result<u64, BenchError> {
    crate::units::parse_size(text).map_err(|e| BenchError::Invalid(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_times_and_sizes() {
        assert_eq!(parse_time("60s").unwrap(), Duration::from_secs(60));
        assert_eq!(parse_time("2 min").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_time("1.5").unwrap(), Duration::from_millis(1500));
        assert!(parse_time("fast").is_err());
        assert!(parse_time("3 fortnights").is_err());
        assert!(parse_time("0s").is_err());
        assert_eq!(parse_memory("4 GB").unwrap(), 4_000_000_000);
        assert_eq!(parse_memory("2MiB").unwrap(), 2 * 1024 * 1024);
        assert!(parse_memory("lots").is_err());
        assert!(parse_memory("0").is_err());
    }
}
