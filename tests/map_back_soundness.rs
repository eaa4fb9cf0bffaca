//! Soundness of conditions mapped back from residual programs (`baton::condition::map_back`),
//! tested by execution, and a flow in which they make the accumulated condition grow.
//!
//! For own programs and for the Table II tasks: reduce by an accumulated condition `A`, emit
//! the residual as C and read it back as a tool does, run the explicit analysis on it (or take
//! CBMC's bounded condition of the residual CFA), map its condition back, and check on
//! deterministic random input lists (tests/support/map_check.rs) that every execution the
//! mapped condition covers is covered by `A` or, on the residual, by the residual condition,
//! and never reaches the error; then that the residual of `A ∪ mapped` still satisfies Res.

#[path = "support/map_check.rs"]
mod map_check;
#[path = "support/res_check.rs"]
mod res_check;
#[path = "support/shared.rs"]
mod shared;

use baton::adapters::bounded::{bounded_condition, DEFAULT_MAX_STATES};
use baton::analyses::{run_analysis, AnalysisKind, AnalysisOptions};
use baton::cfa::emit_c::emit_c;
use baton::cfa::types::DataModel;
use baton::cfa::Program;
use baton::condition::map_back::{map_back, map_back_residual};
use baton::condition::{union, ConditionAutomaton};
use baton::cpa::engine::SearchOrder;
use baton::cpa::monitor::GiveUp;
use baton::reducer::align::Alignment;
use baton::reducer::{reduce, Residual, DEFAULT_MAX_LOCATIONS};
use baton::task::Task;
use map_check::{check_mapped, MapTally};
use res_check::{check_res, input_lists, CoveredRuns, Tally};
use shared::{benchmarks, in_table, paper_tasks};
use std::path::{Path, PathBuf};
use std::process::Command;

const HEADER: &str = "extern void abort(void);\nextern void exit(int);\n\
void reach_error(void) {}\n\
extern int __VERIFIER_nondet_int(void);\nextern unsigned char __VERIFIER_nondet_uchar(void);\n\
extern void __VERIFIER_assume(int);\n";

/// Own test programs (name, body after [`HEADER`]): loops, inlined calls with several
/// parameters, `switch` and `goto`, `abort` and `exit`, assumptions, recursion the
/// accumulated conditions look inside.
const PROGRAMS: &[(&str, &str)] = &[
    (
        "counters",
        r#"
int main(void) {
  int n = __VERIFIER_nondet_int();
  int x = 0, y = 0;
  if (n > 30) return 0;
  while (x < n) { x++; if (__VERIFIER_nondet_int() == 3) y += 2; else y++; }
  if (y == x + 4) reach_error();
  return 0;
}
"#,
    ),
    (
        "calls",
        r#"
int mix(int a, int b, int c) {
  if (a > b) return a - c;
  return b + c;
}
int step(int s, int k) { return mix(s, k, 2) + 1; }
int main(void) {
  int s = 0;
  int i;
  for (i = 0; i < 4; i++) {
    int k = __VERIFIER_nondet_int();
    if (k < -5 || k > 5) abort();
    s = step(s, k);
  }
  if (s == 23) reach_error();
  return s;
}
"#,
    ),
    (
        "machine",
        r#"
int main(void) {
  int state = 0, steps = 0;
again:
  steps++;
  if (steps > 12) goto out;
  switch (__VERIFIER_nondet_uchar() % 4) {
    case 0: state = 0; break;
    case 1: if (state == 0) state = 1; break;
    case 2: if (state == 1) state = 2; else state = 0; break;
    default: if (state == 2) exit(3);
  }
  goto again;
out:
  if (state == 2 && steps == 99) reach_error();
  return state;
}
"#,
    ),
    (
        "assume",
        r#"
int main(void) {
  int a = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  int i = 0;
  __VERIFIER_assume(a >= 0 && a < 8);
  while (i < a) { b = b + i; i++; }
  if (a == 5 && b == 17) reach_error();
  return 0;
}
"#,
    ),
    (
        "recursion",
        r#"
int fact(int n) {
  if (n <= 1) return 1;
  int r = fact(n - 1);
  if (r > 100) return 0;
  return n * r;
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = 0;
  if (x == 2 || x == 7) y = fact(x);
  if (y == 2 && __VERIFIER_nondet_int() == 5) reach_error();
  return y;
}
"#,
    ),
];

fn load(name: &str, body: &str) -> Program {
    let text = format!("{HEADER}{body}");
    baton::frontend::load_source(&format!("{name}.c"), &text, DataModel::ILP32)
        .unwrap_or_else(|e| panic!("{name}: frontend rejected the test program: {e}"))
}

fn explicit(program: &Program, give_up: &str, order: SearchOrder) -> ConditionAutomaton {
    let give_up: Vec<GiveUp> = vec![give_up.parse().unwrap_or_else(|e| panic!("{e}"))];
    run_analysis(
        AnalysisKind::Explicit,
        program,
        &AnalysisOptions { give_up, order },
        None,
    )
    .condition
}

/// The residual's emitted C read back by the frontend, as `baton verify residual.c` does.
fn reread(name: &str, residual: &Residual, model: DataModel) -> Program {
    baton::frontend::load_source("residual.c", &emit_c(&residual.program), model)
        .unwrap_or_else(|e| panic!("{name}: the emitted residual does not read back: {e}"))
}

/// What one (accumulated, residual condition) pair is checked for.
struct Case<'a> {
    name: String,
    original: &'a Program,
    accumulated: &'a ConditionAutomaton,
    /// The residual condition and the program it is about (residual CFA or re-read CFA).
    condition: ConditionAutomaton,
    about: &'a Program,
    mapped: ConditionAutomaton,
}

/// Checks (m1), (m2) and Res of the residual of `accumulated ∪ mapped`.
fn check_case(
    case: &Case,
    inputs: &[Vec<i128>],
    steps: u64,
    map_tally: &mut MapTally,
    tally: &mut Tally,
) -> Vec<String> {
    let mut violations = check_mapped(
        &case.name,
        case.original,
        case.accumulated,
        &case.mapped,
        &case.condition,
        case.about,
        inputs,
        steps,
        map_tally,
    );
    let united = union(&[case.accumulated.clone(), case.mapped.clone()])
        .unwrap_or_else(|e| panic!("{}: union: {e}", case.name));
    match reduce(case.original, &united, DEFAULT_MAX_LOCATIONS) {
        Ok(next) => violations.extend(check_res(
            &format!("{} / residual of the union", case.name),
            case.original,
            &united,
            &next.program,
            inputs,
            steps,
            tally,
            CoveredRuns::MustBeCut,
        )),
        Err(e) => violations.push(format!("{}: reduce of the union failed: {e}", case.name)),
    }
    violations
}

fn report(violations: &[String]) {
    for v in violations.iter().take(10) {
        eprintln!("{}", v.chars().take(600).collect::<String>());
    }
    assert!(
        violations.is_empty(),
        "{} violations (first 10 above)",
        violations.len()
    );
}

#[test]
fn own_programs_mapped_conditions_are_sound() {
    let mut violations = Vec::new();
    let mut map_tally = MapTally::default();
    let mut tally = Tally::default();
    let mut unmatched = 0;
    for (k, (pname, body)) in PROGRAMS.iter().enumerate() {
        let program = load(pname, body);
        let inputs = input_lists(&program, 0x3a9 + k as u64, 60);
        let accumulated = [
            (
                "nothing".to_string(),
                ConditionAutomaton::nothing_verified(&program.hash),
            ),
            (
                "explicit path-length=6".into(),
                explicit(&program, "path-length=6", SearchOrder::Dfs),
            ),
            (
                "explicit reached-states=40".into(),
                explicit(&program, "reached-states=40", SearchOrder::Bfs),
            ),
            (
                "bounded 2".into(),
                bounded_condition(&program, 2, DEFAULT_MAX_STATES),
            ),
        ];
        for (alabel, a) in &accumulated {
            assert!(
                !a.is_trivial_full(),
                "{pname} / {alabel}: decided, nothing left to map"
            );
            let residual = reduce(&program, a, DEFAULT_MAX_LOCATIONS)
                .unwrap_or_else(|e| panic!("{pname} / {alabel}: reduce: {e}"));
            let reread = reread(pname, &residual, program.data_model);
            let alignment = Alignment::reparsed(&residual.program, &reread);
            assert!(alignment.prelude.is_some(), "{pname} / {alabel}: no prelude");
            unmatched += alignment.unmatched();
            let mut cases = Vec::new();
            for (give_up, order) in [
                ("reached-states=60", SearchOrder::Dfs),
                ("path-length=25", SearchOrder::Bfs),
                ("repeating-locations=2", SearchOrder::Dfs),
            ] {
                let condition = explicit(&reread, give_up, order);
                let mapped = map_back(&program, &residual, &alignment, &condition, 1_000_000)
                    .unwrap_or_else(|e| panic!("{pname}: map back: {e}"));
                cases.push((
                    format!("explicit {give_up} {order:?}"),
                    condition,
                    &reread,
                    mapped,
                ));
            }
            for unwind in [2, 3] {
                let condition = bounded_condition(&residual.program, unwind, DEFAULT_MAX_STATES);
                let mapped = map_back_residual(&program, &residual, &condition)
                    .unwrap_or_else(|e| panic!("{pname}: map back: {e}"));
                cases.push((format!("bounded {unwind}"), condition, &residual.program, mapped));
            }
            for (clabel, condition, about, mapped) in cases {
                let case = Case {
                    name: format!("{pname} / {alabel} / {clabel}"),
                    original: &program,
                    accumulated: a,
                    condition,
                    about,
                    mapped,
                };
                violations.extend(check_case(
                    &case,
                    &inputs,
                    res_check::ORIGINAL_STEPS,
                    &mut map_tally,
                    &mut tally,
                ));
            }
        }
    }
    report(&violations);
    println!("{map_tally:?}, {tally:?}, {unmatched} residual edges without spelling");
    // Not vacuous: the mapped conditions add coverage, and miss none of the residual
    // condition's complete executions (every residual edge of these programs is spelled).
    assert_eq!(unmatched, 0);
    assert!(map_tally.newly_covered > map_tally.runs / 10, "{map_tally:?}");
    assert_eq!(map_tally.missed, 0, "{map_tally:?}");
    assert!(
        tally.original_errors > 0 && tally.residual_errors > 0,
        "{tally:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Table II tasks

/// `(name, task yml path)` of the Table II tasks in MANIFEST.csv.
fn table_two(root: &Path) -> Vec<(String, PathBuf)> {
    paper_tasks(root)
        .into_iter()
        .filter(|(table, _, _)| in_table(table, "II"))
        .map(|(_, name, task)| (name, task))
        .collect()
}

/// comb-b's first two stages on every Table II task: `A` is CBMC's bounded condition for
/// unwind 1 (or a short explicit run's condition where that is empty), the residual condition
/// an explicit run on the re-read residual.
#[test]
fn table_two_mapped_conditions_are_sound() {
    let Some(root) = benchmarks() else { return };
    let tasks = table_two(&root);
    assert!(
        tasks.len() >= 44,
        "MANIFEST.csv lists {} Table II tasks",
        tasks.len()
    );
    let mut violations = Vec::new();
    let mut map_tally = MapTally::default();
    let mut tally = Tally::default();
    let mut unmatched = 0;
    let mut nonempty = 0;
    for (k, (name, yml)) in tasks.iter().enumerate() {
        let task = Task::load(yml, DataModel::ILP32).unwrap_or_else(|e| panic!("{e}"));
        let program = baton::frontend::load_program(&task.program, task.data_model)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut a = bounded_condition(&program, 1, DEFAULT_MAX_STATES);
        if a.is_trivial_empty() {
            a = explicit(&program, "reached-states=100", SearchOrder::Dfs);
        }
        if a.is_trivial_full() {
            continue;
        }
        let residual = match reduce(&program, &a, DEFAULT_MAX_LOCATIONS) {
            Ok(r) => r,
            Err(e) => {
                violations.push(format!("{name}: reduce failed: {e}"));
                continue;
            }
        };
        let reread = reread(name, &residual, program.data_model);
        let alignment = Alignment::reparsed(&residual.program, &reread);
        unmatched += alignment.unmatched();
        let condition = explicit(&reread, "reached-states=3000", SearchOrder::Dfs);
        let mapped = match map_back(&program, &residual, &alignment, &condition, 1_000_000) {
            Ok(m) => {
                nonempty += usize::from(!m.is_trivial_empty());
                m
            }
            Err(e) => {
                violations.push(format!("{name}: map back failed: {e}"));
                continue;
            }
        };
        let case = Case {
            name: name.clone(),
            original: &program,
            accumulated: &a,
            condition,
            about: &reread,
            mapped,
        };
        let inputs = input_lists(&program, 2000 + k as u64, 30);
        violations.extend(check_case(&case, &inputs, 30_000, &mut map_tally, &mut tally));
    }
    report(&violations);
    println!(
        "{} tasks, {nonempty} non-empty mapped conditions, {map_tally:?}, {tally:?}, {unmatched} residual edges without spelling",
        tasks.len()
    );
    assert!(map_tally.newly_covered > 0 && nonempty > 0, "{map_tally:?}");
}

// ---------------------------------------------------------------------------------------------
// A flow

/// Three independent parts: `mode == 1` is verified by a short explicit run, `mode == 2`
/// (a 30-iteration loop) only by a longer one; the rest (`x == y` after the loop, which the
/// explicit analysis cannot track from an unknown `x`) needs the predicate analysis.
const THREE_PARTS: &str = r#"extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int main(void) {
  int mode = __VERIFIER_nondet_int();
  if (mode == 1) { int i = 0; while (i < 3) i++; if (i != 3) reach_error(); return 0; }
  if (mode == 2) {
    int j = 0;
    while (j < 30) j++;
    if (j != 30) reach_error();
    return 0;
  }
  int n = __VERIFIER_nondet_int();
  int x = __VERIFIER_nondet_int();
  int y = x;
  while (x < n) { x++; y++; }
  if (x != y) reach_error();
  return 0;
}
"#;

const FLOW: &str = r#"flow: three
budget: { cpu_time: 120s, memory: 4GB }
stages:
  - name: short
    tool: explicit
    give_up: { path-length: 40 }
  - name: longer
    tool: explicit
    give_up: { path-length: 150 }
    input: reduce
  - name: predicate
    tool: predicate
    input: reduce
"#;

/// The second explicit stage runs on the residual; what it verifies (the `mode == 2` part) is
/// mapped back, so the accumulated condition grows and the predicate stage's residual no
/// longer holds that part.
#[test]
fn residual_stage_condition_joins_the_accumulated_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let program = dir.path().join("three.c");
    let flow = dir.path().join("three.yaml");
    std::fs::write(&program, THREE_PARTS).expect("write");
    std::fs::write(&flow, FLOW).expect("write");
    let keep = dir.path().join("keep");
    let out = Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(["run", "--json", "--keep-dir"])
        .args([&keep, &flow, &program])
        .output()
        .expect("baton runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let stages = &report["stages"];
    assert_eq!(report["verdict"], "true", "{report}");
    assert_eq!(stages[1]["input"], "residual", "{report}");
    let share = |i: usize| stages[i]["covered_share"].as_f64().unwrap_or(-1.0);
    assert!(share(0) > 0.0, "{report}");
    assert!(share(1) > share(0), "the residual stage added nothing: {report}");
    // The predicate stage's residual is smaller and no longer contains the `mode == 2` loop.
    let locations = |i: usize| stages[i]["program_locations"].as_u64().unwrap_or(0);
    assert!(locations(2) < locations(1), "{report}");
    let loop_line = THREE_PARTS
        .lines()
        .position(|l| l.contains("j < 30"))
        .expect("line") as u32
        + 1;
    let on_loop_line = |p: &Program, file: u32| {
        p.edges
            .iter()
            .any(|e| e.source.line == loop_line && e.source.file == file)
    };
    let original = baton::frontend::load_source("three.c", THREE_PARTS, DataModel::ILP32).expect("loads");
    assert!(on_loop_line(&original, 0));
    let last = keep.join("03-predicate/residual.c");
    let residual = baton::frontend::load_program(&last, DataModel::ILP32).expect("residual loads");
    // File 0 is the residual itself; its `#line` directives name the original as file 1.
    assert!(
        !on_loop_line(&residual, 1),
        "the predicate stage's residual still has line {loop_line}: {}",
        last.display()
    );
}
