//! The verdict model: findings, what they are about, a check's outcome
//! under a mode, the report that gathers the checks, and the exit code
//! (docs/exit-codes.md).
//!
//! The cores and `checks` build [`Finding`]s; [`CheckReport::new`] turns
//! them into an outcome under a mode; a [`Report`] gathers checks and
//! decides the exit code. This module depends on no renderer: `report`
//! renders what is here (human text, JSON, the `--format`s), and nothing
//! here prints (docs/architecture.md).

mod exit;

pub use exit::ExitCode;

use std::sync::Arc;

use crate::path::RepoPath;
use crate::policy::Mode;
use crate::text::FileText;

/// How much a finding weighs, and whether it says "could not decide".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The check refuses.
    Blocker,
    /// A blocker saying the check could not decide rather than "refused":
    /// in JSON a `blocker` with `unknown: true` (docs/json.md).
    Unknown,
    Warn,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Blocker => "blocker",
            Severity::Unknown => "unknown",
            Severity::Warn => "warn",
            Severity::Info => "info",
        }
    }
}

/// A check's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    /// A blocker finding.
    Refused,
    /// An input could not be read; never a pass.
    Unknown,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Refused => "refused",
            Outcome::Unknown => "unknown",
        }
    }
}

/// What a finding is about; every field optional, attached as JSON fields.
#[derive(Debug, Clone, Default)]
pub struct Subject {
    pub commit: Option<String>,
    pub path: Option<RepoPath>,
    /// The change kind (`added`, `deleted`, `modified`, `type_changed`,
    /// `renamed_from`, `renamed_to`, `merge`).
    pub change: Option<&'static str>,
    pub task: Option<String>,
    /// A ref name (pre-push).
    pub ref_name: Option<String>,
    /// Which acceptance check, or where in a file ([`At`]): boxed, since
    /// the findings made by the thousand (one a commit of a range) have
    /// none, and inline it took 96 bytes of each.
    pub at: Option<Box<At>>,
}

/// The rarer part of a [`Subject`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct At {
    pub acceptance_id: Option<String>,
    /// A file with its line and key, for unreadable inputs.
    pub file: Option<String>,
    pub line: Option<usize>,
    pub key: Option<String>,
}

/// No acceptance check, no place in a file.
const NOWHERE: &At = &At {
    acceptance_id: None,
    file: None,
    line: None,
    key: None,
};

impl At {
    /// This place, as a [`Subject`] holds it.
    pub fn boxed(self) -> Option<Box<At>> {
        Some(Box::new(self))
    }
}

impl Subject {
    /// Its acceptance check and place in a file; all `None` when unset.
    pub fn at(&self) -> &At {
        self.at.as_deref().unwrap_or(NOWHERE)
    }
}

// Equal when every field is, whether an empty [`At`] is boxed or not.
impl PartialEq for Subject {
    fn eq(&self, other: &Subject) -> bool {
        self.commit == other.commit
            && self.path == other.path
            && self.change == other.change
            && self.task == other.task
            && self.ref_name == other.ref_name
            && self.at() == other.at()
    }
}

impl Eq for Subject {}

/// One finding of one check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The check that made it (`scope`, `provenance`, …).
    pub check: &'static str,
    /// A stable snake_case cause.
    pub cause: &'static str,
    pub severity: Severity,
    pub message: String,
    /// What would change the answer: shared, not copied, where many
    /// findings say the same (a whole history's unattributed commits).
    pub decide: Arc<str>,
    pub subject: Subject,
}

impl Finding {
    /// A finding that weighs `severity`; no subject until
    /// [`with_subject`](Self::with_subject).
    pub fn new(
        check: &'static str,
        cause: &'static str,
        severity: Severity,
        message: String,
        decide: String,
    ) -> Finding {
        Finding {
            check,
            cause,
            severity,
            message,
            decide: decide.into(),
            subject: Subject::default(),
        }
    }

    /// A blocker: the check refuses.
    pub fn blocker(
        check: &'static str,
        cause: &'static str,
        message: String,
        decide: String,
    ) -> Finding {
        Finding::new(check, cause, Severity::Blocker, message, decide)
    }

    /// A blocker meaning the check could not decide.
    pub fn unknown(
        check: &'static str,
        cause: &'static str,
        message: String,
        decide: String,
    ) -> Finding {
        Finding::new(check, cause, Severity::Unknown, message, decide)
    }

    pub fn with_subject(mut self, subject: Subject) -> Finding {
        self.subject = subject;
        self
    }

    /// The same finding, reported by `check`: what one check's reading
    /// found (an unreadable range, `provenance::parse_range`) where another
    /// check needed it.
    pub fn reported_by(mut self, check: &'static str) -> Finding {
        self.check = check;
        self
    }
}

/// One check as run under a mode.
#[derive(Debug, Clone)]
pub struct CheckReport {
    pub check: &'static str,
    pub mode: Mode,
    pub outcome: Outcome,
    /// One line saying what was looked at (`14 staged paths`, `3 commits`).
    pub summary: String,
    pub findings: Vec<Finding>,
}

impl CheckReport {
    /// The outcome follows from the findings: a blocker refusal refuses, else
    /// an unknown makes it unknown, else it passes.
    pub fn new(
        check: &'static str,
        mode: Mode,
        summary: String,
        findings: Vec<Finding>,
    ) -> CheckReport {
        let outcome = Outcome::worst(findings.iter().map(|f| match f.severity {
            Severity::Blocker => Outcome::Refused,
            Severity::Unknown => Outcome::Unknown,
            Severity::Warn | Severity::Info => Outcome::Pass,
        }));
        CheckReport {
            check,
            mode,
            outcome,
            summary,
            findings,
        }
    }

    /// Whether this check stops the work: only under `required`.
    pub fn blocks(&self) -> bool {
        self.mode == Mode::Required && self.outcome != Outcome::Pass
    }
}

/// A check that did not run, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub check: &'static str,
    pub reason: String,
}

/// Where the policy came from: its file (`None` for the embedded default)
/// and the revision it was read at (docs/trust.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyOrigin {
    pub file: Option<String>,
    /// `the work tree`, `HEAD (1a2b3c4d5e6f)`, `the range's base (…)`, …
    pub revision: String,
}

impl PolicyOrigin {
    /// The policy's origin as one phrase for people.
    pub fn describe(&self, long: bool) -> String {
        match (&self.file, long) {
            (Some(f), _) => format!("{f} (from {})", self.revision),
            (None, true) => format!(
                "embedded default (no .gate/policy.yaml in {})",
                self.revision
            ),
            (None, false) => format!("embedded default (from {})", self.revision),
        }
    }
}

/// The task a report is about, with a digest of its brief.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskRef {
    pub id: FileText,
    pub issue: Option<FileText>,
    pub intent: Option<FileText>,
    pub exemption: Option<FileText>,
    pub brief: Option<BriefDigest>,
}

/// The short form of a brief shown by every verb that acts on a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BriefDigest {
    /// The first lines of the brief (at most three, each cut at 100 characters).
    pub head: Vec<FileText>,
    /// Whether lines were left out.
    pub more: bool,
    pub addenda: usize,
    /// The heading of the latest addendum.
    pub latest: Option<FileText>,
}

/// The result of `gate check` or a hook.
#[derive(Debug, Clone)]
pub struct Report {
    /// `check`, `hook pre-commit`, `hook pre-push`, …
    pub verb: String,
    pub policy: PolicyOrigin,
    pub task: Option<TaskRef>,
    pub checks: Vec<CheckReport>,
    pub skipped: Vec<Skipped>,
    /// Plain remarks (policy notes, "nothing to prove" for a deleted ref, …).
    pub notes: Vec<String>,
}

impl Report {
    /// One check of a verb: skipped when its `mode` is off or it does not
    /// apply here (`applies` says why not), else `run` and its report
    /// (summary, findings) recorded under `mode`.
    pub fn run(
        &mut self,
        check: &'static str,
        mode: Mode,
        applies: Result<(), &str>,
        run: impl FnOnce() -> (String, Vec<Finding>),
    ) {
        match applies {
            Ok(()) if mode != Mode::Off => {
                let (summary, findings) = run();
                self.checks
                    .push(CheckReport::new(check, mode, summary, findings));
            }
            Ok(()) => self.skip(check, mode, ""),
            Err(why) => self.skip(check, mode, why),
        }
    }

    /// A check this verb does not run: "off in the policy" when its `mode`
    /// is off, else `why`.
    pub fn skip(&mut self, check: &'static str, mode: Mode, why: &str) {
        let reason = if mode == Mode::Off {
            "off in the policy"
        } else {
            why
        };
        self.skipped.push(Skipped {
            check,
            reason: reason.into(),
        });
    }

    /// Add findings made outside a check's run (`policy_loosened`) to the
    /// check they belong to; a check that did not run here gets a note.
    pub fn attach(&mut self, findings: Vec<Finding>) {
        for finding in findings {
            match self.checks.iter_mut().find(|c| c.check == finding.check) {
                Some(c) => {
                    let mut all = std::mem::take(&mut c.findings);
                    all.push(finding);
                    *c = CheckReport::new(c.check, c.mode, std::mem::take(&mut c.summary), all);
                }
                None => self
                    .notes
                    .push(format!("{}: {}", finding.cause, finding.message)),
            }
        }
    }

    /// The overall outcome: refused if any check refused, else unknown if
    /// any is unknown, else pass. Mode does not enter here; see [`exit_code`](Self::exit_code).
    pub fn outcome(&self) -> Outcome {
        Outcome::worst(self.checks.iter().map(|c| c.outcome))
    }

    /// `0` nothing blocks, `1` a required check refused, `3` a required check
    /// could not decide (a refusal outranks an unknown: it is a definite answer).
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::of(self.checks.iter().filter(|c| c.blocks()).map(|c| c.outcome))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_about_a_commit_keeps_no_room_for_a_place_in_a_file() {
        // A whole history's check holds one finding a commit (git/git:
        // 74,503); with the rarer fields inline each took 280 bytes.
        assert!(std::mem::size_of::<Finding>() <= 200);
        // An empty place, boxed or not, is no place.
        let boxed = Subject {
            at: Some(Box::default()),
            ..Subject::default()
        };
        assert_eq!(boxed, Subject::default());
        assert_eq!(boxed.at(), Subject::default().at());
        let placed = Subject {
            at: Some(Box::new(At {
                line: Some(3),
                ..At::default()
            })),
            ..Subject::default()
        };
        assert_ne!(placed, Subject::default());
        assert_eq!(placed.at().line, Some(3));
    }

    fn finding(severity: Severity) -> Finding {
        Finding::new("scope", "x", severity, String::new(), String::new())
    }

    fn report(checks: Vec<CheckReport>) -> Report {
        Report {
            verb: "check".into(),
            policy: PolicyOrigin {
                file: None,
                revision: "the work tree".into(),
            },
            task: None,
            checks,
            skipped: vec![],
            notes: vec![],
        }
    }

    #[test]
    fn outcome_follows_blockers_only() {
        assert_eq!(
            CheckReport::new("s", Mode::Required, String::new(), vec![]).outcome,
            Outcome::Pass
        );
        let warn = vec![finding(Severity::Warn), finding(Severity::Info)];
        assert_eq!(
            CheckReport::new("s", Mode::Required, String::new(), warn).outcome,
            Outcome::Pass
        );
        let both = vec![finding(Severity::Unknown), finding(Severity::Blocker)];
        assert_eq!(
            CheckReport::new("s", Mode::Required, String::new(), both).outcome,
            Outcome::Refused
        );
        let unknown = vec![finding(Severity::Unknown)];
        assert_eq!(
            CheckReport::new("s", Mode::Required, String::new(), unknown).outcome,
            Outcome::Unknown
        );
    }

    #[test]
    fn constructors_weigh_what_they_name() {
        let outcome =
            |f: Finding| CheckReport::new("scope", Mode::Required, String::new(), vec![f]).outcome;
        let blocker = Finding::blocker("scope", "x", String::new(), String::new());
        assert_eq!(blocker.severity, Severity::Blocker);
        assert_eq!(outcome(blocker), Outcome::Refused);
        let unknown = Finding::unknown("scope", "x", String::new(), String::new());
        assert_eq!(outcome(unknown), Outcome::Unknown);
        let warning = Finding::new("scope", "x", Severity::Warn, String::new(), String::new());
        assert_eq!(outcome(warning), Outcome::Pass);
    }

    #[test]
    fn exit_codes_follow_modes() {
        let refused =
            |mode| CheckReport::new("s", mode, String::new(), vec![finding(Severity::Blocker)]);
        let unknown =
            |mode| CheckReport::new("p", mode, String::new(), vec![finding(Severity::Unknown)]);
        assert_eq!(report(vec![refused(Mode::Advisory)]).exit_code(), 0);
        assert_eq!(report(vec![refused(Mode::Required)]).exit_code(), 1);
        assert_eq!(report(vec![unknown(Mode::Required)]).exit_code(), 3);
        assert_eq!(
            report(vec![unknown(Mode::Required), refused(Mode::Required)]).exit_code(),
            1
        );
        assert_eq!(
            report(vec![unknown(Mode::Advisory), refused(Mode::Advisory)]).exit_code(),
            0
        );
        assert_eq!(
            report(vec![refused(Mode::Advisory)]).outcome(),
            Outcome::Refused
        );
    }
}
