//! Which function definitions a program can run: those `main` reaches by name.
//!
//! Baton has no function pointers, so a function runs only if its name occurs in a function
//! that runs (a call, or taking its address — which the lowering rejects where it happens).
//! Definitions nothing reaches, such as helpers a header defines or a program leaves unused,
//! are not lowered: what they contain cannot change what the program does, so it is never a
//! reason to reject the program. The walk is syntactic and may over-approximate (a local
//! variable shadowing a function's name still counts as the function), which is only ever
//! stricter.

use lang_c::ast::{FunctionDefinition, Identifier};
use lang_c::span::{Node, Span};
use lang_c::visit::Visit;
use std::collections::{HashMap, VecDeque};

/// A reachable definition: its index in the list of definitions and where it was first
/// reached in the program's own file (`None` for `main`, and for definitions reached only from
/// code outside the program's file that was itself not reached from the program's file).
pub(crate) type Reached = HashMap<usize, Option<usize>>;

/// The definitions reachable from the one named `main`. `definitions` are (name, definition)
/// pairs with unique names; `in_program(offset)` says whether a byte offset of the
/// preprocessed text lies in the program's own file.
pub(crate) fn reachable_definitions(
    definitions: &[(String, &Node<FunctionDefinition>)],
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
