//! The GitHub Actions rendering of a `gate.report/1`
//! (docs/ci.md#report-formats): one workflow-command annotation per
//! finding, on the path it is about, then the counts `--max-findings` left
//! and the result. Built from the JSON document's wire values. The job
//! summary is the Markdown rendering ([`super::markdown`]).
//!
//! GitHub reads a line that starts with `::` as a command, so every line
//! printed here starts with one gate wrote: an annotation whose properties
//! and message are escaped as GitHub's toolkit escapes them (`%`, CR and LF
//! in the message; also `:` and `,` in a property), or `gate: …`.

use std::fmt::Write as _;

use super::limit::Counts;
use super::text::shown_line;
use super::wire::report::{CheckWire, FindingWire, ReportWire};

/// The annotations for `doc` (its findings possibly capped), the counts of
/// all of them when capped, and the result line.
pub fn render(doc: &ReportWire, counts: &Counts) -> String {
    let mut s = String::new();
    for c in &doc.checks {
        for f in &c.findings {
            s.push_str(&annotation(c, f));
        }
    }
    for note in doc.notes {
        let _ = writeln!(s, "gate: note: {}", shown_line(note));
    }
    if counts.capped() {
        let _ = writeln!(
            s,
            "gate: {} of {} findings annotated (--max-findings); the job summary counts them all",
            counts.shown, counts.total
        );
        for (check, cause, n) in &counts.by_cause {
            let _ = writeln!(s, "gate:   {n:>7}  {check}: {cause}");
        }
    }
    let _ = writeln!(
        s,
        "gate: {} {} (exit {})",
        shown_line(doc.verb),
        doc.outcome,
        doc.exit_code
    );
    s
}

/// `::error file=…,line=…,title=…::message`: an error when the check
/// blocks, a warning when it is reported only or the finding is a warning,
/// a notice for information.
fn annotation(c: &CheckWire, f: &FindingWire) -> String {
    let level = match f.severity {
        "blocker" if c.blocks => "error",
        "blocker" | "warn" => "warning",
        _ => "notice",
    };
    let mut props = Vec::new();
    // A finding about a path of the change is annotated on it; one about an
    // unreadable file, on that file and line.
    if let Some(path) = f.path.as_deref().or(f.file) {
        props.push(format!("file={}", property(path)));
        if f.path.is_none()
            && let Some(line) = f.line
        {
            props.push(format!("line={line}"));
        }
    }
    let unknown = if f.unknown { " (unknown)" } else { "" };
    props.push(format!(
        "title={}",
        property(&format!("gate {}: {}{unknown}", f.check, f.cause))
    ));
    let mut message = f.message.to_string();
    if let Some(commit) = f.commit {
        let _ = write!(message, "\ncommit {commit}");
    }
    if let Some(task) = f.task {
        let _ = write!(message, "\ntask {task}");
    }
    if !f.decide.is_empty() {
        let _ = write!(message, "\ndecide: {}", f.decide);
    }
    format!("::{level} {}::{}\n", props.join(","), data(&message))
}

/// A command's message: `%`, CR and LF escaped.
pub fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A command's property value: as [`data`], and `:` and `,` too.
pub fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_githubs_toolkit_does() {
        assert_eq!(data("100%\r\nnext: a,b"), "100%25%0D%0Anext: a,b");
        assert_eq!(property("a%b:c,d\ne"), "a%25b%3Ac%2Cd%0Ae");
    }
}
