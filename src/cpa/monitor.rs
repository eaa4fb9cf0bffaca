//! Give-up conditions (seed 000 §III-A, Fig. 7).
//!
//! A *path* monitor keeps a value per abstract state (path length, assume edges, time spent on
//! the path, occurrences of each location); when it exceeds its threshold the new state is cut
//! (the assumption-storage CPA sets its assumption to `false`) and the analysis goes on
//! elsewhere. A *global* monitor watches the whole run: total CPU time, memory and reached-set
//! size stop the analysis and leave the waitlist as not verified; states per location and busy
//! edges stop post computations into a location or along an edge.
//!
//! Thresholds are inclusive: with `path-length=N` paths of N program statements (edges other
//! than skips) are explored and the state after statement N+1 is cut; `repeating-locations=K` allows a location K times on a path;
//! `assume-edges=N` allows N assume edges; `states-per-location=N` allows N states at a
//! location; `busy-edge=N` allows N post operations per edge; `recursion-depth=N` allows N calls
//! of already active functions on the call stack; `reached-states=N` stops once N
//! states are reached; `memory` stops once the limit is reached, `cpu-time` early enough that
//! the condition is written within the limit ([`super::budget`]).

use super::control::ControlState;
use super::Step;
use crate::cfa::{LocId, Operation, Program};
use crate::units::{parse_duration, parse_size};
use std::fmt;
use std::time::Duration;
use thiserror::Error;

/// The `recursion-depth` an analysis of a recursive program uses when none is given.
pub const DEFAULT_RECURSION_DEPTH: u64 = 64;

/// One give-up condition with its threshold, as given on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GiveUp {
    CpuTime(Duration),
    /// Resident memory of the analysis process, in bytes.
    Memory(u64),
    ReachedStates(u64),
    StatesPerLocation(u64),
    BusyEdge(u64),
    PathLength(u64),
    PathTime(Duration),
    RepeatingLocations(u64),
    AssumeEdges(u64),
    /// Calls of a function that is already active (recursive calls) on the call stack: a call
    /// that would make more of them is cut. Without it, analyses of a recursive program use
    /// [`DEFAULT_RECURSION_DEPTH`].
    RecursionDepth(u64),
    /// Counterexamples of the predicate analysis with more steps than this are not refined
    /// but cut (seed 000 Fig. 7 "size of path formula"); other analyses ignore it.
    PathFormulaSize(u64),
}

/// The limit of the `cpu-time` give-up among `give_up` (the smallest, if given more than once:
/// a flow adds its budget's to a stage's own), if there is one.
pub fn cpu_time_limit(give_up: &[GiveUp]) -> Option<Duration> {
    give_up
        .iter()
        .filter_map(|g| match g {
            GiveUp::CpuTime(limit) => Some(*limit),
            _ => None,
        })
        .min()
}

/// A malformed `--give-up` argument.
#[derive(Debug, Clone, Error)]
#[error("invalid give-up condition `{text}`: {reason}")]
pub struct GiveUpParseError {
    pub text: String,
    pub reason: String,
}

impl std::str::FromStr for GiveUp {
    type Err = GiveUpParseError;

    /// Parses `name=value`, e.g. `path-length=85`, `cpu-time=10s`, `memory=2GB`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let err = |reason: &str| GiveUpParseError {
            text: text.to_string(),
            reason: reason.to_string(),
        };
        let (name, value) = text.split_once('=').ok_or_else(|| err("expected NAME=VALUE"))?;
        let count = || {
            value
                .trim()
                .parse::<u64>()
                .map_err(|_| err("expected a whole number"))
        };
        let duration = || parse_duration(value).map_err(|e| err(&e.reason));
        Ok(match name.trim() {
            "cpu-time" | "time" => GiveUp::CpuTime(duration()?),
            "memory" | "mem" => {
                GiveUp::Memory(parse_size(value).map_err(|e| err(&e.reason))?)
            }
            "reached-states" | "reached" => GiveUp::ReachedStates(count()?),
            "states-per-location" => GiveUp::StatesPerLocation(count()?),
            "busy-edge" => GiveUp::BusyEdge(count()?),
            "path-length" => GiveUp::PathLength(count()?),
            "path-time" => GiveUp::PathTime(duration()?),
            "repeating-locations" => GiveUp::RepeatingLocations(count()?),
            "assume-edges" => GiveUp::AssumeEdges(count()?),
            "path-formula-size" => GiveUp::PathFormulaSize(count()?),
            "recursion-depth" => GiveUp::RecursionDepth(count()?),
            _ => {
                return Err(err(
                    "unknown condition (known: cpu-time, memory, reached-states, states-per-location, \
                     busy-edge, path-length, path-time, repeating-locations, assume-edges, path-formula-size, \
                     recursion-depth)",
                ))
            }
        })
    }
}

impl fmt::Display for GiveUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GiveUp::CpuTime(d) => write!(f, "cpu-time={}s", d.as_secs_f64()),
            GiveUp::Memory(b) => write!(f, "memory={b}B"),
            GiveUp::ReachedStates(n) => write!(f, "reached-states={n}"),
            GiveUp::StatesPerLocation(n) => write!(f, "states-per-location={n}"),
            GiveUp::BusyEdge(n) => write!(f, "busy-edge={n}"),
            GiveUp::PathLength(n) => write!(f, "path-length={n}"),
            GiveUp::PathTime(d) => write!(f, "path-time={}s", d.as_secs_f64()),
            GiveUp::RepeatingLocations(n) => write!(f, "repeating-locations={n}"),
            GiveUp::AssumeEdges(n) => write!(f, "assume-edges={n}"),
            GiveUp::PathFormulaSize(n) => write!(f, "path-formula-size={n}"),
            GiveUp::RecursionDepth(n) => write!(f, "recursion-depth={n}"),
        }
    }
}

/// The per-state value of a path monitor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MonitorValue {
    /// A counter (steps, assume edges, nanoseconds).
    Count(u64),
    /// Occurrences of each location on the path (persistent map, shared between states).
    LocationCounts(im::OrdMap<LocId, u64>),
}

/// What the engine tells a path monitor about one step.
pub struct StepInfo<'a> {
    pub step: Step,
    pub target: &'a ControlState,
    pub program: &'a Program,
    /// Time the transfer of this step took.
    pub elapsed: Duration,
}

impl GiveUp {
    /// True for conditions kept per path (in the abstract state).
    pub fn is_path_monitor(self) -> bool {
        matches!(
            self,
            GiveUp::PathLength(_)
                | GiveUp::PathTime(_)
                | GiveUp::RepeatingLocations(_)
                | GiveUp::AssumeEdges(_)
        )
    }

    /// The value at program start (the initial location counts once).
    pub fn initial_value(self, start: &ControlState) -> MonitorValue {
        match self {
            GiveUp::RepeatingLocations(_) => {
                MonitorValue::LocationCounts(im::OrdMap::unit(start.location, 1))
            }
            _ => MonitorValue::Count(0),
        }
    }

    /// The value after a step, and whether the threshold is exceeded.
    pub fn step(self, value: &MonitorValue, info: &StepInfo<'_>) -> (MonitorValue, bool) {
        match (self, value) {
            (GiveUp::PathLength(max), MonitorValue::Count(n)) => {
                // Program statements, as seed 000 counts them: skips (joins, gotos) and returns
                // from callees are not statements.
                let statement =
                    matches!(info.step, Step::Edge(e) if info.program.edge(e).op != Operation::Skip);
                let n = n + u64::from(statement);
                (MonitorValue::Count(n), n > max)
            }
            (GiveUp::AssumeEdges(max), MonitorValue::Count(n)) => {
                let is_assume = matches!(info.step, Step::Edge(e) if info.program.edge(e).op.is_assume());
                let n = n + u64::from(is_assume);
                (MonitorValue::Count(n), n > max)
            }
            (GiveUp::PathTime(max), MonitorValue::Count(nanos)) => {
                let total = nanos.saturating_add(info.elapsed.as_nanos() as u64);
                (MonitorValue::Count(total), Duration::from_nanos(total) > max)
            }
            (GiveUp::RepeatingLocations(max), MonitorValue::LocationCounts(counts)) => {
                let loc = info.target.location;
                let n = counts.get(&loc).copied().unwrap_or(0) + 1;
                (MonitorValue::LocationCounts(counts.update(loc, n)), n > max)
            }
            (_, v) => (v.clone(), false),
        }
    }
}

/// Current resident memory of this process in bytes (Linux `/proc/self/statm`).
pub fn resident_memory() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// CPU time (user + system) this process has used so far.
pub fn process_cpu_time() -> Duration {
    use nix::sys::resource::{getrusage, UsageWho};
    match getrusage(UsageWho::RUSAGE_SELF) {
        Ok(u) => {
            let tv = |t: nix::sys::time::TimeVal| {
                Duration::from_secs(t.tv_sec().max(0) as u64)
                    + Duration::from_micros(t.tv_usec().max(0) as u64)
            };
            tv(u.user_time()) + tv(u.system_time())
        }
        Err(_) => Duration::ZERO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_give_up_conditions() {
        assert_eq!(
            "path-length=85".parse::<GiveUp>().ok(),
            Some(GiveUp::PathLength(85))
        );
        assert_eq!(
            "cpu-time=10s".parse::<GiveUp>().ok(),
            Some(GiveUp::CpuTime(Duration::from_secs(10)))
        );
        assert_eq!(
            "cpu-time=500ms".parse::<GiveUp>().ok(),
            Some(GiveUp::CpuTime(Duration::from_millis(500)))
        );
        assert_eq!(
            "memory=2GB".parse::<GiveUp>().ok(),
            Some(GiveUp::Memory(2_000_000_000))
        );
        assert_eq!(
            "repeating-locations=3".parse::<GiveUp>().ok(),
            Some(GiveUp::RepeatingLocations(3))
        );
        assert_eq!(
            "recursion-depth=5".parse::<GiveUp>().ok(),
            Some(GiveUp::RecursionDepth(5))
        );
        assert!("path-length=x".parse::<GiveUp>().is_err());
        assert!("bogus=1".parse::<GiveUp>().is_err());
        assert!("path-length".parse::<GiveUp>().is_err());
    }
}
