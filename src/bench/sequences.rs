//! Version sequences (seed 002): the versions of a program in development order, benchmarked
//! from scratch and incrementally, each version re-verified from the proof of the one before.
//!
//! A sequences file is YAML:
//!
//! ```yaml
//! sequences:
//!   - name: kbfilter
//!     versions: [kbfilter/kbfilter_v1.yml, kbfilter/kbfilter_v2.yml]
//!   - name: kbfiltr
//!     versions:
//!       - sv:c/ntdrivers-simplified/kbfiltr_simpl1.cil.yml
//!       - sv:c/ntdrivers-simplified/kbfiltr_simpl2.cil-1.yml
//! ```
//!
//! Paths are relative to the file's folder; `sv:` paths are relative to the sv-benchmarks
//! folder named by `BATON_SV_BENCHMARKS` (so shared tasks are never copied). A task belongs to
//! one sequence only (results are kept per task).

use super::inputs::canonical_task;
use super::BenchError;
use crate::input_file::{read_text, MAX_DEFINITION_BYTES};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Environment variable naming the sv-benchmarks folder that `sv:` paths are relative to.
pub const SV_BENCHMARKS_ENV: &str = "BATON_SV_BENCHMARKS";

/// Versions of one program in development order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sequence {
    /// Name used in result files and proof file names.
    pub name: String,
    /// Canonical task definition paths, first version first.
    pub versions: Vec<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SequencesFile {
    sequences: Vec<SequenceEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SequenceEntry {
    name: String,
    versions: Vec<String>,
}

/// Reads a sequences file (format: module documentation); errors name the file and line.
pub fn load_sequences(path: &Path) -> Result<Vec<Sequence>, BenchError> {
    let text = read_text(path, MAX_DEFINITION_BYTES)
        .map_err(|e| BenchError::io(path, "cannot read sequences", e))?;
    let file = path.display().to_string();
    let malformed = |line: usize, message: String| BenchError::Malformed {
        file: file.clone(),
        line,
        message,
    };
    let parsed: SequencesFile = serde_norway::from_str(&text)
        .map_err(|e| malformed(e.location().map_or(1, |l| l.line()), e.to_string()))?;
    // The line of an entry's text, for errors about it: entries are searched in file order,
    // each after the line of the one before.
    let lines: Vec<&str> = text.lines().collect();
    let mut next = 0;
    let mut line_of = |needle: &str, key: &str| {
        let found = lines[next.min(lines.len())..]
            .iter()
            .position(|l| l.contains(needle) && l.contains(key));
        match found {
            Some(i) => {
                next += i + 1;
                next
            }
            None => next.max(1),
        }
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let sv_dir = std::env::var_os(SV_BENCHMARKS_ENV).map(PathBuf::from);
    let mut sequences: Vec<Sequence> = Vec::new();
    for entry in parsed.sequences {
        let line = line_of(&entry.name, "name");
        super::inputs::check_file_name(&entry.name, "sequence name").map_err(|m| malformed(line, m))?;
        if sequences.iter().any(|s| s.name == entry.name) {
            return Err(malformed(line, format!("sequence `{}` given twice", entry.name)));
        }
        if entry.versions.is_empty() {
            return Err(malformed(
                line,
                format!("sequence `{}` has no versions", entry.name),
            ));
        }
        let mut versions = Vec::new();
        for v in &entry.versions {
            let line = line_of(v, "");
            let full = match v.strip_prefix("sv:") {
                Some(rel) => match &sv_dir {
                    Some(sv) => sv.join(rel),
                    None => {
                        return Err(malformed(
                            line,
                            format!("`{v}` needs {SV_BENCHMARKS_ENV} (the sv-benchmarks folder)"),
                        ))
                    }
                },
                None => dir.join(v),
            };
            let task = canonical_task(&full).map_err(|e| malformed(line, e.to_string()))?;
            if let Some(other) = sequences
                .iter()
                .find(|s| s.versions.contains(&task))
                .map(|s| s.name.as_str())
                .or_else(|| versions.contains(&task).then_some(entry.name.as_str()))
            {
                return Err(malformed(
                    line,
                    format!("`{v}` is already a version of sequence `{other}`"),
                ));
            }
            versions.push(task);
        }
        sequences.push(Sequence {
            name: entry.name,
            versions,
        });
    }
    if sequences.is_empty() {
        return Err(malformed(1, "no sequences".into()));
    }
    Ok(sequences)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sequences_and_refuses_a_task_in_two() {
        let dir = tempfile::tempdir().unwrap();
        for t in ["a.yml", "b.yml"] {
            std::fs::write(dir.path().join(t), "").unwrap();
        }
        let file = dir.path().join("seq.yaml");
        std::fs::write(&file, "sequences:\n  - name: s\n    versions: [a.yml, b.yml]\n").unwrap();
        let seqs = load_sequences(&file).unwrap();
        assert_eq!(seqs.len(), 1);
        assert_eq!(
            seqs[0].versions[1],
            dir.path().join("b.yml").canonicalize().unwrap()
        );
        std::fs::write(
            &file,
            "sequences:\n  - name: s\n    versions: [a.yml]\n  - name: t\n    versions:\n      - a.yml\n",
        )
        .unwrap();
        let err = load_sequences(&file).unwrap_err().to_string();
        assert!(err.contains(":6:") && err.contains("sequence `s`"), "{err}");
        std::fs::write(&file, "sequences:\n  - name: s\n    versions: [c.yml]\n").unwrap();
        assert!(load_sequences(&file).unwrap_err().to_string().contains(":3:"));
        std::fs::write(&file, "sequences:\n  - name: s\n    version: [a.yml]\n").unwrap();
        assert!(load_sequences(&file).is_err());
    }
}
