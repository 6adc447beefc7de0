//! gate: git hooks and a pre-push gate that prove scope, commit-range
//! provenance, fresh receipts, binding and the brief (see SPEC in docs/).
//!
//! The library holds everything; `main.rs` only dispatches. `git` is the only
//! module that talks to git; checks are pure functions from inputs to findings.

pub mod clock;
pub mod digest;
pub mod git;
pub mod ids;
pub mod load;
pub mod path;
pub mod plan;
pub mod policy;
pub mod yaml;
