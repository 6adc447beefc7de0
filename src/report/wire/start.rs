//! `gate.start/1` (docs/json.md): the task `gate start --json` created.

use schemars::JsonSchema;
use serde::Serialize;

use super::CommitWire;
use super::report::TaskWire;

pub const START_SCHEMA: &str = "gate.start/1";

#[derive(Serialize, JsonSchema)]
pub struct StartWire<'a> {
    pub schema: &'static str,
    /// The task created and made active, as reports show it.
    pub task: TaskWire<'a>,
    /// Its baseline: HEAD's full commit id when it started.
    pub baseline: String,
    /// The recorded scope (repository-relative globs).
    pub scope: &'a [String],
    /// The binding's standing when it was asked; `null` when it was not.
    pub binding: Option<&'static str>,
    /// The policy's notes.
    pub notes: &'a [String],
    /// What did not stop the start (an advisory refusal, a record not written).
    pub warnings: &'a [String],
    /// How to commit the new task file.
    pub commit: CommitWire,
}
