//! Parsing preprocessed C with `lang-c` within bounds: nesting (see [`super::nesting`]), stack
//! and time. The parser recurses as deep as the program nests and, on some malformed inputs
//! (long chains of `-`, `--` and `~`), backtracks for minutes; it runs on its own thread with a
//! large stack, and a parse that takes longer than [`time_limit`] is given up with an error.
//! (The thread cannot be stopped; it ends with the process, which reports the error and exits.)

use super::lines::LineMap;
use super::nesting::{too_deep_brackets, MAX_NESTING};
use super::{one_line, FrontendError};
use lang_c::driver::{parse_preprocessed, Config, Parse};
use std::sync::mpsc;
use std::time::Duration;

/// Stack of the parser thread: reserved address space, touched only as deep as the program
/// nests.
const PARSE_STACK_BYTES: usize = 1 << 30;

/// How long parsing `bytes` of preprocessed C may take: 10 s plus 1 s per 64 KiB (`lang-c`
/// parses sv-benchmarks programs at well over 64 KiB in 0.2 s).
pub(crate) fn time_limit(bytes: usize) -> Duration {
    Duration::from_secs(10 + (bytes as u64 >> 16))
}

/// Parses preprocessed C; errors name the original file and line.
pub(crate) fn parse_bounded(preprocessed: &str, lines: &LineMap) -> Result<Parse, FrontendError> {
    let whole_file = |message: String| FrontendError::Program {
        file: lines.file_name(0).to_string(),
        message,
    };
    if let Some(offset) = too_deep_brackets(preprocessed) {
        let p = lines.pos(offset);
        return Err(FrontendError::Unsupported {
            file: lines.file_name(p.file).to_string(),
            line: p.line,
            construct: format!("nesting deeper than {MAX_NESTING}"),
        });
    }
    let (sender, receiver) = mpsc::channel();
    let text = preprocessed.to_string();
    std::thread::Builder::new()
        .name("parse".into())
        .stack_size(PARSE_STACK_BYTES)
        .spawn(move || {
            let _ = sender.send(parse_preprocessed(&Config::with_gcc(), text));
        })
        .map_err(|e| whole_file(format!("cannot start the parser: {e}")))?;
    let limit = time_limit(preprocessed.len());
    let parsed = match receiver.recv_timeout(limit) {
        Ok(parsed) => parsed,
        Err(mpsc::RecvTimeoutError::Timeout) => {
            return Err(whole_file(format!(
                "parsing takes longer than {} s (gave up)",
                limit.as_secs()
            )))
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => return Err(whole_file("the parser failed".into())),
    };
    parsed.map_err(|e| {
        let p = lines.pos(e.offset);
        let mut expected: Vec<&str> = e.expected.iter().copied().collect();
        expected.sort_unstable();
        FrontendError::Malformed {
            file: lines.file_name(p.file).to_string(),
            line: p.line,
            message: one_line(&format!(
                "syntax error at column {}, expected one of {}",
                p.column,
                expected.join(" ")
            )),
        }
    })
}
