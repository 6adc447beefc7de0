//! `gate handover [--task ID] [--json]` records the binding's current pins
//! in the task file and prints the handover: front matter (task, HEAD,
//! names, pins), then the whole brief and every addendum. Like the task
//! record, the front matter holds names and pins only — never a standing;
//! a refused binding is a warning on stderr.
//!
//! `gate handover --resolve` asks the binding again and compares with the
//! recorded pins: `unchanged` (exit 0), `evidence_moved` or `plan_changed`
//! (exit 1; a changed plan outranks moved evidence), or `unknown` (exit 3)
//! when it cannot ask. It writes nothing.

use std::path::Path;

use crate::binding::{Standing, short};
use crate::checks::binding::{Derived, derive, evidence_key, naming_of};
use crate::cli::HandoverArgs;
use crate::ctx::{Ctx, task_ref};
use crate::error::Failure;
use crate::report::human;
use crate::report::wire::PinsWire;
use crate::report::wire::handover::{HANDOVER_SCHEMA, HandoverExemptionWire, HandoverWire};
use crate::report::wire::resolve::{RESOLVE_SCHEMA, ResolveWire};
use crate::task::{self as tasks, Task};
use crate::text::FileText;
use crate::ui::{Answer, Shown};
use crate::verdict::ExitCode;

/// An error under --json is printed as gate.error/1 by commands::run.
pub fn run(dir: Option<&Path>, args: &HandoverArgs) -> Result<Answer, Failure> {
    let ctx = Ctx::open(dir)?;
    let policy = ctx.policy()?.policy;
    let task = ctx.require_task(args.task.as_deref())?;
    let key = evidence_key(&task);
    let asked = derive(
        &ctx,
        &policy,
        &naming_of(&task),
        key.as_ref().map(|(id, b)| (id.as_str(), *b)),
    );
    if args.resolve {
        return resolve(&task, asked);
    }
    // Recording pins that cannot be computed would record a lie.
    let derived = asked?;
    let pins = derived.pins.clone();
    let before = task.text.clone();
    let task = tasks::update(ctx.root(), &ctx.state_dir(), &task.record.id, |r| {
        r.pins.plan_revision = pins.plan_revision.clone();
        r.pins.evidence_standing = pins.evidence_standing.clone();
    })?;
    let head = ctx.head_hex()?;
    // A task file the pins changed, or one with changes not committed
    // yet, is committed to travel: the next worker reads the committed one.
    let changed = task.text != before || !crate::ctx::committed_as_is(&ctx, &task);
    let commit = changed.then(|| crate::ctx::commit_of(&ctx, &task.record.id, "handover"));
    // Under `off` a task that names nothing was never asked anything: no
    // warning for it.
    let asked_for = policy.binding != crate::policy::Mode::Off || naming_of(&task).asks();
    let refused = (derived.judgement.standing == Standing::Refused && asked_for)
        .then(|| human::handover_refused(&task.record.id, &derived.judgement.refusals));
    let mut answer = Answer::document(
        ExitCode::Pass,
        HandoverAnswer {
            head,
            derived,
            commit: commit.clone(),
            task,
        },
    );
    // The handover on stdout is the document to pass on; this is for
    // whoever ran it.
    if let Some(commit) = &commit {
        answer = answer.then_err_for_people(human::commit_line(commit));
    }
    if let Some(refused) = refused {
        answer = answer.then_err(refused);
    }
    Ok(answer)
}

/// What `gate handover` answers: the task as handed over, its pins just
/// recorded, and how to commit it when it changed.
struct HandoverAnswer {
    task: Task,
    head: Option<String>,
    derived: Derived,
    commit: Option<crate::ctx::TaskCommit>,
}

impl Shown for HandoverAnswer {
    type Wire<'a> = HandoverWire<'a>;
    fn wire(&self) -> HandoverWire<'_> {
        let (task, pins) = (&self.task, &self.derived.pins);
        HandoverWire {
            schema: HANDOVER_SCHEMA,
            task: &task.record.id,
            head: self.head.as_deref(),
            issue: task.record.issue.as_deref(),
            intent: task.record.intent.as_deref(),
            exemption: task
                .record
                .exemption
                .as_ref()
                .map(|e| HandoverExemptionWire {
                    class: &e.class,
                    because: &e.because,
                }),
            pins: PinsWire::new(&pins.plan_revision, &pins.evidence_standing),
            brief: task.body.brief.as_ref().map(|b| b.text.as_str()),
            addenda: task.body.addenda.as_ref().map_or("", |a| a.text.as_str()),
            commit: self.commit.clone().map(Into::into),
        }
    }
    fn text(&self) -> String {
        human::handover(&self.task, self.head.as_deref(), &self.derived)
    }
}

/// What a task names, for people: `issue 42`, `intent I-x`, `exemption c`.
fn named(task: &Task) -> String {
    let r = &task.record;
    let names: Vec<String> = [
        r.issue
            .as_ref()
            .map(|i| format!("issue {}", FileText::new(i))),
        r.intent
            .as_ref()
            .map(|i| format!("intent {}", FileText::new(i))),
        r.exemption
            .as_ref()
            .map(|e| format!("exemption {}", FileText::new(&e.class))),
    ]
    .into_iter()
    .flatten()
    .collect();
    if names.is_empty() {
        "nothing".into()
    } else {
        names.join(" · ")
    }
}

/// Compare the recorded pins with the binding asked now.
fn resolve(task: &Task, asked: Result<Derived, Failure>) -> Result<Answer, Failure> {
    let recorded = &task.record.pins;
    let (answer, code, message, intents) = match &asked {
        Err(f) => (
            "unknown",
            ExitCode::Unknown,
            format!(
                "task {} names {}; the binding could not be asked: {}; {}",
                task.record.id,
                named(task),
                f.message,
                f.hint
                    .as_deref()
                    .unwrap_or("fix the file, then resolve again")
            ),
            Vec::new(),
        ),
        Ok(d) => {
            let intents = d.judgement.intents.clone();
            let which = if intents.is_empty() {
                "no intent".to_string()
            } else {
                format!("intent {}", intents.join(", "))
            };
            let now = if d.judgement.standing == Standing::Refused {
                let causes: Vec<&str> = d.judgement.refusals.iter().map(|r| r.cause).collect();
                format!("; the binding now refuses: {}", causes.join(", "))
            } else {
                String::new()
            };
            if recorded.plan_revision != d.pins.plan_revision {
                let why = if recorded.plan_revision.is_empty() {
                    "no plan pin was recorded (run `gate handover` to record the pins)".to_string()
                } else if d.pins.plan_revision.is_empty() {
                    format!(
                        "the work reached an intent when the pins were recorded (plan_pin {}), and reaches none now",
                        short(&recorded.plan_revision)
                    )
                } else {
                    format!(
                        "what the work is for changed: plan_pin {} → {}",
                        short(&recorded.plan_revision),
                        short(&d.pins.plan_revision)
                    )
                };
                (
                    "plan_changed",
                    ExitCode::Refused,
                    format!(
                        "{which}: {why}{now}; re-read the intent, its criteria and critiques (`gate binding --json`), then `gate handover` records the new pins"
                    ),
                    intents,
                )
            } else if recorded.evidence_standing != d.pins.evidence_standing {
                let states: Vec<String> = d
                    .served
                    .iter()
                    .zip(&d.states)
                    .map(|(s, st)| format!("{}#{}={st}", s.intent, s.criterion))
                    .collect();
                (
                    "evidence_moved",
                    ExitCode::Refused,
                    format!(
                        "{which}: the evidence moved (evidence_standing {} → {}); now {}{now}",
                        short(&recorded.evidence_standing),
                        short(&d.pins.evidence_standing),
                        states.join(", ")
                    ),
                    intents,
                )
            } else {
                (
                    "unchanged",
                    ExitCode::Pass,
                    format!("{which}: the plan and the evidence are as recorded{now}"),
                    intents,
                )
            }
        }
    };
    Ok(Answer::document(
        code,
        ResolveAnswer {
            task: task.clone(),
            answer,
            code,
            intents,
            asked,
            message,
        },
    ))
}

/// What `gate handover --resolve` answers: the recorded pins against the
/// binding asked now.
struct ResolveAnswer {
    task: Task,
    answer: &'static str,
    code: ExitCode,
    intents: Vec<String>,
    asked: Result<Derived, Failure>,
    message: String,
}

impl Shown for ResolveAnswer {
    type Wire<'a> = ResolveWire<'a>;
    fn wire(&self) -> ResolveWire<'_> {
        let (asked, recorded) = (&self.asked, &self.task.record.pins);
        ResolveWire {
            schema: RESOLVE_SCHEMA,
            task: &self.task.record.id,
            answer: self.answer,
            exit_code: self.code.code(),
            intents: self.intents.clone(),
            standing: asked.as_ref().ok().map(|d| d.judgement.standing.as_str()),
            message: self.message.clone(),
            recorded: PinsWire::new(&recorded.plan_revision, &recorded.evidence_standing),
            current: asked
                .as_ref()
                .ok()
                .map(|d| PinsWire::new(&d.pins.plan_revision, &d.pins.evidence_standing)),
        }
    }
    fn text(&self) -> String {
        human::resolved(&task_ref(&self.task), self.answer, &self.message)
    }
}
