//! `gate.receipts/1` (docs/json.md): what `gate receipts fetch|push --json`
//! did with the receipts on commits (`refs/notes/gate`) and a remote.

use schemars::JsonSchema;
use serde::Serialize;

pub const RECEIPTS_SCHEMA: &str = "gate.receipts/1";

#[derive(Serialize, JsonSchema)]
pub struct ReceiptsWire {
    pub schema: &'static str,
    /// `fetch` or `push`.
    pub action: &'static str,
    /// The remote, as named (a configured remote or a URL).
    pub remote: String,
    /// fetch: `none_there`, `held`, `merged`; push: `nothing`,
    /// `up_to_date`, `pushed`.
    pub outcome: &'static str,
    /// The remote's notes commit as read, `null` when it has none (or, for
    /// a push, what it holds now).
    pub remote_notes: Option<String>,
    /// This clone's notes commit now, `null` when it has none.
    pub local_notes: Option<String>,
    /// push: how many pushes it took (another clone's push in between
    /// makes it fetch, merge and push again); `null` for fetch.
    pub tries: Option<u32>,
}
