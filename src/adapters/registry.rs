//! Finding adapters and their tools: the built-in `tool-adapters/*.yaml` (embedded in the
//! binary, so an installed `baton` has them), then every `*.yaml` in the directories named by
//! `--adapters DIR` and `BATON_ADAPTERS` (colon-separated). A later adapter with the same tool
//! name replaces an earlier one (a user may override a built-in adapter).

use super::spec::Adapter;
use super::{extract, AdapterError, DEFAULT_TOOLS_DIR};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The built-in adapters: file name and text.
const BUILTIN: [(&str, &str); 9] = [
    ("cbmc.yaml", include_str!("../../tool-adapters/cbmc.yaml")),
    ("esbmc.yaml", include_str!("../../tool-adapters/esbmc.yaml")),
    (
        "cpachecker.yaml",
        include_str!("../../tool-adapters/cpachecker.yaml"),
    ),
    (
        "uautomizer.yaml",
        include_str!("../../tool-adapters/uautomizer.yaml"),
    ),
    (
        "symbiotic.yaml",
        include_str!("../../tool-adapters/symbiotic.yaml"),
    ),
    ("2ls.yaml", include_str!("../../tool-adapters/2ls.yaml")),
    ("klee.yaml", include_str!("../../tool-adapters/klee.yaml")),
    ("afl.yaml", include_str!("../../tool-adapters/afl.yaml")),
    (
        "frama-c-eva.yaml",
        include_str!("../../tool-adapters/frama-c-eva.yaml"),
    ),
];

/// The environment variable naming extra adapter directories (colon-separated).
pub const ADAPTERS_ENV: &str = "BATON_ADAPTERS";

/// Every adapter Baton knows, by tool name.
#[derive(Debug, Clone)]
pub struct Registry {
    adapters: BTreeMap<String, Adapter>,
}

impl Registry {
    /// The built-in adapters only.
    pub fn builtin() -> Result<Registry, AdapterError> {
        let mut adapters = BTreeMap::new();
        for (file, text) in BUILTIN {
            let a = Adapter::parse(
                text,
                &format!("tool-adapters/{file} (built in)"),
                None,
                &extract::NAMES,
            )?;
            adapters.insert(a.name().to_string(), a);
        }
        Ok(Registry { adapters })
    }

    /// The built-in adapters, then those in `dirs`, then those in `BATON_ADAPTERS`'s directories.
    pub fn load(dirs: &[PathBuf]) -> Result<Registry, AdapterError> {
        let mut registry = Registry::builtin()?;
        let mut all: Vec<PathBuf> = dirs.to_vec();
        if let Some(env) = std::env::var_os(ADAPTERS_ENV) {
            all.extend(std::env::split_paths(&env).filter(|p| !p.as_os_str().is_empty()));
        }
        for dir in all {
            registry.add_dir(&dir)?;
        }
        Ok(registry)
    }

    /// Adds every `*.yaml`/`*.yml` adapter of `dir` (sorted by name).
    pub fn add_dir(&mut self, dir: &Path) -> Result<(), AdapterError> {
        let io = |source| AdapterError::Io {
            path: dir.to_path_buf(),
            source,
        };
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(io)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml")))
            .collect();
        files.sort();
        for file in files {
            let text = crate::input_file::read_text(&file, crate::input_file::MAX_DEFINITION_BYTES).map_err(
                |source| AdapterError::Io {
                    path: file.clone(),
                    source,
                },
            )?;
            let a = Adapter::parse(
                &text,
                &file.display().to_string(),
                Some(dir.to_path_buf()),
                &extract::NAMES,
            )?;
            self.adapters.insert(a.name().to_string(), a);
        }
        Ok(())
    }

    /// The adapter of `tool`.
    pub fn get(&self, tool: &str) -> Option<&Adapter> {
        self.adapters.get(tool)
    }

    /// Every tool name.
    pub fn names(&self) -> Vec<String> {
        self.adapters.keys().cloned().collect()
    }

    /// Every adapter, by name.
    pub fn adapters(&self) -> impl Iterator<Item = &Adapter> {
        self.adapters.values()
    }
}

/// Where executables are looked for, for messages.
pub fn search_path_text() -> String {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("BATON_TOOLS_DIR") {
        dirs.push(format!("{}/bin", PathBuf::from(d).display()));
    }
    dirs.push(format!("{DEFAULT_TOOLS_DIR}/bin"));
    dirs.push("PATH".into());
    dirs.join(", ")
}

impl Adapter {
    /// Finds one executable name: a name with `/` relative to the adapter's directory, any other
    /// name with [`super::find_executable`].
    fn find_name(&self, name: &str) -> Option<PathBuf> {
        if name.contains('/') {
            let path = match &self.dir {
                Some(d) if !Path::new(name).is_absolute() => d.join(name),
                _ => PathBuf::from(name),
            };
            return super::is_executable(&path).then_some(path);
        }
        super::find_executable(name)
    }

    /// Every role with the executable found for it (the first alternative that exists).
    pub fn locate(&self) -> BTreeMap<String, Result<PathBuf, String>> {
        self.spec
            .executables
            .iter()
            .map(|(role, exe)| {
                let names = exe.names();
                let found = names
                    .iter()
                    .find_map(|n| self.find_name(n))
                    .ok_or_else(|| names.join(" or "));
                (role.clone(), found)
            })
            .collect()
    }

    /// The executables, or the first one missing (role, names tried).
    pub fn executables(&self) -> Result<BTreeMap<String, PathBuf>, (String, String)> {
        self.locate()
            .into_iter()
            .map(|(role, r)| r.map(|p| (role.clone(), p)).map_err(|n| (role, n)))
            .collect()
    }

    /// The tool's human-readable name: the first word of `about` (`KLEE, symbolic execution`),
    /// else the tool name.
    pub fn display_name(&self) -> &str {
        self.spec
            .about
            .split([',', ' '])
            .next()
            .filter(|w| !w.is_empty())
            .unwrap_or(self.name())
    }

    /// What to tell a user whose tool is missing.
    pub fn missing_hint(&self) -> String {
        match (&self.spec.not_installable, &self.spec.install) {
            (Some(why), _) => format!(
                "{} cannot be installed on this machine: {why}",
                self.display_name()
            ),
            (None, Some(how)) => how.clone(),
            (None, None) => "install it or put it on PATH".to_string(),
        }
    }

    /// Runs the version command; the version (regex group 1, or the first non-empty line).
    pub fn query_version(&self) -> Option<String> {
        let v = self.spec.version.as_ref()?;
        let exes = self.executables().ok()?;
        let argv: Vec<String> = v
            .command
            .iter()
            .map(|a| super::spec::substitute(a, &|p| exes.get(p).map(|x| x.display().to_string())))
            .collect::<Result<_, _>>()
            .ok()?;
        // Through the exec layer: a tool that hangs on `--version` (or floods its output) is
        // stopped after a few seconds and leaves no process behind.
        let limits = crate::exec::Limits {
            wall_time: Some(VERSION_QUERY_TIME),
            cpu_time: Some(VERSION_QUERY_TIME),
            grace: std::time::Duration::from_millis(200),
            output_cap: VERSION_OUTPUT_CAP,
            ..Default::default()
        };
        let report = crate::exec::run(&crate::exec::ToolCommand::new(argv), &limits).ok()?;
        if report.limit_hit.is_some() {
            return None;
        }
        let text = report.stdout_text().ok()? + &report.stderr_text().ok()?;
        // Terminal colour codes (afl-fuzz prints them even into a pipe).
        let text = regex::Regex::new(r"\x1b\[[0-9;]*m")
            .expect("fixed regex")
            .replace_all(&text, "");
        match &self.version_regex {
            Some(re) => text.lines().find_map(|l| {
                re.captures(l).map(|c| {
                    c.get(1)
                        .or_else(|| c.get(0))
                        .map_or("", |m| m.as_str())
                        .trim()
                        .to_string()
                })
            }),
            None => text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(str::to_string),
        }
    }
}

/// How long a tool may take to print its version before `baton tools` gives up on it.
const VERSION_QUERY_TIME: std::time::Duration = std::time::Duration::from_secs(5);
/// Bytes of a version query's output kept (the version is in the first lines).
const VERSION_OUTPUT_CAP: u64 = 64 * 1024;

/// What `baton tools` reports about one adapter.
#[derive(Debug, Clone)]
pub struct ToolStatus {
    /// The tool's name.
    pub tool: String,
    /// Where the adapter came from.
    pub origin: String,
    /// Each role with the executable found or the names tried.
    pub executables: Vec<(String, Result<PathBuf, String>)>,
    /// The version, if the tool could be run.
    pub version: Option<String>,
    /// Why the tool cannot be installed here, if it cannot.
    pub not_installable: Option<String>,
}

/// Looks up every adapter's executables and asks each tool for its version.
pub fn tool_status(registry: &Registry) -> Vec<ToolStatus> {
    registry
        .adapters()
        .map(|a| ToolStatus {
            tool: a.name().to_string(),
            origin: a.origin.clone(),
            executables: a.locate().into_iter().collect(),
            version: a.query_version(),
            not_installable: a.spec.not_installable.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_adapters_parse() {
        let r = Registry::builtin().unwrap();
        for t in [
            "cbmc",
            "esbmc",
            "cpachecker",
            "uautomizer",
            "symbiotic",
            "2ls",
            "klee",
            "afl",
            "frama-c-eva",
        ] {
            assert!(r.get(t).is_some(), "{t}");
        }
        assert!(r.get("klee").unwrap().spec.not_installable.is_some());
    }

    /// The result rules of the adapters whose tools cannot be installed here, on outputs written
    /// from the tools' documented formats (docs/TOOLS.md, after BenchExec's tool-info modules
    /// and the tools' SV-COMP wrappers) — fixtures written from the documentation, not
    /// recorded from the tools.
    #[test]
    fn result_rules_on_documented_outputs() {
        use super::super::spec::{first_match, RuleVerdict::*};
        let r = Registry::builtin().unwrap();
        let cases: [(&str, Option<i32>, &str, _); 24] = [
            ("esbmc", Some(0), "Verifying with ESBMC\nVERIFICATION SUCCESSFUL\nTRUE\n", True),
            ("esbmc", Some(0), "Verifying with ESBMC\nVERIFICATION FAILED\nFALSE_REACH\n", False),
            ("esbmc", Some(0), "VERIFICATION FAILED\nFALSE_DEREF\n", Unknown),
            ("esbmc", Some(0), "Timed out\n", Unknown),
            ("esbmc", Some(1), "Unsupported Property\n", Error),
            ("cpachecker", Some(0), "Verification result: TRUE. No property violation found by chosen configuration.\n", True),
            ("cpachecker", Some(0), "Verification result: FALSE. Property violation (unreach-call: reach_error(); called in line 5) found by chosen configuration.\n", False),
            ("cpachecker", Some(0), "Verification result: UNKNOWN, incomplete analysis.\n", Unknown),
            ("cpachecker", Some(1), "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space\n", Error),
            ("cpachecker", Some(0), "Error: Parsing failed (see log)\n", Error),
            ("uautomizer", Some(0), "Version 4f54f8f5\nResult:\nTRUE\n", True),
            ("uautomizer", Some(0), "Result:\nFALSE\n", False),
            ("uautomizer", Some(0), "Result:\nFALSE(valid-deref)\n", Unknown),
            ("uautomizer", Some(0), "Result:\nUNKNOWN: Overapproximated counterexample\n", Unknown),
            ("uautomizer", Some(7), "Result:\nERROR: UNSUPPORTED SYNTAX\n", Error),
            ("symbiotic", Some(0), "INFO: Starting verification\nRESULT: true\nINFO: Total time elapsed: 1.2\n", True),
            ("symbiotic", Some(0), "RESULT: false(unreach-call)\n", False),
            ("symbiotic", Some(0), "RESULT: unknown\n", Unknown),
            ("symbiotic", Some(1), "RESULT: ERROR (parsing failed)\n", Error),
            ("2ls", Some(0), "TRUE\n", True),
            ("2ls", Some(10), "FALSE\n", False),
            ("2ls", Some(10), "FALSE(no-overflow)\n", Unknown),
            ("2ls", Some(5), "UNKNOWN\n", Unknown),
            ("klee", Some(0), "KLEE: done: explored paths = 4\nKLEE: done: completed paths = 4\n", Unknown),
        ];
        for (tool, code, output, want) in cases {
            let a = r.get(tool).unwrap();
            let got = first_match(&a.rules, code, output).map(|rule| rule.verdict);
            assert_eq!(got, Some(want), "{tool} on {output:?}");
        }
    }

    #[test]
    fn user_directory_adds_and_overrides() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("mine.yaml"),
            "tool: mine\nexecutables: { verifier: ./mine.sh }\ncommand: [\"{verifier}\", \"{program}\"]\nresult: [ { verdict: unknown } ]\ncontributes: nothing\n",
        )
        .unwrap();
        let mut r = Registry::builtin().unwrap();
        r.add_dir(dir.path()).unwrap();
        let a = r.get("mine").unwrap();
        assert_eq!(a.dir.as_deref(), Some(dir.path()));
        assert!(a.executables().is_err(), "mine.sh does not exist yet");
        std::fs::write(dir.path().join("bad.yaml"), "tool: bad\n").unwrap();
        let e = r.add_dir(dir.path()).unwrap_err().to_string();
        assert!(e.contains("bad.yaml"), "{e}");
    }
}
