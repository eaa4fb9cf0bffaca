//! Bounds on syntactic nesting. Parsing (`lang-c`), lowering and every later walk over an
//! expression recurse, so nesting must stay below what the stack holds: the command line runs on
//! a thread with a large stack (see `src/main.rs`), and programs nested deeper than
//! [`MAX_NESTING`] are rejected as unsupported before they reach any recursion.

/// The deepest nesting of brackets, statements or expressions Baton accepts (gcc accepts
/// somewhat more; sv-benchmarks programs stay far below).
pub(crate) const MAX_NESTING: usize = 50_000;

/// The byte offset where the bracket depth (`(`, `[`, `{`) of preprocessed C first exceeds
/// [`MAX_NESTING`], if it does. Brackets inside string and character literals do not count.
/// This runs before the parser, whose recursion depth follows the brackets.
pub(crate) fn too_deep_brackets(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(i);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            quote @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_brackets_outside_literals() {
        let deep = "(".repeat(MAX_NESTING + 1);
        assert_eq!(too_deep_brackets(&deep), Some(MAX_NESTING));
        let balanced = "()".repeat(MAX_NESTING + 1);
        assert_eq!(too_deep_brackets(&balanced), None);
        let quoted = format!("\"{deep}\" '(' '\\''");
        assert_eq!(too_deep_brackets(&quoted), None);
    }
}
