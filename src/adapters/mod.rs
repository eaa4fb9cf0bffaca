//! Tool-specific logic of the external verifiers Baton drives: CBMC, AFL++ and KLEE.
//!
//! Each submodule builds the exact command lines (argv vectors, never a shell) and interprets the
//! tool's output files into Baton's terms (a violation with the nondeterministic values that
//! lead to it, a bounded or full proof, or an error). Running the commands with time limits is
//! the job of the process runner; these functions are pure apart from the tests.
//!
//! The declarative part (executable names, version command, default options) lives in one YAML
//! file per tool under `tool-adapters/`, parsed into [`ToolConfig`].

pub mod afl;
pub mod bounded;
pub mod cbmc;
pub mod klee;

use serde::Deserialize;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Errors of the adapters: configuration, output files that do not have the expected format.
#[derive(Debug, thiserror::Error)]
pub enum AdapterError {
    /// A tool configuration (YAML) could not be parsed.
    #[error("tool configuration {origin}: {message}")]
    Config {
        /// File or built-in name the configuration came from.
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A tool's output does not have the expected format.
    #[error("{tool} output {origin}: {message}")]
    Format {
        /// Which tool wrote it.
        tool: &'static str,
        /// File or stream the output came from.
        origin: String,
        /// What is wrong, with position where known.
        message: String,
    },
}

/// One command to start: program, arguments and extra environment (never through a shell).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    /// The executable (a path or a name looked up in `PATH`).
    pub program: PathBuf,
    /// The arguments after the program name.
    pub args: Vec<OsString>,
    /// Environment variables to set in addition to the inherited ones.
    pub env: Vec<(OsString, OsString)>,
    /// A file to connect to standard input, if any.
    pub stdin: Option<PathBuf>,
}

impl CommandLine {
    /// A command without extra environment and without standard input.
    pub fn new(program: impl Into<PathBuf>) -> Self {
        CommandLine {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            stdin: None,
        }
    }

    /// Appends one argument.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// The argument vector as (lossy) strings, for logs and tests.
    pub fn argv_lossy(&self) -> Vec<String> {
        std::iter::once(self.program.to_string_lossy().into_owned())
            .chain(self.args.iter().map(|a| a.to_string_lossy().into_owned()))
            .collect()
    }

    /// A `std::process::Command` with program, arguments and environment set (stdin is left to
    /// the caller, which decides how to open [`CommandLine::stdin`]).
    pub fn to_command(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(&self.program);
        cmd.args(&self.args);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }
}

/// The declarative configuration of one tool adapter (`tool-adapters/<tool>.yaml`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolConfig {
    /// The tool's name (`cbmc`, `afl`, `klee`).
    pub tool: String,
    /// Executable names by role (e.g. `compiler: goto-cc`).
    pub executables: BTreeMap<String, String>,
    /// The command that prints the tool's version.
    pub version_command: Vec<String>,
    /// Default numeric options (e.g. `unwind: 10`).
    #[serde(default)]
    pub defaults: BTreeMap<String, u64>,
    /// Environment variables the tool needs.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// The tools that have adapters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tool {
    /// CBMC, bounded model checking.
    Cbmc,
    /// AFL++, coverage-guided fuzzing.
    Afl,
    /// KLEE, symbolic execution.
    Klee,
}

impl Tool {
    /// Every tool with an adapter.
    pub const ALL: [Tool; 3] = [Tool::Cbmc, Tool::Afl, Tool::Klee];

    /// The configuration shipped in `tool-adapters/` (embedded at build time).
    pub fn builtin_config(self) -> Result<ToolConfig, AdapterError> {
        let (name, text) = match self {
            Tool::Cbmc => ("cbmc.yaml", include_str!("../../tool-adapters/cbmc.yaml")),
            Tool::Afl => ("afl.yaml", include_str!("../../tool-adapters/afl.yaml")),
            Tool::Klee => ("klee.yaml", include_str!("../../tool-adapters/klee.yaml")),
        };
        ToolConfig::parse(text, &format!("tool-adapters/{name}"))
    }
}

impl ToolConfig {
    /// Parses a configuration; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<ToolConfig, AdapterError> {
        if let Some(line) = crate::input_file::yaml_too_deep(text) {
            return Err(AdapterError::Config {
                origin: origin.to_string(),
                message: format!("line {line}: YAML nested too deeply"),
            });
        }
        let config: ToolConfig = serde_norway::from_str(text).map_err(|e| AdapterError::Config {
            origin: origin.to_string(),
            message: e.to_string(),
        })?;
        if config.version_command.is_empty() {
            return Err(AdapterError::Config {
                origin: origin.to_string(),
                message: "version_command is empty".to_string(),
            });
        }
        Ok(config)
    }

    /// Reads and parses a configuration file.
    pub fn load(path: &Path) -> Result<ToolConfig, AdapterError> {
        let text = crate::input_file::read_text(path, crate::input_file::MAX_DEFINITION_BYTES).map_err(
            |source| AdapterError::Io {
                path: path.to_path_buf(),
                source,
            },
        )?;
        Self::parse(&text, &path.display().to_string())
    }

    /// The executable name for `role`, or an error naming the missing role.
    pub fn executable(&self, role: &str) -> Result<&str, AdapterError> {
        self.executables
            .get(role)
            .map(String::as_str)
            .ok_or_else(|| AdapterError::Config {
                origin: self.tool.clone(),
                message: format!("no executable for role `{role}`"),
            })
    }

    /// The default value of a numeric option, or an error naming the missing option.
    pub fn default_u64(&self, key: &str) -> Result<u64, AdapterError> {
        self.defaults
            .get(key)
            .copied()
            .ok_or_else(|| AdapterError::Config {
                origin: self.tool.clone(),
                message: format!("no default for option `{key}`"),
            })
    }
}

/// Where `scripts/install-tools.sh` installs by default.
pub const DEFAULT_TOOLS_DIR: &str = "/opt/baton-tools";

/// Finds an executable: `$BATON_TOOLS_DIR/bin/<name>`, else `/opt/baton-tools/bin/<name>`, else
/// the first `<name>` in `PATH`. `None` when it is nowhere.
pub fn find_executable(name: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(dir) = std::env::var_os("BATON_TOOLS_DIR") {
        dirs.push(PathBuf::from(dir).join("bin"));
    }
    dirs.push(Path::new(DEFAULT_TOOLS_DIR).join("bin"));
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    dirs.into_iter().map(|d| d.join(name)).find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_configs_parse() -> Result<(), AdapterError> {
        let cbmc = Tool::Cbmc.builtin_config()?;
        assert_eq!(cbmc.executable("verifier")?, "cbmc");
        assert_eq!(cbmc.executable("compiler")?, "goto-cc");
        assert_eq!(cbmc.default_u64("unwind")?, 10);
        let afl = Tool::Afl.builtin_config()?;
        assert_eq!(afl.executable("fuzzer")?, "afl-fuzz");
        assert_eq!(afl.env.get("AFL_NO_UI").map(String::as_str), Some("1"));
        let klee = Tool::Klee.builtin_config()?;
        assert_eq!(klee.version_command, vec!["klee", "--version"]);
        assert!(klee.executable("nonexistent").is_err());
        Ok(())
    }

    #[test]
    fn config_errors_name_the_problem() {
        let err = ToolConfig::parse("tool: x\nexecutables: {}\nversion_command: []\n", "t.yaml");
        assert!(
            matches!(err, Err(AdapterError::Config { ref message, .. }) if message.contains("version_command"))
        );
        let err = ToolConfig::parse("tool: x\nbogus: 1\n", "t.yaml");
        assert!(matches!(err, Err(AdapterError::Config { ref origin, .. }) if origin == "t.yaml"));
    }

    #[test]
    fn command_line_argv() {
        let c = CommandLine::new("cbmc").arg("--version");
        assert_eq!(c.argv_lossy(), vec!["cbmc", "--version"]);
        assert_eq!(c.to_command().get_args().count(), 1);
    }
}

/// What `baton tools` reports about one external tool.
#[derive(Debug, Clone)]
pub struct ToolStatus {
    pub tool: String,
    /// Each executable the adapter needs, with where it was found.
    pub executables: Vec<(String, Option<PathBuf>)>,
    /// The first line the version command printed, if the tool could be run.
    pub version: Option<String>,
}

/// Looks up every adapter's executables and asks the tool for its version.
pub fn tool_status() -> Result<Vec<ToolStatus>, AdapterError> {
    let mut out = Vec::new();
    for tool in Tool::ALL {
        let config = tool.builtin_config()?;
        let executables: Vec<(String, Option<PathBuf>)> = config
            .executables
            .values()
            .map(|name| (name.clone(), find_executable(name)))
            .collect();
        let version = config.version_command.split_first().and_then(|(exe, args)| {
            let path = find_executable(exe)?;
            let output = std::process::Command::new(path).args(args).output().ok()?;
            let text = String::from_utf8_lossy(&output.stdout).into_owned()
                + &String::from_utf8_lossy(&output.stderr);
            text.lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(str::to_string)
        });
        out.push(ToolStatus {
            tool: config.tool.clone(),
            executables,
            version,
        });
    }
    Ok(out)
}
