//! KLEE adapter: command lines and parsers for KLEE's output directory.
//!
//! KLEE cannot be installed on this machine (no Debian package); the parsers follow KLEE's
//! documented formats and are tested on files written in those formats:
//! * `testNNNNNN.ktest`: magic `KTEST` (or the old `BOUT\n`), then big-endian `u32` fields:
//!   version, number of arguments and each argument as length + bytes, for version >= 2
//!   `sym_argvs` and `sym_argv_len`, number of objects and each object as name (length +
//!   bytes), byte count and bytes (KLEE's `lib/Basic/KTest.cpp`);
//! * `testNNNNNN.<kind>.err` (`assert`, `abort`, `ptr`, ..., and `reach_error` from the harness):
//!   `Error: <message>`, `File: <file>`, `Line: <n>`, `assembly.ll line: <n>`, `Stack:` lines;
//! * `testNNNNNN.early`: a path that was terminated early (time or memory limit);
//! * `info` / `messages.txt`: `KLEE: done: total instructions = N`, `KLEE: done: completed
//!   paths = N`, `KLEE: done: partially completed paths = N`, `KLEE: done: generated tests = N`,
//!   and `KLEE: HaltTimer invoked` when `--max-time` stopped the run. (`run.stats` is an SQLite
//!   database since KLEE 2.0 and is not read.)
//!
//! Pipeline: `clang -emit-llvm -c -g -O0 -Xclang -disable-O0-optnone -finstrument-functions`
//! for the harness ([`HARNESS_C`], `tool-adapters/klee-harness.c`) and the program, `llvm-link`,
//! then `klee --max-time=<s>s --output-dir=<dir> --exit-on-error-type=ReportError linked.bc`.

use super::afl::NondetKind;
use super::{AdapterError, CommandLine};
use crate::cfa::types::DataModel;
use std::path::{Path, PathBuf};

/// The C harness compiled to bitcode and linked with the program.
pub const HARNESS_C: &str = include_str!("../../tool-adapters/klee-harness.c");

/// The `.err` kind the harness reports when an error function is entered.
pub const REACH_ERROR_KIND: &str = "reach_error";

/// The executables of the KLEE pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KleeTools {
    /// `clang` (the LLVM version KLEE was built with).
    pub clang: PathBuf,
    /// `llvm-link`.
    pub linker: PathBuf,
    /// `klee`.
    pub klee: PathBuf,
}

impl KleeTools {
    /// The executables by the adapter's roles (as the registry found them).
    pub fn from_roles(exes: &std::collections::BTreeMap<String, PathBuf>) -> Result<KleeTools, String> {
        Ok(KleeTools {
            clang: super::extract::role(exes, "compiler")?,
            linker: super::extract::role(exes, "linker")?,
            klee: super::extract::role(exes, "engine")?,
        })
    }

    /// The executables of `adapter`, located; `None` when one is missing.
    pub fn locate(adapter: &super::spec::Adapter) -> Option<KleeTools> {
        adapter.executables().ok().and_then(|e| Self::from_roles(&e).ok())
    }
}

/// The command lines of one KLEE run, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KleePipeline {
    /// Harness to bitcode.
    pub compile_harness: CommandLine,
    /// Program to bitcode.
    pub compile_program: CommandLine,
    /// `llvm-link` of both.
    pub link: CommandLine,
    /// The KLEE run; `output_dir` must not exist yet (KLEE creates it).
    pub run: CommandLine,
}

fn bitcode_command(clang: &Path, source: &Path, output: &Path, model: DataModel) -> CommandLine {
    CommandLine::new(clang)
        .arg("-emit-llvm")
        .arg("-c")
        .arg("-g")
        .arg("-O0")
        .arg("-Xclang")
        .arg("-disable-O0-optnone")
        .arg("-finstrument-functions")
        .arg("-w")
        .arg(format!("-DBATON_LONG_BYTES={}", u32::from(model.long_bits()) / 8))
        .arg(source)
        .arg("-o")
        .arg(output)
}

/// Builds the pipeline; bitcode goes to `work_dir` (one directory per run: the file names are
/// fixed), KLEE's results to `output_dir`.
pub fn pipeline(
    tools: &KleeTools,
    harness: &Path,
    program: &Path,
    work_dir: &Path,
    output_dir: &Path,
    model: DataModel,
    max_time_s: u64,
) -> KleePipeline {
    let harness_bc = work_dir.join("harness.bc");
    let program_bc = work_dir.join("prog.bc");
    let linked = work_dir.join("linked.bc");
    let mut output_flag = std::ffi::OsString::from("--output-dir=");
    output_flag.push(output_dir.as_os_str());
    KleePipeline {
        compile_harness: bitcode_command(&tools.clang, harness, &harness_bc, model),
        compile_program: bitcode_command(&tools.clang, program, &program_bc, model),
        link: CommandLine::new(&tools.linker)
            .arg(&program_bc)
            .arg(&harness_bc)
            .arg("-o")
            .arg(&linked),
        run: CommandLine::new(&tools.klee)
            .arg(format!("--max-time={max_time_s}s"))
            .arg(output_flag)
            .arg("--exit-on-error-type=ReportError")
            .arg(&linked),
    }
}

/// One symbolic object of a `.ktest` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KTestObject {
    /// The name given to `klee_make_symbolic`.
    pub name: String,
    /// The concrete bytes of the test case.
    pub bytes: Vec<u8>,
}

/// A parsed `.ktest` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KTest {
    /// Format version (1 to 3).
    pub version: u32,
    /// The program arguments recorded.
    pub args: Vec<String>,
    /// Number of symbolic argv entries (version >= 2, else 0).
    pub sym_argvs: u32,
    /// Length of symbolic argv entries (version >= 2, else 0).
    pub sym_argv_len: u32,
    /// The symbolic objects in creation order.
    pub objects: Vec<KTestObject>,
}

/// The newest `.ktest` format version KLEE writes.
pub const KTEST_VERSION: u32 = 3;

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    origin: &'a str,
}

impl Reader<'_> {
    fn error(&self, message: String) -> AdapterError {
        AdapterError::Format {
            tool: "klee",
            origin: self.origin.to_string(),
            message: format!("{message} (at byte {})", self.pos),
        }
    }

    fn bytes(&mut self, n: usize, what: &str) -> Result<&[u8], AdapterError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or_else(|| self.error(format!("truncated {what}: need {n} bytes")))?;
        let slice = &self.data[self.pos..end];
        self.pos = end;
        Ok(slice)
    }

    fn u32(&mut self, what: &str) -> Result<u32, AdapterError> {
        let b = self.bytes(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn string(&mut self, what: &str) -> Result<String, AdapterError> {
        let len = self.u32(what)? as usize;
        let bytes = self.bytes(len, what)?.to_vec();
        String::from_utf8(bytes).map_err(|_| self.error(format!("{what} is not UTF-8")))
    }
}

/// Parses the bytes of a `.ktest` file; `origin` names it in errors.
pub fn parse_ktest(data: &[u8], origin: &str) -> Result<KTest, AdapterError> {
    let mut r = Reader { data, pos: 0, origin };
    let magic = r.bytes(5, "magic")?.to_vec();
    if magic != b"KTEST" && magic != b"BOUT\n" {
        return Err(r.error(format!("bad magic {magic:?}")));
    }
    let version = r.u32("version")?;
    if version == 0 || version > KTEST_VERSION {
        return Err(r.error(format!("unsupported version {version}")));
    }
    let num_args = r.u32("argument count")?;
    let mut args = Vec::new();
    for i in 0..num_args {
        args.push(r.string(&format!("argument {i}"))?);
    }
    let (sym_argvs, sym_argv_len) = if version >= 2 {
        (r.u32("sym_argvs")?, r.u32("sym_argv_len")?)
    } else {
        (0, 0)
    };
    let num_objects = r.u32("object count")?;
    let mut objects = Vec::new();
    for i in 0..num_objects {
        let name = r.string(&format!("name of object {i}"))?;
        let len = r.u32(&format!("size of object {i}"))? as usize;
        let bytes = r.bytes(len, &format!("bytes of object {i}"))?.to_vec();
        objects.push(KTestObject { name, bytes });
    }
    if r.pos != data.len() {
        return Err(r.error(format!("{} trailing bytes", data.len() - r.pos)));
    }
    Ok(KTest {
        version,
        args,
        sym_argvs,
        sym_argv_len,
        objects,
    })
}

/// Writes a `.ktest` file (version 3) in KLEE's format: the inverse of [`parse_ktest`], used to
/// produce test inputs and by the tests.
pub fn write_ktest(test: &KTest) -> Vec<u8> {
    fn put_u32(out: &mut Vec<u8>, v: u32) {
        out.extend_from_slice(&v.to_be_bytes());
    }
    fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
        put_u32(out, b.len() as u32);
        out.extend_from_slice(b);
    }
    let mut out = b"KTEST".to_vec();
    put_u32(&mut out, KTEST_VERSION);
    put_u32(&mut out, test.args.len() as u32);
    for a in &test.args {
        put_bytes(&mut out, a.as_bytes());
    }
    put_u32(&mut out, test.sym_argvs);
    put_u32(&mut out, test.sym_argv_len);
    put_u32(&mut out, test.objects.len() as u32);
    for o in &test.objects {
        put_bytes(&mut out, o.name.as_bytes());
        put_bytes(&mut out, &o.bytes);
    }
    out
}

/// The nondet values of a test case: one per `__VERIFIER_nondet_<type>` object, in order,
/// decoded little-endian (x86) with the type's signedness. The object's size must be the
/// type's size in `model`. An object of another name (other than KLEE's own `model_version`)
/// is an error, since skipping it could misalign the values.
pub fn ktest_nondet_values(test: &KTest, model: DataModel, origin: &str) -> Result<Vec<i128>, AdapterError> {
    let err = |message: String| AdapterError::Format {
        tool: "klee",
        origin: origin.to_string(),
        message,
    };
    let mut values = Vec::new();
    for (i, object) in test.objects.iter().enumerate() {
        if object.name == "model_version" {
            continue;
        }
        let suffix = object
            .name
            .strip_prefix("__VERIFIER_nondet_")
            .ok_or_else(|| err(format!("object {i} has foreign name {:?}", object.name)))?;
        let kind = NondetKind::from_suffix(suffix)
            .ok_or_else(|| err(format!("object {i}: unknown nondet type {suffix:?}")))?;
        let expected = kind.size_bytes(model) as usize;
        if object.bytes.len() != expected {
            return Err(err(format!(
                "object {i} ({}) has {} bytes, expected {expected}",
                object.name,
                object.bytes.len()
            )));
        }
        values.push(kind.value_from_le(&object.bytes, model));
    }
    Ok(values)
}

/// A parsed `testNNNNNN.<kind>.err` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KleeError {
    /// The test case number (`NNNNNN`).
    pub test_id: u32,
    /// The error kind from the file name (`assert`, `abort`, `ptr`, `reach_error`, ...).
    pub kind: String,
    /// The `Error:` line.
    pub message: String,
    /// The `File:` line, if present.
    pub file: Option<String>,
    /// The `Line:` line, if present.
    pub line: Option<u32>,
    /// The lines after `Stack:`.
    pub stack: Vec<String>,
}

/// Splits `testNNNNNN.<rest>` into the test id and `<rest>`.
fn split_test_name(file_name: &str) -> Option<(u32, &str)> {
    let rest = file_name.strip_prefix("test")?;
    let (digits, rest) = rest.split_once('.')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((digits.parse().ok()?, rest))
}

/// Parses an `.err` file given its file name (for id and kind) and text.
pub fn parse_err_file(file_name: &str, text: &str) -> Result<KleeError, AdapterError> {
    let err = |message: String| AdapterError::Format {
        tool: "klee",
        origin: file_name.to_string(),
        message,
    };
    let (test_id, rest) =
        split_test_name(file_name).ok_or_else(|| err("name is not testNNNNNN.<kind>.err".to_string()))?;
    let kind = rest
        .strip_suffix(".err")
        .filter(|k| !k.is_empty())
        .ok_or_else(|| err("name is not testNNNNNN.<kind>.err".to_string()))?;
    let mut message = None;
    let mut file = None;
    let mut line = None;
    let mut stack = Vec::new();
    let mut in_stack = false;
    for (n, l) in text.lines().enumerate() {
        if in_stack {
            if !l.trim().is_empty() {
                stack.push(l.trim().to_string());
            }
            continue;
        }
        if let Some(m) = l.strip_prefix("Error: ") {
            message = Some(m.to_string());
        } else if let Some(f) = l.strip_prefix("File: ") {
            file = Some(f.to_string());
        } else if let Some(v) = l.strip_prefix("Line: ") {
            line = Some(
                v.trim()
                    .parse()
                    .map_err(|e| err(format!("line {}: bad Line value {v:?}: {e}", n + 1)))?,
            );
        } else if l.trim_end() == "Stack:" {
            in_stack = true;
        }
    }
    Ok(KleeError {
        test_id,
        kind: kind.to_string(),
        message: message.ok_or_else(|| err("no `Error:` line".to_string()))?,
        file,
        line,
        stack,
    })
}

/// The `KLEE: done:` summary of `info` or `messages.txt`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KleeSummary {
    /// `total instructions = N`.
    pub total_instructions: Option<u64>,
    /// `completed paths = N`.
    pub completed_paths: Option<u64>,
    /// `partially completed paths = N` (KLEE >= 2.3).
    pub partially_completed_paths: Option<u64>,
    /// `generated tests = N`.
    pub generated_tests: Option<u64>,
    /// `HaltTimer invoked` / `halting execution`: `--max-time` (or another limit) stopped KLEE.
    pub halted: bool,
    /// Whether any `KLEE: done:` line was present (the run finished normally).
    pub done: bool,
}

/// Parses the summary lines of `info` or `messages.txt`; `origin` names the file in errors.
pub fn parse_summary(text: &str, origin: &str) -> Result<KleeSummary, AdapterError> {
    let mut s = KleeSummary::default();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.contains("HaltTimer invoked") || line.contains("halting execution") {
            s.halted = true;
        }
        let Some(rest) = line.strip_prefix("KLEE: done: ") else {
            continue;
        };
        let Some((key, value)) = rest.split_once(" = ") else {
            continue;
        };
        let value: u64 = value.trim().parse().map_err(|e| AdapterError::Format {
            tool: "klee",
            origin: format!("{origin}:{}", n + 1),
            message: format!("bad number {value:?} for {key}: {e}"),
        })?;
        s.done = true;
        match key {
            "total instructions" => s.total_instructions = Some(value),
            "completed paths" => s.completed_paths = Some(value),
            "partially completed paths" => s.partially_completed_paths = Some(value),
            "generated tests" => s.generated_tests = Some(value),
            _ => {}
        }
    }
    Ok(s)
}

/// What a KLEE run established about the reach-error property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KleeOutcome {
    /// An error function was reached; the test case's nondet values (to be replayed).
    Violation {
        /// The test case number.
        test_id: u32,
        /// The nondet values in call order.
        nondet_values: Vec<i128>,
    },
    /// Every path was explored to its end without reaching an error function.
    Safe,
    /// Neither: the reason (time limit, paths cut by other errors or concretisation, ...).
    Unknown(String),
}

/// Reads KLEE's output directory and decides the outcome. Only a complete exploration (KLEE
/// finished, no halt, no early-terminated or partially completed path, no error other than
/// `abort`, no concretisation warning in `warnings.txt`) counts as [`KleeOutcome::Safe`].
pub fn read_output_dir(dir: &Path, model: DataModel) -> Result<KleeOutcome, AdapterError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| AdapterError::Io { path, source }
    };
    let mut errors = Vec::new();
    let mut early = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".err") && split_test_name(&name).is_some() {
            let path = entry.path();
            let text = std::fs::read_to_string(&path).map_err(io(&path))?;
            errors.push(parse_err_file(&name, &text)?);
        } else if name.ends_with(".early") {
            early.push(name);
        }
    }
    errors.sort_by_key(|e| e.test_id);
    if let Some(reach) = errors.iter().find(|e| e.kind == REACH_ERROR_KIND) {
        let ktest_path = dir.join(format!("test{:06}.ktest", reach.test_id));
        let data = std::fs::read(&ktest_path).map_err(io(&ktest_path))?;
        let origin = ktest_path.display().to_string();
        let test = parse_ktest(&data, &origin)?;
        return Ok(KleeOutcome::Violation {
            test_id: reach.test_id,
            nondet_values: ktest_nondet_values(&test, model, &origin)?,
        });
    }
    let summary_path = ["info", "messages.txt"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.exists());
    let Some(summary_path) = summary_path else {
        return Ok(KleeOutcome::Unknown(format!(
            "no info or messages.txt in {}",
            dir.display()
        )));
    };
    let text = std::fs::read_to_string(&summary_path).map_err(io(&summary_path))?;
    let summary = parse_summary(&text, &summary_path.display().to_string())?;
    let mut reasons = Vec::new();
    if !summary.done {
        reasons.push("KLEE did not finish".to_string());
    }
    if summary.halted {
        reasons.push("halted by a limit".to_string());
    }
    if summary.partially_completed_paths.unwrap_or(0) > 0 {
        reasons.push("partially completed paths".to_string());
    }
    if !early.is_empty() {
        reasons.push(format!("{} paths terminated early", early.len()));
    }
    for e in errors.iter().filter(|e| e.kind != "abort") {
        reasons.push(format!(
            "test {} ended with {} error: {}",
            e.test_id, e.kind, e.message
        ));
    }
    let warnings = dir.join("warnings.txt");
    if warnings.exists() {
        let text = std::fs::read_to_string(&warnings).map_err(io(&warnings))?;
        if text.contains("concretiz") {
            reasons.push("symbolic values were concretised".to_string());
        }
    }
    Ok(if reasons.is_empty() {
        KleeOutcome::Safe
    } else {
        KleeOutcome::Unknown(reasons.join("; "))
    })
}

#[cfg(test)]
mod tests {
    //! The KLEE files in these tests are written by hand in KLEE's documented formats (recorded
    //! from KLEE's documented format, KLEE is not installable here).
    use super::*;

    fn object(name: &str, bytes: &[u8]) -> KTestObject {
        KTestObject {
            name: name.to_string(),
            bytes: bytes.to_vec(),
        }
    }

    /// A version-3 ktest written byte by byte as KLEE's KTest.cpp writes it.
    fn handwritten_ktest() -> Vec<u8> {
        let mut b = b"KTEST".to_vec();
        b.extend_from_slice(&[0, 0, 0, 3]); // version
        b.extend_from_slice(&[0, 0, 0, 1]); // one argument
        b.extend_from_slice(&[0, 0, 0, 9]);
        b.extend_from_slice(b"linked.bc");
        b.extend_from_slice(&[0, 0, 0, 0]); // sym_argvs
        b.extend_from_slice(&[0, 0, 0, 0]); // sym_argv_len
        b.extend_from_slice(&[0, 0, 0, 2]); // two objects
        b.extend_from_slice(&[0, 0, 0, 21]);
        b.extend_from_slice(b"__VERIFIER_nondet_int");
        b.extend_from_slice(&[0, 0, 0, 4]);
        b.extend_from_slice(&[0x34, 0x12, 0, 0]);
        b.extend_from_slice(&[0, 0, 0, 23]);
        b.extend_from_slice(b"__VERIFIER_nondet_uchar");
        b.extend_from_slice(&[0, 0, 0, 1]);
        b.extend_from_slice(&[200]);
        b
    }

    #[test]
    fn ktest_parse_and_values() -> Result<(), AdapterError> {
        let t = parse_ktest(&handwritten_ktest(), "test000001.ktest")?;
        assert_eq!(t.version, 3);
        assert_eq!(t.args, vec!["linked.bc"]);
        assert_eq!(t.objects.len(), 2);
        assert_eq!(t.objects[1], object("__VERIFIER_nondet_uchar", &[200]));
        assert_eq!(ktest_nondet_values(&t, DataModel::ILP32, "t")?, vec![0x1234, 200]);
        assert_eq!(write_ktest(&t), handwritten_ktest());
        Ok(())
    }

    #[test]
    fn ktest_version1_and_bout_magic() -> Result<(), AdapterError> {
        let mut b = b"BOUT\n".to_vec();
        b.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]);
        b.extend_from_slice(&[0, 0, 0, 24]);
        b.extend_from_slice(b"__VERIFIER_nondet_ushort");
        b.extend_from_slice(&[0, 0, 0, 2, 0xff, 0xff]);
        let t = parse_ktest(&b, "old.ktest")?;
        assert_eq!((t.version, t.sym_argvs), (1, 0));
        assert_eq!(ktest_nondet_values(&t, DataModel::LP64, "t")?, vec![65535]);
        Ok(())
    }

    #[test]
    fn ktest_errors() {
        let good = handwritten_ktest();
        assert!(parse_ktest(b"KTES", "t").is_err());
        assert!(parse_ktest(b"XTEST\0\0\0\x03", "t").is_err());
        let mut bad_version = good.clone();
        bad_version[8] = 9;
        assert!(parse_ktest(&bad_version, "t").is_err());
        for cut in [10, 20, good.len() - 1] {
            assert!(parse_ktest(&good[..cut], "t").is_err(), "cut at {cut}");
        }
        let mut trailing = good.clone();
        trailing.push(0);
        assert!(parse_ktest(&trailing, "t").is_err());
        // Huge length must not allocate or panic.
        let mut huge = b"KTEST\0\0\0\x03\0\0\0\x01".to_vec();
        huge.extend_from_slice(&[0xff, 0xff, 0xff, 0xff]);
        assert!(parse_ktest(&huge, "t").is_err());
    }

    #[test]
    fn nondet_values_check_names_and_sizes() {
        let t = |objects| KTest {
            version: 3,
            args: vec![],
            sym_argvs: 0,
            sym_argv_len: 0,
            objects,
        };
        let long4 = t(vec![object("__VERIFIER_nondet_long", &[0xff, 0xff, 0xff, 0xff])]);
        assert_eq!(
            ktest_nondet_values(&long4, DataModel::ILP32, "t").ok(),
            Some(vec![-1])
        );
        assert!(ktest_nondet_values(&long4, DataModel::LP64, "t").is_err());
        let foreign = t(vec![object("x", &[1])]);
        assert!(ktest_nondet_values(&foreign, DataModel::LP64, "t").is_err());
        let skipped = t(vec![
            object("model_version", &[1, 0, 0, 0]),
            object("__VERIFIER_nondet_bool", &[3]),
        ]);
        assert_eq!(
            ktest_nondet_values(&skipped, DataModel::LP64, "t").ok(),
            Some(vec![1])
        );
    }

    const ASSERT_ERR: &str = "Error: ASSERTION FAIL: x != 0x1234\n\
File: /tmp/prog.c\n\
Line: 12\n\
assembly.ll line: 40\n\
State: 1\n\
Stack: \n\
\t#000000040 in main () at /tmp/prog.c:12\n";

    #[test]
    fn err_files() -> Result<(), AdapterError> {
        let e = parse_err_file("test000003.assert.err", ASSERT_ERR)?;
        assert_eq!(e.test_id, 3);
        assert_eq!(e.kind, "assert");
        assert_eq!(e.message, "ASSERTION FAIL: x != 0x1234");
        assert_eq!(e.file.as_deref(), Some("/tmp/prog.c"));
        assert_eq!(e.line, Some(12));
        assert_eq!(e.stack, vec!["#000000040 in main () at /tmp/prog.c:12"]);
        let e = parse_err_file(
            "test000010.reach_error.err",
            "Error: reach_error reached\nFile: klee-harness.c\nLine: 80\n",
        )?;
        assert_eq!((e.test_id, e.kind.as_str()), (10, "reach_error"));
        assert!(parse_err_file("test000001.err", ASSERT_ERR).is_err());
        assert!(parse_err_file("foo.assert.err", ASSERT_ERR).is_err());
        assert!(parse_err_file("test000001.abort.err", "File: x\n").is_err());
        assert!(parse_err_file("test000001.abort.err", "Error: abort failure\nLine: x\n").is_err());
        Ok(())
    }

    const INFO_DONE: &str = "klee --max-time=10s --output-dir=out linked.bc\n\
PID: 4242\n\
Using monotonic steady clock with 1/1000000000s resolution\n\
Started: 2026-11-22 03:00:00\n\
BEGIN searcher description\n\
<InterleavedSearcher> containing 2 searchers:\n\
END searcher description\n\
Finished: 2026-11-22 03:00:01\n\
Elapsed: 00:00:01\n\
KLEE: done: explored paths = 3\n\
KLEE: done: avg. constructs per query = 12\n\
KLEE: done: total queries = 4\n\
KLEE: done: valid queries = 1\n\
KLEE: done: invalid queries = 3\n\
KLEE: done: query cex = 4\n\
\n\
KLEE: done: total instructions = 120\n\
KLEE: done: completed paths = 3\n\
KLEE: done: partially completed paths = 0\n\
KLEE: done: generated tests = 3\n";

    #[test]
    fn summaries() -> Result<(), AdapterError> {
        let s = parse_summary(INFO_DONE, "info")?;
        assert_eq!(s.completed_paths, Some(3));
        assert_eq!(s.partially_completed_paths, Some(0));
        assert_eq!(s.generated_tests, Some(3));
        assert_eq!(s.total_instructions, Some(120));
        assert!(s.done && !s.halted);
        let s = parse_summary("KLEE: HaltTimer invoked\nKLEE: halting execution, dumping remaining states\nKLEE: done: completed paths = 7\n", "messages.txt")?;
        assert!(s.halted);
        assert_eq!(s.completed_paths, Some(7));
        assert!(parse_summary("KLEE: done: completed paths = many\n", "info").is_err());
        assert!(!parse_summary("", "info")?.done);
        Ok(())
    }

    #[test]
    fn output_directories() -> Result<(), Box<dyn std::error::Error>> {
        // Complete exploration with one abort-ended path: safe.
        let dir = tempfile::tempdir()?;
        std::fs::write(dir.path().join("info"), INFO_DONE)?;
        std::fs::write(dir.path().join("test000001.ktest"), handwritten_ktest())?;
        std::fs::write(
            dir.path().join("test000002.abort.err"),
            "Error: abort failure\nFile: p.c\nLine: 3\n",
        )?;
        assert_eq!(read_output_dir(dir.path(), DataModel::ILP32)?, KleeOutcome::Safe);

        // Another error kind cuts paths: unknown.
        std::fs::write(
            dir.path().join("test000003.ptr.err"),
            "Error: memory error: out of bound pointer\nFile: p.c\nLine: 9\n",
        )?;
        assert!(
            matches!(read_output_dir(dir.path(), DataModel::ILP32)?, KleeOutcome::Unknown(r) if r.contains("ptr"))
        );

        // A reach_error report wins, with the values of its test case.
        std::fs::write(
            dir.path().join("test000001.reach_error.err"),
            "Error: reach_error reached\nFile: h.c\nLine: 80\n",
        )?;
        assert_eq!(
            read_output_dir(dir.path(), DataModel::ILP32)?,
            KleeOutcome::Violation {
                test_id: 1,
                nondet_values: vec![0x1234, 200]
            }
        );

        // Time limit: unknown.
        let dir = tempfile::tempdir()?;
        std::fs::write(
            dir.path().join("messages.txt"),
            "KLEE: HaltTimer invoked\nKLEE: done: completed paths = 1\n",
        )?;
        assert!(
            matches!(read_output_dir(dir.path(), DataModel::LP64)?, KleeOutcome::Unknown(r) if r.contains("halted"))
        );

        // No summary at all: unknown; concretisation: unknown.
        let dir = tempfile::tempdir()?;
        assert!(matches!(
            read_output_dir(dir.path(), DataModel::LP64)?,
            KleeOutcome::Unknown(_)
        ));
        std::fs::write(dir.path().join("info"), INFO_DONE)?;
        std::fs::write(
            dir.path().join("warnings.txt"),
            "KLEE: WARNING ONCE: silently concretizing (reason: external call) expression\n",
        )?;
        assert!(
            matches!(read_output_dir(dir.path(), DataModel::LP64)?, KleeOutcome::Unknown(r) if r.contains("concretised"))
        );
        Ok(())
    }

    #[test]
    fn pipeline_argv() -> Result<(), AdapterError> {
        let tools = KleeTools {
            clang: "clang".into(),
            linker: "llvm-link".into(),
            klee: "klee".into(),
        };
        let p = pipeline(
            &tools,
            Path::new("h.c"),
            Path::new("p.c"),
            Path::new("w"),
            Path::new("w/klee-out"),
            DataModel::LP64,
            30,
        );
        assert_eq!(
            p.run.argv_lossy(),
            [
                "klee",
                "--max-time=30s",
                "--output-dir=w/klee-out",
                "--exit-on-error-type=ReportError",
                "w/linked.bc"
            ]
        );
        assert_eq!(
            p.link.argv_lossy(),
            ["llvm-link", "w/prog.bc", "w/harness.bc", "-o", "w/linked.bc"]
        );
        let c = p.compile_program.argv_lossy();
        assert_eq!(&c[..4], ["clang", "-emit-llvm", "-c", "-g"]);
        assert!(
            c.contains(&"-DBATON_LONG_BYTES=8".to_string())
                && c.contains(&"-finstrument-functions".to_string())
        );
        assert!(HARNESS_C.contains("klee_make_symbolic"));
        Ok(())
    }
}
