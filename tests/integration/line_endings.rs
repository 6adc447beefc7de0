//! Line endings are not rewrites: in a `core.autocrlf=true` clone the task
//! files are checked out with CRLF, and what gate compares with the
//! committed blob is what git would commit (the file through git's
//! filters), not the work tree's raw bytes.

use std::path::{Path, PathBuf};

use crate::fixture::{self, plan_repo, show};
use crate::support::{TestRepo, git_command};

/// Task T-42 committed, with one addendum, under a policy that runs only the
/// brief, `required`.
fn committed_task_repo() -> TestRepo {
    let repo = plan_repo("required");
    repo.write(
        ".gate/policy.yaml",
        "version: 1\nscope: off\nprovenance:\n  mode: off\nreceipts:\n  mode: off\nbrief:\n  mode: required\n",
    );
    repo.commit_all("policy");
    fixture::start_42(&repo);
    let out = repo
        .gate()
        .args([
            "task",
            "amend",
            "--author",
            "Ada",
            "--text",
            "Also the totals row.",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    repo.commit_all("start");
    repo
}

/// `git clone -c core.autocrlf=true`, beside the repository.
fn autocrlf_clone(repo: &TestRepo) -> PathBuf {
    let clone = repo.scratch("clone");
    let mut cmd = git_command(repo.path());
    cmd.args(["clone", "-q", "-c", "core.autocrlf=true"])
        .arg(repo.path())
        .arg(&clone);
    let out = cmd.output().unwrap();
    crate::support::check(&cmd, out);
    clone
}

fn git_in(dir: &Path, args: &[&str]) -> String {
    let mut cmd = git_command(dir);
    cmd.args(args);
    let out = cmd.output().unwrap();
    String::from_utf8_lossy(&crate::support::check(&cmd, out).stdout).into_owned()
}

fn gate_in(repo: &TestRepo, dir: &Path, args: &[&str]) -> std::process::Output {
    repo.gate().arg("-C").arg(dir).args(args).output().unwrap()
}

fn brief_causes(out: &std::process::Output) -> Vec<String> {
    let doc: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", show(out)));
    crate::fixture::all_causes(&doc)
}

#[test]
fn an_unchanged_task_file_in_an_autocrlf_clone_is_not_a_rewrite() {
    let repo = committed_task_repo();
    let clone = autocrlf_clone(&repo);
    let task = clone.join(".gate/tasks/T-42.md");
    // The oracle: git checked the file out with CRLF and calls it unchanged.
    assert!(
        std::fs::read(&task)
            .unwrap()
            .windows(2)
            .any(|w| w == b"\r\n")
    );
    assert_eq!(git_in(&clone, &["status", "--porcelain"]), "");

    let out = gate_in(&repo, &clone, &["check", "--only", "brief", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(brief_causes(&out), Vec::<String>::new(), "{}", show(&out));

    // The same with the task active, and with a staged change beside it.
    let out = gate_in(&repo, &clone, &["task", "switch", "T-42"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = gate_in(&repo, &clone, &["check", "--only", "brief", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    std::fs::write(clone.join("src/export/csv.rs"), "// csv\r\n").unwrap();
    git_in(&clone, &["add", "-A"]);
    let out = gate_in(
        &repo,
        &clone,
        &["check", "--staged", "--only", "brief", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    // An amendment appended to the CRLF file is an append, not a rewrite.
    let out = gate_in(
        &repo,
        &clone,
        &[
            "task",
            "amend",
            "--author",
            "Ada",
            "--text",
            "And the tax column.",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = gate_in(&repo, &clone, &["check", "--only", "brief", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    git_in(&clone, &["add", "-A"]);
    let out = gate_in(
        &repo,
        &clone,
        &["check", "--staged", "--only", "brief", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    // A real edit of the brief is still one, CRLF or not.
    let text = std::fs::read_to_string(&task).unwrap();
    std::fs::write(&task, text.replace("CSV export", "PDF export")).unwrap();
    assert_ne!(git_in(&clone, &["status", "--porcelain", ".gate"]), "");
    let out = gate_in(&repo, &clone, &["check", "--only", "brief", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        brief_causes(&out).contains(&"brief_rewritten".to_string()),
        "{}",
        show(&out)
    );
}
