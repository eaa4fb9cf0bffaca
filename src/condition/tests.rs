use super::fixtures::{program, HASH};
use super::*;
use crate::cfa::EdgeId;

fn e(ids: &[u32]) -> BTreeSet<EdgeId> {
    ids.iter().map(|&i| EdgeId(i)).collect()
}

fn st(name: &str, accepting: bool) -> ConditionState {
    ConditionState {
        name: name.into(),
        accepting,
    }
}

fn tr(from: u32, edges: &[u32], assumption: Assumption, to: u32) -> Transition {
    Transition {
        from: StateId(from),
        edges: e(edges),
        assumption,
        to: StateId(to),
        cut: Cut::Explored,
    }
}

fn path(ids: &[u32]) -> Vec<EdgeId> {
    ids.iter().map(|&i| EdgeId(i)).collect()
}

/// Verified: the else branch (E3 …); given up: the then branch (E2, assumption false).
/// q0 -E0-> q1 -E1-> q2 -E2 (false)-> q3, q2 -E3-> qT (accepting, self-loop on everything).
fn example() -> ConditionAutomaton {
    ConditionAutomaton {
        program_hash: HASH.into(),
        states: vec![
            st("q0", false),
            st("q1", false),
            st("q2", false),
            st("q3", false),
            st("qT", true),
        ],
        initial: StateId(0),
        transitions: vec![
            tr(0, &[0], Assumption::True, 1),
            tr(1, &[1], Assumption::True, 2),
            tr(2, &[2], Assumption::False, 3),
            tr(2, &[3], Assumption::True, 4),
            tr(4, &(0..12).collect::<Vec<_>>(), Assumption::True, 4),
        ],
        state_cuts: Vec::new(),
    }
}

#[test]
fn covers_prefix_acceptance_and_false_assumptions() {
    let a = example();
    a.validate(&program()).unwrap();
    // else branch: covered as soon as E3 is read, whatever follows
    assert!(a.covers(&path(&[0, 1, 3])));
    assert!(a.covers(&path(&[0, 1, 3, 6, 7, 9])));
    // then branch: the transition on E2 has assumption false
    assert!(!a.covers(&path(&[0, 1, 2, 4, 5, 8, 10])));
    // a prefix that has not reached the accepting state
    assert!(!a.covers(&path(&[0, 1])));
    assert!(!a.covers(&[]));
    // run stops: no transition for E5 in q0
    assert!(!a.covers(&path(&[5, 0, 1, 3])));
}

#[test]
fn covers_nondeterminism_and_initial_accepting() {
    // q0 has two transitions on E0: one to a dead end, one towards acceptance.
    let a = ConditionAutomaton {
        program_hash: HASH.into(),
        states: vec![
            st("q0", false),
            st("dead", false),
            st("q1", false),
            st("acc", true),
        ],
        initial: StateId(0),
        transitions: vec![
            tr(0, &[0], Assumption::True, 1),
            tr(0, &[0], Assumption::True, 2),
            tr(2, &[1], Assumption::True, 3),
            tr(1, &[1], Assumption::False, 3),
        ],
        state_cuts: Vec::new(),
    };
    a.validate(&program()).unwrap();
    assert!(a.covers(&path(&[0, 1])));
    let mut c = a.cursor();
    c.step(EdgeId(0));
    assert_eq!(c.states(), &BTreeSet::from([StateId(1), StateId(2)]));
    assert!(!c.covered());
    c.step(EdgeId(1));
    assert!(c.covered());
    c.step(EdgeId(7)); // no transition: run dies, path stays covered
    assert!(c.is_dead() && c.covered());
    // step() on sets
    let runner = ConditionRunner::new(&a);
    let s = runner.step(&a.start_states(), EdgeId(0));
    assert_eq!(s.len(), 2);
    assert!(runner.step(&s, EdgeId(2)).is_empty());

    assert_eq!(a.transitions_from(StateId(0)).count(), 2);
    assert_eq!("graphml".parse::<Format>(), Ok(Format::GraphMl));
    assert_eq!(
        Format::CpaChecker.to_string().parse::<Format>(),
        Ok(Format::CpaChecker)
    );
    assert!("xml".parse::<Format>().is_err());
    let full = ConditionAutomaton::fully_verified(HASH);
    assert!(full.covers(&[]) && full.is_trivial_full() && !full.is_trivial_empty());
    let none = ConditionAutomaton::nothing_verified(HASH);
    assert!(!none.covers(&path(&[0, 1, 3])) && none.is_trivial_empty());
    // accepting state reachable only over a false assumption: covers nothing
    let blocked = ConditionAutomaton {
        program_hash: HASH.into(),
        states: vec![st("q0", false), st("acc", true)],
        initial: StateId(0),
        transitions: vec![tr(0, &[0], Assumption::False, 1)],
        state_cuts: Vec::new(),
    };
    assert!(blocked.is_trivial_empty());
    assert!(!blocked.covers(&path(&[0])));
}

#[test]
fn well_formedness_and_program_checks() {
    let mut a = example();
    a.states.push(st("back", false));
    a.transitions.push(tr(4, &[7], Assumption::True, 5));
    let err = a.check_well_formed().unwrap_err().to_string();
    assert!(err.contains("transition 5"), "{err}");
    assert!(err.contains("`qT`") && err.contains("`back`"), "{err}");

    let mut b = example();
    b.program_hash = "ff".repeat(32);
    let err = b.validate(&program()).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!(
            "condition: condition is for the program with sha256 {}",
            "ff".repeat(32)
        )),
        "{err}"
    );
    assert!(err.contains(HASH), "{err}");

    let mut c = example();
    c.transitions[0].edges.insert(EdgeId(99));
    assert!(matches!(
        c.validate(&program()),
        Err(ConditionError::UnknownEdge { index: 0, .. })
    ));

    let mut d = example();
    d.states[1].name = "q0".into();
    assert!(d.check_well_formed().is_err());
    let mut f = example();
    f.transitions[0].to = StateId(17);
    assert!(f.check_well_formed().is_err());
}

#[test]
fn union_covers_what_any_covers() {
    let a = example();
    // b verifies the then branch only
    let b = ConditionAutomaton {
        program_hash: HASH.into(),
        states: vec![st("p0", false), st("p1", false), st("p2", false), st("pT", true)],
        initial: StateId(0),
        transitions: vec![
            tr(0, &[0], Assumption::True, 1),
            tr(1, &[1], Assumption::True, 2),
            tr(2, &[2], Assumption::True, 3),
        ],
        state_cuts: Vec::new(),
    };
    let u = union(&[a.clone(), b.clone()]).unwrap();
    u.validate(&program()).unwrap();
    for p in [
        path(&[0, 1, 3]),
        path(&[0, 1, 2]),
        path(&[0, 1, 2, 4]),
        path(&[0, 1]),
        path(&[1]),
        path(&[]),
    ] {
        assert_eq!(u.covers(&p), a.covers(&p) || b.covers(&p), "{p:?}");
    }
    assert!(u.covers(&path(&[0, 1, 2])) && u.covers(&path(&[0, 1, 3])));
    let full = union(&[a.clone(), ConditionAutomaton::fully_verified(HASH)]).unwrap();
    assert!(full.is_trivial_full());
    let mut other = b;
    other.program_hash = "ab".repeat(32);
    assert!(union(&[a, other]).is_err());
    assert!(union(&[]).is_err());
}

#[test]
fn summary_counts_and_share() {
    let p = program();
    let s = example().summary(&p);
    assert_eq!(s.states, 5);
    assert_eq!(s.accepting_states, 1);
    assert_eq!(s.transitions, 5);
    assert_eq!(s.false_transitions, 1);
    assert_eq!(s.cfa_edges, 12);
    assert_eq!(s.covered_edges, 1); // only E3 leads into the accepting state
    assert!((s.covered_share() - 1.0 / 12.0).abs() < 1e-9);
    let text = s.to_string();
    assert!(text.contains("partially covered"), "{text}");
    assert!(text.contains("covered share of CFA edges: 8.3%"), "{text}");
    assert_eq!(
        ConditionAutomaton::fully_verified(HASH).summary(&p).covered_edges,
        12
    );
    let r = example().render(&p);
    assert!(r.contains("state qT (accepting)"), "{r}");
    assert!(r.contains("E3 N2→N4 fixture.c:5"), "{r}");
    assert_eq!(
        example().render_location_assumptions(&p),
        vec!["(pc = N2) ⇒ false".to_string()]
    );
}

/// A bigger automaton exercising every writer feature: multi-edge transitions, calls, returns,
/// assume branches, false assumptions, an empty transition, nondeterminism, and transitions
/// listed out of state order.
fn rich() -> ConditionAutomaton {
    ConditionAutomaton {
        program_hash: HASH.into(),
        states: vec![
            st("s0", false),
            st("s1", false),
            st("s2", false),
            st("acc", true),
            st("acc2", true),
        ],
        initial: StateId(1),
        transitions: vec![
            tr(1, &[0], Assumption::True, 0),
            tr(0, &[1], Assumption::True, 2),
            tr(2, &[2], Assumption::False, 2),
            tr(2, &[3], Assumption::True, 3),
            tr(3, &[11, 4, 5], Assumption::True, 4),
            tr(3, &[6], Assumption::True, 4),
            tr(2, &[], Assumption::False, 0),
            tr(0, &[1], Assumption::True, 3),
            tr(4, &[7, 8], Assumption::True, 4),
            tr(2, &[10], Assumption::True, 2),
        ],
        state_cuts: Vec::new(),
    }
}

#[test]
fn graphml_round_trip() {
    let p = program();
    for a in [
        example(),
        rich(),
        ConditionAutomaton::fully_verified(HASH),
        ConditionAutomaton::nothing_verified(HASH),
    ] {
        let text = graphml::write_graphml(&a, &p);
        let b = graphml::read_graphml(&text, "c.graphml", &p).unwrap();
        assert_eq!(a, b, "{text}");
        assert_eq!(parse(&text, "c.graphml", &p).unwrap(), a);
    }
    let text = graphml::write_graphml(&rich(), &p);
    assert!(text.contains("<data key=\"enterFunction\">f</data>"), "{text}");
    assert!(
        text.contains("<data key=\"control\">condition-false</data>"),
        "{text}"
    );
    assert!(text.contains("<data key=\"returnFrom\">main</data>"), "{text}");
    assert!(text.contains("<data key=\"programhash\">"), "{text}");
}

#[test]
fn cpachecker_round_trip() {
    let p = program();
    for a in [
        example(),
        rich(),
        ConditionAutomaton::fully_verified(HASH),
        ConditionAutomaton::nothing_verified(HASH),
    ] {
        let text = cpachecker::write_cpachecker(&a, &p);
        let b = cpachecker::read_cpachecker(&text, "c.spc", &p).unwrap();
        assert_eq!(a, b, "{text}");
        assert_eq!(parse(&text, "c.spc", &p).unwrap(), a);
    }
    let text = cpachecker::write_cpachecker(&example(), &p);
    assert!(
        text.contains("MATCH \"[!(main::x > 0)]\" -> GOTO qT;") || text.contains("MATCH \"[!"),
        "{text}"
    );
    assert!(text.contains("ASSUME {false} GOTO q3;"), "{text}");
}

#[test]
fn load_detects_format_from_file() {
    let p = program();
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("a.graphml", graphml::write_graphml(&rich(), &p)),
        ("a.txt", cpachecker::write_cpachecker(&rich(), &p)),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        assert_eq!(load(&path, &p).unwrap(), rich());
    }
    let err = load(&dir.path().join("missing"), &p).unwrap_err().to_string();
    assert!(err.contains("missing"), "{err}");
    assert!(parse("hello", "x", &p).is_err());
}

fn parse_err(r: Result<ConditionAutomaton, ConditionError>) -> (usize, String) {
    match r {
        Err(ConditionError::Parse { line, message, .. }) => (line, message),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn graphml_errors() {
    let p = program();
    let good = graphml::write_graphml(&example(), &p);
    // malformed XML: mismatched closing tag on a known line
    let bad = good.replacen("</node>", "</nod>", 1);
    let line = bad.lines().position(|l| l.contains("</nod>")).unwrap() + 1;
    let (l, m) = parse_err(graphml::read_graphml(&bad, "f.graphml", &p));
    assert_eq!(l, line, "{m}");
    assert!(m.contains("malformed XML"), "{m}");
    let err = graphml::read_graphml(&bad, "f.graphml", &p)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with(&format!("f.graphml:{line}: ")), "{err}");
    // unknown node id
    let bad = good.replacen("target=\"q1\"", "target=\"nope\"", 1);
    let (_, m) = parse_err(graphml::read_graphml(&bad, "f", &p));
    assert!(m.contains("unknown node id `nope`"), "{m}");
    // missing entry
    let bad = good.replacen("<data key=\"entry\">true</data>", "", 1);
    let (_, m) = parse_err(graphml::read_graphml(&bad, "f", &p));
    assert!(m.contains("no entry node"), "{m}");
    // wrong program
    let bad = good.replace(HASH, &"ee".repeat(32));
    assert!(matches!(
        graphml::read_graphml(&bad, "f", &p),
        Err(ConditionError::WrongProgram { .. })
    ));
    // bad edge id
    let bad = good.replacen(
        "<data key=\"cfaedges\">0</data>",
        "<data key=\"cfaedges\">0 x</data>",
        1,
    );
    let (_, m) = parse_err(graphml::read_graphml(&bad, "f", &p));
    assert!(m.contains("bad CFA edge id `x`"), "{m}");
    // truncated
    let (_, m) = parse_err(graphml::read_graphml(&good[..good.len() / 2], "f", &p));
    assert!(!m.is_empty());
    // not well-formed (accepting -> non-accepting)
    let bad = good.replacen(
        "<edge source=\"q0\" target=\"q1\">",
        "<edge source=\"qT\" target=\"q1\">",
        1,
    );
    assert!(matches!(
        graphml::read_graphml(&bad, "f", &p),
        Err(ConditionError::LeavesAccepting { .. })
    ));
}

/// A foreign witness-style file without `cfaedges`: edges resolved by line and control.
#[test]
fn graphml_foreign_resolution_by_line() {
    let p = program();
    let doc = |edges: &str| {
        format!(
            r#"<?xml version="1.0"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
 <key attr.name="programhash" for="graph" id="k1"/>
 <key attr.name="isEntryNode" for="node" id="entry"/>
 <key attr.name="accepting" for="node" id="k3"/>
 <key attr.name="startline" for="edge" id="startline"/>
 <key attr.name="control" for="edge" id="control"/>
 <key attr.name="enterFunction" for="edge" id="enterFunction"/>
 <graph edgedefault="directed">
  <data key="k1">{HASH}</data>
  <node id="A"><data key="entry">true</data></node>
  <node id="B"/>
  <node id="T"><data key="k3">true</data></node>
  {edges}
 </graph>
</graphml>
"#
        )
    };
    let ok = doc(
        r#"<edge source="A" target="B"><data key="startline">4</data></edge>
  <edge source="B" target="T"><data key="startline">5</data><data key="control">condition-false</data></edge>
  <edge source="B" target="T"><data key="startline">7</data><data key="enterFunction">f</data></edge>"#,
    );
    let a = graphml::read_graphml(&ok, "w.graphml", &p).unwrap();
    assert_eq!(a.transitions[0].edges, e(&[1]));
    assert_eq!(a.transitions[1].edges, e(&[3]));
    assert_eq!(a.transitions[2].edges, e(&[6]));
    assert!(a.covers(&path(&[1, 3])));
    // line 5 without control: two assume edges -> ambiguous
    let amb = doc(r#"<edge source="A" target="T"><data key="startline">5</data></edge>"#);
    let (_, m) = parse_err(graphml::read_graphml(&amb, "w", &p));
    assert!(m.starts_with("ambiguous edge at line 5"), "{m}");
    // line 6 has two assignments
    let amb = doc(r#"<edge source="A" target="T"><data key="startline">6</data></edge>"#);
    let (_, m) = parse_err(graphml::read_graphml(&amb, "w", &p));
    assert!(m.starts_with("ambiguous edge at line 6"), "{m}");
    let none = doc(r#"<edge source="A" target="T"><data key="startline">42</data></edge>"#);
    let (_, m) = parse_err(graphml::read_graphml(&none, "w", &p));
    assert!(m.contains("no CFA edge at line 42"), "{m}");
    // a non-true assumption from another tool is read as false
    let asm = doc(r#"<edge source="A" target="T"><data key="startline">4</data><data key="assumption">x == 1;</data></edge>"#)
        .replace("<key attr.name=\"control\"", "<key attr.name=\"assumption\" for=\"edge\" id=\"assumption\"/>\n <key attr.name=\"control\"");
    let a = graphml::read_graphml(&asm, "w", &p).unwrap();
    assert_eq!(a.transitions[0].assumption, Assumption::False);
}

#[test]
fn cpachecker_errors() {
    let p = program();
    let good = cpachecker::write_cpachecker(&example(), &p);
    let line_of = |text: &str, needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let bad = good.replacen("GOTO q1;", "GOTO q1", 1);
    let (l, m) = parse_err(cpachecker::read_cpachecker(&bad, "a.txt", &p));
    assert_eq!(l, line_of(&bad, "STATE q1"), "{m}");
    assert!(m.contains("expected `;`, found `STATE`"), "{m}");
    let bad = good.replacen("GOTO q1;", "GOTO nowhere;", 1);
    let (l, m) = parse_err(cpachecker::read_cpachecker(&bad, "a.txt", &p));
    assert_eq!(l, line_of(&bad, "nowhere"));
    assert!(m.contains("undeclared state `nowhere`"), "{m}");
    let bad = good.replacen("edge 0", "edge 1", 1);
    let (_, m) = parse_err(cpachecker::read_cpachecker(&bad, "a.txt", &p));
    assert!(m.contains("CFA edge 1 is"), "{m}");
    let bad = good.replace(HASH, &"ee".repeat(32));
    assert!(matches!(
        cpachecker::read_cpachecker(&bad, "a", &p),
        Err(ConditionError::WrongProgram { .. })
    ));
    let bad = good.replacen("MATCH \"", "MATCH {", 1);
    assert!(cpachecker::read_cpachecker(&bad, "a", &p).is_err());
    let bad = good.replacen("END AUTOMATON", "", 1);
    let (_, m) = parse_err(cpachecker::read_cpachecker(&bad, "a", &p));
    assert!(m.contains("end of file"), "{m}");
    let bad = good.replacen("-> GOTO", "-> DO foo GOTO", 1);
    let (_, m) = parse_err(cpachecker::read_cpachecker(&bad, "a", &p));
    assert!(m.contains("unsupported action"), "{m}");
}

/// A file in the shape CPAchecker writes (no Baton comments, USEFIRST, defaults).
#[test]
fn cpachecker_foreign_file() {
    let p = program();
    let text = r#"OBSERVER AUTOMATON AssumptionAutomaton

INITIAL STATE ARG0;

STATE __TRUE :
    TRUE -> GOTO __TRUE;

STATE __FALSE :
    TRUE -> ASSUME {false} GOTO __FALSE;

STATE USEFIRST ARG0 :
    MATCH "int x;" -> GOTO ARG1;
    TRUE -> GOTO __TRUE;

STATE USEFIRST ARG1 :
    MATCH "x = __VERIFIER_nondet_int();" -> GOTO ARG2;
    TRUE -> GOTO __TRUE;

STATE USEFIRST ARG2 :
    MATCH "[x > 0]" -> ASSUME {x * x > 4} GOTO ARG3;
    MATCH "[!(x > 0)]" -> GOTO __FALSE;
    TRUE -> GOTO __TRUE;

STATE USEFIRST ARG3 :
    MATCH "x = 1;" -> GOTO __FALSE;
    TRUE -> GOTO __TRUE;

END AUTOMATON
"#;
    let a = cpachecker::read_cpachecker(text, "AssumptionAutomaton.txt", &p).unwrap();
    let acc: Vec<&str> = a
        .states
        .iter()
        .filter(|s| s.accepting)
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(acc, vec!["__TRUE"]);
    assert_eq!(a.state_name(a.initial), "ARG0");
    // the else branch goes to __FALSE: not covered
    assert!(!a.covers(&path(&[0, 1, 3, 6])));
    // the then branch has a non-true assumption: not covered
    assert!(!a.covers(&path(&[0, 1, 2, 4, 5])));
    // an edge not matched in ARG0 falls to the default: covered
    assert!(a.covers(&path(&[1])));
    // the default of ARG2 excludes the two matched edges
    let arg2 = a.state_by_name("ARG2").unwrap();
    let default = a
        .transitions
        .iter()
        .find(|t| t.from == arg2 && t.to == a.state_by_name("__TRUE").unwrap())
        .unwrap();
    assert!(!default.edges.contains(&EdgeId(2)) && !default.edges.contains(&EdgeId(3)));
    assert_eq!(default.edges.len(), 10);

    // unknown statement text leading to __FALSE: error (dropping it would cover the edge)
    let bad = text.replace("MATCH \"x = 1;\"", "MATCH \"y = 1;\"");
    let (l, m) = parse_err(cpachecker::read_cpachecker(&bad, "a", &p));
    assert_eq!(l, bad.lines().position(|x| x.contains("y = 1")).unwrap() + 1);
    assert!(m.contains("names no CFA edge"), "{m}");
    // unknown statement text leading to __TRUE: dropped (sound)
    let ok = text.replace(
        "MATCH \"int x;\" -> GOTO ARG1;",
        "MATCH \"int x;\" -> GOTO ARG1;\n    MATCH \"INIT GLOBAL VARS\" -> GOTO __TRUE;",
    );
    assert!(cpachecker::read_cpachecker(&ok, "a", &p).is_ok());
}

#[test]
fn cpachecker_ambiguity() {
    let p = program();
    let text = r#"OBSERVER AUTOMATON AssumptionAutomaton
INITIAL STATE A;
STATE __TRUE :
    TRUE -> GOTO __TRUE;
STATE A :
    MATCH "x=1;" -> GOTO B;
STATE B :
    MATCH "x = 3 ;" -> GOTO __TRUE;
END AUTOMATON
"#;
    let a = cpachecker::read_cpachecker(text, "a", &p).unwrap();
    assert!(a.covers(&path(&[4, 5])));
    assert!(!a.covers(&path(&[4])));
    // not USEFIRST: a TRUE line means every edge
    let t2 = text.replace("MATCH \"x=1;\" -> GOTO B;", "TRUE -> GOTO B;");
    let b = cpachecker::read_cpachecker(&t2, "a", &p).unwrap();
    assert!(b.covers(&path(&[7, 5])));

    // a second `x = 1;` edge makes the text ambiguous
    let mut p2 = program();
    let mut dup = p2.edges[4].clone();
    dup.from = crate::cfa::LocId(8);
    dup.to = crate::cfa::LocId(8);
    dup.source.line = 9;
    p2.edges.push(dup);
    let p2 = p2.finish();
    let (l, m) = parse_err(cpachecker::read_cpachecker(text, "a", &p2));
    assert_eq!(l, 6);
    assert!(m.starts_with("ambiguous edge at line 6, 9"), "{m}");
    // with a default into the accepting state naming both is harmless
    let t3 = text.replace(
        "MATCH \"x=1;\" -> GOTO B;",
        "MATCH \"x=1;\" -> GOTO B;\n    TRUE -> GOTO __TRUE;",
    );
    let c = cpachecker::read_cpachecker(&t3, "a", &p2).unwrap();
    assert_eq!(c.transitions.iter().filter(|t| t.edges.len() == 2).count(), 1);
}

/// Def. 2.2 literally: is there a run on some prefix ending in an accepting state, with every
/// transition reading the path's edge and having assumption true?
fn covers_by_definition(a: &ConditionAutomaton, path: &[EdgeId]) -> bool {
    fn search(a: &ConditionAutomaton, path: &[EdgeId], q: StateId) -> bool {
        if a.is_accepting(q) {
            return true;
        }
        let Some((&g, rest)) = path.split_first() else {
            return false;
        };
        a.transitions.iter().any(|t| {
            t.from == q && t.edges.contains(&g) && t.assumption == Assumption::True && search(a, rest, t.to)
        })
    }
    search(a, path, a.initial)
}

/// Random well-formed automata and random paths: the set simulation agrees with Def. 2.2,
/// and both formats keep the meaning.
#[test]
fn covers_agrees_with_definition_on_random_automata() {
    let p = program();
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut previous: Option<ConditionAutomaton> = None;
    for round in 0..300 {
        let n = 1 + next(5) as u32;
        let states: Vec<ConditionState> = (0..n).map(|i| st(&format!("r{i}"), next(4) == 0)).collect();
        let mut transitions = Vec::new();
        for _ in 0..next(10) {
            let from = next(n as u64) as u32;
            let mut to = next(n as u64) as u32;
            if states[from as usize].accepting && !states[to as usize].accepting {
                to = from;
            }
            let edges: Vec<u32> = (0..1 + next(3)).map(|_| next(4) as u32).collect();
            let assumption = if next(5) == 0 {
                Assumption::False
            } else {
                Assumption::True
            };
            transitions.push(tr(from, &edges, assumption, to));
        }
        let a = ConditionAutomaton {
            program_hash: HASH.into(),
            states,
            initial: StateId(next(n as u64) as u32),
            transitions,
            state_cuts: Vec::new(),
        };
        a.validate(&p).unwrap();
        let g = graphml::read_graphml(&graphml::write_graphml(&a, &p), "r", &p).unwrap();
        let c = cpachecker::read_cpachecker(&cpachecker::write_cpachecker(&a, &p), "r", &p).unwrap();
        for _ in 0..20 {
            let path: Vec<EdgeId> = (0..next(6)).map(|_| EdgeId(next(4) as u32)).collect();
            let expected = covers_by_definition(&a, &path);
            assert_eq!(a.covers(&path), expected, "round {round}: {a:?} {path:?}");
            assert_eq!(g.covers(&path), expected);
            assert_eq!(c.covers(&path), expected);
            if let Some(prev) = &previous {
                let u = union(&[prev.clone(), a.clone()]).unwrap();
                assert_eq!(u.covers(&path), expected || prev.covers(&path));
            }
        }
        previous = Some(a);
    }
}

/// Rendering, writing and summarising are linear in the automaton: a chain of 200,000 states
/// (as the condition of a big ARG) is handled; a pass over all transitions per state would
/// take 4·10¹⁰ steps.
#[test]
fn large_conditions_render_and_write_in_linear_time() {
    let p = program();
    let n = 200_000u32;
    let mut states: Vec<ConditionState> = (0..n).map(|i| st(&format!("q{i}"), false)).collect();
    states.push(st("qT", true));
    let transitions = (0..n)
        .map(|i| tr(i, &[i % 11], Assumption::True, if i + 1 < n { i + 1 } else { n }))
        .collect();
    let a = ConditionAutomaton {
        program_hash: HASH.into(),
        states,
        initial: StateId(0),
        transitions,
        state_cuts: Vec::new(),
    };
    let rendered = a.render(&p);
    assert_eq!(rendered.matches("  -> ").count(), n as usize);
    let g = graphml::write_graphml(&a, &p);
    assert_eq!(g.matches("<edge ").count(), n as usize);
    let c = cpachecker::write_cpachecker(&a, &p);
    assert_eq!(c.matches("MATCH ").count(), n as usize);
    let s = a.summary(&p);
    assert!(!s.covers_nothing && s.transitions == n as usize);
}
