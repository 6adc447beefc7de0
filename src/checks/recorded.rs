//! A task's recorded version: what its frozen fields (everything but
//! `status`, `pins` and the appended addenda and notes) are judged from
//! (docs/trust.md, decision 0014).
//!
//! The recorded version is the task file committed at HEAD
//! (`HEAD:.gate/tasks/<ID>.md`), else the file as `gate start` wrote it,
//! kept in local state (`<common-dir>/gate/recorded/<ID>.md`, never
//! committed, out of the work tree's reach). The doors judge with the
//! recorded fields, and an uncommitted or staged version that differs in
//! them is a `record_rewritten` blocker, never the rule. This module reads
//! and compares; it writes only the start record.

use std::path::Path;

pub use crate::task::local::{scope_log_path, start_record_path};

use crate::brief::ScopeAddition;
use crate::ctx::Ctx;
use crate::fsutil;
use crate::git::Oid;
use crate::load;
use crate::path::RepoPath;
use crate::task::{self as tasks, Task, TaskRecord};
use crate::verdict::{At, Finding, Subject};

/// Where a recorded version was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The file committed at HEAD.
    Head(Oid),
    /// The file as `gate start` wrote it, kept in local state.
    Started,
}

impl Source {
    fn describe(&self) -> String {
        match self {
            Source::Head(head) => format!("as committed at HEAD ({})", head.short()),
            Source::Started => "as `gate start` recorded it".into(),
        }
    }
}

/// A task's recorded record and where it came from.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub record: TaskRecord,
    pub source: Source,
}

/// Keep the task file as `gate start` wrote it, atomically.
pub fn record_start(common_dir: &Path, id: &str, text: &str) -> Result<(), fsutil::FsError> {
    fsutil::write_atomic(&start_record_path(common_dir, id), text.as_bytes(), None)
}

/// The recorded version of task `id`: HEAD's file, else the start record;
/// `Ok(None)` when there is neither. A version that does not parse as a
/// task records nothing (its fields cannot be read) and the next place is
/// asked; a read that fails is an error (unknown), never "no record".
pub fn recorded(ctx: &Ctx, id: &str) -> Result<Option<Recorded>, String> {
    ctx.remembered("recorded version", id, || read_recorded(ctx, id))
}

fn read_recorded(ctx: &Ctx, id: &str) -> Result<Option<Recorded>, String> {
    let file = tasks::task_file(id);
    let path = RepoPath::from(file.to_string_lossy().as_ref());
    let head = ctx.head().map_err(|e| e.to_string())?.id();
    if let Some(head) = head
        && let Some((blob, _)) = ctx.repo.entry_at(head, &path).map_err(|e| e.to_string())?
    {
        let bytes = ctx.repo.read_blob(blob).map_err(|e| e.to_string())?;
        if let Some(record) = parsed(&file, bytes) {
            return Ok(Some(Recorded {
                record,
                source: Source::Head(head),
            }));
        }
    }
    let kept = start_record_path(&ctx.repo.common_dir(), id);
    let bytes = load::read_bytes_optional_as(&kept, &kept).map_err(|e| e.to_string())?;
    Ok(bytes.and_then(|b| parsed(&file, b)).map(|record| Recorded {
        record,
        source: Source::Started,
    }))
}

/// Whether `staged`, a version of task `id`'s file about to be committed,
/// changes it only as the task itself may: against the last version the
/// task stands by — HEAD's file, else the `gate start` record — its record
/// is the same but for `status` and `pins`, the status stays or closes an
/// active task, the brief is unchanged and the addenda only grow (the
/// append-only rule of docs/brief.md). Such a commit is accounted for by
/// that task whether or not a task is active (docs/tasks.md#closing-a-task).
/// Anything that cannot be read or told is not accounted for.
pub fn own_change(ctx: &Ctx, id: &str, staged: &[u8]) -> bool {
    let file = tasks::task_file(id);
    let path = RepoPath::from(file.to_string_lossy().as_ref());
    let Ok(head) = ctx.head().map(|h| h.id()) else {
        return false;
    };
    let at_head = match head.map(|head| ctx.repo.entry_at(head, &path)) {
        Some(Ok(Some((blob, _)))) => match ctx.repo.read_blob(blob) {
            Ok(bytes) => Some(bytes),
            Err(_) => return false,
        },
        Some(Err(_)) => return false,
        _ => None,
    };
    let base = match at_head {
        Some(bytes) => bytes,
        None => {
            let kept = start_record_path(&ctx.repo.common_dir(), id);
            match load::read_bytes_optional_as(&kept, &kept) {
                Ok(Some(bytes)) => bytes,
                _ => return false,
            }
        }
    };
    let (Ok(base), Ok(new)) = (String::from_utf8(base), std::str::from_utf8(staged)) else {
        return false;
    };
    let (Ok(before), Ok(after)) = (
        tasks::parse(&file, base.clone()),
        tasks::parse(&file, new.to_string()),
    ) else {
        return false;
    };
    let (from, to) = (before.record.status, after.record.status);
    let transition = from == to || from == tasks::TaskStatus::Active;
    // A scope entry the staged file adds widens nothing unless `gate task
    // scope add` recorded it in this clone: a hand-written one is no change
    // the task itself made, with a task active or not (docs/trust.md).
    let added_by_hand = || -> bool {
        let new_globs: Vec<&str> = after
            .scope_added
            .iter()
            .filter(|a| !before.scope_added.iter().any(|b| b.glob == a.glob))
            .map(|a| a.glob.as_str())
            .collect();
        if new_globs.is_empty() {
            return false;
        }
        match trusted_additions(ctx, id) {
            Ok(trusted) => new_globs
                .iter()
                .any(|g| !trusted.iter().any(|t| t.glob == *g)),
            Err(_) => true,
        }
    };
    transition
        && after.record.rewritten_keys(&before.record).is_empty()
        && crate::brief::compare(&file, &base, new).is_empty()
        && !added_by_hand()
}

fn parsed_task(file: &Path, bytes: Vec<u8>) -> Option<Task> {
    let text = String::from_utf8(bytes).ok()?;
    tasks::parse(file, text).ok()
}

fn parsed(file: &Path, bytes: Vec<u8>) -> Option<TaskRecord> {
    let text = String::from_utf8(bytes).ok()?;
    tasks::parse(file, text).ok().map(|t| t.record)
}

/// `task` as the doors judge it: its frozen fields from the recorded
/// version when there is one, and only the scope additions recorded where
/// the change cannot reach them ([`trusted_additions`]). An unreadable
/// recorded version is an error.
pub fn judged(ctx: &Ctx, mut task: Task) -> Result<Task, String> {
    if let Some(recorded) = recorded(ctx, &task.record.id)? {
        task.record = task.record.with_frozen_of(&recorded.record);
    }
    task.scope_added = trusted_additions(ctx, &task.record.id)?;
    Ok(task)
}

/// Keep an entry `gate task scope add` appended: the log is re-read and
/// rewritten whole under the lock `lock`, atomically.
pub fn record_scope_entry(common_dir: &Path, id: &str, entry: &str) -> Result<(), String> {
    let path = scope_log_path(common_dir, id);
    let kept = load::read_bytes_optional_as(&path, &path).map_err(|e| e.to_string())?;
    let mut text = kept
        .map(|b| String::from_utf8(b).map_err(|_| format!("{} is not UTF-8", path.display())))
        .transpose()?
        .unwrap_or_default();
    text.push_str(entry);
    fsutil::write_atomic(&path, text.as_bytes(), None).map_err(|e| e.to_string())
}

/// The scope additions of task `id` a door may judge with: those of the
/// task file committed at HEAD, then those `gate task scope add` recorded
/// in this clone — never one only the work tree's (or the index's) file
/// holds, which a hand edit could have put there (docs/trust.md#scope-additions).
/// What cannot be read is an error (unknown), never "no additions".
pub fn trusted_additions(ctx: &Ctx, id: &str) -> Result<Vec<ScopeAddition>, String> {
    let mut out: Vec<ScopeAddition> = Vec::new();
    if let Some(task) = at_head(ctx, id)? {
        out = task.scope_added;
    }
    // The log is the local task's: another task under the same id (one a
    // merge brought in) is never widened by it.
    if local_state_of_another(ctx, id)?.is_some() {
        return Ok(out);
    }
    let log = scope_log_path(&ctx.repo.common_dir(), id);
    if let Some(bytes) = load::read_bytes_optional_as(&log, &log).map_err(|e| e.to_string())? {
        let text =
            String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8", log.display()))?;
        for added in crate::brief::scope_additions(&text) {
            if !out.iter().any(|a| a.glob == added.glob) {
                out.push(added);
            }
        }
    }
    Ok(out)
}

/// Task `id`'s file committed at HEAD, when there is one that parses. A
/// read that fails is an error.
fn at_head(ctx: &Ctx, id: &str) -> Result<Option<Task>, String> {
    ctx.remembered("task at HEAD", id, || read_at_head(ctx, id))
}

fn read_at_head(ctx: &Ctx, id: &str) -> Result<Option<Task>, String> {
    let file = tasks::task_file(id);
    let path = RepoPath::from(file.to_string_lossy().as_ref());
    let head = ctx.head().map_err(|e| e.to_string())?.id();
    let Some(head) = head else { return Ok(None) };
    let Some((blob, _)) = ctx.repo.entry_at(head, &path).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    let bytes = ctx.repo.read_blob(blob).map_err(|e| e.to_string())?;
    Ok(String::from_utf8(bytes)
        .ok()
        .and_then(|t| tasks::parse(&file, t).ok()))
}

/// Whether this clone's local state for id `id` (the start record, the
/// scope log, the start branches: docs/tasks.md#local-state) belongs to
/// another task than the one HEAD commits under that id: the start record
/// names another creation (`created_at`, `baseline`). That happens only
/// when two people started the same explicit `--id` before either saw the
/// other's, and a merge brought the other's in (decision 0024). Then the
/// message to say; `None` when the state is this task's, or there is no
/// start record or no committed file to compare. A read that fails is an
/// error.
pub fn local_state_of_another(ctx: &Ctx, id: &str) -> Result<Option<String>, String> {
    ctx.remembered("local state of another", id, || {
        read_local_state_of_another(ctx, id)
    })
}

fn read_local_state_of_another(ctx: &Ctx, id: &str) -> Result<Option<String>, String> {
    let Some(committed) = at_head(ctx, id)? else {
        return Ok(None);
    };
    let kept = start_record_path(&ctx.repo.common_dir(), id);
    let bytes = load::read_bytes_optional_as(&kept, &kept).map_err(|e| e.to_string())?;
    let Some(started) = bytes.and_then(|b| parsed(&tasks::task_file(id), b)) else {
        return Ok(None);
    };
    let (c, s) = (&committed.record, &started);
    if c.created_at == s.created_at && c.baseline == s.baseline {
        return Ok(None);
    }
    Ok(Some(format!(
        "task {id} at HEAD (created {} on {}) is not the task {id} this clone started (created {} on {}): this clone's local state for {id} (its scope additions) is the other task's and is not used",
        c.created_at,
        short_hex(&c.baseline),
        s.created_at,
        short_hex(&s.baseline)
    )))
}

fn short_hex(hex: &str) -> &str {
    &hex[..hex.len().min(12)]
}

/// The task `id`'s uncommitted versions — the work tree's, and with
/// `staged` the index's — against its recorded version: a
/// `record_rewritten` blocker of `check` for each that rewrites a frozen
/// field. With no recorded version, a note saying the fields were read
/// from the work tree; with local state that is another task's under the
/// same id ([`local_state_of_another`]), a note saying it is not used.
pub fn rewrite_findings(
    ctx: &Ctx,
    id: &str,
    check: &'static str,
    staged: bool,
) -> (Vec<Finding>, Option<String>) {
    let file = tasks::task_file(id);
    let unreadable = |m: String| {
        Finding::unknown(
            check,
            "task_unreadable",
            format!("the recorded version of task {id} could not be read: {m}"),
            "repair the repository (git fsck), or switch to another task with `gate task switch ID`"
                .into(),
        )
    };
    let recorded = match recorded(ctx, id) {
        Ok(Some(r)) => r,
        Ok(None) => {
            return (
                vec![],
                Some(format!(
                    "task {id} is neither committed at HEAD nor recorded by `gate start` in this clone: its fields are read from the work tree (commit {} to fix them)",
                    file.display()
                )),
            );
        }
        Err(m) => return (vec![unreadable(m)], None),
    };
    let trusted = match trusted_additions(ctx, id) {
        Ok(trusted) => trusted,
        Err(m) => return (vec![unreadable(m)], None),
    };
    let note = local_state_of_another(ctx, id).ok().flatten();
    let mut versions: Vec<(&str, Option<Task>)> = Vec::new();
    if staged {
        let path = RepoPath::from(file.to_string_lossy().as_ref());
        let index = match ctx.index() {
            Ok(index) => index,
            Err(e) => return (vec![unreadable(e.to_string())], None),
        };
        if let Some((blob, _)) = ctx.repo.index_blob(index, &path) {
            match ctx.repo.read_blob(blob) {
                Ok(bytes) => versions.push(("the staged version of", parsed_task(&file, bytes))),
                Err(e) => return (vec![unreadable(e.to_string())], None),
            }
        }
    }
    // The work tree's version; one that does not load is the brief
    // check's and the task loader's to report.
    versions.push(("the work tree's", tasks::load(ctx.root(), id).ok()));
    let mut findings: Vec<Finding> = Vec::new();
    let mut said: Vec<Vec<&str>> = Vec::new();
    let mut forged_said: Vec<String> = Vec::new();
    for (place, version) in versions {
        let Some(version) = version else { continue };
        // An addition no command recorded widens nothing, and is said.
        for added in &version.scope_added {
            if trusted.iter().any(|t| t.glob == added.glob) || forged_said.contains(&added.glob) {
                continue;
            }
            forged_said.push(added.glob.clone());
            findings.push(rewritten_finding(
                check,
                id,
                &file,
                format!(
                    "{place} {} adds {} to the scope, which neither HEAD's file nor `gate task scope add` in this clone recorded: task {id} is judged without it",
                    file.display(),
                    added.glob
                ),
                format!(
                    "record it with `gate task scope add {} --because \"…\"` (and take the hand-written entry out of {}), or take it out",
                    added.glob,
                    file.display()
                ),
            ));
        }
        let version = version.record;
        let keys = version.rewritten_keys(&recorded.record);
        // The work tree repeating what the index already rewrote is one finding.
        if keys.is_empty() || said.contains(&keys) {
            continue;
        }
        let scope = if keys.contains(&"scope") {
            format!(
                " (scope [{}] where the record says [{}])",
                version.scope.join(", "),
                recorded.record.scope.join(", ")
            )
        } else {
            String::new()
        };
        let message = format!(
            "{place} {} rewrites {}{scope}: task {id} is judged with its recorded version, {}",
            file.display(),
            keys.join(", "),
            recorded.source.describe()
        );
        said.push(keys);
        let decide = format!(
            "put the recorded values back in {} (only `status` and `pins` change, and addenda are appended); to widen the scope, `gate task scope add GLOB --because \"…\"`; for other work, start another task with `gate start`",
            file.display()
        );
        findings.push(rewritten_finding(check, id, &file, message, decide));
    }
    (findings, note)
}

fn rewritten_finding(
    check: &'static str,
    id: &str,
    file: &Path,
    message: String,
    decide: String,
) -> Finding {
    Finding::blocker(check, "record_rewritten", message, decide).with_subject(Subject {
        task: Some(id.to_string()),
        at: At {
            file: Some(file.display().to_string()),
            ..At::default()
        }
        .boxed(),
        ..Subject::default()
    })
}
