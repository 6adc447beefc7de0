//! The integration test binary: one module per area, sharing `support`,
//! `fixture` and `golden`.

mod agent_hosts;
mod agents_session;
mod architecture;
mod bad_input;
mod binding;
mod brief;
mod check_scope;
mod ci_receipts;
mod ci_recipe;
mod ci_tasks;
mod claude_code;
mod coexist;
mod completions;
mod context;
mod dead_ends;
mod doctor;
mod file_schemas;
mod fingerprint;
mod finished;
mod fixture;
mod fsmonitor;
mod fuzz;
mod git_layer;
mod golden;
mod help;
mod hooks;
mod init;
mod init_agents;
mod json_every_verb;
mod json_schema;
mod line_endings;
mod may_touch;
#[cfg(feature = "mcp")]
mod mcp;
mod merge_own;
mod notes;
mod packaging;
mod paths_require;
mod plan_lint;
mod pre_push;
mod prepare_commit_msg;
mod provenance;
mod readme_flow;
mod receipts;
mod report_formats;
mod signed_receipts;
mod sources;
mod start_task;
mod state_files;
mod support;
mod task_ids;
mod team;
mod terminal;
mod travel;
mod tree_fingerprint;
mod trust;

/// Every file under `tests/integration/` is a module of this binary: a
/// file left out of the list above would never run, silently.
#[test]
fn no_test_file_is_forgotten() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/integration");
    let listed = include_str!("main.rs");
    let mut forgotten = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("tests/integration") {
        let name = entry.expect("an entry").file_name();
        let name = name.to_str().expect("a UTF-8 file name");
        let Some(module) = name.strip_suffix(".rs") else {
            continue;
        };
        if module != "main" && !listed.lines().any(|l| l == format!("mod {module};")) {
            forgotten.push(name.to_owned());
        }
    }
    assert!(
        forgotten.is_empty(),
        "add `mod NAME;` to tests/integration/main.rs for {forgotten:?}"
    );
}
