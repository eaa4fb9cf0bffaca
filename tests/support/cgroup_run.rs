//! Runs a Baton command inside a cgroup memory limit set from outside, as `bench --memlimit`
//! and BenchExec set one.

use baton::exec::{run_with, Limits, Measurement, MechanismChoice, RunReport, RunStatus, ToolCommand};
use std::time::Duration;

/// The run of `command` under `memory` bytes and `cpu` of CPU time, checked to have ended by
/// itself, with its JSON output; `None` (the test is skipped, saying why) where no cgroup can be
/// made for it here, since sampling enforces no limit the process could read.
pub fn json_under_memory_limit(
    command: &ToolCommand,
    memory: u64,
    cpu: Duration,
) -> Option<(RunReport, serde_json::Value)> {
    let limits = Limits {
        cpu_time: Some(cpu),
        memory: Some(memory),
        ..Limits::default()
    };
    let report = run_with(command, &limits, MechanismChoice::Auto).expect("baton runs");
    if report.measurement == Measurement::Sampling {
        eprintln!(
            "skipped: no cgroup for the run here ({})",
            report.cgroup_unavailable.as_deref().unwrap_or("sampling")
        );
        return None;
    }
    assert_eq!(report.status, RunStatus::Done, "{report:?}");
    let out = report.stdout_text().expect("stdout");
    let json = serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"));
    Some((report, json))
}
