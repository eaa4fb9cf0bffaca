//! Named objects that live in memory, and struct copies between any two places.
//!
//! A struct, an array of structs or a variable-length array whose address the program takes as
//! a whole (`&s`, `&s.inner`, `struct S *p = a`, `int *q = vla`) is not flattened into
//! variables ([`super::record`]): it is a block of the memory model ([`crate::cfa::heap`]) at
//! gcc's layout, and its name stands for `*p`, `p` a pointer variable holding the block's
//! address. A local's block is made by its declaration ([`AllocKind::Automatic`]: as an
//! `alloca` block it is freed when its function returns, so a pointer kept beyond that is
//! dangling, and a member never written reads as an uninitialised local); a file-scope object's block is
//! a zeroed block allocated when `main` starts. Every use is then a use through a pointer
//! ([`super::pointer`]): members are `LoadPtr`/`StorePtr` at layout offsets, so no layer of the
//! CFA needs anything new. Whether an object needs this is known only at a use: the use
//! records the declaration ([`Lowerer::request_box`]) and [`super::lower`] starts again.
//!
//! Struct copies (assignment, initialisation, arguments) between a flattened record and memory
//! reached through a pointer, in any combination, copy scalar by scalar at the layout's offsets
//! ([`Lowerer::copy_aggregate`]). A copy reads every member: copying a struct out of a `malloc`
//! block with a member never written reads uninitialised heap memory, which the memory model
//! treats as undefined behaviour.

use super::array::Place;
use super::memory_union::holds_memory_union;
use super::record::{leaf_count, SubObject};
use super::*;
use crate::cfa::semantics::UndefinedBehavior;
use crate::cfa::AllocKind;

/// The most scalars one copy or initialisation of an object in memory writes.
const MAX_CELLS: usize = 4096;

/// A file-scope object in memory: allocated and initialised when `main` starts.
pub(super) struct BoxedGlobal {
    /// The pointer variable holding the object's address.
    ptr: VarId,
    ty: CType,
    init: Option<Node<Initializer>>,
    /// The declaration's source offset.
    at: usize,
}

/// One scalar of an object at gcc's layout: its byte offset, its leaf (numbered as
/// [`super::record`] numbers them), its indices within the leaf's arrays and its value type.
struct Cell {
    offset: u64,
    leaf: usize,
    index: Vec<u64>,
    ty: IntType,
}

/// Where a struct object is: flattened variables, or memory at an address.
pub(super) enum Aggregate {
    Leaves(SubObject),
    Memory(Expr),
}

impl Lowerer<'_> {
    /// The `unsupported` error of a use that needs the object of `var` (a record's first leaf
    /// or an array) to live in memory; asks for that, so the next lowering has it there.
    pub(super) fn request_box(&mut self, var: VarId, at: usize, what: &str) -> FrontendError {
        if let Some(&declared) = self.declared_at.get(&var) {
            if !self.boxed.contains(&declared) {
                self.box_requests.insert(declared);
            }
        }
        self.unsupported(at, what)
    }

    /// Whether the object of type `t` declared at source offset `at` lives in memory.
    pub(super) fn lives_in_memory(&self, at: usize, t: &CType) -> bool {
        self.boxed.contains(&at) || holds_memory_union(t)
    }

    /// The type (outer length from the initializer) and `sizeof` of an object in memory.
    fn boxed_type(&mut self, t: CType, init: Option<&Node<Initializer>>, at: usize) -> Result<(CType, Expr)> {
        let size_t = self.model.ulong();
        if holds_memory_union(&t) {
            let t = self.with_initializer_length(t, init, at)?;
            let (size, _) = self.layout_of(&t, at)?;
            return Ok((t, Expr::constant(i128::from(size), size_t)));
        }
        if record::is_record(&t) {
            let (t, _) = self.record_leaves(t, init, at)?;
            let (size, _) = self.layout_of(&t, at)?;
            return Ok((t, Expr::constant(i128::from(size), size_t)));
        }
        // A variable-length array of scalars.
        let (ty, shape) = self.array_shape(&t, None, at)?;
        let [crate::cfa::memory::Extent::Var(n)] = shape.dims[..] else {
            return Err(self.unsupported(at, "pointer into a multi-dimensional variable-length array"));
        };
        if init.is_some() {
            return Err(self.malformed(at, "variable-length array with an initializer"));
        }
        let long = self.model.long();
        let positive = Expr::binary(
            BinaryOp::Gt,
            Expr::var(n, long),
            Expr::constant(0, long),
            IntType::INT,
        );
        self.undefined_unless(positive, UndefinedBehavior::ArraySizeNotPositive)?;
        let width = Expr::constant(i128::from(ty.size_bytes()), size_t);
        let size = fold(Expr::binary(
            BinaryOp::Mul,
            Expr::var(n, long).cast(size_t),
            width,
            size_t,
        ));
        Ok((t, size))
    }

    /// Goes on only where `cond` holds; elsewhere the path has undefined behaviour `what`.
    fn undefined_unless(&mut self, cond: Expr, what: UndefinedBehavior) -> Result<()> {
        let from = self.cur()?;
        let (ok, bad) = (self.new_loc()?, self.new_loc()?);
        let end = self.new_kind(LocationKind::Terminal)?;
        self.edge_from(
            from,
            Operation::Assume {
                cond: cond.clone(),
                branch: true,
            },
            ok,
        );
        self.edge_from(from, Operation::Assume { cond, branch: false }, bad);
        self.edge_from(bad, Operation::Undefined { what }, end);
        self.set_cur(Some(ok))
    }

    /// Declares a local struct, array of structs or variable-length array that lives in
    /// memory, with its initializer.
    pub(super) fn boxed_local(
        &mut self,
        name: &str,
        t: CType,
        init: Option<&Node<Initializer>>,
        at: usize,
    ) -> Result<()> {
        self.pos = at;
        let (t, size) = self.boxed_type(t, init, at)?;
        let unique = self.local_name(&format!("{name}__addr"))?;
        let fid = self.fs()?.id;
        let ptr = self.new_var(Variable {
            name: unique,
            source_name: name.to_string(),
            ty: self.model.pointer(),
            scope: Scope::Local(fid),
            initial: 0,
            temporary: true,
            read_only: false,
            address: None,
            array: None,
        });
        // The scope of a declarator starts before its initialiser (C11 6.2.1).
        self.bind(name, Sym::Boxed(ptr, t.clone()));
        self.pos = at;
        self.emit(Operation::Declare { var: ptr, init: None })?;
        self.emit(Operation::Alloc {
            lhs: ptr,
            kind: AllocKind::Automatic,
            size,
        })?;
        self.initialize_boxed(ptr, &t, init, true, at)
    }

    /// Declares a file-scope struct or array of structs that lives in memory; `main`
    /// allocates and initialises it ([`Lowerer::allocate_boxed_globals`]).
    pub(super) fn boxed_global(
        &mut self,
        unique: &str,
        source: &str,
        t: CType,
        init: Option<&Node<Initializer>>,
        at: usize,
    ) -> Result<VarId> {
        if self.fs.is_some() {
            let what = if holds_memory_union(&t) {
                "static local union with aggregate members (or a struct holding one)"
            } else {
                "address of a static local struct"
            };
            return Err(self.unsupported(at, what));
        }
        if self.globals.contains_key(unique) {
            return Err(self.unsupported(at, "struct declared more than once"));
        }
        let (t, _) = self.boxed_type(t, init, at)?;
        let ptr = self.new_global(&format!("{unique}__addr"), source, self.model.pointer(), 0, None);
        self.variables[ptr.index()].temporary = true;
        self.globals.insert(unique.to_string(), ptr);
        self.bind_global_sym(unique, source, Sym::Boxed(ptr, t.clone()));
        self.boxed_globals.push(BoxedGlobal {
            ptr,
            ty: t,
            init: init.cloned(),
            at,
        });
        Ok(ptr)
    }

    /// Allocates (zeroed) and initialises the file-scope objects that live in memory: the
    /// first thing `main` does.
    pub(super) fn allocate_boxed_globals(&mut self) -> Result<()> {
        let globals = std::mem::take(&mut self.boxed_globals);
        for g in &globals {
            self.pos = g.at;
            let size = self.layout_of(&g.ty, g.at)?.0;
            self.emit(Operation::Alloc {
                lhs: g.ptr,
                kind: AllocKind::Calloc,
                size: Expr::constant(i128::from(size), self.model.ulong()),
            })?;
        }
        for g in &globals {
            self.initialize_boxed(g.ptr, &g.ty, g.init.as_ref(), false, g.at)?;
        }
        Ok(())
    }

    /// Initialises the object of type `t` at the address `ptr` holds; with a braced list,
    /// `zero` first writes 0 to every scalar the list does not name (C11 6.7.9 §21; a zeroed
    /// block needs not).
    fn initialize_boxed(
        &mut self,
        ptr: VarId,
        t: &CType,
        init: Option<&Node<Initializer>>,
        zero: bool,
        at: usize,
    ) -> Result<()> {
        let address = Expr::var(ptr, self.model.pointer());
        if let (Some(init), true) = (init, holds_memory_union(t)) {
            return self.initialize_in_memory(address, t, init, zero, at);
        }
        let base = Aggregate::Memory(address);
        match init.map(|i| &i.node) {
            None => Ok(()),
            Some(Initializer::Expression(e)) => self.copy_aggregate(&base, e, t, at),
            Some(Initializer::List(items)) => {
                let initials = self.initials(t, items, at)?;
                let cells = self.cells(t, at)?;
                if zero {
                    for c in &cells {
                        self.pos = at;
                        let place = self.cell_place(&base, c);
                        self.write_place(&place, Expr::constant(0, c.ty))?;
                    }
                }
                for (leaf, index, e) in initials {
                    let Some(c) = cells.iter().find(|c| c.leaf == leaf && c.index == index) else {
                        return Err(self.malformed(e.span.start, "initializer outside the object"));
                    };
                    let value = self.rvalue(e)?.e.cast(c.ty);
                    self.pos = at;
                    let place = self.cell_place(&base, c);
                    self.write_place(&place, value)?;
                }
                Ok(())
            }
        }
    }

    /// The scalars of an object of type `t`, in declaration order.
    fn cells(&self, t: &CType, at: usize) -> Result<Vec<Cell>> {
        let mut out = Vec::new();
        self.collect_cells(t, 0, 0, &mut Vec::new(), &mut out, at)?;
        Ok(out)
    }

    fn collect_cells(
        &self,
        t: &CType,
        offset: u64,
        leaf: usize,
        index: &mut Vec<u64>,
        out: &mut Vec<Cell>,
        at: usize,
    ) -> Result<()> {
        match t {
            CType::Struct(s) => {
                let mut leaf = leaf;
                for ((_, m), off) in s.members.iter().zip(self.member_offsets(s, at)?) {
                    self.collect_cells(m, offset.saturating_add(off), leaf, index, out, at)?;
                    leaf += leaf_count(m);
                }
            }
            CType::Array(elem, ArrayLen::Fixed(n)) => {
                let (size, _) = self.layout_of(elem, at)?;
                for i in 0..*n {
                    index.push(i);
                    let element = offset.saturating_add(i.saturating_mul(size));
                    self.collect_cells(elem, element, leaf, index, out, at)?;
                    index.pop();
                }
            }
            CType::Array(..) => return Err(self.unsupported(at, "copy of a variable-length array")),
            _ => {
                if out.len() >= MAX_CELLS {
                    return Err(self.unsupported(at, "copy of a struct with more than 4096 scalars"));
                }
                out.push(Cell {
                    offset,
                    leaf,
                    index: index.clone(),
                    ty: self.value_type(t, at)?,
                });
            }
        }
        Ok(())
    }

    /// Where scalar `c` of the aggregate `a` is.
    fn cell_place(&self, a: &Aggregate, c: &Cell) -> Place {
        match a {
            Aggregate::Memory(address) => {
                let ptr = self.model.pointer();
                Place::Deref {
                    address: fold(Expr::binary(
                        BinaryOp::Add,
                        address.clone(),
                        Expr::constant(i128::from(c.offset), ptr),
                        ptr,
                    )),
                }
            }
            Aggregate::Leaves(s) => {
                let long = self.model.long();
                let mut index = s.index.clone();
                index.extend(c.index.iter().map(|&i| Expr::constant(i128::from(i), long)));
                let array = s.leaf_var(c.leaf);
                if index.is_empty() {
                    Place::Var(array)
                } else {
                    Place::Element { array, index }
                }
            }
        }
    }

    /// Where the struct `e` designates is, with its type; `None` if it is not a named or
    /// pointed-to object (a call, a conditional, ...). Subscripts are lowered.
    pub(super) fn aggregate(&mut self, e: &Node<Expression>) -> Result<Option<(Aggregate, CType)>> {
        if let Some(s) = self.sub_object(e)? {
            let t = s.ty.clone();
            return Ok(Some((Aggregate::Leaves(s), t)));
        }
        Ok(self
            .pointed_object(e)?
            .map(|(address, t)| (Aggregate::Memory(address), t)))
    }

    /// Copies the struct `src` designates into `dst`, of type `t`, scalar by scalar.
    pub(super) fn copy_aggregate(
        &mut self,
        dst: &Aggregate,
        src: &Node<Expression>,
        t: &CType,
        at: usize,
    ) -> Result<()> {
        if holds_memory_union(t) {
            let Aggregate::Memory(address) = dst else {
                return Err(self.malformed(at, "union with aggregate members outside memory"));
            };
            return self.copy_in_memory(address.clone(), src, t, at);
        }
        let values = self.struct_values(src, t)?;
        let cells = self.cells(t, at)?;
        for (c, value) in cells.iter().zip(values) {
            self.pos = at;
            let place = self.cell_place(dst, c);
            self.write_place(&place, value)?;
        }
        Ok(())
    }

    /// The scalars of the struct `src` designates, which must be of type `t` (read into
    /// temporaries, in declaration order).
    pub(super) fn struct_values(&mut self, src: &Node<Expression>, t: &CType) -> Result<Vec<Expr>> {
        let at = src.span.start;
        let Some((from, st)) = self.aggregate(src)? else {
            return Err(self.unsupported(
                at,
                "struct value other than a variable, member, array element or object through a pointer",
            ));
        };
        let cells = self.cells(t, at)?;
        let same = st == *t || {
            let theirs = self.cells(&st, at)?;
            theirs.len() == cells.len()
                && theirs
                    .iter()
                    .zip(&cells)
                    .all(|(a, b)| (a.offset, a.ty) == (b.offset, b.ty))
        };
        if !same || !matches!(st, CType::Struct(_)) {
            return Err(self.malformed(at, "struct value of an incompatible type"));
        }
        let mut values = Vec::with_capacity(cells.len());
        for c in &cells {
            self.pos = at;
            let place = self.cell_place(&from, c);
            values.push(self.read_place(&place, c.ty)?);
        }
        Ok(values)
    }
}
