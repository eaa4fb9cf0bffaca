//! Runs real AFL++ (installed by scripts/install-tools.sh) on an own program with a shallow bug
//! behind an empty `reach_error(){}`; checks the crash decodes to values containing 0x1234.
//! Skips with a printed reason when afl-clang-fast or afl-fuzz is not installed.

use baton::adapters::afl::{self, AflTools};
use baton::adapters::registry::Registry;
use baton::adapters::CommandLine;
use baton::cfa::types::DataModel;
use std::process::Stdio;

const PROGRAM: &str = r#"
extern int __VERIFIER_nondet_int(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
extern long __VERIFIER_nondet_long(void);
extern void abort(void);
void reach_error(void) {}
int main(void) {
  unsigned char c = __VERIFIER_nondet_uchar();
  if (c > 250) abort();
  long l = __VERIFIER_nondet_long();
  int x = __VERIFIER_nondet_int();
  if (x == 0x1234) {
    reach_error();
  }
  return (int)l & 0;
}
"#;

fn run(cmd: &CommandLine) -> std::process::Output {
    let mut c = cmd.to_command();
    match &cmd.stdin {
        Some(path) => {
            let file = std::fs::File::open(path).expect("open stdin file");
            c.stdin(Stdio::from(file));
        }
        None => {
            c.stdin(Stdio::null());
        }
    }
    c.output()
        .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", cmd.program))
}

#[test]
fn real_afl_finds_shallow_bug() {
    let registry = Registry::builtin().expect("built-in adapters");
    let config = registry.get("afl").expect("afl adapter");
    let Some(tools) = AflTools::locate(config) else {
        eprintln!("skipping: afl-clang-fast/afl-fuzz not found (run scripts/install-tools.sh)");
        return;
    };
    let work = tempfile::tempdir().expect("tempdir");
    let dir = work.path();
    let harness = dir.join("harness.c");
    let program = dir.join("prog.c");
    let binary = dir.join("prog");
    std::fs::write(&harness, afl::HARNESS_C).expect("write harness");
    std::fs::write(&program, PROGRAM).expect("write program");
    let model = DataModel::ILP32;

    let build = run(&afl::build_command(&tools, &harness, &program, &binary, model));
    assert!(
        build.status.success(),
        "build failed: {}",
        String::from_utf8_lossy(&build.stderr)
    );

    // The harness itself: no crash on zeros, crash on the bug input (uchar 5, long 4 bytes, int).
    let input = dir.join("manual");
    std::fs::write(&input, [5, 9, 0, 0, 0, 0x34, 0x12, 0, 0]).expect("write input");
    let log = dir.join("manual.log");
    let replay = run(&afl::replay_command(&binary, &input, &log));
    assert!(!replay.status.success(), "bug input did not crash");
    let text = std::fs::read_to_string(&log).expect("log written");
    let decoded = afl::decode_nondet_log(&text, model, "manual.log").expect("decodes");
    assert_eq!(decoded.values(), vec![5, 9, 0x1234]);
    assert_eq!(decoded.error_function.as_deref(), Some("reach_error"));

    let input_dir = dir.join("in");
    let output_dir = dir.join("out");
    std::fs::create_dir(&input_dir).expect("in dir");
    std::fs::write(input_dir.join("seed"), afl::seed_input()).expect("seed");
    let fuzz = run(&afl::fuzz_command(
        &tools,
        &config.spec.env,
        &input_dir,
        &output_dir,
        &binary,
        30,
    ));
    let crashes = afl::crash_inputs(&output_dir).expect("crash dir readable");
    assert!(
        !crashes.is_empty(),
        "no crash found; afl-fuzz said: {}",
        String::from_utf8_lossy(&fuzz.stdout)
            .lines()
            .rev()
            .take(5)
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let log = dir.join("crash.log");
    let replay = run(&afl::replay_command(&binary, &crashes[0], &log));
    assert!(!replay.status.success());
    let text = std::fs::read_to_string(&log).expect("log written");
    let decoded = afl::decode_nondet_log(&text, model, "crash.log").expect("decodes");
    assert_eq!(decoded.error_function.as_deref(), Some("reach_error"));
    assert!(decoded.values().contains(&0x1234), "{decoded:?}");
    assert_eq!(decoded.values().len(), 3);
}

const DECLARED_ONLY: &str = r#"
extern void __VERIFIER_error(void);
extern void __VERIFIER_assume(int);
extern short __VERIFIER_nondet_short(void);
extern _Bool __VERIFIER_nondet_bool(void);
int main(void) {
  short s = __VERIFIER_nondet_short();
  __VERIFIER_assume(s != 7);
  if (__VERIFIER_nondet_bool() && s < -5) {
    __VERIFIER_error();
  }
  return 0;
}
"#;

/// (program name, source, input bytes, whether the error is reached, values read)
type HarnessCase<'a> = (&'a str, &'a str, &'a [u8], bool, Vec<i128>);

/// The harness on a program that only declares `__VERIFIER_error` (the harness's weak
/// definition is used), with `__VERIFIER_assume`; and `abort()` exits quietly. No fuzzing.
#[test]
fn real_afl_harness_semantics() {
    let registry = Registry::builtin().expect("built-in adapters");
    let config = registry.get("afl").expect("afl adapter");
    let Some(tools) = AflTools::locate(config) else {
        eprintln!("skipping: afl-clang-fast/afl-fuzz not found (run scripts/install-tools.sh)");
        return;
    };
    let work = tempfile::tempdir().expect("tempdir");
    let dir = work.path();
    let harness = dir.join("harness.c");
    let model = DataModel::LP64;
    std::fs::write(&harness, afl::HARNESS_C).expect("write harness");
    let cases: [HarnessCase; 4] = [
        // s = -6 (0xfffa), bool byte 3 -> 1: error.
        ("declared", DECLARED_ONLY, &[0xfa, 0xff, 3], true, vec![-6, 1]),
        // s = 7: assume fails, exit 0 after one read.
        ("declared", DECLARED_ONLY, &[7, 0, 1], false, vec![7]),
        // Empty input: zeros, no error.
        ("declared", DECLARED_ONLY, &[], false, vec![0, 0]),
        // abort() in the program: quiet exit 0 after reading c = 255.
        ("defined", PROGRAM, &[255], false, vec![255]),
    ];
    for (i, (name, source, input, crashes, values)) in cases.into_iter().enumerate() {
        let program = dir.join(format!("{name}.c"));
        let binary = dir.join(name);
        if !binary.exists() {
            std::fs::write(&program, source).expect("write program");
            let build = run(&afl::build_command(&tools, &harness, &program, &binary, model));
            assert!(
                build.status.success(),
                "build: {}",
                String::from_utf8_lossy(&build.stderr)
            );
        }
        let input_path = dir.join(format!("input{i}"));
        std::fs::write(&input_path, input).expect("write input");
        let log = dir.join(format!("log{i}"));
        let out = run(&afl::replay_command(&binary, &input_path, &log));
        assert_eq!(!out.status.success(), crashes, "case {i}: {:?}", out.status);
        let text = std::fs::read_to_string(&log).expect("log written");
        let decoded = afl::decode_nondet_log(&text, model, "log").expect("decodes");
        assert_eq!(decoded.values(), values, "case {i}");
        assert_eq!(decoded.error_function.is_some(), crashes, "case {i}");
        if crashes {
            assert_eq!(decoded.error_function.as_deref(), Some("__VERIFIER_error"));
        }
    }
}
