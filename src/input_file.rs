//! Reading the files users hand to Baton — flows, task definitions, conditions, benchmark
//! definitions, adapter descriptions — with bounds checked before any parser sees them: the
//! file must be a regular file (a FIFO or a device would block or never end) no larger than a
//! limit, and YAML must not nest deeper than [`MAX_YAML_DEPTH`] (the YAML parser takes time
//! quadratic in the nesting depth).

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The largest YAML or benchmark-definition file accepted.
pub const MAX_DEFINITION_BYTES: u64 = 16 << 20;

/// The largest condition file accepted (conditions of large programs are large).
pub const MAX_CONDITION_BYTES: u64 = 512 << 20;

/// The deepest YAML nesting accepted (flows and task definitions need fewer than ten levels).
pub const MAX_YAML_DEPTH: usize = 64;

/// The deepest XML element nesting accepted (GraphML and benchmark definitions need fewer than
/// ten levels).
pub const MAX_XML_DEPTH: usize = 64;

/// Reads a regular file of at most `max_bytes` as UTF-8 text. The errors are I/O errors that
/// say what is wrong (`not a regular file`, `larger than 16 MiB`); callers name the file.
pub fn read_text(path: &Path, max_bytes: u64) -> io::Result<String> {
    // Checked before opening: opening a FIFO blocks until someone writes to it.
    if !std::fs::metadata(path)?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
    }
    let file = File::open(path)?;
    let mut text = String::new();
    file.take(max_bytes + 1).read_to_string(&mut text)?;
    if text.len() as u64 > max_bytes {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {} MiB", max_bytes >> 20),
        ));
    }
    Ok(text)
}

/// The first line (1-based) where YAML text nests deeper than [`MAX_YAML_DEPTH`], counting
/// indentation levels, sequence dashes and flow brackets (`[`, `{`) outside quotes.
pub fn yaml_too_deep(text: &str) -> Option<usize> {
    let mut indents: Vec<usize> = Vec::new();
    let mut flow = 0usize;
    for (i, line) in text.lines().enumerate() {
        let content = line.trim_start_matches([' ', '\t']);
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let indent = line.len() - content.len();
        while indents.last().is_some_and(|&top| top > indent) {
            indents.pop();
        }
        if indents.last().is_none_or(|&top| top < indent) {
            indents.push(indent);
        }
        let mut rest = content;
        let mut dashes = 0;
        while rest == "-" || rest.starts_with("- ") {
            dashes += 1;
            rest = rest[1..].trim_start();
        }
        let mut deepest_flow = flow;
        let mut quote = None;
        for c in rest.chars() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '"' | '\'') => quote = Some(c),
                (None, '#') => break,
                (None, '[' | '{') => {
                    flow += 1;
                    deepest_flow = deepest_flow.max(flow);
                }
                (None, ']' | '}') => flow = flow.saturating_sub(1),
                _ => {}
            }
        }
        if indents.len() + dashes + deepest_flow > MAX_YAML_DEPTH {
            return Some(i + 1);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_depth_counts_indentation_dashes_and_brackets() {
        let flat = "flow: x\nstages:\n  - tool: explicit\n    budget: { cpu_time: 1s }\n";
        assert_eq!(yaml_too_deep(flat), None);
        let brackets = format!("a: {}1{}", "[".repeat(MAX_YAML_DEPTH), "]".repeat(MAX_YAML_DEPTH));
        assert_eq!(yaml_too_deep(&brackets), Some(1));
        let quoted = format!("a: '{}'", "[".repeat(2 * MAX_YAML_DEPTH));
        assert_eq!(yaml_too_deep(&quoted), None);
        let dashes = format!("a:\n{}b", "- ".repeat(MAX_YAML_DEPTH));
        assert_eq!(yaml_too_deep(&dashes), Some(2));
        let indented: String = (0..=MAX_YAML_DEPTH)
            .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
            .collect();
        assert_eq!(yaml_too_deep(&indented), Some(MAX_YAML_DEPTH + 1));
    }

    #[test]
    fn only_bounded_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_text(dir.path(), 10).unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'x'; 2 << 20]).unwrap();
        let err = read_text(&big, 1 << 20).unwrap_err().to_string();
        assert!(err.contains("larger than 1 MiB"), "{err}");
        assert_eq!(read_text(&big, 2 << 20).unwrap().len(), 2 << 20);
    }
}
