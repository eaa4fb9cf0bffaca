//! The external verifiers Baton drives, described declaratively: one YAML file per tool
//! (`tool-adapters/*.yaml`, parsed by [`spec`], found by [`registry`]) says how to find the tool,
//! start it on a task and read its verdict; [`run`] is the one procedure that runs any adapter.
//! Rust code exists only for what rules cannot express: extractors ([`extract`]: CBMC's bounded
//! pipeline, AFL++ and KLEE with Baton's harnesses), program preparation ([`prepare`]) and
//! reading witnesses ([`witness`]). The tool-specific modules build exact argv vectors (never a
//! shell) and interpret the tools' files.

pub mod afl;
pub mod bounded;
pub mod cbmc;
pub mod extract;
pub mod klee;
pub mod prepare;
pub mod registry;
pub mod run;
pub mod spec;
pub mod witness;

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

/// Whether `path` is an executable file.
pub fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_argv() {
        let c = CommandLine::new("cbmc").arg("--version");
        assert_eq!(c.argv_lossy(), vec!["cbmc", "--version"]);
        assert_eq!(c.to_command().get_args().count(), 1);
    }
}
