//! Predicate analysis with lazy abstraction and CEGAR (seed 000, seed 002 §2): the formula
//! layer over Z3 (the system `libz3` through the `z3` crate).
//!
//! - [`formula`]: bit-precise SSA path formulas of CFA steps, nondet values from models.
//! - [`ieee`]: `float`/`double`/`long double` operations in Z3's floating-point theory, as SSE and
//!   x87 compute them.
//! - [`abstraction`]: predicates, precisions, Cartesian and Boolean abstraction, coverage.
//! - [`generalise`]: predicates that hold across loop iterations (collected linear terms,
//!   relations without iteration-specific constants).
//! - [`cpa`]: the analysis as a CPA on the engine, `baton verify --analysis predicate`.
//! - [`proof`]: the final ARG and precision saved for re-verifying a later version.
//! - [`refinement`]: feasibility of abstract counterexamples, predicates from weakest
//!   preconditions, pivot and no-progress detection.
//! - [`step`]: what one CFA step reads and writes, the one description every path encoding
//!   (bit-precise and the CHC engine's integer one) encodes.
//! - [`solver`]: pooled Z3 solvers whose queries keep a timeout and the analysis' deadline.
//!
//! ## Z3 binding
//!
//! The `z3` crate 0.22 (with `z3-sys` 0.14) links the system Z3 (Debian's `libz3-dev`
//! 4.8.12) through pkg-config (or plain `-lz3`) and ships pregenerated bindings, so neither
//! bindgen/libclang nor a Z3 download is needed. `z3-sys` warns at build time that it targets
//! Z3 ≥ 4.13.3 and that enum numbering may differ: every C function the crate references
//! exists in 4.8.12 (otherwise linking would fail), and this module only relies on enum values
//! that are the same in 4.8.12 (`Z3_lbool`, the Bool/BV sort kinds); it never inspects
//! `DeclKind`, whose numbering did change. A unit test checks the sort kinds at run time.
//!
//! Z3 terms live in a thread-local context: states holding them stay on the thread that made
//! them.

pub mod abstraction;
pub mod cpa;
pub mod formula;
pub mod generalise;
pub mod ieee;
pub mod library;
pub mod proof;
pub mod refinement;
pub mod solver;
pub mod step;

pub use cpa::{
    loop_invariants, verify, verify_with, BlockEncoding, PredicateCpa, PredicateOptions, PredicateSharing,
    PredicateState,
};
