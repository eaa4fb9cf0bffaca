//! Correctness witnesses: an `invariant_set` of loop invariants (C expressions over source
//! names) at the loop heads of the original program.

use super::format::{ContentItem, Entry, EntryType, Invariant, InvariantKind};
use super::{location, metadata, source_of};
use crate::cfa::{LocId, Program};

/// The correctness witness of loop-head invariants `(loop head, C expression)`. Loop heads
/// outside the program file (in headers) are left out: leaving an invariant out only weakens
/// the witness.
pub fn correctness_witness(program: &Program, invariants: &[(LocId, String)]) -> Vec<Entry> {
    let content = invariants
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
