//! The `prepare-commit-msg` hook `gate install` adds: every commit made
//! while a task is active names it (`Task: <id>`), however the message was
//! given — `-m`, `-F`, a template, the editor, `--amend` — unless it already
//! carries the trailer; a merge's message is left alone. The oracle for
//! "names it" is git's own trailer parser (`git interpret-trailers --parse`).

use std::os::unix::fs::PermissionsExt;
use std::process::Output;

use crate::fixture::{plan_repo, show, start, start_42};
use crate::support::{self, TestRepo};

/// Run git in the repository with the isolated environment; it must succeed.
fn git_ok(repo: &TestRepo, args: &[&str], envs: &[(&str, &str)]) -> Output {
    let mut cmd = support::git_command(repo.path());
    cmd.args(args);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run git");
    assert!(out.status.success(), "git {args:?}: {}", show(&out));
    out
}

fn install(repo: &TestRepo) {
    let out = repo.gate().arg("install").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

/// HEAD's whole message.
fn message(repo: &TestRepo) -> String {
    repo.git(&["log", "-1", "--format=%B"])
}

/// HEAD's trailers as git parses them.
fn trailers(repo: &TestRepo) -> String {
    let msg = message(repo);
    let file = repo.scratch("msg");
    std::fs::write(&file, &msg).unwrap();
    repo.git(&["interpret-trailers", "--parse", file.to_str().unwrap()])
}

/// A repository with gate's hooks and task T-42 active, and an in-scope edit
/// staged.
fn working_repo() -> TestRepo {
    let repo = plan_repo("required");
    install(&repo);
    start_42(&repo);
    edit(&repo, "one");
    repo
}

fn edit(repo: &TestRepo, what: &str) {
    repo.write("src/export/mod.rs", format!("// export {what}\n"));
    repo.git(&["add", "src/export/mod.rs"]);
}

#[test]
fn commit_m_names_the_active_task_in_a_trailer() {
    let repo = working_repo();
    git_ok(&repo, &["commit", "-q", "-m", "Add the CSV writer"], &[]);
    assert_eq!(message(&repo), "Add the CSV writer\n\nTask: T-42\n\n");
    assert_eq!(trailers(&repo), "Task: T-42\n");
}

#[test]
fn commit_f_joins_an_existing_trailer_block() {
    let repo = working_repo();
    let file = repo.scratch("message");
    std::fs::write(
        &file,
        "Add the CSV writer\n\nSigned-off-by: Test Author <a@x>\n",
    )
    .unwrap();
    git_ok(&repo, &["commit", "-q", "-F", file.to_str().unwrap()], &[]);
    assert_eq!(
        trailers(&repo),
        "Signed-off-by: Test Author <a@x>\nTask: T-42\n"
    );
}

#[test]
fn a_message_that_names_a_task_is_left_as_written() {
    let repo = working_repo();
    git_ok(
        &repo,
        &[
            "commit",
            "-q",
            "-m",
            "Add the CSV writer",
            "-m",
            "Task: T-7",
        ],
        &[],
    );
    assert_eq!(trailers(&repo), "Task: T-7\n");
}

#[test]
fn the_editor_sees_the_trailer_above_the_comments_and_keeps_it() {
    let repo = working_repo();
    // An editor that writes the title on the first line, as a person would.
    let editor = repo.scratch("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\ncp \"$1\" \"$1.seen\"\n{ printf 'Edited title'; cat \"$1.seen\"; } >\"$1\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    let template = repo.scratch("template");
    std::fs::write(&template, "\n# Say why.\n").unwrap();
    git_ok(
        &repo,
        &["commit", "-q", "-t", template.to_str().unwrap()],
        &[("GIT_EDITOR", editor.to_str().unwrap())],
    );
    let seen = std::fs::read_to_string(repo.path().join(".git/COMMIT_EDITMSG.seen")).unwrap();
    assert!(seen.starts_with("\n\nTask: T-42\n"), "{seen}");
    assert_eq!(message(&repo), "Edited title\n\nTask: T-42\n\n");
}

#[test]
fn amend_adds_the_trailer_once() {
    let repo = plan_repo("advisory");
    install(&repo);
    // Made before any task: nothing to name.
    edit(&repo, "early");
    git_ok(&repo, &["commit", "-q", "-m", "Early work"], &[]);
    assert_eq!(message(&repo), "Early work\n\n");
    start_42(&repo);
    git_ok(&repo, &["commit", "-q", "--amend", "--no-edit"], &[]);
    assert_eq!(message(&repo), "Early work\n\nTask: T-42\n\n");
    git_ok(&repo, &["commit", "-q", "--amend", "--no-edit"], &[]);
    assert_eq!(trailers(&repo), "Task: T-42\n");
}

#[test]
fn a_merge_commit_gets_no_trailer() {
    let repo = plan_repo("advisory");
    install(&repo);
    start_42(&repo);
    repo.git(&["switch", "-q", "-c", "side"]);
    repo.write("docs/export.md", "# Export, side\n");
    git_ok(&repo, &["commit", "-q", "-am", "Side"], &[]);
    repo.git(&["switch", "-q", "main"]);
    // The task is no longer active on main after the checkout: activate it.
    let out = repo
        .gate()
        .args(["task", "switch", "T-42"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    edit(&repo, "main");
    git_ok(&repo, &["commit", "-q", "-m", "Main"], &[]);
    git_ok(&repo, &["merge", "-q", "--no-ff", "--no-edit", "side"], &[]);
    assert_eq!(
        repo.git(&["rev-list", "--parents", "-1", "HEAD"])
            .split(' ')
            .count(),
        3
    );
    assert_eq!(trailers(&repo), "");
    assert!(
        message(&repo).starts_with("Merge branch 'side'"),
        "{}",
        message(&repo)
    );
}

#[test]
fn without_an_active_task_the_message_is_unchanged() {
    let repo = plan_repo("advisory");
    install(&repo);
    edit(&repo, "x");
    git_ok(&repo, &["commit", "-q", "-m", "Plain"], &[]);
    assert_eq!(message(&repo), "Plain\n\n");
}

#[test]
fn hooks_are_silent_in_a_repository_without_gate_files() {
    let repo = TestRepo::new();
    repo.write("README.md", "# demo\n");
    repo.commit_all("initial");
    install(&repo);
    repo.write("README.md", "# changed\n");
    let out = git_ok(&repo, &["commit", "-am", "Change"], &[]);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!all.contains("gate"), "{all}");
    git_ok(&repo, &["switch", "-q", "-c", "other"], &[]);
    let out = git_ok(&repo, &["switch", "main"], &[]);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("gate"),
        "{}",
        show(&out)
    );
    assert_eq!(message(&repo), "Change\n\n");
}

/// git in the repository with the isolated environment, success or not.
fn git_run(repo: &TestRepo, args: &[&str]) -> Output {
    support::git_command(repo.path())
        .args(args)
        .output()
        .expect("run git")
}

/// Both streams, for what a hook said (git hands a hook's stdout to stderr).
fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Under `required`: T-42's commit at HEAD, then task T-7 (docs/**) made
/// active on the same branch.
fn head_is_t42_s_and_t7_is_active() -> TestRepo {
    let repo = working_repo();
    repo.git(&["add", "-A"]);
    git_ok(&repo, &["commit", "-q", "-m", "Add the CSV writer"], &[]);
    assert_eq!(trailers(&repo), "Task: T-42\n");
    let out = start(
        &repo,
        &["--issue", "7", "--id", "T-7"],
        "Fix the typos in the docs.\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    repo
}

#[test]
fn amending_another_task_s_commit_names_its_task_and_the_switch_gets_it_through() {
    let repo = head_is_t42_s_and_t7_is_active();
    let head = repo.head();
    // More of T-42's work, amended into its commit while T-7 is active.
    edit(&repo, "two");
    let out = git_run(&repo, &["commit", "-q", "--amend", "--no-edit"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(repo.head(), head, "the refused amend happened");
    let text = said(&out);
    assert!(text.contains("path_outside_scope"), "{text}");
    assert!(
        text.contains("HEAD's commit is task T-42's") && text.contains("(`gate task switch T-42`)"),
        "{text}"
    );
    // The remedy, as printed, gets the amend through: T-42's still.
    let out = repo
        .gate()
        .args(["task", "switch", "T-42"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    git_ok(&repo, &["commit", "-q", "--amend", "--no-edit"], &[]);
    assert_ne!(repo.head(), head);
    assert_eq!(trailers(&repo), "Task: T-42\n");
    assert_eq!(
        repo.git(&["show", "HEAD:src/export/mod.rs"]),
        "// export two\n"
    );
}

#[test]
fn a_path_head_s_task_does_not_cover_gets_the_usual_remedy() {
    let repo = head_is_t42_s_and_t7_is_active();
    repo.write("README.md", "# changed\n");
    repo.git(&["add", "README.md"]);
    let out = git_run(&repo, &["commit", "-q", "--amend", "--no-edit"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let text = said(&out);
    assert!(text.contains("README.md"), "{text}");
    assert!(!text.contains("gate task switch T-42"), "{text}");
}

#[test]
fn with_no_task_active_an_amend_of_a_task_s_commit_names_the_switch() {
    let repo = working_repo();
    repo.git(&["branch", "side"]);
    repo.git(&["add", "-A"]);
    git_ok(&repo, &["commit", "-q", "-m", "Add the CSV writer"], &[]);
    // An older branch moved to T-42's commit: T-42 was not started there,
    // so no task is active after the checkout.
    repo.git(&["branch", "-f", "side", "HEAD"]);
    git_ok(&repo, &["switch", "-q", "side"], &[]);
    let pointer = repo.gate().args(["task", "list"]).output().unwrap();
    assert!(
        !String::from_utf8_lossy(&pointer.stdout).contains("* T-42"),
        "{}",
        show(&pointer)
    );
    let head = repo.head();
    edit(&repo, "two");
    let out = git_run(&repo, &["commit", "-q", "--amend", "--no-edit"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let text = said(&out);
    assert!(text.contains("no_active_task"), "{text}");
    assert!(text.contains("(`gate task switch T-42`)"), "{text}");
    let out = repo
        .gate()
        .args(["task", "switch", "T-42"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    git_ok(&repo, &["commit", "-q", "--amend", "--no-edit"], &[]);
    assert_ne!(repo.head(), head);
    assert_eq!(trailers(&repo), "Task: T-42\n");
}

#[test]
fn a_reused_message_naming_another_task_says_whose_the_commit_is() {
    let repo = head_is_t42_s_and_t7_is_active();
    // T-7's work (docs/**), amended into T-42's commit: pre-commit passes
    // it under T-7's scope, and the message keeps `Task: T-42`.
    repo.write("docs/guide.md", "# Guide\n");
    repo.git(&["add", "docs/guide.md"]);
    let out = git_ok(&repo, &["commit", "-q", "--amend", "--no-edit"], &[]);
    let text = said(&out);
    assert!(
        text.contains("this commit keeps `Task: T-42`")
            && text.contains("run `gate task switch T-42`")
            && text.contains("change the trailer to `Task: T-7`"),
        "{text}"
    );
    assert_eq!(trailers(&repo), "Task: T-42\n");
    // A new commit with its own message says nothing of the kind.
    repo.write("docs/guide.md", "# Guide 2\n");
    repo.git(&["add", "docs/guide.md"]);
    let out = git_ok(&repo, &["commit", "-q", "-m", "Guide"], &[]);
    assert!(!said(&out).contains("keeps `Task:"), "{}", show(&out));
    assert_eq!(trailers(&repo), "Task: T-7\n");
}
