//! The binding check (docs/binding.md): the names a task records asked of
//! the one derivation again ([`load_and_judge`]), its standing and refusals as
//! findings, and the pins and evidence standing `gate start`, `gate binding`
//! and `gate handover` derive ([`derive`]).

use super::{TaskState, loaded};
use crate::binding::{self, Judgement, Naming};
use crate::cli::NamingArgs;
use crate::ctx::Ctx;
use crate::error::Failure;
use crate::plan::Plan;
use crate::policy::Policy;
use crate::receipts::{self, Served, Store};
use crate::task::{Pins, Task};
use crate::verdict::{At, Finding, Subject};

/// A judgement with its pins, as every door sees it.
pub struct Derived {
    pub judgement: Judgement,
    pub served: Vec<Served>,
    pub states: Vec<&'static str>,
    pub pins: Pins,
}

/// Read the repository's plan and judge `naming` against it with the pure
/// `binding::judge`, without evidence: what the binding
/// check at each door asks. A plan that cannot be read is an error
/// (unknown); an absent plan judges against an empty one, which is returned
/// with the judgement.
pub fn load_and_judge(
    ctx: &Ctx,
    policy: &Policy,
    naming: &Naming,
) -> Result<(Plan, Judgement), Failure> {
    let loaded = ctx.plan()?;
    let absent = loaded.is_none();
    let plan = loaded.map(|p| p.plan.clone()).unwrap_or_default();
    let mut judgement = binding::judge(&plan, policy, naming);
    if absent && (naming.issue.is_some() || naming.intent.is_some() || !naming.paths.is_empty()) {
        judgement
            .notes
            .push("there is no .gate/plan.yaml: nothing can be named in it".into());
    }
    Ok((plan, judgement))
}

/// [`load_and_judge`], then the pins, with evidence read now for `task_id` in this
/// worktree (only when the judgement serves criteria: a maintenance or
/// exempt task walks nothing).
pub fn derive(
    ctx: &Ctx,
    policy: &Policy,
    naming: &Naming,
    evidence_for: Option<(&str, crate::git::Oid)>,
) -> Result<Derived, Failure> {
    let (plan, judgement) = load_and_judge(ctx, policy, naming)?;
    let served = binding::judged_criteria(&plan, &judgement);
    let states = evidence_states(ctx, policy, &plan, evidence_for, &served)?;
    let pins = binding::pins(&plan, &judgement, &served, &states);
    Ok(Derived {
        judgement,
        served,
        states,
        pins,
    })
}

/// The evidence state of each served criterion, from the receipts now.
fn evidence_states(
    ctx: &Ctx,
    policy: &Policy,
    plan: &Plan,
    evidence_for: Option<(&str, crate::git::Oid)>,
    served: &[Served],
) -> Result<Vec<&'static str>, Failure> {
    if served.is_empty() {
        return Ok(Vec::new());
    }
    let touched = match evidence_for {
        Some((id, baseline)) => crate::fingerprint::Touched::of_task(
            &ctx.repo,
            baseline,
            Some(crate::fingerprint::Work {
                task: id,
                key: policy.trailer_key(),
            }),
        )?,
        None => crate::fingerprint::Touched::none(),
    };
    let store = Store::new(&ctx.repo.common_dir());
    let worktree = crate::ctx::worktree_key(ctx);
    // Receipts count for this task only, not an earlier one of the same id.
    // A task being started (no file yet) has no receipt at all: it is
    // created now.
    let created_at = match evidence_for {
        Some((id, _)) => match crate::task::load(ctx.root(), id) {
            Ok(task) => Some(task.record.created_at),
            Err(crate::task::TaskError::NotFound { .. }) => {
                Some(crate::clock::Timestamp::now().to_string())
            }
            Err(e) => return Err(e.into()),
        },
        None => None,
    };
    let baseline = evidence_for.map(|(_, baseline)| baseline.to_hex());
    let rctx = receipts::Context {
        repo: &ctx.repo,
        store: &store,
        plan,
        policy,
        worktree: &worktree,
        task: evidence_for.map(|(id, _)| id),
        task_created_at: created_at.as_deref(),
        task_baseline: baseline.as_deref(),
        touched: &touched,
        index: None,
        prefetch: None,
        progress: ctx.progress,
    };
    let acceptance_checks =
        receipts::evaluate(&rctx, &receipts::dependent_acceptance_checks(served));
    Ok(served
        .iter()
        .map(|s| receipts::criterion_state(s, &acceptance_checks))
        .collect())
}

/// Whose receipts count as evidence: the task's id and baseline.
pub fn evidence_key(task: &Task) -> Option<(String, crate::git::Oid)> {
    crate::git::Oid::from_hex(&task.record.baseline).map(|b| (task.record.id.clone(), b))
}

/// The naming a task records.
pub fn naming_of(task: &Task) -> Naming {
    let r = &task.record;
    recorded_naming(r.issue.as_ref(), r.intent.as_ref(), r.exemption.as_ref())
}

/// The question a task record's names ask (never paths: the record keeps
/// names), for a record being written or one read back.
pub fn recorded_naming(
    issue: Option<&String>,
    intent: Option<&String>,
    exemption: Option<&crate::task::Exemption>,
) -> Naming {
    Naming {
        issue: issue.cloned(),
        intent: intent.cloned(),
        paths: vec![],
        exempt: exemption.map(|e| e.class.clone()),
        because: exemption.map(|e| e.because.clone()),
    }
}

/// What the command line names: each name and each `--path` trimmed (a
/// blank one names nothing), each path made repository-relative from the
/// directory gate runs in (docs/binding.md).
pub fn given_naming(ctx: &Ctx, args: &NamingArgs) -> Result<Naming, Failure> {
    Ok(Naming {
        issue: binding::given_name(args.issue.as_deref()),
        intent: binding::given_name(args.intent.as_deref()),
        paths: args
            .paths
            .iter()
            .filter_map(|p| binding::given_name(Some(p)))
            .map(|p| ctx.from_cwd("--path", &p))
            .collect::<Result<_, _>>()?,
        exempt: binding::given_name(args.exempt.as_deref()),
        because: args.because.clone(),
    })
}

/// The refusals of a judgement as findings of the `binding` check.
pub fn findings(j: &Judgement) -> Vec<Finding> {
    j.refusals
        .iter()
        .map(|r| {
            Finding::blocker(binding::CHECK, r.cause, r.message.clone(), r.decide.clone())
                .with_subject(Subject {
                    task: None,
                    at: At {
                        key: r.issue.as_ref().map(|i| format!("issue {i}")),
                        ..At::default()
                    }
                    .boxed(),
                    ..Subject::default()
                })
        })
        .collect()
}

/// The binding check: ask the binding again for the task's names.
pub fn check(
    ctx: &Ctx,
    policy: &crate::policy::Policy,
    task: &TaskState,
) -> (String, Vec<Finding>) {
    let t = match loaded(crate::binding::CHECK, task) {
        Ok(task) => task,
        Err(f) => return ("no task".into(), vec![*f]),
    };
    // The standing and its refusals need no evidence: the pins are
    // `handover`'s business, and the receipts check reads the receipts.
    match load_and_judge(ctx, policy, &naming_of(t)) {
        Ok((_, judgement)) => (
            format!("task {} is {}", t.record.id, judgement.standing.as_str()),
            findings(&judgement),
        ),
        Err(f) => (
            "the binding could not be asked".into(),
            vec![Finding::unknown(
                crate::binding::CHECK,
                "input_unreadable",
                f.message,
                "fix .gate/plan.yaml or .gate/policy.yaml, then check again".into(),
            )],
        ),
    }
}

/// The binding of a range (`gate check --range BASE..TIP`, CI; docs/ci.md):
/// every task the range touches is asked again from its record at TIP,
/// against TIP's plan and each trusted revision's (the range's base, or
/// `--policy-from REV`; docs/trust.md, "The plan's trust"), and against the
/// trusted plan for the names its record there gives. A refusal either plan
/// gives counts: a range cannot bind its work by changing the plan it is
/// judged by (reopening an issue, resolving its own critique). No local
/// state is read.
pub fn range_check(
    repo: &crate::git::Repo,
    policy: &Policy,
    spec: &str,
    trusted: &[super::range_rules::Trusted],
) -> (String, Vec<Finding>) {
    use super::range_rules;
    let check = crate::binding::CHECK;
    let range = match crate::provenance::parse_range(repo, spec) {
        Ok(range) => range,
        Err(f) => return ("range unreadable".into(), vec![f.reported_by(check)]),
    };
    let tip = range.tip;
    let at = |task: Option<&str>| Subject {
        commit: Some(tip.to_hex()),
        task: task.map(str::to_string),
        ..Subject::default()
    };
    let key = policy.provenance.trailer.as_deref().unwrap_or("Task");
    let ids = match range_rules::tasks_touched(repo, tip, &range.base.hidden(), key) {
        Ok(ids) => ids,
        Err(e) => {
            let finding = Finding::unknown(
                check,
                "input_unreadable",
                format!("the range: {e}"),
                "repair the repository (fetch the full history), then check again".into(),
            )
            .with_subject(at(None));
            return ("range unreadable".into(), vec![finding]);
        }
    };
    if ids.is_empty() {
        return (
            format!("no task in {}: nothing to bind", range.label),
            Vec::new(),
        );
    }
    let plans = match range_rules::plans(repo, tip, trusted, check) {
        Ok(plans) => plans,
        Err(f) => return ("the plan could not be read".into(), vec![*f]),
    };
    let empty = Plan::default();
    let mut findings = Vec::new();
    let mut standings = Vec::new();
    for id in &ids {
        let records = match range_rules::records(repo, tip, &plans, id) {
            Ok(records) => records,
            Err(why) => {
                findings.push(
                    Finding::unknown(
                        check,
                        "input_unreadable",
                        format!("task {id}, named in {}: {why}", range.label),
                        "commit the task's record (.gate/tasks/ID.md) with the work, then check again".into(),
                    )
                    .with_subject(at(Some(id))),
                );
                standings.push(format!("{id} unknown"));
                continue;
            }
        };
        let naming = naming_of(&records.tip);
        let judgement = binding::judge(plans.tip.as_ref().unwrap_or(&empty), policy, &naming);
        let mut refusals: Vec<(binding::Refusal, Option<&str>)> = judgement
            .refusals
            .iter()
            .map(|r| (r.clone(), None))
            .collect();
        for (n, (side, plan)) in plans.trusted.iter().enumerate() {
            let Some(plan) = plan else { continue };
            let mut asked = vec![naming.clone()];
            for (_, t) in records.trusted.iter().filter(|(m, _)| *m == n) {
                let theirs = naming_of(t);
                if theirs != naming {
                    asked.push(theirs);
                }
            }
            for naming in &asked {
                for r in binding::judge(plan, policy, naming).refusals {
                    let same = |(o, _): &(binding::Refusal, Option<&str>)| {
                        o.cause == r.cause && o.issue == r.issue && o.message == r.message
                    };
                    if !refusals.iter().any(same) {
                        refusals.push((r, Some(side.named.as_str())));
                    }
                }
            }
        }
        // Bound means the issue's paths: under `binding: required` the
        // task's scope (its recorded globs and additions) stays inside the
        // paths the trusted plan gives its issue (docs/binding.md).
        let mut beyond = Vec::new();
        let record = &records.tip.record;
        if policy.binding == crate::policy::Mode::Required
            && (record.issue.is_some() || record.intent.is_some())
        {
            for (side, plan) in &plans.trusted {
                let Some(plan) = plan else { continue };
                beyond.extend(beyond_issue(
                    check,
                    &records.tip,
                    (plan, &side.named),
                    plans.tip.as_ref(),
                    tip,
                ));
            }
        }
        let standing = match refusals.is_empty() && beyond.is_empty() {
            true => judgement.standing.as_str(),
            false => "refused",
        };
        findings.append(&mut beyond);
        standings.push(format!("{id} {standing}"));
        for (r, by) in refusals {
            let (message, decide) = match by {
                None => (format!("task {id}: {}", r.message), r.decide),
                Some(by) => (
                    format!(
                        "task {id}: {} (by the plan at {by}, which the range cannot change)",
                        r.message
                    ),
                    format!(
                        "{}; a change of .gate/plan.yaml judges once it is on the base: land it on its own first (docs/trust.md)",
                        r.decide
                    ),
                ),
            };
            findings.push(
                Finding::blocker(check, r.cause, message, decide).with_subject(Subject {
                    at: At {
                        key: r.issue.as_ref().map(|i| format!("issue {i}")),
                        ..At::default()
                    }
                    .boxed(),
                    ..at(Some(id))
                }),
            );
        }
    }
    let summary = format!("tasks judged at {}: {}", tip.short(), standings.join(", "));
    (summary, findings)
}

/// Bound means the issue's paths: under `binding: required`, the task's
/// scope (`task`'s recorded globs and additions) stays inside the paths the
/// trusted plan (`trusted`, named for people) gives the issues it names
/// (`scope_beyond_issue`), and the tip's plan widening those paths is a
/// loosening of the plan, reported, judging nothing (`plan_loosened`;
/// docs/binding.md, docs/trust.md). Nothing when the trusted plan does not
/// have the issue: the binding's refusal says so. Pure.
pub fn beyond_issue(
    check: &'static str,
    task: &Task,
    (plan, trusted_at): (&Plan, &str),
    tip_plan: Option<&Plan>,
    tip: crate::git::Oid,
) -> Vec<Finding> {
    let (id, record) = (&task.record.id, &task.record);
    let at = || Subject {
        commit: Some(tip.to_hex()),
        task: Some(id.clone()),
        ..Subject::default()
    };
    let mut beyond = Vec::new();
    let issues =
        super::issue_paths::named_issues(plan, record.issue.as_deref(), record.intent.as_deref());
    if issues.is_empty() {
        return beyond;
    }
    let paths: Vec<String> = issues.iter().flat_map(|i| i.paths.clone()).collect();
    let named: Vec<String> = issues.iter().map(|i| format!("issue {}", i.id)).collect();
    if let Some(tip_plan) = tip_plan {
        let at_tip = super::issue_paths::named_issues(
            tip_plan,
            record.issue.as_deref(),
            record.intent.as_deref(),
        );
        let widened: Vec<String> = at_tip
            .iter()
            .flat_map(|i| i.paths.iter())
            .filter(|p| !super::issue_paths::covers(&paths, p))
            .cloned()
            .collect();
        if !widened.is_empty() {
            beyond.push(
                Finding::blocker(
                    check,
                    "plan_loosened",
                    format!(
                        "task {id}: the tip {}'s plan widens the paths of {} beyond the plan at {trusted_at} ({}); the trusted paths judge",
                        tip.short(),
                        named.join(", "),
                        widened.join(", ")
                    ),
                    "change an issue's paths on its own (a governance task) and have the plan's owners land it on the base: from there it judges (docs/trust.md)".into(),
                )
                .with_subject(Subject { at: At { file: Some(crate::plan::PLAN_PATH.into()), ..At::default() }.boxed(), ..at() }),
            );
        }
    }
    for glob in task.scope() {
        if !super::issue_paths::covers(&paths, &glob) {
            beyond.push(
                Finding::blocker(
                    check,
                    "scope_beyond_issue",
                    format!(
                        "task {id}: its scope {glob} lies outside the paths of {} in the plan at {trusted_at}, which the range cannot change",
                        named.join(", "),
                    ),
                    "narrow the task's scope to its issue's paths (a new task for the rest), or widen the issue's paths in .gate/plan.yaml on its own and land that first (governance work: docs/policy.md#governance)".into(),
                )
                .with_subject(at()),
            );
        }
    }
    beyond
}

#[cfg(test)]
mod tests {
    //! The range rules of the binding on plain data: `scope_beyond_issue`
    //! and `plan_loosened` (docs/causes.md), with no repository.

    use super::*;
    use crate::task::{self, Exemption, Pins, TASK_SCHEMA, TaskRecord, TaskStatus};

    fn plan(paths: &str) -> Plan {
        let text = format!("issues:\n  - {{id: \"42\", title: t, paths: {paths}, status: open}}\n");
        crate::plan::parse(std::path::Path::new("plan.yaml"), &text).unwrap()
    }

    /// A task for issue 42 with `scope`, and `added` appended by `gate
    /// task scope add`.
    fn task(scope: &[&str], added: &[&str]) -> Task {
        let record = TaskRecord {
            schema: TASK_SCHEMA.into(),
            id: "T-42".into(),
            status: TaskStatus::Active,
            created_at: "2026-11-29T22:40:00Z".into(),
            created_by: "gate start".into(),
            operator: "Ada".into(),
            baseline: "0123456789abcdef0123456789abcdef01234567".into(),
            scope: scope.iter().map(|s| s.to_string()).collect(),
            issue: Some("42".into()),
            intent: None,
            exemption: None::<Exemption>,
            pins: Pins::default(),
        };
        let entries: String = added
            .iter()
            .map(|glob| {
                crate::brief::render_scope("2026-11-30T11:00:00Z", "Ada", glob, "it belongs")
            })
            .collect();
        let body = crate::task::format::render_new_body("Do it.\n")
            .replace("## Addenda\n\n", &format!("## Addenda\n\n{entries}"));
        let text = task::render(&record, &body);
        task::parse(std::path::Path::new(".gate/tasks/T-42.md"), text).unwrap()
    }

    fn tip() -> crate::git::Oid {
        crate::git::Oid::from_hex("1111111111111111111111111111111111111111").unwrap()
    }

    fn causes(found: &[Finding]) -> Vec<&'static str> {
        found.iter().map(|f| f.cause).collect()
    }

    #[test]
    fn a_scope_inside_the_trusted_paths_is_bound() {
        let trusted = plan("[\"src/**\"]");
        let found = beyond_issue(
            "binding",
            &task(&["src/**"], &[]),
            (&trusted, "main"),
            Some(&trusted),
            tip(),
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn a_glob_outside_the_issues_paths_is_beyond_it_additions_too() {
        let trusted = plan("[\"src/**\"]");
        let found = beyond_issue(
            "binding",
            &task(&["src/**", "docs/**"], &["lib/**"]),
            (&trusted, "origin/main"),
            None,
            tip(),
        );
        assert_eq!(causes(&found), ["scope_beyond_issue", "scope_beyond_issue"]);
        assert!(
            found[0].message.contains(
                "its scope docs/** lies outside the paths of issue 42 in the plan at origin/main"
            ),
            "{}",
            found[0].message
        );
        assert!(
            found[1].message.contains("its scope lib/**"),
            "{}",
            found[1].message
        );
        assert_eq!(found[0].severity, crate::verdict::Severity::Blocker);
        assert_eq!(found[0].subject.task.as_deref(), Some("T-42"));
        assert_eq!(found[0].subject.commit, Some(tip().to_hex()));
    }

    /// The tip's plan giving the issue wider paths is reported and judges
    /// nothing: the scope is still held to the trusted paths.
    #[test]
    fn a_tip_plan_widening_the_paths_is_a_loosening_that_judges_nothing() {
        let trusted = plan("[\"src/**\"]");
        let widened = plan("[\"src/**\", \"docs/**\"]");
        let found = beyond_issue(
            "binding",
            &task(&["src/**", "docs/**"], &[]),
            (&trusted, "main"),
            Some(&widened),
            tip(),
        );
        assert_eq!(causes(&found), ["plan_loosened", "scope_beyond_issue"]);
        assert!(
            found[0]
                .message
                .contains("widens the paths of issue 42 beyond the plan at main (docs/**)"),
            "{}",
            found[0].message
        );
        assert_eq!(
            found[0].subject.at().file.as_deref(),
            Some(crate::plan::PLAN_PATH)
        );
    }

    #[test]
    fn a_trusted_plan_without_the_issue_leaves_it_to_the_binding() {
        let other = crate::plan::parse(std::path::Path::new("plan.yaml"), "issues: []\n").unwrap();
        let found = beyond_issue(
            "binding",
            &task(&["docs/**"], &[]),
            (&other, "main"),
            None,
            tip(),
        );
        assert!(found.is_empty(), "{found:?}");
    }
}
