//! Flows: stages run one after another (or in parallel groups) under budgets, each handing on
//! what it verified.

pub mod flow;
pub mod parallel;
pub mod proof_witness;
pub mod runner;
pub mod stage;
