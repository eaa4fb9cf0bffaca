//! The proof a predicate- or explicit-analysis run leaves behind (`baton verify --proof-out
//! FILE`), for re-verifying a later version of the program (seed 002 §3,
//! [`crate::analyses::incremental`], [`crate::analyses::explicit::incremental`]).
//!
//! A proof is one JSON document (format `baton-proof`, version [`PROOF_VERSION`]):
//!
//! - `analysis`: the analysis that wrote it, `predicate` or `explicit` (a proof is only read by
//!   the same analysis);
//! - `program`: the program file's name, SHA-256 and source lines (the line diff against a new
//!   version maps edges by source position);
//! - `verdict` of the run that wrote it (`true`, or `unknown` for a cut run: its frontier is
//!   recorded too);
//! - `cfa`: the program's CFA as `baton cfa --json` prints it (edges, variables, functions);
//! - `predicates` (predicate analysis; empty for explicit): the predicate table (canonical comparisons over the CFA's variable ids);
//! - `precision`: the final precision, predicates tracked everywhere (`global`) and per
//!   location (`local`), as indices into the table;
//! - `nodes`: the live ARG nodes, the root first: the CFA location, the reachable region at block
//!   starts (`region`: cubes of `[predicate, polarity]`, and the predicates it was computed
//!   over; predicate analysis), or the known values (`values`: `[variable, value]` pairs;
//!   explicit analysis; absent where the state also knows array elements or saved frames of
//!   recursive calls, which are not recorded: such a node is never reused), the children with the step to each (`{"edge": id}` or `{"return": call-edge id}`)
//!   and the status: `expanded` (`partial` if only up to a target), `{"covered_by": node}`, or `{"frontier": reason}` (waiting,
//!   cut, target or left to a guide: not verified, explored again on reuse).

use super::abstraction::{AbstractState, Precision, Predicate};
use super::cpa::PredicateState;
use crate::cfa::expr::Expr;
use crate::cfa::{EdgeId, LocId, Operation, Program, VarId};
use crate::cpa::arg::{Arg, NodeId, NodeStatus};
use crate::cpa::Step;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The `format` field of every proof file.
pub const PROOF_FORMAT: &str = "baton-proof";
/// The version of the format this Baton writes and reads (1: predicate proofs only, format
/// `baton-predicate-proof`; 2: the analysis kind and explicit values added).
pub const PROOF_VERSION: u32 = 2;

/// Most ARG nodes a proof records: a larger ARG is cheaper to explore again than to write,
/// read and match (its proof is not written).
pub const MAX_PROOF_NODES: usize = 1_000_000;

/// The analysis a proof is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProofAnalysis {
    Predicate,
    Explicit,
}

impl std::fmt::Display for ProofAnalysis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ProofAnalysis::Predicate => "predicate",
            ProofAnalysis::Explicit => "explicit",
        })
    }
}

/// Why a proof cannot be written or used.
#[derive(Debug, thiserror::Error)]
pub enum ProofError {
    #[error("{path}: cannot read: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path}: cannot write: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("{path}:{line}:{column}: not a Baton proof: {message}")]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: malformed proof: {message}")]
    Malformed { path: PathBuf, message: String },
    #[error("cannot record the proof: {0}")]
    Record(String),
}

/// The program a proof is about.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProgramRecord {
    pub file: String,
    pub sha256: String,
    pub lines: Vec<String>,
}

/// The final precision as indices into [`Proof::predicates`].
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PrecisionRecord {
    pub global: Vec<u32>,
    pub local: Vec<(LocId, Vec<u32>)>,
}

/// A reachable region: a disjunction of cubes of `(predicate index, polarity)`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Region {
    pub cubes: Vec<Vec<(u32, bool)>>,
    pub minterms: bool,
    /// The predicates the region was computed over.
    pub tracked: Vec<u32>,
}

/// A step of the old ARG.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProofStep {
    Edge(EdgeId),
    Return(EdgeId),
}

impl From<Step> for ProofStep {
    fn from(step: Step) -> Self {
        match step {
            Step::Edge(e) => ProofStep::Edge(e),
            Step::Return { call } => ProofStep::Return(call),
        }
    }
}

/// Where a node of the old ARG stood.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProofStatus {
    Expanded,
    CoveredBy(u32),
    /// Not verified: waiting, cut, a target or left to a guide.
    Frontier(String),
}

/// One live node of the old ARG.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProofNode {
    pub location: LocId,
    /// The region at a block start; `None` inside a block (and in explicit proofs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<Region>,
    /// The known values of an explicit state (`None` in predicate proofs and where the state
    /// is not recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<(VarId, i128)>>,
    pub children: Vec<(ProofStep, u32)>,
    pub status: ProofStatus,
    /// Expanded up to a target only: a step without a child was not computed (otherwise it
    /// is infeasible).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// A saved predicate-analysis proof (see the module documentation for the format).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Proof {
    pub format: String,
    pub version: u32,
    pub analysis: ProofAnalysis,
    pub program: ProgramRecord,
    pub verdict: String,
    pub cfa: Program,
    pub predicates: Vec<Expr>,
    pub precision: PrecisionRecord,
    pub nodes: Vec<ProofNode>,
}

/// Interns predicates into the proof's table.
#[derive(Default)]
struct PredicateTable {
    exprs: Vec<Expr>,
    index: HashMap<Predicate, u32>,
}

impl PredicateTable {
    fn id(&mut self, p: &Predicate) -> u32 {
        if let Some(&i) = self.index.get(p) {
            return i;
        }
        let i = self.exprs.len() as u32;
        self.exprs.push(p.expr().clone());
        self.index.insert(p.clone(), i);
        i
    }

    fn ids(&mut self, ps: &[Predicate]) -> Vec<u32> {
        ps.iter().map(|p| self.id(p)).collect()
    }
}

impl Proof {
    /// Records the final ARG and precision of a predicate-analysis run on `program` whose
    /// source text is `source`.
    pub fn record(
        arg: &Arg<PredicateState>,
        precision: &Precision,
        program: &Program,
        source: &str,
        verdict: &str,
    ) -> Result<Proof, ProofError> {
        let mut table = PredicateTable::default();
        let mut proof =
            Proof::record_nodes(arg, program, source, verdict, ProofAnalysis::Predicate, |state| {
                let region = (state.pf.length == 0).then(|| Region {
                    cubes: state
                        .abstraction
                        .cubes
                        .iter()
                        .map(|cube| {
                            cube.iter()
                                .map(|l| (table.id(&l.predicate), l.positive))
                                .collect()
                        })
                        .collect(),
                    minterms: state.abstraction.minterms,
                    tracked: table.ids(&state.tracked),
                });
                (region, None)
            })?;
        let mut local: Vec<(LocId, Vec<u32>)> = precision
            .local
            .iter()
            .map(|(&loc, ps)| (loc, table.ids(ps)))
            .collect();
        local.sort_by_key(|(loc, _)| *loc);
        let global = table.ids(&precision.global);
        proof.predicates = table.exprs;
        proof.precision = PrecisionRecord { global, local };
        Ok(proof)
    }

    /// Records the live nodes of a final ARG, each state's part by `state_record` (a region or
    /// values), without predicates or precision.
    pub fn record_nodes<S>(
        arg: &Arg<S>,
        program: &Program,
        source: &str,
        verdict: &str,
        analysis: ProofAnalysis,
        mut state_record: impl FnMut(&S) -> (Option<Region>, Option<Vec<(VarId, i128)>>),
    ) -> Result<Proof, ProofError> {
        let live: Vec<NodeId> = arg.live_ids().collect();
        if live.len() > MAX_PROOF_NODES {
            return Err(ProofError::Record(format!(
                "the ARG has {} nodes, more than the {MAX_PROOF_NODES} a proof records",
                live.len()
            )));
        }
        let renumber: HashMap<NodeId, u32> = live.iter().enumerate().map(|(i, &n)| (n, i as u32)).collect();
        if renumber.get(&arg.root()) != Some(&0) {
            return Err(ProofError::Record("the ARG has no root".into()));
        }
        let mut nodes = Vec::with_capacity(live.len());
        for &id in &live {
            let node = arg.node(id);
            let status = match &node.status {
                NodeStatus::Expanded => ProofStatus::Expanded,
                NodeStatus::CoveredBy(m) => match renumber.get(m) {
                    Some(&m) => ProofStatus::CoveredBy(m),
                    None => ProofStatus::Frontier("covered by a removed node".into()),
                },
                NodeStatus::Waiting => ProofStatus::Frontier("waiting".into()),
                NodeStatus::Cut(why) => ProofStatus::Frontier(format!("cut: {why}")),
                NodeStatus::Target => ProofStatus::Frontier("target".into()),
                NodeStatus::GuideAccepted => ProofStatus::Frontier("left to an earlier condition".into()),
                NodeStatus::Removed => continue,
            };
            let children = node
                .children
                .iter()
                .filter_map(|&(step, c)| renumber.get(&c).map(|&c| (ProofStep::from(step), c)))
                .collect();
            let (region, values) = state_record(&node.state);
            nodes.push(ProofNode {
                location: node.control.location,
                region,
                values,
                children,
                partial: node.status == NodeStatus::Expanded && !node.fully_expanded,
                status,
            });
        }
        Ok(Proof {
            format: PROOF_FORMAT.into(),
            version: PROOF_VERSION,
            analysis,
            program: ProgramRecord {
                file: program.files.first().cloned().unwrap_or_default(),
                sha256: program.hash.clone(),
                lines: source.lines().map(str::to_string).collect(),
            },
            verdict: verdict.into(),
            cfa: program.clone(),
            predicates: Vec::new(),
            precision: PrecisionRecord::default(),
            nodes,
        })
    }

    /// Writes the proof as JSON.
    pub fn write(&self, path: &Path) -> Result<(), ProofError> {
        let write_error = |source| ProofError::Write {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::create(path).map_err(write_error)?;
        let mut out = std::io::BufWriter::new(file);
        serde_json::to_writer(&mut out, self).map_err(|e| write_error(e.into()))?;
        std::io::Write::flush(&mut out).map_err(write_error)
    }

    /// Reads and checks a proof file: syntax, format and version, and that every id in it
    /// names something in it (so that nothing later indexes out of range).
    pub fn load(path: &Path) -> Result<Proof, ProofError> {
        let text = std::fs::read_to_string(path).map_err(|source| ProofError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let malformed = |message: String| ProofError::Malformed {
            path: path.to_path_buf(),
            message,
        };
        // The header first, so that another file or version gets a clear message.
        #[derive(Deserialize)]
        struct Header {
            format: Option<String>,
            version: Option<u32>,
        }
        let syntax = |e: serde_json::Error| ProofError::Syntax {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        };
        let header: Header = serde_json::from_str(&text).map_err(syntax)?;
        if header.format.as_deref() == Some("baton-predicate-proof") {
            return Err(malformed(format!(
                "a proof of format version 1 (this Baton reads version {PROOF_VERSION}): verify the old version again with --proof-out"
            )));
        }
        if header.format.as_deref() != Some(PROOF_FORMAT) {
            return Err(malformed(format!("`format` is not `{PROOF_FORMAT}`")));
        }
        if header.version != Some(PROOF_VERSION) {
            return Err(malformed(format!(
                "version {} (this Baton reads version {PROOF_VERSION})",
                header.version.map_or("missing".into(), |v| v.to_string())
            )));
        }
        let mut proof: Proof = serde_json::from_str(&text).map_err(syntax)?;
        proof.check().map_err(malformed)?;
        proof.cfa.reindex();
        Ok(proof)
    }

    /// Every id inside the proof is in range.
    fn check(&self) -> Result<(), String> {
        let cfa = &self.cfa;
        let (locs, edges, funcs, vars) = (
            cfa.locations.len(),
            cfa.edges.len(),
            cfa.functions.len(),
            cfa.variables.len(),
        );
        let var_ok = |e: &Expr| {
            let mut ok = true;
            e.for_each_var(&mut |v| ok &= v.index() < vars);
            ok
        };
        if cfa.entry_function.index() >= funcs {
            return Err("cfa: entry function out of range".into());
        }
        if cfa.locations.iter().any(|l| l.func.index() >= funcs) {
            return Err("cfa: a location's function is out of range".into());
        }
        for f in &cfa.functions {
            let out = [f.entry, f.exit]
                .iter()
                .chain(&f.locations)
                .any(|l| l.index() >= locs)
                || f.params.iter().chain(&f.return_var).any(|v| v.index() >= vars);
            if out {
                return Err(format!(
                    "cfa: function `{}` refers to a missing location or variable",
                    f.name
                ));
            }
        }
        for (i, e) in cfa.edges.iter().enumerate() {
            let mut ok = e.from.index() < locs && e.to.index() < locs;
            e.op.for_each_var(&mut |v| ok &= v.index() < vars);
            if let Operation::Call { callee, .. } = &e.op {
                ok &= callee.index() < funcs;
            }
            if !ok {
                return Err(format!(
                    "cfa: edge {i} refers to a missing location, variable or function"
                ));
            }
        }
        if let Some(i) = self.predicates.iter().position(|p| !var_ok(p)) {
            return Err(format!("predicate {i} refers to a missing variable"));
        }
        let preds = self.predicates.len() as u32;
        let pred_ok = |ids: &[u32]| ids.iter().all(|&p| p < preds);
        let precision_ok = pred_ok(&self.precision.global)
            && self
                .precision
                .local
                .iter()
                .all(|(loc, ids)| loc.index() < locs && pred_ok(ids));
        if !precision_ok {
            return Err("precision refers to a missing location or predicate".into());
        }
        if self.nodes.is_empty() {
            return Err("no ARG nodes".into());
        }
        let n = self.nodes.len() as u32;
        for (i, node) in self.nodes.iter().enumerate() {
            let steps_ok = node.children.iter().all(|&(step, c)| {
                let e = match step {
                    ProofStep::Edge(e) | ProofStep::Return(e) => e,
                };
                c < n && e.index() < edges
            });
            let region_ok = node.region.as_ref().is_none_or(|r| {
                pred_ok(&r.tracked) && r.cubes.iter().all(|c| c.iter().all(|&(p, _)| p < preds))
            });
            let status_ok = !matches!(node.status, ProofStatus::CoveredBy(m) if m >= n);
            let values_ok = node
                .values
                .as_ref()
                .is_none_or(|vs| vs.iter().all(|(v, _)| v.index() < vars));
            if node.location.index() >= locs || !steps_ok || !region_ok || !status_ok || !values_ok {
                return Err(format!(
                    "node {i} refers to a missing location, edge, node or predicate"
                ));
            }
        }
        Ok(())
    }

    /// The region of node `i` as an abstract state over predicates made by `predicate` from
    /// the table's entries; `None` inside a block or if some predicate cannot be made.
    pub fn region(&self, i: usize, predicate: &[Option<Predicate>]) -> Option<AbstractState> {
        let region = self.nodes.get(i)?.region.as_ref()?;
        let mut cubes = Vec::with_capacity(region.cubes.len());
        for cube in &region.cubes {
            let mut lits = Vec::with_capacity(cube.len());
            for &(p, positive) in cube {
                lits.push(super::abstraction::Literal {
                    predicate: predicate.get(p as usize)?.clone()?,
                    positive,
                });
            }
            cubes.push(lits);
        }
        Some(AbstractState {
            cubes,
            minterms: region.minterms,
        })
    }
}
