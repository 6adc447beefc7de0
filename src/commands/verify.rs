//! `gate verify CHECK [--task ID]`: run an acceptance check's command —
//! only the plan's, never one from the command line — with `sh -c` at the
//! repository root, stream its output to the terminal and to a log, and
//! record a receipt bound to the acceptance check's contract and to the
//! source fingerprint before and after the run.
//!
//! Exit: 0 the acceptance check passed, 1 it failed, 3 no fresh receipt
//! could be made (the fingerprint is unavailable, the sources changed during
//! the run, or git failed while fingerprinting them after it: the receipt is
//! recorded, stale, and the error reported).

use std::path::Path;

use crate::acceptance_run::{self, OUTPUT_GRACE, Ran, Said, Sayings, Signing};

use crate::cli::VerifyArgs;
use crate::ctx::worktree_key;
use crate::ctx::{Ctx, task_ref};
use crate::error::Failure;
use crate::fingerprint::Fingerprint;
use crate::notes;
use crate::receipts::{self, Receipt, Store};
use crate::report::human;
use crate::report::json;
use crate::report::wire::verify::{VERIFY_SCHEMA, VerifyWire};
use crate::ui::{Answer, Shown, Ui};
use crate::verdict::ExitCode;

pub fn run(dir: Option<&Path>, args: &VerifyArgs, ui: &Ui) -> Result<Answer, Failure> {
    let ctx = Ctx::open(dir)?;
    let policy = ctx.policy()?.policy;
    let plan = ctx
        .plan()?
        .ok_or_else(|| {
            Failure::refused("no .gate/plan.yaml: there is no check to run")
                .hint("declare checks in .gate/plan.yaml (`gate init` writes an example)")
        })?
        .plan
        .clone();
    let Some(acceptance) = plan.acceptance_check(&args.check) else {
        let known: Vec<&str> = plan
            .acceptance_checks
            .iter()
            .map(|a| a.id.as_str())
            .collect();
        return Err(Failure::usage(format!(
            "the plan declares no check `{}` (declared: {})",
            args.check,
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        )));
    };
    let task = ctx.task(args.task.as_deref())?;
    // Under --json stdout holds the one document: the rest goes to stderr.
    let say = |text: &str| ui.aside(args.json, text);
    if let Some(t) = &task {
        say(&human::task_lines(&task_ref(t)));
    }
    let store = Store::new(&ctx.repo.common_dir());
    // The same keys and the same fingerprint as `gate status` reads them
    // with, so what verify records is what status compares.
    let worktree = worktree_key(&ctx);
    let task_id = task.as_ref().map(|t| t.record.id.clone());
    // The paths the task touched are listed again each time: after the run,
    // a file the command creates or edits outside `sources` (an output not
    // in an ignored path) shows as a change during the run, not later.
    let fingerprint_now = || -> Result<(Fingerprint, crate::fingerprint::Stats), Failure> {
        // One reading of the index for the staged paths and the fingerprint.
        let index = ctx.repo.read_index()?;
        let touched = crate::checks::receipts::touched(&ctx, &policy, task.as_ref(), Some(&index))?;
        let rctx = receipts::Context {
            repo: &ctx.repo,
            store: &store,
            plan: &plan,
            policy: &policy,
            worktree: &worktree,
            task: task_id.as_deref(),
            task_created_at: task.as_ref().map(|t| t.record.created_at.as_str()),
            task_baseline: task.as_ref().map(|t| t.record.baseline.as_str()),
            touched: &touched,
            index: Some(&index),
            // Before and after the command: each stat taken then.
            prefetch: None,
            progress: ctx.progress,
        };
        Ok(receipts::fingerprint_seen(&rctx, acceptance)?)
    };
    let seen_before = fingerprint_now()?;
    let before = seen_before.0.clone();
    if let Fingerprint::Unavailable { reason, path } = &before {
        let at = path.as_ref().map(|p| format!(" ({p})")).unwrap_or_default();
        return Err(Failure::unknown(format!(
            "{}: the source fingerprint is unavailable ({}): {reason}{at}; a run could not make a fresh receipt, so it was not started",
            acceptance.id,
            reason.as_str(),
        ))
        .hint("remove the symlink, nested repository or special file from the sources, or raise the limits in .gate/policy.yaml"));
    }
    let not_captured = human::output_not_captured(OUTPUT_GRACE.as_secs());
    let run = acceptance_run::Run {
        repo: &ctx.repo,
        root: ctx.root(),
        store: &store,
        acceptance,
        worktree: worktree.clone(),
        task: task
            .as_ref()
            .map(|t| (t.record.id.clone(), t.record.created_at.clone())),
        baseline: task.as_ref().map(|t| t.record.baseline.clone()),
        head: ctx.head_hex()?,
        stdout_to_stderr: args.json,
        ui,
    };
    let Ran {
        receipt,
        after,
        signing,
        log_path,
        after_failed,
    } = run.record(
        &before,
        || Ok(acceptance_run::held_still(&seen_before, fingerprint_now()?)),
        &Sayings {
            started: &|log| ui.err(&human::verify_started(acceptance, log)),
            not_captured: Said {
                log: not_captured.clone(),
                say: &|| ui.err(&human::acceptance_said(&acceptance.id, &not_captured)),
            },
            not_signed: &|why| ui.err(&human::verify_not_signed(&acceptance.id, why)),
        },
    )?;
    let evidence = &receipt.evidence;
    let mut text = human::verify_ran(&receipt);
    let changed = receipt.fingerprint_before.digest != receipt.fingerprint_after.digest;
    if let Some(e) = after_failed {
        say(&text);
        return Err(Failure::unknown(format!(
            "{}: the sources could not be fingerprinted after the run, so receipt {evidence} is stale: {}",
            acceptance.id, e.message
        ))
        .hint(format!(
            "repair the repository, then run `gate verify {}` again",
            acceptance.id
        )));
    }
    if changed {
        text.push_str(&human::verify_changed(&acceptance.id, &after));
    }
    if !changed {
        match attach_to_head(
            &ctx,
            &receipt,
            acceptance,
            &policy,
            task.as_ref(),
            &log_path,
            &signing,
        ) {
            Ok(said) => text.push_str(&said),
            Err(failed) => ui.err(&failed),
        }
    }
    let (code, outcome) = if changed {
        (ExitCode::Unknown, "stale")
    } else if receipt.passed() {
        (ExitCode::Pass, "passed")
    } else {
        (ExitCode::Refused, "failed")
    };
    let answer = VerifyAnswer {
        check: acceptance.id.clone(),
        outcome,
        code,
        task: task.as_ref().map(task_ref),
        receipt,
        text: text.clone(),
    };
    // Under --json stdout holds the one document: what happened goes to
    // stderr.
    Ok(Answer::document(code, answer).then_err_under_json(text))
}

/// What `gate verify` answers: the receipt recorded, and what happened.
struct VerifyAnswer {
    check: String,
    outcome: &'static str,
    code: ExitCode,
    task: Option<crate::verdict::TaskRef>,
    receipt: Receipt,
    /// What happened, for people.
    text: String,
}

impl Shown for VerifyAnswer {
    type Wire<'a> = VerifyWire<'a>;
    fn wire(&self) -> VerifyWire<'_> {
        VerifyWire {
            schema: VERIFY_SCHEMA,
            check: &self.check,
            outcome: self.outcome,
            exit_code: self.code.code(),
            task: self.task.as_ref().map(json::task),
            receipt: &self.receipt,
        }
    }
    fn text(&self) -> String {
        self.text.clone()
    }
}

/// Attach a fresh receipt to HEAD when the sources it ran on are HEAD's
/// (docs/receipts.md, "Receipts on commits"): the line saying what happened,
/// or (`Err`) what to say on stderr when it could not be attached, which
/// changes nothing about the run.
fn attach_to_head(
    ctx: &Ctx,
    receipt: &Receipt,
    acceptance: &crate::plan::AcceptanceCheck,
    policy: &crate::policy::Policy,
    task: Option<&crate::task::Task>,
    log: &Path,
    signing: &Signing,
) -> Result<String, String> {
    let Ok(Some(head)) = ctx.repo.head().map(|h| h.id()) else {
        return Ok(String::new());
    };
    let baseline = match task {
        Some(t) => match crate::git::Oid::from_hex(&t.record.baseline) {
            Some(baseline) => Some(baseline),
            None => return Ok(String::new()),
        },
        None => None,
    };
    let subject = notes::Subject {
        sources: &acceptance.sources,
        baseline,
        work: task.map(|t| crate::fingerprint::Work {
            task: &t.record.id,
            key: policy.trailer_key(),
        }),
        max_entries: policy.receipts.max_entries,
        max_bytes: policy.receipts.max_bytes,
    };
    let at = head.short();
    let candidate = (receipt.clone(), log.to_path_buf());
    // Through the blob cache: HEAD's blobs hashed by an earlier verify or
    // push are not read again.
    let cache_dir = Store::new(&ctx.repo.common_dir()).cache_dir();
    let mut trees = crate::fingerprint::Trees::cached(&ctx.repo, &cache_dir);
    match notes::attach_latest(&ctx.repo, head, [candidate], &subject, &mut trees) {
        Ok(notes::Attached::Written | notes::Attached::AlreadyHeld) => {
            let signed = match signing {
                Signing::Signed(how) => human::Signed::By(how),
                Signing::Failed(_) => human::Signed::Failed,
                Signing::NoKey => human::Signed::NoKey(policy.receipts.trust),
                Signing::Off => human::Signed::Off(policy.receipts.trust),
            };
            Ok(human::verify_attached(&acceptance.id, &at, &signed))
        }
        Ok(notes::Attached::NotFresh) => Ok(String::new()),
        Ok(notes::Attached::Differs(_)) => Ok(human::verify_not_attached(&acceptance.id, &at)),
        Err(e) => Err(human::verify_attach_failed(
            &acceptance.id,
            &at,
            &e.to_string(),
        )),
    }
}
