//! Human-readable renderings of a program's CFAs: Graphviz (DOT) and a text listing.

use super::expr::Expr;
use super::{LocationKind, Program};
use std::fmt::Write;

/// Escapes a string for a double-quoted DOT label.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// The whole program as one DOT digraph: one cluster per function; loop heads are drawn as
/// double circles, error locations red, the entry bold and exits/terminals as boxes.
pub fn to_dot(program: &Program) -> String {
    let mut out = String::from("digraph cfa {\n  node [shape=circle, fontsize=10];\n");
    for (fi, f) in program.functions.iter().enumerate() {
        let _ = writeln!(out, "  subgraph cluster_{fi} {{");
        let _ = writeln!(out, "    label=\"{}\";", escape(&f.name));
        for &l in &f.locations {
            let loc = program.location(l);
            let mut attrs = Vec::new();
            let mut label = l.to_string();
            if let Some(name) = &loc.label {
                label = format!("{label}\\n{}", escape(name));
            }
            attrs.push(format!("label=\"{label}\""));
            match loc.kind {
                LocationKind::Error => {
                    attrs.push("color=red".into());
                    attrs.push("style=filled".into());
                    attrs.push("fillcolor=\"#ffcccc\"".into());
                }
                LocationKind::FunctionExit | LocationKind::Terminal => attrs.push("shape=box".into()),
                LocationKind::Normal => {}
            }
            if loc.loop_head {
                attrs.push("shape=doublecircle".into());
                attrs.push("color=blue".into());
            }
            if l == f.entry {
                attrs.push("penwidth=2".into());
            }
            let _ = writeln!(out, "    {l} [{}];", attrs.join(", "));
        }
        let _ = writeln!(out, "  }}");
    }
    for e in &program.edges {
        let text = program.render_operation(&e.op);
        let _ = writeln!(
            out,
            "  {} -> {} [label=\"{}: {}\"];",
            e.from,
            e.to,
            e.source.line,
            escape(&text)
        );
    }
    out.push_str("}\n");
    out
}

/// A plain-text listing: the globals with their initial values, then per function its locations (entry, exit, error, terminal, loop
/// heads, labels) and edges as `N3 -> N4  line 12: x = (x + 1);`, then a summary line.
pub fn listing(program: &Program) -> String {
    let mut out = String::new();
    for (id, v) in program.globals() {
        let value = |x: i128| Expr::constant(x, v.ty).to_string();
        let init = match &v.array {
            None => value(v.initial),
            Some(a) => {
                let elements: Vec<String> = a
                    .initial
                    .iter()
                    .map(|(at, x)| format!("[{at}] = {}", value(*x)))
                    .collect();
                format!("{{{}}}", elements.join(", "))
            }
        };
        let _ = writeln!(
            out,
            "global {} {} = {init};",
            v.ty.c_name(program.data_model),
            program.declarator(id),
        );
    }
    for f in &program.functions {
        let ret = match f.return_type {
            Some(t) => t.c_name(program.data_model),
            None => "void",
        };
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| program.variable(*p).name.clone())
            .collect();
        let _ = writeln!(out, "function {ret} {}({}):", f.name, params.join(", "));
        for &l in &f.locations {
            let loc = program.location(l);
            let mut marks = Vec::new();
            if l == f.entry {
                marks.push("entry".to_string());
            }
            match loc.kind {
                LocationKind::FunctionExit => marks.push("exit".into()),
                LocationKind::Error => marks.push("error".into()),
                LocationKind::Terminal => marks.push("terminal".into()),
                LocationKind::Normal => {}
            }
            if loc.loop_head {
                marks.push("loop head".into());
            }
            if let Some(label) = &loc.label {
                marks.push(format!("label {label}"));
            }
            if !marks.is_empty() {
                let _ = writeln!(out, "  {l}  [{}]", marks.join(", "));
            }
        }
        for &l in &f.locations {
            for &e in program.out_edges(l) {
                let edge = program.edge(e);
                let _ = writeln!(
                    out,
                    "  {} -> {}  line {}: {}",
                    edge.from,
                    edge.to,
                    edge.source.line,
                    program.render_operation(&edge.op)
                );
            }
        }
    }
    let loop_heads = program.locations.iter().filter(|l| l.loop_head).count();
    let _ = writeln!(
        out,
        "{} functions, {} locations, {} edges, {} loop heads",
        program.functions.len(),
        program.locations.len(),
        program.edges.len(),
        loop_heads
    );
    out
}
