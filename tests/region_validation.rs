//! The validator checks the loop-free region between cut points as one formula, its paths
//! merged where they meet (large-block encoding): a loop body of 24 two-way branches has 2^24
//! paths from the loop head back to it — far beyond what checking path by path could do — and
//! its invariant is confirmed; mutations of it are not. A region of more paths than the
//! validator walks one by one is checked as one formula at once, and so is a region whose walk
//! runs out of steps.

#[path = "support/witnessing.rs"]
mod witnessing;

use baton::cfa::{LocId, Program};
use baton::witness::correctness::ProofInvariants;
use baton::witness::inductive::CheckLimits;
use baton::witness::validate::Judgement;
use baton::witness::validate::{validate_text, Validation};
use baton::witness::{write_witness, Evidence, WitnessFormat};
use std::path::Path;
use std::time::Duration;
use witnessing::{program, validate};

/// Branches the loop body has, one after the other.
const BRANCHES: usize = 24;

/// The loop at line 6; each branch adds 1 or 2 to `s`, which stays positive.
fn many_paths() -> String {
    let branch =
        "    if (__VERIFIER_nondet_int()) {\n      s = s + 1;\n    } else {\n      s = s + 2;\n    }\n";
    format!(
        "extern int __VERIFIER_nondet_int(void);
void reach_error(void) {{}}
int main(void) {{
  int n = __VERIFIER_nondet_int();
  int s = 0;
  while (n > 0) {{
{}    n = n - 1;
  }}
  if (s < 0) {{
    reach_error();
  }}
  return 0;
}}
",
        branch.repeat(BRANCHES)
    )
}

fn loop_head(program: &Program) -> LocId {
    program
        .location_ids()
        .find(|&l| program.location(l).loop_head)
        .expect("a loop head")
}

/// The witness of `invariant` at the loop head, as text.
fn witness(program: &Program, dir: &Path, invariant: &str) -> String {
    let file = dir.join("w.yml");
    let evidence = Evidence::Invariants(ProofInvariants {
        loops: vec![(loop_head(program), invariant.to_string())],
        contracts: Vec::new(),
    });
    write_witness(Some(program), &evidence, &file, WitnessFormat::Yaml).expect("witness written");
    std::fs::read_to_string(&file).expect("witness readable")
}

/// `s >= 0` at the loop head is confirmed by `validate`; mutations of it are not.
fn judged_rightly(validate: impl Fn(&Program, &str) -> Validation) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, p) = program(dir.path(), "many_paths.c", &many_paths());
    let v = validate(&p, &witness(&p, dir.path(), "s >= 0"));
    assert_eq!(v.judgement, Judgement::Confirmed, "{}", v.reason);
    // False at the loop's entry: refuted by a real execution.
    let v = validate(&p, &witness(&p, dir.path(), "s >= 1"));
    assert_eq!(v.judgement, Judgement::Refuted, "{}", v.reason);
    // True at the entry, not inductive; and inductive but too weak for safety.
    for weak in ["s <= 30", "1"] {
        let v = validate(&p, &witness(&p, dir.path(), weak));
        assert_ne!(v.judgement, Judgement::Confirmed, "`{weak}`: {}", v.reason);
    }
}

#[test]
fn a_loop_body_of_many_paths_is_checked_as_one_formula() {
    judged_rightly(validate);
}

/// Validates `text` with every region walked path by path first, the walk stopped after
/// 1,000 transitions.
fn validate_walk_first(program: &Program, text: &str) -> Validation {
    let limits = CheckLimits {
        cpu_time: Duration::from_secs(30),
        walked_paths: u64::MAX,
        path_steps: 1_000,
        ..CheckLimits::default()
    };
    validate_text(program, text, "witness.yml", limits).expect("witness readable")
}

/// A region whose walk path by path is not through within its steps is checked as one formula
/// after it.
#[test]
fn a_walk_out_of_steps_falls_back_to_one_formula() {
    judged_rightly(validate_walk_first);
}
