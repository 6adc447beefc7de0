//! `gate.doctor/1` (docs/json.md): what `gate doctor --json` looked at and
//! found. Each [`Item`] is printed as it is.

use schemars::JsonSchema;
use serde::Serialize;

pub const DOCTOR_SCHEMA: &str = "gate.doctor/1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    /// Works, less well than it could (a remote's default branch not
    /// recorded): said with its remedy, never a fault.
    Warn,
    Fault,
    Unknown,
}

impl Status {
    /// The word `gate doctor` shows for it.
    pub fn word(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fault => "fault",
            Status::Unknown => "unknown",
        }
    }
}

/// One thing looked at.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Item {
    /// `hook`, `hooks_path`, `policy`, `plan`, `task`, `active_task`,
    /// `fsmonitor`, `remote_head`, `upstream`.
    pub check: &'static str,
    /// The hook's, task's or remote's name; empty for the others.
    pub subject: String,
    pub status: Status,
    pub detail: String,
    /// The command or edit that repairs a fault or a warning, or decides
    /// an unknown.
    pub remedy: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct DoctorWire<'a> {
    pub schema: &'static str,
    pub outcome: &'static str,
    pub exit_code: i32,
    pub hooks_dir: String,
    pub manager: Option<&'static str>,
    pub checks: &'a [Item],
}
