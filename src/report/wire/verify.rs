//! `gate.verify/1` (docs/json.md): the run `gate verify --json` made and the
//! receipt it recorded.

use schemars::JsonSchema;
use serde::Serialize;

use super::report::TaskWire;
use crate::receipts::Receipt;

pub const VERIFY_SCHEMA: &str = "gate.verify/1";

#[derive(Serialize, JsonSchema)]
pub struct VerifyWire<'a> {
    pub schema: &'static str,
    pub check: &'a str,
    /// `passed`, `failed`, or `stale` (the sources changed during the run).
    pub outcome: &'static str,
    /// What the process exits with: 0 passed, 1 failed, 3 stale.
    pub exit_code: i32,
    /// The task the run is for, as reports show it; `null` when none.
    pub task: Option<TaskWire<'a>>,
    /// The receipt recorded, as its file holds it (`gate.receipt/1`).
    pub receipt: &'a Receipt,
}
