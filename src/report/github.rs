//! The GitHub Actions rendering of a `gate.report/1`
//! (docs/ci.md#report-formats): one workflow-command annotation per
//! finding, on the path it is about — at most [`ANNOTATIONS`] of each
//! level, as many as GitHub shows in a step, the rest counted — then the
//! counts `--max-findings` left and the result. Built from the JSON
//! document's wire values. The job summary is the Markdown rendering
//! ([`super::markdown`]).
//!
//! GitHub reads a line that starts with `::` as a command, so every line
//! printed here starts with one gate wrote: an annotation whose properties
//! and message are escaped as GitHub's toolkit escapes them (`%`, CR and LF
//! in the message; also `:` and `,` in a property), or `gate: …`.
//!
//! The log a job shows is a terminal too: every text from the repository
//! (a message, a task id from a trailer, a `--because`, a note) has its
//! control characters written out as the human report writes them
//! ([`shown_line`]), and a path that is not plain (not UTF-8, or holding a
//! control character) is written git-quoted from its exact bytes, as the
//! human report writes paths. Nothing the repository holds reaches the log
//! raw.

use std::fmt::Write as _;

use super::limit::Counts;
use super::sarif::unhex;
use super::wire::report::{CheckWire, FindingWire, ReportWire};
use crate::text::FileText;

/// The annotations for `doc` (its findings possibly capped), the counts of
/// all of them when capped, and the result line.
pub fn render(doc: &ReportWire, counts: &Counts) -> String {
    let mut s = String::new();
    // GitHub shows ANNOTATIONS of each level in a step and drops the rest
    // unseen: past them a finding is counted here and listed in the job
    // summary instead.
    let mut annotated = [0usize; 3];
    let mut left = [0usize; 3];
    for c in &doc.checks {
        for f in c.findings.iter() {
            let at = level(c, &f) as usize;
            if annotated[at] < ANNOTATIONS {
                annotated[at] += 1;
                s.push_str(&annotation(c, &f));
            } else {
                left[at] += 1;
            }
        }
    }
    for note in doc.notes {
        let _ = writeln!(s, "gate: note: {}", FileText::new(note));
    }
    if left.iter().any(|&n| n > 0) {
        let said: Vec<String> = [Level::Error, Level::Warning, Level::Notice]
            .iter()
            .filter(|l| left[**l as usize] > 0)
            .map(|l| format!("{} {}", left[*l as usize], l.plural()))
            .collect();
        let _ = writeln!(
            s,
            "gate: {} more not annotated (GitHub shows {ANNOTATIONS} annotations of each level in a step): {}; the job summary lists them",
            left.iter().sum::<usize>(),
            said.join(", ")
        );
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
        FileText::new(doc.verb),
        doc.outcome,
        doc.exit_code
    );
    s
}

/// How many annotations of one level GitHub shows for a step (its
/// documented limit: 10 errors and 10 warnings a step; notices alike).
pub const ANNOTATIONS: usize = 10;

/// An annotation's level.
#[derive(Clone, Copy)]
enum Level {
    Error = 0,
    Warning = 1,
    Notice = 2,
}

impl Level {
    fn command(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Notice => "notice",
        }
    }

    fn plural(self) -> &'static str {
        match self {
            Level::Error => "errors",
            Level::Warning => "warnings",
            Level::Notice => "notices",
        }
    }
}

/// An error when the check blocks, a warning when it is reported only or
/// the finding is a warning, a notice for information.
fn level(c: &CheckWire, f: &FindingWire) -> Level {
    match f.severity {
        "blocker" if c.blocks => Level::Error,
        "blocker" | "warn" => Level::Warning,
        _ => Level::Notice,
    }
}

/// `::error file=…,line=…,title=…::message`, at the finding's [`level`].
fn annotation(c: &CheckWire, f: &FindingWire) -> String {
    let level = level(c, f).command();
    let mut props = Vec::new();
    // A finding about a path of the change is annotated on it; one about an
    // unreadable file, on that file and line.
    let path = match (&f.path, &f.path_hex) {
        (_, Some(hex)) => Some(place(&unhex(hex))),
        (Some(path), None) => Some(place(path.as_bytes())),
        (None, None) => f.file.map(|file| place(file.as_bytes())),
    };
    if let Some(path) = path {
        props.push(format!("file={}", property(&path)));
        if f.path.is_none()
            && let Some(line) = f.line
        {
            props.push(format!("line={line}"));
        }
    }
    let unknown = if f.unknown { " (unknown)" } else { "" };
    props.push(format!(
        "title={}",
        property(&FileText::new(format!("gate {}: {}{unknown}", f.check, f.cause)).to_string())
    ));
    // Each part is one line, shown as the human report shows it; the
    // newlines between them are gate's, escaped for GitHub below.
    let mut message = FileText::new(f.message).to_string();
    if let Some(commit) = f.commit {
        let _ = write!(message, "\ncommit {}", FileText::new(commit));
    }
    if let Some(task) = f.task {
        let _ = write!(message, "\ntask {}", FileText::new(task));
    }
    if !f.decide.is_empty() {
        let _ = write!(message, "\ndecide: {}", FileText::new(f.decide));
    }
    format!("::{level} {}::{}\n", props.join(","), data(&message))
}

/// A path for `file=`: as it is when plain (UTF-8, nothing a terminal acts
/// on), so GitHub can place the annotation on it; otherwise git-quoted from
/// its exact bytes, as the human report shows it (no file GitHub knows, but
/// nothing raw in the log).
fn place(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) if FileText::new(text).is_plain() => text.to_string(),
        _ => FileText::new(crate::path::quote_bytes(bytes)).to_string(),
    }
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

    fn finding<'a>(message: &'a str, decide: &'a str) -> FindingWire<'a> {
        FindingWire {
            check: "provenance",
            cause: "unknown_task",
            severity: "blocker",
            unknown: false,
            message,
            decide,
            commit: None,
            path: None,
            path_hex: None,
            change: None,
            task: None,
            check_id: None,
            ref_name: None,
            file: None,
            line: None,
            key: None,
        }
    }

    fn check(findings: &[crate::verdict::Finding]) -> CheckWire<'_> {
        CheckWire {
            check: "provenance",
            mode: "required",
            outcome: "refused",
            blocks: true,
            summary: "1 commit",
            findings: crate::report::wire::report::FindingsWire(findings),
        }
    }

    /// What a log would act on: any control character but the newline
    /// that ends each line, and the bidirectional overrides.
    fn raw(text: &str) -> Vec<char> {
        text.chars()
            .filter(|&c| {
                (c.is_control() && c != '\n')
                    || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
            })
            .collect()
    }

    const HOSTILE: &str =
        "\u{1b}[2K\r\u{1b}[32mresult: pass\u{1b}[0m\u{7}\u{9b}2J\u{202e}\u{8}\u{7f}";

    #[test]
    fn text_from_the_repository_has_its_control_characters_written_out() {
        let mut f = finding(HOSTILE, HOSTILE);
        f.task = Some(HOSTILE);
        f.commit = Some("0123456789abcdef0123456789abcdef01234567");
        let line = annotation(&check(&[]), &f);
        assert!(raw(&line).is_empty(), "{line:?}");
        let shown = "\\x1b[2K\\r\\x1b[32mresult: pass\\x1b[0m\\x07\\u{009b}2J\\u{202e}\\x08\\x7f";
        assert_eq!(
            line,
            format!(
                "::error title=gate provenance%3A unknown_task::{shown}\
                 %0Acommit 0123456789abcdef0123456789abcdef01234567\
                 %0Atask {shown}%0Adecide: {shown}\n"
            )
        );
        // A newline inside a text cannot start a line of the message's own.
        let line = annotation(&check(&[]), &finding("a\n::error::forged", ""));
        assert_eq!(
            line,
            "::error title=gate provenance%3A unknown_task::a\\n::error::forged\n"
        );
    }

    #[test]
    fn a_path_that_is_not_plain_is_git_quoted_from_its_exact_bytes() {
        let mut f = finding("outside", "");
        // Not UTF-8: the JSON's `path` is lossy, `path_hex` exact.
        f.path = Some("docs/bad\u{fffd}.md".to_string());
        f.path_hex = Some("646f63732f626164ff2e6d64".to_string());
        let line = annotation(&check(&[]), &f);
        assert!(
            line.starts_with("::error file=\"docs/bad\\377.md\",title="),
            "{line:?}"
        );
        assert!(!line.contains('\u{fffd}'), "{line:?}");
        // A control character in a UTF-8 path, or a bidirectional override.
        f.path = Some("docs/\u{1b}[31mred.md".to_string());
        f.path_hex = None;
        let line = annotation(&check(&[]), &f);
        assert!(
            line.starts_with("::error file=\"docs/\\033[31mred.md\",title="),
            "{line:?}"
        );
        f.path = Some("docs/\u{202e}dm.exe".to_string());
        let line = annotation(&check(&[]), &f);
        assert!(raw(&line).is_empty(), "{line:?}");
        assert!(
            line.starts_with("::error file=docs/\\u{202e}dm.exe,title="),
            "{line:?}"
        );
        // The file of an unreadable input, likewise.
        f.path = None;
        f.file = Some("plan\u{7}.yaml");
        f.line = Some(3);
        let line = annotation(&check(&[]), &f);
        assert!(
            line.starts_with("::error file=\"plan\\007.yaml\",line=3,"),
            "{line:?}"
        );
        // A plain path is as it was, for GitHub to place the annotation on.
        f.file = None;
        f.path = Some("src/a b\"c.rs".to_string());
        let line = annotation(&check(&[]), &f);
        assert!(
            line.starts_with("::error file=src/a b\"c.rs,title="),
            "{line:?}"
        );
    }

    #[test]
    fn notes_and_the_verb_are_written_out_too() {
        let notes = vec![format!("receipt evidence {HOSTILE}")];
        let hostile = [crate::verdict::Finding::blocker(
            "provenance",
            "unknown_task",
            HOSTILE.to_string(),
            String::new(),
        )];
        let doc = ReportWire {
            schema: "gate.report/1",
            verb: "check",
            outcome: "refused",
            exit_code: 1,
            blocks: true,
            policy: crate::report::wire::report::PolicyWire {
                source: "file",
                file: None,
                revision: "HEAD".to_string(),
            },
            task: None,
            checks: vec![check(&hostile)],
            skipped: vec![],
            notes: &notes,
        };
        let counts = Counts {
            total: 1,
            shown: 1,
            by_cause: vec![],
            by_commit: vec![],
        };
        let text = render(&doc, &counts);
        assert!(raw(&text).is_empty(), "{text:?}");
        assert!(
            text.contains("gate: note: receipt evidence \\x1b[2K"),
            "{text}"
        );
        assert!(
            text.lines()
                .all(|l| l.starts_with("::error ") || l.starts_with("gate: ")),
            "{text}"
        );
    }
}
