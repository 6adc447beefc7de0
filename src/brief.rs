//! The brief (docs/tasks.md, docs/brief.md): the operator's words kept
//! verbatim, amended only by appending.
//!
//! This module renders addenda and notes entries, validates a task file's
//! brief, addenda and `qa` entries, and compares two versions of a task file
//! for the append-only rule: the brief never changes, the addenda only grow,
//! the front matter changes only in `status` and `pins`. Pure: texts in,
//! faults out.
//!
//! An addendum reads, in Markdown:
//!
//! `````text
//! ### 2026-11-30T10:05:00Z · qa · Ada Lovelace
//!
//! - round: 1
//! - stage: design
//! - decided_by: agent
//! - summary: Exports are UTF-8 with a BOM
//! - conflict: none
//!
//! Question:
//!
//! ```text
//! Which encoding?
//! ```
//!
//! Answer:
//!
//! ```text
//! UTF-8 with a BOM.
//! ```
//!
//! Rationale:
//!
//! ```text
//! Spreadsheet programs read a BOM-less CSV as Latin-1 …
//! ```
//! `````
//!
//! An `amendment` is its heading and one fenced block with the operator's
//! words. A `scope` entry widens the task's scope by one glob
//! (`gate task scope add`; docs/tasks.md#widening-the-scope), its two
//! values JSON-quoted so they round-trip exactly:
//!
//! ```text
//! ### 2026-11-30T11:00:00Z · scope · Ada Lovelace
//!
//! - add: "docs/export/**"
//! - because: "the export is documented beside the code"
//! ```
//!
//! Every verbatim text is fenced as the brief is (see
//! [`crate::task::format`]), so it round-trips byte for byte.

use crate::clock::{Date, Timestamp};
use crate::task::format::{self, Verbatim};
use crate::task::log::scope_fields;
pub use crate::task::log::{
    Decider, Entry, Qa, QaEntry, SEP, ScopeAddition, entries, next_round, one_line, qa_entries,
    render_amendment, render_note, render_qa, render_scope, scope_additions,
};

pub const CHECK: &str = "brief";

/// The least an agent's rationale must hold: non-whitespace characters.
pub const MIN_RATIONALE: usize = 50;

/// Non-whitespace characters in a text.
pub fn substance(text: &str) -> usize {
    text.chars().filter(|c| !c.is_whitespace()).count()
}

/// A fault found in a task file's brief, addenda or record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub cause: &'static str,
    /// 1-based line in the file, when known.
    pub line: Option<usize>,
    pub message: String,
}

fn fault(cause: &'static str, line: Option<usize>, message: impl Into<String>) -> Fault {
    Fault {
        cause,
        line,
        message: message.into(),
    }
}

/// The fault for a task file that does not load as a task: its front
/// matter (or layout) does not fit `gate.task/1`.
pub fn schema_invalid(e: &crate::task::TaskError) -> Fault {
    fault("schema_invalid", None, e.to_string())
}

/// Validate a parsed task (docs/brief.md): the three sections, the brief, every
/// addendum and every `qa` entry; the closed front matter was checked when
/// it was parsed (a file that does not parse is [`schema_invalid`]). The
/// severity is the caller's (it depends on the task's age and the policy).
pub fn validate(task: &crate::task::Task) -> Vec<Fault> {
    let mut out = Vec::new();
    let body = &task.body;
    for p in &body.problems {
        let cause = if body.brief.is_none() {
            "brief_missing"
        } else {
            "addendum_malformed"
        };
        out.push(fault(cause, Some(p.line), p.message.clone()));
    }
    match &body.brief {
        None if body.problems.is_empty() => out.push(fault(
            "brief_missing",
            None,
            "no `## Brief (verbatim)` section with a fenced block",
        )),
        None => {}
        Some(b) if b.text.trim().is_empty() => {
            out.push(fault("statement_empty", Some(b.line), "the brief is empty"))
        }
        Some(_) => {}
    }
    match &body.addenda {
        None => out.push(fault("addendum_malformed", None, "no `## Addenda` section")),
        Some(section) => out.extend(validate_addenda(&section.text, section.line)),
    }
    if body.notes.is_none() {
        out.push(fault(
            "addendum_malformed",
            None,
            "no `## Implementation notes` section",
        ));
    }
    out
}

/// Validate every entry of an addenda section.
pub fn validate_addenda(section: &str, heading_line: usize) -> Vec<Fault> {
    let mut out = Vec::new();
    let (preamble, entries) = entries(section, heading_line);
    if !preamble.trim().is_empty() {
        out.push(fault(
            "addendum_malformed",
            Some(heading_line + 1),
            "text in the addenda that belongs to no entry",
        ));
    }
    let mut previous: Option<(Timestamp, usize)> = None;
    for e in &entries {
        let parts: Vec<&str> = e
            .heading
            .trim_start_matches("### ")
            .splitn(3, SEP)
            .collect();
        let [time, kind, author] = parts.as_slice() else {
            out.push(fault(
                "addendum_malformed",
                Some(e.line),
                format!("`{}` is not `### TIME · KIND · AUTHOR`", e.heading),
            ));
            continue;
        };
        match Timestamp::parse(time) {
            Ok(t) => {
                if let Some((p, line)) = previous
                    && t < p
                {
                    out.push(fault(
                        "addendum_malformed",
                        Some(e.line),
                        format!("the entry at {time} comes after one at line {line} that is later: the log is chronological"),
                    ));
                }
                previous = Some((t, e.line));
            }
            Err(m) => out.push(fault(
                "addendum_malformed",
                Some(e.line),
                format!("entry time `{time}`: {m}"),
            )),
        }
        if author.trim().is_empty() {
            out.push(fault(
                "addendum_malformed",
                Some(e.line),
                "the entry names no author",
            ));
        }
        let blocks = format::verbatim_blocks(e.body, e.line);
        match *kind {
            "amendment" => {
                if blocks.len() != 1 {
                    out.push(fault(
                        "addendum_malformed",
                        Some(e.line),
                        format!("an amendment holds one fenced block with the operator's words; this one has {}", blocks.len()),
                    ));
                } else if blocks[0].0.text.trim().is_empty() {
                    out.push(fault(
                        "addendum_malformed",
                        Some(e.line),
                        "the amendment is empty",
                    ));
                }
            }
            "qa" => out.extend(validate_qa(e, &blocks)),
            "scope" => {
                if let Err(m) = scope_fields(e) {
                    out.push(fault("addendum_malformed", Some(e.line), m));
                }
            }
            other => out.push(fault(
                "addendum_malformed",
                Some(e.line),
                format!("entry kind `{other}` is not `amendment`, `qa` or `scope`"),
            )),
        }
    }
    out.extend(validate_rounds(&qa_entries(section, heading_line)));
    out
}

/// The fields and blocks of a `qa` entry.
fn validate_qa(e: &Entry, blocks: &[(Verbatim, usize, usize)]) -> Vec<Fault> {
    let mut out = Vec::new();
    let field = |name: &str| -> Option<&str> {
        let prefix = format!("- {name}: ");
        e.body
            .lines()
            .find_map(|l| l.strip_prefix(prefix.as_str()))
            .map(|v| v.trim_end_matches('\r'))
    };
    for name in ["stage", "decided_by", "summary", "conflict"] {
        match field(name) {
            None => out.push(fault(
                "qa_incomplete",
                Some(e.line),
                format!("the qa entry has no `{name}`"),
            )),
            Some(v) if v.trim().is_empty() => out.push(fault(
                "qa_incomplete",
                Some(e.line),
                format!("the qa entry's `{name}` is blank"),
            )),
            Some(_) => {}
        }
    }
    let decided = field("decided_by").map(str::trim);
    if let Some(d) = decided
        && !matches!(d, "operator" | "agent")
        && !d.is_empty()
    {
        out.push(fault(
            "qa_incomplete",
            Some(e.line),
            format!("decided_by is `{d}`, not `operator` or `agent`"),
        ));
    }
    // Blocks follow their labels: Question, Answer, then Rationale.
    let labelled = |label: &str| -> Option<&Verbatim> {
        let at = e.body.find(&format!("\n{label}:\n"))?;
        blocks
            .iter()
            .find(|(_, start, _)| *start > at)
            .map(|(v, _, _)| v)
    };
    for label in ["Question", "Answer"] {
        match labelled(label) {
            None => out.push(fault(
                "qa_incomplete",
                Some(e.line),
                format!("the qa entry has no {label} block"),
            )),
            Some(v) if v.text.trim().is_empty() => out.push(fault(
                "qa_incomplete",
                Some(e.line),
                format!("the qa entry's {label} is empty"),
            )),
            Some(_) => {}
        }
    }
    if decided == Some("agent") {
        let n = labelled("Rationale").map_or(0, |v| substance(&v.text));
        if n < MIN_RATIONALE {
            out.push(fault(
                "qa_rationale_too_short",
                Some(e.line),
                format!("an agent's decision needs a rationale of at least {MIN_RATIONALE} non-whitespace characters; this one has {n}"),
            ));
        }
    }
    out
}

/// The agent's decisions that conflict with the operator's words and that
/// no operator's answer has closed (`- resolves: N` in a later `qa` entry
/// the operator decided), in order (docs/brief.md, "A conflict waits for
/// the operator").
pub fn open_conflicts(qa: &[QaEntry]) -> Vec<&QaEntry> {
    qa.iter()
        .filter(|q| q.decided_by == "agent" && q.conflicts())
        .filter(|q| {
            !qa.iter().any(|later| {
                later.round > q.round
                    && later.decided_by == "operator"
                    && later.resolves_round() == Some(q.round)
            })
        })
        .collect()
}

/// What is wrong with the rounds of a section's `qa` entries: a `round`
/// that is not the entry's place, a `resolves` that names no earlier
/// conflicting decision of the agent, or that the operator did not write.
fn validate_rounds(qa: &[QaEntry]) -> Vec<Fault> {
    let mut out = Vec::new();
    for q in qa {
        if let Some(says) = &q.says_round
            && says.trim().parse::<usize>().ok() != Some(q.round)
        {
            out.push(fault(
                "qa_incomplete",
                Some(q.line),
                format!(
                    "the qa entry says round `{}`, and it is qa entry {}: rounds count the qa entries from 1",
                    says.trim(),
                    q.round
                ),
            ));
        }
        let Some(resolves) = &q.resolves else {
            continue;
        };
        let named = q.resolves_round();
        let target = named.and_then(|r| qa.iter().find(|t| t.round == r && t.round < q.round));
        let wrong = if q.decided_by != "operator" {
            Some("only an operator's answer closes a conflict".to_string())
        } else {
            match target {
                None => Some(format!(
                    "`resolves: {}` names no earlier qa round",
                    resolves.trim()
                )),
                Some(t) if !(t.decided_by == "agent" && t.conflicts()) => Some(format!(
                    "round {} is no decision of the agent's that records a conflict",
                    t.round
                )),
                Some(_) => None,
            }
        };
        if let Some(why) = wrong {
            out.push(fault("qa_incomplete", Some(q.line), why));
        }
    }
    out
}

/// How a brief fault weighs for a task created at `created` (docs/brief.md):
/// on or after `required_since` → blocker; before (or with no date set) →
/// `info` while the task is under 30 days old, `warn` after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weight {
    Blocker,
    Warn,
    Info,
}

pub fn weight(created: Date, required_since: Option<Date>, today: Date) -> Weight {
    if required_since.is_some_and(|since| created >= since) {
        return Weight::Blocker;
    }
    if created.days_until(today) < 30 {
        Weight::Info
    } else {
        Weight::Warn
    }
}

/// Compare two versions of one task file (an earlier `old`, a later `new`)
/// for the append-only rule: the brief never changes, the addenda only grow
/// (the old section is a prefix of the new), the front matter changes only
/// in `status` and `pins`.
///
/// The bodies are compared whenever both versions have front matter to split
/// off, even when a record does not parse: a commit that repairs broken
/// front matter must not rewrite the brief unseen. Only the record
/// comparison needs both records.
pub fn compare(file: &std::path::Path, old: &str, new: &str) -> Vec<Fault> {
    // An earlier version with no front matter to split off constrains nothing
    // it can prove.
    let Ok(old_split) = format::split(old) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let new_split = match crate::task::split_file(file, new) {
        Ok(s) => s,
        Err(e) => {
            out.push(fault("schema_invalid", None, e.to_string()));
            return out;
        }
    };
    let new_record = crate::task::parse_record(file, new, &new_split);
    if let Err(e) = &new_record {
        out.push(fault("schema_invalid", None, e.to_string()));
    }
    let old_body = old_split.parse_body();
    let new_body = new_split.parse_body();
    let old_brief = old_body.brief.as_ref().map(|b| &b.text);
    let new_brief = new_body.brief.as_ref().map(|b| &b.text);
    if old_brief.is_some() && old_brief != new_brief {
        out.push(fault(
            "brief_rewritten",
            new_body.brief.as_ref().map(|b| b.line),
            "the brief changed: it is the operator's words, kept verbatim and never edited",
        ));
    }
    let old_addenda = old_body.addenda.as_ref().map_or("", |a| a.text.as_str());
    let new_addenda = new_body.addenda.as_ref().map_or("", |a| a.text.as_str());
    if !new_addenda.starts_with(old_addenda) {
        out.push(fault(
            "addenda_rewritten",
            new_body.addenda.as_ref().map(|a| a.line),
            "the addenda were edited or shortened: the log only grows",
        ));
    }
    // The scope additions are the record's too: removing or rewriting one
    // narrows or moves the scope without a command.
    let (old_added, new_added) = (scope_additions(old_addenda), scope_additions(new_addenda));
    if !new_added.starts_with(&old_added) {
        out.push(fault(
            "record_rewritten",
            new_body.addenda.as_ref().map(|a| a.line),
            "a scope addition was removed or rewritten: additions only grow (`gate task scope add`)",
        ));
    }
    if let (Ok(old_record), Ok(new_record)) =
        (crate::task::parse_record(file, old, &old_split), new_record)
    {
        let mut normalised = old_record;
        normalised.status = new_record.status;
        normalised.pins = new_record.pins.clone();
        if normalised != new_record {
            out.push(fault(
                "record_rewritten",
                Some(1),
                "the task record changed beyond `status` and `pins`",
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::{self, TaskRecord};
    use std::path::Path;

    fn record() -> TaskRecord {
        task::sample_record()
    }

    fn file(addenda: &str) -> String {
        let body = format::render_new_body("Do the thing.\n");
        let body = body.replace("## Addenda\n\n", &format!("## Addenda\n\n{addenda}"));
        task::render(&record(), &body)
    }

    /// A task file's text validated as the commands do: parsed once, a
    /// file that does not parse being one `schema_invalid` fault.
    fn validate(file: &Path, text: &str) -> Vec<Fault> {
        match task::parse(file, text.to_string()) {
            Ok(t) => super::validate(&t),
            Err(e) => vec![schema_invalid(&e)],
        }
    }

    fn causes(text: &str) -> Vec<&'static str> {
        validate(Path::new("t.md"), text)
            .iter()
            .map(|f| f.cause)
            .collect()
    }

    /// A `qa` entry of round `round`: the agent's decision with `conflict`,
    /// or the operator's answer resolving round `resolves`.
    fn round(round: usize, decided_by: Decider, conflict: &str, resolves: Option<usize>) -> String {
        render_qa(&Qa {
            time: "2026-11-30T10:00:00Z",
            author: "Ada",
            stage: "design",
            question: "Excel or CSV?",
            answer: "CSV.",
            decided_by,
            summary: "CSV instead of Excel",
            conflict,
            rationale: Some("CSV is what every spreadsheet program and the billing importer read."),
            round,
            resolves,
        })
    }

    fn open_rounds(addenda: &str) -> Vec<usize> {
        let qa = qa_entries(addenda, 0);
        open_conflicts(&qa).iter().map(|q| q.round).collect()
    }

    /// Source B: "any unresolved contradiction with an existing wish blocks
    /// the final verdict" — until the operator's answer closes it.
    #[test]
    fn an_agents_conflicting_decision_stays_open_until_the_operator_resolves_it() {
        let agent = round(1, Decider::Agent, "the brief asks for Excel", None);
        assert_eq!(open_rounds(&agent), [1]);
        // `none`, in any case, is no conflict; the operator's own is theirs.
        assert!(open_rounds(&round(1, Decider::Agent, "None", None)).is_empty());
        assert!(open_rounds(&round(1, Decider::Operator, "the brief", None)).is_empty());
        // A later decision of the agent's, or an operator's answer that
        // resolves nothing, leaves it open.
        let more = format!("{agent}{}", round(2, Decider::Agent, "none", None));
        assert_eq!(open_rounds(&more), [1]);
        let unrelated = format!("{agent}{}", round(2, Decider::Operator, "none", None));
        assert_eq!(open_rounds(&unrelated), [1]);
        let closed = format!("{agent}{}", round(2, Decider::Operator, "none", Some(1)));
        assert!(open_rounds(&closed).is_empty());
        assert!(
            causes(&file(&closed)).is_empty(),
            "{:?}",
            causes(&file(&closed))
        );
    }

    /// Source B's Q&A entries carry their round; gate's count the `qa`
    /// entries from 1, and an entry of an older gate (no `round`) takes
    /// its place.
    #[test]
    fn rounds_count_the_qa_entries_and_a_resolution_names_an_open_conflict() {
        let one = round(1, Decider::Agent, "the brief", None);
        let old = one.replace("- round: 1\n", "");
        assert_ne!(old, one);
        assert_eq!(qa_entries(&old, 0)[0].round, 1);
        assert_eq!(next_round(&old), 2);
        assert!(causes(&file(&old)).is_empty());
        let wrong = round(3, Decider::Agent, "the brief", None);
        assert_eq!(causes(&file(&wrong)), ["qa_incomplete"]);
        // A resolution the agent wrote, or of a round that is no
        // conflict, or of no earlier round, is malformed.
        for resolution in [
            round(2, Decider::Agent, "none", Some(1)),
            round(2, Decider::Operator, "none", Some(2)),
            round(2, Decider::Operator, "none", Some(7)),
        ] {
            let text = file(&format!("{one}{resolution}"));
            assert_eq!(causes(&text), ["qa_incomplete"], "{resolution}");
        }
        let no_conflict = round(1, Decider::Agent, "none", None);
        let text = file(&format!(
            "{no_conflict}{}",
            round(2, Decider::Operator, "none", Some(1))
        ));
        assert_eq!(causes(&text), ["qa_incomplete"]);
    }

    fn qa(decided_by: Decider, rationale: Option<&str>) -> String {
        render_qa(&Qa {
            time: "2026-11-30T10:00:00Z",
            author: "Ada",
            stage: "design",
            question: "Which encoding?\n",
            answer: "UTF-8.",
            decided_by,
            summary: "CSV is UTF-8",
            conflict: "none",
            rationale,
            round: 1,
            resolves: None,
        })
    }

    #[test]
    fn a_fresh_task_and_good_entries_validate() {
        assert!(causes(&file("")).is_empty());
        let entries = format!(
            "{}{}{}",
            render_amendment("2026-11-30T09:00:00Z", "Ada", "Also TSV.\n"),
            qa(Decider::Operator, None),
            qa(Decider::Agent, Some(&"because ".repeat(10))).replace("- round: 1", "- round: 2")
        );
        assert_eq!(causes(&file(&entries)), Vec::<&str>::new());
    }

    #[test]
    fn every_entry_fault_has_its_cause() {
        assert_eq!(
            causes(&file(&qa(Decider::Agent, Some("too short")))),
            vec!["qa_rationale_too_short"]
        );
        assert_eq!(
            causes(&file(&qa(Decider::Agent, None))),
            vec!["qa_rationale_too_short"]
        );
        let no_summary = qa(Decider::Operator, None).replace("- summary: CSV is UTF-8\n", "");
        assert_eq!(causes(&file(&no_summary)), vec!["qa_incomplete"]);
        let bad_decider =
            qa(Decider::Operator, None).replace("decided_by: operator", "decided_by: robot");
        assert_eq!(causes(&file(&bad_decider)), vec!["qa_incomplete"]);
        let no_answer = qa(Decider::Operator, None).replace("Answer:", "Reply:");
        assert_eq!(causes(&file(&no_answer)), vec!["qa_incomplete"]);
        let bad_time = render_amendment("yesterday", "Ada", "x");
        assert_eq!(causes(&file(&bad_time)), vec!["addendum_malformed"]);
        let bad_kind =
            render_amendment("2026-11-30T09:00:00Z", "Ada", "x").replace("amendment", "rumour");
        assert_eq!(causes(&file(&bad_kind)), vec!["addendum_malformed"]);
        let out_of_order = format!(
            "{}{}",
            render_amendment("2026-11-30T09:00:00Z", "Ada", "later"),
            render_amendment("2026-11-29T09:00:00Z", "Ada", "earlier")
        );
        assert_eq!(causes(&file(&out_of_order)), vec!["addendum_malformed"]);
        let empty_brief = file("").replace("Do the thing.\n", "  \n");
        assert_eq!(causes(&empty_brief), vec!["statement_empty"]);
        let no_brief =
            file("").replace("## Brief (verbatim)\n\n```text\nDo the thing.\n```\n\n", "");
        assert!(
            causes(&no_brief).contains(&"brief_missing"),
            "{:?}",
            causes(&no_brief)
        );
        let schema = file("").replace("status: active\n", "status: active\nphase: x\n");
        assert_eq!(causes(&schema), vec!["schema_invalid"]);
    }

    #[test]
    fn entries_round_trip_their_verbatim_texts() {
        let q = "Line one\n## Addenda\n### 2026-01-01T00:00:00Z · qa · x\n```\ntrailing   \r\n";
        let text = file(&render_qa(&Qa {
            time: "2026-11-30T10:00:00Z",
            author: "A",
            stage: "s",
            question: q,
            answer: "no newline",
            decided_by: Decider::Operator,
            summary: "sum",
            conflict: "none",
            rationale: None,
            round: 1,
            resolves: None,
        }));
        assert!(
            causes(&text).is_empty(),
            "{:?}",
            validate(Path::new("t.md"), &text)
        );
        let task = task::parse(Path::new("t.md"), text).unwrap();
        let section = task.body.addenda.unwrap();
        let (_, es) = entries(&section.text, section.line);
        assert_eq!(es.len(), 1);
        let blocks = format::verbatim_blocks(es[0].body, es[0].line);
        assert_eq!(blocks[0].0.text, q);
        assert_eq!(blocks[1].0.text, "no newline");
    }

    #[test]
    fn the_window_has_its_edges() {
        let d = |s: &str| Date::parse(s).unwrap();
        let created = d("2026-10-01");
        assert_eq!(weight(created, None, d("2026-10-30")), Weight::Info); // 29 days
        assert_eq!(weight(created, None, d("2026-10-31")), Weight::Warn); // 30 days
        assert_eq!(weight(created, None, d("2026-11-01")), Weight::Warn); // 31 days
        assert_eq!(
            weight(created, Some(d("2026-10-01")), d("2026-10-02")),
            Weight::Blocker
        );
        assert_eq!(
            weight(created, Some(d("2026-10-02")), d("2026-12-30")),
            Weight::Warn
        );
    }

    #[test]
    fn append_only_compare() {
        let base = file("");
        let grown = file(&render_amendment("2026-11-30T09:00:00Z", "Ada", "more"));
        let p = Path::new("t.md");
        assert!(compare(p, &base, &grown).is_empty());
        assert_eq!(
            compare(p, &grown, &base)
                .iter()
                .map(|f| f.cause)
                .collect::<Vec<_>>(),
            vec!["addenda_rewritten"]
        );
        let edited = grown.replace("Do the thing.", "Do another thing.");
        assert_eq!(
            compare(p, &grown, &edited)
                .iter()
                .map(|f| f.cause)
                .collect::<Vec<_>>(),
            vec!["brief_rewritten"]
        );
        let finished = grown.replace("status: active", "status: completed");
        assert!(compare(p, &grown, &finished).is_empty());
        let rescoped = grown.replace("scope: [\"src/**\"]", "scope: [\"**\"]");
        assert_eq!(
            compare(p, &grown, &rescoped)
                .iter()
                .map(|f| f.cause)
                .collect::<Vec<_>>(),
            vec!["record_rewritten"]
        );
        let with_note = format!("{grown}### 2026-11-30T11:00:00Z · note · Ada\n\nchanged course\n");
        assert!(compare(p, &grown, &with_note).is_empty());
    }

    #[test]
    fn an_earlier_version_whose_record_does_not_parse_still_binds_the_body() {
        let p = Path::new("t.md");
        let cs = |old: &str, new: &str| {
            let mut c: Vec<_> = compare(p, old, new).iter().map(|f| f.cause).collect();
            c.sort();
            c
        };
        let grown = file(&render_amendment("2026-11-30T09:00:00Z", "Ada", "more"));
        let broken = grown.replace("status: active\n", "status: active\nphase: x\n");
        // Repairing the record while rewriting the brief and cutting the log.
        let repaired = file("").replace("Do the thing.", "Do another thing.");
        assert_eq!(
            cs(&broken, &repaired),
            vec!["addenda_rewritten", "brief_rewritten"]
        );
        // Repairing it alone is fine; the record is not compared.
        assert!(cs(&broken, &grown).is_empty());
        // A new version that breaks the record is still held to the body.
        let both = repaired.replace("status: active\n", "status: active\nphase: x\n");
        assert_eq!(
            cs(&grown, &both),
            vec!["addenda_rewritten", "brief_rewritten", "schema_invalid"]
        );
        // No front matter to split off in the earlier version: nothing to prove.
        assert!(cs("no front matter\n", &repaired).is_empty());
    }
}
