//! Explicit-value analysis: exact integer values where they are known, "unknown" elsewhere.
//!
//! Values come from the same evaluation code as the concrete interpreter
//! ([`crate::cfa::semantics`]). Nondet values and uninitialised locals are unknown; a branch
//! whose condition is unknown yields both successors, and the equality branch learns the value
//! (`x == c`). States are never merged; a state is covered by one at the same control state
//! that knows no more (the partial order of the flat lattice per variable).
//!
//! Arrays ([`crate::cfa::memory`]): the elements of small arrays of constant size are tracked
//! like variables (`arrays`); a write through an unknown index forgets the whole array, and
//! elements of other arrays are always unknown, which over-approximates every execution. An
//! index that is certainly outside its dimension ends the path like other undefined behaviour.
//!
//! Pointers (`pointers`): addresses are values like any other; a read or write through a
//! known address of an address-taken variable or a heap block is exact, and a write through
//! an unknown address makes every address-taken variable and heap cell unknown. Heap blocks
//! (`heap`) are allocated along a path at the interpreter's addresses, with known or
//! unknown size and contents; an unbounded number of allocations (a list built in a loop
//! without bound) never reaches a covered state and ends at the engine's give-ups.
//!
//! Recursion (`frames`): a call of a recursive function saves the callee's known locals in
//! the state and starts it with unknown ones; the return restores them. How deep recursion is
//! explored is bounded by the engine's `recursion-depth` give-up.
//!
//! Undefined behaviour (under the program's [`Program::signed_overflow`] semantics): a step
//! that certainly has it (all operands known) ends the path — no successor — because
//! sv-benchmarks tasks are free of it by convention and such executions do not count. Where it
//! only *might* happen (`x + 1` with `x` unknown), the result is unknown: that over-approximates
//! the executions without undefined behaviour, so a `true` stays sound. A `false` is only
//! reported after the counterexample's path formula (which excludes undefined behaviour) is
//! solved and the values replay to the error on the interpreter, which ends runs at undefined
//! behaviour: a path that needs it is never a counterexample.

use super::predicate::solver::SolverConfig;
use super::{confirm_path, run_to_verdict, AnalysisOptions, AnalysisOutcome};
use crate::cfa::address::StaticObjects;
use crate::cfa::expr::{BinaryOp, Expr, ExprKind, UnaryOp};
use crate::cfa::memory;
use crate::cfa::semantics::{self, SignedOverflow, UndefinedBehavior};
use crate::cfa::{AllocKind, FuncId, LocId, Operation, Program, Scope, VarId};
use crate::condition::state_cut::Valuation;
use crate::cpa::arg::NodeId;
use crate::cpa::budget::last_query;
use crate::cpa::control::ControlState;
use crate::cpa::engine::{Engine, Guide};
use crate::cpa::{Cpa, CpaError, Step, Transfer};
pub use arrays::KnownArrays;
pub use frames::SavedFrames;
pub use heap::KnownHeap;
pub use invariants::{contracts, loop_invariants};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
pub use values::KnownValues;

mod arrays;
mod frames;
mod heap;
pub mod incremental;
mod invariants;
mod library;
mod pointers;
mod values;

/// Known variable values (absent = unknown), normalised to each variable's type, known
/// elements of small arrays, the locals of suspended activations of recursive functions, the
/// heap, and the signs (-1 or 1) of variables whose value is unknown but not its sign: the
/// result of a comparison function that is not 0 (C fixes only its sign).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ExplicitState {
    pub values: KnownValues,
    pub arrays: KnownArrays,
    pub saved: SavedFrames,
    pub heap: KnownHeap,
    pub signs: KnownValues,
}

impl ExplicitState {
    /// The value of `var`, if known.
    pub fn get(&self, var: VarId) -> Option<i128> {
        self.values.get(&var).copied()
    }

    /// The sign of `var` (-1, 0 or 1), if known.
    fn sign(&self, var: VarId) -> Option<i128> {
        self.get(var)
            .map(i128::signum)
            .or_else(|| self.signs.get(&var).copied())
    }

    /// `var`'s value is unknown but of this sign (not 0).
    fn set_sign(&mut self, var: VarId, sign: i128) {
        self.set(var, None);
        self.signs.insert(var, sign.signum());
    }

    /// Forgets everything about `var`.
    fn forget(&mut self, var: &VarId) {
        self.values.remove(var);
        self.signs.remove(var);
    }

    fn set(&mut self, var: VarId, value: Option<i128>) {
        self.signs.remove(&var);
        match value {
            Some(v) => {
                self.values.insert(var, v);
            }
            None => {
                self.values.remove(&var);
            }
        }
    }

    fn eval(&self, expr: &Expr, overflow: SignedOverflow) -> Result<Option<i128>, UndefinedBehavior> {
        semantics::eval(expr, &|v| self.get(v), overflow)
    }
}

/// The explicit-value CPA. Values of local variables that are dead at a location (never read
/// again before being overwritten) are dropped there, so states that differ only in dead
/// temporaries become equal and cover each other.
#[derive(Debug, Clone)]
pub struct ExplicitCpa {
    liveness: Liveness,
    /// Per function: whether it is recursive (its locals are saved across calls of it).
    recursive: Vec<bool>,
    /// The address-taken variables, by address.
    statics: StaticObjects,
}

impl ExplicitCpa {
    /// Prepares the analysis for `program` (computes liveness of locals).
    pub fn new(program: &Program) -> ExplicitCpa {
        ExplicitCpa {
            liveness: Liveness::compute(program),
            recursive: program.recursive_functions(),
            statics: StaticObjects::of(program),
        }
    }

    /// The locals whose values are kept at `loc` (the others are dead there and dropped).
    pub fn live_locals(&self, loc: LocId) -> &FxHashSet<VarId> {
        &self.liveness.live[loc.index()]
    }

    fn objects<'a>(&'a self, program: &'a Program) -> pointers::Objects<'a> {
        pointers::Objects {
            statics: &self.statics,
            recursive: &self.recursive,
            program,
        }
    }

    fn is_recursive(&self, func: FuncId) -> bool {
        self.recursive.get(func.index()).copied().unwrap_or(false)
    }

    /// Drops values of the current function's locals that are dead at `loc`. An
    /// address-taken local is kept: a read through a pointer may reach it, which liveness
    /// (over the variables edges name) does not see.
    fn forget_dead(&self, state: &mut ExplicitState, loc: LocId, program: &Program) {
        let func = program.location(loc).func;
        let dead: Vec<VarId> = state
            .values
            .keys()
            .chain(state.signs.keys())
            .copied()
            .filter(|&v| {
                let var = program.variable(v);
                var.scope == Scope::Local(func) && var.address.is_none() && !self.liveness.is_live(loc, v)
            })
            .collect();
        for v in dead {
            state.forget(&v);
        }
    }

    /// Drops every local of `func` (after it returned: the next call declares them anew).
    fn forget_locals_of(&self, state: &mut ExplicitState, func: FuncId, program: &Program) {
        let locals: Vec<VarId> = state
            .values
            .keys()
            .chain(state.signs.keys())
            .copied()
            .filter(|&v| program.variable(v).scope == Scope::Local(func))
            .collect();
        for v in locals {
            state.forget(&v);
        }
    }
}

/// Live local variables per location: read on some path before being written.
#[derive(Debug, Clone)]
struct Liveness {
    live: Vec<FxHashSet<VarId>>,
}

impl Liveness {
    /// Backward fixpoint over each function's CFA. Globals are not tracked (always kept). The
    /// return variable is live at the function's exit (the caller reads it on return).
    fn compute(program: &Program) -> Liveness {
        let mut live: Vec<FxHashSet<VarId>> = vec![FxHashSet::default(); program.locations.len()];
        let is_local = |v: VarId| program.variable(v).scope != Scope::Global;
        for f in &program.functions {
            if let Some(rv) = f.return_var {
                live[f.exit.index()].insert(rv);
            }
        }
        let mut work: Vec<LocId> = program.location_ids().collect();
        let mut queued = vec![true; program.locations.len()];
        while let Some(loc) = work.pop() {
            queued[loc.index()] = false;
            let mut new: FxHashSet<VarId> = live[loc.index()].clone();
            for &e in program.out_edges(loc) {
                let edge = program.edge(e);
                let mut after = live[edge.to.index()].clone();
                if let Some(w) = edge.op.written_var() {
                    after.remove(&w);
                }
                let mut reads = Vec::new();
                edge.op.for_each_read(&mut |v| reads.push(v));
                after.extend(reads.into_iter().filter(|&v| is_local(v)));
                new.extend(after);
            }
            if new.len() != live[loc.index()].len() {
                live[loc.index()] = new;
                for &e in program.in_edges(loc) {
                    let from = program.edge(e).from;
                    if !queued[from.index()] {
                        queued[from.index()] = true;
                        work.push(from);
                    }
                }
            }
        }
        Liveness { live }
    }

    fn is_live(&self, loc: LocId, var: VarId) -> bool {
        self.live[loc.index()].contains(&var)
    }
}

/// The stop operator's index for explicit states: states grouped by the set of variables they
/// know. `a ⊑ b` needs `known(b) ⊆ known(a)` and equal values there, so a lookup projects `a`
/// onto each group's variable set and finds equal states by hash.
#[derive(Debug, Default)]
pub struct ExplicitCoverIndex {
    groups: Vec<(Vec<VarId>, ValueGroup)>,
}

/// Nodes of one group, by their states' values (shared with the states: no copy per state,
/// and no list allocated for the usual single node), with the rest of their states.
type ValueGroup =
    FxHashMap<KnownValues, SmallVec<[(NodeId, KnownArrays, SavedFrames, KnownHeap, KnownValues); 1]>>;

/// What an assume edge teaches when it holds: `var == value`.
pub(crate) fn learned_equality(cond: &Expr, branch: bool, program: &Program) -> Option<(VarId, i128)> {
    match &cond.kind {
        // `if (x)` false branch: x == 0 (for a float also -0.0: nothing learned).
        ExprKind::Var(v) if !branch && !cond.ty.is_float() => Some((*v, 0)),
        ExprKind::Unary(UnaryOp::LogNot, inner) => learned_equality(inner, !branch, program),
        ExprKind::Binary(op @ (BinaryOp::Eq | BinaryOp::Ne), a, b) if (*op == BinaryOp::Eq) == branch => {
            let (var_side, value) = match (a.as_const(), b.as_const()) {
                (None, Some(c)) => (a.as_ref(), c),
                (Some(c), None) => (b.as_ref(), c),
                _ => return None,
            };
            let var = strip_value_preserving_casts(var_side)?;
            let ty = program.variable(var).ty;
            if ty.is_float() || var_side.ty.is_float() {
                // Equal floats may differ in bits (0.0 and -0.0).
                return None;
            }
            // Only a value the variable can hold is learned; otherwise the branch may still be
            // feasible through a cast that changes values, and nothing is learned.
            ty.contains(value).then_some((var, value))
        }
        _ => None,
    }
}

/// Every sign in `signs` the state knows too (as a sign or a value).
fn signs_below(state: &ExplicitState, signs: &KnownValues) -> bool {
    signs.iter().all(|(v, s)| state.sign(*v) == Some(*s))
}

/// Whether `cond` holds, if the sign of a variable decides it (`r`, `!r`, `r == 0`, `r < 0`,
/// `0 < r`, … with `r` of known sign under casts that keep every value).
fn sign_test(cond: &Expr, state: &ExplicitState) -> Option<bool> {
    let sign = |e: &Expr| strip_value_preserving_casts(e).and_then(|v| state.signs.get(&v).copied());
    match &cond.kind {
        ExprKind::Unary(UnaryOp::LogNot, inner) => sign_test(inner, state).map(|holds| !holds),
        ExprKind::Binary(op, a, b) => {
            let (s, flipped) = match (a.as_const(), b.as_const()) {
                (None, Some(0)) => (sign(a)?, false),
                (Some(0), None) => (sign(b)?, true),
                _ => return None,
            };
            let op = match (op, flipped) {
                (BinaryOp::Lt, true) => BinaryOp::Gt,
                (BinaryOp::Gt, true) => BinaryOp::Lt,
                (BinaryOp::Le, true) => BinaryOp::Ge,
                (BinaryOp::Ge, true) => BinaryOp::Le,
                (op, _) => *op,
            };
            match op {
                BinaryOp::Eq => Some(s == 0),
                BinaryOp::Ne => Some(s != 0),
                BinaryOp::Lt => Some(s < 0),
                BinaryOp::Gt => Some(s > 0),
                BinaryOp::Le => Some(s <= 0),
                BinaryOp::Ge => Some(s >= 0),
                _ => None,
            }
        }
        _ => sign(cond).map(|s| s != 0),
    }
}

/// The variable under casts that keep every value of its type (widening to a type that
/// contains the source type), if the expression is one.
fn strip_value_preserving_casts(expr: &Expr) -> Option<VarId> {
    match &expr.kind {
        ExprKind::Var(v) => Some(*v),
        ExprKind::Cast(inner) => {
            let (from, to) = (inner.ty, expr.ty);
            let preserving = to.contains(from.min())
                && to.contains(from.max())
                && !to.is_bool()
                && !from.is_float()
                && !to.is_float();
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
    type CoverIndex = ExplicitCoverIndex;

    fn initial_state(&self, program: &Program) -> ExplicitState {
        let mut state = ExplicitState {
            heap: KnownHeap::empty(program.data_model.pointer_bits()),
            ..ExplicitState::default()
        };
        for (id, var) in program.globals() {
            match (&var.array, KnownArrays::tracked_extents(program, id)) {
                (None, _) => state.values.insert(id, var.ty.normalize(var.initial)),
                (Some(shape), Some(extents)) => {
                    let count = memory::element_count(&extents).unwrap_or(0);
                    state.arrays.fill(id, count, Some(0));
                    for &(at, value) in &shape.initial {
                        state.arrays.set(id, count, at, Some(var.ty.normalize(value)));
                    }
                }
                (Some(_), None) => {}
            }
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
        // The step certainly has undefined behaviour: the path ends here (no successor). Such
        // paths are excluded, as sv-benchmarks assumes; the interpreter ends runs there too.
        let undefined = || Ok(Transfer::Successors(Vec::new()));
        let edge_id = step.edge();
        let edge = program.edge(edge_id);
        let overflow = program.signed_overflow;
        let mut next = state.clone();
        match step {
            Step::Return { .. } => {
                if let Operation::Call { callee, result, .. } = &edge.op {
                    let value = program.function(*callee).return_var.and_then(|rv| state.get(rv));
                    if self.is_recursive(*callee) {
                        // The callee's locals are those of the activation below again (signs
                        // of either are not kept).
                        let local = |v: VarId| program.variable(v).scope == Scope::Local(*callee);
                        next.signs.split_off(local);
                        next.values.split_off(local);
                        next.arrays.split_off(local);
                        if let Some((values, arrays, below)) = state.saved.pop() {
                            next.values.extend_from(values);
                            next.arrays.extend_from(arrays);
                            next.saved = below;
                        }
                    }
                    if let Some(result) = result {
                        let ty = program.variable(*result).ty;
                        next.set(*result, value.map(|v| ty.normalize(v)));
                    }
                }
            }
            Step::Edge(_) => match &edge.op {
                Operation::Skip | Operation::Error { .. } | Operation::Abort { .. } => {}
                Operation::Undefined { .. } => return undefined(),
                Operation::Exit { code } => {
                    if state.eval(code, overflow).is_err() {
                        return undefined();
                    }
                }
                Operation::Declare { var, init } => {
                    let value = match init {
                        Some(e) => match state.eval(e, overflow) {
                            Ok(v) => v,
                            Err(_) => return undefined(),
                        },
                        None => None,
                    };
                    match &program.variable(*var).array {
                        None => next.set(*var, value),
                        Some(shape) => {
                            let sizes = shape.extent_vars().map(|x| state.get(x));
                            if sizes.flatten().any(|n| memory::extent_from_value(n).is_err()) {
                                return undefined();
                            }
                            match KnownArrays::tracked_extents(program, *var) {
                                Some(extents) => {
                                    let count = memory::element_count(&extents).unwrap_or(0);
                                    let value = value.map(|v| program.variable(*var).ty.normalize(v));
                                    next.arrays.fill(*var, count, value);
                                }
                                None => next.arrays.forget(*var),
                            }
                        }
                    }
                }
                Operation::Load { lhs, array, index } => {
                    if certainly_out_of_bounds(state, *array, index, program)? {
                        return undefined();
                    }
                    let value = match element_position(state, *array, index, program) {
                        Some((_, flat)) => state.arrays.get(*array, flat),
                        None => None,
                    };
                    next.set(*lhs, value.map(|v| program.variable(*lhs).ty.normalize(v)));
                }
                Operation::Store { array, index, rhs } => {
                    if certainly_out_of_bounds(state, *array, index, program)? {
                        return undefined();
                    }
                    let Ok(value) = state.eval(rhs, overflow) else {
                        return undefined();
                    };
                    let value = value.map(|v| program.variable(*array).ty.normalize(v));
                    match element_position(state, *array, index, program) {
                        Some((count, flat)) => next.arrays.set(*array, count, flat, value),
                        // Any element may have changed.
                        None => next.arrays.forget(*array),
                    }
                }
                Operation::Assign { lhs, rhs } => match state.eval(rhs, overflow) {
                    Ok(v) => {
                        next.set(*lhs, v.map(|v| program.variable(*lhs).ty.normalize(v)));
                        // A copy keeps a known sign (through casts that keep every value).
                        let copied = strip_value_preserving_casts(rhs).and_then(|x| state.signs.get(&x));
                        if let (None, Some(&sign), true) = (v, copied, program.variable(*lhs).ty.signed) {
                            next.set_sign(*lhs, sign);
                        }
                    }
                    Err(_) => return undefined(),
                },
                Operation::Nondet { lhs, .. } => {
                    if let Some(v) = lhs {
                        next.set(*v, None);
                    }
                }
                Operation::External { args, result, .. } => {
                    if args.iter().any(|a| state.eval(a, overflow).is_err()) {
                        return undefined();
                    }
                    if let Some(v) = result {
                        next.set(*v, None);
                    }
                }
                Operation::Library {
                    function,
                    args,
                    result,
                } => match library::transfer(&mut next, *function, args, *result, &self.objects(program)) {
                    pointers::Access::Done(()) => {}
                    pointers::Access::Undefined => return undefined(),
                    pointers::Access::GiveUp(why) => return Ok(Transfer::GiveUp(why)),
                },
                Operation::Alloc { lhs, kind, size } => {
                    let Ok(size) = state.eval(size, overflow) else {
                        return undefined();
                    };
                    let from = match kind {
                        AllocKind::Realloc { from } => match state.eval(from, overflow) {
                            Ok(v) => v,
                            Err(_) => return undefined(),
                        },
                        _ => None,
                    };
                    match next.heap.allocate(kind, size, from) {
                        pointers::Access::Done(a) => next.set(*lhs, a),
                        pointers::Access::Undefined => return undefined(),
                        pointers::Access::GiveUp(why) => return Ok(Transfer::GiveUp(why)),
                    }
                }
                Operation::Free { address } => match state.eval(address, overflow) {
                    Ok(Some(0)) => {}
                    Ok(a) => match next.heap.free(a) {
                        pointers::Access::Done(()) => {}
                        pointers::Access::Undefined => return undefined(),
                        pointers::Access::GiveUp(why) => return Ok(Transfer::GiveUp(why)),
                    },
                    Err(_) => return undefined(),
                },
                Operation::LoadPtr { lhs, address } => {
                    let ty = program.variable(*lhs).ty;
                    match pointers::load(state, address, ty, &self.objects(program)) {
                        pointers::Access::Done(v) => next.set(*lhs, v),
                        pointers::Access::Undefined => return undefined(),
                        pointers::Access::GiveUp(why) => return Ok(Transfer::GiveUp(why)),
                    }
                }
                Operation::StorePtr { address, rhs } => {
                    let Ok(value) = state.eval(rhs, overflow) else {
                        return undefined();
                    };
                    match pointers::store(state, &mut next, address, rhs.ty, value, &self.objects(program)) {
                        pointers::Access::Done(()) => {}
                        pointers::Access::Undefined => return undefined(),
                        pointers::Access::GiveUp(why) => return Ok(Transfer::GiveUp(why)),
                    }
                }
                Operation::Assume { cond, branch } => match state.eval(cond, overflow) {
                    Ok(Some(v)) => {
                        if (v != 0) != *branch {
                            return Ok(Transfer::Successors(Vec::new()));
                        }
                    }
                    Ok(None) => {
                        if sign_test(cond, state).is_some_and(|holds| holds != *branch) {
                            return Ok(Transfer::Successors(Vec::new()));
                        }
                        if let Some((var, value)) = learned_equality(cond, *branch, program) {
                            next.set(var, Some(value));
                        }
                    }
                    Err(_) => return undefined(),
                },
                Operation::Call { callee, args, .. } => {
                    let params = &program.function(*callee).params;
                    let mut values = Vec::with_capacity(args.len());
                    for arg in args {
                        match state.eval(arg, overflow) {
                            Ok(v) => values.push(v),
                            Err(_) => return undefined(),
                        }
                    }
                    if self.is_recursive(*callee) {
                        // A new activation: the callee's locals are saved and start unknown. A
                        // function calling itself needs only what is live at the return site
                        // (the result is written there).
                        let local = |v: VarId| program.variable(v).scope == Scope::Local(*callee);
                        next.signs.split_off(local);
                        let mut saved_values = next.values.split_off(local);
                        if program.location(edge.from).func == *callee {
                            let result = edge.op.written_var();
                            saved_values
                                .split_off(|v| Some(v) == result || !self.liveness.is_live(edge.to, v));
                        }
                        let saved_arrays = next.arrays.split_off(local);
                        next.saved = state.saved.push(saved_values, saved_arrays);
                    }
                    for (&p, v) in params.iter().zip(values) {
                        next.set(p, v.map(|v| program.variable(p).ty.normalize(v)));
                    }
                }
                Operation::Return { value } => {
                    let func = program.function(program.location(edge.from).func);
                    if let (Some(rv), Some(e)) = (func.return_var, value) {
                        match state.eval(e, overflow) {
                            Ok(v) => next.set(rv, v.map(|v| program.variable(rv).ty.normalize(v))),
                            Err(_) => return undefined(),
                        }
                    }
                }
            },
        }
        let target = match step {
            Step::Return { call } => {
                let callee = match &edge.op {
                    Operation::Call { callee, .. } => Some(*callee),
                    _ => None,
                };
                if let Some(callee) = callee.filter(|&c| !self.is_recursive(c)) {
                    self.forget_locals_of(&mut next, callee, program);
                }
                program.edge(call).to
            }
            Step::Edge(_) => match &edge.op {
                Operation::Call { callee, .. } => program.function(*callee).entry,
                _ => edge.to,
            },
        };
        self.forget_dead(&mut next, target, program);
        Ok(Transfer::Successors(vec![next]))
    }

    /// `a ⊑ b`: every value `b` knows, `a` knows too and equally.
    fn less_or_equal(&self, a: &ExplicitState, b: &ExplicitState) -> bool {
        b.values.len() <= a.values.len()
            && b.values.iter().all(|(v, x)| a.values.get(v) == Some(x))
            && signs_below(a, &b.signs)
            && a.arrays.less_or_equal(&b.arrays)
            && a.saved.same_as(&b.saved)
            && a.heap.less_or_equal(&b.heap)
    }

    /// The known values of globals and the current function's locals, when that is all the
    /// state knows: no array element, heap block or saved frame, and the known locals of
    /// callers are dead where their calls return.
    fn valuation(
        &self,
        state: &ExplicitState,
        control: &ControlState,
        program: &Program,
    ) -> Option<Valuation> {
        if !state.arrays.knows_nothing()
            || !state.saved.is_empty()
            || !state.heap.is_empty(program.data_model.pointer_bits())
        {
            return None;
        }
        let function = program.location(control.location).func;
        let calls = control.call_stack.calls();
        let mut values = Valuation::new();
        // Sorted by variable, as a valuation is.
        for (&v, &x) in state.values.keys().zip(state.values.values()) {
            match program.variable(v).scope {
                Scope::Global => values.push((v, x)),
                Scope::Local(f) if f == function => values.push((v, x)),
                Scope::Local(f) => {
                    let dead_after_return = calls.iter().any(|&c| {
                        let call = program.edge(c);
                        program.location(call.from).func == f && !self.liveness.is_live(call.to, v)
                    });
                    if !dead_after_return {
                        return None;
                    }
                }
            }
        }
        Some(values)
    }

    fn index_insert(&self, index: &mut ExplicitCoverIndex, state: &ExplicitState, node: NodeId) {
        let same_vars = |g: &Vec<VarId>| g.iter().eq(state.values.keys());
        let group = match index.groups.iter().position(|(g, _)| same_vars(g)) {
            Some(i) => &mut index.groups[i].1,
            None => {
                index
                    .groups
                    .push((state.values.keys().copied().collect(), FxHashMap::default()));
                &mut index.groups.last_mut().expect("just pushed").1
            }
        };
        group.entry(state.values.clone()).or_default().push((
            node,
            state.arrays.clone(),
            state.saved.clone(),
            state.heap.clone(),
            state.signs.clone(),
        ));
    }

    fn index_remove(&self, index: &mut ExplicitCoverIndex, state: &ExplicitState, node: NodeId) {
        let same_vars = |g: &Vec<VarId>| g.iter().eq(state.values.keys());
        if let Some((_, group)) = index.groups.iter_mut().find(|(g, _)| same_vars(g)) {
            if let Some(nodes) = group.get_mut(&state.values) {
                nodes.retain(|(n, ..)| *n != node);
            }
        }
    }

    fn covering(&self, index: &ExplicitCoverIndex, state: &ExplicitState) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut projected = Vec::new();
        for (vars, group) in &index.groups {
            projected.clear();
            for &v in vars {
                match state.get(v) {
                    Some(x) => projected.push((v, x)),
                    None => break,
                }
            }
            if projected.len() == vars.len() {
                if let Some(nodes) = group.get(projected.as_slice()) {
                    let covering = nodes.iter().filter(|(_, arrays, saved, heap, signs)| {
                        state.arrays.less_or_equal(arrays)
                            && state.saved.same_as(saved)
                            && state.heap.less_or_equal(heap)
                            && signs_below(state, signs)
                    });
                    out.extend(covering.map(|(n, ..)| *n));
                }
            }
        }
        out
    }
}

/// Runs the explicit-value analysis to a verdict; `guide` is a condition of earlier stages
/// whose covered paths are not explored again.
pub fn verify(program: &Program, options: &AnalysisOptions, guide: Option<&dyn Guide>) -> AnalysisOutcome {
    run(program, options, guide, |_| (), |_, _, ()| ()).0
}

/// [`verify`] where `prepare` may build part of the ARG before exploration (from a previous
/// version's proof; its CPU time is the analysis') and `finish` looks at the final ARG.
pub fn run<'p, P, T>(
    program: &'p Program,
    options: &AnalysisOptions,
    guide: Option<&'p dyn Guide>,
    prepare: impl FnOnce(&mut Engine<'p, ExplicitCpa>) -> P,
    finish: impl FnOnce(&Engine<'p, ExplicitCpa>, &AnalysisOutcome, P) -> T,
) -> (AnalysisOutcome, T) {
    let cpu_before = crate::cpa::monitor::process_cpu_time();
    let mut engine = Engine::new(
        program,
        ExplicitCpa::new(program),
        options.order,
        options.give_up.clone(),
        guide,
    );
    let prepared = prepare(&mut engine);
    let solver = SolverConfig::default().within_memory(options.memory_limit());
    let mut outcome = run_to_verdict(&mut engine, |engine, node| {
        let steps = engine.arg().path_to(node).into_iter().map(|(s, _)| s).collect();
        confirm_path(
            program,
            steps,
            &solver.until(engine.stop_deadline().map(last_query)),
        )
    });
    outcome.stats.cpu_time = crate::cpa::monitor::process_cpu_time().saturating_sub(cpu_before);
    if outcome.verdict == crate::verdict::Verdict::True && guide.is_none() {
        outcome.invariants = loop_invariants(engine.arg(), program);
        outcome.contracts = contracts(engine.arg(), program);
    }
    let finished = finish(&engine, &outcome, prepared);
    (outcome, finished)
}

/// True if the known values put `array[index...]` certainly outside its array; `Err` if an
/// index expression certainly has undefined behaviour (treated alike by the caller).
fn certainly_out_of_bounds(
    state: &ExplicitState,
    array: VarId,
    index: &[Expr],
    program: &Program,
) -> Result<bool, CpaError> {
    let Some(shape) = &program.variable(array).array else {
        return Err(CpaError(format!(
            "`{}` is not an array",
            program.variable(array).name
        )));
    };
    for (i, dim) in index.iter().zip(&shape.dims) {
        let extent = match dim {
            memory::Extent::Fixed(n) => Some(i128::from(*n)),
            memory::Extent::Var(x) => state.get(*x),
        };
        match state.eval(i, program.signed_overflow) {
            Err(_) => return Ok(true),
            Ok(Some(at)) if at < 0 || extent.is_some_and(|n| at >= n) => return Ok(true),
            Ok(_) => {}
        }
    }
    Ok(false)
}

/// The element count of a tracked `array` and the flat position `index` names, if the array is
/// tracked and every index is known and in bounds.
fn element_position(
    state: &ExplicitState,
    array: VarId,
    index: &[Expr],
    program: &Program,
) -> Option<(u64, u64)> {
    let extents = KnownArrays::tracked_extents(program, array)?;
    let at: Vec<Option<i128>> = index
        .iter()
        .map(|i| state.eval(i, program.signed_overflow).ok().flatten())
        .collect();
    let flat = arrays::tracked_position(&extents, &at).ok()??;
    Some((memory::element_count(&extents)?, flat))
}
