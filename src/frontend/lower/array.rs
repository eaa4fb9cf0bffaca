//! Lowering of arrays: array types, declarations with their initialisers, and element
//! accesses as [`Place`]s that `Load` and `Store` edges read and write.

use super::*;
use crate::cfa::memory::{element_count, ArrayShape, Extent};
use crate::frontend::types::string_literal;
use lang_c::ast::{ArraySize, InitializerListItem};

/// Where an assignment writes: a scalar variable or an array element.
#[derive(Debug, Clone)]
pub(super) enum Place {
    Var(VarId),
    Element {
        array: VarId,
        index: Vec<Expr>,
    },
    /// A member of a union variable whose bytes are held in type `storage`.
    Member {
        var: VarId,
        storage: IntType,
    },
    /// The object at a pointer value (see the lowering's `pointer` module).
    Deref {
        address: Expr,
    },
}

/// A global array's element type, its shape with the constant initial values, and the
/// elements initialized with function addresses (flat index, address expression).
pub(super) type GlobalArray = (IntType, ArrayShape, Vec<(u64, Expr)>);

impl Lowerer<'_> {
    /// The array type a declarator's derived part gives `base` (`int a[3][n]`); an array type
    /// Baton does not model is [`CType::Unsupported`], so that only a use of it is rejected.
    pub(super) fn array_type(&mut self, base: CType, derived: &[Node<DerivedDeclarator>]) -> Result<CType> {
        // `int *p[3]`: the pointers come first and make the element a pointer.
        let pointers = derived
            .iter()
            .take_while(|d| matches!(d.node, DerivedDeclarator::Pointer(_)))
            .count();
        let base = (0..pointers).fold(base, |t, _| CType::pointer_to(t));
        let mut lens = Vec::new();
        for d in &derived[pointers..] {
            let DerivedDeclarator::Array(a) = &d.node else {
                return Ok(CType::Unsupported("array of pointers or functions".into()));
            };
            lens.push(match &a.node.size {
                ArraySize::Unknown => ArrayLen::Unspecified,
                ArraySize::VariableUnknown => ArrayLen::Unspecified,
                ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e) => {
                    match self.const_eval(e) {
                        Ok(n) if n > 0 => ArrayLen::Fixed(n as u64),
                        // gcc's zero-length arrays (an extension, e.g. flexible members in
                        // headers): not modelled, rejected only where used.
                        Ok(0) => return Ok(CType::Unsupported("zero-length array".into())),
                        Ok(_) => return Err(self.malformed(e.span.start, "array size not positive")),
                        // Not a constant: a variable-length array, sized when it is declared.
                        Err(_) if self.fs.is_some() => {
                            self.vla_sizes.push((**e).clone());
                            ArrayLen::Variable(self.vla_sizes.len() - 1)
                        }
                        Err(FrontendError::Unsupported { construct, .. }) => {
                            return Ok(CType::Unsupported(format!("array size: {construct}")))
                        }
                        Err(e) => return Err(e),
                    }
                }
            });
        }
        Ok(lens
            .into_iter()
            .rev()
            .fold(base, |t, len| CType::Array(Box::new(t), len)))
    }

    /// The element type and shape of an array variable of type `t`; an unspecified outermost
    /// length takes the length of the initializer list `init`. Variable lengths are evaluated
    /// here, each into a fresh variable (so this emits edges in a function).
    pub(super) fn array_shape(
        &mut self,
        t: &CType,
        init: Option<&Node<Initializer>>,
        at: usize,
    ) -> Result<(IntType, ArrayShape)> {
        let Some((lens, elem)) = t.array_dims() else {
            return Err(self.malformed(at, "not an array"));
        };
        let ty = match elem {
            CType::Int(i) => *i,
            CType::Ptr(_) => self.model.pointer(),
            other => return Err(self.unsupported(at, format!("array of {}", describe(other)))),
        };
        let mut dims = Vec::with_capacity(lens.len());
        for (k, len) in lens.iter().enumerate() {
            dims.push(match len {
                ArrayLen::Fixed(n) => Extent::Fixed(*n),
                ArrayLen::Unspecified => match init.map(|i| &i.node) {
                    Some(Initializer::Expression(e)) if lens.len() == 1 => match &e.node {
                        Expression::StringLiteral(parts) => match string_literal(&parts.node) {
                            Some(bytes) => Extent::Fixed(bytes.len() as u64),
                            None => return Err(self.unsupported(at, "wide or malformed string literal")),
                        },
                        _ => return Err(self.unsupported(at, "array initialized by an expression")),
                    },
                    Some(Initializer::List(items))
                        if items.iter().any(|i| !i.node.designation.is_empty()) =>
                    {
                        return Err(
                            self.unsupported(at, "designated initializer of an array of unspecified size")
                        )
                    }
                    Some(Initializer::List(items)) if k == 0 => {
                        let inner: Option<Vec<u64>> = lens[1..]
                            .iter()
                            .map(|l| match l {
                                ArrayLen::Fixed(n) => Some(*n),
                                _ => None,
                            })
                            .collect();
                        let stride = inner.as_deref().and_then(element_count);
                        let Some(stride) = stride else {
                            return Err(self.unsupported(at, "array of unspecified size"));
                        };
                        Extent::Fixed(list_length(items, stride).max(1))
                    }
                    _ => return Err(self.unsupported(at, "array of unspecified size")),
                },
                ArrayLen::Variable(i) => {
                    let size = self.vla_sizes[*i].clone();
                    let v = self.rvalue(&size)?;
                    if v.pointee.is_some() {
                        return Err(self.malformed(size.span.start, "array size is a pointer"));
                    }
                    let long = self.model.long();
                    let tmp = self.temp(long)?;
                    self.emit(Operation::Assign {
                        lhs: tmp,
                        rhs: v.e.cast(long),
                    })?;
                    Extent::Var(tmp)
                }
            });
        }
        Ok((
            ty,
            ArrayShape {
                dims,
                initial: Vec::new(),
            },
        ))
    }

    /// Declares a local array variable of type `t` with its initializer.
    pub(super) fn local_array(
        &mut self,
        name: &str,
        t: CType,
        init: Option<&Node<Initializer>>,
        at: usize,
    ) -> Result<()> {
        let (ty, shape) = self.array_shape(&t, init, at)?;
        let t = with_outer_length(t, &shape);
        let string = self.string_elements(ty, &shape, init)?;
        let elements = match init {
            _ if string.is_some() => None,
            None => None,
            Some(i) => Some(self.initial_elements(&shape, i)?),
        };
        let unique = self.local_name(name)?;
        let fid = self.fs()?.id;
        let v = self.new_var(Variable {
            name: unique,
            source_name: name.to_string(),
            ty,
            scope: Scope::Local(fid),
            initial: 0,
            temporary: false,
            read_only: false,
            address: None,
            array: Some(shape.clone()),
        });
        self.declared_at.insert(v, at);
        self.bind(name, Sym::Var(v, t));
        self.pos = at;
        if let Some(bytes) = string {
            self.emit(Operation::Declare {
                var: v,
                init: Some(Expr::constant(0, ty)),
            })?;
            for (flat, byte) in bytes {
                self.emit(Operation::Store {
                    array: v,
                    index: vec![Expr::constant(i128::from(flat), self.model.long())],
                    rhs: Expr::constant(byte, ty),
                })?;
            }
            return Ok(());
        }
        let Some(elements) = elements else {
            return self.emit(Operation::Declare { var: v, init: None });
        };
        // An initializer sets every element it does not name to 0 (C11 6.7.9 §21).
        self.emit(Operation::Declare {
            var: v,
            init: Some(Expr::constant(0, ty)),
        })?;
        let extents = shape.fixed_extents().unwrap_or_default();
        for (flat, e) in elements {
            let val = self.rvalue(e)?;
            let index = unflatten(flat, &extents)
                .into_iter()
                .map(|i| Expr::constant(i128::from(i), self.model.long()))
                .collect();
            self.pos = at;
            self.emit(Operation::Store {
                array: v,
                index,
                rhs: val.e.cast(ty),
            })?;
        }
        Ok(())
    }

    /// The element type and shape of a global array with its constant initializer, and the
    /// elements initialized with function addresses (flat index, address expression).
    pub(super) fn global_array(
        &mut self,
        t: &CType,
        init: Option<&Node<Initializer>>,
        at: usize,
    ) -> Result<GlobalArray> {
        let (ty, mut shape) = self.array_shape(t, init, at)?;
        if shape.fixed_extents().is_none() {
            return Err(self.unsupported(at, "variable-length array outside a function"));
        }
        let mut functions = Vec::new();
        if let Some(bytes) = self.string_elements(ty, &shape, init)? {
            shape.initial = bytes;
        } else if let Some(i) = init {
            for (flat, e) in self.initial_elements(&shape, i)? {
                let v = self.const_value(e, ty)?;
                shape.initial.push((flat, v));
                if let Some(x) = self.function_initial(e, ty)? {
                    functions.push((flat, x));
                }
            }
        }
        Ok((ty, shape, functions))
    }

    /// The elements a string literal initializing a `char` array gives (`char s[] = "ab"`),
    /// or `None` if the initializer is not a string literal.
    fn string_elements(
        &self,
        ty: IntType,
        shape: &ArrayShape,
        init: Option<&Node<Initializer>>,
    ) -> Result<Option<Vec<(u64, i128)>>> {
        let Some(Initializer::Expression(e)) = init.map(|i| &i.node) else {
            return Ok(None);
        };
        let Expression::StringLiteral(parts) = &e.node else {
            return Ok(None);
        };
        let at = e.span.start;
        let (Some(&[len]), 8) = (shape.fixed_extents().as_deref(), ty.bits) else {
            return Err(self.unsupported(at, "string literal initializing an array that is not of char"));
        };
        let Some(mut bytes) = string_literal(&parts.node) else {
            return Err(self.unsupported(at, "wide or malformed string literal"));
        };
        // The terminating NUL is dropped when the array has exactly no room for it.
        if bytes.len() as u64 > len + 1 {
            return Err(self.malformed(at, "initializer-string for array is too long"));
        }
        bytes.truncate(len as usize);
        Ok(Some(
            bytes
                .into_iter()
                .enumerate()
                .map(|(i, b)| (i as u64, ty.normalize(b)))
                .collect(),
        ))
    }

    /// The elements an initializer list gives, as (flat index, expression), in order.
    fn initial_elements<'i>(
        &mut self,
        shape: &ArrayShape,
        init: &'i Node<Initializer>,
    ) -> Result<Vec<(u64, &'i Node<Expression>)>> {
        let Some(extents) = shape.fixed_extents() else {
            return Err(self.unsupported(init.span.start, "initializer of a variable-length array"));
        };
        let Initializer::List(items) = &init.node else {
            return Err(self.unsupported(init.span.start, "array initialized by an expression"));
        };
        let mut out = Vec::new();
        self.flatten(items, &extents, 0, &mut out)?;
        Ok(out)
    }

    /// Flattens `items` for a (sub-)array with these extents starting at flat index `start`:
    /// braces start a new sub-array, bare values fill elements in order (brace elision).
    fn flatten<'i>(
        &mut self,
        items: &'i [Node<InitializerListItem>],
        extents: &[u64],
        start: u64,
        out: &mut Vec<(u64, &'i Node<Expression>)>,
    ) -> Result<()> {
        let stride = element_count(&extents[1..]).unwrap_or(u64::MAX);
        let end = start.saturating_add(element_count(extents).unwrap_or(u64::MAX));
        let mut cursor = start;
        for item in items {
            let at = item.span.start;
            match item.node.designation.as_slice() {
                [] => {}
                // `[k] = value` continues the list at sub-array `k` (as Baton's C emitter
                // writes global arrays).
                [d] => match &d.node {
                    lang_c::ast::Designator::Index(k) => {
                        let k = self.const_eval(k)?;
                        if k < 0 || k as u64 >= extents[0] {
                            return Err(self.malformed(at, "array designator outside the array"));
                        }
                        cursor = start + k as u64 * stride;
                    }
                    _ => return Err(self.unsupported(at, "designated initializer of this kind")),
                },
                _ => return Err(self.unsupported(at, "nested designator")),
            }
            match &item.node.initializer.node {
                Initializer::Expression(e) => {
                    out.push((cursor, e));
                    cursor += 1;
                }
                Initializer::List(sub) if extents.len() > 1 => {
                    // A braced sub-array starts at the next sub-array boundary.
                    let offset = (cursor - start).div_ceil(stride) * stride;
                    self.flatten(sub, &extents[1..], start + offset, out)?;
                    cursor = start + offset + stride;
                }
                Initializer::List(sub) => match sub.as_slice() {
                    [one] if one.node.designation.is_empty() => match &one.node.initializer.node {
                        Initializer::Expression(e) => {
                            out.push((cursor, e));
                            cursor += 1;
                        }
                        Initializer::List(_) => return Err(self.malformed(at, "too many braces")),
                    },
                    _ => return Err(self.malformed(at, "too many braces around a scalar initializer")),
                },
            }
            if cursor > end {
                return Err(self.malformed(at, "excess elements in array initializer"));
            }
        }
        Ok(())
    }

    /// The array element `e` designates (`a[i][j]` with one index per dimension), with its
    /// indices lowered in order; `None` if `e` is not a subscript.
    pub(super) fn element(&mut self, e: &Node<Expression>) -> Result<Option<(Place, CType)>> {
        if let Some(place) = self.record_element(e)? {
            return Ok(Some(place));
        }
        let mut subscripts = Vec::new();
        let mut base = e;
        while let Expression::BinaryOperator(b) = &base.node {
            if b.node.operator.node != BinaryOperator::Index {
                break;
            }
            subscripts.push(&*b.node.rhs);
            base = &b.node.lhs;
        }
        if subscripts.is_empty() {
            return Ok(None);
        }
        subscripts.reverse();
        let at = e.span.start;
        let (array, t) = match &base.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name).cloned() {
                Some(Sym::Var(_, CType::Ptr(_))) | Some(Sym::Boxed(..)) => return self.pointed_place(e),
                Some(Sym::Var(v, t)) => (v, t),
                Some(Sym::Unmodelled(what)) => return Err(self.unsupported(at, what)),
                _ => return Err(self.unsupported(at, "subscript of something other than an array")),
            },
            _ => return self.pointed_place(e),
        };
        self.check_extern(array, at)?;
        let Some((dims, elem)) = t.array_dims() else {
            return Err(self.malformed(at, "subscripted value is not an array"));
        };
        if subscripts.len() < dims.len() {
            return self.sub_array(array, t, &subscripts, at).map(Some);
        }
        if subscripts.len() > dims.len() {
            // An element of an array of pointers subscripted (`pa[i][j]`): what it points to.
            if matches!(elem, CType::Ptr(_)) {
                return self.pointed_place(e);
            }
            return Err(self.malformed(at, "subscripted value is not an array"));
        }
        let elem = elem.clone();
        let mut index = Vec::with_capacity(subscripts.len());
        for s in subscripts {
            let v = self.rvalue(s)?;
            if v.pointee.is_some() {
                return Err(self.malformed(s.span.start, "array subscript is a pointer"));
            }
            index.push(v.e);
        }
        self.pos = at;
        Ok(Some((Place::Element { array, index }, elem)))
    }

    /// The sub-array `array[i]...` (fewer subscripts than dimensions) of an array of scalars,
    /// as memory at its address.
    fn sub_array(
        &mut self,
        array: VarId,
        t: CType,
        subscripts: &[&Node<Expression>],
        at: usize,
    ) -> Result<(Place, CType)> {
        let mut address = self.address_of_var(array, at)?;
        let mut t = t;
        for s in subscripts {
            let CType::Array(inner, _) = t else {
                return Err(self.malformed(at, "subscripted value is not an array"));
            };
            let i = self.rvalue(s)?;
            if i.pointee.is_some() {
                return Err(self.malformed(s.span.start, "array subscript is a pointer"));
            }
            address = self.offset_by(address, i.e, &inner, at)?;
            t = *inner;
        }
        Ok((Place::Deref { address }, t))
    }

    /// The value of an object at a place: an array decays to its address, anything else is
    /// read.
    pub(super) fn place_value(&mut self, place: Place, t: CType, at: usize) -> Result<Val> {
        if let (Place::Deref { address }, CType::Array(elem, _)) = (&place, &t) {
            return Ok(Val {
                e: address.clone(),
                pointee: Some(self.complete((**elem).clone())),
            });
        }
        let ty = self.value_type(&t, at)?;
        Ok(Val {
            e: self.read_place(&place, ty)?,
            pointee: t.pointee(),
        })
    }

    /// The current value of a place (a `Load` into a temporary for an element).
    pub(super) fn read_place(&mut self, place: &Place, ty: IntType) -> Result<Expr> {
        match place {
            Place::Var(v) => Ok(Expr::var(*v, ty)),
            Place::Member { var, storage } => Ok(super::union::member_bytes(Expr::var(*var, *storage), ty)),
            Place::Element { array, index } => {
                let tmp = self.temp(ty)?;
                self.emit(Operation::Load {
                    lhs: tmp,
                    array: *array,
                    index: index.clone(),
                })?;
                Ok(Expr::var(tmp, ty))
            }
            Place::Deref { address } => {
                let tmp = self.temp(ty)?;
                self.emit(Operation::LoadPtr {
                    lhs: tmp,
                    address: address.clone(),
                })?;
                Ok(Expr::var(tmp, ty))
            }
        }
    }

    /// Writes `value` (already of the place's type) to a place.
    pub(super) fn write_place(&mut self, place: &Place, value: Expr) -> Result<()> {
        match place {
            Place::Var(v) => self.emit(Operation::Assign { lhs: *v, rhs: value }),
            Place::Member { var, storage } => {
                let rhs = super::union::with_member_bytes(Expr::var(*var, *storage), value);
                self.emit(Operation::Assign { lhs: *var, rhs })
            }
            Place::Element { array, index } => self.emit(Operation::Store {
                array: *array,
                index: index.clone(),
                rhs: value,
            }),
            Place::Deref { address } => self.emit(Operation::StorePtr {
                address: address.clone(),
                rhs: value,
            }),
        }
    }

    /// Writes `value` to a place and gives the value the assignment expression has: the
    /// variable itself, or for an element a temporary holding the stored value (when `used`).
    pub(super) fn assign_place(
        &mut self,
        place: &Place,
        value: Expr,
        ty: IntType,
        used: bool,
    ) -> Result<Expr> {
        match place {
            Place::Var(v) => {
                self.write_place(place, value)?;
                Ok(Expr::var(*v, ty))
            }
            Place::Member { var, storage } => {
                self.write_place(place, value)?;
                Ok(super::union::member_bytes(Expr::var(*var, *storage), ty))
            }
            Place::Element { .. } | Place::Deref { .. } if used => {
                let tmp = self.temp(ty)?;
                self.emit(Operation::Assign { lhs: tmp, rhs: value })?;
                self.write_place(place, Expr::var(tmp, ty))?;
                Ok(Expr::var(tmp, ty))
            }
            Place::Element { .. } | Place::Deref { .. } => {
                self.write_place(place, value.clone())?;
                Ok(value)
            }
        }
    }
}

/// The number of elements an initializer list of the outermost dimension gives, where each
/// element of that dimension has `stride` scalars.
fn list_length(items: &[Node<InitializerListItem>], stride: u64) -> u64 {
    let mut scalars = 0u64;
    for item in items {
        match item.node.initializer.node {
            Initializer::List(_) if stride > 1 => scalars = scalars.div_ceil(stride) * stride + stride,
            _ => scalars += 1,
        }
    }
    scalars.div_ceil(stride.max(1))
}

/// An array type whose unspecified outermost length (`int a[] = {...}`) is the one the
/// initializer gave its shape.
pub(super) fn with_outer_length(t: CType, shape: &ArrayShape) -> CType {
    match (t, shape.dims.first()) {
        (CType::Array(elem, ArrayLen::Unspecified), Some(Extent::Fixed(n))) => {
            CType::Array(elem, ArrayLen::Fixed(*n))
        }
        (t, _) => t,
    }
}

/// The per-dimension indices of a flat row-major position.
pub(super) fn unflatten(mut flat: u64, extents: &[u64]) -> Vec<u64> {
    let mut index = vec![0; extents.len()];
    for (k, &e) in extents.iter().enumerate().rev() {
        index[k] = flat % e;
        flat /= e;
    }
    index
}

/// A type's name for an error message.
fn describe(t: &CType) -> String {
    match t {
        CType::Unsupported(s) => s.clone(),
        CType::Void => "void".into(),
        _ => "this type".into(),
    }
}
