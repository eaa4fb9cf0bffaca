#!/usr/bin/env bash
# How Baton does on a sample of sv-benchmarks tasks outside the shared folder, as a new user sees it.
# The sample is laid out like sv-benchmarks (c/<category>/<task>.yml beside its program,
# c/properties/unreach-call.prp) with a MANIFEST.csv of columns
# category,task_yml,expected_unreach_call,data_model,bytes.
#
# 1. Lowering: `baton cfa` on every task with its data model. Prints the lowered share per category,
#    the rejection reasons (the `unsupported: <construct>` text, recursion cycles as one reason) with
#    their count and tasks, and the lowered tasks that call functions without a body (the frontend
#    makes such a call a nondet value and drops its arguments: verdicts on them are suspect).
# 2. Verdicts: `baton bench` over the tasks that lower with the explicit-value analysis (give-up
#    cpu-time 10 s) and the predicate analysis (30 s), then scripts/category-summary.sh (correct,
#    wrong, unknown per category, CPU totals, every wrong verdict), why the runs answered unknown
#    (count per reason) and the verdicts on the tasks with calls of functions without a body.
#
# Usage: scripts/measure-sample.sh [SAMPLE_DIR [OUT_DIR]]
#   SAMPLE_DIR defaults to $BATON_SV_SAMPLE; OUT_DIR to a new /tmp/baton-sample-XXXXXX (rerunning
#   with the same OUT_DIR resumes the benchmark runs).
# Environment: BATON (default target/release/baton), JOBS (1), TIMELIMIT (40s), MEMLIMIT (4GB),
#   WALLTIMELIMIT (BenchExec's default when unset), LOWER_ONLY=1 (stop after the lowering).
# Needs jq. A rerun resumes only the runs recorded under the same limits (WALLTIMELIMIT included).
set -euo pipefail
cd "$(dirname "$0")/.."
sample=${1:-${BATON_SV_SAMPLE:-}}
if [ -z "$sample" ]; then
    echo "usage: $0 SAMPLE_DIR [OUT_DIR]   (or set BATON_SV_SAMPLE)" >&2
    exit 2
fi
if [ ! -f "$sample/MANIFEST.csv" ]; then
    echo "$0: $sample/MANIFEST.csv: no such file" >&2
    exit 2
fi
sample=$(cd "$sample" && pwd)
out=${2:-$(mktemp -d /tmp/baton-sample-XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
baton=${BATON:-target/release/baton}
if [ ! -x "$baton" ]; then
    echo "$0: $baton: not an executable (build with cargo build --release or set BATON)" >&2
    exit 2
fi

# --- 1. Lowering -----------------------------------------------------------------------------
lowering="$out/lowering.tsv"   # category, task, status (lowered|rejected), reason or body-less calls
: >"$lowering"
lowered_tasks=()
while IFS=, read -r category task _expected model _bytes; do
    yml="$sample/$task"
    file=$(sed -n "s/^input_files: *'\{0,1\}\([^']*\)'\{0,1\}$/\1/p" "$yml")
    program="$(dirname "$yml")/$file"
    if err=$(timeout 120 "$baton" cfa --data-model "$model" "$program" 2>&1 >/dev/null); then
        # Calls of functions without a body are `Nondet` operations named after the function.
        bodyless=$("$baton" cfa --json --data-model "$model" "$program" | tr -d ' \n' |
            grep -o '"Nondet":{[^{}]*{[^{}]*}[^{}]*}' | grep -o '"function":"[^"]*"' |
            sed 's/.*:"\(.*\)"$/\1/' | grep -v '^__VERIFIER_nondet_' | sort -u | paste -sd' ' -) || true
        printf '%s\t%s\tlowered\t%s\n' "$category" "$task" "$bodyless" >>"$lowering"
        lowered_tasks+=("$yml")
    else
        status=$?
        reason=$(printf '%s\n' "$err" | head -n1)
        if [ "$status" -eq 124 ]; then
            reason="timeout (120 s)"
        elif [[ "$reason" == *"unsupported: "* ]]; then
            reason=${reason#*unsupported: }
            [[ "$reason" == recursion* ]] && reason=recursion
        fi
        printf '%s\t%s\trejected\t%s\n' "$category" "$task" "$reason" >>"$lowering"
    fi
done < <(tail -n +2 "$sample/MANIFEST.csv")

echo "== lowering (baton cfa), per category"
awk -F'\t' '
    { total[$1]++; all++; if ($3 == "lowered") { ok[$1]++; oks++ } }
    END {
        printf "%-24s %7s %5s %6s\n", "category", "lowered", "tasks", "share"
        for (c in total) printf "%-24s %7d %5d %5.0f%%\n", c, ok[c], total[c], 100 * ok[c] / total[c] | "sort"
        close("sort")
        printf "%-24s %7d %5d %5.0f%%\n", "(all)", oks, all, 100 * oks / all
    }' "$lowering"
echo
echo "== rejection reasons (count, construct, count per category, tasks)"
awk -F'\t' '$3 == "rejected" {
        n[$4]++; t[$4] = t[$4] " " $2
        if (!(($4, $1) in per)) cats[$4] = cats[$4] " " $1
        per[$4, $1]++
    }
    END {
        for (r in n) {
            split(substr(cats[r], 2), cs, " "); by = ""
            for (i = 1; i in cs; i++) by = by (i > 1 ? ", " : "") cs[i] " " per[r, cs[i]]
            printf "%d\t%s\t%s\t%s\n", n[r], r, by, t[r]
        }
    }' "$lowering" | sort -t$'\t' -k1,1rn -k2,2 |
    awk -F'\t' '{ printf "%4d  %s  [%s]\n       %s\n", $1, $2, $3, $4 }'
echo
echo "== lowered tasks that call functions without a body"
awk -F'\t' '$3 == "lowered" && $4 != "" { printf "%s: %s\n", $2, $4 }' "$lowering"
echo "lowering details: $lowering"
[ "${LOWER_ONLY:-0}" = 1 ] && exit 0
if [ ${#lowered_tasks[@]} -eq 0 ]; then
    echo "no task lowers: no verdicts to measure"
    exit 0
fi

# --- 2. Verdicts -----------------------------------------------------------------------------
limits=(--timelimit "${TIMELIMIT:-40s}" --memlimit "${MEMLIMIT:-4GB}" --jobs "${JOBS:-1}")
[ -n "${WALLTIMELIMIT:-}" ] && limits+=(--walltimelimit "$WALLTIMELIMIT")
echo
echo "== verdicts (baton bench: e = explicit, give-up cpu-time 10 s; p = predicate, 30 s)"
"$baton" bench --tasks "${lowered_tasks[@]}" \
    --run e='verify --analysis explicit --give-up cpu-time=10s' \
    --run p='verify --analysis predicate --give-up cpu-time=30s' \
    "${limits[@]}" --output-dir "$out/bench" --name sample >"$out/bench.log" 2>&1 || {
    echo "$0: baton bench failed, see $out/bench.log" >&2
    exit 1
}
scripts/category-summary.sh "$out/bench"
echo
echo "== why the runs answered unknown (count per run definition and reason)"
# results.jsonl also keeps the results of earlier benchmarks in the folder (other limits, say):
# only the lines of the runs in results.csv (same task, run definition, CPU and wall time) count.
jq -r '[.task, .run_definition, .cpu_time_s, .wall_time_s, .verdict, .reason // ""] | @tsv' \
    "$out/bench/results.jsonl" |
    awk -F'\t' 'FNR == NR { if (FNR > 1) { split($0, f, ","); run[f[1] SUBSEP f[2] SUBSEP f[8] SUBSEP f[9]] = 1 }; next }
        $5 == "unknown" && run[$1, $2, sprintf("%.3f", $3), sprintf("%.3f", $4)]-- > 0 { print $2 "\t" $6 }' \
        "$out/bench/results.csv" - |
    sed -E 's/\t[0-9]+ states not verified \(first: (.*)\)$/\tstates not verified: \1/' |
    sort | uniq -c | sort -k2,2 -k1,1rn | awk '{ n = $1; $1 = ""; printf "%5d %s\n", n, substr($0, 2) }'
echo
echo "== verdicts on tasks that call functions without a body"
awk -F'\t' '$3 == "lowered" && $4 != "" { print $2 }' "$lowering" | while read -r task; do
    awk -F, -v t="$task" 'index($1, t) { printf "%s %s: expected %s, got %s (%s)\n", $2, t, $3, $4, $6 }' \
        "$out/bench/results.csv"
done
echo "results: $out/bench"
