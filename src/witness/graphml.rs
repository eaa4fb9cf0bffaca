//! GraphML 1.x witnesses (sv-witnesses README-GraphML): read for tools that still write them
//! (the nondet values of a violation witness: edges with `assumption.resultfunction` =
//! `__VERIFIER_nondet_*` and `assumption` = `\result == N;`, in path order; without values,
//! its edges' `control` and assumptions as a violation sequence for the guided search), and
//! written on request (a violation witness as a path of such edges, with `control` at the
//! branches, ending in the violation node).

use super::format::{
    Action, Constraint, ContentItem, Entry, EntryType, Location, Waypoint, WaypointItem, WaypointKind,
};
use super::violation::{PathPoint, WitnessValue};
use super::{program_file, UNREACH_CALL};
use crate::cfa::types::{DataModel, IntType};
use crate::cfa::{Operation, Program};
use crate::xml::Element;
use quick_xml::escape::escape;
use std::fmt::Write;

/// True if `text` looks like a GraphML document.
pub fn is_graphml(text: &str) -> bool {
    text.contains("<graphml")
}

/// The parsed GraphML document; errors name the witness line.
fn parse_graphml(text: &str) -> Result<Element, String> {
    crate::xml::parse(text, "graphml").map_err(|e| format!("line {}: {}", e.line, e.message))
}

/// The document's `<graph>`.
fn the_graph(root: &Element) -> Result<&Element, String> {
    root.children_named("graph")
        .next()
        .ok_or_else(|| "the GraphML witness has no <graph>".to_string())
}

/// The text of an element's `<data key="key">`, trimmed.
fn data(e: &Element, key: &str) -> Option<String> {
    e.children_named("data")
        .find(|d| d.attr("key") == Some(key))
        .map(|d| d.text.trim().to_string())
}

/// The nondet values of a GraphML violation witness, in path order (edges in document order,
/// as the format's linear witnesses are written), with the line of each; errors name the
/// witness line.
pub fn graphml_values(text: &str) -> Result<Vec<WitnessValue>, String> {
    let root = parse_graphml(text)?;
    let graph = the_graph(&root)?;
    let mut values = Vec::new();
    for edge in graph.children_named("edge") {
        let Some(function) = data(edge, "assumption.resultfunction") else {
            continue;
        };
        if !function.starts_with("__VERIFIER_nondet") {
            continue;
        }
        let assumption = data(edge, "assumption").ok_or_else(|| {
            format!(
                "line {}: an edge returning from {function} has no assumption",
                edge.line
            )
        })?;
        // A `long double`'s bit pattern is the same in both data models.
        let ty = match function.strip_prefix("__VERIFIER_nondet_") {
            Some("float") => IntType::FLOAT,
            Some("double") => IntType::DOUBLE,
            Some("long_double") => DataModel::ILP32.long_double(),
            _ => IntType::LLONG,
        };
        let value = super::violation::result_value(&assumption, ty).ok_or_else(|| {
            format!(
                "line {}: assumption `{assumption}` gives no value for \\result",
                edge.line
            )
        })?;
        let line = data(edge, "startline").and_then(|l| l.parse().ok()).unwrap_or(0);
        values.push(WitnessValue { line, value });
    }
    if values.is_empty() {
        return Err("the witness gives no nondet values".into());
    }
    Ok(values)
}

/// A GraphML violation witness as a violation sequence of format 2.0, for the waypoint-guided
/// search ([`super::guided`]): its edges in document order (but those into sink nodes) up to
/// the first edge into a violation node, each `control` a `branching` waypoint, each nondet
/// `assumption` a `function_return` waypoint, the last edge's line the `target` (or the program's one call of
/// the error function, where the last edge is not at a call of it).
pub fn graphml_sequence(program: &Program, text: &str) -> Result<Entry, String> {
    let root = parse_graphml(text)?;
    let graph = the_graph(&root)?;
    let violations: Vec<&str> = graph
        .children_named("node")
        .filter(|n| data(n, "violation").as_deref() == Some("true"))
        .filter_map(|n| n.attr("id"))
        .collect();
    let sinks: Vec<&str> = graph
        .children_named("node")
        .filter(|n| data(n, "sink").as_deref() == Some("true"))
        .filter_map(|n| n.attr("id"))
        .collect();
    let program_file = program_file(program);
    let waypoint = |kind, line: u32, constraint: Option<String>| ContentItem {
        segment: Some(vec![WaypointItem {
            waypoint: Waypoint {
                kind,
                action: Action::Follow,
                location: Location {
                    file_name: program_file.clone(),
                    line,
                    column: None,
                    function: None,
                },
                constraint: constraint.map(|value| Constraint { value, format: None }),
            },
        }]),
        invariant: None,
        contract: None,
    };
    let error_lines: Vec<u32> = program
        .edges
        .iter()
        .filter(|e| e.source.file == 0 && matches!(e.op, Operation::Error { .. }))
        .map(|e| e.source.line)
        .collect();
    let mut content = Vec::new();
    for edge in graph
        .children_named("edge")
        .filter(|e| !e.attr("target").is_some_and(|t| sinks.contains(&t)))
    {
        let line: u32 = data(edge, "startline").and_then(|l| l.parse().ok()).unwrap_or(0);
        match data(edge, "control").as_deref() {
            Some("condition-true") => {
                content.push(waypoint(WaypointKind::Branching, line, Some("true".into())))
            }
            Some("condition-false") => {
                content.push(waypoint(WaypointKind::Branching, line, Some("false".into())))
            }
            _ => {}
        }
        let nondet =
            data(edge, "assumption.resultfunction").is_some_and(|f| f.starts_with("__VERIFIER_nondet"));
        if let (true, Some(assumption)) = (nondet, data(edge, "assumption")) {
            let constraint = assumption.trim().trim_end_matches(';').to_string();
            content.push(waypoint(WaypointKind::FunctionReturn, line, Some(constraint)));
        }
        if edge.attr("target").is_some_and(|t| violations.contains(&t)) {
            let target = match error_lines.as_slice() {
                _ if error_lines.contains(&line) => line,
                [only] => *only,
                _ => {
                    return Err(format!(
                        "line {}: the violation is not at a call of the error function",
                        edge.line
                    ))
                }
            };
            content.push(waypoint(WaypointKind::Target, target, None));
            return Ok(Entry {
                entry_type: EntryType::ViolationSequence,
                metadata: super::metadata(program),
                content,
            });
        }
    }
    Err("no edge of the GraphML witness leads to a violation node".into())
}

/// An integer literal of C (decimal or hexadecimal, optional minus and suffixes).
pub fn parse_int(s: &str) -> Option<i128> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let digits = digits.trim_end_matches(['u', 'U', 'l', 'L']);
    let v = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        Some(hex) => i128::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<i128>().ok()?,
    };
    Some(if neg { -v } else { v })
}

/// The keys of the violation witnesses Baton writes: (id, for, type).
const KEYS: &[(&str, &str, &str)] = &[
    ("witness-type", "graph", "string"),
    ("sourcecodelang", "graph", "string"),
    ("producer", "graph", "string"),
    ("specification", "graph", "string"),
    ("programfile", "graph", "string"),
    ("programhash", "graph", "string"),
    ("architecture", "graph", "string"),
    ("creationtime", "graph", "string"),
    ("entry", "node", "boolean"),
    ("violation", "node", "boolean"),
    ("startline", "edge", "int"),
    ("assumption", "edge", "string"),
    ("assumption.scope", "edge", "string"),
    ("assumption.resultfunction", "edge", "string"),
    ("control", "edge", "string"),
];

/// A violating run as a GraphML 1.x violation witness.
pub fn violation_graphml(program: &Program, run: &[PathPoint]) -> String {
    let mut out = String::new();
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
    out.push_str("<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n");
    for (id, domain, ty) in KEYS {
        let _ = writeln!(
            out,
            " <key attr.name=\"{id}\" attr.type=\"{ty}\" for=\"{domain}\" id=\"{id}\"/>"
        );
    }
    out.push_str(" <graph edgedefault=\"directed\">\n");
    let architecture = match program.data_model.long_bits() {
        64 => "64bit",
        _ => "32bit",
    };
    let graph_data = [
        ("witness-type", "violation_witness".to_string()),
        ("sourcecodelang", "C".into()),
        ("producer", format!("Baton {}", env!("CARGO_PKG_VERSION"))),
        (
            "specification",
            format!("CHECK( init(main()), LTL({UNREACH_CALL}) )"),
        ),
        ("programfile", program_file(program)),
        ("programhash", program.hash.clone()),
        ("architecture", architecture.into()),
        (
            "creationtime",
            humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        ),
    ];
    for (key, value) in graph_data {
        let _ = writeln!(out, "  <data key=\"{key}\">{}</data>", escape(value.as_str()));
    }
    out.push_str("  <node id=\"N0\">\n   <data key=\"entry\">true</data>\n  </node>\n");
    let mut node = 0;
    for p in run {
        node += 1;
        if p.is_target() {
            let _ = writeln!(
                out,
                "  <node id=\"N{node}\">\n   <data key=\"violation\">true</data>\n  </node>"
            );
        } else {
            let _ = writeln!(out, "  <node id=\"N{node}\"/>");
        }
        let _ = writeln!(out, "  <edge source=\"N{}\" target=\"N{node}\">", node - 1);
        let _ = writeln!(out, "   <data key=\"startline\">{}</data>", p.at.line);
        if let Some(taken) = p.branch {
            let control = if taken {
                "condition-true"
            } else {
                "condition-false"
            };
            let _ = writeln!(out, "   <data key=\"control\">{control}</data>");
        }
        if let Some(v) = p.value_c() {
            let _ = writeln!(out, "   <data key=\"assumption\">\\result == {v};</data>");
            let _ = writeln!(
                out,
                "   <data key=\"assumption.scope\">{}</data>",
                escape(p.function.as_str())
            );
            let _ = writeln!(
                out,
                "   <data key=\"assumption.resultfunction\">{}</data>",
                escape(p.callee.as_str())
            );
        }
        out.push_str("  </edge>\n");
    }
    out.push_str(" </graph>\n</graphml>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graphml_violation_witness() {
        // Written after the SV-COMP GraphML format (sv-witnesses README-GraphML.md).
        let w = r#"<?xml version="1.0"?><graphml><graph edgedefault="directed">
<node id="N0"><data key="entry">true</data></node>
<edge source="N0" target="N1"><data key="startline">4</data><data key="assumption">\result == 7;</data><data key="assumption.resultfunction">__VERIFIER_nondet_int</data></edge>
<edge source="N1" target="N2"><data key="assumption">x == 7;</data></edge>
<edge source="N2" target="N3"><data key="assumption">\result == -3;</data><data key="assumption.resultfunction">__VERIFIER_nondet_long</data></edge>
</graph></graphml>"#;
        let values: Vec<i128> = graphml_values(w).unwrap().iter().map(|v| v.value).collect();
        assert_eq!(values, vec![7, -3]);
        assert!(graphml_values("<graphml><graph></graph></graphml>").is_err());
        let err = graphml_values("<graphml>\n<graph>\n<edge></graph></graphml>").unwrap_err();
        assert!(err.starts_with("line "), "{err}");
    }
}
