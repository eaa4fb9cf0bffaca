//! The `baton` command line. It only parses arguments and calls library functions; errors are
//! printed as one line on stderr with a non-zero exit status.

use baton::cfa::interpreter::{execute_observed, render_step, Ending, ExecOptions, Step};
use baton::cfa::types::DataModel;
use baton::frontend::{load_program, FrontendError};
use clap::{Parser, Subcommand};
use std::fmt::Display;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "baton", version, about = "Conditional model checking of C programs")]
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
    },
}

/// An error the CLI reports: printed as one line, mapped to an exit status.
trait CliError: Display {
    fn exit_code(&self) -> u8;
}

impl CliError for FrontendError {
    fn exit_code(&self) -> u8 {
        u8::try_from(FrontendError::exit_code(self)).unwrap_or(2)
    }
}

impl CliError for anyhow::Error {
    fn exit_code(&self) -> u8 {
        1
    }
}

/// Runs a subcommand body: on error prints `baton: <error>` as one line and returns its status.
fn report<E: CliError>(result: Result<(), E>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let line = e.to_string().replace('\n', " ");
            eprintln!("{line}");
            ExitCode::from(e.exit_code())
        }
    }
}

fn cfa(program: PathBuf, model: DataModel, dot: Option<PathBuf>, json: bool) -> ExitCode {
    let loaded = match load_program(&program, model) {
        Ok(p) => p,
        Err(e) => return report(Err(e)),
    };
    report((|| -> anyhow::Result<()> {
        if json {
            println!("{}", serde_json::to_string_pretty(&loaded)?);
        } else {
            print!("{}", baton::cfa::dot::listing(&loaded));
        }
        if let Some(path) = dot {
            std::fs::write(&path, baton::cfa::dot::to_dot(&loaded))
                .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", path.display()))?;
        }
        Ok(())
    })())
}

fn exec(program: PathBuf, model: DataModel, inputs: Vec<i128>, max_steps: u64, trace: bool) -> ExitCode {
    let loaded = match load_program(&program, model) {
        Ok(p) => p,
        Err(e) => return report(Err(e)),
    };
    let options = ExecOptions {
        max_steps,
        record_path: false,
    };
    let mut print_step = |step: &Step| println!("{}", render_step(&loaded, step));
    let observer: &mut dyn FnMut(&Step) = if trace { &mut print_step } else { &mut |_| {} };
    let run = execute_observed(&loaded, &inputs, &options, observer);
    match run.ending {
        Ending::StepLimit => println!("step limit {max_steps} reached"),
        ref ending => println!("{ending}"),
    }
    println!(
        "{} of {} inputs consumed, {} nondet calls, {} steps",
        run.inputs_consumed,
        inputs.len(),
        run.nondet_values.len(),
        run.steps
    );
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
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
        } => exec(program, data_model, inputs, max_steps, trace),
    }
}
