//! Calls of functions without a body (other than the sv-benchmarks functions and the heap
//! functions): the C library functions Baton models, output functions, and any other
//! function, which must not be able to write memory Baton models.
//!
//! - The `<string.h>` functions of [`LibFunction`] become [`Operation::Library`] edges.
//! - `abs`, `labs`, `llabs` become a branch negating a negative argument (undefined for the
//!   type's minimum, as C says, through the negation's signed overflow); gcc's
//!   `__builtin_expect(e, c)` is `e`.
//! - Output functions write no program memory (C11 7.21.6, 7.21.7): `printf` (with a literal
//!   format without `%n`), `puts`, `putchar` and `perror` stay calls
//!   ([`Operation::External`], their arguments kept for C emission); `fprintf`, `fputs`,
//!   `fputc`, `putc` and `fflush` on `stdout` or `stderr` (or `fflush(NULL)`), whose result is
//!   not used, do nothing.
//! - Any other function: Baton does not know what it does, so a call that may write memory
//!   Baton models — a pointer argument (other than a null constant or a string literal, which
//!   it may not write), or a program with a pointer-typed global it could reach — is
//!   rejected; otherwise it is an [`Operation::External`] whose result, if used, is a value
//!   Baton does not know (never an input it can choose). An address converted to an integer
//!   before it is passed is seen only where the argument's expression takes it.

use super::*;
use crate::cfa::expr::ExprKind;
use crate::cfa::library::{LibFunction, OUTPUT_FUNCTIONS};

/// The output functions on a stream, and the position of their stream argument.
const STREAM_OUTPUT: [(&str, usize); 5] = [
    ("fprintf", 0),
    ("fputs", 1),
    ("fputc", 1),
    ("putc", 1),
    ("fflush", 0),
];

impl Lowerer<'_> {
    /// A call of `name`, a function without a body that is none of the sv-benchmarks or heap
    /// functions.
    pub(super) fn external_call(
        &mut self,
        name: &str,
        info: Option<&FuncInfo>,
        args: &[Node<Expression>],
        dest: Dest,
        at: usize,
    ) -> Result<Option<Val>> {
        if let Some(f) = LibFunction::by_name(name) {
            return self.library_call(f, args, dest, at);
        }
        match name {
            "abs" | "labs" | "llabs" => return self.abs_call(name, args, dest, at),
            "__builtin_expect" => return self.expect_call(args, dest, at),
            "printf" => self.check_format(name, args.first(), at)?,
            _ => {}
        }
        if let Some(&(_, stream)) = STREAM_OUTPUT.iter().find(|(f, _)| *f == name) {
            return self.stream_output(name, stream, args, dest, at);
        }
        let output = OUTPUT_FUNCTIONS.iter().any(|(f, ..)| *f == name);
        let mut lowered = Vec::with_capacity(args.len());
        for a in args {
            let v = self.rvalue(a)?;
            // It may call a function it is handed (`qsort`, `atexit`).
            if matches!(v.pointee, Some(CType::Func(_))) {
                return Err(self.unsupported(
                    a.span.start,
                    "function pointer passed to a function without a body (it may call it)",
                ));
            }
            lowered.push(v);
        }
        let mut values = Vec::with_capacity(args.len());
        for (i, (v, a)) in lowered.into_iter().zip(args).enumerate() {
            if !output && self.may_point(&v.e, v.pointee.is_some()) {
                return Err(self.unsupported(
                    at,
                    format!("call of `{name}`, a function without a body, that may write through its pointer argument"),
                ));
            }
            values.push(self.external_argument(v.e, info, i, a.span.start)?);
        }
        if !output {
            if let Some(global) = self.pointer_global() {
                return Err(self.unsupported(
                    at,
                    format!(
                        "call of `{name}`, a function without a body, that may write through the pointer-typed global `{global}`"
                    ),
                ));
            }
        }
        // An undeclared function is implicitly `int f()`.
        let ret = info.map_or(CType::Int(IntType::INT), |i| i.ret.clone());
        let ty = match &ret {
            CType::Void => None,
            CType::Int(_) | CType::Ptr(_) | CType::Union(_) => Some(self.value_type(&ret, at)?),
            CType::Array(..) => return Err(self.malformed(at, "function returning an array")),
            CType::Func(_) => return Err(self.malformed(at, "function returning a function")),
            CType::Struct(_) => return Err(self.unsupported(at, "external function returning a struct")),
            CType::MemoryUnion(_) => {
                return Err(self.unsupported(at, "external function returning a union with aggregate members"))
            }
            CType::Incomplete { .. } => {
                return Err(self.unsupported(at, "external function returning an incomplete type"))
            }
            CType::Unsupported(s) if !matches!(dest, Dest::Discard) => {
                return Err(self.unsupported(at, s.clone()))
            }
            CType::Unsupported(_) => None,
        };
        let (result, val, conv) = match ty {
            Some(ty) => self.dest_var(dest, ty)?,
            None => (None, None, None),
        };
        self.emit(Operation::External {
            function: name.to_string(),
            args: values,
            result,
        })?;
        self.finish_call(val, ret.pointee(), conv, result)
    }

    /// True if the value `e` (a pointer if `pointer`) may be an address a callee could write
    /// through: any pointer but a null constant or a string literal (writing one is
    /// undefined), and any integer whose expression takes an address.
    fn may_point(&self, e: &Expr, pointer: bool) -> bool {
        let mut addresses = Vec::new();
        e.for_each_address(&mut |v, _| addresses.push(v));
        let literal =
            matches!(&e.kind, ExprKind::Address { var, .. } if self.variables[var.index()].read_only);
        let null = e.as_const() == Some(0);
        (pointer && !null && !literal) || (!literal && !addresses.is_empty())
    }

    /// A global whose type holds a pointer, if the program has one: a function without a body
    /// could write through it.
    fn pointer_global(&self) -> Option<String> {
        let mut found: Vec<&String> = self.scopes[0]
            .iter()
            .filter(|(_, sym)| match sym {
                Sym::Var(v, t) => !self.extern_only.contains(v) && holds_pointer(t),
                Sym::Boxed(_, t) => holds_pointer(t),
                _ => false,
            })
            .map(|(name, _)| name)
            .collect();
        found.sort();
        found.first().map(|n| n.to_string())
    }

    /// Argument `i` of a call of a function without a body, converted to its declared
    /// parameter type, or promoted as C passes arguments without one.
    fn external_argument(&self, e: Expr, info: Option<&FuncInfo>, i: usize, at: usize) -> Result<Expr> {
        let declared = info.and_then(|f| f.params.as_ref()).and_then(|p| p.get(i));
        let ty = match declared {
            Some((_, t)) => self.value_type(t, at)?,
            None if e.ty.is_float() => IntType::DOUBLE,
            None => e.ty.promoted(),
        };
        Ok(e.cast(ty))
    }

    /// `printf`'s format must be a string literal without `%n` (which writes through an
    /// argument).
    fn check_format(&self, name: &str, format: Option<&Node<Expression>>, at: usize) -> Result<()> {
        let Some(Expression::StringLiteral(parts)) = format.map(|f| &f.node) else {
            return Err(self.unsupported(
                at,
                format!("`{name}` with a format that is not a string literal (it may contain %n)"),
            ));
        };
        let bytes = string_literal(&parts.node).unwrap_or_default();
        if writes_through_argument(&bytes) {
            return Err(self.unsupported(
                at,
                format!("`{name}` with %n in its format (it writes through its argument)"),
            ));
        }
        Ok(())
    }

    /// An output function on `stdout` or `stderr` whose result is not used: nothing happens
    /// but the evaluation of its other arguments.
    fn stream_output(
        &mut self,
        name: &str,
        stream: usize,
        args: &[Node<Expression>],
        dest: Dest,
        at: usize,
    ) -> Result<Option<Val>> {
        if !matches!(dest, Dest::Discard) {
            return Err(self.unsupported(at, format!("the result of `{name}`")));
        }
        let standard = |e: &Expression| match e {
            Expression::Identifier(id) => matches!(id.node.name.as_str(), "stdout" | "stderr"),
            _ => false,
        };
        let flush_all = name == "fflush" && args.first().is_some_and(|a| self.is_null_constant(a));
        if !args.get(stream).is_some_and(|a| standard(&a.node)) && !flush_all {
            return Err(self.unsupported(at, format!("`{name}` on a stream other than stdout or stderr")));
        }
        if name == "fprintf" {
            self.check_format(name, args.get(1), at)?;
        }
        let others: Vec<Node<Expression>> = args
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != stream)
            .map(|(_, a)| a.clone())
            .collect();
        self.ignored_args(&others)?;
        self.emit(Operation::Skip)?;
        Ok(None)
    }

    /// True for `0` and `NULL` (`(void *)0`).
    fn is_null_constant(&self, e: &Node<Expression>) -> bool {
        match &e.node {
            Expression::Constant(c) => {
                matches!(&c.node, Constant::Integer(i) if i.number.trim_start_matches('0').is_empty())
            }
            Expression::Cast(c) => self.is_null_constant(&c.node.expression),
            _ => false,
        }
    }

    /// A call of a modelled library function.
    fn library_call(
        &mut self,
        function: LibFunction,
        args: &[Node<Expression>],
        dest: Dest,
        at: usize,
    ) -> Result<Option<Val>> {
        let params = function.params();
        if args.len() != params.len() {
            return Err(self.malformed(
                at,
                format!(
                    "`{}` takes {} argument(s) but {} given",
                    function.name(),
                    params.len(),
                    args.len()
                ),
            ));
        }
        let mut values = Vec::with_capacity(args.len());
        for (a, p) in args.iter().zip(params) {
            let v = self.rvalue(a)?;
            values.push(v.e.cast(p.int_type(self.model)));
        }
        let ty = function.returns().int_type(self.model);
        let (result, val, conv) = self.dest_var(dest, ty)?;
        self.emit(Operation::Library {
            function,
            args: values,
            result,
        })?;
        let pointee = match function {
            LibFunction::Memset | LibFunction::Memcpy | LibFunction::Memmove => Some(CType::Void),
            _ if function.returns() == crate::cfa::library::LibType::Pointer => {
                Some(CType::Int(IntType::CHAR))
            }
            _ => None,
        };
        self.finish_call(val, pointee, conv, result)
    }

    /// gcc's `__builtin_expect(e, c)`: the value of `e` (as `long`); `c` is only a hint.
    fn expect_call(&mut self, args: &[Node<Expression>], dest: Dest, at: usize) -> Result<Option<Val>> {
        let [e, hint] = args else {
            return Err(self.malformed(at, "`__builtin_expect` takes two arguments"));
        };
        let v = self.rvalue(e)?;
        self.ignored_args(std::slice::from_ref(hint))?;
        let long = self.model.long();
        let (lhs, val, conv) = self.dest_var(dest, long)?;
        if let Some(x) = lhs {
            self.emit(Operation::Assign {
                lhs: x,
                rhs: v.e.cast(long),
            })?;
        }
        self.finish_call(val, None, conv, lhs)
    }

    /// `abs(x)` (`labs`, `llabs`): `x < 0 ? -x : x` in the argument's type, so that the
    /// minimum's negation is undefined as C says.
    fn abs_call(
        &mut self,
        name: &str,
        args: &[Node<Expression>],
        dest: Dest,
        at: usize,
    ) -> Result<Option<Val>> {
        let [arg] = args else {
            return Err(self.malformed(at, format!("`{name}` takes one argument")));
        };
        let ty = match name {
            "abs" => IntType::INT,
            "labs" => self.model.long(),
            _ => IntType::LLONG,
        };
        let v = self.rvalue(arg)?;
        let (lhs, val, conv) = self.dest_var(dest, ty)?;
        let t = match lhs {
            Some(t) => t,
            None => self.temp(ty)?,
        };
        self.emit(Operation::Assign {
            lhs: t,
            rhs: v.e.cast(ty),
        })?;
        let negative = Expr::binary(
            BinaryOp::Lt,
            Expr::var(t, ty),
            Expr::constant(0, ty),
            IntType::INT,
        );
        let from = self.cur()?;
        let (then, join) = (self.new_loc()?, self.new_loc()?);
        self.edge_from(
            from,
            Operation::Assume {
                cond: negative.clone(),
                branch: true,
            },
            then,
        );
        self.edge_from(
            from,
            Operation::Assume {
                cond: negative,
                branch: false,
            },
            join,
        );
        self.set_cur(Some(then))?;
        self.emit_to(
            Operation::Assign {
                lhs: t,
                rhs: Expr::unary(UnaryOp::Neg, Expr::var(t, ty), ty),
            },
            join,
        )?;
        self.set_cur(Some(join))?;
        self.finish_call(val, None, conv, lhs)
    }
}

/// True if a value of type `t` holds a pointer.
fn holds_pointer(t: &CType) -> bool {
    match t {
        CType::Ptr(_) => true,
        CType::Array(elem, _) => holds_pointer(elem),
        CType::Struct(s) => s.members.iter().any(|(_, m)| holds_pointer(m)),
        CType::MemoryUnion(u) => u.members.iter().any(|(_, m)| holds_pointer(m)),
        _ => false,
    }
}

/// True if a `printf` format (its bytes) has a `%n` conversion.
fn writes_through_argument(format: &[i128]) -> bool {
    let mut i = 0;
    while i < format.len() {
        if format[i] != i128::from(b'%') {
            i += 1;
            continue;
        }
        i += 1;
        // Flags, width, precision and length modifiers, then the conversion.
        while i < format.len()
            && b"-+ #0123456789.*'hlLqjzt"
                .iter()
                .any(|&c| i128::from(c) == format[i])
        {
            i += 1;
        }
        if format.get(i) == Some(&i128::from(b'n')) {
            return true;
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::writes_through_argument;

    #[test]
    fn percent_n_is_found_in_formats() {
        let bytes = |s: &str| s.bytes().map(i128::from).collect::<Vec<_>>();
        assert!(!writes_through_argument(&bytes("%d %s %5.2f %%n\n")));
        assert!(writes_through_argument(&bytes("x%n")));
        assert!(writes_through_argument(&bytes("%d%hhn")));
        assert!(!writes_through_argument(&bytes("100%%")));
    }
}
