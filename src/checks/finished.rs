//! Finished work (docs/tasks.md#finished-work): `gate check` with no task
//! active, on work that is a completed task. `gate task finish` clears the
//! active pointer; the branch's work is then done, not unaccounted for.
//!
//! The task is found from what the branch says: the task files HEAD's
//! commits name in their trailers (those not on any remote-tracking branch
//! yet, else HEAD's own), then the tasks started on (or tied to) this
//! branch (`<common-dir>/gate/started/<ID>`). When none of them is active
//! and one is completed, that one is the finished work: the checks judge
//! it as they judge an active task — but for scope, where changes made
//! after it are work no task covers — and the report says what CI will
//! prove ([`task_finished`]).

use std::path::Path;

use crate::ctx::Ctx;
use crate::git::{Head, Oid};
use crate::policy::Policy;
use crate::task::{self as tasks, Task, TaskStatus};
use crate::verdict::{Finding, Severity, Subject};

/// The cause of the finding that says the work is done.
pub const CAUSE: &str = "task_finished";

/// How many of HEAD's commits are read for trailers.
const TRAILER_COMMITS: usize = 200;

/// A completed task this branch's work is, and the range CI will prove.
#[derive(Debug, Clone)]
pub struct Finished {
    /// The task as the doors judge it (its recorded frozen fields).
    pub task: Task,
    /// How it was found, for a person: "named by HEAD's commits",
    /// "started on refs/heads/x".
    pub found: String,
    /// Whether HEAD's file of the task records it completed (else its
    /// closing is not committed yet).
    pub committed: bool,
    /// What CI will prove.
    pub ci: CiRange,
}

/// The range CI checks for this branch: from `base` to HEAD.
#[derive(Debug, Clone)]
pub struct CiRange {
    pub base: Oid,
    /// How many commits the range holds.
    pub commits: usize,
    /// Where the base comes from, for a person.
    pub from: String,
}

/// The finished task this branch's work is, or `None` (no candidate, or
/// one still active, or none completed). An error when what would say
/// cannot be read: then nothing is claimed finished.
pub fn find(ctx: &Ctx, policy: &Policy) -> Result<Option<Finished>, String> {
    let head = ctx.head().map_err(|e| e.to_string())?;
    let Some(tip) = head.id() else {
        return Ok(None);
    };
    let branch = match &head {
        Head::Branch { branch, .. } => Some(branch.as_str()),
        _ => None,
    };
    let key = policy.provenance.trailer.as_deref().unwrap_or("Task");
    // The tasks HEAD's commits name, nearest first; then those started on
    // the branch, newest first.
    let mut candidates: Vec<(Task, String)> = Vec::new();
    for id in named_by_commits(ctx, tip, key)? {
        if let Some(task) = load(ctx, &id)? {
            candidates.push((task, "named by HEAD's commits".into()));
        }
    }
    let mut started: Vec<(Task, String)> = Vec::new();
    if let Some(branch) = branch {
        for id in crate::started::tied_to(&ctx.repo.common_dir(), branch)? {
            // A start record of another task under the id (decision 0024)
            // says nothing of this one.
            if candidates.iter().any(|(t, _)| t.record.id == id)
                || crate::checks::recorded::local_state_of_another(ctx, &id)?.is_some()
            {
                continue;
            }
            if let Some(task) = load(ctx, &id)? {
                let shown = branch.strip_prefix("refs/heads/").unwrap_or(branch);
                started.push((task, format!("started on {shown}")));
            }
        }
    }
    started.sort_by(|(a, _), (b, _)| b.record.created_at.cmp(&a.record.created_at));
    candidates.extend(started);
    // Unfinished work on the branch: nothing is finished.
    if candidates
        .iter()
        .any(|(t, _)| t.record.status == TaskStatus::Active)
    {
        return Ok(None);
    }
    let Some((task, found)) = candidates
        .into_iter()
        .find(|(t, _)| t.record.status == TaskStatus::Completed)
    else {
        return Ok(None);
    };
    let committed = status_at(ctx, tip, &task.record.id) == Some(TaskStatus::Completed);
    let ci = ci_range(ctx, tip, branch, &task)?;
    let task = crate::checks::recorded::judged(ctx, task)?;
    Ok(Some(Finished {
        task,
        found,
        committed,
        ci,
    }))
}

/// Task `id` from the work tree (its status is what `gate task finish`
/// wrote, committed or not); `None` when it has no file there (a trailer
/// naming no task is provenance's to report).
fn load(ctx: &Ctx, id: &str) -> Result<Option<Task>, String> {
    match tasks::load(ctx.root(), id) {
        Ok(task) => Ok(Some(task)),
        Err(tasks::TaskError::NotFound { .. } | tasks::TaskError::BadId { .. }) => Ok(None),
        Err(e) => Err(format!("task {id}: {e}")),
    }
}

/// The tasks the trailers of HEAD's commits name, nearest first: the
/// commits on no remote-tracking branch (at most [`TRAILER_COMMITS`]),
/// else HEAD alone; with no remote-tracking branch at all, the first
/// [`TRAILER_COMMITS`] of HEAD's first-parent line.
fn named_by_commits(ctx: &Ctx, tip: Oid, key: &str) -> Result<Vec<String>, String> {
    let remote_tips: Vec<Oid> = ctx
        .repo
        .branch_tips()
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|(name, _)| name.starts_with("refs/remotes/"))
        .map(|(_, id)| id)
        .collect();
    let mut out: Vec<String> = Vec::new();
    let mut read = |id: Oid| -> Result<Option<Oid>, String> {
        let info = ctx.repo.commit(id).map_err(|e| e.to_string())?;
        for named in crate::provenance::trailer_values(&info.message, key) {
            if !out.contains(&named) {
                out.push(named);
            }
        }
        Ok(info.parents.first().copied())
    };
    if remote_tips.is_empty() {
        // No remote-tracking branch: nothing is pushed, and a walk would
        // be the whole history; the first-parent line from HEAD instead.
        let mut at = Some(tip);
        for _ in 0..TRAILER_COMMITS {
            let Some(id) = at else { break };
            at = read(id)?;
        }
    } else {
        let mut commits = ctx
            .repo
            .walk(&[tip], &remote_tips)
            .map_err(|e| e.to_string())?;
        commits.truncate(TRAILER_COMMITS);
        if commits.is_empty() {
            commits.push(tip);
        }
        for id in commits {
            read(id)?;
        }
    }
    Ok(out)
}

/// The status task `id`'s file at `commit` records, when it parses.
fn status_at(ctx: &Ctx, commit: Oid, id: &str) -> Option<TaskStatus> {
    let file = tasks::task_file(id);
    let path = crate::path::RepoPath::from(file.to_string_lossy().as_ref());
    let (blob, _) = ctx.repo.entry_at(commit, &path).ok()??;
    let text = String::from_utf8(ctx.repo.read_blob(blob).ok()?).ok()?;
    tasks::parse(Path::new(&file), text)
        .ok()
        .map(|t| t.record.status)
}

/// The range CI will prove (docs/ci.md): from where HEAD leaves the
/// remote's default branch — `refs/remotes/<remote>/HEAD`, else its
/// `main` or `master`, the remote being the branch's upstream's, else
/// `origin` — to HEAD; with no such ref here, from the task's baseline.
fn ci_range(ctx: &Ctx, tip: Oid, branch: Option<&str>, task: &Task) -> Result<CiRange, String> {
    let upstream = branch
        .and_then(|b| b.strip_prefix("refs/heads/"))
        .and_then(|b| ctx.repo.config_string(&format!("branch.{b}.remote")))
        .filter(|r| crate::git::is_remote_name(r));
    let remote = upstream.unwrap_or_else(|| "origin".to_string());
    let mut base = None;
    for name in ["HEAD", "main", "master"] {
        let tracking = format!("refs/remotes/{remote}/{name}");
        let Ok(default) = ctx.repo.resolve_commit(&tracking) else {
            continue;
        };
        if let Some(meet) = ctx
            .repo
            .merge_base(tip, default)
            .map_err(|e| e.to_string())?
        {
            let shown = tracking.trim_start_matches("refs/remotes/");
            base = Some((meet, format!("from where HEAD leaves {shown}")));
            break;
        }
    }
    let (base, from) = match base {
        Some(found) => found,
        None => {
            let baseline = Oid::from_hex(&task.record.baseline)
                .filter(|b| ctx.repo.has_object(*b))
                .ok_or_else(|| {
                    format!(
                        "task {}: its baseline {} is not a commit here, and no {remote}/HEAD, main or master says where CI's range starts",
                        task.record.id, task.record.baseline
                    )
                })?;
            (
                baseline,
                format!(
                    "from the task's baseline (no {remote}/HEAD, main or master here says where this branch leaves the default one)"
                ),
            )
        }
    };
    let commits = ctx
        .repo
        .walk(&[tip], &[base])
        .map_err(|e| e.to_string())?
        .len();
    Ok(CiRange {
        base,
        commits,
        from,
    })
}

/// The info finding, reported by `check`: the task is finished, and what
/// CI will prove.
pub fn task_finished(check: &'static str, f: &Finished) -> Finding {
    let id = &f.task.record.id;
    let range = format!("gate check --range {}..HEAD", f.ci.base.short());
    let s = if f.ci.commits == 1 { "" } else { "s" };
    let proves = if f.ci.commits == 0 {
        format!(
            "CI has nothing left to prove: no commit of HEAD's is new ({})",
            f.ci.from
        )
    } else {
        format!(
            "CI will prove `{range}`: {} commit{s} {}",
            f.ci.commits, f.ci.from
        )
    };
    let closing = if f.committed {
        String::new()
    } else {
        format!(
            "; its closing is not committed yet: commit {} (CI reads the committed file)",
            tasks::task_file(id).display()
        )
    };
    Finding::new(
        check,
        CAUSE,
        Severity::Info,
        format!(
            "task {id} is finished (completed; {}): this work is done, and no task is active{closing}. {proves}",
            f.found
        ),
        format!(
            "run `{range}` to see what CI will say; push the branch for review; for more work, start a task (`gate start --issue ID --brief FILE`)"
        ),
    )
    .with_subject(Subject {
        task: Some(id.clone()),
        ..Subject::default()
    })
}

/// The scope check of finished work: every change made since — staged,
/// unstaged, untracked — but task files changed as their own task may (a
/// closing not committed yet) is work no active task covers
/// (`no_active_task`); none is a pass.
pub fn scope_check(ctx: &Ctx, f: &Finished) -> (String, Vec<Finding>) {
    let id = &f.task.record.id;
    let changes = match crate::checks::scope::current_changes(ctx) {
        Ok(changes) => changes,
        Err(e) => {
            return (
                "changes unreadable".into(),
                vec![Finding::unknown(
                    crate::scope::CHECK,
                    "input_unreadable",
                    e.to_string(),
                    "repair the repository (git fsck), then check again".into(),
                )],
            );
        }
    };
    let mut others: Vec<String> = Vec::new();
    for change in &changes {
        for path in change.paths() {
            if !own_task_file(ctx, path) {
                others.push(path.quoted());
            }
        }
    }
    judge_changes_since(id, others)
}

/// The scope check of finished work `id`, judged on the changes made since
/// that are not its own task file's (`others`, quoted paths): none is a
/// pass, any is `no_active_task`. Pure.
pub fn judge_changes_since(id: &str, mut others: Vec<String>) -> (String, Vec<Finding>) {
    others.sort();
    others.dedup();
    if others.is_empty() {
        return (
            format!("task {id} is finished · no other change since"),
            vec![],
        );
    }
    let n = others.len();
    let s = if n == 1 { "" } else { "s" };
    let shown: Vec<&str> = others.iter().take(5).map(String::as_str).collect();
    let more = if n > 5 { ", …" } else { "" };
    (
        format!("task {id} is finished · {n} changed path{s} since"),
        vec![
            Finding::blocker(
                crate::scope::CHECK,
                "no_active_task",
                format!(
                    "task {id} is finished and no task is active, so nothing says what {n} changed path{s} may touch: {}{more}",
                    shown.join(", ")
                ),
                "start a task for the new work (`gate start --issue ID --brief FILE`), or take the changes out".into(),
            )
            .with_subject(Subject {
                task: Some(id.to_string()),
                ..Subject::default()
            }),
        ],
    )
}

/// Whether `path` is a task file whose every uncommitted version — the
/// index's and the work tree's — changes it as its own task may
/// ([`crate::checks::recorded::own_change`]). A deleted or unreadable one
/// is not.
fn own_task_file(ctx: &Ctx, path: &crate::path::RepoPath) -> bool {
    let Some(id) = crate::provenance::task_of_path(path) else {
        return false;
    };
    let staged = match ctx.index() {
        Ok(index) => ctx
            .repo
            .index_blob(index, path)
            .and_then(|(blob, _)| ctx.repo.read_blob(blob).ok()),
        Err(_) => return false,
    };
    let file = tasks::task_file(&id);
    let worktree = match crate::load::read_bytes_optional_as(&file, &ctx.root().join(&file)) {
        Ok(Some(bytes)) => bytes,
        _ => return false,
    };
    staged.is_none_or(|b| crate::checks::recorded::own_change(ctx, &id, &b))
        && crate::checks::recorded::own_change(ctx, &id, &worktree)
}

#[cfg(test)]
mod tests {
    //! Finished work on plain data: `task_finished` and `no_active_task`
    //! (docs/causes.md), with no repository.

    use super::*;
    use crate::task::TaskRecord;

    fn finished(committed: bool, commits: usize) -> Finished {
        let record = TaskRecord {
            id: "T-7".into(),
            status: TaskStatus::Completed,
            issue: Some("7".into()),
            ..crate::task::sample_record()
        };
        let body = crate::task::format::render_new_body("Do it.\n");
        let text = tasks::render(&record, &body);
        Finished {
            task: tasks::parse(std::path::Path::new(".gate/tasks/T-7.md"), text).unwrap(),
            found: "named by HEAD's commits".into(),
            committed,
            ci: CiRange {
                base: Oid::from_hex("0123456789abcdef0123456789abcdef01234567").unwrap(),
                commits,
                from: "since origin/main".into(),
            },
        }
    }

    #[test]
    fn finished_work_is_said_with_what_ci_will_prove() {
        let f = task_finished("scope", &finished(true, 3));
        assert_eq!((f.cause, f.severity), ("task_finished", Severity::Info));
        assert!(
            f.message
                .contains("task T-7 is finished (completed; named by HEAD's commits)"),
            "{}",
            f.message
        );
        assert!(
            f.message.ends_with(
                "CI will prove `gate check --range 0123456789ab..HEAD`: 3 commits since origin/main"
            ),
            "{}",
            f.message
        );
        let f = task_finished("scope", &finished(false, 0));
        assert!(
            f.message
                .contains("its closing is not committed yet: commit .gate/tasks/T-7.md"),
            "{}",
            f.message
        );
        assert!(
            f.message.contains("CI has nothing left to prove"),
            "{}",
            f.message
        );
    }

    #[test]
    fn a_change_since_finished_work_has_no_task_to_answer_for_it() {
        let (summary, found) = judge_changes_since("T-7", vec![]);
        assert_eq!(summary, "task T-7 is finished · no other change since");
        assert!(found.is_empty());
        let others: Vec<String> = ["b", "a", "c", "d", "e", "f", "a"]
            .map(String::from)
            .to_vec();
        let (summary, found) = judge_changes_since("T-7", others);
        assert_eq!(summary, "task T-7 is finished · 6 changed paths since");
        assert_eq!(found.len(), 1);
        let f = &found[0];
        assert_eq!(
            (f.check, f.cause, f.severity),
            ("scope", "no_active_task", Severity::Blocker)
        );
        assert!(
            f.message.ends_with("may touch: a, b, c, d, e, …"),
            "{}",
            f.message
        );
        assert_eq!(f.subject.task.as_deref(), Some("T-7"));
    }
}
