//! Baton: conditional model checking of C programs.
//!
//! A flow of verifiers runs one after another; each stage that cannot finish reports what it
//! verified as a condition automaton, the reducer cuts that part out of the program, and the
//! next stage sees only the residual program.

pub mod adapters;
pub mod analyses;
pub mod bench;
pub mod cfa;
pub mod cli_json;
pub mod condition;
pub mod cpa;
pub mod exec;
pub mod frontend;
pub mod input_file;
pub mod pipeline;
pub mod reducer;
pub mod task;
pub mod units;
pub mod verdict;
pub mod witness;
pub mod xml;
