//! Shared scenery: a repository with a policy, a plan and a few files.

use std::process::Output;

use crate::support::TestRepo;

/// A plan with one intent, two open issues (one maintenance) and a critique.
pub const PLAN: &str = r#"intents:
  - id: I-export
    statement: Reports can be exported.
    status: active
    criteria:
      - id: C1
        criterion: CSV export works
        evidence: [export-tests]
checks:
  - id: export-tests
    command: "true"
    sources: [src, tests]
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
    findings: []
"#;

/// A policy with every check at `mode`.
pub fn policy(mode: &str) -> String {
    format!(
        "version: 1\nbinding: off\nexemptions:\n  - id: dependency-bump\n    description: Lockfile-only updates\nscope: {mode}\nprovenance:\n  mode: {mode}\n  merges: refuse\nreceipts:\n  mode: off\nbrief:\n  mode: off\n"
    )
}

/// A repository with a policy (every check at `mode`), the plan, some files,
/// one commit, and `user.name` set.
pub fn plan_repo(mode: &str) -> TestRepo {
    let repo = TestRepo::new();
    repo.git(&["config", "user.name", "Test Operator"]);
    repo.write(".gate/policy.yaml", policy(mode));
    repo.write(".gate/plan.yaml", PLAN);
    repo.write("README.md", "# demo\n");
    repo.write("src/lib.rs", "pub fn f() {}\n");
    repo.write("src/export/mod.rs", "// export\n");
    repo.write("docs/export.md", "# Export\n");
    repo.commit_all("initial");
    repo
}

/// `gate start` with `args` and the brief on stdin.
pub fn start(repo: &TestRepo, args: &[&str], brief: &str) -> Output {
    let mut all = vec!["start"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--brief", "-"]);
    repo.gate()
        .args(&all)
        .write_stdin(brief.as_bytes().to_vec())
        .output()
        .unwrap()
}

/// Start task T-42 for issue 42 (named with `--id`: a default id is fresh)
/// and check it worked.
pub fn start_42(repo: &TestRepo) {
    let out = start(
        repo,
        &["--issue", "42", "--id", "T-42"],
        "Add CSV export to the report page.\n",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The exit code and both streams, for assertion messages.
pub fn show(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The path of a file in the repository's per-worktree git dir.
pub fn git_path(repo: &TestRepo, rel: &str) -> std::path::PathBuf {
    let p = repo.git(&["rev-parse", "--git-path", rel]);
    repo.path().join(p.trim())
}

/// Every finding's cause in a JSON report, check by check.
pub fn all_causes(doc: &serde_json::Value) -> Vec<String> {
    doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["findings"].as_array().unwrap().iter())
        .map(|f| f["cause"].as_str().unwrap().to_string())
        .collect()
}
