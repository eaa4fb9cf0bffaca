//! The concrete interpreter on small C programs (through the frontend), one per kind of ending.

use baton::cfa::interpreter::{execute, Ending, ExecOptions, Execution};
use baton::cfa::semantics::{SignedOverflow, UndefinedBehavior};
use baton::cfa::types::DataModel;
use baton::frontend::load_source;

fn run(text: &str, model: DataModel, inputs: &[i128]) -> Execution {
    run_in(text, model, SignedOverflow::Undefined, inputs)
}

fn run_in(text: &str, model: DataModel, overflow: SignedOverflow, inputs: &[i128]) -> Execution {
    let mut program = load_source("test.c", text, model).expect("program loads");
    program.signed_overflow = overflow;
    execute(
        &program,
        inputs,
        &ExecOptions {
            max_steps: 100_000,
            record_path: true,
        },
    )
}

const DECLS: &str = "extern int __VERIFIER_nondet_int(void);\n\
extern unsigned char __VERIFIER_nondet_uchar(void);\n\
extern long __VERIFIER_nondet_long(void);\n\
extern void __VERIFIER_assume(int);\n\
extern void abort(void);\n\
extern void exit(int);\n\
void reach_error(void);\n";

fn program(body: &str) -> String {
    format!("{DECLS}{body}")
}

#[test]
fn error_reached_with_line() {
    // line 8: main, line 10: the call
    let p = program(
        "int main(void) {\n\
           int x = __VERIFIER_nondet_int();\n\
           if (x > 10)\n\
             reach_error();\n\
           return 0;\n\
         }\n",
    );
    let r = run(&p, DataModel::ILP32, &[11]);
    assert_eq!(
        r.ending,
        Ending::ErrorReached {
            function: "reach_error".into(),
            line: 11
        }
    );
    assert_eq!(r.inputs_consumed, 1);
    assert_eq!(r.steps as usize, r.path.len());
    let r = run(&p, DataModel::ILP32, &[10]);
    assert_eq!(r.ending, Ending::Returned { value: Some(0) });
}

#[test]
fn abort_exit_and_assume() {
    let p = program(
        "int main(void) {\n\
           int x = __VERIFIER_nondet_int();\n\
           __VERIFIER_assume(x != 5);\n\
           if (x == 1) abort();\n\
           if (x == 2) exit(x * 21);\n\
           return x;\n\
         }\n",
    );
    assert_eq!(
        run(&p, DataModel::ILP32, &[5]).ending,
        Ending::AssumptionViolated { line: 10 }
    );
    assert_eq!(
        run(&p, DataModel::ILP32, &[1]).ending,
        Ending::Aborted { line: 11 }
    );
    assert_eq!(
        run(&p, DataModel::ILP32, &[2]).ending,
        Ending::Exited { code: 42 }
    );
    assert_eq!(
        run(&p, DataModel::ILP32, &[3]).ending,
        Ending::Returned { value: Some(3) }
    );
}

#[test]
fn step_limit_on_endless_loop() {
    let p = program("int main(void) {\n  int i = 0;\n  while (1) { i++; }\n  return 0;\n}\n");
    let program = load_source("loop.c", &p, DataModel::ILP32).expect("loads");
    let r = execute(
        &program,
        &[],
        &ExecOptions {
            max_steps: 500,
            record_path: false,
        },
    );
    assert_eq!(r.ending, Ending::StepLimit);
    assert_eq!(r.steps, 500);
}

#[test]
fn undefined_behaviour_division_by_zero() {
    let p = program(
        "int main(void) {\n\
           int x = __VERIFIER_nondet_int();\n\
           int y = 100 / x;\n\
           return y;\n\
         }\n",
    );
    assert_eq!(
        run(&p, DataModel::ILP32, &[0]).ending,
        Ending::UndefinedBehavior {
            what: UndefinedBehavior::DivisionByZero,
            line: 10
        }
    );
    assert_eq!(
        run(&p, DataModel::ILP32, &[7]).ending,
        Ending::Returned { value: Some(14) }
    );
}

#[test]
fn data_model_changes_long_arithmetic() {
    let p = program(
        "int main(void) {\n\
           long x = __VERIFIER_nondet_long();\n\
           x = x + 1;\n\
           return x > 0;\n\
         }\n",
    );
    let big = i128::from(i32::MAX);
    // A 32-bit long overflows: undefined, or negative with wrap-around.
    assert_eq!(
        run(&p, DataModel::ILP32, &[big]).ending,
        Ending::UndefinedBehavior {
            what: UndefinedBehavior::SignedOverflow,
            line: 10
        }
    );
    assert_eq!(
        run_in(&p, DataModel::ILP32, SignedOverflow::Wrap, &[big]).ending,
        Ending::Returned { value: Some(0) }
    );
    assert_eq!(
        run(&p, DataModel::LP64, &[big]).ending,
        Ending::Returned { value: Some(1) }
    );
}

#[test]
fn calls_and_nondet_replay() {
    let p = program(
        "unsigned char g = 200;\n\
         int twice(unsigned char v) { return v * 2; }\n\
         int main(void) {\n\
           unsigned char a = __VERIFIER_nondet_uchar();\n\
           int b = __VERIFIER_nondet_int();\n\
           g = g + a;\n\
           return twice(g) + b;\n\
         }\n",
    );
    // a = 300 -> 44; g = 244; twice = 488; b missing -> 0.
    let r = run(&p, DataModel::ILP32, &[300]);
    assert_eq!(r.ending, Ending::Returned { value: Some(488) });
    assert_eq!(r.nondet_values, vec![44, 0]);
    assert_eq!(r.inputs_consumed, 1);
    let again = run(&p, DataModel::ILP32, &r.nondet_values);
    assert_eq!(again.path, r.path);
    assert_eq!(again.ending, r.ending);
}

/// `__VERIFIER_assume(int)`: the argument converts to `int` before the test, as in C (found by
/// the differential test against gcc).
#[test]
fn assume_converts_its_argument_to_int() {
    let p = program(
        "int main(void) {\n\
           long long x = 4294967296LL;\n\
           __VERIFIER_assume(x);\n\
           return 1;\n\
         }\n",
    );
    assert_eq!(
        run(&p, DataModel::LP64, &[]).ending,
        Ending::AssumptionViolated { line: 10 }
    );
}
