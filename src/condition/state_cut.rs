//! State cuts: seed 000's assumptions `(pc = l) ⇒ φ`, attached to an edge.
//!
//! A [`StateCut`] says: an execution that takes `edge` from a state in which one of `states`
//! holds (every listed variable has its value) is verified from there on. It covers executions
//! by what the state is, not by the path that led there, so a reducer applies it without copying
//! the program per path: every residual copy of the edge gets the guard "none of the states"
//! ([`StateCut::guard`]). That is sound only where the claim does not depend on the path: the
//! variables pin everything the verification of the continuation relied on, and the edge is
//! reached in one calling context only ([`single_context_functions`]) — the analysis that makes
//! state cuts checks both (see `condition::from_arg`).
//!
//! In files a state cut is written as text: `EDGE: (a == 1 && b == -2) || (a == 3)` with the
//! program's unique variable names ([`crate::cfa::Variable::name`]), read back by [`parse`]; an
//! empty conjunction is `1` (every state).

use super::ConditionAutomaton;
use crate::cfa::expr::{BinaryOp, Expr, UnaryOp};
use crate::cfa::interpreter::{execute_observed, ExecOptions, Execution, Step};
use crate::cfa::types::IntType;
use crate::cfa::{EdgeId, FuncId, Operation, Program, Scope, VarId};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Values of some variables: a conjunction `var == value`, sorted by variable.
pub type Valuation = Vec<(VarId, i128)>;

/// Executions that take `edge` from a state where one of `states` holds are verified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateCut {
    pub edge: EdgeId,
    /// A disjunction of valuations.
    pub states: Vec<Valuation>,
}

impl StateCut {
    /// True if the state `value` gives (the value of each variable) is one of the cut's.
    pub fn holds(&self, value: impl Fn(VarId) -> i128) -> bool {
        self.states.iter().any(|s| s.iter().all(|&(v, c)| value(v) == c))
    }

    /// The guard of the residual copies of the edge: `int` 1 where none of the states holds.
    pub fn guard(&self, program: &Program) -> Expr {
        let conjunct = |state: &Valuation| {
            state
                .iter()
                .map(|&(v, c)| {
                    let ty = program.variable(v).ty;
                    Expr::binary(
                        BinaryOp::Eq,
                        Expr::var(v, ty),
                        Expr::constant(c, ty),
                        IntType::INT,
                    )
                })
                .reduce(|a, b| Expr::binary(BinaryOp::BitAnd, a, b, IntType::INT))
                .unwrap_or_else(|| Expr::int(1))
        };
        let any = self
            .states
            .iter()
            .map(conjunct)
            .reduce(|a, b| Expr::binary(BinaryOp::BitOr, a, b, IntType::INT))
            .unwrap_or_else(|| Expr::int(0));
        Expr::unary(UnaryOp::LogNot, any, IntType::INT)
    }

    /// The cut as text (see the module doc).
    pub fn render(&self, program: &Program) -> String {
        let states: Vec<String> = self
            .states
            .iter()
            .map(|s| {
                if s.is_empty() {
                    return "1".to_string();
                }
                let eqs: Vec<String> = s
                    .iter()
                    .map(|&(v, c)| format!("{} == {c}", program.variable(v).name))
                    .collect();
                format!("({})", eqs.join(" && "))
            })
            .collect();
        format!("{}: {}", self.edge.0, states.join(" || "))
    }
}

/// Reads a state cut written by [`StateCut::render`]; the error says what is wrong.
pub fn parse(text: &str, program: &Program) -> Result<StateCut, String> {
    let (edge, states) = text
        .split_once(':')
        .ok_or_else(|| format!("state cut `{text}` has no `EDGE:`"))?;
    let edge: u32 = edge
        .trim()
        .parse()
        .map_err(|_| format!("state cut: bad edge id `{}`", edge.trim()))?;
    if edge as usize >= program.edges.len() {
        return Err(format!(
            "state cut: CFA edge {edge} does not exist (the program has {} edges)",
            program.edges.len()
        ));
    }
    let names: HashMap<&str, VarId> = program
        .variables
        .iter()
        .enumerate()
        .map(|(i, v)| (v.name.as_str(), VarId(i as u32)))
        .collect();
    let mut parsed = Vec::new();
    for state in states.split("||") {
        let state = state.trim();
        if state == "1" {
            parsed.push(Vec::new());
            continue;
        }
        let inner = state
            .strip_prefix('(')
            .and_then(|s| s.strip_suffix(')'))
            .ok_or_else(|| format!("state cut: `{state}` is not `(… && …)`"))?;
        let mut valuation = Valuation::new();
        for eq in inner.split("&&") {
            let (name, value) = eq
                .split_once("==")
                .ok_or_else(|| format!("state cut: `{}` is not `VARIABLE == VALUE`", eq.trim()))?;
            let var = *names
                .get(name.trim())
                .ok_or_else(|| format!("state cut: unknown variable `{}`", name.trim()))?;
            let value: i128 = value
                .trim()
                .parse()
                .map_err(|_| format!("state cut: bad value `{}`", value.trim()))?;
            if program.variable(var).ty.normalize(value) != value {
                return Err(format!(
                    "state cut: {value} is not a value of `{}`'s type",
                    program.variable(var).name
                ));
            }
            valuation.push((var, value));
        }
        valuation.sort_unstable();
        if valuation.windows(2).any(|w| w[0].0 == w[1].0) {
            return Err(format!("state cut: `{state}` names a variable twice"));
        }
        parsed.push(valuation);
    }
    Ok(StateCut {
        edge: EdgeId(edge),
        states: parsed,
    })
}

/// Per function: true if every execution reaches it through the same chain of calls — `main`,
/// and functions called from exactly one call edge of such a function, never recursively and
/// never through a pointer. A location of such a function determines the call stack, so what
/// holds after one of its edges holds after the return to the caller as well.
pub fn single_context_functions(program: &Program) -> Vec<bool> {
    let n = program.functions.len();
    let mut callers: Vec<Vec<FuncId>> = vec![Vec::new(); n];
    let mut address_taken = vec![false; n];
    for edge in &program.edges {
        if let Operation::Call { callee, .. } = &edge.op {
            callers[callee.index()].push(program.location(edge.from).func);
        }
        edge.op.for_each_expr(&mut |e: &Expr| {
            e.for_each_function_name(&mut |name| {
                if let Some(f) = program.functions.iter().position(|f| f.name == name) {
                    address_taken[f] = true;
                }
            })
        });
    }
    let mut single = vec![false; n];
    let main = program.entry_function.index();
    single[main] = callers[main].is_empty() && !address_taken[main];
    // A function's only caller is settled before it (call chains from `main` are acyclic
    // where every function on them has one caller), so a pass per level suffices.
    for _ in 0..n {
        let mut changed = false;
        for f in 0..n {
            if !single[f] && !address_taken[f] {
                if let [caller] = callers[f].as_slice() {
                    if single[caller.index()] && caller.index() != f {
                        single[f] = true;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    single
}

/// True if the program's values are plain integers: no variable whose address is taken, no
/// float, no pointer access or heap, no function pointer. Only then does a valuation of variables say
/// what a state is (an address is Baton's own number, not the one a compiled program has).
pub fn integers_only(program: &Program) -> bool {
    if program
        .variables
        .iter()
        .any(|v| v.address.is_some() || v.ty.is_float())
    {
        return false;
    }
    program.edges.iter().all(|edge| {
        let mut plain = !edge.op.is_pointer_access();
        edge.op.for_each_expr(&mut |e: &Expr| {
            e.for_each_address(&mut |_, _| plain = false);
            e.for_each_function(&mut |_| plain = false);
        });
        plain
    })
}

/// Runs `program` on the interpreter with `inputs` and tells whether `condition` covers the run
/// (Def. 2.2): its automaton covers the executed path, or one of its state cuts holds in the
/// state in which the run takes the cut's edge. The values are followed through the run's
/// writes, one per variable — exact for what state cuts name (globals and locals of functions
/// with a single calling context).
pub fn execute_covered(
    program: &Program,
    condition: &ConditionAutomaton,
    inputs: &[i128],
    options: &ExecOptions,
) -> (Execution, bool) {
    let mut values: Vec<i128> = program
        .variables
        .iter()
        .map(|v| if v.scope == Scope::Global { v.initial } else { 0 })
        .collect();
    let mut by_state = false;
    let mut cursor = condition.cursor();
    let mut take = |edge: EdgeId, values: &[i128]| {
        by_state |= condition
            .state_cuts
            .iter()
            .any(|cut| cut.edge == edge && cut.holds(|v| values[v.index()]));
        if !cursor.covered() && !cursor.is_dead() {
            cursor.step(edge);
        }
    };
    let mut observed = 0;
    let options = ExecOptions {
        record_path: true,
        ..*options
    };
    let run = execute_observed(program, inputs, &options, &mut |step| {
        let writes = match step {
            Step::Edge { edge, writes } => {
                take(*edge, &values);
                observed += 1;
                writes
            }
            Step::ReturnToCaller { writes, .. } => writes,
        };
        for &(v, x) in writes {
            values[v.index()] = x;
        }
    });
    // The edge that ended the run (undefined behaviour in it) is on the path, not observed.
    for &edge in run.path.iter().skip(observed) {
        take(edge, &values);
    }
    (run, by_state || cursor.covered())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::semantics::{eval, SignedOverflow};
    use crate::cfa::types::DataModel;

    const TEXT: &str = "extern int __VERIFIER_nondet_int(void);\n\
        int g;\n\
        int once(int a) { return a + g; }\n\
        int twice(int b) { return b * 2; }\n\
        int main(void) { int x = __VERIFIER_nondet_int(); char c = 1; g = once(x) + twice(x) + twice(1);\n\
        if (x == c) return 1; return 0; }\n";

    fn program() -> Program {
        crate::frontend::load_source("cuts.c", TEXT, DataModel::ILP32).unwrap_or_else(|e| panic!("{e}"))
    }

    fn var(program: &Program, name: &str) -> VarId {
        let i = program.variables.iter().position(|v| v.name == name);
        VarId(i.unwrap_or_else(|| panic!("no {name}")) as u32)
    }

    #[test]
    fn cuts_read_back_as_written_and_guard_what_they_say() {
        let p = program();
        let (g, x, c) = (var(&p, "g"), var(&p, "main::x"), var(&p, "main::c"));
        let mut first = vec![(g, 3), (x, -5)];
        first.sort_unstable();
        let cut = StateCut {
            edge: EdgeId(2),
            states: vec![first, vec![(c, -128)], Vec::new()],
        };
        let text = cut.render(&p);
        assert_eq!(parse(&text, &p), Ok(cut.clone()), "{text}");
        // The guard is 0 exactly where one of the states holds (here: always, by `1`).
        let without_any = StateCut {
            states: cut.states[..2].to_vec(),
            ..cut.clone()
        };
        let guard = without_any.guard(&p);
        for (gv, xv, cv, covered) in [
            (3, -5, 0, true),
            (3, 5, 0, false),
            (0, 0, -128, true),
            (0, 0, 127, false),
        ] {
            let value = |v: VarId| {
                Some(if v == g {
                    gv
                } else if v == x {
                    xv
                } else {
                    cv
                })
            };
            let holds = without_any.holds(|v| value(v).unwrap_or(0));
            assert_eq!(holds, covered);
            assert_eq!(
                eval(&guard, &value, SignedOverflow::Undefined),
                Ok(Some(i128::from(!covered)))
            );
        }
        assert_eq!(
            eval(&cut.guard(&p), &|_| Some(0), SignedOverflow::Undefined),
            Ok(Some(0))
        );
    }

    #[test]
    fn malformed_cuts_are_errors() {
        let p = program();
        for (text, what) in [
            ("2 (g == 1)", "no `EDGE:`"),
            ("x: (g == 1)", "bad edge id"),
            ("99999: (g == 1)", "does not exist"),
            ("2: g == 1", "is not `(… && …)`"),
            ("2: (h == 1)", "unknown variable `h`"),
            ("2: (g = 1)", "is not `VARIABLE == VALUE`"),
            ("2: (g == one)", "bad value"),
            ("2: (main::c == 300)", "not a value of"),
            ("2: (g == 1 && g == 2)", "names a variable twice"),
        ] {
            let e = parse(text, &p).expect_err(text);
            assert!(e.contains(what), "{text}: {e}");
        }
    }

    #[test]
    fn single_contexts_follow_one_call_chain() {
        let p = program();
        let single = single_context_functions(&p);
        let by_name = |name: &str| {
            let f = p.functions.iter().position(|f| f.name == name);
            single[f.unwrap_or_else(|| panic!("no {name}"))]
        };
        assert!(by_name("main") && by_name("once") && !by_name("twice"));
        assert!(integers_only(&p));
    }
}
