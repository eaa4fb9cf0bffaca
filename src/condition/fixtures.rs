//! A hand-built program for the condition tests.
//!
//! ```c
//! int f(int a) { return a + 1; }          // line 1 (f), return on line 1
//! int main() {                            // line 2
//!   int x;                                // 3  E0  N0->N1
//!   x = __VERIFIER_nondet_int();          // 4  E1  N1->N2
//!   if (x > 0)                            // 5  E2 [x > 0] N2->N3, E3 [!(x > 0)] N2->N4
//!     { x = 1; x = 3; }                   // 6  E4 N3->N5, E5 N5->N6
//!   else x = f(x);                        // 7  E6 call N4->N6
//!   if (x == 0) reach_error();            // 8  E7 [x == 0] N6->N7, E8 [!(x == 0)] N6->N8,
//!                                         //    E9 reach_error N7->N9 (error)
//!   return 0;                             // 9  E10 N8->N10 (main exit)
//! }
//! // f: E11 return a + 1; N11->N12 (f exit), line 1
//! ```

use crate::cfa::expr::{BinaryOp, Expr};
use crate::cfa::types::{DataModel, IntType};
use crate::cfa::{
    Edge, FuncId, Function, LocId, Location, LocationKind, Operation, Program, Scope, SourceLoc, VarId,
    Variable,
};

/// The fixture's hash.
pub const HASH: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

fn at(line: u32) -> SourceLoc {
    SourceLoc {
        file: 0,
        line,
        column: 1,
    }
}

/// Builds the fixture program.
pub fn program() -> Program {
    let int = IntType::INT;
    let x = VarId(0);
    let a = VarId(1);
    let fx = Expr::var(x, int);
    let main = FuncId(0);
    let f = FuncId(1);
    let loc = |func, kind| Location {
        func,
        kind,
        loop_head: false,
        label: None,
    };
    let mut locations: Vec<Location> = (0..11).map(|_| loc(main, LocationKind::Normal)).collect();
    locations[9].kind = LocationKind::Error;
    locations[10].kind = LocationKind::FunctionExit;
    locations.push(loc(f, LocationKind::Normal));
    locations.push(loc(f, LocationKind::FunctionExit));
    let e = |from: u32, to: u32, op: Operation, line: u32| Edge {
        from: LocId(from),
        to: LocId(to),
        op,
        source: at(line),
    };
    let gt = Expr::binary(BinaryOp::Gt, fx.clone(), Expr::int(0), int);
    let eq = Expr::binary(BinaryOp::Eq, fx.clone(), Expr::int(0), int);
    let edges = vec![
        e(0, 1, Operation::Declare { var: x, init: None }, 3),
        e(
            1,
            2,
            Operation::Nondet {
                lhs: Some(x),
                ty: int,
                function: "__VERIFIER_nondet_int".into(),
            },
            4,
        ),
        e(
            2,
            3,
            Operation::Assume {
                cond: gt.clone(),
                branch: true,
            },
            5,
        ),
        e(
            2,
            4,
            Operation::Assume {
                cond: gt,
                branch: false,
            },
            5,
        ),
        e(
            3,
            5,
            Operation::Assign {
                lhs: x,
                rhs: Expr::int(1),
            },
            6,
        ),
        e(
            5,
            6,
            Operation::Assign {
                lhs: x,
                rhs: Expr::int(3),
            },
            6,
        ),
        e(
            4,
            6,
            Operation::Call {
                callee: f,
                args: vec![fx],
                result: Some(x),
            },
            7,
        ),
        e(
            6,
            7,
            Operation::Assume {
                cond: eq.clone(),
                branch: true,
            },
            8,
        ),
        e(
            6,
            8,
            Operation::Assume {
                cond: eq,
                branch: false,
            },
            8,
        ),
        e(
            7,
            9,
            Operation::Error {
                function: "reach_error".into(),
            },
            8,
        ),
        e(
            8,
            10,
            Operation::Return {
                value: Some(Expr::int(0)),
            },
            9,
        ),
        e(
            11,
            12,
            Operation::Return {
                value: Some(Expr::binary(BinaryOp::Add, Expr::var(a, int), Expr::int(1), int)),
            },
            1,
        ),
    ];
    let var = |name: &str, source: &str, scope| Variable {
        name: name.into(),
        source_name: source.into(),
        ty: int,
        scope,
        initial: 0,
        temporary: false,
        read_only: false,
        address: None,
        array: None,
    };
    Program {
        files: vec!["fixture.c".into()],
        hash: HASH.into(),
        data_model: DataModel::ILP32,
        signed_overflow: Default::default(),
        variables: vec![
            var("main::x", "x", Scope::Local(main)),
            var("f::a", "a", Scope::Local(f)),
        ],
        record_objects: Vec::new(),
        functions: vec![
            Function {
                name: "main".into(),
                params: vec![],
                return_type: Some(int),
                return_var: None,
                entry: LocId(0),
                exit: LocId(10),
                locations: (0..11).map(LocId).collect(),
                source: at(2),
            },
            Function {
                name: "f".into(),
                params: vec![a],
                return_type: Some(int),
                return_var: None,
                entry: LocId(11),
                exit: LocId(12),
                locations: vec![LocId(11), LocId(12)],
                source: at(1),
            },
        ],
        locations,
        edges,
        entry_function: main,
        out_edges: Vec::new(),
        in_edges: Vec::new(),
    }
    .finish()
}
