//! Reading the nondet values of a bug from what a tool wrote, for Baton to replay: a GraphML
//! violation witness (SV-COMP: edges with `assumption.resultfunction` = `__VERIFIER_nondet_*`
//! and `assumption` = `\result == N;`, in path order) or a Test-Comp test case
//! (`<testcase><input>N</input>…`). Values found here are only candidates: a `false` is
//! reported after they reach the error on Baton's interpreter.

use std::path::{Path, PathBuf};

/// The nondet values of the first file matching `pattern` below `dir`, and the file.
pub fn nondet_values_from(dir: &Path, pattern: &str) -> Result<(Vec<i128>, PathBuf), String> {
    let file = super::run::find_file(dir, pattern)
        .ok_or_else(|| format!("no file {pattern} in {}", dir.display()))?;
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let values = nondet_values(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok((values, file))
}

/// The nondet values of a GraphML violation witness or a Test-Comp test case.
pub fn nondet_values(text: &str) -> Result<Vec<i128>, String> {
    let fixed = |re: &str| regex::Regex::new(re).expect("fixed regex");
    if text.contains("<testcase") {
        let input = fixed(r"(?s)<input[^>]*>(.*?)</input>");
        return input
            .captures_iter(text)
            .map(|c| {
                parse_int(unescape(&c[1]).trim())
                    .ok_or_else(|| format!("input `{}` is not an integer", &c[1]))
            })
            .collect();
    }
    if !text.contains("<graphml") {
        return Err("neither a GraphML witness nor a Test-Comp test case".into());
    }
    let edge = fixed(r"(?s)<edge\b.*?</edge>");
    let function = fixed(r#"(?s)<data key="assumption\.resultfunction">\s*(.*?)\s*</data>"#);
    let assumption = fixed(r#"(?s)<data key="assumption">(.*?)</data>"#);
    let result =
        fixed(r"\\result\s*==\s*\(?\s*(?:\([a-z ]+\)\s*)?(-?\s*(?:0[xX][0-9a-fA-F]+|\d+))[uUlL]*\s*\)?\s*;?");
    let mut values = Vec::new();
    for e in edge.find_iter(text) {
        let e = e.as_str();
        let Some(f) = function.captures(e) else { continue };
        if !f[1].starts_with("__VERIFIER_nondet") {
            continue;
        }
        let a = assumption
            .captures(e)
            .map(|c| unescape(&c[1]))
            .ok_or_else(|| format!("an edge returning from {} has no assumption", &f[1]))?;
        let v = result
            .captures(&a)
            .and_then(|c| parse_int(&c[1].replace(' ', "")))
            .ok_or_else(|| format!("assumption `{a}` gives no value for \\result"))?;
        values.push(v);
    }
    if values.is_empty() {
        return Err("the witness gives no nondet values".into());
    }
    Ok(values)
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

fn parse_int(s: &str) -> Option<i128> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let digits = digits.trim_end_matches(['u', 'U', 'l', 'L']);
    let v = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        Some(hex) => i128::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<i128>().ok()?,
    };
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graphml_violation_witness() {
        // Written after the SV-COMP GraphML format (sv-witnesses README-GraphML.md).
        let w = r#"<?xml version="1.0"?><graphml><graph edgedefault="directed">
<node id="N0"><data key="entry">true</data></node>
<edge source="N0" target="N1"><data key="startline">4</data><data key="assumption">\result == 7;</data><data key="assumption.resultfunction">__VERIFIER_nondet_int</data></edge>
<edge source="N1" target="N2"><data key="assumption">x == 7;</data></edge>
<edge source="N2" target="N3"><data key="assumption">\result == -3;</data><data key="assumption.resultfunction">__VERIFIER_nondet_long</data></edge>
</graph></graphml>"#;
        assert_eq!(nondet_values(w).unwrap(), vec![7, -3]);
        assert!(nondet_values("<graphml></graphml>").is_err());
    }

    #[test]
    fn testcomp_test_case() {
        let t =
            "<?xml version=\"1.0\"?><testcase><input>5</input><input type=\"int\">-0x10</input></testcase>";
        assert_eq!(nondet_values(t).unwrap(), vec![5, -16]);
        assert!(nondet_values("<testcase><input>x</input></testcase>").is_err());
    }
}
