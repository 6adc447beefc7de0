//! The integration test binary: one module per area, sharing `support`,
//! `fixture` and `golden`.

mod bad_input;
mod binding;
mod brief;
mod check_scope;
mod fingerprint;
mod fixture;
mod fsmonitor;
mod fuzz;
mod git_layer;
mod golden;
mod help;
mod hooks;
mod init;
mod json_every_verb;
mod json_schema;
mod line_endings;
mod plan_lint;
mod pre_push;
mod provenance;
mod receipts;
mod start_task;
mod state_files;
mod support;
mod terminal;
mod trust;
