//! gate: git hooks and a pre-push gate that prove scope, commit-range
//! provenance, fresh receipts, binding and the brief (see `docs/`).
//!
//! The library holds everything; `main.rs` only dispatches. `git` is the only
//! module that talks to git; `yaml` the only one that names the YAML parser.
//! Each check's decision is in a core module: `scope`, `binding` and `brief`
//! are pure (inputs in, findings out); `receipts` keeps its pure `state`
//! beside the store it reads; `provenance` walks and diffs the range itself,
//! judging each commit as it goes. `checks` gathers their inputs and runs
//! them under the policy; `verdict` holds the verdict model they build;
//! `report` renders it and every verb's answer, and only the doors name
//! it; `commands` has one module per verb, which never names another
//! (docs/architecture.md).

pub mod acceptance_run;
pub mod agent_hooks;
pub mod agents_md;
pub mod binding;
pub mod brief;
pub mod checks;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod ctx;
pub mod digest;
pub mod error;
pub mod exiting;
pub mod external_edits;
pub mod fingerprint;
pub mod fsutil;
pub mod git;
pub mod hooks;
pub mod ids;
pub mod load;
pub mod locate;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod notes;
pub mod path;
pub mod plan;
pub mod platform;
pub mod policy;
pub mod progress;
pub mod provenance;
pub mod receipts;
pub mod report;
pub mod schema;
pub mod scope;
pub mod signing;
pub mod started;
pub mod task;
pub mod text;
pub mod ui;
pub mod verdict;
pub mod yaml;
