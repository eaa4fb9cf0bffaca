//! `bench` and `table`: benchmark runs under limits, and tables and reports of their results.

use super::{write_stdout, AdapterDirs, Failure};
use crate::{Cli, Command};
use baton::cli_json::{self, document};
use clap::Parser;
use std::path::PathBuf;

#[derive(clap::Args)]
pub(crate) struct BenchArgs {
    /// A BenchExec benchmark definition (XML) with run definitions and tasks.
    pub(crate) definition: Option<PathBuf>,
    /// Task definitions (.yml).
    #[arg(long, num_args = 1..)]
    pub(crate) tasks: Vec<PathBuf>,
    /// The shared MANIFEST.csv of tasks.
    #[arg(long)]
    pub(crate) manifest: Option<PathBuf>,
    /// Only the manifest's tasks of this paper table (e.g. II).
    #[arg(long)]
    pub(crate) table: Option<String>,
    /// An sv-benchmarks .set file of task patterns.
    #[arg(long)]
    pub(crate) set: Option<PathBuf>,
    /// Version sequences (YAML, see benchmarks/incremental/sequences.yaml): predicate and
    /// explicit run definitions also run them incrementally, as NAME.incremental.
    #[arg(long)]
    pub(crate) sequences: Option<PathBuf>,
    /// A run definition NAME='ARGS after baton' (repeatable), e.g. e='verify --analysis explicit'.
    #[arg(long = "run", value_name = "NAME=ARGS")]
    pub(crate) runs: Vec<String>,
    /// Runs in parallel (default: number of cores).
    #[arg(long)]
    pub(crate) jobs: Option<usize>,
    /// CPU-time limit per run (e.g. 60s).
    #[arg(long)]
    pub(crate) timelimit: Option<String>,
    /// CPU time at which a run is killed (default: the time limit).
    #[arg(long)]
    pub(crate) hardtimelimit: Option<String>,
    /// Wall time at which a run is killed (default: twice the hard time limit plus 10 s).
    #[arg(long)]
    pub(crate) walltimelimit: Option<String>,
    /// Memory limit per run (e.g. 4GB).
    #[arg(long)]
    pub(crate) memlimit: Option<String>,
    /// Where results go; rerunning with the same directory resumes.
    #[arg(long, default_value = "bench-results")]
    pub(crate) output_dir: PathBuf,
    /// Benchmark name (prefix of the result XML files).
    #[arg(long)]
    pub(crate) name: Option<String>,
    #[command(flatten)]
    pub(crate) adapters: AdapterDirs,
    /// Print the counts per run definition and the result files as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(clap::Args)]
pub(crate) struct TableArgs {
    /// Result directories of `baton bench`, results.jsonl files or BenchExec result XML files.
    #[arg(required = true)]
    pub(crate) results: Vec<PathBuf>,
    /// Also write a self-contained HTML report here.
    #[arg(long)]
    pub(crate) html: Option<PathBuf>,
    /// Only the tasks every input has results for.
    #[arg(long)]
    pub(crate) common: bool,
    /// A scatter plot of two columns X,Y in the HTML report (repeatable; default: the first two).
    #[arg(long, value_name = "X,Y")]
    pub(crate) scatter: Vec<String>,
    /// Print the columns (provenance, counts, results) as JSON instead of the text table.
    #[arg(long)]
    pub(crate) json: bool,
}

pub(crate) fn bench(a: BenchArgs) -> Result<(), Failure> {
    use baton::bench;
    // The runs are `baton` processes: they find the adapter directories in the environment.
    if !a.adapters.dirs.is_empty() {
        let mut dirs: Vec<PathBuf> = a
            .adapters
            .dirs
            .iter()
            .map(|d| d.canonicalize().unwrap_or(d.clone()))
            .collect();
        if let Some(env) = std::env::var_os(baton::adapters::registry::ADAPTERS_ENV) {
            dirs.extend(std::env::split_paths(&env));
        }
        let joined = std::env::join_paths(dirs).map_err(Failure::input)?;
        std::env::set_var(baton::adapters::registry::ADAPTERS_ENV, joined);
    }
    let request = bench::BenchRequest {
        definition: a.definition,
        tasks: a.tasks,
        manifest: a.manifest,
        table: a.table,
        set: a.set,
        sequences: a.sequences,
        runs: a.runs,
        timelimit: a.timelimit,
        hardtimelimit: a.hardtimelimit,
        walltimelimit: a.walltimelimit,
        memlimit: a.memlimit,
        name: a.name,
    };
    let benchmark = bench::prepare(&request).map_err(Failure::input)?;
    benchmark.warnings.iter().for_each(|w| eprintln!("warning: {w}"));
    for rd in &benchmark.run_definitions {
        check_run_definition(rd)?;
    }
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let executable = std::env::current_exe().map_err(Failure::other)?;
    let options = bench::BenchOptions {
        jobs,
        output_dir: a.output_dir,
        executable,
    };
    let outcome = bench::run_benchmark(&benchmark, &options).map_err(Failure::other)?;
    let failure = if outcome.skipped > 0 {
        Some(Failure::other(format!(
            "interrupted: {} runs not performed",
            outcome.skipped
        )))
    } else {
        let mut results = outcome.results.iter().flat_map(|(_, rs)| rs);
        (outcome.executed > 0 && results.all(|r| r.status.starts_with("ERROR"))).then(|| {
            Failure::other(format!(
                "every run ended in ERROR; see the logs in {}",
                options.output_dir.join("logs").display()
            ))
        })
    };
    // With --json, stdout holds one document: the failure's if there is one.
    if a.json {
        if let Some(failure) = failure {
            return Err(failure);
        }
        let report = cli_json::BenchReport::new(&outcome, options.output_dir);
        outln!("{}", document(&report).map_err(Failure::other)?);
        return Ok(());
    }
    outln!(
        "{} runs performed, {} resumed from {}",
        outcome.executed,
        outcome.resumed,
        options.output_dir.display()
    );
    out!("{}", outcome.summary);
    failure.map_or(Ok(()), Err)
}

/// Checks a run definition before any run starts: its arguments, with a task appended as each
/// run appends it, must be a valid `verify` or `run` command, and a flow it names must load.
pub(crate) fn check_run_definition(rd: &baton::bench::RunDefinition) -> Result<(), Failure> {
    let invalid = |message: &str| Failure::input(format!("run definition `{}`: {message}", rd.name));
    let Some(task) = rd.tasks.first() else {
        return Ok(());
    };
    let mut argv = vec!["baton".to_string()];
    argv.extend(rd.args.iter().cloned());
    argv.push(task.display().to_string());
    if !rd.args.iter().any(|a| a == "--json") {
        argv.push("--json".into());
    }
    let cli = Cli::try_parse_from(&argv).map_err(|e| {
        let text = e.to_string();
        let first = text.lines().next().unwrap_or_default();
        invalid(first.strip_prefix("error: ").unwrap_or(first))
    })?;
    match cli.command {
        Command::Verify(_) => Ok(()),
        Command::Run(a) => {
            let registry = baton::adapters::registry::Registry::load(&a.adapters.dirs)
                .map_err(|e| invalid(&e.to_string()))?;
            baton::pipeline::runner::load_flow(&a.flow, &registry)
                .map(|_| ())
                .map_err(|e| invalid(&e.to_string()))
        }
        _ => Err(invalid(&format!(
            "`{}` cannot be benchmarked (use verify or run)",
            rd.args.first().map(String::as_str).unwrap_or_default()
        ))),
    }
}

pub(crate) fn table(a: TableArgs) -> Result<(), Failure> {
    let mut columns = baton::bench::load_results(&a.results).map_err(Failure::input)?;
    if a.common {
        baton::bench::keep_common_tasks(&mut columns);
    }
    let pairs = baton::bench::scatter_pairs(&columns, &a.scatter).map_err(Failure::input)?;
    if let Some(path) = a.html {
        std::fs::write(&path, baton::bench::render_html(&columns, &pairs))
            .map_err(|e| Failure::other(format!("{}: cannot write: {e}", path.display())))?;
    }
    if a.json {
        let report = cli_json::TableReport::new(&columns);
        outln!("{}", document(&report).map_err(Failure::other)?);
    } else {
        out!("{}", baton::bench::render_text(&columns));
    }
    Ok(())
}
