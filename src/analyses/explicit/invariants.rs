//! What a complete run of the explicit analysis (a `true` without a guide) gives its
//! correctness witness: at each loop head, the disjunction of the values its states know; for
//! each recursive function, a contract from the states at its entry (`requires`) and the pairs
//! of entry and exit states of its activations (`ensures`).

use super::ExplicitState;
use crate::cfa::effects::Effects;
use crate::cfa::expr::Expr;
use crate::cfa::{FuncId, LocId, LocationKind, Operation, Program, Scope, VarId, Variable};
use crate::cpa::arg::{Arg, NodeId, NodeStatus};
use crate::cpa::Step;
use crate::witness::correctness::ContractText;
use rustc_hash::FxHashSet;
use std::collections::{BTreeMap, BTreeSet};

/// Most states of one loop head an invariant lists one by one; beyond, each variable's range
/// over the states is given instead (weaker, still an invariant).
const MAX_LISTED_STATES: usize = 1024;

/// Loop-head invariants of a complete ARG (a `true` without a guide): at each loop head, the
/// disjunction of what its states know (`x == 3 && y == 0`), over the variables a witness can
/// name there (no temporaries, no locals of other functions). Covered states are implied by
/// the states covering them.
pub fn loop_invariants(arg: &Arg<ExplicitState>, program: &Program) -> Vec<(LocId, String)> {
    let mut per_loc: BTreeMap<LocId, Vec<Vec<(VarId, i128)>>> = BTreeMap::new();
    for id in arg.live_ids() {
        let n = arg.node(id);
        let loc = n.control.location;
        if !program.location(loc).loop_head || !matches!(n.status, NodeStatus::Expanded | NodeStatus::Waiting)
        {
            continue;
        }
        let func = program.location(loc).func;
        let known = known(&n.state, program, |x| {
            x.scope == Scope::Global || x.scope == Scope::Local(func)
        });
        let states = per_loc.entry(loc).or_default();
        if !states.contains(&known) {
            states.push(known);
        }
    }
    let name = |v: VarId| program.variable(v).source_name.clone();
    let constant = |v: VarId, c: i128| constant(program, v, c);
    per_loc
        .into_iter()
        .map(|(loc, states)| {
            let text = if states.iter().any(Vec::is_empty) {
                "1".to_string()
            } else if states.len() <= MAX_LISTED_STATES {
                let cubes: Vec<String> = states
                    .iter()
                    .map(|s| {
                        let eqs = s
                            .iter()
                            .map(|(v, c)| format!("{} == {}", name(*v), constant(*v, *c)));
                        format!("({})", conjunction(eqs.collect()))
                    })
                    .collect();
                cubes.join(" || ")
            } else {
                let vars: Vec<VarId> = states[0].iter().map(|(v, _)| *v).collect();
                let ranges = vars.into_iter().filter_map(|v| {
                    let values: Vec<i128> = states
                        .iter()
                        .map(|s| s.iter().find(|(w, _)| *w == v).map(|(_, c)| *c))
                        .collect::<Option<_>>()?;
                    let (lo, hi) = (values.iter().min()?, values.iter().max()?);
                    Some(format!(
                        "{} <= {} && {} <= {}",
                        constant(v, *lo),
                        name(v),
                        name(v),
                        constant(v, *hi)
                    ))
                });
                conjunction(ranges.collect())
            };
            (loc, text)
        })
        .collect()
}

/// Known values of variables, in variable order.
type Known = Vec<(VarId, i128)>;

/// The values `state` knows of the variables `visible` accepts that a witness can name (no
/// temporaries; no floats, whose bit patterns are not ordered as their values).
fn known(state: &ExplicitState, program: &Program, visible: impl Fn(&Variable) -> bool) -> Known {
    state
        .values
        .iter()
        .filter(|(v, _)| {
            let x = program.variable(**v);
            !x.temporary && !x.ty.is_float() && visible(x)
        })
        .map(|(v, c)| (*v, *c))
        .collect()
}

/// `c` as a C constant of `v`'s type.
fn constant(program: &Program, v: VarId, c: i128) -> String {
    let mut s = String::new();
    let name = |v: VarId| program.variable(v).source_name.clone();
    Expr::constant(c, program.variable(v).ty).write_c(&mut s, program.data_model, &name);
    s
}

fn conjunction(parts: Vec<String>) -> String {
    if parts.is_empty() {
        "1".to_string()
    } else {
        parts.join(" && ")
    }
}

/// A disjunction of cubes (`0` for none, `1` if one is empty).
fn disjunction(cubes: impl IntoIterator<Item = String>) -> String {
    let cubes: Vec<String> = cubes.into_iter().collect();
    if cubes.is_empty() {
        "0".to_string()
    } else if cubes.iter().any(|c| c == "1") {
        "1".to_string()
    } else {
        cubes
            .iter()
            .map(|c| format!("({c})"))
            .collect::<Vec<_>>()
            .join(" || ")
    }
}

/// Most (node, activations) pairs the walk for contracts visits; beyond, no contracts (their
/// witness does not validate, the verdict stands).
const MAX_CONTRACT_VISITS: usize = 4_000_000;

/// Contracts of the recursive functions of a complete ARG (a `true` without a guide). The
/// ARG is walked from the root with the entry node of each active call (an activation's
/// entry state); a covered node continues as its covering node with its own activations (the
/// covering node's future is its future). `requires`: the disjunction of what the states at
/// the function's entry know of its parameters and the globals; `ensures`: the disjunction,
/// over the exit states of its activations, of their entry state (`\old(…)`) and what they
/// know on return of `\result` and the globals the function may write.
pub fn contracts(arg: &Arg<ExplicitState>, program: &Program) -> Vec<ContractText> {
    let recursive = program.recursive_functions();
    if !recursive.contains(&true) {
        return Vec::new();
    }
    let effects = Effects::of(program);
    let mut entries: BTreeMap<FuncId, BTreeSet<Known>> = BTreeMap::new();
    let mut pairs: BTreeMap<FuncId, BTreeSet<(Known, Known)>> = BTreeMap::new();
    let entry_values = |state: &ExplicitState, f: FuncId| {
        let params = &program.function(f).params;
        known(state, program, |x| x.scope == Scope::Global)
            .into_iter()
            .chain(
                known(state, program, |_| true)
                    .into_iter()
                    .filter(|(v, _)| params.contains(v)),
            )
            .collect::<Vec<_>>()
    };
    let mut seen: FxHashSet<(NodeId, Vec<NodeId>)> = FxHashSet::default();
    let mut work: Vec<(NodeId, Vec<NodeId>)> = vec![(arg.root(), vec![arg.root()])];
    while let Some((id, active)) = work.pop() {
        if seen.len() >= MAX_CONTRACT_VISITS {
            return Vec::new();
        }
        if !seen.insert((id, active.clone())) {
            continue;
        }
        let node = arg.node(id);
        let loc = node.control.location;
        let func = program.location(loc).func;
        if recursive[func.index()] {
            let f = program.function(func);
            if loc == f.entry {
                entries
                    .entry(func)
                    .or_default()
                    .insert(entry_values(&node.state, func));
            }
            if program.location(loc).kind == LocationKind::FunctionExit {
                if let Some(&entry) = active.last() {
                    let written = effects.globals(func);
                    let result = f.return_var.and_then(|rv| {
                        let float = program.variable(rv).ty.is_float();
                        node.state.get(rv).filter(|_| !float).map(|c| (rv, c))
                    });
                    let returned = result
                        .into_iter()
                        .chain(
                            known(&node.state, program, |_| true)
                                .into_iter()
                                .filter(|(v, _)| written.contains(v)),
                        )
                        .collect();
                    let pre = entry_values(&arg.node(entry).state, func);
                    pairs.entry(func).or_default().insert((pre, returned));
                }
            }
        }
        match node.status {
            NodeStatus::Removed => continue,
            NodeStatus::CoveredBy(by) => {
                work.push((by, active));
                continue;
            }
            _ => {}
        }
        for &(step, child) in &node.children {
            let mut below = active.clone();
            match step {
                Step::Edge(e) if matches!(program.edge(e).op, Operation::Call { .. }) => below.push(child),
                Step::Return { .. } => {
                    below.pop();
                }
                Step::Edge(_) => {}
            }
            work.push((child, below));
        }
    }
    let equal = |v: VarId, c: i128, old: bool| {
        let name = &program.variable(v).source_name;
        if old {
            format!("\\old({name}) == {}", constant(program, v, c))
        } else {
            format!("{name} == {}", constant(program, v, c))
        }
    };
    (0..program.functions.len())
        .filter(|&i| recursive[i])
        .map(|i| {
            let function = FuncId(i as u32);
            let rv = program.function(function).return_var;
            let cube = |values: &[(VarId, i128)]| {
                conjunction(values.iter().map(|&(v, c)| equal(v, c, false)).collect())
            };
            let requires = disjunction(entries.get(&function).into_iter().flatten().map(|s| cube(s)));
            let ensures = disjunction(pairs.get(&function).into_iter().flatten().map(|(pre, post)| {
                let olds = pre.iter().map(|&(v, c)| equal(v, c, true));
                let news = post.iter().map(|&(v, c)| {
                    if Some(v) == rv {
                        format!("\\result == {}", constant(program, v, c))
                    } else {
                        equal(v, c, false)
                    }
                });
                conjunction(olds.chain(news).collect())
            }));
            ContractText {
                function,
                requires,
                ensures,
            }
        })
        .collect()
}
