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

    /// `gate receipts push origin` in the developer's clone, which must
    /// succeed.
    fn push_receipts(&self) {
        let out = self
            .dev
            .gate()
            .args(["receipts", "push", "origin"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    }

    /// `gate check --range BASE..TIP --json` in a fresh clone.
    fn check(&self) -> (i32, Value, TestRepo) {
        let ci = self.ci();
        let range = format!("{}..{}", self.base, ci.head());
        let (code, doc) = check_range(&ci, &range, &[]);
        (code, doc, ci)
    }
}

/// `gate check --range RANGE --json` with `extra` arguments in `repo`: the
/// exit code and the report.
pub(crate) fn check_range(repo: &TestRepo, range: &str, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["check", "--range", range, "--json"];
    args.extend_from_slice(extra);
    let out = repo.gate().args(&args).output().unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not a report ({e}):\n{}", show(&out)));
    (out.status.code().unwrap(), doc)
}

/// `gate check --range RANGE` in `repo` (`--json` when `json`) as a
/// transcript for a golden, each commit id of `named` (whole and as its
/// first 12 digits) replaced by its name.
fn range_transcript(repo: &TestRepo, range: &str, json: bool, named: &[(&str, &str)]) -> String {
    let mut args = vec!["check", "--range", range];
    if json {
        args.push("--json");
    }
    let out = repo.gate().args(&args).output().unwrap();
    named
        .iter()
        .fold(transcript(Some(repo), &out), |text, (id, name)| {
            text.replace(id, name).replace(&id[..12], name)
        })
}

/// The receipts check of a report.
pub(crate) fn receipts(doc: &Value) -> &Value {
    doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "receipts")
        .unwrap_or_else(|| panic!("no receipts check in {doc:#}"))
}

pub(crate) fn causes(doc: &Value) -> Vec<String> {
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
    let (code, doc) = check_range(&s.remote, &range, &[]);
    assert_eq!(code, 0, "{doc:#}");
    assert!(
        receipts(&doc)["summary"]
            .as_str()
            .unwrap()
            .starts_with("1 of 1 check proved"),
        "{doc:#}"
    );
    // Without the notes, the server refuses.
    s.remote.git(&["update-ref", "-d", "refs/notes/gate"]);
    let (code, doc) = check_range(&s.remote, &range, &[]);
    assert_eq!(code, 1, "{doc:#}");
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
    let named = [(tip.as_str(), "[TIP]")];
    assert_golden(
        "check/range_receipt_missing.txt",
        &range_transcript(&ci, &range, false, &named),
    );
    assert_golden(
        "check/range_receipt_missing_json.txt",
        &range_transcript(&ci, &range, true, &named),
    );
}

#[test]
fn a_note_carried_to_other_content_is_stale() {
    let s = setup();
    verify_exits(&s.dev, "export-tests", 0);
    // The new commit's sources are not what the run saw.
    s.dev
        .write("src/export/mod.rs", "// export, CSV, amended\n");
    amend_carrying_the_note(&s.dev);
    assert!(s.dev.git_ok(&["notes", "--ref", "gate", "show", "HEAD"]));
    s.push(true);
    let (code, doc, _) = s.check();
    assert_eq!(code, 1, "{doc:#}");
    assert_only_finding(&doc, "receipt_stale", "other content");
}

/// Amend HEAD with everything in the work tree; git copies its note to the
/// new commit (`notes.rewriteRef`), as it does for a user who set it.
fn amend_carrying_the_note(repo: &TestRepo) {
    repo.git(&["config", "notes.rewriteRef", "refs/notes/gate"]);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--amend", "--no-edit"]);
}

/// The receipts check found one finding, of `cause`, whose message says
/// `text`.
fn assert_only_finding(doc: &Value, cause: &str, text: &str) {
    assert_eq!(causes(doc), [cause], "{doc:#}");
    assert!(
        receipts(doc)["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains(text),
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
    edit_plan(
        &s.dev,
        "purpose: The export end to end",
        "purpose: The export, end to end",
    );
    amend_carrying_the_note(&s.dev);
    s.push(true);
    let (code, doc, _) = s.check();
    assert_eq!(code, 1, "{doc:#}");
    assert_only_finding(&doc, "receipt_stale", "another contract");
}

// A range that names no task — no commit's trailer names one, no commit
// changes a task's record — proves what `gate status` proves without a task:
// every acceptance check of the plan, by receipts made without a task
// (docs/receipts.md, "Receipts in CI"). Removing the trailers never removes
// the proof.

/// The receipts scenery (`export-tests` over src and tests, `lint` over
/// docs) with no task started, provenance `advisory` and receipts
/// `required`, `plan` (when given) as `.gate/plan.yaml` on the base (none
/// when it is ""), and a work commit that names no task.
fn no_task_setup(plan: Option<&str>) -> Setup {
    let dev = crate::receipts::receipts_scenery("required");
    dev.write(
        ".gate/policy.yaml",
        "version: 1\nbinding: off\nscope: off\nprovenance:\n  mode: advisory\n  merges: refuse\nreceipts:\n  mode: required\n  trust: any-pusher\nbrief:\n  mode: off\n",
    );
    match plan {
        None => {}
        Some("") => dev.remove(b".gate/plan.yaml"),
        Some(plan) => dev.write(".gate/plan.yaml", plan),
    }
    dev.commit_all("provenance advises");
    let base = dev.head();
    dev.write("src/export/mod.rs", "// export, CSV\n");
    dev.commit_all("export: CSV, no task named");
    let remote = TestRepo::bare();
    dev.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
    Setup { dev, remote, base }
}

#[test]
fn a_range_that_names_no_task_proves_every_acceptance_check_without_a_task() {
    let s = no_task_setup(None);
    let (code, doc) = check_unproved(&s, &[]);
    assert_eq!(code, 1, "{doc:#}");
    let missing = findings_of(&doc, "receipt_missing");
    let ids: Vec<&str> = missing
        .iter()
        .map(|f| f["check_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["export-tests", "lint"], "{doc:#}");
    assert_eq!(causes(&doc).len(), 2, "{doc:#}");
    for f in &missing {
        assert_eq!(f["task"], Value::Null, "{f:#}");
        let decide = f["decide"].as_str().unwrap();
        assert!(
            decide.contains("`Task: ID` trailer")
                && decide.contains("with no task active")
                && decide.contains("gate receipts push REMOTE"),
            "{decide}"
        );
    }
    let summary = receipts(&doc)["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("no task in ")
            && summary.contains(": 0 of 2 acceptance checks of the plan proved"),
        "{summary}"
    );
    // The human and JSON renderings.
    let ci = s.ci();
    let tip = ci.head();
    let range = format!("{}..{tip}", s.base);
    let named = [(tip.as_str(), "[TIP]"), (s.base.as_str(), "[BASE]")];
    assert_golden(
        "check/range_no_task_receipt_missing.txt",
        &range_transcript(&ci, &range, false, &named),
    );
    assert_golden(
        "check/range_no_task_receipt_missing_json.txt",
        &range_transcript(&ci, &range, true, &named),
    );

    // What the remedy says: each check verified with no task active, its
    // note pushed.
    verify_exits(&s.dev, "export-tests", 0);
    verify_exits(&s.dev, "lint", 0);
    s.push_receipts();
    let (code, doc, _) = s.check();
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(causes(&doc), Vec::<String>::new(), "{doc:#}");
    let summary = receipts(&doc)["summary"].as_str().unwrap();
    assert!(
        summary.contains(
            ": 2 of 2 acceptance checks of the plan proved by receipts made without a task"
        ),
        "{summary}"
    );

    // A receipt made for a task proves that task's work, not a range that
    // names none: the task's later attempt replaces the entry, and the
    // check is missing again.
    crate::fixture::start_42(&s.dev);
    verify_exits(&s.dev, "export-tests", 0);
    s.push_receipts();
    let (code, doc, _) = s.check();
    assert_eq!(code, 1, "{doc:#}");
    assert_only_finding(&doc, "receipt_missing", "made for task T-42");
    assert_eq!(receipts(&doc)["findings"][0]["check_id"], "export-tests");
}

#[test]
fn an_empty_range_names_no_task_and_proves_every_acceptance_check_on_its_tip() {
    let s = setup();
    s.push(false);
    let ci = s.ci();
    let range = format!("{}..{}", s.base, s.base);
    let (code, doc) = check_range(&ci, &range, &[]);
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(
        causes(&doc),
        ["receipt_missing", "receipt_missing"],
        "{doc:#}"
    );
    assert!(
        receipts(&doc)["summary"]
            .as_str()
            .unwrap()
            .starts_with("no task in"),
        "{doc:#}"
    );
}

#[test]
fn a_range_that_names_no_task_under_a_plan_without_acceptance_checks_says_so_and_passes() {
    let s = no_task_setup(Some("checks: []\n"));
    let (code, doc) = check_unproved(&s, &[]);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(causes(&doc), Vec::<String>::new(), "{doc:#}");
    let summary = receipts(&doc)["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("no task in ")
            && summary.ends_with(", and the plan declares no acceptance check: nothing to prove"),
        "{summary}"
    );
}

#[test]
fn a_range_that_names_no_task_and_holds_no_plan_is_unknown() {
    let s = no_task_setup(Some(""));
    let (code, doc) = check_unproved(&s, &[]);
    assert_eq!(code, 3, "{doc:#}");
    assert_eq!(causes(&doc), ["input_unreadable"], "{doc:#}");
    let finding = &receipts(&doc)["findings"][0];
    assert_eq!(finding["unknown"], true, "{finding:#}");
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "nor the range's base ({}) holds a .gate/plan.yaml",
            &s.base[..12]
        )),
        "{message}"
    );
}

#[test]
fn a_range_that_names_no_task_cannot_drop_an_acceptance_check_from_the_plan() {
    let s = no_task_setup(None);
    // The pull request takes `lint` out of the plan.
    edit_plan(
        &s.dev,
        "  - id: lint\n    command: sh check.sh\n    sources: [docs]\n    purpose: The docs are clean\n",
        "",
    );
    s.dev.commit_all("plan: no lint");
    verify_exits(&s.dev, "export-tests", 0);
    s.push(true);
    let (code, doc, _) = s.check();
    assert_eq!(code, 1, "{doc:#}");
    let loosened = findings_of(&doc, "plan_loosened");
    assert_eq!(loosened.len(), 1, "{doc:#}");
    assert_eq!(loosened[0]["check_id"], "lint");
    assert!(
        loosened[0]["message"]
            .as_str()
            .unwrap()
            .contains(&format!("the plan at the range's base ({})", &s.base[..12])),
        "{doc:#}"
    );
    let missing = findings_of(&doc, "receipt_missing");
    assert_eq!(missing.len(), 1, "{doc:#}");
    assert_eq!(missing[0]["check_id"], "lint");
}

#[test]
fn pre_push_refuses_commits_that_name_no_task_when_no_task_is_active() {
    // Pre-push judges the active task, never the trailers: with none active
    // (and no task record pushed) the receipts check is `no_active_task`.
    let s = no_task_setup(None);
    let out = s.dev.gate().arg("install").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = s.dev.git_may_fail(&["push", "origin", "main"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let said = crate::receipts::said(&out);
    assert!(said.contains("no_active_task"), "{said}");
    assert!(
        !s.remote
            .git_ok(&["rev-parse", "--verify", "-q", "refs/heads/main"])
    );
}

// The plan's trust (docs/trust.md): what a task must prove is the union of
// what the trusted side (the range's base, or --policy-from) requires and
// what the tip requires; the tip cannot drop a requirement.

/// Push without notes and check in a fresh clone, with `extra` arguments.
fn check_unproved(s: &Setup, extra: &[&str]) -> (i32, Value) {
    s.push(false);
    let ci = s.ci();
    let range = format!("{}..{}", s.base, ci.head());
    check_range(&ci, &range, extra)
}

/// The findings of `cause` in the receipts check.
fn findings_of<'d>(doc: &'d Value, cause: &str) -> Vec<&'d Value> {
    receipts(doc)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["cause"] == cause)
        .collect()
}

/// Edit the developer's plan in place.
fn edit_plan(repo: &TestRepo, from: &str, to: &str) {
    let plan = std::fs::read_to_string(repo.path().join(".gate/plan.yaml")).unwrap();
    assert!(plan.contains(from), "the plan has no `{from}`:\n{plan}");
    repo.write(".gate/plan.yaml", plan.replace(from, to));
}

#[test]
fn a_tip_whose_plan_drops_the_criterions_check_must_still_prove_it() {
    let s = setup();
    // The pull request takes the check out of the criterion's evidence.
    edit_plan(&s.dev, "evidence: [export-tests]", "evidence: []");
    s.dev.commit_all("plan: C1 needs no check\n\nTask: T-42");
    let (code, doc) = check_unproved(&s, &[]);
    assert_eq!(code, 1, "{doc:#}");
    let missing = findings_of(&doc, "receipt_missing");
    assert_eq!(missing.len(), 1, "{doc:#}");
    assert_eq!(missing[0]["check_id"], "export-tests");
    let loosened = findings_of(&doc, "plan_loosened");
    assert_eq!(loosened.len(), 1, "{doc:#}");
    assert_eq!(loosened[0]["severity"], "blocker");
    assert_eq!(loosened[0]["task"], "T-42");
    let message = loosened[0]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("the range's base ({})", &s.base[..12]))
            && message.contains("I-export#C1"),
        "{message}"
    );
    // The task is new in the range: the report says whose record judged it.
    let summary = receipts(&doc)["summary"].as_str().unwrap();
    assert!(summary.starts_with("0 of 1 check proved"), "{summary}");
    assert!(
        summary.contains("new in the range, so judged by the tip's record only: T-42"),
        "{summary}"
    );
    // The same with the trusted side named by --policy-from.
    let (code, doc) = check_unproved(&s, &["--policy-from", "origin/main~1"]);
    assert_eq!(code, 1, "{doc:#}");
    let loosened = findings_of(&doc, "plan_loosened");
    assert!(
        loosened[0]["message"]
            .as_str()
            .unwrap()
            .contains("--policy-from origin/main~1"),
        "{doc:#}"
    );
}

#[test]
fn a_tip_whose_issue_serves_nothing_more_must_still_prove_the_check() {
    let s = setup();
    // Issue 42 moves under no intent: a maintenance issue serves nothing.
    edit_plan(&s.dev, "    intent: I-export\n    serves: [C1]\n", "");
    s.dev.commit_all("plan: 42 is maintenance\n\nTask: T-42");
    let (code, doc) = check_unproved(&s, &[]);
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(findings_of(&doc, "receipt_missing").len(), 1, "{doc:#}");
    assert_eq!(findings_of(&doc, "plan_loosened").len(), 1, "{doc:#}");
}

#[test]
fn a_tip_whose_task_record_drops_the_issue_must_still_prove_its_checks() {
    let dev = crate::receipts::receipts_repo("required");
    // The task's record is on the base: the trusted side has it.
    dev.commit_all("T-42: the task");
    let base = dev.head();
    // The pull request rewrites the record to name the maintenance issue.
    let file = dev.path().join(".gate/tasks/T-42.md");
    let record = std::fs::read_to_string(&file).unwrap();
    assert!(record.contains("issue: \"42\""), "{record}");
    dev.write(
        ".gate/tasks/T-42.md",
        record.replace("issue: \"42\"", "issue: \"7\""),
    );
    dev.write("src/export/mod.rs", "// export, CSV\n");
    dev.commit_all("export: CSV\n\nTask: T-42");
    let remote = TestRepo::bare();
    dev.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
    let s = Setup { dev, remote, base };
    let (code, doc) = check_unproved(&s, &[]);
    assert_eq!(code, 1, "{doc:#}");
    let missing = findings_of(&doc, "receipt_missing");
    assert_eq!(missing.len(), 1, "{doc:#}");
    assert_eq!(missing[0]["check_id"], "export-tests");
    assert_eq!(findings_of(&doc, "plan_loosened").len(), 1, "{doc:#}");
    // Not new in the range: its record on the base judges too.
    let summary = receipts(&doc)["summary"].as_str().unwrap();
    assert!(!summary.contains("new in the range"), "{summary}");
}

#[test]
fn a_tip_that_loosens_a_checks_contract_is_refused_though_its_receipt_passed() {
    let s = setup();
    // The check now proves nothing; its receipt is made under that contract.
    edit_plan(
        &s.dev,
        "command: \"test -f check.sh && sh check.sh\"\n    sources: [src, tests]",
        "command: \"true\"\n    sources: [src]",
    );
    s.dev.commit_all("plan: a quicker check\n\nTask: T-42");
    verify_exits(&s.dev, "export-tests", 0);
    s.push(true);
    let (code, doc, _) = s.check();
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(causes(&doc), ["plan_loosened"], "{doc:#}");
    let message = receipts(&doc)["findings"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("becomes `true`") && message.contains("no longer covers tests"),
        "{message}"
    );
    assert!(
        receipts(&doc)["summary"]
            .as_str()
            .unwrap()
            .starts_with("1 of 1 check proved"),
        "{doc:#}"
    );
}

#[test]
fn a_tip_that_widens_a_checks_sources_is_no_loosening() {
    let s = setup();
    edit_plan(
        &s.dev,
        "sources: [src, tests]",
        "sources: [src, tests, README.md]",
    );
    s.dev
        .commit_all("plan: the check reads the README\n\nTask: T-42");
    verify_exits(&s.dev, "export-tests", 0);
    s.push(true);
    let (code, doc, _) = s.check();
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(causes(&doc), Vec::<String>::new(), "{doc:#}");
}

#[test]
fn a_range_whose_commits_name_no_task_is_refused_by_provenance() {
    // Provenance, required, refuses the commit that belongs to none
    // (receipts are off here; what they ask of such a range is above).
    let dev = crate::fixture::plan_repo("required");
    let base = dev.head();
    dev.write("src/export/mod.rs", "// export, CSV\n");
    dev.commit_all("export: CSV, no task named");
    let (code, doc) = check_range(&dev, &format!("{base}..HEAD"), &[]);
    assert_eq!(code, 1, "{doc:#}");
    let provenance = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "provenance")
        .unwrap();
    let causes: Vec<&str> = provenance["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["cause"].as_str().unwrap())
        .collect();
    assert_eq!(causes, ["unattributed_commit"], "{doc:#}");
}

// The binding judged in CI (docs/ci.md): every task the range touches, from
// its record at the tip, against the tip's plan and the trusted one.

/// A developer's clone under `binding: required` (every other check off)
/// with task T-42 started and committed, and `owner` applied to the plan
/// on the base; the pull request's work commit follows with `pr` applied.
fn binding_setup(owner: (&str, &str), pr: (&str, &str)) -> Setup {
    let dev = crate::fixture::plan_repo("off");
    dev.write(
        ".gate/policy.yaml",
        "version: 1\nbinding: required\nscope: off\nprovenance:\n  mode: off\n  merges: refuse\nreceipts:\n  mode: off\nbrief:\n  mode: off\n",
    );
    dev.commit_all("binding required");
    crate::fixture::start_42(&dev);
    edit_plan(&dev, owner.0, owner.1);
    dev.commit_all("T-42, and the owner's plan");
    let base = dev.head();
    edit_plan(&dev, pr.0, pr.1);
    dev.write("src/export/mod.rs", "// export, CSV\n");
    dev.commit_all("export: CSV\n\nTask: T-42");
    let remote = TestRepo::bare();
    dev.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
    Setup { dev, remote, base }
}

/// The binding check of a report.
fn binding(doc: &Value) -> &Value {
    doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "binding")
        .unwrap_or_else(|| panic!("no binding check in {doc:#}"))
}

#[test]
fn a_range_judges_the_binding_of_each_task_from_its_record_at_the_tip() {
    // Unchanged plans: bound.
    let s = binding_setup(("title: CSV export", "title: CSV export"), ("", ""));
    let (code, doc) = check_unproved(&s, &[]);
    assert_eq!(code, 0, "{doc:#}");
    let summary = binding(&doc)["summary"].as_str().unwrap();
    assert!(summary.ends_with(": T-42 bound"), "{summary}");

    // The tip retires the task's intent: refused by the tip's own plan.
    let s = binding_setup(
        ("title: CSV export", "title: CSV export"),
        ("    status: active\n", "    status: retired\n"),
    );
    let (code, doc) = check_unproved(&s, &[]);
    assert_eq!(code, 1, "{doc:#}");
    let finding = &binding(&doc)["findings"][0];
    assert_eq!(finding["cause"], "intent_retired", "{doc:#}");
    assert_eq!(finding["task"], "T-42");
    assert!(
        binding(&doc)["summary"]
            .as_str()
            .unwrap()
            .ends_with(": T-42 refused")
    );
}

#[test]
fn a_range_cannot_resolve_its_own_blocking_finding() {
    let open =
        "    findings:\n      - id: F1\n        blocking: true\n        text: Which encoding?\n";
    let s = binding_setup(
        ("    findings: []\n", open),
        (
            open,
            &format!("{open}        resolution: UTF-8, says the worker.\n"),
        ),
    );
    let (code, doc) = check_unproved(&s, &[]);
    assert_eq!(code, 1, "{doc:#}");
    let findings = binding(&doc)["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{doc:#}");
    assert_eq!(findings[0]["cause"], "open_blocking_finding");
    let message = findings[0]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "by the plan at the range's base ({})",
            &s.base[..12]
        )),
        "{message}"
    );
    assert!(
        findings[0]["decide"]
            .as_str()
            .unwrap()
            .contains("land it on its own first"),
        "{doc:#}"
    );
}

#[test]
fn a_server_judges_by_its_heads_plan_too() {
    // The branch was cut before the owners made C1 need export-tests; the
    // server's HEAD (main) has that rule now, and judges the push by it.
    let dev = crate::receipts::receipts_repo("required");
    edit_plan(&dev, "evidence: [export-tests]", "evidence: []");
    dev.commit_all("plan: C1 without evidence yet");
    let base = dev.head();
    dev.git(&["switch", "-q", "-c", "feature"]);
    dev.write("src/export/mod.rs", "// export, CSV\n");
    dev.commit_all("export: CSV\n\nTask: T-42");
    let tip = dev.head();
    dev.git(&["switch", "-q", "main"]);
    edit_plan(&dev, "evidence: []", "evidence: [export-tests]");
    dev.commit_all("plan: C1 needs export-tests");
    let remote = TestRepo::bare();
    let url = remote.path().to_str().unwrap();
    dev.git(&["push", "-q", "--no-verify", url, "main", "feature"]);
    let (code, doc) = check_range(&remote, &format!("{base}..{tip}"), &[]);
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(findings_of(&doc, "receipt_missing").len(), 1, "{doc:#}");
    let loosened = findings_of(&doc, "plan_loosened");
    assert_eq!(loosened.len(), 1, "{doc:#}");
    let head = remote.rev("HEAD");
    assert!(
        loosened[0]["message"]
            .as_str()
            .unwrap()
            .contains(&format!("the plan at HEAD ({})", &head[..12])),
        "{doc:#}"
    );
}
