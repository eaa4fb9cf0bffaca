//! Which function definitions a program can run: those `main` reaches by name.
//!
//! A function runs only if its name occurs in a function that runs (a call, or taking its
//! address, which a call through a pointer may then use) or in the initializer of a
//! file-scope object (a table of callbacks), which [`initializer_names`] gives as roots.
//! Definitions nothing reaches, such as helpers a header defines or a program leaves unused,
//! are not lowered: what they contain cannot change what the program does, so it is never a
//! reason to reject the program. The walk is syntactic and may over-approximate (a local
//! variable shadowing a function's name still counts as the function), which is only ever
//! stricter.

use lang_c::ast::{
    CallExpression, Expression, ExternalDeclaration, FunctionDefinition, Identifier, TranslationUnit,
};
use lang_c::span::{Node, Span};
use lang_c::visit::{self, Visit};
use std::collections::{HashMap, HashSet, VecDeque};

/// A reachable definition: its index in the list of definitions and where it was first
/// reached in the program's own file (`None` for `main`, and for definitions reached only from
/// code outside the program's file that was itself not reached from the program's file).
pub(crate) type Reached = HashMap<usize, Option<usize>>;

/// The definitions reachable from the one named `main`. `definitions` are (name, definition)
/// pairs with unique names; `in_program(offset)` says whether a byte offset of the
/// preprocessed text lies in the program's own file.
pub(crate) fn reachable_definitions(
    definitions: &[(String, &Node<FunctionDefinition>)],
    roots: &[(&str, usize)],
    in_program: impl Fn(usize) -> bool,
) -> Reached {
    let index: HashMap<&str, usize> = definitions
        .iter()
        .enumerate()
        .map(|(i, (name, _))| (name.as_str(), i))
        .collect();
    let mut reached = Reached::new();
    let Some(&main) = index.get("main") else {
        return reached;
    };
    reached.insert(main, None);
    let mut queue = VecDeque::from([main]);
    for &(name, offset) in roots {
        if let Some(&g) = index.get(name) {
            if let std::collections::hash_map::Entry::Vacant(e) = reached.entry(g) {
                e.insert(in_program(offset).then_some(offset));
                queue.push_back(g);
            }
        }
    }
    while let Some(f) = queue.pop_front() {
        let origin = reached.get(&f).copied().flatten();
        let mut names = Names(Vec::new());
        names.visit_statement(
            &definitions[f].1.node.statement.node,
            &definitions[f].1.node.statement.span,
        );
        for (name, offset) in names.0 {
            if let Some(&g) = index.get(name) {
                if let std::collections::hash_map::Entry::Vacant(e) = reached.entry(g) {
                    e.insert(if in_program(offset) { Some(offset) } else { origin });
                    queue.push_back(g);
                }
            }
        }
    }
    reached
}

/// Every identifier in a body with its byte offset, in order.
struct Names<'ast>(Vec<(&'ast str, usize)>);

impl<'ast> Visit<'ast> for Names<'ast> {
    fn visit_identifier(&mut self, identifier: &'ast Identifier, span: &'ast Span) {
        self.0.push((identifier.name.as_str(), span.start));
    }
}

/// The names used as values in the initializers of file-scope declarations, with their byte
/// offsets: functions among them are reachable (through a pointer) whatever `main` calls.
pub(crate) fn initializer_names(unit: &TranslationUnit) -> Vec<(&str, usize)> {
    let mut names = ValueNames(Vec::new());
    for ext in &unit.0 {
        if let ExternalDeclaration::Declaration(d) = &ext.node {
            names.visit_declaration(&d.node, &d.span);
        }
    }
    names.0
}

/// The names used as values anywhere in the program other than as the callee of a direct
/// call `f(...)`: the functions among them have their address taken.
pub(crate) fn address_taken(unit: &TranslationUnit) -> HashSet<String> {
    let mut names = ValueNames(Vec::new());
    names.visit_translation_unit(unit);
    names.0.into_iter().map(|(n, _)| n.to_string()).collect()
}

/// Every identifier used as an expression other than as a direct callee, with its offset.
struct ValueNames<'ast>(Vec<(&'ast str, usize)>);

impl<'ast> Visit<'ast> for ValueNames<'ast> {
    fn visit_expression(&mut self, expression: &'ast Expression, span: &'ast Span) {
        if let Expression::Identifier(id) = expression {
            self.0.push((id.node.name.as_str(), span.start));
        }
        visit::visit_expression(self, expression, span);
    }

    fn visit_call_expression(&mut self, call: &'ast CallExpression, span: &'ast Span) {
        if let Expression::Identifier(_) = &call.callee.node {
            for a in &call.arguments {
                self.visit_expression(&a.node, &a.span);
            }
        } else {
            visit::visit_call_expression(self, call, span);
        }
    }
}
