//! The pre-push hook with real `git push`es to local bare remotes, the hook
//! installed by `gate install`; and its stdin fed directly.

use std::process::Output;

use crate::fixture::show;
use crate::golden::{assert_golden, transcript};
use crate::provenance::{activate, task_repo, write_task};
use crate::support::TestRepo;

/// A repository with task T-1 (scope `src/**`) active, hooks installed, a
/// bare remote `origin` holding `main`: the initial commit, which predates
/// gate, pushed before the hooks were installed, then T-1's start pushed
/// through the hook.
fn pushing_repo() -> (TestRepo, TestRepo, String) {
    let (repo, base) = task_repo("required", "refuse", &[]);
    let remote = TestRepo::bare();
    add_remote(&repo, "origin", &remote);
    repo.git(&["push", "-q", "origin", &format!("{base}:refs/heads/main")]);
    let out = repo.gate().arg("install").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = push(&repo, &["origin", "main"]);
    assert!(out.status.success(), "{}", show(&out));
    (repo, remote, base)
}

fn add_remote(repo: &TestRepo, name: &str, remote: &TestRepo) {
    repo.git(&[
        "remote",
        "add",
        name,
        remote.path().to_str().expect("utf-8"),
    ]);
}

fn push(repo: &TestRepo, args: &[&str]) -> Output {
    let mut all = vec!["push"];
    all.extend_from_slice(args);
    repo.git_may_fail(&all)
}

/// Commit everything without gate's commit hooks: these tests make work
/// that is meant to be stopped at the push.
fn commit(repo: &TestRepo, message: &str) -> String {
    repo.git(&["add", "-A"]);
    // Exactly this message: `--no-verify` skips pre-commit but not
    // prepare-commit-msg, which would add the active task's trailer.
    repo.git(&[
        "-c",
        "core.hooksPath=/dev/null",
        "commit",
        "-q",
        "--no-verify",
        "--allow-empty",
        "-m",
        message,
    ]);
    repo.head()
}

/// `git checkout`, then T-1 active again: post-checkout clears the active
/// task on a branch no task was started on.
fn checkout(repo: &TestRepo, args: &[&str]) {
    let mut all = vec!["checkout"];
    all.extend_from_slice(args);
    repo.git(&all);
    activate(repo, "T-1");
}

/// What the hook printed (git shows hook output on stderr).
fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The commit a ref names in `remote`, if any.
fn remote_ref(remote: &TestRepo, name: &str) -> Option<String> {
    let out = remote.git_may_fail(&["rev-parse", "--verify", "-q", name]);
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[test]
fn an_in_scope_push_succeeds() {
    let (repo, remote, _) = pushing_repo();
    repo.write("src/b.rs", "b\n");
    let head = commit(&repo, "b\n\nTask: T-1");
    let out = push(&repo, &["origin", "main"]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        said(&out).contains("gate hook pre-push: pass"),
        "{}",
        show(&out)
    );
    assert_eq!(remote_ref(&remote, "refs/heads/main"), Some(head));
}

#[test]
fn an_out_of_scope_push_is_refused_and_the_remote_is_unchanged() {
    let (repo, remote, _) = pushing_repo();
    let before = remote_ref(&remote, "refs/heads/main");
    repo.write("README.md", "# out of scope\n");
    let bad = commit(&repo, "readme\n\nTask: T-1");
    let out = push(&repo, &["origin", "main"]);
    assert!(!out.status.success(), "{}", show(&out));
    let text = said(&out);
    for needle in [
        "refs/heads/main",
        &bad[..12],
        "README.md",
        "path_outside_scope",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
    assert_eq!(remote_ref(&remote, "refs/heads/main"), before);
}

#[test]
fn every_ref_of_a_multi_ref_push_is_checked() {
    let (repo, remote, _) = pushing_repo();
    checkout(&repo, &["-q", "-b", "a"]);
    repo.write("docs/a.md", "a\n");
    let bad_a = commit(&repo, "a\n\nTask: T-1");
    checkout(&repo, &["-q", "-b", "b", "main"]);
    repo.write("src/b.rs", "b\n");
    commit(&repo, "b in scope\n\nTask: T-1");
    checkout(&repo, &["-q", "-b", "c", "main"]);
    repo.write("README.md", "c\n");
    let bad_c = commit(&repo, "c\n\nTask: T-1");
    let out = push(&repo, &["origin", "a", "b", "c"]);
    assert!(!out.status.success(), "{}", show(&out));
    let text = said(&out);
    for needle in [
        "refs/heads/a",
        "refs/heads/b",
        "refs/heads/c",
        &bad_a[..12],
        &bad_c[..12],
        "docs/a.md",
        "README.md",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
    for r in ["refs/heads/a", "refs/heads/b", "refs/heads/c"] {
        assert_eq!(remote_ref(&remote, r), None, "{r} pushed");
    }
}

#[test]
fn deleting_a_remote_branch_proves_nothing_and_says_so() {
    let (repo, remote, _) = pushing_repo();
    let out = push(&repo, &["origin", "main:refs/heads/gone"]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(remote_ref(&remote, "refs/heads/gone").is_some());
    let out = push(&repo, &["origin", "--delete", "gone"]);
    assert!(out.status.success(), "{}", show(&out));
    let text = said(&out);
    assert!(text.contains("refs/heads/gone: deleted"), "{text}");
    assert!(text.contains("nothing to prove"), "{text}");
    assert_eq!(remote_ref(&remote, "refs/heads/gone"), None);
}

#[test]
fn a_new_branch_is_proved_by_the_commits_on_none_of_that_remotes_refs() {
    let (repo, _origin, base) = pushing_repo();
    let backup = TestRepo::bare();
    add_remote(&repo, "backup", &backup);
    checkout(&repo, &["-q", "-b", "feature"]);
    repo.write("src/f.rs", "f\n");
    commit(&repo, "f\n\nTask: T-1");
    // origin holds main: the one commit after it, whatever the task's
    // baseline (docs/provenance.md#pre-push).
    let out = push(&repo, &["origin", "feature"]);
    assert!(out.status.success(), "{}", show(&out));
    let text = said(&out);
    assert!(
        text.contains("proving the commits on none of origin's refs"),
        "{text}"
    );
    assert!(
        text.contains("1 commit in feature → origin refs/heads/feature: 1 attributed to a task"),
        "{text}"
    );
    // No active task: the same.
    std::fs::remove_file(crate::fixture::git_path(&repo, "gate/active")).unwrap();
    repo.git(&["checkout", "-q", "-b", "feature2"]);
    repo.write("src/g.rs", "g\n");
    commit(&repo, "g\n\nTask: T-1");
    let out = push(&repo, &["origin", "feature2"]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        said(&out).contains("1 commit in feature2 → origin refs/heads/feature2"),
        "{}",
        show(&out)
    );
    // backup holds nothing: every commit, the untrailered initial one too.
    // The range adds T-1's file, but the initial commit is T-1's baseline:
    // made before T-1, it is no task's work.
    let out = push(&repo, &["backup", "feature2"]);
    assert!(!out.status.success(), "{}", show(&out));
    let text = said(&out);
    assert!(
        text.contains(&format!(
            "the whole history, 4 commits in feature2 → backup refs/heads/feature2: 3 attributed to a task, 1 unattributed ({})",
            &base[..12]
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{} precedes the baseline of task T-1",
            &base[..12]
        )),
        "{text}"
    );
}

#[test]
fn a_force_push_is_noted_and_proves_what_the_remote_lacks() {
    let (repo, remote, _) = pushing_repo();
    repo.write("src/b.rs", "b\n");
    commit(&repo, "b\n\nTask: T-1");
    assert!(push(&repo, &["origin", "main"]).status.success());
    repo.write("src/b.rs", "b, amended\n");
    repo.git(&[
        "commit",
        "-q",
        "--amend",
        "-a",
        "-m",
        "b again\n\nTask: T-1",
    ]);
    let head = repo.head();
    let out = push(&repo, &["--force", "origin", "main"]);
    assert!(out.status.success(), "{}", show(&out));
    let text = said(&out);
    assert!(text.contains("not a fast-forward"), "{text}");
    assert!(
        text.contains("1 commit in main → origin refs/heads/main"),
        "{text}"
    );
    assert_eq!(remote_ref(&remote, "refs/heads/main"), Some(head));
}

#[test]
fn a_push_that_adds_no_commit_is_info() {
    let (repo, remote, _) = pushing_repo();
    std::fs::remove_file(crate::fixture::git_path(&repo, "gate/active")).unwrap();
    let out = push(&repo, &["origin", "main:refs/heads/copy"]);
    assert!(out.status.success(), "{}", show(&out));
    let text = said(&out);
    assert!(text.contains("empty_range"), "{text}");
    assert!(text.contains("nothing new to prove"), "{text}");
    assert_eq!(remote_ref(&remote, "refs/heads/copy"), Some(repo.head()));
}

#[test]
fn tags_are_proved_by_the_commit_they_name() {
    let (repo, remote, _) = pushing_repo();
    repo.write("src/t.rs", "t\n");
    commit(&repo, "t\n\nTask: T-1");
    repo.git(&["tag", "-a", "v1", "-m", "version 1"]);
    repo.git(&["tag", "light"]);
    let out = push(&repo, &["origin", "main", "v1", "light"]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(remote_ref(&remote, "refs/tags/v1").is_some());
    // A tag on out-of-scope work is refused like a branch.
    repo.write("README.md", "tagged\n");
    let bad = commit(&repo, "readme\n\nTask: T-1");
    repo.git(&["tag", "-a", "v2", "-m", "version 2"]);
    let out = push(&repo, &["origin", "v2"]);
    assert!(!out.status.success(), "{}", show(&out));
    let text = said(&out);
    assert!(
        text.contains("refs/tags/v2") && text.contains(&bad[..12]),
        "{text}"
    );
}

#[test]
fn pushing_to_a_url_works_like_a_remote() {
    let (repo, remote, _) = pushing_repo();
    let url = format!("file://{}", remote.path().display());
    repo.write("src/u.rs", "u\n");
    let head = commit(&repo, "u\n\nTask: T-1");
    let out = push(&repo, &[&url, "main"]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(remote_ref(&remote, "refs/heads/main"), Some(head.clone()));
    repo.write("docs/x.md", "out of scope\n");
    commit(&repo, "docs\n\nTask: T-1");
    let out = push(&repo, &[&url, "main"]);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(said(&out).contains("docs/x.md"), "{}", show(&out));
    assert_eq!(remote_ref(&remote, "refs/heads/main"), Some(head));
}

// ---------------------------------------------------------------------------
// stdin fed directly.

fn hook(repo: &TestRepo, stdin: &str) -> Output {
    repo.gate()
        .args(["hook", "pre-push", "origin", "file:///nowhere"])
        .write_stdin(stdin.as_bytes().to_vec())
        .output()
        .unwrap()
}

#[test]
fn sha256_length_zero_ids_are_understood() {
    let (repo, base) = task_repo("required", "refuse", &[]);
    // origin holds the initial commit, which predates gate.
    repo.git(&["update-ref", "refs/remotes/origin/main", &base]);
    repo.write("src/b.rs", "b\n");
    let head = commit(&repo, "b\n\nTask: T-1");
    let z64 = "0".repeat(64);
    let input = format!(
        "refs/heads/main {head} refs/heads/main {z64}\n(delete) {z64} refs/heads/old {base}\n"
    );
    let out = hook(&repo, &input);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = said(&out);
    assert!(text.contains("refs/heads/old: deleted"), "{text}");
    assert!(text.contains("2 commits in"), "{text}");
}

#[test]
fn malformed_stdin_is_unknown_with_its_line_number() {
    let (repo, _) = task_repo("required", "refuse", &[]);
    let head = repo.head();
    let z40 = "0".repeat(40);
    let good = format!("refs/heads/main {head} refs/heads/main {z40}\n");
    for (input, line) in [
        (format!("{good}garbage\n"), 2),
        (format!("{good}{good}refs/heads/x {head} refs/heads/x\n"), 3),
        (
            format!("refs/heads/x {} refs/heads/x {z40}\n", "g".repeat(40)),
            1,
        ),
        (
            format!("refs/heads/x {} refs/heads/x {z40}\n", "ab".repeat(32)),
            1,
        ),
        (format!("refs/heads/x  {head} refs/heads/x {z40}\n"), 1),
    ] {
        let out = hook(&repo, &input);
        assert_eq!(out.status.code(), Some(3), "{input:?}\n{}", show(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("line {line}")), "{input:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // Nothing on stdin: nothing pushed, nothing to prove.
    let out = hook(&repo, "");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

#[test]
fn golden_refused_push() {
    let (repo, _remote, base) = pushing_repo();
    write_task(&repo, "T-2", &["docs/**"], &base);
    commit(&repo, "start T-2\n\nTask: T-2");
    activate(&repo, "T-1");
    repo.write("README.md", "# out of scope\n");
    repo.write("src/ok.rs", "ok\n");
    commit(&repo, "readme and ok\n\nTask: T-1");
    repo.write("src/lib2.rs", "by T-2\n");
    commit(&repo, "T-2 strays into src\n\nTask: T-2");
    let out = push(&repo, &["origin", "main"]);
    assert!(!out.status.success(), "{}", show(&out));
    // The hook's report comes through git's stdout; git's own lines on
    // stderr name the remote's temporary path, and are left out.
    assert!(String::from_utf8_lossy(&out.stderr).contains("failed to push"));
    let shown = Output {
        status: out.status,
        stdout: out.stdout.clone(),
        stderr: Vec::new(),
    };
    assert_golden(
        "provenance/push-refused.txt",
        &transcript(Some(&repo), &shown),
    );
}

#[test]
fn an_unreadable_active_task_refuses_the_push_as_unknown() {
    let (repo, remote, _) = pushing_repo();
    repo.write("src/more.rs", "more\n");
    commit(&repo, "more work");
    // The active task's file is broken in the work tree (not committed).
    repo.write(".gate/tasks/T-1.md", "---\nnot: a task\n---\n");
    let out = push(&repo, &["origin", "main"]);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(said(&out).contains("task_unreadable"), "{}", said(&out));
    assert_ne!(remote_ref(&remote, "refs/heads/main"), Some(repo.head()));
}

/// The case: a new branch of six commits, four of them made before
/// its task started (one out of scope, all with --no-verify). Every one is
/// proved, not only those after the task's baseline.
#[test]
fn a_new_branch_proves_the_commits_made_before_its_task_started() {
    let (repo, remote, _) = pushing_repo();
    checkout(&repo, &["-q", "-b", "feature"]);
    repo.write("src/early.rs", "early\n");
    let early = commit(&repo, "early work");
    repo.write("README.md", "# out of scope\n");
    let readme = commit(&repo, "readme");
    repo.write("docs/x.md", "T-1 strays into docs\n");
    let strays = commit(&repo, "docs\n\nTask: T-1");
    repo.write("src/more.rs", "more\n");
    let more = commit(&repo, "more work");
    write_task(&repo, "T-2", &["src/**"], &more);
    commit(&repo, "start T-2\n\nTask: T-2");
    activate(&repo, "T-2");
    repo.write("src/t2.rs", "t2\n");
    commit(&repo, "T-2's work");
    let out = push(&repo, &["origin", "feature"]);
    assert!(!out.status.success(), "{}", show(&out));
    let text = said(&out);
    assert!(
        text.contains(&format!(
            "6 commits in feature → origin refs/heads/feature: 3 attributed to a task, 3 unattributed (oldest {}, newest {})",
            &early[..12],
            &more[..12]
        )),
        "{text}"
    );
    for id in [&early, &readme, &more] {
        assert!(
            text.contains(&format!(
                "refs/heads/feature: {} precedes task T-2's baseline",
                &id[..12]
            )),
            "{text}"
        );
    }
    assert!(
        text.contains(&format!("docs/x.md (modified) in commit {}", &strays[..12])),
        "{text}"
    );
    assert!(text.contains("provenance.upstream"), "{text}");
    assert_eq!(remote_ref(&remote, "refs/heads/feature"), None);
}

/// A push to a remote with no refs proves the whole history: the initial
/// commit predates gate and carries no trailer.
#[test]
fn a_push_to_an_empty_remote_proves_the_whole_history() {
    let (repo, _origin, base) = pushing_repo();
    let backup = TestRepo::bare();
    add_remote(&repo, "backup", &backup);
    let out = push(&repo, &["backup", "main"]);
    assert!(!out.status.success(), "{}", show(&out));
    let text = said(&out);
    assert!(
        text.contains(&format!(
            "the whole history, 2 commits in main → backup refs/heads/main: 1 attributed to a task, 1 unattributed ({})",
            &base[..12]
        )),
        "{text}"
    );
    assert!(text.contains("which has no refs here"), "{text}");
    assert!(text.contains("unattributed_commit"), "{text}");
    assert_eq!(remote_ref(&backup, "refs/heads/main"), None);
    // A URL: no remote-tracking refs say what it holds, so the same.
    let url = format!("file://{}", backup.path().display());
    let out = push(&repo, &[&url, "main"]);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(
        said(&out).contains("the whole history, 2 commits"),
        "{}",
        said(&out)
    );
}

/// The way through the refusal above that is not --no-verify: the history
/// that predates gate is tagged and named as the policy's upstream, so it
/// is imported, and the rest is proved.
#[test]
fn history_that_predates_gate_is_imported_through_a_tag_named_upstream() {
    let (repo, base) = task_repo("required", "refuse", &["upstream: refs/tags/gate-adopted"]);
    repo.git(&["tag", "gate-adopted", &base]);
    let out = repo.gate().arg("install").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let backup = TestRepo::bare();
    add_remote(&repo, "backup", &backup);
    let out = push(&repo, &["backup", "main"]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        said(&out).contains(
            "the whole history, 2 commits in main → backup refs/heads/main (1 imported): 1 attributed to a task"
        ),
        "{}",
        said(&out)
    );
    assert_eq!(remote_ref(&backup, "refs/heads/main"), Some(repo.head()));
    // Work after the adoption point is still proved.
    repo.write("docs/x.md", "out of scope\n");
    commit(&repo, "docs\n\nTask: T-1");
    let out = push(&repo, &["backup", "main"]);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(said(&out).contains("docs/x.md"), "{}", said(&out));
}

#[test]
fn a_branch_is_judged_by_the_policy_of_the_remotes_default_branch() {
    // A clone made by `git remote add` and a push: no origin/HEAD.
    let (repo, base) = task_repo("advisory", "refuse", &[]);
    let remote = TestRepo::bare();
    add_remote(&repo, "origin", &remote);
    repo.git(&["push", "-q", "--no-verify", "origin", "main"]);
    let out = repo.gate().arg("install").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(!repo.git_ok(&["rev-parse", "-q", "--verify", "refs/remotes/origin/HEAD"]));
    // A branch pushed under the advisory policy, out of scope: reported only.
    checkout(&repo, &["-q", "-b", "feat"]);
    repo.write("docs/x.md", "out of scope\n");
    commit(&repo, "docs\n\nTask: T-1");
    let out = push(&repo, &["origin", "feat"]);
    assert!(out.status.success(), "{}", show(&out));
    // The policy becomes required on main, where it is owned.
    checkout(&repo, &["-q", "main"]);
    crate::provenance::write_policy(&repo, "required", "refuse", &[]);
    commit(&repo, "policy: provenance required");
    repo.git(&["push", "-q", "--no-verify", "origin", "main"]);
    // The branch's next push is judged by main's policy, not by the
    // branch's own old remote tip's.
    checkout(&repo, &["-q", "feat"]);
    repo.write("docs/y.md", "out of scope too\n");
    commit(&repo, "more docs\n\nTask: T-1");
    let out = push(&repo, &["origin", "feat"]);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(said(&out).contains("origin/main"), "{}", show(&out));
    let _ = base;
}

#[test]
fn an_unknown_default_branch_is_noted_with_the_command_that_records_it() {
    // origin's default branch is trunk; this clone pushed it, then lost
    // its remote-tracking ref (a single-branch clone has none either), and
    // has no origin/HEAD: only feat's own remote tip says anything.
    let (repo, base) = task_repo("advisory", "refuse", &[]);
    let remote = TestRepo::bare();
    remote.git(&["symbolic-ref", "HEAD", "refs/heads/trunk"]);
    add_remote(&repo, "origin", &remote);
    repo.git(&["push", "-q", "origin", &format!("{base}:refs/heads/trunk")]);
    repo.git(&["update-ref", "-d", "refs/remotes/origin/trunk"]);
    checkout(&repo, &["-q", "-b", "feat"]);
    repo.git(&["push", "-q", "-u", "origin", "feat"]);
    let out = repo.gate().arg("install").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    repo.write("src/b.rs", "b\n");
    commit(&repo, "b\n\nTask: T-1");
    let out = push(&repo, &["origin", "feat"]);
    assert!(out.status.success(), "{}", show(&out));
    let text = said(&out);
    let remedy = "`git fetch origin refs/heads/trunk:refs/remotes/origin/trunk && git remote set-head origin -a` records it";
    assert!(
        text.contains(&format!(
            "note: origin's default branch is not known here (refs/remotes/origin/HEAD is not set; its HEAD names trunk, which this clone has not fetched): judged by the policy of origin/feat; {remedy}"
        )),
        "{text}"
    );
    // The command it names, run as printed, records it: the next push
    // meets trunk's policy and says nothing of it.
    let command = remedy.split('`').nth(1).unwrap();
    for step in command.split(" && ") {
        let words: Vec<&str> = step.split_whitespace().collect();
        repo.git(&words[1..]);
    }
    assert_eq!(
        repo.git(&["symbolic-ref", "refs/remotes/origin/HEAD"])
            .trim(),
        "refs/remotes/origin/trunk"
    );
    repo.write("src/c.rs", "c\n");
    commit(&repo, "c\n\nTask: T-1");
    let out = push(&repo, &["origin", "feat"]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(!said(&out).contains("default branch"), "{}", show(&out));
    assert!(
        said(&out).contains("gate hook pre-push: pass"),
        "{}",
        show(&out)
    );
}
