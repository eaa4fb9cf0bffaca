#!/usr/bin/env bash
# Incremental re-verification (seed 002) against verification from scratch, per version
# sequence of benchmarks/incremental/sequences.yaml: `baton bench --sequences` runs every
# version with the predicate and the explicit analysis once from scratch (run sets `predicate`,
# `explicit`) and once from the proof the previous version's incremental run left (run sets
# `predicate.incremental`, `explicit.incremental`; the first version of a sequence only writes
# its proof), one run at a time, niced, under a memory limit. Per analysis:
# Prints per version and per sequence the CPU time of the whole `baton verify` process (loading,
# the line diff and writing the proof included), the states explored (scratch: all reached
# states; incremental: states explored anew, with the old nodes reused) and both verdicts, and
# the totals (also over the re-verifications alone: the first version of a sequence costs about
# the same both ways). The bench results stay in OUT (compare them with `baton table OUT`).
#
# Usage: scripts/measure-incremental.sh [OUT]   (default OUT: a temporary folder, removed)
# Env:   BATON_SV_BENCHMARKS (default /work/shared/benchmarks/sv-benchmarks), BATON (a baton
#        executable; default: the release build of this checkout, built first), LIMIT (cpu-time
#        give-up per run in seconds, default 60), MEMLIMIT (per run, default 8GB), WALLLIMIT
#        (wall time per run in seconds, default 10 × LIMIT: a loaded machine stretches it),
#        ANALYSES (default "predicate explicit").
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
export BATON_SV_BENCHMARKS="${BATON_SV_BENCHMARKS:-/work/shared/benchmarks/sv-benchmarks}"
limit="${LIMIT:-60}"
if [ -z "${BATON:-}" ]; then
  (cd "$here" && cargo build --release --quiet)
  BATON="${CARGO_TARGET_DIR:-$here/target}/release/baton"
fi
if [ "$#" -gt 0 ]; then
  out="$1"
else
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
fi

analyses="${ANALYSES:-predicate explicit}"
runs=()
for a in $analyses; do
  runs+=(--run "$a=verify --analysis $a --give-up cpu-time=${limit}s")
done
nice -n 10 "$BATON" bench --sequences "$here/benchmarks/incremental/sequences.yaml" "${runs[@]}" \
  --timelimit "$((limit + 30))s" --walltimelimit "${WALLLIMIT:-$((limit * 10))}s" --memlimit "${MEMLIMIT:-8GB}" --jobs 1 --output-dir "$out" >&2

python3 - "$out/results.jsonl" $analyses <<'PY'
import json, sys
runs = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    seq = r.get("sequence")
    if seq:
        runs[(r["run_definition"], seq["name"], seq["index"])] = r
seqs = {}
for (rd, name, i), r in runs.items():
    seqs.setdefault(name, set()).add(i)
for analysis in sys.argv[2:]:
  print(f"== {analysis} analysis")
  print(f"{'sequence':15} {'version':32} {'verdict scratch':20} {'verdict incr':20} {'cpu scratch':>11} {'cpu incr':>9} {'states scratch':>14} {'new states':>10} {'reused/old':>15}")
  tot_s = tot_i = later_s = later_i = 0.0
  all_same = True
  for name, indices in seqs.items():
      seq_s = seq_i = 0.0
      st_s = st_i = 0
      for i in sorted(indices):
          s = runs[(analysis, name, i)]
          n = runs[(analysis + ".incremental", name, i)]
          inc = n.get("incremental")
          new = inc["new_states"] if inc else (n.get("reached_states") or 0)
          reuse = f"{inc['reused_nodes']}/{inc['old_nodes']}" if inc else "-"
          same = s["verdict"] == n["verdict"]
          all_same &= same
          task = "/".join(s["task"].split("/")[-1:])
          print(f"{name:15} {task:32} {s['status']:20} {n['status']:20} {s['cpu_time_s']:11.2f} {n['cpu_time_s']:9.2f} {s.get('reached_states') or 0:14} {new:10} {reuse:>15}{'' if same else '  VERDICTS DIFFER'}")
          seq_s += s["cpu_time_s"]; seq_i += n["cpu_time_s"]; st_s += s.get("reached_states") or 0; st_i += new
          if i > 0:
              later_s += s["cpu_time_s"]; later_i += n["cpu_time_s"]
      print(f"{name:15} {'total':32} {'':20} {'':20} {seq_s:11.2f} {seq_i:9.2f} {st_s:14} {st_i:10}   incr/scratch CPU {seq_i / seq_s if seq_s else float('nan'):.2f}")
      tot_s += seq_s; tot_i += seq_i
  print(f"all sequences: CPU scratch {tot_s:.2f} s, incremental {tot_i:.2f} s, ratio {tot_i / tot_s if tot_s else float('nan'):.2f}; verdicts {'the same' if all_same else 'DIFFER'}")
  print(f"re-verifications only (every version but the first of a sequence): CPU scratch {later_s:.2f} s, incremental {later_i:.2f} s, ratio {later_i / later_s if later_s else float('nan'):.2f}")
PY
