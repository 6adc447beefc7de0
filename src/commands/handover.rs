//! `gate handover [--task ID] [--json]` records the binding's current pins
//! in the task file and prints the handover: front matter (task, HEAD,
//! names, pins), then the whole brief and every addendum.
//!
//! `gate handover --resolve` asks the binding again and compares with the
//! recorded pins: `unchanged` (exit 0), `evidence_moved` or `plan_changed`
//! (exit 1; a changed plan outranks moved evidence), or `unknown` (exit 3)
//! when it cannot ask. It writes nothing.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::binding::{Derived, derive, evidence_key, naming_of};
use super::{Ctx, Failure, out};
use crate::cli::HandoverArgs;
use crate::report::json;
use crate::task::{self as tasks, Task};

pub fn run(dir: Option<&Path>, args: &HandoverArgs) -> Result<i32, Failure> {
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
        return resolve(&task, asked, args.json);
    }
    let derived = asked?;
    let lock_dir = ctx.repo.common_dir().join("gate").join("locks");
    let pins = derived.pins.clone();
    let task = tasks::update(ctx.root(), &lock_dir, &task.record.id, |r| {
        r.pins.plan_revision = pins.plan_revision.clone();
        r.pins.evidence_standing = pins.evidence_standing.clone();
    })?;
    let head = ctx
        .repo
        .head()
        .ok()
        .and_then(|h| h.id())
        .map(|o| o.to_hex());
    if args.json {
        out(&json::to_string(&HandoverWire {
            schema: "gate.handover/1",
            task: &task.record.id,
            head: head.as_deref(),
            issue: task.record.issue.as_deref(),
            intent: task.record.intent.as_deref(),
            exemption: task.record.exemption.as_ref().map(|e| e.class.as_str()),
            standing: derived.judgement.standing.as_str(),
            pins: PinsWire {
                plan_revision: &pins.plan_revision,
                evidence_standing: &pins.evidence_standing,
            },
            brief: task.body.brief.as_ref().map(|b| b.text.as_str()),
            addenda: task.body.addenda.as_ref().map_or("", |a| a.text.as_str()),
        }));
    } else {
        out(&render(&task, head.as_deref(), &derived));
    }
    Ok(0)
}

#[derive(Serialize)]
struct HandoverWire<'a> {
    schema: &'static str,
    task: &'a str,
    head: Option<&'a str>,
    issue: Option<&'a str>,
    intent: Option<&'a str>,
    exemption: Option<&'a str>,
    standing: &'static str,
    pins: PinsWire<'a>,
    /// The brief, verbatim; `null` when the task has none.
    brief: Option<&'a str>,
    /// The addenda section, verbatim.
    addenda: &'a str,
}

#[derive(Serialize)]
struct PinsWire<'a> {
    plan_revision: &'a str,
    evidence_standing: &'a str,
}

fn yaml_str(s: Option<&str>) -> String {
    s.map_or("null".into(), |s| {
        serde_json::to_string(s).expect("a string serialises")
    })
}

fn render(task: &Task, head: Option<&str>, d: &Derived) -> String {
    let r = &task.record;
    let mut s = String::new();
    let _ = writeln!(s, "---");
    let _ = writeln!(s, "task: {}", yaml_str(Some(&r.id)));
    let _ = writeln!(s, "head: {}", yaml_str(head));
    let _ = writeln!(s, "issue: {}", yaml_str(r.issue.as_deref()));
    let _ = writeln!(s, "intent: {}", yaml_str(r.intent.as_deref()));
    let _ = writeln!(
        s,
        "exemption: {}",
        yaml_str(r.exemption.as_ref().map(|e| e.class.as_str()))
    );
    let _ = writeln!(s, "standing: {}", d.judgement.standing.as_str());
    let _ = writeln!(
        s,
        "pins: {{plan_revision: {}, evidence_standing: {}}}",
        yaml_str(Some(&d.pins.plan_revision)),
        yaml_str(Some(&d.pins.evidence_standing))
    );
    let _ = writeln!(s, "---\n\n## Brief (verbatim)\n");
    match &task.body.brief {
        Some(b) => {
            s.push_str(&b.text);
            if !b.text.ends_with('\n') {
                s.push('\n');
            }
        }
        None => s.push_str("(no brief recorded)\n"),
    }
    s.push_str("\n## Addenda\n");
    match &task.body.addenda {
        Some(a) if !a.text.trim().is_empty() => s.push_str(&a.text),
        _ => s.push_str("\n(none)\n"),
    }
    for r in &d.judgement.refusals {
        let _ = writeln!(s, "\n! binding refused: {} {}", r.cause, r.message);
    }
    s
}

#[derive(Serialize)]
struct ResolveWire<'a> {
    schema: &'static str,
    task: &'a str,
    answer: &'static str,
    exit_code: i32,
    intents: Vec<String>,
    message: String,
    recorded: PinsWire<'a>,
    current: Option<PinsWire<'a>>,
}

/// Compare the recorded pins with the binding asked now.
fn resolve(task: &Task, asked: Result<Derived, Failure>, as_json: bool) -> Result<i32, Failure> {
    let recorded = &task.record.pins;
    let (answer, code, message, intents) = match &asked {
        Err(f) => (
            "unknown",
            3,
            format!("the binding could not be asked: {}", f.message),
            Vec::new(),
        ),
        Ok(d) => {
            let intents = d.judgement.intents.clone();
            let which = if intents.is_empty() {
                "no intent".to_string()
            } else {
                format!("intent {}", intents.join(", "))
            };
            if recorded.plan_revision != d.pins.plan_revision {
                let why = if recorded.plan_revision.is_empty() {
                    "no plan_revision was recorded (run `gate handover` to record the pins)"
                        .to_string()
                } else {
                    format!(
                        "what the work is for changed: plan_revision {} → {}",
                        &recorded.plan_revision[..recorded.plan_revision.len().min(12)],
                        &d.pins.plan_revision[..d.pins.plan_revision.len().min(12)]
                    )
                };
                (
                    "plan_changed",
                    1,
                    format!("{which}: {why}; re-read the intent, its criteria and critiques"),
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
                    1,
                    format!("{which}: the evidence moved; now {}", states.join(", ")),
                    intents,
                )
            } else {
                (
                    "unchanged",
                    0,
                    format!("{which}: the plan and the evidence are as recorded"),
                    intents,
                )
            }
        }
    };
    if as_json {
        out(&json::to_string(&ResolveWire {
            schema: "gate.resolve/1",
            task: &task.record.id,
            answer,
            exit_code: code,
            intents,
            message: message.clone(),
            recorded: PinsWire {
                plan_revision: &recorded.plan_revision,
                evidence_standing: &recorded.evidence_standing,
            },
            current: asked.as_ref().ok().map(|d| PinsWire {
                plan_revision: &d.pins.plan_revision,
                evidence_standing: &d.pins.evidence_standing,
            }),
        }));
    } else {
        let mut text = crate::report::human::task_lines(&super::task_ref(task));
        text.push_str(&format!(
            "handover {}: {answer}\n  {message}\n",
            task.record.id
        ));
        out(&text);
    }
    Ok(code)
}
