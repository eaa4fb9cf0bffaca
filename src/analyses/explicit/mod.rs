//! Explicit-value analysis: exact integer values where they are known, "unknown" elsewhere.
//!
//! Values come from the same evaluation code as the concrete interpreter
//! ([`crate::cfa::semantics`]). Nondet values and uninitialised locals are unknown; a branch
//! whose condition is unknown yields both successors, and the equality branch learns the value
//! (`x == c`). States are never merged; a state is covered by one at the same control state
//! that knows no more (the partial order of the flat lattice per variable).

use super::{confirm_path, run_to_verdict, AnalysisOptions, AnalysisOutcome};
use crate::cfa::expr::{BinaryOp, Expr, ExprKind, UnaryOp};
use crate::cfa::semantics::{self, UndefinedBehavior};
use crate::cfa::{Operation, Program, VarId};
use crate::cpa::engine::{Engine, Guide};
use crate::cpa::{Cpa, CpaError, Step, Transfer};

/// Known variable values (absent = unknown), normalised to each variable's type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ExplicitState {
    pub values: im::OrdMap<VarId, i128>,
}

impl ExplicitState {
    /// The value of `var`, if known.
    pub fn get(&self, var: VarId) -> Option<i128> {
        self.values.get(&var).copied()
    }

    fn set(&mut self, var: VarId, value: Option<i128>) {
        match value {
            Some(v) => {
                self.values.insert(var, v);
            }
            None => {
                self.values.remove(&var);
            }
        }
    }

    fn eval(&self, expr: &Expr) -> Result<Option<i128>, UndefinedBehavior> {
        semantics::eval(expr, &|v| self.get(v))
    }
}

/// The explicit-value CPA.
#[derive(Debug, Clone, Default)]
pub struct ExplicitCpa;

/// What an assume edge teaches when it holds: `var == value`.
fn learned_equality(cond: &Expr, branch: bool, program: &Program) -> Option<(VarId, i128)> {
    match &cond.kind {
        // `if (x)` false branch: x == 0.
        ExprKind::Var(v) if !branch => Some((*v, 0)),
        ExprKind::Unary(UnaryOp::LogNot, inner) => learned_equality(inner, !branch, program),
        ExprKind::Binary(op @ (BinaryOp::Eq | BinaryOp::Ne), a, b) if (*op == BinaryOp::Eq) == branch => {
            let (var_side, value) = match (a.as_const(), b.as_const()) {
                (None, Some(c)) => (a.as_ref(), c),
                (Some(c), None) => (b.as_ref(), c),
                _ => return None,
            };
            let var = strip_value_preserving_casts(var_side)?;
            let ty = program.variable(var).ty;
            // Only a value the variable can hold is learned; otherwise the branch may still be
            // feasible through a cast that changes values, and nothing is learned.
            ty.contains(value).then_some((var, value))
        }
        _ => None,
    }
}

/// The variable under casts that keep every value of its type (widening to a type that
/// contains the source type), if the expression is one.
fn strip_value_preserving_casts(expr: &Expr) -> Option<VarId> {
    match &expr.kind {
        ExprKind::Var(v) => Some(*v),
        ExprKind::Cast(inner) => {
            let (from, to) = (inner.ty, expr.ty);
            let preserving = to.contains(from.min()) && to.contains(from.max()) && !to.is_bool();
            if preserving {
                strip_value_preserving_casts(inner)
            } else {
                None
            }
        }
        _ => None,
    }
}

impl Cpa for ExplicitCpa {
    type State = ExplicitState;
    type Precision = ();

    fn name(&self) -> &'static str {
        "explicit"
    }

    fn initial_state(&self, program: &Program) -> ExplicitState {
        let mut state = ExplicitState::default();
        for (id, var) in program.globals() {
            state.values.insert(id, var.ty.normalize(var.initial));
        }
        state
    }

    fn transfer(
        &self,
        state: &ExplicitState,
        step: Step,
        _precision: &(),
        program: &Program,
    ) -> Result<Transfer<ExplicitState>, CpaError> {
        let undefined =
            |ub: UndefinedBehavior, line: u32| Ok(Transfer::GiveUp(format!("{ub} at line {line}")));
        let edge_id = step.edge();
        let edge = program.edge(edge_id);
        let line = edge.source.line;
        let mut next = state.clone();
        match step {
            Step::Return { .. } => {
                if let Operation::Call {
                    callee,
                    result: Some(result),
                    ..
                } = &edge.op
                {
                    let value = program.function(*callee).return_var.and_then(|rv| state.get(rv));
                    let ty = program.variable(*result).ty;
                    next.set(*result, value.map(|v| ty.normalize(v)));
                }
            }
            Step::Edge(_) => match &edge.op {
                Operation::Skip | Operation::Error { .. } | Operation::Abort { .. } => {}
                Operation::Exit { code } => {
                    if let Err(ub) = state.eval(code) {
                        return undefined(ub, line);
                    }
                }
                Operation::Declare { var, init } => {
                    let value = match init {
                        Some(e) => match state.eval(e) {
                            Ok(v) => v,
                            Err(ub) => return undefined(ub, line),
                        },
                        None => None,
                    };
                    next.set(*var, value);
                }
                Operation::Assign { lhs, rhs } => match state.eval(rhs) {
                    Ok(v) => next.set(*lhs, v.map(|v| program.variable(*lhs).ty.normalize(v))),
                    Err(ub) => return undefined(ub, line),
                },
                Operation::Nondet { lhs, .. } => {
                    if let Some(v) = lhs {
                        next.set(*v, None);
                    }
                }
                Operation::Assume { cond, branch } => match state.eval(cond) {
                    Ok(Some(v)) => {
                        if (v != 0) != *branch {
                            return Ok(Transfer::Successors(Vec::new()));
                        }
                    }
                    Ok(None) => {
                        if let Some((var, value)) = learned_equality(cond, *branch, program) {
                            next.set(var, Some(value));
                        }
                    }
                    Err(ub) => return undefined(ub, line),
                },
                Operation::Call { callee, args, .. } => {
                    let params = &program.function(*callee).params;
                    let mut values = Vec::with_capacity(args.len());
                    for arg in args {
                        match state.eval(arg) {
                            Ok(v) => values.push(v),
                            Err(ub) => return undefined(ub, line),
                        }
                    }
                    for (&p, v) in params.iter().zip(values) {
                        next.set(p, v.map(|v| program.variable(p).ty.normalize(v)));
                    }
                }
                Operation::Return { value } => {
                    let func = program.function(program.location(edge.from).func);
                    if let (Some(rv), Some(e)) = (func.return_var, value) {
                        match state.eval(e) {
                            Ok(v) => next.set(rv, v.map(|v| program.variable(rv).ty.normalize(v))),
                            Err(ub) => return undefined(ub, line),
                        }
                    }
                }
            },
        }
        Ok(Transfer::Successors(vec![next]))
    }

    /// `a ⊑ b`: every value `b` knows, `a` knows too and equally.
    fn less_or_equal(&self, a: &ExplicitState, b: &ExplicitState) -> bool {
        b.values.len() <= a.values.len() && b.values.iter().all(|(v, x)| a.values.get(v) == Some(x))
    }
}

/// Runs the explicit-value analysis to a verdict; `guide` is a condition of earlier stages
/// whose covered paths are not explored again.
pub fn verify(program: &Program, options: &AnalysisOptions, guide: Option<&dyn Guide>) -> AnalysisOutcome {
    let mut engine = Engine::new(
        program,
        ExplicitCpa,
        options.order,
        options.give_up.clone(),
        guide,
    );
    run_to_verdict(&mut engine, |engine, node| {
        let path = engine.arg().path_to(node);
        let target = &engine.arg().node(node).state;
        // Each nondet value as the analysis knows it at the target (learned by an equality
        // branch, or kept in a variable that was not overwritten), 0 where unknown.
        let inputs = path
            .iter()
            .filter_map(|&(step, _)| match (step, &program.edge(step.edge()).op) {
                (Step::Edge(_), Operation::Nondet { lhs, .. }) => {
                    Some(lhs.and_then(|v| target.get(v)).unwrap_or(0))
                }
                _ => None,
            })
            .collect();
        confirm_path(program, path.into_iter().map(|(s, _)| s).collect(), inputs)
    })
}
