#!/usr/bin/env bash
# Incremental re-verification (seed 002) against verification from scratch, per version
# sequence of benchmarks/incremental/sequences.txt: every version is verified by the predicate
# analysis once from scratch and once from the proof the previous version's incremental run
# left (`--proof-in`/`--proof-out`; the first version of a sequence only writes its proof).
# Prints per version and per sequence the CPU time of the whole `baton verify` process
# (loading, the line diff and writing the proof included), the states explored (scratch: all
# reached states; incremental: states explored anew, with the old nodes reused) and both
# verdicts, and the totals (also over the re-verifications alone: the first version of a
# sequence costs the same both ways). Runs one at a time, niced, under a memory limit.
#
# Usage: scripts/measure-incremental.sh [SEQUENCE_NAME…]   (default: every sequence)
# Env:   BATON_SV_BENCHMARKS (default /work/shared/benchmarks/sv-benchmarks), BATON (a baton
#        executable; default: the release build of this checkout, built first), LIMIT (cpu-time
#        give-up per run in seconds, default 60), MEMLIMIT_KB (ulimit -v, default 8000000).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
tasks="${BATON_SV_BENCHMARKS:-/work/shared/benchmarks/sv-benchmarks}"
limit="${LIMIT:-60}"
if [ -z "${BATON:-}" ]; then
  (cd "$here" && cargo build --release --quiet)
  BATON="${CARGO_TARGET_DIR:-$here/target}/release/baton"
fi
list="$here/benchmarks/incremental/sequences.txt"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# run TASK OUT.json [verify options…]: one verify process; appends its CPU time to the JSON.
run() {
  local task="$1" out="$2"
  shift 2
  ( ulimit -v "${MEMLIMIT_KB:-8000000}"
    /usr/bin/time -f '%U %S' -o "$out.time" nice -n 10 "$BATON" verify "$task" --analysis predicate \
      --give-up "cpu-time=${limit}s" --json "$@" >"$out" 2>"$out.err" ) || true
}

grep -v '^#' "$list" | grep -v '^$' | while read -r name versions; do
  if [ "$#" -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  i=0
  prev=""
  for v in $versions; do
    case "$v" in sv:*) task="$tasks/${v#sv:}" ;; *) task="$here/benchmarks/incremental/$v" ;; esac
    run "$task" "$work/$name.$i.scratch.json"
    if [ -n "$prev" ]; then
      run "$task" "$work/$name.$i.incr.json" --proof-in "$prev" --proof-out "$work/$name.$i.proof"
    else
      run "$task" "$work/$name.$i.incr.json" --proof-out "$work/$name.$i.proof"
    fi
    prev="$work/$name.$i.proof"
    echo "$name $i $(basename "$task")" >>"$work/index"
    i=$((i + 1))
  done
done

python3 - "$work" <<'PY'
import json, sys, os
work = sys.argv[1]
def load(path):
    try:
        d = json.load(open(path))
    except Exception:
        err = open(path + ".err").read().strip().splitlines()
        d = {"verdict": "ERROR", "reason": err[-1] if err else "no output"}
    try:
        u, s = open(path + ".time").read().split()[-2:]
        d["cpu"] = float(u) + float(s)
    except Exception:
        d["cpu"] = float("nan")
    return d
rows = [l.split() for l in open(os.path.join(work, "index"))]
seqs = {}
for name, i, task in rows:
    seqs.setdefault(name, []).append((int(i), task))
print(f"{'sequence':15} {'version':32} {'verdict scratch':20} {'verdict incr':20} {'cpu scratch':>11} {'cpu incr':>9} {'states scratch':>14} {'new states':>10} {'reused/old':>15}")
tot_s = tot_i = later_s = later_i = 0.0
all_same = True
for name, versions in seqs.items():
    seq_s = seq_i = 0.0
    st_s = st_i = 0
    for i, task in versions:
        s = load(os.path.join(work, f"{name}.{i}.scratch.json"))
        n = load(os.path.join(work, f"{name}.{i}.incr.json"))
        inc = n.get("incremental") or {}
        new = inc.get("new_states", n.get("reached_states", 0))
        reuse = f"{inc['reused_nodes']}/{inc['old_nodes']}" if inc else "-"
        same = s["verdict"] == n["verdict"]
        all_same &= same
        print(f"{name:15} {task:32} {s['verdict']:20} {n['verdict']:20} {s['cpu']:11.2f} {n['cpu']:9.2f} {s.get('reached_states', 0):14} {new:10} {reuse:>15}{'' if same else '  VERDICTS DIFFER'}")
        seq_s += s["cpu"]; seq_i += n["cpu"]; st_s += s.get("reached_states", 0); st_i += new
        if i > 0:
            later_s += s["cpu"]; later_i += n["cpu"]
    print(f"{name:15} {'total':32} {'':20} {'':20} {seq_s:11.2f} {seq_i:9.2f} {st_s:14} {st_i:10}   incr/scratch CPU {seq_i / seq_s if seq_s else float('nan'):.2f}")
    tot_s += seq_s; tot_i += seq_i
print(f"all sequences: CPU scratch {tot_s:.2f} s, incremental {tot_i:.2f} s, ratio {tot_i / tot_s if tot_s else float('nan'):.2f}; verdicts {'the same' if all_same else 'DIFFER'}")
print(f"re-verifications only (every version but the first of a sequence): CPU scratch {later_s:.2f} s, incremental {later_i:.2f} s, ratio {later_i / later_s if later_s else float('nan'):.2f}")
PY
