//! Lowering of function pointers: functions as values and calls through pointers.
//!
//! A function whose address the program takes (its name used other than as a direct callee,
//! see [`crate::frontend::reach::address_taken`]) gets a fixed, distinct, non-null address
//! when its address is first needed, placed like an address-taken variable (see
//! [`crate::cfa::address`]); a function pointer is then an ordinary pointer value. A call
//! through a pointer becomes a dispatch over the address-taken functions whose signature is
//! compatible with the pointer's,
//!
//! ```c
//! t = fp;  if (t == &f) r = f(args); else if (t == &g) r = g(args); else <undefined>;
//! ```
//!
//! where the last case (null, the address of an object or of an incompatible function) is an
//! [`Operation::Undefined`] edge: every layer sees only assumes and ordinary calls. A global
//! initialized with a function's address (a table of callbacks) keeps the address as its
//! static initial value and is also assigned it when `main` starts, so that C emitted from
//! the CFA initializes it with the function and not with Baton's number.

use super::*;
use crate::cfa::address;
use crate::cfa::expr::ExprKind;
use crate::cfa::semantics::UndefinedBehavior;
use crate::frontend::types::FunctionType;

/// A global (or one element of a global array) initialized with a function's address, and
/// the address expression: assigned again when `main` starts.
pub(super) type FunctionInitial = (VarId, Option<u64>, Expr);

impl Lowerer<'_> {
    /// The type of the declared function `name`.
    pub(super) fn function_type(&self, name: &str) -> Option<CType> {
        let info = self.funcs.get(name)?;
        let params = info
            .params
            .as_ref()
            .map(|ps| ps.iter().map(|(_, t)| t.clone()).collect());
        Some(CType::function(info.ret.clone(), params, info.variadic))
    }

    /// The function designator `name` used as a value: its address, placed on first use.
    pub(super) fn function_value(&mut self, name: &str, at: usize) -> Result<Val> {
        if !self.defined_functions.contains(name) || is_special(name) {
            return Err(self.unsupported(
                at,
                format!("address of `{name}`, a function without a definition Baton lowers"),
            ));
        }
        let ty = self
            .function_type(name)
            .ok_or_else(|| self.malformed(at, format!("undeclared function `{name}`")))?;
        let address = match self.function_addresses.get(name) {
            Some(&a) => a,
            None => {
                let Some((start, next)) = address::place(self.next_address, 1, address::HEAP_BASE) else {
                    return Err(
                        self.unsupported(at, "address-taken objects larger than the static address space")
                    );
                };
                self.next_address = next;
                self.function_addresses.insert(name.to_string(), start);
                start
            }
        };
        Ok(Val {
            e: Expr {
                kind: ExprKind::Function {
                    name: name.to_string(),
                    address,
                },
                ty: self.model.pointer(),
            },
            pointee: Some(ty),
        })
    }

    /// Whether `e` is a function designator or a function pointer, so that `*e` is `e` again
    /// (C11 6.5.3.2:4 with 6.3.2.1:4).
    pub(super) fn is_function_value(&mut self, e: &Node<Expression>) -> bool {
        matches!(self.type_of(e), Ok(t) if t.called_function().is_some())
    }

    /// The value types of a signature's parameters and its return value (`None` for `void`),
    /// or `None` if a parameter or the return value is no scalar (a struct by value).
    fn signature(&self, ret: &CType, params: &[CType]) -> Option<(Vec<IntType>, Option<IntType>)> {
        let ret = match ret {
            CType::Void => None,
            t => Some(self.value_type(t, 0).ok()?),
        };
        let params = params
            .iter()
            .map(|t| match t {
                CType::Struct(_) => None,
                t => self.value_type(t, 0).ok(),
            })
            .collect::<Option<Vec<_>>>()?;
        Some((params, ret))
    }

    /// The address-taken functions with a body that a call with arguments of `args` and a
    /// result of `ret` may reach, by name: those whose parameters and result have these value
    /// types (a call of any other through the pointer has undefined behaviour).
    fn dispatch_candidates(&self, args: &[IntType], ret: Option<IntType>) -> Vec<(String, FuncId)> {
        let mut out = Vec::new();
        for name in &self.address_taken {
            let Some(FuncInfo {
                id: Some(id),
                ret: fret,
                params,
                variadic: false,
            }) = self.funcs.get(name)
            else {
                continue;
            };
            let params: Vec<CType> = params.iter().flatten().map(|(_, t)| t.clone()).collect();
            if self.signature(fret, &params) == Some((args.to_vec(), ret)) {
                out.push((name.clone(), *id));
            }
        }
        out
    }

    /// `callee(args)` where the callee is not a function's name: a dispatch over the
    /// functions the pointer may point to (see the module documentation).
    pub(super) fn call_through_pointer(
        &mut self,
        c: &Node<CallExpression>,
        dest: Dest,
    ) -> Result<Option<Val>> {
        let at = c.span.start;
        let callee = self.rvalue(&c.node.callee)?;
        let Some(CType::Func(fty)) = callee.pointee else {
            return Err(self.malformed(at, "called object is not a function or a function pointer"));
        };
        let FunctionType {
            ret,
            params,
            variadic,
        } = *fty;
        if variadic {
            return Err(self.unsupported(at, "call through a pointer to a variadic function"));
        }
        let ptr = self.model.pointer();
        let target = self.temp(ptr)?;
        self.emit(Operation::Assign {
            lhs: target,
            rhs: callee.e.cast(ptr),
        })?;
        let args = &c.node.arguments;
        if params.as_ref().is_some_and(|ps| ps.len() != args.len()) {
            return Err(self.malformed(at, "call through a pointer with the wrong number of arguments"));
        }
        let mut lowered = Vec::new();
        let mut types = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let ty = match params.as_ref().map(|ps| &ps[i]) {
                Some(CType::Struct(_)) => {
                    return Err(self.unsupported(a.span.start, "struct argument of a call through a pointer"))
                }
                Some(t) => self.value_type(t, a.span.start)?,
                // Unprototyped: the default argument promotions (C11 6.5.2.2:6).
                None => {
                    let t = self.type_of(a)?;
                    match self.value_type(&t, a.span.start)? {
                        IntType::FLOAT => IntType::DOUBLE,
                        t => t.promoted(),
                    }
                }
            };
            let v = self.rvalue(a)?;
            lowered.push(v.e.cast(ty));
            types.push(ty);
        }
        let ret_ty = match &ret {
            CType::Void => None,
            CType::Struct(_) => {
                return Err(self.unsupported(at, "struct returned through a function pointer"))
            }
            t => Some(self.value_type(t, at)?),
        };
        let (result, val, conv) = match ret_ty {
            None => (None, None, None),
            Some(ty) => self.dest_var(dest, ty)?,
        };
        let join = self.new_loc()?;
        for (name, id) in self.dispatch_candidates(&types, ret_ty) {
            let address = self.function_value(&name, at)?.e;
            let hit = Expr::binary(BinaryOp::Eq, Expr::var(target, ptr), address, IntType::INT);
            let (call, miss) = (self.new_loc()?, self.new_loc()?);
            let from = self.cur()?;
            self.edge_from(
                from,
                Operation::Assume {
                    cond: hit.clone(),
                    branch: true,
                },
                call,
            );
            self.edge_from(
                from,
                Operation::Assume {
                    cond: hit,
                    branch: false,
                },
                miss,
            );
            self.set_cur(Some(call))?;
            self.emit(Operation::Call {
                callee: id,
                args: lowered.clone(),
                result,
            })?;
            self.goto(join)?;
            self.set_cur(Some(miss))?;
        }
        let end = self.new_kind(LocationKind::Terminal)?;
        self.emit_to(
            Operation::Undefined {
                what: UndefinedBehavior::InvalidFunctionCall,
            },
            end,
        )?;
        self.set_cur(Some(join))?;
        if let (Some((x, xty)), Some(t)) = (conv, result) {
            let tty = self.variables[t.index()].ty;
            self.emit(Operation::Assign {
                lhs: x,
                rhs: Expr::var(t, tty).cast(xty),
            })?;
        }
        Ok(val.map(|e| Val {
            e,
            pointee: ret.pointee(),
        }))
    }

    /// The address expression of a constant initializer `e` of a global of type `ty`, if it
    /// takes a function's address (lowered again: a constant expression has no effects).
    pub(super) fn function_initial(&mut self, e: &Node<Expression>, ty: IntType) -> Result<Option<Expr>> {
        let saved = self.fs.take();
        let v = self.rvalue(e);
        self.fs = saved;
        let v = v?.e.cast(ty);
        let mut takes = false;
        v.for_each_function(&mut |_| takes = true);
        Ok(takes.then_some(v))
    }

    /// Assigns the globals initialized with function addresses their initial values again,
    /// at the start of `main` (see the module documentation).
    pub(super) fn assign_function_initials(&mut self) -> Result<()> {
        for (var, flat, e) in std::mem::take(&mut self.function_initials) {
            match flat {
                None => self.emit(Operation::Assign { lhs: var, rhs: e })?,
                Some(flat) => {
                    let extents = self.variables[var.index()]
                        .array
                        .as_ref()
                        .and_then(|s| s.fixed_extents())
                        .unwrap_or_default();
                    let mut index = Vec::new();
                    let mut rest = flat;
                    for n in extents.iter().rev() {
                        index.push(Expr::constant(i128::from(rest % n), self.model.long()));
                        rest /= n;
                    }
                    index.reverse();
                    self.emit(Operation::Store {
                        array: var,
                        index,
                        rhs: e,
                    })?;
                }
            }
        }
        Ok(())
    }
}
