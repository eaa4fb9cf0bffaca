//! Predicate analysis with lazy abstraction and CEGAR (seed 000, seed 002 §2): the formula
//! layer over Z3 (the system `libz3` through the `z3` crate).
//!
//! - [`formula`]: bit-precise SSA path formulas of CFA steps, nondet values from models.
//! - [`abstraction`]: predicates, precisions, Cartesian and Boolean abstraction, coverage.
//! - [`refinement`]: feasibility of abstract counterexamples, predicates from weakest
//!   preconditions, pivot and no-progress detection.

pub mod abstraction;
pub mod formula;
pub mod refinement;
