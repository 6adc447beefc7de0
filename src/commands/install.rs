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
use crate::ctx::Ctx;
use crate::error::Failure;
use crate::fsutil::{self, FsError};
use crate::hooks::CHAINED_SUFFIX;
use crate::report::human::{
    self, HookInstalled, HookRemoved, HuskyInstalled, OwnInstalled, SettingsWritten,
};
use crate::ui::Answer;
use crate::verdict::ExitCode;
// What an installation looks like is `crate::hooks`, shared with `gate doctor`;
// its items are re-exported here, where they were first.
pub use crate::hooks::{
    FRAMEWORK_HOOKS, HOOKS, MARKER, Manager, configured, framework_script,
    hooks_dir_is_the_repository_s, husky_line, is_gate_hook, lefthook_configured,
    lefthook_passes_stdin, manager, pre_commit_configs, with_suffix,
};

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

/// Whether a chained hook runs: like git, the scripts run a hook only when
/// it is executable (`[ -x ]`, following a symlink; a dangling one never runs).
fn runs(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| crate::platform::is_executable(&m))
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
    let path = crate::platform::canonicalize(&path).map_err(|e| {
        Failure::refused(format!("{}: {e}", path.display()))
            .hint("pass --binary PATH to an existing gate")
    })?;
    path.to_str()
        .map(|p| crate::platform::path_for_sh(p).into_owned())
        .ok_or_else(|| {
            Failure::refused(format!(
                "{}: the binary's path is not UTF-8",
                path.display()
            ))
        })
}

fn refuse_global(hooks_dir: &Path) -> Failure {
    Failure::refused(format!(
        "core.hooksPath is {}, outside this repository: hooks there run for every repository that uses that directory",
        hooks_dir.display()
    ))
    .hint("pass --global to install there (the hooks stay silent in repositories without .gate/), or unset it: `git config --unset-all core.hooksPath` (and --global)")
}

pub fn install(dir: Option<&Path>, args: &InstallArgs) -> Result<Answer, Failure> {
    let ctx = Ctx::open(dir)?;
    if let Some(agent) = args.agent {
        let binary = match &args.binary {
            Some(path) => path.to_str().map(str::to_string).ok_or_else(|| {
                Failure::usage(format!("{}: the path is not UTF-8", path.display()))
            })?,
            // Found on PATH: the settings file is shared (docs/agents.md).
            None => "gate".to_string(),
        };
        return agent_settings(&ctx, agent, true, |settings| {
            crate::agent_hooks::Host::from(agent).with_gate_hooks(settings, &binary)
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
fn install_husky(hooks_dir: &Path, scripts: &Path) -> Result<Answer, Failure> {
    let mut done = Vec::new();
    for (name, _) in HOOKS {
        let stub = hooks_dir.join(name);
        let chained = chained_path(&stub);
        let mut stub_restored = false;
        if let Existing::Gate(..) = existing(&stub)? {
            // An earlier `gate install` replaced husky's stub: put it back.
            if exists(&chained) {
                fs::rename(&chained, &stub).map_err(|e| FsError::new(&chained, "restore", e))?;
            } else {
                fsutil::write_atomic(&stub, HUSKY_STUB.as_bytes(), Some(0o755))?;
            }
            stub_restored = true;
        }
        let script = scripts.join(name);
        let line = husky_line(name);
        let current = match fsutil::read_file(&script, fsutil::Kind::HOOK) {
            Ok(found) => found,
            Err(e) => return Err(Failure::unknown(e.to_string())),
        };
        let added = match current {
            Some(bytes) if has_line(&bytes, &line) => None,
            found => {
                let mut bytes = found.unwrap_or_default();
                if !bytes.is_empty() && !bytes.ends_with(b"\n") {
                    bytes.push(b'\n');
                }
                bytes.extend_from_slice(line.as_bytes());
                bytes.push(b'\n');
                fsutil::write_atomic(&script, &bytes, None)?;
                Some(line)
            }
        };
        done.push(HuskyInstalled {
            name,
            added,
            stub_restored,
        });
    }
    Ok(Answer::text(
        ExitCode::Pass,
        human::husky_installed(hooks_dir, scripts, &done),
    ))
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
fn install_lefthook(root: &Path, hooks_dir: &Path, configs: &[PathBuf]) -> Result<Answer, Failure> {
    let shown: Vec<String> = configs
        .iter()
        .map(|c| c.strip_prefix(root).unwrap_or(c).display().to_string())
        .collect();
    // lefthook's own reading when it can answer (extends, remotes).
    let dump = crate::hooks::lefthook_dump(root);
    let missing: Vec<&str> = HOOKS
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| !lefthook_configured(dump.as_ref(), configs, name))
        .collect();
    if missing.is_empty() {
        let names: Vec<&str> = HOOKS.iter().map(|(name, _)| *name).collect();
        return Ok(Answer::text(
            ExitCode::Pass,
            human::lefthook_runs(hooks_dir, &shown, &names),
        ));
    }
    let lacks_stdin = crate::hooks::lefthook_runs_gate(dump.as_ref(), configs, "pre-push")
        && !lefthook_configured(dump.as_ref(), configs, "pre-push");
    Ok(Answer::text(
        ExitCode::Refused,
        human::lefthook_missing(hooks_dir, &missing, configs.is_empty(), lacks_stdin),
    ))
}

/// gate's own scripts in the hooks directory, chaining what was there.
fn install_hooks(
    root: &Path,
    hooks_dir: &Path,
    binary: &str,
    force: bool,
) -> Result<Answer, Failure> {
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
        return Ok(Answer::text(
            ExitCode::Refused,
            human::framework_missing(tool, &names, hooks_dir),
        ));
    }
    fs::create_dir_all(hooks_dir).map_err(|e| FsError::new(hooks_dir, "create directory", e))?;
    let mut done = Vec::new();
    for plan in plans {
        let (name, installed) = match plan {
            Plan::Legacy(name, legacy, tool, script) => {
                let already = match existing(&legacy)? {
                    Existing::Gate(bytes, true) if bytes == script.as_bytes() => true,
                    _ => {
                        fsutil::write_atomic(&legacy, script.as_bytes(), Some(0o755))?;
                        false
                    }
                };
                (name, HookInstalled::Legacy { tool, already })
            }
            Plan::Configured(name, tool) => (name, HookInstalled::Configured { tool }),
            Plan::Own {
                name,
                path,
                chained,
                state,
                script,
                retire,
            } => {
                if let Some(old) = &retire {
                    fs::rename(&chained, old)
                        .map_err(|e| FsError::new(&chained, "move aside", e))?;
                }
                let how = own(&path, &chained, state, &script)?;
                // What the gate hook will do with the chained one, if there is one.
                let chained = exists(&chained).then(|| runs(&chained));
                let retired = retire.is_some();
                (
                    name,
                    HookInstalled::Own {
                        how,
                        chained,
                        retired,
                    },
                )
            }
        };
        done.push((name, installed));
    }
    Ok(Answer::text(
        ExitCode::Pass,
        human::hooks_installed(hooks_dir, &done, binary),
    ))
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

/// Write gate's script for one hook; what became of it.
fn own(
    path: &Path,
    chained: &Path,
    state: Existing,
    script: &str,
) -> Result<OwnInstalled, Failure> {
    Ok(match state {
        Existing::Gate(bytes, true) if bytes == script.as_bytes() => OwnInstalled::Current,
        Existing::Gate(..) => {
            fsutil::write_atomic(path, script.as_bytes(), Some(0o755))?;
            OwnInstalled::Updated
        }
        Existing::Absent => {
            fsutil::write_atomic(path, script.as_bytes(), Some(0o755))?;
            OwnInstalled::Installed
        }
        Existing::Foreign => {
            fs::rename(path, chained).map_err(|e| FsError::new(path, "move aside", e))?;
            fsutil::write_atomic(path, script.as_bytes(), Some(0o755))?;
            OwnInstalled::MovedAside
        }
    })
}

/// The pre-commit framework's (and prek's) slot for the hook it replaced.
fn legacy_path(hook: &Path) -> PathBuf {
    with_suffix(hook, ".legacy")
}

pub fn uninstall(dir: Option<&Path>, args: &UninstallArgs) -> Result<Answer, Failure> {
    let ctx = Ctx::open(dir)?;
    if let Some(agent) = args.agent {
        return agent_settings(&ctx, agent, false, |settings| {
            Ok(settings.map_or(serde_json::Value::Null, |s| {
                crate::agent_hooks::Host::from(agent).without_gate_hooks(s)
            }))
        });
    }
    let hooks_dir = ctx.repo.hooks_dir()?;
    let mut done = Vec::new();
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
                    HookRemoved::HuskyLineRemoved { line, script }
                }
                Ok(_) => HookRemoved::NotInstalled,
                Err(e) => return Err(Failure::unknown(e.to_string())),
            };
            done.push((name, state));
        }
        return Ok(Answer::text(
            ExitCode::Pass,
            human::hooks_uninstalled(&hooks_dir, &done),
        ));
    }
    for (name, _) in HOOKS {
        let path = hooks_dir.join(name);
        let chained = chained_path(&path);
        let legacy = legacy_path(&path);
        let removed = match existing(&path)? {
            Existing::Foreign => {
                if let Existing::Gate(..) = existing(&legacy)? {
                    fsutil::remove_optional(&legacy)?;
                    HookRemoved::LegacyRemoved
                } else {
                    HookRemoved::NotGates
                }
            }
            state => {
                if matches!(state, Existing::Gate(..)) {
                    fsutil::remove_optional(&path)?;
                }
                if exists(&chained) {
                    fs::rename(&chained, &path)
                        .map_err(|e| FsError::new(&chained, "restore", e))?;
                    HookRemoved::Restored
                } else if matches!(state, Existing::Gate(..)) {
                    HookRemoved::Removed
                } else {
                    HookRemoved::NotInstalled
                }
            }
        };
        done.push((name, removed));
    }
    Ok(Answer::text(
        ExitCode::Pass,
        human::hooks_uninstalled(&hooks_dir, &done),
    ))
}

/// Rewrite the file `agent` reads its hooks from (`.claude/settings.json`
/// for Claude Code) with `change` (given the parsed file, `None` when
/// absent; `Null` back means "leave it absent"): atomically, and only when
/// it changes anything. A file that is not JSON is refused, never
/// overwritten (docs/agents.md). A change that leaves an empty object
/// where there was more (gate's hooks were all it held) removes the file,
/// and its directory when that leaves it empty. With `route`, the output
/// says how to commit the file it wrote.
fn agent_settings(
    ctx: &Ctx,
    agent: Agent,
    route: bool,
    change: impl FnOnce(Option<serde_json::Value>) -> Result<serde_json::Value, String>,
) -> Result<Answer, Failure> {
    let host = crate::agent_hooks::Host::from(agent);
    let shown = host.config();
    let rel = Path::new(shown);
    let kind = fsutil::Kind {
        what: host.config_named(),
        max: 1 << 20,
    };
    let refuse = |why: String| {
        Failure::refused(format!("{shown}: {why}")).hint(format!(
            "fix the file ({} are one JSON object), then run this again",
            host.config_named()
        ))
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
        return Ok(Answer::text(
            ExitCode::Pass,
            human::settings_written(shown, SettingsWritten::Unchanged, None),
        ));
    }
    if after.as_object().is_some_and(serde_json::Map::is_empty) {
        // Read through no link below the root (read_within above), so this
        // is the file that was read.
        fsutil::remove_optional(&ctx.root().join(rel))?;
        // Only an empty directory goes; anything else in it stays.
        if let Some(dir) = rel.parent() {
            let _ = std::fs::remove_dir(ctx.root().join(dir));
        }
        return Ok(Answer::text(
            ExitCode::Pass,
            human::settings_written(shown, SettingsWritten::Removed, None),
        ));
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
    let route = route
        .then(|| crate::checks::scope::commit_route(ctx, &[crate::path::RepoPath::from(shown)]));
    Ok(Answer::text(
        ExitCode::Pass,
        human::settings_written(
            shown,
            if bytes.is_some() {
                SettingsWritten::Updated
            } else {
                SettingsWritten::Written
            },
            route.as_ref(),
        ),
    ))
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
