//! `gate start`: create a task that names what it serves, keep the
//! operator's brief byte for byte, and make it this worktree's active task.
//!
//! Naming is checked against the plan: a named issue, intent or exemption
//! must exist (and be open, active or declared). A naming flag is a question:
//! when its answer is a refusal nothing is written.

use std::io::Read;
use std::path::Path;

use super::{Ctx, Failure, out, task_ref};
use crate::cli::StartArgs;
use crate::clock::Timestamp;
use crate::fsutil;
use crate::git::Head;
use crate::plan::{IntentStatus, IssueStatus, Plan};
use crate::policy::Policy;
use crate::report::human;
use crate::scope::Scope;
use crate::task::{self as tasks, Exemption, Pins, TASK_SCHEMA, TaskRecord, TaskStatus};

/// Inputs longer than this are refused (SPEC: briefs and addenda up to 100 KiB).
pub const MAX_INPUT_BYTES: usize = 100 * 1024;

/// What the task names, once checked.
struct Named {
    issue: Option<String>,
    intent: Option<String>,
    exemption: Option<Exemption>,
    /// The scope the naming implies when `--scope` is not given.
    default_scope: Vec<String>,
}

pub fn run(dir: Option<&Path>, args: &StartArgs) -> Result<i32, Failure> {
    let ctx = Ctx::open(dir)?;
    let policy = ctx.policy()?.policy;
    let plan = ctx.plan()?.map(|p| p.plan);
    // Everything is judged before anything is written.
    let named = judge_naming(args, &policy, plan.as_ref())?;
    let scope = if args.scope.is_empty() {
        named.default_scope.clone()
    } else {
        args.scope.clone()
    };
    if scope.is_empty() {
        return Err(
            Failure::usage("the task has no scope: nothing named implies one")
                .hint("give the paths the work may touch with --scope GLOB (repeatable)"),
        );
    }
    let baseline = match ctx.repo.head()? {
        Head::Unborn { branch } => {
            return Err(Failure::refused(format!(
                "{branch} has no commit yet, so there is no baseline"
            ))
            .hint("make a first commit, then start the task"));
        }
        Head::Detached { id } | Head::Branch { id, .. } => id,
    };
    let operator = match &args.operator {
        Some(o) if !o.trim().is_empty() => o.clone(),
        Some(_) => return Err(Failure::usage("--operator must not be blank")),
        None => ctx
            .repo
            .config_string("user.name")
            .filter(|n| !n.trim().is_empty())
            .ok_or_else(|| {
                Failure::usage("no operator: git user.name is unset").hint("pass --operator NAME")
            })?,
    };
    let brief = read_brief(args.brief.as_deref())?;
    let id = match &args.id {
        Some(id) => {
            crate::ids::task_id(id)
                .map_err(|m| Failure::usage(format!("invalid task id `{id}`: {m}")))?;
            id.clone()
        }
        None => free_id(ctx.root(), &default_id(&named)),
    };
    let record = TaskRecord {
        schema: TASK_SCHEMA.into(),
        id: id.clone(),
        status: TaskStatus::Active,
        created_at: Timestamp::now().to_string(),
        created_by: "gate start".into(),
        operator,
        baseline: baseline.to_hex(),
        scope: scope.clone(),
        issue: named.issue,
        intent: named.intent,
        exemption: named.exemption,
        pins: Pins::default(),
    };
    Scope::new(&record.scope, &id).map_err(|m| Failure::usage(format!("--scope: {m}")))?;
    let file = tasks::create(ctx.root(), &record, &brief)?;
    tasks::active::set(&ctx.repo.git_dir(), &id)?;
    if let Head::Branch { branch, .. } = ctx.repo.head()? {
        record_branch(&ctx, &id, &branch)?;
    }
    let task = tasks::load(ctx.root(), &id)?;
    let mut text = format!(
        "started task {id}: {} · baseline {}\n",
        file.display(),
        baseline.short()
    );
    text.push_str(&format!("  scope: {}\n", scope.join(", ")));
    text.push_str(&human::task_lines(&task_ref(&task)));
    text.push_str("it is now this worktree's active task; commit its file with the work\n");
    out(&text);
    Ok(0)
}

/// Check the naming flags against policy and plan; every fault is reported
/// together, and any fault refuses the start.
fn judge_naming(args: &StartArgs, policy: &Policy, plan: Option<&Plan>) -> Result<Named, Failure> {
    let mut faults: Vec<String> = Vec::new();
    if let Some(class) = &args.exempt {
        // An exemption is judged alone.
        if !policy.exemptions.iter().any(|e| &e.id == class) {
            let declared: Vec<&str> = policy.exemptions.iter().map(|e| e.id.as_str()).collect();
            faults.push(format!(
                "unknown_exemption: `{class}` is not declared in the policy (declared: {})",
                if declared.is_empty() {
                    "none".to_string()
                } else {
                    declared.join(", ")
                }
            ));
        }
        let because = args.because.as_deref().unwrap_or("");
        if because.trim().is_empty() {
            faults.push("exemption_without_reason: --because is blank".into());
        }
        if args.issue.is_some() || args.intent.is_some() || !args.paths.is_empty() {
            faults.push(
                "exemption_names_work: an exemption cannot name an issue, intent or paths too"
                    .into(),
            );
        }
        return refuse_or(faults, || Named {
            issue: None,
            intent: None,
            exemption: Some(Exemption {
                class: class.clone(),
                because: because.to_string(),
            }),
            default_scope: vec![],
        });
    }
    if args.issue.is_none() && args.intent.is_none() && args.paths.is_empty() {
        return Ok(Named {
            issue: None,
            intent: None,
            exemption: None,
            default_scope: vec![],
        });
    }
    let Some(plan) = plan else {
        return Err(
            Failure::refused("the task names plan work, but there is no .gate/plan.yaml").hint(
                "run `gate init` and describe the work in .gate/plan.yaml, or start without naming",
            ),
        );
    };
    if let Some(id) = &args.issue {
        let Some(issue) = plan.issue(id) else {
            return Err(Failure::refused(format!(
                "unknown_issue: no issue `{id}` in .gate/plan.yaml"
            )));
        };
        if issue.status == IssueStatus::Closed {
            faults.push(format!("issue `{id}` is closed"));
        }
        if let Some(intent) = &args.intent
            && issue.intent.as_deref() != Some(intent.as_str())
        {
            faults.push(format!(
                "issue_outside_intent: issue `{id}` serves {}, not intent `{intent}`",
                issue
                    .intent
                    .as_deref()
                    .map_or("no intent".to_string(), |i| format!("intent `{i}`"))
            ));
        }
        return refuse_or(faults, || Named {
            issue: Some(id.clone()),
            intent: args.intent.clone(),
            exemption: None,
            default_scope: issue.paths.clone(),
        });
    }
    if let Some(id) = &args.intent {
        let Some(intent) = plan.intent(id) else {
            return Err(Failure::refused(format!(
                "unknown_intent: no intent `{id}` in .gate/plan.yaml"
            )));
        };
        if intent.status == IntentStatus::Retired {
            faults.push(format!("intent_retired: intent `{id}` is retired"));
        }
        let open: Vec<_> = plan
            .issues
            .iter()
            .filter(|i| i.intent.as_deref() == Some(id.as_str()) && i.status == IssueStatus::Open)
            .collect();
        if open.is_empty() {
            faults.push(format!(
                "intent_has_no_open_work: no open issue serves intent `{id}`"
            ));
        }
        let scope = open.iter().flat_map(|i| i.paths.iter().cloned()).collect();
        return refuse_or(faults, || Named {
            issue: None,
            intent: Some(id.clone()),
            exemption: None,
            default_scope: scope,
        });
    }
    // Paths alone: the one open issue whose paths cover them all.
    let mut covering = Vec::new();
    for issue in plan.issues.iter().filter(|i| i.status == IssueStatus::Open) {
        let scope = Scope::new(&issue.paths, "-")
            .map_err(|m| Failure::unknown(format!("issue `{}` paths: {m}", issue.id)))?;
        if args
            .paths
            .iter()
            .all(|p| scope.contains(&p.as_str().into()))
        {
            covering.push(issue);
        }
    }
    match covering.as_slice() {
        [issue] => Ok(Named {
            issue: Some(issue.id.clone()),
            intent: None,
            exemption: None,
            default_scope: issue.paths.clone(),
        }),
        [] => Err(Failure::refused(format!(
            "no_issue_covers_paths: no open issue's paths cover {}",
            args.paths.join(", ")
        ))
        .hint("name the issue with --issue ID, or add the paths to an issue in .gate/plan.yaml")),
        many => Err(Failure::refused(format!(
            "more than one open issue covers these paths: {}",
            many.iter()
                .map(|i| i.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .hint("name the issue with --issue ID")),
    }
}

fn refuse_or(faults: Vec<String>, named: impl FnOnce() -> Named) -> Result<Named, Failure> {
    if faults.is_empty() {
        Ok(named())
    } else {
        Err(Failure::refused(format!(
            "the start is refused:\n  {}",
            faults.join("\n  ")
        )))
    }
}

/// Read the brief from a file or stdin (`-`), verbatim: UTF-8, not blank,
/// at most [`MAX_INPUT_BYTES`].
fn read_brief(spec: Option<&str>) -> Result<String, Failure> {
    let Some(spec) = spec else {
        return Err(
            Failure::usage("a task needs the operator's brief, verbatim")
                .hint("pass --brief FILE, or --brief - to read it from stdin"),
        );
    };
    let bytes = read_input(spec, "--brief")?;
    let text = String::from_utf8(bytes).map_err(|e| {
        Failure::refused(format!(
            "--brief {spec}: not UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    if text.trim().is_empty() {
        return Err(Failure::refused(format!(
            "--brief {spec}: the brief is empty"
        )));
    }
    Ok(text)
}

/// Read a verbatim input from a file or stdin (`-`), refusing more than
/// [`MAX_INPUT_BYTES`] without reading further.
pub fn read_input(spec: &str, flag: &str) -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    let limit = MAX_INPUT_BYTES as u64 + 1;
    let read = if spec == "-" {
        std::io::stdin().lock().take(limit).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(spec).and_then(|f| f.take(limit).read_to_end(&mut bytes))
    };
    read.map_err(|e| Failure::refused(format!("{flag} {spec}: {e}")))?;
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(Failure::refused(format!(
            "{flag} {spec}: over the {} KiB limit",
            MAX_INPUT_BYTES / 1024
        )));
    }
    Ok(bytes)
}

fn default_id(named: &Named) -> String {
    let base = if let Some(i) = &named.issue {
        format!("T-{i}")
    } else if let Some(i) = &named.intent {
        format!("T-{i}")
    } else if let Some(e) = &named.exemption {
        format!("T-{}", e.class)
    } else {
        "T-task".to_string()
    };
    // Keep the id valid whatever the names hold.
    let mut id: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    id.truncate(56);
    id
}

/// `base`, or `base-2`, `base-3`… whichever has no task file yet. (Creation
/// itself still refuses a taken id, so a race cannot overwrite.)
fn free_id(root: &Path, base: &str) -> String {
    let taken = |id: &str| root.join(tasks::task_file(id)).exists();
    if !taken(base) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|id| !taken(id))
        .expect("an unbounded range has a free id")
}

/// Remember the branch a task was started on, for post-checkout
/// (`<common-dir>/gate/started/<ID>`; local state, never committed).
fn record_branch(ctx: &Ctx, id: &str, branch: &str) -> Result<(), Failure> {
    let path = started_path(&ctx.repo.common_dir(), id);
    fsutil::write_atomic(&path, format!("{branch}\n").as_bytes(), None)?;
    Ok(())
}

/// Where the start branch of a task is recorded.
pub fn started_path(common_dir: &Path, id: &str) -> std::path::PathBuf {
    common_dir.join("gate").join("started").join(id)
}
