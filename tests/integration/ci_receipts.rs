//! Receipts in CI (docs/receipts.md, "Receipts in CI"): `gate check --range
//! BASE..TIP` in a fresh clone that never ran a check proves each check a
//! touched task depends on from the note that travelled with TIP, against
//! TIP's plan and TIP's tree — passed, stale, failed or missing ("no receipt
//! travelled with the push"), refused under `required`.

use serde_json::Value;

use crate::fixture::show;
use crate::golden::{assert_golden, transcript};
use crate::receipts::{receipts_repo, verify_exits};
use crate::support::TestRepo;

/// A developer's clone with task T-42 (issue 42, evidenced by
/// `export-tests`) committed with its work, a bare remote, and the base
/// the work started from.
struct Setup {
    dev: TestRepo,
    remote: TestRepo,
    base: String,
}

fn setup() -> Setup {
    let dev = receipts_repo("required");
    let base = dev.head();
    dev.write("src/export/mod.rs", "// export, CSV\n");
    dev.commit_all("export: CSV\n\nTask: T-42");
    let remote = TestRepo::bare();
    dev.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
    Setup { dev, remote, base }
}

impl Setup {
    /// Push main, and the notes when `notes`, bypassing hooks.
    fn push(&self, notes: bool) {
        self.dev
            .git(&["push", "-q", "--no-verify", "-f", "origin", "main"]);
        if notes {
            self.dev.git(&[
                "push",
                "-q",
                "--no-verify",
                "-f",
                "origin",
                "refs/notes/gate",
            ]);
        }
    }

    /// A fresh clone of the remote, with the notes fetched, as a CI job has.
    fn ci(&self) -> TestRepo {
        let ci = TestRepo::new();
        ci.git(&[
            "remote",
            "add",
            "origin",
            self.remote.path().to_str().unwrap(),
        ]);
        ci.git(&[
            "fetch",
            "-q",
            "origin",
            "+refs/heads/*:refs/remotes/origin/*",
        ]);
        // The notes may not be there: a push that sent none.
        let _ = ci.git_may_fail(&["fetch", "-q", "origin", "+refs/notes/gate:refs/notes/gate"]);
        ci.git(&["checkout", "-q", "-B", "main", "origin/main"]);
        ci
    }

    /// `gate check --range BASE..TIP --json` in a fresh clone.
    fn check(&self) -> (i32, Value, TestRepo) {
        let ci = self.ci();
        let range = format!("{}..{}", self.base, ci.head());
        let out = ci
            .gate()
            .args(["check", "--range", &range, "--json"])
            .output()
            .unwrap();
        let doc: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("not a report ({e}):\n{}", show(&out)));
        (out.status.code().unwrap(), doc, ci)
    }
}

/// The receipts check of a report.
fn receipts(doc: &Value) -> &Value {
    doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "receipts")
        .unwrap_or_else(|| panic!("no receipts check in {doc:#}"))
}

fn causes(doc: &Value) -> Vec<String> {
    receipts(doc)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["cause"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_receipt_attached_on_the_developers_machine_is_verified_in_a_fresh_clone() {
    let s = setup();
    verify_exits(&s.dev, "export-tests", 0);
    s.push(true);
    let (code, doc, ci) = s.check();
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(causes(&doc), Vec::<String>::new(), "{doc:#}");
    let summary = receipts(&doc)["summary"].as_str().unwrap();
    assert!(summary.starts_with("1 of 1 check proved"), "{summary}");
    assert!(summary.contains("C1 passed"), "{summary}");
    // The clone never ran anything: no receipt store.
    assert!(!ci.path().join(".git/gate/receipts").exists());
    // The server proves it too, in its bare repository.
    let range = format!("{}..{}", s.base, ci.head());
    let out = s
        .remote
        .gate()
        .args(["check", "--range", &range, "--json"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        receipts(&doc)["summary"]
            .as_str()
            .unwrap()
            .starts_with("1 of 1 check proved"),
        "{doc:#}"
    );
    // Without the notes, the server refuses.
    s.remote.git(&["update-ref", "-d", "refs/notes/gate"]);
    let out = s
        .remote
        .gate()
        .args(["check", "--range", &range, "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
}

#[test]
fn a_push_without_notes_leaves_a_trace_and_is_refused() {
    let s = setup();
    verify_exits(&s.dev, "export-tests", 0);
    s.push(false);
    let (code, doc, ci) = s.check();
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(causes(&doc), ["receipt_missing"]);
    let finding = &receipts(&doc)["findings"][0];
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("no receipt travelled with the push"),
        "{finding:#}"
    );
    assert_eq!(finding["check_id"], "export-tests");
    assert_eq!(finding["task"], "T-42");
    assert_eq!(finding["commit"], ci.head());
    // The human and JSON renderings.
    let range = format!("{}..{}", s.base, ci.head());
    // TIP's id depends on the task record's creation time: named [TIP].
    let tip = ci.head();
    let render = |args: &[&str]| {
        let out = ci.gate().args(args).output().unwrap();
        transcript(Some(&ci), &out)
            .replace(&tip, "[TIP]")
            .replace(&tip[..12], "[TIP]")
    };
    assert_golden(
        "check/range_receipt_missing.txt",
        &render(&["check", "--range", &range]),
    );
    assert_golden(
        "check/range_receipt_missing_json.txt",
        &render(&["check", "--range", &range, "--json"]),
    );
}

#[test]
fn a_note_carried_to_other_content_is_stale() {
    let s = setup();
    verify_exits(&s.dev, "export-tests", 0);
    // git copies the note when the commit is amended (notes.rewriteRef):
    // the new commit's sources are not what the run saw.
    s.dev
        .git(&["config", "notes.rewriteRef", "refs/notes/gate"]);
    s.dev
        .write("src/export/mod.rs", "// export, CSV, amended\n");
    s.dev.git(&["add", "-A"]);
    s.dev.git(&["commit", "-q", "--amend", "--no-edit"]);
    assert!(s.dev.git_ok(&["notes", "--ref", "gate", "show", "HEAD"]));
    s.push(true);
    let (code, doc, _) = s.check();
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(causes(&doc), ["receipt_stale"]);
    assert!(
        receipts(&doc)["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("other content"),
        "{doc:#}"
    );
}

#[test]
fn a_note_under_another_contract_is_stale_and_a_failed_run_fails() {
    let s = setup();
    s.dev.write("ctl/verdict", "fail\n");
    verify_exits(&s.dev, "export-tests", 1);
    s.push(true);
    let (code, doc, _) = s.check();
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(causes(&doc), ["receipt_failed"]);
    assert!(
        receipts(&doc)["summary"]
            .as_str()
            .unwrap()
            .contains("C1 failed")
    );

    // The plan's command changes in the tip's commit, the note is copied.
    s.dev.write("ctl/verdict", "pass\n");
    verify_exits(&s.dev, "export-tests", 0);
    s.dev
        .git(&["config", "notes.rewriteRef", "refs/notes/gate"]);
    let plan = std::fs::read_to_string(s.dev.path().join(".gate/plan.yaml")).unwrap();
    s.dev.write(
        ".gate/plan.yaml",
        plan.replace(
            "purpose: The export end to end",
            "purpose: The export, end to end",
        ),
    );
    s.dev.git(&["add", "-A"]);
    s.dev.git(&["commit", "-q", "--amend", "--no-edit"]);
    s.push(true);
    let (code, doc, _) = s.check();
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(causes(&doc), ["receipt_stale"]);
    assert!(
        receipts(&doc)["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("another contract"),
        "{doc:#}"
    );
}

#[test]
fn a_range_that_touches_no_task_proves_nothing_and_passes() {
    let s = setup();
    s.push(false);
    let ci = s.ci();
    let range = format!("{}..{}", s.base, s.base);
    let out = ci
        .gate()
        .args(["check", "--range", &range, "--json"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        receipts(&doc)["summary"]
            .as_str()
            .unwrap()
            .starts_with("no task in"),
        "{doc:#}"
    );
}
