//! The known values of an explicit-value state: a small map from variables to values, sorted
//! by variable and shared between states until one of them changes it (copy on write).
//!
//! Most transfers change one value or none, and the ARG keeps every state, so sharing keeps
//! the memory per state at one pointer when nothing changes and one compact copy (16–32 bytes
//! per known variable) when something does. A persistent tree (`im::OrdMap`) would allocate a
//! node with room for 64 entries on every change, about 2 KB per state even for two variables.

use crate::cfa::VarId;
use std::rc::Rc;

/// Variable values sorted by variable, shared between clones until one is changed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KnownValues(Rc<[(VarId, i128)]>);

impl Default for KnownValues {
    fn default() -> Self {
        KnownValues(Rc::from([]))
    }
}

/// The cover index looks states up by their values without building a `KnownValues`: both hash
/// as the slice of `(variable, value)` pairs.
impl std::borrow::Borrow<[(VarId, i128)]> for KnownValues {
    fn borrow(&self) -> &[(VarId, i128)] {
        &self.0
    }
}

impl KnownValues {
    fn position(&self, var: VarId) -> Result<usize, usize> {
        self.0.binary_search_by_key(&var, |&(v, _)| v)
    }

    /// The value of `var`, if known.
    pub fn get(&self, var: &VarId) -> Option<&i128> {
        self.position(*var).ok().map(|i| &self.0[i].1)
    }

    /// Sets the value of `var` (one new allocation of the exact size, none if unchanged).
    pub fn insert(&mut self, var: VarId, value: i128) {
        let pairs = &self.0;
        self.0 = match self.position(var) {
            Ok(i) if pairs[i].1 == value => return,
            Ok(_) => pairs
                .iter()
                .map(|&(v, x)| (v, if v == var { value } else { x }))
                .collect(),
            Err(i) => pairs[..i]
                .iter()
                .copied()
                .chain(std::iter::once((var, value)))
                .chain(pairs[i..].iter().copied())
                .collect(),
        };
    }

    /// Forgets the value of `var`.
    pub fn remove(&mut self, var: &VarId) {
        if let Ok(i) = self.position(*var) {
            self.0 = self.0[..i].iter().chain(&self.0[i + 1..]).copied().collect();
        }
    }

    /// Number of known variables.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True if no value is known.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The known variables, in order.
    pub fn keys(&self) -> impl Iterator<Item = &VarId> + '_ {
        self.0.iter().map(|(v, _)| v)
    }

    /// The known values, in the order of their variables.
    pub fn values(&self) -> impl Iterator<Item = &i128> + '_ {
        self.0.iter().map(|(_, x)| x)
    }

    /// Moves the values of the variables `moved` selects out of `self` into the result.
    pub fn split_off(&mut self, moved: impl Fn(VarId) -> bool) -> KnownValues {
        if !self.0.iter().any(|&(v, _)| moved(v)) {
            return KnownValues::default();
        }
        let (out, kept): (Vec<_>, Vec<_>) = self.0.iter().partition(|&&(v, _)| moved(v));
        self.0 = kept.into();
        KnownValues(out.into())
    }

    /// Adds every value of `other` (replacing values `self` has for the same variables).
    pub fn extend_from(&mut self, other: &KnownValues) {
        for &(v, x) in other.0.iter() {
            self.insert(v, x);
        }
    }

    /// `(variable, value)` pairs, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&VarId, &i128)> + '_ {
        self.0.iter().map(|(v, x)| (v, x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_values_sorted_and_shares_until_changed() {
        let mut a = KnownValues::default();
        a.insert(VarId(3), 30);
        a.insert(VarId(1), 10);
        a.insert(VarId(2), 20);
        assert_eq!(a.keys().map(|v| v.0).collect::<Vec<_>>(), [1, 2, 3]);
        let mut b = a.clone();
        assert!(Rc::ptr_eq(&a.0, &b.0));
        // Setting a value it already has does not copy.
        b.insert(VarId(2), 20);
        assert!(Rc::ptr_eq(&a.0, &b.0));
        b.insert(VarId(2), 21);
        b.remove(&VarId(1));
        b.remove(&VarId(9));
        assert_eq!(a.get(&VarId(2)), Some(&20));
        assert_eq!(b.get(&VarId(2)), Some(&21));
        assert_eq!(b.get(&VarId(1)), None);
        assert_eq!((a.len(), b.len()), (3, 2));
        assert_eq!(
            b.iter().map(|(v, x)| (v.0, *x)).collect::<Vec<_>>(),
            [(2, 21), (3, 30)]
        );
    }
}
