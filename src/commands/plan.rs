//! `gate plan validate`: every fault of `.gate/plan.yaml` the later checks
//! would trip on, as a `gate.report/1` with one `plan` check.

use std::path::Path;

use super::{Ctx, Failure, out, policy_origin};
use crate::cli::PlanCommand;
use crate::load::LoadError;
use crate::policy::Mode;
use crate::report::{CheckReport, Finding, Report, Severity, Subject, human, json};

pub const CHECK: &str = "plan";

pub fn run(dir: Option<&Path>, cmd: &PlanCommand) -> Result<i32, Failure> {
    match cmd {
        PlanCommand::Validate { json } => validate(dir, *json),
    }
}

fn validate(dir: Option<&Path>, as_json: bool) -> Result<i32, Failure> {
    let ctx = Ctx::open(dir)?;
    let policy = ctx.policy()?;
    let mut notes = Vec::new();
    let (summary, findings) = match crate::plan::load(ctx.root()) {
        Ok(None) => (
            "no .gate/plan.yaml (run `gate init` for an example)".to_string(),
            vec![],
        ),
        Ok(Some(loaded)) => {
            let p = &loaded.plan;
            let summary = [
                (p.intents.len(), "intent"),
                (p.checks.len(), "check"),
                (p.issues.len(), "issue"),
                (p.critiques.len(), "critique"),
            ]
            .iter()
            .map(|&(n, what)| format!("{n} {what}{}", if n == 1 { "" } else { "s" }))
            .collect::<Vec<_>>()
            .join(", ");
            let file = loaded.file.display().to_string();
            let mut findings: Vec<Finding> = loaded
                .reference_faults()
                .into_iter()
                .map(|f| Finding {
                    check: CHECK,
                    cause: f.cause,
                    severity: Severity::Blocker,
                    unknown: false,
                    message: f.message,
                    decide: "fix the reference in .gate/plan.yaml".into(),
                    subject: Subject {
                        file: Some(file.clone()),
                        line: f.line,
                        key: Some(f.key),
                        ..Subject::default()
                    },
                })
                .collect();
            // Commands whose receipts could not be reproduced: warnings.
            for lint in loaded.command_lints() {
                let decide = if lint.cause == crate::plan::cause::COMMAND_SPANS_LINES {
                    "put the steps in a script listed in the check's sources, and run that"
                } else {
                    "compare with a commit the sources pin, or leave the moving ref out of the check"
                };
                findings.push(Finding {
                    check: CHECK,
                    cause: lint.cause,
                    severity: Severity::Warn,
                    unknown: false,
                    message: lint.message,
                    decide: decide.into(),
                    subject: Subject {
                        file: Some(file.clone()),
                        line: lint.line,
                        key: Some(lint.key),
                        ..Subject::default()
                    },
                });
            }
            // What the binding would trip on: critiques, and path overlaps.
            for r in crate::binding::plan_faults(p) {
                findings.push(Finding {
                    check: CHECK,
                    cause: r.cause,
                    severity: Severity::Blocker,
                    unknown: false,
                    message: r.message,
                    decide: r.decide,
                    subject: Subject {
                        file: Some(file.clone()),
                        line: r
                            .key
                            .as_deref()
                            .and_then(|k| crate::yaml::locate(&loaded.text, k))
                            .map(|(line, _)| line),
                        key: r.key,
                        ..Subject::default()
                    },
                });
            }
            for (a, b, glob) in crate::binding::overlapping_issues(p) {
                findings.push(Finding {
                    check: CHECK,
                    cause: "overlapping_issue_paths",
                    severity: Severity::Warn,
                    unknown: false,
                    message: format!(
                        "open issues {a} and {b} serve different intents and their paths overlap (`{glob}`): a start naming only such paths is ambiguous_intent"
                    ),
                    decide: "make the issues' paths disjoint, or expect workers to name the issue".into(),
                    subject: {
                        let key = p
                            .issues
                            .iter()
                            .position(|i| i.id == b)
                            .map(|n| format!("issues[{n}].paths"));
                        Subject {
                            file: Some(file.clone()),
                            line: key
                                .as_deref()
                                .and_then(|k| crate::yaml::locate(&loaded.text, k))
                                .map(|(line, _)| line),
                            key,
                            ..Subject::default()
                        }
                    },
                });
            }
            // The revision a new critique should record, per intent.
            for intent in &p.intents {
                notes.push(format!(
                    "intent {}: plan_revision {} (record it in a new critique)",
                    intent.id,
                    crate::binding::plan_revision(p, &[intent.id.as_str()], false)
                ));
            }
            (summary, findings)
        }
        Err(e) => (
            "the plan could not be read".to_string(),
            vec![unreadable(CHECK, &e)],
        ),
    };
    let report = Report {
        verb: "plan validate".into(),
        policy: policy_origin(&policy),
        task: None,
        checks: vec![CheckReport::new(CHECK, Mode::Required, summary, findings)],
        skipped: vec![],
        notes,
    };
    out(&if as_json {
        json::to_string(&json::report(&report))
    } else {
        human::render(&report)
    });
    Ok(report.exit_code())
}

/// An unreadable input file as an unknown finding naming file, line and key.
pub fn unreadable(check: &'static str, e: &LoadError) -> Finding {
    let key = Some(e.key().to_string()).filter(|k| !k.is_empty());
    Finding::unknown(
        check,
        "input_unreadable",
        e.to_string(),
        "fix the file, then run gate again".into(),
    )
    .with_subject(Subject {
        file: Some(e.file().display().to_string()),
        line: e.line(),
        key,
        ..Subject::default()
    })
}
