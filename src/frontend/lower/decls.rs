//! Lowering of declarations: type specifiers, declarators, globals, function definitions and locals.

use super::array::with_outer_length;
use super::record::{is_record, struct_of, STRUCT_VALUE};
use super::union::union_of;
use lang_c::ast::{StructDeclaration, StructType};

/// One member declarator of a struct or union body.
pub(super) struct MemberDecl {
    /// `None` for an anonymous struct or union member.
    pub name: Option<String>,
    pub declared: Declared,
    pub bit_field: bool,
}
use super::*;
use crate::cfa::memory::ArrayShape;

impl Lowerer<'_> {
    /// Resolves type specifiers (registering enumerators) into a base type.
    pub(super) fn base_type<'n>(
        &mut self,
        specs: impl Iterator<Item = &'n Node<TypeSpecifier>>,
    ) -> Result<CType> {
        let (mut void, mut char_, mut short, mut long, mut unsigned, mut bool_) =
            (false, false, false, 0, false, false);
        let (mut float, mut double) = (false, false);
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
                TypeSpecifier::Float => float = true,
                TypeSpecifier::Double => double = true,
                TypeSpecifier::TS18661Float(_) => other = Some(CType::Unsupported("_FloatN type".into())),
                TypeSpecifier::Complex => other = Some(CType::Unsupported("complex type".into())),
                TypeSpecifier::Atomic(_) => other = Some(CType::Unsupported("_Atomic".into())),
                TypeSpecifier::Struct(st) => {
                    other = Some(match st.node.kind.node {
                        lang_c::ast::StructKind::Struct => self.tagged_type(&st.node, false)?,
                        lang_c::ast::StructKind::Union => self.tagged_type(&st.node, true)?,
                    })
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
        } else if double && long > 0 {
            CType::Int(self.model.long_double())
        } else if double {
            CType::Int(IntType::DOUBLE)
        } else if float {
            CType::Int(IntType::FLOAT)
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

    /// The type a `struct` (or, with `union`, a `union`) specifier denotes, registering its
    /// tag when it has members.
    fn tagged_type(&mut self, st: &StructType, union: bool) -> Result<CType> {
        let what = if union { "union" } else { "struct" };
        let tag = st.identifier.as_ref().map(|i| i.node.name.clone());
        let Some(declarations) = &st.declarations else {
            // A reference to a tag declared before (or an incomplete type).
            let tags = if union {
                &self.union_tags
            } else {
                &self.struct_tags
            };
            return Ok(match tag {
                Some(t) => tags
                    .get(&t)
                    .cloned()
                    .unwrap_or(CType::Incomplete { tag: t, union }),
                None => CType::Unsupported(format!("incomplete {what} type")),
            });
        };
        let members = self.member_declarations(declarations)?;
        let t = if union {
            union_of(members)
        } else {
            struct_of(members)
        };
        let Some(tag) = tag else {
            return Ok(t);
        };
        // Tags are block-scoped in C; Baton keeps one table, so a tag defined twice with
        // different members is ambiguous and not modelled.
        let tags = if union {
            &mut self.union_tags
        } else {
            &mut self.struct_tags
        };
        let t = match tags.get(&tag) {
            Some(old) if *old != t => CType::Unsupported(format!("{what} `{tag}` defined twice")),
            _ => t,
        };
        tags.insert(tag, t.clone());
        Ok(t)
    }

    /// The member declarators of a struct or union body, in order.
    fn member_declarations(&mut self, declarations: &[Node<StructDeclaration>]) -> Result<Vec<MemberDecl>> {
        let mut members = Vec::new();
        for d in declarations {
            let StructDeclaration::Field(field) = &d.node else {
                continue;
            };
            let specs = field.node.specifiers.iter().filter_map(|s| match &s.node {
                SpecifierQualifier::TypeSpecifier(t) => Some(t),
                _ => None,
            });
            let base = self.base_type(specs)?;
            // `struct { ... };` or `union { ... };` without a tag or declarator: an anonymous
            // member (C11 6.7.2.1 §13), whose members are the enclosing type's.
            let anonymous = field.node.specifiers.iter().any(|s| {
                matches!(&s.node, SpecifierQualifier::TypeSpecifier(t)
                    if matches!(&t.node, TypeSpecifier::Struct(st) if st.node.identifier.is_none()))
            });
            if field.node.declarators.is_empty() && anonymous {
                members.push(MemberDecl {
                    name: None,
                    declared: Declared::Object(base.clone()),
                    bit_field: false,
                });
            }
            for decl in &field.node.declarators {
                let bit_field = decl.node.bit_width.is_some();
                let (name, declared) = match &decl.node.declarator {
                    Some(declarator) => self.declarator(base.clone(), declarator)?,
                    None => (None, Declared::Object(base.clone())),
                };
                members.push(MemberDecl {
                    name,
                    declared,
                    bit_field,
                });
            }
        }
        Ok(members)
    }

    /// Registers the enumerators of an enum specifier; gives the enum's type (gcc: `unsigned
    /// int` unless some enumerator is negative).
    pub(super) fn enum_type(&mut self, en: &lang_c::ast::EnumType) -> Result<IntType> {
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

    pub(super) fn decl_specs(
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

    pub(super) fn type_name(&mut self, tn: &Node<TypeName>) -> Result<CType> {
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
                Declared::Function {
                    ret,
                    params,
                    variadic,
                } => Ok(CType::function(
                    ret,
                    params.map(|ps| ps.into_iter().map(|(_, t)| t).collect()),
                    variadic,
                )),
            },
        }
    }

    /// Applies a declarator to a base type: name and what is declared.
    pub(super) fn declarator(
        &mut self,
        base: CType,
        d: &Node<Declarator>,
    ) -> Result<(Option<String>, Declared)> {
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
                if has(&d.node, &is_fn) {
                    // `int (*fp)(int)`: the outer part makes a function type, the inner one
                    // says what is declared of it (a pointer, an array of pointers, a
                    // function returning a pointer to it such as `signal`).
                    let outer = Node {
                        node: Declarator {
                            kind: Node {
                                node: DeclaratorKind::Abstract,
                                span: d.span,
                            },
                            derived: d.node.derived.clone(),
                            extensions: Vec::new(),
                        },
                        span: d.span,
                    };
                    let Declared::Function {
                        ret,
                        params,
                        variadic,
                    } = self.declarator(base, &outer)?.1
                    else {
                        return Err(self.malformed(d.span.start, "function declarator"));
                    };
                    let params = params.map(|ps| ps.into_iter().map(|(_, t)| t).collect());
                    return self.declarator(CType::function(ret, params, variadic), inner);
                }
                if d.node.derived.is_empty() {
                    return self.declarator(base, inner);
                }
                // `int (*row)[4]`: a pointer to an array.
                if !has(&inner.node, &is_array) && d.node.derived.iter().all(|x| is_array(&x.node)) {
                    let t = self.array_type(base, &d.node.derived)?;
                    return self.declarator(t, inner);
                }
                if has(&d.node, &is_array) || has(&inner.node, &is_array) {
                    return Ok((
                        declarator_name(inner),
                        Declared::Object(CType::Unsupported("array".into())),
                    ));
                }
                let t = pointers_to(base, &d.node.derived);
                self.declarator(t, inner)
            }
            DeclaratorKind::Identifier(_) | DeclaratorKind::Abstract => {
                let name = declarator_name(d);
                if let (CType::Func(f), true) = (&base, d.node.derived.is_empty()) {
                    // Declared with a typedef'd function type (`fn_t f;`) or `int (f)(int)`.
                    let f = (**f).clone();
                    let params = f.params.map(|ps| ps.into_iter().map(|t| (None, t)).collect());
                    return Ok((
                        name,
                        Declared::Function {
                            ret: f.ret,
                            params,
                            variadic: f.variadic,
                        },
                    ));
                }
                let fn_pos = d.node.derived.iter().position(|x| is_fn(&x.node));
                if let Some(i) = fn_pos {
                    // Pointers after the function part apply to the return type.
                    let ret = pointers_to(base, &d.node.derived);
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
                                    // A parameter of array type is a pointer (C11 6.7.6.3).
                                    Declared::Object(CType::Array(elem, _)) => CType::Ptr(elem),
                                    Declared::Object(t) => t,
                                    // A parameter of function type is a pointer (C11 6.7.6.3).
                                    Declared::Function {
                                        ret,
                                        params,
                                        variadic,
                                    } => CType::pointer_to(CType::function(
                                        ret,
                                        params.map(|ps| ps.into_iter().map(|(_, t)| t).collect()),
                                        variadic,
                                    )),
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
                    return Ok((name, Declared::Object(self.array_type(base, &d.node.derived)?)));
                }
                if has(&d.node, &is_ptr) {
                    return Ok((name, Declared::Object(pointers_to(base, &d.node.derived))));
                }
                Ok((name, Declared::Object(base)))
            }
        }
    }

    /// The integer type of a value-carrying type, or the matching `unsupported` error.
    pub(super) fn value_type(&self, t: &CType, offset: usize) -> Result<IntType> {
        match t {
            CType::Int(i) => Ok(*i),
            CType::Union(u) => Ok(u.storage()),
            CType::Ptr(_) => Ok(self.model.pointer()),
            CType::Func(_) => Err(self.malformed(offset, "function type used as an object")),
            CType::Incomplete { union, .. } => Err(self.unsupported(
                offset,
                format!("incomplete {} type", if *union { "union" } else { "struct" }),
            )),
            CType::Void => Err(self.malformed(offset, "variable of type void")),
            CType::Array(..) => Err(self.unsupported(offset, "array used as a value (decay to a pointer)")),
            CType::Struct(_) => Err(self.unsupported(offset, STRUCT_VALUE)),
            CType::MemoryUnion(_) => Err(self.unsupported(offset, super::memory_union::UNION_VALUE)),
            CType::Unsupported(s) => Err(self.unsupported(offset, s.clone())),
        }
    }

    // ----- declarations ---------------------------------------------------------------------

    pub(super) fn register_function(
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

    pub(super) fn global_declaration(&mut self, d: &Node<Declaration>) -> Result<()> {
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
    pub(super) fn global_variable(
        &mut self,
        unique: &str,
        source: &str,
        t: CType,
        init: Option<&Node<Initializer>>,
        is_extern: bool,
        offset: usize,
    ) -> Result<VarId> {
        if self.lives_in_memory(offset, &t) && !is_extern {
            return self.boxed_global(unique, source, t, init, offset);
        }
        if is_record(&t) {
            return self.global_record(unique, source, t, init, is_extern, offset);
        }
        if matches!(t, CType::Array(..)) {
            if self.globals.contains_key(unique) {
                return Err(self.unsupported(offset, "array declared more than once"));
            }
            if is_extern {
                return Err(self.unsupported(offset, "extern array"));
            }
            let (ty, shape, functions) = self.global_array(&t, init, offset)?;
            let t = with_outer_length(t, &shape);
            let id = self.new_global(unique, source, ty, 0, Some(shape));
            self.function_initials
                .extend(functions.into_iter().map(|(flat, x)| (id, Some(flat), x)));
            self.bind_global(unique, source, id, t);
            return Ok(id);
        }
        let ty = self.value_type(&t, offset)?;
        let mut function = None;
        let initial = match init {
            None => None,
            Some(i) => Some(match &i.node {
                Initializer::Expression(e) => {
                    let v = self.const_value(e, ty)?;
                    function = self.function_initial(e, ty)?;
                    v
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
                let id = self.new_global(unique, source, ty, initial.unwrap_or(0), None);
                if initial.is_some() {
                    self.initialized.insert(id);
                }
                if is_extern && initial.is_none() {
                    self.extern_only.insert(id);
                }
                id
            }
        };
        if let Some(x) = function {
            self.function_initials.push((id, None, x));
        }
        self.bind_global(unique, source, id, t);
        Ok(id)
    }

    /// A new global variable; `unique` is its program-wide name.
    pub(super) fn new_global(
        &mut self,
        unique: &str,
        source: &str,
        ty: IntType,
        initial: i128,
        array: Option<ArrayShape>,
    ) -> VarId {
        let id = self.new_var(Variable {
            name: unique.to_string(),
            source_name: source.to_string(),
            ty,
            scope: Scope::Global,
            initial,
            temporary: false,
            read_only: false,
            address: None,
            array,
        });
        self.globals.insert(unique.to_string(), id);
        id
    }

    /// Makes a global visible: at file scope under its source name, and in the current block
    /// (a `static` or `extern` local).
    pub(super) fn bind_global(&mut self, unique: &str, source: &str, id: VarId, t: CType) {
        self.bind_global_sym(unique, source, Sym::Var(id, t));
    }

    /// Makes a global's symbol visible, as [`Lowerer::bind_global`] does.
    pub(super) fn bind_global_sym(&mut self, unique: &str, source: &str, sym: Sym) {
        if self.scopes.len() == 1 || unique == source {
            self.scopes[0].insert(source.to_string(), sym.clone());
        }
        if self.scopes.len() > 1 {
            self.bind(source, sym);
        }
    }

    /// Evaluates an integer constant expression.
    pub(super) fn const_eval(&mut self, e: &Node<Expression>) -> Result<i128> {
        self.constant_expression(e, None)
    }

    /// Evaluates a constant expression converted to `ty`, as an initializer of an object of
    /// type `ty` (the value normalised to `ty`; a float's bit pattern).
    pub(super) fn const_value(&mut self, e: &Node<Expression>, ty: IntType) -> Result<i128> {
        self.constant_expression(e, Some(ty))
    }

    fn constant_expression(&mut self, e: &Node<Expression>, ty: Option<IntType>) -> Result<i128> {
        let saved = self.fs.take();
        let saved_pos = self.pos;
        self.pos = e.span.start;
        let v = self.rvalue(e);
        self.fs = saved;
        self.pos = saved_pos;
        let mut v = v?;
        match ty {
            Some(ty) => v.e = v.e.cast(ty),
            None if v.e.ty.is_float() => {
                return Err(self.malformed(
                    e.span.start,
                    "floating-point value in an integer constant expression",
                ))
            }
            None => {}
        }
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
    pub(super) fn register_definition(&mut self, fd: &Node<FunctionDefinition>) -> Result<Option<String>> {
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
    pub(super) fn define_function(&mut self, name: &str, fd: &Node<FunctionDefinition>) -> Result<FuncId> {
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

    pub(super) fn function_body(&mut self, id: FuncId, fd: &Node<FunctionDefinition>) -> Result<()> {
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
                read_only: false,
                array: None,
                address: None,
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
            if let CType::Struct(_) = pty {
                params.extend(self.struct_parameter(&pname, pty, fd.span.start)?);
                continue;
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
                read_only: false,
                address: None,
                array: None,
            });
            self.bind(&pname, Sym::Var(v, pty));
            params.push(v);
        }
        self.fs()?.param_scope = self.scopes.len() - 1;
        self.functions[id.index()].params = params;
        if name == "main" {
            self.allocate_boxed_globals()?;
            self.assign_function_initials()?;
        }
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
    pub(super) fn declare_name(
        &mut self,
        name: &str,
        storage: &Option<StorageClassSpecifier>,
        declared: Declared,
    ) -> Option<CType> {
        let typedef = matches!(storage, Some(StorageClassSpecifier::Typedef));
        match (typedef, declared) {
            (true, Declared::Object(t)) => self.bind(name, Sym::Typedef(t)),
            (
                true,
                Declared::Function {
                    ret,
                    params,
                    variadic,
                },
            ) => {
                let params = params.map(|ps| ps.into_iter().map(|(_, t)| t).collect());
                self.bind(name, Sym::Typedef(CType::function(ret, params, variadic)))
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

    pub(super) fn local_declaration(&mut self, d: &Node<Declaration>) -> Result<()> {
        self.pos = d.span.start;
        let (base, storage) = self.decl_specs(&d.node.specifiers)?;
        for id in &d.node.declarators {
            self.pos = id.span.start;
            // gcc calls the cleanup function where the variable's scope ends; Baton's CFA has no
            // such edge, so ignoring the attribute could miss an error call in it.
            if has_attribute(&d.node.specifiers, &id.node.declarator, &["cleanup"]) {
                return Err(self.unsupported(id.span.start, CLEANUP_ATTRIBUTE));
            }
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
                _ if self.lives_in_memory(id.span.start, &t) => {
                    self.boxed_local(&name, t, id.node.initializer.as_ref(), id.span.start)?;
                }
                _ if is_record(&t) => {
                    self.local_record(&name, t, id.node.initializer.as_ref(), id.span.start)?;
                }
                _ if matches!(t, CType::Array(..)) => {
                    self.local_array(&name, t, id.node.initializer.as_ref(), id.span.start)?;
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
                        read_only: false,
                        address: None,
                        array: None,
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
}

/// `base` behind as many pointers as the derived declarators have (`int **p`).
fn pointers_to(base: CType, derived: &[Node<DerivedDeclarator>]) -> CType {
    derived
        .iter()
        .filter(|x| {
            matches!(
                x.node,
                DerivedDeclarator::Pointer(_) | DerivedDeclarator::Block(_)
            )
        })
        .fold(base, |t, _| CType::pointer_to(t))
}
