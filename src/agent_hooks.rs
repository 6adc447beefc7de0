//! Claude Code's hook contract, as docs/agents.md describes it: the JSON
//! document Claude Code writes on a hook's stdin, the tool calls gate
//! judges, what in a Bash call would get past gate's hooks ([`guard`],
//! over the shell-word scanner [`shell`]), and the JSON answers Claude
//! Code honours.
//!
//! Pure: no file, no repository, no clock. `commands::claude_code` reads
//! stdin, asks the scope and receipts checks, and prints what this builds.

use serde_json::{Value, json};

/// The tools that write a file, and the `tool_input` key naming it.
pub const FILE_TOOLS: [(&str, &str); 4] = [
    ("Edit", "file_path"),
    ("Write", "file_path"),
    ("MultiEdit", "file_path"),
    ("NotebookEdit", "notebook_path"),
];

/// What a `PreToolUse` call asks to do, as far as gate judges it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolCall {
    /// A file-writing tool and the path it writes, as given (absolute, or
    /// relative to the hook's `cwd`).
    Write { tool: String, path: String },
    /// A shell command.
    Bash { command: String },
    /// Any other tool: not gate's business.
    Other { tool: String },
}

/// A `PreToolUse` hook input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreToolUse {
    /// The directory Claude Code ran the tool from, when given.
    pub cwd: Option<String>,
    pub call: ToolCall,
}

/// A `Stop` hook input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stop {
    pub cwd: Option<String>,
    /// True when Claude is already continuing because a Stop hook blocked:
    /// blocking again could loop forever (docs/agents.md).
    pub stop_hook_active: bool,
}

fn object(bytes: &[u8], event: &str) -> Result<serde_json::Map<String, Value>, String> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| format!("the hook input on stdin is not JSON ({e})"))?;
    let Value::Object(map) = value else {
        return Err("the hook input on stdin is not a JSON object".into());
    };
    match map.get("hook_event_name") {
        None => {}
        Some(Value::String(name)) if name == event => {}
        Some(other) => {
            return Err(format!(
                "hook_event_name is {other}, not \"{event}\": this hook is wired to the wrong event"
            ));
        }
    }
    Ok(map)
}

fn cwd(map: &serde_json::Map<String, Value>) -> Result<Option<String>, String> {
    match map.get("cwd") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
        Some(other) => Err(format!("cwd is {other}, not a directory path")),
    }
}

/// Read a `PreToolUse` input. Anything gate cannot read is an error: the
/// hook then refuses the call (it fails closed).
pub fn parse_pre_tool_use(bytes: &[u8]) -> Result<PreToolUse, String> {
    let map = object(bytes, "PreToolUse")?;
    let cwd = cwd(&map)?;
    let tool = match map.get("tool_name") {
        Some(Value::String(t)) if !t.is_empty() => t.clone(),
        Some(other) => return Err(format!("tool_name is {other}, not a tool's name")),
        None => return Err("the hook input has no tool_name".into()),
    };
    let input = map.get("tool_input");
    let field = |key: &str| -> Result<String, String> {
        match input {
            Some(Value::Object(fields)) => match fields.get(key) {
                Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
                Some(other) => Err(format!(
                    "tool_input.{key} of {tool} is {other}, not a string"
                )),
                None => Err(format!("tool_input of {tool} has no {key}")),
            },
            Some(other) => Err(format!("tool_input of {tool} is {other}, not an object")),
            None => Err(format!("the {tool} call has no tool_input")),
        }
    };
    let call = if let Some((_, key)) = FILE_TOOLS.iter().find(|(name, _)| *name == tool) {
        ToolCall::Write {
            path: field(key)?,
            tool,
        }
    } else if tool == "Bash" {
        ToolCall::Bash {
            command: field("command")?,
        }
    } else {
        ToolCall::Other { tool }
    };
    Ok(PreToolUse { cwd, call })
}

/// Read a `Stop` (or `SubagentStop`) input.
pub fn parse_stop(bytes: &[u8]) -> Result<Stop, String> {
    let map = match object(bytes, "Stop") {
        Err(e) if e.contains("\"SubagentStop\"") => object(bytes, "SubagentStop")?,
        other => other?,
    };
    let stop_hook_active = match map.get("stop_hook_active") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(format!("stop_hook_active is {other}, not true or false")),
    };
    Ok(Stop {
        cwd: cwd(&map)?,
        stop_hook_active,
    })
}

/// The `PreToolUse` answer that refuses the call, with the reason Claude
/// is shown.
pub fn deny(reason: &str) -> Value {
    json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    })
}

/// The `Stop` answer that keeps Claude working, with what to do next.
pub fn block_stop(reason: &str) -> Value {
    json!({ "decision": "block", "reason": reason })
}

/// The `PreToolUse` answer that lets the call through (Claude Code's own
/// permission flow goes on) and tells the user `message`.
pub fn report(message: &str) -> Value {
    json!({ "systemMessage": message })
}

/// The `Stop` answer that lets Claude stop but tells the user why gate
/// did not block again.
pub fn warn_stop(message: &str) -> Value {
    json!({ "systemMessage": message })
}

pub mod guard;
pub mod shell;

pub use guard::{Change, Finding, Guard, guard};

/// The events gate hooks into, the matcher of each (`None`: every
/// occasion), and the `gate hook claude-code` verb each runs.
pub const SETTINGS_HOOKS: [(&str, Option<&str>, &str); 2] = [
    (
        "PreToolUse",
        Some("Edit|Write|MultiEdit|NotebookEdit|Bash"),
        "pre-tool-use",
    ),
    ("Stop", None, "stop"),
];

/// Whether a hook command in `.claude/settings.json` is one of gate's: it
/// runs `hook claude-code pre-tool-use` or `hook claude-code stop`.
pub fn is_gate_command(command: &str) -> bool {
    SETTINGS_HOOKS.iter().any(|(_, _, verb)| {
        command
            .trim_end()
            .ends_with(&format!(" hook claude-code {verb}"))
    })
}

/// `settings` (the parsed `.claude/settings.json`, `None` when absent) with
/// gate's hook entries added, running `binary`; everything else kept as it
/// was. An entry of gate's already there is kept, so a second run changes
/// nothing. Refuses a file whose shape is not Claude Code's (a non-object,
/// `hooks` or an event that is not what the contract says) rather than
/// overwrite it.
pub fn with_gate_hooks(settings: Option<Value>, binary: &str) -> Result<Value, String> {
    let mut settings = settings.unwrap_or_else(|| json!({}));
    let Value::Object(root) = &mut settings else {
        return Err("it is not a JSON object".into());
    };
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let Value::Object(hooks) = hooks else {
        return Err("its \"hooks\" is not an object".into());
    };
    for (event, matcher, verb) in SETTINGS_HOOKS {
        let groups = hooks.entry(event).or_insert_with(|| json!([]));
        let Value::Array(groups) = groups else {
            return Err(format!("its \"hooks\".\"{event}\" is not a list"));
        };
        let present = groups.iter().any(|group| {
            commands(group).any(|c| c.trim_end().ends_with(&format!(" hook claude-code {verb}")))
        });
        if present {
            continue;
        }
        let hook =
            json!({ "type": "command", "command": format!("{binary} hook claude-code {verb}") });
        groups.push(match matcher {
            Some(m) => json!({ "matcher": m, "hooks": [hook] }),
            None => json!({ "hooks": [hook] }),
        });
    }
    Ok(settings)
}

/// `settings` without gate's hook entries: a matcher group left with no
/// hook goes, an event left with no group goes, `hooks` left empty goes;
/// everything else is kept.
pub fn without_gate_hooks(mut settings: Value) -> Value {
    let Some(Value::Object(hooks)) = settings.get_mut("hooks") else {
        return settings;
    };
    for (event, _, _) in SETTINGS_HOOKS {
        let Some(Value::Array(groups)) = hooks.get_mut(event) else {
            continue;
        };
        for group in groups.iter_mut() {
            if let Some(Value::Array(list)) = group.get_mut("hooks") {
                let before = list.len();
                list.retain(|h| {
                    !h.get("command")
                        .and_then(Value::as_str)
                        .is_some_and(is_gate_command)
                });
                if before != list.len() && list.is_empty() {
                    *group = Value::Null;
                }
            }
        }
        groups.retain(|g| !g.is_null());
        if groups.is_empty() {
            hooks.remove(event);
        }
    }
    if hooks.is_empty()
        && let Value::Object(root) = &mut settings
    {
        root.remove("hooks");
    }
    settings
}

/// The commands of a matcher group's hooks.
fn commands(group: &Value) -> impl Iterator<Item = &str> {
    group
        .get("hooks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|h| h.get("command").and_then(Value::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn how(command: &str) -> Option<String> {
        guard(command).findings.into_iter().find_map(|f| match f {
            Finding::Bypass { subcommand, how } => Some(format!("{subcommand} {how}")),
            _ => None,
        })
    }

    #[test]
    fn no_verify_is_seen_in_every_form() {
        for (command, expected) in [
            ("git commit --no-verify -m x", "commit --no-verify"),
            ("git commit -n -m x", "commit -n"),
            ("git commit -anm 'msg'", "commit -n (in -anm)"),
            ("git -C sub/dir commit --no-verify", "commit --no-verify"),
            (
                "cargo fmt && git commit --no-veri -am x",
                "commit --no-veri",
            ),
            ("GIT_AUTHOR_NAME=x git commit -n", "commit -n"),
            (
                "env A=1 /usr/bin/git push --no-verify origin",
                "push --no-verify",
            ),
            ("true; git push --no-verify", "push --no-verify"),
            ("(cd sub && git commit -qn)", "commit -n (in -qn)"),
            ("bash -c 'git commit --no-verify'", "commit --no-verify"),
            ("echo \"$(git commit -n)\"", "commit -n"),
            (
                "git -c core.hooksPath=/dev/null commit -m x",
                "commit -c core.hooksPath=/dev/null",
            ),
            ("git -c Core.HooksPath=x push", "push -c Core.HooksPath=x"),
            ("git --git-dir .git --work-tree . commit -n", "commit -n"),
            ("git commit -m x \\\n  --no-verify", "commit --no-verify"),
        ] {
            assert_eq!(how(command).as_deref(), Some(expected), "{command}");
        }
    }

    #[test]
    fn what_skips_no_hook_is_allowed() {
        for command in [
            "git commit -m 'no --no-verify here'",
            "git commit -m -n",
            "git commit -mn",
            "git commit -F msg.txt -s",
            "git commit --author 'A <a@b>' -m x",
            "git push -n origin main",
            "git push --dry-run",
            "git log -n 3",
            "git status && cargo test -- -n",
            "echo git commit --no-verify",
            "grep -rn 'git commit --no-verify' docs",
            "git commit -m x -- -n",
            "git commit --no-verbose -m x",
            "# git commit -n\ngit status",
        ] {
            assert_eq!(how(command), None, "{command}");
        }
    }

    #[test]
    fn tool_calls_are_read_and_anything_else_is_an_error() {
        let edit = br#"{"hook_event_name":"PreToolUse","cwd":"/r","tool_name":"Edit","tool_input":{"file_path":"/r/a.rs","old_string":"a","new_string":"b"}}"#;
        assert_eq!(
            parse_pre_tool_use(edit).unwrap(),
            PreToolUse {
                cwd: Some("/r".into()),
                call: ToolCall::Write {
                    tool: "Edit".into(),
                    path: "/r/a.rs".into()
                }
            }
        );
        let notebook = br#"{"tool_name":"NotebookEdit","tool_input":{"notebook_path":"n.ipynb"}}"#;
        assert!(matches!(
            parse_pre_tool_use(notebook).unwrap().call,
            ToolCall::Write { path, .. } if path == "n.ipynb"
        ));
        let read = br#"{"tool_name":"Read","tool_input":{"file_path":"/etc/passwd"}}"#;
        assert!(matches!(
            parse_pre_tool_use(read).unwrap().call,
            ToolCall::Other { .. }
        ));
        for bad in [
            &b"not json"[..],
            b"[]",
            br#"{"tool_input":{}}"#,
            br#"{"tool_name":"Write","tool_input":{}}"#,
            br#"{"tool_name":"Write","tool_input":{"file_path":7}}"#,
            br#"{"tool_name":"Bash","tool_input":"ls"}"#,
            br#"{"hook_event_name":"Stop","tool_name":"Read"}"#,
        ] {
            assert!(
                parse_pre_tool_use(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn settings_keep_everything_else_and_a_second_run_changes_nothing() {
        let theirs = json!({
            "model": "x",
            "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}]}],
                "PostToolUse": [{"hooks": [{"type": "command", "command": "fmt"}]}]
            }
        });
        let once = with_gate_hooks(Some(theirs.clone()), "gate").unwrap();
        assert_eq!(with_gate_hooks(Some(once.clone()), "gate").unwrap(), once);
        assert_eq!(once["hooks"]["PreToolUse"].as_array().unwrap().len(), 2);
        assert_eq!(without_gate_hooks(once), theirs);
        assert_eq!(
            without_gate_hooks(with_gate_hooks(None, "/bin/gate").unwrap()),
            json!({})
        );
        assert!(with_gate_hooks(Some(json!([])), "gate").is_err());
        assert!(with_gate_hooks(Some(json!({"hooks": {"Stop": {}}})), "gate").is_err());
    }

    #[test]
    fn stop_reads_the_loop_guard() {
        let stop = parse_stop(br#"{"hook_event_name":"Stop","stop_hook_active":true}"#).unwrap();
        assert!(stop.stop_hook_active);
        assert!(!parse_stop(b"{}").unwrap().stop_hook_active);
        assert!(parse_stop(br#"{"stop_hook_active":"yes"}"#).is_err());
        assert!(parse_stop(br#"{"hook_event_name":"PreToolUse"}"#).is_err());
    }
}
