//! What one CFA step does, independent of the theory its path formula is written in: which
//! variables it writes with which expressions, what it assumes, what it leaves open. The
//! bit-precise path formulas ([`super::formula`]) and the integer ones of the CHC engine
//! ([`crate::analyses::chc::integers`]) both encode steps from this one description, so the
//! lookups, checks and C rules of a step (arguments read before parameters are written, the
//! return value converted to the caller's variable, …) live in one place.

use super::formula::EncodeError;
use crate::cfa::expr::Expr;
use crate::cfa::library::LibFunction;
use crate::cfa::types::IntType;
use crate::cfa::{FuncId, Operation, Program, VarId};
use crate::cpa::Step;

/// A program variable with its declared type (an array's element type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Typed {
    pub var: VarId,
    pub ty: IntType,
}

/// The effect of one step.
#[derive(Debug, Clone)]
pub enum StepEffect<'p> {
    /// Nothing to encode (skip, error, abort, exit).
    Nothing,
    /// `target` gets `value` converted to its type (assignments, initialised declarations,
    /// `return e` into the function's return variable).
    Assign { target: Typed, value: &'p Expr },
    /// A scalar local declared without initialiser: its value is indeterminate.
    Uninitialized { target: Typed },
    /// An array is created (its variable extents must be positive), every element `fill`
    /// converted to the element type, or indeterminate without it.
    CreateArray { array: Typed, fill: Option<&'p Expr> },
    /// `target = array[index...]`.
    Load {
        target: Typed,
        array: Typed,
        index: &'p [Expr],
    },
    /// `array[index...] = value`.
    Store {
        array: Typed,
        index: &'p [Expr],
        value: &'p Expr,
    },
    /// Every target gets an arbitrary value of its type: a new heap block's address, the
    /// result of a function without a body.
    Havoc { targets: Vec<Typed> },
    /// `target = *(T *)address`, `T` the target's type: the address-taken variable (one of
    /// `objects`) or array element at `address` if there is one of `T`'s size, else any
    /// value (heap contents are not tracked; other accesses end the run, see
    /// [`crate::cfa::address`]).
    LoadThrough {
        target: Typed,
        address: &'p Expr,
        objects: Vec<Typed>,
    },
    /// `*(T *)address = value`, `T` the value's type: the address-taken variable (one of
    /// `objects`) or array element at `address` changes if there is one of `T`'s size; every
    /// other variable keeps its value.
    StoreThrough {
        address: &'p Expr,
        value: &'p Expr,
        objects: Vec<Typed>,
    },
    /// A C library function on `args` (converted to its parameter types), its result to
    /// `result`; where an encoding does not model it exactly ([`super::library`]), the
    /// result and every object it `may_write` (the address-taken variables; heap contents
    /// are not tracked) get arbitrary values.
    Library {
        function: LibFunction,
        args: &'p [Expr],
        result: Option<Typed>,
        may_write: Vec<Typed>,
    },
    /// A nondet value of type `ty`, stored converted into `target` if there is one.
    Nondet { target: Option<Typed>, ty: IntType },
    /// Passable when `(cond != 0) == branch`.
    Assume { cond: &'p Expr, branch: bool },
    /// A call: each parameter gets its argument (all arguments are read before any parameter
    /// is written).
    Call {
        callee: FuncId,
        params: Vec<(Typed, &'p Expr)>,
    },
    /// The return from a call: `result` (in the caller) gets the callee's return variable
    /// `value`, if both exist.
    ReturnFromCall {
        callee: FuncId,
        result: Option<(Typed, Typed)>,
    },
}

/// The effect of `step` in `program`; an error for ids the program does not have and for
/// malformed steps (a return of a non-call edge, a call with the wrong argument count).
pub fn step_effect(step: Step, program: &Program) -> Result<StepEffect<'_>, EncodeError> {
    let edge = program
        .edges
        .get(step.edge().index())
        .ok_or(EncodeError::NoSuchEdge(step.edge()))?;
    let typed = |var: VarId| {
        program
            .variables
            .get(var.index())
            .map(|v| Typed { var, ty: v.ty })
            .ok_or(EncodeError::NoSuchVariable(var.0))
    };
    let function = |f: FuncId| {
        program
            .functions
            .get(f.index())
            .ok_or(EncodeError::NoSuchFunction(f.0))
    };
    let is_array = |var: VarId| {
        program
            .variables
            .get(var.index())
            .is_some_and(|v| v.array.is_some())
    };
    Ok(match (step, &edge.op) {
        (Step::Return { call }, op) => {
            let Operation::Call { callee, result, .. } = op else {
                return Err(EncodeError::NotACall {
                    at: program.describe(edge.source),
                    step: step.to_string(),
                    call,
                });
            };
            let result = match (result, function(*callee)?.return_var) {
                (Some(res), Some(rv)) => Some((typed(*res)?, typed(rv)?)),
                _ => None,
            };
            StepEffect::ReturnFromCall {
                callee: *callee,
                result,
            }
        }
        (Step::Edge(_), op) => match op {
            // An `Undefined` edge leads to a terminal location: the path ends there.
            Operation::Skip
            | Operation::Error { .. }
            | Operation::Abort { .. }
            | Operation::Exit { .. }
            | Operation::Undefined { .. } => StepEffect::Nothing,
            Operation::Declare { var, init } if is_array(*var) => StepEffect::CreateArray {
                array: typed(*var)?,
                fill: init.as_ref(),
            },
            Operation::Declare { var, init: Some(e) } | Operation::Assign { lhs: var, rhs: e } => {
                StepEffect::Assign {
                    target: typed(*var)?,
                    value: e,
                }
            }
            Operation::Declare { var, init: None } => StepEffect::Uninitialized { target: typed(*var)? },
            Operation::Load { lhs, array, index } => StepEffect::Load {
                target: typed(*lhs)?,
                array: typed(*array)?,
                index,
            },
            Operation::Store { array, index, rhs } => StepEffect::Store {
                array: typed(*array)?,
                index,
                value: rhs,
            },
            Operation::Alloc { lhs, .. } => StepEffect::Havoc {
                targets: vec![typed(*lhs)?],
            },
            Operation::LoadPtr { lhs, address } => StepEffect::LoadThrough {
                target: typed(*lhs)?,
                address,
                objects: program.address_taken().map(typed).collect::<Result<_, _>>()?,
            },
            Operation::StorePtr { address, rhs } => StepEffect::StoreThrough {
                address,
                value: rhs,
                objects: program.address_taken().map(typed).collect::<Result<_, _>>()?,
            },
            Operation::Free { .. } => StepEffect::Nothing,
            Operation::Library {
                function,
                args,
                result,
            } => {
                let mut may_write = Vec::new();
                if function.writes() {
                    for v in program
                        .address_taken()
                        .filter(|&v| !program.variable(v).read_only)
                    {
                        may_write.push(typed(v)?);
                    }
                }
                StepEffect::Library {
                    function: *function,
                    args,
                    result: result.map(typed).transpose()?,
                    may_write,
                }
            }
            // The result of a function without a body: any value.
            Operation::External { result, .. } => StepEffect::Havoc {
                targets: result.map(typed).transpose()?.into_iter().collect(),
            },
            Operation::Nondet { lhs, ty, .. } => StepEffect::Nondet {
                target: lhs.map(typed).transpose()?,
                ty: *ty,
            },
            Operation::Assume { cond, branch } => StepEffect::Assume {
                cond,
                branch: *branch,
            },
            Operation::Call { callee, args, .. } => {
                let f = function(*callee)?;
                if f.params.len() != args.len() {
                    return Err(EncodeError::ArgumentCount {
                        at: program.describe(edge.source),
                        callee: f.name.clone(),
                        args: args.len(),
                        params: f.params.len(),
                    });
                }
                let params = f
                    .params
                    .iter()
                    .zip(args)
                    .map(|(p, a)| Ok((typed(*p)?, a)))
                    .collect::<Result<_, EncodeError>>()?;
                StepEffect::Call {
                    callee: *callee,
                    params,
                }
            }
            Operation::Return { value } => {
                let loc = program
                    .locations
                    .get(edge.from.index())
                    .ok_or(EncodeError::NoSuchLocation(edge.from.0))?;
                match (value, function(loc.func)?.return_var) {
                    (Some(e), Some(rv)) => StepEffect::Assign {
                        target: typed(rv)?,
                        value: e,
                    },
                    _ => StepEffect::Nothing,
                }
            }
        },
    })
}
