//! Nothing Baton starts outlives it: `baton run` and `baton bench` ended by SIGINT, SIGTERM,
//! SIGHUP or SIGKILL leave no process, cgroup or temporary directory behind; `bench` records
//! no result of an interrupted run; `results.jsonl` survives a torn last line; a closed pipe
//! ends `baton exec --trace` quietly.
//!
//! The long-running child is a native `explicit` stage (`baton verify`) on a program whose
//! counter the explicit analysis unrolls without end.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const ENDLESS: &str = "extern void reach_error(void);\nint main() { unsigned int i = 0; while (1) { i = i + 1; if (i == 0) { i = 1; } } return 0; }\n";
const SAFE: &str = "extern void reach_error(void);\nextern int __VERIFIER_nondet_int(void);\nint main() { int x = __VERIFIER_nondet_int(); int y = 0; if (x > 0) y = 1; else y = 2; if (y == 0) reach_error(); return 0; }\n";
const FLOW: &str = "flow: endless\nbudget: { cpu_time: 300s, memory: 2GB }\nstages:\n  - name: explicit\n    tool: explicit\n    give_up: { cpu-time: 300s }\n    budget: { cpu_time: 300s }\n";

/// Generous: the machine may be loaded; nothing here waits this long when Baton works.
const PATIENCE: Duration = Duration::from_secs(60);

fn task(dir: &Path, name: &str, program: &str) -> PathBuf {
    std::fs::write(dir.join(format!("{name}.c")), program).unwrap();
    let yml = dir.join(format!("{name}.yml"));
    std::fs::write(
        &yml,
        format!("format_version: '2.0'\ninput_files: '{name}.c'\nproperties:\n  - property_file: ../properties/unreach-call.prp\n    expected_verdict: true\noptions:\n  language: C\n  data_model: ILP32\n"),
    )
    .unwrap();
    yml
}

fn start(args: &[&str], cwd: &Path, env: &[(&str, &Path)]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(File::create(cwd.join("baton.stdout")).unwrap())
        .stderr(File::create(cwd.join("baton.stderr")).unwrap())
        .spawn()
        .unwrap()
}

/// A process as `/proc/<pid>/stat` shows it: pid, parent, state, start time, command line.
#[derive(Debug, Clone)]
struct Proc {
    pid: i32,
    ppid: i32,
    state: u8,
    start: u64,
    cmdline: String,
}

fn read_proc(pid: i32) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest: Vec<&str> = stat.get(stat.rfind(')')? + 1..)?.split_whitespace().collect();
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    Some(Proc {
        pid,
        ppid: rest.get(1)?.parse().ok()?,
        state: *rest.first()?.as_bytes().first()?,
        start: rest.get(19)?.parse().ok()?,
        cmdline: String::from_utf8_lossy(&cmdline).replace('\0', " "),
    })
}

/// Every live descendant of `root`.
fn descendants(root: i32) -> Vec<Proc> {
    let all: Vec<Proc> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter_map(read_proc)
        .collect();
    let mut tree = vec![root];
    let mut out = Vec::new();
    let mut grew = true;
    while grew {
        grew = false;
        for p in &all {
            if tree.contains(&p.ppid) && !tree.contains(&p.pid) {
                tree.push(p.pid);
                out.push(p.clone());
                grew = true;
            }
        }
    }
    out
}

/// Whether the process still runs (a zombie does not: nobody may reap it in a container).
fn running(p: &Proc) -> bool {
    read_proc(p.pid).is_some_and(|now| now.start == p.start && now.state != b'Z' && now.state != b'X')
}

fn poll(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn wait_exit(child: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            panic!("Baton did not end after the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Cgroups named after one of `pids` (Baton names its cgroups `baton-<pid>-…`) anywhere below
/// /sys/fs/cgroup.
fn cgroups_of(pids: &[i32]) -> Vec<PathBuf> {
    fn walk(dir: &Path, depth: usize, prefixes: &[String], out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            if !e.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let name = e.file_name().to_string_lossy().into_owned();
            if prefixes.iter().any(|p| name.starts_with(p)) {
                out.push(e.path());
            }
            if depth < 8 {
                walk(&e.path(), depth + 1, prefixes, out);
            }
        }
    }
    let prefixes: Vec<String> = pids.iter().map(|p| format!("baton-{p}-")).collect();
    let mut out = Vec::new();
    walk(Path::new("/sys/fs/cgroup"), 0, &prefixes, &mut out);
    out
}

/// Baton's temporary directories of one of `pids` (`baton-run-<pid>-…`).
fn temp_dirs_of(pids: &[i32]) -> Vec<PathBuf> {
    let prefixes: Vec<String> = pids.iter().map(|p| format!("baton-run-{p}-")).collect();
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            prefixes.iter().any(|p| name.starts_with(p))
        })
        .map(|e| e.path())
        .collect()
}

/// Whether Baton surely makes cgroups here: a cgroup v1 `cpuacct` hierarchy this process can
/// write to (on other machines Baton may still use cgroup v2, or sample `/proc`).
fn cgroups_possible() -> bool {
    let probe = Path::new("/sys/fs/cgroup/cpuacct").join(format!("baton-test-probe-{}", std::process::id()));
    let v1 = std::fs::create_dir(&probe).is_ok();
    if v1 {
        let _ = std::fs::remove_dir(&probe);
    }
    v1
}

/// Whether the endless `baton verify` runs among `tree`.
fn endless_verify_runs(tree: &[Proc]) -> bool {
    tree.iter()
        .any(|p| p.cmdline.contains(" verify ") && p.cmdline.contains("endless.c"))
}

/// Starts Baton, waits until `ready` holds of its process tree, sends `signal`, and checks that
/// Baton ends with 128 + signal (or is killed by SIGKILL) and that nothing of it is left.
/// Returns Baton's stderr.
fn stop_and_check(
    args: &[&str],
    dir: &Path,
    env: &[(&str, &Path)],
    signal: i32,
    ready: impl Fn(&[Proc]) -> bool,
) -> String {
    let mut child = start(args, dir, env);
    let baton = child.id() as i32;
    poll("the long-running child", || ready(&descendants(baton)));
    // Give the analysis a moment to be under way, then take the whole tree.
    std::thread::sleep(Duration::from_millis(300));
    let tree = descendants(baton);
    let batons: Vec<i32> = std::iter::once(baton)
        .chain(tree.iter().filter(|p| p.cmdline.contains("baton")).map(|p| p.pid))
        .collect();
    let temps = temp_dirs_of(&batons);
    assert!(
        !temps.is_empty(),
        "no temporary directory of {batons:?} while running"
    );
    for t in &temps {
        let mode = std::fs::metadata(t).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", t.display());
    }
    let cgroups = !cgroups_of(&batons).is_empty();
    if !cgroups {
        assert!(!cgroups_possible(), "no cgroup of {batons:?} while running");
        println!("no cgroup of the run (Baton samples /proc here): the cgroup check is skipped");
    }

    assert_eq!(unsafe { libc::kill(baton, signal) }, 0);
    let status = wait_exit(&mut child);
    if signal == libc::SIGKILL {
        assert_eq!(status.signal(), Some(libc::SIGKILL), "{status:?}");
    } else {
        assert_eq!(status.code(), Some(128 + signal), "{status:?}");
    }
    let after = |what: &str| format!("{what} after signal {signal}");
    poll(&after("every process of the run ended"), || {
        !tree.iter().any(running)
    });
    poll(&after("every temporary directory removed"), || {
        temp_dirs_of(&batons).is_empty()
    });
    if cgroups {
        poll(&after("every cgroup removed"), || cgroups_of(&batons).is_empty());
    }
    std::fs::read_to_string(dir.join("baton.stderr")).unwrap()
}

const SIGNALS: [i32; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGKILL];

#[test]
fn run_stopped_by_any_signal_leaves_nothing() {
    for signal in SIGNALS {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("flow.yaml"), FLOW).unwrap();
        std::fs::write(d.join("endless.c"), ENDLESS).unwrap();
        let stderr = stop_and_check(
            &["run", "flow.yaml", "endless.c"],
            d,
            &[],
            signal,
            endless_verify_runs,
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        if signal != libc::SIGKILL {
            assert!(stderr.contains("baton: stopped by SIG"), "{stderr}");
        }
    }
}

/// A stand-in for CBMC's executables: a shell that starts a sleeping child and waits; on
/// SIGTERM it notes that it got it.
const SLEEPING_TOOL: &str = "#!/bin/sh\ntrap 'echo term > \"$BATON_TEST_PIDS.term\"; exit 143' TERM\nsleep 1000 &\necho \"$$ $!\" >> \"$BATON_TEST_PIDS\"\nwait\n";

#[test]
fn external_tool_and_its_children_die_with_run() {
    for signal in SIGNALS {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("bin")).unwrap();
        for name in ["goto-cc", "goto-instrument", "cbmc"] {
            let path = d.join("bin").join(name);
            std::fs::write(&path, SLEEPING_TOOL).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::write(
            d.join("flow.yaml"),
            "flow: sleeping\nstages:\n  - name: cbmc\n    tool: cbmc\n    budget: { cpu_time: 300s }\n",
        )
        .unwrap();
        std::fs::write(d.join("safe.c"), SAFE).unwrap();
        let pids = d.join("pids");
        let stderr = stop_and_check(
            &["run", "flow.yaml", "safe.c"],
            d,
            &[("BATON_TOOLS_DIR", d), ("BATON_TEST_PIDS", &pids)],
            signal,
            |tree| {
                // The shell and its sleeping child (a grandchild of Baton) both run.
                let Ok(text) = std::fs::read_to_string(&pids) else {
                    return false;
                };
                let Some((shell, sleep)) = text.split_once(' ') else {
                    return false;
                };
                let listed = |pid: &str| tree.iter().any(|p| Ok(p.pid) == pid.trim().parse());
                listed(shell) && listed(sleep)
            },
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        if signal != libc::SIGKILL {
            // Stopped the gentle way first: the tool could end by itself.
            assert!(d.join("pids.term").exists(), "the tool got no SIGTERM");
        }
    }
}

#[test]
fn bench_stopped_by_any_signal_records_finished_runs_only() {
    for signal in SIGNALS {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("flow.yaml"), FLOW).unwrap();
        task(d, "safe", SAFE);
        task(d, "endless", ENDLESS);
        let args = [
            "bench",
            "--tasks",
            "safe.yml",
            "endless.yml",
            "--run",
            "r=run flow.yaml",
            "--jobs",
            "1",
            "--timelimit",
            "300s",
            "--output-dir",
            "out",
        ];
        let stderr = stop_and_check(&args, d, &[], signal, endless_verify_runs);
        assert!(!stderr.contains("panicked"), "{stderr}");
        let jsonl = std::fs::read_to_string(d.join("out/results.jsonl")).unwrap();
        assert!(jsonl.contains("safe.yml"), "{jsonl}");
        assert!(
            !jsonl.contains("endless.yml"),
            "an interrupted run was recorded: {jsonl}"
        );
    }
}

/// This process's cgroup directory in the v1 `cpuacct` hierarchy, if mounted at the usual place.
fn own_cpuacct_cgroup() -> Option<PathBuf> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = text.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers
            .split(',')
            .any(|c| c == "cpuacct")
            .then(|| path.to_string())
    })?;
    let dir = Path::new("/sys/fs/cgroup/cpuacct").join(path.trim_start_matches('/'));
    dir.is_dir().then_some(dir)
}

#[test]
fn leftovers_of_a_dead_baton_are_removed_at_the_next_start() {
    // A pid that is certainly not running any more.
    let mut gone = Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let dead = gone.id();
    let temp = std::env::temp_dir().join(format!("baton-run-{dead}-leftover"));
    std::fs::create_dir_all(temp.join("inside")).unwrap();
    let cgroup = own_cpuacct_cgroup()
        .filter(|_| cgroups_possible())
        .map(|parent| parent.join(format!("baton-{dead}-0-0000abcd")))
        .filter(|dir| std::fs::create_dir(dir).is_ok());
    if cgroup.is_none() {
        println!("no cgroup v1 cpuacct hierarchy to write to: only the temporary directory is checked");
    }
    let dir = tempfile::tempdir().unwrap();
    // Any `run` sets Baton up (and removes leftovers) before it reads its flow.
    let out = Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(["run", "missing.yaml", "missing.c"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!temp.exists(), "{} left", temp.display());
    if let Some(cgroup) = cgroup {
        assert!(!cgroup.exists(), "{} left", cgroup.display());
    }
}

#[test]
fn torn_last_line_of_results_is_ignored_and_the_run_repeated() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    task(d, "one", SAFE);
    task(d, "two", SAFE);
    let bench = |cwd: &Path| {
        Command::new(env!("CARGO_BIN_EXE_baton"))
            .args([
                "bench",
                "--tasks",
                "one.yml",
                "two.yml",
                "--run",
                "e=verify --analysis explicit",
                "--jobs",
                "1",
                "--output-dir",
                "out",
            ])
            .current_dir(cwd)
            .output()
            .unwrap()
    };
    let first = bench(d);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    // Baton killed while writing the second record: half of it is on disk, no newline.
    let path = d.join("out/results.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let torn = format!("{}\n{}", lines[0], &lines[1][..lines[1].len() / 2]);
    std::fs::write(&path, &torn).unwrap();
    let repeated_task = if lines[1].contains("two.yml") {
        "two.yml"
    } else {
        "one.yml"
    };

    let second = bench(d);
    let stderr = String::from_utf8_lossy(&second.stderr);
    let stdout = String::from_utf8_lossy(&second.stdout);
    assert!(second.status.success(), "{stderr}");
    assert!(stdout.contains("1 runs performed, 1 resumed"), "{stdout}");
    assert!(stderr.contains("results.jsonl:2: line is cut short"), "{stderr}");
    // The torn line stays as it is; the repeated run's record is a line of its own.
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    for i in [0, 2] {
        let record: serde_json::Value = serde_json::from_str(lines[i]).expect("a whole record");
        assert!(record.get("verdict").is_some());
    }
    assert!(lines[2].contains(repeated_task), "{text}");
    assert!(text.ends_with('\n'));
}

#[test]
fn closed_pipe_ends_exec_trace_quietly() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("endless.c"), ENDLESS).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(["exec", "endless.c", "--trace", "--max-steps", "1000000"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    assert!(!first.is_empty());
    drop(reader);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(out.status.code(), Some(141), "{:?}", out.status);
}
