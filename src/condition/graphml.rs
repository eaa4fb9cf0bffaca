//! Condition automata as GraphML in the style of SV-COMP witnesses.
//!
//! Graph data: `witness-type` = `condition_automaton`, `sourcecodelang` = `C`, `producer` =
//! `Baton`, `programhash` = SHA-256 of the program file, `programfile`, and the Baton key
//! `statecut`, one per state cut ([`state_cut`], as its text).
//! Node data: `entry` (true for the initial state) and the Baton key `accepting` (true for
//! accepting states; SV-COMP's `violation`/`sink` keys describe violation witnesses and do not
//! fit conditions). The node id is the state name.
//! Edge data (one GraphML edge per transition): `startline`/`endline` (min/max source line of
//! the transition's CFA edges), `control` (`condition-true`/`condition-false` when all its CFA
//! edges are assume edges of that branch), `assumption` (only when not `true`),
//! `enterFunction` (callee, when all are calls of one function), `returnFrom` (function, when all
//! are returns of one function), the Baton key `cfaedges`: the exact CFA edge ids, space
//! separated, so a Baton-written condition maps back exactly, and the Baton key `cut`
//! (`infeasible` or `state-cut`, [`Cut`]).
//!
//! Reading a file without `cfaedges` (written by another tool) resolves the CFA edge of a
//! transition by `startline`, narrowed by `control`, `enterFunction` and `returnFrom`. Matching
//! by line can only be trusted when it is unique: naming too many CFA edges would make the
//! condition cover more paths, which is unsound for the residual program. So when more than
//! one CFA edge is left on the line, reading fails with `ambiguous edge at line N` instead of
//! guessing. Any `assumption` other than `true` is read as `false` (never followed).

use super::{
    edge_function, is_assume_branch, state_cut, Assumption, ConditionAutomaton, ConditionError,
    ConditionState, Cut, StateId, Transition,
};
use crate::cfa::{EdgeId, Operation, Program};
use crate::xml::Element;
use quick_xml::escape::escape;
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::io::{self, Write};

/// The keys: (id, attr.name, for, type). `entry` is named `isEntryNode` as in SV-COMP.
const KEYS: &[(&str, &str, &str, &str)] = &[
    ("witness-type", "witness-type", "graph", "string"),
    ("statecut", "statecut", "graph", "string"),
    ("sourcecodelang", "sourcecodelang", "graph", "string"),
    ("producer", "producer", "graph", "string"),
    ("programfile", "programfile", "graph", "string"),
    ("programhash", "programhash", "graph", "string"),
    ("entry", "isEntryNode", "node", "boolean"),
    ("accepting", "accepting", "node", "boolean"),
    ("startline", "startline", "edge", "int"),
    ("endline", "endline", "edge", "int"),
    ("control", "control", "edge", "string"),
    ("assumption", "assumption", "edge", "string"),
    ("enterFunction", "enterFunction", "edge", "string"),
    ("returnFrom", "returnFrom", "edge", "string"),
    ("cfaedges", "cfaedges", "edge", "string"),
    ("cut", "cut", "edge", "string"),
];

/// Writes `automaton` as GraphML (see the module doc for the keys).
pub fn write_graphml(automaton: &ConditionAutomaton, program: &Program) -> String {
    super::to_text(|out| write_graphml_to(out, automaton, program))
}

/// Streams `automaton` as GraphML into `out`. Linear in the automaton and without allocations
/// per transition beyond escaping: conditions of big ARGs are written inside the analysis'
/// budget.
pub fn write_graphml_to(
    out: &mut impl Write,
    automaton: &ConditionAutomaton,
    program: &Program,
) -> io::Result<()> {
    out.write_all(b"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n")?;
    out.write_all(b"<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n")?;
    for (id, name, domain, ty) in KEYS {
        write!(
            out,
            " <key attr.name=\"{name}\" attr.type=\"{ty}\" for=\"{domain}\" id=\"{id}\"",
        )?;
        if *ty == "boolean" {
            out.write_all(b">\n  <default>false</default>\n </key>\n")?;
        } else {
            out.write_all(b"/>\n")?;
        }
    }
    out.write_all(b" <graph edgedefault=\"directed\">\n")?;
    let data = |out: &mut dyn Write, indent: &str, key: &str, value: &dyn fmt::Display| {
        writeln!(out, "{indent}<data key=\"{key}\">{value}</data>")
    };
    data(out, "  ", "witness-type", &"condition_automaton")?;
    data(out, "  ", "sourcecodelang", &"C")?;
    data(out, "  ", "producer", &"Baton")?;
    if let Some(file) = program.files.first() {
        data(out, "  ", "programfile", &escape(file.as_str()))?;
    }
    data(out, "  ", "programhash", &escape(automaton.program_hash.as_str()))?;
    for cut in &automaton.state_cuts {
        data(out, "  ", "statecut", &escape(cut.render(program).as_str()))?;
    }
    for (i, s) in automaton.states.iter().enumerate() {
        writeln!(out, "  <node id=\"{}\">", escape(s.name.as_str()))?;
        if i == automaton.initial.index() {
            data(out, "   ", "entry", &"true")?;
        }
        if s.accepting {
            data(out, "   ", "accepting", &"true")?;
        }
        out.write_all(b"  </node>\n")?;
    }
    let name = |q: StateId| automaton.states.get(q.index()).map_or("", |s| s.name.as_str());
    for t in &automaton.transitions {
        writeln!(
            out,
            "  <edge source=\"{}\" target=\"{}\">",
            escape(name(t.from)),
            escape(name(t.to))
        )?;
        let known = || {
            t.edges
                .iter()
                .filter(|e| e.index() < program.edges.len())
                .map(|&e| program.edge(e))
        };
        let lines = known().map(|edge| edge.source.line);
        if let (Some(min), Some(max)) = (lines.clone().min(), lines.max()) {
            data(out, "   ", "startline", &min)?;
            data(out, "   ", "endline", &max)?;
        }
        if t.edges.first().is_some() && known().count() == t.edges.len() {
            let ops = || known().map(|edge| &edge.op);
            if ops().all(|op| is_assume_branch(op, true)) {
                data(out, "   ", "control", &"condition-true")?;
            } else if ops().all(|op| is_assume_branch(op, false)) {
                data(out, "   ", "control", &"condition-false")?;
            }
            // The one function all edges call, or return from.
            let callee = |op: &Operation| match op {
                Operation::Call { callee, .. } => Some(program.function(*callee).name.as_str()),
                _ => None,
            };
            if let Some(name) = same_for_all(ops().map(callee)) {
                data(out, "   ", "enterFunction", &escape(name))?;
            }
            let returned = |e: EdgeId| match program.edge(e).op {
                Operation::Return { .. } => Some(edge_function(program, e)),
                _ => None,
            };
            if let Some(name) = same_for_all(t.edges.iter().map(|&e| returned(e))) {
                data(out, "   ", "returnFrom", &escape(name))?;
            }
        }
        if t.assumption != Assumption::True {
            data(out, "   ", "assumption", &"false")?;
        }
        if let Some(word) = t.cut.word() {
            data(out, "   ", "cut", &word)?;
        }
        out.write_all(b"   <data key=\"cfaedges\">")?;
        for (i, e) in t.edges.iter().enumerate() {
            if i > 0 {
                out.write_all(b" ")?;
            }
            write!(out, "{}", e.0)?;
        }
        out.write_all(b"</data>\n  </edge>\n")?;
    }
    out.write_all(b" </graph>\n</graphml>\n")
}

/// The value every item has, if all are `Some` of the same value (and there is one).
fn same_for_all<'a>(mut items: impl Iterator<Item = Option<&'a str>>) -> Option<&'a str> {
    let first = items.next()??;
    items.all(|x| x == Some(first)).then_some(first)
}

/// Parses the XML of a condition file; errors carry `file:line`.
fn parse_xml(text: &str, file: &str) -> Result<Element, ConditionError> {
    crate::xml::parse(text, "graphml").map_err(|e| ConditionError::Parse {
        file: file.to_string(),
        line: e.line,
        message: e.message,
    })
}

/// Reads a GraphML condition for `program` (see the module doc) and validates it.
pub fn read_graphml(
    text: &str,
    source_name: &str,
    program: &Program,
) -> Result<ConditionAutomaton, ConditionError> {
    let err = |line: usize, message: String| ConditionError::Parse {
        file: source_name.to_string(),
        line,
        message,
    };
    let root = parse_xml(text, source_name)?;
    // key id -> attr.name
    let mut key_names: HashMap<String, String> = HashMap::new();
    for k in root.children_named("key") {
        if let Some(id) = k.attr("id") {
            let name = k.attr("attr.name").unwrap_or(id);
            key_names.insert(id.to_string(), name.to_string());
        }
    }
    let data_of = |el: &Element| -> Vec<(String, String, usize)> {
        el.children_named("data")
            .map(|d| {
                let key = d.attr("key").unwrap_or("");
                let name = key_names.get(key).map(String::as_str).unwrap_or(key);
                (name.to_string(), d.text.trim().to_string(), d.line)
            })
            .collect()
    };
    let mut graphs = root.children_named("graph");
    let graph = graphs
        .next()
        .ok_or_else(|| err(root.line, "no <graph> element".into()))?;
    if let Some(g) = graphs.next() {
        return Err(err(g.line, "more than one <graph> element".into()));
    }
    let mut hash = None;
    let mut cut_texts = Vec::new();
    for (name, value, line) in data_of(graph) {
        match name.as_str() {
            "programhash" => hash = Some(value),
            "statecut" => cut_texts.push((value, line)),
            "witness-type" if value != "condition_automaton" => {
                return Err(err(
                    line,
                    format!("witness-type is `{value}`, expected `condition_automaton`"),
                ))
            }
            _ => {}
        }
    }
    let program_hash = match hash {
        Some(h) => {
            if !h.eq_ignore_ascii_case(&program.hash) {
                return Err(ConditionError::WrongProgram {
                    condition: source_name.to_string(),
                    program: program.files.first().cloned().unwrap_or_default(),
                    expected: h,
                    found: program.hash.clone(),
                });
            }
            program.hash.clone()
        }
        None => {
            return Err(err(
                graph.line,
                "no `programhash` graph data: cannot tell which program the condition is for".into(),
            ))
        }
    };
    let state_cuts = cut_texts
        .iter()
        .map(|(text, line)| state_cut::parse(text, program).map_err(|m| err(*line, m)))
        .collect::<Result<Vec<_>, _>>()?;
    let truthy = |v: &str| v.eq_ignore_ascii_case("true");
    let mut states = Vec::new();
    let mut ids: HashMap<String, StateId> = HashMap::new();
    let mut initial = None;
    for node in graph.children_named("node") {
        let id = node
            .attr("id")
            .ok_or_else(|| err(node.line, "<node> without id".into()))?
            .to_string();
        let q = StateId(states.len() as u32);
        if ids.insert(id.clone(), q).is_some() {
            return Err(err(node.line, format!("node id `{id}` is used twice")));
        }
        let mut accepting = false;
        for (name, value, line) in data_of(node) {
            match name.as_str() {
                "entry" | "isEntryNode" if truthy(&value) => {
                    if initial.is_some() {
                        return Err(err(line, format!("second entry node `{id}`")));
                    }
                    initial = Some(q);
                }
                "accepting" | "isAcceptingNode" => accepting = truthy(&value),
                _ => {}
            }
        }
        states.push(ConditionState { name: id, accepting });
    }
    let initial = initial.ok_or_else(|| err(graph.line, "no entry node".into()))?;
    let mut transitions = Vec::new();
    for edge in graph.children_named("edge") {
        let node_ref = |attr: &str| -> Result<StateId, ConditionError> {
            let id = edge
                .attr(attr)
                .ok_or_else(|| err(edge.line, format!("<edge> without {attr}")))?;
            ids.get(id)
                .copied()
                .ok_or_else(|| err(edge.line, format!("unknown node id `{id}` in {attr}")))
        };
        let from = node_ref("source")?;
        let to = node_ref("target")?;
        let data = data_of(edge);
        let get = |key: &str| {
            data.iter()
                .find(|(n, _, _)| n == key)
                .map(|(_, v, l)| (v.as_str(), *l))
        };
        let assumption = match get("assumption") {
            Some((v, _)) if v != "true" => Assumption::False,
            _ => Assumption::True,
        };
        let edges = match get("cfaedges") {
            Some((list, line)) => {
                let mut set = BTreeSet::new();
                for item in list.split_whitespace() {
                    let n: u32 = item
                        .parse()
                        .map_err(|_| err(line, format!("bad CFA edge id `{item}` in cfaedges")))?;
                    if n as usize >= program.edges.len() {
                        return Err(err(
                            line,
                            format!(
                                "CFA edge {n} does not exist (the program has {} edges)",
                                program.edges.len()
                            ),
                        ));
                    }
                    set.insert(EdgeId(n));
                }
                set
            }
            None => {
                BTreeSet::from([resolve_by_line(program, &get, edge.line).map_err(|m| err(edge.line, m))?])
            }
        };
        transitions.push(Transition {
            from,
            edges,
            assumption,
            to,
            cut: match get("cut") {
                None => Cut::Explored,
                Some((word, line)) => {
                    Cut::from_word(word).ok_or_else(|| err(line, format!("unknown cut `{word}`")))?
                }
            },
        });
    }
    let automaton = ConditionAutomaton {
        program_hash,
        states,
        initial,
        transitions,
        state_cuts,
    };
    automaton.validate(program)?;
    Ok(automaton)
}

/// Finds the one CFA edge a foreign transition means, by `startline` plus `control`,
/// `enterFunction` and `returnFrom`; errors unless exactly one edge is left.
fn resolve_by_line<'a>(
    program: &Program,
    get: &dyn Fn(&str) -> Option<(&'a str, usize)>,
    line: usize,
) -> Result<EdgeId, String> {
    let (start, _) =
        get("startline").ok_or_else(|| "transition has neither `cfaedges` nor `startline`".to_string())?;
    let start: u32 = start.parse().map_err(|_| format!("bad startline `{start}`"))?;
    let mut candidates: Vec<EdgeId> = program
        .edge_ids()
        .filter(|&e| {
            let edge = program.edge(e);
            edge.source.file == 0 && edge.source.line == start
        })
        .collect();
    if let Some((control, _)) = get("control") {
        let branch = match control {
            "condition-true" => true,
            "condition-false" => false,
            other => return Err(format!("unknown control value `{other}`")),
        };
        candidates.retain(|&e| is_assume_branch(&program.edge(e).op, branch));
    }
    if let Some((callee, _)) = get("enterFunction") {
        candidates.retain(|&e| {
            matches!(&program.edge(e).op, Operation::Call { callee: c, .. } if program.function(*c).name == callee)
        });
    }
    if let Some((func, _)) = get("returnFrom") {
        candidates.retain(|&e| {
            matches!(program.edge(e).op, Operation::Return { .. }) && edge_function(program, e) == func
        });
    }
    match candidates.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!(
            "no CFA edge at line {start} matches the transition (line {line} of the file)"
        )),
        many => {
            let list: Vec<String> = many
                .iter()
                .map(|&e| format!("{e} \"{}\"", program.render_operation(&program.edge(e).op)))
                .collect();
            Err(format!(
                "ambiguous edge at line {start}: the transition could mean any of {}; \
                 naming all would cover too much",
                list.join(", ")
            ))
        }
    }
}
