#!/usr/bin/env bash
# Regenerates the recorded CBMC outputs (*.json) in this folder from the own test programs here,
# with exactly the pipeline src/adapters/cbmc.rs builds (CBMC 6.6.0 from scripts/install-tools.sh).
# Usage: tests/data/cbmc/record.sh   (uses BATON_TOOLS_DIR/bin or /opt/baton-tools/bin, else PATH)
set -uo pipefail
cd "$(dirname "$0")"
BIN="${BATON_TOOLS_DIR:-/opt/baton-tools}/bin"
[ -x "$BIN/cbmc" ] && PATH="$BIN:$PATH"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
RENAMES=(-D__VERIFIER_error=__baton_VERIFIER_error)
for t in bool char schar uchar short ushort int uint unsigned long ulong longlong ulonglong size_t sizet \
    float double long_double; do
    RENAMES+=("-D__VERIFIER_nondet_$t=__baton_nondet_$t")
done
record() { # name unwind model-flag [output name]
    local name="$1" unwind="$2" flag="$3" out="${4:-$1}"
    goto-cc "$flag" "${RENAMES[@]}" "$name.c" -o "$TMP/$name.gb"
    goto-instrument --remove-function-body reach_error --remove-function-body __baton_VERIFIER_error \
        --generate-function-body '^(reach_error|__baton_VERIFIER_error)$' \
        --generate-function-body-options assert-false "$TMP/$name.gb" "$TMP/$name.errors.gb" >/dev/null 2>&1
    goto-instrument --generate-function-body '^__baton_nondet_[a-z_0-9]+$' \
        --generate-function-body-options nondet-return "$TMP/$name.errors.gb" "$TMP/$name.instrumented.gb" >/dev/null 2>&1
    cbmc --no-standard-checks --unwind "$unwind" --unwinding-assertions --json-ui \
        "$TMP/$name.instrumented.gb" > "$out.json"
    echo "$out: cbmc exit code $?"
}
record safe 5 -m64
record empty_reach_error 5 -m64
record verifier_error 5 -m64
record loop 5 -m32
record recursion 5 -m64
record types_ilp32 5 -m32
record assign_forms 5 -m32
record long_double 5 -m32 long_double_ilp32
record long_double 5 -m64 long_double_lp64
# A CBMC input error: the goto binary is not a goto binary.
echo 'not a goto binary' > "$TMP/garbage.gb"
cbmc --no-standard-checks --unwind 5 --unwinding-assertions --json-ui "$TMP/garbage.gb" > input_error.json
echo "input_error: cbmc exit code $?"
