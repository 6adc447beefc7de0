//! `gate.handover/1` (docs/json.md): what `gate handover --json` hands the
//! next worker.

use schemars::JsonSchema;
use serde::Serialize;

use super::{CommitWire, PinsWire};

pub const HANDOVER_SCHEMA: &str = "gate.handover/1";

#[derive(Serialize, JsonSchema)]
pub struct HandoverWire<'a> {
    pub schema: &'static str,
    pub task: &'a str,
    pub head: Option<&'a str>,
    pub issue: Option<&'a str>,
    pub intent: Option<&'a str>,
    pub exemption: Option<HandoverExemptionWire<'a>>,
    pub pins: PinsWire<'a>,
    /// The brief, verbatim; `null` when the task has none.
    pub brief: Option<&'a str>,
    /// The addenda section, verbatim.
    pub addenda: &'a str,
    /// How to commit the task file when it differs from HEAD's (the pins
    /// changed it, or earlier entries are not committed); `null` when HEAD
    /// holds it as it is.
    pub commit: Option<CommitWire>,
}

#[derive(Serialize, JsonSchema)]
pub struct HandoverExemptionWire<'a> {
    pub class: &'a str,
    pub because: &'a str,
}
