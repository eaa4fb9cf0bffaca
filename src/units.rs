//! Durations and sizes as users write them — on the command line, in flow files, in benchmark
//! definitions — read by one parser with checked conversions, so that every input either gives
//! a limit Baton can compute with or a clear error (never an overflow panic later).
//!
//! Durations: `900s`, `500ms`, `2min`, `2 min`, `1.5 s`, `1h`, `1h 30min` (see `humantime`); a
//! bare number is seconds (`60`, `1.5`). Sizes: `15GB`, `2000 MB`, `2GiB`, `4k`, `1024` (bytes);
//! SI units as in BenchExec (1 GB = 10⁹ B), binary ones with `i` (see `bytesize`).

use std::time::Duration;
use thiserror::Error;

/// The longest duration accepted (about 31 years): far above any budget, and small enough that
/// sums and multiples of budgets cannot overflow `Duration`.
pub const MAX_DURATION: Duration = Duration::from_secs(1_000_000_000);

/// The largest size accepted (1 EiB), so that arithmetic on sizes cannot overflow `u64`.
pub const MAX_SIZE: u64 = 1 << 60;

/// A duration or size that cannot be used as a limit.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("invalid {what} `{text}`: {reason}")]
pub struct UnitError {
    /// `duration` or `size`.
    pub what: &'static str,
    pub text: String,
    pub reason: String,
}

fn unit_error(what: &'static str, text: &str, reason: impl Into<String>) -> UnitError {
    UnitError {
        what,
        text: text.to_string(),
        reason: reason.into(),
    }
}

fn is_bare_number(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

/// `text` with fractional parts cut to nanoseconds (9 digits; `humantime` rejects more, and
/// Baton itself writes durations like `53.890668000000005s`).
fn without_excess_fraction_digits(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fraction_digits = None;
    for c in text.chars() {
        match (c, fraction_digits) {
            ('.', _) => fraction_digits = Some(0),
            (d, Some(n)) if d.is_ascii_digit() => {
                fraction_digits = Some(n + 1);
                if n >= 9 {
                    continue;
                }
            }
            (_, Some(_)) => fraction_digits = None,
            _ => {}
        }
        out.push(c);
    }
    out
}

/// Parses a time limit: positive and at most [`MAX_DURATION`].
pub fn parse_duration(text: &str) -> Result<Duration, UnitError> {
    let err = |reason: &str| unit_error("duration", text, reason);
    let mut t = without_excess_fraction_digits(text.trim());
    if is_bare_number(&t) {
        t.push('s');
    }
    let d = humantime::parse_duration(&t).map_err(|e| match e {
        humantime::DurationError::NumberOverflow => err("too large"),
        e => unit_error(
            "duration",
            text,
            format!("{e} (expected e.g. 60s, 500ms, 2min, 1h)"),
        ),
    })?;
    if d.is_zero() {
        return Err(err("must be positive"));
    }
    if d > MAX_DURATION {
        return Err(unit_error(
            "duration",
            text,
            format!("too large (at most {} s)", MAX_DURATION.as_secs()),
        ));
    }
    Ok(d)
}

/// Parses a size limit in bytes: positive and at most [`MAX_SIZE`].
pub fn parse_size(text: &str) -> Result<u64, UnitError> {
    let t = text.trim();
    let bytes = t
        .parse::<bytesize::ByteSize>()
        .map_err(|_| unit_error("size", text, "expected e.g. 15GB, 2000 MB, 2GiB or bytes"))?
        .as_u64();
    if bytes == 0 {
        return Err(unit_error("size", text, "must be positive"));
    }
    if bytes > MAX_SIZE {
        return Err(unit_error("size", text, "too large (at most 1 EiB)"));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_every_accepted_form() {
        for (text, secs) in [
            ("60s", 60.0),
            ("900s", 900.0),
            ("2 min", 120.0),
            ("2min", 120.0),
            ("1.5", 1.5),
            ("60", 60.0),
            ("1.5 s", 1.5),
            ("10 sec", 10.0),
            ("500ms", 0.5),
            ("1h", 3600.0),
            ("2m", 120.0),
            ("53.890668000000005s", 53.890668),
            ("0.1234567891234", 0.123456789),
        ] {
            assert_eq!(parse_duration(text).unwrap().as_secs_f64(), secs, "{text}");
        }
    }

    #[test]
    fn durations_out_of_range_are_clear_errors() {
        let e = parse_duration("18446744073709551616s").unwrap_err().to_string();
        assert!(e.contains("too large"), "{e}");
        let e = parse_duration("18446744073709551615s").unwrap_err().to_string();
        assert!(e.contains("too large"), "{e}");
        let e = parse_duration("0s").unwrap_err().to_string();
        assert!(e.contains("must be positive"), "{e}");
        assert!(parse_duration("0").is_err());
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("").is_err());
    }

    #[test]
    fn sizes_in_benchexec_units() {
        assert_eq!(parse_size("15GB").unwrap(), 15_000_000_000);
        assert_eq!(parse_size("2000 MB").unwrap(), 2_000_000_000);
        assert_eq!(parse_size(" 4 GB ").unwrap(), 4_000_000_000);
        assert_eq!(parse_size("2MiB").unwrap(), 2 * 1024 * 1024);
        assert_eq!(parse_size("1024").unwrap(), 1024);
        assert_eq!(parse_size("500M").unwrap(), 500_000_000);
        assert_eq!(parse_size("1kB").unwrap(), 1000);
        assert!(parse_size("lots").is_err());
        assert!(parse_size("-1").is_err());
        let e = parse_size("0").unwrap_err().to_string();
        assert!(e.contains("must be positive"), "{e}");
        let e = parse_size("99999999999999999999GB").unwrap_err().to_string();
        assert!(e.contains("too large"), "{e}");
    }
}
