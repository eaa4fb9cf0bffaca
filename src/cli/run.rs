//! `run`: a flow of verifiers on a program or task.

use super::{write_stdout, AdapterDirs, Failure, SemanticsArgs, WitnessArgs};
use baton::cfa::types::DataModel;
use baton::cli_json::document;
use std::path::PathBuf;

#[derive(clap::Args)]
pub(crate) struct RunArgs {
    /// The flow file (YAML), e.g. configs/comb-b.yaml.
    pub(crate) flow: PathBuf,
    /// A C program (.c/.i) or an sv-benchmarks task definition (.yml).
    pub(crate) input: PathBuf,
    /// Print the result as JSON (verdict, cpu_time_s, deciding_stage, stages).
    #[arg(long)]
    pub(crate) json: bool,
    /// Keep every stage's files (residual programs, conditions, tool output) in this directory.
    #[arg(long)]
    pub(crate) keep_dir: Option<PathBuf>,
    /// Data model (default: the task's, ILP32 for bare programs).
    #[arg(long)]
    pub(crate) data_model: Option<DataModel>,
    #[command(flatten)]
    pub(crate) semantics: SemanticsArgs,
    #[command(flatten)]
    pub(crate) adapters: AdapterDirs,
    #[command(flatten)]
    pub(crate) witness: WitnessArgs,
    /// CPU-time limit of the whole flow (e.g. 300s): the flow's budget is capped at it, so the
    /// flow ends by itself, witness included, within a limit set from outside (`bench` passes
    /// its time limit).
    #[arg(long, value_parser = humantime::parse_duration)]
    pub(crate) cpu_time: Option<std::time::Duration>,
    /// Wall-time limit of the whole flow (e.g. 600s), capping its budget like `--cpu-time`: on
    /// a loaded machine a flow's CPU time can be a fraction of its wall time, and a runner that
    /// kills at a wall-time limit would lose the verdict (`bench` passes its wall-time limit,
    /// less a margin).
    #[arg(long, value_parser = humantime::parse_duration)]
    pub(crate) wall_time: Option<std::time::Duration>,
}

pub(crate) fn run(a: RunArgs) -> Result<(), Failure> {
    use baton::pipeline::runner;
    let registry = baton::adapters::registry::Registry::load(&a.adapters.dirs).map_err(Failure::input)?;
    let mut flow = runner::load_flow(&a.flow, &registry).map_err(Failure::input)?;
    // Limits set from outside cap the flow's budget: `--cpu-time`, `--wall-time`, and the memory this process
    // has (a cgroup limit, say `bench --memlimit`), so that a stage needing more ends alone, out
    // of memory, and the flow goes on instead of being killed whole. A tenth of the memory
    // stays for the runner itself.
    flow.budget = flow.budget.capped_by(baton::pipeline::flow::Budget {
        cpu_time: a.cpu_time,
        wall_time: a.wall_time,
        memory: baton::cpa::budget::available_memory().map(|m| m / 10 * 9),
    });
    let options = runner::RunOptions {
        keep_dir: a.keep_dir,
        baton: std::env::current_exe().map_err(Failure::other)?,
        signed_overflow: a
            .semantics
            .signed_overflow
            .or(flow.signed_overflow)
            .unwrap_or_default(),
        witness: a.witness.format().map(|(p, f)| (p.to_path_buf(), f)),
    };
    let report =
        runner::run_flow(&flow, &registry, &a.input, a.data_model, &options).map_err(|e| Failure {
            code: if e.is_input_error() { 2 } else { 1 },
            message: e.to_string(),
        })?;
    if a.json {
        outln!("{}", document(&report).map_err(Failure::other)?);
    } else {
        out!("{}", runner::render_text(&report));
    }
    Ok(())
}
