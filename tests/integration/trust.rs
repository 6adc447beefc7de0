//! The rules come from where the change cannot reach (docs/trust.md): a
//! task's frozen fields are judged from its recorded version, through the
//! real hooks (`git commit`, `git push` to a local bare remote) and
//! `gate check`.

use std::process::Output;

use crate::fixture::{plan_repo, show, start_42};
use crate::support::TestRepo;

const TASK: &str = ".gate/tasks/T-42.md";

/// What a hook or verb printed, both streams.
fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn install(repo: &TestRepo) {
    let out = repo.gate().arg("install").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

/// Widen T-42's scope to everything in the work tree, leaving it unstaged.
fn widen_scope(repo: &TestRepo) {
    let path = repo.path().join(TASK);
    let text = std::fs::read_to_string(&path).unwrap();
    let scope_line = text
        .lines()
        .find(|l| l.starts_with("scope:"))
        .expect("a scope line")
        .to_string();
    std::fs::write(&path, text.replace(&scope_line, "scope: [\"**\"]")).unwrap();
}

/// A repository under a required policy with T-42 started (scope
/// `src/export/**`, `docs/export.md`), its file committed when `commit_task`,
/// hooks installed, and a bare remote `origin` holding main.
fn trust_repo(commit_task: bool) -> (TestRepo, TestRepo) {
    let repo = plan_repo("required");
    start_42(&repo);
    if commit_task {
        repo.git(&["add", TASK]);
        repo.git(&["commit", "-q", "-m", "start T-42"]);
    }
    let remote = TestRepo::bare();
    repo.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
    repo.git(&["push", "-q", "origin", "main"]);
    install(&repo);
    (repo, remote)
}

fn widened_scope_lets_no_out_of_scope_commit_through(commit_task: bool) {
    let (repo, _remote) = trust_repo(commit_task);
    widen_scope(&repo);
    repo.write("README.md", "# out of scope\n");
    repo.git(&["add", "README.md"]);
    let out = repo.git_may_fail(&["commit", "-q", "-m", "readme"]);
    assert!(!out.status.success(), "{}", show(&out));
    let text = said(&out);
    assert!(text.contains("path_outside_scope"), "{text}");
    assert!(text.contains("record_rewritten"), "{text}");
    // `gate check` judges with the recorded scope too.
    let out = repo
        .gate()
        .args(["check", "--only", "scope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
}

#[test]
fn an_unstaged_scope_widening_of_a_committed_task_does_not_open_pre_commit() {
    widened_scope_lets_no_out_of_scope_commit_through(true);
}

#[test]
fn an_unstaged_scope_widening_of_an_uncommitted_task_does_not_open_pre_commit() {
    widened_scope_lets_no_out_of_scope_commit_through(false);
}

#[test]
fn an_unstaged_scope_widening_does_not_open_pre_push() {
    let (repo, remote) = trust_repo(true);
    let before = remote.git(&["rev-parse", "refs/heads/main"]);
    widen_scope(&repo);
    repo.write("README.md", "# out of scope\n");
    repo.git(&["add", "README.md"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "readme"]);
    let out = repo.git_may_fail(&["push", "origin", "main"]);
    assert!(!out.status.success(), "{}", show(&out));
    let text = said(&out);
    assert!(text.contains("path_outside_scope"), "{text}");
    assert!(text.contains("record_rewritten"), "{text}");
    assert_eq!(remote.git(&["rev-parse", "refs/heads/main"]), before);
}

#[test]
fn a_staged_scope_widening_of_an_uncommitted_task_is_record_rewritten() {
    let (repo, _remote) = trust_repo(false);
    widen_scope(&repo);
    repo.write("src/export/csv.rs", "// csv\n");
    repo.git(&["add", "-A"]);
    let out = repo.git_may_fail(&["commit", "-q", "-m", "csv"]);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(said(&out).contains("record_rewritten"), "{}", show(&out));
}

// ---------------------------------------------------------------------------
// The policy: uncommitted edits tighten, never loosen; ranges read BASE's;
// pushes read the remote's; what cannot be read is unknown.

const LOOSE: &str = "version: 1\nbinding: off\nscope: off\nprovenance:\n  mode: advisory\n  merges: inspect\nreceipts:\n  mode: off\nbrief:\n  mode: off\n";

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", show(out)))
}

/// Where a report says its policy came from.
fn revision(doc: &serde_json::Value) -> &str {
    doc["policy"]["revision"]
        .as_str()
        .expect("every report names it")
}

/// `gate ARGS` in `dir` (a clone or a bare repository beside `source`).
fn gate_at(source: &TestRepo, dir: &std::path::Path, args: &[&str]) -> Output {
    source.gate().current_dir(dir).args(args).output().unwrap()
}

use crate::fixture::all_causes as causes;

#[test]
fn an_uncommitted_policy_loosening_is_reported_and_not_obeyed() {
    let (repo, _remote) = trust_repo(true);
    repo.write(".gate/policy.yaml", LOOSE);
    repo.write("README.md", "# out of scope\n");
    repo.git(&["add", "README.md"]);
    // pre-commit: HEAD's `scope: required` judges.
    let out = repo.git_may_fail(&["commit", "-q", "-m", "readme"]);
    assert!(!out.status.success(), "{}", show(&out));
    let text = said(&out);
    assert!(text.contains("path_outside_scope"), "{text}");
    assert!(text.contains("policy_loosened"), "{text}");
    // Staged too.
    repo.git(&["add", ".gate/policy.yaml"]);
    let out = repo.git_may_fail(&["commit", "-q", "-m", "readme"]);
    assert!(!out.status.success(), "{}", show(&out));
    // gate check names the key and both values, and where the policy came from.
    let out = repo
        .gate()
        .args(["check", "--staged", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let doc = json(&out);
    assert!(revision(&doc).starts_with("HEAD ("), "{doc:#}");
    let scope = &doc["checks"][0];
    assert_eq!(scope["mode"], "required", "{doc:#}");
    let loosened: Vec<&serde_json::Value> = scope["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["cause"] == "policy_loosened")
        .collect();
    assert!(!loosened.is_empty(), "{doc:#}");
    assert_eq!(loosened[0]["key"], "scope");
    assert!(
        loosened[0]["message"]
            .as_str()
            .unwrap()
            .contains("off where HEAD"),
        "{doc:#}"
    );
}

#[test]
fn an_uncommitted_tightening_applies_at_once() {
    let repo = plan_repo("advisory");
    start_42(&repo);
    repo.write(
        ".gate/policy.yaml",
        crate::fixture::policy("advisory").replace("scope: advisory", "scope: required"),
    );
    repo.write("README.md", "# out of scope\n");
    repo.git(&["add", "README.md"]);
    let out = repo
        .gate()
        .args(["check", "--staged", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let doc = json(&out);
    assert!(
        revision(&doc).contains("tightened by the work tree"),
        "{doc:#}"
    );
    assert!(!causes(&doc).contains(&"policy_loosened".to_string()));
}

/// A source with T-1 (scope src/**) under a required policy, and a
/// "pull request" branch `pr` whose tip loosens the policy and touches
/// README.md; a fresh clone of it, checked out at the PR tip.
fn pr_clone() -> (TestRepo, std::path::PathBuf, String) {
    let (source, _) = crate::provenance::task_repo("required", "refuse", &[]);
    let main = source.head();
    source.git(&["checkout", "-q", "-b", "pr"]);
    source.write(".gate/policy.yaml", LOOSE);
    source.write("README.md", "# out of scope\n");
    source.commit_all("loosen and slip in\n\nTask: T-1");
    let dir = source.scratch("ci");
    let url = format!("file://{}", source.path().display());
    source.git(&["clone", "-q", "-b", "pr", &url, dir.to_str().unwrap()]);
    (source, dir, main)
}

#[test]
fn ci_judges_a_pull_request_by_its_base_policy_not_the_tip_s() {
    let (source, dir, main) = pr_clone();
    let out = gate_at(
        &source,
        &dir,
        &["check", "--range", &format!("{main}..HEAD"), "--json"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let doc = json(&out);
    assert!(revision(&doc).starts_with("the range's base ("), "{doc:#}");
    let causes = causes(&doc);
    assert!(
        causes.contains(&"path_outside_scope".to_string()),
        "{doc:#}"
    );
    assert!(causes.contains(&"policy_changed".to_string()), "{doc:#}");
    // --policy-from overrides; one that does not resolve is unknown.
    let out = gate_at(
        &source,
        &dir,
        &[
            "check",
            "--range",
            &format!("{main}..HEAD"),
            "--policy-from",
            "origin/main",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let out = gate_at(
        &source,
        &dir,
        &[
            "check",
            "--range",
            &format!("{main}..HEAD"),
            "--policy-from",
            "no-such-rev",
        ],
    );
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert!(said(&out).contains("--policy-from `no-such-rev` does not resolve"));
}

#[test]
fn a_bare_repository_with_an_unborn_head_is_unknown() {
    let (source, dir, main) = pr_clone();
    let bare = TestRepo::bare();
    source.git_in(&dir, &["push", "-q", bare.path().to_str().unwrap(), "pr"]);
    let out = gate_at(
        &source,
        bare.path(),
        &["check", "--range", &format!("{main}..refs/heads/pr")],
    );
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert!(said(&out).contains("HEAD has no commit"), "{}", show(&out));
    // Named explicitly, it judges.
    let out = gate_at(
        &source,
        bare.path(),
        &[
            "check",
            "--range",
            &format!("{main}..refs/heads/pr"),
            "--policy-from",
            &main,
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
}

#[test]
fn pre_push_judges_by_the_remote_s_policy_and_reports_the_change() {
    let (repo, remote) = trust_repo(true);
    let before = remote.git(&["rev-parse", "refs/heads/main"]);
    repo.write(".gate/policy.yaml", LOOSE);
    repo.write("README.md", "# out of scope\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "loosen\n\nTask: T-42"]);
    let out = repo.git_may_fail(&["push", "origin", "main"]);
    assert!(!out.status.success(), "{}", show(&out));
    let text = said(&out);
    assert!(text.contains("path_outside_scope"), "{text}");
    assert!(text.contains("policy_changed"), "{text}");
    assert!(text.contains("from origin/main ("), "{text}");
    assert_eq!(remote.git(&["rev-parse", "refs/heads/main"]), before);
}

/// A branch whose last commit removes `.gate/` is still judged at the push
/// when the remote has gate's files: the hooks' silence (for repositories
/// gate never saw) is not a door the judged commit can open.
#[test]
fn a_commit_removing_the_gate_files_does_not_silence_pre_push() {
    let (repo, remote) = trust_repo(true);
    // A clone with no gate state of its own: only the remote says gate governs.
    std::fs::remove_dir_all(repo.abs(b".git/gate")).unwrap();
    repo.git(&["rm", "-q", "-r", ".gate"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "no more gate"]);
    let out = repo.git_may_fail(&["push", "-q", "origin", "main"]);
    assert!(!out.status.success(), "{}", show(&out));
    assert_ne!(
        remote.git(&["rev-parse", "main"]),
        repo.git(&["rev-parse", "main"]),
        "the push was refused"
    );
}

#[test]
fn a_policy_or_plan_that_is_a_directory_at_the_judging_revision_is_unknown() {
    // The base holds .gate/policy.yaml as a directory: no policy is not the
    // embedded default there, it is a policy that cannot be read.
    let repo = TestRepo::new();
    repo.write(".gate/policy.yaml/x", "not a policy\n");
    repo.write("README.md", "# demo\n");
    let base = repo.commit_all("a directory where the policy goes");
    repo.write("src/a.rs", "a\n");
    repo.commit_all("work");
    let out = repo
        .gate()
        .args(["check", "--range", &format!("{base}..HEAD"), "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("is a directory at that commit"),
        "{}",
        show(&out)
    );
    // The same for the plan: a range judged by a base whose plan is a
    // directory cannot tell what the range must prove.
    let repo = plan_repo("required");
    repo.write(
        ".gate/policy.yaml",
        "version: 1\nbinding: off\nscope: off\nprovenance:\n  mode: off\n  merges: refuse\nreceipts:\n  mode: required\n  trust: any-pusher\nbrief:\n  mode: off\n",
    );
    repo.git(&["rm", "-q", ".gate/plan.yaml"]);
    repo.write(".gate/plan.yaml/x", "not a plan\n");
    let base = repo.commit_all("a directory where the plan goes");
    repo.write("src/a.rs", "a\n");
    repo.commit_all("work\n\nTask: T-1");
    let out = repo
        .gate()
        .args([
            "check",
            "--range",
            &format!("{base}..HEAD"),
            "--only",
            "receipts",
            "--json",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("a directory, not a file"), "{}", show(&out));
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
}

#[test]
fn a_hand_written_scope_entry_does_not_ride_in_on_a_task_files_only_commit() {
    let (repo, _remote) = trust_repo(true);
    // An entry that looks like `gate task scope add`'s, which this clone
    // has no record of: written by hand.
    let out = repo
        .gate()
        .args(["task", "scope", "add", "README.md", "--because", "By hand."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    std::fs::remove_file(repo.path().join(".git/gate/recorded/T-42.scope")).unwrap();
    // No task active (as after a detached checkout): a commit of task files
    // only passes when each is changed as its own task may. This one widens
    // the scope with an entry nothing recorded: it does not.
    std::fs::remove_file(repo.path().join(".git/gate/active")).unwrap();
    repo.git(&["add", TASK]);
    let out = repo.git_may_fail(&["commit", "-q", "-m", "task file"]);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(said(&out).contains("no_active_task"), "{}", show(&out));
}
