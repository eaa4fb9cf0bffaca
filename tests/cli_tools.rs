//! `baton tools` lists every adapter with its executables; KLEE cannot be installed on the
//! project's machines, so it is always reported as not found here.

use std::process::Command;

#[test]
fn tools_lists_every_adapter_and_says_klee_is_missing() {
    let out = Command::new(env!("CARGO_BIN_EXE_baton"))
        .arg("tools")
        .output()
        .expect("baton runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for tool in ["cbmc", "afl", "klee", "native"] {
        assert!(
            text.lines().any(|l| l.starts_with(tool)),
            "{tool} listed:\n{text}"
        );
    }
    assert!(text.contains("klee: not found"), "{text}");
}
