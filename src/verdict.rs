//! Verdicts in BenchExec's spelling, and how they score against an expected answer.

use serde::Serialize;
use std::fmt;

/// The answer of a verifier for `unreach-call`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Verdict {
    /// The error function is unreachable.
    True,
    /// The error function is reachable (with a counterexample replayed on the interpreter).
    False,
    /// No answer.
    Unknown,
}

impl Verdict {
    /// The string BenchExec writes: `true`, `false(unreach-call)`, `unknown`.
    pub fn benchexec(self) -> &'static str {
        match self {
            Verdict::True => "true",
            Verdict::False => "false(unreach-call)",
            Verdict::Unknown => "unknown",
        }
    }

    /// True for `true` and `false`: a stage with such a verdict ends a flow.
    pub fn is_definite(self) -> bool {
        self != Verdict::Unknown
    }

    /// How the verdict compares with the expected answer (`Some(true)` = safe).
    pub fn classify(self, expected: Option<bool>) -> Classification {
        match (self, expected) {
            (Verdict::Unknown, _) | (_, None) => Classification::Unknown,
            (Verdict::True, Some(true)) | (Verdict::False, Some(false)) => Classification::Correct,
            _ => Classification::Wrong,
        }
    }

    /// The SV-COMP score: correct true +2, correct false +1, wrong false −16, wrong true −32.
    pub fn score(self, expected: Option<bool>) -> i32 {
        match (self, expected) {
            (Verdict::True, Some(true)) => 2,
            (Verdict::False, Some(false)) => 1,
            (Verdict::False, Some(true)) => -16,
            (Verdict::True, Some(false)) => -32,
            _ => 0,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.benchexec())
    }
}

/// A verdict judged against the expected answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Classification {
    Correct,
    Wrong,
    Unknown,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_like_sv_comp() {
        assert_eq!(Verdict::True.score(Some(true)), 2);
        assert_eq!(Verdict::True.score(Some(false)), -32);
        assert_eq!(Verdict::False.score(Some(true)), -16);
        assert_eq!(Verdict::False.classify(Some(false)), Classification::Correct);
        assert_eq!(Verdict::Unknown.classify(Some(false)), Classification::Unknown);
        assert_eq!(Verdict::False.benchexec(), "false(unreach-call)");
    }
}
