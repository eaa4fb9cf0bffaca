//! Fuzzing Baton's command line with generated and mutated inputs (tests/support/fuzz.rs): C
//! programs, flows, conditions in both formats, task and benchmark definitions. Every run must
//! end without a panic, a signal or a hang, and an input error must name its file.
//!
//! The CI run is short and deterministic (`BATON_FUZZ_INPUTS` inputs from seed
//! `BATON_FUZZ_FIRST_SEED`, default 250 from 0). A long campaign: `scripts/fuzz.sh MINUTES`.

#[path = "support/cgen.rs"]
mod cgen;
#[path = "support/fuzz.rs"]
mod fuzz;

use std::time::{Duration, Instant};

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn generated_and_mutated_inputs_end_cleanly() {
    let baton = fuzz::baton_binary(env!("CARGO_BIN_EXE_baton"));
    let count = env_number("BATON_FUZZ_INPUTS", 250) as usize;
    let first = env_number("BATON_FUZZ_FIRST_SEED", 0);
    let started = Instant::now();
    let c = fuzz::campaign(&baton, first, count, None, None);
    let report = fuzz::summary(&c, started.elapsed());
    eprintln!("{report}");
    assert_eq!(c.inputs, count);
    assert!(c.failures.is_empty(), "{report}");
}

/// The long campaign `scripts/fuzz.sh` starts: random first seed (or `BATON_FUZZ_FIRST_SEED`),
/// `BATON_FUZZ_MINUTES` minutes, failing inputs kept in `BATON_FUZZ_KEEP` (default
/// `target/fuzz-failures`).
#[test]
#[ignore = "long campaign: scripts/fuzz.sh"]
fn long_campaign() {
    let baton = fuzz::baton_binary(env!("CARGO_BIN_EXE_baton"));
    let minutes = env_number("BATON_FUZZ_MINUTES", 10);
    let clock = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let first = env_number("BATON_FUZZ_FIRST_SEED", clock.as_secs() * 1000);
    let keep = std::env::var("BATON_FUZZ_KEEP").unwrap_or_else(|_| "target/fuzz-failures".into());
    let started = Instant::now();
    let deadline = started + Duration::from_secs(minutes * 60);
    let c = fuzz::campaign(
        &baton,
        first,
        usize::MAX,
        Some(deadline),
        Some(std::path::Path::new(&keep)),
    );
    eprintln!("first seed {first}\n{}", fuzz::summary(&c, started.elapsed()));
    assert!(c.failures.is_empty(), "failing inputs kept in {keep}");
}

/// Writes the files of case `BATON_FUZZ_SEED` into `BATON_FUZZ_DIR` (default
/// `target/fuzz-case`) and prints its command, to reproduce a failure.
#[test]
#[ignore = "reproduces one case: BATON_FUZZ_SEED=N"]
fn reproduce_case() {
    let seed = env_number("BATON_FUZZ_SEED", 0);
    let baton = fuzz::baton_binary(env!("CARGO_BIN_EXE_baton"));
    let dir = std::path::PathBuf::from(
        std::env::var("BATON_FUZZ_DIR").unwrap_or_else(|_| "target/fuzz-case".into()),
    );
    std::fs::create_dir_all(&dir).expect("case directory");
    let conditions = fuzz::seed_conditions(&baton, &dir);
    let case = fuzz::make_case(seed, &conditions);
    for (name, content) in &case.files {
        std::fs::write(dir.join(name), content).expect("write case file");
    }
    eprintln!("in {}: baton {}", dir.display(), case.args.join(" "));
}
