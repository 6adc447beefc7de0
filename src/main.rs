//! The `gate` binary: parse the command line, run the verb, exit with its code.
//!
//! The hook entry points, called by git on every commit, push and
//! checkout, are recognised before clap builds its whole command tree: they
//! have fixed shapes, and anything else (a flag, a typo, `--help`) goes
//! through clap as usual.

use clap::Parser as _;

use gate::cli::{AgentEvent, Cli, Command, HookCommand, HookVerb};

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // The commit cache is written while the report is made and printed;
    // waited for below, before the process exits.
    gate::git::defer_cache_writes();
    // The run's one writer, passed down to the verb.
    let ui = gate::ui::Ui::terminal();
    let cli = match hook_fast_path(&args).map_or_else(|| Cli::try_parse_from(&args), Ok) {
        Ok(cli) => cli,
        Err(e) => std::process::exit(gate::commands::command_line_error(&e, &args, &ui)),
    };
    // A one-shot verb's process exits once it has answered: what it holds
    // then is left to the kernel. `gate mcp` answers many, and frees.
    if !matches!(cli.command, gate::cli::Command::Mcp) {
        gate::exiting::exits_after_answer();
    }
    let code = gate::commands::run(cli, &ui);
    gate::git::finish_cache_writes();
    std::process::exit(code);
}

/// `gate hook pre-commit`, `gate hook prepare-commit-msg FILE [SOURCE [SHA]]`,
/// `gate hook pre-push REMOTE URL`, `gate hook post-checkout OLD NEW FLAG`
/// and `gate hook AGENT pre-tool-use|stop` (run before every tool call),
/// exactly; `None` for anything else.
fn hook_fast_path(args: &[std::ffi::OsString]) -> Option<Cli> {
    let args: Vec<&str> = args
        .iter()
        .skip(1)
        .map(|a| a.to_str())
        .collect::<Option<_>>()?;
    let plain = |s: &&str| !s.starts_with('-');
    if let ["hook", host, event] = args.as_slice() {
        let event = match *event {
            "pre-tool-use" => Some(AgentEvent::PreToolUse),
            "stop" => Some(AgentEvent::Stop),
            _ => None,
        };
        let verb = event.and_then(|e| match *host {
            "claude-code" => Some(HookVerb::ClaudeCode(e)),
            "cursor" => Some(HookVerb::Cursor(e)),
            "gemini-cli" => Some(HookVerb::GeminiCli(e)),
            "codex" => Some(HookVerb::Codex(e)),
            "copilot" => Some(HookVerb::Copilot(e)),
            _ => None,
        });
        if let Some(verb) = verb {
            return Some(Cli {
                dir: None,
                command: Command::Hook(verb),
            });
        }
    }
    let hook = match args.as_slice() {
        ["hook", "pre-commit"] => HookCommand::PreCommit,
        ["hook", "pre-push", remote, url] if [remote, url].iter().all(|s| plain(s)) => {
            HookCommand::PrePush {
                remote: remote.to_string(),
                url: url.to_string(),
            }
        }
        ["hook", "prepare-commit-msg", file, rest @ ..]
            if rest.len() <= 2 && std::iter::once(file).chain(rest).all(plain) =>
        {
            HookCommand::PrepareCommitMsg {
                file: file.into(),
                source: rest.first().map(|s| s.to_string()),
                commit: rest.get(1).map(|s| s.to_string()),
            }
        }
        ["hook", "post-checkout", old, new, flag] if [old, new, flag].iter().all(|s| plain(s)) => {
            HookCommand::PostCheckout {
                old: old.to_string(),
                new: new.to_string(),
                flag: flag.to_string(),
            }
        }
        _ => return None,
    };
    Some(Cli {
        dir: None,
        command: Command::Hook(HookVerb::Git(hook)),
    })
}
