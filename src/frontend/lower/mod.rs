//! Lowering of the `lang-c` AST into CFAs.
//!
//! Expressions become side-effect-free [`Expr`]s: calls, assignments, increments, `&&`, `||`
//! and `?:` in value context are hoisted into edges (writing temporaries) before the edge that
//! uses their value, in left-to-right order. Conditions of `if`/loops become assume edges with
//! short-circuit structure.
//!
//! Where C leaves the order of evaluation unspecified (operands of one operator, arguments of
//! one call), every hoisted side effect of the expression happens before the pure remainder is
//! evaluated: in `x * 100 + f()` a write of `x` by `f` is seen. gcc may choose differently;
//! programs whose result depends on this have no single C meaning. Constant sub-expressions are
//! folded (never ones with undefined behaviour), and code that cannot be reached from a
//! function's entry (after `return`, after `while (1)` without `break`, ...) is dropped.

mod array;
mod boxed;
mod braced;
mod call;
mod decls;
mod expr;
mod external;
mod function_pointer;
mod memory_union;
mod placed;
mod pointer;
mod record;
mod stmt;
mod strings;
mod union;

use super::lines::LineMap;
use super::nesting::MAX_NESTING;
use super::parse::parse_bounded;
use super::reach::{address_taken, initializer_names, reachable_definitions};
use super::types::{character_constant, float_constant, integer_constant, string_literal, ArrayLen, CType};
use super::{one_line, FrontendError};
use crate::cfa::expr::{BinaryOp, Expr, UnaryOp};
use crate::cfa::semantics;
use crate::cfa::types::{DataModel, IntType};
use crate::cfa::{
    Edge, FuncId, Function, LocId, Location, LocationKind, Operation, Program, Scope, SourceLoc, VarId,
    Variable,
};
use lang_c::ast::{
    BinaryOperator, BlockItem, CallExpression, Constant, Declaration, DeclarationSpecifier, Declarator,
    DeclaratorKind, DerivedDeclarator, Ellipsis, Expression, Extension, ExternalDeclaration, ForInitializer,
    FunctionDefinition, Initializer, Label, SpecifierQualifier, Statement, StorageClassSpecifier, TypeName,
    TypeSpecifier, UnaryOperator,
};
use lang_c::span::Node;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

type Result<T> = std::result::Result<T, FrontendError>;

/// For a value-returning call: the variable the edge writes, the value of the call expression,
/// and a variable to convert the result into afterwards.
type CallDest = (Option<VarId>, Option<Expr>, Option<(VarId, IntType)>);

/// Names with fixed meaning (sv-benchmarks conventions); their definitions are not lowered.
fn is_special(name: &str) -> bool {
    matches!(
        name,
        "reach_error"
            | "__VERIFIER_error"
            | "abort"
            | "exit"
            | "_exit"
            | "_Exit"
            | "__assert_fail"
            | "__assert_perror_fail"
            | "__assert"
            | "__VERIFIER_assume"
            | "assume_abort_if_not"
    ) || name.starts_with("__VERIFIER_nondet_")
}

/// The return type of `__VERIFIER_nondet_<suffix>` when the program does not declare it.
fn nondet_suffix_type(suffix: &str, model: DataModel) -> Option<CType> {
    Some(CType::Int(match suffix {
        "bool" | "_Bool" => IntType::BOOL,
        "char" => IntType::CHAR,
        "uchar" | "unsigned_char" | "u8" => IntType::UCHAR,
        "short" | "s16" => IntType::SHORT,
        "ushort" | "unsigned_short" | "u16" => IntType::USHORT,
        "int" | "s32" => IntType::INT,
        "uint" | "unsigned" | "unsigned_int" | "u32" => IntType::UINT,
        "long" => model.long(),
        "ulong" | "unsigned_long" | "size_t" => model.ulong(),
        "longlong" | "s64" => IntType::LLONG,
        "ulonglong" | "u64" => IntType::ULLONG,
        "float" => IntType::FLOAT,
        "double" => IntType::DOUBLE,
        "long_double" => model.long_double(),
        "pointer" => return Some(CType::pointer_to(CType::Void)),
        _ => return None,
    }))
}

/// An ordinary identifier in scope.
#[derive(Debug, Clone)]
enum Sym {
    Var(VarId, CType),
    /// A named object that lives in memory ([`boxed`]): the pointer variable holding its
    /// address, and its type.
    Boxed(VarId, CType),
    Const(i128),
    Typedef(CType),
    Func,
    /// A file-scope object Baton cannot model (its type or its initializer): declaring it is
    /// fine, using it is `unsupported` at the use. The string says what and where.
    Unmodelled(String),
}

/// What a declared function looks like.
#[derive(Debug, Clone)]
struct FuncInfo {
    ret: CType,
    /// `None` for an unprototyped declaration `f()`.
    params: Option<Vec<(Option<String>, CType)>>,
    variadic: bool,
    /// Set for functions with a body.
    id: Option<FuncId>,
}

/// A function definition's own return type and parameters, or why Baton cannot lower it
/// (reported only if `main` reaches the function).
type Definition = Result<(CType, Vec<(Option<String>, CType)>)>;

/// What `unsupported` says about a function gcc runs before or after `main`.
const RUNS_OUTSIDE_MAIN: &str = "function run before or after main (constructor or destructor attribute)";

/// Whether a function's specifiers or declarator carry `__attribute__((constructor))` or
/// `destructor`: gcc runs such a function although no call to it is reachable from `main`.
fn runs_outside_main(specs: &[Node<DeclarationSpecifier>], d: &Node<Declarator>) -> bool {
    has_attribute(specs, d, &["constructor", "destructor"])
}

/// What `unsupported` says about a local variable whose scope's end calls a function.
const CLEANUP_ATTRIBUTE: &str = "cleanup attribute (a function called when the variable leaves its scope)";

/// Whether a declaration's specifiers or declarator carry one of the attributes `names`
/// (with or without gcc's surrounding underscores).
fn has_attribute(specs: &[Node<DeclarationSpecifier>], d: &Node<Declarator>, names: &[&str]) -> bool {
    let in_specs = specs.iter().flat_map(|s| match &s.node {
        DeclarationSpecifier::Extension(es) => es.as_slice(),
        _ => &[],
    });
    in_specs.chain(&d.node.extensions).any(|e| match &e.node {
        Extension::Attribute(a) => names.contains(&a.name.node.trim_matches('_')),
        _ => false,
    })
}

/// What a declarator declares.
enum Declared {
    Object(CType),
    Function {
        ret: CType,
        params: Option<Vec<(Option<String>, CType)>>,
        variadic: bool,
    },
}

/// A lowered expression value: a pure expression and, for a pointer, its pointee type.
#[derive(Debug, Clone)]
struct Val {
    e: Expr,
    pointee: Option<CType>,
}

/// Where a call's result goes.
#[derive(Clone, Copy)]
enum Dest {
    Discard,
    Temp,
    Var(VarId, IntType),
}

struct SwitchCtx {
    ty: IntType,
    cases: Vec<(i128, LocId)>,
    default: Option<LocId>,
}

/// Per-function lowering state.
struct FnState {
    id: FuncId,
    name: String,
    ret: CType,
    return_var: Option<VarId>,
    exit: LocId,
    cur: Option<LocId>,
    labels: HashMap<String, LocId>,
    defined_labels: HashSet<String>,
    label_uses: Vec<(String, usize)>,
    breaks: Vec<LocId>,
    continues: Vec<LocId>,
    switches: Vec<SwitchCtx>,
    name_counts: HashMap<String, u32>,
    temps: u32,
    /// Index in `scopes` of the parameters (the body's outermost block shares their scope).
    param_scope: usize,
}

struct Lowerer<'a> {
    model: DataModel,
    lines: &'a LineMap,
    files: Vec<String>,
    file_map: HashMap<u32, u32>,
    variables: Vec<Variable>,
    functions: Vec<Function>,
    locations: Vec<Location>,
    edges: Vec<Edge>,
    scopes: Vec<HashMap<String, Sym>>,
    enum_tags: HashMap<String, IntType>,
    /// The unions declared with a tag (see [`union`]).
    union_tags: HashMap<String, CType>,
    /// The structs declared with a tag (see [`record`]).
    struct_tags: HashMap<String, CType>,
    funcs: HashMap<String, FuncInfo>,
    globals: HashMap<String, VarId>,
    extern_only: HashSet<VarId>,
    fs: Option<FnState>,
    /// Byte offset of the construct being lowered (for edge positions and errors).
    pos: usize,
    /// Globals defined with an initializer (a second initializer is a redefinition).
    initialized: HashSet<VarId>,
    /// The functions the program defines (other than those with fixed meaning).
    definitions: HashMap<String, Definition>,
    /// Functions declared with a constructor or destructor attribute.
    run_outside_main: HashSet<String>,
    /// Statements and expressions being lowered, one inside the other (bounded by
    /// [`MAX_NESTING`]).
    depth: usize,
    /// Size expressions of variable-length array types ([`ArrayLen::Variable`]).
    vla_sizes: Vec<Node<Expression>>,
    /// Where the next address-taken variable is placed (see [`crate::cfa::address`]).
    next_address: u64,
    /// The names the program uses as values (not as direct callees): the functions among
    /// them may be called through pointers (see [`function_pointer`]).
    address_taken: BTreeSet<String>,
    /// The names of the functions the program defines.
    defined_functions: HashSet<String>,
    /// The addresses of the functions whose address was taken so far.
    function_addresses: HashMap<String, u64>,
    /// Globals initialized with function addresses, assigned again when `main` starts.
    function_initials: Vec<function_pointer::FunctionInitial>,
    /// The declarations (by source offset) whose objects live in memory ([`boxed`]).
    boxed: BTreeSet<usize>,
    /// Declarations found to need living in memory while lowering (see [`boxed`]).
    box_requests: BTreeSet<usize>,
    /// The source offset of the declaration of each struct, array of structs or array
    /// (by its first variable), so that a use can ask for it to live in memory.
    declared_at: HashMap<VarId, usize>,
    /// File-scope objects living in memory: allocated when `main` starts.
    boxed_globals: Vec<boxed::BoxedGlobal>,
    /// Flattened structs whose leaves are laid out as one object ([`placed`]).
    record_objects: Vec<crate::cfa::address::RecordObject>,
    /// The array of each string literal used as a value, by its source offset ([`strings`]).
    strings: HashMap<usize, VarId>,
}

/// Parses preprocessed C and lowers it into a finished [`Program`]. A named object found to
/// need living in memory ([`boxed`]) makes the lowering start again with it boxed.
pub(crate) fn lower(name: &str, preprocessed: &str, model: DataModel, hash: String) -> Result<Program> {
    let lines = LineMap::new(preprocessed, name);
    let parse = parse_bounded(preprocessed, &lines)?;
    let mut boxed = BTreeSet::new();
    loop {
        let (result, requests) = lower_with(name, &parse.unit, &lines, model, hash.clone(), &boxed);
        if requests.is_subset(&boxed) {
            return result;
        }
        boxed.extend(requests);
    }
}

/// One lowering of the translation unit with the objects declared at `boxed` in memory; gives
/// the declarations it found to need living in memory too.
fn lower_with(
    name: &str,
    unit: &lang_c::ast::TranslationUnit,
    lines: &LineMap,
    model: DataModel,
    hash: String,
    boxed: &BTreeSet<usize>,
) -> (Result<Program>, BTreeSet<usize>) {
    let mut l = Lowerer {
        model,
        lines,
        files: vec![name.to_string()],
        file_map: HashMap::from([(0, 0)]),
        variables: Vec::new(),
        functions: Vec::new(),
        locations: Vec::new(),
        edges: Vec::new(),
        // gcc's built-in type behind `va_list` (`<stdarg.h>`, `<stdio.h>`).
        scopes: vec![HashMap::from([(
            "__builtin_va_list".to_string(),
            Sym::Typedef(CType::Unsupported("va_list".into())),
        )])],
        enum_tags: HashMap::new(),
        union_tags: HashMap::new(),
        struct_tags: HashMap::new(),
        funcs: HashMap::new(),
        globals: HashMap::new(),
        extern_only: HashSet::new(),
        fs: None,
        pos: 0,
        initialized: HashSet::new(),
        definitions: HashMap::new(),
        run_outside_main: HashSet::new(),
        depth: 0,
        vla_sizes: Vec::new(),
        next_address: crate::cfa::address::STATIC_BASE,
        address_taken: address_taken(unit).into_iter().collect(),
        defined_functions: unit
            .0
            .iter()
            .filter_map(|ext| match &ext.node {
                ExternalDeclaration::FunctionDefinition(fd) => declarator_name(&fd.node.declarator),
                _ => None,
            })
            .collect(),
        function_addresses: HashMap::new(),
        function_initials: Vec::new(),
        boxed: boxed.clone(),
        box_requests: BTreeSet::new(),
        declared_at: HashMap::new(),
        boxed_globals: Vec::new(),
        record_objects: Vec::new(),
        strings: HashMap::new(),
    };
    let result = l.translation_unit(unit, name, hash);
    (result, l.box_requests)
}

impl Lowerer<'_> {
    /// Lowers every declaration and the functions `main` reaches.
    fn translation_unit(
        &mut self,
        unit: &lang_c::ast::TranslationUnit,
        name: &str,
        hash: String,
    ) -> Result<Program> {
        // Pass 1: declarations and function signatures, in order.
        let mut definitions = Vec::new();
        for ext in &unit.0 {
            match &ext.node {
                ExternalDeclaration::Declaration(d) => self.global_declaration(d)?,
                ExternalDeclaration::StaticAssert(_) => {}
                ExternalDeclaration::FunctionDefinition(fd) => {
                    if let Some(name) = self.register_definition(fd)? {
                        definitions.push((name, fd));
                    }
                }
            }
        }
        // Pass 2: the functions `main` reaches, in program order; the others never run.
        let roots = initializer_names(unit);
        let lines = self.lines;
        let reached = reachable_definitions(&definitions, &roots, |offset| lines.pos(offset).file == 0);
        let mut bodies = Vec::new();
        for (i, (name, fd)) in definitions.iter().enumerate() {
            if let Some(&origin) = reached.get(&i) {
                let id = self
                    .define_function(name, fd)
                    .map_err(|e| self.at_program_line(e, origin))?;
                bodies.push((id, fd, origin));
            }
        }
        for (id, fd, origin) in bodies {
            self.function_body(id, fd)
                .map_err(|e| self.at_program_line(e, origin))?;
        }
        self.finish(name, hash)
    }
}

impl<'a> Lowerer<'a> {
    // ----- positions and errors -------------------------------------------------------------

    pub(super) fn src(&mut self, offset: usize) -> SourceLoc {
        let p = self.lines.pos(offset);
        let file = match self.file_map.get(&p.file) {
            Some(f) => *f,
            None => {
                self.files.push(self.lines.file_name(p.file).to_string());
                let f = (self.files.len() - 1) as u32;
                self.file_map.insert(p.file, f);
                f
            }
        };
        SourceLoc {
            file,
            line: p.line,
            column: p.column,
        }
    }

    pub(super) fn unsupported(&self, offset: usize, what: impl Into<String>) -> FrontendError {
        let p = self.lines.pos(offset);
        FrontendError::Unsupported {
            file: self.lines.file_name(p.file).to_string(),
            line: p.line,
            construct: one_line(&what.into()),
        }
    }

    /// An `unsupported` error inside code outside the program's own file (a function a header
    /// defines), named at the line of the program that reached that code (`origin`).
    pub(super) fn at_program_line(&self, e: FrontendError, origin: Option<usize>) -> FrontendError {
        let program = self.lines.file_name(0);
        match (e, origin) {
            (
                FrontendError::Unsupported {
                    file,
                    line,
                    construct,
                },
                Some(at),
            ) if file != program => FrontendError::Unsupported {
                file: program.to_string(),
                line: self.lines.pos(at).line,
                construct: format!("{construct} (at {file}:{line})"),
            },
            (e, _) => e,
        }
    }

    pub(super) fn malformed(&self, offset: usize, what: impl Into<String>) -> FrontendError {
        let p = self.lines.pos(offset);
        FrontendError::Malformed {
            file: self.lines.file_name(p.file).to_string(),
            line: p.line,
            message: one_line(&what.into()),
        }
    }

    // ----- CFA construction -----------------------------------------------------------------

    pub(super) fn fs(&mut self) -> Result<&mut FnState> {
        let pos = self.pos;
        if self.fs.is_none() {
            return Err(self.unsupported(pos, "non-constant initializer"));
        }
        self.fs.as_mut().ok_or_else(|| FrontendError::Program {
            file: String::new(),
            message: "internal: no function".into(),
        })
    }

    pub(super) fn new_loc_in(&mut self, func: FuncId, kind: LocationKind) -> LocId {
        self.locations.push(Location {
            func,
            kind,
            loop_head: false,
            label: None,
        });
        LocId((self.locations.len() - 1) as u32)
    }

    pub(super) fn new_loc(&mut self) -> Result<LocId> {
        self.new_kind(LocationKind::Normal)
    }

    pub(super) fn new_kind(&mut self, kind: LocationKind) -> Result<LocId> {
        let f = self.fs()?.id;
        Ok(self.new_loc_in(f, kind))
    }

    /// The current location; code after a jump gets a fresh (unreachable) location.
    pub(super) fn cur(&mut self) -> Result<LocId> {
        if let Some(c) = self.fs()?.cur {
            return Ok(c);
        }
        let l = self.new_loc()?;
        self.fs()?.cur = Some(l);
        Ok(l)
    }

    pub(super) fn set_cur(&mut self, l: Option<LocId>) -> Result<()> {
        self.fs()?.cur = l;
        Ok(())
    }

    pub(super) fn edge_from(&mut self, from: LocId, op: Operation, to: LocId) {
        let source = self.src(self.pos);
        self.edges.push(Edge { from, to, op, source });
    }

    /// Emits `op` from the current location to a fresh one, which becomes current.
    pub(super) fn emit(&mut self, op: Operation) -> Result<()> {
        let from = self.cur()?;
        let to = self.new_loc()?;
        self.edge_from(from, op, to);
        self.set_cur(Some(to))
    }

    /// Emits `op` from the current location to `to`; afterwards nothing is current.
    pub(super) fn emit_to(&mut self, op: Operation, to: LocId) -> Result<()> {
        let from = self.cur()?;
        self.edge_from(from, op, to);
        self.set_cur(None)
    }

    /// Jumps to `to` if the current point is reachable.
    pub(super) fn goto(&mut self, to: LocId) -> Result<()> {
        if let Some(from) = self.fs()?.cur {
            self.edge_from(from, Operation::Skip, to);
        }
        self.set_cur(None)
    }

    pub(super) fn new_var(&mut self, v: Variable) -> VarId {
        self.variables.push(v);
        VarId((self.variables.len() - 1) as u32)
    }

    pub(super) fn temp(&mut self, ty: IntType) -> Result<VarId> {
        let fs = self.fs()?;
        fs.temps += 1;
        let source_name = format!("__baton_tmp{}", fs.temps);
        let name = format!("{}::{source_name}", fs.name);
        let scope = Scope::Local(fs.id);
        Ok(self.new_var(Variable {
            name,
            source_name,
            ty,
            scope,
            initial: 0,
            temporary: true,
            read_only: false,
            address: None,
            array: None,
        }))
    }

    /// A unique qualified name for a local `x` of the current function.
    pub(super) fn local_name(&mut self, x: &str) -> Result<String> {
        let fs = self.fs()?;
        let n = fs.name_counts.entry(x.to_string()).or_insert(0);
        *n += 1;
        Ok(if *n == 1 {
            format!("{}::{x}", fs.name)
        } else {
            format!("{}::{x}#{n}", fs.name)
        })
    }

    // ----- scopes ---------------------------------------------------------------------------

    pub(super) fn lookup(&self, name: &str) -> Option<&Sym> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    /// Whether `name` is already declared in the innermost block scope (for a function's
    /// outermost block, that includes its parameters, C11 6.2.1:4).
    pub(super) fn declared_in_this_scope(&mut self, name: &str) -> Result<bool> {
        let innermost = self.scopes.len() - 1;
        let param_scope = self.fs()?.param_scope;
        let in_scope = |i: usize| self.scopes.get(i).is_some_and(|s| s.contains_key(name));
        Ok(in_scope(innermost) || (innermost == param_scope + 1 && in_scope(param_scope)))
    }

    pub(super) fn bind(&mut self, name: &str, sym: Sym) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), sym);
        }
    }
}

impl Lowerer<'_> {
    /// Drops unreachable locations, checks for `main`, and builds the program.
    pub(super) fn finish(&mut self, name: &str, hash: String) -> Result<Program> {
        let n = self.locations.len();
        let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, e) in self.edges.iter().enumerate() {
            out[e.from.index()].push(i);
        }
        let mut keep = vec![false; n];
        for f in &self.functions {
            keep[f.exit.index()] = true;
            let mut queue = VecDeque::from([f.entry]);
            keep[f.entry.index()] = true;
            while let Some(l) = queue.pop_front() {
                for &e in &out[l.index()] {
                    let to = self.edges[e].to;
                    if !keep[to.index()] {
                        keep[to.index()] = true;
                        queue.push_back(to);
                    }
                }
            }
        }
        let mut new_id = vec![LocId(u32::MAX); n];
        let mut locations = Vec::new();
        for (i, l) in std::mem::take(&mut self.locations).into_iter().enumerate() {
            if keep[i] {
                new_id[i] = LocId(locations.len() as u32);
                locations.push(l);
            }
        }
        let edges: Vec<Edge> = std::mem::take(&mut self.edges)
            .into_iter()
            .filter(|e| keep[e.from.index()] && keep[e.to.index()])
            .map(|mut e| {
                e.from = new_id[e.from.index()];
                e.to = new_id[e.to.index()];
                e
            })
            .collect();
        let mut functions = std::mem::take(&mut self.functions);
        for (fi, f) in functions.iter_mut().enumerate() {
            f.entry = new_id[f.entry.index()];
            f.exit = new_id[f.exit.index()];
            let mut locs: Vec<LocId> = locations
                .iter()
                .enumerate()
                .filter(|(_, l)| l.func.index() == fi)
                .map(|(i, _)| LocId(i as u32))
                .filter(|l| *l != f.entry)
                .collect();
            locs.insert(0, f.entry);
            f.locations = locs;
        }
        let entry_function = functions
            .iter()
            .position(|f| f.name == "main")
            .map(|i| FuncId(i as u32))
            .ok_or_else(|| FrontendError::Program {
                file: name.to_string(),
                message: "no function `main` defined".into(),
            })?;
        let program = Program {
            files: std::mem::take(&mut self.files),
            hash,
            data_model: self.model,
            signed_overflow: Default::default(),
            variables: std::mem::take(&mut self.variables),
            record_objects: std::mem::take(&mut self.record_objects),
            functions,
            locations,
            edges,
            entry_function,
            out_edges: Vec::new(),
            in_edges: Vec::new(),
        };
        Ok(program.finish())
    }
}

/// The name a declarator declares.
fn declarator_name(d: &Node<Declarator>) -> Option<String> {
    match &d.node.kind.node {
        DeclaratorKind::Identifier(id) => Some(id.node.name.clone()),
        DeclaratorKind::Declarator(inner) => declarator_name(inner),
        DeclaratorKind::Abstract => None,
    }
}

/// Folds an operator node whose operands are constants (never folding undefined behaviour,
/// signed overflow included: that is left to the semantics a run or analysis chooses).
fn fold(e: Expr) -> Expr {
    use crate::cfa::expr::ExprKind;
    let all_const = match &e.kind {
        ExprKind::Unary(_, a) => a.as_const().is_some(),
        ExprKind::Binary(_, a, b) => a.as_const().is_some() && b.as_const().is_some(),
        _ => false,
    };
    if !all_const {
        return e;
    }
    match semantics::eval(&e, &|_| None, semantics::SignedOverflow::Undefined) {
        Ok(Some(v)) => Expr::constant(v, e.ty),
        _ => e,
    }
}
