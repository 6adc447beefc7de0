//! `gate task list | show | switch | amend | ask | note | finish | abandon |
//! validate | scope add` (docs/tasks.md); `validate` reports the brief
//! check's validation of each task file (`crate::checks::brief`).

use std::path::Path;

use crate::brief::{self, Decider, Qa};
use crate::checks::brief::{CHECK, schema_findings, validate_task};
use crate::cli::ValidateArgs;
use crate::cli::{
    AmendArgs, AskArgs, DecidedBy, NoteArgs, ScopeAddArgs, ScopeCommand, TaskCommand,
};
use crate::clock::Timestamp;
use crate::ctx::{Ctx, task_ref};
use crate::ctx::{commit_of, policy_origin, today};
use crate::error::Failure;
use crate::git::Head;
use crate::load::LoadError;
use crate::policy::Mode;
use crate::report::ReportAnswer;
use crate::report::human::{self, TaskChange};
use crate::report::wire::task_change::{ChangeWire, TASK_CHANGE_SCHEMA};
use crate::report::wire::tasks::{ListWire, ListedTaskWire, TASKS_SCHEMA, TaskErrorWire};
use crate::started::tie_to_branch;
use crate::task::{self as tasks, TaskStatus};
use crate::task::{Log, Task, TaskError, Transition};
use crate::ui::{Answer, Shown, Ui};
use crate::verdict::ExitCode;
use crate::verdict::{CheckReport, Report};

pub fn run(dir: Option<&Path>, cmd: &TaskCommand, ui: &Ui) -> Result<Answer, Failure> {
    let ctx = Ctx::open(dir)?;
    match cmd {
        TaskCommand::List { .. } => list(&ctx),
        TaskCommand::Show { id } => show(&ctx, id.as_deref()),
        TaskCommand::Switch { id } => switch(&ctx, id),
        TaskCommand::Amend(args) => amend(&ctx, args, ui),
        TaskCommand::Ask(args) => ask(&ctx, args, ui),
        TaskCommand::Note(args) => note(&ctx, args, ui),
        TaskCommand::Finish { id, json } => finish(&ctx, id.as_deref(), *json, ui),
        TaskCommand::Abandon { id, because, json } => {
            abandon(&ctx, id.as_deref(), because, *json, ui)
        }
        TaskCommand::Validate(args) => validate(&ctx, args),
        TaskCommand::Scope(ScopeCommand::Add(args)) => scope_add(&ctx, args, ui),
    }
}

/// What `gate task list` answers: every task file read, and those that
/// could not be.
struct ListAnswer {
    active: Option<String>,
    found: Vec<Task>,
    errors: Vec<String>,
}

impl Shown for ListAnswer {
    type Wire<'a> = ListWire<'a>;
    fn wire(&self) -> ListWire<'_> {
        let active = self.active.as_deref();
        ListWire {
            schema: TASKS_SCHEMA,
            active,
            tasks: self
                .found
                .iter()
                .map(|t| {
                    let r = &t.record;
                    ListedTaskWire {
                        id: &r.id,
                        status: r.status.as_str(),
                        active: active == Some(r.id.as_str()),
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
            errors: self
                .errors
                .iter()
                .map(|m| TaskErrorWire { message: m.clone() })
                .collect(),
        }
    }
    fn text(&self) -> String {
        let found: Vec<&Task> = self.found.iter().collect();
        human::task_list(&found, &self.errors, self.active.as_deref())
    }
}

fn list(ctx: &Ctx) -> Result<Answer, Failure> {
    let active = ctx.active_id()?;
    let all = tasks::list(ctx.root())?;
    let mut found = Vec::new();
    let mut errors = Vec::new();
    for t in all {
        match t {
            Ok(t) => found.push(t),
            Err(e) => errors.push(e.to_string()),
        }
    }
    let code = if errors.is_empty() {
        ExitCode::Pass
    } else {
        ExitCode::Unknown
    };
    Ok(Answer::document(
        code,
        ListAnswer {
            active,
            found,
            errors,
        },
    ))
}

fn show(ctx: &Ctx, id: Option<&str>) -> Result<Answer, Failure> {
    let task = ctx.require_task(id)?;
    // Additions as the doors judge them, and any the file holds that no
    // command recorded (docs/trust.md#scope-additions).
    let trusted = crate::checks::recorded::trusted_additions(ctx, &task.record.id)
        .map_err(Failure::unknown)?;
    Ok(Answer::text(
        ExitCode::Pass,
        human::task_shown(&task, &task_ref(&task), &trusted),
    ))
}

fn switch(ctx: &Ctx, id: &str) -> Result<Answer, Failure> {
    let task = tasks::load(ctx.root(), id)?;
    if task.record.status != TaskStatus::Active {
        return Err(Failure::refused(format!(
            "task {id} is {}; only an active task can be switched to",
            task.record.status.as_str()
        )));
    }
    tasks::active::set(&ctx.repo.git_dir(), id)?;
    // Tied to the branch it is switched on: checking that branch out again
    // makes it active there (decision 0007).
    let head = ctx.repo.head()?;
    let on = match &head {
        Head::Branch { branch, .. } | Head::Unborn { branch } => Some(human::SwitchedOn {
            branch: branch.strip_prefix("refs/heads/").unwrap_or(branch),
            tied: tie_to_branch(ctx, id, branch).map_err(|f| f.message),
        }),
        Head::Detached { .. } => None,
    };
    Ok(Answer::text(
        ExitCode::Pass,
        human::switched(id, on.as_ref(), &task_ref(&task)),
    ))
}

/// Read a verbatim input (file or `-`) as UTF-8 text.
fn read_text(ui: &Ui, spec: &str, flag: &str) -> Result<String, Failure> {
    let bytes = ui.read_input(spec, flag)?;
    String::from_utf8(bytes).map_err(|e| {
        Failure::refused(format!(
            "{flag} {spec}: not UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Whoever records an entry: `--author`, else git's user.name.
fn author(ctx: &Ctx, given: Option<&str>) -> Result<String, Failure> {
    match given {
        Some(a) => brief::one_line("--author", a)
            .map(|()| a.to_string())
            .map_err(Failure::usage),
        None => ctx
            .repo
            .config_string("user.name")
            .filter(|n| !n.trim().is_empty() && !n.contains('\n'))
            .ok_or_else(|| {
                Failure::usage("no author: git user.name is unset").hint("pass --author NAME")
            }),
    }
}

/// The task acted on, its brief shown first, before anything is written
/// (not under `--json`: stdout then holds one document).
fn acted_on(ctx: &Ctx, id: Option<&str>, as_json: bool, ui: &Ui) -> Result<Task, Failure> {
    let task = ctx.require_task(id)?;
    if !as_json {
        ui.out(&human::task_lines(&task_ref(&task)));
    }
    Ok(task)
}

/// What a verb that changed a task's file answers: what it did and the
/// commit to make, or one `gate.task-change/1` document.
struct ChangeAnswer {
    id: String,
    change: String,
    status: &'static str,
    commit: crate::ctx::TaskCommit,
    /// What was done, for people.
    said: String,
}

impl Shown for ChangeAnswer {
    type Wire<'a> = ChangeWire<'a>;
    fn wire(&self) -> ChangeWire<'_> {
        ChangeWire {
            schema: TASK_CHANGE_SCHEMA,
            task: &self.id,
            change: &self.change,
            status: self.status,
            commit: self.commit.clone().into(),
        }
    }
    fn text(&self) -> String {
        self.said.clone()
    }
}

/// Report a change a verb made to `task`'s file: what it did (`said`) and
/// the commit to make.
fn report_change(ctx: &Ctx, task: &Task, change: &str, said: &TaskChange) -> Answer {
    let commit = commit_of(ctx, &task.record.id, change);
    Answer::document(
        ExitCode::Pass,
        ChangeAnswer {
            id: task.record.id.clone(),
            change: change.to_string(),
            status: task.record.status.as_str(),
            said: human::task_changed(said, &commit),
            commit,
        },
    )
}

/// Append the entry `entry` renders at a time to `log` of `task` (under its
/// lock, on the file as it is then, with the time taken there: taken before
/// the lock, a writer that waited would land an earlier time after a later
/// one) and say so.
fn append_entry(
    ctx: &Ctx,
    task: &Task,
    log: Log,
    entry: impl FnOnce(&str, &Task) -> String,
    what: &str,
) -> Result<Answer, Failure> {
    let task = tasks::append(
        ctx.root(),
        &ctx.state_dir(),
        &task.record.id,
        log,
        |now| entry(&Timestamp::now().to_string(), now),
        None,
    )?;
    let said = TaskChange::Appended {
        what,
        file: &task.file,
    };
    Ok(report_change(ctx, &task, what, &said))
}

/// An inline `--text` within the size every verbatim input is held to.
fn inline_text(text: &str) -> Result<(), Failure> {
    if text.len() > crate::ui::MAX_INPUT_BYTES {
        return Err(Failure::refused(format!(
            "--text: over the {} KiB limit",
            crate::ui::MAX_INPUT_BYTES / 1024
        )));
    }
    Ok(())
}

fn amend(ctx: &Ctx, args: &AmendArgs, ui: &Ui) -> Result<Answer, Failure> {
    brief::one_line("--author", &args.author).map_err(Failure::usage)?;
    let text = match (&args.text, &args.file) {
        (Some(t), _) => {
            inline_text(t)?;
            t.clone()
        }
        (None, Some(f)) => read_text(ui, f, "--file")?,
        (None, None) => {
            return Err(Failure::usage(
                "give the clarification with --text or --file",
            ));
        }
    };
    if text.trim().is_empty() {
        return Err(Failure::refused("the amendment is empty"));
    }
    let task = acted_on(ctx, args.id.as_deref(), args.json, ui)?;
    let entry = |time: &str, _: &Task| brief::render_amendment(time, &args.author, &text);
    append_entry(ctx, &task, Log::Addenda, entry, "amendment")
}

fn ask(ctx: &Ctx, args: &AskArgs, ui: &Ui) -> Result<Answer, Failure> {
    // Everything is checked before anything is written.
    let decided_by = match args.decided_by {
        DecidedBy::Operator => Decider::Operator,
        DecidedBy::Agent => Decider::Agent,
    };
    if args.resolves.is_some() && decided_by != Decider::Operator {
        return Err(Failure::usage(
            "--resolves closes a conflict with the operator's answer: it needs --decided-by operator",
        ));
    }
    brief::one_line("--stage", &args.stage).map_err(Failure::usage)?;
    brief::one_line("--summary", &args.summary).map_err(Failure::usage)?;
    brief::one_line("--conflict", &args.conflict).map_err(Failure::usage)?;
    let stdin_uses = [&args.question_file, &args.answer_file]
        .iter()
        .filter(|f| f.as_str() == "-")
        .count()
        + usize::from(args.rationale_file.as_deref() == Some("-"));
    if stdin_uses > 1 && ui.dash_reads_stdin() {
        return Err(Failure::usage("only one of the files can be - (stdin)"));
    }
    let question = read_text(ui, &args.question_file, "--question-file")?;
    let answer = read_text(ui, &args.answer_file, "--answer-file")?;
    if question.trim().is_empty() || answer.trim().is_empty() {
        return Err(Failure::refused(
            "the question and the answer must not be empty",
        ));
    }
    let rationale = match &args.rationale_file {
        Some(f) => Some(read_text(ui, f, "--rationale-file")?),
        None => None,
    };
    if decided_by == Decider::Agent {
        let n = rationale.as_deref().map_or(0, brief::substance);
        if n < brief::MIN_RATIONALE {
            return Err(Failure::refused(format!(
                "an agent's decision needs a rationale of at least {} non-whitespace characters (given: {n}); nothing was written",
                brief::MIN_RATIONALE
            ))
            .hint("say why, by best practice, in --rationale-file F"));
        }
    }
    let author = author(ctx, args.author.as_deref())?;
    let task = acted_on(ctx, args.id.as_deref(), args.json, ui)?;
    if let Some(round) = args.resolves {
        resolvable(&task, round)?;
    }
    // The round is counted on the file as it is under the lock: of two
    // questions asked at once, each takes its own.
    let entry = |time: &str, now: &Task| {
        let round = now
            .body
            .addenda
            .as_ref()
            .map_or(1, |section| brief::next_round(&section.text));
        brief::render_qa(&Qa {
            time,
            author: &author,
            stage: &args.stage,
            question: &question,
            answer: &answer,
            decided_by,
            summary: &args.summary,
            conflict: &args.conflict,
            rationale: rationale.as_deref(),
            round,
            resolves: args.resolves,
        })
    };
    append_entry(ctx, &task, Log::Addenda, entry, "decision")
}

/// Whether the operator's answer can close `round` of `task`: that round is a decision of the agent's that records a
/// conflict (docs/brief.md, "A conflict waits for the operator").
fn resolvable(task: &Task, round: usize) -> Result<(), Failure> {
    let qa = task
        .body
        .addenda
        .as_ref()
        .map(|s| brief::qa_entries(&s.text, s.line))
        .unwrap_or_default();
    let open: Vec<String> = brief::open_conflicts(&qa)
        .iter()
        .map(|q| q.round.to_string())
        .collect();
    let listed = if open.is_empty() {
        "it has none open".to_string()
    } else {
        format!("open: round {}", open.join(", round "))
    };
    match qa.iter().find(|q| q.round == round) {
        Some(q) if q.decided_by == "agent" && q.conflicts() => Ok(()),
        Some(_) => Err(Failure::refused(format!(
            "round {round} of task {} is no decision of the agent's that records a conflict ({listed}); nothing was written",
            task.record.id
        ))),
        None => Err(Failure::refused(format!(
            "task {} has no qa round {round} ({listed}); nothing was written",
            task.record.id
        ))),
    }
}

fn note(ctx: &Ctx, args: &NoteArgs, ui: &Ui) -> Result<Answer, Failure> {
    if args.text.trim().is_empty() {
        return Err(Failure::usage("the note is empty"));
    }
    inline_text(&args.text)?;
    let author = author(ctx, args.author.as_deref())?;
    let task = acted_on(ctx, args.id.as_deref(), args.json, ui)?;
    let entry = |time: &str, _: &Task| brief::render_note(time, "note", &author, &args.text);
    append_entry(ctx, &task, Log::Notes, entry, "note")
}

/// Close a task: its status changes, a note says when and by whom (and
/// why, when abandoned), and it stops being this worktree's active task.
/// Only an active task closes; that is checked under the task's lock, on
/// the file as it is then, so of two concurrent closes one is refused.
fn close(
    ctx: &Ctx,
    id: Option<&str>,
    status: TaskStatus,
    reason: &str,
    as_json: bool,
    ui: &Ui,
) -> Result<Answer, Failure> {
    let task = acted_on(ctx, id, as_json, ui)?;
    let author = author(ctx, None).unwrap_or_else(|_| task.record.operator.clone());
    // The time is taken under the lock, like every appended entry's.
    let entry = |_: &Task| {
        brief::render_note(
            &Timestamp::now().to_string(),
            status.as_str(),
            &author,
            reason,
        )
    };
    let id = task.record.id.clone();
    let closing = Transition {
        from: TaskStatus::Active,
        to: status,
    };
    let closed = match tasks::append(
        ctx.root(),
        &ctx.state_dir(),
        &id,
        Log::Notes,
        entry,
        Some(closing),
    ) {
        Ok(task) => task,
        Err(TaskError::Status { found, .. }) => {
            return Err(Failure::refused(format!(
                "task {id} is already {}",
                found.as_str()
            )));
        }
        Err(e) => return Err(e.into()),
    };
    tasks::active::clear_if(&ctx.repo.git_dir(), &id)?;
    let said = TaskChange::Closed {
        id: &id,
        status: status.as_str(),
    };
    Ok(report_change(ctx, &closed, status.as_str(), &said))
}

fn finish(ctx: &Ctx, id: Option<&str>, as_json: bool, ui: &Ui) -> Result<Answer, Failure> {
    close(ctx, id, TaskStatus::Completed, "Finished.", as_json, ui)
}

fn abandon(
    ctx: &Ctx,
    id: Option<&str>,
    because: &str,
    as_json: bool,
    ui: &Ui,
) -> Result<Answer, Failure> {
    if because.trim().is_empty() {
        return Err(Failure::usage("--because must say why"));
    }
    close(ctx, id, TaskStatus::Abandoned, because, as_json, ui)
}

/// `gate task scope add GLOB --because TEXT`: widen an active task's scope
/// by a signed `scope` entry appended to its addenda, also kept in this
/// clone's local state so the doors judge with it before it is committed
/// (docs/tasks.md#widening-the-scope, docs/trust.md#scope-additions).
/// Under `binding: required` the glob must lie in the paths of the issues
/// the task names; a refusal names the issue that covers it, if one does.
fn scope_add(ctx: &Ctx, args: &ScopeAddArgs, ui: &Ui) -> Result<Answer, Failure> {
    let glob = ctx.from_cwd("GLOB", &args.glob)?;
    crate::scope::compile_glob(&glob).map_err(|m| Failure::usage(format!("GLOB: {m}")))?;
    brief::one_line("--because", &args.because).map_err(Failure::usage)?;
    let author = author(ctx, args.author.as_deref())?;
    let task = ctx.require_task(args.task.as_deref())?;
    let id = task.record.id.clone();
    if task.record.status != TaskStatus::Active {
        return Err(Failure::refused(format!(
            "task {id} is {}; only an active task's scope widens",
            task.record.status.as_str()
        ))
        .hint("start a task for the work with `gate start`"));
    }
    let judged = crate::checks::recorded::judged(ctx, task.clone()).map_err(Failure::unknown)?;
    if judged.scope().contains(&glob) {
        return Ok(Answer::text(
            ExitCode::Pass,
            human::scope_already(&id, &glob),
        ));
    }
    let (policy, _) = crate::checks::trusted::local(ctx, false)?;
    if policy.policy.binding == crate::policy::Mode::Required {
        crate::checks::issue_paths::within_named_paths(
            ctx,
            &judged.record.id,
            judged.record.issue.as_deref(),
            judged.record.intent.as_deref(),
            &glob,
        )?;
    }
    if !args.json {
        ui.out(&human::task_lines(&task_ref(&task)));
    }
    let time = std::cell::RefCell::new(String::new());
    let entry = |_: &Task| {
        let now = Timestamp::now().to_string();
        time.replace(now.clone());
        brief::render_scope(&now, &author, &glob, &args.because)
    };
    let task = tasks::append(ctx.root(), &ctx.state_dir(), &id, Log::Addenda, entry, None)?;
    let kept = brief::render_scope(&time.borrow(), &author, &glob, &args.because);
    let recorded = scope_log_lock(ctx, &id).and_then(|_lock| {
        crate::checks::recorded::record_scope_entry(&ctx.repo.common_dir(), &id, &kept)
            .map_err(Failure::unknown)
    });
    let said = TaskChange::ScopeAdded {
        id: &id,
        glob: &glob,
        file: &task.file,
        not_recorded: recorded.as_ref().err().map(|f| f.message.as_str()),
    };
    Ok(report_change(ctx, &task, "scope", &said))
}

/// The lock the writers of task `id`'s local scope log hold.
fn scope_log_lock(ctx: &Ctx, id: &str) -> Result<crate::fsutil::Lock, Failure> {
    crate::fsutil::lock(
        &ctx.state_dir()
            .join("locks")
            .join(format!("scope-{id}.lock")),
        tasks::LOCK_TIMEOUT,
    )
    .map_err(|e| Failure::unknown(e.to_string()))
}

/// `gate task validate (--task ID | --all) [--today DATE] [--json]`.
pub fn validate(ctx: &Ctx, args: &ValidateArgs) -> Result<Answer, Failure> {
    let policy = ctx.policy()?;
    let today = today(args.today.as_deref())?;
    let root = ctx.root();
    let ids = match &args.task {
        Some(id) => {
            crate::ids::task_id(id)
                .map_err(|m| Failure::usage(format!("invalid task id `{id}`: {m}")))?;
            vec![id.clone()]
        }
        None => tasks::ids(root)?,
    };
    let mut findings = Vec::new();
    let mut count = 0;
    for id in &ids {
        let file = tasks::task_file(id);
        // Each file is read and parsed once, by the loader `gate task list` uses.
        match tasks::load(root, id) {
            Ok(task) => {
                // --all covers every active task (and any file too broken to tell).
                if args.all && task.record.status != TaskStatus::Active {
                    continue;
                }
                count += 1;
                findings.extend(validate_task(&task, &policy.policy, today));
            }
            Err(e @ TaskError::NotFound { .. }) => return Err(e.into()),
            Err(TaskError::Load(
                e @ (LoadError::Read { .. }
                | LoadError::TooLarge { .. }
                | LoadError::NotUtf8 { .. }),
            )) => findings.push(crate::checks::unreadable(CHECK, &e)),
            Err(e) => {
                count += 1;
                findings.extend(schema_findings(&file, &e, &policy.policy, today));
            }
        }
    }
    let summary = format!(
        "{count} task file{} validated on {today}",
        if count == 1 { "" } else { "s" }
    );
    let report = Report {
        verb: "task validate".into(),
        policy: policy_origin(&policy),
        task: None,
        checks: vec![CheckReport::new(CHECK, Mode::Required, summary, findings)],
        skipped: vec![],
        notes: policy.policy.notes.clone(),
    };
    Ok(Answer::document(report.exit_code(), ReportAnswer(report)))
}
