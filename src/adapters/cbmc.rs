//! CBMC adapter: the four command lines of the pipeline and the interpretation of CBMC's JSON.
//!
//! Pipeline (checked against CBMC 6.6.0, Debian trixie's package):
//! 1. `goto-cc -m32|-m64 -D__VERIFIER_error=__baton_VERIFIER_error
//!    -D__VERIFIER_nondet_<t>=__baton_nondet_<t> ... prog.c -o prog.gb` (one `-D` per integer
//!    nondet function, see [`NONDET_SUFFIXES`], and per floating-point one)
//! 2. `goto-instrument --remove-function-body reach_error
//!    --remove-function-body __baton_VERIFIER_error
//!    --generate-function-body '^(reach_error|__baton_VERIFIER_error)$'
//!    --generate-function-body-options assert-false prog.gb prog.errors.gb`
//! 3. `goto-instrument --generate-function-body '^__baton_nondet_[a-z_0-9]+$'
//!    --generate-function-body-options nondet-return prog.errors.gb prog.instrumented.gb`
//! 4. `cbmc --no-standard-checks --unwind K --unwinding-assertions --json-ui
//!    prog.instrumented.gb`
//!
//! Why so: the error functions get a body `assert(false)` whether the program defines them (SV-COMP
//! tasks often define an empty `reach_error(){}`; a prelude defining it instead would be unsound,
//! CBMC would keep the program's empty body) or only declares them. `__VERIFIER_error` is renamed
//! by the preprocessor because CBMC's C front end turns a call to `__VERIFIER_error` into a plain
//! `assert(0)` in the *caller* (property `main.assertion.1`, description "assertion"), which cannot
//! be told apart from the program's own assertions. The nondet functions are renamed for a similar
//! reason: CBMC treats `__VERIFIER_nondet_*` as built-ins, and for `x = __VERIFIER_nondet_int();`
//! the trace only shows an assignment to `x` (for `int x = ...` a `return_value___VERIFIER_nondet_int`
//! temporary appears), so the calls cannot be found reliably. Renamed, they are ordinary functions
//! with a generated `return nondet;` body: every call shows as a `function-call` step followed by
//! an assignment to `goto_symex$$return_value$$__baton_nondet_<t>`.
//! `--no-standard-checks` (exists in 6.6.0) switches off the default memory/overflow checks, which
//! are not the reach-error property; `--no-built-in-assertions` is *not* used: it would also drop
//! the generated assertion. Failures of other properties (the program's own assertions, CBMC's
//! `no-body` checks for functions without body) are not the reach-error property and are ignored.
//!
//! CBMC 6.6 computes `long double` as an IEEE format with 15 exponent bits and 80 (`-m32`) or 112
//! (`-m64`) fraction bits, not as gcc's x87 extended precision (64-bit significand): `1.0L +
//! 0x1p-70L == 1.0L` holds with gcc and not in CBMC. Its counterexamples are replayed like any
//! other, but its proofs of a program that computes with `long double` ([`uses_long_double`]) are
//! not believed: the `bounded` extractor answers `unknown` and covers nothing.

use super::afl::NONDET_SUFFIXES;
use super::CommandLine;
use crate::cfa::expr::{Expr, ExprKind};
use crate::cfa::float;
use crate::cfa::types::DataModel;
use crate::cfa::{Operation, Program};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The name `__VERIFIER_error` gets in the goto program (see the module documentation).
pub const RENAMED_VERIFIER_ERROR: &str = "__baton_VERIFIER_error";

/// The prefix the nondet functions get in the goto program (see the module documentation).
pub const RENAMED_NONDET_PREFIX: &str = "__baton_nondet_";

/// The floating-point nondet functions renamed besides the integer ones.
pub const FLOAT_NONDET_SUFFIXES: [&str; 3] = ["float", "double", "long_double"];

/// True if `program` computes with `long double` anywhere: a variable, a nondet value or an
/// operation of that type (see the module doc).
pub fn uses_long_double(program: &Program) -> bool {
    fn in_expr(e: &Expr) -> bool {
        e.ty.is_long_double()
            || match &e.kind {
                ExprKind::Unary(_, a) | ExprKind::Cast(a) | ExprKind::Bitcast(a) => in_expr(a),
                ExprKind::Binary(_, a, b) => in_expr(a) || in_expr(b),
                _ => false,
            }
    }
    program.variables.iter().any(|v| v.ty.is_long_double())
        || program.edges.iter().any(|e| {
            let mut found = matches!(e.op, Operation::Nondet { ty, .. } if ty.is_long_double());
            e.op.for_each_expr(&mut |x| found |= in_expr(x));
            found
        })
}

/// The properties whose failure means the error function is reachable.
pub const TARGET_PROPERTIES: [&str; 2] = ["reach_error.assertion.1", "__baton_VERIFIER_error.assertion.1"];

/// The three CBMC executables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CbmcTools {
    /// `goto-cc`, the C to goto-binary compiler.
    pub goto_cc: PathBuf,
    /// `goto-instrument`, which replaces the error functions' bodies.
    pub goto_instrument: PathBuf,
    /// `cbmc`, the bounded model checker.
    pub cbmc: PathBuf,
}

impl CbmcTools {
    /// The executables by the adapter's roles (as the registry found them).
    pub fn from_roles(exes: &std::collections::BTreeMap<String, PathBuf>) -> Result<CbmcTools, String> {
        Ok(CbmcTools {
            goto_cc: super::extract::role(exes, "compiler")?,
            goto_instrument: super::extract::role(exes, "instrument")?,
            cbmc: super::extract::role(exes, "verifier")?,
        })
    }

    /// The executables of `adapter`, located; `None` when one is missing.
    pub fn locate(adapter: &super::spec::Adapter) -> Option<CbmcTools> {
        adapter.executables().ok().and_then(|e| Self::from_roles(&e).ok())
    }
}

/// The command lines of one CBMC run, in the order they must run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CbmcPipeline {
    /// `goto-cc`: C program to goto binary.
    pub compile: CommandLine,
    /// `goto-instrument`: error functions become `assert(false)`.
    pub instrument: CommandLine,
    /// `goto-instrument`: the renamed nondet functions get a `return nondet;` body.
    pub instrument_nondet: CommandLine,
    /// `cbmc`: the check, JSON on standard output.
    pub verify: CommandLine,
    /// The loop/recursion bound used.
    pub unwind: u32,
}

/// Builds the pipeline for `program`; intermediate goto binaries go to `work_dir` (one directory
/// per run: the file names are fixed).
pub fn pipeline(
    tools: &CbmcTools,
    program: &Path,
    work_dir: &Path,
    model: DataModel,
    unwind: u32,
) -> CbmcPipeline {
    let goto = work_dir.join("prog.gb");
    let errors = work_dir.join("prog.errors.gb");
    let instrumented = work_dir.join("prog.instrumented.gb");
    let mut compile = CommandLine::new(&tools.goto_cc)
        .arg(model.gcc_flag())
        .arg(format!("-D__VERIFIER_error={RENAMED_VERIFIER_ERROR}"));
    // Floats too: their values are read back as bit patterns from the trace.
    for suffix in NONDET_SUFFIXES.iter().chain(&FLOAT_NONDET_SUFFIXES) {
        compile = compile.arg(format!(
            "-D__VERIFIER_nondet_{suffix}={RENAMED_NONDET_PREFIX}{suffix}"
        ));
    }
    let compile = compile.arg(program).arg("-o").arg(&goto);
    let instrument = CommandLine::new(&tools.goto_instrument)
        .arg("--remove-function-body")
        .arg("reach_error")
        .arg("--remove-function-body")
        .arg(RENAMED_VERIFIER_ERROR)
        .arg("--generate-function-body")
        .arg(format!("^(reach_error|{RENAMED_VERIFIER_ERROR})$"))
        .arg("--generate-function-body-options")
        .arg("assert-false")
        .arg(&goto)
        .arg(&errors);
    let instrument_nondet = CommandLine::new(&tools.goto_instrument)
        .arg("--generate-function-body")
        .arg(format!("^{RENAMED_NONDET_PREFIX}[a-z_0-9]+$"))
        .arg("--generate-function-body-options")
        .arg("nondet-return")
        .arg(&errors)
        .arg(&instrumented);
    let verify = CommandLine::new(&tools.cbmc)
        .arg("--no-standard-checks")
        .arg("--unwind")
        .arg(unwind.to_string())
        .arg("--unwinding-assertions")
        .arg("--json-ui")
        .arg(&instrumented);
    CbmcPipeline {
        compile,
        instrument,
        instrument_nondet,
        verify,
        unwind,
    }
}

/// What one CBMC run established about the reach-error property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CbmcOutcome {
    /// An error function is reachable; the counterexample's `__VERIFIER_nondet_*` return values
    /// in the order the trace produced them (to be replayed before it is believed).
    Violation {
        /// The failed property (one of [`TARGET_PROPERTIES`]).
        property: String,
        /// The nondeterministic values, normalised to their C types.
        nondet_values: Vec<i128>,
    },
    /// No error function is reachable within `unwind` loop iterations / recursion depth, but
    /// some loop or recursion was cut off by the bound.
    SafeWithinBound {
        /// The bound used.
        unwind: u32,
    },
    /// No error function is reachable, and no unwinding assertion failed: a full proof.
    Safe,
    /// CBMC (or goto-cc / goto-instrument) failed; the message says why.
    Error(String),
}

/// Interprets the end of the `goto-cc` or `goto-instrument` step: `None` when it succeeded, an
/// [`CbmcOutcome::Error`] naming the step, exit status and first lines of output otherwise.
pub fn step_failure(step: &str, exit_code: Option<i32>, stdout: &str, stderr: &str) -> Option<CbmcOutcome> {
    if exit_code == Some(0) {
        return None;
    }
    let status = match exit_code {
        Some(c) => format!("exit code {c}"),
        None => "killed by a signal".to_string(),
    };
    let text: Vec<&str> = stderr
        .lines()
        .chain(stdout.lines())
        .filter(|l| !l.trim().is_empty())
        .take(8)
        .collect();
    Some(CbmcOutcome::Error(format!(
        "{step} failed ({status}): {}",
        text.join(" | ")
    )))
}

/// Interprets `cbmc --json-ui` output (standard output) together with CBMC's exit status
/// (0: all properties hold, 10: some property fails, anything else: error).
pub fn parse_output(json: &str, exit_code: Option<i32>, unwind: u32) -> CbmcOutcome {
    match interpret(json, exit_code, unwind) {
        Ok(outcome) => outcome,
        Err(message) => CbmcOutcome::Error(message),
    }
}

fn interpret(json: &str, exit_code: Option<i32>, unwind: u32) -> Result<CbmcOutcome, String> {
    let messages: Vec<Value> = match serde_json::from_str::<Value>(json) {
        Ok(Value::Array(items)) => items,
        Ok(_) => {
            return Err(format!(
                "cbmc output is not a JSON array ({exit_text})",
                exit_text = exit_text(exit_code)
            ))
        }
        Err(e) => {
            return Err(format!(
                "cbmc output is not JSON ({}): {e}; output starts {:?}",
                exit_text(exit_code),
                json.chars().take(200).collect::<String>()
            ))
        }
    };
    let errors: Vec<&str> = messages
        .iter()
        .filter(|m| m.get("messageType").and_then(Value::as_str) == Some("ERROR"))
        .filter_map(|m| m.get("messageText").and_then(Value::as_str))
        .collect();
    let results = messages
        .iter()
        .find_map(|m| m.get("result").and_then(Value::as_array));
    let Some(results) = results else {
        return Err(if errors.is_empty() {
            format!("cbmc reported no results ({})", exit_text(exit_code))
        } else {
            format!("cbmc error ({}): {}", exit_text(exit_code), errors.join(" | "))
        });
    };
    if !errors.is_empty() {
        return Err(format!(
            "cbmc error ({}): {}",
            exit_text(exit_code),
            errors.join(" | ")
        ));
    }

    let mut any_failure = false;
    let mut violation = None;
    let mut unwinding_failed = false;
    for (index, result) in results.iter().enumerate() {
        let property = result
            .get("property")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("result {index} has no property name"))?;
        let status = result
            .get("status")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("result {property} has no status"))?;
        let is_target = TARGET_PROPERTIES.contains(&property);
        match status {
            "SUCCESS" => {}
            "FAILURE" => {
                any_failure = true;
                if is_target && violation.is_none() {
                    let trace = result
                        .get("trace")
                        .and_then(Value::as_array)
                        .ok_or_else(|| format!("failed property {property} has no trace"))?;
                    violation = Some(CbmcOutcome::Violation {
                        property: property.to_string(),
                        nondet_values: nondet_values(trace)
                            .map_err(|e| format!("trace of {property}: {e}"))?,
                    });
                } else if is_unwinding_property(property) {
                    unwinding_failed = true;
                }
            }
            other if is_target || is_unwinding_property(property) => {
                return Err(format!("property {property} has status {other}"));
            }
            // Other properties (the program's own assertions, library checks) are not the
            // reach-error property; their status does not matter here.
            _ => {}
        }
    }
    match (exit_code, any_failure) {
        (Some(0), false) | (Some(10), true) => {}
        _ => {
            return Err(format!(
                "cbmc {} does not match its results ({})",
                exit_text(exit_code),
                if any_failure {
                    "some property fails"
                } else {
                    "all properties hold"
                }
            ))
        }
    }
    Ok(match violation {
        Some(v) => v,
        None if unwinding_failed => CbmcOutcome::SafeWithinBound { unwind },
        None => CbmcOutcome::Safe,
    })
}

fn exit_text(exit_code: Option<i32>) -> String {
    match exit_code {
        Some(c) => format!("exit code {c}"),
        None => "killed by a signal".to_string(),
    }
}

/// Loop unwinding assertions are `<function>.unwind.<n>`, recursion ones `<function>.recursion`.
fn is_unwinding_property(property: &str) -> bool {
    property.contains(".unwind.") || property.ends_with(".recursion")
}

/// The values returned by the calls of the renamed nondet functions, in trace order: each
/// `function-call` step of `__baton_nondet_<t>` must be followed, before its `function-return`,
/// by a visible assignment to `goto_symex$$return_value$$__baton_nondet_<t>`.
fn nondet_values(trace: &[Value]) -> Result<Vec<i128>, String> {
    let mut values = Vec::new();
    // Open nondet calls: (function, whether its return value was seen).
    let mut open: Vec<(String, bool)> = Vec::new();
    for (index, step) in trace.iter().enumerate() {
        let step_type = step.get("stepType").and_then(Value::as_str);
        let function = step
            .get("function")
            .and_then(|f| f.get("identifier"))
            .and_then(Value::as_str);
        match (step_type, function) {
            (Some("function-call"), Some(f)) if f.starts_with(RENAMED_NONDET_PREFIX) => {
                open.push((f.to_string(), false));
            }
            (Some("function-return"), Some(f)) if f.starts_with(RENAMED_NONDET_PREFIX) => match open.pop() {
                Some((g, true)) if g == f => {}
                Some((g, false)) if g == f => {
                    return Err(format!("step {index}: call of {f} returned no value"))
                }
                _ => return Err(format!("step {index}: unmatched return from {f}")),
            },
            (Some("assignment"), _) => {
                let Some(lhs) = step.get("lhs").and_then(Value::as_str) else {
                    continue;
                };
                let Some(f) = lhs.strip_prefix("goto_symex$$return_value$$") else {
                    continue;
                };
                if step.get("hidden").and_then(Value::as_bool) != Some(false) {
                    continue;
                }
                if let Some((g, seen)) = open.last_mut() {
                    if g == f && !*seen {
                        let value = step
                            .get("value")
                            .ok_or_else(|| format!("step {index} ({lhs}) has no value"))?;
                        values.push(trace_value(value).map_err(|e| format!("step {index} ({lhs}): {e}"))?);
                        *seen = true;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(values)
}

/// One integer value of a trace step: `data` is a C literal (`-7`, `4000000000u`,
/// `2329772368531026934l`, `TRUE`); when it is not one, `binary` with the signedness of `type`.
/// A floating-point value (`name` `float`) is its bit pattern, by its `width`: 32 and 64 bits
/// are IEEE-754 binary32 and binary64 as Baton has them; 96 (ILP32) and 128 (LP64) bits are
/// CBMC's `long double`, an IEEE format with 15 exponent bits and 80 or 112 fraction bits, not
/// x87's: its value is rounded to the nearest `long double` (a candidate the replay checks).
fn trace_value(value: &Value) -> Result<i128, String> {
    let data = value.get("data").and_then(Value::as_str);
    let ty = value.get("type").and_then(Value::as_str).unwrap_or("");
    let name = value.get("name").and_then(Value::as_str).unwrap_or("");
    if [ty, name].iter().any(|t| *t == "float" || *t == "double") {
        let binary = value.get("binary").and_then(Value::as_str).unwrap_or("");
        let bad = || format!("bad binary value {binary:?} of a {ty}{name}");
        let wide = |model: DataModel, fraction_bits: u32| {
            let raw = u128::from_str_radix(binary, 2).map_err(|_| bad())?;
            Ok(float::from_interchange(
                raw,
                15,
                fraction_bits,
                model.long_double(),
            ))
        };
        return match binary.len() {
            96 => wide(DataModel::ILP32, 80),
            128 => wide(DataModel::LP64, 112),
            _ => parse_binary(binary, false).ok_or_else(bad),
        };
    }
    if let Some(v) = data.and_then(parse_c_integer_literal) {
        return Ok(v);
    }
    let binary = value
        .get("binary")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("value {data:?} is not an integer and has no binary form"))?;
    let signed = if ty.starts_with("unsigned") || ty == "_Bool" || ty.contains("size_t") {
        false
    } else if ty.starts_with("signed") || ty == "char" {
        true
    } else {
        return Err(format!("value {data:?} of type {ty:?}: signedness unknown"));
    };
    parse_binary(binary, signed).ok_or_else(|| format!("bad binary value {binary:?}"))
}

/// Parses a decimal C integer literal with an optional `u`/`l` suffix, or `TRUE`/`FALSE`.
fn parse_c_integer_literal(text: &str) -> Option<i128> {
    match text {
        "TRUE" => return Some(1),
        "FALSE" => return Some(0),
        _ => {}
    }
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let unsigned = digits.strip_prefix('-').unwrap_or(digits);
    if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<i128>().ok()
}

fn parse_binary(bits: &str, signed: bool) -> Option<i128> {
    if bits.is_empty() || bits.len() > 64 || !bits.bytes().all(|b| b == b'0' || b == b'1') {
        return None;
    }
    let raw = u128::from_str_radix(bits, 2).ok()?;
    let width = bits.len() as u32;
    if signed && bits.starts_with('1') {
        Some(raw as i128 - (1i128 << width))
    } else {
        i128::try_from(raw).ok()
    }
}

/// Parses `cbmc --version` output (`6.6.0 (cbmc-6.6.0)`) into (major, minor, patch).
pub fn parse_version(stdout: &str) -> Option<(u32, u32, u32)> {
    let first = stdout.split_whitespace().next()?;
    let mut parts = first.split('.').map(|p| p.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??, parts.next()??))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recorded from real CBMC 6.6.0 runs on the own programs in tests/data/cbmc/
    /// (commands: tests/data/cbmc/record.sh, which uses exactly [`pipeline`]'s argv).
    fn recorded(name: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/cbmc")
            .join(format!("{name}.json"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    #[test]
    fn safe_program() {
        assert_eq!(parse_output(&recorded("safe"), Some(0), 5), CbmcOutcome::Safe);
    }

    #[test]
    fn empty_reach_error_body_is_a_violation_with_values() {
        assert_eq!(
            parse_output(&recorded("empty_reach_error"), Some(10), 5),
            CbmcOutcome::Violation {
                property: "reach_error.assertion.1".into(),
                nondet_values: vec![-7, 200],
            }
        );
    }

    #[test]
    fn verifier_error_is_a_violation() {
        assert_eq!(
            parse_output(&recorded("verifier_error"), Some(10), 5),
            CbmcOutcome::Violation {
                property: "__baton_VERIFIER_error.assertion.1".into(),
                nondet_values: vec![2323821827744320499, 4000000000],
            }
        );
    }

    #[test]
    fn ilp32_types_values() {
        assert_eq!(
            parse_output(&recorded("types_ilp32"), Some(10), 5),
            CbmcOutcome::Violation {
                property: "reach_error.assertion.1".into(),
                nondet_values: vec![1, -100, -30000, 4294967295, -5000000000],
            }
        );
    }

    /// CBMC's `long double` values (80 and 112 fraction bits under ILP32 and LP64) as x87
    /// patterns, a subnormal included; a `double` beside them as its own bits.
    #[test]
    fn long_double_values_in_both_data_models() {
        for (name, model) in [
            ("long_double_ilp32", DataModel::ILP32),
            ("long_double_lp64", DataModel::LP64),
        ] {
            let ld = model.long_double();
            let literal = |text: &str| float::parse_literal(text, ld).expect("literal");
            assert_eq!(
                parse_output(&recorded(name), Some(10), 5),
                CbmcOutcome::Violation {
                    property: "reach_error.assertion.1".into(),
                    nondet_values: vec![
                        literal("2.5"),
                        float::negate(literal("0x1.8p-16400"), ld),
                        i128::from(0.25f64.to_bits()),
                    ],
                },
                "{name}"
            );
        }
    }

    #[test]
    fn nondet_calls_in_every_assignment_form() {
        match parse_output(&recorded("assign_forms"), Some(10), 5) {
            CbmcOutcome::Violation { nondet_values, .. } => {
                assert_eq!(nondet_values.len(), 4, "{nondet_values:?}");
                assert_eq!(nondet_values[..2], [5, 65535]);
                let sum = (nondet_values[2] as i32).wrapping_add(nondet_values[3] as i32);
                assert_eq!(sum, -3);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn nondet_call_without_value_is_an_error() {
        let call = |kind: &str| serde_json::json!({"stepType": kind, "hidden": false, "function": {"identifier": "__baton_nondet_int"}});
        let trace = vec![call("function-call"), call("function-return")];
        assert!(nondet_values(&trace).is_err());
        let assign = serde_json::json!({"stepType": "assignment", "hidden": false,
            "lhs": "goto_symex$$return_value$$__baton_nondet_int",
            "value": {"binary": "11111111111111111111111111111101", "data": "-3", "type": "signed int"}});
        let trace = vec![call("function-call"), assign, call("function-return")];
        assert_eq!(nondet_values(&trace), Ok(vec![-3]));
        assert!(nondet_values(&[call("function-return")]).is_err());
    }

    #[test]
    fn loop_and_recursion_beyond_bound() {
        assert_eq!(
            parse_output(&recorded("loop"), Some(10), 5),
            CbmcOutcome::SafeWithinBound { unwind: 5 }
        );
        assert_eq!(
            parse_output(&recorded("recursion"), Some(10), 5),
            CbmcOutcome::SafeWithinBound { unwind: 5 }
        );
    }

    #[test]
    fn errors() {
        let out = parse_output(&recorded("input_error"), Some(1), 5);
        assert!(
            matches!(&out, CbmcOutcome::Error(m) if m.contains("Failed to figure out type of file")),
            "{out:?}"
        );
        assert!(matches!(parse_output("", None, 5), CbmcOutcome::Error(_)));
        assert!(matches!(parse_output("{}", Some(0), 5), CbmcOutcome::Error(_)));
        // Exit code that contradicts the results.
        assert!(matches!(
            parse_output(&recorded("safe"), Some(10), 5),
            CbmcOutcome::Error(_)
        ));
        assert!(matches!(
            parse_output(&recorded("empty_reach_error"), None, 5),
            CbmcOutcome::Error(_)
        ));
    }

    #[test]
    fn unknown_status_of_target_is_an_error() {
        let json = r#"[{"result":[{"property":"reach_error.assertion.1","status":"UNKNOWN"}]}]"#;
        assert!(matches!(parse_output(json, Some(0), 3), CbmcOutcome::Error(m) if m.contains("UNKNOWN")));
    }

    #[test]
    fn other_failing_properties_are_not_violations() {
        let json = r#"[{"result":[
            {"property":"main.assertion.1","status":"FAILURE","trace":[]},
            {"property":"reach_error.assertion.1","status":"SUCCESS"}]}]"#;
        assert_eq!(parse_output(json, Some(10), 3), CbmcOutcome::Safe);
    }

    #[test]
    fn step_failures() {
        assert_eq!(step_failure("goto-cc", Some(0), "", ""), None);
        let e = step_failure(
            "goto-cc",
            Some(1),
            "",
            "prog.c:3:1: error: syntax error before ';'\nPARSING ERROR\n",
        );
        assert!(
            matches!(e, Some(CbmcOutcome::Error(m)) if m.contains("PARSING ERROR") && m.contains("exit code 1"))
        );
    }

    #[test]
    fn values() {
        assert_eq!(parse_c_integer_literal("-7"), Some(-7));
        assert_eq!(
            parse_c_integer_literal("18446744073709551615ul"),
            Some(u64::MAX as i128)
        );
        assert_eq!(parse_c_integer_literal("FALSE"), Some(0));
        assert_eq!(parse_c_integer_literal("NULL"), None);
        assert_eq!(parse_c_integer_literal("u"), None);
        assert_eq!(parse_binary("11111001", true), Some(-7));
        assert_eq!(parse_binary("11111001", false), Some(249));
        assert_eq!(parse_binary(&"1".repeat(64), true), Some(-1));
        assert_eq!(parse_binary(&"1".repeat(127), true), None);
        assert_eq!(parse_binary("102", false), None);
        let v: Value = serde_json::json!({"binary": "1111", "data": "x", "type": "unsigned char"});
        assert_eq!(trace_value(&v), Ok(15));
        let v: Value = serde_json::json!({"binary": "1111", "data": "x", "type": "struct s"});
        assert!(trace_value(&v).is_err());
        assert_eq!(parse_version("6.6.0 (cbmc-6.6.0)\n"), Some((6, 6, 0)));
        assert_eq!(parse_version("garbage"), None);
    }

    #[test]
    fn pipeline_argv() {
        let tools = CbmcTools {
            goto_cc: "goto-cc".into(),
            goto_instrument: "goto-instrument".into(),
            cbmc: "cbmc".into(),
        };
        let p = pipeline(&tools, Path::new("p.c"), Path::new("/w"), DataModel::ILP32, 7);
        let compile = p.compile.argv_lossy();
        assert_eq!(
            compile[..3],
            ["goto-cc", "-m32", "-D__VERIFIER_error=__baton_VERIFIER_error"]
        );
        assert_eq!(compile[compile.len() - 3..], ["p.c", "-o", "/w/prog.gb"]);
        assert_eq!(
            p.verify.argv_lossy(),
            [
                "cbmc",
                "--no-standard-checks",
                "--unwind",
                "7",
                "--unwinding-assertions",
                "--json-ui",
                "/w/prog.instrumented.gb"
            ]
        );
        assert_eq!(
            p.compile.args.len(),
            5 + NONDET_SUFFIXES.len() + FLOAT_NONDET_SUFFIXES.len()
        );
        for renamed in ["int", "double", "long_double"] {
            let define = format!("-D__VERIFIER_nondet_{renamed}=__baton_nondet_{renamed}");
            assert!(p.compile.argv_lossy().contains(&define), "{define}");
        }
        assert_eq!(p.instrument.args.len(), 10);
        assert_eq!(
            p.instrument_nondet.argv_lossy(),
            [
                "goto-instrument",
                "--generate-function-body",
                "^__baton_nondet_[a-z_0-9]+$",
                "--generate-function-body-options",
                "nondet-return",
                "/w/prog.errors.gb",
                "/w/prog.instrumented.gb"
            ]
        );
    }
}
