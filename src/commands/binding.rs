//! `gate binding`: ask the one derivation what a naming serves and whether
//! it may start. Read-only. Exits by its answer: refused 1, unknown 3,
//! otherwise 0 — whatever the policy's mode (the mode decides what a refusal
//! costs where work starts or moves: `start`, `check`, the hooks).

use std::path::Path;

use crate::binding::Standing;
use crate::checks::binding::{Derived, derive, evidence_key, given_naming};
use crate::cli::BindingArgs;
use crate::ctx::Ctx;
use crate::error::Failure;
use crate::report::human;
use crate::report::wire::PinsWire;
use crate::report::wire::binding::{
    BINDING_SCHEMA, BindingCriterionWire, BindingExemptionWire, BindingWire, NamedWire, RefusalWire,
};
use crate::ui::{Answer, Shown};
use crate::verdict::ExitCode;

pub fn wire(d: &Derived) -> BindingWire<'_> {
    let j = &d.judgement;
    BindingWire {
        schema: BINDING_SCHEMA,
        standing: j.standing.as_str(),
        exit_code: exit_code(j.standing).code(),
        named: NamedWire {
            issue: j.named.issue.as_deref(),
            intent: j.named.intent.as_deref(),
            paths: &j.named.paths,
            exemption: j.named.exempt.as_deref().map(|class| BindingExemptionWire {
                class,
                because: j.named.because.as_deref(),
                description: j.exemption_description.as_deref(),
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
            .map(|(s, state)| BindingCriterionWire {
                intent: &s.intent,
                criterion: &s.criterion,
                state,
            })
            .collect(),
    }
}

impl Shown for Derived {
    type Wire<'a> = BindingWire<'a>;
    fn wire(&self) -> BindingWire<'_> {
        wire(self)
    }
    fn text(&self) -> String {
        human::binding(self)
    }
}

pub fn run(dir: Option<&Path>, args: &BindingArgs) -> Result<Answer, Failure> {
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
    Ok(Answer::document(exit_code(d.judgement.standing), d))
}

/// A refused binding refuses; every other standing lets the change through.
fn exit_code(standing: Standing) -> ExitCode {
    if standing == Standing::Refused {
        ExitCode::Refused
    } else {
        ExitCode::Pass
    }
}
