//! Parallel portfolios: the stages of a `parallel:` group run on the same input at the same time
//! (at most as many at once as the machine has cores, each under its own budget). The first
//! stage with a definite verdict wins; the others are stopped at once — their next step does not
//! start, and every process carrying their mark ([`STAGE_MARK_ENV`]) is killed with its process
//! group, after which the process runner kills whatever else is left of those runs. If none
//! decides, the runner unites the conditions of all members.

use super::flow::{Budget, Stage};
use super::stage::{run_stage, FlowState, StageOutcome};
use crate::adapters::run::{StopSignal, STAGE_MARK_ENV};
use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::{getpgid, Pid};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// One member of a group: the stage, its budget and directory.
pub struct Member<'a> {
    pub stage: &'a Stage,
    pub budget: Budget,
    pub dir: PathBuf,
}

/// Runs the members of a group; their outcomes in the members' order.
pub fn run_group(state: &FlowState<'_>, members: &[Member<'_>]) -> Result<Vec<StageOutcome>, String> {
    let n = members.len();
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let workers = n.min(cores).max(1);
    let signals: Vec<StopSignal> = members.iter().map(|m| StopSignal::new(&m.stage.name)).collect();
    let running: Vec<AtomicBool> = (0..n).map(|_| AtomicBool::new(false)).collect();
    let next = AtomicUsize::new(0);
    let winner: Mutex<Option<usize>> = Mutex::new(None);
    let results: Mutex<Vec<Option<Result<StageOutcome, String>>>> =
        Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= n {
                    break;
                }
                let decided = *winner.lock().unwrap_or_else(|e| e.into_inner());
                let outcome = if let Some(w) = decided {
                    Ok(not_started(&members[i], &members[w].stage.name))
                } else {
                    running[i].store(true, Ordering::SeqCst);
                    let m = &members[i];
                    let r = run_stage(state, m.stage, &m.budget, &m.dir, Some(signals[i].clone()));
                    running[i].store(false, Ordering::SeqCst);
                    r
                };
                let definite = matches!(&outcome, Ok(o) if o.verdict.is_definite());
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(outcome);
                if definite {
                    let first = {
                        let mut w = winner.lock().unwrap_or_else(|e| e.into_inner());
                        let first = w.is_none();
                        if first {
                            *w = Some(i);
                        }
                        first
                    };
                    if first {
                        stop_others(i, &signals, &running);
                    }
                }
            });
        }
    });
    let decided = winner.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut out = Vec::new();
    for (i, r) in results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .enumerate()
    {
        let mut o = r.ok_or_else(|| format!("stage `{}` did not report", members[i].stage.name))??;
        if let Some(w) = decided {
            if w != i && o.row.status == "STOPPED" {
                o.row.note = format!("stopped: stage `{}` decided first", members[w].stage.name);
            }
        }
        out.push(o);
    }
    Ok(out)
}

fn not_started(m: &Member<'_>, winner: &str) -> StageOutcome {
    StageOutcome {
        row: super::stage::StageReport {
            name: m.stage.name.clone(),
            tool: m.stage.tool.clone(),
            input: String::new(),
            status: "not run".into(),
            verdict: "unknown".into(),
            confirmed: None,
            parallel_group: m.stage.group,
            cpu_time_s: 0.0,
            wall_time_s: 0.0,
            peak_memory: None,
            covered_share: 0.0,
            program_locations: 0,
            original_locations: 0,
            cuts_kept: None,
            note: format!("not started: stage `{winner}` decided first"),
        },
        verdict: crate::verdict::Verdict::Unknown,
        condition: None,
        cpu: Duration::ZERO,
        evidence: None,
    }
}

/// Raises every other member's stop signal and kills their processes until none runs.
fn stop_others(winner: usize, signals: &[StopSignal], running: &[AtomicBool]) {
    for (j, s) in signals.iter().enumerate() {
        if j != winner {
            s.raise();
        }
    }
    loop {
        let mut any = false;
        for (j, s) in signals.iter().enumerate() {
            if j != winner && running[j].load(Ordering::SeqCst) {
                any = true;
                kill_marked(&s.mark);
            }
        }
        if !any {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Kills every process whose environment holds `BATON_STAGE_MARK=<mark>`, with its process
/// group (never Baton's own group); how many were found.
pub fn kill_marked(mark: &str) -> usize {
    let needle = format!("{STAGE_MARK_ENV}={mark}");
    let own_group = getpgid(None).ok();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut found = 0;
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if !environ.split(|&b| b == 0).any(|var| var == needle.as_bytes()) {
            continue;
        }
        found += 1;
        let pid = Pid::from_raw(pid);
        if let Ok(group) = getpgid(Some(pid)) {
            if Some(group) != own_group {
                let _ = killpg(group, Signal::SIGKILL);
            }
        }
        let _ = kill(pid, Signal::SIGKILL);
    }
    found
}
