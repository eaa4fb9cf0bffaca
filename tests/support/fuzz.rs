//! Fuzzing Baton's inputs through its command line: generators and mutators for C programs,
//! flows, conditions (GraphML and CPAchecker format), task definitions and benchmark
//! definitions, and a runner that checks every invocation ends cleanly — no panic (exit 101 or
//! "panicked at"), no death by a signal, no hang (a wall-time limit per run), and an input
//! error (exit 2) names the file it is about.
//!
//! Each input is derived from a seed, so a failure is reproduced from its seed alone; the
//! failing input is also written to the failure directory.

#![allow(dead_code)]

use super::cgen::{generate, Rng};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Wall time after which a run counts as a hang (runs use budgets of about a second).
pub const HANG_LIMIT: Duration = Duration::from_secs(60);

/// One finished invocation.
pub struct Outcome {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub stderr: String,
    pub hung: bool,
    pub elapsed: Duration,
}

/// Runs `baton args` in `cwd` with stdout and stderr in files; kills it after `limit`.
pub fn run_baton(baton: &Path, args: &[String], cwd: &Path, limit: Duration) -> Outcome {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let err_path = cwd.join(".stderr");
    let err_file = std::fs::File::create(&err_path).expect("stderr file");
    let started = Instant::now();
    let mut child = Command::new(baton)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err_file)
        .process_group(0)
        .spawn()
        .expect("baton starts");
    let group = nix::unistd::Pid::from_raw(child.id() as i32);
    let (status, hung) = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break (status, false);
        }
        if started.elapsed() > limit {
            let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
            break (child.wait().expect("wait"), true);
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // Nothing of the run may outlive it (a tool, gcc).
    let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
    let stderr = String::from_utf8_lossy(&std::fs::read(&err_path).unwrap_or_default()).into_owned();
    Outcome {
        code: status.code(),
        signal: status.signal(),
        stderr,
        hung,
        elapsed: started.elapsed(),
    }
}

/// What kind of input a case fuzzes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    C,
    Flow,
    GraphMl,
    CpaChecker,
    Task,
    BenchXml,
}

/// One fuzzing case: files to write, the command, and the file it is about.
pub struct Case {
    pub seed: u64,
    pub kind: Kind,
    /// (file name, content) written into a fresh directory.
    pub files: Vec<(String, Vec<u8>)>,
    pub args: Vec<String>,
    /// The fuzzed file.
    pub subject: String,
}

/// A problem found.
pub struct Failure {
    pub seed: u64,
    pub kind: Kind,
    pub what: String,
    pub args: Vec<String>,
}

/// Checks an outcome against the rules; `None` when it is clean. An input error must name
/// one of the files on the command line (or the run definition it is about).
pub fn judge(case: &Case, out: &Outcome) -> Option<String> {
    if out.hung {
        return Some(format!("no end within {} s", HANG_LIMIT.as_secs()));
    }
    if let Some(sig) = out.signal {
        return Some(format!("killed by signal {sig}: {}", tail(&out.stderr)));
    }
    if out.code == Some(101) || out.stderr.contains("panicked at") {
        return Some(format!("panic: {}", tail(&out.stderr)));
    }
    if out.code == Some(2) {
        let first = out
            .stderr
            .lines()
            .find(|l| !l.starts_with("warning:"))
            .unwrap_or("");
        let files = case
            .args
            .iter()
            .skip(1)
            .filter(|a| !a.starts_with('-') && (a.contains('.') || a.contains('/')));
        let names_a_file =
            first.starts_with("run definition `") || files.into_iter().any(|f| first.contains(f.as_str()));
        if !names_a_file {
            return Some(format!("input error that names no file: {first}"));
        }
    }
    None
}

fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(3)..].join(" | ")
}

// ----- seeds -------------------------------------------------------------------------------

const SMALL_C: &str = "extern void reach_error(void);\nextern int __VERIFIER_nondet_int(void);\nint g = 3;\nint f(int a) { return a * 2 + g; }\nint main(void) {\n  int x = __VERIFIER_nondet_int();\n  int i = 0;\n  while (i < 4) { i++; x = x + f(i); }\n  if (x == 1000) reach_error();\n  return 0;\n}\n";

/// The program flows, conditions and tasks are about (small: every flow ends at once).
pub const SEED_C: &str = "extern void reach_error(void);\nextern int __VERIFIER_nondet_int(void);\nint main(void) {\n  int x = __VERIFIER_nondet_int();\n  int y = 0;\n  if (x > 10) y = 1; else y = 2;\n  if (y == 0) reach_error();\n  return 0;\n}\n";

const FLOW: &str = "flow: fuzz\ndescription: native stages with small budgets\nbudget: { cpu_time: 20s, memory: 1GB }\nstages:\n  - name: explicit\n    tool: explicit\n    give_up: { cpu-time: 1s, reached-states: 100 }\n    budget: { cpu_time: 5s }\n  - name: predicate\n    tool: predicate\n    give_up: { cpu-time: 1s }\n    budget: { cpu_time: 5s, memory: 500MB }\n    input: reduce\n";

const TASK: &str = "format_version: '2.0'\ninput_files: 'seed.c'\nproperties:\n  - property_file: ../properties/unreach-call.prp\n    expected_verdict: true\noptions:\n  language: C\n  data_model: ILP32\n";

const BENCH: &str = "<?xml version=\"1.0\"?>\n<!DOCTYPE benchmark PUBLIC \"+//IDN sosy-lab.org//DTD BenchExec benchmark 2.3//EN\" \"https://www.sosy-lab.org/benchexec/benchmark-2.3.dtd\">\n<benchmark tool=\"baton\" timelimit=\"2s\" hardtimelimit=\"3s\" memlimit=\"1GB\" cpuCores=\"1\">\n  <option name=\"--give-up\">cpu-time=1s</option>\n  <rundefinition name=\"explicit\">\n    <option name=\"--analysis\">explicit</option>\n  </rundefinition>\n  <tasks name=\"t\">\n    <include>*.yml</include>\n  </tasks>\n</benchmark>\n";

/// Tokens mutations insert: syntax of every format, extreme numbers, paths to devices.
const TOKENS: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    "-",
    "+",
    "*",
    "/",
    "%",
    "<<",
    ">>",
    "&&",
    "||",
    "!",
    "~",
    "?",
    ":",
    "=",
    "==",
    "int ",
    "unsigned ",
    "long long ",
    "char ",
    "_Bool ",
    "if (x) ",
    "while (1) ",
    "for (;;) ",
    "goto L; ",
    "L: ",
    "return ",
    "x",
    "y",
    "g",
    "main",
    "reach_error()",
    "__VERIFIER_nondet_int()",
    "0",
    "1",
    "-1",
    "2147483647",
    "-2147483648",
    "4294967295",
    "0x7fffffffffffffff",
    "18446744073709551616",
    "99999999999999999999999999999999",
    "1e309",
    "0.0",
    "'\\0'",
    "\"\\\"\"",
    "#define A A A\n",
    "#include \"/dev/zero\"\n",
    "#include \"/dev/stdin\"\n",
    "#include <stdio.h>\n",
    "#if 1\n",
    "#endif\n",
    "\\\n",
    "/*",
    "*/",
    "//",
    "\0",
    "\u{feff}",
    "é",
    "\t",
    "\n",
    " ",
    ": ",
    "- ",
    "? ",
    "&a ",
    "*a ",
    "!!binary ",
    "~",
    "null",
    "true",
    "0s",
    "-1s",
    "1ms",
    "18446744073709551616s",
    "99999999999999999999GB",
    "0GB",
    "1e3s",
    "NaN",
    "tool: ",
    "stages: ",
    "give_up: ",
    "budget: ",
    "cpu_time: ",
    "input: guide",
    "<",
    ">",
    "</",
    "/>",
    "<node id=\"x\">",
    "</node>",
    "<edge source=\"a\" target=\"b\">",
    "<data key=\"entry\">true</data>",
    "&amp;",
    "&unknown;",
    "&#0;",
    "&#xFFFFFFFF;",
    "<![CDATA[",
    "]]>",
    "<!--",
    "-->",
    "<?xml",
    "\"",
    "'",
    "STATE USEONLY ",
    "MATCH ",
    "ASSUME {",
    "} -> GOTO ",
    "TRUE",
    "FALSE",
    "END AUTOMATON",
    "../",
    "/dev/zero",
    "/tmp",
    "*.yml",
    "*",
    "**/",
    ".",
    "..",
];

// ----- mutation ----------------------------------------------------------------------------

/// Applies 1–8 random edits: insert a token, delete, duplicate or repeat a span, swap lines,
/// replace a number by an extreme one, truncate.
pub fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut data = input.to_vec();
    let edits = 1 + rng.below(8);
    for _ in 0..edits {
        let len = data.len();
        let at = if len == 0 { 0 } else { rng.below(len + 1) };
        match rng.below(9) {
            0 | 1 => {
                let t = rng.pick(TOKENS).as_bytes().to_vec();
                data.splice(at..at, t);
            }
            2 => {
                let end = (at + 1 + rng.below(40)).min(len);
                if at < end {
                    data.drain(at..end);
                }
            }
            3 => {
                let end = (at + 1 + rng.below(60)).min(len);
                if at < end {
                    let span = data[at..end].to_vec();
                    data.splice(at..at, span);
                }
            }
            4 => {
                // Repeat a short span many times: deep nesting, long chains.
                let end = (at + 1 + rng.below(4)).min(len);
                if at < end {
                    let span = data[at..end].to_vec();
                    let times = *rng.pick(&[10, 100, 1000, 6000]);
                    let repeated: Vec<u8> = span.iter().copied().cycle().take(span.len() * times).collect();
                    data.splice(at..at, repeated);
                }
            }
            5 => {
                let text = String::from_utf8_lossy(&data).into_owned();
                let mut lines: Vec<&str> = text.lines().collect();
                if lines.len() > 1 {
                    let a = rng.below(lines.len());
                    let b = rng.below(lines.len());
                    lines.swap(a, b);
                    data = (lines.join("\n") + "\n").into_bytes();
                }
            }
            6 => {
                // Replace the digits at a position with an extreme number.
                let start = data.iter().skip(at).position(u8::is_ascii_digit).map(|p| p + at);
                if let Some(s) = start {
                    let e = data[s..]
                        .iter()
                        .position(|b| !b.is_ascii_digit())
                        .map_or(data.len(), |p| p + s);
                    let n = rng.pick(&["0", "18446744073709551616", "4294967296", "999999999999", "-1"]);
                    data.splice(s..e, n.bytes());
                }
            }
            7 => data.truncate(at),
            _ => {
                if at < len {
                    data[at] = (rng.next_u64() & 0xff) as u8;
                }
            }
        }
    }
    data
}

/// The words of a command line (no quoting needed in the commands used here).
fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

/// Wraps a program body in nesting of one kind, `depth` deep (the frontend's limits).
fn deep_program(rng: &mut Rng) -> String {
    let depth = *rng.pick(&[100, 3000, 20_000, 60_000]);
    let body = match rng.below(4) {
        0 => format!("x = {}y{};", "(".repeat(depth), ")".repeat(depth)),
        1 => format!("{}x = 1;", "if (y) ".repeat(depth)),
        2 => format!("{}x = 1;{}", "{".repeat(depth), "}".repeat(depth)),
        _ => format!("x = {}y;", "-~".repeat(depth / 2)),
    };
    format!("extern int __VERIFIER_nondet_int(void);\nextern void reach_error(void);\nint main(void) {{\nint y = __VERIFIER_nondet_int(); int x = 0;\n{body}\nif (x == 3) reach_error();\nreturn 0;\n}}\n")
}

/// The case for `seed`; `conditions` are a GraphML and a CPAchecker condition for [`SEED_C`].
pub fn make_case(seed: u64, conditions: &(String, String)) -> Case {
    let mut rng = Rng::new(seed.wrapping_mul(0x9e37_79b9) ^ 0xf022);
    let s = |x: &str| x.to_string();
    let seed_file = (s("seed.c"), SEED_C.as_bytes().to_vec());
    let kind = match rng.weighted(&[50, 12, 12, 8, 10, 8]) {
        0 => Kind::C,
        1 => Kind::Flow,
        2 => Kind::GraphMl,
        3 => Kind::CpaChecker,
        4 => Kind::Task,
        _ => Kind::BenchXml,
    };
    let (files, args, subject) = match kind {
        Kind::C => {
            let base = match rng.below(4) {
                0 => SMALL_C.to_string(),
                1 => deep_program(&mut rng),
                _ => generate(rng.next_u64() % 10_000, "f").text(),
            };
            let text = if rng.chance(85) {
                mutate(&mut rng, base.as_bytes())
            } else {
                base.into_bytes()
            };
            let args: Vec<String> = match rng.below(6) {
                0 | 1 => words("cfa p.c"),
                2 => words("exec p.c --inputs 3,-1,2147483647,0 --max-steps 20000"),
                3 => words("verify p.c --analysis explicit --give-up cpu-time=1s --give-up memory=1GB"),
                4 => words("verify p.c --analysis predicate --give-up cpu-time=1s --give-up memory=1GB"),
                _ => words("reduce p.c --condition /dev/null"),
            };
            (vec![(s("p.c"), text)], args, s("p.c"))
        }
        Kind::Flow => {
            let text = mutate(&mut rng, FLOW.as_bytes());
            (
                vec![(s("flow.yaml"), text), seed_file],
                words("run flow.yaml seed.c"),
                s("flow.yaml"),
            )
        }
        Kind::GraphMl | Kind::CpaChecker => {
            let (name, base) = if kind == Kind::GraphMl {
                ("c.graphml", &conditions.0)
            } else {
                ("c.spc", &conditions.1)
            };
            let text = mutate(&mut rng, base.as_bytes());
            let args = if rng.chance(50) {
                words(&format!("reduce seed.c --condition {name} -o r.c"))
            } else {
                words(&format!(
                    "verify seed.c --analysis explicit --condition-in {name} --give-up cpu-time=1s"
                ))
            };
            (vec![(s(name), text), seed_file], args, s(name))
        }
        Kind::Task => {
            let text = mutate(&mut rng, TASK.as_bytes());
            let args = words("verify t.yml --analysis explicit --give-up cpu-time=1s");
            (vec![(s("t.yml"), text), seed_file], args, s("t.yml"))
        }
        Kind::BenchXml => {
            let text = mutate(&mut rng, BENCH.as_bytes());
            let args = words("bench b.xml --jobs 1 --output-dir out");
            let task = (s("t.yml"), TASK.as_bytes().to_vec());
            (vec![(s("b.xml"), text), task, seed_file], args, s("b.xml"))
        }
    };
    Case {
        seed,
        kind,
        files,
        args,
        subject,
    }
}

/// Writes the conditions [`make_case`] mutates: Baton's own for [`SEED_C`], in both formats.
pub fn seed_conditions(baton: &Path, dir: &Path) -> (String, String) {
    std::fs::write(dir.join("seed.c"), SEED_C).expect("write seed");
    let mut texts = Vec::new();
    for name in ["seed.graphml", "seed.spc"] {
        let args = words(&format!(
            "verify seed.c --analysis explicit --give-up reached-states=4 --condition-out {name}"
        ));
        let out = run_baton(baton, &args, dir, HANG_LIMIT);
        assert_eq!(out.code, Some(0), "seed condition: {}", out.stderr);
        texts.push(std::fs::read_to_string(dir.join(name)).expect("condition written"));
    }
    (texts[0].clone(), texts[1].clone())
}

/// Figures of a campaign.
#[derive(Default)]
pub struct Campaign {
    pub inputs: usize,
    pub per_kind: std::collections::BTreeMap<String, usize>,
    pub failures: Vec<Failure>,
    pub slowest: Duration,
}

/// Runs the cases `first..` until `count` cases ran or `deadline` passed. A failing input is
/// copied to `keep` (if given) as `SEED-FILE`.
pub fn campaign(
    baton: &Path,
    first: u64,
    count: usize,
    deadline: Option<Instant>,
    keep: Option<&Path>,
) -> Campaign {
    let work = tempfile::tempdir().expect("temporary directory");
    let conditions = seed_conditions(baton, work.path());
    let mut c = Campaign::default();
    for seed in first.. {
        if c.inputs >= count || deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let case = make_case(seed, &conditions);
        let dir = work.path().join(format!("case-{seed}"));
        std::fs::create_dir_all(&dir).expect("case directory");
        for (name, content) in &case.files {
            std::fs::write(dir.join(name), content).expect("write case file");
        }
        let out = run_baton(baton, &case.args, &dir, HANG_LIMIT);
        c.inputs += 1;
        *c.per_kind.entry(format!("{:?}", case.kind)).or_default() += 1;
        c.slowest = c.slowest.max(out.elapsed);
        if let Some(what) = judge(&case, &out) {
            if let Some(keep) = keep {
                let _ = std::fs::create_dir_all(keep);
                for (name, content) in &case.files {
                    let _ = std::fs::write(keep.join(format!("{seed}-{name}")), content);
                }
            }
            c.failures.push(Failure {
                seed,
                kind: case.kind,
                what,
                args: case.args.clone(),
            });
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    c
}

/// A one-paragraph report of a campaign.
pub fn summary(c: &Campaign, elapsed: Duration) -> String {
    let mut s = format!(
        "{} inputs in {:.1} min ({:?}), slowest run {:.1} s, {} failures\n",
        c.inputs,
        elapsed.as_secs_f64() / 60.0,
        c.per_kind,
        c.slowest.as_secs_f64(),
        c.failures.len()
    );
    for f in &c.failures {
        s.push_str(&format!(
            "  seed {} ({:?}) baton {}: {}\n",
            f.seed,
            f.kind,
            f.args.join(" "),
            f.what
        ));
    }
    s
}

/// Where the baton binary is: `BATON_BIN`, else the one Cargo built for the tests.
pub fn baton_binary(default: &str) -> PathBuf {
    std::env::var_os("BATON_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(default))
}
