//! Preprocessing with `gcc -E` under limits: an `#include` of `/dev/zero`, of a FIFO or of an
//! endless macro expansion must end in an error within seconds, not hang or fill memory or disk.
//!
//! gcc runs in its own process group with `RLIMIT_AS` (memory), `RLIMIT_CPU`, `RLIMIT_FSIZE`
//! (its output goes to a file, so this caps the output) and a wall-clock limit after which the
//! whole group is killed. The limits are set by `sh`'s `ulimit` before it execs gcc, not in a
//! `pre_exec` hook: that hook makes Rust fork instead of `posix_spawn`, and a fork runs libz3's
//! fork handlers, which deadlock when another thread of the process is inside Z3 (seen in the
//! multi-threaded shared-task tests). If Baton is killed, gcc's stdin closes and its CPU limit
//! ends it.

use super::{one_line, FrontendError};
use crate::cfa::types::DataModel;
use nix::sys::resource::{getrlimit, Resource};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::io::Write;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Address space of gcc and its `cc1`: far above what preprocessing any real program needs.
const MEMORY_BYTES: u64 = 2 << 30;
/// CPU time of each gcc process.
const CPU_SECONDS: u64 = 20;
/// Wall time of the whole preprocessing (a blocked read of a FIFO uses no CPU).
const WALL_TIME: Duration = Duration::from_secs(30);
/// The largest preprocessed output accepted (also bounds the error output).
pub(crate) const MAX_OUTPUT_BYTES: u64 = 256 << 20;

/// `(resource, soft, hard)` no higher than the limits of this process.
fn lowered(resource: Resource, soft: u64, hard: u64) -> (Resource, u64, u64) {
    let (own_soft, own_hard) = getrlimit(resource).unwrap_or((u64::MAX, u64::MAX));
    let hard = hard.min(own_hard);
    (resource, soft.min(own_soft).min(hard), hard)
}

/// Runs `gcc -E` on `text` (fed through stdin) under the limits above. A leading line marker
/// makes gcc name the file `name` in its own line markers, so positions map back to the file.
pub(crate) fn preprocess(name: &str, text: &str, model: DataModel) -> Result<String, FrontendError> {
    let err = |message: String| FrontendError::Preprocessor {
        file: name.to_string(),
        message: one_line(&message),
    };
    let dir = tempfile::tempdir().map_err(|e| err(format!("cannot create a temporary directory: {e}")))?;
    let out_path = dir.path().join("out.i");
    let err_path = dir.path().join("gcc.stderr");
    let stderr = std::fs::File::create(&err_path)
        .map_err(|e| err(format!("cannot create {}: {e}", err_path.display())))?;
    // Limits only ever lower what Baton itself runs under (raising a hard limit is not allowed).
    let (_, memory, _) = lowered(Resource::RLIMIT_AS, MEMORY_BYTES, MEMORY_BYTES);
    let (_, cpu, _) = lowered(Resource::RLIMIT_CPU, CPU_SECONDS, CPU_SECONDS);
    let (_, output, _) = lowered(Resource::RLIMIT_FSIZE, MAX_OUTPUT_BYTES, MAX_OUTPUT_BYTES);
    let mut command = Command::new("sh");
    command
        .arg("-c")
        // `ulimit -v` counts KiB, `-f` blocks of 512 bytes (POSIX).
        .arg(r#"ulimit -v "$1" && ulimit -t "$2" && ulimit -f "$3" && shift 3 && exec gcc "$@""#)
        .arg("sh")
        .arg((memory / 1024).to_string())
        .arg(cpu.to_string())
        .arg((output / 512).to_string())
        .args(["-E", "-x", "c", model.gcc_flag(), "-", "-o"])
        .arg(&out_path)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(stderr)
        .process_group(0);
    let mut child = command.spawn().map_err(|e| err(format!("cannot run gcc: {e}")))?;
    let escaped = name.replace('\\', "\\\\").replace('"', "\\\"");
    let input = format!("# 1 \"{escaped}\"\n{text}\n");
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| err("cannot write to gcc".into()))?;
    // Feed stdin from a thread: gcc may stop reading (an error, a killed run) at any point.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let group = Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
    let deadline = Instant::now() + WALL_TIME;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = killpg(group, Signal::SIGKILL);
                let _ = child.wait();
                let _ = writer.join();
                return Err(err(format!(
                    "gcc -E did not finish within {} s (an #include of a device or FIFO?)",
                    WALL_TIME.as_secs()
                )));
            }
            Err(e) => return Err(err(format!("cannot wait for gcc: {e}"))),
        }
    };
    // gcc is gone; kill what it may have left in its group (its cc1) before reading.
    let _ = killpg(group, Signal::SIGKILL);
    let _ = writer.join();
    let stderr = std::fs::read(&err_path).unwrap_or_default();
    let stderr = String::from_utf8_lossy(&stderr);
    if !status.success() {
        let limit = match status.signal() {
            // The driver reports what ended its cc1 on stderr.
            Some(libc::SIGXFSZ) => Some(format!("output larger than {} MiB", MAX_OUTPUT_BYTES >> 20)),
            _ if stderr.contains("File size limit exceeded") => {
                Some(format!("output larger than {} MiB", MAX_OUTPUT_BYTES >> 20))
            }
            Some(libc::SIGXCPU | libc::SIGKILL) => Some(format!("more than {CPU_SECONDS} s of CPU time")),
            _ if stderr.contains("CPU time limit exceeded") => {
                Some(format!("more than {CPU_SECONDS} s of CPU time"))
            }
            _ if stderr.contains("out of memory") => Some(format!(
                "more than {} MiB of memory (an #include of a device?)",
                MEMORY_BYTES >> 20
            )),
            _ => None,
        };
        if let Some(limit) = limit {
            return Err(err(format!("gcc -E stopped: {limit}")));
        }
        let first = stderr
            .lines()
            .find(|l| l.contains("error"))
            .or_else(|| stderr.lines().next())
            .unwrap_or("gcc -E failed")
            .to_string();
        return Err(err(first));
    }
    let output = std::fs::read(&out_path).map_err(|e| err(format!("cannot read gcc's output: {e}")))?;
    Ok(String::from_utf8_lossy(&output).into_owned())
}
