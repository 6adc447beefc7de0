//! `gate.context/1` (docs/json.md): everything a worker needs before
//! touching anything, in one document — what `gate context --json` prints.
//! The human rendering (`report::human::context`) reads the same structs.

use schemars::JsonSchema;
use serde::Serialize;

use crate::text::FileText;

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
    pub brief: Option<FileText>,
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
    pub id: FileText,
    pub status: &'static str,
    pub file: FileText,
    pub operator: FileText,
    pub created_at: FileText,
    pub baseline: FileText,
    pub issue: Option<FileText>,
    pub intent: Option<FileText>,
    pub exemption: Option<ExemptionWire>,
}

#[derive(Serialize, JsonSchema)]
pub struct ExemptionWire {
    pub class: FileText,
    pub because: FileText,
    /// The class's description as the policy declares it; `null` when the
    /// policy declares no such class (the binding refuses it).
    pub description: Option<FileText>,
}

#[derive(Serialize, JsonSchema)]
pub struct AddendumWire {
    /// The entry's heading line, as written (`### 2026-… · amendment · Ada`).
    pub heading: FileText,
    /// The entry's text after its heading, verbatim.
    pub text: FileText,
}

#[derive(Serialize, JsonSchema)]
pub struct ScopeWire {
    /// The recorded `scope` (docs/trust.md: judged from the recorded version).
    pub recorded: Vec<FileText>,
    /// The additions `gate task scope add` recorded.
    pub added: Vec<AddedWire>,
    /// Both, in order, without repeats: what the scope check judges with.
    pub effective: Vec<FileText>,
}

#[derive(Serialize, JsonSchema)]
pub struct AddedWire {
    pub glob: FileText,
    pub because: FileText,
    pub author: FileText,
    pub time: FileText,
}

#[derive(Serialize, JsonSchema)]
pub struct IntentWire {
    pub id: FileText,
    pub status: &'static str,
    pub statement: FileText,
    pub invariants: Vec<FileText>,
    pub non_goals: Vec<FileText>,
}

#[derive(Serialize, JsonSchema)]
pub struct CriterionWire {
    pub intent: FileText,
    pub criterion: FileText,
    pub text: FileText,
    /// The worst state of its checks, or `unevidenced`.
    pub state: &'static str,
    pub evidence: Vec<EvidenceWire>,
}

#[derive(Serialize, JsonSchema)]
pub struct EvidenceWire {
    pub check: FileText,
    /// `passed`, `failed`, `stale`, `running`, `missing`, `unknown`.
    pub state: &'static str,
    /// For `stale`: why; for `unknown`: the reason.
    pub why: Option<FileText>,
}

#[derive(Serialize, JsonSchema)]
pub struct ContextCritiqueWire {
    pub intent: FileText,
    pub reviewed_at: FileText,
    /// Who reviewed, when the critique records it.
    pub reviewed_by: Option<FileText>,
    pub findings: Vec<CritiqueFindingWire>,
    /// The ids of the blocking findings that are still open.
    pub open_blocking: Vec<FileText>,
}

#[derive(Serialize, JsonSchema)]
pub struct CritiqueFindingWire {
    pub id: FileText,
    pub blocking: bool,
    pub open: bool,
    pub text: FileText,
    pub resolution: Option<FileText>,
    /// The issue it is planned in, when it records one.
    pub planned_in: Option<FileText>,
}

#[derive(Serialize, JsonSchema)]
pub struct BindingStandingWire {
    /// `bound`, `maintenance`, `exempt`, `refused`.
    pub standing: &'static str,
    /// The policy's `binding` mode: what a refusal costs.
    pub mode: &'static str,
    pub issues: Vec<FileText>,
    pub intents: Vec<FileText>,
    pub notes: Vec<FileText>,
    pub refusals: Vec<ContextRefusalWire>,
}

#[derive(Serialize, JsonSchema)]
pub struct ContextRefusalWire {
    pub cause: &'static str,
    pub message: FileText,
    pub decide: FileText,
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
    pub stage: FileText,
    /// What the agent decided (the entry's summary).
    pub summary: FileText,
    /// What it contradicts, as recorded.
    pub conflict: FileText,
}

#[derive(Serialize, JsonSchema)]
pub struct NextWire {
    /// A command to run, as typed.
    pub command: FileText,
    pub why: FileText,
}

#[derive(Serialize, JsonSchema)]
pub struct UnknownWire {
    /// The part that could not be read: `task`, `policy`, `plan`, `scope`,
    /// `criteria`, `binding`.
    pub part: &'static str,
    pub reason: FileText,
    pub decide: FileText,
}
