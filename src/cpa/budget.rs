//! What keeps a native analysis inside its budget: the CPU-time deadline of its `cpu-time`
//! give-up, the time set aside for what follows the give-up, and the default memory limit.
//!
//! A `cpu-time` give-up is a promise about the whole run, condition included. After the
//! engine stops, the analysis still builds the condition from the ARG, writes it and frees the
//! ARG — work that grows with the ARG. So the engine stops early by a *reserve* that grows with
//! the number of ARG nodes ([`finishing_reserve`]); the condition construction runs against the
//! deadline minus what writing needs ([`writing_reserve`]) and cuts its automaton short
//! (soundly) if it gets there; solver queries get the time left as their timeout.

use super::monitor::process_cpu_time;
use std::time::Duration;

/// A point in this process's CPU time (user + system of all threads) by which work must end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct CpuDeadline(Duration);

impl CpuDeadline {
    /// The deadline `budget` of CPU time from now.
    pub fn after(budget: Duration) -> CpuDeadline {
        CpuDeadline(process_cpu_time().saturating_add(budget))
    }

    /// The deadline at the given process CPU time.
    pub fn at(cpu_time: Duration) -> CpuDeadline {
        CpuDeadline(cpu_time)
    }

    /// This deadline moved earlier by `by`.
    pub fn earlier_by(self, by: Duration) -> CpuDeadline {
        CpuDeadline(self.0.saturating_sub(by))
    }

    /// True once the process has used the CPU time up to the deadline.
    pub fn passed(self) -> bool {
        process_cpu_time() >= self.0
    }

    /// CPU time left until the deadline (zero once passed).
    pub fn remaining(self) -> Duration {
        self.0.saturating_sub(process_cpu_time())
    }
}

/// CPU time per ARG node for building the condition. Measured on the release build with ARGs
/// of a million nodes (explicit analysis, `scripts/measure-give-up.sh`): about 0.3 µs per node
/// for the construction and 0.7 µs for writing the GraphML, summarising, freeing the ARG and
/// exiting; with a margin for slower machines and busy caches.
const BUILD_COST_PER_NODE: Duration = Duration::from_nanos(400);
/// CPU time per ARG node for writing the condition, summarising it, freeing the ARG and exiting.
const WRITE_COST_PER_NODE: Duration = Duration::from_nanos(1000);
/// Fixed part of the reserve (writing the output, process exit).
const RESERVE_BASE: Duration = Duration::from_millis(20);

/// CPU time to keep free, before the end of the budget, for everything after the engine stops
/// with `nodes` ARG nodes. Not capped: an analysis that creates nodes faster than it could
/// write them as a condition explores for a smaller share of its budget instead of writing a
/// condition cut short.
pub fn finishing_reserve(nodes: usize) -> Duration {
    RESERVE_BASE
        + (BUILD_COST_PER_NODE + WRITE_COST_PER_NODE).saturating_mul(u32::try_from(nodes).unwrap_or(u32::MAX))
}

/// The point after which no solver query starts or runs, for an analysis that ends at `end`:
/// later than the engine's stop point (at least the reserve's fixed part before the end), so that once
/// queries go unanswered the engine stops at its next look at the clock.
pub fn last_query(end: CpuDeadline) -> CpuDeadline {
    end.earlier_by(RESERVE_BASE / 2)
}

/// CPU time to keep free, after the condition is built from `nodes` ARG nodes, for writing it
/// and freeing the ARG.
pub fn writing_reserve(nodes: usize) -> Duration {
    RESERVE_BASE + WRITE_COST_PER_NODE.saturating_mul(u32::try_from(nodes).unwrap_or(u32::MAX))
}

/// Share of the memory available to the process that a native analysis may use when the user
/// sets no `memory` give-up; the rest is headroom for building and writing the condition.
const DEFAULT_MEMORY_SHARE: (u64, u64) = (1, 2);

/// The memory this process may use: the physical memory, the address-space limit
/// (`ulimit -v`) or the memory limit of its cgroup (BenchExec's `--memorylimit`, `baton bench
/// --memlimit`, a container's), whichever is lowest. `None` if none can be read.
pub fn available_memory() -> Option<u64> {
    use nix::sys::resource::{getrlimit, Resource};
    let physical = nix::sys::sysinfo::sysinfo().ok().map(|s| s.ram_total());
    let address_space = getrlimit(Resource::RLIMIT_AS)
        .ok()
        .map(|(soft, _)| soft)
        .filter(|&soft| soft != nix::sys::resource::RLIM_INFINITY);
    let cgroup = crate::exec::cgroup::own_memory_limit();
    [physical, address_space, cgroup].into_iter().flatten().min()
}

/// The `memory` give-up of a native analysis without one: half of [`available_memory`].
pub fn default_memory_limit() -> Option<u64> {
    let (num, den) = DEFAULT_MEMORY_SHARE;
    Some(available_memory()? / den * num)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_pass_and_count_down() {
        assert!(CpuDeadline::after(Duration::ZERO).passed());
        let far = CpuDeadline::after(Duration::from_secs(3600));
        assert!(!far.passed());
        assert!(far.remaining() > Duration::from_secs(3000));
        assert!(far.earlier_by(Duration::from_secs(7200)).passed());
        assert_eq!(
            far.earlier_by(Duration::from_secs(7200)).remaining(),
            Duration::ZERO
        );
    }

    #[test]
    fn reserve_grows_with_the_arg_and_leaves_time_to_build() {
        let small = finishing_reserve(1_000);
        let large = finishing_reserve(1_000_000);
        assert!(RESERVE_BASE <= small && small < large);
        assert!(writing_reserve(1_000) < small && writing_reserve(1_000_000) < large);
        assert_eq!(
            finishing_reserve(u32::MAX as usize + 1),
            finishing_reserve(u32::MAX as usize)
        );
    }

    #[test]
    fn default_memory_limit_is_below_physical_memory() {
        let physical = nix::sys::sysinfo::sysinfo()
            .map(|s| s.ram_total())
            .unwrap_or(u64::MAX);
        let limit = default_memory_limit();
        assert!(limit.is_some_and(|l| l > 0 && l <= physical / 2));
    }
}
