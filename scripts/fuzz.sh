#!/usr/bin/env bash
# A long fuzzing campaign over Baton's inputs (tests/support/fuzz.rs): C programs, flows,
# conditions, task and benchmark definitions, each run through the CLI under a wall-time limit.
# Reports inputs run, minutes and failures; failing inputs are kept in target/fuzz-failures
# (reproduce one with BATON_FUZZ_SEED=N cargo test --test fuzz_inputs reproduce_case -- --ignored).
#
# usage: scripts/fuzz.sh [MINUTES] [FIRST_SEED]    (default: 10 minutes, a seed from the clock)
set -euo pipefail
cd "$(dirname "$0")/.."
export BATON_FUZZ_MINUTES="${1:-10}"
if [ -n "${2:-}" ]; then export BATON_FUZZ_FIRST_SEED="$2"; fi
export BATON_FUZZ_KEEP="${BATON_FUZZ_KEEP:-$PWD/target/fuzz-failures}"
exec nice cargo test --test fuzz_inputs long_campaign -- --ignored --nocapture
