//! `gate context` (docs/agents.md): everything a worker needs before
//! touching anything, in one document (`gate.context/1`), human and JSON;
//! the recorded scope, the receipts check's states, the binding; unknowns
//! reported with what decides them (exit 3), and each `next` command works.

use std::process::Output;

use serde_json::Value;

use crate::fixture::{policy, show, start};
use crate::golden::{assert_golden, transcript};
use crate::support::{TestRepo, git_env};

/// The fixture's plan with invariants, non-goals and a critique with a
/// resolved blocking finding and an open advisory one.
const PLAN: &str = r#"intents:
  - id: I-export
    statement: Reports can be exported.
    status: active
    invariants:
      - Amounts match the database to the cent.
    non_goals:
      - PDF export.
    criteria:
      - id: C1
        criterion: CSV export works
        evidence: [export-tests]
checks:
  - id: export-tests
    command: "true"
    sources: [src]
issues:
  - id: "42"
    title: CSV export
    intent: I-export
    serves: [C1]
    paths: ["src/export/**", "docs/export.md"]
    status: open
  - id: "7"
    title: Fix typos in the docs
    paths: ["docs/**"]
    status: open
critiques:
  - intent: I-export
    reviewed_at: 2026-11-20
    findings:
      - id: F1
        blocking: true
        text: C1 names no format.
        resolution: CSV, RFC 4180.
      - id: F2
        blocking: false
        text: Consider a header row.
"#;

fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.git(&["config", "user.name", "Test Operator"]);
    repo.write(".gate/policy.yaml", policy("required"));
    repo.write(".gate/plan.yaml", PLAN);
    repo.write("README.md", "# demo\n");
    repo.write("src/export/mod.rs", "// export\n");
    repo.write("docs/export.md", "# Export\n");
    repo.commit_all("initial");
    repo
}

fn start_42(repo: &TestRepo) {
    let out = start(
        repo,
        &["--issue", "42", "--id", "T-42"],
        "Add CSV export to the report page.\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

fn context(repo: &TestRepo, json: bool) -> Output {
    let mut cmd = repo.gate();
    cmd.arg("context");
    if json {
        cmd.arg("--json");
    }
    cmd.output().unwrap()
}

fn doc(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", show(out)))
}

fn ok(out: Output) -> Output {
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    out
}

/// Run a `next` command as typed: `gate …` with this gate, anything else with sh.
fn run_next(repo: &TestRepo, command: &str) -> Output {
    match command.strip_prefix("gate ") {
        Some(rest) if !rest.contains(['\'', '"', '&']) => {
            repo.gate().args(rest.split(' ')).output().unwrap()
        }
        _ => std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(repo.path())
            .env_clear()
            .envs(git_env())
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .output()
            .unwrap(),
    }
}

fn commands(d: &Value) -> Vec<String> {
    d["next"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["command"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_context_holds_the_task_brief_scope_intent_criteria_critique_and_binding() {
    let repo = repo();
    start_42(&repo);
    ok(repo
        .gate()
        .args([
            "task",
            "amend",
            "--author",
            "Ada",
            "--text",
            "Also the totals row.",
        ])
        .output()
        .unwrap());
    ok(repo
        .gate()
        .args([
            "task",
            "scope",
            "add",
            ":/README.md",
            "--because",
            "The README shows the export.",
        ])
        .output()
        .unwrap());
    let human = context(&repo, false);
    assert_eq!(human.status.code(), Some(0), "{}", show(&human));
    assert_golden("context/task.txt", &transcript(Some(&repo), &human));
    let json = context(&repo, true);
    assert_eq!(json.status.code(), Some(0), "{}", show(&json));
    assert_golden("context/task.json", &transcript(Some(&repo), &json));
    let d = doc(&json);
    assert_eq!(d["schema"], "gate.context/1");
    assert_eq!(d["task"]["baseline"], repo.rev("HEAD"));
    assert_eq!(d["brief"], "Add CSV export to the report page.\n");
    assert_eq!(d["addenda"].as_array().unwrap().len(), 2);
    assert!(
        d["addenda"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Also the totals row.")
    );
    assert_eq!(
        d["scope"]["effective"],
        serde_json::json!(["src/export/**", "docs/export.md", "README.md"])
    );
    assert_eq!(
        d["intents"][0]["invariants"][0],
        "Amounts match the database to the cent."
    );
    assert_eq!(d["intents"][0]["non_goals"][0], "PDF export.");
    assert_eq!(d["criteria"][0]["evidence"][0]["state"], "missing");
    assert_eq!(d["critiques"][0]["open_blocking"], serde_json::json!([]));
    assert_eq!(d["critiques"][0]["findings"][1]["open"], true);
    assert_eq!(d["binding"]["standing"], "bound");
    assert!(commands(&d).contains(&"gate verify export-tests".to_string()));
}

#[test]
fn each_next_command_works_until_gate_check_passes() {
    let repo = repo();
    start_42(&repo);
    let mut ran = Vec::new();
    for _ in 0..4 {
        let d = doc(&context(&repo, true));
        assert_eq!(d["exit_code"], 0, "{d}");
        let next = commands(&d);
        if next.first().map(String::as_str) == Some("gate check") {
            assert_eq!(next, ["gate check", "gate task finish"]);
            ok(run_next(&repo, "gate check"));
            assert!(
                ran.iter().any(|c: &String| c.starts_with("gate verify")),
                "{ran:?}"
            );
            assert!(
                ran.iter().any(|c: &String| c.starts_with("git add")),
                "{ran:?}"
            );
            return;
        }
        for command in next {
            ok(run_next(&repo, &command));
            ran.push(command);
        }
    }
    panic!("the next commands never reached `gate check`: ran {ran:?}");
}

#[test]
fn no_active_task_is_unknown_and_names_gate_start_which_works() {
    let repo = repo();
    let out = context(&repo, false);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert_golden("context/no-task.txt", &transcript(Some(&repo), &out));
    let d = doc(&context(&repo, true));
    assert_eq!(d["outcome"], "unknown");
    assert_eq!(d["exit_code"], 3);
    assert!(d["task"].is_null());
    assert_eq!(d["unknowns"][0]["part"], "task");
    assert!(commands(&d)[0].starts_with("gate start --issue ID"));
    start_42(&repo);
    assert_eq!(context(&repo, true).status.code(), Some(0));
}

#[test]
fn an_unreadable_plan_is_unknown_and_the_rest_is_still_shown() {
    let repo = repo();
    start_42(&repo);
    repo.write(".gate/plan.yaml", "intents: {\n");
    let out = context(&repo, true);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let d = doc(&out);
    assert_eq!(d["unknowns"][0]["part"], "plan");
    assert!(
        d["unknowns"][0]["decide"]
            .as_str()
            .unwrap()
            .contains("gate plan validate")
    );
    assert_eq!(d["brief"], "Add CSV export to the report page.\n");
    assert_eq!(d["scope"]["effective"][0], "src/export/**");
    // What decides it: the plan back as it was.
    repo.git(&["checkout", "--", ".gate/plan.yaml"]);
    assert_eq!(context(&repo, true).status.code(), Some(0));
}

#[test]
fn the_scope_is_the_recorded_one_not_an_uncommitted_edit() {
    let repo = repo();
    start_42(&repo);
    let file = repo.path().join(".gate/tasks/T-42.md");
    let text = std::fs::read_to_string(&file).unwrap();
    let widened = text.replacen("scope: [", "scope: [\"README.md\", ", 1);
    assert_ne!(text, widened);
    std::fs::write(&file, widened).unwrap();
    let d = doc(&context(&repo, true));
    assert_eq!(
        d["scope"]["effective"],
        serde_json::json!(["src/export/**", "docs/export.md"])
    );
}

#[test]
fn an_exemption_carries_its_declared_description() {
    let repo = repo();
    let out = start(
        &repo,
        &[
            "--exempt",
            "dependency-bump",
            "--because",
            "Bump serde.",
            "--scope",
            "Cargo.lock",
        ],
        "Bump serde.\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Lockfile-only updates"), "{stdout}");
    let d = doc(&context(&repo, true));
    let e = &d["task"]["exemption"];
    assert_eq!(e["class"], "dependency-bump");
    assert_eq!(e["because"], "Bump serde.");
    assert_eq!(e["description"], "Lockfile-only updates");
    let b = repo
        .gate()
        .args([
            "binding",
            "--exempt",
            "dependency-bump",
            "--because",
            "Bump serde.",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(
        doc(&b)["named"]["exemption"]["description"],
        "Lockfile-only updates"
    );
}
