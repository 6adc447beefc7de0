//! What a change must prove comes from what it touches, too
//! (docs/receipts.md, "What a change must prove"): every acceptance check
//! whose sources the work changes must be proved, whatever the task names
//! — a maintenance issue whose criteria name no check included. A task's
//! names add checks, never subtract.

use serde_json::Value;

use crate::ci_receipts::{causes, check_range};
use crate::fixture::{self, show};
use crate::receipts::{receipts_scenery, verify_exits};
use crate::support::TestRepo;

/// The receipts scenery (checks `export-tests` over src and tests, `lint`
/// over docs) with task T-7 started for maintenance issue 7 (docs/**),
/// which depends on no check by its names.
fn maintenance_task() -> TestRepo {
    let repo = receipts_scenery("required");
    let out = fixture::start(
        &repo,
        &["--issue", "7", "--id", "T-7"],
        "Fix the typos in the docs.\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    repo
}

fn status(repo: &TestRepo) -> (i32, Value) {
    let out = repo.gate().args(["status", "--json"]).output().unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not a status document ({e}):\n{}", show(&out)));
    (out.status.code().unwrap(), doc)
}

fn checks_listed(doc: &Value) -> Vec<String> {
    doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} {}",
                c["check"].as_str().unwrap(),
                c["state"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn a_maintenance_task_that_changes_a_checks_sources_must_prove_it() {
    let repo = maintenance_task();
    // Nothing touched yet: the task depends on no check.
    let (code, doc) = status(&repo);
    assert_eq!((code, checks_listed(&doc)), (0, vec![]), "{doc:#}");
    // A commit in docs/, lint's source: lint must be proved.
    repo.write("docs/export.md", "# Export, typo fixed\n");
    repo.commit_all("docs: fix a typo\n\nTask: T-7");
    let (code, doc) = status(&repo);
    assert_eq!(
        (code, checks_listed(&doc)),
        (1, vec!["lint missing".to_string()]),
        "{doc:#}"
    );
    let out = repo
        .gate()
        .args(["check", "--json", "--only", "receipts"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    let message = report["checks"][0]["findings"][0]["message"]
        .as_str()
        .unwrap();
    assert!(
        message.contains("the task's work changes docs/export.md, one of its sources"),
        "{message}"
    );
    // Proving it lets the task through.
    verify_exits(&repo, "lint", 0);
    let (code, doc) = status(&repo);
    assert_eq!(
        (code, checks_listed(&doc)),
        (0, vec!["lint passed".to_string()]),
        "{doc:#}"
    );
}

#[test]
fn a_range_must_prove_what_it_changes_whatever_its_tasks_name() {
    let repo = maintenance_task();
    let base = repo.head();
    repo.write("docs/export.md", "# Export, typo fixed\n");
    repo.commit_all("docs: fix a typo\n\nTask: T-7");
    // No receipt at all: the task names no check, the range changes lint's.
    let range = format!("{base}..HEAD");
    let (code, doc) = check_range(&repo, &range, &["--only", "receipts"]);
    assert_eq!(
        (code, causes(&doc)),
        (1, vec!["receipt_missing".to_string()]),
        "{doc:#}"
    );
    let finding = &doc["checks"][0]["findings"][0];
    assert_eq!(finding["check_id"], "lint", "{doc:#}");
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("the range changes docs/export.md, one of its sources"),
        "{doc:#}"
    );
    // A receipt of it on the tip proves it.
    verify_exits(&repo, "lint", 0);
    let (code, doc) = check_range(&repo, &range, &["--only", "receipts"]);
    assert_eq!((code, causes(&doc)), (0, vec![]), "{doc:#}");
}

#[test]
fn a_task_s_names_add_checks_and_never_subtract() {
    // T-42 depends on export-tests by its names; its work also changes
    // docs/, so lint is asked too; export-tests stays asked.
    let repo = receipts_scenery("required");
    fixture::start_42(&repo);
    let base = repo.head();
    repo.write("src/export/mod.rs", "// export, CSV\n");
    repo.write("docs/export.md", "# Export, documented\n");
    repo.commit_all("export: CSV, documented\n\nTask: T-42");
    verify_exits(&repo, "export-tests", 0);
    let (code, doc) = check_range(&repo, &format!("{base}..HEAD"), &["--only", "receipts"]);
    assert_eq!(
        (code, causes(&doc)),
        (1, vec!["receipt_missing".to_string()]),
        "{doc:#}"
    );
    assert_eq!(
        doc["checks"][0]["findings"][0]["check_id"], "lint",
        "{doc:#}"
    );
    verify_exits(&repo, "lint", 0);
    let (code, doc) = check_range(&repo, &format!("{base}..HEAD"), &["--only", "receipts"]);
    assert_eq!((code, causes(&doc)), (0, vec![]), "{doc:#}");
}
