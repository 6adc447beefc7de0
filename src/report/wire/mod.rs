//! Every JSON document gate prints (docs/json.md): its wire structs and its
//! schema constant, one module per document, each defined once. Wire
//! structs are separate from the model and only ever gain fields; every
//! document carries a `schema` field. [`super::json`] builds `gate.report/1`
//! and `gate.error/1`; each verb fills in its own document.
//!
//! The receipt files (`gate.receipt/1`) and task files (`gate.task/1`) are
//! file formats, not printed documents: their structs stay with their
//! readers, `receipts` and `task`.

use schemars::JsonSchema;
use serde::Serialize;

pub mod binding;
pub mod context;
pub mod critique;
pub mod doctor;
pub mod error;
pub mod handover;
pub mod may_touch;
pub mod receipts;
pub mod report;
pub mod resolve;
pub mod start;
pub mod status;
pub mod task_change;
pub mod tasks;
pub mod verify;

/// The pins as JSON shows them (docs/json.md): `plan_pin`, and the same
/// value under its deprecated old name `plan_revision` — which a critique's
/// `intent_revision`, a different digest, was also once called.
#[derive(Serialize, JsonSchema)]
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

/// How to commit a task file a verb just changed: a push sends the task as
/// it is committed, so an addendum left in the work tree is lost to CI and
/// to the next worker (docs/tasks.md#committing-the-task-file).
#[derive(Serialize, JsonSchema)]
pub struct CommitWire {
    /// The task file, repository-relative.
    pub path: String,
    /// A command that commits it from any directory of the work tree.
    pub command: String,
}

impl From<crate::ctx::TaskCommit> for CommitWire {
    fn from(c: crate::ctx::TaskCommit) -> CommitWire {
        CommitWire {
            path: c.path,
            command: c.command,
        }
    }
}
