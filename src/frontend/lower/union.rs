//! Unions of scalars, as programs use them for type punning (`union { double d; long long i;
//! }`, `union { double d; int i; }`).
//!
//! All members of such a union start at its first byte, so a union object is one CFA variable
//! whose type is its widest member's ("storage") type; the value is its bytes (integers
//! normalised, floats as bit patterns, see [`crate::cfa::types`]). Reading member `m` is a
//! [`Bitcast`](crate::cfa::expr::ExprKind::Bitcast) of the variable's bytes to `m`'s type —
//! of its low bytes if `m` is narrower (x86 is little-endian in both data models) — and
//! writing it replaces those bytes. A union with a `_Bool`, pointer, array or aggregate member
//! lives in memory instead ([`super::memory_union`]); bit-fields and a `long double` beside
//! members of other types are `unsupported` where the union type is used. A member of
//! a compound literal, `((union U){ .m = e }).n`, reads `e`'s bytes as `n` (the form Baton's
//! C emitter writes for a bitcast).

use super::array::Place;
use super::decls::MemberDecl;
use super::memory_union::memory_union_of;
use super::*;
use crate::frontend::types::UnionType;
use lang_c::ast::{CompoundLiteral, Designator};

impl Lowerer<'_> {
    /// The value of `((union U){ .m = e }).n`: `e` converted to `m`'s type, its bytes read as
    /// `n` (bytes beyond `m` are zero).
    pub(super) fn literal_member(
        &mut self,
        literal: &Node<CompoundLiteral>,
        member: &str,
        at: usize,
    ) -> Result<Expr> {
        let CType::Union(u) = self.type_name(&literal.node.type_name)? else {
            return Err(self.unsupported(at, "member of a compound literal that is not a union"));
        };
        let [item] = literal.node.initializer_list.as_slice() else {
            return Err(self.unsupported(at, "union compound literal without exactly one initializer"));
        };
        let written = match item.node.designation.as_slice() {
            [] => Some(&u.members[0]),
            [d] => match &d.node {
                Designator::Member(name) => u.members.iter().find(|(n, _)| *n == name.node.name),
                _ => None,
            },
            _ => None,
        };
        let Some(&(_, written_ty)) = written else {
            return Err(self.malformed(at, "designator of a union compound literal"));
        };
        let Initializer::Expression(e) = &item.node.initializer.node else {
            return Err(self.unsupported(at, "nested initializer list in a union compound literal"));
        };
        let value = self.rvalue(e)?.e.cast(written_ty);
        let Some(&(_, read_ty)) = u.members.iter().find(|(n, _)| n == member) else {
            return Err(self.malformed(at, format!("no member `{member}` in the union")));
        };
        let bytes = with_member_bytes(Expr::number(0, u.storage()), value);
        Ok(member_bytes(bytes, read_ty))
    }

    /// The place `u.m` designates and the member's type.
    pub(super) fn member_place(&mut self, m: &Node<lang_c::ast::MemberExpression>) -> Result<(Place, CType)> {
        let at = m.span.start;
        if let Some(place) = self.record_member(m)? {
            return Ok(place);
        }
        let whole = Node {
            node: Expression::Member(Box::new(m.clone())),
            span: m.span,
        };
        if let Some(place) = self.pointed_place(&whole)? {
            return Ok(place);
        }
        let Expression::Identifier(id) = &m.node.expression.node else {
            return Err(self.unsupported(at, "member access of an expression other than a variable"));
        };
        let (var, t) = match self.lookup(&id.node.name) {
            Some(Sym::Var(v, t)) => (*v, t.clone()),
            Some(Sym::Unmodelled(what)) => return Err(self.unsupported(at, what.clone())),
            _ => return Err(self.malformed(at, format!("`{}` is not a union variable", id.node.name))),
        };
        self.check_extern(var, at)?;
        let u = match t {
            CType::Union(u) => u,
            CType::Unsupported(what) => return Err(self.unsupported(at, what)),
            _ => return Err(self.unsupported(at, "struct/union member access")),
        };
        let name = &m.node.identifier.node.name;
        match u.members.iter().find(|(n, _)| n == name) {
            Some(&(_, ty)) => Ok((
                Place::Member {
                    var,
                    storage: u.storage(),
                },
                CType::Int(ty),
            )),
            None => Err(self.malformed(at, format!("no member `{name}` in the union"))),
        }
    }
}

/// The first `member.size_bytes()` bytes of a union's `storage` value, read as `member`
/// (little-endian: the low bytes).
pub(super) fn member_bytes(storage: Expr, member: IntType) -> Expr {
    if member.bits == storage.ty.bits {
        return storage.bitcast(member);
    }
    let bits = storage.ty.bits_type();
    storage.bitcast(bits).cast(member.bits_type()).bitcast(member)
}

/// The union's `storage` value with its first bytes replaced by those of `value`.
pub(super) fn with_member_bytes(storage: Expr, value: Expr) -> Expr {
    let ty = storage.ty;
    if value.ty.bits == ty.bits {
        return value.bitcast(ty);
    }
    let bits = ty.bits_type();
    let low_mask = (1i128 << value.ty.bits) - 1;
    let kept = Expr::binary(
        BinaryOp::BitAnd,
        storage.bitcast(bits),
        Expr::constant(!low_mask, bits),
        bits,
    );
    let value_bits = value.ty.bits_type();
    let low = value.bitcast(value_bits).cast(bits);
    Expr::binary(BinaryOp::BitOr, kept, low, bits).bitcast(ty)
}

/// The union type of these member declarations, or what makes it unmodelled: a union of
/// scalars if every member is an integer or floating-point scalar other than `_Bool`, else a
/// union in memory ([`super::memory_union`]).
pub(super) fn union_of(declared: Vec<MemberDecl>) -> CType {
    let mut members = Vec::new();
    for m in declared {
        if m.bit_field {
            return CType::Unsupported("bit-field in a union".into());
        }
        let Declared::Object(t) = m.declared else {
            return CType::Unsupported("union with a function member".into());
        };
        // An anonymous struct or union member is named "": its members are the union's
        // (the lowering's `member_offset` finds them), and the union lives in memory.
        let name = match (m.name, &t) {
            (Some(name), _) => name,
            (None, CType::Struct(_) | CType::Union(_) | CType::MemoryUnion(_)) => String::new(),
            (None, _) => return CType::Unsupported("anonymous member that is not a struct or union".into()),
        };
        members.push((name, t));
    }
    if members.is_empty() {
        return CType::Unsupported("union without members".into());
    }
    let scalars: Option<Vec<(String, IntType)>> = members
        .iter()
        .map(|(n, t)| match t {
            CType::Int(i) if !i.is_bool() && !n.is_empty() => Some((n.clone(), *i)),
            _ => None,
        })
        .collect();
    let Some(scalars) = scalars else {
        return memory_union_of(members);
    };
    // A narrower member's bytes are the low bits of an 80-bit integer, which C has no type for
    // (the C emitter could not write the bitcast).
    let long_double = scalars.iter().any(|(_, t)| t.is_long_double());
    if long_double && scalars.iter().any(|(_, t)| !t.is_long_double()) {
        return CType::Unsupported("union of a long double and a member of another type".into());
    }
    CType::Union(UnionType { members: scalars })
}
