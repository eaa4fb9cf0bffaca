//! Tests of the C frontend: the sv-benchmarks tasks lower, unsupported and malformed input is
//! rejected with one-line errors, and the CFA structure of small programs is as specified.

use baton::cfa::expr::ExprKind;
use baton::cfa::types::{DataModel, IntType};
use baton::cfa::{LocationKind, Operation, Program, Scope};
use baton::frontend::{load_program, load_source, FrontendError};
use std::path::{Path, PathBuf};
use std::process::Command;

fn load(text: &str) -> Program {
    match load_source("t.c", text, DataModel::ILP32) {
        Ok(p) => p,
        Err(e) => panic!("lowering failed: {e}"),
    }
}

fn load_err(text: &str) -> String {
    match load_source("t.c", text, DataModel::ILP32) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// Rendered operations of all edges.
fn ops(p: &Program) -> Vec<String> {
    p.edges.iter().map(|e| p.render_operation(&e.op)).collect()
}

/// The edge whose rendered operation is exactly `text`.
fn edge_with<'p>(p: &'p Program, text: &str) -> &'p baton::cfa::Edge {
    p.edges
        .iter()
        .find(|e| p.render_operation(&e.op) == text)
        .unwrap_or_else(|| panic!("no edge `{text}` in {:#?}", ops(p)))
}

fn collect_c_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_c_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "c") {
            out.push(path);
        }
    }
}

/// The data model a task's `.yml` gives for `c_file` (ILP32 when no task names it).
fn data_model_of(c_file: &Path) -> DataModel {
    let Some(dir) = c_file.parent() else {
        return DataModel::ILP32;
    };
    let name = c_file.file_name().map(|n| n.to_string_lossy().into_owned());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return DataModel::ILP32;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "yml") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let names_it = text.lines().any(|l| {
            l.trim_start().starts_with("input_files:")
                && name.as_deref().is_some_and(|n| l.contains(&format!("'{n}'")))
        });
        if names_it {
            if let Some(l) = text.lines().find(|l| l.trim_start().starts_with("data_model:")) {
                if let Some(m) = l.split(':').nth(1).and_then(|m| m.trim().parse().ok()) {
                    return m;
                }
            }
        }
    }
    DataModel::ILP32
}

#[test]
fn all_sv_benchmarks_tasks_lower() {
    let Ok(root) = std::env::var("BATON_SV_BENCHMARKS") else {
        eprintln!("skipping: BATON_SV_BENCHMARKS is not set");
        return;
    };
    let mut files = Vec::new();
    collect_c_files(&Path::new(&root).join("c"), &mut files);
    files.sort();
    // The development set (rows `D` of MANIFEST.csv, issue #11: arrays, recursion, floats) is
    // what the frontend does not model yet; `baton cfa` figures over it are measured instead.
    let manifest = std::fs::read_to_string(Path::new(&root).join("MANIFEST.csv")).unwrap_or_default();
    let development: Vec<PathBuf> = manifest
        .lines()
        .filter_map(|row| row.strip_prefix("D,"))
        .filter_map(|row| row.split(',').nth(1))
        .filter_map(|task| Path::new(&root).join(task).parent().map(Path::to_path_buf))
        .collect();
    files.retain(|f| !development.iter().any(|d| f.starts_with(d)));
    let mut ok = 0;
    let mut failures = Vec::new();
    for f in &files {
        match load_program(f, data_model_of(f)) {
            Ok(p) => {
                assert_eq!(p.files[0], f.display().to_string());
                assert!(p.main().name == "main");
                assert!(
                    p.locations.iter().any(|l| l.kind == LocationKind::Error),
                    "{}: no error location",
                    f.display()
                );
                ok += 1;
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(failures.is_empty(), "failures: {failures:#?}");
    assert_eq!(ok, 77, "expected 77 tasks, lowered {ok}/{}", files.len());
}

#[test]
fn unsupported_constructs_give_one_line_with_line_number() {
    let cases = [
        (
            "int main() {\n  _Complex double f = 1;\n  return 0;\n}\n",
            "t.c:2: unsupported: complex type",
        ),
        (
            "int main() {\n  int x = 0;\n  return x > 1.5i;\n}\n",
            "t.c:3: unsupported: imaginary constant",
        ),
        (
            "int main() {\n  int *(*p)[3];\n  return p == 0;\n}\n",
            "t.c:2: unsupported: array",
        ),
        (
            "struct s { int f; };\nstruct s g;\nint main() {\n  return g.f + (g == g);\n}\n",
            "t.c:4: unsupported: struct used as a value (returned, cast or compared; only assignment, initialisation, passing and member access are modelled)",
        ),
        (
            "int main() {\n  int x = 0;\n  return x.f;\n}\n",
            "t.c:3: unsupported: struct/union member access",
        ),
        (
            "int main() {\n  int *p = 0;\n  return (int) (p * 2);\n}\n",
            "t.c:3: unsupported: `*` on a pointer",
        ),
        (
            "union u { int i; float f; };\nint main() {\n  union u v;\n  int *p = &v.i;\n  return 0;\n}\n",
            "t.c:4: unsupported: address of a union member",
        ),
        (
            "int main() {\n  int n = 2;\n  int a[n][n];\n  int *p = a[1];\n  return 0;\n}\n",
            "t.c:3: unsupported: pointer into a multi-dimensional variable-length array",
        ),
        (
            "int y;\nint x = y;\nint main() { return x; }\n",
            "t.c:3: unsupported: non-constant initializer (`x` declared at t.c:2)",
        ),
        (
            "int f(int a, ...) { return a; }\nint main() { return f(1, 2); }\n",
            "t.c:1: unsupported: variadic function `f`",
        ),
        (
            "int main() {\n  __asm__(\"nop\");\n  return 0;\n}\n",
            "t.c:2: unsupported: inline assembly",
        ),
        (
            "extern void init(int *p);\nint main() {\n  int x = 0;\n  init(&x);\n  return x;\n}\n",
            "t.c:4: unsupported: call of `init`, a function without a body, that may write through its pointer argument",
        ),
        (
            "int *g;\nextern int tick(void);\nint main() {\n  return tick();\n}\n",
            "t.c:4: unsupported: call of `tick`, a function without a body, that may write through the pointer-typed global `g`",
        ),
        (
            "extern int printf(const char *, ...);\nint main() {\n  int n = 0;\n  printf(\"ab%n\", &n);\n  return n;\n}\n",
            "t.c:4: unsupported: `printf` with %n in its format (it writes through its argument)",
        ),
        (
            "extern int printf(const char *, ...);\nint main(int argc, char **argv) {\n  char *f = \"%d\";\n  printf(f, 1);\n  return 0;\n}\n",
            "t.c:4: unsupported: `printf` with a format that is not a string literal (it may contain %n)",
        ),
    ];
    for (src, expected) in cases {
        assert_eq!(load_err(src), expected, "for:\n{src}");
    }
}

#[test]
fn malformed_and_missing_input_are_errors() {
    let e = load_err("int main() {\n  int x = 1\n  return x;\n}\n");
    assert!(e.starts_with("t.c:3: error: syntax error"), "{e}");
    assert!(!e.contains('\n'));
    let e = load_err("int main() {\n  return y;\n}\n");
    assert_eq!(e, "t.c:2: error: undeclared identifier `y`");
    let e = load_err("void f(void) {}\nint main() {\n  int x = f();\n  return x;\n}\n");
    assert_eq!(e, "t.c:3: error: void value used");
    let e = load_err("int f(void) { return 1; }\n");
    assert_eq!(e, "t.c: error: no function `main` defined");
    let e = load_err("int main() {\n  goto out;\n}\n");
    assert_eq!(e, "t.c:2: error: label `out` used but not defined");
    let err = load_program(Path::new("/nonexistent/x.c"), DataModel::ILP32);
    match err {
        Err(e @ FrontendError::Io { .. }) => {
            assert!(e.to_string().starts_with("/nonexistent/x.c: "));
            assert_eq!(e.exit_code(), 2);
        }
        other => panic!("expected an I/O error, got {other:?}"),
    }
    let e = load_err("#include \"no_such_header.h\"\nint main() { return 0; }\n");
    assert!(e.starts_with("t.c: preprocessor failed:"), "{e}");
}

#[test]
fn binary_exits_with_status_2_on_frontend_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("bad.c");
    std::fs::write(&bad, "int main() {\n  _Complex double d = 0;\n  return 0;\n}\n").expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(["cfa"])
        .arg(&bad)
        .output()
        .expect("run baton");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim_end(),
        format!("{}:2: unsupported: complex type", bad.display())
    );
    let out = Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(["cfa", "/nonexistent/y.c"])
        .output()
        .expect("run baton");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}

#[test]
fn binary_prints_listing_json_and_dot() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("benchmarks/programs/example.c");
    let dir = tempfile::tempdir().expect("tempdir");
    let dot = dir.path().join("example.dot");
    let out = Command::new(env!("CARGO_BIN_EXE_baton"))
        .arg("cfa")
        .arg(&example)
        .arg("--dot")
        .arg(&dot)
        .output()
        .expect("run baton");
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("[loop head]"), "{stdout}");
    assert!(stdout.contains("[error]"), "{stdout}");
    assert!(stdout.contains("reach_error();"), "{stdout}");
    assert!(
        stdout.lines().last().is_some_and(|l| l.ends_with("1 loop heads")),
        "{stdout}"
    );
    let dot = std::fs::read_to_string(&dot).expect("dot written");
    assert!(dot.starts_with("digraph"));
    assert!(dot.contains("subgraph cluster_0"));
    assert!(dot.contains("doublecircle"));
    assert!(dot.contains("color=red"));
    let out = Command::new(env!("CARGO_BIN_EXE_baton"))
        .arg("cfa")
        .arg(&example)
        .arg("--json")
        .output()
        .expect("run baton");
    assert!(out.status.success());
    let mut p: Program = serde_json::from_slice(&out.stdout).expect("valid JSON program");
    p.reindex();
    assert_eq!(p.main().name, "main");
}

#[test]
fn program_metadata() {
    let text = "int main() { return 0; }\n";
    let p = load(text);
    assert_eq!(p.files[0], "t.c");
    assert_eq!(p.hash, baton::frontend::sha256_hex(text.as_bytes()));
    assert_eq!(p.hash.len(), 64);
    assert_eq!(edge_with(&p, "return 0;").source.line, 1);
}

#[test]
fn switch_falls_through_and_compares_converted_cases() {
    let p = load(
        "int main() {\n  unsigned char c = __VERIFIER_nondet_uchar();\n  int x = 0;\n  switch (c) {\n  case 1: x = 2;\n  case 300: x = 3; break;\n  default: x = 4;\n  }\n  return x;\n}\n",
    );
    let o = ops(&p);
    assert!(o.contains(&"[(((int)main::c) == 1)]".to_string()), "{o:#?}");
    assert!(o.contains(&"[(((int)main::c) == 300)]".to_string()), "{o:#?}");
    // Fall-through: from after `x = 2` a skip leads to where `x = 3` starts.
    let a = edge_with(&p, "main::x = 2;");
    let b = edge_with(&p, "main::x = 3;");
    let follow = p.out_edges(a.to);
    assert_eq!(follow.len(), 1);
    assert_eq!(p.edge(follow[0]).to, b.from);
    // The default is reached when no case matches.
    let d = edge_with(&p, "main::x = 4;");
    assert!(p
        .in_edges(d.from)
        .iter()
        .any(|e| p.edge(*e).op == Operation::Skip));
}

#[test]
fn goto_loop_marks_loop_head_and_label() {
    let p = load("int main() {\n  int i = 0;\nagain:\n  i++;\n  if (i < 10) goto again;\n  return i;\n}\n");
    let heads: Vec<_> = p.locations.iter().filter(|l| l.loop_head).collect();
    assert_eq!(heads.len(), 1);
    assert_eq!(heads[0].label.as_deref(), Some("again"));
}

#[test]
fn short_circuit_conditions_are_assume_edges() {
    let p = load(
        "int main() {\n  int a = __VERIFIER_nondet_int();\n  int b = __VERIFIER_nondet_int();\n  if (a > 0 && !(b < 0 || b > 5)) {\n    reach_error();\n  }\n  return 0;\n}\n",
    );
    let assumes = p.edges.iter().filter(|e| e.op.is_assume()).count();
    assert_eq!(assumes, 6);
    assert!(p
        .variables
        .iter()
        .all(|v| !v.temporary || v.name.ends_with("__retval")));
    let err = edge_with(&p, "reach_error();");
    assert_eq!(p.location(err.to).kind, LocationKind::Error);
    assert!(p.out_edges(err.to).is_empty());
}

#[test]
fn value_context_logic_and_conditional_use_temporaries() {
    let p = load(
        "int main() {\n  int a = __VERIFIER_nondet_int();\n  int x = a && a < 3;\n  int y = a ? 1 : 2u;\n  return x + (int)y;\n}\n",
    );
    let temps: Vec<_> = p.variables.iter().filter(|v| v.temporary).collect();
    assert!(temps.iter().any(|v| v.ty == IntType::INT));
    assert!(
        temps.iter().any(|v| v.ty == IntType::UINT),
        "?: has the common type"
    );
    let o = ops(&p);
    assert!(o
        .iter()
        .any(|s| s.ends_with(" = 1;") && s.contains("__baton_tmp")));
    assert!(o
        .iter()
        .any(|s| s.ends_with(" = 0;") && s.contains("__baton_tmp")));
}

/// The constant initialiser of local `name` in `p`.
fn init_of(p: &Program, name: &str) -> (i128, IntType) {
    for e in &p.edges {
        if let Operation::Declare {
            var,
            init: Some(init),
        } = &e.op
        {
            if p.variable(*var).name == name {
                if let ExprKind::Const(v) = init.kind {
                    return (v, init.ty);
                }
            }
        }
    }
    panic!("no constant initialiser for {name}: {:#?}", ops(p));
}

#[test]
fn constants_follow_c_typing() {
    let p = load(
        "int main() {\n  int a = -1 < 0xFFFFFFFF;\n  int b = -1 < 4294967295;\n  int c = '\\xff' == -1;\n  long long d = 2147483648;\n  unsigned e = -1;\n  int f = sizeof(long long) + sizeof(char);\n  int g = 1u << 31 > 0;\n  int h = (unsigned char)300;\n  return 0;\n}\n",
    );
    assert_eq!(init_of(&p, "main::a").0, 0, "hex constant is unsigned int");
    assert_eq!(init_of(&p, "main::b").0, 1, "decimal constant is long long");
    assert_eq!(init_of(&p, "main::c").0, 1, "char is signed");
    assert_eq!(init_of(&p, "main::d"), (2147483648, IntType::LLONG));
    assert_eq!(init_of(&p, "main::e"), (4294967295, IntType::UINT));
    assert_eq!(init_of(&p, "main::f").0, 9);
    assert_eq!(init_of(&p, "main::g").0, 1);
    assert_eq!(init_of(&p, "main::h").0, 44);
}

#[test]
fn expressions_make_conversions_explicit() {
    let p = load(
        "int main() {\n  unsigned char c = 200;\n  short s = -3;\n  long long l = 0;\n  l = c + s;\n  s <<= c;\n  return 0;\n}\n",
    );
    let o = ops(&p);
    assert!(
        o.contains(&"main::l = ((long long)(((int)main::c) + ((int)main::s)));".to_string()),
        "{o:#?}"
    );
    assert!(
        o.contains(&"main::s = ((short)(((int)main::s) << ((int)main::c)));".to_string()),
        "{o:#?}"
    );
}

#[test]
fn special_functions_and_externals() {
    let p = load(
        "extern unsigned short __VERIFIER_nondet_ushort(void);\nextern int ext(int);\nextern void log_it(int);\nvoid reach_error() { }\nvoid assume_abort_if_not(int c) { if (!c) abort(); }\nint main() {\n  unsigned short u = __VERIFIER_nondet_ushort();\n  unsigned char v = __VERIFIER_nondet_uchar();\n  int w = ext(u++);\n  log_it(w);\n  assume_abort_if_not(w > 0);\n  if (w == 7) exit(3);\n  if (w == 8) __assert_fail(\"0\", \"t.c\", 12, \"main\");\n  if (w == 9) reach_error();\n  return 0;\n}\n",
    );
    assert_eq!(p.functions.len(), 1, "special functions are not lowered as CFAs");
    let mut nondets = Vec::new();
    let mut externals = Vec::new();
    for e in &p.edges {
        match &e.op {
            Operation::Nondet { ty, function, .. } => nondets.push((function.clone(), *ty)),
            Operation::External {
                function,
                args,
                result,
            } => externals.push((function.clone(), args.len(), result.map(|r| p.variable(r).ty))),
            Operation::Call { .. } => panic!("no call edges expected"),
            _ => {}
        }
    }
    assert!(nondets.contains(&("__VERIFIER_nondet_ushort".into(), IntType::USHORT)));
    assert!(nondets.contains(&("__VERIFIER_nondet_uchar".into(), IntType::UCHAR)));
    // A function without a body is no input: its result is a value Baton does not know, its
    // arguments are kept.
    assert!(
        externals.contains(&("ext".into(), 1, Some(IntType::INT))),
        "{externals:?}"
    );
    assert!(externals.contains(&("log_it".into(), 1, None)), "{externals:?}");
    let o = ops(&p);
    // `ext(u++)`: the argument is the old value.
    assert!(o.contains(&"main::u = ((unsigned short)(((int)main::__baton_tmp1) + 1));".to_string()));
    assert!(
        o.contains(&"main::w = ext(((int)main::__baton_tmp1));".to_string()),
        "{o:#?}"
    );
    assert!(o.contains(&"[(main::w > 0)]".to_string()));
    assert!(o.contains(&"exit(3);".to_string()));
    assert!(o.contains(&"__assert_fail();".to_string()));
    let err = edge_with(&p, "reach_error();");
    assert_eq!(p.location(err.to).kind, LocationKind::Error);
    let abort = edge_with(&p, "__assert_fail();");
    assert_eq!(p.location(abort.to).kind, LocationKind::Terminal);
    assert_eq!(err.source.line, 14);
}

#[test]
fn calls_hoist_into_temporaries_and_convert_arguments() {
    let p = load(
        "int g;\nchar f(unsigned char a) { g++; return a + 1; }\nint main() {\n  int x = f(300) + f(2);\n  f(1);\n  return x;\n}\n",
    );
    let f = p.function_by_name("f").expect("f");
    let func = p.function(f);
    assert_eq!(func.return_type, Some(IntType::CHAR));
    let rv = func.return_var.expect("return var");
    assert_eq!(p.variable(rv).ty, IntType::CHAR);
    let o = ops(&p);
    assert!(
        o.contains(&"main::__baton_tmp1 = f(((unsigned char)44ULL));".to_string()),
        "{o:#?}"
    );
    assert!(
        o.contains(&"main::__baton_tmp2 = f(((unsigned char)2ULL));".to_string()),
        "{o:#?}"
    );
    assert!(o.contains(&"f(((unsigned char)1ULL));".to_string()), "{o:#?}");
    assert!(
        o.contains(&"return ((signed char)(((int)f::a) + 1));".to_string()),
        "{o:#?}"
    );
}

#[test]
fn scopes_statics_and_globals() {
    let p = load(
        "int g = 3 * 4;\nunsigned h = -1;\nint count(void) { static int n = 5; n++; return n; }\nint main() {\n  int x = 1;\n  { int x = 2; x++; }\n  for (int x = 0; x < 2; x++) { }\n  return count() + x + g;\n}\n",
    );
    let names: Vec<&str> = p.variables.iter().map(|v| v.name.as_str()).collect();
    for n in ["g", "h", "count::n", "main::x", "main::x#2", "main::x#3"] {
        assert!(names.contains(&n), "{n} missing in {names:?}");
    }
    let by_name = |n: &str| p.variables.iter().find(|v| v.name == n).expect("var");
    assert_eq!(by_name("g").initial, 12);
    assert_eq!(by_name("h").initial, 4294967295);
    assert_eq!(by_name("count::n").initial, 5);
    assert_eq!(by_name("count::n").scope, Scope::Global);
}

#[test]
fn data_model_changes_long_and_pointer_width() {
    let src = "int main() {\n  long l = 0;\n  void *p = 0;\n  return sizeof(long) + sizeof(void *);\n}\n";
    let p32 = load_source("t.c", src, DataModel::ILP32).expect("ILP32");
    let p64 = load_source("t.c", src, DataModel::LP64).expect("LP64");
    let ty = |p: &Program, n: &str| p.variables.iter().find(|v| v.name == n).map(|v| v.ty);
    assert_eq!(ty(&p32, "main::l"), Some(IntType::INT));
    assert_eq!(ty(&p64, "main::l"), Some(IntType::LLONG));
    assert_eq!(ty(&p64, "main::p"), Some(IntType::ULLONG));
    assert!(ops(&p32).contains(&"return 8;".to_string()));
    assert!(ops(&p64).contains(&"return 16;".to_string()));
}

#[test]
fn loops_break_continue_and_unreachable_code() {
    let p = load(
        "int main() {\n  int x = 0;\n  while (1) {\n    x++;\n    if (x > 3) break;\n    if (x == 2) continue;\n    x += 2;\n  }\n  do { x--; } while (x > 0);\n  for (int i = 0; i < 2; i++) x++;\n  for (;;) { }\n  reach_error();\n  return x;\n}\n",
    );
    assert_eq!(p.locations.iter().filter(|l| l.loop_head).count(), 4);
    // Code after the infinite loop is unreachable and dropped; the exit location stays.
    assert!(!ops(&p).contains(&"reach_error();".to_string()));
    assert!(p.locations.iter().all(|l| l.kind != LocationKind::Error));
    assert_eq!(p.location(p.main().exit).kind, LocationKind::FunctionExit);
    // `continue` in the while loop jumps back to the loop head.
    let cont = edge_with(&p, "[(main::x == 2)]");
    let head = p.edge(p.out_edges(cont.to)[0]).to;
    assert!(p.location(head).loop_head);
    // while (1) has only its feasible branch.
    assert!(ops(&p).contains(&"[1]".to_string()));
    assert!(!ops(&p).contains(&"[!1]".to_string()));
}

#[test]
fn every_edge_has_a_source_line_in_the_program_file() {
    let p = load("int g;\nvoid h(int a) { g = a; }\nint main() {\n  h(1);\n  h(2);\n  return g;\n}\n");
    assert!(p.edges.iter().all(|e| e.source.file == 0 && e.source.line >= 1));
    let calls: Vec<u32> = p
        .edges
        .iter()
        .filter(|e| matches!(e.op, Operation::Call { .. }))
        .map(|e| e.source.line)
        .collect();
    assert_eq!(calls, vec![4, 5]);
    let h = p.function(p.function_by_name("h").expect("h"));
    assert_eq!(h.return_type, None);
    assert!(h.return_var.is_none());
    assert_eq!(p.in_edges(h.exit).len(), 1);
}
