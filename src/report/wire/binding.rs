//! `gate.binding/1` (docs/json.md): what `gate binding --json` says a
//! naming serves and whether it may start.

use schemars::JsonSchema;
use serde::Serialize;

use super::PinsWire;

pub const BINDING_SCHEMA: &str = "gate.binding/1";

#[derive(Serialize, JsonSchema)]
pub struct BindingWire<'a> {
    pub schema: &'static str,
    pub standing: &'static str,
    pub exit_code: i32,
    pub named: NamedWire<'a>,
    pub issues: &'a [String],
    pub intents: &'a [String],
    pub notes: &'a [String],
    pub refusals: Vec<RefusalWire<'a>>,
    pub pins: PinsWire<'a>,
    pub criteria: Vec<BindingCriterionWire<'a>>,
}

#[derive(Serialize, JsonSchema)]
pub struct NamedWire<'a> {
    pub issue: Option<&'a str>,
    pub intent: Option<&'a str>,
    pub paths: &'a [String],
    pub exemption: Option<BindingExemptionWire<'a>>,
}

#[derive(Serialize, JsonSchema)]
pub struct BindingExemptionWire<'a> {
    pub class: &'a str,
    pub because: Option<&'a str>,
    /// The class's description as the policy declares it (null: not declared).
    pub description: Option<&'a str>,
}

#[derive(Serialize, JsonSchema)]
pub struct RefusalWire<'a> {
    pub issue: Option<&'a str>,
    pub cause: &'static str,
    pub message: &'a str,
    pub decide: &'a str,
}

#[derive(Serialize, JsonSchema)]
pub struct BindingCriterionWire<'a> {
    pub intent: &'a str,
    pub criterion: &'a str,
    pub state: &'static str,
}
