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
    /// A well-formed task Baton does not verify (no `unreach-call` property); BenchExec skips
    /// such tasks too.
    #[error("{file}: {message}")]
    Unsupported { file: String, message: String },
}

/// A property of an SV-COMP property file, recognised by its content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Property {
    /// `CHECK( init(main()), LTL(G ! call(F())) )`: the function `F` is never called.
    UnreachCall {
        /// The error function `F` (sv-benchmarks: `reach_error`).
        error_function: String,
    },
    /// Any other property (its formula as written), which Baton does not verify.
    Other(String),
}

/// The error functions Baton's frontend treats as the property violation.
pub const ERROR_FUNCTIONS: [&str; 2] = ["reach_error", "__VERIFIER_error"];

impl Property {
    /// Reads the property of a `.prp` file's text: every formula line (comments `//` and blank
    /// lines aside) must be the same `CHECK( init(main()), LTL(G ! call(F())) )` for
    /// `unreach-call`; anything else is [`Property::Other`].
    pub fn parse(text: &str) -> Property {
        let lines: Vec<&str> = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or("").trim())
            .filter(|l| !l.is_empty())
            .collect();
        let formulas: Vec<String> = lines
            .iter()
            .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect())
            .collect();
        let unreach = |f: &String| -> Option<String> {
            let inner = f
                .strip_prefix("CHECK(init(main()),LTL(G!call(")?
                .strip_suffix("())))")?;
            let ident = !inner.is_empty()
                && !inner.starts_with(|c: char| c.is_ascii_digit())
                && inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            ident.then(|| inner.to_string())
        };
        match formulas.first().and_then(unreach) {
            Some(f) if formulas.iter().all(|g| g == &formulas[0]) => {
                Property::UnreachCall { error_function: f }
            }
            _ => Property::Other(lines.join(" ")),
        }
    }

    /// The property of a property file, read by content. A file that does not exist (task
    /// definitions copied without their `properties/` folder) is recognised by its name:
    /// `unreach-call.prp` is `unreach-call` of `reach_error`, any other name is
    /// [`Property::Other`].
    pub fn of_file(path: &Path) -> Result<Property, TaskError> {
        match read_text(path, MAX_DEFINITION_BYTES) {
            Ok(text) => Ok(Property::parse(&text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if path.file_name().is_some_and(|n| n == "unreach-call.prp") {
                    Ok(Property::UnreachCall {
                        error_function: "reach_error".into(),
                    })
                } else {
                    Ok(Property::Other(path.display().to_string()))
                }
            }
            Err(source) => Err(TaskError::Io {
                file: path.display().to_string(),
                source,
            }),
        }
    }

    /// Why Baton cannot verify this property, or `None` for `unreach-call` of an error
    /// function the frontend knows.
    pub fn unsupported_reason(&self) -> Option<String> {
        match self {
            Property::UnreachCall { error_function }
                if ERROR_FUNCTIONS.contains(&error_function.as_str()) =>
            {
                None
            }
            Property::UnreachCall { error_function } => Some(format!(
                "unreach-call of `{error_function}`: Baton knows the error functions {}",
                ERROR_FUNCTIONS.join(" and ")
            )),
            Property::Other(f) => Some(format!("property `{f}`: Baton verifies unreach-call only")),
        }
    }
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
    /// The task's `unreach-call` property file (as the definition names it, relative to the
    /// definition's folder); `None` for a bare C file or a definition without properties.
    pub property_file: Option<PathBuf>,
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
                property_file: None,
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
        // The first property Baton verifies, read by content; a definition that lists
        // properties but none of them is skipped (as BenchExec skips tasks without the
        // benchmark's property), with the reasons.
        let mut reasons = Vec::new();
        let mut unreach = None;
        for p in &parsed.properties {
            let prp = dir.join(&p.property_file);
            match Property::of_file(&prp)?.unsupported_reason() {
                None => {
                    unreach = Some((prp, p.expected_verdict));
                    break;
                }
                Some(r) => reasons.push(format!("{}: {r}", p.property_file)),
            }
        }
        if unreach.is_none() && !parsed.properties.is_empty() {
            return Err(TaskError::Unsupported {
                file,
                message: format!("no property Baton verifies ({})", reasons.join("; ")),
            });
        }
        Ok(Task {
            definition: path.to_path_buf(),
            program,
            data_model,
            expected: unreach.as_ref().and_then(|u| u.1),
            property_file: unreach.map(|u| u.0),
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
        assert_eq!(
            task.property_file,
            Some(dir.path().join("../properties/unreach-call.prp"))
        );

        let bad = "format_version: '2.0'\ninput_files: [\n";
        let err = Task::parse(bad, &yml).unwrap_err().to_string();
        assert!(err.starts_with(&format!("{}:", yml.display())), "{err}");
        let missing = "input_files: 'nope.c'\n";
        assert!(Task::parse(missing, &yml)
            .unwrap_err()
            .to_string()
            .contains("does not exist"));
    }

    #[test]
    fn recognises_properties_by_content() {
        let reach = "CHECK( init(main()), LTL(G ! call(reach_error())) )\n";
        assert_eq!(
            Property::parse(reach),
            Property::UnreachCall {
                error_function: "reach_error".into()
            }
        );
        assert_eq!(Property::parse(reach).unsupported_reason(), None);
        let other = Property::parse("CHECK( init(main()), LTL(G ! call(foo())) )");
        assert!(other.unsupported_reason().unwrap().contains("`foo`"));
        let overflow = Property::parse("CHECK( init(main()), LTL(G ! overflow) )\n");
        assert!(matches!(overflow, Property::Other(_)));
        let memsafety =
            "CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\n";
        assert!(matches!(Property::parse(memsafety), Property::Other(_)));

        // A task is verified for the property its file states, whatever the file's name.
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("p.c"), "int main(){return 0;}").unwrap();
        std::fs::write(d.join("reach.prp"), reach).unwrap();
        std::fs::write(
            d.join("unreach-call.prp"),
            "CHECK( init(main()), LTL(G ! overflow) )\n",
        )
        .unwrap();
        let yml = d.join("p.yml");
        let renamed = "format_version: '2.0'\ninput_files: 'p.c'\nproperties:\n  - property_file: unreach-call.prp\n    expected_verdict: false\n  - property_file: reach.prp\n    expected_verdict: true\n";
        let task = Task::parse(renamed, &yml).unwrap();
        assert_eq!(task.expected, Some(true));
        assert_eq!(task.property_file, Some(d.join("reach.prp")));
        let only_overflow = "format_version: '2.0'\ninput_files: 'p.c'\nproperties:\n  - property_file: unreach-call.prp\n    expected_verdict: false\n";
        let e = Task::parse(only_overflow, &yml).unwrap_err();
        assert!(matches!(e, TaskError::Unsupported { .. }), "{e}");
        assert!(e.to_string().contains("unreach-call only"), "{e}");
    }
}
