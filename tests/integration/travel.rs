//! Receipts travel (docs/receipts.md, "Receipts travel"): `gate receipts
//! fetch|push` move `refs/notes/gate` through a real bare remote, merging
//! two machines' notes entry by entry — different checks of one commit both
//! kept, notes of different commits both kept, the latest attempt of a check
//! winning — never overwriting, a lost push race fetched, merged and pushed
//! again, and a remote that refuses the notes reported (exit 3).

use std::os::unix::fs::PermissionsExt;
use std::process::Output;

use serde_json::Value;

use crate::fixture::show;
use crate::golden::{assert_golden, transcript};
use crate::receipts::{receipts_repo, verify_exits};
use crate::support::TestRepo;

/// The checks in the note on `commit` in `repo` (bare or not), as git
/// shows it: `check=passed` each.
pub(crate) fn noted(repo: &TestRepo, commit: &str) -> Vec<String> {
    let text = repo.git(&["notes", "--ref", "gate", "show", commit]);
    let note: Value = serde_json::from_str(&text).unwrap();
    note["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| format!("{}={}", e["check"].as_str().unwrap(), e["passed"]))
        .collect()
}

/// `gate receipts ARGS…` in `repo`.
pub(crate) fn receipts(repo: &TestRepo, args: &[&str]) -> Output {
    let mut all = vec!["receipts"];
    all.extend_from_slice(args);
    repo.gate().args(&all).output().unwrap()
}

/// `gate receipts ARGS…` that must exit 0.
#[track_caller]
pub(crate) fn receipts_ok(repo: &TestRepo, args: &[&str]) -> String {
    let out = receipts(repo, args);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A clone of `remote` (main checked out), able to run the plan's checks.
pub(crate) fn clone_of(remote: &TestRepo) -> TestRepo {
    let repo = TestRepo::new();
    let url = remote.path().to_str().unwrap();
    repo.git(&["remote", "add", "origin", url]);
    repo.git(&["fetch", "-q", "origin"]);
    repo.git(&["checkout", "-q", "-B", "main", "origin/main"]);
    repo.write("ctl/verdict", "pass\n");
    repo
}

/// Machine A (with task T-42) and machine B (a clone of the same commit
/// through the bare remote), both able to run the plan's checks.
fn two_machines() -> (TestRepo, TestRepo, TestRepo) {
    let a = receipts_repo("required");
    let remote = TestRepo::bare();
    a.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
    a.git(&["push", "-q", "--no-verify", "origin", "main"]);
    let b = clone_of(&remote);
    assert_eq!(a.head(), b.head());
    (a, b, remote)
}

#[test]
fn two_machines_notes_on_one_commit_merge_through_a_bare_remote() {
    let (a, b, remote) = two_machines();
    let head = a.head();
    verify_exits(&a, "export-tests", 0);
    verify_exits(&b, "lint", 0);
    let said = receipts_ok(&a, &["push"]);
    assert!(said.contains("refs/notes/gate pushed to origin"), "{said}");
    assert_eq!(noted(&remote, &head), ["export-tests=true"]);
    // B's push fetches A's note first and merges it with its own.
    receipts_ok(&b, &["push", "origin"]);
    assert_eq!(noted(&remote, &head), ["export-tests=true", "lint=true"]);
    assert_eq!(noted(&b, &head), ["export-tests=true", "lint=true"]);
    // The merge is a commit with both sides as parents: the remote's ref
    // moved forward, A's notes commit is in its history.
    let parents = b.git(&["rev-list", "--parents", "-n", "1", "refs/notes/gate"]);
    assert_eq!(parents.split_whitespace().count(), 3, "{parents}");
    // A third clone that never ran a check fetches both.
    let c = clone_of(&remote);
    let said = receipts_ok(&c, &["fetch"]);
    assert!(said.contains("merged into this clone's"), "{said}");
    assert_eq!(noted(&c, &head), ["export-tests=true", "lint=true"]);
    // Fetching again changes nothing.
    let said = receipts_ok(&c, &["fetch"]);
    assert!(said.contains("holds every receipt of origin"), "{said}");
    // A fetches: a fast-forward to the merge.
    receipts_ok(&a, &["fetch"]);
    assert_eq!(a.rev("refs/notes/gate"), b.rev("refs/notes/gate"));
}

#[test]
fn a_pass_never_outweighs_a_failure_on_the_same_content_across_machines() {
    let (a, b, remote) = two_machines();
    let head = a.head();
    // A's run fails; B's, later by the clocks, passes on the same bytes:
    // whichever pushes first, the failure holds, disputed by the pass.
    a.write("ctl/verdict", "fail\n");
    verify_exits(&a, "export-tests", 1);
    verify_exits(&b, "export-tests", 0);
    receipts_ok(&b, &["push"]);
    receipts_ok(&a, &["push"]);
    receipts_ok(&b, &["fetch"]);
    let disputed = |repo: &TestRepo| -> Value {
        let text = repo.git(&["notes", "--ref", "gate", "show", &head]);
        let note: Value = serde_json::from_str(&text).unwrap();
        note["checks"][0]["disputed_by"].clone()
    };
    for repo in [&a, &b, &remote] {
        assert_eq!(noted(repo, &head), ["export-tests=false"]);
        assert!(disputed(repo).is_string(), "no dispute recorded");
    }
    // A new run on B, which holds the dispute, settles it everywhere.
    verify_exits(&b, "export-tests", 0);
    receipts_ok(&b, &["push"]);
    receipts_ok(&a, &["fetch"]);
    for repo in [&a, &b, &remote] {
        assert_eq!(noted(repo, &head), ["export-tests=true"]);
        assert!(disputed(repo).is_null());
    }
    // A later failure on A, made where the pass was known, wins everywhere.
    verify_exits(&a, "export-tests", 1);
    receipts_ok(&a, &["push"]);
    receipts_ok(&b, &["fetch"]);
    for repo in [&a, &b, &remote] {
        assert_eq!(noted(repo, &head), ["export-tests=false"]);
    }
}

#[test]
fn notes_on_different_commits_are_both_kept() {
    let (a, b, remote) = two_machines();
    let base = a.head();
    verify_exits(&a, "export-tests", 0);
    b.write("docs/more.md", "more\n");
    let tip = b.commit_all("docs: more");
    verify_exits(&b, "lint", 0);
    b.git(&["push", "-q", "--no-verify", "origin", "main"]);
    receipts_ok(&b, &["push"]);
    receipts_ok(&a, &["push"]);
    assert_eq!(noted(&remote, &base), ["export-tests=true"]);
    assert_eq!(noted(&remote, &tip), ["lint=true"]);
    receipts_ok(&b, &["fetch"]);
    assert_eq!(noted(&b, &base), ["export-tests=true"]);
    assert_eq!(noted(&b, &tip), ["lint=true"]);
}

/// A `git` on PATH that, at its first `push`, lets `other` push its
/// notes to origin first: the race a push loses when another clone's lands
/// between the merge and the push.
fn racing_git(repo: &TestRepo, other: &TestRepo) -> std::ffi::OsString {
    let real = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let bin = repo.scratch("racing-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let marker = repo.scratch("raced");
    let script = format!(
        "#!/bin/sh\ncase \" $* \" in *\" push \"*) if [ ! -e '{marker}' ]; then : > '{marker}'; (cd '{other}' && '{real}' push -q --no-verify origin refs/notes/gate) >&2 || exit 99; fi;; esac\nexec '{real}' \"$@\"\n",
        marker = marker.display(),
        other = other.path().display(),
        real = real.trim(),
    );
    let git = bin.join("git");
    std::fs::write(&git, script).unwrap();
    std::fs::set_permissions(&git, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut path = std::ffi::OsString::from(&bin);
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    path
}

#[test]
fn a_push_that_loses_a_race_fetches_merges_and_pushes_again() {
    let (a, b, remote) = two_machines();
    let head = a.head();
    verify_exits(&a, "export-tests", 0);
    verify_exits(&b, "lint", 0);
    // B pushes its notes (git's own push) just before A's push: A's is not
    // a fast-forward of what the remote holds then.
    let out = a
        .gate()
        .env("PATH", racing_git(&a, &b))
        .args(["receipts", "push", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(a.scratch("raced").exists(), "the race did not happen");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["outcome"], "pushed", "{doc:#}");
    assert_eq!(doc["tries"], 2, "{doc:#}");
    assert_eq!(noted(&remote, &head), ["export-tests=true", "lint=true"]);
}

#[test]
fn concurrent_pushes_from_four_clones_lose_nothing() {
    let (a, _b, remote) = two_machines();
    let mut clones = vec![a];
    let mut tips = Vec::new();
    for i in 1..4 {
        let c = clone_of(&remote);
        c.write(&format!("docs/c{i}.md"), format!("clone {i}\n"));
        c.git(&["checkout", "-q", "-b", &format!("c{i}")]);
        tips.push(c.commit_all(&format!("docs: clone {i}")));
        c.git(&["push", "-q", "--no-verify", "origin", &format!("c{i}")]);
        clones.push(c);
    }
    tips.insert(0, clones[0].head());
    verify_exits(&clones[0], "export-tests", 0);
    for c in &clones[1..] {
        verify_exits(c, "lint", 0);
    }
    let children: Vec<_> = clones
        .iter()
        .map(|c| {
            std::process::Command::new(assert_cmd::cargo::cargo_bin!("gate"))
                .current_dir(c.path())
                .env_clear()
                .envs(crate::support::git_env())
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .args(["receipts", "push", "--json"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    }
    assert_eq!(noted(&remote, &tips[0]), ["export-tests=true"]);
    for tip in &tips[1..] {
        assert_eq!(noted(&remote, tip), ["lint=true"]);
    }
}

#[test]
fn a_remote_without_notes_is_said_and_a_bare_clone_fetches() {
    let (a, _b, remote) = two_machines();
    let out = receipts(&a, &["fetch"]);
    assert_golden("travel/fetch_none_there.txt", &transcript(Some(&a), &out));
    verify_exits(&a, "export-tests", 0);
    receipts_ok(&a, &["push"]);
    // A server-side or CI bare clone fetches them as well.
    let ci = TestRepo::bare();
    ci.git(&["fetch", "-q", remote.path().to_str().unwrap(), "main:main"]);
    let said = receipts_ok(&ci, &["fetch", remote.path().to_str().unwrap()]);
    assert!(said.contains("merged into this clone's"), "{said}");
    assert_eq!(noted(&ci, &a.head()), ["export-tests=true"]);
}

/// Object ids in a transcript (notes commits carry the time they were
/// made) → `[ID]`.
fn redact_ids(text: &str) -> String {
    let mut out = String::new();
    let mut run = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_hexdigit() && !c.is_ascii_uppercase() {
            run.push(c);
            continue;
        }
        match run.len() {
            12 | 40 => out.push_str("[ID]"),
            _ => out.push_str(&run),
        }
        run.clear();
        out.push(c);
    }
    out.pop();
    out
}

/// `gate.receipts/1`, every field (docs/json.md): a field cannot be
/// added, renamed or dropped without this changing with it.
#[allow(dead_code)]
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ReceiptsDoc {
    schema: String,
    action: String,
    remote: String,
    outcome: String,
    remote_notes: Option<String>,
    local_notes: Option<String>,
    tries: Option<u32>,
}

fn decode(out: &Output) -> ReceiptsDoc {
    let doc: ReceiptsDoc = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not a gate.receipts/1 ({e}):\n{}", show(out)));
    assert_eq!(doc.schema, "gate.receipts/1");
    doc
}

#[test]
fn fetch_and_push_render_as_text_and_json() {
    let (a, b, _remote) = two_machines();
    verify_exits(&a, "export-tests", 0);
    let render = |repo: &TestRepo, args: &[&str]| {
        let out = receipts(repo, args);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        redact_ids(&transcript(Some(repo), &out))
    };
    assert_golden("travel/push.txt", &render(&a, &["push"]));
    assert_golden(
        "travel/push_up_to_date_json.txt",
        &render(&a, &["push", "--json"]),
    );
    assert_golden("travel/fetch_json.txt", &render(&b, &["fetch", "--json"]));
    assert_golden("travel/fetch_held.txt", &render(&b, &["fetch"]));
    let doc = decode(&receipts(&b, &["push", "--json"]));
    assert_eq!(
        (doc.action.as_str(), doc.outcome.as_str(), doc.tries),
        ("push", "up_to_date", Some(1))
    );
    assert_eq!(doc.local_notes, Some(b.rev("refs/notes/gate")));
    let doc = decode(&receipts(&b, &["fetch", "--json"]));
    assert_eq!((doc.outcome.as_str(), doc.tries), ("held", None));
    assert_eq!(doc.remote_notes, Some(b.rev("refs/notes/gate")));
}

#[test]
fn the_default_remote_is_the_current_branch_s() {
    let (a, _b, remote) = two_machines();
    verify_exits(&a, "export-tests", 0);
    // `origin` now names nowhere; the branch's remote is `upstream`.
    a.git(&["remote", "rename", "origin", "upstream"]);
    a.git(&["remote", "add", "origin", "/nonexistent/gate-test-remote"]);
    a.git(&["config", "branch.main.remote", "upstream"]);
    let said = receipts_ok(&a, &["push"]);
    assert!(said.contains("pushed to upstream"), "{said}");
    assert_eq!(noted(&remote, &a.head()), ["export-tests=true"]);
    // Without it, origin: which fails, naming it, exit 3.
    a.git(&["config", "--unset", "branch.main.remote"]);
    let out = receipts(&a, &["fetch"]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("could not be fetched from origin")
            && stderr.contains("gate receipts fetch origin"),
        "{stderr}"
    );
}

/// Make the bare `remote` refuse every `refs/notes/*` in its `pre-receive`
/// hook, saying "notes are not taken here".
fn refuse_notes(remote: &TestRepo) {
    let hook = remote.path().join("hooks/pre-receive");
    std::fs::write(
        &hook,
        "#!/bin/sh\nwhile read old new ref; do case $ref in refs/notes/*) echo \"notes are not taken here\" >&2; exit 1;; esac; done\n",
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_remote_that_refuses_the_notes_is_reported_not_passed() {
    let (a, _b, remote) = two_machines();
    refuse_notes(&remote);
    verify_exits(&a, "export-tests", 0);
    let out = receipts(&a, &["push"]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("origin refused refs/notes/gate")
            && stderr.contains("notes are not taken here")
            && stderr.contains("allow refs/notes/gate there"),
        "{}",
        show(&out)
    );
    assert!(!remote.git_ok(&["rev-parse", "-q", "--verify", "refs/notes/gate"]));
    let out = receipts(&a, &["push", "--json"]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "gate.error/1", "{doc:#}");
    // The branch is still pushable.
    a.git(&["commit", "-q", "--allow-empty", "-m", "more"]);
    a.git(&["push", "-q", "--no-verify", "origin", "main"]);
}

/// A developer's clone with task T-42 (issue 42, evidenced by
/// `export-tests`) committed with its work under receipts `mode`, gate's
/// hooks installed, and a bare remote `origin`; the base the work started
/// from.
fn pushing(mode: &str) -> (TestRepo, TestRepo, String) {
    let dev = receipts_repo(mode);
    let base = dev.head();
    dev.write("src/export/mod.rs", "// export, CSV\n");
    dev.commit_all("export: CSV\n\nTask: T-42");
    let remote = TestRepo::bare();
    dev.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
    let out = dev.gate().arg("install").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    (dev, remote, base)
}

/// `git push ARGS…` with gate's hooks.
fn git_push(repo: &TestRepo, args: &[&str]) -> Output {
    let mut all = vec!["push", "-q"];
    all.extend_from_slice(args);
    repo.git_may_fail(&all)
}

/// In a fresh clone of `remote` that never ran a check: `gate receipts
/// fetch`, then `gate check --range BASE..TIP --json`'s exit code and the
/// causes of its receipts findings.
fn ci_proves(remote: &TestRepo, base: &str) -> (i32, Vec<String>, Value) {
    let ci = clone_of(remote);
    receipts_ok(&ci, &["fetch"]);
    let range = format!("{base}..{}", ci.head());
    let out = ci
        .gate()
        .args(["check", "--range", &range, "--json"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not a report ({e}):\n{}", show(&out)));
    let check = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "receipts")
        .unwrap_or_else(|| panic!("no receipts check in {doc:#}"))
        .clone();
    let causes = check["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["cause"].as_str().unwrap().to_string())
        .collect();
    (out.status.code().unwrap(), causes, check)
}

#[test]
fn a_push_carries_the_receipts_and_a_fresh_clone_proves_them() {
    let (dev, remote, base) = pushing("required");
    verify_exits(&dev, "export-tests", 0);
    // The note `gate verify` attached is dropped: pre-push attaches again
    // from the receipt it recorded.
    dev.git(&["update-ref", "-d", "refs/notes/gate"]);
    let out = git_push(&dev, &["origin", "main"]);
    assert!(out.status.success(), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let tip = dev.head();
    assert!(
        stderr.contains(&format!("gate: receipts: on {}: export-tests", &tip[..12])),
        "{}",
        show(&out)
    );
    // Pushed once: the notes push runs no hook (no recursion).
    assert_eq!(
        stderr.matches("refs/notes/gate pushed to origin").count(),
        1,
        "{}",
        show(&out)
    );
    assert_eq!(noted(&remote, &tip), ["export-tests=true"]);
    let (code, causes, check) = ci_proves(&remote, &base);
    assert_eq!((code, causes), (0, Vec::<String>::new()), "{check:#}");
    assert!(
        check["summary"]
            .as_str()
            .unwrap()
            .starts_with("1 of 1 check proved"),
        "{check:#}"
    );
}

/// A note over the cap (1 MiB) on a pushed commit — anyone can write one,
/// and it travels with a fetch — was read whole by the range check and
/// taken whole by the notes merge. Now its size is read from its header:
/// CI's range check is unknown naming the commit and the cap, and `gate
/// receipts fetch` stops (exit 3) naming the commit, merging nothing and
/// replacing no note of this clone's.
#[test]
fn a_note_over_the_cap_is_unknown_in_ci_and_stops_the_notes_merge() {
    let (dev, remote, base) = pushing("required");
    let tip = dev.head();
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big-note");
    std::fs::write(&big, vec![b'x'; (1 << 20) + 1]).unwrap();
    dev.git(&[
        "notes",
        "--ref",
        "gate",
        "add",
        "-F",
        big.to_str().unwrap(),
        &tip,
    ]);
    dev.git(&[
        "push",
        "-q",
        "--no-verify",
        "origin",
        "main",
        "refs/notes/gate",
    ]);
    let cap = "over the 1048576-byte (1 MiB) cap on a note";

    // A fresh clone: the fetch stops, and takes nothing in.
    let ci = clone_of(&remote);
    let out = receipts(&ci, &["fetch"]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("the note on commit {tip}")) && stderr.contains(cap),
        "{}",
        show(&out)
    );
    assert!(
        stderr.contains("git notes --ref gate remove"),
        "{}",
        show(&out)
    );
    assert!(
        ci.git_may_fail(&["rev-parse", "--verify", "-q", "refs/notes/gate"])
            .stdout
            .is_empty(),
        "nothing merged"
    );

    // A clone with a note of its own on the commit: the merge stops, and
    // its note stays.
    ci.git(&["notes", "--ref", "gate", "add", "-m", "its own", &tip]);
    let out = receipts(&ci, &["fetch", "origin"]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(cap),
        "{}",
        show(&out)
    );
    assert_eq!(
        ci.git(&["notes", "--ref", "gate", "show", &tip]).trim(),
        "its own"
    );

    // CI that took the notes with git itself: the range check is unknown,
    // naming the commit and the cap.
    ci.git(&[
        "fetch",
        "-q",
        "-f",
        "origin",
        "refs/notes/gate:refs/notes/gate",
    ]);
    let range = format!("{base}..{tip}");
    let out = ci
        .gate()
        .args(["check", "--range", &range, "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let receipts_check = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "receipts")
        .unwrap()
        .clone();
    let finding = &receipts_check["findings"][0];
    assert_eq!(finding["cause"], "input_unreadable", "{receipts_check:#}");
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("the note on commit {tip}")) && message.contains(cap),
        "{message}"
    );
}

/// Write `text` into a source of `export-tests` and commit it with
/// `commit_args`, without gate's commit hooks.
fn change_a_source(dev: &TestRepo, text: &str, commit_args: &[&str]) {
    dev.write("src/export/mod.rs", text);
    dev.git(&["add", "-A"]);
    let mut args = vec!["-c", "core.hooksPath=/dev/null", "commit", "-q"];
    args.extend_from_slice(commit_args);
    dev.git(&args);
}

#[test]
fn a_commit_that_changes_a_source_carries_no_receipt_of_the_old_one() {
    let (dev, remote, base) = pushing("advisory");
    verify_exits(&dev, "export-tests", 0);
    assert!(git_push(&dev, &["origin", "main"]).status.success());
    // git copies the note to the amended commit (notes.rewriteRef), whose
    // sources are not what the run saw: pre-push attaches nothing to it,
    // and CI finds the copied note stale.
    dev.git(&["config", "notes.rewriteRef", "refs/notes/gate"]);
    change_a_source(&dev, "// export, CSV, amended\n", &["--amend", "--no-edit"]);
    let out = git_push(&dev, &["-f", "origin", "main"]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("gate: receipts: on"),
        "{}",
        show(&out)
    );
    let (_, causes, check) = ci_proves(&remote, &base);
    assert_eq!(causes, ["receipt_stale"], "{check:#}");
    // A new commit that changes a source, without the note: missing.
    change_a_source(
        &dev,
        "// export, CSV, again\n",
        &["-m", "more\n\nTask: T-42"],
    );
    assert!(git_push(&dev, &["origin", "main"]).status.success());
    let (_, causes, check) = ci_proves(&remote, &base);
    assert_eq!(causes, ["receipt_missing"], "{check:#}");
}

#[test]
fn a_no_verify_push_carries_no_receipt_and_ci_says_so() {
    let (dev, remote, base) = pushing("required");
    verify_exits(&dev, "export-tests", 0);
    assert!(dev.git_ok(&["notes", "--ref", "gate", "show", "HEAD"]));
    let out = git_push(&dev, &["--no-verify", "origin", "main"]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(!remote.git_ok(&["rev-parse", "-q", "--verify", "refs/notes/gate"]));
    let (code, causes, check) = ci_proves(&remote, &base);
    assert_eq!(
        (code, causes),
        (1, vec!["receipt_missing".to_string()]),
        "{check:#}"
    );
    assert!(
        check["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("no receipt travelled with the push"),
        "{check:#}"
    );
    // The repair: push the receipts, and CI proves them.
    receipts_ok(&dev, &["push"]);
    let (code, causes, _) = ci_proves(&remote, &base);
    assert_eq!((code, causes), (0, Vec::<String>::new()));
}

#[test]
fn a_remote_that_refuses_notes_lets_the_branch_through_and_says_what_ci_will_say() {
    let (dev, remote, base) = pushing("required");
    refuse_notes(&remote);
    verify_exits(&dev, "export-tests", 0);
    let out = git_push(&dev, &["origin", "main"]);
    assert!(out.status.success(), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("gate: receipts did not travel to origin: origin refused refs/notes/gate")
            && stderr.contains("notes are not taken here")
            && stderr.contains("receipt_missing")
            && stderr.contains("gate receipts push origin"),
        "{}",
        show(&out)
    );
    assert_eq!(remote.rev("main"), dev.head());
    let (code, causes, _) = ci_proves(&remote, &base);
    assert_eq!((code, causes), (1, vec!["receipt_missing".to_string()]));
}

#[test]
fn the_notes_push_can_be_turned_off_per_clone() {
    let (dev, remote, _base) = pushing("required");
    dev.git(&["config", "gate.pushReceipts", "false"]);
    verify_exits(&dev, "export-tests", 0);
    dev.git(&["update-ref", "-d", "refs/notes/gate"]);
    let out = git_push(&dev, &["origin", "main"]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("refs/notes/gate not pushed (gate.pushReceipts is false)"),
        "{}",
        show(&out)
    );
    assert!(!remote.git_ok(&["rev-parse", "-q", "--verify", "refs/notes/gate"]));
    // Attached here all the same.
    assert_eq!(noted(&dev, &dev.head()), ["export-tests=true"]);
}

/// `pushing("required")` with provenance required too (so a notes commit
/// proved as code would be `unattributed_commit`), a receipt attached to
/// HEAD, and the remote holding main.
fn pushing_notes() -> (TestRepo, TestRepo) {
    let (dev, remote, _) = pushing("required");
    dev.write(
        ".gate/policy.yaml",
        "version: 1\nbinding: off\nscope: off\nprovenance:\n  mode: required\n  merges: refuse\nreceipts:\n  mode: required\n  trust: any-pusher\nbrief:\n  mode: off\n",
    );
    dev.commit_all("policy: provenance required\n\nTask: T-42");
    dev.git(&["push", "-q", "--no-verify", "origin", "main"]);
    verify_exits(&dev, "export-tests", 0);
    (dev, remote)
}

#[test]
fn pushing_the_notes_ref_is_judged_as_notes_not_as_code() {
    let (dev, remote) = pushing_notes();
    let out = git_push(&dev, &["origin", "refs/notes/gate"]);
    assert!(out.status.success(), "{}", show(&out));
    let stderr = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!stderr.contains("unattributed_commit"), "{stderr}");
    // gate pushed no second copy beside the user's push, which landed.
    assert!(
        stderr.contains("gate attaches and pushes no receipts beside it"),
        "{stderr}"
    );
    assert_eq!(remote.rev("refs/notes/gate"), dev.rev("refs/notes/gate"));
}

#[test]
fn a_notes_push_that_drops_other_clones_receipts_is_refused() {
    let (dev, remote) = pushing_notes();
    let head = dev.head();
    // Another clone's receipt reaches the remote first.
    let other = clone_of(&remote);
    verify_exits(&other, "lint", 0);
    receipts_ok(&other, &["push"]);
    dev.git(&["fetch", "-q", "origin", "refs/notes/gate:refs/gate/theirs"]);
    // A forced push of this clone's notes would drop it.
    let out = git_push(&dev, &["-f", "origin", "refs/notes/gate"]);
    assert!(!out.status.success(), "{}", show(&out));
    let stderr = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stderr.contains("notes_rejected"), "{stderr}");
    assert!(stderr.contains("not a fast-forward"), "{stderr}");
    assert_eq!(noted(&remote, &head), ["lint=true"]);
    // The way through merges and keeps both.
    receipts_ok(&dev, &["push", "origin"]);
    assert_eq!(noted(&remote, &head), ["export-tests=true", "lint=true"]);
}

#[test]
fn a_notes_push_with_a_note_gate_cannot_read_is_refused() {
    let (dev, remote) = pushing_notes();
    dev.git(&[
        "notes",
        "--ref",
        "gate",
        "add",
        "-f",
        "-m",
        "passed: yes, trust me",
        "HEAD",
    ]);
    let out = git_push(&dev, &["origin", "refs/notes/gate"]);
    assert!(!out.status.success(), "{}", show(&out));
    let stderr = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stderr.contains("is not one gate can read"), "{stderr}");
    assert!(!remote.git_ok(&["rev-parse", "-q", "--verify", "refs/notes/gate"]));
}

#[test]
fn the_documented_update_hook_takes_receipts_as_notes() {
    let (dev, remote) = pushing_notes();
    let head = dev.head();
    let hook = remote.path().join("hooks/update");
    std::fs::write(&hook, crate::provenance::documented_update_hook()).unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // Receipts travel through the hook: gate's own notes push, and by hand.
    let out = crate::provenance::push_with_gate_on_path(&dev, &["origin", "refs/notes/gate"]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(noted(&remote, &head), ["export-tests=true"]);
    let other = clone_of(&remote);
    verify_exits(&other, "lint", 0);
    let bin = assert_cmd::cargo::cargo_bin!("gate");
    let out = other
        .gate()
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin.parent().unwrap().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .args(["receipts", "push", "origin"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(noted(&remote, &head), ["export-tests=true", "lint=true"]);
    // A forced push that drops a clone's receipts is refused by the server
    // (pre-push skipped: the server is the door that cannot be).
    let out = crate::provenance::push_with_gate_on_path(
        &dev,
        &["--no-verify", "-f", "origin", "refs/notes/gate"],
    );
    assert!(!out.status.success(), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not a fast-forward"),
        "{}",
        show(&out)
    );
    assert_eq!(noted(&remote, &head), ["export-tests=true", "lint=true"]);
    // So is a note gate cannot read, and a deletion.
    dev.git(&["fetch", "-q", "origin", "+refs/notes/gate:refs/notes/gate"]);
    dev.git(&[
        "notes",
        "--ref",
        "gate",
        "add",
        "-f",
        "-m",
        "passed: yes",
        "HEAD~1",
    ]);
    let out = crate::provenance::push_with_gate_on_path(
        &dev,
        &["--no-verify", "origin", "refs/notes/gate"],
    );
    assert!(!out.status.success(), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is not one gate can read"),
        "{}",
        show(&out)
    );
    let out = crate::provenance::push_with_gate_on_path(
        &dev,
        &["--no-verify", "origin", ":refs/notes/gate"],
    );
    assert!(!out.status.success(), "{}", show(&out));
    assert_eq!(noted(&remote, &head), ["export-tests=true", "lint=true"]);
}
