//! A check report for a person: every check, its findings grouped under
//! the commit they name, what decides each, and the result line; the
//! compact and capped forms, and the hook's one-screen report.

use super::*;

/// Render a whole report for a person.
pub fn render(report: &Report) -> String {
    render_capped(report, None)
}

/// [`render`], with the counts of every finding after the checks when
/// `--max-findings` left some out (docs/ci.md#report-formats).
pub fn render_capped(report: &Report, counts: Option<&Counts>) -> String {
    let mut s = String::new();
    let policy = FileText::new(&report.policy.describe(true)).to_string();
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
        let _ = writeln!(s, "{} {}", style::dim(OUT, "note:"), FileText::new(note));
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
        FileText::new(&report.policy.describe(false))
    );
    for check in &report.checks {
        let Some(first) = check.findings.first() else {
            let _ = writeln!(
                s,
                "  {} {} · {}",
                check.check,
                outcome_word(check.outcome),
                FileText::new(&check.summary)
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
            FileText::new(&check.summary),
            style::strong(OUT, first.cause),
            FileText::new(&first.message)
        );
    }
    for note in &report.notes {
        let _ = writeln!(s, "  {} {}", style::dim(OUT, "note:"), FileText::new(note));
    }
    let _ = writeln!(
        s,
        "  {}",
        style::dim(OUT, "`gate check` shows every finding and what decides it")
    );
    s
}

pub(super) fn outcome_word(o: Outcome) -> String {
    match o {
        Outcome::Pass => style::pass(OUT, "pass"),
        Outcome::Refused => style::refused(OUT, "refused"),
        Outcome::Unknown => style::unknown(OUT, "unknown"),
    }
}

pub(super) fn cost(check: &CheckReport) -> &'static str {
    match (check.outcome, check.mode) {
        (Outcome::Pass, _) => "",
        (_, Mode::Required) => "blocks (required)",
        (_, Mode::Advisory) => "reported only (advisory)",
        (_, Mode::Off) => "",
    }
}

pub(super) fn check_block<'a>(
    check: &'a CheckReport,
    said: &mut HashSet<(&'a str, &'a str)>,
) -> String {
    let mut s = String::new();
    // Pad the plain word, then color it, so alignment survives escape codes.
    let word = format!("{:<8}", check.outcome.as_str());
    let colored = word.replacen(check.outcome.as_str(), &outcome_word(check.outcome), 1);
    let cost = cost(check);
    let summary = if check.summary.is_empty() {
        String::new()
    } else {
        format!(" · {}", FileText::new(&check.summary))
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

pub(super) fn mark(f: &Finding) -> String {
    match f.severity {
        Severity::Blocker => style::refused(OUT, "✗"),
        Severity::Unknown => style::unknown(OUT, "?"),
        Severity::Warn => style::warn(OUT, "!"),
        Severity::Info => style::dim(OUT, "·"),
    }
}

pub(super) fn finding_lines(f: &Finding, indent: &str) -> String {
    let mark = mark(f);
    let mut s = String::new();
    let place = match (&f.subject.at().file, f.subject.at().line) {
        (Some(file), Some(line)) if !f.message.contains(file.as_str()) => {
            format!(" ({}:{line})", FileText::new(file))
        }
        (Some(file), None) if !f.message.contains(file.as_str()) => {
            format!(" ({})", FileText::new(file))
        }
        _ => String::new(),
    };
    let _ = writeln!(
        s,
        "{indent}{mark} {} {}{place}",
        style::strong(OUT, f.cause),
        FileText::new(&f.message)
    );
    if !f.decide.is_empty() {
        let _ = writeln!(
            s,
            "{indent}  {} {}",
            style::hint(OUT, "decide:"),
            FileText::new(&f.decide)
        );
    }
    s
}

pub(super) fn result_line(report: &Report) -> String {
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

/// A verb that could not do its work, on stderr: the error and its hint.
/// Messages quote what files hold: shown, never obeyed.
pub fn failure(f: &crate::error::Failure) -> String {
    let mut text = format!("gate: error: {}\n", FileText::new(&f.message).lines("  "));
    if let Some(h) = &f.hint {
        text.push_str(&format!("gate: hint: {}\n", FileText::new(h).lines("  ")));
    }
    text
}
