//! Results of runs and the files they are written to: JSON lines (for resume), BenchExec result
//! XML (readable by BenchExec's `table-generator`), CSV, and the summary table.

use super::logzip;
use super::{BenchLimits, RunDefinition};
use crate::analyses::incremental::ReuseStats;
use crate::verdict::Verdict;
use quick_xml::escape::escape;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

/// How a result counts, in BenchExec's categories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// The verdict matches the expected one.
    Correct,
    /// The verdict contradicts the expected one.
    Wrong,
    /// The tool answered `unknown`.
    Unknown,
    /// The run ended without an answer: timeout, out of memory, crash, unusable output.
    #[default]
    Error,
    /// A definite verdict for a task without an expected verdict.
    Missing,
}

impl Category {
    /// BenchExec's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Correct => "correct",
            Category::Wrong => "wrong",
            Category::Unknown => "unknown",
            Category::Error => "error",
            Category::Missing => "missing",
        }
    }
}

/// The result of one run (one line of `results.jsonl`); the default is a run without result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// The run definition's name.
    pub run_definition: String,
    /// The run definition's arguments (a result is resumed only with the same arguments).
    pub args: Vec<String>,
    /// The limits' key ([`BenchLimits::key`]).
    pub limits: String,
    /// Canonical path of the task definition.
    pub task: String,
    /// Expected verdict of `unreach-call` (`true` = safe).
    pub expected: Option<bool>,
    /// `true`, `false(unreach-call)` or `unknown`.
    pub verdict: String,
    /// BenchExec status: the verdict, or `TIMEOUT`, `OUT OF MEMORY`, `ERROR (n)`, ….
    pub status: String,
    pub category: Category,
    /// SV-COMP score of this result.
    pub score: i32,
    pub cpu_time_s: f64,
    pub wall_time_s: f64,
    pub memory_bytes: Option<u64>,
    /// Why the analysis ended, or what went wrong.
    pub reason: Option<String>,
    /// Start of the run (ISO 8601, UTC).
    pub started: String,
    /// Log file, relative to the output directory.
    pub log: Option<String>,
    /// Witness of the run's verdict (`run`/`verify --witness`), beside its log, relative to
    /// the output directory.
    #[serde(default)]
    pub witness: Option<String>,
    /// The property file the run checked (BenchExec scores a run only with it).
    #[serde(default)]
    pub property_file: Option<String>,
    /// The machine the run ran on and the Baton version that ran it (provenance).
    #[serde(default)]
    pub host: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    /// The version sequence the task belongs to and its position there (from 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequence: Option<SequencePosition>,
    /// States the analysis reached (its `reached_states`), if it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reached_states: Option<u64>,
    /// What an incremental run reused of the previous version's proof (its `incremental`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incremental: Option<ReuseStats>,
}

/// Where a task stands in a version sequence.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SequencePosition {
    /// The sequence's name.
    pub name: String,
    /// The version's position, 0 for the first.
    pub index: usize,
}

impl RunResult {
    /// The verdict as an enum.
    pub fn verdict(&self) -> Verdict {
        parse_verdict(&self.verdict)
    }

    /// A short name of the task: its folder and file name.
    pub fn task_short(&self) -> String {
        short_task_name(&self.task)
    }
}

/// A verdict from its BenchExec spelling (`false(…)` counts as false; anything else unknown).
pub fn parse_verdict(text: &str) -> Verdict {
    match text.trim() {
        "true" => Verdict::True,
        t if t == "false" || t.starts_with("false(") => Verdict::False,
        _ => Verdict::Unknown,
    }
}

/// The last two components of a task path (`folder/file.yml`).
pub fn short_task_name(task: &str) -> String {
    let parts: Vec<&str> = task.rsplit('/').take(2).collect();
    parts.into_iter().rev().collect::<Vec<_>>().join("/")
}

/// Date and time of a moment in UTC: (`YYYY-MM-DD`, `HH:MM:SS`), from `humantime`'s RFC 3339
/// form (moments before 1970 are taken as 1970).
fn utc_parts(t: SystemTime) -> (String, String) {
    let text = humantime::format_rfc3339_seconds(t.max(UNIX_EPOCH)).to_string();
    // `YYYY-MM-DDTHH:MM:SSZ`
    let (date, time) = text.split_once('T').unwrap_or((&text, ""));
    (date.to_string(), time.trim_end_matches('Z').to_string())
}

/// ISO 8601 time in UTC, e.g. `2026-11-22T04:00:00+00:00`.
pub fn iso_time(t: SystemTime) -> String {
    let (d, h) = utc_parts(t);
    format!("{d}T{h}+00:00")
}

/// BenchExec's `date` attribute, e.g. `2026-11-22 04:00:00 UTC`.
pub fn benchexec_date(t: SystemTime) -> String {
    let (d, h) = utc_parts(t);
    format!("{d} {h} UTC")
}

/// BenchExec's benchmark instance (`${benchmark_date}`), e.g. `2026-11-22_04-00-00`.
pub fn benchexec_instance(t: SystemTime) -> String {
    let (d, h) = utc_parts(t);
    format!("{d}_{}", h.replace(':', "-"))
}

/// The first line of a `/proc` file field like `model name : …`.
fn proc_field(file: &str, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    text.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

/// A one-line `/proc` file, trimmed (empty if unreadable).
fn read_proc(file: &str) -> String {
    std::fs::read_to_string(file)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// This machine's host name.
pub fn hostname() -> String {
    read_proc("/proc/sys/kernel/hostname")
}

/// The `<systeminfo>` element BenchExec's result format requires.
fn systeminfo() -> String {
    let read = read_proc;
    let host = hostname();
    let os = format!(
        "{} {}",
        read("/proc/sys/kernel/ostype"),
        read("/proc/sys/kernel/osrelease")
    );
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let model = proc_field("/proc/cpuinfo", "model name").unwrap_or_else(|| "unknown".into());
    let ram = proc_field("/proc/meminfo", "MemTotal")
        .and_then(|v| v.trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0);
    format!(
        "  <systeminfo hostname=\"{}\">\n    <os name=\"{}\"/>\n    <cpu cores=\"{cores}\" model=\"{}\"/>\n    <ram size=\"{ram}B\"/>\n    <environment/>\n  </systeminfo>\n",
        escape(host.as_str()),
        escape(os.as_str()),
        escape(model.as_str())
    )
}

/// Metadata of a result XML file.
pub struct XmlHeader<'a> {
    pub benchmark: &'a str,
    pub run_definition: &'a RunDefinition,
    pub limits: &'a BenchLimits,
    pub started: SystemTime,
}

/// A BenchExec result XML (format of BenchExec's `result.dtd`) for one run definition.
pub fn result_xml(header: &XmlHeader<'_>, results: &[&RunResult]) -> String {
    let version = env!("CARGO_PKG_VERSION");
    let rd = header.run_definition;
    let mut out = String::new();
    out.push_str("<?xml version=\"1.0\" ?>\n");
    out.push_str("<!DOCTYPE result PUBLIC \"+//IDN sosy-lab.org//DTD BenchExec result 3.0//EN\" \"https://www.sosy-lab.org/benchexec/result-3.0.dtd\">\n");
    let mut attrs = format!(
        "benchmarkname=\"{}\" name=\"{}\" date=\"{}\" starttime=\"{}\" generator=\"Baton {version}\" tool=\"Baton\" toolmodule=\"benchexec.tools.baton\" version=\"{version}\" options=\"{}\" timelimit=\"{}s\" hardtimelimit=\"{}s\"",
        escape(header.benchmark),
        escape(rd.name.as_str()),
        benchexec_date(header.started),
        iso_time(header.started),
        escape(rd.args.join(" ").as_str()),
        header.limits.cpu_time.as_secs_f64(),
        header.limits.hard_cpu_time.as_secs_f64(),
    );
    if let Some(m) = header.limits.memory {
        let _ = write!(attrs, " memlimit=\"{m}B\"");
    }
    if let Some(w) = header.limits.wall_time {
        let _ = write!(attrs, " walltimelimit=\"{}s\"", w.as_secs_f64());
    }
    if let Some(c) = header.limits.cpu_cores {
        let _ = write!(attrs, " cpuCores=\"{c}\"");
    }
    let _ = writeln!(out, "<result {attrs}>");
    out.push_str("  <columns>\n    <column title=\"status\"/>\n    <column title=\"cputime\"/>\n    <column title=\"walltime\"/>\n    <column title=\"memory\"/>\n  </columns>\n");
    out.push_str(&systeminfo());
    for r in results {
        let expected = match r.expected {
            Some(e) => format!(" expectedVerdict=\"{e}\""),
            None => String::new(),
        };
        let mut log = match &r.log {
            Some(l) => format!(
                " logfile=\"{}\"",
                escape(logzip::archived_log(header.benchmark, &rd.name, l).as_str())
            ),
            None => String::new(),
        };
        // Not in BenchExec's DTD; table-generator ignores it, `baton table` links it.
        if let Some(w) = &r.witness {
            let _ = write!(log, " witness=\"{}\"", escape(w.as_str()));
        }
        // Without `propertyFile` table-generator looks the property up in the task definition,
        // which fails for format-1.x definitions, and scores nothing.
        let property = match &r.property_file {
            Some(p) => format!(" propertyFile=\"{}\"", escape(p.as_str())),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "  <run name=\"{}\" files=\"[{}]\" properties=\"unreach-call\"{property}{expected}{log}>",
            escape(r.task.as_str()),
            escape(r.task.as_str())
        );
        let mut col = |title: &str, value: String, hidden: bool| {
            let h = if hidden { " hidden=\"true\"" } else { "" };
            let _ = writeln!(
                out,
                "    <column{h} title=\"{title}\" value=\"{}\"/>",
                escape(value.as_str())
            );
        };
        col("category", r.category.as_str().to_string(), true);
        col("cputime", format!("{:.6}s", r.cpu_time_s), false);
        if let Some(m) = r.memory_bytes {
            col("memory", format!("{m}B"), false);
        }
        col("score", r.score.to_string(), true);
        col("starttime", r.started.clone(), true);
        col("status", r.status.clone(), false);
        col("walltime", format!("{:.6}s", r.wall_time_s), false);
        if let Some(n) = r.reached_states {
            col("states", n.to_string(), false);
        }
        if let Some(i) = &r.incremental {
            col("new states", i.new_states.to_string(), false);
            col("reused nodes", i.reused_nodes.to_string(), false);
            col("old nodes", i.old_nodes.to_string(), false);
            col("frontier", i.frontier.to_string(), true);
        }
        if let Some(p) = &r.sequence {
            col("sequence", format!("{}#{}", p.name, p.index), true);
        }
        out.push_str("  </run>\n");
    }
    out.push_str("</result>\n");
    out
}

/// Header line of the CSV file.
pub const CSV_HEADER: &str =
    "task,run_definition,expected,verdict,status,category,score,cpu_s,wall_s,memory_B,sequence,sequence_index,states,new_states,reused_nodes,old_nodes";

/// Quotes a CSV field when it needs it.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The CSV of results, one line per run.
pub fn results_csv(results: &[&RunResult]) -> String {
    fn opt<T: ToString>(v: Option<T>) -> String {
        v.map(|v| v.to_string()).unwrap_or_default()
    }
    let mut out = format!("{CSV_HEADER}\n");
    for r in results {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{:.3},{:.3},{},{},{},{},{},{},{}",
            csv_field(&r.task),
            csv_field(&r.run_definition),
            r.expected.map(|e| e.to_string()).unwrap_or_default(),
            csv_field(&r.verdict),
            csv_field(&r.status),
            r.category.as_str(),
            r.score,
            r.cpu_time_s,
            r.wall_time_s,
            r.memory_bytes.map(|m| m.to_string()).unwrap_or_default(),
            csv_field(r.sequence.as_ref().map_or("", |p| p.name.as_str())),
            opt(r.sequence.as_ref().map(|p| p.index)),
            opt(r.reached_states),
            opt(r.incremental.map(|i| i.new_states)),
            opt(r.incremental.map(|i| i.reused_nodes)),
            opt(r.incremental.map(|i| i.old_nodes)),
        );
    }
    out
}

/// Counts of one run definition's results.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Counts {
    pub correct_true: usize,
    pub correct_false: usize,
    pub wrong_true: usize,
    pub wrong_false: usize,
    /// `unknown` answers and definite answers without an expected verdict.
    pub unknown: usize,
    /// Timeouts, out of memory, crashes.
    pub error: usize,
    pub score: i64,
    pub cpu_time_s: f64,
}

impl Counts {
    /// Counts a list of results.
    pub fn of<'a>(results: impl IntoIterator<Item = &'a RunResult>) -> Counts {
        let mut c = Counts::default();
        for r in results {
            let v = r.verdict();
            match r.category {
                Category::Correct if v == Verdict::True => c.correct_true += 1,
                Category::Correct => c.correct_false += 1,
                Category::Wrong if v == Verdict::True => c.wrong_true += 1,
                Category::Wrong => c.wrong_false += 1,
                Category::Unknown | Category::Missing => c.unknown += 1,
                Category::Error => c.error += 1,
            }
            c.score += i64::from(r.score);
            c.cpu_time_s += r.cpu_time_s;
        }
        c
    }

    /// Correct results.
    pub fn correct(&self) -> usize {
        self.correct_true + self.correct_false
    }

    /// Wrong results.
    pub fn wrong(&self) -> usize {
        self.wrong_true + self.wrong_false
    }
}

/// The final summary: one line per run definition, then every wrong answer, loudly.
pub fn summary_text(rows: &[(String, Vec<&RunResult>)]) -> String {
    let width = rows
        .iter()
        .map(|(n, _)| n.len())
        .max()
        .unwrap_or(0)
        .max("run definition".len());
    let mut out = format!(
        "{:<width$}  {:>5}  {:>12}  {:>13}  {:>10}  {:>11}  {:>7}  {:>6}  {:>6}  {:>10}\n",
        "run definition",
        "runs",
        "correct true",
        "correct false",
        "wrong true",
        "wrong false",
        "unknown",
        "errors",
        "score",
        "cpu time"
    );
    let mut wrong = Vec::new();
    for (name, results) in rows {
        let c = Counts::of(results.iter().copied());
        let _ = writeln!(
            out,
            "{name:<width$}  {:>5}  {:>12}  {:>13}  {:>10}  {:>11}  {:>7}  {:>6}  {:>6}  {:>9.1}s",
            results.len(),
            c.correct_true,
            c.correct_false,
            c.wrong_true,
            c.wrong_false,
            c.unknown,
            c.error,
            c.score,
            c.cpu_time_s
        );
        wrong.extend(
            results
                .iter()
                .filter(|r| r.category == Category::Wrong)
                .map(|r| (name, *r)),
        );
    }
    if !wrong.is_empty() {
        let _ = writeln!(out, "\n!!! {} WRONG RESULT(S) !!!", wrong.len());
        for (name, r) in wrong {
            let _ = writeln!(
                out,
                "!!! WRONG: {name}: {} expected {} but got {} ({})",
                r.task,
                r.expected.map(|e| e.to_string()).unwrap_or_default(),
                r.verdict,
                r.reason.as_deref().unwrap_or("")
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_verdicts() {
        let t = UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        assert_eq!(iso_time(t), "2023-11-14T22:13:20+00:00");
        assert_eq!(benchexec_date(UNIX_EPOCH), "1970-01-01 00:00:00 UTC");
        assert_eq!(parse_verdict("false(unreach-call)"), Verdict::False);
        assert_eq!(parse_verdict("TIMEOUT"), Verdict::Unknown);
        assert_eq!(short_task_name("/a/b/c.yml"), "b/c.yml");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
    }
}
