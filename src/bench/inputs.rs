//! Where tasks and run definitions come from: task lists, the shared `MANIFEST.csv`,
//! sv-benchmarks `.set` files, `NAME=ARGS` run definitions and BenchExec benchmark definitions
//! (a subset of BenchExec's XML format).

use super::{parse_memory, parse_time, BenchError, BenchLimits, Benchmark, RunDefinition};
use crate::input_file::{read_text, MAX_DEFINITION_BYTES};
use crate::task::is_task_file;
use crate::xml::Element;
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
fn expand_glob(
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

/// Splits a command line into words: whitespace separates, `'…'` and `"…"` quote, `\` escapes
/// the next character outside single quotes.
pub fn split_words(text: &str) -> Result<Vec<String>, BenchError> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => current.push(x),
                        None => return Err(BenchError::Invalid(format!("unclosed ' in `{text}`"))),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(x) => current.push(x),
                            None => break,
                        },
                        Some(x) => current.push(x),
                        None => return Err(BenchError::Invalid(format!("unclosed \" in `{text}`"))),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(x) = chars.next() {
                    current.push(x);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                current.push(c);
            }
        }
    }
    if in_word {
        words.push(current);
    }
    Ok(words)
}

/// Checks a run definition name: non-empty, letters, digits, `-`, `_`, `.`, `+` only (it
/// becomes part of file names).
fn check_name(name: &str) -> Result<(), String> {
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

/// Parses a benchmark or result XML file into a tree; errors name the file and line.
pub(crate) fn parse_xml(text: &str, file: &str, root_name: &str) -> Result<Element, BenchError> {
    crate::xml::parse(text, root_name).map_err(|e| BenchError::Malformed {
        file: file.to_string(),
        line: e.line,
        message: e.message,
    })
}

/// The arguments of `<option name="N">V</option>` elements among `children`, one group per
/// element.
fn options_of(el: &Element, file: &str) -> Result<Vec<Vec<String>>, BenchError> {
    let mut groups = Vec::new();
    for child in el.children.iter().filter(|c| c.name == "option") {
        let Some(name) = child.attr("name") else {
            return Err(BenchError::Malformed {
                file: file.to_string(),
                line: child.line,
                message: "<option> without attribute `name`".into(),
            });
        };
        let mut args = vec![name.to_string()];
        let value = child.text.trim();
        if !value.is_empty() {
            args.push(value.to_string());
        }
        groups.push(args);
    }
    Ok(groups)
}

/// The argv of a run definition from benchmark-level and own option groups: the first group
/// that names a subcommand (not starting with `-`; the run definition's own first) comes first,
/// then the others in order (benchmark level before own); `verify` when none names one.
fn combine_options(global: &[Vec<String>], own: &[Vec<String>]) -> Vec<String> {
    let is_sub = |g: &&Vec<String>| g.first().is_some_and(|n| !n.starts_with('-'));
    let sub = own.iter().find(is_sub).or_else(|| global.iter().find(is_sub));
    let mut args = match sub {
        Some(g) => g.clone(),
        None => vec!["verify".to_string()],
    };
    for g in global.iter().chain(own) {
        if sub.is_none_or(|s| !std::ptr::eq(s, g)) {
            args.extend(g.iter().cloned());
        }
    }
    args
}

/// The tasks of one `<tasks>` element: includes (globs), includesfiles (`.set`), minus
/// excludes; patterns relative to `dir`.
fn tasks_of(
    el: &Element,
    dir: &Path,
    file: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<PathBuf>, BenchError> {
    let malformed = |line: usize, message: String| BenchError::Malformed {
        file: file.to_string(),
        line,
        message,
    };
    let mut tasks = Vec::new();
    let mut excluded = Vec::new();
    for child in &el.children {
        let pattern = child.text.trim();
        match child.name.as_str() {
            "include" | "exclude" => {
                let place = format!("{file}:{}", child.line);
                let found = expand_glob(dir, pattern, &place, warnings)
                    .map_err(|message| malformed(child.line, message))?;
                if child.name == "include" {
                    push_unique(&mut tasks, found);
                } else {
                    excluded.extend(found);
                }
            }
            "includesfile" => {
                let found = tasks_from_set(&dir.join(pattern), warnings)
                    .map_err(|e| malformed(child.line, e.to_string()))?;
                push_unique(&mut tasks, found);
            }
            "excludesfile" => {
                excluded.extend(
                    tasks_from_set(&dir.join(pattern), warnings)
                        .map_err(|e| malformed(child.line, e.to_string()))?,
                );
            }
            "propertyfile" => {
                if !pattern.ends_with("unreach-call.prp") {
                    return Err(malformed(
                        child.line,
                        format!("property file `{pattern}`: only unreach-call is supported"),
                    ));
                }
            }
            "option" => {}
            other => {
                return Err(malformed(
                    child.line,
                    format!("unsupported element <{other}> in <tasks>"),
                ))
            }
        }
    }
    tasks.retain(|t| !excluded.contains(t));
    Ok(tasks)
}

/// Reads a benchmark definition: `<benchmark tool="baton" timelimit= hardtimelimit= memlimit=
/// cpuCores=>` with `<option>`, `<rundefinition name=>` (with `<option>`s and maybe own
/// `<tasks>`) and `<tasks>` (`<include>`, `<exclude>`, `<includesfile>`, `<excludesfile>`,
/// `<propertyfile>`). Paths are relative to the definition's folder. Errors carry `file:line`.
pub fn load_benchmark_xml(path: &Path) -> Result<Benchmark, BenchError> {
    let text = read_text(path, MAX_DEFINITION_BYTES)
        .map_err(|e| BenchError::io(path, "cannot read benchmark definition", e))?;
    let file = path.display().to_string();
    let root = parse_xml(&text, &file, "benchmark")?;
    let malformed = |line: usize, message: String| BenchError::Malformed {
        file: file.clone(),
        line,
        message,
    };
    if let Some(tool) = root.attr("tool") {
        if !tool.eq_ignore_ascii_case("baton") {
            return Err(malformed(
                root.line,
                format!("tool `{tool}`: only tool=\"baton\" is supported"),
            ));
        }
    }
    let at = |line: usize| move |e: BenchError| malformed(line, e.to_string());
    let mut limits = BenchLimits::default();
    if let Some(t) = root.attr("timelimit") {
        limits.cpu_time = parse_time(t).map_err(at(root.line))?;
        limits.hard_cpu_time = limits.cpu_time;
    }
    if let Some(t) = root.attr("hardtimelimit") {
        limits.hard_cpu_time = parse_time(t).map_err(at(root.line))?.max(limits.cpu_time);
    }
    if let Some(m) = root.attr("memlimit") {
        limits.memory = Some(parse_memory(m).map_err(at(root.line))?);
    }
    if let Some(c) = root.attr("cpuCores") {
        limits.cpu_cores = Some(
            c.trim()
                .parse()
                .map_err(|_| malformed(root.line, format!("cpuCores `{c}` is not a number")))?,
        );
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let global_options = options_of(&root, &file)?;
    let mut warnings = Vec::new();
    let mut global_tasks = Vec::new();
    let mut rundefs: Vec<(String, Vec<String>, Vec<PathBuf>, usize)> = Vec::new();
    for child in &root.children {
        match child.name.as_str() {
            "option" => {}
            "tasks" => {
                let found = tasks_of(child, dir, &file, &mut warnings)?;
                push_unique(&mut global_tasks, found);
            }
            "rundefinition" => {
                let name = child.attr("name").unwrap_or("default").to_string();
                check_name(&name).map_err(|m| malformed(child.line, m))?;
                if rundefs.iter().any(|r| r.0 == name) {
                    return Err(malformed(
                        child.line,
                        format!("run definition `{name}` defined twice"),
                    ));
                }
                let args = combine_options(&global_options, &options_of(child, &file)?);
                let mut own = Vec::new();
                for t in child.children.iter().filter(|c| c.name == "tasks") {
                    push_unique(&mut own, tasks_of(t, dir, &file, &mut warnings)?);
                }
                for c in &child.children {
                    if !matches!(c.name.as_str(), "option" | "tasks") {
                        return Err(malformed(
                            c.line,
                            format!("unsupported element <{}> in <rundefinition>", c.name),
                        ));
                    }
                }
                rundefs.push((name, args, own, child.line));
            }
            "columns" | "require" | "resultfiles" => {}
            other => {
                return Err(malformed(
                    child.line,
                    format!("unsupported element <{other}> in <benchmark>"),
                ))
            }
        }
    }
    if rundefs.is_empty() {
        rundefs.push((
            "default".into(),
            combine_options(&global_options, &[]),
            Vec::new(),
            root.line,
        ));
    }
    let mut run_definitions = Vec::new();
    for (name, args, own, line) in rundefs {
        let mut tasks = global_tasks.clone();
        push_unique(&mut tasks, own);
        if tasks.is_empty() {
            return Err(malformed(line, format!("run definition `{name}` has no tasks")));
        }
        run_definitions.push(RunDefinition { name, args, tasks });
    }
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "benchmark".into());
    Ok(Benchmark {
        name,
        run_definitions,
        limits,
        warnings,
    })
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

    #[test]
    fn reads_benchmark_definition() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["a.yml", "b.yml", "c.yml"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        std::fs::write(dir.path().join("x.set"), "# comment\nc.yml\n").unwrap();
        let xml = r#"<?xml version="1.0"?>
<benchmark tool="baton" timelimit="60 s" hardtimelimit="90s" memlimit="4 GB" cpuCores="1">
  <option name="--give-up">cpu-time=50s</option>
  <rundefinition name="explicit">
    <option name="--analysis">explicit</option>
  </rundefinition>
  <rundefinition name="flow"><option name="run">comb.yaml</option></rundefinition>
  <tasks name="t">
    <include>*.yml</include>
    <exclude>b.yml</exclude>
    <propertyfile>../properties/unreach-call.prp</propertyfile>
  </tasks>
  <tasks><includesfile>x.set</includesfile></tasks>
</benchmark>
"#;
        let def = dir.path().join("def.xml");
        std::fs::write(&def, xml).unwrap();
        let b = load_benchmark_xml(&def).unwrap();
        assert_eq!(b.limits.cpu_time, std::time::Duration::from_secs(60));
        assert_eq!(b.limits.hard_cpu_time, std::time::Duration::from_secs(90));
        assert_eq!(b.limits.memory, Some(4_000_000_000));
        assert_eq!(b.run_definitions.len(), 2);
        assert_eq!(
            b.run_definitions[0].args,
            vec!["verify", "--give-up", "cpu-time=50s", "--analysis", "explicit"]
        );
        assert_eq!(
            b.run_definitions[1].args,
            vec!["run", "comb.yaml", "--give-up", "cpu-time=50s"]
        );
        let names: Vec<_> = b.run_definitions[0]
            .tasks
            .iter()
            .map(|t| t.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["a.yml", "c.yml"]);

        let bad = "<benchmark tool=\"baton\">\n  <rundefinition name=\"x\">\n    <option>1</option>\n  </rundefinition>\n</benchmark>\n";
        std::fs::write(&def, bad).unwrap();
        let e = load_benchmark_xml(&def).unwrap_err().to_string();
        assert!(e.contains("def.xml:3:"), "{e}");
        std::fs::write(&def, "<benchmark>\n<tasks>\n</benchmark>\n").unwrap();
        let e = load_benchmark_xml(&def).unwrap_err().to_string();
        assert!(e.contains("def.xml:3:"), "{e}");
    }
}
