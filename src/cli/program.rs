//! `cfa` and `exec`: a program's control-flow automata, and a run of it on the interpreter.

use super::{load_input, write_stdout, Failure, InputArgs};
use baton::cfa::interpreter::{execute_observed, render_step, Ending, ExecOptions, Step};
use baton::cfa::semantics::SignedOverflow;
use baton::cli_json::{self, document};
use std::path::PathBuf;

pub(crate) fn cfa(input: &InputArgs, dot: Option<PathBuf>, json: bool) -> Result<(), Failure> {
    let (_, loaded) = load_input(input)?;
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

/// What `exec` prints: every step (`trace`), JSON instead of text (`json`).
pub(crate) struct ExecOutput {
    pub(crate) trace: bool,
    pub(crate) json: bool,
}

/// Runs a program on the concrete interpreter and prints how the run ended.
pub(crate) fn exec(
    input: &InputArgs,
    options: ExecOptions,
    inputs: Vec<i128>,
    output: ExecOutput,
    signed_overflow: SignedOverflow,
) -> Result<(), Failure> {
    let (_, mut loaded) = load_input(input)?;
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
