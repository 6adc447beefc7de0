//! `gate plan validate` warns about check commands whose receipts could not
//! be reproduced (docs/plan.md): a moving ref, several lines.

use crate::fixture::{plan_repo, show};

#[test]
fn plan_validate_warns_about_commands_that_cannot_mean_the_same_thing_twice() {
    let repo = plan_repo("required");
    let plan = crate::fixture::PLAN.replace(
        "    command: \"true\"\n    sources: [src, tests]\n",
        "    command: \"true\"\n    sources: [src, tests]\n  - id: drift\n    command: git diff --exit-code origin/main -- src\n    sources: [src]\n  - id: upstream\n    command: git log @{u}..HEAD\n    sources: [src]\n  - id: steps\n    command: |\n      make\n      make test\n    sources: [src]\n  - id: plain\n    command: ./origin/run.sh\n    sources: [src]\n",
    );
    repo.write(".gate/plan.yaml", &plan);
    let out = repo
        .gate()
        .args(["plan", "validate", "--json"])
        .output()
        .unwrap();
    // Warnings never refuse.
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let found: Vec<(String, String, String, u64)> = doc["checks"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["cause"].as_str().unwrap().starts_with("command_"))
        .map(|f| {
            (
                f["cause"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
                f["key"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let line = |needle: &str| 1 + plan.lines().position(|l| l.contains(needle)).unwrap() as u64;
    assert_eq!(
        found,
        [
            (
                "command_names_moving_ref".into(),
                "warn".into(),
                "checks[1].command".into(),
                line("origin/main")
            ),
            (
                "command_names_moving_ref".into(),
                "warn".into(),
                "checks[2].command".into(),
                line("@{u}")
            ),
            (
                "command_spans_lines".into(),
                "warn".into(),
                "checks[3].command".into(),
                line("command: |")
            ),
        ],
        "{}",
        show(&out)
    );
    let human = repo.gate().args(["plan", "validate"]).output().unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("! command_names_moving_ref the command of check drift names `origin/main`"),
        "{text}"
    );
}
