#!/usr/bin/env bash
# Measures how closely the native analyses keep their soft `cpu-time` give-up, condition writing
# included: `baton bench` runs every task of the shared MANIFEST.csv (column task_yml) with
#   explicit:  verify --analysis explicit  --give-up cpu-time=${EXPLICIT_LIMIT}s (default 2)
#   predicate: verify --analysis predicate --give-up cpu-time=${PREDICATE_LIMIT}s (default 5)
# one run at a time (niced), the condition rendered as GraphML to /dev/null, and records the
# CPU time of each whole `baton verify` process. For runs that gave up on cpu-time it prints the
# ratio CPU used ÷ give-up (median, maximum) and how many runs exceed max(1.05 × limit,
# limit + 0.3 s); also every other run above that bound, and peak memory.
#
# Usage: scripts/measure-give-up.sh
# Env:   BATON_SV_BENCHMARKS (default /work/shared/benchmarks/sv-benchmarks),
#        BATON (a baton executable; default: the release build of this checkout, built first),
#        OUT (results folder, default a temp dir; rerunning with the same folder resumes),
#        EXPLICIT_LIMIT, PREDICATE_LIMIT (seconds), HARD_LIMIT (kill limit per run, default 120s),
#        MEMLIMIT (per run, default 8GB).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
tasks="${BATON_SV_BENCHMARKS:-/work/shared/benchmarks/sv-benchmarks}"
explicit_limit="${EXPLICIT_LIMIT:-2}"
predicate_limit="${PREDICATE_LIMIT:-5}"
out="${OUT:-$(mktemp -d)}"
if [ -z "${BATON:-}" ]; then
  (cd "$here" && cargo build --release --quiet)
  BATON="${CARGO_TARGET_DIR:-$here/target}/release/baton"
fi
condition="--condition-format graphml --condition-out /dev/null"
nice -n 10 "$BATON" bench --manifest "$tasks/MANIFEST.csv" \
  --run "explicit=verify --analysis explicit --give-up cpu-time=${explicit_limit}s $condition" \
  --run "predicate=verify --analysis predicate --give-up cpu-time=${predicate_limit}s $condition" \
  --jobs 1 --timelimit "${HARD_LIMIT:-120s}" --memlimit "${MEMLIMIT:-8GB}" \
  --output-dir "$out" --name give-up >&2

python3 - "$out/results.jsonl" "$explicit_limit" "$predicate_limit" <<'PY'
import json, statistics, sys
path, limits = sys.argv[1], {"explicit": float(sys.argv[2]), "predicate": float(sys.argv[3])}
runs = {}
for line in open(path):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    runs[(r["run_definition"], r["task"])] = r  # later lines win (resumed runs)
print(f"results: {path}")
for name, limit in limits.items():
    rs = [r for (n, _), r in sorted(runs.items()) if n == name]
    bound = max(1.05 * limit, limit + 0.3)
    gave_up = [r for r in rs if (r.get("reason") or "").startswith("gave up: cpu-time")]
    ratios = sorted((r["cpu_time_s"] / limit, r["task"].split("/c/")[-1]) for r in gave_up)
    over = [r for r in rs if r["cpu_time_s"] > bound]
    mem = sorted(r["memory_bytes"] for r in rs if r.get("memory_bytes"))
    print(f"\n{name}, give-up cpu-time={limit:g}s: {len(rs)} runs, {len(gave_up)} gave up on cpu-time")
    if ratios:
        med = statistics.median(x for x, _ in ratios)
        print(f"  CPU used / give-up: median {med:.3f}, max {ratios[-1][0]:.3f} ({ratios[-1][1]})")
        print(f"  gave up above max(1.05 x, +0.3 s) = {bound:.2f} s: "
              f"{sum(1 for x, _ in ratios if x * limit > bound)} of {len(ratios)}")
    for r in over:
        print(f"  above {bound:.2f} s: {r['task'].split('/c/')[-1]}: {r['cpu_time_s']:.2f} s, "
              f"{r['status']} ({r.get('reason') or ''})")
    if mem:
        print(f"  peak memory: median {statistics.median(mem) / 1e6:.0f} MB, max {mem[-1] / 1e6:.0f} MB")
PY
