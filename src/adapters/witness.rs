//! Reading the nondet values of a bug from what a tool wrote, for Baton to replay: a violation
//! witness (format 2.0 or GraphML, read by [`crate::witness`]) or a Test-Comp test case
//! (`<testcase><input>N</input>…`). Values found here are only candidates: a `false` is
//! reported after they reach the error on Baton's interpreter.

use crate::cfa::types::IntType;
use crate::witness::format;
use crate::witness::graphml::{graphml_values, is_graphml, parse_int};
use crate::witness::violation::witness_values;
use std::path::Path;

/// The nondet values of the witness or test case `file`.
pub fn nondet_values_in(file: &Path) -> Result<Vec<i128>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    nondet_values(&text).map_err(|e| format!("{}: {e}", file.display()))
}

/// The nondet values of a violation witness (format 2.0 YAML or GraphML 1.x, see
/// [`crate::witness`]) or a Test-Comp test case.
pub fn nondet_values(text: &str) -> Result<Vec<i128>, String> {
    if text.contains("<testcase") {
        let input = regex::Regex::new(r"(?s)<input[^>]*>(.*?)</input>").expect("fixed regex");
        return input
            .captures_iter(text)
            .map(|c| {
                parse_int(unescape(&c[1]).trim())
                    .ok_or_else(|| format!("input `{}` is not an integer", &c[1]))
            })
            .collect();
    }
    let values = if is_graphml(text) {
        graphml_values(text)?
    } else if text.contains("violation_sequence") {
        let entries = format::parse(text, "witness").map_err(|e| e.to_string())?;
        let mut values = Vec::new();
        for e in entries
            .iter()
            .filter(|e| e.entry_type == format::EntryType::ViolationSequence)
        {
            // No program: integers (a tool's float values are not read here).
            values.extend(witness_values(e, &|_| IntType::LLONG)?);
        }
        values
    } else {
        return Err("neither a violation witness nor a Test-Comp test case".into());
    };
    if values.is_empty() {
        return Err("the witness gives no nondet values".into());
    }
    Ok(values.iter().map(|v| v.value).collect())
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_violation_witness() {
        let w = "- entry_type: violation_sequence\n  metadata: {format_version: '2.0', uuid: u, creation_time: t,\n    producer: {name: p, version: '1'}, task: {input_files: [a.c], input_file_hashes: {a.c: h},\n    specification: s, data_model: ILP32, language: C}}\n  content:\n  - segment:\n    - waypoint: {type: function_return, action: follow, location: {file_name: a.c, line: 3},\n        constraint: {value: '\\result == 4'}}\n  - segment:\n    - waypoint: {type: target, action: follow, location: {file_name: a.c, line: 5}}\n";
        assert_eq!(nondet_values(w).unwrap(), vec![4]);
    }

    #[test]
    fn testcomp_test_case() {
        let t =
            "<?xml version=\"1.0\"?><testcase><input>5</input><input type=\"int\">-0x10</input></testcase>";
        assert_eq!(nondet_values(t).unwrap(), vec![5, -16]);
        assert!(nondet_values("<testcase><input>x</input></testcase>").is_err());
    }
}
