//! Running the `baton` binary in tests.

use std::process::Command;

/// Runs `baton ARGS`: exit status (-1 if killed by a signal), stdout, stderr.
pub fn baton(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(args)
        .output()
        .expect("baton runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
