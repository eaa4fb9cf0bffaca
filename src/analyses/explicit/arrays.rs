//! The known elements of arrays in an explicit-value state.
//!
//! Only arrays of constant size up to [`MAX_TRACKED_ELEMENTS`] elements are tracked (a state
//! copies an array's elements when one changes); an array that is not tracked, or an element
//! that is not known, reads as unknown. A write through an unknown index forgets the whole
//! array: it may have changed any element.

use crate::cfa::memory::flat_index;
use crate::cfa::{Program, VarId};
use std::collections::BTreeMap;
use std::rc::Rc;

/// The most elements an array may have for its elements to be tracked.
pub const MAX_TRACKED_ELEMENTS: u64 = 64;

/// Known array elements, per array (absent: nothing known), shared between clones.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct KnownArrays(Rc<BTreeMap<VarId, Rc<[Option<i128>]>>>);

impl KnownArrays {
    /// True if no element of any array is known.
    pub fn knows_nothing(&self) -> bool {
        self.0
            .values()
            .all(|elements| elements.iter().all(Option::is_none))
    }

    /// The extents of `array` if its elements are tracked.
    pub fn tracked_extents(program: &Program, array: VarId) -> Option<Vec<u64>> {
        let extents = program.variable(array).array.as_ref()?.fixed_extents()?;
        let count = crate::cfa::memory::element_count(&extents)?;
        (count <= MAX_TRACKED_ELEMENTS).then_some(extents)
    }

    /// The value of element `flat` of `array`, if known.
    pub fn get(&self, array: VarId, flat: u64) -> Option<i128> {
        *self.0.get(&array)?.get(flat as usize)?
    }

    /// Sets every element of a tracked `array` (with `count` elements).
    pub fn fill(&mut self, array: VarId, count: u64, value: Option<i128>) {
        match value {
            None => self.forget(array),
            Some(_) => {
                Rc::make_mut(&mut self.0).insert(array, vec![value; count as usize].into());
            }
        }
    }

    /// Sets element `flat` of a tracked `array` with `count` elements.
    pub fn set(&mut self, array: VarId, count: u64, flat: u64, value: Option<i128>) {
        let mut elements: Vec<Option<i128>> = match self.0.get(&array) {
            Some(e) if e.get(flat as usize).copied().flatten() == value => return,
            Some(e) => e.to_vec(),
            None if value.is_none() => return,
            None => vec![None; count as usize],
        };
        if let Some(slot) = elements.get_mut(flat as usize) {
            *slot = value;
        }
        if elements.iter().all(Option::is_none) {
            self.forget(array);
        } else {
            Rc::make_mut(&mut self.0).insert(array, elements.into());
        }
    }

    /// Forgets everything about `array`.
    pub fn forget(&mut self, array: VarId) {
        if self.0.contains_key(&array) {
            Rc::make_mut(&mut self.0).remove(&array);
        }
    }

    /// Moves the arrays `moved` selects out of `self` into the result.
    pub fn split_off(&mut self, moved: impl Fn(VarId) -> bool) -> KnownArrays {
        if !self.0.keys().any(|&v| moved(v)) {
            return KnownArrays::default();
        }
        let (out, kept): (BTreeMap<_, _>, BTreeMap<_, _>) = self
            .0
            .iter()
            .map(|(v, e)| (*v, e.clone()))
            .partition(|(v, _)| moved(*v));
        self.0 = Rc::new(kept);
        KnownArrays(Rc::new(out))
    }

    /// Adds every array of `other` (replacing what `self` knows of the same arrays).
    pub fn extend_from(&mut self, other: &KnownArrays) {
        if !other.0.is_empty() {
            let mine = Rc::make_mut(&mut self.0);
            mine.extend(other.0.iter().map(|(v, e)| (*v, e.clone())));
        }
    }

    /// `self ⊑ other`: every element `other` knows, `self` knows with the same value.
    pub fn less_or_equal(&self, other: &KnownArrays) -> bool {
        other.0.iter().all(|(array, theirs)| match self.0.get(array) {
            Some(mine) => theirs.iter().zip(mine.iter()).all(|(t, m)| t.is_none() || t == m),
            None => theirs.iter().all(Option::is_none),
        })
    }
}

/// The flat position of an element of a tracked array whose indices are all known; `Err` if
/// they put it out of bounds.
pub fn tracked_position(extents: &[u64], index: &[Option<i128>]) -> Result<Option<u64>, ()> {
    let Some(index) = index.iter().copied().collect::<Option<Vec<i128>>>() else {
        return Ok(None);
    };
    flat_index(extents, &index).map(Some).map_err(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_are_set_forgotten_and_ordered() {
        let a = VarId(1);
        let mut s = KnownArrays::default();
        s.fill(a, 3, Some(0));
        assert_eq!(s.get(a, 2), Some(0));
        let before = s.clone();
        s.set(a, 3, 1, Some(7));
        assert_eq!((s.get(a, 1), before.get(a, 1)), (Some(7), Some(0)));
        s.set(a, 3, 0, None);
        assert_eq!(s.get(a, 0), None);
        // Knowing more is below knowing less.
        let mut less = KnownArrays::default();
        less.set(a, 3, 1, Some(7));
        assert!(s.less_or_equal(&less));
        assert!(!less.less_or_equal(&s));
        assert!(!before.less_or_equal(&less));
        s.forget(a);
        assert!(s.less_or_equal(&KnownArrays::default()));
        assert_eq!(tracked_position(&[2, 3], &[Some(1), Some(2)]), Ok(Some(5)));
        assert_eq!(tracked_position(&[2, 3], &[Some(1), None]), Ok(None));
        assert_eq!(tracked_position(&[2, 3], &[Some(2), Some(0)]), Err(()));
    }
}
