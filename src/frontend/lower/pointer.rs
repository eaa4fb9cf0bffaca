//! Lowering of pointers ([`crate::cfa::address`]): address-of, array decay, dereference
//! (`*p`, `p->f`, `p[i]`, and members and elements of what a pointer points to), pointer
//! arithmetic scaled by the pointee's size, and the heap functions.
//!
//! The object a pointer expression designates is an address and a C type; a scalar one is a
//! [`Place::Deref`], read and written by `LoadPtr` and `StorePtr` edges. A struct reached
//! through a pointer has no variables: its members are at the offsets of gcc's layout, so
//! `p->f` is the address `p + offsetof(f)`. Flattened struct variables (one variable per
//! member) give addresses of scalar members and elements, laid out as gcc lays out the struct
//! ([`super::placed`]); a struct whose address is taken as a whole lives in memory
//! ([`super::boxed`]) and is reached like any object through a pointer.

use super::array::Place;
use super::*;
use crate::cfa::address;
use crate::cfa::expr::ExprKind;
use crate::cfa::AllocKind;
use lang_c::ast::MemberOperator;

impl Lowerer<'_> {
    /// `t` with a struct or union named only by its tag resolved, if it is defined now.
    pub(super) fn complete(&self, t: CType) -> CType {
        match t {
            CType::Incomplete { tag, union } => {
                let tags = if union {
                    &self.union_tags
                } else {
                    &self.struct_tags
                };
                tags.get(&tag)
                    .cloned()
                    .unwrap_or(CType::Incomplete { tag, union })
            }
            t => t,
        }
    }

    /// The address of variable `v`, placing it on first use.
    pub(super) fn address_of_var(&mut self, v: VarId, at: usize) -> Result<Expr> {
        let ptr = self.model.pointer();
        if let Some(a) = self.variables[v.index()].address {
            return Ok(Expr {
                kind: ExprKind::Address { var: v, address: a },
                ty: ptr,
            });
        }
        let var = &self.variables[v.index()];
        let size = match &var.array {
            None => Some(u64::from(var.ty.size_bytes())),
            Some(shape) => shape.size_bytes(var.ty),
        };
        let Some(size) = size else {
            // A variable-length array whose address is taken lives in memory.
            return Err(self.request_box(v, at, "address of a variable-length array"));
        };
        let Some((start, next)) = address::place(self.next_address, size, address::HEAP_BASE) else {
            return Err(self.unsupported(at, "address-taken objects larger than the static address space"));
        };
        self.next_address = next;
        self.variables[v.index()].address = Some(start);
        Ok(Expr {
            kind: ExprKind::Address {
                var: v,
                address: start,
            },
            ty: ptr,
        })
    }

    /// An array variable used as a value: the address of its first element.
    pub(super) fn decay(&mut self, v: VarId, t: &CType, elem: CType, at: usize) -> Result<Val> {
        // An array of arrays decays to a pointer to its first row (`int (*)[4]`); an array of
        // structs lives in memory to decay.
        if !matches!(t.array_dims(), Some((_, CType::Int(_) | CType::Ptr(_)))) {
            return Err(self.request_box(v, at, "array used as a value (decay to a pointer) of this type"));
        }
        Ok(Val {
            e: self.address_of_var(v, at)?,
            pointee: Some(elem),
        })
    }

    /// `base + index * sizeof(pointee)` in the pointer type.
    pub(super) fn offset_by(&self, base: Expr, index: Expr, pointee: &CType, at: usize) -> Result<Expr> {
        let ptr = self.model.pointer();
        let stride = self.size_of(pointee, at)?;
        let scaled = fold(Expr::binary(
            BinaryOp::Mul,
            index.cast(ptr),
            Expr::constant(stride, ptr),
            ptr,
        ));
        Ok(fold(Expr::binary(BinaryOp::Add, base.cast(ptr), scaled, ptr)))
    }

    /// The byte offset and type of member `name` of the struct or union type `t` (a union's
    /// members are at offset 0; in memory, a member of a union of scalars reads the bytes there
    /// as its own type).
    pub(super) fn member_offset(&self, t: &CType, name: &str, at: usize) -> Result<(u64, CType)> {
        let no_member = |what: &str| self.malformed(at, format!("no member `{name}` in the {what}"));
        let s = match t {
            CType::Struct(s) => s,
            CType::Union(u) => {
                return u
                    .members
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|&(_, m)| (0, CType::Int(m)))
                    .ok_or_else(|| no_member("union"))
            }
            CType::MemoryUnion(u) => {
                if let Some((_, m)) = u.members.iter().find(|(n, _)| n == name) {
                    return Ok((0, m.clone()));
                }
                // A member of an anonymous struct or union member (named ""), at its offset
                // there.
                return u
                    .members
                    .iter()
                    .filter(|(n, _)| n.is_empty())
                    .find_map(|(_, m)| self.member_offset(m, name, at).ok())
                    .ok_or_else(|| no_member("union"));
            }
            _ => return Err(self.unsupported(at, "member of something that is not a struct or union")),
        };
        let offsets = self.member_offsets(s, at)?;
        s.members
            .iter()
            .zip(offsets)
            .find(|((n, _), _)| n == name)
            .map(|((_, m), off)| (off, m.clone()))
            .ok_or_else(|| no_member("struct"))
    }

    /// `offsetof(T, m.n[i]...)` (gcc's `__builtin_offsetof`): the byte offset of the designated
    /// sub-object in gcc's layout of `T`, as `size_t`; an index need not be constant, as in gcc.
    pub(super) fn offset_of(&mut self, o: &Node<lang_c::ast::OffsetOfExpression>, at: usize) -> Result<Val> {
        use lang_c::ast::OffsetMember;
        let size_t = self.model.ulong();
        let t = self.type_name(&o.node.type_name)?;
        let designator = &o.node.designator.node;
        let (offset, mut t) = self.offset_member(&t, &designator.base.node.name, at)?;
        let mut total = Expr::constant(i128::from(offset), size_t);
        for m in &designator.members {
            let step = match &m.node {
                OffsetMember::Member(id) => {
                    let (offset, member) = self.offset_member(&t, &id.node.name, at)?;
                    t = member;
                    Expr::constant(i128::from(offset), size_t)
                }
                OffsetMember::Index(e) => {
                    let CType::Array(elem, _) = t else {
                        return Err(
                            self.malformed(m.span.start, "subscripted value in offsetof is not an array")
                        );
                    };
                    let i = self.rvalue(e)?;
                    if i.pointee.is_some() {
                        return Err(self.malformed(e.span.start, "array subscript is a pointer"));
                    }
                    let stride = Expr::constant(self.size_of(&elem, at)?, size_t);
                    t = self.complete(*elem);
                    fold(Expr::binary(BinaryOp::Mul, i.e.cast(size_t), stride, size_t))
                }
                OffsetMember::IndirectMember(_) => {
                    return Err(self.malformed(m.span.start, "`->` in an offsetof designator"))
                }
            };
            total = fold(Expr::binary(BinaryOp::Add, total, step, size_t));
        }
        Ok(Val {
            e: total,
            pointee: None,
        })
    }

    /// The offset and type of member `name` of the struct or union type `t` (a union's
    /// members are at offset 0).
    fn offset_member(&self, t: &CType, name: &str, at: usize) -> Result<(u64, CType)> {
        self.member_offset(&self.complete(t.clone()), name, at)
    }

    /// A pointer value of `e` (an array decays) with its complete pointee type.
    fn pointer_value(&mut self, e: &Node<Expression>) -> Result<(Expr, CType)> {
        let v = self.rvalue(e)?;
        match v.pointee {
            Some(t) => Ok((v.e, self.complete(t))),
            None => Err(self.malformed(e.span.start, "dereference of something that is not a pointer")),
        }
    }

    /// The address and type of the object `e` designates through a pointer (`*p`, `p->f`,
    /// `p[i]`, and members and elements of such objects); `None` if `e` is not of that kind.
    pub(super) fn pointed_object(&mut self, e: &Node<Expression>) -> Result<Option<(Expr, CType)>> {
        let at = e.span.start;
        Ok(Some(match &e.node {
            // A named object in memory ([`super::boxed`]).
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Sym::Boxed(p, t)) => (Expr::var(*p, self.model.pointer()), t.clone()),
                _ => return Ok(None),
            },
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {
                self.pointer_value(&u.node.operand)?
            }
            Expression::Member(m) => {
                let name = &m.node.identifier.node.name;
                let (base, t) = match m.node.operator.node {
                    MemberOperator::Indirect => self.pointer_value(&m.node.expression)?,
                    MemberOperator::Direct => match self.pointed_object(&m.node.expression)? {
                        Some(object) => object,
                        None => return Ok(None),
                    },
                };
                let (offset, member) = self.member_offset(&t, name, at)?;
                let ptr = self.model.pointer();
                let address = fold(Expr::binary(
                    BinaryOp::Add,
                    base,
                    Expr::constant(i128::from(offset), ptr),
                    ptr,
                ));
                (address, self.complete(member))
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                let (base, elem) = match self.pointed_object(&b.node.lhs)? {
                    Some((a, CType::Array(elem, _))) => (a, *elem),
                    // A pointer stored where a pointer points (`pp[i][j]`): read it.
                    Some((a, CType::Ptr(elem))) => {
                        let ptr = self.model.pointer();
                        (self.read_place(&Place::Deref { address: a }, ptr)?, *elem)
                    }
                    Some(_) => return Err(self.malformed(at, "subscripted value is not an array")),
                    None => match self.type_of(&b.node.lhs)? {
                        CType::Ptr(_) => self.pointer_value(&b.node.lhs)?,
                        _ => return Ok(None),
                    },
                };
                let i = self.rvalue(&b.node.rhs)?;
                if i.pointee.is_some() {
                    return Err(self.unsupported(at, "subscript by a pointer"));
                }
                let elem = self.complete(elem);
                (self.offset_by(base, i.e, &elem, at)?, elem)
            }
            _ => return Ok(None),
        }))
    }

    /// The place of a scalar object reached through a pointer.
    pub(super) fn pointed_place(&mut self, e: &Node<Expression>) -> Result<Option<(Place, CType)>> {
        Ok(self
            .pointed_object(e)?
            .map(|(address, t)| (Place::Deref { address }, t)))
    }

    /// `&e`.
    pub(super) fn address_of(&mut self, e: &Node<Expression>, at: usize) -> Result<Val> {
        if self.is_function_value(e) && !matches!(self.type_of(e), Ok(CType::Ptr(_))) {
            // `&f`, `&*fp`: the function's address.
            return self.rvalue(e);
        }
        if let Expression::StringLiteral(parts) = &e.node {
            // `&"ab"`: the literal's array (the C emitter writes string literals so).
            let array = self.string_type(&parts.node, at)?;
            let value = self.string_value(&parts.node, at)?;
            return Ok(Val {
                e: value.e,
                pointee: Some(array),
            });
        }
        if let Expression::Identifier(id) = &e.node {
            if let Some(Sym::Var(v, t)) = self.lookup(&id.node.name).cloned() {
                self.check_extern(v, at)?;
                // An array of scalars is one variable; an array of structs is flattened.
                let scalars = match t.array_dims() {
                    Some((_, elem)) => matches!(elem, CType::Int(_) | CType::Ptr(_)),
                    None => matches!(t, CType::Int(_) | CType::Ptr(_)),
                };
                if !scalars {
                    return Err(self.request_box(v, at, "address of a struct or union variable"));
                }
                return Ok(Val {
                    e: self.address_of_var(v, at)?,
                    pointee: Some(t),
                });
            }
        }
        if let Some((address, t)) = self.pointed_object(e)? {
            return Ok(Val {
                e: address,
                pointee: Some(t),
            });
        }
        // A struct, union or array sub-object (`&s.inner`, `&s.arr`) lives in memory with
        // its record.
        if let (Some((root, _)), Some(CType::Struct(_) | CType::Array(..))) =
            (self.record_root(e), self.type_of_record(e))
        {
            return Err(self.request_box(root, at, "address of a struct, union or array sub-object"));
        }
        // A scalar member's address places every leaf of its record at gcc's offsets.
        if let Some((root, t)) = self.record_root(e) {
            self.place_record(root, &t, at)?;
        }
        let (place, t) = self.lvalue(e)?;
        let e = match place {
            Place::Var(v) => self.address_of_var(v, at)?,
            Place::Element { array, index } => {
                let shape = self.variables[array.index()].array.clone();
                let extents = shape.and_then(|s| s.fixed_extents());
                let Some(extents) = extents else {
                    // A variable-length array whose address is taken lives in memory.
                    return Err(self.request_box(
                        array,
                        at,
                        "address of an element of a variable-length array",
                    ));
                };
                let long = self.model.long();
                let mut flat = Expr::constant(0, long);
                for (i, n) in index.into_iter().zip(extents) {
                    let scaled = Expr::binary(BinaryOp::Mul, flat, Expr::constant(i128::from(n), long), long);
                    flat = fold(Expr::binary(BinaryOp::Add, scaled, i.cast(long), long));
                }
                let base = self.address_of_var(array, at)?;
                self.offset_by(base, flat, &t, at)?
            }
            // Any object in memory has an address (`&m[1]`: a row of `int m[3][4]`).
            Place::Deref { address } => {
                return Ok(Val {
                    e: address,
                    pointee: Some(t),
                })
            }
            Place::Member { .. } => return Err(self.unsupported(at, "address of a union member")),
        };
        if !matches!(t, CType::Int(_) | CType::Ptr(_)) {
            return Err(self.unsupported(at, "address of a struct, union or array sub-object"));
        }
        Ok(Val { e, pointee: Some(t) })
    }

    /// `p + i`, `i + p`, `p - i` and `p - q` (the result in elements, as `long`).
    pub(super) fn pointer_arith(&self, op: BinaryOp, a: Val, b: Val, at: usize) -> Result<Val> {
        let ptr = self.model.pointer();
        match (op, a.pointee, b.pointee) {
            (BinaryOp::Add, Some(t), None) | (BinaryOp::Sub, Some(t), None) => {
                let t = self.complete(t);
                let index = if op == BinaryOp::Sub {
                    fold(Expr::binary(
                        BinaryOp::Sub,
                        Expr::constant(0, ptr),
                        b.e.cast(ptr),
                        ptr,
                    ))
                } else {
                    b.e
                };
                Ok(Val {
                    e: self.offset_by(a.e, index, &t, at)?,
                    pointee: Some(t),
                })
            }
            (BinaryOp::Add, None, Some(t)) => {
                let t = self.complete(t);
                Ok(Val {
                    e: self.offset_by(b.e, a.e, &t, at)?,
                    pointee: Some(t),
                })
            }
            (BinaryOp::Sub, Some(t), Some(_)) => {
                let long = self.model.long();
                let stride = self.size_of(&self.complete(t), at)?;
                let bytes = Expr::binary(BinaryOp::Sub, a.e.cast(ptr), b.e.cast(ptr), ptr).cast(long);
                Ok(Val {
                    e: fold(Expr::binary(
                        BinaryOp::Div,
                        bytes,
                        Expr::constant(stride, long),
                        long,
                    )),
                    pointee: None,
                })
            }
            _ => Err(self.unsupported(at, format!("`{}` on a pointer", op.symbol()))),
        }
    }

    /// A call of a heap function (`malloc`, `calloc`, `realloc`, `free`, `alloca`) without a
    /// body in the program; `None` for any other function.
    pub(super) fn heap_call(
        &mut self,
        name: &str,
        args: &[Node<Expression>],
        dest: Dest,
        at: usize,
    ) -> Result<Option<Option<Val>>> {
        let size_t = self.model.ulong();
        let ptr = self.model.pointer();
        let arity = match name {
            "malloc" | "alloca" | "__builtin_alloca" | "free" => 1,
            "calloc" | "realloc" | "__builtin_alloca_with_align" => 2,
            _ => return Ok(None),
        };
        if args.len() != arity {
            return Err(self.malformed(at, format!("`{name}` takes {arity} argument(s)")));
        }
        let mut values = Vec::with_capacity(arity);
        for a in args {
            values.push(self.rvalue(a)?.e);
        }
        let (kind, size) = match name {
            "free" => {
                let address = values.remove(0).cast(ptr);
                self.emit(Operation::Free { address })?;
                return Ok(Some(None));
            }
            "malloc" => (AllocKind::Malloc, values.remove(0).cast(size_t)),
            "alloca" | "__builtin_alloca" => (AllocKind::Alloca, values.remove(0).cast(size_t)),
            // What Baton's C emitter writes for a named object in memory (`AllocKind::Automatic`),
            // so that a residual program reads back as the original.
            "__builtin_alloca_with_align" => (AllocKind::Automatic, values.remove(0).cast(size_t)),
            "calloc" => {
                let (n, s) = (values[0].clone().cast(size_t), values[1].clone().cast(size_t));
                (AllocKind::Calloc, fold(Expr::binary(BinaryOp::Mul, n, s, size_t)))
            }
            _ => (
                AllocKind::Realloc {
                    from: values[0].clone().cast(ptr),
                },
                values[1].clone().cast(size_t),
            ),
        };
        let lhs = match dest {
            Dest::Var(x, xty) if xty == ptr => x,
            _ => self.temp(ptr)?,
        };
        self.emit(Operation::Alloc { lhs, kind, size })?;
        let value = match dest {
            Dest::Discard => None,
            Dest::Var(x, xty) if x != lhs => {
                self.emit(Operation::Assign {
                    lhs: x,
                    rhs: Expr::var(lhs, ptr).cast(xty),
                })?;
                Some(Expr::var(x, xty))
            }
            Dest::Var(x, xty) => Some(Expr::var(x, xty)),
            Dest::Temp => Some(Expr::var(lhs, ptr)),
        };
        Ok(Some(value.map(|e| Val {
            e,
            pointee: Some(CType::Void),
        })))
    }
}
