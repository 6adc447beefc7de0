//! `gate plan validate` warns about check commands whose receipts could not
//! be reproduced (docs/plan.md): a moving ref, several lines. `gate plan
//! critique` prints (or adds) the entry a review records.

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

/// A `sources` entry under `.gate/` was dropped from every fingerprint
/// without a word: the check's receipt never went stale when that file
/// changed. `gate plan validate` refuses it, naming the key.
#[test]
fn plan_validate_refuses_a_source_under_gate_naming_its_key() {
    let repo = plan_repo("required");
    let plan = crate::fixture::PLAN.replace(
        "    sources: [src, tests]\n",
        "    sources: [src, .gate/policy.yaml, tests, .gatekeeper, .gate/]\n",
    );
    repo.write(".gate/plan.yaml", &plan);
    let out = repo
        .gate()
        .args(["plan", "validate", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let found: Vec<(String, String, String, u64)> = doc["checks"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["cause"] == "source_under_gate")
        .map(|f| {
            (
                f["severity"].as_str().unwrap().to_string(),
                f["key"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let line = 1 + plan
        .lines()
        .position(|l| l.contains(".gate/policy"))
        .unwrap() as u64;
    let message = |source: &str| {
        format!(
            "check export-tests lists source \"{source}\", which is under .gate/: no fingerprint covers gate's own files, so its receipt would not go stale when it changes"
        )
    };
    assert_eq!(
        found,
        [
            (
                "blocker".into(),
                "checks[0].sources[1]".into(),
                message(".gate/policy.yaml"),
                line
            ),
            (
                "blocker".into(),
                "checks[0].sources[4]".into(),
                message(".gate/"),
                line
            ),
        ],
        "{}",
        show(&out)
    );
    let human = repo.gate().args(["plan", "validate"]).output().unwrap();
    assert_eq!(human.status.code(), Some(1), "{}", show(&human));
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("✗ source_under_gate check export-tests lists source \".gate/policy.yaml\""),
        "{text}"
    );
    assert!(
        text.contains("decide: remove it from the check's sources"),
        "{text}"
    );
}

/// The fixture plan without its critiques section.
fn plan_without_critiques() -> String {
    let plan = crate::fixture::PLAN;
    plan[..plan.find("critiques:").unwrap()].to_string()
}

fn binding_causes(repo: &crate::support::TestRepo) -> (Option<i32>, serde_json::Value) {
    let out = repo
        .gate()
        .args(["binding", "--issue", "42", "--json"])
        .output()
        .unwrap();
    (
        out.status.code(),
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", show(&out))),
    )
}

#[test]
fn plan_critique_prints_the_entry_a_review_records() {
    let repo = plan_repo("required");
    let out = repo
        .gate()
        .args(["plan", "critique", "I-export", "--today", "2026-12-01"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    crate::golden::assert_golden(
        "plan/critique.txt",
        &crate::golden::transcript(Some(&repo), &out),
    );
    let json = repo
        .gate()
        .args([
            "plan",
            "critique",
            "I-export",
            "--today",
            "2026-12-01",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(json.status.code(), Some(0), "{}", show(&json));
    crate::golden::assert_golden(
        "plan/critique.json",
        &crate::golden::transcript(Some(&repo), &json),
    );
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let revision = doc["intent_revision"].as_str().unwrap().to_string();
    // It is the digest `gate plan validate` names for a new critique.
    let validate = repo.gate().args(["plan", "validate"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&validate.stdout).contains(&format!("intent_revision {revision}")),
        "{}",
        show(&validate)
    );
    // Pasted under `critiques:`, the review is current: bound.
    let entry = String::from_utf8_lossy(&out.stdout).to_string();
    repo.write(
        ".gate/plan.yaml",
        format!("{}critiques:\n{entry}", plan_without_critiques()),
    );
    let (code, doc) = binding_causes(&repo);
    assert_eq!(
        (code, doc["standing"].as_str()),
        (Some(0), Some("bound")),
        "{doc}"
    );
    // The pin is another digest, under its own name (and its old one).
    let pins = &doc["pins"];
    assert_eq!(pins["plan_pin"], pins["plan_revision"]);
    assert_ne!(pins["plan_pin"].as_str(), Some(revision.as_str()));
    // The intent changes: the critique is stale, and the refusal says how
    // to get the entry a new review records.
    repo.write(
        ".gate/plan.yaml",
        format!("{}critiques:\n{entry}", plan_without_critiques()).replace(
            "Reports can be exported.",
            "Reports can be exported as CSV.",
        ),
    );
    let (code, doc) = binding_causes(&repo);
    assert_eq!(code, Some(1), "{doc}");
    let refusal = &doc["refusals"][0];
    assert_eq!(refusal["cause"], "critique_stale");
    assert!(
        refusal["decide"]
            .as_str()
            .unwrap()
            .contains("gate plan critique I-export"),
        "{doc}"
    );
}

#[test]
fn plan_critique_write_adds_the_entry_or_refuses_writing_nothing() {
    let repo = plan_repo("required");
    let lists = [
        format!("{}critiques: []\n", plan_without_critiques()),
        plan_without_critiques(),
        format!(
            "{}critiques:\n- intent: Other\n  reviewed_at: 2026-01-01\n",
            plan_without_critiques()
        ),
    ];
    let write = || {
        repo.gate()
            .args(["plan", "critique", "I-export", "--write"])
            .output()
            .unwrap()
    };
    for before in lists {
        repo.write(".gate/plan.yaml", &before);
        let (code, doc) = binding_causes(&repo);
        assert_eq!(code, Some(1), "not yet critiqued: {doc}");
        let out = write();
        assert_eq!(out.status.code(), Some(0), "{before}\n{}", show(&out));
        let after = std::fs::read_to_string(repo.path().join(".gate/plan.yaml")).unwrap();
        assert!(after.starts_with(&plan_without_critiques()), "{after}");
        let (code, doc) = binding_causes(&repo);
        assert_eq!(code, Some(0), "{after}\n{doc}");
        // A second review is the reviewer's to place: refused, nothing written.
        let out = write();
        assert_eq!(out.status.code(), Some(1), "{}", show(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("already has a critique"),
            "{}",
            show(&out)
        );
        assert_eq!(
            std::fs::read_to_string(repo.path().join(".gate/plan.yaml")).unwrap(),
            after
        );
    }
    // --replace puts a new review in place of the one there (the fixture's,
    // with its findings), changing nothing else.
    repo.write(".gate/plan.yaml", crate::fixture::PLAN);
    let out = repo
        .gate()
        .args(["plan", "critique", "I-export", "--write", "--replace"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let after = std::fs::read_to_string(repo.path().join(".gate/plan.yaml")).unwrap();
    assert!(after.starts_with(&plan_without_critiques()), "{after}");
    assert!(after.contains("intent_revision: "), "{after}");
    assert!(!after.contains("findings: []\n    findings"), "{after}");
    let plan = gate::plan::parse(std::path::Path::new("p"), &after).unwrap();
    assert_eq!(plan.critiques.len(), 1);
    assert!(plan.critiques[0].findings.is_empty());
    assert_eq!(binding_causes(&repo).0, Some(0));
    // Two critiques of the intent: which one a review replaces is not
    // gate's to guess.
    let two = format!("{after}  - intent: I-export\n    reviewed_at: 2026-01-02\n");
    repo.write(".gate/plan.yaml", &two);
    let out = repo
        .gate()
        .args(["plan", "critique", "I-export", "--write", "--replace"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has 2 critiques"));
    assert_eq!(
        std::fs::read_to_string(repo.path().join(".gate/plan.yaml")).unwrap(),
        two
    );
    // An unknown intent is refused, naming the plan's.
    let out = repo
        .gate()
        .args(["plan", "critique", "I-nope", "--write"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("intents: I-export"));
}
