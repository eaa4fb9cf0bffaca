//! AFL++ adapter: harness, build and fuzz command lines, crash decoding.
//!
//! The harness ([`HARNESS_C`], file `tool-adapters/afl-harness.c`) turns every
//! `__VERIFIER_nondet_<type>()` into a read of that type's size in little-endian bytes from
//! standard input (0 after the end of the input; after 1024 such reads the run exits quietly, so
//! reactive `while (1)` programs do not spin forever on exhausted input) and makes entering `reach_error`/`__VERIFIER_error` raise SIGABRT (through
//! `-finstrument-functions`, so programs that define an empty `reach_error(){}` are caught too).
//!
//! Data models: Debian's AFL++ 4.04c has no 32-bit runtime (`afl-clang-fast -m32` stops with
//! "-m32 is not supported by your compiler"), so binaries are always native (LP64). For ILP32
//! tasks the harness still reads `long`/`unsigned long`/`size_t` as 4 bytes, so the values
//! handed on are in the task's ranges; the program's own arithmetic runs at native width, which
//! can only make a bug unreachable or a crash fail to replay. Crashes are candidates: a
//! violation is believed only after Baton's interpreter replays the values, so a mismatch can
//! lose bugs but never invent them.
//!
//! Decoding: a crash input alone does not say which types were read. The crash input is replayed
//! once through the same binary with `BATON_NONDET_LOG` set ([`replay_command`]); the harness
//! appends `<type> <value>` per read and `ERROR <function>` on reaching the error, which
//! [`decode_nondet_log`] turns into the values. [`decode_input`] decodes raw bytes for a known
//! type sequence the same way the harness does.

use super::{AdapterError, CommandLine};
use crate::cfa::types::DataModel;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The C harness linked with the program under test.
pub const HARNESS_C: &str = include_str!("../../tool-adapters/afl-harness.c");

/// The environment variable naming the harness's value log.
pub const NONDET_LOG_ENV: &str = "BATON_NONDET_LOG";

/// The AFL++ executables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AflTools {
    /// `afl-clang-fast`.
    pub compiler: PathBuf,
    /// `afl-fuzz`.
    pub fuzzer: PathBuf,
}

impl AflTools {
    /// The executables by the adapter's roles (as the registry found them).
    pub fn from_roles(exes: &std::collections::BTreeMap<String, PathBuf>) -> Result<AflTools, String> {
        Ok(AflTools {
            compiler: super::extract::role(exes, "compiler")?,
            fuzzer: super::extract::role(exes, "fuzzer")?,
        })
    }

    /// The executables of `adapter`, located; `None` when one is missing.
    pub fn locate(adapter: &super::spec::Adapter) -> Option<AflTools> {
        adapter.executables().ok().and_then(|e| Self::from_roles(&e).ok())
    }
}

/// Bytes of `long` in the data model (what the harness reads for `long`-sized types).
fn long_bytes(model: DataModel) -> u32 {
    u32::from(model.long_bits()) / 8
}

/// `AFL_LLVM_CMPLOG=1 afl-clang-fast -DBATON_LONG_BYTES=<4|8> -finstrument-functions -g -O2 -w
/// <harness> <program> -o <binary>`: one binary with coverage and CmpLog instrumentation (used
/// as its own CmpLog binary with `-c 0`).
pub fn build_command(
    tools: &AflTools,
    harness: &Path,
    program: &Path,
    binary: &Path,
    model: DataModel,
) -> CommandLine {
    let mut cmd = CommandLine::new(&tools.compiler)
        .arg(format!("-DBATON_LONG_BYTES={}", long_bytes(model)))
        .arg("-finstrument-functions")
        .arg("-g")
        .arg("-O2")
        .arg("-w")
        .arg(harness)
        .arg(program)
        .arg("-o")
        .arg(binary);
    cmd.env.push(("AFL_LLVM_CMPLOG".into(), "1".into()));
    cmd
}

/// The initial corpus: one input of zero bytes (every nondet value 0).
pub fn seed_input() -> Vec<u8> {
    vec![0u8; 16]
}

/// `afl-fuzz -c 0 -i <in> -o <out> -V <seconds> -- <binary>` with the configured environment
/// (`AFL_BENCH_UNTIL_CRASH=1 AFL_NO_UI=1 ...`): stops at the first crash or after `seconds`.
/// afl-fuzz exits 0 either way; look at [`crash_inputs`]. `output_dir` must not exist yet (an
/// existing one makes afl-fuzz refuse to start or resume an old session).
pub fn fuzz_command(
    tools: &AflTools,
    env: &std::collections::BTreeMap<String, String>,
    input_dir: &Path,
    output_dir: &Path,
    binary: &Path,
    seconds: u64,
) -> CommandLine {
    let mut cmd = CommandLine::new(&tools.fuzzer)
        .arg("-c")
        .arg("0")
        .arg("-i")
        .arg(input_dir)
        .arg("-o")
        .arg(output_dir)
        .arg("-V")
        .arg(seconds.to_string())
        .arg("--")
        .arg(binary);
    cmd.env = env
        .iter()
        .map(|(k, v)| (OsString::from(k), OsString::from(v)))
        .collect();
    cmd
}

/// The crash inputs afl-fuzz saved in `<out>/default/crashes/` (without its README.txt), sorted
/// by name (which starts with the crash id). An absent directory means no crash.
pub fn crash_inputs(output_dir: &Path) -> Result<Vec<PathBuf>, AdapterError> {
    let dir = output_dir.join("default").join("crashes");
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(AdapterError::Io { path: dir, source }),
    };
    let mut crashes = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| AdapterError::Io {
            path: dir.clone(),
            source,
        })?;
        let name = entry.file_name();
        if name == "README.txt" {
            continue;
        }
        crashes.push(entry.path());
    }
    crashes.sort();
    Ok(crashes)
}

/// Runs `binary` on `crash_input` (as standard input) with the harness logging the values it
/// reads to `log`. The log file must not exist beforehand (the harness appends).
pub fn replay_command(binary: &Path, crash_input: &Path, log: &Path) -> CommandLine {
    let mut cmd = CommandLine::new(binary);
    cmd.env
        .push((OsString::from(NONDET_LOG_ENV), log.as_os_str().to_owned()));
    cmd.stdin = Some(crash_input.to_path_buf());
    cmd
}

/// The kinds of `__VERIFIER_nondet_*` functions the harness defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NondetKind {
    /// `_Bool`: one byte, lowest bit.
    Bool,
    /// `char` (signed on x86).
    Char,
    /// `signed char`.
    SChar,
    /// `unsigned char`.
    UChar,
    /// `short`.
    Short,
    /// `unsigned short`.
    UShort,
    /// `int`.
    Int,
    /// `unsigned int` (`uint` and `unsigned`).
    UInt,
    /// `long` (4 or 8 bytes by data model).
    Long,
    /// `unsigned long`, `size_t` (4 or 8 bytes by data model).
    ULong,
    /// `long long`.
    LongLong,
    /// `unsigned long long`.
    ULongLong,
}

/// Every `__VERIFIER_nondet_<suffix>` the harnesses define (integer types only).
pub const NONDET_SUFFIXES: [&str; 15] = [
    "bool",
    "char",
    "schar",
    "uchar",
    "short",
    "ushort",
    "int",
    "uint",
    "unsigned",
    "long",
    "ulong",
    "longlong",
    "ulonglong",
    "size_t",
    "sizet",
];

impl NondetKind {
    /// The kind for a `__VERIFIER_nondet_<suffix>` function, if the harness defines it.
    pub fn from_suffix(suffix: &str) -> Option<NondetKind> {
        Some(match suffix {
            "bool" => NondetKind::Bool,
            "char" => NondetKind::Char,
            "schar" => NondetKind::SChar,
            "uchar" => NondetKind::UChar,
            "short" => NondetKind::Short,
            "ushort" => NondetKind::UShort,
            "int" => NondetKind::Int,
            "uint" | "unsigned" => NondetKind::UInt,
            "long" => NondetKind::Long,
            "ulong" | "size_t" | "sizet" => NondetKind::ULong,
            "longlong" => NondetKind::LongLong,
            "ulonglong" => NondetKind::ULongLong,
            _ => return None,
        })
    }

    /// Bytes read from the input for this kind.
    pub fn size_bytes(self, model: DataModel) -> u32 {
        match self {
            NondetKind::Bool | NondetKind::Char | NondetKind::SChar | NondetKind::UChar => 1,
            NondetKind::Short | NondetKind::UShort => 2,
            NondetKind::Int | NondetKind::UInt => 4,
            NondetKind::Long | NondetKind::ULong => long_bytes(model),
            NondetKind::LongLong | NondetKind::ULongLong => 8,
        }
    }

    /// Whether the type is signed.
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            NondetKind::Char
                | NondetKind::SChar
                | NondetKind::Short
                | NondetKind::Int
                | NondetKind::Long
                | NondetKind::LongLong
        )
    }

    /// Interprets little-endian `bytes` (at most 8; missing bytes are 0) as a value of this kind.
    pub fn value_from_le(self, bytes: &[u8], model: DataModel) -> i128 {
        let size = self.size_bytes(model) as usize;
        let mut raw: u64 = 0;
        for (i, b) in bytes.iter().take(size).enumerate() {
            raw |= u64::from(*b) << (8 * i);
        }
        if self == NondetKind::Bool {
            return i128::from(raw & 1);
        }
        if self.is_signed() {
            let shift = 64 - 8 * size as u32;
            i128::from(((raw << shift) as i64) >> shift)
        } else {
            i128::from(raw)
        }
    }

    /// Whether `value` lies in this kind's range.
    pub fn contains(self, value: i128, model: DataModel) -> bool {
        if self == NondetKind::Bool {
            return value == 0 || value == 1;
        }
        let bits = 8 * self.size_bytes(model);
        if self.is_signed() {
            let half = 1i128 << (bits - 1);
            (-half..half).contains(&value)
        } else {
            (0..(1i128 << bits)).contains(&value)
        }
    }
}

/// Decodes an input the way the harness reads it, for a known sequence of nondet calls:
/// consecutive little-endian fields, 0 after the end of the input (the harness ends the run
/// after 1024 reads past the end; callers pass the sequence the run actually consumed).
pub fn decode_input(bytes: &[u8], kinds: &[NondetKind], model: DataModel) -> Vec<i128> {
    let mut offset = 0usize;
    kinds
        .iter()
        .map(|kind| {
            let size = kind.size_bytes(model) as usize;
            let start = offset.min(bytes.len());
            let end = (offset + size).min(bytes.len());
            offset += size;
            kind.value_from_le(&bytes[start..end], model)
        })
        .collect()
}

/// What one replay of a crash input through the harness read and reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NondetLog {
    /// The nondet calls in order, with the values they returned.
    pub reads: Vec<(NondetKind, i128)>,
    /// The error function entered (`reach_error` / `__VERIFIER_error`), if any. A crash whose
    /// replay did not enter it crashed for another reason and is not a reach-error witness.
    pub error_function: Option<String>,
}

impl NondetLog {
    /// The values alone, in order.
    pub fn values(&self) -> Vec<i128> {
        self.reads.iter().map(|(_, v)| *v).collect()
    }
}

/// Parses the harness's log (`<type> <value>` lines, then possibly `ERROR <function>`);
/// `origin` names it in errors. Values are checked against their type's range.
pub fn decode_nondet_log(text: &str, model: DataModel, origin: &str) -> Result<NondetLog, AdapterError> {
    let err = |line: usize, message: String| AdapterError::Format {
        tool: "afl",
        origin: format!("{origin}:{line}"),
        message,
    };
    let mut log = NondetLog {
        reads: Vec::new(),
        error_function: None,
    };
    for (index, line) in text.lines().enumerate() {
        let line_no = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        let (head, rest) = line
            .split_once(' ')
            .ok_or_else(|| err(line_no, format!("expected `<type> <value>`, got {line:?}")))?;
        if log.error_function.is_some() {
            return Err(err(line_no, "entry after the ERROR line".to_string()));
        }
        if head == "ERROR" {
            log.error_function = Some(rest.to_string());
            continue;
        }
        let kind = NondetKind::from_suffix(head)
            .ok_or_else(|| err(line_no, format!("unknown nondet type {head:?}")))?;
        let value: i128 = rest
            .parse()
            .map_err(|e| err(line_no, format!("bad value {rest:?}: {e}")))?;
        if !kind.contains(value, model) {
            return Err(err(line_no, format!("value {value} out of range of {head}")));
        }
        log.reads.push((kind, value));
    }
    Ok(log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_suffix_has_a_kind() {
        for suffix in NONDET_SUFFIXES {
            assert!(NondetKind::from_suffix(suffix).is_some(), "{suffix}");
        }
        assert!(NondetKind::from_suffix("float").is_none());
    }

    #[test]
    fn decode_input_fields() {
        use NondetKind::*;
        let bytes = [0x34, 0x12, 0x00, 0x00, 0xff, 0xfe, 0xff, 0x01];
        assert_eq!(
            decode_input(&bytes, &[Int, Char, Short, Bool], DataModel::LP64),
            vec![0x1234, -1, -2, 1]
        );
        // Past the end: zeros; partially present fields keep their low bytes.
        assert_eq!(
            decode_input(&[0xff, 0xff], &[UInt, UChar], DataModel::LP64),
            vec![0xffff, 0]
        );
        // long is 4 bytes in ILP32, 8 in LP64.
        let bytes = [0xff; 8];
        assert_eq!(
            decode_input(&bytes, &[Long, ULong], DataModel::ILP32),
            vec![-1, 0xffff_ffff]
        );
        assert_eq!(
            decode_input(&bytes, &[ULong], DataModel::LP64),
            vec![u64::MAX as i128]
        );
        assert_eq!(decode_input(&bytes, &[LongLong], DataModel::ILP32), vec![-1]);
    }

    #[test]
    fn log_decoding() -> Result<(), AdapterError> {
        let log = decode_nondet_log(
            "uchar 5\nint 4660\nlong -3\nERROR reach_error\n",
            DataModel::ILP32,
            "log",
        )?;
        assert_eq!(log.values(), vec![5, 0x1234, -3]);
        assert_eq!(log.reads[2].0, NondetKind::Long);
        assert_eq!(log.error_function.as_deref(), Some("reach_error"));
        let log = decode_nondet_log("bool 1\n", DataModel::LP64, "log")?;
        assert_eq!(log.error_function, None);
        Ok(())
    }

    #[test]
    fn log_errors() {
        let cases = [
            "int",                      // no value
            "float 1.5",                // unknown type
            "uchar 256",                // out of range
            "long 4294967296",          // out of ILP32 long range
            "int x",                    // not a number
            "ERROR reach_error\nint 1", // entry after error
        ];
        for case in cases {
            assert!(
                decode_nondet_log(case, DataModel::ILP32, "log").is_err(),
                "{case:?} accepted"
            );
        }
        let e = decode_nondet_log("int 1\nint x", DataModel::ILP32, "run/log");
        assert!(matches!(e, Err(AdapterError::Format { ref origin, .. }) if origin == "run/log:2"));
    }

    #[test]
    fn crash_listing_skips_readme() -> Result<(), Box<dyn std::error::Error>> {
        let out = tempfile::tempdir()?;
        assert!(crash_inputs(out.path())?.is_empty());
        let crashes = out.path().join("default/crashes");
        std::fs::create_dir_all(&crashes)?;
        std::fs::write(crashes.join("README.txt"), "x")?;
        std::fs::write(crashes.join("id:000001,sig:06"), [1])?;
        std::fs::write(crashes.join("id:000000,sig:06"), [0])?;
        let found = crash_inputs(out.path())?;
        assert_eq!(found.len(), 2);
        assert!(found[0].ends_with("id:000000,sig:06"));
        Ok(())
    }

    #[test]
    fn command_lines() -> Result<(), AdapterError> {
        let registry = super::super::registry::Registry::builtin()?;
        let config = registry.get("afl").expect("built-in afl adapter");
        let tools = AflTools {
            compiler: "afl-clang-fast".into(),
            fuzzer: "afl-fuzz".into(),
        };
        let b = build_command(
            &tools,
            Path::new("h.c"),
            Path::new("p.c"),
            Path::new("p"),
            DataModel::ILP32,
        );
        assert_eq!(
            b.argv_lossy(),
            [
                "afl-clang-fast",
                "-DBATON_LONG_BYTES=4",
                "-finstrument-functions",
                "-g",
                "-O2",
                "-w",
                "h.c",
                "p.c",
                "-o",
                "p"
            ]
        );
        assert!(b.env.contains(&("AFL_LLVM_CMPLOG".into(), "1".into())));
        let f = fuzz_command(
            &tools,
            &config.spec.env,
            Path::new("in"),
            Path::new("out"),
            Path::new("./p"),
            20,
        );
        assert_eq!(
            f.argv_lossy(),
            ["afl-fuzz", "-c", "0", "-i", "in", "-o", "out", "-V", "20", "--", "./p"]
        );
        assert!(f.env.contains(&("AFL_BENCH_UNTIL_CRASH".into(), "1".into())));
        let r = replay_command(Path::new("./p"), Path::new("crash"), Path::new("log"));
        assert_eq!(r.stdin.as_deref(), Some(Path::new("crash")));
        assert!(HARNESS_C.contains("__cyg_profile_func_enter"));
        Ok(())
    }
}
