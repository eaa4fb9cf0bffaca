//! Budgets held end to end: a native analysis stops by itself at its `cpu-time` give-up and
//! its condition is built and written within a generous bound of the limit, on a program whose
//! ARG grows by a million nodes a second (so the condition is expensive); a `memory` give-up
//! stops the analysis, also while it confirms a long error path, and one applies by default —
//! below the memory limit of the cgroup Baton runs in, as under BenchExec.
//!
//! The CPU time is this process's (test files run as separate processes), so the tests here
//! that measure it take turns ([`CPU_MEASURED`]); the others use a few milliseconds.

use baton::analyses::explicit::ExplicitCpa;
use baton::analyses::{run_analysis, AnalysisKind, AnalysisOptions};
use baton::cfa::types::DataModel;
use baton::cfa::Program;
use baton::condition::{self, Format};
use baton::cpa::budget::default_memory_limit;
use baton::cpa::engine::{Engine, SearchOrder};
use baton::cpa::monitor::{process_cpu_time, resident_memory, GiveUp};
use baton::exec::ToolCommand;

#[path = "support/cgroup_run.rs"]
mod cgroup_run;
use baton::frontend::load_source;
use baton::verdict::Verdict;
use std::sync::Mutex;
use std::time::Duration;

/// Held by a test while it measures this process's CPU time (an analysis' `cpu-time` give-up
/// counts the whole process too).
static CPU_MEASURED: Mutex<()> = Mutex::new(());

/// A loop up to a nondet bound that the explicit-value analysis unrolls without end: every
/// iteration adds ARG nodes (and automaton states of the condition) at a high rate.
fn endless_sum() -> Program {
    let text = "extern unsigned int __VERIFIER_nondet_uint(void);\nvoid reach_error(void) {}\n\
        int main(void) { unsigned int n = __VERIFIER_nondet_uint(); unsigned long long s = 0;\n\
        for (unsigned int i = 0; i <= n; i++) { s = s + i; }\n\
        if (n == 0 && s == 7) reach_error(); return 0; }\n";
    load_source("endless_sum.c", text, DataModel::ILP32).expect("test program lowers")
}

fn options(give_up: &[&str]) -> AnalysisOptions {
    AnalysisOptions {
        give_up: give_up
            .iter()
            .map(|g| g.parse().expect("valid give-up"))
            .collect(),
        ..Default::default()
    }
}

#[test]
fn cpu_time_give_up_holds_with_the_condition_written() {
    let program = endless_sum();
    let dir = tempfile::tempdir().expect("temp dir");
    let _turn = CPU_MEASURED.lock().unwrap_or_else(|e| e.into_inner());
    let limit = Duration::from_secs(2);
    let before = process_cpu_time();
    // As a flow passes them: its budget's limit first, the stage's own smaller one after (the
    // smaller holds and is the one named).
    let give_up = options(&["cpu-time=60s", "cpu-time=2s"]);
    let outcome = run_analysis(AnalysisKind::Explicit, &program, &give_up, None);
    condition::write_file(
        &dir.path().join("c.graphml"),
        &outcome.condition,
        &program,
        Format::GraphMl,
    )
    .expect("condition written");
    let states = outcome.condition.states.len();
    drop(outcome.condition);
    let used = process_cpu_time().saturating_sub(before);
    assert_eq!(outcome.verdict, Verdict::Unknown);
    assert_eq!(outcome.reason, "gave up: cpu-time=2s");
    // The condition hands on the explored part (not only the initial state).
    assert!(states > 1000, "{states} states");
    // Generous: the promise is max(5 %, 0.3 s); before the reserve this program used 2.5 times
    // the limit.
    assert!(
        used <= limit * 3 / 2 + Duration::from_secs(1),
        "{used:?} CPU for a {limit:?} give-up"
    );
}

/// A bug at the end of a path of more than 600,000 steps through a large array: confirming it
/// means encoding and solving that whole path, which must end by the deadline too.
fn deep_bug() -> Program {
    let text = "extern int __VERIFIER_nondet_int(void);\nvoid reach_error(void) {}\nint a[100000];\n\
        int main(void) { int i; int j = 0;\n\
        for (i = 0; i < 100000; i++) { if (__VERIFIER_nondet_int()) break; a[i] = j; j = j + 1; }\n\
        if (i == 100000 && a[99999] == 99999) reach_error(); return 0; }\n";
    load_source("deep_bug.c", text, DataModel::ILP32).expect("test program lowers")
}

#[test]
fn cpu_time_give_up_holds_while_a_long_error_path_is_confirmed() {
    let program = deep_bug();
    let _turn = CPU_MEASURED.lock().unwrap_or_else(|e| e.into_inner());
    let limit = Duration::from_secs(2);
    let before = process_cpu_time();
    let outcome = run_analysis(AnalysisKind::Explicit, &program, &options(&["cpu-time=2s"]), None);
    let used = process_cpu_time().saturating_sub(before);
    // Either verdict is right within the budget (the bug is real); none may overrun it.
    assert_ne!(outcome.verdict, Verdict::True);
    assert!(
        used <= limit * 3 / 2 + Duration::from_secs(1),
        "{used:?} CPU for a {limit:?} give-up ({}: {})",
        outcome.verdict,
        outcome.reason
    );
}

/// Peak resident memory of this process (Linux `VmHWM`) since [`reset_peak_memory`], in bytes.
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Starts measuring [`peak_memory`] afresh; false where Linux does not allow it.
fn reset_peak_memory() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

#[test]
fn memory_give_up_holds_while_a_long_error_path_is_confirmed() {
    let program = deep_bug();
    let _turn = CPU_MEASURED.lock().unwrap_or_else(|e| e.into_inner());
    let Some(base) = resident_memory().filter(|_| reset_peak_memory()) else {
        eprintln!("skipped: this kernel does not let a process reset its peak memory");
        return;
    };
    let limit = base + 400_000_000;
    let give_up = [format!("memory={limit}B"), "cpu-time=60s".to_string()];
    let give_up: Vec<&str> = give_up.iter().map(String::as_str).collect();
    let outcome = run_analysis(AnalysisKind::Explicit, &program, &options(&give_up), None);
    let peak = peak_memory().expect("VmHWM readable");
    assert_ne!(outcome.verdict, Verdict::True);
    // Encoding the 600,000-step path for its inputs took 2.2 GB before it watched the limit;
    // what is left above it is building the condition (generous margin).
    assert!(
        peak <= limit + 500_000_000,
        "peak {} MB for a limit of {} MB ({}: {})",
        peak / 1_000_000,
        limit / 1_000_000,
        outcome.verdict,
        outcome.reason
    );
}

#[test]
fn memory_give_up_stops_the_analysis() {
    let outcome = run_analysis(
        AnalysisKind::Explicit,
        &endless_sum(),
        &options(&["memory=1MB"]),
        None,
    );
    assert_eq!(outcome.verdict, Verdict::Unknown);
    assert_eq!(outcome.reason, "gave up: memory=1000000B");
}

#[test]
fn a_memory_limit_applies_by_default() {
    let program = endless_sum();
    let default = default_memory_limit().expect("physical memory known");
    let engine = Engine::new(
        &program,
        ExplicitCpa::new(&program),
        SearchOrder::Dfs,
        Vec::new(),
        None,
    );
    assert_eq!(engine.give_up(), [GiveUp::Memory(default)]);
    // A limit the user gives replaces the default.
    let given = vec![GiveUp::Memory(5_000_000)];
    let engine = Engine::new(
        &program,
        ExplicitCpa::new(&program),
        SearchOrder::Dfs,
        given.clone(),
        None,
    );
    assert_eq!(engine.give_up(), given.as_slice());
}

/// Under a cgroup memory limit (BenchExec's `--memorylimit`, `baton bench --memlimit`) the
/// default `memory` give-up lies below that limit, so the analysis gives up with its condition
/// instead of being killed by the kernel's OOM killer.
#[test]
fn the_default_memory_give_up_lies_below_the_cgroup_limit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let source = dir.path().join("endless_sum.c");
    std::fs::write(
        &source,
        "extern unsigned int __VERIFIER_nondet_uint(void);\nvoid reach_error(void) {}\n\
        int main(void) { unsigned int n = __VERIFIER_nondet_uint(); unsigned long long s = 0;\n\
        for (unsigned int i = 0; i <= n; i++) { s = s + i; }\n\
        if (n == 0 && s == 7) reach_error(); return 0; }\n",
    )
    .expect("write program");
    let condition = dir.path().join("condition.spc");
    let command = ToolCommand::new([
        std::ffi::OsStr::new(env!("CARGO_BIN_EXE_baton")),
        "verify".as_ref(),
        "--analysis".as_ref(),
        "explicit".as_ref(),
        source.as_os_str(),
        "--condition-out".as_ref(),
        condition.as_os_str(),
        "--json".as_ref(),
    ]);
    let limit: u64 = 400 << 20;
    let Some((report, json)) = cgroup_run::json_under_memory_limit(&command, limit, Duration::from_secs(120))
    else {
        return;
    };
    assert_eq!(json["verdict"], "unknown", "{json}");
    let reason = json["reason"].as_str().unwrap_or_default();
    let given_up_at: u64 = reason
        .strip_prefix("gave up: memory=")
        .and_then(|r| r.strip_suffix('B'))
        .and_then(|b| b.parse().ok())
        .unwrap_or_else(|| panic!("not a memory give-up: {reason}"));
    assert!(given_up_at <= limit / 2, "gave up at {given_up_at} B");
    assert!(condition.exists(), "the condition is written");
    assert!(report.peak_memory.is_some_and(|p| p < limit));
}
