//! The JSON rendering: wire structs, separate from the model, that only ever
//! gain fields. Every document carries a `schema` field.
//!
//! `gate.report/1` (from `gate check`, the hooks and `gate plan validate`):
//!
//! ```json
//! {
//!   "schema": "gate.report/1",
//!   "verb": "check",
//!   "outcome": "refused",            // pass | refused | unknown, before the mode's cost
//!   "exit_code": 0,                  // 0 nothing blocks, 1 refused, 3 unknown
//!   "blocks": false,
//!   "policy": {"source": "embedded", "file": null, "revision": "the work tree"},
//!   "task": {"id": "T-1", "issue": "42", "intent": null, "exemption": null,
//!            "brief": {"head": ["…"], "more": false, "addenda": 0, "latest": null}},
//!   "checks": [{"check": "scope", "mode": "advisory", "outcome": "refused", "blocks": false,
//!               "summary": "2 staged paths",
//!               "findings": [{"check": "scope", "cause": "path_outside_scope", "severity": "blocker",
//!                             "unknown": false, "message": "…", "decide": "…",
//!                             "path": "README.md", "change": "modified", "task": "T-1"}]}],
//!   "skipped": [{"check": "provenance", "reason": "…"}],
//!   "notes": []
//! }
//! ```
//!
//! Subject fields (`commit`, `path`, `path_hex`, `change`, `task`,
//! `check_id`, `ref`, `file`, `line`, `key`) appear only when set. `path` is
//! exact when the path is UTF-8; otherwise it is a lossy rendering and
//! `path_hex` holds the exact bytes in hex.

use serde::Serialize;

use super::{BriefDigest, CheckReport, Finding, Report, Skipped, TaskRef};

pub const REPORT_SCHEMA: &str = "gate.report/1";

#[derive(Serialize)]
pub struct ReportWire<'a> {
    pub schema: &'static str,
    pub verb: &'a str,
    pub outcome: &'static str,
    pub exit_code: i32,
    pub blocks: bool,
    pub policy: PolicyWire,
    pub task: Option<TaskWire<'a>>,
    pub checks: Vec<CheckWire<'a>>,
    pub skipped: Vec<SkippedWire<'a>>,
    pub notes: &'a [String],
}

#[derive(Serialize)]
pub struct PolicyWire {
    pub source: &'static str,
    pub file: Option<String>,
    /// The revision the policy was read at (docs/trust.md).
    pub revision: String,
}

#[derive(Serialize)]
pub struct TaskWire<'a> {
    pub id: &'a str,
    pub issue: Option<&'a str>,
    pub intent: Option<&'a str>,
    pub exemption: Option<&'a str>,
    pub brief: Option<BriefWire<'a>>,
}

#[derive(Serialize)]
pub struct BriefWire<'a> {
    pub head: &'a [String],
    pub more: bool,
    pub addenda: usize,
    pub latest: Option<&'a str>,
}

#[derive(Serialize)]
pub struct CheckWire<'a> {
    pub check: &'static str,
    pub mode: &'static str,
    pub outcome: &'static str,
    pub blocks: bool,
    pub summary: &'a str,
    pub findings: Vec<FindingWire<'a>>,
}

#[derive(Serialize)]
pub struct FindingWire<'a> {
    pub check: &'static str,
    pub cause: &'static str,
    pub severity: &'static str,
    pub unknown: bool,
    pub message: &'a str,
    pub decide: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_hex: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check_id: Option<&'a str>,
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub ref_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<&'a str>,
}

#[derive(Serialize)]
pub struct SkippedWire<'a> {
    pub check: &'static str,
    pub reason: &'a str,
}

/// Hex of raw bytes, for paths that are not UTF-8.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn finding(f: &Finding) -> FindingWire<'_> {
    let s = &f.subject;
    FindingWire {
        check: f.check,
        cause: f.cause,
        severity: f.severity.as_str(),
        unknown: f.unknown,
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
        check_id: s.check_id.as_deref(),
        ref_name: s.ref_name.as_deref(),
        file: s.file.as_deref(),
        line: s.line,
        key: s.key.as_deref(),
    }
}

fn check(c: &CheckReport) -> CheckWire<'_> {
    CheckWire {
        check: c.check,
        mode: c.mode.as_str(),
        outcome: c.outcome.as_str(),
        blocks: c.blocks(),
        summary: &c.summary,
        findings: c.findings.iter().map(finding).collect(),
    }
}

pub fn task(t: &TaskRef) -> TaskWire<'_> {
    TaskWire {
        id: &t.id,
        issue: t.issue.as_deref(),
        intent: t.intent.as_deref(),
        exemption: t.exemption.as_deref(),
        brief: t.brief.as_ref().map(brief),
    }
}

fn brief(b: &BriefDigest) -> BriefWire<'_> {
    BriefWire {
        head: &b.head,
        more: b.more,
        addenda: b.addenda,
        latest: b.latest.as_deref(),
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

/// `gate.error/1`: printed instead of a report when `--json` was asked for
/// and the verb could not run at all.
#[derive(Serialize)]
pub struct ErrorWire<'a> {
    pub schema: &'static str,
    pub exit_code: i32,
    pub message: &'a str,
    pub hint: Option<&'a str>,
}

/// The pins as JSON shows them (docs/json.md): `plan_pin`, and the same
/// value under its deprecated old name `plan_revision` — which a critique's
/// `intent_revision`, a different digest, was also once called.
#[derive(Serialize)]
pub struct PinsWire<'a> {
    pub plan_pin: &'a str,
    pub plan_revision: &'a str,
    pub evidence_standing: &'a str,
}

impl<'a> PinsWire<'a> {
    pub fn new(plan_pin: &'a str, evidence_standing: &'a str) -> PinsWire<'a> {
        PinsWire {
            plan_pin,
            plan_revision: plan_pin,
            evidence_standing,
        }
    }
}

pub fn error(f: &crate::error::Failure) -> ErrorWire<'_> {
    ErrorWire {
        schema: "gate.error/1",
        exit_code: f.code,
        message: &f.message,
        hint: f.hint.as_deref(),
    }
}
