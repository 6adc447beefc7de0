//! The binding end to end (docs/binding.md), through the CLI, human and
//! JSON: every standing and every cause of `gate binding` and the order of
//! judgement; the two pins; the policy at every door (`start`, `gate check`,
//! the pre-push hook through a real `git push`); the record (names and pins
//! only), `gate handover` and `--resolve`; and what `gate plan validate`
//! reports so maintainers fix the plan before workers meet refusals.

use std::process::Output;

use serde_json::Value;

use crate::fixture::{git_path, show, start};
use crate::golden::{assert_golden, transcript};
use crate::support::TestRepo;

// ---------------------------------------------------------------------------
// Scenery

/// A policy with `binding` as written (`None`: the key is absent), one
/// exemption class, and every other check off so only the binding decides.
fn policy(binding: Option<&str>) -> String {
    let line = binding.map_or(String::new(), |b| format!("binding: {b}\n"));
    format!(
        "version: 1\n{line}exemptions:\n  - id: dependency-bump\n    description: Lockfile-only updates\nscope: off\nprovenance:\n  mode: off\n  merges: refuse\nreceipts:\n  mode: off\nbrief:\n  mode: off\n"
    )
}

/// A repository with that policy, `plan`, a few files, one commit and
/// `user.name` set.
fn repo_with(binding: Option<&str>, plan: &str) -> TestRepo {
    let repo = TestRepo::new();
    repo.git(&["config", "user.name", "Test Operator"]);
    repo.write(".gate/policy.yaml", policy(binding));
    repo.write(".gate/plan.yaml", plan);
    repo.write("README.md", "# demo\n");
    repo.write("src/export/mod.rs", "// export\n");
    repo.write("docs/export.md", "# Export\n");
    repo.commit_all("initial");
    repo
}

/// Replace `from` (which must occur exactly once) in the worktree's plan.
fn edit_plan(repo: &TestRepo, from: &str, to: &str) {
    let path = repo.path().join(".gate/plan.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.matches(from).count(), 1, "`{from}` in\n{text}");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn gate(repo: &TestRepo, args: &[&str]) -> Output {
    repo.gate().args(args).output().unwrap()
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", show(out)))
}

/// `gate binding ARGS`, asked twice — human and `--json` — with what both
/// must agree on checked here.
struct Answer {
    code: i32,
    human: String,
    doc: Value,
}

impl Answer {
    fn standing(&self) -> &str {
        self.doc["standing"].as_str().unwrap()
    }

    /// `(cause, issue)` of each refusal, in order.
    fn causes(&self) -> Vec<(String, Option<String>)> {
        self.doc["refusals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["cause"].as_str().unwrap().to_string(),
                    r["issue"].as_str().map(str::to_string),
                )
            })
            .collect()
    }

    fn cause_names(&self) -> Vec<String> {
        self.causes().into_iter().map(|(c, _)| c).collect()
    }

    fn strings(&self, key: &str) -> Vec<String> {
        self.doc[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    }

    fn pins(&self) -> (String, String) {
        (
            self.doc["pins"]["plan_revision"]
                .as_str()
                .unwrap()
                .to_string(),
            self.doc["pins"]["evidence_standing"]
                .as_str()
                .unwrap()
                .to_string(),
        )
    }

    fn plan_revision(&self) -> String {
        self.pins().0
    }

    fn evidence_standing(&self) -> String {
        self.pins().1
    }
}

fn ask(repo: &TestRepo, args: &[&str]) -> Answer {
    let mut all = vec!["binding"];
    all.extend_from_slice(args);
    let human = gate(repo, &all);
    all.push("--json");
    let json = gate(repo, &all);
    assert_eq!(
        human.status.code(),
        json.status.code(),
        "{args:?}\n{}\n{}",
        show(&human),
        show(&json)
    );
    let code = human.status.code().unwrap();
    let doc = json_of(&json);
    assert_eq!(doc["schema"], "gate.binding/1");
    assert_eq!(doc["exit_code"].as_i64(), Some(i64::from(code)), "{args:?}");
    let text = stdout(&human);
    let answer = Answer {
        code,
        human: text.clone(),
        doc,
    };
    assert!(
        text.starts_with(&format!("binding: {}\n", answer.standing())),
        "{args:?}\n{text}"
    );
    for (cause, issue) in answer.causes() {
        let shown = match issue {
            Some(i) => format!("✗ {cause} [issue {i}]"),
            None => format!("✗ {cause} "),
        };
        assert!(text.contains(&shown), "{args:?}: `{shown}` missing\n{text}");
    }
    for note in answer.strings("notes") {
        assert!(text.contains(&format!("note: {note}")), "{args:?}\n{text}");
    }
    // The exit code follows the answer, whatever the policy's mode.
    let want = if answer.standing() == "refused" { 1 } else { 0 };
    assert_eq!(code, want, "{args:?}\n{text}");
    answer
}

/// Nothing was written: no task file, no active pointer.
fn assert_nothing_written(repo: &TestRepo, context: &str) {
    let tasks = repo.path().join(".gate/tasks");
    let files: Vec<_> = std::fs::read_dir(&tasks)
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(files.is_empty(), "{context}: task files written: {files:?}");
    assert!(
        !git_path(repo, "gate/active").exists(),
        "{context}: the active pointer was written"
    );
}

/// The plan `gate plan validate` prints for `intent` (the revision a new
/// critique records).
fn printed_revision(repo: &TestRepo, intent: &str) -> String {
    let out = gate(repo, &["plan", "validate"]);
    let want = format!("note: intent {intent}: intent_revision ");
    let line = stdout(&out)
        .lines()
        .find(|l| l.starts_with(&want))
        .unwrap_or_else(|| panic!("no revision for {intent}:\n{}", show(&out)))
        .to_string();
    let rev = line[want.len()..].split(' ').next().unwrap().to_string();
    assert_eq!(rev.len(), 64, "{line}");
    rev
}

/// The front matter of a task file (between the `---` lines) and its body.
fn split_task(text: &str) -> (&str, &str) {
    let rest = text.strip_prefix("---\n").expect("front matter opens");
    let end = rest.find("\n---\n").expect("front matter closes");
    (&rest[..end + 1], &rest[end + 5..])
}

fn task_text(repo: &TestRepo, id: &str) -> String {
    std::fs::read_to_string(repo.path().join(format!(".gate/tasks/{id}.md"))).unwrap()
}

// ---------------------------------------------------------------------------
// Every standing and every cause

/// One plan that has a case of everything: a critiqued intent I-a with a
/// fine issue (1), a faulty one (2, serves nothing) and one sharing paths
/// with I-b (5); I-b, never critiqued, whose issues serve another intent's
/// criterion (3) and an unknown one (4); I-c with an open blocking finding;
/// a retired intent; an intent with only closed work; two maintenance issues.
const WORLD: &str = r#"intents:
  - id: I-a
    statement: Reports can be exported.
    status: active
    criteria:
      - id: C1
        criterion: CSV export works
        evidence: [t-a]
      - id: C2
        criterion: The export is documented
  - id: I-b
    statement: Reports can be printed.
    status: active
    criteria:
      - id: P1
        criterion: Printing works
  - id: I-c
    statement: Reports can be mailed.
    status: active
    criteria:
      - id: M1
        criterion: Mail goes out
  - id: I-old
    statement: The old exporter.
    status: retired
  - id: I-idle
    statement: Finished work.
    status: active
    criteria:
      - id: D1
        criterion: Done
checks:
  - id: t-a
    command: "true"
    sources: [src]
issues:
  - id: "1"
    title: CSV export
    intent: I-a
    serves: [C1]
    paths: ["src/export/**", "docs/export.md"]
    status: open
  - id: "2"
    title: Legacy export
    intent: I-a
    serves: []
    paths: ["src/export/legacy/**"]
    status: open
  - id: "3"
    title: Print layout
    intent: I-b
    serves: [C1]
    paths: ["src/print/**", "src/shared/**"]
    status: open
  - id: "4"
    title: Print preview
    intent: I-b
    serves: [P404]
    paths: ["src/preview/**"]
    status: open
  - id: "5"
    title: Shared formatting
    intent: I-a
    serves: [C2]
    paths: ["src/shared/**"]
    status: open
  - id: "6"
    title: Mail
    intent: I-c
    serves: [M1]
    paths: ["src/mail/**"]
    status: open
  - id: "7"
    title: Fix typos in the docs
    paths: ["docs/**"]
    status: open
  - id: "8"
    title: Docs links
    paths: ["docs/**"]
    status: open
  - id: "9"
    title: Done long ago
    intent: I-idle
    serves: [D1]
    paths: ["src/idle/**"]
    status: closed
critiques:
  - intent: I-a
    reviewed_at: 2026-11-20
    findings:
      - id: F1
        blocking: true
        text: Which encoding?
        resolution: UTF-8, always.
      - id: F2
        blocking: false
        text: Name the columns.
  - intent: I-c
    reviewed_at: 2026-11-21
    findings:
      - id: F1
        blocking: true
        text: Who may receive reports?
        resolution: "  "
  - intent: I-old
    reviewed_at: 2026-01-01
  - intent: I-idle
    reviewed_at: 2026-01-01
"#;

/// `gate binding` arguments, and the standing, issues and intents answered.
type StandingCase<'a> = (&'a [&'a str], &'a str, &'a [&'a str], &'a [&'a str]);

/// `gate binding` arguments, and each refusal's cause and issue, in order.
type CauseCase<'a> = (&'a [&'a str], &'a [(&'a str, Option<&'a str>)]);

#[test]
fn every_standing() {
    let repo = repo_with(Some("advisory"), WORLD);
    let cases: &[StandingCase] = &[
        // (args, standing, issues, intents)
        (&["--issue", "1"], "bound", &["1"], &["I-a"]),
        (&["--intent", "I-a"], "bound", &["1", "2", "5"], &["I-a"]),
        (&["--path", "src/export/csv.rs"], "bound", &["1"], &["I-a"]),
        // An intent's issue and maintenance issues cover it: the intent's.
        (
            &["--path", "docs/export.md"],
            "bound",
            &["1", "7", "8"],
            &["I-a"],
        ),
        (&["--issue", "7"], "maintenance", &["7"], &[]),
        (
            &["--path", "docs/guide.md"],
            "maintenance",
            &["7", "8"],
            &[],
        ),
        (
            &["--exempt", "dependency-bump", "--because", "bump serde"],
            "exempt",
            &[],
            &[],
        ),
    ];
    for (args, standing, issues, intents) in cases {
        let a = ask(&repo, args);
        assert_eq!(a.standing(), *standing, "{args:?}\n{}", a.human);
        assert_eq!(a.strings("issues"), *issues, "{args:?}");
        assert_eq!(a.strings("intents"), *intents, "{args:?}");
        assert!(a.causes().is_empty(), "{args:?}\n{}", a.human);
        let (rev, ev) = a.pins();
        if intents.is_empty() {
            // No intent reached: both pins empty, and none shown.
            assert_eq!((rev.as_str(), ev.as_str()), ("", ""), "{args:?}");
            assert!(!a.human.contains("pins:"), "{args:?}\n{}", a.human);
        } else {
            assert_eq!((rev.len(), ev.len()), (64, 64), "{args:?}");
            assert!(a.human.contains(&format!("plan_pin {rev}")), "{args:?}");
        }
    }
    // What was named comes back as named.
    let a = ask(
        &repo,
        &["--exempt", "dependency-bump", "--because", "bump serde"],
    );
    assert_eq!(
        a.doc["named"]["exemption"],
        serde_json::json!({"class": "dependency-bump", "because": "bump serde", "description": "Lockfile-only updates"})
    );
    let a = ask(&repo, &["--issue", "1"]);
    assert_eq!(a.doc["named"]["issue"], "1");
    assert_eq!(a.doc["named"]["intent"], Value::Null);
    assert_eq!(
        a.doc["criteria"],
        serde_json::json!([{"intent": "I-a", "criterion": "C1", "state": "missing"}])
    );
    // An intent named alone serves all its criteria; a criterion naming no
    // check is unevidenced.
    let a = ask(&repo, &["--intent", "I-a"]);
    assert_eq!(
        a.doc["criteria"],
        serde_json::json!([
            {"intent": "I-a", "criterion": "C1", "state": "missing"},
            {"intent": "I-a", "criterion": "C2", "state": "unevidenced"}
        ])
    );
}

#[test]
fn every_cause_and_the_order_of_judgement() {
    let repo = repo_with(Some("advisory"), WORLD);
    let none: Option<&str> = None;
    let on = Some;
    let cases: &[CauseCase] = &[
        // Preflight.
        (&["--issue", "99"], &[("unknown_issue", on("99"))]),
        (&["--path", "README.md"], &[("no_issue_covers_paths", none)]),
        (&["--issue", "2"], &[("issue_serves_nothing", on("2"))]),
        (
            &["--issue", "3"],
            &[
                ("serves_another_intent", on("3")),
                ("intent_not_critiqued", on("3")),
            ],
        ),
        (
            &["--issue", "4"],
            &[
                ("serves_unknown_criterion", on("4")),
                ("intent_not_critiqued", on("4")),
            ],
        ),
        (&["--intent", "I-b"], &[("intent_not_critiqued", none)]),
        // A blank resolution leaves a blocking finding open.
        (&["--issue", "6"], &[("open_blocking_finding", on("6"))]),
        // Naming.
        (&[], &[("nothing_named", none)]),
        (&["--intent", "I-nope"], &[("unknown_intent", none)]),
        (
            &["--intent", "I-old"],
            &[("intent_retired", none), ("intent_has_no_open_work", none)],
        ),
        (
            &["--intent", "I-idle"],
            &[("intent_has_no_open_work", none)],
        ),
        (
            &["--issue", "1", "--intent", "I-b"],
            &[("issue_outside_intent", on("1"))],
        ),
        // Paths reaching two intents: ambiguous, and every covering issue
        // judged too; an intent's own faults are reported once, on no issue.
        (
            &["--path", "src/shared/fmt.rs"],
            &[
                ("ambiguous_intent", none),
                ("serves_another_intent", on("3")),
                ("intent_not_critiqued", none),
            ],
        ),
        (
            &["--exempt", "nope", "--because", "lockfile"],
            &[("unknown_exemption", none)],
        ),
        (
            &["--exempt", "dependency-bump", "--because", "  "],
            &[("exemption_without_reason", none)],
        ),
        (
            &["--exempt", "dependency-bump", "--because", ""],
            &[("exemption_without_reason", none)],
        ),
        (
            &[
                "--exempt",
                "dependency-bump",
                "--because",
                "lockfile",
                "--issue",
                "1",
            ],
            &[("exemption_names_work", none)],
        ),
        (
            &[
                "--exempt",
                "dependency-bump",
                "--because",
                "lockfile",
                "--path",
                "Cargo.lock",
            ],
            &[("exemption_names_work", none)],
        ),
        // An exemption is judged alone, all its faults together: the unknown
        // issue and the uncovered path beside it are not judged at all.
        (
            &[
                "--exempt",
                "nope",
                "--because",
                " \t ",
                "--issue",
                "99",
                "--path",
                "README.md",
            ],
            &[
                ("unknown_exemption", none),
                ("exemption_without_reason", none),
                ("exemption_names_work", none),
            ],
        ),
        // Path mode: a path covered by a fine issue (1) and a faulty one of
        // the same intent (2): the worst verdict wins, naming the faulty one.
        (
            &["--path", "src/export/legacy/old.rs"],
            &[("issue_serves_nothing", on("2"))],
        ),
        // Some paths covered, one not: refused for the one.
        (
            &["--path", "src/export/a.rs", "--path", "Makefile"],
            &[("no_issue_covers_paths", none)],
        ),
    ];
    for (args, want) in cases {
        let a = ask(&repo, args);
        assert_eq!(a.standing(), "refused", "{args:?}\n{}", a.human);
        assert_eq!(a.code, 1);
        let got = a.causes();
        let want: Vec<(String, Option<String>)> = want
            .iter()
            .map(|(c, i)| (c.to_string(), i.map(str::to_string)))
            .collect();
        assert_eq!(got, want, "{args:?}\n{}", a.human);
        // Each refusal says what to name or fix.
        for r in a.doc["refusals"].as_array().unwrap() {
            assert!(!r["decide"].as_str().unwrap().is_empty(), "{r}");
            assert!(a.human.contains("decide: "), "{}", a.human);
        }
    }
    let a = ask(&repo, &["--path", "src/export/legacy/old.rs"]);
    assert_eq!(a.strings("issues"), ["1", "2"]);
    let a = ask(&repo, &["--path", "Makefile"]);
    assert!(
        a.doc["refusals"][0]["message"]
            .as_str()
            .unwrap()
            .contains("Makefile"),
        "{}",
        a.human
    );
}

#[test]
fn a_path_outside_the_named_issue_is_a_note_not_a_refusal() {
    let repo = repo_with(Some("advisory"), WORLD);
    let a = ask(
        &repo,
        &[
            "--issue",
            "1",
            "--path",
            "src/export/csv.rs",
            "--path",
            "docs/generated/api.md",
        ],
    );
    assert_eq!(a.standing(), "bound", "{}", a.human);
    assert_eq!(
        a.strings("notes"),
        ["outside issue 1's paths: docs/generated/api.md"]
    );
}

#[test]
fn because_without_exempt_is_a_usage_error() {
    let repo = repo_with(Some("advisory"), WORLD);
    for args in [
        &["binding", "--because", "why not"][..],
        &["binding", "--issue", "1", "--because", "why not"],
    ] {
        let out = gate(&repo, args);
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        assert!(stderr(&out).contains("--exempt"), "{}", show(&out));
    }
    let out = start(&repo, &["--issue", "1", "--because", "x"], "b\n");
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_nothing_written(&repo, "start --because without --exempt");
}

#[test]
fn critique_stale_round_trip_through_plan_validate() {
    let plan = r#"intents:
  - id: I-a
    statement: Reports can be exported.
    status: active
    criteria:
      - id: C1
        criterion: CSV export works
issues:
  - id: "1"
    title: CSV export
    intent: I-a
    serves: [C1]
    paths: ["src/export/**"]
    status: open
"#;
    let repo = repo_with(Some("advisory"), plan);
    assert_eq!(
        ask(&repo, &["--issue", "1"]).cause_names(),
        ["intent_not_critiqued"]
    );
    // Copy the printed revision into a critique: bound, and validate passes.
    let rev = printed_revision(&repo, "I-a");
    let critique = |rev: &str| {
        format!(
            "critiques:\n  - intent: I-a\n    reviewed_at: 2026-11-20\n    plan_revision: {rev}\n    findings:\n      - id: F1\n        blocking: true\n        text: Which encoding?\n        resolution: UTF-8.\n"
        )
    };
    std::fs::write(
        repo.path().join(".gate/plan.yaml"),
        format!("{plan}{}", critique(&rev)),
    )
    .unwrap();
    let a = ask(&repo, &["--issue", "1"]);
    assert_eq!(a.standing(), "bound", "{}", a.human);
    assert_eq!(gate(&repo, &["plan", "validate"]).status.code(), Some(0));
    // Recording the critique did not move the revision it compares with.
    assert_eq!(printed_revision(&repo, "I-a"), rev);
    // Edit the intent: the critique is stale, at the door and in validate.
    edit_plan(
        &repo,
        "statement: Reports can be exported.",
        "statement: Reports can be exported as CSV.",
    );
    let a = ask(&repo, &["--issue", "1"]);
    assert_eq!(a.causes(), [("critique_stale".into(), Some("1".into()))]);
    let now = printed_revision(&repo, "I-a");
    assert_ne!(now, rev);
    // The remedy names the revision to record.
    assert!(
        a.doc["refusals"][0]["decide"]
            .as_str()
            .unwrap()
            .contains(&now),
        "{}",
        a.human
    );
    let out = gate(&repo, &["plan", "validate", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let doc = json_of(&out);
    let f = &doc["checks"][0]["findings"][0];
    assert_eq!(f["cause"], "critique_stale");
    assert_eq!(f["key"], "critiques[0].plan_revision");
    assert!(f["line"].as_u64().is_some(), "{f}");
    // Review again: record the new revision, and it is current again.
    edit_plan(&repo, &rev, &now);
    assert_eq!(ask(&repo, &["--issue", "1"]).standing(), "bound");
    assert_eq!(gate(&repo, &["plan", "validate"]).status.code(), Some(0));
}

// ---------------------------------------------------------------------------
// The pins

const PINNED: &str = r#"intents:
  - id: I-a
    statement: Reports can be exported.
    status: active
    invariants: [no network access, one pass over the data]
    non_goals: [PDF, XLSX]
    criteria:
      - id: C1
        criterion: CSV export works
        evidence: [t1, t2]
      - id: C2
        criterion: The export is documented
checks:
  - id: t1
    command: "true"
    sources: [src]
  - id: t2
    command: "test -d src"
    sources: [src]
  - id: other
    command: "true"
    sources: [src]
issues:
  - id: "1"
    title: CSV export
    intent: I-a
    serves: [C1, C2]
    paths: ["src/**"]
    status: open
  - id: "2"
    title: Docs
    intent: I-a
    serves: [C2]
    paths: ["docs/**"]
    status: open
critiques:
  - intent: I-a
    reviewed_at: 2026-11-20
    findings:
      - id: F1
        blocking: true
        text: Which encoding?
        resolution: UTF-8, always.
      - id: F2
        blocking: false
        text: Name the columns.
        resolution: Done.
"#;

/// [`PINNED`] with every mapping's keys and every meaningless list order
/// changed, and not one value.
const PINNED_REORDERED: &str = r#"issues:
  - status: open
    paths: ["docs/**"]
    serves: [C2]
    intent: I-a
    title: Docs
    id: "2"
  - serves: [C2, C1]
    id: "1"
    intent: I-a
    title: CSV export
    paths: ["src/**"]
    status: open
critiques:
  - findings:
      - resolution: Done.
        text: Name the columns.
        blocking: false
        id: F2
      - id: F1
        text: Which encoding?
        blocking: true
        resolution: UTF-8, always.
    reviewed_at: 2026-11-20
    intent: I-a
checks:
  - sources: [src]
    id: other
    command: "true"
  - command: "test -d src"
    id: t2
    sources: [src]
  - id: t1
    sources: [src]
    command: "true"
intents:
  - criteria:
      - criterion: The export is documented
        id: C2
      - evidence: [t2, t1]
        id: C1
        criterion: CSV export works
    non_goals: [XLSX, PDF]
    invariants: [one pass over the data, no network access]
    status: active
    id: I-a
    statement: Reports can be exported.
"#;

#[test]
fn plan_revision_ignores_key_and_list_order() {
    let repo = repo_with(Some("advisory"), PINNED);
    let a = ask(&repo, &["--issue", "1"]);
    assert_eq!(a.standing(), "bound", "{}", a.human);
    let before = printed_revision(&repo, "I-a");
    repo.write(".gate/plan.yaml", PINNED_REORDERED);
    let b = ask(&repo, &["--issue", "1"]);
    assert_eq!(b.plan_revision(), a.plan_revision());
    assert_eq!(b.evidence_standing(), a.evidence_standing());
    assert_eq!(printed_revision(&repo, "I-a"), before);
}

#[test]
fn plan_revision_moves_with_every_content_edit() {
    let repo = repo_with(Some("advisory"), PINNED);
    let base = ask(&repo, &["--issue", "1"]);
    let edits = [
        (
            "statement: Reports can be exported.",
            "statement: Reports can be exported as CSV.",
        ),
        ("no network access", "no network access at all"),
        ("non_goals: [PDF, XLSX]", "non_goals: [PDF]"),
        (
            "criterion: CSV export works",
            "criterion: CSV export works offline",
        ),
        // A check's command moves its contract digest.
        (
            "command: \"test -d src\"",
            "command: \"test -d src/export\"",
        ),
        // What an issue serves (issue 2, not the one named).
        (
            "    serves: [C2]\n    paths: [\"docs/**\"]",
            "    serves: [C1, C2]\n    paths: [\"docs/**\"]",
        ),
        (
            "resolution: UTF-8, always.",
            "resolution: UTF-8 with a BOM.",
        ),
        ("blocking: false", "blocking: true"),
    ];
    let mut seen = vec![base.plan_revision()];
    for (from, to) in edits {
        repo.write(".gate/plan.yaml", PINNED);
        edit_plan(&repo, from, to);
        let a = ask(&repo, &["--issue", "1"]);
        assert_eq!(a.standing(), "bound", "{from} → {to}\n{}", a.human);
        let rev = a.plan_revision();
        assert!(!seen.contains(&rev), "{from} → {to} did not move it");
        seen.push(rev);
        // Editing the plan moves no evidence.
        assert_eq!(a.evidence_standing(), base.evidence_standing(), "{from}");
    }
    // An edit to what the revision does not cover moves nothing: an issue's
    // title and paths, a check no criterion names, another intent.
    for (from, to) in [
        ("title: Docs", "title: Documentation"),
        (
            "paths: [\"docs/**\"]",
            "paths: [\"docs/**\", \"README.md\"]",
        ),
        (
            "  - id: other\n    command: \"true\"",
            "  - id: other\n    command: \"false\"",
        ),
    ] {
        repo.write(".gate/plan.yaml", PINNED);
        edit_plan(&repo, from, to);
        assert_eq!(
            ask(&repo, &["--issue", "1"]).plan_revision(),
            base.plan_revision(),
            "{from} → {to}"
        );
    }
}

#[test]
fn recording_a_critique_never_stales_it() {
    let repo = repo_with(Some("advisory"), PINNED);
    let rev = printed_revision(&repo, "I-a");
    let pinned_before = ask(&repo, &["--issue", "1"]).plan_revision();
    // A second critique recording the current revision, with findings.
    let path = repo.path().join(".gate/plan.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        format!(
            "{text}  - intent: I-a\n    reviewed_at: 2026-11-29\n    plan_revision: {rev}\n    findings:\n      - id: F9\n        blocking: true\n        text: Quote the fields.\n        resolution: Quoted.\n"
        ),
    )
    .unwrap();
    let a = ask(&repo, &["--issue", "1"]);
    assert_eq!(a.standing(), "bound", "{}", a.human);
    assert_eq!(printed_revision(&repo, "I-a"), rev);
    // The task's pin covers the critiques: it moved.
    assert_ne!(a.plan_revision(), pinned_before);
    // Resolving a finding differently moves the pin, and stales nothing.
    edit_plan(&repo, "resolution: Quoted.", "resolution: Quoted, always.");
    let b = ask(&repo, &["--issue", "1"]);
    assert_eq!(b.standing(), "bound", "{}", b.human);
    assert_ne!(b.plan_revision(), a.plan_revision());
    assert_eq!(printed_revision(&repo, "I-a"), rev);
}

#[test]
fn evidence_standing_moves_only_when_a_criterion_state_changes() {
    let repo = repo_with(Some("advisory"), PINNED);
    let base = ask(&repo, &["--issue", "1"]);
    assert_eq!(
        base.doc["criteria"],
        serde_json::json!([
            {"intent": "I-a", "criterion": "C1", "state": "missing"},
            {"intent": "I-a", "criterion": "C2", "state": "unevidenced"}
        ])
    );
    // Asked again, nothing moved.
    assert_eq!(ask(&repo, &["--issue", "1"]).pins(), base.pins());
    // A check no served criterion names: nothing moves.
    let out = gate(&repo, &["verify", "other"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(ask(&repo, &["--issue", "1"]).pins(), base.pins());
    // One of C1's two checks passes: C1 is still missing (the worst state).
    let out = gate(&repo, &["verify", "t1"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(ask(&repo, &["--issue", "1"]).pins(), base.pins());
    // Both pass: C1 is passed, and the evidence pin moves; the plan's not.
    let out = gate(&repo, &["verify", "t2"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let moved = ask(&repo, &["--issue", "1"]);
    assert_eq!(moved.doc["criteria"][0]["state"], "passed");
    assert_ne!(moved.evidence_standing(), base.evidence_standing());
    assert_eq!(moved.plan_revision(), base.plan_revision());
    // Verified again, still passed: it does not move again.
    let out = gate(&repo, &["verify", "t1"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(ask(&repo, &["--issue", "1"]).pins(), moved.pins());
    // A source edit stales the receipts: the state changes, the pin moves.
    repo.write("src/export/mod.rs", "// export, edited\n");
    let stale = ask(&repo, &["--issue", "1"]);
    assert_eq!(stale.doc["criteria"][0]["state"], "stale");
    assert_ne!(stale.evidence_standing(), moved.evidence_standing());
    assert_ne!(stale.evidence_standing(), base.evidence_standing());
}

// ---------------------------------------------------------------------------
// Policy at every door

const SIMPLE: &str = r#"intents:
  - id: I-a
    statement: Reports can be exported.
    status: active
    criteria:
      - id: C1
        criterion: CSV export works
        evidence: [t1]
checks:
  - id: t1
    command: "true"
    sources: [src]
issues:
  - id: "1"
    title: CSV export
    intent: I-a
    serves: [C1]
    paths: ["src/export/**"]
    status: open
  - id: "7"
    title: Fix typos in the docs
    paths: ["docs/**"]
    status: open
critiques:
  - intent: I-a
    reviewed_at: 2026-11-20
"#;

#[test]
fn binding_absent_or_misspelt_reads_as_off_and_says_so() {
    for (binding, note) in [
        (None, "binding is not set; read as off"),
        (
            Some("requird"),
            "binding: \"requird\" is not off, advisory or required; read as off",
        ),
    ] {
        let repo = repo_with(binding, SIMPLE);
        // A start naming nothing asks nothing and starts, and says why.
        let out = start(&repo, &["--scope", "src/**", "--id", "T-free"], "b\n");
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let text = stdout(&out);
        assert!(text.contains(&format!("note: {note}")), "{text}");
        assert!(!text.contains("binding: refused"), "{text}");
        // `gate check` skips the binding and notes why.
        let out = gate(&repo, &["check", "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let doc = json_of(&out);
        assert!(
            doc["notes"].as_array().unwrap().iter().any(|n| n == note),
            "{doc}"
        );
        assert!(
            doc["skipped"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["check"] == "binding"),
            "{doc}"
        );
        let out = gate(&repo, &["check"]);
        assert!(
            stdout(&out).contains(&format!("note: {note}")),
            "{}",
            show(&out)
        );
        // A naming flag is still a question.
        let out = start(&repo, &["--issue", "99"], "b\n");
        assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    }
}

#[test]
fn under_off_a_start_naming_nothing_asks_nothing() {
    let repo = repo_with(Some("off"), SIMPLE);
    let out = start(&repo, &["--scope", "src/**", "--id", "T-task"], "b\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = stdout(&out);
    assert!(!text.contains("binding"), "{text}");
    let task = gate::task::load(repo.path(), "T-task").unwrap();
    assert_eq!(task.record.issue, None);
    assert_eq!(task.record.pins.plan_revision, "");
}

#[test]
fn a_naming_flag_is_a_question_under_every_mode() {
    for mode in ["off", "advisory", "required"] {
        let cases: &[(&[&str], &str)] = &[
            (&["--issue", "99"], "unknown_issue"),
            (&["--intent", "I-nope"], "unknown_intent"),
            (&["--path", "README.md"], "no_issue_covers_paths"),
            (
                &["--exempt", "dependency-bump", "--because", " "],
                "exemption_without_reason",
            ),
        ];
        for (args, cause) in cases {
            let repo = repo_with(Some(mode), SIMPLE);
            let out = start(&repo, args, "b\n");
            assert_eq!(
                out.status.code(),
                Some(1),
                "{mode} {args:?}\n{}",
                show(&out)
            );
            let err = stderr(&out);
            assert!(err.contains(cause), "{mode} {args:?}\n{err}");
            assert!(err.contains("decide:"), "{mode} {args:?}\n{err}");
            assert!(err.contains("nothing was written"), "{err}");
            assert!(!err.contains("\\n"), "{mode} {args:?}\n{err}");
            assert_nothing_written(&repo, &format!("{mode} {args:?}"));
        }
        // An answer that cannot be read never starts either: unknown, exit 3.
        let repo = repo_with(Some(mode), SIMPLE);
        repo.write(".gate/plan.yaml", "intents: [\n");
        let out = start(&repo, &["--issue", "1"], "b\n");
        assert_eq!(out.status.code(), Some(3), "{mode}\n{}", show(&out));
        assert!(stderr(&out).contains(".gate/plan.yaml"), "{}", show(&out));
        assert_nothing_written(&repo, &format!("{mode}, unreadable plan"));
        // A bound answer starts under every mode.
        let repo = repo_with(Some(mode), SIMPLE);
        let out = start(&repo, &["--issue", "1", "--id", "T-1"], "b\n");
        assert_eq!(out.status.code(), Some(0), "{mode}\n{}", show(&out));
        assert!(stdout(&out).contains("binding: bound"), "{}", show(&out));
    }
}

#[test]
fn advisory_warns_and_starts_required_refuses_a_start_naming_nothing() {
    let repo = repo_with(Some("advisory"), SIMPLE);
    let out = start(&repo, &["--scope", "src/**", "--id", "T-task"], "b\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = stdout(&out);
    assert!(text.contains("binding: refused"), "{text}");
    assert!(
        text.contains("warning: binding refused (advisory"),
        "{text}"
    );
    assert!(text.contains("nothing_named"), "{text}");
    assert!(text.contains("--issue ID"), "{text}");
    // Each refusal and its remedy on a line of their own, under the warning:
    // line breaks, never a written-out `\n`.
    assert!(!text.contains("\\n"), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("    nothing_named: ")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("    decide: name the work")),
        "{text}"
    );
    let task = gate::task::load(repo.path(), "T-task").unwrap();
    assert_eq!(
        (task.record.issue, task.record.intent, task.record.exemption),
        (None, None, None)
    );
    assert_eq!(task.record.pins.plan_revision, "");
    // Under advisory and off an unreadable plan does not block a start
    // naming nothing: a warning (advisory), or nothing asked (off).
    for mode in ["advisory", "off"] {
        let repo = repo_with(Some(mode), SIMPLE);
        repo.write(".gate/plan.yaml", "intents: [\n");
        let out = start(&repo, &["--scope", "src/**", "--id", "T-task"], "b\n");
        assert_eq!(out.status.code(), Some(0), "{mode}: {}", show(&out));
        if mode == "advisory" {
            assert!(
                show(&out).contains("binding unknown (advisory)"),
                "{}",
                show(&out)
            );
        }
        assert!(gate::task::load(repo.path(), "T-task").is_ok(), "{mode}");
    }

    let repo = repo_with(Some("required"), SIMPLE);
    let out = start(&repo, &["--scope", "src/**"], "b\n");
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let err = stderr(&out);
    for needle in [
        "the policy requires a binding",
        "nothing_named",
        "--issue ID",
        "--exempt CLASS --because REASON",
        "nothing was written",
    ] {
        assert!(err.contains(needle), "{needle}\n{err}");
    }
    assert!(!err.contains("\\n"), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines.len() > 2
            && lines[0].starts_with("gate: error: the binding refused this start")
            && lines[1].starts_with("  nothing_named: ")
            && lines[2].starts_with("    decide: name the work"),
        "{err}"
    );
    assert_nothing_written(&repo, "required, nothing named");
    // Under required an unreadable plan blocks a start naming nothing.
    repo.write(".gate/plan.yaml", "intents: [\n");
    let out = start(&repo, &["--scope", "src/**"], "b\n");
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert_nothing_written(&repo, "required, unreadable plan");
}

#[test]
fn gate_check_blocks_a_refused_binding_only_under_required() {
    for (mode, code) in [("required", 1), ("advisory", 0)] {
        let repo = repo_with(Some(mode), SIMPLE);
        let out = start(&repo, &["--issue", "1", "--id", "T-1"], "Add CSV export.\n");
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let out = gate(&repo, &["check"]);
        assert_eq!(out.status.code(), Some(0), "{mode}\n{}", show(&out));
        assert!(stdout(&out).contains("task T-1 is bound"), "{}", show(&out));
        // The plan changes after the start: the issue now serves nothing.
        edit_plan(&repo, "serves: [C1]", "serves: []");
        let out = gate(&repo, &["check"]);
        assert_eq!(out.status.code(), Some(code), "{mode}\n{}", show(&out));
        let text = stdout(&out);
        assert!(text.contains("issue_serves_nothing"), "{mode}\n{text}");
        let doc = json_of(&gate(&repo, &["check", "--json"]));
        let binding = doc["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == "binding")
            .unwrap_or_else(|| panic!("{doc}"));
        assert_eq!(binding["mode"], mode);
        assert_eq!(binding["outcome"], "refused");
        assert_eq!(binding["blocks"], mode == "required");
        assert_eq!(binding["findings"][0]["cause"], "issue_serves_nothing");
        // An unreadable plan is unknown: it blocks under required only.
        repo.write(".gate/plan.yaml", "intents: [\n");
        let out = gate(&repo, &["check"]);
        let want = if mode == "required" { 3 } else { 0 };
        assert_eq!(out.status.code(), Some(want), "{mode}\n{}", show(&out));
    }
    // Under required, a task that names nothing (started under off) is refused.
    let repo = repo_with(Some("off"), SIMPLE);
    let out = start(&repo, &["--scope", "src/**"], "b\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    repo.write(".gate/policy.yaml", policy(Some("required")));
    let out = gate(&repo, &["check"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(stdout(&out).contains("nothing_named"), "{}", show(&out));
}

/// `git push` through the installed pre-push hook.
fn push(repo: &TestRepo) -> Output {
    repo.git_may_fail(&["push", "origin", "main"])
}

fn commit_no_verify(repo: &TestRepo, message: &str) {
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", message]);
}

#[test]
fn the_pre_push_hook_refuses_under_required_and_warns_under_advisory() {
    for mode in ["required", "advisory"] {
        let repo = repo_with(Some(mode), SIMPLE);
        let remote = TestRepo::bare();
        repo.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
        let out = gate(&repo, &["install"]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let out = start(&repo, &["--issue", "1", "--id", "T-1"], "Add CSV export.\n");
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        repo.write("src/export/csv.rs", "// csv\n");
        commit_no_verify(&repo, "csv export");
        let out = push(&repo);
        assert!(out.status.success(), "{mode}\n{}", show(&out));
        let pushed = repo.head();
        // The plan changes: issue 1 now serves nothing.
        edit_plan(&repo, "serves: [C1]", "serves: []");
        commit_no_verify(&repo, "plan: issue 1 serves nothing");
        let out = push(&repo);
        let said = format!("{}{}", stdout(&out), stderr(&out));
        assert!(said.contains("issue_serves_nothing"), "{mode}\n{said}");
        let remote_main = remote.git(&["rev-parse", "refs/heads/main"]);
        if mode == "required" {
            assert!(!out.status.success(), "{said}");
            assert_eq!(remote_main.trim(), pushed, "the remote moved");
        } else {
            assert!(out.status.success(), "{said}");
            assert_eq!(remote_main.trim(), repo.head());
        }
    }
}

// ---------------------------------------------------------------------------
// The record: names and pins only; handover and resolve

/// `gate start` arguments, the task id, the issue and intent it records,
/// and whether it pins anything.
type RecordCase<'a> = (
    &'a [&'a str],
    &'a str,
    (Option<&'a str>, Option<&'a str>),
    bool,
);

#[test]
fn start_records_names_and_pins_never_a_standing() {
    let repo = repo_with(Some("advisory"), WORLD);
    let cases: &[RecordCase] = &[
        (
            &["--issue", "1", "--id", "T-1"],
            "T-1",
            (Some("1"), None),
            true,
        ),
        (
            &["--intent", "I-a", "--id", "T-I-a"],
            "T-I-a",
            (None, Some("I-a")),
            true,
        ),
        // Paths reaching one issue of an intent record that issue.
        (
            &["--path", "src/export/csv.rs", "--id", "T-p1"],
            "T-p1",
            (Some("1"), None),
            true,
        ),
        // Maintenance under several issues records one of them, so later
        // doors judge what was judged here (not `nothing_named`).
        (
            &["--path", "docs/guide.md", "--id", "T-p2"],
            "T-p2",
            (Some("7"), None),
            false,
        ),
        (
            &["--issue", "7", "--id", "T-7"],
            "T-7",
            (Some("7"), None),
            false,
        ),
    ];
    for (args, id, (issue, intent), pinned) in cases {
        let out = start(&repo, args, "b\n");
        assert_eq!(out.status.code(), Some(0), "{args:?}\n{}", show(&out));
        let text = task_text(&repo, id);
        let (front, _) = split_task(&text);
        let keys: Vec<&str> = front
            .lines()
            .map(|l| l.split(':').next().unwrap())
            .collect();
        assert_eq!(
            keys,
            [
                "schema",
                "id",
                "status",
                "created_at",
                "created_by",
                "operator",
                "baseline",
                "scope",
                "issue",
                "intent",
                "exemption",
                "pins"
            ],
            "{front}"
        );
        for word in ["bound", "maintenance", "refused", "passed", "missing"] {
            assert!(!front.contains(word), "{word} stored:\n{front}");
        }
        let task = gate::task::load(repo.path(), id).unwrap();
        assert_eq!(task.record.issue.as_deref(), *issue, "{args:?}");
        assert_eq!(task.record.intent.as_deref(), *intent, "{args:?}");
        assert_eq!(
            !task.record.pins.plan_revision.is_empty(),
            *pinned,
            "{args:?}"
        );
        // The pins are the answer to the question the record asks later:
        // resolving right away finds nothing changed.
        let out = gate(&repo, &["handover", "--resolve", "--task", id]);
        assert_eq!(out.status.code(), Some(0), "{args:?}\n{}", show(&out));
        assert!(stdout(&out).contains(": unchanged"), "{}", show(&out));
    }
    // The pins of a start are those `gate binding` gives for its names.
    let task = gate::task::load(repo.path(), "T-1").unwrap();
    let out = gate(&repo, &["task", "switch", "T-1"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let a = ask(&repo, &["--issue", "1"]);
    assert_eq!(
        a.pins(),
        (
            task.record.pins.plan_revision.clone(),
            task.record.pins.evidence_standing.clone()
        )
    );
    // An exemption is recorded with its reason, and pins nothing.
    let out = start(
        &repo,
        &[
            "--exempt",
            "dependency-bump",
            "--because",
            "bump serde",
            "--scope",
            "Cargo.lock",
            "--id",
            "T-dependency-bump",
        ],
        "b\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let t = gate::task::load(repo.path(), "T-dependency-bump").unwrap();
    let e = t.record.exemption.unwrap();
    assert_eq!(
        (e.class.as_str(), e.because.as_str()),
        ("dependency-bump", "bump serde")
    );
    assert_eq!(t.record.pins.plan_revision, "");
    assert_eq!(t.record.pins.evidence_standing, "");
}

/// Append an addendum entry to a task file by hand (what `gate task amend`
/// will write).
fn add_addendum(repo: &TestRepo, id: &str, author: &str, text: &str) {
    let path = repo.path().join(format!(".gate/tasks/{id}.md"));
    let file = std::fs::read_to_string(&path).unwrap();
    let entry =
        format!("\n### 2026-11-30T10:00:00Z · amendment · {author}\n\n````text\n{text}````\n");
    let at = file.find("\n## Implementation notes").unwrap();
    std::fs::write(&path, format!("{}{entry}{}", &file[..at], &file[at..])).unwrap();
}

#[test]
fn handover_records_the_pins_and_prints_the_whole_brief() {
    let repo = repo_with(Some("advisory"), PINNED);
    let brief = "Add CSV export to the report page.\n\n## Not a heading\n```\nfenced\n```\n";
    let out = start(&repo, &["--issue", "1", "--id", "T-1"], brief);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    add_addendum(&repo, "T-1", "Ada", "Semicolons, not commas.\n");
    add_addendum(&repo, "T-1", "Grace", "And a header row.\n");
    let before = task_text(&repo, "T-1");
    // Move the evidence, so the recorded pins change.
    for check in ["t1", "t2"] {
        let out = gate(&repo, &["verify", check]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    }
    let out = gate(&repo, &["handover"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let after = task_text(&repo, "T-1");
    let (front_before, body_before) = split_task(&before);
    let (front_after, body_after) = split_task(&after);
    assert_eq!(body_after, body_before, "the body changed");
    let changed: Vec<(&str, &str)> = front_before
        .lines()
        .zip(front_after.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert!(changed[0].1.starts_with("pins: "), "{changed:?}");
    assert_eq!(front_before.lines().count(), front_after.lines().count());
    // The recorded pins are the binding's now.
    let a = ask(&repo, &["--issue", "1"]);
    let task = gate::task::load(repo.path(), "T-1").unwrap();
    assert_eq!(
        a.pins(),
        (
            task.record.pins.plan_revision,
            task.record.pins.evidence_standing
        )
    );
    // The handover: front matter (task, head, names, pins), the whole brief
    // and every addendum — and no standing.
    let text = stdout(&out);
    let (front, rest) = split_task(&text);
    let keys: Vec<&str> = front
        .lines()
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(
        keys,
        ["task", "head", "issue", "intent", "exemption", "pins"]
    );
    assert!(front.contains(&repo.head()), "{front}");
    assert!(front.contains(&a.plan_revision()), "{front}");
    assert!(rest.contains(brief), "{rest}");
    for needle in [
        "Semicolons, not commas.\n",
        "And a header row.\n",
        "· amendment · Ada",
    ] {
        assert!(rest.contains(needle), "{needle}\n{rest}");
    }
    assert!(!text.contains("bound"), "{text}");
    // JSON: the same, verbatim.
    let out = gate(&repo, &["handover", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let doc = json_of(&out);
    assert_eq!(doc["schema"], "gate.handover/1");
    assert_eq!(doc["brief"], brief);
    assert!(
        doc["addenda"]
            .as_str()
            .unwrap()
            .contains("And a header row.")
    );
    assert_eq!(doc["pins"]["plan_revision"], a.plan_revision());
    // Handing over again records the same pins: the file does not change.
    assert_eq!(task_text(&repo, "T-1"), after);
}

#[test]
fn handover_of_a_refused_binding_warns_on_stderr() {
    let repo = repo_with(Some("advisory"), SIMPLE);
    let out = start(&repo, &["--issue", "1", "--id", "T-1"], "b\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    edit_plan(&repo, "serves: [C1]", "serves: []");
    let out = gate(&repo, &["handover"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        !stdout(&out).contains("issue_serves_nothing"),
        "{}",
        show(&out)
    );
    assert!(
        stderr(&out).contains("issue_serves_nothing: issue 1"),
        "{}",
        show(&out)
    );
    // Under off, a task that names nothing was never asked: no warning.
    let repo = repo_with(Some("off"), SIMPLE);
    let out = start(&repo, &["--scope", "src/**"], "b\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = gate(&repo, &["handover"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    // Only the reminder to commit the task file (issue 13), no warning.
    assert!(
        stderr(&out).starts_with("the task file changed: commit .gate/tasks/")
            && stderr(&out).lines().count() == 1,
        "{}",
        show(&out)
    );
}

/// `gate handover --resolve`, human and JSON: the answer, the exit code
/// (checked to agree) and the message.
fn resolve(repo: &TestRepo) -> (String, i32, String, Value) {
    let human = gate(repo, &["handover", "--resolve"]);
    let json = gate(repo, &["handover", "--resolve", "--json"]);
    assert_eq!(human.status.code(), json.status.code(), "{}", show(&human));
    let doc = json_of(&json);
    assert_eq!(doc["schema"], "gate.resolve/1");
    let code = human.status.code().unwrap();
    assert_eq!(doc["exit_code"].as_i64(), Some(i64::from(code)));
    let answer = doc["answer"].as_str().unwrap().to_string();
    let message = doc["message"].as_str().unwrap().to_string();
    // The brief's digest first (every verb that acts on a task shows it), then the answer.
    let text = stdout(&human);
    assert!(text.starts_with("task T-1"), "{text}");
    assert!(text.contains("  brief: "), "{text}");
    assert!(
        text.ends_with(&format!("handover T-1: {answer}\n  {message}\n")),
        "{text}"
    );
    (answer, code, message, doc)
}

#[test]
fn resolve_answers_unchanged_evidence_moved_plan_changed_and_unknown() {
    let repo = repo_with(Some("advisory"), SIMPLE);
    let out = start(&repo, &["--issue", "1", "--id", "T-1"], "Add CSV export.\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let file = task_text(&repo, "T-1");

    let (answer, code, message, doc) = resolve(&repo);
    assert_eq!((answer.as_str(), code), ("unchanged", 0), "{message}");
    assert!(message.contains("intent I-a"), "{message}");
    assert_eq!(doc["standing"], "bound");

    // A receipt changes C1's state: evidence_moved, saying which and how.
    let out = gate(&repo, &["verify", "t1"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let (answer, code, message, _) = resolve(&repo);
    assert_eq!((answer.as_str(), code), ("evidence_moved", 1), "{message}");
    assert!(message.contains("intent I-a"), "{message}");
    assert!(message.contains("I-a#C1=passed"), "{message}");

    // The intent is edited too: plan_changed outranks evidence_moved.
    edit_plan(
        &repo,
        "statement: Reports can be exported.",
        "statement: Reports can be exported as CSV.",
    );
    let (answer, code, message, doc) = resolve(&repo);
    assert_eq!((answer.as_str(), code), ("plan_changed", 1), "{message}");
    assert!(message.contains("intent I-a"), "{message}");
    assert!(message.contains("plan_pin"), "{message}");
    assert_ne!(doc["recorded"]["plan_pin"], doc["current"]["plan_pin"]);
    // The deprecated alias carries the same values.
    assert_eq!(
        doc["recorded"]["plan_revision"],
        doc["recorded"]["plan_pin"]
    );
    assert_eq!(doc["current"]["plan_revision"], doc["current"]["plan_pin"]);

    // Resolving writes nothing.
    assert_eq!(task_text(&repo, "T-1"), file);

    // A handover records the current pins: unchanged again.
    let out = gate(&repo, &["handover"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(resolve(&repo).0, "unchanged");

    // The plan alone changes, and the binding now refuses: both are said.
    edit_plan(&repo, "serves: [C1]", "serves: []");
    let (answer, code, message, doc) = resolve(&repo);
    assert_eq!((answer.as_str(), code), ("plan_changed", 1), "{message}");
    assert!(message.contains("issue_serves_nothing"), "{message}");
    assert_eq!(doc["standing"], "refused");

    // A corrupt plan: unknown, exit 3, saying what the task names and why.
    repo.write(".gate/plan.yaml", "intents: [\n");
    let (answer, code, message, doc) = resolve(&repo);
    assert_eq!((answer.as_str(), code), ("unknown", 3), "{message}");
    assert!(message.contains("issue 1"), "{message}");
    assert!(message.contains(".gate/plan.yaml"), "{message}");
    assert_eq!(doc["current"], Value::Null);
    assert_eq!(doc["standing"], Value::Null);
}

// ---------------------------------------------------------------------------
// gate plan validate

#[test]
fn plan_validate_reports_what_the_binding_would_trip_on() {
    let repo = repo_with(Some("advisory"), WORLD);
    let out = gate(&repo, &["plan", "validate", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let doc = json_of(&out);
    let findings = doc["checks"][0]["findings"].as_array().unwrap();
    let found: Vec<(&str, &str, &str)> = findings
        .iter()
        .map(|f| {
            (
                f["cause"].as_str().unwrap(),
                f["severity"].as_str().unwrap(),
                f["key"].as_str().unwrap_or(""),
            )
        })
        .collect();
    for want in [
        ("issue_serves_nothing", "blocker", "issues[1].serves"),
        ("serves_another_intent", "blocker", "issues[2].serves[0]"),
        ("serves_unknown_criterion", "blocker", "issues[3].serves[0]"),
        ("intent_not_critiqued", "blocker", "intents[1]"),
        (
            "open_blocking_finding",
            "blocker",
            "critiques[1].findings[0]",
        ),
        ("overlapping_issue_paths", "warn", "issues[4].paths"),
    ] {
        assert!(found.contains(&want), "{want:?} missing: {found:?}");
    }
    // Every finding of the plan points at a line.
    for f in findings {
        assert!(f["line"].as_u64().is_some(), "{f}");
    }
    // Retired intents need no critique; every intent's revision is printed.
    assert!(!found.iter().any(|f| f.2 == "intents[3]"), "{found:?}");
    let notes = doc["notes"].as_array().unwrap();
    for intent in ["I-a", "I-b", "I-c", "I-old", "I-idle"] {
        assert!(
            notes.iter().any(|n| n
                .as_str()
                .unwrap()
                .starts_with(&format!("intent {intent}: intent_revision "))),
            "{intent}: {notes:?}"
        );
    }
    let out = gate(&repo, &["plan", "validate"]);
    let text = stdout(&out);
    assert!(
        text.contains("! overlapping_issue_paths open issues 3 and 5"),
        "{text}"
    );
}

#[test]
fn overlapping_issue_paths_is_found_across_glob_shapes() {
    let plan = |a: &str, b: &str| {
        format!(
            r#"intents:
  - id: I-a
    statement: A.
    status: active
    criteria: [{{id: C1, criterion: a}}]
  - id: I-b
    statement: B.
    status: active
    criteria: [{{id: C2, criterion: b}}]
issues:
  - id: "1"
    title: one
    intent: I-a
    serves: [C1]
    paths: ["{a}"]
    status: open
  - id: "2"
    title: two
    intent: I-b
    serves: [C2]
    paths: ["{b}"]
    status: open
"#
        )
    };
    let repo = repo_with(Some("advisory"), &plan("src/**", "src/**"));
    for (a, b, overlap) in [
        ("src/**", "src/y/**", true),
        ("docs/**", "**/*.md", true),
        ("src/*.rs", "src/lib.rs", true),
        ("src/{a,b}/**", "src/b/x.rs", true),
        ("src/**", "docs/**", false),
        ("src/*.rs", "src/*.md", false),
    ] {
        repo.write(".gate/plan.yaml", plan(a, b));
        let doc = json_of(&gate(&repo, &["plan", "validate", "--json"]));
        let hit = doc["checks"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["cause"] == "overlapping_issue_paths");
        assert_eq!(hit, overlap, "{a} vs {b}: {doc}");
    }
    // Issues of one intent never make a path ambiguous.
    repo.write(
        ".gate/plan.yaml",
        plan("src/**", "src/**").replace(
            "intent: I-b\n    serves: [C2]",
            "intent: I-a\n    serves: [C1]",
        ),
    );
    let doc = json_of(&gate(&repo, &["plan", "validate", "--json"]));
    assert!(
        !doc["checks"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["cause"] == "overlapping_issue_paths"),
        "{doc}"
    );
}

// ---------------------------------------------------------------------------
// Goldens

#[test]
fn golden_bound_and_refused() {
    let repo = repo_with(Some("advisory"), WORLD);
    for (name, args) in [
        ("bound", &["binding", "--issue", "1"][..]),
        (
            "refused",
            &[
                "binding",
                "--path",
                "src/shared/fmt.rs",
                "--path",
                "src/preview/x.rs",
            ],
        ),
    ] {
        let out = gate(&repo, args);
        assert_golden(
            &format!("binding/{name}.txt"),
            &transcript(Some(&repo), &out),
        );
        let mut json = args.to_vec();
        json.push("--json");
        let out = gate(&repo, &json);
        assert_golden(
            &format!("binding/{name}.json"),
            &transcript(Some(&repo), &out),
        );
    }
}

#[test]
fn golden_handover_and_resolve() {
    let repo = repo_with(Some("advisory"), SIMPLE);
    let out = start(
        &repo,
        &["--issue", "1", "--id", "T-1"],
        "Add CSV export.\nKeep it small.\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    add_addendum(&repo, "T-1", "Ada", "Semicolons, not commas.\n");
    let out = gate(&repo, &["handover"]);
    assert_golden("binding/handover.txt", &transcript(Some(&repo), &out));
    let out = gate(&repo, &["handover", "--json"]);
    assert_golden("binding/handover.json", &transcript(Some(&repo), &out));
    let out = gate(&repo, &["handover", "--resolve"]);
    assert_golden(
        "binding/resolve-unchanged.txt",
        &transcript(Some(&repo), &out),
    );
    edit_plan(
        &repo,
        "statement: Reports can be exported.",
        "statement: Reports can be exported as CSV.",
    );
    let out = gate(&repo, &["handover", "--resolve"]);
    assert_golden(
        "binding/resolve-plan-changed.txt",
        &transcript(Some(&repo), &out),
    );
    let out = gate(&repo, &["handover", "--resolve", "--json"]);
    assert_golden(
        "binding/resolve-plan-changed.json",
        &transcript(Some(&repo), &out),
    );
}

/// `--exempt` without `--because` is judged (all the exemption's faults at
/// once), not a usage error; `--because` without `--exempt` is one.
#[test]
fn an_exemption_without_because_is_judged_with_its_other_faults() {
    let repo = crate::fixture::plan_repo("advisory");
    let out = repo
        .gate()
        .args(["binding", "--exempt", "nope", "--issue", "42", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", crate::fixture::show(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let causes: Vec<&str> = doc["refusals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["cause"].as_str().unwrap())
        .collect();
    assert_eq!(
        causes,
        vec![
            "unknown_exemption",
            "exemption_without_reason",
            "exemption_names_work"
        ]
    );
    let out = repo
        .gate()
        .args(["binding", "--because", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", crate::fixture::show(&out));
}

#[test]
fn the_binding_check_of_an_exempt_task_reads_no_history() {
    // The standing of an exemption needs no evidence: a baseline this
    // clone does not hold (a shallow CI checkout) must not make the
    // binding unknown.
    let repo = repo_with(Some("required"), SIMPLE);
    let out = start(
        &repo,
        &[
            "--exempt",
            "dependency-bump",
            "--because",
            "bump serde",
            "--scope",
            "Cargo.lock",
            "--id",
            "T-bump",
        ],
        "bump\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let file = repo.path().join(".gate/tasks/T-bump.md");
    let text = std::fs::read_to_string(&file).unwrap();
    let baseline = text
        .lines()
        .find_map(|l| l.strip_prefix("baseline: \""))
        .and_then(|l| l.strip_suffix('"'))
        .expect("a baseline line")
        .to_string();
    std::fs::write(&file, text.replace(&baseline, &"1".repeat(40))).unwrap();
    let out = gate(&repo, &["check", "--only", "binding", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

/// `gate binding` judges evidence under the active task: one whose file
/// cannot be read is an error (exit 3), never judged as if there were none.
#[test]
fn binding_with_an_unreadable_active_task_is_unknown() {
    let repo = repo_with(Some("advisory"), SIMPLE);
    let out = start(&repo, &["--issue", "1"], "b\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = gate(&repo, &["binding", "--issue", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let file = std::fs::read_dir(repo.path().join(".gate/tasks"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "md"))
        .unwrap();
    std::fs::write(&file, "---\nnot: [yaml\n").unwrap();
    let out = gate(&repo, &["binding", "--issue", "1"]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    assert!(show(&out).contains(&name), "{}", show(&out));
}
