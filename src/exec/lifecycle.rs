//! Nothing Baton starts outlives it: the processes, cgroups and temporary directories of runs
//! are registered here while they exist, so that every way Baton can end removes them.
//!
//! - **Normal end, errors, panics**: the owners (the monitor of [`super::run_with`], the
//!   cgroup, [`PrivateTempDir`]) kill and remove what they hold when they are dropped.
//! - **SIGINT, SIGTERM, SIGHUP** (after [`install`]): a handler thread sets the stop request
//!   ([`stop_requested`]); every running monitor then ends its run (SIGTERM to the tree,
//!   SIGKILL after [`STOP_GRACE`]) and [`super::run_with`] returns
//!   [`super::ExecError::Interrupted`], no new run starts, and the caller unwinds normally.
//!   Whatever is still registered [`FORCE_AFTER`] later (the caller was busy in its own
//!   computation) or at a second signal is killed and removed by the handler thread, which
//!   then exits with 128 + the signal.
//! - **SIGKILL of Baton** (nothing in Baton runs any more): every tool is started with the
//!   parent-death signal SIGKILL, so it dies with Baton; the *reaper*, a small process of the
//!   Baton binary started by [`install`] in its own process group, learns about every
//!   registered resource through a pipe and, at end of file (Baton is gone, however it
//!   ended), kills the process groups and cgroups still registered and removes the
//!   directories. The next [`install`] also removes cgroups and temporary directories whose
//!   owning Baton process no longer exists (their names carry its pid).
//!
//! The parent-death signal is sent when the *thread* that started the child ends; tools are
//! started by [`super::run_with`] in the calling thread, which waits for the tool's end and
//! so lives as long as the tool.

use super::cgroup;
use std::ffi::OsStr;
use std::fs;
use std::io::{self, BufRead, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, SigSet, Signal};
use nix::unistd::Pid;

/// First argument that makes the Baton binary act as the reaper (see [`serve_reaper`]).
pub const REAPER_ARG: &str = "__baton-reaper";

/// Time between SIGTERM and SIGKILL when a run is stopped because Baton was asked to stop
/// (short: a Baton run inside a Baton run needs only to stop its own runs and clean up).
pub const STOP_GRACE: Duration = Duration::from_millis(500);

/// Time after the first signal at which the handler thread stops waiting for the caller to
/// unwind, kills and removes what is registered, and exits.
pub const FORCE_AFTER: Duration = Duration::from_millis(1500);

/// Prefix of Baton's temporary directories; the owner's pid and a random part follow.
pub const TEMP_PREFIX: &str = "baton-run-";

/// The signal that asked Baton to stop (0: none).
static STOP: AtomicI32 = AtomicI32::new(0);

/// The signal that asked Baton to stop, if one did.
pub fn stop_requested() -> Option<i32> {
    match STOP.load(Ordering::SeqCst) {
        0 => None,
        sig => Some(sig),
    }
}

/// Asks every run to stop as if `signal` had arrived (the signal handler calls this). Runs under
/// way end, and [`super::run_with`] starts no new one.
pub fn request_stop(signal: i32) {
    let _ = STOP.compare_exchange(0, signal.max(1), Ordering::SeqCst, Ordering::SeqCst);
}

/// Something a run owns that must not outlive Baton.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resource {
    /// A process group (the tool's own).
    Group(i32),
    /// A cgroup directory.
    Cgroup(PathBuf),
    /// A temporary directory.
    Dir(PathBuf),
}

impl Resource {
    /// The reaper's protocol line: `+` or `-`, a letter, a space, the pid or path.
    fn line(&self, add: bool) -> Vec<u8> {
        let mut line = vec![if add { b'+' } else { b'-' }];
        match self {
            Resource::Group(pgid) => line.extend(format!("g {pgid}").bytes()),
            Resource::Cgroup(p) => {
                line.extend(b"c ");
                line.extend(p.as_os_str().as_bytes());
            }
            Resource::Dir(p) => {
                line.extend(b"d ");
                line.extend(p.as_os_str().as_bytes());
            }
        }
        line.push(b'\n');
        line
    }

    fn parse(line: &[u8]) -> Option<(bool, Resource)> {
        let add = match line.first()? {
            b'+' => true,
            b'-' => false,
            _ => return None,
        };
        let kind = *line.get(1)?;
        let rest = line.get(3..)?;
        let path = || PathBuf::from(OsStr::from_bytes(rest));
        let resource = match kind {
            b'g' => Resource::Group(std::str::from_utf8(rest).ok()?.parse().ok()?),
            b'c' => Resource::Cgroup(path()),
            b'd' => Resource::Dir(path()),
            _ => return None,
        };
        Some((add, resource))
    }

    /// Kills (process group, cgroup) or removes (cgroup, directory) the resource.
    fn destroy(&self) {
        match self {
            Resource::Group(pgid) => {
                let _ = killpg(Pid::from_raw(*pgid), Signal::SIGKILL);
            }
            Resource::Cgroup(dir) => {
                cgroup::kill_processes_in(dir, Duration::from_secs(1));
                cgroup::remove_tree(dir);
            }
            Resource::Dir(dir) => {
                let _ = fs::remove_dir_all(dir);
            }
        }
    }
}

/// What is registered now, and the reaper.
struct Registry {
    live: Vec<Resource>,
    reaper: Option<Reaper>,
}

/// The reaper process and the pipe Baton tells it about resources through.
struct Reaper {
    pipe: ChildStdin,
    process: Child,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    live: Vec::new(),
    reaper: None,
});

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Registry {
    fn tell_reaper(&mut self, resource: &Resource, add: bool) {
        if let Some(reaper) = &mut self.reaper {
            if reaper.pipe.write_all(&resource.line(add)).is_err() {
                // A reaper that misses a line could kill what is no longer Baton's: it is
                // ended (without acting: SIGKILL) and Baton goes on without one.
                let _ = reaper.process.kill();
                self.reaper = None;
            }
        }
    }
}

/// Resources registered until this guard is dropped (which only unregisters them: their
/// owners destroy them).
#[derive(Debug)]
pub(crate) struct Registration(Vec<Resource>);

/// Registers resources of a run (see the module documentation).
pub(crate) fn register(resources: Vec<Resource>) -> Registration {
    let mut reg = registry();
    for r in &resources {
        reg.tell_reaper(r, true);
        reg.live.push(r.clone());
    }
    Registration(resources)
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut reg = registry();
        for r in &self.0 {
            if let Some(i) = reg.live.iter().position(|x| x == r) {
                reg.live.swap_remove(i);
            }
            reg.tell_reaper(r, false);
        }
    }
}

/// A temporary directory of Baton (mode 0700, named `baton-run-<pid>-…`), registered while it
/// exists and removed when dropped (unless [`PrivateTempDir::keep`] is called).
#[derive(Debug)]
pub struct PrivateTempDir {
    dir: Option<tempfile::TempDir>,
    path: PathBuf,
    _registration: Option<Registration>,
}

impl PrivateTempDir {
    /// Creates a fresh directory in the system's temporary directory.
    pub fn new() -> io::Result<PrivateTempDir> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("{TEMP_PREFIX}{}-", std::process::id()))
            .permissions(fs::Permissions::from_mode(0o700))
            .tempdir()?;
        let path = dir.path().to_path_buf();
        Ok(PrivateTempDir {
            _registration: Some(register(vec![Resource::Dir(path.clone())])),
            dir: Some(dir),
            path,
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keeps the directory after Baton ends (it is no longer removed) and returns its path.
    pub fn keep(mut self) -> PathBuf {
        if let Some(dir) = self.dir.take() {
            let _ = dir.keep();
        }
        self._registration = None;
        self.path.clone()
    }
}

/// Removes what is registered now: kills process groups and cgroups, removes directories.
fn destroy_registered() {
    let live = registry().live.clone();
    for r in live.iter().filter(|r| matches!(r, Resource::Group(_))) {
        r.destroy();
    }
    for r in live.iter().filter(|r| !matches!(r, Resource::Group(_))) {
        r.destroy();
    }
}

/// The signals that stop Baton.
fn stop_signals() -> SigSet {
    let mut set = SigSet::empty();
    for s in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        set.add(s);
    }
    set
}

/// Sets Baton up for commands that start tools: removes leftovers of earlier Baton processes
/// that were killed, blocks SIGINT, SIGTERM and SIGHUP and handles them in a thread (see the
/// module documentation), and starts the reaper from `reaper_exe` (the Baton binary) if given.
///
/// Must be called before any other thread is started (signals stay blocked in every thread
/// started later; child processes get an empty signal mask from `std::process`).
pub fn install(reaper_exe: Option<&Path>) -> io::Result<()> {
    remove_stale();
    let set = stop_signals();
    set.thread_block().map_err(io::Error::from)?;
    std::thread::Builder::new()
        .name("baton-signals".into())
        .spawn(move || handle_signals(set))?;
    if let Some(exe) = reaper_exe {
        let mut child = Command::new(exe)
            .arg(REAPER_ARG)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()?;
        let Some(pipe) = child.stdin.take() else {
            return Ok(());
        };
        // A reaper that stops reading must not block Baton: a full pipe ends it (see
        // `tell_reaper`).
        // SAFETY: F_GETFL/F_SETFL on a file descriptor this process owns.
        unsafe {
            let flags = libc::fcntl(pipe.as_raw_fd(), libc::F_GETFL);
            libc::fcntl(pipe.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
        let mut reg = registry();
        reg.reaper = Some(Reaper { pipe, process: child });
        let live = reg.live.clone();
        for r in &live {
            reg.tell_reaper(r, true);
        }
    }
    Ok(())
}

fn handle_signals(set: SigSet) {
    let Ok(first) = set.wait() else { return };
    let sig = first as i32;
    request_stop(sig);
    // Wait for the caller to unwind (ending the process) or a second signal.
    let deadline = Instant::now() + FORCE_AFTER;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        let timeout = libc::timespec {
            tv_sec: left.as_secs() as libc::time_t,
            tv_nsec: left.subsec_nanos() as libc::c_long,
        };
        // SAFETY: `set` is a valid signal set, the info pointer may be null, and `timeout` is a
        // valid timespec.
        let r = unsafe { libc::sigtimedwait(set.as_ref(), std::ptr::null_mut(), &timeout) };
        // A second signal, or EAGAIN (the time is up); EINTR: wait on.
        if r > 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            break;
        }
    }
    destroy_registered();
    let _ = writeln!(io::stderr(), "baton: stopped by {first}");
    // SAFETY: `_exit` ends the process at once; everything Baton owns was removed above.
    unsafe { libc::_exit(128 + sig) }
}

/// Removes cgroups and temporary directories whose owning Baton process no longer exists.
fn remove_stale() {
    cgroup::remove_stale();
    let own_uid = fs::metadata("/proc/self").ok().map(|m| m.uid());
    let Ok(entries) = fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(owner) = name
            .to_str()
            .and_then(|n| n.strip_prefix(TEMP_PREFIX))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let own = fs::symlink_metadata(entry.path()).is_ok_and(|m| m.is_dir() && Some(m.uid()) == own_uid);
        if own && owner != std::process::id() && !Path::new(&format!("/proc/{owner}")).exists() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// The reaper (the Baton binary started with [`REAPER_ARG`]): reads registrations from
/// standard input until end of file, then destroys what is still registered.
pub fn serve_reaper() {
    for s in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        // SAFETY: ignoring a signal installs no handler code.
        let _ = unsafe { nix::sys::signal::signal(s, nix::sys::signal::SigHandler::SigIgn) };
    }
    let mut live: Vec<Resource> = Vec::new();
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        match Resource::parse(&line) {
            Some((true, r)) => live.push(r),
            Some((false, r)) => live.retain(|x| *x != r),
            None => {}
        }
    }
    for r in live.iter().filter(|r| matches!(r, Resource::Group(_))) {
        r.destroy();
    }
    for r in live.iter().filter(|r| !matches!(r, Resource::Group(_))) {
        r.destroy();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reaper_lines_round_trip() {
        for r in [
            Resource::Group(42),
            Resource::Cgroup(PathBuf::from("/sys/fs/cgroup/x/baton-1-0-00000000")),
            Resource::Dir(PathBuf::from("/tmp/baton-run-1-abc")),
        ] {
            for add in [true, false] {
                let mut line = r.line(add);
                assert_eq!(line.pop(), Some(b'\n'));
                assert_eq!(Resource::parse(&line), Some((add, r.clone())));
            }
        }
        assert_eq!(Resource::parse(b"?g 1"), None);
        assert_eq!(Resource::parse(b"+g x"), None);
    }

    #[test]
    fn private_temp_dir_is_0700_registered_and_removed() {
        let dir = PrivateTempDir::new().unwrap();
        let path = dir.path().to_path_buf();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        assert!(registry().live.contains(&Resource::Dir(path.clone())));
        drop(dir);
        assert!(!path.exists());
        assert!(!registry().live.contains(&Resource::Dir(path)));
    }
}
