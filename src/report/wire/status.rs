//! `gate.status/1` (docs/json.md): what `gate status --json` says of each
//! acceptance check the task depends on and of the acceptance coverage.

use schemars::JsonSchema;
use serde::Serialize;

use super::report::TaskWire;

pub const STATUS_SCHEMA: &str = "gate.status/1";

#[derive(Serialize, JsonSchema)]
pub struct StatusWire<'a> {
    pub schema: &'static str,
    pub outcome: &'static str,
    pub exit_code: i32,
    pub task: Option<TaskWire<'a>>,
    pub worktree: String,
    pub checks: Vec<StatusCheckWire<'a>>,
    pub criteria: Vec<StatusCriterionWire<'a>>,
}

#[derive(Serialize, JsonSchema)]
pub struct StatusCheckWire<'a> {
    pub check: &'a str,
    pub state: &'static str,
    /// For `stale`: `contract_changed`, `sources_changed`, `sources_changed_during_run`, `no_fingerprint`.
    pub why: Option<&'static str>,
    /// For `unknown`: why the fingerprint is unavailable, and where.
    pub reason: Option<&'a str>,
    pub path: Option<&'a str>,
    /// The latest receipt of this worktree and task, whatever the state.
    pub evidence: Option<&'a str>,
    pub exit_code: Option<i32>,
    pub started_at: Option<&'a str>,
    pub ended_at: Option<&'a str>,
    pub log: Option<&'a str>,
    pub unreadable_receipts: &'a [String],
}

#[derive(Serialize, JsonSchema)]
pub struct StatusCriterionWire<'a> {
    pub intent: &'a str,
    pub criterion: &'a str,
    pub text: &'a str,
    pub evidence: &'a [String],
    pub state: &'static str,
}
