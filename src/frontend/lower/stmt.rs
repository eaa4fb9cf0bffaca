//! Lowering of statements and of conditions into assume edges.

use super::*;

impl Lowerer<'_> {
    pub(super) fn label_loc(&mut self, name: &str) -> Result<LocId> {
        if let Some(l) = self.fs()?.labels.get(name) {
            return Ok(*l);
        }
        let l = self.new_loc()?;
        self.locations[l.index()].label = Some(name.to_string());
        self.fs()?.labels.insert(name.to_string(), l);
        Ok(l)
    }

    pub(super) fn block_items(&mut self, items: &[Node<BlockItem>]) -> Result<()> {
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
    pub(super) fn nested<T>(&mut self, offset: usize, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.depth >= MAX_NESTING {
            return Err(self.unsupported(offset, format!("nesting deeper than {MAX_NESTING}")));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    pub(super) fn stmt(&mut self, s: &Node<Statement>) -> Result<()> {
        self.nested(s.span.start, |l| l.stmt_node(s))
    }

    pub(super) fn stmt_node(&mut self, s: &Node<Statement>) -> Result<()> {
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
                if v.pointee.is_some() {
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

    pub(super) fn loop_body(&mut self, body: &Node<Statement>, brk: LocId, cont: LocId) -> Result<()> {
        self.fs()?.breaks.push(brk);
        self.fs()?.continues.push(cont);
        let r = self.stmt(body);
        self.fs()?.breaks.pop();
        self.fs()?.continues.pop();
        r
    }

    pub(super) fn for_stmt(&mut self, fs: &Node<lang_c::ast::ForStatement>) -> Result<()> {
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
    pub(super) fn cond(&mut self, e: &Node<Expression>, t: LocId, f: LocId) -> Result<()> {
        self.nested(e.span.start, |l| l.cond_node(e, t, f))
    }

    pub(super) fn cond_node(&mut self, e: &Node<Expression>, t: LocId, f: LocId) -> Result<()> {
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
                let mut v = self.rvalue(e)?;
                if v.e.ty.is_float() {
                    // A float is true unless it compares equal to zero (also -0.0).
                    let zero = Expr::number(0, v.e.ty);
                    v.e = fold(Expr::binary(BinaryOp::Ne, v.e, zero, IntType::INT));
                }
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
}
