//! A tool's standard output and error: read from pipes by one thread per stream and written to
//! files in the run's work directory, never held whole in memory.
//!
//! Each stream is capped ([`super::Limits::output_cap`]): the first `cap` bytes go to the file;
//! of the rest only the last [`TAIL_KEPT`] bytes are kept (in memory) and appended at the end
//! after a line saying how much was left out, so the file shows the head and the tail. The tool
//! is not stopped at the cap: like BenchExec, which shrinks over-long log files to their head
//! and tail after the run, Baton keeps the run going (its limits are time and memory, not
//! output) and drains the pipe so the tool never blocks on a full pipe.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// Default cap of each output stream in bytes (64 MiB).
pub const DEFAULT_OUTPUT_CAP: u64 = 64 << 20;

/// Bytes of the end of an over-long stream that are kept after the cap (256 KiB).
pub const TAIL_KEPT: usize = 256 << 10;

/// A stream being copied to its file.
pub(crate) struct Capture {
    done: mpsc::Receiver<u64>,
}

/// Starts copying `source` to `file` (at most `cap` bytes, then the tail; see the module
/// documentation) in a thread.
pub(crate) fn start(mut source: impl Read + Send + 'static, mut file: File, cap: u64) -> io::Result<Capture> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("baton-output".into())
        .spawn(move || {
            let mut buf = vec![0u8; 64 << 10];
            let mut head_left = cap;
            let mut tail: VecDeque<u8> = VecDeque::new();
            let mut beyond: u64 = 0;
            let mut writable = true;
            loop {
                let n = match source.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                let head = n.min(usize::try_from(head_left).unwrap_or(usize::MAX));
                if head > 0 && writable {
                    // A full disk must not block the tool: keep draining, stop writing.
                    writable = file.write_all(&buf[..head]).is_ok();
                }
                head_left -= head as u64;
                let rest = &buf[head..n];
                beyond += rest.len() as u64;
                tail.extend(rest);
                if tail.len() > TAIL_KEPT {
                    tail.drain(..tail.len() - TAIL_KEPT);
                }
            }
            let omitted = beyond - tail.len() as u64;
            if beyond > 0 && writable {
                let note = format!(
                    "\n[baton: output above {cap} bytes; {omitted} bytes left out here, the last {} bytes follow]\n",
                    tail.len()
                );
                let (a, b) = tail.as_slices();
                let _ = file
                    .write_all(note.as_bytes())
                    .and_then(|_| file.write_all(a))
                    .and_then(|_| file.write_all(b));
            }
            let _ = tx.send(omitted);
        })?;
    Ok(Capture { done: rx })
}

impl Capture {
    /// Waits up to `patience` for the end of the stream (every writer closed it) and returns
    /// how many bytes were left out. A process that escaped the run may keep the pipe open:
    /// then the copy goes on in the background and what was written so far is the output.
    pub(crate) fn finish(self, patience: Duration) -> u64 {
        self.done.recv_timeout(patience).unwrap_or(0)
    }
}

/// The first `head` and the last `tail` bytes of a file as text (lossy UTF-8), with a line
/// saying how much lies between them; the whole file if it is not longer than both.
pub fn excerpt(path: &Path, head: u64, tail: u64) -> io::Result<String> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    let mut bytes = Vec::new();
    if len <= head.saturating_add(tail) {
        file.read_to_end(&mut bytes)?;
        return Ok(String::from_utf8_lossy(&bytes).into_owned());
    }
    (&mut file).take(head).read_to_end(&mut bytes)?;
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    text.push_str(&format!("\n[… {} bytes not shown …]\n", len - head - tail));
    bytes.clear();
    file.seek(SeekFrom::Start(len - tail))?;
    file.take(tail).read_to_end(&mut bytes)?;
    text.push_str(&String::from_utf8_lossy(&bytes));
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_keeps_head_and_tail() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        let input: Vec<u8> = (0..(TAIL_KEPT + 5000)).map(|i| b'a' + (i % 26) as u8).collect();
        let capture = start(io::Cursor::new(input.clone()), File::create(&path).unwrap(), 1000).unwrap();
        let omitted = capture.finish(Duration::from_secs(10));
        assert_eq!(omitted, 4000);
        let written = std::fs::read(&path).unwrap();
        assert_eq!(&written[..1000], &input[..1000]);
        assert!(written.ends_with(&input[input.len() - TAIL_KEPT..]));
        let text = String::from_utf8_lossy(&written);
        assert!(text.contains("4000 bytes left out"), "{}", &text[..1200]);
    }

    #[test]
    fn short_output_is_copied_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        let capture = start(
            io::Cursor::new(b"hello\n".to_vec()),
            File::create(&path).unwrap(),
            1000,
        )
        .unwrap();
        assert_eq!(capture.finish(Duration::from_secs(10)), 0);
        assert_eq!(std::fs::read(&path).unwrap(), b"hello\n");
        assert_eq!(excerpt(&path, 3, 3).unwrap(), "hello\n");
        std::fs::write(&path, "0123456789").unwrap();
        assert_eq!(excerpt(&path, 2, 3).unwrap(), "01\n[… 5 bytes not shown …]\n789");
    }
}
