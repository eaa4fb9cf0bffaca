//! Structs, as a record of scalar cells.
//!
//! A struct object is lowered to one CFA variable per scalar *leaf* of its type (a member that
//! is an integer, float, pointer or scalar union), in declaration order, allocated
//! consecutively so that leaf `k` of an object whose first leaf is `v` is `VarId(v.0 + k)`.
//! Arrays on the way to a leaf become dimensions of the leaf's variable: `struct S { int n;
//! int a[3]; } s[10]` is the arrays `s.n[10]` and `s.a[10][3]`, and `s[i].a[j]` is element
//! `[i][j]` of `s.a`. Every layer therefore sees only scalars and arrays of the memory model
//! ([`crate::cfa::memory`]), and an out-of-bounds index is caught per dimension as for arrays.
//! The byte layout (`sizeof`, padding) follows gcc in both data models
//! ([`crate::cfa::memory::record_layout`]); a record whose members' addresses are taken has its
//! leaves laid out so ([`super::placed`]). Struct assignment and initialisation copy leaf by leaf (also from and to memory
//! through pointers, see [`super::boxed`]), and a struct parameter is one parameter per leaf; a
//! struct used as a value otherwise (returned by value, cast, compared) is `unsupported`. A
//! record whose address is taken as a whole, or an array of structs that decays to a pointer,
//! is not flattened: it lives in memory ([`super::boxed`]).

use super::array::Place;
use super::decls::MemberDecl;
use super::*;
use crate::cfa::memory::{flat_index, member_alignment, record_layout, ArrayShape, Extent};
use crate::frontend::types::StructType;
use lang_c::ast::{InitializerListItem, MemberOperator};

/// What `unsupported` says about a struct used as a value other than by assignment,
/// initialisation or member access.
pub(super) const STRUCT_VALUE: &str =
    "struct used as a value (returned, cast or compared; only assignment, initialisation, passing and member access are modelled)";

/// Whether objects of type `t` are records of leaves: a struct, or an array of structs.
pub(super) fn is_record(t: &CType) -> bool {
    match t {
        CType::Struct(_) => true,
        CType::Array(elem, _) => is_record(elem),
        _ => false,
    }
}

/// The number of leaves of an object of type `t` (an array of structs has its element's).
pub(super) fn leaf_count(t: &CType) -> usize {
    match t {
        CType::Struct(s) => s.members.iter().map(|(_, m)| leaf_count(m)).sum(),
        CType::Array(elem, _) => leaf_count(elem),
        _ => 1,
    }
}

/// One scalar leaf of a record type: its name suffix (`.a.b`), its type and the extents of
/// the arrays on its way (outermost first).
struct Leaf {
    suffix: String,
    ty: CType,
    dims: Vec<u64>,
}

/// The leaves of type `t` in declaration order, or what makes it unmodelled.
fn leaves(t: &CType, suffix: String, dims: Vec<u64>, out: &mut Vec<Leaf>) -> std::result::Result<(), String> {
    match t {
        CType::Struct(s) => {
            for (name, m) in &s.members {
                leaves(m, format!("{suffix}.{name}"), dims.clone(), out)?;
            }
        }
        CType::Array(elem, ArrayLen::Fixed(n)) => {
            let mut dims = dims;
            dims.push(*n);
            leaves(elem, suffix, dims, out)?;
        }
        CType::Array(..) => return Err("array of structs of variable or unspecified length".into()),
        // A union in memory is never a leaf of a flattened record: a record holding one lives
        // in memory ([`super::memory_union`]).
        CType::Int(_) | CType::Ptr(_) | CType::Union(_) | CType::MemoryUnion(_) => out.push(Leaf {
            suffix,
            ty: t.clone(),
            dims,
        }),
        CType::Void => return Err("struct member of type void".into()),
        CType::Func(_) => return Err("struct member of function type".into()),
        CType::Incomplete { .. } => return Err("struct member of incomplete type".into()),
        CType::Unsupported(s) => return Err(s.clone()),
    }
    Ok(())
}

/// The struct type of these member declarations, or what makes it unmodelled.
pub(super) fn struct_of(declared: Vec<MemberDecl>) -> CType {
    let mut members = Vec::new();
    for m in declared {
        if m.bit_field {
            return CType::Unsupported("bit-field in a struct".into());
        }
        let Some(name) = m.name else {
            return CType::Unsupported("anonymous struct or union member".into());
        };
        let Declared::Object(t) = m.declared else {
            return CType::Unsupported("struct with a function member".into());
        };
        if let CType::Array(_, ArrayLen::Unspecified) = t {
            return CType::Unsupported("flexible array member".into());
        }
        if let Err(what) = leaves(&t, String::new(), Vec::new(), &mut Vec::new()) {
            return CType::Unsupported(format!("struct with a member of {what}"));
        }
        members.push((name, t));
    }
    if members.is_empty() {
        return CType::Unsupported("struct without members".into());
    }
    CType::Struct(StructType { members })
}

/// A sub-object of a record variable: the object's first leaf, the sub-object's type, the
/// position of its first leaf among the object's, and the indices chosen on the way.
#[derive(Debug, Clone)]
pub(super) struct SubObject {
    first: VarId,
    pub(super) ty: CType,
    leaf: usize,
    pub(super) index: Vec<Expr>,
    /// Set when the sub-object is a member of a union leaf: the union's storage type.
    union_storage: Option<IntType>,
}

impl SubObject {
    /// The variable of the sub-object's leaf `k`.
    pub(super) fn leaf_var(&self, k: usize) -> VarId {
        VarId(self.first.0 + (self.leaf + k) as u32)
    }
}

/// The leaf variables of a record object: (name suffix, value type, array shape).
type LeafVars = Vec<(String, IntType, Option<ArrayShape>)>;

/// Scalars an initializer sets: (leaf, index within the leaf's dimensions, expression).
type Initials<'i> = Vec<(usize, Vec<u64>, &'i Node<Expression>)>;

impl Lowerer<'_> {
    /// `sizeof` and alignment of type `t` as gcc lays it out in the task's data model.
    pub(super) fn layout_of(&self, t: &CType, at: usize) -> Result<(u64, u64)> {
        Ok(match t {
            CType::Int(i) => (u64::from(i.size_bytes()), member_alignment(*i, self.model)),
            CType::Ptr(_) => {
                let p = self.model.pointer();
                (u64::from(p.size_bytes()), member_alignment(p, self.model))
            }
            CType::Union(u) => {
                let align = u
                    .members
                    .iter()
                    .map(|(_, m)| member_alignment(*m, self.model))
                    .max();
                (u64::from(u.storage().size_bytes()), align.unwrap_or(1))
            }
            CType::MemoryUnion(u) => self.memory_union_layout(u, at)?,
            CType::Array(elem, ArrayLen::Fixed(n)) => {
                let (size, align) = self.layout_of(elem, at)?;
                let size = size
                    .checked_mul(*n)
                    .ok_or_else(|| self.malformed(at, "array too large"))?;
                (size, align)
            }
            CType::Struct(s) => {
                let members = s
                    .members
                    .iter()
                    .map(|(_, m)| self.layout_of(m, at))
                    .collect::<Result<Vec<_>>>()?;
                let layout = record_layout(&members);
                let size = layout
                    .size
                    .ok_or_else(|| self.malformed(at, "struct too large"))?;
                (size, layout.align)
            }
            CType::Array(..) => return Err(self.unsupported(at, "sizeof of a variable-length array")),
            CType::Void => (1, 1),
            CType::Incomplete { .. } => return Err(self.unsupported(at, "sizeof of an incomplete type")),
            CType::Func(_) => return Err(self.unsupported(at, "sizeof of a function type")),
            CType::Unsupported(s) => return Err(self.unsupported(at, format!("sizeof of {s}"))),
        })
    }

    /// The byte offset of each member of the struct `s` in gcc's layout, in declaration order.
    pub(super) fn member_offsets(&self, s: &StructType, at: usize) -> Result<Vec<u64>> {
        let layouts = s
            .members
            .iter()
            .map(|(_, m)| self.layout_of(m, at))
            .collect::<Result<Vec<_>>>()?;
        Ok(record_layout(&layouts).offsets)
    }

    /// The record variable `e` is a sub-object of (through `.` and `[]`), if any; nothing is
    /// lowered.
    pub(super) fn record_root(&self, e: &Node<Expression>) -> Option<(VarId, CType)> {
        match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Sym::Var(v, t)) if is_record(t) => Some((*v, t.clone())),
                _ => None,
            },
            Expression::Member(m) if m.node.operator.node == MemberOperator::Direct => {
                self.record_root(&m.node.expression)
            }
            // A pointer member subscripted (`s.p[i]`) designates what it points to, not a
            // sub-object of the record.
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                if matches!(self.type_of_record(&b.node.lhs), Some(CType::Ptr(_))) {
                    return None;
                }
                self.record_root(&b.node.lhs)
            }
            _ => None,
        }
    }

    /// The sub-object of a record variable `e` designates, its indices lowered in order; `None`
    /// if `e` is not inside a record variable.
    pub(super) fn sub_object(&mut self, e: &Node<Expression>) -> Result<Option<SubObject>> {
        if self.record_root(e).is_none() {
            return Ok(None);
        }
        self.sub_object_of(e).map(Some)
    }

    fn sub_object_of(&mut self, e: &Node<Expression>) -> Result<SubObject> {
        let at = e.span.start;
        match &e.node {
            Expression::Identifier(_) => {
                let (first, ty) = self
                    .record_root(e)
                    .ok_or_else(|| self.malformed(at, "not a struct variable"))?;
                self.check_extern(first, at)?;
                Ok(SubObject {
                    first,
                    ty,
                    leaf: 0,
                    index: Vec::new(),
                    union_storage: None,
                })
            }
            Expression::Member(m) => {
                let s = self.sub_object_of(&m.node.expression)?;
                self.select_member(s, &m.node.identifier.node.name, at)
            }
            Expression::BinaryOperator(b) => {
                let mut s = self.sub_object_of(&b.node.lhs)?;
                let CType::Array(elem, _) = s.ty else {
                    return Err(self.malformed(at, "subscripted value is not an array"));
                };
                let i = self.rvalue(&b.node.rhs)?;
                if i.pointee.is_some() {
                    return Err(self.malformed(b.node.rhs.span.start, "array subscript is a pointer"));
                }
                s.index.push(i.e);
                s.ty = *elem;
                Ok(s)
            }
            _ => Err(self.malformed(at, "not a struct sub-object")),
        }
    }

    /// Member `name` of the struct or union sub-object `s`.
    fn select_member(&self, mut s: SubObject, name: &str, at: usize) -> Result<SubObject> {
        match &s.ty {
            CType::Struct(st) => {
                let mut leaf = s.leaf;
                for (n, m) in &st.members {
                    if n == name {
                        s.leaf = leaf;
                        s.ty = m.clone();
                        return Ok(s);
                    }
                    leaf += leaf_count(m);
                }
                Err(self.malformed(at, format!("no member `{name}` in the struct")))
            }
            CType::Union(u) if s.union_storage.is_none() => {
                let Some(&(_, ty)) = u.members.iter().find(|(n, _)| n == name) else {
                    return Err(self.malformed(at, format!("no member `{name}` in the union")));
                };
                s.union_storage = Some(u.storage());
                s.ty = CType::Int(ty);
                Ok(s)
            }
            _ => Err(self.malformed(at, format!("member `{name}` of something that is not a struct"))),
        }
    }

    /// The place of a scalar sub-object and its type.
    pub(super) fn scalar_place(&mut self, s: SubObject, at: usize) -> Result<(Place, CType)> {
        match &s.ty {
            CType::Struct(_) => return Err(self.unsupported(at, STRUCT_VALUE)),
            // A member array decays: its record lives in memory.
            CType::Array(..) => {
                return Err(self.request_box(s.first, at, "array used as a value (decay to a pointer)"))
            }
            _ => {}
        }
        let var = s.leaf_var(0);
        let place = match (s.union_storage, s.index.is_empty()) {
            (Some(storage), true) => Place::Member { var, storage },
            (Some(_), false) => return Err(self.unsupported(at, "union member of an array element")),
            (None, true) => Place::Var(var),
            (None, false) => Place::Element {
                array: var,
                index: s.index,
            },
        };
        Ok((place, s.ty))
    }

    /// The place and type of member access `m` on a record variable, or `None` if its
    /// operand is not inside one.
    pub(super) fn record_member(
        &mut self,
        m: &Node<lang_c::ast::MemberExpression>,
    ) -> Result<Option<(Place, CType)>> {
        if m.node.operator.node != MemberOperator::Direct || self.record_root(&m.node.expression).is_none() {
            return Ok(None);
        }
        let at = m.span.start;
        let s = self.sub_object_of(&m.node.expression)?;
        let s = self.select_member(s, &m.node.identifier.node.name, at)?;
        self.scalar_place(s, at).map(Some)
    }

    /// The scalar element `e` designates inside a record variable (`s[i].n`), or `None`.
    pub(super) fn record_element(&mut self, e: &Node<Expression>) -> Result<Option<(Place, CType)>> {
        match self.sub_object(e)? {
            Some(s) => self.scalar_place(s, e.span.start).map(Some),
            None => Ok(None),
        }
    }

    /// `lhs = rhs` for a struct `lhs` (a record's sub-object or an object through a pointer):
    /// copies every scalar. `Ok(false)` if `lhs` is not a struct (nothing lowered then).
    pub(super) fn struct_assignment(
        &mut self,
        lhs: &Node<Expression>,
        rhs: &Node<Expression>,
        used: bool,
    ) -> Result<bool> {
        let at = lhs.span.start;
        let is_struct = match self.type_of_record(lhs) {
            Some(t) => matches!(t, CType::Struct(_)),
            None => matches!(
                self.type_of(lhs).map(|t| self.complete(t)),
                Ok(CType::Struct(_) | CType::MemoryUnion(_))
            ),
        };
        if !is_struct {
            return Ok(false);
        }
        if used {
            return Err(self.unsupported(at, "value of a struct assignment"));
        }
        let Some((dst, t)) = self.aggregate(lhs)? else {
            return Err(self.unsupported(
                at,
                "assignment to a struct that is not a variable, member or object through a pointer",
            ));
        };
        self.copy_aggregate(&dst, rhs, &t, at)?;
        Ok(true)
    }

    /// The type of a sub-object expression inside a record variable, without lowering it.
    pub(super) fn type_of_record(&self, e: &Node<Expression>) -> Option<CType> {
        match &e.node {
            Expression::Identifier(_) => self.record_root(e).map(|(_, t)| t),
            Expression::Member(m) if m.node.operator.node == MemberOperator::Direct => {
                match self.type_of_record(&m.node.expression)? {
                    CType::Struct(s) => s
                        .members
                        .iter()
                        .find(|(n, _)| *n == m.node.identifier.node.name)
                        .map(|(_, t)| t.clone()),
                    _ => None,
                }
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                match self.type_of_record(&b.node.lhs)? {
                    CType::Array(elem, _) => Some(*elem),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Declares a struct parameter passed by value: one parameter per leaf (a struct with an
    /// array member is not modelled as a parameter). Gives the parameters.
    pub(super) fn struct_parameter(&mut self, name: &str, t: CType, at: usize) -> Result<Vec<VarId>> {
        let (t, leaves) = self.record_leaves(t, None, at)?;
        if leaves.iter().any(|(_, _, shape)| shape.is_some()) {
            return Err(self.unsupported(at, "struct parameter with an array member"));
        }
        self.local_leaves(name, t, &leaves, at)
    }

    /// Declares the leaf variables of a local record object `name` of type `t`, consecutively,
    /// and binds the name to the first.
    fn local_leaves(&mut self, name: &str, t: CType, leaves: &LeafVars, at: usize) -> Result<Vec<VarId>> {
        let fid = self.fs()?.id;
        let mut vars = Vec::with_capacity(leaves.len());
        for (suffix, ty, array) in leaves {
            let source_name = format!("{name}{suffix}");
            let unique = self.local_name(&source_name)?;
            vars.push(self.new_var(Variable {
                name: unique,
                source_name,
                ty: *ty,
                scope: Scope::Local(fid),
                initial: 0,
                temporary: false,
                read_only: false,
                address: None,
                array: array.clone(),
            }));
        }
        let first = *vars
            .first()
            .ok_or_else(|| self.malformed(at, "struct without members"))?;
        self.bind(name, Sym::Var(first, t));
        Ok(vars)
    }

    /// The values of a struct argument passed by value to a parameter of type `t`, leaf by leaf.
    pub(super) fn struct_argument(&mut self, arg: &Node<Expression>, t: &CType) -> Result<Vec<Expr>> {
        self.struct_values(arg, t)
    }

    /// The leaf variables of a record object named `name` of type `t`: (name suffix, value
    /// type, shape). An unspecified outermost length is taken from the initializer.
    pub(super) fn record_leaves(
        &mut self,
        t: CType,
        init: Option<&Node<Initializer>>,
        at: usize,
    ) -> Result<(CType, LeafVars)> {
        let t = self.with_initializer_length(t, init, at)?;
        let mut out = Vec::new();
        leaves(&t, String::new(), Vec::new(), &mut out).map_err(|what| self.unsupported(at, what))?;
        let mut vars = Vec::with_capacity(out.len());
        for leaf in out {
            let ty = self.value_type(&leaf.ty, at)?;
            let shape = (!leaf.dims.is_empty()).then(|| ArrayShape {
                dims: leaf.dims.iter().map(|&n| Extent::Fixed(n)).collect(),
                initial: Vec::new(),
            });
            vars.push((leaf.suffix, ty, shape));
        }
        Ok((t, vars))
    }

    /// `t` with an unspecified outermost length (an array of aggregates) taken from the
    /// initializer: one braced initializer per element.
    pub(super) fn with_initializer_length(
        &self,
        t: CType,
        init: Option<&Node<Initializer>>,
        at: usize,
    ) -> Result<CType> {
        Ok(match (t, init.map(|i| &i.node)) {
            (CType::Array(elem, ArrayLen::Unspecified), Some(Initializer::List(items))) => {
                let braced = items.iter().all(|i| {
                    i.node.designation.is_empty() && matches!(i.node.initializer.node, Initializer::List(_))
                });
                if !braced {
                    return Err(self.unsupported(
                        at,
                        "array of structs of unspecified size without one braced initializer per element",
                    ));
                }
                CType::Array(elem, ArrayLen::Fixed(items.len().max(1) as u64))
            }
            (t, _) => t,
        })
    }

    /// Declares a local struct (or array of structs) with its initializer.
    pub(super) fn local_record(
        &mut self,
        name: &str,
        t: CType,
        init: Option<&Node<Initializer>>,
        at: usize,
    ) -> Result<()> {
        let (t, leaves) = self.record_leaves(t, init, at)?;
        let vars = self.local_leaves(name, t.clone(), &leaves, at)?;
        let first = vars[0];
        self.declared_at.insert(first, at);
        self.pos = at;
        let initials = match init.map(|i| &i.node) {
            None => None,
            Some(Initializer::List(items)) => Some(self.initials(&t, items, at)?),
            Some(Initializer::Expression(e)) => {
                for &v in &vars {
                    self.emit(Operation::Declare { var: v, init: None })?;
                }
                let dst = SubObject {
                    first,
                    ty: t.clone(),
                    leaf: 0,
                    index: Vec::new(),
                    union_storage: None,
                };
                return self.copy_aggregate(&super::boxed::Aggregate::Leaves(dst), e, &t, at);
            }
        };
        // An initializer sets every scalar it does not name to 0 (C11 6.7.9 §21).
        for (&v, (_, ty, _)) in vars.iter().zip(&leaves) {
            let init = initials.is_some().then(|| Expr::constant(0, *ty));
            self.emit(Operation::Declare { var: v, init })?;
        }
        for (leaf, index, e) in initials.unwrap_or_default() {
            let (v, ty) = (vars[leaf], leaves[leaf].1);
            let value = self.rvalue(e)?.e.cast(ty);
            self.pos = at;
            if index.is_empty() {
                self.emit(Operation::Assign { lhs: v, rhs: value })?;
            } else {
                let index = index
                    .iter()
                    .map(|&i| Expr::constant(i128::from(i), self.model.long()))
                    .collect();
                self.emit(Operation::Store {
                    array: v,
                    index,
                    rhs: value,
                })?;
            }
        }
        Ok(())
    }

    /// Declares a global (or static local) struct or array of structs with its constant
    /// initializer; gives its first leaf.
    pub(super) fn global_record(
        &mut self,
        unique: &str,
        source: &str,
        t: CType,
        init: Option<&Node<Initializer>>,
        is_extern: bool,
        at: usize,
    ) -> Result<VarId> {
        if is_extern {
            return Err(self.unsupported(at, "extern struct"));
        }
        if self.globals.contains_key(unique) {
            return Err(self.unsupported(at, "struct declared more than once"));
        }
        let (t, leaves) = self.record_leaves(t, init, at)?;
        let initials = match init.map(|i| &i.node) {
            None => Vec::new(),
            Some(Initializer::List(items)) => self.initials(&t, items, at)?,
            Some(Initializer::Expression(e)) => {
                return Err(self.unsupported(
                    e.span.start,
                    "struct initialized by an expression outside a function",
                ))
            }
        };
        let mut scalars = vec![0i128; leaves.len()];
        let mut shapes: Vec<Option<ArrayShape>> = leaves.iter().map(|(_, _, s)| s.clone()).collect();
        // Leaves initialized with function addresses: (leaf, flat index, address).
        let mut functions = Vec::new();
        for (leaf, index, e) in initials {
            let value = self.const_value(e, leaves[leaf].1)?;
            let function = self.function_initial(e, leaves[leaf].1)?;
            match &mut shapes[leaf] {
                None => {
                    scalars[leaf] = value;
                    functions.extend(function.map(|x| (leaf, None, x)));
                }
                Some(shape) => {
                    let extents = shape.fixed_extents().unwrap_or_default();
                    let index: Vec<i128> = index.iter().map(|&i| i128::from(i)).collect();
                    let flat = flat_index(&extents, &index)
                        .map_err(|_| self.malformed(e.span.start, "initializer outside the array"))?;
                    shape.initial.retain(|(f, _)| *f != flat);
                    shape.initial.push((flat, value));
                    functions.extend(function.map(|x| (leaf, Some(flat), x)));
                }
            }
        }
        let mut first = None;
        let mut ids = Vec::new();
        for (((suffix, ty, _), initial), shape) in leaves.iter().zip(scalars).zip(shapes) {
            let id = self.new_var(Variable {
                name: format!("{unique}{suffix}"),
                source_name: format!("{source}{suffix}"),
                ty: *ty,
                scope: Scope::Global,
                initial,
                temporary: false,
                read_only: false,
                array: shape,
                address: None,
            });
            self.globals.insert(format!("{unique}{suffix}"), id);
            first.get_or_insert(id);
            ids.push(id);
        }
        self.function_initials
            .extend(functions.into_iter().map(|(leaf, flat, x)| (ids[leaf], flat, x)));
        let first = first.ok_or_else(|| self.malformed(at, "struct without members"))?;
        self.declared_at.insert(first, at);
        self.globals.insert(unique.to_string(), first);
        self.bind_global(unique, source, first, t);
        Ok(first)
    }

    /// The scalars a braced initializer of a record of type `t` sets: (leaf, indices within
    /// the leaf's dimensions, expression).
    pub(super) fn initials<'i>(
        &mut self,
        t: &CType,
        items: &'i [Node<InitializerListItem>],
        at: usize,
    ) -> Result<Initials<'i>> {
        let mut out = Vec::new();
        for initial in self.braced_initials(t, items, at)? {
            if let CType::Union(_) = initial.ty {
                // C initialises the union's first member, whose bytes are not the storage
                // type's value: not modelled.
                return Err(self.unsupported(initial.e.span.start, "initializer of a union inside a struct"));
            }
            let (mut sub, mut leaf, mut prefix) = (t.clone(), 0, Vec::new());
            for &k in &initial.path {
                (sub, leaf, prefix) = sub_object_at(&sub, k, leaf, &prefix);
            }
            out.push((leaf, prefix, initial.e));
        }
        Ok(out)
    }
}

/// Sub-object `k` of aggregate `t` whose first leaf is `leaf` and whose indices are `prefix`:
/// its type, its first leaf and its indices.
fn sub_object_at(t: &CType, k: u64, leaf: usize, prefix: &[u64]) -> (CType, usize, Vec<u64>) {
    match t {
        CType::Struct(s) => {
            let k = k as usize;
            let before: usize = s.members[..k].iter().map(|(_, m)| leaf_count(m)).sum();
            (s.members[k].1.clone(), leaf + before, prefix.to_vec())
        }
        CType::Array(elem, _) => {
            let mut p = prefix.to_vec();
            p.push(k);
            ((**elem).clone(), leaf, p)
        }
        other => (other.clone(), leaf, prefix.to_vec()),
    }
}
