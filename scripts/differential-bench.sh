#!/usr/bin/env bash
# The gcc differential benchmark: every generator of tests/differential_gcc.rs (integers and
# arrays, floats, structs, pointers and the heap) at PROGRAMS programs each, per data model
# (-m64 and -m32), 24 input lists per program: runs = 4 generators x PROGRAMS x 2 x 24.
# One test process at a time, at low priority; prints each generator's runs and
# disagreements and the CPU and wall time of the whole.
# Usage: scripts/differential-bench.sh [PROGRAMS] [FIRST_SEED]   (default: 2700 programs, seed 0:
#        518,400 runs, 129,600 of them pointer/heap programs)
set -euo pipefail
cd "$(dirname "$0")/.."
programs=${1:-2700}
first=${2:-0}
cargo test --test differential_gcc --no-run
export BATON_DIFF_PROGRAMS=$programs BATON_DIFF_FIRST_SEED=$first
for test in interpreter_agrees_with_gcc_on_generated_programs \
    interpreter_agrees_with_gcc_on_float_programs \
    interpreter_agrees_with_gcc_on_struct_programs \
    interpreter_agrees_with_gcc_on_pointer_programs; do
    echo "== $test ($programs programs per data model from seed $first)"
    /usr/bin/time -f "$test: %e s wall, %U s user, %S s system (with gcc and the native runs)" \
        nice -n 10 cargo test --test differential_gcc -- --exact "$test" --nocapture 2>&1 |
        grep -E "runs|disagreement|wall|seed|panicked|test result" || true
done
