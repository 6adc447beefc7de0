//! `gate may-touch` (docs/agents.md): each path allowed or refused by the
//! active task's RECORDED scope, with the pattern or the action that gets
//! it through, and the issue that would cover it; exit 0 only when every
//! path is allowed, 1 any refused, 3 undecidable (no active task).

use std::process::Output;

use serde_json::Value;

use crate::fixture::{plan_repo, show, start, start_42};
use crate::golden::{assert_golden, transcript};
use crate::support::TestRepo;

fn may_touch(repo: &TestRepo, dir: &str, paths: &[&str], json: bool) -> Output {
    let mut cmd = repo.gate();
    cmd.current_dir(repo.path().join(dir))
        .arg("may-touch")
        .args(paths);
    if json {
        cmd.arg("--json");
    }
    cmd.output().unwrap()
}

fn doc(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", show(out)))
}

fn verdicts(out: &Output) -> Vec<String> {
    doc(out)["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{} {}",
                p["path"].as_str().unwrap(),
                p["verdict"].as_str().unwrap()
            )
        })
        .collect()
}

/// Run a `decide` line's backquoted command (`gate …`) in the repository.
fn run_decide(repo: &TestRepo, decide: &str) -> Output {
    let start = decide.find("`gate ").expect("a gate command") + 1;
    let end = start + decide[start..].find('`').unwrap();
    let words = shell_words(&decide[start..end]);
    assert_eq!(words[0], "gate");
    repo.gate().args(&words[1..]).output().unwrap()
}

/// Split a command line with single and double quotes, as sh would.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut any = false;
    for c in line.chars() {
        match (quote, c) {
            (None, ' ') => {
                if any {
                    words.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (Some(q), c) if c == q => quote = None,
            (_, c) => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        words.push(word);
    }
    words
}

#[test]
fn each_path_says_allowed_or_refused_and_why_in_both_renderings() {
    let repo = plan_repo("required");
    start_42(&repo);
    let paths = [
        "src/export/mod.rs",
        "docs/guide.md",
        "README.md",
        ".gate/tasks/T-42.md",
    ];
    let human = may_touch(&repo, "", &paths, false);
    assert_eq!(human.status.code(), Some(1), "{}", show(&human));
    assert_golden("may_touch/refused.txt", &transcript(Some(&repo), &human));
    let json = may_touch(&repo, "", &paths, true);
    assert_eq!(json.status.code(), Some(1), "{}", show(&json));
    assert_golden("may_touch/refused.json", &transcript(Some(&repo), &json));
    assert_eq!(
        verdicts(&json),
        [
            "src/export/mod.rs allowed",
            "docs/guide.md refused",
            "README.md refused",
            ".gate/tasks/T-42.md allowed"
        ]
    );
    let d = doc(&json);
    assert_eq!(d["paths"][0]["pattern"], "src/export/**");
    // The maintenance issue 7 covers docs/**: the refusal names it.
    assert_eq!(d["paths"][1]["issues"][0]["issue"], "7");
    assert!(
        d["paths"][1]["decide"]
            .as_str()
            .unwrap()
            .contains("gate start --issue 7")
    );
}

#[test]
fn every_path_allowed_exits_0() {
    let repo = plan_repo("required");
    start_42(&repo);
    let out = may_touch(&repo, "", &["src/export/new.rs", "docs/export.md"], false);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

#[test]
fn the_refusals_scope_add_gets_the_path_through() {
    let repo = plan_repo("required");
    start_42(&repo);
    let out = may_touch(&repo, "", &["README.md"], true);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let decide = doc(&out)["paths"][0]["decide"]
        .as_str()
        .unwrap()
        .to_string();
    let added = run_decide(
        &repo,
        &decide.replace('…', "the README documents the export"),
    );
    assert_eq!(added.status.code(), Some(0), "{}", show(&added));
    let again = may_touch(&repo, "", &["README.md"], true);
    assert_eq!(again.status.code(), Some(0), "{}", show(&again));
    assert_eq!(doc(&again)["paths"][0]["pattern"], "README.md");
}

#[test]
fn an_uncommitted_scope_edit_widens_nothing() {
    let repo = plan_repo("required");
    start_42(&repo);
    let file = repo.path().join(".gate/tasks/T-42.md");
    let text = std::fs::read_to_string(&file).unwrap();
    let widened = text.replacen("scope: [", "scope: [\"README.md\", ", 1);
    assert_ne!(text, widened, "the task file lists its scope:\n{text}");
    std::fs::write(&file, widened).unwrap();
    let out = may_touch(&repo, "", &["README.md"], true);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(verdicts(&out), ["README.md refused"]);
}

#[test]
fn no_active_task_is_unknown_and_names_gate_start_which_works() {
    let repo = plan_repo("required");
    let out = may_touch(&repo, "", &["src/export/mod.rs"], false);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert_golden("may_touch/no-task.txt", &transcript(Some(&repo), &out));
    let json = may_touch(&repo, "", &["src/export/mod.rs"], true);
    assert_eq!(json.status.code(), Some(3), "{}", show(&json));
    let d = doc(&json);
    assert_eq!(d["outcome"], "unknown");
    assert!(d["task"].is_null());
    let decide = d["paths"][0]["decide"].as_str().unwrap();
    assert!(
        decide.contains("`gate start --issue 42 --brief -`"),
        "{decide}"
    );
    let started = start(&repo, &["--issue", "42"], "Add CSV export.\n");
    assert_eq!(started.status.code(), Some(0), "{}", show(&started));
    let again = may_touch(&repo, "", &["src/export/mod.rs"], false);
    assert_eq!(again.status.code(), Some(0), "{}", show(&again));
}

#[test]
fn a_refusal_outranks_an_unknown_and_paths_are_relative_to_the_current_directory() {
    let repo = plan_repo("required");
    start_42(&repo);
    let abs = repo.path().join("src/export/new/deep.rs");
    let out = may_touch(
        &repo,
        "src/export",
        &[
            "mod.rs",
            "../lib.rs",
            ":/docs/export.md",
            abs.to_str().unwrap(),
        ],
        true,
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(
        verdicts(&out),
        [
            "src/export/mod.rs allowed",
            "src/lib.rs refused",
            "docs/export.md allowed",
            "src/export/new/deep.rs allowed"
        ]
    );
}

#[test]
fn a_path_outside_the_work_tree_is_a_usage_error() {
    let repo = plan_repo("required");
    start_42(&repo);
    for bad in ["../elsewhere.rs", "/etc/passwd"] {
        let out = may_touch(&repo, "", &[bad], true);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", show(&out));
        assert_eq!(doc(&out)["schema"], "gate.error/1");
    }
}
