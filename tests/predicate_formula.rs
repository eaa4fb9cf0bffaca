//! The predicate analysis' formula layer on small C programs: path feasibility, nondet values
//! that replay on the concrete interpreter, abstraction, and refinement driving a small
//! CEGAR loop (abstraction at loop heads, restart after each refinement) to a verdict.

use baton::analyses::predicate::abstraction::{
    boolean_abstraction, cartesian_abstraction, AbstractState, Precision, Predicate,
};
use baton::analyses::predicate::formula::{PathFormula, SsaMap};
use baton::analyses::predicate::refinement::{analyse, Block, Refinement, RefinementOptions};
use baton::analyses::predicate::solver::{Satisfiability, SolverConfig};
use baton::cfa::expr::{BinaryOp, Expr};
use baton::cfa::interpreter::{execute, ExecOptions};
use baton::cfa::semantics::SignedOverflow;
use baton::cfa::types::{DataModel, IntType};
use baton::cfa::{LocationKind, Program, VarId};
use baton::cpa::control::ControlState;
use baton::cpa::Step;
use z3::ast::Bool;

fn load(text: &str) -> Program {
    match baton::frontend::load_source("test.c", text, DataModel::ILP32) {
        Ok(p) => p,
        Err(e) => panic!("frontend: {e}"),
    }
}

const PRELUDE: &str = "extern void reach_error(void);\n\
extern int __VERIFIER_nondet_int(void);\n\
extern unsigned int __VERIFIER_nondet_uint(void);\n";

#[derive(Debug, PartialEq)]
enum Verdict {
    Safe,
    /// A counterexample, with the nondet inputs that the interpreter replayed to the error.
    Unsafe(Vec<i128>),
    GaveUp(String),
}

struct Node {
    control: ControlState,
    pf: PathFormula,
    done: Vec<Block>,
    current: Block,
}

/// A small CEGAR loop over the library API: explores paths, abstracts at loop heads and error
/// locations with the Boolean abstraction, stops at covered states, analyses counterexamples.
fn verify(program: &Program) -> (Verdict, Precision) {
    verify_with(program, RefinementOptions::default())
}

fn verify_with(program: &Program, options: RefinementOptions) -> (Verdict, Precision) {
    let config = SolverConfig::default();
    let mut precision = Precision::new();
    for _round in 0..25 {
        let start = ControlState::initial(program);
        let mut reached: Vec<(ControlState, AbstractState)> = Vec::new();
        let mut waitlist = vec![Node {
            control: start.clone(),
            pf: PathFormula::program_start(program),
            done: Vec::new(),
            current: Block {
                start: start.location,
                state: AbstractState::top(),
                steps: Vec::new(),
            },
        }];
        let mut counterexample = None;
        let mut expanded = 0;
        'explore: while let Some(node) = waitlist.pop() {
            for step in node.control.steps(program) {
                expanded += 1;
                if expanded > 20_000 {
                    return (Verdict::GaveUp("state limit".into()), precision);
                }
                let control = node.control.successor(step, program);
                let pf = node.pf.extend(step, program).expect("encodable path");
                let mut current = node.current.clone();
                current.steps.push(step);
                let loc = control.location;
                let is_error = program.location(loc).kind == LocationKind::Error;
                if !(is_error || program.location(loc).loop_head) {
                    // Prune infeasible branches early (a satisfiability check per assume edge).
                    let assume = matches!(step, Step::Edge(e) if program.edge(e).op.is_assume());
                    if assume && matches!(config.check(&pf.formula), Satisfiability::Unsat) {
                        continue;
                    }
                    waitlist.push(Node {
                        control,
                        pf,
                        done: node.done.clone(),
                        current,
                    });
                    continue;
                }
                let abs = boolean_abstraction(&pf, &precision.predicates_at(loc), program, &config, 256);
                if abs.is_bottom() {
                    continue;
                }
                let mut blocks = node.done.clone();
                blocks.push(current);
                if is_error {
                    counterexample = Some(blocks);
                    break 'explore;
                }
                if reached
                    .iter()
                    .any(|(c, s)| *c == control && abs.entails(s, program, &config))
                {
                    continue;
                }
                reached.push((control.clone(), abs.clone()));
                waitlist.push(Node {
                    control,
                    pf: PathFormula::starting_with(abs.to_formula(&SsaMap::new(), program)),
                    done: blocks,
                    current: Block {
                        start: loc,
                        state: abs,
                        steps: Vec::new(),
                    },
                });
            }
        }
        let Some(blocks) = counterexample else {
            return (Verdict::Safe, precision);
        };
        match analyse(&blocks, &precision, program, &config, options).expect("encodable path") {
            Refinement::Feasible(cex) => {
                let run = execute(program, &cex.nondet_values, &ExecOptions::default());
                assert!(run.ending.is_error(), "replay ended with {}", run.ending);
                return (Verdict::Unsafe(cex.nondet_values), precision);
            }
            Refinement::Refined { predicates, .. } => {
                for lp in predicates {
                    for p in lp.predicates {
                        precision.add(lp.location, p);
                    }
                }
            }
            Refinement::NoProgress { .. } => return (Verdict::GaveUp("no progress".into()), precision),
            Refinement::Unknown(why) => return (Verdict::GaveUp(why), precision),
        }
    }
    (Verdict::GaveUp("too many refinements".into()), precision)
}

fn var(program: &Program, source: &str) -> (VarId, IntType) {
    let i = program
        .variables
        .iter()
        .position(|v| v.source_name == source)
        .unwrap_or_else(|| panic!("no variable {source}"));
    (VarId(i as u32), program.variables[i].ty)
}

fn rendered(precision: &Precision, program: &Program) -> Vec<String> {
    let mut all: Vec<String> = precision
        .local
        .values()
        .flatten()
        .map(|p| p.to_c(program))
        .collect();
    all.sort();
    all.dedup();
    all
}

#[test]
fn counter_loop_needs_a_sign_predicate() {
    let program = load(&format!(
        "{PRELUDE}int main(void) {{ int i = 0; int n = __VERIFIER_nondet_int();\n\
         while (i < n) {{ i++; }}\n if (i < 0) reach_error();\n return 0; }}\n"
    ));
    let (verdict, precision) = verify(&program);
    assert_eq!(verdict, Verdict::Safe);
    let preds = rendered(&precision, &program);
    assert!(preds.iter().any(|p| p == "(i < 0)"), "predicates: {preds:?}");
}

#[test]
fn equality_of_two_variables_is_learned() {
    let program = load(&format!(
        "{PRELUDE}int main(void) {{ int x = __VERIFIER_nondet_int(); int y = x;\n\
         while (__VERIFIER_nondet_int()) {{ x++; y++; }}\n if (x != y) reach_error();\n return 0; }}\n"
    ));
    let (verdict, precision) = verify(&program);
    assert_eq!(verdict, Verdict::Safe);
    let preds = rendered(&precision, &program);
    assert!(preds.iter().any(|p| p == "(x == y)"), "predicates: {preds:?}");
}

#[test]
fn unsigned_wrap_around_is_bit_precise() {
    // With mathematical integers x - 1 would be -1 < 5; in C it is UINT_MAX.
    let safe = load(&format!(
        "{PRELUDE}int main(void) {{ unsigned int x = 0; x = x - 1;\n\
         if (x < 5) reach_error();\n return 0; }}\n"
    ));
    assert_eq!(verify(&safe).0, Verdict::Safe);
    // With mathematical integers x + 1 < x is impossible; in C it holds for UINT_MAX.
    let unsafe_program = load(&format!(
        "{PRELUDE}int main(void) {{ unsigned int x = __VERIFIER_nondet_uint();\n\
         if (x + 1 < x) reach_error();\n return 0; }}\n"
    ));
    assert_eq!(verify(&unsafe_program).0, Verdict::Unsafe(vec![4294967295]));
}

#[test]
fn feasible_counterexample_replays_on_the_interpreter() {
    let program = load(&format!(
        "{PRELUDE}int main(void) {{ int a = __VERIFIER_nondet_int(); int b = __VERIFIER_nondet_int();\n\
         if (b > 100) {{ if (a * 3 == b + 7) reach_error(); }}\n return 0; }}\n"
    ));
    match verify(&program).0 {
        Verdict::Unsafe(values) => {
            assert_eq!(values.len(), 2);
            let (a, b) = (values[0], values[1]);
            assert!(b > 100);
            assert_eq!(IntType::INT.normalize(a * 3), IntType::INT.normalize(b + 7));
        }
        other => panic!("expected a counterexample, got {other:?}"),
    }
}

#[test]
fn calls_pass_parameters_and_results() {
    let safe = load(&format!(
        "{PRELUDE}int inc(int v) {{ return v + 1; }}\n\
         int main(void) {{ int x = __VERIFIER_nondet_int(); int y = inc(x);\n\
         if (y == x) reach_error();\n return 0; }}\n"
    ));
    assert_eq!(verify(&safe).0, Verdict::Safe);
    // Only signed overflow gives inc(x) < x: undefined behaviour, so the path is infeasible
    // (as the interpreter ends the run there) ...
    let mut overflows = load(&format!(
        "{PRELUDE}int inc(int v) {{ return v + 1; }}\n\
         int main(void) {{ int x = __VERIFIER_nondet_int(); int y = inc(x);\n\
         if (y < x) reach_error();\n return 0; }}\n"
    ));
    assert_eq!(verify(&overflows).0, Verdict::Safe);
    // ... unless it wraps: inc(INT_MAX) < INT_MAX.
    overflows.signed_overflow = SignedOverflow::Wrap;
    assert_eq!(verify(&overflows).0, Verdict::Unsafe(vec![2147483647]));
}

#[test]
fn division_by_zero_paths_are_excluded() {
    // Only a division by zero could reach the error (the divided-by-zero `y` is any value in a
    // formula without the exclusion): the path is infeasible, in every mode.
    let mut program = load(&format!(
        "{PRELUDE}int main(void) {{ int x = __VERIFIER_nondet_int(); int y = 7;\n\
         if (x == 0) {{ y = 1 / x; }}\n if (y == 42) reach_error();\n return 0; }}\n"
    ));
    assert_eq!(verify(&program).0, Verdict::Safe);
    program.signed_overflow = SignedOverflow::Wrap;
    assert_eq!(verify(&program).0, Verdict::Safe);
    // A defined division: 100 / x == 7 for x in 13..=14.
    let program = load(&format!(
        "{PRELUDE}int main(void) {{ int x = __VERIFIER_nondet_int(); int y = 100 / x;\n\
         if (y == 7) reach_error();\n return 0; }}\n"
    ));
    match verify(&program).0 {
        Verdict::Unsafe(values) => assert!(values == vec![13] || values == vec![14], "{values:?}"),
        other => panic!("expected a counterexample, got {other:?}"),
    }
}

#[test]
fn repeated_refinement_of_the_same_path_reports_no_progress() {
    let program = load(&format!(
        "{PRELUDE}int main(void) {{ int i = 0; int n = __VERIFIER_nondet_int();\n\
         while (i < n) {{ i++; }}\n if (i < 0) reach_error();\n return 0; }}\n"
    ));
    // The abstract counterexample with an empty precision: straight to the loop head, then
    // out of the loop into the error.
    let config = SolverConfig::default();
    let mut control = ControlState::initial(&program);
    let mut blocks = vec![Block {
        start: control.location,
        state: AbstractState::top(),
        steps: Vec::new(),
    }];
    let mut guard = 0;
    while program.location(control.location).kind != LocationKind::Error {
        guard += 1;
        assert!(guard < 100, "no path to the error");
        let steps = control.steps(&program);
        // At the loop head take the exit (the edge whose assume is `i < n` false).
        let step = *steps
            .iter()
            .find(|s| {
                let Step::Edge(e) = s else { return true };
                match &program.edge(*e).op {
                    baton::cfa::Operation::Assume { cond, branch } => {
                        let mut text = String::new();
                        cond.write_c(&mut text, program.data_model, &|v| {
                            program.variable(v).source_name.clone()
                        });
                        (text.contains("i < n") && !branch) || (text.contains("i < 0") && *branch)
                    }
                    _ => true,
                }
            })
            .expect("a step");
        let last = blocks.len() - 1;
        blocks[last].steps.push(step);
        control = control.successor(step, &program);
        if program.location(control.location).loop_head {
            blocks.push(Block {
                start: control.location,
                state: AbstractState::top(),
                steps: Vec::new(),
            });
        }
    }
    // The path is sliced to the assumes its infeasibility needs (`i < 0` alone, as `i` is 0 at
    // the loop head; the loop exit `!(i < n)` is irrelevant), so one refinement adds exactly
    // `i < 0` at the loop head; refining the same path again finds nothing new.
    let mut precision = Precision::new();
    let plain = RefinementOptions::default();
    match analyse(&blocks, &precision, &program, &config, plain).expect("encodable") {
        Refinement::Refined { pivot, predicates } => {
            assert_eq!(pivot, 0);
            assert_eq!(predicates.len(), 1);
            assert_eq!(predicates[0].location, blocks[1].start);
            let mut texts: Vec<String> = predicates[0]
                .predicates
                .iter()
                .map(|p| p.to_c(&program))
                .collect();
            texts.sort();
            assert_eq!(texts, vec!["(i < 0)"]);
            for p in &predicates[0].predicates {
                precision.add(predicates[0].location, p.clone());
            }
        }
        other => panic!("expected a refinement, got {other:?}"),
    }
    match analyse(&blocks, &precision, &program, &config, plain).expect("encodable") {
        Refinement::NoProgress { pivot } => assert_eq!(pivot, 0),
        other => panic!("expected no progress, got {other:?}"),
    }
    // If the analysis had tracked `!(i < 0)` at the loop head, the state there would already
    // exclude the rest of the path: the pivot is that block, and nothing after it needs
    // predicates.
    let (i_var, i_ty) = var(&program, "i");
    let negative = Predicate::from_condition(&Expr::binary(
        BinaryOp::Lt,
        Expr::var(i_var, i_ty),
        Expr::int(0),
        IntType::INT,
    ))
    .expect("a predicate");
    let mut tracked = blocks.clone();
    tracked[1].state = AbstractState {
        cubes: vec![vec![baton::analyses::predicate::abstraction::Literal {
            predicate: negative,
            positive: false,
        }]],
        minterms: false,
    };
    match analyse(&tracked, &Precision::new(), &program, &config, plain).expect("encodable") {
        Refinement::NoProgress { pivot } => assert_eq!(pivot, 1),
        other => panic!("expected no progress at pivot 1, got {other:?}"),
    }
    // Minimising by unsat cores over the sliced bad regions agrees: `i < 0`, then nothing.
    let minimize = RefinementOptions {
        minimize_predicates: true,
    };
    let mut precision = Precision::new();
    let mut rounds = Vec::new();
    loop {
        match analyse(&blocks, &precision, &program, &config, minimize).expect("encodable") {
            Refinement::Refined { predicates, .. } => {
                let mut texts = Vec::new();
                for lp in predicates {
                    for p in lp.predicates {
                        texts.push(p.to_c(&program));
                        precision.add(lp.location, p);
                    }
                }
                rounds.push(texts);
            }
            Refinement::NoProgress { .. } => break,
            other => panic!("expected a refinement, got {other:?}"),
        }
        assert!(rounds.len() < 5, "no convergence: {rounds:?}");
    }
    assert_eq!(rounds, vec![vec!["(i < 0)".to_string()]]);
}

#[test]
fn minimised_refinement_proves_the_examples() {
    let minimize = RefinementOptions {
        minimize_predicates: true,
    };
    let counter = load(&format!(
        "{PRELUDE}int main(void) {{ int i = 0; int n = __VERIFIER_nondet_int();\n\
         while (i < n) {{ i++; }}\n if (i < 0) reach_error();\n return 0; }}\n"
    ));
    let (verdict, precision) = verify_with(&counter, minimize);
    assert_eq!(verdict, Verdict::Safe);
    assert_eq!(rendered(&precision, &counter), vec!["(i < 0)"]);
    let equal = load(&format!(
        "{PRELUDE}int main(void) {{ int x = __VERIFIER_nondet_int(); int y = x;\n\
         while (__VERIFIER_nondet_int()) {{ x++; y++; }}\n if (x != y) reach_error();\n return 0; }}\n"
    ));
    assert_eq!(verify_with(&equal, minimize).0, Verdict::Safe);
}

#[test]
fn boolean_abstraction_is_more_precise_than_cartesian() {
    let program = load(&format!(
        "{PRELUDE}int main(void) {{ int x = __VERIFIER_nondet_int(); return x; }}\n"
    ));
    let config = SolverConfig::default();
    let (x, ty) = var(&program, "x");
    let eq = |c: i128| {
        Predicate::from_condition(&Expr::binary(
            BinaryOp::Eq,
            Expr::var(x, ty),
            Expr::int(c),
            IntType::INT,
        ))
        .expect("a predicate")
    };
    let preds = vec![eq(1), eq(2)];
    let xt = baton::analyses::predicate::formula::var_term(x, ty, 0);
    let one_or_two = Bool::or(&[
        xt.eq(baton::analyses::predicate::formula::bv_const(1, 32)),
        xt.eq(baton::analyses::predicate::formula::bv_const(2, 32)),
    ]);
    let pf = PathFormula::empty().conjoin(&one_or_two);
    let cart = cartesian_abstraction(&pf, &preds, &program, &config);
    let boolean = boolean_abstraction(&pf, &preds, &program, &config, 16);
    assert!(cart.is_top(), "cartesian: {cart}");
    assert_eq!(boolean.cubes.len(), 2, "boolean: {boolean}");
    assert!(boolean.entails(&cart, &program, &config));
    assert!(!cart.entails(&boolean, &program, &config));
    let c = boolean.to_c(&program);
    assert!(
        c == "((x == 1) && !(x == 2)) || (!(x == 1) && (x == 2))"
            || c == "(!(x == 1) && (x == 2)) || ((x == 1) && !(x == 2))",
        "{c}"
    );
    // As a witness invariant in `main` (x is a local of main) nothing is left out.
    assert_eq!(boolean.invariant_c(&program, program.entry_function), c);
    // With a limit of one assignment the Boolean abstraction falls back to Cartesian.
    assert_eq!(boolean_abstraction(&pf, &preds, &program, &config, 1), cart);
    // The state converted back to a formula excludes x == 3.
    let back = boolean.to_formula(&SsaMap::new(), &program);
    let three = Bool::and(&[back, xt.eq(baton::analyses::predicate::formula::bv_const(3, 32))]);
    assert!(matches!(config.check(&three), Satisfiability::Unsat));
}

#[test]
fn abstraction_of_an_infeasible_path_is_bottom() {
    let program = load(&format!(
        "{PRELUDE}int main(void) {{ unsigned char c = 255; c = c + 1;\n\
         if (c != 0) reach_error();\n return 0; }}\n"
    ));
    let (verdict, _) = verify(&program);
    assert_eq!(verdict, Verdict::Safe);
}

/// On small sv-benchmarks tasks the CEGAR loop must never give a wrong verdict (it may give
/// up). Needs `BATON_SV_BENCHMARKS`; skipped otherwise.
#[test]
fn sv_benchmarks_small_tasks_no_wrong_verdict() {
    let Ok(root) = std::env::var("BATON_SV_BENCHMARKS") else {
        eprintln!("BATON_SV_BENCHMARKS not set: skipping");
        return;
    };
    let tasks = [
        ("c/locks/test_locks_14-2.yml", false),
        ("c/locks/test_locks_15-1.yml", false),
        ("c/systemc/pc_sfifo_1.cil-1.yml", false),
    ];
    for (yml, expected) in tasks {
        let yml_path = std::path::Path::new(&root).join(yml);
        let text = std::fs::read_to_string(&yml_path).expect("task file");
        let input = text
            .lines()
            .find_map(|l| l.strip_prefix("input_files: "))
            .expect("input_files")
            .trim_matches('\'');
        let c_path = yml_path.parent().expect("folder").join(input);
        let program = baton::frontend::load_program(&c_path, DataModel::ILP32).expect("frontend");
        let started = std::time::Instant::now();
        let (verdict, precision) = verify(&program);
        eprintln!(
            "{yml}: {verdict:?} with {} predicates in {:?}",
            precision.len(),
            started.elapsed()
        );
        match verdict {
            Verdict::Safe => assert!(expected, "{yml}: wrong `true`"),
            Verdict::Unsafe(_) => assert!(!expected, "{yml}: wrong `false`"),
            Verdict::GaveUp(_) => {}
        }
    }
}

#[test]
fn witness_invariants_leave_out_unnameable_variables() {
    let program = load(&format!(
        "{PRELUDE}int g;\nint f(int a) {{ return a; }}\n\
         int main(void) {{ int x = __VERIFIER_nondet_int(); return f(x) + g; }}\n"
    ));
    let (x, xt) = var(&program, "x");
    let (a, at) = var(&program, "a");
    let (g, gt) = var(&program, "g");
    let lit =
        |v: VarId, t: IntType, c: i128, positive: bool| baton::analyses::predicate::abstraction::Literal {
            predicate: Predicate::from_condition(&Expr::binary(
                BinaryOp::Lt,
                Expr::var(v, t),
                Expr::int(c),
                IntType::INT,
            ))
            .expect("a predicate"),
            positive,
        };
    let state = AbstractState {
        cubes: vec![
            vec![lit(x, xt, 1, true), lit(g, gt, 2, false)],
            vec![lit(a, at, 3, true)],
        ],
        minterms: false,
    };
    let main = program.entry_function;
    let f = program.function_by_name("f").expect("f");
    // The second cube loses its only literal in main: the invariant is `true`.
    assert_eq!(state.invariant_c(&program, main), "1");
    assert_eq!(state.invariant_c(&program, f), "(!(g < 2)) || ((a < 3))");
    assert_eq!(state.to_c(&program), "((x < 1) && !(g < 2)) || ((a < 3))");
}

#[test]
fn refinement_sees_through_calls() {
    // The loop body's call must be encoded (parameter, return value, result) for the analysis
    // to keep `!(i < 0)` at the loop head, and the predicates come from weakest preconditions
    // through the call.
    let program = load(&format!(
        "{PRELUDE}int inc(int v) {{ return v + 1; }}\n\
         int main(void) {{ int i = 0; int n = __VERIFIER_nondet_int();\n\
         while (i < n) {{ i = inc(i); }}\n if (i < 0) reach_error();\n return 0; }}\n"
    ));
    let (verdict, precision) = verify(&program);
    assert_eq!(verdict, Verdict::Safe);
    assert!(rendered(&precision, &program).contains(&"(i < 0)".to_string()));
    // The same loop with a decrement through the call does reach the error.
    let program = load(&format!(
        "{PRELUDE}int dec(int v) {{ return v - 1; }}\n\
         int main(void) {{ int i = 0; int n = __VERIFIER_nondet_int();\n\
         while (i < n) {{ i = dec(i); if (i < -2) break; }}\n if (i < -1) reach_error();\n return 0; }}\n"
    ));
    match verify(&program).0 {
        Verdict::Unsafe(values) => assert!(values[0] > 0, "{values:?}"),
        other => panic!("expected a counterexample, got {other:?}"),
    }
}
