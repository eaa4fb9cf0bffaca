//! Differential test of Baton's frontend and concrete interpreter against gcc.
//!
//! Random programs (tests/support/cgen.rs; the seed is the corpus) are compiled natively with
//! `gcc -fwrapv` (tests/support/gcc_harness.rs) and loaded with Baton's frontend; both run on
//! the same input lists and must end the same way: same kind of ending, same line of
//! `reach_error`/`abort`/`__VERIFIER_assume`, same exit code or return value (a hash of all
//! variables) and the same number of nondet calls. Both data models are checked: LP64 with
//! `-m64` and ILP32 with `-m32` (skipped with a printed reason when gcc cannot link 32-bit
//! programs; install gcc-multilib).

#[path = "support/cgen.rs"]
mod cgen;
#[path = "support/gcc_harness.rs"]
mod gcc_harness;

use baton::cfa::interpreter::{execute, Ending, ExecOptions, Execution};
use baton::cfa::types::DataModel;
use std::process::Command;
use std::sync::Mutex;

const PROGRAMS: u64 = 240;
const INPUT_LISTS: usize = 24;
const BATCH: usize = 40;

/// The interpreter's ending in the harness's notation.
fn render(e: &Execution) -> String {
    let n = e.nondet_values.len();
    match &e.ending {
        Ending::ErrorReached { line, .. } => format!("ERROR {line} {n}"),
        Ending::Aborted { line } => format!("ABORT {line} {n}"),
        Ending::Exited { code } => format!("EXIT {code} {n}"),
        Ending::Returned { value: Some(v) } => format!("RETURN {v} {n}"),
        Ending::AssumptionViolated { line } => format!("ASSUME {line} {n}"),
        other => format!("OTHER {other} {n}"),
    }
}

struct Disagreement {
    model: DataModel,
    seed: u64,
    inputs: Vec<i128>,
    gcc: String,
    baton: String,
}

fn check_batch(
    model: DataModel,
    seeds: &[u64],
    programs: &[cgen::GenProgram],
    dir: &std::path::Path,
) -> Result<Vec<Disagreement>, String> {
    let name = format!("batch-{model}-{}", seeds[0]);
    let exe = gcc_harness::compile_batch(programs, model.gcc_flag(), dir, &name)?;
    let mut runs = Vec::new();
    for (k, &seed) in seeds.iter().enumerate() {
        for inputs in cgen::input_lists(seed, INPUT_LISTS) {
            runs.push((k, inputs));
        }
    }
    let native = gcc_harness::run_batch(&exe, &runs)?;
    let mut loaded = Vec::new();
    for (p, &seed) in programs.iter().zip(seeds) {
        let file = format!("{}.c", p.prefix);
        loaded.push(
            baton::frontend::load_source(&file, &p.text(), model)
                .map_err(|e| format!("frontend rejected generated program {seed} ({model}): {e}")),
        );
    }
    let options = ExecOptions {
        max_steps: 10_000_000,
        record_path: false,
    };
    let mut out = Vec::new();
    for ((k, inputs), gcc) in runs.into_iter().zip(native) {
        let baton = match &loaded[k] {
            Ok(program) => render(&execute(program, &inputs, &options)),
            Err(e) => e.clone(),
        };
        if baton != gcc {
            out.push(Disagreement {
                model,
                seed: seeds[k],
                inputs,
                gcc,
                baton,
            });
        }
    }
    Ok(out)
}

#[test]
fn interpreter_agrees_with_gcc_on_generated_programs() {
    if Command::new("gcc").arg("--version").output().is_err() {
        eprintln!("skipping: gcc is not on PATH");
        return;
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut models = Vec::new();
    for model in [DataModel::LP64, DataModel::ILP32] {
        match gcc_harness::gcc_works(model.gcc_flag(), dir.path()) {
            Ok(()) => models.push(model),
            Err(why) => eprintln!("skipping {model}: {why} (install gcc-multilib)"),
        }
    }
    assert!(
        !models.is_empty(),
        "gcc can build neither 64- nor 32-bit programs"
    );

    let seeds: Vec<u64> = (0..PROGRAMS).collect();
    let programs: Vec<cgen::GenProgram> = seeds
        .iter()
        .map(|&s| cgen::generate(s, &format!("p{s}_")))
        .collect();
    let mut work = Vec::new();
    for &model in &models {
        for start in (0..seeds.len()).step_by(BATCH) {
            let end = (start + BATCH).min(seeds.len());
            work.push((model, start, end));
        }
    }
    let work = Mutex::new(work);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let Some((model, start, end)) = work.lock().expect("lock").pop() else {
                    break;
                };
                let r = check_batch(model, &seeds[start..end], &programs[start..end], dir.path());
                results.lock().expect("lock").push(r);
            });
        }
    });
    let mut disagreements = Vec::new();
    for r in results.into_inner().expect("lock") {
        match r {
            Ok(d) => disagreements.extend(d),
            Err(e) => panic!("{e}"),
        }
    }
    let runs = models.len() * PROGRAMS as usize * INPUT_LISTS;
    eprintln!(
        "{} programs x {INPUT_LISTS} input lists x {} data models: {runs} runs, {} disagreements",
        PROGRAMS,
        models.len(),
        disagreements.len()
    );
    for d in disagreements.iter().take(10) {
        eprintln!(
            "seed {} ({}), inputs {:?}: gcc `{}`, baton `{}`",
            d.seed, d.model, d.inputs, d.gcc, d.baton
        );
    }
    if let Some(d) = disagreements.first() {
        eprintln!(
            "program of seed {}:\n{}",
            d.seed,
            programs[d.seed as usize].text()
        );
    }
    assert!(disagreements.is_empty(), "{} disagreements", disagreements.len());
}
