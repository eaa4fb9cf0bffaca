//! Starting the tool process (own process group, parent-death signal, cgroups joined,
//! `RLIMIT_CPU`, a clean signal state) and waiting for it.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::RawFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::resource::{setrlimit, Resource};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

use super::lifecycle::{self, Registration};
use super::ExecError;

/// How the main process ended, from `wait4`.
pub(super) struct Exit {
    pub at: Instant,
    pub status: libc::c_int,
    pub rusage_cpu: Duration,
    /// Largest resident set size of a single process among it and its waited-for descendants.
    pub rusage_max_rss: u64,
}

fn timeval(tv: libc::timeval) -> Duration {
    Duration::from_secs(tv.tv_sec.max(0) as u64) + Duration::from_micros(tv.tv_usec.max(0) as u64)
}

/// Blocks in `wait4` for `pid`; returns its status and the rusage CPU time of it and its
/// waited-for descendants.
pub(super) fn wait_for(pid: i32) -> Result<Exit, io::Error> {
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: an all-zero rusage is a valid value of this plain C struct.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `status` and `usage` are valid, exclusively borrowed out-pointers.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            return Ok(Exit {
                at: Instant::now(),
                status,
                rusage_cpu: timeval(usage.ru_utime) + timeval(usage.ru_stime),
                rusage_max_rss: u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024,
            });
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// Rounds a duration up to whole seconds (for `RLIMIT_CPU`).
pub(super) fn ceil_secs(d: Duration) -> u64 {
    d.as_secs().saturating_add(u64::from(d.subsec_nanos() > 0))
}

/// Everything needed to start the tool process (possibly twice, see [`super::run_with`]).
pub(super) struct SpawnSpec<'a> {
    pub program: &'a Path,
    pub arg0: &'a OsStr,
    pub args: &'a [OsString],
    pub env: &'a [(OsString, OsString)],
    pub dir: &'a Path,
    pub stdin: Option<&'a Path>,
    /// `TMPDIR` for the tool, under the caller's environment (which may override it).
    pub tmpdir: Option<&'a Path>,
    /// Soft and hard `RLIMIT_CPU` in seconds.
    pub cpu_rlimit: Option<(u64, u64)>,
}

impl SpawnSpec<'_> {
    /// Starts the tool in its own process group with stdout and stderr piped; the child asks
    /// for SIGKILL when this thread ends (parent-death signal), writes "0" to each of
    /// `procs_fds` (joining those cgroups) and sets `RLIMIT_CPU` before it executes the tool.
    pub(super) fn spawn(&self, procs_fds: Vec<RawFd>) -> Result<(Child, Instant), ExecError> {
        let stdin = match self.stdin {
            Some(path) => Stdio::from(File::open(path).map_err(|source| ExecError::File {
                what: "read",
                path: path.to_path_buf(),
                source,
            })?),
            None => Stdio::null(),
        };
        let mut command = Command::new(self.program);
        command.arg0(self.arg0).args(self.args).current_dir(self.dir);
        if let Some(tmpdir) = self.tmpdir {
            command.env("TMPDIR", tmpdir);
        }
        command
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let cpu_rlimit = self.cpu_rlimit;
        let parent = libc::pid_t::try_from(std::process::id()).unwrap_or(0);
        // SAFETY: an all-zero sigset_t is a valid value to hand to sigemptyset, which makes it
        // the empty set.
        let mut no_signals: libc::sigset_t = unsafe { std::mem::zeroed() };
        // SAFETY: `no_signals` is a valid, exclusively borrowed sigset_t.
        unsafe { libc::sigemptyset(&mut no_signals) };
        // SAFETY: the closure runs in the child between fork and exec; it only makes the
        // async-signal-safe system calls sigprocmask(2), signal(2), prctl(2), getppid(2),
        // write(2) and setrlimit(2) on values prepared before forking, and allocates nothing.
        unsafe {
            command.pre_exec(move || {
                // The tool starts with no signal blocked (Baton blocks the ones it waits for
                // in a thread, see `lifecycle`) and SIGPIPE at its default (Rust ignores it),
                // so SIGTERM ends it and a closed pipe ends it as it would from a shell.
                if libc::sigprocmask(libc::SIG_SETMASK, &no_signals, std::ptr::null_mut()) != 0 {
                    return Err(io::Error::last_os_error());
                }
                libc::signal(libc::SIGPIPE, libc::SIG_DFL);
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // Baton may have ended before the request: then nobody would kill the tool.
                if libc::getppid() != parent {
                    return Err(io::Error::other("Baton ended while the tool was started"));
                }
                for &fd in &procs_fds {
                    let r = libc::write(fd, b"0".as_ptr().cast(), 1);
                    if r != 1 {
                        return Err(io::Error::last_os_error());
                    }
                }
                if let Some((soft, hard)) = cpu_rlimit {
                    setrlimit(Resource::RLIMIT_CPU, soft, hard).map_err(io::Error::from)?;
                }
                Ok(())
            });
        }
        let start = Instant::now();
        let child = command.spawn().map_err(|source| ExecError::Spawn {
            program: self.program.to_path_buf(),
            source,
        })?;
        Ok((child, start))
    }
}

/// Kills the tool's process group when dropped while armed: on every way out of [`super::run_with`]
/// before the normal end has killed the run (a panic, say), nothing of it is left running.
pub(super) struct GroupGuard {
    pgid: i32,
    armed: bool,
    _registration: Registration,
}

impl GroupGuard {
    /// Guards (and registers, see [`lifecycle`]) the process group `pgid`.
    pub(super) fn new(pgid: i32) -> GroupGuard {
        GroupGuard {
            pgid,
            armed: true,
            _registration: lifecycle::register(vec![lifecycle::Resource::Group(pgid)]),
        }
    }

    /// The run was killed the normal way; the group id may soon be reused: do not kill it.
    pub(super) fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed {
            let _ = killpg(Pid::from_raw(self.pgid), Signal::SIGKILL);
        }
    }
}
