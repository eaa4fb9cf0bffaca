//! Correctness witnesses: an `invariant_set` of loop invariants (C expressions over source
//! names) at the loop heads of the original program and, for recursive functions, function
//! contracts (format 2.1: format 2.0 has no way to say what a call returns).

use super::format::{ContentItem, Entry, EntryType, Invariant, InvariantKind, CONTRACT_FORMAT_VERSION};
use super::{location, metadata, source_of};
use crate::cfa::{FuncId, LocId, Program};

/// A function contract of a proof: ACSL expressions (`\result`, `\old(x)`; parameters in
/// `ensures` are their values at the entry, as in ACSL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContractText {
    pub function: FuncId,
    pub requires: String,
    pub ensures: String,
}

/// What a proof of the whole program gives its correctness witness.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProofInvariants {
    /// `(loop head, C expression)`.
    pub loops: Vec<(LocId, String)>,
    /// The contracts of recursive functions.
    pub contracts: Vec<ContractText>,
}

/// The correctness witness of the invariants of a proof of the whole program. The analyses
/// give an invariant for every loop head they reached, so the other loop heads are
/// unreachable: their invariant is `0`. Loop heads outside the program file (in headers) are
/// left out: leaving an invariant out only weakens the witness. With contracts the witness is
/// in format 2.1.
pub fn correctness_witness(program: &Program, proof: &ProofInvariants) -> Vec<Entry> {
    let invariants = &proof.loops;
    let unreached = program
        .location_ids()
        .filter(|&l| program.location(l).loop_head && !invariants.iter().any(|(i, _)| *i == l))
        .map(|l| (l, "0".to_string()));
    let all: Vec<(LocId, String)> = invariants.iter().cloned().chain(unreached).collect();
    let loops = all.iter().filter_map(|(loc, value)| {
        let at = source_of(program, *loc)?;
        let function = &program.function(program.location(*loc).func).name;
        Some(ContentItem {
            segment: None,
            invariant: Some(Invariant {
                kind: InvariantKind::LoopInvariant,
                location: location(program, at, function),
                value: Some(value.clone()),
                requires: None,
                ensures: None,
                format: "c_expression".into(),
            }),
            contract: None,
        })
    });
    let contracts = proof.contracts.iter().map(|c| {
        let function = program.function(c.function);
        ContentItem {
            segment: None,
            invariant: Some(Invariant {
                kind: InvariantKind::FunctionContract,
                location: location(program, function.source, &function.name),
                value: None,
                requires: Some(c.requires.clone()),
                ensures: Some(c.ensures.clone()),
                format: "acsl_expression".into(),
            }),
            contract: None,
        }
    });
    let content: Vec<ContentItem> = loops.chain(contracts).collect();
    let mut meta = metadata(program);
    if !proof.contracts.is_empty() {
        meta.format_version = CONTRACT_FORMAT_VERSION.into();
    }
    vec![Entry {
        entry_type: EntryType::InvariantSet,
        metadata: meta,
        content,
    }]
}
