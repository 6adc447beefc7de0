//! Tasks: `.gate/tasks/<ID>.md` records and the worktree's active pointer.
//!
//! The front matter is a closed schema of exactly the 12 keys of docs/tasks.md;
//! the body keeps the operator's brief verbatim (see [`format`]). This module
//! loads, lists and creates task files and reads and moves the active
//! pointer at `<git-dir>/gate/active`. Every write is atomic, its temporary
//! file kept under the git directory (`<common-dir>/gate/tmp`) where a
//! commit cannot pick it up, and never made through a symbolic link (a
//! committed `.gate` or `.gate/tasks` that is one is refused, naming it);
//! creating a task never overwrites one that exists. Every read is
//! `fsutil`'s guarded one.

pub mod format;
pub mod fresh;
pub mod local;
pub mod log;

use std::fs;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};

use crate::clock::Timestamp;
use crate::fsutil::{self, FsError};
use crate::ids;
use crate::load::{self, LoadError};

pub const TASK_SCHEMA: &str = "gate.task/1";
pub const TASKS_DIR: &str = ".gate/tasks";

/// A task's lifecycle status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Active,
    Completed,
    Abandoned,
}

impl TaskStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Active => "active",
            TaskStatus::Completed => "completed",
            TaskStatus::Abandoned => "abandoned",
        }
    }
}

/// A declared exemption with its reason.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Exemption {
    pub class: String,
    pub because: String,
}

/// The two binding pins (docs/binding.md): what a task file records, and
/// what `binding::pins` derives now to compare with it; both empty when no
/// intent is reached.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pins {
    pub plan_revision: String,
    pub evidence_standing: String,
}

// Every struct below the record denies unknown fields.
impl crate::yaml::Closed for TaskRecord {}

/// The task record: the front matter's 12 keys, all required (nullable ones
/// must be present as `null`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "gate task front matter (.gate/tasks/ID.md)")]
pub struct TaskRecord {
    #[schemars(extend("const" = "gate.task/1"))]
    pub schema: String,
    pub id: String,
    pub status: TaskStatus,
    pub created_at: String,
    pub created_by: String,
    pub operator: String,
    pub baseline: String,
    pub scope: Vec<String>,
    #[serde(deserialize_with = "present")]
    #[schemars(schema_with = "present_schema::<String>")]
    pub issue: Option<String>,
    #[serde(deserialize_with = "present")]
    #[schemars(schema_with = "present_schema::<String>")]
    pub intent: Option<String>,
    #[serde(deserialize_with = "present")]
    #[schemars(schema_with = "present_schema::<Exemption>")]
    pub exemption: Option<Exemption>,
    pub pins: Pins,
}

/// Deserialize an `Option` whose key must be present (a `null` value is
/// fine, a missing key is an error): `deserialize_with` without `default`
/// makes serde require the key.
fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d)
}

/// [`present`]'s schema: the key is required (schemars takes a field given
/// its own schema as required), its value may be `null`.
fn present_schema<T: JsonSchema>(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    generator.subschema_for::<Option<T>>()
}

/// A loaded task file.
impl TaskRecord {
    /// The frozen keys — everything but `status` and `pins` — in which this
    /// version differs from `recorded` (docs/trust.md).
    pub fn rewritten_keys(&self, recorded: &TaskRecord) -> Vec<&'static str> {
        let mut keys = Vec::new();
        let mut differs = |key, same: bool| {
            if !same {
                keys.push(key);
            }
        };
        differs("schema", self.schema == recorded.schema);
        differs("id", self.id == recorded.id);
        differs("created_at", self.created_at == recorded.created_at);
        differs("created_by", self.created_by == recorded.created_by);
        differs("operator", self.operator == recorded.operator);
        differs("baseline", self.baseline == recorded.baseline);
        differs("scope", self.scope == recorded.scope);
        differs("issue", self.issue == recorded.issue);
        differs("intent", self.intent == recorded.intent);
        differs("exemption", self.exemption == recorded.exemption);
        keys
    }

    /// This version's `status` and `pins` with every other field taken from
    /// `recorded`: the record the doors judge with (docs/trust.md).
    pub fn with_frozen_of(&self, recorded: &TaskRecord) -> TaskRecord {
        TaskRecord {
            status: self.status,
            pins: self.pins.clone(),
            ..recorded.clone()
        }
    }
}

#[derive(Debug, Clone)]
pub struct Task {
    pub record: TaskRecord,
    /// The repository-relative path of the file.
    pub file: PathBuf,
    /// The whole file text, exactly as read.
    pub text: String,
    /// The body's sections.
    pub body: format::Body,
    /// The globs `gate task scope add` appended to the addenda, in order;
    /// where a door judges, only those recorded where the change cannot
    /// reach them (docs/trust.md#scope-additions).
    pub scope_added: Vec<log::ScopeAddition>,
}

impl Task {
    /// The effective scope: the recorded `scope` and then the additions.
    pub fn scope(&self) -> Vec<String> {
        let mut globs = self.record.scope.clone();
        for added in &self.scope_added {
            if !globs.contains(&added.glob) {
                globs.push(added.glob.clone());
            }
        }
        globs
    }
}

/// Why a task could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error("{}:{line}: {message}", file.display())]
    Layout {
        file: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{}:{}{key}: {message}", file.display(), line.map(|l| format!("{l}: ")).unwrap_or_default())]
    Invalid {
        file: PathBuf,
        line: Option<usize>,
        key: String,
        message: String,
    },
    #[error("no task `{id}`: {} does not exist", file.display())]
    NotFound { id: String, file: PathBuf },
    #[error("task `{id}` already exists at {}", file.display())]
    Exists { id: String, file: PathBuf },
    #[error("task {id} is {}, not {}", found.as_str(), expected.as_str())]
    Status {
        id: String,
        found: TaskStatus,
        expected: TaskStatus,
    },
    #[error("invalid task id `{id}`: {message}")]
    BadId { id: String, message: String },
    #[error(transparent)]
    Fs(#[from] FsError),
    #[error(transparent)]
    Read(#[from] fsutil::ReadError),
    #[error(transparent)]
    Lock(#[from] crate::fsutil::LockError),
}

/// The repository-relative path of a task's file. The id must already be valid.
pub fn task_file(id: &str) -> PathBuf {
    Path::new(TASKS_DIR).join(format!("{id}.md"))
}

fn check_id(id: &str) -> Result<(), TaskError> {
    ids::task_id(id).map_err(|message| TaskError::BadId {
        id: id.to_string(),
        message,
    })
}

/// Load task `id` from the worktree at `root`.
pub fn load(root: &Path, id: &str) -> Result<Task, TaskError> {
    check_id(id)?;
    let file = task_file(id);
    let abs = root.join(&file);
    let Some(text) = load::read_optional_as(&file, &abs)? else {
        return Err(TaskError::NotFound {
            id: id.to_string(),
            file,
        });
    };
    let task = parse(&file, text)?;
    if task.record.id != id {
        return Err(TaskError::Invalid {
            file,
            line: line_of_key(&task.text, "id"),
            key: "id".into(),
            message: format!("the file of task `{id}` records id `{}`", task.record.id),
        });
    }
    Ok(task)
}

/// The front matter and body of `text`, the file `file`.
pub fn split_file<'t>(file: &Path, text: &'t str) -> Result<format::Split<'t>, TaskError> {
    format::split(text).map_err(|e| TaskError::Layout {
        file: file.to_path_buf(),
        line: e.line,
        message: e.message,
    })
}

/// The lock every writer of task `id` holds while it re-reads and writes
/// (`<state>/locks/task-<ID>.lock`).
fn lock(state: &Path, id: &str) -> Result<fsutil::Lock, TaskError> {
    Ok(fsutil::lock(
        &state.join("locks").join(format!("task-{id}.lock")),
        LOCK_TIMEOUT,
    )?)
}

/// Where task writes keep their temporary files: `<state>/tmp`, under the
/// git directory, so a writer killed mid-write leaves nothing a commit of
/// the work tree can pick up.
fn spare(state: &Path) -> PathBuf {
    state.join("tmp")
}

/// A name given to the binding — `--issue`, `--intent`, `--exempt`, or the
/// same field of a task file — as it is judged: trimmed, and a blank one is
/// nothing named (docs/binding.md).
pub fn given_name(name: Option<&str>) -> Option<String> {
    name.map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_string)
}

/// Parse a task file's text. `file` names it in errors.
pub fn parse(file: &Path, text: String) -> Result<Task, TaskError> {
    let split = split_file(file, &text)?;
    let record = parse_record(file, &text, &split)?;
    let body = split.parse_body();
    let scope_added = body
        .addenda
        .as_ref()
        .map(|a| log::scope_additions(&a.text))
        .unwrap_or_default();
    Ok(Task {
        record,
        file: file.to_path_buf(),
        text: text.clone(),
        body,
        scope_added,
    })
}

/// The record in the front matter of `split`, a split of `text`: the closed
/// schema, then the formats of the values. `file` names it in errors.
pub fn parse_record(
    file: &Path,
    text: &str,
    split: &format::Split,
) -> Result<TaskRecord, TaskError> {
    // The front matter starts on line 2, after the opening `---`.
    let mut record: TaskRecord = crate::yaml::closed(file, split.front_matter)
        .map_err(|e| TaskError::Load(e.shift_lines(1)))?;
    // The names are read as `gate start` takes them: trimmed, a blank one
    // naming nothing (docs/binding.md).
    record.issue = given_name(record.issue.as_deref());
    record.intent = given_name(record.intent.as_deref());
    if let Some(e) = &mut record.exemption {
        e.class = e.class.trim().to_string();
    }
    validate_record(file, text, &record)?;
    Ok(record)
}

/// Checks beyond the schema: formats of the values.
fn validate_record(file: &Path, text: &str, r: &TaskRecord) -> Result<(), TaskError> {
    let invalid = |key: &str, message: String| TaskError::Invalid {
        file: file.to_path_buf(),
        line: line_of_key(text, key.split('.').next().unwrap_or(key)),
        key: key.to_string(),
        message,
    };
    if r.schema != TASK_SCHEMA {
        return Err(invalid(
            "schema",
            format!("expected `{TASK_SCHEMA}`, found `{}`", r.schema),
        ));
    }
    ids::task_id(&r.id).map_err(|m| invalid("id", m))?;
    Timestamp::parse(&r.created_at).map_err(|m| invalid("created_at", m))?;
    if r.created_by.trim().is_empty() {
        return Err(invalid("created_by", "must not be blank".into()));
    }
    if r.operator.trim().is_empty() {
        return Err(invalid("operator", "must not be blank".into()));
    }
    if !is_full_hex(&r.baseline) {
        return Err(invalid(
            "baseline",
            format!("`{}` is not a full commit id", r.baseline),
        ));
    }
    for (i, glob) in r.scope.iter().enumerate() {
        crate::scope::compile_glob(glob).map_err(|m| invalid(&format!("scope[{i}]"), m))?;
    }
    if let Some(issue) = &r.issue {
        ids::issue_id(issue).map_err(|m| invalid("issue", m))?;
    }
    if let Some(intent) = &r.intent {
        ids::intent_id(intent).map_err(|m| invalid("intent", m))?;
    }
    if let Some(ex) = &r.exemption {
        ids::exemption_id(&ex.class).map_err(|m| invalid("exemption.class", m))?;
    }
    for (key, pin) in [
        ("pins.plan_revision", &r.pins.plan_revision),
        ("pins.evidence_standing", &r.pins.evidence_standing),
    ] {
        // Lowercase, as gate computes them: another spelling would never match.
        let hex64 = pin.len() == 64 && crate::digest::is_lower_hex(pin);
        if !pin.is_empty() && !hex64 {
            return Err(invalid(
                key,
                format!("`{pin}` is neither empty nor a lowercase SHA-256 hex digest"),
            ));
        }
    }
    Ok(())
}

fn is_full_hex(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && crate::digest::is_lower_hex(s)
}

/// The 1-based line of a top-level front matter key, for errors.
fn line_of_key(text: &str, key: &str) -> Option<usize> {
    let prefix = format!("{key}:");
    text.lines()
        .position(|l| l.starts_with(&prefix))
        .map(|i| i + 1)
}

/// Every task file in the worktree, sorted by id; a file that does not load
/// is returned as its error so one bad file never hides the others.
pub fn list(root: &Path) -> Result<Vec<Result<Task, TaskError>>, TaskError> {
    Ok(ids(root)?.iter().map(|id| load(root, id)).collect())
}

/// The ids of the task files in the worktree (`<id>.md`, not hidden),
/// sorted: the one scan of the tasks directory. An entry the directory
/// cannot give is an error, never skipped: a task gate did not see would
/// pass unchecked.
pub fn ids(root: &Path) -> Result<Vec<String>, TaskError> {
    let Some(names) = fsutil::list_within(root, Path::new(TASKS_DIR))? else {
        return Ok(Vec::new());
    };
    let mut ids = Vec::new();
    for name in names {
        let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".md")) else {
            continue;
        };
        if !id.starts_with('.') {
            ids.push(id.to_string());
        }
    }
    ids.sort();
    Ok(ids)
}

/// Render a whole task file: front matter, then the body text unchanged.
pub fn render(record: &TaskRecord, body: &str) -> String {
    let q = |s: &str| serde_json::to_string(s).expect("a string always serialises");
    let opt = |s: &Option<String>| s.as_deref().map_or("null".to_string(), q);
    let scope: Vec<String> = record.scope.iter().map(|s| q(s)).collect();
    let exemption = match &record.exemption {
        Some(e) => format!("{{class: {}, because: {}}}", q(&e.class), q(&e.because)),
        None => "null".into(),
    };
    format!(
        "---\nschema: {}\nid: {}\nstatus: {}\ncreated_at: {}\ncreated_by: {}\noperator: {}\nbaseline: {}\nscope: [{}]\nissue: {}\nintent: {}\nexemption: {}\npins: {{plan_revision: {}, evidence_standing: {}}}\n---\n{}",
        record.schema,
        q(&record.id),
        record.status.as_str(),
        q(&record.created_at),
        q(&record.created_by),
        q(&record.operator),
        q(&record.baseline),
        scope.join(", "),
        opt(&record.issue),
        opt(&record.intent),
        exemption,
        q(&record.pins.plan_revision),
        q(&record.pins.evidence_standing),
        body,
    )
}

/// Create a new task file atomically; refuses when the id is taken (even
/// by a concurrent creator: the final step is a hard link, which fails if
/// the target exists). `state` is `<common-dir>/gate`: the temporary file
/// goes under it.
pub fn create(
    root: &Path,
    state: &Path,
    record: &TaskRecord,
    brief: &str,
) -> Result<PathBuf, TaskError> {
    check_id(&record.id)?;
    let file = task_file(&record.id);
    let text = render(record, &format::render_new_body(brief));
    // Parse what we are about to write: a task gate cannot read back must never land.
    parse(&file, text.clone())?;
    // Under the task's lock, like every other writer of this task's
    // temporaries, so the leftovers removed first are a killed writer's.
    let _lock = lock(state, &record.id)?;
    let spare = spare(state);
    remove_leftovers(root, &spare, &record.id);
    if fsutil::create_within(root, &file, text.as_bytes(), Some(&spare))? {
        Ok(file)
    } else {
        Err(TaskError::Exists {
            id: record.id.clone(),
            file,
        })
    }
}

/// How long a writer waits for another to finish with the same task file.
pub const LOCK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Rewrite task `id`'s front matter with `change` applied, keeping the body
/// byte for byte. Under a lock in `state` (`<common-dir>/gate`),
/// re-reading the file inside it, so concurrent updates lose nothing; the
/// write is atomic.
pub fn update(
    root: &Path,
    state: &Path,
    id: &str,
    change: impl FnOnce(&mut TaskRecord),
) -> Result<Task, TaskError> {
    rewrite(root, state, id, |task| {
        let split = split_file(&task.file, &task.text)?;
        let mut record = task.record.clone();
        change(&mut record);
        Ok(render(&record, split.body))
    })
}

/// Task `id`'s file rewritten as `new_text` makes it from the task read
/// under its lock: checked to parse, then written atomically.
fn rewrite(
    root: &Path,
    state: &Path,
    id: &str,
    new_text: impl FnOnce(&Task) -> Result<String, TaskError>,
) -> Result<Task, TaskError> {
    check_id(id)?;
    let _lock = lock(state, id)?;
    let task = load(root, id)?;
    let text = new_text(&task)?;
    let updated = parse(&task.file, text.clone())?;
    let spare = spare(state);
    remove_leftovers(root, &spare, id);
    fsutil::write_within(root, &task.file, text.as_bytes(), None, Some(&spare))?;
    Ok(updated)
}

/// How old a file in `<common-dir>/gate/tmp` must be before any task
/// write removes it whatever its name: a write holds its temporary file
/// for milliseconds, so one this old belongs to a writer that was killed.
const STALE_TEMPORARY: std::time::Duration = std::time::Duration::from_secs(3600);

/// Remove the temporary files of earlier writes of task `id` that were
/// killed before their rename (an update's `.ID.md.tmp.*`, a creation's
/// `.ID.md.new.*` and its own temporary `..ID.md.new.*`), under `spare` and
/// (where the git directory is on another file system than the work tree,
/// so they were made beside the file) in `.gate/tasks`; and any file in
/// `spare` older than [`STALE_TEMPORARY`], whatever task it was for.
/// Called under the task's lock: every other writer of this task's
/// temporaries waits for it, so each one found is a leftover. A failure
/// leaves a file for the next write to remove (docs/tasks.md).
fn remove_leftovers(root: &Path, spare: &Path, id: &str) {
    let prefixes = [
        format!(".{id}.md.tmp."),
        format!(".{id}.md.new."),
        format!("..{id}.md.new."),
    ];
    let now = std::time::SystemTime::now();
    for dir in [spare.to_path_buf(), root.join(TASKS_DIR)] {
        let Ok(Some(names)) = fsutil::list_within(&dir, Path::new("")) else {
            continue;
        };
        for name in names {
            let ours = name
                .to_str()
                .is_some_and(|n| prefixes.iter().any(|p| n.starts_with(p.as_str())));
            let stale = dir == spare
                && fs::symlink_metadata(dir.join(&name))
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| now.duration_since(t).ok())
                    .is_some_and(|age| age > STALE_TEMPORARY);
            if ours || stale {
                let _ = fsutil::remove_optional(&dir.join(name));
            }
        }
    }
}

/// Where an appended entry goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Log {
    /// The end of `## Addenda` (amendments and recorded decisions).
    Addenda,
    /// The end of the file, in `## Implementation notes`.
    Notes,
}

/// A status change made in the same write as an append: allowed only while
/// the task is `from`, as read under the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition {
    pub from: TaskStatus,
    pub to: TaskStatus,
}

/// Append the entry `entry` renders to task `id`'s addenda or notes. Under
/// the task's lock (re-reading the file inside it, so two appenders both
/// land, in order; `entry` is called under the lock too, so the time it
/// records is taken there and the log stays chronological),
/// written atomically (a crash leaves the old file or the new one); every
/// byte already there stays as it was. Refused when the file's sections
/// cannot be found. `transition` changes the status in the same write; it
/// is checked against the record re-read under the lock, so of two
/// concurrent closes exactly one lands and the other is
/// [`TaskError::Status`], writing nothing.
pub fn append(
    root: &Path,
    state: &Path,
    id: &str,
    log: Log,
    entry: impl FnOnce(&Task) -> String,
    transition: Option<Transition>,
) -> Result<Task, TaskError> {
    rewrite(root, state, id, |task| {
        appended(task, log, &entry(task), transition)
    })
}

/// `task`'s text with `entry` appended (see [`append`]).
fn appended(
    task: &Task,
    log: Log,
    entry: &str,
    transition: Option<Transition>,
) -> Result<String, TaskError> {
    if let Some(t) = transition
        && task.record.status != t.from
    {
        return Err(TaskError::Status {
            id: task.record.id.clone(),
            found: task.record.status,
            expected: t.from,
        });
    }
    let split = split_file(&task.file, &task.text)?;
    let body_start = task.text.len() - split.body.len();
    let no_sections = || TaskError::Layout {
        file: task.file.clone(),
        line: 1,
        message: "the file has no `## Addenda` and `## Implementation notes` sections to append to"
            .into(),
    };
    // Both sections must be there: without `## Implementation notes` the end
    // of the file is the end of the addenda, and a note appended there would
    // land in the append-only log.
    if task.body.addenda.is_none() || task.body.notes.is_none() {
        return Err(no_sections());
    }
    let at = match log {
        Log::Addenda => {
            body_start + format::notes_heading_offset(split.body).ok_or_else(no_sections)?
        }
        Log::Notes => task.text.len(),
    };
    let mut head = task.text[..at].to_string();
    let tail = &task.text[at..];
    if log == Log::Notes {
        // Keep entries apart: a blank line before the new one.
        if !head.ends_with('\n') {
            head.push('\n');
        }
        if !head.ends_with("\n\n") {
            head.push('\n');
        }
    }
    let mut text = format!("{head}{entry}{tail}");
    if let Some(t) = transition {
        let mut record = task.record.clone();
        record.status = t.to;
        let split = split_file(&task.file, &text)?;
        text = render(&record, split.body);
    }
    Ok(text)
}

/// The worktree's active task pointer, `<git-dir>/gate/active`.
pub mod active {
    use super::*;

    /// The pointer's path below the git directory.
    const REL: &str = "gate/active";

    pub fn path(git_dir: &Path) -> PathBuf {
        git_dir.join(REL)
    }

    /// The active task id, `None` when no task is active. Read guarded:
    /// a FIFO, a link or an oversized file there is an error naming it.
    pub fn read(git_dir: &Path) -> Result<Option<String>, TaskError> {
        let p = path(git_dir);
        let Some(bytes) = fsutil::read_within(git_dir, REL.as_ref(), fsutil::Kind::ACTIVE_POINTER)?
        else {
            return Ok(None);
        };
        let id = String::from_utf8_lossy(&bytes).trim().to_string();
        if id.is_empty() {
            return Ok(None);
        }
        ids::task_id(&id).map_err(|message| TaskError::Invalid {
            file: p.clone(),
            line: Some(1),
            key: "active".into(),
            message: format!("`{id}` is not a task id ({message}); run `gate task switch ID`"),
        })?;
        Ok(Some(id))
    }

    /// The lock every writer of the pointer holds.
    fn lock(git_dir: &Path) -> Result<fsutil::Lock, TaskError> {
        Ok(fsutil::lock(
            &git_dir.join("gate").join("active.lock"),
            LOCK_TIMEOUT,
        )?)
    }

    pub fn set(git_dir: &Path, id: &str) -> Result<(), TaskError> {
        check_id(id)?;
        let _lock = lock(git_dir)?;
        fsutil::write_within(
            git_dir,
            REL.as_ref(),
            format!("{id}\n").as_bytes(),
            None,
            None,
        )?;
        Ok(())
    }

    pub fn clear(git_dir: &Path) -> Result<(), TaskError> {
        let _lock = lock(git_dir)?;
        fsutil::remove_optional(&path(git_dir))?;
        Ok(())
    }

    /// Clear the pointer if it names `id` (read and removed under the
    /// lock, so that a task another run has just made active stays
    /// active); whether it did.
    pub fn clear_if(git_dir: &Path, id: &str) -> Result<bool, TaskError> {
        let _lock = lock(git_dir)?;
        // An unreadable pointer does not name `id`: left for `task switch`.
        if read(git_dir).ok().flatten().as_deref() != Some(id) {
            return Ok(false);
        }
        fsutil::remove_optional(&path(git_dir))?;
        Ok(true)
    }
}

/// A task record for unit tests: task T-1, active, Ada's, scope `src/**`,
/// issue 42. Tests change the fields they judge.
#[cfg(test)]
pub(crate) fn sample_record() -> TaskRecord {
    TaskRecord {
        schema: TASK_SCHEMA.into(),
        id: "T-1".into(),
        status: TaskStatus::Active,
        created_at: "2026-11-29T22:40:00Z".into(),
        created_by: "gate start".into(),
        operator: "Ada".into(),
        baseline: "0123456789abcdef0123456789abcdef01234567".into(),
        scope: vec!["src/**".into()],
        issue: Some("42".into()),
        intent: None,
        exemption: None,
        pins: Pins::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn record(id: &str) -> TaskRecord {
        TaskRecord {
            schema: TASK_SCHEMA.into(),
            id: id.into(),
            status: TaskStatus::Active,
            created_at: "2026-11-29T22:40:00Z".into(),
            created_by: "gate start".into(),
            operator: "Ada \"the\" Operator".into(),
            baseline: "0123456789abcdef0123456789abcdef01234567".into(),
            scope: vec!["src/**".into(), "docs/a b.md".into()],
            issue: Some("42".into()),
            intent: None,
            exemption: Some(Exemption {
                class: "dependency-bump".into(),
                because: "lockfile: only".into(),
            }),
            pins: Pins::default(),
        }
    }

    #[test]
    fn render_then_parse_round_trips_record_and_brief() {
        let r = record("T-42");
        let brief = "Do the thing.\n## Addenda\n---\n";
        let text = render(&r, &format::render_new_body(brief));
        let task = parse(Path::new(".gate/tasks/T-42.md"), text.clone()).unwrap();
        assert_eq!(task.record, r);
        assert_eq!(task.body.brief.unwrap().text, brief);
        assert_eq!(task.text, text);
    }

    #[test]
    fn frozen_fields_are_everything_but_status_and_pins() {
        let recorded = record("T-1");
        let mut now = recorded.clone();
        now.status = TaskStatus::Completed;
        now.pins.plan_revision = "sha256:abc".into();
        assert!(now.rewritten_keys(&recorded).is_empty());
        now.scope = vec!["**".into()];
        now.baseline = "f".repeat(40);
        now.exemption = None;
        assert_eq!(
            now.rewritten_keys(&recorded),
            ["baseline", "scope", "exemption"]
        );
        // Judged: the recorded scope and names, this version's status and pins.
        let judged = now.with_frozen_of(&recorded);
        assert_eq!(judged.scope, recorded.scope);
        assert_eq!(judged.baseline, recorded.baseline);
        assert_eq!(judged.exemption, recorded.exemption);
        assert_eq!(judged.status, TaskStatus::Completed);
        assert_eq!(judged.pins.plan_revision, "sha256:abc");
    }

    #[test]
    fn front_matter_is_closed() {
        let r = record("T-1");
        let text = render(&r, "");
        let extra = text.replacen("status: active\n", "status: active\nphase: build\n", 1);
        let err = parse(Path::new("t.md"), extra).unwrap_err().to_string();
        assert!(err.contains("phase"), "{err}");
        let missing = text.replacen("intent: null\n", "", 1);
        let err = parse(Path::new("t.md"), missing).unwrap_err().to_string();
        assert!(err.contains("intent"), "{err}");
    }

    #[test]
    fn clearing_the_pointer_for_a_task_leaves_another_task_active() {
        let dir = tempfile::tempdir().unwrap();
        active::set(dir.path(), "T-2").unwrap();
        assert!(!active::clear_if(dir.path(), "T-1").unwrap());
        assert_eq!(active::read(dir.path()).unwrap().as_deref(), Some("T-2"));
        assert!(active::clear_if(dir.path(), "T-2").unwrap());
        assert_eq!(active::read(dir.path()).unwrap(), None);
    }

    #[test]
    fn pins_are_empty_or_lowercase_sha256() {
        let mut r = record("T-1");
        r.pins.plan_revision = "a".repeat(64);
        let text = render(&r, "");
        assert!(parse(Path::new("t.md"), text.clone()).is_ok());
        // gate computes lowercase digests: another spelling would never match.
        let upper = text.replace(&"a".repeat(64), &"A".repeat(64));
        let err = parse(Path::new("t.md"), upper).unwrap_err().to_string();
        assert!(err.contains("pins.plan_revision"), "{err}");
    }

    #[test]
    fn create_refuses_an_existing_id_and_writes_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join(TASKS_DIR)).unwrap();
        let r = record("T-9");
        create(dir.path(), &dir.path().join("state"), &r, "brief").unwrap();
        let before = fs::read(dir.path().join(task_file("T-9"))).unwrap();
        let err = create(dir.path(), &dir.path().join("state"), &r, "other").unwrap_err();
        assert!(matches!(err, TaskError::Exists { .. }), "{err}");
        assert_eq!(fs::read(dir.path().join(task_file("T-9"))).unwrap(), before);
        let names: Vec<_> = fs::read_dir(dir.path().join(TASKS_DIR))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn a_note_never_lands_in_the_addenda_of_a_file_without_notes() {
        let dir = tempfile::tempdir().unwrap();
        let locks = dir.path().join("state");
        create(dir.path(), &locks, &record("T-5"), "brief").unwrap();
        let path = dir.path().join(task_file("T-5"));
        let text = fs::read_to_string(&path).unwrap();
        let cut = text.replace("## Implementation notes\n", "");
        assert_ne!(cut, text);
        fs::write(&path, &cut).unwrap();
        for log in [Log::Notes, Log::Addenda] {
            let err = append(
                dir.path(),
                &locks,
                "T-5",
                log,
                |_| "### entry\n".into(),
                None,
            )
            .unwrap_err();
            assert!(matches!(err, TaskError::Layout { .. }), "{log:?}: {err}");
            assert_eq!(fs::read_to_string(&path).unwrap(), cut, "{log:?}");
        }
    }

    #[test]
    fn a_rewrite_removes_the_leftovers_of_killed_rewrites_of_its_task_only() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        create(dir.path(), &state, &record("T-7"), "brief").unwrap();
        let tasks = dir.path().join(TASKS_DIR);
        fs::create_dir_all(spare(&state)).unwrap();
        for leftover in [
            tasks.join(".T-7.md.tmp.1.0"),
            spare(&state).join(".T-7.md.tmp.2.5"),
            tasks.join(".T-70.md.tmp.1.0"),
        ] {
            fs::write(&leftover, "torn").unwrap();
        }
        append(
            dir.path(),
            &state,
            "T-7",
            Log::Notes,
            |_| "### n\n".into(),
            None,
        )
        .unwrap();
        let mut names: Vec<_> = fs::read_dir(&tasks)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [".T-70.md.tmp.1.0", "T-7.md"],
            "another task's is kept"
        );
        assert_eq!(fs::read_dir(spare(&state)).unwrap().count(), 0);
        assert_eq!(ids(dir.path()).unwrap(), ["T-7"]);
    }

    #[test]
    fn a_creation_removes_a_killed_creation_of_its_id_and_stale_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        fs::create_dir_all(spare(&state)).unwrap();
        let hour_ago = std::time::SystemTime::now() - STALE_TEMPORARY * 2;
        let old = spare(&state).join(".T-1.md.tmp.3.1");
        fs::write(&old, "torn").unwrap();
        fs::File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        for leftover in [
            ".T-8.md.new.4.1",
            "..T-8.md.new.4.1.tmp.4.2",
            ".T-2.md.tmp.5.1",
        ] {
            fs::write(spare(&state).join(leftover), "torn").unwrap();
        }
        create(dir.path(), &state, &record("T-8"), "brief").unwrap();
        let names: Vec<_> = fs::read_dir(spare(&state))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            names,
            [".T-2.md.tmp.5.1"],
            "a recent temporary of another task may be a live writer's"
        );
    }

    #[test]
    fn a_transition_is_checked_under_the_lock_and_refused_when_stale() {
        let dir = tempfile::tempdir().unwrap();
        let locks = dir.path().join("state");
        create(dir.path(), &locks, &record("T-6"), "brief").unwrap();
        let close = |to| Transition {
            from: TaskStatus::Active,
            to,
        };
        let done = append(
            dir.path(),
            &locks,
            "T-6",
            Log::Notes,
            |_| "### done\n".into(),
            Some(close(TaskStatus::Completed)),
        )
        .unwrap();
        assert_eq!(done.record.status, TaskStatus::Completed);
        let before = fs::read_to_string(dir.path().join(task_file("T-6"))).unwrap();
        let err = append(
            dir.path(),
            &locks,
            "T-6",
            Log::Notes,
            |_| "### abandoned\n".into(),
            Some(close(TaskStatus::Abandoned)),
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                TaskError::Status {
                    found: TaskStatus::Completed,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join(task_file("T-6"))).unwrap(),
            before
        );
    }

    #[test]
    fn hostile_ids_never_form_paths() {
        for id in ["../../x", "a/b", "", ".hidden", "x\ny"] {
            assert!(matches!(check_id(id), Err(TaskError::BadId { .. })), "{id}");
        }
    }
}
