#!/usr/bin/env bash
# How many tasks of a MANIFEST.csv table `baton cfa` lowers, and why the others are rejected.
# Usage: scripts/measure-lowering.sh [TABLE] [BATON]   (default: D, target/release/baton)
# Needs BATON_SV_BENCHMARKS.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BATON_SV_BENCHMARKS:?set BATON_SV_BENCHMARKS to the sv-benchmarks folder}"
table=${1:-D}
baton=${2:-target/release/baton}
lowered=0
total=0
reasons=$(mktemp)
trap 'rm -f "$reasons"' EXIT
while IFS=, read -r tables _ yml _; do
    [[ "+$tables+" == *"+$table+"* ]] || continue
    total=$((total + 1))
    task="$BATON_SV_BENCHMARKS/$yml"
    file=$(sed -n "s/^input_files: *'\{0,1\}\([^']*\)'\{0,1\}$/\1/p" "$task")
    model=$(grep -q 'data_model: *LP64' "$task" && echo LP64 || echo ILP32)
    if err=$(timeout 60 "$baton" cfa --data-model "$model" "$(dirname "$task")/$file" 2>&1 >/dev/null); then
        lowered=$((lowered + 1))
    else
        # The construct, with recursion cycles counted as one reason.
        echo "$err" | head -n1 | sed 's/.*unsupported: //; s/^recursion .*/recursion/' >>"$reasons"
    fi
done < <(tail -n +2 "$BATON_SV_BENCHMARKS/MANIFEST.csv")
echo "table $table: $lowered of $total tasks lower"
sort "$reasons" | uniq -c | sort -rn
