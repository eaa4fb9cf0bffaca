//! Correctness witnesses of recursive programs (format 2.1): the explicit analysis' `true`
//! comes with function contracts of the recursive functions (`requires` from the states at
//! their entries, `ensures` from the pairs of entry and return states of their activations),
//! and the validator checks them modularly — each call of a recursive function summarised by
//! its callee's contract. Contracts that are wrong, miss a case or are not inductive are never
//! confirmed, and neither is a witness of a safe program on its buggy twin.

#[path = "support/cli.rs"]
mod cli;
#[path = "support/shared.rs"]
mod shared;
#[path = "support/witnessing.rs"]
mod witnessing;

use baton::analyses::AnalysisKind;
use baton::cfa::Program;
use baton::frontend::load_program;
use baton::task::Task;
use baton::verdict::Verdict;
use baton::witness::validate::Judgement;
use cli::baton;
use std::path::Path;
use witnessing::{analyse, never_confirmed, program, schema_errors, validate_both_ways, witness};

/// Two recursive calls per activation; `fib(7) == 13`.
const FIB: &str = "extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int fib(int n) {
  if (n < 1) {
    return 0;
  }
  if (n == 1) {
    return 1;
  }
  return fib(n - 1) + fib(n - 2);
}
int main(void) {
  int x = 7;
  int r = fib(x);
  if (r != 13) {
    reach_error();
  }
  return 0;
}
";

/// A global written in the recursion: its value on return depends on its value at the entry.
const COUNTED_SUM: &str = "void reach_error(void) {}
int calls = 0;
int sum(int n) {
  calls = calls + 1;
  if (n <= 0) {
    return 0;
  }
  return n + sum(n - 1);
}
int main(void) {
  int s = sum(4);
  if (s != 10 || calls != 5) {
    reach_error();
  }
  s = sum(2);
  if (s != 3 || calls != 8) {
    reach_error();
  }
  return 0;
}
";

/// Mutual recursion, called from a loop (a loop invariant beside the contracts).
const EVEN_ODD: &str = "void reach_error(void) {}
int is_odd(int n);
int is_even(int n) {
  if (n == 0) {
    return 1;
  }
  return is_odd(n - 1);
}
int is_odd(int n) {
  if (n == 0) {
    return 0;
  }
  return is_even(n - 1);
}
int main(void) {
  int odd = 0;
  for (int i = 0; i < 5; i++) {
    odd = odd + is_odd(i);
  }
  if (odd != 2) {
    reach_error();
  }
  return 0;
}
";

/// The parameter changes in the body: in an `ensures` clause it is the value the function was
/// called with (ACSL), so `\\result == n` holds.
const COUNT_DOWN: &str = "extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int down(int n) {
  int r = 0;
  if (n > 0) {
    n = n - 1;
    r = down(n) + 1;
  }
  return r;
}
int main(void) {
  int k = __VERIFIER_nondet_int();
  if (k < 0 || k > 1000) {
    return 0;
  }
  if (down(k) != k) {
    reach_error();
  }
  return 0;
}
";

/// A witness (format 2.1) of one function contract, written by hand.
fn hand_contract(file: &str, function: &str, line: u32, requires: &str, ensures: &str) -> String {
    format!(
        "- entry_type: invariant_set
  metadata:
    format_version: '2.1'
    uuid: 0b0e8d0e-4b8e-4a55-9a3f-4f0a3f8f1c2d
    creation_time: 2026-01-01T00:00:00Z
    producer: {{ name: hand, version: '1' }}
    task:
      input_files: [{file}]
      input_file_hashes: {{}}
      specification: G ! call(reach_error())
      data_model: ILP32
      language: C
  content:
  - invariant:
      type: function_contract
      location: {{ file_name: {file}, line: {line}, column: 1, function: {function} }}
      requires: {requires}
      ensures: {ensures}
      format: acsl_expression
"
    )
}

/// The explicit analysis' witness of `text`, which must be a `true` with contracts in format
/// 2.1 that passes its schema and is confirmed.
fn confirmed_witness(dir: &Path, name: &str, text: &str) -> (Program, String) {
    let (_, p) = program(dir, name, text);
    let outcome = analyse(AnalysisKind::Explicit, &p, "20s");
    assert_eq!(outcome.verdict, Verdict::True, "{name}: {}", outcome.reason);
    assert!(!outcome.contracts.is_empty(), "{name}: no contracts");
    let w = witness(&p, &outcome, &dir.join(format!("{name}.yml")));
    assert!(w.contains("format_version: '2.1'"), "{w}");
    assert!(w.contains("type: function_contract"), "{w}");
    assert!(schema_errors(&w).is_empty(), "{name}: {:?}", schema_errors(&w));
    let v = validate_both_ways(&p, &w);
    assert_eq!(v.judgement, Judgement::Confirmed, "{name}: {}\n{w}", v.reason);
    (p, w)
}

/// The `requires:` or `ensures:` line of the (first) contract in `text`.
fn clause<'t>(text: &'t str, key: &str) -> &'t str {
    text.lines()
        .find(|l| l.trim_start().starts_with(key))
        .unwrap_or_else(|| panic!("no `{key}` in\n{text}"))
        .trim_start()
}

#[test]
fn contracts_of_recursive_functions_are_written_and_confirmed() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, text) in [
        ("fib.c", FIB),
        ("counted_sum.c", COUNTED_SUM),
        ("even_odd.c", EVEN_ODD),
    ] {
        confirmed_witness(dir.path(), name, text);
    }
}

/// Wrong values, missing cases and contracts that hold of the function but are not inductive
/// are never confirmed.
#[test]
fn mutated_contracts_are_never_confirmed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (fib, w) = confirmed_witness(dir.path(), "fib.c", FIB);
    let requires = clause(&w, "requires:");
    let ensures = clause(&w, "ensures:");
    // Wrong results, at the outermost call and inside the recursion.
    never_confirmed(&fib, &w, "\\result == 13", "\\result == 12");
    never_confirmed(&fib, &w, "\\result == 5)", "\\result == 6)");
    // A case missing in `requires` (a recursive call breaks it) or in `ensures`.
    never_confirmed(&fib, &w, "(n == 3) || ", "");
    never_confirmed(&fib, &w, "(\\old(n) == 2 && \\result == 1) || ", "");
    // True of every call from `main`, but not inductive: the recursive calls break `requires`.
    never_confirmed(&fib, &w, requires, "requires: n == 7");
    // True of the function (partial correctness), but the body's calls are unconstrained by it.
    let weak = format!("{requires}\n      ensures: \\old(n) != 7 || \\result == 13");
    never_confirmed(&fib, &w, &format!("{requires}\n      {ensures}"), &weak);
    // No `ensures`: the result of the call in `main` is unknown.
    never_confirmed(&fib, &w, ensures, "ensures: 1");

    let (sum, w) = confirmed_witness(dir.path(), "counted_sum.c", COUNTED_SUM);
    // The global's value on return, wrong in one case.
    let ensures = clause(&w, "ensures:");
    let case = ensures
        .split(" || ")
        .find(|c| c.contains("calls == "))
        .unwrap_or_else(|| panic!("no case over `calls` in {ensures}"));
    let at = case.rfind("calls == ").expect("calls") + "calls == ".len();
    let value: String = case[at..].chars().take_while(char::is_ascii_digit).collect();
    let wrong = format!(
        "{}{}{}",
        &case[..at],
        value.parse::<i32>().expect("a value") + 1,
        &case[at + value.len()..]
    );
    never_confirmed(&sum, &w, case, &wrong);
}

/// A parameter in `ensures` is its value at the entry, also where the body assigns it; the
/// mutation that reads it as the value on return is not confirmed.
#[test]
fn parameters_in_ensures_are_their_values_at_the_entry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, p) = program(dir.path(), "down.c", COUNT_DOWN);
    let contract = |ensures: &str| hand_contract("down.c", "down", 3, "0 <= n && n <= 1000", ensures);
    let v = validate_both_ways(&p, &contract("\\result == n"));
    assert_eq!(v.judgement, Judgement::Confirmed, "{}", v.reason);
    let v = validate_both_ways(&p, &contract("\\result == \\old(n)"));
    assert_eq!(v.judgement, Judgement::Confirmed, "{}", v.reason);
    for wrong in ["\\result == n - 1", "\\result == n + 1", "\\result <= n - 1"] {
        let v = validate_both_ways(&p, &contract(wrong));
        assert_ne!(v.judgement, Judgement::Confirmed, "{wrong}: {}", v.reason);
    }
}

/// The witness of a safe recursive program is not confirmed on its buggy twin.
#[test]
fn a_contract_of_the_safe_program_does_not_confirm_its_buggy_twin() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, w) = confirmed_witness(dir.path(), "fib.c", FIB);
    let (_, buggy) = program(
        dir.path(),
        "fib.c",
        &FIB.replace("if (n == 1) {\n    return 1;", "if (n == 1) {\n    return 2;"),
    );
    let v = validate_both_ways(&buggy, &w);
    assert_ne!(v.judgement, Judgement::Confirmed, "{}", v.reason);
    let outcome = analyse(AnalysisKind::Explicit, &buggy, "20s");
    assert_eq!(outcome.verdict, Verdict::False, "{}", outcome.reason);
}

/// `baton verify --witness` writes the contracts and `baton validate` confirms them.
#[test]
fn verify_writes_contracts_that_validate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (path, _) = program(dir.path(), "fib.c", FIB);
    let w = dir.path().join("fib.yml");
    let (code, out, err) = baton(&[
        "verify",
        &path.display().to_string(),
        "--witness",
        &w.display().to_string(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("verdict: true"), "{out}");
    let (code, out, err) = baton(&["validate", &path.display().to_string(), &w.display().to_string()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Confirmed"), "{out}");
}

/// The recursive tasks of the development set the explicit analysis proves (short limits):
/// their witnesses pass the 2.1 schema and are confirmed, and a wrong result in their last
/// `ensures` case is not.
#[test]
fn shared_recursive_task_witnesses_validate() {
    let Some(dir) = shared::benchmarks() else { return };
    let names = [
        "afterrec-2",
        "fibo_7-1",
        "fibo_2calls_4-1",
        "id_i20_o20-1",
        "Fibonacci02",
    ];
    let work = tempfile::tempdir().expect("tempdir");
    let mut failures = Vec::new();
    let mut checked = 0;
    for (_, name, file) in shared::development_tasks(&dir) {
        if !names.contains(&name.as_str()) {
            continue;
        }
        let task = Task::load(&file, Default::default()).expect("task loads");
        let p = load_program(&task.program, task.data_model).expect("program lowers");
        let outcome = analyse(AnalysisKind::Explicit, &p, "10s");
        if outcome.verdict != Verdict::True {
            failures.push(format!("{name}: {} ({})", outcome.verdict, outcome.reason));
            continue;
        }
        let text = witness(&p, &outcome, &work.path().join(format!("{name}.yml")));
        let errors = schema_errors(&text);
        if !errors.is_empty() {
            failures.push(format!("{name}: schema: {errors:?}"));
        }
        let v = validate_both_ways(&p, &text);
        if v.judgement != Judgement::Confirmed {
            failures.push(format!("{name}: {:?}: {}", v.judgement, v.reason));
        }
        if let Some(at) = text.rfind("\\result == ") {
            let start = at + "\\result == ".len();
            let digits: String = text[start..].chars().take_while(char::is_ascii_digit).collect();
            if let Ok(value) = digits.parse::<i64>() {
                let mutated = format!("{}{}{}", &text[..start], value + 1, &text[start + digits.len()..]);
                let v = validate_both_ways(&p, &mutated);
                if v.judgement == Judgement::Confirmed {
                    failures.push(format!("{name}: `\\result == {}` confirmed", value + 1));
                }
            }
        }
        checked += 1;
    }
    println!("{checked} recursive tasks' witnesses checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        checked,
        names.len(),
        "a recursive task is missing from MANIFEST.csv"
    );
}

/// `f` counts its parameter down to 0 in a loop first: `\result == \old(n)` holds of the
/// state at the loop head and the return, not of the entry (`f(3) == 0`, the error is
/// reachable). Also where the loop is a `goto` back to the function's first statement.
#[test]
fn a_contract_that_holds_from_a_loop_head_only_is_not_confirmed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let while_loop = "void reach_error(void) {}
int f(int n) {
  while (n > 0) {
    n = n - 1;
  }
  if (n < 0) {
    return f(0);
  }
  return n;
}
int main(void) {
  int r = f(3);
  if (r != 3) {
    reach_error();
  }
  return 0;
}
";
    let goto_loop = while_loop.replace(
        "  while (n > 0) {\n    n = n - 1;\n  }",
        " L:\n  if (n > 0) {\n    n = n - 1;\n    goto L;\n  }",
    );
    assert_ne!(goto_loop, while_loop);
    for (name, text) in [("while.c", while_loop.to_string()), ("goto.c", goto_loop)] {
        let (_, p) = program(dir.path(), name, &text);
        let v = validate_both_ways(&p, &hand_contract(name, "f", 2, "1", "\\result == \\old(n)"));
        assert_ne!(v.judgement, Judgement::Confirmed, "{name}: {}", v.reason);
        let outcome = analyse(AnalysisKind::Explicit, &p, "20s");
        assert_eq!(outcome.verdict, Verdict::False, "{name}: {}", outcome.reason);
    }
}
