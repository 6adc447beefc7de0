//! Receipts on commits (docs/receipts.md, "Receipts on commits"): `gate
//! verify` records a fresh receipt matching HEAD's tree in a git note under
//! `refs/notes/gate`, one JSON note per commit merging its checks, the
//! latest attempt of a check winning; git's own `git notes` is the oracle
//! for the layout, and concurrent writers lose nothing.

use serde_json::Value;

use gate::git::{NotesUpdate, Oid, Repo};
use gate::notes::{self, Entry, NOTES_REF, Note};

use crate::fixture::show;
use crate::receipts::{gate_dir, receipts, receipts_repo, verify_exits};
use crate::support::{TestRepo, check, git_command};

/// The note on `commit` as git shows it, parsed.
fn git_note(repo: &TestRepo, commit: &str) -> Value {
    let text = repo.git(&["notes", "--ref", "gate", "show", commit]);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

fn has_note(repo: &TestRepo, commit: &str) -> bool {
    repo.git_ok(&["notes", "--ref", "gate", "show", commit])
}

fn entry_of<'a>(note: &'a Value, check: &str) -> &'a Value {
    note["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|e| e["check"] == check)
        .unwrap_or_else(|| panic!("no {check} in {note:#}"))
}

fn entry(check: &str, started_ns: u128) -> Entry {
    Entry {
        acceptance_id: check.into(),
        evidence: format!("ev-{started_ns}"),
        contract: "c".repeat(64),
        fingerprint: "f".repeat(64),
        exit_code: Some(0),
        signal: None,
        passed: true,
        started_at: "2026-12-01T10:00:00Z".into(),
        ended_at: "2026-12-01T10:00:01Z".into(),
        started_ns,
        task: None,
        gate_version: "0.1.0".into(),
        log_digest: None,
        signature: None,
        disputed_by: None,
        supersedes: Vec::new(),
    }
}

/// `git ARGS` with `input` on stdin: its stdout.
fn git_stdin(repo: &TestRepo, args: &[&str], input: &[u8]) -> String {
    use std::io::Write;
    use std::process::Stdio;
    let mut cmd = git_command(repo.path());
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(check(&cmd, out).stdout).unwrap()
}

fn open(repo: &TestRepo) -> Repo {
    Repo::discover(repo.path()).expect("discover")
}

#[test]
fn verify_attaches_a_fresh_receipt_to_head_as_a_note_git_reads() {
    let repo = receipts_repo("required");
    let head = repo.head();
    let out = verify_exits(&repo, "export-tests", 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "export-tests: receipt attached to commit {} (refs/notes/gate)",
            &head[..12]
        )),
        "{}",
        show(&out)
    );
    let note = git_note(&repo, "HEAD");
    assert_eq!(note["schema"], "gate.note/1");
    let receipt = &receipts(&repo, "export-tests")[0];
    let e = entry_of(&note, "export-tests");
    assert_eq!(e["evidence"], receipt["evidence"]);
    assert_eq!(e["contract"], receipt["contract"]);
    assert_eq!(e["fingerprint"], receipt["fingerprint_after"]["digest"]);
    assert_eq!(e["exit_code"], 0);
    assert_eq!(e["passed"], true);
    assert_eq!(e["started_ns"], receipt["started_ns"]);
    assert_eq!(e["task"], "T-42");
    assert_eq!(e["gate_version"], env!("CARGO_PKG_VERSION"));
    let log = std::fs::read(gate_dir(&repo).join(receipt["log"].as_str().unwrap())).unwrap();
    assert_eq!(e["log_digest"], gate::digest::sha256_hex(&log));
    // And the tree fingerprint of HEAD is the receipt's.
    assert_eq!(
        e["fingerprint"], receipt["fingerprint_before"]["digest"],
        "fresh"
    );
}

#[test]
fn checks_merge_into_one_note_and_a_new_attempt_replaces_its_entry() {
    let repo = receipts_repo("required");
    verify_exits(&repo, "export-tests", 0);
    verify_exits(&repo, "lint", 0);
    let note = git_note(&repo, "HEAD");
    let checks: Vec<&str> = note["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["check"].as_str().unwrap())
        .collect();
    assert_eq!(checks, ["export-tests", "lint"]);
    let first = entry_of(&note, "export-tests")["evidence"].clone();
    // A failing re-run is the latest attempt: it replaces the pass.
    repo.write("ctl/verdict", "fail\n");
    verify_exits(&repo, "export-tests", 1);
    let note = git_note(&repo, "HEAD");
    let e = entry_of(&note, "export-tests");
    assert_ne!(e["evidence"], first);
    assert_eq!(e["passed"], false);
    assert_eq!(e["exit_code"], 1);
    assert_eq!(
        entry_of(&note, "lint")["passed"],
        true,
        "lint's entry stays"
    );
    // Three notes commits, each on the one before (git's history of the ref).
    assert_eq!(repo.git(&["rev-list", "--count", NOTES_REF]).trim(), "3");
    // An older attempt never replaces a later one.
    let git = open(&repo);
    let head = Oid::from_hex(&repo.head()).unwrap();
    let update = notes::attach(&git, head, &[entry("export-tests", 1)]).unwrap();
    assert_eq!(update, NotesUpdate::Unchanged);
    assert_eq!(git_note(&repo, "HEAD"), note);
}

#[test]
fn sources_that_are_not_the_commits_are_not_attached() {
    let repo = receipts_repo("required");
    repo.write("src/lib.rs", "// not committed\n");
    let out = verify_exits(&repo, "export-tests", 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("export-tests: not attached to commit"),
        "{}",
        show(&out)
    );
    assert!(!has_note(&repo, "HEAD"));
    // Committed and run again: attached to the new commit.
    repo.commit_all("the change");
    verify_exits(&repo, "export-tests", 0);
    assert!(has_note(&repo, "HEAD"));
    assert!(!has_note(&repo, "HEAD~1"));
    // A run whose sources change during it is not fresh: nothing attached.
    let before = repo.git(&["rev-parse", NOTES_REF]);
    repo.write("ctl/edit", "");
    verify_exits(&repo, "export-tests", 3);
    assert_eq!(repo.git(&["rev-parse", NOTES_REF]), before);
}

#[test]
fn notes_git_wrote_with_fanout_are_read_and_kept() {
    let repo = TestRepo::new();
    repo.write("a", "a\n");
    let one = repo.commit_all("one");
    repo.write("a", "b\n");
    let two = repo.commit_all("two");
    // A note on `one` in a fanout tree, as git lays out many notes:
    // `ab/cdef…` under the notes commit's tree.
    let note = Note {
        schema: notes::NOTE_SCHEMA.into(),
        entries: vec![entry("unit", 5)],
    };
    std::fs::write(repo.scratch("note"), note.to_bytes()).unwrap();
    let scratch = repo.scratch("note");
    let blob = repo.git(&["hash-object", "-w", scratch.to_str().unwrap()]);
    let blob = blob.trim();
    let inner = git_stdin(
        &repo,
        &["mktree"],
        format!("100644 blob {blob}\t{}\n", &one[2..]).as_bytes(),
    );
    let root = git_stdin(
        &repo,
        &["mktree"],
        format!("040000 tree {}\t{}\n", inner.trim(), &one[..2]).as_bytes(),
    );
    let commit = repo.git(&["commit-tree", root.trim(), "-m", "fanout"]);
    repo.git(&["update-ref", NOTES_REF, commit.trim()]);
    assert_eq!(git_note(&repo, &one)["checks"][0]["check"], "unit");

    let git = open(&repo);
    let one_id = Oid::from_hex(&one).unwrap();
    let read = notes::read(&git, one_id).unwrap().expect("the fanout note");
    assert_eq!(read, note);
    let two_id = Oid::from_hex(&two).unwrap();
    let update = notes::attach(&git, two_id, &[entry("unit", 7)]).unwrap();
    assert!(matches!(update, NotesUpdate::Written(_)));
    assert_eq!(git_note(&repo, &one)["checks"][0]["started_ns"], 5);
    assert_eq!(git_note(&repo, &two)["checks"][0]["started_ns"], 7);
    assert_eq!(
        repo.git(&["rev-parse", &format!("{NOTES_REF}~1")]).trim(),
        commit.trim(),
        "the new notes commit's parent is the one before"
    );
}

#[test]
fn a_note_gate_cannot_read_is_never_overwritten() {
    let repo = TestRepo::new();
    repo.write("a", "a\n");
    let head = repo.commit_all("one");
    repo.git(&[
        "notes",
        "--ref",
        "gate",
        "add",
        "-m",
        "a person's note",
        &head,
    ]);
    let git = open(&repo);
    let err = notes::attach(&git, Oid::from_hex(&head).unwrap(), &[entry("unit", 1)])
        .expect_err("an unreadable note");
    assert!(err.to_string().contains("cannot be read"), "{err}");
    assert_eq!(
        repo.git(&["notes", "--ref", "gate", "show", &head]).trim(),
        "a person's note"
    );
}

#[test]
fn concurrent_writers_lose_no_entry() {
    let repo = TestRepo::new();
    repo.write("a", "a\n");
    let head = repo.commit_all("one");
    let root = repo.path().to_path_buf();
    let writers: Vec<_> = (0..8)
        .map(|n| {
            let root = root.clone();
            let head = head.clone();
            std::thread::spawn(move || {
                let git = Repo::discover(&root).unwrap();
                let id = Oid::from_hex(&head).unwrap();
                notes::attach(&git, id, &[entry(&format!("check-{n}"), n)]).unwrap()
            })
        })
        .collect();
    for writer in writers {
        assert!(matches!(writer.join().unwrap(), NotesUpdate::Written(_)));
    }
    let note = git_note(&repo, &head);
    assert_eq!(note["checks"].as_array().unwrap().len(), 8, "{note:#}");
    assert_eq!(repo.git(&["rev-list", "--count", NOTES_REF]).trim(), "8");
}
