//! Lowering of expressions into pure `Expr`s, hoisting side effects into edges.

use super::array::Place;
use super::*;

impl Lowerer<'_> {
    /// Lowers an expression whose value is needed.
    pub(super) fn rvalue(&mut self, e: &Node<Expression>) -> Result<Val> {
        match self.expr(e, true)? {
            Some(v) => Ok(v),
            None => Err(self.malformed(e.span.start, "void value used")),
        }
    }

    /// The place an lvalue designates (its subscripts lowered) and its type.
    pub(super) fn lvalue(&mut self, e: &Node<Expression>) -> Result<(Place, CType)> {
        match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Sym::Var(_, CType::Array(..))) | Some(Sym::Boxed(_, CType::Array(..))) => {
                    Err(self.malformed(e.span.start, "array is not assignable"))
                }
                Some(Sym::Boxed(p, t)) => {
                    let address = Expr::var(*p, self.model.pointer());
                    Ok((Place::Deref { address }, t.clone()))
                }
                Some(Sym::Var(v, t)) => {
                    let (v, t) = (*v, t.clone());
                    self.check_extern(v, e.span.start)?;
                    Ok((Place::Var(v), t))
                }
                Some(Sym::Unmodelled(what)) => Err(self.unsupported(e.span.start, what.clone())),
                Some(_) => Err(self.malformed(e.span.start, format!("`{}` is not assignable", id.node.name))),
                None => {
                    Err(self.malformed(e.span.start, format!("undeclared identifier `{}`", id.node.name)))
                }
            },
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => self
                .pointed_place(e)?
                .ok_or_else(|| self.malformed(e.span.start, "expression is not assignable")),
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => self
                .element(e)?
                .ok_or_else(|| self.malformed(e.span.start, "expression is not assignable")),
            Expression::Member(m) => self.member_place(m),
            _ => Err(self.malformed(e.span.start, "expression is not assignable")),
        }
    }

    pub(super) fn check_extern(&self, v: VarId, offset: usize) -> Result<()> {
        if self.extern_only.contains(&v) {
            return Err(self.unsupported(offset, "extern variable without definition"));
        }
        Ok(())
    }

    /// Lowers an expression; `used` says whether its value is needed (statement context
    /// avoids temporaries). `None` for void expressions.
    pub(super) fn expr(&mut self, e: &Node<Expression>, used: bool) -> Result<Option<Val>> {
        self.nested(e.span.start, |l| l.expr_node(e, used))
    }

    pub(super) fn expr_node(&mut self, e: &Node<Expression>, used: bool) -> Result<Option<Val>> {
        let at = e.span.start;
        let int = |e: Expr| Ok(Some(Val { e, pointee: None }));
        match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name).cloned() {
                Some(Sym::Var(v, t)) => {
                    self.check_extern(v, at)?;
                    if let CType::Array(elem, _) = &t {
                        return self.decay(v, &t, (**elem).clone(), at).map(Some);
                    }
                    let ty = self.value_type(&t, at)?;
                    Ok(Some(Val {
                        e: Expr::var(v, ty),
                        pointee: t.pointee(),
                    }))
                }
                Some(Sym::Boxed(p, CType::Array(elem, _))) => Ok(Some(Val {
                    e: Expr::var(p, self.model.pointer()),
                    pointee: Some(self.complete(*elem)),
                })),
                Some(Sym::Boxed(..)) => Err(self.unsupported(at, record::STRUCT_VALUE)),
                Some(Sym::Const(c)) => int(Expr::int(c)),
                Some(Sym::Func) => self.function_value(&id.node.name, at).map(Some),
                Some(Sym::Unmodelled(what)) => Err(self.unsupported(at, what)),
                Some(Sym::Typedef(_)) => Err(self.malformed(at, "type name used as a value")),
                None => Err(self.malformed(at, format!("undeclared identifier `{}`", id.node.name))),
            },
            Expression::Constant(c) => match &c.node {
                Constant::Integer(i) => match integer_constant(i, self.model) {
                    Some((v, t)) => int(Expr::constant(v, t)),
                    None => Err(self.unsupported(at, "integer constant too large")),
                },
                Constant::Float(f) => {
                    let (bits, ty) = self.float_constant(f, at)?;
                    int(Expr::constant(bits, ty))
                }
                Constant::Character(s) => match character_constant(s) {
                    Some(v) => int(Expr::int(v)),
                    None => Err(self.unsupported(at, format!("character constant {s}"))),
                },
            },
            Expression::StringLiteral(parts) => self.string_value(&parts.node, at).map(Some),
            Expression::GenericSelection(_) => Err(self.unsupported(at, "_Generic")),
            Expression::Member(m) => {
                if let Expression::CompoundLiteral(literal) = &m.node.expression.node {
                    if m.node.operator.node == lang_c::ast::MemberOperator::Direct {
                        return int(self.literal_member(literal, &m.node.identifier.node.name, at)?);
                    }
                }
                let (place, t) = self.member_place(m)?;
                self.place_value(place, t, at).map(Some)
            }
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
                let align = match ct {
                    CType::Struct(_) | CType::MemoryUnion(_) => i128::from(self.layout_of(&ct, at)?.1),
                    _ => self.size_of(&ct, at)?,
                };
                int(Expr::constant(align, self.model.ulong()))
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
                    CType::Ptr(pointee) => {
                        let v = self.rvalue(&c.node.expression)?;
                        Ok(Some(Val {
                            e: v.e.cast(self.model.pointer()),
                            pointee: Some(*pointee),
                        }))
                    }
                    CType::Array(..) => Err(self.malformed(at, "cast to an array type")),
                    CType::Func(_) => Err(self.malformed(at, "cast to a function type")),
                    CType::Incomplete { .. } => Err(self.malformed(at, "cast to an incomplete type")),
                    CType::Union(_) | CType::MemoryUnion(_) => {
                        Err(self.unsupported(at, "cast to a union type"))
                    }
                    CType::Struct(_) => Err(self.unsupported(at, "cast to a struct type")),
                    CType::Unsupported(s) => Err(self.unsupported(at, s)),
                }
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                let (place, t) = self.element(e)?.ok_or_else(|| self.malformed(at, "subscript"))?;
                self.place_value(place, t, at).map(Some)
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
                        let pointee = a.pointee.clone().or_else(|| b.pointee.clone());
                        let ty = if pointee.is_some() {
                            self.model.pointer()
                        } else {
                            IntType::common(a.e.ty, b.e.ty)
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
                            pointee,
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
            Expression::OffsetOf(o) => self.offset_of(o, at).map(Some),
            Expression::VaArg(_) => Err(self.unsupported(at, "variadic arguments (va_arg)")),
            Expression::Statement(_) => Err(self.unsupported(at, "statement expression")),
        }
    }

    /// `c ? a : b` in a constant expression (outside functions, as in glibc's `<ctype.h>`):
    /// the value of the operand `c` chooses, in the common type of both.
    pub(super) fn constant_conditional(
        &mut self,
        c: &Node<lang_c::ast::ConditionalExpression>,
    ) -> Result<Option<Val>> {
        let chosen = self.const_eval(&c.node.condition)? != 0;
        let a = self.rvalue(&c.node.then_expression)?;
        let b = self.rvalue(&c.node.else_expression)?;
        if a.pointee.is_some() || b.pointee.is_some() {
            return Err(self.unsupported(c.span.start, "non-constant initializer"));
        }
        let ty = IntType::common(a.e.ty, b.e.ty);
        let v = if chosen { a } else { b };
        Ok(Some(Val {
            e: v.e.cast(ty),
            pointee: None,
        }))
    }

    /// The bit pattern and type of a floating-point constant.
    pub(super) fn float_constant(&self, c: &lang_c::ast::Float, at: usize) -> Result<(i128, IntType)> {
        float_constant(c, self.model).map_err(|what| match what {
            Some(what) => self.unsupported(at, what),
            None => self.malformed(at, "malformed floating-point constant"),
        })
    }

    pub(super) fn size_of(&self, t: &CType, at: usize) -> Result<i128> {
        Ok(match t {
            CType::Void => 1,
            CType::Int(i) => i128::from(i.size_bytes()),
            CType::Union(u) => i128::from(u.storage().size_bytes()),
            CType::Ptr(_) => i128::from(self.model.pointer().size_bytes()),
            CType::Incomplete { .. } => return Err(self.unsupported(at, "sizeof of an incomplete type")),
            CType::Array(elem, ArrayLen::Fixed(n)) => {
                let size = self.size_of(elem, at)?.checked_mul(i128::from(*n));
                size.ok_or_else(|| self.malformed(at, "array too large"))?
            }
            CType::Struct(_) | CType::MemoryUnion(_) => i128::from(self.layout_of(t, at)?.0),
            CType::Array(..) => return Err(self.unsupported(at, "sizeof of a variable-length array")),
            CType::Func(_) => return Err(self.unsupported(at, "sizeof of a function type")),
            CType::Unsupported(s) => return Err(self.unsupported(at, format!("sizeof of {s}"))),
        })
    }

    /// The C type of an expression without evaluating it (for `sizeof expr`).
    pub(super) fn type_of(&mut self, e: &Node<Expression>) -> Result<CType> {
        let at = e.span.start;
        Ok(match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Sym::Var(_, t)) | Some(Sym::Boxed(_, t)) => t.clone(),
                Some(Sym::Const(_)) => CType::Int(IntType::INT),
                Some(Sym::Func) => match self.function_type(&id.node.name) {
                    Some(t) => t,
                    None => return Err(self.malformed(at, "undeclared function")),
                },
                Some(Sym::Unmodelled(what)) => return Err(self.unsupported(at, what.clone())),
                _ => return Err(self.unsupported(at, "sizeof of this expression")),
            },
            Expression::Constant(c) => match &c.node {
                Constant::Integer(i) => match integer_constant(i, self.model) {
                    Some((_, t)) => CType::Int(t),
                    None => return Err(self.unsupported(at, "integer constant too large")),
                },
                Constant::Character(_) => CType::Int(IntType::INT),
                Constant::Float(f) => CType::Int(self.float_constant(f, at)?.1),
            },
            Expression::Cast(c) => self.type_name(&c.node.type_name)?,
            Expression::StringLiteral(parts) => self.string_type(&parts.node, at)?,
            Expression::Member(m) => {
                let name = &m.node.identifier.node.name;
                let base = match (self.type_of(&m.node.expression)?, &m.node.operator.node) {
                    (CType::Ptr(t), lang_c::ast::MemberOperator::Indirect) => self.complete(*t),
                    (t, _) => t,
                };
                let member = match base {
                    CType::Struct(s) => s.members.iter().find(|(n, _)| n == name).map(|(_, t)| t.clone()),
                    CType::Union(u) => u
                        .members
                        .iter()
                        .find(|(n, _)| n == name)
                        .map(|(_, t)| CType::Int(*t)),
                    u @ CType::MemoryUnion(_) => self.member_offset(&u, name, at).ok().map(|(_, t)| t),
                    _ => None,
                };
                member.ok_or_else(|| self.malformed(at, format!("no member `{name}`")))?
            }
            Expression::SizeOfTy(_)
            | Expression::SizeOfVal(_)
            | Expression::AlignOf(_)
            | Expression::OffsetOf(_) => CType::Int(self.model.ulong()),
            Expression::UnaryOperator(u) => match u.node.operator.node {
                UnaryOperator::Negate => CType::Int(IntType::INT),
                UnaryOperator::Address => CType::pointer_to(self.type_of(&u.node.operand)?),
                UnaryOperator::Indirection => match self.type_of(&u.node.operand)? {
                    f @ CType::Func(_) => f,
                    CType::Ptr(t) | CType::Array(t, _) => self.complete(*t),
                    _ => return Err(self.malformed(at, "dereference of something that is not a pointer")),
                },
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
                    B::Index => match self.type_of(&b.node.lhs)? {
                        CType::Array(elem, _) | CType::Ptr(elem) => self.complete(*elem),
                        _ => return Err(self.unsupported(at, "subscript of this expression")),
                    },
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
                            (CType::Ptr(_), CType::Ptr(_)) => CType::Int(self.model.long()),
                            (p @ CType::Ptr(_), _) | (_, p @ CType::Ptr(_)) => p,
                            (CType::Array(elem, _), _) | (_, CType::Array(elem, _)) => CType::Ptr(elem),
                            _ => return Err(self.unsupported(at, "sizeof of this expression")),
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
                    (p @ CType::Ptr(_), _) | (_, p @ CType::Ptr(_)) => p,
                    _ => return Err(self.unsupported(at, "sizeof of this expression")),
                }
            }
            Expression::Comma(es) => match es.last() {
                Some(x) => self.type_of(x)?,
                None => return Err(self.malformed(at, "empty comma expression")),
            },
            Expression::Call(c) => match &c.node.callee.node {
                Expression::Identifier(id)
                    if matches!(self.lookup(&id.node.name), Some(Sym::Func) | None) =>
                {
                    match self.funcs.get(&id.node.name) {
                        Some(info) => info.ret.clone(),
                        None => CType::Int(IntType::INT),
                    }
                }
                _ => match self.type_of(&c.node.callee)?.called_function() {
                    Some(f) => f.ret.clone(),
                    None => {
                        return Err(
                            self.malformed(at, "called object is not a function or a function pointer")
                        )
                    }
                },
            },
            _ => return Err(self.unsupported(at, "sizeof of this expression")),
        })
    }

    pub(super) fn unary(
        &mut self,
        u: &Node<lang_c::ast::UnaryOperatorExpression>,
        used: bool,
        at: usize,
    ) -> Result<Option<Val>> {
        use UnaryOperator as U;
        let op = u.node.operator.node.clone();
        match op {
            U::Address => self.address_of(&u.node.operand, at).map(Some),
            // `*fp` and `*f` designate the function again.
            U::Indirection if self.is_function_value(&u.node.operand) => self.expr(&u.node.operand, used),
            U::Indirection => {
                let whole = Node {
                    node: Expression::UnaryOperator(Box::new(u.clone())),
                    span: u.span,
                };
                let (place, t) = self
                    .pointed_place(&whole)?
                    .ok_or_else(|| self.malformed(at, "dereference"))?;
                self.place_value(place, t, at).map(Some)
            }
            U::PreIncrement | U::PreDecrement | U::PostIncrement | U::PostDecrement => {
                let (x, t) = self.lvalue(&u.node.operand)?;
                let ty = self.value_type(&t, at)?;
                // A pointer steps by its pointee's size (in the unsigned pointer type).
                let (c, one) = match &t {
                    CType::Ptr(pt) => (
                        ty,
                        Expr::constant(self.size_of(&self.complete((**pt).clone()), at)?, ty),
                    ),
                    _ => {
                        let c = IntType::common(ty, IntType::INT);
                        (c, Expr::number(1, c))
                    }
                };
                let bop = if matches!(op, U::PreIncrement | U::PostIncrement) {
                    BinaryOp::Add
                } else {
                    BinaryOp::Sub
                };
                let old = self.read_place(&x, ty)?;
                let post = matches!(op, U::PostIncrement | U::PostDecrement);
                let old = if post && used && matches!(x, Place::Var(_) | Place::Member { .. }) {
                    let tmp = self.temp(ty)?;
                    self.emit(Operation::Assign { lhs: tmp, rhs: old })?;
                    Expr::var(tmp, ty)
                } else {
                    old
                };
                let new = Expr::binary(bop, old.clone().cast(c), one, c).cast(ty);
                let new = self.assign_place(&x, new, ty, used)?;
                Ok(Some(Val {
                    e: if post { old } else { new },
                    pointee: t.pointee(),
                }))
            }
            U::Plus | U::Minus | U::Complement => {
                let v = self.rvalue(&u.node.operand)?;
                if v.pointee.is_some() {
                    return Err(self.unsupported(at, "arithmetic on a pointer"));
                }
                if op == U::Complement && v.e.ty.is_float() {
                    return Err(self.malformed(at, "`~` on a floating-point operand"));
                }
                let p = v.e.ty.promoted();
                let e = v.e.cast(p);
                Ok(Some(Val {
                    e: match op {
                        U::Plus => e,
                        U::Minus => fold(Expr::unary(UnaryOp::Neg, e, p)),
                        _ => fold(Expr::unary(UnaryOp::BitNot, e, p)),
                    },
                    pointee: None,
                }))
            }
            U::Negate => {
                let v = self.rvalue(&u.node.operand)?;
                Ok(Some(Val {
                    e: fold(Expr::unary(UnaryOp::LogNot, v.e, IntType::INT)),
                    pointee: None,
                }))
            }
        }
    }

    pub(super) fn arith(&self, op: BinaryOp, a: Val, b: Val, at: usize) -> Result<Val> {
        if op.is_comparison() {
            let c = if a.pointee.is_some() || b.pointee.is_some() {
                self.model.pointer()
            } else {
                IntType::common(a.e.ty, b.e.ty)
            };
            return Ok(Val {
                e: fold(Expr::binary(op, a.e.cast(c), b.e.cast(c), IntType::INT)),
                pointee: None,
            });
        }
        if a.pointee.is_some() || b.pointee.is_some() {
            return self.pointer_arith(op, a, b, at);
        }
        let integer_only = !matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div);
        if integer_only && (a.e.ty.is_float() || b.e.ty.is_float()) {
            return Err(self.malformed(at, format!("`{}` on a floating-point operand", op.symbol())));
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
            pointee: None,
        })
    }

    pub(super) fn binary(
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
            B::Index => Err(self.malformed(at, "subscript outside an element access")),
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
                    pointee: None,
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
                        pointee: None,
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
                    pointee: None,
                }))
            }
            B::Assign => {
                if self.struct_assignment(&b.node.lhs, &b.node.rhs, used)? {
                    return Ok(None);
                }
                let (x, t) = self.lvalue(&b.node.lhs)?;
                let ty = self.value_type(&t, at)?;
                let e = match (&b.node.rhs.node, &x) {
                    (Expression::Call(c), Place::Var(v)) => {
                        if self.call(c, Dest::Var(*v, ty))?.is_none() {
                            return Err(self.malformed(at, "void value used"));
                        }
                        Expr::var(*v, ty)
                    }
                    _ => {
                        let v = self.rvalue(&b.node.rhs)?;
                        self.pos = at;
                        self.assign_place(&x, v.e.cast(ty), ty, used)?
                    }
                };
                Ok(Some(Val {
                    e,
                    pointee: t.pointee(),
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
                    e: self.read_place(&x, ty)?,
                    pointee: t.pointee(),
                };
                let v = self.arith(bop, cur, r, at)?;
                let e = self.assign_place(&x, v.e.cast(ty), ty, used)?;
                Ok(Some(Val { e, pointee: None }))
            }
            _ => {
                let bop = arith_op(&op).ok_or_else(|| self.malformed(at, "operator"))?;
                let l = self.rvalue(&b.node.lhs)?;
                let r = self.rvalue(&b.node.rhs)?;
                Ok(Some(self.arith(bop, l, r, at)?))
            }
        }
    }
}
