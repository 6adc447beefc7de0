//! `gate.resolve/1` (docs/json.md): the answer `gate handover --resolve
//! --json` gives about a task's recorded pins.

use schemars::JsonSchema;
use serde::Serialize;

use super::PinsWire;

pub const RESOLVE_SCHEMA: &str = "gate.resolve/1";

#[derive(Serialize, JsonSchema)]
pub struct ResolveWire<'a> {
    pub schema: &'static str,
    pub task: &'a str,
    pub answer: &'static str,
    pub exit_code: i32,
    /// The intents the binding reaches now (empty when unknown).
    pub intents: Vec<String>,
    /// The binding's standing now; `null` when it could not be asked.
    pub standing: Option<&'static str>,
    pub message: String,
    pub recorded: PinsWire<'a>,
    pub current: Option<PinsWire<'a>>,
}
