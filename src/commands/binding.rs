//! `gate binding`: ask the one derivation what a naming serves and whether
//! it may start. Read-only. Exits by its answer: refused 1, unknown 3,
//! otherwise 0 — whatever the policy's mode (the mode decides what a refusal
//! costs where work starts or moves: `start`, `check`, the hooks).

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::{Ctx, Failure, out};
use crate::binding::{self, Judgement, Naming, Pins, Standing};
use crate::cli::{BindingArgs, NamingArgs};
use crate::plan::Plan;
use crate::policy::Policy;
use crate::receipts::{self, Served, Store};
use crate::report::style::{self, Out};
use crate::report::text::shown_line;
use crate::report::{Finding, Severity, Subject, json};
use crate::task::Task;

/// A judgement with its pins, as every door sees it.
pub struct Derived {
    pub judgement: Judgement,
    pub served: Vec<Served>,
    pub states: Vec<&'static str>,
    pub pins: Pins,
}

/// Judge `naming` against the plan, without evidence: what the binding
/// check at each door asks. A plan that cannot be read is an error
/// (unknown); an absent plan judges against an empty one, which is returned
/// with the judgement.
pub fn judge(ctx: &Ctx, policy: &Policy, naming: &Naming) -> Result<(Plan, Judgement), Failure> {
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

/// [`judge`], then the pins, with evidence read now for `task_id` in this
/// worktree (only when the judgement serves criteria: a maintenance or
/// exempt task walks nothing).
pub fn derive(
    ctx: &Ctx,
    policy: &Policy,
    naming: &Naming,
    evidence_for: Option<(&str, crate::git::Oid)>,
) -> Result<Derived, Failure> {
    let (plan, judgement) = judge(ctx, policy, naming)?;
    let served = binding::served(&plan, &judgement);
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
        Some((_, baseline)) => crate::fingerprint::Touched::of_task(&ctx.repo, baseline)?,
        None => crate::fingerprint::Touched::none(),
    };
    let store = Store::new(&ctx.repo.common_dir());
    let worktree = super::verify::worktree_key(ctx);
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
    let rctx = receipts::Context {
        repo: &ctx.repo,
        store: &store,
        plan,
        policy,
        worktree: &worktree,
        task: evidence_for.map(|(id, _)| id),
        task_created_at: created_at.as_deref(),
        touched: &touched,
        index: None,
        prefetch: None,
    };
    let checks = receipts::evaluate(&rctx, &receipts::dependent_checks(served));
    Ok(served
        .iter()
        .map(|s| receipts::criterion_state(s, &checks))
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

/// What the command line names: each name trimmed (a blank one names
/// nothing), each `--path` made repository-relative from the directory gate
/// runs in (docs/binding.md).
pub fn given_naming(ctx: &Ctx, args: &NamingArgs) -> Result<Naming, Failure> {
    Ok(Naming {
        issue: binding::given_name(args.issue.as_deref()),
        intent: binding::given_name(args.intent.as_deref()),
        paths: args
            .paths
            .iter()
            .map(|p| ctx.from_cwd("--path", p))
            .collect::<Result<_, _>>()?,
        exempt: binding::given_name(args.exempt.as_deref()),
        because: args.because.clone(),
    })
}

/// The refusals of a judgement as findings of the `binding` check.
pub fn findings(j: &Judgement) -> Vec<Finding> {
    j.refusals
        .iter()
        .map(|r| Finding {
            check: binding::CHECK,
            cause: r.cause,
            severity: Severity::Blocker,
            unknown: false,
            message: r.message.clone(),
            decide: r.decide.clone(),
            subject: Subject {
                task: None,
                key: r.issue.as_ref().map(|i| format!("issue {i}")),
                ..Subject::default()
            },
        })
        .collect()
}

#[derive(Serialize)]
pub struct BindingWire<'a> {
    pub schema: &'static str,
    pub standing: &'static str,
    pub exit_code: i32,
    pub named: NamedWire<'a>,
    pub issues: &'a [String],
    pub intents: &'a [String],
    pub notes: &'a [String],
    pub refusals: Vec<RefusalWire<'a>>,
    pub pins: PinsWire<'a>,
    pub criteria: Vec<CriterionWire<'a>>,
}

#[derive(Serialize)]
pub struct NamedWire<'a> {
    pub issue: Option<&'a str>,
    pub intent: Option<&'a str>,
    pub paths: &'a [String],
    pub exemption: Option<ExemptionWire<'a>>,
}

#[derive(Serialize)]
pub struct ExemptionWire<'a> {
    pub class: &'a str,
    pub because: Option<&'a str>,
}

#[derive(Serialize)]
pub struct RefusalWire<'a> {
    pub issue: Option<&'a str>,
    pub cause: &'static str,
    pub message: &'a str,
    pub decide: &'a str,
}

/// The pins as JSON shows them (docs/json.md): `plan_pin`, and the same
/// value under its deprecated old name `plan_revision` — which a critique's
/// `intent_revision`, a different digest, was also once called.
#[derive(Serialize)]
pub struct PinsWire<'a> {
    pub plan_pin: &'a str,
    pub plan_revision: &'a str,
    pub evidence_standing: &'a str,
}

impl<'a> PinsWire<'a> {
    pub fn new(plan_pin: &'a str, evidence_standing: &'a str) -> PinsWire<'a> {
        PinsWire {
            plan_pin,
            plan_revision: plan_pin,
            evidence_standing,
        }
    }
}

#[derive(Serialize)]
pub struct CriterionWire<'a> {
    pub intent: &'a str,
    pub criterion: &'a str,
    pub state: &'static str,
}

pub fn wire(d: &Derived) -> BindingWire<'_> {
    let j = &d.judgement;
    BindingWire {
        schema: "gate.binding/1",
        standing: j.standing.as_str(),
        exit_code: if j.standing == Standing::Refused {
            1
        } else {
            0
        },
        named: NamedWire {
            issue: j.named.issue.as_deref(),
            intent: j.named.intent.as_deref(),
            paths: &j.named.paths,
            exemption: j.named.exempt.as_deref().map(|class| ExemptionWire {
                class,
                because: j.named.because.as_deref(),
            }),
        },
        issues: &j.issues,
        intents: &j.intents,
        notes: &j.notes,
        refusals: j
            .refusals
            .iter()
            .map(|r| RefusalWire {
                issue: r.issue.as_deref(),
                cause: r.cause,
                message: &r.message,
                decide: &r.decide,
            })
            .collect(),
        pins: PinsWire::new(&d.pins.plan_revision, &d.pins.evidence_standing),
        criteria: d
            .served
            .iter()
            .zip(&d.states)
            .map(|(s, state)| CriterionWire {
                intent: &s.intent,
                criterion: &s.criterion,
                state,
            })
            .collect(),
    }
}

/// The human rendering of an answer.
pub fn render(d: &Derived) -> String {
    let j = &d.judgement;
    let mut s = String::new();
    let standing = match j.standing {
        Standing::Refused => style::refused(Out::Stdout, "refused"),
        other => style::pass(Out::Stdout, other.as_str()),
    };
    let _ = writeln!(s, "binding: {standing}");
    let named = [
        j.named.issue.as_ref().map(|i| format!("issue {i}")),
        j.named.intent.as_ref().map(|i| format!("intent {i}")),
        (!j.named.paths.is_empty()).then(|| format!("paths {}", j.named.paths.join(", "))),
        j.named.exempt.as_ref().map(|e| format!("exemption {e}")),
    ];
    let named: Vec<String> = named.into_iter().flatten().collect();
    let _ = writeln!(
        s,
        "  named: {}",
        if named.is_empty() {
            "nothing".into()
        } else {
            shown_line(&named.join(" · ")).into_owned()
        }
    );
    if !j.issues.is_empty() {
        let _ = writeln!(s, "  issues: {}", shown_line(&j.issues.join(", ")));
    }
    if !j.intents.is_empty() {
        let _ = writeln!(s, "  intents: {}", shown_line(&j.intents.join(", ")));
    }
    for (sv, state) in d.served.iter().zip(&d.states) {
        let _ = writeln!(s, "  criterion {}#{}: {state}", sv.intent, sv.criterion);
    }
    for n in &j.notes {
        let _ = writeln!(
            s,
            "  {} {}",
            style::dim(Out::Stdout, "note:"),
            shown_line(n)
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
            shown_line(&r.message)
        );
        let _ = writeln!(
            s,
            "      {} {}",
            style::hint(Out::Stdout, "decide:"),
            shown_line(&r.decide)
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

pub fn run(dir: Option<&Path>, args: &BindingArgs) -> Result<i32, Failure> {
    let result = (|| {
        let ctx = Ctx::open(dir)?;
        let policy = ctx.policy()?.policy;
        let naming = given_naming(&ctx, &args.naming)?;
        // The evidence is the active task's: one that cannot be read is
        // an error, never judged as if there were no task.
        let task = ctx.task(None)?;
        derive(
            &ctx,
            &policy,
            &naming,
            task.as_ref()
                .and_then(evidence_key)
                .as_ref()
                .map(|(id, b)| (id.as_str(), *b)),
        )
    })();
    // An error under --json is printed as gate.error/1 by commands::run.
    let d = result?;
    out(&if args.json {
        json::to_string(&wire(&d))
    } else {
        render(&d)
    });
    Ok(if d.judgement.standing == Standing::Refused {
        1
    } else {
        0
    })
}
