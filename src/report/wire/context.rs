//! `gate.context/1` (docs/json.md): everything a worker needs before
//! touching anything, in one document — what `gate context --json` prints.
//! The human rendering (`report::human::context`) reads the same structs.

use schemars::JsonSchema;
use serde::Serialize;

pub const CONTEXT_SCHEMA: &str = "gate.context/1";

#[derive(Serialize, JsonSchema)]
pub struct ContextWire {
    pub schema: &'static str,
    /// `pass` every part could be read, else `unknown`.
    pub outcome: &'static str,
    pub exit_code: i32,
    /// `null` when no task is active (then `unknowns` says so).
    pub task: Option<ContextTaskWire>,
    /// The brief, verbatim; `null` when none is recorded or there is no task.
    pub brief: Option<String>,
    pub addenda: Vec<AddendumWire>,
    /// The agent's decisions that conflict with the operator's words and
    /// that no operator's answer has closed (docs/brief.md).
    pub conflicts: Vec<ConflictWire>,
    /// The session summary: edits the agent hooks let through outside the
    /// repository (docs/agents.md); `null` when the policy could not be
    /// read (then `unknowns` says so).
    pub external_edits: Option<ExternalEditsWire>,
    pub scope: Option<ScopeWire>,
    pub intents: Vec<IntentWire>,
    pub criteria: Vec<CriterionWire>,
    pub critiques: Vec<ContextCritiqueWire>,
    pub binding: Option<BindingStandingWire>,
    pub next: Vec<NextWire>,
    pub unknowns: Vec<UnknownWire>,
}

#[derive(Serialize, JsonSchema)]
pub struct ContextTaskWire {
    pub id: String,
    pub status: &'static str,
    pub file: String,
    pub operator: String,
    pub created_at: String,
    pub baseline: String,
    pub issue: Option<String>,
    pub intent: Option<String>,
    pub exemption: Option<ExemptionWire>,
}

#[derive(Serialize, JsonSchema)]
pub struct ExemptionWire {
    pub class: String,
    pub because: String,
    /// The class's description as the policy declares it; `null` when the
    /// policy declares no such class (the binding refuses it).
    pub description: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct AddendumWire {
    /// The entry's heading line, as written (`### 2026-… · amendment · Ada`).
    pub heading: String,
    /// The entry's text after its heading, verbatim.
    pub text: String,
}

#[derive(Serialize, JsonSchema)]
pub struct ScopeWire {
    /// The recorded `scope` (docs/trust.md: judged from the recorded version).
    pub recorded: Vec<String>,
    /// The additions `gate task scope add` recorded.
    pub added: Vec<AddedWire>,
    /// Both, in order, without repeats: what the scope check judges with.
    pub effective: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct AddedWire {
    pub glob: String,
    pub because: String,
    pub author: String,
    pub time: String,
}

#[derive(Serialize, JsonSchema)]
pub struct IntentWire {
    pub id: String,
    pub status: &'static str,
    pub statement: String,
    pub invariants: Vec<String>,
    pub non_goals: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct CriterionWire {
    pub intent: String,
    pub criterion: String,
    pub text: String,
    /// The worst state of its checks, or `unevidenced`.
    pub state: &'static str,
    pub evidence: Vec<EvidenceWire>,
}

#[derive(Serialize, JsonSchema)]
pub struct EvidenceWire {
    pub check: String,
    /// `passed`, `failed`, `stale`, `running`, `missing`, `unknown`.
    pub state: &'static str,
    /// For `stale`: why; for `unknown`: the reason.
    pub why: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct ContextCritiqueWire {
    pub intent: String,
    pub reviewed_at: String,
    /// Who reviewed, when the critique records it.
    pub reviewed_by: Option<String>,
    pub findings: Vec<CritiqueFindingWire>,
    /// The ids of the blocking findings that are still open.
    pub open_blocking: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct CritiqueFindingWire {
    pub id: String,
    pub blocking: bool,
    pub open: bool,
    pub text: String,
    pub resolution: Option<String>,
    /// The issue it is planned in, when it records one.
    pub planned_in: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct BindingStandingWire {
    /// `bound`, `maintenance`, `exempt`, `refused`.
    pub standing: &'static str,
    /// The policy's `binding` mode: what a refusal costs.
    pub mode: &'static str,
    pub issues: Vec<String>,
    pub intents: Vec<String>,
    pub notes: Vec<String>,
    pub refusals: Vec<ContextRefusalWire>,
}

#[derive(Serialize, JsonSchema)]
pub struct ContextRefusalWire {
    pub cause: &'static str,
    pub message: String,
    pub decide: String,
}

#[derive(Serialize, JsonSchema)]
pub struct ExternalEditsWire {
    /// `agents.external_edits` in the policy gate trusts here: `deny`,
    /// `report` (edits are recorded) or `allow` (nothing is recorded).
    pub policy: &'static str,
    /// Each path once, the most recent write first.
    pub edits: Vec<crate::external_edits::Edit>,
    /// Older paths left out of the record (it keeps 1000).
    pub dropped: u64,
}

#[derive(Serialize, JsonSchema)]
pub struct ConflictWire {
    /// The `qa` round that records it.
    pub round: usize,
    /// Its line in the task file.
    pub line: usize,
    pub stage: String,
    /// What the agent decided (the entry's summary).
    pub summary: String,
    /// What it contradicts, as recorded.
    pub conflict: String,
}

#[derive(Serialize, JsonSchema)]
pub struct NextWire {
    /// A command to run, as typed.
    pub command: String,
    pub why: String,
}

#[derive(Serialize, JsonSchema)]
pub struct UnknownWire {
    /// The part that could not be read: `task`, `policy`, `plan`, `scope`,
    /// `criteria`, `binding`.
    pub part: &'static str,
    pub reason: String,
    pub decide: String,
}
