//! The Markdown rendering of a `gate.report/1` (docs/ci.md#report-formats):
//! the result, a table of checks, the findings by cause, the commits with
//! findings, then the findings listed. `--format markdown` prints it; the
//! GitHub rendering appends it to `$GITHUB_STEP_SUMMARY`. Built from the
//! JSON document's wire values, so it says what the JSON says.
//!
//! Every text a file or commit put there is escaped: one line, no table
//! cell break, no Markdown emphasis, link or HTML.

use std::fmt::Write as _;

use super::limit::{COMMITS_NAMED, Counts};
use super::wire::report::{FindingWire, ReportWire};
use crate::text::FileText;

/// The summary of `doc` (its findings possibly capped), with `counts` of
/// all its findings.
pub fn render(doc: &ReportWire, counts: &Counts) -> String {
    let mut s = String::new();
    let result = match (doc.exit_code, doc.outcome) {
        (0, "pass") => "pass".to_string(),
        (0, outcome) => format!("{outcome}, nothing blocks (advisory)"),
        (1, _) => "refused: a required check refused".to_string(),
        _ => "unknown: a required check could not decide".to_string(),
    };
    let _ = writeln!(
        s,
        "## gate {}: {result} (exit {})\n",
        text(doc.verb),
        doc.exit_code
    );
    let policy = match &doc.policy.file {
        Some(file) => format!("{} (from {})", text(file), text(&doc.policy.revision)),
        None => format!("embedded default (from {})", text(&doc.policy.revision)),
    };
    let _ = writeln!(s, "Policy: {policy}  ");
    if let Some(task) = &doc.task {
        let mut named = vec![format!("Task: {}", text(task.id))];
        if let Some(issue) = task.issue {
            named.push(format!("issue {}", text(issue)));
        }
        if let Some(intent) = task.intent {
            named.push(format!("intent {}", text(intent)));
        }
        if let Some(exemption) = task.exemption {
            named.push(format!("exempt: {}", text(exemption)));
        }
        let _ = writeln!(s, "{}  ", named.join(" · "));
    }
    for note in doc.notes {
        let _ = writeln!(s, "Note: {}  ", text(note));
    }
    s.push_str(
        "\n| Check | Mode | Outcome | Findings | Summary |\n| --- | --- | --- | --- | --- |\n",
    );
    for c in &doc.checks {
        let outcome = match (c.outcome, c.blocks) {
            ("pass", _) => "pass".to_string(),
            (o, true) => format!("**{o}** (blocks)"),
            (o, false) => format!("{o} (reported only)"),
        };
        let n = counts
            .by_cause
            .iter()
            .filter(|(check, _, _)| *check == c.check)
            .map(|(_, _, n)| n)
            .sum::<usize>();
        let _ = writeln!(
            s,
            "| {} | {} | {outcome} | {n} | {} |",
            c.check,
            c.mode,
            text(c.summary)
        );
    }
    for k in &doc.skipped {
        let _ = writeln!(s, "| {} | | skipped | | {} |", k.check, text(k.reason));
    }
    if counts.total > 0 {
        s.push_str("\n### Findings by cause\n\n| Check | Cause | Count |\n| --- | --- | --- |\n");
        for (check, cause, n) in &counts.by_cause {
            let _ = writeln!(s, "| {check} | `{cause}` | {n} |");
        }
    }
    if !counts.by_commit.is_empty() {
        let _ = writeln!(
            s,
            "\n### Commits with findings ({})\n\n| Commit | Findings | Causes |\n| --- | --- | --- |",
            counts.by_commit.len()
        );
        for (commit, n, causes) in counts.by_commit.iter().take(COMMITS_NAMED) {
            let short = &commit[..commit.len().min(12)];
            let causes: Vec<String> = causes.iter().map(|c| format!("`{c}`")).collect();
            let _ = writeln!(s, "| `{}` | {n} | {} |", text(short), causes.join(", "));
        }
        if counts.by_commit.len() > COMMITS_NAMED {
            let _ = writeln!(
                s,
                "\n… and {} more commits.",
                counts.by_commit.len() - COMMITS_NAMED
            );
        }
    }
    if counts.total > 0 {
        if counts.capped() {
            let _ = writeln!(
                s,
                "\n### Findings (the first {} of {}: --max-findings)\n",
                counts.shown, counts.total
            );
        } else {
            let _ = writeln!(s, "\n### Findings ({})\n", counts.total);
        }
        for f in doc.checks.iter().flat_map(|c| c.findings.iter()) {
            s.push_str(&finding(&f));
        }
    }
    s
}

/// One finding as a list item: its cause and subject, the message, and
/// what would decide it.
fn finding(f: &FindingWire) -> String {
    let severity = if f.unknown { "unknown" } else { f.severity };
    let mut subject = Vec::new();
    if let Some(path) = &f.path {
        let change = f.change.map(|c| format!(" ({c})")).unwrap_or_default();
        subject.push(format!("{}{change}", text(path)));
    }
    if let Some(file) = f.file {
        let line = f.line.map(|l| format!(":{l}")).unwrap_or_default();
        subject.push(format!("{}{line}", text(file)));
    }
    if let Some(commit) = f.commit {
        subject.push(format!(
            "commit `{}`",
            text(&commit[..commit.len().min(12)])
        ));
    }
    if let Some(task) = f.task {
        subject.push(format!("task {}", text(task)));
    }
    let subject = if subject.is_empty() {
        String::new()
    } else {
        format!(" · {}", subject.join(" · "))
    };
    let mut s = format!(
        "- {severity} `{}` ({}){subject}: {}\n",
        f.cause,
        f.check,
        text(f.message)
    );
    if !f.decide.is_empty() {
        let _ = writeln!(s, "  decide: {}", text(f.decide));
    }
    s
}

/// Text from a file or a commit, safe in a table cell or a list item: one
/// line, and nothing Markdown or HTML would act on.
pub fn text(raw: &str) -> String {
    let line = FileText::new(raw).to_string();
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_cannot_break_a_table_or_inject_markup() {
        assert_eq!(
            text("a|b <img src=x> *em* [l](u)\nnext"),
            // the newline is written out (`\n`), and its backslash escaped
            "a\\|b &lt;img src=x&gt; \\*em\\* \\[l\\](u)\\\\nnext"
        );
    }
}
