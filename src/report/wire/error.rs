//! `gate.error/1` (docs/json.md): printed instead of a verb's document when
//! `--json` was asked for and the verb could not run at all.

use schemars::JsonSchema;
use serde::Serialize;

pub const ERROR_SCHEMA: &str = "gate.error/1";

#[derive(Serialize, JsonSchema)]
pub struct ErrorWire<'a> {
    pub schema: &'static str,
    pub exit_code: i32,
    pub message: &'a str,
    pub hint: Option<&'a str>,
}
