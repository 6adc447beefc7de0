//! `gate context [--task ID] [--json]`: everything a worker needs before
//! touching anything, in one document — the task, its brief verbatim and
//! every addendum, the effective scope (the recorded scope and recorded
//! additions, as the scope check judges: docs/trust.md), the intents it
//! serves (statement, invariants, non-goals), each served criterion with
//! the acceptance checks that evidence it and their receipt states (the
//! receipts check's state, `checks::receipts::status`), the critique, the
//! binding standing (`checks::binding::load_and_judge`), and the next
//! commands that move the task forward. A part that cannot be read is
//! listed under `unknowns` with what would decide it, never dropped.
//!
//! Exit: 0 every part could be read, 3 a part could not (no active task, an
//! unreadable task, policy or plan, an acceptance check whose state cannot
//! be decided).
//! The context judges nothing: a refused binding or a stale receipt is
//! reported, and `gate check` is what refuses.

use std::path::Path;

use crate::checks::binding::{load_and_judge, naming_of};
use crate::checks::{TaskState, task_state, trusted};
use crate::cli::ContextArgs;
use crate::ctx::{Ctx, commit_of, committed_as_is};
use crate::error::Failure;
use crate::plan::{IntentStatus, Plan};
use crate::policy::Policy;
use crate::receipts::{self, State};
use crate::report::human;
use crate::report::wire::context::{
    AddedWire, AddendumWire, BindingStandingWire, CONTEXT_SCHEMA, ConflictWire,
    ContextCritiqueWire, ContextRefusalWire, ContextTaskWire, ContextWire, CriterionWire,
    CritiqueFindingWire, EvidenceWire, ExemptionWire, ExternalEditsWire, IntentWire, NextWire,
    ScopeWire, UnknownWire,
};
use crate::task::Task;
use crate::text::FileText;
use crate::ui::{Answer, Shown};
use crate::verdict::ExitCode;

impl Shown for ContextWire {
    type Wire<'a> = &'a ContextWire;
    fn wire(&self) -> &ContextWire {
        self
    }
    fn text(&self) -> String {
        human::context(self)
    }
}

pub fn run(dir: Option<&Path>, args: &ContextArgs) -> Result<Answer, Failure> {
    let ctx = Ctx::open(dir)?;
    let wire = gather(&ctx, args.task.as_deref());
    let code = match wire.unknowns.is_empty() {
        true => ExitCode::Pass,
        false => ExitCode::Unknown,
    };
    Ok(Answer::document(code, wire))
}

/// Everything the context holds, each unreadable part as an unknown.
fn gather(ctx: &Ctx, id: Option<&str>) -> ContextWire {
    let mut c = ContextWire {
        schema: CONTEXT_SCHEMA,
        outcome: "pass",
        exit_code: 0,
        task: None,
        brief: None,
        addenda: vec![],
        conflicts: vec![],
        external_edits: None,
        scope: None,
        intents: vec![],
        criteria: vec![],
        critiques: vec![],
        binding: None,
        next: vec![],
        unknowns: vec![],
    };
    // The rules the doors judge with (docs/trust.md), not an uncommitted loosening.
    let policy = match trusted::local(ctx, false) {
        Ok((p, _)) => Some(p.policy),
        Err(f) => {
            unknown(
                &mut c,
                "policy",
                f.message,
                "fix .gate/policy.yaml (`gate doctor` names the fault)",
            );
            None
        }
    };
    let plan = match ctx.plan() {
        Ok(p) => Some(p.map(|p| p.plan.clone()).unwrap_or_default()),
        Err(f) => {
            unknown(
                &mut c,
                "plan",
                f.message,
                "fix .gate/plan.yaml (`gate plan validate` names every fault)",
            );
            None
        }
    };
    let task = match task_state(ctx, id) {
        TaskState::Loaded(t) => t,
        TaskState::None => {
            external_part(ctx, &mut c, policy.as_ref(), None);
            unknown(
                &mut c,
                "task",
                "no task is active in this worktree, so nothing says what the work is".into(),
                "start a task (`gate start --issue ID --brief -`, the operator's request on stdin) or switch to one (`gate task switch ID`)",
            );
            next(
                &mut c,
                "gate start --issue ID --brief -",
                "start a task for the issue the work serves, the operator's request on stdin (`gate binding --issue ID` asks first whether it may start)",
            );
            return finish(c);
        }
        TaskState::Unreadable(m) => {
            unknown(
                &mut c,
                "task",
                format!("the task could not be read: {m}"),
                "fix the task file (`gate task validate --task ID` names the fault), or switch to another task with `gate task switch ID`",
            );
            return finish(c);
        }
    };
    task_parts(&mut c, &task, policy.as_ref());
    external_part(ctx, &mut c, policy.as_ref(), Some(&task.record.id));
    let open: Vec<(usize, String)> = c
        .conflicts
        .iter()
        .map(|q| (q.round, q.conflict.as_str().to_string()))
        .collect();
    for (round, conflict) in open {
        let command = format!(
            "gate task ask {} --decided-by operator --resolves {} --stage review --question-file Q --answer-file A --summary S",
            task.record.id, round
        );
        let why = format!(
            "round {round} conflicts with the operator's words ({conflict}): stop and ask the operator; only their answer closes it, and until then the brief check blocks"
        );
        next(&mut c, &command, &why);
    }
    if !committed_as_is(ctx, &task) {
        let commit = commit_of(ctx, &task.record.id, "the task file");
        next(
            &mut c,
            &commit.command,
            "the task file is not committed as it is: a push sends it as committed",
        );
    }
    let intents = served_intents(&task, plan.as_ref());
    if let Some(plan) = &plan {
        for id in &intents {
            if let Some(intent) = plan.intent(id) {
                c.intents.push(IntentWire {
                    id: FileText::from(intent.id.clone()),
                    status: match intent.status {
                        IntentStatus::Active => "active",
                        IntentStatus::Retired => "retired",
                    },
                    statement: FileText::from(intent.statement.clone()),
                    invariants: FileText::all(intent.invariants.clone()),
                    non_goals: FileText::all(intent.non_goals.clone()),
                });
            }
            c.critiques.extend(critiques(plan, id));
        }
    }
    if let (Some(policy), Some(plan)) = (&policy, &plan) {
        criteria(ctx, &mut c, policy, plan, &task);
        match load_and_judge(ctx, policy, &naming_of(&task)) {
            Ok((_, j)) => {
                c.binding = Some(BindingStandingWire {
                    standing: j.standing.as_str(),
                    mode: policy.binding.as_str(),
                    issues: FileText::all(j.issues.clone()),
                    intents: FileText::all(j.intents.clone()),
                    notes: FileText::all(j.notes.clone()),
                    refusals: j
                        .refusals
                        .iter()
                        .map(|r| ContextRefusalWire {
                            cause: r.cause,
                            message: FileText::from(r.message.clone()),
                            decide: FileText::from(r.decide.clone()),
                        })
                        .collect(),
                });
            }
            Err(f) => unknown(
                &mut c,
                "binding",
                f.message,
                "fix .gate/plan.yaml or .gate/policy.yaml, then ask again",
            ),
        }
    }
    let settled = c.unknowns.is_empty()
        && c.conflicts.is_empty()
        && c.next.is_empty()
        && c.binding.as_ref().is_some_and(|b| b.refusals.is_empty());
    if settled {
        next(
            &mut c,
            "gate check",
            "nothing is left to run: prove the task (provenance, scope, receipts, binding, brief)",
        );
        next(
            &mut c,
            "gate task finish",
            "when the work is done and `gate check` passes",
        );
    }
    finish(c)
}

/// The session summary: the edits outside the repository recorded for
/// `task` (docs/agents.md, "Edits outside the repository").
fn external_part(ctx: &Ctx, c: &mut ContextWire, policy: Option<&Policy>, task: Option<&str>) {
    let Some(policy) = policy else {
        return;
    };
    match crate::external_edits::read(&ctx.repo.common_dir(), task) {
        Ok(recorded) => {
            c.external_edits = Some(ExternalEditsWire {
                policy: policy.agents.external_edits.as_str(),
                edits: recorded.edits,
                dropped: recorded.dropped,
            })
        }
        Err(e) => unknown(
            c,
            "external_edits",
            e,
            "remove the damaged record under .git/gate/external/ (gate writes a new one at the next edit outside the repository)",
        ),
    }
}

/// The task's record, brief, addenda and scope.
fn task_parts(c: &mut ContextWire, task: &Task, policy: Option<&Policy>) {
    let r = &task.record;
    c.task = Some(ContextTaskWire {
        id: FileText::from(r.id.clone()),
        status: r.status.as_str(),
        file: FileText::from(task.file.display().to_string()),
        operator: FileText::from(r.operator.clone()),
        created_at: FileText::from(r.created_at.clone()),
        baseline: FileText::from(r.baseline.clone()),
        issue: r.issue.clone().map(FileText::from),
        intent: r.intent.clone().map(FileText::from),
        exemption: r.exemption.as_ref().map(|e| ExemptionWire {
            class: FileText::from(e.class.clone()),
            because: FileText::from(e.because.clone()),
            description: (policy
                .and_then(|p| p.exemption(&e.class))
                .map(|class| class.description.clone()))
            .map(FileText::from),
        }),
    });
    c.brief = (task.body.brief.as_ref().map(|b| b.text.clone())).map(FileText::from);
    if let Some(section) = &task.body.addenda {
        let (_, entries) = crate::brief::entries(&section.text, section.line);
        c.addenda = entries
            .iter()
            .map(|e| AddendumWire {
                heading: FileText::from(e.heading.to_string()),
                text: FileText::from(e.body.to_string()),
            })
            .collect();
        let qa = crate::brief::qa_entries(&section.text, section.line);
        c.conflicts = crate::brief::open_conflicts(&qa)
            .into_iter()
            .map(|q| ConflictWire {
                round: q.round,
                line: q.line,
                stage: FileText::from(q.stage.trim().to_string()),
                summary: FileText::from(q.summary.trim().to_string()),
                conflict: FileText::from(q.conflict.trim().to_string()),
            })
            .collect();
    }
    c.scope = Some(ScopeWire {
        recorded: FileText::all(r.scope.clone()),
        added: task
            .scope_added
            .iter()
            .map(|a| AddedWire {
                glob: FileText::from(a.glob.clone()),
                because: FileText::from(a.because.clone()),
                author: FileText::from(a.author.clone()),
                time: FileText::from(a.time.clone()),
            })
            .collect(),
        effective: FileText::all(task.scope()),
    });
}

/// The intents the task serves: its issue's and the one it names.
fn served_intents(task: &Task, plan: Option<&Plan>) -> Vec<String> {
    let r = &task.record;
    let mut ids: Vec<String> = Vec::new();
    let of_issue = r
        .issue
        .as_deref()
        .and_then(|i| plan.and_then(|p| p.issue(i)))
        .and_then(|i| i.intent.clone());
    for id in of_issue.into_iter().chain(r.intent.clone()) {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

/// The critiques of intent `id`, with their open blocking findings.
fn critiques(plan: &Plan, id: &str) -> Vec<ContextCritiqueWire> {
    plan.critiques
        .iter()
        .filter(|c| c.intent == id)
        .map(|c| ContextCritiqueWire {
            intent: FileText::from(c.intent.clone()),
            reviewed_at: FileText::from(c.reviewed_at.clone()),
            reviewed_by: c.reviewed_by.clone().map(FileText::from),
            findings: c
                .findings
                .iter()
                .map(|f| CritiqueFindingWire {
                    id: FileText::from(f.id.clone()),
                    blocking: f.blocking,
                    open: f.is_open(plan),
                    text: FileText::from(f.text.clone()),
                    resolution: f.resolution.clone().map(FileText::from),
                    planned_in: f.planned_in.clone().map(FileText::from),
                })
                .collect(),
            open_blocking: c
                .findings
                .iter()
                .filter(|f| f.blocking && f.is_open(plan))
                .map(|f| FileText::from(&f.id))
                .collect(),
        })
        .collect()
}

/// Each served criterion with its acceptance checks' states, as the receipts check
/// finds them, and the commands that would move them.
fn criteria(ctx: &Ctx, c: &mut ContextWire, policy: &Policy, plan: &Plan, task: &Task) {
    let receipts_status = match crate::checks::receipts::status(ctx, policy, plan, Some(task)) {
        Ok(s) => s,
        Err(f) => {
            let decide = f.hint.clone().unwrap_or_else(|| {
                "repair the repository or the receipts store, then ask again".into()
            });
            unknown(c, "criteria", f.message, &decide);
            return;
        }
    };
    for s in &receipts_status.served {
        c.criteria.push(CriterionWire {
            intent: FileText::from(s.intent.clone()),
            criterion: FileText::from(s.criterion.clone()),
            text: FileText::from(s.text.clone()),
            state: receipts::criterion_state(s, &receipts_status.acceptance_checks),
            evidence: s
                .evidence
                .iter()
                .map(|id| {
                    let status = receipts_status
                        .acceptance_checks
                        .iter()
                        .find(|a| &a.id == id);
                    EvidenceWire {
                        check: FileText::from(id.clone()),
                        state: status.map_or("unknown", |a| a.state.name()),
                        why: (status.and_then(|a| match &a.state {
                            State::Stale { why, .. } => Some(why.key().to_string()),
                            State::Unknown { reason, .. } => Some(reason.clone()),
                            _ => None,
                        }))
                        .map(FileText::from),
                    }
                })
                .collect(),
        });
    }
    for acceptance in &receipts_status.acceptance_checks {
        let id = &acceptance.id;
        let verify = format!("gate verify {id}");
        match &acceptance.state {
            State::Passed { .. } => {}
            State::Missing => next(
                c,
                &verify,
                &format!("{id} has no receipt for this task yet"),
            ),
            State::Stale { why, .. } => next(
                c,
                &verify,
                &format!("the receipt of {id} is stale: {}", why.as_str()),
            ),
            State::Failed { .. } => next(
                c,
                &verify,
                &format!("the latest run of {id} failed: fix what it reports, then run it again"),
            ),
            State::Running { .. } => next(
                c,
                "gate status",
                &format!("{id} is running now: wait for its receipt"),
            ),
            State::Unknown { reason, path, .. } => unknown(
                c,
                "criteria",
                format!(
                    "the state of {id} could not be decided: {}{}",
                    reason,
                    path.as_ref().map(|p| format!(" ({p})")).unwrap_or_default()
                ),
                "`gate status` shows why; `gate check` names what decides it",
            ),
        }
    }
}

fn unknown(c: &mut ContextWire, part: &'static str, reason: String, decide: &str) {
    c.unknowns.push(UnknownWire {
        part,
        reason: FileText::from(reason),
        decide: FileText::from(decide.to_string()),
    });
}

fn next(c: &mut ContextWire, command: &str, why: &str) {
    if !c.next.iter().any(|n| n.command == FileText::from(command)) {
        c.next.push(NextWire {
            command: FileText::from(command.to_string()),
            why: FileText::from(why.to_string()),
        });
    }
}

/// The outcome: unknown when any part could not be read.
fn finish(mut c: ContextWire) -> ContextWire {
    if !c.unknowns.is_empty() {
        c.outcome = "unknown";
        c.exit_code = ExitCode::Unknown.code();
    }
    c
}
