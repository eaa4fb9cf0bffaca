//! Condition automata in CPAchecker's `AssumptionAutomaton` text format.
//!
//! What CPAchecker writes (`AssumptionCollectorAlgorithm.writeAutomaton`):
//!
//! ```text
//! OBSERVER AUTOMATON AssumptionAutomaton
//!
//! INITIAL STATE ARG0;
//!
//! STATE __TRUE :
//!     TRUE -> GOTO __TRUE;
//!
//! STATE __FALSE :
//!     TRUE -> ASSUME {false} GOTO __FALSE;
//!
//! STATE USEFIRST ARG0 :
//!     MATCH "<raw statement of the CFA edge>" -> [ASSUME {<formula>}] GOTO ARG3;
//!     MATCH "…" -> GOTO __FALSE;
//!     TRUE -> GOTO __TRUE;
//!
//! END AUTOMATON
//! ```
//!
//! Mapping to Baton's model:
//! - `__TRUE` is the accepting state (everything after it was verified); `__FALSE` and every
//!   `ASSUME {φ}` with `φ` other than `true` mean "not verified": the transition gets
//!   [`Assumption::False`] and is never followed.
//! - `USEFIRST` states take the first transition whose trigger matches. Baton makes the edge
//!   sets of such a state disjoint in order (an edge already matched by an earlier transition is
//!   removed from later ones). Other states are nondeterministic: every matching transition is
//!   taken, like in Baton's model.
//! - `TRUE -> GOTO __TRUE;` at the end of every ARG state means: every CFA edge not matched
//!   above is covered. CPAchecker writes one `MATCH` per ARG child; an edge leaving the state's
//!   location without ARG child has no successor in the analysis (it is infeasible there), and
//!   edges leaving other locations cannot be taken at this point of the path at all. Both are
//!   correctly covered, so Baton represents the line faithfully: a transition whose edge set is
//!   every CFA edge not matched by the state's earlier transitions.
//! - When no transition matches, a CPAchecker observer automaton may keep its state; Baton's
//!   reader adds no such self-loops: the run stops, which covers fewer paths (sound either
//!   way). Files CPAchecker writes end every state in `TRUE -> …`, so this never arises there.
//! - `MATCH "text"` is resolved by statement text: an edge matches if Baton's rendering of its
//!   operation equals the text up to white space, parentheses and the `function::` qualifiers
//!   of local variable names (assume edges also without their brackets). Matching by text
//!   relies on Baton's CFA having the same edges as CPAchecker's for the statements involved;
//!   it is best effort, and every doubt that could add coverage is an error:
//!   a text that matches no edge is an error unless its transition goes with assumption `true`
//!   into an accepting state (dropping it then covers fewer paths); two different texts of one
//!   state that resolve to a common edge are an error (`ambiguous edge at line N`); a text that
//!   matches several edges is an error unless that cannot add coverage (see
//!   `foreign_transitions`: the transition covers anyway, or the state ends in
//!   `TRUE -> GOTO <accepting>` and no later `MATCH` of a `USEFIRST` state names those edges).
//! - Other triggers (`MATCH {…}`, `MATCH […]`, `CHECK`, expressions), actions (`DO`) and
//!   `LOCAL` variables are rejected with an error.
//!
//! Baton writes the same syntax plus comments that make reading back exact:
//! `// programhash: <sha256>` and `// producer: Baton` at the top, `// baton: accepting` after
//! the `STATE … :` header of accepting states, `// baton: transition K edge N` after each
//! `MATCH` line (K = index of the transition, N = CFA edge id), and
//! `// baton: transition K empty <true|false> <target>` for transitions without edges; both end
//! in the cut's word (` infeasible`, ` state-cut`, see [`Cut`]) where it is not explored; and
//! `// baton: state-cut <text>` at the top for each state cut ([`state_cut`], as its text). Baton
//! writes no `USEFIRST` and no default lines. A file without `// programhash:` is read for the
//! program the caller passes, without a check: the caller is responsible for that choice.

use super::{
    state_cut, Assumption, ConditionAutomaton, ConditionError, ConditionState, Cut, StateId, Transition,
};
use crate::cfa::{EdgeId, Program};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{self, Write};

/// Escapes a string like CPAchecker does for `MATCH "…"`.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '`' => {}
            c => out.push(c),
        }
    }
    out
}

/// Writes `automaton` in CPAchecker's syntax with Baton's comments (see the module doc).
pub fn write_cpachecker(automaton: &ConditionAutomaton, program: &Program) -> String {
    super::to_text(|out| write_cpachecker_to(out, automaton, program))
}

/// Streams `automaton` in CPAchecker's syntax into `out` (linear in the automaton).
pub fn write_cpachecker_to(
    out: &mut impl Write,
    automaton: &ConditionAutomaton,
    program: &Program,
) -> io::Result<()> {
    writeln!(out, "// programhash: {}", automaton.program_hash)?;
    out.write_all(b"// producer: Baton\n")?;
    out.write_all(b"// A Baton condition automaton in CPAchecker's AssumptionAutomaton syntax.\n")?;
    out.write_all(b"// States marked `baton: accepting` are verified; `ASSUME {false}` = not verified.\n")?;
    for cut in &automaton.state_cuts {
        writeln!(out, "// baton: state-cut {}", cut.render(program))?;
    }
    out.write_all(b"OBSERVER AUTOMATON AssumptionAutomaton\n\n")?;
    writeln!(
        out,
        "INITIAL STATE {};\n",
        automaton.state_name(automaton.initial)
    )?;
    let by_state = automaton.transitions_by_state();
    let name = |q: StateId| automaton.states.get(q.index()).map_or("", |s| s.name.as_str());
    for (i, s) in automaton.states.iter().enumerate() {
        write!(out, "STATE {} :", s.name)?;
        if s.accepting {
            out.write_all(b" // baton: accepting")?;
        }
        out.write_all(b"\n")?;
        for &k in &by_state[i] {
            let t = &automaton.transitions[k];
            let assume = match t.assumption {
                Assumption::True => "",
                Assumption::False => "ASSUME {false} ",
            };
            let target = name(t.to);
            let cut = t.cut.word().map(|w| format!(" {w}")).unwrap_or_default();
            if t.edges.is_empty() {
                let a = if t.assumption == Assumption::True {
                    "true"
                } else {
                    "false"
                };
                writeln!(out, "    // baton: transition {k} empty {a} {target}{cut}")?;
            }
            for &e in &t.edges {
                let text = match program.edges.get(e.index()) {
                    Some(edge) => program.render_operation(&edge.op),
                    None => String::new(),
                };
                writeln!(
                    out,
                    "    MATCH \"{}\" -> {assume}GOTO {target}; // baton: transition {k} edge {}{cut}",
                    escape(&text),
                    e.0
                )?;
            }
        }
        out.write_all(b"\n")?;
    }
    out.write_all(b"END AUTOMATON\n")
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Str(String),
    Brace(String),
    Bracket(String),
    Arrow,
    Semi,
    Colon,
    Comment(String),
}

/// Splits the text into tokens with their 1-based lines.
fn tokenize(text: &str) -> Result<Vec<(Tok, usize)>, (usize, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    let mut line = 1;
    while i < chars.len() {
        let c = chars[i];
        let start_line = line;
        match c {
            '\n' => {
                line += 1;
                i += 1;
            }
            c if c.is_whitespace() => i += 1,
            '/' if chars.get(i + 1) == Some(&'/') => {
                let mut j = i + 2;
                while j < chars.len() && chars[j] != '\n' {
                    j += 1;
                }
                toks.push((Tok::Comment(chars[i + 2..j].iter().collect()), start_line));
                i = j;
            }
            '/' if chars.get(i + 1) == Some(&'*') => {
                let mut j = i + 2;
                loop {
                    if j + 1 >= chars.len() {
                        return Err((start_line, "unterminated /* comment".into()));
                    }
                    if chars[j] == '*' && chars[j + 1] == '/' {
                        break;
                    }
                    if chars[j] == '\n' {
                        line += 1;
                    }
                    j += 1;
                }
                i = j + 2;
            }
            '"' => {
                let mut s = String::new();
                let mut j = i + 1;
                loop {
                    match chars.get(j) {
                        None | Some('\n') => return Err((start_line, "unterminated string".into())),
                        Some('"') => break,
                        Some('\\') => {
                            match chars.get(j + 1) {
                                Some('n') => s.push('\n'),
                                Some('r') => s.push('\r'),
                                Some('t') => s.push('\t'),
                                Some(&other) => s.push(other),
                                None => return Err((start_line, "unterminated string".into())),
                            }
                            j += 2;
                        }
                        Some(&other) => {
                            s.push(other);
                            j += 1;
                        }
                    }
                }
                toks.push((Tok::Str(s), start_line));
                i = j + 1;
            }
            '{' | '[' => {
                let close = if c == '{' { '}' } else { ']' };
                let mut depth = 1;
                let mut j = i + 1;
                while depth > 0 {
                    match chars.get(j) {
                        None => return Err((start_line, format!("missing `{close}`"))),
                        Some('\n') => line += 1,
                        Some(&x) if x == c => depth += 1,
                        Some(&x) if x == close => depth -= 1,
                        _ => {}
                    }
                    j += 1;
                }
                let inner: String = chars[i + 1..j - 1].iter().collect();
                toks.push((
                    if c == '{' {
                        Tok::Brace(inner)
                    } else {
                        Tok::Bracket(inner)
                    },
                    start_line,
                ));
                i = j;
            }
            '-' if chars.get(i + 1) == Some(&'>') => {
                toks.push((Tok::Arrow, start_line));
                i += 2;
            }
            ';' => {
                toks.push((Tok::Semi, start_line));
                i += 1;
            }
            ':' => {
                toks.push((Tok::Colon, start_line));
                i += 1;
            }
            c if is_word_char(c) => {
                let mut j = i;
                while j < chars.len() && is_word_char(chars[j]) {
                    j += 1;
                }
                toks.push((Tok::Word(chars[i..j].iter().collect()), start_line));
                i = j;
            }
            other => return Err((start_line, format!("unexpected character `{other}`"))),
        }
    }
    Ok(toks)
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '$')
}

/// A transition as written in the file, before edge resolution.
#[derive(Debug)]
struct RawTransition {
    /// `None` for the `TRUE` trigger.
    text: Option<String>,
    assumption: Assumption,
    target: String,
    line: usize,
    /// From `// baton: transition K edge N` (N = None for `empty`).
    baton: Option<(usize, Option<u32>)>,
    /// The word at the end of that comment ([`Cut::word`]).
    cut: Cut,
}

#[derive(Debug)]
struct RawState {
    name: String,
    use_first: bool,
    accepting_comment: bool,
    transitions: Vec<RawTransition>,
    line: usize,
}

/// Reads a CPAchecker-style condition for `program` (see the module doc) and validates it.
pub fn read_cpachecker(
    text: &str,
    source_name: &str,
    program: &Program,
) -> Result<ConditionAutomaton, ConditionError> {
    let err = |line: usize, message: String| ConditionError::Parse {
        file: source_name.to_string(),
        line,
        message,
    };
    let toks = tokenize(text).map_err(|(l, m)| err(l, m))?;
    let mut hash = None;
    let mut baton = false;
    let mut cut_texts = Vec::new();
    for (t, line) in &toks {
        if let Tok::Comment(c) = t {
            let c = c.trim();
            if let Some(h) = c.strip_prefix("programhash:") {
                hash = Some(h.trim().to_string());
            } else if c == "producer: Baton" {
                baton = true;
            } else if let Some(cut) = c.strip_prefix("baton: state-cut ") {
                cut_texts.push((cut, *line));
            }
        }
    }
    if let Some(h) = &hash {
        if !h.eq_ignore_ascii_case(&program.hash) {
            return Err(ConditionError::WrongProgram {
                condition: source_name.to_string(),
                program: program.files.first().cloned().unwrap_or_default(),
                expected: h.clone(),
                found: program.hash.clone(),
            });
        }
    }
    let state_cuts = cut_texts
        .iter()
        .map(|&(text, line)| state_cut::parse(text, program).map_err(|m| err(line, m)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut p = Parser {
        toks: &toks,
        pos: 0,
        file: source_name,
        end_line: text.lines().count().max(1),
    };
    let (initial_name, raw_states) = p.automaton()?;

    // States.
    let mut ids: HashMap<&str, StateId> = HashMap::new();
    let mut states = Vec::new();
    for s in &raw_states {
        if ids
            .insert(s.name.as_str(), StateId(states.len() as u32))
            .is_some()
        {
            return Err(err(s.line, format!("state `{}` is declared twice", s.name)));
        }
        let accepting = if baton {
            s.accepting_comment
        } else {
            s.name == "__TRUE"
        };
        states.push(ConditionState {
            name: s.name.clone(),
            accepting,
        });
    }
    let initial = *ids.get(initial_name.0.as_str()).ok_or_else(|| {
        err(
            initial_name.1,
            format!("initial state `{}` is not declared", initial_name.0),
        )
    })?;
    let target_of = |t: &RawTransition| {
        ids.get(t.target.as_str())
            .copied()
            .ok_or_else(|| err(t.line, format!("GOTO to undeclared state `{}`", t.target)))
    };

    let transitions = if baton {
        baton_transitions(&raw_states, &ids, program, &err, &target_of)?
    } else {
        foreign_transitions(&raw_states, &ids, &states, program, &err, &target_of)?
    };
    let automaton = ConditionAutomaton {
        program_hash: program.hash.clone(),
        states,
        initial,
        transitions,
        state_cuts,
    };
    automaton.validate(program)?;
    Ok(automaton)
}

type ErrFn<'a> = dyn Fn(usize, String) -> ConditionError + 'a;
type TargetFn<'a> = dyn Fn(&RawTransition) -> Result<StateId, ConditionError> + 'a;

/// Reassembles the transitions of a Baton-written file from its `baton:` comments.
fn baton_transitions(
    raw_states: &[RawState],
    ids: &HashMap<&str, StateId>,
    program: &Program,
    err: &ErrFn<'_>,
    target_of: &TargetFn<'_>,
) -> Result<Vec<Transition>, ConditionError> {
    let mut by_index: BTreeMap<usize, (Transition, usize)> = BTreeMap::new();
    for s in raw_states {
        let from = ids[s.name.as_str()];
        if s.use_first {
            return Err(err(s.line, "USEFIRST in a file marked `producer: Baton`".into()));
        }
        for t in &s.transitions {
            let to = target_of(t)?;
            let Some((k, edge)) = t.baton else {
                return Err(err(
                    t.line,
                    "transition without `// baton: transition K edge N` in a file marked `producer: Baton`"
                        .into(),
                ));
            };
            let entry = by_index.entry(k).or_insert_with(|| {
                (
                    Transition {
                        from,
                        edges: BTreeSet::new(),
                        assumption: t.assumption,
                        to,
                        cut: t.cut,
                    },
                    t.line,
                )
            });
            let t0 = &entry.0;
            if t0.from != from || t0.to != to || t0.assumption != t.assumption || t0.cut != t.cut {
                return Err(err(
                    t.line,
                    format!("lines of transition {k} disagree on source, target, assumption or cut"),
                ));
            }
            match (edge, &t.text) {
                (Some(n), Some(text)) => {
                    let e = EdgeId(n);
                    let Some(cfa_edge) = program.edges.get(e.index()) else {
                        return Err(err(
                            t.line,
                            format!(
                                "CFA edge {n} does not exist (the program has {} edges)",
                                program.edges.len()
                            ),
                        ));
                    };
                    let rendered = program.render_operation(&cfa_edge.op);
                    if &rendered != text {
                        return Err(err(
                            t.line,
                            format!("CFA edge {n} is \"{rendered}\" but the MATCH says \"{text}\""),
                        ));
                    }
                    entry.0.edges.insert(e);
                }
                (None, None) => {}
                _ => return Err(err(t.line, "malformed `baton:` comment".into())),
            }
        }
    }
    let mut transitions = Vec::with_capacity(by_index.len());
    for (expected, (k, (t, line))) in by_index.into_iter().enumerate() {
        if k != expected {
            return Err(err(line, format!("transition {expected} is missing")));
        }
        transitions.push(t);
    }
    Ok(transitions)
}

/// Removes `name::` qualifiers, white space and parentheses (Baton renders expressions fully
/// parenthesised, CPAchecker's raw statements are source text).
fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if c == ':' && chars.peek() == Some(&':') && !word.is_empty() {
            chars.next();
            word.clear();
            continue;
        }
        out.push_str(&word);
        word.clear();
        if !c.is_whitespace() && c != '(' && c != ')' {
            out.push(c);
        }
    }
    out.push_str(&word);
    out
}

/// Candidate CFA edges per normalised statement text. Assume edges are also found without
/// their brackets (`x > 0` besides `[x > 0]`).
fn text_index(program: &Program) -> HashMap<String, BTreeSet<EdgeId>> {
    let mut by_text: HashMap<String, BTreeSet<EdgeId>> = HashMap::new();
    for e in program.edge_ids() {
        let op = &program.edge(e).op;
        let key = normalize(&program.render_operation(op));
        if op.is_assume() {
            if let Some(inner) = key.strip_prefix('[').and_then(|k| k.strip_suffix(']')) {
                by_text.entry(inner.to_string()).or_default().insert(e);
            }
        }
        by_text.entry(key).or_default().insert(e);
    }
    by_text
}

/// Resolves the transitions of a file written by CPAchecker (or by hand).
///
/// Soundness rules (see the module doc): an unresolvable text is dropped only when its
/// transition covers anyway (assumption `true` into an accepting state); two transitions of one
/// state whose different texts resolve to a common edge are an error; a text naming several
/// edges is accepted only when that cannot add coverage: the transition covers anyway, or the
/// state is nondeterministic and ends in `TRUE -> GOTO <accepting>` (it covers every edge at
/// once), or the state is `USEFIRST`, ends in `TRUE -> GOTO <accepting>`, and no later
/// `MATCH` of the state names any of those edges (then the extra edges only move from the
/// covering default to this transition).
fn foreign_transitions(
    raw_states: &[RawState],
    ids: &HashMap<&str, StateId>,
    states: &[ConditionState],
    program: &Program,
    err: &ErrFn<'_>,
    target_of: &TargetFn<'_>,
) -> Result<Vec<Transition>, ConditionError> {
    let by_text = text_index(program);
    let all: BTreeSet<EdgeId> = program.edge_ids().collect();
    let mut transitions = Vec::new();
    for s in raw_states {
        let from = ids[s.name.as_str()];
        let accepting_default = match s.transitions.last() {
            Some(t) if t.text.is_none() && t.assumption == Assumption::True => {
                states[target_of(t)?.index()].accepting
            }
            _ => false,
        };
        // Resolve every MATCH first.
        let mut resolved: Vec<(StateId, BTreeSet<EdgeId>)> = Vec::new();
        for t in &s.transitions {
            let to = target_of(t)?;
            let edges = match &t.text {
                None => all.clone(),
                Some(text) => by_text.get(&normalize(text)).cloned().unwrap_or_default(),
            };
            resolved.push((to, edges));
        }
        for (i, t) in s.transitions.iter().enumerate() {
            let Some(text) = &t.text else { continue };
            let (to, candidates) = &resolved[i];
            let covers_anyway = t.assumption == Assumption::True && states[to.index()].accepting;
            if candidates.is_empty() && !covers_anyway {
                return Err(err(
                    t.line,
                    format!("MATCH \"{text}\" names no CFA edge of this program"),
                ));
            }
            let mut later_overlap = false;
            for (j, u) in s.transitions.iter().enumerate() {
                let Some(other) = &u.text else { continue };
                if j == i || resolved[j].1.is_disjoint(candidates) {
                    continue;
                }
                if other != text {
                    return Err(err(
                        t.line,
                        format!(
                            "ambiguous edge at line {}: MATCH \"{text}\" and MATCH \"{other}\" (line {}) resolve to the same CFA edge",
                            lines_of(program, candidates),
                            u.line
                        ),
                    ));
                }
                if j > i {
                    later_overlap = true;
                }
            }
            let harmless = covers_anyway || (accepting_default && (!s.use_first || !later_overlap));
            if candidates.len() > 1 && !harmless {
                let list: Vec<String> = candidates.iter().map(|e| e.to_string()).collect();
                return Err(err(
                    t.line,
                    format!(
                        "ambiguous edge at line {}: MATCH \"{text}\" could be any of {}",
                        lines_of(program, candidates),
                        list.join(", ")
                    ),
                ));
            }
        }
        let mut matched: BTreeSet<EdgeId> = BTreeSet::new();
        for (t, (to, mut edges)) in s.transitions.iter().zip(resolved) {
            if s.use_first {
                edges.retain(|e| !matched.contains(e));
                matched.extend(edges.iter().copied());
            }
            if edges.is_empty() {
                continue;
            }
            // Another tool's `TRUE -> GOTO __TRUE` covers the edges to safe children too: no
            // transition of a foreign file is known to be only infeasible.
            transitions.push(Transition {
                from,
                edges,
                assumption: t.assumption,
                to,
                cut: Cut::Explored,
            });
        }
    }
    Ok(transitions)
}

/// The source lines of some edges, comma separated.
fn lines_of(program: &Program, edges: &BTreeSet<EdgeId>) -> String {
    let lines: BTreeSet<u32> = edges.iter().map(|&e| program.edge(e).source.line).collect();
    let lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    lines.join(", ")
}

struct Parser<'a> {
    toks: &'a [(Tok, usize)],
    pos: usize,
    file: &'a str,
    end_line: usize,
}

impl Parser<'_> {
    fn err(&self, line: usize, message: String) -> ConditionError {
        ConditionError::Parse {
            file: self.file.to_string(),
            line,
            message,
        }
    }

    /// Skips comments; returns the next significant token.
    fn peek(&mut self) -> Option<&(Tok, usize)> {
        while let Some((Tok::Comment(_), _)) = self.toks.get(self.pos) {
            self.pos += 1;
        }
        self.toks.get(self.pos)
    }

    fn line(&mut self) -> usize {
        let end = self.end_line;
        self.peek().map(|t| t.1).unwrap_or(end)
    }

    fn next(&mut self) -> Result<(Tok, usize), ConditionError> {
        let end = self.end_line;
        match self.peek().cloned() {
            Some(t) => {
                self.pos += 1;
                Ok(t)
            }
            None => Err(self.err(end, "unexpected end of file".into())),
        }
    }

    fn word(&mut self) -> Result<(String, usize), ConditionError> {
        match self.next()? {
            (Tok::Word(w), l) => Ok((w, l)),
            (t, l) => Err(self.err(l, format!("expected a name, found {}", show(&t)))),
        }
    }

    fn keyword(&mut self, kw: &str) -> Result<usize, ConditionError> {
        match self.next()? {
            (Tok::Word(w), l) if w == kw => Ok(l),
            (t, l) => Err(self.err(l, format!("expected `{kw}`, found {}", show(&t)))),
        }
    }

    fn expect(&mut self, tok: Tok) -> Result<usize, ConditionError> {
        let (t, l) = self.next()?;
        if t == tok {
            Ok(l)
        } else {
            Err(self.err(l, format!("expected {}, found {}", show(&tok), show(&t))))
        }
    }

    fn is_word(&mut self, kw: &str) -> bool {
        matches!(self.peek(), Some((Tok::Word(w), _)) if w == kw)
    }

    /// A `// baton: …` comment on line `line`, directly at the current position.
    fn baton_comment(&mut self, line: usize) -> Option<String> {
        match self.toks.get(self.pos) {
            Some((Tok::Comment(c), l)) if *l == line => {
                let c = c.trim().strip_prefix("baton:")?.trim().to_string();
                self.pos += 1;
                Some(c)
            }
            _ => None,
        }
    }

    fn automaton(&mut self) -> Result<((String, usize), Vec<RawState>), ConditionError> {
        if self.is_word("OBSERVER") || self.is_word("CONTROL") {
            self.next()?;
        }
        self.keyword("AUTOMATON")?;
        self.word()?;
        if self.is_word("LOCAL") {
            let l = self.line();
            return Err(self.err(l, "automaton variables (LOCAL) are not supported".into()));
        }
        self.keyword("INITIAL")?;
        self.keyword("STATE")?;
        let initial = self.word()?;
        self.expect(Tok::Semi)?;
        let mut states = Vec::new();
        loop {
            if self.is_word("END") {
                self.next()?;
                self.keyword("AUTOMATON")?;
                break;
            }
            states.push(self.state()?);
        }
        if let Some((t, l)) = self.peek().cloned() {
            return Err(self.err(l, format!("unexpected {} after END AUTOMATON", show(&t))));
        }
        Ok((initial, states))
    }

    fn state(&mut self) -> Result<RawState, ConditionError> {
        let line = self.keyword("STATE")?;
        let mut use_first = false;
        loop {
            if self.is_word("USEFIRST") {
                use_first = true;
            } else if self.is_word("USEALL") {
                use_first = false;
            } else if !(self.is_word("TARGET") || self.is_word("NONTARGET")) {
                break;
            }
            self.next()?;
        }
        let (name, _) = self.word()?;
        let colon_line = self.expect(Tok::Colon)?;
        let accepting_comment = self.baton_comment(colon_line).is_some_and(|c| c == "accepting");
        let mut transitions = Vec::new();
        loop {
            // Comment-only lines of empty Baton transitions.
            while let Some((Tok::Comment(c), l)) = self.toks.get(self.pos) {
                let l = *l;
                if let Some(rest) = c.trim().strip_prefix("baton: transition") {
                    let parts: Vec<&str> = rest.split_whitespace().collect();
                    let (parts, cut) = split_cut(&parts);
                    if let [k, "empty", a, target] = parts {
                        let k: usize = k
                            .parse()
                            .map_err(|_| self.err(l, "malformed `baton:` comment".into()))?;
                        let assumption = match *a {
                            "true" => Assumption::True,
                            "false" => Assumption::False,
                            _ => return Err(self.err(l, "malformed `baton:` comment".into())),
                        };
                        transitions.push(RawTransition {
                            text: None,
                            assumption,
                            target: target.to_string(),
                            line: l,
                            baton: Some((k, None)),
                            cut,
                        });
                    }
                }
                self.pos += 1;
            }
            if self.is_word("STATE") || self.is_word("END") || self.peek().is_none() {
                break;
            }
            transitions.push(self.transition()?);
        }
        Ok(RawState {
            name,
            use_first,
            accepting_comment,
            transitions,
            line,
        })
    }

    fn transition(&mut self) -> Result<RawTransition, ConditionError> {
        let (trigger, line) = self.next()?;
        let text = match trigger {
            Tok::Word(w) if w == "TRUE" => None,
            Tok::Word(w) if w == "MATCH" => match self.next()? {
                (Tok::Str(s), _) => Some(s),
                (t, l) => {
                    return Err(self.err(
                        l,
                        format!("unsupported MATCH trigger {} (only MATCH \"…\")", show(&t)),
                    ))
                }
            },
            t => {
                return Err(self.err(
                    line,
                    format!("unsupported trigger {} (only TRUE and MATCH \"…\")", show(&t)),
                ))
            }
        };
        self.expect(Tok::Arrow)?;
        let mut assumption = Assumption::True;
        if self.is_word("ASSUME") {
            self.next()?;
            match self.next()? {
                (Tok::Brace(f), _) => {
                    if f.trim() != "true" {
                        assumption = Assumption::False;
                    }
                }
                (t, l) => return Err(self.err(l, format!("expected `{{…}}`, found {}", show(&t)))),
            }
        }
        let l = self.line();
        if !self.is_word("GOTO") {
            let (t, _) = self.next()?;
            return Err(self.err(
                l,
                format!("unsupported action {} (only ASSUME {{…}} GOTO state)", show(&t)),
            ));
        }
        self.next()?;
        let (target, _) = self.word()?;
        let semi = self.expect(Tok::Semi)?;
        let (baton, cut) = match self.baton_comment(semi) {
            Some(c) => {
                let parts: Vec<&str> = c.split_whitespace().collect();
                let (parts, cut) = split_cut(&parts);
                match parts {
                    ["transition", k, "edge", n] => match (k.parse(), n.parse()) {
                        (Ok(k), Ok(n)) => (Some((k, Some(n))), cut),
                        _ => return Err(self.err(semi, "malformed `baton:` comment".into())),
                    },
                    _ => return Err(self.err(semi, "malformed `baton:` comment".into())),
                }
            }
            None => (None, Cut::Explored),
        };
        Ok(RawTransition {
            text,
            assumption,
            target,
            line,
            baton,
            cut,
        })
    }
}

/// The words of a `baton:` comment without its trailing cut word, and that cut.
fn split_cut<'a, 'b>(parts: &'b [&'a str]) -> (&'b [&'a str], Cut) {
    match parts {
        [rest @ .., last] => match Cut::from_word(last) {
            Some(cut) => (rest, cut),
            None => (parts, Cut::Explored),
        },
        [] => (parts, Cut::Explored),
    }
}

fn show(t: &Tok) -> String {
    match t {
        Tok::Word(w) => format!("`{w}`"),
        Tok::Str(s) => format!("\"{s}\""),
        Tok::Brace(s) => format!("`{{{s}}}`"),
        Tok::Bracket(s) => format!("`[{s}]`"),
        Tok::Arrow => "`->`".into(),
        Tok::Semi => "`;`".into(),
        Tok::Colon => "`:`".into(),
        Tok::Comment(_) => "a comment".into(),
    }
}
