//! `gate.critique/1` (docs/json.md): the critique entry `gate plan
//! critique --json` wrote, or would have written.

use schemars::JsonSchema;
use serde::Serialize;

pub const CRITIQUE_SCHEMA: &str = "gate.critique/1";

#[derive(Serialize, JsonSchema)]
pub struct CritiqueWire<'a> {
    pub schema: &'static str,
    pub intent: &'a str,
    pub reviewed_at: String,
    pub reviewed_by: &'a str,
    pub intent_revision: &'a str,
    pub entry: &'a str,
    pub written: bool,
    pub file: Option<String>,
}
