//! The brief: verbatim appends, the validator and its window, the
//! append-only rule in ranges, staged changes and real pushes.

use std::process::Output;

use crate::fixture::{self, plan_repo, show};
use crate::golden::{assert_golden, transcript};
use crate::support::TestRepo;

fn task_text(repo: &TestRepo, id: &str) -> String {
    std::fs::read_to_string(repo.path().join(format!(".gate/tasks/{id}.md"))).unwrap()
}

fn amend(repo: &TestRepo, text: &str) -> Output {
    repo.gate()
        .args(["task", "amend", "--author", "Ada", "--file", "-"])
        .write_stdin(text.as_bytes().to_vec())
        .output()
        .unwrap()
}

/// The verbatim blocks of the addenda's entries, in order.
fn addenda_blocks(repo: &TestRepo, id: &str) -> Vec<String> {
    let task = gate::task::load(repo.path(), id).unwrap();
    let section = task.body.addenda.unwrap();
    let (_, entries) = gate::brief::entries(&section.text, section.line);
    entries
        .iter()
        .flat_map(|e| {
            gate::task::format::verbatim_blocks(e.body, e.line)
                .into_iter()
                .map(|(v, _, _)| v.text)
        })
        .collect()
}

fn validate_json(repo: &TestRepo, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut all = vec!["task", "validate", "--json"];
    all.extend_from_slice(args);
    let out = repo.gate().args(&all).output().unwrap();
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", show(&out)));
    (out.status.code(), doc)
}

fn causes(doc: &serde_json::Value) -> Vec<(String, String)> {
    doc["checks"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["cause"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn amendments_and_decisions_round_trip_byte_for_byte() {
    let repo = plan_repo("advisory");
    fixture::start_42(&repo);
    let texts = [
        "unicode: é 日本 🚀\n",
        "crlf\r\nlines\r\n",
        "trailing spaces   \n\n\n",
        "## Implementation notes\n---\n### 2026-01-01T00:00:00Z · qa · fake\n```\nfence\n````\n",
        "no final newline",
    ];
    for t in texts {
        let out = amend(&repo, t);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    }
    let q = "Which encoding?\r\n## heading\n---\n";
    let a = "UTF-8, no BOM.   ";
    std::fs::write(repo.path().join("q.txt"), q).unwrap();
    std::fs::write(repo.path().join("a.txt"), a).unwrap();
    std::fs::write(
        repo.path().join("r.txt"),
        "Spreadsheets read UTF-8 fine today; a BOM breaks the importer of the billing system.\n",
    )
    .unwrap();
    let out = repo
        .gate()
        .args([
            "task",
            "ask",
            "--stage",
            "design",
            "--question-file",
            "q.txt",
            "--answer-file",
            "a.txt",
        ])
        .args([
            "--decided-by",
            "agent",
            "--rationale-file",
            "r.txt",
            "--summary",
            "CSV is UTF-8 without BOM",
            "--author",
            "Agent",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let mut expected: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
    expected.extend([
        q.to_string(),
        a.to_string(),
        std::fs::read_to_string(repo.path().join("r.txt")).unwrap(),
    ]);
    assert_eq!(addenda_blocks(&repo, "T-42"), expected);
    // The file still validates, and its brief is untouched.
    let (code, doc) = validate_json(&repo, &["--task", "T-42"]);
    assert_eq!(code, Some(0), "{doc:#}");
    assert!(causes(&doc).is_empty(), "{doc:#}");
    assert_eq!(
        gate::task::load(repo.path(), "T-42")
            .unwrap()
            .body
            .brief
            .unwrap()
            .text,
        "Add CSV export to the report page.\n"
    );
}

#[test]
fn appends_never_change_earlier_bytes() {
    let repo = plan_repo("advisory");
    fixture::start_42(&repo);
    let before = task_text(&repo, "T-42");
    assert_eq!(amend(&repo, "first\n").status.code(), Some(0));
    let after_one = task_text(&repo, "T-42");
    let notes_at = before.find("## Implementation notes").unwrap();
    assert!(
        after_one.starts_with(&before[..notes_at]),
        "the prefix before the new entry is unchanged"
    );
    let out = repo
        .gate()
        .args([
            "task",
            "note",
            "--text",
            "Chose CSV over XLSX.",
            "--author",
            "Ada",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let after_note = task_text(&repo, "T-42");
    assert!(
        after_note.starts_with(&after_one),
        "a note appends at the end"
    );
    assert_eq!(amend(&repo, "second\n").status.code(), Some(0));
    assert_eq!(addenda_blocks(&repo, "T-42"), vec!["first\n", "second\n"]);
    assert!(task_text(&repo, "T-42").contains("Chose CSV over XLSX."));
}

#[test]
fn concurrent_appends_all_land() {
    let repo = plan_repo("advisory");
    fixture::start_42(&repo);
    let bin = assert_cmd::cargo::cargo_bin!("gate");
    let children: Vec<_> = (0..8)
        .map(|i| {
            let mut cmd = std::process::Command::new(bin);
            cmd.current_dir(repo.path())
                .env_clear()
                .envs(crate::support::git_env());
            cmd.args([
                "task",
                "amend",
                "--author",
                "Ada",
                "--text",
                &format!("entry {i}\n"),
            ]);
            cmd.stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped());
            cmd.spawn().unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut blocks = addenda_blocks(&repo, "T-42");
    assert_eq!(blocks.len(), 8);
    blocks.sort();
    assert_eq!(
        blocks,
        (0..8).map(|i| format!("entry {i}\n")).collect::<Vec<_>>()
    );
    let (code, doc) = validate_json(&repo, &["--task", "T-42"]);
    assert_eq!(code, Some(0), "{doc:#}");
    let leftovers: Vec<_> = std::fs::read_dir(repo.path().join(".gate/tasks"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers.len(), 1, "no temporary files: {leftovers:?}");
}

/// Sixteen appenders at once, amendments, decisions and notes: each entry's
/// time is taken under the task's lock, so the log stays chronological and
/// gate's own validator accepts the file. The test holds the lock while
/// half of them start, then, a second later, the other half: all wait for
/// it, and a time taken before the lock would land out of order.
#[test]
fn sixteen_concurrent_appenders_keep_the_log_chronological() {
    let repo = plan_repo("advisory");
    fixture::start_42(&repo);
    let bin = assert_cmd::cargo::cargo_bin!("gate");
    let question = repo.scratch("question.txt");
    std::fs::write(&question, "Which format?\n").unwrap();
    let answer = repo.scratch("answer.txt");
    std::fs::write(&answer, "CSV.\n").unwrap();
    let spawn = |i: usize| {
        let mut cmd = std::process::Command::new(bin);
        cmd.current_dir(repo.path())
            .env_clear()
            .envs(crate::support::git_env());
        let text = format!("entry {i}\n");
        match i % 3 {
            0 => cmd.args(["task", "amend", "--author", "Ada", "--text", &text]),
            1 => cmd.args(["task", "note", "--author", "Ada", "--text", &text]),
            _ => cmd
                .args(["task", "ask", "--author", "Ada", "--stage", "build"])
                .args(["--summary", &format!("entry {i}"), "--conflict", "none"])
                .args(["--decided-by", "operator", "--question-file"])
                .arg(&question)
                .arg("--answer-file")
                .arg(&answer),
        };
        cmd.stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        cmd.spawn().unwrap()
    };
    let lock_file = crate::fixture::git_path(&repo, "gate/locks/task-T-42.lock");
    let held = gate::fsutil::lock(&lock_file, std::time::Duration::from_secs(5)).unwrap();
    let mut children: Vec<_> = (0..8).map(spawn).collect();
    // Past the next second's turn: the second half's clock reads later.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    children.extend((8..16).map(spawn));
    std::thread::sleep(std::time::Duration::from_millis(500));
    drop(held);
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (code, doc) = validate_json(&repo, &["--task", "T-42"]);
    assert_eq!(code, Some(0), "{doc:#}");
    assert_eq!(causes(&doc), vec![], "{doc:#}");
    let text = task_text(&repo, "T-42");
    for i in 0..16 {
        assert!(text.contains(&format!("entry {i}\n")), "entry {i}: {text}");
    }
}

#[test]
fn refused_inputs_leave_the_file_untouched() {
    let repo = plan_repo("advisory");
    fixture::start_42(&repo);
    let before = task_text(&repo, "T-42");
    std::fs::write(repo.path().join("q.txt"), "Q?").unwrap();
    std::fs::write(repo.path().join("a.txt"), "A.").unwrap();
    std::fs::write(
        repo.path().join("short.txt"),
        "   because   it   is   nicer   ",
    )
    .unwrap();
    std::fs::write(repo.path().join("big.txt"), "x".repeat(100 * 1024 + 1)).unwrap();
    std::fs::write(repo.path().join("bad.txt"), b"\xff\xfe").unwrap();
    let ask = |extra: &[&str]| {
        let mut args = vec!["task", "ask", "--stage", "design", "--author", "A"];
        args.extend_from_slice(extra);
        for (flag, default) in [
            ("--question-file", "q.txt"),
            ("--answer-file", "a.txt"),
            ("--summary", "s"),
        ] {
            if !extra.contains(&flag) {
                args.extend_from_slice(&[flag, default]);
            }
        }
        repo.gate().args(&args).output().unwrap()
    };
    let cases: Vec<(Output, i32, &str)> = vec![
        (
            ask(&["--decided-by", "agent", "--rationale-file", "short.txt"]),
            1,
            "at least 50",
        ),
        (ask(&["--decided-by", "agent"]), 1, "at least 50"),
        (
            ask(&["--decided-by", "operator", "--question-file", "big.txt"]),
            1,
            "100 KiB",
        ),
        (
            ask(&["--decided-by", "operator", "--answer-file", "bad.txt"]),
            1,
            "not UTF-8",
        ),
        (
            ask(&["--decided-by", "operator", "--summary", "two\nlines"]),
            2,
            "one line",
        ),
        (ask(&["--decided-by", "robot"]), 2, "robot"),
        (amend(&repo, "   \n"), 1, "empty"),
        (
            repo.gate()
                .args(["task", "amend", "--author", "Ada", "--file", "big.txt"])
                .output()
                .unwrap(),
            1,
            "100 KiB",
        ),
        (
            repo.gate()
                .args(["task", "amend", "--author", "", "--text", "x"])
                .output()
                .unwrap(),
            2,
            "blank",
        ),
        (
            repo.gate()
                .args(["task", "abandon", "--because", " "])
                .output()
                .unwrap(),
            2,
            "why",
        ),
    ];
    for (out, code, needle) in cases {
        assert_eq!(out.status.code(), Some(code), "{}", show(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(needle),
            "want {needle}: {}",
            show(&out)
        );
        assert_eq!(
            task_text(&repo, "T-42"),
            before,
            "the file changed: {}",
            show(&out)
        );
    }
}

#[test]
fn finish_and_abandon_change_status_and_say_so() {
    let repo = plan_repo("advisory");
    fixture::start_42(&repo);
    let out = repo.gate().args(["task", "finish"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let task = gate::task::load(repo.path(), "T-42").unwrap();
    assert_eq!(task.record.status, gate::task::TaskStatus::Completed);
    assert!(task.body.notes.unwrap().text.contains("· completed ·"));
    assert!(
        !crate::fixture::git_path(&repo, "gate/active").exists(),
        "finishing clears the active pointer"
    );
    let out = repo
        .gate()
        .args(["task", "finish", "T-42"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "already completed: {}",
        show(&out)
    );
    let out = crate::fixture::start(&repo, &["--issue", "7", "--id", "T-7"], "typos\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = repo
        .gate()
        .args(["task", "abandon", "--because", "Superseded by issue 9."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let task = gate::task::load(repo.path(), "T-7").unwrap();
    assert_eq!(task.record.status, gate::task::TaskStatus::Abandoned);
    assert!(
        task.body
            .notes
            .unwrap()
            .text
            .contains("Superseded by issue 9.")
    );
    // The record change is status only: the append-only rule holds.
    let (code, doc) = validate_json(&repo, &["--task", "T-7"]);
    assert_eq!(code, Some(0), "{doc:#}");
}

/// A task file with `created_at` set, written by hand, and a policy with `required_since`.
fn dated_repo(created: &str, since: Option<&str>, brief: bool) -> TestRepo {
    let repo = plan_repo("advisory");
    let since = since
        .map(|d| format!("  required_since: {d}\n"))
        .unwrap_or_default();
    repo.write(
        ".gate/policy.yaml",
        format!("version: 1\nbrief:\n  mode: required\n{since}"),
    );
    let record = gate::task::TaskRecord {
        schema: gate::task::TASK_SCHEMA.into(),
        id: "T-old".into(),
        status: gate::task::TaskStatus::Active,
        created_at: format!("{created}T12:00:00Z"),
        created_by: "gate start".into(),
        operator: "Ada".into(),
        baseline: repo.head(),
        scope: vec!["src/**".into()],
        issue: None,
        intent: None,
        exemption: None,
        pins: Default::default(),
    };
    let body = if brief {
        gate::task::format::render_new_body("Old work.\n")
    } else {
        "\n## Addenda\n\n## Implementation notes\n".into()
    };
    repo.write(".gate/tasks/T-old.md", gate::task::render(&record, &body));
    repo
}

#[test]
fn the_thirty_day_window_at_its_edges() {
    for (today, severity) in [
        ("2026-10-30", "info"),
        ("2026-10-31", "warn"),
        ("2026-11-01", "warn"),
    ] {
        let repo = dated_repo("2026-10-01", None, false);
        let (code, doc) = validate_json(&repo, &["--task", "T-old", "--today", today]);
        assert_eq!(code, Some(0), "an old task is never blocked: {doc:#}");
        assert_eq!(
            causes(&doc),
            vec![("brief_missing".to_string(), severity.to_string())],
            "{today}"
        );
    }
    // Created on or after required_since: a blocker.
    let repo = dated_repo("2026-10-01", Some("2026-10-01"), false);
    let (code, doc) = validate_json(&repo, &["--task", "T-old", "--today", "2026-10-02"]);
    assert_eq!(code, Some(1), "{doc:#}");
    assert_eq!(
        causes(&doc),
        vec![("brief_missing".to_string(), "blocker".to_string())]
    );
    // Before required_since: never a blocker.
    let repo = dated_repo("2026-09-30", Some("2026-10-01"), false);
    let (code, _) = validate_json(&repo, &["--task", "T-old", "--today", "2026-12-30"]);
    assert_eq!(code, Some(0));
    let out = repo
        .gate()
        .args([
            "task",
            "validate",
            "--task",
            "T-old",
            "--today",
            "not-a-date",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}

#[test]
fn validate_all_covers_active_tasks_and_exits_1_only_on_a_blocker() {
    let repo = dated_repo("2026-10-01", Some("2026-11-01"), false);
    fixture::start_42(&repo);
    let (code, doc) = validate_json(&repo, &["--all", "--today", "2026-12-30"]);
    assert_eq!(code, Some(0), "the old task warns only: {doc:#}");
    assert_eq!(
        doc["checks"][0]["summary"],
        "2 task files validated on 2026-12-30"
    );
    // A new task with a malformed qa entry is a blocker.
    let path = repo.path().join(".gate/tasks/T-42.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let bad = "### 2026-11-30T10:00:00Z · qa · A\n\n- stage: s\n- decided_by: agent\n- summary: s\n- conflict: none\n\nQuestion:\n\n```text\nq\n```\n\nAnswer:\n\n```text\na\n```\n\n";
    std::fs::write(
        &path,
        text.replace(
            "## Implementation notes",
            &format!("{bad}## Implementation notes"),
        ),
    )
    .unwrap();
    let (code, doc) = validate_json(&repo, &["--all"]);
    assert_eq!(code, Some(1), "{doc:#}");
    assert!(
        causes(&doc).contains(&("qa_rationale_too_short".into(), "blocker".into())),
        "{doc:#}"
    );
    let human = repo
        .gate()
        .args(["task", "validate", "--all", "--today", "2026-12-30"])
        .output()
        .unwrap();
    assert_golden("brief/validate-all.txt", &transcript(Some(&repo), &human));
}

/// A repository where task T-42's brief is rewritten in the second of two commits.
fn rewritten_repo(mode: &str) -> (TestRepo, String) {
    let repo = plan_repo(mode);
    repo.write(".gate/policy.yaml", format!("version: 1\nscope: off\nprovenance:\n  mode: off\nreceipts:\n  mode: off\nbrief:\n  mode: {mode}\n"));
    repo.commit_all("policy");
    fixture::start_42(&repo);
    let base = repo.head();
    repo.commit_all("start T-42\n\nTask: T-42");
    assert_eq!(amend(&repo, "clarified\n").status.code(), Some(0));
    repo.commit_all("amend T-42\n\nTask: T-42");
    let path = repo.path().join(".gate/tasks/T-42.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("Add CSV export to the report page.", "Add PDF export."),
    )
    .unwrap();
    repo.commit_all("rewrite the brief\n\nTask: T-42");
    (repo, base)
}

#[test]
fn a_rewritten_brief_is_refused_in_a_range_naming_the_commit() {
    let (repo, base) = rewritten_repo("required");
    let head = repo.head();
    let out = repo
        .gate()
        .args(["check", "--range", &format!("{base}..HEAD"), "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let brief = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "brief")
        .unwrap();
    let findings = brief["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{doc:#}");
    assert_eq!(findings[0]["cause"], "brief_rewritten");
    assert_eq!(findings[0]["commit"], head.as_str());
    // Shortened addenda and a rewritten record are refused too.
    let path = repo.path().join(".gate/tasks/T-42.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find("### ").unwrap();
    let end = text.find("## Implementation notes").unwrap();
    let cut = format!("{}{}", &text[..start], &text[end..]).replace("scope: [", "scope: [\"**\", ");
    std::fs::write(&path, cut).unwrap();
    repo.commit_all("cut the log\n\nTask: T-42");
    let out = repo
        .gate()
        .args(["check", "--range", "HEAD~1..HEAD", "--json"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let brief = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "brief")
        .unwrap();
    let mut got: Vec<&str> = brief["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["cause"].as_str().unwrap())
        .collect();
    got.sort();
    assert_eq!(
        got,
        vec!["addenda_rewritten", "record_rewritten"],
        "{doc:#}"
    );
    // Deleting a task file is refused.
    repo.git(&["rm", "-q", ".gate/tasks/T-42.md"]);
    repo.commit_all("drop it");
    let out = repo
        .gate()
        .args(["check", "--range", "HEAD~1..HEAD", "--only", "brief"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("deletes task file"),
        "{}",
        show(&out)
    );
}

#[test]
fn a_staged_rewrite_is_refused_by_pre_commit_and_gate_check_sees_uncommitted_edits() {
    let repo = brief_repo();
    repo.commit_all("start");
    let path = repo.path().join(".gate/tasks/T-42.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("Add CSV export", "Add XML export")).unwrap();
    let out = repo
        .gate()
        .args(["check", "--only", "brief"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("the work tree: .gate/tasks/T-42.md"),
        "{}",
        show(&out)
    );
    repo.git(&["add", "-A"]);
    let out = repo.gate().args(["check", "--staged"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("brief_rewritten"),
        "{}",
        show(&out)
    );
}

#[test]
fn a_staged_rename_of_a_task_file_is_refused_like_its_deletion() {
    let repo = brief_repo();
    repo.commit_all("start");
    // Identical content under a new name: the staged diff pairs it as a rename.
    repo.git(&["mv", ".gate/tasks/T-42.md", ".gate/tasks/T-43.md"]);
    let out = repo
        .gate()
        .args(["check", "--staged", "--only", "brief"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("deletes task file"),
        "{}",
        show(&out)
    );
}

#[test]
fn a_rewritten_brief_is_refused_in_a_real_push() {
    let (repo, _) = rewritten_repo("required");
    let remote = TestRepo::bare();
    repo.git(&[
        "remote",
        "add",
        "origin",
        &remote.path().display().to_string(),
    ]);
    let out = repo.gate().arg("install").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let pushed = repo.git_may_fail(&["push", "-q", "origin", "main"]);
    assert!(!pushed.status.success(), "the push must be refused");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&pushed.stdout),
        String::from_utf8_lossy(&pushed.stderr)
    );
    assert!(said.contains("brief_rewritten"), "{said}");
    assert!(
        !remote.git_ok(&["rev-parse", "--verify", "-q", "refs/heads/main"]),
        "the remote did not get main"
    );
    // Advisory: the push goes through with the finding printed. The policy
    // judges once committed (an uncommitted loosening is not obeyed).
    repo.write(".gate/policy.yaml", "version: 1\nscope: off\nprovenance:\n  mode: off\nreceipts:\n  mode: off\nbrief:\n  mode: advisory\n");
    repo.git(&["add", ".gate/policy.yaml"]);
    repo.git(&[
        "commit",
        "-q",
        "--no-verify",
        "-m",
        "policy: brief advisory",
    ]);
    let pushed = repo.git_may_fail(&["push", "-q", "origin", "main"]);
    assert!(
        pushed.status.success(),
        "{}",
        String::from_utf8_lossy(&pushed.stderr)
    );
}

/// A repository with task T-42 committed and no active task, so only the
/// work-tree comparison reads its file.
/// A repository whose policy runs only the brief, `required`, with task
/// T-42 started (its file not committed yet).
fn brief_repo() -> TestRepo {
    let repo = plan_repo("required");
    repo.write(".gate/policy.yaml", "version: 1\nscope: off\nprovenance:\n  mode: off\nreceipts:\n  mode: off\nbrief:\n  mode: required\n");
    repo.commit_all("policy");
    fixture::start_42(&repo);
    repo
}

fn committed_task_repo() -> TestRepo {
    let repo = brief_repo();
    repo.commit_all("start");
    std::fs::remove_file(fixture::git_path(&repo, "gate/active")).unwrap();
    repo
}

#[test]
fn a_fifo_in_place_of_a_task_file_is_reported_not_waited_on() {
    let repo = committed_task_repo();
    repo.remove(b".gate/tasks/T-42.md");
    let status = std::process::Command::new("mkfifo")
        .arg(repo.abs(b".gate/tasks/T-42.md"))
        .status()
        .expect("run mkfifo");
    assert!(status.success());
    // No writer ever opens the FIFO: reading it would block forever, so the
    // run is killed after a generous deadline rather than stalling the suite.
    let out = repo
        .gate()
        .args(["check", "--only", "brief"])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(".gate/tasks/T-42.md") && stdout.contains("not a regular file"),
        "{}",
        show(&out)
    );
}

#[test]
fn a_task_file_replaced_by_a_symlink_is_judged_as_the_link_git_would_commit() {
    let repo = committed_task_repo();
    // The link leads to an identical copy: following it would see no change.
    std::fs::rename(
        repo.abs(b".gate/tasks/T-42.md"),
        repo.abs(b"copy-of-T-42.md"),
    )
    .unwrap();
    repo.symlink(b".gate/tasks/T-42.md", b"../../copy-of-T-42.md");
    let out = repo
        .gate()
        .args(["check", "--only", "brief"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("the work tree: .gate/tasks/T-42.md"),
        "{}",
        show(&out)
    );
}

#[test]
fn an_unreadable_head_is_unknown_not_a_pass() {
    let repo = committed_task_repo();
    repo.write(".git/refs/heads/main", "garbage\n");
    let out = repo
        .gate()
        .args(["check", "--only", "brief"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    // HEAD holds the policy that judges, so the verb cannot start: unknown.
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("reading HEAD"),
        "{}",
        show(&out)
    );
}

#[test]
fn a_commit_repairing_broken_front_matter_cannot_rewrite_the_brief_unseen() {
    let repo = brief_repo();
    assert_eq!(amend(&repo, "clarified\n").status.code(), Some(0));
    repo.commit_all("start T-42");
    let good = task_text(&repo, "T-42");
    let path = repo.path().join(".gate/tasks/T-42.md");
    std::fs::write(
        &path,
        good.replace("status: active\n", "status: active\nphase: x\n"),
    )
    .unwrap();
    repo.commit_all("break the record");
    // The repair also rewrites the brief and drops the amendment.
    let start = good.find("### ").unwrap();
    let end = good.find("## Implementation notes").unwrap();
    let rewritten = format!("{}{}", &good[..start], &good[end..])
        .replace("Add CSV export to the report page.", "Add PDF export.");
    std::fs::write(&path, rewritten).unwrap();
    let head = repo.commit_all("repair the record");
    let out = repo
        .gate()
        .args([
            "check",
            "--range",
            "HEAD~1..HEAD",
            "--only",
            "brief",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = doc["checks"][0]["findings"].as_array().unwrap();
    let mut got: Vec<&str> = findings
        .iter()
        .map(|f| f["cause"].as_str().unwrap())
        .collect();
    got.sort();
    assert_eq!(got, vec!["addenda_rewritten", "brief_rewritten"], "{doc:#}");
    assert!(
        findings.iter().all(|f| f["commit"] == head.as_str()),
        "{doc:#}"
    );
}

#[test]
fn concurrent_closes_land_once_and_refuse_the_rest() {
    let repo = plan_repo("advisory");
    fixture::start_42(&repo);
    let bin = assert_cmd::cargo::cargo_bin!("gate");
    // Finishes and abandons at once: each loads the task while it is still
    // active; only the lock-held re-read can tell which came first.
    let children: Vec<_> = (0..8)
        .map(|i| {
            let mut cmd = std::process::Command::new(bin);
            cmd.current_dir(repo.path())
                .env_clear()
                .envs(crate::support::git_env());
            if i % 2 == 0 {
                cmd.args(["task", "finish", "T-42"]);
            } else {
                cmd.args(["task", "abandon", "T-42", "--because", "superseded"]);
            }
            cmd.stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped());
            cmd.spawn().unwrap()
        })
        .collect();
    let mut codes = Vec::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        codes.push(out.status.code());
        if out.status.code() != Some(0) {
            assert!(
                String::from_utf8_lossy(&out.stderr).contains("is already"),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    codes.sort();
    let mut expected = vec![Some(0)];
    expected.extend([Some(1); 7]);
    assert_eq!(codes, expected, "exactly one close succeeds");
    let text = task_text(&repo, "T-42");
    let closing = text.matches(" · completed · ").count() + text.matches(" · abandoned · ").count();
    assert_eq!(closing, 1, "exactly one closing note:\n{text}");
}

#[test]
fn validate_all_loads_each_file_as_gate_task_list_does() {
    let repo = plan_repo("advisory");
    fixture::start_42(&repo);
    // A copy under another name: its record names the wrong task.
    std::fs::copy(
        repo.abs(b".gate/tasks/T-42.md"),
        repo.abs(b".gate/tasks/T-43.md"),
    )
    .unwrap();
    let (code, doc) = validate_json(&repo, &["--all"]);
    assert_eq!(code, Some(1), "{doc:#}");
    assert_eq!(
        causes(&doc),
        vec![("schema_invalid".to_string(), "blocker".to_string())],
        "{doc:#}"
    );
    let finding = &doc["checks"][0]["findings"][0];
    assert_eq!(finding["file"], ".gate/tasks/T-43.md", "{doc:#}");
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("records id `T-42`"),
        "{doc:#}"
    );
    let list = repo.gate().args(["task", "list"]).output().unwrap();
    assert_eq!(list.status.code(), Some(3), "{}", show(&list));
}

/// The brief findings of `gate check --range RANGE` (causes and commits).
fn range_brief(repo: &TestRepo, range: &str) -> Vec<(String, String)> {
    let out = repo
        .gate()
        .args(["check", "--range", range, "--only", "brief", "--json"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let brief = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "brief")
        .unwrap_or_else(|| panic!("{doc:#}"));
    brief["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
            (s(&f["cause"]), s(&f["commit"]))
        })
        .collect()
}

/// A merge whose task file is one parent's version was proved on that side;
/// a merge that rewrites the brief itself is refused, naming the merge.
#[test]
fn merges_in_a_range_are_judged_by_what_they_did_themselves() {
    let repo = brief_repo();
    repo.commit_all("start T-42\n\nTask: T-42");
    let base = repo.head();
    repo.git(&["checkout", "-q", "-b", "side"]);
    assert_eq!(
        amend(&repo, "clarified on a side branch\n").status.code(),
        Some(0)
    );
    repo.commit_all("amend on side\n\nTask: T-42");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("other.txt", "unrelated\n");
    repo.commit_all("unrelated work");
    repo.git(&["merge", "-q", "--no-ff", "--no-edit", "side"]);
    assert_eq!(range_brief(&repo, &format!("{base}..HEAD")), vec![]);

    // A second side branch, merged with the brief rewritten in the merge.
    let before = repo.head();
    repo.git(&["checkout", "-q", "-b", "side2"]);
    assert_eq!(amend(&repo, "clarified again\n").status.code(), Some(0));
    repo.commit_all("amend on side2\n\nTask: T-42");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("other.txt", "more unrelated\n");
    repo.commit_all("more unrelated work");
    repo.git(&["merge", "-q", "--no-ff", "--no-commit", "side2"]);
    let path = repo.path().join(".gate/tasks/T-42.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("Add CSV export", "Add XML export")).unwrap();
    repo.git(&["add", ".gate/tasks/T-42.md"]);
    repo.git(&["commit", "-q", "--no-verify", "--no-edit"]);
    let merge = repo.head();
    assert_eq!(
        range_brief(&repo, &format!("{before}..HEAD")),
        vec![("brief_rewritten".to_string(), merge)]
    );
}
