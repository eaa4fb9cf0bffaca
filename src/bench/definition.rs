//! BenchExec benchmark definitions (`<benchmark tool="baton">` XML), read as BenchExec reads
//! them: one run set per `<rundefinition>` with the benchmark's and its own `<tasks>`, options
//! of `<benchmark>`, `<rundefinition>` and `<tasks>`, `<propertyfile>` (with `expectedverdict`)
//! at any of the three levels, `${…}` variables, and limits. What Baton does not do (cluster
//! requirements, result files, extra columns) is named in a warning, never ignored silently.

use super::inputs::{check_name, expand_glob, push_unique, tasks_from_set};
use super::report::benchexec_instance;
use super::{parse_memory, parse_time, BenchError, BenchLimits, Benchmark, RunDefinition};
use super::{parse_xml, TaskSettings};
use crate::input_file::{read_text, MAX_DEFINITION_BYTES};
use crate::task::{Property, Task, TaskError};
use crate::xml::Element;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Variables that depend on the task and are substituted when its run starts.
const TASK_VARS: [&str; 8] = [
    "taskdef_name",
    "taskdef_path",
    "taskdef_path_abs",
    "inputfile_name",
    "inputfile_path",
    "inputfile_path_abs",
    "logfile_path",
    "logfile_path_abs",
];

/// Replaces `${name}` by the value `vars` gives; names in `later` are left for later; any other
/// name is an error naming it.
fn substitute(text: &str, vars: &[(&str, String)], later: &[&str]) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(len) = rest[start + 2..].find('}') else {
            return Err(format!("unclosed `${{` in `{text}`"));
        };
        let name = &rest[start + 2..start + 2 + len];
        match vars.iter().find(|(k, _)| *k == name) {
            Some((_, v)) => out.push_str(v),
            None if later.contains(&name) => out.push_str(&rest[start..start + 3 + len]),
            None => {
                let mut known: Vec<&str> = vars.iter().map(|(k, _)| *k).collect();
                known.extend(later);
                return Err(format!(
                    "unknown variable `${{{name}}}` (known here: {})",
                    known.join(", ")
                ));
            }
        }
        rest = &rest[start + 3 + len..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Substitutes the per-task variables of BenchExec (`${taskdef_name}`, `${taskdef_path}`,
/// `${taskdef_path_abs}` for task definitions, `${inputfile_…}` for C files, `${logfile_path}`,
/// `${logfile_path_abs}`) in one argument of the run on `task`.
pub fn substitute_task_vars(arg: &str, task: &Path, log_dir: &Path) -> String {
    if !arg.contains("${") {
        return arg.to_string();
    }
    let prefix = if task.extension().is_some_and(|e| e == "yml" || e == "yaml") {
        "taskdef"
    } else {
        "inputfile"
    };
    let dir = task.parent().unwrap_or(Path::new("."));
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let name = task
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let vars = [
        (format!("{prefix}_name"), name),
        (format!("{prefix}_path"), dir.display().to_string()),
        (format!("{prefix}_path_abs"), abs(dir).display().to_string()),
        ("logfile_path".to_string(), log_dir.display().to_string()),
        ("logfile_path_abs".to_string(), abs(log_dir).display().to_string()),
    ];
    let vars: Vec<(&str, String)> = vars.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    // Loading checked every name; the other kind's names (inputfile_… of a .yml) stay as text.
    substitute(arg, &vars, &TASK_VARS).unwrap_or_else(|_| arg.to_string())
}

/// A `<propertyfile>`: the file (variables substituted, relative to the definition's folder),
/// the `expectedverdict` filter, and its line.
#[derive(Debug, Clone)]
struct PropertyTag {
    file: PathBuf,
    expected: Option<String>,
    line: usize,
}

/// The reader of one benchmark definition: its file name for errors, folder and variables.
struct Reader<'a> {
    file: String,
    dir: &'a Path,
    vars: Vec<(&'static str, String)>,
    warnings: Vec<String>,
}

impl Reader<'_> {
    fn malformed(&self, line: usize, message: impl Into<String>) -> BenchError {
        BenchError::Malformed {
            file: self.file.clone(),
            line,
            message: message.into(),
        }
    }

    /// The text of `el` with benchmark variables substituted (task variables only in options).
    fn text(&self, el: &Element, task_vars: bool) -> Result<String, BenchError> {
        let later: &[&str] = if task_vars { &TASK_VARS } else { &[] };
        substitute(el.text.trim(), &self.vars, later).map_err(|m| self.malformed(el.line, m))
    }

    /// The arguments of `<option name="N">V</option>` children, one group per element.
    fn options(&self, el: &Element) -> Result<Vec<Vec<String>>, BenchError> {
        let mut groups = Vec::new();
        for child in el.children_named("option") {
            let Some(name) = child.attr("name") else {
                return Err(self.malformed(child.line, "<option> without attribute `name`"));
            };
            let name = substitute(name, &self.vars, &TASK_VARS).map_err(|m| self.malformed(child.line, m))?;
            let mut args = vec![name];
            let value = self.text(child, true)?;
            if !value.is_empty() {
                args.push(value);
            }
            groups.push(args);
        }
        Ok(groups)
    }

    /// The `<propertyfile>` child of `el`, if any (at most one).
    fn property_tag(&self, el: &Element) -> Result<Option<PropertyTag>, BenchError> {
        let mut tags = el.children_named("propertyfile");
        let Some(tag) = tags.next() else {
            return Ok(None);
        };
        if let Some(second) = tags.next() {
            return Err(self.malformed(second.line, "more than one <propertyfile>"));
        }
        let expected = tag.attr("expectedverdict").map(str::to_string);
        if let Some(e) = &expected {
            let valid = matches!(e.as_str(), "true" | "false" | "unknown")
                || (e.starts_with("false(") && e.ends_with(')'));
            if !valid {
                return Err(self.malformed(
                    tag.line,
                    format!("expectedverdict `{e}`: expected true, false, false(…) or unknown"),
                ));
            }
        }
        let path = self.text(tag, false)?;
        let mut found =
            expand_glob(self.dir, &path, "", &mut Vec::new()).map_err(|m| self.malformed(tag.line, m))?;
        // A property file need not have a task file's extension: take the path as written.
        if found.is_empty() {
            found.push(self.dir.join(&path));
        }
        if found.len() > 1 {
            return Err(self.malformed(tag.line, format!("property file `{path}` matches several files")));
        }
        let file = found.remove(0);
        if !file.is_file() {
            return Err(self.malformed(
                tag.line,
                format!("property file {} does not exist", file.display()),
            ));
        }
        // Absolute: result files name it, and they are read from another folder.
        let file = file.canonicalize().unwrap_or(file);
        Ok(Some(PropertyTag {
            file,
            expected,
            line: tag.line,
        }))
    }

    /// Checks `<requiredfiles>` patterns of `el`: Baton runs without a container, so the files
    /// are readable by every run; a pattern that matches nothing is a warning.
    fn required_files(&mut self, el: &Element) -> Result<(), BenchError> {
        for tag in el.children_named("requiredfiles") {
            let pattern = self.text(tag, false)?;
            let full = self.dir.join(&pattern).display().to_string();
            let matched = glob::glob(&full)
                .map_err(|e| self.malformed(tag.line, format!("invalid pattern `{pattern}`: {e}")))?
                .flatten()
                .next()
                .is_some();
            if !matched {
                self.warnings.push(format!(
                    "{}:{}: required files `{pattern}` match no file",
                    self.file, tag.line
                ));
            }
        }
        Ok(())
    }

    /// The tasks of one `<tasks>` element and their settings: includes (globs), includesfiles
    /// (`.set`), minus excludes; with a property file only the tasks that have that property
    /// (and the `expectedverdict`, if given), as BenchExec selects them.
    fn tasks(
        &mut self,
        el: &Element,
        inherited: Option<&PropertyTag>,
    ) -> Result<Vec<(PathBuf, TaskSettings)>, BenchError> {
        let mut tasks = Vec::new();
        let mut excluded = Vec::new();
        for child in &el.children {
            let line = child.line;
            match child.name.as_str() {
                "include" | "exclude" => {
                    let pattern = self.text(child, false)?;
                    let place = format!("{}:{line}", self.file);
                    let found = expand_glob(self.dir, &pattern, &place, &mut self.warnings)
                        .map_err(|m| self.malformed(line, m))?;
                    if child.name == "include" {
                        push_unique(&mut tasks, found);
                    } else {
                        excluded.extend(found);
                    }
                }
                "includesfile" | "excludesfile" => {
                    let set = self.dir.join(self.text(child, false)?);
                    let found = tasks_from_set(&set, &mut self.warnings)
                        .map_err(|e| self.malformed(line, e.to_string()))?;
                    if child.name == "includesfile" {
                        push_unique(&mut tasks, found);
                    } else {
                        excluded.extend(found);
                    }
                }
                "option" | "propertyfile" | "requiredfiles" => {}
                other => {
                    return Err(self.malformed(line, format!("unsupported element <{other}> in <tasks>")))
                }
            }
        }
        tasks.retain(|t| !excluded.contains(t));
        self.required_files(el)?;
        let args: Vec<String> = self.options(el)?.into_iter().flatten().collect();
        let own = self.property_tag(el)?;
        let Some(prop) = own.as_ref().or(inherited) else {
            return Ok(tasks
                .into_iter()
                .map(|t| {
                    (
                        t,
                        TaskSettings {
                            args: args.clone(),
                            property_file: None,
                        },
                    )
                })
                .collect());
        };
        let name = el.attr("name").unwrap_or("(unnamed)");
        let property = Property::of_file(&prop.file).map_err(|e| self.malformed(prop.line, e.to_string()))?;
        if let Some(reason) = property.unsupported_reason() {
            self.warnings.push(format!(
                "{}:{}: tasks `{name}`: {}: {reason}; its {} tasks are skipped",
                self.file,
                prop.line,
                prop.file.display(),
                tasks.len()
            ));
            return Ok(Vec::new());
        }
        let wanted = Some(prop.file.clone());
        let mut kept = Vec::new();
        let (mut other_property, mut other_verdict) = (0, 0);
        for t in tasks {
            let is_definition = t.extension().is_some_and(|e| e == "yml" || e == "yaml");
            if is_definition {
                let task = match Task::load(&t, Default::default()) {
                    Ok(task) => task,
                    Err(TaskError::Unsupported { .. }) => {
                        other_property += 1;
                        continue;
                    }
                    Err(e) => return Err(self.malformed(el.line, e.to_string())),
                };
                if task.property_file.and_then(|p| p.canonicalize().ok()) != wanted {
                    other_property += 1;
                    continue;
                }
                if let Some(filter) = &prop.expected {
                    let verdict = match task.expected {
                        Some(true) => "true",
                        Some(false) => "false",
                        None => "unknown",
                    };
                    // Baton's tasks have no subproperty: `false(…)` selects every false task.
                    let base = filter.split('(').next().unwrap_or(filter);
                    if verdict != base {
                        other_verdict += 1;
                        continue;
                    }
                }
            }
            kept.push((
                t,
                TaskSettings {
                    args: args.clone(),
                    property_file: Some(prop.file.clone()),
                },
            ));
        }
        if other_property > 0 || other_verdict > 0 {
            self.warnings.push(format!(
                "{}:{}: tasks `{name}`: {other_property} tasks without the property of {} and {other_verdict} with another expected verdict are not run",
                self.file,
                el.line,
                prop.file.display()
            ));
        }
        if prop.expected.is_some()
            && kept
                .iter()
                .any(|(t, _)| t.extension().is_some_and(|e| e == "c" || e == "i"))
        {
            self.warnings.push(format!(
                "{}:{}: expectedverdict does not select C files without a task definition (as in BenchExec)",
                self.file, prop.line
            ));
        }
        Ok(kept)
    }
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

/// Attributes of `<benchmark>` Baton reads.
const BENCHMARK_ATTRS: [&str; 7] = [
    "tool",
    "timelimit",
    "hardtimelimit",
    "walltimelimit",
    "memlimit",
    "cpuCores",
    "displayName",
];

/// The limits of `<benchmark timelimit= hardtimelimit= walltimelimit= memlimit= cpuCores=>`.
fn limits_of(root: &Element, r: &Reader<'_>) -> Result<BenchLimits, BenchError> {
    let at = |e: BenchError| r.malformed(root.line, e.to_string());
    let mut limits = BenchLimits::default();
    if let Some(t) = root.attr("timelimit") {
        limits.cpu_time = parse_time(t).map_err(at)?;
        limits.hard_cpu_time = limits.cpu_time;
    }
    if let Some(t) = root.attr("hardtimelimit") {
        limits.hard_cpu_time = parse_time(t).map_err(at)?.max(limits.cpu_time);
    }
    if let Some(t) = root.attr("walltimelimit") {
        limits.wall_time = Some(parse_time(t).map_err(at)?);
    }
    if let Some(m) = root.attr("memlimit") {
        limits.memory = Some(parse_memory(m).map_err(at)?);
    }
    if let Some(c) = root.attr("cpuCores") {
        limits.cpu_cores = Some(
            c.trim()
                .parse()
                .map_err(|_| r.malformed(root.line, format!("cpuCores `{c}` is not a number")))?,
        );
    }
    Ok(limits)
}

/// Reads a benchmark definition. Paths are relative to the definition's folder; errors carry
/// `file:line`; what Baton does not do is in [`Benchmark::warnings`].
pub fn load_benchmark_xml(path: &Path) -> Result<Benchmark, BenchError> {
    let text = read_text(path, MAX_DEFINITION_BYTES)
        .map_err(|e| BenchError::io(path, "cannot read benchmark definition", e))?;
    let file = path.display().to_string();
    let root = parse_xml(&text, &file, "benchmark")?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|s| s.to_string_lossy().trim_end_matches(".xml").to_string())
        .unwrap_or_else(|| "benchmark".into());
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut r = Reader {
        file: file.clone(),
        dir,
        vars: vec![
            ("benchmark_name", name.clone()),
            ("benchmark_date", benchexec_instance(SystemTime::now())),
            ("benchmark_path", dir.display().to_string()),
            ("benchmark_path_abs", abs(dir).display().to_string()),
            (
                "benchmark_file",
                path.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            ),
            ("benchmark_file_abs", abs(path).display().to_string()),
        ],
        warnings: Vec::new(),
    };
    if let Some(tool) = root.attr("tool") {
        if !tool.eq_ignore_ascii_case("baton") {
            return Err(r.malformed(
                root.line,
                format!("tool `{tool}`: only tool=\"baton\" is supported"),
            ));
        }
    }
    for (key, _) in &root.attrs {
        if !BENCHMARK_ATTRS.contains(&key.as_str()) {
            r.warnings.push(format!(
                "{file}:{}: attribute `{key}` of <benchmark> is not used by Baton",
                root.line
            ));
        }
    }
    let limits = limits_of(&root, &r)?;
    let global_property = r.property_tag(&root)?;
    r.required_files(&root)?;
    for child in &root.children {
        let what = match child.name.as_str() {
            "option" | "tasks" | "rundefinition" | "propertyfile" | "requiredfiles" => continue,
            "require" => "<require> (cluster requirements) is not checked: runs are local",
            "resultfiles" => "<resultfiles> is not kept: Baton's runs leave their results in the log",
            "columns" => "<columns> is not used: Baton's result XML has fixed columns",
            other => {
                return Err(r.malformed(
                    child.line,
                    format!("unsupported element <{other}> in <benchmark>"),
                ))
            }
        };
        r.warnings.push(format!("{file}:{}: {what}", child.line));
    }
    let mut rundefs: Vec<&Element> = root.children_named("rundefinition").collect();
    let implicit = Element {
        name: "rundefinition".into(),
        line: root.line,
        ..Element::default()
    };
    if rundefs.is_empty() {
        rundefs.push(&implicit);
    }
    let global_blocks: Vec<&Element> = root.children_named("tasks").collect();
    let mut run_definitions: Vec<RunDefinition> = Vec::new();
    for rd in rundefs {
        let rd_name = rd.attr("name").unwrap_or("");
        for c in &rd.children {
            if !matches!(
                c.name.as_str(),
                "option" | "tasks" | "propertyfile" | "requiredfiles"
            ) {
                return Err(r.malformed(
                    c.line,
                    format!("unsupported element <{}> in <rundefinition>", c.name),
                ));
            }
        }
        r.vars.retain(|(k, _)| *k != "rundefinition_name");
        r.vars.push(("rundefinition_name", rd_name.to_string()));
        let global = r.options(&root)?;
        let args = combine_options(&global, &r.options(rd)?);
        let property = r.property_tag(rd)?.or_else(|| global_property.clone());
        r.required_files(rd)?;
        let blocks: Vec<&Element> = global_blocks
            .iter()
            .copied()
            .chain(rd.children_named("tasks"))
            .collect();
        // BenchExec's run-set name: the run definition's, with the task set's if it is the only one.
        let mut names: Vec<&str> = vec![rd_name];
        if let [only] = blocks.as_slice() {
            names.push(only.attr("name").unwrap_or(""));
        }
        let names: Vec<&str> = names.into_iter().filter(|n| !n.is_empty()).collect();
        let set_name = if names.is_empty() {
            "default".to_string()
        } else {
            names.join(".")
        };
        check_name(&set_name).map_err(|m| r.malformed(rd.line, m))?;
        if run_definitions.iter().any(|x| x.name == set_name) {
            return Err(r.malformed(rd.line, format!("run definition `{set_name}` defined twice")));
        }
        let mut tasks = Vec::new();
        let mut settings = HashMap::new();
        for block in blocks {
            for (t, s) in r.tasks(block, property.as_ref())? {
                if !tasks.contains(&t) {
                    tasks.push(t.clone());
                    settings.insert(t, s);
                }
            }
        }
        if tasks.is_empty() {
            return Err(r.malformed(rd.line, format!("run definition `{set_name}` has no tasks")));
        }
        settings.retain(|_, s: &mut TaskSettings| *s != TaskSettings::default());
        run_definitions.push(RunDefinition {
            name: set_name,
            args,
            tasks,
            settings,
            incremental: false,
        });
    }
    Ok(Benchmark {
        name,
        run_definitions,
        limits,
        warnings: r.warnings,
        sequences: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitutes_variables_and_names_unknown_ones() {
        let vars = [("benchmark_name", "b".to_string())];
        assert_eq!(substitute("x${benchmark_name}y", &vars, &[]).unwrap(), "xby");
        assert_eq!(
            substitute("${taskdef_name}", &vars, &TASK_VARS).unwrap(),
            "${taskdef_name}"
        );
        let e = substitute("${nope}", &vars, &[]).unwrap_err();
        assert!(e.contains("`${nope}`") && e.contains("benchmark_name"), "{e}");
        assert!(substitute("${open", &vars, &[]).is_err());
        let arg = substitute_task_vars(
            "--witness=${logfile_path}/${taskdef_name}.yml",
            Path::new("/t/a.yml"),
            Path::new("/o/logs/r"),
        );
        assert_eq!(arg, "--witness=/o/logs/r/a.yml.yml");
        assert_eq!(
            substitute_task_vars("${inputfile_path}", Path::new("/t/a.c"), Path::new("/o")),
            "/t"
        );
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
        std::fs::write(
            &def,
            "<benchmark>\n<tasks><include>${nope}/*.yml</include></tasks>\n</benchmark>\n",
        )
        .unwrap();
        let e = load_benchmark_xml(&def).unwrap_err().to_string();
        assert!(e.contains("def.xml:2:") && e.contains("${nope}"), "{e}");
    }
}
