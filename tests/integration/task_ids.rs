//! Task ids that never collide (docs/tasks.md, decision 0024): two starts
//! for one issue — on two branches, in two clones — get two ids, merging
//! their work conflicts on no task file, an id a remote-tracking branch
//! holds is never reused, and local state kept under an id is never read
//! as another task's.

use crate::fixture::{plan_repo, show, start};
use crate::start_task::{assert_fresh, fresh_id};
use crate::support::TestRepo;

/// `start` with the fresh parts of default ids drawn from `entropy` alone
/// (`GATE_TEST_ID_ENTROPY`, debug builds): two such starts draw alike.
fn start_drawn(repo: &TestRepo, entropy: &str, args: &[&str]) -> std::process::Output {
    let mut all = vec!["start"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--brief", "-"]);
    repo.gate()
        .env("GATE_TEST_ID_ENTROPY", entropy)
        .args(&all)
        .write_stdin("Add CSV export.\n")
        .output()
        .unwrap()
}

/// Commit the work tree with the task's trailer.
fn commit_task(repo: &TestRepo, id: &str, what: &str) {
    repo.git(&["add", "-A"]);
    repo.git(&[
        "commit",
        "-q",
        "--no-verify",
        "-m",
        &format!("{what}\n\nTask: {id}"),
    ]);
}

/// A clone of `remote` (its main checked out), with `user.name` set.
fn clone_of(remote: &TestRepo) -> TestRepo {
    let clone = TestRepo::new();
    clone.git(&["config", "user.name", "Test Operator"]);
    let url = remote.path().to_str().unwrap();
    clone.git(&["remote", "add", "origin", url]);
    clone.git(&["fetch", "-q", "origin"]);
    clone.git(&["checkout", "-q", "-B", "main", "origin/main"]);
    clone
}

/// [`plan_repo`] pushed to a bare remote; the remote.
fn published() -> (TestRepo, TestRepo) {
    let repo = plan_repo("advisory");
    let remote = TestRepo::bare();
    let url = remote.path().to_str().unwrap();
    repo.git(&["remote", "add", "origin", url]);
    repo.git(&["push", "-q", "--no-verify", "origin", "main"]);
    (repo, remote)
}

/// The task files a commit's tree holds.
fn task_files(repo: &TestRepo, rev: &str) -> Vec<String> {
    repo.git(&["ls-tree", "--name-only", rev, ".gate/tasks/"])
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn two_branches_starting_one_issue_get_two_ids_and_merge_cleanly() {
    let repo = plan_repo("advisory");
    let mut ids = Vec::new();
    for branch in ["a", "b"] {
        repo.git(&["switch", "-q", "-c", branch, "main"]);
        let out = start(&repo, &["--issue", "42"], "Add CSV export.\n");
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let id = fresh_id(&repo, "T-42");
        repo.write(&format!("src/export/{branch}.rs"), "// csv\n");
        commit_task(&repo, &id, &format!("export: {branch}"));
        ids.push(id);
    }
    assert_ne!(ids[0], ids[1]);
    // On b, whose tree never held a's task file, a's id was still seen.
    let out = repo.git_may_fail(&["merge", "-q", "--no-edit", "a"]);
    assert!(out.status.success(), "{}", show(&out));
    let mut want: Vec<String> = ids.iter().map(|i| format!(".gate/tasks/{i}.md")).collect();
    want.sort();
    assert_eq!(task_files(&repo, "HEAD"), want);
}

#[test]
fn two_clones_that_cannot_see_each_other_get_two_ids() {
    let (_repo, remote) = published();
    let (one, two) = (clone_of(&remote), clone_of(&remote));
    let mut ids = Vec::new();
    for (clone, file) in [(&one, "one"), (&two, "two")] {
        let out = start(clone, &["--issue", "42"], "Add CSV export.\n");
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let id = fresh_id(clone, "T-42");
        clone.write(&format!("src/export/{file}.rs"), "// csv\n");
        commit_task(clone, &id, file);
        ids.push(id);
    }
    assert_ne!(ids[0], ids[1]);
    // The first pushes; the second pulls its work in without a conflict.
    one.git(&["push", "-q", "--no-verify", "origin", "main"]);
    two.git(&["fetch", "-q", "origin"]);
    let out = two.git_may_fail(&["merge", "-q", "--no-edit", "origin/main"]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(task_files(&two, "HEAD").len(), 2);
}

#[test]
fn an_id_only_a_remote_tracking_branch_holds_is_never_reused() {
    let (_repo, remote) = published();
    let (one, two) = (clone_of(&remote), clone_of(&remote));
    // The same draws in both clones: the first draw is one's id.
    one.git(&["switch", "-q", "-c", "other"]);
    let out = start_drawn(&one, "fixed", &["--issue", "42"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let taken = fresh_id(&one, "T-42");
    commit_task(&one, &taken, "start");
    one.git(&["push", "-q", "--no-verify", "origin", "other"]);
    two.git(&["fetch", "-q", "origin"]);
    // In two, the id is on origin/other only: no branch, no file, no state.
    assert!(!two.path().join(format!(".gate/tasks/{taken}.md")).exists());
    assert!(!two.git_ok(&["rev-parse", "-q", "--verify", "refs/heads/other"]));
    let out = start_drawn(&two, "fixed", &["--issue", "42"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let id = fresh_id(&two, "T-42");
    assert_ne!(id, taken, "the first draw was taken on origin/other");
    // Named explicitly, it is refused with where it was seen; nothing is
    // written.
    let out = start(&two, &["--issue", "42", "--id", &taken], "b\n");
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "task id `{taken}` is taken: .gate/tasks/{taken}.md is committed at refs/remotes/origin/other"
        )),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    assert!(!two.path().join(format!(".gate/tasks/{taken}.md")).exists());
    // Without the remote-tracking ref the same draw is free again: the
    // ref was what kept it taken.
    two.git(&["update-ref", "-d", "refs/remotes/origin/other"]);
    let out = start_drawn(&two, "fixed", &["--issue", "42"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(fresh_id(&two, "T-42"), taken);
}

#[test]
fn an_id_on_a_local_branch_is_refused_by_name() {
    let repo = plan_repo("advisory");
    repo.git(&["switch", "-q", "-c", "side"]);
    let out = start(&repo, &["--issue", "42", "--id", "T-side"], "b\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    commit_task(&repo, "T-side", "start");
    repo.git(&["switch", "-q", "main"]);
    assert!(!repo.path().join(".gate/tasks/T-side.md").exists());
    // Its local state would refuse it too: take that away, so the branch
    // is what is asked.
    for state in ["started/T-side", "recorded/T-side.md"] {
        std::fs::remove_file(repo.path().join(".git/gate").join(state)).unwrap();
    }
    let out = start(&repo, &["--issue", "42", "--id", "T-side"], "b\n");
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(".gate/tasks/T-side.md is committed at refs/heads/side"),
        "{err}"
    );
}

#[test]
fn a_default_id_is_drawn_again_where_it_is_taken() {
    let repo = plan_repo("advisory");
    let out = start_drawn(&repo, "fixed", &["--issue", "42"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let first = fresh_id(&repo, "T-42");
    // The same draws: the first is in the work tree, so the second is taken.
    let out = start_drawn(&repo, "fixed", &["--issue", "42"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let second = fresh_id(&repo, "T-42");
    assert_ne!(first, second);
    assert_fresh(&second, "T-42");
}

/// Two people started the same explicit id before either saw the other's;
/// the other's task file reached this clone by merge. This clone's local
/// state for the id (a scope entry it recorded) is its own task's, and is
/// not read as the merged task's.
#[test]
fn local_state_under_an_id_is_never_read_as_another_tasks() {
    let (_repo, remote) = published();
    let (mine, theirs) = (clone_of(&remote), clone_of(&remote));
    let out = start(&theirs, &["--issue", "42", "--id", "T-shared"], "theirs\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    commit_task(&theirs, "T-shared", "their start");
    theirs.git(&["push", "-q", "--no-verify", "origin", "main"]);
    // Mine, started before fetching, on a commit of its own.
    mine.write("notes.txt", "mine\n");
    mine.commit_all("mine first");
    let out = start(&mine, &["--issue", "42", "--id", "T-shared"], "mine\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = mine
        .gate()
        .args(["task", "scope", "add", "README.md", "--because", "mine"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    // My task file was never committed: I take theirs.
    std::fs::remove_file(mine.path().join(".gate/tasks/T-shared.md")).unwrap();
    mine.git(&["pull", "-q", "--no-rebase", "origin", "main"]);
    mine.write("README.md", "# demo, changed\n");
    let out = mine
        .gate()
        .args(["check", "--only", "scope", "--json"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let causes = crate::fixture::all_causes(&doc);
    assert_eq!(causes, ["path_outside_scope"], "{doc:#}");
    let notes = doc["notes"].to_string();
    assert!(
        notes.contains("is not the task T-shared this clone started"),
        "{doc:#}"
    );
}
