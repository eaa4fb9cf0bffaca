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

use super::lines::LineMap;
use super::nesting::MAX_NESTING;
use super::parse::parse_bounded;
use super::reach::reachable_definitions;
use super::types::{character_constant, integer_constant, CType};
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
use std::collections::{HashMap, HashSet, VecDeque};

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
        "pointer" => return Some(CType::Ptr),
        _ => return None,
    }))
}

/// An ordinary identifier in scope.
#[derive(Debug, Clone)]
enum Sym {
    Var(VarId, CType),
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
    let in_specs = specs.iter().flat_map(|s| match &s.node {
        DeclarationSpecifier::Extension(es) => es.as_slice(),
        _ => &[],
    });
    in_specs.chain(&d.node.extensions).any(|e| match &e.node {
        Extension::Attribute(a) => matches!(a.name.node.trim_matches('_'), "constructor" | "destructor"),
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

/// A lowered expression value: a pure expression and whether it is a pointer.
#[derive(Debug, Clone)]
struct Val {
    e: Expr,
    ptr: bool,
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
}

/// Parses preprocessed C and lowers it into a finished [`Program`].
pub(crate) fn lower(name: &str, preprocessed: &str, model: DataModel, hash: String) -> Result<Program> {
    let lines = LineMap::new(preprocessed, name);
    let parse = parse_bounded(preprocessed, &lines)?;
    let mut l = Lowerer {
        model,
        lines: &lines,
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
        funcs: HashMap::new(),
        globals: HashMap::new(),
        extern_only: HashSet::new(),
        fs: None,
        pos: 0,
        initialized: HashSet::new(),
        definitions: HashMap::new(),
        run_outside_main: HashSet::new(),
        depth: 0,
    };
    // Pass 1: declarations and function signatures, in order.
    let mut definitions = Vec::new();
    for ext in &parse.unit.0 {
        match &ext.node {
            ExternalDeclaration::Declaration(d) => l.global_declaration(d)?,
            ExternalDeclaration::StaticAssert(_) => {}
            ExternalDeclaration::FunctionDefinition(fd) => {
                if let Some(name) = l.register_definition(fd)? {
                    definitions.push((name, fd));
                }
            }
        }
    }
    // Pass 2: the functions `main` reaches, in program order; the others never run.
    let reached = reachable_definitions(&definitions, |offset| lines.pos(offset).file == 0);
    let mut bodies = Vec::new();
    for (i, (name, fd)) in definitions.iter().enumerate() {
        if let Some(&origin) = reached.get(&i) {
            let id = l
                .define_function(name, fd)
                .map_err(|e| l.at_program_line(e, origin))?;
            bodies.push((id, fd, origin));
        }
    }
    for (id, fd, origin) in bodies {
        l.function_body(id, fd)
            .map_err(|e| l.at_program_line(e, origin))?;
    }
    l.finish(name, hash)
}

impl<'a> Lowerer<'a> {
    // ----- positions and errors -------------------------------------------------------------

    fn src(&mut self, offset: usize) -> SourceLoc {
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

    fn unsupported(&self, offset: usize, what: impl Into<String>) -> FrontendError {
        let p = self.lines.pos(offset);
        FrontendError::Unsupported {
            file: self.lines.file_name(p.file).to_string(),
            line: p.line,
            construct: one_line(&what.into()),
        }
    }

    /// An `unsupported` error inside code outside the program's own file (a function a header
    /// defines), named at the line of the program that reached that code (`origin`).
    fn at_program_line(&self, e: FrontendError, origin: Option<usize>) -> FrontendError {
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

    fn malformed(&self, offset: usize, what: impl Into<String>) -> FrontendError {
        let p = self.lines.pos(offset);
        FrontendError::Malformed {
            file: self.lines.file_name(p.file).to_string(),
            line: p.line,
            message: one_line(&what.into()),
        }
    }

    // ----- CFA construction -----------------------------------------------------------------

    fn fs(&mut self) -> Result<&mut FnState> {
        let pos = self.pos;
        if self.fs.is_none() {
            return Err(self.unsupported(pos, "non-constant initializer"));
        }
        self.fs.as_mut().ok_or_else(|| FrontendError::Program {
            file: String::new(),
            message: "internal: no function".into(),
        })
    }

    fn new_loc_in(&mut self, func: FuncId, kind: LocationKind) -> LocId {
        self.locations.push(Location {
            func,
            kind,
            loop_head: false,
            label: None,
        });
        LocId((self.locations.len() - 1) as u32)
    }

    fn new_loc(&mut self) -> Result<LocId> {
        self.new_kind(LocationKind::Normal)
    }

    fn new_kind(&mut self, kind: LocationKind) -> Result<LocId> {
        let f = self.fs()?.id;
        Ok(self.new_loc_in(f, kind))
    }

    /// The current location; code after a jump gets a fresh (unreachable) location.
    fn cur(&mut self) -> Result<LocId> {
        if let Some(c) = self.fs()?.cur {
            return Ok(c);
        }
        let l = self.new_loc()?;
        self.fs()?.cur = Some(l);
        Ok(l)
    }

    fn set_cur(&mut self, l: Option<LocId>) -> Result<()> {
        self.fs()?.cur = l;
        Ok(())
    }

    fn edge_from(&mut self, from: LocId, op: Operation, to: LocId) {
        let source = self.src(self.pos);
        self.edges.push(Edge { from, to, op, source });
    }

    /// Emits `op` from the current location to a fresh one, which becomes current.
    fn emit(&mut self, op: Operation) -> Result<()> {
        let from = self.cur()?;
        let to = self.new_loc()?;
        self.edge_from(from, op, to);
        self.set_cur(Some(to))
    }

    /// Emits `op` from the current location to `to`; afterwards nothing is current.
    fn emit_to(&mut self, op: Operation, to: LocId) -> Result<()> {
        let from = self.cur()?;
        self.edge_from(from, op, to);
        self.set_cur(None)
    }

    /// Jumps to `to` if the current point is reachable.
    fn goto(&mut self, to: LocId) -> Result<()> {
        if let Some(from) = self.fs()?.cur {
            self.edge_from(from, Operation::Skip, to);
        }
        self.set_cur(None)
    }

    fn new_var(&mut self, v: Variable) -> VarId {
        self.variables.push(v);
        VarId((self.variables.len() - 1) as u32)
    }

    fn temp(&mut self, ty: IntType) -> Result<VarId> {
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
        }))
    }

    /// A unique qualified name for a local `x` of the current function.
    fn local_name(&mut self, x: &str) -> Result<String> {
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

    fn lookup(&self, name: &str) -> Option<&Sym> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    /// Whether `name` is already declared in the innermost block scope (for a function's
    /// outermost block, that includes its parameters, C11 6.2.1:4).
    fn declared_in_this_scope(&mut self, name: &str) -> Result<bool> {
        let innermost = self.scopes.len() - 1;
        let param_scope = self.fs()?.param_scope;
        let in_scope = |i: usize| self.scopes.get(i).is_some_and(|s| s.contains_key(name));
        Ok(in_scope(innermost) || (innermost == param_scope + 1 && in_scope(param_scope)))
    }

    fn bind(&mut self, name: &str, sym: Sym) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), sym);
        }
    }

    // ----- types ----------------------------------------------------------------------------

    /// Resolves type specifiers (registering enumerators) into a base type.
    fn base_type<'n>(&mut self, specs: impl Iterator<Item = &'n Node<TypeSpecifier>>) -> Result<CType> {
        let (mut void, mut char_, mut short, mut long, mut unsigned, mut bool_) =
            (false, false, false, 0, false, false);
        let mut other: Option<CType> = None;
        for s in specs {
            match &s.node {
                TypeSpecifier::Void => void = true,
                TypeSpecifier::Char => char_ = true,
                TypeSpecifier::Short => short = true,
                TypeSpecifier::Int | TypeSpecifier::Signed => {}
                TypeSpecifier::Long => long += 1,
                TypeSpecifier::Unsigned => unsigned = true,
                TypeSpecifier::Bool => bool_ = true,
                TypeSpecifier::Float | TypeSpecifier::Double | TypeSpecifier::TS18661Float(_) => {
                    other = Some(CType::Unsupported("floating-point type".into()))
                }
                TypeSpecifier::Complex => other = Some(CType::Unsupported("complex type".into())),
                TypeSpecifier::Atomic(_) => other = Some(CType::Unsupported("_Atomic".into())),
                TypeSpecifier::Struct(st) => {
                    let kind = match st.node.kind.node {
                        lang_c::ast::StructKind::Struct => "struct",
                        lang_c::ast::StructKind::Union => "union",
                    };
                    other = Some(CType::Unsupported(format!("{kind} type")))
                }
                TypeSpecifier::Enum(en) => {
                    other = Some(CType::Int(self.enum_type(&en.node)?));
                }
                TypeSpecifier::TypedefName(id) => match self.lookup(&id.node.name) {
                    Some(Sym::Typedef(t)) => other = Some(t.clone()),
                    _ => {
                        return Err(self.malformed(id.span.start, format!("unknown type `{}`", id.node.name)))
                    }
                },
                TypeSpecifier::TypeOf(_) => other = Some(CType::Unsupported("typeof".into())),
            }
        }
        if let Some(t) = other {
            return Ok(t);
        }
        Ok(if void {
            CType::Void
        } else if bool_ {
            CType::Int(IntType::BOOL)
        } else if char_ {
            CType::Int(if unsigned { IntType::UCHAR } else { IntType::CHAR })
        } else if short {
            CType::Int(if unsigned { IntType::USHORT } else { IntType::SHORT })
        } else if long >= 2 {
            CType::Int(if unsigned { IntType::ULLONG } else { IntType::LLONG })
        } else if long == 1 {
            CType::Int(if unsigned {
                self.model.ulong()
            } else {
                self.model.long()
            })
        } else {
            CType::Int(if unsigned { IntType::UINT } else { IntType::INT })
        })
    }

    /// Registers the enumerators of an enum specifier; gives the enum's type (gcc: `unsigned
    /// int` unless some enumerator is negative).
    fn enum_type(&mut self, en: &lang_c::ast::EnumType) -> Result<IntType> {
        if en.enumerators.is_empty() {
            let tag = en.identifier.as_ref().map(|i| i.node.name.clone());
            return Ok(tag
                .and_then(|t| self.enum_tags.get(&t).copied())
                .unwrap_or(IntType::UINT));
        }
        let mut next: i128 = 0;
        let mut negative = false;
        for e in &en.enumerators {
            let v = match &e.node.expression {
                Some(x) => self.const_eval(x)?,
                None => next,
            };
            if !IntType::INT.contains(v) {
                return Err(self.unsupported(e.span.start, "enumerator value outside the range of int"));
            }
            negative |= v < 0;
            self.bind(&e.node.identifier.node.name, Sym::Const(v));
            next = v + 1;
        }
        let ty = if negative { IntType::INT } else { IntType::UINT };
        if let Some(tag) = &en.identifier {
            self.enum_tags.insert(tag.node.name.clone(), ty);
        }
        Ok(ty)
    }

    fn decl_specs(
        &mut self,
        specs: &[Node<DeclarationSpecifier>],
    ) -> Result<(CType, Option<StorageClassSpecifier>)> {
        let mut storage = None;
        let mut tys = Vec::new();
        for s in specs {
            match &s.node {
                DeclarationSpecifier::StorageClass(c) => storage = Some(c.node.clone()),
                DeclarationSpecifier::TypeSpecifier(t) => tys.push(t),
                _ => {}
            }
        }
        Ok((self.base_type(tys.into_iter())?, storage))
    }

    fn type_name(&mut self, tn: &Node<TypeName>) -> Result<CType> {
        let specs = tn.node.specifiers.iter().filter_map(|s| match &s.node {
            SpecifierQualifier::TypeSpecifier(t) => Some(t),
            _ => None,
        });
        let specs: Vec<&Node<TypeSpecifier>> = specs.collect();
        let base = self.base_type(specs.into_iter())?;
        match &tn.node.declarator {
            None => Ok(base),
            Some(d) => match self.declarator(base, d)?.1 {
                Declared::Object(t) => Ok(t),
                Declared::Function { .. } => Err(self.unsupported(d.span.start, "function type")),
            },
        }
    }

    /// Applies a declarator to a base type: name and what is declared.
    fn declarator(&mut self, base: CType, d: &Node<Declarator>) -> Result<(Option<String>, Declared)> {
        let has =
            |d: &Declarator, f: &dyn Fn(&DerivedDeclarator) -> bool| d.derived.iter().any(|x| f(&x.node));
        let is_ptr =
            |x: &DerivedDeclarator| matches!(x, DerivedDeclarator::Pointer(_) | DerivedDeclarator::Block(_));
        let is_array = |x: &DerivedDeclarator| matches!(x, DerivedDeclarator::Array(_));
        let is_fn = |x: &DerivedDeclarator| {
            matches!(
                x,
                DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_)
            )
        };
        match &d.node.kind.node {
            DeclaratorKind::Declarator(inner) => {
                let inner_ptr = has(&inner.node, &is_ptr);
                if has(&d.node, &is_fn) && inner_ptr {
                    // A function pointer is a type like any other Baton does not model: only
                    // a value of it is `unsupported`, so prototypes such as `atexit`'s are fine.
                    let fp = CType::Unsupported("function pointer".into());
                    if let (name, Declared::Function { params, variadic, .. }) =
                        self.declarator(CType::Void, inner)?
                    {
                        // A function returning a function pointer, such as `signal`.
                        return Ok((
                            name,
                            Declared::Function {
                                ret: fp,
                                params,
                                variadic,
                            },
                        ));
                    }
                    return Ok((declarator_name(inner), Declared::Object(fp)));
                }
                if d.node.derived.is_empty() {
                    return self.declarator(base, inner);
                }
                if has(&d.node, &is_array) || has(&inner.node, &is_array) {
                    return Ok((
                        declarator_name(inner),
                        Declared::Object(CType::Unsupported("array".into())),
                    ));
                }
                let t = if inner_ptr || has(&d.node, &is_ptr) {
                    CType::Ptr
                } else {
                    base
                };
                self.declarator(t, inner)
            }
            DeclaratorKind::Identifier(_) | DeclaratorKind::Abstract => {
                let name = declarator_name(d);
                let fn_pos = d.node.derived.iter().position(|x| is_fn(&x.node));
                if let Some(i) = fn_pos {
                    // Pointers after the function part apply to the return type.
                    let ret = if d.node.derived[i + 1..].iter().any(|x| is_ptr(&x.node))
                        || d.node.derived[..i].iter().any(|x| is_ptr(&x.node))
                    {
                        CType::Ptr
                    } else {
                        base
                    };
                    let (params, variadic) = match &d.node.derived[i].node {
                        DerivedDeclarator::Function(fd) => {
                            let mut params = Vec::new();
                            for p in &fd.node.parameters {
                                let (pt, _) = self.decl_specs(&p.node.specifiers)?;
                                let (pname, pd) = match &p.node.declarator {
                                    Some(pd) => self.declarator(pt, pd)?,
                                    None => (None, Declared::Object(pt)),
                                };
                                let pty = match pd {
                                    Declared::Object(CType::Unsupported(s)) if s == "array" => CType::Ptr,
                                    Declared::Object(t) => t,
                                    Declared::Function { .. } => {
                                        CType::Unsupported("function pointer".into())
                                    }
                                };
                                params.push((pname, pty));
                            }
                            if params.len() == 1 && params[0].0.is_none() && params[0].1 == CType::Void {
                                params.clear();
                            }
                            (Some(params), matches!(fd.node.ellipsis, Ellipsis::Some))
                        }
                        DerivedDeclarator::KRFunction(ids) if ids.is_empty() => (None, false),
                        _ => return Err(self.unsupported(d.span.start, "K&R-style function definition")),
                    };
                    return Ok((
                        name,
                        Declared::Function {
                            ret,
                            params,
                            variadic,
                        },
                    ));
                }
                if has(&d.node, &is_array) {
                    return Ok((name, Declared::Object(CType::Unsupported("array".into()))));
                }
                if has(&d.node, &is_ptr) {
                    return Ok((name, Declared::Object(CType::Ptr)));
                }
                Ok((name, Declared::Object(base)))
            }
        }
    }

    /// The integer type of a value-carrying type, or the matching `unsupported` error.
    fn value_type(&self, t: &CType, offset: usize) -> Result<IntType> {
        match t {
            CType::Int(i) => Ok(*i),
            CType::Ptr => Ok(self.model.pointer()),
            CType::Void => Err(self.malformed(offset, "variable of type void")),
            CType::Unsupported(s) => Err(self.unsupported(offset, s.clone())),
        }
    }

    // ----- declarations ---------------------------------------------------------------------

    fn register_function(
        &mut self,
        name: &str,
        ret: CType,
        params: Option<Vec<(Option<String>, CType)>>,
        variadic: bool,
    ) {
        let entry = self.funcs.entry(name.to_string()).or_insert(FuncInfo {
            ret: ret.clone(),
            params: None,
            variadic,
            id: None,
        });
        if params.is_some() {
            entry.params = params;
            entry.variadic = variadic;
            entry.ret = ret;
        }
        self.scopes[0].insert(name.to_string(), Sym::Func);
    }

    fn global_declaration(&mut self, d: &Node<Declaration>) -> Result<()> {
        self.pos = d.span.start;
        let (base, storage) = self.decl_specs(&d.node.specifiers)?;
        for id in &d.node.declarators {
            self.pos = id.span.start;
            let (name, declared) = self.declarator(base.clone(), &id.node.declarator)?;
            let Some(name) = name else { continue };
            if matches!(declared, Declared::Function { .. })
                && runs_outside_main(&d.node.specifiers, &id.node.declarator)
            {
                if self.definitions.contains_key(&name) {
                    return Err(self.unsupported(id.span.start, RUNS_OUTSIDE_MAIN));
                }
                self.run_outside_main.insert(name.clone());
            }
            let Some(t) = self.declare_name(&name, &storage, declared) else {
                continue;
            };
            let is_extern = matches!(storage, Some(StorageClassSpecifier::Extern));
            let declared = self.global_variable(
                &name,
                &name,
                t,
                id.node.initializer.as_ref(),
                is_extern,
                id.span.start,
            );
            match declared {
                Ok(_) => {}
                // Only a use of the object is a reason to reject the program.
                Err(FrontendError::Unsupported {
                    file,
                    line,
                    construct,
                }) => {
                    let what = format!("{construct} (`{name}` declared at {file}:{line})");
                    self.scopes[0].insert(name, Sym::Unmodelled(what));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Declares (or completes) a global; `unique` is its program-wide name.
    fn global_variable(
        &mut self,
        unique: &str,
        source: &str,
        t: CType,
        init: Option<&Node<Initializer>>,
        is_extern: bool,
        offset: usize,
    ) -> Result<VarId> {
        let ty = self.value_type(&t, offset)?;
        let initial = match init {
            None => None,
            Some(i) => Some(match &i.node {
                Initializer::Expression(e) => {
                    let v = self.const_eval(e)?;
                    ty.normalize(v)
                }
                Initializer::List(_) => return Err(self.unsupported(i.span.start, "initializer list")),
            }),
        };
        let id = match self.globals.get(unique) {
            Some(&id) => {
                if initial.is_some() && !self.initialized.insert(id) {
                    return Err(self.malformed(offset, format!("redefinition of `{source}`")));
                }
                if let Some(v) = initial {
                    self.variables[id.index()].initial = v;
                }
                if !is_extern {
                    self.extern_only.remove(&id);
                }
                id
            }
            None => {
                let id = self.new_var(Variable {
                    name: unique.to_string(),
                    source_name: source.to_string(),
                    ty,
                    scope: Scope::Global,
                    initial: initial.unwrap_or(0),
                    temporary: false,
                });
                self.globals.insert(unique.to_string(), id);
                if initial.is_some() {
                    self.initialized.insert(id);
                }
                if is_extern && initial.is_none() {
                    self.extern_only.insert(id);
                }
                id
            }
        };
        if self.scopes.len() == 1 || unique == source {
            self.scopes[0].insert(source.to_string(), Sym::Var(id, t.clone()));
        }
        if self.scopes.len() > 1 {
            self.bind(source, Sym::Var(id, t));
        }
        Ok(id)
    }

    /// Evaluates an integer constant expression.
    fn const_eval(&mut self, e: &Node<Expression>) -> Result<i128> {
        let saved = self.fs.take();
        let saved_pos = self.pos;
        self.pos = e.span.start;
        let v = self.rvalue(e);
        self.fs = saved;
        self.pos = saved_pos;
        let v = v?;
        // gcc accepts an overflowing constant expression (with a warning) and wraps it.
        match semantics::eval(&v.e, &|_| None, semantics::SignedOverflow::Wrap) {
            Ok(Some(x)) => Ok(x),
            Ok(None) => Err(self.unsupported(e.span.start, "non-constant initializer")),
            Err(ub) => Err(self.malformed(e.span.start, format!("constant expression: {ub}"))),
        }
    }

    /// Registers a function definition's signature (pass 1) and gives its name, unless the
    /// name has a fixed meaning. What Baton cannot lower in the signature is remembered and
    /// reported only if `main` reaches the function ([`Self::define_function`]).
    fn register_definition(&mut self, fd: &Node<FunctionDefinition>) -> Result<Option<String>> {
        self.pos = fd.span.start;
        let at = fd.span.start;
        let name = declarator_name(&fd.node.declarator)
            .ok_or_else(|| self.malformed(at, "function without a name"))?;
        let (base, _) = self.decl_specs(&fd.node.specifiers)?;
        let signature = match self.declarator(base, &fd.node.declarator) {
            Ok((
                _,
                Declared::Function {
                    ret,
                    params,
                    variadic,
                },
            )) => {
                let params = params.unwrap_or_default();
                self.register_function(&name, ret.clone(), Some(params.clone()), variadic);
                if !fd.node.declarations.is_empty() {
                    Err(self.unsupported(at, "K&R-style function definition"))
                } else if variadic {
                    Err(self.unsupported(at, format!("variadic function `{name}`")))
                } else {
                    Ok((ret, params))
                }
            }
            Ok((_, Declared::Object(_))) => {
                return Err(self.malformed(at, "function definition without parameter list"))
            }
            Err(e @ FrontendError::Unsupported { .. }) => {
                self.scopes[0].insert(name.clone(), Sym::Func);
                Err(e)
            }
            Err(e) => return Err(e),
        };
        if is_special(&name) {
            return Ok(None);
        }
        if self.definitions.insert(name.clone(), signature).is_some() {
            return Err(self.malformed(at, format!("redefinition of `{name}`")));
        }
        if runs_outside_main(&fd.node.specifiers, &fd.node.declarator)
            || self.run_outside_main.contains(&name)
        {
            return Err(self.unsupported(at, RUNS_OUTSIDE_MAIN));
        }
        Ok(Some(name))
    }

    /// Creates the function of a definition that `main` reaches; its body is lowered later.
    fn define_function(&mut self, name: &str, fd: &Node<FunctionDefinition>) -> Result<FuncId> {
        self.pos = fd.span.start;
        let (ret, _) = match self.definitions.get(name) {
            Some(Ok(signature)) => signature.clone(),
            Some(Err(e)) => return Err(e.clone()),
            None => return Err(self.malformed(fd.span.start, "unknown function")),
        };
        let return_type = match &ret {
            CType::Void => None,
            t => Some(self.value_type(t, fd.span.start)?),
        };
        let id = FuncId(self.functions.len() as u32);
        let entry = self.new_loc_in(id, LocationKind::Normal);
        let exit = self.new_loc_in(id, LocationKind::FunctionExit);
        let source = self.src(fd.span.start);
        self.functions.push(Function {
            name: name.to_string(),
            params: Vec::new(),
            return_type,
            return_var: None,
            entry,
            exit,
            locations: Vec::new(),
            source,
        });
        if let Some(info) = self.funcs.get_mut(name) {
            info.id = Some(id);
        }
        Ok(id)
    }

    fn function_body(&mut self, id: FuncId, fd: &Node<FunctionDefinition>) -> Result<()> {
        let name = self.functions[id.index()].name.clone();
        let info = self
            .funcs
            .get(&name)
            .cloned()
            .ok_or_else(|| self.malformed(fd.span.start, "unknown function"))?;
        let f = &self.functions[id.index()];
        let (entry, exit, return_type) = (f.entry, f.exit, f.return_type);
        self.fs = Some(FnState {
            id,
            name: name.clone(),
            ret: info.ret.clone(),
            return_var: None,
            exit,
            cur: Some(entry),
            labels: HashMap::new(),
            defined_labels: HashSet::new(),
            label_uses: Vec::new(),
            breaks: Vec::new(),
            continues: Vec::new(),
            switches: Vec::new(),
            name_counts: HashMap::new(),
            temps: 0,
            param_scope: 0,
        });
        self.pos = fd.span.start;
        if let Some(rt) = return_type {
            let v = self.new_var(Variable {
                name: format!("{name}::__retval"),
                source_name: "__retval".into(),
                ty: rt,
                scope: Scope::Local(id),
                initial: 0,
                temporary: true,
            });
            self.functions[id.index()].return_var = Some(v);
            self.fs()?.return_var = Some(v);
        }
        self.scopes.push(HashMap::new());
        let mut params = Vec::new();
        for (pname, pty) in info.params.clone().unwrap_or_default() {
            let pname = pname.ok_or_else(|| self.malformed(fd.span.start, "parameter without a name"))?;
            if self.scopes.last().is_some_and(|s| s.contains_key(&pname)) {
                return Err(self.malformed(fd.span.start, format!("redefinition of parameter `{pname}`")));
            }
            let ty = self.value_type(&pty, fd.span.start)?;
            let unique = self.local_name(&pname)?;
            let v = self.new_var(Variable {
                name: unique,
                source_name: pname.clone(),
                ty,
                scope: Scope::Local(id),
                initial: 0,
                temporary: false,
            });
            self.bind(&pname, Sym::Var(v, pty));
            params.push(v);
        }
        self.fs()?.param_scope = self.scopes.len() - 1;
        self.functions[id.index()].params = params;
        self.stmt(&fd.node.statement)?;
        // Falling off the end: `main` returns 0 (C99 5.1.2.2.3), others return nothing.
        if self.fs()?.cur.is_some() {
            self.pos = fd.node.statement.span.end.saturating_sub(1);
            let value = match return_type {
                Some(rt) if name == "main" => Some(Expr::constant(0, rt)),
                _ => None,
            };
            self.emit_to(Operation::Return { value }, exit)?;
        }
        self.scopes.pop();
        let fs = self.fs.take();
        if let Some(fs) = fs {
            for (label, at) in &fs.label_uses {
                if !fs.defined_labels.contains(label) {
                    return Err(self.malformed(*at, format!("label `{label}` used but not defined")));
                }
            }
        }
        Ok(())
    }

    /// Declares what a declarator names other than an object — a typedef or a function — in
    /// the current scope; for an object, returns its type for the caller to declare.
    fn declare_name(
        &mut self,
        name: &str,
        storage: &Option<StorageClassSpecifier>,
        declared: Declared,
    ) -> Option<CType> {
        let typedef = matches!(storage, Some(StorageClassSpecifier::Typedef));
        match (typedef, declared) {
            (true, Declared::Object(t)) => self.bind(name, Sym::Typedef(t)),
            (true, Declared::Function { .. }) => {
                self.bind(name, Sym::Typedef(CType::Unsupported("function type".into())))
            }
            (
                false,
                Declared::Function {
                    ret,
                    params,
                    variadic,
                },
            ) => {
                self.register_function(name, ret, params, variadic);
                self.bind(name, Sym::Func);
            }
            (false, Declared::Object(t)) => return Some(t),
        }
        None
    }

    fn local_declaration(&mut self, d: &Node<Declaration>) -> Result<()> {
        self.pos = d.span.start;
        let (base, storage) = self.decl_specs(&d.node.specifiers)?;
        for id in &d.node.declarators {
            self.pos = id.span.start;
            let (name, declared) = self.declarator(base.clone(), &id.node.declarator)?;
            let Some(name) = name else { continue };
            if !matches!(storage, Some(StorageClassSpecifier::Extern))
                && self.declared_in_this_scope(&name)?
            {
                return Err(self.malformed(id.span.start, format!("redefinition of `{name}`")));
            }
            let Some(t) = self.declare_name(&name, &storage, declared) else {
                continue;
            };
            match storage {
                Some(StorageClassSpecifier::Extern) => {
                    let unique = name.clone();
                    self.global_variable(&unique, &name, t, None, true, id.span.start)?;
                }
                Some(StorageClassSpecifier::Static) => {
                    let unique = self.local_name(&name)?;
                    self.global_variable(
                        &unique,
                        &name,
                        t,
                        id.node.initializer.as_ref(),
                        false,
                        id.span.start,
                    )?;
                }
                _ => {
                    let ty = self.value_type(&t, id.span.start)?;
                    let unique = self.local_name(&name)?;
                    let fid = self.fs()?.id;
                    let v = self.new_var(Variable {
                        name: unique,
                        source_name: name.clone(),
                        ty,
                        scope: Scope::Local(fid),
                        initial: 0,
                        temporary: false,
                    });
                    // The scope of a declarator starts before its initialiser (C11 6.2.1).
                    self.bind(&name, Sym::Var(v, t.clone()));
                    match &id.node.initializer {
                        None => self.emit(Operation::Declare { var: v, init: None })?,
                        Some(i) => match &i.node {
                            Initializer::List(_) => {
                                return Err(self.unsupported(i.span.start, "initializer list"))
                            }
                            Initializer::Expression(e) => {
                                if let Expression::Call(c) = &e.node {
                                    self.emit(Operation::Declare { var: v, init: None })?;
                                    self.pos = e.span.start;
                                    if self.call(c, Dest::Var(v, ty))?.is_none() {
                                        return Err(self.malformed(e.span.start, "void value used"));
                                    }
                                } else {
                                    let val = self.rvalue(e)?;
                                    self.pos = id.span.start;
                                    self.emit(Operation::Declare {
                                        var: v,
                                        init: Some(val.e.cast(ty)),
                                    })?;
                                }
                            }
                        },
                    }
                }
            }
        }
        Ok(())
    }

    // ----- statements -----------------------------------------------------------------------

    fn label_loc(&mut self, name: &str) -> Result<LocId> {
        if let Some(l) = self.fs()?.labels.get(name) {
            return Ok(*l);
        }
        let l = self.new_loc()?;
        self.locations[l.index()].label = Some(name.to_string());
        self.fs()?.labels.insert(name.to_string(), l);
        Ok(l)
    }

    fn block_items(&mut self, items: &[Node<BlockItem>]) -> Result<()> {
        self.scopes.push(HashMap::new());
        let r = items.iter().try_for_each(|item| match &item.node {
            BlockItem::Declaration(d) => self.local_declaration(d),
            BlockItem::StaticAssert(_) => Ok(()),
            BlockItem::Statement(s) => self.stmt(s),
        });
        self.scopes.pop();
        r
    }

    /// Runs `f` one nesting level deeper; past [`MAX_NESTING`] the program is rejected, so
    /// neither lowering nor later walks over its expressions can exhaust the stack.
    fn nested<T>(&mut self, offset: usize, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.depth >= MAX_NESTING {
            return Err(self.unsupported(offset, format!("nesting deeper than {MAX_NESTING}")));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn stmt(&mut self, s: &Node<Statement>) -> Result<()> {
        self.nested(s.span.start, |l| l.stmt_node(s))
    }

    fn stmt_node(&mut self, s: &Node<Statement>) -> Result<()> {
        self.pos = s.span.start;
        match &s.node {
            Statement::Labeled(ls) => {
                match &ls.node.label.node {
                    Label::Identifier(id) => {
                        let name = id.node.name.clone();
                        let l = self.label_loc(&name)?;
                        if !self.fs()?.defined_labels.insert(name.clone()) {
                            return Err(self.malformed(s.span.start, format!("duplicate label `{name}`")));
                        }
                        self.goto(l)?;
                        self.set_cur(Some(l))?;
                    }
                    Label::Case(e) => {
                        let v = self.const_eval(e)?;
                        let l = self.new_loc()?;
                        self.goto(l)?;
                        self.set_cur(Some(l))?;
                        let pos = s.span.start;
                        let err = self.malformed(pos, "case label outside switch");
                        let dup = self.malformed(pos, "duplicate case value");
                        let sw = self.fs()?.switches.last_mut().ok_or(err)?;
                        let v = sw.ty.normalize(v);
                        if sw.cases.iter().any(|(x, _)| *x == v) {
                            return Err(dup);
                        }
                        sw.cases.push((v, l));
                    }
                    Label::CaseRange(_) => return Err(self.unsupported(s.span.start, "case range")),
                    Label::Default => {
                        let l = self.new_loc()?;
                        self.goto(l)?;
                        self.set_cur(Some(l))?;
                        let err = self.malformed(s.span.start, "default label outside switch");
                        let sw = self.fs()?.switches.last_mut().ok_or(err)?;
                        sw.default = Some(l);
                    }
                }
                self.stmt(&ls.node.statement)
            }
            Statement::Compound(items) => self.block_items(items),
            Statement::Expression(None) => Ok(()),
            Statement::Expression(Some(e)) => self.expr(e, false).map(|_| ()),
            Statement::If(is) => {
                let then_l = self.new_loc()?;
                let else_l = self.new_loc()?;
                self.pos = is.node.condition.span.start;
                self.cond(&is.node.condition, then_l, else_l)?;
                self.set_cur(Some(then_l))?;
                self.stmt(&is.node.then_statement)?;
                match &is.node.else_statement {
                    None => {
                        self.goto(else_l)?;
                        self.set_cur(Some(else_l))
                    }
                    Some(es) => {
                        let join = self.new_loc()?;
                        self.goto(join)?;
                        self.set_cur(Some(else_l))?;
                        self.stmt(es)?;
                        self.goto(join)?;
                        self.set_cur(Some(join))
                    }
                }
            }
            Statement::Switch(ss) => {
                self.pos = ss.node.expression.span.start;
                let v = self.rvalue(&ss.node.expression)?;
                if v.ptr {
                    return Err(self.malformed(s.span.start, "switch on a pointer"));
                }
                let ty = v.e.ty.promoted();
                let e = v.e.cast(ty);
                let head = self.cur()?;
                let head_src = self.pos;
                let exit = self.new_loc()?;
                self.set_cur(None)?;
                self.fs()?.switches.push(SwitchCtx {
                    ty,
                    cases: Vec::new(),
                    default: None,
                });
                self.fs()?.breaks.push(exit);
                let r = self.stmt(&ss.node.statement);
                self.fs()?.breaks.pop();
                let sw = self.fs()?.switches.pop();
                r?;
                self.goto(exit)?;
                let sw = sw.ok_or_else(|| self.malformed(s.span.start, "switch"))?;
                self.pos = head_src;
                let mut at = head;
                for (value, target) in sw.cases {
                    let cond = Expr::binary(BinaryOp::Eq, e.clone(), Expr::constant(value, ty), IntType::INT);
                    let next = self.new_loc()?;
                    self.edge_from(
                        at,
                        Operation::Assume {
                            cond: cond.clone(),
                            branch: true,
                        },
                        target,
                    );
                    self.edge_from(at, Operation::Assume { cond, branch: false }, next);
                    at = next;
                }
                self.edge_from(at, Operation::Skip, sw.default.unwrap_or(exit));
                self.set_cur(Some(exit))
            }
            Statement::While(ws) => {
                let head = self.new_loc()?;
                self.goto(head)?;
                self.set_cur(Some(head))?;
                let body = self.new_loc()?;
                let exit = self.new_loc()?;
                self.pos = ws.node.expression.span.start;
                self.cond(&ws.node.expression, body, exit)?;
                self.set_cur(Some(body))?;
                self.loop_body(&ws.node.statement, exit, head)?;
                self.goto(head)?;
                self.set_cur(Some(exit))
            }
            Statement::DoWhile(ds) => {
                let body = self.new_loc()?;
                self.goto(body)?;
                self.set_cur(Some(body))?;
                let cont = self.new_loc()?;
                let exit = self.new_loc()?;
                self.loop_body(&ds.node.statement, exit, cont)?;
                self.goto(cont)?;
                self.set_cur(Some(cont))?;
                self.pos = ds.node.expression.span.start;
                self.cond(&ds.node.expression, body, exit)?;
                self.set_cur(Some(exit))
            }
            Statement::For(fs) => {
                self.scopes.push(HashMap::new());
                let r = self.for_stmt(fs);
                self.scopes.pop();
                r
            }
            Statement::Goto(id) => {
                let name = id.node.name.clone();
                let l = self.label_loc(&name)?;
                self.fs()?.label_uses.push((name, s.span.start));
                let from = self.cur()?;
                self.edge_from(from, Operation::Skip, l);
                self.set_cur(None)
            }
            Statement::Continue => {
                let err = self.malformed(s.span.start, "continue outside a loop");
                let t = *self.fs()?.continues.last().ok_or(err)?;
                let from = self.cur()?;
                self.edge_from(from, Operation::Skip, t);
                self.set_cur(None)
            }
            Statement::Break => {
                let err = self.malformed(s.span.start, "break outside a loop or switch");
                let t = *self.fs()?.breaks.last().ok_or(err)?;
                let from = self.cur()?;
                self.edge_from(from, Operation::Skip, t);
                self.set_cur(None)
            }
            Statement::Return(e) => {
                let (ret, exit) = {
                    let fs = self.fs()?;
                    (fs.ret.clone(), fs.exit)
                };
                let value = match (e, &ret) {
                    (None, _) => None,
                    (Some(e), CType::Void) => {
                        self.expr(e, false)?;
                        None
                    }
                    (Some(e), t) => {
                        let ty = self.value_type(t, s.span.start)?;
                        let v = self.rvalue(e)?;
                        Some(v.e.cast(ty))
                    }
                };
                self.pos = s.span.start;
                self.emit_to(Operation::Return { value }, exit)
            }
            Statement::Asm(_) => Err(self.unsupported(s.span.start, "inline assembly")),
        }
    }

    fn loop_body(&mut self, body: &Node<Statement>, brk: LocId, cont: LocId) -> Result<()> {
        self.fs()?.breaks.push(brk);
        self.fs()?.continues.push(cont);
        let r = self.stmt(body);
        self.fs()?.breaks.pop();
        self.fs()?.continues.pop();
        r
    }

    fn for_stmt(&mut self, fs: &Node<lang_c::ast::ForStatement>) -> Result<()> {
        match &fs.node.initializer.node {
            ForInitializer::Empty | ForInitializer::StaticAssert(_) => {}
            ForInitializer::Expression(e) => {
                self.pos = e.span.start;
                self.expr(e, false)?;
            }
            ForInitializer::Declaration(d) => self.local_declaration(d)?,
        }
        let head = self.new_loc()?;
        self.goto(head)?;
        self.set_cur(Some(head))?;
        let body = self.new_loc()?;
        let exit = self.new_loc()?;
        match &fs.node.condition {
            Some(c) => {
                self.pos = c.span.start;
                self.cond(c, body, exit)?;
            }
            None => {
                self.pos = fs.span.start;
                self.goto(body)?;
            }
        }
        self.set_cur(Some(body))?;
        let cont = self.new_loc()?;
        self.loop_body(&fs.node.statement, exit, cont)?;
        self.goto(cont)?;
        self.set_cur(Some(cont))?;
        if let Some(step) = &fs.node.step {
            self.pos = step.span.start;
            self.expr(step, false)?;
        }
        self.goto(head)?;
        self.set_cur(Some(exit))
    }

    // ----- conditions -----------------------------------------------------------------------

    /// Branches to `t` if `e` is nonzero, else to `f`, with short-circuit structure.
    /// Afterwards nothing is current.
    fn cond(&mut self, e: &Node<Expression>, t: LocId, f: LocId) -> Result<()> {
        self.nested(e.span.start, |l| l.cond_node(e, t, f))
    }

    fn cond_node(&mut self, e: &Node<Expression>, t: LocId, f: LocId) -> Result<()> {
        match &e.node {
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::LogicalAnd => {
                let mid = self.new_loc()?;
                self.cond(&b.node.lhs, mid, f)?;
                self.set_cur(Some(mid))?;
                self.cond(&b.node.rhs, t, f)
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::LogicalOr => {
                let mid = self.new_loc()?;
                self.cond(&b.node.lhs, t, mid)?;
                self.set_cur(Some(mid))?;
                self.cond(&b.node.rhs, t, f)
            }
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Negate => {
                self.cond(&u.node.operand, f, t)
            }
            Expression::Conditional(c) => {
                let lt = self.new_loc()?;
                let le = self.new_loc()?;
                self.cond(&c.node.condition, lt, le)?;
                self.set_cur(Some(lt))?;
                self.cond(&c.node.then_expression, t, f)?;
                self.set_cur(Some(le))?;
                self.cond(&c.node.else_expression, t, f)
            }
            Expression::Comma(es) => {
                let Some((last, init)) = es.split_last() else {
                    return Err(self.malformed(e.span.start, "empty comma expression"));
                };
                for x in init {
                    self.expr(x, false)?;
                }
                self.cond(last, t, f)
            }
            _ => {
                let v = self.rvalue(e)?;
                match v.e.as_const() {
                    // A constant condition has only its feasible branch.
                    Some(c) => {
                        let target = if c != 0 { t } else { f };
                        self.emit_to(
                            Operation::Assume {
                                cond: v.e,
                                branch: c != 0,
                            },
                            target,
                        )
                    }
                    None => {
                        let from = self.cur()?;
                        self.edge_from(
                            from,
                            Operation::Assume {
                                cond: v.e.clone(),
                                branch: true,
                            },
                            t,
                        );
                        self.edge_from(
                            from,
                            Operation::Assume {
                                cond: v.e,
                                branch: false,
                            },
                            f,
                        );
                        self.set_cur(None)
                    }
                }
            }
        }
    }

    // ----- expressions ----------------------------------------------------------------------

    /// Lowers an expression whose value is needed.
    fn rvalue(&mut self, e: &Node<Expression>) -> Result<Val> {
        match self.expr(e, true)? {
            Some(v) => Ok(v),
            None => Err(self.malformed(e.span.start, "void value used")),
        }
    }

    /// The variable an lvalue designates.
    fn lvalue(&mut self, e: &Node<Expression>) -> Result<(VarId, CType)> {
        match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Sym::Var(v, t)) => {
                    let (v, t) = (*v, t.clone());
                    self.check_extern(v, e.span.start)?;
                    Ok((v, t))
                }
                Some(Sym::Unmodelled(what)) => Err(self.unsupported(e.span.start, what.clone())),
                Some(_) => Err(self.malformed(e.span.start, format!("`{}` is not assignable", id.node.name))),
                None => {
                    Err(self.malformed(e.span.start, format!("undeclared identifier `{}`", id.node.name)))
                }
            },
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {
                Err(self.unsupported(e.span.start, "pointer dereference (*)"))
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                Err(self.unsupported(e.span.start, "array subscript"))
            }
            Expression::Member(_) => Err(self.unsupported(e.span.start, "struct/union member access")),
            _ => Err(self.malformed(e.span.start, "expression is not assignable")),
        }
    }

    fn check_extern(&self, v: VarId, offset: usize) -> Result<()> {
        if self.extern_only.contains(&v) {
            return Err(self.unsupported(offset, "extern variable without definition"));
        }
        Ok(())
    }

    /// Lowers an expression; `used` says whether its value is needed (statement context
    /// avoids temporaries). `None` for void expressions.
    fn expr(&mut self, e: &Node<Expression>, used: bool) -> Result<Option<Val>> {
        self.nested(e.span.start, |l| l.expr_node(e, used))
    }

    fn expr_node(&mut self, e: &Node<Expression>, used: bool) -> Result<Option<Val>> {
        let at = e.span.start;
        let int = |e: Expr| Ok(Some(Val { e, ptr: false }));
        match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name).cloned() {
                Some(Sym::Var(v, t)) => {
                    self.check_extern(v, at)?;
                    let ty = self.value_type(&t, at)?;
                    Ok(Some(Val {
                        e: Expr::var(v, ty),
                        ptr: t == CType::Ptr,
                    }))
                }
                Some(Sym::Const(c)) => int(Expr::int(c)),
                Some(Sym::Func) => Err(self.unsupported(at, "function pointer (function used as a value)")),
                Some(Sym::Unmodelled(what)) => Err(self.unsupported(at, what)),
                Some(Sym::Typedef(_)) => Err(self.malformed(at, "type name used as a value")),
                None => Err(self.malformed(at, format!("undeclared identifier `{}`", id.node.name))),
            },
            Expression::Constant(c) => match &c.node {
                Constant::Integer(i) => match integer_constant(i, self.model) {
                    Some((v, t)) => int(Expr::constant(v, t)),
                    None => Err(self.unsupported(at, "integer constant too large")),
                },
                Constant::Float(_) => Err(self.unsupported(at, "floating-point constant")),
                Constant::Character(s) => match character_constant(s) {
                    Some(v) => int(Expr::int(v)),
                    None => Err(self.unsupported(at, format!("character constant {s}"))),
                },
            },
            Expression::StringLiteral(_) => Err(self.unsupported(at, "string literal")),
            Expression::GenericSelection(_) => Err(self.unsupported(at, "_Generic")),
            Expression::Member(_) => Err(self.unsupported(at, "struct/union member access")),
            Expression::Call(c) => self.call(c, if used { Dest::Temp } else { Dest::Discard }),
            Expression::CompoundLiteral(_) => Err(self.unsupported(at, "compound literal")),
            Expression::SizeOfTy(t) => {
                let ct = self.type_name(&t.node.0)?;
                let size = self.size_of(&ct, at)?;
                int(Expr::constant(size, self.model.ulong()))
            }
            Expression::SizeOfVal(x) => {
                let ct = self.type_of(&x.node.0)?;
                let size = self.size_of(&ct, at)?;
                int(Expr::constant(size, self.model.ulong()))
            }
            Expression::AlignOf(t) => {
                let ct = self.type_name(&t.node.0)?;
                let size = self.size_of(&ct, at)?;
                int(Expr::constant(size, self.model.ulong()))
            }
            Expression::UnaryOperator(u) => self.unary(u, used, at),
            Expression::Cast(c) => {
                let ct = self.type_name(&c.node.type_name)?;
                match ct {
                    CType::Void => {
                        self.expr(&c.node.expression, false)?;
                        Ok(None)
                    }
                    CType::Int(t) => {
                        let v = self.rvalue(&c.node.expression)?;
                        int(v.e.cast(t))
                    }
                    CType::Ptr => {
                        let v = self.rvalue(&c.node.expression)?;
                        Ok(Some(Val {
                            e: v.e.cast(self.model.pointer()),
                            ptr: true,
                        }))
                    }
                    CType::Unsupported(s) => Err(self.unsupported(at, s)),
                }
            }
            Expression::BinaryOperator(b) => self.binary(b, used, at),
            Expression::Conditional(c) if self.fs.is_none() => self.constant_conditional(c),
            Expression::Conditional(c) => {
                let lt = self.new_loc()?;
                let le = self.new_loc()?;
                self.cond(&c.node.condition, lt, le)?;
                self.set_cur(Some(lt))?;
                let v1 = self.expr(&c.node.then_expression, used)?;
                let end1 = self.cur()?;
                self.set_cur(Some(le))?;
                let v2 = self.expr(&c.node.else_expression, used)?;
                let end2 = self.cur()?;
                let join = self.new_loc()?;
                let result = match (used, v1, v2) {
                    (true, Some(a), Some(b)) => {
                        let (ty, ptr) = if a.ptr || b.ptr {
                            (self.model.pointer(), true)
                        } else {
                            (IntType::common(a.e.ty, b.e.ty), false)
                        };
                        let t = self.temp(ty)?;
                        self.edge_from(
                            end1,
                            Operation::Assign {
                                lhs: t,
                                rhs: a.e.cast(ty),
                            },
                            join,
                        );
                        self.edge_from(
                            end2,
                            Operation::Assign {
                                lhs: t,
                                rhs: b.e.cast(ty),
                            },
                            join,
                        );
                        Some(Val {
                            e: Expr::var(t, ty),
                            ptr,
                        })
                    }
                    _ => {
                        self.edge_from(end1, Operation::Skip, join);
                        self.edge_from(end2, Operation::Skip, join);
                        None
                    }
                };
                self.set_cur(Some(join))?;
                if used && result.is_none() {
                    return Err(self.malformed(at, "void value used"));
                }
                Ok(result)
            }
            Expression::Comma(es) => {
                let Some((last, init)) = es.split_last() else {
                    return Err(self.malformed(at, "empty comma expression"));
                };
                for x in init {
                    self.expr(x, false)?;
                }
                self.expr(last, used)
            }
            Expression::OffsetOf(_) => Err(self.unsupported(at, "offsetof")),
            Expression::VaArg(_) => Err(self.unsupported(at, "variadic arguments (va_arg)")),
            Expression::Statement(_) => Err(self.unsupported(at, "statement expression")),
        }
    }

    /// `c ? a : b` in a constant expression (outside functions, as in glibc's `<ctype.h>`):
    /// the value of the operand `c` chooses, in the common type of both.
    fn constant_conditional(&mut self, c: &Node<lang_c::ast::ConditionalExpression>) -> Result<Option<Val>> {
        let chosen = self.const_eval(&c.node.condition)? != 0;
        let a = self.rvalue(&c.node.then_expression)?;
        let b = self.rvalue(&c.node.else_expression)?;
        if a.ptr || b.ptr {
            return Err(self.unsupported(c.span.start, "non-constant initializer"));
        }
        let ty = IntType::common(a.e.ty, b.e.ty);
        let v = if chosen { a } else { b };
        Ok(Some(Val {
            e: v.e.cast(ty),
            ptr: false,
        }))
    }

    fn size_of(&self, t: &CType, at: usize) -> Result<i128> {
        Ok(match t {
            CType::Void => 1,
            CType::Int(i) => i128::from(i.size_bytes()),
            CType::Ptr => i128::from(self.model.pointer().size_bytes()),
            CType::Unsupported(s) => return Err(self.unsupported(at, format!("sizeof of {s}"))),
        })
    }

    /// The C type of an expression without evaluating it (for `sizeof expr`).
    fn type_of(&mut self, e: &Node<Expression>) -> Result<CType> {
        let at = e.span.start;
        Ok(match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Sym::Var(_, t)) => t.clone(),
                Some(Sym::Const(_)) => CType::Int(IntType::INT),
                Some(Sym::Unmodelled(what)) => return Err(self.unsupported(at, what.clone())),
                _ => return Err(self.unsupported(at, "sizeof of this expression")),
            },
            Expression::Constant(c) => match &c.node {
                Constant::Integer(i) => match integer_constant(i, self.model) {
                    Some((_, t)) => CType::Int(t),
                    None => return Err(self.unsupported(at, "integer constant too large")),
                },
                Constant::Character(_) => CType::Int(IntType::INT),
                Constant::Float(_) => return Err(self.unsupported(at, "floating-point constant")),
            },
            Expression::Cast(c) => self.type_name(&c.node.type_name)?,
            Expression::SizeOfTy(_) | Expression::SizeOfVal(_) | Expression::AlignOf(_) => {
                CType::Int(self.model.ulong())
            }
            Expression::UnaryOperator(u) => match u.node.operator.node {
                UnaryOperator::Negate => CType::Int(IntType::INT),
                UnaryOperator::Address => CType::Ptr,
                UnaryOperator::Indirection => return Err(self.unsupported(at, "pointer dereference (*)")),
                UnaryOperator::Plus | UnaryOperator::Minus | UnaryOperator::Complement => {
                    match self.type_of(&u.node.operand)? {
                        CType::Int(t) => CType::Int(t.promoted()),
                        t => t,
                    }
                }
                _ => self.type_of(&u.node.operand)?,
            },
            Expression::BinaryOperator(b) => {
                use BinaryOperator as B;
                match b.node.operator.node {
                    B::Less
                    | B::Greater
                    | B::LessOrEqual
                    | B::GreaterOrEqual
                    | B::Equals
                    | B::NotEquals
                    | B::LogicalAnd
                    | B::LogicalOr => CType::Int(IntType::INT),
                    B::Index => return Err(self.unsupported(at, "array subscript")),
                    B::ShiftLeft | B::ShiftRight => match self.type_of(&b.node.lhs)? {
                        CType::Int(t) => CType::Int(t.promoted()),
                        t => t,
                    },
                    B::Multiply
                    | B::Divide
                    | B::Modulo
                    | B::Plus
                    | B::Minus
                    | B::BitwiseAnd
                    | B::BitwiseXor
                    | B::BitwiseOr => {
                        let l = self.type_of(&b.node.lhs)?;
                        let r = self.type_of(&b.node.rhs)?;
                        match (l, r) {
                            (CType::Int(a), CType::Int(b)) => CType::Int(IntType::common(a, b)),
                            _ => CType::Ptr,
                        }
                    }
                    _ => self.type_of(&b.node.lhs)?,
                }
            }
            Expression::Conditional(c) => {
                let l = self.type_of(&c.node.then_expression)?;
                let r = self.type_of(&c.node.else_expression)?;
                match (l, r) {
                    (CType::Int(a), CType::Int(b)) => CType::Int(IntType::common(a, b)),
                    (CType::Void, _) => CType::Void,
                    _ => CType::Ptr,
                }
            }
            Expression::Comma(es) => match es.last() {
                Some(x) => self.type_of(x)?,
                None => return Err(self.malformed(at, "empty comma expression")),
            },
            Expression::Call(c) => match &c.node.callee.node {
                Expression::Identifier(id) => match self.funcs.get(&id.node.name) {
                    Some(info) => info.ret.clone(),
                    None => CType::Int(IntType::INT),
                },
                _ => return Err(self.unsupported(at, "call through function pointer")),
            },
            _ => return Err(self.unsupported(at, "sizeof of this expression")),
        })
    }

    fn unary(
        &mut self,
        u: &Node<lang_c::ast::UnaryOperatorExpression>,
        used: bool,
        at: usize,
    ) -> Result<Option<Val>> {
        use UnaryOperator as U;
        let op = u.node.operator.node.clone();
        match op {
            U::Address => Err(self.unsupported(at, "address-of (&)")),
            U::Indirection => Err(self.unsupported(at, "pointer dereference (*)")),
            U::PreIncrement | U::PreDecrement | U::PostIncrement | U::PostDecrement => {
                let (x, t) = self.lvalue(&u.node.operand)?;
                if t == CType::Ptr {
                    return Err(self.unsupported(at, "pointer arithmetic"));
                }
                let ty = self.value_type(&t, at)?;
                let c = IntType::common(ty, IntType::INT);
                let bop = if matches!(op, U::PreIncrement | U::PostIncrement) {
                    BinaryOp::Add
                } else {
                    BinaryOp::Sub
                };
                let new = Expr::binary(bop, Expr::var(x, ty).cast(c), Expr::constant(1, c), c).cast(ty);
                let post = matches!(op, U::PostIncrement | U::PostDecrement);
                if post && used {
                    let tmp = self.temp(ty)?;
                    self.emit(Operation::Assign {
                        lhs: tmp,
                        rhs: Expr::var(x, ty),
                    })?;
                    self.emit(Operation::Assign { lhs: x, rhs: new })?;
                    Ok(Some(Val {
                        e: Expr::var(tmp, ty),
                        ptr: false,
                    }))
                } else {
                    self.emit(Operation::Assign { lhs: x, rhs: new })?;
                    Ok(Some(Val {
                        e: Expr::var(x, ty),
                        ptr: false,
                    }))
                }
            }
            U::Plus | U::Minus | U::Complement => {
                let v = self.rvalue(&u.node.operand)?;
                if v.ptr {
                    return Err(self.unsupported(at, "arithmetic on a pointer"));
                }
                let p = v.e.ty.promoted();
                let e = v.e.cast(p);
                Ok(Some(Val {
                    e: match op {
                        U::Plus => e,
                        U::Minus => fold(Expr::unary(UnaryOp::Neg, e, p)),
                        _ => fold(Expr::unary(UnaryOp::BitNot, e, p)),
                    },
                    ptr: false,
                }))
            }
            U::Negate => {
                let v = self.rvalue(&u.node.operand)?;
                Ok(Some(Val {
                    e: fold(Expr::unary(UnaryOp::LogNot, v.e, IntType::INT)),
                    ptr: false,
                }))
            }
        }
    }

    fn arith(&self, op: BinaryOp, a: Val, b: Val, at: usize) -> Result<Val> {
        if op.is_comparison() {
            let c = if a.ptr || b.ptr {
                self.model.pointer()
            } else {
                IntType::common(a.e.ty, b.e.ty)
            };
            return Ok(Val {
                e: fold(Expr::binary(op, a.e.cast(c), b.e.cast(c), IntType::INT)),
                ptr: false,
            });
        }
        if a.ptr || b.ptr {
            return Err(self.unsupported(at, "pointer arithmetic"));
        }
        let e = if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
            let pa = a.e.ty.promoted();
            let pb = b.e.ty.promoted();
            Expr::binary(op, a.e.cast(pa), b.e.cast(pb), pa)
        } else {
            let c = IntType::common(a.e.ty, b.e.ty);
            Expr::binary(op, a.e.cast(c), b.e.cast(c), c)
        };
        Ok(Val {
            e: fold(e),
            ptr: false,
        })
    }

    fn binary(
        &mut self,
        b: &Node<lang_c::ast::BinaryOperatorExpression>,
        used: bool,
        at: usize,
    ) -> Result<Option<Val>> {
        use BinaryOperator as B;
        let op = b.node.operator.node.clone();
        let arith_op = |op: &B| {
            Some(match op {
                B::Multiply | B::AssignMultiply => BinaryOp::Mul,
                B::Divide | B::AssignDivide => BinaryOp::Div,
                B::Modulo | B::AssignModulo => BinaryOp::Rem,
                B::Plus | B::AssignPlus => BinaryOp::Add,
                B::Minus | B::AssignMinus => BinaryOp::Sub,
                B::ShiftLeft | B::AssignShiftLeft => BinaryOp::Shl,
                B::ShiftRight | B::AssignShiftRight => BinaryOp::Shr,
                B::BitwiseAnd | B::AssignBitwiseAnd => BinaryOp::BitAnd,
                B::BitwiseXor | B::AssignBitwiseXor => BinaryOp::BitXor,
                B::BitwiseOr | B::AssignBitwiseOr => BinaryOp::BitOr,
                B::Less => BinaryOp::Lt,
                B::Greater => BinaryOp::Gt,
                B::LessOrEqual => BinaryOp::Le,
                B::GreaterOrEqual => BinaryOp::Ge,
                B::Equals => BinaryOp::Eq,
                B::NotEquals => BinaryOp::Ne,
                _ => return None,
            })
        };
        match op {
            B::Index => Err(self.unsupported(at, "array subscript")),
            // In a constant expression (outside functions) `&&` and `||` evaluate the right
            // operand only when the left one does not decide.
            B::LogicalAnd | B::LogicalOr if self.fs.is_none() => {
                let left = self.const_eval(&b.node.lhs)? != 0;
                let decided = left == (op == B::LogicalOr);
                let value = if decided {
                    left
                } else {
                    self.const_eval(&b.node.rhs)? != 0
                };
                Ok(Some(Val {
                    e: Expr::int(i128::from(value)),
                    ptr: false,
                }))
            }
            B::LogicalAnd | B::LogicalOr => {
                if !used {
                    // Statement context: `a && f();` runs `f()` only when `a` holds.
                    let mid = self.new_loc()?;
                    let join = self.new_loc()?;
                    if op == B::LogicalAnd {
                        self.cond(&b.node.lhs, mid, join)?;
                    } else {
                        self.cond(&b.node.lhs, join, mid)?;
                    }
                    self.set_cur(Some(mid))?;
                    self.expr(&b.node.rhs, false)?;
                    self.goto(join)?;
                    self.set_cur(Some(join))?;
                    return Ok(Some(Val {
                        e: Expr::int(0),
                        ptr: false,
                    }));
                }
                let t_l = self.new_loc()?;
                let f_l = self.new_loc()?;
                let join = self.new_loc()?;
                let whole = Node {
                    node: Expression::BinaryOperator(Box::new(b.clone())),
                    span: b.span,
                };
                self.cond(&whole, t_l, f_l)?;
                let tmp = self.temp(IntType::INT)?;
                self.edge_from(
                    t_l,
                    Operation::Assign {
                        lhs: tmp,
                        rhs: Expr::int(1),
                    },
                    join,
                );
                self.edge_from(
                    f_l,
                    Operation::Assign {
                        lhs: tmp,
                        rhs: Expr::int(0),
                    },
                    join,
                );
                self.set_cur(Some(join))?;
                Ok(Some(Val {
                    e: Expr::var(tmp, IntType::INT),
                    ptr: false,
                }))
            }
            B::Assign => {
                let (x, t) = self.lvalue(&b.node.lhs)?;
                let ty = self.value_type(&t, at)?;
                if let Expression::Call(c) = &b.node.rhs.node {
                    if self.call(c, Dest::Var(x, ty))?.is_none() {
                        return Err(self.malformed(at, "void value used"));
                    }
                } else {
                    let v = self.rvalue(&b.node.rhs)?;
                    self.emit(Operation::Assign {
                        lhs: x,
                        rhs: v.e.cast(ty),
                    })?;
                }
                Ok(Some(Val {
                    e: Expr::var(x, ty),
                    ptr: t == CType::Ptr,
                }))
            }
            B::AssignMultiply
            | B::AssignDivide
            | B::AssignModulo
            | B::AssignPlus
            | B::AssignMinus
            | B::AssignShiftLeft
            | B::AssignShiftRight
            | B::AssignBitwiseAnd
            | B::AssignBitwiseXor
            | B::AssignBitwiseOr => {
                let (x, t) = self.lvalue(&b.node.lhs)?;
                let ty = self.value_type(&t, at)?;
                let r = self.rvalue(&b.node.rhs)?;
                let bop = arith_op(&op).ok_or_else(|| self.malformed(at, "operator"))?;
                let cur = Val {
                    e: Expr::var(x, ty),
                    ptr: t == CType::Ptr,
                };
                let v = self.arith(bop, cur, r, at)?;
                self.emit(Operation::Assign {
                    lhs: x,
                    rhs: v.e.cast(ty),
                })?;
                Ok(Some(Val {
                    e: Expr::var(x, ty),
                    ptr: false,
                }))
            }
            _ => {
                let bop = arith_op(&op).ok_or_else(|| self.malformed(at, "operator"))?;
                let l = self.rvalue(&b.node.lhs)?;
                let r = self.rvalue(&b.node.rhs)?;
                Ok(Some(self.arith(bop, l, r, at)?))
            }
        }
    }

    /// Lowers the arguments of a call whose values are ignored, for their side effects.
    fn ignored_args(&mut self, args: &[Node<Expression>]) -> Result<()> {
        for a in args {
            if !matches!(a.node, Expression::StringLiteral(_)) {
                self.expr(a, false)?;
            }
        }
        Ok(())
    }

    /// Where a value-returning call writes: the variable to name in the edge, the value of the
    /// call expression, and a conversion to emit afterwards.
    fn dest_var(&mut self, dest: Dest, ty: IntType) -> Result<CallDest> {
        Ok(match dest {
            Dest::Discard => (None, None, None),
            Dest::Temp => {
                let t = self.temp(ty)?;
                (Some(t), Some(Expr::var(t, ty)), None)
            }
            Dest::Var(x, xty) if xty == ty => (Some(x), Some(Expr::var(x, ty)), None),
            Dest::Var(x, xty) => {
                let t = self.temp(ty)?;
                (Some(t), Some(Expr::var(x, xty)), Some((x, xty)))
            }
        })
    }

    fn call(&mut self, c: &Node<CallExpression>, dest: Dest) -> Result<Option<Val>> {
        let at = c.span.start;
        let name = match &c.node.callee.node {
            Expression::Identifier(id) => id.node.name.clone(),
            _ => return Err(self.unsupported(at, "call through function pointer")),
        };
        if let Some(Sym::Var(..) | Sym::Unmodelled(_)) = self.lookup(&name) {
            return Err(self.unsupported(at, "call through function pointer"));
        }
        let args = &c.node.arguments;
        let finish = |l: &mut Self,
                      val: Option<Expr>,
                      ptr: bool,
                      conv: Option<(VarId, IntType)>,
                      tmp: Option<VarId>|
         -> Result<Option<Val>> {
            if let (Some((x, xty)), Some(t)) = (conv, tmp) {
                let tty = l.variables[t.index()].ty;
                l.emit(Operation::Assign {
                    lhs: x,
                    rhs: Expr::var(t, tty).cast(xty),
                })?;
            }
            Ok(val.map(|e| Val { e, ptr }))
        };
        match name.as_str() {
            "reach_error" | "__VERIFIER_error" => {
                self.ignored_args(args)?;
                let l = self.new_kind(LocationKind::Error)?;
                self.emit_to(Operation::Error { function: name }, l)?;
                return Ok(None);
            }
            "abort" | "__assert_fail" | "__assert_perror_fail" | "__assert" => {
                self.ignored_args(args)?;
                let l = self.new_kind(LocationKind::Terminal)?;
                self.emit_to(Operation::Abort { function: name }, l)?;
                return Ok(None);
            }
            "exit" | "_exit" | "_Exit" => {
                let [arg] = args.as_slice() else {
                    return Err(self.malformed(at, format!("`{name}` takes one argument")));
                };
                let v = self.rvalue(arg)?;
                let l = self.new_kind(LocationKind::Terminal)?;
                self.emit_to(
                    Operation::Exit {
                        code: v.e.cast(IntType::INT),
                    },
                    l,
                )?;
                return Ok(None);
            }
            "__VERIFIER_assume" | "assume_abort_if_not" => {
                let [arg] = args.as_slice() else {
                    return Err(self.malformed(at, format!("`{name}` takes one argument")));
                };
                let v = self.rvalue(arg)?;
                // The argument converts to the declared parameter type (`int` in
                // sv-benchmarks) before it is tested, as in C: `__VERIFIER_assume(1LL << 32)`
                // assumes 0. Undeclared or unprototyped: `int`, the type the callee reads.
                let declared = match self.funcs.get(&name).and_then(|f| f.params.clone()) {
                    Some(params) if params.len() == 1 => Some(self.value_type(&params[0].1, arg.span.start)?),
                    _ => None,
                };
                self.emit(Operation::Assume {
                    cond: v.e.cast(declared.unwrap_or(IntType::INT)),
                    branch: true,
                })?;
                return Ok(None);
            }
            _ => {}
        }
        let info = self.funcs.get(&name).cloned();
        if let Some(FuncInfo {
            id: Some(callee),
            ret,
            params,
            ..
        }) = info.clone()
        {
            let params = params.unwrap_or_default();
            if params.len() != args.len() {
                return Err(self.malformed(
                    at,
                    format!(
                        "`{name}` takes {} argument(s) but {} given",
                        params.len(),
                        args.len()
                    ),
                ));
            }
            let mut lowered = Vec::new();
            for (a, (_, pt)) in args.iter().zip(&params) {
                let ty = self.value_type(pt, a.span.start)?;
                let v = self.rvalue(a)?;
                lowered.push(v.e.cast(ty));
            }
            let (result, val, conv) = match &ret {
                CType::Void => (None, None, None),
                t => {
                    let ty = self.value_type(t, at)?;
                    self.dest_var(dest, ty)?
                }
            };
            self.emit(Operation::Call {
                callee,
                args: lowered,
                result,
            })?;
            return finish(self, val, ret == CType::Ptr, conv, result);
        }
        // No body: `__VERIFIER_nondet_*` and other externals.
        let ret = match (&info, name.strip_prefix("__VERIFIER_nondet_")) {
            (Some(i), _) if matches!(i.ret, CType::Int(_) | CType::Ptr) => i.ret.clone(),
            (_, Some(suffix)) => nondet_suffix_type(suffix, self.model)
                .ok_or_else(|| self.unsupported(at, format!("unknown nondeterministic function `{name}`")))?,
            (Some(i), None) => i.ret.clone(),
            // An undeclared function is implicitly `int f()`.
            (None, None) => CType::Int(IntType::INT),
        };
        self.ignored_args(args)?;
        match &ret {
            CType::Int(_) | CType::Ptr => {
                let ty = self.value_type(&ret, at)?;
                let (lhs, val, conv) = self.dest_var(dest, ty)?;
                self.emit(Operation::Nondet {
                    lhs,
                    ty,
                    function: name,
                })?;
                finish(self, val, ret == CType::Ptr, conv, lhs)
            }
            CType::Void => {
                self.emit(Operation::Skip)?;
                Ok(None)
            }
            CType::Unsupported(s) => {
                if matches!(dest, Dest::Discard) {
                    self.emit(Operation::Skip)?;
                    Ok(None)
                } else {
                    Err(self.unsupported(at, s.clone()))
                }
            }
        }
    }

    // ----- finishing ------------------------------------------------------------------------

    /// Drops unreachable locations, checks for recursion and `main`, and builds the program.
    fn finish(self, name: &str, hash: String) -> Result<Program> {
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
        for (i, l) in self.locations.into_iter().enumerate() {
            if keep[i] {
                new_id[i] = LocId(locations.len() as u32);
                locations.push(l);
            }
        }
        let edges: Vec<Edge> = self
            .edges
            .into_iter()
            .filter(|e| keep[e.from.index()] && keep[e.to.index()])
            .map(|mut e| {
                e.from = new_id[e.from.index()];
                e.to = new_id[e.to.index()];
                e
            })
            .collect();
        let mut functions = self.functions;
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
        // Recursion: a cycle in the call graph.
        let nf = functions.len();
        let mut calls: Vec<Vec<(usize, SourceLoc)>> = vec![Vec::new(); nf];
        for e in &edges {
            if let Operation::Call { callee, .. } = e.op {
                let caller = locations[e.from.index()].func.index();
                calls[caller].push((callee.index(), e.source));
            }
        }
        let mut color = vec![0u8; nf];
        for start in 0..nf {
            if color[start] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
            color[start] = 1;
            while let Some(&mut (f, ref mut next)) = stack.last_mut() {
                if let Some(&(g, at)) = calls[f].get(*next) {
                    *next += 1;
                    match color[g] {
                        0 => {
                            color[g] = 1;
                            stack.push((g, 0));
                        }
                        1 => {
                            let from = stack.iter().position(|(x, _)| *x == g).unwrap_or(0);
                            let mut cycle: Vec<&str> = stack[from..]
                                .iter()
                                .map(|(x, _)| functions[*x].name.as_str())
                                .collect();
                            cycle.push(functions[g].name.as_str());
                            let file = self.files.get(at.file as usize).cloned().unwrap_or_default();
                            return Err(FrontendError::Unsupported {
                                file,
                                line: at.line,
                                construct: format!("recursion ({})", cycle.join(" -> ")),
                            });
                        }
                        _ => {}
                    }
                } else {
                    color[f] = 2;
                    stack.pop();
                }
            }
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
            files: self.files,
            hash,
            data_model: self.model,
            signed_overflow: Default::default(),
            variables: self.variables,
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
