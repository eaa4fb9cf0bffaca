//! A small XML tree with line numbers, read with quick-xml: enough for GraphML conditions,
//! BenchExec benchmark definitions and result files, whose errors must name the line.

use quick_xml::events::Event;
use quick_xml::Reader;

/// Malformed XML: the 1-based line and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XmlError {
    pub line: usize,
    pub message: String,
}

/// 1-based line numbers of byte offsets.
struct Lines(Vec<usize>);

impl Lines {
    fn new(text: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Lines(starts)
    }

    fn line_of(&self, pos: u64) -> usize {
        let pos = usize::try_from(pos).unwrap_or(usize::MAX);
        self.0.partition_point(|&start| start <= pos).max(1)
    }
}

/// An XML element with attributes, text and children, and the line it starts on.
#[derive(Debug, Default)]
pub struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Element>,
    pub text: String,
    pub line: usize,
}

impl Element {
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The children with element name `name`.
    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }
}

/// Parses XML into a tree and returns the element named `root_name` at the top.
pub fn parse(text: &str, root_name: &str) -> Result<Element, XmlError> {
    let err = |line: usize, message: String| XmlError { line, message };
    let lines = Lines::new(text);
    let mut reader = Reader::from_str(text);
    let mut stack: Vec<Element> = vec![Element::default()];
    loop {
        let before = reader.buffer_position();
        let event = reader.read_event().map_err(|e| {
            err(
                lines.line_of(reader.error_position().max(before)),
                format!("malformed XML: {e}"),
            )
        })?;
        // The event starts after leading whitespace that belongs to it.
        let skipped = text
            .get(usize::try_from(before).unwrap_or(0)..)
            .map(|rest| rest.len() - rest.trim_start().len())
            .unwrap_or(0);
        let line = lines.line_of(before + skipped as u64);
        let open = |e: &quick_xml::events::BytesStart| -> Result<Element, XmlError> {
            let name = e.local_name().as_ref().to_string();
            let mut attrs = Vec::new();
            for a in e.attributes() {
                let a = a.map_err(|x| err(line, format!("malformed attribute: {x}")))?;
                let key = a.key.local_name().as_ref().to_string();
                let value = a
                    .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .map_err(|x| err(line, format!("malformed attribute value: {x}")))?
                    .into_owned();
                attrs.push((key, value));
            }
            Ok(Element {
                name,
                attrs,
                children: Vec::new(),
                text: String::new(),
                line,
            })
        };
        match event {
            Event::Start(e) => {
                if stack.len() > crate::input_file::MAX_XML_DEPTH {
                    return Err(err(
                        line,
                        format!("elements nested deeper than {}", crate::input_file::MAX_XML_DEPTH),
                    ));
                }
                let el = open(&e)?;
                stack.push(el);
            }
            Event::Empty(e) => {
                let el = open(&e)?;
                if let Some(parent) = stack.last_mut() {
                    parent.children.push(el);
                }
            }
            Event::End(_) => {
                if stack.len() < 2 {
                    return Err(err(line, "unexpected closing tag".into()));
                }
                if let Some(el) = stack.pop() {
                    if let Some(parent) = stack.last_mut() {
                        parent.children.push(el);
                    }
                }
            }
            Event::Text(t) => {
                if let Some(el) = stack.last_mut() {
                    el.text.push_str(&t.xml10_content());
                }
            }
            Event::CData(t) => {
                if let Some(el) = stack.last_mut() {
                    el.text.push_str(&t.xml10_content());
                }
            }
            Event::GeneralRef(r) => {
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => {
                        let name = r.xml10_content();
                        match quick_xml::escape::resolve_predefined_entity(&name) {
                            Some(s) => s.to_string(),
                            None => return Err(err(line, format!("unknown entity `&{name};`"))),
                        }
                    }
                    Err(e) => return Err(err(line, format!("bad character reference: {e}"))),
                };
                if let Some(el) = stack.last_mut() {
                    el.text.push_str(&resolved);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if stack.len() != 1 {
        let open = stack.last().map(|e| e.name.clone()).unwrap_or_default();
        return Err(err(
            lines.line_of(text.len() as u64),
            format!("unexpected end of file inside <{open}>"),
        ));
    }
    let mut root = stack.pop().unwrap_or_default();
    match root.children.iter().position(|c| c.name == root_name) {
        Some(i) => Ok(root.children.swap_remove(i)),
        None => Err(err(1, format!("no <{root_name}> element"))),
    }
}
