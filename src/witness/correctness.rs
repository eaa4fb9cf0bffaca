//! Correctness witnesses: an `invariant_set` of loop invariants (C expressions over source
//! names) at the loop heads of the original program.

use super::format::{ContentItem, Entry, EntryType, Invariant, InvariantKind};
use super::{location, metadata, source_of};
use crate::cfa::{LocId, Program};

/// The correctness witness of the loop-head invariants `(loop head, C expression)` of a proof
/// of the whole program. The analyses give an invariant for every loop head they reached, so
/// the other loop heads are unreachable: their invariant is `0`. Loop heads outside the
/// program file (in headers) are left out: leaving an invariant out only weakens the witness.
pub fn correctness_witness(program: &Program, invariants: &[(LocId, String)]) -> Vec<Entry> {
    let unreached = program
        .location_ids()
        .filter(|&l| program.location(l).loop_head && !invariants.iter().any(|(i, _)| *i == l))
        .map(|l| (l, "0".to_string()));
    let all: Vec<(LocId, String)> = invariants.iter().cloned().chain(unreached).collect();
    let content = all
        .iter()
        .filter_map(|(loc, value)| {
            let at = source_of(program, *loc)?;
            let function = &program.function(program.location(*loc).func).name;
            Some(ContentItem {
                segment: None,
                invariant: Some(Invariant {
                    kind: InvariantKind::LoopInvariant,
                    location: location(program, at, function),
                    value: value.clone(),
                    format: "c_expression".into(),
                }),
            })
        })
        .collect();
    vec![Entry {
        entry_type: EntryType::InvariantSet,
        metadata: metadata(program),
        content,
    }]
}
