//! `gate install` and `gate uninstall` (docs/hooks.md).
//!
//! Hooks go into the directory git really uses (`core.hooksPath`, else the
//! common dir's `hooks/`). A hook already there that is not gate's is moved
//! aside to `<name>.gate-chained` (a rename: bytes, mode and symlinks kept)
//! and the gate hook runs it first; uninstall moves it back. Everything is
//! checked before anything is written, and running either verb twice changes
//! nothing the second time.
//!
//! Where a hook manager runs the hooks (husky, lefthook, the pre-commit
//! framework or prek), gate installs the way that tool expects, or refuses
//! with the exact lines to add, and never moves the tool's own scripts
//! (docs/hooks.md, "Hook managers"). A `core.hooksPath` outside the
//! repository is written to only with `--global`.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::cli::{Agent, InstallArgs, UninstallArgs};
use crate::context::{Ctx, out};
use crate::error::Failure;
use crate::fsutil::{self, FsError};
use crate::verdict::ExitCode;
// What an installation looks like is `crate::hooks`, shared with `gate doctor`;
// its items are re-exported here, where they were first.
pub use crate::hooks::{
    FRAMEWORK_HOOKS, HOOKS, MARKER, Manager, configured, framework_script,
    hooks_dir_is_the_repository_s, husky_line, is_gate_hook, lefthook_configured,
    lefthook_passes_stdin, manager, pre_commit_configs, with_suffix,
};

const CHAINED_SUFFIX: &str = ".gate-chained";

/// What sits at a hook's path.
enum Existing {
    Absent,
    /// gate's hook: its bytes, and whether it is executable.
    Gate(Vec<u8>, bool),
    Foreign,
}

fn existing(path: &Path) -> Result<Existing, FsError> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Existing::Absent),
        Err(e) => Err(FsError::new(path, "inspect", e)),
        Ok(meta) if meta.file_type().is_symlink() || !meta.is_file() => Ok(Existing::Foreign),
        // Guarded (`fsutil`): a file swapped for a FIFO since the look is
        // not waited on, nor a huge one read whole; neither is gate's.
        Ok(_) => match fsutil::read_file(path, fsutil::Kind::HOOK) {
            Ok(Some(bytes)) if is_gate_hook(&bytes) => Ok(Existing::Gate(bytes, runs(path))),
            Ok(Some(_)) => Ok(Existing::Foreign),
            Ok(None) => Ok(Existing::Absent),
            Err(fsutil::ReadError::Io { path, source }) => Err(FsError::new(&path, "read", source)),
            Err(_) => Ok(Existing::Foreign),
        },
    }
}

/// Why a kept hook is silent: the scripts run it only when `[ -x ]` holds.
const NOT_RUN: &str = "is not executable, so it does not run (git would not run it either)";

/// Whether a chained hook runs: like git, the scripts run a hook only when
/// it is executable (`[ -x ]`, following a symlink; a dangling one never runs).
fn runs(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

fn exists(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}

/// Quote a string for a single-quoted POSIX sh literal.
fn sh_single_quoted_body(s: &str) -> String {
    s.replace('\'', r"'\''")
}

/// The hook script for `template` recording `binary`.
pub fn render_hook(template: &str, binary: &str) -> String {
    template.replace("@GATE_BIN@", &sh_single_quoted_body(binary))
}

fn chained_path(hook: &Path) -> PathBuf {
    with_suffix(hook, CHAINED_SUFFIX)
}

fn binary_path(args: &InstallArgs) -> Result<String, Failure> {
    let path = match &args.binary {
        Some(p) => p.clone(),
        None => std::env::current_exe()
            .map_err(|e| Failure::unknown(format!("cannot find the running gate binary: {e}")))?,
    };
    let path = fs::canonicalize(&path).map_err(|e| {
        Failure::refused(format!("{}: {e}", path.display()))
            .hint("pass --binary PATH to an existing gate")
    })?;
    path.to_str().map(str::to_string).ok_or_else(|| {
        Failure::refused(format!(
            "{}: the binary's path is not UTF-8",
            path.display()
        ))
    })
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

fn refuse_global(hooks_dir: &Path) -> Failure {
    Failure::refused(format!(
        "core.hooksPath is {}, outside this repository: hooks there run for every repository that uses that directory",
        hooks_dir.display()
    ))
    .hint("pass --global to install there (the hooks stay silent in repositories without .gate/), or unset it: `git config --unset-all core.hooksPath` (and --global)")
}

pub fn install(dir: Option<&Path>, args: &InstallArgs) -> Result<ExitCode, Failure> {
    let ctx = Ctx::open(dir)?;
    if let Some(Agent::ClaudeCode) = args.agent {
        let binary = match &args.binary {
            Some(path) => path.to_str().map(str::to_string).ok_or_else(|| {
                Failure::usage(format!("{}: the path is not UTF-8", path.display()))
            })?,
            // Found on PATH: the settings file is shared (docs/agents.md).
            None => "gate".to_string(),
        };
        return claude_settings(&ctx, |settings| {
            crate::agent_hooks::with_gate_hooks(settings, &binary)
        });
    }
    let hooks_dir = ctx.repo.hooks_dir()?;
    let binary = binary_path(args)?;
    if !args.global && !hooks_dir_is_the_repository_s(&ctx, &hooks_dir) {
        return Err(refuse_global(&hooks_dir));
    }
    let managed = if args.global {
        None
    } else {
        manager(ctx.root(), &hooks_dir)
    };
    match managed {
        Some(Manager::Husky { scripts }) => install_husky(&hooks_dir, &scripts),
        Some(Manager::Lefthook { configs }) => install_lefthook(ctx.root(), &hooks_dir, &configs),
        None => install_hooks(ctx.root(), &hooks_dir, &binary, args.force),
    }
}

/// husky 9: a line in `.husky/<name>` for each hook, the way husky's own
/// hooks are written; gate's scripts in `.husky/_` (an older install's) give
/// way to husky's stubs again.
fn install_husky(hooks_dir: &Path, scripts: &Path) -> Result<ExitCode, Failure> {
    let mut text = format!(
        "husky runs the hooks (core.hooksPath {}): gate's lines go in {}/<hook>\n",
        hooks_dir.display(),
        scripts.display()
    );
    for (name, _) in HOOKS {
        let stub = hooks_dir.join(name);
        let chained = chained_path(&stub);
        let mut repaired = String::new();
        if let Existing::Gate(..) = existing(&stub)? {
            // An earlier `gate install` replaced husky's stub: put it back.
            if exists(&chained) {
                fs::rename(&chained, &stub).map_err(|e| FsError::new(&chained, "restore", e))?;
            } else {
                fsutil::write_atomic(&stub, HUSKY_STUB.as_bytes(), Some(0o755))?;
            }
            repaired = format!("; husky's {name} stub is restored");
        }
        let script = scripts.join(name);
        let line = husky_line(name);
        let current = match fsutil::read_file(&script, fsutil::Kind::HOOK) {
            Ok(found) => found,
            Err(e) => return Err(Failure::unknown(e.to_string())),
        };
        let state = match current {
            Some(bytes) if has_line(&bytes, &line) => "already there".to_string(),
            found => {
                let mut bytes = found.unwrap_or_default();
                if !bytes.is_empty() && !bytes.ends_with(b"\n") {
                    bytes.push(b'\n');
                }
                bytes.extend_from_slice(line.as_bytes());
                bytes.push(b'\n');
                fsutil::write_atomic(&script, &bytes, None)?;
                format!("added `{line}`")
            }
        };
        text.push_str(&format!("  {name}: {state}{repaired}\n"));
    }
    text.push_str(&format!(
        "the lines run `gate` on PATH; commit {} so the team's hooks run gate too\n",
        scripts.display()
    ));
    out(&text);
    Ok(ExitCode::Pass)
}

/// husky 9's stub for a hook (husky's index.js writes the same).
const HUSKY_STUB: &str = "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"";

fn has_line(bytes: &[u8], line: &str) -> bool {
    String::from_utf8_lossy(bytes)
        .lines()
        .any(|l| l.trim() == line)
}

/// lefthook: its configuration must run gate's hooks; gate writes nothing
/// (lefthook rewrites the hooks directory, renaming what is not its own).
fn install_lefthook(
    root: &Path,
    hooks_dir: &Path,
    configs: &[PathBuf],
) -> Result<ExitCode, Failure> {
    let shown: Vec<String> = configs
        .iter()
        .map(|c| c.strip_prefix(root).unwrap_or(c).display().to_string())
        .collect();
    let missing: Vec<&str> = HOOKS
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| !lefthook_configured(configs, name))
        .collect();
    if missing.is_empty() {
        let mut text = format!(
            "lefthook runs the hooks ({}): gate's commands are in {}\n",
            hooks_dir.display(),
            shown.join(", ")
        );
        for (name, _) in HOOKS {
            text.push_str(&format!("  {name}: run by lefthook\n"));
        }
        out(&text);
        return Ok(ExitCode::Pass);
    }
    let file = if configs.is_empty() {
        "lefthook.yml".to_string()
    } else {
        "lefthook-local.yml (yours alone) or lefthook.yml (the team's)".to_string()
    };
    let stdin = if configured(configs, "pre-push") && !lefthook_passes_stdin(configs) {
        "gate's pre-push command there lacks `use_stdin: true`: without it the push's refs never reach gate.\n"
    } else {
        ""
    };
    out(&format!(
        "lefthook runs the hooks ({}), and it renames hooks that are not its own: gate installs none there.\n{stdin}Add to {file}:\n\n{}\nthen run `lefthook install` and `gate install` again.\n",
        hooks_dir.display(),
        lefthook_snippet(&missing)
    ));
    Ok(ExitCode::Refused)
}

/// gate's own scripts in the hooks directory, chaining what was there.
fn install_hooks(
    root: &Path,
    hooks_dir: &Path,
    binary: &str,
    force: bool,
) -> Result<ExitCode, Failure> {
    // Look first, write after: a conflict leaves everything as it was.
    let mut plans = Vec::new();
    let mut framework: Vec<(&str, &str)> = Vec::new();
    for (name, template) in HOOKS {
        let path = hooks_dir.join(name);
        let chained = chained_path(&path);
        let script = render_hook(template, binary);
        // The pre-commit framework or prek: their script runs `<name>.legacy`
        // first ("migration mode"), and gate's may be that one.
        if let Ok(Some(bytes)) = fsutil::read_file(&path, fsutil::Kind::HOOK)
            && let Some(tool) = framework_script(&bytes)
        {
            let legacy = legacy_path(&path);
            let configs = pre_commit_configs(root);
            // The framework passes git's arguments and stdin on to hooks of
            // its configuration only for these two: gate's pre-push and
            // post-checkout take the legacy slot (.pre-commit-hooks.yaml).
            let offered = FRAMEWORK_HOOKS.contains(&name);
            match existing(&legacy)? {
                Existing::Gate(..) => plans.push(Plan::Legacy(name, legacy, tool, script)),
                Existing::Absent if force || !offered => {
                    plans.push(Plan::Legacy(name, legacy, tool, script))
                }
                _ if offered && configured(&configs, name) => {
                    plans.push(Plan::Configured(name, tool))
                }
                _ if offered => framework.push((name, tool)),
                _ => {
                    return Err(Failure::refused(format!(
                        "{tool} runs {name} here, and {} is not gate's",
                        legacy.display()
                    ))
                    .hint(format!(
                        "merge {name}.legacy into a hook of {tool}'s configuration, remove it, then run `gate install` again"
                    )));
                }
            }
            continue;
        }
        let state = existing(&path)?;
        let mut retire = None;
        if matches!(state, Existing::Foreign) && exists(&chained) {
            let old = with_suffix(&chained, ".old");
            if !force || exists(&old) {
                return Err(Failure::refused(format!(
                    "{} is not gate's, and {} already holds a chained hook",
                    path.display(),
                    chained.display()
                ))
                .hint(if force {
                    "merge the hooks into one (or remove one), then run `gate install` again"
                } else {
                    "another tool replaced gate's hook: `gate install --force` chains the new one and keeps the older as <name>.gate-chained.old, or merge the two hooks into one"
                }));
            }
            retire = Some(old);
        }
        plans.push(Plan::Own {
            name,
            path,
            chained,
            state,
            script,
            retire,
        });
    }
    if !framework.is_empty() {
        let names: Vec<&str> = framework.iter().map(|(n, _)| *n).collect();
        let tool = framework[0].1;
        out(&format!(
            "{tool} runs {} here ({}): gate does not move its script.\nAdd gate to .pre-commit-config.yaml:\n\n{}\nthen run `gate install` again; or run `gate install --force` to install gate's hook as <hook>.legacy, which {tool} runs first.\n",
            names.join(", "),
            hooks_dir.display(),
            pre_commit_snippet(&names)
        ));
        return Ok(ExitCode::Refused);
    }
    fs::create_dir_all(hooks_dir).map_err(|e| FsError::new(hooks_dir, "create directory", e))?;
    let mut text = format!("hooks directory: {}\n", hooks_dir.display());
    for plan in plans {
        let (name, line) = match plan {
            Plan::Legacy(name, legacy, tool, script) => {
                let line = match existing(&legacy)? {
                    Existing::Gate(bytes, true) if bytes == script.as_bytes() => {
                        format!("already installed as {name}.legacy, which {tool} runs first")
                    }
                    _ => {
                        fsutil::write_atomic(&legacy, script.as_bytes(), Some(0o755))?;
                        format!("installed as {name}.legacy, which {tool} runs first")
                    }
                };
                (name, line)
            }
            Plan::Configured(name, tool) => {
                (name, format!("run by {tool} (.pre-commit-config.yaml)"))
            }
            Plan::Own {
                name,
                path,
                chained,
                state,
                script,
                retire,
            } => {
                let mut retired = String::new();
                if let Some(old) = &retire {
                    fs::rename(&chained, old)
                        .map_err(|e| FsError::new(&chained, "move aside", e))?;
                    retired = format!(
                        "; the hook chained before is kept as {name}{CHAINED_SUFFIX}.old and no longer runs (merge it into {name}{CHAINED_SUFFIX} if it should)"
                    );
                }
                (name, own(name, &path, &chained, state, &script)? + &retired)
            }
        };
        text.push_str(&format!("  {name}: {line}\n"));
    }
    text.push_str(&format!("the hooks run {binary}, else `gate` on PATH\n"));
    out(&text);
    Ok(ExitCode::Pass)
}

/// What install does for one hook.
enum Plan {
    /// gate's script in the hooks directory itself.
    Own {
        name: &'static str,
        path: PathBuf,
        chained: PathBuf,
        state: Existing,
        script: String,
        /// Where an older chained hook goes (`--force`).
        retire: Option<PathBuf>,
    },
    /// gate's script as `<name>.legacy`, which the framework's runs first.
    Legacy(&'static str, PathBuf, &'static str, String),
    /// The framework's configuration already runs gate's hook.
    Configured(&'static str, &'static str),
}

/// Write gate's script for one hook; the line install prints for it.
fn own(
    name: &str,
    path: &Path,
    chained: &Path,
    state: Existing,
    script: &str,
) -> Result<String, Failure> {
    // What the gate hook will do with the chained one, if there is one.
    let chain = || -> String {
        if !exists(chained) {
            String::new()
        } else if runs(chained) {
            format!("; {name}{CHAINED_SUFFIX} runs first")
        } else {
            format!("; {name}{CHAINED_SUFFIX} {NOT_RUN}")
        }
    };
    Ok(match state {
        Existing::Gate(bytes, true) if bytes == script.as_bytes() => {
            format!("already installed{}", chain())
        }
        Existing::Gate(..) => {
            fsutil::write_atomic(path, script.as_bytes(), Some(0o755))?;
            format!("updated{}", chain())
        }
        Existing::Absent => {
            fsutil::write_atomic(path, script.as_bytes(), Some(0o755))?;
            format!("installed{}", chain())
        }
        Existing::Foreign => {
            fs::rename(path, chained).map_err(|e| FsError::new(path, "move aside", e))?;
            fsutil::write_atomic(path, script.as_bytes(), Some(0o755))?;
            if runs(chained) {
                format!("installed; your hook is kept as {name}{CHAINED_SUFFIX} and runs first")
            } else {
                format!("installed; your hook is kept as {name}{CHAINED_SUFFIX}, which {NOT_RUN}")
            }
        }
    })
}

/// The pre-commit framework's (and prek's) slot for the hook it replaced.
fn legacy_path(hook: &Path) -> PathBuf {
    with_suffix(hook, ".legacy")
}

pub fn uninstall(dir: Option<&Path>, args: &UninstallArgs) -> Result<ExitCode, Failure> {
    let ctx = Ctx::open(dir)?;
    if let Some(Agent::ClaudeCode) = args.agent {
        return claude_settings(&ctx, |settings| {
            Ok(settings.map_or(
                serde_json::Value::Null,
                crate::agent_hooks::without_gate_hooks,
            ))
        });
    }
    let hooks_dir = ctx.repo.hooks_dir()?;
    let mut text = format!("hooks directory: {}\n", hooks_dir.display());
    if let Some(Manager::Husky { scripts }) = manager(ctx.root(), &hooks_dir) {
        for (name, _) in HOOKS {
            let script = scripts.join(name);
            let line = husky_line(name);
            let state = match fsutil::read_file(&script, fsutil::Kind::HOOK) {
                Ok(Some(bytes)) if has_line(&bytes, &line) => {
                    let kept: Vec<&str> = std::str::from_utf8(&bytes)
                        .unwrap_or_default()
                        .lines()
                        .filter(|l| l.trim() != line)
                        .collect();
                    if kept.iter().all(|l| l.trim().is_empty()) {
                        fsutil::remove_optional(&script)?;
                    } else {
                        fsutil::write_atomic(&script, (kept.join("\n") + "\n").as_bytes(), None)?;
                    }
                    format!("removed `{line}` from {}", script.display())
                }
                Ok(_) => "not installed".to_string(),
                Err(e) => return Err(Failure::unknown(e.to_string())),
            };
            text.push_str(&format!("  {name}: {state}\n"));
        }
        out(&text);
        return Ok(ExitCode::Pass);
    }
    for (name, _) in HOOKS {
        let path = hooks_dir.join(name);
        let chained = chained_path(&path);
        let legacy = legacy_path(&path);
        let line = match existing(&path)? {
            Existing::Foreign => {
                if let Existing::Gate(..) = existing(&legacy)? {
                    fsutil::remove_optional(&legacy)?;
                    format!("not gate's; removed gate's {name}.legacy")
                } else {
                    "not gate's; left as it is".to_string()
                }
            }
            state => {
                if matches!(state, Existing::Gate(..)) {
                    fsutil::remove_optional(&path)?;
                }
                if exists(&chained) {
                    fs::rename(&chained, &path)
                        .map_err(|e| FsError::new(&chained, "restore", e))?;
                    "removed; your earlier hook is restored".to_string()
                } else if matches!(state, Existing::Gate(..)) {
                    "removed".to_string()
                } else {
                    "not installed".to_string()
                }
            }
        };
        text.push_str(&format!("  {name}: {line}\n"));
    }
    out(&text);
    Ok(ExitCode::Pass)
}

/// Where Claude Code reads a project's shared settings.
const CLAUDE_SETTINGS: &str = ".claude/settings.json";

/// Rewrite `.claude/settings.json` with `change` (given the parsed file,
/// `None` when absent; `Null` back means "leave it absent"): atomically,
/// and only when it changes anything. A file that is not JSON is refused,
/// never overwritten (docs/agents.md).
fn claude_settings(
    ctx: &Ctx,
    change: impl FnOnce(Option<serde_json::Value>) -> Result<serde_json::Value, String>,
) -> Result<ExitCode, Failure> {
    let rel = Path::new(CLAUDE_SETTINGS);
    let kind = fsutil::Kind {
        what: "Claude Code's settings",
        max: 1 << 20,
    };
    let refuse = |why: String| {
        Failure::refused(format!("{CLAUDE_SETTINGS}: {why}"))
            .hint("fix the file (Claude Code's settings are one JSON object), then run this again")
    };
    let bytes = fsutil::read_within(ctx.root(), rel, kind).map_err(|e| refuse(e.to_string()))?;
    let before = match &bytes {
        Some(b) => Some(
            serde_json::from_slice::<serde_json::Value>(b)
                .map_err(|e| refuse(format!("not JSON ({e})")))?,
        ),
        None => None,
    };
    let after = change(before.clone()).map_err(refuse)?;
    if after.is_null() || Some(&after) == before.as_ref() {
        out(&format!("{CLAUDE_SETTINGS}: unchanged\n"));
        return Ok(ExitCode::Pass);
    }
    let mut text = serde_json::to_string_pretty(&after).expect("a JSON value always serialises");
    text.push('\n');
    fsutil::write_within(
        ctx.root(),
        rel,
        text.as_bytes(),
        None,
        Some(&ctx.state_dir().join("tmp")),
    )?;
    out(&format!(
        "{CLAUDE_SETTINGS}: {}\n",
        if bytes.is_some() {
            "updated"
        } else {
            "written"
        }
    ));
    Ok(ExitCode::Pass)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_posix_sh_with_lf_and_marker() {
        for (name, t) in HOOKS {
            assert!(t.starts_with("#!/bin/sh\n"), "{name}");
            assert!(!t.contains('\r'), "{name} has CR");
            assert!(is_gate_hook(t.as_bytes()), "{name}");
            assert!(t.contains("@GATE_BIN@"), "{name}");
        }
    }

    #[test]
    fn recorded_path_is_quoted_for_sh() {
        let s = render_hook("x='@GATE_BIN@'", "/opt/it's here/gate");
        assert_eq!(s, r"x='/opt/it'\''s here/gate'");
    }
}
