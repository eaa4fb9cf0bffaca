//! The subcommands' arguments and bodies. Each module is one subcommand (or a pair that
//! belongs together); this one holds what they share: how a failure is reported, how output is
//! written, and the argument groups several subcommands flatten in.

use baton::cfa::semantics::SignedOverflow;
use baton::cfa::types::DataModel;
use baton::cfa::Program;
use baton::cli_json::{error_document, ErrorKind};
use baton::exec::lifecycle;
use baton::frontend::{load_program, one_line};
use baton::task::Task;
use baton::witness::WitnessFormat;
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

pub(crate) mod bench;
pub(crate) mod program;
pub(crate) mod reduce;
pub(crate) mod run;
pub(crate) mod tools;
pub(crate) mod validate;
pub(crate) mod verify;

/// Where `verify` and `run` write the witness of a `true` or `false`.
#[derive(clap::Args)]
pub(crate) struct WitnessArgs {
    /// Write the witness of a `true` or `false` here: SV-COMP format 2.0 (YAML), or GraphML
    /// 1.x for a `.graphml` file (violation witnesses only).
    #[arg(long, value_name = "FILE")]
    pub(crate) witness: Option<PathBuf>,
}

impl WitnessArgs {
    pub(crate) fn format(&self) -> Option<(&std::path::Path, WitnessFormat)> {
        self.witness.as_deref().map(|p| (p, WitnessFormat::of_path(p)))
    }
}

/// The C semantics options of `verify`, `exec` and `run`.
#[derive(clap::Args)]
pub(crate) struct SemanticsArgs {
    /// What signed overflow means: undefined (paths through it, like those through any
    /// undefined behaviour, are excluded, as sv-benchmarks assumes) or wrap (gcc -fwrapv).
    /// Default: undefined (for `run`: the flow file's `signed-overflow`, else undefined).
    #[arg(long, value_name = "undefined|wrap")]
    pub(crate) signed_overflow: Option<SignedOverflow>,
}

/// Where user tool adapters are (besides the built-in ones and `BATON_ADAPTERS`).
#[derive(clap::Args)]
pub(crate) struct AdapterDirs {
    /// A directory of tool adapters (*.yaml), after the built-in ones (repeatable).
    #[arg(long = "adapters", value_name = "DIR")]
    pub(crate) dirs: Vec<PathBuf>,
}

#[derive(clap::Args)]
pub(crate) struct InputArgs {
    /// A C program (.c/.i) or an sv-benchmarks task definition (.yml).
    pub(crate) input: PathBuf,
    /// Data model (default: the task's, ILP32 for bare programs).
    #[arg(long)]
    pub(crate) data_model: Option<DataModel>,
}

/// An error the CLI reports: one line, and the exit status (2: the input cannot be used).
pub(crate) struct Failure {
    pub(crate) message: String,
    pub(crate) code: u8,
}

impl Failure {
    pub(crate) fn input(e: impl Display) -> Failure {
        Failure {
            message: e.to_string(),
            code: 2,
        }
    }

    pub(crate) fn other(e: impl Display) -> Failure {
        Failure {
            message: e.to_string(),
            code: 1,
        }
    }

    /// Standard output failed; a closed pipe (the reader has what it wanted, as with `| head`)
    /// ends Baton quietly.
    pub(crate) fn output(e: std::io::Error) -> Failure {
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
pub(crate) fn write_stdout(args: std::fmt::Arguments) -> Result<(), Failure> {
    std::io::stdout().lock().write_fmt(args).map_err(Failure::output)
}

/// Prints a failure as one line on stderr (with `json`, as an error document on stdout) and
/// turns it into the exit status; after SIGINT, SIGTERM or SIGHUP the status is 128 + the signal.
pub(crate) fn report(result: Result<(), Failure>, json: bool) -> ExitCode {
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

/// Loads the task and its program.
pub(crate) fn load_input(args: &InputArgs) -> Result<(Task, Program), Failure> {
    let mut task = Task::load(&args.input, args.data_model.unwrap_or_default()).map_err(Failure::input)?;
    if let Some(model) = args.data_model {
        task.data_model = model;
    }
    let program = load_program(&task.program, task.data_model).map_err(Failure::input)?;
    Ok((task, program))
}
