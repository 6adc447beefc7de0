//! Tasks: `gate start`, the task list and one task, switching, the
//! binding and its handover, the brief's digest.

use super::*;

/// A task's brief, verbatim, then its addenda, each under its heading:
/// what `gate task show` and `gate handover` print.
pub fn brief_and_addenda(task: &crate::task::Task) -> String {
    let mut s = String::from("## Brief (verbatim)\n\n");
    match &task.body.brief {
        Some(b) => {
            let _ = write!(s, "{}", FileText::new(&b.text).block());
            if !b.text.ends_with('\n') {
                s.push('\n');
            }
        }
        None => s.push_str("(no brief recorded)\n"),
    }
    s.push_str("\n## Addenda\n");
    match &task.body.addenda {
        Some(a) if !a.text.trim().is_empty() => {
            let _ = write!(s, "{}", FileText::new(&a.text).block());
        }
        _ => s.push_str("\n(none)\n"),
    }
    s
}

/// `task T-1 · issue 42` and the brief digest.
pub fn task_lines(task: &TaskRef) -> String {
    let mut s = String::new();
    let mut named = Vec::new();
    if let Some(i) = &task.issue {
        named.push(format!("issue {}", i));
    }
    if let Some(i) = &task.intent {
        named.push(format!("intent {}", i));
    }
    if let Some(e) = &task.exemption {
        named.push(format!("exempt: {}", e));
    }
    let named = if named.is_empty() {
        String::new()
    } else {
        format!(" · {}", named.join(" · "))
    };
    let _ = writeln!(s, "task {}{named}", style::strong(OUT, &task.id));
    if let Some(brief) = &task.brief {
        s.push_str(&brief_digest(brief));
    } else {
        let _ = writeln!(s, "  brief: {}", style::warn(OUT, "none recorded"));
    }
    s
}

/// The short brief digest: its first lines, how many addenda, the latest one.
pub fn brief_digest(d: &BriefDigest) -> String {
    let mut s = String::new();
    for (i, line) in d.head.iter().enumerate() {
        let label = if i == 0 { "  brief: " } else { "         " };
        let _ = writeln!(s, "{label}{}", style::hint(OUT, line));
    }
    if d.head.is_empty() {
        let _ = writeln!(s, "  brief: {}", style::warn(OUT, "(empty)"));
    }
    let more = if d.more {
        "more in `gate task show` · "
    } else {
        ""
    };
    let addenda = match (d.addenda, &d.latest) {
        (0, _) => "no addenda".to_string(),
        (1, Some(l)) => format!("1 addendum: {}", l),
        (n, Some(l)) => format!("{n} addenda, latest: {}", l),
        (n, None) => format!("{n} addenda"),
    };
    let _ = writeln!(
        s,
        "         {}",
        style::dim(OUT, format!("({more}{addenda})"))
    );
    s
}

/// The human rendering of `gate binding`'s answer.
pub fn binding(d: &Derived) -> String {
    let j = &d.judgement;
    let mut s = String::new();
    let standing = match j.standing {
        crate::binding::Standing::Refused => style::refused(Out::Stdout, "refused"),
        other => style::pass(Out::Stdout, other.as_str()),
    };
    let _ = writeln!(s, "binding: {standing}");
    let named = [
        j.named.issue.as_ref().map(|i| format!("issue {i}")),
        j.named.intent.as_ref().map(|i| format!("intent {i}")),
        (!j.named.paths.is_empty()).then(|| format!("paths {}", j.named.paths.join(", "))),
        j.named
            .exempt
            .as_ref()
            .map(|e| match &j.exemption_description {
                Some(d) => format!("exemption {e} ({d})"),
                None => format!("exemption {e}"),
            }),
    ];
    let named: Vec<String> = named.into_iter().flatten().collect();
    let _ = writeln!(
        s,
        "  named: {}",
        if named.is_empty() {
            "nothing".into()
        } else {
            FileText::new(&named.join(" · ")).to_string()
        }
    );
    if !j.issues.is_empty() {
        let _ = writeln!(s, "  issues: {}", FileText::new(&j.issues.join(", ")));
    }
    if !j.intents.is_empty() {
        let _ = writeln!(s, "  intents: {}", FileText::new(&j.intents.join(", ")));
    }
    for (sv, state) in d.served.iter().zip(&d.states) {
        let _ = writeln!(s, "  criterion {}#{}: {state}", sv.intent, sv.criterion);
    }
    for n in &j.notes {
        let _ = writeln!(
            s,
            "  {} {}",
            style::dim(Out::Stdout, "note:"),
            FileText::new(n)
        );
    }
    for r in &j.refusals {
        let on = r
            .issue
            .as_ref()
            .map(|i| format!(" [issue {i}]"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "  {} {}{on} {}",
            style::refused(Out::Stdout, "✗"),
            style::strong(Out::Stdout, r.cause),
            FileText::new(&r.message)
        );
        let _ = writeln!(
            s,
            "      {} {}",
            style::hint(Out::Stdout, "decide:"),
            FileText::new(&r.decide)
        );
    }
    if !d.pins.plan_revision.is_empty() {
        let _ = writeln!(
            s,
            "  pins: plan_pin {} · evidence_standing {}",
            d.pins.plan_revision, d.pins.evidence_standing
        );
    }
    s
}

/// The human rendering of `gate handover`: front matter (task, HEAD, names,
/// pins), then the whole brief and every addendum.
pub fn handover(task: &Task, head: Option<&str>, d: &Derived) -> String {
    let r = &task.record;
    let mut s = String::new();
    let _ = writeln!(s, "---");
    let _ = writeln!(s, "task: {}", yaml_str(Some(&r.id)));
    let _ = writeln!(s, "head: {}", yaml_str(head));
    let _ = writeln!(s, "issue: {}", yaml_str(r.issue.as_deref()));
    let _ = writeln!(s, "intent: {}", yaml_str(r.intent.as_deref()));
    match &r.exemption {
        Some(e) => {
            let _ = writeln!(
                s,
                "exemption: {{class: {}, because: {}}}",
                yaml_str(Some(&e.class)),
                yaml_str(Some(&e.because))
            );
        }
        None => {
            let _ = writeln!(s, "exemption: null");
        }
    }
    let _ = writeln!(
        s,
        "pins: {{plan_revision: {}, evidence_standing: {}}}",
        yaml_str(Some(&d.pins.plan_revision)),
        yaml_str(Some(&d.pins.evidence_standing))
    );
    s.push_str("---\n\n");
    s.push_str(&brief_and_addenda(task));
    s
}

/// The warning on stderr of a handover whose binding is refused now.
pub fn handover_refused(id: &str, refusals: &[crate::binding::Refusal]) -> String {
    let mut text = format!(
        "{} the binding of task {id} is refused now; the next worker meets it:\n",
        style::warn(Out::Stderr, "warning:"),
    );
    for r in refusals {
        let _ = writeln!(
            text,
            "  {}: {}\n    decide: {}",
            r.cause,
            FileText::new(&r.message),
            FileText::new(&r.decide)
        );
    }
    text
}

/// The human line that says to commit a changed task file.
pub fn commit_line(commit: &crate::ctx::TaskCommit) -> String {
    format!(
        "the task file changed: commit {} with the work, or alone: {}\n",
        commit.path, commit.command
    )
}

/// What `gate start` did, as its human rendering says it.
pub struct Started<'a> {
    pub id: &'a str,
    pub file: &'a Path,
    pub baseline: crate::git::Oid,
    pub scope: &'a [String],
    /// The policy's notes.
    pub notes: &'a [String],
    /// The plan and the binding's judgement, when the binding was asked.
    pub binding: Option<(&'a crate::plan::Plan, &'a crate::binding::Judgement)>,
    pub warnings: &'a [String],
    pub task: &'a TaskRef,
}

/// The human rendering of `gate start`: the task started, its file and
/// baseline, its scope, the policy's notes, the binding it started under,
/// the warnings, the task, and what to do next.
pub fn started(started: &Started) -> String {
    let Started {
        id,
        file,
        baseline,
        scope,
        notes,
        binding,
        warnings,
        task,
    } = started;
    let mut text = format!(
        "started task {id}: {} · baseline {}\n",
        file.display(),
        baseline.short()
    );
    text.push_str(&format!("  scope: {}\n", FileText::new(&scope.join(", "))));
    for n in notes.iter() {
        text.push_str(&format!("  note: {}\n", FileText::new(n)));
    }
    if let Some((plan, judgement)) = binding {
        text.push_str(&started_binding(plan, judgement));
    }
    for w in warnings.iter() {
        text.push_str(&format!("  warning: {}\n", FileText::new(w).lines("    ")));
    }
    text.push_str(&task_lines(task));
    text.push_str("it is now this worktree's active task; commit its file with the work\n");
    text
}

/// The binding the task started under, and what it binds the work to: the
/// intent (its statement, the criteria served), the maintenance, or the
/// exemption's declared description and reason.
pub(super) fn started_binding(plan: &crate::plan::Plan, j: &crate::binding::Judgement) -> String {
    let mut s = format!("  binding: {}", j.standing.as_str());
    match j.standing {
        crate::binding::Standing::Bound => {
            s.push('\n');
            for id in &j.intents {
                if let Some(intent) = plan.intent(id) {
                    s.push_str(&format!(
                        "  intent {}: {}\n",
                        FileText::new(id),
                        FileText::new(&intent.statement)
                    ));
                }
            }
            for sv in crate::binding::judged_criteria(plan, j) {
                s.push_str(&format!(
                    "    serves {}#{}: {}\n",
                    FileText::new(&sv.intent),
                    FileText::new(&sv.criterion),
                    FileText::new(&sv.text)
                ));
            }
        }
        crate::binding::Standing::Maintenance => s.push_str(" (the work serves no intent)\n"),
        crate::binding::Standing::Exempt => {
            let class = j.named.exempt.as_deref().unwrap_or_default();
            let description = j
                .exemption_description
                .as_deref()
                .map(|d| format!(": {}", FileText::new(d)))
                .unwrap_or_default();
            let because = j.named.because.as_deref().unwrap_or_default();
            s.push_str(&format!(
                " · {}{description} · because: {}\n",
                FileText::new(class),
                FileText::new(because)
            ));
        }
        crate::binding::Standing::Refused => s.push('\n'),
    }
    s
}

/// The human rendering of `gate handover --resolve`: the task, then its
/// answer and why.
pub fn resolved(task: &TaskRef, answer: &str, message: &str) -> String {
    let mut text = task_lines(task);
    text.push_str(&format!(
        "handover {}: {answer}\n  {}\n",
        task.id,
        FileText::new(message)
    ));
    text
}

/// A quoted string for the handover's header; what JSON quoting leaves
/// (C1 controls, bidi overrides) is shown, never obeyed.
pub(super) fn yaml_str(s: Option<&str>) -> String {
    s.map_or("null".into(), |s| {
        FileText::new(&serde_json::to_string(s).expect("a string serialises")).to_string()
    })
}

/// How to commit `file`, one of gate's files for agents just written, as
/// the policy lets it be committed here (docs/agents.md, "Committing
/// gate's agent files"): plainly; with the active task whose scope holds
/// it; or, under `scope: required`, in a task of its own — the governance
/// route, as lines to paste into a shell.
pub(super) fn commit_next(
    file: &str,
    why: &str,
    route: &crate::checks::scope::CommitRoute,
) -> String {
    use crate::checks::scope::CommitRoute;
    let path = crate::path::RepoPath::from(file);
    let arg = crate::scope::scope_add_arg(&path);
    match route {
        CommitRoute::Free => format!("next: commit {file}, {why}\n"),
        CommitRoute::InTask(id) => {
            format!("next: commit {file} with task {id}'s work (its scope holds it), {why}\n")
        }
        CommitRoute::OwnTask {
            governance,
            binding_required,
            active,
        } => {
            let head = format!(
                "next: commit {file}, {why}; under `scope: required` that needs a task whose scope holds it"
            );
            let start = if *governance {
                format!(
                    "{head}: gate's own files take the governance route (docs/policy.md#governance):\n\
                     gate start --exempt governance --because \"Commit gate's files for agents\" --scope {arg} --brief - <<'EOF'\n"
                )
            } else if !binding_required {
                format!("{head}, a task of its own:\ngate start --scope {arg} --brief - <<'EOF'\n")
            } else {
                return format!(
                    "{head}, and the policy requires a binding but declares no `governance` exemption class: declare it in .gate/policy.yaml (docs/policy.md#governance), or start a task that names what the work serves with `--scope {arg}`, then commit {file} with it\n"
                );
            };
            let mut text = format!(
                "{start}Commit {file}, gate's file for the agents working here.\nEOF\n\
                 git add {arg} ':/.gate/tasks' && git commit -m \"Add {file}, gate's file for agents\"\n\
                 gate task finish    # then commit the task file as it says\n"
            );
            if let Some(id) = active {
                text.push_str(&format!(
                    "gate task switch {id}    # back to the task that was active\n"
                ));
            }
            text
        }
    }
}

/// The human rendering of `gate task list`: one line per task (`*` marks
/// the active one), then the task files that could not be read, and an
/// active task without a file.
pub fn task_list(tasks: &[&Task], errors: &[String], active: Option<&str>) -> String {
    let mut text = String::new();
    if tasks.is_empty() && errors.is_empty() {
        text.push_str("no tasks (start one with `gate start`)\n");
    }
    for t in tasks {
        let r = &t.record;
        let mark = if active == Some(r.id.as_str()) {
            "*"
        } else {
            " "
        };
        let named = r
            .issue
            .as_ref()
            .map(|i| format!("issue {}", FileText::new(i)))
            .or_else(|| {
                r.intent
                    .as_ref()
                    .map(|i| format!("intent {}", FileText::new(i)))
            })
            .or_else(|| {
                r.exemption
                    .as_ref()
                    .map(|e| format!("exempt {}", FileText::new(&e.class)))
            })
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
            FileText::new(&r.id),
            r.status.as_str(),
            named,
            FileText::new(first.trim())
        ));
    }
    for e in errors {
        text.push_str(&format!("! {}\n", FileText::new(e)));
    }
    if let Some(a) = active
        && !tasks.iter().any(|t| t.record.id == a)
    {
        text.push_str(&format!(
            "! the active task `{}` has no task file\n",
            FileText::new(a)
        ));
    }
    text
}

/// The human rendering of `gate task show`: the task (`shown_as`, its
/// digest), its record, the scope
/// additions the doors judge with (`trusted`) and any the file holds that
/// no command recorded, the exemption, the brief and addenda, the notes,
/// and the problems of the file.
pub fn task_shown(
    task: &Task,
    shown_as: &TaskRef,
    trusted: &[crate::brief::ScopeAddition],
) -> String {
    let r = &task.record;
    let mut text = task_lines(shown_as);
    text.push_str(&format!(
        "  status {} · created {} by {} ({}) · baseline {}\n  scope: {}\n",
        r.status.as_str(),
        FileText::new(&r.created_at),
        FileText::new(&r.operator),
        FileText::new(&r.created_by),
        FileText::new(r.baseline.get(..12).unwrap_or(&r.baseline)),
        FileText::new(&r.scope.join(", "))
    ));
    for added in trusted {
        text.push_str(&format!(
            "  scope added: {} ({}, {}): {}\n",
            FileText::new(&added.glob),
            FileText::new(&added.author),
            FileText::new(&added.time),
            FileText::new(&added.because)
        ));
    }
    for added in &task.scope_added {
        if !trusted.iter().any(|t| t.glob == added.glob) {
            text.push_str(&format!(
                "  ! scope entry not recorded by `gate task scope add`, so not judged with: {}\n",
                FileText::new(&added.glob)
            ));
        }
    }
    if let Some(e) = &r.exemption {
        text.push_str(&format!(
            "  exemption: {} because {}\n",
            FileText::new(&e.class),
            FileText::new(&e.because)
        ));
    }
    text.push('\n');
    text.push_str(&brief_and_addenda(task));
    if let Some(n) = &task.body.notes
        && !n.text.trim().is_empty()
    {
        text.push_str("\n## Implementation notes\n");
        let _ = write!(text, "{}", FileText::new(&n.text).block());
    }
    for p in &task.body.problems {
        text.push_str(&format!(
            "\n! {}:{}: {}\n",
            task.file.display(),
            p.line,
            FileText::new(&p.message)
        ));
    }
    text
}

/// The branch `gate task switch` was run on, and whether the task is now
/// tied to it (the error's message when it could not be recorded).
pub struct SwitchedOn<'a> {
    pub branch: &'a str,
    pub tied: Result<(), String>,
}

/// The human rendering of `gate task switch`: the active task, the branch
/// it is tied to (or why not), and the task.
pub fn switched(id: &str, on: Option<&SwitchedOn>, task: &TaskRef) -> String {
    let mut text = format!("active task: {}\n", FileText::new(id));
    if let Some(on) = on {
        match &on.tied {
            Ok(()) => text.push_str(&format!("  on branch {}\n", FileText::new(on.branch))),
            Err(why) => text.push_str(&format!(
                "  warning: not recorded for branch {} ({}): checking it out again will not re-activate the task\n",
                FileText::new(on.branch),
                FileText::new(why)
            )),
        }
    }
    text.push_str(&task_lines(task));
    text
}

/// A change a task verb made to a task's file.
pub enum TaskChange<'a> {
    /// An entry (`amendment`, `decision`, `note`) appended to `file`.
    Appended { what: &'a str, file: &'a Path },
    /// The task closed with `status` (`completed`, `abandoned`).
    Closed { id: &'a str, status: &'a str },
    /// `glob` added to the task's scope, appended to `file`;
    /// `not_recorded` says why this clone's scope log did not take it.
    ScopeAdded {
        id: &'a str,
        glob: &'a str,
        file: &'a Path,
        not_recorded: Option<&'a str>,
    },
}

/// The human rendering of a change a task verb made (`gate task amend`,
/// `ask`, `note`, `finish`, `abandon`, `scope add`): what changed, then the
/// commit to make.
pub fn task_changed(change: &TaskChange, commit: &crate::ctx::TaskCommit) -> String {
    let mut text = match change {
        TaskChange::Appended { what, file } => {
            format!("{what} appended to {}\n", file.display())
        }
        TaskChange::Closed { id, status } => format!("task {id}: {status}\n"),
        TaskChange::ScopeAdded {
            id,
            glob,
            file,
            not_recorded,
        } => {
            let mut said = format!(
                "task {id}: scope adds {glob} (appended to {})\n",
                file.display()
            );
            if let Some(why) = not_recorded {
                said.push_str(&format!(
                    "  warning: not recorded in this clone ({}): the doors count the addition once the task file is committed\n",
                    FileText::new(why)
                ));
            }
            said
        }
    };
    text.push_str(&commit_line(commit));
    text
}

/// The human rendering of `gate task scope add` for a glob the task's scope
/// already holds.
pub fn scope_already(id: &str, glob: &str) -> String {
    format!("task {id}: {glob} is in its scope already; nothing written\n")
}

/// `gate plan critique`: the entry written into the plan (`written`), or
/// printed to paste under `critiques:` in `file`.
pub fn critique(file: &Path, intent: &str, entry: &str, written: bool) -> String {
    if written {
        format!(
            "wrote into {} under critiques:\n{entry}record the review's findings there; an open blocking one stops work on {intent}\n",
            file.display()
        )
    } else {
        format!("# paste under `critiques:` in {}\n{entry}", file.display())
    }
}
