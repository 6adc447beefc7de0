//! `gate status [--task ID] [--json]`: each acceptance check the task
//! depends on as passed, failed, stale (and why), running, missing or
//! unknown, and the acceptance coverage — every criterion served and the
//! state of its evidence, as the receipts check (`crate::checks::receipts`, which
//! `gate check` and pre-push also run) finds them.
//!
//! Exit: 0 every acceptance check passed (or there is none), 1 any is
//! failed, stale, running or missing, 3 any is unknown and none of those.

use std::path::Path;

use crate::checks::receipts::status;
use crate::cli::StatusArgs;
use crate::ctx::{Ctx, task_ref};
use crate::error::Failure;
use crate::receipts::{self, AcceptanceCheckStatus, State};
use crate::report::wire::status::{
    STATUS_SCHEMA, StatusCheckWire, StatusCriterionWire, StatusWire,
};
use crate::report::{human, json};
use crate::ui::{Answer, Shown};
use crate::verdict::{ExitCode, Outcome};

fn exit_code(acceptance_checks: &[AcceptanceCheckStatus]) -> ExitCode {
    ExitCode::of(acceptance_checks.iter().map(|a| match a.state {
        State::Failed { .. } | State::Stale { .. } | State::Running { .. } | State::Missing => {
            Outcome::Refused
        }
        State::Unknown { .. } => Outcome::Unknown,
        State::Passed { .. } => Outcome::Pass,
    }))
}

/// What `gate status` answers: the task and its acceptance checks' states.
struct StatusAnswer {
    task: Option<crate::verdict::TaskRef>,
    worktree: String,
    status: crate::checks::receipts::Status,
    code: ExitCode,
}

impl Shown for StatusAnswer {
    type Wire<'a> = StatusWire<'a>;
    fn wire(&self) -> StatusWire<'_> {
        let (status, code) = (&self.status, self.code);
        StatusWire {
            schema: STATUS_SCHEMA,
            outcome: match code {
                ExitCode::Pass => "pass",
                ExitCode::Refused => "refused",
                ExitCode::Usage | ExitCode::Unknown => "unknown",
            },
            exit_code: code.code(),
            task: self.task.as_ref().map(json::task),
            worktree: self.worktree.clone(),
            checks: status
                .acceptance_checks
                .iter()
                .map(acceptance_wire)
                .collect(),
            criteria: status
                .served
                .iter()
                .map(|s| StatusCriterionWire {
                    intent: &s.intent,
                    criterion: &s.criterion,
                    text: &s.text,
                    evidence: &s.evidence,
                    state: receipts::criterion_state(s, &status.acceptance_checks),
                })
                .collect(),
        }
    }
    fn text(&self) -> String {
        human::status(self.task.as_ref(), &self.status, self.code)
    }
}

pub fn run(dir: Option<&Path>, args: &StatusArgs) -> Result<Answer, Failure> {
    let ctx = Ctx::open(dir)?;
    let policy = ctx.policy()?.policy;
    let plan = ctx.plan()?.map(|p| p.plan.clone()).unwrap_or_default();
    let task = ctx.task(args.task.as_deref())?;
    let status = status(&ctx, &policy, &plan, task.as_ref())?;
    let code = exit_code(&status.acceptance_checks);
    Ok(Answer::document(
        code,
        StatusAnswer {
            task: task.as_ref().map(task_ref),
            worktree: crate::ctx::worktree_key(&ctx),
            status,
            code,
        },
    ))
}

fn acceptance_wire(acceptance: &AcceptanceCheckStatus) -> StatusCheckWire<'_> {
    let latest = acceptance.latest.as_ref();
    let (why, reason, path) = match &acceptance.state {
        State::Stale { why, .. } => (Some(why.key()), None, None),
        State::Unknown { reason, path, .. } => (None, Some(reason.as_str()), path.as_deref()),
        _ => (None, None, None),
    };
    StatusCheckWire {
        check: &acceptance.id,
        state: acceptance.state.name(),
        why,
        reason,
        path,
        evidence: latest.map(|r| r.evidence.as_str()),
        exit_code: latest.and_then(|r| r.exit_code),
        started_at: latest.map(|r| r.started_at.as_str()),
        ended_at: latest.map(|r| r.ended_at.as_str()),
        log: latest.map(|r| r.log.as_str()),
        unreadable_receipts: &acceptance.unreadable,
    }
}
