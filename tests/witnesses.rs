//! Witnesses (SV-COMP format 2.0) and `baton validate`: every `true` and `false` of the native
//! analyses comes with a witness that is structurally valid (a JSON Schema written from the
//! format's specification, `tests/data/witness-2.0.schema.json`) and that Baton's validator
//! confirms; mutated witnesses (wrong value, wrong line, non-inductive invariant) are never
//! confirmed; malformed witnesses are errors naming file and line.

#[path = "support/cli.rs"]
mod cli;
#[path = "support/shared.rs"]
mod shared;
#[path = "support/tools.rs"]
mod tools;
#[path = "support/witnessing.rs"]
mod witnessing;

use baton::analyses::AnalysisKind;
use baton::cfa::Program;
use baton::frontend::load_program;
use baton::task::Task;
use baton::verdict::Verdict;
use baton::witness::validate::Judgement;
use baton::witness::{write_witness, Evidence, WitnessFormat};
use cli::baton;
use std::path::Path;
use witnessing::{analyse, never_confirmed, program, schema_errors, validate, validate_both_ways, witness};

/// Safe: `up + down == 0` holds at the loop head (line 7).
const SAFE_LOOP: &str = "extern unsigned int __VERIFIER_nondet_uint(void);
void reach_error(void) {}
int main(void) {
  unsigned int rounds = __VERIFIER_nondet_uint();
  int up = 0;
  int down = 0;
  while (rounds > 0) {
    up = up + 1;
    down = down - 1;
    rounds--;
  }
  if (up + down != 0) {
    reach_error();
  }
  return 0;
}
";

const BOUNDED_LOOP: &str = "extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int g;
int main(void) {
  int s = 0;
  for (int i = 0; i < 6; i++) {
    s += 2;
    g = i;
  }
  if (s != 12) {
    reach_error();
  }
  return 0;
}
";

/// The bug needs a = 17 and b > a (the values a witness gives at lines 4 and 5), the error
/// call is at line 11.
const UNSAFE: &str = "extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int main(void) {
  int a = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  int s = 0;
  for (int i = 0; i < 3; i++) {
    s += i;
  }
  if (a == 17 && b > a && s == 3) {
    reach_error();
  }
  return 0;
}
";

/// The explicit analysis verifies the `a > 5` branch and gives up in the loop (path-length
/// 20); the bug (b = 42) is on the residual program.
const SPLIT_BUG: &str = "extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int main(void) {
  int a = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  if (a > 5) {
    if (a < 3) {
      reach_error();
    }
  } else {
    int k = 0;
    while (k < 8) {
      k++;
    }
    if (b == 42 && k == 8) {
      reach_error();
    }
  }
  return 0;
}
";

#[test]
fn the_schema_rejects_what_the_format_forbids() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, p) = program(dir.path(), "unsafe.c", UNSAFE);
    let text = witness(
        &p,
        &analyse(AnalysisKind::Predicate, &p, "20s"),
        &dir.path().join("w.yml"),
    );
    assert!(schema_errors(&text).is_empty(), "{:?}", schema_errors(&text));
    for (from, to) in [
        ("type: target", "type: goal"),
        ("action: follow", "action: maybe"),
        ("format_version: '2.0'", "format_version: '1.0'"),
        ("line: 4", "line: 0"),
    ] {
        let broken = text.replacen(from, to, 1);
        assert!(!schema_errors(&broken).is_empty(), "`{to}` passes the schema");
    }
}

#[test]
fn witnesses_of_both_analyses_validate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        ("safe_loop.c", SAFE_LOOP, AnalysisKind::Predicate, Verdict::True),
        ("bounded.c", BOUNDED_LOOP, AnalysisKind::Explicit, Verdict::True),
        ("bounded.c", BOUNDED_LOOP, AnalysisKind::Predicate, Verdict::True),
        ("unsafe.c", UNSAFE, AnalysisKind::Explicit, Verdict::False),
        ("unsafe.c", UNSAFE, AnalysisKind::Predicate, Verdict::False),
    ];
    for (name, text, kind, expected) in cases {
        let (_, p) = program(dir.path(), name, text);
        let outcome = analyse(kind, &p, "20s");
        assert_eq!(outcome.verdict, expected, "{name} {kind:?}: {}", outcome.reason);
        let w = witness(&p, &outcome, &dir.path().join("w.yml"));
        assert!(schema_errors(&w).is_empty(), "{name}: {:?}", schema_errors(&w));
        let v = validate_both_ways(&p, &w);
        assert_eq!(
            v.judgement,
            Judgement::Confirmed,
            "{name} {kind:?}: {}\n{w}",
            v.reason
        );
    }
}

/// Mutations of valid witnesses are refuted or unknown, never confirmed.
#[test]
fn mutated_witnesses_are_never_confirmed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, unsafe_p) = program(dir.path(), "unsafe.c", UNSAFE);
    let violation = witness(
        &unsafe_p,
        &analyse(AnalysisKind::Predicate, &unsafe_p, "20s"),
        &dir.path().join("v.yml"),
    );
    assert!(violation.contains("\\result == 17"), "{violation}");
    // `b`'s value: any the solver chose above `a`.
    let b_value = violation
        .lines()
        .filter_map(|l| {
            l.split_once("\\result == ")
                .map(|(_, v)| v.trim_matches(|c| c == '"' || c == '\'' || c == ' '))
        })
        .nth(1)
        .map(|v| format!("\\result == {v}"))
        .expect("a value for b");
    let (_, safe_p) = program(dir.path(), "safe_loop.c", SAFE_LOOP);
    let correctness = witness(
        &safe_p,
        &analyse(AnalysisKind::Predicate, &safe_p, "20s"),
        &dir.path().join("c.yml"),
    );
    let invariant = correctness
        .lines()
        .find(|l| l.trim_start().starts_with("value: "))
        .expect("an invariant")
        .trim_start()
        .to_string();
    let mutations: [(&Program, &str, &str, &str); 8] = [
        (&unsafe_p, &violation, "\\result == 17", "\\result == 16"),
        (&unsafe_p, &violation, &b_value, "\\result == 17"),
        (&unsafe_p, &violation, "line: 4", "line: 6"),
        (&unsafe_p, &violation, "line: 11", "line: 12"),
        // Holds on entry, not inductive.
        (&safe_p, &correctness, &invariant, "value: up == 0"),
        // Inductive, but does not imply safety.
        (&safe_p, &correctness, &invariant, "value: down <= 0"),
        // False on entry.
        (&safe_p, &correctness, &invariant, "value: up + down == 1"),
        (&safe_p, &correctness, "line: 7", "line: 8"),
    ];
    for (p, text, from, to) in mutations {
        never_confirmed(p, text, from, to);
    }
    // An invariant that is false on the first loop entry is refuted.
    let v = validate_both_ways(
        &safe_p,
        &correctness.replacen(&invariant, "value: up + down == 1", 1),
    );
    assert_eq!(v.judgement, Judgement::Refuted, "{}", v.reason);
}

/// The sum of `x`'s digits in base `d + 1 = 2^b` has `x`'s remainder modulo `d`. The predicate
/// analysis proves it with predicates over `x % d` at the outer loop head (line 13), while its
/// invariant at the inner loop head is `1`: from there, the outer invariant is required also
/// where `d == 0`, where `x % d` is undefined.
const DIGIT_SUM: &str = "extern unsigned int __VERIFIER_nondet_uint(void);
void reach_error(void) {}
int main(void) {
  unsigned int x = __VERIFIER_nondet_uint();
  unsigned int b = __VERIFIER_nondet_uint();
  unsigned int d;
  unsigned int t;
  if (b == 0 || b > 16) {
    return 0;
  }
  d = (1u << b) - 1u;
  t = x;
  while (x > d) {
    t = 0;
    while (x != 0) {
      t = t + (x & d);
      x = x >> b;
    }
    x = t;
  }
  if (t == d) {
    t = 0;
  }
  if (t != x % d) {
    reach_error();
  }
  return 0;
}
";

/// An invariant is one Boolean function of the state: where `x % d` is undefined (`d == 0`),
/// the validator gives it one fixed value, so the analysis' invariant (which holds there for
/// some value of `x % d`) is confirmed; mutations that are not inductive are still not.
#[test]
fn invariants_over_a_division_by_zero_validate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, p) = program(dir.path(), "digit_sum.c", DIGIT_SUM);
    let outcome = analyse(AnalysisKind::Predicate, &p, "60s");
    assert_eq!(outcome.verdict, Verdict::True, "{}", outcome.reason);
    let text = witness(&p, &outcome, &dir.path().join("w.yml"));
    let outer = text
        .lines()
        .find(|l| l.trim_start().starts_with("value: ") && l.contains("(x % d)"))
        .unwrap_or_else(|| panic!("no invariant over `x % d`:\n{text}"))
        .trim_start()
        .to_string();
    let v = validate(&p, &text);
    assert_eq!(v.judgement, Judgement::Confirmed, "{}\n{text}", v.reason);
    let guarded = format!("value: d != 0 && ({})", &outer["value: ".len()..]);
    for mutated in [
        // True on the loop's first entry, but the inner loop's `1` allows `d == 0`.
        guarded.as_str(),
        // False on entry (`x` above `d`).
        "value: t == x % d",
        // Not inductive where `d == 0`: `x % d` has one value there.
        "value: d == 0 && t != x % d || d != 0",
    ] {
        let v = validate(&p, &text.replacen(&outer, mutated, 1));
        assert_ne!(
            v.judgement,
            Judgement::Confirmed,
            "`{mutated}` confirmed: {}",
            v.reason
        );
    }
}

/// A violation witness names the branches of its run (`branching` waypoints on the original
/// program's lines, in the run's order); validation checks them: flipping any one of them is
/// never confirmed.
#[test]
fn branching_waypoints_are_written_and_checked() {
    use baton::witness::format::{parse, to_yaml, WaypointKind};
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, p) = program(dir.path(), "unsafe.c", UNSAFE);
    let text = witness(
        &p,
        &analyse(AnalysisKind::Predicate, &p, "20s"),
        &dir.path().join("v.yml"),
    );
    assert!(schema_errors(&text).is_empty(), "{:?}", schema_errors(&text));
    assert_eq!(validate(&p, &text).judgement, Judgement::Confirmed);
    let entries = parse(&text, "v.yml").expect("parses");
    let branches: Vec<(usize, u32, String)> = entries[0]
        .content
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let w = &c.segment.as_ref()?.last()?.waypoint;
            (w.kind == WaypointKind::Branching).then(|| {
                (
                    i,
                    w.location.line,
                    w.constraint.as_ref().expect("constraint").value.clone(),
                )
            })
        })
        .collect();
    // The loop condition (line 7) three times true, then false; the `if` (line 10) true.
    let seen: Vec<(u32, &str)> = branches.iter().map(|(_, l, v)| (*l, v.as_str())).collect();
    assert_eq!(
        seen,
        [(7, "true"), (7, "true"), (7, "true"), (7, "false"), (10, "true")],
        "{text}"
    );
    for (i, line, value) in &branches {
        let mut mutated = entries.clone();
        let segment = mutated[0].content[*i].segment.as_mut().expect("segment");
        let constraint = segment
            .last_mut()
            .expect("waypoint")
            .waypoint
            .constraint
            .as_mut()
            .expect("constraint");
        constraint.value = if value == "true" {
            "false".into()
        } else {
            "true".into()
        };
        let v = validate(&p, &to_yaml(&mutated));
        assert_ne!(
            v.judgement,
            Judgement::Confirmed,
            "branching waypoint {i} at line {line} flipped, confirmed: {}",
            v.reason
        );
    }
}

/// Floating-point nondet values: the witness gives them as exact hexadecimal literals, and
/// `baton validate` reads those, decimal constants and casts exactly.
#[test]
fn float_values_validate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, p) = program(
        dir.path(),
        "floats.c",
        "extern double __VERIFIER_nondet_double(void);
extern float __VERIFIER_nondet_float(void);
void reach_error(void) {}
int main(void) {
  double x = __VERIFIER_nondet_double();
  float y = __VERIFIER_nondet_float();
  if (x > 2.5 && x < 3.5 && y < -1.0f) {
    reach_error();
  }
  return 0;
}
",
    );
    let values = vec![i128::from(3.0f64.to_bits()), i128::from((-2.0f32).to_bits())];
    let file = dir.path().join("floats.yml");
    write_witness(Some(&p), &Evidence::Values(values), &file, WitnessFormat::Yaml).expect("written");
    let text = std::fs::read_to_string(&file).expect("witness");
    assert!(text.contains("\\result == (0x1.8000000000000p+1)"), "{text}");
    assert!(text.contains("\\result == (-0x1.000000p+1f)"), "{text}");
    assert!(schema_errors(&text).is_empty(), "{:?}", schema_errors(&text));
    let v = validate(&p, &text);
    assert_eq!(v.judgement, Judgement::Confirmed, "{}", v.reason);
    let confirmed = [
        ("(0x1.8000000000000p+1)", "3.0"),
        ("(0x1.8000000000000p+1)", "(double)3"),
        ("(-0x1.000000p+1f)", "(float)-2.0"),
        ("(-0x1.000000p+1f)", "-2"),
    ];
    for (from, to) in confirmed {
        let v = validate(&p, &text.replacen(from, to, 1));
        assert_eq!(v.judgement, Judgement::Confirmed, "{from} → {to}: {}", v.reason);
    }
    // 2.5 is not above 2.5; no float is the double 0.1; -0.5 is not below -1.
    for (from, to) in [
        ("(0x1.8000000000000p+1)", "2.5"),
        ("(-0x1.000000p+1f)", "0.1"),
        ("(-0x1.000000p+1f)", "-0x1p-1f"),
    ] {
        let v = validate(&p, &text.replacen(from, to, 1));
        assert_ne!(v.judgement, Judgement::Confirmed, "{from} → {to}: {}", v.reason);
    }
}

/// A GraphML violation witness without values (a tool's `control` edges) is validated by the
/// search along its edges; the wrong branch is never confirmed.
#[test]
fn graphml_witnesses_without_values_guide_the_search() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, p) = program(dir.path(), "unsafe.c", UNSAFE);
    let graphml = |taken: &str, other: &str| {
        format!(
            r#"<graphml><graph>
<node id="N0"><data key="entry">true</data></node>
<node id="N1"/>
<node id="N2"><data key="violation">true</data></node>
<node id="S"><data key="sink">true</data></node>
<edge source="N0" target="N1"><data key="startline">10</data><data key="control">condition-{taken}</data></edge>
<edge source="N0" target="S"><data key="startline">10</data><data key="control">condition-{other}</data></edge>
<edge source="N1" target="N2"><data key="startline">11</data></edge>
</graph></graphml>
"#
        )
    };
    let v = validate(&p, &graphml("true", "false"));
    assert_eq!(v.judgement, Judgement::Confirmed, "{}", v.reason);
    let values = v.values.expect("the values found");
    assert_eq!(values.first(), Some(&17), "{values:?}");
    let v = validate(&p, &graphml("false", "true"));
    assert_ne!(v.judgement, Judgement::Confirmed, "{}", v.reason);
}

#[test]
fn malformed_witnesses_are_errors_with_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (prog, p) = program(dir.path(), "unsafe.c", UNSAFE);
    let good = witness(
        &p,
        &analyse(AnalysisKind::Predicate, &p, "20s"),
        &dir.path().join("w.yml"),
    );
    let cases = [
        ("syntax.yml", good.replacen("  content:", "  content: [", 1)),
        ("missing.yml", good.replacen("    uuid:", "    uuid_:", 1)),
        (
            "entry.yml",
            good.replacen("violation_sequence", "proof_sketch", 1),
        ),
        ("order.yml", good.replacen("type: target", "type: assumption", 1)),
        ("empty.yml", "[]\n".to_string()),
        (
            "broken.graphml",
            "<graphml>\n<graph>\n<edge></graph>\n".to_string(),
        ),
    ];
    for (name, text) in cases {
        let file = dir.path().join(name);
        std::fs::write(&file, text).expect("write witness");
        let (code, _, err) = baton(&[
            "validate",
            &prog.display().to_string(),
            &file.display().to_string(),
        ]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(name), "{name}: the error names no file: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    // YAML errors name the line.
    let file = dir.path().join("syntax.yml");
    let (_, _, err) = baton(&[
        "validate",
        &prog.display().to_string(),
        &file.display().to_string(),
    ]);
    assert!(err.contains("syntax.yml:"), "{err}");
}

#[test]
fn verify_and_run_write_witnesses_that_validate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (safe, _) = program(dir.path(), "safe_loop.c", SAFE_LOOP);
    let (bug, _) = program(dir.path(), "unsafe.c", UNSAFE);
    let flow = dir.path().join("predicate.yaml");
    std::fs::write(
        &flow,
        "flow: predicate\nstages:\n  - name: predicate\n    tool: predicate\n    budget: { cpu_time: 30s }\n",
    )
    .expect("write flow");
    for program in [&safe, &bug] {
        let w = dir.path().join("verify.yml");
        let (code, out, err) = baton(&[
            "verify",
            &program.display().to_string(),
            "--analysis",
            "predicate",
            "--witness",
            &w.display().to_string(),
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("witness: "), "{out}");
        let (code, out, err) = baton(&[
            "validate",
            &program.display().to_string(),
            &w.display().to_string(),
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("Confirmed"), "{out}");

        let w = dir.path().join("run.yml");
        let (code, out, err) = baton(&[
            "run",
            &flow.display().to_string(),
            &program.display().to_string(),
            "--witness",
            &w.display().to_string(),
        ]);
        assert_eq!(code, 0, "{err}");
        // The report names the file the user gets, never a stage's own file in the work
        // directory (deleted when the flow ends): in the text and in the JSON.
        let named = out.lines().find_map(|l| l.strip_prefix("witness: "));
        let given = w.display().to_string();
        assert!(named.is_some_and(|n| n.contains(&given)), "{out}");
        let report = run_flow(&flow, program, &w);
        let named = report["witness"].as_str().unwrap_or_default();
        assert!(named.contains(&given), "{report}");
        let json = validate_cli(program, &w);
        assert_eq!(json["judgement"], "confirmed", "{json}");
    }
    // GraphML on request.
    let w = dir.path().join("bug.graphml");
    let (code, _, err) = baton(&[
        "verify",
        &bug.display().to_string(),
        "--witness",
        &w.display().to_string(),
    ]);
    assert_eq!(code, 0, "{err}");
    let graphml = std::fs::read_to_string(&w).expect("graphml");
    assert!(graphml.contains("violation_witness"), "{graphml}");
    assert!(
        graphml.contains("<data key=\"control\">condition-true</data>"),
        "{graphml}"
    );
    let (_, out, _) = baton(&["validate", &bug.display().to_string(), &w.display().to_string()]);
    assert!(out.contains("Confirmed"), "{out}");
}

/// `baton validate PROGRAM WITNESS --json`: its JSON judgement.
fn validate_cli(program: &Path, witness: &Path) -> serde_json::Value {
    let (_, out, err) = baton(&[
        "validate",
        &program.display().to_string(),
        &witness.display().to_string(),
        "--json",
    ]);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"))
}

/// `baton run FLOW PROGRAM --witness WITNESS --json`: its JSON report (the run must succeed).
fn run_flow(flow: &Path, program: &Path, witness: &Path) -> serde_json::Value {
    let (code, out, err) = baton(&[
        "run",
        &flow.display().to_string(),
        &program.display().to_string(),
        "--witness",
        &witness.display().to_string(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("JSON")
}

/// A `true` decided on a residual program (or with a guide) gets a correctness witness of the
/// original program, derived there and validated before it is written.
#[test]
fn a_true_on_a_residual_program_gets_a_validated_witness() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (safe, _) = program(dir.path(), "safe_loop.c", SAFE_LOOP);
    for input in ["reduce", "guide"] {
        let flow = dir.path().join(format!("explicit-then-predicate-{input}.yaml"));
        std::fs::write(
            &flow,
            format!("flow: e-p\nbudget: {{ cpu_time: 60s }}\nstages:\n  - name: explicit\n    tool: explicit\n    give_up: {{ path-length: 20 }}\n  - name: predicate\n    tool: predicate\n    input: {input}\n"),
        )
        .expect("write flow");
        let w = dir.path().join(format!("{input}.yml"));
        let report = run_flow(&flow, &safe, &w);
        let out = report.to_string();
        assert_eq!(report["verdict"], "true", "{out}");
        assert_eq!(report["deciding_stage"], "predicate", "{out}");
        let expected_input = if input == "reduce" { "residual" } else { "guide" };
        assert_eq!(report["stages"][1]["input"], expected_input, "{out}");
        let note = report["witness"].as_str().expect("witness note");
        assert!(
            note.starts_with("correctness witness") && note.contains("validated"),
            "{note}"
        );
        assert!(
            report["witness_cpu_time_s"].as_f64().expect("witness CPU") > 0.0,
            "{out}"
        );
        let text = std::fs::read_to_string(&w).expect("witness written");
        assert!(schema_errors(&text).is_empty(), "{:?}", schema_errors(&text));
        assert!(text.contains("invariant_set"), "{text}");
        let (_, out, _) = baton(&["validate", &safe.display().to_string(), &w.display().to_string()]);
        assert!(out.contains("Confirmed"), "{out}");
    }
}

/// An external tool's `false` gets a violation witness on the original program (from the values
/// Baton replayed), even when the tool ran on a residual program.
#[test]
fn an_external_false_on_a_residual_program_gets_a_witness() {
    if !tools::cbmc_installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (bug, _) = program(dir.path(), "split.c", SPLIT_BUG);
    let flow = dir.path().join("explicit-then-cbmc.yaml");
    std::fs::write(
        &flow,
        "flow: e-c\nbudget: { cpu_time: 60s }\nstages:\n  - name: explicit\n    tool: explicit\n    give_up: { path-length: 20 }\n  - name: bmc\n    tool: cbmc\n    input: reduce\n    options: { unwind: 12 }\n",
    )
    .expect("write flow");
    let w = dir.path().join("w.yml");
    let report = run_flow(&flow, &bug, &w);
    let out = report.to_string();
    assert_eq!(report["verdict"], "false(unreach-call)", "{out}");
    assert_eq!(report["deciding_stage"], "bmc", "{out}");
    assert_eq!(report["stages"][1]["input"], "residual", "{out}");
    let text = std::fs::read_to_string(&w).expect("witness written");
    assert!(schema_errors(&text).is_empty(), "{:?}", schema_errors(&text));
    let (_, out, _) = baton(&["validate", &bug.display().to_string(), &w.display().to_string()]);
    assert!(out.contains("Confirmed"), "{out}");
}

/// Every definite verdict of both analyses on the papers' shared tasks (short give-ups): its
/// witness passes the schema and Baton's validator confirms it.
#[test]
fn shared_task_witnesses_validate() {
    let Some(dir) = shared::benchmarks() else { return };
    let tasks = shared::paper_tasks(&dir);
    let work = tempfile::tempdir().expect("tempdir");
    let mut failures = Vec::new();
    let (mut trues, mut falses) = (0, 0);
    for (i, (_, name, file)) in tasks.iter().enumerate() {
        let task = Task::load(file, Default::default()).expect("task loads");
        let Ok(p) = load_program(&task.program, task.data_model) else {
            continue;
        };
        for kind in [AnalysisKind::Explicit, AnalysisKind::Predicate] {
            let outcome = analyse(kind, &p, "2s");
            if !outcome.verdict.is_definite() {
                continue;
            }
            let text = witness(&p, &outcome, &work.path().join(format!("{i}-{kind:?}.yml")));
            let errors = schema_errors(&text);
            if !errors.is_empty() {
                failures.push(format!("{name} {kind:?}: schema: {errors:?}"));
            }
            let v = validate(&p, &text);
            match outcome.verdict {
                Verdict::True => trues += 1,
                _ => falses += 1,
            }
            if v.judgement != Judgement::Confirmed {
                failures.push(format!(
                    "{name} {kind:?} {}: {:?}: {}",
                    outcome.verdict, v.judgement, v.reason
                ));
            }
        }
    }
    println!("{trues} correctness and {falses} violation witnesses checked");
    assert!(trues + falses > 0, "no definite verdict on the shared tasks");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Flows on shared tasks (short limits): every definite verdict a flow reports — a `true` of a
/// later stage on a residual program (its witness derived on the original), a `false` of a
/// native stage on a residual program or of CBMC — carries a witness that passes the schema
/// and that `baton validate` confirms on the original program. token_ring.03 is proved on its
/// residual program, and its derived invariant (over 50 cubes) is confirmed within the flow's
/// budget only by checking it cube by cube.
#[test]
fn shared_task_flow_witnesses_validate() {
    let Some(dir) = shared::benchmarks() else { return };
    let work = tempfile::tempdir().expect("tempdir");
    let explicit_then_predicate = "flow: e-p\nbudget: { cpu_time: 60s, memory: 4GB }\nstages:\n  - name: explicit\n    tool: explicit\n    give_up: { reached-states: 200 }\n  - name: predicate\n    tool: predicate\n    input: reduce\n";
    let explicit_then_predicate_25s = "flow: e-p-25s\nbudget: { cpu_time: 60s, memory: 4GB }\nstages:\n  - name: explicit\n    tool: explicit\n    give_up: { cpu-time: 3s }\n  - name: predicate\n    tool: predicate\n    give_up: { cpu-time: 25s }\n    input: reduce\n";
    let predicate_then_cbmc = "flow: p-c\nbudget: { cpu_time: 60s, memory: 4GB }\nstages:\n  - name: predicate\n    tool: predicate\n    give_up: { reached-states: 200 }\n  - name: cbmc\n    tool: cbmc\n    budget: { cpu_time: 20s }\n    options: { unwind: 10 }\n    input: reduce\n";
    let mut runs = vec![
        (explicit_then_predicate, "systemc/token_ring.01.cil-1.yml"),
        (explicit_then_predicate, "systemc/token_ring.01.cil-2.yml"),
        (explicit_then_predicate, "systemc/kundu1.cil.yml"),
        (explicit_then_predicate_25s, "systemc/token_ring.03.cil-2.yml"),
    ];
    if tools::cbmc_installed() {
        runs.push((predicate_then_cbmc, "systemc/token_ring.01.cil-2.yml"));
    }
    let (mut residual_trues, mut falses, mut failures) = (0, 0, Vec::new());
    for (i, (flow_text, task)) in runs.iter().enumerate() {
        let flow = work.path().join(format!("flow-{i}.yaml"));
        std::fs::write(&flow, flow_text).expect("write flow");
        let task = dir.join("c").join(task);
        let w = work.path().join(format!("witness-{i}.yml"));
        let report = run_flow(&flow, &task, &w);
        let name = format!("{} on {}", report["flow"], task.display());
        match report["verdict"].as_str() {
            Some("true") => {
                let decided_on = report["stages"]
                    .as_array()
                    .and_then(|s| s.iter().find(|r| r["name"] == report["deciding_stage"]))
                    .map(|r| r["input"].clone());
                if decided_on.as_ref().and_then(|i| i.as_str()) == Some("residual") {
                    residual_trues += 1;
                } else if task.ends_with("token_ring.03.cil-2.yml") {
                    failures.push(format!("{name}: not decided on a residual program: {report}"));
                }
            }
            Some("false(unreach-call)") => falses += 1,
            _ if task.ends_with("token_ring.03.cil-2.yml") => {
                failures.push(format!("{name}: no definite verdict: {report}"));
                continue;
            }
            _ => continue,
        }
        let Ok(text) = std::fs::read_to_string(&w) else {
            failures.push(format!("{name}: no witness: {}", report["witness"]));
            continue;
        };
        let errors = schema_errors(&text);
        if !errors.is_empty() {
            failures.push(format!("{name}: schema: {errors:?}"));
        }
        let v = validate_cli(&task, &w);
        if v["judgement"] != "confirmed" {
            failures.push(format!("{name}: {}: {}", v["judgement"], v["reason"]));
        }
    }
    println!("{residual_trues} trues on residual programs and {falses} falses checked");
    assert!(residual_trues > 0, "no true decided on a residual program");
    assert!(falses > 0, "no false");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `m == 84` needs `twice` to return 84 (line 6), so the nondet value at line 5 is 42.
const CALLS: &str = "extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int twice(int x) { return 2 * x; }
int main(void) {
  int n = __VERIFIER_nondet_int();
  int m = twice(n);
  if (m == 84) {
    reach_error();
  }
  return 0;
}
";

/// A violation witness (format 2.0) with one segment per `(type, action, line, constraint)`,
/// as a tool writes it that gives waypoints rather than (all) values.
/// A waypoint: type, action, line, constraint.
type Wp = (&'static str, &'static str, u32, Option<&'static str>);

fn waypoint_witness(file: &str, waypoints: &[Vec<Wp>]) -> String {
    let mut text = format!(
        "- entry_type: violation_sequence
  metadata:
    format_version: '2.0'
    uuid: 0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9
    creation_time: '2026-11-25T04:00:00Z'
    producer: {{ name: Handwritten, version: '1' }}
    task:
      input_files: [{file}]
      input_file_hashes: {{ {file}: '0' }}
      specification: G ! call(reach_error())
      data_model: ILP32
      language: C
  content:
"
    );
    for segment in waypoints {
        text.push_str("  - segment:\n");
        for (kind, action, line, constraint) in segment.iter() {
            let constraint =
                constraint.map_or(String::new(), |c| format!(", constraint: {{ value: '{c}' }}"));
            text.push_str(&format!(
                "    - waypoint: {{ type: {kind}, action: {action}, location: {{ file_name: {file}, line: {line} }}{constraint} }}\n"
            ));
        }
    }
    text
}

/// Witnesses without (complete) values are validated by the explicit analysis along their
/// waypoints; a confirmation comes with values that replay to the error, and wrong waypoints
/// are never confirmed (refuted where nothing is matched heuristically).
#[test]
fn waypoints_guide_validation_without_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, unsafe_p) = program(dir.path(), "unsafe.c", UNSAFE);
    let (_, calls_p) = program(dir.path(), "calls.c", CALLS);
    let target = |line| -> Wp { ("target", "follow", line, None) };
    let confirmed: [(&Program, &str, Vec<Vec<Wp>>); 6] = [
        (&unsafe_p, "unsafe.c", vec![vec![target(11)]]),
        (
            &unsafe_p,
            "unsafe.c",
            vec![
                vec![("function_return", "follow", 4, Some("\\result == 17"))],
                vec![target(11)],
            ],
        ),
        (
            &unsafe_p,
            "unsafe.c",
            vec![vec![("branching", "follow", 10, Some("true"))], vec![target(11)]],
        ),
        (
            &unsafe_p,
            "unsafe.c",
            vec![
                vec![("assumption", "follow", 10, Some("b == 100 && a == 17"))],
                vec![target(11)],
            ],
        ),
        (
            &calls_p,
            "calls.c",
            vec![
                vec![("function_enter", "follow", 6, None)],
                vec![("function_return", "follow", 6, Some("\\result == 84"))],
                vec![target(8)],
            ],
        ),
        // An avoid waypoint the violation does not pass.
        (
            &unsafe_p,
            "unsafe.c",
            vec![
                vec![("branching", "follow", 10, Some("true"))],
                vec![("branching", "avoid", 10, Some("false")), target(11)],
            ],
        ),
    ];
    for (p, file, segments) in confirmed {
        let text = waypoint_witness(file, &segments);
        let v = validate(p, &text);
        assert_eq!(v.judgement, Judgement::Confirmed, "{}\n{text}", v.reason);
        let values = v.values.expect("a confirmation gives its values");
        let run = baton::cfa::interpreter::execute(p, &values, &Default::default());
        assert!(run.ending.is_error(), "{values:?}: {}", run.ending);
        if text.contains("b == 100") {
            assert_eq!(values, vec![17, 100], "{}", v.reason);
        }
        if file == "calls.c" {
            assert_eq!(values, vec![42], "{}", v.reason);
        }
    }
    let wrong: [(&Program, &str, Vec<Vec<Wp>>, Judgement); 6] = [
        (
            &unsafe_p,
            "unsafe.c",
            vec![
                vec![("function_return", "follow", 4, Some("\\result == 16"))],
                vec![target(11)],
            ],
            Judgement::Refuted,
        ),
        (
            &unsafe_p,
            "unsafe.c",
            vec![
                vec![("assumption", "follow", 10, Some("a == 3"))],
                vec![target(11)],
            ],
            Judgement::Refuted,
        ),
        (
            &unsafe_p,
            "unsafe.c",
            vec![vec![("branching", "follow", 10, Some("false"))], vec![target(11)]],
            Judgement::Unknown,
        ),
        (
            &unsafe_p,
            "unsafe.c",
            vec![vec![("branching", "avoid", 10, Some("true")), target(11)]],
            Judgement::Unknown,
        ),
        (&unsafe_p, "unsafe.c", vec![vec![target(12)]], Judgement::Refuted),
        (
            &calls_p,
            "calls.c",
            vec![
                vec![("function_return", "follow", 6, Some("\\result == 85"))],
                vec![target(8)],
            ],
            Judgement::Refuted,
        ),
    ];
    for (p, file, segments, expected) in wrong {
        let text = waypoint_witness(file, &segments);
        let v = validate(p, &text);
        assert_eq!(v.judgement, expected, "{}\n{text}", v.reason);
    }
}
