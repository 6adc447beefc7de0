//! The receipts check (docs/receipts.md): each check a task depends on as
//! passed, failed, stale, running, missing or unknown, and the acceptance
//! criteria it serves — the [`Status`] `gate status` shows and the findings
//! `gate check` and pre-push report.

use crate::checks::TaskState;
use crate::checks::loaded;
use crate::context::Ctx;
use crate::error::Failure;
use crate::git::{Oid, Repo};
use crate::plan::Plan;
use crate::policy::Policy;
use crate::receipts::{self, CheckStatus, Context, Served, State, Store, UnknownCause};
use crate::report::{Finding, Severity, Subject};
use crate::task::Task;

pub const CHECK: &str = "receipts";

/// What `gate status` shows of one task: the criteria it serves and the
/// state of each check it depends on.
pub struct Status {
    pub served: Vec<Served>,
    pub checks: Vec<CheckStatus>,
}

/// What a task touched (nothing without one), with the staged paths of
/// `index` when given (else of the index read now).
pub fn touched(
    ctx: &Ctx,
    task: Option<&Task>,
    index: Option<&crate::git::IndexSnapshot>,
) -> Result<crate::fingerprint::Touched, Failure> {
    match task {
        Some(t) => {
            let baseline = crate::git::Oid::from_hex(&t.record.baseline).ok_or_else(|| {
                Failure::unknown(format!(
                    "task {}: baseline is not an object id",
                    t.record.id
                ))
            })?;
            let touched = match index {
                Some(index) => crate::fingerprint::Touched::of_task_in(&ctx.repo, index, baseline)?,
                None => crate::fingerprint::Touched::of_task(&ctx.repo, baseline)?,
            };
            Ok(touched)
        }
        None => Ok(crate::fingerprint::Touched::none()),
    }
}

/// Evaluate the checks a task depends on (every plan check when there is no task).
pub fn status(
    ctx: &Ctx,
    policy: &Policy,
    plan: &Plan,
    task: Option<&Task>,
) -> Result<Status, Failure> {
    let (served, checks): (Vec<Served>, Vec<String>) = match task {
        Some(t) => {
            let served = receipts::resolve_served(
                plan,
                t.record.issue.as_deref(),
                t.record.intent.as_deref(),
            )
            .map_err(|m| unresolved(t, &m))?;
            let checks = receipts::dependent_checks(&served);
            (served, checks)
        }
        None => (
            Vec::new(),
            plan.checks.iter().map(|c| c.id.clone()).collect(),
        ),
    };
    let store = Store::new(&ctx.repo.common_dir());
    // Stat on the other core while this one works out what is covered.
    let sources: Vec<&[String]> = checks
        .iter()
        .filter_map(|id| plan.checks.iter().find(|c| &c.id == id))
        .map(|c| c.sources.as_slice())
        .collect();
    let prefetch = (!checks.is_empty())
        .then(|| crate::fingerprint::Prefetch::start(&ctx.repo, &store.cache_dir(), &sources))
        .flatten();
    // One reading of the index for the staged paths and every fingerprint.
    let index = match task.is_some() || !checks.is_empty() {
        true => Some(ctx.index()?),
        false => None,
    };
    let touched = touched(ctx, task, index)?;
    let worktree = crate::context::worktree_key(ctx);
    let rctx = Context {
        repo: &ctx.repo,
        store: &store,
        plan,
        policy,
        worktree: &worktree,
        task: task.map(|t| t.record.id.as_str()),
        task_created_at: task.map(|t| t.record.created_at.as_str()),
        touched: &touched,
        index,
        prefetch: prefetch.as_ref(),
        progress: ctx.progress,
    };
    Ok(Status {
        checks: receipts::evaluate(&rctx, &checks),
        served,
    })
}

/// The receipts check of `gate check` and pre-push, against `plan`.
pub fn check_with(
    ctx: &Ctx,
    policy: &Policy,
    plan: Option<&Plan>,
    task: &TaskState,
) -> (String, Vec<Finding>) {
    let task = match loaded(CHECK, task) {
        Ok(task) => task,
        Err(f) => return ("no task".into(), vec![*f]),
    };
    let Some(plan) = plan else {
        if task.record.issue.is_none() && task.record.intent.is_none() {
            return ("no plan: the task depends on no check".into(), vec![]);
        }
        // The task names an issue or intent: the checks it depends on are
        // in a plan that is not there (docs/receipts.md).
        return (
            "no plan: which checks the task depends on is unknown".into(),
            vec![Finding::unknown(
                CHECK,
                "input_unreadable",
                format!(
                    "task {} names {}, but there is no .gate/plan.yaml: which checks it depends on cannot be told",
                    task.record.id,
                    named(task)
                ),
                "restore .gate/plan.yaml (git checkout -- .gate/plan.yaml), then check again"
                    .into(),
            )],
        );
    };
    if let Err(m) = receipts::resolve_served(
        plan,
        task.record.issue.as_deref(),
        task.record.intent.as_deref(),
    ) {
        return (
            "the task's plan entry does not resolve".into(),
            vec![Finding::unknown(
                CHECK,
                "input_unreadable",
                unresolved(task, &m).message,
                UNRESOLVED_DECIDE.into(),
            )],
        );
    }
    let status = match status(ctx, policy, plan, Some(task)) {
        Ok(s) => s,
        Err(f) => {
            return (
                "receipts unreadable".into(),
                vec![Finding::unknown(
                    CHECK,
                    "input_unreadable",
                    f.message,
                    "repair the repository, then check again".into(),
                )],
            );
        }
    };
    let findings = status.checks.iter().filter_map(finding).collect();
    let n = status.checks.len();
    let passed = status
        .checks
        .iter()
        .filter(|c| matches!(c.state, State::Passed { .. }))
        .count();
    let summary = if n == 0 {
        format!("task {} depends on no check", task.record.id)
    } else {
        format!(
            "{passed} of {n} check{} passed and fresh",
            if n == 1 { "" } else { "s" }
        )
    };
    (summary, findings)
}

const UNRESOLVED_DECIDE: &str =
    "restore what the task names in .gate/plan.yaml, or start a task for what the plan names now";

/// What a task names, for messages: `issue 17`, `intent export`.
fn named(task: &Task) -> String {
    match (&task.record.issue, &task.record.intent) {
        (Some(issue), _) => format!("issue {issue}"),
        (None, Some(intent)) => format!("intent {intent}"),
        (None, None) => "nothing".into(),
    }
}

/// A task whose plan entry no longer resolves: unknown, never "depends on
/// no check".
fn unresolved(task: &Task, why: &str) -> Failure {
    Failure::unknown(format!(
        "task {}: {why}, so which checks it depends on cannot be told",
        task.record.id
    ))
    .hint(UNRESOLVED_DECIDE)
}

/// The finding for a check that does not stand as passed.
fn finding(s: &CheckStatus) -> Option<Finding> {
    let id = &s.check;
    let subject = Subject {
        check_id: Some(id.clone()),
        ..Subject::default()
    };
    let verify = format!("run `gate verify {id}`");
    let (cause, severity, message, decide) = match &s.state {
        State::Passed { .. } => return None,
        State::Missing => ("receipt_missing", Severity::Blocker, format!("check {id} has no receipt for this task in this worktree"), verify),
        State::Failed { evidence, exit_code } => (
            "receipt_failed",
            Severity::Blocker,
            format!(
                "the latest run of {id} ({evidence}) failed{}",
                exit_code.map(|c| format!(" with exit {c}")).unwrap_or_default()
            ),
            format!("fix what it reports, then {verify}"),
        ),
        State::Stale { evidence, why } => {
            ("receipt_stale", Severity::Blocker, format!("the latest receipt of {id} ({evidence}) is stale: {}", why.as_str()), verify)
        }
        State::Running { .. } => {
            ("receipt_running", Severity::Blocker, format!("{id} is running now; its receipt is not made yet"), "wait for it to finish".into())
        }
        State::Unknown {
            cause: UnknownCause::UnknownCheck,
            ..
        } => (
            "unknown_check",
            Severity::Unknown,
            format!("the plan declares no check {id}, yet a served criterion names it"),
            "fix the criterion's evidence in .gate/plan.yaml".into(),
        ),
        State::Unknown {
            cause: UnknownCause::InputUnreadable,
            reason,
            path: None,
        } => (
            "input_unreadable",
            Severity::Unknown,
            format!("the state of {id} could not be read: {reason}"),
            "repair the repository or the receipts store, then check again".into(),
        ),
        State::Unknown {
            cause: UnknownCause::InputUnreadable,
            reason,
            path: Some(file),
        } => (
            "input_unreadable",
            Severity::Unknown,
            format!("the state of {id} could not be read: {reason} ({file})"),
            format!("repair or remove that receipt (a newer gate may have written it), or {verify} again"),
        ),
        State::Unknown {
            cause: UnknownCause::FingerprintUnavailable,
            reason,
            path,
        } => (
            "fingerprint_unavailable",
            Severity::Unknown,
            format!(
                "the sources of {id} cannot be fingerprinted: {}{}",
                reason.replace('_', " "),
                path.as_ref().map(|p| format!(" ({p})")).unwrap_or_default()
            ),
            "remove the symlink, nested repository or special file from the sources, or raise the limits in the policy".into(),
        ),
    };
    Some(Finding::new(CHECK, cause, severity, message, decide).with_subject(subject))
}

/// The receipts check, reading the plan; an unreadable plan is unknown.
pub fn check(
    ctx: &Ctx,
    policy: &crate::policy::Policy,
    task: &TaskState,
) -> (String, Vec<Finding>) {
    match ctx.plan() {
        Ok(plan) => check_with(ctx, policy, plan.map(|p| &p.plan), task),
        Err(f) => (
            "the plan could not be read".into(),
            vec![Finding::unknown(
                CHECK,
                "input_unreadable",
                f.message,
                "fix .gate/plan.yaml, then check again".into(),
            )],
        ),
    }
}

/// The receipts check of a range (`gate check --range BASE..TIP`, CI;
/// docs/receipts.md, "Receipts in CI"): for every task the range touches —
/// named by a commit's trailer or whose record a commit changed — the
/// checks it depends on by TIP's plan and TIP's task record, each proved by
/// the note on TIP (`refs/notes/gate`): its entry's contract must be TIP's
/// plan's and its fingerprint TIP's tree fingerprint, recomputed from the
/// objects. Nothing local counts: no receipt store, no work tree.
pub fn range_check(repo: &Repo, policy: &Policy, spec: &str) -> (String, Vec<Finding>) {
    let range = match crate::provenance::parse_range(repo, spec) {
        Ok(range) => range,
        Err(f) => {
            return (
                "range unreadable".into(),
                vec![Finding { check: CHECK, ..*f }],
            );
        }
    };
    let tip = range.tip;
    let at = |subject: Subject| Subject {
        commit: Some(tip.to_hex()),
        ..subject
    };
    let git_unknown = |what: &str, e: &dyn std::fmt::Display| {
        Finding::unknown(
            CHECK,
            "input_unreadable",
            format!("{what}: {e}"),
            "repair the repository (fetch the full history), then check again".into(),
        )
        .with_subject(at(Subject::default()))
    };
    let key = policy.provenance.trailer.as_deref().unwrap_or("Task");
    let ids = match tasks_touched(repo, tip, &range.base.hidden(), key) {
        Ok(ids) => ids,
        Err(e) => {
            return (
                "range unreadable".into(),
                vec![git_unknown("the range", &e)],
            );
        }
    };
    if ids.is_empty() {
        return (
            format!("no task in {}: no check to prove", range.label),
            Vec::new(),
        );
    }
    let plan = match plan_at(repo, tip) {
        Ok(plan) => plan,
        Err(f) => return ("the plan could not be read".into(), vec![*f]),
    };
    let note = match crate::notes::read(repo, tip) {
        Ok(note) => note,
        Err(e) => {
            return (
                "the note could not be read".into(),
                vec![git_unknown(&format!("the receipts of {}", tip.short()), &e)],
            );
        }
    };
    let mut findings = Vec::new();
    let mut criteria: Vec<String> = Vec::new();
    let (mut proved, mut total) = (0, 0);
    for id in &ids {
        let task_subject = || {
            at(Subject {
                task: Some(id.clone()),
                ..Subject::default()
            })
        };
        let task = match task_at(repo, tip, id) {
            Ok(task) => task,
            Err(why) => {
                findings.push(
                    Finding::unknown(
                        CHECK,
                        "input_unreadable",
                        format!("task {id}, named in {}: {why}", range.label),
                        "commit the task's record (.gate/tasks/ID.md) with the work, then check again".into(),
                    )
                    .with_subject(task_subject()),
                );
                continue;
            }
        };
        let (issue, intent) = (task.record.issue.as_deref(), task.record.intent.as_deref());
        let Some(plan) = &plan else {
            if issue.is_some() || intent.is_some() {
                findings.push(
                    Finding::unknown(
                        CHECK,
                        "input_unreadable",
                        format!(
                            "task {id} names {}, but {} holds no .gate/plan.yaml: which checks it depends on cannot be told",
                            named(&task),
                            tip.short()
                        ),
                        "commit .gate/plan.yaml with the work, then check again".into(),
                    )
                    .with_subject(task_subject()),
                );
            }
            continue;
        };
        let served = match receipts::resolve_served(plan, issue, intent) {
            Ok(served) => served,
            Err(m) => {
                findings.push(
                    Finding::unknown(
                        CHECK,
                        "input_unreadable",
                        unresolved(&task, &m).message,
                        UNRESOLVED_DECIDE.into(),
                    )
                    .with_subject(task_subject()),
                );
                continue;
            }
        };
        let baseline = Oid::from_hex(&task.record.baseline);
        let mut states: Vec<(String, &'static str)> = Vec::new();
        for check_id in receipts::dependent_checks(&served) {
            total += 1;
            let subject = at(Subject {
                task: Some(id.clone()),
                check_id: Some(check_id.clone()),
                ..Subject::default()
            });
            let disproof = disproof(repo, policy, plan, tip, baseline, &check_id, note.as_ref());
            let state = match disproof {
                None => {
                    proved += 1;
                    "passed"
                }
                Some(f) => {
                    let state = match f.cause {
                        "receipt_missing" => "missing",
                        "receipt_stale" => "stale",
                        "receipt_failed" => "failed",
                        _ => "unknown",
                    };
                    findings.push(f.with_subject(subject));
                    state
                }
            };
            states.push((check_id, state));
        }
        for c in &served {
            let worst = c
                .evidence
                .iter()
                .filter_map(|e| states.iter().find(|(id, _)| id == e).map(|(_, s)| *s))
                .max_by_key(|s| rank(s))
                .unwrap_or("unevidenced");
            criteria.push(format!("{} {worst}", c.criterion));
        }
    }
    let summary = format!(
        "{proved} of {total} check{} proved by receipts that travelled with {} (verified against its tree){}",
        if total == 1 { "" } else { "s" },
        tip.short(),
        match criteria.is_empty() {
            true => String::new(),
            false => format!("; criteria: {}", criteria.join(", ")),
        }
    );
    (summary, findings)
}

/// How bad a criterion's evidence state is (the worst of its checks counts).
fn rank(state: &str) -> u8 {
    match state {
        "passed" => 0,
        "missing" => 1,
        "stale" => 2,
        "failed" => 3,
        _ => 4,
    }
}

/// What keeps the note on `tip` from proving `check_id`: `None` when its
/// entry passed on TIP's contract and TIP's tree fingerprint.
fn disproof(
    repo: &Repo,
    policy: &Policy,
    plan: &Plan,
    tip: Oid,
    baseline: Option<Oid>,
    check_id: &str,
    note: Option<&crate::notes::Note>,
) -> Option<Finding> {
    let verify = format!(
        "run `gate verify {check_id}` on a clean checkout of {} and push its note (`git push REMOTE refs/notes/gate`); CI fetches it with `git fetch REMOTE refs/notes/gate:refs/notes/gate`",
        tip.short()
    );
    let Some(check) = plan.check(check_id) else {
        return Some(Finding::unknown(
            CHECK,
            "unknown_check",
            format!("the plan declares no check {check_id}, yet a served criterion names it"),
            "fix the criterion's evidence in .gate/plan.yaml".into(),
        ));
    };
    let Some(entry) = note.and_then(|n| n.entry(check_id)) else {
        return Some(Finding::blocker(
            CHECK,
            "receipt_missing",
            format!(
                "no receipt travelled with the push: {} carries no receipt of {check_id} (refs/notes/gate)",
                tip.short()
            ),
            verify,
        ));
    };
    let touched = match baseline {
        Some(baseline) => crate::fingerprint::Touched::of_commits(repo, baseline, tip)
            .and_then(|t| t.for_sources(repo, &check.sources)),
        None => Ok(Vec::new()),
    };
    let tree = touched.and_then(|touched| {
        let inputs = crate::fingerprint::Inputs {
            sources: &check.sources,
            touched: &touched,
            max_entries: policy.receipts.max_entries,
            max_bytes: policy.receipts.max_bytes,
        };
        crate::fingerprint::of_tree(repo, tip, &inputs)
    });
    let digest = match tree {
        Ok(crate::fingerprint::Fingerprint::Available { digest, .. }) => digest,
        Ok(crate::fingerprint::Fingerprint::Unavailable { reason, path }) => {
            return Some(Finding::unknown(
                CHECK,
                "fingerprint_unavailable",
                format!(
                    "the sources of {check_id} in {} cannot be fingerprinted: {}{}",
                    tip.short(),
                    reason.as_str().replace('_', " "),
                    path.map(|p| format!(" ({p})")).unwrap_or_default()
                ),
                "remove the symlink or submodule from the sources, or raise the limits in the policy".into(),
            ));
        }
        Err(e) => {
            return Some(Finding::unknown(
                CHECK,
                "input_unreadable",
                format!("the sources of {check_id} in {}: {e}", tip.short()),
                "fetch the full history (a full-depth checkout), then check again".into(),
            ));
        }
    };
    let evidence = &entry.evidence;
    if entry.contract != check.contract_digest() {
        return Some(Finding::blocker(
            CHECK,
            "receipt_stale",
            format!(
                "the receipt of {check_id} on {} ({evidence}) was made under another contract than {}'s plan declares",
                tip.short(),
                tip.short()
            ),
            verify,
        ));
    }
    if entry.fingerprint != digest {
        return Some(Finding::blocker(
            CHECK,
            "receipt_stale",
            format!(
                "the receipt of {check_id} on {} ({evidence}) is for other content than its tree holds",
                tip.short()
            ),
            verify,
        ));
    }
    if !entry.passed {
        return Some(Finding::blocker(
            CHECK,
            "receipt_failed",
            format!(
                "the latest run of {check_id} on {} ({evidence}) failed{}",
                tip.short(),
                entry
                    .exit_code
                    .map(|c| format!(" with exit {c}"))
                    .unwrap_or_default()
            ),
            format!("fix what it reports, then {verify}"),
        ));
    }
    None
}

/// The tasks `tip` hiding `hidden` touches: named by a commit's `key:`
/// trailer, or whose record a commit added or changed. Sorted.
fn tasks_touched(
    repo: &Repo,
    tip: Oid,
    hidden: &[Oid],
    key: &str,
) -> Result<Vec<String>, crate::git::GitError> {
    let mut ids = std::collections::BTreeSet::new();
    for commit in repo.walk(&[tip], hidden)? {
        let info = repo.commit(commit)?;
        ids.extend(crate::provenance::trailer_values(&info.message, key));
        for diff in repo.changes(commit, crate::git::Renames::Off)? {
            for change in &diff.changes {
                if change.kind != crate::git::ChangeKind::Deleted
                    && let Some(id) = crate::provenance::task_of_path(&change.path)
                {
                    ids.insert(id);
                }
            }
        }
    }
    Ok(ids.into_iter().collect())
}

/// TIP's plan, `None` when it holds none; an unreadable one is the finding.
fn plan_at(repo: &Repo, tip: Oid) -> Result<Option<Plan>, Box<Finding>> {
    let path = crate::path::RepoPath::from(crate::plan::PLAN_PATH);
    let unreadable = |why: String| {
        Box::new(Finding::unknown(
            CHECK,
            "input_unreadable",
            format!("{} in {}: {why}", crate::plan::PLAN_PATH, tip.short()),
            "fix .gate/plan.yaml, then check again".into(),
        ))
    };
    let text = match repo.entry_at(tip, &path) {
        Ok(None) => return Ok(None),
        Ok(Some((blob, crate::git::EntryKind::File | crate::git::EntryKind::Executable))) => repo
            .read_blob(blob)
            .map_err(|e| unreadable(e.to_string()))
            .and_then(|b| String::from_utf8(b).map_err(|_| unreadable("not UTF-8".into())))?,
        Ok(Some(_)) => return Err(unreadable("not a regular file".into())),
        Err(e) => return Err(unreadable(e.to_string())),
    };
    crate::plan::parse(std::path::Path::new(crate::plan::PLAN_PATH), &text)
        .map(Some)
        .map_err(|e| Box::new(super::unreadable(CHECK, &e)))
}

/// Task `id`'s record in TIP's tree, or why there is none to read.
fn task_at(repo: &Repo, tip: Oid, id: &str) -> Result<Task, String> {
    crate::ids::task_id(id).map_err(|m| format!("`{id}` is not a task id: {m}"))?;
    let file = crate::task::task_file(id);
    let path = crate::path::RepoPath::from(file.to_string_lossy().as_ref());
    match repo.entry_at(tip, &path) {
        Ok(Some((blob, _))) => {
            let bytes = repo.read_blob(blob).map_err(|e| e.to_string())?;
            let text =
                String::from_utf8(bytes).map_err(|_| "its record is not UTF-8".to_string())?;
            crate::task::parse(&file, text).map_err(|e| e.to_string())
        }
        Ok(None) => Err(format!(
            "{} holds no record {}",
            tip.short(),
            file.display()
        )),
        Err(e) => Err(e.to_string()),
    }
}
