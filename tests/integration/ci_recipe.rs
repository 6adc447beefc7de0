//! The CI recipes (docs/ci.md): `action.yml` and `ci/github.sh`, and the
//! GitLab template and `ci/gitlab.sh`, run here with the variables GitHub
//! and GitLab set, against a real bare remote: a base on `main`, a pull
//! request's branch with its receipts travelled (or not), a workspace
//! fetched the way `actions/checkout` fetches it (depth 1, the synthetic
//! merge commit), and the built `gate` on PATH.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::fixture::show;
use crate::receipts::{receipts_repo, verify_exits};
use crate::support::{TestRepo, git_env};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A remote whose `main` is the base, with branch `csv` (task T-42's work,
/// its check verified on the developer's machine) and GitHub's merge ref
/// `refs/pull/1/merge`; the notes pushed when `notes`.
struct Remote {
    dev: TestRepo,
    remote: TestRepo,
    base: String,
    head: String,
    merge: String,
}

fn remote(notes: bool) -> Remote {
    let dev = receipts_repo("required");
    let base = dev.head();
    let remote = TestRepo::bare();
    dev.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
    dev.git(&["push", "-q", "--no-verify", "origin", "main"]);
    dev.git(&["switch", "-q", "-c", "csv"]);
    dev.write("src/export/mod.rs", "// export, CSV\n");
    dev.commit_all("export: CSV\n\nTask: T-42");
    let head = dev.head();
    verify_exits(&dev, "export-tests", 0);
    dev.git(&["push", "-q", "--no-verify", "origin", "csv"]);
    if notes {
        dev.git(&["push", "-q", "--no-verify", "origin", "refs/notes/gate"]);
    }
    // The merge commit GitHub builds for the pull request.
    dev.git(&["switch", "-q", "--detach", "main"]);
    dev.git(&[
        "merge",
        "-q",
        "--no-ff",
        "--no-verify",
        "-m",
        "Merge csv into main",
        "csv",
    ]);
    let merge = dev.head();
    dev.git(&[
        "push",
        "-q",
        "--no-verify",
        "origin",
        "HEAD:refs/pull/1/merge",
    ]);
    dev.git(&["switch", "-q", "csv"]);
    Remote {
        dev,
        remote,
        base,
        head,
        merge,
    }
}

/// A workspace as `actions/checkout` leaves it for a pull request: the
/// merge ref fetched at depth 1 and checked out detached.
fn github_workspace(r: &Remote) -> TestRepo {
    let ws = TestRepo::new();
    ws.git(&["remote", "add", "origin", r.remote.path().to_str().unwrap()]);
    ws.git(&[
        "fetch",
        "-q",
        "--depth=1",
        "origin",
        "+refs/pull/1/merge:refs/remotes/pull/1/merge",
    ]);
    ws.git(&["checkout", "-q", "--detach", "refs/remotes/pull/1/merge"]);
    assert_eq!(
        ws.git(&["rev-parse", "--is-shallow-repository"]).trim(),
        "true"
    );
    ws
}

/// A workspace with `refspec` fetched in full and the branch's head
/// checked out detached.
fn full_workspace(r: &Remote, refspec: &str) -> TestRepo {
    let ws = TestRepo::new();
    ws.git(&["remote", "add", "origin", r.remote.path().to_str().unwrap()]);
    ws.git(&["fetch", "-q", "origin", refspec]);
    ws.git(&["checkout", "-q", "--detach", &r.head]);
    ws
}

/// A directory beside the workspace (the runner's temp, its HOME).
fn scratch_dir(ws: &TestRepo, name: &str) -> PathBuf {
    let dir = ws.scratch(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `sh SCRIPT check` in `dir` with a cleared environment: the isolated git
/// variables, the built gate first on PATH, and `envs`.
fn run_script(script: &str, dir: &Path, home: &Path, envs: &[(&str, String)]) -> Output {
    let gate = assert_cmd::cargo::cargo_bin!("gate");
    let path = format!(
        "{}:{}",
        gate.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .arg(root().join(script))
        .arg("check")
        .current_dir(dir)
        .env_clear()
        .envs(git_env())
        .env("PATH", path)
        .env("HOME", home)
        .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .unwrap()
}

/// The files a GitHub run leaves: the summary, the outputs, the report.
struct GithubRun {
    out: Output,
    summary: String,
    outputs: String,
    report: Value,
    /// The SARIF log (`GATE_SARIF_OUT`, as the action's `sarif: 'true'`).
    sarif: Value,
}

fn run_github(r: &Remote, ws: &TestRepo) -> GithubRun {
    let runner = scratch_dir(ws, "runner");
    let event = runner.join("event.json");
    let doc = serde_json::json!({
        "action": "opened",
        "number": 1,
        "pull_request": {
            "number": 1,
            "head": {"sha": r.head, "ref": "csv"},
            "base": {"sha": r.base, "ref": "main"},
        },
        "repository": {"default_branch": "main"},
    });
    std::fs::write(&event, doc.to_string()).unwrap();
    let summary = runner.join("summary.md");
    let outputs = runner.join("output");
    let home = scratch_dir(ws, "runner-home");
    let s = |p: &Path| p.display().to_string();
    let out = run_script(
        "ci/github.sh",
        ws.path(),
        &home,
        &[
            ("GITHUB_ACTIONS", "true".into()),
            ("GITHUB_EVENT_NAME", "pull_request".into()),
            ("GITHUB_EVENT_PATH", s(&event)),
            ("GITHUB_BASE_REF", "main".into()),
            ("GITHUB_HEAD_REF", "csv".into()),
            ("GITHUB_REF", "refs/pull/1/merge".into()),
            ("GITHUB_SHA", r.merge.clone()),
            ("GITHUB_STEP_SUMMARY", s(&summary)),
            ("GITHUB_OUTPUT", s(&outputs)),
            ("GITHUB_WORKSPACE", s(ws.path())),
            ("RUNNER_TEMP", s(&runner)),
            ("RUNNER_OS", "Linux".into()),
            ("GATE_SARIF_OUT", s(&runner.join("gate.sarif"))),
        ],
    );
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    let sarif = serde_json::from_str(&read(&runner.join("gate.sarif")))
        .unwrap_or_else(|e| panic!("no SARIF log ({e}):\n{}", show(&out)));
    let report = serde_json::from_str(&read(&runner.join("gate-report.json")))
        .unwrap_or_else(|e| panic!("no JSON report ({e}):\n{}", show(&out)));
    GithubRun {
        summary: read(&summary),
        outputs: read(&outputs),
        report,
        sarif,
        out,
    }
}

/// The causes of a report's receipts check.
fn receipt_causes(report: &Value) -> Vec<String> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["check"] == "receipts")
        .flat_map(|c| c["findings"].as_array().unwrap().iter())
        .map(|f| f["cause"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_github_script_proves_a_pull_request_whose_receipts_travelled() {
    let r = remote(true);
    let ws = github_workspace(&r);
    let run = run_github(&r, &ws);
    assert_eq!(run.out.status.code(), Some(0), "{}", show(&run.out));
    assert_eq!(run.report["schema"], "gate.report/1");
    assert_eq!(run.report["exit_code"], 0, "{:#}", run.report);
    assert_eq!(receipt_causes(&run.report), Vec::<String>::new());
    // The range: from the merge base to the branch's own head, never the
    // merge commit; the rules from the target branch.
    assert!(
        run.outputs.contains(&format!("base={}\n", r.base)),
        "{}",
        run.outputs
    );
    assert!(
        run.outputs.contains(&format!("tip={}\n", r.head)),
        "{}",
        run.outputs
    );
    assert!(run.outputs.contains("exit-code=0\n"), "{}", run.outputs);
    assert!(
        run.report["policy"]["revision"]
            .as_str()
            .unwrap()
            .contains(&r.base[..12]),
        "{:#}",
        run.report
    );
    assert!(
        run.summary.contains("1 of 1 check proved"),
        "{}",
        run.summary
    );
    // The checkout was made complete, and the notes fetched.
    assert_eq!(
        ws.git(&["rev-parse", "--is-shallow-repository"]).trim(),
        "false"
    );
    assert!(ws.git_ok(&["notes", "--ref", "gate", "show", &r.head]));
    drop(r.dev);
}

#[test]
fn the_github_script_refuses_a_pull_request_whose_receipts_did_not_travel() {
    let r = remote(false);
    let ws = github_workspace(&r);
    let run = run_github(&r, &ws);
    assert_eq!(run.out.status.code(), Some(1), "{}", show(&run.out));
    assert_eq!(run.report["exit_code"], 1);
    assert_eq!(receipt_causes(&run.report), ["receipt_missing"]);
    assert!(run.outputs.contains("exit-code=1\n"), "{}", run.outputs);
    // The same judgement as SARIF, for code scanning: one result per
    // finding of the report.
    assert!(run.outputs.contains("sarif="), "{}", run.outputs);
    let results = run.sarif["runs"][0]["results"].as_array().unwrap();
    let findings: usize = run.report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["findings"].as_array().unwrap().len())
        .sum();
    assert_eq!(results.len(), findings, "{:#}", run.sarif);
    assert_eq!(results[0]["ruleId"], "receipt_missing", "{:#}", run.sarif);
    assert!(run.summary.contains("receipt_missing"), "{}", run.summary);
    // The annotations on stdout.
    let stdout = String::from_utf8_lossy(&run.out.stdout);
    assert!(
        stdout.contains("::error") && stdout.contains("no receipt travelled with the push"),
        "{stdout}"
    );
}

#[test]
fn the_gitlab_script_proves_a_merge_request() {
    for notes in [true, false] {
        let r = remote(notes);
        // GitLab's clone: full depth (GIT_DEPTH 0), the source branch's head.
        let ws = full_workspace(&r, "+refs/heads/csv:refs/remotes/origin/csv");
        let home = scratch_dir(&ws, "runner-home");
        let out = run_script(
            "ci/gitlab.sh",
            ws.path(),
            &home,
            &[
                ("GITLAB_CI", "true".into()),
                ("CI_PIPELINE_SOURCE", "merge_request_event".into()),
                ("CI_MERGE_REQUEST_DIFF_BASE_SHA", r.base.clone()),
                ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "main".into()),
                ("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "csv".into()),
                ("CI_COMMIT_SHA", r.head.clone()),
                ("CI_DEFAULT_BRANCH", "main".into()),
                ("CI_PROJECT_DIR", ws.path().display().to_string()),
            ],
        );
        let report: Value = serde_json::from_str(
            &std::fs::read_to_string(ws.path().join("gate-report.json")).unwrap(),
        )
        .unwrap();
        let expected = if notes { 0 } else { 1 };
        assert_eq!(out.status.code(), Some(expected), "{}", show(&out));
        assert_eq!(report["exit_code"], expected, "{report:#}");
        let causes = receipt_causes(&report);
        match notes {
            true => assert_eq!(causes, Vec::<String>::new()),
            false => assert_eq!(causes, ["receipt_missing"]),
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("--range {}..{}", r.base, r.head))
                && stderr.contains("--policy-from"),
            "{stderr}"
        );
    }
}

#[test]
fn a_script_that_cannot_tell_what_to_prove_is_unknown() {
    let r = remote(true);
    let ws = github_workspace(&r);
    let home = scratch_dir(&ws, "runner-home");
    let event = ws.scratch("event.json");
    std::fs::write(&event, "{}").unwrap();
    let out = run_script(
        "ci/github.sh",
        ws.path(),
        &home,
        &[
            ("GITHUB_EVENT_NAME", "workflow_dispatch".into()),
            ("GITHUB_EVENT_PATH", event.display().to_string()),
            ("GITHUB_WORKSPACE", ws.path().display().to_string()),
        ],
    );
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("set the action's base input"),
        "{}",
        show(&out)
    );
}

#[test]
fn the_action_parses_and_runs_the_scripts_that_exist() {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let action: serde_yaml::Value = serde_yaml::from_str(&text).expect("action.yml is YAML");
    assert_eq!(action["runs"]["using"], "composite");
    let steps = action["runs"]["steps"].as_sequence().unwrap();
    let runs: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    let uses: Vec<&str> = steps.iter().filter_map(|s| s["uses"].as_str()).collect();
    assert!(
        uses.iter().any(|u| u.starts_with("actions/cache@")),
        "{uses:?}"
    );
    assert!(
        uses.iter()
            .any(|u| u.starts_with("actions/upload-artifact@")),
        "{uses:?}"
    );
    assert!(
        uses.iter()
            .any(|u| u.starts_with("github/codeql-action/upload-sarif@")),
        "{uses:?}"
    );
    assert_eq!(action["inputs"]["sarif"]["default"], "false");
    // Every script a step names is in the repository and executable.
    let mut named = Vec::new();
    for run in &runs {
        for word in run.split(['"', ' ', '\'']) {
            if let Some(rel) = word.strip_prefix("$GITHUB_ACTION_PATH/") {
                named.push(rel.to_string());
            }
        }
    }
    assert!(named.contains(&"ci/github.sh".to_string()), "{named:?}");
    assert!(named.contains(&"install.sh".to_string()), "{named:?}");
    for rel in &named {
        let meta = std::fs::metadata(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        use std::os::unix::fs::PermissionsExt as _;
        assert!(
            meta.permissions().mode() & 0o111 != 0,
            "{rel} is not executable"
        );
    }
    // The subcommands the steps call are the script's own.
    let script = std::fs::read_to_string(root().join("ci/github.sh")).unwrap();
    for run in runs.iter().filter(|r| r.contains("ci/github.sh")) {
        let verb = run.rsplit(' ').next().unwrap();
        assert!(
            script.contains(&format!("  {verb}) ")),
            "ci/github.sh has no `{verb}`"
        );
    }
    // The outputs it declares are those the script writes.
    for key in ["exit-code", "report", "base", "tip", "sarif"] {
        assert!(
            script.contains(&format!("{key}=")),
            "ci/github.sh writes no {key}"
        );
        assert!(
            action["outputs"][key]["value"]
                .as_str()
                .unwrap()
                .contains(&format!("outputs.{key}")),
            "{key}"
        );
    }
    // The GitLab template parses and runs its script.
    let text = std::fs::read_to_string(root().join("ci/gitlab-ci.yml")).unwrap();
    let gitlab: serde_yaml::Value = serde_yaml::from_str(&text).expect("ci/gitlab-ci.yml is YAML");
    let script = gitlab["gate"]["script"].as_sequence().unwrap();
    assert!(
        script
            .iter()
            .any(|l| l.as_str() == Some(".gate-src/ci/gitlab.sh check")),
        "{script:?}"
    );
    assert!(root().join("ci/gitlab.sh").exists());
}

/// The Action's cache key names the runner's OS and architecture, gate's
/// version and a hash of every source the build reads: a new gate, or
/// another architecture, never restores an old binary.
#[test]
fn the_cache_key_names_the_runner_the_version_and_the_sources() {
    let outputs = tempfile::tempdir().unwrap();
    let key = |dir: &std::path::Path, arch: &str| {
        let output = outputs.path().join("output");
        let _ = std::fs::remove_file(&output);
        let out = Command::new("sh")
            .arg(dir.join("ci/github.sh"))
            .arg("cache-key")
            .env("GITHUB_OUTPUT", &output)
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", arch)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let written = std::fs::read_to_string(&output).unwrap();
        written.trim_end().strip_prefix("key=").unwrap().to_owned()
    };
    let version = env!("CARGO_PKG_VERSION");
    let real = key(&root(), "X64");
    assert!(
        real.starts_with(&format!("gate-Linux-X64-{version}-")),
        "{real}"
    );
    assert_eq!(real.len(), format!("gate-Linux-X64-{version}-").len() + 16);
    // A copy of the action with a source of its own.
    let dir = tempfile::tempdir().unwrap();
    for file in ["ci/github.sh", "Cargo.toml", "Cargo.lock", "install.sh"] {
        let to = dir.path().join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(root().join(file), &to).unwrap();
    }
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/main.rs"), "fn main() {}\n").unwrap();
    let before = key(dir.path(), "X64");
    assert_eq!(
        before,
        key(dir.path(), "X64"),
        "the same sources, the same key"
    );
    assert_ne!(before, key(dir.path(), "ARM64"), "another architecture");
    std::fs::write(dir.path().join("src/main.rs"), "fn main() { }\n").unwrap();
    assert_ne!(before, key(dir.path(), "X64"), "a changed source");
}

#[test]
fn the_github_script_proves_a_push_from_the_events_before() {
    let r = remote(false);
    // The branch as pushed: a full-depth checkout of its head.
    let ws = full_workspace(&r, "+refs/heads/*:refs/remotes/origin/*");
    let runner = scratch_dir(&ws, "runner");
    let home = scratch_dir(&ws, "runner-home");
    let outputs = runner.join("output");
    let run = |before: &str| {
        let event = runner.join("event.json");
        let doc = serde_json::json!({
            "ref": "refs/heads/csv",
            "before": before,
            "after": r.head,
            "repository": {"default_branch": "main"},
        });
        std::fs::write(&event, doc.to_string()).unwrap();
        let _ = std::fs::remove_file(&outputs);
        run_script(
            "ci/github.sh",
            ws.path(),
            &home,
            &[
                ("GITHUB_EVENT_NAME", "push".into()),
                ("GITHUB_EVENT_PATH", event.display().to_string()),
                ("GITHUB_SHA", r.head.clone()),
                ("GITHUB_OUTPUT", outputs.display().to_string()),
                ("GITHUB_WORKSPACE", ws.path().display().to_string()),
                ("RUNNER_TEMP", runner.display().to_string()),
            ],
        )
    };
    // An update of the branch: from `before`; no receipts travelled.
    let out = run(&r.base);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let written = std::fs::read_to_string(&outputs).unwrap();
    assert!(written.contains(&format!("base={}\n", r.base)), "{written}");
    // A new branch: from where it leaves the default branch, the same range.
    let out = run(&"0".repeat(40));
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let written = std::fs::read_to_string(&outputs).unwrap();
    assert!(written.contains(&format!("base={}\n", r.base)), "{written}");
    assert!(written.contains("exit-code=1\n"), "{written}");
}

#[test]
fn the_gitlab_script_runs_unproved_checks_and_writes_no_report_through_a_link() {
    // No notes travelled; GATE_RUN_UNPROVED runs the check on the tip.
    let r = remote(false);
    let ws = full_workspace(&r, "+refs/heads/csv:refs/remotes/origin/csv");
    ws.write("ctl/verdict", "pass\n");
    // The change put a link where the report goes (as a checkout of a
    // committed symlink leaves it): the report must replace it, never
    // write through it.
    let victim = ws.scratch("victim.txt");
    std::fs::write(&victim, "untouched\n").unwrap();
    std::os::unix::fs::symlink(&victim, ws.path().join("gate-report.json")).unwrap();
    let home = scratch_dir(&ws, "runner-home");
    let out = run_script(
        "ci/gitlab.sh",
        ws.path(),
        &home,
        &[
            ("GITLAB_CI", "true".into()),
            ("CI_PIPELINE_SOURCE", "merge_request_event".into()),
            ("CI_MERGE_REQUEST_DIFF_BASE_SHA", r.base.clone()),
            ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "main".into()),
            ("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "csv".into()),
            ("CI_COMMIT_SHA", r.head.clone()),
            ("CI_DEFAULT_BRANCH", "main".into()),
            ("CI_PROJECT_DIR", ws.path().display().to_string()),
            ("GATE_RUN_UNPROVED", "true".into()),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched\n");
    let path = ws.path().join("gate-report.json");
    assert!(!path.symlink_metadata().unwrap().file_type().is_symlink());
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(report["exit_code"], 0, "{report:#}");
    let summary = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "receipts")
        .unwrap()["summary"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        summary.contains("export-tests by running here"),
        "{summary}"
    );
    // Judged once: the check ran once, though the report is printed twice.
    let ran = std::fs::read_to_string(ws.path().join("ctl/ran")).unwrap();
    assert_eq!(ran.lines().count(), 1, "{ran}");
}
