//! Receipts: `gate verify` as it runs and attaches, `gate status`,
//! `gate receipts`, and what travels with a push.

use super::*;

/// `gate verify`'s line before the run, on stderr: what runs, and where
/// its log goes.
pub fn verify_started(acceptance: &crate::plan::AcceptanceCheck, log: &Path) -> String {
    format!(
        "gate verify {}: sh -c {:?} (log: {})\n",
        acceptance.id,
        acceptance.command,
        log.display()
    )
}

/// `gate verify`'s line once the run is recorded: how it ended, and its
/// receipt.
pub fn verify_ran(receipt: &crate::receipts::Receipt) -> String {
    let outcome = match (receipt.exit_code, receipt.signal) {
        (Some(0), _) => "passed (exit 0)".to_string(),
        (Some(c), _) => format!("failed (exit {c})"),
        (None, Some(s)) => format!("failed (killed by signal {s})"),
        (None, None) => "failed".to_string(),
    };
    format!(
        "{}: {outcome} · receipt {}\n",
        receipt.acceptance_id, receipt.evidence
    )
}

/// `gate verify`'s line when the sources changed during the run (`after`:
/// their fingerprint after it).
pub fn verify_changed(id: &str, after: &crate::fingerprint::Fingerprint) -> String {
    use crate::fingerprint::Fingerprint;
    format!(
        "{id}: the sources changed during the run{}: this receipt is stale; run it again on still sources\n",
        match after {
            Fingerprint::Unavailable { reason, .. } => {
                format!(" (now unavailable: {})", reason.as_str())
            }
            Fingerprint::Available { .. } => String::new(),
        }
    )
}

/// `gate verify`'s line when the receipt is on commit `at` now.
pub fn verify_attached(id: &str, at: &str, signed: &Signed) -> String {
    let trust_note = |trust: crate::policy::Trust| match trust {
        crate::policy::Trust::AnyPusher => String::new(),
        crate::policy::Trust::Signed => {
            "; a range counts it only under `receipts.trust: any-pusher`".to_string()
        }
    };
    let how = match signed {
        Signed::By(how) => format!(", signed with {}", FileText::new(how)),
        Signed::Failed => ", unsigned: the signature could not be made (said above)".to_string(),
        Signed::NoKey(trust) => format!(
            ", unsigned: no user.signingKey is configured{}",
            trust_note(*trust)
        ),
        Signed::Off(trust) => format!(
            ", unsigned: gate.signReceipts is false{}",
            trust_note(*trust)
        ),
    };
    format!(
        "{id}: receipt attached to commit {at} ({}){how}\n",
        crate::notes::NOTES_REF
    )
}

/// Whether the receipt `gate verify` attached is signed, for its line.
pub enum Signed<'a> {
    /// Signed: with which format and key.
    By(&'a str),
    /// A key is configured and signing failed (said on its own line).
    Failed,
    /// No key is configured, under the local policy's `receipts.trust`.
    NoKey(crate::policy::Trust),
    /// `gate.signReceipts` is false, under the local policy's trust.
    Off(crate::policy::Trust),
}

/// pre-push's line when the push carries `refs/notes/gate` itself: gate
/// does not push it a second time beside it.
pub fn receipts_ride_along(remote: &str) -> String {
    format!(
        "gate: this push carries {} to {}: gate attaches and pushes no receipts beside it (`gate receipts push {}` merges and sends the latest)\n",
        crate::notes::NOTES_REF,
        FileText::new(remote),
        FileText::new(remote)
    )
}

/// `gate init`'s line (stderr) when a signing key is configured and no
/// signers file could be written for it.
pub fn init_signers_not_set(why: &str) -> String {
    format!(
        "gate: receipts.signers is not set: {}; list your key yourself (docs/receipts.md#signed-receipts)\n",
        FileText::new(why)
    )
}

/// `gate verify`'s line (stderr) when a configured key could not sign.
pub fn verify_not_signed(id: &str, why: &str) -> String {
    format!(
        "{id}: receipt not signed: {}; a range counts an unsigned receipt only under `receipts.trust: any-pusher` (fix the signing key, or set gate.signReceipts false to stop trying)\n",
        FileText::new(why)
    )
}

/// `gate verify`'s line when the run's sources are not commit `at`'s.
pub fn verify_not_attached(id: &str, at: &str) -> String {
    format!(
        "{id}: not attached to commit {at}: the sources it ran on are not what that commit holds (uncommitted changes, or bytes git converts on checkout); commit them and run `gate verify {id}` again for a receipt that travels with the commit\n"
    )
}

/// The human rendering of `gate status`: each acceptance check the task
/// depends on with its state, then the criteria it serves, then the verdict.
pub fn status(task: Option<&TaskRef>, status: &ReceiptsStatus, code: ExitCode) -> String {
    let mut s = String::from("gate status\n");
    match task {
        Some(t) => s.push_str(&task_lines(t)),
        None => s.push_str("no task: every acceptance check, with receipts made without a task\n"),
    }
    s.push('\n');
    if status.acceptance_checks.is_empty() {
        s.push_str(match (task, status.served.is_empty()) {
            (None, _) => "checks: none (the plan declares no check)\n",
            (Some(_), true) => {
                "checks: none: the task depends on no check (it serves no criterion: maintenance, an exemption, or nothing named)\n"
            }
            (Some(_), false) => {
                "checks: none: the task depends on no check (the criteria it serves name none)\n"
            }
        });
    }
    for acceptance in &status.acceptance_checks {
        let detail = match &acceptance.state {
            State::Passed { evidence } | State::Failed { evidence, .. } => evidence.clone(),
            State::Stale { evidence, why } => format!("{} · {evidence}", why.as_str()),
            State::Running { .. } => "a run is under way".into(),
            State::Missing => format!("no receipt: `gate verify {}`", acceptance.id),
            State::Unknown {
                cause,
                reason,
                path,
            } => {
                // A stable reason reads as words; a message stays as it is.
                let reason = match cause {
                    UnknownCause::InputUnreadable => reason.clone(),
                    _ => reason.replace('_', " "),
                };
                format!(
                    "{}{}",
                    FileText::new(&reason),
                    path.as_ref()
                        .map(|p| format!(" ({})", FileText::new(p)))
                        .unwrap_or_default()
                )
            }
        };
        let _ = writeln!(
            s,
            "  {:<20} {} {detail}",
            acceptance.id,
            state_word(&acceptance.state)
        );
        for bad in &acceptance.unreadable {
            let _ = writeln!(s, "    ! unreadable receipt: {}", FileText::new(bad));
        }
    }
    if !status.served.is_empty() {
        s.push_str("\ncriteria\n");
        for sv in &status.served {
            let state = crate::receipts::criterion_state(sv, &status.acceptance_checks);
            let evidence = if sv.evidence.is_empty() {
                "no check".to_string()
            } else {
                sv.evidence.join(", ")
            };
            let _ = writeln!(
                s,
                "  {}#{:<8} {:<11} {} ({evidence})",
                sv.intent,
                sv.criterion,
                state,
                FileText::new(&sv.text)
            );
        }
    }
    let verdict = match code {
        ExitCode::Pass if status.acceptance_checks.is_empty() => {
            style::pass(Out::Stdout, "nothing to verify")
        }
        ExitCode::Pass => style::pass(Out::Stdout, "every check passed on these sources"),
        ExitCode::Refused => {
            style::refused(Out::Stdout, "not every check has a fresh, passing receipt")
        }
        ExitCode::Usage | ExitCode::Unknown => {
            style::unknown(Out::Stdout, "a check's freshness could not be decided")
        }
    };
    let _ = writeln!(s, "\nresult: {verdict} (exit {code})");
    s
}

pub(super) fn state_word(state: &State) -> String {
    let name = format!("{:<8}", state.name());
    match state {
        State::Passed { .. } => style::pass(Out::Stdout, name),
        State::Unknown { .. } => style::unknown(Out::Stdout, name),
        State::Running { .. } => style::hint(Out::Stdout, name),
        _ => style::refused(Out::Stdout, name),
    }
}

/// The human rendering of `gate receipts fetch|push`: what moved between
/// this clone's `refs/notes/gate` and the remote's.
pub fn receipts(w: &crate::report::wire::receipts::ReceiptsWire) -> String {
    let short = |id: &Option<String>| {
        id.as_deref()
            .map(|h| h.chars().take(12).collect::<String>())
            .unwrap_or_default()
    };
    let (remote, local) = (short(&w.remote_notes), short(&w.local_notes));
    let r = FileText::new(&w.remote);
    let notes = crate::notes::NOTES_REF;
    let mut s = match (w.action, w.outcome) {
        ("fetch", "none_there") => {
            format!("{r} has no {notes}: no receipts have travelled there yet\n")
        }
        ("fetch", "held") => {
            format!("{notes}: this clone holds every receipt of {r} ({remote}) already\n")
        }
        ("fetch", _) => format!(
            "{notes}: the receipts of {r} ({remote}) merged into this clone's (now {local})\n"
        ),
        ("push", "nothing") => {
            format!("no receipts on commits here or on {r}: nothing to push\n")
        }
        ("push", "up_to_date") => {
            format!("{notes}: {r} holds this clone's receipts ({local}) already\n")
        }
        ("accept", _) => format!(
            "{notes}: {} -> {local} accepted: a fast-forward of receipts gate can read\n",
            match remote.is_empty() {
                true => "(new)".to_string(),
                false => remote,
            }
        ),
        _ => format!("{notes} pushed to {r} ({local}, merged with the receipts it held)\n"),
    };
    if let Some(tries) = w.tries.filter(|t| *t > 1) {
        s.push_str(&format!(
            "{tries} tries: another clone pushed receipts in between; theirs are merged in\n"
        ));
    }
    s
}

/// What pre-push's last step did with the receipts (docs/hooks.md, "pre-push
/// sends the receipts with the push").
pub struct ReceiptsSent<'a> {
    pub attached: Attached,
    /// The remote pushed to.
    pub remote: &'a str,
    pub travelled: Travelled,
}

/// What became of the receipts of the pushed tips.
pub enum Attached {
    /// There is no plan, so no acceptance check to attach receipts of.
    NoPlan,
    /// Each pushed tip with the acceptance checks whose receipts it holds.
    Held(Vec<(crate::git::Oid, Vec<String>)>),
    /// They could not be attached: why.
    Failed(String),
}

/// What became of `refs/notes/gate` at the remote.
pub enum Travelled {
    /// `gate.pushReceipts` is false.
    NotWanted,
    /// Nothing to send, or the remote had it already.
    Nothing,
    Sent,
    /// The push failed: why.
    Failed(String),
    /// This clone's notes could not be read: why.
    Unreadable(String),
}

/// The stderr lines of pre-push's last step: the receipts attached to each
/// tip, and whether `refs/notes/gate` travelled, with the command that
/// repairs what failed.
pub fn receipts_sent(sent: &ReceiptsSent) -> String {
    let notes = crate::notes::NOTES_REF;
    let mut said = String::new();
    match &sent.attached {
        Attached::NoPlan => {}
        Attached::Held(held) => {
            for (tip, acceptance_ids) in held.iter().filter(|(_, ids)| !ids.is_empty()) {
                said.push_str(&format!(
                    "gate: receipts: on {}: {}\n",
                    tip.short(),
                    acceptance_ids.join(", ")
                ));
            }
        }
        Attached::Failed(e) => said.push_str(&format!(
            "gate: receipts could not be attached to the pushed commits: {}\n",
            FileText::new(e)
        )),
    }
    let remote = sent.remote;
    match &sent.travelled {
        Travelled::NotWanted => said.push_str(&format!(
            "gate: {notes} not pushed (gate.pushReceipts is false): `gate receipts push {remote}` sends it\n"
        )),
        Travelled::Nothing => {}
        Travelled::Sent => {
            said.push_str(&format!("gate: {notes} pushed to {}\n", FileText::new(remote)));
        }
        Travelled::Failed(e) => said.push_str(&format!(
            "gate: receipts did not travel to {r}: {e}\ngate: CI will report each required check without a receipt as receipt_missing (\"no receipt travelled with the push\"); fix it, then run `gate receipts push {r}`\n",
            r = FileText::new(remote),
            e = FileText::new(e),
        )),
        Travelled::Unreadable(e) => said.push_str(&format!(
            "gate: receipts did not travel to {}: {notes} cannot be read: {}\n",
            FileText::new(remote),
            FileText::new(e)
        )),
    }
    said
}

/// What `gate verify` says on stderr when the receipt of `acceptance_id`
/// could not be attached to commit `at`.
pub fn verify_attach_failed(acceptance_id: &str, at: &str, why: &str) -> String {
    format!("{acceptance_id}: the receipt could not be attached to commit {at}: {why}\n")
}

/// The note `gate verify` writes to the log (and says on stderr, through
/// [`acceptance_said`]) when a process the command left running still
/// holds its output open after `grace_secs`.
pub fn output_not_captured(grace_secs: u64) -> String {
    format!(
        "[gate] the command has exited, but a process it left running still holds its output open; output more than {grace_secs} s after the exit is not captured\n"
    )
}

/// A line `gate verify` says on stderr about the acceptance check it runs.
pub fn acceptance_said(acceptance_id: &str, line: &str) -> String {
    format!("{acceptance_id}: {line}")
}
