//! Flow files: a YAML list of stages with budgets, validated before anything runs.
//!
//! ```yaml
//! flow: comb-b
//! description: CBMC with unwinding 1, explicit-value analysis 10 s, then predicate analysis
//! budget: { cpu_time: 900s, memory: 15GB }
//! stages:
//!   - name: bmc-k1
//!     tool: cbmc
//!     options: { unwind: 1 }
//!     budget: { cpu_time: 60s }
//!   - name: explicit
//!     tool: explicit
//!     give_up: { cpu-time: 10s }
//!     input: reduce
//!     max_ratio: 3             # residual within 3× the original's locations (the default)
//!   - parallel:                  # a portfolio: same input, run at once, first verdict wins
//!       - { tool: cbmc, options: { unwind: 3 } }
//!       - { tool: frama-c-eva }
//! ```
//!
//! `trust: replayed-only` (flow level) turns a `false` Baton could not replay into `unknown`.
//! `signed-overflow: wrap` (flow level) makes the flow's analyses and replays wrap signed
//! overflow as gcc's `-fwrapv` does; `--signed-overflow` on the command line overrides it.

use crate::cfa::semantics::SignedOverflow;
use crate::cpa::monitor::GiveUp;
use crate::input_file::{read_text, yaml_too_deep, MAX_DEFINITION_BYTES, MAX_YAML_DEPTH};
use crate::units::{parse_duration, parse_size};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;
use thiserror::Error;

/// A flow file that cannot be used; always names the file and, where known, the line.
#[derive(Debug, Error)]
#[error("{file}:{line}: {message}")]
pub struct FlowError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// How a stage takes what earlier stages verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum StageInput {
    /// The residual program of the accumulated condition (seed 001's reducer).
    #[default]
    Reduce,
    /// The original program, ignoring the condition (seed 001's IDENTITY baseline).
    Identity,
    /// The original program with the condition as a guide (native analyses only).
    Guide,
}

/// Resource limits of a flow or stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Budget {
    pub cpu_time: Option<Duration>,
    pub wall_time: Option<Duration>,
    pub memory: Option<u64>,
}

impl Budget {
    /// This budget capped by `outer` (each limit the smaller of the two).
    pub fn capped_by(self, outer: Budget) -> Budget {
        fn min<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
            match (a, b) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        }
        Budget {
            cpu_time: min(self.cpu_time, outer.cpu_time),
            wall_time: min(self.wall_time, outer.wall_time),
            memory: min(self.memory, outer.memory),
        }
    }
}

/// Which `false` verdicts a flow reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Trust {
    /// Every `false`: replayed where Baton can lower the program, marked unconfirmed otherwise.
    #[default]
    All,
    /// Only a `false` whose counterexample Baton replayed; others become `unknown`.
    ReplayedOnly,
}

/// One stage of a flow.
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    pub name: String,
    /// `explicit`, `predicate`, or an adapter name from `tool-adapters/`.
    pub tool: String,
    /// Tool options (e.g. `unwind: 1`), as strings.
    pub options: BTreeMap<String, String>,
    pub budget: Budget,
    /// Soft give-up conditions (native analyses).
    pub give_up: Vec<GiveUp>,
    pub input: StageInput,
    /// `input: reduce`: the residual program is kept within this many times the original's
    /// locations (`max_ratio:`, default [`DEFAULT_MAX_RATIO`]; [`crate::reducer::reduce_within`]).
    pub max_ratio: f64,
    /// Line of the stage in the flow file, for messages.
    pub line: usize,
    /// Line of each option in the flow file, for messages.
    pub option_lines: BTreeMap<String, usize>,
    /// The parallel group the stage belongs to (consecutive stages with the same number).
    pub group: Option<usize>,
}

/// A validated flow.
#[derive(Debug, Clone, PartialEq)]
pub struct Flow {
    pub name: String,
    pub description: String,
    pub budget: Budget,
    pub trust: Trust,
    /// What signed overflow means for this flow's analyses and replays (`signed-overflow:`);
    /// `None` leaves it to the command line (default: undefined).
    pub signed_overflow: Option<SignedOverflow>,
    pub stages: Vec<Stage>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FlowFile {
    flow: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    budget: Option<BudgetFile>,
    #[serde(default)]
    trust: Trust,
    #[serde(default, rename = "signed-overflow", alias = "signed_overflow")]
    signed_overflow: Option<SignedOverflow>,
    stages: Vec<StageFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BudgetFile {
    #[serde(alias = "cpu-time")]
    cpu_time: Option<serde_norway::Value>,
    #[serde(alias = "wall-time")]
    wall_time: Option<serde_norway::Value>,
    memory: Option<serde_norway::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StageFile {
    name: Option<String>,
    #[serde(default)]
    tool: String,
    #[serde(default)]
    parallel: Vec<StageFile>,
    #[serde(default)]
    options: BTreeMap<String, serde_norway::Value>,
    budget: Option<BudgetFile>,
    #[serde(default, alias = "give-up")]
    give_up: BTreeMap<String, serde_norway::Value>,
    #[serde(default)]
    input: StageInput,
    #[serde(default, alias = "max-ratio")]
    max_ratio: Option<f64>,
}

/// The default size cap of a stage's residual program, in times the original's locations: the
/// exact residual of a condition that unrolls loops is often several times the original (up
/// to 11× over the Table II tasks after 2,000 explicit states, 104× after 1 s); at 3× the
/// residual keeps a median 100 % (mean 91 % and 81 %) of the exact residual's cuts there
/// (scripts/measure-reducer.sh), and comb-b's one residual above 2× (diskperf_simpl1, 2.9×
/// after CBMC) stays exact: at 2× it kept none of its cuts and the predicate stage took 19 s
/// instead of 4 s.
pub const DEFAULT_MAX_RATIO: f64 = 3.0;

/// Tools a flow may name: the native analyses and the adapters that exist.
pub const NATIVE_TOOLS: [&str; 3] = ["explicit", "predicate", "chc"];

/// The options of a `predicate` or `explicit` stage: the proof of a previous version to start from and the
/// file to save the stage's own proof to (`verify --proof-in/--proof-out`, seed 002).
pub const PROOF_OPTIONS: [&str; 2] = ["proof-in", "proof-out"];

fn scalar(v: &serde_norway::Value) -> Option<String> {
    match v {
        serde_norway::Value::String(s) => Some(s.clone()),
        serde_norway::Value::Number(n) => Some(n.to_string()),
        serde_norway::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The first line (1-based) at or after `from` whose text contains `needle`.
fn line_of(text: &str, needle: &str, from: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
}

impl Flow {
    /// Reads and validates a flow file. `known_tools` are the adapter names besides the native
    /// analyses.
    pub fn load(path: &Path, known_tools: &[String]) -> Result<Flow, FlowError> {
        let text = read_text(path, MAX_DEFINITION_BYTES).map_err(|e| FlowError {
            file: path.display().to_string(),
            line: 0,
            message: format!("cannot read: {e}"),
        })?;
        Flow::parse(&text, &path.display().to_string(), known_tools)
    }

    /// Parses and validates the text of a flow file named `file`.
    pub fn parse(text: &str, file: &str, known_tools: &[String]) -> Result<Flow, FlowError> {
        let err = |line: usize, message: String| FlowError {
            file: file.to_string(),
            line,
            message,
        };
        if let Some(line) = yaml_too_deep(text) {
            return Err(err(
                line,
                format!("YAML nested deeper than {MAX_YAML_DEPTH} levels"),
            ));
        }
        let parsed: FlowFile = serde_norway::from_str(text)
            .map_err(|e| err(e.location().map(|l| l.line()).unwrap_or(1), e.to_string()))?;
        let flow_line = line_of(text, "flow:", 1).unwrap_or(1);
        let budget = |b: &Option<BudgetFile>, line: usize| -> Result<Budget, FlowError> {
            let Some(b) = b else { return Ok(Budget::default()) };
            let duration =
                |v: &Option<serde_norway::Value>, what: &str| -> Result<Option<Duration>, FlowError> {
                    v.as_ref()
                        .map(|v| {
                            let s = scalar(v).unwrap_or_default();
                            parse_duration(&s).map_err(|e| {
                                err(
                                    line_of(text, what, line).unwrap_or(line),
                                    format!("invalid {what} `{s}`: {}", e.reason),
                                )
                            })
                        })
                        .transpose()
                };
            let memory = b
                .memory
                .as_ref()
                .map(|v| {
                    let s = scalar(v).unwrap_or_default();
                    parse_size(&s).map_err(|e| {
                        err(
                            line_of(text, "memory", line).unwrap_or(line),
                            format!("invalid memory `{s}`: {}", e.reason),
                        )
                    })
                })
                .transpose()?;
            Ok(Budget {
                cpu_time: duration(&b.cpu_time, "cpu_time")?,
                wall_time: duration(&b.wall_time, "wall_time")?,
                memory,
            })
        };
        if parsed.stages.is_empty() {
            return Err(err(
                line_of(text, "stages", 1).unwrap_or(1),
                "a flow needs at least one stage".into(),
            ));
        }
        let flow_budget = budget(&parsed.budget, flow_line)?;
        let mut stages = Vec::new();
        let mut search_from = line_of(text, "stages", 1).unwrap_or(1);
        // Every stage with its id and parallel group; a group's members in place of the group.
        let mut entries: Vec<(&StageFile, String, Option<usize>)> = Vec::new();
        let mut group_from = search_from;
        let mut groups = 0;
        for (i, s) in parsed.stages.iter().enumerate() {
            if s.parallel.is_empty() {
                entries.push((s, format!("{}", i + 1), None));
                continue;
            }
            let line = line_of(text, "parallel", group_from).unwrap_or(group_from);
            group_from = line + 1;
            if !s.tool.is_empty()
                || s.budget.is_some()
                || !s.options.is_empty()
                || !s.give_up.is_empty()
                || s.max_ratio.is_some()
            {
                return Err(err(
                    line,
                    "a `parallel` group holds only `name` and its stages".into(),
                ));
            }
            if s.parallel.len() < 2 {
                return Err(err(line, "a `parallel` group needs at least two stages".into()));
            }
            if s.parallel.iter().any(|m| !m.parallel.is_empty()) {
                return Err(err(line, "`parallel` groups cannot be nested".into()));
            }
            groups += 1;
            for (j, member) in s.parallel.iter().enumerate() {
                entries.push((member, format!("{}.{}", i + 1, j + 1), Some(groups)));
            }
        }
        for (s, id, group) in entries {
            stages.push(parse_stage(
                s,
                id,
                group,
                text,
                &mut search_from,
                &err,
                known_tools,
                &budget,
            )?);
        }
        let mut names = std::collections::BTreeSet::new();
        for st in &stages {
            if !names.insert(st.name.as_str()) {
                return Err(err(st.line, format!("two stages are named `{}`", st.name)));
            }
        }
        Ok(Flow {
            name: parsed.flow,
            description: parsed.description,
            budget: flow_budget,
            trust: parsed.trust,
            signed_overflow: parsed.signed_overflow,
            stages,
        })
    }
}

/// Reads a `budget:` map found at a line.
type BudgetParser<'a> = dyn Fn(&Option<BudgetFile>, usize) -> Result<Budget, FlowError> + 'a;

#[allow(clippy::too_many_arguments)]
fn parse_stage(
    s: &StageFile,
    id: String,
    group: Option<usize>,
    text: &str,
    search_from: &mut usize,
    err: &dyn Fn(usize, String) -> FlowError,
    known_tools: &[String],
    budget: &BudgetParser<'_>,
) -> Result<Stage, FlowError> {
    let line = line_of(text, &format!("tool: {}", s.tool), *search_from)
        .or_else(|| line_of(text, "tool:", *search_from))
        .unwrap_or(*search_from);
    let stage_line = s
        .name
        .as_ref()
        .and_then(|n| line_of(text, &format!("name: {n}"), *search_from))
        .filter(|&l| l <= line)
        .unwrap_or(line);
    *search_from = line + 1;
    if s.tool.is_empty() {
        return Err(err(
            line,
            "a stage needs `tool` (or is a `parallel` group)".into(),
        ));
    }
    let native = NATIVE_TOOLS.contains(&s.tool.as_str());
    let proof_option = |k: &String| s.tool != "chc" && PROOF_OPTIONS.contains(&k.as_str());
    if native && !s.options.keys().all(proof_option) {
        return Err(err(
            line_of(text, "options", stage_line).unwrap_or(stage_line),
            format!(
                "`{}` takes give_up conditions, not options (`predicate` and `explicit` take {})",
                s.tool,
                PROOF_OPTIONS.join(" and ")
            ),
        ));
    }
    if !native && !known_tools.iter().any(|t| t == &s.tool) {
        let mut all: Vec<String> = NATIVE_TOOLS.iter().map(|t| t.to_string()).collect();
        all.extend(known_tools.iter().cloned());
        return Err(err(
            line,
            format!("unknown tool `{}` (known: {})", s.tool, all.join(", ")),
        ));
    }
    if s.input == StageInput::Guide && !native {
        return Err(err(
            line,
            format!(
                "tool `{}` cannot take a condition as a guide; use `input: reduce` or `identity`",
                s.tool
            ),
        ));
    }
    let mut give_up = Vec::new();
    for (k, v) in &s.give_up {
        let value = scalar(v).unwrap_or_default();
        let g: GiveUp = format!("{}={value}", k.replace('_', "-")).parse().map_err(
            |e: crate::cpa::monitor::GiveUpParseError| {
                err(line_of(text, k, stage_line).unwrap_or(stage_line), e.to_string())
            },
        )?;
        give_up.push(g);
    }
    if !give_up.is_empty() && !native {
        return Err(err(
            line,
            format!("give_up applies to native analyses, not to `{}`", s.tool),
        ));
    }
    let max_ratio = match s.max_ratio {
        None => DEFAULT_MAX_RATIO,
        Some(r) if s.input == StageInput::Reduce && r.is_finite() && r >= 1.0 => r,
        Some(r) => {
            let line = line_of(text, "max", stage_line).unwrap_or(stage_line);
            return Err(err(
                line,
                if s.input == StageInput::Reduce {
                    format!("max_ratio `{r}` must be a number of at least 1 (times the original's locations)")
                } else {
                    "max_ratio applies to `input: reduce` only".into()
                },
            ));
        }
    };
    let mut options = BTreeMap::new();
    let mut option_lines = BTreeMap::new();
    for (k, v) in &s.options {
        option_lines.insert(k.clone(), line_of(text, k, stage_line).unwrap_or(stage_line));
        let value = scalar(v).ok_or_else(|| {
            err(
                line_of(text, k, stage_line).unwrap_or(stage_line),
                format!("option `{k}` must be a scalar"),
            )
        })?;
        options.insert(k.clone(), value);
    }
    Ok(Stage {
        name: s.name.clone().unwrap_or_else(|| format!("{id}-{}", s.tool)),
        tool: s.tool.clone(),
        options,
        budget: budget(&s.budget, stage_line)?,
        give_up,
        input: s.input,
        max_ratio,
        line: stage_line,
        option_lines,
        group,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMB_B: &str = "flow: comb-b\ndescription: test\nbudget: { cpu_time: 900s, memory: 15GB }\nstages:\n  - name: bmc-k1\n    tool: cbmc\n    options: { unwind: 1 }\n    budget: { cpu_time: 60s }\n  - name: explicit\n    tool: explicit\n    give_up: { cpu-time: 10s }\n    input: reduce\n  - name: predicate\n    tool: predicate\n    input: guide\n";

    #[test]
    fn parses_a_flow() {
        let flow = Flow::parse(COMB_B, "comb-b.yaml", &["cbmc".to_string()]).unwrap();
        assert_eq!(flow.stages.len(), 3);
        assert_eq!(flow.budget.cpu_time, Some(Duration::from_secs(900)));
        assert_eq!(flow.budget.memory, Some(15_000_000_000));
        assert_eq!(flow.stages[0].options["unwind"], "1");
        assert_eq!(
            flow.stages[1].give_up,
            vec![GiveUp::CpuTime(Duration::from_secs(10))]
        );
        assert_eq!(flow.stages[2].input, StageInput::Guide);
        assert_eq!(flow.stages[1].line, 9);
        assert_eq!(flow.stages[1].max_ratio, DEFAULT_MAX_RATIO);
    }

    /// `max_ratio` caps a stage's residual program; it must be at least 1 (the original fits)
    /// and belongs to `input: reduce` only.
    #[test]
    fn residual_size_cap_per_stage() {
        let tools = ["cbmc".to_string()];
        let capped = COMB_B.replace("    input: reduce\n", "    input: reduce\n    max_ratio: 1.5\n");
        let flow = Flow::parse(&capped, "f.yaml", &tools).unwrap();
        assert_eq!(flow.stages[1].max_ratio, 1.5);
        let below = capped.replace("max_ratio: 1.5", "max-ratio: 0.5");
        let e = Flow::parse(&below, "f.yaml", &tools).unwrap_err().to_string();
        assert_eq!(
            e,
            "f.yaml:13: max_ratio `0.5` must be a number of at least 1 (times the original's locations)"
        );
        let guided = capped.replace("input: reduce", "input: guide");
        let e = Flow::parse(&guided, "f.yaml", &tools).unwrap_err().to_string();
        assert_eq!(e, "f.yaml:13: max_ratio applies to `input: reduce` only");
    }

    #[test]
    fn parallel_groups_and_trust() {
        let text = "flow: p\ntrust: replayed-only\nstages:\n  - parallel:\n      - name: a\n        tool: cbmc\n      - name: b\n        tool: explicit\n  - name: c\n    tool: predicate\n";
        let flow = Flow::parse(text, "p.yaml", &["cbmc".to_string()]).unwrap();
        assert_eq!(flow.trust, Trust::ReplayedOnly);
        assert_eq!(flow.signed_overflow, None);
        let groups: Vec<Option<usize>> = flow.stages.iter().map(|s| s.group).collect();
        assert_eq!(groups, vec![Some(1), Some(1), None]);
        assert_eq!(flow.stages[1].line, 7);
        let one = "flow: p\nstages:\n  - parallel:\n      - tool: explicit\n";
        let e = Flow::parse(one, "p.yaml", &[]).unwrap_err().to_string();
        assert_eq!(e, "p.yaml:3: a `parallel` group needs at least two stages");
        let twice = text.replace("name: b", "name: a");
        let e = Flow::parse(&twice, "p.yaml", &["cbmc".to_string()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("two stages are named `a`"), "{e}");
        let native_options = "flow: p\nstages:\n  - tool: chc\n    options: { proof-in: a.proof }\n";
        let e = Flow::parse(native_options, "p.yaml", &[])
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "p.yaml:4: `chc` takes give_up conditions, not options (`predicate` and `explicit` take proof-in and proof-out)"
        );
        for tool in ["predicate", "explicit"] {
            let proofs = format!("flow: p\nstages:\n  - tool: {tool}\n    input: identity\n    options: {{ proof-in: a.proof, proof-out: b.proof }}\n");
            let flow = Flow::parse(&proofs, "p.yaml", &[]).expect("proof options");
            assert_eq!(flow.stages[0].options["proof-in"], "a.proof");
        }
    }

    #[test]
    fn errors_name_file_and_line() {
        let e = Flow::parse(COMB_B, "f.yaml", &[]).unwrap_err().to_string();
        assert_eq!(
            e,
            "f.yaml:6: unknown tool `cbmc` (known: explicit, predicate, chc)"
        );
        let bad = COMB_B.replace("give_up: { cpu-time: 10s }", "give_up: { cpu-time: soon }");
        let e = Flow::parse(&bad, "f.yaml", &["cbmc".to_string()])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("f.yaml:11: invalid give-up condition"), "{e}");
        let e = Flow::parse("flow: x\nstages:\n  - tool: [\n", "f.yaml", &[])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("f.yaml:"), "{e}");
        let e = Flow::parse("flow: x\nstagez: []\n", "f.yaml", &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field"), "{e}");
        let e = Flow::parse(
            &COMB_B
                .replace("input: reduce", "input: guide")
                .replace("tool: explicit", "tool: cbmc"),
            "f.yaml",
            &["cbmc".into()],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("cannot take a condition as a guide"), "{e}");
    }
}
