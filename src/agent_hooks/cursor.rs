//! Cursor's hook contract (docs/agents.md, "Cursor"): `.cursor/hooks.json`
//! (`{"version": 1, "hooks": {"preToolUse": [{"command": …}], "stop":
//! […]}}`, flat entries), a `preToolUse` input with `tool_name` (`Write`,
//! `StrReplace`, `Delete`, `ApplyPatch`, `Shell`, …), `tool_input` and
//! `cwd` (or the first of `workspace_roots`), answered with `{"permission":
//! "deny", "user_message": …, "agent_message": …}`; a `stop` input with
//! `loop_count`, answered with `{"followup_message": …}`, which Cursor
//! submits as the next user message. Pure.

use serde_json::{Value, json};

use super::hosts::{self, StopInput};
use super::{PreToolUse, StopVerdict, ToolCall, Verdict};

pub const HOST: &str = "cursor";

/// Where a project's hooks are read from.
pub const CONFIG: &str = ".cursor/hooks.json";

/// The tools that write one file, by the names Cursor sends and Claude
/// Code's that it maps (`Edit` → `Write`).
const FILE_TOOLS: [&str; 6] = [
    "Write",
    "StrReplace",
    "Edit",
    "MultiEdit",
    "Delete",
    "Create",
];

/// The tool names gate's `preToolUse` entry asks about.
pub const MATCHER: &str = "Write|StrReplace|Edit|MultiEdit|Delete|Create|ApplyPatch|Shell";

/// The keys of a hook entry that hold its command.
const KEYS: [&str; 1] = ["command"];

/// Read a `preToolUse` input.
pub fn parse_pre_tool_use(bytes: &[u8]) -> Result<PreToolUse, String> {
    let map = hosts::object(bytes)?;
    let cwd = match hosts::string(&map, &["cwd"], "")? {
        Some(cwd) => Some(cwd),
        None => hosts::first_of_list(&map, "workspace_roots")?,
    };
    let Some(tool) = hosts::string(&map, &["tool_name"], "")? else {
        return Err("the hook input has no tool_name".into());
    };
    let args = hosts::arguments(map.get("tool_input"), &tool)?;
    let call = if FILE_TOOLS.contains(&tool.as_str()) {
        hosts::file_call(&tool, &args, &["file_path", "path", "target_file"])?
    } else if tool == "ApplyPatch" {
        hosts::patch_call(&tool, &args, &["patch", "input", "command"])?
    } else if tool == "Shell" {
        hosts::shell_call(&tool, &args, &["command"])?
    } else {
        ToolCall::Other { tool }
    };
    Ok(hosts::call(cwd, call))
}

/// Read a `stop` input: blocked before when Cursor has already submitted a
/// follow-up (`loop_count` above 0).
pub fn parse_stop(bytes: &[u8]) -> Result<StopInput, String> {
    let map = hosts::object(bytes)?;
    let cwd = match hosts::string(&map, &["cwd"], "")? {
        Some(cwd) => Some(cwd),
        None => hosts::first_of_list(&map, "workspace_roots")?,
    };
    let already_blocked = match map.get("loop_count") {
        None | Some(Value::Null) => false,
        Some(Value::Number(n)) => n.as_u64().is_some_and(|n| n > 0),
        Some(other) => return Err(format!("loop_count is {other}, not a number")),
    };
    Ok(StopInput {
        cwd,
        already_blocked,
    })
}

/// The answer to a call. Cursor shows nothing for a call it lets through,
/// so a report is said to both, as an allow.
pub fn answer_call(verdict: &Verdict) -> Option<Value> {
    match verdict {
        Verdict::Pass => None,
        Verdict::Deny(reason) => Some(json!({
            "permission": "deny",
            "user_message": reason,
            "agent_message": reason,
        })),
        Verdict::Report(message) => Some(json!({
            "permission": "allow",
            "user_message": message,
            "agent_message": message,
        })),
    }
}

/// The answer to a stop: a follow-up keeps the agent working. Cursor's
/// stop has no message for the user: a warning is not said.
pub fn answer_stop(verdict: &StopVerdict) -> Option<Value> {
    match verdict {
        StopVerdict::Block(reason) => Some(json!({ "followup_message": reason })),
        StopVerdict::Pass | StopVerdict::Warn(_) => None,
    }
}

/// `config` with gate's entries, running `binary`.
pub fn with_gate_hooks(config: Option<Value>, binary: &str) -> Result<Value, String> {
    let entries = [
        (
            "preToolUse",
            "pre-tool-use",
            json!({
                "command": format!("{binary} hook {HOST} pre-tool-use"),
                "matcher": MATCHER,
                // A crash or a timeout blocks, as gate fails closed.
                "failClosed": true,
            }),
        ),
        (
            "stop",
            "stop",
            json!({ "command": format!("{binary} hook {HOST} stop") }),
        ),
    ];
    hosts::with_flat_entries(config, &entries, &KEYS, HOST)
}

/// `config` without gate's entries.
pub fn without_gate_hooks(config: Value) -> Value {
    hosts::without_flat_entries(config, &KEYS, HOST, &["pre-tool-use", "stop"])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_inputs_are_read() {
        // Cursor's documented Shell example, with the common fields.
        let shell = br#"{"tool_name":"Shell","tool_input":{"command":"git commit -n -m x","working_directory":"/project"},"tool_use_id":"abc123","cwd":"/project","conversation_id":"c","generation_id":"g","hook_event_name":"preToolUse","workspace_roots":["/project"]}"#;
        let call = parse_pre_tool_use(shell).unwrap();
        assert_eq!(call.cwd.as_deref(), Some("/project"));
        assert_eq!(
            call.call,
            ToolCall::Bash {
                command: "git commit -n -m x".into()
            }
        );
        let write = br#"{"tool_name":"Write","tool_input":{"file_path":"src/a.rs","content":"x"},"hook_event_name":"preToolUse","workspace_roots":["/w"]}"#;
        let call = parse_pre_tool_use(write).unwrap();
        assert_eq!(call.cwd.as_deref(), Some("/w"));
        assert_eq!(
            call.call,
            ToolCall::Write {
                tool: "Write".into(),
                path: "src/a.rs".into()
            }
        );
        let patch = br#"{"tool_name":"ApplyPatch","tool_input":"*** Begin Patch\n*** Add File: b.txt\n+b\n*** End Patch","cwd":"/w"}"#;
        assert_eq!(
            parse_pre_tool_use(patch).unwrap().call,
            ToolCall::Writes {
                tool: "ApplyPatch".into(),
                paths: vec!["b.txt".into()]
            }
        );
        let read = br#"{"tool_name":"Read","tool_input":{"file_path":"a"},"cwd":"/w"}"#;
        assert!(matches!(
            parse_pre_tool_use(read).unwrap().call,
            ToolCall::Other { .. }
        ));
        // What gate cannot read is refused.
        assert!(parse_pre_tool_use(br#"{"tool_input":{}}"#).is_err());
        assert!(parse_pre_tool_use(br#"{"tool_name":"Write","tool_input":{}}"#).is_err());
    }

    #[test]
    fn a_stop_after_a_follow_up_is_not_blocked_again() {
        let first =
            parse_stop(br#"{"status":"completed","loop_count":0,"workspace_roots":["/w"]}"#)
                .unwrap();
        assert_eq!(first.cwd.as_deref(), Some("/w"));
        assert!(!first.already_blocked);
        assert!(
            parse_stop(br#"{"status":"completed","loop_count":2}"#)
                .unwrap()
                .already_blocked
        );
        assert_eq!(
            answer_stop(&StopVerdict::Block("run gate verify".into())),
            Some(json!({"followup_message": "run gate verify"}))
        );
        assert_eq!(answer_stop(&StopVerdict::Warn("w".into())), None);
        assert_eq!(
            answer_call(&Verdict::Deny("no".into())).unwrap()["permission"],
            "deny"
        );
    }
}
