//! gate's five checks, one module each — [`scope`], [`provenance`],
//! [`receipts`], [`binding`], [`brief`] — each gathering its inputs from the
//! repository and turning the decision of its pure core (`crate::scope`,
//! `crate::provenance`, `crate::receipts`, `crate::binding`, `crate::brief`)
//! into findings; [`trusted`] the policy each door judges with
//! (docs/trust.md), [`recorded`] the task's recorded version its frozen
//! fields are judged from, [`range_rules`] the plans and task records a
//! range is judged by, and [`finished`] the finished task `gate check`
//! judges when none is active.
//!
//! Here: what a run looks at ([`Target`]), the task it is about
//! ([`TaskState`]), and [`build`], the one function that runs the selected
//! checks under the policy modes into a [`Report`]. Verbs (`commands/`) call
//! it; nothing here prints or exits.

pub mod binding;
pub mod brief;
pub mod finished;
pub mod issue_paths;
pub mod provenance;
pub mod range_rules;
pub mod receipts;
pub mod recorded;
pub mod scope;
pub mod trusted;

use crate::cli::CheckName;
use crate::ctx::{Ctx, policy_origin, task_ref};
use crate::error::Failure;
use crate::load::LoadError;
use crate::policy::LoadedPolicy;
use crate::task::Task;
use crate::verdict::{At, Finding, Report, Subject};

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
        Ok(Some(t)) => match recorded::judged(ctx, t) {
            Ok(t) => TaskState::Loaded(Box::new(t)),
            Err(m) => TaskState::Unreadable(format!("its recorded version: {m}")),
        },
        Ok(None) => TaskState::None,
        Err(f) => TaskState::Unreadable(f.message),
    }
}

/// A report with no check run yet: the verb, the policy it judges with and
/// its notes, the task it is about. Every door starts its report here.
pub fn header(verb: String, policy: &LoadedPolicy, task: &TaskState) -> Report {
    Report {
        verb,
        policy: policy_origin(policy),
        task: match task {
            TaskState::Loaded(t) => Some(task_ref(t)),
            _ => None,
        },
        checks: vec![],
        skipped: vec![],
        notes: policy.policy.notes.clone(),
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
    build_trusting(ctx, policy, task_id, target, only, verb, &[], None)
}

/// [`build`], with the revisions a range's plan and task records are
/// trusted from (docs/trust.md, "The plan's trust"): the range's base, or
/// `--policy-from REV`; with `run_here`, a range runs the checks no
/// receipt proves (`--run-unproved`).
#[allow(clippy::too_many_arguments)]
pub fn build_trusting(
    ctx: &Ctx,
    policy: &LoadedPolicy,
    task_id: Option<&str>,
    target: &Target,
    only: &[CheckName],
    verb: String,
    trusted: &[range_rules::Trusted],
    run_here: Option<&dyn receipts::RunHere>,
) -> Result<Report, Failure> {
    let task = task_state(ctx, task_id);
    let (task, finished, finished_note) = finished_work(ctx, policy, task_id, target, task);
    let p = &policy.policy;
    let wants = |c: CheckName| only.is_empty() || only.contains(&c);
    let mut report = header(verb, policy, &task);
    report.notes.extend(finished_note);
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
            let (findings, note) = recorded::rewrite_findings(ctx, &t.record.id, check, staged);
            report.notes.extend(note);
            findings
        }
        _ => Vec::new(),
    };
    let rewrites = rewritten(if scope_runs {
        crate::scope::CHECK
    } else {
        crate::provenance::CHECK
    });
    let (scope_rewrites, prov_rewrites) = if scope_runs {
        (rewrites, Vec::new())
    } else {
        (Vec::new(), rewrites)
    };
    if wants(CheckName::Scope) {
        report.run(crate::scope::CHECK, p.scope, scope_applies, || {
            let (summary, mut findings) = match &finished {
                Some(f) => finished::scope_check(ctx, f),
                None => scope::check(ctx, &task, target, p.trailer_key()),
            };
            findings.extend(scope_rewrites);
            (summary, findings)
        });
    }
    let prov_applies = match target {
        Target::Staged => Err("staged changes have no commits yet"),
        _ => Ok(()),
    };
    if wants(CheckName::Provenance) {
        report.run(
            crate::provenance::CHECK,
            p.provenance.mode,
            prov_applies,
            || {
                let (summary, mut findings) = provenance::check(ctx, policy, &task, target);
                findings.extend(prov_rewrites);
                (summary, findings)
            },
        );
    }
    let receipts_applies = match target {
        Target::Staged => Err("pre-commit runs scope (and brief) only"),
        Target::Range(_) | Target::Task => Ok(()),
    };
    if wants(CheckName::Receipts) {
        report.run(
            receipts::CHECK,
            p.receipts.mode,
            receipts_applies,
            || match target {
                // CI: the receipts that travelled with the commits, as git
                // notes (docs/receipts.md).
                Target::Range(spec) => {
                    receipts::range_check(&ctx.repo, &policy.policy, spec, trusted, run_here)
                }
                _ => receipts::check(ctx, &policy.policy, &task),
            },
        );
    }
    if wants(CheckName::Brief) {
        // The one reading of the clock of a run's checks (crate::clock).
        let today = crate::clock::Timestamp::now().date();
        report.run(crate::brief::CHECK, p.brief.mode, Ok(()), || {
            brief::check(ctx, &policy.policy, &task, target, today)
        });
    }
    let binding_applies = match target {
        Target::Staged => Err("pre-commit runs scope (and brief) only"),
        Target::Range(_) | Target::Task => Ok(()),
    };
    if wants(CheckName::Binding) {
        report.run(
            crate::binding::CHECK,
            p.binding,
            binding_applies,
            || match target {
                // CI: every task the range touches, from the task records at
                // its tip (docs/ci.md).
                Target::Range(spec) => {
                    binding::range_check(&ctx.repo, &policy.policy, spec, trusted)
                }
                _ => binding::check(ctx, &policy.policy, &task),
            },
        );
    }
    // Finished work says so, and what CI will prove, in the first check
    // that ran (else as a note).
    if let Some(f) = &finished {
        match report.checks.first().map(|c| c.check) {
            Some(check) => report.attach(vec![finished::task_finished(check, f)]),
            None => {
                let finding = finished::task_finished(crate::scope::CHECK, f);
                report
                    .notes
                    .push(format!("{}: {}", finding.cause, finding.message));
            }
        }
    }
    Ok(report)
}

/// `gate check` of the work with no task named or active: when the work is
/// a finished task ([`finished::find`]), that task, loaded, for the checks
/// to judge; else `task` as it was (with a note when whether the work is
/// finished could not be told — `no_active_task` then stands).
fn finished_work(
    ctx: &Ctx,
    policy: &LoadedPolicy,
    task_id: Option<&str>,
    target: &Target,
    task: TaskState,
) -> (TaskState, Option<finished::Finished>, Option<String>) {
    if !(matches!(task, TaskState::None) && task_id.is_none() && matches!(target, Target::Task)) {
        return (task, None, None);
    }
    match finished::find(ctx, &policy.policy) {
        Ok(Some(f)) => (TaskState::Loaded(Box::new(f.task.clone())), Some(f), None),
        Ok(None) => (task, None, None),
        Err(m) => (
            task,
            None,
            Some(format!(
                "whether this work is a finished task could not be told: {m}"
            )),
        ),
    }
}

/// The task a check needs, or the finding that there is none
/// (`no_active_task`) or that it cannot be read (`task_unreadable`, unknown).
pub fn loaded<'t>(check: &'static str, task: &'t TaskState) -> Result<&'t Task, Box<Finding>> {
    match task {
        TaskState::Loaded(task) => Ok(task),
        TaskState::None => Err(Box::new(Finding::blocker(
            check,
            "no_active_task",
            "no task is active in this worktree, so nothing says what this work may touch".into(),
            "start a task for the issue (`gate start --issue ID --brief -`, the operator's request on stdin) or switch to one (`gate task switch ID`)".into(),
        ))),
        TaskState::Unreadable(m) => Err(Box::new(Finding::unknown(
            check,
            "task_unreadable",
            format!("the task could not be read: {m}"),
            "fix the task file, or switch to another task with `gate task switch ID`".into(),
        ))),
    }
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

/// An unreadable input file as an unknown finding naming file, line and key.
pub fn unreadable(check: &'static str, e: &LoadError) -> Finding {
    let key = Some(e.key().to_string()).filter(|k| !k.is_empty());
    Finding::unknown(
        check,
        "input_unreadable",
        e.to_string(),
        "fix the file, then run gate again".into(),
    )
    .with_subject(Subject {
        at: At {
            file: Some(e.file().display().to_string()),
            line: e.line(),
            key,
            ..At::default()
        }
        .boxed(),
        ..Subject::default()
    })
}
