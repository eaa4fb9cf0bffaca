//! Braced initialisers (C11 6.7.9): which scalar sub-object each item of a list sets.
//!
//! A braced list fills one sub-object of an aggregate, a bare value its first scalar (brace
//! elision); a designator (`.m`, `[k]`) moves to the sub-object it names; a union takes one
//! item, for its first member or the designated one. A scalar sub-object is named by its path
//! of sub-object positions from the initialised object; records of leaves ([`super::record`])
//! and objects in memory ([`super::memory_union`]) turn paths into their own addresses.

use super::*;
use lang_c::ast::{Designator, InitializerListItem};
use std::iter::Peekable;
use std::slice::Iter;

/// Items of an initializer list being consumed.
type Items<'i> = Peekable<Iter<'i, Node<InitializerListItem>>>;

/// A scalar an initializer sets: its path of sub-object positions, its type (an integer,
/// pointer or union of scalars) and the expression.
pub(super) struct Initial<'i> {
    pub path: Vec<u64>,
    pub ty: CType,
    pub e: &'i Node<Expression>,
}

/// Sub-object `k` of aggregate `t`.
pub(super) fn sub_object_type(t: &CType, k: u64) -> Option<&CType> {
    let k = usize::try_from(k).ok()?;
    match t {
        CType::Struct(s) => s.members.get(k).map(|(_, m)| m),
        CType::MemoryUnion(u) => u.members.get(k).map(|(_, m)| m),
        CType::Array(elem, _) => Some(elem),
        _ => None,
    }
}

impl Lowerer<'_> {
    /// The scalars a braced initializer of an object of aggregate type `t` sets, in order.
    pub(super) fn braced_initials<'i>(
        &mut self,
        t: &CType,
        items: &'i [Node<InitializerListItem>],
        at: usize,
    ) -> Result<Vec<Initial<'i>>> {
        let mut out = Vec::new();
        self.fill_braced(t, &mut Vec::new(), items, at, &mut out)?;
        Ok(out)
    }

    /// Fills the sub-objects of aggregate `t` (at `path`) from a braced list.
    fn fill_braced<'i>(
        &mut self,
        t: &CType,
        path: &mut Vec<u64>,
        items: &'i [Node<InitializerListItem>],
        at: usize,
        out: &mut Vec<Initial<'i>>,
    ) -> Result<()> {
        let mut it = items.iter().peekable();
        self.fill(t, path, &mut it, true, at, out)?;
        match it.next() {
            Some(extra) => Err(self.malformed(extra.span.start, "excess elements in initializer")),
            None => Ok(()),
        }
    }

    /// Consumes items for the sub-objects of aggregate `t` in order. Without braces of its own
    /// (`braced` false) it stops at a designator, which belongs to an enclosing list.
    fn fill<'i>(
        &mut self,
        t: &CType,
        path: &mut Vec<u64>,
        it: &mut Items<'i>,
        braced: bool,
        at: usize,
        out: &mut Vec<Initial<'i>>,
    ) -> Result<()> {
        let count = match t {
            CType::Struct(s) => s.members.len() as u64,
            CType::MemoryUnion(u) => u.members.len() as u64,
            CType::Array(_, ArrayLen::Fixed(n)) => *n,
            _ => return Err(self.malformed(at, "initializer list for a scalar")),
        };
        let union = matches!(t, CType::MemoryUnion(_));
        let mut k: u64 = 0;
        while let Some(&item) = it.peek() {
            let designated = !item.node.designation.is_empty();
            if designated {
                if !braced {
                    return Ok(());
                }
                k = self.designated(t, &item.node.designation, item.span.start)?;
            }
            if k >= count {
                if braced {
                    return Err(self.malformed(item.span.start, "excess elements in initializer"));
                }
                return Ok(());
            }
            let Some(sub) = sub_object_type(t, k).cloned() else {
                return Err(self.malformed(item.span.start, "initializer outside the object"));
            };
            let scalar = !matches!(sub, CType::Struct(_) | CType::MemoryUnion(_) | CType::Array(..));
            path.push(k);
            match (&item.node.initializer.node, scalar) {
                (Initializer::List(list), false) => {
                    it.next();
                    self.fill_braced(&sub, path, list, item.span.start, out)?;
                }
                (Initializer::List(list), true) => {
                    it.next();
                    match list.as_slice() {
                        [] => {}
                        [one] if one.node.designation.is_empty() => match &one.node.initializer.node {
                            Initializer::Expression(e) => out.push(Initial {
                                path: path.clone(),
                                ty: sub,
                                e,
                            }),
                            Initializer::List(_) => {
                                return Err(self.malformed(item.span.start, "too many braces"))
                            }
                        },
                        _ => {
                            return Err(self
                                .malformed(item.span.start, "too many braces around a scalar initializer"))
                        }
                    }
                }
                (Initializer::Expression(e), true) => {
                    it.next();
                    out.push(Initial {
                        path: path.clone(),
                        ty: sub,
                        e,
                    });
                }
                (Initializer::Expression(_), false) if designated => {
                    return Err(
                        self.unsupported(item.span.start, "designated initializer with elided braces")
                    );
                }
                (Initializer::Expression(_), false) => {
                    self.fill(&sub, path, it, false, item.span.start, out)?;
                }
            }
            path.pop();
            k = if union { count } else { k + 1 };
        }
        Ok(())
    }

    /// The position among `t`'s sub-objects a single designator (`.m` or `[k]`) names.
    fn designated(&mut self, t: &CType, designation: &[Node<Designator>], at: usize) -> Result<u64> {
        let [d] = designation else {
            return Err(self.unsupported(at, "nested designator"));
        };
        let member = |members: &[(String, CType)], name: &str, what: &str| {
            members
                .iter()
                .position(|(n, _)| n == name)
                .map(|p| p as u64)
                .ok_or_else(|| self.malformed(at, format!("no member `{name}` in the {what}")))
        };
        match (&d.node, t) {
            (Designator::Member(name), CType::Struct(s)) => member(&s.members, &name.node.name, "struct"),
            (Designator::Member(name), CType::MemoryUnion(u))
                if u.members.iter().any(|(n, _)| n.is_empty()) =>
            {
                Err(self.unsupported(at, "designated initializer of a union with an anonymous member"))
            }
            (Designator::Member(name), CType::MemoryUnion(u)) => member(&u.members, &name.node.name, "union"),
            (Designator::Index(e), CType::Array(_, ArrayLen::Fixed(n))) => match self.const_eval(e)? {
                i if i >= 0 && i < i128::from(*n) => Ok(i as u64),
                _ => Err(self.malformed(at, "array designator outside the array")),
            },
            _ => Err(self.unsupported(at, "designator of this kind")),
        }
    }
}
