//! OpenAI Codex CLI's hook contract (docs/agents.md, "Codex CLI"): Claude
//! Code's shape — `.codex/hooks.json` with `PreToolUse` and `Stop` matcher
//! groups, `tool_name`/`tool_input`/`cwd` on stdin, the same answers — with
//! Codex's tools: every shell tool arrives as `Bash` (`tool_input.command`,
//! one string), and every file edit as `apply_patch`, its raw patch in
//! `tool_input.command`: the paths are read from the patch's headers
//! ([`super::patch`]). Pure.

use serde_json::Value;

use super::hosts::{self, StopInput};
use super::{PreToolUse, ToolCall};

pub const HOST: &str = "codex";

/// Where a project's hooks are read from (once the project is trusted).
pub const CONFIG: &str = ".codex/hooks.json";

/// The tool names gate's `PreToolUse` group asks about (an exact list:
/// Codex matches names of letters, digits, `_` and `|` exactly).
pub const MATCHER: &str = "Bash|apply_patch";

/// Read a `PreToolUse` input.
pub fn parse_pre_tool_use(bytes: &[u8]) -> Result<PreToolUse, String> {
    let map = hosts::object(bytes)?;
    let cwd = hosts::string(&map, &["cwd"], "")?;
    let Some(tool) = hosts::string(&map, &["tool_name"], "")? else {
        return Err("the hook input has no tool_name".into());
    };
    let args = hosts::arguments(map.get("tool_input"), &tool)?;
    let call = match tool.as_str() {
        "apply_patch" => hosts::patch_call(&tool, &args, &["command", "input", "patch"])?,
        "Bash" => hosts::shell_call(&tool, &args, &["command", "cmd"])?,
        _ => ToolCall::Other { tool },
    };
    Ok(hosts::call(cwd, call))
}

/// Read a `Stop` input.
pub fn parse_stop(bytes: &[u8]) -> Result<StopInput, String> {
    let map = hosts::object(bytes)?;
    Ok(StopInput {
        cwd: hosts::string(&map, &["cwd"], "")?,
        already_blocked: hosts::flag(&map, "stop_hook_active")?,
    })
}

/// `config` with gate's groups, running `binary`: Claude Code's shape.
pub fn with_gate_hooks(config: Option<Value>, binary: &str) -> Result<Value, String> {
    super::with_grouped_hooks(
        config,
        &[
            ("PreToolUse", Some(MATCHER), "pre-tool-use"),
            ("Stop", None, "stop"),
        ],
        HOST,
        binary,
    )
}

/// `config` without gate's groups.
pub fn without_gate_hooks(config: Value) -> Value {
    super::without_grouped_hooks(config, &["PreToolUse", "Stop"], HOST)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_is_read_for_every_path_it_writes() {
        let input = br#"{"session_id":"s","turn_id":"1","cwd":"/work/repo","hook_event_name":"PreToolUse","model":"gpt-5","permission_mode":"default","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: src/app.py\n*** Move to: src/main.py\n@@ def greet():\n-print(\"Hi\")\n+print(\"Hello, world!\")\n*** End Patch"},"tool_use_id":"call_abc123"}"#;
        let call = parse_pre_tool_use(input).unwrap();
        assert_eq!(call.cwd.as_deref(), Some("/work/repo"));
        assert_eq!(
            call.call,
            ToolCall::Writes {
                tool: "apply_patch".into(),
                paths: vec!["src/app.py".into(), "src/main.py".into()]
            }
        );
        let bash = br#"{"cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git commit --no-verify -m x"}}"#;
        assert_eq!(
            parse_pre_tool_use(bash).unwrap().call,
            ToolCall::Bash {
                command: "git commit --no-verify -m x".into()
            }
        );
        let mcp = br#"{"cwd":"/w","tool_name":"mcp__fs__write","tool_input":{"path":"x"}}"#;
        assert!(matches!(
            parse_pre_tool_use(mcp).unwrap().call,
            ToolCall::Other { .. }
        ));
        let broken =
            br#"{"cwd":"/w","tool_name":"apply_patch","tool_input":{"command":"not a patch"}}"#;
        assert!(parse_pre_tool_use(broken).is_err());
    }
}
