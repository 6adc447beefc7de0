//! `gate.task-change/1` (docs/json.md): the change a task verb recorded in
//! the task file, and the commit to make.

use schemars::JsonSchema;
use serde::Serialize;

use super::CommitWire;

pub const TASK_CHANGE_SCHEMA: &str = "gate.task-change/1";

#[derive(Serialize, JsonSchema)]
pub struct ChangeWire<'a> {
    pub schema: &'static str,
    pub task: &'a str,
    /// What was recorded: `amendment`, `decision`, `note`, `completed`,
    /// `abandoned`.
    pub change: &'a str,
    pub status: &'static str,
    pub commit: CommitWire,
}
