//! Helpers of the memory-model tests (arrays, structs): small programs after a prelude of
//! the sv-benchmarks functions, run on the interpreter, verified with a bounded budget, and
//! their emitted C compiled with gcc.
#![allow(dead_code)] // each test binary uses part of it

use baton::analyses::{run_analysis, AnalysisKind, AnalysisOptions, AnalysisOutcome};
use baton::cfa::interpreter::{execute, Ending, ExecOptions};
use baton::cfa::types::DataModel;
use baton::cfa::Program;
use baton::cpa::monitor::GiveUp;
use baton::frontend::load_source;
use baton::verdict::Verdict;
use std::path::Path;
use std::process::Command;

const PRELUDE: &str =
    "extern void abort(void);\nextern int __VERIFIER_nondet_int(void);\nvoid reach_error(void) {}\n";

/// The program `body` after the prelude, lowered from file `file`.
pub fn program(file: &str, body: &str, model: DataModel) -> Program {
    load_source(file, &format!("{PRELUDE}{body}"), model).unwrap_or_else(|e| panic!("lowering failed: {e}"))
}

/// How the interpreter ends a run on `inputs`.
pub fn run(p: &Program, inputs: &[i128]) -> Ending {
    execute(p, inputs, &ExecOptions::default()).ending
}

/// A verification run of at most 20,000 states and 20 s.
pub fn verify(kind: AnalysisKind, p: &Program) -> AnalysisOutcome {
    let options = AnalysisOptions {
        give_up: vec![
            "reached-states=20000".parse::<GiveUp>().expect("give-up"),
            "cpu-time=20s".parse::<GiveUp>().expect("give-up"),
        ],
        ..Default::default()
    };
    run_analysis(kind, p, &options, None)
}

/// Checks a verdict on `p` against whether its error is `reachable`: no wrong `true` or
/// `false`, and every `false`'s counterexample replays to the error.
pub fn assert_sound(name: &str, kind: AnalysisKind, p: &Program, reachable: bool, outcome: &AnalysisOutcome) {
    match outcome.verdict {
        Verdict::True => assert!(!reachable, "{name}: {kind:?} says true on a reachable error"),
        Verdict::False => {
            assert!(reachable, "{name}: {kind:?} says false on a safe program");
            let cex = outcome
                .counterexample
                .as_ref()
                .expect("a false has a counterexample");
            assert!(
                run(p, &cex.inputs).is_error(),
                "{name}: {kind:?} counterexample does not replay"
            );
        }
        Verdict::Unknown => {}
    }
}

/// Whether gcc is on PATH (printing why a test is skipped when it is not).
pub fn have_gcc() -> bool {
    let found = Command::new("gcc").arg("--version").output().is_ok();
    if !found {
        eprintln!("skipping: gcc is not on PATH");
    }
    found
}

/// Compiles C text with `gcc <model flag> -c` in `dir`: `Ok(true)` if it compiles, `Ok(false)`
/// if the machine has no 32-bit headers (printed), `Err(stderr)` otherwise.
pub fn gcc_compiles(c: &str, name: &str, model: DataModel, dir: &Path) -> Result<bool, String> {
    let file = dir.join(format!("{name}-{model}.c"));
    std::fs::write(&file, c).expect("write");
    let out = Command::new("gcc")
        .arg(model.gcc_flag())
        .args(["-c", "-o"])
        .arg(dir.join("out.o"))
        .arg(&file)
        .output()
        .expect("gcc runs");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    if model == DataModel::ILP32 && stderr.contains("bits/") {
        eprintln!("skipping {model}: no 32-bit headers");
        return Ok(false);
    }
    if out.status.success() {
        Ok(true)
    } else {
        Err(stderr)
    }
}

/// Whether the complete C program `text`, compiled by gcc for `model` (with `flags`) in `dir`
/// and run, exits with 7 (the status its `reach_error` exits with); `None` if gcc cannot build
/// for ILP32 (no gcc-multilib, printed).
pub fn gcc_exits_7(text: &str, model: DataModel, flags: &[&str], dir: &Path) -> Option<bool> {
    let source = dir.join("native.c");
    let exe = dir.join("native");
    std::fs::write(&source, text).expect("write");
    let built = Command::new("gcc")
        .args([model.gcc_flag(), "-w", "-O0"])
        .args(flags)
        .arg("-o")
        .arg(&exe)
        .arg(&source)
        .output()
        .expect("gcc runs");
    if !built.status.success() {
        let err = String::from_utf8_lossy(&built.stderr);
        assert!(model == DataModel::ILP32, "gcc failed: {err}\n{text}");
        eprintln!("skipping {model} with gcc: {}", err.lines().next().unwrap_or(""));
        return None;
    }
    let status = Command::new(&exe).status().expect("native program runs");
    Some(status.code() == Some(7))
}

/// Each program (file `e.c`, ILP32) is rejected with exactly the expected one-line error.
pub fn assert_errors(cases: &[(&str, &str)]) {
    for &(text, expected) in cases {
        let err = load_source("e.c", text, DataModel::ILP32)
            .err()
            .map(|e| e.to_string());
        assert_eq!(err.as_deref(), Some(expected), "for:\n{text}");
    }
}

/// Programs with buggy twins over shared declarations: each safe program errs when a
/// condition gcc makes true after its statements is false, its twin when it is true.
pub struct Twins {
    /// The file name programs are lowered from.
    pub file: &'static str,
    /// Declarations before `main`.
    pub decls: &'static str,
    /// (name, statements, condition).
    pub programs: &'static [(&'static str, &'static str, &'static str)],
    /// What `__VERIFIER_nondet_int` returns under gcc, and the interpreter's input.
    pub nondet: i128,
    /// Programs whose verdict depends on nondet values: the explicit analysis need not
    /// decide them.
    pub nondeterministic: &'static [&'static str],
}

impl Twins {
    /// The safe program (errs when `cond` is false) or its buggy twin (errs when it is true).
    fn text(&self, statements: &str, cond: &str, buggy: bool) -> String {
        let check = if buggy {
            format!("if ({cond}) reach_error();")
        } else {
            format!("if (!({cond})) reach_error();")
        };
        format!(
            "{}int main(void) {{\n  {statements}\n  {check}\n  return 0;\n}}\n",
            self.decls
        )
    }

    /// Every twin of every program in both data models, with its label and whether it errs.
    fn each(&self) -> Vec<(String, String, DataModel, bool)> {
        let mut out = Vec::new();
        for &(name, statements, cond) in self.programs {
            for model in [DataModel::ILP32, DataModel::LP64] {
                for buggy in [false, true] {
                    let label = format!("{name} ({model}, {})", if buggy { "buggy" } else { "safe" });
                    out.push((label, self.text(statements, cond, buggy), model, buggy));
                }
            }
        }
        out
    }

    /// Whether `body` (after a prelude whose nondet function returns [`Twins::nondet`] and
    /// whose `reach_error` exits 7), compiled by gcc for `model`, reaches the error; `None`
    /// without 32-bit support.
    pub fn gcc_reaches_error(&self, body: &str, model: DataModel, dir: &Path) -> Option<bool> {
        let prelude = format!(
            "extern void exit(int);\nint __VERIFIER_nondet_int(void) {{ return {}; }}\n\
             void __VERIFIER_assume(int c) {{ if (!c) exit(0); }}\nvoid reach_error(void) {{ exit(7); }}\n",
            self.nondet
        );
        gcc_exits_7(&format!("{prelude}{body}"), model, &[], dir)
    }

    /// gcc ends both twins as expected, the interpreter as gcc does, the explicit analysis
    /// decides them exactly (but for the nondeterministic programs), the predicate and CHC
    /// analyses never answer wrongly (every `false` replayed).
    pub fn assert_decided(&self) {
        use baton::analyses::AnalysisKind;
        let dir = tempfile::tempdir().expect("tempdir");
        let gcc = have_gcc();
        for (label, body, model, buggy) in self.each() {
            if gcc {
                if let Some(native) = self.gcc_reaches_error(&body, model, dir.path()) {
                    assert_eq!(native, buggy, "{label}: gcc disagrees with the expectation");
                }
            }
            let p = program(self.file, &body, model);
            let ending = run(&p, &[self.nondet]);
            assert_eq!(ending.is_error(), buggy, "{label}: {ending}");
            for kind in [AnalysisKind::Explicit, AnalysisKind::Predicate, AnalysisKind::Chc] {
                let outcome = verify(kind, &p);
                assert_sound(&label, kind, &p, buggy, &outcome);
                let exact = !self
                    .nondeterministic
                    .iter()
                    .any(|n| label.starts_with(&format!("{n} (")));
                if kind == AnalysisKind::Explicit && exact {
                    let expected = if buggy { Verdict::False } else { Verdict::True };
                    assert_eq!(outcome.verdict, expected, "{label}: {}", outcome.reason);
                }
            }
        }
    }

    /// The emitted C compiles, gcc running it reaches the error exactly in the buggy twins,
    /// and it reads back to a program the interpreter ends the same way.
    pub fn assert_emitted_behave(&self) {
        if !have_gcc() {
            return;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        for (label, body, model, buggy) in self.each() {
            let p = program(self.file, &body, model);
            let c = baton::cfa::emit_c::emit_c(&p);
            // The prelude's `reach_error` (exit 7) instead of the emitted one.
            let native = c.replace("void reach_error(void) {", "static void emitted_error(void) {");
            let Some(reached) = self.gcc_reaches_error(&native, model, dir.path()) else {
                continue;
            };
            assert_eq!(reached, buggy, "{label}: the emitted program under gcc\n{c}");
            let back = load_source("back.c", &c, model).unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_eq!(run(&back, &[self.nondet]).is_error(), buggy, "{label}: read back");
        }
    }
}
