//! String literals as values (`char *s = "ab"`, `strlen("ab")`, `printf("%d\n", x)`): each
//! literal in the source is an array of `char` with static storage holding its bytes and a
//! final NUL (C11 6.4.5), whose address the literal's value is. The array is read-only:
//! writing it is undefined behaviour ([`crate::cfa::Variable::read_only`]).

use super::*;
use crate::cfa::memory::{ArrayShape, Extent};

impl Lowerer<'_> {
    /// The bytes of a string literal with its final NUL.
    fn literal_bytes(&self, parts: &[String], at: usize) -> Result<Vec<i128>> {
        string_literal(parts).ok_or_else(|| self.unsupported(at, "wide or malformed string literal"))
    }

    /// The array type of a string literal (`sizeof "ab"` is 3).
    pub(super) fn string_type(&self, parts: &[String], at: usize) -> Result<CType> {
        let len = self.literal_bytes(parts, at)?.len() as u64;
        Ok(CType::Array(
            Box::new(CType::Int(IntType::CHAR)),
            ArrayLen::Fixed(len),
        ))
    }

    /// The value of the string literal at source offset `at`: the address of its array (made
    /// on first use), pointing to `char`.
    pub(super) fn string_value(&mut self, parts: &[String], at: usize) -> Result<Val> {
        let var = match self.strings.get(&at) {
            Some(&v) => v,
            None => {
                let bytes = self.literal_bytes(parts, at)?;
                let name = format!("__baton_string{}", self.strings.len() + 1);
                let initial = bytes
                    .iter()
                    .enumerate()
                    .filter(|(_, &b)| b != 0)
                    .map(|(i, &b)| (i as u64, IntType::CHAR.normalize(b)))
                    .collect();
                let v = self.new_var(Variable {
                    name: name.clone(),
                    source_name: name,
                    ty: IntType::CHAR,
                    scope: Scope::Global,
                    array: Some(ArrayShape {
                        dims: vec![Extent::Fixed(bytes.len() as u64)],
                        initial,
                    }),
                    initial: 0,
                    address: None,
                    temporary: true,
                    read_only: true,
                });
                self.strings.insert(at, v);
                v
            }
        };
        Ok(Val {
            e: self.address_of_var(var, at)?,
            pointee: Some(CType::Int(IntType::CHAR)),
        })
    }
}
