#!/usr/bin/env bash
# How many development-set tasks (rows D of MANIFEST.csv, mostly programs Baton's frontend cannot
# lower yet) a flow with a CBMC stage decides, and whether any verdict is wrong.
# Usage: scripts/measure-unsupported.sh [FLOW ...]   (default: configs/comb-b.yaml)
# Needs BATON_SV_BENCHMARKS, CBMC on PATH (/opt/baton-tools/bin) and a release build.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BATON_SV_BENCHMARKS:?set BATON_SV_BENCHMARKS to the sv-benchmarks folder}"
flows=("$@")
[ ${#flows[@]} -gt 0 ] || flows=(configs/comb-b.yaml)
out=$(mktemp -d /tmp/baton-unsupported-XXXXXX)
runs=()
for f in "${flows[@]}"; do runs+=(--run "$(basename "$f" .yaml)=run $f"); done
target/release/baton bench --manifest "$BATON_SV_BENCHMARKS/MANIFEST.csv" --table D \
    "${runs[@]}" --timelimit 120s --memlimit 4GB --jobs 1 --output-dir "$out" --name unsupported
target/release/baton table "$out"
echo "results: $out"
