//! The validator on invariants that are large disjunctions (an analysis' abstraction: many
//! cubes over its predicates), which it checks by enumerating the truth values of their atoms
//! after each path rather than by one query against their negation: an inductive one is
//! confirmed, and no mutation that breaks it is.

use baton::cfa::{LocId, Program};
use baton::frontend::load_program;
use baton::witness::correctness::ProofInvariants;
use baton::witness::inductive::{CheckLimits, ENUMERATE_MIN_DISJUNCTS};
use baton::witness::validate::{validate_text, Judgement, Validation};
use baton::witness::{write_witness, Evidence, WitnessFormat};
use std::path::Path;
use std::time::Duration;

/// A ring of ten phases, each with its own token value; the error needs a phase outside the
/// ring or a token that is not its phase's. At the loop head (line 9) the invariant is one
/// cube per phase: `phase == k && token == 3 * k` (ten disjuncts).
const RING: &str = "extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int main(void) {
  int phase = 0;
  int token = 0;
  int steps = __VERIFIER_nondet_int();
  if (steps < 0) {
    return 0;
  }
  while (steps > 0) {
    if (phase == 9) {
      phase = 0;
      token = 0;
    } else {
      phase = phase + 1;
      token = token + 3;
    }
    steps--;
  }
  if (phase < 0 || phase > 9 || token != 3 * phase) {
    reach_error();
  }
  return 0;
}
";

// The ring's invariant of ten cubes is one the validator checks cube by cube.
const _: () = assert!(10 >= ENUMERATE_MIN_DISJUNCTS);

fn cubes(phases: impl Iterator<Item = i32>, token: impl Fn(i32) -> i32) -> String {
    phases
        .map(|k| format!("(phase == {k} && token == {})", token(k)))
        .collect::<Vec<_>>()
        .join(" || ")
}

fn loop_head(program: &Program) -> LocId {
    program
        .location_ids()
        .find(|&l| program.location(l).loop_head)
        .expect("a loop head")
}

fn validate(program: &Program, dir: &Path, name: &str, invariant: &str) -> Validation {
    let file = dir.join(name);
    let evidence = Evidence::Invariants(ProofInvariants {
        loops: vec![(loop_head(program), invariant.to_string())],
        contracts: Vec::new(),
    });
    write_witness(Some(program), &evidence, &file, WitnessFormat::Yaml).expect("witness written");
    let text = std::fs::read_to_string(&file).expect("witness readable");
    let limits = CheckLimits {
        cpu_time: Duration::from_secs(60),
        ..CheckLimits::default()
    };
    validate_text(program, &text, name, limits).expect("witness readable")
}

#[test]
fn a_disjunction_of_cubes_is_checked_cube_by_cube() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("ring.c");
    std::fs::write(&path, RING).expect("write program");
    let p = load_program(&path, Default::default()).expect("program lowers");
    let exact = cubes(0..10, |k| 3 * k);
    let v = validate(&p, dir.path(), "exact.yml", &exact);
    assert_eq!(v.judgement, Judgement::Confirmed, "{}", v.reason);
    // A redundant cube over another atom: still inductive.
    let redundant = format!("{exact} || (phase == 3 && token == 9 && steps < 0)");
    let v = validate(&p, dir.path(), "redundant.yml", &redundant);
    assert_eq!(v.judgement, Judgement::Confirmed, "{}", v.reason);
    let mutations = [
        // A phase left out: its predecessor's cube steps outside the invariant.
        cubes((0..10).filter(|&k| k != 5), |k| 3 * k),
        // One token wrong: the cube before it leads elsewhere.
        cubes(0..10, |k| if k == 7 { 22 } else { 3 * k }),
        // The ring closes at the wrong phase.
        cubes(0..9, |k| 3 * k),
        // A cube from which the error is reached.
        format!("{exact} || (phase == 10 && token == 30)"),
    ];
    for (i, mutated) in mutations.iter().enumerate() {
        let v = validate(&p, dir.path(), &format!("mutated-{i}.yml"), mutated);
        assert_ne!(
            v.judgement,
            Judgement::Confirmed,
            "`{mutated}` confirmed: {}",
            v.reason
        );
    }
}
