//! The CFA as a linear system of constrained Horn clauses over cut points.
//!
//! Calls are inlined: a *node* is a location in a call context (the stack of call edges that
//! leads there). Inlining needs finitely many contexts, so a recursive program is not encoded
//! (the analysis answers `unknown`; a summary encoding would be needed). The *cut points* are the
//! program start and every node with other than one incoming step — every cycle passes one, so
//! the segments between cut points are trees of straight paths, each encoded as one clause by
//! the predicate analysis' bit-precise path formulas ([`PathFormula`]: C semantics, undefined
//! behaviour excluded) or over integers ([`super::integers`]). A cut point's relation ranges
//! over the variables live there.

use super::integers::{in_range, int_var, IntPath};
use crate::analyses::predicate::formula::{state_sort, state_term, EncodeError, PathFormula};
use crate::cfa::{EdgeId, FuncId, LocId, LocationKind, Operation, Program, Scope, VarId, Variable};
use crate::cpa::Step;
use std::collections::HashMap;
use thiserror::Error;
use z3::ast::{Bool, Dynamic};
use z3::Sort;

/// Most inlined nodes the encoding builds; larger programs are left unknown.
const MAX_NODES: usize = 200_000;

/// Why a program cannot be encoded.
#[derive(Debug, Clone, Error)]
pub enum HornError {
    #[error("inlining the calls gives more than {MAX_NODES} locations")]
    TooLarge,
    #[error("recursion (`{0}` can call itself): calls are inlined, recursive ones cannot be")]
    Recursion(String),
    #[error(transparent)]
    Encode(#[from] EncodeError),
}

/// Where a step leads: a node, or the error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Node(usize),
    Error,
}

/// A location in a call context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Node {
    context: usize,
    loc: LocId,
}

/// A call context: the call edge that made it and the context of that call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Context {
    parent: Option<(usize, EdgeId)>,
    func: FuncId,
}

/// The inlined CFA: nodes and their successor steps.
struct Inlined {
    nodes: Vec<Node>,
    contexts: Vec<Context>,
    succs: Vec<Vec<(Step, Target)>>,
}

impl Inlined {
    fn build(program: &Program) -> Result<Inlined, HornError> {
        let recursive = program.recursive_functions();
        if let Some(f) = recursive.iter().position(|&r| r) {
            return Err(HornError::Recursion(program.functions[f].name.clone()));
        }
        let mut g = Inlined {
            nodes: Vec::new(),
            contexts: vec![Context {
                parent: None,
                func: program.entry_function,
            }],
            succs: Vec::new(),
        };
        let mut index: HashMap<Node, usize> = HashMap::new();
        let mut context_index: HashMap<(usize, EdgeId), usize> = HashMap::new();
        let root = Node {
            context: 0,
            loc: program.main().entry,
        };
        index.insert(root, 0);
        g.nodes.push(root);
        let mut next = 0;
        while next < g.nodes.len() {
            let node = g.nodes[next];
            let mut succs = Vec::new();
            let mut to_node = |n: Node, g: &mut Inlined| -> Result<Target, HornError> {
                if program.location(n.loc).kind == LocationKind::Error {
                    return Ok(Target::Error);
                }
                if let Some(&i) = index.get(&n) {
                    return Ok(Target::Node(i));
                }
                if g.nodes.len() >= MAX_NODES {
                    return Err(HornError::TooLarge);
                }
                index.insert(n, g.nodes.len());
                g.nodes.push(n);
                Ok(Target::Node(g.nodes.len() - 1))
            };
            for &e in program.out_edges(node.loc) {
                let edge = program.edge(e);
                let target = match &edge.op {
                    Operation::Call { callee, .. } => {
                        let key = (node.context, e);
                        let context = match context_index.get(&key) {
                            Some(&c) => c,
                            None => {
                                g.contexts.push(Context {
                                    parent: Some(key),
                                    func: *callee,
                                });
                                context_index.insert(key, g.contexts.len() - 1);
                                g.contexts.len() - 1
                            }
                        };
                        let entry = program.function(*callee).entry;
                        to_node(Node { context, loc: entry }, &mut g)?
                    }
                    _ => to_node(
                        Node {
                            context: node.context,
                            loc: edge.to,
                        },
                        &mut g,
                    )?,
                };
                succs.push((Step::Edge(e), target));
            }
            let is_exit = program.location(node.loc).kind == LocationKind::FunctionExit;
            if let (true, Some((caller, call))) = (is_exit, g.contexts[node.context].parent) {
                let back = Node {
                    context: caller,
                    loc: program.edge(call).to,
                };
                succs.push((Step::Return { call }, to_node(back, &mut g)?));
            }
            g.succs.push(succs);
            next += 1;
        }
        Ok(g)
    }

    /// The functions whose locals are in scope in a context (its own and its callers').
    fn functions(&self, mut context: usize) -> Vec<FuncId> {
        let mut out = vec![self.contexts[context].func];
        while let Some((parent, _)) = self.contexts[context].parent {
            context = parent;
            out.push(self.contexts[context].func);
        }
        out
    }
}

/// Variables a step reads and writes.
fn uses_defs(program: &Program, step: Step) -> (Vec<VarId>, Vec<VarId>) {
    let edge = program.edge(step.edge());
    let (mut uses, mut defs) = (Vec::new(), Vec::new());
    match (step, &edge.op) {
        (Step::Return { .. }, Operation::Call { callee, result, .. }) => {
            let f = program.function(*callee);
            if let (Some(r), Some(rv)) = (result, f.return_var) {
                uses.push(rv);
                defs.push(*r);
            }
        }
        (Step::Edge(_), Operation::Call { callee, .. }) => {
            edge.op.for_each_read(&mut |v| uses.push(v));
            defs.extend(program.function(*callee).params.iter().copied());
        }
        (_, Operation::Return { .. }) => {
            edge.op.for_each_read(&mut |v| uses.push(v));
            let f = program.function(program.location(edge.from).func);
            defs.extend(f.return_var);
        }
        (_, op) => {
            op.for_each_read(&mut |v| uses.push(v));
            defs.extend(op.written_var());
        }
    }
    (uses, defs)
}

/// A cut point: one relation of the Horn system.
#[derive(Debug, Clone)]
pub struct CutPoint {
    pub loc: LocId,
    /// The relation's arguments: the variables live here, in scope of the call context.
    pub vars: Vec<VarId>,
}

/// Where a clause starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum From {
    /// The program start (globals at their initial values).
    Start,
    CutPoint(usize),
}

/// Where a clause ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum To {
    CutPoint(usize),
    Error,
}

/// One Horn clause: the steps from one cut point to the next (or to the error).
#[derive(Debug, Clone)]
pub struct Clause {
    pub from: From,
    pub steps: Vec<Step>,
    pub to: To,
}

/// The program as Horn clauses.
#[derive(Debug, Clone)]
pub struct HornSystem {
    pub cut_points: Vec<CutPoint>,
    pub clauses: Vec<Clause>,
}

impl HornSystem {
    /// Inlines the calls of `program`, chooses the cut points and collects the clauses.
    pub fn build(program: &Program) -> Result<HornSystem, HornError> {
        let g = Inlined::build(program)?;
        let live = liveness(program, &g);
        let mut indegree = vec![0usize; g.nodes.len()];
        for succs in &g.succs {
            for (_, t) in succs {
                if let Target::Node(n) = t {
                    indegree[*n] += 1;
                }
            }
        }
        let mut cut_index = vec![None; g.nodes.len()];
        let mut cut_points = Vec::new();
        for (n, node) in g.nodes.iter().enumerate() {
            if n == 0 || indegree[n] != 1 {
                cut_index[n] = Some(cut_points.len());
                cut_points.push(CutPoint {
                    loc: node.loc,
                    vars: live[n].clone(),
                });
            }
        }
        let mut clauses = vec![Clause {
            from: From::Start,
            steps: Vec::new(),
            to: To::CutPoint(0),
        }];
        for (n, cut) in cut_index.iter().enumerate() {
            let Some(c) = *cut else { continue };
            // Depth-first along the tree of straight paths from this cut point.
            let mut stack: Vec<(usize, Vec<Step>)> = vec![(n, Vec::new())];
            while let Some((m, path)) = stack.pop() {
                for &(step, target) in &g.succs[m] {
                    let mut steps = path.clone();
                    steps.push(step);
                    match target {
                        Target::Error => clauses.push(Clause {
                            from: From::CutPoint(c),
                            steps,
                            to: To::Error,
                        }),
                        Target::Node(t) => match cut_index[t] {
                            Some(d) => clauses.push(Clause {
                                from: From::CutPoint(c),
                                steps,
                                to: To::CutPoint(d),
                            }),
                            None => stack.push((t, steps)),
                        },
                    }
                }
            }
        }
        Ok(HornSystem { cut_points, clauses })
    }
}

/// The variables live at each node (read on some path before being written), restricted to
/// the globals and the locals of the node's call context.
fn liveness(program: &Program, g: &Inlined) -> Vec<Vec<VarId>> {
    let words = program.variables.len().div_ceil(64);
    let steps: Vec<Vec<(Vec<VarId>, Vec<VarId>)>> = g
        .succs
        .iter()
        .map(|s| s.iter().map(|(step, _)| uses_defs(program, *step)).collect())
        .collect();
    let mut scope: HashMap<usize, Vec<u64>> = HashMap::new();
    let mut scope_of = |context: usize| -> Vec<u64> {
        scope
            .entry(context)
            .or_insert_with(|| {
                let funcs = g.functions(context);
                let mut bits = vec![0u64; words];
                for (i, v) in program.variables.iter().enumerate() {
                    let in_scope = match v.scope {
                        Scope::Global => true,
                        Scope::Local(f) => funcs.contains(&f),
                    };
                    if in_scope {
                        bits[i / 64] |= 1 << (i % 64);
                    }
                }
                bits
            })
            .clone()
    };
    let scopes: Vec<Vec<u64>> = g.nodes.iter().map(|n| scope_of(n.context)).collect();
    let mut live = vec![vec![0u64; words]; g.nodes.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for n in (0..g.nodes.len()).rev() {
            let mut now = vec![0u64; words];
            for ((_, target), (uses, defs)) in g.succs[n].iter().zip(&steps[n]) {
                let mut after = match target {
                    Target::Node(t) => live[*t].clone(),
                    Target::Error => vec![0u64; words],
                };
                for d in defs {
                    after[d.index() / 64] &= !(1 << (d.index() % 64));
                }
                for u in uses {
                    after[u.index() / 64] |= 1 << (u.index() % 64);
                }
                for (w, a) in now.iter_mut().zip(after) {
                    *w |= a;
                }
            }
            for (w, s) in now.iter_mut().zip(&scopes[n]) {
                *w &= s;
            }
            if now != live[n] {
                live[n] = now;
                changed = true;
            }
        }
    }
    live.iter()
        .map(|bits| {
            (0..program.variables.len())
                .filter(|i| bits[i / 64] & (1 << (i % 64)) != 0)
                .map(|i| VarId(i as u32))
                .collect()
        })
        .collect()
}

/// How clauses are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Mathematical integers ([`super::integers`]): exact for most programs, else an
    /// over-approximation.
    Integers,
    /// Bit-vectors with the predicate analysis' bit-precise path formulas.
    Bits,
}

impl Encoding {
    /// The sort of a program variable (an array's is a Z3 array with bit-precise terms).
    pub fn sort(self, var: &Variable) -> Sort {
        match self {
            Encoding::Integers => Sort::int(),
            Encoding::Bits => state_sort(var.ty, var.array.is_some()),
        }
    }

    /// The constant of `var` at SSA index `index`.
    fn var(self, program: &Program, var: VarId, index: u32) -> Result<Dynamic, EncodeError> {
        match self {
            Encoding::Integers => Ok(Dynamic::from_ast(&int_var(var, index))),
            Encoding::Bits => state_term(program, var, index),
        }
    }
}

/// A clause's constraint as a formula: the path formula of its steps, the start variables of
/// its source relation at SSA index 0 and the end variables of its target at their last index.
pub struct EncodedClause {
    /// The path formula (for [`From::Start`]: the globals' initial values included).
    pub formula: Bool,
    /// The source relation's arguments.
    pub start: Vec<Dynamic>,
    /// The target relation's arguments (empty for the error).
    pub end: Vec<Dynamic>,
    /// False if the formula over-approximates the steps.
    pub exact: bool,
}

impl HornSystem {
    /// Encodes clause `i`.
    pub fn encode(
        &self,
        program: &Program,
        i: usize,
        encoding: Encoding,
    ) -> Result<EncodedClause, EncodeError> {
        let clause = &self.clauses[i];
        let start_vars: &[VarId] = match clause.from {
            From::Start => &[],
            From::CutPoint(c) => &self.cut_points[c].vars,
        };
        let (mut formula, ssa, exact) = match encoding {
            Encoding::Bits => {
                let base = match clause.from {
                    From::Start => PathFormula::program_start(program),
                    From::CutPoint(_) => PathFormula::empty(),
                };
                let path = base.extend_all(clause.steps.iter().copied(), program)?;
                (vec![path.formula], path.ssa, true)
            }
            Encoding::Integers => {
                let mut path = match clause.from {
                    From::Start => IntPath::program_start(program),
                    From::CutPoint(_) => IntPath::empty(),
                };
                // The relation holds values of the variables' types only.
                path.parts.extend(
                    start_vars
                        .iter()
                        .map(|&v| in_range(&int_var(v, 0), program.variable(v).ty)),
                );
                for &step in &clause.steps {
                    path.extend(step, program)?;
                }
                (path.parts, path.ssa, path.exact)
            }
        };
        let start = start_vars
            .iter()
            .map(|&v| encoding.var(program, v, 0))
            .collect::<Result<_, _>>()?;
        let end = match clause.to {
            To::CutPoint(d) => self.cut_points[d]
                .vars
                .iter()
                .map(|&v| encoding.var(program, v, ssa.get(v)))
                .collect::<Result<_, _>>()?,
            To::Error => Vec::new(),
        };
        if formula.is_empty() {
            formula.push(Bool::from_bool(true));
        }
        Ok(EncodedClause {
            formula: Bool::and(&formula),
            start,
            end,
            exact,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn system(source: &str) -> (Program, HornSystem) {
        let program =
            crate::frontend::load_source("t.c", source, crate::cfa::types::DataModel::ILP32).expect("lowers");
        let system = HornSystem::build(&program).expect("encodable");
        (program, system)
    }

    #[test]
    fn one_loop_has_start_and_head_as_cut_points() {
        let (program, system) = system(
            "extern int __VERIFIER_nondet_int(void); extern void reach_error(void);\n\
             int main(void) { int n = __VERIFIER_nondet_int(); int i = 0;\n\
             while (i < n) { i++; }\n if (i < 0) reach_error(); return 0; }",
        );
        let heads: Vec<_> = system
            .cut_points
            .iter()
            .filter(|c| program.location(c.loc).loop_head)
            .collect();
        assert_eq!(heads.len(), 1);
        // The loop head needs i and n; nothing else is live there.
        assert_eq!(heads[0].vars.len(), 2, "{:?}", heads[0].vars);
        assert!(system.clauses.iter().any(|c| c.to == To::Error));
    }

    #[test]
    fn calls_are_inlined_per_call_site() {
        let (_, system) = system(
            "extern void reach_error(void);\n\
             int inc(int x) { return x + 1; }\n\
             int main(void) { int a = inc(1); int b = inc(a); if (b != 3) reach_error(); return 0; }",
        );
        // Both calls' steps appear on the one straight path to the error check.
        let calls = system
            .clauses
            .iter()
            .flat_map(|c| &c.steps)
            .filter(|s| matches!(s, Step::Return { .. }))
            .count();
        assert!(calls >= 2, "{calls} returns in {:?}", system.clauses);
    }
}
