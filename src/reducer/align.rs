//! Matching the residual CFA with the CFA a tool reads back from the emitted C.
//!
//! A native stage runs `baton verify residual.c`: the frontend re-reads the emitted C into a CFA
//! of its own (the *re-read CFA*), and the stage's condition names that CFA's edges. The
//! reducer's provenance is about the *residual CFA* it built in memory. The emitter writes
//! every residual location `n` as the C label [`location_label`]`(n)` and every residual edge
//! as one statement followed by a `goto`, and the frontend keeps labels on its locations, so
//! one residual edge `n → m` is *spelled* in the re-read CFA by the path from the location
//! labelled `n` to the location labelled `m` (or, for edges into an error or terminal location,
//! to the re-read error or terminal location) that passes no other label. Statements of
//! earlier edges at `n` that do not apply (a failed `if`) are part of the spelling.
//!
//! A call the residual program keeps as a call (of a copy of an original function) is read in
//! two parts: when the call is made, the path up to the re-read call edge and then the callee's
//! path from its entry to its entry label (the declarations); when the callee returns, the
//! callee's path from its exit label to its exit (the `return`) and then the caller's path after
//! the call edge. Returns are silent for conditions, so this is the order a condition about the
//! re-read CFA reads them in.
//!
//! The matching is sound by construction rather than by trust: a residual edge gets a spelling
//! only when exactly one re-read path and exactly one residual edge of `n` lead to the same
//! end; anything else (two edges between the same locations, a statement the frontend lowers
//! into branches, a label it dropped) leaves the edge without spelling, and
//! [`crate::condition::map_back`] then maps nothing through it (covering less is sound).

use crate::cfa::emit_c::location_label;
use crate::cfa::{EdgeId, LocId, LocationKind, Operation, Program};
use std::collections::HashMap;

/// Most re-read paths followed from one label before its edges are given up as unmatched.
const MAX_PATHS_PER_LABEL: usize = 64;

/// How the edges of a condition's program spell the residual CFA's edges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alignment {
    /// The condition's edges from its program's entry to the residual entry (the re-read CFA
    /// declares locals first); `None` when that path is not unique.
    pub prelude: Option<Vec<EdgeId>>,
    /// Per residual edge: the condition's edges that spell it, `None` when not matched. For a
    /// call, the edges read when the call is made (see the module documentation).
    pub spellings: Vec<Option<Vec<EdgeId>>>,
    /// Per residual edge: for a call, the condition's edges read when the callee returns;
    /// empty for every other edge.
    pub at_return: Vec<Vec<EdgeId>>,
}

/// Where a re-read path from a label ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum End {
    /// At the location labelled for this residual location.
    Label(LocId),
    Error,
    Terminal,
}

impl Alignment {
    /// The alignment of the residual CFA with itself: a condition computed on the residual
    /// CFA directly (CBMC's bounded condition).
    pub fn identity(residual: &Program) -> Alignment {
        Alignment {
            prelude: Some(Vec::new()),
            spellings: residual.edge_ids().map(|e| Some(vec![e])).collect(),
            at_return: vec![Vec::new(); residual.edges.len()],
        }
    }

    /// Matches `residual` (the reducer's CFA) with `reread`, the CFA the frontend built from
    /// `emit_c(residual)` (see the module documentation).
    pub fn reparsed(residual: &Program, reread: &Program) -> Alignment {
        let main = reread.main();
        let by_label: HashMap<&str, LocId> = reread
            .location_ids()
            .filter_map(|l| reread.location(l).label.as_deref().map(|name| (name, l)))
            .collect();
        // Re-read label location -> residual location.
        let mut residual_of: HashMap<LocId, LocId> = HashMap::new();
        for n in residual.location_ids() {
            if let Some(&l) = by_label.get(location_label(n).as_str()) {
                residual_of.insert(l, n);
            }
        }
        let end_of = |l: LocId| -> Option<End> {
            if let Some(&n) = residual_of.get(&l) {
                return Some(End::Label(n));
            }
            match reread.location(l).kind {
                LocationKind::Error => Some(End::Error),
                LocationKind::Terminal => Some(End::Terminal),
                _ => None,
            }
        };
        let is_label = |l: LocId| reread.location(l).label.is_some();

        let entry = residual.main().entry;
        let prelude = if residual_of.get(&main.entry) == Some(&entry) {
            Some(Vec::new())
        } else {
            let paths = paths_to_labels(reread, main.entry, &is_label);
            unique(
                paths
                    .into_iter()
                    .filter(|(end, _)| end_of(*end) == Some(End::Label(entry))),
            )
        };

        let mut spellings = vec![None; residual.edges.len()];
        for (&start, &n) in &residual_of {
            let mut found: HashMap<End, Vec<Vec<EdgeId>>> = HashMap::new();
            for (end, path) in paths_to_labels(reread, start, &is_label) {
                if let Some(end) = end_of(end) {
                    found.entry(end).or_default().push(path);
                }
            }
            let mut edges: HashMap<End, Vec<EdgeId>> = HashMap::new();
            for &e in residual.out_edges(n) {
                let to = residual.edge(e).to;
                let end = match residual.location(to).kind {
                    LocationKind::Error => End::Error,
                    LocationKind::Terminal => End::Terminal,
                    _ => End::Label(to),
                };
                edges.entry(end).or_default().push(e);
            }
            for (end, residual_edges) in edges {
                if let ([e], Some(paths)) = (residual_edges.as_slice(), found.remove(&end)) {
                    spellings[e.index()] = unique(paths.into_iter().map(|p| (end, p)));
                }
            }
        }
        let mut at_return = vec![Vec::new(); residual.edges.len()];
        for e in residual.edge_ids() {
            if let Operation::Call { callee, .. } = residual.edge(e).op {
                let callee = residual.function(callee);
                let ends = by_label
                    .get(location_label(callee.entry).as_str())
                    .zip(by_label.get(location_label(callee.exit).as_str()));
                let split = match (spellings[e.index()].take(), ends) {
                    (Some(path), Some((&entry, &exit))) => split_call(reread, &path, entry, exit, &is_label),
                    _ => None,
                };
                if let Some((at_call, after)) = split {
                    spellings[e.index()] = Some(at_call);
                    at_return[e.index()] = after;
                }
            }
        }
        Alignment {
            prelude,
            spellings,
            at_return,
        }
    }

    /// The number of residual edges without a spelling.
    pub fn unmatched(&self) -> usize {
        self.spellings.iter().filter(|s| s.is_none()).count()
    }
}

/// Splits the re-read `path` of a kept call into the edges read when the call is made (up to
/// the re-read call edge, then the callee's path from its entry to `entry`, the location
/// labelled as the residual callee's entry) and the edges read when it returns (the callee's
/// path from `exit`, labelled as the residual callee's exit, to its exit, then the rest of
/// `path`). `None` unless `path` holds exactly one call, of the function `entry` is in, and
/// both callee paths are unique.
fn split_call(
    reread: &Program,
    path: &[EdgeId],
    entry: LocId,
    exit: LocId,
    is_label: &dyn Fn(LocId) -> bool,
) -> Option<(Vec<EdgeId>, Vec<EdgeId>)> {
    let calls: Vec<usize> = (0..path.len())
        .filter(|&i| matches!(reread.edge(path[i]).op, Operation::Call { .. }))
        .collect();
    let &[i] = calls.as_slice() else {
        return None;
    };
    let Operation::Call { callee, .. } = reread.edge(path[i]).op else {
        return None;
    };
    let function = reread.function(callee);
    if reread.location(entry).func != callee || reread.location(exit).func != callee {
        return None;
    }
    let declarations = if function.entry == entry {
        Vec::new()
    } else {
        unique(
            paths_to_labels(reread, function.entry, is_label)
                .into_iter()
                .filter(|(end, _)| *end == entry),
        )?
    };
    let returning = unique(
        paths_to_labels(reread, exit, is_label)
            .into_iter()
            .filter(|(end, _)| *end == function.exit),
    )?;
    let mut at_call = path[..=i].to_vec();
    at_call.extend(declarations);
    let mut after = returning;
    after.extend_from_slice(&path[i + 1..]);
    Some((at_call, after))
}

/// The only path of `paths`, if there is exactly one.
fn unique<T>(paths: impl IntoIterator<Item = (T, Vec<EdgeId>)>) -> Option<Vec<EdgeId>> {
    let mut it = paths.into_iter();
    match (it.next(), it.next()) {
        (Some((_, p)), None) => Some(p),
        _ => None,
    }
}

/// Every path of `program` from `start` that stops at the first labelled location after
/// `start` or at a location without successors, with its end; empty when there are more than
/// [`MAX_PATHS_PER_LABEL`] or a path returns to an unlabelled location it passed (the emitter
/// writes no loop without a label).
fn paths_to_labels(
    program: &Program,
    start: LocId,
    is_label: &dyn Fn(LocId) -> bool,
) -> Vec<(LocId, Vec<EdgeId>)> {
    let mut done = Vec::new();
    // Depth-first, each entry a path and the locations it passed.
    let mut stack: Vec<(LocId, Vec<EdgeId>)> = vec![(start, Vec::new())];
    while let Some((at, path)) = stack.pop() {
        let stops = !path.is_empty() && is_label(at);
        if stops || program.out_edges(at).is_empty() {
            done.push((at, path));
            if done.len() > MAX_PATHS_PER_LABEL {
                return Vec::new();
            }
            continue;
        }
        for &e in program.out_edges(at) {
            let to = program.edge(e).to;
            let passed = to == start || path.iter().any(|&p| program.edge(p).from == to);
            if passed && !is_label(to) {
                return Vec::new();
            }
            let mut next = path.clone();
            next.push(e);
            stack.push((to, next));
        }
    }
    done
}
