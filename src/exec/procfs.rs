//! Sampling of a process tree through `/proc` (the fallback when no cgroup can be created).
//!
//! A run's tree is: the main process, every process in its process group, every process whose
//! parent chain leads to a member, and every process seen as a member before (remembered by pid
//! and start time, so a process that escaped via `setsid` or was re-parented to init after its
//! parent died is still found, as long as it was seen once).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::time::Duration;

/// One line of `/proc/<pid>/stat`, the fields this module needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProcStat {
    pub pid: i32,
    pub ppid: i32,
    pub pgid: i32,
    /// Process state letter (`R`, `S`, `Z`, ...).
    pub state: u8,
    /// utime + stime + cutime + cstime, in clock ticks.
    pub ticks: u64,
    /// Start time since boot in clock ticks: with the pid it identifies a process uniquely.
    pub start: u64,
    /// Resident set size in pages.
    pub rss_pages: u64,
}

/// Parses the text of `/proc/<pid>/stat`; `None` if it is malformed (the process may have
/// vanished while it was read).
pub(crate) fn parse_stat(text: &str) -> Option<ProcStat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let pid: i32 = text.get(..open)?.trim().parse().ok()?;
    let rest: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    // rest[0] is field 3 (state) of proc(5).
    let field = |n: usize| -> Option<u64> { rest.get(n - 3)?.parse().ok() };
    let state = *rest.first()?.as_bytes().first()?;
    Some(ProcStat {
        pid,
        ppid: rest.get(1)?.parse().ok()?,
        pgid: rest.get(2)?.parse().ok()?,
        state,
        ticks: field(14)? + field(15)? + field(16)? + field(17)?,
        start: field(22)?,
        rss_pages: field(24)?,
    })
}

/// Reads the stat line of one process; `None` if it does not exist (any more).
pub(crate) fn read_stat(pid: i32) -> Option<ProcStat> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&text)
}

/// Reads the stat lines of all processes currently in `/proc`.
pub(crate) fn all_processes() -> Vec<ProcStat> {
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| {
        let entry = entry.ok()?;
        let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
        read_stat(pid)
    })
    .collect()
}

/// Clock ticks per second (`sysconf(_SC_CLK_TCK)`), 100 if it cannot be read.
pub(crate) fn clock_ticks() -> u64 {
    match nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK) {
        Ok(Some(t)) if t > 0 => t as u64,
        _ => 100,
    }
}

/// Page size in bytes, 4096 if it cannot be read.
pub(crate) fn page_size() -> u64 {
    match nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE) {
        Ok(Some(p)) if p > 0 => p as u64,
        _ => 4096,
    }
}

/// What one sample of the tree saw.
#[derive(Debug, Clone, Default)]
pub(crate) struct TreeSample {
    /// Sum of utime+stime+cutime+cstime over the members (each process counted once: a reaped
    /// child is in its parent's cutime, a child not yet reaped is in its own line).
    pub cpu: Duration,
    /// Sum of resident set sizes (shared pages counted more than once, as with `ps`).
    pub rss: u64,
    /// Members that are not zombies, by pid.
    pub live: Vec<i32>,
}

/// Follows the process tree of one run over time.
#[derive(Debug)]
pub(crate) struct TreeTracker {
    pgid: i32,
    /// Every process ever seen as a member: pid → start time.
    known: HashMap<i32, u64>,
    ticks_per_sec: u64,
    page_size: u64,
    /// Largest CPU sum seen so far (the sum can only go down when an orphan is reaped by init).
    pub max_cpu: Duration,
    /// Largest RSS sum seen so far.
    pub max_rss: u64,
}

impl TreeTracker {
    /// Tracks the tree rooted at `root`, which leads its own process group.
    pub(crate) fn new(root: i32) -> Self {
        let mut known = HashMap::new();
        // The start time tells the root apart from a later process that reuses its pid.
        if let Some(st) = read_stat(root) {
            known.insert(root, st.start);
        }
        TreeTracker {
            pgid: root,
            known,
            ticks_per_sec: clock_ticks(),
            page_size: page_size(),
            max_cpu: Duration::ZERO,
            max_rss: 0,
        }
    }

    /// Takes one sample: finds the members, sums their CPU time and memory, updates the maxima.
    pub(crate) fn sample(&mut self) -> TreeSample {
        let procs = all_processes();
        let mut members: HashSet<i32> = HashSet::new();
        for p in &procs {
            let remembered = self.known.get(&p.pid) == Some(&p.start);
            if p.pgid == self.pgid || remembered {
                members.insert(p.pid);
            }
        }
        // Close under "child of a member", walking by parent pid.
        let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
        for p in &procs {
            children.entry(p.ppid).or_default().push(p.pid);
        }
        let mut stack: Vec<i32> = members.iter().copied().collect();
        while let Some(pid) = stack.pop() {
            if let Some(kids) = children.get(&pid) {
                for &kid in kids {
                    if members.insert(kid) {
                        stack.push(kid);
                    }
                }
            }
        }
        let mut sample = TreeSample::default();
        let mut ticks = 0u64;
        for p in procs.iter().filter(|p| members.contains(&p.pid)) {
            self.known.insert(p.pid, p.start);
            ticks += p.ticks;
            sample.rss += p.rss_pages * self.page_size;
            if p.state != b'Z' && p.state != b'X' {
                sample.live.push(p.pid);
            }
        }
        sample.cpu = ticks_to_duration(ticks, self.ticks_per_sec);
        self.max_cpu = self.max_cpu.max(sample.cpu);
        self.max_rss = self.max_rss.max(sample.rss);
        sample
    }
}

fn ticks_to_duration(ticks: u64, per_sec: u64) -> Duration {
    let per_sec = per_sec.max(1);
    Duration::from_secs(ticks / per_sec) + Duration::from_nanos((ticks % per_sec) * 1_000_000_000 / per_sec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stat_with_spaces_and_parens_in_name() {
        let line = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 150 50 7 3 20 0 1 0 \
                    123456 1000000 250 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0";
        let st = parse_stat(line);
        assert!(st.is_some(), "stat line should parse");
        let st = st.unwrap_or_else(|| unreachable!());
        assert_eq!(st.pid, 4242);
        assert_eq!(st.ppid, 1);
        assert_eq!(st.pgid, 4242);
        assert_eq!(st.state, b'S');
        assert_eq!(st.ticks, 150 + 50 + 7 + 3);
        assert_eq!(st.start, 123456);
        assert_eq!(st.rss_pages, 250);
    }

    #[test]
    fn rejects_truncated_stat() {
        assert!(parse_stat("12 (x) S 1").is_none());
        assert!(parse_stat("garbage").is_none());
    }

    #[test]
    fn own_process_is_readable() {
        let me = std::process::id() as i32;
        let st = read_stat(me);
        assert!(st.is_some_and(|s| s.pid == me && s.rss_pages > 0));
    }

    #[test]
    fn ticks_convert() {
        assert_eq!(ticks_to_duration(250, 100), Duration::from_millis(2500));
    }
}
