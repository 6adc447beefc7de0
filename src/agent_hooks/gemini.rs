//! Gemini CLI's hook contract (docs/agents.md, "Gemini CLI"):
//! `.gemini/settings.json` with `BeforeTool` and `AfterAgent` matcher groups
//! (Claude Code's shape, timeouts in milliseconds), `tool_name`
//! (`write_file`, `replace`, `run_shell_command`, …), `tool_input` and `cwd`
//! on stdin; a denial is the top-level `{"decision": "deny", "reason": …}`
//! (Gemini reads no `hookSpecificOutput.permissionDecision`), a message to
//! the user `systemMessage`; `AfterAgent` with `stop_hook_active` is kept
//! working with `{"decision": "block", "reason": …}`. Pure.

use std::path::Path;

use serde_json::{Value, json};

use super::hosts::{self, StopInput};
use super::{PreToolUse, StopVerdict, ToolCall, Verdict};

pub const HOST: &str = "gemini-cli";

/// Where a project's settings are read from (in a trusted folder).
pub const CONFIG: &str = ".gemini/settings.json";

/// The tools that write one file; each names it `file_path`.
const FILE_TOOLS: [&str; 2] = ["write_file", "replace"];

/// The tool names gate's `BeforeTool` group asks about (Gemini's matcher is
/// an unanchored regex).
pub const MATCHER: &str = "^(write_file|replace|run_shell_command)$";

/// Read a `BeforeTool` input. A shell call's `dir_path` is where its
/// command runs, from `cwd`.
pub fn parse_pre_tool_use(bytes: &[u8]) -> Result<PreToolUse, String> {
    let map = hosts::object(bytes)?;
    let mut cwd = hosts::string(&map, &["cwd"], "")?;
    let Some(tool) = hosts::string(&map, &["tool_name"], "")? else {
        return Err("the hook input has no tool_name".into());
    };
    let args = hosts::arguments(map.get("tool_input"), &tool)?;
    let call = if FILE_TOOLS.contains(&tool.as_str()) {
        hosts::file_call(&tool, &args, &["file_path", "absolute_path", "path"])?
    } else if tool == "run_shell_command" {
        if let Some(dir) = hosts::string(&args, &["dir_path", "directory"], "the tool_input ")? {
            cwd = Some(match &cwd {
                Some(base) => Path::new(base).join(&dir).to_string_lossy().into_owned(),
                None => dir,
            });
        }
        hosts::shell_call(&tool, &args, &["command"])?
    } else {
        ToolCall::Other { tool }
    };
    Ok(hosts::call(cwd, call))
}

/// Read an `AfterAgent` input.
pub fn parse_stop(bytes: &[u8]) -> Result<StopInput, String> {
    let map = hosts::object(bytes)?;
    Ok(StopInput {
        cwd: hosts::string(&map, &["cwd"], "")?,
        already_blocked: hosts::flag(&map, "stop_hook_active")?,
    })
}

/// The answer to a call.
pub fn answer_call(verdict: &Verdict) -> Option<Value> {
    match verdict {
        Verdict::Pass => None,
        Verdict::Deny(reason) => Some(json!({
            "decision": "deny",
            "reason": reason,
            "systemMessage": reason,
        })),
        Verdict::Report(message) => Some(json!({ "systemMessage": message })),
    }
}

/// The answer to the agent's end of turn: `block` sends the reason back as
/// a new prompt; a warning is the user's `systemMessage`.
pub fn answer_stop(verdict: &StopVerdict) -> Option<Value> {
    match verdict {
        StopVerdict::Pass => None,
        StopVerdict::Block(reason) => Some(json!({ "decision": "block", "reason": reason })),
        StopVerdict::Warn(message) => Some(json!({ "systemMessage": message })),
    }
}

/// `settings` with gate's groups, running `binary`.
pub fn with_gate_hooks(settings: Option<Value>, binary: &str) -> Result<Value, String> {
    super::with_grouped_hooks(
        settings,
        &[
            ("BeforeTool", Some(MATCHER), "pre-tool-use"),
            ("AfterAgent", None, "stop"),
        ],
        HOST,
        binary,
    )
}

/// `settings` without gate's groups.
pub fn without_gate_hooks(settings: Value) -> Value {
    super::without_grouped_hooks(settings, &["BeforeTool", "AfterAgent"], HOST)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_input_is_read() {
        // docs/hooks/best-practices.md, "Test hooks independently".
        let write = br#"{"session_id":"test-123","cwd":"/tmp/test","hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":"test.txt","content":"Test content"}}"#;
        let call = parse_pre_tool_use(write).unwrap();
        assert_eq!(call.cwd.as_deref(), Some("/tmp/test"));
        assert_eq!(
            call.call,
            ToolCall::Write {
                tool: "write_file".into(),
                path: "test.txt".into()
            }
        );
        let shell = br#"{"cwd":"/w","hook_event_name":"BeforeTool","timestamp":"2025-01-01T00:00:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"git commit -n","dir_path":"sub"}}"#;
        let call = parse_pre_tool_use(shell).unwrap();
        assert_eq!(call.cwd.as_deref(), Some("/w/sub"));
        assert_eq!(
            call.call,
            ToolCall::Bash {
                command: "git commit -n".into()
            }
        );
        let read = br#"{"cwd":"/w","tool_name":"read_file","tool_input":{"file_path":"a"}}"#;
        assert!(matches!(
            parse_pre_tool_use(read).unwrap().call,
            ToolCall::Other { .. }
        ));
    }

    #[test]
    fn answers_are_geminis() {
        assert_eq!(
            answer_call(&Verdict::Deny("no".into())).unwrap()["decision"],
            "deny"
        );
        assert_eq!(
            answer_stop(&StopVerdict::Block("verify".into())),
            Some(json!({"decision": "block", "reason": "verify"}))
        );
        let stop =
            parse_stop(br#"{"cwd":"/w","hook_event_name":"AfterAgent","prompt":"p","prompt_response":"r","stop_hook_active":true}"#)
                .unwrap();
        assert!(stop.already_blocked);
    }
}
