//! Where tasks and run definitions come from: task lists, the shared `MANIFEST.csv`,
//! sv-benchmarks `.set` files and `NAME=ARGS` run definitions (benchmark definitions:
//! [`super::definition`]).

use super::BenchError;
use crate::input_file::{read_text, MAX_DEFINITION_BYTES};
use crate::task::is_task_file;
use std::path::{Path, PathBuf};

/// Canonical path of a task definition (errors name the path).
pub fn canonical_task(path: &Path) -> Result<PathBuf, BenchError> {
    path.canonicalize()
        .map_err(|e| BenchError::io(path, "cannot open task definition", e))
}

/// Appends `items` to `out`, keeping the first occurrence of each.
pub fn push_unique(out: &mut Vec<PathBuf>, items: impl IntoIterator<Item = PathBuf>) {
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
}

/// Tasks of the shared benchmark manifest (`paper_table,paper_name,task_yml,…`; `task_yml`
/// relative to the manifest's folder), restricted to a paper table (`II` also selects `II+III`).
pub fn tasks_from_manifest(path: &Path, table: Option<&str>) -> Result<Vec<PathBuf>, BenchError> {
    let text =
        read_text(path, MAX_DEFINITION_BYTES).map_err(|e| BenchError::io(path, "cannot read manifest", e))?;
    let file = path.display().to_string();
    let mut lines = text.lines().enumerate();
    let header: Vec<&str> = match lines.next() {
        Some((_, h)) => h.split(',').map(str::trim).collect(),
        None => {
            return Err(BenchError::Malformed {
                file,
                line: 1,
                message: "empty manifest".into(),
            })
        }
    };
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| BenchError::Malformed {
                file: file.clone(),
                line: 1,
                message: format!("no column `{name}` in the header"),
            })
    };
    let yml_col = column("task_yml")?;
    let table_col = column("paper_table")?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tasks = Vec::new();
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let (Some(yml), Some(tables)) = (fields.get(yml_col), fields.get(table_col)) else {
            return Err(BenchError::Malformed {
                file: file.clone(),
                line: i + 1,
                message: format!("expected {} fields, found {}", header.len(), fields.len()),
            });
        };
        if let Some(wanted) = table {
            if !tables.split('+').any(|t| t == wanted) {
                continue;
            }
        }
        let task = canonical_task(&dir.join(yml)).map_err(|e| BenchError::Malformed {
            file: file.clone(),
            line: i + 1,
            message: e.to_string(),
        })?;
        push_unique(&mut tasks, [task]);
    }
    Ok(tasks)
}

/// Expands one glob pattern relative to `dir` into the task files it matches, sorted; other
/// matched files (not a task definition or C file, see [`is_task_file`]) are skipped with a
/// warning naming them, at `place` (`FILE:LINE`).
pub(crate) fn expand_glob(
    dir: &Path,
    pattern: &str,
    place: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<PathBuf>, String> {
    let full = if Path::new(pattern).is_absolute() {
        pattern.to_string()
    } else {
        dir.join(pattern).display().to_string()
    };
    let paths = glob::glob(&full).map_err(|e| format!("invalid pattern `{pattern}`: {e}"))?;
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for entry in paths {
        let p = entry.map_err(|e| format!("pattern `{pattern}`: {e}"))?;
        if !p.is_file() {
            continue;
        }
        if is_task_file(&p) {
            out.push(p.canonicalize().map_err(|e| format!("{}: {e}", p.display()))?);
        } else {
            skipped.push(p.display().to_string());
        }
    }
    if out.is_empty() && skipped.is_empty() {
        warnings.push(format!("{place}: pattern `{pattern}` matches no file"));
    }
    if !skipped.is_empty() {
        let shown: Vec<&str> = skipped.iter().take(3).map(String::as_str).collect();
        warnings.push(format!(
            "{place}: pattern `{pattern}` matches {} files that are not tasks (.yml, .c, .i), skipped: {}{}",
            skipped.len(),
            shown.join(", "),
            if skipped.len() > shown.len() { ", …" } else { "" }
        ));
    }
    out.sort();
    Ok(out)
}

/// Tasks of an sv-benchmarks `.set` file: one glob pattern per line relative to the set file,
/// `#` starts a comment. Patterns that match nothing are reported in `warnings`.
pub fn tasks_from_set(path: &Path, warnings: &mut Vec<String>) -> Result<Vec<PathBuf>, BenchError> {
    let text =
        read_text(path, MAX_DEFINITION_BYTES).map_err(|e| BenchError::io(path, "cannot read set file", e))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tasks = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let pattern = line.split('#').next().unwrap_or("").trim();
        if pattern.is_empty() {
            continue;
        }
        let place = format!("{}:{}", path.display(), i + 1);
        let found = expand_glob(dir, pattern, &place, warnings).map_err(|message| BenchError::Malformed {
            file: path.display().to_string(),
            line: i + 1,
            message,
        })?;
        push_unique(&mut tasks, found);
    }
    Ok(tasks)
}

/// Splits a command line into words as a POSIX shell does (`shell-words`): whitespace
/// separates, `'…'` and `"…"` quote, `\` escapes.
pub fn split_words(text: &str) -> Result<Vec<String>, BenchError> {
    shell_words::split(text).map_err(|e| BenchError::Invalid(format!("`{text}`: {e}")))
}

/// Checks a run definition name: non-empty, letters, digits, `-`, `_`, `.`, `+` only (it
/// becomes part of file names).
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    check_file_name(name, "run definition name")
}

/// Checks a name that becomes part of a file name in the output directory: letters, digits,
/// `- _ . +`, not starting with a dot (so neither `..` nor a hidden file).
pub(crate) fn check_file_name(name: &str, what: &str) -> Result<(), String> {
    if name.is_empty()
        || name.starts_with('.')
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.+".contains(c))
    {
        return Err(format!(
            "invalid {what} `{name}` (use letters, digits, - _ . +; not starting with a dot)"
        ));
    }
    Ok(())
}

/// Puts `verify` in front of arguments that start with an option (BenchExec-style option lists
/// name no subcommand).
fn with_subcommand(mut args: Vec<String>) -> Vec<String> {
    if args.first().is_none_or(|a| a.starts_with('-')) {
        args.insert(0, "verify".to_string());
    }
    args
}

/// Parses `NAME=ARGS` (ARGS: the words after `baton`, e.g. `verify --analysis explicit`).
pub fn parse_run_definition(text: &str) -> Result<(String, Vec<String>), BenchError> {
    let Some((name, args)) = text.split_once('=') else {
        return Err(BenchError::Invalid(format!(
            "run definition `{text}` is not NAME='ARGS'"
        )));
    };
    let name = name.trim();
    check_name(name).map_err(BenchError::Invalid)?;
    Ok((name.to_string(), with_subcommand(split_words(args)?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_words_with_quotes() {
        assert_eq!(
            split_words(r#"verify  --give-up 'cpu-time=10s' "a b"\ c"#).unwrap(),
            vec!["verify", "--give-up", "cpu-time=10s", "a b c"]
        );
        assert!(split_words("'open").is_err());
        let (name, args) = parse_run_definition("e=--analysis explicit").unwrap();
        assert_eq!(name, "e");
        assert_eq!(args, vec!["verify", "--analysis", "explicit"]);
        assert!(parse_run_definition("no equals").is_err());
        assert!(parse_run_definition("a/b=verify").is_err());
    }

    #[test]
    fn reads_manifest_tables_and_set_files() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("c")).unwrap();
        for f in ["a.yml", "b.yml", "c.yml"] {
            std::fs::write(d.join("c").join(f), "").unwrap();
        }
        let manifest = d.join("MANIFEST.csv");
        std::fs::write(
            &manifest,
            "paper_table,paper_name,task_yml,expected_unreach_call\nII,a,c/a.yml,true\nII+III,b,c/b.yml,false\nIII,c,c/c.yml,true\n",
        )
        .unwrap();
        let names = |v: Vec<PathBuf>| -> Vec<String> {
            v.iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(
            names(tasks_from_manifest(&manifest, Some("II")).unwrap()),
            vec!["a.yml", "b.yml"]
        );
        assert_eq!(
            names(tasks_from_manifest(&manifest, Some("III")).unwrap()),
            vec!["b.yml", "c.yml"]
        );
        assert_eq!(tasks_from_manifest(&manifest, None).unwrap().len(), 3);
        std::fs::write(&manifest, "paper_table,task_yml\nII,c/missing.yml\n").unwrap();
        let e = tasks_from_manifest(&manifest, None).unwrap_err().to_string();
        assert!(e.contains("MANIFEST.csv:2:"), "{e}");

        let set = d.join("x.set");
        std::fs::write(&set, "# tasks\nc/[ab].yml\nc/c.yml # last\nnone/*.yml\n").unwrap();
        let mut warnings = Vec::new();
        assert_eq!(
            names(tasks_from_set(&set, &mut warnings).unwrap()),
            vec!["a.yml", "b.yml", "c.yml"]
        );
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("x.set:4:"), "{warnings:?}");
    }
}
