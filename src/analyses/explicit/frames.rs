//! The saved frames of an explicit-value state: what the locals of a recursive function held in
//! the activations below the running one.
//!
//! Locals are program-wide variables, so a call of a recursive function would overwrite the
//! caller's (or an outer activation's) values. The transfer of such a call moves the callee's
//! known locals out of the state into a new frame on top of this stack (the callee starts with
//! unknown locals); the return from that call puts them back. The stack is a persistent list
//! shared between states; states with different saved frames are different states.

use super::{KnownArrays, KnownValues};
use std::rc::Rc;

/// The saved locals of the suspended activations of recursive functions, innermost first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct SavedFrames(Option<Rc<SavedFrame>>);

#[derive(Debug, PartialEq, Eq, Hash)]
struct SavedFrame {
    values: KnownValues,
    arrays: KnownArrays,
    below: SavedFrames,
}

impl SavedFrames {
    /// The stack with one more frame on top.
    pub fn push(&self, values: KnownValues, arrays: KnownArrays) -> SavedFrames {
        SavedFrames(Some(Rc::new(SavedFrame {
            values,
            arrays,
            below: self.clone(),
        })))
    }

    /// The top frame's values and arrays and the stack below it; `None` when empty.
    pub fn pop(&self) -> Option<(&KnownValues, &KnownArrays, SavedFrames)> {
        self.0.as_ref().map(|f| (&f.values, &f.arrays, f.below.clone()))
    }

    /// True if no frame is saved.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// Equal stacks (fast when they share their frames).
    pub fn same_as(&self, other: &SavedFrames) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Rc::ptr_eq(a, b) || a == b,
            (None, None) => true,
            _ => false,
        }
    }
}
