//! The compile and link steps of the KLEE pipeline run for real when clang and llvm-link are
//! installed (they come with AFL++); KLEE itself is not installable here, so the `klee` step is
//! only checked as an argv (unit tests in src/adapters/klee.rs).

use baton::adapters::klee::{self, KleeTools};
use baton::adapters::{find_executable, CommandLine};
use baton::cfa::types::DataModel;

const PROGRAM: &str = r#"
extern int __VERIFIER_nondet_int(void);
extern long __VERIFIER_nondet_long(void);
void reach_error(void) {}
int main(void) {
  if (__VERIFIER_nondet_int() == 0x1234 && __VERIFIER_nondet_long() < 0) {
    reach_error();
  }
  return 0;
}
"#;

fn run_ok(cmd: &CommandLine) {
    let out = cmd
        .to_command()
        .output()
        .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", cmd.program));
    assert!(
        out.status.success(),
        "{:?} failed: {}",
        cmd.argv_lossy(),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn klee_bitcode_steps_run() {
    let mut tools = KleeTools {
        clang: "clang".into(),
        linker: "llvm-link".into(),
        klee: "klee".into(),
    };
    match (
        find_executable(&tools.clang.to_string_lossy()),
        find_executable(&tools.linker.to_string_lossy()),
    ) {
        (Some(clang), Some(linker)) => {
            tools.clang = clang;
            tools.linker = linker;
        }
        _ => {
            eprintln!("skipping: clang or llvm-link not found (run scripts/install-tools.sh)");
            return;
        }
    }
    let work = tempfile::tempdir().expect("tempdir");
    let dir = work.path();
    let harness = dir.join("klee-harness.c");
    let program = dir.join("prog.c");
    std::fs::write(&harness, klee::HARNESS_C).expect("write harness");
    std::fs::write(&program, PROGRAM).expect("write program");
    for model in [DataModel::ILP32, DataModel::LP64] {
        let p = klee::pipeline(&tools, &harness, &program, dir, &dir.join("klee-out"), model, 10);
        run_ok(&p.compile_harness);
        run_ok(&p.compile_program);
        run_ok(&p.link);
        let linked = std::fs::metadata(dir.join("linked.bc")).expect("linked bitcode");
        assert!(linked.len() > 0);
        // With llvm-dis: the program's own (strong) reach_error won over the harness's weak
        // one and calls the entry hook; the harness's nondet functions are linked in.
        let Some(dis) = find_executable("llvm-dis") else {
            eprintln!("llvm-dis not found: module content not checked");
            continue;
        };
        let ll = dir.join("linked.ll");
        run_ok(
            &CommandLine::new(dis)
                .arg(dir.join("linked.bc"))
                .arg("-o")
                .arg(&ll),
        );
        let text = std::fs::read_to_string(&ll).expect("read llvm text");
        let reach = text
            .split("\ndefine ")
            .find(|f| f.contains("@reach_error("))
            .expect("reach_error defined");
        assert!(!reach.starts_with("weak"), "harness definition won: {reach}");
        assert!(reach.contains("@__cyg_profile_func_enter"));
        assert!(text.contains("@__VERIFIER_nondet_long(") && text.contains("@klee_make_symbolic("));
        assert!(text.contains("reach_error.err"));
    }
}
