//! The declarative description of one verifier: one YAML file in `tool-adapters/` (or in a
//! directory named by `--adapters` / `BATON_ADAPTERS`) says how to find the tool, how to ask its
//! version, how to start it on a task, how to read its verdict and what its outcome contributes.
//!
//! ```yaml
//! tool: my-verifier
//! executables: { verifier: my-verifier.sh }    # role: name (or a list of alternatives)
//! version: { command: ["{verifier}", --version], regex: 'version (\S+)' }
//! options:
//!   unwind: { type: int, default: 5 }
//!   strategy: { type: string, allowed: [kinduction, bmc] }
//! command: ["{verifier}", --propertyfile, "{property}", "--{bits}",
//!           { when: strategy, args: [--strategy, "{options.strategy}"] }, "{program}"]
//! result:                                       # first match wins
//!   - { exit_code: 0, line: '^VERIFICATION SUCCESSFUL', verdict: true }
//!   - { line: '^VERIFICATION FAILED', verdict: false }
//!   - { verdict: unknown }
//! contributes: nothing                          # or replay-bug, or an extractor name
//! ```
//!
//! Placeholders in `command`, `env` and `version.command`: `{program}`, `{property}` (an
//! `unreach-call.prp` Baton writes), `{data_model}` (`ILP32`/`LP64`), `{bits}` (`32`/`64`),
//! `{workdir}`, `{witness}` (`{workdir}/witness.graphml`), `{cpu_time_s}` (the stage's CPU budget
//! in whole seconds), `{options.NAME}`, and `{ROLE}` for the path of each executable. An item
//! `{ when: NAME, args: [...] }` is included only when option NAME is set (and not `false`).

use super::AdapterError;
use serde::Deserialize;
use std::collections::BTreeMap;

/// One adapter file, as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdapterSpec {
    /// The name flows use (`tool: cbmc`).
    pub tool: String,
    /// A human-readable name and what the tool does.
    #[serde(default)]
    pub about: String,
    /// Why the tool cannot be installed on Baton's machines, if it cannot.
    #[serde(default)]
    pub not_installable: Option<String>,
    /// How to install it, shown when an executable is missing.
    #[serde(default)]
    pub install: Option<String>,
    /// Executables by role; each a name or a list of alternatives (the first found is used).
    pub executables: BTreeMap<String, Executable>,
    /// How to ask the tool for its version.
    #[serde(default)]
    pub version: Option<VersionSpec>,
    /// The options a stage may set.
    #[serde(default)]
    pub options: BTreeMap<String, OptionSpec>,
    /// The command line (argv template); empty for extractors with their own procedure.
    #[serde(default)]
    pub command: Vec<ArgItem>,
    /// Environment variables set for the tool (placeholders allowed).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// A named preparation of the program before the tool sees it (see `prepare.rs`).
    #[serde(default)]
    pub prepare: Option<String>,
    /// Result rules in order; the first whose conditions all hold gives the verdict.
    #[serde(default)]
    pub result: Vec<ResultRule>,
    /// Where the tool writes a violation witness or test inputs (a glob relative to the
    /// workdir, or a list of them tried in order, e.g. a format-2.0 YAML witness before a
    /// GraphML one).
    #[serde(default)]
    pub witness: Option<FilePatterns>,
    /// Where the tool writes a condition in a format Baton reads (glob, relative to the workdir).
    #[serde(default)]
    pub condition: Option<String>,
    /// What an outcome contributes: `nothing`, `replay-bug`, or an extractor's name.
    pub contributes: String,
}

/// An executable: one name, or alternatives tried in order.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum Executable {
    /// A single name (or a path relative to the adapter file).
    One(String),
    /// Alternatives, the first one found wins.
    Any(Vec<String>),
}

impl Executable {
    /// The names in the order they are tried.
    pub fn names(&self) -> Vec<&str> {
        match self {
            Executable::One(n) => vec![n.as_str()],
            Executable::Any(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

/// The version query.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VersionSpec {
    /// The argv (placeholders for executables allowed).
    pub command: Vec<String>,
    /// A regex over the output lines; its first group (or whole match) is the version.
    #[serde(default)]
    pub regex: Option<String>,
}

/// The type of a declared option.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptionType {
    /// A (signed) integer.
    Int,
    /// `true` or `false`.
    Bool,
    /// Any text (restricted by `allowed` where given).
    String,
}

/// A declared option.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionSpec {
    /// Its type.
    #[serde(rename = "type")]
    pub kind: OptionType,
    /// The value used when a stage does not set it (unset otherwise).
    #[serde(default)]
    pub default: Option<serde_norway::Value>,
    /// The only values allowed, if given.
    #[serde(default)]
    pub allowed: Vec<serde_norway::Value>,
    /// What it does.
    #[serde(default)]
    pub about: String,
}

/// One item of the argv template.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum ArgItem {
    /// Always present (after placeholder substitution).
    Plain(String),
    /// Present only when an option is set.
    When {
        /// The option's name.
        when: String,
        /// The arguments then added.
        args: Vec<String>,
    },
}

/// The verdict a result rule gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleVerdict {
    /// The error is unreachable.
    True,
    /// The error is reachable (to be replayed where Baton can).
    False,
    /// No decision.
    Unknown,
    /// The tool failed.
    Error,
}

/// A result rule: every given condition must hold.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultRule {
    /// The exit code is one of these (a number or a list).
    #[serde(default)]
    pub exit_code: Option<ExitCodes>,
    /// Some output line (stdout and stderr) matches this regex.
    #[serde(default)]
    pub line: Option<String>,
    /// No output line matches this regex.
    #[serde(default)]
    pub no_line: Option<String>,
    /// The verdict given.
    pub verdict: RuleVerdict,
    /// A text for the report (e.g. why it is unknown).
    #[serde(default)]
    pub note: Option<String>,
}

/// One exit code or several.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum ExitCodes {
    /// Exactly this code.
    One(i32),
    /// Any of these.
    Any(Vec<i32>),
}

impl ExitCodes {
    fn contains(&self, code: i32) -> bool {
        match self {
            ExitCodes::One(c) => *c == code,
            ExitCodes::Any(v) => v.contains(&code),
        }
    }
}

/// A result rule with its regexes compiled.
#[derive(Debug, Clone)]
pub struct CompiledRule {
    exit_code: Option<ExitCodes>,
    line: Option<regex::Regex>,
    no_line: Option<regex::Regex>,
    /// The verdict given.
    pub verdict: RuleVerdict,
    /// The rule's note.
    pub note: Option<String>,
    /// Position in the file (1-based), for reports.
    pub index: usize,
}

impl CompiledRule {
    /// Whether the rule applies to a run that exited with `exit_code` and printed `lines`.
    pub fn matches(&self, exit_code: Option<i32>, lines: &[&str]) -> bool {
        if let Some(codes) = &self.exit_code {
            if !exit_code.is_some_and(|c| codes.contains(c)) {
                return false;
            }
        }
        if let Some(re) = &self.line {
            if !lines.iter().any(|l| re.is_match(l)) {
                return false;
            }
        }
        if let Some(re) = &self.no_line {
            if lines.iter().any(|l| re.is_match(l)) {
                return false;
            }
        }
        true
    }
}

/// The first rule that applies, if any.
pub fn first_match<'r>(
    rules: &'r [CompiledRule],
    exit_code: Option<i32>,
    output: &str,
) -> Option<&'r CompiledRule> {
    let lines: Vec<&str> = output.lines().collect();
    rules.iter().find(|r| r.matches(exit_code, &lines))
}

/// One glob or a list of globs (relative to the workdir), tried in order.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(from = "OneOrMore")]
pub struct FilePatterns(pub Vec<String>);

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMore {
    One(String),
    More(Vec<String>),
}

impl From<OneOrMore> for FilePatterns {
    fn from(v: OneOrMore) -> Self {
        match v {
            OneOrMore::One(p) => FilePatterns(vec![p]),
            OneOrMore::More(ps) => FilePatterns(ps),
        }
    }
}

impl FilePatterns {
    /// The first existing file the patterns match in `dir`, in the patterns' order.
    pub fn find_in(&self, dir: &std::path::Path) -> Option<std::path::PathBuf> {
        self.0.iter().find_map(|p| super::run::find_file(dir, p))
    }
}

impl std::fmt::Display for FilePatterns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.join(" or "))
    }
}

/// Placeholders that do not name an option or executable.
pub const PLACEHOLDERS: [&str; 7] = [
    "program",
    "property",
    "data_model",
    "bits",
    "workdir",
    "witness",
    "cpu_time_s",
];

/// What a stage's outcome contributes besides its verdict.
pub const CONTRIBUTIONS: [&str; 2] = ["nothing", "replay-bug"];

fn config_error(origin: &str, message: String) -> AdapterError {
    AdapterError::Config {
        origin: origin.to_string(),
        message,
    }
}

/// The placeholder names in `text` (`{name}`), or an error for an unclosed brace.
pub fn placeholders(text: &str) -> Result<Vec<&str>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('{') {
        let after = &rest[start + 1..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("unclosed `{{` in `{text}`"))?;
        out.push(&after[..end]);
        rest = &after[end + 1..];
    }
    Ok(out)
}

/// Substitutes every `{name}` in `text` with `lookup(name)`; unknown names are an error.
pub fn substitute(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("unclosed `{{` in `{text}`"))?;
        let name = &after[..end];
        out.push_str(&lookup(name).ok_or_else(|| format!("no value for `{{{name}}}`"))?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn value_text(v: &serde_norway::Value) -> Option<String> {
    match v {
        serde_norway::Value::String(s) => Some(s.clone()),
        serde_norway::Value::Number(n) => Some(n.to_string()),
        serde_norway::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

impl OptionSpec {
    /// Checks a value given as text; the normalised text or what is wrong.
    pub fn check(&self, value: &str) -> Result<String, String> {
        let normalised = match self.kind {
            OptionType::Int => value
                .trim()
                .parse::<i64>()
                .map(|n| n.to_string())
                .map_err(|_| format!("`{value}` is not an integer"))?,
            OptionType::Bool => match value.trim() {
                "true" => "true".to_string(),
                "false" => "false".to_string(),
                _ => return Err(format!("`{value}` is not true or false")),
            },
            OptionType::String => value.to_string(),
        };
        if !self.allowed.is_empty() {
            let allowed: Vec<String> = self.allowed.iter().filter_map(value_text).collect();
            if !allowed.contains(&normalised) {
                return Err(format!(
                    "`{value}` is not allowed (allowed: {})",
                    allowed.join(", ")
                ));
            }
        }
        Ok(normalised)
    }

    /// The default as text, if there is one.
    pub fn default_text(&self) -> Option<String> {
        self.default.as_ref().and_then(value_text)
    }
}

/// A validated adapter: the spec with compiled rules.
#[derive(Debug, Clone)]
pub struct Adapter {
    /// The spec as written.
    pub spec: AdapterSpec,
    /// The result rules, compiled.
    pub rules: Vec<CompiledRule>,
    /// The compiled version regex.
    pub version_regex: Option<regex::Regex>,
    /// Where it came from (`tool-adapters/cbmc.yaml (built in)` or a file path).
    pub origin: String,
    /// The directory of the adapter file (for executables given as relative paths).
    pub dir: Option<std::path::PathBuf>,
}

impl Adapter {
    /// Parses and validates an adapter file. `extractors` are the extractor names Baton has.
    pub fn parse(
        text: &str,
        origin: &str,
        dir: Option<std::path::PathBuf>,
        extractors: &[&str],
    ) -> Result<Adapter, AdapterError> {
        if let Some(line) = crate::input_file::yaml_too_deep(text) {
            return Err(config_error(
                origin,
                format!("line {line}: YAML nested too deeply"),
            ));
        }
        let spec: AdapterSpec =
            serde_norway::from_str(text).map_err(|e| config_error(origin, e.to_string()))?;
        let err = |m: String| config_error(origin, m);
        if spec.tool.is_empty()
            || !spec
                .tool
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        {
            return Err(err(format!(
                "tool name `{}` must be letters, digits, - _ .",
                spec.tool
            )));
        }
        if !CONTRIBUTIONS.contains(&spec.contributes.as_str())
            && !extractors.contains(&spec.contributes.as_str())
        {
            return Err(err(format!(
                "contributes: `{}` is neither {} nor an extractor ({})",
                spec.contributes,
                CONTRIBUTIONS.join(", "),
                extractors.join(", ")
            )));
        }
        if let Some(p) = &spec.prepare {
            if !super::prepare::NAMES.contains(&p.as_str()) {
                return Err(err(format!(
                    "prepare: no preparation `{p}` (known: {})",
                    super::prepare::NAMES.join(", ")
                )));
            }
        }
        let generic = CONTRIBUTIONS.contains(&spec.contributes.as_str());
        if generic && spec.command.is_empty() {
            return Err(err("command is empty".into()));
        }
        if spec.result.is_empty() {
            return Err(err("result: at least one rule is needed".into()));
        }
        for (name, o) in &spec.options {
            if let Some(d) = o.default_text() {
                o.check(&d)
                    .map_err(|m| err(format!("option `{name}`: default {m}")))?;
            }
        }
        let known = |p: &str| -> bool {
            PLACEHOLDERS.contains(&p)
                || spec.executables.contains_key(p)
                || p.strip_prefix("options.")
                    .is_some_and(|o| spec.options.contains_key(o))
        };
        let mut texts: Vec<&str> = Vec::new();
        for item in &spec.command {
            match item {
                ArgItem::Plain(s) => texts.push(s),
                ArgItem::When { when, args } => {
                    if !spec.options.contains_key(when) {
                        return Err(err(format!("command: `when: {when}` names no declared option")));
                    }
                    texts.extend(args.iter().map(String::as_str));
                }
            }
        }
        texts.extend(spec.env.values().map(String::as_str));
        if let Some(v) = &spec.version {
            if v.command.is_empty() {
                return Err(err("version.command is empty".into()));
            }
            texts.extend(v.command.iter().map(String::as_str));
        }
        for t in texts {
            for p in placeholders(t).map_err(&err)? {
                if !known(p) {
                    return Err(err(format!("unknown placeholder `{{{p}}}` in `{t}`")));
                }
            }
        }
        let compile = |what: &str, re: &str| {
            regex::Regex::new(re).map_err(|e| err(format!("{what}: bad regex `{re}`: {e}")))
        };
        let mut rules = Vec::new();
        for (i, r) in spec.result.iter().enumerate() {
            rules.push(CompiledRule {
                exit_code: r.exit_code.clone(),
                line: r
                    .line
                    .as_deref()
                    .map(|re| compile(&format!("result rule {}", i + 1), re))
                    .transpose()?,
                no_line: r
                    .no_line
                    .as_deref()
                    .map(|re| compile(&format!("result rule {}", i + 1), re))
                    .transpose()?,
                verdict: r.verdict,
                note: r.note.clone(),
                index: i + 1,
            });
        }
        let version_regex = spec
            .version
            .as_ref()
            .and_then(|v| v.regex.as_deref())
            .map(|re| compile("version.regex", re))
            .transpose()?;
        Ok(Adapter {
            spec,
            rules,
            version_regex,
            origin: origin.to_string(),
            dir,
        })
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.spec.tool
    }

    /// Checks a stage's options: unknown names, wrong types and disallowed values are errors
    /// (`Err((option name, message))`); the result holds every option with a value, defaults
    /// filled in, normalised.
    pub fn resolve_options(
        &self,
        given: &BTreeMap<String, String>,
    ) -> Result<BTreeMap<String, String>, (String, String)> {
        let mut out = BTreeMap::new();
        for (k, v) in given {
            let Some(spec) = self.spec.options.get(k) else {
                let declared: Vec<&str> = self.spec.options.keys().map(String::as_str).collect();
                return Err((
                    k.clone(),
                    format!(
                        "unknown option `{k}` for tool `{}` (declared: {})",
                        self.name(),
                        if declared.is_empty() {
                            "none".to_string()
                        } else {
                            declared.join(", ")
                        }
                    ),
                ));
            };
            let value = spec
                .check(v)
                .map_err(|m| (k.clone(), format!("option `{k}` of tool `{}`: {m}", self.name())))?;
            out.insert(k.clone(), value);
        }
        for (k, spec) in &self.spec.options {
            if !out.contains_key(k) {
                if let Some(d) = spec.default_text() {
                    out.insert(k.clone(), d);
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FAKE: &str = "tool: fake\nexecutables: { verifier: fake.sh }\noptions:\n  unwind: { type: int, default: 3 }\n  mode: { type: string, allowed: [fast, slow] }\n  full: { type: bool }\ncommand: [\"{verifier}\", \"--{bits}\", { when: mode, args: [--mode, \"{options.mode}\"] }, \"{program}\"]\nresult:\n  - { exit_code: 0, line: '^SAFE', verdict: true }\n  - { line: '^UNSAFE', no_line: 'unwinding', verdict: false }\n  - { verdict: unknown }\ncontributes: nothing\n";

    #[test]
    fn parses_and_checks_options() {
        let a = Adapter::parse(FAKE, "fake.yaml", None, &[]).unwrap();
        let mut given = BTreeMap::new();
        given.insert("mode".to_string(), "fast".to_string());
        let r = a.resolve_options(&given).unwrap();
        assert_eq!(r["unwind"], "3");
        assert_eq!(r["mode"], "fast");
        given.insert("mode".to_string(), "medium".to_string());
        assert!(a.resolve_options(&given).unwrap_err().1.contains("not allowed"));
        given.clear();
        given.insert("unwnid".to_string(), "2".to_string());
        let (k, m) = a.resolve_options(&given).unwrap_err();
        assert_eq!(k, "unwnid");
        assert!(
            m.contains("unknown option `unwnid`") && m.contains("unwind"),
            "{m}"
        );
        given.clear();
        given.insert("unwind".to_string(), "two".to_string());
        assert!(a
            .resolve_options(&given)
            .unwrap_err()
            .1
            .contains("not an integer"));
    }

    #[test]
    fn rules_first_match_wins() {
        let a = Adapter::parse(FAKE, "fake.yaml", None, &[]).unwrap();
        let v = |code, out| first_match(&a.rules, code, out).map(|r| r.verdict);
        assert_eq!(v(Some(0), "x\nSAFE\n"), Some(RuleVerdict::True));
        assert_eq!(v(Some(1), "SAFE\n"), Some(RuleVerdict::Unknown));
        assert_eq!(v(Some(10), "UNSAFE\n"), Some(RuleVerdict::False));
        assert_eq!(v(Some(10), "UNSAFE\nunwinding\n"), Some(RuleVerdict::Unknown));
    }

    #[test]
    fn bad_adapters_are_rejected() {
        let bad = FAKE.replace("\"{program}\"]", "\"{progam}\"]");
        let e = Adapter::parse(&bad, "f.yaml", None, &[]).unwrap_err().to_string();
        assert!(e.contains("unknown placeholder `{progam}`"), "{e}");
        let bad = FAKE.replace("'^SAFE'", "'^(SAFE'");
        assert!(Adapter::parse(&bad, "f.yaml", None, &[])
            .unwrap_err()
            .to_string()
            .contains("bad regex"));
        let bad = FAKE.replace("contributes: nothing", "contributes: magic");
        assert!(Adapter::parse(&bad, "f.yaml", None, &[]).is_err());
        let bad = FAKE.replace("default: 3", "default: x");
        assert!(Adapter::parse(&bad, "f.yaml", None, &[]).is_err());
    }

    #[test]
    fn substitution() {
        let f = |n: &str| (n == "bits").then(|| "32".to_string());
        assert_eq!(substitute("--{bits}", &f).unwrap(), "--32");
        assert!(substitute("{nope}", &f).is_err());
        assert!(substitute("{bits", &f).is_err());
    }
}
