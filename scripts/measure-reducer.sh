#!/usr/bin/env bash
# Measures Baton's reducer on the Table II tasks (MANIFEST.csv, paper_table contains "II"):
# an explicit-value run with a small give-up limit that leaves work, `baton reduce --stats`,
# and gcc on the residual C (-m32 / -m64 by the task's data model).
#
# Usage: scripts/measure-reducer.sh [GIVE_UP ...]     (default: reached-states=2000)
# Env:   BATON_SV_BENCHMARKS (default /work/shared/benchmarks/sv-benchmarks),
#        CARGO_TARGET_DIR (where the release build goes), OUT (work folder, default a temp dir),
#        BATON (a baton binary to measure instead of building this worktree, e.g. main's),
#        GCC_TIMEOUT (seconds gcc may take per residual, default 60; a residual of tens of MB
#        takes gcc far longer: its column then says `timeout`),
#        MAX_RATIO (passed to `baton reduce --max-ratio`: the residual kept within that many
#        times the original's locations; default: the exact residual).
# Prints one CSV line per task (tracked_locations: residual locations where the condition is
# still tracked, the rest is original code; cuts_kept: the fraction of the exact residual's cuts,
# covered transitions not taken, that the residual keeps) and a summary: % residuals compiled,
# median and worst ratio of residual to original locations, median and lowest fraction of cuts
# kept, median and max reduce time.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bench="${BATON_SV_BENCHMARKS:-/work/shared/benchmarks/sv-benchmarks}"
give_up=("$@")
[ ${#give_up[@]} -eq 0 ] && give_up=("reached-states=2000")
out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"
if [ -n "${BATON:-}" ]; then
  baton="$BATON"
else
  (cd "$here" && cargo build --release --quiet)
  baton="${CARGO_TARGET_DIR:-$here/target}/release/baton"
fi
reduce_args=()
if [ -n "${MAX_RATIO:-}" ]; then reduce_args=(--max-ratio "$MAX_RATIO"); fi
args=()
for g in "${give_up[@]}"; do args+=(--give-up "$g"); done

csv="$out/reducer.csv"
echo "task,verdict,original_locations,residual_locations,ratio,reduce_seconds,tracked_locations,cuts_kept,gcc" > "$csv"
tail -n +2 "$bench/MANIFEST.csv" | while IFS=, read -r table name yml _rest; do
  # Table II only ("II" or e.g. "II+III"; not "III" alone).
  case "+$table+" in *+II+*) ;; *) continue ;; esac
  task="$bench/$yml"
  cond="$out/$name.spc"
  res="$out/$name.residual.c"
  verdict=$("$baton" verify "$task" "${args[@]}" --condition-out "$cond" --json 2>/dev/null \
    | sed -n 's/.*"verdict": *"\([^"]*\)".*/\1/p' | head -n1 || true)
  if ! stats=$("$baton" reduce "$task" --condition "$cond" -o "$res" --stats "${reduce_args[@]}" 2>&1 >/dev/null); then
    echo "$name,${verdict:-?},,,,,,,reduce-failed: $(echo "$stats" | head -n1 | tr ',' ';')" >> "$csv"
    continue
  fi
  line=$(echo "$stats" | grep '^residual:' | head -n1)
  rl=$(echo "$line" | sed -n 's/^residual: \([0-9]*\) locations.*/\1/p')
  ol=$(echo "$line" | sed -n 's/.*original: \([0-9]*\) locations.*/\1/p')
  t=$(echo "$line" | sed -n 's/.*reduce time \([0-9.]*\) s.*/\1/p')
  tracked=$(echo "$line" | sed -n 's/.*condition tracked at \([0-9]*\) locations.*/\1/p')
  cuts=$(echo "$line" | sed -n 's/.*kept \([0-9]*\) of \([0-9]*\) cuts.*/\1 \2/p' \
    | awk '{ if ($2 == 0) print "1.0000"; else printf "%.4f", $1 / $2 }')
  model=$(grep -o 'data_model: *[A-Z0-9]*' "$task" | awk '{print $2}' | head -n1)
  flag=-m32
  [ "$model" = "LP64" ] && flag=-m64
  if timeout "${GCC_TIMEOUT:-60}" gcc "$flag" -c -w -o "$out/$name.o" "$res" 2>"$out/$name.gcc.log"; then
    g=ok
  elif [ $? -eq 124 ]; then
    g=timeout
  else
    g=failed
  fi
  ratio=$(awk -v r="$rl" -v o="$ol" 'BEGIN { printf "%.4f", r / o }')
  echo "$name,${verdict:-?},$ol,$rl,$ratio,$t,$tracked,$cuts,$g" >> "$csv"
done
cat "$csv"
python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = [r for r in rows if r["ratio"]]
compiled = sum(1 for r in rows if r["gcc"] == "ok")
ratios = sorted(float(r["ratio"]) for r in ok)
times = sorted(float(r["reduce_seconds"]) for r in ok)
print(f"tasks: {len(rows)}, reduced: {len(ok)}, compiled with gcc: {compiled} ({100*compiled/max(len(rows),1):.1f}%)")
if ratios:
    worst = max(ok, key=lambda r: float(r["ratio"]))
    print(f"residual/original locations: median {statistics.median(ratios):.3f}, worst {ratios[-1]:.3f} ({worst['task']}), best {ratios[0]:.3f}")
    kept = sorted(float(r["cuts_kept"]) for r in ok if r["cuts_kept"])
    if kept:
        print(f"cuts kept of the exact residual's: median {statistics.median(kept):.3f}, lowest {kept[0]:.3f}")
    print(f"reduce time: median {statistics.median(times):.3f} s, max {times[-1]:.3f} s")
    print("verdicts:", {v: sum(1 for r in rows if r['verdict'] == v) for v in sorted({r['verdict'] for r in rows})})
PY
echo "files in $out"
