//! Every agent host gate has hooks for (docs/agents.md, "Agent hosts"):
//! `gate install --agent NAME` writes the host's configuration in the shape
//! its documentation gives, `gate hook NAME pre-tool-use|stop` reads the
//! host's own stdin (the documented examples' fields) and answers in the
//! shape the host honours, and one decision stands behind all of them: the
//! same write is denied, the same `--no-verify` refused, the same stop kept
//! working, whatever the host.

use std::path::Path;

use serde_json::{Value, json};

use crate::fixture::{plan_repo, show, start_42};
use crate::support::TestRepo;

/// A host: its name, and how it writes a call and a stop, and answers.
struct Host {
    name: &'static str,
    config: &'static str,
    /// A write of `path` by the host's own file tool, from `root`.
    write: fn(&Path, &str) -> Value,
    /// A shell command from `root`.
    shell: fn(&Path, &str) -> Value,
    /// A stop in `root`; `again` when a stop was blocked before.
    stop: fn(&Path, bool) -> Value,
    denied: fn(&Value) -> bool,
    /// The reason a stop is kept working with.
    kept: fn(&Value) -> Option<String>,
}

const HOSTS: [Host; 5] = [
    Host {
        name: "claude-code",
        config: ".claude/settings.json",
        write: |root, path| {
            json!({"hook_event_name": "PreToolUse", "cwd": root, "tool_name": "Write",
                   "tool_input": {"file_path": path, "content": "x\n"}})
        },
        shell: |root, command| {
            json!({"hook_event_name": "PreToolUse", "cwd": root, "tool_name": "Bash",
                   "tool_input": {"command": command}})
        },
        stop: |root, again| json!({"hook_event_name": "Stop", "cwd": root, "stop_hook_active": again}),
        denied: |d| d["hookSpecificOutput"]["permissionDecision"] == "deny",
        kept: |d| block_reason(d),
    },
    Host {
        name: "cursor",
        config: ".cursor/hooks.json",
        // Cursor's common fields; the workspace root instead of a cwd.
        write: |root, path| {
            json!({"conversation_id": "c", "generation_id": "g", "hook_event_name": "preToolUse",
                   "workspace_roots": [root], "tool_name": "Write", "tool_use_id": "t",
                   "tool_input": {"file_path": path, "content": "x\n"}})
        },
        shell: |root, command| {
            json!({"hook_event_name": "preToolUse", "cwd": root, "workspace_roots": [root],
                   "tool_name": "Shell", "tool_input": {"command": command, "working_directory": root}})
        },
        stop: |root, again| {
            json!({"hook_event_name": "stop", "workspace_roots": [root], "status": "completed",
                   "loop_count": if again { 1 } else { 0 }})
        },
        denied: |d| d["permission"] == "deny",
        kept: |d| d["followup_message"].as_str().map(str::to_string),
    },
    Host {
        name: "gemini-cli",
        config: ".gemini/settings.json",
        write: |root, path| {
            json!({"session_id": "s", "cwd": root, "hook_event_name": "BeforeTool",
                   "timestamp": "2026-12-02T10:00:00.000Z", "tool_name": "write_file",
                   "tool_input": {"file_path": path, "content": "x\n"}})
        },
        shell: |root, command| {
            json!({"session_id": "s", "cwd": root, "hook_event_name": "BeforeTool",
                   "tool_name": "run_shell_command", "tool_input": {"command": command}})
        },
        stop: |root, again| {
            json!({"session_id": "s", "cwd": root, "hook_event_name": "AfterAgent",
                   "prompt": "p", "prompt_response": "r", "stop_hook_active": again})
        },
        denied: |d| d["decision"] == "deny",
        kept: |d| block_reason(d),
    },
    Host {
        name: "codex",
        config: ".codex/hooks.json",
        // Every edit is an apply_patch, its patch in tool_input.command.
        write: |root, path| {
            json!({"session_id": "s", "turn_id": "1", "cwd": root, "hook_event_name": "PreToolUse",
                   "model": "gpt-5", "permission_mode": "default", "tool_name": "apply_patch",
                   "tool_use_id": "call_1",
                   "tool_input": {"command": format!("*** Begin Patch\n*** Add File: {path}\n+x\n*** End Patch\n")}})
        },
        shell: |root, command| {
            json!({"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse",
                   "tool_name": "Bash", "tool_input": {"command": command}})
        },
        stop: |root, again| {
            json!({"session_id": "s", "cwd": root, "hook_event_name": "Stop",
                   "stop_hook_active": again, "last_assistant_message": null})
        },
        denied: |d| d["hookSpecificOutput"]["permissionDecision"] == "deny",
        kept: |d| block_reason(d),
    },
    Host {
        name: "copilot",
        config: ".github/hooks/gate.json",
        // camelCase, the arguments encoded as a JSON string.
        write: |root, path| {
            json!({"sessionId": "s", "timestamp": 1_704_614_600_000_u64, "cwd": root,
                   "toolName": "create",
                   "toolArgs": json!({"path": path, "file_text": "x\n"}).to_string()})
        },
        shell: |root, command| {
            json!({"timestamp": 1_704_614_600_000_u64, "cwd": root, "toolName": "bash",
                   "toolArgs": {"command": command, "description": "d"}})
        },
        stop: |root, again| {
            json!({"sessionId": "s", "timestamp": 1, "cwd": root, "transcriptPath": "/t",
                   "stopReason": "end_turn", "stop_hook_active": again})
        },
        denied: |d| d["permissionDecision"] == "deny",
        kept: |d| block_reason(d),
    },
];

fn block_reason(d: &Value) -> Option<String> {
    (d["decision"] == "block")
        .then(|| d["reason"].as_str().map(str::to_string))
        .flatten()
}

fn hook(repo: &TestRepo, host: &Host, event: &str, input: &Value) -> std::process::Output {
    repo.gate()
        .args(["hook", host.name, event])
        .write_stdin(input.to_string())
        .output()
        .unwrap()
}

/// The answer printed: `None` for none (exit 0, nothing printed).
fn answer(host: &Host, out: &std::process::Output) -> Option<Value> {
    assert_eq!(out.status.code(), Some(0), "{}: {}", host.name, show(out));
    if out.stdout.is_empty() {
        return None;
    }
    Some(serde_json::from_slice(&out.stdout).expect("one JSON document"))
}

/// The fixture with receipts `advisory` and T-42 active (scope
/// `src/export/**`, `docs/export.md`; its check `export-tests` unproved).
fn working() -> TestRepo {
    let repo = plan_repo("advisory");
    repo.write(
        ".gate/policy.yaml",
        crate::fixture::policy("advisory")
            .replace("receipts:\n  mode: off", "receipts:\n  mode: advisory"),
    );
    repo.commit_all("receipts advisory");
    start_42(&repo);
    repo
}

#[test]
fn every_host_gets_the_same_decisions_in_its_own_shape() {
    let repo = working();
    let root = repo.path();
    for host in &HOSTS {
        let at = |rel: &str| root.join(rel).to_str().unwrap().to_string();
        // Inside the task's scope: no objection.
        let out = hook(
            &repo,
            host,
            "pre-tool-use",
            &(host.write)(root, &at("src/export/csv.rs")),
        );
        assert_eq!(answer(host, &out), None, "{}", host.name);
        // Outside it: denied, naming the path, before the edit.
        let out = hook(
            &repo,
            host,
            "pre-tool-use",
            &(host.write)(root, "README.md"),
        );
        let d = answer(host, &out).unwrap_or_else(|| panic!("{}: no answer", host.name));
        assert!((host.denied)(&d), "{}: {d:#}", host.name);
        assert!(d.to_string().contains("README.md"), "{}: {d:#}", host.name);
        // A commit skipping gate's hooks: denied; one with them: no objection.
        let out = hook(
            &repo,
            host,
            "pre-tool-use",
            &(host.shell)(root, "git commit --no-verify -m x"),
        );
        let d = answer(host, &out).unwrap_or_else(|| panic!("{}: no answer", host.name));
        assert!((host.denied)(&d), "{}: {d:#}", host.name);
        let out = hook(
            &repo,
            host,
            "pre-tool-use",
            &(host.shell)(root, "git commit -m x"),
        );
        assert_eq!(answer(host, &out), None, "{}", host.name);
        // A stop with the task's check unproved: kept working, naming the
        // command that moves it — once.
        let out = hook(&repo, host, "stop", &(host.stop)(root, false));
        let d = answer(host, &out).unwrap_or_else(|| panic!("{}: no answer", host.name));
        let reason = (host.kept)(&d).unwrap_or_else(|| panic!("{}: {d:#}", host.name));
        assert!(
            reason.contains("gate verify export-tests"),
            "{}: {reason}",
            host.name
        );
        let out = hook(&repo, host, "stop", &(host.stop)(root, true));
        let again = answer(host, &out);
        assert!(
            again.as_ref().is_none_or(|d| (host.kept)(d).is_none()),
            "{}: blocked twice: {again:?}",
            host.name
        );
        // What gate cannot read is refused: exit 2, the reason on stderr.
        let out = repo
            .gate()
            .args(["hook", host.name, "pre-tool-use"])
            .write_stdin("not json")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}: {}", host.name, show(&out));
        assert!(out.stdout.is_empty());
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(host.config),
            "{}: {}",
            host.name,
            show(&out)
        );
    }
}

#[test]
fn a_patch_is_judged_for_every_path_it_writes() {
    let repo = working();
    let root = repo.path();
    let codex = &HOSTS[3];
    let patch = |body: &str| {
        json!({"cwd": root, "hook_event_name": "PreToolUse", "tool_name": "apply_patch",
               "tool_input": {"command": format!("*** Begin Patch\n{body}*** End Patch\n")}})
    };
    // Both sides of a move: the new name outside the scope is denied.
    let out = hook(
        &repo,
        codex,
        "pre-tool-use",
        &patch("*** Update File: src/export/csv.rs\n*** Move to: README.md\n@@\n-a\n+b\n"),
    );
    let d = answer(codex, &out).expect("denied");
    assert!((codex.denied)(&d), "{d:#}");
    assert!(d.to_string().contains("README.md"), "{d:#}");
    // Every path inside: no objection.
    let out = hook(
        &repo,
        codex,
        "pre-tool-use",
        &patch("*** Add File: src/export/a.rs\n+a\n*** Delete File: docs/export.md\n"),
    );
    assert_eq!(answer(codex, &out), None);
    // A patch gate cannot read is refused.
    let out = hook(
        &repo,
        codex,
        "pre-tool-use",
        &json!({"cwd": root, "tool_name": "apply_patch", "tool_input": {"command": "oops"}}),
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}

#[test]
fn install_writes_each_hosts_configuration_and_uninstall_takes_only_gates_out() {
    for host in &HOSTS {
        let repo = working();
        let file = repo.path().join(host.config);
        let install = |verb: &str| {
            let out = repo
                .gate()
                .args([verb, "--agent", host.name])
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{}: {}", host.name, show(&out));
        };
        install("install");
        let written: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let text = written.to_string();
        for verb in ["pre-tool-use", "stop"] {
            assert!(
                text.contains(&format!("gate hook {} {verb}", host.name)),
                "{}: {written:#}",
                host.name
            );
        }
        // The shape the host's documentation gives.
        let hooks = &written["hooks"];
        match host.name {
            "claude-code" | "codex" => {
                assert_eq!(hooks["PreToolUse"][0]["hooks"][0]["type"], "command");
                assert!(hooks["Stop"][0]["hooks"].is_array());
            }
            "gemini-cli" => {
                assert_eq!(hooks["BeforeTool"][0]["hooks"][0]["type"], "command");
                assert!(hooks["AfterAgent"][0]["hooks"].is_array());
            }
            "cursor" => {
                assert_eq!(written["version"], 1);
                assert_eq!(hooks["preToolUse"][0]["failClosed"], true);
                assert!(hooks["stop"][0]["command"].is_string());
            }
            "copilot" => {
                assert_eq!(written["version"], 1);
                assert_eq!(hooks["preToolUse"][0]["type"], "command");
                assert!(hooks["preToolUse"][0]["bash"].is_string());
                assert!(hooks["agentStop"][0]["bash"].is_string());
            }
            other => panic!("{other}"),
        }
        // Idempotent.
        install("install");
        let again: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        assert_eq!(again, written, "{}", host.name);
        // Uninstall: the file held only gate's entries, so it goes.
        install("uninstall");
        assert!(!file.exists(), "{}", host.name);
    }
}

#[test]
fn install_keeps_the_hosts_other_entries() {
    let repo = working();
    let theirs = json!({"version": 1, "hooks": {"preToolUse": [{"command": "./audit.sh", "matcher": "Shell"}],
                        "afterFileEdit": [{"command": "./format.sh"}]}});
    repo.write(".cursor/hooks.json", format!("{theirs:#}\n"));
    for verb in ["install", "uninstall"] {
        let out = repo
            .gate()
            .args([verb, "--agent", "cursor"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    }
    let back: Value =
        serde_json::from_slice(&std::fs::read(repo.path().join(".cursor/hooks.json")).unwrap())
            .unwrap();
    assert_eq!(back, theirs);
    // Not JSON: refused, the file left as it was.
    repo.write(".gemini/settings.json", "{ theirs");
    let out = repo
        .gate()
        .args(["install", "--agent", "gemini-cli"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(
        std::fs::read_to_string(repo.path().join(".gemini/settings.json")).unwrap(),
        "{ theirs"
    );
}
