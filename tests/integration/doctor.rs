//! `gate doctor`: healthy after `gate install` in a repository with its
//! files committed; each kind of broken install is a fault naming its
//! remedy — and running that remedy makes the install healthy again; what
//! cannot be read is unknown (exit 3). The JSON is decoded into structs that
//! deny unknown fields.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;

use serde::Deserialize;

use crate::fixture::{plan_repo, show, start_42};
use crate::golden::{assert_golden, transcript};
use crate::support::TestRepo;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Doctor {
    schema: String,
    outcome: String,
    exit_code: i32,
    hooks_dir: String,
    manager: Option<String>,
    checks: Vec<Item>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Item {
    check: String,
    subject: String,
    status: String,
    detail: String,
    remedy: Option<String>,
}

fn doctor(repo: &TestRepo) -> Doctor {
    let out = repo.gate().args(["doctor", "--json"]).output().unwrap();
    let doc: Doctor =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", show(&out)));
    assert_eq!(doc.schema, "gate.doctor/1");
    assert_eq!(out.status.code(), Some(doc.exit_code), "{}", show(&out));
    doc
}

/// The faults (check, subject, remedy) a doctor found.
fn faults(doc: &Doctor) -> Vec<(String, String, String)> {
    doc.checks
        .iter()
        .filter(|i| i.status == "fault")
        .map(|i| {
            (
                i.check.clone(),
                i.subject.clone(),
                i.remedy.clone().unwrap_or_default(),
            )
        })
        .collect()
}

fn assert_healthy(repo: &TestRepo) {
    let doc = doctor(repo);
    assert_eq!(
        (doc.exit_code, doc.outcome.as_str()),
        (0, "healthy"),
        "{doc:#?}"
    );
}

/// A repository with gate installed, a task started and its file committed.
fn healthy_repo() -> TestRepo {
    let repo = plan_repo("required");
    start_42(&repo);
    repo.git(&["add", ".gate/tasks"]);
    repo.git(&["commit", "-q", "-m", "start T-42\n\nTask: T-42"]);
    gate(&repo, &["install"]);
    repo
}

fn gate(repo: &TestRepo, args: &[&str]) -> Output {
    let out = repo.gate().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", show(&out));
    out
}

fn hook(repo: &TestRepo, name: &str) -> std::path::PathBuf {
    repo.path().join(".git/hooks").join(name)
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn a_healthy_install_is_healthy_in_both_renderings() {
    let repo = healthy_repo();
    let out = repo.gate().arg("doctor").output().unwrap();
    assert_golden("doctor/healthy.txt", &transcript(Some(&repo), &out));
    let out = repo.gate().args(["doctor", "--json"]).output().unwrap();
    assert_golden("doctor/healthy.json", &transcript(Some(&repo), &out));
    let doc = doctor(&repo);
    assert_eq!(doc.manager, None);
    assert!(doc.hooks_dir.ends_with(".git/hooks"), "{}", doc.hooks_dir);
    assert!(doc.checks.iter().all(|i| !i.detail.is_empty()));
}

#[test]
fn hooks_not_installed_are_faults_that_gate_install_repairs() {
    let repo = plan_repo("required");
    let out = repo.gate().arg("doctor").output().unwrap();
    assert_golden("doctor/not-installed.txt", &transcript(Some(&repo), &out));
    let doc = doctor(&repo);
    assert_eq!(doc.exit_code, 1);
    assert_eq!(faults(&doc).len(), 4, "{doc:#?}");
    assert!(
        faults(&doc)
            .iter()
            .all(|(c, _, r)| c == "hook" && r == "gate install")
    );
    gate(&repo, &["install"]);
    assert_healthy(&repo);
}

#[test]
fn a_hook_that_is_not_executable_is_a_fault_gate_install_repairs() {
    let repo = healthy_repo();
    chmod(&hook(&repo, "pre-push"), 0o644);
    let doc = doctor(&repo);
    assert_eq!(
        faults(&doc),
        [(
            "hook".into(),
            "pre-push".into(),
            "gate install (rewrites it executable)".into()
        )]
    );
    gate(&repo, &["install"]);
    assert_healthy(&repo);
}

#[test]
fn a_hook_running_another_gate_is_a_fault_gate_install_repairs() {
    let repo = healthy_repo();
    let other = repo.scratch("other-gate");
    std::fs::write(&other, "#!/bin/sh\nexit 0\n").unwrap();
    chmod(&other, 0o755);
    gate(&repo, &["install", "--binary", other.to_str().unwrap()]);
    let doc = doctor(&repo);
    assert_eq!(faults(&doc).len(), 4, "{doc:#?}");
    assert!(
        doc.checks
            .iter()
            .any(|i| i.detail.contains("runs another gate")),
        "{doc:#?}"
    );
    std::fs::remove_file(&other).unwrap();
    let doc = doctor(&repo);
    assert!(
        doc.checks
            .iter()
            .any(|i| i.detail.contains("the gate it records is missing")),
        "{doc:#?}"
    );
    gate(&repo, &["install"]);
    assert_healthy(&repo);
}

#[test]
fn a_chained_hook_that_does_not_run_is_a_fault_chmod_repairs() {
    let repo = plan_repo("required");
    std::fs::write(hook(&repo, "pre-commit"), "#!/bin/sh\nexit 0\n").unwrap();
    chmod(&hook(&repo, "pre-commit"), 0o644);
    gate(&repo, &["install"]);
    let doc = doctor(&repo);
    let chained = hook(&repo, "pre-commit.gate-chained");
    assert_eq!(
        faults(&doc),
        [(
            "hook".into(),
            "pre-commit".into(),
            format!("chmod +x {} (or remove it)", chained.display())
        )]
    );
    chmod(&chained, 0o755);
    assert_healthy(&repo);
}

#[test]
fn another_tool_s_hook_over_gate_s_is_a_fault_install_force_repairs() {
    let repo = healthy_repo();
    std::fs::write(
        hook(&repo, "pre-commit.gate-chained"),
        "#!/bin/sh\nexit 0\n",
    )
    .unwrap();
    chmod(&hook(&repo, "pre-commit.gate-chained"), 0o755);
    std::fs::write(hook(&repo, "pre-commit"), "#!/bin/sh\necho tool\n").unwrap();
    chmod(&hook(&repo, "pre-commit"), 0o755);
    let doc = doctor(&repo);
    assert_eq!(faults(&doc).len(), 1, "{doc:#?}");
    assert!(
        faults(&doc)[0].2.starts_with("gate install --force"),
        "{doc:#?}"
    );
    gate(&repo, &["install", "--force"]);
    assert_healthy(&repo);
}

#[test]
fn a_policy_unlike_head_s_is_a_fault_a_commit_repairs() {
    let repo = healthy_repo();
    let policy = std::fs::read_to_string(repo.path().join(".gate/policy.yaml")).unwrap();
    repo.write(
        ".gate/policy.yaml",
        policy.replace("scope: required", "scope: advisory"),
    );
    let doc = doctor(&repo);
    assert_eq!(faults(&doc).len(), 1, "{doc:#?}");
    assert_eq!(faults(&doc)[0].0, "policy");
    assert!(
        faults(&doc)[0]
            .2
            .contains("git checkout HEAD -- .gate/policy.yaml")
    );
    repo.git(&["checkout", "HEAD", "--", ".gate/policy.yaml"]);
    assert_healthy(&repo);
    repo.write(".gate/policy.yaml", "version: [\n");
    let doc = doctor(&repo);
    assert_eq!(faults(&doc)[0].0, "policy", "{doc:#?}");
}

#[test]
fn a_broken_plan_and_a_broken_task_file_are_faults() {
    let repo = healthy_repo();
    let plan = std::fs::read_to_string(repo.path().join(".gate/plan.yaml")).unwrap();
    repo.write(
        ".gate/plan.yaml",
        plan.replace("intent: I-export", "intent: I-nowhere"),
    );
    repo.write(".gate/tasks/T-9.md", "---\nnot: a task\n---\n");
    let doc = doctor(&repo);
    let found: Vec<(String, String)> = faults(&doc).into_iter().map(|(c, s, _)| (c, s)).collect();
    assert_eq!(
        found,
        [
            ("plan".into(), String::new()),
            ("task".into(), "T-9".into())
        ],
        "{doc:#?}"
    );
    let out = repo.gate().arg("doctor").output().unwrap();
    assert_golden("doctor/broken-files.txt", &transcript(Some(&repo), &out));
}

#[test]
fn an_active_pointer_to_no_task_is_a_fault_task_switch_repairs() {
    let repo = healthy_repo();
    std::fs::write(repo.path().join(".git/gate/active"), "T-77\n").unwrap();
    let doc = doctor(&repo);
    assert_eq!(faults(&doc).len(), 1, "{doc:#?}");
    assert_eq!(faults(&doc)[0].0, "active_task");
    gate(&repo, &["task", "switch", "T-42"]);
    assert_healthy(&repo);
}

#[test]
fn an_fsmonitor_setting_gate_cannot_use_is_a_fault() {
    let repo = healthy_repo();
    repo.git(&["config", "gate.fsmonitor", "sometimes"]);
    let doc = doctor(&repo);
    assert_eq!(faults(&doc).len(), 1, "{doc:#?}");
    assert_eq!(faults(&doc)[0].0, "fsmonitor");
    repo.git(&["config", "--unset", "gate.fsmonitor"]);
    assert_healthy(&repo);
}

#[test]
fn husky_s_hooks_path_is_noticed_and_a_missing_line_is_a_fault() {
    let repo = healthy_repo();
    // husky's layout (core.hooksPath .husky/_ and its `h`), as husky 9 writes it.
    repo.write(".husky/_/h", "#!/usr/bin/env sh\n");
    repo.git(&["config", "core.hooksPath", ".husky/_"]);
    let doc = doctor(&repo);
    assert_eq!(doc.manager.as_deref(), Some("husky"));
    assert!(doc.checks[0].detail.contains("husky's"), "{doc:#?}");
    assert_eq!(faults(&doc).len(), 4, "{doc:#?}");
    assert!(
        faults(&doc)
            .iter()
            .all(|(_, _, r)| r == "gate install (adds the line)")
    );
}

#[test]
fn a_hook_that_cannot_be_read_is_unknown() {
    let repo = healthy_repo();
    std::fs::remove_file(hook(&repo, "pre-push")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(hook(&repo, "pre-push"))
        .status()
        .unwrap();
    assert!(made.success());
    let doc = doctor(&repo);
    assert_eq!(
        (doc.exit_code, doc.outcome.as_str()),
        (3, "unknown"),
        "{doc:#?}"
    );
    let unknown: Vec<&Item> = doc
        .checks
        .iter()
        .filter(|i| i.status == "unknown")
        .collect();
    assert_eq!(unknown.len(), 1, "{doc:#?}");
    assert!(unknown[0].remedy.is_some());
}

#[test]
fn gate_s_script_in_husky_s_place_is_a_fault_gate_install_repairs() {
    let repo = healthy_repo();
    // husky's layout, with gate's script where an older install put it.
    repo.write(".husky/_/h", "#!/usr/bin/env sh\n");
    repo.write(
        ".husky/_/pre-commit",
        "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"",
    );
    repo.git(&["config", "core.hooksPath", ".husky/_"]);
    gate(&repo, &["install"]);
    std::fs::copy(
        hook(&repo, "pre-commit"),
        repo.path().join(".husky/_/pre-commit"),
    )
    .unwrap();
    let with_gate = |repo: &TestRepo| {
        let bin = assert_cmd::cargo::cargo_bin!("gate");
        let mut dirs = vec![bin.parent().unwrap().to_path_buf()];
        dirs.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        let out = repo
            .gate()
            .args(["doctor", "--json"])
            .env("PATH", std::env::join_paths(dirs).unwrap())
            .output()
            .unwrap();
        serde_json::from_slice::<Doctor>(&out.stdout).unwrap()
    };
    let doc = with_gate(&repo);
    assert_eq!(
        faults(&doc),
        [(
            "hook".into(),
            "pre-commit".into(),
            "gate install (restores husky's stub and adds gate's line)".into()
        )],
        "{doc:#?}"
    );
    gate(&repo, &["install"]);
    let doc = with_gate(&repo);
    assert_eq!(doc.exit_code, 0, "{doc:#?}");
}

/// `origin`, a bare repository `repo` pushed `main` to (by URL, as `git
/// remote add` and a first push leave it: no `origin/HEAD`).
fn with_origin(repo: &TestRepo) -> TestRepo {
    let origin = TestRepo::bare();
    repo.git(&["remote", "add", "origin", origin.path().to_str().unwrap()]);
    repo.git(&["push", "-q", "-u", "origin", "main"]);
    origin
}

/// The one item of `check` (and `subject`) a doctor found.
fn item<'d>(doc: &'d Doctor, check: &str, subject: &str) -> &'d Item {
    doc.checks
        .iter()
        .find(|i| i.check == check && i.subject == subject)
        .unwrap_or_else(|| panic!("no {check} {subject}: {doc:#?}"))
}

/// Run a remedy's command as printed (`a && b`, up to the first comma),
/// each a git command, in `repo`.
fn run_git_remedy(repo: &TestRepo, remedy: &str) {
    let command = remedy.split(", ").next().unwrap();
    for step in command.split(" && ") {
        let words: Vec<&str> = step.split_whitespace().collect();
        assert_eq!(words.first(), Some(&"git"), "{remedy}");
        repo.git(&words[1..]);
    }
}

#[test]
fn a_remote_without_its_head_is_a_warning_set_head_repairs() {
    // healthy_repo's, with `origin` added before the hooks.
    let repo = plan_repo("required");
    let _origin = with_origin(&repo);
    start_42(&repo);
    repo.git(&["add", ".gate/tasks"]);
    repo.git(&["commit", "-q", "-m", "start T-42\n\nTask: T-42"]);
    gate(&repo, &["install"]);
    let doc = doctor(&repo);
    assert_eq!((doc.exit_code, doc.outcome.as_str()), (0, "healthy"));
    let head = item(&doc, "remote_head", "origin");
    assert_eq!(head.status, "warn", "{head:#?}");
    assert!(
        head.detail.contains("refs/remotes/origin/HEAD is not set"),
        "{head:#?}"
    );
    let remedy = head.remedy.clone().unwrap();
    assert_eq!(remedy, "git fetch origin && git remote set-head origin -a");
    let out = repo.gate().arg("doctor").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("warn    remote_head origin")
            && text.contains("remedy: git fetch origin && git remote set-head origin -a")
            && text.contains("result: healthy, 1 warning (exit 0)"),
        "{}",
        show(&out)
    );
    // The remedy, as printed, records it.
    run_git_remedy(&repo, &remedy);
    let doc = doctor(&repo);
    let head = item(&doc, "remote_head", "origin");
    assert_eq!(head.status, "ok", "{head:#?}");
    assert!(
        head.detail.starts_with("origin/HEAD is origin/main ("),
        "{head:#?}"
    );
    assert!(doc.checks.iter().all(|i| i.status == "ok"), "{doc:#?}");
}

#[test]
fn an_upstream_that_does_not_resolve_is_a_fault_the_fetch_repairs() {
    for upstream in ["refs/heads/trunk", "refs/remotes/origin/trunk"] {
        let repo = TestRepo::new();
        repo.write(
            ".gate/policy.yaml",
            format!("version: 1\nprovenance:\n  mode: advisory\n  upstream: {upstream}\n"),
        );
        repo.commit_all("initial");
        let origin = with_origin(&repo);
        // The remote's trunk, which this clone has neither fetched nor made.
        repo.git(&["push", "-q", "origin", "main:trunk"]);
        repo.git(&["update-ref", "-d", "refs/remotes/origin/trunk"]);
        let doc = doctor(&repo);
        assert_eq!(doc.exit_code, 1, "{doc:#?}");
        let up = item(&doc, "upstream", "");
        assert_eq!(up.status, "fault", "{up:#?}");
        assert!(
            up.detail.contains(&format!(
                "provenance.upstream {upstream} does not resolve here"
            )) && up.detail.contains("upstream_unavailable"),
            "{up:#?}"
        );
        let remedy = up.remedy.clone().unwrap();
        // A branch is read from the remote's copy, which a fetch brings.
        let fetch = "git fetch origin";
        assert_eq!(
            remedy,
            format!("{fetch}, or correct provenance.upstream in .gate/policy.yaml")
        );
        run_git_remedy(&repo, &remedy);
        let doc = doctor(&repo);
        let up = item(&doc, "upstream", "");
        assert_eq!(up.status, "ok", "{up:#?}");
        let tip = origin.git(&["rev-parse", "trunk"]);
        assert_eq!(
            up.detail,
            format!(
                "provenance.upstream {upstream} resolves to refs/remotes/origin/trunk ({})",
                &tip.trim()[..12]
            )
        );
    }
}

#[test]
fn without_remotes_or_an_upstream_neither_is_listed() {
    let doc = doctor(&healthy_repo());
    assert!(
        doc.checks
            .iter()
            .all(|i| i.check != "remote_head" && i.check != "upstream"),
        "{doc:#?}"
    );
}

/// The doctor item of `check` and `subject`.
fn item_of<'d>(doc: &'d Doctor, check: &str, subject: &str) -> &'d Item {
    doc.checks
        .iter()
        .find(|i| i.check == check && i.subject == subject)
        .unwrap_or_else(|| panic!("no {check} {subject} in {doc:#?}"))
}

#[test]
fn each_agent_hosts_wiring_is_checked_and_its_remedy_repairs_it() {
    let repo = healthy_repo();
    let bin = assert_cmd::cargo::cargo_bin!("gate");
    let bin = bin.to_str().unwrap();
    // Not installed: not gate's business, nothing said.
    let doc = doctor(&repo);
    assert!(!doc.checks.iter().any(|i| i.check == "agent"), "{doc:#?}");
    for host in ["claude-code", "cursor", "gemini-cli", "codex", "copilot"] {
        gate(&repo, &["install", "--agent", host, "--binary", bin]);
        let doc = doctor(&repo);
        let it = item_of(&doc, "agent", host);
        assert_eq!(it.status, "ok", "{it:#?}");
        assert!(it.detail.contains("this gate"), "{it:#?}");
    }
    assert_eq!(doctor(&repo).exit_code, 0);
    // Cursor's file, with gate's stop entry gone: incomplete, and the
    // remedy is the install that adds it back.
    let file = repo.path().join(".cursor/hooks.json");
    let mut cursor: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    cursor["hooks"].as_object_mut().unwrap().remove("stop");
    std::fs::write(&file, cursor.to_string()).unwrap();
    let doc = doctor(&repo);
    assert_eq!(
        faults(&doc),
        [(
            "agent".to_string(),
            "cursor".to_string(),
            "`gate install --agent cursor` (it adds what is missing, and keeps the rest)"
                .to_string()
        )]
    );
    gate(&repo, &["install", "--agent", "cursor", "--binary", bin]);
    assert_eq!(item_of(&doctor(&repo), "agent", "cursor").status, "ok");
    // An older gate's matcher: a warning naming both.
    let settings = repo.path().join(".claude/settings.json");
    let text = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(&settings, text.replace("|Bash|PowerShell\"", "|Bash\"")).unwrap();
    let it = item_of(&doctor(&repo), "agent", "claude-code").clone_status();
    assert_eq!(it.0, "warn", "{it:?}");
    assert!(it.1.contains("PowerShell"), "{it:?}");
    // A binary that is not there: the host would let every call through.
    gate(&repo, &["uninstall", "--agent", "gemini-cli"]);
    gate(
        &repo,
        &[
            "install",
            "--agent",
            "gemini-cli",
            "--binary",
            "/nowhere/gate",
        ],
    );
    let doc = doctor(&repo);
    let it = item_of(&doc, "agent", "gemini-cli");
    assert_eq!(it.status, "fault", "{it:#?}");
    assert!(it.detail.contains("/nowhere/gate"), "{it:#?}");
    assert_eq!(doc.exit_code, 1);
    // .mcp.json: a server running gate is checked the same way.
    repo.write(
        ".mcp.json",
        serde_json::json!({"mcpServers": {"gate": {"command": bin, "args": ["mcp"]}}}).to_string(),
    );
    assert_eq!(item_of(&doctor(&repo), "mcp", ".mcp.json").status, "ok");
    repo.write(
        ".mcp.json",
        r#"{"mcpServers": {"gate": {"command": "/nowhere/gate", "args": ["mcp"]}}}"#,
    );
    assert_eq!(item_of(&doctor(&repo), "mcp", ".mcp.json").status, "fault");
}

impl Item {
    fn clone_status(&self) -> (String, String) {
        (self.status.clone(), self.detail.clone())
    }
}
