//! `long double` as gcc computes it on x86 Linux (x87 extended precision), through every layer:
//! own sv-benchmarks-style programs (safe and buggy) under the explicit, predicate and CHC
//! analyses with no wrong verdict and every `false` replayed on the interpreter *and* natively
//! (gcc, the counterexample's values fed to the nondet functions); the deterministic ones
//! decided exactly by the explicit analysis, their verdicts checked against gcc in both data
//! models; gcc's layout of structs with `long double` members (`offsetof`/`sizeof` printed by
//! gcc) against Baton's; residual programs that compile with `gcc -c`, read back the same and
//! satisfy Res; violation witnesses with `long double` values that validate.

#[path = "support/memory_programs.rs"]
mod memory_programs;
#[path = "support/res_check.rs"]
mod res_check;

use baton::analyses::{replay_to_error, run_analysis, AnalysisKind, AnalysisOptions, AnalysisOutcome};
use baton::cfa::emit_c::emit_c;
use baton::cfa::interpreter::{execute, Ending, ExecOptions};
use baton::cfa::types::DataModel;
use baton::cfa::Program;
use baton::cpa::monitor::GiveUp;
use baton::frontend::load_source;
use baton::verdict::Verdict;
use memory_programs::{assert_sound, gcc_compiles, gcc_exits_7, have_gcc};
use std::path::Path;
use std::process::Command;

const PRELUDE: &str = "extern long double __VERIFIER_nondet_long_double(void);\n\
extern double __VERIFIER_nondet_double(void);\nextern int __VERIFIER_nondet_int(void);\n\
void reach_error(void) {}\n";

/// The prelude for gcc: the nondet functions return the next value of the list the run was
/// given (a `long double` from the 10 low bytes of an 80-bit pattern), `reach_error` exits 7.
const GCC_PRELUDE: &str = "#include <stdlib.h>\n#include <string.h>\n\
static const unsigned long long baton_in[][2] = { INPUTS };\nstatic int baton_k;\n\
static const unsigned long long *baton_next(void) {\n\
  static const unsigned long long zero[2];\n\
  return baton_k < (int) (sizeof baton_in / sizeof baton_in[0]) ? baton_in[baton_k++] : zero;\n}\n\
long double __VERIFIER_nondet_long_double(void) {\n\
  long double x = 0; const unsigned long long *v = baton_next();\n\
  memcpy(&x, v, 8); memcpy((char *) &x + 8, v + 1, 2); return x;\n}\n\
double __VERIFIER_nondet_double(void) { double x; memcpy(&x, baton_next(), 8); return x; }\n\
int __VERIFIER_nondet_int(void) { return (int) baton_next()[0]; }\n\
void reach_error(void) { exit(7); }\n";

/// (name, error reachable with gcc, deterministic, program body).
const PROGRAMS: &[(&str, bool, bool, &str)] = &[
    (
        "x87 rounding absorbs 2^-70",
        true,
        true,
        "int main(void) { long double x = 1.0L; long double y = x + 0x1p-70L; if (y == x) reach_error(); return 0; }",
    ),
    (
        "one third narrows to the double third",
        false,
        true,
        "int main(void) { long double t = 1.0L / 3.0L; double d = (double) t; if (d != 1.0 / 3.0) reach_error(); float f = t; if (f != 1.0f / 3.0f) reach_error(); return 0; }",
    ),
    (
        // 1 + 2^-53 + 2^-64 ties to 1 + 2^-53 in long double, which ties to 1.0 in double.
        "double rounding through long double",
        true,
        true,
        "int main(void) { long double x = 1.0L; x = x + 0x1p-53L; x = x + 0x1p-64L; double d = (double) x; if (d == 1.0) reach_error(); return 0; }",
    ),
    (
        "64-bit integers are exact",
        false,
        true,
        "int main(void) { unsigned long long u = 18446744073709551615ULL; long double x = u; unsigned long long v = x; if (v != u) reach_error(); long long m = -9223372036854775807LL - 1; long double y = m; if ((long long) y != m) reach_error(); if (x + 1 != 0x1p64L) reach_error(); return 0; }",
    ),
    (
        "a double loses what long double keeps",
        true,
        true,
        "int main(void) { long long n = 9007199254740993LL; double d = n; long double x = n; if ((long double) d != x) reach_error(); return 0; }",
    ),
    (
        // 0.1L + 0.2L == 0.3L (unlike with double).
        "layout in structs, arrays, typedefs and through pointers",
        false,
        true,
        "typedef long double real; struct rec { char tag; real value; short n; real w[2]; }; \
         int main(void) { struct rec r = { 1, 0.5L, 2, { 0.25L, 0.125L } }; struct rec *p = &r; real a[3] = { 0.1L, 0.2L, 0.3L }; real *q = &a[1]; \
         int lp64 = sizeof(long) == 8; \
         if (sizeof(real) != (lp64 ? 16 : 12)) reach_error(); \
         if (sizeof(struct rec) != (lp64 ? 80 : 44)) reach_error(); \
         if ((char *) &p->value - (char *) p != (lp64 ? 16 : 4)) reach_error(); \
         if ((char *) &p->w[1] - (char *) p != (lp64 ? 64 : 32)) reach_error(); \
         if ((char *) q - (char *) a != (lp64 ? 16 : 12)) reach_error(); \
         p->w[1] = p->value * *q; if (r.w[1] != 0.5L * 0.2L) reach_error(); \
         if (a[0] + *q != a[2]) reach_error(); return 0; }",
    ),
    (
        "NaN from zero over zero",
        true,
        true,
        "int main(void) { long double z = 0.0L; long double n = z / z; if (n != n) reach_error(); return 0; }",
    ),
    (
        "negative zero is zero",
        false,
        true,
        "int main(void) { long double z = -0.0L; if (z) reach_error(); if (1.0L / z > 0) reach_error(); return 0; }",
    ),
    (
        "2^64 - 1 by doubling is exact",
        false,
        true,
        "int main(void) { long double s = 0.0L; int i; for (i = 0; i < 64; i++) s = s * 2.0L + 1.0L; if (s != 18446744073709551615.0L) reach_error(); return 0; }",
    ),
    (
        "2^65 - 1 by doubling rounds",
        true,
        true,
        "int main(void) { long double s = 0.0L; int i; for (i = 0; i < 65; i++) s = s * 2.0L + 1.0L; if (s == 36893488147419103232.0L) reach_error(); return 0; }",
    ),
    (
        "half an ulp ties to even",
        true,
        false,
        "int main(void) { long double x = __VERIFIER_nondet_long_double(); if (x > 1.0L && x < 2.0L) { long double y = x + 0x1p-64L; if (y != x) reach_error(); } return 0; }",
    ),
    (
        "a quarter ulp is absorbed",
        false,
        false,
        "int main(void) { long double x = __VERIFIER_nondet_long_double(); if (x > 1.0L && x < 2.0L) { long double y = x + 0x1p-65L; if (y != x) reach_error(); } return 0; }",
    ),
    (
        "an int survives the round trip",
        false,
        false,
        "int main(void) { int n = __VERIFIER_nondet_int(); long double x = n; if ((int) x != n) reach_error(); if (x + 0.5L == x) reach_error(); return 0; }",
    ),
    (
        "beyond the range of double",
        true,
        false,
        "int main(void) { long double x = __VERIFIER_nondet_long_double(); if (x > 0x1p16382L) reach_error(); return 0; }",
    ),
    (
        "a fraction to unsigned int",
        true,
        false,
        "int main(void) { long double x = __VERIFIER_nondet_long_double(); if (x >= 0.0L && x < 1.0L) { unsigned int k = (unsigned int) (x * 4294967296.0L); if (k == 4294967295u) reach_error(); } return 0; }",
    ),
    (
        "a double survives the round trip",
        false,
        false,
        "int main(void) { double d = __VERIFIER_nondet_double(); long double x = d; if (x == x && (double) x != d) reach_error(); return 0; }",
    ),
];

fn program(body: &str, model: DataModel) -> Program {
    load_source("ld.c", &format!("{PRELUDE}{body}"), model).unwrap_or_else(|e| panic!("lowering failed: {e}"))
}

fn verify(kind: AnalysisKind, p: &Program) -> AnalysisOutcome {
    let options = AnalysisOptions {
        give_up: ["cpu-time=6s", "memory=2GB"]
            .iter()
            .map(|g| g.parse::<GiveUp>().expect("valid give-up"))
            .collect(),
        ..Default::default()
    };
    run_analysis(kind, p, &options, None)
}

/// Whether the program `body`, compiled by gcc for `model` and run with the nondet `inputs`,
/// reaches the error; `None` if gcc cannot build for the model (no gcc-multilib).
fn gcc_reaches_error(body: &str, model: DataModel, inputs: &[i128], dir: &Path) -> Option<bool> {
    let values: Vec<String> = inputs
        .iter()
        .map(|v| format!("{{ {:#x}ULL, {:#x}ULL }}", *v as u64, (*v >> 64) as u64 & 0xffff))
        .collect();
    let values = if values.is_empty() {
        "{ 0, 0 }".to_string()
    } else {
        values.join(", ")
    };
    let text = format!("{}{body}\n", GCC_PRELUDE.replace("INPUTS", &values));
    let flags = ["-msse2", "-mfpmath=sse", "-fexcess-precision=standard"];
    gcc_exits_7(&text, model, &flags, dir)
}

/// The deterministic programs end as they end with gcc, and the explicit analysis decides
/// them exactly, in both data models.
#[test]
fn deterministic_programs_end_as_with_gcc_and_are_decided_exactly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let gcc = have_gcc();
    for &(name, reachable, deterministic, body) in PROGRAMS {
        if !deterministic {
            continue;
        }
        for model in [DataModel::ILP32, DataModel::LP64] {
            let p = program(body, model);
            let run = execute(&p, &[], &ExecOptions::default());
            assert_eq!(
                run.ending.is_error(),
                reachable,
                "{name} ({model}): {}",
                run.ending
            );
            if gcc {
                if let Some(native) = gcc_reaches_error(body, model, &[], dir.path()) {
                    assert_eq!(
                        native, reachable,
                        "{name} ({model}): gcc disagrees with the expectation"
                    );
                }
            }
            let outcome = verify(AnalysisKind::Explicit, &p);
            let expected = if reachable { Verdict::False } else { Verdict::True };
            assert_eq!(outcome.verdict, expected, "{name} ({model}): {}", outcome.reason);
        }
    }
}

/// No analysis answers wrongly; every `false` replays on the interpreter and, with gcc, natively;
/// the predicate and CHC analyses decide the rounding programs over nondet values.
#[test]
fn analyses_never_answer_wrongly_and_their_counterexamples_run_natively() {
    let dir = tempfile::tempdir().expect("tempdir");
    let gcc = have_gcc();
    let mut decided = Vec::new();
    for kind in [AnalysisKind::Explicit, AnalysisKind::Predicate, AnalysisKind::Chc] {
        for &(name, reachable, _, body) in PROGRAMS {
            let model = DataModel::ILP32;
            let p = program(body, model);
            let outcome = verify(kind, &p);
            assert_sound(name, kind, &p, reachable, &outcome);
            if let (Some(cex), true) = (&outcome.counterexample, gcc) {
                let native = gcc_reaches_error(body, model, &cex.inputs, dir.path());
                assert_ne!(
                    native,
                    Some(false),
                    "{kind:?} on {name}: {:?} do not reach the error natively",
                    cex.inputs
                );
            }
            if outcome.verdict != Verdict::Unknown {
                decided.push((kind, name, outcome.verdict));
            }
        }
    }
    eprintln!("decided: {decided:?}");
    let expected = [
        (
            AnalysisKind::Predicate,
            "an int survives the round trip",
            Verdict::True,
        ),
        (
            AnalysisKind::Predicate,
            "a double survives the round trip",
            Verdict::True,
        ),
    ];
    for kind in [AnalysisKind::Predicate, AnalysisKind::Chc] {
        for (name, verdict) in [
            ("half an ulp ties to even", Verdict::False),
            ("a quarter ulp is absorbed", Verdict::True),
            ("beyond the range of double", Verdict::False),
            ("a fraction to unsigned int", Verdict::False),
        ] {
            assert!(
                decided.contains(&(kind, name, verdict)),
                "{kind:?} does not decide {name}"
            );
        }
    }
    for e in expected {
        assert!(decided.contains(&e), "{e:?} not decided");
    }
}

/// gcc's `offsetof` and `sizeof` of structs with `long double` members equal Baton's layout
/// (member addresses through a pointer to the struct, `sizeof`), in both data models.
#[test]
fn struct_layout_matches_gcc() {
    if !have_gcc() {
        return;
    }
    let structs = "struct a { char c; long double x; };\n\
                   struct b { long double x; char c; };\n\
                   struct c { short s; long double x[2]; int i; };\n\
                   struct d { char c; struct a inner; double d; long double y; };\n";
    // (struct, member) pairs whose offsets are compared, then the sizes.
    let members = [
        ("a", "x"),
        ("b", "c"),
        ("c", "x[1]"),
        ("c", "i"),
        ("d", "inner.x"),
        ("d", "d"),
        ("d", "y"),
    ];
    let sizes = ["a", "b", "c", "d"];
    let dir = tempfile::tempdir().expect("tempdir");
    for model in [DataModel::ILP32, DataModel::LP64] {
        let mut printer = format!("#include <stdio.h>\n#include <stddef.h>\n{structs}int main(void) {{\n");
        for (s, m) in members {
            printer.push_str(&format!(
                "  printf(\"%d\\n\", (int) offsetof(struct {s}, {m}));\n"
            ));
        }
        for s in sizes {
            printer.push_str(&format!("  printf(\"%d\\n\", (int) sizeof(struct {s}));\n"));
        }
        printer.push_str("  return 0;\n}\n");
        let source = dir.path().join("layout.c");
        let exe = dir.path().join("layout");
        std::fs::write(&source, printer).expect("write");
        let built = Command::new("gcc")
            .args([model.gcc_flag(), "-o"])
            .arg(&exe)
            .arg(&source)
            .output()
            .expect("gcc runs");
        if !built.status.success() {
            assert!(
                model == DataModel::ILP32,
                "{}",
                String::from_utf8_lossy(&built.stderr)
            );
            eprintln!("skipping {model}: gcc cannot build 32-bit programs");
            continue;
        }
        let printed = Command::new(&exe).output().expect("layout runs");
        let expected: Vec<i128> = String::from_utf8_lossy(&printed.stdout)
            .lines()
            .map(|l| l.parse().expect("a number"))
            .collect();
        // Baton: each offset and size as the return value of its own program.
        let mut measures: Vec<String> = members
            .iter()
            .map(|(s, m)| {
                format!("struct {s} o; struct {s} *p = &o; return (int) ((char *) &p->{m} - (char *) p);")
            })
            .collect();
        measures.extend(sizes.iter().map(|s| format!("return (int) sizeof(struct {s});")));
        let got: Vec<i128> = measures
            .iter()
            .map(|m| {
                let p = program(&format!("{structs}int main(void) {{ {m} }}"), model);
                match execute(&p, &[], &ExecOptions::default()).ending {
                    Ending::Returned { value: Some(v) } => v,
                    other => panic!("{m} ({model}): {other}"),
                }
            })
            .collect();
        assert_eq!(
            got, expected,
            "{model}: offsets {members:?}, then sizes {sizes:?}"
        );
    }
}

/// A loop over `long double` values with a bug for one input.
const LOOP: &str =
    "int main(void) { long double x = __VERIFIER_nondet_long_double(); int n = __VERIFIER_nondet_int(); \
    long double s = 0.0L; int i = 0; if (n < 0 || n > 20) return 0; \
    while (i < n) { s = s + x; i++; } \
    if (x == 0.5L && s == 5.0L) reach_error(); \
    if (s != s) return 1; return 0; }";

/// Residuals of cut explicit runs: Res holds, they compile with `gcc -c` in both data models
/// and read back as programs that end the same way.
#[test]
fn residuals_satisfy_res_compile_and_read_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let gcc = have_gcc();
    let bug = vec![0x3ffe_8000_0000_0000_0000, 10];
    let mut violations = Vec::new();
    let mut tally = res_check::Tally::default();
    for model in [DataModel::ILP32, DataModel::LP64] {
        let p = program(LOOP, model);
        assert!(
            replay_to_error(&p, &bug).is_some(),
            "the bug input reaches the error"
        );
        let mut inputs = res_check::input_lists(&p, 0x1d, 40);
        inputs.push(bug.clone());
        for give_up in ["path-length=20", "reached-states=30", "repeating-locations=3"] {
            let label = format!("loop ({model}) / explicit {give_up}");
            let residual = res_check::residual_of_cut_explicit_run(
                &label,
                &p,
                give_up,
                &inputs,
                &mut violations,
                &mut tally,
            );
            let c = emit_c(&residual);
            assert!(c.contains("long double"), "{label}:\n{c}");
            if gcc {
                if let Err(stderr) = gcc_compiles(&c, "residual", model, dir.path()) {
                    panic!("{label}: the residual does not compile:\n{stderr}\n{c}");
                }
            }
            let back = load_source("residual.c", &c, model).unwrap_or_else(|e| panic!("{label}: {e}\n{c}"));
            for list in &inputs {
                let a = execute(&residual, list, &ExecOptions::default());
                let b = execute(&back, list, &ExecOptions::default());
                assert_eq!(
                    (res_check::outcome(&a), a.nondet_values),
                    (res_check::outcome(&b), b.nondet_values),
                    "{label} on {list:?}"
                );
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
    assert!(tally.covered > 0 && tally.covered < tally.runs, "{tally:?}");
    assert!(tally.residual_errors > 0, "{tally:?}");
}

/// `baton verify --witness` writes the counterexample's `long double` as an exact `L` literal
/// (YAML and GraphML), and `baton validate` confirms it.
#[test]
fn violation_witnesses_carry_exact_long_double_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let body = PROGRAMS
        .iter()
        .find(|p| p.0 == "half an ulp ties to even")
        .map(|p| p.3)
        .expect("program");
    let file = dir.path().join("ulp.c");
    std::fs::write(&file, format!("{PRELUDE}{body}\n")).expect("write");
    let file = file.display().to_string();
    for (witness, model) in [("w.yml", "ILP32"), ("w.graphml", "LP64")] {
        let witness = dir.path().join(witness).display().to_string();
        let baton = |args: &[&str]| {
            let out = Command::new(env!("CARGO_BIN_EXE_baton"))
                .args(args)
                .args(["--data-model", model])
                .output()
                .expect("baton runs");
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let verdict = baton(&["verify", &file, "--analysis", "predicate", "--witness", &witness]);
        assert!(verdict.contains("false(unreach-call)"), "{verdict}");
        let text = std::fs::read_to_string(&witness).expect("witness");
        assert!(
            text.contains("\\result == (0x1.") && text.contains("L)"),
            "{text}"
        );
        let validated = baton(&["validate", &file, &witness]);
        assert!(validated.contains("Confirmed"), "{validated}");
    }
}
