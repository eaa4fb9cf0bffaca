//! The shared sv-benchmarks folder for tests: its path from `BATON_SV_BENCHMARKS` and the rows
//! of its `MANIFEST.csv`.
#![allow(dead_code)] // each test binary uses part of it

use std::path::{Path, PathBuf};

/// The shared benchmark folder, or `None` (with a printed reason) when it is not configured.
pub fn benchmarks() -> Option<PathBuf> {
    match std::env::var_os("BATON_SV_BENCHMARKS") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            println!("SKIP: BATON_SV_BENCHMARKS is not set (the shared sv-benchmarks folder)");
            None
        }
    }
}

/// True if a `paper_table` column names `table` (tasks in several tables join them with `+`).
pub fn in_table(tables: &str, table: &str) -> bool {
    tables.split('+').any(|t| t == table)
}

/// `(paper table, name, task file)` of the papers' tasks in `MANIFEST.csv` (tables I–III and the
/// rows `-` beside them): the 77 tasks the frontend lowers. The development set (rows `D`:
/// arrays, recursion, floats — issue #11) is left out: see [`development_tasks`].
pub fn paper_tasks(dir: &Path) -> Vec<(String, String, PathBuf)> {
    manifest_rows(dir)
        .into_iter()
        .filter(|(table, _, _)| !in_table(table, "D"))
        .collect()
}

/// `(paper table, name, task file)` of the development set (rows `D`), of which the frontend
/// lowers a part (arrays and recursion; floats not yet).
pub fn development_tasks(dir: &Path) -> Vec<(String, String, PathBuf)> {
    manifest_rows(dir)
        .into_iter()
        .filter(|(table, _, _)| in_table(table, "D"))
        .collect()
}

/// Every row of `MANIFEST.csv`.
fn manifest_rows(dir: &Path) -> Vec<(String, String, PathBuf)> {
    let file = dir.join("MANIFEST.csv");
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split(',').collect();
            (cols.len() >= 3).then(|| (cols[0].to_string(), cols[1].to_string(), dir.join(cols[2])))
        })
        .collect()
}
