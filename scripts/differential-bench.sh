#!/usr/bin/env bash
# The gcc differential benchmark: every generator of tests/differential_gcc.rs (integers and
# arrays, floats, structs, pointers and the heap) at PROGRAMS programs each, per data model
# (-m64 and -m32), 24 input lists per program: runs = 4 generators x PROGRAMS x 2 x 24.
# The test executable is built once, then each generator runs in turn (one process at a time,
# at low priority); prints each generator's runs and disagreements and its CPU and wall time
# (with gcc's compilations and the native runs).
# Usage: scripts/differential-bench.sh [PROGRAMS] [FIRST_SEED]
#        (default: 2700 programs from seed 0: 518,400 runs, 129,600 of them pointer/heap ones)
set -euo pipefail
cd "$(dirname "$0")/.."
programs=${1:-2700}
first=${2:-0}
exe=$(cargo test --test differential_gcc --no-run --message-format=json |
    sed -n 's/.*"executable":"\([^"]*differential_gcc[^"]*\)".*/\1/p' | tail -n 1)
[[ -x "$exe" ]] || { echo "cannot find the differential_gcc test executable" >&2; exit 1; }
export BATON_DIFF_PROGRAMS=$programs BATON_DIFF_FIRST_SEED=$first
for test in interpreter_agrees_with_gcc_on_pointer_programs \
    interpreter_agrees_with_gcc_on_struct_programs \
    interpreter_agrees_with_gcc_on_float_programs \
    interpreter_agrees_with_gcc_on_generated_programs; do
    echo "== $test ($programs programs per data model from seed $first)"
    /usr/bin/time -f "$test: %e s wall, %U s user, %S s system" \
        nice -n 10 "$exe" --exact "$test" --nocapture 2>&1 |
        grep -E "runs|disagreement|wall|seed|panicked|test result" || true
done
