//! Verification tasks: a program, the property `unreach-call`, a data model and maybe an
//! expected verdict, read from sv-benchmarks task definitions (`.yml`, format 1.x and 2.x) or
//! given as a bare C file.

use crate::cfa::types::DataModel;
use crate::input_file::{read_text, yaml_too_deep, MAX_DEFINITION_BYTES, MAX_YAML_DEPTH};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// A task definition that cannot be used.
#[derive(Debug, Error)]
pub enum TaskError {
    #[error("{file}: cannot read: {source}")]
    Io { file: String, source: std::io::Error },
    #[error("{file}:{line}: {message}")]
    Malformed {
        file: String,
        line: usize,
        message: String,
    },
    #[error("{file}: {message}")]
    Invalid { file: String, message: String },
}

/// One verification task for the property "the error function is never called".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// The task definition (the program itself for a bare C file).
    pub definition: PathBuf,
    /// The C program.
    pub program: PathBuf,
    pub data_model: DataModel,
    /// Expected verdict for `unreach-call`: `Some(true)` = error unreachable.
    pub expected: Option<bool>,
}

#[derive(Deserialize)]
struct TaskFile {
    format_version: Option<serde_norway::Value>,
    input_files: InputFiles,
    #[serde(default)]
    properties: Vec<PropertyEntry>,
    #[serde(default)]
    options: Option<TaskOptions>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum InputFiles {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize)]
struct PropertyEntry {
    property_file: String,
    expected_verdict: Option<bool>,
}

#[derive(Deserialize)]
struct TaskOptions {
    language: Option<String>,
    data_model: Option<String>,
}

/// Whether a file can be a task: a task definition (`.yml`, `.yaml`) or a C program (`.c`,
/// preprocessed `.i`).
pub fn is_task_file(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yml" | "yaml" | "c" | "i")
    )
}

impl Task {
    /// Loads a task from a `.yml`/`.yaml` definition, or makes one from a C file (`.c`, `.i`)
    /// with the given default data model and no expected verdict.
    pub fn load(path: &Path, default_model: DataModel) -> Result<Task, TaskError> {
        let is_yaml = matches!(path.extension().and_then(|e| e.to_str()), Some("yml" | "yaml"));
        if !is_task_file(path) {
            return Err(TaskError::Invalid {
                file: path.display().to_string(),
                message: "not a task: expected a task definition (.yml) or a C file (.c, .i)".into(),
            });
        }
        if !is_yaml {
            if !path.is_file() {
                let (kind, what) = match path.exists() {
                    true => (std::io::ErrorKind::InvalidInput, "not a regular file"),
                    false => (std::io::ErrorKind::NotFound, "no such file"),
                };
                return Err(TaskError::Io {
                    file: path.display().to_string(),
                    source: std::io::Error::new(kind, what),
                });
            }
            return Ok(Task {
                definition: path.to_path_buf(),
                program: path.to_path_buf(),
                data_model: default_model,
                expected: None,
            });
        }
        let file = path.display().to_string();
        let text = read_text(path, MAX_DEFINITION_BYTES).map_err(|source| TaskError::Io {
            file: file.clone(),
            source,
        })?;
        Task::parse(&text, path)
    }

    /// Parses the text of a task definition located at `path` (relative paths inside it are
    /// resolved against its folder).
    pub fn parse(text: &str, path: &Path) -> Result<Task, TaskError> {
        let file = path.display().to_string();
        if let Some(line) = yaml_too_deep(text) {
            return Err(TaskError::Malformed {
                file,
                line,
                message: format!("YAML nested deeper than {MAX_YAML_DEPTH} levels"),
            });
        }
        let parsed: TaskFile = serde_norway::from_str(text).map_err(|e| TaskError::Malformed {
            file: file.clone(),
            line: e.location().map(|l| l.line()).unwrap_or(1),
            message: e.to_string(),
        })?;
        let invalid = |message: String| TaskError::Invalid {
            file: file.clone(),
            message,
        };
        if let Some(version) = &parsed.format_version {
            let v = match version {
                serde_norway::Value::String(s) => s.clone(),
                serde_norway::Value::Number(n) => n.to_string(),
                _ => String::new(),
            };
            if !(v.starts_with("1.") || v.starts_with("2.")) {
                return Err(invalid(format!(
                    "unsupported format_version `{v}` (expected 1.x or 2.x)"
                )));
            }
        }
        let inputs = match parsed.input_files {
            InputFiles::One(f) => vec![f],
            InputFiles::Many(fs) => fs,
        };
        let [input] = inputs.as_slice() else {
            return Err(invalid(format!(
                "expected exactly one input file, found {}",
                inputs.len()
            )));
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        let program = dir.join(input);
        if !program.is_file() {
            return Err(invalid(format!(
                "input file {} does not exist",
                program.display()
            )));
        }
        let options = parsed.options;
        if let Some(lang) = options.as_ref().and_then(|o| o.language.as_deref()) {
            if !lang.eq_ignore_ascii_case("c") {
                return Err(invalid(format!("unsupported language `{lang}`")));
            }
        }
        let data_model = match options.as_ref().and_then(|o| o.data_model.as_deref()) {
            Some(m) => m.parse().map_err(invalid)?,
            None => DataModel::ILP32,
        };
        let expected = parsed
            .properties
            .iter()
            .find(|p| p.property_file.ends_with("unreach-call.prp"))
            .and_then(|p| p.expected_verdict);
        Ok(Task {
            definition: path.to_path_buf(),
            program,
            data_model,
            expected,
        })
    }

    /// A short name: the definition's file name without extension.
    pub fn name(&self) -> String {
        self.definition
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_format_2_and_reports_line_of_errors() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("p.c"), "int main(){return 0;}").unwrap();
        let yml = dir.path().join("p.yml");
        let text = "format_version: '2.0'\ninput_files: 'p.c'\nproperties:\n  - property_file: ../properties/unreach-call.prp\n    expected_verdict: false\noptions:\n  language: C\n  data_model: LP64\n";
        let task = Task::parse(text, &yml).unwrap();
        assert_eq!(task.expected, Some(false));
        assert_eq!(task.data_model, DataModel::LP64);
        assert_eq!(task.program, dir.path().join("p.c"));

        let bad = "format_version: '2.0'\ninput_files: [\n";
        let err = Task::parse(bad, &yml).unwrap_err().to_string();
        assert!(err.starts_with(&format!("{}:", yml.display())), "{err}");
        let missing = "input_files: 'nope.c'\n";
        assert!(Task::parse(missing, &yml)
            .unwrap_err()
            .to_string()
            .contains("does not exist"));
    }
}
