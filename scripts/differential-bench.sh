#!/usr/bin/env bash
# The gcc differential benchmark: generators of tests/differential_gcc.rs (pointer: pointers
# and the heap, struct, union: unions of structs, words and byte arrays, float, generated:
# integers and arrays, library: the C library's memory and string functions) at PROGRAMS
# programs each per
# data model (-m64 and -m32), INPUTS input lists per program:
# runs = generators x PROGRAMS x 2 x INPUTS. The test executable is built once, then each
# generator runs in turn (one process at a time, at low priority); prints each generator's runs
# and disagreements and its wall and CPU time (with gcc's compilations and the native runs).
# Usage: scripts/differential-bench.sh [PROGRAMS [INPUTS [FIRST_SEED [GENERATOR...]]]]
#        (default: 660 programs x 96 input lists from seed 0, all six generators:
#        760,320 runs, 126,720 of them pointer/heap programs)
set -euo pipefail
cd "$(dirname "$0")/.."
programs=${1:-660}
inputs=${2:-96}
first=${3:-0}
shift $(($# < 3 ? $# : 3))
generators=("${@:-pointer struct union float generated library}")
exe=$(cargo test --test differential_gcc --no-run --message-format=json |
    sed -n 's/.*"executable":"\([^"]*differential_gcc[^"]*\)".*/\1/p' | tail -n 1)
[[ -x "$exe" ]] || { echo "cannot find the differential_gcc test executable" >&2; exit 1; }
export BATON_DIFF_PROGRAMS=$programs BATON_DIFF_INPUTS=$inputs BATON_DIFF_FIRST_SEED=$first
for generator in ${generators[*]}; do
    test=interpreter_agrees_with_gcc_on_${generator}_programs
    echo "== $test ($programs programs x $inputs input lists per data model from seed $first)"
    /usr/bin/time -f "$test: %e s wall, %U s user, %S s system" \
        nice -n 10 "$exe" --exact "$test" --nocapture 2>&1 |
        grep -E "runs|disagreement|wall|seed|panicked|test result" || true
done
