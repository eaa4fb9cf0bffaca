//! Baton's native analyses on the CPA engine.

pub mod explicit;
pub mod predicate;
