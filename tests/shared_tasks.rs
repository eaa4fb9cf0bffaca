//! The explicit-value analysis on the shared sv-benchmarks tasks (`BATON_SV_BENCHMARKS`):
//! seed 000's Table I with the paper's conditions, zero wrong answers on every task (and no
//! `false` through signed overflow on `loop-zilu/benchmark01_conjunctive` where present), and
//! the conditions it writes reading back unchanged from both file formats.
//!
//! Limits are short (seconds per task) so the suite stays fast; the long runs the issues ask
//! for are benchmarks (`baton bench`), not tests.

#[path = "support/shared.rs"]
mod shared;

use baton::analyses::{run_analysis, AnalysisKind, AnalysisOptions, AnalysisOutcome};
use baton::cfa::Program;
use baton::condition::{self, Format};
use baton::cpa::monitor::GiveUp;
use baton::frontend::load_program;
use baton::task::Task;
use baton::verdict::{Classification, Verdict};
use shared::{benchmarks, development_tasks, in_table, paper_tasks};
use std::sync::Mutex;

fn load(task_file: &std::path::Path) -> (Task, Program) {
    let task = Task::load(task_file, Default::default()).expect("task loads");
    let program = load_program(&task.program, task.data_model).expect("program lowers");
    (task, program)
}

fn analyse(kind: AnalysisKind, program: &Program, give_up: &[&str]) -> AnalysisOutcome {
    let options = AnalysisOptions {
        give_up: give_up
            .iter()
            .map(|g| g.parse::<GiveUp>().expect("valid give-up"))
            .collect(),
        ..Default::default()
    };
    run_analysis(kind, program, &options, None)
}

fn explicit(program: &Program, give_up: &[&str]) -> AnalysisOutcome {
    analyse(AnalysisKind::Explicit, program, give_up)
}

/// Runs `work` on every item with two threads (the machine has two cores).
fn parallel<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = Mutex::new(0usize);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().expect("lock");
                    let i = *n;
                    *n += 1;
                    i
                };
                let Some(item) = items.get(i) else { break };
                let r = work(item);
                results.lock().expect("lock").push((i, r));
            });
        }
    });
    let mut results = results.into_inner().expect("lock");
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

#[test]
fn table_1_bugs_are_found_with_the_papers_conditions() {
    let Some(dir) = benchmarks() else { return };
    let rows = [
        ("c/systemc/pc_sfifo_1.cil-1.yml", "repeating-locations=3"),
        ("c/systemc/pc_sfifo_2.cil-2.yml", "repeating-locations=3"),
        ("c/locks/test_locks_14-2.yml", "path-length=85"),
        ("c/locks/test_locks_15-1.yml", "path-length=90"),
        ("c/systemc/transmitter.15.cil.yml", "path-length=600"),
        ("c/systemc/transmitter.16.cil.yml", "path-length=600"),
    ];
    for (file, condition) in rows {
        let (task, program) = load(&dir.join(file));
        assert_eq!(task.expected, Some(false), "{file} is a BUG task");
        let outcome = explicit(&program, &[condition, "cpu-time=60s"]);
        assert_eq!(
            outcome.verdict,
            Verdict::False,
            "{file} with {condition}: {}",
            outcome.reason
        );
        let cex = outcome
            .counterexample
            .expect("a false verdict carries a counterexample");
        assert!(
            baton::analyses::replay_to_error(&program, &cex.inputs).is_some(),
            "{file}: replays"
        );
    }
}

/// Runs `kind` with a short CPU limit on every shared task: (table, name, verdict, judgement).
/// No answer may be wrong, and every `false` must come with a counterexample that replays to
/// the error.
fn on_every_shared_task(
    dir: &std::path::Path,
    kind: AnalysisKind,
    cpu: &str,
) -> Vec<(String, String, Verdict, Classification)> {
    let rows = paper_tasks(dir);
    assert_eq!(rows.len(), 77, "every shared task is covered");
    let results = parallel(&rows, |(table, name, file)| {
        let (task, program) = load(file);
        let outcome = analyse(kind, &program, &[cpu]);
        if outcome.verdict == Verdict::False {
            let cex = outcome
                .counterexample
                .as_ref()
                .expect("a false verdict has a counterexample");
            assert!(
                baton::analyses::replay_to_error(&program, &cex.inputs).is_some(),
                "{name}: the counterexample replays"
            );
        }
        (
            table.clone(),
            name.clone(),
            outcome.verdict,
            outcome.verdict.classify(task.expected),
        )
    });
    let wrong: Vec<_> = results.iter().filter(|r| r.3 == Classification::Wrong).collect();
    assert!(wrong.is_empty(), "{kind:?}, {cpu}: wrong answers: {wrong:?}");
    results
}

#[test]
fn predicate_analysis_gives_no_wrong_answer_on_any_shared_task() {
    let Some(dir) = benchmarks() else { return };
    let results = on_every_shared_task(&dir, AnalysisKind::Predicate, "cpu-time=2s");
    let correct = results.iter().filter(|r| r.3 == Classification::Correct).count();
    eprintln!("predicate, cpu-time=2s: {correct} correct of {}", results.len());
    assert!(correct >= 3, "the analysis answers some tasks ({correct})");
}

#[test]
fn chc_analysis_gives_no_wrong_answer_on_any_shared_task() {
    let Some(dir) = benchmarks() else { return };
    let results = on_every_shared_task(&dir, AnalysisKind::Chc, "cpu-time=2s");
    let correct = results.iter().filter(|r| r.3 == Classification::Correct).count();
    eprintln!("chc, cpu-time=2s: {correct} correct of {}", results.len());
    assert!(correct >= 1, "the analysis answers some tasks ({correct})");
}

#[test]
fn explicit_analysis_gives_no_wrong_answer_on_any_shared_task() {
    let Some(dir) = benchmarks() else { return };
    let results = on_every_shared_task(&dir, AnalysisKind::Explicit, "cpu-time=1s");
    let correct = results.iter().filter(|r| r.3 == Classification::Correct).count();
    let table2 = results.iter().filter(|r| in_table(&r.0, "II")).count();
    eprintln!(
        "explicit, cpu-time=1s: {correct} correct of {} ({table2} in Table II)",
        results.len()
    );
    assert!(correct >= 20, "the analysis answers a fair share ({correct})");
}

/// The development set's tasks the frontend lowers (the array, recursive and float tasks; structs are
/// rejected): no wrong answer from either analysis, every `false` replays, and the predicate
/// analysis, which does not model arrays, never says `true` on a program with one.
#[test]
fn development_tasks_that_lower_get_no_wrong_answer() {
    let Some(dir) = benchmarks() else { return };
    let rows = development_tasks(&dir);
    let lowered: Vec<_> = rows
        .iter()
        .filter_map(|(_, name, file)| {
            let task = Task::load(file, Default::default()).expect("task loads");
            let program = load_program(&task.program, task.data_model).ok()?;
            Some((name.clone(), task, program))
        })
        .collect();
    eprintln!("{} of {} development tasks lower", lowered.len(), rows.len());
    assert!(lowered.len() >= 15, "the array tasks lower ({})", lowered.len());
    let floats = lowered
        .iter()
        .filter(|(_, _, p)| p.variables.iter().any(|v| v.ty.is_float()))
        .count();
    assert!(floats >= 13, "the float tasks lower ({floats})");
    let results = parallel(&lowered, |(name, task, program)| {
        let has_arrays = program.variables.iter().any(|v| v.array.is_some());
        let mut out = Vec::new();
        for (kind, cpu) in [
            (AnalysisKind::Explicit, "cpu-time=1s"),
            (AnalysisKind::Predicate, "cpu-time=2s"),
        ] {
            let outcome = analyse(kind, program, &[cpu, "memory=2GB"]);
            if let Some(cex) = &outcome.counterexample {
                assert!(
                    baton::analyses::replay_to_error(program, &cex.inputs).is_some(),
                    "{name}: the counterexample replays"
                );
            }
            if kind == AnalysisKind::Predicate && has_arrays {
                assert_ne!(
                    outcome.verdict,
                    Verdict::True,
                    "{name}: predicate analysis proved an array program"
                );
            }
            out.push((
                name.clone(),
                kind,
                outcome.verdict,
                outcome.verdict.classify(task.expected),
            ));
        }
        out
    });
    let results: Vec<_> = results.into_iter().flatten().collect();
    let wrong: Vec<_> = results.iter().filter(|r| r.3 == Classification::Wrong).collect();
    assert!(wrong.is_empty(), "wrong answers: {wrong:?}");
    let correct = results.iter().filter(|r| r.3 == Classification::Correct).count();
    eprintln!(
        "development tasks: {correct} correct answers of {}",
        results.len()
    );
}

/// `loop-zilu/benchmark01_conjunctive` (expected `true`): the explicit analysis once answered
/// `false` because `x + y` overflowed and wrapped (issue 12); paths through signed overflow are
/// excluded now. Skipped with a printed reason where the shared folder lacks the task.
#[test]
fn signed_overflow_gives_no_false_on_benchmark01_conjunctive() {
    let Some(dir) = benchmarks() else { return };
    let file = dir.join("c/loop-zilu/benchmark01_conjunctive.yml");
    if !file.is_file() {
        eprintln!("skipped: {} is not in BATON_SV_BENCHMARKS", file.display());
        return;
    }
    let (task, program) = load(&file);
    assert_eq!(task.expected, Some(true));
    let outcome = explicit(&program, &["cpu-time=2s", "reached-states=200000"]);
    assert_ne!(outcome.verdict, Verdict::False, "{}", outcome.reason);
}

#[test]
fn conditions_of_every_shared_task_read_back_from_both_formats() {
    let Some(dir) = benchmarks() else { return };
    let rows = paper_tasks(&dir);
    let checked = parallel(&rows, |(_, name, file)| {
        let (_, program) = load(file);
        let outcome = explicit(&program, &["reached-states=1500"]);
        for format in [Format::GraphMl, Format::CpaChecker] {
            let text = condition::write(&outcome.condition, &program, format);
            let back = condition::parse(&text, name, &program)
                .unwrap_or_else(|e| panic!("{name} ({format:?}) does not read back: {e}"));
            assert_eq!(back, outcome.condition, "{name} ({format:?})");
        }
        outcome.condition.states.len()
    });
    assert_eq!(checked.len(), 77);
    assert!(checked.iter().any(|&n| n > 10), "some conditions are not trivial");
}

#[test]
fn guided_second_run_never_reexplores_what_the_first_verified() {
    use baton::analyses::explicit::ExplicitCpa;
    use baton::condition::ConditionRunner;
    use baton::cpa::arg::NodeStatus;
    use baton::cpa::engine::{Engine, Guide, SearchOrder};
    use baton::cpa::Step;
    let Some(dir) = benchmarks() else { return };
    let rows: Vec<_> = paper_tasks(&dir)
        .into_iter()
        .filter(|(t, _, _)| t.split('+').any(|x| x == "III"))
        .collect();
    assert_eq!(rows.len(), 24, "Table III has 24 tasks");
    let results = parallel(&rows, |(_, name, file)| {
        let (task, program) = load(file);
        let first = explicit(&program, &["reached-states=3000"]);
        let runner = ConditionRunner::new(&first.condition);
        let give_up = vec!["reached-states=6000".parse::<GiveUp>().expect("valid")];
        let mut engine = Engine::new(
            &program,
            ExplicitCpa::new(&program),
            SearchOrder::Dfs,
            give_up,
            Some(&runner as &dyn Guide),
        );
        engine.run();
        let arg = engine.arg();
        let reexplored = arg
            .live_ids()
            .filter(|&n| arg.node(n).status == NodeStatus::Expanded)
            .filter(|&n| {
                let edges: Vec<_> = arg
                    .path_to(n)
                    .into_iter()
                    .filter_map(|(s, _)| match s {
                        Step::Edge(e) => Some(e),
                        Step::Return { .. } => None,
                    })
                    .collect();
                first.condition.covers(&edges)
            })
            .count();
        let second = baton::analyses::explicit::verify(
            &program,
            &AnalysisOptions {
                give_up: vec!["reached-states=6000".parse().expect("valid")],
                ..Default::default()
            },
            Some(&runner as &dyn Guide),
        );
        (
            name.clone(),
            reexplored,
            engine.stats().guide_accepted,
            second.verdict.classify(task.expected),
        )
    });
    for (name, reexplored, _, class) in &results {
        assert_eq!(*reexplored, 0, "{name}: states re-explored under the guide");
        assert_ne!(*class, Classification::Wrong, "{name}: wrong verdict");
    }
    let guided: u64 = results.iter().map(|r| r.2).sum();
    eprintln!("guided runs left {guided} states to the first run's condition");
}

/// Seed 000's Table III combination on two tasks: the explicit-value analysis gives up and
/// hands on its condition, the predicate analysis guided by it decides. token_ring.02's
/// guided run needs predicates shared from a later part of the program at block starts that
/// were abstracted before (re-expansion instead of giving up on the counterexample).
#[test]
fn predicate_analysis_guided_by_the_explicit_condition_decides_token_ring_02() {
    use baton::condition::ConditionRunner;
    let Some(dir) = benchmarks() else { return };
    for file in [
        "c/systemc/token_ring.02.cil-1.yml",
        "c/systemc/token_ring.02.cil-2.yml",
    ] {
        let (task, program) = load(&dir.join(file));
        let first = explicit(&program, &["cpu-time=10s"]);
        assert_eq!(
            first.verdict,
            Verdict::Unknown,
            "{file}: the explicit stage leaves work"
        );
        let runner = ConditionRunner::new(&first.condition);
        let options = AnalysisOptions {
            give_up: vec!["cpu-time=120s".parse().expect("valid")],
            ..Default::default()
        };
        let second = run_analysis(AnalysisKind::Predicate, &program, &options, Some(&runner));
        assert_eq!(
            second.verdict.classify(task.expected),
            Classification::Correct,
            "{file}: {} ({})",
            second.verdict,
            second.reason
        );
        if second.verdict == Verdict::False {
            let cex = second.counterexample.expect("a counterexample");
            assert!(baton::analyses::replay_to_error(&program, &cex.inputs).is_some());
        }
    }
}
