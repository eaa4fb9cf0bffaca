//! Function pointers through every layer: functions as values (`f`, `&f`), pointers to them in
//! variables, parameters, struct members and arrays (dispatch tables), calls `fp(a)`,
//! `(*fp)(a)` and `s.ops.probe(a)`, comparisons and casts; a call through a null pointer is
//! undefined behaviour, never a counterexample. Programs in the style of sv-benchmarks' ldv
//! and product-lines tasks (callbacks in an ops struct), with libc headers included.

#[path = "support/memory_programs.rs"]
mod memory_programs;

use baton::analyses::AnalysisKind;
use baton::cfa::interpreter::Ending;
use baton::cfa::semantics::UndefinedBehavior;
use baton::cfa::types::DataModel;
use baton::cfa::Program;
use baton::frontend::load_source;
use baton::verdict::Verdict;
use memory_programs::{have_gcc, run, verify};
use std::path::Path;
use std::process::Command;

/// What every program starts with: libc headers whose prototypes take function pointers
/// (`atexit`, `qsort`, `signal`), unused.
const HEADERS: &str = "#include <stdlib.h>\n#include <stdio.h>\n#include <signal.h>\n\
                       extern int __VERIFIER_nondet_int(void);\nextern void reach_error(void);\n";

/// Callbacks registered in an ops struct inside a device struct, called directly, through
/// `(*p)` and passed as a parameter; `EVENT` is the registered event handler.
const DEVICE: &str = r#"typedef int (*handler_t)(int);
struct device_ops { int (*probe)(int); handler_t on_event; int (*remove)(int); };
struct device { struct device_ops ops; int state; };
static int probe_ok(int id) { return id > 0 ? 1 : 0; }
static int event_inc(int s) { return s + 1; }
static int event_dec(int s) { return s - 1; }
static int remove_dev(int s) { return 0; }
static int send(handler_t h, int s) { return h(s); }
int main(void) {
  struct device d;
  d.ops.probe = probe_ok;
  d.ops.on_event = EVENT;
  d.ops.remove = &remove_dev;
  d.state = d.ops.probe(__VERIFIER_nondet_int());
  if (d.state == 0) return 0;
  if (__VERIFIER_nondet_int()) d.state = send(d.ops.on_event, d.state);
  if (__VERIFIER_nondet_int()) d.state = (*d.ops.on_event)(d.state);
  if (d.state <= 0) reach_error();
  d.state = d.ops.remove(d.state) + d.state;
  return d.state;
}
"#;

/// A global dispatch table indexed by a nondet value; `BUG` is the error condition.
const TABLE: &str = r#"static int op_add(int a, int b) { return a + b; }
static int op_sub(int a, int b) { return a - b; }
static int op_max(int a, int b) { return a > b ? a : b; }
int (*const ops[3])(int, int) = { op_add, op_sub, &op_max };
int main(void) {
  int k = __VERIFIER_nondet_int();
  int a = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  if (k < 0 || k > 2 || a < 0 || a > 10 || b < 0 || b > 10) return 0;
  int r = ops[k](a, b);
  if (BUG) reach_error();
  return r;
}
"#;

/// A pointer of a typedef'd function type passed as a parameter, through `void *` and back.
const PARAMETER: &str = r#"typedef int fn(int);
static int twice(int x) { return 2 * x; }
static int square(int x) { return x * x; }
static int apply_n(fn *f, int x, int n) {
  for (int i = 0; i < n; i++) x = f(x);
  return x;
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x < 0 || x > 5) return 0;
  int c = __VERIFIER_nondet_int();
  fn *f = c ? twice : &square;
  void *erased = (void *)f;
  fn *back = (fn *)erased;
  if (back != f || back == 0 || (c && back == square)) reach_error();
  int r = apply_n(back, x, 2);
  if (BUG) reach_error();
  return r;
}
"#;

/// A callback left null on one path and called: the error after the call is reached only
/// through undefined behaviour (line 7 of the body is the call).
const NULL_CALL: &str = r#"static void hello(void) {}
int main(void) {
  int c = __VERIFIER_nondet_int();
  if (c < 0 || c > 2) return 0;
  void (*cb)(void) = c ? hello : 0;
  if (c == 2) cb = (void (*)(void))&c;
  cb();
  if (c != 1) reach_error();
  return 0;
}
"#;

fn source(body: &str, replacements: &[(&str, &str)]) -> String {
    let mut text = format!("{HEADERS}{body}");
    for (from, to) in replacements {
        text = text.replace(from, to);
    }
    text
}

fn load(text: &str, model: DataModel) -> Program {
    load_source("fp.c", text, model).unwrap_or_else(|e| panic!("lowering failed: {e}"))
}

/// The analyses' verdicts on `text` (ILP32); a `false` must come with a counterexample that
/// reaches the error on the interpreter.
fn verdicts(name: &str, text: &str, kinds: &[AnalysisKind]) -> Vec<Verdict> {
    let p = load(text, DataModel::ILP32);
    kinds
        .iter()
        .map(|&kind| {
            let out = verify(kind, &p);
            if out.verdict == Verdict::False {
                let cex = out
                    .counterexample
                    .unwrap_or_else(|| panic!("{name} {kind:?}: false without counterexample"));
                assert!(
                    run(&p, &cex.inputs).is_error(),
                    "{name} {kind:?}: counterexample does not replay"
                );
            }
            out.verdict
        })
        .collect()
}

const ALL: [AnalysisKind; 3] = [AnalysisKind::Explicit, AnalysisKind::Predicate, AnalysisKind::Chc];

#[test]
fn ops_struct_callbacks_are_verified_and_their_bugs_found() {
    let safe = source(DEVICE, &[("EVENT", "event_inc")]);
    assert_eq!(verdicts("device safe", &safe, &ALL), vec![Verdict::True; 3]);
    let bug = source(DEVICE, &[("EVENT", "event_dec")]);
    assert_eq!(verdicts("device bug", &bug, &ALL), vec![Verdict::False; 3]);
}

#[test]
fn dispatch_table_indexed_by_a_nondet_value() {
    let safe = source(TABLE, &[("BUG", "r > 20 || r < -10")]);
    let v = verdicts("table safe", &safe, &ALL);
    assert!(!v.contains(&Verdict::False), "{v:?}");
    assert!(v.contains(&Verdict::True), "{v:?}");
    let bug = source(TABLE, &[("BUG", "r == 10 && k == 1")]);
    assert_eq!(verdicts("table bug", &bug, &ALL), vec![Verdict::False; 3]);
}

#[test]
fn function_pointer_parameters_casts_and_comparisons() {
    let safe = source(PARAMETER, &[("BUG", "r < 0")]);
    let v = verdicts(
        "parameter safe",
        &safe,
        &[AnalysisKind::Explicit, AnalysisKind::Chc],
    );
    assert!(!v.contains(&Verdict::False), "{v:?}");
    assert!(v.contains(&Verdict::True), "{v:?}");
    let bug = source(PARAMETER, &[("BUG", "r == 16")]);
    assert_eq!(verdicts("parameter bug", &bug, &ALL), vec![Verdict::False; 3]);
    let p = load(&bug, DataModel::LP64);
    assert!(run(&p, &[2, 0]).is_error());
    assert_eq!(run(&p, &[3, 1]), Ending::Returned { value: Some(12) });
}

#[test]
fn a_call_through_a_null_or_object_pointer_is_undefined_behaviour_never_a_counterexample() {
    let text = source(NULL_CALL, &[]);
    for model in [DataModel::ILP32, DataModel::LP64] {
        let p = load(&text, model);
        // HEADERS has 5 lines before the body; the call is on the body's line 7.
        let ub = Ending::UndefinedBehavior {
            what: UndefinedBehavior::InvalidFunctionCall,
            line: 12,
        };
        assert_eq!(run(&p, &[0]), ub, "{model}");
        assert_eq!(run(&p, &[2]), ub, "{model}");
        assert_eq!(run(&p, &[1]), Ending::Returned { value: Some(0) }, "{model}");
    }
    let v = verdicts("null call", &text, &ALL);
    assert!(!v.contains(&Verdict::False), "{v:?}");
    assert!(v.contains(&Verdict::True), "{v:?}");
}

#[test]
fn callbacks_handed_to_functions_without_body_are_rejected_unused_prototypes_are_not() {
    let qsort = format!(
        "{HEADERS}static int cmp(const void *a, const void *b) {{ return 0; }}\n\
         int main(void) {{\n  int a[2] = {{2, 1}};\n  qsort(a, 2, sizeof(int), cmp);\n  return 0;\n}}\n"
    );
    let err = load_source("fp.c", &qsort, DataModel::LP64)
        .expect_err("rejected")
        .to_string();
    assert_eq!(
        err,
        "fp.c:9: unsupported: function pointer passed to a function without a body (it may call it)"
    );
    let handler = format!(
        "{HEADERS}static void on_exit_cb(void) {{ reach_error(); }}\n\
         int main(void) {{\n  atexit(on_exit_cb);\n  return 0;\n}}\n"
    );
    assert!(load_source("fp.c", &handler, DataModel::LP64).is_err());
    let unused =
        format!("{HEADERS}extern void (*signal(int, void (*)(int)))(int);\nint main(void) {{ return 0; }}\n");
    assert_eq!(
        run(&load(&unused, DataModel::ILP32), &[]),
        Ending::Returned { value: Some(0) }
    );
}

/// Compiles `text` with gcc in `model` with nondet values from the command line and
/// `reach_error` exiting with 99; `None` when the machine cannot build for `model`.
fn gcc_build(text: &str, model: DataModel, dir: &Path) -> Option<std::path::PathBuf> {
    let harness = "#include <stdlib.h>\nstatic char **baton_args; static int baton_next;\n\
                   int __VERIFIER_nondet_int(void) { return baton_args[baton_next] ? atoi(baton_args[baton_next++]) : 0; }\n\
                   void reach_error(void) { exit(99); }\n";
    let program = text.replace("int main(void)", "static int program_main(void)");
    let main =
        "int main(int argc, char **argv) { (void)argc; baton_args = argv + 1; return program_main(); }\n";
    let file = dir.join(format!("fp-{model}.c"));
    std::fs::write(&file, format!("{harness}{program}{main}")).expect("write");
    let exe = dir.join(format!("fp-{model}"));
    let out = Command::new("gcc")
        .arg(model.gcc_flag())
        .arg("-o")
        .arg(&exe)
        .arg(&file)
        .output()
        .expect("gcc runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success()
        && model == DataModel::ILP32
        && (stderr.contains("bits/") || stderr.contains("cannot find"))
    {
        eprintln!("skipping {model}: no 32-bit toolchain");
        return None;
    }
    assert!(out.status.success(), "gcc failed: {stderr}");
    Some(exe)
}

#[test]
fn interpreter_agrees_with_gcc_in_both_data_models() {
    if !have_gcc() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let programs = [
        (
            source(DEVICE, &[("EVENT", "event_dec")]),
            vec![vec![0, 0, 0], vec![3, 1, 0], vec![5, 0, 1], vec![1, 0, 0]],
        ),
        (
            source(TABLE, &[("BUG", "r == 10 && k == 1")]),
            vec![
                vec![0, 4, 5],
                vec![1, 10, 0],
                vec![1, 3, 9],
                vec![2, 7, 2],
                vec![2, 1, 8],
            ],
        ),
        (
            source(PARAMETER, &[("BUG", "r == 16")]),
            vec![vec![2, 0], vec![3, 1], vec![5, 0], vec![1, 1]],
        ),
    ];
    let mut compared = 0;
    for model in [DataModel::ILP32, DataModel::LP64] {
        for (text, inputs) in &programs {
            let Some(exe) = gcc_build(text, model, dir.path()) else {
                continue;
            };
            let p = load(text, model);
            for input in inputs {
                let args: Vec<String> = input.iter().map(|v| v.to_string()).collect();
                let status = Command::new(&exe).args(&args).status().expect("run").code();
                let expected = match run(&p, input) {
                    Ending::Returned { value: Some(v) } => Some((v & 0xff) as i32),
                    e if e.is_error() => Some(99),
                    e => panic!("{model} {input:?}: unexpected ending {e}"),
                };
                assert_eq!(status, expected, "{model} {input:?}:\n{text}");
                compared += 1;
            }
        }
    }
    assert!(compared >= 13, "{compared} runs compared");
}
