//! `gate.tasks/1` (docs/json.md): the tasks `gate task list --json` finds,
//! and the task files it could not read.

use schemars::JsonSchema;
use serde::Serialize;

pub const TASKS_SCHEMA: &str = "gate.tasks/1";

#[derive(Serialize, JsonSchema)]
pub struct ListWire<'a> {
    pub schema: &'static str,
    pub active: Option<&'a str>,
    pub tasks: Vec<ListedTaskWire<'a>>,
    pub errors: Vec<TaskErrorWire>,
}

#[derive(Serialize, JsonSchema)]
pub struct ListedTaskWire<'a> {
    pub id: &'a str,
    pub status: &'static str,
    pub active: bool,
    pub issue: Option<&'a str>,
    pub intent: Option<&'a str>,
    pub exemption: Option<&'a str>,
    pub created_at: &'a str,
    pub operator: &'a str,
    pub baseline: &'a str,
    pub file: String,
}

#[derive(Serialize, JsonSchema)]
pub struct TaskErrorWire {
    pub message: String,
}
