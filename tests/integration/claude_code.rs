//! `gate hook claude-code pre-tool-use|stop` and `gate install --agent
//! claude-code` (docs/agents.md), fed the hook documents Claude Code writes
//! on stdin (recorded in tests/golden/claude_code/stdin/, with `{ROOT}` for
//! the repository).

use std::path::Path;

use serde_json::Value;

use crate::fixture::{plan_repo, show, start_42};
use crate::golden::{assert_golden, transcript};
use crate::support::TestRepo;

/// A recorded hook input, its `{ROOT}` made `root`.
fn stdin(name: &str, root: &Path) -> Vec<u8> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/claude_code/stdin")
        .join(format!("{name}.json"));
    std::fs::read_to_string(file)
        .unwrap()
        .replace("{ROOT}", root.to_str().unwrap())
        .into_bytes()
}

fn hook(repo: &TestRepo, event: &str, input: Vec<u8>) -> std::process::Output {
    repo.gate()
        .args(["hook", "claude-code", event])
        .write_stdin(input)
        .output()
        .unwrap()
}

/// The decision Claude Code reads: `None` for "no objection" (exit 0,
/// nothing printed).
fn decision(out: &std::process::Output) -> Option<Value> {
    assert_eq!(out.status.code(), Some(0), "{}", show(out));
    if out.stdout.is_empty() {
        return None;
    }
    Some(serde_json::from_slice(&out.stdout).expect("one JSON document"))
}

fn denied(out: &std::process::Output) -> bool {
    decision(out).is_some_and(|d| d["hookSpecificOutput"]["permissionDecision"] == "deny")
}

/// T-42 active: its scope is `src/export/**` and `docs/export.md`.
fn working() -> TestRepo {
    let repo = plan_repo("advisory");
    start_42(&repo);
    repo
}

#[test]
fn writes_outside_the_recorded_scope_are_denied_before_the_edit() {
    let repo = working();
    let root = repo.path();
    // In scope (absolute, as Claude Code gives it): no objection.
    assert_eq!(
        decision(&hook(&repo, "pre-tool-use", stdin("edit", root))),
        None
    );
    for tool in ["write", "multiedit", "notebookedit"] {
        let out = hook(&repo, "pre-tool-use", stdin(tool, root));
        assert!(denied(&out), "{tool}: {}", show(&out));
        assert_golden(
            &format!("claude_code/{tool}-denied.txt"),
            &transcript(Some(&repo), &out),
        );
    }
    // A tool that writes nothing is not looked at.
    assert_eq!(
        decision(&hook(&repo, "pre-tool-use", stdin("read", root))),
        None
    );
}

#[test]
fn the_scope_judged_is_the_recorded_one() {
    let repo = working();
    // Widening the scope by editing the task file widens nothing
    // (docs/trust.md): the write is still denied.
    let task = repo.path().join(".gate/tasks/T-42.md");
    let text = std::fs::read_to_string(&task).unwrap();
    std::fs::write(&task, text.replace("scope: [", "scope: [\"src/**\", ")).unwrap();
    assert!(denied(&hook(
        &repo,
        "pre-tool-use",
        stdin("write", repo.path())
    )));
    // `gate task scope add` is the way through, and it works.
    let out = repo
        .gate()
        .args([
            "task",
            "scope",
            "add",
            ":/src/lib.rs",
            "--because",
            "the export needs it",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    std::fs::write(
        &task,
        std::fs::read_to_string(&task)
            .unwrap()
            .replace("\"src/**\", ", ""),
    )
    .unwrap();
    let out = hook(&repo, "pre-tool-use", stdin("write", repo.path()));
    assert_eq!(decision(&out), None, "{}", show(&out));
}

#[test]
fn the_git_directory_is_never_written_and_outside_the_repository_is_only_reported() {
    let repo = working();
    let root = repo.path().to_str().unwrap().to_string();
    let call = |path: &str| {
        format!(
            r#"{{"hook_event_name":"PreToolUse","cwd":"{root}","tool_name":"Write","tool_input":{{"file_path":"{path}","content":""}}}}"#
        )
        .into_bytes()
    };
    let out = hook(&repo, "pre-tool-use", call(".git/hooks/pre-commit"));
    assert!(denied(&out), "{}", show(&out));
    assert_golden(
        "claude_code/git-dir-denied.txt",
        &transcript(Some(&repo), &out),
    );
    assert!(denied(&hook(
        &repo,
        "pre-tool-use",
        call("src/../.git/config")
    )));
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = elsewhere.path().join("notes.md");
    // Outside the repository: no scope judges it; the policy's default
    // (`agents.external_edits: report`) lets it through and says so.
    let out = hook(&repo, "pre-tool-use", call(outside.to_str().unwrap()));
    assert!(reported(&out), "{}", show(&out));
    let out = hook(&repo, "pre-tool-use", call("../outside.md"));
    assert!(reported(&out), "{}", show(&out));
}

/// Let through, with a message to the user that the write lands outside
/// the repository.
fn reported(out: &std::process::Output) -> bool {
    decision(out).is_some_and(|d| {
        d.get("hookSpecificOutput").is_none()
            && d["systemMessage"]
                .as_str()
                .is_some_and(|m| m.contains("lands outside the repository"))
    })
}

#[test]
fn no_verify_in_a_bash_call_is_denied() {
    let repo = working();
    let out = hook(&repo, "pre-tool-use", stdin("bash-no-verify", repo.path()));
    assert!(denied(&out), "{}", show(&out));
    assert_golden(
        "claude_code/bash-no-verify.txt",
        &transcript(Some(&repo), &out),
    );
    // A commit with its hooks, and `push -n` (a dry run), pass.
    let out = hook(&repo, "pre-tool-use", stdin("bash-commit", repo.path()));
    assert_eq!(decision(&out), None, "{}", show(&out));
}

#[test]
fn no_active_task_denies_writes_with_gate_start() {
    let repo = plan_repo("advisory");
    let out = hook(&repo, "pre-tool-use", stdin("edit", repo.path()));
    assert!(denied(&out), "{}", show(&out));
    assert_golden("claude_code/no-task.txt", &transcript(Some(&repo), &out));
    // Bash and other tools are not about a task's scope.
    assert_eq!(
        decision(&hook(
            &repo,
            "pre-tool-use",
            stdin("bash-commit", repo.path())
        )),
        None
    );
    // Nothing to verify: the stop passes.
    assert_eq!(
        decision(&hook(&repo, "stop", stdin("stop", repo.path()))),
        None
    );
}

#[test]
fn scope_off_in_the_trusted_policy_lets_every_write_through() {
    let repo = working();
    repo.write(
        ".gate/policy.yaml",
        crate::fixture::policy("advisory").replace("scope: advisory", "scope: off"),
    );
    repo.commit_all("scope off");
    let out = hook(&repo, "pre-tool-use", stdin("write", repo.path()));
    assert_eq!(decision(&out), None, "{}", show(&out));
}

#[test]
fn a_repository_gate_does_not_govern_is_silent() {
    let repo = TestRepo::new();
    repo.write("README.md", "x\n");
    repo.commit_all("initial");
    for name in ["write", "bash-no-verify", "notebookedit"] {
        let out = hook(&repo, "pre-tool-use", stdin(name, repo.path()));
        assert_eq!(decision(&out), None, "{name}: {}", show(&out));
    }
    assert_eq!(
        decision(&hook(&repo, "stop", stdin("stop", repo.path()))),
        None
    );
    // Outside any repository, too.
    let dir = tempfile::tempdir().unwrap();
    let out = hook(&repo, "pre-tool-use", stdin("write", dir.path()));
    assert_eq!(decision(&out), None, "{}", show(&out));
}

#[test]
fn malformed_input_fails_closed_with_exit_2() {
    let repo = working();
    for (name, input) in [
        ("not-json", b"tool_name: Write\n".to_vec()),
        (
            "no-path",
            br#"{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"content":"x"}}"#
                .to_vec(),
        ),
    ] {
        let out = hook(&repo, "pre-tool-use", input);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", show(&out));
        assert!(out.stdout.is_empty());
        assert_golden(
            &format!("claude_code/malformed-{name}.txt"),
            &transcript(Some(&repo), &out),
        );
    }
    let out = hook(&repo, "stop", br#"{"stop_hook_active":"yes"}"#.to_vec());
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}

#[test]
fn stop_is_blocked_until_the_checks_pass_once_per_stop() {
    // Under `receipts: off` nothing is asked of the checks.
    let repo = working();
    assert_eq!(
        decision(&hook(&repo, "stop", stdin("stop", repo.path()))),
        None
    );
    let repo = plan_repo("advisory");
    repo.write(
        ".gate/policy.yaml",
        crate::fixture::policy("advisory")
            .replace("receipts:\n  mode: off", "receipts:\n  mode: advisory"),
    );
    repo.commit_all("receipts advisory");
    start_42(&repo);
    let out = hook(&repo, "stop", stdin("stop", repo.path()));
    let d = decision(&out).expect("blocked");
    assert_eq!(d["decision"], "block", "{}", show(&out));
    assert_golden(
        "claude_code/stop-blocked.txt",
        &transcript(Some(&repo), &out),
    );
    // Already continuing because of a Stop hook: stop, and tell the user.
    let out = hook(&repo, "stop", stdin("stop-active", repo.path()));
    let d = decision(&out).expect("a message");
    assert!(d.get("decision").is_none(), "{}", show(&out));
    assert!(
        d["systemMessage"]
            .as_str()
            .unwrap()
            .contains("gate verify export-tests")
    );
    // The named command moves it: after it, the stop passes.
    let out = repo
        .gate()
        .args(["verify", "export-tests"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = hook(&repo, "stop", stdin("stop", repo.path()));
    assert_eq!(decision(&out), None, "{}", show(&out));
}

const THEIR_SETTINGS: &str = r#"{
  "permissions": {"allow": ["Bash(cargo test:*)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit-bash"}]}
    ],
    "PostToolUse": [
      {"matcher": "Edit", "hooks": [{"type": "command", "command": "cargo fmt"}]}
    ]
  },
  "model": "opus"
}
"#;

/// `gate VERB --agent claude-code`, which must succeed.
fn agent(repo: &TestRepo, verb: &str) {
    let out = repo
        .gate()
        .args([verb, "--agent", "claude-code"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{verb}: {}", show(&out));
}

#[test]
fn install_merges_into_settings_idempotently_and_uninstall_removes_only_gate_s() {
    let repo = TestRepo::new();
    repo.write(".claude/settings.json", THEIR_SETTINGS);
    let settings = repo.path().join(".claude/settings.json");
    agent(&repo, "install");
    let installed = std::fs::read_to_string(&settings).unwrap();
    assert_golden("claude_code/settings-installed.json", &installed);
    // Again: nothing changes.
    agent(&repo, "install");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), installed);
    // The git hooks are not touched by --agent.
    assert!(!repo.path().join(".git/hooks/pre-commit").exists());
    agent(&repo, "uninstall");
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    let theirs: Value = serde_json::from_str(THEIR_SETTINGS).unwrap();
    assert_eq!(after, theirs);
    assert_golden(
        "claude_code/settings-uninstalled.json",
        &std::fs::read_to_string(&settings).unwrap(),
    );
}

#[test]
fn uninstall_leaves_no_empty_settings_behind() {
    // The file and the directory install made: both gone.
    let repo = TestRepo::new();
    agent(&repo, "install");
    let settings = repo.path().join(".claude/settings.json");
    assert!(settings.is_file());
    let out = repo
        .gate()
        .args(["uninstall", "--agent", "claude-code"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        ".claude/settings.json: removed (gate's hooks were all it held)\n"
    );
    assert!(!repo.path().join(".claude").exists(), "{}", show(&out));
    // Again: nothing to do.
    agent(&repo, "uninstall");
    assert!(!repo.path().join(".claude").exists());

    // Anything else beside gate's hooks stays: another file in .claude/
    // keeps the directory, another setting keeps the file.
    let repo = TestRepo::new();
    repo.write(".claude/agents/reviewer.md", "# reviewer\n");
    agent(&repo, "install");
    agent(&repo, "uninstall");
    assert!(!repo.path().join(".claude/settings.json").exists());
    assert!(repo.path().join(".claude/agents/reviewer.md").is_file());
    let repo = TestRepo::new();
    repo.write(".claude/settings.json", "{\"model\": \"opus\"}\n");
    agent(&repo, "install");
    agent(&repo, "uninstall");
    let after: Value = serde_json::from_str(
        &std::fs::read_to_string(repo.path().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(after, serde_json::json!({"model": "opus"}));
    // A file gate's removal does not change stays as it is, empty or not.
    let repo = TestRepo::new();
    repo.write(".claude/settings.json", "{}\n");
    agent(&repo, "uninstall");
    assert_eq!(
        std::fs::read_to_string(repo.path().join(".claude/settings.json")).unwrap(),
        "{}\n"
    );
}

#[test]
fn install_refuses_settings_it_cannot_read_and_leaves_them() {
    let repo = TestRepo::new();
    repo.write(".claude/settings.json", "{ \"model\": \"opus\", }\n");
    let out = repo
        .gate()
        .args(["install", "--agent", "claude-code"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_golden(
        "claude_code/settings-not-json.txt",
        &transcript(Some(&repo), &out),
    );
    assert_eq!(
        std::fs::read_to_string(repo.path().join(".claude/settings.json")).unwrap(),
        "{ \"model\": \"opus\", }\n"
    );
}

/// A `Write` of `path` as Claude Code sends it from the session directory
/// `cwd`.
fn write_call(cwd: &Path, path: &Path) -> Vec<u8> {
    serde_json::json!({
        "hook_event_name": "PreToolUse",
        "cwd": cwd,
        "tool_name": "Write",
        "tool_input": {"file_path": path, "content": "x\n"},
    })
    .to_string()
    .into_bytes()
}

/// The reason a decision denies with.
fn reason(out: &std::process::Output) -> String {
    decision(out).expect("a decision")["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_write_is_judged_by_the_repository_that_owns_the_path_not_the_session_s() {
    let session = working();
    let other = working();
    // From the session's repository, a path in another repository gate
    // governs is judged by that repository's task: README.md is outside
    // its T-42.
    let out = hook(
        &session,
        "pre-tool-use",
        write_call(session.path(), &other.path().join("README.md")),
    );
    assert!(denied(&out), "{}", show(&out));
    assert!(reason(&out).contains("README.md is outside the scope of task T-42"));
    let out = hook(
        &session,
        "pre-tool-use",
        write_call(session.path(), &other.path().join("src/export/csv.rs")),
    );
    assert_eq!(decision(&out), None, "{}", show(&out));
    // A session outside any repository changes nothing.
    let nowhere = tempfile::tempdir().unwrap();
    let out = hook(
        &session,
        "pre-tool-use",
        write_call(nowhere.path(), &other.path().join("README.md")),
    );
    assert!(denied(&out), "{}", show(&out));
    // Nor one in a repository gate does not govern.
    let plain = TestRepo::new();
    let out = hook(
        &session,
        "pre-tool-use",
        write_call(plain.path(), &other.path().join(".git/hooks/pre-commit")),
    );
    assert!(denied(&out), "{}", show(&out));
    assert!(reason(&out).contains("inside the git directory"));
    // The other repository with no active task: `gate start` decides.
    let idle = plan_repo("advisory");
    let out = hook(
        &session,
        "pre-tool-use",
        write_call(session.path(), &idle.path().join("src/export/csv.rs")),
    );
    assert!(reason(&out).contains("gate start"), "{}", show(&out));
    // A repository gate does not govern has no scope to judge by: from a
    // governed session the write lands outside it, and is reported.
    let out = hook(
        &session,
        "pre-tool-use",
        write_call(session.path(), &plain.path().join("anything.md")),
    );
    assert!(reported(&out), "{}", show(&out));
}

#[test]
fn a_write_through_a_symlink_is_judged_where_it_lands() {
    let session = working();
    let other = working();
    // In scope as written, but the link leads into the other repository,
    // whose task does not cover README.md.
    session.symlink(b"src/export/out", other.path().to_str().unwrap().as_bytes());
    let out = hook(
        &session,
        "pre-tool-use",
        write_call(session.path(), Path::new("src/export/out/README.md")),
    );
    assert!(denied(&out), "{}", show(&out));
    assert!(reason(&out).contains("README.md is outside the scope of task T-42"));
    // A link inside the repository: judged as the file it points to, by
    // the hook and by `gate may-touch` alike.
    session.symlink(b"src/export/readme", b"../../README.md");
    let out = hook(
        &session,
        "pre-tool-use",
        write_call(session.path(), Path::new("src/export/readme")),
    );
    assert!(
        reason(&out).contains("gate: Write README.md:"),
        "{}",
        show(&out)
    );
    let out = session
        .gate()
        .args(["may-touch", "--json", "src/export/readme"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["paths"][0]["path"], "README.md");
    assert_eq!(doc["paths"][0]["verdict"], "refused");
    // A link out of the work tree is not a path of it for `may-touch`.
    let out = session
        .gate()
        .args(["may-touch", "src/export/out/README.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("outside the work tree"),
        "{}",
        show(&out)
    );
    // `..` after a link reads two ways: refused by both doors.
    let out = hook(
        &session,
        "pre-tool-use",
        write_call(session.path(), Path::new("src/export/out/../x.md")),
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let out = session
        .gate()
        .args(["may-touch", "src/export/out/../x.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}

/// A `Bash` call as Claude Code sends it from the session directory `cwd`.
fn bash_call(cwd: &Path, command: &str) -> Vec<u8> {
    serde_json::json!({
        "hook_event_name": "PreToolUse",
        "cwd": cwd,
        "tool_name": "Bash",
        "tool_input": {"command": command},
    })
    .to_string()
    .into_bytes()
}

#[test]
fn the_bash_guard_reads_compound_commands_wrappers_and_config_forms() {
    let repo = working();
    for command in [
        "if cargo test; then timeout 60 git commit -n -m x; fi",
        "for m in a; do eval \"git commit --no-verify -m $m\"; done",
        "git ls-files | xargs git commit -m x",
        "find . -name '*.rs' -exec git commit -m x {} +",
        "git rebase --exec 'git commit --amend --no-edit -n' HEAD~1",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null git commit -m x",
        "git --config-env=core.hooksPath=EMPTY push",
        "git config core.hooksPath /dev/null",
    ] {
        let out = hook(&repo, "pre-tool-use", bash_call(repo.path(), command));
        assert!(denied(&out), "{command}: {}", show(&out));
    }
    let out = hook(
        &repo,
        "pre-tool-use",
        bash_call(repo.path(), "git config --global core.hooksPath ~/.hooks"),
    );
    assert!(reason(&out).contains("core.hooksPath"), "{}", show(&out));
    for command in [
        "echo \"--no-verify\"",
        "git config --get core.hooksPath",
        "timeout 60 cargo test -- -n",
        "git commit -m 'why not --no-verify'",
    ] {
        let out = hook(&repo, "pre-tool-use", bash_call(repo.path(), command));
        assert_eq!(decision(&out), None, "{command}: {}", show(&out));
    }
}

#[test]
fn removing_or_uninstalling_the_hooks_is_denied() {
    let repo = working();
    for command in [
        "rm -f .git/hooks/pre-commit",
        "chmod -x .git/hooks/pre-commit",
        "printf 'exit 0\\n' > .git/hooks/pre-commit",
        "rm -rf .git/hoo*",
        "find .git -name 'pre-*' -delete",
        "git config --unset core.hooksPath",
        "gate uninstall",
        "gate uninstall --agent claude-code",
    ] {
        let out = hook(&repo, "pre-tool-use", bash_call(repo.path(), command));
        assert!(denied(&out), "{command}: {}", show(&out));
    }
    let out = hook(
        &repo,
        "pre-tool-use",
        bash_call(repo.path(), "rm .git/hooks/pre-commit"),
    );
    assert!(reason(&out).contains("removes or changes gate's git hooks"));
    for command in [
        "rm -rf target src/export/old.rs",
        "find . -name '*.orig' -delete",
        "cat .git/hooks/pre-commit",
        "rm -rf ./*",
        "cargo build > build.log",
    ] {
        let out = hook(&repo, "pre-tool-use", bash_call(repo.path(), command));
        assert_eq!(decision(&out), None, "{command}: {}", show(&out));
    }
}

#[test]
fn a_bash_call_is_judged_where_it_cds_and_dash_cs_to() {
    let repo = working();
    let root = repo.path().to_str().unwrap();
    // From a session outside any repository, into one gate governs.
    let nowhere = tempfile::tempdir().unwrap();
    for command in [
        format!("cd {root} && git commit -n -m x"),
        format!("git -C {root} commit --no-verify -m x"),
        format!("(cd /tmp; cd {root}/src) && git commit -n"),
        format!("git -C {root}/src config core.hooksPath /dev/null"),
        format!("cd {root} && rm .git/hooks/pre-commit"),
        // Where it goes cannot be read: refused.
        "cd \"$REPO\" && git commit -n".to_string(),
    ] {
        let out = hook(&repo, "pre-tool-use", bash_call(nowhere.path(), &command));
        assert!(denied(&out), "{command}: {}", show(&out));
    }
    // A relative path after `cd`, from the governed session.
    let out = hook(
        &repo,
        "pre-tool-use",
        bash_call(repo.path(), "cd src && rm ../.git/hooks/pre-push"),
    );
    assert!(denied(&out), "{}", show(&out));
    // A repository gate does not govern, from a session outside any.
    let plain = TestRepo::new();
    let command = format!("git -C {} commit -n -m x", plain.path().display());
    let out = hook(&repo, "pre-tool-use", bash_call(nowhere.path(), &command));
    assert_eq!(decision(&out), None, "{}", show(&out));
}
