//! Comparing run definitions over the same tasks: a text table and a self-contained HTML report
//! (results table, SV-COMP scores, quantile plot and scatter plot as inline SVG).

use super::parse_xml;
use super::report::{self, parse_verdict, Category, Counts, RunResult, SequencePosition};
use super::runner::{read_jsonl, RESULTS_JSONL};
use super::{plots, BenchError};
use crate::analyses::incremental::ReuseStats;
use crate::xml::Element;
use quick_xml::escape::escape;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

/// Facts about where results come from (name, value), e.g. `("host", "node1")`.
pub type Provenance = Vec<(String, String)>;

/// One column of a comparison: a run definition's results.
#[derive(Debug, Clone)]
pub struct Column {
    /// Run definition name (prefixed by its source when names repeat).
    pub label: String,
    pub results: Vec<RunResult>,
    /// Where the results come from: limits, host, versions, options, date (name, value).
    pub provenance: Provenance,
}

/// Largest result file read (decompressed): a few hundred thousand runs.
const MAX_RESULT_BYTES: u64 = 256 << 20;

/// Reads a result file whole, decompressing `.bz2` and `.gz` (BenchExec writes `.xml.bz2`).
fn read_maybe_compressed(path: &Path) -> Result<String, BenchError> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| BenchError::io(path, "cannot read result file", e))?;
    let limit = MAX_RESULT_BYTES;
    let mut reader: Box<dyn Read> = match path.extension().and_then(|e| e.to_str()) {
        Some("bz2") => Box::new(bzip2::read::BzDecoder::new(file)),
        Some("gz") => Box::new(flate2::read::GzDecoder::new(file)),
        _ => Box::new(file),
    };
    let mut bytes = Vec::new();
    (&mut reader)
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| BenchError::io(path, "cannot read (or decompress) result file", e))?;
    if bytes.len() as u64 > limit {
        return Err(BenchError::Invalid(format!(
            "{}: larger than {limit} bytes",
            path.display()
        )));
    }
    String::from_utf8(bytes).map_err(|e| BenchError::Invalid(format!("{}: not UTF-8: {e}", path.display())))
}

/// Whether a path names a result XML file (`.xml`, `.xml.bz2`, `.xml.gz`).
fn is_result_xml(path: &Path) -> bool {
    let name = path.to_string_lossy();
    [".xml", ".xml.bz2", ".xml.gz"].iter().any(|e| name.ends_with(e))
}

/// A task path of a result file made comparable across files: relative names (BenchExec's)
/// resolved against the result file's folder, then canonical where the file exists.
fn resolve_task(name: &str, base: &Path) -> String {
    let p = base.join(name);
    match p.canonicalize() {
        Ok(c) => c.display().to_string(),
        Err(_) => {
            // Lexical normalisation of `.` and `..` for tasks that are not on this machine.
            let mut out = PathBuf::new();
            for c in p.components() {
                match c {
                    Component::ParentDir if out.file_name().is_some() => {
                        out.pop();
                    }
                    Component::CurDir => {}
                    c => out.push(c),
                }
            }
            out.display().to_string()
        }
    }
}

/// Provenance of results from `results.jsonl`: the first run's host, version, options,
/// limits and start.
fn provenance_of_results(results: &[RunResult]) -> Provenance {
    let mut out = Vec::new();
    let Some(first) = results.iter().min_by(|a, b| a.started.cmp(&b.started)) else {
        return out;
    };
    out.push(("date".into(), first.started.clone()));
    if let Some(h) = &first.host {
        out.push(("host".into(), h.clone()));
    }
    if let Some(v) = &first.version {
        out.push(("tool".into(), format!("Baton {v}")));
    }
    out.push(("options".into(), first.args.join(" ")));
    out.push(("limits".into(), first.limits.clone()));
    out
}

/// Reads results from output directories (their `results.jsonl`), `.jsonl` files or BenchExec
/// result XML files (`.xml`, `.xml.bz2`, `.xml.gz`); one column per run definition and source.
/// Tasks are joined by their resolved path, so BenchExec's and Baton's results of a task share
/// a row.
pub fn load_results(sources: &[impl AsRef<Path>]) -> Result<Vec<Column>, BenchError> {
    let mut columns: Vec<(String, Column)> = Vec::new();
    for source in sources {
        let source = source.as_ref();
        let origin = source
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| source.display().to_string());
        let (results, provenance) = if source.is_dir() {
            let path = source.join(RESULTS_JSONL);
            if !path.is_file() {
                return Err(BenchError::Invalid(format!(
                    "{}: no {RESULTS_JSONL} in this directory",
                    source.display()
                )));
            }
            (read_jsonl(&path)?.0, None)
        } else if is_result_xml(source) {
            let (results, provenance) = read_result_xml(source)?;
            (results, Some(provenance))
        } else if source.is_file() {
            (read_jsonl(source)?.0, None)
        } else {
            return Err(BenchError::Invalid(format!(
                "{}: no such file or directory",
                source.display()
            )));
        };
        // Witness files are named relative to the output directory or the result file.
        let base = if source.is_dir() {
            source
        } else {
            source.parent().unwrap_or(Path::new("."))
        };
        // Later results of the same run replace earlier ones (as on resume).
        let mut per_rd: Vec<(String, Vec<RunResult>)> = Vec::new();
        for mut r in results {
            r.witness = r.witness.map(|w| resolve_task(&w, base));
            let idx = match per_rd.iter().position(|(n, _)| *n == r.run_definition) {
                Some(i) => i,
                None => {
                    per_rd.push((r.run_definition.clone(), Vec::new()));
                    per_rd.len() - 1
                }
            };
            let list = &mut per_rd[idx].1;
            match list.iter().position(|x| x.task == r.task) {
                Some(j) => list[j] = r,
                None => list.push(r),
            }
        }
        for (name, results) in per_rd {
            let provenance = provenance
                .clone()
                .unwrap_or_else(|| provenance_of_results(&results));
            columns.push((
                origin.clone(),
                Column {
                    label: name,
                    results,
                    provenance,
                },
            ));
        }
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (_, c) in &columns {
        *seen.entry(c.label.clone()).or_default() += 1;
    }
    Ok(columns
        .into_iter()
        .map(|(origin, mut c)| {
            if seen.get(&c.label).copied().unwrap_or(0) > 1 {
                c.label = format!("{origin}:{}", c.label);
            }
            c
        })
        .collect())
}

/// Keeps only the tasks every column has (`--common`).
pub fn keep_common_tasks(columns: &mut [Column]) {
    let common: std::collections::HashSet<String> = all_tasks(columns)
        .into_iter()
        .filter(|t| columns.iter().all(|c| c.results.iter().any(|r| &r.task == t)))
        .collect();
    for c in columns {
        c.results.retain(|r| common.contains(&r.task));
    }
}

/// The provenance in a result XML's `<result>` and `<systeminfo>`.
fn provenance_of_xml(root: &Element) -> Provenance {
    let mut out = Vec::new();
    let mut put = |k: &str, v: Option<&str>| {
        if let Some(v) = v.filter(|v| !v.is_empty()) {
            out.push((k.to_string(), v.to_string()));
        }
    };
    put("date", root.attr("date"));
    let sys = root.children_named("systeminfo").next();
    put("host", sys.and_then(|s| s.attr("hostname")));
    let cpu = sys.and_then(|s| s.children_named("cpu").next());
    put("cpu", cpu.and_then(|c| c.attr("model")));
    let tool = match (root.attr("tool"), root.attr("version")) {
        (Some(t), Some(v)) => Some(format!("{t} {v}")),
        (t, _) => t.map(str::to_string),
    };
    put("tool", tool.as_deref());
    put("generator", root.attr("generator"));
    put("options", root.attr("options"));
    let limits: Vec<String> = [
        "timelimit",
        "hardtimelimit",
        "walltimelimit",
        "memlimit",
        "cpuCores",
    ]
    .iter()
    .filter_map(|k| root.attr(k).map(|v| format!("{k}={v}")))
    .collect();
    put("limits", Some(limits.join(" ").as_str()));
    out
}

/// Reads a BenchExec result XML (ours or BenchExec's own, maybe compressed) and its provenance.
fn read_result_xml(path: &Path) -> Result<(Vec<RunResult>, Provenance), BenchError> {
    let text = read_maybe_compressed(path)?;
    let file = path.display().to_string();
    let root = parse_xml(&text, &file, "result")?;
    let base = path.parent().unwrap_or(Path::new("."));
    let rd_name = root
        .attr("name")
        .or(root.attr("benchmarkname"))
        .unwrap_or("results")
        .to_string();
    let seconds = |v: &str| v.trim().trim_end_matches('s').parse::<f64>().unwrap_or(0.0);
    let mut out = Vec::new();
    for run in root.children.iter().filter(|c| c.name == "run") {
        let Some(task) = run.attr("name") else {
            return Err(BenchError::Malformed {
                file,
                line: run.line,
                message: "<run> without attribute `name`".into(),
            });
        };
        let col = |title: &str| {
            run.children
                .iter()
                .find(|c| c.name == "column" && c.attr("title") == Some(title))
                .and_then(|c| c.attr("value"))
        };
        let expected = match run.attr("expectedVerdict") {
            Some("true") => Some(true),
            Some(v) if v.starts_with("false") => Some(false),
            _ => None,
        };
        let status = col("status").unwrap_or("").to_string();
        let verdict = parse_verdict(&status);
        let category = match col("category") {
            Some(c) if c.starts_with("correct") => Category::Correct,
            Some("wrong") => Category::Wrong,
            Some("unknown") => Category::Unknown,
            Some("missing") => Category::Missing,
            Some(_) => Category::Error,
            None => match verdict.classify(expected) {
                crate::verdict::Classification::Correct => Category::Correct,
                crate::verdict::Classification::Wrong => Category::Wrong,
                crate::verdict::Classification::Unknown => Category::Unknown,
            },
        };
        let score = if matches!(category, Category::Correct | Category::Wrong) {
            verdict.score(expected)
        } else {
            0
        };
        out.push(RunResult {
            run_definition: rd_name.clone(),
            args: Vec::new(),
            limits: String::new(),
            task: resolve_task(task, base),
            expected,
            verdict: verdict.benchexec().to_string(),
            status,
            category,
            score,
            cpu_time_s: col("cputime").map(seconds).unwrap_or(0.0),
            wall_time_s: col("walltime").map(seconds).unwrap_or(0.0),
            memory_bytes: col("memory").and_then(|m| m.trim_end_matches('B').parse().ok()),
            reason: None,
            started: col("starttime").unwrap_or("").to_string(),
            log: run.attr("logfile").map(str::to_string),
            witness: run.attr("witness").map(str::to_string),
            property_file: run.attr("propertyFile").map(|p| resolve_task(p, base)),
            host: None,
            version: None,
            sequence: col("sequence").and_then(|s| {
                let (name, index) = s.rsplit_once('#')?;
                let index = index.parse().ok()?;
                Some(SequencePosition {
                    name: name.to_string(),
                    index,
                })
            }),
            reached_states: col("states").and_then(|n| n.parse().ok()),
            incremental: reuse_of(&col),
        });
    }
    Ok((out, provenance_of_xml(&root)))
}

/// The proof reuse of an incremental run from its result XML columns.
fn reuse_of<'a>(col: &impl Fn(&str) -> Option<&'a str>) -> Option<ReuseStats> {
    let number = |title: &str| col(title).and_then(|v| v.parse().ok());
    Some(ReuseStats {
        new_states: number("new states")?,
        reused_nodes: number("reused nodes")?,
        old_nodes: number("old nodes")?,
        frontier: number("frontier")?,
    })
}

/// Tasks of all columns, in order of first appearance.
fn all_tasks(columns: &[Column]) -> Vec<String> {
    let mut tasks: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for c in columns {
        for r in &c.results {
            if seen.insert(r.task.clone()) {
                tasks.push(r.task.clone());
            }
        }
    }
    tasks
}

/// Results by task, per column.
fn by_task(columns: &[Column]) -> Vec<HashMap<&str, &RunResult>> {
    columns
        .iter()
        .map(|c| c.results.iter().map(|r| (r.task.as_str(), r)).collect())
        .collect()
}

/// Cell text: status and CPU time, `!` before wrong results.
fn cell(r: Option<&&RunResult>) -> String {
    match r {
        None => "-".to_string(),
        Some(r) => format!(
            "{}{} {:.2}s",
            if r.category == Category::Wrong { "!" } else { "" },
            r.status,
            r.cpu_time_s
        ),
    }
}

/// The text table: task × column with status and CPU time (`!` marks wrong results), then the
/// summary per column.
pub fn render_text(columns: &[Column]) -> String {
    let tasks = all_tasks(columns);
    let maps = by_task(columns);
    let mut rows: Vec<Vec<String>> = vec![std::iter::once("task".to_string())
        .chain(std::iter::once("expected".to_string()))
        .chain(columns.iter().map(|c| c.label.clone()))
        .collect()];
    for t in &tasks {
        let expected = maps
            .iter()
            .find_map(|m| m.get(t.as_str()))
            .and_then(|r| r.expected)
            .map(|e| e.to_string())
            .unwrap_or_default();
        let mut row = vec![report::short_task_name(t), expected];
        row.extend(maps.iter().map(|m| cell(m.get(t.as_str()))));
        rows.push(row);
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &rows {
        let line: Vec<String> = row.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
    out.push('\n');
    let summary_rows: Vec<(String, Vec<&RunResult>)> = columns
        .iter()
        .map(|c| (c.label.clone(), c.results.iter().collect()))
        .collect();
    out.push_str(&report::summary_text(&summary_rows));
    out
}

/// The scatter plots to draw: the chosen pairs of column labels (`--scatter A,B`), checked
/// against the columns; without a choice the first two columns.
pub fn scatter_pairs(columns: &[Column], chosen: &[String]) -> Result<Vec<(usize, usize)>, BenchError> {
    let find = |label: &str| {
        columns.iter().position(|c| c.label == label).ok_or_else(|| {
            let known: Vec<&str> = columns.iter().map(|c| c.label.as_str()).collect();
            BenchError::Invalid(format!(
                "--scatter: no column `{label}` (columns: {})",
                known.join(", ")
            ))
        })
    };
    let mut pairs = Vec::new();
    for text in chosen {
        let Some((a, b)) = text.split_once(',') else {
            return Err(BenchError::Invalid(format!(
                "--scatter `{text}`: expected X,Y (two column labels)"
            )));
        };
        pairs.push((find(a.trim())?, find(b.trim())?));
    }
    if chosen.is_empty() && columns.len() >= 2 {
        pairs.push((0, 1));
    }
    Ok(pairs)
}

/// The provenance block: one column per run set, one row per kind of fact.
fn provenance_html(columns: &[Column]) -> String {
    let mut keys: Vec<&str> = Vec::new();
    for c in columns {
        for (k, _) in &c.provenance {
            if !keys.contains(&k.as_str()) {
                keys.push(k);
            }
        }
    }
    let mut h = String::from("<section id=\"provenance\">\n<h2>Provenance</h2>\n<table><tr><th></th>");
    for c in columns {
        let _ = write!(h, "<th>{}</th>", escape(c.label.as_str()));
    }
    h.push_str("</tr>\n");
    for k in keys {
        let _ = write!(h, "<tr><th>{}</th>", escape(k));
        for c in columns {
            let v = c
                .provenance
                .iter()
                .find(|(x, _)| x == k)
                .map(|(_, v)| v.as_str())
                .unwrap_or("");
            let _ = write!(h, "<td>{}</td>", escape(v));
        }
        h.push_str("</tr>\n");
    }
    let _ = writeln!(
        h,
        "</table>\n<p>Report written by Baton {} on {} at {}.</p>\n</section>",
        env!("CARGO_PKG_VERSION"),
        escape(report::hostname().as_str()),
        report::benchexec_date(std::time::SystemTime::now())
    );
    h
}

/// The self-contained HTML report: provenance, scores, quantile and score-based quantile plots,
/// a scatter plot per chosen pair ([`scatter_pairs`]) and the results table.
pub fn render_html(columns: &[Column], pairs: &[(usize, usize)]) -> String {
    let mut h = String::from("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Baton results</title>\n<style>\nbody{font-family:sans-serif;margin:1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;font-size:12px}td.num{text-align:right}.correct{background:#d9f2d9}.wrong{background:#f4a6a6;font-weight:bold}.unknown{background:#eee}.error{background:#fde7c7}.missing{background:#e6e6fa}\n</style></head><body>\n<h1>Baton results</h1>\n");
    h.push_str(&provenance_html(columns));
    h.push_str("<h2>Summary</h2>\n<table><tr><th>run definition</th><th>runs</th><th>correct true</th><th>correct false</th><th>wrong true</th><th>wrong false</th><th>unknown</th><th>errors</th><th>SV-COMP score</th><th>CPU time (s)</th></tr>\n");
    for c in columns {
        let k = Counts::of(&c.results);
        let _ = writeln!(h, "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\"><b>{}</b></td><td class=\"num\">{:.1}</td></tr>",
            escape(c.label.as_str()), c.results.len(), k.correct_true, k.correct_false, k.wrong_true, k.wrong_false, k.unknown, k.error, k.score, k.cpu_time_s);
    }
    h.push_str("</table>\n<h2>Quantile plot</h2>\n");
    h.push_str(&plots::quantile_svg(columns));
    h.push_str("<h2>Score-based quantile plot</h2>\n");
    h.push_str(&plots::score_quantile_svg(columns));
    for (n, &(a, b)) in pairs.iter().enumerate() {
        let (Some(ca), Some(cb)) = (columns.get(a), columns.get(b)) else {
            continue;
        };
        let _ = writeln!(
            h,
            "<h2>Scatter plot: {} vs. {}</h2>",
            escape(ca.label.as_str()),
            escape(cb.label.as_str())
        );
        h.push_str(&plots::scatter_svg(ca, cb, &format!("scatter-{}", n + 1)));
    }
    h.push_str("<h2>Results</h2>\n<table><tr><th>task</th><th>expected</th>");
    for c in columns {
        let _ = write!(h, "<th>{}</th><th>CPU (s)</th>", escape(c.label.as_str()));
    }
    h.push_str("</tr>\n");
    let maps = by_task(columns);
    for t in all_tasks(columns) {
        let expected = maps
            .iter()
            .find_map(|m| m.get(t.as_str()))
            .and_then(|r| r.expected)
            .map(|e| e.to_string())
            .unwrap_or_default();
        let _ = write!(
            h,
            "<tr><td title=\"{}\">{}</td><td>{expected}</td>",
            escape(t.as_str()),
            escape(report::short_task_name(&t).as_str())
        );
        for m in &maps {
            match m.get(t.as_str()) {
                Some(r) => {
                    let witness = r.witness.as_ref().map_or(String::new(), |w| {
                        format!(" <a href=\"{}\">witness</a>", escape(w.as_str()))
                    });
                    let _ = write!(
                        h,
                        "<td class=\"{}\">{}{witness}</td><td class=\"num\">{:.2}</td>",
                        r.category.as_str(),
                        escape(r.status.as_str()),
                        r.cpu_time_s
                    );
                }
                None => h.push_str("<td></td><td></td>"),
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n</body></html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(task: &str, status: &str, category: Category, score: i32, cpu: f64) -> RunResult {
        RunResult {
            task: task.into(),
            expected: Some(true),
            verdict: status.into(),
            status: status.into(),
            category,
            score,
            cpu_time_s: cpu,
            wall_time_s: cpu,
            ..RunResult::default()
        }
    }

    fn column(label: &str, results: Vec<RunResult>) -> Column {
        Column {
            label: label.into(),
            results,
            provenance: vec![("host".into(), format!("host-of-{label}"))],
        }
    }

    #[test]
    fn html_report_has_provenance_chosen_scatter_plots_and_legends() {
        let a = column(
            "a",
            vec![
                result("/t/x.yml", "true", Category::Correct, 2, 1.0),
                result("/t/y.yml", "false(unreach-call)", Category::Wrong, -16, 0.5),
                result("/t/z.yml", "true", Category::Correct, 2, 3.0),
            ],
        );
        let b = column(
            "b",
            vec![
                result("/t/x.yml", "true", Category::Correct, 2, 2.0),
                result("/t/y.yml", "TIMEOUT", Category::Error, 0, 60.0),
            ],
        );
        let c = column(
            "c",
            vec![result("/t/x.yml", "unknown", Category::Unknown, 0, 1.0)],
        );
        let mut columns = vec![a, b, c];
        let pairs = scatter_pairs(&columns, &["c,b".to_string()]).unwrap();
        assert_eq!(pairs, vec![(2, 1)]);
        assert!(scatter_pairs(&columns, &["a,nope".to_string()]).is_err());
        assert_eq!(scatter_pairs(&columns, &[]).unwrap(), vec![(0, 1)]);
        let html = render_html(&columns, &scatter_pairs(&columns, &["a,b".into()]).unwrap());
        assert!(html.contains("<section id=\"provenance\">"), "{html}");
        assert!(html.contains("host-of-b"));
        assert!(html.contains("id=\"score-quantile\""));
        assert!(html.contains("id=\"scatter-1\""));
        assert!(html.contains("Scatter plot: a vs. b"));
        // Legends: one per plot; the scatter plot's names the wrong result and the timeout.
        assert_eq!(html.matches("class=\"legend\"").count(), 3);
        assert!(html.contains("a wrong result") && html.contains("both correct"));
        assert!(!html.contains("a timeout"), "the timeout pair has a wrong result");
        // The score-based quantile plot of `a` starts at -16 and ends at -12.
        assert_eq!(
            plots::score_quantile_points(&columns[0]),
            vec![(-14.0, 1.0), (-12.0, 3.0)]
        );
        keep_common_tasks(&mut columns);
        assert!(columns.iter().all(|c| c.results.len() == 1));
    }

    #[test]
    fn task_names_of_result_files_resolve_against_their_folder() {
        assert_eq!(
            resolve_task("../c/x.yml", Path::new("/nowhere/out")),
            "/nowhere/c/x.yml"
        );
        assert!(is_result_xml(Path::new("r.results.a.xml.bz2")));
        assert!(!is_result_xml(Path::new("results.jsonl")));
    }

    #[test]
    fn reads_compressed_result_files_and_joins_their_tasks() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("out")).unwrap();
        std::fs::write(d.join("x.yml"), "").unwrap();
        let xml = |name: &str, task: &str| {
            format!("<?xml version=\"1.0\"?>\n<result name=\"{name}\" tool=\"T\" version=\"1\" timelimit=\"60s\">\n<systeminfo hostname=\"h\"/>\n<run name=\"{task}\" expectedVerdict=\"true\" properties=\"unreach-call\">\n<column title=\"status\" value=\"true\"/><column title=\"category\" value=\"correct\"/><column title=\"cputime\" value=\"1.5s\"/>\n</run>\n</result>\n")
        };
        let bz = d.join("out/a.xml.bz2");
        let mut e =
            bzip2::write::BzEncoder::new(std::fs::File::create(&bz).unwrap(), bzip2::Compression::fast());
        e.write_all(xml("a", "../x.yml").as_bytes()).unwrap();
        e.finish().unwrap();
        let gz = d.join("out/b.xml.gz");
        let mut e =
            flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), flate2::Compression::fast());
        e.write_all(xml("b", "x.yml").as_bytes()).unwrap();
        e.finish().unwrap();
        let plain = d.join("c.xml");
        std::fs::write(&plain, xml("c", d.join("x.yml").to_str().unwrap())).unwrap();
        let columns = load_results(&[bz, gz, plain]).unwrap();
        assert_eq!(columns.len(), 3);
        let tasks: Vec<&str> = columns.iter().map(|c| c.results[0].task.as_str()).collect();
        assert_eq!(
            tasks[0], tasks[2],
            "relative names resolve against the result file"
        );
        assert_ne!(tasks[1], tasks[0], "out/x.yml is another task");
        assert_eq!(all_tasks(&columns).len(), 2);
        assert!(columns[0]
            .provenance
            .contains(&("limits".into(), "timelimit=60s".into())));
        assert_eq!(columns[0].results[0].score, 2);
        let bad = d.join("bad.xml.bz2");
        std::fs::write(&bad, "not bzip2").unwrap();
        let e = load_results(&[bad]).unwrap_err().to_string();
        assert!(e.contains("bad.xml.bz2"), "{e}");
    }
}
