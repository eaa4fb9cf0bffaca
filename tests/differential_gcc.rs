//! Differential test of Baton's frontend and concrete interpreter against gcc.
//!
//! Random programs (tests/support/cgen.rs; the seed is the corpus) are compiled natively with
//! `gcc -fwrapv` (tests/support/gcc_harness.rs) and loaded with Baton's frontend; both run on
//! the same input lists and must end the same way: same kind of ending, same line of
//! `reach_error`/`abort`/`__VERIFIER_assume`, same exit code or return value (a hash of all
//! variables) and the same number of nondet calls; replaying the nondet values a run used
//! must repeat it. The generated programs contain signed overflow, so they are loaded with
//! wrap-around semantics (`--signed-overflow wrap`, gcc's `-fwrapv`); the same runs under the
//! default semantics (signed overflow is undefined) must then end exactly alike, or end with
//! signed overflow where the wrap-around run overflowed. The programs use arrays (global and
//! local, multi-dimensional, initialiser lists, variable-length), so the memory model of the
//! frontend and interpreter is compared with gcc's layout and semantics too. Both data models are checked: LP64 with `-m64` and ILP32 with `-m32`
//! (skipped with a printed reason when gcc cannot link 32-bit programs: install
//! gcc-multilib). A second generator (tests/support/cgen_floats.rs) checks `float`
//! and `double` arithmetic, conversions and union type punning bit for bit against gcc with
//! SSE (`-msse2 -mfpmath=sse`, as sv-benchmarks' ILP32 tasks are compiled). A third
//! (tests/support/cgen_structs.rs) checks structs: member access, copies, initialisers and
//! `sizeof` with gcc's padding. A fourth (tests/support/cgen_pointers.rs) checks pointers and
//! the heap: addresses of variables, elements and members, pointer arithmetic, differences
//! and comparisons (also of member addresses, which show the layout of structs), pointers to
//! pointers, out-parameters, `malloc`/`calloc`/`realloc`/`free` and linked lists. A fifth
//! (tests/support/cgen_library.rs) checks the C library functions
//! Baton models: `memset`, `memcpy`, `memmove`, `memcmp` over arrays, structs and heap blocks,
//! and `strlen`, `strcmp`, `strncmp`, `strcpy`, `strncpy`, `strcat`, `strchr` on strings.
//! A sixth (tests/support/cgen_unions.rs) checks unions with struct and array members: member
//! reads reinterpreting the bytes other members wrote, whole-union copies, unions in structs
//! and arrays and behind pointers, `sizeof` and `_Alignof`.
//!
//! Every generator runs `BATON_DIFF_PROGRAMS` programs (default: its CI count below) per data
//! model, seeds from `BATON_DIFF_FIRST_SEED` (default 0) on, `BATON_DIFF_INPUTS` input lists
//! each (default [`INPUT_LISTS`]);
//! `scripts/differential-bench.sh` runs them all at a large count (the benchmark).

#[path = "support/cgen.rs"]
mod cgen;
#[path = "support/cgen_floats.rs"]
mod cgen_floats;
#[path = "support/cgen_library.rs"]
mod cgen_library;
#[path = "support/cgen_pointers.rs"]
mod cgen_pointers;
#[path = "support/cgen_structs.rs"]
mod cgen_structs;
#[path = "support/cgen_unions.rs"]
mod cgen_unions;
#[path = "support/gcc_harness.rs"]
mod gcc_harness;

use baton::cfa::interpreter::{execute, Ending, ExecOptions, Execution};
use baton::cfa::semantics::{SignedOverflow, UndefinedBehavior};
use baton::cfa::types::DataModel;
use std::collections::BTreeMap;
use std::process::Command;
use std::sync::Mutex;

const PROGRAMS: u64 = 240;
const INPUT_LISTS: usize = 24;
const BATCH: usize = 40;
/// Float programs per data model (x `BATON_DIFF_INPUTS` runs each).
const FLOAT_PROGRAMS: u64 = 220;
/// Struct programs per data model (x `BATON_DIFF_INPUTS` runs each).
const STRUCT_PROGRAMS: u64 = 220;
/// Pointer and heap programs per data model (x `BATON_DIFF_INPUTS` runs each).
const POINTER_PROGRAMS: u64 = 220;
/// Programs over unions with aggregate members per data model.
const UNION_PROGRAMS: u64 = 220;
/// Programs calling the C library's memory and string functions per data model.
const LIBRARY_PROGRAMS: u64 = 220;

/// The number in environment variable `name`, or `default`.
fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The seeds a generator runs: `BATON_DIFF_PROGRAMS` of them (default `default`) from
/// `BATON_DIFF_FIRST_SEED` (default 0) on.
fn seeds(default: u64) -> Vec<u64> {
    let first = env("BATON_DIFF_FIRST_SEED", 0);
    (first..first + env("BATON_DIFF_PROGRAMS", default)).collect()
}

/// Input lists per program: `BATON_DIFF_INPUTS` (default [`INPUT_LISTS`]).
fn input_lists() -> usize {
    env("BATON_DIFF_INPUTS", INPUT_LISTS as u64) as usize
}

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

/// Per batch: the disagreements and how many runs ended in each way (by gcc's account).
struct BatchResult {
    disagreements: Vec<Disagreement>,
    endings: BTreeMap<String, usize>,
    /// Runs that ended with signed overflow under the default semantics.
    overflows: usize,
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
) -> Result<BatchResult, String> {
    let name = format!("batch-{model}-{}", seeds[0]);
    let exe = gcc_harness::compile_batch(programs, model.gcc_flag(), &[], dir, &name)?;
    let mut runs = Vec::new();
    for (k, &seed) in seeds.iter().enumerate() {
        for inputs in cgen::input_lists(seed, input_lists()) {
            runs.push((k, inputs));
        }
    }
    let native = gcc_harness::run_batch(&exe, &runs)?;
    let mut loaded = Vec::new();
    for (p, &seed) in programs.iter().zip(seeds) {
        let file = format!("{}.c", p.prefix);
        loaded.push(
            baton::frontend::load_source(&file, &p.text(), model)
                .map(|mut program| {
                    program.signed_overflow = SignedOverflow::Wrap;
                    program
                })
                .map_err(|e| format!("frontend rejected generated program {seed} ({model}): {e}")),
        );
    }
    let mut overflows = 0;
    let options = ExecOptions {
        max_steps: 10_000_000,
        record_path: false,
    };
    let mut out = Vec::new();
    let mut endings = BTreeMap::new();
    for ((k, inputs), gcc) in runs.into_iter().zip(native) {
        let kind = gcc.split(' ').next().unwrap_or("").to_string();
        *endings.entry(kind).or_insert(0) += 1;
        let baton = match &loaded[k] {
            Ok(program) => {
                let run = execute(program, &inputs, &options);
                // Replaying the values the run used must repeat it exactly.
                let replay = execute(program, &run.nondet_values, &options);
                let mut strict_program = program.clone();
                strict_program.signed_overflow = SignedOverflow::Undefined;
                let strict = execute(&strict_program, &inputs, &options);
                let strict_agrees = match strict.ending {
                    Ending::UndefinedBehavior {
                        what: UndefinedBehavior::SignedOverflow,
                        ..
                    } => {
                        overflows += 1;
                        // An assume edge whose condition overflows counts as a step (a
                        // faulting edge); one whose condition is false is not taken.
                        let violated = matches!(run.ending, Ending::AssumptionViolated { .. });
                        strict.steps <= run.steps + u64::from(violated)
                    }
                    _ => (&strict.ending, strict.steps) == (&run.ending, run.steps),
                };
                if (&replay.ending, replay.steps, &replay.nondet_values)
                    != (&run.ending, run.steps, &run.nondet_values)
                {
                    format!("REPLAY DIFFERS: {} vs {}", render(&run), render(&replay))
                } else if !strict_agrees {
                    format!(
                        "UNDEFINED-OVERFLOW RUN DIFFERS: {} vs {}",
                        render(&run),
                        render(&strict)
                    )
                } else {
                    render(&run)
                }
            }
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
    Ok(BatchResult {
        disagreements: out,
        endings,
        overflows,
    })
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

    let seeds = seeds(PROGRAMS);
    let first = seeds.first().copied().unwrap_or(0);
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
    let mut endings: BTreeMap<String, usize> = BTreeMap::new();
    let mut overflows = 0;
    for r in results.into_inner().expect("lock") {
        match r {
            Ok(b) => {
                overflows += b.overflows;
                disagreements.extend(b.disagreements);
                for (k, n) in b.endings {
                    *endings.entry(k).or_insert(0) += n;
                }
            }
            Err(e) => panic!("{e}"),
        }
    }
    eprintln!(
        "endings under gcc: {endings:?}; {overflows} runs end with signed overflow when it is undefined"
    );
    let runs = models.len() * seeds.len() * input_lists();
    eprintln!(
        "{} programs x {} input lists x {} data models: {runs} runs, {} disagreements",
        seeds.len(),
        input_lists(),
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
            programs[(d.seed - first) as usize].text()
        );
    }
    assert!(disagreements.is_empty(), "{} disagreements", disagreements.len());
    assert!(overflows >= 100, "too few runs meet signed overflow: {overflows}");
    // The generator must keep exercising every kind of ending, or the test loses its teeth.
    for kind in ["RETURN", "EXIT", "ERROR", "ABORT", "ASSUME"] {
        assert!(
            endings.get(kind).copied().unwrap_or(0) >= 100,
            "too few `{kind}` endings: {endings:?}"
        );
    }
    // The memory model is exercised: most programs use arrays, many variable-length ones.
    let with = |what: &str| programs.iter().filter(|p| p.text().contains(what)).count();
    let (arrays, vlas, strings) = (with("] = "), with("[n"), with("] = \""));
    eprintln!("{arrays} programs use arrays, {vlas} variable-length ones, {strings} strings");
    assert!(arrays * 2 > programs.len() && vlas * 5 > programs.len() && strings * 10 > programs.len());
}

/// The generated programs are free of undefined behaviour as far as gcc's UBSan (and, for
/// pointer programs, AddressSanitizer) can tell (signed overflow is defined by `-fwrapv`), so
/// gcc's result is the C semantics and not an accident of compilation.
#[test]
fn generated_programs_have_no_undefined_behaviour() {
    if Command::new("gcc").arg("--version").output().is_err() {
        eprintln!("skipping: gcc is not on PATH");
        return;
    }
    let ubsan = ["-fsanitize=undefined", "-fno-sanitize-recover=all"];
    sanitized_runs("p", cgen::generate, &ubsan);
    let asan = ["-fsanitize=undefined,address", "-fno-sanitize-recover=all"];
    sanitized_runs("h", cgen_pointers::generate, &asan);
}

/// Runs 40 programs of `generate` compiled with the sanitizer flags `sanitize`; no run may
/// crash.
fn sanitized_runs(what: &str, generate: fn(u64, &str) -> cgen::GenProgram, sanitize: &[&str]) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let ubsan = sanitize;
    let seeds: Vec<u64> = (0..40).collect();
    let programs: Vec<cgen::GenProgram> = seeds
        .iter()
        .map(|&s| generate(s, &format!("{what}{s}_")))
        .collect();
    let mut runs = Vec::new();
    for (k, &seed) in seeds.iter().enumerate() {
        for inputs in cgen::input_lists(seed, input_lists()) {
            runs.push((k, inputs));
        }
    }
    for model in [DataModel::LP64, DataModel::ILP32] {
        if let Err(why) = gcc_harness::gcc_works(model.gcc_flag(), dir.path()) {
            eprintln!("skipping {model}: {why}");
            continue;
        }
        let name = format!("checked-{what}-{model}");
        let exe = match gcc_harness::compile_batch(&programs, model.gcc_flag(), ubsan, dir.path(), &name) {
            Ok(exe) => exe,
            Err(e)
                if ["asan", "ubsan"]
                    .iter()
                    .any(|lib| e.contains(&format!("lib{lib}")) || e.contains(&format!("-l{lib}"))) =>
            {
                eprintln!("skipping {model}: a sanitizer is not available: {e}");
                continue;
            }
            Err(e) => panic!("{e}"),
        };
        let out = gcc_harness::run_batch(&exe, &runs).expect("batch runs");
        let crashes: Vec<String> = out
            .iter()
            .zip(&runs)
            .filter(|(line, _)| line.starts_with("CRASH"))
            .map(|(line, (k, inputs))| format!("seed {}, inputs {inputs:?}: {line}", seeds[*k]))
            .collect();
        assert!(crashes.is_empty(), "{model}: {crashes:#?}");
    }
}

/// Programs of one generator, run natively and on the interpreter in both data models.
struct GeneratedRuns {
    runs: usize,
    /// gcc's distinct results.
    results: std::collections::BTreeSet<String>,
    /// (model, index into `programs`, inputs, gcc, baton).
    disagreements: Vec<(DataModel, usize, Vec<i128>, String, String)>,
    seeds: Vec<u64>,
    programs: Vec<cgen::GenProgram>,
}

/// Compiles the programs of `generate` (as many as [`seeds`] says, by default `count`) with
/// `gcc <model flag> <extra>` in batches,
/// compares every run with the interpreter's and asserts they agree, on many different
/// results; `None` when gcc is missing.
fn run_generated(
    what: &str,
    generate: fn(u64, &str) -> cgen::GenProgram,
    count: u64,
    extra: &[&str],
) -> Option<GeneratedRuns> {
    if Command::new("gcc").arg("--version").output().is_err() {
        eprintln!("skipping: gcc is not on PATH");
        return None;
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let seeds = seeds(count);
    let programs: Vec<cgen::GenProgram> = seeds
        .iter()
        .map(|&s| generate(s, &format!("{what}{s}_")))
        .collect();
    let options = ExecOptions {
        max_steps: 1_000_000,
        record_path: false,
    };
    let mut out = GeneratedRuns {
        runs: 0,
        results: std::collections::BTreeSet::new(),
        disagreements: Vec::new(),
        programs: Vec::new(),
        seeds: Vec::new(),
    };
    for model in [DataModel::LP64, DataModel::ILP32] {
        if let Err(why) = gcc_harness::gcc_works(model.gcc_flag(), dir.path()) {
            eprintln!("skipping {model}: {why} (install gcc-multilib)");
            continue;
        }
        for start in (0..seeds.len()).step_by(BATCH) {
            let end = (start + BATCH).min(seeds.len());
            let name = format!("{what}-{model}-{start}");
            let exe =
                gcc_harness::compile_batch(&programs[start..end], model.gcc_flag(), extra, dir.path(), &name)
                    .unwrap_or_else(|e| panic!("{e}"));
            let mut runs = Vec::new();
            for (k, &seed) in seeds[start..end].iter().enumerate() {
                for inputs in cgen::input_lists(seed, input_lists()) {
                    runs.push((k, inputs));
                }
            }
            let native = gcc_harness::run_batch(&exe, &runs).unwrap_or_else(|e| panic!("{e}"));
            let loaded: Vec<_> = programs[start..end]
                .iter()
                .map(|p| {
                    baton::frontend::load_source(&format!("{}.c", p.prefix), &p.text(), model).unwrap_or_else(
                        |e| panic!("frontend rejected {what} program {}: {e}\n{}", p.prefix, p.text()),
                    )
                })
                .collect();
            for ((k, inputs), gcc) in runs.into_iter().zip(native) {
                let run = execute(&loaded[k], &inputs, &options);
                let baton = render(&run);
                out.runs += 1;
                out.results.insert(gcc.clone());
                if baton != gcc {
                    out.disagreements.push((model, start + k, inputs, gcc, baton));
                }
            }
        }
    }
    out.programs = programs;
    out.seeds = seeds;
    eprintln!(
        "{what} programs: {} runs, {} distinct results, {} disagreements",
        out.runs,
        out.results.len(),
        out.disagreements.len()
    );
    for (model, k, inputs, gcc, baton) in out.disagreements.iter().take(5) {
        let seed = out.seeds[*k];
        eprintln!("seed {seed} ({model}), inputs {inputs:?}: gcc `{gcc}`, baton `{baton}`");
    }
    if let Some((_, k, ..)) = out.disagreements.first() {
        eprintln!("program of seed {}:\n{}", out.seeds[*k], out.programs[*k].text());
    }
    assert!(
        out.disagreements.is_empty(),
        "{} disagreements",
        out.disagreements.len()
    );
    // The runs compute many different values, not one result by accident.
    assert!(
        out.runs == 0 || out.results.len() * 4 > out.runs,
        "{} results",
        out.results.len()
    );
    Some(out)
}

/// Float programs: IEEE-754 results, conversions and punned bytes as gcc computes them with SSE,
/// `long double` as it computes it with the x87 unit. `-fexcess-precision=standard`: under
/// `-m32` gcc converts a 64-bit integer to `double` on the x87 unit, and with its GNU default
/// (`fast`) a `long double` operation then uses the unrounded value; C (and gcc in an ISO mode)
/// rounds it to `double` first, as Baton does.
#[test]
fn interpreter_agrees_with_gcc_on_float_programs() {
    let sse = ["-msse2", "-mfpmath=sse", "-fexcess-precision=standard"];
    run_generated("q", cgen_floats::generate, FLOAT_PROGRAMS, &sse);
}

/// Struct programs: member access through every path, struct copies, initialisers, passing
/// by value and `sizeof` with gcc's padding, in both data models.
#[test]
fn interpreter_agrees_with_gcc_on_struct_programs() {
    let sse = ["-msse2", "-mfpmath=sse"];
    if let Some(out) = run_generated("s", cgen_structs::generate, STRUCT_PROGRAMS, &sse) {
        // Every program declares struct types and objects of them.
        assert!(out.programs.iter().all(|p| p.text().contains("struct")));
    }
}

/// Union programs: unions of a struct, a word and arrays of bytes and halves, in structs and
/// arrays, written and read through every member (the bytes reinterpreted), copied whole, with
/// `sizeof` and `_Alignof` as gcc lays them out, in both data models.
#[test]
fn interpreter_agrees_with_gcc_on_union_programs() {
    if let Some(out) = run_generated("n", cgen_unions::generate, UNION_PROGRAMS, &[]) {
        assert!(out.programs.iter().all(|p| p.text().contains("union")));
    }
}

/// Pointer and heap programs: addresses, pointer arithmetic within objects, differences and
/// comparisons, pointers to pointers, out-parameters, `malloc`/`calloc`/`realloc`/`free`,
/// linked lists, in both data models.
#[test]
fn interpreter_agrees_with_gcc_on_pointer_programs() {
    if let Some(out) = run_generated("h", cgen_pointers::generate, POINTER_PROGRAMS, &[]) {
        // Counted in the programs' own lines, after the declarations of the library functions.
        let with = |what: &str| {
            let body = |p: &cgen::GenProgram| p.lines[p.decl_lines..].join("\n");
            out.programs.iter().filter(|p| body(p).contains(what)).count()
        };
        let n = out.programs.len();
        eprintln!(
            "{n} pointer programs: {} with a linked list, {} realloc, {} pointers to pointers, \
             {} pointers to a whole local struct, {} a decayed array of structs, {} struct copies \
             through pointers, {} decayed rows, {} decayed variable-length arrays, {} member \
             address differences, {} offsetof",
            with("*head"),
            with("realloc("),
            with(" **pp"),
            with("*sp = &s;"),
            with("*lp = la;"),
            with("= *r;"),
            with("_row)[3]"),
            with("int vl"),
            with(" - (char *) &"),
            with("__builtin_offsetof")
        );
        // The generator keeps exercising lists, realloc, pointers to pointers and named
        // structs in memory.
        assert!(n < 20 || (with("*head") * 3 > n && with("realloc(") * 5 > n && with(" **pp") * 3 > n));
        assert!(n < 20 || (with("*sp = &s;") * 4 > n && with("*lp = la;") * 4 > n && with("int vl") * 5 > n));
        // And the layout of structs seen through member addresses.
        assert!(n < 20 || (with(" - (char *) &") * 2 > n && with("__builtin_offsetof") * 4 > n));
    }
}

/// Programs calling `memset`, `memcpy`, `memmove`, `memcmp` on arrays of every integer width,
/// structs and heap blocks, and the string functions on local and heap strings, in both data
/// models.
#[test]
fn interpreter_agrees_with_gcc_on_library_programs() {
    if let Some(out) = run_generated("m", cgen_library::generate, LIBRARY_PROGRAMS, &[]) {
        let with = |what: &str| {
            let body = |p: &cgen::GenProgram| p.lines[p.decl_lines..].join("\n");
            out.programs.iter().filter(|p| body(p).contains(what)).count()
        };
        let n = out.programs.len();
        eprintln!(
            "{n} library programs: {} memset, {} memcpy, {} memmove, {} memcmp, {} strlen, {} strcmp, {} strcat, {} strncpy, {} strchr",
            with("  memset("),
            with("memcpy("),
            with("memmove("),
            with("memcmp("),
            with("strlen("),
            with("strcmp("),
            with("strcat("),
            with("strncpy("),
            with("strchr(")
        );
        // The generator keeps exercising every function.
        let functions = [
            "memcpy(", "memmove(", "memcmp(", "strlen(", "strcmp(", "strcat(", "strchr(",
        ];
        assert!(n < 40 || functions.iter().all(|f| with(f) * 8 > n));
    }
}
