//! The receipts check (docs/receipts.md): each acceptance check a task
//! depends on as passed, failed, stale, running, missing or unknown, and the
//! acceptance criteria it serves — the [`Status`] `gate status` shows and the findings
//! `gate check` and pre-push report.

use crate::checks::TaskState;
use crate::checks::loaded;
use crate::checks::range_rules::{self, Trusted};
use crate::ctx::Ctx;
use crate::error::Failure;
use crate::fingerprint::Work;
use crate::git::{Oid, Repo};
use crate::plan::{AcceptanceCheck, Plan};
use crate::policy::Policy;
use crate::receipts::{self, AcceptanceCheckStatus, Context, Served, State, Store, UnknownCause};
use crate::task::Task;
use crate::verdict::{At, Finding, Severity, Subject};

pub const CHECK: &str = "receipts";

/// What `gate status` shows of one task: the criteria it serves and the
/// state of each acceptance check it depends on.
pub struct Status {
    pub served: Vec<Served>,
    pub acceptance_checks: Vec<AcceptanceCheckStatus>,
    /// The checks the task's names do not require and its work does: each
    /// with a path of its sources the task's commits or staged changes
    /// touch (docs/receipts.md, "What a change must prove").
    pub by_paths: Vec<(String, crate::path::RepoPath)>,
}

/// What a task touched (nothing without one), with the staged paths of
/// `index` when given (else of the index read now).
pub fn touched(
    ctx: &Ctx,
    policy: &Policy,
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
            let work = Work {
                task: &t.record.id,
                key: policy.trailer_key(),
            };
            let touched = match index {
                Some(index) => {
                    crate::fingerprint::Touched::of_task_in(&ctx.repo, index, baseline, Some(work))?
                }
                None => crate::fingerprint::Touched::of_task(&ctx.repo, baseline, Some(work))?,
            };
            Ok(touched)
        }
        None => Ok(crate::fingerprint::Touched::none()),
    }
}

/// Evaluate the acceptance checks a task depends on (every one the plan
/// declares when there is no task).
pub fn status(
    ctx: &Ctx,
    policy: &Policy,
    plan: &Plan,
    task: Option<&Task>,
) -> Result<Status, Failure> {
    let (served, mut acceptance_ids): (Vec<Served>, Vec<String>) = match task {
        Some(t) => {
            let served = receipts::resolve_criteria_served(
                plan,
                t.record.issue.as_deref(),
                t.record.intent.as_deref(),
            )
            .map_err(|m| unresolved(&t.record.id, &m))?;
            let acceptance_ids = receipts::dependent_acceptance_checks(&served);
            (served, acceptance_ids)
        }
        None => (
            Vec::new(),
            plan.acceptance_checks
                .iter()
                .map(|a| a.id.clone())
                .collect(),
        ),
    };
    let store = Store::new(&ctx.repo.common_dir());
    // Stat on the other core while this one works out what is covered.
    let sources: Vec<&[String]> = acceptance_ids
        .iter()
        .filter_map(|id| plan.acceptance_checks.iter().find(|a| &a.id == id))
        .map(|a| a.sources.as_slice())
        .collect();
    let prefetch = (!acceptance_ids.is_empty())
        .then(|| crate::fingerprint::Prefetch::start(&ctx.repo, &store.cache_dir(), &sources))
        .flatten();
    // One reading of the index for the staged paths and every fingerprint.
    let index = match task.is_some() || !acceptance_ids.is_empty() {
        true => Some(ctx.index()?),
        false => None,
    };
    let touched = touched(ctx, policy, task, index)?;
    // A task's names add checks, never subtract: what its work touches in
    // a check's sources, that check must prove too.
    let by_paths = match task {
        Some(_) => by_paths(
            &plan.acceptance_checks,
            &acceptance_ids,
            touched.committed(),
        ),
        None => Vec::new(),
    };
    acceptance_ids.extend(by_paths.iter().map(|(id, _)| id.clone()));
    let worktree = crate::ctx::worktree_key(ctx);
    let rctx = Context {
        repo: &ctx.repo,
        store: &store,
        plan,
        policy,
        worktree: &worktree,
        task: task.map(|t| t.record.id.as_str()),
        task_created_at: task.map(|t| t.record.created_at.as_str()),
        task_baseline: task.map(|t| t.record.baseline.as_str()),
        touched: &touched,
        index,
        prefetch: prefetch.as_ref(),
        progress: ctx.progress,
    };
    Ok(Status {
        acceptance_checks: receipts::evaluate(&rctx, &acceptance_ids),
        served,
        by_paths,
    })
}

/// Each of `declared` that `required` does not name and whose sources hold
/// one of `paths`: its id and the first such path.
fn by_paths<'a, 'p>(
    declared: impl IntoIterator<Item = &'a AcceptanceCheck>,
    required: &[String],
    paths: impl Iterator<Item = &'p crate::path::RepoPath> + Clone,
) -> Vec<(String, crate::path::RepoPath)> {
    let mut found: Vec<(String, crate::path::RepoPath)> = Vec::new();
    for a in declared {
        if required.contains(&a.id) || found.iter().any(|(id, _)| *id == a.id) {
            continue;
        }
        if let Some(path) = paths.clone().find(|p| a.covers(p)) {
            found.push((a.id.clone(), path.clone()));
        }
    }
    found
}

/// Whether the commits of `tip` hiding `hidden` are one or more merges that
/// each change no path themselves (decision 0023). A range holding any
/// other commit is not: it is answered at its first non-merge, without
/// diffing the range (the provenance walk already did).
fn only_clean_merges(repo: &Repo, tip: Oid, hidden: &[Oid]) -> Result<bool, crate::git::GitError> {
    let commits = repo.walk(&[tip], hidden)?;
    if commits.is_empty() {
        return Ok(false);
    }
    for &commit in &commits {
        if repo.commit(commit)?.parents.len() < 2 {
            return Ok(false);
        }
    }
    for commit in commits {
        if !repo.merge_changes(commit)?.is_empty() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The first path (in path order) among `acceptance_id`'s sources whose
/// content differs now from HEAD's commit when receipt `evidence` was made
/// — committed since, staged, or in the work tree — for a stale receipt to
/// name, with that commit. `None`
/// when that cannot be told (no such receipt, no commit recorded, an
/// unreadable repository): the reason stays "sources changed".
fn first_changed_source(
    ctx: &Ctx,
    plan: &Plan,
    acceptance_id: &str,
    evidence: &str,
) -> Option<(Oid, crate::path::RepoPath)> {
    let acceptance = plan.acceptance_check(acceptance_id)?;
    let store = Store::new(&ctx.repo.common_dir());
    let receipt = store
        .newest_first(acceptance_id)
        .ok()?
        .filter_map(|file| file.receipt.ok())
        .find(|r| r.evidence == evidence)?;
    let head = Oid::from_hex(receipt.head.as_deref()?)?;
    let index = ctx.index().ok()?;
    let mut changed: std::collections::BTreeSet<crate::path::RepoPath> = ctx
        .repo
        .index_changes_against(index, head, crate::git::Renames::Off)
        .ok()?
        .iter()
        .flat_map(|c| c.paths().cloned())
        .collect();
    changed.extend(ctx.worktree_status().ok()?.into_iter().map(|e| e.path));
    changed
        .into_iter()
        .find(|p| acceptance.covers(p))
        .map(|p| (head, p))
}

/// What a finding about a check the task's names do not require says of
/// why it is asked all the same.
fn required_by_path(path: &crate::path::RepoPath, whose: &str) -> String {
    format!(
        " ({whose} changes {}, one of its sources: a check is required by what the work touches, whatever the task names)",
        path.quoted()
    )
}

/// What the receipts check of a task judges, gathered from the plan, the
/// receipts store and the work tree by [`gather`]; [`judge`] decides on it
/// alone.
#[derive(Debug)]
pub struct Gathered {
    pub task_id: String,
    /// What the task names, for messages (`issue 17`), `None` for nothing.
    pub named: Option<String>,
    pub inputs: Inputs,
}

/// The task's acceptance checks as they could be read.
#[derive(Debug)]
pub enum Inputs {
    /// There is no plan.
    NoPlan,
    /// What the task names does not resolve in the plan: why.
    Unresolved(String),
    /// The receipts could not be read: why.
    Unreadable(String),
    /// Each acceptance check the task depends on, with what was found of it.
    Read(Vec<AcceptanceFacts>),
}

/// One acceptance check's state and what else the judgement needs of it.
#[derive(Debug)]
pub struct AcceptanceFacts {
    pub status: AcceptanceCheckStatus,
    /// For one that passed here: the finding when its receipt would not
    /// count where a push is judged (`Believed::unverified_here`).
    pub unverified: Option<Finding>,
    /// For one stale because its sources changed: the commit it ran on and
    /// the first of its sources changed since.
    pub first_changed: Option<(Oid, crate::path::RepoPath)>,
    /// For one the task's names do not require and its work does: a path
    /// of its sources the work touches.
    pub by_path: Option<crate::path::RepoPath>,
}

/// Gather what the receipts check of `task` judges.
pub fn gather(
    ctx: &Ctx,
    policy: &Policy,
    plan: Option<&Plan>,
    task: &Task,
    believed: Option<&Believed>,
) -> Gathered {
    let inputs = match plan {
        None => Inputs::NoPlan,
        Some(plan) => match receipts::resolve_criteria_served(
            plan,
            task.record.issue.as_deref(),
            task.record.intent.as_deref(),
        ) {
            Err(m) => Inputs::Unresolved(m),
            Ok(_) => match status(ctx, policy, plan, Some(task)) {
                Err(f) => Inputs::Unreadable(f.message),
                Ok(status) => Inputs::Read(
                    status
                        .acceptance_checks
                        .into_iter()
                        .map(|a| AcceptanceFacts {
                            unverified: match (&a.state, believed) {
                                (State::Passed { .. }, Some(b)) => b.unverified_here(&a),
                                _ => None,
                            },
                            first_changed: match &a.state {
                                State::Stale {
                                    evidence,
                                    why: receipts::Staleness::SourcesChanged,
                                } => first_changed_source(ctx, plan, &a.id, evidence),
                                _ => None,
                            },
                            by_path: status
                                .by_paths
                                .iter()
                                .find(|(id, _)| *id == a.id)
                                .map(|(_, path)| path.clone()),
                            status: a,
                        })
                        .collect(),
                ),
            },
        },
    };
    Gathered {
        task_id: task.record.id.clone(),
        named: named(task),
        inputs,
    }
}

/// The receipts check of a task, judged on what was gathered: its summary
/// and findings. Pure.
pub fn judge(g: &Gathered) -> (String, Vec<Finding>) {
    let id = &g.task_id;
    let acceptance_checks = match &g.inputs {
        Inputs::NoPlan => {
            let Some(named) = &g.named else {
                return ("no plan: the task depends on no check".into(), vec![]);
            };
            // The task names an issue or intent: the acceptance checks it
            // depends on are in a plan that is not there (docs/receipts.md).
            return (
                "no plan: which checks the task depends on is unknown".into(),
                vec![Finding::unknown(
                    CHECK,
                    "input_unreadable",
                    format!(
                        "task {id} names {named}, but there is no .gate/plan.yaml: which checks it depends on cannot be told"
                    ),
                    "restore .gate/plan.yaml (git checkout -- .gate/plan.yaml), then check again"
                        .into(),
                )],
            );
        }
        Inputs::Unresolved(why) => {
            return (
                "the task's plan entry does not resolve".into(),
                vec![Finding::unknown(
                    CHECK,
                    "input_unreadable",
                    unresolved(id, why).message,
                    UNRESOLVED_DECIDE.into(),
                )],
            );
        }
        Inputs::Unreadable(why) => {
            return (
                "receipts unreadable".into(),
                vec![Finding::unknown(
                    CHECK,
                    "input_unreadable",
                    why.clone(),
                    "repair the repository, then check again".into(),
                )],
            );
        }
        Inputs::Read(acceptance_checks) => acceptance_checks,
    };
    let findings = acceptance_checks
        .iter()
        .filter_map(|a| {
            let mut f = match finding(&a.status) {
                Some(f) => f,
                None => a.unverified.clone()?,
            };
            if let Some((head, path)) = &a.first_changed {
                f.message.push_str(&format!(
                    " (the first source changed since {}, where it ran: {})",
                    head.short(),
                    path.quoted()
                ));
                f.subject.path = Some(path.clone());
            }
            if let Some(path) = &a.by_path {
                f.message
                    .push_str(&required_by_path(path, "the task's work"));
            }
            Some(f)
        })
        .collect();
    let n = acceptance_checks.len();
    let passed = acceptance_checks
        .iter()
        .filter(|a| matches!(a.status.state, State::Passed { .. }))
        .count();
    let summary = if n == 0 {
        format!("task {id} depends on no check")
    } else {
        format!(
            "{passed} of {n} check{} passed and fresh",
            if n == 1 { "" } else { "s" }
        )
    };
    (summary, findings)
}

/// The receipts check of a task against `plan`: gathered, then judged.
pub fn check_with(
    ctx: &Ctx,
    policy: &Policy,
    plan: Option<&Plan>,
    task: &TaskState,
    believed: Option<&Believed>,
) -> (String, Vec<Finding>) {
    match loaded(CHECK, task) {
        Ok(task) => judge(&gather(ctx, policy, plan, task, believed)),
        Err(f) => ("no task".into(), vec![*f]),
    }
}

const UNRESOLVED_DECIDE: &str =
    "restore what the task names in .gate/plan.yaml, or start a task for what the plan names now";

/// What a task names, for messages: `issue 17`, `intent export`; `None`
/// when it names neither.
fn named(task: &Task) -> Option<String> {
    match (&task.record.issue, &task.record.intent) {
        (Some(issue), _) => Some(format!("issue {issue}")),
        (None, Some(intent)) => Some(format!("intent {intent}")),
        (None, None) => None,
    }
}

/// A task whose plan entry no longer resolves: unknown, never "depends on
/// no check".
fn unresolved(task_id: &str, why: &str) -> Failure {
    Failure::unknown(format!(
        "task {task_id}: {why}, so which checks it depends on cannot be told"
    ))
    .hint(UNRESOLVED_DECIDE)
}

/// The finding for an acceptance check that does not stand as passed.
fn finding(acceptance: &AcceptanceCheckStatus) -> Option<Finding> {
    let id = &acceptance.id;
    let subject = Subject {
        at: At {
            acceptance_id: Some(id.clone()),
            ..At::default()
        }
        .boxed(),
        ..Subject::default()
    };
    let verify = format!("run `gate verify {id}`");
    let (cause, severity, message, decide) = match &acceptance.state {
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
        Ok(plan) => check_with(ctx, policy, plan.map(|p| &p.plan), task, None),
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

/// The receipts check of pre-push: [`check`], and each passed receipt
/// that would not count where the push is judged — unsigned, or by a key
/// the remote's signers (`believed`) do not list — is `receipt_unverified`,
/// so pre-push refuses what CI would (docs/receipts.md, "Signed receipts").
pub fn check_for_push(
    ctx: &Ctx,
    policy: &crate::policy::Policy,
    task: &TaskState,
    believed: &Believed,
) -> (String, Vec<Finding>) {
    match ctx.plan() {
        Ok(plan) => check_with(ctx, policy, plan.map(|p| &p.plan), task, Some(believed)),
        Err(_) => check(ctx, policy, task),
    }
}

/// The receipts check of a range (`gate check --range BASE..TIP`, CI;
/// docs/receipts.md, "Receipts in CI"): for every task the range touches —
/// named by a commit's trailer or whose record a commit changed — the
/// acceptance checks it must prove: the union of what TIP's plan requires
/// for TIP's record and what each trusted revision's plan (the range's base,
/// or `--policy-from REV`) requires for the task's records there and at TIP
/// (docs/trust.md, "The plan's trust"). Each is proved by the note on TIP
/// (`refs/notes/gate`): its entry's contract must be TIP's plan's (the
/// trusted plan's where TIP declares none) and its fingerprint TIP's tree
/// fingerprint, recomputed from the objects. A requirement TIP drops, or a
/// contract it loosens, is `plan_loosened`: reported, never obeyed.
/// A range that names no task proves every acceptance check of the plan by
/// receipts made without a task ([`without_task`]). Nothing local counts:
/// no receipt store, no work tree.
pub fn range_check(
    repo: &Repo,
    policy: &Policy,
    spec: &str,
    trusted: &[Trusted],
    run_here: Option<&dyn RunHere>,
) -> (String, Vec<Finding>) {
    let range = match crate::provenance::parse_range(repo, spec) {
        Ok(range) => range,
        Err(f) => {
            return ("range unreadable".into(), vec![f.reported_by(CHECK)]);
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
    let ids = match range_rules::tasks_touched(repo, tip, &range.base.hidden(), key) {
        Ok(ids) => ids,
        Err(e) => {
            return (
                "range unreadable".into(),
                vec![git_unknown("the range", &e)],
            );
        }
    };
    // A range of commits that name no task and change nothing themselves —
    // clean merges of commits the target already holds — has no work to
    // prove: what it brings in was proved where it was made
    // (docs/receipts.md). An empty range is not one: it proves its tip.
    if ids.is_empty() {
        match only_clean_merges(repo, tip, &range.base.hidden()) {
            Ok(true) => {
                return (
                    format!(
                        "nothing to prove: no commit of {} changes a path itself",
                        range.label
                    ),
                    Vec::new(),
                );
            }
            Ok(false) => {}
            Err(e) => {
                return (
                    "range unreadable".into(),
                    vec![git_unknown("the range", &e)],
                );
            }
        }
    }
    let plans = match range_rules::plans(repo, tip, trusted, CHECK) {
        Ok(plans) => plans,
        Err(f) => return ("the plan could not be read".into(), vec![*f]),
    };
    let note = match crate::notes::read(repo, tip) {
        Ok(note) => note,
        Err(e) => {
            return (
                "the note could not be read".into(),
                vec![
                    Finding::unknown(
                        CHECK,
                        "input_unreadable",
                        format!("the receipts of {}: {e}", tip.short()),
                        format!(
                            "remove the note (`git notes --ref gate remove {}`) and push receipts gate can read (`gate verify CHECK` on a clean checkout of the tip, then `gate receipts push REMOTE`), or fetch the notes again",
                            tip.short()
                        ),
                    )
                    .with_subject(at(Subject::default())),
                ],
            );
        }
    };
    let believed = Believed::of(repo, policy, trusted);
    // Every tree fingerprint of TIP through one in-memory blob cache: each
    // blob hashed once, each (sources, paths) answered once (a check
    // `--run-unproved` runs asks again). Nothing local is read: no cache
    // file, which code a check ran could have written.
    let mut trees = crate::fingerprint::Trees::in_memory(repo);
    if ids.is_empty() {
        return without_task(
            (repo, &mut trees),
            policy,
            (&believed, run_here),
            &range.label,
            tip,
            &plans,
            note.as_ref(),
        );
    }
    // What the range changes in a check's sources, that check must prove,
    // whatever the tasks name (docs/receipts.md, "What a change must
    // prove"): every declaration, TIP's and the trusted plans'.
    let declared: Vec<&AcceptanceCheck> = plans
        .tip
        .iter()
        .chain(plans.trusted.iter().filter_map(|(_, plan)| plan.as_ref()))
        .flat_map(|plan| &plan.acceptance_checks)
        .collect();
    // The range's paths are walked only when a task leaves a declared
    // check unasked: the walk diffs every commit of the range again.
    let mut range_paths: Option<crate::fingerprint::Touched> = None;
    let mut findings = Vec::new();
    let mut criteria: Vec<String> = Vec::new();
    let mut new_tasks: Vec<&str> = Vec::new();
    let mut contracts_reported = std::collections::BTreeSet::new();
    let (mut proved, mut total) = (0, 0);
    let mut proofs: Vec<(String, Proof)> = Vec::new();
    for id in &ids {
        let task_subject = || {
            at(Subject {
                task: Some(id.clone()),
                ..Subject::default()
            })
        };
        let records = match range_rules::records(repo, tip, &plans, id) {
            Ok(records) => records,
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
        if records.new_in_range() && !trusted.is_empty() {
            new_tasks.push(id);
        }
        let required = match required(&plans, &records, tip) {
            Ok(required) => required,
            Err(f) => {
                findings.push(f.with_subject(task_subject()));
                continue;
            }
        };
        for d in &required.dropped {
            findings.push(
                Finding::blocker(
                    CHECK,
                    "plan_loosened",
                    format!(
                        "task {id}: the plan at {} requires check {} for criterion {}, and the tip {}'s plan or the task's record there no longer does; it is proved all the same",
                        d.by,
                        d.acceptance_id,
                        d.criterion,
                        tip.short()
                    ),
                    PLAN_LOOSENED_DECIDE.into(),
                )
                .with_subject(at(Subject { task: Some(id.clone()), at: At { acceptance_id: Some(d.acceptance_id.clone()), file: Some(crate::plan::PLAN_PATH.into()), ..At::default() }.boxed(), ..Subject::default() })),
            );
        }
        let baseline = Oid::from_hex(&records.tip.record.baseline);
        let mut states: Vec<(String, &'static str)> = Vec::new();
        let mut acceptance_ids = required.acceptance_ids;
        let unasked = declared.iter().any(|a| !acceptance_ids.contains(&a.id));
        if unasked && range_paths.is_none() {
            match crate::fingerprint::Touched::of_range(repo, tip, &range.base.hidden()) {
                Ok(paths) => range_paths = Some(paths),
                Err(e) => {
                    return (
                        "range unreadable".into(),
                        vec![git_unknown("the range", &e)],
                    );
                }
            }
        }
        let extra = match &range_paths {
            Some(paths) if unasked => {
                by_paths(declared.iter().copied(), &acceptance_ids, paths.committed())
            }
            _ => Vec::new(),
        };
        acceptance_ids.extend(extra.iter().map(|(id, _)| id.clone()));
        for acceptance_id in acceptance_ids {
            total += 1;
            let subject = at(Subject {
                task: Some(id.clone()),
                at: At {
                    acceptance_id: Some(acceptance_id.clone()),
                    ..At::default()
                }
                .boxed(),
                ..Subject::default()
            });
            let (declared, loosened) = declaration(&plans, &acceptance_id);
            for (side, what) in loosened {
                if contracts_reported.insert((acceptance_id.clone(), side.clone())) {
                    findings.push(contract_loosened(tip, &acceptance_id, &side, &what));
                }
            }
            let proving = Proving::Task {
                baseline,
                work: Work {
                    task: id,
                    key: policy.trailer_key(),
                },
            };
            let task = (id.as_str(), records.tip.record.created_at.as_str());
            let disproof = match disproof(
                repo,
                &mut trees,
                policy,
                &believed,
                declared,
                tip,
                proving,
                &acceptance_id,
                note.as_ref(),
            ) {
                Ok(proof) => Ok(proof),
                Err(f) => prove_here(
                    repo,
                    &mut trees,
                    policy,
                    run_here,
                    &plans,
                    tip,
                    proving,
                    Some(task),
                    &acceptance_id,
                    f,
                ),
            };
            let state = match disproof {
                Ok(proof) => {
                    proved += 1;
                    proofs.push((acceptance_id.clone(), proof));
                    "passed"
                }
                Err(f) => {
                    let state = match f.cause {
                        "receipt_missing" => "missing",
                        "receipt_unverified" => "unverified",
                        "receipt_stale" => "stale",
                        "receipt_failed" => "failed",
                        _ => "unknown",
                    };
                    let mut f = f;
                    if let Some((_, path)) = extra.iter().find(|(id, _)| *id == acceptance_id) {
                        f.message.push_str(&required_by_path(path, "the range"));
                    }
                    findings.push(f.with_subject(subject));
                    state
                }
            };
            states.push((acceptance_id, state));
        }
        for c in &required.served {
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
        "{proved} of {total} check{} proved by receipts that travelled with {} (verified against its tree){}{}{}",
        if total == 1 { "" } else { "s" },
        tip.short(),
        proved_by(&proofs),
        match criteria.is_empty() {
            true => String::new(),
            false => format!("; criteria: {}", criteria.join(", ")),
        },
        match new_tasks.is_empty() {
            true => String::new(),
            false => format!(
                "; new in the range, so judged by the tip's record only: {}",
                new_tasks.join(", ")
            ),
        }
    );
    (believed.said(summary), findings)
}

/// The receipts check of a range whose commits name no task and change no
/// task's record (docs/receipts.md, "Receipts in CI"): the rule `gate
/// status` keeps without a task — every acceptance check of the plan,
/// proved by receipts made without a task, over the check's sources alone —
/// so removing the trailers never removes the proof. The plan is TIP's and
/// every trusted revision's (docs/trust.md, "The plan's trust"): an
/// acceptance check only a trusted plan declares is `plan_loosened` and
/// proved all the same. Neither side holding a plan is unknown: what the
/// range must prove cannot be told.
fn without_task(
    (repo, trees): (&Repo, &mut crate::fingerprint::Trees),
    policy: &Policy,
    (believed, run_here): (&Believed, Option<&dyn RunHere>),
    label: &str,
    tip: Oid,
    plans: &range_rules::Plans,
    note: Option<&crate::notes::Note>,
) -> (String, Vec<Finding>) {
    let at = |subject: Subject| Subject {
        commit: Some(tip.to_hex()),
        ..subject
    };
    if plans.tip.is_none() && plans.trusted.iter().all(|(_, plan)| plan.is_none()) {
        let sides: Vec<String> = std::iter::once(format!("the tip {}", tip.short()))
            .chain(plans.trusted.iter().map(|(side, _)| side.named.clone()))
            .collect();
        return (
            format!("no task in {label} and no plan: which acceptance checks to prove is unknown"),
            vec![
                Finding::unknown(
                    CHECK,
                    "input_unreadable",
                    format!(
                        "the commits of {label} name no task, so every acceptance check of the plan must be proved, but {}: which checks cannot be told",
                        match sides.as_slice() {
                            [one] => format!("{one} holds no .gate/plan.yaml"),
                            _ => format!("neither {} holds a .gate/plan.yaml", sides.join(" nor ")),
                        }
                    ),
                    "commit .gate/plan.yaml (`gate init` writes one), or name the work's task in the range's commits (a `Task: ID` trailer)".into(),
                )
                .with_subject(at(Subject { at: At { file: Some(crate::plan::PLAN_PATH.into()), ..At::default() }.boxed(), ..Subject::default() })),
            ],
        );
    }
    let mut findings = Vec::new();
    let mut acceptance_ids: Vec<String> = plans
        .tip
        .iter()
        .flat_map(|plan| plan.acceptance_checks.iter().map(|a| a.id.clone()))
        .collect();
    for (side, plan) in &plans.trusted {
        for acceptance in plan.iter().flat_map(|plan| &plan.acceptance_checks) {
            if acceptance_ids.contains(&acceptance.id) {
                continue;
            }
            acceptance_ids.push(acceptance.id.clone());
            findings.push(
                Finding::blocker(
                    CHECK,
                    "plan_loosened",
                    format!(
                        "the plan at {} declares acceptance check {}, and the tip {}'s plan no longer does; a range that names no task proves every one, so it is proved all the same",
                        side.named,
                        acceptance.id,
                        tip.short()
                    ),
                    PLAN_LOOSENED_DECIDE.into(),
                )
                .with_subject(at(Subject { at: At { acceptance_id: Some(acceptance.id.clone()), file: Some(crate::plan::PLAN_PATH.into()), ..At::default() }.boxed(), ..Subject::default() })),
            );
        }
    }
    if acceptance_ids.is_empty() {
        return (
            format!(
                "no task in {label}, and the plan declares no acceptance check: nothing to prove"
            ),
            findings,
        );
    }
    let mut proved = 0;
    let mut proofs: Vec<(String, Proof)> = Vec::new();
    for acceptance_id in &acceptance_ids {
        let (declared, loosened) = declaration(plans, acceptance_id);
        for (side, what) in loosened {
            findings.push(contract_loosened(tip, acceptance_id, &side, &what));
        }
        let proved_or = match disproof(
            repo,
            trees,
            policy,
            believed,
            declared,
            tip,
            Proving::WithoutTask,
            acceptance_id,
            note,
        ) {
            Ok(proof) => Ok(proof),
            Err(f) => prove_here(
                repo,
                trees,
                policy,
                run_here,
                plans,
                tip,
                Proving::WithoutTask,
                None,
                acceptance_id,
                f,
            ),
        };
        match proved_or {
            Ok(proof) => {
                proved += 1;
                proofs.push((acceptance_id.clone(), proof));
            }
            Err(f) => findings.push(
                f.with_subject(at(Subject {
                    at: At {
                        acceptance_id: Some(acceptance_id.clone()),
                        ..At::default()
                    }
                    .boxed(),
                    ..Subject::default()
                })),
            ),
        }
    }
    let total = acceptance_ids.len();
    (
        believed.said(format!(
            "no task in {label}: {proved} of {total} acceptance check{} of the plan proved by receipts made without a task that travelled with {} (verified against its tree){}",
            if total == 1 { "" } else { "s" },
            tip.short(),
            proved_by(&proofs)
        )),
        findings,
    )
}

/// The finding for a declaration of `acceptance_id` TIP changes so that it
/// proves less than the plan at `side` asks (`what`).
fn contract_loosened(tip: Oid, acceptance_id: &str, side: &str, what: &str) -> Finding {
    Finding::blocker(
        CHECK,
        "plan_loosened",
        format!(
            "the tip {} changes check {acceptance_id} against the plan at {side}: {what}; a receipt under the tip's declaration proves less than the trusted one asks",
            tip.short()
        ),
        PLAN_LOOSENED_DECIDE.into(),
    )
    .with_subject(Subject { commit: Some(tip.to_hex()), at: At { acceptance_id: Some(acceptance_id.to_string()), file: Some(crate::plan::PLAN_PATH.into()), ..At::default() }.boxed(), ..Subject::default() })
}

const PLAN_LOOSENED_DECIDE: &str = "keep the requirement in .gate/plan.yaml and the task's record; to change it, change the plan on its own (a governance task) and have its owners merge it onto the base: from there it judges (docs/trust.md)";

/// What a task in a range must prove (docs/trust.md, "The plan's trust").
struct Required {
    /// The criteria served, TIP's first, each with the evidence either
    /// side gives it.
    served: Vec<Served>,
    /// The acceptance checks to prove: TIP's, then those only a trusted
    /// plan requires.
    acceptance_ids: Vec<String>,
    /// The requirements of a trusted plan that TIP's plan or record drops.
    dropped: Vec<Dropped>,
}

struct Dropped {
    acceptance_id: String,
    /// `intent#criterion`.
    criterion: String,
    /// The trusted revision that requires it.
    by: String,
}

/// The union of what TIP's plan requires for TIP's record and what each
/// trusted plan requires for the task's names, at TIP and in the trusted
/// revision's own record. TIP's names must resolve in TIP's plan (unknown
/// otherwise, as in the local check); a trusted plan asks only what it has.
fn required(
    plans: &range_rules::Plans,
    records: &range_rules::Records,
    tip: Oid,
) -> Result<Required, Box<Finding>> {
    let task = &records.tip;
    let names = |t: &Task| (t.record.issue.clone(), t.record.intent.clone());
    let (issue, intent) = names(task);
    let mut served = match &plans.tip {
        None if issue.is_some() || intent.is_some() => {
            return Err(Box::new(Finding::unknown(
                CHECK,
                "input_unreadable",
                format!(
                    "task {} names {}, but {} holds no .gate/plan.yaml: which checks it depends on cannot be told",
                    task.record.id,
                    named(task).unwrap_or_else(|| "nothing".into()),
                    tip.short()
                ),
                "commit .gate/plan.yaml with the work, then check again".into(),
            )));
        }
        None => Vec::new(),
        Some(plan) => receipts::resolve_criteria_served(plan, issue.as_deref(), intent.as_deref())
            .map_err(|m| {
                Box::new(Finding::unknown(
                    CHECK,
                    "input_unreadable",
                    unresolved(&task.record.id, &m).message,
                    UNRESOLVED_DECIDE.into(),
                ))
            })?,
    };
    let mut acceptance_ids = receipts::dependent_acceptance_checks(&served);
    let mut dropped = Vec::new();
    for (n, (side, plan)) in plans.trusted.iter().enumerate() {
        let Some(plan) = plan else { continue };
        let mut asked = vec![names(task)];
        asked.extend(
            records
                .trusted
                .iter()
                .filter(|(m, _)| *m == n)
                .map(|(_, t)| names(t)),
        );
        for (issue, intent) in asked {
            for s in receipts::criteria_served(plan, issue.as_deref(), intent.as_deref()) {
                for e in &s.evidence {
                    if !acceptance_ids.contains(e) {
                        acceptance_ids.push(e.clone());
                        dropped.push(Dropped {
                            acceptance_id: e.clone(),
                            criterion: format!("{}#{}", s.intent, s.criterion),
                            by: side.named.clone(),
                        });
                    }
                }
                match served
                    .iter_mut()
                    .find(|c| c.intent == s.intent && c.criterion == s.criterion)
                {
                    Some(c) => {
                        for e in s.evidence {
                            if !c.evidence.contains(&e) {
                                c.evidence.push(e);
                            }
                        }
                    }
                    None => served.push(s),
                }
            }
        }
    }
    Ok(Required {
        served,
        acceptance_ids,
        dropped,
    })
}

/// The declaration an acceptance check is proved against — TIP's, else the
/// first trusted plan's — and each trusted revision whose declaration TIP's
/// loosens, with what it loosens.
fn declaration<'p>(
    plans: &'p range_rules::Plans,
    acceptance_id: &str,
) -> (Option<&'p AcceptanceCheck>, Vec<(String, String)>) {
    let at_tip = plans
        .tip
        .as_ref()
        .and_then(|p| p.acceptance_check(acceptance_id));
    let trusted: Vec<(&str, &AcceptanceCheck)> = plans
        .trusted
        .iter()
        .filter_map(|(side, plan)| {
            let acceptance = plan.as_ref()?.acceptance_check(acceptance_id)?;
            Some((side.named.as_str(), acceptance))
        })
        .collect();
    let declared = at_tip.or(trusted.first().map(|(_, a)| *a));
    let loosened = match at_tip {
        None => Vec::new(),
        Some(tip) => trusted
            .iter()
            .filter_map(|(side, a)| {
                range_rules::contract_loosened(a, tip).map(|what| (side.to_string(), what))
            })
            .collect(),
    };
    (declared, loosened)
}

/// How bad a criterion's evidence state is (the worst of its acceptance
/// checks counts).
fn rank(state: &str) -> u8 {
    match state {
        "passed" => 0,
        "missing" => 1,
        "stale" => 2,
        "unverified" => 2,
        "failed" => 3,
        _ => 4,
    }
}

/// Whose proof the note on TIP must give.
#[derive(Clone, Copy)]
enum Proving<'a> {
    /// A task's: any entry, over the acceptance check's sources and the
    /// paths the task's work touched in `baseline..TIP` ([`Work`]).
    Task {
        baseline: Option<Oid>,
        work: Work<'a>,
    },
    /// A range that names no task: an entry made without a task, over the
    /// acceptance check's sources alone — the receipts `gate status` counts
    /// without a task (docs/receipts.md).
    WithoutTask,
}

/// What keeps the note on `tip` from proving `acceptance_id` (the finding),
/// or whose word proves it: its entry passed on TIP's contract and TIP's
/// tree fingerprint, and [`Believed`] believes it.
// The finding is the answer, made once per check, not an error passed up
// through layers: its size costs nothing here.
#[allow(clippy::too_many_arguments, clippy::result_large_err)]
fn disproof(
    repo: &Repo,
    trees: &mut crate::fingerprint::Trees,
    policy: &Policy,
    believed: &Believed,
    declared: Option<&AcceptanceCheck>,
    tip: Oid,
    proving: Proving<'_>,
    acceptance_id: &str,
    note: Option<&crate::notes::Note>,
) -> Result<Proof, Finding> {
    let verify = match proving {
        Proving::Task { .. } => format!(
            "run `gate verify {acceptance_id}` on a clean checkout of {} and push its note with `gate receipts push REMOTE` (a push through gate's pre-push sends it too); CI fetches it with `gate receipts fetch REMOTE`",
            tip.short()
        ),
        Proving::WithoutTask => format!(
            "name the work's task in the range's commits (a `Task: ID` trailer), so the range proves what that task depends on; or run `gate verify {acceptance_id}` with no task active on a clean checkout of {} and push its note with `gate receipts push REMOTE`; CI fetches it with `gate receipts fetch REMOTE`",
            tip.short()
        ),
    };
    let Some(acceptance) = declared else {
        return Err(Finding::unknown(
            CHECK,
            "unknown_check",
            format!("the plan declares no check {acceptance_id}, yet a served criterion names it"),
            "fix the criterion's evidence in .gate/plan.yaml".into(),
        ));
    };
    let Some(entry) = note.and_then(|n| n.entry(acceptance_id)) else {
        return Err(Finding::blocker(
            CHECK,
            "receipt_missing",
            format!(
                "no receipt travelled with the push: {} carries no receipt of {acceptance_id} (refs/notes/gate)",
                tip.short()
            ),
            verify,
        ));
    };
    let (baseline, work) = match proving {
        Proving::Task { baseline, work } => (baseline, Some(work)),
        Proving::WithoutTask => {
            if let Some(task) = &entry.task {
                return Err(Finding::blocker(
                    CHECK,
                    "receipt_missing",
                    format!(
                        "no receipt made without a task travelled with the push: {} carries a receipt of {acceptance_id} made for task {task} (refs/notes/gate), and a range that names no task is proved by receipts made without one",
                        tip.short()
                    ),
                    verify,
                ));
            }
            (None, None)
        }
    };
    let touched = match baseline {
        Some(baseline) => crate::fingerprint::Touched::of_commits(repo, baseline, tip, work)
            .and_then(|t| t.for_sources(repo, &acceptance.sources)),
        None => Ok(Vec::new()),
    };
    let tree = touched.and_then(|touched| {
        let inputs = crate::fingerprint::Inputs {
            sources: &acceptance.sources,
            touched: &touched,
            max_entries: policy.receipts.max_entries,
            max_bytes: policy.receipts.max_bytes,
        };
        trees.of_commit(repo, tip, &inputs)
    });
    let digest = match tree {
        Ok(crate::fingerprint::Fingerprint::Available { digest, .. }) => digest,
        Ok(crate::fingerprint::Fingerprint::Unavailable { reason, path }) => {
            return Err(Finding::unknown(
                CHECK,
                "fingerprint_unavailable",
                format!(
                    "the sources of {acceptance_id} in {} cannot be fingerprinted: {}{}",
                    tip.short(),
                    reason.as_str().replace('_', " "),
                    path.map(|p| format!(" ({p})")).unwrap_or_default()
                ),
                "remove the symlink or submodule from the sources, or raise the limits in the policy".into(),
            ));
        }
        Err(e) => {
            return Err(Finding::unknown(
                CHECK,
                "input_unreadable",
                format!("the sources of {acceptance_id} in {}: {e}", tip.short()),
                "fetch the full history (a full-depth checkout), then check again".into(),
            ));
        }
    };
    let evidence = &entry.evidence;
    // A claim nobody can be held to says nothing: whether the entry is
    // believed comes before what it says.
    let proof = match believed.judge(entry) {
        Ok(proof) => proof,
        Err(why) => {
            return Err(Finding::blocker(
                CHECK,
                "receipt_unverified",
                format!(
                    "the receipt of {acceptance_id} on {} ({evidence}) does not count: {why}",
                    tip.short()
                ),
                believed.decide(acceptance_id, tip),
            ));
        }
    };
    if entry.contract != acceptance.contract_at(baseline.map(|b| b.to_hex()).as_deref()) {
        return Err(Finding::blocker(
            CHECK,
            "receipt_stale",
            format!(
                "the receipt of {acceptance_id} on {} ({evidence}) was made under another contract than {}'s plan declares",
                tip.short(),
                tip.short()
            ),
            verify,
        ));
    }
    if entry.fingerprint != digest {
        return Err(Finding::blocker(
            CHECK,
            "receipt_stale",
            format!(
                "the receipt of {acceptance_id} on {} ({evidence}) is for other content than its tree holds",
                tip.short()
            ),
            verify,
        ));
    }
    if !entry.passed {
        return Err(Finding::blocker(
            CHECK,
            "receipt_failed",
            format!(
                "the latest run of {acceptance_id} on {} ({evidence}) failed{}{}",
                tip.short(),
                entry
                    .exit_code
                    .map(|c| format!(" with exit {c}"))
                    .unwrap_or_default(),
                match &entry.disputed_by {
                    Some(pass) => format!(
                        "; another clone's run on the same content and contract ({pass}) passed, and clocks do not settle that: a new run does"
                    ),
                    None => String::new(),
                }
            ),
            match &entry.disputed_by {
                // A run settles the dispute only where the dispute is known.
                Some(_) => format!(
                    "fetch the receipts first (`gate receipts fetch REMOTE`: a run settles the dispute only in a clone that holds it), then {verify}"
                ),
                None => format!("fix what it reports, then {verify}"),
            },
        ));
    }
    Ok(proof)
}

/// Whose word proves a check in a range (docs/receipts.md, "Signed
/// receipts").
#[derive(Debug, Clone, PartialEq, Eq)]
enum Proof {
    /// A receipt signed by this signer (as the trusted signers name them,
    /// with the key), listed at every trusted revision.
    SignedBy(String),
    /// An unsigned (or unchecked) receipt, counted because the trusted
    /// policy says `receipts.trust: any-pusher`.
    AnyPusher,
    /// Run here, on TIP's bytes, by `--run-unproved`: the evidence id of
    /// the receipt it recorded.
    RanHere(String),
}

/// Runs an acceptance check on a checkout of TIP, for `gate check --range
/// --run-unproved` (docs/receipts.md, "Proving by running in CI"). The door
/// provides it: running a command and recording its receipt is I/O this
/// module leaves to its caller.
pub trait RunHere {
    /// Run `acceptance` (the trusted declaration) in the work tree, which
    /// must hold TIP's bytes — the tree fingerprint `expected` over its
    /// sources and `touched` — before the run; record its receipt (made for
    /// `task`, its id and `created_at`, or none, at that task's `baseline`)
    /// and attach it to `tip` when it is fresh. The receipt, or why nothing
    /// could be run (the work tree is not TIP's, the command could not
    /// start).
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        acceptance: &AcceptanceCheck,
        tip: Oid,
        task: Option<(&str, &str)>,
        baseline: Option<Oid>,
        touched: &[crate::path::RepoPath],
        expected: &str,
    ) -> Result<crate::receipts::Receipt, String>;
}

/// What `--run-unproved` makes of a check the note on TIP does not prove
/// (`disproved`): when `run_here` is given and the finding is one a run
/// settles — no receipt, an unverified one, one for other content or
/// another contract — the check is run on TIP's checkout under the
/// trusted declaration (TIP's where no trusted plan declares it), and its
/// result judges. Otherwise, the finding stands. A verified failure is not
/// run again: it is a signed fact about TIP's bytes.
#[allow(clippy::too_many_arguments, clippy::result_large_err)]
fn prove_here(
    repo: &Repo,
    trees: &mut crate::fingerprint::Trees,
    policy: &Policy,
    run_here: Option<&dyn RunHere>,
    plans: &range_rules::Plans,
    tip: Oid,
    proving: Proving<'_>,
    task: Option<(&str, &str)>,
    acceptance_id: &str,
    disproved: Finding,
) -> Result<Proof, Finding> {
    let Some(runner) = run_here else {
        return Err(disproved);
    };
    if !matches!(
        disproved.cause,
        "receipt_missing" | "receipt_unverified" | "receipt_stale"
    ) {
        return Err(disproved);
    }
    let trusted = plans
        .trusted
        .iter()
        .find_map(|(_, plan)| plan.as_ref()?.acceptance_check(acceptance_id));
    let Some(acceptance) = trusted.or_else(|| plans.tip.as_ref()?.acceptance_check(acceptance_id))
    else {
        return Err(disproved);
    };
    let cannot = |why: String| {
        Finding::unknown(
            CHECK,
            "input_unreadable",
            format!(
                "{acceptance_id} could not be run here on {}'s bytes: {why}",
                tip.short()
            ),
            format!(
                "check out {} with full history (`git checkout --detach {}`) and run `gate check --range … --run-unproved` again",
                tip.short(),
                tip.to_hex()
            ),
        )
    };
    let (baseline, work) = match proving {
        Proving::Task { baseline, work } => (baseline, Some(work)),
        Proving::WithoutTask => (None, None),
    };
    let touched = match baseline {
        Some(baseline) => crate::fingerprint::Touched::of_commits(repo, baseline, tip, work)
            .and_then(|t| t.for_sources(repo, &acceptance.sources)),
        None => Ok(Vec::new()),
    }
    .map_err(|e| cannot(e.to_string()))?;
    let inputs = crate::fingerprint::Inputs {
        sources: &acceptance.sources,
        touched: &touched,
        max_entries: policy.receipts.max_entries,
        max_bytes: policy.receipts.max_bytes,
    };
    let expected = match trees.of_commit(repo, tip, &inputs) {
        Ok(crate::fingerprint::Fingerprint::Available { digest, .. }) => digest,
        Ok(crate::fingerprint::Fingerprint::Unavailable { reason, .. }) => {
            return Err(cannot(format!(
                "its sources cannot be fingerprinted ({})",
                reason.as_str()
            )));
        }
        Err(e) => return Err(cannot(e.to_string())),
    };
    let receipt = runner
        .run(acceptance, tip, task, baseline, &touched, &expected)
        .map_err(cannot)?;
    let evidence = receipt.evidence.clone();
    match receipt.fresh_digest() {
        Some(digest) if digest == expected && receipt.passed() => Ok(Proof::RanHere(evidence)),
        Some(digest) if digest == expected => Err(Finding::blocker(
            CHECK,
            "receipt_failed",
            format!(
                "{acceptance_id} was run here on {}'s bytes ({evidence}) and failed{}",
                tip.short(),
                match (receipt.exit_code, receipt.signal) {
                    (Some(c), _) => format!(" with exit {c}"),
                    (None, Some(s)) => format!(" (killed by signal {s})"),
                    (None, None) => String::new(),
                }
            ),
            format!(
                "fix what it reports (its output is in this job's log), then push again; `gate verify {acceptance_id}` runs it on your machine"
            ),
        )),
        _ => Err(Finding::blocker(
            CHECK,
            "receipt_stale",
            format!(
                "{acceptance_id} was run here ({evidence}) and its sources changed while it ran, so it proves nothing about {}",
                tip.short()
            ),
            "write the check's outputs to ignored paths, outside its sources, then run it again"
                .into(),
        )),
    }
}

/// `: unit by a receipt signed by ada@example.org (ED25519 SHA256:…)`,
/// each check proved by a signed receipt or by running here; nothing when
/// none was.
fn proved_by(proofs: &[(String, Proof)]) -> String {
    let signed: Vec<String> = proofs
        .iter()
        .filter_map(|(id, proof)| match proof {
            Proof::SignedBy(who) => Some(format!("{id} by a receipt signed by {who}")),
            Proof::RanHere(evidence) => Some(format!("{id} by running here ({evidence})")),
            Proof::AnyPusher => None,
        })
        .collect();
    match signed.is_empty() {
        true => String::new(),
        false => format!(": {}", signed.join(", ")),
    }
}

/// Who a range believes: the trusted policy's `receipts.trust`, and the
/// signers `receipts.signers` lists at each trusted revision — never at
/// the tip under review (docs/trust.md).
pub struct Believed {
    trust: crate::policy::Trust,
    /// The policy's `receipts.signers`, as written.
    file: Option<String>,
    /// Per trusted revision, its signers, or why it lists none.
    signers: Vec<Result<crate::signing::Signers, String>>,
    verifier: crate::signing::Verifier,
}

impl Believed {
    /// Read the signers of `policy` at each of `trusted`.
    pub fn of(repo: &Repo, policy: &Policy, trusted: &[Trusted]) -> Believed {
        let file = policy.receipts.signers.clone();
        let signers = match (&file, policy.receipts.trust) {
            (_, crate::policy::Trust::AnyPusher) => Vec::new(),
            (None, _) => vec![Err(
                "the trusted policy names no `receipts.signers`, so no signature can count".into(),
            )],
            (Some(_), _) if trusted.is_empty() => vec![Err(
                "no trusted revision to read `receipts.signers` from (the range has no base: pass --policy-from REV)".into(),
            )],
            (Some(path), _) => trusted
                .iter()
                .map(|t| signers_at(repo, t, path))
                .collect(),
        };
        Believed {
            trust: policy.receipts.trust,
            file,
            signers,
            verifier: crate::signing::Verifier::from_config(|k| repo.config_string(k)),
        }
    }

    /// Whether `entry` counts, and by whose word; why not.
    fn judge(&self, entry: &crate::notes::Entry) -> Result<Proof, String> {
        if self.trust == crate::policy::Trust::AnyPusher {
            return Ok(Proof::AnyPusher);
        }
        let Some(signature) = &entry.signature else {
            return Err(format!(
                "it is not signed, and the trusted policy counts only receipts signed by a key {} lists (receipts.trust: signed)",
                self.file.as_deref().unwrap_or("`receipts.signers`")
            ));
        };
        if entry.passed != (entry.exit_code == Some(0)) {
            return Err(format!(
                "it says passed: {} with exit code {:?}",
                entry.passed, entry.exit_code
            ));
        }
        let payload = entry.payload();
        let mut who = None;
        for signers in &self.signers {
            let signers = signers.as_ref().map_err(Clone::clone)?;
            let by = self
                .verifier
                .verify(signature, &payload, signers, &entry.started_at)?;
            who.get_or_insert(by);
        }
        who.map(Proof::SignedBy)
            .ok_or_else(|| "no trusted revision lists its signer".to_string())
    }

    /// The summary, with what the trust rule means when every pusher is
    /// believed.
    fn said(&self, summary: String) -> String {
        match self.trust {
            crate::policy::Trust::AnyPusher => format!(
                "{summary}; receipts.trust is any-pusher: unsigned receipts count, so whoever can push {} is believed",
                crate::notes::NOTES_REF
            ),
            crate::policy::Trust::Signed => summary,
        }
    }

    /// The finding for a check that passed here on a receipt that would
    /// not count where a push is judged; `None` when it would (or the
    /// policy trusts every pusher).
    fn unverified_here(&self, a: &AcceptanceCheckStatus) -> Option<Finding> {
        let receipt = a.latest.as_ref()?;
        let entry = crate::notes::Entry::of(receipt, None)?;
        let why = self.judge(&entry).err()?;
        Some(Finding::blocker(
            CHECK,
            "receipt_unverified",
            format!(
                "the receipt of {} ({}) passed here, and will not count where the push is judged: {why}",
                a.id, receipt.evidence
            ),
            format!(
                "sign receipts: configure git's signing key (user.signingKey, gpg.format ssh or openpgp) and run `gate verify {}` again; the key must be listed in {} on the branch the push targets (docs/receipts.md#signed-receipts)",
                a.id,
                self.file
                    .as_deref()
                    .unwrap_or("the file `receipts.signers` names")
            ),
        ))
    }

    /// What gets an unverified receipt through.
    fn decide(&self, acceptance_id: &str, tip: Oid) -> String {
        format!(
            "sign receipts: configure git's signing key (user.signingKey, gpg.format ssh or openpgp), run `gate verify {acceptance_id}` on a clean checkout of {} and `gate receipts push REMOTE`; the key must be listed in {} on the target branch (a governance change: docs/receipts.md#signed-receipts); or have CI prove it by running it (`gate check --range … --run-unproved`)",
            tip.short(),
            self.file
                .as_deref()
                .unwrap_or("the file `receipts.signers` names")
        )
    }
}

/// The signers file `path` at the trusted revision `t`.
fn signers_at(repo: &Repo, t: &Trusted, path: &str) -> Result<crate::signing::Signers, String> {
    use crate::git::EntryKind;
    let named = format!("{path} at {}", t.named);
    let entry = repo
        .entry_at(t.commit, &crate::path::RepoPath::from(path))
        .map_err(|e| format!("{named} cannot be read: {e}"))?;
    let blob = match entry {
        None if matches!(
            repo.tree_id_at(t.commit, &crate::path::RepoPath::from(path)),
            Ok(Some(_))
        ) =>
        {
            return Err(format!("{named} is a directory, not a signers file"));
        }
        None => return Err(format!("{named} does not exist, so it lists no signer")),
        Some((blob, EntryKind::File | EntryKind::Executable)) => blob,
        Some(_) => return Err(format!("{named} is not a regular file")),
    };
    let bytes = repo
        .read_blob(blob)
        .map_err(|e| format!("{named} cannot be read: {e}"))?;
    if bytes.len() as u64 > crate::load::MAX_FILE_BYTES {
        return Err(format!(
            "{named} is over the {}-byte limit for gate's files",
            crate::load::MAX_FILE_BYTES
        ));
    }
    Ok(crate::signing::Signers { named, bytes })
}

#[cfg(test)]
mod tests {
    //! The receipts check's judgement on plain data: every cause it makes
    //! (docs/causes.md), with no repository and no process.

    use super::*;
    use crate::path::RepoPath;

    fn acceptance(id: &str, state: State) -> AcceptanceFacts {
        AcceptanceFacts {
            status: AcceptanceCheckStatus {
                id: id.into(),
                state,
                unreadable: vec![],
                latest: None,
            },
            unverified: None,
            first_changed: None,
            by_path: None,
        }
    }

    fn read(checks: Vec<AcceptanceFacts>) -> Gathered {
        Gathered {
            task_id: "T-1".into(),
            named: Some("issue 17".into()),
            inputs: Inputs::Read(checks),
        }
    }

    /// The one finding of judging `state`: its cause, severity and text.
    fn one(state: State) -> Finding {
        let (_, findings) = judge(&read(vec![acceptance("tests", state)]));
        assert_eq!(findings.len(), 1, "{findings:?}");
        findings.into_iter().next().unwrap()
    }

    #[test]
    fn a_passed_check_is_no_finding_and_counts() {
        let (summary, findings) = judge(&read(vec![
            acceptance(
                "tests",
                State::Passed {
                    evidence: "ev-1".into(),
                },
            ),
            acceptance("lint", State::Missing),
        ]));
        assert_eq!(summary, "1 of 2 checks passed and fresh");
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].cause, "receipt_missing");
    }

    #[test]
    fn each_state_that_is_not_passed_is_its_own_cause() {
        let f = one(State::Missing);
        assert_eq!(
            (f.cause, f.severity),
            ("receipt_missing", Severity::Blocker)
        );
        assert_eq!(&*f.decide, "run `gate verify tests`");
        assert_eq!(f.subject.at().acceptance_id.as_deref(), Some("tests"));

        let f = one(State::Failed {
            evidence: "ev-2".into(),
            exit_code: Some(3),
        });
        assert_eq!((f.cause, f.severity), ("receipt_failed", Severity::Blocker));
        assert!(
            f.message.contains("(ev-2) failed with exit 3"),
            "{}",
            f.message
        );

        let f = one(State::Stale {
            evidence: "ev-3".into(),
            why: receipts::Staleness::ContractChanged,
        });
        assert_eq!((f.cause, f.severity), ("receipt_stale", Severity::Blocker));
        assert!(
            f.message.ends_with("is stale: contract changed"),
            "{}",
            f.message
        );

        let f = one(State::Running { since_ns: 1 });
        assert_eq!(
            (f.cause, f.severity),
            ("receipt_running", Severity::Blocker)
        );
        assert_eq!(&*f.decide, "wait for it to finish");
    }

    #[test]
    fn each_unknown_state_is_unknown_with_its_cause() {
        let unknown = |cause, path: Option<&str>| State::Unknown {
            cause,
            reason: "symlink".into(),
            path: path.map(str::to_string),
        };
        let f = one(unknown(UnknownCause::UnknownCheck, None));
        assert_eq!((f.cause, f.severity), ("unknown_check", Severity::Unknown));
        let f = one(unknown(UnknownCause::InputUnreadable, None));
        assert_eq!(
            (f.cause, f.severity),
            ("input_unreadable", Severity::Unknown)
        );
        assert!(
            f.decide.starts_with("repair the repository"),
            "{}",
            f.decide
        );
        // A receipt file that cannot be read is named, with what to do.
        let f = one(unknown(UnknownCause::InputUnreadable, Some("r.json")));
        assert!(f.message.ends_with("(r.json)"), "{}", f.message);
        assert!(f.decide.starts_with("repair or remove that receipt"));
        let f = one(unknown(
            UnknownCause::FingerprintUnavailable,
            Some("a/link"),
        ));
        assert_eq!(
            (f.cause, f.severity),
            ("fingerprint_unavailable", Severity::Unknown)
        );
        assert!(f.message.ends_with("symlink (a/link)"), "{}", f.message);
    }

    #[test]
    fn a_stale_check_names_the_first_source_changed_since_its_run() {
        let mut stale = acceptance(
            "tests",
            State::Stale {
                evidence: "ev-4".into(),
                why: receipts::Staleness::SourcesChanged,
            },
        );
        let head = Oid::from_hex("1234567890123456789012345678901234567890").unwrap();
        stale.first_changed = Some((head, RepoPath::from("src/a.rs")));
        let (_, findings) = judge(&read(vec![stale]));
        let f = &findings[0];
        assert_eq!(f.cause, "receipt_stale");
        assert!(
            f.message
                .ends_with("(the first source changed since 123456789012, where it ran: src/a.rs)"),
            "{}",
            f.message
        );
        assert_eq!(f.subject.path, Some(RepoPath::from("src/a.rs")));
    }

    #[test]
    fn a_check_required_by_the_work_says_so() {
        let mut missing = acceptance("docs", State::Missing);
        missing.by_path = Some(RepoPath::from("docs/a.md"));
        let (_, findings) = judge(&read(vec![missing]));
        assert!(
            findings[0]
                .message
                .contains("(the task's work changes docs/a.md, one of its sources"),
            "{}",
            findings[0].message
        );
    }

    /// A passed check whose receipt would not count where a push is judged
    /// is reported with the finding the trust rules made; one that would,
    /// or a failed one, is judged by its state alone.
    #[test]
    fn an_unverified_pass_is_reported_as_the_trust_rules_found_it() {
        let unverified = Finding::blocker(CHECK, "receipt_unverified", "m".into(), "d".into());
        let mut passed = acceptance(
            "tests",
            State::Passed {
                evidence: "ev-5".into(),
            },
        );
        passed.unverified = Some(unverified.clone());
        let mut failed = acceptance(
            "lint",
            State::Failed {
                evidence: "ev-6".into(),
                exit_code: None,
            },
        );
        failed.unverified = Some(unverified);
        let (summary, findings) = judge(&read(vec![passed, failed]));
        let causes: Vec<&str> = findings.iter().map(|f| f.cause).collect();
        assert_eq!(causes, ["receipt_unverified", "receipt_failed"]);
        assert_eq!(summary, "1 of 2 checks passed and fresh");
    }

    #[test]
    fn inputs_that_cannot_be_read_are_unknown() {
        let gathered = |named: Option<&str>, inputs| Gathered {
            task_id: "T-1".into(),
            named: named.map(str::to_string),
            inputs,
        };
        // No plan and nothing named: nothing to depend on.
        let (summary, findings) = judge(&gathered(None, Inputs::NoPlan));
        assert_eq!(summary, "no plan: the task depends on no check");
        assert!(findings.is_empty());
        // No plan, and the task names an issue: which checks is unknown.
        let (_, findings) = judge(&gathered(Some("issue 17"), Inputs::NoPlan));
        assert_eq!(findings[0].cause, "input_unreadable");
        assert_eq!(findings[0].severity, Severity::Unknown);
        assert!(
            findings[0]
                .message
                .contains("names issue 17, but there is no .gate/plan.yaml")
        );
        for inputs in [
            Inputs::Unresolved("issue 17 is not in the plan".into()),
            Inputs::Unreadable("the store is unreadable".into()),
        ] {
            let (_, findings) = judge(&gathered(Some("issue 17"), inputs));
            assert_eq!(findings.len(), 1);
            assert_eq!(
                (findings[0].cause, findings[0].severity),
                ("input_unreadable", Severity::Unknown)
            );
        }
        // A task that depends on nothing passes, saying so.
        let (summary, findings) = judge(&read(vec![]));
        assert_eq!(summary, "task T-1 depends on no check");
        assert!(findings.is_empty());
    }
}
