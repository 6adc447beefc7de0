//! Claude Code's hook contract, as docs/agents.md describes it: the JSON
//! document Claude Code writes on a hook's stdin, the tool calls gate
//! judges, the `git` commands in a Bash call that would skip gate's hooks,
//! and the JSON answers Claude Code honours.
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

/// The `Stop` answer that lets Claude stop but tells the user why gate
/// did not block again.
pub fn warn_stop(message: &str) -> Value {
    json!({ "systemMessage": message })
}

/// A `git` invocation in a shell command that would skip gate's hooks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bypass {
    /// `commit` or `push`.
    pub subcommand: String,
    /// What skips the hooks: `--no-verify`, `-n`, `-c core.hooksPath=…`.
    pub how: String,
}

/// The first `git commit` or `git push` in `command` that skips gate's
/// hooks: `--no-verify` (or an abbreviation git accepts), `-n` for commit
/// (for push `-n` is `--dry-run`, which sends nothing), or a
/// `-c core.hooksPath=…` override. Looks through `&&`, `||`, `;`, `|`,
/// newlines, subshells and `$(…)`, environment assignments, `env`,
/// `command`, `sudo`, `time`, `nohup`, `exec`, and `sh -c '…'` (any shell).
/// A heuristic in front of the real doors: an alias (`git ci -n`) or a
/// script is not seen, and pre-push and CI still judge (docs/agents.md).
pub fn bypass(command: &str) -> Option<Bypass> {
    bypass_at(command, 0)
}

fn bypass_at(command: &str, depth: usize) -> Option<Bypass> {
    for words in simple_commands(command) {
        if let Some(found) = in_simple_command(&words, depth) {
            return Some(found);
        }
    }
    None
}

const WRAPPERS: [&str; 8] = [
    "env", "command", "sudo", "time", "nohup", "exec", "nice", "builtin",
];
const SHELLS: [&str; 6] = ["sh", "bash", "zsh", "dash", "ksh", "fish"];

fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

fn in_simple_command(words: &[String], depth: usize) -> Option<Bypass> {
    let mut i = 0;
    // Assignments and wrappers (with their own options) before the program.
    while i < words.len() {
        let w = words[i].as_str();
        if is_assignment(w) || WRAPPERS.contains(&base_name(w)) || (i > 0 && w.starts_with('-')) {
            i += 1;
        } else {
            break;
        }
    }
    let program = base_name(words.get(i)?);
    if SHELLS.contains(&program) && depth < 4 {
        let rest = &words[i + 1..];
        let c = rest
            .iter()
            .position(|w| w.starts_with('-') && !w.starts_with("--") && w.contains('c'))?;
        return bypass_at(rest.get(c + 1)?, depth + 1);
    }
    if program != "git" {
        return None;
    }
    git_bypass(&words[i + 1..])
}

/// git's global options that take the next word as their value.
const GIT_VALUE_OPTIONS: [&str; 6] = [
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
];

fn git_bypass(args: &[String]) -> Option<Bypass> {
    let mut hooks_path = None;
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        let a = args[i].as_str();
        let value = if GIT_VALUE_OPTIONS.contains(&a) {
            i += 1;
            args.get(i).map(String::as_str)
        } else {
            a.strip_prefix("-c").filter(|v| !v.is_empty() && a != "-c")
        };
        if (a == "-c" || a.starts_with("-c") || a == "--config-env")
            && let Some(v) = value
            && v.to_ascii_lowercase().starts_with("core.hookspath")
        {
            hooks_path = Some(format!("-c {v}"));
        }
        i += 1;
    }
    let subcommand = args.get(i)?.as_str();
    if subcommand != "commit" && subcommand != "push" {
        return None;
    }
    let found = |how: String| {
        Some(Bypass {
            subcommand: subcommand.to_string(),
            how,
        })
    };
    if let Some(how) = hooks_path {
        return found(how);
    }
    let rest = &args[i + 1..];
    let mut j = 0;
    while j < rest.len() {
        let a = rest[j].as_str();
        if a == "--" {
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            // git takes any unambiguous prefix: `--no-veri` is the shortest
            // (`--no-ver` could be `--no-verbose`).
            if name.len() >= "no-veri".len() && "no-verify".starts_with(name) {
                return found(a.to_string());
            }
            if !long.contains('=') && long_takes_value(subcommand, name) {
                j += 1;
            }
        } else if let Some(cluster) = a.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (k, c) in cluster.char_indices() {
                if c == 'n' && subcommand == "commit" {
                    return found(if a == "-n" {
                        "-n".into()
                    } else {
                        format!("-n (in {a})")
                    });
                }
                if short_takes_value(subcommand, c) {
                    // The rest of the cluster is the value, or the next word.
                    if k + c.len_utf8() == cluster.len() {
                        j += 1;
                    }
                    break;
                }
                if short_takes_attached_value(subcommand, c) {
                    break;
                }
            }
        }
        j += 1;
    }
    None
}

/// Short options whose value may be the next word (git-commit(1),
/// git-push(1)).
fn short_takes_value(subcommand: &str, c: char) -> bool {
    match subcommand {
        "commit" => matches!(c, 'm' | 'F' | 'C' | 'c' | 't'),
        _ => matches!(c, 'o'),
    }
}

/// Short options whose optional value can only be attached (`-S<key>`,
/// `-u<mode>`).
fn short_takes_attached_value(subcommand: &str, c: char) -> bool {
    subcommand == "commit" && matches!(c, 'S' | 'u')
}

/// Long options whose value may be the next word.
fn long_takes_value(subcommand: &str, name: &str) -> bool {
    let commit = [
        "message",
        "file",
        "author",
        "date",
        "reuse-message",
        "reedit-message",
        "fixup",
        "squash",
        "template",
        "cleanup",
        "pathspec-from-file",
        "trailer",
    ];
    let push = [
        "repo",
        "receive-pack",
        "exec",
        "push-option",
        "recurse-submodules",
    ];
    match subcommand {
        "commit" => commit.contains(&name),
        _ => push.contains(&name),
    }
}

/// Split a shell command into simple commands, each as its words with the
/// quotes removed. Separators: `;`, `&`, `|`, newlines, `(`, `)`, `` ` ``,
/// and `$(`. Inside double quotes, `$(…)` and backquotes are commands too.
/// An unterminated quote runs to the end: what follows is still read.
fn simple_commands(command: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars().peekable();
    let end_word = |words: &mut Vec<String>, word: &mut String, in_word: &mut bool| {
        if *in_word {
            words.push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                let mut inner = String::new();
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                word.push(n);
                                inner.push(n);
                            }
                        }
                        _ => {
                            word.push(q);
                            inner.push(q);
                        }
                    }
                }
                // Command substitutions inside the quotes run too.
                for (open, close) in [("$(", ')'), ("`", '`')] {
                    let mut rest = inner.as_str();
                    while let Some(at) = rest.find(open) {
                        let body = &rest[at + open.len()..];
                        let stop = body.find(close).unwrap_or(body.len());
                        commands.extend(simple_commands(&body[..stop]));
                        rest = &body[stop..];
                        if !rest.is_empty() {
                            rest = &rest[1..];
                        }
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some('\n') | None => {}
                    Some(n) => word.push(n),
                }
            }
            '#' if !in_word => {
                // A comment runs to the end of the line.
                for n in chars.by_ref() {
                    if n == '\n' {
                        break;
                    }
                }
                end_word(&mut words, &mut word, &mut in_word);
                commands.push(std::mem::take(&mut words));
            }
            ';' | '&' | '|' | '\n' | '(' | ')' | '`' | '{' | '}' => {
                end_word(&mut words, &mut word, &mut in_word);
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            '$' if chars.peek() == Some(&'(') => {
                chars.next();
                end_word(&mut words, &mut word, &mut in_word);
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            c if c.is_whitespace() => end_word(&mut words, &mut word, &mut in_word),
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    end_word(&mut words, &mut word, &mut in_word);
    if !words.is_empty() {
        commands.push(words);
    }
    commands.retain(|w| !w.is_empty());
    commands
}

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
        bypass(command).map(|b| format!("{} {}", b.subcommand, b.how))
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
