//! `gate status [--task ID] [--json]`: each check the task depends on as
//! passed, failed, stale (and why), running, missing or unknown, and the
//! acceptance coverage — every criterion served and the state of its
//! evidence, as the receipts check (`crate::checks::receipts`, which
//! `gate check` and pre-push also run) finds them.
//!
//! Exit: 0 every check passed (or there is none), 1 any check is failed,
//! stale, running or missing, 3 any is unknown and none of those.

use std::fmt::Write as _;
use std::path::Path;

use crate::checks::receipts::{Standing, standing};
use crate::cli::StatusArgs;
use crate::context::{Ctx, out, task_ref};
use crate::error::Failure;
use crate::receipts::{self, CheckStatus, State, UnknownCause};
use crate::report::style::{self, Out};
use crate::report::text::shown_line;
use crate::report::wire::status::{CheckWire, CriterionWire, STATUS_SCHEMA, StatusWire};
use crate::report::{ExitCode, Outcome};
use crate::report::{human, json};

fn exit_code(checks: &[CheckStatus]) -> ExitCode {
    ExitCode::of(checks.iter().map(|c| match c.state {
        State::Failed { .. } | State::Stale { .. } | State::Running { .. } | State::Missing => {
            Outcome::Refused
        }
        State::Unknown { .. } => Outcome::Unknown,
        State::Passed { .. } => Outcome::Pass,
    }))
}

pub fn run(dir: Option<&Path>, args: &StatusArgs) -> Result<ExitCode, Failure> {
    let ctx = Ctx::open(dir)?;
    let policy = ctx.policy()?.policy;
    let plan = ctx.plan()?.map(|p| p.plan.clone()).unwrap_or_default();
    let task = ctx.task(args.task.as_deref())?;
    let standing = standing(&ctx, &policy, &plan, task.as_ref())?;
    let code = exit_code(&standing.checks);
    let task_ref = task.as_ref().map(task_ref);
    if args.json {
        let wire = StatusWire {
            schema: STATUS_SCHEMA,
            outcome: match code {
                ExitCode::Pass => "pass",
                ExitCode::Refused => "refused",
                ExitCode::Usage | ExitCode::Unknown => "unknown",
            },
            exit_code: code.code(),
            task: task_ref.as_ref().map(json::task),
            worktree: crate::context::worktree_key(&ctx),
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

fn render(task: Option<&crate::report::TaskRef>, standing: &Standing, code: ExitCode) -> String {
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
        ExitCode::Pass if standing.checks.is_empty() => {
            style::pass(Out::Stdout, "nothing to verify")
        }
        ExitCode::Pass => style::pass(Out::Stdout, "every check passed on these sources"),
        ExitCode::Refused => {
            style::refused(Out::Stdout, "not every check has a fresh, passing receipt")
        }
        ExitCode::Usage | ExitCode::Unknown => {
            style::unknown(Out::Stdout, "a check's freshness could not be decided")
        }
    };
    let _ = writeln!(s, "\nresult: {verdict} (exit {code})");
    s
}
