//! A path to the error through the Horn system, once Spacer has found the error derivable: a
//! bounded model check over the cut points, one frame per clause, deepened until the error is
//! reached (or the deadline passes). The chosen clauses' steps form a program path that the
//! caller solves for nondet values and replays.

use super::clause_variables;
use super::encode::{EncodedClause, Encoding, From, HornSystem, To};
use crate::cfa::Program;
use crate::cpa::budget::CpuDeadline;
use crate::cpa::Step;
use std::collections::BTreeSet;
use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::{Params, SatResult, Solver};

/// Deepest frame tried without a deadline (a derivable error has a finite derivation, so this
/// only bounds a search that something unexpected keeps from ending).
const MAX_DEPTH: usize = 100_000;

/// One frame's program state: every program variable as a constant of this frame.
fn frame_state(program: &Program, encoding: Encoding, frame: usize) -> Vec<Dynamic> {
    program
        .variables
        .iter()
        .enumerate()
        .map(|(i, v)| Dynamic::new_const(format!("f{frame}.v{i}"), &encoding.sort(v)))
        .collect()
}

/// The steps of a path from the program start to the error along the clauses, if the
/// bounded model check finds one by the deadline.
pub fn find(
    program: &Program,
    system: &HornSystem,
    encoded: &[EncodedClause],
    encoding: Encoding,
    deadline: Option<CpuDeadline>,
) -> Option<Vec<Step>> {
    // Program counter values: the cut points, then the error, then the start.
    let n = system.cut_points.len();
    let (error, start) = (n, n + 1);
    let width = (usize::BITS - (n + 1).leading_zeros()).max(1);
    let pc = |frame: usize| BV::new_const(format!("f{frame}.pc"), width);
    let pc_value = |v: usize| BV::from_u64(v as u64, width);
    let from_pc = |f: From| match f {
        From::Start => start,
        From::CutPoint(c) => c,
    };
    let to_pc = |t: To| match t {
        To::CutPoint(d) => d,
        To::Error => error,
    };
    // Each clause's variables, and how its start and end arguments map to cut-point variables.
    let clause_vars: Vec<Vec<Dynamic>> = system
        .clauses
        .iter()
        .zip(encoded)
        .map(|(_, e)| {
            let mut all = vec![e.formula.clone()];
            all.extend(e.start.iter().chain(&e.end).map(|t| t.eq(t)));
            clause_variables(&Bool::and(&all))
        })
        .collect();
    let solver = Solver::new();
    solver.assert(pc(0).eq(pc_value(start)));
    let mut states = vec![frame_state(program, encoding, 0)];
    let mut active: BTreeSet<usize> = BTreeSet::from([start]);
    let mut selectors: Vec<Vec<(usize, Bool)>> = Vec::new();
    for frame in 0..MAX_DEPTH {
        if deadline.is_some_and(CpuDeadline::passed) || active.is_empty() {
            return None;
        }
        // Frame `frame` → `frame + 1`: one of the clauses leaving an active cut point.
        states.push(frame_state(program, encoding, frame + 1));
        let (now, next) = (&states[frame], &states[frame + 1]);
        let mut chosen = Vec::new();
        let mut reached = BTreeSet::new();
        for (j, clause) in system.clauses.iter().enumerate() {
            if !active.contains(&from_pc(clause.from)) {
                continue;
            }
            let enc = &encoded[j];
            let vars_of = |at: Option<usize>| match at {
                Some(c) => system.cut_points[c].vars.clone(),
                None => Vec::new(),
            };
            let from_vars = vars_of(match clause.from {
                From::CutPoint(c) => Some(c),
                From::Start => None,
            });
            let to_vars = vars_of(match clause.to {
                To::CutPoint(d) => Some(d),
                To::Error => None,
            });
            let mut parts = vec![enc.formula.clone()];
            parts.extend(
                from_vars
                    .iter()
                    .zip(&enc.start)
                    .map(|(v, t)| t.eq(&now[v.index()])),
            );
            parts.extend(to_vars.iter().zip(&enc.end).map(|(v, t)| t.eq(&next[v.index()])));
            let renamed: Vec<Dynamic> = clause_vars[j]
                .iter()
                .map(|c| Dynamic::new_const(format!("{}#{frame}", c.decl().name()), &c.get_sort()))
                .collect();
            let pairs: Vec<(&Dynamic, &Dynamic)> = clause_vars[j].iter().zip(&renamed).collect();
            let body = Bool::and(&parts).substitute(&pairs);
            let select = Bool::new_const(format!("f{frame}.c{j}"));
            solver.assert(select.implies(Bool::and(&[
                pc(frame).eq(pc_value(from_pc(clause.from))),
                pc(frame + 1).eq(pc_value(to_pc(clause.to))),
                body,
            ])));
            reached.insert(to_pc(clause.to));
            chosen.push((j, select));
        }
        let any: Vec<Bool> = chosen.iter().map(|(_, s)| s.clone()).collect();
        solver.assert(Bool::or(&any));
        selectors.push(chosen);
        active = reached;
        if !active.contains(&error) {
            continue;
        }
        solver.push();
        solver.assert(pc(frame + 1).eq(pc_value(error)));
        if let Some(d) = deadline {
            let mut params = Params::new();
            let ms = u32::try_from(d.remaining().as_millis())
                .unwrap_or(u32::MAX)
                .max(1);
            params.set_u32("timeout", ms);
            solver.set_params(&params);
        }
        match solver.check() {
            SatResult::Sat => {
                let model = solver.get_model()?;
                let mut steps = Vec::new();
                for chosen in &selectors {
                    let (j, _) = chosen
                        .iter()
                        .find(|(_, s)| model.eval(s, true).and_then(|b| b.as_bool()) == Some(true))?;
                    steps.extend(system.clauses[*j].steps.iter().copied());
                }
                return Some(steps);
            }
            SatResult::Unknown => return None,
            SatResult::Unsat => solver.pop(1),
        }
    }
    None
}
