//! `gate may-touch PATH... [--json]`: for each path, whether the active task
//! may touch it and why — the scope pattern that allows it, or the action
//! that gets it through, and the open plan issues whose paths cover it.
//! Asked before an edit, so an out-of-scope change is found before it is
//! made rather than at commit. The decision is the scope check's
//! ([`crate::checks::scope::may_touch`]): the recorded scope and recorded
//! additions (docs/trust.md), never an uncommitted edit of them.
//!
//! Exit: 0 every path allowed, 1 any refused, 3 none refused and any
//! unknown (no active task, an unreadable task) — decision 0005.

use std::path::Path;

use crate::checks::{TaskState, scope::may_touch, task_state};
use crate::cli::MayTouchArgs;
use crate::ctx::{Ctx, task_ref};
use crate::error::Failure;
use crate::path::RepoPath;
use crate::report::wire::may_touch::{IssueCoverWire, MAY_TOUCH_SCHEMA, MayTouchWire, TouchWire};
use crate::report::{human, json};
use crate::scope::Touch;
use crate::ui::{Answer, Shown};
use crate::verdict::ExitCode;

pub fn run(dir: Option<&Path>, args: &MayTouchArgs) -> Result<Answer, Failure> {
    let ctx = Ctx::open(dir)?;
    // Trimmed, as the binding trims a `--path`; a blank one names nothing.
    let given: Vec<String> = args
        .paths
        .iter()
        .filter_map(|p| crate::binding::given_name(Some(p)))
        .collect();
    if given.is_empty() {
        return Err(Failure::usage("every path given is blank")
            .hint("name a path of this work tree, relative to the current directory or from the root as :/PATH"));
    }
    let paths: Vec<RepoPath> = given
        .iter()
        .map(|given| {
            ctx.path_in_tree(given)
                .map(|p| RepoPath::from(p.as_str()))
                .map_err(|m| {
                    Failure::usage(format!("{given}: {m}"))
                        .hint("name a path of this work tree, relative to the current directory or from the root as :/PATH")
                })
        })
        .collect::<Result<_, _>>()?;
    let task = task_state(&ctx, None);
    let (touches, notes) = may_touch(&ctx, &task, &paths);
    let code = ExitCode::of(touches.iter().map(|t| t.verdict));
    let task_ref = match &task {
        TaskState::Loaded(t) => Some(task_ref(t)),
        _ => None,
    };
    Ok(Answer::document(
        code,
        MayTouchAnswer {
            task: task_ref,
            touches,
            given,
            notes,
            code,
        },
    ))
}

/// What `gate may-touch` answers: each path's verdict, as given.
struct MayTouchAnswer {
    task: Option<crate::verdict::TaskRef>,
    touches: Vec<Touch>,
    given: Vec<String>,
    notes: Vec<String>,
    code: ExitCode,
}

impl Shown for MayTouchAnswer {
    type Wire<'a> = MayTouchWire<'a>;
    fn wire(&self) -> MayTouchWire<'_> {
        MayTouchWire {
            schema: MAY_TOUCH_SCHEMA,
            outcome: crate::verdict::Outcome::worst(self.touches.iter().map(|t| t.verdict))
                .as_str(),
            exit_code: self.code.code(),
            task: self.task.as_ref().map(json::task),
            paths: self
                .touches
                .iter()
                .zip(&self.given)
                .map(|(t, given)| touch_wire(t, given))
                .collect(),
            notes: &self.notes,
        }
    }
    fn text(&self) -> String {
        human::may_touch(self.task.as_ref(), &self.touches, &self.notes, self.code)
    }
}

fn touch_wire<'a>(t: &'a Touch, given: &'a str) -> TouchWire<'a> {
    TouchWire {
        path: t.path.lossy(),
        given,
        verdict: t.verdict_word(),
        pattern: t.pattern.as_deref(),
        issues: t
            .issues
            .iter()
            .map(|c| IssueCoverWire {
                issue: &c.issue,
                intent: c.intent.as_deref(),
            })
            .collect(),
        reason: &t.reason,
        decide: t.decide.as_deref(),
    }
}
