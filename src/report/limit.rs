//! `--max-findings N` (docs/ci.md#report-formats): a range can hold
//! thousands of findings, so the human, GitHub and Markdown renderings
//! show the first N and then counts of them all, by cause and by commit.
//! A capped report keeps every check's outcome and the exit code: only the
//! findings listed are fewer. JSON and SARIF always hold every finding.

use std::borrow::Cow;

use crate::verdict::{CheckReport, Report};

/// How many findings a report holds, by cause and by commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counts {
    pub total: usize,
    /// How many a rendering lists (`total` when not capped).
    pub shown: usize,
    /// `(check, cause, count)`, most first, then by name.
    pub by_cause: Vec<(&'static str, &'static str, usize)>,
    /// `(commit, count, causes)` for the findings about a commit, most
    /// first, then in the order the report names them.
    pub by_commit: Vec<(String, usize, Vec<&'static str>)>,
}

impl Counts {
    /// The counts of every finding of `report`, of which `shown` are listed.
    pub fn of(report: &Report, shown: usize) -> Counts {
        let mut by_cause: Vec<(&'static str, &'static str, usize)> = Vec::new();
        let mut by_commit: Vec<(String, usize, Vec<&'static str>)> = Vec::new();
        // Where each commit sits in `by_commit`: a range of 10,000 commits
        // has as many findings, and a search of the list for each cost a
        // tenth of the whole check on git/git.
        let mut commit_at: std::collections::HashMap<&str, usize> = Default::default();
        let mut total = 0;
        for f in report.checks.iter().flat_map(|c| &c.findings) {
            total += 1;
            match by_cause
                .iter_mut()
                .find(|(check, cause, _)| *check == f.check && *cause == f.cause)
            {
                Some(entry) => entry.2 += 1,
                None => by_cause.push((f.check, f.cause, 1)),
            }
            let Some(commit) = &f.subject.commit else {
                continue;
            };
            match commit_at.get(commit.as_str()) {
                Some(&at) => {
                    let entry = &mut by_commit[at];
                    entry.1 += 1;
                    if !entry.2.contains(&f.cause) {
                        entry.2.push(f.cause);
                    }
                }
                None => {
                    commit_at.insert(commit, by_commit.len());
                    by_commit.push((commit.clone(), 1, vec![f.cause]));
                }
            }
        }
        by_cause.sort_by(|a, b| b.2.cmp(&a.2).then((a.0, a.1).cmp(&(b.0, b.1))));
        // A stable sort keeps the report's order among equal counts.
        by_commit.sort_by_key(|(_, n, _)| std::cmp::Reverse(*n));
        Counts {
            total,
            shown: shown.min(total),
            by_cause,
            by_commit,
        }
    }

    /// Whether findings were left out of the listing.
    pub fn capped(&self) -> bool {
        self.shown < self.total
    }
}

/// How many commits a capped rendering names in its counts by commit; the
/// rest are counted in one line.
pub const COMMITS_NAMED: usize = 20;

/// `report` with at most `max` findings (the first, in check order), and
/// the counts of all of them. Outcomes stay as they were: a check whose
/// findings are not listed still refuses.
pub fn cap(report: &Report, max: Option<usize>) -> (Cow<'_, Report>, Counts) {
    let Some(max) = max.filter(|&max| max < report.checks.iter().map(|c| c.findings.len()).sum())
    else {
        // Nothing to leave out: the report itself, not a copy of it (a
        // whole history's report is tens of megabytes).
        return (Cow::Borrowed(report), Counts::of(report, usize::MAX));
    };
    let counts = Counts::of(report, max);
    let mut room = max;
    let checks = report
        .checks
        .iter()
        .map(|c| {
            let keep = c.findings.len().min(room);
            room -= keep;
            CheckReport {
                check: c.check,
                mode: c.mode,
                outcome: c.outcome,
                summary: c.summary.clone(),
                findings: c.findings[..keep].to_vec(),
            }
        })
        .collect();
    let capped = Report {
        verb: report.verb.clone(),
        policy: report.policy.clone(),
        task: report.task.clone(),
        checks,
        skipped: report.skipped.clone(),
        notes: report.notes.clone(),
    };
    (Cow::Owned(capped), counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Mode;
    use crate::verdict::{CheckReport, Finding, Outcome, PolicyOrigin, Subject};

    fn finding(cause: &'static str, commit: &str) -> Finding {
        Finding::blocker("provenance", cause, String::new(), String::new()).with_subject(Subject {
            commit: Some(commit.into()),
            ..Subject::default()
        })
    }

    fn report() -> Report {
        let findings = vec![
            finding("a", "c1"),
            finding("b", "c2"),
            finding("b", "c2"),
            finding("a", "c2"),
        ];
        Report {
            verb: "check".into(),
            policy: PolicyOrigin {
                file: None,
                revision: "the work tree".into(),
            },
            task: None,
            checks: vec![CheckReport::new(
                "provenance",
                Mode::Required,
                String::new(),
                findings,
            )],
            skipped: vec![],
            notes: vec![],
        }
    }

    #[test]
    fn a_cap_lists_the_first_findings_and_counts_them_all() {
        let r = report();
        let (capped, counts) = cap(&r, Some(1));
        assert_eq!(capped.checks[0].findings.len(), 1);
        assert_eq!(capped.checks[0].outcome, Outcome::Refused);
        assert_eq!(capped.exit_code(), report().exit_code());
        assert_eq!((counts.shown, counts.total), (1, 4));
        assert!(counts.capped());
        assert_eq!(
            counts.by_cause,
            vec![("provenance", "a", 2), ("provenance", "b", 2)]
        );
        assert_eq!(
            counts.by_commit,
            vec![
                ("c2".into(), 3, vec!["b", "a"]),
                ("c1".into(), 1, vec!["a"])
            ]
        );
    }

    #[test]
    fn no_cap_lists_everything() {
        let r = report();
        let (capped, counts) = cap(&r, None);
        assert_eq!(capped.checks[0].findings.len(), 4);
        assert!(matches!(capped, Cow::Borrowed(_)));
        assert!(!counts.capped());
        let (capped, counts) = cap(&r, Some(4));
        assert!(!counts.capped());
        assert!(matches!(capped, Cow::Borrowed(_)));
    }
}
