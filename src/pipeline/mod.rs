//! Flows: stages run one after another under budgets, each handing on what it verified.

pub mod flow;
pub mod runner;
