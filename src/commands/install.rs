//! `gate install` and `gate uninstall` (SPEC §5).
//!
//! Hooks go into the directory git really uses (`core.hooksPath`, else the
//! common dir's `hooks/`). A hook already there that is not gate's is moved
//! aside to `<name>.gate-chained` (a rename: bytes, mode and symlinks kept)
//! and the gate hook runs it first; uninstall moves it back. Everything is
//! checked before anything is written, and running either verb twice changes
//! nothing the second time.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::{Ctx, Failure, out};
use crate::cli::InstallArgs;
use crate::fsutil::{self, FsError};

/// The hooks gate manages and their templates (POSIX sh, LF endings).
pub const HOOKS: [(&str, &str); 4] = [
    ("pre-commit", include_str!("../../hooks/pre-commit")),
    (
        "prepare-commit-msg",
        include_str!("../../hooks/prepare-commit-msg"),
    ),
    ("pre-push", include_str!("../../hooks/pre-push")),
    ("post-checkout", include_str!("../../hooks/post-checkout")),
];

/// The line that marks a hook as gate's.
pub const MARKER: &str = "# gate-managed-hook";

const CHAINED_SUFFIX: &str = ".gate-chained";

/// What sits at a hook's path.
enum Existing {
    Absent,
    Gate(Vec<u8>),
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
            Ok(Some(bytes)) if is_gate_hook(&bytes) => Ok(Existing::Gate(bytes)),
            Ok(Some(_)) => Ok(Existing::Foreign),
            Ok(None) => Ok(Existing::Absent),
            Err(fsutil::ReadError::Io { path, source }) => Err(FsError::new(&path, "read", source)),
            Err(_) => Ok(Existing::Foreign),
        },
    }
}

/// Whether a hook file is one gate wrote (its marker is among the first lines).
pub fn is_gate_hook(bytes: &[u8]) -> bool {
    bytes
        .split(|&b| b == b'\n')
        .take(3)
        .any(|l| l.starts_with(MARKER.as_bytes()))
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
    let mut name = hook
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(CHAINED_SUFFIX);
    hook.with_file_name(name)
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

pub fn install(dir: Option<&Path>, args: &InstallArgs) -> Result<i32, Failure> {
    let ctx = Ctx::open(dir)?;
    let hooks_dir = ctx.repo.hooks_dir()?;
    let binary = binary_path(args)?;
    // Look first, write after: a conflict leaves everything as it was.
    let mut plans = Vec::new();
    for (name, template) in HOOKS {
        let path = hooks_dir.join(name);
        let chained = chained_path(&path);
        let state = existing(&path)?;
        if matches!(state, Existing::Foreign) && exists(&chained) {
            return Err(Failure::refused(format!(
                "{} is not gate's, and {} already holds a chained hook",
                path.display(),
                chained.display()
            ))
            .hint("merge the two hooks into one (or remove one), then run `gate install` again"));
        }
        plans.push((name, path, chained, state, render_hook(template, &binary)));
    }
    fs::create_dir_all(&hooks_dir).map_err(|e| FsError::new(&hooks_dir, "create directory", e))?;
    let mut text = format!("hooks directory: {}\n", hooks_dir.display());
    for (name, path, chained, state, script) in plans {
        // What the gate hook will do with the chained one, if there is one.
        let chain = || -> String {
            if !exists(&chained) {
                String::new()
            } else if runs(&chained) {
                format!("; {name}{CHAINED_SUFFIX} runs first")
            } else {
                format!("; {name}{CHAINED_SUFFIX} {NOT_RUN}")
            }
        };
        let line = match state {
            Existing::Gate(bytes) if bytes == script.as_bytes() => {
                format!("already installed{}", chain())
            }
            Existing::Gate(_) => {
                fsutil::write_atomic(&path, script.as_bytes(), Some(0o755))?;
                format!("updated{}", chain())
            }
            Existing::Absent => {
                fsutil::write_atomic(&path, script.as_bytes(), Some(0o755))?;
                format!("installed{}", chain())
            }
            Existing::Foreign => {
                fs::rename(&path, &chained).map_err(|e| FsError::new(&path, "move aside", e))?;
                fsutil::write_atomic(&path, script.as_bytes(), Some(0o755))?;
                if runs(&chained) {
                    format!("installed; your hook is kept as {name}{CHAINED_SUFFIX} and runs first")
                } else {
                    format!(
                        "installed; your hook is kept as {name}{CHAINED_SUFFIX}, which {NOT_RUN}"
                    )
                }
            }
        };
        text.push_str(&format!("  {name}: {line}\n"));
    }
    text.push_str(&format!("the hooks run {binary}, else `gate` on PATH\n"));
    out(&text);
    Ok(0)
}

pub fn uninstall(dir: Option<&Path>) -> Result<i32, Failure> {
    let ctx = Ctx::open(dir)?;
    let hooks_dir = ctx.repo.hooks_dir()?;
    let mut text = format!("hooks directory: {}\n", hooks_dir.display());
    for (name, _) in HOOKS {
        let path = hooks_dir.join(name);
        let chained = chained_path(&path);
        let line = match existing(&path)? {
            Existing::Foreign => "not gate's; left as it is".to_string(),
            state => {
                if matches!(state, Existing::Gate(_)) {
                    fsutil::remove_optional(&path)?;
                }
                if exists(&chained) {
                    fs::rename(&chained, &path)
                        .map_err(|e| FsError::new(&chained, "restore", e))?;
                    "removed; your earlier hook is restored".to_string()
                } else if matches!(state, Existing::Gate(_)) {
                    "removed".to_string()
                } else {
                    "not installed".to_string()
                }
            }
        };
        text.push_str(&format!("  {name}: {line}\n"));
    }
    out(&text);
    Ok(0)
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
