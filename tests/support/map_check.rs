//! Checking conditions mapped back from a residual program (`baton::condition::map_back`) by
//! execution, after tests/support/res_check.rs (used by tests/map_back_soundness.rs): an
//! original execution the mapped condition covers must be covered by the accumulated condition
//! or have its residual execution covered by the residual condition (covering = verified), and
//! must not reach the error.

use super::res_check::{outcome, step_factor, Outcome};
use baton::cfa::interpreter::{execute, ExecOptions};
use baton::cfa::Program;
use baton::condition::ConditionAutomaton;

/// Counts of what [`check_mapped`] saw.
#[derive(Debug, Default, Clone, Copy)]
pub struct MapTally {
    pub runs: usize,
    /// Runs the mapped condition covers and the accumulated one does not.
    pub newly_covered: usize,
    /// Runs the residual condition covers (on the residual) and the accumulated one does not.
    pub residual_covered: usize,
    /// Of those, runs that end normally on the original and the mapped condition misses.
    pub missed: usize,
    /// Runs not judged because the residual run hit its step limit.
    pub unjudged: usize,
}

impl std::ops::AddAssign for MapTally {
    fn add_assign(&mut self, o: MapTally) {
        self.runs += o.runs;
        self.newly_covered += o.newly_covered;
        self.residual_covered += o.residual_covered;
        self.missed += o.missed;
        self.unjudged += o.unjudged;
    }
}

/// Checks a condition `mapped` back to `original` from `residual_condition` about
/// `residual_program` (the residual CFA or the CFA re-read from its C), with `accumulated`
/// the condition the residual was reduced by; returns the violations found:
///
/// - (m1) an execution that `mapped` covers and `accumulated` does not is, on the residual
///   program (same inputs), covered by `residual_condition`;
/// - (m2) an execution that `mapped` covers does not reach the error.
///
/// The residual program gets `8 × step_factor` times the original's steps plus its
/// declarations (an emitted statement lowers to a few edges).
#[allow(clippy::too_many_arguments)]
pub fn check_mapped(
    name: &str,
    original: &Program,
    accumulated: &ConditionAutomaton,
    mapped: &ConditionAutomaton,
    residual_condition: &ConditionAutomaton,
    residual_program: &Program,
    inputs: &[Vec<i128>],
    max_steps: u64,
    tally: &mut MapTally,
) -> Vec<String> {
    let mut violations = Vec::new();
    let factor = step_factor(original);
    for input in inputs {
        let orig = execute(
            original,
            input,
            &ExecOptions {
                max_steps,
                record_path: true,
            },
        );
        let res = execute(
            residual_program,
            input,
            &ExecOptions {
                max_steps: (orig.steps + 1) * 8 * factor + residual_program.variables.len() as u64,
                record_path: true,
            },
        );
        let by_accumulated = accumulated.covers(&orig.path);
        let by_mapped = mapped.covers(&orig.path);
        let by_residual = residual_condition.covers(&res.path);
        tally.runs += 1;
        let mut fail = |what: &str| {
            violations.push(format!(
                "{name}: {what}: inputs {input:?}: original {}, residual {}",
                orig.ending, res.ending
            ))
        };
        if by_mapped && orig.ending.is_error() {
            fail("(m2) the mapped condition covers an execution that reaches the error");
        }
        if by_mapped && !by_accumulated {
            tally.newly_covered += 1;
            if !by_residual {
                if outcome(&res) == Outcome::Limit {
                    tally.unjudged += 1;
                } else {
                    fail("(m1) the mapped condition covers an execution the residual condition does not");
                }
            }
        }
        if by_residual && !by_accumulated {
            tally.residual_covered += 1;
            if !by_mapped && matches!(outcome(&orig), Outcome::Normal(_)) {
                tally.missed += 1;
            }
        }
    }
    violations
}
