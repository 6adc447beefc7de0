//! Finished work (docs/tasks.md#finished-work): after `gate task finish`
//! no task is active, and `gate check` says the work is done and what CI
//! will prove — not `no_active_task` — judging the finished task.

use serde_json::Value;

use crate::fixture::{all_causes, plan_repo, show, start_42};
use crate::support::TestRepo;

/// Every check `required`, the binding too; receipts from any pusher.
const ALL_REQUIRED: &str = "version: 1\nbinding: required\nexemptions: []\nscope: required\nprovenance:\n  mode: required\n  merges: refuse\nreceipts:\n  mode: required\n  trust: any-pusher\nbrief:\n  mode: required\n";

fn gate_ok(repo: &TestRepo, args: &[&str]) -> String {
    let out = repo.gate().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}\n{}", show(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn check_json(repo: &TestRepo, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["check", "--json"];
    all.extend_from_slice(args);
    let out = repo.gate().args(&all).output().unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not a report ({e}):\n{}", show(&out)));
    (out.status.code().unwrap(), doc)
}

/// The findings with `cause`, check by check.
fn with_cause<'d>(doc: &'d Value, cause: &str) -> Vec<&'d Value> {
    doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["findings"].as_array().unwrap())
        .filter(|f| f["cause"] == cause)
        .collect()
}

fn commit(repo: &TestRepo, message: &str) {
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", message]);
}

/// On branch `work` from main: task T-42 started, its work and its file
/// committed with trailers; the base is main's tip.
fn worked(repo: &TestRepo) -> String {
    let base = repo.head();
    repo.git(&["switch", "-q", "-c", "work"]);
    start_42(repo);
    repo.write("src/export/csv.rs", "// csv\n");
    commit(repo, "export: CSV\n\nTask: T-42");
    base
}

#[test]
fn a_finished_task_is_done_not_refused_and_says_what_ci_proves() {
    let repo = plan_repo("required");
    let base = worked(&repo);
    let (code, doc) = check_json(&repo, &[]);
    assert_eq!(code, 0, "{doc:#}");
    assert!(with_cause(&doc, "task_finished").is_empty(), "{doc:#}");
    gate_ok(&repo, &["task", "finish"]);
    // The closing is not committed yet: still done, and it says so.
    let (code, doc) = check_json(&repo, &[]);
    assert_eq!(code, 0, "{doc:#}");
    assert!(
        !all_causes(&doc).contains(&"no_active_task".into()),
        "{doc:#}"
    );
    let said = with_cause(&doc, "task_finished");
    assert_eq!(said.len(), 1, "{doc:#}");
    let message = said[0]["message"].as_str().unwrap();
    assert!(
        message.contains("its closing is not committed yet: commit .gate/tasks/T-42.md"),
        "{message}"
    );
    commit(&repo, "T-42: finish\n\nTask: T-42");
    let out = repo.gate().args(["check"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let human = String::from_utf8_lossy(&out.stdout).into_owned();
    let range = format!("gate check --range {}..HEAD", &base[..12]);
    for needle in [
        "task T-42 · issue 42",
        "scope       pass      · task T-42 is finished · no other change since",
        "task_finished task T-42 is finished (completed; named by HEAD's commits): this work is done, and no task is active.",
        &format!("CI will prove `{range}`: 2 commits from the task's baseline"),
        "provenance  pass      · 2 commits in",
        "result: pass (exit 0)",
    ] {
        assert!(human.contains(needle), "{needle}\n{human}");
    }
    assert!(!human.contains("no_active_task"), "{human}");
    // JSON: the task is the finished one, the finding is info and names it.
    let (code, doc) = check_json(&repo, &[]);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["task"]["id"], "T-42", "{doc:#}");
    let f = with_cause(&doc, "task_finished")[0];
    assert_eq!(f["severity"], "info", "{f:#}");
    assert_eq!(f["check"], "scope", "{f:#}");
    assert_eq!(f["task"], "T-42", "{f:#}");
    assert!(f["decide"].as_str().unwrap().contains(&range), "{f:#}");
    // The range it names is one the user can run, and it passes.
    let out = repo
        .gate()
        .args(["check", "--range", &format!("{base}..HEAD")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

#[test]
fn under_every_check_required_finished_work_passes_and_ci_is_the_remotes_range() {
    let repo = plan_repo("required");
    repo.write(".gate/policy.yaml", ALL_REQUIRED);
    commit(&repo, "every check required");
    let remote = TestRepo::bare();
    repo.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
    repo.git(&["push", "-q", "--no-verify", "origin", "main"]);
    repo.git(&["fetch", "-q", "origin"]);
    let base = worked(&repo);
    gate_ok(&repo, &["verify", "export-tests"]);
    let (code, doc) = check_json(&repo, &[]);
    assert_eq!(code, 0, "active: {doc:#}");
    gate_ok(&repo, &["task", "finish"]);
    commit(&repo, "T-42: finish\n\nTask: T-42");
    let (code, doc) = check_json(&repo, &[]);
    assert_eq!(code, 0, "{doc:#}");
    let checks: Vec<(&str, &str)> = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["check"].as_str().unwrap(), c["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(
        checks,
        [
            ("scope", "pass"),
            ("provenance", "pass"),
            ("receipts", "pass"),
            ("brief", "pass"),
            ("binding", "pass")
        ],
        "{doc:#}"
    );
    let f = with_cause(&doc, "task_finished")[0];
    let message = f["message"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "CI will prove `gate check --range {}..HEAD`: 2 commits from where HEAD leaves origin/main",
            &base[..12]
        )),
        "{message}"
    );
    assert!(
        message.contains("(completed; named by HEAD's commits)"),
        "{message}"
    );
}

#[test]
fn a_change_after_finishing_is_work_no_task_covers() {
    let repo = plan_repo("required");
    worked(&repo);
    gate_ok(&repo, &["task", "finish"]);
    commit(&repo, "T-42: finish\n\nTask: T-42");
    repo.write("src/export/more.rs", "// more\n");
    let (code, doc) = check_json(&repo, &["--only", "scope"]);
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(
        all_causes(&doc),
        ["no_active_task", "task_finished"],
        "{doc:#}"
    );
    let f = with_cause(&doc, "no_active_task")[0];
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("task T-42 is finished and no task is active, so nothing says what 1 changed path may touch: src/export/more.rs"),
        "{f:#}"
    );
}

#[test]
fn no_task_an_abandoned_one_or_unfinished_work_is_still_no_active_task() {
    // No task ever.
    let repo = plan_repo("required");
    let (code, doc) = check_json(&repo, &["--only", "scope"]);
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(all_causes(&doc), ["no_active_task"], "{doc:#}");
    // An abandoned task is not finished work.
    worked(&repo);
    gate_ok(&repo, &["task", "abandon", "--because", "not needed"]);
    commit(&repo, "T-42: abandon\n\nTask: T-42");
    let (code, doc) = check_json(&repo, &["--only", "scope"]);
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(all_causes(&doc), ["no_active_task"], "{doc:#}");
    // A completed task beside an active one started on the branch (the
    // pointer cleared): the branch's work is not finished.
    let repo = plan_repo("required");
    worked(&repo);
    gate_ok(&repo, &["task", "finish"]);
    commit(&repo, "T-42: finish\n\nTask: T-42");
    let out = crate::fixture::start(&repo, &["--issue", "7", "--id", "T-7"], "Typos.\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    std::fs::remove_file(crate::fixture::git_path(&repo, "gate/active")).unwrap();
    let (code, doc) = check_json(&repo, &["--only", "scope"]);
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(all_causes(&doc), ["no_active_task"], "{doc:#}");
}
