#!/usr/bin/env bash
# Per-category figures of `baton bench` results: for every run definition and sv-benchmarks
# category (the task's folder, e.g. c/recursive) the number of tasks, correct, wrong, unknown,
# timeouts (TIMEOUT status: over the CPU-time limit, finished or killed), out-of-memory and other
# errors, then the CPU time in total and its median. A last row per run definition sums all
# categories. Every wrong verdict is listed after the table with its task.
#
# Usage: scripts/category-summary.sh RESULTS_DIR...   (folders written by `baton bench --output-dir`)
set -euo pipefail
if [ $# -eq 0 ]; then
  echo "usage: $0 RESULTS_DIR..." >&2
  exit 2
fi
for dir in "$@"; do
  if [ ! -f "$dir/results.csv" ]; then
    echo "$0: $dir/results.csv: no such file (not a \`baton bench\` results folder?)" >&2
    exit 1
  fi
done
for dir in "$@"; do
  tail -n +2 "$dir/results.csv"
done | awk -F, '
  function median(list,    n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) {
      t = a[i] + 0
      for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]
      a[j + 1] = t
    }
    if (n == 0) return 0
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  function count(key, task, status, kind, cpu) {
    tasks[key]++
    cpu_total[key] += cpu
    cpus[key] = cpus[key] " " cpu
    if (kind == "correct") correct[key]++
    else if (kind == "wrong") wrong[key]++
    else if (kind == "unknown") unknown[key]++
    else if (status ~ /^TIMEOUT/) timeout[key]++
    else if (status ~ /^OUT OF MEMORY/) oom[key]++
    else error[key]++
  }
  {
    task = $1; run = $2; status = $5; kind = $6; cpu = $8
    n = split(task, part, "/")
    category = (n >= 3 ? part[n - 2] "/" : "") part[n - 1]
    count(run SUBSEP category, task, status, kind, cpu)
    count(run SUBSEP "(all)", task, status, kind, cpu)
    if (kind == "wrong") wrongs = wrongs sprintf("WRONG %s %s: expected %s, got %s\n", run, task, $3, $4)
  }
  END {
    printf "%-12s %-32s %5s %7s %5s %7s %7s %4s %5s %9s %8s\n", "run", "category", "tasks", "correct", "wrong", "unknown", "timeout", "oom", "error", "cpu_s", "median_s"
    cmd = "sort"
    for (key in tasks) {
      split(key, k, SUBSEP)
      line = sprintf("%-12s %-32s %5d %7d %5d %7d %7d %4d %5d %9.1f %8.2f", k[1], k[2], tasks[key], correct[key], wrong[key], unknown[key], timeout[key], oom[key], error[key], cpu_total[key], median(cpus[key]))
      print line | cmd
    }
    close(cmd)
    printf "%s", wrongs
  }
'
