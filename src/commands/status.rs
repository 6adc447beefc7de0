//! `gate status [--task ID] [--json]`: each check the task depends on as
//! passed, failed, stale (and why), running, missing or unknown, and the
//! acceptance coverage — every criterion served and the state of its
//! evidence. Also the receipts check that `gate check` and pre-push run.
//!
//! Exit: 0 every check passed (or there is none), 1 any check is failed,
//! stale, running or missing, 3 any is unknown and none of those.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::check::{TaskState, loaded};
use super::{Ctx, Failure, out, task_ref};
use crate::cli::StatusArgs;
use crate::plan::Plan;
use crate::policy::Policy;
use crate::receipts::{self, CheckStatus, Context, Served, State, Store, UnknownCause};
use crate::report::style::{self, Out};
use crate::report::text::shown_line;
use crate::report::{Finding, Severity, Subject, human, json};
use crate::task::Task;

pub const CHECK: &str = "receipts";

/// Everything status knows about one task.
pub struct Standing {
    pub served: Vec<Served>,
    pub checks: Vec<CheckStatus>,
}

/// What a task touched (nothing without one), with the staged paths of
/// `index` when given (else of the index read now).
pub(super) fn touched(
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
pub fn standing(
    ctx: &Ctx,
    policy: &Policy,
    plan: &Plan,
    task: Option<&Task>,
) -> Result<Standing, Failure> {
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
    let worktree = super::verify::worktree_key(ctx);
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
    };
    Ok(Standing {
        checks: receipts::evaluate(&rctx, &checks),
        served,
    })
}

/// The receipts check of `gate check` and pre-push.
pub fn receipts_check(
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
    let standing = match standing(ctx, policy, plan, Some(task)) {
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
    let findings = standing.checks.iter().filter_map(finding).collect();
    let n = standing.checks.len();
    let passed = standing
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
    let (cause, unknown, message, decide) = match &s.state {
        State::Passed { .. } => return None,
        State::Missing => ("receipt_missing", false, format!("check {id} has no receipt for this task in this worktree"), verify),
        State::Failed { evidence, exit_code } => (
            "receipt_failed",
            false,
            format!(
                "the latest run of {id} ({evidence}) failed{}",
                exit_code.map(|c| format!(" with exit {c}")).unwrap_or_default()
            ),
            format!("fix what it reports, then {verify}"),
        ),
        State::Stale { evidence, why } => {
            ("receipt_stale", false, format!("the latest receipt of {id} ({evidence}) is stale: {}", why.as_str()), verify)
        }
        State::Running { .. } => {
            ("receipt_running", false, format!("{id} is running now; its receipt is not made yet"), "wait for it to finish".into())
        }
        State::Unknown {
            cause: UnknownCause::UnknownCheck,
            ..
        } => (
            "unknown_check",
            true,
            format!("the plan declares no check {id}, yet a served criterion names it"),
            "fix the criterion's evidence in .gate/plan.yaml".into(),
        ),
        State::Unknown {
            cause: UnknownCause::InputUnreadable,
            reason,
            path: None,
        } => (
            "input_unreadable",
            true,
            format!("the state of {id} could not be read: {reason}"),
            "repair the repository or the receipts store, then check again".into(),
        ),
        State::Unknown {
            cause: UnknownCause::InputUnreadable,
            reason,
            path: Some(file),
        } => (
            "input_unreadable",
            true,
            format!("the state of {id} could not be read: {reason} ({file})"),
            format!("repair or remove that receipt (a newer gate may have written it), or {verify} again"),
        ),
        State::Unknown {
            cause: UnknownCause::FingerprintUnavailable,
            reason,
            path,
        } => (
            "fingerprint_unavailable",
            true,
            format!(
                "the sources of {id} cannot be fingerprinted: {}{}",
                reason.replace('_', " "),
                path.as_ref().map(|p| format!(" ({p})")).unwrap_or_default()
            ),
            "remove the symlink, nested repository or special file from the sources, or raise the limits in the policy".into(),
        ),
    };
    Some(Finding {
        check: CHECK,
        cause,
        severity: Severity::Blocker,
        unknown,
        message,
        decide,
        subject,
    })
}

#[derive(Serialize)]
struct StatusWire<'a> {
    schema: &'static str,
    outcome: &'static str,
    exit_code: i32,
    task: Option<json::TaskWire<'a>>,
    worktree: String,
    checks: Vec<CheckWire<'a>>,
    criteria: Vec<CriterionWire<'a>>,
}

#[derive(Serialize)]
struct CheckWire<'a> {
    check: &'a str,
    state: &'static str,
    /// For `stale`: `contract_changed`, `sources_changed`, `sources_changed_during_run`, `no_fingerprint`.
    why: Option<&'static str>,
    /// For `unknown`: why the fingerprint is unavailable, and where.
    reason: Option<&'a str>,
    path: Option<&'a str>,
    /// The latest receipt of this worktree and task, whatever the state.
    evidence: Option<&'a str>,
    exit_code: Option<i32>,
    started_at: Option<&'a str>,
    ended_at: Option<&'a str>,
    log: Option<&'a str>,
    unreadable_receipts: &'a [String],
}

#[derive(Serialize)]
struct CriterionWire<'a> {
    intent: &'a str,
    criterion: &'a str,
    text: &'a str,
    evidence: &'a [String],
    state: &'static str,
}

fn exit_code(checks: &[CheckStatus]) -> i32 {
    if checks.iter().any(|c| {
        matches!(
            c.state,
            State::Failed { .. } | State::Stale { .. } | State::Running { .. } | State::Missing
        )
    }) {
        1
    } else if checks
        .iter()
        .any(|c| matches!(c.state, State::Unknown { .. }))
    {
        3
    } else {
        0
    }
}

pub fn run(dir: Option<&Path>, args: &StatusArgs) -> Result<i32, Failure> {
    let ctx = Ctx::open(dir)?;
    let policy = ctx.policy()?.policy;
    let plan = ctx.plan()?.map(|p| p.plan.clone()).unwrap_or_default();
    let task = ctx.task(args.task.as_deref())?;
    let standing = standing(&ctx, &policy, &plan, task.as_ref())?;
    let code = exit_code(&standing.checks);
    let task_ref = task.as_ref().map(task_ref);
    if args.json {
        let wire = StatusWire {
            schema: "gate.status/1",
            outcome: match code {
                0 => "pass",
                1 => "refused",
                _ => "unknown",
            },
            exit_code: code,
            task: task_ref.as_ref().map(json::task),
            worktree: super::verify::worktree_key(&ctx),
            checks: standing.checks.iter().map(check_wire).collect(),
            criteria: standing
                .served
                .iter()
                .map(|s| CriterionWire {
                    intent: &s.intent,
                    criterion: &s.criterion,
                    text: &s.text,
                    evidence: &s.evidence,
                    state: receipts::criterion_state(s, &standing.checks),
                })
                .collect(),
        };
        out(&json::to_string(&wire));
    } else {
        out(&render(task_ref.as_ref(), &standing, code));
    }
    Ok(code)
}

fn check_wire(c: &CheckStatus) -> CheckWire<'_> {
    let latest = c.latest.as_ref();
    let (why, reason, path) = match &c.state {
        State::Stale { why, .. } => (Some(why.key()), None, None),
        State::Unknown { reason, path, .. } => (None, Some(reason.as_str()), path.as_deref()),
        _ => (None, None, None),
    };
    CheckWire {
        check: &c.check,
        state: c.state.name(),
        why,
        reason,
        path,
        evidence: latest.map(|r| r.evidence.as_str()),
        exit_code: latest.and_then(|r| r.exit_code),
        started_at: latest.map(|r| r.started_at.as_str()),
        ended_at: latest.map(|r| r.ended_at.as_str()),
        log: latest.map(|r| r.log.as_str()),
        unreadable_receipts: &c.unreadable,
    }
}

fn state_word(state: &State) -> String {
    let name = format!("{:<8}", state.name());
    match state {
        State::Passed { .. } => style::pass(Out::Stdout, name),
        State::Unknown { .. } => style::unknown(Out::Stdout, name),
        State::Running { .. } => style::hint(Out::Stdout, name),
        _ => style::refused(Out::Stdout, name),
    }
}

fn render(task: Option<&crate::report::TaskRef>, standing: &Standing, code: i32) -> String {
    let mut s = String::from("gate status\n");
    match task {
        Some(t) => s.push_str(&human::task_lines(t)),
        None => s.push_str("no task: every plan check, with receipts made without a task\n"),
    }
    s.push('\n');
    if standing.checks.is_empty() {
        s.push_str(match (task, standing.served.is_empty()) {
            (None, _) => "checks: none (the plan declares no check)\n",
            (Some(_), true) => {
                "checks: none: the task depends on no check (it serves no criterion: maintenance, an exemption, or nothing named)\n"
            }
            (Some(_), false) => {
                "checks: none: the task depends on no check (the criteria it serves name none)\n"
            }
        });
    }
    for c in &standing.checks {
        let detail = match &c.state {
            State::Passed { evidence } | State::Failed { evidence, .. } => evidence.clone(),
            State::Stale { evidence, why } => format!("{} · {evidence}", why.as_str()),
            State::Running { .. } => "a run is under way".into(),
            State::Missing => format!("no receipt: `gate verify {}`", c.check),
            State::Unknown {
                cause,
                reason,
                path,
            } => {
                // A stable reason reads as words; a message stays as it is.
                let reason = match cause {
                    UnknownCause::InputUnreadable => reason.clone(),
                    _ => reason.replace('_', " "),
                };
                format!(
                    "{}{}",
                    shown_line(&reason),
                    path.as_ref()
                        .map(|p| format!(" ({})", shown_line(p)))
                        .unwrap_or_default()
                )
            }
        };
        let _ = writeln!(s, "  {:<20} {} {detail}", c.check, state_word(&c.state));
        for bad in &c.unreadable {
            let _ = writeln!(s, "    ! unreadable receipt: {}", shown_line(bad));
        }
    }
    if !standing.served.is_empty() {
        s.push_str("\ncriteria\n");
        for sv in &standing.served {
            let state = receipts::criterion_state(sv, &standing.checks);
            let evidence = if sv.evidence.is_empty() {
                "no check".to_string()
            } else {
                sv.evidence.join(", ")
            };
            let _ = writeln!(
                s,
                "  {}#{:<8} {:<11} {} ({evidence})",
                sv.intent,
                sv.criterion,
                state,
                shown_line(&sv.text)
            );
        }
    }
    let verdict = match code {
        0 if standing.checks.is_empty() => style::pass(Out::Stdout, "nothing to verify"),
        0 => style::pass(Out::Stdout, "every check passed on these sources"),
        1 => style::refused(Out::Stdout, "not every check has a fresh, passing receipt"),
        _ => style::unknown(Out::Stdout, "a check's freshness could not be decided"),
    };
    let _ = writeln!(s, "\nresult: {verdict} (exit {code})");
    s
}
