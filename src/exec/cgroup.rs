//! A child cgroup per run: CPU accounting, a memory limit with the kernel's OOM killer, peak
//! memory, and killing every process in it (which also catches processes that left the
//! process group via `setsid`).
//!
//! Two layouts are supported:
//! - cgroup v1 with the `cpuacct` and `memory` controllers mounted (possibly next to a v2
//!   "unified" mount, as on hybrid systems): a child is created below the cgroup this process is
//!   in, in each of the two hierarchies.
//! - cgroup v2 where this process's cgroup lets children have the `memory` controller
//!   (delegated subtree): one child, `cpu.stat`, `memory.max`, `memory.peak`, `cgroup.kill`.
//!
//! Anything else (not root, read-only mounts, no delegation) is reported as an error string and
//! the caller falls back to sampling `/proc`.

use std::fs::{self, File, OpenOptions};
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// Which cgroup version a run's cgroup uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Version {
    V1,
    V2,
}

/// A cgroup created for one run; removed by [`RunCgroup::remove`] (and on drop).
#[derive(Debug)]
pub(crate) struct RunCgroup {
    pub version: Version,
    /// v1: the cpuacct child; v2: the only child.
    cpu_dir: PathBuf,
    /// v1: the memory child; v2: same as `cpu_dir`.
    mem_dir: PathBuf,
    /// `cgroup.procs` of every created directory, opened for writing, so that the child can
    /// join between fork and exec without allocating.
    procs_files: Vec<File>,
    removed: bool,
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn unique_name() -> String {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("baton-{}-{}-{:08x}", std::process::id(), n, nanos)
}

/// A line of `/proc/self/cgroup`: hierarchy id, controllers, path.
struct CgroupLine {
    controllers: Vec<String>,
    path: String,
}

fn own_cgroups() -> Result<Vec<CgroupLine>, String> {
    let text =
        fs::read_to_string("/proc/self/cgroup").map_err(|e| format!("cannot read /proc/self/cgroup: {e}"))?;
    Ok(text
        .lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, ':');
            let _id = parts.next()?;
            let controllers = parts.next()?;
            let path = parts.next()?;
            Some(CgroupLine {
                controllers: controllers
                    .split(',')
                    .filter(|c| !c.is_empty())
                    .map(str::to_string)
                    .collect(),
                path: path.to_string(),
            })
        })
        .collect())
}

/// A cgroup mount from `/proc/self/mountinfo`.
struct Mount {
    root: String,
    mount_point: PathBuf,
    fstype: String,
    super_options: Vec<String>,
}

fn cgroup_mounts() -> Result<Vec<Mount>, String> {
    let text = fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| format!("cannot read /proc/self/mountinfo: {e}"))?;
    Ok(text
        .lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let left: Vec<&str> = left.split_whitespace().collect();
            let right: Vec<&str> = right.split_whitespace().collect();
            let fstype = right.first()?.to_string();
            if fstype != "cgroup" && fstype != "cgroup2" {
                return None;
            }
            Some(Mount {
                root: unescape_mount(left.get(3)?),
                mount_point: PathBuf::from(unescape_mount(left.get(4)?)),
                fstype,
                super_options: right
                    .get(2)
                    .map(|o| o.split(',').map(str::to_string).collect())
                    .unwrap_or_default(),
            })
        })
        .collect())
}

/// mountinfo escapes space, tab, newline and backslash as octal `\ooo`.
fn unescape_mount(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 3 < bytes.len() {
            let oct = std::str::from_utf8(&bytes[i + 1..i + 4]).unwrap_or("");
            if let Ok(v) = u8::from_str_radix(oct, 8) {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The memory limit of the cgroup this process runs in (as BenchExec, systemd or a container
/// set it): the lowest `memory.max` (v2) or `memory.limit_in_bytes` (v1) of its cgroup and the
/// cgroups above it up to the mount point. `None` if no limit is set or none can be read.
pub(crate) fn own_memory_limit() -> Option<u64> {
    let lines = own_cgroups().ok()?;
    let mounts = cgroup_mounts().ok()?;
    let v1 = lines
        .iter()
        .find(|l| l.controllers.iter().any(|c| c == "memory"))
        .and_then(|line| {
            let mount = mounts
                .iter()
                .find(|m| m.fstype == "cgroup" && m.super_options.iter().any(|o| o == "memory"))?;
            Some((mount, line, "memory.limit_in_bytes"))
        });
    let v2 = || {
        let line = lines.iter().find(|l| l.controllers.is_empty())?;
        let mount = mounts.iter().find(|m| m.fstype == "cgroup2")?;
        Some((mount, line, "memory.max"))
    };
    let (mount, line, file) = v1.or_else(v2)?;
    let mut dir = own_dir(mount, &line.path);
    let mut lowest: Option<u64> = None;
    loop {
        // "max" (v2) and v1's page-rounded i64::MAX mean no limit; both fail the parse or the
        // sanity bound.
        let limit = read_trimmed(&dir.join(file))
            .and_then(|s| s.parse::<u64>().ok())
            .filter(|&l| l < 1 << 60);
        if let Some(l) = limit {
            lowest = Some(lowest.map_or(l, |m| m.min(l)));
        }
        if dir == mount.mount_point || !dir.pop() {
            return lowest;
        }
    }
}

/// The directory of this process's own cgroup in the hierarchy mounted at `mount`.
fn own_dir(mount: &Mount, path: &str) -> PathBuf {
    let rel = if mount.root != "/" {
        path.strip_prefix(mount.root.as_str()).unwrap_or(path)
    } else {
        path
    };
    mount.mount_point.join(rel.trim_start_matches('/'))
}

fn write_file(path: &Path, value: &str) -> Result<(), String> {
    fs::write(path, value).map_err(|e| format!("cannot write {value:?} to {}: {e}", path.display()))
}

fn open_procs(dir: &Path) -> Result<File, String> {
    let path = dir.join("cgroup.procs");
    OpenOptions::new()
        .write(true)
        .open(&path)
        .map_err(|e| format!("cannot open {} for writing: {e}", path.display()))
}

fn make_child(parent: &Path) -> Result<PathBuf, String> {
    let dir = parent.join(unique_name());
    fs::create_dir(&dir).map_err(|e| format!("cannot create cgroup {}: {e}", dir.display()))?;
    Ok(dir)
}

impl RunCgroup {
    /// Creates a cgroup for one run, with `memory_limit` (bytes) enforced by the kernel if given.
    /// Tries cgroup v1 first (where `cpuacct` and `memory` are v1 controllers), then v2.
    /// The error says why neither works.
    pub(crate) fn create(memory_limit: Option<u64>) -> Result<RunCgroup, String> {
        let lines = own_cgroups()?;
        let mounts = cgroup_mounts()?;
        let v1 = Self::create_v1(&lines, &mounts, memory_limit);
        match v1 {
            Ok(cg) => Ok(cg),
            Err(e1) => Self::create_v2(&lines, &mounts, memory_limit)
                .map_err(|e2| format!("cgroup v1: {e1}; cgroup v2: {e2}")),
        }
    }

    fn create_v1(
        lines: &[CgroupLine],
        mounts: &[Mount],
        memory_limit: Option<u64>,
    ) -> Result<RunCgroup, String> {
        let find = |controller: &str| -> Result<PathBuf, String> {
            let line = lines
                .iter()
                .find(|l| l.controllers.iter().any(|c| c == controller))
                .ok_or_else(|| format!("controller {controller} is not a v1 hierarchy"))?;
            let mount = mounts
                .iter()
                .find(|m| m.fstype == "cgroup" && m.super_options.iter().any(|o| o == controller))
                .ok_or_else(|| format!("controller {controller} is not mounted"))?;
            Ok(own_dir(mount, &line.path))
        };
        let cpu_parent = find("cpuacct")?;
        let mem_parent = find("memory")?;
        let cpu_dir = make_child(&cpu_parent)?;
        let mut cg = RunCgroup {
            version: Version::V1,
            cpu_dir: cpu_dir.clone(),
            mem_dir: cpu_dir,
            procs_files: Vec::new(),
            removed: false,
        };
        // From here on, `cg` removes what was created if anything fails (Drop).
        cg.mem_dir = match make_child(&mem_parent) {
            Ok(d) => d,
            Err(e) => {
                cg.mem_dir = cg.cpu_dir.clone();
                return Err(e);
            }
        };
        if let Some(limit) = memory_limit {
            write_file(&cg.mem_dir.join("memory.limit_in_bytes"), &limit.to_string())?;
            let memsw = cg.mem_dir.join("memory.memsw.limit_in_bytes");
            if memsw.exists() {
                write_file(&memsw, &limit.to_string())?;
            }
        }
        // Check that the files we read later are there.
        for f in ["cpuacct.usage"] {
            if !cg.cpu_dir.join(f).exists() {
                return Err(format!("{} has no {f}", cg.cpu_dir.display()));
            }
        }
        for f in ["memory.max_usage_in_bytes", "memory.oom_control"] {
            if !cg.mem_dir.join(f).exists() {
                return Err(format!("{} has no {f}", cg.mem_dir.display()));
            }
        }
        cg.procs_files = vec![open_procs(&cg.cpu_dir)?, open_procs(&cg.mem_dir)?];
        Ok(cg)
    }

    fn create_v2(
        lines: &[CgroupLine],
        mounts: &[Mount],
        memory_limit: Option<u64>,
    ) -> Result<RunCgroup, String> {
        let line = lines
            .iter()
            .find(|l| l.controllers.is_empty())
            .ok_or("no cgroup v2 entry in /proc/self/cgroup")?;
        let mount = mounts
            .iter()
            .find(|m| m.fstype == "cgroup2")
            .ok_or("no cgroup2 mount")?;
        let parent = own_dir(mount, &line.path);
        let dir = make_child(&parent)?;
        let mut cg = RunCgroup {
            version: Version::V2,
            cpu_dir: dir.clone(),
            mem_dir: dir,
            procs_files: Vec::new(),
            removed: false,
        };
        let controllers = fs::read_to_string(cg.cpu_dir.join("cgroup.controllers"))
            .map_err(|e| format!("cannot read cgroup.controllers: {e}"))?;
        if !controllers.split_whitespace().any(|c| c == "memory") {
            return Err(format!(
                "the memory controller is not enabled for children of {} (no delegation)",
                parent.display()
            ));
        }
        if let Some(limit) = memory_limit {
            write_file(&cg.mem_dir.join("memory.max"), &limit.to_string())?;
            let swap = cg.mem_dir.join("memory.swap.max");
            if swap.exists() {
                write_file(&swap, "0")?;
            }
        }
        for f in ["cpu.stat", "memory.events", "memory.current"] {
            if !cg.cpu_dir.join(f).exists() {
                return Err(format!("{} has no {f}", cg.cpu_dir.display()));
            }
        }
        cg.procs_files = vec![open_procs(&cg.cpu_dir)?];
        Ok(cg)
    }

    /// File descriptors of the `cgroup.procs` files; writing "0" to each from the child process
    /// moves it into the cgroup.
    pub(crate) fn procs_fds(&self) -> Vec<RawFd> {
        self.procs_files.iter().map(|f| f.as_raw_fd()).collect()
    }

    /// CPU time (user + system) used by all processes that were ever in the cgroup.
    pub(crate) fn cpu_time(&self) -> Option<Duration> {
        match self.version {
            Version::V1 => {
                let ns: u64 = read_trimmed(&self.cpu_dir.join("cpuacct.usage"))?.parse().ok()?;
                Some(Duration::from_nanos(ns))
            }
            Version::V2 => {
                let us = read_key(&self.cpu_dir.join("cpu.stat"), "usage_usec")?;
                Some(Duration::from_micros(us))
            }
        }
    }

    /// Current memory usage in bytes (v2 only needs it when `memory.peak` is missing).
    fn current_memory(&self) -> Option<u64> {
        match self.version {
            Version::V1 => read_trimmed(&self.mem_dir.join("memory.usage_in_bytes"))?
                .parse()
                .ok(),
            Version::V2 => read_trimmed(&self.mem_dir.join("memory.current"))?.parse().ok(),
        }
    }

    /// Peak memory usage in bytes, if the kernel records it; else the current usage (the
    /// caller keeps the maximum of its samples).
    pub(crate) fn peak_memory(&self) -> Option<u64> {
        let peak_file = match self.version {
            Version::V1 => "memory.max_usage_in_bytes",
            Version::V2 => "memory.peak",
        };
        read_trimmed(&self.mem_dir.join(peak_file))
            .and_then(|s| s.parse().ok())
            .or_else(|| self.current_memory())
    }

    /// How often the kernel's OOM killer killed a process in this cgroup.
    pub(crate) fn oom_kills(&self) -> u64 {
        let file = match self.version {
            Version::V1 => "memory.oom_control",
            Version::V2 => "memory.events",
        };
        read_key(&self.mem_dir.join(file), "oom_kill").unwrap_or(0)
    }

    /// Pids currently in the cgroup.
    pub(crate) fn pids(&self) -> Vec<i32> {
        pids_in(&self.cpu_dir)
    }

    /// Sends `signal` to every process in the cgroup.
    pub(crate) fn signal_all(&self, signal: Signal) {
        for pid in self.pids() {
            if pid > 0 {
                let _ = kill(Pid::from_raw(pid), signal);
            }
        }
    }

    /// Kills every process in the cgroup and waits (up to `patience`) until it is empty.
    /// Returns the number of processes still in it afterwards (0 normally).
    pub(crate) fn kill_all(&self, patience: Duration) -> usize {
        kill_processes_in(&self.cpu_dir, patience)
    }

    /// The created directories (v1: two, v2: one).
    pub(crate) fn dirs(&self) -> Vec<PathBuf> {
        let mut dirs = vec![self.cpu_dir.clone()];
        if self.mem_dir != self.cpu_dir {
            dirs.push(self.mem_dir.clone());
        }
        dirs
    }

    /// Removes the created directories (retrying briefly: a cgroup is busy until the kernel
    /// has finished tearing down its last process). Errors are ignored: an empty leftover
    /// cgroup does no harm.
    pub(crate) fn remove(&mut self) {
        if self.removed {
            return;
        }
        self.removed = true;
        self.procs_files.clear();
        for dir in self.dirs() {
            remove_tree(&dir);
        }
    }
}

/// Pids currently in the cgroup directory `dir`.
fn pids_in(dir: &Path) -> Vec<i32> {
    fs::read_to_string(dir.join("cgroup.procs"))
        .map(|t| t.lines().filter_map(|l| l.trim().parse().ok()).collect())
        .unwrap_or_default()
}

/// `dir` and every cgroup below it (a Baton run inside a Baton run makes nested cgroups),
/// deepest first.
fn subtree(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                out.extend(subtree(&entry.path()));
            }
        }
    }
    out.push(dir.to_path_buf());
    out
}

/// Kills every process in the cgroup directory `dir` and waits (up to `patience`) until none
/// is alive; returns how many are still alive.
pub(crate) fn kill_processes_in(dir: &Path, patience: Duration) -> usize {
    let kill_file = dir.join("cgroup.kill");
    let deadline = Instant::now() + patience;
    loop {
        let live: Vec<i32> = subtree(dir)
            .iter()
            .flat_map(|d| pids_in(d))
            .filter(|&p| super::procfs::read_stat(p).is_some_and(|s| s.state != b'Z' && s.state != b'X'))
            .collect();
        if live.is_empty() || Instant::now() >= deadline {
            return live.len();
        }
        if kill_file.exists() {
            let _ = fs::write(&kill_file, "1");
        }
        for pid in live {
            if pid > 0 {
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Removes a cgroup directory whose processes have ended, and the cgroups below it, retrying
/// for up to half a second while the kernel tears down their last processes.
pub(crate) fn remove_tree(dir: &Path) {
    for d in subtree(dir) {
        for _ in 0..50 {
            if fs::remove_dir(&d).is_ok() || !d.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Kills the processes of cgroups an earlier Baton process created and left behind (it was
/// killed with SIGKILL, say) and removes them: children of this process's own cgroups named
/// `baton-<pid>-…` whose `<pid>` is no live process. Returns the directories removed.
pub(crate) fn remove_stale() -> Vec<PathBuf> {
    let (Ok(lines), Ok(mounts)) = (own_cgroups(), cgroup_mounts()) else {
        return Vec::new();
    };
    let mut parents: Vec<PathBuf> = Vec::new();
    for line in &lines {
        let mount = if line.controllers.is_empty() {
            mounts.iter().find(|m| m.fstype == "cgroup2")
        } else {
            mounts.iter().find(|m| {
                m.fstype == "cgroup"
                    && line
                        .controllers
                        .iter()
                        .any(|c| (c == "cpuacct" || c == "memory") && m.super_options.contains(c))
            })
        };
        if let Some(mount) = mount {
            let dir = own_dir(mount, &line.path);
            if !parents.contains(&dir) {
                parents.push(dir);
            }
        }
    }
    let mut removed = Vec::new();
    for parent in parents {
        let Ok(entries) = fs::read_dir(&parent) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(owner) = name.to_str().and_then(owner_pid) else {
                continue;
            };
            if owner == std::process::id() || Path::new(&format!("/proc/{owner}")).exists() {
                continue;
            }
            let dir = entry.path();
            kill_processes_in(&dir, Duration::from_secs(1));
            remove_tree(&dir);
            if !dir.exists() {
                removed.push(dir);
            }
        }
    }
    removed
}

/// The pid in a cgroup name made by [`unique_name`] (`baton-<pid>-<n>-<nanos>`).
fn owner_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("baton-")?;
    let (pid, rest) = rest.split_once('-')?;
    let (n, nanos) = rest.split_once('-')?;
    let hex = |s: &str| s.len() == 8 && s.bytes().all(|b| b.is_ascii_hexdigit());
    (n.bytes().all(|b| b.is_ascii_digit()) && !n.is_empty() && hex(nanos))
        .then(|| pid.parse().ok())
        .flatten()
}

impl Drop for RunCgroup {
    /// Kills what is left in the cgroup (on every exit path, a panic included) and removes it.
    fn drop(&mut self) {
        if !self.removed {
            self.kill_all(Duration::from_secs(1));
        }
        self.remove();
    }
}

fn read_trimmed(path: &Path) -> Option<String> {
    fs::read_to_string(path).ok().map(|s| s.trim().to_string())
}

/// Reads `key value` lines (cpu.stat, memory.events, memory.oom_control) and returns `value`.
fn read_key(path: &Path, key: &str) -> Option<u64> {
    let text = fs::read_to_string(path).ok()?;
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(' ')?;
        if k == key {
            v.trim().parse().ok()
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_pid_only_from_baton_names() {
        assert_eq!(owner_pid("baton-123-0-0000abcd"), Some(123));
        assert_eq!(owner_pid("baton-123-0"), None);
        assert_eq!(owner_pid("baton-x-0-0000abcd"), None);
        assert_eq!(owner_pid("other-123-0-0000abcd"), None);
        assert_eq!(owner_pid(&unique_name()), Some(std::process::id()));
    }

    #[test]
    fn unescapes_mountinfo_paths() {
        assert_eq!(unescape_mount("/a\\040b"), "/a b");
        assert_eq!(unescape_mount("/plain"), "/plain");
        assert_eq!(unescape_mount("/trail\\"), "/trail\\");
    }

    #[test]
    fn own_dir_strips_mount_root() {
        let m = Mount {
            root: "/docker/abc".into(),
            mount_point: PathBuf::from("/sys/fs/cgroup/memory"),
            fstype: "cgroup".into(),
            super_options: vec!["rw".into(), "memory".into()],
        };
        assert_eq!(
            own_dir(&m, "/docker/abc/sub"),
            PathBuf::from("/sys/fs/cgroup/memory/sub")
        );
        let m2 = Mount {
            root: "/".into(),
            ..m
        };
        assert_eq!(own_dir(&m2, "/"), PathBuf::from("/sys/fs/cgroup/memory"));
    }
}
