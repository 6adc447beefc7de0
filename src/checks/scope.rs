//! The scope check's inputs: the changes a target holds (staged, or the
//! task's staged, unstaged and untracked ones), judged by the pure
//! [`crate::scope::check_changes`] against the task's scope (docs/tasks.md).

use crate::checks::Target;
use crate::checks::TaskState;
use crate::checks::loaded;
use crate::ctx::Ctx;
use crate::git::{Change, ChangeKind, Renames, WorktreeState};
use crate::path::RepoPath;
use crate::provenance;
use crate::scope::{self, IssueCover, Scope, Touch};
use crate::verdict::Finding;
use crate::verdict::Outcome;

/// The scope check of `target` for `task`. `trailer` is the token that
/// names a commit's task (the policy's `provenance.trailer`, else `Task`):
/// a staged change HEAD's task covers names that task (an amend of its
/// commit, say).
pub fn check(
    ctx: &Ctx,
    task: &TaskState,
    target: &Target,
    trailer: &str,
) -> (String, Vec<Finding>) {
    let task = match loaded(scope::CHECK, task) {
        Ok(task) => task,
        Err(mut f) => {
            // A commit of closed (or other) tasks' own files only, each
            // changed as its task may, is theirs: no active task needed
            // (docs/tasks.md#closing-a-task).
            if let (TaskState::None, Target::Staged) = (task, target)
                && let Ok(changes) = staged_own_changes(ctx)
                && !changes.is_empty()
            {
                let theirs = own_task_changes(ctx, &changes);
                if theirs.len() == changes.len() {
                    let n = changes.len();
                    let s = if n == 1 { "" } else { "s" };
                    return (
                        format!(
                            "no task · {n} staged task file{s}, each changed as its own task may"
                        ),
                        vec![],
                    );
                }
                // HEAD's task covers every staged path (other tasks' own
                // files aside): switching to it gets the commit (an amend
                // of HEAD, say) through.
                if let Some((other, scope)) = heads_task(ctx, None, trailer)
                    && changes
                        .iter()
                        .filter(|c| !theirs.contains(&c.path))
                        .all(|c| c.paths().all(|p| scope.contains(p)))
                {
                    f.decide = format!(
                        "HEAD's commit is task {other}'s, whose scope covers every staged path: when this is its work (`git commit --amend` of HEAD, say), switch to it first (`gate task switch {other}`), then commit again; otherwise {}",
                        f.decide
                    )
                    .into();
                }
            }
            return ("no task".into(), vec![*f]);
        }
    };
    let id = &task.record.id;
    let scope = match Scope::new(&task.scope(), id) {
        Ok(s) => s,
        Err(m) => {
            return (
                "scope unreadable".into(),
                vec![Finding::unknown(
                    scope::CHECK,
                    "task_unreadable",
                    format!("task {id}: scope: {m}"),
                    "fix the task's scope globs".into(),
                )],
            );
        }
    };
    let changes = match target {
        Target::Staged => staged_own_changes(ctx).map(|c| (c, "staged")),
        _ => current_changes(ctx).map(|c| (c, "changed")),
    };
    match changes {
        Ok((mut changes, what)) => {
            let n: usize = changes.iter().map(|c| c.paths().count()).sum();
            // Another task's file, staged as that task may change it (a
            // closing, an appended entry), is that task's.
            if let Target::Staged = target {
                let theirs = own_task_changes(ctx, &changes);
                changes.retain(|c| !theirs.contains(&c.path));
            }
            let mut findings = scope::check_changes(&scope, id, &changes, None);
            if let Target::Staged = target
                && !findings.is_empty()
            {
                name_heads_task(ctx, id, trailer, &mut findings);
            }
            (
                format!(
                    "{n} {what} path{} against task {id}",
                    if n == 1 { "" } else { "s" }
                ),
                findings,
            )
        }
        Err(e) => (
            "changes unreadable".into(),
            vec![Finding::unknown(
                scope::CHECK,
                "input_unreadable",
                e.to_string(),
                "repair the repository (git fsck), then check again".into(),
            )],
        ),
    }
}

/// The task HEAD's commit names by its `trailer` — one active task other
/// than `active`, whose file loads — with its recorded scope: the task a
/// `git commit --amend` of HEAD works on. `None` when there is no such
/// task or it cannot be read: the usual remedy stands then.
fn heads_task(ctx: &Ctx, active: Option<&str>, trailer: &str) -> Option<(String, Scope)> {
    let head = ctx.head().ok()?.id()?;
    let message = ctx.repo.commit(head).ok()?.message;
    let named = provenance::trailer_values(&message, trailer);
    let [named] = named.as_slice() else {
        return None;
    };
    if Some(named.as_str()) == active {
        return None;
    }
    let TaskState::Loaded(task) = crate::checks::task_state(ctx, Some(named)) else {
        return None;
    };
    if task.record.status != crate::task::TaskStatus::Active {
        return None;
    }
    let scope = Scope::new(&task.scope(), named).ok()?;
    Some((named.clone(), scope))
}

/// A staged path outside task `active`'s scope that HEAD's task covers:
/// the remedy names `gate task switch` to that task first (docs/hooks.md),
/// which is what gets an amend of its commit through.
fn name_heads_task(ctx: &Ctx, active: &str, trailer: &str, findings: &mut [Finding]) {
    let Some((other, scope)) = heads_task(ctx, Some(active), trailer) else {
        return;
    };
    for f in findings.iter_mut() {
        if f.cause == "path_outside_scope"
            && f.subject.path.as_ref().is_some_and(|p| scope.contains(p))
        {
            f.decide = format!(
                "HEAD's commit is task {other}'s, whose scope covers it: when this is {other}'s work (`git commit --amend` of HEAD, say), switch to that task first (`gate task switch {other}`), then commit again; otherwise {}",
                f.decide
            )
            .into();
        }
    }
}

/// How files gate writes for agents (`AGENTS.md`, `.claude/settings.json`)
/// get committed here, by the policy the commit hooks judge with
/// (docs/agents.md, "Committing gate's agent files").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommitRoute {
    /// The scope check is not `required`: a commit like any other.
    Free,
    /// The active task's recorded scope covers every one: commit them with
    /// its work.
    InTask(String),
    /// Under `scope: required` (or a policy that cannot be read), with no
    /// active task covering them: a task of their own whose scope holds
    /// them.
    OwnTask {
        /// The policy declares the `governance` exemption class, the way
        /// gate's own files change (docs/policy.md#governance).
        governance: bool,
        /// A start must name what it serves (`binding: required`).
        binding_required: bool,
        /// The task active now, to switch back to afterwards.
        active: Option<String>,
    },
}

/// The way `paths` (repository-relative) get committed here: see
/// [`CommitRoute`]. What cannot be read counts as `required`.
pub fn commit_route(ctx: &Ctx, paths: &[RepoPath]) -> CommitRoute {
    use crate::policy::Mode;
    let policy = crate::checks::trusted::local(ctx, false)
        .ok()
        .map(|(p, _)| p.policy);
    if policy.as_ref().is_some_and(|p| p.scope != Mode::Required) {
        return CommitRoute::Free;
    }
    let mut active = None;
    if let TaskState::Loaded(t) = crate::checks::task_state(ctx, None) {
        let id = t.record.id.clone();
        if Scope::new(&t.scope(), &id).is_ok_and(|s| paths.iter().all(|p| s.contains(p))) {
            return CommitRoute::InTask(id);
        }
        active = Some(id);
    }
    CommitRoute::OwnTask {
        governance: policy
            .as_ref()
            .is_none_or(|p| p.exemption("governance").is_some()),
        binding_required: policy.as_ref().is_none_or(|p| p.binding == Mode::Required),
        active,
    }
}

/// What `gate may-touch` and the agent hooks ask before an edit: for each
/// repository-relative path, may `task` touch it — judged against the
/// task's RECORDED scope and recorded additions, as the scope check judges
/// ([`crate::checks::task_state`], docs/trust.md), so an uncommitted edit of
/// the scope widens nothing. Each path also names the open plan issues whose
/// paths cover it. Returns the answers and the notes (a plan that could not
/// be read: which issue covers a path is then unknown, the verdict is not).
pub fn may_touch(ctx: &Ctx, task: &TaskState, paths: &[RepoPath]) -> (Vec<Touch>, Vec<String>) {
    let mut notes = Vec::new();
    let covers = match ctx.plan() {
        Ok(plan) => plan
            .map(|p| issue_covers(&p.plan, paths))
            .unwrap_or_else(|| vec![Vec::new(); paths.len()]),
        Err(f) => {
            notes.push(format!(
                "the plan could not be read, so which issue covers a path is unknown: {}",
                f.message
            ));
            vec![Vec::new(); paths.len()]
        }
    };
    // The scope every path is judged with, or why none can be: then each
    // path is unknown, with what decides it.
    let judged: Result<(Scope, &str), (String, Option<&str>)> = match task {
        TaskState::Loaded(t) => {
            let id = t.record.id.as_str();
            Scope::new(&t.scope(), id)
                .map(|scope| (scope, id))
                .map_err(|m| {
                    (
                        format!("task {id}: scope: {m}"),
                        Some("fix the task's scope globs"),
                    )
                })
        }
        TaskState::None => Err((
            "no task is active in this worktree, so nothing says what this work may touch".into(),
            None,
        )),
        TaskState::Unreadable(m) => Err((
            format!("the task could not be read: {m}"),
            Some("fix the task file, or switch to another task with `gate task switch ID`"),
        )),
    };
    let touches = paths
        .iter()
        .zip(covers)
        .map(|(path, issues)| match &judged {
            Ok((scope, id)) => scope::touch(scope, id, path, issues),
            Err((reason, decide)) => {
                // No task: start one for the issue that covers the path.
                let decide = decide.map(str::to_string).unwrap_or_else(|| {
                    let issue = issues.first().map_or("ID", |c| c.issue.as_str());
                    format!("start a task for the work (`gate start --issue {issue} --brief -`, the operator's request on stdin), or switch to one (`gate task switch ID`)")
                });
                Touch {
                    path: path.clone(),
                    verdict: Outcome::Unknown,
                    pattern: None,
                    issues,
                    reason: reason.clone(),
                    decide: Some(decide),
                }
            }
        })
        .collect();
    (touches, notes)
}

/// For each path, the open issues of `plan` whose paths cover it.
fn issue_covers(plan: &crate::plan::Plan, paths: &[RepoPath]) -> Vec<Vec<IssueCover>> {
    let open: Vec<(&crate::plan::Issue, Option<Scope>)> = plan
        .issues
        .iter()
        .filter(|i| i.status == crate::plan::IssueStatus::Open)
        .map(|i| (i, Scope::new(&i.paths, "-").ok()))
        .collect();
    paths
        .iter()
        .map(|path| {
            open.iter()
                .filter(|(_, s)| s.as_ref().is_some_and(|s| s.contains(path)))
                .map(|(i, _)| IssueCover {
                    issue: i.id.clone(),
                    intent: i.intent.clone(),
                })
                .collect()
        })
        .collect()
}

/// The paths of `changes` that are task files staged as their own task may
/// change them ([`crate::checks::recorded::own_change`]): modified or added, the
/// index's version read.
fn own_task_changes(ctx: &Ctx, changes: &[Change]) -> Vec<crate::path::RepoPath> {
    let Ok(index) = ctx.index() else {
        return Vec::new();
    };
    changes
        .iter()
        .filter(|c| matches!(c.kind, ChangeKind::Modified | ChangeKind::Added) && c.from.is_none())
        .filter(|c| {
            let Some(id) = provenance::task_of_path(&c.path) else {
                return false;
            };
            ctx.repo
                .index_blob(index, &c.path)
                .and_then(|(blob, _)| ctx.repo.read_blob(blob).ok())
                .is_some_and(|bytes| crate::checks::recorded::own_change(ctx, &id, &bytes))
        })
        .map(|c| c.path.clone())
        .collect()
}

/// The staged changes the next commit makes itself. When a merge is being
/// concluded (`MERGE_HEAD`), that is every path where the index does not
/// hold what a clean merge of the parents gives (decision 0023): a side's
/// change the merge drops is its own too, as the push and CI judge it;
/// what the other side brought in unchanged was proved on that side.
fn staged_own_changes(ctx: &Ctx) -> Result<Vec<Change>, crate::git::GitError> {
    let changes = ctx.staged_changes()?.to_vec();
    let merging = ctx.repo.merge_heads()?;
    if merging.is_empty() {
        return Ok(changes);
    }
    let Some(head) = ctx.head()?.id() else {
        return Ok(changes);
    };
    let index = ctx.index()?;
    // The paths where the index differs from a parent: the only ones a
    // merge can have made (equal to every parent, it is every side's).
    let mut candidates: Vec<crate::path::RepoPath> =
        changes.iter().flat_map(|c| c.paths().cloned()).collect();
    for other in &merging {
        for c in ctx
            .repo
            .index_changes_against(index, *other, Renames::Off)?
        {
            candidates.extend(c.paths().cloned());
        }
    }
    candidates.sort();
    candidates.dedup();
    let own = ctx
        .repo
        .staged_merge_own(index, head, &merging, &candidates)?;
    let mut out: Vec<Change> = changes
        .into_iter()
        .filter(|c| c.paths().any(|p| own.contains(p)))
        .collect();
    // A path the index keeps as HEAD has it while the other side changed
    // it: the merge dropped that change, so it is the merge's own too.
    for path in own {
        if !out.iter().any(|c| c.paths().any(|p| *p == path)) {
            out.push(Change {
                kind: ChangeKind::Modified,
                path,
                from: None,
                old: None,
                new: None,
            });
        }
    }
    Ok(out)
}

/// Staged, unstaged and untracked changes: everything the next commit could hold.
pub(crate) fn current_changes(ctx: &Ctx) -> Result<Vec<Change>, crate::git::GitError> {
    let staged = ctx.staged_changes()?;
    let seen: std::collections::HashSet<&crate::path::RepoPath> =
        staged.iter().flat_map(Change::paths).collect();
    let mut changes = staged.to_vec();
    for entry in ctx.worktree_status()? {
        if seen.contains(&entry.path) {
            continue;
        }
        let kind = match entry.state {
            WorktreeState::Deleted => ChangeKind::Deleted,
            WorktreeState::TypeChanged => ChangeKind::TypeChanged,
            WorktreeState::Untracked => ChangeKind::Added,
            WorktreeState::Modified | WorktreeState::Conflicted => ChangeKind::Modified,
            WorktreeState::Ignored => continue,
        };
        changes.push(Change {
            kind,
            path: entry.path,
            from: None,
            old: None,
            new: None,
        });
    }
    Ok(changes)
}
