//! The `baton` command line. It only parses arguments and calls library functions; errors are
//! printed as one line on stderr (with `--json`: as a JSON document on stdout, see
//! [`baton::cli_json`]) with a non-zero exit status (see [`EXIT_STATUS_HELP`]).
//! The subcommands themselves are in [`cli`], one module each.

mod cli;

use baton::cfa::interpreter::ExecOptions;
use baton::exec::lifecycle;
use clap::{Parser, Subcommand};
use cli::bench::{BenchArgs, TableArgs};
use cli::program::ExecOutput;
use cli::reduce::ReduceArgs;
use cli::run::RunArgs;
use cli::tools::ToolsArgs;
use cli::validate::ValidateArgs;
use cli::verify::VerifyArgs;
use cli::{report, Failure, InputArgs, SemanticsArgs};
use std::path::PathBuf;
use std::process::ExitCode;

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
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Parse a C program or task and print its control-flow automata.
    Cfa {
        #[command(flatten)]
        input: InputArgs,
        /// Also write the CFAs as Graphviz DOT to this file.
        #[arg(long)]
        dot: Option<PathBuf>,
        /// Print the program as JSON instead of the text listing.
        #[arg(long)]
        json: bool,
    },
    /// Run a C program (or a task's) on the concrete interpreter with given nondet values.
    Exec {
        #[command(flatten)]
        input: InputArgs,
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
        Command::Cfa { input, dot, json } => cli::program::cfa(&input, dot, json),
        Command::Exec {
            input,
            inputs,
            max_steps,
            trace,
            semantics,
            json,
        } => cli::program::exec(
            &input,
            ExecOptions {
                max_steps,
                record_path: false,
            },
            inputs,
            ExecOutput { trace, json },
            semantics.signed_overflow.unwrap_or_default(),
        ),
        Command::Verify(args) => cli::verify::verify(args),
        Command::Reduce(args) => cli::reduce::reduce(args),
        Command::Bench(args) => cli::bench::bench(args),
        Command::Tools(args) => cli::tools::tools(args),
        Command::Table(args) => cli::bench::table(args),
        Command::Run(args) => cli::run::run(args),
        Command::Validate(args) => cli::validate::validate(args),
    };
    report(result, json)
}
