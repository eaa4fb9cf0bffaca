//! The control-flow automaton (CFA): Baton's one program representation.
//!
//! A [`Program`] holds one CFA per function. Locations are nodes; each [`Edge`] carries exactly
//! one [`Operation`] and the source position it came from. Calls are single edges from the call
//! site to the return site in the caller (the callee's body is entered by whoever executes the
//! call, with a call stack); returns are edges into the callee's exit location. Analyses, the
//! reducer, the C emitter and the concrete interpreter all work on this structure.
//!
//! Each local variable is a program-wide [`Variable`] with a unique id, and a state is a map over
//! [`VarId`]s. A recursive function ([`Program::recursive_functions`]) may have several active
//! frames: whoever executes a call of it saves the callee's locals and restores them on return.
//! Arrays are variables too ([`memory`]): they are read and written only by `Load` and `Store`
//! edges, so expressions stay scalar.

pub mod address;
pub mod bytes;
pub mod cells;
pub mod dot;
pub mod effects;
pub mod emit_c;
pub mod expr;
pub mod float;
pub mod heap;
pub mod interpreter;
pub mod library;
pub mod memory;
pub mod semantics;
pub mod types;

use expr::Expr;
use library::LibFunction;
use memory::ArrayShape;
use semantics::SignedOverflow;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;
use types::{DataModel, IntType};

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub struct $name(pub u32);

        impl $name {
            /// The index into the owning vector.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A variable (global, parameter, local or frontend temporary).
    VarId
);
id_type!(
    /// A CFA location.
    LocId
);
id_type!(
    /// A CFA edge; stable for a given program text, so conditions can name edges.
    EdgeId
);
id_type!(
    /// A function.
    FuncId
);

/// Where a variable lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scope {
    Global,
    Local(FuncId),
}

/// A program variable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variable {
    /// Unique name in the program (locals are qualified, e.g. `main::i`, shadowed ones numbered).
    pub name: String,
    /// The name in the C source.
    pub source_name: String,
    /// The type of the variable, or of its elements if it is an array.
    pub ty: IntType,
    pub scope: Scope,
    /// The dimensions if the variable is an array (see [`memory`]).
    #[serde(default)]
    pub array: Option<ArrayShape>,
    /// Static initial value of a global (0 when the source gives none).
    pub initial: i128,
    /// The variable's address, if the program takes it (see [`address`]).
    #[serde(default)]
    pub address: Option<u64>,
    /// True for variables the frontend introduced (temporaries for calls, `&&`, `?:`, …).
    pub temporary: bool,
    /// True for the array of a string literal: writing it is undefined behaviour, and the C
    /// emitter writes the literal (C11 6.4.5).
    #[serde(default)]
    pub read_only: bool,
}

/// A position in a source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct SourceLoc {
    /// Index into [`Program::files`].
    pub file: u32,
    pub line: u32,
    pub column: u32,
}

/// What kind of node a location is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LocationKind {
    Normal,
    /// Reached by calling the error function: the property is violated here.
    Error,
    /// A function's exit location (every `return` leads here).
    FunctionExit,
    /// The program ends here (`abort()`, `exit()`, a failed `__VERIFIER_assume` never gets here).
    Terminal,
}

/// A CFA location.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    pub func: FuncId,
    pub kind: LocationKind,
    /// True if some loop of the function enters here (target of a DFS back edge).
    pub loop_head: bool,
    /// The C label at this location, if any.
    pub label: Option<String>,
}

/// The operation of one edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Operation {
    /// No effect (joins, empty statements, `goto`).
    Skip,
    /// A local declaration; without initialiser the variable's value is indeterminate. For an
    /// array this creates the array (its variable extents read now) and `init`, if given,
    /// is the value of every element.
    Declare { var: VarId, init: Option<Expr> },
    /// `lhs = array[index...]`: one index per dimension of `array`.
    Load {
        lhs: VarId,
        array: VarId,
        index: Vec<Expr>,
    },
    /// `array[index...] = rhs` (the rhs already converted to the element type).
    Store {
        array: VarId,
        index: Vec<Expr>,
        rhs: Expr,
    },
    /// `lhs = *(T *)address`, `T` the type of `lhs`: a read through a pointer (see
    /// [`address`]).
    LoadPtr { lhs: VarId, address: Expr },
    /// `*(T *)address = rhs`, `T` the type of `rhs`: a write through a pointer.
    StorePtr { address: Expr, rhs: Expr },
    /// `lhs` gets the address of a fresh heap block of `size` bytes (`size` of type
    /// `size_t`); the allocation never fails.
    Alloc { lhs: VarId, kind: AllocKind, size: Expr },
    /// `free(address)`.
    Free { address: Expr },
    /// `lhs = rhs` (the rhs already converted to the variable's type).
    Assign { lhs: VarId, rhs: Expr },
    /// `lhs = __VERIFIER_nondet_<ty>()`: an input; `function` is the called name, kept for
    /// C emission and witnesses.
    Nondet {
        lhs: Option<VarId>,
        ty: IntType,
        function: String,
    },
    /// A call of a C library function Baton models ([`library`]); `args` are converted to
    /// its parameter types, `result` (if used) has its return type.
    Library {
        function: LibFunction,
        args: Vec<Expr>,
        result: Option<VarId>,
    },
    /// A call of a function without a body that writes no memory Baton models (the frontend
    /// rejects the others): an output function, or one whose arguments are all values. Its
    /// result, if used, is a value Baton does not know and cannot choose — not an input: a
    /// run that stores one ends as unmodelled. `args` are the scalar arguments, kept for C
    /// emission.
    External {
        function: String,
        args: Vec<Expr>,
        result: Option<VarId>,
    },
    /// Passable only when `(cond != 0) == branch`.
    Assume { cond: Expr, branch: bool },
    /// Call of a function with a body; `to` is the return site in the caller.
    Call {
        callee: FuncId,
        args: Vec<Expr>,
        result: Option<VarId>,
    },
    /// `return value;` into the function's exit location.
    Return { value: Option<Expr> },
    /// A call of `reach_error()` / `__VERIFIER_error()`: leads to an error location.
    Error { function: String },
    /// `abort()` (also `__assert_fail`): the path ends, not an error.
    Abort { function: String },
    /// `exit(code)`: the path ends, not an error.
    Exit { code: Expr },
    /// The path has undefined behaviour here (`what`) and ends, never an error: it leads to
    /// a [`LocationKind::Terminal`] location. Built for the case of a call through a
    /// function pointer that matches no function.
    Undefined { what: semantics::UndefinedBehavior },
}

/// How a heap block is made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AllocKind {
    /// `malloc`: contents indeterminate.
    Malloc,
    /// `calloc`: every byte zero.
    Calloc,
    /// `alloca`: contents indeterminate, freed when the calling function returns.
    Alloca,
    /// The storage of a named local object that lives in memory (a struct whose address is
    /// taken, say): as `alloca`, but reading a member never written is no undefined behaviour
    /// — like an uninitialised local, it reads 0 on the interpreter and any value in the
    /// analyses.
    Automatic,
    /// `realloc(from, size)`: the block at `from` (a null `from` is `malloc`) moves to a new
    /// block of `size` bytes, keeping what fits.
    Realloc { from: Expr },
}

impl AllocKind {
    /// The C function.
    pub fn function(&self) -> &'static str {
        match self {
            AllocKind::Malloc => "malloc",
            AllocKind::Calloc => "calloc",
            AllocKind::Alloca | AllocKind::Automatic => "alloca",
            AllocKind::Realloc { .. } => "realloc",
        }
    }
}

impl Operation {
    /// True for an assume edge.
    pub fn is_assume(&self) -> bool {
        matches!(self, Operation::Assume { .. })
    }

    /// Calls `f` on every expression of the operation.
    pub fn for_each_expr(&self, f: &mut impl FnMut(&Expr)) {
        match self {
            Operation::Load { index, .. } => index.iter().for_each(&mut *f),
            Operation::Store { index, rhs, .. } => {
                index.iter().for_each(&mut *f);
                f(rhs);
            }
            Operation::StorePtr { address, rhs } => {
                f(address);
                f(rhs);
            }
            Operation::Alloc { kind, size, .. } => {
                if let AllocKind::Realloc { from } = kind {
                    f(from);
                }
                f(size);
            }
            Operation::Call { args, .. }
            | Operation::Library { args, .. }
            | Operation::External { args, .. } => args.iter().for_each(f),
            Operation::LoadPtr { address: e, .. }
            | Operation::Free { address: e }
            | Operation::Declare { init: Some(e), .. }
            | Operation::Assign { rhs: e, .. }
            | Operation::Assume { cond: e, .. }
            | Operation::Return { value: Some(e) }
            | Operation::Exit { code: e } => f(e),
            Operation::Skip
            | Operation::Declare { init: None, .. }
            | Operation::Nondet { .. }
            | Operation::Return { value: None }
            | Operation::Error { .. }
            | Operation::Abort { .. }
            | Operation::Undefined { .. } => {}
        }
    }

    /// Calls `f` on every variable the operation reads or writes.
    pub fn for_each_var(&self, f: &mut impl FnMut(VarId)) {
        if let Some(v) = self.written_var() {
            f(v);
        }
        self.for_each_read(f);
    }

    /// True if the operation reads or writes array elements or memory through a pointer, or
    /// creates an array or a heap block.
    pub fn touches_memory(&self, program: &Program) -> bool {
        match self {
            Operation::Load { .. }
            | Operation::Store { .. }
            | Operation::LoadPtr { .. }
            | Operation::StorePtr { .. }
            | Operation::Alloc { .. }
            | Operation::Free { .. }
            | Operation::Library { .. } => true,
            Operation::Declare { var, .. } => program.variable(*var).array.is_some(),
            _ => false,
        }
    }

    /// True for an operation on memory through a pointer ([`address`]): what it reads or
    /// writes is not named by variables.
    pub fn is_pointer_access(&self) -> bool {
        matches!(
            self,
            Operation::LoadPtr { .. }
                | Operation::StorePtr { .. }
                | Operation::Alloc { .. }
                | Operation::Free { .. }
                | Operation::Library { .. }
        )
    }

    /// Calls `f` on every variable the operation reads. An array that is loaded from or
    /// stored into counts as read (a store changes only part of it). Variables read or
    /// written through pointers are not named (see [`Operation::is_pointer_access`]).
    pub fn for_each_read(&self, f: &mut impl FnMut(VarId)) {
        if let Operation::Load { array, .. } | Operation::Store { array, .. } = self {
            f(*array);
        }
        self.for_each_expr(&mut |e| e.for_each_var(f));
    }

    /// The operation with every variable it names, `v`, replaced by `f(v)` (see
    /// [`Expr::rename_vars`]; a callee's parameters are not named by a call).
    pub fn rename_vars(&self, f: &impl Fn(VarId) -> VarId) -> Operation {
        let e = |x: &Expr| x.rename_vars(f);
        let all = |xs: &[Expr]| xs.iter().map(e).collect::<Vec<_>>();
        match self {
            Operation::Declare { var, init } => Operation::Declare {
                var: f(*var),
                init: init.as_ref().map(e),
            },
            Operation::Load { lhs, array, index } => Operation::Load {
                lhs: f(*lhs),
                array: f(*array),
                index: all(index),
            },
            Operation::Store { array, index, rhs } => Operation::Store {
                array: f(*array),
                index: all(index),
                rhs: e(rhs),
            },
            Operation::LoadPtr { lhs, address } => Operation::LoadPtr {
                lhs: f(*lhs),
                address: e(address),
            },
            Operation::StorePtr { address, rhs } => Operation::StorePtr {
                address: e(address),
                rhs: e(rhs),
            },
            Operation::Alloc { lhs, kind, size } => Operation::Alloc {
                lhs: f(*lhs),
                kind: match kind {
                    AllocKind::Realloc { from } => AllocKind::Realloc { from: e(from) },
                    k => k.clone(),
                },
                size: e(size),
            },
            Operation::Free { address } => Operation::Free { address: e(address) },
            Operation::Assign { lhs, rhs } => Operation::Assign {
                lhs: f(*lhs),
                rhs: e(rhs),
            },
            Operation::Nondet { lhs, ty, function } => Operation::Nondet {
                lhs: lhs.map(f),
                ty: *ty,
                function: function.clone(),
            },
            Operation::Assume { cond, branch } => Operation::Assume {
                cond: e(cond),
                branch: *branch,
            },
            Operation::Call { callee, args, result } => Operation::Call {
                callee: *callee,
                args: all(args),
                result: result.map(f),
            },
            Operation::Library {
                function,
                args,
                result,
            } => Operation::Library {
                function: *function,
                args: all(args),
                result: result.map(f),
            },
            Operation::External {
                function,
                args,
                result,
            } => Operation::External {
                function: function.clone(),
                args: all(args),
                result: result.map(f),
            },
            Operation::Return { value } => Operation::Return {
                value: value.as_ref().map(e),
            },
            Operation::Exit { code } => Operation::Exit { code: e(code) },
            Operation::Skip
            | Operation::Error { .. }
            | Operation::Abort { .. }
            | Operation::Undefined { .. } => self.clone(),
        }
    }

    /// The variable the operation writes as a whole, if any (not counting callee parameters;
    /// a `Store` changes one element, not its whole array).
    pub fn written_var(&self) -> Option<VarId> {
        match self {
            Operation::Declare { var, .. } => Some(*var),
            Operation::Load { lhs, .. } => Some(*lhs),
            Operation::LoadPtr { lhs, .. } | Operation::Alloc { lhs, .. } => Some(*lhs),
            Operation::Assign { lhs, .. } => Some(*lhs),
            Operation::Nondet { lhs, .. } => *lhs,
            Operation::Call { result, .. }
            | Operation::Library { result, .. }
            | Operation::External { result, .. } => *result,
            _ => None,
        }
    }
}

/// A CFA edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    pub from: LocId,
    pub to: LocId,
    pub op: Operation,
    pub source: SourceLoc,
}

/// A function's CFA.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Function {
    pub name: String,
    pub params: Vec<VarId>,
    /// `None` for `void` functions.
    pub return_type: Option<IntType>,
    /// The variable a `return` writes (read by the caller on return).
    pub return_var: Option<VarId>,
    pub entry: LocId,
    pub exit: LocId,
    /// Every location of the function, entry first.
    pub locations: Vec<LocId>,
    pub source: SourceLoc,
}

/// A whole program as CFAs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Program {
    /// Source files referenced by [`SourceLoc::file`]; the first is the program file.
    pub files: Vec<String>,
    /// SHA-256 (hex) of the program file's bytes: conditions are bound to it.
    pub hash: String,
    pub data_model: DataModel,
    /// What signed overflow means for this program's analyses and runs (default: undefined
    /// behaviour, paths through it are excluded). Like the data model, the interpreter and
    /// every analysis read it from here, so they cannot disagree.
    #[serde(default)]
    pub signed_overflow: SignedOverflow,
    pub variables: Vec<Variable>,
    /// Flattened structs whose leaves are laid out as one object (see [`address`]).
    #[serde(default)]
    pub record_objects: Vec<address::RecordObject>,
    pub functions: Vec<Function>,
    pub locations: Vec<Location>,
    pub edges: Vec<Edge>,
    /// The function where execution starts (`main`).
    pub entry_function: FuncId,
    /// Outgoing edges per location (derived; built by [`Program::finish`]).
    #[serde(skip)]
    pub(crate) out_edges: Vec<Vec<EdgeId>>,
    /// Incoming edges per location (derived; built by [`Program::finish`]).
    #[serde(skip)]
    pub(crate) in_edges: Vec<Vec<EdgeId>>,
}

impl Program {
    /// Computes the adjacency indices and loop heads; call once after building the parts.
    pub fn finish(mut self) -> Program {
        self.index();
        self.mark_loop_heads();
        self
    }

    fn index(&mut self) {
        self.out_edges = vec![Vec::new(); self.locations.len()];
        self.in_edges = vec![Vec::new(); self.locations.len()];
        for (i, e) in self.edges.iter().enumerate() {
            let id = EdgeId(i as u32);
            self.out_edges[e.from.index()].push(id);
            self.in_edges[e.to.index()].push(id);
        }
    }

    /// Marks targets of DFS back edges (per function, from its entry) as loop heads.
    fn mark_loop_heads(&mut self) {
        let n = self.locations.len();
        // 0 = unvisited, 1 = on stack, 2 = done
        let mut color = vec![0u8; n];
        let mut heads = vec![false; n];
        for f in &self.functions {
            let mut stack: Vec<(LocId, usize)> = vec![(f.entry, 0)];
            color[f.entry.index()] = 1;
            while let Some((loc, next)) = stack.last_mut() {
                let loc = *loc;
                if let Some(&edge) = self.out_edges[loc.index()].get(*next) {
                    *next += 1;
                    let to = self.edges[edge.index()].to;
                    match color[to.index()] {
                        0 => {
                            color[to.index()] = 1;
                            stack.push((to, 0));
                        }
                        1 => heads[to.index()] = true,
                        _ => {}
                    }
                } else {
                    color[loc.index()] = 2;
                    stack.pop();
                }
            }
        }
        for (loc, head) in self.locations.iter_mut().zip(heads) {
            loc.loop_head = head;
        }
    }

    /// Rebuilds the derived indices after deserialisation.
    pub fn reindex(&mut self) {
        self.index();
    }

    pub fn edge(&self, id: EdgeId) -> &Edge {
        &self.edges[id.index()]
    }

    pub fn location(&self, id: LocId) -> &Location {
        &self.locations[id.index()]
    }

    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.index()]
    }

    pub fn variable(&self, id: VarId) -> &Variable {
        &self.variables[id.index()]
    }

    /// The edges leaving `loc`.
    pub fn out_edges(&self, loc: LocId) -> &[EdgeId] {
        &self.out_edges[loc.index()]
    }

    /// The edges entering `loc`.
    pub fn in_edges(&self, loc: LocId) -> &[EdgeId] {
        &self.in_edges[loc.index()]
    }

    /// The function where execution starts.
    pub fn main(&self) -> &Function {
        self.function(self.entry_function)
    }

    /// Per function (indexed by [`FuncId`]): whether it can call itself, directly or through
    /// others (it lies on a cycle of the call graph). Such a function may have several active
    /// frames, so its locals need saving across a call of it.
    pub fn recursive_functions(&self) -> Vec<bool> {
        let n = self.functions.len();
        let mut callees: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
        for edge in &self.edges {
            if let Operation::Call { callee, .. } = &edge.op {
                let caller = self.location(edge.from).func.index();
                if caller < n && callee.index() < n {
                    callees[caller].insert(callee.index());
                }
            }
        }
        (0..n)
            .map(|f| {
                let mut seen = vec![false; n];
                let mut work: Vec<usize> = callees[f].iter().copied().collect();
                while let Some(g) = work.pop() {
                    if g == f {
                        return true;
                    }
                    if !std::mem::replace(&mut seen[g], true) {
                        work.extend(callees[g].iter().copied());
                    }
                }
                false
            })
            .collect()
    }

    /// True if some function can call itself, directly or through others.
    pub fn has_recursion(&self) -> bool {
        self.recursive_functions().contains(&true)
    }

    /// Looks a function up by name.
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| FuncId(i as u32))
    }

    /// Iterates over edge ids.
    pub fn edge_ids(&self) -> impl Iterator<Item = EdgeId> {
        (0..self.edges.len() as u32).map(EdgeId)
    }

    /// Iterates over location ids.
    pub fn location_ids(&self) -> impl Iterator<Item = LocId> {
        (0..self.locations.len() as u32).map(LocId)
    }

    /// The global variables.
    pub fn globals(&self) -> impl Iterator<Item = (VarId, &Variable)> {
        self.variables
            .iter()
            .enumerate()
            .filter(|(_, v)| v.scope == Scope::Global)
            .map(|(i, v)| (VarId(i as u32), v))
    }

    /// The variables whose address the program takes (see [`address`]).
    pub fn address_taken(&self) -> impl Iterator<Item = VarId> + '_ {
        self.variables
            .iter()
            .enumerate()
            .filter(|(_, v)| v.address.is_some())
            .map(|(i, _)| VarId(i as u32))
    }

    /// `file:line` of a source position.
    pub fn describe(&self, at: SourceLoc) -> String {
        let file = self
            .files
            .get(at.file as usize)
            .map(String::as_str)
            .unwrap_or("?");
        format!("{file}:{}", at.line)
    }

    /// A variable's name with its array dimensions (`main::a[3][main::__baton_tmp1]`).
    pub fn declarator(&self, var: VarId) -> String {
        let v = self.variable(var);
        let dims: String = v
            .array
            .iter()
            .flat_map(|a| &a.dims)
            .map(|d| match d {
                memory::Extent::Fixed(n) => format!("[{n}]"),
                memory::Extent::Var(x) => format!("[{}]", self.variable(*x).name),
            })
            .collect();
        format!("{}{dims}", v.name)
    }

    /// A one-line rendering of an edge's operation with source names of variables.
    pub fn render_operation(&self, op: &Operation) -> String {
        let name = |v: VarId| self.variable(v).name.clone();
        let expr = |e: &Expr| {
            let mut s = String::new();
            e.write_c(&mut s, self.data_model, &name);
            s
        };
        let subscripts =
            |index: &[Expr]| -> String { index.iter().map(|i| format!("[{}]", expr(i))).collect() };
        let call_text = |callee: &str, args: &[Expr], result: &Option<VarId>| {
            let args: Vec<String> = args.iter().map(expr).collect();
            let call = format!("{callee}({})", args.join(", "));
            match result {
                Some(v) => format!("{} = {call};", name(*v)),
                None => format!("{call};"),
            }
        };
        match op {
            Operation::Skip => "skip".into(),
            Operation::Declare { var, init } => {
                let v = self.variable(*var);
                let init = match init {
                    Some(e) if v.array.is_some() => format!(" = {{all {}}}", expr(e)),
                    Some(e) => format!(" = {}", expr(e)),
                    None => String::new(),
                };
                format!(
                    "{} {}{init};",
                    v.ty.c_name(self.data_model),
                    self.declarator(*var)
                )
            }
            Operation::Assign { lhs, rhs } => format!("{} = {};", name(*lhs), expr(rhs)),
            Operation::LoadPtr { lhs, address } => format!("{} = *{};", name(*lhs), expr(address)),
            Operation::StorePtr { address, rhs } => format!("*{} = {};", expr(address), expr(rhs)),
            Operation::Alloc { lhs, kind, size } => {
                let from = match kind {
                    AllocKind::Realloc { from } => format!("{}, ", expr(from)),
                    _ => String::new(),
                };
                format!("{} = {}({from}{});", name(*lhs), kind.function(), expr(size))
            }
            Operation::Free { address } => format!("free({});", expr(address)),
            Operation::Load { lhs, array, index } => {
                format!("{} = {}{};", name(*lhs), name(*array), subscripts(index))
            }
            Operation::Store { array, index, rhs } => {
                format!("{}{} = {};", name(*array), subscripts(index), expr(rhs))
            }
            Operation::Nondet {
                lhs: Some(v),
                function,
                ..
            } => format!("{} = {function}();", name(*v)),
            Operation::Nondet {
                lhs: None, function, ..
            } => format!("{function}();"),
            Operation::Assume { cond, branch } => {
                format!("[{}{}]", if *branch { "" } else { "!" }, expr(cond))
            }
            Operation::Call { callee, args, result } => call_text(&self.function(*callee).name, args, result),
            Operation::Library {
                function,
                args,
                result,
            } => call_text(function.name(), args, result),
            Operation::External {
                function,
                args,
                result,
            } => call_text(function, args, result),
            Operation::Return { value: Some(e) } => format!("return {};", expr(e)),
            Operation::Return { value: None } => "return;".into(),
            Operation::Error { function } | Operation::Abort { function } => {
                format!("{function}();")
            }
            Operation::Exit { code } => format!("exit({});", expr(code)),
            Operation::Undefined { what } => format!("undefined: {what};"),
        }
    }
}

impl fmt::Display for LocId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "N{}", self.0)
    }
}

impl fmt::Display for EdgeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "E{}", self.0)
    }
}
