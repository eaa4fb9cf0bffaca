//! BenchExec, both directions: BenchExec (from PyPI, in the virtual environment named by
//! `BATON_BENCHEXEC_VENV`) runs Baton through the shipped tool-info module
//! `contrib/benchexec/baton.py`, its `table-generator` scores Baton's result XML exactly as Baton
//! does, and a benchmark definition with every feature Baton reads runs in `baton bench` as
//! in `benchexec`. Without `BATON_BENCHEXEC_VENV` the BenchExec parts are skipped with a printed
//! reason; `.ci/run` installs BenchExec and sets it.

#[path = "support/bench_tasks.rs"]
mod bench_tasks;

use bench_tasks::{baton, tasks_and_definition, text};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The BenchExec virtual environment, or `None` (with the reason printed) when
/// `BATON_BENCHEXEC_VENV` is unset; set (as `.ci/run` sets it), it must hold BenchExec.
fn venv() -> Option<PathBuf> {
    let Some(v) = std::env::var_os("BATON_BENCHEXEC_VENV") else {
        eprintln!("skipped: the BenchExec parts need BATON_BENCHEXEC_VENV, a virtual environment with benchexec (python3 -m venv V && V/bin/pip install benchexec)");
        return None;
    };
    let v = PathBuf::from(v);
    assert!(
        v.join("bin/benchexec").is_file(),
        "BATON_BENCHEXEC_VENV={}: no bin/benchexec",
        v.display()
    );
    Some(v)
}

/// Installs the tool-info module into the virtual environment's `benchexec.tools` package (as
/// the module's header says users do), so `tool="baton"` and `toolmodule` resolve to it.
fn install_tool_info(venv: &Path) {
    let out = Command::new(venv.join("bin/python"))
        .args([
            "-c",
            "import benchexec.tools, os; print(os.path.dirname(benchexec.tools.__file__))",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let tools = PathBuf::from(text(&out.stdout).trim());
    let module = Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/benchexec/baton.py");
    std::fs::copy(module, tools.join("baton.py")).unwrap();
}

/// Runs `benchexec DEF -o OUT` in `dir` without a container (cgroups v1 machines lack the
/// overlay file system BenchExec's container needs for `/`), Baton found in Cargo's build folder.
fn benchexec(venv: &Path, dir: &Path, def: &str, out: &str) {
    let bin = Path::new(env!("CARGO_BIN_EXE_baton")).parent().unwrap();
    let run = Command::new(venv.join("bin/benchexec"))
        .args(["--no-container", "--tool-directory"])
        .arg(bin)
        .args([def, "-o", out])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}{}", text(&run.stdout), text(&run.stderr));
}

/// Baton's own score, correct and wrong counts of a run set, from `results.csv`.
fn baton_counts(csv: &str, run_set: &str) -> (i64, usize, usize) {
    let mut c = (0, 0, 0);
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f[1] != run_set {
            continue;
        }
        c.0 += f[6].parse::<i64>().unwrap();
        c.1 += usize::from(f[5] == "correct");
        c.2 += usize::from(f[5] == "wrong");
    }
    c
}

/// Files in `dir` whose names end with `suffix`, sorted.
fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    v.sort();
    v
}

/// One run as table-generator reads it from a result file (its own loader, and the
/// property's scoring).
struct TableGeneratorRun {
    run_set: String,
    task: String,
    status: String,
    category: String,
    score: i64,
}

/// The runs of a result file (compressed or not) as table-generator reads them; a run it
/// cannot score is an error.
fn table_generator_runs(venv: &Path, file: &Path) -> Vec<TableGeneratorRun> {
    const SCRIPT: &str = "
import sys, types, os
from benchexec import tablegenerator
opts = types.SimpleNamespace(correct_only=False, all_columns=False, ignore_errors=False)
rs = tablegenerator.load_result(sys.argv[1], opts)
for r in rs.results:
    if r.score is None:
        sys.exit(f'table-generator scores nothing for {r.task_id}')
    print(rs.attributes['name'][0], os.path.basename(r.task_id.name), r.category, r.score, r.status)
";
    let out = Command::new(venv.join("bin/python"))
        .args(["-c", SCRIPT])
        .arg(file)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("Missing module"), "{stderr}");
    text(&out.stdout)
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.splitn(5, ' ').collect();
            TableGeneratorRun {
                run_set: f[0].into(),
                task: f[1].into(),
                category: f[2].into(),
                score: f[3].parse().unwrap(),
                status: f[4].into(),
            }
        })
        .collect()
}

/// Score, correct and wrong counts of a result file as table-generator computes them.
fn table_generator_counts(venv: &Path, file: &Path) -> (i64, usize, usize) {
    let runs = table_generator_runs(venv, file);
    let count = |c: &str| runs.iter().filter(|r| r.category == c).count();
    (
        runs.iter().map(|r| r.score).sum(),
        count("correct"),
        count("wrong"),
    )
}

/// Run set → task file name → status, from result files.
fn statuses(venv: &Path, files: &[PathBuf]) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut map: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for f in files {
        for r in table_generator_runs(venv, f) {
            map.entry(r.run_set).or_default().insert(r.task, r.status);
        }
    }
    map
}

#[test]
fn benchexec_runs_baton_and_table_generator_scores_as_baton_does() {
    let Some(venv) = venv() else { return };
    install_tool_info(&venv);
    // The endless task: the explicit analysis gives up after 2 s of CPU time (unknown).
    let dir = tasks_and_definition(
        r#"<?xml version="1.0"?>
<benchmark tool="baton" timelimit="60s" memlimit="2GB" cpuCores="1">
  <rundefinition name="explicit">
    <option name="--analysis">explicit</option>
    <option name="--give-up">cpu-time=2s</option>
  </rundefinition>
  <tasks name="own">
    <include>*.yml</include>
    <propertyfile>properties/unreach-call.prp</propertyfile>
  </tasks>
</benchmark>
"#,
    );
    let d = dir.path();
    benchexec(&venv, d, "def.xml", "bx/");
    let out = baton(&["bench", "def.xml", "--output-dir", "bres", "--jobs", "1"], d);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let csv = std::fs::read_to_string(d.join("bres/results.csv")).unwrap();
    let ours = baton_counts(&csv, "explicit.own");
    assert_eq!(ours, (1 + 2 - 16, 2, 1), "{csv}");

    let baton_xml = files_ending(&d.join("bres"), ".xml");
    let benchexec_xml = files_ending(&d.join("bx"), ".xml.bz2");
    assert_eq!((baton_xml.len(), benchexec_xml.len()), (1, 1));
    assert_eq!(table_generator_counts(&venv, &baton_xml[0]), ours, "Baton's XML");
    assert_eq!(
        table_generator_counts(&venv, &benchexec_xml[0]),
        ours,
        "BenchExec's XML"
    );
    assert_eq!(
        statuses(&venv, &baton_xml),
        statuses(&venv, &benchexec_xml),
        "the same verdicts when BenchExec runs Baton"
    );

    // `baton table` reads BenchExec's .xml.bz2 and joins its rows with Baton's.
    let out = baton(
        &[
            "table",
            benchexec_xml[0].to_str().unwrap(),
            "bres",
            "--html",
            "both.html",
        ],
        d,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    let rows = table.lines().take_while(|l| !l.is_empty()).count();
    assert_eq!(rows, 1 + 4, "header and one row per task:\n{table}");
    // The score column (BenchExec's result file names hold a time that may contain "-13").
    let scored = table
        .lines()
        .filter(|l| l.split_whitespace().any(|w| w == "-13"))
        .count();
    assert_eq!(scored, 2, "{table}");
    let html = std::fs::read_to_string(d.join("both.html")).unwrap();
    assert!(
        html.contains("BenchExec 3."),
        "provenance names BenchExec: {html}"
    );
}

#[test]
fn benchmark_definition_with_every_feature_runs_as_benchexec_runs_it() {
    let dir = tasks_and_definition(
        r#"<?xml version="1.0"?>
<benchmark tool="baton" timelimit="30s" hardtimelimit="40s" walltimelimit="90s" memlimit="2GB" cpuCores="1">
  <require cpuCores="1"/>
  <resultfiles>**.graphml</resultfiles>
  <requiredfiles>properties/*.prp</requiredfiles>
  <propertyfile>${benchmark_path}/properties/unreach-call.prp</propertyfile>
  <option name="--analysis">explicit</option>
  <rundefinition name="all">
    <option name="--condition-out">${logfile_path}/${rundefinition_name}.${taskdef_name}.graphml</option>
  </rundefinition>
  <rundefinition name="safe-only">
    <propertyfile expectedverdict="true">properties/unreach-call.prp</propertyfile>
  </rundefinition>
  <tasks name="own">
    <include>${benchmark_path_abs}/*.yml</include>
    <exclude>${benchmark_path_abs}/endless.yml</exclude>
    <option name="--order">bfs</option>
  </tasks>
</benchmark>
"#,
    );
    let d = dir.path();
    let out = baton(&["bench", "def.xml", "--output-dir", "bres", "--jobs", "1"], d);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    for named in ["<require>", "<resultfiles>"] {
        assert!(stderr.contains(named), "a warning names {named}: {stderr}");
    }
    // The run sets and runs BenchExec makes of this definition, with their arguments.
    let jsonl = std::fs::read_to_string(d.join("bres/results.jsonl")).unwrap();
    let mut runs: BTreeMap<String, Vec<(String, Vec<String>, String)>> = BTreeMap::new();
    for line in jsonl.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let task = Path::new(v["task"].as_str().unwrap())
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let args: Vec<String> = v["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        assert!(v["property_file"]
            .as_str()
            .unwrap()
            .ends_with("properties/unreach-call.prp"));
        runs.entry(v["run_definition"].as_str().unwrap().into())
            .or_default()
            .push((task, args, v["status"].as_str().unwrap().into()));
    }
    let names = |set: &str| -> Vec<String> {
        let mut v: Vec<String> = runs[set].iter().map(|r| r.0.clone()).collect();
        v.sort();
        v
    };
    assert_eq!(runs.keys().collect::<Vec<_>>(), vec!["all.own", "safe-only.own"]);
    assert_eq!(names("all.own"), vec!["buggy.yml", "mislabeled.yml", "safe.yml"]);
    // expectedverdict="true" selects the tasks said to be safe.
    assert_eq!(names("safe-only.own"), vec!["mislabeled.yml", "safe.yml"]);
    let logs = d.join("bres/logs/all.own").canonicalize().unwrap();
    for (task, args, _) in &runs["all.own"] {
        let condition = logs.join(format!("all.{task}.graphml"));
        assert_eq!(
            args,
            &vec![
                "verify".to_string(),
                "--analysis".into(),
                "explicit".into(),
                "--condition-out".into(),
                condition.display().to_string(),
                "--order".into(),
                "bfs".into()
            ]
        );
        assert!(condition.is_file(), "{} written", condition.display());
    }
    let xml = std::fs::read_to_string(d.join("bres/def.results.all.own.xml")).unwrap();
    assert!(xml.contains("walltimelimit=\"90s\""), "{xml}");

    // BenchExec makes the same run sets of the same tasks, with the same verdicts.
    let Some(venv) = venv() else { return };
    install_tool_info(&venv);
    benchexec(&venv, d, "def.xml", "bx/");
    let baton_sets = statuses(&venv, &files_ending(&d.join("bres"), ".xml"));
    let benchexec_sets = statuses(&venv, &files_ending(&d.join("bx"), ".xml.bz2"));
    assert_eq!(baton_sets, benchexec_sets);
    // BenchExec's `${logfile_path}` is its log folder (it zips the logs, not the conditions).
    let folder = files_ending(&d.join("bx"), ".logfiles");
    let conditions = files_ending(&folder[0], ".graphml");
    assert_eq!(conditions.len(), 3, "{conditions:?}");
}

/// `bench` writes its logs also as BenchExec's `<benchmark>.logfiles.zip`, which the result
/// XML's `logfile` names: table-generator reads a column from the logs in the archive when the
/// log folder is gone; `baton table` still reads the results, and resume still works.
#[test]
fn logs_are_archived_as_benchexec_archives_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    bench_tasks::tasks(d);
    let mut args = bench_tasks::EXPLICIT_ON_SAFE_AND_BUGGY.to_vec();
    args.extend(["--jobs", "1", "--output-dir", "out", "--name", "own"]);
    let out = baton(&args, d);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let archive = std::fs::File::open(d.join("out/own.logfiles.zip")).expect("the archive");
    let mut zip = zip::ZipArchive::new(archive).expect("a zip archive");
    let mut names: Vec<String> = zip
        .file_names()
        .map(|n| n.expect("entry name").into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names
            .iter()
            .all(|n| n.starts_with("own.logfiles/explicit.") && n.ends_with(".log")),
        "{names:?}"
    );
    let mut log = String::new();
    std::io::Read::read_to_string(&mut zip.by_name(&names[0]).unwrap(), &mut log).unwrap();
    assert!(log.contains("cpu time: "), "{log}");
    let xml = std::fs::read_to_string(d.join("out/own.results.explicit.xml")).unwrap();
    for n in &names {
        assert!(xml.contains(&format!("logfile=\"{n}\"")), "{n} not in\n{xml}");
    }

    let out = baton(&args, d);
    assert!(
        text(&out.stdout).contains("0 runs performed, 2 resumed"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(
        zip::ZipArchive::new(std::fs::File::open(d.join("out/own.logfiles.zip")).unwrap())
            .unwrap()
            .len(),
        2
    );
    let out = baton(&["table", "out/own.results.explicit.xml"], d);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("false(unreach-call)"),
        "{}",
        text(&out.stdout)
    );

    let Some(venv) = venv() else { return };
    install_tool_info(&venv);
    std::fs::rename(d.join("out/logs"), d.join("moved-logs")).unwrap();
    std::fs::write(
        d.join("table.xml"),
        "<?xml version=\"1.0\"?>\n<table>\n  <result filename=\"out/own.results.explicit.xml\">\n    <column title=\"status\"/>\n    <column title=\"logged\">cpu time: ([0-9.]+) s</column>\n  </result>\n</table>\n",
    )
    .unwrap();
    let run = Command::new(venv.join("bin/table-generator"))
        .args(["-x", "table.xml", "--format", "csv", "-o", "tg", "-n", "t"])
        .current_dir(d)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}{}", text(&run.stdout), text(&run.stderr));
    assert!(
        !text(&run.stderr).contains("Could not find logfile"),
        "{}",
        text(&run.stderr)
    );
    let csv = std::fs::read_to_string(files_ending(&d.join("tg"), ".csv")[0].clone()).unwrap();
    let logged: Vec<&str> = csv
        .lines()
        .filter(|l| l.contains(".yml"))
        .map(|l| l.split('\t').next_back().unwrap_or(""))
        .collect();
    assert_eq!(logged.len(), 2, "{csv}");
    assert!(
        logged.iter().all(|v| v.parse::<f64>().is_ok()),
        "values from the archived logs: {csv}"
    );
}
