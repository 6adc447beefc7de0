//! `gate hook …`: the entry points the installed hooks call (docs/hooks.md).
//!
//! - `pre-commit`: the scope and the brief of the staged changes, through
//!   `checks::build`;
//! - `prepare-commit-msg FILE [SOURCE [SHA]]`: the active task's trailer;
//!   never fails;
//! - `pre-push REMOTE URL`: provenance of every pushed ref (read from
//!   stdin), the receipts, the brief and the binding, each through its
//!   module in `checks/`, judged by the policy the remote already has;
//! - `post-checkout OLD NEW FLAG`: re-point the active task; never fails.

use std::io::Read;
use std::path::Path;

use crate::checks::{self, Target, TaskState};
use crate::cli::HookCommand;
use crate::ctx::{Ctx, task_ref};
use crate::error::Failure;
use crate::git::{GitError, Head, Oid};
use crate::policy::Mode;
use crate::provenance::{self, Base, ChangedTasks, Options, RangeSpec, TaskSet};
use crate::report::human::{self, Attached, CheckedOut, ReceiptsSent, Travelled};
use crate::started::started_dir;
use crate::task::{self as tasks, TaskStatus};
use crate::text::FileText;
use crate::ui::{Answer, Ui};
use crate::verdict::ExitCode;
use crate::verdict::{At, Finding, Report};

pub fn run(dir: Option<&Path>, hook: &HookCommand, ui: &Ui) -> Result<Answer, Failure> {
    // A repository without gate's files is not gate's business: a hooks
    // directory shared by many repositories (`gate install --global`) runs
    // these hooks everywhere, and they stay silent there (docs/hooks.md).
    // The repository is opened once: these run on every commit and push.
    let opened = Ctx::open(dir);
    if let Ok(ctx) = &opened
        && !crate::ctx::governed(ctx)
        && !match hook {
            HookCommand::PrePush { remote, .. } => governed_remote(ctx, remote),
            _ => false,
        }
    {
        return Ok(Answer::quiet(ExitCode::Pass));
    }
    match hook {
        HookCommand::PreCommit => pre_commit(&opened?),
        HookCommand::PrepareCommitMsg {
            file,
            source,
            commit: _,
        } => {
            // Never fail a commit over its attribution: pre-commit and CI
            // judge; this only saves remembering the trailer.
            let added =
                opened.and_then(|ctx| prepare_commit_msg(&ctx, dir, file, source.as_deref(), ui));
            Ok(match added {
                Ok(()) => Answer::quiet(ExitCode::Pass),
                Err(f) => {
                    Answer::quiet(ExitCode::Pass).then_err(human::trailer_not_added(&f.message))
                }
            })
        }
        HookCommand::PrePush { remote, url: _ } => pre_push(&opened?, remote),
        HookCommand::PostCheckout { old, new, flag } => {
            // Never fail a checkout: report and exit 0 whatever happens.
            Ok(match post_checkout(dir, old == new, flag, ui) {
                Ok(said) => Answer::text(ExitCode::Pass, said),
                Err(f) => {
                    Answer::quiet(ExitCode::Pass).then_err(human::checkout_failed(&f.message))
                }
            })
        }
    }
}

/// A hook's report as its answer (`human::hook_report`: one line when
/// nothing was found, the whole report when something blocks).
fn answer(report: &Report) -> Answer {
    Answer::text(report.exit_code(), human::hook_report(report))
}

fn pre_commit(ctx: &Ctx) -> Result<Answer, Failure> {
    let (policy, loosened) = crate::checks::trusted::local(ctx, true)?;
    let mut report = checks::build(
        ctx,
        &policy,
        None,
        &Target::Staged,
        &[],
        "hook pre-commit".into(),
    )?;
    report.attach(loosened);
    Ok(answer(&report))
}

/// The directory of gate's files in a work tree.
const GATE_DIR: &str = ".gate";

/// Whether a push may send work gate governs although HEAD and the work
/// tree have no `.gate/`: a branch whose last commit removed it is still
/// judged where the remote has gate's files on any of its branches, or
/// where this clone has gate's state. What cannot be read counts as
/// governed: silence is only for repositories gate plainly never saw.
fn governed_remote(ctx: &Ctx, remote: &str) -> bool {
    if std::fs::symlink_metadata(ctx.state_dir()).is_ok() {
        return true;
    }
    if !crate::git::is_remote_name(remote) {
        return false;
    }
    let gate_dir = crate::path::RepoPath::new(GATE_DIR);
    match ctx.repo.remote_branches(remote) {
        Ok(branches) => branches
            .iter()
            .any(|(_, tip)| !matches!(ctx.repo.tree_id_at(*tip, &gate_dir), Ok(None))),
        Err(_) => true,
    }
}

/// The trailer token when the policy names none (docs/provenance.md).
const DEFAULT_TRAILER: &str = "Task";

/// `prepare-commit-msg FILE [SOURCE [SHA]]`: append `Task: <active>` to the
/// message unless it already carries that trailer (docs/hooks.md). Runs on
/// every commit, so it reads only the active pointer and the policy's
/// trailer token: no plan, no task file, no fingerprint.
fn prepare_commit_msg(
    ctx: &Ctx,
    dir: Option<&Path>,
    file: &Path,
    source: Option<&str>,
    ui: &Ui,
) -> Result<(), Failure> {
    // The pre-commit framework hands the source in its environment.
    let from_env = std::env::var("PRE_COMMIT_COMMIT_MSG_SOURCE").ok();
    let source = source.or(from_env.as_deref());
    // A merge's message: merges are not authored work and need no trailer
    // (docs/provenance.md).
    if source == Some("merge") {
        return Ok(());
    }
    let Some(id) = ctx.active_id()? else {
        return Ok(());
    };
    let key = ctx
        .policy()?
        .policy
        .provenance
        .trailer
        .unwrap_or_else(|| DEFAULT_TRAILER.to_string());
    // Git runs the hook from the work tree's root; the path may be relative.
    let path = if file.is_absolute() || dir.is_none() {
        file.to_path_buf()
    } else {
        ctx.root().join(file)
    };
    let bytes = crate::fsutil::read_file(&path, crate::fsutil::Kind::COMMIT_MESSAGE)
        .map_err(|e| Failure::unknown(e.to_string()))?
        .ok_or_else(|| Failure::unknown(format!("{}: no such file", path.display())))?;
    let message = String::from_utf8_lossy(&bytes);
    let comment = comment_chars(ctx.repo.config_string("core.commentChar").as_deref());
    // A reused message (`--amend`, `-c`, `-C`) that names another task
    // keeps it: the commit is that task's, and the push judges it by that
    // task's scope, while pre-commit judged it by the active one's.
    if source == Some("commit") {
        let named =
            crate::provenance::trailer_values(split_body(&message, &comment).0.as_bytes(), &key);
        if let [named] = named.as_slice()
            && *named != id
        {
            ui.err(&human::reused_trailer(&key, named, &id));
        }
    }
    if let Some(text) = with_trailer(&message, &key, &id, &comment) {
        crate::fsutil::write_transient(&path, text.as_bytes())?;
    }
    Ok(())
}

/// The characters that may start a comment line of the message: git's
/// `core.commentChar`, `#` when unset, any of git's candidates for `auto`.
fn comment_chars(config: Option<&str>) -> Vec<char> {
    match config {
        None | Some("") => vec!['#'],
        Some("auto") => "#;@!$%^&|:".chars().collect(),
        Some(c) => c.chars().take(1).collect(),
    }
}

/// The message with `key: id` appended as git appends a trailer — to the
/// last paragraph when that is a trailer block, else as a paragraph of its
/// own — above the comments git strips (and anything below the scissors
/// line); `None` when the message already carries a `key` trailer.
pub fn with_trailer(message: &str, key: &str, id: &str, comment: &[char]) -> Option<String> {
    let (body, tail) = split_body(message, comment);
    if !crate::provenance::trailer_values(body.as_bytes(), key).is_empty() {
        return None;
    }
    let body = body.trim_end();
    let line = format!("{key}: {id}");
    let joined = format!("{body}\n{line}");
    let text = if !body.is_empty()
        && crate::provenance::trailer_values(joined.as_bytes(), key) == [id.to_string()]
    {
        joined
    } else {
        format!("{body}\n\n{line}")
    };
    Some(format!("{text}\n{tail}"))
}

/// The message as git keeps it, and what git strips from its end: the
/// trailing comment and blank lines, and everything from the scissors line
/// (`git commit -v`) on.
fn split_body<'m>(message: &'m str, comment: &[char]) -> (&'m str, &'m str) {
    let is_comment = |line: &str| line.starts_with(comment);
    // Below the scissors line (`git commit -v`) everything is dropped.
    let mut cut = message.len();
    let mut offset = 0;
    for line in message.split_inclusive('\n') {
        let rest = line.char_indices().nth(1).map_or("", |(i, _)| &line[i..]);
        if is_comment(line)
            && rest.trim_end() == " ------------------------ >8 ------------------------"
        {
            cut = offset;
            break;
        }
        offset += line.len();
    }
    // Then the trailing comment and blank lines.
    let mut end = 0;
    let mut offset = 0;
    for line in message[..cut].split_inclusive('\n') {
        offset += line.len();
        if !line.trim().is_empty() && !is_comment(line) {
            end = offset;
        }
    }
    message.split_at(end)
}

/// One line of pre-push input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushLine {
    /// Its 1-based line number on stdin.
    pub line: usize,
    pub local_ref: String,
    pub local: String,
    pub remote_ref: String,
    pub remote: String,
}

/// Whether an id is git's "no object" (all zeros, SHA-1 or SHA-256 length).
pub fn is_zero_id(id: &str) -> bool {
    (id.len() == 40 || id.len() == 64) && id.bytes().all(|b| b == b'0')
}

/// Parse pre-push stdin: `<local ref> <local oid> <remote ref> <remote oid>`
/// per line. An id is all zeros (of either length: "no object") or a full
/// id this repository can hold; anything else names its line.
pub fn parse_push_lines(input: &str) -> Result<Vec<PushLine>, String> {
    let mut lines = Vec::new();
    for (n, line) in input.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let n = n + 1;
        let fields: Vec<&str> = line.split(' ').collect();
        let [local_ref, local, remote_ref, remote] = fields.as_slice() else {
            return Err(format!(
                "stdin line {n}: expected `<local ref> <local oid> <remote ref> <remote oid>`, got `{line}`"
            ));
        };
        for id in [local, remote] {
            if !is_zero_id(id) && Oid::from_hex(id).is_none() {
                return Err(format!(
                    "stdin line {n}: `{id}` is not a full object id of this repository (40 hex digits, SHA-1)"
                ));
            }
        }
        if local_ref.is_empty() || remote_ref.is_empty() {
            return Err(format!("stdin line {n}: a ref name is empty in `{line}`"));
        }
        lines.push(PushLine {
            line: n,
            local_ref: local_ref.to_string(),
            local: local.to_ascii_lowercase(),
            remote_ref: remote_ref.to_string(),
            remote: remote.to_ascii_lowercase(),
        });
    }
    Ok(lines)
}

/// What pushing to one remote can be proved against.
struct PushTarget<'a> {
    /// The remote's name, or the URL when pushing to a URL.
    remote: &'a str,
    /// The tips of its remote-tracking branches (none for a URL), or why
    /// they cannot be read.
    tips: Result<Vec<Oid>, String>,
}

/// Why a pushed ref's range is not proved.
enum NoRange {
    /// It sends no commit (a deletion, a ref naming no commit): the summary.
    Nothing(String),
    /// What it sends cannot be told.
    Unknown(Box<Finding>),
}

fn pre_push(ctx: &Ctx, remote: &str) -> Result<Answer, Failure> {
    let (local, loosened) = crate::checks::trusted::local(ctx, false)?;
    // git hands pre-push the pushed refs on a pipe; a terminal there means
    // whatever ran the hook kept them (docs/hooks.md, "lefthook"): waiting
    // would hang the push, and reading nothing would prove nothing.
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        return Err(Failure::unknown(
            "pre-push: stdin is a terminal, not the refs git hands this hook: whatever ran it \
             did not pass them on (under lefthook, give gate's pre-push command \
             `use_stdin: true`; docs/hooks.md)",
        ));
    }
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| Failure::unknown(format!("pre-push: cannot read the refs on stdin: {e}")))?;
    let all_lines = parse_push_lines(&String::from_utf8_lossy(&input))
        .map_err(|m| Failure::unknown(format!("pre-push: {m}")))?;
    // The receipts' notes ref is not code: it is judged as notes (a
    // fast-forward of well-formed notes), never proved commit by commit
    // (docs/hooks.md, "pre-push sends the receipts with the push").
    let (notes_lines, lines): (Vec<PushLine>, Vec<PushLine>) = all_lines
        .into_iter()
        .partition(|l| l.remote_ref == crate::notes::NOTES_REF);
    // Judged by the policy the remote already has (docs/trust.md).
    let mut policy_notes = Vec::new();
    let pushed: Vec<&str> = lines
        .iter()
        .filter(|l| !is_zero_id(&l.local))
        .map(|l| l.remote_ref.as_str())
        .collect();
    let (policy, remote_revisions) =
        crate::checks::trusted::for_push(&ctx.repo, remote, &pushed, local, &mut policy_notes)?;
    let task = checks::task_state(ctx, None);
    let p = &policy.policy;
    let mut report = checks::header("hook pre-push".into(), &policy, &task);
    report.notes.append(&mut policy_notes);
    // What each pushed ref sends, decided once for provenance and the brief.
    let ranges: Vec<Result<(Oid, Base), NoRange>> = if p.provenance.mode == Mode::Off
        && p.brief.mode == Mode::Off
    {
        Vec::new()
    } else {
        let tips = if crate::git::is_remote_name(remote) {
            match ctx.repo.remote_branches(remote) {
                Ok(branches) => Ok(branches.into_iter().map(|(_, o)| o).collect()),
                Err(e) => Err(e.to_string()),
            }
        } else {
            report.notes.push(format!(
                "{remote} is not a remote's name (a URL?): no remote-tracking refs say what it holds"
            ));
            Ok(Vec::new())
        };
        let target = PushTarget { remote, tips };
        lines
            .iter()
            .map(|line| push_range(ctx, &target, line, &mut report.notes))
            .collect()
    };
    let default_task = match &task {
        TaskState::Loaded(t) => Some(t.as_ref()),
        _ => None,
    };
    // A rewrite of the active task's frozen fields is provenance's to
    // report here: it judges the pushed paths with them (decision 0014).
    let rewrites = match &task {
        TaskState::Loaded(t) if p.provenance.mode.runs() => {
            let (findings, note) = crate::checks::recorded::rewrite_findings(
                ctx,
                &t.record.id,
                provenance::CHECK,
                false,
            );
            report.notes.extend(note);
            findings
        }
        _ => Vec::new(),
    };
    // The task files each pushed range changes, as provenance's diffs saw
    // them (`None` where it did not diff the range).
    let mut walked: Vec<Option<ChangedTasks>> = Vec::new();
    report.run(provenance::CHECK, p.provenance.mode, Ok(()), || {
        let mut findings: Vec<_> = checks::unreadable_task(provenance::CHECK, &task)
            .into_iter()
            .chain(rewrites)
            .collect();
        let mut summaries = Vec::new();
        for (line, range) in lines.iter().zip(&ranges) {
            let (summary, mut f, changed) =
                prove_push_line(ctx, p, default_task, remote, line, range);
            walked.push(changed);
            summaries.push(summary);
            findings.append(&mut f);
            // A policy change rides in reported, never as the rule.
            if let Ok((tip, base)) = range {
                findings.extend(
                    crate::checks::trusted::changed_findings(
                        &ctx.repo,
                        &policy,
                        &base.hidden(),
                        *tip,
                        provenance::CHECK,
                        crate::verdict::Severity::Warn,
                    )
                    .into_iter()
                    .map(|mut f| {
                        f.subject.ref_name = Some(line.remote_ref.clone());
                        f
                    }),
                );
            }
        }
        if lines.is_empty() {
            summaries.push("nothing pushed".into());
        }
        (summaries.join("; "), findings)
    });
    // The tasks whose work the push carries (docs/hooks.md, "pre-push"):
    // the active one, and every task whose file the pushed commits change
    // — a finished task's too, as CI proves each. With none active and
    // none carried, a push that adds no commit has no task's work to prove.
    let carried = carried_tasks(ctx, &ranges, &walked);
    let active_id = match &task {
        TaskState::Loaded(t) => Some(t.record.id.clone()),
        _ => None,
    };
    let none_active = matches!(task, TaskState::None);
    // The active task as already loaded, then each other task carried.
    let mut judged_tasks: Vec<TaskState> = Vec::new();
    if !none_active {
        judged_tasks.push(task);
    }
    for id in carried.ids.iter().flatten() {
        if Some(id) != active_id.as_ref() {
            judged_tasks.push(checks::task_state(ctx, Some(id)));
        }
    }
    if let (true, Some(TaskState::Loaded(t))) = (none_active, judged_tasks.first()) {
        let ids: Vec<&str> = judged_tasks
            .iter()
            .filter_map(|t| match t {
                TaskState::Loaded(t) => Some(t.record.id.as_str()),
                _ => None,
            })
            .collect();
        report.notes.push(format!(
            "no task is active: the push is judged with the task{} whose file it changes ({})",
            if ids.len() == 1 { "" } else { "s" },
            ids.join(", ")
        ));
        report.task = Some(task_ref(t));
    }
    let nothing_new = judged_tasks.is_empty() && !carried.commits;
    if judged_tasks.is_empty() {
        judged_tasks.push(TaskState::None);
    }
    let judged = &judged_tasks[0];
    let receipts_applies = match nothing_new {
        true => Err("the push adds no commit: no task's work to prove"),
        false => Ok(()),
    };
    report.run(
        crate::checks::receipts::CHECK,
        p.receipts.mode,
        receipts_applies,
        || {
            // Whether each passed receipt will count where the push is
            // judged: signed by a key the remote's signers list.
            // Where no remote-tracking ref says what the remote has, HEAD's
            // signers say what this clone expects (a warning early, not the
            // door: CI reads them at the range's base).
            let head_revision: Vec<_> = match remote_revisions.is_empty() {
                true => ctx
                    .repo
                    .head()
                    .ok()
                    .and_then(|h| h.id())
                    .map(|commit| crate::checks::range_rules::Trusted {
                        commit,
                        named: format!("HEAD ({})", commit.short()),
                    })
                    .into_iter()
                    .collect(),
                false => Vec::new(),
            };
            let revisions = match remote_revisions.is_empty() {
                true => &head_revision,
                false => &remote_revisions,
            };
            let believed = checks::receipts::Believed::of(&ctx.repo, p, revisions);
            let mut summaries = Vec::new();
            let mut findings = Vec::new();
            for each in &judged_tasks {
                let (summary, mut found) =
                    checks::receipts::check_for_push(ctx, p, each, &believed);
                match each {
                    TaskState::Loaded(t) if judged_tasks.len() > 1 => {
                        summaries.push(format!("task {}: {summary}", t.record.id))
                    }
                    _ => summaries.push(summary),
                }
                findings.append(&mut found);
            }
            if let TaskState::Loaded(t) = judged {
                // What cannot be told (no plan, an unreadable one, a task whose
                // plan entry is gone) counts as depending: the receipts check
                // above is unknown then, and the pushed code is judged too.
                let names = t.record.issue.is_some() || t.record.intent.is_some();
                let depends = match ctx.plan() {
                    Ok(Some(plan)) => crate::receipts::resolve_criteria_served(
                        &plan.plan,
                        t.record.issue.as_deref(),
                        t.record.intent.as_deref(),
                    )
                    .map_or(true, |served| {
                        !crate::receipts::dependent_acceptance_checks(&served).is_empty()
                    }),
                    Ok(None) => names,
                    Err(_) => true,
                };
                if depends {
                    findings.extend(pushed_code_findings(ctx, &lines));
                }
            }
            for line in &notes_lines {
                findings.extend(pushed_notes_finding(ctx, line));
            }
            // Which tasks the push carries could not be read: those the
            // checks above did not judge may lack their receipts.
            if carried.ids.is_none() {
                findings.push(Finding::unknown(
                    crate::checks::receipts::CHECK,
                    "input_unreadable",
                    "the task files the pushed commits change could not be read, so whose receipts the push must carry is unknown".into(),
                    "repair the repository (git fsck), then push again".into(),
                ));
            }
            (summaries.join("; "), findings)
        },
    );
    report.run(crate::brief::CHECK, p.brief.mode, Ok(()), || {
        let ranges: Vec<(Oid, Vec<Oid>, Option<String>)> = lines
            .iter()
            .zip(&ranges)
            .filter_map(|(line, range)| {
                let (tip, base) = range.as_ref().ok()?;
                let hidden = base.hidden();
                Some((*tip, hidden, Some(line.remote_ref.clone())))
            })
            .collect();
        let today = crate::clock::Timestamp::now().date();
        let span = crate::checks::brief::Span::Ranges {
            ranges: &ranges,
            with_task: true,
        };
        let (summary, mut findings) = crate::checks::brief::check_span(ctx, p, judged, span, today);
        findings.extend(uncommitted_task_files(ctx));
        (summary, findings)
    });
    let binding_applies = match nothing_new {
        true => Err("the push adds no commit: no task's work to bind"),
        false => Ok(()),
    };
    report.run(crate::binding::CHECK, p.binding, binding_applies, || {
        let mut summaries = Vec::new();
        let mut findings = Vec::new();
        for each in &judged_tasks {
            let (summary, mut found) = checks::binding::check(ctx, p, each);
            summaries.push(summary);
            findings.append(&mut found);
        }
        (summaries.join("; "), findings)
    });
    report.attach(loosened);
    let mut said = answer(&report);
    if report.exit_code() == ExitCode::Pass {
        let sent = match notes_lines.is_empty() {
            true => send_receipts(ctx, p, remote, &lines),
            // This push carries the notes itself: pushing them again beside
            // it would race it for the same ref.
            false => Some(human::receipts_ride_along(remote)),
        };
        if let Some(sent) = sent {
            said = said.then_err(sent);
        }
    }
    Ok(said)
}

/// What keeps a push of `refs/notes/gate` (`line`) from being receipts
/// gate can carry ([`crate::notes::judge_update`]); `None` when it is.
fn pushed_notes_finding(ctx: &Ctx, line: &PushLine) -> Option<Finding> {
    let id = |hex: &str| match is_zero_id(hex) {
        true => Ok(None),
        false => Oid::from_hex(hex).map(Some).ok_or(()),
    };
    let (Ok(old), Ok(new)) = (id(&line.remote), id(&line.local)) else {
        return None;
    };
    let rejected = crate::notes::judge_update(&ctx.repo, &line.remote_ref, old, new).err()?;
    Some(
        Finding::blocker(
            crate::checks::receipts::CHECK,
            "notes_rejected",
            rejected.message,
            rejected.decide.into(),
        )
        .with_subject(crate::verdict::Subject {
            ref_name: Some(line.remote_ref.clone()),
            ..crate::verdict::Subject::default()
        }),
    )
}

/// Pre-push's last step, when nothing blocks: the receipts of each pushed
/// tip attached, and `refs/notes/gate` pushed to the remote git pushes to
/// (docs/hooks.md, "pre-push sends the receipts with the push"). It never
/// blocks the push: what failed is said on stderr, with what CI will then
/// report and the command that repairs it. Returns what it has to say.
fn send_receipts(
    ctx: &Ctx,
    p: &crate::policy::Policy,
    remote: &str,
    lines: &[PushLine],
) -> Option<String> {
    if p.receipts.mode == Mode::Off {
        return None;
    }
    let mut tips: Vec<Oid> = Vec::new();
    for line in lines.iter().filter(|l| !is_zero_id(&l.local)) {
        // A tag pushed: its commit carries the note.
        if let Ok(tip) = ctx.repo.resolve_commit(&line.local)
            && !tips.contains(&tip)
        {
            tips.push(tip);
        }
    }
    let mut attached = Attached::NoPlan;
    if let Ok(Some(plan)) = ctx.plan() {
        let store = crate::receipts::Store::new(&ctx.repo.common_dir());
        let baseline_of = |id: &str| match checks::task_state(ctx, Some(id)) {
            TaskState::Loaded(t) => Oid::from_hex(&t.record.baseline),
            _ => None,
        };
        attached = match crate::notes::attach_to_tips(
            &ctx.repo,
            &store,
            &plan.plan.acceptance_checks,
            &tips,
            (p.receipts.max_entries, p.receipts.max_bytes),
            p.trailer_key(),
            baseline_of,
        ) {
            Ok(held) => Attached::Held(held),
            Err(e) => Attached::Failed(e.to_string()),
        };
    }
    let wanted = ctx.repo.config_string("gate.pushReceipts").is_none_or(|v| {
        !matches!(
            v.to_ascii_lowercase().as_str(),
            "false" | "no" | "off" | "0"
        )
    });
    let travelled = match ctx
        .repo
        .ref_target(crate::notes::NOTES_REF)
        .map(|tip| tip.is_some())
    {
        _ if !wanted => Travelled::NotWanted,
        Ok(false) => Travelled::Nothing,
        Ok(true) => match crate::notes::push(&ctx.repo, remote) {
            Ok(crate::notes::Pushed::Sent { .. }) => Travelled::Sent,
            Ok(_) => Travelled::Nothing,
            Err(e) => Travelled::Failed(e.to_string()),
        },
        Err(e) => Travelled::Unreadable(e.to_string()),
    };
    Some(human::receipts_sent(&ReceiptsSent {
        attached,
        remote,
        travelled,
    }))
}

/// What the pushed commits carry: whether any ref adds a commit, and the
/// tasks whose files they change (`None` when what they change cannot be
/// read: the receipts check is then unknown). A range
/// provenance diffed (`walked`, by line) is not diffed again: only the
/// commits it did not diff against each parent are.
struct Carried {
    commits: bool,
    ids: Option<std::collections::BTreeSet<String>>,
}

fn carried_tasks(
    ctx: &Ctx,
    ranges: &[Result<(Oid, Base), NoRange>],
    walked: &[Option<ChangedTasks>],
) -> Carried {
    let mut commits = false;
    let mut ids = std::collections::BTreeSet::new();
    // A merge carries only what it changed itself (decision 0023): the
    // other side's task files came with commits of their own.
    let mut add = |commit: Oid| -> Option<()> {
        let diffs = ctx.repo.changes(commit, crate::git::Renames::Off).ok()?;
        let changes: Vec<crate::git::Change> = match diffs.len() > 1 {
            true => ctx.repo.merge_changes(commit).ok()?,
            false => diffs.into_iter().flat_map(|d| d.changes).collect(),
        };
        for change in &changes {
            ids.extend(change.paths().filter_map(crate::provenance::task_of_path));
        }
        Some(())
    };
    let mut readable = true;
    for (i, range) in ranges.iter().enumerate() {
        let Ok((tip, base)) = range else { continue };
        match walked.get(i) {
            Some(Some(changed)) => {
                commits = true;
                if changed.failed || changed.undiffed.iter().try_for_each(|c| add(*c)).is_none() {
                    readable = false;
                }
            }
            _ => match ctx.repo.walk(&[*tip], &base.hidden()) {
                Ok(walk) => {
                    commits |= !walk.is_empty();
                    if walk.into_iter().try_for_each(&mut add).is_none() {
                        readable = false;
                    }
                }
                Err(_) => {
                    commits = true;
                    readable = false;
                }
            },
        }
    }
    for changed in walked.iter().flatten() {
        ids.extend(changed.tasks.iter().cloned());
    }
    Carried {
        commits,
        ids: readable.then_some(ids),
    }
}

/// Task files with changes the push does not send: a push sends each task
/// as it is committed, so an addendum, a note or a closing left in the work
/// tree is lost to CI and to the next worker (`task_uncommitted`; docs/causes.md).
/// The work tree's state that cannot be read is unknown.
fn uncommitted_task_files(ctx: &Ctx) -> Vec<Finding> {
    use crate::verdict::Subject;
    let staged = match ctx.staged_changes() {
        Ok(changes) => changes
            .iter()
            .flat_map(|c| c.paths().cloned())
            .collect::<Vec<_>>(),
        Err(e) => return vec![unreadable_worktree(e)],
    };
    let unstaged = match ctx.worktree_status() {
        Ok(entries) => entries,
        Err(e) => return vec![unreadable_worktree(e)],
    };
    let mut found: Vec<(crate::path::RepoPath, bool)> = Vec::new();
    for path in staged {
        found.push((path, false));
    }
    for entry in unstaged {
        let new = entry.state == crate::git::WorktreeState::Untracked;
        found.push((entry.path, new));
    }
    found.retain(|(p, _)| crate::provenance::task_of_path(p).is_some());
    found.sort();
    found.dedup_by(|a, b| a.0 == b.0);
    found
        .into_iter()
        .map(|(path, new)| {
            let id = crate::provenance::task_of_path(&path).expect("kept for being a task file");
            let commit = crate::ctx::commit_of(ctx, &id, "task file");
            let message = if new {
                format!("{path} is not committed: the push sends no task {id}")
            } else {
                format!(
                    "{path} has changes that are not committed (addenda, notes, status or pins): the push sends task {id} without them"
                )
            };
            let decide = format!("commit it ({}), then push again", commit.command);
            Finding::blocker(crate::brief::CHECK, "task_uncommitted", message, decide).with_subject(
                Subject { task: Some(id), at: At { file: Some(path.lossy()), ..At::default() }.boxed(), ..Subject::default() },
            )
        })
        .collect()
}

fn unreadable_worktree(e: GitError) -> Finding {
    Finding::unknown(
        crate::brief::CHECK,
        "input_unreadable",
        format!("the work tree's state could not be read: {e}"),
        "repair the repository, then push again".into(),
    )
}

/// Receipts vouch for the work tree at HEAD. A push of another commit, or
/// with uncommitted changes (which every fingerprint covers as touched
/// paths), sends code the receipts were not made on.
fn pushed_code_findings(ctx: &Ctx, lines: &[PushLine]) -> Vec<crate::verdict::Finding> {
    use crate::verdict::{Finding, Subject};
    let mut out = Vec::new();
    let head = match ctx.repo.head() {
        Ok(head) => head.id(),
        // Which commit the receipts were made on cannot be told.
        Err(e) => {
            out.push(Finding::unknown(
                crate::checks::receipts::CHECK,
                "input_unreadable",
                format!("HEAD cannot be read, so what the receipts were made on is unknown: {e}"),
                "repair HEAD (`git status` says what is wrong)".into(),
            ));
            return out;
        }
    };
    for line in lines.iter().filter(|l| !is_zero_id(&l.local)) {
        if head.map(|h| h.to_hex()) != Some(line.local.clone())
            && !line.local_ref.starts_with("refs/tags/")
        {
            out.push(
                Finding::blocker(
                    crate::checks::receipts::CHECK,
                    "receipt_stale",
                    format!(
                        "{} pushes {}, but the receipts were made on the work tree at HEAD{}",
                        line.remote_ref,
                        &line.local[..12.min(line.local.len())],
                        head.map(|h| format!(" ({})", h.short()))
                            .unwrap_or_default()
                    ),
                    "push from a checkout of that commit after `gate verify`, or push HEAD".into(),
                )
                .with_subject(Subject {
                    ref_name: Some(line.remote_ref.clone()),
                    ..Subject::default()
                }),
            );
        }
    }
    let dirty = ctx
        .staged_changes()
        .map(|c| {
            c.iter()
                .flat_map(|c| c.paths().cloned())
                .collect::<Vec<_>>()
        })
        .and_then(|mut paths| {
            paths.extend(ctx.worktree_status()?.into_iter().map(|e| e.path));
            Ok(paths)
        });
    match dirty {
        Ok(paths) => {
            let mut paths: Vec<_> = paths
                .into_iter()
                .filter(|p| !crate::fingerprint::is_gate_path(p))
                .collect();
            paths.sort();
            paths.dedup();
            if let Some(first) = paths.first() {
                let message = format!(
                    "the work tree has uncommitted changes ({} path{}, e.g. {first}): the receipts vouch for them, not for the pushed commits",
                    paths.len(),
                    if paths.len() == 1 { "" } else { "s" }
                );
                let decide = "commit or stash them, run `gate verify` again, then push";
                out.push(
                    Finding::blocker(
                        crate::checks::receipts::CHECK,
                        "receipt_stale",
                        message,
                        decide.into(),
                    )
                    .with_subject(Subject {
                        path: Some(first.clone()),
                        ..Subject::default()
                    }),
                );
            }
        }
        Err(e) => out.push(Finding::unknown(
            crate::checks::receipts::CHECK,
            "input_unreadable",
            format!("the work tree's state could not be read: {e}"),
            "repair the repository, then push again".into(),
        )),
    }
    out
}

/// The range a pushed ref sends: its tip, and where the proof starts. A
/// deletion, or a ref naming no commit, sends nothing: the error says so.
///
/// A new ref sends every commit on none of that remote's refs — whatever
/// the active task's baseline: commits made before it leave the machine
/// too (docs/provenance.md#pre-push). A remote with no refs at all gets the
/// whole history. An update (a force push too) sends the commits on none of
/// the remote's refs and not in its old tip.
fn push_range(
    ctx: &Ctx,
    target: &PushTarget<'_>,
    line: &PushLine,
    notes: &mut Vec<String>,
) -> Result<(Oid, Base), NoRange> {
    let (name, remote) = (&line.remote_ref, target.remote);
    if is_zero_id(&line.local) {
        return Err(NoRange::Nothing(format!(
            "{name}: deleted on {remote}, nothing to prove"
        )));
    }
    let local = Oid::from_hex(&line.local).expect("parse_push_lines checked every id");
    let tip = match ctx.repo.resolve_commit(&line.local) {
        Ok(commit) => commit,
        Err(GitError::NotACommit { kind, .. }) => {
            return Err(NoRange::Nothing(format!(
                "{name}: names a {kind}, no commit to prove"
            )));
        }
        // Absent: the check names it (object_missing).
        Err(_) => local,
    };
    let remote_tips = || {
        match &target.tips {
        Ok(tips) => Ok(Base::Hidden(tips.clone())),
        Err(why) => Err(NoRange::Unknown(Box::new(
            Finding::unknown(
                provenance::CHECK,
                "input_unreadable",
                format!(
                    "{name}: {remote}'s remote-tracking refs cannot be read ({why}), so what the push sends cannot be told"
                ),
                "repair the repository (git fsck, git fetch), then push again".into(),
            )
            .with_subject(crate::verdict::Subject {
                ref_name: Some(name.clone()),
                ..Default::default()
            }),
        ))),
    }
    };
    let base = if is_zero_id(&line.remote) {
        match &target.tips {
            Ok(tips) if tips.is_empty() => notes.push(format!(
                "{name}: new on {remote}, which has no refs here; proving the whole history"
            )),
            _ => notes.push(format!(
                "{name}: new on {remote}; proving the commits on none of {remote}'s refs"
            )),
        }
        remote_tips()?
    } else {
        match ctx.repo.resolve_commit(&line.remote) {
            Ok(old) => {
                match ctx.repo.is_ancestor(old, tip) {
                    Ok(true) => {}
                    Ok(false) => notes.push(format!(
                        "{name}: not a fast-forward of {remote}'s {} (a force push); proving the commits it does not have",
                        old.short()
                    )),
                    // The walk below names what cannot be read.
                    Err(_) => {}
                }
                // What the remote has is its old tip and every other
                // branch it holds: a teammate's commits a rebase or a merge
                // of the main line brought in are on them. Unreadable
                // remote-tracking refs leave the old tip alone, which
                // proves more, never less.
                let mut hidden = vec![old];
                if let Ok(Base::Hidden(tips)) = remote_tips() {
                    hidden.extend(tips);
                }
                Base::Hidden(hidden)
            }
            Err(_) => {
                notes.push(format!(
                    "{name}: {remote}'s {} is not in this repository; proving the commits on none of {remote}'s refs",
                    &line.remote[..12]
                ));
                remote_tips()?
            }
        }
    };
    Ok((tip, base))
}

/// Prove what one pushed ref adds to the remote: a deletion proves nothing;
/// a new ref is proved from the task's baseline when it descends from it,
/// else by the commits on none of the remote's refs; an update by the
/// commits the remote's old tip lacks (a non-fast-forward is noted). A tag
/// is proved by the commit it names. Findings name the ref.
fn prove_push_line(
    ctx: &Ctx,
    policy: &crate::policy::Policy,
    default_task: Option<&tasks::Task>,
    remote: &str,
    line: &PushLine,
    range: &Result<(Oid, Base), NoRange>,
) -> (String, Vec<Finding>, Option<ChangedTasks>) {
    let name = &line.remote_ref;
    let (tip, base) = match range {
        Ok((tip, base)) => (*tip, base.clone()),
        Err(NoRange::Nothing(summary)) => return (summary.clone(), vec![], None),
        Err(NoRange::Unknown(f)) => {
            return (format!("{name}: unknown"), vec![(**f).clone()], None);
        }
    };
    let tasks = TaskSet::gather_held(
        &ctx.repo,
        Some(ctx.root()),
        tip,
        default_task,
        &base.hidden(),
    );
    let range = RangeSpec {
        base,
        tip,
        label: format!("{} → {remote} {name}", short_ref(&line.local_ref)),
        ref_name: Some(name.clone()),
    };
    let (summary, mut findings, changed) = provenance::check_walked(
        &ctx.repo,
        policy,
        &tasks,
        &range,
        &Options {
            push: true,
            progress: ctx.progress,
            ..Options::default()
        },
    );
    for f in &mut findings {
        f.message = format!("{name}: {}", f.message);
    }
    (summary, findings, changed)
}

fn short_ref(r: &str) -> &str {
    r.strip_prefix("refs/heads/").unwrap_or(r)
}

/// Re-point the active task after a branch checkout: to the one task
/// started on that branch, else clear it and say so; one short status line.
/// A branch just created where HEAD was (`git switch -c`, `git checkout
/// -b`; `same_commit`) keeps the active task, and is recorded for it
/// (decision 0007).
///
/// A detached HEAD leaves the pointer alone: rebases (both backends — the
/// `apply` one detaches before its state directory exists), bisect and
/// `git checkout <commit>` detach only for a while, and no post-checkout
/// runs when a rebase finishes. So does a rebase, bisect or am in progress.
fn post_checkout(
    dir: Option<&Path>,
    same_commit: bool,
    flag: &str,
    ui: &Ui,
) -> Result<String, Failure> {
    if flag != "1" {
        return Ok(String::new());
    }
    let ctx = Ctx::open(dir)?;
    let git_dir = ctx.repo.git_dir();
    if ["rebase-merge", "rebase-apply", "BISECT_LOG"]
        .iter()
        .any(|p| git_dir.join(p).exists())
    {
        return Ok(String::new());
    }
    // An unreadable pointer is kept as its error: it is replaced or cleared
    // like any other, never a reason to fail.
    let current = ctx.active_id().map_err(|f| f.message);
    let branch = match ctx.repo.head()? {
        Head::Branch { branch, .. } | Head::Unborn { branch } => branch,
        Head::Detached { .. } => {
            return Ok(human::head_detached(
                current.as_ref().ok().map(Option::as_deref),
            ));
        }
    };
    let candidates = match started_on(&ctx, &branch) {
        Ok(candidates) => candidates,
        // Which tasks were started here cannot be told: the pointer stays.
        Err(why) => {
            ui.err(&human::started_on_unknown(short_ref(&branch), &why));
            return Ok(String::new());
        }
    };
    // A branch name is shown, never obeyed (docs/concepts.md).
    let where_ = FileText::new(short_ref(&branch)).to_string();
    if candidates.is_empty()
        && same_commit
        && let Ok(Some(c)) = &current
        && let Some(tied) = follow_new_branch(&ctx, c, &branch, &where_, ui)
    {
        return Ok(human::checked_out(
            &where_,
            &CheckedOut::Follows {
                id: c,
                not_recorded: tied.as_ref().err().map(String::as_str),
            },
        ));
    }
    let checked = match candidates.as_slice() {
        [one] => {
            if current.as_ref().ok().and_then(Option::as_deref) != Some(one.as_str()) {
                tasks::active::set(&git_dir, one)?;
            }
            CheckedOut::StartedOn { id: one }
        }
        [] => match &current {
            Ok(None) => CheckedOut::NoneStarted,
            Ok(Some(c)) => {
                tasks::active::clear(&git_dir)?;
                CheckedOut::Cleared { was: Some(c) }
            }
            Err(_) => {
                tasks::active::clear(&git_dir)?;
                CheckedOut::Cleared { was: None }
            }
        },
        many => {
            tasks::active::clear(&git_dir)?;
            CheckedOut::Several { ids: many }
        }
    };
    Ok(human::checked_out(&where_, &checked))
}

/// Whether the active task `id` follows HEAD onto `branch`, a branch just
/// created at the commit HEAD was on: the task stays active, and the branch
/// is recorded for it (`Err`: why it could not be). `None` (the pointer is
/// then judged as for any branch) when the branch is not new or the task
/// is not active.
fn follow_new_branch(
    ctx: &Ctx,
    id: &str,
    branch: &str,
    where_: &str,
    ui: &Ui,
) -> Option<Result<(), String>> {
    match ctx.repo.branch_just_created(branch) {
        Ok(true) => {}
        Ok(false) => return None,
        Err(e) => {
            ui.err(&human::new_branch_unknown(where_, &e.to_string()));
            return None;
        }
    }
    match tasks::load(ctx.root(), id) {
        Ok(task) if task.record.status == TaskStatus::Active => {}
        _ => return None,
    }
    Some(crate::started::tie_to_branch(ctx, id, branch).map_err(|f| f.message))
}

/// The active tasks started on `branch`, sorted, or why that cannot be
/// told. The start records name the branch; only the tasks started on this
/// one are read, not every task the project ever had.
fn started_on(ctx: &Ctx, branch: &str) -> Result<Vec<String>, String> {
    // Guarded reads (`fsutil`): a FIFO, a link or an oversized file among
    // the records is an error naming it, never a hang.
    let dir = started_dir(&ctx.repo.common_dir());
    let names = match crate::fsutil::list_within(&dir, Path::new("")) {
        Ok(Some(names)) => names,
        Ok(None) => return Ok(Vec::new()),
        Err(e) => return Err(e.to_string()),
    };
    let mut out = Vec::new();
    for name in names {
        let recorded = match crate::fsutil::read_within(
            &dir,
            Path::new(&name),
            crate::fsutil::Kind::START_RECORD,
        ) {
            Ok(Some(bytes)) => bytes,
            // Replaced or removed since the listing (another run's write).
            Ok(None) => continue,
            Err(e) => return Err(e.to_string()),
        };
        // One branch a line: the one it was started on, then those it was
        // tied to (`gate task switch`, a new branch; decision 0007).
        if !String::from_utf8_lossy(&recorded)
            .lines()
            .any(|l| l.trim() == branch)
        {
            continue;
        }
        // Not a name gate writes (a temporary of an atomic write).
        let Ok(id) = name.into_string() else {
            continue;
        };
        match tasks::load(ctx.root(), &id) {
            Ok(task) if task.record.status == TaskStatus::Active => out.push(id),
            Ok(_) | Err(tasks::TaskError::NotFound { .. } | tasks::TaskError::BadId { .. }) => {}
            Err(e) => return Err(e.to_string()),
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(message: &str) -> Option<String> {
        with_trailer(message, "Task", "T-42", &['#'])
    }

    #[test]
    fn a_trailer_is_a_paragraph_of_its_own_after_prose() {
        assert_eq!(add("Add x\n").unwrap(), "Add x\n\nTask: T-42\n");
        assert_eq!(
            add("Add x\n\nWhy it is so.\n").unwrap(),
            "Add x\n\nWhy it is so.\n\nTask: T-42\n"
        );
    }

    #[test]
    fn a_trailer_joins_a_trailer_block() {
        assert_eq!(
            add("Add x\n\nSigned-off-by: A <a@x>\n").unwrap(),
            "Add x\n\nSigned-off-by: A <a@x>\nTask: T-42\n"
        );
    }

    #[test]
    fn a_message_with_the_trailer_is_left_alone_whatever_its_value() {
        assert_eq!(add("Add x\n\nTask: T-7\n"), None);
        assert_eq!(add("Add x\n\ntask: T-42\n# comment\n"), None);
        // In the title it is not a trailer (docs/provenance.md).
        assert!(add("Task: T-7\n").is_some());
    }

    #[test]
    fn the_trailer_goes_above_the_comments_and_the_scissors() {
        let editor = "\n# Please enter the commit message.\n#\n# On branch main\n";
        assert_eq!(add(editor).unwrap(), format!("\n\nTask: T-42\n{editor}"));
        let verbose = "Add x\n\n# ------------------------ >8 ------------------------\n# Do not modify.\ndiff --git a/x b/x\n+Task: T-1\n";
        assert_eq!(
            add(verbose).unwrap(),
            format!("Add x\n\nTask: T-42\n\n{}", &verbose[7..])
        );
    }

    #[test]
    fn the_comment_character_is_git_s() {
        let message = "Add x\n; comment\n";
        assert_eq!(
            with_trailer(message, "Task", "T-42", &comment_chars(Some(";"))).unwrap(),
            "Add x\n\nTask: T-42\n; comment\n"
        );
        assert_eq!(comment_chars(None), ['#']);
    }

    #[test]
    fn push_lines_parse_sha1_and_sha256_zero_ids() {
        let z1 = "0".repeat(40);
        let z2 = "0".repeat(64);
        let a = "a".repeat(40);
        let input = format!(
            "refs/heads/x {a} refs/heads/x {z1}\n\n(delete) {z2} refs/heads/y {}\n",
            "b".repeat(40)
        );
        let lines = parse_push_lines(&input).unwrap();
        assert_eq!(lines.len(), 2);
        assert!(is_zero_id(&lines[0].remote));
        assert!(is_zero_id(&lines[1].local));
        assert_eq!((lines[0].line, lines[1].line), (1, 3));
        assert!(!is_zero_id(&a));
        assert!(
            parse_push_lines("garbage\n")
                .unwrap_err()
                .contains("line 1")
        );
        // A non-zero id of SHA-256 length cannot name an object of this build.
        let sha256 = format!("{input}refs/heads/z {} refs/heads/z {z2}\n", "c".repeat(64));
        assert!(parse_push_lines(&sha256).unwrap_err().contains("line 4"));
        assert!(parse_push_lines("").unwrap().is_empty());
    }
}
