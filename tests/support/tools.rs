//! Whether the external tools a test needs are installed (a test without them is skipped with a
//! printed reason).

/// CBMC's three executables are found; prints why not otherwise.
pub fn cbmc_installed() -> bool {
    let ok = ["cbmc", "goto-cc", "goto-instrument"]
        .iter()
        .all(|t| baton::adapters::find_executable(t).is_some());
    if !ok {
        eprintln!("skipping: cbmc not installed (run scripts/install-tools.sh)");
    }
    ok
}
