//! Preparations of the program before a declaratively run tool sees it (`prepare: NAME` in an
//! adapter file). Each writes a new file into the stage directory and leaves the input alone.
//!
//! `frama-c-unreach-assert`: Frama-C's Eva proves properties, not reachability, so every
//! definition of an error function (`reach_error`, `__VERIFIER_error`) gets
//! `/*@ assert baton_unreachable: \false; */` as its first statement, and an error function that
//! is called but not defined gets a definition holding only that assertion. Eva reports the
//! assertion *Dead* exactly when it proves the function's body unreachable, i.e. the error is
//! never called. Why not a `-D`/`-cpp-extra-args` trick: a macro cannot expand to an ACSL
//! comment, and redefining the function by macro clashes with the program's own definition.

use std::path::{Path, PathBuf};

/// The preparations Baton has.
pub const NAMES: [&str; 1] = ["frama-c-unreach-assert"];

/// The error functions of sv-benchmarks tasks.
const ERROR_FUNCTIONS: [&str; 2] = ["reach_error", "__VERIFIER_error"];

/// The assertion inserted into every error function.
pub const UNREACH_ASSERTION: &str = r"/*@ assert baton_unreachable: \false; */";

/// Applies preparation `name` to `program`; the prepared file (in `dir`).
pub fn apply(name: &str, program: &Path, dir: &Path) -> Result<PathBuf, String> {
    match name {
        "frama-c-unreach-assert" => {
            let text = std::fs::read_to_string(program).map_err(|e| format!("{}: {e}", program.display()))?;
            let ext = program.extension().and_then(|e| e.to_str()).unwrap_or("c");
            let out = dir.join(format!("unreach-assert.{ext}"));
            std::fs::write(&out, assert_unreachable(&text)).map_err(|e| format!("{}: {e}", out.display()))?;
            Ok(out)
        }
        other => Err(format!("no preparation `{other}` (known: {})", NAMES.join(", "))),
    }
}

/// The program text with [`UNREACH_ASSERTION`] at the start of every error function's body.
pub fn assert_unreachable(text: &str) -> String {
    let mut out = text.to_string();
    for name in ERROR_FUNCTIONS {
        // `name(params) {` can only be a definition: a call is an expression, never followed by
        // a block.
        let definition = regex::Regex::new(&format!(r"\b{name}\s*\([^()]*\)\s*\{{")).expect("fixed regex");
        let called = regex::Regex::new(&format!(r"\b{name}\s*\(")).expect("fixed regex");
        if definition.is_match(&out) {
            out = definition
                .replace_all(&out, |c: &regex::Captures<'_>| {
                    format!("{} {UNREACH_ASSERTION} ", &c[0])
                })
                .into_owned();
        } else if called.is_match(&out) {
            out.push_str(&format!("\nvoid {name}(void) {{ {UNREACH_ASSERTION} }}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asserts_in_every_error_function() {
        let p = "void reach_error() { __assert_fail(\"0\", \"x.c\", 3, \"reach_error\"); }\nextern void __VERIFIER_error(void);\nint main() { if (1) reach_error(); __VERIFIER_error(); }\n";
        let q = assert_unreachable(p);
        assert!(
            q.starts_with(&format!(
                "void reach_error() {{ {UNREACH_ASSERTION}  __assert_fail"
            )),
            "{q}"
        );
        assert!(
            q.contains(&format!("void __VERIFIER_error(void) {{ {UNREACH_ASSERTION} }}")),
            "{q}"
        );
        assert_eq!(q.matches("baton_unreachable").count(), 2);
        // No error function at all: unchanged.
        assert_eq!(
            assert_unreachable("int main() { return 0; }"),
            "int main() { return 0; }"
        );
    }
}
