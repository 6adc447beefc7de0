//! The human rendering of a [`Report`]: what was checked, what was found,
//! what would decide it, and what it costs under the policy. Findings that
//! name a commit are grouped under it.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use super::limit::{COMMITS_NAMED, Counts};
use super::style::{self, Out};
use super::text::{shown, shown_line, shown_lines};
use super::wire::doctor::{Item, Status};
use crate::checks::binding::Derived;
use crate::checks::receipts::Status as ReceiptsStatus;
use crate::policy::Mode;
use crate::receipts::{State, UnknownCause};
use crate::task::Task;
use crate::verdict::{
    BriefDigest, CheckReport, ExitCode, Finding, Outcome, Report, Severity, TaskRef,
};

const OUT: Out = Out::Stdout;

/// Render a whole report for a person.
pub fn render(report: &Report) -> String {
    render_capped(report, None)
}

/// [`render`], with the counts of every finding after the checks when
/// `--max-findings` left some out (docs/ci.md#report-formats).
pub fn render_capped(report: &Report, counts: Option<&Counts>) -> String {
    let mut s = String::new();
    let policy = shown_line(&report.policy.describe(true)).into_owned();
    let _ = writeln!(
        s,
        "{} {} · policy: {policy}",
        style::strong(OUT, "gate"),
        report.verb
    );
    if let Some(task) = &report.task {
        s.push_str(&task_lines(task));
    }
    for note in &report.notes {
        let _ = writeln!(s, "{} {}", style::dim(OUT, "note:"), shown_line(note));
    }
    s.push('\n');
    // A finding repeated word for word by a later check (no task, an
    // unreadable task) is said once, then referred to.
    let mut said: HashSet<(&str, &str)> = HashSet::new();
    for check in &report.checks {
        s.push_str(&check_block(check, &mut said));
    }
    for skipped in &report.skipped {
        let _ = writeln!(
            s,
            "{:<11} {:<8} {}",
            skipped.check,
            style::dim(OUT, "skipped"),
            skipped.reason
        );
    }
    if !report.checks.is_empty() || !report.skipped.is_empty() {
        s.push('\n');
    }
    if let Some(counts) = counts.filter(|c| c.capped()) {
        s.push_str(&counted(counts));
        s.push('\n');
    }
    s.push_str(&result_line(report));
    s
}

/// The counts `--max-findings` prints after the findings it lists: every
/// cause, and the commits with the most findings.
pub fn counted(counts: &Counts) -> String {
    let mut s = format!(
        "{} of {} findings shown (--max-findings); all of them by cause:\n",
        counts.shown, counts.total
    );
    for (check, cause, n) in &counts.by_cause {
        let _ = writeln!(s, "  {n:>7}  {check}: {cause}");
    }
    if !counts.by_commit.is_empty() {
        let _ = writeln!(s, "by commit ({} commits):", counts.by_commit.len());
        for (commit, n, causes) in counts.by_commit.iter().take(COMMITS_NAMED) {
            let short = &commit[..commit.len().min(12)];
            let _ = writeln!(s, "  {n:>7}  {short}  {}", causes.join(", "));
        }
        if counts.by_commit.len() > COMMITS_NAMED {
            let _ = writeln!(
                s,
                "  … and {} more commits",
                counts.by_commit.len() - COMMITS_NAMED
            );
        }
    }
    s
}

/// A short rendering for hooks when nothing blocks: one line per check with
/// findings (its first finding and how many more), the notes, and where to
/// see the rest.
pub fn render_compact(report: &Report) -> String {
    let mut s = format!(
        "{} {}: nothing blocks · policy: {}\n",
        style::strong(OUT, "gate"),
        report.verb,
        shown_line(&report.policy.describe(false))
    );
    for check in &report.checks {
        let Some(first) = check.findings.first() else {
            let _ = writeln!(
                s,
                "  {} {} · {}",
                check.check,
                outcome_word(check.outcome),
                shown_line(&check.summary)
            );
            continue;
        };
        let more = match check.findings.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        let _ = writeln!(
            s,
            "  {} {} ({}) · {}: {} {}{more}",
            check.check,
            outcome_word(check.outcome),
            check.mode,
            shown_line(&check.summary),
            style::strong(OUT, first.cause),
            shown_line(&first.message)
        );
    }
    for note in &report.notes {
        let _ = writeln!(s, "  {} {}", style::dim(OUT, "note:"), shown_line(note));
    }
    let _ = writeln!(
        s,
        "  {}",
        style::dim(OUT, "`gate check` shows every finding and what decides it")
    );
    s
}

/// A task's brief, verbatim, then its addenda, each under its heading:
/// what `gate task show` and `gate handover` print.
pub fn brief_and_addenda(task: &crate::task::Task) -> String {
    let mut s = String::from("## Brief (verbatim)\n\n");
    match &task.body.brief {
        Some(b) => {
            s.push_str(&shown(&b.text));
            if !b.text.ends_with('\n') {
                s.push('\n');
            }
        }
        None => s.push_str("(no brief recorded)\n"),
    }
    s.push_str("\n## Addenda\n");
    match &task.body.addenda {
        Some(a) if !a.text.trim().is_empty() => s.push_str(&shown(&a.text)),
        _ => s.push_str("\n(none)\n"),
    }
    s
}

/// `task T-1 · issue 42` and the brief digest.
pub fn task_lines(task: &TaskRef) -> String {
    let mut s = String::new();
    let mut named = Vec::new();
    if let Some(i) = &task.issue {
        named.push(format!("issue {}", shown_line(i)));
    }
    if let Some(i) = &task.intent {
        named.push(format!("intent {}", shown_line(i)));
    }
    if let Some(e) = &task.exemption {
        named.push(format!("exempt: {}", shown_line(e)));
    }
    let named = if named.is_empty() {
        String::new()
    } else {
        format!(" · {}", named.join(" · "))
    };
    let _ = writeln!(
        s,
        "task {}{named}",
        style::strong(OUT, shown_line(&task.id))
    );
    if let Some(brief) = &task.brief {
        s.push_str(&brief_digest(brief));
    } else {
        let _ = writeln!(s, "  brief: {}", style::warn(OUT, "none recorded"));
    }
    s
}

/// The short brief digest: its first lines, how many addenda, the latest one.
pub fn brief_digest(d: &BriefDigest) -> String {
    let mut s = String::new();
    for (i, line) in d.head.iter().enumerate() {
        let label = if i == 0 { "  brief: " } else { "         " };
        let _ = writeln!(s, "{label}{}", style::hint(OUT, shown_line(line)));
    }
    if d.head.is_empty() {
        let _ = writeln!(s, "  brief: {}", style::warn(OUT, "(empty)"));
    }
    let more = if d.more {
        "more in `gate task show` · "
    } else {
        ""
    };
    let addenda = match (d.addenda, &d.latest) {
        (0, _) => "no addenda".to_string(),
        (1, Some(l)) => format!("1 addendum: {}", shown_line(l)),
        (n, Some(l)) => format!("{n} addenda, latest: {}", shown_line(l)),
        (n, None) => format!("{n} addenda"),
    };
    let _ = writeln!(
        s,
        "         {}",
        style::dim(OUT, format!("({more}{addenda})"))
    );
    s
}

fn outcome_word(o: Outcome) -> String {
    match o {
        Outcome::Pass => style::pass(OUT, "pass"),
        Outcome::Refused => style::refused(OUT, "refused"),
        Outcome::Unknown => style::unknown(OUT, "unknown"),
    }
}

fn cost(check: &CheckReport) -> &'static str {
    match (check.outcome, check.mode) {
        (Outcome::Pass, _) => "",
        (_, Mode::Required) => "blocks (required)",
        (_, Mode::Advisory) => "reported only (advisory)",
        (_, Mode::Off) => "",
    }
}

fn check_block<'a>(check: &'a CheckReport, said: &mut HashSet<(&'a str, &'a str)>) -> String {
    let mut s = String::new();
    // Pad the plain word, then color it, so alignment survives escape codes.
    let word = format!("{:<8}", check.outcome.as_str());
    let colored = word.replacen(check.outcome.as_str(), &outcome_word(check.outcome), 1);
    let cost = cost(check);
    let summary = if check.summary.is_empty() {
        String::new()
    } else {
        format!(" · {}", shown_line(&check.summary))
    };
    let _ = writeln!(
        s,
        "{:<11} {colored} {}{}",
        check.check,
        cost,
        style::dim(OUT, summary).trim_end()
    );
    // Group findings by commit, keeping first-appearance order.
    let mut groups: Vec<(Option<&str>, Vec<&Finding>)> = Vec::new();
    let mut group_of: HashMap<Option<&str>, usize> = HashMap::new();
    for f in &check.findings {
        let key = f.subject.commit.as_deref();
        let at = *group_of.entry(key).or_insert_with(|| {
            groups.push((key, Vec::new()));
            groups.len() - 1
        });
        groups[at].1.push(f);
    }
    for (commit, findings) in groups {
        let indent = if let Some(c) = commit {
            let _ = writeln!(s, "  commit {}", style::strong(OUT, &c[..c.len().min(12)]));
            "    "
        } else {
            "  "
        };
        for f in findings {
            // Only findings about no commit repeat across checks.
            if f.subject.commit.is_some() {
                s.push_str(&finding_lines(f, indent));
                continue;
            }
            if !said.insert((f.cause, f.message.as_str())) {
                let _ = writeln!(
                    s,
                    "{indent}{} {} (as above)",
                    mark(f),
                    style::strong(OUT, f.cause)
                );
                continue;
            }
            s.push_str(&finding_lines(f, indent));
        }
    }
    s
}

fn mark(f: &Finding) -> String {
    match f.severity {
        Severity::Blocker => style::refused(OUT, "✗"),
        Severity::Unknown => style::unknown(OUT, "?"),
        Severity::Warn => style::warn(OUT, "!"),
        Severity::Info => style::dim(OUT, "·"),
    }
}

fn finding_lines(f: &Finding, indent: &str) -> String {
    let mark = mark(f);
    let mut s = String::new();
    let place = match (&f.subject.file, f.subject.line) {
        (Some(file), Some(line)) if !f.message.contains(file.as_str()) => {
            format!(" ({}:{line})", shown_line(file))
        }
        (Some(file), None) if !f.message.contains(file.as_str()) => {
            format!(" ({})", shown_line(file))
        }
        _ => String::new(),
    };
    let _ = writeln!(
        s,
        "{indent}{mark} {} {}{place}",
        style::strong(OUT, f.cause),
        shown_line(&f.message)
    );
    if !f.decide.is_empty() {
        let _ = writeln!(
            s,
            "{indent}  {} {}",
            style::hint(OUT, "decide:"),
            shown_line(&f.decide)
        );
    }
    s
}

fn result_line(report: &Report) -> String {
    let code = report.exit_code();
    let outcome = report.outcome();
    let verdict = match code {
        ExitCode::Pass if outcome == Outcome::Pass => style::pass(OUT, "pass"),
        ExitCode::Pass => format!("{}, nothing blocks (advisory)", outcome_word(outcome)),
        ExitCode::Refused => style::refused(OUT, "refused: a required check refused"),
        ExitCode::Usage | ExitCode::Unknown => {
            style::unknown(OUT, "unknown: a required check could not decide")
        }
    };
    format!("result: {verdict} (exit {code})\n")
}

/// `gate doctor`'s report for people: each thing looked at, its remedy,
/// and the result (docs/doctor.md).
pub fn doctor(hooks_dir: &Path, items: &[Item], code: ExitCode) -> String {
    let mut text = format!("gate doctor · hooks directory: {}\n", hooks_dir.display());
    for i in items {
        let what = if i.subject.is_empty() {
            i.check.to_string()
        } else {
            format!("{} {}", i.check, i.subject)
        };
        text.push_str(&format!(
            "{:<8}{:<24} {}\n",
            i.status.word(),
            what,
            shown_line(&i.detail)
        ));
        if let Some(r) = &i.remedy {
            text.push_str(&format!("{:<8}remedy: {}\n", "", shown_line(r)));
        }
    }
    let faults = items.iter().filter(|i| i.status == Status::Fault).count();
    let unknown = items.iter().filter(|i| i.status == Status::Unknown).count();
    let warnings = items.iter().filter(|i| i.status == Status::Warn).count();
    let mut result = match code {
        ExitCode::Pass => "healthy".to_string(),
        _ => {
            let mut parts = Vec::new();
            if faults > 0 {
                parts.push(format!(
                    "{faults} fault{}",
                    if faults == 1 { "" } else { "s" }
                ));
            }
            if unknown > 0 {
                parts.push(format!("{unknown} unknown"));
            }
            parts.join(", ")
        }
    };
    if warnings > 0 {
        result.push_str(&format!(
            ", {warnings} warning{}",
            if warnings == 1 { "" } else { "s" }
        ));
    }
    text.push_str(&format!("result: {result} (exit {code})\n"));
    text
}

/// `gate may-touch`: one line per path — its verdict, and the pattern that
/// allows it or why not and what gets it through — then the result.
pub fn may_touch(
    task: Option<&TaskRef>,
    touches: &[crate::scope::Touch],
    notes: &[String],
    code: ExitCode,
) -> String {
    let mut s = format!("{} may-touch\n", style::strong(OUT, "gate"));
    match task {
        Some(t) => s.push_str(&task_lines(t)),
        None => s.push_str("no active task\n"),
    }
    for note in notes {
        let _ = writeln!(s, "{} {}", style::dim(OUT, "note:"), shown_line(note));
    }
    s.push('\n');
    for t in touches {
        let word = format!("{:<8}", t.verdict_word());
        let word = match t.verdict {
            Outcome::Pass => style::pass(OUT, word),
            Outcome::Refused => style::refused(OUT, word),
            Outcome::Unknown => style::unknown(OUT, word),
        };
        match &t.pattern {
            Some(p) => {
                let _ = writeln!(s, "  {word} {} · pattern {}", t.path, shown_line(p));
            }
            None => {
                let _ = writeln!(s, "  {word} {}", shown_line(&t.reason));
            }
        }
        if let Some(d) = &t.decide {
            let _ = writeln!(s, "      {} {}", style::hint(OUT, "decide:"), shown_line(d));
        }
    }
    let verdict = match code {
        ExitCode::Pass => style::pass(OUT, "every path is in the task's scope"),
        ExitCode::Refused => style::refused(OUT, "a path is outside the task's scope"),
        ExitCode::Usage | ExitCode::Unknown => style::unknown(
            OUT,
            "whether the task may touch a path could not be decided",
        ),
    };
    let _ = writeln!(s, "\nresult: {verdict} (exit {code})");
    s
}

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
        Signed::By(how) => format!(", signed with {}", shown_line(how)),
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
        shown_line(remote),
        shown_line(remote)
    )
}

/// `gate init`'s line (stderr) when a signing key is configured and no
/// signers file could be written for it.
pub fn init_signers_not_set(why: &str) -> String {
    format!(
        "gate: receipts.signers is not set: {}; list your key yourself (docs/receipts.md#signed-receipts)\n",
        shown_line(why)
    )
}

/// `gate verify`'s line (stderr) when a configured key could not sign.
pub fn verify_not_signed(id: &str, why: &str) -> String {
    format!(
        "{id}: receipt not signed: {}; a range counts an unsigned receipt only under `receipts.trust: any-pusher` (fix the signing key, or set gate.signReceipts false to stop trying)\n",
        shown_line(why)
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
                    shown_line(&reason),
                    path.as_ref()
                        .map(|p| format!(" ({})", shown_line(p)))
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
            let _ = writeln!(s, "    ! unreadable receipt: {}", shown_line(bad));
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
                shown_line(&sv.text)
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

fn state_word(state: &State) -> String {
    let name = format!("{:<8}", state.name());
    match state {
        State::Passed { .. } => style::pass(Out::Stdout, name),
        State::Unknown { .. } => style::unknown(Out::Stdout, name),
        State::Running { .. } => style::hint(Out::Stdout, name),
        _ => style::refused(Out::Stdout, name),
    }
}

/// The human rendering of `gate binding`'s answer.
pub fn binding(d: &Derived) -> String {
    let j = &d.judgement;
    let mut s = String::new();
    let standing = match j.standing {
        crate::binding::Standing::Refused => style::refused(Out::Stdout, "refused"),
        other => style::pass(Out::Stdout, other.as_str()),
    };
    let _ = writeln!(s, "binding: {standing}");
    let named = [
        j.named.issue.as_ref().map(|i| format!("issue {i}")),
        j.named.intent.as_ref().map(|i| format!("intent {i}")),
        (!j.named.paths.is_empty()).then(|| format!("paths {}", j.named.paths.join(", "))),
        j.named
            .exempt
            .as_ref()
            .map(|e| match &j.exemption_description {
                Some(d) => format!("exemption {e} ({d})"),
                None => format!("exemption {e}"),
            }),
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

/// The human rendering of `gate handover`: front matter (task, HEAD, names,
/// pins), then the whole brief and every addendum.
pub fn handover(task: &Task, head: Option<&str>, d: &Derived) -> String {
    let r = &task.record;
    let mut s = String::new();
    let _ = writeln!(s, "---");
    let _ = writeln!(s, "task: {}", yaml_str(Some(&r.id)));
    let _ = writeln!(s, "head: {}", yaml_str(head));
    let _ = writeln!(s, "issue: {}", yaml_str(r.issue.as_deref()));
    let _ = writeln!(s, "intent: {}", yaml_str(r.intent.as_deref()));
    match &r.exemption {
        Some(e) => {
            let _ = writeln!(
                s,
                "exemption: {{class: {}, because: {}}}",
                yaml_str(Some(&e.class)),
                yaml_str(Some(&e.because))
            );
        }
        None => {
            let _ = writeln!(s, "exemption: null");
        }
    }
    let _ = writeln!(
        s,
        "pins: {{plan_revision: {}, evidence_standing: {}}}",
        yaml_str(Some(&d.pins.plan_revision)),
        yaml_str(Some(&d.pins.evidence_standing))
    );
    s.push_str("---\n\n");
    s.push_str(&brief_and_addenda(task));
    s
}

/// The warning on stderr of a handover whose binding is refused now.
pub fn handover_refused(id: &str, refusals: &[crate::binding::Refusal]) -> String {
    let mut text = format!(
        "{} the binding of task {id} is refused now; the next worker meets it:\n",
        style::warn(Out::Stderr, "warning:"),
    );
    for r in refusals {
        let _ = writeln!(
            text,
            "  {}: {}\n    decide: {}",
            r.cause,
            shown_line(&r.message),
            shown_line(&r.decide)
        );
    }
    text
}

/// The human line that says to commit a changed task file.
pub fn commit_line(commit: &crate::context::TaskCommit) -> String {
    format!(
        "the task file changed: commit {} with the work, or alone: {}\n",
        commit.path, commit.command
    )
}

/// What `gate start` did, as its human rendering says it.
pub struct Started<'a> {
    pub id: &'a str,
    pub file: &'a Path,
    pub baseline: crate::git::Oid,
    pub scope: &'a [String],
    /// The policy's notes.
    pub notes: &'a [String],
    /// The plan and the binding's judgement, when the binding was asked.
    pub binding: Option<(&'a crate::plan::Plan, &'a crate::binding::Judgement)>,
    pub warnings: &'a [String],
    pub task: &'a TaskRef,
}

/// The human rendering of `gate start`: the task started, its file and
/// baseline, its scope, the policy's notes, the binding it started under,
/// the warnings, the task, and what to do next.
pub fn started(started: &Started) -> String {
    let Started {
        id,
        file,
        baseline,
        scope,
        notes,
        binding,
        warnings,
        task,
    } = started;
    let mut text = format!(
        "started task {id}: {} · baseline {}\n",
        file.display(),
        baseline.short()
    );
    text.push_str(&format!("  scope: {}\n", shown_line(&scope.join(", "))));
    for n in notes.iter() {
        text.push_str(&format!("  note: {}\n", shown_line(n)));
    }
    if let Some((plan, judgement)) = binding {
        text.push_str(&started_binding(plan, judgement));
    }
    for w in warnings.iter() {
        text.push_str(&format!("  warning: {}\n", shown_lines(w, "    ")));
    }
    text.push_str(&task_lines(task));
    text.push_str("it is now this worktree's active task; commit its file with the work\n");
    text
}

/// The binding the task started under, and what it binds the work to: the
/// intent (its statement, the criteria served), the maintenance, or the
/// exemption's declared description and reason.
fn started_binding(plan: &crate::plan::Plan, j: &crate::binding::Judgement) -> String {
    let mut s = format!("  binding: {}", j.standing.as_str());
    match j.standing {
        crate::binding::Standing::Bound => {
            s.push('\n');
            for id in &j.intents {
                if let Some(intent) = plan.intent(id) {
                    s.push_str(&format!(
                        "  intent {}: {}\n",
                        shown_line(id),
                        shown_line(&intent.statement)
                    ));
                }
            }
            for sv in crate::binding::judged_criteria(plan, j) {
                s.push_str(&format!(
                    "    serves {}#{}: {}\n",
                    shown_line(&sv.intent),
                    shown_line(&sv.criterion),
                    shown_line(&sv.text)
                ));
            }
        }
        crate::binding::Standing::Maintenance => s.push_str(" (the work serves no intent)\n"),
        crate::binding::Standing::Exempt => {
            let class = j.named.exempt.as_deref().unwrap_or_default();
            let description = j
                .exemption_description
                .as_deref()
                .map(|d| format!(": {}", shown_line(d)))
                .unwrap_or_default();
            let because = j.named.because.as_deref().unwrap_or_default();
            s.push_str(&format!(
                " · {}{description} · because: {}\n",
                shown_line(class),
                shown_line(because)
            ));
        }
        crate::binding::Standing::Refused => s.push('\n'),
    }
    s
}

/// The human rendering of `gate handover --resolve`: the task, then its
/// answer and why.
pub fn resolved(task: &TaskRef, answer: &str, message: &str) -> String {
    let mut text = task_lines(task);
    text.push_str(&format!(
        "handover {}: {answer}\n  {}\n",
        task.id,
        shown_line(message)
    ));
    text
}

/// A quoted string for the handover's header; what JSON quoting leaves
/// (C1 controls, bidi overrides) is shown, never obeyed.
fn yaml_str(s: Option<&str>) -> String {
    s.map_or("null".into(), |s| {
        shown_line(&serde_json::to_string(s).expect("a string serialises")).into_owned()
    })
}

/// `gate context`: the task, its brief and addenda verbatim, the scope, the
/// intents it serves, their criteria and critiques, the binding, the next
/// commands and what could not be read.
pub fn context(c: &super::wire::context::ContextWire) -> String {
    let mut s = format!("{} context\n", style::strong(OUT, "gate"));
    if let Some(t) = &c.task {
        let mut named = Vec::new();
        if let Some(i) = &t.issue {
            named.push(format!("issue {}", shown_line(i)));
        }
        if let Some(i) = &t.intent {
            named.push(format!("intent {}", shown_line(i)));
        }
        if let Some(e) = &t.exemption {
            named.push(format!("exempt: {}", shown_line(&e.class)));
        }
        let named: String = named.iter().map(|n| format!(" · {n}")).collect();
        let _ = writeln!(
            s,
            "task {} · {}{named}",
            style::strong(OUT, shown_line(&t.id)),
            t.status
        );
        let _ = writeln!(
            s,
            "  file {} · operator {} · baseline {} · created {}",
            shown_line(&t.file),
            shown_line(&t.operator),
            crate::binding::short(&t.baseline),
            shown_line(&t.created_at)
        );
        if let Some(e) = &t.exemption {
            let _ = writeln!(
                s,
                "  exemption {}: {} · because: {}",
                shown_line(&e.class),
                e.description
                    .as_deref()
                    .map_or("(not declared in the policy)".into(), shown_line),
                shown_line(&e.because)
            );
        }
        s.push_str("\n## Brief (verbatim)\n\n");
        match &c.brief {
            Some(b) => {
                s.push_str(&shown(b));
                if !b.ends_with('\n') {
                    s.push('\n');
                }
            }
            None => s.push_str("(no brief recorded)\n"),
        }
        s.push_str("\n## Addenda\n\n");
        if c.addenda.is_empty() {
            s.push_str("(none)\n");
        }
        for a in &c.addenda {
            let _ = writeln!(s, "{}", shown_line(&a.heading));
            s.push_str(&shown(&a.text));
        }
        s.push('\n');
    }
    if let Some(scope) = &c.scope {
        s.push_str("scope (as recorded, with the additions recorded by `gate task scope add`)\n");
        for glob in &scope.recorded {
            let _ = writeln!(s, "  {}", shown_line(glob));
        }
        for a in &scope.added {
            let _ = writeln!(
                s,
                "  {} {}",
                shown_line(&a.glob),
                style::dim(
                    OUT,
                    format!(
                        "(added {} by {}: {})",
                        shown_line(&a.time),
                        shown_line(&a.author),
                        shown_line(&a.because)
                    )
                )
            );
        }
    }
    for i in &c.intents {
        let _ = writeln!(
            s,
            "\nintent {} ({}): {}",
            style::strong(OUT, shown_line(&i.id)),
            i.status,
            shown_line(&i.statement)
        );
        for (label, items) in [("invariants", &i.invariants), ("non-goals", &i.non_goals)] {
            if !items.is_empty() {
                let _ = writeln!(s, "  {label}:");
                for item in items {
                    let _ = writeln!(s, "    - {}", shown_line(item));
                }
            }
        }
    }
    if !c.criteria.is_empty() {
        s.push_str("\ncriteria\n");
        for cr in &c.criteria {
            let _ = writeln!(
                s,
                "  {}#{} {} {}",
                shown_line(&cr.intent),
                shown_line(&cr.criterion),
                criterion_word(cr.state),
                shown_line(&cr.text)
            );
            for e in &cr.evidence {
                let why = e
                    .why
                    .as_deref()
                    .map(|w| format!(" ({})", shown_line(w)))
                    .unwrap_or_default();
                let _ = writeln!(s, "      {} {}{why}", shown_line(&e.check), e.state);
            }
        }
    }
    for cr in &c.critiques {
        let open = match cr.open_blocking.as_slice() {
            [] => "no blocking finding open".to_string(),
            ids => format!("open and blocking: {}", shown_line(&ids.join(", "))),
        };
        let _ = writeln!(
            s,
            "\ncritique of {} (reviewed {}): {} finding{} · {open}",
            shown_line(&cr.intent),
            shown_line(&cr.reviewed_at),
            cr.findings.len(),
            if cr.findings.len() == 1 { "" } else { "s" }
        );
        for f in &cr.findings {
            let kind = match (f.blocking, f.open) {
                (true, true) => style::refused(OUT, "blocking, open"),
                (true, false) => "blocking, resolved".to_string(),
                (false, true) => "open".to_string(),
                (false, false) => "resolved".to_string(),
            };
            let _ = writeln!(
                s,
                "  {} ({kind}): {}",
                shown_line(&f.id),
                shown_line(&f.text)
            );
            if let Some(r) = &f.resolution {
                let _ = writeln!(s, "      resolution: {}", shown_line(r));
            }
        }
    }
    if let Some(b) = &c.binding {
        let standing = match b.refusals.is_empty() {
            true => style::pass(OUT, b.standing),
            false => style::refused(OUT, b.standing),
        };
        let _ = writeln!(s, "\nbinding: {standing} (policy: binding {})", b.mode);
        for n in &b.notes {
            let _ = writeln!(s, "  {} {}", style::dim(OUT, "note:"), shown_line(n));
        }
        for r in &b.refusals {
            let _ = writeln!(
                s,
                "  {} {} {}",
                style::refused(OUT, "✗"),
                style::strong(OUT, r.cause),
                shown_line(&r.message)
            );
            let _ = writeln!(
                s,
                "      {} {}",
                style::hint(OUT, "decide:"),
                shown_line(&r.decide)
            );
        }
    }
    if !c.next.is_empty() {
        s.push_str("\nnext\n");
        for n in &c.next {
            let _ = writeln!(s, "  {}", style::strong(OUT, shown_line(&n.command)));
            let _ = writeln!(s, "      {}", style::dim(OUT, shown_line(&n.why)));
        }
    }
    if !c.unknowns.is_empty() {
        s.push_str("\ncould not be read\n");
        for u in &c.unknowns {
            let _ = writeln!(
                s,
                "  {} {}: {}",
                style::unknown(OUT, "?"),
                u.part,
                shown_line(&u.reason)
            );
            let _ = writeln!(
                s,
                "      {} {}",
                style::hint(OUT, "decide:"),
                shown_line(&u.decide)
            );
        }
    }
    let verdict = match c.unknowns.is_empty() {
        true => style::pass(OUT, "every part of the context could be read"),
        false => style::unknown(OUT, "a part of the context could not be read"),
    };
    let _ = writeln!(s, "\nresult: {verdict} (exit {})", c.exit_code);
    s
}

/// A criterion's state, colored as status colors it.
fn criterion_word(state: &str) -> String {
    let word = format!("{state:<11}");
    match state {
        "passed" => style::pass(OUT, word),
        "unknown" => style::unknown(OUT, word),
        "unevidenced" => style::dim(OUT, word),
        _ => style::refused(OUT, word),
    }
}

/// The human rendering of `gate receipts fetch|push`: what moved between
/// this clone's `refs/notes/gate` and the remote's.
pub fn receipts(w: &super::wire::receipts::ReceiptsWire) -> String {
    let short = |id: &Option<String>| {
        id.as_deref()
            .map(|h| h.chars().take(12).collect::<String>())
            .unwrap_or_default()
    };
    let (remote, local) = (short(&w.remote_notes), short(&w.local_notes));
    let r = shown_line(w.remote);
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

/// What `gate init` did with one of the files it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// It existed, and `--force` was not given.
    Kept,
    Wrote,
    Overwrote,
}

/// The human rendering of `gate init`: what became of each file, then what
/// to do next.
pub fn initialised(files: &[(&str, Written)]) -> String {
    let mut text = String::new();
    for (rel, written) in files {
        text.push_str(&match written {
            Written::Kept => format!("kept {rel} (it exists; --force overwrites it)\n"),
            Written::Wrote => format!("wrote {rel}\n"),
            Written::Overwrote => format!("overwrote {rel}\n"),
        });
    }
    text.push_str(
        "next: edit .gate/plan.yaml, `gate plan validate`, commit .gate/ (before `gate install`), then on the work's branch `gate start --issue ID --brief -`\n",
    );
    text
}

/// The human rendering of `gate init --agents`: what became of AGENTS.md,
/// and, when it changed, how to commit it here (`route`).
pub fn agents_spliced(
    how: crate::agents_md::Spliced,
    route: &crate::checks::scope::CommitRoute,
) -> String {
    use crate::agents_md::{AGENTS_PATH, Spliced};
    let said = match how {
        Spliced::Current => return format!("kept {AGENTS_PATH} (its gate block is current)\n"),
        Spliced::Created => format!("wrote {AGENTS_PATH} (the gate block)"),
        Spliced::Appended => {
            format!("added the gate block to {AGENTS_PATH} (the rest kept as it was)")
        }
        Spliced::Replaced => {
            format!("updated the gate block in {AGENTS_PATH} (the rest kept as it was)")
        }
    };
    format!(
        "{said}\n{}",
        commit_next(
            AGENTS_PATH,
            "so every agent working here reads the loop",
            route
        )
    )
}

/// How to commit `file`, one of gate's files for agents just written, as
/// the policy lets it be committed here (docs/agents.md, "Committing
/// gate's agent files"): plainly; with the active task whose scope holds
/// it; or, under `scope: required`, in a task of its own — the governance
/// route, as lines to paste into a shell.
fn commit_next(file: &str, why: &str, route: &crate::checks::scope::CommitRoute) -> String {
    use crate::checks::scope::CommitRoute;
    let path = crate::path::RepoPath::from(file);
    let arg = crate::scope::scope_add_arg(&path);
    match route {
        CommitRoute::Free => format!("next: commit {file}, {why}\n"),
        CommitRoute::InTask(id) => {
            format!("next: commit {file} with task {id}'s work (its scope holds it), {why}\n")
        }
        CommitRoute::OwnTask {
            governance,
            binding_required,
            active,
        } => {
            let head = format!(
                "next: commit {file}, {why}; under `scope: required` that needs a task whose scope holds it"
            );
            let start = if *governance {
                format!(
                    "{head}: gate's own files take the governance route (docs/policy.md#governance):\n\
                     gate start --exempt governance --because \"Commit gate's files for agents\" --scope {arg} --brief - <<'EOF'\n"
                )
            } else if !binding_required {
                format!("{head}, a task of its own:\ngate start --scope {arg} --brief - <<'EOF'\n")
            } else {
                return format!(
                    "{head}, and the policy requires a binding but declares no `governance` exemption class: declare it in .gate/policy.yaml (docs/policy.md#governance), or start a task that names what the work serves with `--scope {arg}`, then commit {file} with it\n"
                );
            };
            let mut text = format!(
                "{start}Commit {file}, gate's file for the agents working here.\nEOF\n\
                 git add {arg} ':/.gate/tasks' && git commit -m \"Add {file}, gate's file for agents\"\n\
                 gate task finish    # then commit the task file as it says\n"
            );
            if let Some(id) = active {
                text.push_str(&format!(
                    "gate task switch {id}    # back to the task that was active\n"
                ));
            }
            text
        }
    }
}

/// What `gate install` did to one hook where gate installs without a hook
/// manager (docs/hooks.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookInstalled {
    /// gate's script as `<hook>.legacy`, which the pre-commit framework's
    /// (or prek's) script, `tool`, runs first; `already` when it was there
    /// as it is.
    Legacy { tool: &'static str, already: bool },
    /// The framework's configuration runs gate's hook.
    Configured { tool: &'static str },
    /// gate's own script in the hooks directory.
    Own {
        how: OwnInstalled,
        /// Whether a chained hook (`<hook>.gate-chained`) runs, when there
        /// is one.
        chained: Option<bool>,
        /// An older chained hook was kept as `<hook>.gate-chained.old` (`--force`).
        retired: bool,
    },
}

/// What became of gate's own script for one hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnInstalled {
    /// It was there as it is.
    Current,
    /// An older gate script was replaced.
    Updated,
    /// There was none.
    Installed,
    /// A hook that is not gate's was moved aside to `<hook>.gate-chained`.
    MovedAside,
}

/// Why a kept hook is silent: the scripts run it only when `[ -x ]` holds.
const NOT_RUN: &str = "is not executable, so it does not run (git would not run it either)";

/// The human rendering of `gate install` without a hook manager: the hooks
/// directory, what became of each hook, and which binary the hooks run.
pub fn hooks_installed(hooks_dir: &Path, hooks: &[(&str, HookInstalled)], binary: &str) -> String {
    use crate::hooks::CHAINED_SUFFIX;
    let mut text = format!("hooks directory: {}\n", hooks_dir.display());
    for (name, installed) in hooks {
        let line = match installed {
            HookInstalled::Legacy {
                tool,
                already: true,
            } => format!("already installed as {name}.legacy, which {tool} runs first"),
            HookInstalled::Legacy {
                tool,
                already: false,
            } => format!("installed as {name}.legacy, which {tool} runs first"),
            HookInstalled::Configured { tool } => {
                format!("run by {tool} (.pre-commit-config.yaml)")
            }
            HookInstalled::Own {
                how,
                chained,
                retired,
            } => {
                let chain = match chained {
                    None => String::new(),
                    Some(true) => format!("; {name}{CHAINED_SUFFIX} runs first"),
                    Some(false) => format!("; {name}{CHAINED_SUFFIX} {NOT_RUN}"),
                };
                let mut line = match how {
                    OwnInstalled::Current => format!("already installed{chain}"),
                    OwnInstalled::Updated => format!("updated{chain}"),
                    OwnInstalled::Installed => format!("installed{chain}"),
                    OwnInstalled::MovedAside if *chained == Some(true) => format!(
                        "installed; your hook is kept as {name}{CHAINED_SUFFIX} and runs first"
                    ),
                    OwnInstalled::MovedAside => format!(
                        "installed; your hook is kept as {name}{CHAINED_SUFFIX}, which {NOT_RUN}"
                    ),
                };
                if *retired {
                    line.push_str(&format!(
                        "; the hook chained before is kept as {name}{CHAINED_SUFFIX}.old and no longer runs (merge it into {name}{CHAINED_SUFFIX} if it should)"
                    ));
                }
                line
            }
        };
        text.push_str(&format!("  {name}: {line}\n"));
    }
    text.push_str(&format!("the hooks run {binary}, else `gate` on PATH\n"));
    text
}

/// What `gate install` did in one husky hook script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HuskyInstalled {
    pub name: &'static str,
    /// The line added to the script; `None` when it was there already.
    pub added: Option<String>,
    /// An earlier `gate install` had replaced husky's stub, and it is back.
    pub stub_restored: bool,
}

/// The human rendering of `gate install` where husky runs the hooks: where
/// gate's lines go, what became of each, and to commit them.
pub fn husky_installed(hooks_dir: &Path, scripts: &Path, hooks: &[HuskyInstalled]) -> String {
    let mut text = format!(
        "husky runs the hooks (core.hooksPath {}): gate's lines go in {}/<hook>\n",
        hooks_dir.display(),
        scripts.display()
    );
    for hook in hooks {
        let name = hook.name;
        let state = match &hook.added {
            None => "already there".to_string(),
            Some(line) => format!("added `{line}`"),
        };
        let repaired = if hook.stub_restored {
            format!("; husky's {name} stub is restored")
        } else {
            String::new()
        };
        text.push_str(&format!("  {name}: {state}{repaired}\n"));
    }
    text.push_str(&format!(
        "the lines run `gate` on PATH; commit {} so the team's hooks run gate too\n",
        scripts.display()
    ));
    text
}

/// The human rendering of `gate install` where lefthook's configuration
/// (`configs`, as shown) already runs every gate hook.
pub fn lefthook_runs(hooks_dir: &Path, configs: &[String], names: &[&str]) -> String {
    let mut text = format!(
        "lefthook runs the hooks ({}): gate's commands are in {}\n",
        hooks_dir.display(),
        configs.join(", ")
    );
    for name in names {
        text.push_str(&format!("  {name}: run by lefthook\n"));
    }
    text
}

/// The human rendering of `gate install`'s refusal where lefthook runs the
/// hooks and its configuration lacks gate's `missing` hooks: what to add,
/// where (`no_config`: there is no lefthook configuration yet), and that a
/// pre-push command without `use_stdin` never reaches gate (`lacks_stdin`).
pub fn lefthook_missing(
    hooks_dir: &Path,
    missing: &[&str],
    no_config: bool,
    lacks_stdin: bool,
) -> String {
    let file = if no_config {
        "lefthook.yml"
    } else {
        "lefthook-local.yml (yours alone) or lefthook.yml (the team's)"
    };
    let stdin = if lacks_stdin {
        "gate's pre-push command there lacks `use_stdin: true`: without it the push's refs never reach gate.\n"
    } else {
        ""
    };
    format!(
        "lefthook runs the hooks ({}), and it renames hooks that are not its own: gate installs none there.\n{stdin}Add to {file}:\n\n{}\nthen run `lefthook install` and `gate install` again.\n",
        hooks_dir.display(),
        lefthook_snippet(missing)
    )
}

/// What lefthook's configuration needs for gate: one command per hook.
pub fn lefthook_snippet(names: &[&str]) -> String {
    let mut text = String::new();
    for name in names {
        let run = match *name {
            "pre-commit" => "gate hook pre-commit".to_string(),
            "pre-push" => "gate hook pre-push {1} {2}\n      use_stdin: true".to_string(),
            "prepare-commit-msg" | "post-checkout" => format!("gate hook {name} {{1}} {{2}} {{3}}"),
            other => format!("gate hook {other}"),
        };
        text.push_str(&format!(
            "{name}:\n  commands:\n    gate:\n      run: {run}\n"
        ));
    }
    text
}

/// The human rendering of `gate install`'s refusal where the pre-commit
/// framework (or prek), `tool`, runs `names` and its configuration does not
/// run gate's: what to add, or `--force`.
pub fn framework_missing(tool: &str, names: &[&str], hooks_dir: &Path) -> String {
    format!(
        "{tool} runs {} here ({}): gate does not move its script.\nAdd gate to .pre-commit-config.yaml:\n\n{}\nthen run `gate install` again; or run `gate install --force` to install gate's hook as <hook>.legacy, which {tool} runs first.\n",
        names.join(", "),
        hooks_dir.display(),
        pre_commit_snippet(names)
    )
}

/// What `.pre-commit-config.yaml` needs for gate's hooks that the pre-commit
/// framework (or prek) runs: `repo: local` entries with the installed gate.
pub fn pre_commit_snippet(names: &[&str]) -> String {
    let mut text = String::from("  - repo: local\n    hooks:\n");
    for name in names {
        text.push_str(&format!(
            "      - id: gate-{name}\n        name: gate {name}\n        entry: gate hook {name}\n        language: system\n        pass_filenames: {}\n        always_run: true\n        stages: [{name}]\n",
            if *name == "prepare-commit-msg" { "true" } else { "false" }
        ));
    }
    text
}

/// What `gate uninstall` did to one hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookRemoved {
    /// gate's hook was not there.
    NotInstalled,
    /// gate's hook is removed.
    Removed,
    /// gate's hook is removed and the hook it chained is back in its place.
    Restored,
    /// The hook is not gate's: left as it is.
    NotGates,
    /// The hook is the framework's: gate's `<hook>.legacy` is removed.
    LegacyRemoved,
    /// gate's line (`line`) is removed from a husky script.
    HuskyLineRemoved {
        line: String,
        script: std::path::PathBuf,
    },
}

/// The human rendering of `gate uninstall`: the hooks directory and what
/// became of each hook.
pub fn hooks_uninstalled(hooks_dir: &Path, hooks: &[(&str, HookRemoved)]) -> String {
    let mut text = format!("hooks directory: {}\n", hooks_dir.display());
    for (name, removed) in hooks {
        let line = match removed {
            HookRemoved::NotInstalled => "not installed".to_string(),
            HookRemoved::Removed => "removed".to_string(),
            HookRemoved::Restored => "removed; your earlier hook is restored".to_string(),
            HookRemoved::NotGates => "not gate's; left as it is".to_string(),
            HookRemoved::LegacyRemoved => format!("not gate's; removed gate's {name}.legacy"),
            HookRemoved::HuskyLineRemoved { line, script } => {
                format!("removed `{line}` from {}", script.display())
            }
        };
        text.push_str(&format!("  {name}: {line}\n"));
    }
    text
}

/// What `gate install|uninstall --agent claude-code` did to Claude Code's
/// settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingsWritten {
    Unchanged,
    Updated,
    /// There was no file.
    Written,
    /// gate's hooks were all it held: the file is gone (and `.claude/`,
    /// when that left it empty).
    Removed,
}

/// The human rendering of `gate install|uninstall --agent claude-code`;
/// after an install that changed the file, how to commit it here.
pub fn settings_written(
    file: &str,
    written: SettingsWritten,
    route: Option<&crate::checks::scope::CommitRoute>,
) -> String {
    let said = match written {
        SettingsWritten::Unchanged => "unchanged",
        SettingsWritten::Updated => "updated",
        SettingsWritten::Written => "written",
        SettingsWritten::Removed => "removed (gate's hooks were all it held)",
    };
    let mut text = format!("{file}: {said}\n");
    if let Some(route) = route
        && matches!(written, SettingsWritten::Updated | SettingsWritten::Written)
    {
        text.push_str(&commit_next(
            file,
            "so Claude Code runs gate's hooks for everyone working here",
            route,
        ));
    }
    text
}

/// The human rendering of `gate task list`: one line per task (`*` marks
/// the active one), then the task files that could not be read, and an
/// active task without a file.
pub fn task_list(tasks: &[&Task], errors: &[String], active: Option<&str>) -> String {
    let mut text = String::new();
    if tasks.is_empty() && errors.is_empty() {
        text.push_str("no tasks (start one with `gate start`)\n");
    }
    for t in tasks {
        let r = &t.record;
        let mark = if active == Some(r.id.as_str()) {
            "*"
        } else {
            " "
        };
        let named = r
            .issue
            .as_ref()
            .map(|i| format!("issue {}", shown_line(i)))
            .or_else(|| {
                r.intent
                    .as_ref()
                    .map(|i| format!("intent {}", shown_line(i)))
            })
            .or_else(|| {
                r.exemption
                    .as_ref()
                    .map(|e| format!("exempt {}", shown_line(&e.class)))
            })
            .unwrap_or_else(|| "nothing named".into());
        let first = t
            .body
            .brief
            .as_ref()
            .and_then(|b| {
                b.text
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .map(str::to_string)
            })
            .unwrap_or_default();
        text.push_str(&format!(
            "{mark} {:<20} {:<9} {:<16} {}\n",
            shown_line(&r.id),
            r.status.as_str(),
            named,
            shown_line(first.trim())
        ));
    }
    for e in errors {
        text.push_str(&format!("! {}\n", shown_line(e)));
    }
    if let Some(a) = active
        && !tasks.iter().any(|t| t.record.id == a)
    {
        text.push_str(&format!(
            "! the active task `{}` has no task file\n",
            shown_line(a)
        ));
    }
    text
}

/// The human rendering of `gate task show`: the task (`shown_as`, its
/// digest), its record, the scope
/// additions the doors judge with (`trusted`) and any the file holds that
/// no command recorded, the exemption, the brief and addenda, the notes,
/// and the problems of the file.
pub fn task_shown(
    task: &Task,
    shown_as: &TaskRef,
    trusted: &[crate::brief::ScopeAddition],
) -> String {
    let r = &task.record;
    let mut text = task_lines(shown_as);
    text.push_str(&format!(
        "  status {} · created {} by {} ({}) · baseline {}\n  scope: {}\n",
        r.status.as_str(),
        shown_line(&r.created_at),
        shown_line(&r.operator),
        shown_line(&r.created_by),
        shown_line(r.baseline.get(..12).unwrap_or(&r.baseline)),
        shown_line(&r.scope.join(", "))
    ));
    for added in trusted {
        text.push_str(&format!(
            "  scope added: {} ({}, {}): {}\n",
            shown_line(&added.glob),
            shown_line(&added.author),
            shown_line(&added.time),
            shown_line(&added.because)
        ));
    }
    for added in &task.scope_added {
        if !trusted.iter().any(|t| t.glob == added.glob) {
            text.push_str(&format!(
                "  ! scope entry not recorded by `gate task scope add`, so not judged with: {}\n",
                shown_line(&added.glob)
            ));
        }
    }
    if let Some(e) = &r.exemption {
        text.push_str(&format!(
            "  exemption: {} because {}\n",
            shown_line(&e.class),
            shown_line(&e.because)
        ));
    }
    text.push('\n');
    text.push_str(&brief_and_addenda(task));
    if let Some(n) = &task.body.notes
        && !n.text.trim().is_empty()
    {
        text.push_str("\n## Implementation notes\n");
        text.push_str(&shown(&n.text));
    }
    for p in &task.body.problems {
        text.push_str(&format!(
            "\n! {}:{}: {}\n",
            task.file.display(),
            p.line,
            shown_line(&p.message)
        ));
    }
    text
}

/// The branch `gate task switch` was run on, and whether the task is now
/// tied to it (the error's message when it could not be recorded).
pub struct SwitchedOn<'a> {
    pub branch: &'a str,
    pub tied: Result<(), String>,
}

/// The human rendering of `gate task switch`: the active task, the branch
/// it is tied to (or why not), and the task.
pub fn switched(id: &str, on: Option<&SwitchedOn>, task: &TaskRef) -> String {
    let mut text = format!("active task: {}\n", shown_line(id));
    if let Some(on) = on {
        match &on.tied {
            Ok(()) => text.push_str(&format!("  on branch {}\n", shown_line(on.branch))),
            Err(why) => text.push_str(&format!(
                "  warning: not recorded for branch {} ({}): checking it out again will not re-activate the task\n",
                shown_line(on.branch),
                shown_line(why)
            )),
        }
    }
    text.push_str(&task_lines(task));
    text
}

/// A change a task verb made to a task's file.
pub enum TaskChange<'a> {
    /// An entry (`amendment`, `decision`, `note`) appended to `file`.
    Appended { what: &'a str, file: &'a Path },
    /// The task closed with `status` (`completed`, `abandoned`).
    Closed { id: &'a str, status: &'a str },
    /// `glob` added to the task's scope, appended to `file`;
    /// `not_recorded` says why this clone's scope log did not take it.
    ScopeAdded {
        id: &'a str,
        glob: &'a str,
        file: &'a Path,
        not_recorded: Option<&'a str>,
    },
}

/// The human rendering of a change a task verb made (`gate task amend`,
/// `ask`, `note`, `finish`, `abandon`, `scope add`): what changed, then the
/// commit to make.
pub fn task_changed(change: &TaskChange, commit: &crate::context::TaskCommit) -> String {
    let mut text = match change {
        TaskChange::Appended { what, file } => {
            format!("{what} appended to {}\n", file.display())
        }
        TaskChange::Closed { id, status } => format!("task {id}: {status}\n"),
        TaskChange::ScopeAdded {
            id,
            glob,
            file,
            not_recorded,
        } => {
            let mut said = format!(
                "task {id}: scope adds {glob} (appended to {})\n",
                file.display()
            );
            if let Some(why) = not_recorded {
                said.push_str(&format!(
                    "  warning: not recorded in this clone ({}): the doors count the addition once the task file is committed\n",
                    shown_line(why)
                ));
            }
            said
        }
    };
    text.push_str(&commit_line(commit));
    text
}

/// The human rendering of `gate task scope add` for a glob the task's scope
/// already holds.
pub fn scope_already(id: &str, glob: &str) -> String {
    format!("task {id}: {glob} is in its scope already; nothing written\n")
}

/// A hook's report (`gate hook pre-commit`, `pre-push`): one line when
/// nothing was found, a few lines when nothing blocks (advisory findings),
/// the whole report when something blocks.
pub fn hook_report(report: &Report) -> String {
    let quiet = report.checks.iter().all(|c| c.findings.is_empty()) && report.notes.is_empty();
    if quiet {
        let parts: Vec<String> = report
            .checks
            .iter()
            .map(|c| format!("{}: {}", c.check, c.summary))
            .collect();
        let what = if parts.is_empty() {
            "no check applies".to_string()
        } else {
            parts.join(" · ")
        };
        format!("gate {}: pass · {what}\n", report.verb)
    } else if report.exit_code() == ExitCode::Pass {
        render_compact(report)
    } else {
        render(report)
    }
}

/// What prepare-commit-msg, which never fails a commit, says on stderr
/// when it could not add the trailer.
pub fn trailer_not_added(message: &str) -> String {
    format!(
        "gate: prepare-commit-msg: {}; the message is left as it was\n",
        shown_line(message)
    )
}

/// What prepare-commit-msg says on stderr when the message it is handed
/// (reused by `git commit --amend`, `-c`, `-C`) names task `named` while
/// `active` is the active task: the commit is `named`'s (docs/hooks.md).
pub fn reused_trailer(key: &str, named: &str, active: &str) -> String {
    let (key, named, active) = (shown_line(key), shown_line(named), shown_line(active));
    format!(
        "gate: this commit keeps `{key}: {named}` from the message it reuses, while {active} is the active task: it counts as task {named}'s, and the push judges its paths by {named}'s scope (pre-commit judged them by {active}'s). If it is {named}'s work, run `gate task switch {named}`; if it is {active}'s, change the trailer to `{key}: {active}` (in the editor, or with `git commit --amend` after).\n"
    )
}

/// What post-checkout, which never fails a checkout, says on stderr when it
/// could not do its work.
pub fn checkout_failed(message: &str) -> String {
    format!("gate: post-checkout: {message}\n")
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
            shown_line(e)
        )),
    }
    let remote = sent.remote;
    match &sent.travelled {
        Travelled::NotWanted => said.push_str(&format!(
            "gate: {notes} not pushed (gate.pushReceipts is false): `gate receipts push {remote}` sends it\n"
        )),
        Travelled::Nothing => {}
        Travelled::Sent => {
            said.push_str(&format!("gate: {notes} pushed to {}\n", shown_line(remote)));
        }
        Travelled::Failed(e) => said.push_str(&format!(
            "gate: receipts did not travel to {r}: {e}\ngate: CI will report each required check without a receipt as receipt_missing (\"no receipt travelled with the push\"); fix it, then run `gate receipts push {r}`\n",
            r = shown_line(remote),
            e = shown_line(e),
        )),
        Travelled::Unreadable(e) => said.push_str(&format!(
            "gate: receipts did not travel to {}: {notes} cannot be read: {}\n",
            shown_line(remote),
            shown_line(e)
        )),
    }
    said
}

/// What post-checkout did with the active task (decision 0007).
pub enum CheckedOut<'a> {
    /// The one task started on the branch is active.
    StartedOn { id: &'a str },
    /// The active task follows HEAD onto a branch just created; why the
    /// branch could not be recorded for it, if it could not.
    Follows {
        id: &'a str,
        not_recorded: Option<&'a str>,
    },
    /// No task was started on the branch, and none was active.
    NoneStarted,
    /// No task was started on the branch: the active one (`was`; `None`
    /// when the pointer was unreadable) is cleared.
    Cleared { was: Option<&'a str> },
    /// Several tasks were started on the branch: the active one is cleared.
    Several { ids: &'a [String] },
}

/// post-checkout's one line when HEAD is detached: the pointer is left
/// alone; what it holds (`Some(None)`: no task; `None`: it cannot be read).
pub fn head_detached(active: Option<Option<&str>>) -> String {
    match active {
        Some(Some(c)) => format!("gate: HEAD is detached; the active task is still {c}\n"),
        Some(None) => "gate: HEAD is detached; no active task\n".to_string(),
        None => "gate: HEAD is detached; the active task pointer is unreadable (`gate task switch ID` repairs it)\n".to_string(),
    }
}

/// post-checkout's one line: the active task after the checkout of the
/// branch shown as `where_` (already made one line).
pub fn checked_out(where_: &str, checked: &CheckedOut) -> String {
    match checked {
        CheckedOut::StartedOn { id } => format!("gate: active task {id} (started on {where_})\n"),
        CheckedOut::Follows {
            id,
            not_recorded: None,
        } => format!("gate: active task {id} (follows HEAD onto the new branch {where_})\n"),
        CheckedOut::Follows {
            id,
            not_recorded: Some(why),
        } => format!(
            "gate: active task {id} (follows HEAD onto the new branch {where_}; not recorded for it: {} — `gate task switch {id}` records it)\n",
            shown_line(why)
        ),
        CheckedOut::NoneStarted => {
            format!("gate: no active task (none was started on {where_})\n")
        }
        CheckedOut::Cleared { was: Some(c) } => {
            format!("gate: no task was started on {where_}; cleared the active task (was {c})\n")
        }
        CheckedOut::Cleared { was: None } => format!(
            "gate: no task was started on {where_}; cleared the active task pointer, which was unreadable\n"
        ),
        CheckedOut::Several { ids } => format!(
            "gate: {} tasks were started on {where_} ({}); cleared the active task — `gate task switch ID` picks one\n",
            ids.len(),
            ids.join(", ")
        ),
    }
}

/// post-checkout's line on stderr when which tasks were started on the
/// branch cannot be told (`why`): the active task is left as it was.
pub fn started_on_unknown(branch: &str, why: &str) -> String {
    format!(
        "gate: cannot tell which tasks were started on {} ({}); the active task is left as it was\n",
        shown_line(branch),
        shown_line(why)
    )
}

/// post-checkout's line on stderr when whether the branch (`where_`,
/// already made one line) is new cannot be told (`why`).
pub fn new_branch_unknown(where_: &str, why: &str) -> String {
    format!(
        "gate: cannot tell whether {where_} is a new branch ({}); judging it as an existing one\n",
        shown_line(why)
    )
}

/// The reason Claude Code's pre-tool-use hook gives for denying a Bash call
/// that runs `git {subcommand}` so that gate's hook is skipped (`how`).
pub fn bypass_denied(subcommand: &str, how: &str) -> String {
    format!(
        "gate: this runs `git {subcommand}` with {how}, which skips gate's {hook} hook. Run `git {subcommand}` without it: when the hook refuses, its message names the way through (`gate may-touch`, `gate task scope add`, `gate verify`, `gate status`). Never skip it.",
        hook = if subcommand == "push" {
            "pre-push"
        } else {
            "pre-commit"
        },
    )
}

/// The reason Claude Code's pre-tool-use hook gives for denying a Bash
/// call that changes `core.hooksPath` (`how`: the words that do it).
pub fn hooks_path_denied(how: &str) -> String {
    format!(
        "gate: this runs `{how}`, which changes where git looks for hooks (core.hooksPath), so gate's hooks would not run. Leave core.hooksPath as `gate install` set it: when a hook refuses, its message names the way through (`gate may-touch`, `gate task scope add`, `gate verify`, `gate status`). Never skip it."
    )
}

/// The reason Claude Code's pre-tool-use hook gives for denying a Bash
/// call that uninstalls the hooks, or removes or changes a hook's file
/// (`how`: the words that do it).
pub fn hooks_removal_denied(how: &str) -> String {
    format!(
        "gate: this runs `{how}`, which removes or changes gate's git hooks. Installing and removing them is the operator's (`gate install`, `gate uninstall`), never an agent's: when a hook refuses, its message names the way through (`gate may-touch`, `gate task scope add`, `gate verify`, `gate status`)."
    )
}

/// The reason Claude Code's pre-tool-use hook gives for denying `git
/// {subcommand}` run through `via` (`xargs`, `find -exec`), whose
/// arguments the guard cannot read.
pub fn unreadable_denied(subcommand: &str, via: &str) -> String {
    format!(
        "gate: this runs `git {subcommand}` through {via}, which adds arguments gate cannot read (one could skip gate's hooks). Run `git {subcommand}` directly, with its arguments written out."
    )
}

/// The reason Claude Code's pre-tool-use hook gives for denying a write
/// (`tool` to `given`) inside the git directory.
pub fn git_dir_denied(tool: &str, given: &str) -> String {
    format!(
        "gate: {tool} {given}: that is inside the git directory, where the hooks and gate's local state live; an agent never writes there. Work in the work tree; installing hooks is `gate install`'s."
    )
}

/// The reason Claude Code's pre-tool-use hook gives for denying a write
/// (`tool` to `path`) the task's scope refuses or cannot decide: the
/// scope's reason and what would decide it.
pub fn scope_denied(tool: &str, path: &str, reason: &str, decide: Option<&str>) -> String {
    format!(
        "gate: {tool} {path}: {reason}{}",
        decide.map(|d| format!(". Next: {d}")).unwrap_or_default()
    )
}

/// What is left before task `id`'s acceptance checks stand, as Claude
/// Code's stop hook says it: each check not passed on the current sources
/// (`left`, never empty; a passed one is not listed) with the command that
/// moves it on.
pub fn work_left(id: &str, left: &[(&str, &State)]) -> String {
    let lines: Vec<String> = left
        .iter()
        .filter_map(|&(aid, state)| {
            Some(match state {
                State::Passed { .. } => return None,
                State::Running { .. } => {
                    format!("- {aid}: running: wait for the `gate verify {aid}` under way")
                }
                State::Stale { why, .. } => {
                    format!("- {aid}: stale ({}): run `gate verify {aid}`", why.key())
                }
                State::Failed { .. } => {
                    format!("- {aid}: failed: fix it, then run `gate verify {aid}`")
                }
                State::Missing => format!("- {aid}: missing: run `gate verify {aid}`"),
                State::Unknown { reason, .. } => {
                    format!("- {aid}: unknown ({reason}): run `gate verify {aid}`")
                }
            })
        })
        .collect();
    format!(
        "task {id} is not done: {} check{} it depends on {} not passed on the current sources.\n{}\nThen `gate status` shows each check's standing.",
        lines.len(),
        if lines.len() == 1 { "" } else { "s" },
        if lines.len() == 1 { "has" } else { "have" },
        lines.join("\n")
    )
}

/// Why Claude Code's stop hook cannot tell whether the task's checks
/// passed: the failure's message and hint.
pub fn work_left_unknown(message: &str, hint: Option<&str>) -> String {
    format!(
        "gate cannot tell whether the task's checks passed: {message}{}",
        hint.map(|h| format!(" ({h})")).unwrap_or_default()
    )
}

/// What Claude Code's stop hook says when it lets Claude stop although work
/// is left (it blocked once already: blocking again could loop).
pub fn stopping_with_work_left(reason: &str) -> String {
    format!("gate: stopping with work left: {reason}")
}

/// A verb that could not do its work, on stderr: the error and its hint.
/// Messages quote what files hold: shown, never obeyed.
pub fn failure(f: &crate::error::Failure) -> String {
    let mut text = format!("gate: error: {}\n", shown_lines(&f.message, "  "));
    if let Some(h) = &f.hint {
        text.push_str(&format!("gate: hint: {}\n", shown_lines(h, "  ")));
    }
    text
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

#[cfg(test)]
mod tests {
    //! The lines no integration test reaches, pinned to the bytes the verbs
    //! wrote before their rendering moved here.
    use super::*;
    use crate::context::TaskCommit;

    #[test]
    fn post_checkout_lines_for_an_unreadable_pointer_and_an_unknown_branch() {
        assert_eq!(
            checked_out("topic", &CheckedOut::Cleared { was: None }),
            "gate: no task was started on topic; cleared the active task pointer, which was unreadable\n"
        );
        assert_eq!(
            head_detached(None),
            "gate: HEAD is detached; the active task pointer is unreadable (`gate task switch ID` repairs it)\n"
        );
        assert_eq!(
            new_branch_unknown("topic", "bad\nref"),
            "gate: cannot tell whether topic is a new branch (bad\\nref); judging it as an existing one\n"
        );
    }

    #[test]
    fn uninstall_and_settings_lines() {
        assert_eq!(
            hooks_uninstalled(
                Path::new("/r/.git/hooks"),
                &[("pre-commit", HookRemoved::NotGates)]
            ),
            "hooks directory: /r/.git/hooks\n  pre-commit: not gate's; left as it is\n"
        );
        assert_eq!(
            settings_written(".claude/settings.json", SettingsWritten::Unchanged, None),
            ".claude/settings.json: unchanged\n"
        );
    }

    #[test]
    fn agent_files_without_the_governance_class_get_the_route_the_binding_allows() {
        use crate::checks::scope::CommitRoute;
        let route = |binding_required| CommitRoute::OwnTask {
            governance: false,
            binding_required,
            active: None,
        };
        let plain = settings_written(
            ".claude/settings.json",
            SettingsWritten::Written,
            Some(&route(false)),
        );
        assert!(
            plain.contains("\ngate start --scope ':/.claude/settings.json' --brief - <<'EOF'\n"),
            "{plain}"
        );
        assert!(!plain.contains("gate task switch"), "{plain}");
        let bound = agents_spliced(crate::agents_md::Spliced::Created, &route(true));
        assert!(
            bound.contains("declares no `governance` exemption class")
                && bound.contains("`--scope ':/AGENTS.md'`")
                && !bound.contains("\ngate start"),
            "{bound}"
        );
        // Nothing to commit after an uninstall: no route.
        assert_eq!(
            settings_written(
                ".claude/settings.json",
                SettingsWritten::Removed,
                Some(&route(false))
            ),
            ".claude/settings.json: removed (gate's hooks were all it held)\n"
        );
    }

    #[test]
    fn task_lines_no_test_of_a_verb_reaches() {
        assert_eq!(
            scope_already("T-1", "docs/**"),
            "task T-1: docs/** is in its scope already; nothing written\n"
        );
        assert_eq!(
            task_list(&[], &[], Some("T-9")),
            "no tasks (start one with `gate start`)\n! the active task `T-9` has no task file\n"
        );
        let on = SwitchedOn {
            branch: "topic",
            tied: Err("locked".into()),
        };
        let task = TaskRef {
            id: "T-1".into(),
            issue: None,
            intent: None,
            exemption: None,
            brief: None,
        };
        assert!(switched("T-1", Some(&on), &task).starts_with(
            "active task: T-1\n  warning: not recorded for branch topic (locked): checking it out again will not re-activate the task\ntask "
        ));
        let commit = TaskCommit {
            path: ".gate/tasks/T-1.md".into(),
            command: "git commit".into(),
        };
        let added = TaskChange::ScopeAdded {
            id: "T-1",
            glob: "docs/**",
            file: Path::new(".gate/tasks/T-1.md"),
            not_recorded: Some("locked"),
        };
        assert_eq!(
            task_changed(&added, &commit),
            "task T-1: scope adds docs/** (appended to .gate/tasks/T-1.md)\n  warning: not recorded in this clone (locked): the doors count the addition once the task file is committed\nthe task file changed: commit .gate/tasks/T-1.md with the work, or alone: git commit\n"
        );
    }

    #[test]
    fn verify_and_stop_lines() {
        assert_eq!(
            verify_attach_failed("unit", "1a2b3c4d", "no space"),
            "unit: the receipt could not be attached to commit 1a2b3c4d: no space\n"
        );
        let left = work_left("T-1", &[("unit", &State::Missing)]);
        assert_eq!(
            left,
            "task T-1 is not done: 1 check it depends on has not passed on the current sources.\n- unit: missing: run `gate verify unit`\nThen `gate status` shows each check's standing."
        );
        assert_eq!(
            stopping_with_work_left(&left),
            format!("gate: stopping with work left: {left}")
        );
    }
}
