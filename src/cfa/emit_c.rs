//! Writes a CFA as a C file in sv-benchmarks style that CBMC, AFL++, KLEE and gcc accept.
//!
//! Every location becomes a label and every edge a statement followed by a `goto`; `#line`
//! directives point each statement at the original file and line, so a tool's report on the
//! emitted file names the original lines. The error function is defined as sv-benchmarks does
//! (calling `__assert_fail`), nondet values come from `__VERIFIER_nondet_<type>()`, calls of
//! the C library functions Baton models and of functions without a body stay calls (with
//! their prototypes, or unprototyped declarations for the latter), string literals are
//! written as literals, and a location where the program has no way on (a path the condition
//! covered, or an assumption) ends the path with `__VERIFIER_assume(0)` followed by a return.
//!
//! Arrays are emitted flat, in the row-major layout of [`super::memory`]: `int a[3][4]` becomes
//! `int a[12]` and `a[i][j]` becomes `a[(i) * 4 + (j)]`. A variable-length array becomes a
//! pointer that its declaration points at `__builtin_alloca` storage, because every local is
//! declared at the top of its function (a `goto` may not jump into the scope of a VLA).
//!
//! Pointers are values of the unsigned integer type of pointer width, as in the CFA
//! ([`super::address`]): `&x` is `((unsigned int)&x)`, a read through a pointer
//! `*(int *)(p)`, and heap blocks come from the C library's functions. The leaves of a struct
//! whose members' addresses are taken ([`RecordObject`]) are the members of one C struct
//! variable, with padding members where gcc pads the original struct, so the emitted program
//! lays them out as the original does: `&r.value` is `((unsigned int)&r__obj.r_value)`.

use super::address::{variable_size, RecordObject};
use super::expr::{Expr, ExprKind};
use super::library::OUTPUT_FUNCTIONS;
use super::memory::Extent;
use super::{AllocKind, LocId, Operation, Program, Scope, VarId};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// The C label of a location in the emitted C. [`crate::reducer::align`] finds the residual's
/// locations by these labels in the CFA a tool builds from the emitted file.
pub fn location_label(l: LocId) -> String {
    format!("L{}", l.0)
}

/// The functions whose address the program takes (`&f`) but which it has no function of:
/// the reducer inlines the calls of a function, so a residual may keep only its address.
fn address_only_functions(program: &Program) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for e in &program.edges {
        e.op.for_each_expr(&mut |x| {
            x.for_each_function_name(&mut |n| {
                names.insert(n.to_string());
            })
        });
    }
    for f in &program.functions {
        names.remove(&f.name);
    }
    names
}

/// A C identifier made of `raw` (a struct's leaf `s.n` becomes `s_n`), unique among `used`.
fn fresh_identifier(raw: &str, used: &mut BTreeSet<String>) -> String {
    let base: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut name = base.clone();
    let mut n = 1;
    while used.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    used.insert(name.clone());
    name
}

/// The C names of the variables: unique, valid, and not clashing with functions. The leaves
/// of a [`RecordObject`] are members of one C struct variable that has gcc's layout of the
/// original struct, so their addresses keep the offsets the program may observe.
struct CNames {
    /// Per variable: its identifier (a member name for a leaf of a record object).
    vars: Vec<String>,
    /// Per record object: the identifier of its C struct variable.
    objects: Vec<String>,
    /// The record object a variable is a member of.
    member_of: BTreeMap<VarId, usize>,
}

impl CNames {
    fn of(program: &Program) -> CNames {
        let mut used: BTreeSet<String> = program.functions.iter().map(|f| f.name.clone()).collect();
        used.extend(address_only_functions(program));
        // A global keeps its source name.
        let raw = |v: &super::Variable| {
            if v.scope == Scope::Global {
                v.source_name.clone()
            } else {
                v.name.clone()
            }
        };
        // A string literal is written as the literal.
        let vars = program
            .variables
            .iter()
            .map(|v| {
                if v.read_only {
                    string_literal(v)
                } else {
                    fresh_identifier(&raw(v), &mut used)
                }
            })
            .collect();
        let mut objects = Vec::with_capacity(program.record_objects.len());
        let mut member_of = BTreeMap::new();
        for (k, o) in program.record_objects.iter().enumerate() {
            // The struct's own name: its leaves' names up to the member suffix.
            let first = o
                .members
                .first()
                .map(|&v| raw(program.variable(v)))
                .unwrap_or_default();
            let root = first.split('.').next().unwrap_or_default();
            objects.push(fresh_identifier(&format!("{root}__obj"), &mut used));
            member_of.extend(o.members.iter().map(|&v| (v, k)));
        }
        CNames {
            vars,
            objects,
            member_of,
        }
    }

    /// The C lvalue naming variable `v`.
    fn name(&self, v: VarId) -> String {
        match self.member_of.get(&v) {
            Some(&k) => format!("{}.{}", self.objects[k], self.vars[v.index()]),
            None => self.vars[v.index()].clone(),
        }
    }
}

/// Renders the program as C.
pub fn emit_c(program: &Program) -> String {
    let model = program.data_model;
    let names = CNames::of(program);
    let name = |v: VarId| names.name(v);
    let expr = |e: &super::expr::Expr| {
        let mut s = String::new();
        e.write_c(&mut s, model, &name);
        s
    };
    // The flat position `a[i][j]` names, and the element count of `a`, as C expressions.
    let dims = |array: VarId| {
        program
            .variable(array)
            .array
            .as_ref()
            .map(|a| a.dims.as_slice())
            .unwrap_or(&[])
    };
    let flat = |array: VarId, index: &[Expr]| -> String {
        let dims = dims(array);
        let mut at = String::new();
        for (k, i) in index.iter().enumerate() {
            at = if k == 0 {
                format!("({})", expr(i))
            } else {
                format!("({at} * {} + {})", extent(&name, dims[k]), expr(i))
            };
        }
        at
    };
    let count = |array: VarId| -> String {
        let parts: Vec<String> = dims(array)
            .iter()
            .map(|&d| format!("(unsigned long long){}", extent(&name, d)))
            .collect();
        parts.join(" * ")
    };
    let file = program.files.first().cloned().unwrap_or_default();

    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Generated by Baton from {file} (program sha256 {})",
        program.hash
    );
    out.push_str("extern void abort(void);\nextern void exit(int);\nextern void __VERIFIER_assume(int);\n");
    out.push_str(
        "extern void __assert_fail(const char *, const char *, unsigned int, const char *) \
         __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__noreturn__));\n",
    );
    // Error functions and nondet functions the program uses.
    let mut error_functions = BTreeSet::new();
    let mut nondet_functions = BTreeMap::new();
    for e in &program.edges {
        match &e.op {
            Operation::Error { function } => {
                error_functions.insert(function.clone());
            }
            Operation::Nondet { ty, .. } => {
                nondet_functions.insert(
                    format!("__VERIFIER_nondet_{}", ty.nondet_suffix(model)),
                    ty.c_name(model),
                );
            }
            _ => {}
        }
    }
    for f in &error_functions {
        let _ = writeln!(
            out,
            "void {f}(void) {{ __assert_fail(\"0\", \"{file}\", 0, \"{f}\"); }}"
        );
    }
    for (f, ty) in &nondet_functions {
        let _ = writeln!(out, "extern {ty} {f}(void);");
    }
    for line in library_declarations(program) {
        let _ = writeln!(out, "{line}");
    }
    if program.edges.iter().any(|e| e.op.is_pointer_access()) {
        let size = model.ulong().c_name(model);
        let _ = writeln!(
            out,
            "extern void *malloc({size});\nextern void *calloc({size}, {size});\n\
             extern void *realloc(void *, {size});\nextern void free(void *);"
        );
    }
    out.push('\n');
    // `T x` or `T x[n]` for a variable of constant size called `id`.
    let declarator = |v: VarId, id: &str| {
        let var = program.variable(v);
        let ty = var.ty.c_name(model);
        match &var.array {
            None => format!("{ty} {id}"),
            Some(_) => format!("{ty} {id}[{}]", count(v)),
        }
    };
    // The static initial value of a global.
    let initial = |v: VarId| {
        let var = program.variable(v);
        match &var.array {
            None => expr(&Expr::constant(var.initial, var.ty)),
            Some(shape) => {
                let elements: Vec<String> = shape
                    .initial
                    .iter()
                    .map(|&(at, x)| format!("[{at}] = {}", expr(&Expr::constant(x, var.ty))))
                    .collect();
                format!("{{ {} }}", elements.join(", "))
            }
        }
    };
    // The C struct variable of record object `k`: every leaf at its offset (padding between
    // them), with the leaves' initial values for a global.
    let object_declaration = |k: usize, with_initial: bool| {
        let o: &RecordObject = &program.record_objects[k];
        let address = |v: VarId| program.variable(v).address.unwrap_or(0);
        let start = o.members.first().map_or(0, |&v| address(v));
        let (mut fields, mut initials, mut end) = (String::new(), Vec::new(), 0);
        for (i, &v) in o.members.iter().enumerate() {
            let offset = address(v).saturating_sub(start);
            if offset > end {
                let _ = write!(fields, "unsigned char __baton_pad{i}[{}]; ", offset - end);
            }
            let field = &names.vars[v.index()];
            let _ = write!(fields, "{}; ", declarator(v, field));
            initials.push(format!(".{field} = {}", initial(v)));
            end = offset.saturating_add(variable_size(program, v).unwrap_or(0));
        }
        if o.size > end {
            let _ = write!(fields, "unsigned char __baton_pad_end[{}]; ", o.size - end);
        }
        let init = if with_initial {
            format!(" = {{ {} }}", initials.join(", "))
        } else {
            String::new()
        };
        format!("struct {{ {fields}}} {}{init};", names.objects[k])
    };
    let mut declared_objects = BTreeSet::new();
    for (id, _) in program.globals().filter(|(_, v)| !v.read_only) {
        match names.member_of.get(&id) {
            Some(&k) => {
                if declared_objects.insert(k) {
                    let _ = writeln!(out, "{}", object_declaration(k, true));
                }
            }
            None => {
                let _ = writeln!(out, "{} = {};", declarator(id, &name(id)), initial(id));
            }
        }
    }
    out.push('\n');

    // Prototypes, then bodies.
    let signature = |f: &super::Function| {
        let ret = f.return_type.map(|t| t.c_name(model)).unwrap_or("void");
        let params: Vec<String> = f
            .params
            .iter()
            .map(|&p| format!("{} {}", program.variable(p).ty.c_name(model), name(p)))
            .collect();
        let params = if params.is_empty() {
            "void".to_string()
        } else {
            params.join(", ")
        };
        format!("{ret} {}({params})", f.name)
    };
    for f in &program.functions {
        if f.name != "main" {
            let _ = writeln!(out, "{};", signature(f));
        }
    }
    // Only compared with function pointers (every call of it was inlined): any function
    // with this name has a distinct address.
    for f in address_only_functions(program) {
        let _ = writeln!(out, "static void {f}(void) {{}}");
    }
    for f in &program.functions {
        let _ = writeln!(out, "\n{} {{", signature(f));
        // Locals: every non-global variable the function touches, except parameters.
        let mut locals = BTreeSet::new();
        for &loc in &f.locations {
            for &e in program.out_edges(loc) {
                let op = &program.edge(e).op;
                let mut local = |v: VarId| {
                    if program.variable(v).scope != Scope::Global && !f.params.contains(&v) {
                        locals.insert(v);
                    }
                };
                op.for_each_var(&mut local);
                op.for_each_expr(&mut |e| e.for_each_address(&mut |v, _| local(v)));
            }
        }
        if let Some(rv) = f.return_var {
            if !f.params.contains(&rv) {
                locals.insert(rv);
            }
        }
        let mut declared_objects = BTreeSet::new();
        for &v in &locals {
            let var = program.variable(v);
            let _ = match (names.member_of.get(&v), &var.array) {
                (Some(&k), _) => {
                    if declared_objects.insert(k) {
                        let _ = writeln!(out, "  {}", object_declaration(k, false));
                    }
                    continue;
                }
                (None, Some(shape)) if shape.fixed_extents().is_none() => {
                    writeln!(out, "  {} *{};", var.ty.c_name(model), name(v))
                }
                (None, _) => writeln!(out, "  {};", declarator(v, &name(v))),
            };
        }
        let label = location_label;
        let block = match f.return_type {
            Some(_) => "__VERIFIER_assume(0); return 0;",
            None => "__VERIFIER_assume(0); return;",
        };
        let _ = writeln!(out, "  goto {};", label(f.entry));
        // The (file, line) the preprocessor gives the next text line under the last `#line`
        // directive: every text line after a directive counts one up, so a directive is
        // needed whenever a statement's line differs from that.
        let mut presumed: Option<(u32, u32)> = None;
        let mut scanned = out.len();
        for &loc in &f.locations {
            let _ = writeln!(out, " {}:;", label(loc));
            if loc == f.exit {
                match f.return_var {
                    Some(rv) => {
                        let _ = writeln!(out, "  return {};", name(rv));
                    }
                    None => out.push_str("  return;\n"),
                }
                continue;
            }
            let edges = program.out_edges(loc);
            for &e in edges {
                let edge = program.edge(e);
                if let Some((_, line)) = &mut presumed {
                    let lines = out[scanned..].matches('\n').count() as u32;
                    *line = line.saturating_add(lines);
                }
                scanned = out.len();
                let wanted = (edge.source.file, edge.source.line);
                if edge.source.line > 0 && presumed != Some(wanted) {
                    let file = program
                        .files
                        .get(edge.source.file as usize)
                        .cloned()
                        .unwrap_or_default();
                    let _ = writeln!(out, "#line {} \"{}\"", edge.source.line, file.replace('\\', "/"));
                    presumed = Some(wanted);
                    scanned = out.len();
                }
                let to = label(edge.to);
                let stmt = match &edge.op {
                    Operation::Assume { cond, branch } => {
                        let c = expr(cond);
                        let c = if *branch { c } else { format!("!{c}") };
                        format!("if ({c}) goto {to};")
                    }
                    Operation::Skip => format!("goto {to};"),
                    Operation::Declare { var, init } => {
                        let v = program.variable(*var);
                        let alloc = match &v.array {
                            Some(shape) if shape.fixed_extents().is_none() => format!(
                                "{} = __builtin_alloca(sizeof({}) * {}); ",
                                name(*var),
                                v.ty.c_name(model),
                                count(*var)
                            ),
                            _ => String::new(),
                        };
                        let init = match (init, &v.array) {
                            (None, _) => String::new(),
                            (Some(e), None) => format!("{} = {}; ", name(*var), expr(e)),
                            (Some(e), Some(_)) => format!(
                                "{{ unsigned long long __baton_i; for (__baton_i = 0; __baton_i < {}; __baton_i++) {}[__baton_i] = {}; }} ",
                                count(*var),
                                name(*var),
                                expr(e)
                            ),
                        };
                        format!("{alloc}{init}goto {to};")
                    }
                    Operation::Load { lhs, array, index } => {
                        format!(
                            "{} = {}[{}]; goto {to};",
                            name(*lhs),
                            name(*array),
                            flat(*array, index)
                        )
                    }
                    Operation::Store { array, index, rhs } => {
                        format!(
                            "{}[{}] = {}; goto {to};",
                            name(*array),
                            flat(*array, index),
                            expr(rhs)
                        )
                    }
                    Operation::Assign { lhs, rhs } => format!("{} = {}; goto {to};", name(*lhs), expr(rhs)),
                    Operation::LoadPtr { lhs, address } => format!(
                        "{} = *({} *){}; goto {to};",
                        name(*lhs),
                        program.variable(*lhs).ty.c_name(model),
                        expr(address)
                    ),
                    Operation::StorePtr { address, rhs } => format!(
                        "*({} *){} = {}; goto {to};",
                        rhs.ty.c_name(model),
                        expr(address),
                        expr(rhs)
                    ),
                    Operation::Alloc { lhs, kind, size } => {
                        let call = match kind {
                            AllocKind::Malloc => format!("malloc({})", expr(size)),
                            AllocKind::Calloc => format!("calloc(1, {})", expr(size)),
                            AllocKind::Alloca => format!("__builtin_alloca({})", expr(size)),
                            // Read back as `Automatic` (see `frontend::lower::pointer`); 128 bits
                            // is gcc's own alignment of `alloca` storage.
                            AllocKind::Automatic => {
                                format!("__builtin_alloca_with_align({}, 128)", expr(size))
                            }
                            AllocKind::Realloc { from } => {
                                format!("realloc((void *){}, {})", expr(from), expr(size))
                            }
                        };
                        let ty = program.variable(*lhs).ty.c_name(model);
                        format!("{} = ({ty}){call}; goto {to};", name(*lhs))
                    }
                    Operation::Free { address } => format!("free((void *){}); goto {to};", expr(address)),
                    Operation::Nondet { lhs, ty, .. } => {
                        let call = format!("__VERIFIER_nondet_{}()", ty.nondet_suffix(model));
                        match lhs {
                            Some(v) => format!("{} = {call}; goto {to};", name(*v)),
                            None => format!("{call}; goto {to};"),
                        }
                    }
                    Operation::Call { callee, args, result } => {
                        let args: Vec<String> = args.iter().map(expr).collect();
                        let call = format!("{}({})", program.function(*callee).name, args.join(", "));
                        match result {
                            Some(v) => format!("{} = {call}; goto {to};", name(*v)),
                            None => format!("{call}; goto {to};"),
                        }
                    }
                    Operation::Library {
                        function,
                        args,
                        result,
                    } => {
                        let args: Vec<String> = args
                            .iter()
                            .enumerate()
                            .map(|(i, a)| format!("({}){}", function.c_param(i, model), expr(a)))
                            .collect();
                        let call = format!("{}({})", function.name(), args.join(", "));
                        match result {
                            Some(v) => format!(
                                "{} = ({}){call}; goto {to};",
                                name(*v),
                                program.variable(*v).ty.c_name(model)
                            ),
                            None => format!("{call}; goto {to};"),
                        }
                    }
                    Operation::External {
                        function,
                        args,
                        result,
                    } => {
                        // An output function's pointer parameters take a string literal as
                        // it is (its format is read back as a literal), other pointers cast.
                        let pointers = OUTPUT_FUNCTIONS
                            .iter()
                            .find(|(f, ..)| f == function)
                            .map_or(&[][..], |(_, _, p)| *p);
                        let args: Vec<String> = args
                            .iter()
                            .enumerate()
                            .map(|(i, a)| match (&a.kind, pointers.get(i)) {
                                (ExprKind::Address { var, .. }, Some(true))
                                    if program.variable(*var).read_only =>
                                {
                                    name(*var)
                                }
                                (_, Some(true)) => format!("(const char *){}", expr(a)),
                                _ => expr(a),
                            })
                            .collect();
                        let call = format!("{function}({})", args.join(", "));
                        match result {
                            Some(v) => format!("{} = {call}; goto {to};", name(*v)),
                            None => format!("{call}; goto {to};"),
                        }
                    }
                    Operation::Return { value } => match (value, f.return_var) {
                        (Some(v), Some(rv)) => format!("{} = {}; goto {to};", name(rv), expr(v)),
                        _ => format!("goto {to};"),
                    },
                    Operation::Error { function } => format!("{function}(); goto {to};"),
                    Operation::Abort { .. } => format!("abort(); goto {to};"),
                    // Any behaviour is right for an execution with undefined behaviour.
                    Operation::Undefined { what } => {
                        format!("/* undefined behaviour: {what} */ abort(); goto {to};")
                    }
                    Operation::Exit { code } => format!("exit({}); goto {to};", expr(code)),
                };
                let _ = writeln!(out, "  {stmt}");
            }
            // No way on (or every assume failed): the path ends here.
            let has_unconditional = edges.iter().any(|&e| !program.edge(e).op.is_assume());
            if !has_unconditional {
                let _ = writeln!(out, "  {block}");
            }
        }
        out.push_str("}\n");
    }
    out
}

/// The declarations of the library functions and functions without a body the program
/// calls: standard prototypes for the library, unprototyped ones (any arguments) returning
/// the type of a used result for the others.
fn library_declarations(program: &Program) -> Vec<String> {
    let model = program.data_model;
    let mut library = BTreeSet::new();
    let mut external: BTreeMap<&str, Option<&'static str>> = BTreeMap::new();
    for e in &program.edges {
        match &e.op {
            Operation::Library { function, .. } => {
                library.insert(function.prototype(model));
            }
            Operation::External { function, result, .. } => {
                let ty = result.map(|r| program.variable(r).ty.c_name(model));
                let known = external.entry(function).or_default();
                *known = known.or(ty);
            }
            _ => {}
        }
    }
    let library = library.into_iter().map(|p| format!("extern {p};"));
    let external =
        external.into_iter().map(
            |(f, ty)| match OUTPUT_FUNCTIONS.iter().find(|(name, ..)| *name == f) {
                Some((_, prototype, _)) => format!("extern {prototype};"),
                None => format!("extern {} {f}();", ty.unwrap_or("int")),
            },
        );
    library.chain(external).collect()
}

/// The C string literal of a string literal's array (its bytes but the final NUL, which
/// the literal adds), with every byte C's escapes would not keep as it is written in octal.
fn string_literal(v: &super::Variable) -> String {
    let len = v
        .array
        .as_ref()
        .and_then(|a| a.fixed_extents())
        .and_then(|e| e.first().copied())
        .unwrap_or(1);
    let mut bytes = vec![0u8; len.saturating_sub(1) as usize];
    for &(at, value) in v.array.iter().flat_map(|a| &a.initial) {
        if let Some(b) = bytes.get_mut(at as usize) {
            *b = value as u8;
        }
    }
    let mut out = String::from("\"");
    for b in bytes {
        match b {
            b'"' | b'\\' | b'?' => {
                let _ = write!(out, "\\{}", b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out.push('"');
    out
}

/// An array extent as a C expression.
fn extent(name: &impl Fn(VarId) -> String, d: Extent) -> String {
    match d {
        Extent::Fixed(n) => n.to_string(),
        Extent::Var(v) => name(v),
    }
}
