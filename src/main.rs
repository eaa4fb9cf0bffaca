//! The `baton` command line. It only parses arguments and calls library functions; errors are
//! printed as one line on stderr (with `--json`: as a JSON document on stdout, see
//! [`baton::cli_json`]) with a non-zero exit status (see [`EXIT_STATUS_HELP`]).

use baton::analyses::incremental::{self, Previous, ReuseStats};
use baton::analyses::predicate::proof::ProofAnalysis;
use baton::analyses::{run_analysis, AnalysisKind, AnalysisOptions};
use baton::cfa::emit_c::emit_c;
use baton::cfa::interpreter::{execute_observed, render_step, Ending, ExecOptions, Step};
use baton::cfa::semantics::SignedOverflow;
use baton::cfa::types::DataModel;
use baton::cfa::Program;
use baton::cli_json::{self, document, error_document, ErrorKind};
use baton::condition::{self, ConditionRunner};
use baton::cpa::engine::{Guide, SearchOrder};
use baton::cpa::monitor::GiveUp;
use baton::exec::lifecycle;
use baton::frontend::{load_program, one_line};
use baton::reducer;
use baton::task::Task;
use baton::verdict::Verdict;
use baton::witness::inductive::CheckLimits;
use baton::witness::validate::validate_file;
use baton::witness::{write_witness, Evidence, WitnessFormat};
use clap::{Parser, Subcommand};
use std::fmt::Display;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit status when standard output is a pipe its reader closed (128 + SIGPIPE, as for tools
/// the signal ends).
const BROKEN_PIPE_EXIT: u8 = 141;

/// `print!` that returns a [`Failure`] instead of panicking when standard output fails.
macro_rules! out {
    ($($arg:tt)*) => {
        write_stdout(format_args!($($arg)*))?
    };
}

/// `println!` that returns a [`Failure`] instead of panicking when standard output fails.
macro_rules! outln {
    ($($arg:tt)*) => {
        write_stdout(format_args!("{}\n", format_args!($($arg)*)))?
    };
}

/// The exit statuses and the `--json` conventions, shown by `--help`.
const EXIT_STATUS_HELP: &str = "\
Exit status:
  0      the command did its work; `run` and `verify` exit 0 for every verdict (true, false, unknown)
  1      internal error: a tool or a file Baton writes failed, every benchmark run ended in ERROR, …
  2      input error: arguments, programs, tasks, flows, conditions or definitions Baton cannot use
  101    Baton panicked (a bug)
  128+N  stopped by signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP); 141: stdout's reader closed it

JSON: with --json, stdout holds one JSON document whose first key is \"version\" (Baton's version),
keys in snake_case; a failure prints {\"version\": …, \"error\": {\"kind\": \"input\"|\"internal\",
\"message\": …}} there instead, with the exit status above.";

#[derive(Parser)]
#[command(
    name = "baton",
    version,
    about = "Conditional model checking of C programs",
    after_help = EXIT_STATUS_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse a C program and print its control-flow automata.
    Cfa {
        /// The C program (.c or preprocessed .i).
        program: PathBuf,
        /// Data model: ILP32 or LP64.
        #[arg(long, default_value = "ILP32")]
        data_model: DataModel,
        /// Also write the CFAs as Graphviz DOT to this file.
        #[arg(long)]
        dot: Option<PathBuf>,
        /// Print the program as JSON instead of the text listing.
        #[arg(long)]
        json: bool,
    },
    /// Run a C program on the concrete interpreter with given nondet values.
    Exec {
        /// The C program (.c or preprocessed .i).
        program: PathBuf,
        /// Data model: ILP32 or LP64.
        #[arg(long, default_value = "ILP32")]
        data_model: DataModel,
        /// Values returned by the `__VERIFIER_nondet_*` calls in order (comma-separated);
        /// calls after the last value return 0.
        #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
        inputs: Vec<i128>,
        /// Stop after executing this many CFA edges.
        #[arg(long, default_value_t = 1_000_000)]
        max_steps: u64,
        /// Print every executed edge with the values it assigned.
        #[arg(long)]
        trace: bool,
        #[command(flatten)]
        semantics: SemanticsArgs,
        /// Print how the run ended as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Verify a program or task with a native analysis; print verdict and condition size.
    Verify(VerifyArgs),
    /// Write the residual program of a condition (seed 001's reducer).
    Reduce(ReduceArgs),
    /// Run tasks × run definitions in parallel under limits; BenchExec-style results, resumable.
    Bench(BenchArgs),
    /// Compare run definitions of result directories or files: text table, HTML report.
    Table(TableArgs),
    /// List the tool adapters (built-in and user): executables found, versions.
    Tools(ToolsArgs),
    /// Run a flow of verifiers (stages under budgets, conditions handed on) on a program or task.
    Run(RunArgs),
    /// Validate a witness (SV-COMP format 2.0 YAML, or GraphML 1.x) against a program or task.
    Validate(ValidateArgs),
}

/// Where `verify` and `run` write the witness of a `true` or `false`.
#[derive(clap::Args)]
struct WitnessArgs {
    /// Write the witness of a `true` or `false` here: SV-COMP format 2.0 (YAML), or GraphML
    /// 1.x for a `.graphml` file (violation witnesses only).
    #[arg(long, value_name = "FILE")]
    witness: Option<PathBuf>,
}

impl WitnessArgs {
    fn format(&self) -> Option<(&std::path::Path, WitnessFormat)> {
        self.witness.as_deref().map(|p| (p, WitnessFormat::of_path(p)))
    }
}

#[derive(clap::Args)]
struct ValidateArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The witness file.
    witness: PathBuf,
    /// CPU time for checking a correctness witness's invariants (e.g. 60s).
    #[arg(long, default_value = "60s", value_parser = humantime::parse_duration)]
    cpu_time: std::time::Duration,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    semantics: SemanticsArgs,
}

#[derive(clap::Args)]
struct RunArgs {
    /// The flow file (YAML), e.g. configs/comb-b.yaml.
    flow: PathBuf,
    /// A C program (.c/.i) or an sv-benchmarks task definition (.yml).
    input: PathBuf,
    /// Print the result as JSON (verdict, cpu_time_s, deciding_stage, stages).
    #[arg(long)]
    json: bool,
    /// Keep every stage's files (residual programs, conditions, tool output) in this directory.
    #[arg(long)]
    keep_dir: Option<PathBuf>,
    /// Data model (default: the task's, ILP32 for bare programs).
    #[arg(long)]
    data_model: Option<DataModel>,
    #[command(flatten)]
    semantics: SemanticsArgs,
    #[command(flatten)]
    adapters: AdapterDirs,
    #[command(flatten)]
    witness: WitnessArgs,
    /// CPU-time limit of the whole flow (e.g. 300s): the flow's budget is capped at it, so the
    /// flow ends by itself, witness included, within a limit set from outside (`bench` passes
    /// its time limit).
    #[arg(long, value_parser = humantime::parse_duration)]
    cpu_time: Option<std::time::Duration>,
}

/// The C semantics options of `verify`, `exec` and `run`.
#[derive(clap::Args)]
struct SemanticsArgs {
    /// What signed overflow means: undefined (paths through it, like those through any
    /// undefined behaviour, are excluded, as sv-benchmarks assumes) or wrap (gcc -fwrapv).
    /// Default: undefined (for `run`: the flow file's `signed-overflow`, else undefined).
    #[arg(long, value_name = "undefined|wrap")]
    signed_overflow: Option<SignedOverflow>,
}

/// Where user tool adapters are (besides the built-in ones and `BATON_ADAPTERS`).
#[derive(clap::Args)]
struct AdapterDirs {
    /// A directory of tool adapters (*.yaml), after the built-in ones (repeatable).
    #[arg(long = "adapters", value_name = "DIR")]
    dirs: Vec<PathBuf>,
}

#[derive(clap::Args)]
struct ToolsArgs {
    #[command(flatten)]
    adapters: AdapterDirs,
    /// Print the adapters as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct BenchArgs {
    /// A BenchExec benchmark definition (XML) with run definitions and tasks.
    definition: Option<PathBuf>,
    /// Task definitions (.yml).
    #[arg(long, num_args = 1..)]
    tasks: Vec<PathBuf>,
    /// The shared MANIFEST.csv of tasks.
    #[arg(long)]
    manifest: Option<PathBuf>,
    /// Only the manifest's tasks of this paper table (e.g. II).
    #[arg(long)]
    table: Option<String>,
    /// An sv-benchmarks .set file of task patterns.
    #[arg(long)]
    set: Option<PathBuf>,
    /// Version sequences (YAML, see benchmarks/incremental/sequences.yaml): predicate and
    /// explicit run definitions also run them incrementally, as NAME.incremental.
    #[arg(long)]
    sequences: Option<PathBuf>,
    /// A run definition NAME='ARGS after baton' (repeatable), e.g. e='verify --analysis explicit'.
    #[arg(long = "run", value_name = "NAME=ARGS")]
    runs: Vec<String>,
    /// Runs in parallel (default: number of cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// CPU-time limit per run (e.g. 60s).
    #[arg(long)]
    timelimit: Option<String>,
    /// CPU time at which a run is killed (default: the time limit).
    #[arg(long)]
    hardtimelimit: Option<String>,
    /// Wall time at which a run is killed (default: twice the hard time limit plus 10 s).
    #[arg(long)]
    walltimelimit: Option<String>,
    /// Memory limit per run (e.g. 4GB).
    #[arg(long)]
    memlimit: Option<String>,
    /// Where results go; rerunning with the same directory resumes.
    #[arg(long, default_value = "bench-results")]
    output_dir: PathBuf,
    /// Benchmark name (prefix of the result XML files).
    #[arg(long)]
    name: Option<String>,
    #[command(flatten)]
    adapters: AdapterDirs,
    /// Print the counts per run definition and the result files as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct TableArgs {
    /// Result directories of `baton bench`, results.jsonl files or BenchExec result XML files.
    #[arg(required = true)]
    results: Vec<PathBuf>,
    /// Also write a self-contained HTML report here.
    #[arg(long)]
    html: Option<PathBuf>,
    /// Only the tasks every input has results for.
    #[arg(long)]
    common: bool,
    /// A scatter plot of two columns X,Y in the HTML report (repeatable; default: the first two).
    #[arg(long, value_name = "X,Y")]
    scatter: Vec<String>,
    /// Print the columns (provenance, counts, results) as JSON instead of the text table.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct InputArgs {
    /// A C program (.c/.i) or an sv-benchmarks task definition (.yml).
    input: PathBuf,
    /// Data model (default: the task's, ILP32 for bare programs).
    #[arg(long)]
    data_model: Option<DataModel>,
}

#[derive(clap::Args)]
struct VerifyArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The analysis: explicit (explicit values), predicate (predicate abstraction with
    /// lazy abstraction and CEGAR; `path-formula-size=N` cuts longer counterexamples) or chc
    /// (Horn clauses solved by Z3's Spacer; only cpu-time and memory apply).
    #[arg(long, default_value = "explicit")]
    analysis: AnalysisKind,
    /// A give-up condition NAME=VALUE (repeatable): cpu-time, memory, reached-states,
    /// states-per-location, busy-edge, path-length, path-time, repeating-locations, assume-edges,
    /// path-formula-size (predicate analysis only), recursion-depth (explicit; the predicate
    /// analysis cuts every recursive call).
    #[arg(long = "give-up", value_name = "NAME=VALUE")]
    give_up: Vec<GiveUp>,
    /// Waitlist order: dfs or bfs.
    #[arg(long, default_value = "dfs")]
    order: SearchOrder,
    /// Conditions of earlier stages to use as a guide (repeatable; their union is used).
    #[arg(long = "condition-in", value_name = "FILE")]
    condition_in: Vec<PathBuf>,
    /// Write the condition (what was verified) to this file.
    #[arg(long, value_name = "FILE")]
    condition_out: Option<PathBuf>,
    /// Format of --condition-out: graphml or cpachecker (default: by extension, .graphml or
    /// .xml for GraphML, otherwise CPAchecker's text).
    #[arg(long)]
    condition_format: Option<String>,
    /// The proof of an earlier version of the program (predicate analysis, seed 002): the
    /// part of its ARG that still conforms is reused, only the rest is explored anew.
    #[arg(long, value_name = "FILE")]
    proof_in: Option<PathBuf>,
    /// Save the final ARG and precision as a proof for re-verifying later versions
    /// (predicate or explicit analysis; a `false` run from --proof-in, or an `unknown` one from
    /// a `true` proof, saves that proof instead: its own ARG stops at the counterexample or
    /// the budget).
    #[arg(long, value_name = "FILE")]
    proof_out: Option<PathBuf>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    semantics: SemanticsArgs,
    #[command(flatten)]
    witness: WitnessArgs,
}

#[derive(clap::Args)]
struct ReduceArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The condition file (GraphML or CPAchecker format).
    #[arg(long)]
    condition: PathBuf,
    /// Where to write the residual C program (default: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// product (seed 001's REDUCER) or identity.
    #[arg(long, default_value = "product")]
    reducer: String,
    /// Product reducer: keep the residual within this many times the original's locations,
    /// giving up the condition's deeper distinctions where needed (every uncovered path stays).
    #[arg(long, value_name = "RATIO", value_parser = positive_ratio)]
    max_ratio: Option<f64>,
    /// Print sizes of residual against original and the time taken (to standard error).
    #[arg(long)]
    stats: bool,
    /// Print the sizes (and the residual program, without --output) as JSON.
    #[arg(long)]
    json: bool,
}

/// A ratio above zero (for `--max-ratio`).
fn positive_ratio(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(r) if r > 0.0 && r.is_finite() => Ok(r),
        _ => Err(format!("`{text}` is not a number above 0")),
    }
}

/// An error the CLI reports: one line, and the exit status (2: the input cannot be used).
struct Failure {
    message: String,
    code: u8,
}

impl Failure {
    fn input(e: impl Display) -> Failure {
        Failure {
            message: e.to_string(),
            code: 2,
        }
    }

    fn other(e: impl Display) -> Failure {
        Failure {
            message: e.to_string(),
            code: 1,
        }
    }

    /// Standard output failed; a closed pipe (the reader has what it wanted, as with `| head`)
    /// ends Baton quietly.
    fn output(e: std::io::Error) -> Failure {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Failure {
                message: String::new(),
                code: BROKEN_PIPE_EXIT,
            }
        } else {
            Failure::other(format!("cannot write to standard output: {e}"))
        }
    }
}

/// Writes to standard output (see [`out!`]).
fn write_stdout(args: std::fmt::Arguments) -> Result<(), Failure> {
    std::io::stdout().lock().write_fmt(args).map_err(Failure::output)
}

/// Prints a failure as one line on stderr (with `json`, as an error document on stdout) and
/// turns it into the exit status; after SIGINT, SIGTERM or SIGHUP the status is 128 + the signal.
fn report(result: Result<(), Failure>, json: bool) -> ExitCode {
    let stopped = lifecycle::stop_requested();
    let code = match result {
        Ok(()) => 0,
        Err(f) => {
            if !f.message.is_empty() {
                let message = one_line(&f.message);
                if json {
                    let kind = if f.code == 2 {
                        ErrorKind::Input
                    } else {
                        ErrorKind::Internal
                    };
                    let _ = writeln!(std::io::stdout(), "{}", error_document(kind, &message));
                } else {
                    let _ = writeln!(std::io::stderr(), "{message}");
                }
            }
            f.code
        }
    };
    match stopped {
        Some(signal) => {
            let name =
                nix::sys::signal::Signal::try_from(signal).map_or(signal.to_string(), |s| s.to_string());
            let _ = writeln!(std::io::stderr(), "baton: stopped by {name}");
            ExitCode::from(u8::try_from(128 + signal).unwrap_or(1))
        }
        None => ExitCode::from(code),
    }
}

fn cfa(program: PathBuf, model: DataModel, dot: Option<PathBuf>, json: bool) -> Result<(), Failure> {
    let loaded = load_program(&program, model).map_err(Failure::input)?;
    if json {
        outln!("{}", document(&loaded).map_err(Failure::other)?);
    } else {
        out!("{}", baton::cfa::dot::listing(&loaded));
    }
    if let Some(path) = dot {
        std::fs::write(&path, baton::cfa::dot::to_dot(&loaded))
            .map_err(|e| Failure::other(format!("{}: cannot write: {e}", path.display())))?;
    }
    Ok(())
}

/// Loads the task and its program.
fn load_input(args: &InputArgs) -> Result<(Task, Program), Failure> {
    let mut task = Task::load(&args.input, args.data_model.unwrap_or_default()).map_err(Failure::input)?;
    if let Some(model) = args.data_model {
        task.data_model = model;
    }
    let program = load_program(&task.program, task.data_model).map_err(Failure::input)?;
    Ok((task, program))
}

fn verify(args: VerifyArgs) -> Result<(), Failure> {
    baton::cpa::engine::exit_follows_analysis();
    let (task, mut program) = load_input(&args.input)?;
    program.signed_overflow = args.semantics.signed_overflow.unwrap_or_default();
    let guide_condition = if args.condition_in.is_empty() {
        None
    } else {
        let mut conditions = Vec::new();
        for path in &args.condition_in {
            conditions.push(condition::load(path, &program).map_err(Failure::input)?);
        }
        Some(condition::union(&conditions).map_err(Failure::input)?)
    };
    let runner = guide_condition.as_ref().map(ConditionRunner::new);
    let options = AnalysisOptions {
        give_up: args.give_up.clone(),
        order: args.order,
    };
    let guide = runner.as_ref().map(|r| r as &dyn Guide);
    let (outcome, reuse) = if args.proof_in.is_some() || args.proof_out.is_some() {
        verify_with_proofs(&args, &task, &program, &options, guide)?
    } else {
        (run_analysis(args.analysis, &program, &options, guide), None)
    };
    // Left to the operating system at exit, like the ARG (see `exit_follows_analysis`): a
    // condition of millions of states takes seconds to free.
    let outcome = std::mem::ManuallyDrop::new(outcome);
    if let Some(path) = &args.condition_out {
        let format = condition_format(args.condition_format.as_deref(), path)?;
        condition::write_file(path, &outcome.condition, &program, format)
            .map_err(|e| Failure::other(format!("{}: cannot write: {e}", path.display())))?;
    }
    let witness = match args.witness.format() {
        Some((path, format)) => {
            let evidence = match (outcome.verdict, &outcome.counterexample) {
                (Verdict::False, Some(c)) => Some(Evidence::Values(c.inputs.clone())),
                // Without a guide, the invariants cover every path.
                (Verdict::True, _) if guide_condition.is_none() => {
                    Some(Evidence::Invariants(outcome.invariants.clone()))
                }
                _ => None,
            };
            Some(match evidence {
                Some(e) => write_witness(Some(&program), &e, path, format).map_err(Failure::other)?,
                None => "none: no definite verdict of the whole program".to_string(),
            })
        }
        None => None,
    };
    let summary = outcome.condition.summary(&program);
    let judged = outcome.verdict.classify(task.expected);
    if args.json {
        let cex = outcome.counterexample.as_ref().map(|c| {
            serde_json::json!({ "inputs": c.inputs.iter().map(|v| v.to_string()).collect::<Vec<_>>(),
                                "steps": c.steps.len(), "replay": c.replay.to_string() })
        });
        let value = serde_json::json!({
            "task": task.name(),
            "verdict": outcome.verdict.benchexec(),
            "expected": task.expected,
            "classification": judged,
            "reason": outcome.reason,
            "cpu_time_s": outcome.stats.cpu_time.as_secs_f64(),
            "reached_states": outcome.reached_states,
            "covered_states": outcome.stats.covered,
            "cut_states": outcome.stats.cut,
            "guide_accepted_states": outcome.stats.guide_accepted,
            "condition": { "states": summary.states, "transitions": summary.transitions,
                           "covered_share": summary.covered_share(),
                           "cut_short": outcome.condition_cut_short },
            "counterexample": cex,
            "assumptions": program.signed_overflow.assumption_keys(),
            "signed_overflow": program.signed_overflow,
            "predicates": outcome.predicates,
            "incremental": reuse,
            "invariants": outcome.invariants.iter().map(|(loc, inv)| {
                let func = &program.function(program.location(*loc).func).name;
                serde_json::json!({ "location": loc.to_string(), "function": func, "invariant": inv })
            }).collect::<Vec<_>>(),
            "witness": witness,
        });
        outln!("{}", document(&value).map_err(Failure::other)?);
        return Ok(());
    }
    outln!("verdict: {}", outcome.verdict);
    outln!("reason: {}", outcome.reason);
    outln!("assumed: {}", program.signed_overflow.assumption());
    if let Some(expected) = task.expected {
        outln!("expected: {expected} ({judged:?})");
    }
    outln!("cpu time: {:.3} s", outcome.stats.cpu_time.as_secs_f64());
    outln!(
        "reached states: {} (covered {}, cut {}, left to earlier conditions {})",
        outcome.reached_states,
        outcome.stats.covered,
        outcome.stats.cut,
        outcome.stats.guide_accepted
    );
    outln!(
        "condition: {} states, {} transitions, covered share of CFA edges {:.1} %{}",
        summary.states,
        summary.transitions,
        100.0 * summary.covered_share(),
        if outcome.condition_cut_short {
            " (cut short by the CPU-time deadline)"
        } else {
            ""
        }
    );
    if let Some(w) = &witness {
        outln!("witness: {w}");
    }
    if let Some(c) = &outcome.counterexample {
        let inputs: Vec<String> = c.inputs.iter().map(|v| v.to_string()).collect();
        outln!(
            "counterexample: {} steps, inputs [{}], replay: {}",
            c.steps.len(),
            inputs.join(","),
            c.replay
        );
    }
    if let Some(r) = reuse {
        outln!(
            "proof reuse: {} of {} old nodes reused, {} states explored anew ({} on the frontier)",
            r.reused_nodes,
            r.old_nodes,
            r.new_states,
            r.frontier
        );
    }
    Ok(())
}

/// `verify --proof-in/--proof-out`: the predicate or explicit analysis from and to proofs
/// (seed 002).
fn verify_with_proofs(
    args: &VerifyArgs,
    task: &Task,
    program: &Program,
    options: &AnalysisOptions,
    guide: Option<&dyn Guide>,
) -> Result<(baton::analyses::AnalysisOutcome, Option<ReuseStats>), Failure> {
    let kind = match args.analysis {
        AnalysisKind::Predicate => ProofAnalysis::Predicate,
        AnalysisKind::Explicit => ProofAnalysis::Explicit,
        AnalysisKind::Chc => {
            return Err(Failure::input(
                "--proof-in and --proof-out need --analysis predicate or explicit",
            ))
        }
    };
    let source = std::fs::read_to_string(&task.program)
        .map_err(|e| Failure::input(format!("{}: cannot read: {e}", task.program.display())))?;
    let previous = match &args.proof_in {
        Some(path) => Some(Previous::load(path, kind, program, &source).map_err(Failure::input)?),
        None => None,
    };
    let verify = match kind {
        ProofAnalysis::Predicate => incremental::verify,
        ProofAnalysis::Explicit => baton::analyses::explicit::incremental::verify,
    };
    let run = verify(
        program,
        &source,
        options,
        guide,
        previous.as_ref(),
        args.proof_out.is_some(),
    );
    // A proof that cannot be recorded costs the next version's reuse, not this verdict.
    match (&args.proof_out, &run.proof) {
        (Some(path), Some(Ok(proof))) => proof.write(path).map_err(Failure::other)?,
        (Some(path), None) if incremental::keeps_previous(run.outcome.verdict, previous.as_ref()) => {
            copy_proof(args.proof_in.as_deref(), path)?
        }
        (Some(path), Some(Err(e))) => {
            // No stale proof of an older version is left behind under the name.
            let _ = std::fs::remove_file(path);
            eprintln!("warning: no proof written to {}: {e}", path.display());
        }
        _ => {}
    }
    Ok((run.outcome, run.reuse))
}

/// Copies the proof a run started from to `to` (nothing to do if it is the same file).
fn copy_proof(from: Option<&std::path::Path>, to: &std::path::Path) -> Result<(), Failure> {
    let Some(from) = from else { return Ok(()) };
    let same = |p: &std::path::Path| std::fs::canonicalize(p).ok();
    if same(from).is_some() && same(from) == same(to) {
        return Ok(());
    }
    std::fs::copy(from, to)
        .map(drop)
        .map_err(|e| Failure::other(format!("{}: cannot write: {e}", to.display())))
}

/// The condition file format from a name or the file's extension.
fn condition_format(name: Option<&str>, path: &std::path::Path) -> Result<condition::Format, Failure> {
    match name {
        Some("graphml") => Ok(condition::Format::GraphMl),
        Some("cpachecker") => Ok(condition::Format::CpaChecker),
        Some(other) => Err(Failure::input(format!(
            "unknown condition format `{other}` (graphml or cpachecker)"
        ))),
        None => Ok(match path.extension().and_then(|e| e.to_str()) {
            Some("graphml" | "xml") => condition::Format::GraphMl,
            _ => condition::Format::CpaChecker,
        }),
    }
}

fn reduce(args: ReduceArgs) -> Result<(), Failure> {
    let (_, program) = load_input(&args.input)?;
    let condition = condition::load(&args.condition, &program).map_err(Failure::input)?;
    let started = std::time::Instant::now();
    let (text, residual_program, coverage) = match args.reducer.as_str() {
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
                coverage,
            )
        }
        "identity" => {
            condition.validate(&program).map_err(Failure::input)?;
            let text = std::fs::read_to_string(&program.files[0])
                .map_err(|e| Failure::other(format!("{}: cannot read: {e}", program.files[0])))?;
            (text, None, Default::default())
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
            reduce_time_s: elapsed.as_secs_f64(),
        };
        outln!("{}", document(&report).map_err(Failure::other)?);
        return Ok(());
    }
    if args.output.is_none() {
        out!("{text}");
    }
    if args.stats {
        let ratio = |a: usize, b: usize| a as f64 / b.max(1) as f64;
        eprintln!(
            "residual: {} locations ({:.2}x), {} edges ({:.2}x), {} lines ({:.2}x); original: {} locations, {} edges, {} lines; reduce time {:.3} s; condition tracked at {} locations; kept {} of {} cuts ({:.1}%), {} of {} precise locations",
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
        );
    }
    Ok(())
}

/// What `exec` prints: every step (`trace`), JSON instead of text (`json`).
struct ExecOutput {
    trace: bool,
    json: bool,
}

/// Runs a program on the concrete interpreter and prints how the run ended.
fn exec(
    program: PathBuf,
    model: DataModel,
    options: ExecOptions,
    inputs: Vec<i128>,
    output: ExecOutput,
    signed_overflow: SignedOverflow,
) -> Result<(), Failure> {
    let mut loaded = load_program(&program, model).map_err(Failure::input)?;
    loaded.signed_overflow = signed_overflow;
    // Text: each step is printed as it happens, and the first failed write (the reader closed
    // the pipe, say) ends the printing. JSON: the steps are collected into the document.
    let mut failed: Option<Failure> = None;
    let mut steps: Vec<String> = Vec::new();
    let mut on_step = |step: &Step| {
        if output.json {
            steps.push(render_step(&loaded, step));
        } else if failed.is_none() {
            failed = write_stdout(format_args!("{}\n", render_step(&loaded, step))).err();
        }
    };
    let observer: &mut dyn FnMut(&Step) = if output.trace { &mut on_step } else { &mut |_| {} };
    let run = execute_observed(&loaded, &inputs, &options, observer);
    if let Some(failure) = failed {
        return Err(failure);
    }
    if output.json {
        let trace = output.trace.then_some(steps);
        let report = cli_json::ExecReport::new(&run, inputs.len(), trace);
        outln!("{}", document(&report).map_err(Failure::other)?);
        return Ok(());
    }
    match run.ending {
        Ending::StepLimit => outln!("step limit {} reached", options.max_steps),
        ref ending => outln!("{ending}"),
    }
    outln!(
        "{} of {} inputs consumed, {} nondet calls, {} steps",
        run.inputs_consumed,
        inputs.len(),
        run.nondet_values.len(),
        run.steps
    );
    Ok(())
}

fn bench(a: BenchArgs) -> Result<(), Failure> {
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
fn check_run_definition(rd: &baton::bench::RunDefinition) -> Result<(), Failure> {
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

fn table(a: TableArgs) -> Result<(), Failure> {
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

fn run(a: RunArgs) -> Result<(), Failure> {
    use baton::pipeline::runner;
    let registry = baton::adapters::registry::Registry::load(&a.adapters.dirs).map_err(Failure::input)?;
    let mut flow = runner::load_flow(&a.flow, &registry).map_err(Failure::input)?;
    if let Some(limit) = a.cpu_time {
        flow.budget.cpu_time = Some(flow.budget.cpu_time.map_or(limit, |b| b.min(limit)));
    }
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

/// Validates a witness and prints the judgement (exit status 0 for every judgement).
fn validate(a: ValidateArgs) -> Result<(), Failure> {
    let (task, mut program) = load_input(&a.input)?;
    program.signed_overflow = a.semantics.signed_overflow.unwrap_or_default();
    let limits = CheckLimits {
        cpu_time: a.cpu_time,
        ..CheckLimits::default()
    };
    let v = validate_file(&program, &a.witness, limits).map_err(Failure::input)?;
    if a.json {
        let value = serde_json::json!({
            "task": task.name(), "witness_file": a.witness.display().to_string(),
            "witness": v.witness, "judgement": v.judgement, "reason": v.reason, "values": v.values,
        });
        outln!("{}", document(&value).map_err(Failure::other)?);
    } else {
        outln!("{} witness: {:?} ({})", v.witness, v.judgement, v.reason);
    }
    Ok(())
}

/// Prints each adapter (built-in and user) with its executables, found or not, and version.
fn tools(a: ToolsArgs) -> Result<(), Failure> {
    use baton::adapters::registry::{tool_status, Registry};
    let registry = Registry::load(&a.adapters.dirs).map_err(Failure::input)?;
    let statuses = tool_status(&registry);
    let native = vec!["explicit", "predicate", "chc"];
    if a.json {
        let report = cli_json::ToolsReport::new(&statuses, native);
        outln!("{}", document(&report).map_err(Failure::other)?);
        return Ok(());
    }
    for status in statuses {
        let found = status.executables.iter().all(|(_, f)| f.is_ok());
        let version = match (&status.version, &status.not_installable) {
            (Some(v), _) => v.clone(),
            (None, _) if found => "found (version unknown)".to_string(),
            (None, Some(_)) => "not installable here".to_string(),
            (None, None) => "not found".to_string(),
        };
        outln!("{:12} {version}  [{}]", status.tool, status.origin);
        for (role, found) in &status.executables {
            match found {
                Ok(p) => outln!("    {role}: {}", p.display()),
                Err(names) => {
                    outln!("    {role}: {names}: not found (on PATH, BATON_TOOLS_DIR or /opt/baton-tools)")
                }
            }
        }
        if let (None, Some(why)) = (&status.version, &status.not_installable) {
            outln!("    cannot be installed on this machine: {why}");
        }
    }
    outln!("native       {} (built in)", native.join(", "));
    Ok(())
}

/// Stack of the thread a command runs on. Parsing, lowering and every walk over an expression
/// recurse as deep as a program nests (up to the frontend's nesting limit); the stack is
/// reserved address space, touched only as deep as the program needs.
const COMMAND_STACK_BYTES: usize = 1 << 30;

fn main() -> ExitCode {
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == lifecycle::REAPER_ARG)
    {
        lifecycle::serve_reaper();
        return ExitCode::SUCCESS;
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() && std::env::args_os().any(|a| a == "--json") => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or_default();
            let message = first.strip_prefix("error: ").unwrap_or(first);
            return report(Err(Failure::input(message)), true);
        }
        Err(e) => e.exit(),
    };
    let json = cli.command.json();
    // Commands that start tools: stopped cleanly by SIGINT, SIGTERM and SIGHUP, and followed
    // by a reaper for SIGKILL (see `lifecycle`). Installed before the command thread starts,
    // which inherits the signal mask.
    if matches!(cli.command, Command::Run(_) | Command::Bench(_)) {
        let exe = std::env::current_exe().ok();
        if let Err(e) = lifecycle::install(exe.as_deref()) {
            return report(
                Err(Failure::other(format!("cannot set up signal handling: {e}"))),
                json,
            );
        }
    }
    let command = std::thread::Builder::new()
        .name("baton".into())
        .stack_size(COMMAND_STACK_BYTES)
        .spawn(move || run_command(cli));
    match command {
        // A panic has printed its message; 101 is Rust's exit status for it.
        Ok(thread) => thread.join().unwrap_or(ExitCode::from(101)),
        Err(e) => report(
            Err(Failure::other(format!("cannot start the command thread: {e}"))),
            json,
        ),
    }
}

impl Command {
    /// Whether the command was asked for JSON output (`--json`).
    fn json(&self) -> bool {
        match self {
            Command::Cfa { json, .. } | Command::Exec { json, .. } => *json,
            Command::Verify(a) => a.json,
            Command::Reduce(a) => a.json,
            Command::Bench(a) => a.json,
            Command::Table(a) => a.json,
            Command::Tools(a) => a.json,
            Command::Run(a) => a.json,
            Command::Validate(a) => a.json,
        }
    }
}

fn run_command(cli: Cli) -> ExitCode {
    let json = cli.command.json();
    let result = match cli.command {
        Command::Cfa {
            program,
            data_model,
            dot,
            json,
        } => cfa(program, data_model, dot, json),
        Command::Exec {
            program,
            data_model,
            inputs,
            max_steps,
            trace,
            semantics,
            json,
        } => exec(
            program,
            data_model,
            ExecOptions {
                max_steps,
                record_path: false,
            },
            inputs,
            ExecOutput { trace, json },
            semantics.signed_overflow.unwrap_or_default(),
        ),
        Command::Verify(args) => verify(args),
        Command::Reduce(args) => reduce(args),
        Command::Bench(args) => bench(args),
        Command::Tools(args) => tools(args),
        Command::Table(args) => table(args),
        Command::Run(args) => run(args),
        Command::Validate(args) => validate(args),
    };
    report(result, json)
}
