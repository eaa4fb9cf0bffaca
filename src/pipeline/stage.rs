//! One stage of a flow: its input program, running it (a native analysis or any adapter, one
//! path for every adapter), and what its outcome means for the ORIGINAL program.
//!
//! Soundness rules:
//! * A `false` is reported only after the counterexample's nondet values reach the error on
//!   Baton's interpreter running the ORIGINAL program (the residual program consumes nondet
//!   values in the original's order, so values found on a residual replay on the original).
//!   Where Baton cannot lower the program, an external tool's `false` is reported unconfirmed
//!   (`confirmed: false`), or `unknown` under `trust: replayed-only`.
//! * A `true` on a residual program means the whole program is verified: every execution the
//!   accumulated condition does not cover is an execution of the residual program.
//! * A condition computed on a residual program talks about the residual (another program
//!   hash): see [`condition_for_original`], the one place that decides what it adds.
//! * A stage stopped by its budget (TIMEOUT, OUT OF MEMORY) or failing adds nothing.
//!
//! Native stages run as a subprocess of Baton itself (`baton verify … --json`) so that the
//! hard CPU and memory limits of [`crate::exec`] apply; the soft `cpu-time` give-up is set to
//! 90 % of the stage's CPU budget so the analysis stops by itself and still writes its
//! condition before the hard limit.

use super::flow::{Budget, Stage, StageInput, Trust, NATIVE_TOOLS};
use crate::adapters::registry::Registry;
use crate::adapters::run::{run_adapter, Finding, Outcome, StageTask, StepError, Steps, StopSignal};
use crate::adapters::CommandLine;
use crate::analyses::replay_to_error;
use crate::cfa::emit_c::emit_c;
use crate::cfa::semantics::SignedOverflow;
use crate::cfa::types::DataModel;
use crate::cfa::Program;
use crate::condition::{self, ConditionAutomaton};
use crate::exec::Limits;
use crate::reducer;
use crate::verdict::Verdict;
use crate::witness::validate::confirmed_values;
use crate::witness::Evidence;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One stage's row of the report.
#[derive(Debug, Clone, Serialize)]
pub struct StageReport {
    pub name: String,
    pub tool: String,
    /// `reduce`, `identity` or `guide`; `residual` when a reduced program was actually used.
    pub input: String,
    /// What the tool said, as BenchExec names it (`true`, `unknown`, `ERROR (…)`, `TIMEOUT`,
    /// …); `unsupported` for a stage skipped because Baton cannot lower the program; `STOPPED`
    /// for a parallel member stopped because another decided; `not run`.
    pub status: String,
    /// The stage's verdict after replay/mapping (BenchExec string).
    pub verdict: String,
    /// For a `false`: whether Baton replayed its counterexample on the original program.
    pub confirmed: Option<bool>,
    /// The parallel group of the stage (stages of one group ran at the same time).
    pub parallel_group: Option<usize>,
    pub cpu_time_s: f64,
    pub wall_time_s: f64,
    /// Peak memory in bytes of the stage's processes (maximum), where measured.
    pub peak_memory: Option<u64>,
    /// Covered share of CFA edges of the accumulated condition after this stage.
    pub covered_share: f64,
    /// Locations of the program the stage ran on (the residual for reduced input).
    pub program_locations: usize,
    /// Locations of the original program (0 when Baton cannot lower it).
    pub original_locations: usize,
    /// For a residual program: the fraction of the exact residual's cuts (covered transitions
    /// not taken) it keeps within the stage's `max_ratio` ([`reducer::Coverage`]).
    pub cuts_kept: Option<f64>,
    /// Why the verdict is what it is.
    pub note: String,
}

/// What the flow knows when a stage starts.
#[derive(Clone, Copy)]
pub struct FlowState<'a> {
    pub registry: &'a Registry,
    /// The original program's CFA, or why Baton cannot lower it.
    pub original: Result<&'a Program, &'a str>,
    pub original_file: &'a Path,
    pub model: DataModel,
    pub trust: Trust,
    pub accumulated: &'a ConditionAutomaton,
    /// The `baton` executable native stages run as.
    pub baton: &'a Path,
    /// What signed overflow means for native stages (replays use the original's setting).
    pub signed_overflow: SignedOverflow,
}

/// What one stage found, combined with replay.
pub struct StageOutcome {
    pub row: StageReport,
    pub verdict: Verdict,
    /// A new condition about the ORIGINAL program.
    pub condition: Option<ConditionAutomaton>,
    /// CPU time used.
    pub cpu: Duration,
    /// What a definite verdict about the ORIGINAL program comes with, for its witness.
    pub evidence: Option<Evidence>,
}

/// Runs one stage under `budget` in `dir`; `stop` lets a parallel group stop it.
pub fn run_stage(
    state: &FlowState<'_>,
    stage: &Stage,
    budget: &Budget,
    dir: &Path,
    stop: Option<StopSignal>,
) -> Result<StageOutcome, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let original_locations = state.original.map_or(0, |p| p.locations.len());
    let mut row = StageReport {
        name: stage.name.clone(),
        tool: stage.tool.clone(),
        input: input_name(stage.input).into(),
        status: "not run".into(),
        verdict: Verdict::Unknown.benchexec().into(),
        confirmed: None,
        parallel_group: stage.group,
        cpu_time_s: 0.0,
        wall_time_s: 0.0,
        peak_memory: None,
        covered_share: state
            .original
            .map_or(0.0, |p| state.accumulated.summary(p).covered_share()),
        program_locations: original_locations,
        original_locations,
        cuts_kept: None,
        note: String::new(),
    };
    let native = NATIVE_TOOLS.contains(&stage.tool.as_str());
    let original = match state.original {
        Ok(p) => p,
        Err(reason) if native || stage.input == StageInput::Guide => {
            row.status = "unsupported".into();
            row.note = format!("skipped: needs Baton's CFA; {reason}");
            return Ok(StageOutcome {
                row,
                verdict: Verdict::Unknown,
                condition: None,
                cpu: Duration::ZERO,
                evidence: None,
            });
        }
        Err(_) => {
            // Nothing can have been verified without a CFA: the residual is the original.
            let input = StageProgram {
                file: state.original_file.to_path_buf(),
                residual: None,
                cuts_kept: None,
                guide: None,
            };
            return run_on(state, stage, budget, dir, stop, &input, None, row);
        }
    };
    let input = match prepare_input(stage, original, state.original_file, state.accumulated, dir)? {
        Prepared::Program(p) => p,
        Prepared::Verified(why) => {
            row.note = why;
            row.verdict = Verdict::True.benchexec().into();
            row.covered_share = 1.0;
            return Ok(StageOutcome {
                row,
                verdict: Verdict::True,
                condition: None,
                cpu: Duration::ZERO,
                evidence: None,
            });
        }
    };
    let kept = input.residual.as_ref().map(|r| {
        row.input = "residual".into();
        row.program_locations = r.program.locations.len();
        row.cuts_kept = input.cuts_kept;
        format!(
            "residual program {:.2}x the original's locations, keeping {:.0} % of the exact residual's cuts",
            r.program.locations.len() as f64 / original.locations.len().max(1) as f64,
            100.0 * input.cuts_kept.unwrap_or(1.0)
        )
    });
    let mut outcome = run_on(state, stage, budget, dir, stop, &input, Some(original), row)?;
    if let Some(kept) = kept {
        let note = &mut outcome.row.note;
        *note = if note.is_empty() {
            kept
        } else {
            format!("{note}; {kept}")
        };
    }
    Ok(outcome)
}

#[allow(clippy::too_many_arguments)]
fn run_on(
    state: &FlowState<'_>,
    stage: &Stage,
    budget: &Budget,
    dir: &Path,
    stop: Option<StopSignal>,
    input: &StageProgram,
    original: Option<&Program>,
    mut row: StageReport,
) -> Result<StageOutcome, String> {
    let mut steps = Steps::new(
        Limits {
            cpu_time: budget.cpu_time,
            wall_time: budget.wall_time,
            memory: budget.memory,
            ..Limits::default()
        },
        stop,
    );
    let cfa = input.residual.as_deref().map(|r| &r.program).or(original);
    let result = if NATIVE_TOOLS.contains(&stage.tool.as_str()) {
        run_native(state, stage, &mut steps, input, dir)
    } else {
        let adapter = state
            .registry
            .get(&stage.tool)
            .ok_or_else(|| format!("no adapter for tool `{}`", stage.tool))?;
        let options = adapter.resolve_options(&stage.options).map_err(|(_, m)| m)?;
        let task = StageTask {
            program: &input.file,
            cfa,
            model: state.model,
            dir,
            options: &options,
        };
        run_adapter(adapter, &task, &mut steps)
    };
    let outcome = match result {
        Ok(o) => o,
        Err(StepError::Stopped) => Outcome::nothing("STOPPED", "stopped: another stage of the group decided"),
        Err(StepError::Failed(e)) => return Err(e),
    };
    row.status = outcome.status.clone();
    row.cpu_time_s = steps.cpu.as_secs_f64();
    row.wall_time_s = steps.wall.as_secs_f64();
    row.peak_memory = steps.peak_memory;
    let mut note = outcome.note;
    let mut condition = None;
    let mut evidence = None;
    let verdict = match outcome.finding {
        Finding::Nothing => Verdict::Unknown,
        Finding::Proof => {
            if input.residual.is_some() {
                note.push_str("; the residual program is verified, hence the whole program");
            } else if input.guide.is_none() {
                evidence = proof_witness(state, stage, dir).map(Evidence::File);
            }
            Verdict::True
        }
        Finding::Bug {
            candidates,
            source,
            witness,
        } => {
            let witness = witness.as_deref().map(|file| ToolWitness {
                file,
                ran_on: cfa,
                cpu_left: budget.cpu_time.map(|c| c.saturating_sub(steps.cpu)),
            });
            let (v, confirmed, why, values) = confirm(original, &candidates, &source, state.trust, witness);
            row.confirmed = confirmed;
            evidence = values.map(Evidence::Values);
            note = join(&note, &why);
            v
        }
        finding @ (Finding::Condition(_) | Finding::ConditionFile(_)) => {
            let (kept, why) = condition_for_original(finding, input, original, state.accumulated);
            condition = kept;
            note = join(&note, &why);
            Verdict::Unknown
        }
    };
    row.verdict = verdict.benchexec().into();
    if verdict == Verdict::True {
        row.covered_share = 1.0;
    }
    row.note = note;
    Ok(StageOutcome {
        row,
        verdict,
        condition,
        cpu: steps.cpu,
        evidence,
    })
}

/// The correctness witness a stage that proved the original program wrote: a native stage's
/// (`baton verify --witness`), or the file the tool's adapter names.
fn proof_witness(state: &FlowState<'_>, stage: &Stage, dir: &Path) -> Option<PathBuf> {
    if NATIVE_TOOLS.contains(&stage.tool.as_str()) {
        let file = dir.join(NATIVE_WITNESS);
        return file.is_file().then_some(file);
    }
    let patterns = state.registry.get(&stage.tool)?.spec.witness.as_ref()?;
    patterns.find_in(&dir.join("run"))
}

/// The witness file of a native stage in its directory.
const NATIVE_WITNESS: &str = "witness.yml";

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}; {b}"),
    }
}

/// What a condition a stage found (computed, or a file) adds to the accumulated condition about
/// the ORIGINAL program, and a note. On the original program it is kept (a file is read against
/// the original's CFA). On a residual program it talks about the residual: it is mapped back
/// through the reducer's provenance ([`condition::map_back`]), and used only if the next
/// residual program, of the accumulated condition united with it, gets no larger (a
/// path-sensitive condition can unroll the program). Dropping it is always sound: the
/// accumulated condition then only gets smaller than what was verified.
pub fn condition_for_original(
    finding: Finding,
    input: &StageProgram,
    original: Option<&Program>,
    accumulated: &ConditionAutomaton,
) -> (Option<ConditionAutomaton>, String) {
    let Some(original) = original else {
        return match finding {
            Finding::ConditionFile(_) | Finding::Condition(_) => {
                (None, "condition not used: Baton cannot lower the program".into())
            }
            _ => (None, String::new()),
        };
    };
    if let Finding::ConditionFile(file) = &finding {
        if let Some(why) = too_large_to_read(file) {
            return (None, format!("condition not used: {why}"));
        }
    }
    let Some(residual) = &input.residual else {
        return match finding {
            Finding::Condition(c) => (Some(c), String::new()),
            Finding::ConditionFile(file) => match condition::load(&file, original) {
                Ok(c) => (Some(c), String::new()),
                Err(e) => (None, format!("condition not used: {e}")),
            },
            _ => (None, String::new()),
        };
    };
    let mapped = match finding {
        Finding::Condition(c) => {
            condition::map_back::map_back_residual(original, residual, &c).map_err(|e| e.to_string())
        }
        Finding::ConditionFile(file) => {
            condition::map_back::map_back_file(original, residual, &input.file, &file)
                .map_err(|e| e.to_string())
        }
        _ => return (None, String::new()),
    };
    match mapped {
        Err(e) => (
            None,
            format!("condition of the residual program not mapped back: {e}"),
        ),
        Ok(c) if c.is_trivial_empty() => (None, String::new()),
        Ok(c) => match condition::union(&[accumulated.clone(), c.clone()]) {
            Ok(united) if reducer::no_larger(original, &united, residual) => {
                (Some(c), "condition mapped back from the residual program".into())
            }
            Ok(_) => (
                None,
                "mapped-back condition not used: it would enlarge the residual program".into(),
            ),
            Err(e) => (None, format!("mapped-back condition not used: {e}")),
        },
    }
}

/// Memory the runner needs per byte of a condition file it reads, reduces and unites with the
/// accumulated condition: `baton reduce` of gcd01-1's 356 MB explicit condition (1.2 M states)
/// peaked at 4.75 GB, 13.3 bytes per byte.
const CONDITION_MEMORY_PER_BYTE: u64 = 16;

/// Why the runner cannot read the condition `file` with the memory it has left (what this
/// process may use, less what it holds), if it cannot. Reading runs in the runner, outside every
/// stage's budget: a condition of millions of states would get the whole flow killed for want of
/// memory (under `bench --memlimit 4GB`, comb-b on recursive tasks), where without it the next
/// stage only verifies more.
fn too_large_to_read(file: &Path) -> Option<String> {
    let bytes = std::fs::metadata(file).ok()?.len();
    let readable = readable_condition_bytes(
        crate::cpa::budget::available_memory()?,
        crate::cpa::monitor::resident_memory().unwrap_or(0),
    );
    (bytes > readable).then(|| {
        format!(
            "{} of {}, more than the {} the runner can read with the memory it has left",
            file.display(),
            bytesize::ByteSize(bytes),
            bytesize::ByteSize(readable)
        )
    })
}

/// The largest condition file a process that may use `available` bytes and holds `held` can
/// read.
fn readable_condition_bytes(available: u64, held: u64) -> u64 {
    available.saturating_sub(held) / CONDITION_MEMORY_PER_BYTE
}

/// A tool's violation witness, for Baton to validate where no candidate replays.
struct ToolWitness<'a> {
    file: &'a Path,
    /// The CFA of the program the tool ran on (the residual or the original).
    ran_on: Option<&'a Program>,
    /// CPU time left of the stage's budget.
    cpu_left: Option<Duration>,
}

/// Replays candidate nondet values on the original program, and where none reaches the error,
/// the values of the tool's witness as Baton's validator confirms it: the verdict, whether a
/// `false` was confirmed, a note, and the values that reached the error.
fn confirm(
    original: Option<&Program>,
    candidates: &[Vec<i128>],
    source: &str,
    trust: Trust,
    witness: Option<ToolWitness<'_>>,
) -> (Verdict, Option<bool>, String, Option<Vec<i128>>) {
    let Some(original) = original else {
        return match trust {
            Trust::ReplayedOnly => (
                Verdict::Unknown,
                None,
                format!("{source}, not replayed (Baton cannot lower the program); trust: replayed-only"),
                None,
            ),
            Trust::All => (
                Verdict::False,
                Some(false),
                format!("{source}; unconfirmed: Baton cannot lower the program to replay it"),
                None,
            ),
        };
    };
    for values in candidates {
        if let Some(ending) = replay_to_error(original, values) {
            return (
                Verdict::False,
                Some(true),
                format!(
                    "{source}; replay of {} values on the original program: {ending}",
                    values.len()
                ),
                Some(values.clone()),
            );
        }
    }
    let replayed = if candidates.is_empty() {
        "the tool gave no inputs to replay on the original program".to_string()
    } else {
        format!(
            "the replay of {} candidate(s) on the original program does not reach the error",
            candidates.len()
        )
    };
    let Some(witness) = witness else {
        return (Verdict::Unknown, None, format!("{source}, but {replayed}"), None);
    };
    let validated = witness
        .ran_on
        .ok_or_else(|| "Baton cannot lower the program the tool ran on".to_string())
        .and_then(|p| confirmed_values(p, witness.file, witness.cpu_left));
    match validated {
        Ok((values, why)) => match replay_to_error(original, &values) {
            Some(ending) => (
                Verdict::False,
                Some(true),
                format!(
                    "{source}; {replayed}; Baton validated the witness ({why}); replay of {} values on the original program: {ending}",
                    values.len()
                ),
                Some(values),
            ),
            None => (
                Verdict::Unknown,
                None,
                format!("{source}, but {replayed}; the values of the validated witness do not reach the error on the original program"),
                None,
            ),
        },
        Err(why) => (
            Verdict::Unknown,
            None,
            format!("{source}, but {replayed}; witness not confirmed: {why}"),
            None,
        ),
    }
}

fn run_native(
    state: &FlowState<'_>,
    stage: &Stage,
    steps: &mut Steps,
    input: &StageProgram,
    dir: &Path,
) -> Result<Outcome, StepError> {
    let condition_out = dir.join("condition.graphml");
    let mut cmd = verify_command(state, &input.file, &stage.tool);
    if let Some(cpu) = steps.cpu_budget() {
        cmd = cmd
            .arg("--give-up")
            .arg(format!("cpu-time={}s", (cpu.as_secs_f64() * 0.9).max(0.05)));
    }
    // The analysis gives up (and writes its condition) before the hard memory limit kills it.
    if let Some(memory) = steps.memory_budget() {
        cmd = cmd.arg("--give-up").arg(format!("memory={}B", memory / 4 * 3));
    }
    for g in &stage.give_up {
        cmd = cmd.arg("--give-up").arg(g.to_string());
    }
    if let Some(guide) = &input.guide {
        cmd = cmd.arg("--condition-in").arg(guide);
    }
    // Proofs of the predicate analysis (relative paths: to Baton's working directory); no
    // proof yet to start from (the first version of a sequence) is a run from scratch.
    for (option, file) in &stage.options {
        let file = std::path::absolute(file).map_err(|e| format!("{option}: {file}: {e}"))?;
        if option != "proof-in" || file.exists() {
            cmd = cmd.arg(format!("--{option}")).arg(file);
        }
    }
    cmd = cmd
        .arg("--condition-out")
        .arg(&condition_out)
        .arg("--witness")
        .arg(dir.join(NATIVE_WITNESS))
        .arg("--json");
    let report = steps.run(&cmd, &dir.join("run"))?;
    if crate::adapters::run::killed(&report.status) {
        return Ok(Outcome::nothing(
            steps.status.clone(),
            "killed by the stage budget; nothing new covered",
        ));
    }
    if report.status != crate::exec::RunStatus::Done {
        // `--json`: the error is a document on stdout.
        let document = crate::cli_json::error_message(&report.stdout_text()?);
        let err = match document {
            Some(message) => message,
            None => report.stderr_text()?,
        };
        return Ok(Outcome::nothing(
            steps.status.clone(),
            format!("baton verify failed: {}", crate::adapters::run::first_line(&err)),
        ));
    }
    let json: serde_json::Value = serde_json::from_str(&report.stdout_text()?)
        .map_err(|e| format!("baton verify printed no JSON result: {e}"))?;
    let verdict = json.get("verdict").and_then(|v| v.as_str()).unwrap_or("unknown");
    let mut reason = json
        .get("reason")
        .and_then(|v| v.as_str())
        .unwrap_or("")
        .to_string();
    if let Some(reuse) = json.get("incremental").filter(|r| !r.is_null()) {
        let count = |key: &str| reuse.get(key).and_then(|v| v.as_u64()).unwrap_or(0);
        reason.push_str(&format!(
            "; proof reuse: {} of {} old nodes, {} states explored anew",
            count("reused_nodes"),
            count("old_nodes"),
            count("new_states")
        ));
    }
    Ok(match crate::bench::report::parse_verdict(verdict) {
        Verdict::True => Outcome::proof(reason),
        Verdict::False => {
            let values: Vec<i128> = json
                .pointer("/counterexample/inputs")
                .and_then(|v| v.as_array())
                .map(|a| a.iter().filter_map(|x| x.as_str()?.parse().ok()).collect())
                .unwrap_or_default();
            Outcome::bug(vec![values], "counterexample", "")
        }
        Verdict::Unknown => Outcome {
            status: "unknown".into(),
            finding: Finding::ConditionFile(condition_out),
            note: reason,
        },
    })
}

/// `baton verify FILE --analysis ANALYSIS` with the flow's data model and semantics.
pub(super) fn verify_command(state: &FlowState<'_>, file: &Path, analysis: &str) -> CommandLine {
    CommandLine::new(state.baton)
        .arg("verify")
        .arg(file)
        .arg("--data-model")
        .arg(state.model.to_string())
        .arg("--analysis")
        .arg(analysis)
        .arg("--signed-overflow")
        .arg(state.signed_overflow.to_string())
}

/// The program a stage runs on.
pub struct StageProgram {
    pub file: PathBuf,
    /// The residual program with its provenance when `file` is a residual program (conditions
    /// on it are mapped back to the original).
    pub residual: Option<Box<reducer::Residual>>,
    /// With `residual`: the fraction of the exact residual's cuts it keeps within its cap.
    pub cuts_kept: Option<f64>,
    /// The accumulated condition written for guide mode.
    pub guide: Option<PathBuf>,
}

fn input_name(input: StageInput) -> &'static str {
    match input {
        StageInput::Reduce => "reduce",
        StageInput::Identity => "identity",
        StageInput::Guide => "guide",
    }
}

/// A stage name as a directory name.
pub fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The exact product the reducer explores to choose a residual within the stage's cap is
/// bounded by this many times the original's locations …
const PRODUCT_GROWTH_LIMIT: usize = 50;
/// … or this many locations, whichever is more (past it, the choice is among its first nodes).
const PRODUCT_MIN_LIMIT: usize = 20_000;

enum Prepared {
    Program(StageProgram),
    /// The accumulated condition already settles the task (`true`); the reason.
    Verified(String),
}

fn prepare_input(
    stage: &Stage,
    original: &Program,
    original_file: &Path,
    accumulated: &ConditionAutomaton,
    dir: &Path,
) -> Result<Prepared, String> {
    let plain = |guide: Option<PathBuf>| StageProgram {
        file: original_file.to_path_buf(),
        residual: None,
        cuts_kept: None,
        guide,
    };
    if accumulated.is_trivial_full() {
        return Ok(Prepared::Verified(
            "the accumulated condition covers every path".into(),
        ));
    }
    let nothing_yet = accumulated.is_trivial_empty();
    match stage.input {
        StageInput::Identity => Ok(Prepared::Program(plain(None))),
        StageInput::Guide if nothing_yet => Ok(Prepared::Program(plain(None))),
        StageInput::Guide => {
            let path = dir.join("condition-in.graphml");
            std::fs::write(
                &path,
                condition::write(accumulated, original, condition::Format::GraphMl),
            )
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
            Ok(Prepared::Program(plain(Some(path))))
        }
        // Nothing verified yet: the residual is the original program.
        StageInput::Reduce if nothing_yet => Ok(Prepared::Program(plain(None))),
        StageInput::Reduce => {
            // A condition from a long analysis can unroll the program enormously; a tool is
            // better served by a residual within the stage's cap that keeps the condition's cuts
            // nearest the entry. Where the reducer cannot build one (the product explodes, a
            // recursive `main`), the original program (IDENTITY is a reducer too).
            let explored = (original.locations.len() * PRODUCT_GROWTH_LIMIT).max(PRODUCT_MIN_LIMIT);
            let cap = (original.locations.len() as f64 * stage.max_ratio) as usize;
            let capped = match reducer::reduce_within(original, accumulated, cap, explored) {
                Ok(r) => r,
                Err(reducer::ReduceError::TooLarge { .. } | reducer::ReduceError::RecursiveMain { .. }) => {
                    return Ok(Prepared::Program(plain(None)))
                }
                Err(e) => return Err(format!("reducer: {e}")),
            };
            let cuts_kept = capped.residual.coverage().cuts_fraction(&capped.exact);
            let residual = capped.residual;
            if residual.error_unreachable() {
                return Ok(Prepared::Verified(
                    "the residual program of the accumulated condition cannot reach the error".into(),
                ));
            }
            let path = dir.join("residual.c");
            std::fs::write(&path, emit_c(&residual.program))
                .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
            Ok(Prepared::Program(StageProgram {
                file: path,
                residual: Some(Box::new(residual)),
                cuts_kept: Some(cuts_kept),
                guide: None,
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runner_reads_only_conditions_its_free_memory_holds() {
        let gb = 1_000_000_000;
        // gcd01-1's 356 MB explicit condition under `bench --memlimit 4GB`: not read.
        assert!(readable_condition_bytes(4 * gb, 30_000_000) < 356_000_000);
        // The same on an 8 GB limit, where reading it takes about 4.75 GB.
        assert!(readable_condition_bytes(8 * gb, 30_000_000) > 356_000_000);
        assert_eq!(readable_condition_bytes(gb, 2 * gb), 0);
    }

    #[test]
    fn a_condition_file_too_large_for_the_runner_is_not_used() {
        let Some(available) = crate::cpa::budget::available_memory() else {
            eprintln!("skipped: this machine tells no available memory");
            return;
        };
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("condition.graphml");
        let held = crate::cpa::monitor::resident_memory().unwrap_or(0);
        let too_large = readable_condition_bytes(available, held) + (1 << 20);
        std::fs::File::create(&file)
            .and_then(|f| f.set_len(too_large))
            .expect("sparse file");
        let input = StageProgram {
            file: dir.path().join("prog.c"),
            residual: None,
            cuts_kept: None,
            guide: None,
        };
        let program = crate::frontend::load_source(
            "prog.c",
            "int main(void) { return 0; }",
            crate::cfa::types::DataModel::ILP32,
        )
        .expect("program");
        let accumulated = ConditionAutomaton::nothing_verified(&program.hash);
        let (kept, note) = condition_for_original(
            Finding::ConditionFile(file.clone()),
            &input,
            Some(&program),
            &accumulated,
        );
        assert!(kept.is_none());
        assert!(
            note.contains("more than the") && note.contains("the runner can read"),
            "{note}"
        );
    }
}
