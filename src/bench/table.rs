//! Comparing run definitions over the same tasks: a text table and a self-contained HTML report
//! (results table, SV-COMP scores, quantile plot and scatter plot as inline SVG).

use super::inputs::parse_xml;
use super::report::{self, parse_verdict, Category, Counts, RunResult};
use super::runner::{read_jsonl, RESULTS_JSONL};
use super::BenchError;
use quick_xml::escape::escape;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// One column of a comparison: a run definition's results.
#[derive(Debug, Clone)]
pub struct Column {
    /// Run definition name (prefixed by its source when names repeat).
    pub label: String,
    pub results: Vec<RunResult>,
}

/// Reads results from output directories (their `results.jsonl`), `.jsonl` files or BenchExec
/// result XML files; one column per run definition and source.
pub fn load_results(sources: &[impl AsRef<Path>]) -> Result<Vec<Column>, BenchError> {
    let mut columns: Vec<(String, Column)> = Vec::new();
    for source in sources {
        let source = source.as_ref();
        let origin = source
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| source.display().to_string());
        let results = if source.is_dir() {
            let path = source.join(RESULTS_JSONL);
            if !path.is_file() {
                return Err(BenchError::Invalid(format!(
                    "{}: no {RESULTS_JSONL} in this directory",
                    source.display()
                )));
            }
            read_jsonl(&path)?.0
        } else if source.extension().is_some_and(|e| e == "xml") {
            read_result_xml(source)?
        } else if source.is_file() {
            read_jsonl(source)?.0
        } else {
            return Err(BenchError::Invalid(format!(
                "{}: no such file or directory",
                source.display()
            )));
        };
        // Later results of the same run replace earlier ones (as on resume).
        let mut per_rd: Vec<(String, Vec<RunResult>)> = Vec::new();
        for r in results {
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
            columns.push((origin.clone(), Column { label: name, results }));
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

/// Reads a BenchExec result XML (ours or BenchExec's own).
fn read_result_xml(path: &Path) -> Result<Vec<RunResult>, BenchError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| BenchError::io(path, "cannot read result file", e))?;
    let file = path.display().to_string();
    let root = parse_xml(&text, &file, "result")?;
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
            task: task.to_string(),
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
        });
    }
    Ok(out)
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

const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// A logarithmic axis from `lo` to `hi` seconds onto `[p0, p1]` pixels.
struct LogAxis {
    lo: f64,
    hi: f64,
    p0: f64,
    p1: f64,
}

impl LogAxis {
    /// An axis covering `values` (at least 0.01 s, at least one decade).
    fn covering(values: impl Iterator<Item = f64>, p0: f64, p1: f64) -> LogAxis {
        let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
        for v in values {
            let v = v.max(0.01);
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if !lo.is_finite() {
            lo = 0.01;
            hi = 1.0;
        }
        let lo = 10f64.powf(lo.log10().floor());
        let hi = 10f64.powf(hi.log10().ceil()).max(lo * 10.0);
        LogAxis { lo, hi, p0, p1 }
    }

    fn pos(&self, v: f64) -> f64 {
        let f = (v.max(self.lo).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10());
        self.p0 + f * (self.p1 - self.p0)
    }

    /// Decade ticks with labels.
    fn ticks(&self) -> Vec<(f64, String)> {
        let mut out = Vec::new();
        let mut e = self.lo.log10().round() as i32;
        while 10f64.powi(e) <= self.hi * 1.0001 {
            let v = 10f64.powi(e);
            let label = if e >= 0 { format!("{v:.0}") } else { format!("{v}") };
            out.push((v, label));
            e += 1;
        }
        out
    }
}

/// Quantile plot: per column, the CPU times of its correct results sorted; x = n-th result.
fn quantile_svg(columns: &[Column]) -> String {
    let (w, h, left, bottom, top, right) = (640.0, 400.0, 60.0, 350.0, 20.0, 620.0);
    let series: Vec<Vec<f64>> = columns
        .iter()
        .map(|c| {
            let mut v: Vec<f64> = c
                .results
                .iter()
                .filter(|r| r.category == Category::Correct)
                .map(|r| r.cpu_time_s)
                .collect();
            v.sort_by(f64::total_cmp);
            v
        })
        .collect();
    let n_max = series.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let y = LogAxis::covering(series.iter().flatten().copied(), bottom, top);
    let x = |i: usize| left + (right - left) * i as f64 / n_max as f64;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-size=\"11\">\n"
    );
    let _ = writeln!(
        svg,
        "<rect x=\"{left}\" y=\"{top}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>",
        right - left,
        bottom - top
    );
    for (v, label) in y.ticks() {
        let py = y.pos(v);
        let _ = writeln!(svg, "<line x1=\"{left}\" x2=\"{right}\" y1=\"{py:.1}\" y2=\"{py:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>", left - 4.0, py + 4.0);
    }
    let step = (n_max / 10).max(1);
    for i in (0..=n_max).step_by(step) {
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{i}</text>",
            x(i),
            bottom + 15.0
        );
    }
    let _ = writeln!(svg, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">n-th fastest correct result</text><text x=\"14\" y=\"{}\" transform=\"rotate(-90 14 {})\" text-anchor=\"middle\">CPU time (s)</text>", (left + right) / 2.0, h - 8.0, (top + bottom) / 2.0, (top + bottom) / 2.0);
    for (k, (c, s)) in columns.iter().zip(&series).enumerate() {
        let color = COLORS[k % COLORS.len()];
        let points: Vec<String> = s
            .iter()
            .enumerate()
            .map(|(i, v)| format!("{:.1},{:.1}", x(i + 1), y.pos(*v)))
            .collect();
        for p in &points {
            if let Some((px, py)) = p.split_once(',') {
                let _ = writeln!(
                    svg,
                    "<circle cx=\"{px}\" cy=\"{py}\" r=\"2.5\" fill=\"{color}\"/>"
                );
            }
        }
        if !points.is_empty() {
            let _ = writeln!(
                svg,
                "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"/>",
                points.join(" ")
            );
        }
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" fill=\"{color}\">{} ({})</text>",
            left + 8.0,
            top + 14.0 * (k as f64 + 1.0),
            escape(c.label.as_str()),
            s.len()
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// Scatter plot of CPU times of two columns over their common tasks (log–log, diagonal).
fn scatter_svg(a: &Column, b: &Column) -> String {
    let (size, margin) = (420.0, 60.0);
    let end = size - 20.0;
    let bmap: HashMap<&str, &RunResult> = b.results.iter().map(|r| (r.task.as_str(), r)).collect();
    let pairs: Vec<(&RunResult, &RunResult)> = a
        .results
        .iter()
        .filter_map(|ra| bmap.get(ra.task.as_str()).map(|rb| (ra, *rb)))
        .collect();
    let values = pairs.iter().flat_map(|(x, y)| [x.cpu_time_s, y.cpu_time_s]);
    let xa = LogAxis::covering(values.clone(), margin, end);
    let ya = LogAxis::covering(values, size - margin + 20.0 - 20.0, 20.0);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{size}\" height=\"{size}\" viewBox=\"0 0 {size} {size}\" font-size=\"11\">\n"
    );
    let bottom = ya.p0;
    let _ = writeln!(
        svg,
        "<rect x=\"{margin}\" y=\"20\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>",
        end - margin,
        bottom - 20.0
    );
    for (v, label) in xa.ticks() {
        let px = xa.pos(v);
        let py = ya.pos(v);
        let _ = writeln!(svg, "<line x1=\"{px:.1}\" x2=\"{px:.1}\" y1=\"20\" y2=\"{bottom}\" stroke=\"#eee\"/><text x=\"{px:.1}\" y=\"{}\" text-anchor=\"middle\">{label}</text>", bottom + 15.0);
        let _ = writeln!(svg, "<line x1=\"{margin}\" x2=\"{end}\" y1=\"{py:.1}\" y2=\"{py:.1}\" stroke=\"#eee\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>", margin - 4.0, py + 4.0);
    }
    let _ = writeln!(svg, "<line x1=\"{margin}\" y1=\"{bottom}\" x2=\"{end}\" y2=\"20\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>");
    for (ra, rb) in &pairs {
        let both = ra.category == Category::Correct && rb.category == Category::Correct;
        let wrong = ra.category == Category::Wrong || rb.category == Category::Wrong;
        let color = if wrong {
            "#d62728"
        } else if both {
            "#1f77b4"
        } else {
            "#aaa"
        };
        let _ = writeln!(
            svg,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{color}\"><title>{}</title></circle>",
            xa.pos(ra.cpu_time_s),
            ya.pos(rb.cpu_time_s),
            escape(ra.task_short().as_str())
        );
    }
    let _ = writeln!(
        svg,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{} CPU time (s)</text>",
        (margin + end) / 2.0,
        size - 8.0,
        escape(a.label.as_str())
    );
    let _ = writeln!(svg, "<text x=\"14\" y=\"{m}\" transform=\"rotate(-90 14 {m})\" text-anchor=\"middle\">{} CPU time (s)</text>", escape(b.label.as_str()), m = (20.0 + bottom) / 2.0);
    svg.push_str("</svg>\n");
    svg
}

/// The self-contained HTML report: scores, results table, quantile plot and (with at least two
/// columns) a scatter plot of the first two.
pub fn render_html(columns: &[Column]) -> String {
    let mut h = String::from("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Baton results</title>\n<style>\nbody{font-family:sans-serif;margin:1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;font-size:12px}td.num{text-align:right}.correct{background:#d9f2d9}.wrong{background:#f4a6a6;font-weight:bold}.unknown{background:#eee}.error{background:#fde7c7}.missing{background:#e6e6fa}\n</style></head><body>\n<h1>Baton results</h1>\n<h2>Summary</h2>\n<table><tr><th>run definition</th><th>runs</th><th>correct true</th><th>correct false</th><th>wrong true</th><th>wrong false</th><th>unknown</th><th>errors</th><th>SV-COMP score</th><th>CPU time (s)</th></tr>\n");
    for c in columns {
        let k = Counts::of(&c.results);
        let _ = writeln!(h, "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\"><b>{}</b></td><td class=\"num\">{:.1}</td></tr>",
            escape(c.label.as_str()), c.results.len(), k.correct_true, k.correct_false, k.wrong_true, k.wrong_false, k.unknown, k.error, k.score, k.cpu_time_s);
    }
    h.push_str("</table>\n<h2>Quantile plot</h2>\n");
    h.push_str(&quantile_svg(columns));
    if columns.len() >= 2 {
        let _ = writeln!(
            h,
            "<h2>Scatter plot: {} vs. {}</h2>",
            escape(columns[0].label.as_str()),
            escape(columns[1].label.as_str())
        );
        h.push_str(&scatter_svg(&columns[0], &columns[1]));
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
                    let _ = write!(
                        h,
                        "<td class=\"{}\">{}</td><td class=\"num\">{:.2}</td>",
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

    #[test]
    fn log_axis_maps_decades() {
        let a = LogAxis::covering([0.05, 3.0].into_iter(), 0.0, 100.0);
        assert_eq!((a.lo, a.hi), (0.01, 10.0));
        assert!((a.pos(0.1) - 100.0 / 3.0).abs() < 1e-6);
        assert_eq!(a.ticks().len(), 4);
    }
}
