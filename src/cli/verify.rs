//! `verify`: one native analysis on a program or task, with conditions, proofs and witnesses.

use super::{load_input, write_stdout, Failure, InputArgs, SemanticsArgs, WitnessArgs};
use baton::analyses::incremental::{self, Previous, ReuseStats};
use baton::analyses::predicate::proof::ProofAnalysis;
use baton::analyses::{run_analysis, AnalysisKind, AnalysisOptions};
use baton::cfa::Program;
use baton::cli_json::document;
use baton::condition::{self, ConditionRunner};
use baton::cpa::engine::{Guide, SearchOrder};
use baton::cpa::monitor::GiveUp;
use baton::task::Task;
use baton::verdict::Verdict;
use baton::witness::correctness::ProofInvariants;
use baton::witness::{write_witness, Evidence};
use std::path::PathBuf;

#[derive(clap::Args)]
pub(crate) struct VerifyArgs {
    #[command(flatten)]
    pub(crate) input: InputArgs,
    /// The analysis: explicit (explicit values), predicate (predicate abstraction with
    /// lazy abstraction and CEGAR; `path-formula-size=N` cuts longer counterexamples) or chc
    /// (Horn clauses solved by Z3's Spacer; only cpu-time and memory apply).
    #[arg(long, default_value = "explicit")]
    pub(crate) analysis: AnalysisKind,
    /// A give-up condition NAME=VALUE (repeatable): cpu-time, memory, reached-states,
    /// states-per-location, busy-edge, path-length, path-time, repeating-locations, assume-edges,
    /// path-formula-size (predicate analysis only), recursion-depth (explicit and predicate
    /// analysis).
    #[arg(long = "give-up", value_name = "NAME=VALUE")]
    pub(crate) give_up: Vec<GiveUp>,
    /// Waitlist order: dfs or bfs.
    #[arg(long, default_value = "dfs")]
    pub(crate) order: SearchOrder,
    /// Conditions of earlier stages to use as a guide (repeatable; their union is used).
    #[arg(long = "condition-in", value_name = "FILE")]
    pub(crate) condition_in: Vec<PathBuf>,
    /// Write the condition (what was verified) to this file.
    #[arg(long, value_name = "FILE")]
    pub(crate) condition_out: Option<PathBuf>,
    /// Format of --condition-out: graphml or cpachecker (default: by extension, .graphml or
    /// .xml for GraphML, otherwise CPAchecker's text).
    #[arg(long)]
    pub(crate) condition_format: Option<String>,
    /// The proof of an earlier version of the program (predicate analysis, seed 002): the
    /// part of its ARG that still conforms is reused, only the rest is explored anew.
    #[arg(long, value_name = "FILE")]
    pub(crate) proof_in: Option<PathBuf>,
    /// Save the final ARG and precision as a proof for re-verifying later versions
    /// (predicate or explicit analysis; a `false` run from --proof-in, or an `unknown` one from
    /// a `true` proof, saves that proof instead: its own ARG stops at the counterexample or
    /// the budget).
    #[arg(long, value_name = "FILE")]
    pub(crate) proof_out: Option<PathBuf>,
    /// Print the result as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) semantics: SemanticsArgs,
    #[command(flatten)]
    pub(crate) witness: WitnessArgs,
}

pub(crate) fn verify(args: VerifyArgs) -> Result<(), Failure> {
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
                    Some(Evidence::Invariants(ProofInvariants {
                        loops: outcome.invariants.clone(),
                        contracts: outcome.contracts.clone(),
                    }))
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
        "condition: {} states, {} transitions, {} state cuts, covered share of CFA edges {:.1} %{}",
        summary.states,
        summary.transitions,
        summary.state_cuts,
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
pub(crate) fn verify_with_proofs(
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
pub(crate) fn copy_proof(from: Option<&std::path::Path>, to: &std::path::Path) -> Result<(), Failure> {
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
pub(crate) fn condition_format(
    name: Option<&str>,
    path: &std::path::Path,
) -> Result<condition::Format, Failure> {
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
