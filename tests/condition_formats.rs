//! Condition automata on real C programs: round trips through both file formats, foreign-file
//! resolution against frontend CFAs, and a round trip for every shared benchmark task
//! (skipped with a reason when `BATON_SV_BENCHMARKS` is unset).

use baton::cfa::types::DataModel;
use baton::cfa::{EdgeId, LocId, Operation, Program};
use baton::condition::{
    cpachecker, graphml, Assumption, ConditionAutomaton, ConditionState, Cut, StateId, Transition,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// A nontrivial condition following a DFS prefix of the CFA: one state per explored location
/// (at most `limit`), transitions along CFA edges (calls also into the callee's entry,
/// nondeterministically); edges leaving the explored part go, depending on the edge id, to an
/// accepting sink, to a give-up state with assumption false, or nowhere. The accepting sink
/// moves on some edges to a second accepting state with a self-loop on all edges.
fn dfs_condition(program: &Program, limit: usize) -> ConditionAutomaton {
    let mut order: Vec<LocId> = Vec::new();
    let mut seen = BTreeSet::new();
    let mut stack = vec![program.main().entry];
    while let Some(loc) = stack.pop() {
        if order.len() >= limit || !seen.insert(loc) {
            continue;
        }
        order.push(loc);
        for &e in program.out_edges(loc).iter().rev() {
            let edge = program.edge(e);
            stack.push(edge.to);
            if let Operation::Call { callee, .. } = edge.op {
                stack.push(program.function(callee).entry);
            }
        }
    }
    let index: HashMap<LocId, u32> = order.iter().enumerate().map(|(i, &l)| (l, i as u32)).collect();
    let mut states: Vec<ConditionState> = order
        .iter()
        .map(|l| ConditionState {
            name: format!("L{}", l.0),
            accepting: false,
        })
        .collect();
    let n = states.len() as u32;
    let (acc, acc2, give_up) = (StateId(n), StateId(n + 1), StateId(n + 2));
    for (name, accepting) in [("acc", true), ("acc2", true), ("give_up", false)] {
        states.push(ConditionState {
            name: name.into(),
            accepting,
        });
    }
    // Group edges by (from, assumption, to) into multi-edge transitions.
    let mut groups: BTreeMap<(u32, bool, u32), BTreeSet<EdgeId>> = BTreeMap::new();
    for (i, &loc) in order.iter().enumerate() {
        for &e in program.out_edges(loc) {
            let edge = program.edge(e);
            let mut targets = vec![edge.to];
            if let Operation::Call { callee, .. } = edge.op {
                targets.push(program.function(callee).entry);
            }
            for to in targets {
                let key = match index.get(&to) {
                    Some(&j) => Some((i as u32, true, j)),
                    None => match e.0 % 3 {
                        0 => Some((i as u32, true, acc.0)),
                        1 => Some((i as u32, false, give_up.0)),
                        _ => None,
                    },
                };
                if let Some(k) = key {
                    groups.entry(k).or_default().insert(e);
                }
            }
        }
    }
    let mut transitions: Vec<Transition> = groups
        .into_iter()
        .map(|((from, t, to), edges)| Transition {
            from: StateId(from),
            edges,
            assumption: if t { Assumption::True } else { Assumption::False },
            to: StateId(to),
            // Some cuts marked infeasible, so both formats are seen to keep the mark.
            cut: match (t, (from + to) % 3) {
                (true, 0) => Cut::Infeasible,
                (true, 1) => Cut::InStateCut,
                _ => Cut::Explored,
            },
        })
        .collect();
    let all: BTreeSet<EdgeId> = program.edge_ids().collect();
    transitions.push(Transition {
        from: acc,
        edges: all.iter().copied().filter(|e| e.0 % 2 == 0).collect(),
        assumption: Assumption::True,
        to: acc2,
        cut: Cut::Explored,
    });
    transitions.push(Transition {
        from: acc2,
        edges: all,
        assumption: Assumption::True,
        to: acc2,
        cut: Cut::Explored,
    });
    ConditionAutomaton {
        program_hash: program.hash.clone(),
        states,
        initial: StateId(0),
        transitions,
        state_cuts: Vec::new(),
    }
}

fn round_trip(a: &ConditionAutomaton, p: &Program, what: &str) {
    a.validate(p).unwrap_or_else(|e| panic!("{what}: {e}"));
    let g = graphml::write_graphml(a, p);
    let back = graphml::read_graphml(&g, "c.graphml", p).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(&back, a, "{what}: GraphML round trip");
    let c = cpachecker::write_cpachecker(a, p);
    let back = cpachecker::read_cpachecker(&c, "c.txt", p).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(&back, a, "{what}: CPAchecker round trip");
}

const PROGRAM: &str = r#"extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "t.c", 3, "reach_error"); }
extern int __VERIFIER_nondet_int(void);
int square(int v) {
  return v * v;
}
int main() {
  int x = __VERIFIER_nondet_int();
  int y = 0;
  if (x > 3) {
    y = square(x);
  } else {
    y = x + 1;
  }
  while (y > 100) {
    y = y - 7;
  }
  if (y < -5) {
    reach_error();
  }
  return 0;
}
"#;

fn line_of(text: &str, needle: &str) -> u32 {
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| i as u32 + 1)
        .expect("needle in program")
}

#[test]
fn real_program_round_trips() {
    let p = baton::frontend::load_source("t.c", PROGRAM, DataModel::ILP32).unwrap();
    for limit in [1, 3, 8, 1000] {
        let a = dfs_condition(&p, limit);
        round_trip(&a, &p, &format!("limit {limit}"));
        assert!(!a.is_trivial_full());
        let s = a.summary(&p);
        assert_eq!(s.cfa_edges, p.edges.len());
        assert!(s.covered_edges <= s.cfa_edges);
    }
}

/// A foreign GraphML file naming edges by line and branch resolves to the right CFA edges.
#[test]
fn foreign_graphml_on_real_program() {
    let p = baton::frontend::load_source("t.c", PROGRAM, DataModel::ILP32).unwrap();
    let line = line_of(PROGRAM, "if (x > 3)");
    let doc = |control: &str| {
        format!(
            r#"<?xml version="1.0"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
 <key attr.name="programhash" for="graph" id="programhash"/>
 <key attr.name="isEntryNode" for="node" id="entry"/>
 <key attr.name="accepting" for="node" id="accepting"/>
 <key attr.name="startline" for="edge" id="startline"/>
 <key attr.name="control" for="edge" id="control"/>
 <graph edgedefault="directed">
  <data key="programhash">{}</data>
  <node id="A"><data key="entry">true</data></node>
  <node id="T"><data key="accepting">true</data></node>
  <edge source="A" target="T"><data key="startline">{line}</data>{control}</edge>
 </graph>
</graphml>
"#,
            p.hash
        )
    };
    let a = graphml::read_graphml(
        &doc(r#"<data key="control">condition-false</data>"#),
        "w.graphml",
        &p,
    )
    .unwrap();
    let edges: Vec<EdgeId> = a.transitions[0].edges.iter().copied().collect();
    assert_eq!(edges.len(), 1);
    let edge = p.edge(edges[0]);
    assert!(matches!(edge.op, Operation::Assume { branch: false, .. }));
    assert_eq!(edge.source.line, line);
    // without the branch the line has two assume edges
    let err = graphml::read_graphml(&doc(""), "w.graphml", &p)
        .unwrap_err()
        .to_string();
    assert!(err.contains(&format!("ambiguous edge at line {line}")), "{err}");
}

/// A CPAchecker-style file with source-text statements resolves against the frontend's CFA.
#[test]
fn foreign_cpachecker_on_real_program() {
    let p = baton::frontend::load_source("t.c", PROGRAM, DataModel::ILP32).unwrap();
    // Find the assume edges of `x > 3` by rendering, as CPAchecker writes `[x > 3]`.
    let text = r#"OBSERVER AUTOMATON AssumptionAutomaton
INITIAL STATE A;
STATE __TRUE :
    TRUE -> GOTO __TRUE;
STATE __FALSE :
    TRUE -> ASSUME {false} GOTO __FALSE;
STATE USEFIRST A :
    MATCH "[x > 3]" -> GOTO __FALSE;
    TRUE -> GOTO __TRUE;
END AUTOMATON
"#;
    let a = cpachecker::read_cpachecker(text, "AssumptionAutomaton.txt", &p).unwrap();
    // A (the initial state) sends the then-branch to __FALSE and everything else to __TRUE.
    let then_edge = p
        .edge_ids()
        .find(|&e| {
            matches!(p.edge(e).op, Operation::Assume { branch: true, .. })
                && p.edge(e).source.line == line_of(PROGRAM, "if (x > 3)")
        })
        .unwrap();
    assert!(!a.covers(&[then_edge]));
    let other = p.edge_ids().find(|&e| e != then_edge).unwrap();
    assert!(a.covers(&[other]));
}

/// Every shared task: load, build a nontrivial condition, round trip through both formats.
#[test]
fn every_shared_task_round_trips() {
    let Ok(root) = std::env::var("BATON_SV_BENCHMARKS") else {
        println!("skipped: BATON_SV_BENCHMARKS is not set");
        return;
    };
    let root = Path::new(&root);
    let manifest = std::fs::read_to_string(root.join("MANIFEST.csv")).expect("MANIFEST.csv");
    let mut checked = 0;
    for row in manifest.lines().skip(1) {
        let Some(yml) = row.split(',').nth(2) else {
            continue;
        };
        let task = match baton::task::Task::load(&root.join(yml), DataModel::ILP32) {
            Ok(t) => t,
            Err(e) => {
                println!("skipped {yml}: {e}");
                continue;
            }
        };
        let p = match baton::frontend::load_program(&task.program, task.data_model) {
            Ok(p) => p,
            Err(e) => {
                println!("skipped {yml}: frontend: {e}");
                continue;
            }
        };
        let a = dfs_condition(&p, 40);
        round_trip(&a, &p, yml);
        let full = dfs_condition(&p, usize::MAX);
        round_trip(&full, &p, yml);
        checked += 1;
    }
    println!("checked {checked} tasks");
    assert!(checked > 0, "no task could be loaded");
}
