//! The concrete interpreter: runs a [`Program`] on a given list of nondeterministic values.
//!
//! Baton uses it to replay counterexamples (does the path really reach the error?), to replay
//! inputs found by fuzzers or KLEE, and in differential tests (against gcc, and of the reducer,
//! which runs a condition automaton over the recorded [`Execution::path`]). Every expression is
//! evaluated by [`semantics::eval_concrete`], the one implementation of C integer semantics, so
//! the interpreter and the analyses cannot disagree on what an operator means.
//!
//! Semantics in brief:
//! - Execution starts at the entry of [`Program::entry_function`] with every global at its
//!   [`Variable::initial`](super::Variable) value and every other variable at 0.
//! - Locals are program-wide variables. A call of a function that is already active saves
//!   the callee's locals (values and arrays) in the new frame and starts it with fresh ones (0,
//!   arrays of constant size zeroed); the return restores them, so every activation has its own
//!   locals. Frames live on a heap-allocated stack (the interpreter never recurses per C call);
//!   more than [`MAX_CALL_DEPTH`] active calls end the run with [`Ending::CallDepthLimit`].
//! - `Declare { init: None }` sets the variable to 0. C leaves the value indeterminate; 0 is one
//!   possible value and makes runs reproducible.
//! - Each `Nondet` takes the next value of the input list, normalised to its type; after the end
//!   of the list it takes 0. `Nondet` without a target still consumes a value, as the call does.
//! - A location's outgoing edges are tried in order and the first passable one is taken
//!   (non-assume edges are always passable). For a CFA made from C at most one edge is passable;
//!   for a nondeterministic CFA the first one wins. When no edge is passable the run ends with
//!   [`Ending::AssumptionViolated`] (this is how `__VERIFIER_assume(0)` ends a run).
//! - A call evaluates its arguments in the caller, assigns the callee's parameters (converted to
//!   their types) and enters the callee; at the callee's exit location the caller's result
//!   variable receives the callee's `return_var` (converted). A non-void function that falls off
//!   its end without `return` hands back whatever its return variable holds (C: undefined).
//! - Arrays ([`super::memory`]) are created with every element 0: those of constant size when
//!   the run starts (globals with their initial elements), variable-length ones when their
//!   `Declare` edge runs. An array larger than [`MAX_ARRAY_ELEMENTS`] ends the run with
//!   [`Ending::MemoryLimit`]. An index outside its dimension or a variable-length array size
//!   that is not positive is undefined behaviour.
//! - Pointers ([`super::address`]): a read or write through a pointer reaches an
//!   address-taken variable (one whole scalar or array element; a local only while its
//!   function is active) or a heap block ([`super::heap`]). `malloc` never fails. A null, dangling,
//!   out-of-bounds or unaligned-to-any-object access, a double or invalid `free` and a read of
//!   uninitialised `malloc` memory are undefined behaviour; an access the model cannot
//!   express (a variable's bytes read as a narrower type, a pointer to a local of a function
//!   with several active calls) ends the run with [`Ending::Unmodelled`].
//! - An operation with undefined behaviour (see [`semantics`]; signed overflow unless the
//!   program's [`Program::signed_overflow`] is `wrap`) ends the run with
//!   [`Ending::UndefinedBehavior`] saying what and at which line: such a run is never a
//!   violation of the property, whatever follows.

use super::address::{self, StaticObjects, HEAP_BASE};
use super::expr::Expr;
use super::heap::{Fault, Fill, Heap};
use super::memory::{self, element_count, flat_index, Extent};
use super::semantics::{self, UndefinedBehavior};
use super::types::IntType;
use super::{EdgeId, FuncId, LocId, LocationKind, Operation, Program, VarId};
use std::fmt;

mod library;

/// The most elements one array may have in a run (each takes 16 bytes here).
pub const MAX_ARRAY_ELEMENTS: u64 = 1 << 22;

/// The most calls one run may have active at once (a deeper run ends with
/// [`Ending::CallDepthLimit`]; gcc's 8 MiB stack holds fewer frames of most functions).
pub const MAX_CALL_DEPTH: usize = 100_000;

/// Limits and recording switches of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecOptions {
    /// The run ends with [`Ending::StepLimit`] before executing edge number `max_steps + 1`.
    pub max_steps: u64,
    /// Record the executed edges in [`Execution::path`].
    pub record_path: bool,
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            max_steps: 1_000_000,
            record_path: false,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// An `Error` edge (a call of `function`, e.g. `reach_error`) was executed at `line`.
    /// `function` is empty when an error location was entered by an edge of another kind
    /// (possible in hand-built or transformed CFAs).
    ErrorReached { function: String, line: u32 },
    /// `abort()` (or `__assert_fail`) was called at `line`.
    Aborted { line: u32 },
    /// `exit(code)` was called.
    Exited { code: i128 },
    /// The entry function returned; `None` for a `void` entry function.
    Returned { value: Option<i128> },
    /// No outgoing edge was passable: an assumption failed at `line`.
    AssumptionViolated { line: u32 },
    /// [`ExecOptions::max_steps`] edges were executed and the run had not ended.
    StepLimit,
    /// An array of more than [`MAX_ARRAY_ELEMENTS`] elements was to be created at `line`
    /// (0: when the run started).
    MemoryLimit { line: u32 },
    /// A call at `line` would have made more than [`MAX_CALL_DEPTH`] calls active at once
    /// (unbounded or very deep recursion). A limit of the interpreter, not a property of the
    /// program: neither undefined behaviour nor a verdict.
    CallDepthLimit { line: u32 },
    /// Evaluating an expression at `line` hit behaviour C leaves undefined.
    UndefinedBehavior { what: UndefinedBehavior, line: u32 },
    /// An access through a pointer at `line` that C defines but Baton's memory model does
    /// not represent: a limit of the interpreter, neither undefined behaviour nor a verdict.
    Unmodelled { what: String, line: u32 },
    /// The run reached a location without outgoing edges that is neither an exit nor an error
    /// location; `line` is the line of the last executed edge (0 if none).
    Stuck { location: LocId, line: u32 },
    /// The program violates an invariant of the CFA model (ids out of range, an argument count
    /// that does not match the callee, missing adjacency index); nothing was run or
    /// the run stopped where the problem showed.
    InvalidProgram { reason: String },
}

impl Ending {
    /// True if the run reached the error (the property is violated).
    pub fn is_error(&self) -> bool {
        matches!(self, Ending::ErrorReached { .. })
    }

    /// The ending's name in snake case (`error_reached`, `returned`, …), for JSON output.
    pub fn kind(&self) -> &'static str {
        match self {
            Ending::ErrorReached { .. } => "error_reached",
            Ending::Aborted { .. } => "aborted",
            Ending::Exited { .. } => "exited",
            Ending::Returned { .. } => "returned",
            Ending::AssumptionViolated { .. } => "assumption_violated",
            Ending::StepLimit => "step_limit",
            Ending::MemoryLimit { .. } => "memory_limit",
            Ending::CallDepthLimit { .. } => "call_depth_limit",
            Ending::UndefinedBehavior { .. } => "undefined_behavior",
            Ending::Unmodelled { .. } => "unmodelled",
            Ending::Stuck { .. } => "stuck",
            Ending::InvalidProgram { .. } => "invalid_program",
        }
    }
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ending::ErrorReached { function, line } if function.is_empty() => {
                write!(f, "error: error location reached at line {line}")
            }
            Ending::ErrorReached { function, line } => {
                write!(f, "error: {function}() reached at line {line}")
            }
            Ending::Aborted { line } => write!(f, "aborted at line {line}"),
            Ending::Exited { code } => write!(f, "exit({code})"),
            Ending::Returned { value: Some(v) } => write!(f, "returned {v}"),
            Ending::Returned { value: None } => write!(f, "returned (void)"),
            Ending::AssumptionViolated { line } => write!(f, "assumption violated at line {line}"),
            Ending::StepLimit => write!(f, "step limit reached"),
            Ending::MemoryLimit { line } => {
                write!(f, "array beyond the interpreter's size limit at line {line}")
            }
            Ending::CallDepthLimit { line } => write!(
                f,
                "call depth beyond the interpreter's limit of {MAX_CALL_DEPTH} at line {line}"
            ),
            Ending::UndefinedBehavior { what, line } => {
                write!(f, "undefined behaviour: {what} at line {line}")
            }
            Ending::Unmodelled { what, line } => {
                write!(f, "not modelled by the interpreter: {what} at line {line}")
            }
            Ending::Stuck { location, line } => write!(
                f,
                "stuck at location {location} without outgoing edges (after line {line})"
            ),
            Ending::InvalidProgram { reason } => write!(f, "invalid program: {reason}"),
        }
    }
}

/// The result of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Execution {
    pub ending: Ending,
    /// Number of edges executed (a call edge counts once; leaving a callee is not an edge).
    pub steps: u64,
    /// How many values of the input list were used (at most its length).
    pub inputs_consumed: usize,
    /// The executed edges in order, including the edge that ended the run (also an edge whose
    /// evaluation hit undefined behaviour); empty unless [`ExecOptions::record_path`] is set.
    pub path: Vec<EdgeId>,
    /// The value each executed `Nondet` produced, normalised to its type, in order; values
    /// after the end of the input list appear as 0. Replaying these values as inputs repeats
    /// the run exactly.
    pub nondet_values: Vec<i128>,
    /// The value of every variable (indexed by [`VarId`]) when the run ended.
    pub final_values: Vec<i128>,
}

/// One observable step of a run, for tracing (`baton exec --trace`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// `edge` was executed and wrote these variables (for a call: the callee's parameters).
    Edge {
        edge: EdgeId,
        writes: Vec<(VarId, i128)>,
    },
    /// `callee` returned to its caller, which received these values (its result variable).
    ReturnToCaller {
        callee: FuncId,
        writes: Vec<(VarId, i128)>,
    },
}

/// Runs `program` from the entry of its entry function on `inputs`.
pub fn execute(program: &Program, inputs: &[i128], options: &ExecOptions) -> Execution {
    execute_observed(program, inputs, options, &mut |_| {})
}

/// Like [`execute`], calling `observer` after every step (edges and returns to callers).
pub fn execute_observed(
    program: &Program,
    inputs: &[i128],
    options: &ExecOptions,
    observer: &mut dyn FnMut(&Step),
) -> Execution {
    let mut run = Run {
        program,
        inputs,
        options,
        values: Vec::new(),
        arrays: Vec::new(),
        steps: 0,
        inputs_consumed: 0,
        path: Vec::new(),
        nondet_values: Vec::new(),
        locals: Vec::new(),
        active: Vec::new(),
        statics: StaticObjects::of(program),
        heap: Heap::new(program.data_model.pointer_bits()),
        depth: 0,
    };
    let ending = match validate(program) {
        Ok(()) => run.run(observer),
        Err(reason) => Ending::InvalidProgram { reason },
    };
    Execution {
        ending,
        steps: run.steps,
        inputs_consumed: run.inputs_consumed,
        path: run.path,
        nondet_values: run.nondet_values,
        final_values: run.values,
    }
}

/// The elements of a live array and its extents.
struct ArrayObject {
    extents: Vec<u64>,
    elements: Vec<i128>,
}

/// A call in progress.
struct Frame {
    callee: FuncId,
    return_site: LocId,
    result: Option<VarId>,
    /// The callee's locals of the activation below, if the callee was already active.
    saved: Option<SavedLocals>,
}

/// The values and arrays of one function's locals, saved while another activation runs.
struct SavedLocals {
    values: Vec<i128>,
    arrays: Vec<Option<ArrayObject>>,
}

struct Run<'a> {
    program: &'a Program,
    inputs: &'a [i128],
    options: &'a ExecOptions,
    values: Vec<i128>,
    /// Per variable: the array object, once created.
    arrays: Vec<Option<ArrayObject>>,
    steps: u64,
    inputs_consumed: usize,
    path: Vec<EdgeId>,
    nondet_values: Vec<i128>,
    /// Per function: its local variables (filled for recursive functions only).
    locals: Vec<Vec<VarId>>,
    /// Per function: how many activations are on the stack.
    active: Vec<u32>,
    /// The address-taken variables by address.
    statics: StaticObjects,
    heap: Heap<i128>,
    /// How many calls are active (0 in the entry function).
    depth: usize,
}

/// The object a range of memory lies in.
enum Region {
    /// An address-taken variable: the range starts `offset` bytes into its `size` bytes.
    Var {
        var: VarId,
        offset: u64,
        size: u64,
    },
    Heap,
}

/// Where an access through a pointer lands.
enum Target {
    /// A scalar variable, or the element at this flat position of an array variable.
    Var(VarId, Option<usize>),
    Heap(u64),
}

impl Run<'_> {
    /// Saves the locals of `func` and gives it fresh ones (0; arrays of constant size zeroed,
    /// others absent until declared).
    fn save_locals(&mut self, func: FuncId) -> SavedLocals {
        let program = self.program;
        let vars = &self.locals[func.index()];
        let mut saved = SavedLocals {
            values: Vec::with_capacity(vars.len()),
            arrays: Vec::with_capacity(vars.len()),
        };
        for &v in vars {
            saved.values.push(std::mem::take(&mut self.values[v.index()]));
            let fresh = program
                .variable(v)
                .array
                .as_ref()
                .and_then(|a| a.fixed_extents())
                .and_then(|extents| {
                    let count = element_count(&extents)?;
                    Some(ArrayObject {
                        elements: vec![0; count as usize],
                        extents,
                    })
                });
            saved
                .arrays
                .push(std::mem::replace(&mut self.arrays[v.index()], fresh));
        }
        saved
    }

    /// Puts back the locals of `func` that [`Run::save_locals`] saved.
    fn restore_locals(&mut self, func: FuncId, saved: SavedLocals) {
        for ((&v, value), array) in self.locals[func.index()]
            .iter()
            .zip(saved.values)
            .zip(saved.arrays)
        {
            self.values[v.index()] = value;
            self.arrays[v.index()] = array;
        }
    }

    fn eval(&self, expr: &Expr) -> Result<i128, UndefinedBehavior> {
        semantics::eval_concrete(
            expr,
            &|v: VarId| self.values[v.index()],
            self.program.signed_overflow,
        )
    }

    /// The value of a pointer expression as an address.
    fn pointer(&self, address: &Expr, line: u32) -> Result<u64, Ending> {
        let value = self
            .eval(address)
            .map_err(|what| Ending::UndefinedBehavior { what, line })?;
        // Pointer values are unsigned; anything else comes from an integer cast.
        u64::try_from(value).map_err(|_| Ending::UndefinedBehavior {
            what: UndefinedBehavior::InvalidPointer,
            line,
        })
    }

    /// The object `len` bytes at address `a` lie in (the checks of every access through a
    /// pointer: not null, not a function, inside one live object; a heap block checks its own
    /// bounds).
    fn region(&self, a: u64, len: u64) -> Result<Region, Fault> {
        if a == 0 {
            return Err(UndefinedBehavior::NullDereference.into());
        }
        if self.statics.is_function(a) {
            return Err(UndefinedBehavior::FunctionAccess.into());
        }
        if a >= HEAP_BASE {
            return Ok(Region::Heap);
        }
        // Outside every variable: undefined, unless inside a struct laid out as one object.
        let outside = |ub: UndefinedBehavior| match self.statics.across_members(a, len) {
            Some(what) => Fault::Unmodelled(what),
            None => ub.into(),
        };
        let (var, offset, size) = self
            .statics
            .find(a)
            .ok_or_else(|| outside(UndefinedBehavior::InvalidPointer))?;
        if let super::Scope::Local(f) = self.program.variable(var).scope {
            match self.active[f.index()] {
                0 => return Err(UndefinedBehavior::DanglingPointer.into()),
                1 => {}
                _ => {
                    return Err(Fault::Unmodelled(
                        "pointer to a local of a function with several active calls".into(),
                    ))
                }
            }
        }
        if offset.checked_add(len).is_none_or(|end| end > size) {
            return Err(outside(UndefinedBehavior::PointerOutOfBounds));
        }
        Ok(Region::Var { var, offset, size })
    }

    /// The object an access of `ty` through `address` reaches.
    fn target(&self, address: &Expr, ty: IntType, line: u32) -> Result<Target, Ending> {
        let a = self.pointer(address, line)?;
        let width = u64::from(ty.size_bytes());
        let (var, offset, size) = match self.region(a, width).map_err(|f| fault(f, line))? {
            Region::Heap => return Ok(Target::Heap(a)),
            Region::Var { var, offset, size } => (var, offset, size),
        };
        let v = self.program.variable(var);
        let Some(at) = address::element_at(offset, ty, v.ty, size) else {
            return Err(Ending::Unmodelled {
                what: format!(
                    "access of `{}` through a pointer to another type or inside one of its values",
                    v.name
                ),
                line,
            });
        };
        Ok(Target::Var(var, v.array.is_some().then_some(at as usize)))
    }

    /// `*(ty *)address`.
    fn read_through(&self, address: &Expr, ty: IntType, line: u32) -> Result<i128, Ending> {
        match self.target(address, ty, line)? {
            Target::Var(var, None) => Ok(ty.normalize(self.values[var.index()])),
            Target::Var(var, Some(at)) => self.arrays[var.index()]
                .as_ref()
                .and_then(|a| a.elements.get(at))
                .map(|&v| ty.normalize(v))
                .ok_or(Ending::UndefinedBehavior {
                    what: UndefinedBehavior::DanglingPointer,
                    line,
                }),
            Target::Heap(a) => self.heap.read(a, ty).map_err(|f| fault(f, line)),
        }
    }

    /// `*(ty *)address = value`; the variable written as a whole, for the trace.
    fn write_through(
        &mut self,
        address: &Expr,
        ty: IntType,
        value: i128,
        line: u32,
    ) -> Result<Option<(VarId, i128)>, Ending> {
        let target = self.target(address, ty, line)?;
        if let Target::Var(var, _) = target {
            if self.program.variable(var).read_only {
                return Err(Ending::UndefinedBehavior {
                    what: UndefinedBehavior::StringLiteralWrite,
                    line,
                });
            }
        }
        match target {
            Target::Var(var, None) => {
                // Same size: the variable's type reads the same bytes.
                let stored = self.program.variable(var).ty.normalize(ty.normalize(value));
                self.values[var.index()] = stored;
                Ok(Some((var, stored)))
            }
            Target::Var(var, Some(at)) => {
                let element = self.program.variable(var).ty;
                let slot = self.arrays[var.index()]
                    .as_mut()
                    .and_then(|a| a.elements.get_mut(at))
                    .ok_or(Ending::UndefinedBehavior {
                        what: UndefinedBehavior::DanglingPointer,
                        line,
                    })?;
                *slot = element.normalize(ty.normalize(value));
                Ok(None)
            }
            Target::Heap(a) => self
                .heap
                .write(a, ty, value)
                .map(|()| None)
                .map_err(|f| fault(f, line)),
        }
    }

    /// Makes a heap block; its address.
    fn allocate(&mut self, kind: &super::AllocKind, size: &Expr, line: u32) -> Result<u64, Ending> {
        use super::AllocKind;
        let size = self
            .eval(size)
            .map_err(|what| Ending::UndefinedBehavior { what, line })?;
        let size = u64::try_from(size).map_err(|_| Ending::MemoryLimit { line })?;
        let made = match kind {
            AllocKind::Malloc => self.heap.allocate(Some(size), Fill::Uninitialized, None),
            AllocKind::Calloc => self.heap.allocate(Some(size), Fill::ZERO, None),
            AllocKind::Alloca => self
                .heap
                .allocate(Some(size), Fill::Uninitialized, Some(self.depth)),
            // Read before written, it is 0, as an uninitialised local variable is.
            AllocKind::Automatic => self.heap.allocate(Some(size), Fill::ZERO, Some(self.depth)),
            AllocKind::Realloc { from } => match self.pointer(from, line)? {
                0 => self.heap.allocate(Some(size), Fill::Uninitialized, None),
                a => self.heap.reallocate(a, Some(size)),
            },
        };
        // Every block has a known size, so every block has an address.
        made.and_then(|a| a.ok_or(Fault::Limit))
            .map_err(|f| fault(f, line))
    }

    /// Stores `value` into `var`, converted to the variable's type; returns the stored value.
    fn store(&mut self, var: VarId, value: i128) -> i128 {
        let v = self.program.variable(var).ty.normalize(value);
        self.values[var.index()] = v;
        v
    }

    /// Creates the array `var` with these extents, every element `fill`.
    fn create_array(&mut self, var: VarId, extents: Vec<u64>, fill: i128, line: u32) -> Result<(), Ending> {
        let count = element_count(&extents).filter(|&n| n <= MAX_ARRAY_ELEMENTS);
        let Some(count) = count else {
            return Err(Ending::MemoryLimit { line });
        };
        let fill = self.program.variable(var).ty.normalize(fill);
        self.arrays[var.index()] = Some(ArrayObject {
            extents,
            elements: vec![fill; count as usize],
        });
        Ok(())
    }

    /// The live array `var` and the flat position of the element `index` names.
    fn element(
        &mut self,
        var: VarId,
        index: &[Expr],
        line: u32,
    ) -> Result<(&mut ArrayObject, usize), Ending> {
        let mut at = Vec::with_capacity(index.len());
        for i in index {
            at.push(
                self.eval(i)
                    .map_err(|what| Ending::UndefinedBehavior { what, line })?,
            );
        }
        let Some(array) = self.arrays[var.index()].as_mut() else {
            return Err(Ending::InvalidProgram {
                reason: format!(
                    "array `{}` used before its declaration at line {line}",
                    self.program.variable(var).name
                ),
            });
        };
        let flat =
            flat_index(&array.extents, &at).map_err(|what| Ending::UndefinedBehavior { what, line })?;
        Ok((array, flat as usize))
    }

    /// Creates every array of constant size (globals with their initial elements).
    fn create_fixed_arrays(&mut self) -> Result<(), Ending> {
        let program = self.program;
        self.arrays = program.variables.iter().map(|_| None).collect();
        for (i, v) in program.variables.iter().enumerate() {
            let Some(extents) = v.array.as_ref().and_then(|a| a.fixed_extents()) else {
                continue;
            };
            self.create_array(VarId(i as u32), extents, 0, 0)?;
            if let (super::Scope::Global, Some(shape), Some(obj)) =
                (v.scope, &v.array, self.arrays[i].as_mut())
            {
                for &(at, value) in &shape.initial {
                    if let Some(slot) = obj.elements.get_mut(at as usize) {
                        *slot = v.ty.normalize(value);
                    }
                }
            }
        }
        Ok(())
    }

    fn run(&mut self, observer: &mut dyn FnMut(&Step)) -> Ending {
        let program = self.program;
        self.values = program
            .variables
            .iter()
            .map(|v| match v.scope {
                super::Scope::Global => v.ty.normalize(v.initial),
                super::Scope::Local(_) => 0,
            })
            .collect();
        if let Err(ending) = self.create_fixed_arrays() {
            return ending;
        }
        let recursive = program.recursive_functions();
        self.locals = vec![Vec::new(); program.functions.len()];
        for (i, v) in program.variables.iter().enumerate() {
            if let super::Scope::Local(f) = v.scope {
                if recursive.get(f.index()).copied().unwrap_or(false) {
                    self.locals[f.index()].push(VarId(i as u32));
                }
            }
        }
        self.active = vec![0; program.functions.len()];
        self.active[program.entry_function.index()] = 1;
        let mut stack: Vec<Frame> = Vec::new();
        let mut current = program.main().entry;
        let mut last_line = 0u32;
        loop {
            let func_id = program.location(current).func;
            let func = program.function(func_id);
            if current == func.exit {
                let returned = func.return_var.map(|r| self.values[r.index()]);
                match stack.pop() {
                    None => return Ending::Returned { value: returned },
                    Some(frame) => {
                        self.active[frame.callee.index()] -= 1;
                        self.depth = stack.len();
                        self.heap.end_frames_above(self.depth);
                        if let Some(saved) = frame.saved {
                            self.restore_locals(frame.callee, saved);
                        }
                        let mut writes = Vec::new();
                        if let (Some(result), Some(value)) = (frame.result, returned) {
                            writes.push((result, self.store(result, value)));
                        }
                        observer(&Step::ReturnToCaller {
                            callee: frame.callee,
                            writes,
                        });
                        current = frame.return_site;
                        continue;
                    }
                }
            }
            if self.steps >= self.options.max_steps {
                return Ending::StepLimit;
            }
            let out = program.out_edges(current);
            if out.is_empty() {
                return Ending::Stuck {
                    location: current,
                    line: last_line,
                };
            }
            let mut chosen = None;
            for &id in out {
                let edge = program.edge(id);
                match &edge.op {
                    Operation::Assume { cond, branch } => match self.eval(cond) {
                        Ok(v) if (v != 0) == *branch => {
                            chosen = Some(id);
                            break;
                        }
                        Ok(_) => {}
                        Err(what) => {
                            // Like any other faulting edge, it counts and ends the path.
                            self.steps += 1;
                            if self.options.record_path {
                                self.path.push(id);
                            }
                            return Ending::UndefinedBehavior {
                                what,
                                line: edge.source.line,
                            };
                        }
                    },
                    _ => {
                        chosen = Some(id);
                        break;
                    }
                }
            }
            let Some(id) = chosen else {
                // Every outgoing edge is an assume edge and none holds.
                let line = program.edge(out[0]).source.line;
                return Ending::AssumptionViolated { line };
            };
            let edge = program.edge(id);
            let line = edge.source.line;
            last_line = line;
            self.steps += 1;
            if self.options.record_path {
                self.path.push(id);
            }
            let ub = |what| Ending::UndefinedBehavior { what, line };
            let mut writes = Vec::new();
            let mut next = edge.to;
            match &edge.op {
                Operation::Skip | Operation::Assume { .. } => {}
                Operation::Declare { var, init } => {
                    let value = match init {
                        Some(e) => match self.eval(e) {
                            Ok(v) => v,
                            Err(what) => return ub(what),
                        },
                        None => 0,
                    };
                    match &program.variable(*var).array {
                        None => writes.push((*var, self.store(*var, value))),
                        Some(shape) => {
                            let mut extents = Vec::with_capacity(shape.dims.len());
                            for d in &shape.dims {
                                extents.push(match d {
                                    Extent::Fixed(n) => *n,
                                    Extent::Var(x) => match memory::extent_from_value(self.values[x.index()])
                                    {
                                        Ok(n) => n,
                                        Err(what) => return ub(what),
                                    },
                                });
                            }
                            if let Err(ending) = self.create_array(*var, extents, value, line) {
                                return ending;
                            }
                        }
                    }
                }
                Operation::Load { lhs, array, index } => {
                    let value = match self.element(*array, index, line) {
                        Ok((obj, at)) => obj.elements[at],
                        Err(ending) => return ending,
                    };
                    writes.push((*lhs, self.store(*lhs, value)));
                }
                Operation::Store { array, index, rhs } => {
                    let value = match self.eval(rhs) {
                        Ok(v) => program.variable(*array).ty.normalize(v),
                        Err(what) => return ub(what),
                    };
                    match self.element(*array, index, line) {
                        Ok((obj, at)) => obj.elements[at] = value,
                        Err(ending) => return ending,
                    }
                }
                Operation::Assign { lhs, rhs } => match self.eval(rhs) {
                    Ok(v) => writes.push((*lhs, self.store(*lhs, v))),
                    Err(what) => return ub(what),
                },
                Operation::LoadPtr { lhs, address } => {
                    let ty = program.variable(*lhs).ty;
                    match self.read_through(address, ty, line) {
                        Ok(v) => writes.push((*lhs, self.store(*lhs, v))),
                        Err(ending) => return ending,
                    }
                }
                Operation::StorePtr { address, rhs } => {
                    let value = match self.eval(rhs) {
                        Ok(v) => v,
                        Err(what) => return ub(what),
                    };
                    match self.write_through(address, rhs.ty, value, line) {
                        Ok(Some(write)) => writes.push(write),
                        Ok(None) => {}
                        Err(ending) => return ending,
                    }
                }
                Operation::Alloc { lhs, kind, size } => match self.allocate(kind, size, line) {
                    Ok(a) => writes.push((*lhs, self.store(*lhs, i128::from(a)))),
                    Err(ending) => return ending,
                },
                Operation::Free { address } => {
                    let freed = self.pointer(address, line).and_then(|a| match a {
                        0 => Ok(()),
                        a => self.heap.free(a).map_err(|f| fault(f, line)),
                    });
                    if let Err(ending) = freed {
                        return ending;
                    }
                }
                Operation::Nondet { lhs, ty, .. } => {
                    let value = match self.inputs.get(self.inputs_consumed) {
                        Some(&v) => {
                            self.inputs_consumed += 1;
                            ty.normalize(v)
                        }
                        None => 0,
                    };
                    self.nondet_values.push(value);
                    if let Some(lhs) = lhs {
                        writes.push((*lhs, self.store(*lhs, value)));
                    }
                }
                Operation::Library {
                    function,
                    args,
                    result,
                } => match self
                    .evaluate(args, line)
                    .and_then(|values| self.call_library(*function, &values, line))
                {
                    Ok(value) => {
                        if let Some(r) = result {
                            writes.push((*r, self.store(*r, value)));
                        }
                    }
                    Err(ending) => return ending,
                },
                Operation::External {
                    function,
                    args,
                    result,
                } => {
                    if let Err(ending) = self.evaluate(args, line) {
                        return ending;
                    }
                    if result.is_some() {
                        return Ending::Unmodelled {
                            what: format!("the result of `{function}`, a function without a body"),
                            line,
                        };
                    }
                }
                Operation::Call { callee, args, result } => {
                    let mut values = Vec::with_capacity(args.len());
                    for a in args {
                        match self.eval(a) {
                            Ok(v) => values.push(v),
                            Err(what) => return ub(what),
                        }
                    }
                    if stack.len() >= MAX_CALL_DEPTH {
                        return Ending::CallDepthLimit { line };
                    }
                    let saved = (self.active[callee.index()] > 0).then(|| self.save_locals(*callee));
                    self.active[callee.index()] += 1;
                    let target = program.function(*callee);
                    for (&param, value) in target.params.iter().zip(values) {
                        writes.push((param, self.store(param, value)));
                    }
                    stack.push(Frame {
                        callee: *callee,
                        return_site: edge.to,
                        result: *result,
                        saved,
                    });
                    self.depth = stack.len();
                    next = target.entry;
                }
                Operation::Return { value } => {
                    if let Some(e) = value {
                        match self.eval(e) {
                            Ok(v) => {
                                if let Some(rv) = func.return_var {
                                    writes.push((rv, self.store(rv, v)));
                                }
                            }
                            Err(what) => return ub(what),
                        }
                    }
                }
                Operation::Error { function } => {
                    observer(&Step::Edge { edge: id, writes });
                    return Ending::ErrorReached {
                        function: function.clone(),
                        line,
                    };
                }
                Operation::Abort { .. } => {
                    observer(&Step::Edge { edge: id, writes });
                    return Ending::Aborted { line };
                }
                Operation::Undefined { what } => {
                    observer(&Step::Edge { edge: id, writes });
                    return ub(*what);
                }
                Operation::Exit { code } => {
                    observer(&Step::Edge { edge: id, writes });
                    return match self.eval(code) {
                        Ok(code) => Ending::Exited { code },
                        Err(what) => ub(what),
                    };
                }
            }
            observer(&Step::Edge { edge: id, writes });
            if program.location(next).kind == LocationKind::Error {
                return Ending::ErrorReached {
                    function: String::new(),
                    line,
                };
            }
            current = next;
        }
    }
}

/// The ending a heap fault at `line` gives.
fn fault(f: Fault, line: u32) -> Ending {
    match f {
        Fault::Undefined(what) => Ending::UndefinedBehavior { what, line },
        Fault::Unmodelled(what) => Ending::Unmodelled { what, line },
        Fault::Limit => Ending::MemoryLimit { line },
    }
}

/// One line describing a step, for traces: `line 12: x = (y + 1);  [x = 5]` or
/// `return from f  [r = 7]`.
pub fn render_step(program: &Program, step: &Step) -> String {
    let writes = |w: &[(VarId, i128)]| {
        if w.is_empty() {
            String::new()
        } else {
            let parts: Vec<String> = w
                .iter()
                .map(|(v, x)| format!("{} = {x}", program.variable(*v).name))
                .collect();
            format!("  [{}]", parts.join(", "))
        }
    };
    match step {
        Step::Edge { edge, writes: w } => {
            let e = program.edge(*edge);
            format!(
                "line {}: {}{}",
                e.source.line,
                program.render_operation(&e.op),
                writes(w)
            )
        }
        Step::ReturnToCaller { callee, writes: w } => {
            format!("return from {}{}", program.function(*callee).name, writes(w))
        }
    }
}

/// Checks the invariants the interpreter relies on, so that running never indexes out of range.
fn validate(p: &Program) -> Result<(), String> {
    let nv = p.variables.len();
    let nl = p.locations.len();
    let nf = p.functions.len();
    if p.out_edges.len() != nl {
        return Err("the program's edge index is missing (call Program::reindex)".into());
    }
    if p.entry_function.index() >= nf {
        return Err(format!("entry function {} does not exist", p.entry_function.0));
    }
    let var_ok = |v: VarId| v.index() < nv;
    let expr_ok = |e: &Expr| {
        let mut ok = true;
        e.for_each_var(&mut |v| ok &= var_ok(v));
        // An address must be the one its variable was given.
        e.for_each_address(&mut |v, a| ok &= var_ok(v) && p.variables[v.index()].address == Some(a));
        ok
    };
    // An array with one index per dimension and variable extents that exist.
    let array_ok = |v: VarId, n: usize| {
        var_ok(v)
            && p.variables[v.index()]
                .array
                .as_ref()
                .is_some_and(|a| a.dims.len() == n && a.extent_vars().all(var_ok))
    };
    for f in &p.functions {
        if f.entry.index() >= nl || f.exit.index() >= nl {
            return Err(format!(
                "function `{}` has an entry or exit location out of range",
                f.name
            ));
        }
        if !f.params.iter().all(|&v| var_ok(v)) || !f.return_var.is_none_or(var_ok) {
            return Err(format!("function `{}` names a variable out of range", f.name));
        }
    }
    for (i, l) in p.locations.iter().enumerate() {
        if l.func.index() >= nf {
            return Err(format!("location N{i} belongs to no function"));
        }
    }
    for (i, e) in p.edges.iter().enumerate() {
        let bad = |what: &str| Err(format!("edge E{i} (line {}): {what}", e.source.line));
        if e.from.index() >= nl || e.to.index() >= nl {
            return bad("location out of range");
        }
        let ok = match &e.op {
            Operation::Skip
            | Operation::Error { .. }
            | Operation::Abort { .. }
            | Operation::Undefined { .. } => true,
            Operation::Declare { var, init } => {
                var_ok(*var)
                    && init.as_ref().is_none_or(expr_ok)
                    && p.variables[var.index()]
                        .array
                        .as_ref()
                        .is_none_or(|a| a.extent_vars().all(var_ok))
            }
            Operation::Assign { lhs, rhs } => var_ok(*lhs) && expr_ok(rhs),
            Operation::LoadPtr { lhs, address } => var_ok(*lhs) && expr_ok(address),
            Operation::StorePtr { address, rhs } => expr_ok(address) && expr_ok(rhs),
            Operation::Alloc { lhs, kind, size } => {
                var_ok(*lhs)
                    && expr_ok(size)
                    && match kind {
                        super::AllocKind::Realloc { from } => expr_ok(from),
                        _ => true,
                    }
            }
            Operation::Free { address } => expr_ok(address),
            Operation::Load { lhs, array, index } => {
                var_ok(*lhs) && array_ok(*array, index.len()) && index.iter().all(expr_ok)
            }
            Operation::Store { array, index, rhs } => {
                array_ok(*array, index.len()) && index.iter().all(expr_ok) && expr_ok(rhs)
            }
            Operation::Nondet { lhs, .. } => lhs.is_none_or(var_ok),
            Operation::Library { args, result, .. } | Operation::External { args, result, .. } => {
                args.iter().all(expr_ok) && result.is_none_or(var_ok)
            }
            Operation::Assume { cond, .. } => expr_ok(cond),
            Operation::Return { value } => value.as_ref().is_none_or(expr_ok),
            Operation::Exit { code } => expr_ok(code),
            Operation::Call { callee, args, result } => {
                if callee.index() >= nf {
                    return bad("call of a function out of range");
                }
                let target = &p.functions[callee.index()];
                if target.params.len() != args.len() {
                    return bad(&format!(
                        "call of `{}` with {} arguments, but it has {} parameters",
                        target.name,
                        args.len(),
                        target.params.len()
                    ));
                }
                args.iter().all(expr_ok) && result.is_none_or(var_ok)
            }
        };
        if !ok {
            return bad("variable out of range");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::expr::{BinaryOp, Expr};
    use crate::cfa::types::{DataModel, IntType};
    use crate::cfa::{Edge, Function, Location, Scope, SourceLoc, Variable};

    /// Builds small CFAs by hand.
    struct Builder {
        p: Program,
    }

    impl Builder {
        fn new() -> Builder {
            Builder {
                p: Program {
                    files: vec!["test.c".into()],
                    hash: String::new(),
                    data_model: DataModel::ILP32,
                    signed_overflow: Default::default(),
                    variables: Vec::new(),
                    record_objects: Vec::new(),
                    functions: Vec::new(),
                    locations: Vec::new(),
                    edges: Vec::new(),
                    entry_function: FuncId(0),
                    out_edges: Vec::new(),
                    in_edges: Vec::new(),
                },
            }
        }

        fn var(&mut self, name: &str, ty: IntType, scope: Scope, initial: i128) -> VarId {
            self.p.variables.push(Variable {
                name: name.into(),
                source_name: name.into(),
                ty,
                scope,
                initial,
                temporary: false,
                read_only: false,
                address: None,
                array: None,
            });
            VarId(self.p.variables.len() as u32 - 1)
        }

        fn loc(&mut self, func: FuncId, kind: LocationKind) -> LocId {
            self.p.locations.push(Location {
                func,
                kind,
                loop_head: false,
                label: None,
            });
            LocId(self.p.locations.len() as u32 - 1)
        }

        /// A function with `params` (types), an optional return type; returns its id,
        /// parameter ids, and entry/exit.
        fn func(
            &mut self,
            name: &str,
            params: &[IntType],
            ret: Option<IntType>,
        ) -> (FuncId, Vec<VarId>, LocId, LocId) {
            let id = FuncId(self.p.functions.len() as u32);
            let params: Vec<VarId> = params
                .iter()
                .enumerate()
                .map(|(i, &t)| self.var(&format!("{name}::p{i}"), t, Scope::Local(id), 0))
                .collect();
            let return_var = ret.map(|t| self.var(&format!("{name}::__ret"), t, Scope::Local(id), 0));
            let entry = self.loc(id, LocationKind::Normal);
            let exit = self.loc(id, LocationKind::FunctionExit);
            self.p.functions.push(Function {
                name: name.into(),
                params: params.clone(),
                return_type: ret,
                return_var,
                entry,
                exit,
                locations: vec![entry, exit],
                source: SourceLoc::default(),
            });
            (id, params, entry, exit)
        }

        fn edge(&mut self, from: LocId, to: LocId, op: Operation, line: u32) -> EdgeId {
            self.p.edges.push(Edge {
                from,
                to,
                op,
                source: SourceLoc {
                    file: 0,
                    line,
                    column: 1,
                },
            });
            EdgeId(self.p.edges.len() as u32 - 1)
        }

        /// A chain of edges from `from` through fresh locations of `func`; returns the end.
        fn chain(&mut self, func: FuncId, from: LocId, ops: Vec<(Operation, u32)>) -> LocId {
            let mut at = from;
            for (op, line) in ops {
                let next = self.loc(func, LocationKind::Normal);
                self.edge(at, next, op, line);
                at = next;
            }
            at
        }

        fn finish(self) -> Program {
            self.p.finish()
        }
    }

    fn v(id: VarId, ty: IntType) -> Expr {
        Expr::var(id, ty)
    }

    fn run(p: &Program, inputs: &[i128]) -> Execution {
        execute(
            p,
            inputs,
            &ExecOptions {
                max_steps: 10_000,
                record_path: true,
            },
        )
    }

    fn ret(value: Expr) -> Operation {
        Operation::Return { value: Some(value) }
    }

    /// `int main() { return 40 + 2; }`
    #[test]
    fn returns_value_of_main() {
        let mut b = Builder::new();
        let (m, _, entry, exit) = b.func("main", &[], Some(IntType::INT));
        let e = Expr::binary(BinaryOp::Add, Expr::int(40), Expr::int(2), IntType::INT);
        b.edge(entry, exit, ret(e), 1);
        let _ = m;
        let p = b.finish();
        let x = run(&p, &[]);
        assert_eq!(x.ending, Ending::Returned { value: Some(42) });
        assert_eq!(x.steps, 1);
        assert_eq!(x.path, vec![EdgeId(0)]);
        assert_eq!(x.ending.to_string(), "returned 42");
    }

    /// `unsigned char g = 250; void main() { g = g + 10; }`: globals start at their initial
    /// value and assignments convert to the variable's type.
    #[test]
    fn globals_and_conversion_on_assignment() {
        let mut b = Builder::new();
        let g = b.var("g", IntType::UCHAR, Scope::Global, 250);
        let (m, _, entry, exit) = b.func("main", &[], None);
        let sum = Expr::binary(
            BinaryOp::Add,
            v(g, IntType::UCHAR).cast(IntType::INT),
            Expr::int(10),
            IntType::INT,
        );
        let end = b.chain(m, entry, vec![(Operation::Assign { lhs: g, rhs: sum }, 2)]);
        b.edge(end, exit, Operation::Return { value: None }, 3);
        let p = b.finish();
        let x = run(&p, &[]);
        assert_eq!(x.ending, Ending::Returned { value: None });
        assert_eq!(x.final_values[g.index()], 4);
    }

    /// `x = nondet_uchar(); y = nondet_int(); z = nondet_int(); if (x == 255) reach_error();`
    #[test]
    fn nondet_values_are_normalised_and_default_to_zero() {
        let mut b = Builder::new();
        let (m, _, entry, exit) = b.func("main", &[], Some(IntType::INT));
        let x = b.var("x", IntType::UCHAR, Scope::Local(m), 0);
        let y = b.var("y", IntType::INT, Scope::Local(m), 0);
        let z = b.var("z", IntType::INT, Scope::Local(m), 0);
        let nondet = |lhs, ty| Operation::Nondet {
            lhs: Some(lhs),
            ty,
            function: "__VERIFIER_nondet".into(),
        };
        let at = b.chain(
            m,
            entry,
            vec![
                (nondet(x, IntType::UCHAR), 1),
                (nondet(y, IntType::INT), 2),
                (nondet(z, IntType::INT), 3),
            ],
        );
        let cond = Expr::binary(
            BinaryOp::Eq,
            v(x, IntType::UCHAR).cast(IntType::INT),
            Expr::int(255),
            IntType::INT,
        );
        let then = b.loc(m, LocationKind::Normal);
        let err = b.loc(m, LocationKind::Error);
        b.edge(
            at,
            then,
            Operation::Assume {
                cond: cond.clone(),
                branch: true,
            },
            4,
        );
        b.edge(
            then,
            err,
            Operation::Error {
                function: "reach_error".into(),
            },
            4,
        );
        b.edge(at, exit, Operation::Assume { cond, branch: false }, 4);
        let p = b.finish();

        let r = run(&p, &[-1, 1i128 << 33 | 5]);
        assert_eq!(
            r.ending,
            Ending::ErrorReached {
                function: "reach_error".into(),
                line: 4
            }
        );
        assert_eq!(r.ending.to_string(), "error: reach_error() reached at line 4");
        assert_eq!(r.inputs_consumed, 2);
        assert_eq!(r.nondet_values, vec![255, 5, 0]);
        assert_eq!(r.final_values[y.index()], 5);
        assert_eq!(r.path.len(), 5);

        // Replaying the recorded values repeats the run.
        let again = run(&p, &r.nondet_values);
        assert_eq!(again.ending, r.ending);
        assert_eq!(again.path, r.path);

        let r = run(&p, &[254]);
        assert_eq!(r.ending, Ending::Returned { value: Some(0) });
        assert_eq!(r.inputs_consumed, 1);
        assert_eq!(r.nondet_values, vec![254, 0, 0]);
    }

    /// `__VERIFIER_assume(x > 0)` as a single assume edge.
    #[test]
    fn failed_assumption_ends_the_run() {
        let mut b = Builder::new();
        let (m, _, entry, exit) = b.func("main", &[], Some(IntType::INT));
        let x = b.var("x", IntType::INT, Scope::Local(m), 0);
        let at = b.chain(
            m,
            entry,
            vec![(
                Operation::Nondet {
                    lhs: Some(x),
                    ty: IntType::INT,
                    function: "__VERIFIER_nondet_int".into(),
                },
                1,
            )],
        );
        let cond = Expr::binary(BinaryOp::Gt, v(x, IntType::INT), Expr::int(0), IntType::INT);
        let at = b.chain(m, at, vec![(Operation::Assume { cond, branch: true }, 9)]);
        b.edge(at, exit, ret(v(x, IntType::INT)), 10);
        let p = b.finish();
        let r = run(&p, &[0]);
        assert_eq!(r.ending, Ending::AssumptionViolated { line: 9 });
        assert_eq!(r.ending.to_string(), "assumption violated at line 9");
        assert_eq!(run(&p, &[7]).ending, Ending::Returned { value: Some(7) });
    }

    /// `abort()` and `exit(3 * x)`.
    #[test]
    fn abort_and_exit() {
        let mut b = Builder::new();
        let (m, _, entry, _exit) = b.func("main", &[], Some(IntType::INT));
        let x = b.var("x", IntType::INT, Scope::Local(m), 0);
        let at = b.chain(
            m,
            entry,
            vec![(
                Operation::Nondet {
                    lhs: Some(x),
                    ty: IntType::INT,
                    function: "__VERIFIER_nondet_int".into(),
                },
                1,
            )],
        );
        let cond = v(x, IntType::INT);
        let t1 = b.loc(m, LocationKind::Normal);
        let t2 = b.loc(m, LocationKind::Normal);
        b.edge(
            at,
            t1,
            Operation::Assume {
                cond: cond.clone(),
                branch: true,
            },
            2,
        );
        b.edge(at, t2, Operation::Assume { cond, branch: false }, 2);
        let term = b.loc(m, LocationKind::Terminal);
        b.edge(
            t1,
            term,
            Operation::Abort {
                function: "abort".into(),
            },
            5,
        );
        let code = Expr::binary(BinaryOp::Mul, Expr::int(3), v(x, IntType::INT), IntType::INT);
        let term2 = b.loc(m, LocationKind::Terminal);
        b.edge(t2, term2, Operation::Exit { code }, 6);
        let p = b.finish();
        let r = run(&p, &[1]);
        assert_eq!(r.ending, Ending::Aborted { line: 5 });
        assert_eq!(r.ending.to_string(), "aborted at line 5");
        let r = run(&p, &[]);
        assert_eq!(r.ending, Ending::Exited { code: 0 });
        assert_eq!(r.ending.to_string(), "exit(0)");
    }

    /// `while (1) {}` hits the step limit.
    #[test]
    fn step_limit() {
        let mut b = Builder::new();
        let (_, _, entry, _) = b.func("main", &[], Some(IntType::INT));
        b.edge(entry, entry, Operation::Skip, 1);
        let p = b.finish();
        let r = execute(
            &p,
            &[],
            &ExecOptions {
                max_steps: 100,
                record_path: false,
            },
        );
        assert_eq!(r.ending, Ending::StepLimit);
        assert_eq!(r.steps, 100);
        assert!(r.path.is_empty());
    }

    /// `return 1 / x;` with x = 0, and `INT_MIN / -1`, and `1 << 32`.
    #[test]
    fn undefined_behaviour_is_reported() {
        for (a, op, line, what) in [
            (1, BinaryOp::Div, 4, UndefinedBehavior::DivisionByZero),
            (
                i128::from(i32::MIN),
                BinaryOp::Rem,
                5,
                UndefinedBehavior::DivisionOverflow,
            ),
            (1, BinaryOp::Shl, 6, UndefinedBehavior::ShiftOutOfRange),
            (
                i128::from(i32::MAX),
                BinaryOp::Add,
                7,
                UndefinedBehavior::SignedOverflow,
            ),
        ] {
            let mut b = Builder::new();
            let (m, _, entry, exit) = b.func("main", &[], Some(IntType::INT));
            let x = b.var("x", IntType::INT, Scope::Local(m), 0);
            let at = b.chain(
                m,
                entry,
                vec![(
                    Operation::Nondet {
                        lhs: Some(x),
                        ty: IntType::INT,
                        function: "__VERIFIER_nondet_int".into(),
                    },
                    1,
                )],
            );
            let e = Expr::binary(op, Expr::int(a), v(x, IntType::INT), IntType::INT);
            b.edge(at, exit, ret(e), line);
            let p = b.finish();
            let input = match what {
                UndefinedBehavior::DivisionByZero => 0,
                UndefinedBehavior::DivisionOverflow => -1,
                UndefinedBehavior::ShiftOutOfRange => 32,
                UndefinedBehavior::SignedOverflow => 1,
                UndefinedBehavior::ArrayIndexOutOfBounds
                | UndefinedBehavior::ArraySizeNotPositive
                | UndefinedBehavior::FloatConversionOutOfRange
                | UndefinedBehavior::IntegerOperatorOnFloat
                | UndefinedBehavior::NullDereference
                | UndefinedBehavior::InvalidPointer
                | UndefinedBehavior::PointerOutOfBounds
                | UndefinedBehavior::DanglingPointer
                | UndefinedBehavior::DoubleFree
                | UndefinedBehavior::InvalidFree
                | UndefinedBehavior::UninitializedRead
                | UndefinedBehavior::InvalidFunctionCall
                | UndefinedBehavior::FunctionAccess
                | UndefinedBehavior::StringLiteralWrite
                | UndefinedBehavior::OverlappingCopy => {
                    unreachable!("not an integer operator's undefined behaviour")
                }
            };
            let r = run(&p, &[input]);
            assert_eq!(r.ending, Ending::UndefinedBehavior { what, line });
            assert_eq!(r.steps, 2, "the faulting edge counts and ends the path");
            assert_eq!(r.path.len(), 2);
            // Wrap-around semantics makes only signed overflow defined.
            let mut p = p;
            p.signed_overflow = crate::cfa::semantics::SignedOverflow::Wrap;
            let r = run(&p, &[input]);
            if what == UndefinedBehavior::SignedOverflow {
                let min = i128::from(i32::MIN);
                assert_eq!(r.ending, Ending::Returned { value: Some(min) });
            } else {
                assert_eq!(r.ending, Ending::UndefinedBehavior { what, line });
            }
        }
        let mut b = Builder::new();
        let (m, _, entry, exit) = b.func("main", &[], Some(IntType::INT));
        let x = b.var("x", IntType::INT, Scope::Local(m), 0);
        let e = Expr::binary(BinaryOp::Div, Expr::int(1), v(x, IntType::INT), IntType::INT);
        b.edge(entry, exit, ret(e), 4);
        let r = run(&b.finish(), &[]);
        assert_eq!(
            r.ending.to_string(),
            "undefined behaviour: division by zero at line 4"
        );
    }

    /// `if (1 / x)` with x = 0: the assume edge that faults counts and ends the path.
    #[test]
    fn undefined_behaviour_in_a_branch_condition() {
        let mut b = Builder::new();
        let (m, _, entry, exit) = b.func("main", &[], Some(IntType::INT));
        let x = b.var("x", IntType::INT, Scope::Local(m), 0);
        let at = b.chain(m, entry, vec![(Operation::Declare { var: x, init: None }, 1)]);
        let cond = Expr::binary(BinaryOp::Div, Expr::int(1), v(x, IntType::INT), IntType::INT);
        let then = b.loc(m, LocationKind::Normal);
        let fault = b.edge(
            at,
            then,
            Operation::Assume {
                cond: cond.clone(),
                branch: true,
            },
            3,
        );
        b.edge(at, exit, Operation::Assume { cond, branch: false }, 3);
        b.edge(then, exit, ret(Expr::int(1)), 4);
        let r = run(&b.finish(), &[]);
        assert_eq!(
            r.ending,
            Ending::UndefinedBehavior {
                what: UndefinedBehavior::DivisionByZero,
                line: 3
            }
        );
        assert_eq!(r.steps, 2);
        assert_eq!(r.path, vec![EdgeId(0), fault]);
    }

    /// `signed char f(short a, unsigned b) { return a + b; }`
    /// `int main() { int r = f(nondet, 300); return r; }`: arguments convert to the parameter
    /// types, the return value to the return type, the result to the caller's variable.
    #[test]
    fn calls_convert_arguments_and_results() {
        let mut b = Builder::new();
        let (m, _, m_entry, m_exit) = b.func("main", &[], Some(IntType::INT));
        let (f, fp, f_entry, f_exit) = b.func("f", &[IntType::SHORT, IntType::UINT], Some(IntType::CHAR));
        let r = b.var("r", IntType::INT, Scope::Local(m), 0);
        let x = b.var("x", IntType::INT, Scope::Local(m), 0);
        // f: return (signed char)((unsigned)a + b);
        let sum = Expr::binary(
            BinaryOp::Add,
            v(fp[0], IntType::SHORT).cast(IntType::UINT),
            v(fp[1], IntType::UINT),
            IntType::UINT,
        );
        b.edge(f_entry, f_exit, ret(sum.cast(IntType::CHAR)), 20);
        let at = b.chain(
            m,
            m_entry,
            vec![
                (
                    Operation::Nondet {
                        lhs: Some(x),
                        ty: IntType::INT,
                        function: "__VERIFIER_nondet_int".into(),
                    },
                    1,
                ),
                (
                    Operation::Call {
                        callee: f,
                        // The int argument is handed over unconverted on purpose: the
                        // interpreter converts it to `short` when assigning the parameter.
                        args: vec![v(x, IntType::INT), Expr::int(300).cast(IntType::UINT)],
                        result: Some(r),
                    },
                    2,
                ),
            ],
        );
        b.edge(at, m_exit, ret(v(r, IntType::INT)), 3);
        let p = b.finish();
        let mut steps = Vec::new();
        let e = execute_observed(&p, &[65536 + 10], &ExecOptions::default(), &mut |s| {
            steps.push(s.clone())
        });
        // a = (short)65546 = 10; 10 + 300 = 310; (signed char)310 = 54.
        assert_eq!(e.ending, Ending::Returned { value: Some(54) });
        assert_eq!(e.steps, 4);
        assert!(steps.contains(&Step::Edge {
            edge: EdgeId(2),
            writes: vec![(fp[0], 10), (fp[1], 300)]
        }));
        assert!(steps.contains(&Step::ReturnToCaller {
            callee: f,
            writes: vec![(r, 54)]
        }));
        // (signed char)(-20 + 300) = 280 - 256 = 24
        assert_eq!(run(&p, &[-20]).ending, Ending::Returned { value: Some(24) });
    }

    /// Declarations without initialiser set 0; with one they assign.
    #[test]
    fn declarations() {
        let mut b = Builder::new();
        let (m, _, entry, exit) = b.func("main", &[], Some(IntType::INT));
        let x = b.var("x", IntType::INT, Scope::Local(m), 0);
        let y = b.var("y", IntType::INT, Scope::Local(m), 0);
        let at = b.chain(
            m,
            entry,
            vec![
                (
                    Operation::Assign {
                        lhs: x,
                        rhs: Expr::int(5),
                    },
                    1,
                ),
                (Operation::Declare { var: x, init: None }, 2),
                (
                    Operation::Declare {
                        var: y,
                        init: Some(Expr::int(7)),
                    },
                    3,
                ),
            ],
        );
        let sum = Expr::binary(
            BinaryOp::Add,
            v(x, IntType::INT),
            v(y, IntType::INT),
            IntType::INT,
        );
        b.edge(at, exit, ret(sum), 4);
        assert_eq!(run(&b.finish(), &[]).ending, Ending::Returned { value: Some(7) });
    }

    #[test]
    fn stuck_and_invalid_programs() {
        let mut b = Builder::new();
        let (m, _, entry, _) = b.func("main", &[], Some(IntType::INT));
        b.chain(m, entry, vec![(Operation::Skip, 3)]);
        let r = run(&b.finish(), &[]);
        assert_eq!(
            r.ending,
            Ending::Stuck {
                location: LocId(2),
                line: 3
            }
        );

        // A call with the wrong number of arguments.
        let mut b = Builder::new();
        let (m, _, entry, exit) = b.func("main", &[], Some(IntType::INT));
        let (f, _, fe, fx) = b.func("f", &[IntType::INT], None);
        b.edge(fe, fx, Operation::Return { value: None }, 1);
        let at = b.chain(
            m,
            entry,
            vec![(
                Operation::Call {
                    callee: f,
                    args: vec![],
                    result: None,
                },
                2,
            )],
        );
        b.edge(at, exit, ret(Expr::int(0)), 3);
        let r = run(&b.finish(), &[]);
        assert!(
            matches!(&r.ending, Ending::InvalidProgram { reason } if reason.contains("0 arguments")),
            "{:?}",
            r.ending
        );

        // Unbounded recursion ends at the call-depth limit, not on Rust's stack.
        let mut b = Builder::new();
        let (m, _, entry, exit) = b.func("main", &[], Some(IntType::INT));
        let at = b.chain(
            m,
            entry,
            vec![(
                Operation::Call {
                    callee: m,
                    args: vec![],
                    result: None,
                },
                2,
            )],
        );
        b.edge(at, exit, ret(Expr::int(0)), 3);
        let r = execute(&b.finish(), &[], &ExecOptions::default());
        assert_eq!(r.ending, Ending::CallDepthLimit { line: 2 });
        assert_eq!(r.steps, MAX_CALL_DEPTH as u64 + 1);

        // A deserialised program without its index.
        let mut b = Builder::new();
        let (_, _, entry, exit) = b.func("main", &[], Some(IntType::INT));
        b.edge(entry, exit, ret(Expr::int(0)), 1);
        let mut p = b.finish();
        p.out_edges.clear();
        assert!(matches!(run(&p, &[]).ending, Ending::InvalidProgram { .. }));
        p.reindex();
        assert_eq!(run(&p, &[]).ending, Ending::Returned { value: Some(0) });
    }

    /// With two passable edges the first is taken.
    #[test]
    fn first_passable_edge_wins() {
        let mut b = Builder::new();
        let (m, _, entry, exit) = b.func("main", &[], Some(IntType::INT));
        let a = b.loc(m, LocationKind::Normal);
        let c = b.loc(m, LocationKind::Normal);
        let t = Expr::int(1);
        b.edge(
            entry,
            a,
            Operation::Assume {
                cond: t.clone(),
                branch: true,
            },
            1,
        );
        b.edge(
            entry,
            c,
            Operation::Assume {
                cond: t,
                branch: true,
            },
            1,
        );
        b.edge(a, exit, ret(Expr::int(1)), 2);
        b.edge(c, exit, ret(Expr::int(2)), 3);
        assert_eq!(run(&b.finish(), &[]).ending, Ending::Returned { value: Some(1) });
    }
}
