//! The validator checks the loop-free region between cut points as one formula, its paths
//! merged where they meet (large-block encoding): a loop body of 24 two-way branches has 2^24
//! paths from the loop head back to it — far beyond what checking path by path could do — and
//! its invariant is confirmed; mutations of it are not. A region of more paths than the
//! validator walks one by one is checked as one formula at once, and so is a region whose walk
//! runs out of steps. A region whose one formula is stuck is split at its branch points.

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

/// Branches of the loop body split path by path: 2^13 = 8,192 paths, more than the
/// validator walks before it checks a region as one formula.
const SPLIT_BRANCHES: usize = 13;

/// The loop at line 6 with `branches` branches one after the other in its body; each adds 1
/// or 2 to `s`, which stays positive.
fn many_paths(branches: usize) -> String {
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
        branch.repeat(branches)
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

/// `s >= 0` at the loop head of a body of `branches` branches is confirmed by `validate`;
/// mutations of it are not.
fn judged_rightly(branches: usize, validate: impl Fn(&Program, &str) -> Validation) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, p) = program(dir.path(), "many_paths.c", &many_paths(branches));
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
    judged_rightly(BRANCHES, validate);
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
    judged_rightly(BRANCHES, validate_walk_first);
}

/// Validates `text` with every one-formula check stuck at once (no time for it): each region
/// is split at its branch points, down to single paths.
fn validate_split(program: &Program, text: &str) -> Validation {
    let limits = CheckLimits {
        cpu_time: Duration::from_secs(60),
        formula_share: 0.0,
        ..CheckLimits::default()
    };
    validate_text(program, text, "witness.yml", limits).expect("witness readable")
}

/// A region of more paths than are walked one by one, whose one formula is stuck, is split at
/// its branch points and still confirmed; its mutations are still not.
#[test]
fn a_stuck_formula_is_split_at_the_branch_points() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, p) = program(dir.path(), "split.c", &many_paths(SPLIT_BRANCHES));
    let head = loop_head(&p);
    let region = baton::witness::region::build(&p, head, &|l| l == head, &p.recursive_functions(), 100_000)
        .expect("the loop body is a region");
    assert!(region.paths(u64::MAX) > CheckLimits::default().walked_paths);
    judged_rightly(SPLIT_BRANCHES, validate_split);
}
