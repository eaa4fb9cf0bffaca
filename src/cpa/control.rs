//! The control part of every analysis: the location CPA and the call-stack CPA.
//!
//! Both are exact (one successor per step, no merging), so the engine keeps them as one
//! [`ControlState`] beside the analysis' own state. The location CPA follows CFA edges; the
//! call-stack CPA pushes a call edge when a callee is entered and allows the return step only to
//! the return site on top of the stack.

use super::Step;
use crate::cfa::{EdgeId, LocId, LocationKind, Operation, Program};
use std::rc::Rc;

/// Location and call stack of an abstract state.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ControlState {
    pub location: LocId,
    /// The call edges of the active calls, innermost last.
    pub call_stack: CallStack,
}

/// An immutable call stack shared between states (a persistent list).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct CallStack(Option<Rc<Frame>>);

#[derive(Debug, PartialEq, Eq, Hash)]
struct Frame {
    call: EdgeId,
    below: CallStack,
}

impl CallStack {
    /// The innermost active call edge.
    pub fn top(&self) -> Option<EdgeId> {
        self.0.as_ref().map(|f| f.call)
    }

    /// The stack with `call` pushed.
    pub fn push(&self, call: EdgeId) -> CallStack {
        CallStack(Some(Rc::new(Frame {
            call,
            below: self.clone(),
        })))
    }

    /// The stack without its innermost call.
    pub fn pop(&self) -> CallStack {
        self.0.as_ref().map(|f| f.below.clone()).unwrap_or_default()
    }

    /// How many of the active calls call a function that is already active below them
    /// (`main` is active from the start): the depth of recursion.
    pub fn recursion_depth(&self, program: &Program) -> u64 {
        let mut active = vec![false; program.functions.len()];
        if let Some(main) = active.get_mut(program.entry_function.index()) {
            *main = true;
        }
        let mut depth = 0;
        for call in self.calls() {
            if let Operation::Call { callee, .. } = program.edge(call).op {
                if let Some(seen) = active.get_mut(callee.index()) {
                    depth += u64::from(std::mem::replace(seen, true));
                }
            }
        }
        depth
    }

    /// The active call edges, outermost first.
    pub fn calls(&self) -> Vec<EdgeId> {
        let mut out = Vec::new();
        let mut s = self;
        while let Some(f) = &s.0 {
            out.push(f.call);
            s = &f.below;
        }
        out.reverse();
        out
    }
}

impl ControlState {
    /// Program start: the entry of `main` with an empty stack.
    pub fn initial(program: &Program) -> ControlState {
        ControlState {
            location: program.main().entry,
            call_stack: CallStack::default(),
        }
    }

    /// The steps possible from here: the location's out-edges, or at a callee's exit the
    /// return to the caller. `main`'s exit, error and terminal locations have none.
    pub fn steps(&self, program: &Program) -> Vec<Step> {
        match program.location(self.location).kind {
            LocationKind::FunctionExit => self
                .call_stack
                .top()
                .map(|call| Step::Return { call })
                .into_iter()
                .collect(),
            _ => program
                .out_edges(self.location)
                .iter()
                .map(|&e| Step::Edge(e))
                .collect(),
        }
    }

    /// The control state after `step`.
    pub fn successor(&self, step: Step, program: &Program) -> ControlState {
        match step {
            Step::Edge(e) => {
                let edge = program.edge(e);
                match edge.op {
                    Operation::Call { callee, .. } => ControlState {
                        location: program.function(callee).entry,
                        call_stack: self.call_stack.push(e),
                    },
                    _ => ControlState {
                        location: edge.to,
                        call_stack: self.call_stack.clone(),
                    },
                }
            }
            Step::Return { call } => ControlState {
                location: program.edge(call).to,
                call_stack: self.call_stack.pop(),
            },
        }
    }

    /// True at an error location (the property is violated).
    pub fn is_error(&self, program: &Program) -> bool {
        program.location(self.location).kind == LocationKind::Error
    }
}
