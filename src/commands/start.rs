//! `gate start`: create a task that names what it serves, keep the
//! operator's brief byte for byte, and make it this worktree's active task.
//!
//! The binding (docs/binding.md) is asked when a naming flag is given, and at
//! every start under `binding: advisory` or `required`. A naming flag is a
//! question: a refused or unreadable answer never starts a task, whatever the
//! policy; without a flag, `advisory` warns and `required` refuses. Nothing
//! is written unless the start goes on. The task records the names and the
//! two pins — never a standing.

use std::path::Path;

use crate::binding::{Judgement, Naming, Standing};
use crate::checks::binding::{derive, load_and_judge};
use crate::cli::StartArgs;
use crate::clock::Timestamp;
use crate::ctx::{Ctx, commit_of, task_ref};
use crate::error::Failure;
use crate::fsutil;
use crate::git::Head;
use crate::plan::{IssueStatus, Plan};
use crate::policy::Mode;
use crate::report::human;
use crate::report::json;
use crate::report::wire::start::{START_SCHEMA, StartWire};
use crate::scope::Scope;
use crate::started::started_path;
use crate::task::fresh::InUse;
use crate::task::{self as tasks, Exemption, TASK_SCHEMA, TaskRecord, TaskStatus};
use crate::ui::{Answer, Shown, Ui};
use crate::verdict::ExitCode;

/// What the task names, once checked.
struct Named {
    issue: Option<String>,
    intent: Option<String>,
    exemption: Option<Exemption>,
    /// The scope the naming implies when `--scope` is not given.
    default_scope: Vec<String>,
}

pub fn run(dir: Option<&Path>, args: &StartArgs, ui: &Ui) -> Result<Answer, Failure> {
    let ctx = Ctx::open(dir)?;
    let policy = ctx.policy()?.policy;
    let head = ctx.repo.head()?;
    let (baseline, branch) = match &head {
        Head::Unborn { branch } => {
            return Err(Failure::refused(format!(
                "{branch} has no commit yet, so there is no baseline"
            ))
            .hint("make a first commit, then start the task"));
        }
        Head::Detached { id } => (*id, None),
        Head::Branch { id, branch } => (*id, Some(branch)),
    };
    let naming = crate::checks::binding::given_naming(&ctx, &args.naming)?;
    // Everything is judged before anything is written.
    let in_use = InUse::gather(&ctx.repo).map_err(|m| {
        Failure::unknown(format!(
            "which task ids are in use cannot be told, so the task was not started: {m}"
        ))
        .hint("repair the repository (git fsck), or remove the ref that cannot be read")
    })?;
    let id_hint = match &args.id {
        Some(id) => {
            crate::ids::task_id(id)
                .map_err(|m| Failure::usage(format!("invalid task id `{id}`: {m}")))?;
            if let Some(place) = in_use
                .place(ctx.root(), &ctx.repo.common_dir(), id)
                .map_err(|m| {
                    Failure::unknown(format!(
                        "whether task id `{id}` is free cannot be told: {m}"
                    ))
                })?
            {
                return Err(Failure::refused(format!(
                    "task id `{id}` is taken: {place}; nothing was written"
                ))
                .hint("choose another id with --id, or leave --id out for a fresh one (T-<issue>-<5 characters>)"));
            }
            id.clone()
        }
        None => String::new(),
    };
    let asks = naming.asks();
    let mut warnings = Vec::new();
    // The standing needs no evidence; the pins are asked for below, under
    // the task's own id, once the record's names are known.
    let judged = if asks || policy.binding != Mode::Off {
        match load_and_judge(&ctx, &policy, &naming) {
            Ok(j) => Some(j),
            Err(f) if asks || policy.binding == Mode::Required => {
                let message = format!(
                    "the binding could not be asked, so the task was not started: {}",
                    f.message
                );
                return Err(f.as_unknown().reworded(message));
            }
            Err(f) => {
                warnings.push(format!("binding unknown (advisory): {}", f.message));
                None
            }
        }
    } else {
        None
    };
    if let Some((_, judgement)) = &judged
        && judgement.standing == Standing::Refused
    {
        let refusals: Vec<String> = judgement
            .refusals
            .iter()
            .map(|r| format!("{}: {}\n    decide: {}", r.cause, r.message, r.decide))
            .collect();
        if asks || policy.binding == Mode::Required {
            let why = if asks {
                "a naming flag is a question, and the answer is no"
            } else {
                "the policy requires a binding"
            };
            return Err(Failure::refused(format!(
                "the binding refused this start ({why}); nothing was written:\n  {}",
                refusals.join("\n  ")
            )));
        }
        warnings.push(format!(
            "binding refused (advisory: the start goes on):\n    {}",
            refusals.join("\n    ")
        ));
    }
    let (plan, judgement) = match judged {
        Some((plan, judgement)) => (plan, Some(judgement)),
        // Not asked (or unanswerable under advisory) and nothing named:
        // the record names nothing, so the plan has nothing to give.
        None => (Plan::default(), None),
    };
    let recorded = recorded_names(&plan, &naming, judgement.as_ref());
    let scope = if args.scope.is_empty() {
        recorded.default_scope.clone()
    } else {
        args.scope
            .iter()
            .map(|g| ctx.from_cwd("--scope", g))
            .collect::<Result<_, _>>()?
    };
    if scope.is_empty() {
        return Err(
            Failure::usage("the task has no scope: nothing named implies one")
                .hint("give the paths the work may touch with --scope GLOB (repeatable)"),
        );
    }
    // Bound means the issue's paths: under `binding: required` a scope
    // given beyond them is refused, as `gate task scope add` refuses it.
    if policy.binding == Mode::Required && !args.scope.is_empty() {
        for glob in &scope {
            crate::checks::issue_paths::within_named_paths(
                &ctx,
                "the task",
                recorded.issue.as_deref(),
                recorded.intent.as_deref(),
                glob,
            )?;
        }
    }
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
    let brief = read_brief(ui, args.brief.as_deref())?;
    let id = if id_hint.is_empty() {
        in_use
            .fresh(
                ctx.root(),
                &ctx.repo.common_dir(),
                &default_id(&recorded),
                &start_seed(&ctx, &operator),
            )
            .map_err(|m| {
                Failure::unknown(format!(
                    "no free task id could be made, so the task was not started: {m}"
                ))
                .hint("name one with --id ID")
            })?
    } else {
        id_hint.clone()
    };
    // The pins are what `handover --resolve`, `gate check` and the hooks
    // compare with later, and they ask with the names the record keeps (not
    // the paths): ask that question now, under this task's id, whose
    // receipts are its evidence.
    let recorded_naming = crate::checks::binding::recorded_naming(
        recorded.issue.as_ref(),
        recorded.intent.as_ref(),
        recorded.exemption.as_ref(),
    );
    let pins =
        match &judgement {
            Some(_) if recorded_naming.asks() => derive(
                &ctx,
                &policy,
                &recorded_naming,
                Some((id.as_str(), baseline)),
            )
            .map_err(|f| {
                let message = format!(
                    "the binding could not be asked for the pins, so the task was not started: {}",
                    f.message
                );
                f.as_unknown().reworded(message)
            })?
            .pins,
            _ => Default::default(),
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
        issue: recorded.issue,
        intent: recorded.intent,
        exemption: recorded.exemption,
        pins,
    };
    Scope::new(&record.scope, &id).map_err(|m| Failure::usage(format!("--scope: {m}")))?;
    let file = tasks::create(ctx.root(), &ctx.state_dir(), &record, &brief)?;
    tasks::active::set(&ctx.repo.git_dir(), &id)?;
    // The task exists and is active: a start record that cannot be written
    // costs only post-checkout's re-pointing, so it is a warning, not a
    // failure that a second `gate start` would meet as "already exists".
    if let Some(branch) = branch
        && let Err(f) = record_branch(&ctx, &id, branch)
    {
        warnings.push(format!(
            "the branch it was started on was not recorded ({}): checking it out again will not re-activate the task",
            f.message
        ));
    }
    let task = tasks::load(ctx.root(), &id)?;
    // The version the doors judge the task's frozen fields by until its
    // file is committed (docs/trust.md).
    if let Err(e) = crate::checks::recorded::record_start(&ctx.repo.common_dir(), &id, &task.text) {
        warnings.push(format!(
            "the task's fields were not recorded ({e}): until its file is committed, the doors read them from the work tree"
        ));
    }
    let commit = commit_of(&ctx, &id, "start");
    Ok(Answer::document(
        ExitCode::Pass,
        StartAnswer {
            id,
            file,
            baseline,
            scope,
            notes: policy.notes,
            binding: judgement.map(|j| (plan, j)),
            warnings,
            task: task_ref(&task),
            commit,
        },
    ))
}

/// What `gate start` answers: the task started and what was said of it.
struct StartAnswer {
    id: String,
    file: std::path::PathBuf,
    baseline: crate::git::Oid,
    scope: Vec<String>,
    /// The policy's notes.
    notes: Vec<String>,
    /// The plan and the binding's judgement, when the binding was asked.
    binding: Option<(Plan, Judgement)>,
    warnings: Vec<String>,
    task: crate::verdict::TaskRef,
    commit: crate::ctx::TaskCommit,
}

impl Shown for StartAnswer {
    type Wire<'a> = StartWire<'a>;
    fn wire(&self) -> StartWire<'_> {
        StartWire {
            schema: START_SCHEMA,
            task: json::task(&self.task),
            baseline: self.baseline.to_hex(),
            scope: &self.scope,
            binding: self.binding.as_ref().map(|(_, j)| j.standing.as_str()),
            notes: &self.notes,
            warnings: &self.warnings,
            commit: self.commit.clone().into(),
        }
    }
    fn text(&self) -> String {
        human::started(&human::Started {
            id: &self.id,
            file: &self.file,
            baseline: self.baseline,
            scope: &self.scope,
            notes: &self.notes,
            binding: self.binding.as_ref().map(|(plan, j)| (plan, j)),
            warnings: &self.warnings,
            task: &self.task,
        })
    }
}

/// What the task records: the names (resolved from paths when paths named
/// one issue or one intent), and the scope they imply.
fn recorded_names(plan: &Plan, naming: &Naming, judgement: Option<&Judgement>) -> Named {
    if let Some(class) = &naming.exempt {
        return Named {
            issue: None,
            intent: None,
            exemption: Some(Exemption {
                class: class.clone(),
                because: naming.because.clone().unwrap_or_default(),
            }),
            default_scope: vec![],
        };
    }
    let paths_of = |ids: &[String]| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for id in ids {
            for p in plan.issue(id).map(|i| i.paths.clone()).unwrap_or_default() {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        out
    };
    if let Some(issue) = &naming.issue {
        return Named {
            issue: Some(issue.clone()),
            intent: naming.intent.clone(),
            exemption: None,
            default_scope: paths_of(std::slice::from_ref(issue)),
        };
    }
    if let Some(intent) = &naming.intent {
        let open: Vec<String> = plan
            .issues
            .iter()
            .filter(|i| {
                i.intent.as_deref() == Some(intent.as_str()) && i.status == IssueStatus::Open
            })
            .map(|i| i.id.clone())
            .collect();
        return Named {
            issue: None,
            intent: Some(intent.clone()),
            exemption: None,
            default_scope: paths_of(&open),
        };
    }
    match judgement {
        Some(j) if !naming.paths.is_empty() => {
            // Bound to one intent: the covering issues under it (maintenance
            // issues covering the same paths are not what the work serves).
            let serving: Vec<String> = match j.intents.as_slice() {
                [intent] => j
                    .issues
                    .iter()
                    .filter(|i| {
                        plan.issue(i).and_then(|i| i.intent.as_deref()) == Some(intent.as_str())
                    })
                    .cloned()
                    .collect(),
                _ => j.issues.clone(),
            };
            let (issue, intent) = match (serving.as_slice(), j.intents.as_slice()) {
                ([one], _) => (Some(one.clone()), None),
                (_, [one]) => (None, Some(one.clone())),
                // Maintenance under several issues: each judges the same
                // (maintenance), so the record names the first; without a
                // name, every later door would find nothing named.
                ([first, ..], []) => (Some(first.clone()), None),
                _ => (None, None),
            };
            Named {
                issue,
                intent,
                exemption: None,
                default_scope: paths_of(&serving),
            }
        }
        _ => Named {
            issue: None,
            intent: None,
            exemption: None,
            default_scope: vec![],
        },
    }
}

/// Read the brief from a file or stdin (`-`), verbatim: UTF-8, not blank,
/// at most [`crate::ui::MAX_INPUT_BYTES`].
fn read_brief(ui: &Ui, spec: Option<&str>) -> Result<String, Failure> {
    let Some(spec) = spec else {
        return Err(
            Failure::usage("a task needs the operator's brief, verbatim")
                .hint("pass --brief - with the request on stdin (`--brief - <<'EOF'` … `EOF`), or --brief FILE"),
        );
    };
    let bytes = ui.read_input(spec, "--brief")?;
    let text = String::from_utf8(bytes).map_err(|e| {
        Failure::refused(format!(
            "--brief {spec}: not UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    if text.trim().is_empty() {
        let hint = if spec == "-" {
            "stdin held nothing: pipe the brief in or use a here-doc (`--brief - <<'EOF'` … `EOF`)"
        } else {
            "write the operator's request into the file, verbatim"
        };
        return Err(Failure::refused(format!("--brief {spec}: the brief is empty")).hint(hint));
    }
    Ok(text)
}

/// The name part of the default id — `T-<issue>`, `T-<intent>`,
/// `T-<class>`, else `T-task` — to which [`InUse::fresh`] adds the fresh
/// part (decision 0024).
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
    base.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// What the fresh part of a default id is drawn from besides the clock and
/// the random sources: who starts, and where.
fn start_seed(ctx: &Ctx, operator: &str) -> Vec<u8> {
    let email = ctx.repo.config_string("user.email").unwrap_or_default();
    let mut seed = Vec::new();
    for part in [operator, email.as_str(), &ctx.root().to_string_lossy()] {
        seed.extend_from_slice(part.as_bytes());
        seed.push(0);
    }
    seed
}

/// Remember the branch a task was started on, for post-checkout
/// (`<common-dir>/gate/started/<ID>`; local state, never committed).
fn record_branch(ctx: &Ctx, id: &str, branch: &str) -> Result<(), Failure> {
    let path = started_path(&ctx.repo.common_dir(), id);
    fsutil::write_atomic(&path, format!("{branch}\n").as_bytes(), None)?;
    Ok(())
}
