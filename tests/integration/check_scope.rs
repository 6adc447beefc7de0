//! `gate check --staged` and the scope of the current state.

use crate::fixture::{self, plan_repo, show};
use crate::golden::{assert_golden, transcript};

fn check_staged(repo: &crate::support::TestRepo, json: bool) -> std::process::Output {
    let mut args = vec!["check", "--staged"];
    if json {
        args.push("--json");
    }
    repo.gate().args(&args).output().unwrap()
}

#[test]
fn staged_paths_in_scope_pass() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    repo.write("src/export/csv.rs", "// csv\n");
    repo.git(&["add", "-A"]);
    let out = check_staged(&repo, false);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_golden("check/staged-pass.txt", &transcript(Some(&repo), &out));
}

#[test]
fn staged_paths_outside_scope_are_refused_under_required() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    repo.write("src/export/csv.rs", "// csv\n");
    repo.write("README.md", "# changed\n");
    repo.git(&["rm", "-q", "src/lib.rs"]);
    repo.git(&["add", "-A"]);
    let out = check_staged(&repo, false);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_golden("check/staged-refused.txt", &transcript(Some(&repo), &out));
    let out = check_staged(&repo, true);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_golden("check/staged-refused.json", &transcript(Some(&repo), &out));
}

#[test]
fn a_closed_stdout_does_not_turn_a_refusal_into_a_pass() {
    // `gate check ... | head` with pipefail: the reader is gone before gate
    // writes, and the verdict must still be the exit code.
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    repo.write("README.md", "# changed\n");
    repo.git(&["add", "-A"]);
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin!("gate"));
    cmd.current_dir(repo.path())
        .env_clear()
        .envs(crate::support::git_env())
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .args(["check", "--staged"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    let mut child = cmd.spawn().unwrap();
    drop(child.stdout.take());
    assert_eq!(child.wait().unwrap().code(), Some(1));
}

#[test]
fn advisory_reports_but_does_not_block() {
    let repo = plan_repo("advisory");
    fixture::start_42(&repo);
    repo.write("README.md", "# changed\n");
    repo.git(&["add", "-A"]);
    let out = check_staged(&repo, false);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("path_outside_scope"), "{text}");
    assert!(text.contains("reported only (advisory)"), "{text}");
}

#[test]
fn both_sides_of_a_staged_rename_are_checked() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    repo.git(&["mv", "src/lib.rs", "src/export/lib.rs"]);
    let out = check_staged(&repo, true);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = doc["checks"][0]["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{doc:#}");
    assert_eq!(findings[0]["path"], "src/lib.rs");
    assert_eq!(findings[0]["change"], "renamed_from");
}

#[test]
fn mode_and_type_changes_and_odd_paths_are_checked() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    repo.chmod(b"README.md", true);
    repo.write_at(b"bad\xffname.txt", "x");
    repo.write_at(b"new\nline.txt", "x");
    repo.git(&["add", "-A"]);
    let out = check_staged(&repo, true);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = doc["checks"][0]["findings"].as_array().unwrap();
    let paths: Vec<&str> = findings
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"README.md"), "{paths:?}");
    assert!(paths.contains(&"new\nline.txt"), "{paths:?}");
    let bad = findings
        .iter()
        .find(|f| f.get("path_hex").is_some())
        .expect("a non-UTF-8 path carries path_hex");
    assert_eq!(bad["path_hex"], "626164ff6e616d652e747874");
}

#[test]
fn no_active_task_is_a_refusal_under_required() {
    let repo = plan_repo("required");
    repo.write("README.md", "# changed\n");
    repo.git(&["add", "-A"]);
    let out = check_staged(&repo, false);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no_active_task"));
    let advisory = plan_repo("advisory");
    let out = check_staged(&advisory, false);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

#[test]
fn an_unreadable_active_task_is_unknown_never_pass() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    std::fs::write(repo.path().join(".gate/tasks/T-42.md"), "not a task\n").unwrap();
    let out = check_staged(&repo, false);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("task_unreadable"),
        "{}",
        show(&out)
    );
}

#[test]
fn the_current_state_includes_unstaged_and_untracked_changes() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    repo.git(&["add", "-A"]);
    repo.commit_all("start T-42");
    repo.write("notes.txt", "untracked\n");
    repo.write("src/lib.rs", "// unstaged edit\n");
    let out = repo
        .gate()
        .args(["check", "--only", "scope", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let paths: Vec<&str> = doc["checks"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, vec!["notes.txt", "src/lib.rs"]);
}

#[test]
fn off_checks_are_skipped_and_said_so() {
    let repo = plan_repo("off");
    let out = repo.gate().args(["check", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["checks"].as_array().unwrap().len(), 0);
    assert_eq!(doc["skipped"][0]["reason"], "off in the policy");
}

#[test]
fn the_embedded_default_is_used_and_named() {
    let repo = crate::support::TestRepo::new();
    repo.write("a.txt", "a\n");
    repo.commit_all("one");
    let out = repo.gate().arg("check").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_golden("check/embedded-default.txt", &transcript(Some(&repo), &out));
}

/// Concluding a conflicted merge: only what the merge itself changes is the
/// commit's own — every path where the index is not what a clean merge of
/// the parents gives (decision 0023), as the push and CI judge it.
#[test]
fn a_merge_being_concluded_is_checked_for_its_own_changes_only() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    repo.commit_all("start T-42");
    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.write("docs/export.md", "# side\n");
    repo.write("docs/guide.md", "side only\n");
    repo.commit_all("side work");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("docs/export.md", "# main\n");
    repo.commit_all("main work");
    assert!(
        !repo.git_ok(&["merge", "-q", "side"]),
        "the merge conflicts"
    );
    // Resolve the conflict in scope; the side's guide comes in as it is:
    // a clean merge gives it, so it is not the merge's own change.
    repo.write("docs/export.md", "# both\n");
    repo.git(&["add", "docs/export.md"]);
    let out = check_staged(&repo, true);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    // Dropping the side's new guide (keeping main's tree there) is the
    // merge's own change, and out of scope: refused here as at the push.
    repo.git(&["rm", "-q", "-f", "docs/guide.md"]);
    let out = check_staged(&repo, true);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let paths: Vec<&str> = doc["checks"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, vec!["docs/guide.md"]);
}
