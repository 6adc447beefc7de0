//! The agent hosts' hook contracts, as docs/agents.md describes them: the
//! shared shapes of a tool call and a stop and of gate's answers
//! ([`Verdict`], [`StopVerdict`]), each [`Host`]'s adapter, and Claude
//! Code's own — the JSON document it writes on a hook's stdin, the tool
//! calls gate judges, what in a Bash call would get past gate's hooks
//! ([`guard`], over the shell-word scanner [`shell`]), and the JSON answers
//! Claude Code honours.
//!
//! Pure: no file, no repository, no clock. `commands::agent_hook` reads
//! stdin, asks the scope and receipts checks, and prints what this builds,
//! for each [`Host`] in its own shape.

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
    /// A tool that writes several files in one call (a patch), each path
    /// as given.
    Writes { tool: String, paths: Vec<String> },
    /// A shell command.
    Bash { command: String },
    /// Any other tool: not gate's business.
    Other { tool: String },
}

/// What gate answers a tool call, whatever the host: each host's adapter
/// says it in the shape that host honours.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Not gate's objection: the call goes on.
    Pass,
    /// Refused before it runs, with the reason the agent is shown.
    Deny(String),
    /// Let through, and said to the user.
    Report(String),
}

/// What gate answers an agent about to stop, whatever the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopVerdict {
    /// Nothing is left: it stops in silence.
    Pass,
    /// Work is left that the agent can do: keep it working, with the reason.
    Block(String),
    /// It may stop, and the user is told why gate did not keep it working.
    Warn(String),
}

/// The agent hosts gate has hooks for: each one's stdin, answers and
/// configuration file, behind one decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Host {
    ClaudeCode,
    Cursor,
    GeminiCli,
    Codex,
    Copilot,
}

impl From<crate::cli::Agent> for Host {
    fn from(agent: crate::cli::Agent) -> Host {
        use crate::cli::Agent;
        match agent {
            Agent::ClaudeCode => Host::ClaudeCode,
            Agent::Cursor => Host::Cursor,
            Agent::GeminiCli => Host::GeminiCli,
            Agent::Codex => Host::Codex,
            Agent::Copilot => Host::Copilot,
        }
    }
}

/// What `gate doctor` reads of gate's wiring in a host's configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wiring {
    /// The commands of gate's entries, as written.
    pub commands: Vec<String>,
    /// Whether an entry `gate install --agent` writes is missing (or sits
    /// under another event).
    pub incomplete: bool,
    /// The matcher of gate's pre-tool-use entry, when it is not the one
    /// this gate writes (a gate of another version installed it).
    pub stale_matcher: Option<String>,
}

impl Host {
    /// The name on the command line (`gate hook NAME …`).
    pub fn name(self) -> &'static str {
        match self {
            Host::ClaudeCode => "claude-code",
            Host::Cursor => cursor::HOST,
            Host::GeminiCli => gemini::HOST,
            Host::Codex => codex::HOST,
            Host::Copilot => copilot::HOST,
        }
    }

    /// The matcher of gate's pre-tool-use entry, as this gate writes it.
    pub fn matcher(self) -> &'static str {
        match self {
            Host::ClaudeCode => SETTINGS_HOOKS[0].1.unwrap_or_default(),
            Host::Cursor => cursor::MATCHER,
            Host::GeminiCli => gemini::MATCHER,
            Host::Codex => codex::MATCHER,
            Host::Copilot => copilot::MATCHER,
        }
    }

    /// gate's wiring in `config`: its commands (none: not installed), and
    /// what differs from what `gate install --agent` writes.
    pub fn wiring(self, config: &Value) -> Wiring {
        let mut commands = Vec::new();
        let mut matcher = None;
        gate_entries(config, self.name(), &mut commands, &mut matcher);
        let incomplete = self
            .with_gate_hooks(Some(config.clone()), "gate")
            .map_or(true, |added| &added != config);
        Wiring {
            commands,
            incomplete,
            stale_matcher: matcher.filter(|m| m != self.matcher()),
        }
    }

    /// What its configuration file is, for people.
    pub fn config_named(self) -> &'static str {
        match self {
            Host::ClaudeCode => "Claude Code's settings",
            Host::Cursor => "Cursor's hooks",
            Host::GeminiCli => "Gemini CLI's settings",
            Host::Codex => "Codex's hooks",
            Host::Copilot => "Copilot's hooks",
        }
    }

    /// The file `gate install --agent` writes gate's entries into.
    pub fn config(self) -> &'static str {
        match self {
            Host::ClaudeCode => ".claude/settings.json",
            Host::Cursor => cursor::CONFIG,
            Host::GeminiCli => gemini::CONFIG,
            Host::Codex => codex::CONFIG,
            Host::Copilot => copilot::CONFIG,
        }
    }

    /// A tool call, read as the host writes it.
    pub fn parse_call(self, input: &[u8]) -> Result<PreToolUse, String> {
        match self {
            Host::ClaudeCode => parse_pre_tool_use(input),
            Host::Cursor => cursor::parse_pre_tool_use(input),
            Host::GeminiCli => gemini::parse_pre_tool_use(input),
            Host::Codex => codex::parse_pre_tool_use(input),
            Host::Copilot => copilot::parse_pre_tool_use(input),
        }
    }

    /// A stop, read as the host writes it.
    pub fn parse_stop(self, input: &[u8]) -> Result<hosts::StopInput, String> {
        match self {
            Host::ClaudeCode => parse_stop(input).map(|s| hosts::StopInput {
                cwd: s.cwd,
                already_blocked: s.stop_hook_active,
            }),
            Host::Cursor => cursor::parse_stop(input),
            Host::GeminiCli => gemini::parse_stop(input),
            Host::Codex => codex::parse_stop(input),
            Host::Copilot => copilot::parse_stop(input),
        }
    }

    /// The answer to a call, in the shape the host honours (Codex honours
    /// Claude Code's).
    pub fn answer_call(self, verdict: &Verdict) -> Option<Value> {
        match self {
            Host::ClaudeCode | Host::Codex => answer_call(verdict),
            Host::Cursor => cursor::answer_call(verdict),
            Host::GeminiCli => gemini::answer_call(verdict),
            Host::Copilot => copilot::answer_call(verdict),
        }
    }

    /// The answer to a stop, in the shape the host honours.
    pub fn answer_stop(self, verdict: &StopVerdict) -> Option<Value> {
        match self {
            Host::ClaudeCode | Host::Codex => answer_stop(verdict),
            Host::Cursor => cursor::answer_stop(verdict),
            Host::GeminiCli => gemini::answer_stop(verdict),
            Host::Copilot => copilot::answer_stop(verdict),
        }
    }

    /// `config` (the parsed file, `None` when absent) with gate's entries,
    /// running `binary`.
    pub fn with_gate_hooks(self, config: Option<Value>, binary: &str) -> Result<Value, String> {
        match self {
            Host::ClaudeCode => with_gate_hooks(config, binary),
            Host::Cursor => cursor::with_gate_hooks(config, binary),
            Host::GeminiCli => gemini::with_gate_hooks(config, binary),
            Host::Codex => codex::with_gate_hooks(config, binary),
            Host::Copilot => copilot::with_gate_hooks(config, binary),
        }
    }

    /// `config` without gate's entries.
    pub fn without_gate_hooks(self, config: Value) -> Value {
        match self {
            Host::ClaudeCode => without_gate_hooks(config),
            Host::Cursor => cursor::without_gate_hooks(config),
            Host::GeminiCli => gemini::without_gate_hooks(config),
            Host::Codex => codex::without_gate_hooks(config),
            Host::Copilot => copilot::without_gate_hooks(config),
        }
    }
}

/// The commands of gate's entries for `host` anywhere in `value`, and the
/// matcher of its pre-tool-use entry (on the entry, or on the matcher group
/// that holds it).
fn gate_entries(
    value: &Value,
    host: &str,
    commands: &mut Vec<String>,
    matcher: &mut Option<String>,
) {
    let runs = |entry: &Value, verb: Option<&str>| -> Option<String> {
        ["command", "bash", "powershell"].iter().find_map(|k| {
            let c = entry.get(*k)?.as_str()?;
            let hit = match verb {
                Some(v) => c.trim_end().ends_with(&format!(" hook {host} {v}")),
                None => runs_gate(c, host),
            };
            hit.then(|| c.to_string())
        })
    };
    match value {
        Value::Object(map) => {
            if let Some(c) = runs(value, None)
                && !commands.contains(&c)
            {
                commands.push(c);
            }
            let pre = runs(value, Some("pre-tool-use")).is_some()
                || map
                    .get("hooks")
                    .and_then(Value::as_array)
                    .is_some_and(|hs| hs.iter().any(|h| runs(h, Some("pre-tool-use")).is_some()));
            if pre
                && matcher.is_none()
                && let Some(m) = map.get("matcher").and_then(Value::as_str)
            {
                *matcher = Some(m.to_string());
            }
            for v in map.values() {
                gate_entries(v, host, commands, matcher);
            }
        }
        Value::Array(items) => {
            for v in items {
                gate_entries(v, host, commands, matcher);
            }
        }
        _ => {}
    }
}

/// Claude Code's answer to a `PreToolUse` call: `None` prints nothing.
pub fn answer_call(verdict: &Verdict) -> Option<Value> {
    match verdict {
        Verdict::Pass => None,
        Verdict::Deny(reason) => Some(deny(reason)),
        Verdict::Report(message) => Some(report(message)),
    }
}

/// Claude Code's answer to a `Stop`: `None` prints nothing.
pub fn answer_stop(verdict: &StopVerdict) -> Option<Value> {
    match verdict {
        StopVerdict::Pass => None,
        StopVerdict::Block(reason) => Some(block_stop(reason)),
        StopVerdict::Warn(message) => Some(warn_stop(message)),
    }
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
    } else if tool == "Bash" || tool == "PowerShell" {
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

pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod gemini;
pub mod guard;
pub mod hosts;
pub mod patch;
pub mod shell;

pub use guard::{Change, Finding, Guard, guard};

/// The events gate hooks into, the matcher of each (`None`: every
/// occasion), and the `gate hook claude-code` verb each runs.
pub const SETTINGS_HOOKS: [(&str, Option<&str>, &str); 2] = [
    (
        "PreToolUse",
        Some("Edit|Write|MultiEdit|NotebookEdit|Bash|PowerShell"),
        "pre-tool-use",
    ),
    ("Stop", None, "stop"),
];

/// Whether a hook command in `.claude/settings.json` is one of gate's: it
/// runs `hook claude-code pre-tool-use` or `hook claude-code stop`.
pub fn is_gate_command(command: &str) -> bool {
    runs_gate(command, "claude-code")
}

/// Whether `command` runs gate's hook for `host`.
fn runs_gate(command: &str, host: &str) -> bool {
    ["pre-tool-use", "stop"].iter().any(|verb| {
        command
            .trim_end()
            .ends_with(&format!(" hook {host} {verb}"))
    })
}

/// `settings` (the parsed `.claude/settings.json`, `None` when absent) with
/// gate's hook entries added, running `binary`; everything else kept as it
/// was. An entry of gate's already there is kept, so a second run changes
/// nothing. Refuses a file whose shape is not Claude Code's (a non-object,
/// `hooks` or an event that is not what the contract says) rather than
/// overwrite it.
pub fn with_gate_hooks(settings: Option<Value>, binary: &str) -> Result<Value, String> {
    with_grouped_hooks(settings, &SETTINGS_HOOKS, "claude-code", binary)
}

/// `settings` without gate's hook entries: a matcher group left with no
/// hook goes, an event left with no group goes, `hooks` left empty goes;
/// everything else is kept.
pub fn without_gate_hooks(settings: Value) -> Value {
    let events: Vec<&str> = SETTINGS_HOOKS.iter().map(|(e, _, _)| *e).collect();
    without_grouped_hooks(settings, &events, "claude-code")
}

/// A configuration in Claude Code's shape (`hooks` → event → matcher
/// groups → `{"type": "command", "command": …}`; Codex's too) with gate's
/// entry for each of `events` — (event, matcher, verb) — running `binary
/// hook HOST VERB`, unless one is there.
pub fn with_grouped_hooks(
    settings: Option<Value>,
    events: &[(&str, Option<&str>, &str)],
    host: &str,
    binary: &str,
) -> Result<Value, String> {
    let mut settings = settings.unwrap_or_else(|| json!({}));
    let Value::Object(root) = &mut settings else {
        return Err("it is not a JSON object".into());
    };
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let Value::Object(hooks) = hooks else {
        return Err("its \"hooks\" is not an object".into());
    };
    for (event, matcher, verb) in events {
        let groups = hooks.entry(*event).or_insert_with(|| json!([]));
        let Value::Array(groups) = groups else {
            return Err(format!("its \"hooks\".\"{event}\" is not a list"));
        };
        let present = groups.iter().any(|group| {
            commands(group).any(|c| c.trim_end().ends_with(&format!(" hook {host} {verb}")))
        });
        if present {
            continue;
        }
        let hook = json!({ "type": "command", "command": format!("{binary} hook {host} {verb}") });
        groups.push(match matcher {
            Some(m) => json!({ "matcher": m, "hooks": [hook] }),
            None => json!({ "hooks": [hook] }),
        });
    }
    Ok(settings)
}

/// A configuration in Claude Code's shape without gate's entries for
/// `host` under `events`: a matcher group left with no hook goes, an event
/// left with no group goes, `hooks` left empty goes.
pub fn without_grouped_hooks(mut settings: Value, events: &[&str], host: &str) -> Value {
    let Some(Value::Object(hooks)) = settings.get_mut("hooks") else {
        return settings;
    };
    for event in events {
        let Some(Value::Array(groups)) = hooks.get_mut(*event) else {
            continue;
        };
        for group in groups.iter_mut() {
            if let Some(Value::Array(list)) = group.get_mut("hooks") {
                let before = list.len();
                list.retain(|h| {
                    !h.get("command")
                        .and_then(Value::as_str)
                        .is_some_and(|c| runs_gate(c, host))
                });
                if before != list.len() && list.is_empty() {
                    *group = Value::Null;
                }
            }
        }
        groups.retain(|g| !g.is_null());
        if groups.is_empty() {
            hooks.remove(*event);
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
