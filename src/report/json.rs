//! The JSON rendering: builds the wire documents of [`super::wire`] from
//! the model, and serialises any of them. The structs and schema constants
//! live in `report/wire/`, one module per document (docs/json.md).

use serde::Serialize;

use super::wire::error::{ERROR_SCHEMA, ErrorWire};
use super::wire::report::{
    BriefWire, CheckWire, FindingWire, FindingsWire, PolicyWire, REPORT_SCHEMA, ReportWire,
    SkippedWire, TaskWire,
};
use crate::text::FileText;
use crate::verdict::{BriefDigest, CheckReport, Finding, Report, Severity, Skipped, TaskRef};

/// Hex of raw bytes, for paths that are not UTF-8.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn finding(f: &Finding) -> FindingWire<'_> {
    let s = &f.subject;
    let at = s.at();
    // An unknown is a blocker that could not decide (docs/json.md).
    let (severity, unknown) = match f.severity {
        Severity::Unknown => (Severity::Blocker.as_str(), true),
        other => (other.as_str(), false),
    };
    FindingWire {
        check: f.check,
        cause: f.cause,
        severity,
        unknown,
        message: &f.message,
        decide: &f.decide,
        commit: s.commit.as_deref(),
        path: s.path.as_ref().map(|p| p.lossy()),
        path_hex: s
            .path
            .as_ref()
            .filter(|p| !p.is_utf8())
            .map(|p| hex(p.as_bytes())),
        change: s.change,
        task: s.task.as_deref(),
        check_id: at.acceptance_id.as_deref(),
        ref_name: s.ref_name.as_deref(),
        file: at.file.as_deref(),
        line: at.line,
        key: at.key.as_deref(),
    }
}

fn check(c: &CheckReport) -> CheckWire<'_> {
    CheckWire {
        check: c.check,
        mode: c.mode.as_str(),
        outcome: c.outcome.as_str(),
        blocks: c.blocks(),
        summary: &c.summary,
        findings: FindingsWire(&c.findings),
    }
}

pub fn task(t: &TaskRef) -> TaskWire<'_> {
    TaskWire {
        id: t.id.as_str(),
        issue: t.issue.as_ref().map(FileText::as_str),
        intent: t.intent.as_ref().map(FileText::as_str),
        exemption: t.exemption.as_ref().map(FileText::as_str),
        brief: t.brief.as_ref().map(brief),
    }
}

fn brief(b: &BriefDigest) -> BriefWire<'_> {
    BriefWire {
        head: &b.head,
        more: b.more,
        addenda: b.addenda,
        latest: b.latest.as_ref().map(FileText::as_str),
    }
}

fn skipped(s: &Skipped) -> SkippedWire<'_> {
    SkippedWire {
        check: s.check,
        reason: &s.reason,
    }
}

/// The `gate.report/1` document.
pub fn report(r: &Report) -> ReportWire<'_> {
    let code = r.exit_code().code();
    ReportWire {
        schema: REPORT_SCHEMA,
        verb: &r.verb,
        outcome: r.outcome().as_str(),
        exit_code: code,
        blocks: code != 0,
        policy: PolicyWire {
            source: if r.policy.file.is_some() {
                "file"
            } else {
                "embedded"
            },
            file: r.policy.file.clone(),
            revision: r.policy.revision.clone(),
        },
        task: r.task.as_ref().map(task),
        checks: r.checks.iter().map(check).collect(),
        skipped: r.skipped.iter().map(skipped).collect(),
        notes: &r.notes,
    }
}

/// Serialise a wire document, pretty, with a final newline.
pub fn to_string<T: Serialize>(doc: &T) -> String {
    let mut s = serde_json::to_string_pretty(doc).expect("wire structs always serialise");
    s.push('\n');
    s
}

/// Serialise a wire document as [`to_string`] does, onto `w` as it goes:
/// a report of a whole history is never held as one string.
pub fn write<T: Serialize>(doc: &T, mut w: impl std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut w, doc).map_err(std::io::Error::from)?;
    w.write_all(b"\n")?;
    w.flush()
}

pub fn error(f: &crate::error::Failure) -> ErrorWire<'_> {
    ErrorWire {
        schema: ERROR_SCHEMA,
        exit_code: f.code.code(),
        message: &f.message,
        hint: f.hint.as_deref(),
    }
}
