//! Setting up: `gate init`, `gate install` and `uninstall` with each hook
//! manager, the agent settings, `gate doctor`.

use super::*;

/// `gate doctor`'s report for people: each thing looked at, its remedy,
/// and the result (docs/doctor.md).
pub fn doctor(hooks_dir: &Path, items: &[Item], code: ExitCode) -> String {
    let mut text = format!("gate doctor · hooks directory: {}\n", hooks_dir.display());
    for i in items {
        let what = if i.subject.is_empty() {
            i.check.to_string()
        } else {
            format!("{} {}", i.check, i.subject)
        };
        text.push_str(&format!(
            "{:<8}{:<24} {}\n",
            i.status.word(),
            what,
            FileText::new(&i.detail)
        ));
        if let Some(r) = &i.remedy {
            text.push_str(&format!("{:<8}remedy: {}\n", "", FileText::new(r)));
        }
    }
    let faults = items.iter().filter(|i| i.status == Status::Fault).count();
    let unknown = items.iter().filter(|i| i.status == Status::Unknown).count();
    let warnings = items.iter().filter(|i| i.status == Status::Warn).count();
    let mut result = match code {
        ExitCode::Pass => "healthy".to_string(),
        _ => {
            let mut parts = Vec::new();
            if faults > 0 {
                parts.push(format!(
                    "{faults} fault{}",
                    if faults == 1 { "" } else { "s" }
                ));
            }
            if unknown > 0 {
                parts.push(format!("{unknown} unknown"));
            }
            parts.join(", ")
        }
    };
    if warnings > 0 {
        result.push_str(&format!(
            ", {warnings} warning{}",
            if warnings == 1 { "" } else { "s" }
        ));
    }
    text.push_str(&format!("result: {result} (exit {code})\n"));
    text
}

/// What `gate init` did with one of the files it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// It existed, and `--force` was not given.
    Kept,
    Wrote,
    Overwrote,
}

/// The human rendering of `gate init`: what became of each file, then what
/// to do next.
pub fn initialised(files: &[(&str, Written)]) -> String {
    let mut text = String::new();
    for (rel, written) in files {
        text.push_str(&match written {
            Written::Kept => format!("kept {rel} (it exists; --force overwrites it)\n"),
            Written::Wrote => format!("wrote {rel}\n"),
            Written::Overwrote => format!("overwrote {rel}\n"),
        });
    }
    text.push_str(
        "next: edit .gate/plan.yaml, `gate plan validate`, commit .gate/ (before `gate install`), then on the work's branch `gate start --issue ID --brief -`\n",
    );
    text
}

/// The human rendering of `gate init --agents`: what became of AGENTS.md,
/// and, when it changed, how to commit it here (`route`).
pub fn agents_spliced(
    how: crate::agents_md::Spliced,
    route: &crate::checks::scope::CommitRoute,
) -> String {
    use crate::agents_md::{AGENTS_PATH, Spliced};
    let said = match how {
        Spliced::Current => return format!("kept {AGENTS_PATH} (its gate block is current)\n"),
        Spliced::Created => format!("wrote {AGENTS_PATH} (the gate block)"),
        Spliced::Appended => {
            format!("added the gate block to {AGENTS_PATH} (the rest kept as it was)")
        }
        Spliced::Replaced => {
            format!("updated the gate block in {AGENTS_PATH} (the rest kept as it was)")
        }
    };
    format!(
        "{said}\n{}",
        commit_next(
            AGENTS_PATH,
            "so every agent working here reads the loop",
            route
        )
    )
}

/// What `gate install` did to one hook where gate installs without a hook
/// manager (docs/hooks.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookInstalled {
    /// gate's script as `<hook>.legacy`, which the pre-commit framework's
    /// (or prek's) script, `tool`, runs first; `already` when it was there
    /// as it is.
    Legacy { tool: &'static str, already: bool },
    /// The framework's configuration runs gate's hook.
    Configured { tool: &'static str },
    /// gate's own script in the hooks directory.
    Own {
        how: OwnInstalled,
        /// Whether a chained hook (`<hook>.gate-chained`) runs, when there
        /// is one.
        chained: Option<bool>,
        /// An older chained hook was kept as `<hook>.gate-chained.old` (`--force`).
        retired: bool,
    },
}

/// What became of gate's own script for one hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnInstalled {
    /// It was there as it is.
    Current,
    /// An older gate script was replaced.
    Updated,
    /// There was none.
    Installed,
    /// A hook that is not gate's was moved aside to `<hook>.gate-chained`.
    MovedAside,
}

/// Why a kept hook is silent: the scripts run it only when `[ -x ]` holds.
pub(super) const NOT_RUN: &str =
    "is not executable, so it does not run (git would not run it either)";

/// The human rendering of `gate install` without a hook manager: the hooks
/// directory, what became of each hook, and which binary the hooks run.
pub fn hooks_installed(hooks_dir: &Path, hooks: &[(&str, HookInstalled)], binary: &str) -> String {
    use crate::hooks::CHAINED_SUFFIX;
    let mut text = format!("hooks directory: {}\n", hooks_dir.display());
    for (name, installed) in hooks {
        let line = match installed {
            HookInstalled::Legacy {
                tool,
                already: true,
            } => format!("already installed as {name}.legacy, which {tool} runs first"),
            HookInstalled::Legacy {
                tool,
                already: false,
            } => format!("installed as {name}.legacy, which {tool} runs first"),
            HookInstalled::Configured { tool } => {
                format!("run by {tool} (.pre-commit-config.yaml)")
            }
            HookInstalled::Own {
                how,
                chained,
                retired,
            } => {
                let chain = match chained {
                    None => String::new(),
                    Some(true) => format!("; {name}{CHAINED_SUFFIX} runs first"),
                    Some(false) => format!("; {name}{CHAINED_SUFFIX} {NOT_RUN}"),
                };
                let mut line = match how {
                    OwnInstalled::Current => format!("already installed{chain}"),
                    OwnInstalled::Updated => format!("updated{chain}"),
                    OwnInstalled::Installed => format!("installed{chain}"),
                    OwnInstalled::MovedAside if *chained == Some(true) => format!(
                        "installed; your hook is kept as {name}{CHAINED_SUFFIX} and runs first"
                    ),
                    OwnInstalled::MovedAside => format!(
                        "installed; your hook is kept as {name}{CHAINED_SUFFIX}, which {NOT_RUN}"
                    ),
                };
                if *retired {
                    line.push_str(&format!(
                        "; the hook chained before is kept as {name}{CHAINED_SUFFIX}.old and no longer runs (merge it into {name}{CHAINED_SUFFIX} if it should)"
                    ));
                }
                line
            }
        };
        text.push_str(&format!("  {name}: {line}\n"));
    }
    text.push_str(&format!("the hooks run {binary}, else `gate` on PATH\n"));
    text
}

/// What `gate install` did in one husky hook script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HuskyInstalled {
    pub name: &'static str,
    /// The line added to the script; `None` when it was there already.
    pub added: Option<String>,
    /// An earlier `gate install` had replaced husky's stub, and it is back.
    pub stub_restored: bool,
}

/// The human rendering of `gate install` where husky runs the hooks: where
/// gate's lines go, what became of each, and to commit them.
pub fn husky_installed(hooks_dir: &Path, scripts: &Path, hooks: &[HuskyInstalled]) -> String {
    let mut text = format!(
        "husky runs the hooks (core.hooksPath {}): gate's lines go in {}/<hook>\n",
        hooks_dir.display(),
        scripts.display()
    );
    for hook in hooks {
        let name = hook.name;
        let state = match &hook.added {
            None => "already there".to_string(),
            Some(line) => format!("added `{line}`"),
        };
        let repaired = if hook.stub_restored {
            format!("; husky's {name} stub is restored")
        } else {
            String::new()
        };
        text.push_str(&format!("  {name}: {state}{repaired}\n"));
    }
    text.push_str(&format!(
        "the lines run `gate` on PATH; commit {} so the team's hooks run gate too\n",
        scripts.display()
    ));
    text
}

/// The human rendering of `gate install` where lefthook's configuration
/// (`configs`, as shown) already runs every gate hook.
pub fn lefthook_runs(hooks_dir: &Path, configs: &[String], names: &[&str]) -> String {
    let mut text = format!(
        "lefthook runs the hooks ({}): gate's commands are in {}\n",
        hooks_dir.display(),
        configs.join(", ")
    );
    for name in names {
        text.push_str(&format!("  {name}: run by lefthook\n"));
    }
    text
}

/// The human rendering of `gate install`'s refusal where lefthook runs the
/// hooks and its configuration lacks gate's `missing` hooks: what to add,
/// where (`no_config`: there is no lefthook configuration yet), and that a
/// pre-push command without `use_stdin` never reaches gate (`lacks_stdin`).
pub fn lefthook_missing(
    hooks_dir: &Path,
    missing: &[&str],
    no_config: bool,
    lacks_stdin: bool,
) -> String {
    let file = if no_config {
        "lefthook.yml"
    } else {
        "lefthook-local.yml (yours alone) or lefthook.yml (the team's)"
    };
    let stdin = if lacks_stdin {
        "gate's pre-push command there lacks `use_stdin: true`: without it the push's refs never reach gate.\n"
    } else {
        ""
    };
    format!(
        "lefthook runs the hooks ({}), and it renames hooks that are not its own: gate installs none there.\n{stdin}Add to {file}:\n\n{}\nthen run `lefthook install` and `gate install` again.\n",
        hooks_dir.display(),
        lefthook_snippet(missing)
    )
}

/// What lefthook's configuration needs for gate: one command per hook.
pub fn lefthook_snippet(names: &[&str]) -> String {
    let mut text = String::new();
    for name in names {
        let run = match *name {
            "pre-commit" => "gate hook pre-commit".to_string(),
            "pre-push" => "gate hook pre-push {1} {2}\n      use_stdin: true".to_string(),
            "prepare-commit-msg" | "post-checkout" => format!("gate hook {name} {{1}} {{2}} {{3}}"),
            other => format!("gate hook {other}"),
        };
        text.push_str(&format!(
            "{name}:\n  commands:\n    gate:\n      run: {run}\n"
        ));
    }
    text
}

/// The human rendering of `gate install`'s refusal where the pre-commit
/// framework (or prek), `tool`, runs `names` and its configuration does not
/// run gate's: what to add, or `--force`.
pub fn framework_missing(tool: &str, names: &[&str], hooks_dir: &Path) -> String {
    format!(
        "{tool} runs {} here ({}): gate does not move its script.\nAdd gate to .pre-commit-config.yaml:\n\n{}\nthen run `gate install` again; or run `gate install --force` to install gate's hook as <hook>.legacy, which {tool} runs first.\n",
        names.join(", "),
        hooks_dir.display(),
        pre_commit_snippet(names)
    )
}

/// What `.pre-commit-config.yaml` needs for gate's hooks that the pre-commit
/// framework (or prek) runs: `repo: local` entries with the installed gate.
pub fn pre_commit_snippet(names: &[&str]) -> String {
    let mut text = String::from("  - repo: local\n    hooks:\n");
    for name in names {
        text.push_str(&format!(
            "      - id: gate-{name}\n        name: gate {name}\n        entry: gate hook {name}\n        language: system\n        pass_filenames: {}\n        always_run: true\n        stages: [{name}]\n",
            if *name == "prepare-commit-msg" { "true" } else { "false" }
        ));
    }
    text
}

/// What `gate uninstall` did to one hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookRemoved {
    /// gate's hook was not there.
    NotInstalled,
    /// gate's hook is removed.
    Removed,
    /// gate's hook is removed and the hook it chained is back in its place.
    Restored,
    /// The hook is not gate's: left as it is.
    NotGates,
    /// The hook is the framework's: gate's `<hook>.legacy` is removed.
    LegacyRemoved,
    /// gate's line (`line`) is removed from a husky script.
    HuskyLineRemoved {
        line: String,
        script: std::path::PathBuf,
    },
}

/// The human rendering of `gate uninstall`: the hooks directory and what
/// became of each hook.
pub fn hooks_uninstalled(hooks_dir: &Path, hooks: &[(&str, HookRemoved)]) -> String {
    let mut text = format!("hooks directory: {}\n", hooks_dir.display());
    for (name, removed) in hooks {
        let line = match removed {
            HookRemoved::NotInstalled => "not installed".to_string(),
            HookRemoved::Removed => "removed".to_string(),
            HookRemoved::Restored => "removed; your earlier hook is restored".to_string(),
            HookRemoved::NotGates => "not gate's; left as it is".to_string(),
            HookRemoved::LegacyRemoved => format!("not gate's; removed gate's {name}.legacy"),
            HookRemoved::HuskyLineRemoved { line, script } => {
                format!("removed `{line}` from {}", script.display())
            }
        };
        text.push_str(&format!("  {name}: {line}\n"));
    }
    text
}

/// What `gate install|uninstall --agent claude-code` did to Claude Code's
/// settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingsWritten {
    Unchanged,
    Updated,
    /// There was no file.
    Written,
    /// gate's hooks were all it held: the file is gone (and `.claude/`,
    /// when that left it empty).
    Removed,
}

/// The human rendering of `gate install|uninstall --agent claude-code`;
/// after an install that changed the file, how to commit it here.
pub fn settings_written(
    file: &str,
    written: SettingsWritten,
    route: Option<&crate::checks::scope::CommitRoute>,
) -> String {
    let said = match written {
        SettingsWritten::Unchanged => "unchanged",
        SettingsWritten::Updated => "updated",
        SettingsWritten::Written => "written",
        SettingsWritten::Removed => "removed (gate's hooks were all it held)",
    };
    let mut text = format!("{file}: {said}\n");
    if let Some(route) = route
        && matches!(written, SettingsWritten::Updated | SettingsWritten::Written)
    {
        text.push_str(&commit_next(
            file,
            "so Claude Code runs gate's hooks for everyone working here",
            route,
        ));
    }
    text
}
