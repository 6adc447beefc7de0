//! `gate task list | show | switch`.

use std::path::Path;

use serde::Serialize;

use super::{Ctx, Failure, out, task_ref};
use crate::cli::TaskCommand;
use crate::report::{human, json};
use crate::task::{self as tasks, TaskStatus};

pub fn run(dir: Option<&Path>, cmd: &TaskCommand) -> Result<i32, Failure> {
    let ctx = Ctx::open(dir)?;
    match cmd {
        TaskCommand::List { json } => list(&ctx, *json),
        TaskCommand::Show { id } => show(&ctx, id.as_deref()),
        TaskCommand::Switch { id } => switch(&ctx, id),
    }
}

#[derive(Serialize)]
struct ListWire<'a> {
    schema: &'static str,
    active: Option<&'a str>,
    tasks: Vec<TaskWire<'a>>,
    errors: Vec<ErrorWire>,
}

#[derive(Serialize)]
struct TaskWire<'a> {
    id: &'a str,
    status: &'static str,
    active: bool,
    issue: Option<&'a str>,
    intent: Option<&'a str>,
    exemption: Option<&'a str>,
    created_at: &'a str,
    operator: &'a str,
    baseline: &'a str,
    file: String,
}

#[derive(Serialize)]
struct ErrorWire {
    message: String,
}

fn list(ctx: &Ctx, as_json: bool) -> Result<i32, Failure> {
    let active = ctx.active_id()?;
    let all = tasks::list(ctx.root())?;
    let mut found = Vec::new();
    let mut errors = Vec::new();
    for t in &all {
        match t {
            Ok(t) => found.push(t),
            Err(e) => errors.push(e.to_string()),
        }
    }
    if as_json {
        let wire = ListWire {
            schema: "gate.tasks/1",
            active: active.as_deref(),
            tasks: found
                .iter()
                .map(|t| {
                    let r = &t.record;
                    TaskWire {
                        id: &r.id,
                        status: r.status.as_str(),
                        active: active.as_deref() == Some(r.id.as_str()),
                        issue: r.issue.as_deref(),
                        intent: r.intent.as_deref(),
                        exemption: r.exemption.as_ref().map(|e| e.class.as_str()),
                        created_at: &r.created_at,
                        operator: &r.operator,
                        baseline: &r.baseline,
                        file: t.file.display().to_string(),
                    }
                })
                .collect(),
            errors: errors
                .iter()
                .map(|m| ErrorWire { message: m.clone() })
                .collect(),
        };
        out(&json::to_string(&wire));
    } else {
        let mut text = String::new();
        if found.is_empty() && errors.is_empty() {
            text.push_str("no tasks (start one with `gate start`)\n");
        }
        for t in &found {
            let r = &t.record;
            let mark = if active.as_deref() == Some(r.id.as_str()) {
                "*"
            } else {
                " "
            };
            let named = r
                .issue
                .as_ref()
                .map(|i| format!("issue {i}"))
                .or_else(|| r.intent.as_ref().map(|i| format!("intent {i}")))
                .or_else(|| r.exemption.as_ref().map(|e| format!("exempt {}", e.class)))
                .unwrap_or_else(|| "nothing named".into());
            let first = t
                .body
                .brief
                .as_ref()
                .and_then(|b| {
                    b.text
                        .lines()
                        .find(|l| !l.trim().is_empty())
                        .map(str::to_string)
                })
                .unwrap_or_default();
            text.push_str(&format!(
                "{mark} {:<20} {:<9} {:<16} {}\n",
                r.id,
                r.status.as_str(),
                named,
                first.trim()
            ));
        }
        for e in &errors {
            text.push_str(&format!("! {e}\n"));
        }
        if let Some(a) = &active
            && !found.iter().any(|t| &t.record.id == a)
        {
            text.push_str(&format!("! the active task `{a}` has no task file\n"));
        }
        out(&text);
    }
    Ok(if errors.is_empty() { 0 } else { 3 })
}

fn show(ctx: &Ctx, id: Option<&str>) -> Result<i32, Failure> {
    let task = ctx.require_task(id)?;
    let r = &task.record;
    let mut text = human::task_lines(&task_ref(&task));
    text.push_str(&format!(
        "  status {} · created {} by {} ({}) · baseline {}\n  scope: {}\n",
        r.status.as_str(),
        r.created_at,
        r.operator,
        r.created_by,
        &r.baseline[..12],
        r.scope.join(", ")
    ));
    if let Some(e) = &r.exemption {
        text.push_str(&format!("  exemption: {} because {}\n", e.class, e.because));
    }
    text.push_str("\n## Brief (verbatim)\n\n");
    match &task.body.brief {
        Some(b) => {
            text.push_str(&b.text);
            if !b.text.ends_with('\n') {
                text.push('\n');
            }
        }
        None => text.push_str("(no brief recorded)\n"),
    }
    text.push_str("\n## Addenda\n");
    match &task.body.addenda {
        Some(a) if !a.text.trim().is_empty() => text.push_str(&a.text),
        _ => text.push_str("\n(none)\n"),
    }
    if let Some(n) = &task.body.notes
        && !n.text.trim().is_empty()
    {
        text.push_str("\n## Implementation notes\n");
        text.push_str(&n.text);
    }
    for p in &task.body.problems {
        text.push_str(&format!(
            "\n! {}:{}: {}\n",
            task.file.display(),
            p.line,
            p.message
        ));
    }
    out(&text);
    Ok(0)
}

fn switch(ctx: &Ctx, id: &str) -> Result<i32, Failure> {
    let task = tasks::load(ctx.root(), id)?;
    if task.record.status != TaskStatus::Active {
        return Err(Failure::refused(format!(
            "task {id} is {}; only an active task can be switched to",
            task.record.status.as_str()
        )));
    }
    tasks::active::set(&ctx.repo.git_dir(), id)?;
    let mut text = format!("active task: {id}\n");
    text.push_str(&human::task_lines(&task_ref(&task)));
    out(&text);
    Ok(0)
}
