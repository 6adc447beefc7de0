//! The log a task file keeps in its addenda and implementation notes
//! (docs/tasks.md): each entry a `### TIME · KIND · AUTHOR` heading and its
//! body — amendments, `qa` decisions, `scope` additions, notes — rendered
//! here when a verb appends one, and read back into entries, `qa` rounds and
//! scope additions. What the brief check requires of them (the append-only
//! rule, the rounds, the rationale) is `crate::brief`'s; this is the file's
//! format, which the task model reads itself (`Task::scope_added`).

use super::format;

/// The separator of an entry heading's three parts.
pub const SEP: &str = " · ";

/// Who decided a recorded question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decider {
    Operator,
    Agent,
}

impl Decider {
    pub fn as_str(self) -> &'static str {
        match self {
            Decider::Operator => "operator",
            Decider::Agent => "agent",
        }
    }
}

/// The heading line of an entry.
pub fn heading(time: &str, kind: &str, author: &str) -> String {
    format!("### {time}{SEP}{kind}{SEP}{author}\n")
}

/// An `amendment` entry: the operator's clarification, verbatim.
pub fn render_amendment(time: &str, author: &str, text: &str) -> String {
    format!(
        "{}\n{}\n",
        heading(time, "amendment", author),
        format::render_verbatim(text, "text")
    )
}

/// A recorded decision.
pub struct Qa<'a> {
    pub time: &'a str,
    pub author: &'a str,
    pub stage: &'a str,
    pub question: &'a str,
    pub answer: &'a str,
    pub decided_by: Decider,
    pub summary: &'a str,
    pub conflict: &'a str,
    pub rationale: Option<&'a str>,
    /// Its place among the task's `qa` entries, from 1 ([`next_round`]).
    pub round: usize,
    /// The round of an agent's conflicting decision this operator's answer
    /// closes ([`crate::brief::open_conflicts`]).
    pub resolves: Option<usize>,
}

/// A `qa` entry.
pub fn render_qa(q: &Qa) -> String {
    let mut s = heading(q.time, "qa", q.author);
    s.push_str(&format!(
        "\n- round: {}\n- stage: {}\n- decided_by: {}\n- summary: {}\n- conflict: {}\n",
        q.round,
        q.stage,
        q.decided_by.as_str(),
        q.summary,
        q.conflict
    ));
    if let Some(round) = q.resolves {
        s.push_str(&format!("- resolves: {round}\n"));
    }
    s.push_str(&format!(
        "\nQuestion:\n\n{}",
        format::render_verbatim(q.question, "text")
    ));
    s.push_str(&format!(
        "\nAnswer:\n\n{}",
        format::render_verbatim(q.answer, "text")
    ));
    if let Some(r) = q.rationale {
        s.push_str(&format!(
            "\nRationale:\n\n{}",
            format::render_verbatim(r, "text")
        ));
    }
    s.push('\n');
    s
}

/// An implementation-notes entry (`note`, `finished`, `abandoned`): free
/// Markdown, kept as written.
pub fn render_note(time: &str, kind: &str, author: &str, text: &str) -> String {
    let mut s = format!("{}\n{text}", heading(time, kind, author));
    if !text.ends_with('\n') {
        s.push('\n');
    }
    s.push('\n');
    s
}

/// A `scope` entry: a glob added to the task's scope, by whom, when, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeAddition {
    pub time: String,
    pub author: String,
    pub glob: String,
    pub because: String,
}

/// A `scope` entry widening the task's scope by `glob`.
pub fn render_scope(time: &str, author: &str, glob: &str, because: &str) -> String {
    let q = |v: &str| serde_json::to_string(v).expect("a string serialises");
    format!(
        "{}\n- add: {}\n- because: {}\n\n",
        heading(time, "scope", author),
        q(glob),
        q(because)
    )
}

/// The `scope` entries of an addenda section, in order; one that does not
/// read (the validator names it) adds nothing.
pub fn scope_additions(section: &str) -> Vec<ScopeAddition> {
    let (_, entries) = entries(section, 0);
    entries
        .iter()
        .filter_map(|e| {
            let parts: Vec<&str> = e
                .heading
                .trim_start_matches("### ")
                .splitn(3, SEP)
                .collect();
            let [time, "scope", author] = parts.as_slice() else {
                return None;
            };
            let (glob, because) = scope_fields(e).ok()?;
            Some(ScopeAddition {
                time: time.to_string(),
                author: author.to_string(),
                glob,
                because,
            })
        })
        .collect()
}

/// A `scope` entry's glob and reason, or what is wrong with them.
pub fn scope_fields(e: &Entry) -> Result<(String, String), String> {
    let field = |name: &str| -> Result<String, String> {
        let prefix = format!("- {name}: ");
        let raw = e
            .body
            .lines()
            .find_map(|l| l.strip_prefix(prefix.as_str()))
            .ok_or_else(|| format!("the scope entry has no `{name}`"))?;
        serde_json::from_str::<String>(raw.trim_end_matches('\r'))
            .map_err(|_| format!("the scope entry's `{name}` is not a quoted string"))
    };
    let glob = field("add")?;
    crate::scope::compile_glob(&glob).map_err(|m| format!("the scope entry's glob: {m}"))?;
    let because = field("because")?;
    one_line("because", &because)?;
    Ok((glob, because))
}

/// Why a one-line field cannot be recorded as given.
pub fn one_line(name: &str, value: &str) -> Result<(), String> {
    if value.trim().is_empty() {
        return Err(format!("{name} must not be blank"));
    }
    if value.contains(['\n', '\r']) {
        return Err(format!("{name} must be one line"));
    }
    Ok(())
}

/// One entry of the addenda, split at its heading.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    pub line: usize,
    pub heading: &'a str,
    pub body: &'a str,
}

/// The entries of a section: each `### ` heading outside fenced blocks
/// starts one. Text before the first heading is returned as `preamble`.
pub fn entries(section: &str, heading_line: usize) -> (&str, Vec<Entry<'_>>) {
    let mut starts: Vec<(usize, usize, usize)> = Vec::new(); // (byte start, byte end of heading line, line number)
    let mut fence: Option<usize> = None;
    let mut offset = 0;
    for (n, raw) in section.split_inclusive('\n').enumerate() {
        let content = raw.trim_end_matches('\n').trim_end_matches('\r');
        match fence {
            Some(len) => {
                let t = content.trim_end_matches([' ', '\t']);
                if t.len() >= len && t.bytes().all(|b| b == b'`') {
                    fence = None;
                }
            }
            None => {
                let ticks = content.bytes().take_while(|&b| b == b'`').count();
                if ticks >= 3 && !content[ticks..].contains('`') {
                    fence = Some(ticks);
                } else if content.starts_with("### ") {
                    starts.push((offset, offset + raw.len(), heading_line + n + 1));
                }
            }
        }
        offset += raw.len();
    }
    let preamble = &section[..starts.first().map_or(section.len(), |s| s.0)];
    let entries = starts
        .iter()
        .enumerate()
        .map(|(i, &(start, head_end, line))| {
            let end = starts.get(i + 1).map_or(section.len(), |s| s.0);
            Entry {
                line,
                heading: section[start..head_end]
                    .trim_end_matches('\n')
                    .trim_end_matches('\r'),
                body: &section[head_end..end],
            }
        })
        .collect();
    (preamble, entries)
}

/// A `qa` entry as the rounds and the conflict rule read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QaEntry {
    /// The heading's line in the file.
    pub line: usize,
    /// Its place among the `qa` entries, from 1: its round.
    pub round: usize,
    /// The round it says it is (`- round: N`), as written; entries of
    /// older gates say none.
    pub says_round: Option<String>,
    pub decided_by: String,
    pub stage: String,
    pub summary: String,
    pub conflict: String,
    /// `- resolves: N`, as written.
    pub resolves: Option<String>,
}

impl QaEntry {
    /// Whether it records a conflict with the operator's words: its
    /// `conflict` is not `none` (nor blank, which the validator names).
    pub fn conflicts(&self) -> bool {
        let c = self.conflict.trim();
        !c.is_empty() && !c.eq_ignore_ascii_case("none")
    }

    /// The round it resolves, when it names one that reads as a number.
    pub fn resolves_round(&self) -> Option<usize> {
        let r = self.resolves.as_deref()?.trim();
        r.strip_prefix("round ").unwrap_or(r).trim().parse().ok()
    }
}

/// The `qa` entries of an addenda section (its heading at `heading_line`),
/// in order, numbered by round.
pub fn qa_entries(section: &str, heading_line: usize) -> Vec<QaEntry> {
    let (_, entries) = entries(section, heading_line);
    let mut out = Vec::new();
    for e in &entries {
        let mut parts = e.heading.trim_start_matches("### ").splitn(3, SEP);
        if parts.nth(1) != Some("qa") {
            continue;
        }
        // The fields: the list before the first block's label.
        let fields = e.body.split("\nQuestion:\n").next().unwrap_or_default();
        let field = |name: &str| -> Option<String> {
            let prefix = format!("- {name}: ");
            fields
                .lines()
                .find_map(|l| l.strip_prefix(prefix.as_str()))
                .map(|v| v.trim_end_matches('\r').to_string())
        };
        out.push(QaEntry {
            line: e.line,
            round: out.len() + 1,
            says_round: field("round"),
            decided_by: field("decided_by").unwrap_or_default().trim().to_string(),
            stage: field("stage").unwrap_or_default(),
            summary: field("summary").unwrap_or_default(),
            conflict: field("conflict").unwrap_or_default(),
            resolves: field("resolves"),
        });
    }
    out
}

/// The round the next `qa` entry of this addenda section takes.
pub fn next_round(section: &str) -> usize {
    qa_entries(section, 0).len() + 1
}
