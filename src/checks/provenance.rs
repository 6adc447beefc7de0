//! The provenance check's inputs: the range a target proves (`--range`, or
//! the task's `baseline..HEAD`), the tasks its commits may name, and, for a
//! range, a change of the policy inside it; the commits are judged by
//! [`crate::provenance::check`] (docs/provenance.md).

use crate::checks::Target;
use crate::checks::TaskState;
use crate::checks::loaded;
use crate::checks::trusted;
use crate::checks::unreadable_task;
use crate::ctx::Ctx;
use crate::policy::LoadedPolicy;
use crate::provenance;
use crate::verdict::Finding;

pub fn check(
    ctx: &Ctx,
    policy: &LoadedPolicy,
    task: &TaskState,
    target: &Target,
) -> (String, Vec<Finding>) {
    let range = match target {
        Target::Range(spec) => match provenance::parse_range(&ctx.repo, spec) {
            Ok(r) => r,
            Err(f) => return ("range unreadable".into(), vec![*f]),
        },
        _ => {
            let t = match loaded(provenance::CHECK, task) {
                Ok(task) => task,
                Err(f) => return ("no task".into(), vec![*f]),
            };
            match provenance::task_range(&ctx.repo, t) {
                Ok(r) => r,
                Err(f) => return ("range unreadable".into(), vec![*f]),
            }
        }
    };
    let default_task = match task {
        TaskState::Loaded(t) => Some(t.as_ref()),
        _ => None,
    };
    let tasks = provenance::TaskSet::gather_held(
        &ctx.repo,
        Some(ctx.root()),
        range.tip,
        default_task,
        &range.base.hidden(),
    );
    let opts = provenance::Options {
        task_range: matches!(target, Target::Task),
        progress: ctx.progress,
        ..provenance::Options::default()
    };
    let (summary, mut findings) =
        provenance::check(&ctx.repo, &policy.policy, &tasks, &range, &opts);
    findings.extend(unreadable_task(provenance::CHECK, task));
    if let Target::Range(_) = target {
        findings.extend(trusted::changed_findings(
            &ctx.repo,
            policy,
            &range.base.hidden(),
            range.tip,
            provenance::CHECK,
            crate::verdict::Severity::Blocker,
        ));
    }
    (summary, findings)
}
