//! Lowering of calls: functions with bodies, sv-benchmarks functions of fixed meaning, externals.

use super::*;

impl Lowerer<'_> {
    /// Lowers the arguments of a call whose values are ignored, for their side effects.
    /// A function without a body gets no function pointer: Baton does not know whether it
    /// calls it (`atexit`, `qsort`, `signal`).
    pub(super) fn ignored_args(&mut self, args: &[Node<Expression>]) -> Result<()> {
        for a in args {
            if !matches!(a.node, Expression::StringLiteral(_)) {
                let v = self.expr(a, false)?;
                if v.is_some_and(|v| matches!(v.pointee, Some(CType::Func(_)))) {
                    return Err(self.unsupported(
                        a.span.start,
                        "function pointer passed to a function without a body (it may call it)",
                    ));
                }
            }
        }
        Ok(())
    }

    /// Where a value-returning call writes: the variable to name in the edge, the value of the
    /// call expression, and a conversion to emit afterwards.
    pub(super) fn dest_var(&mut self, dest: Dest, ty: IntType) -> Result<CallDest> {
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

    pub(super) fn call(&mut self, c: &Node<CallExpression>, dest: Dest) -> Result<Option<Val>> {
        let at = c.span.start;
        let name = match &c.node.callee.node {
            Expression::Identifier(id) => id.node.name.clone(),
            _ => return self.call_through_pointer(c, dest),
        };
        match self.lookup(&name) {
            Some(Sym::Var(..)) => return self.call_through_pointer(c, dest),
            Some(Sym::Unmodelled(what)) => return Err(self.unsupported(at, what.clone())),
            _ => {}
        }
        let args = &c.node.arguments;
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
        let has_body = info.as_ref().is_some_and(|i| i.id.is_some());
        if !has_body {
            if let Some(val) = self.heap_call(&name, args, dest, at)? {
                return Ok(val);
            }
        }
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
                if let CType::Struct(_) = pt {
                    lowered.extend(self.struct_argument(a, pt)?);
                    continue;
                }
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
            return self.finish_call(val, ret.pointee(), conv, result);
        }
        // No body: `__VERIFIER_nondet_*` or an external function.
        match name.strip_prefix("__VERIFIER_nondet_") {
            Some(suffix) => self.nondet_call(&name, suffix, info.as_ref(), args, dest, at),
            None => self.external_call(&name, info.as_ref(), args, dest, at),
        }
    }

    /// The value of a call whose result the edge wrote into `tmp` (see [`Lowerer::dest_var`]),
    /// converted into the destination variable if it has another type.
    pub(super) fn finish_call(
        &mut self,
        val: Option<Expr>,
        pointee: Option<CType>,
        conv: Option<(VarId, IntType)>,
        tmp: Option<VarId>,
    ) -> Result<Option<Val>> {
        if let (Some((x, xty)), Some(t)) = (conv, tmp) {
            let tty = self.variables[t.index()].ty;
            self.emit(Operation::Assign {
                lhs: x,
                rhs: Expr::var(t, tty).cast(xty),
            })?;
        }
        Ok(val.map(|e| Val { e, pointee }))
    }

    /// `__VERIFIER_nondet_<suffix>()`: an input of its declared type (or of the type the
    /// suffix names).
    fn nondet_call(
        &mut self,
        name: &str,
        suffix: &str,
        info: Option<&FuncInfo>,
        args: &[Node<Expression>],
        dest: Dest,
        at: usize,
    ) -> Result<Option<Val>> {
        let ret = match info {
            Some(i) if matches!(i.ret, CType::Int(_) | CType::Ptr(_)) => i.ret.clone(),
            _ => nondet_suffix_type(suffix, self.model)
                .ok_or_else(|| self.unsupported(at, format!("unknown nondeterministic function `{name}`")))?,
        };
        self.ignored_args(args)?;
        let ty = self.value_type(&ret, at)?;
        let (lhs, val, conv) = self.dest_var(dest, ty)?;
        self.emit(Operation::Nondet {
            lhs,
            ty,
            function: name.to_string(),
        })?;
        self.finish_call(val, ret.pointee(), conv, lhs)
    }
}
