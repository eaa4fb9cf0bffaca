//! Maps byte offsets in gcc's output back to original files and lines via its line markers.

/// Per line of preprocessed text: where it starts and which original file/line it is.
pub(crate) struct LineMap {
    /// (offset of line start, index into `files`, original line number)
    lines: Vec<(usize, u32, u32)>,
    /// Original file names in order of first appearance; index 0 is the program file.
    pub files: Vec<String>,
}

/// A resolved position.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pos {
    pub file: u32,
    pub line: u32,
    pub column: u32,
}

impl LineMap {
    /// Builds the map for `source`; `main_file` becomes file 0.
    pub fn new(source: &str, main_file: &str) -> LineMap {
        let mut files = vec![main_file.to_string()];
        let mut lines = Vec::new();
        let mut file = 0u32;
        let mut line = 1u32;
        let mut offset = 0usize;
        for text in source.split_inclusive('\n') {
            if let Some((l, f)) = parse_marker(text) {
                file = match files.iter().position(|x| *x == f) {
                    Some(i) => i as u32,
                    None => {
                        files.push(f);
                        (files.len() - 1) as u32
                    }
                };
                line = l;
                // The marker line itself maps to the line before the one it announces.
                lines.push((offset, file, l.saturating_sub(1)));
            } else {
                lines.push((offset, file, line));
                line += 1;
            }
            offset += text.len();
        }
        LineMap { lines, files }
    }

    /// The original position of byte `offset`.
    pub fn pos(&self, offset: usize) -> Pos {
        let i = match self.lines.binary_search_by(|(o, _, _)| o.cmp(&offset)) {
            Ok(i) => i,
            Err(0) => 0,
            Err(i) => i - 1,
        };
        match self.lines.get(i) {
            Some(&(start, file, line)) => Pos {
                file,
                line,
                column: (offset.saturating_sub(start) + 1) as u32,
            },
            None => Pos {
                file: 0,
                line: 1,
                column: 1,
            },
        }
    }

    /// The file name of a file index.
    pub fn file_name(&self, file: u32) -> &str {
        self.files.get(file as usize).map(String::as_str).unwrap_or("?")
    }
}

/// Parses `# LINE "FILE" FLAGS...` (gcc's preprocessor output line markers).
fn parse_marker(text: &str) -> Option<(u32, String)> {
    let rest = text.strip_prefix("# ")?;
    let space = rest.find(' ')?;
    let line: u32 = rest[..space].parse().ok()?;
    let rest = rest[space..].trim_start().strip_prefix('"')?;
    let mut name = String::new();
    let mut chars = rest.chars();
    loop {
        match chars.next()? {
            '"' => break,
            '\\' => name.push(chars.next()?),
            c => name.push(c),
        }
    }
    Some((line, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_map_back_to_original_lines() {
        let src = "# 1 \"a.c\"\nint x;\n# 5 \"b.h\" 1\nint y;\n# 3 \"a.c\" 2\nint z;\n";
        let map = LineMap::new(src, "a.c");
        let at = |needle: &str| map.pos(src.find(needle).unwrap());
        let p = at("int x");
        assert_eq!((map.file_name(p.file), p.line, p.column), ("a.c", 1, 1));
        let p = at("y;");
        assert_eq!((map.file_name(p.file), p.line, p.column), ("b.h", 5, 5));
        let p = at("int z");
        assert_eq!((map.file_name(p.file), p.line), ("a.c", 3));
    }
}
