//! Bit-precise path formulas in SSA form over Z3 bit-vectors.
//!
//! Every program variable of type `t` is a bit-vector of `t.bits` bits (so `_Bool` is a 1-bit
//! vector whose two values are exactly 0 and 1; no side constraint is needed). The SSA map
//! gives each variable its current index; variable `v` at index `k` is the Z3 constant `v<id>@k`.
//! Index 0 is "the value at the start of the block", which is where an abstract state is
//! instantiated (see [`super::abstraction::AbstractState::to_formula`]).
//!
//! Expressions are encoded with exactly the C semantics of [`crate::cfa::semantics`]
//! (truncating division, arithmetic/logical shifts by signedness, `!= 0` conversion to
//! `_Bool`, wrap-around of conversions and unsigned arithmetic). Operations with undefined
//! behaviour (division by zero, `MIN / -1`, shifts out of range, and signed overflow of `+`,
//! `-`, `*`, unary `-`, `<<` unless the program's [`Program::signed_overflow`] is `wrap`) yield a
//! fresh unconstrained value in the expression, and the [`ExprEncoder`] records the condition
//! under which they happen. A [`PathFormula`] conjoins the negation of every such condition of
//! its steps: a path through undefined behaviour is infeasible, as sv-benchmarks assumes (its
//! tasks are free of it), and the interpreter that replays counterexamples ends runs there.
//! Predicates are encoded with wrap-around for signed overflow
//! ([`ExprEncoder::for_predicates`]).

use super::ieee;
use super::solver::{Satisfiability, SolverConfig};
use super::step::{step_effect, StepEffect, Typed};
use crate::cfa::expr::{BinaryOp, Expr, ExprKind, UnaryOp};
use crate::cfa::memory::{ArrayShape, Extent};
use crate::cfa::semantics::SignedOverflow;
use crate::cfa::types::IntType;
use crate::cfa::{EdgeId, FuncId, Program, Scope, VarId};
use crate::cpa::Step;
use std::fmt;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use thiserror::Error;
use z3::ast::{Array, Ast, Bool, Dynamic, Float, BV};
use z3::{Model, Sort};

/// A formula that cannot be built from the CFA (malformed program parts).
#[derive(Debug, Clone, Error)]
pub enum EncodeError {
    #[error("{at}: call of `{callee}` passes {args} arguments, but it has {params} parameters")]
    ArgumentCount {
        at: String,
        callee: String,
        args: usize,
        params: usize,
    },
    #[error("{at}: step {step} is a return, but edge {call} is not a call edge")]
    NotACall { at: String, step: String, call: EdgeId },
    #[error("edge {0} does not exist in the program")]
    NoSuchEdge(EdgeId),
    #[error("variable id {0} does not exist in the program")]
    NoSuchVariable(u32),
    #[error("function id {0} does not exist in the program")]
    NoSuchFunction(u32),
    #[error("location id {0} does not exist in the program")]
    NoSuchLocation(u32),
}

/// Variable → current SSA index. Variables never written have index 0. A persistent map:
/// cloning is O(1), so every ARG state can keep its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SsaMap {
    map: im::HashMap<VarId, u32>,
    /// The highest index given to a variable whose current index was set back below it (the
    /// return from a recursive call): new indices start above it.
    floor: im::HashMap<VarId, u32>,
}

thread_local! {
    /// The map with every variable at index 0, shared: an empty `im::HashMap` allocates its
    /// root, and every block start of the predicate analysis (most of them covered, never
    /// extended) holds one.
    static ALL_ZERO: SsaMap = SsaMap {
        map: im::HashMap::new(),
        floor: im::HashMap::new(),
    };
}

impl Default for SsaMap {
    fn default() -> SsaMap {
        ALL_ZERO.with(SsaMap::clone)
    }
}

impl SsaMap {
    /// The map with every variable at index 0.
    pub fn new() -> SsaMap {
        SsaMap::default()
    }

    /// The current index of `var`.
    pub fn get(&self, var: VarId) -> u32 {
        self.map.get(&var).copied().unwrap_or(0)
    }

    /// Gives `var` a new index (one above its current one) and returns it.
    pub fn bump(&mut self, var: VarId) -> u32 {
        let floor = self.floor.get(&var).copied().unwrap_or(0);
        let next = self.get(var).max(floor) + 1;
        self.map.insert(var, next);
        next
    }

    /// Sets `var` back to an earlier `index` (its value in a suspended activation), or to an
    /// index of its own; later writes still get new indices.
    pub fn restore(&mut self, var: VarId, index: u32) {
        let highest = self.get(var).max(self.floor.get(&var).copied().unwrap_or(0));
        self.floor.insert(var, highest);
        self.map.insert(var, index);
    }

    /// The variables with an index above 0.
    pub fn written(&self) -> impl Iterator<Item = (VarId, u32)> + '_ {
        self.map.iter().map(|(v, i)| (*v, *i))
    }

    /// The map where paths with the maps `parts` meet: a variable whose index differs between
    /// them gets a new index above all of theirs; returned with those variables and their
    /// index in each part.
    fn join(parts: &[&SsaMap]) -> (SsaMap, Vec<(VarId, u32, Vec<u32>)>) {
        let mut joined = parts.first().map(|m| (*m).clone()).unwrap_or_default();
        let mut vars: Vec<VarId> = parts.iter().flat_map(|m| m.map.keys().copied()).collect();
        vars.sort_unstable();
        vars.dedup();
        let mut phis = Vec::new();
        for var in vars {
            let indices: Vec<u32> = parts.iter().map(|m| m.get(var)).collect();
            let highest = parts
                .iter()
                .map(|m| m.get(var).max(m.floor.get(&var).copied().unwrap_or(0)))
                .max()
                .unwrap_or(0);
            joined.floor.insert(var, highest);
            if indices.iter().any(|&i| i != indices[0]) {
                phis.push((var, joined.bump(var), indices));
            }
        }
        (joined, phis)
    }
}

/// The value one `Nondet` step (or one uninitialised declaration) chose.
#[derive(Debug, Clone)]
pub struct NondetTerm {
    /// The step's edge.
    pub edge: EdgeId,
    pub ty: IntType,
    /// The bit-vector holding the value.
    pub term: BV,
}

/// A conjunction of the encoded steps of one path, with the SSA map after the last step.
#[derive(Debug, Clone)]
pub struct PathFormula {
    /// The formula (a conjunction; `true` for the empty path).
    pub formula: Bool,
    pub ssa: SsaMap,
    /// The values of the `Nondet` steps in path order (what the concrete interpreter reads).
    pub nondets: im::Vector<NondetTerm>,
    /// Values of declarations without initialiser (the interpreter uses 0 for them).
    pub uninitialized: im::Vector<BV>,
    /// For each array declared without initialiser: "all its elements are 0" (the
    /// interpreter's choice).
    pub uninitialized_arrays: im::Vector<Bool>,
    /// Number of steps encoded.
    pub length: usize,
    /// The calls entered and not yet returned from on this path, innermost last.
    frames: im::Vector<CallFrame>,
}

/// A call on a path: the callee and, if it was already active, the SSA indices of its locals
/// in the activation below (restored on return, so each activation has its own locals).
#[derive(Debug, Clone)]
struct CallFrame {
    callee: FuncId,
    saved: Option<Rc<[(VarId, u32)]>>,
}

impl fmt::Display for PathFormula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.formula)
    }
}

/// Unique suffix for fresh auxiliary constants (UB results, nondets without target, Skolems).
static FRESH: AtomicU64 = AtomicU64::new(0);

pub(crate) fn fresh_name(prefix: &str) -> String {
    format!("{prefix}!{}", FRESH.fetch_add(1, Ordering::Relaxed))
}

/// The Z3 constant of `var` (of width `ty.bits`) at SSA index `index`.
pub fn var_term(var: VarId, ty: IntType, index: u32) -> BV {
    BV::new_const(format!("v{}@{}", var.0, index), u32::from(ty.bits))
}

/// A bit-vector constant of `bits` bits holding `value` modulo 2^bits.
pub fn bv_const(value: i128, bits: u32) -> BV {
    if bits <= 64 {
        let mask: u128 = if bits == 64 {
            u64::MAX as u128
        } else {
            (1u128 << bits) - 1
        };
        BV::from_u64(((value as u128) & mask) as u64, bits)
    } else {
        // Wider vectors only appear as intermediate results: build from two halves.
        let low = BV::from_u64(value as u64, 64);
        let high = bv_const(value >> 64, bits - 64);
        high.concat(&low)
    }
}

/// Reads a bit-vector numeral as the normalised value of `ty` (of at most 127 bits: a `long
/// double`'s 80 are read in two halves).
pub fn bv_value(term: &BV, ty: IntType) -> Option<i128> {
    let bits = term.get_size();
    let raw = if bits <= 64 {
        i128::from(term.as_u64()?)
    } else {
        let high = term.extract(bits - 1, 64).simplify().as_u64()?;
        let low = term.extract(63, 0).simplify().as_u64()?;
        i128::from(high) << 64 | i128::from(low)
    };
    Some(ty.normalize(raw))
}

/// Resizes `v` (holding a value of a type with signedness `signed`) to `bits` bits: sign or
/// zero extension, or truncation.
fn resize(v: &BV, signed: bool, bits: u32) -> BV {
    let have = v.get_size();
    if have == bits {
        v.clone()
    } else if have > bits {
        v.extract(bits - 1, 0)
    } else if signed {
        v.sign_ext(bits - have)
    } else {
        v.zero_ext(bits - have)
    }
}

/// 1-bit vector: 1 if `b` holds, else 0, widened to `bits`.
fn bool_to_bv(b: &Bool, bits: u32) -> BV {
    b.ite(&bv_const(1, bits), &bv_const(0, bits))
}

/// Converts `v` (a value of type `from`, or an exact value of `v.get_size()` bits with the
/// signedness of `from`) to type `to`, as C does.
fn convert(v: &BV, from_signed: bool, to: IntType) -> BV {
    if to.is_bool() {
        let zero = bv_const(0, v.get_size());
        bool_to_bv(&v.eq(&zero).not(), 1)
    } else {
        resize(v, from_signed, u32::from(to.bits))
    }
}

/// A value of type `from` converted to `to` as C does ([`convert`] between integer types,
/// [`ieee`] conversions where a float type is involved); the condition under which the
/// conversion is undefined (a floating value an integer type cannot hold) goes to `undefined`.
fn convert_from(v: &BV, from: IntType, to: IntType, undefined: &mut Vec<Bool>) -> BV {
    match (from.is_float(), to.is_float()) {
        _ if from == to => v.clone(),
        (false, false) => convert(v, from.signed, to),
        (false, true) => ieee::to_bits(&ieee::from_integer(v, from.signed, to), to),
        (true, true) => ieee::to_bits(&ieee::to_float_type(&ieee::from_bits(v, from), from, to), to),
        (true, false) => {
            let (value, ub) = ieee::to_integer(&ieee::from_bits(v, from), from, to);
            undefined.push(ub);
            value
        }
    }
}

/// The Z3 array of array variable `var` (elements of type `ty`) at SSA index `index`: flat
/// (row-major, [`crate::cfa::memory`]) 64-bit positions to element bit-vectors.
pub fn array_term(var: VarId, ty: IntType, index: u32) -> Array {
    Array::new_const(
        format!("a{}@{}", var.0, index),
        &Sort::bitvector(64),
        &Sort::bitvector(u32::from(ty.bits)),
    )
}

/// The term of program variable `var` at SSA index `index`: an [`array_term`] for an array,
/// else a [`var_term`] (the arguments of Horn relations).
pub fn state_term(program: &Program, var: VarId, index: u32) -> Result<Dynamic, EncodeError> {
    let v = program
        .variables
        .get(var.index())
        .ok_or(EncodeError::NoSuchVariable(var.0))?;
    Ok(match v.array {
        Some(_) => Dynamic::from_ast(&array_term(var, v.ty, index)),
        None => Dynamic::from_ast(&var_term(var, v.ty, index)),
    })
}

/// The sort of [`state_term`] for a variable declared with type `ty`, `array` if it is one.
pub fn state_sort(ty: IntType, array: bool) -> Sort {
    let element = Sort::bitvector(u32::from(ty.bits));
    if array {
        Sort::array(&Sort::bitvector(64), &element)
    } else {
        element
    }
}

/// The static contents of a global array: its initial elements, every other one 0.
fn initial_array(shape: &ArrayShape, ty: IntType) -> Array {
    let bits = u32::from(ty.bits);
    let zero = Array::const_array(&Sort::bitvector(64), &bv_const(0, bits));
    shape.initial.iter().fold(zero, |a, &(at, value)| {
        a.store(
            &bv_const(i128::from(at), 64),
            &bv_const(ty.normalize(value), bits),
        )
    })
}

/// True if `exact` (a signed value of its width) is outside the range of the signed type of
/// `bits` bits.
fn outside_signed(exact: &BV, bits: u32) -> Bool {
    let w = exact.get_size();
    if w <= bits {
        return Bool::from_bool(false);
    }
    exact.extract(bits - 1, 0).sign_ext(w - bits).eq(exact).not()
}

/// The condition under which `x op y` (`+`, `-` or `*` of operands of their types, `wrapped`
/// its value in `ty`) overflows the signed type `ty`: for `+` and `-` in `ty` itself, the sign
/// rule (operands of equal sign for `+`, of different signs for `-`, and a result of the
/// other sign); otherwise the exact value, computed in a vector wide enough for it, is outside
/// the type's range. (Z3 4.8's own overflow predicates are not used: with them the test below
/// found `248 * -2` reported as overflowing `int`.)
fn signed_overflow(
    op: BinaryOp,
    (x, xt): (&BV, IntType),
    (y, yt): (&BV, IntType),
    ty: IntType,
    wrapped: &BV,
) -> Bool {
    if xt == ty && yt == ty && op != BinaryOp::Mul {
        let top = u32::from(ty.bits) - 1;
        let sign = |v: &BV| v.extract(top, top);
        let (sx, sy, sr) = (sign(x), sign(y), sign(wrapped));
        let operands = if op == BinaryOp::Add {
            sx.eq(&sy)
        } else {
            sx.eq(&sy).not()
        };
        return Bool::and(&[operands, sr.eq(&sx).not()]);
    }
    // Bits of each operand as a signed value: one more for unsigned ones.
    let width = |t: IntType| u32::from(t.bits) + u32::from(!t.signed);
    let we = if op == BinaryOp::Mul {
        width(xt) + width(yt)
    } else {
        width(xt).max(width(yt)) + 1
    };
    let we = we.max(u32::from(ty.bits));
    let (xs, ys) = (resize(x, xt.signed, we), resize(y, yt.signed, we));
    let exact = match op {
        BinaryOp::Add => xs.bvadd(&ys),
        BinaryOp::Sub => xs.bvsub(&ys),
        _ => xs.bvmul(&ys),
    };
    outside_signed(&exact, u32::from(ty.bits))
}

/// Encodes expressions at one SSA map, collecting undefined-behaviour conditions.
pub struct ExprEncoder<'a> {
    program: &'a Program,
    ssa: &'a SsaMap,
    /// What signed overflow means in the encoded expressions.
    overflow: SignedOverflow,
    /// Operations with undefined behaviour yield a fixed value (a function of their operands)
    /// rather than a fresh one: see [`ExprEncoder::for_invariants`].
    fixed_undefined: bool,
    /// Conditions under which an encoded operation is undefined.
    pub undefined: Vec<Bool>,
}

impl<'a> ExprEncoder<'a> {
    /// An encoder reading variables at the indices of `ssa`, with the program's semantics:
    /// for the steps of paths.
    pub fn new(program: &'a Program, ssa: &'a SsaMap) -> Self {
        ExprEncoder {
            program,
            ssa,
            overflow: program.signed_overflow,
            fixed_undefined: false,
            undefined: Vec::new(),
        }
    }

    /// An encoder for predicates: signed overflow wraps around. A predicate is a Boolean
    /// function of the state, and any fixed function keeps the abstraction sound; with a fresh
    /// value where an expression overflows, a predicate would be both true and false in
    /// states that matter (e.g. `x * 64 + y == c` before the step that computes it, on a path
    /// that excludes the overflow), and refinement could not exclude such paths.
    pub fn for_predicates(program: &'a Program, ssa: &'a SsaMap) -> Self {
        ExprEncoder {
            overflow: SignedOverflow::Wrap,
            ..ExprEncoder::new(program, ssa)
        }
    }

    /// An encoder for the invariants of witnesses: signed overflow wraps around, and every
    /// other operation with undefined behaviour (division or remainder by zero, `MIN / -1`,
    /// shifts out of range) has Z3's total bit-vector value, a fixed function of its operands
    /// (`x % 0 == x`, `x / 0 == -1`), and a float operation the encoding does not model is 0.
    /// Any fixed Boolean function of the state is a candidate of an inductive proof, and with
    /// fixed values an invariant assumed before a step and required after it is the same
    /// function: with a fresh value per encoding (as for [`Self::for_predicates`]), a state
    /// where `d == 0` would have to satisfy `m == n % d` for every value of `n % d`, and an
    /// invariant the analysis proved (which holds there for some value) could not be confirmed.
    pub fn for_invariants(program: &'a Program, ssa: &'a SsaMap) -> Self {
        ExprEncoder {
            fixed_undefined: true,
            ..ExprEncoder::for_predicates(program, ssa)
        }
    }

    /// The declared type of a variable; ids beyond the program's variables are auxiliary
    /// (Skolem) variables whose type is the one the reference gives.
    fn var_type(&self, var: VarId, node_ty: IntType) -> IntType {
        self.program
            .variables
            .get(var.index())
            .map(|v| v.ty)
            .unwrap_or(node_ty)
    }

    /// The value of `expr` as a bit-vector of `expr.ty.bits` bits.
    pub fn value(&mut self, expr: &Expr) -> BV {
        let ty = expr.ty;
        let bits = u32::from(ty.bits);
        if expr.is_float_operation() {
            return self.float_operation(expr);
        }
        match &expr.kind {
            ExprKind::Const(v) => bv_const(ty.normalize(*v), bits),
            ExprKind::Address { address, .. } | ExprKind::Function { address, .. } => {
                bv_const(ty.normalize(i128::from(*address)), bits)
            }
            ExprKind::Var(v) => {
                let declared = self.var_type(*v, ty);
                let term = var_term(*v, declared, self.ssa.get(*v));
                convert_from(&term, declared, ty, &mut self.undefined)
            }
            ExprKind::Cast(e) => {
                let inner = self.value(e);
                convert_from(&inner, e.ty, ty, &mut self.undefined)
            }
            // Same size: the bits are the value.
            ExprKind::Bitcast(e) => self.value(e),
            ExprKind::Unary(UnaryOp::LogNot, e) => {
                let c = self.condition(e);
                bool_to_bv(&c.not(), bits)
            }
            ExprKind::Unary(op, e) => {
                let x = self.value(e);
                // -x and ~x are exact in one bit more than the operand; wrap-around is the
                // final conversion to the result type.
                let w = if ty.is_bool() {
                    u32::from(e.ty.bits) + 1
                } else {
                    u32::from(ty.bits.max(e.ty.bits))
                };
                let xs = resize(&x, e.ty.signed, w);
                let r = match op {
                    UnaryOp::Neg => xs.bvneg(),
                    _ => xs.bvnot(),
                };
                let r = convert(&r, true, ty);
                if *op == UnaryOp::Neg && self.overflow_undefined(ty) {
                    let exact = resize(&x, e.ty.signed, u32::from(e.ty.bits) + 2).bvneg();
                    self.overflow_undefined_if(outside_signed(&exact, bits), r)
                } else {
                    r
                }
            }
            ExprKind::Binary(op, a, b) if op.is_comparison() => {
                let c = self.comparison(*op, a, b);
                bool_to_bv(&c, bits)
            }
            ExprKind::Binary(op, a, b) => self.arithmetic(*op, a, b, ty),
        }
    }

    /// `expr != 0` as a Boolean formula (comparisons and `!` directly, without going through
    /// an `int` 0/1).
    pub fn condition(&mut self, expr: &Expr) -> Bool {
        match &expr.kind {
            ExprKind::Binary(op, a, b) if op.is_comparison() => self.comparison(*op, a, b),
            // `!x` of a float is "x compares equal to 0" (also -0.0).
            ExprKind::Unary(UnaryOp::LogNot, e) if e.ty.is_float() => self.float_term(e).is_zero(),
            ExprKind::Unary(UnaryOp::LogNot, e) => self.condition(e).not(),
            ExprKind::Cast(e)
                if !expr.ty.is_bool()
                    && !expr.ty.is_float()
                    && !e.ty.is_float()
                    && expr.ty.bits >= e.ty.bits =>
            {
                // Widening keeps zero-ness.
                self.condition(e)
            }
            ExprKind::Const(v) => Bool::from_bool(*v != 0),
            _ => {
                let v = self.value(expr);
                v.eq(bv_const(0, v.get_size())).not()
            }
        }
    }

    fn comparison(&mut self, op: BinaryOp, a: &Expr, b: &Expr) -> Bool {
        if a.ty.is_float() || b.ty.is_float() {
            if a.ty != b.ty {
                // The frontend compares floats of one type; anything else is not modelled.
                if self.fixed_undefined {
                    return Bool::from_bool(false);
                }
                return Bool::new_const(fresh_name("float"));
            }
            let x = self.float_term(a);
            let y = self.float_term(b);
            return ieee::compare(op, &x, &y).unwrap_or_else(|| Bool::from_bool(false));
        }
        let x = self.value(a);
        let y = self.value(b);
        let (x, y, signed) = if a.ty == b.ty {
            (x, y, a.ty.signed)
        } else {
            // Compare the exact values: both extended by their own signedness into one bit
            // more than the wider operand, compared as signed.
            let w = u32::from(a.ty.bits.max(b.ty.bits)) + 1;
            (resize(&x, a.ty.signed, w), resize(&y, b.ty.signed, w), true)
        };
        match (op, signed) {
            (BinaryOp::Eq, _) => x.eq(&y),
            (BinaryOp::Ne, _) => x.eq(&y).not(),
            (BinaryOp::Lt, true) => x.bvslt(&y),
            (BinaryOp::Lt, false) => x.bvult(&y),
            (BinaryOp::Le, true) => x.bvsle(&y),
            (BinaryOp::Le, false) => x.bvule(&y),
            (BinaryOp::Gt, true) => x.bvsgt(&y),
            (BinaryOp::Gt, false) => x.bvugt(&y),
            (BinaryOp::Ge, true) => x.bvsge(&y),
            (BinaryOp::Ge, false) => x.bvuge(&y),
            _ => Bool::from_bool(false),
        }
    }

    /// True if signed overflow is undefined behaviour for an operation with result `ty`.
    fn overflow_undefined(&self, ty: IntType) -> bool {
        ty.signed && self.overflow == SignedOverflow::Undefined
    }

    /// Records that the operation overflows (undefined) if `ub` holds and returns its
    /// wrapped-around value `wrapped`: a path excludes the overflow, so the value there does not
    /// matter, and no fresh constant is needed (refinement's unsat cores that leave an
    /// exclusion out then see wrap-around, which only changes which predicates they find).
    fn overflow_undefined_if(&mut self, ub: Bool, wrapped: BV) -> BV {
        if ub.as_bool() != Some(false) {
            self.undefined.push(ub);
        }
        wrapped
    }

    /// Records that `ub` makes the operation undefined and returns `ite(ub, fresh, defined)`.
    fn guard_undefined(&mut self, ub: Bool, defined: BV) -> BV {
        if ub.as_bool() == Some(false) {
            return defined;
        }
        if self.fixed_undefined {
            self.undefined.push(ub);
            return defined;
        }
        let fresh = BV::new_const(fresh_name("ub"), defined.get_size());
        self.undefined.push(ub.clone());
        ub.ite(&fresh, &defined)
    }

    /// The bits of an operation with a float operand or result ([`Expr::is_float_operation`]).
    fn float_operation(&mut self, expr: &Expr) -> BV {
        let ty = expr.ty;
        let bits = u32::from(ty.bits);
        match &expr.kind {
            // Negation flips the sign bit, also of NaN: exact on the bits.
            ExprKind::Unary(UnaryOp::Neg, e) if ty.is_float() && e.ty == ty => {
                let x = self.value(e);
                ieee::negate_bits(&x, ty)
            }
            ExprKind::Binary(op, a, b) if op.is_comparison() => {
                let c = self.comparison(*op, a, b);
                bool_to_bv(&c, bits)
            }
            ExprKind::Unary(UnaryOp::LogNot, e) if e.ty.is_float() => {
                let c = self.float_term(e).is_zero();
                bool_to_bv(&c, bits)
            }
            ExprKind::Cast(e) if !ty.is_float() && e.ty.is_float() => {
                let x = self.float_term(e);
                let (value, ub) = ieee::to_integer(&x, e.ty, ty);
                self.undefined.push(ub);
                value
            }
            _ if ty.is_float() => {
                let x = self.float_term(expr);
                ieee::to_bits(&x, ty)
            }
            // An integer result of another operation on float operands (`%`, shifts, bitwise
            // operators): undefined, as in the interpreter.
            _ => self.undefined_value(bits),
        }
    }

    /// `v`, a value of type `from`, converted to `to` as C does (see `convert_from`).
    pub fn convert(&mut self, v: &BV, from: IntType, to: IntType) -> BV {
        convert_from(v, from, to, &mut self.undefined)
    }

    /// A fresh value where evaluation is certainly undefined (the path is infeasible).
    fn undefined_value(&mut self, bits: u32) -> BV {
        self.undefined.push(Bool::from_bool(true));
        if self.fixed_undefined {
            return bv_const(0, bits);
        }
        BV::new_const(fresh_name("ub"), bits)
    }

    /// The IEEE value of `expr`, an expression of float type: operations directly in Z3's
    /// floating-point theory, everything else from its bits.
    fn float_term(&mut self, expr: &Expr) -> Float {
        let ty = expr.ty;
        match &expr.kind {
            ExprKind::Binary(op, a, b) if a.ty == ty && b.ty == ty => {
                let x = self.float_term(a);
                let y = self.float_term(b);
                ieee::arithmetic(*op, &x, &y).unwrap_or_else(|| {
                    let any = self.undefined_value(u32::from(ty.bits));
                    ieee::from_bits(&any, ty)
                })
            }
            ExprKind::Unary(UnaryOp::Neg, e) if e.ty == ty => self.float_term(e).unary_neg(),
            ExprKind::Cast(e) if e.ty.is_float() => {
                let x = self.float_term(e);
                ieee::to_float_type(&x, e.ty, ty)
            }
            ExprKind::Cast(e) => {
                let v = self.value(e);
                ieee::from_integer(&v, e.ty.signed, ty)
            }
            ExprKind::Const(_) | ExprKind::Var(_) | ExprKind::Bitcast(_) => {
                let bits = self.value(expr);
                ieee::from_bits(&bits, ty)
            }
            // Operators C does not define on floats (`~`), or operand types the frontend does
            // not produce: undefined, as the interpreter has it.
            _ => {
                let any = self.undefined_value(u32::from(ty.bits));
                ieee::from_bits(&any, ty)
            }
        }
    }

    /// The row-major position of the element `index` of `array` as a 64-bit vector, each index
    /// checked against its dimension's extent (an access out of bounds is undefined).
    pub fn element_index(&mut self, array: VarId, index: &[Expr]) -> Result<BV, EncodeError> {
        let program = self.program;
        let shape = program
            .variables
            .get(array.index())
            .and_then(|v| v.array.as_ref())
            .ok_or(EncodeError::NoSuchVariable(array.0))?;
        if shape.dims.len() != index.len() {
            return Ok(self.undefined_value(64));
        }
        let mut flat = bv_const(0, 64);
        for (dim, e) in shape.dims.iter().zip(index) {
            let extent = match dim {
                Extent::Fixed(n) => bv_const(i128::from(*n), 64),
                Extent::Var(x) => {
                    let t = self.var_type(*x, IntType::LLONG);
                    resize(&var_term(*x, t, self.ssa.get(*x)), t.signed, 64)
                }
            };
            let i = self.value(e);
            // Compared as exact values: 66 bits hold every index and extent.
            let (iw, ew) = (resize(&i, e.ty.signed, 66), extent.zero_ext(2));
            let inside = Bool::and(&[iw.bvsge(bv_const(0, 66)), iw.bvslt(&ew)]);
            self.undefined.push(inside.not());
            flat = flat.bvmul(&extent).bvadd(resize(&i, e.ty.signed, 64));
        }
        Ok(flat)
    }

    fn arithmetic(&mut self, op: BinaryOp, a: &Expr, b: &Expr, ty: IntType) -> BV {
        let x = self.value(a);
        let y = self.value(b);
        match op {
            BinaryOp::Div | BinaryOp::Rem => {
                let zero = bv_const(0, y.get_size());
                let mut ub = y.eq(&zero);
                if a.ty.signed {
                    let bits = u32::from(a.ty.bits);
                    let min = bv_const(a.ty.min(), bits);
                    let minus_one_b = if b.ty.signed {
                        y.eq(bv_const(-1, y.get_size()))
                    } else {
                        Bool::from_bool(false)
                    };
                    ub = Bool::or(&[ub, Bool::and(&[x.eq(&min), minus_one_b])]);
                }
                let (q, signed) = if a.ty == b.ty {
                    // Native operations are exact here: the quotient of two n-bit values fits
                    // in n bits except MIN / -1, which is undefined anyway.
                    let q = match (op, a.ty.signed) {
                        (BinaryOp::Div, true) => x.bvsdiv(&y),
                        (BinaryOp::Div, false) => x.bvudiv(&y),
                        (_, true) => x.bvsrem(&y),
                        (_, false) => x.bvurem(&y),
                    };
                    (q, a.ty.signed)
                } else {
                    // Exact signed division in a vector wide enough for both operands.
                    let w = u32::from(a.ty.bits.max(b.ty.bits)) + 2;
                    let xs = resize(&x, a.ty.signed, w);
                    let ys = resize(&y, b.ty.signed, w);
                    let q = if op == BinaryOp::Div {
                        xs.bvsdiv(&ys)
                    } else {
                        xs.bvsrem(&ys)
                    };
                    (q, true)
                };
                let r = convert(&q, signed, ty);
                self.guard_undefined(ub, r)
            }
            BinaryOp::Shl | BinaryOp::Shr => {
                // The amount must be in [0, bits of the result type).
                let rbits = u32::from(ty.bits);
                let yw = y.get_size();
                let in_range = if yw > 16 || (1u64 << yw) > u64::from(rbits) {
                    let limit = bv_const(i128::from(rbits), yw);
                    if b.ty.signed {
                        Bool::and(&[y.bvsge(bv_const(0, yw)), y.bvslt(&limit)])
                    } else {
                        y.bvult(&limit)
                    }
                } else if b.ty.signed {
                    y.bvsge(bv_const(0, yw))
                } else {
                    Bool::from_bool(true)
                };
                let w = if ty.is_bool() {
                    u32::from(a.ty.bits) * 2 + 2
                } else {
                    rbits.max(u32::from(a.ty.bits))
                };
                let xs = resize(&x, a.ty.signed, w);
                // In range the amount is below w, so any resize keeps its value.
                let amount = resize(&y, false, w);
                let r = if op == BinaryOp::Shl {
                    xs.bvshl(&amount)
                } else if a.ty.signed {
                    xs.bvashr(&amount)
                } else {
                    xs.bvlshr(&amount)
                };
                let r = convert(&r, a.ty.signed, ty);
                let mut ub = in_range.not();
                if op == BinaryOp::Shl && self.overflow_undefined(ty) {
                    // A negative left operand, or an exact result the type cannot hold.
                    let we = u32::from(a.ty.bits) + rbits + 1;
                    let exact = resize(&x, a.ty.signed, we).bvshl(resize(&y, false, we));
                    let mut overflow = vec![outside_signed(&exact, rbits)];
                    if a.ty.signed {
                        overflow.push(x.bvslt(bv_const(0, x.get_size())));
                    }
                    ub = Bool::or(&[ub, Bool::or(&overflow)]);
                }
                self.guard_undefined(ub, r)
            }
            _ => {
                // Ring and bitwise operations commute with reduction modulo 2^n: compute in a
                // width at least that of the result and truncate. A `_Bool` result needs the
                // exact value (for `!= 0`): twice the operand width plus two bits suffice.
                let w = if ty.is_bool() {
                    u32::from(a.ty.bits.max(b.ty.bits)) * 2 + 2
                } else {
                    u32::from(ty.bits.max(a.ty.bits).max(b.ty.bits))
                };
                let xs = resize(&x, a.ty.signed, w);
                let ys = resize(&y, b.ty.signed, w);
                let r = match op {
                    BinaryOp::Add => xs.bvadd(&ys),
                    BinaryOp::Sub => xs.bvsub(&ys),
                    BinaryOp::Mul => xs.bvmul(&ys),
                    BinaryOp::BitAnd => xs.bvand(&ys),
                    BinaryOp::BitOr => xs.bvor(&ys),
                    _ => xs.bvxor(&ys),
                };
                let r = convert(&r, true, ty);
                if matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul) && self.overflow_undefined(ty)
                {
                    let ub = signed_overflow(op, (&x, a.ty), (&y, b.ty), ty, &r);
                    self.overflow_undefined_if(ub, r)
                } else {
                    r
                }
            }
        }
    }
}

impl PathFormula {
    /// The empty path: formula `true`, every variable at index 0.
    pub fn empty() -> PathFormula {
        PathFormula::starting_with(Bool::from_bool(true))
    }

    /// An empty path whose start is constrained by `start` (an abstract state instantiated at
    /// index 0): the beginning of a new block.
    pub fn starting_with(start: Bool) -> PathFormula {
        PathFormula {
            formula: start,
            ssa: SsaMap::new(),
            nondets: im::Vector::new(),
            uninitialized: im::Vector::new(),
            uninitialized_arrays: im::Vector::new(),
            length: 0,
            frames: im::Vector::new(),
        }
    }

    /// The start of the program: every global at index 0 equals its static initial value.
    pub fn program_start(program: &Program) -> PathFormula {
        let parts: Vec<Bool> = program
            .globals()
            .map(|(id, v)| match &v.array {
                Some(shape) => array_term(id, v.ty, 0).eq(initial_array(shape, v.ty)),
                None => var_term(id, v.ty, 0).eq(bv_const(v.ty.normalize(v.initial), u32::from(v.ty.bits))),
            })
            .collect();
        PathFormula::starting_with(Bool::and(&parts))
    }

    /// The paths `parts` (each with the condition of arriving along it) joined where they meet
    /// (large-block encoding): every variable whose index differs between them gets a new
    /// index, equal to each part's term where that part's condition holds. The joined path's
    /// formula is these equations; it keeps the first part's calls and no nondet values (it is
    /// no single path).
    pub fn join(program: &Program, parts: &[(Bool, PathFormula)]) -> Result<PathFormula, EncodeError> {
        let maps: Vec<&SsaMap> = parts.iter().map(|(_, p)| &p.ssa).collect();
        let (ssa, phis) = SsaMap::join(&maps);
        let mut equations = Vec::new();
        for (var, index, indices) in phis {
            let joined = state_term(program, var, index)?;
            for ((arrived, _), old) in parts.iter().zip(indices) {
                let value = state_term(program, var, old)?;
                equations.push(arrived.implies(joined.eq(&value)));
            }
        }
        let mut joined = PathFormula::starting_with(Bool::and(&equations));
        joined.ssa = ssa;
        if let Some((_, first)) = parts.first() {
            joined.frames = first.frames.clone();
            joined.length = parts.iter().map(|(_, p)| p.length).max().unwrap_or(0);
        }
        Ok(joined)
    }

    /// Adds a conjunct.
    pub fn conjoin(&self, extra: &Bool) -> PathFormula {
        let mut next = self.clone();
        next.formula = Bool::and(&[self.formula.clone(), extra.clone()]);
        next
    }

    /// The current term of a program variable.
    pub fn current(&self, var: VarId, program: &Program) -> Result<BV, EncodeError> {
        let v = program
            .variables
            .get(var.index())
            .ok_or(EncodeError::NoSuchVariable(var.0))?;
        Ok(var_term(var, v.ty, self.ssa.get(var)))
    }

    /// The path extended by one step (the strongest postcondition of the step in SSA form),
    /// executions with undefined behaviour excluded. The SSA map and the lists are persistent,
    /// so extending costs O(log n) besides encoding the step, and a block formula is built edge
    /// by edge.
    pub fn extend(&self, step: Step, program: &Program) -> Result<PathFormula, EncodeError> {
        let (next, undefined) = self.extend_split(step, program)?;
        Ok(match undefined {
            Some(ub) => next.conjoin(&ub.not()),
            None => next,
        })
    }

    /// Like [`PathFormula::extend`], but without excluding the step's undefined behaviour: the
    /// extended path and the condition under which the step has undefined behaviour (`None`
    /// when it cannot), for refinement to see which exclusions make a path infeasible.
    pub fn extend_split(
        &self,
        step: Step,
        program: &Program,
    ) -> Result<(PathFormula, Option<Bool>), EncodeError> {
        let effect = step_effect(step, program)?;
        let mut next = self.clone();
        next.length += 1;
        let mut conjuncts: Vec<Bool> = Vec::new();
        // Every expression is read at the map before the step.
        let mut enc = ExprEncoder::new(program, &self.ssa);
        match effect {
            StepEffect::Nothing => {}
            StepEffect::ReturnFromCall { result, .. } => {
                let value = result.map(|(res, rv)| {
                    let v = var_term(rv.var, rv.ty, self.ssa.get(rv.var));
                    (res, enc.convert(&v, rv.ty, res.ty))
                });
                // (A path that starts inside the callee has no frame for this call.)
                if let Some(frame) = next.frames.pop_back() {
                    for &(var, index) in frame.saved.iter().flat_map(|s| s.iter()) {
                        next.ssa.restore(var, index);
                    }
                }
                if let Some((res, value)) = value {
                    conjuncts.push(next.assign(res, value));
                }
            }
            StepEffect::Assign { target, value } => {
                let v = enc.value(value);
                let v = enc.convert(&v, value.ty, target.ty);
                conjuncts.push(next.assign(target, v));
            }
            // A fresh SSA index is an unconstrained value.
            StepEffect::Havoc { targets } => {
                for t in targets {
                    next.ssa.bump(t.var);
                }
            }
            StepEffect::Library {
                function,
                args,
                result,
                may_write,
            } => match super::library::encode(program, &mut enc, &self.ssa, function, args) {
                Some(encoded) => {
                    conjuncts.extend(encoded.conjuncts);
                    let writes = super::library::write_equations(&encoded.writes, &self.ssa, program, |v| {
                        next.ssa.bump(v)
                    });
                    conjuncts.extend(writes);
                    match (result, encoded.result) {
                        (Some(r), Some(v)) => conjuncts.push(next.assign(r, v)),
                        (Some(r), None) => {
                            next.ssa.bump(r.var);
                        }
                        _ => {}
                    }
                }
                None => {
                    for t in result.into_iter().chain(may_write) {
                        next.ssa.bump(t.var);
                    }
                }
            },
            StepEffect::LoadThrough {
                target,
                address,
                objects,
            } => {
                let at = enc.value(address);
                let mut value = BV::new_const(fresh_name("heap"), u32::from(target.ty.bits));
                for o in objects.iter().filter(|o| o.ty.bits == target.ty.bits) {
                    let Some((hit, index)) = object_hit(program, *o, &at) else {
                        continue;
                    };
                    let current = match index {
                        None => var_term(o.var, o.ty, self.ssa.get(o.var)),
                        Some(i) => array_term(o.var, o.ty, self.ssa.get(o.var))
                            .select(&i)
                            .as_bv()
                            .ok_or(EncodeError::NoSuchVariable(o.var.0))?,
                    };
                    value = hit.ite(&current, &value);
                }
                conjuncts.push(next.assign(target, value));
            }
            StepEffect::StoreThrough {
                address,
                value,
                objects,
            } => {
                let at = enc.value(address);
                let v = enc.value(value);
                let width = u64::from(value.ty.size_bytes());
                for o in &objects {
                    let Some(overlap) = object_overlap(program, *o, &at, width) else {
                        continue;
                    };
                    // A store of one whole scalar or element of the object's type replaces
                    // it; any other store into its bytes (a byte of an `int`, two members of
                    // a struct at once) leaves it with an arbitrary value.
                    let hit = object_hit(program, *o, &at).filter(|_| o.ty.bits == value.ty.bits);
                    if program.variable(o.var).read_only {
                        // A write into a string literal.
                        enc.undefined.push(overlap);
                        continue;
                    }
                    if program.variable(o.var).array.is_none() {
                        let old = var_term(o.var, o.ty, self.ssa.get(o.var));
                        let partial = BV::new_const(fresh_name("partial"), u32::from(o.ty.bits));
                        let mut new = overlap.ite(&partial, &old);
                        if let Some((hit, _)) = hit {
                            new = hit.ite(&v, &new);
                        }
                        conjuncts.push(next.assign(*o, new));
                        continue;
                    }
                    let old = array_term(o.var, o.ty, self.ssa.get(o.var));
                    let new = array_term(o.var, o.ty, next.ssa.bump(o.var));
                    if let Some((hit, Some(i))) = hit {
                        conjuncts.push(hit.implies(new.eq(old.store(&i, &v))));
                    }
                    conjuncts.push(overlap.not().implies(new.eq(&old)));
                }
            }
            StepEffect::Uninitialized { target } => {
                let idx = next.ssa.bump(target.var);
                next.uninitialized.push_back(var_term(target.var, target.ty, idx));
            }
            // Arrays are Z3 arrays from flat positions to elements (see `array_term`).
            StepEffect::CreateArray { array, fill } => {
                // A variable extent must be positive.
                let shape = program.variable(array.var).array.iter();
                for x in shape.flat_map(|s| s.extent_vars()) {
                    let t = enc.var_type(x, IntType::LLONG);
                    let n = var_term(x, t, self.ssa.get(x));
                    let zero = bv_const(0, n.get_size());
                    enc.undefined
                        .push(if t.signed { n.bvsle(&zero) } else { n.eq(&zero) });
                }
                let fill = fill.map(|e| {
                    let v = enc.value(e);
                    enc.convert(&v, e.ty, array.ty)
                });
                let idx = next.ssa.bump(array.var);
                let created = array_term(array.var, array.ty, idx);
                let filled_with = |v: &BV| created.eq(Array::const_array(&Sort::bitvector(64), v));
                match fill {
                    Some(v) => conjuncts.push(filled_with(&v)),
                    None => {
                        let zero = filled_with(&bv_const(0, u32::from(array.ty.bits)));
                        next.uninitialized_arrays.push_back(zero);
                    }
                }
            }
            StepEffect::Load { target, array, index } => {
                let at = enc.element_index(array.var, index)?;
                let element = array_term(array.var, array.ty, self.ssa.get(array.var))
                    .select(&at)
                    .as_bv()
                    .ok_or(EncodeError::NoSuchVariable(array.var.0))?;
                let v = enc.convert(&element, array.ty, target.ty);
                conjuncts.push(next.assign(target, v));
            }
            StepEffect::Store { array, index, value } => {
                let at = enc.element_index(array.var, index)?;
                let v = enc.value(value);
                let v = enc.convert(&v, value.ty, array.ty);
                let before = array_term(array.var, array.ty, self.ssa.get(array.var));
                let idx = next.ssa.bump(array.var);
                conjuncts.push(array_term(array.var, array.ty, idx).eq(before.store(&at, &v)));
            }
            StepEffect::Nondet { target, ty } => {
                let term = match target {
                    Some(t) => {
                        let idx = next.ssa.bump(t.var);
                        let term = var_term(t.var, t.ty, idx);
                        if t.ty == ty {
                            term
                        } else {
                            // The nondet value has type `ty`; the variable gets it converted.
                            // Keep the value itself for replay.
                            let raw = BV::new_const(fresh_name("nondet"), u32::from(ty.bits));
                            conjuncts.push(term.eq(enc.convert(&raw, ty, t.ty)));
                            raw
                        }
                    }
                    None => BV::new_const(fresh_name("nondet"), u32::from(ty.bits)),
                };
                next.nondets.push_back(NondetTerm {
                    edge: step.edge(),
                    ty,
                    term,
                });
            }
            StepEffect::Assume { cond, branch } => {
                let c = enc.condition(cond);
                conjuncts.push(if branch { c } else { c.not() });
            }
            StepEffect::Call { callee, params } => {
                // All arguments are read before any parameter is written.
                let values: Vec<(Typed, BV)> = params
                    .iter()
                    .map(|&(p, a)| {
                        let v = enc.value(a);
                        (p, enc.convert(&v, a.ty, p.ty))
                    })
                    .collect();
                // A call of an active function (`main` always is) saves the indices of the
                // callee's locals. A path starting inside a recursive function does not know the
                // activations below it: the predicate analysis starts no block inside recursion.
                let active =
                    callee == program.entry_function || self.frames.iter().any(|fr| fr.callee == callee);
                let saved = active.then(|| {
                    program
                        .variables
                        .iter()
                        .enumerate()
                        .filter(|(_, v)| v.scope == Scope::Local(callee))
                        .map(|(i, _)| (VarId(i as u32), self.ssa.get(VarId(i as u32))))
                        .collect()
                });
                next.frames.push_back(CallFrame { callee, saved });
                for (p, v) in values {
                    conjuncts.push(next.assign(p, v));
                }
            }
        }
        if !conjuncts.is_empty() {
            conjuncts.insert(0, next.formula.clone());
            next.formula = Bool::and(&conjuncts);
        }
        let undefined = (!enc.undefined.is_empty()).then(|| Bool::or(&enc.undefined));
        Ok((next, undefined))
    }

    /// Writes `value` (a value of the variable's type) to `target` at a new index: the equation.
    fn assign(&mut self, target: Typed, value: BV) -> Bool {
        let idx = self.ssa.bump(target.var);
        let bits = u32::from(target.ty.bits);
        let value = if value.get_size() == bits {
            value
        } else {
            resize(&value, false, bits)
        };
        var_term(target.var, target.ty, idx).eq(&value)
    }

    /// The interpreter's choice for what C leaves open on this path: every uninitialised
    /// local (scalar or array element) is 0.
    pub fn uninitialized_zero(&self) -> Bool {
        let scalars = self.uninitialized.iter().map(|t| t.eq(bv_const(0, t.get_size())));
        let arrays = self.uninitialized_arrays.iter().cloned();
        Bool::and(&scalars.chain(arrays).collect::<Vec<_>>())
    }

    /// Extends by several steps in order.
    pub fn extend_all(
        &self,
        steps: impl IntoIterator<Item = Step>,
        program: &Program,
    ) -> Result<PathFormula, EncodeError> {
        let mut pf = self.clone();
        for s in steps {
            pf = pf.extend(s, program)?;
        }
        Ok(pf)
    }

    /// The values `model` gives the nondet steps of this path, in order, normalised to their
    /// types: the input list for the concrete interpreter.
    pub fn nondet_values(&self, model: &Model) -> Vec<i128> {
        self.nondets
            .iter()
            .map(|n| {
                model
                    .eval(&n.term, true)
                    .and_then(|v| bv_value(&v, n.ty))
                    .unwrap_or(0)
            })
            .collect()
    }
}

/// When the pointer `at` reaches the address-taken `object` as a whole scalar or element
/// (see [`crate::cfa::address::element_at`]), and the element's index for an array; `None`
/// for an object without a static address or size.
fn object_hit(program: &Program, object: Typed, at: &BV) -> Option<(Bool, Option<BV>)> {
    let start = program.variables.get(object.var.index())?.address?;
    let size = crate::cfa::address::variable_size(program, object.var)?;
    let bits = at.get_size();
    let width = u64::from(object.ty.size_bytes());
    let base = bv_const(i128::from(start), bits);
    if program.variable(object.var).array.is_none() {
        return Some((at.eq(&base), None));
    }
    let end = bv_const(i128::from(start.checked_add(size)?), bits);
    let offset = at.bvsub(&base);
    let aligned = offset
        .bvurem(bv_const(i128::from(width), bits))
        .eq(bv_const(0, bits));
    let hit = Bool::and(&[at.bvuge(&base), at.bvult(&end), aligned]);
    let index = offset.bvudiv(bv_const(i128::from(width), bits));
    let index = if bits < 64 {
        index.zero_ext(64 - bits)
    } else {
        index
    };
    Some((hit, Some(index)))
}

/// When a store of `width` bytes at `at` touches a byte of the address-taken `object`;
/// `None` for an object without a static address or size.
fn object_overlap(program: &Program, object: Typed, at: &BV, width: u64) -> Option<Bool> {
    let start = program.variables.get(object.var.index())?.address?;
    let size = crate::cfa::address::variable_size(program, object.var)?;
    let bits = at.get_size();
    let first = bv_const(i128::from(start.saturating_sub(width.saturating_sub(1))), bits);
    let end = bv_const(i128::from(start.checked_add(size)?), bits);
    Some(Bool::and(&[at.bvuge(&first), at.bvult(&end)]))
}

/// Nondet values that drive the concrete interpreter along `steps` (from program start), if
/// there are any: the path formula (which excludes undefined behaviour) with the interpreter's
/// choice for what C leaves open (uninitialised locals are 0), solved with Z3.
///
/// A deadline in `config` bounds the encoding too: Z3 builds terms without a timeout and its
/// timeout does not cover all preprocessing of a huge formula, so encoding stops between
/// chunks of steps once the deadline has passed, and solving is not started when less time is
/// left than the encoding took (solving such a formula took longer than building it). So does
/// its memory limit: a path of a million steps takes gigabytes to encode.
pub fn concrete_inputs(program: &Program, steps: &[Step], config: &SolverConfig) -> Option<Vec<i128>> {
    const STEPS_PER_DEADLINE_CHECK: usize = 1024;
    let started = crate::cpa::monitor::process_cpu_time();
    let mut path = PathFormula::program_start(program);
    for chunk in steps.chunks(STEPS_PER_DEADLINE_CHECK) {
        if config.deadline.is_some_and(|d| d.passed()) || config.memory_exhausted() {
            return None;
        }
        path = path.extend_all(chunk.iter().copied(), program).ok()?;
    }
    let encoding = crate::cpa::monitor::process_cpu_time().saturating_sub(started);
    if config.deadline.is_some_and(|d| d.remaining() < encoding) || config.memory_exhausted() {
        return None;
    }
    solve_inputs(&path, config)
}

/// Nondet values that satisfy `path` (a path formula from program start, possibly with extra
/// conjuncts), uninitialised locals being 0 as in the interpreter; `None` if unsatisfiable or
/// not solved within `config`'s limits.
pub fn solve_inputs(path: &PathFormula, config: &SolverConfig) -> Option<Vec<i128>> {
    match config.check(&Bool::and(&[path.formula.clone(), path.uninitialized_zero()])) {
        Satisfiability::Sat(model) => Some(path.nondet_values(&model)),
        Satisfiability::Unsat | Satisfiability::Unknown(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::semantics;
    use crate::cfa::types::DataModel;
    use crate::cfa::{FuncId, Scope, Variable};
    use z3::ast::Ast;

    const TYPES: [IntType; 9] = [
        IntType::BOOL,
        IntType::CHAR,
        IntType::UCHAR,
        IntType::SHORT,
        IntType::USHORT,
        IntType::INT,
        IntType::UINT,
        IntType::LLONG,
        IntType::ULLONG,
    ];
    const PROMOTED: [IntType; 4] = [IntType::INT, IntType::UINT, IntType::LLONG, IntType::ULLONG];

    /// xorshift64*: deterministic, no dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
            xs[self.below(xs.len())]
        }
        /// An interesting value of `ty`: boundaries, small numbers, or random bits.
        fn value(&mut self, ty: IntType) -> i128 {
            let v = match self.below(6) {
                0 => ty.min(),
                1 => ty.max(),
                2 => self.pick(&[0, 1, -1, 2, -2, 7, -8]),
                3 => ty.min() + self.below(3) as i128,
                4 => ty.max() - self.below(3) as i128,
                _ => i128::from(self.next() as i64),
            };
            ty.normalize(v)
        }
    }

    fn program_with(vars: &[IntType]) -> Program {
        Program {
            files: vec!["test.c".into()],
            hash: String::new(),
            data_model: DataModel::ILP32,
            signed_overflow: Default::default(),
            variables: vars
                .iter()
                .enumerate()
                .map(|(i, ty)| Variable {
                    name: format!("x{i}"),
                    source_name: format!("x{i}"),
                    ty: *ty,
                    scope: Scope::Global,
                    initial: 0,
                    temporary: false,
                    read_only: false,
                    array: None,
                    address: None,
                })
                .collect(),
            record_objects: Vec::new(),
            functions: Vec::new(),
            locations: Vec::new(),
            edges: Vec::new(),
            entry_function: FuncId(0),
            out_edges: Vec::new(),
            in_edges: Vec::new(),
        }
    }

    /// Evaluates `expr` both ways and compares; returns false if the case had undefined
    /// behaviour (then the encoding must flag it).
    fn check(expr: &Expr, program: &Program, values: &[i128]) -> bool {
        let env = |v: VarId| values[v.index()];
        let expected = semantics::eval_concrete(expr, &env, program.signed_overflow);
        let ssa = SsaMap::new();
        let mut enc = ExprEncoder::new(program, &ssa);
        let term = enc.value(expr);
        let cond = enc.condition(expr);
        let subst: Vec<(BV, BV)> = program
            .variables
            .iter()
            .enumerate()
            .map(|(i, v)| {
                (
                    var_term(VarId(i as u32), v.ty, 0),
                    bv_const(values[i], u32::from(v.ty.bits)),
                )
            })
            .collect();
        let pairs: Vec<(&BV, &BV)> = subst.iter().map(|(a, b)| (a, b)).collect();
        let ub = Bool::or(&enc.undefined).substitute(&pairs).simplify();
        match expected {
            Ok(v) => {
                assert_eq!(ub.as_bool(), Some(false), "spurious UB for {expr} at {values:?}");
                let got = term.substitute(&pairs).simplify();
                assert_eq!(got.get_size(), u32::from(expr.ty.bits), "width of {expr}");
                assert_eq!(bv_value(&got, expr.ty), Some(v), "value of {expr} at {values:?}");
                let c = cond.substitute(&pairs).simplify();
                assert_eq!(c.as_bool(), Some(v != 0), "condition {expr} at {values:?}");
                true
            }
            Err(_) => {
                assert_eq!(ub.as_bool(), Some(true), "missed UB for {expr} at {values:?}");
                false
            }
        }
    }

    /// A leaf operand of type `ty`: the variable `id` (declared `ty`), or a cast of it from
    /// another declared type.
    fn operand(rng: &mut Rng, id: u32, ty: IntType, vars: &mut Vec<IntType>) -> Expr {
        if rng.below(4) == 0 {
            let from = rng.pick(&TYPES);
            vars.push(from);
            let _ = id;
            Expr {
                kind: ExprKind::Cast(Box::new(Expr::var(VarId(vars.len() as u32 - 1), from))),
                ty,
            }
        } else {
            vars.push(ty);
            Expr::var(VarId(vars.len() as u32 - 1), ty)
        }
    }

    #[test]
    fn encoding_agrees_with_semantics() {
        use BinaryOp::*;
        let ops = [
            Add, Sub, Mul, Div, Rem, Shl, Shr, BitAnd, BitOr, BitXor, Eq, Ne, Lt, Le, Gt, Ge,
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut defined, mut undefined, mut overflowing) = (0, 0, 0);
        for case in 0..4000 {
            let mut vars = Vec::new();
            let expr = match case % 5 {
                // Binary operators as the frontend produces them, and some odd typings.
                0..=2 => {
                    let op = ops[case % ops.len()];
                    let odd = rng.below(5) == 0;
                    let ta = if odd {
                        rng.pick(&TYPES)
                    } else {
                        rng.pick(&PROMOTED)
                    };
                    let tb = if matches!(op, Shl | Shr) || odd {
                        rng.pick(&TYPES)
                    } else {
                        ta
                    };
                    let a = operand(&mut rng, 0, ta, &mut vars);
                    let b = operand(&mut rng, 1, tb, &mut vars);
                    let result = if op.is_comparison() {
                        IntType::INT
                    } else if odd {
                        rng.pick(&TYPES)
                    } else {
                        ta
                    };
                    Expr::binary(op, a, b, result)
                }
                3 => {
                    let op = rng.pick(&[UnaryOp::Neg, UnaryOp::BitNot, UnaryOp::LogNot]);
                    let t = rng.pick(&TYPES);
                    let a = operand(&mut rng, 0, t, &mut vars);
                    let result = match op {
                        UnaryOp::LogNot => IntType::INT,
                        _ if rng.below(4) == 0 => rng.pick(&TYPES),
                        _ => t.promoted(),
                    };
                    Expr::unary(op, a, result)
                }
                _ => {
                    let from = rng.pick(&TYPES);
                    let to = rng.pick(&TYPES);
                    vars.push(from);
                    Expr {
                        kind: ExprKind::Cast(Box::new(Expr::var(VarId(0), from))),
                        ty: to,
                    }
                }
            };
            let mut program = program_with(&vars);
            let mut values: Vec<i128> = vars.iter().map(|t| rng.value(*t)).collect();
            // Shift amounts: mostly in range, sometimes out.
            if let ExprKind::Binary(Shl | Shr, _, b) = &expr.kind {
                if rng.below(4) != 0 {
                    let last = values.len() - 1;
                    values[last] = b.ty.normalize(rng.below(70) as i128);
                    if let ExprKind::Cast(inner) = &b.kind {
                        values[last] = inner.ty.normalize(rng.below(70) as i128);
                    }
                }
            }
            program.signed_overflow = SignedOverflow::Wrap;
            let defined_wrapping = check(&expr, &program, &values);
            program.signed_overflow = SignedOverflow::Undefined;
            let defined_strictly = check(&expr, &program, &values);
            match (defined_wrapping, defined_strictly) {
                (true, true) => defined += 1,
                (true, false) => overflowing += 1,
                (false, false) => undefined += 1,
                (false, true) => panic!("{expr} at {values:?}: defined only without wrap-around"),
            }
        }
        assert!(
            defined > 2500 && undefined > 50 && overflowing > 100,
            "{defined} defined, {undefined} UB cases, {overflowing} signed overflows"
        );
    }

    #[test]
    fn system_z3_agrees_with_the_bindings() {
        use z3::SortKind;
        assert!(z3::full_version().contains('.'), "Z3 {}", z3::full_version());
        assert_eq!(BV::new_const("k", 8).get_sort().kind(), SortKind::Bv);
        assert_eq!(Bool::new_const("b").get_sort().kind(), SortKind::Bool);
        let s = SolverConfig::default();
        assert!(matches!(s.check(&Bool::from_bool(false)), Satisfiability::Unsat));
        assert!(matches!(s.check(&Bool::from_bool(true)), Satisfiability::Sat(_)));
    }

    #[test]
    fn wide_constants_round_trip() {
        for (v, bits) in [
            (-1i128, 130u32),
            (1i128 << 70, 130),
            (-5, 64),
            (u64::MAX as i128, 64),
        ] {
            let c = bv_const(v, bits).simplify();
            assert_eq!(c.get_size(), bits);
            let low = c.extract(63, 0).simplify();
            assert_eq!(low.as_u64(), Some(v as u64));
        }
    }
}
