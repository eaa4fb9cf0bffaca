//! Running a benchmark: runs in parallel as subprocesses under limits, results recorded as
//! they finish, earlier results of the same output directory resumed.

use super::logzip;
use super::report::{self, Category, RunResult, SequencePosition, XmlHeader};
use super::{BenchError, Benchmark, RunDefinition};
use crate::cli_json;
use crate::exec::{self, lifecycle, ExecError, Limits, RunStatus, ToolCommand};
use crate::task::Task;
use crate::verdict::{Classification, Verdict};
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::{HashMap, VecDeque};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, SystemTime};

/// Name of the JSON-lines file of results in the output directory.
pub const RESULTS_JSONL: &str = "results.jsonl";
/// Name of the CSV file of results in the output directory.
pub const RESULTS_CSV: &str = "results.csv";

/// Least wall time between the end a `run`'s flow is given (`--wall-time`) and the wall-time
/// limit at which the run is killed (a tenth of the limit where that is more).
const WALL_MARGIN: Duration = Duration::from_secs(5);

/// How to run a benchmark.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// Runs at the same time (at least 1).
    pub jobs: usize,
    /// Where results and logs go (created if missing).
    pub output_dir: PathBuf,
    /// The Baton executable that performs each run.
    pub executable: PathBuf,
}

/// What a benchmark run produced.
#[derive(Debug, Clone)]
pub struct BenchOutcome {
    /// All results of this benchmark's runs, per run definition in definition order (resumed
    /// ones included), tasks in benchmark order.
    pub results: Vec<(String, Vec<RunResult>)>,
    /// Runs performed now.
    pub executed: usize,
    /// Runs taken over from earlier invocations.
    pub resumed: usize,
    /// Runs not performed or not finished because the benchmark was interrupted (SIGINT,
    /// SIGTERM, SIGHUP: see [`crate::exec::lifecycle`]); a rerun does them.
    pub skipped: usize,
    /// The summary table (see [`report::summary_text`]).
    pub summary: String,
    /// Result XML files written.
    pub xml_files: Vec<PathBuf>,
}

/// One run to perform.
#[derive(Debug, Clone)]
struct Job {
    rundef: usize,
    task: PathBuf,
    expected: Option<bool>,
    /// The property file of the run: the benchmark definition's, else the task's.
    property_file: Option<PathBuf>,
    /// The run's arguments as the run definition gives them (see [`RunDefinition::args_for`]),
    /// with the proof files of an incremental run.
    args: Vec<String>,
    /// The task's place in a version sequence.
    sequence: Option<SequencePosition>,
    /// The proof an incremental run starts from: if the run on the version before left none
    /// (it was killed), this run is from scratch and its recorded arguments say so.
    proof_in: Option<PathBuf>,
}

/// Runs one worker performs in order: one run, or the versions of a sequence in an
/// incremental run definition (each needs the proof of the one before).
type Chain = Vec<Job>;

/// Where an incremental run definition keeps the proof of a sequence's version.
fn proof_path(proofs: &Path, rd: &RunDefinition, position: &SequencePosition) -> PathBuf {
    proofs
        .join(&rd.name)
        .join(&position.name)
        .join(format!("{}.proof", position.index))
}

/// Makes relative path arguments that exist (relative to the current directory) absolute,
/// since runs execute in their own temporary directories. The subcommand (first word) stays.
fn absolutize(args: &[String], cwd: &Path) -> Vec<String> {
    let fix = |s: &str| -> String {
        let p = Path::new(s);
        if !s.is_empty() && p.is_relative() && cwd.join(p).exists() {
            cwd.join(p).display().to_string()
        } else {
            s.to_string()
        }
    };
    args.iter()
        .enumerate()
        .map(|(i, a)| {
            if i == 0 {
                a.clone()
            } else if let Some((opt, value)) = a.split_once('=').filter(|_| a.starts_with("--")) {
                format!("{opt}={}", fix(value))
            } else if a.starts_with('-') {
                a.clone()
            } else {
                fix(a)
            }
        })
        .collect()
}

/// File name for a run's file (log, witness): the task's folder and file name, made safe,
/// then `suffix`.
fn run_file_name(task: &Path, suffix: &str) -> String {
    let short = report::short_task_name(&task.display().to_string());
    let safe: String = short
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '.'
            }
        })
        .collect();
    format!("{safe}.{suffix}")
}

/// True if the run's Baton command writes a witness on request (`run`, `verify`) and the run
/// definition does not name one itself.
fn writes_witness(args: &[String]) -> bool {
    matches!(args.first().map(String::as_str), Some("run" | "verify")) && !names_option(args, "--witness")
}

/// True if the run definition's arguments give the option `name` (`--x V` or `--x=V`).
fn names_option(args: &[String], name: &str) -> bool {
    args.iter()
        .any(|a| a == name || a.strip_prefix(name).is_some_and(|rest| rest.starts_with('=')))
}

/// Bytes of the head and of the tail of a run's output that its log keeps.
const LOG_EXCERPT: u64 = 64 << 10;

/// Performs one run and judges it; `None` if Baton was asked to stop before the run ended
/// (nothing is recorded, so a rerun performs it).
fn perform(
    job: &Job,
    rd: &RunDefinition,
    cwd: &Path,
    bench: &Benchmark,
    options: &BenchOptions,
) -> Option<RunResult> {
    let started = SystemTime::now();
    let mut run_args = job.args.clone();
    if let Some(p) = job.proof_in.as_ref().filter(|p| !p.exists()) {
        let value = p.display().to_string();
        if let Some(i) = run_args
            .windows(2)
            .position(|w| w[0] == "--proof-in" && w[1] == value)
        {
            run_args.drain(i..i + 2);
        }
    }
    let args = absolutize(&run_args, cwd);
    let mut argv: Vec<String> = vec![options.executable.display().to_string()];
    argv.extend(args.iter().cloned());
    argv.push(job.task.display().to_string());
    if !args.iter().any(|a| a == "--json") {
        argv.push("--json".into());
    }
    // A flow's own budget ends within the run's time limit, so what it does after deciding
    // (deriving a witness) cannot turn a verdict into a timeout.
    if args.first().map(String::as_str) == Some("run") && !names_option(&args, "--cpu-time") {
        argv.push("--cpu-time".into());
        argv.push(format!("{}ms", bench.limits.cpu_time.as_millis()));
    }
    // Likewise its wall time, with a margin for ending the flow's processes and printing: on a
    // loaded machine a witness derivation within the CPU budget ran past the wall-time limit
    // (pc_sfifo_2: `true` after 27 s CPU, killed at 150 s wall, a TIMEOUT).
    if args.first().map(String::as_str) == Some("run") && !names_option(&args, "--wall-time") {
        let wall = bench.limits.wall_time();
        argv.push("--wall-time".into());
        argv.push(format!(
            "{}ms",
            wall.saturating_sub(WALL_MARGIN.max(wall / 10)).as_millis()
        ));
    }
    let limits = Limits {
        cpu_time: Some(bench.limits.hard_cpu_time),
        wall_time: Some(bench.limits.wall_time()),
        memory: bench.limits.memory,
        ..Limits::default()
    };
    // The witness goes beside the log; a file of an earlier, unfinished run is removed first.
    let rel_witness = writes_witness(&job.args)
        .then(|| format!("logs/{}/{}", rd.name, run_file_name(&job.task, "witness.yml")));
    if let Some(w) = &rel_witness {
        let path = options.output_dir.join(w);
        let _ = std::fs::remove_file(&path);
        argv.push("--witness".into());
        argv.push(std::path::absolute(&path).unwrap_or(path).display().to_string());
    }
    let task = job.task.display().to_string();
    let mut result = RunResult {
        run_definition: rd.name.clone(),
        args: run_args,
        limits: bench.limits.key(),
        task: task.clone(),
        expected: job.expected,
        verdict: Verdict::Unknown.benchexec().to_string(),
        status: String::new(),
        category: Category::Error,
        score: 0,
        cpu_time_s: 0.0,
        wall_time_s: 0.0,
        memory_bytes: None,
        reason: None,
        started: report::iso_time(started),
        log: None,
        witness: None,
        property_file: job.property_file.as_ref().map(|p| {
            std::path::absolute(p)
                .unwrap_or_else(|_| p.clone())
                .display()
                .to_string()
        }),
        host: Some(report::hostname()),
        version: Some(env!("CARGO_PKG_VERSION").to_string()),
        sequence: job.sequence.clone(),
        reached_states: None,
        incremental: None,
    };
    let rel_log = format!("logs/{}/{}", rd.name, run_file_name(&job.task, "log"));
    let mut log = format!("command: {}\n", argv.join(" "));
    match exec::run(&ToolCommand::new(&argv), &limits) {
        Err(ExecError::Interrupted { .. }) => return None,
        Err(e) => {
            result.status = "ERROR (cannot run)".into();
            result.reason = Some(e.to_string());
        }
        Ok(report) => {
            result.cpu_time_s = report.cpu_time.as_secs_f64();
            result.wall_time_s = report.wall_time.as_secs_f64();
            result.memory_bytes = report.peak_memory;
            let excerpt = |path: &Path| {
                exec::output::excerpt(path, LOG_EXCERPT, LOG_EXCERPT)
                    .unwrap_or_else(|e| format!("(cannot read {}: {e})", path.display()))
            };
            let stdout = excerpt(&report.stdout_path);
            let stderr = excerpt(&report.stderr_path);
            match report.status {
                RunStatus::Done if report.cpu_time > bench.limits.cpu_time => {
                    result.status = "TIMEOUT".into();
                    result.reason = Some("finished, but above the CPU-time limit".into());
                }
                RunStatus::Done => match report.stdout_text() {
                    Ok(text) => judge(&mut result, &text),
                    Err(e) => {
                        result.status = "ERROR (cannot read output)".into();
                        result.reason = Some(e.to_string());
                    }
                },
                status => {
                    result.status = status.benchexec_string();
                    // Baton's error document (runs use --json), else stderr's last line.
                    let document = report
                        .stdout_text()
                        .ok()
                        .and_then(|t| cli_json::error_message(&t));
                    result.reason = document.or_else(|| stderr.lines().last().map(str::to_string));
                }
            }
            let _ = std::fmt::Write::write_fmt(
                &mut log,
                format_args!(
                    "status: {} (tool: {}, measured by {})\ncpu time: {:.3} s\nwall time: {:.3} s\nmemory: {} B\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}\n",
                    report.status,
                    report.tool_status(),
                    report.measurement,
                    result.cpu_time_s,
                    result.wall_time_s,
                    result.memory_bytes.map(|m| m.to_string()).unwrap_or_else(|| "?".into()),
                ),
            );
        }
    }
    let log_path = options.output_dir.join(&rel_log);
    let written = log_path
        .parent()
        .map(std::fs::create_dir_all)
        .unwrap_or(Ok(()))
        .and_then(|_| std::fs::write(&log_path, log));
    if written.is_ok() {
        result.log = Some(rel_log);
    }
    result.witness = rel_witness.filter(|w| options.output_dir.join(w).is_file());
    Some(result)
}

/// Reads the verdict from the run's JSON output and classifies it.
fn judge(result: &mut RunResult, stdout: &str) {
    let value: Option<serde_json::Value> = serde_json::from_str(stdout.trim()).ok();
    let verdict = value
        .as_ref()
        .and_then(|v| v.get("verdict"))
        .and_then(|v| v.as_str());
    let Some(text) = verdict else {
        result.verdict = Verdict::Unknown.benchexec().to_string();
        result.category = Category::Error;
        result.score = 0;
        result.status = "ERROR (invalid output)".into();
        result.reason = Some("no JSON object with \"verdict\" on standard output".into());
        return;
    };
    let verdict = report::parse_verdict(text);
    result.verdict = verdict.benchexec().to_string();
    result.status = result.verdict.clone();
    result.reason = value
        .as_ref()
        .and_then(|v| v.get("reason"))
        .and_then(|v| v.as_str())
        .map(str::to_string);
    result.reached_states = value
        .as_ref()
        .and_then(|v| v.get("reached_states"))
        .and_then(|v| v.as_u64());
    result.incremental = value
        .as_ref()
        .and_then(|v| v.get("incremental"))
        .and_then(|v| serde_json::from_value(v.clone()).ok());
    result.score = verdict.score(result.expected);
    result.category = match verdict.classify(result.expected) {
        Classification::Correct => Category::Correct,
        Classification::Wrong => Category::Wrong,
        Classification::Unknown if verdict.is_definite() => Category::Missing,
        Classification::Unknown => Category::Unknown,
    };
}

/// Earlier results in `results.jsonl` (later lines win) and a warning for each line that is
/// not a result, e.g. the last one cut short when Baton was killed while writing it: such
/// lines are skipped, so their runs are performed again on resume.
pub fn read_jsonl(path: &Path) -> Result<(Vec<RunResult>, Vec<String>), BenchError> {
    let bytes = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), Vec::new())),
        Err(e) => return Err(BenchError::io(path, "cannot read results", e)),
    };
    let mut results = Vec::new();
    let mut warnings = Vec::new();
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    for (i, line) in lines.iter().enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<RunResult>(line) {
            Ok(r) => results.push(r),
            Err(e) => {
                let what = if i + 1 == lines.len() {
                    "is cut short (Baton was stopped while writing it)"
                } else {
                    "is not a result"
                };
                warnings.push(format!(
                    "{}:{}: line {what}, ignored; its run is performed again ({e})",
                    path.display(),
                    i + 1
                ));
            }
        }
    }
    Ok((results, warnings))
}

/// Opens `results.jsonl` for appending; a last line cut short (no newline) is ended first, so
/// the next record starts on a line of its own.
fn open_jsonl(path: &Path) -> std::io::Result<std::fs::File> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .read(true)
        .open(path)?;
    let len = file.metadata()?.len();
    if len > 0 {
        let mut last = [0u8];
        file.seek(SeekFrom::Start(len - 1))?;
        file.read_exact(&mut last)?;
        if last[0] != b'\n' {
            file.write_all(b"\n")?;
        }
    }
    Ok(file)
}

/// Writes a file atomically (temporary file + rename) so readers never see half a file.
fn write_atomic(path: &Path, text: &str) -> Result<(), BenchError> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(|e| BenchError::io(&tmp, "cannot write", e))?;
    std::fs::rename(&tmp, path).map_err(|e| BenchError::io(path, "cannot write", e))
}

/// The recorded results of a benchmark and the files that show them.
struct Recorder<'a> {
    bench: &'a Benchmark,
    dir: &'a Path,
    started: SystemTime,
    /// Per run definition: task → result.
    results: Vec<HashMap<PathBuf, RunResult>>,
    /// Per run definition: results not yet in its XML file.
    dirty: Vec<bool>,
    last_write: std::time::Instant,
    jsonl: std::fs::File,
}

impl Recorder<'_> {
    fn xml_path(&self, rd: &RunDefinition) -> PathBuf {
        self.dir
            .join(format!("{}.results.{}.xml", self.bench.name, rd.name))
    }

    /// Results of run definition `i` in task order.
    fn ordered(&self, i: usize) -> Vec<&RunResult> {
        self.bench.run_definitions[i]
            .tasks
            .iter()
            .filter_map(|t| self.results[i].get(t))
            .collect()
    }

    fn write_xml(&self, i: usize) -> Result<(), BenchError> {
        let rd = &self.bench.run_definitions[i];
        let header = XmlHeader {
            benchmark: &self.bench.name,
            run_definition: rd,
            limits: &self.bench.limits,
            started: self.started,
        };
        write_atomic(&self.xml_path(rd), &report::result_xml(&header, &self.ordered(i)))
    }

    fn write_csv(&self) -> Result<(), BenchError> {
        let all: Vec<&RunResult> = (0..self.results.len()).flat_map(|i| self.ordered(i)).collect();
        write_atomic(&self.dir.join(RESULTS_CSV), &report::results_csv(&all))
    }

    /// Records a new result: appended (and synced) to the JSON lines at once, record and
    /// newline in one `write` on the append-only file (a kill can cut the line short but never
    /// merge two records); the XML and CSV files, which are rewritten whole, at most every
    /// [`REWRITE_INTERVAL`] (see [`Self::flush`]).
    fn record(&mut self, i: usize, result: RunResult) -> Result<(), BenchError> {
        let mut line = serde_json::to_vec(&result)
            .map_err(|e| BenchError::Invalid(format!("cannot encode result: {e}")))?;
        line.push(b'\n');
        let path = self.dir.join(RESULTS_JSONL);
        self.jsonl
            .write_all(&line)
            .and_then(|_| self.jsonl.sync_data())
            .map_err(|e| BenchError::io(&path, "cannot append", e))?;
        self.results[i].insert(PathBuf::from(&result.task), result);
        self.dirty[i] = true;
        if self.last_write.elapsed() >= REWRITE_INTERVAL {
            self.flush()?;
        }
        Ok(())
    }

    /// The summary as BenchExec's `.txt` file has it: one line per run definition.
    fn write_summary(&self) -> Result<(), BenchError> {
        let rows: Vec<(String, Vec<&RunResult>)> = (0..self.results.len())
            .map(|i| (self.bench.run_definitions[i].name.clone(), self.ordered(i)))
            .collect();
        let path = self.dir.join(format!("{}.results.txt", self.bench.name));
        write_atomic(&path, &report::summary_text(&rows))
    }

    /// Rewrites the XML files of run definitions with new results, the CSV and the summary.
    fn flush(&mut self) -> Result<(), BenchError> {
        for i in 0..self.dirty.len() {
            if std::mem::take(&mut self.dirty[i]) {
                self.write_xml(i)?;
            }
        }
        self.write_csv()?;
        self.write_summary()?;
        self.last_write = std::time::Instant::now();
        Ok(())
    }
}

/// Least time between two rewrites of the XML and CSV files (the JSON lines are appended at
/// once; a rerun rewrites everything from them).
const REWRITE_INTERVAL: Duration = Duration::from_secs(2);

/// Shows progress: a bar with counts on a terminal, otherwise one line per finished run.
struct Progress {
    bar: Option<ProgressBar>,
    correct: usize,
    wrong: usize,
    unknown: usize,
    error: usize,
    done: usize,
    total: usize,
}

impl Progress {
    fn new(total: usize) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total as u64);
            if let Ok(style) =
                ProgressStyle::with_template("{bar:30} {pos}/{len} [{elapsed_precise}<{eta_precise}] {msg}")
            {
                bar.set_style(style);
            }
            bar
        });
        Progress {
            bar,
            correct: 0,
            wrong: 0,
            unknown: 0,
            error: 0,
            done: 0,
            total,
        }
    }

    fn counts(&self) -> String {
        format!(
            "correct {} wrong {} unknown {} error {}",
            self.correct, self.wrong, self.unknown, self.error
        )
    }

    fn finished(&mut self, r: &RunResult) {
        self.done += 1;
        match r.category {
            Category::Correct => self.correct += 1,
            Category::Wrong => self.wrong += 1,
            Category::Unknown | Category::Missing => self.unknown += 1,
            Category::Error => self.error += 1,
        }
        match &self.bar {
            Some(bar) => {
                bar.set_message(self.counts());
                bar.inc(1);
            }
            None => eprintln!(
                "[{}/{}] {} {}: {} ({}, {:.2} s) | {}",
                self.done,
                self.total,
                r.run_definition,
                r.task_short(),
                r.status,
                r.category.as_str(),
                r.cpu_time_s,
                self.counts()
            ),
        }
    }

    /// Runs `f` (which prints) without garbling the bar.
    fn suspend(&self, f: impl FnOnce()) {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Runs a benchmark: loads every task (errors stop before anything runs), takes over earlier
/// results of the output directory that have the same arguments and limits, performs the
/// remaining runs `jobs` at a time, and records each result as it finishes.
pub fn run_benchmark(bench: &Benchmark, options: &BenchOptions) -> Result<BenchOutcome, BenchError> {
    let mut names = std::collections::HashSet::new();
    for rd in &bench.run_definitions {
        if !names.insert(rd.name.as_str()) {
            return Err(BenchError::Invalid(format!(
                "run definition `{}` given twice",
                rd.name
            )));
        }
        if rd.args.is_empty() {
            return Err(BenchError::Invalid(format!(
                "run definition `{}` has no arguments",
                rd.name
            )));
        }
    }
    let mut loaded: HashMap<PathBuf, Task> = HashMap::new();
    for rd in &bench.run_definitions {
        for t in &rd.tasks {
            if !loaded.contains_key(t) {
                let task =
                    Task::load(t, Default::default()).map_err(|e| BenchError::Invalid(e.to_string()))?;
                loaded.insert(t.clone(), task);
            }
        }
    }
    let dir = &options.output_dir;
    // Absolute: runs start in their own folders.
    let logs =
        std::path::absolute(dir.join("logs")).map_err(|e| BenchError::io(dir, "no absolute path", e))?;
    let proofs = logs.with_file_name("proofs");
    let positions: HashMap<&Path, SequencePosition> = bench
        .sequences
        .iter()
        .flat_map(|s| {
            s.versions.iter().enumerate().map(|(index, v)| {
                let name = s.name.clone();
                (v.as_path(), SequencePosition { name, index })
            })
        })
        .collect();
    // An incremental run's proofs: the one it starts from (none for a first version) and the
    // one it leaves.
    let proofs_of = |rd: &RunDefinition, t: &Path| -> Option<(Option<PathBuf>, PathBuf)> {
        let position = positions.get(t).filter(|_| rd.incremental)?;
        let before = position.index.checked_sub(1).map(|index| SequencePosition {
            name: position.name.clone(),
            index,
        });
        Some((
            before.map(|b| proof_path(&proofs, rd, &b)),
            proof_path(&proofs, rd, position),
        ))
    };
    let args_for = |rd: &RunDefinition, t: &Path| {
        let mut args = rd.args_for(t, &logs.join(&rd.name));
        if let Some((before, after)) = proofs_of(rd, t) {
            if let Some(before) = before {
                args.extend(["--proof-in".to_string(), before.display().to_string()]);
            }
            args.extend(["--proof-out".to_string(), after.display().to_string()]);
        }
        args
    };
    std::fs::create_dir_all(dir).map_err(|e| BenchError::io(dir, "cannot create", e))?;
    // `${logfile_path}` names these folders: they exist before the first run.
    for rd in &bench.run_definitions {
        let logs = dir.join("logs").join(&rd.name);
        std::fs::create_dir_all(&logs).map_err(|e| BenchError::io(&logs, "cannot create", e))?;
        if rd.incremental {
            for s in &bench.sequences {
                let folder = proofs.join(&rd.name).join(&s.name);
                std::fs::create_dir_all(&folder).map_err(|e| BenchError::io(&folder, "cannot create", e))?;
            }
        }
    }
    let jsonl_path = dir.join(RESULTS_JSONL);
    let (earlier, torn) = read_jsonl(&jsonl_path)?;
    torn.iter().for_each(|w| eprintln!("warning: {w}"));
    let jsonl = open_jsonl(&jsonl_path).map_err(|e| BenchError::io(&jsonl_path, "cannot open", e))?;
    let mut recorder = Recorder {
        bench,
        dir,
        started: SystemTime::now(),
        results: vec![HashMap::new(); bench.run_definitions.len()],
        dirty: vec![true; bench.run_definitions.len()],
        last_write: std::time::Instant::now(),
        jsonl,
    };
    let key = bench.limits.key();
    for r in earlier {
        let task = PathBuf::from(&r.task);
        if let Some(i) = bench.run_definitions.iter().position(|rd| {
            rd.name == r.run_definition && rd.tasks.contains(&task) && args_for(rd, &task) == r.args
        }) {
            if r.limits == key {
                recorder.results[i].insert(task, r);
            }
        }
    }
    // An incremental run is resumed only after the runs on the versions before it, and only
    // if the proof it left is there for the next.
    for (i, rd) in bench.run_definitions.iter().enumerate() {
        if !rd.incremental {
            continue;
        }
        for s in &bench.sequences {
            let mut broken = false;
            for v in s.versions.iter().filter(|v| rd.tasks.contains(v)) {
                let kept = !broken
                    && recorder.results[i].contains_key(v)
                    && proofs_of(rd, v).is_some_and(|(_, after)| after.exists());
                if !kept {
                    broken = true;
                    recorder.results[i].remove(v);
                }
            }
        }
    }
    let resumed: usize = recorder.results.iter().map(HashMap::len).sum();
    let job = |i: usize, rd: &RunDefinition, t: &PathBuf| {
        let task = loaded.get(t);
        Job {
            rundef: i,
            task: t.clone(),
            expected: task.and_then(|x| x.expected),
            property_file: rd
                .settings
                .get(t)
                .and_then(|s| s.property_file.clone())
                .or_else(|| task.and_then(|x| x.property_file.clone())),
            args: args_for(rd, t),
            sequence: positions.get(t.as_path()).cloned(),
            proof_in: proofs_of(rd, t).and_then(|(before, _)| before),
        }
    };
    let mut queue: VecDeque<Chain> = VecDeque::new();
    for (i, rd) in bench.run_definitions.iter().enumerate() {
        let todo = |t: &&PathBuf| !recorder.results[i].contains_key(*t);
        if rd.incremental {
            for s in &bench.sequences {
                let chain: Chain = s
                    .versions
                    .iter()
                    .filter(|v| rd.tasks.contains(v))
                    .filter(todo)
                    .map(|t| job(i, rd, t))
                    .collect();
                if !chain.is_empty() {
                    queue.push_back(chain);
                }
            }
        } else {
            queue.extend(rd.tasks.iter().filter(todo).map(|t| vec![job(i, rd, t)]));
        }
    }
    let planned: usize = queue.iter().map(Vec::len).sum();
    let cwd = std::env::current_dir().map_err(|e| BenchError::io(".", "no current directory", e))?;
    recorder.flush()?;

    let mut progress = Progress::new(planned);
    let mut executed = 0;
    let queue = Mutex::new(queue);
    let (tx, rx) = mpsc::channel::<(usize, RunResult)>();
    let mut first_error = None;
    std::thread::scope(|s| {
        for _ in 0..options.jobs.max(1).min(planned.max(1)) {
            let tx = tx.clone();
            let queue = &queue;
            let cwd = &cwd;
            s.spawn(move || 'chains: loop {
                let chain = match queue.lock() {
                    Ok(mut q) if lifecycle::stop_requested().is_none() => q.pop_front(),
                    _ => None,
                };
                let Some(chain) = chain else { break };
                for job in chain {
                    if lifecycle::stop_requested().is_some() {
                        break 'chains;
                    }
                    let rd = &bench.run_definitions[job.rundef];
                    let Some(result) = perform(&job, rd, cwd, bench, options) else {
                        break 'chains;
                    };
                    if tx.send((job.rundef, result)).is_err() {
                        break 'chains;
                    }
                }
            });
        }
        drop(tx);
        let mut announced = false;
        loop {
            let (i, result) = match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(x) => x,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if lifecycle::stop_requested().is_some() && !announced {
                        announced = true;
                        progress.suspend(|| {
                            eprintln!("interrupted: ending the runs under way (their results are not recorded; a rerun resumes)")
                        });
                    }
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            executed += 1;
            progress.finished(&result);
            if let Err(e) = recorder.record(i, result) {
                // Stop handing out runs; the workers finish the ones under way.
                if let Ok(mut q) = queue.lock() {
                    q.clear();
                }
                first_error.get_or_insert(e);
            }
        }
    });
    progress.finish();
    if let Some(e) = first_error {
        return Err(e);
    }
    recorder.flush()?;
    let all: Vec<&RunResult> = (0..bench.run_definitions.len())
        .flat_map(|i| recorder.ordered(i))
        .collect();
    logzip::write_archive(dir, &bench.name, &all)?;
    let results: Vec<(String, Vec<RunResult>)> = (0..bench.run_definitions.len())
        .map(|i| {
            (
                bench.run_definitions[i].name.clone(),
                recorder.ordered(i).into_iter().cloned().collect(),
            )
        })
        .collect();
    let rows: Vec<(String, Vec<&RunResult>)> = results
        .iter()
        .map(|(n, rs)| (n.clone(), rs.iter().collect()))
        .collect();
    let summary = report::summary_text(&rows);
    let xml_files = bench
        .run_definitions
        .iter()
        .map(|rd| recorder.xml_path(rd))
        .collect();
    Ok(BenchOutcome {
        results,
        executed,
        resumed,
        skipped: planned - executed,
        summary,
        xml_files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolutizes_existing_relative_paths_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("flow.yaml"), "").unwrap();
        let args: Vec<String> = ["run", "flow.yaml", "--x=flow.yaml", "--y", "nothing"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let fixed = absolutize(&args, dir.path());
        let abs = dir.path().join("flow.yaml").display().to_string();
        assert_eq!(
            fixed,
            vec![
                "run".to_string(),
                abs.clone(),
                format!("--x={abs}"),
                "--y".into(),
                "nothing".into()
            ]
        );
        assert_eq!(run_file_name(Path::new("/a/b c/d.yml"), "log"), "b.c.d.yml.log");
    }

    #[test]
    fn judges_json_output() {
        let mut r = RunResult {
            run_definition: "e".into(),
            task: "t".into(),
            expected: Some(true),
            verdict: "unknown".into(),
            ..RunResult::default()
        };
        judge(
            &mut r,
            "{\"verdict\": \"false(unreach-call)\", \"reason\": \"cex\"}",
        );
        assert_eq!((r.category, r.score), (Category::Wrong, -16));
        judge(&mut r, "not json");
        assert_eq!(r.status, "ERROR (invalid output)");
        r.expected = None;
        judge(&mut r, "{\"verdict\": \"true\"}");
        assert_eq!(r.category, Category::Missing);
    }
}
