//! Rows of the three source systems' behaviour that gate builds its own
//! version of (docs/sources.md): each test is named after the behaviour
//! of the source it matches — the binding (A), the brief (B) and the goal
//! assurance (C).

use serde_json::Value;

use crate::ci_receipts::{causes, check_range};
use crate::fixture::{PLAN, show};
use crate::receipts::{receipts, receipts_scenery, verify_exits};
use crate::support::TestRepo;

/// A check that asserts, with the task's baseline and no moving ref, that
/// the work changed `src/export/mod.rs`: it holds only when `{BASELINE}`
/// and `GATE_BASELINE` both name the task's baseline.
const SCOPE_COMMAND: &str = r#"test \"{BASELINE}\" = \"$GATE_BASELINE\" && git diff --name-only '{BASELINE}'..HEAD -- src | grep -qx src/export/mod.rs"#;

/// [`receipts_scenery`] whose `export-tests` runs [`SCOPE_COMMAND`].
fn baseline_repo() -> TestRepo {
    let repo = receipts_scenery("required");
    let plan = std::fs::read_to_string(repo.path().join(".gate/plan.yaml")).unwrap();
    let with = plan.replace(
        "command: \"test -f check.sh && sh check.sh\"",
        &format!("command: \"{SCOPE_COMMAND}\""),
    );
    assert_ne!(with, plan, "the receipts plan changed: update this test");
    repo.write(".gate/plan.yaml", &with);
    repo.commit_all("the check names the task's baseline");
    repo
}

fn task_baseline(repo: &TestRepo) -> String {
    let record = std::fs::read_to_string(repo.path().join(".gate/tasks/T-42.md")).unwrap();
    record
        .lines()
        .find_map(|l| l.strip_prefix("baseline: "))
        .unwrap_or_else(|| panic!("no baseline in {record}"))
        .trim_matches(['"', '\''])
        .to_string()
}

/// Source C: "Git ranges that measure what the goal changed use
/// `{BASELINE}` as the earlier state; it is rewritten to the HEAD sha
/// captured when the plan was submitted, so commits already ahead of
/// origin/main or a dirty tree do not make the goal unfinishable." gate
/// rewrites it to the task's baseline (and sets `GATE_BASELINE`), the
/// receipt records that baseline, and its contract covers it: CI proves
/// the note at the task's baseline as recorded at the tip.
#[test]
fn baseline_placeholder_is_rewritten_to_the_commit_captured_at_start() {
    let dev = baseline_repo();
    crate::fixture::start_42(&dev);
    let base = dev.head();
    let baseline = task_baseline(&dev);
    assert_eq!(baseline, base);
    // Before the work, the range holds no change to the export: it fails.
    verify_exits(&dev, "export-tests", 1);
    dev.write("src/export/mod.rs", "// export, CSV\n");
    dev.commit_all("export: CSV\n\nTask: T-42");
    // A commit after it moves HEAD, not the baseline.
    dev.write("src/export/more.rs", "// more\n");
    dev.commit_all("export: more\n\nTask: T-42");
    verify_exits(&dev, "export-tests", 0);
    let latest = receipts(&dev, "export-tests").pop().unwrap();
    assert_eq!(latest["baseline"], baseline.as_str(), "{latest:#}");
    // The declaration is recorded as written; the contract is not the
    // declaration's alone.
    assert_eq!(latest["command"], SCOPE_COMMAND.replace("\\\"", "\""));
    let first = &receipts(&dev, "export-tests")[0];
    assert_eq!(first["contract"], latest["contract"]);
    // gate status counts it as passed.
    let out = dev.gate().args(["status", "--json"]).output().unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let states: Vec<&str> = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["check"] == "export-tests")
        .map(|c| c["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["passed"], "{doc:#}");

    // In CI, the note is proved at the baseline TIP's task record names.
    let remote = TestRepo::bare();
    let url = remote.path().to_str().unwrap().to_string();
    dev.git(&["remote", "add", "origin", &url]);
    dev.git(&["push", "-q", "--no-verify", "origin", "main"]);
    let out = dev
        .gate()
        .args(["receipts", "push", "origin"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let range = format!("{base}..main");
    let (code, doc) = check_range(&remote, &range, &["--only", "receipts"]);
    assert_eq!(code, 0, "{doc:#}");
    assert!(causes(&doc).is_empty(), "{doc:#}");
}

/// Source C: the baseline is captured once, with the plan: a check that
/// names `{BASELINE}` means nothing without one. gate does not run it
/// without a task (unknown, exit 3), and runs nothing.
#[test]
fn a_baseline_check_without_a_task_is_not_run() {
    let repo = baseline_repo();
    let out = verify_exits(&repo, "export-tests", 3);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("{BASELINE}"), "{}", show(&out));
    assert!(said.contains("gate start"), "{}", show(&out));
    assert!(receipts(&repo, "export-tests").is_empty());
}

/// `gate plan validate --json` in `repo`: the command lints, as (cause,
/// key) pairs.
fn command_lints(repo: &TestRepo) -> Vec<(String, String)> {
    let out = repo
        .gate()
        .args(["plan", "validate", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["checks"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["cause"].as_str().unwrap().starts_with("command_"))
        .map(|f| {
            (
                f["cause"].as_str().unwrap().to_string(),
                f["key"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The fixture plan with the checks of `extra` (YAML list entries) after
/// `export-tests`.
fn plan_with_checks(extra: &str) -> String {
    let plan = PLAN.replace(
        "    command: \"true\"\n    sources: [src, tests]\n",
        &format!("    command: \"true\"\n    sources: [src, tests]\n{extra}"),
    );
    assert_ne!(plan, PLAN, "the fixture plan changed: update this test");
    plan
}

/// Source C: "A non-empty `git log <baseline>..HEAD -- <paths>` proves only
/// that some commit matches the filter … New plans reject stand-alone,
/// path-filtered, non-empty git-log assertions." gate warns
/// (`command_filters_history`): the plan still means one thing.
#[test]
fn path_filtered_git_log_assertions_are_flagged() {
    let repo = crate::fixture::plan_repo("required");
    repo.write(
        ".gate/plan.yaml",
        plan_with_checks(concat!(
            "  - id: touched\n    command: test -n \"$(git log {BASELINE}..HEAD -- src)\"\n    sources: [src]\n",
            "  - id: counted\n    command: git rev-list --count A..B -- lib | grep -qv '^0$'\n    sources: [src]\n",
            "  - id: whole\n    command: git diff --name-only {BASELINE}..HEAD -- src\n    sources: [src]\n",
        )),
    );
    assert_eq!(
        command_lints(&repo),
        [
            ("command_filters_history".into(), "checks[1].command".into()),
            ("command_filters_history".into(), "checks[2].command".into()),
        ]
    );
}

/// Source C: "Remote-tracking refs (origin/main, @{u}, refs/remotes/…) are
/// rejected as that earlier state unless the goal names the remote." gate
/// reads the clone's own remote names as well as `origin` and `upstream`.
#[test]
fn remote_tracking_refs_of_the_clones_remotes_are_moving() {
    let repo = crate::fixture::plan_repo("required");
    repo.write(
        ".gate/plan.yaml",
        plan_with_checks(
            "  - id: fork\n    command: git diff --exit-code fork/main -- src\n    sources: [src]\n",
        ),
    );
    assert!(command_lints(&repo).is_empty());
    let elsewhere = TestRepo::bare();
    repo.git(&["remote", "add", "fork", elsewhere.path().to_str().unwrap()]);
    assert_eq!(
        command_lints(&repo),
        [(
            "command_names_moving_ref".into(),
            "checks[1].command".into()
        )]
    );
}

/// A policy with the brief `required`, every other check off.
const BRIEF_REQUIRED: &str = "version: 1\nbinding: off\nscope: off\nprovenance:\n  mode: off\n  merges: refuse\nreceipts:\n  mode: off\nbrief:\n  mode: required\n";

/// `gate task ask` in `repo` with `args` after the question and answer
/// files (written here).
fn ask(repo: &TestRepo, args: &[&str]) -> std::process::Output {
    repo.write("ctl/q.txt", "Excel or CSV?\n");
    repo.write("ctl/a.txt", "CSV: every spreadsheet program opens it.\n");
    repo.write(
        "ctl/why.txt",
        "CSV is the format every spreadsheet program and the billing importer read without a plugin.\n",
    );
    repo.gate()
        .args(["task", "ask", "--author", "Agent", "--stage", "design"])
        .args(["--question-file", "ctl/q.txt", "--answer-file", "ctl/a.txt"])
        .args(args)
        .output()
        .unwrap()
}

/// The causes of the brief check in a `gate check --json` report.
fn brief_causes(doc: &Value) -> Vec<String> {
    doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["check"] == "brief")
        .flat_map(|c| c["findings"].as_array().unwrap().iter())
        .map(|f| f["cause"].as_str().unwrap().to_string())
        .collect()
}

fn check_json(repo: &TestRepo, args: &[&str]) -> (i32, Value) {
    let out = repo
        .gate()
        .args(["check", "--json"])
        .args(args)
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not a report ({e}):\n{}", show(&out)));
    (out.status.code().unwrap(), doc)
}

/// Source B: "any unresolved contradiction with an existing wish blocks
/// the final verdict and returns the task for rework." An agent's decision
/// recorded with a conflict is a `brief` blocker (`conflict_unresolved`) —
/// in `gate check`, in a range in CI, in `gate context` and in the Stop
/// hook — until an operator's answer (`--resolves ROUND`) closes it. Q&A
/// entries carry their round, as the source's do.
#[test]
fn an_unresolved_conflict_blocks_until_the_operator_answers() {
    let repo = crate::fixture::plan_repo("off");
    repo.write(".gate/policy.yaml", BRIEF_REQUIRED);
    repo.write(".gitignore", "ctl/\n");
    repo.commit_all("brief required");
    crate::fixture::start_42(&repo);
    let base = repo.head();
    // Round 1: the agent decides, with no conflict.
    let out = ask(
        &repo,
        &[
            "--decided-by",
            "agent",
            "--rationale-file",
            "ctl/why.txt",
            "--summary",
            "CSV files",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(check_json(&repo, &[]).0, 0);
    // Round 2: the agent decides against the operator's words.
    let out = ask(
        &repo,
        &[
            "--decided-by",
            "agent",
            "--rationale-file",
            "ctl/why.txt",
            "--summary",
            "CSV instead of Excel",
            "--conflict",
            "the brief asks for an Excel file",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let record = std::fs::read_to_string(repo.path().join(".gate/tasks/T-42.md")).unwrap();
    let rounds: Vec<&str> = record
        .lines()
        .filter(|l| l.starts_with("- round: "))
        .collect();
    assert_eq!(rounds, ["- round: 1", "- round: 2"]);

    let (code, doc) = check_json(&repo, &[]);
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(brief_causes(&doc), ["conflict_unresolved"], "{doc:#}");
    let finding = &doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "brief")
        .unwrap()["findings"][0];
    assert!(
        finding["decide"]
            .as_str()
            .unwrap()
            .contains("--decided-by operator --resolves 2"),
        "{finding:#}"
    );

    // gate context shows it, and says what closes it.
    let out = repo.gate().args(["context", "--json"]).output().unwrap();
    let context: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(context["conflicts"][0]["round"], 2, "{context:#}");
    assert_eq!(
        context["conflicts"][0]["conflict"],
        "the brief asks for an Excel file"
    );
    assert!(
        context["next"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["command"].as_str().unwrap().contains("--resolves 2")),
        "{context:#}"
    );
    // The Stop hook lets the agent stop and tells the operator why.
    let stop = format!(
        r#"{{"hook_event_name":"Stop","session_id":"s","cwd":{:?},"stop_hook_active":false}}"#,
        repo.path().to_str().unwrap()
    );
    let out = repo
        .gate()
        .args(["hook", "claude-code", "stop"])
        .write_stdin(stop)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let said: Value = serde_json::from_slice(&out.stdout).unwrap();
    let message = said["systemMessage"].as_str().unwrap_or_default();
    assert!(message.contains("waits for the operator"), "{said:#}");
    assert!(message.contains("round 2"), "{said:#}");

    // In CI, the range that carries the task file with the open conflict.
    repo.commit_all("export: decided\n\nTask: T-42");
    let (code, doc) = crate::ci_receipts::check_range(&repo, &format!("{base}..HEAD"), &[]);
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(brief_causes(&doc), ["conflict_unresolved"], "{doc:#}");

    // Only the operator closes it, and only a conflict that is there.
    let out = ask(
        &repo,
        &["--decided-by", "agent", "--summary", "s", "--resolves", "2"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let out = ask(
        &repo,
        &[
            "--decided-by",
            "operator",
            "--summary",
            "s",
            "--resolves",
            "1",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("open: round 2"),
        "{}",
        show(&out)
    );
    let out = ask(
        &repo,
        &[
            "--decided-by",
            "operator",
            "--resolves",
            "2",
            "--summary",
            "CSV it is; Excel can open it",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let (code, doc) = check_json(&repo, &[]);
    assert_eq!(code, 0, "{doc:#}");
    assert!(brief_causes(&doc).is_empty(), "{doc:#}");
    repo.commit_all("the operator answered\n\nTask: T-42");
    let (code, doc) = crate::ci_receipts::check_range(&repo, &format!("{base}..HEAD"), &[]);
    assert_eq!(code, 0, "{doc:#}");
}

/// `gate hook claude-code pre-tool-use` in `repo` for a `Write` of `path`:
/// the answer printed (`Value::Null` for none).
fn pre_tool_write(repo: &TestRepo, path: &std::path::Path) -> Value {
    let input = serde_json::json!({
        "session_id": "s1",
        "cwd": repo.path(),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": path, "content": "scratch\n"},
    });
    let out = repo
        .gate()
        .args(["hook", "claude-code", "pre-tool-use"])
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    if out.stdout.is_empty() {
        return Value::Null;
    }
    serde_json::from_slice(&out.stdout).unwrap()
}

fn external_edits(repo: &TestRepo) -> Value {
    let out = repo.gate().args(["context", "--json"]).output().unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not a context ({e}):\n{}", show(&out)));
    doc["external_edits"].clone()
}

/// Source C: "Freshness also fingerprints the paths that file-editing tools
/// reported editing during the goal" — the assurance runtime sees every
/// edit, and reports one outside the workspace as the boundary
/// (`external`). gate's agent hook reports a write that lands outside the
/// repository, in no repository gate governs, and `gate context` lists it;
/// `agents.external_edits` decides deny / report / allow.
#[test]
fn edits_outside_the_repository_are_reported_as_the_boundary() {
    let repo = crate::fixture::plan_repo("advisory");
    crate::fixture::start_42(&repo);
    let outside = tempfile::tempdir().unwrap();
    let scratch = outside.path().join("notes.txt");
    let landed = std::fs::canonicalize(outside.path())
        .unwrap()
        .join("notes.txt");
    // The default: reported, let through, recorded.
    let answer = pre_tool_write(&repo, &scratch);
    assert!(
        answer["systemMessage"]
            .as_str()
            .is_some_and(|m| m.contains("outside the repository")),
        "{answer:#}"
    );
    assert!(answer.get("hookSpecificOutput").is_none(), "{answer:#}");
    pre_tool_write(&repo, &scratch);
    let recorded = external_edits(&repo);
    assert_eq!(recorded["policy"], "report", "{recorded:#}");
    assert_eq!(recorded["edits"][0]["path"], landed.to_str().unwrap());
    assert_eq!(recorded["edits"][0]["tool"], "Write");
    assert_eq!(recorded["edits"][0]["count"], 2);
    // A repository gate does not govern is outside too.
    let other = TestRepo::new();
    pre_tool_write(&repo, &other.path().join("x.txt"));
    assert_eq!(external_edits(&repo)["edits"].as_array().unwrap().len(), 2);
    // The human context says it.
    let out = repo.gate().args(["context"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("edits outside the repository"),
        "{}",
        show(&out)
    );

    // `deny`: refused before the edit (a work tree policy that tightens
    // applies at once).
    let policy = std::fs::read_to_string(repo.path().join(".gate/policy.yaml")).unwrap();
    repo.write(
        ".gate/policy.yaml",
        format!("{policy}agents:\n  external_edits: deny\n"),
    );
    let answer = pre_tool_write(&repo, &scratch);
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer:#}"
    );
    // Nothing more recorded for it (entries are by path; the latest first).
    let edits = external_edits(&repo)["edits"].clone();
    let scratch_edit = edits
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["path"] == landed.to_str().unwrap())
        .unwrap_or_else(|| panic!("{edits:#}"))
        .clone();
    assert_eq!(scratch_edit["count"], 2, "{edits:#}");

    // `allow`, committed: nothing said, nothing recorded.
    repo.write(
        ".gate/policy.yaml",
        format!("{policy}agents:\n  external_edits: allow\n"),
    );
    repo.git(&["add", ".gate/policy.yaml"]);
    repo.git(&["commit", "-q", "-m", "allow edits outside"]);
    assert_eq!(
        pre_tool_write(&repo, &outside.path().join("more.txt")),
        Value::Null
    );
    assert_eq!(external_edits(&repo)["edits"].as_array().unwrap().len(), 2);

    // A session gate does not govern: not gate's business.
    assert_eq!(pre_tool_write(&other, &scratch), Value::Null);
}

/// `gate plan validate --json` in `repo`: the exit code and its findings as
/// (cause, severity, key).
fn plan_findings(repo: &TestRepo) -> (i32, Vec<(String, String, String)>) {
    let out = repo
        .gate()
        .args(["plan", "validate", "--json"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not a report ({e}):\n{}", show(&out)));
    let found = doc["checks"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["cause"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
                f["key"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    (out.status.code().unwrap(), found)
}

/// Source A: the critique record says who reviewed the plan it judged, and
/// records the revision it reviewed ("a later milestone gives the critique
/// record the `plan_revision` it reviewed"). gate's `plan critique` records
/// `reviewed_by` (`--by`, else git's user.name) beside the intent revision,
/// and `plan validate` warns about a critique that records no revision:
/// it could never be found stale.
#[test]
fn a_critique_records_who_reviewed_and_an_unstamped_one_is_warned() {
    let repo = crate::fixture::plan_repo("required");
    // The fixture's critique records no revision.
    let (code, found) = plan_findings(&repo);
    assert_eq!(code, 0, "{found:?}");
    assert_eq!(
        found,
        [(
            "critique_not_stamped".to_string(),
            "warn".to_string(),
            "critiques[0]".to_string()
        )]
    );
    let critique = |args: &[&str]| {
        let out = repo
            .gate()
            .args(["plan", "critique", "I-export", "--json"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let by = critique(&["--by", "Grace Hopper"]);
    assert_eq!(by["reviewed_by"], "Grace Hopper");
    assert!(
        by["entry"]
            .as_str()
            .unwrap()
            .contains("    reviewed_by: \"Grace Hopper\"\n"),
        "{by:#}"
    );
    // git's user, and written into the plan: stamped, nothing to warn.
    let written = critique(&["--write", "--replace"]);
    assert_eq!(written["reviewed_by"], "Test Operator");
    let plan = std::fs::read_to_string(repo.path().join(".gate/plan.yaml")).unwrap();
    assert!(plan.contains("reviewed_by: \"Test Operator\""), "{plan}");
    assert_eq!(plan_findings(&repo), (0, vec![]));
    // No reviewer to name: a usage error, nothing written.
    repo.git(&["config", "user.name", ""]);
    let out = repo
        .gate()
        .args(["plan", "critique", "I-export"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--by"),
        "{}",
        show(&out)
    );
}

/// Source A: a critique finding may be resolved as planned in an issue; one
/// planned in an issue that is closed "fails validation" — nothing answers
/// it any more — and a blocking one is open again for the binding.
#[test]
fn a_finding_resolved_as_planned_into_a_closed_issue_fails_validation() {
    let repo = crate::fixture::plan_repo("required");
    let planned = |issue: &str, status_7: &str| {
        let plan = PLAN
            .replace(
                "    findings: []\n",
                &format!(
                    "    findings:\n      - id: F1\n        blocking: true\n        text: Totals are not rounded.\n        planned_in: \"{issue}\"\n"
                ),
            )
            .replace(
                "    paths: [\"docs/**\"]\n    status: open\n",
                &format!("    paths: [\"docs/**\"]\n    status: {status_7}\n"),
            );
        assert_ne!(plan, PLAN);
        repo.write(".gate/plan.yaml", &plan);
    };
    // The causes of `gate binding --issue 42`'s refusals.
    let refusals = || {
        let out = repo
            .gate()
            .args(["binding", "--issue", "42", "--json"])
            .output()
            .unwrap();
        let doc: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("not a binding ({e}):\n{}", show(&out)));
        doc["refusals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["cause"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    planned("7", "open");
    let (code, found) = plan_findings(&repo);
    assert_eq!(code, 0, "{found:?}");
    assert!(
        !found.iter().any(|f| f.0.starts_with("planned_in")),
        "{found:?}"
    );
    assert_eq!(refusals(), Vec::<String>::new());

    planned("7", "closed");
    let (code, found) = plan_findings(&repo);
    assert_eq!(code, 1, "{found:?}");
    assert!(
        found.contains(&(
            "planned_in_closed_issue".into(),
            "blocker".into(),
            "critiques[0].findings[0].planned_in".into()
        )),
        "{found:?}"
    );
    assert_eq!(refusals(), ["open_blocking_finding"]);
    planned("99", "open");
    let (code, found) = plan_findings(&repo);
    assert_eq!(code, 1, "{found:?}");
    assert!(
        found.iter().any(|f| f.0 == "planned_in_unknown_issue"),
        "{found:?}"
    );
}
