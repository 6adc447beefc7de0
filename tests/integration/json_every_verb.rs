//! `--json` keeps its promise on every verb (docs/json.md): stdout holds
//! exactly one JSON document in every outcome — a report, or a
//! `gate.error/1` when the verb could not run — and its `exit_code` is the
//! process's.

use crate::fixture::{self, plan_repo, show};
use crate::support::TestRepo;

/// Every verb that takes `--json`, as run in the repository.
const VERBS: &[&[&str]] = &[
    &["check", "--json"],
    &["check", "--staged", "--json"],
    &["check", "--range", "HEAD~1..HEAD", "--json"],
    &["binding", "--issue", "42", "--json"],
    &["handover", "--json"],
    &["handover", "--resolve", "--json"],
    &["status", "--json"],
    &["may-touch", "src/lib.rs", "--json"],
    &["context", "--json"],
    &["task", "list", "--json"],
    &["task", "validate", "--task", "T-42", "--json"],
    &["task", "validate", "--all", "--json"],
    &["plan", "validate", "--json"],
    &[
        "task", "amend", "--author", "Op", "--text", "More.", "--json",
    ],
    &[
        "task",
        "ask",
        "--stage",
        "design",
        "--question-file",
        "/dev/null",
        "--answer-file",
        "/dev/null",
        "--decided-by",
        "operator",
        "--summary",
        "s",
        "--json",
    ],
    &["task", "note", "--text", "A note.", "--json"],
    &["verify", "export-tests", "--json"],
    // No remote `origin` here: a gate.error/1.
    &["receipts", "fetch", "--json"],
    &["receipts", "push", "--json"],
    // A deletion of the notes ref: refused, a gate.error/1.
    &[
        "receipts",
        "accept",
        "0000000000000000000000000000000000000000",
        "0000000000000000000000000000000000000000",
        "--json",
    ],
    // An empty brief: refused, nothing written.
    &[
        "start",
        "--issue",
        "42",
        "--id",
        "T-9",
        "--brief",
        "/dev/null",
        "--json",
    ],
    &[
        "task",
        "scope",
        "add",
        "docs/**",
        "--because",
        "The docs too.",
        "--json",
    ],
    // Last: it closes the task.
    &["task", "finish", "--json"],
];

/// Stdout must be one JSON document with a `gate.` schema, and an exit code
/// (when it carries one) equal to the process's.
fn assert_one_document(what: &str, out: &std::process::Output) {
    let code = out.status.code();
    assert!(
        matches!(code, Some(0..=3)),
        "{what}: exit outside 0..=3\n{}",
        show(out)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{what}: stdout is not one JSON document ({e})\n{}",
            show(out)
        )
    });
    let schema = doc["schema"].as_str().unwrap_or_default();
    assert!(
        schema.starts_with("gate."),
        "{what}: schema {schema:?}\n{}",
        show(out)
    );
    if let Some(exit) = doc.get("exit_code") {
        assert_eq!(exit.as_i64(), code.map(i64::from), "{what}\n{}", show(out));
    }
    if code != Some(0) && schema == "gate.error/1" {
        assert!(
            !doc["message"].as_str().unwrap_or_default().is_empty(),
            "{what}: an error says what happened\n{}",
            show(out)
        );
    }
}

/// A repository with a task, on a second commit, then broken by `breaks`.
fn broken(breaks: impl Fn(&TestRepo)) -> TestRepo {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    repo.write("src/export/csv.rs", "// csv\n");
    repo.commit_all("export");
    breaks(&repo);
    repo
}

#[test]
fn every_json_verb_prints_one_document_in_every_outcome() {
    let kinds: Vec<(&str, TestRepo)> = vec![
        ("healthy", broken(|_| {})),
        (
            "unreadable policy",
            broken(|r| r.write(".gate/policy.yaml", "version: [\n")),
        ),
        (
            "unreadable plan",
            broken(|r| r.write(".gate/plan.yaml", "intents: {\n")),
        ),
        (
            "unreadable task",
            broken(|r| r.write(".gate/tasks/T-42.md", "---\nid: [\n")),
        ),
        (
            "unknown active task",
            broken(|r| {
                std::fs::write(fixture::git_path(r, "gate/active"), "T-404\n").unwrap();
            }),
        ),
        (
            "no task",
            broken(|r| {
                let _ = std::fs::remove_file(fixture::git_path(r, "gate/active"));
            }),
        ),
    ];
    for (kind, repo) in &kinds {
        for verb in VERBS {
            let out = repo.gate().args(*verb).output().unwrap();
            assert_one_document(&format!("{kind}: gate {}", verb.join(" ")), &out);
        }
    }
    // Not a repository, a directory that does not exist, a bad flag.
    let repo = &kinds[0].1;
    let outside = repo.scratch("outside");
    std::fs::create_dir_all(&outside).unwrap();
    for (kind, dir) in [
        ("not a repository", outside),
        ("no such directory", repo.scratch("nowhere")),
    ] {
        for verb in VERBS {
            let out = repo
                .gate()
                .arg("-C")
                .arg(&dir)
                .args(*verb)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(3), "{kind}\n{}", show(&out));
            assert_one_document(&format!("{kind}: gate {}", verb.join(" ")), &out);
        }
    }
    for verb in VERBS {
        let out = repo
            .gate()
            .args(*verb)
            .arg("--no-such-flag")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        assert_one_document(&format!("a bad flag: gate {}", verb.join(" ")), &out);
    }
}

#[test]
fn the_task_verbs_that_failed_silently_print_an_error_document() {
    // The four verbs of issue 14 that printed nothing on stdout on failure.
    let repo = broken(|r| r.write(".gate/policy.yaml", "version: [\n"));
    for verb in [
        &["status", "--json"][..],
        &["task", "validate", "--task", "T-42", "--json"],
    ] {
        let out = repo.gate().args(verb).output().unwrap();
        assert_eq!(out.status.code(), Some(3), "{}", show(&out));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["schema"], "gate.error/1", "{}", show(&out));
    }
    let bare = TestRepo::bare();
    for verb in [
        &["task", "list", "--json"][..],
        &["plan", "validate", "--json"],
    ] {
        let out = bare.gate().args(verb).output().unwrap();
        assert_eq!(out.status.code(), Some(3), "{}", show(&out));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["schema"], "gate.error/1", "{}", show(&out));
        assert_eq!(doc["exit_code"], 3);
    }
}
