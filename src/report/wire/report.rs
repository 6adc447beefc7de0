//! `gate.report/1`, from `gate check`, the hooks and `gate plan validate`:
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

use schemars::JsonSchema;
use serde::Serialize;

pub const REPORT_SCHEMA: &str = "gate.report/1";

#[derive(Serialize, JsonSchema)]
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

#[derive(Serialize, JsonSchema)]
pub struct PolicyWire {
    pub source: &'static str,
    pub file: Option<String>,
    /// The revision the policy was read at (docs/trust.md).
    pub revision: String,
}

#[derive(Serialize, JsonSchema)]
pub struct TaskWire<'a> {
    pub id: &'a str,
    pub issue: Option<&'a str>,
    pub intent: Option<&'a str>,
    pub exemption: Option<&'a str>,
    pub brief: Option<BriefWire<'a>>,
}

#[derive(Serialize, JsonSchema)]
pub struct BriefWire<'a> {
    pub head: &'a [crate::text::FileText],
    pub more: bool,
    pub addenda: usize,
    pub latest: Option<&'a str>,
}

#[derive(Serialize, JsonSchema)]
pub struct CheckWire<'a> {
    pub check: &'static str,
    pub mode: &'static str,
    pub outcome: &'static str,
    pub blocks: bool,
    pub summary: &'a str,
    pub findings: FindingsWire<'a>,
}

/// A check's findings, each made into its wire form as it is serialised or
/// read, never all at once: a whole history's report holds one finding per
/// commit, and a list of their wire forms doubled its memory.
#[derive(Clone, Copy)]
pub struct FindingsWire<'a>(pub &'a [crate::verdict::Finding]);

impl<'a> FindingsWire<'a> {
    pub fn iter(&self) -> impl Iterator<Item = FindingWire<'a>> + use<'a> {
        self.0.iter().map(crate::report::json::finding)
    }
}

impl JsonSchema for FindingsWire<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FindingsWire".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Vec<FindingWire<'static>>>::json_schema(generator)
    }
}

impl Serialize for FindingsWire<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

#[derive(Serialize, JsonSchema)]
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

#[derive(Serialize, JsonSchema)]
pub struct SkippedWire<'a> {
    pub check: &'static str,
    pub reason: &'a str,
}
