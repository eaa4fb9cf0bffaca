//! Small residual programs: conditions from the ARG verify infeasible edges (cuts for which the
//! reducer copies no code), and the reducer works on the minimised condition (bisimilar states
//! merged, dead states fall back to the original code).

use baton::analyses::{run_analysis, AnalysisKind, AnalysisOptions, AnalysisOutcome};
use baton::cfa::types::DataModel;
use baton::cfa::{EdgeId, LocationKind, Operation, Program};
use baton::condition::{Assumption, ConditionAutomaton, ConditionState, Cut, StateId, Transition};
use baton::cpa::engine::SearchOrder;
use baton::cpa::monitor::GiveUp;
use baton::reducer::{reduce, reduce_within, Residual, DEFAULT_MAX_LOCATIONS};
use std::collections::BTreeSet;

const PROGRAM: &str = "extern void __assert_fail(const char *, const char *, unsigned int, const char *);\n\
void reach_error() { __assert_fail(\"0\", \"t.c\", 3, \"reach_error\"); }\n\
extern int __VERIFIER_nondet_int(void);\n\
int main(void) {\n\
  int i;\n\
  int s = 0;\n\
  for (i = 0; i < 20; i++) { s += 2; }\n\
  while (__VERIFIER_nondet_int()) { s++; }\n\
  if (s == 45) reach_error();\n\
  return 0;\n\
}\n";

fn program() -> Program {
    baton::frontend::load_source("loops.c", PROGRAM, DataModel::ILP32).unwrap_or_else(|e| panic!("{e}"))
}

/// The edges from `main`'s entry to the first branch (the head of the `for` loop), then the
/// branch's `false` side: leaving the loop before its first iteration, which no execution does.
fn early_loop_exit(program: &Program) -> Vec<EdgeId> {
    let mut path = Vec::new();
    let mut at = program.main().entry;
    loop {
        match program.out_edges(at) {
            &[e] => {
                path.push(e);
                at = program.edge(e).to;
            }
            edges => {
                let exit = edges
                    .iter()
                    .copied()
                    .find(|&e| matches!(program.edge(e).op, Operation::Assume { branch: false, .. }));
                path.push(exit.unwrap_or_else(|| panic!("no loop exit at {at}")));
                return path;
            }
        }
    }
}

/// [`early_loop_exit`] with the branch's other side: into the loop body.
fn loop_entry(program: &Program) -> Vec<EdgeId> {
    let mut path = early_loop_exit(program);
    if let Some(last) = path.last_mut() {
        let head = program.edge(*last).from;
        *last = program
            .out_edges(head)
            .iter()
            .copied()
            .find(|&e| e != *last)
            .unwrap_or(*last);
    }
    path
}

/// An explicit-value run that gives up after 60 states: its condition unrolls the `for` loop.
fn short_explicit_run(program: &Program) -> AnalysisOutcome {
    let options = AnalysisOptions {
        give_up: vec![GiveUp::ReachedStates(60)],
        order: SearchOrder::Dfs,
    };
    run_analysis(AnalysisKind::Explicit, program, &options, None)
}

#[test]
fn an_infeasible_loop_exit_is_verified_by_the_arg_condition() {
    let program = program();
    let outcome = short_explicit_run(&program);
    assert!(!outcome.condition.is_trivial_full(), "{}", outcome.reason);
    let exit = early_loop_exit(&program);
    assert!(
        outcome.condition.covers(&exit),
        "the loop exit with i = 0 is infeasible, hence verified:\n{}",
        outcome.condition.render(&program)
    );
    // The path into the loop body instead: the body itself is not verified.
    assert!(!outcome.condition.covers(&loop_entry(&program)));
}

fn state(name: &str, accepting: bool) -> ConditionState {
    ConditionState {
        name: name.into(),
        accepting,
    }
}

fn go(from: u32, edges: BTreeSet<EdgeId>, to: u32) -> Transition {
    Transition {
        from: StateId(from),
        edges,
        assumption: Assumption::True,
        to: StateId(to),
        cut: Cut::Explored,
    }
}

/// A condition that verifies the paths into the error location: with `copies` states that
/// take turns on every other edge (all of them behave the same).
fn verified_error_paths(program: &Program, copies: u32, error_verified: bool) -> ConditionAutomaton {
    let into_error: BTreeSet<EdgeId> = program
        .edge_ids()
        .filter(|&e| program.location(program.edge(e).to).kind == LocationKind::Error)
        .collect();
    let others: BTreeSet<EdgeId> = program.edge_ids().filter(|e| !into_error.contains(e)).collect();
    let mut states = vec![state("T", true)];
    let mut transitions = Vec::new();
    for k in 0..copies {
        states.push(state(&format!("q{k}"), false));
        let next = 1 + (k + 1) % copies;
        transitions.push(go(1 + k, others.clone(), next));
        if error_verified {
            transitions.push(go(1 + k, into_error.clone(), 0));
        }
    }
    ConditionAutomaton {
        program_hash: program.hash.clone(),
        states,
        initial: StateId(1),
        transitions,
        state_cuts: Vec::new(),
    }
}

#[test]
fn states_that_behave_the_same_do_not_copy_the_program() {
    let program = program();
    let size = |c: &ConditionAutomaton| {
        reduce(&program, c, DEFAULT_MAX_LOCATIONS)
            .unwrap_or_else(|e| panic!("{e}"))
            .program
            .locations
            .len()
    };
    let one = size(&verified_error_paths(&program, 1, true));
    assert_eq!(size(&verified_error_paths(&program, 3, true)), one);
    // Without the accepting state the condition says nothing: the residual is the original
    // (calls kept as calls), however many states take turns.
    let nothing = size(&ConditionAutomaton::nothing_verified(&program.hash));
    assert_eq!(size(&verified_error_paths(&program, 3, false)), nothing);
}

const CALLS: &str = "extern void __assert_fail(const char *, const char *, unsigned int, const char *);\n\
void reach_error() { __assert_fail(\"0\", \"t.c\", 3, \"reach_error\"); }\n\
extern int __VERIFIER_nondet_int(void);\n\
int g;\n\
int inc(int a) { g = g + a; return g; }\n\
int twice(int b) { return inc(b) + inc(1); }\n\
void check(int v) { if (v == 42) reach_error(); }\n\
int main(void) {\n\
  int x = __VERIFIER_nondet_int();\n\
  int s = twice(x) + twice(2) + inc(3);\n\
  check(s);\n\
  check(g);\n\
  return 0;\n\
}\n";

/// The names of the residual program's functions, sorted.
fn function_names(residual: &Program) -> Vec<&str> {
    let mut names: Vec<&str> = residual.functions.iter().map(|f| f.name.as_str()).collect();
    names.sort_unstable();
    names
}

/// Calls stay calls (of one shared copy per function) where the condition cannot tell anything
/// apart inside the callee; a callee holding an edge the condition reads is inlined.
#[test]
fn calls_the_condition_does_not_look_into_stay_calls() {
    let program =
        baton::frontend::load_source("calls.c", CALLS, DataModel::ILP32).unwrap_or_else(|e| panic!("{e}"));
    let reduced =
        |c: &ConditionAutomaton| reduce(&program, c, DEFAULT_MAX_LOCATIONS).unwrap_or_else(|e| panic!("{e}"));
    // Nothing verified: the residual program is the original, every function called once.
    let nothing = reduced(&ConditionAutomaton::nothing_verified(&program.hash));
    assert_eq!(
        function_names(&nothing.program),
        ["check", "inc", "main", "twice"]
    );
    // No larger than the original: it starts in `q_r`, and `main`'s exit is one location.
    assert!(
        nothing.program.locations.len() <= program.locations.len(),
        "{} residual locations, {} original",
        nothing.program.locations.len(),
        program.locations.len()
    );
    // The paths into the error (inside `check`) are verified: `check` is inlined at both of its
    // calls and cut there; `twice` and `inc` stay calls.
    let residual = reduced(&verified_error_paths(&program, 1, true));
    assert_eq!(function_names(&residual.program), ["inc", "main", "twice"]);
    assert!(residual.error_unreachable());
    let check = program
        .functions
        .iter()
        .find(|f| f.name == "check")
        .map_or(0, |f| f.locations.len());
    assert!(
        residual.program.locations.len() <= program.locations.len() + check,
        "{} residual locations, {} original",
        residual.program.locations.len(),
        program.locations.len()
    );
}

/// True if the residual program has a path that reads the original edges `path` in order
/// (edges that read nothing, such as parameter assignments, are passed over; a call kept as a
/// call goes on in the callee).
fn reads_path(residual: &Residual, path: &[EdgeId]) -> bool {
    let program = &residual.program;
    let after = |r: EdgeId| match &program.edge(r).op {
        Operation::Call { callee, .. } => program.function(*callee).entry,
        _ => program.edge(r).to,
    };
    let mut at = vec![program.main().entry];
    for &e in path {
        let mut next = Vec::new();
        let mut seen = BTreeSet::new();
        while let Some(l) = at.pop() {
            if !seen.insert(l) {
                continue;
            }
            for &r in program.out_edges(l) {
                match residual.edge_reads[r.index()] {
                    Some(read) if read == e => next.push(after(r)),
                    None => at.push(after(r)),
                    Some(_) => {}
                }
            }
        }
        if next.is_empty() {
            return false;
        }
        at = next;
    }
    true
}

/// Cuts of infeasible edges remove no execution, so the reducer copies no code for them: the
/// residual of a condition that only unrolls a loop to cut its infeasible exits is the
/// original's code (its paths include the infeasible exit, which no execution takes).
#[test]
fn cuts_of_infeasible_edges_copy_no_code() {
    let program = program();
    let condition = short_explicit_run(&program).condition;
    let exit = early_loop_exit(&program);
    assert!(condition.covers(&exit));
    assert!(condition.transitions.iter().any(|t| t.cut == Cut::Infeasible));
    let residual = reduce(&program, &condition, DEFAULT_MAX_LOCATIONS).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        residual.program.locations.len() <= program.locations.len(),
        "{} residual locations, {} original",
        residual.program.locations.len(),
        program.locations.len()
    );
    assert_eq!(residual.coverage().cuts, 0);
    assert!(reads_path(&residual, &exit) && reads_path(&residual, &loop_entry(&program)));
    // The same cuts taken as explored ones unroll the loop.
    let mut explored = condition.clone();
    for t in &mut explored.transitions {
        t.cut = Cut::Explored;
    }
    let unrolled = reduce(&program, &explored, DEFAULT_MAX_LOCATIONS).unwrap_or_else(|e| panic!("{e}"));
    assert!(unrolled.program.locations.len() > 2 * program.locations.len());
    assert!(!reads_path(&unrolled, &exit));
}

/// A loop whose every iteration may end the program, in a function called twice: an explicit
/// run explores each early exit to the end, so its condition verifies them (cuts that remove
/// executions), and since `run` has two calling contexts they stay cuts of the path (no state
/// cuts).
const EARLY_RETURNS: &str =
    "extern void __assert_fail(const char *, const char *, unsigned int, const char *);\n\
void reach_error() { __assert_fail(\"0\", \"t.c\", 3, \"reach_error\"); }\n\
extern int __VERIFIER_nondet_int(void);\n\
extern void exit(int);\n\
int run(int s) {\n\
  int i;\n\
  for (i = 0; i < 20; i++) {\n\
    if (__VERIFIER_nondet_int()) exit(0);\n\
    s += 2;\n\
  }\n\
  return s;\n\
}\n\
int main(void) {\n\
  int s = run(0);\n\
  s = run(s);\n\
  while (__VERIFIER_nondet_int()) { s++; }\n\
  if (s == 85) reach_error();\n\
  return 0;\n\
}\n";

/// The path from `main`'s entry, into calls, that takes the `true` side of every branch up to
/// the first branch after a nondet call and there the side `early`: into the first early return
/// of [`EARLY_RETURNS`]' first iteration (`true`) or on into the loop body (`false`).
fn first_early_return(program: &Program, early: bool) -> Vec<EdgeId> {
    let mut path = Vec::new();
    let mut at = program.main().entry;
    let mut after_nondet = false;
    loop {
        let edges = program.out_edges(at);
        let last = edges.len() > 1 && after_nondet;
        let side = early || !last;
        let e = match edges {
            &[e] => e,
            _ => edges
                .iter()
                .copied()
                .find(|&e| matches!(program.edge(e).op, Operation::Assume { branch, .. } if branch == side))
                .unwrap_or_else(|| panic!("no {side} branch at {at}")),
        };
        path.push(e);
        if last {
            return path;
        }
        after_nondet |= matches!(program.edge(e).op, Operation::Nondet { .. });
        at = match &program.edge(e).op {
            Operation::Call { callee, .. } => program.function(*callee).entry,
            _ => program.edge(e).to,
        };
    }
}

/// A condition whose cuts are unrolled makes the exact residual larger than the original.
/// Capped at the original's size, the residual is no larger and keeps every path into the loop
/// body; capped at half the exact size, it also keeps the condition's first cut (the first
/// early return, explored to the end, stays cut off), and it reports what it kept of the exact
/// residual's cuts.
#[test]
fn a_capped_residual_keeps_the_first_cuts_and_every_unverified_path() {
    let program = baton::frontend::load_source("returns.c", EARLY_RETURNS, DataModel::ILP32)
        .unwrap_or_else(|e| panic!("{e}"));
    // Breadth-first, so that the early returns of the first iterations are explored to the end.
    let options = AnalysisOptions {
        give_up: vec![GiveUp::ReachedStates(60)],
        order: SearchOrder::Bfs,
    };
    let condition = run_analysis(AnalysisKind::Explicit, &program, &options, None).condition;
    let exact = reduce(&program, &condition, DEFAULT_MAX_LOCATIONS).unwrap_or_else(|e| panic!("{e}"));
    let original = program.locations.len();
    let size = exact.program.locations.len();
    assert!(
        size > 2 * original,
        "the condition unrolls the loop: {size} locations, {original} original"
    );
    assert!(condition.state_cuts.is_empty());
    let exit = first_early_return(&program, true);
    let body = first_early_return(&program, false);
    assert!(condition.covers(&exit));
    assert!(!reads_path(&exact, &exit) && reads_path(&exact, &body));
    for cap in [original, size / 2] {
        let capped =
            reduce_within(&program, &condition, cap, DEFAULT_MAX_LOCATIONS).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(capped.exact, exact.coverage());
        let residual = capped.residual;
        assert!(residual.program.locations.len() <= cap, "cap {cap}");
        assert!(reads_path(&residual, &body), "cap {cap}");
        let kept = residual.coverage();
        assert!(kept.cuts <= exact.cuts && kept.precise <= exact.precise_locations());
        if cap > original {
            assert!(kept.cuts > 0, "cap {cap}: the condition is not dropped");
            assert!(!reads_path(&residual, &exit), "cap {cap}: the first cut is kept");
        }
    }
}
