//! `gate check`: run the checks under the policy modes and report.
//!
//! - `--staged`: scope of the staged changes against HEAD (pre-commit);
//! - `--range A..B`: provenance of every commit in the range;
//! - neither: the task's `baseline..HEAD` (provenance) and its current state
//!   (scope of staged, unstaged and untracked changes).

use std::path::Path;

use super::{Ctx, Failure, out, policy_origin, task_ref, trusted};
use crate::cli::{CheckArgs, CheckName};
use crate::git::{Change, ChangeKind, Renames, Repo, WorktreeState};
use crate::policy::LoadedPolicy;
use crate::provenance;
use crate::report::{Finding, Report, human, json};
use crate::scope::{self, Scope};
use crate::task::Task;

/// What a run looks at.
#[derive(Debug, Clone)]
pub enum Target {
    /// Staged changes (pre-commit).
    Staged,
    /// A revision range given as `A..B`.
    Range(String),
    /// The task's baseline..HEAD and its current state.
    Task,
}

pub fn run(dir: Option<&Path>, args: &CheckArgs) -> Result<i32, Failure> {
    let result = (|| {
        let target = match (&args.range, args.staged) {
            (Some(r), _) => Target::Range(r.clone()),
            (None, true) => Target::Staged,
            (None, false) => Target::Task,
        };
        let ctx = match Ctx::open(dir) {
            Ok(ctx) => ctx,
            Err(failure) => {
                // A bare repository (a server) has no work tree, but a range
                // needs none.
                if let Target::Range(spec) = &target
                    && let Some(repo) = bare_repo(dir)
                {
                    return build_bare(&repo, spec, args, &args.only);
                }
                return Err(failure);
            }
        };
        let (policy, loosened) = match &target {
            Target::Range(spec) => {
                let local = || Ok(trusted::local(&ctx, false)?.0);
                (range_policy(&ctx.repo, spec, args, None, local)?, vec![])
            }
            Target::Staged => trusted::local(&ctx, true)?,
            Target::Task => trusted::local(&ctx, false)?,
        };
        let mut report = build(
            &ctx,
            &policy,
            args.task.as_deref(),
            &target,
            &args.only,
            "check".into(),
        )?;
        report.attach(loosened);
        Ok(report)
    })();
    // An error under --json is printed as gate.error/1 by commands::run.
    let report = result?;
    out(&if args.json {
        json::to_string(&json::report(&report))
    } else {
        human::render(&report)
    });
    Ok(report.exit_code())
}

/// The task a run is about: named, active, or none; an unreadable task is
/// kept as its error so each check can report it as unknown.
pub enum TaskState {
    None,
    Loaded(Box<Task>),
    Unreadable(String),
}

/// A loaded task carries its recorded frozen fields (docs/trust.md).
pub fn task_state(ctx: &Ctx, id: Option<&str>) -> TaskState {
    match ctx.task(id) {
        Ok(Some(t)) => match super::recorded::judged(ctx, t) {
            Ok(t) => TaskState::Loaded(Box::new(t)),
            Err(m) => TaskState::Unreadable(format!("its recorded version: {m}")),
        },
        Ok(None) => TaskState::None,
        Err(f) => TaskState::Unreadable(f.message),
    }
}

/// Run the checks for `target` and gather them into a report.
pub fn build(
    ctx: &Ctx,
    policy: &LoadedPolicy,
    task_id: Option<&str>,
    target: &Target,
    only: &[CheckName],
    verb: String,
) -> Result<Report, Failure> {
    let task = task_state(ctx, task_id);
    let p = &policy.policy;
    let wants = |c: CheckName| only.is_empty() || only.contains(&c);
    let mut report = Report {
        verb,
        policy: policy_origin(policy),
        task: match &task {
            TaskState::Loaded(t) => Some(task_ref(t)),
            _ => None,
        },
        checks: vec![],
        skipped: vec![],
        notes: p.notes.clone(),
    };
    let scope_applies = match target {
        Target::Range(_) => Err("a range is proved by provenance, commit by commit"),
        _ => Ok(()),
    };
    // A rewrite of the task's frozen fields is reported by the check that
    // judges the work's paths with them: scope, else provenance
    // (decision 0014). A range in CI judges commits only.
    let scope_runs = wants(CheckName::Scope) && p.scope.runs();
    let mut rewritten = |check| match (&task, target) {
        (TaskState::Loaded(t), Target::Staged | Target::Task) => {
            let staged = matches!(target, Target::Staged);
            let (findings, note) =
                super::recorded::rewrite_findings(ctx, &t.record.id, check, staged);
            report.notes.extend(note);
            findings
        }
        _ => Vec::new(),
    };
    let rewrites = rewritten(if scope_runs {
        scope::CHECK
    } else {
        provenance::CHECK
    });
    let (scope_rewrites, prov_rewrites) = if scope_runs {
        (rewrites, Vec::new())
    } else {
        (Vec::new(), rewrites)
    };
    if wants(CheckName::Scope) {
        report.run(scope::CHECK, p.scope, scope_applies, || {
            let (summary, mut findings) = scope_check(ctx, &task, target);
            findings.extend(scope_rewrites);
            (summary, findings)
        });
    }
    let prov_applies = match target {
        Target::Staged => Err("staged changes have no commits yet"),
        _ => Ok(()),
    };
    if wants(CheckName::Provenance) {
        report.run(provenance::CHECK, p.provenance.mode, prov_applies, || {
            let (summary, mut findings) = provenance_check(ctx, policy, &task, target);
            findings.extend(prov_rewrites);
            (summary, findings)
        });
    }
    let receipts_applies = match target {
        Target::Staged => Err("pre-commit runs scope (and brief) only"),
        Target::Range(_) => Err(
            "receipts are local to a clone: `gate check` without --range, and pre-push, prove them",
        ),
        Target::Task => Ok(()),
    };
    if wants(CheckName::Receipts) {
        report.run(
            super::status::CHECK,
            p.receipts.mode,
            receipts_applies,
            || receipts_with_plan(ctx, &policy.policy, &task),
        );
    }
    if wants(CheckName::Brief) {
        report.run(crate::brief::CHECK, p.brief.mode, Ok(()), || {
            brief_check(ctx, &policy.policy, &task, target)
        });
    }
    let binding_applies = match target {
        Target::Staged => Err("pre-commit runs scope (and brief) only"),
        Target::Range(_) => Err(
            "a range is proved by provenance; `gate check` without --range, and pre-push, ask the binding",
        ),
        Target::Task => Ok(()),
    };
    if wants(CheckName::Binding) {
        report.run(crate::binding::CHECK, p.binding, binding_applies, || {
            binding_check(ctx, &policy.policy, &task)
        });
    }
    Ok(report)
}

/// The brief check for a target: the task's brief, and the append-only rule
/// over what the target holds.
fn brief_check(
    ctx: &Ctx,
    policy: &crate::policy::Policy,
    task: &TaskState,
    target: &Target,
) -> (String, Vec<Finding>) {
    use super::brief::{self, Scope};
    let today = crate::clock::Timestamp::now().date();
    match target {
        Target::Staged => brief::check(ctx, policy, task, Scope::Staged, today),
        Target::Task => brief::check(ctx, policy, task, Scope::Task, today),
        Target::Range(spec) => match provenance::parse_range(&ctx.repo, spec) {
            Ok(range) => {
                let hidden = range.base.hidden();
                let ranges = [(range.tip, hidden, None)];
                brief::check(
                    ctx,
                    policy,
                    task,
                    Scope::Ranges {
                        ranges: &ranges,
                        with_task: false,
                    },
                    today,
                )
            }
            Err(f) => (
                "range unreadable".into(),
                vec![Finding {
                    check: crate::brief::CHECK,
                    ..*f
                }],
            ),
        },
    }
}

/// The binding check: ask the binding again for the task's names.
pub fn binding_check(
    ctx: &Ctx,
    policy: &crate::policy::Policy,
    task: &TaskState,
) -> (String, Vec<Finding>) {
    let t = match loaded(crate::binding::CHECK, task) {
        Ok(task) => task,
        Err(f) => return ("no task".into(), vec![*f]),
    };
    // The standing and its refusals need no evidence: the pins are
    // `handover`'s business, and the receipts check reads the receipts.
    match super::binding::judge(ctx, policy, &super::binding::naming_of(t)) {
        Ok((_, judgement)) => (
            format!("task {} is {}", t.record.id, judgement.standing.as_str()),
            super::binding::findings(&judgement),
        ),
        Err(f) => (
            "the binding could not be asked".into(),
            vec![Finding::unknown(
                crate::binding::CHECK,
                "input_unreadable",
                f.message,
                "fix .gate/plan.yaml or .gate/policy.yaml, then check again".into(),
            )],
        ),
    }
}

/// The receipts check, reading the plan; an unreadable plan is unknown.
pub fn receipts_with_plan(
    ctx: &Ctx,
    policy: &crate::policy::Policy,
    task: &TaskState,
) -> (String, Vec<Finding>) {
    match ctx.plan() {
        Ok(plan) => super::status::receipts_check(ctx, policy, plan.map(|p| &p.plan), task),
        Err(f) => (
            "the plan could not be read".into(),
            vec![Finding::unknown(
                super::status::CHECK,
                "input_unreadable",
                f.message,
                "fix .gate/plan.yaml, then check again".into(),
            )],
        ),
    }
}

/// The task a check needs, or the finding that there is none
/// (`no_active_task`) or that it cannot be read (`task_unreadable`, unknown).
pub fn loaded<'t>(check: &'static str, task: &'t TaskState) -> Result<&'t Task, Box<Finding>> {
    match task {
        TaskState::Loaded(task) => Ok(task),
        TaskState::None => Err(Box::new(Finding {
            check,
            cause: "no_active_task",
            severity: crate::report::Severity::Blocker,
            unknown: false,
            message: "no task is active in this worktree, so nothing says what this work may touch".into(),
            decide: "start a task for the issue (`gate start --issue ID --brief FILE`) or switch to one (`gate task switch ID`)".into(),
            subject: Default::default(),
        })),
        TaskState::Unreadable(m) => Err(Box::new(Finding::unknown(
            check,
            "task_unreadable",
            format!("the task could not be read: {m}"),
            "fix the task file, or switch to another task with `gate task switch ID`".into(),
        ))),
    }
}

fn scope_check(ctx: &Ctx, task: &TaskState, target: &Target) -> (String, Vec<Finding>) {
    let task = match loaded(scope::CHECK, task) {
        Ok(task) => task,
        Err(f) => {
            // A commit of closed (or other) tasks' own files only, each
            // changed as its task may, is theirs: no active task needed
            // (docs/tasks.md#closing-a-task).
            if let (TaskState::None, Target::Staged) = (task, target)
                && let Ok(changes) = staged_own_changes(ctx)
                && !changes.is_empty()
                && own_task_changes(ctx, &changes).len() == changes.len()
            {
                let n = changes.len();
                let s = if n == 1 { "" } else { "s" };
                return (
                    format!("no task · {n} staged task file{s}, each changed as its own task may"),
                    vec![],
                );
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
            let findings = scope::check_changes(&scope, id, &changes, None);
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

/// The paths of `changes` that are task files staged as their own task may
/// change them ([`super::recorded::own_change`]): modified or added, the
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
                .is_some_and(|bytes| super::recorded::own_change(ctx, &id, &bytes))
        })
        .map(|c| c.path.clone())
        .collect()
}

/// The staged changes the next commit makes itself. When a merge is being
/// concluded (`MERGE_HEAD`), that is the paths that differ from every parent —
/// what the other side brought in unchanged was proved on that side
/// (decision 0009) and is provenance's business at push.
fn staged_own_changes(ctx: &Ctx) -> Result<Vec<Change>, crate::git::GitError> {
    let changes = ctx.staged_changes()?.to_vec();
    let merging = ctx.repo.merge_heads()?;
    if merging.is_empty() {
        return Ok(changes);
    }
    let mut others = Vec::new();
    for head in merging {
        let against: std::collections::HashSet<_> = ctx
            .repo
            .index_changes_against(ctx.index()?, head, Renames::Off)?
            .into_iter()
            .map(|c| c.path)
            .collect();
        others.push(against);
    }
    Ok(changes
        .into_iter()
        .filter(|c| c.paths().any(|p| others.iter().all(|o| o.contains(p))))
        .collect())
}

/// Staged, unstaged and untracked changes: everything the next commit could hold.
fn current_changes(ctx: &Ctx) -> Result<Vec<Change>, crate::git::GitError> {
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

fn provenance_check(
    ctx: &Ctx,
    policy: &LoadedPolicy,
    task: &TaskState,
    target: &Target,
) -> (String, Vec<Finding>) {
    let range = match target {
        Target::Range(spec) => match provenance::parse_range(&ctx.repo, spec) {
            Ok(r) => r,
            Err(f) => return ("range unreadable".into(), vec![*f]),
        },
        _ => {
            let t = match loaded(provenance::CHECK, task) {
                Ok(task) => task,
                Err(f) => return ("no task".into(), vec![*f]),
            };
            match provenance::task_range(&ctx.repo, t) {
                Ok(r) => r,
                Err(f) => return ("range unreadable".into(), vec![*f]),
            }
        }
    };
    let default_task = match task {
        TaskState::Loaded(t) => Some(t.as_ref()),
        _ => None,
    };
    let tasks = provenance::TaskSet::gather(&ctx.repo, Some(ctx.root()), range.tip, default_task);
    let opts = provenance::Options {
        task_range: matches!(target, Target::Task),
        ..provenance::Options::default()
    };
    let (summary, mut findings) =
        provenance::check(&ctx.repo, &policy.policy, &tasks, &range, &opts);
    findings.extend(unreadable_task(provenance::CHECK, task));
    if let Target::Range(_) = target {
        findings.extend(trusted::changed_findings(
            &ctx.repo,
            policy,
            &range.base.hidden(),
            range.tip,
            provenance::CHECK,
            crate::report::Severity::Blocker,
        ));
    }
    (summary, findings)
}

/// A named or active task that could not be read, for the range proofs:
/// its commits were attributed without it, so the range is not proved as
/// asked (unknown). No task at all is fine there: trailers attribute.
pub fn unreadable_task(check: &'static str, task: &TaskState) -> Option<Finding> {
    match task {
        TaskState::Unreadable(_) => loaded(check, task).err().map(|f| *f),
        _ => None,
    }
}

/// The repository at `dir` (else the current directory) when it is bare.
fn bare_repo(dir: Option<&Path>) -> Option<Repo> {
    let start = match dir {
        Some(d) => d.to_path_buf(),
        None => std::env::current_dir().ok()?,
    };
    Repo::discover(&start)
        .ok()
        .filter(|repo| repo.workdir().is_none())
}

/// `gate check --range` in a bare repository (a server's `pre-receive` or
/// `update` hook): no work tree, so no active task and nothing local. The
/// policy is the one HEAD's tree holds (the branch the server serves, before
/// the push lands, so a push cannot loosen the policy it is judged by); the
/// tasks are those of the range's tip, and the commits' trailers.
fn build_bare(
    repo: &Repo,
    spec: &str,
    args: &CheckArgs,
    only: &[CheckName],
) -> Result<Report, Failure> {
    let task_id = args.task.as_deref();
    let head = match &args.policy_from {
        Some(_) => None,
        None => Some(committed_policy(repo)?),
    };
    let fallback = || {
        head.clone()
            .ok_or_else(|| Failure::unknown("no policy to judge with"))
    };
    let policy = range_policy(repo, spec, args, head.as_ref(), fallback)?;
    let p = &policy.policy;
    let mut report = Report {
        verb: "check".into(),
        policy: policy_origin(&policy),
        task: None,
        checks: vec![],
        skipped: vec![],
        notes: p.notes.clone(),
    };
    report
        .notes
        .push("a bare repository: tasks come from the range's tip and its trailers".into());
    let wants = |c: CheckName| only.is_empty() || only.contains(&c);
    if wants(CheckName::Scope) {
        let why = "a range is proved by provenance, commit by commit";
        report.skip(scope::CHECK, p.scope, why);
    }
    if wants(CheckName::Binding) {
        let why =
            "a range is proved by provenance; the binding is asked where work starts and is pushed";
        report.skip(crate::binding::CHECK, p.binding, why);
    }
    if wants(CheckName::Receipts) {
        let why = "receipts are local to a clone; a bare repository has none";
        report.skip(super::status::CHECK, p.receipts.mode, why);
    }
    // The range is resolved once for both checks, and a --task the tip does
    // not hold refuses the whole verb before any check runs.
    let range = provenance::parse_range(repo, spec);
    let named = match (&range, task_id) {
        (Ok(range), Some(id)) => {
            let mut tasks = provenance::TaskSet::gather(repo, None, range.tip, None);
            if !tasks.set_default(id) {
                return Err(Failure::refused(format!(
                    "no task `{id}` in {} (the range's tip)",
                    range.tip.short()
                ))
                .hint("name a task whose file the tip holds, or leave --task out"));
            }
            Some(tasks)
        }
        _ => None,
    };
    let unreadable = |f: &Finding, check| {
        let finding = Finding { check, ..f.clone() };
        ("range unreadable".to_string(), vec![finding])
    };
    if wants(CheckName::Brief) {
        report.run(crate::brief::CHECK, p.brief.mode, Ok(()), || match &range {
            Err(f) => unreadable(f, crate::brief::CHECK),
            Ok(range) => {
                let (n, findings) =
                    super::brief::range_findings(repo, range.tip, &range.base.hidden());
                (super::brief::commits_changing_tasks(n), findings)
            }
        });
    }
    if wants(CheckName::Provenance) {
        report.run(
            provenance::CHECK,
            p.provenance.mode,
            Ok(()),
            || match &range {
                Err(f) => unreadable(f, provenance::CHECK),
                Ok(range) => {
                    let tasks = named.unwrap_or_else(|| {
                        provenance::TaskSet::gather(repo, None, range.tip, None)
                    });
                    let (summary, mut findings) =
                        provenance::check(repo, p, &tasks, range, &provenance::Options::default());
                    findings.extend(trusted::changed_findings(
                        repo,
                        &policy,
                        &range.base.hidden(),
                        range.tip,
                        provenance::CHECK,
                        crate::report::Severity::Blocker,
                    ));
                    (summary, findings)
                }
            },
        );
    }
    Ok(report)
}

/// The policy a bare repository's HEAD holds: a server judges with the
/// branch it serves, before the push lands. An unborn HEAD has no policy to
/// judge with: unknown, never the embedded default (docs/trust.md).
fn committed_policy(repo: &Repo) -> Result<LoadedPolicy, Failure> {
    match repo.head()?.id() {
        Some(head) => Ok(crate::policy::at_commit(repo, head, "HEAD")?),
        None => Err(Failure::unknown(
            "HEAD has no commit in this bare repository, so there is no policy to judge with",
        )
        .hint("push the branch HEAD names first, or pass --policy-from REV")),
    }
}

/// The policy a range is judged with (docs/trust.md): `--policy-from REV`'s,
/// else the range's base's — in a bare repository no looser than HEAD's
/// (`floor`). A `--policy-from` that does not resolve is unknown. A range
/// whose base does not resolve has no base policy: its provenance finding
/// says so, judged as `required` so that it is unknown, never a pass.
fn range_policy(
    repo: &Repo,
    spec: &str,
    args: &CheckArgs,
    floor: Option<&LoadedPolicy>,
    fallback: impl FnOnce() -> Result<LoadedPolicy, Failure>,
) -> Result<LoadedPolicy, Failure> {
    if let Some(rev) = &args.policy_from {
        return trusted::at_revision(repo, rev, "--policy-from");
    }
    let base = match provenance::parse_range(repo, spec) {
        Ok(range) => match range.base {
            provenance::Base::Commit(base) => Some(base),
            provenance::Base::Hidden(_) => None,
        },
        Err(_) => None,
    };
    let Some(base) = base else {
        // The modes shown are the local ones (HEAD's, no looser in the work
        // tree), with provenance made required.
        let mut fallback = fallback()?;
        fallback.policy.provenance.mode = crate::policy::Mode::Required;
        fallback.revision = format!(
            "unknown: the range's base does not resolve ({} shown, provenance required)",
            fallback.revision
        );
        return Ok(fallback);
    };
    let at_base = trusted::at(repo, base, "the range's base")?;
    Ok(match floor {
        Some(floor) => trusted::combine(at_base, floor),
        None => at_base,
    })
}
