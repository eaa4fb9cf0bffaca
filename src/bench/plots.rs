//! The plots of the HTML report as inline SVG (one file that opens without network): the
//! quantile plot, the score-based quantile plot (SV-COMP's), and scatter plots of two columns,
//! each with a legend.

use super::report::{Category, RunResult};
use super::table::Column;
use quick_xml::escape::escape;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Series colours (matplotlib's default cycle).
const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// The colour of the `k`-th series.
fn color(k: usize) -> &'static str {
    COLORS[k % COLORS.len()]
}

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

/// A linear axis from `lo` to `hi` onto `[p0, p1]` pixels, with about ten round ticks.
struct LinAxis {
    lo: f64,
    hi: f64,
    p0: f64,
    p1: f64,
}

impl LinAxis {
    fn pos(&self, v: f64) -> f64 {
        self.p0 + (v - self.lo) / (self.hi - self.lo) * (self.p1 - self.p0)
    }

    fn ticks(&self) -> Vec<f64> {
        let raw = (self.hi - self.lo) / 10.0;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0]
            .iter()
            .map(|m| m * mag)
            .find(|s| *s >= raw)
            .unwrap_or(mag * 10.0);
        let mut v = (self.lo / step).ceil() * step;
        let mut out = Vec::new();
        while v <= self.hi + step * 1e-9 {
            out.push(v);
            v += step;
        }
        out
    }
}

/// The plot area of a chart: SVG size and the inner box.
struct Frame {
    width: f64,
    height: f64,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

impl Frame {
    /// The opening `<svg>` with the frame box and the axis titles.
    fn open(&self, id: &str, x_title: &str, y_title: &str) -> String {
        let (w, h) = (self.width, self.height);
        let mut svg = format!(
            "<svg id=\"{id}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-size=\"11\" font-family=\"sans-serif\">\n"
        );
        let _ = writeln!(
            svg,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>",
            self.left,
            self.top,
            self.right - self.left,
            self.bottom - self.top
        );
        let mid_y = (self.top + self.bottom) / 2.0;
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text><text x=\"14\" y=\"{mid_y}\" transform=\"rotate(-90 14 {mid_y})\" text-anchor=\"middle\">{}</text>",
            (self.left + self.right) / 2.0,
            h - 8.0,
            escape(x_title),
            escape(y_title)
        );
        svg
    }

    /// Horizontal grid lines with labels for a vertical log axis.
    fn y_ticks(&self, svg: &mut String, y: &LogAxis) {
        for (v, label) in y.ticks() {
            let py = y.pos(v);
            let _ = writeln!(svg, "<line x1=\"{}\" x2=\"{}\" y1=\"{py:.1}\" y2=\"{py:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>", self.left, self.right, self.left - 4.0, py + 4.0);
        }
    }

    /// A legend box in the upper left corner: (mark SVG at 0,0, label) per line.
    fn legend(&self, svg: &mut String, entries: &[(String, String)]) {
        let width = entries.iter().map(|(_, l)| l.chars().count()).max().unwrap_or(0) as f64 * 6.5 + 34.0;
        let (x, y) = (self.left + 8.0, self.top + 8.0);
        let _ = writeln!(
            svg,
            "<g class=\"legend\"><rect x=\"{x}\" y=\"{y}\" width=\"{width:.0}\" height=\"{}\" fill=\"white\" fill-opacity=\"0.9\" stroke=\"#bbb\"/>",
            entries.len() as f64 * 16.0 + 6.0
        );
        for (i, (mark, label)) in entries.iter().enumerate() {
            let cy = y + 12.0 + 16.0 * i as f64;
            let _ = writeln!(
                svg,
                "<g transform=\"translate({} {cy})\">{mark}</g><text x=\"{}\" y=\"{}\">{}</text>",
                x + 12.0,
                x + 26.0,
                cy + 4.0,
                escape(label.as_str())
            );
        }
        svg.push_str("</g>\n");
    }
}

/// A line-and-dot legend mark in a colour.
fn line_mark(color: &str) -> String {
    format!("<line x1=\"-8\" x2=\"8\" y1=\"0\" y2=\"0\" stroke=\"{color}\" stroke-width=\"2\"/><circle r=\"2.5\" fill=\"{color}\"/>")
}

/// Draws one series of (x, y) pixel points as a line with dots.
fn series(svg: &mut String, points: &[(f64, f64)], color: &str) {
    for (px, py) in points {
        let _ = writeln!(
            svg,
            "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"2.5\" fill=\"{color}\"/>"
        );
    }
    if !points.is_empty() {
        let list: Vec<String> = points.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
        let _ = writeln!(
            svg,
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"/>",
            list.join(" ")
        );
    }
}

/// CPU times of a column's correct results, sorted.
fn correct_times(c: &Column) -> Vec<f64> {
    let mut v: Vec<f64> = c
        .results
        .iter()
        .filter(|r| r.category == Category::Correct)
        .map(|r| r.cpu_time_s)
        .collect();
    v.sort_by(f64::total_cmp);
    v
}

const FRAME: Frame = Frame {
    width: 640.0,
    height: 400.0,
    left: 60.0,
    right: 620.0,
    top: 20.0,
    bottom: 350.0,
};

/// Quantile plot: per column, the CPU times of its correct results sorted; x = n-th result.
pub fn quantile_svg(columns: &[Column]) -> String {
    let f = &FRAME;
    let series_v: Vec<Vec<f64>> = columns.iter().map(correct_times).collect();
    let n_max = series_v.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let y = LogAxis::covering(series_v.iter().flatten().copied(), f.bottom, f.top);
    let x = LinAxis {
        lo: 0.0,
        hi: n_max as f64,
        p0: f.left,
        p1: f.right,
    };
    let mut svg = f.open("quantile", "n-th fastest correct result", "CPU time (s)");
    f.y_ticks(&mut svg, &y);
    for v in x.ticks() {
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{v}</text>",
            x.pos(v),
            f.bottom + 15.0
        );
    }
    let mut legend = Vec::new();
    for (k, (c, s)) in columns.iter().zip(&series_v).enumerate() {
        let points: Vec<(f64, f64)> = s
            .iter()
            .enumerate()
            .map(|(i, v)| (x.pos((i + 1) as f64), y.pos(*v)))
            .collect();
        series(&mut svg, &points, color(k));
        legend.push((line_mark(color(k)), format!("{} ({} correct)", c.label, s.len())));
    }
    f.legend(&mut svg, &legend);
    svg.push_str("</svg>\n");
    svg
}

/// The points of SV-COMP's score-based quantile plot of a column: the line starts at the sum
/// of the wrong results' (negative) scores; each correct result, fastest first, moves it right
/// by its score, at the height of its CPU time.
pub fn score_quantile_points(c: &Column) -> Vec<(f64, f64)> {
    let mut x: f64 = c
        .results
        .iter()
        .filter(|r| r.category == Category::Wrong)
        .map(|r| f64::from(r.score))
        .sum();
    let mut correct: Vec<&RunResult> = c
        .results
        .iter()
        .filter(|r| r.category == Category::Correct)
        .collect();
    correct.sort_by(|a, b| a.cpu_time_s.total_cmp(&b.cpu_time_s));
    correct
        .into_iter()
        .map(|r| {
            x += f64::from(r.score);
            (x, r.cpu_time_s)
        })
        .collect()
}

/// Score-based quantile plot (x: accumulated score, y: CPU time, log scale).
pub fn score_quantile_svg(columns: &[Column]) -> String {
    let f = &FRAME;
    let all: Vec<Vec<(f64, f64)>> = columns.iter().map(score_quantile_points).collect();
    let lo_x = columns
        .iter()
        .map(|c| {
            c.results
                .iter()
                .filter(|r| r.category == Category::Wrong)
                .map(|r| f64::from(r.score))
                .sum::<f64>()
        })
        .fold(0.0f64, f64::min);
    let hi_x = all.iter().flatten().map(|p| p.0).fold(1.0f64, f64::max);
    let x = LinAxis {
        lo: lo_x,
        hi: hi_x,
        p0: f.left,
        p1: f.right,
    };
    let y = LogAxis::covering(all.iter().flatten().map(|p| p.1), f.bottom, f.top);
    let mut svg = f.open("score-quantile", "accumulated score", "CPU time (s)");
    f.y_ticks(&mut svg, &y);
    for v in x.ticks() {
        let px = x.pos(v);
        let _ = writeln!(svg, "<line x1=\"{px:.1}\" x2=\"{px:.1}\" y1=\"{}\" y2=\"{}\" stroke=\"#eee\"/><text x=\"{px:.1}\" y=\"{}\" text-anchor=\"middle\">{v}</text>", f.top, f.bottom, f.bottom + 15.0);
    }
    if lo_x < 0.0 {
        let px = x.pos(0.0);
        let _ = writeln!(svg, "<line x1=\"{px:.1}\" x2=\"{px:.1}\" y1=\"{}\" y2=\"{}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>", f.top, f.bottom);
    }
    let mut legend = Vec::new();
    for (k, (c, pts)) in columns.iter().zip(&all).enumerate() {
        let points: Vec<(f64, f64)> = pts.iter().map(|(a, b)| (x.pos(*a), y.pos(*b))).collect();
        series(&mut svg, &points, color(k));
        let score: i64 = c.results.iter().map(|r| i64::from(r.score)).sum();
        legend.push((line_mark(color(k)), format!("{} (score {score})", c.label)));
    }
    f.legend(&mut svg, &legend);
    svg.push_str("</svg>\n");
    svg
}

/// How a pair of results is drawn in a scatter plot, most alarming first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PairKind {
    /// Either result is wrong: red cross.
    Wrong,
    /// Either run timed out: orange triangle at its CPU time.
    Timeout,
    /// Both correct: blue dot.
    BothCorrect,
    /// Anything else (unknown, error, one correct): grey ring.
    Other,
}

impl PairKind {
    fn of(a: &RunResult, b: &RunResult) -> PairKind {
        if a.category == Category::Wrong || b.category == Category::Wrong {
            PairKind::Wrong
        } else if a.status.starts_with("TIMEOUT") || b.status.starts_with("TIMEOUT") {
            PairKind::Timeout
        } else if a.category == Category::Correct && b.category == Category::Correct {
            PairKind::BothCorrect
        } else {
            PairKind::Other
        }
    }

    fn mark(self) -> &'static str {
        match self {
            PairKind::Wrong => "<path d=\"M-4,-4L4,4M-4,4L4,-4\" stroke=\"#d62728\" stroke-width=\"2\"/>",
            PairKind::Timeout => "<path d=\"M0,-5L4.5,3.5L-4.5,3.5Z\" fill=\"#ff7f0e\"/>",
            PairKind::BothCorrect => "<circle r=\"3\" fill=\"#1f77b4\"/>",
            PairKind::Other => "<circle r=\"3\" fill=\"none\" stroke=\"#888\"/>",
        }
    }

    fn label(self) -> &'static str {
        match self {
            PairKind::Wrong => "a wrong result",
            PairKind::Timeout => "a timeout",
            PairKind::BothCorrect => "both correct",
            PairKind::Other => "otherwise (unknown, error, one correct)",
        }
    }
}

/// Scatter plot of CPU times of two columns over their common tasks (log–log, diagonal), each
/// point marked by what the pair of results is (a wrong one, a timeout, both correct, other),
/// with a legend.
pub fn scatter_svg(a: &Column, b: &Column, id: &str) -> String {
    let f = Frame {
        width: 460.0,
        height: 460.0,
        left: 60.0,
        right: 440.0,
        top: 20.0,
        bottom: 400.0,
    };
    let bmap: HashMap<&str, &RunResult> = b.results.iter().map(|r| (r.task.as_str(), r)).collect();
    let pairs: Vec<(&RunResult, &RunResult)> = a
        .results
        .iter()
        .filter_map(|ra| bmap.get(ra.task.as_str()).map(|rb| (ra, *rb)))
        .collect();
    let values = pairs.iter().flat_map(|(x, y)| [x.cpu_time_s, y.cpu_time_s]);
    let xa = LogAxis::covering(values.clone(), f.left, f.right);
    let ya = LogAxis::covering(values, f.bottom, f.top);
    let mut svg = f.open(
        id,
        &format!("{} CPU time (s)", a.label),
        &format!("{} CPU time (s)", b.label),
    );
    for (v, label) in xa.ticks() {
        let px = xa.pos(v);
        let _ = writeln!(svg, "<line x1=\"{px:.1}\" x2=\"{px:.1}\" y1=\"{}\" y2=\"{}\" stroke=\"#eee\"/><text x=\"{px:.1}\" y=\"{}\" text-anchor=\"middle\">{label}</text>", f.top, f.bottom, f.bottom + 15.0);
    }
    f.y_ticks(&mut svg, &ya);
    let _ = writeln!(
        svg,
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>",
        f.left, f.bottom, f.right, f.top
    );
    let mut used = Vec::new();
    for (ra, rb) in &pairs {
        let kind = PairKind::of(ra, rb);
        if !used.contains(&kind) {
            used.push(kind);
        }
        let _ = writeln!(
            svg,
            "<g class=\"point\" transform=\"translate({:.1} {:.1})\">{}<title>{}: {} {} / {} {}</title></g>",
            xa.pos(ra.cpu_time_s),
            ya.pos(rb.cpu_time_s),
            kind.mark(),
            escape(ra.task_short().as_str()),
            escape(ra.status.as_str()),
            ra.category.as_str(),
            escape(rb.status.as_str()),
            rb.category.as_str()
        );
    }
    let order = [
        PairKind::Wrong,
        PairKind::Timeout,
        PairKind::BothCorrect,
        PairKind::Other,
    ];
    let legend: Vec<(String, String)> = order
        .iter()
        .filter(|k| used.contains(k))
        .map(|k| (k.mark().to_string(), k.label().to_string()))
        .collect();
    let mut legend = legend;
    legend.push((
        "<line x1=\"-8\" x2=\"8\" y1=\"0\" y2=\"0\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>".into(),
        "equal CPU time".into(),
    ));
    f.legend(&mut svg, &legend);
    svg.push_str("</svg>\n");
    svg
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
        let l = LinAxis {
            lo: -16.0,
            hi: 40.0,
            p0: 0.0,
            p1: 1.0,
        };
        assert_eq!(l.ticks().first(), Some(&-10.0));
    }
}
