//! `gate.may-touch/1` (docs/json.md): what `gate may-touch --json` says of
//! each path — allowed, refused or unknown, and why.

use schemars::JsonSchema;
use serde::Serialize;

use super::report::TaskWire;

pub const MAY_TOUCH_SCHEMA: &str = "gate.may-touch/1";

#[derive(Serialize, JsonSchema)]
pub struct MayTouchWire<'a> {
    pub schema: &'static str,
    /// `pass` every path allowed, `refused` any refused, else `unknown`.
    pub outcome: &'static str,
    pub exit_code: i32,
    pub task: Option<TaskWire<'a>>,
    pub paths: Vec<TouchWire<'a>>,
    pub notes: &'a [String],
}

#[derive(Serialize, JsonSchema)]
pub struct TouchWire<'a> {
    /// Repository-relative (lossy when not UTF-8).
    pub path: String,
    /// As given on the command line.
    pub given: &'a str,
    /// `allowed`, `refused` or `unknown`.
    pub verdict: &'static str,
    /// The scope pattern that allows it.
    pub pattern: Option<&'a str>,
    /// The open plan issues whose paths cover it.
    pub issues: Vec<IssueCoverWire<'a>>,
    pub reason: &'a str,
    /// What gets the work through, for a refusal or an unknown.
    pub decide: Option<&'a str>,
}

#[derive(Serialize, JsonSchema)]
pub struct IssueCoverWire<'a> {
    pub issue: &'a str,
    pub intent: Option<&'a str>,
}
