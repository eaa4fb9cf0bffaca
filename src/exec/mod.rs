//! Running external tools under CPU-time, wall-time and memory limits and measuring them, in
//! the manner of BenchExec's `runexec`.
//!
//! A tool is started from an argv (never through a shell) in its own process group, with the
//! parent-death signal SIGKILL (see [`lifecycle`] for how nothing outlives Baton), in a fresh
//! temporary directory of mode 0700 (or one the caller names), with stdin from a file or
//! `/dev/null` and stdout/stderr copied to files in that directory up to a size cap (see
//! [`output`]; so large output can neither deadlock nor fill Baton's memory).
//!
//! Measurement and enforcement use, in this order of preference:
//! - a child **cgroup v1** (`cpuacct` + `memory` hierarchies), where this process may create one
//!   (as root on hybrid systems): CPU from `cpuacct.usage`, peak memory from
//!   `memory.max_usage_in_bytes`, the memory limit enforced by the kernel's OOM killer, and every
//!   process of the run — also those that left the process group with `setsid` — killed at the end;
//! - a child **cgroup v2** where the `memory` controller is delegated to this process's cgroup;
//! - **sampling** of `/proc` otherwise: the tree is the process group plus everything reachable
//!   by parent pid (and every process ever seen in it), CPU is the larger of the sampled sum and
//!   `wait4`'s rusage of the main process, memory is the larger of the sampled sum of resident
//!   set sizes and `wait4`'s `ru_maxrss`, and the group is killed by the monitor when the sum
//!   reaches the limit (so a fast allocator may overshoot by what it allocates in one sampling
//!   interval of 20 ms).
//!
//! Known limits of sampling: a process that is started and leaves the tree (double fork plus
//! `setsid`) within one sampling interval is neither measured nor killed, and the CPU time of
//! descendants that were re-parented to init and then ended is counted only up to their last
//! sample. Cgroups have neither gap. With cgroup v1, memory includes the page cache the run
//! caused (as in BenchExec), which the kernel reclaims before it OOM-kills.
//!
//! The CPU-time limit is for the whole tree: the monitor sends SIGTERM to every process of the
//! run when the tree's CPU time reaches it and SIGKILL after [`Limits::grace`]. `RLIMIT_CPU` is
//! set as a per-process backstop one second above the limit. The wall-time limit works the same.
//! When the main process ends, whatever is left of the run is killed.
//!
//! The report keeps the tool's own outcome (exit code or signal) and, separately, which limit
//! was broken: a tool that finished but used more than its limit is `TIMEOUT`, like BenchExec's
//! `TIMEOUT (true)`, so the result does not count.

pub(crate) mod cgroup;
pub mod lifecycle;
pub mod output;
mod procfs;
mod spawn;

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use lifecycle::PrivateTempDir;
use spawn::{ceil_secs, wait_for, GroupGuard, SpawnSpec};

use nix::sys::resource::{getrlimit, Resource};
use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;

/// Name of the file in the work directory that receives the tool's standard output.
pub const STDOUT_FILE: &str = "baton-tool.stdout";
/// Name of the file in the work directory that receives the tool's standard error.
pub const STDERR_FILE: &str = "baton-tool.stderr";
/// Name of the file in the work directory that holds the tool's standard input, if given.
pub const STDIN_FILE: &str = "baton-tool.stdin";

/// Resource limits of one run. `None` means unlimited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// CPU time (user + system) of the whole process tree.
    pub cpu_time: Option<Duration>,
    /// Wall-clock time from start to the end of the main process.
    pub wall_time: Option<Duration>,
    /// Memory of the whole tree in bytes (cgroup: charged memory; sampling: sum of RSS).
    pub memory: Option<u64>,
    /// Time between SIGTERM and SIGKILL when a time limit is reached.
    pub grace: Duration,
    /// Bytes of each of stdout and stderr written to its file before the rest is left out
    /// (except its tail; see [`output`]).
    pub output_cap: u64,
}

impl Default for Limits {
    /// No limits, one second of grace, [`output::DEFAULT_OUTPUT_CAP`].
    fn default() -> Self {
        Limits {
            cpu_time: None,
            wall_time: None,
            memory: None,
            grace: Duration::from_secs(1),
            output_cap: output::DEFAULT_OUTPUT_CAP,
        }
    }
}

/// Where the tool runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkDir {
    /// A fresh temporary directory, deleted when the report (and every clone of it) is dropped.
    /// It is also the tool's `TMPDIR` (as in BenchExec), so temporary files the tool makes
    /// (a Baton run inside a Baton run makes its own temporary directory) go with it.
    Fresh,
    /// A fresh temporary directory that is kept after the run (its path is in the report).
    FreshKept,
    /// This directory, created (with parents) if missing, and kept.
    Keep(PathBuf),
    /// This directory, which must already exist; kept. The output files are written into it.
    Existing(PathBuf),
}

/// A tool invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCommand {
    /// Program and arguments; `argv[0]` is looked up in `PATH` unless it contains a `/`
    /// (then it is taken relative to Baton's current directory, not the work directory).
    pub argv: Vec<OsString>,
    /// Environment variables set on top of Baton's own environment.
    pub env: Vec<(OsString, OsString)>,
    /// Bytes for standard input; `None` gives `/dev/null`.
    pub stdin: Option<Vec<u8>>,
    /// Where the tool runs.
    pub workdir: WorkDir,
}

impl ToolCommand {
    /// A command from an argv, with no extra environment, no input, in a fresh temporary directory.
    pub fn new<I, S>(argv: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        ToolCommand {
            argv: argv.into_iter().map(Into::into).collect(),
            env: Vec::new(),
            stdin: None,
            workdir: WorkDir::Fresh,
        }
    }
}

/// Which mechanism to use for measuring and enforcing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MechanismChoice {
    /// A cgroup if one can be created, else sampling.
    #[default]
    Auto,
    /// Always sample `/proc` (for testing the fallback, or to leave cgroups alone).
    SamplingOnly,
}

/// How a run was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measurement {
    /// A child cgroup in cgroup v1 hierarchies (`cpuacct`, `memory`).
    CgroupV1,
    /// A child cgroup in the cgroup v2 hierarchy.
    CgroupV2,
    /// Sampling of the process tree in `/proc` plus `wait4` rusage.
    Sampling,
}

impl fmt::Display for Measurement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Measurement::CgroupV1 => "cgroup v1",
            Measurement::CgroupV2 => "cgroup v2",
            Measurement::Sampling => "sampling",
        })
    }
}

/// Which limit a run broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    /// The CPU-time limit.
    CpuTime,
    /// The wall-time limit.
    WallTime,
    /// The memory limit.
    Memory,
}

/// The outcome of a run, as BenchExec names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    /// Exit code 0 and no limit broken.
    Done,
    /// A non-zero exit code and no limit broken.
    Error(i32),
    /// Ended by a signal that was not sent because of a limit.
    KilledBySignal(i32),
    /// The CPU-time or wall-time limit was broken (whatever the tool's own outcome).
    Timeout,
    /// The memory limit was broken.
    OutOfMemory,
}

impl RunStatus {
    /// BenchExec's status text: `done`, `ERROR (n)`, `KILLED BY SIGNAL n`, `TIMEOUT`,
    /// `OUT OF MEMORY`.
    pub fn benchexec_string(&self) -> String {
        match self {
            RunStatus::Done => "done".to_string(),
            RunStatus::Error(n) => format!("ERROR ({n})"),
            RunStatus::KilledBySignal(n) => format!("KILLED BY SIGNAL {n}"),
            RunStatus::Timeout => "TIMEOUT".to_string(),
            RunStatus::OutOfMemory => "OUT OF MEMORY".to_string(),
        }
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.benchexec_string())
    }
}

/// What a run did and used.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// The status; a broken limit takes precedence over the tool's own outcome.
    pub status: RunStatus,
    /// The tool's own exit code, if the main process exited.
    pub exit_code: Option<i32>,
    /// The signal that ended the main process, if one did.
    pub signal: Option<i32>,
    /// CPU time (user + system) of the whole tree.
    pub cpu_time: Duration,
    /// Wall time from spawning to the end of the main process.
    pub wall_time: Duration,
    /// Peak memory of the whole tree in bytes, where it could be measured.
    pub peak_memory: Option<u64>,
    /// How the numbers were measured and the limits enforced.
    pub measurement: Measurement,
    /// Why a cgroup was not used, when `measurement` is `Sampling` under [`MechanismChoice::Auto`].
    pub cgroup_unavailable: Option<String>,
    /// The file with what the tool wrote to stdout (capped: see [`output`]).
    pub stdout_path: PathBuf,
    /// The file with what the tool wrote to stderr (capped: see [`output`]).
    pub stderr_path: PathBuf,
    /// Bytes of stdout and of stderr left out of their files because of the cap.
    pub output_omitted: (u64, u64),
    /// The work directory (for [`WorkDir::Fresh`] deleted when the report is dropped).
    pub workdir: PathBuf,
    /// Whether `workdir` is kept after the report is dropped.
    pub workdir_kept: bool,
    /// Keeps a [`WorkDir::Fresh`] directory while the report (or a clone) exists.
    _fresh: Option<Arc<PrivateTempDir>>,
    /// The limit that was broken, if any.
    pub limit_hit: Option<LimitKind>,
    /// Processes of the run that could not be killed within 5 s after the end (0 normally).
    pub leftover_processes: usize,
}

impl RunReport {
    /// The tool's own outcome, ignoring limits: `Done`, `Error(n)` or `KilledBySignal(n)`.
    /// With `status == Timeout` this is the "(true)" part of BenchExec's `TIMEOUT (true)`.
    pub fn tool_status(&self) -> RunStatus {
        match (self.exit_code, self.signal) {
            (_, Some(sig)) => RunStatus::KilledBySignal(sig),
            (Some(0), None) => RunStatus::Done,
            (Some(code), None) => RunStatus::Error(code),
            (None, None) => RunStatus::KilledBySignal(0),
        }
    }

    /// What the tool wrote to stdout (lossy UTF-8; at most the cap plus the kept tail).
    pub fn stdout_text(&self) -> Result<String, ExecError> {
        read_text(&self.stdout_path)
    }

    /// What the tool wrote to stderr (lossy UTF-8; at most the cap plus the kept tail).
    pub fn stderr_text(&self) -> Result<String, ExecError> {
        read_text(&self.stderr_path)
    }
}

fn read_text(path: &Path) -> Result<String, ExecError> {
    fs::read(path)
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .map_err(|source| ExecError::File {
            what: "read",
            path: path.to_path_buf(),
            source,
        })
}

/// Why a tool could not be run at all.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The argv was empty.
    #[error("cannot run a tool: the command line is empty")]
    EmptyCommand,
    /// The executable does not exist or is not executable.
    #[error("tool executable `{name}` not found{}", where_searched(.searched))]
    NotFound {
        /// The name as given in `argv[0]`.
        name: String,
        /// The `PATH` that was searched, if it was a bare name.
        searched: Option<String>,
    },
    /// The work directory could not be prepared.
    #[error("cannot prepare work directory {path}: {source}")]
    WorkDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A file of the run (stdin, stdout, stderr) could not be created or read.
    #[error("cannot {what} {path}: {source}")]
    File {
        /// What was done (create, read).
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The process could not be started.
    #[error("cannot start {program}: {source}")]
    Spawn {
        /// The resolved program path.
        program: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// Baton was asked to stop (SIGINT, SIGTERM, SIGHUP; see [`lifecycle`]): the run was not
    /// started, or ended early and killed; its outcome means nothing.
    #[error("interrupted by signal {signal}")]
    Interrupted {
        /// The signal that asked Baton to stop.
        signal: i32,
    },
    /// Waiting for the process failed.
    #[error("cannot wait for {program} (pid {pid}): {reason}")]
    Wait {
        /// The resolved program path.
        program: PathBuf,
        /// Its pid.
        pid: i32,
        /// The cause.
        reason: String,
    },
}

fn where_searched(searched: &Option<String>) -> String {
    match searched {
        Some(path) => format!(" in PATH ({path})"),
        None => " (no such executable file)".to_string(),
    }
}

fn is_executable_file(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Looks `name` up like a shell would: a name containing `/` is checked as a path, any other
/// name is searched in the directories of `PATH`. Returns the executable file found.
pub fn find_executable(name: &str) -> Option<PathBuf> {
    find_executable_os(OsStr::new(name))
}

fn find_executable_os(name: &OsStr) -> Option<PathBuf> {
    if name.is_empty() {
        return None;
    }
    if name.as_bytes().contains(&b'/') {
        let path = PathBuf::from(name);
        let path = if path.is_absolute() {
            path
        } else {
            std::env::current_dir().ok()?.join(path)
        };
        return is_executable_file(&path).then_some(path);
    }
    let path_var = std::env::var_os("PATH")?;
    std::env::split_paths(&path_var)
        .map(|dir| {
            if dir.as_os_str().is_empty() {
                PathBuf::from(".").join(name)
            } else {
                dir.join(name)
            }
        })
        .find(|candidate| is_executable_file(candidate))
}

/// Which mechanism [`run`] would use right now, and why: creates (and removes) a probe cgroup.
pub fn probe_mechanism() -> (Measurement, String) {
    match cgroup::RunCgroup::create(None) {
        Ok(mut cg) => {
            let m = match cg.version {
                cgroup::Version::V1 => Measurement::CgroupV1,
                cgroup::Version::V2 => Measurement::CgroupV2,
            };
            cg.remove();
            (m, "a child cgroup could be created".to_string())
        }
        Err(why) => (Measurement::Sampling, why),
    }
}

/// Runs a tool under limits with the best available mechanism; see the module documentation.
pub fn run(cmd: &ToolCommand, limits: &Limits) -> Result<RunReport, ExecError> {
    run_with(cmd, limits, MechanismChoice::Auto)
}

/// The prepared work directory of one run.
struct Prepared {
    dir: PathBuf,
    temp: Option<PrivateTempDir>,
    kept: bool,
}

fn prepare_workdir(workdir: &WorkDir) -> Result<Prepared, ExecError> {
    let temp = || {
        PrivateTempDir::new().map_err(|source| ExecError::WorkDir {
            path: std::env::temp_dir(),
            source,
        })
    };
    match workdir {
        WorkDir::Fresh => {
            let t = temp()?;
            Ok(Prepared {
                dir: t.path().to_path_buf(),
                temp: Some(t),
                kept: false,
            })
        }
        WorkDir::FreshKept => {
            let t = temp()?;
            Ok(Prepared {
                dir: t.keep(),
                temp: None,
                kept: true,
            })
        }
        WorkDir::Keep(path) => {
            fs::create_dir_all(path).map_err(|source| ExecError::WorkDir {
                path: path.clone(),
                source,
            })?;
            Ok(Prepared {
                dir: path.clone(),
                temp: None,
                kept: true,
            })
        }
        WorkDir::Existing(path) => {
            if !path.is_dir() {
                return Err(ExecError::WorkDir {
                    path: path.clone(),
                    source: io::Error::new(io::ErrorKind::NotFound, "not an existing directory"),
                });
            }
            Ok(Prepared {
                dir: path.clone(),
                temp: None,
                kept: true,
            })
        }
    }
}

/// Creates (or truncates) a file of the run, readable by its owner only.
fn create_file(path: &Path) -> Result<File, ExecError> {
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .map_err(|source| ExecError::File {
            what: "create",
            path: path.to_path_buf(),
            source,
        })
}

/// The monitor's handle on the processes of a run.
enum Tracking {
    Cgroup(cgroup::RunCgroup),
    Sampling(procfs::TreeTracker),
}

impl Tracking {
    /// Sends `signal` to the process group and every known process of the run.
    fn signal_all(&mut self, pgid: i32, signal: Signal) {
        let _ = killpg(Pid::from_raw(pgid), signal);
        match self {
            Tracking::Cgroup(cg) => cg.signal_all(signal),
            Tracking::Sampling(t) => {
                for pid in t.sample().live {
                    let _ = kill(Pid::from_raw(pid), signal);
                }
            }
        }
    }

    /// Kills everything left of the run; returns how many processes survived `patience`.
    fn kill_all(&mut self, pgid: i32, patience: Duration) -> usize {
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
        match self {
            Tracking::Cgroup(cg) => cg.kill_all(patience),
            Tracking::Sampling(t) => {
                let deadline = Instant::now() + patience;
                loop {
                    let live = t.sample().live;
                    if live.is_empty() || Instant::now() >= deadline {
                        return live.len();
                    }
                    let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
                    for pid in live {
                        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
        }
    }
}

/// Runs a tool under limits with the given mechanism preference; see the module documentation.
pub fn run_with(cmd: &ToolCommand, limits: &Limits, choice: MechanismChoice) -> Result<RunReport, ExecError> {
    let name = cmd.argv.first().ok_or(ExecError::EmptyCommand)?;
    let program = find_executable_os(name).ok_or_else(|| ExecError::NotFound {
        name: name.to_string_lossy().into_owned(),
        searched: if name.as_bytes().contains(&b'/') {
            None
        } else {
            Some(
                std::env::var_os("PATH")
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            )
        },
    })?;

    if let Some(signal) = lifecycle::stop_requested() {
        return Err(ExecError::Interrupted { signal });
    }
    let prepared = prepare_workdir(&cmd.workdir)?;
    let dir = prepared.dir.clone();
    let stdout_path = dir.join(STDOUT_FILE);
    let stderr_path = dir.join(STDERR_FILE);
    let stdin_path = match &cmd.stdin {
        Some(bytes) => {
            let path = dir.join(STDIN_FILE);
            io::Write::write_all(&mut create_file(&path)?, bytes).map_err(|source| ExecError::File {
                what: "create",
                path: path.clone(),
                source,
            })?;
            Some(path)
        }
        None => None,
    };
    // A backstop per process, above the monitor's limit for the tree; never above the hard
    // limit Baton itself has (an unprivileged process cannot raise it).
    let cpu_rlimit = limits.cpu_time.map(|cpu| {
        let own_hard = getrlimit(Resource::RLIMIT_CPU)
            .map(|(_, hard)| hard)
            .unwrap_or(libc::RLIM_INFINITY);
        let soft = ceil_secs(cpu).saturating_add(1).min(own_hard);
        let hard = soft
            .saturating_add(ceil_secs(limits.grace))
            .saturating_add(1)
            .min(own_hard);
        (soft, hard)
    });
    let spec = SpawnSpec {
        program: &program,
        arg0: name,
        args: &cmd.argv[1..],
        env: &cmd.env,
        dir: &dir,
        stdin: stdin_path.as_deref(),
        tmpdir: prepared.temp.as_ref().map(PrivateTempDir::path),
        cpu_rlimit,
    };

    let (mut cg, mut cgroup_unavailable) = match choice {
        MechanismChoice::SamplingOnly => (None, None),
        MechanismChoice::Auto => match cgroup::RunCgroup::create(limits.memory) {
            Ok(cg) => (Some(cg), None),
            Err(why) => (None, Some(why)),
        },
    };
    let mut cgroup_registration = cg
        .as_ref()
        .map(|c| lifecycle::register(c.dirs().into_iter().map(lifecycle::Resource::Cgroup).collect()));
    let (mut child, start) = match &cg {
        Some(c) => match spec.spawn(c.procs_fds()) {
            Ok(started) => started,
            Err(e) => {
                // Joining a cgroup can fail where creating one worked (e.g. a v2 hierarchy
                // without delegation): fall back to sampling; a failure of the tool itself
                // shows up again below.
                cgroup_unavailable = Some(format!("starting the tool in the cgroup failed: {e}"));
                cg = None;
                cgroup_registration = None;
                spec.spawn(Vec::new())?
            }
        },
        None => spec.spawn(Vec::new())?,
    };
    let measurement = match cg.as_ref().map(|c| c.version) {
        Some(cgroup::Version::V1) => Measurement::CgroupV1,
        Some(cgroup::Version::V2) => Measurement::CgroupV2,
        None => Measurement::Sampling,
    };
    let pid = child.id() as i32;
    // From here on the process group is killed on every way out of this function.
    let group = GroupGuard::new(pid);
    let captures = [
        (
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn io::Read + Send>),
            &stdout_path,
        ),
        (
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn io::Read + Send>),
            &stderr_path,
        ),
    ]
    .map(|(source, path)| -> Result<Option<output::Capture>, ExecError> {
        let file = create_file(path)?;
        match source {
            Some(source) => output::start(source, file, limits.output_cap)
                .map(Some)
                .map_err(|source| ExecError::File {
                    what: "copy output to",
                    path: path.clone(),
                    source,
                }),
            None => Ok(None),
        }
    });
    // The waiter thread reaps the child; `child` itself is never waited on or killed by pid.
    drop(child);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(wait_for(pid));
    });

    let mut tracking = match cg {
        Some(cg) => Tracking::Cgroup(cg),
        None => Tracking::Sampling(procfs::TreeTracker::new(pid)),
    };
    let mut limit_hit: Option<LimitKind> = None;
    let mut term_sent: Option<Instant> = None;
    let mut stop_sent: Option<(i32, Instant)> = None;
    let mut killed = false;
    let mut max_cgroup_mem: u64 = 0;

    let exit = loop {
        let elapsed = start.elapsed();
        let interval = if elapsed < Duration::from_millis(200) {
            Duration::from_millis(5)
        } else {
            Duration::from_millis(20)
        };
        match rx.recv_timeout(interval) {
            Ok(result) => break result,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                break Err(io::Error::other("the waiter thread ended without a result"))
            }
        }
        // Baton was asked to stop: end the run (SIGTERM, SIGKILL after a short grace).
        if let Some(signal) = lifecycle::stop_requested() {
            match stop_sent {
                None => {
                    tracking.signal_all(pid, Signal::SIGTERM);
                    stop_sent = Some((signal, Instant::now()));
                }
                Some((_, at)) if at.elapsed() >= lifecycle::STOP_GRACE => {
                    tracking.signal_all(pid, Signal::SIGKILL);
                }
                Some(_) => {}
            }
        }
        // Measure.
        let (cpu, mem, oom) = match &mut tracking {
            Tracking::Cgroup(cg) => {
                let mem = cg.peak_memory().unwrap_or(0);
                max_cgroup_mem = max_cgroup_mem.max(mem);
                (cg.cpu_time().unwrap_or_default(), mem, cg.oom_kills() > 0)
            }
            Tracking::Sampling(t) => {
                let s = t.sample();
                (t.max_cpu.max(s.cpu), t.max_rss, false)
            }
        };
        let now = Instant::now();
        let wall = now - start;
        if limit_hit.is_none() {
            let mem_over = match &tracking {
                Tracking::Cgroup(_) => oom,
                Tracking::Sampling(_) => limits.memory.is_some_and(|m| mem >= m),
            };
            if mem_over {
                limit_hit = Some(LimitKind::Memory);
                tracking.signal_all(pid, Signal::SIGKILL);
                killed = true;
            } else if limits.cpu_time.is_some_and(|c| cpu >= c) {
                limit_hit = Some(LimitKind::CpuTime);
            } else if limits.wall_time.is_some_and(|w| wall >= w) {
                limit_hit = Some(LimitKind::WallTime);
            }
            if matches!(limit_hit, Some(LimitKind::CpuTime | LimitKind::WallTime)) {
                tracking.signal_all(pid, Signal::SIGTERM);
                term_sent = Some(now);
            }
        } else if let Some(t) = term_sent {
            // SIGTERM was sent once; after the grace period everything gets SIGKILL (again
            // at every interval, so that processes started in between die too).
            if now - t >= limits.grace || killed {
                tracking.signal_all(pid, Signal::SIGKILL);
                killed = true;
            }
        } else if killed {
            tracking.signal_all(pid, Signal::SIGKILL);
        }
    };

    // The main process has ended (or waiting failed): nothing of the run may outlive it.
    let leftover_processes = tracking.kill_all(pid, Duration::from_secs(5));
    group.disarm();
    let [stdout_capture, stderr_capture] = captures;
    let (stdout_capture, stderr_capture) = (stdout_capture?, stderr_capture?);
    let patience = Duration::from_secs(2);
    let output_omitted = (
        stdout_capture.map_or(0, |c| c.finish(patience)),
        stderr_capture.map_or(0, |c| c.finish(patience)),
    );
    if let Some((signal, _)) = stop_sent {
        return Err(ExecError::Interrupted { signal });
    }
    let exit = exit.map_err(|e| ExecError::Wait {
        program: program.clone(),
        pid,
        reason: e.to_string(),
    })?;
    let wall_time = exit.at - start;

    let (cpu_time, peak_memory, oom) = match &mut tracking {
        Tracking::Cgroup(cg) => {
            let cpu = cg.cpu_time().unwrap_or_default().max(exit.rusage_cpu);
            let peak = cg.peak_memory().map(|p| p.max(max_cgroup_mem));
            let oom = cg.oom_kills() > 0;
            cg.remove();
            (cpu, peak, oom)
        }
        Tracking::Sampling(t) => (
            t.max_cpu.max(exit.rusage_cpu),
            Some(t.max_rss.max(exit.rusage_max_rss)),
            false,
        ),
    };
    drop(cgroup_registration);

    let (exit_code, signal) = if libc::WIFEXITED(exit.status) {
        (Some(libc::WEXITSTATUS(exit.status)), None)
    } else if libc::WIFSIGNALED(exit.status) {
        (None, Some(libc::WTERMSIG(exit.status)))
    } else {
        (None, None)
    };

    // A limit may be broken between two samples or by a tool that ended just in time.
    if limit_hit.is_none() {
        let over_memory = |slack: u64| {
            limits
                .memory
                .is_some_and(|m| peak_memory.is_some_and(|p| p.saturating_add(slack) >= m))
        };
        let memory_broken = match measurement {
            // The kernel enforces the limit: it was hit if its OOM killer acted, or (kernels
            // without the oom_kill counter) if the tool died of SIGKILL that Baton did not send
            // while using (nearly) all of it.
            Measurement::CgroupV1 | Measurement::CgroupV2 => {
                oom || (!killed && signal == Some(libc::SIGKILL) && over_memory(1 << 20))
            }
            Measurement::Sampling => over_memory(0),
        };
        if memory_broken {
            limit_hit = Some(LimitKind::Memory);
        } else if limits.cpu_time.is_some_and(|c| cpu_time > c) {
            limit_hit = Some(LimitKind::CpuTime);
        } else if limits.wall_time.is_some_and(|w| wall_time > w) {
            limit_hit = Some(LimitKind::WallTime);
        }
    }

    let status = match limit_hit {
        Some(LimitKind::CpuTime | LimitKind::WallTime) => RunStatus::Timeout,
        Some(LimitKind::Memory) => RunStatus::OutOfMemory,
        None => match (exit_code, signal) {
            (_, Some(sig)) => RunStatus::KilledBySignal(sig),
            (Some(0), None) => RunStatus::Done,
            (Some(code), None) => RunStatus::Error(code),
            (None, None) => RunStatus::KilledBySignal(0),
        },
    };

    Ok(RunReport {
        status,
        exit_code,
        signal,
        cpu_time,
        wall_time,
        peak_memory,
        measurement,
        cgroup_unavailable,
        stdout_path,
        stderr_path,
        output_omitted,
        workdir: dir,
        workdir_kept: prepared.kept,
        _fresh: prepared.temp.map(Arc::new),
        limit_hit,
        leftover_processes,
    })
}
