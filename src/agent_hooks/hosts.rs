//! The agent hosts gate has hooks for, and what each one's hook contract
//! shares: reading a JSON object from stdin, a field by one of its names,
//! the path(s) a file tool writes, and the hook entries of a
//! configuration file whose events hold flat lists of entries (Cursor's
//! `.cursor/hooks.json`, Copilot's `.github/hooks/*.json`). Each host's
//! own shape is in its module; the decisions are the same for all
//! (`commands::agent_hook`). Pure.

use serde_json::{Map, Value, json};

use super::{PreToolUse, ToolCall};

/// A host's stop input, read into the shared shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopInput {
    pub cwd: Option<String>,
    /// The agent is continuing because a stop was blocked before: blocking
    /// again could loop (each host has its own counter or flag).
    pub already_blocked: bool,
}

/// The JSON object on stdin.
pub fn object(bytes: &[u8]) -> Result<Map<String, Value>, String> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| format!("the hook input on stdin is not JSON ({e})"))?;
    match value {
        Value::Object(map) => Ok(map),
        _ => Err("the hook input on stdin is not a JSON object".into()),
    }
}

/// A string field of `map`, by the first of `names` present; `None` when
/// none is (or it is null); an error when it is present and not a
/// non-empty string.
pub fn string(
    map: &Map<String, Value>,
    names: &[&str],
    of: &str,
) -> Result<Option<String>, String> {
    for name in names {
        match map.get(*name) {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) if !s.is_empty() => return Ok(Some(s.clone())),
            Some(other) => return Err(format!("{of}{name} is {other}, not a non-empty string")),
        }
    }
    Ok(None)
}

/// The first string of a list field (`workspace_roots`), when there is one.
pub fn first_of_list(map: &Map<String, Value>, name: &str) -> Result<Option<String>, String> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => match items.first() {
            None => Ok(None),
            Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
            Some(other) => Err(format!("{name}[0] is {other}, not a directory path")),
        },
        Some(other) => Err(format!("{name} is {other}, not a list")),
    }
}

/// A boolean field, false when absent.
pub fn flag(map: &Map<String, Value>, name: &str) -> Result<bool, String> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(format!("{name} is {other}, not true or false")),
    }
}

/// The tool's arguments: an object, or a JSON string holding one (some
/// hosts send them encoded, some not, by version).
pub fn arguments(value: Option<&Value>, tool: &str) -> Result<Map<String, Value>, String> {
    match value {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(map)) => Ok(map.clone()),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => Ok(map),
            // A string that is no JSON object is the argument itself (a
            // patch given raw): kept under `input`.
            _ => Ok(Map::from_iter([("input".to_string(), json!(text))])),
        },
        Some(other) => Err(format!(
            "the arguments of {tool} are {other}, not an object"
        )),
    }
}

/// The call a file tool `tool` makes with `args`: the path under the first
/// of `names` present. A file tool whose path gate cannot read is an error.
pub fn file_call(
    tool: &str,
    args: &Map<String, Value>,
    names: &[&str],
) -> Result<ToolCall, String> {
    match string(args, names, &format!("the {tool} argument "))? {
        Some(path) => Ok(ToolCall::Write {
            tool: tool.to_string(),
            path,
        }),
        None => Err(format!(
            "the {tool} call names no file (looked for {})",
            names.join(", ")
        )),
    }
}

/// The call a patch tool makes: the paths of the patch under the first of
/// `names` present, or of the arguments' only string.
pub fn patch_call(
    tool: &str,
    args: &Map<String, Value>,
    names: &[&str],
) -> Result<ToolCall, String> {
    let text = match string(args, names, &format!("the {tool} argument "))? {
        Some(text) => text,
        None => {
            let strings: Vec<&str> = args.values().filter_map(Value::as_str).collect();
            match strings.as_slice() {
                [only] => only.to_string(),
                _ => return Err(format!("the {tool} call holds no patch gate can find")),
            }
        }
    };
    let paths = super::patch::paths(&text).map_err(|e| format!("{tool}: {e}"))?;
    Ok(ToolCall::Writes {
        tool: tool.to_string(),
        paths,
    })
}

/// The call a shell tool makes: the command under the first of `names`,
/// a list of words joined (`["bash", "-lc", "…"]` is read as the script
/// its `-c` runs).
pub fn shell_call(
    tool: &str,
    args: &Map<String, Value>,
    names: &[&str],
) -> Result<ToolCall, String> {
    for name in names {
        match args.get(*name) {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) if !s.is_empty() => {
                return Ok(ToolCall::Bash { command: s.clone() });
            }
            Some(Value::Array(words)) => {
                let words: Option<Vec<&str>> = words.iter().map(Value::as_str).collect();
                let Some(words) = words else {
                    return Err(format!(
                        "the {tool} argument {name} is not a list of strings"
                    ));
                };
                return Ok(ToolCall::Bash {
                    command: script_of(&words),
                });
            }
            Some(other) => {
                return Err(format!(
                    "the {tool} argument {name} is {other}, not a command"
                ));
            }
        }
    }
    Err(format!(
        "the {tool} call holds no command (looked for {})",
        names.join(", ")
    ))
}

/// A command given as words: the script of `sh -c SCRIPT` (and `bash -lc`,
/// `zsh -c` …), else the words quoted for a shell.
fn script_of(words: &[&str]) -> String {
    if let [shell, flags, script, ..] = words
        && ["sh", "bash", "zsh", "dash"]
            .iter()
            .any(|s| shell == s || shell.ends_with(&format!("/{s}")))
        && flags.starts_with('-')
        && flags.contains('c')
    {
        return script.to_string();
    }
    words
        .iter()
        .map(|w| {
            if !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c))
            {
                w.to_string()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A call read: its working directory and what it does.
pub fn call(cwd: Option<String>, call: ToolCall) -> PreToolUse {
    PreToolUse { cwd, call }
}

/// Whether a hook entry's command (any of `keys`) runs `gate … hook HOST
/// VERB` for one of `verbs`.
pub fn is_gate_entry(entry: &Value, keys: &[&str], host: &str, verbs: &[&str]) -> bool {
    keys.iter().any(|k| {
        entry.get(*k).and_then(Value::as_str).is_some_and(|c| {
            verbs
                .iter()
                .any(|v| c.trim_end().ends_with(&format!(" hook {host} {v}")))
        })
    })
}

/// `config` (`None` when absent) with each of `entries` — (event, entry)
/// — added to its event's flat list under `hooks`, unless gate's entry
/// for that verb is there; `version: 1` set when absent. Refuses a file
/// whose shape is not the host's rather than overwrite it.
pub fn with_flat_entries(
    config: Option<Value>,
    entries: &[(&str, &str, Value)],
    keys: &[&str],
    host: &str,
) -> Result<Value, String> {
    let mut config = config.unwrap_or_else(|| json!({}));
    let Value::Object(root) = &mut config else {
        return Err("it is not a JSON object".into());
    };
    root.entry("version").or_insert(json!(1));
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let Value::Object(hooks) = hooks else {
        return Err("its \"hooks\" is not an object".into());
    };
    for (event, verb, entry) in entries {
        let list = hooks.entry(*event).or_insert_with(|| json!([]));
        let Value::Array(list) = list else {
            return Err(format!("its \"hooks\".\"{event}\" is not a list"));
        };
        if !list.iter().any(|e| is_gate_entry(e, keys, host, &[verb])) {
            list.push(entry.clone());
        }
    }
    Ok(config)
}

/// `config` without gate's entries for `host`: an event left empty goes,
/// and `hooks` left empty goes with `version`, so a file that held only
/// gate's entries is left an empty object (removed by the caller).
pub fn without_flat_entries(mut config: Value, keys: &[&str], host: &str, verbs: &[&str]) -> Value {
    let Some(Value::Object(hooks)) = config.get_mut("hooks") else {
        return config;
    };
    for list in hooks.values_mut() {
        if let Value::Array(entries) = list {
            entries.retain(|e| !is_gate_entry(e, keys, host, verbs));
        }
    }
    hooks.retain(|_, list| !matches!(list, Value::Array(entries) if entries.is_empty()));
    if hooks.is_empty()
        && let Value::Object(root) = &mut config
    {
        root.remove("hooks");
        if root.len() == 1 && root.get("version") == Some(&json!(1)) {
            root.remove("version");
        }
    }
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_read_as_an_object_or_an_encoded_one() {
        let encoded = json!("{\"command\":\"ls\"}");
        assert_eq!(arguments(Some(&encoded), "bash").unwrap()["command"], "ls");
        let object = json!({"path": "a"});
        assert_eq!(arguments(Some(&object), "edit").unwrap()["path"], "a");
        let raw = json!("*** Begin Patch");
        assert_eq!(
            arguments(Some(&raw), "apply_patch").unwrap()["input"],
            "*** Begin Patch"
        );
        assert!(arguments(Some(&json!(3)), "x").is_err());
    }

    #[test]
    fn a_command_given_as_words_is_the_script_its_shell_runs() {
        let args = |v: Value| v.as_object().unwrap().clone();
        let call = shell_call(
            "shell",
            &args(json!({"command": ["bash", "-lc", "git commit -n -m x"]})),
            &["command"],
        )
        .unwrap();
        assert_eq!(
            call,
            ToolCall::Bash {
                command: "git commit -n -m x".into()
            }
        );
        let call = shell_call(
            "shell",
            &args(json!({"command": ["git", "commit", "-m", "a b"]})),
            &["command"],
        )
        .unwrap();
        assert_eq!(
            call,
            ToolCall::Bash {
                command: "git commit -m 'a b'".into()
            }
        );
        assert!(shell_call("shell", &args(json!({})), &["command"]).is_err());
    }

    #[test]
    fn flat_entries_are_added_once_and_removed_alone() {
        let keys = ["command"];
        let entry = json!({"command": "gate hook cursor pre-tool-use"});
        let theirs = json!({"command": "./audit.sh"});
        let config = json!({"version": 1, "hooks": {"preToolUse": [theirs.clone()]}});
        let entries = [("preToolUse", "pre-tool-use", entry.clone())];
        let once = with_flat_entries(Some(config.clone()), &entries, &keys, "cursor").unwrap();
        let twice = with_flat_entries(Some(once.clone()), &entries, &keys, "cursor").unwrap();
        assert_eq!(once, twice);
        assert_eq!(once["hooks"]["preToolUse"], json!([theirs, entry]));
        let back = without_flat_entries(once, &keys, "cursor", &["pre-tool-use", "stop"]);
        assert_eq!(back, config);
        let only = with_flat_entries(None, &entries, &keys, "cursor").unwrap();
        assert_eq!(
            without_flat_entries(only, &keys, "cursor", &["pre-tool-use"]),
            json!({})
        );
        assert!(with_flat_entries(Some(json!([])), &entries, &keys, "cursor").is_err());
        assert!(
            with_flat_entries(
                Some(json!({"hooks": {"preToolUse": {}}})),
                &entries,
                &keys,
                "cursor"
            )
            .is_err()
        );
    }
}
