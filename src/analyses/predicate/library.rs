//! The C library functions ([`crate::cfa::library`]) in bit-precise path formulas.
//!
//! Where every pointer argument is a constant address (an array's decay, `&x`, plus constant
//! offsets) into an address-taken variable of at most [`MAX_ELEMENTS`] elements, and the
//! function's bytes fall on whole elements, it is encoded exactly over the variables' terms:
//! `memset`, `memcpy` and `memmove` element by element (for any length: elements wholly inside
//! the range get their new value, an element partly inside any value), and over arrays of
//! `char` `strlen`, `strcmp`, `strcpy`, and `strncmp` and `memcmp` with a constant length, by
//! cases over their elements. A comparison's result is any value of the right sign (C fixes
//! only the sign). A range or string reaching past its object and a copy between overlapping
//! ranges are undefined (excluded from the path). Anything else is not encoded here: the
//! caller gives the result and what the function may write arbitrary values.

use super::formula::{array_term, bv_const, fresh_name, var_term, ExprEncoder};
use super::step::Typed;
use crate::cfa::address::variable_size;
use crate::cfa::expr::Expr;
use crate::cfa::library::{LibFunction, LibType};
use crate::cfa::types::IntType;
use crate::cfa::{Program, VarId};
use z3::ast::{Array, Ast, Bool, BV};

/// The most elements a variable may have to be encoded element by element.
pub const MAX_ELEMENTS: u64 = 256;

/// A constant address into an address-taken variable.
#[derive(Clone, Copy)]
struct At {
    var: VarId,
    ty: IntType,
    /// Byte offset into the variable.
    offset: u64,
    /// Bytes per element, and elements.
    width: u64,
    count: u64,
    array: bool,
}

impl At {
    /// The first element (the offset falls on one).
    fn first(&self) -> u64 {
        self.offset / self.width
    }

    /// Bytes from the address to the variable's end.
    fn room(&self) -> u64 {
        self.count * self.width - self.offset
    }
}

/// Reads and writes elements of variables in one step.
pub struct Elements<'a> {
    /// Reads are at these indices (before the step).
    pub before: &'a super::formula::SsaMap,
    /// Writes: the variable's new value (its array term, or its scalar term) equations.
    pub writes: Vec<(Typed, Vec<(u64, BV)>)>,
}

impl Elements<'_> {
    fn read(&self, at: &At, i: u64) -> Option<BV> {
        let index = self.before.get(at.var);
        if at.array {
            array_term(at.var, at.ty, index)
                .select(&bv_const(i128::from(i), 64))
                .as_bv()
        } else {
            Some(var_term(at.var, at.ty, index))
        }
    }
}

/// The encoded step of a library function: its conjuncts, the variables it writes (element
/// values per variable) and the result's value.
pub struct Encoded {
    pub conjuncts: Vec<Bool>,
    pub writes: Vec<(Typed, Vec<(u64, BV)>)>,
    pub result: Option<BV>,
}

/// The address `e` (a pointer value) points to, if it is a constant into an address-taken
/// variable small enough to encode.
fn constant_address(program: &Program, enc: &mut ExprEncoder, e: &Expr) -> Option<At> {
    let address = enc.value(e).simplify().as_u64()?;
    program.address_taken().find_map(|var| {
        let v = program.variable(var);
        let start = v.address?;
        let size = variable_size(program, var)?;
        let width = u64::from(v.ty.size_bytes());
        let offset = address.checked_sub(start).filter(|&o| o <= size)?;
        let count = size / width;
        (count <= MAX_ELEMENTS && !v.ty.is_bool() && offset % width == 0).then_some(At {
            var,
            ty: v.ty,
            offset,
            width,
            count,
            array: v.array.is_some(),
        })
    })
}

/// `function` on `args` exactly, if this module encodes it (see the module documentation);
/// undefined behaviour goes to `enc.undefined`.
pub fn encode(
    program: &Program,
    enc: &mut ExprEncoder,
    before: &super::formula::SsaMap,
    function: LibFunction,
    args: &[Expr],
) -> Option<Encoded> {
    let params = function.params();
    let mut at = Vec::new();
    let mut values = Vec::new();
    for (a, p) in args.iter().zip(params) {
        match p {
            LibType::Pointer => at.push(constant_address(program, enc, a)?),
            _ => values.push(enc.value(a)),
        }
    }
    let size_bits = u32::from(program.data_model.ulong().bits);
    let mut els = Elements {
        before,
        writes: Vec::new(),
    };
    let mut conjuncts = Vec::new();
    let pointer = |a: &At| {
        let start = program.variable(a.var).address.unwrap_or(0);
        bv_const(
            i128::from(start + a.offset),
            u32::from(program.data_model.pointer_bits()),
        )
    };
    let result = match (function, at.as_slice(), values.as_slice()) {
        (LibFunction::Memset, [d], [c, n]) => {
            // The byte, repeated over an element.
            let byte = c.extract(7, 0);
            let mut pattern = byte.clone();
            for _ in 1..d.width {
                pattern = pattern.concat(&byte);
            }
            enc.undefined
                .push(n.bvugt(bv_const(i128::from(d.room()), size_bits)));
            let new = ranged(&els, d, n, size_bits, |_| Some(pattern.clone()))?;
            els.writes.push((typed(d), new));
            Some(pointer(d))
        }
        (LibFunction::Memcpy | LibFunction::Memmove, [d, s], [n]) => {
            if d.width != s.width {
                return None;
            }
            let room = d.room().min(s.room());
            enc.undefined.push(n.bvugt(bv_const(i128::from(room), size_bits)));
            if function == LibFunction::Memcpy && d.var == s.var {
                // Overlapping ranges.
                let apart = d.offset.abs_diff(s.offset);
                enc.undefined
                    .push(n.bvugt(bv_const(i128::from(apart), size_bits)));
            }
            let new = ranged(&els, d, n, size_bits, |k| {
                let j = s.first() + k;
                (j < s.count).then(|| els.read(s, j)).flatten()
            })?;
            els.writes.push((typed(d), new));
            Some(pointer(d))
        }
        (LibFunction::Strlen, [s], []) if s.width == 1 => {
            let (len, ub) = string_length(&els, s, size_bits)?;
            enc.undefined.push(ub);
            Some(len)
        }
        (LibFunction::Strcmp | LibFunction::Strncmp | LibFunction::Memcmp, [a, b], limit)
            if a.width == 1 && b.width == 1 =>
        {
            let limit = match limit {
                [] => None,
                [n] => Some(n.simplify().as_u64()?),
                _ => return None,
            };
            let (sign, ub) = comparison(&els, a, b, limit, function != LibFunction::Memcmp)?;
            enc.undefined.push(ub);
            let r = BV::new_const(fresh_name("cmp"), 32);
            let zero = bv_const(0, 32);
            conjuncts.push(sign.eq(&zero).ite(
                &r.eq(&zero),
                &sign.bvslt(&zero).ite(&r.bvslt(&zero), &r.bvsgt(&zero)),
            ));
            Some(r)
        }
        (LibFunction::Strcpy, [d, s], []) if d.width == 1 && s.width == 1 && d.var != s.var => {
            let (len, ub) = string_length(&els, s, size_bits)?;
            enc.undefined.push(ub);
            // Room for the string and its NUL.
            enc.undefined
                .push(len.bvuge(bv_const(i128::from(d.room()), size_bits)));
            let mut new = Vec::new();
            for k in 0..d.count - d.first() {
                let copied = len.bvuge(bv_const(i128::from(k), size_bits));
                let source = match s.first() + k {
                    j if j < s.count => els.read(s, j)?,
                    _ => BV::new_const(fresh_name("beyond"), u32::from(d.ty.bits)),
                };
                new.push((d.first() + k, copied.ite(&source, &els.read(d, d.first() + k)?)));
            }
            els.writes.push((typed(d), new));
            Some(pointer(d))
        }
        _ => return None,
    };
    Some(Encoded {
        conjuncts,
        writes: els.writes,
        result,
    })
}

fn typed(a: &At) -> Typed {
    Typed { var: a.var, ty: a.ty }
}

/// The new elements of `d` from its address on when the `n` bytes there get element `k`'s
/// value `value(k)`: elements wholly inside the range get it, an element partly inside any
/// value, the others keep theirs.
fn ranged(
    els: &Elements,
    d: &At,
    n: &BV,
    size_bits: u32,
    value: impl Fn(u64) -> Option<BV>,
) -> Option<Vec<(u64, BV)>> {
    let mut new = Vec::new();
    for k in 0..d.count - d.first() {
        let (start, end) = (k * d.width, (k + 1) * d.width);
        let whole = n.bvuge(bv_const(i128::from(end), size_bits));
        let part = Bool::and(&[
            n.bvugt(bv_const(i128::from(start), size_bits)),
            n.bvult(bv_const(i128::from(end), size_bits)),
        ]);
        let old = els.read(d, d.first() + k)?;
        let any = BV::new_const(fresh_name("part"), u32::from(d.ty.bits));
        let inside = match value(k) {
            Some(v) => v,
            // Only past the source's end: undefined, any value keeps the term whole.
            None => BV::new_const(fresh_name("beyond"), u32::from(d.ty.bits)),
        };
        new.push((d.first() + k, whole.ite(&inside, &part.ite(&any, &old))));
    }
    Some(new)
}

/// The length of the string at `s` (its first NUL's position) and when it is undefined (no
/// NUL before the variable's end).
fn string_length(els: &Elements, s: &At, size_bits: u32) -> Option<(BV, Bool)> {
    let chars: Vec<BV> = (s.first()..s.count)
        .map(|i| els.read(s, i))
        .collect::<Option<_>>()?;
    let zero = bv_const(0, 8);
    let mut len = bv_const(0, size_bits);
    let mut ub = Bool::from_bool(true);
    for (k, c) in chars.iter().enumerate().rev() {
        let end = c.eq(&zero);
        len = end.ite(&bv_const(k as i128, size_bits), &len);
        ub = Bool::and(&[end.not(), ub]);
    }
    Some((len, ub))
}

/// The sign (-1, 0, 1 as 32 bits) of comparing the bytes at `a` and `b` as `unsigned char`s,
/// up to `limit` bytes (all of them: `None`), stopping after a NUL for the string functions;
/// and when it is undefined (reading past an object's end).
fn comparison(els: &Elements, a: &At, b: &At, limit: Option<u64>, strings: bool) -> Option<(BV, Bool)> {
    let room = (a.count - a.first()).min(b.count - b.first());
    let steps = limit.map_or(room, |n| n.min(room));
    let reads_past = limit.is_none_or(|n| n > room);
    let (minus, zero, plus) = (bv_const(-1, 32), bv_const(0, 32), bv_const(1, 32));
    let mut sign = zero.clone();
    // Past the last step: undefined if a read would leave an object.
    let mut ub = Bool::from_bool(reads_past);
    for k in (0..steps).rev() {
        let x = els.read(a, a.first() + k)?;
        let y = els.read(b, b.first() + k)?;
        let differ = x.eq(&y).not();
        let stop = if strings {
            x.eq(bv_const(0, 8))
        } else {
            Bool::from_bool(false)
        };
        let here = x.bvult(&y).ite(&minus, &plus);
        sign = differ.ite(&here, &stop.ite(&zero, &sign));
        ub = Bool::and(&[differ.not(), stop.not(), ub]);
    }
    Some((sign, ub))
}

/// The equations of the writes: each variable's new term (at a new index of `bump`) from its
/// old one with the new elements.
pub fn write_equations(
    writes: &[(Typed, Vec<(u64, BV)>)],
    before: &super::formula::SsaMap,
    program: &Program,
    mut bump: impl FnMut(VarId) -> u32,
) -> Vec<Bool> {
    let mut out = Vec::new();
    for (t, elements) in writes {
        let old = before.get(t.var);
        let new = bump(t.var);
        if program.variable(t.var).array.is_some() {
            let mut term: Array = array_term(t.var, t.ty, old);
            for (i, v) in elements {
                term = term.store(&bv_const(i128::from(*i), 64), v);
            }
            out.push(array_term(t.var, t.ty, new).eq(&term));
        } else if let Some((_, v)) = elements.first() {
            out.push(var_term(t.var, t.ty, new).eq(v));
        }
    }
    out
}
