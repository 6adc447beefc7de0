//! GitHub Copilot's hook contract, for Copilot CLI and the cloud agent
//! (docs/agents.md, "GitHub Copilot"): `.github/hooks/*.json` (`{"version":
//! 1, "hooks": {"preToolUse": [{"type": "command", "bash": …}]}}`, flat
//! entries; gate's is `.github/hooks/gate.json`), camelCase input
//! (`toolName`, `toolArgs` — an object, or a JSON string holding one, by
//! version — `cwd`), answered with `{"permissionDecision": "deny",
//! "permissionDecisionReason": …}`; `agentStop` with `stop_hook_active`,
//! answered with `{"decision": "block", "reason": …}`. Pure.

use serde_json::{Value, json};

use super::hosts::{self, StopInput};
use super::{PreToolUse, StopVerdict, ToolCall, Verdict};

pub const HOST: &str = "copilot";

/// gate's own hooks file (Copilot reads every `.github/hooks/*.json`).
pub const CONFIG: &str = ".github/hooks/gate.json";

/// The tools that write one file, and the argument naming it.
const FILE_TOOLS: [&str; 3] = ["create", "edit", "str_replace_editor"];

/// The tool names gate's `preToolUse` entry asks about.
pub const MATCHER: &str = "bash|powershell|create|edit|str_replace_editor|apply_patch";

/// The keys of a hook entry that hold its command.
const KEYS: [&str; 3] = ["bash", "powershell", "command"];

/// Read a `preToolUse` input.
pub fn parse_pre_tool_use(bytes: &[u8]) -> Result<PreToolUse, String> {
    let map = hosts::object(bytes)?;
    let cwd = hosts::string(&map, &["cwd"], "")?;
    let Some(tool) = hosts::string(&map, &["toolName"], "")? else {
        return Err("the hook input has no toolName".into());
    };
    let args = hosts::arguments(map.get("toolArgs"), &tool)?;
    // `str_replace_editor` also reads: its `view` command writes nothing.
    let views =
        tool == "str_replace_editor" && args.get("command").and_then(Value::as_str) == Some("view");
    let call = if views {
        ToolCall::Other { tool }
    } else if FILE_TOOLS.contains(&tool.as_str()) {
        hosts::file_call(&tool, &args, &["path", "file_path"])?
    } else if tool == "apply_patch" {
        hosts::patch_call(&tool, &args, &["input", "patch", "command"])?
    } else if tool == "bash" || tool == "powershell" {
        hosts::shell_call(&tool, &args, &["command"])?
    } else {
        ToolCall::Other { tool }
    };
    Ok(hosts::call(cwd, call))
}

/// Read an `agentStop` input.
pub fn parse_stop(bytes: &[u8]) -> Result<StopInput, String> {
    let map = hosts::object(bytes)?;
    Ok(StopInput {
        cwd: hosts::string(&map, &["cwd"], "")?,
        already_blocked: hosts::flag(&map, "stop_hook_active")?
            || hosts::flag(&map, "stopHookActive")?,
    })
}

/// The answer to a call. Copilot has no message for a call it lets
/// through: a report is recorded (`gate context`), not said.
pub fn answer_call(verdict: &Verdict) -> Option<Value> {
    match verdict {
        Verdict::Deny(reason) => Some(json!({
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        })),
        Verdict::Pass | Verdict::Report(_) => None,
    }
}

/// The answer to a stop: `block` forces another turn with the reason as
/// its prompt. `agentStop` has no message for the user: a warning is not
/// said.
pub fn answer_stop(verdict: &StopVerdict) -> Option<Value> {
    match verdict {
        StopVerdict::Block(reason) => Some(json!({ "decision": "block", "reason": reason })),
        StopVerdict::Pass | StopVerdict::Warn(_) => None,
    }
}

/// `config` (gate's own file) with gate's entries, running `binary`.
pub fn with_gate_hooks(config: Option<Value>, binary: &str) -> Result<Value, String> {
    let entry = |verb: &str, matcher: Option<&str>| {
        let command = format!("{binary} hook {HOST} {verb}");
        let mut entry = json!({
            "type": "command",
            "bash": command,
            "powershell": command,
            "timeoutSec": 30,
        });
        if let Some(m) = matcher {
            entry["matcher"] = json!(m);
        }
        entry
    };
    let entries = [
        (
            "preToolUse",
            "pre-tool-use",
            entry("pre-tool-use", Some(MATCHER)),
        ),
        ("agentStop", "stop", entry("stop", None)),
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
    fn tool_arguments_are_read_encoded_or_not() {
        // The documented example: toolArgs a JSON string.
        let bash = br#"{"timestamp":1704614600000,"cwd":"/path/to/project","toolName":"bash","toolArgs":"{\"command\":\"git push --no-verify\",\"description\":\"push\"}"}"#;
        let call = parse_pre_tool_use(bash).unwrap();
        assert_eq!(call.cwd.as_deref(), Some("/path/to/project"));
        assert_eq!(
            call.call,
            ToolCall::Bash {
                command: "git push --no-verify".into()
            }
        );
        // CLI 1.0.82: an object.
        let edit = br#"{"sessionId":"s","timestamp":1,"cwd":"/w","toolName":"edit","toolArgs":{"path":"/w/src/a.rs","old_str":"a","new_str":"b"}}"#;
        assert_eq!(
            parse_pre_tool_use(edit).unwrap().call,
            ToolCall::Write {
                tool: "edit".into(),
                path: "/w/src/a.rs".into()
            }
        );
        let create = br#"{"cwd":"/w","toolName":"create","toolArgs":"{\"path\":\"/w/t.rs\",\"file_text\":\"x\"}"}"#;
        assert!(matches!(
            parse_pre_tool_use(create).unwrap().call,
            ToolCall::Write { .. }
        ));
        let viewed = br#"{"cwd":"/w","toolName":"str_replace_editor","toolArgs":{"command":"view","path":"/w/a"}}"#;
        assert!(matches!(
            parse_pre_tool_use(viewed).unwrap().call,
            ToolCall::Other { .. }
        ));
        let replaced = br#"{"cwd":"/w","toolName":"str_replace_editor","toolArgs":{"command":"str_replace","path":"/w/a","old_str":"a","new_str":"b"}}"#;
        assert!(matches!(
            parse_pre_tool_use(replaced).unwrap().call,
            ToolCall::Write { .. }
        ));
        let view = br#"{"cwd":"/w","toolName":"view","toolArgs":"{\"path\":\"/w/a\"}"}"#;
        assert!(matches!(
            parse_pre_tool_use(view).unwrap().call,
            ToolCall::Other { .. }
        ));
        assert!(
            parse_pre_tool_use(br#"{"cwd":"/w","toolName":"create","toolArgs":"{}"}"#).is_err()
        );
    }

    #[test]
    fn answers_are_copilots() {
        assert_eq!(
            answer_call(&Verdict::Deny("no".into())),
            Some(json!({"permissionDecision": "deny", "permissionDecisionReason": "no"}))
        );
        assert_eq!(answer_call(&Verdict::Report("r".into())), None);
        assert_eq!(
            answer_stop(&StopVerdict::Block("verify".into())),
            Some(json!({"decision": "block", "reason": "verify"}))
        );
        let stop = parse_stop(
            br#"{"sessionId":"s","cwd":"/w","stopReason":"end_turn","stop_hook_active":true}"#,
        )
        .unwrap();
        assert!(stop.already_blocked);
    }
}
