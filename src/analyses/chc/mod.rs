//! A constrained-Horn-clause analysis: the CFA as Horn clauses ([`encode`]), solved by Z3's
//! Spacer engine, `baton verify --analysis chc`.
//!
//! Clauses are first encoded over integers ([`integers`]), which Spacer generalises far better
//! than bit-vectors; where that encoding over-approximates (bitwise operations, shifts by
//! variables) and does not decide in half the time left, the bit-precise encoding gets the
//! rest.
//!
//! - Spacer proves the error relation unreachable: `true`, with the loop heads' invariants
//!   (Spacer's interpretation of their relations, as SMT-LIB formulas over the variables).
//! - Spacer derives the error: a bounded model check along the cut points ([`counterexample`])
//!   finds a path, its nondet values are solved bit-precisely and replayed on the interpreter;
//!   only a replay that reaches the error makes the verdict `false`.
//! - Anything else (timeout, memory, a program that does not encode, a counterexample that
//!   does not replay) is `unknown`, with nothing verified as the condition.
//!
//! The analysis ignores a guide: verifying the whole program verifies every part of it.
//! Budgets: every Z3 query gets a timeout of the CPU time left before the `cpu-time` deadline
//! (wall-clock in Z3, so a query ends early on a loaded machine, never late); the `memory`
//! give-up (or the default limit) is checked before each attempt, not inside a Z3 query; the
//! other give-up conditions are about the CPA engine's ARG and do not apply.

pub mod counterexample;
pub mod encode;
pub mod integers;

use super::{confirm_path, AnalysisOptions, AnalysisOutcome, TargetDecision};
use crate::cfa::{LocId, Program};
use crate::condition::ConditionAutomaton;
use crate::cpa::budget::{default_memory_limit, last_query, CpuDeadline};
use crate::cpa::engine::{EngineStats, Guide};
use crate::cpa::monitor::{process_cpu_time, resident_memory, GiveUp};
use crate::verdict::Verdict;
use encode::{EncodedClause, Encoding, From, HornSystem, To};
use std::collections::HashSet;
use std::time::Duration;
use z3::ast::{Ast, Bool, Dynamic};
use z3::{Fixedpoint, FuncDecl, Params, SatResult, Sort};

/// CPU time Z3 may take to stop once its timeout ends a query (measured: up to about 0.15 s).
const STOP_RESERVE: Duration = Duration::from_millis(250);

/// What Spacer answered.
enum Answer {
    /// The error is unreachable; invariants of the loop-head cut points.
    Safe(Vec<(LocId, String)>),
    /// The error is reachable.
    Unsafe,
    Unknown(String),
}

/// Runs the analysis to a verdict; `guide` is ignored (see the module doc).
pub fn verify(program: &Program, options: &AnalysisOptions, _guide: Option<&dyn Guide>) -> AnalysisOutcome {
    let cpu_before = process_cpu_time();
    let deadline = options
        .cpu_time_limit()
        .map(|limit| last_query(CpuDeadline::after(limit)).earlier_by(STOP_RESERVE.min(limit / 10)));
    let memory = options
        .give_up
        .iter()
        .filter_map(|g| match g {
            GiveUp::Memory(bytes) => Some(*bytes),
            _ => None,
        })
        .min()
        .or_else(default_memory_limit);
    let (verdict, reason, counterexample, invariants) = match decide(program, deadline, memory) {
        Decision::Safe(invariants) => (
            Verdict::True,
            "Spacer: error unreachable".into(),
            None,
            invariants,
        ),
        Decision::Violation(cex) => (Verdict::False, "error reached".into(), Some(cex), Vec::new()),
        Decision::Unknown(why) => (Verdict::Unknown, why, None, Vec::new()),
    };
    let reason = if verdict.is_definite() {
        format!("{reason}; {}", program.signed_overflow.assumption())
    } else {
        reason
    };
    let condition = match verdict {
        Verdict::True => ConditionAutomaton::fully_verified(&program.hash),
        _ => ConditionAutomaton::nothing_verified(&program.hash),
    };
    AnalysisOutcome {
        verdict,
        reason,
        counterexample,
        condition,
        condition_cut_short: false,
        stats: EngineStats {
            cpu_time: process_cpu_time().saturating_sub(cpu_before),
            ..EngineStats::default()
        },
        reached_states: 0,
        invariants,
        contracts: Vec::new(),
        predicates: 0,
    }
}

enum Decision {
    Safe(Vec<(LocId, String)>),
    Violation(super::Counterexample),
    Unknown(String),
}

/// Encodes, solves and confirms within the budgets.
///
/// Z3 is stopped by its own timeouts, never by `Z3_interrupt` from another thread: an
/// interrupt leaves the thread's context cancelled, and Z3 4.8.12 then threw a
/// `rewriter_exception` no API call caught, which aborted the process.
fn decide(program: &Program, deadline: Option<CpuDeadline>, memory: Option<u64>) -> Decision {
    let system = match HornSystem::build(program) {
        Ok(s) => s,
        Err(e) => return Decision::Unknown(format!("not encoded: {e}")),
    };
    solve_in_turn(program, &system, deadline, &|| over_budget(deadline, memory))
}

/// Why the analysis must stop now (the CPU deadline passed, memory above the give-up), if so.
fn over_budget(deadline: Option<CpuDeadline>, memory: Option<u64>) -> Option<String> {
    if deadline.is_some_and(CpuDeadline::passed) {
        Some("gave up: cpu-time".to_string())
    } else {
        memory
            .filter(|&limit| resident_memory().is_some_and(|rss| rss > limit))
            .map(|limit| format!("gave up: memory={limit}B"))
    }
}

/// The integer encoding first; where it over-approximates and does not decide (in half the
/// time left), the bit-precise one.
fn solve_in_turn(
    program: &Program,
    system: &HornSystem,
    deadline: Option<CpuDeadline>,
    over_budget: &dyn Fn() -> Option<String>,
) -> Decision {
    let mut reasons = Vec::new();
    for encoding in [Encoding::Integers, Encoding::Bits] {
        if let Some(why) = over_budget() {
            reasons.push(why);
            return Decision::Unknown(reasons.join("; "));
        }
        let encoded: Result<Vec<EncodedClause>, _> = (0..system.clauses.len())
            .map(|i| system.encode(program, i, encoding))
            .collect();
        let encoded = match encoded {
            Ok(e) => e,
            Err(e) => return Decision::Unknown(format!("not encoded: {e}")),
        };
        let exact = encoded.iter().all(|c| c.exact);
        let last = exact || encoding == Encoding::Bits;
        let attempt_deadline = match deadline {
            Some(d) if !last => Some(CpuDeadline::after(d.remaining() / 2)),
            d => d,
        };
        // Z3's timeouts count wall-clock time, which runs ahead of the CPU time of this thread:
        // on a loaded machine an attempt ends early, never late.
        match solve(program, system, &encoded, encoding, attempt_deadline) {
            Decision::Unknown(why) if !last && !deadline.is_some_and(CpuDeadline::passed) => {
                reasons.push(format!("{encoding:?}: {why}"));
            }
            Decision::Unknown(why) => {
                reasons.push(format!("{encoding:?}: {why}"));
                return Decision::Unknown(reasons.join("; "));
            }
            decided => return decided,
        }
    }
    Decision::Unknown(reasons.join("; "))
}

/// Spacer's answer, and for `Unsafe` the counterexample search and replay.
fn solve(
    program: &Program,
    system: &HornSystem,
    encoded: &[EncodedClause],
    encoding: Encoding,
    deadline: Option<CpuDeadline>,
) -> Decision {
    match spacer(program, system, encoded, encoding, deadline) {
        Answer::Safe(invariants) => Decision::Safe(invariants),
        Answer::Unknown(why) => Decision::Unknown(format!("Spacer: {why}")),
        Answer::Unsafe => {
            let Some(steps) = counterexample::find(program, system, encoded, encoding, deadline) else {
                return Decision::Unknown("Spacer: error reachable, but no path to it found in time".into());
            };
            let solver = super::predicate::solver::SolverConfig::default().until(deadline);
            match confirm_path(program, steps, &solver) {
                TargetDecision::Violation(cex) => Decision::Violation(cex),
                TargetDecision::NotConfirmed(why) => {
                    Decision::Unknown(format!("Spacer: error reachable, but {why}"))
                }
                TargetDecision::Refined => Decision::Unknown("Spacer: error reachable".into()),
            }
        }
    }
}

/// The uninterpreted constants of `formula` that the encoding made (program variables at an
/// SSA index, `v<id>@<k>`, and fresh values, `<kind>!<n>`): the variables of a clause.
pub fn clause_variables(formula: &Bool) -> Vec<Dynamic> {
    let mut seen = HashSet::new();
    let mut stack = vec![Dynamic::from_ast(formula)];
    let mut out = Vec::new();
    while let Some(a) = stack.pop() {
        if !seen.insert(a.clone()) {
            continue;
        }
        if a.is_const() {
            let name = a.decl().name();
            if name.contains('@') || name.contains('!') {
                out.push(a);
            }
        } else if a.is_app() {
            stack.extend(a.children());
        }
    }
    out
}

/// Asks Spacer whether the error relation is derivable, with a Z3 timeout of the time left
/// until `timeout`.
fn spacer(
    program: &Program,
    system: &HornSystem,
    encoded: &[EncodedClause],
    encoding: Encoding,
    timeout: Option<CpuDeadline>,
) -> Answer {
    let fp = Fixedpoint::new();
    let mut params = Params::new();
    params.set_symbol("engine", "spacer");
    if let Some(d) = timeout {
        let ms = u32::try_from(d.remaining().as_millis())
            .unwrap_or(u32::MAX)
            .max(1);
        params.set_u32("timeout", ms);
    }
    fp.set_params(&params);
    let relations: Vec<FuncDecl> = system
        .cut_points
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let sorts: Vec<Sort> = c
                .vars
                .iter()
                .map(|v| encoding.sort(program.variable(*v)))
                .collect();
            let refs: Vec<&Sort> = sorts.iter().collect();
            FuncDecl::new(format!("{}#{i}", c.loc), &refs, &Sort::bool())
        })
        .collect();
    let error = FuncDecl::new("error", &[], &Sort::bool());
    for r in &relations {
        fp.register_relation(r);
    }
    fp.register_relation(&error);
    let apply = |r: &FuncDecl, args: &[Dynamic]| -> Bool {
        let args: Vec<&dyn Ast> = args.iter().map(|a| a as &dyn Ast).collect();
        r.apply(&args).as_bool().unwrap_or_else(|| Bool::from_bool(false))
    };
    for (clause, enc) in system.clauses.iter().zip(encoded) {
        let body = match clause.from {
            From::Start => enc.formula.clone(),
            From::CutPoint(c) => Bool::and(&[apply(&relations[c], &enc.start), enc.formula.clone()]),
        };
        let head = match clause.to {
            To::CutPoint(d) => apply(&relations[d], &enc.end),
            To::Error => apply(&error, &[]),
        };
        let rule = body.implies(&head);
        let vars = clause_variables(&rule);
        let bounds: Vec<&dyn Ast> = vars.iter().map(|v| v as &dyn Ast).collect();
        let rule = if bounds.is_empty() {
            rule
        } else {
            z3::ast::forall_const(&bounds, &[], &rule)
        };
        fp.add_rule(&rule, None);
    }
    match fp.query(&apply(&error, &[])) {
        SatResult::Unsat => Answer::Safe(invariants(program, system, &relations, &fp)),
        SatResult::Sat => Answer::Unsafe,
        SatResult::Unknown => Answer::Unknown(match fp.get_reason_unknown() {
            // What Spacer says when its timeout ends the query.
            r if r.is_empty() || r == "ok" => "no answer in time".into(),
            r => r,
        }),
    }
}

/// Spacer's interpretation of each loop head's relation, with its arguments named by the
/// program's variable names.
fn invariants(
    program: &Program,
    system: &HornSystem,
    relations: &[FuncDecl],
    fp: &Fixedpoint,
) -> Vec<(LocId, String)> {
    system
        .cut_points
        .iter()
        .zip(relations)
        .filter(|(c, _)| program.location(c.loc).loop_head)
        .filter_map(|(c, r)| {
            let formula = fp.get_cover_delta(-1, r)?;
            let mut text = formula
                .to_string()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            // Arguments appear as de Bruijn variables `(:var i)`; the highest first, so that
            // `(:var 1)` does not match inside `(:var 12)`.
            for (i, v) in c.vars.iter().enumerate().rev() {
                text = text.replace(&format!("(:var {i})"), &program.variable(*v).name);
            }
            Some((c.loc, text))
        })
        .collect()
}
