//! `reduce`: the residual program of a condition (seed 001's reducer).

use super::{load_input, write_stdout, Failure, InputArgs};
use baton::cfa::emit_c::emit_c;
use baton::cli_json::{self, document};
use baton::condition;
use baton::reducer;
use std::path::PathBuf;

#[derive(clap::Args)]
pub(crate) struct ReduceArgs {
    #[command(flatten)]
    pub(crate) input: InputArgs,
    /// The condition file (GraphML or CPAchecker format).
    #[arg(long)]
    pub(crate) condition: PathBuf,
    /// Where to write the residual C program (default: standard output).
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
    /// product (seed 001's REDUCER) or identity.
    #[arg(long, default_value = "product")]
    pub(crate) reducer: String,
    /// Product reducer: keep the residual within this many times the original's locations,
    /// giving up the condition's deeper distinctions where needed (every uncovered path stays).
    #[arg(long, value_name = "RATIO", value_parser = positive_ratio)]
    pub(crate) max_ratio: Option<f64>,
    /// Print sizes of residual against original and the time taken (to standard error).
    #[arg(long)]
    pub(crate) stats: bool,
    /// Print the sizes (and the residual program, without --output) as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

/// A ratio above zero (for `--max-ratio`).
pub(crate) fn positive_ratio(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(r) if r > 0.0 && r.is_finite() => Ok(r),
        _ => Err(format!("`{text}` is not a number above 0")),
    }
}

pub(crate) fn reduce(args: ReduceArgs) -> Result<(), Failure> {
    let (_, program) = load_input(&args.input)?;
    let condition = condition::load(&args.condition, &program).map_err(Failure::input)?;
    let started = std::time::Instant::now();
    let (text, residual_program, coverage, guarded) = match args.reducer.as_str() {
        "product" => {
            let capped = match args.max_ratio {
                Some(ratio) => {
                    let cap = (program.locations.len() as f64 * ratio) as usize;
                    reducer::reduce_within(&program, &condition, cap, reducer::DEFAULT_MAX_LOCATIONS)
                }
                None => reducer::reduce(&program, &condition, reducer::DEFAULT_MAX_LOCATIONS).map(|r| {
                    reducer::Capped {
                        exact: r.coverage(),
                        residual: r,
                    }
                }),
            }
            .map_err(Failure::input)?;
            let coverage = (capped.residual.coverage(), capped.exact);
            (
                emit_c(&capped.residual.program),
                Some(capped.residual.program),
                Some(coverage),
                capped.residual.guarded_edges,
            )
        }
        "identity" => {
            condition.validate(&program).map_err(Failure::input)?;
            let text = std::fs::read_to_string(&program.files[0])
                .map_err(|e| Failure::other(format!("{}: cannot read: {e}", program.files[0])))?;
            (text, None, None, 0)
        }
        other => {
            return Err(Failure::input(format!(
                "unknown reducer `{other}` (product or identity)"
            )))
        }
    };
    let elapsed = started.elapsed();
    if let Some(path) = &args.output {
        std::fs::write(path, &text)
            .map_err(|e| Failure::other(format!("{}: cannot write: {e}", path.display())))?;
    }
    let original_lines = std::fs::read_to_string(&program.files[0])
        .map(|t| t.lines().count())
        .unwrap_or(0);
    let original = cli_json::ProgramSize {
        locations: program.locations.len(),
        edges: program.edges.len(),
        lines: original_lines,
    };
    let residual = cli_json::ProgramSize {
        locations: residual_program
            .as_ref()
            .map_or(original.locations, |p| p.locations.len()),
        edges: residual_program
            .as_ref()
            .map_or(original.edges, |p| p.edges.len()),
        lines: text.lines().count(),
    };
    if args.json {
        let output = args.output.clone();
        let report = cli_json::ReduceReport {
            reducer: args.reducer.clone(),
            residual_program: output.is_none().then_some(text),
            output,
            original,
            residual,
            coverage: coverage.as_ref().map(|(kept, exact)| cli_json::ResidualCoverage {
                tracked_locations: kept.precise,
                cuts_kept: kept.cuts,
                cuts_exact: exact.cuts,
                cuts_kept_fraction: kept.cuts_fraction(exact),
                guarded_edges: guarded,
            }),
            reduce_time_s: elapsed.as_secs_f64(),
        };
        outln!("{}", document(&report).map_err(Failure::other)?);
        return Ok(());
    }
    if args.output.is_none() {
        out!("{text}");
    }
    if args.stats {
        // The identity reducer tracks nothing and cuts nothing.
        let coverage = coverage.unwrap_or_default();
        let ratio = |a: usize, b: usize| a as f64 / b.max(1) as f64;
        eprintln!(
            "residual: {} locations ({:.2}x), {} edges ({:.2}x), {} lines ({:.2}x); original: {} locations, {} edges, {} lines; reduce time {:.3} s; condition tracked at {} locations; kept {} of {} cuts ({:.1}%), {} of {} precise locations; {} edges guarded by state cuts",
            residual.locations,
            ratio(residual.locations, original.locations),
            residual.edges,
            ratio(residual.edges, original.edges),
            residual.lines,
            ratio(residual.lines, original.lines),
            original.locations,
            original.edges,
            original.lines,
            elapsed.as_secs_f64(),
            coverage.0.precise,
            coverage.0.cuts,
            coverage.1.cuts,
            100.0 * coverage.0.cuts_fraction(&coverage.1),
            coverage.0.precise,
            coverage.1.precise,
            guarded,
        );
    }
    Ok(())
}
