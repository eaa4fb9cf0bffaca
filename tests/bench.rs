//! `baton bench` and `baton table` through the binary, on small programs written here.

#[path = "support/bench_tasks.rs"]
mod bench_tasks;
use bench_tasks::{baton, tasks, tasks_and_definition, text, EXPLICIT_ON_SAFE_AND_BUGGY};
use std::path::PathBuf;

/// The CSV row of a task: (status, category, score).
fn csv_row(csv: &str, task: &str) -> (String, String, i32) {
    let line = csv
        .lines()
        .find(|l| l.starts_with(task) || l.contains(&format!("/{task},")))
        .unwrap_or_else(|| panic!("no row for {task} in\n{csv}"));
    let f: Vec<&str> = line.split(',').collect();
    (f[4].to_string(), f[5].to_string(), f[6].parse().unwrap())
}

#[test]
fn bench_judges_records_resumes_and_tables() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    tasks(d);
    let args = [
        "bench",
        "--tasks",
        "safe.yml",
        "buggy.yml",
        "mislabeled.yml",
        "endless.yml",
        "--run",
        "explicit=verify --analysis explicit --give-up cpu-time=600s",
        "--timelimit",
        "1s",
        "--jobs",
        "2",
        "--output-dir",
        "out",
    ];
    let out = baton(&args, d);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("4 runs performed, 0 resumed"), "{stdout}");
    assert!(stdout.contains("!!! WRONG: explicit:"), "{stdout}");
    assert!(stdout.contains("mislabeled.yml"), "{stdout}");

    let csv = std::fs::read_to_string(d.join("out/results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 5, "{csv}");
    assert_eq!(csv_row(&csv, "safe.yml"), ("true".into(), "correct".into(), 2));
    assert_eq!(
        csv_row(&csv, "buggy.yml"),
        ("false(unreach-call)".into(), "correct".into(), 1)
    );
    assert_eq!(
        csv_row(&csv, "mislabeled.yml"),
        ("false(unreach-call)".into(), "wrong".into(), -16)
    );
    // Killed by the hard CPU limit: no answer, not wrong.
    assert_eq!(
        csv_row(&csv, "endless.yml"),
        ("TIMEOUT".into(), "error".into(), 0)
    );
    let summary_line = stdout.lines().find(|l| l.starts_with("explicit ")).unwrap();
    let nums: Vec<&str> = summary_line.split_whitespace().collect();
    // runs, correct true, correct false, wrong true, wrong false, unknown, errors, score
    assert_eq!(
        &nums[1..9],
        &["4", "1", "1", "0", "1", "0", "1", "-13"],
        "{summary_line}"
    );

    let xml = std::fs::read_to_string(d.join("out/baton-bench.results.explicit.xml")).unwrap();
    assert!(xml.contains("<result benchmarkname=\"baton-bench\""), "{xml}");
    assert_eq!(xml.matches("<run name=").count(), 4);
    assert!(xml.contains("expectedVerdict=\"false\""));
    assert!(xml.contains("<column title=\"status\" value=\"TIMEOUT\"/>"));
    assert!(xml.contains("<column hidden=\"true\" title=\"category\" value=\"wrong\"/>"));
    let logs = d.join("out/logs/explicit").read_dir().unwrap();
    let names: Vec<String> = logs
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names.iter().filter(|n| n.ends_with(".log")).count(),
        4,
        "{names:?}"
    );

    // A second invocation runs nothing.
    let jsonl = d.join("out/results.jsonl");
    let before = std::fs::read_to_string(&jsonl).unwrap();
    let out = baton(&args, d);
    assert!(
        text(&out.stdout).contains("0 runs performed, 4 resumed"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(std::fs::read_to_string(&jsonl).unwrap(), before);

    // An interrupted benchmark (last result lost, a line cut short) resumes the missing run.
    let kept: Vec<&str> = before.lines().filter(|l| !l.contains("endless.yml")).collect();
    std::fs::write(
        &jsonl,
        format!("{}\n{{\"run_definition\":\"expl", kept.join("\n")),
    )
    .unwrap();
    let out = baton(&args, d);
    assert!(
        text(&out.stdout).contains("1 runs performed, 3 resumed"),
        "{}",
        text(&out.stdout)
    );
    let csv = std::fs::read_to_string(d.join("out/results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 5, "{csv}");

    // Changed arguments are not resumed.
    let mut changed = args.to_vec();
    changed[7] = "explicit=verify --analysis explicit --give-up cpu-time=500s";
    changed.retain(|a| *a != "endless.yml");
    let out = baton(&changed, d);
    assert!(
        text(&out.stdout).contains("3 runs performed, 0 resumed"),
        "{}",
        text(&out.stdout)
    );

    // The table compares; its HTML has plots.
    let out = baton(&["table", "out", "--html", "report.html"], d);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("!false(unreach-call)"));
    let html = std::fs::read_to_string(d.join("report.html")).unwrap();
    assert!(html.contains("<svg"), "{html}");
    assert!(html.contains("class=\"wrong\""));
}

/// `--walltimelimit` kills a run that waits rather than computes, and the result XML states
/// the limit as BenchExec does.
#[test]
fn wall_time_limit_kills_and_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    tasks(d);
    let args = [
        "bench",
        "--tasks",
        "endless.yml",
        "--run",
        "explicit=verify --analysis explicit --give-up cpu-time=600s",
        "--timelimit",
        "600s",
        "--walltimelimit",
        "2s",
        "--jobs",
        "1",
        "--output-dir",
        "out",
    ];
    let out = baton(&args, d);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let csv = std::fs::read_to_string(d.join("out/results.csv")).unwrap();
    assert_eq!(
        csv_row(&csv, "endless.yml"),
        ("TIMEOUT".into(), "error".into(), 0),
        "{csv}"
    );
    let xml = std::fs::read_dir(d.join("out"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "xml"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .expect("a result XML");
    assert!(xml.contains("walltimelimit=\"2s\""), "{xml}");
}

/// Every definite verdict of a run keeps its witness beside the run's log, named in the results
/// (JSON lines, XML) and linked from the report; Baton's validator confirms each. A native
/// analysis and a flow with an external stage (CBMC, where installed; its `false` gets the
/// witness of the values Baton replayed, its `true` one derived on the original program and
/// validated, as CBMC writes no proof).
#[test]
fn bench_keeps_a_witness_per_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    tasks(d);
    let cbmc = baton::adapters::find_executable("cbmc").is_some();
    std::fs::write(
        d.join("cbmc.yaml"),
        "flow: cbmc\nstages:\n  - name: bmc\n    tool: cbmc\n    options: { unwind: 3 }\n",
    )
    .unwrap();
    let mut args = EXPLICIT_ON_SAFE_AND_BUGGY.to_vec();
    if cbmc {
        args.extend(["--run", "cbmc=run cbmc.yaml"]);
    } else {
        eprintln!("cbmc not installed: only the native run definition");
    }
    args.extend(["--timelimit", "60s", "--jobs", "1", "--output-dir", "out"]);
    let out = baton(&args, d);
    assert!(
        out.status.success(),
        "{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let jsonl = std::fs::read_to_string(d.join("out/results.jsonl")).unwrap();
    let mut checked = 0;
    for line in jsonl.lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        let (task, rd) = (r["task"].as_str().unwrap(), r["run_definition"].as_str().unwrap());
        // CBMC writes no correctness witness: its `true` gets one derived on the original
        // program and validated by Baton.
        if r["verdict"] == "unknown" {
            continue;
        }
        let witness = r["witness"]
            .as_str()
            .unwrap_or_else(|| panic!("{rd} {task}: no witness: {line}"));
        assert!(witness.starts_with(&format!("logs/{rd}/")), "{witness}");
        let out = baton(&["validate", task, &format!("out/{witness}")], d);
        assert!(
            text(&out.stdout).contains("Confirmed"),
            "{rd} {task}: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        let xml = std::fs::read_to_string(d.join(format!("out/baton-bench.results.{rd}.xml"))).unwrap();
        assert!(xml.contains(&format!("witness=\"{witness}\"")), "{xml}");
        checked += 1;
    }
    assert_eq!(checked, if cbmc { 4 } else { 2 }, "{jsonl}");
    let out = baton(&["table", "out", "--html", "report.html"], d);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(d.join("report.html")).unwrap();
    assert_eq!(html.matches(">witness</a>").count(), checked, "{html}");
}

#[test]
fn benchmark_definition_xml_runs_and_compares_two_run_definitions() {
    let dir = tasks_and_definition(
        r#"<?xml version="1.0"?>
<benchmark tool="baton" timelimit="20s" memlimit="2 GB" cpuCores="1">
  <option name="--analysis">explicit</option>
  <rundefinition name="dfs"><option name="--order">dfs</option></rundefinition>
  <rundefinition name="bfs"><option name="--order">bfs</option></rundefinition>
  <tasks name="own">
    <include>*.yml</include>
    <exclude>endless.yml</exclude>
    <exclude>mislabeled.yml</exclude>
    <propertyfile>properties/unreach-call.prp</propertyfile>
  </tasks>
</benchmark>
"#,
    );
    let d = dir.path();
    let out = baton(&["bench", "def.xml", "--output-dir", "res"], d);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("4 runs performed"), "{stdout}");
    assert!(!stdout.contains("WRONG"), "{stdout}");
    for rd in ["dfs", "bfs"] {
        let xml = std::fs::read_to_string(d.join(format!("res/def.results.{rd}.own.xml"))).unwrap();
        assert_eq!(xml.matches("value=\"correct\"").count(), 2, "{xml}");
        assert!(xml.contains("memlimit=\"2000000000B\""));
    }
    let out = baton(
        &[
            "table",
            "res/def.results.dfs.own.xml",
            "res/def.results.bfs.own.xml",
            "--html",
            "c.html",
        ],
        d,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(d.join("c.html")).unwrap();
    assert!(html.contains("Scatter plot"), "{html}");
    assert_eq!(html.matches("<svg").count(), 3);
}

#[test]
fn malformed_inputs_are_errors_with_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    tasks(d);
    std::fs::write(
        d.join("def.xml"),
        "<benchmark tool=\"baton\">\n  <rundefinition name=\"x\">\n    <option>explicit</option>\n  </rundefinition>\n</benchmark>\n",
    )
    .unwrap();
    let out = baton(&["bench", "def.xml", "--output-dir", "o"], d);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("def.xml:3:"), "{err}");
    std::fs::write(d.join("def.xml"), "<benchmark>\n  <tasks>\n</benchmark>\n").unwrap();
    let out = baton(&["bench", "def.xml"], d);
    assert!(text(&out.stderr).contains("def.xml:3:"), "{}", text(&out.stderr));
    let out = baton(&["bench", "--tasks", "safe.yml", "--run", "noequals"], d);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("NAME='ARGS'"));
    let out = baton(&["bench", "--tasks", "nope.yml", "--run", "a=verify"], d);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("nope.yml"));
}

#[test]
fn smallest_shared_tasks_have_no_wrong_results() {
    let Ok(root) = std::env::var("BATON_SV_BENCHMARKS") else {
        eprintln!("skipped: BATON_SV_BENCHMARKS is not set");
        return;
    };
    let root = PathBuf::from(root);
    let manifest = std::fs::read_to_string(root.join("MANIFEST.csv")).unwrap();
    let mut rows: Vec<(u64, String)> = manifest
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Some((f.get(4)?.parse().ok()?, f.get(2)?.to_string()))
        })
        .collect();
    rows.sort();
    let tasks: Vec<String> = rows
        .iter()
        .take(5)
        .map(|(_, t)| root.join(t).display().to_string())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["bench", "--tasks"];
    args.extend(tasks.iter().map(String::as_str));
    args.extend([
        "--run",
        "explicit=verify --analysis explicit --give-up cpu-time=2s",
        "--timelimit",
        "10s",
        "--output-dir",
        "out",
    ]);
    let out = baton(&args, dir.path());
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let csv = std::fs::read_to_string(dir.path().join("out/results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 6, "{csv}");
    assert!(!csv.contains(",wrong,"), "{csv}");
    assert!(!stdout.contains("WRONG"), "{stdout}");
}
