//! The receipts check (docs/receipts.md): each check a task depends on as
//! passed, failed, stale, running, missing or unknown, and the acceptance
//! criteria it serves — the [`Status`] `gate status` shows and the findings
//! `gate check` and pre-push report.

use crate::checks::TaskState;
use crate::checks::loaded;
use crate::context::Ctx;
use crate::error::Failure;
use crate::plan::Plan;
use crate::policy::Policy;
use crate::receipts::{self, CheckStatus, Context, Served, State, Store, UnknownCause};
use crate::report::{Finding, Severity, Subject};
use crate::task::Task;

pub const CHECK: &str = "receipts";

/// What `gate status` shows of one task: the criteria it serves and the
/// state of each check it depends on.
pub struct Status {
    pub served: Vec<Served>,
    pub checks: Vec<CheckStatus>,
}

/// What a task touched (nothing without one), with the staged paths of
/// `index` when given (else of the index read now).
pub fn touched(
    ctx: &Ctx,
    task: Option<&Task>,
    index: Option<&crate::git::IndexSnapshot>,
) -> Result<crate::fingerprint::Touched, Failure> {
    match task {
        Some(t) => {
            let baseline = crate::git::Oid::from_hex(&t.record.baseline).ok_or_else(|| {
                Failure::unknown(format!(
                    "task {}: baseline is not an object id",
                    t.record.id
                ))
            })?;
            let touched = match index {
                Some(index) => crate::fingerprint::Touched::of_task_in(&ctx.repo, index, baseline)?,
                None => crate::fingerprint::Touched::of_task(&ctx.repo, baseline)?,
            };
            Ok(touched)
        }
        None => Ok(crate::fingerprint::Touched::none()),
    }
}

/// Evaluate the checks a task depends on (every plan check when there is no task).
pub fn status(
    ctx: &Ctx,
    policy: &Policy,
    plan: &Plan,
    task: Option<&Task>,
) -> Result<Status, Failure> {
    let (served, checks): (Vec<Served>, Vec<String>) = match task {
        Some(t) => {
            let served = receipts::resolve_served(
                plan,
                t.record.issue.as_deref(),
                t.record.intent.as_deref(),
            )
            .map_err(|m| unresolved(t, &m))?;
            let checks = receipts::dependent_checks(&served);
            (served, checks)
        }
        None => (
            Vec::new(),
            plan.checks.iter().map(|c| c.id.clone()).collect(),
        ),
    };
    let store = Store::new(&ctx.repo.common_dir());
    // Stat on the other core while this one works out what is covered.
    let sources: Vec<&[String]> = checks
        .iter()
        .filter_map(|id| plan.checks.iter().find(|c| &c.id == id))
        .map(|c| c.sources.as_slice())
        .collect();
    let prefetch = (!checks.is_empty())
        .then(|| crate::fingerprint::Prefetch::start(&ctx.repo, &store.cache_dir(), &sources))
        .flatten();
    // One reading of the index for the staged paths and every fingerprint.
    let index = match task.is_some() || !checks.is_empty() {
        true => Some(ctx.index()?),
        false => None,
    };
    let touched = touched(ctx, task, index)?;
    let worktree = crate::context::worktree_key(ctx);
    let rctx = Context {
        repo: &ctx.repo,
        store: &store,
        plan,
        policy,
        worktree: &worktree,
        task: task.map(|t| t.record.id.as_str()),
        task_created_at: task.map(|t| t.record.created_at.as_str()),
        touched: &touched,
        index,
        prefetch: prefetch.as_ref(),
        progress: ctx.progress,
    };
    Ok(Status {
        checks: receipts::evaluate(&rctx, &checks),
        served,
    })
}

/// The receipts check of `gate check` and pre-push, against `plan`.
pub fn check_with(
    ctx: &Ctx,
    policy: &Policy,
    plan: Option<&Plan>,
    task: &TaskState,
) -> (String, Vec<Finding>) {
    let task = match loaded(CHECK, task) {
        Ok(task) => task,
        Err(f) => return ("no task".into(), vec![*f]),
    };
    let Some(plan) = plan else {
        if task.record.issue.is_none() && task.record.intent.is_none() {
            return ("no plan: the task depends on no check".into(), vec![]);
        }
        // The task names an issue or intent: the checks it depends on are
        // in a plan that is not there (docs/receipts.md).
        return (
            "no plan: which checks the task depends on is unknown".into(),
            vec![Finding::unknown(
                CHECK,
                "input_unreadable",
                format!(
                    "task {} names {}, but there is no .gate/plan.yaml: which checks it depends on cannot be told",
                    task.record.id,
                    named(task)
                ),
                "restore .gate/plan.yaml (git checkout -- .gate/plan.yaml), then check again"
                    .into(),
            )],
        );
    };
    if let Err(m) = receipts::resolve_served(
        plan,
        task.record.issue.as_deref(),
        task.record.intent.as_deref(),
    ) {
        return (
            "the task's plan entry does not resolve".into(),
            vec![Finding::unknown(
                CHECK,
                "input_unreadable",
                unresolved(task, &m).message,
                UNRESOLVED_DECIDE.into(),
            )],
        );
    }
    let status = match status(ctx, policy, plan, Some(task)) {
        Ok(s) => s,
        Err(f) => {
            return (
                "receipts unreadable".into(),
                vec![Finding::unknown(
                    CHECK,
                    "input_unreadable",
                    f.message,
                    "repair the repository, then check again".into(),
                )],
            );
        }
    };
    let findings = status.checks.iter().filter_map(finding).collect();
    let n = status.checks.len();
    let passed = status
        .checks
        .iter()
        .filter(|c| matches!(c.state, State::Passed { .. }))
        .count();
    let summary = if n == 0 {
        format!("task {} depends on no check", task.record.id)
    } else {
        format!(
            "{passed} of {n} check{} passed and fresh",
            if n == 1 { "" } else { "s" }
        )
    };
    (summary, findings)
}

const UNRESOLVED_DECIDE: &str =
    "restore what the task names in .gate/plan.yaml, or start a task for what the plan names now";

/// What a task names, for messages: `issue 17`, `intent export`.
fn named(task: &Task) -> String {
    match (&task.record.issue, &task.record.intent) {
        (Some(issue), _) => format!("issue {issue}"),
        (None, Some(intent)) => format!("intent {intent}"),
        (None, None) => "nothing".into(),
    }
}

/// A task whose plan entry no longer resolves: unknown, never "depends on
/// no check".
fn unresolved(task: &Task, why: &str) -> Failure {
    Failure::unknown(format!(
        "task {}: {why}, so which checks it depends on cannot be told",
        task.record.id
    ))
    .hint(UNRESOLVED_DECIDE)
}

/// The finding for a check that does not stand as passed.
fn finding(s: &CheckStatus) -> Option<Finding> {
    let id = &s.check;
    let subject = Subject {
        check_id: Some(id.clone()),
        ..Subject::default()
    };
    let verify = format!("run `gate verify {id}`");
    let (cause, severity, message, decide) = match &s.state {
        State::Passed { .. } => return None,
        State::Missing => ("receipt_missing", Severity::Blocker, format!("check {id} has no receipt for this task in this worktree"), verify),
        State::Failed { evidence, exit_code } => (
            "receipt_failed",
            Severity::Blocker,
            format!(
                "the latest run of {id} ({evidence}) failed{}",
                exit_code.map(|c| format!(" with exit {c}")).unwrap_or_default()
            ),
            format!("fix what it reports, then {verify}"),
        ),
        State::Stale { evidence, why } => {
            ("receipt_stale", Severity::Blocker, format!("the latest receipt of {id} ({evidence}) is stale: {}", why.as_str()), verify)
        }
        State::Running { .. } => {
            ("receipt_running", Severity::Blocker, format!("{id} is running now; its receipt is not made yet"), "wait for it to finish".into())
        }
        State::Unknown {
            cause: UnknownCause::UnknownCheck,
            ..
        } => (
            "unknown_check",
            Severity::Unknown,
            format!("the plan declares no check {id}, yet a served criterion names it"),
            "fix the criterion's evidence in .gate/plan.yaml".into(),
        ),
        State::Unknown {
            cause: UnknownCause::InputUnreadable,
            reason,
            path: None,
        } => (
            "input_unreadable",
            Severity::Unknown,
            format!("the state of {id} could not be read: {reason}"),
            "repair the repository or the receipts store, then check again".into(),
        ),
        State::Unknown {
            cause: UnknownCause::InputUnreadable,
            reason,
            path: Some(file),
        } => (
            "input_unreadable",
            Severity::Unknown,
            format!("the state of {id} could not be read: {reason} ({file})"),
            format!("repair or remove that receipt (a newer gate may have written it), or {verify} again"),
        ),
        State::Unknown {
            cause: UnknownCause::FingerprintUnavailable,
            reason,
            path,
        } => (
            "fingerprint_unavailable",
            Severity::Unknown,
            format!(
                "the sources of {id} cannot be fingerprinted: {}{}",
                reason.replace('_', " "),
                path.as_ref().map(|p| format!(" ({p})")).unwrap_or_default()
            ),
            "remove the symlink, nested repository or special file from the sources, or raise the limits in the policy".into(),
        ),
    };
    Some(Finding::new(CHECK, cause, severity, message, decide).with_subject(subject))
}

/// The receipts check, reading the plan; an unreadable plan is unknown.
pub fn check(
    ctx: &Ctx,
    policy: &crate::policy::Policy,
    task: &TaskState,
) -> (String, Vec<Finding>) {
    match ctx.plan() {
        Ok(plan) => check_with(ctx, policy, plan.map(|p| &p.plan), task),
        Err(f) => (
            "the plan could not be read".into(),
            vec![Finding::unknown(
                CHECK,
                "input_unreadable",
                f.message,
                "fix .gate/plan.yaml, then check again".into(),
            )],
        ),
    }
}
