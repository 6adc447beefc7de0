//! `.gate/plan.yaml`: intents, their criteria, the acceptance checks that
//! evidence them (the file's `checks`), the issues that serve them and the
//! critiques of them (docs/plan.md).
//!
//! Owns the closed schema, load-time validation, reference resolution
//! ([`Plan::reference_faults`]), the glob dialect of issue paths
//! ([`compile_glob`]) and an acceptance check's contract digest
//! ([`AcceptanceCheck::contract_digest`]). It decides no binding and runs
//! nothing.
//!
//! # Keys
//!
//! Every key not listed as optional is required. All four top-level lists
//! are optional (default empty).
//!
//! - intent: `id`, `statement`, `status` (`active`|`retired`); optional
//!   `invariants`, `non_goals`, `criteria` (default empty).
//! - criterion: `id`, `criterion`; optional `evidence` (check ids, default
//!   empty: a criterion naming no check is *unevidenced*, which is legal).
//! - check: `id`, `command`, `sources` (at least one); optional `purpose`,
//!   `environment`.
//! - issue: `id` (a string: write `id: "42"`), `title`, `paths` (may be
//!   empty), `status` (`open`|`closed`); optional `intent` (absent: a
//!   maintenance issue) and `serves` (criterion ids of that intent, default
//!   empty).
//! - critique: `intent`, `reviewed_at` (a date `YYYY-MM-DD` or a commit id of
//!   7–64 lowercase hex digits); optional `intent_revision` (64 lowercase
//!   hex digits; `plan_revision` is its deprecated old name, one or the
//!   other) and `findings` (default empty).
//! - finding: `id`, `blocking`, `text`; optional `resolution` (absent or
//!   blank: the finding is open).
//!
//! Strings must be strings: `id: 42` is a type error (quote it). Ids follow
//! [`crate::ids`].
//!
//! # Validation
//!
//! A load error ([`LoadError::Invalid`], with the line): a malformed id; an
//! id declared twice (intents, checks, issues; criteria within an intent;
//! findings within a critique); a blank statement, criterion, command, title
//! or finding text; a bad `sources` entry (see [`check_source`]); an issue
//! path that is not a valid glob (see [`compile_glob`]); a bad `reviewed_at`
//! or `intent_revision`, or both it and `plan_revision`.
//!
//! A reference that resolves to nothing is *not* a load error: the plan still
//! loads, and [`Plan::reference_faults`] lists each with a stable cause so
//! the binding and `gate plan validate` can report them as findings.
//!
//! # Paths
//!
//! `sources` are literal repository-relative paths (a file or a directory,
//! with or without a trailing `/`), never globs. `issues[].paths` are globs
//! matched against the whole repository-relative path: `*`, `?` and `[...]`
//! never match `/`; `**` as a whole component matches any number of
//! components (`src/**` is everything under `src`, `**/*.md` every Markdown
//! file); `{a,b}` is either; `\` escapes. A pattern without wildcards matches
//! that one path only, not a directory's contents: write `docs/**`.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobBuilder};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::digest;
use crate::ids;
use crate::load::{self, LoadError};
use crate::yaml;

/// Where a plan lives in a repository.
pub const PLAN_PATH: &str = ".gate/plan.yaml";

/// The causes [`Plan::reference_faults`] reports (stable snake_case names).
pub mod cause {
    /// A criterion's evidence names a check the plan does not declare.
    pub const UNKNOWN_CHECK: &str = "unknown_check";
    /// An issue or a critique names an intent the plan does not declare.
    pub const UNKNOWN_INTENT: &str = "unknown_intent";
    /// An issue lists `serves` but names no intent.
    pub const SERVES_WITHOUT_INTENT: &str = "serves_without_intent";
    /// An issue serves a criterion id that no intent has.
    pub const SERVES_UNKNOWN_CRITERION: &str = "serves_unknown_criterion";
    /// An issue serves a criterion of another intent than its own.
    pub const SERVES_ANOTHER_INTENT: &str = "serves_another_intent";
    /// An issue under an intent serves none of its criteria.
    pub const ISSUE_SERVES_NOTHING: &str = "issue_serves_nothing";
    /// A check's command names a ref that moves without any commit here
    /// (`origin/…`, `@{u}`, `FETCH_HEAD`): a warning (docs/plan.md).
    pub const COMMAND_NAMES_MOVING_REF: &str = "command_names_moving_ref";
    /// A check's command spans several lines: a warning (docs/plan.md).
    pub const COMMAND_SPANS_LINES: &str = "command_spans_lines";
    /// A check's command filters `git log` (or `git rev-list`) by path: a
    /// non-empty answer proves only that some commit touched those paths
    /// (docs/plan.md). A warning.
    pub const COMMAND_FILTERS_HISTORY: &str = "command_filters_history";
    /// A check's `sources` entry is `.gate` or below it, which no
    /// fingerprint covers (docs/plan.md).
    pub const SOURCE_UNDER_GATE: &str = "source_under_gate";
    /// A critique finding is planned in an issue the plan does not declare.
    pub const PLANNED_IN_UNKNOWN_ISSUE: &str = "planned_in_unknown_issue";
    /// A critique finding is planned in an issue that is closed: nothing
    /// answers it any more (docs/plan.md).
    pub const PLANNED_IN_CLOSED_ISSUE: &str = "planned_in_closed_issue";
    /// A critique records no intent revision, so it can never be found
    /// stale: a warning (docs/plan.md).
    pub const CRITIQUE_NOT_STAMPED: &str = "critique_not_stamped";
}

// Every struct below the plan denies unknown fields.
impl yaml::Closed for Plan {}

/// A whole plan.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a plan mapping (intents, checks, issues, critiques)"
)]
#[schemars(rename = "gate plan (.gate/plan.yaml)")]
pub struct Plan {
    #[serde(default)]
    pub intents: Vec<Intent>,
    #[serde(default, rename = "checks")]
    pub acceptance_checks: Vec<AcceptanceCheck>,
    #[serde(default)]
    pub issues: Vec<Issue>,
    #[serde(default)]
    pub critiques: Vec<Critique>,
}

/// What the work is for.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "an intent mapping (id, statement, status, invariants, non_goals, criteria)"
)]
pub struct Intent {
    #[serde(deserialize_with = "yaml::string")]
    pub id: String,
    #[serde(deserialize_with = "yaml::string")]
    pub statement: String,
    pub status: IntentStatus,
    #[serde(default, deserialize_with = "yaml::strings")]
    pub invariants: Vec<String>,
    #[serde(default, deserialize_with = "yaml::strings")]
    pub non_goals: Vec<String>,
    #[serde(default)]
    pub criteria: Vec<Criterion>,
}

impl Intent {
    /// This intent's criterion `id`.
    pub fn criterion(&self, id: &str) -> Option<&Criterion> {
        self.criteria.iter().find(|c| c.id == id)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IntentStatus {
    Active,
    Retired,
}

/// One acceptance criterion of an intent and the checks that evidence it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a criterion mapping (id, criterion, evidence)"
)]
pub struct Criterion {
    #[serde(deserialize_with = "yaml::string")]
    pub id: String,
    #[serde(deserialize_with = "yaml::string")]
    pub criterion: String,
    /// Check ids.
    #[serde(default, deserialize_with = "yaml::strings")]
    pub evidence: Vec<String>,
}

/// An executable acceptance check: what the plan's `checks` declare and
/// `gate verify` runs (docs/receipts.md) — never one of gate's five checks.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a check mapping (id, command, sources, purpose, environment)"
)]
// The schema keeps the name the plan file's documentation uses.
#[schemars(rename = "Check")]
pub struct AcceptanceCheck {
    #[serde(deserialize_with = "yaml::string")]
    pub id: String,
    /// Run with `sh -c` at the repository root by `gate verify`.
    #[serde(deserialize_with = "yaml::string")]
    pub command: String,
    /// Repository-relative files and directories the check reads.
    #[serde(deserialize_with = "yaml::strings")]
    #[schemars(length(min = 1))]
    pub sources: Vec<String>,
    #[serde(default, deserialize_with = "yaml::opt_string")]
    pub purpose: Option<String>,
    #[serde(default, deserialize_with = "yaml::opt_string")]
    pub environment: Option<String>,
}

impl AcceptanceCheck {
    /// Whether `path` lies in one of its `sources`: the source itself, or
    /// below a source directory. What a change touches there, the check
    /// must prove, whatever the task names (docs/receipts.md, "What a
    /// change must prove").
    pub fn covers(&self, path: &crate::path::RepoPath) -> bool {
        self.sources
            .iter()
            .any(|source| !source.trim_end_matches('/').is_empty() && path.is_under(source))
    }

    /// SHA-256 (hex) of the canonical JSON of every field of the check
    /// (`command`, `environment`, `id`, `purpose`, `sources`; an absent
    /// optional is `null`, `sources` in the order written). Any edit to a
    /// field moves it; the order of keys in the YAML does not.
    pub fn contract_digest(&self) -> String {
        let value = serde_json::json!({
            "id": self.id,
            "command": self.command,
            "sources": self.sources,
            "purpose": self.purpose,
            "environment": self.environment,
        });
        digest::sha256_hex(digest::canonical_json(&value).as_bytes())
    }

    /// Whether the command depends on the task's baseline: it names the
    /// [`BASELINE_PLACEHOLDER`] or the `GATE_BASELINE` variable
    /// (docs/receipts.md, "The task's baseline").
    pub fn uses_baseline(&self) -> bool {
        !placeholders(&self.command).is_empty() || self.command.contains(BASELINE_VARIABLE)
    }

    /// The contract a receipt of this check is made under when the task's
    /// baseline is `baseline`: [`Self::contract_digest`], and for a check
    /// that [uses the baseline](Self::uses_baseline) and has one, SHA-256
    /// over that digest and the baseline's commit id — so a receipt proves
    /// its command at one baseline only, as the command it ran was.
    pub fn contract_at(&self, baseline: Option<&str>) -> String {
        let declared = self.contract_digest();
        match baseline {
            Some(baseline) if self.uses_baseline() => digest::sha256_hex(
                format!("gate.contract-at-baseline/1\n{declared}\n{baseline}\n").as_bytes(),
            ),
            _ => declared,
        }
    }

    /// The command as it is run when the task's baseline is `baseline`:
    /// each [`BASELINE_PLACEHOLDER`] rewritten to the commit id, quoted or
    /// not (`${BASELINE}` is the shell's variable, left alone). `Err` when
    /// the command names the placeholder and there is no baseline: it
    /// cannot be run as written.
    pub fn command_at(&self, baseline: Option<&str>) -> Result<String, BaselineMissing> {
        let at = placeholders(&self.command);
        if at.is_empty() {
            return Ok(self.command.clone());
        }
        let Some(baseline) = baseline else {
            return Err(BaselineMissing {
                acceptance_id: self.id.clone(),
            });
        };
        let mut out = String::with_capacity(self.command.len() + at.len() * 40);
        let mut from = 0;
        for i in at {
            out.push_str(&self.command[from..i]);
            out.push_str(baseline);
            from = i + BASELINE_PLACEHOLDER.len();
        }
        out.push_str(&self.command[from..]);
        Ok(out)
    }
}

/// The placeholder a check's command names the task's baseline with, as
/// the assurance source writes it; rewritten to the commit id when the
/// command runs ([`AcceptanceCheck::command_at`]).
pub const BASELINE_PLACEHOLDER: &str = "{BASELINE}";

/// The environment variable a check's command finds the task's baseline in.
pub const BASELINE_VARIABLE: &str = "GATE_BASELINE";

/// Where [`BASELINE_PLACEHOLDER`] stands in `command`, left out where a `$`
/// comes before it (`${BASELINE}`: the shell's own variable).
fn placeholders(command: &str) -> Vec<usize> {
    command
        .match_indices(BASELINE_PLACEHOLDER)
        .map(|(i, _)| i)
        .filter(|&i| !command[..i].ends_with('$'))
        .collect()
}

/// A check's command names [`BASELINE_PLACEHOLDER`] and the run has no
/// task, so no baseline to put there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the command of check {acceptance_id} names {BASELINE_PLACEHOLDER}, and there is no task whose baseline it could name"
)]
pub struct BaselineMissing {
    pub acceptance_id: String,
}

/// A unit of work and the paths it may touch.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "an issue mapping (id, title, intent, serves, paths, status)"
)]
pub struct Issue {
    #[serde(deserialize_with = "yaml::id_string")]
    pub id: String,
    #[serde(deserialize_with = "yaml::string")]
    pub title: String,
    /// The intent served; `None` for a maintenance issue.
    #[serde(default, deserialize_with = "yaml::opt_string")]
    pub intent: Option<String>,
    /// Criterion ids of `intent`.
    #[serde(default, deserialize_with = "yaml::strings")]
    pub serves: Vec<String>,
    /// Globs (see the module doc).
    #[serde(deserialize_with = "yaml::strings")]
    pub paths: Vec<String>,
    pub status: IssueStatus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IssueStatus {
    Open,
    Closed,
}

/// A review of an intent's plan.
impl Critique {
    /// The intent revision the critique recorded, under either name.
    pub fn revision(&self) -> Option<&str> {
        self.intent_revision
            .as_deref()
            .or(self.plan_revision.as_deref())
    }

    /// The key the critique recorded its revision under.
    pub fn revision_key(&self) -> &'static str {
        if self.intent_revision.is_none() && self.plan_revision.is_some() {
            "plan_revision"
        } else {
            "intent_revision"
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a critique mapping (intent, reviewed_at, intent_revision, findings)"
)]
pub struct Critique {
    #[serde(deserialize_with = "yaml::string")]
    pub intent: String,
    /// When it was written: `YYYY-MM-DD` or a commit id.
    #[serde(deserialize_with = "yaml::string")]
    pub reviewed_at: String,
    /// Who reviewed (`gate plan critique --by`, else git's user.name).
    #[serde(default, deserialize_with = "yaml::opt_string")]
    pub reviewed_by: Option<String>,
    /// The intent revision it reviewed (64 hex digits, as `gate plan
    /// validate` and `gate plan critique` print it).
    #[serde(default, deserialize_with = "yaml::opt_string")]
    pub intent_revision: Option<String>,
    /// The deprecated name of `intent_revision` (docs/plan.md): read, never
    /// written; a critique gives one or the other.
    #[serde(default, deserialize_with = "yaml::opt_string")]
    #[schemars(extend("deprecated" = true))]
    pub plan_revision: Option<String>,
    #[serde(default)]
    pub findings: Vec<CritiqueFinding>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a finding mapping (id, blocking, text, resolution)"
)]
pub struct CritiqueFinding {
    #[serde(deserialize_with = "yaml::string")]
    pub id: String,
    pub blocking: bool,
    #[serde(deserialize_with = "yaml::string")]
    pub text: String,
    /// How it was resolved; absent means open.
    #[serde(default, deserialize_with = "yaml::opt_string")]
    pub resolution: Option<String>,
    /// The issue the fix is planned in: the finding is resolved as planned
    /// there, which must be an open issue of the plan (docs/plan.md).
    #[serde(default, deserialize_with = "yaml::opt_string")]
    pub planned_in: Option<String>,
}

impl CritiqueFinding {
    /// Whether the finding is still open in `plan`: no resolution (or a
    /// blank one), and not planned in an open issue of the plan — one
    /// planned in a closed or unknown issue has nothing answering it
    /// (`gate plan validate` says so: `planned_in_closed_issue`).
    pub fn is_open(&self, plan: &Plan) -> bool {
        let planned = self
            .planned_in
            .as_deref()
            .and_then(|id| plan.issue(id))
            .is_some_and(|issue| issue.status == IssueStatus::Open);
        !planned
            && self
                .resolution
                .as_deref()
                .is_none_or(|r| r.trim().is_empty())
    }
}

/// A reference in the plan that resolves to nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanFault {
    /// One of [`cause`].
    pub cause: &'static str,
    /// Key path of the offending value (`issues[2].serves[0]`).
    pub key: String,
    /// 1-based line in the plan file, when known.
    pub line: Option<usize>,
    pub message: String,
}

/// A plan read from a worktree, with its text for locating keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedPlan {
    pub plan: Plan,
    /// Repository-relative, `.gate/plan.yaml`.
    pub file: PathBuf,
    /// The file's text (without a byte-order mark).
    pub text: String,
}

impl LoadedPlan {
    /// [`Plan::reference_faults`] with their lines in [`Self::text`].
    pub fn reference_faults(&self) -> Vec<PlanFault> {
        self.located(self.plan.reference_faults())
    }

    /// [`Plan::critique_lints`] with their lines in [`Self::text`].
    pub fn critique_lints(&self) -> Vec<PlanFault> {
        self.located(self.plan.critique_lints())
    }

    /// [`Plan::command_lints`] with their lines in [`Self::text`].
    pub fn command_lints(&self, remotes: &[String]) -> Vec<PlanFault> {
        self.located(self.plan.command_lints(remotes))
    }

    /// [`Plan::source_faults`] with their lines in [`Self::text`].
    pub fn source_faults(&self) -> Vec<PlanFault> {
        self.located(self.plan.source_faults())
    }

    /// `faults` with their lines in [`Self::text`]. Each line costs a parse
    /// of the text, so a plan with very many faults gets lines for the
    /// first ones only (about 32 MiB of parsing in all).
    fn located(&self, mut faults: Vec<PlanFault>) -> Vec<PlanFault> {
        let mut parses = ((32 << 20) / self.text.len().max(1)).max(8);
        for fault in &mut faults {
            fault.line = locate_nearest(&self.text, &fault.key, &mut parses).map(|(line, _)| line);
        }
        faults
    }
}

/// The remotes a plan's command is always read against, whatever this
/// clone calls its own: the names nearly every clone has.
const MOVING_PREFIXES: &[&str] = &["origin/", "upstream/", "refs/remotes/"];

/// The revisions in a check `command` that name a ref which moves without
/// any commit in this repository — a remote-tracking branch (`origin/…`,
/// `upstream/…`, `refs/remotes/…`, or `NAME/…` for each of `remotes`,
/// the clone's configured remote names), an upstream (`@{u}`,
/// `@{upstream}`, `@{push}`) or `FETCH_HEAD` — in order of appearance. A
/// receipt binds the acceptance check's sources, not where such a ref
/// pointed when it ran (docs/plan.md).
pub fn moving_refs<'a>(command: &'a str, remotes: &[String]) -> Vec<&'a str> {
    let separators = |c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '=' | '\'' | '"' | '`' | '(' | ')' | ';' | '|' | '&' | ',' | '<' | '>' | '$'
            )
    };
    let configured: Vec<String> = remotes
        .iter()
        .filter(|r| !r.is_empty())
        .map(|r| format!("{r}/"))
        .collect();
    let mut found = Vec::new();
    for word in command.split(separators) {
        // `A..B`, `A...B` and `^A` name several revisions each.
        for rev in word.split("..") {
            let rev = rev.trim_start_matches(['.', '^']);
            let base = rev.split(['^', '~', ':']).next().unwrap_or_default();
            let lower = rev.to_ascii_lowercase();
            let moving = MOVING_PREFIXES
                .iter()
                .copied()
                .chain(configured.iter().map(String::as_str))
                .any(|p| base.len() > p.len() && base.starts_with(p))
                || base.split('@').next() == Some("FETCH_HEAD")
                || ["@{u}", "@{upstream}", "@{push}"]
                    .iter()
                    .any(|u| lower.contains(u));
            if moving && !found.contains(&rev) {
                found.push(rev);
            }
        }
    }
    found
}

/// The `git log` and `git rev-list` invocations in a check `command` that
/// filter the history by path (`git log A..B -- src`), as written, in
/// order of appearance. Used as an assertion (`test -n "$(git log A..B --
/// src)"`), such a filter proves only that *some* commit touched those
/// paths: it excludes neither the other paths of that commit nor the other
/// commits (the assurance source rejects it; docs/plan.md).
pub fn path_filtered_history(command: &str) -> Vec<String> {
    // Each simple command: split where the shell would start another one.
    let mut found = Vec::new();
    let pieces = command.split([';', '|', '&', '\n', '`', '(', ')']);
    for piece in pieces {
        let words: Vec<&str> = piece
            .split_whitespace()
            .map(|w| w.trim_matches(['"', '\'']))
            .filter(|w| !w.is_empty())
            .collect();
        // The command word: after assignments and the words that run the
        // next one (`! git …`, `env A=b git …`, `command git …`).
        let Some(git) = words.iter().position(|w| {
            !(w.contains('=') || matches!(*w, "!" | "env" | "command" | "exec" | "time"))
        }) else {
            continue;
        };
        if !(words[git] == "git" || words[git].ends_with("/git")) {
            continue;
        }
        // The subcommand: the first word after git's own options (`-C
        // dir`, `-c key=value` take one more word).
        let mut i = git + 1;
        while let Some(w) = words.get(i) {
            match *w {
                "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" => i += 2,
                w if w.starts_with('-') => i += 1,
                _ => break,
            }
        }
        if !matches!(
            words.get(i),
            Some(&"log") | Some(&"rev-list") | Some(&"whatchanged")
        ) {
            continue;
        }
        let rest = &words[i + 1..];
        let filtered = rest
            .iter()
            .position(|w| *w == "--")
            .is_some_and(|dd| dd + 1 < rest.len());
        if filtered {
            found.push(words[git..].join(" "));
        }
    }
    found
}

/// The plan of the worktree at `worktree_root`; `None` when it has no
/// `.gate/plan.yaml`.
pub fn load(worktree_root: &Path) -> Result<Option<LoadedPlan>, LoadError> {
    let shown = Path::new(PLAN_PATH);
    let Some(text) = load::read_optional_as(shown, &worktree_root.join(PLAN_PATH))? else {
        return Ok(None);
    };
    let plan = parse(shown, &text)?;
    Ok(Some(LoadedPlan {
        plan,
        file: shown.to_path_buf(),
        text,
    }))
}

/// Read and validate a plan from `text`, naming `file` in errors.
pub fn parse(file: &Path, text: &str) -> Result<Plan, LoadError> {
    let plan: Plan = yaml::closed(file, text)?;
    validate(&plan).map_err(|(key, message)| yaml::invalid(file, text, key, message))?;
    Ok(plan)
}

impl Plan {
    pub fn intent(&self, id: &str) -> Option<&Intent> {
        self.intents.iter().find(|i| i.id == id)
    }

    pub fn issue(&self, id: &str) -> Option<&Issue> {
        self.issues.iter().find(|i| i.id == id)
    }

    pub fn acceptance_check(&self, id: &str) -> Option<&AcceptanceCheck> {
        self.acceptance_checks.iter().find(|c| c.id == id)
    }

    /// Every reference that resolves to nothing, in document order: unknown
    /// checks in evidence, unknown intents of issues and critiques, and issues
    /// whose `serves` does not fit their intent. Lines are `None` here; use
    /// [`LoadedPlan::reference_faults`] to have them.
    pub fn reference_faults(&self) -> Vec<PlanFault> {
        let mut faults = Vec::new();
        let mut fault = |cause, key: String, message: String| {
            faults.push(PlanFault {
                cause,
                key,
                line: None,
                message,
            });
        };

        for (i, intent) in self.intents.iter().enumerate() {
            for (k, criterion) in intent.criteria.iter().enumerate() {
                for (e, acceptance_id) in criterion.evidence.iter().enumerate() {
                    if self.acceptance_check(acceptance_id).is_none() {
                        fault(
                            cause::UNKNOWN_CHECK,
                            format!("intents[{i}].criteria[{k}].evidence[{e}]"),
                            format!(
                                "criterion {} of intent {} names check {acceptance_id:?}, which the \
                                 plan does not declare",
                                criterion.id, intent.id
                            ),
                        );
                    }
                }
            }
        }

        for (i, issue) in self.issues.iter().enumerate() {
            for f in self.serves_faults(issue) {
                let message = format!("{}; {}", f.message(&issue.id), f.remedy());
                fault(f.cause(), f.key(i), message);
            }
        }

        for (i, critique) in self.critiques.iter().enumerate() {
            if self.intent(&critique.intent).is_none() {
                fault(
                    cause::UNKNOWN_INTENT,
                    format!("critiques[{i}].intent"),
                    format!(
                        "a critique names intent {:?}, which the plan does not declare",
                        critique.intent
                    ),
                );
            }
            for (j, finding) in critique.findings.iter().enumerate() {
                let Some(planned) = finding.planned_in.as_deref() else {
                    continue;
                };
                let key = format!("critiques[{i}].findings[{j}].planned_in");
                match self.issue(planned) {
                    None => fault(
                        cause::PLANNED_IN_UNKNOWN_ISSUE,
                        key,
                        format!(
                            "finding {} of the critique of {} is planned in issue {planned:?}, which the plan does not declare",
                            finding.id, critique.intent
                        ),
                    ),
                    Some(issue) if issue.status == IssueStatus::Closed => fault(
                        cause::PLANNED_IN_CLOSED_ISSUE,
                        key,
                        format!(
                            "finding {} of the critique of {} is resolved as planned in issue {planned}, which is closed: a closed issue gets no more work, so nothing answers the finding",
                            finding.id, critique.intent
                        ),
                    ),
                    Some(_) => {}
                }
            }
        }
        faults
    }

    /// Critiques that record no intent revision (`intent_revision`, or
    /// the deprecated `plan_revision`), in document order: such a critique
    /// is never stale, whatever the intent becomes. Warnings (docs/plan.md).
    /// Lines are `None` here; use [`LoadedPlan::critique_lints`].
    pub fn critique_lints(&self) -> Vec<PlanFault> {
        self.critiques
            .iter()
            .enumerate()
            .filter(|(_, c)| c.revision().is_none())
            .map(|(i, c)| PlanFault {
                cause: cause::CRITIQUE_NOT_STAMPED,
                key: format!("critiques[{i}]"),
                line: None,
                message: format!(
                    "the critique of {} records no intent_revision: it cannot tell which revision of the intent it reviewed, so it is never found stale",
                    c.intent
                ),
            })
            .collect()
    }
}

/// What is wrong with what an issue serves: one finding, worded once, for
/// `gate plan validate` (a fault at a key) and the binding (a refusal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServesFault<'p> {
    /// `serves` is listed, but the issue names no intent.
    WithoutIntent,
    /// The issue's intent is not in the plan.
    UnknownIntent { intent: &'p str },
    /// Under an intent, the issue serves none of its criteria.
    Nothing { intent: &'p str },
    /// `serves[index]` is a criterion no intent has.
    UnknownCriterion { index: usize, criterion: &'p str },
    /// `serves[index]` is a criterion of other intents (`owners`), not of
    /// the issue's own `intent`.
    AnotherIntent {
        index: usize,
        criterion: &'p str,
        owners: Vec<&'p str>,
        intent: &'p str,
    },
}

impl ServesFault<'_> {
    /// The stable cause.
    pub fn cause(&self) -> &'static str {
        match self {
            ServesFault::WithoutIntent => cause::SERVES_WITHOUT_INTENT,
            ServesFault::UnknownIntent { .. } => cause::UNKNOWN_INTENT,
            ServesFault::Nothing { .. } => cause::ISSUE_SERVES_NOTHING,
            ServesFault::UnknownCriterion { .. } => cause::SERVES_UNKNOWN_CRITERION,
            ServesFault::AnotherIntent { .. } => cause::SERVES_ANOTHER_INTENT,
        }
    }

    /// The key of the value at fault, for the issue at `issues[issue]`.
    pub fn key(&self, issue: usize) -> String {
        match self {
            ServesFault::UnknownIntent { .. } => format!("issues[{issue}].intent"),
            ServesFault::WithoutIntent | ServesFault::Nothing { .. } => {
                format!("issues[{issue}].serves")
            }
            ServesFault::UnknownCriterion { index, .. }
            | ServesFault::AnotherIntent { index, .. } => {
                format!("issues[{issue}].serves[{index}]")
            }
        }
    }

    /// What is wrong, for the issue `id`.
    pub fn message(&self, id: &str) -> String {
        match self {
            ServesFault::WithoutIntent => {
                format!("issue {id} serves criteria but names no intent")
            }
            ServesFault::UnknownIntent { intent } => {
                format!("issue {id} names intent {intent}, which the plan does not declare")
            }
            ServesFault::Nothing { intent } => {
                format!("issue {id} is under intent {intent} but serves none of its criteria")
            }
            ServesFault::UnknownCriterion { criterion, .. } => {
                format!("issue {id} serves criterion {criterion}, which no intent declares")
            }
            ServesFault::AnotherIntent {
                criterion,
                owners,
                intent,
                ..
            } => format!(
                "issue {id} serves criterion {criterion}, which belongs to intent {}, not {intent}",
                owners.join(", ")
            ),
        }
    }

    /// What decides it.
    pub fn remedy(&self) -> &'static str {
        match self {
            ServesFault::WithoutIntent => "add `intent:` or remove `serves`",
            ServesFault::UnknownIntent { .. } => "fix the issue's intent in .gate/plan.yaml",
            ServesFault::Nothing { .. } => {
                "list the criteria the issue works towards under `serves`"
            }
            ServesFault::UnknownCriterion { .. } => "fix `serves`, or declare the criterion",
            ServesFault::AnotherIntent { .. } => "serve criteria of the issue's own intent",
        }
    }
}

impl Plan {
    /// Check commands whose receipt could not be reproduced, in document
    /// order: one that names a moving ref ([`moving_refs`]) and one that
    /// spans several lines. Warnings, never faults (docs/plan.md). Lines are
    /// `None` here; use [`LoadedPlan::command_lints`] to have them.
    pub fn command_lints(&self, remotes: &[String]) -> Vec<PlanFault> {
        let mut lints = Vec::new();
        for (i, acceptance) in self.acceptance_checks.iter().enumerate() {
            let key = format!("checks[{i}].command");
            for filtered in path_filtered_history(&acceptance.command) {
                lints.push(PlanFault {
                    cause: cause::COMMAND_FILTERS_HISTORY,
                    key: key.clone(),
                    line: None,
                    message: format!(
                        "the command of check {} filters the history by path (`{filtered}`): \
                         a non-empty answer proves only that some commit touched those paths, \
                         not what else it or the other commits changed",
                        acceptance.id
                    ),
                });
            }
            let refs = moving_refs(&acceptance.command, remotes);
            if !refs.is_empty() {
                let refs = refs
                    .iter()
                    .map(|r| format!("`{r}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                lints.push(PlanFault {
                    cause: cause::COMMAND_NAMES_MOVING_REF,
                    key: key.clone(),
                    line: None,
                    message: format!(
                        "the command of check {} names {refs}, which moves without a commit here: \
                         its receipt could not be reproduced",
                        acceptance.id
                    ),
                });
            }
            let lines = acceptance.command.trim_end().lines().count();
            if lines > 1 {
                lints.push(PlanFault {
                    cause: cause::COMMAND_SPANS_LINES,
                    key,
                    line: None,
                    message: format!(
                        "the command of check {} spans {lines} lines: its receipt could not be \
                         reproduced from one command line",
                        acceptance.id
                    ),
                });
            }
        }
        lints
    }

    /// Check `sources` entries that no fingerprint would cover, in document
    /// order: `.gate` or anything below it, gate's own files, which every
    /// fingerprint leaves out (docs/receipts.md) so that a handover
    /// recording pins does not stale the receipts it pins. Such an entry
    /// loads (a plan that has one still means one thing to every other
    /// verb), but the check's receipt would not go stale when the file
    /// changes: `gate plan validate` refuses it. Lines are `None` here; use
    /// [`LoadedPlan::source_faults`] to have them.
    pub fn source_faults(&self) -> Vec<PlanFault> {
        let mut faults = Vec::new();
        for (i, acceptance) in self.acceptance_checks.iter().enumerate() {
            for (s, source) in acceptance.sources.iter().enumerate() {
                // The fingerprints' own reading of a source: `None` is one
                // they leave out.
                if !matches!(source_path(source), Ok(None)) {
                    continue;
                }
                faults.push(PlanFault {
                    cause: cause::SOURCE_UNDER_GATE,
                    key: format!("checks[{i}].sources[{s}]"),
                    line: None,
                    message: format!(
                        "check {} lists source {source:?}, which is under .gate/: no \
                         fingerprint covers gate's own files, so its receipt would not go \
                         stale when it changes",
                        acceptance.id
                    ),
                });
            }
        }
        faults
    }

    /// Every fault in what `issue` serves, in document order.
    pub fn serves_faults<'p>(&'p self, issue: &'p Issue) -> Vec<ServesFault<'p>> {
        let Some(intent_id) = issue.intent.as_deref() else {
            return match issue.serves.is_empty() {
                true => Vec::new(),
                false => vec![ServesFault::WithoutIntent],
            };
        };
        let Some(intent) = self.intent(intent_id) else {
            return vec![ServesFault::UnknownIntent { intent: intent_id }];
        };
        let mut faults = Vec::new();
        if issue.serves.is_empty() {
            faults.push(ServesFault::Nothing { intent: &intent.id });
        }
        for (index, criterion) in issue.serves.iter().enumerate() {
            if intent.criterion(criterion).is_some() {
                continue;
            }
            let owners: Vec<&str> = self
                .intents
                .iter()
                .filter(|other| other.criterion(criterion).is_some())
                .map(|other| other.id.as_str())
                .collect();
            faults.push(match owners.is_empty() {
                true => ServesFault::UnknownCriterion { index, criterion },
                false => ServesFault::AnotherIntent {
                    index,
                    criterion,
                    owners,
                    intent: &intent.id,
                },
            });
        }
        faults
    }
}

/// The position of `key`, or of its nearest ancestor present in the text
/// (a fault about an absent `serves` points at its issue).
/// Each attempt spends one of `parses`; none left, no position.
fn locate_nearest(text: &str, key: &str, parses: &mut usize) -> Option<(usize, usize)> {
    let mut key = key;
    loop {
        *parses = parses.checked_sub(1)?;
        if let Some(at) = yaml::locate(text, key) {
            return Some(at);
        }
        let cut = key.rfind(['.', '['])?;
        key = &key[..cut];
    }
}

/// The first validation failure as (key path, message).
fn validate(plan: &Plan) -> Result<(), (String, String)> {
    fn ensure(
        ok: bool,
        key: impl FnOnce() -> String,
        message: &str,
    ) -> Result<(), (String, String)> {
        if ok {
            Ok(())
        } else {
            Err((key(), message.to_owned()))
        }
    }
    fn id_ok(
        valid: fn(&str) -> Result<(), String>,
        id: &str,
        key: impl Fn() -> String,
    ) -> Result<(), (String, String)> {
        valid(id).map_err(|message| (key(), message))
    }
    /// Refuses `id`, the `n`th of its list, when `seen` (that list's ids so
    /// far, each with its first index) holds it already.
    fn unique<'a>(
        seen: &mut std::collections::HashMap<&'a str, usize>,
        what: &str,
        id: &'a str,
        n: usize,
        key: impl Fn(usize) -> String,
    ) -> Result<(), (String, String)> {
        match seen.entry(id) {
            std::collections::hash_map::Entry::Occupied(first) => Err((
                key(n),
                format!(
                    "{what} {id:?} is declared twice (first at {})",
                    key(*first.get())
                ),
            )),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(n);
                Ok(())
            }
        }
    }

    let mut seen = std::collections::HashMap::new();
    for (i, intent) in plan.intents.iter().enumerate() {
        let at = |field: &str| format!("intents[{i}].{field}");
        id_ok(ids::intent_id, &intent.id, || at("id"))?;
        unique(&mut seen, "intent", &intent.id, i, |n| {
            format!("intents[{n}].id")
        })?;
        ensure(
            !intent.statement.trim().is_empty(),
            || at("statement"),
            "the statement is blank; say what the intent is",
        )?;
        let mut seen = std::collections::HashMap::new();
        for (k, criterion) in intent.criteria.iter().enumerate() {
            let at = |field: &str| format!("intents[{i}].criteria[{k}].{field}");
            id_ok(ids::criterion_id, &criterion.id, || at("id"))?;
            unique(&mut seen, "criterion", &criterion.id, k, |n| {
                format!("intents[{i}].criteria[{n}].id")
            })?;
            ensure(
                !criterion.criterion.trim().is_empty(),
                || at("criterion"),
                "the criterion is blank; say what must hold",
            )?;
        }
    }

    let mut seen = std::collections::HashMap::new();
    for (i, acceptance) in plan.acceptance_checks.iter().enumerate() {
        let at = |field: &str| format!("checks[{i}].{field}");
        id_ok(ids::acceptance_id, &acceptance.id, || at("id"))?;
        unique(&mut seen, "check", &acceptance.id, i, |n| {
            format!("checks[{n}].id")
        })?;
        ensure(
            !acceptance.command.trim().is_empty(),
            || at("command"),
            "the command is blank",
        )?;
        ensure(
            !acceptance.sources.is_empty(),
            || at("sources"),
            "a check names at least one source: the files and directories its result depends on",
        )?;
        for (s, source) in acceptance.sources.iter().enumerate() {
            check_source(source)
                .map_err(|message| (format!("checks[{i}].sources[{s}]"), message))?;
        }
    }

    let mut seen = std::collections::HashMap::new();
    for (i, issue) in plan.issues.iter().enumerate() {
        let at = |field: &str| format!("issues[{i}].{field}");
        id_ok(ids::issue_id, &issue.id, || at("id"))?;
        unique(&mut seen, "issue", &issue.id, i, |n| {
            format!("issues[{n}].id")
        })?;
        ensure(
            !issue.title.trim().is_empty(),
            || at("title"),
            "the title is blank",
        )?;
        for (p, pattern) in issue.paths.iter().enumerate() {
            compile_glob(pattern)
                .map_err(|message| (format!("issues[{i}].paths[{p}]"), message))?;
        }
    }

    for (i, critique) in plan.critiques.iter().enumerate() {
        let at = |field: &str| format!("critiques[{i}].{field}");
        reviewed_at(&critique.reviewed_at).map_err(|message| (at("reviewed_at"), message))?;
        ensure(
            critique.intent_revision.is_none() || critique.plan_revision.is_none(),
            || at("plan_revision"),
            "plan_revision is the old name of intent_revision: give intent_revision only",
        )?;
        if let Some(revision) = critique.revision() {
            ensure(
                revision.len() == 64 && crate::digest::is_lower_hex(revision),
                || at(critique.revision_key()),
                "an intent revision is 64 lowercase hex digits, as `gate plan critique` prints it",
            )?;
        }
        let mut seen = std::collections::HashMap::new();
        for (f, finding) in critique.findings.iter().enumerate() {
            let at = |field: &str| format!("critiques[{i}].findings[{f}].{field}");
            id_ok(ids::finding_id, &finding.id, || at("id"))?;
            unique(&mut seen, "finding", &finding.id, f, |n| {
                format!("critiques[{i}].findings[{n}].id")
            })?;
            ensure(
                !finding.text.trim().is_empty(),
                || at("text"),
                "the finding's text is blank",
            )?;
        }
    }
    Ok(())
}

/// A critique's `reviewed_at`: a strict date or a commit id (7–64 lowercase
/// hex digits).
fn reviewed_at(text: &str) -> Result<(), String> {
    let looks_like_date = text.len() == 10 && text.as_bytes()[4] == b'-';
    if looks_like_date {
        return crate::clock::Date::parse(text).map(|_| ());
    }
    if (7..=64).contains(&text.len()) && crate::digest::is_lower_hex(text) {
        return Ok(());
    }
    Err(format!(
        "{text:?} is neither a date (YYYY-MM-DD) nor a commit id (7 to 64 lowercase hex digits)"
    ))
}

/// Whether `path` is gate's own (`.gate` or below), which no fingerprint
/// covers.
pub fn is_gate_path(path: &crate::path::RepoPath) -> bool {
    path.is_under(".gate")
}

/// The path a plan source names, as the work-tree and the tree
/// fingerprints both read it (docs/receipts.md): `Ok(None)` for a source
/// under `.gate/`, which no fingerprint covers; `Err` (the path as given)
/// for one that escapes the repository ([`check_source`]).
pub fn source_path(source: &str) -> Result<Option<crate::path::RepoPath>, crate::path::RepoPath> {
    let path = crate::path::RepoPath::from(source.strip_suffix('/').unwrap_or(source));
    if check_source(source).is_err() {
        return Err(path);
    }
    Ok((!is_gate_path(&path)).then_some(path))
}

/// Whether `source` is an acceptable `sources` entry: a repository-relative
/// path, `/`-separated (a trailing `/` is allowed), with no empty, `.` or
/// `..` component, not inside any `.git` directory, without backslashes or
/// control characters.
pub fn check_source(source: &str) -> Result<(), String> {
    if source.is_empty() {
        return Err("the source path is empty".into());
    }
    if source.contains('\\') {
        return Err(format!(
            "{source:?} contains a backslash; separate directories with '/'"
        ));
    }
    if source.chars().any(char::is_control) {
        return Err(format!("{source:?} contains a control character"));
    }
    if source.starts_with('/') {
        return Err(format!(
            "{source:?} is absolute; sources are relative to the repository root"
        ));
    }
    let body = source.strip_suffix('/').unwrap_or(source);
    for part in body.split('/') {
        let problem = match part {
            "" => "has an empty component ('//')",
            "." => "has a '.' component; write the path without it",
            ".." => "has a '..' component; sources stay inside the repository",
            _ if part.eq_ignore_ascii_case(".git") => {
                "is inside a .git directory, which is git's, not the project's"
            }
            _ => continue,
        };
        return Err(format!("{source:?} {problem}"));
    }
    Ok(())
}

/// Compile an issue path (or task scope) glob in gate's dialect (see the
/// module doc): `*` and `?` stop at `/`, `**` crosses it, `\` escapes; the
/// pattern is repository-relative, has no `.` or `..` component and does
/// not end with `/`.
pub fn compile_glob(pattern: &str) -> Result<Glob, String> {
    if pattern.is_empty() {
        return Err("the path pattern is empty".into());
    }
    if pattern.starts_with('/') {
        return Err(format!(
            "{pattern:?} is absolute; paths are relative to the repository root"
        ));
    }
    if let Some(dir) = pattern.strip_suffix('/') {
        return Err(format!(
            "{pattern:?} ends with '/', which matches no file; write \"{dir}/**\" for \
             everything under it"
        ));
    }
    for part in pattern.split('/') {
        if part == "." || part == ".." {
            return Err(format!(
                "{pattern:?} has a {part:?} component; paths are written from the repository \
                 root"
            ));
        }
    }
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|err| format!("{pattern:?} is not a valid glob: {}", err.kind()))
}

#[cfg(test)]
mod tests {

    #[test]
    fn moving_refs_are_found_in_commands() {
        for (command, refs) in [
            ("cargo test", vec![]),
            (
                "git diff --exit-code origin/main -- src",
                vec!["origin/main"],
            ),
            ("git log origin/main..HEAD", vec!["origin/main"]),
            ("git diff upstream/dev...HEAD", vec!["upstream/dev"]),
            ("git diff @{u}", vec!["@{u}"]),
            ("git diff main@{Upstream}", vec!["main@{Upstream}"]),
            (
                "git rev-list HEAD ^refs/remotes/fork/x",
                vec!["refs/remotes/fork/x"],
            ),
            ("git diff FETCH_HEAD~1", vec!["FETCH_HEAD~1"]),
            ("check --base=origin/main", vec!["origin/main"]),
            ("cat src/origin/x docs/upstream/y", vec![]),
            ("ls origin/ upstream", vec![]),
            ("git diff HEAD~1", vec![]),
            ("git diff fork/main", vec![]),
        ] {
            assert_eq!(moving_refs(command, &[]), refs, "{command}");
        }
    }

    /// The assurance source rejects a remote-tracking ref as the earlier
    /// state "unless the goal names the remote": the remotes are this
    /// clone's, as well as the usual two.
    #[test]
    fn remote_tracking_refs_of_the_clones_own_remotes_are_moving() {
        let remotes = ["fork".to_string(), "gh".to_string()];
        assert_eq!(
            moving_refs("git diff fork/main..gh/dev -- src", &remotes),
            ["fork/main", "gh/dev"]
        );
        assert_eq!(
            moving_refs("git diff origin/main", &remotes),
            ["origin/main"]
        );
        assert!(moving_refs("cat fork/ ./fork/x", &remotes).is_empty());
    }

    #[test]
    fn a_finding_planned_in_an_issue_is_resolved_while_that_issue_is_open() {
        let text = |status: &str, planned: &str| {
            format!(
                "intents:\n  - id: I\n    statement: s\n    status: active\nissues:\n  - id: \"7\"\n    title: t\n    paths: []\n    status: {status}\ncritiques:\n  - intent: I\n    reviewed_at: 2026-11-20\n    findings:\n      - id: F1\n        blocking: true\n        text: x\n        planned_in: \"{planned}\"\n"
            )
        };
        let plan = parse_text(&text("open", "7")).unwrap();
        assert!(!plan.critiques[0].findings[0].is_open(&plan));
        assert!(plan.reference_faults().is_empty());
        let plan = parse_text(&text("closed", "7")).unwrap();
        assert!(plan.critiques[0].findings[0].is_open(&plan));
        let faults = plan.reference_faults();
        let faults: Vec<(&str, &str)> = faults.iter().map(|f| (f.cause, f.key.as_str())).collect();
        assert_eq!(
            faults,
            [(
                cause::PLANNED_IN_CLOSED_ISSUE,
                "critiques[0].findings[0].planned_in"
            )]
        );
        let plan = parse_text(&text("open", "99")).unwrap();
        assert!(plan.critiques[0].findings[0].is_open(&plan));
        let causes: Vec<&str> = plan.reference_faults().iter().map(|f| f.cause).collect();
        assert_eq!(causes, [cause::PLANNED_IN_UNKNOWN_ISSUE]);
        // Unstamped: a warning, by key.
        let lints: Vec<String> = plan
            .critique_lints()
            .iter()
            .map(|f| f.key.clone())
            .collect();
        assert_eq!(lints, ["critiques[0]"]);
    }

    /// The assurance source: "a non-empty `git log <baseline>..HEAD --
    /// <paths>` proves only that some commit matches the filter. New plans
    /// reject stand-alone, path-filtered, non-empty git-log assertions."
    #[test]
    fn a_path_filtered_git_log_assertion_is_found() {
        for (command, found) in [
            (
                r#"test -n "$(git log {BASELINE}..HEAD -- src)""#,
                vec!["git log {BASELINE}..HEAD -- src"],
            ),
            (
                "git log --oneline A..B -- src docs | grep -q .",
                vec!["git log --oneline A..B -- src docs"],
            ),
            (
                "[ $(git -C . rev-list --count A..B -- lib) -gt 0 ]",
                vec!["git -C . rev-list --count A..B -- lib"],
            ),
            ("git log A..B", vec![]),
            ("git log A..B --", vec![]),
            ("git diff --name-only A..B -- src", vec![]),
            ("cargo test -- --nocapture", vec![]),
            ("echo git log -- x", vec![]),
        ] {
            assert_eq!(path_filtered_history(command), found, "{command}");
        }
    }

    #[test]
    fn the_baseline_placeholder_is_rewritten_quoted_or_not() {
        let check = |command: &str| AcceptanceCheck {
            id: "scope".into(),
            command: command.into(),
            sources: vec!["src".into()],
            purpose: None,
            environment: None,
        };
        let id = "0123456789abcdef0123456789abcdef01234567";
        for (command, run) in [
            (
                "git diff --name-only {BASELINE}..HEAD -- src",
                format!("git diff --name-only {id}..HEAD -- src"),
            ),
            (
                "sh checks/scope.sh '{BASELINE}' \"{BASELINE}\"",
                format!("sh checks/scope.sh '{id}' \"{id}\""),
            ),
            ("echo ${BASELINE}", "echo ${BASELINE}".to_string()),
            ("make", "make".to_string()),
        ] {
            assert_eq!(check(command).command_at(Some(id)).unwrap(), run);
        }
        assert_eq!(
            check("git diff {BASELINE}").command_at(None),
            Err(BaselineMissing {
                acceptance_id: "scope".into()
            })
        );
        assert_eq!(check("make").command_at(None).unwrap(), "make");
    }

    #[test]
    fn the_baseline_is_part_of_the_contract_of_a_check_that_uses_it() {
        let check = |command: &str| AcceptanceCheck {
            id: "scope".into(),
            command: command.into(),
            sources: vec!["src".into()],
            purpose: None,
            environment: None,
        };
        let (a, b) = ("a".repeat(40), "b".repeat(40));
        for command in ["git diff {BASELINE}..HEAD", "sh s.sh \"$GATE_BASELINE\""] {
            let c = check(command);
            assert!(c.uses_baseline());
            assert_ne!(c.contract_at(Some(&a)), c.contract_at(Some(&b)));
            assert_ne!(c.contract_at(Some(&a)), c.contract_digest());
            assert_eq!(c.contract_at(None), c.contract_digest());
        }
        let plain = check("make test");
        assert!(!plain.uses_baseline());
        assert_eq!(plain.contract_at(Some(&a)), plain.contract_digest());
        assert!(!check("echo ${BASELINE}").uses_baseline());
    }

    #[test]
    fn command_lints_name_the_check_and_its_key() {
        let plan = parse(
            Path::new("plan.yaml"),
            "checks:\n  - id: a\n    command: git diff origin/main\n    sources: [src]\n  - id: b\n    command: |\n      make\n      make test\n    sources: [src]\n  - id: c\n    command: make\n    sources: [src]\n",
        )
        .unwrap();
        let lints = plan.command_lints(&[]);
        let got: Vec<(&str, &str)> = lints.iter().map(|l| (l.cause, l.key.as_str())).collect();
        assert_eq!(
            got,
            [
                (cause::COMMAND_NAMES_MOVING_REF, "checks[0].command"),
                (cause::COMMAND_SPANS_LINES, "checks[1].command"),
            ]
        );
        let plan = parse(
            Path::new("plan.yaml"),
            "checks:\n  - id: a\n    command: test -n \"$(git log A..B -- src)\"\n    sources: [src]\n",
        )
        .unwrap();
        let got: Vec<&str> = plan.command_lints(&[]).iter().map(|l| l.cause).collect();
        assert_eq!(got, [cause::COMMAND_FILTERS_HISTORY]);
    }
    use super::*;

    const EXAMPLE: &str = include_str!("../policy/plan.example.yaml");

    fn parse_text(text: &str) -> Result<Plan, LoadError> {
        parse(Path::new(PLAN_PATH), text)
    }

    fn invalid(text: &str) -> (Option<usize>, String, String) {
        match parse_text(text).unwrap_err() {
            LoadError::Invalid {
                line, key, message, ..
            } => (line, key, message),
            other => panic!("expected an invalid-value error, got {other:?}"),
        }
    }

    fn schema(text: &str) -> (Option<usize>, Option<usize>, String, String) {
        match parse_text(text).unwrap_err() {
            LoadError::Schema {
                line,
                column,
                key,
                message,
                ..
            } => (line, column, key, message),
            other => panic!("expected a schema error, got {other:?}"),
        }
    }

    fn loaded(text: &str) -> LoadedPlan {
        LoadedPlan {
            plan: parse_text(text).unwrap(),
            file: PLAN_PATH.into(),
            text: text.to_owned(),
        }
    }

    const EXAMPLE_PLAN: &str = r#"
intents:
  - id: I-binding
    statement: A task names what it serves.
    status: active
    invariants: [The binding is derived, never stored]
    non_goals: [Judging completion]
    criteria:
      - id: C1
        criterion: Binding answers bound/maintenance/exempt/refused.
        evidence: [binding-tests]
checks:
  - id: binding-tests
    command: cargo test --test binding
    sources: [src, tests, Cargo.toml, Cargo.lock]
    purpose: Binding behaviour end to end
    environment: local
issues:
  - id: "42"
    title: Binding capability
    intent: I-binding
    serves: [C1]
    paths: ["src/binding/**", "docs/binding.md"]
    status: open
critiques:
  - intent: I-binding
    reviewed_at: 2026-11-20
    plan_revision: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
    findings:
      - id: F1
        blocking: true
        text: No test for ambiguity.
        resolution: Added binding-tests case.
"#;

    #[test]
    fn spec_example_parses_with_no_faults() {
        let plan = parse_text(EXAMPLE_PLAN).unwrap();
        assert_eq!(plan.intents[0].status, IntentStatus::Active);
        assert_eq!(plan.issue("42").unwrap().status, IssueStatus::Open);
        assert_eq!(
            plan.acceptance_check("binding-tests")
                .unwrap()
                .sources
                .len(),
            4
        );
        assert_eq!(plan.intent("I-binding").unwrap().criteria[0].id, "C1");
        assert!(!plan.critiques[0].findings[0].is_open(&plan));
        assert!(plan.reference_faults().is_empty());
        assert!(
            plan.issue("43").is_none()
                && plan.acceptance_check("x").is_none()
                && plan.intent("x").is_none()
        );
    }

    #[test]
    fn example_plan_parses_cleanly_with_no_faults() {
        let plan = parse(Path::new(".gate/plan.example.yaml"), EXAMPLE).unwrap();
        assert_eq!(loaded(EXAMPLE).reference_faults(), []);
        assert_eq!(plan.intents.len(), 1);
        assert_eq!(plan.intents[0].criteria.len(), 2);
        assert_eq!(plan.acceptance_checks.len(), 2);
        // Every criterion is served by an open issue; issue 17, the one the
        // README's flow starts, depends on export-tests only (the check the
        // flow runs).
        for c in &plan.intents[0].criteria {
            assert!(plan.issues.iter().any(|i| i.serves.contains(&c.id)));
        }
        let i17 = plan.issue("17").unwrap();
        assert_eq!(i17.serves, ["C1"]);
        assert_eq!(plan.intents[0].criteria[0].evidence, ["export-tests"]);
        assert!(plan.issues.iter().any(|i| i.intent.is_none()));
        assert!(plan.critiques[0].findings.iter().any(|f| !f.is_open(&plan)));
    }

    #[test]
    fn optional_keys_default() {
        let plan = parse_text(
            "intents:\n  - id: I\n    statement: s\n    status: retired\nchecks:\n  - id: c\n    command: true\n    sources: [src/]\nissues:\n  - id: m1\n    title: t\n    paths: []\n    status: closed\ncritiques:\n  - intent: I\n    reviewed_at: abcdef0\n",
        );
        // `command: true` is a boolean, not a string.
        let err = plan.unwrap_err();
        assert_eq!(err.key(), "checks[0].command");
        let plan = parse_text(
            "intents:\n  - id: I\n    statement: s\n    status: retired\nchecks:\n  - id: c\n    command: \"true\"\n    sources: [src/]\nissues:\n  - id: m1\n    title: t\n    paths: []\n    status: closed\ncritiques:\n  - intent: I\n    reviewed_at: abcdef0\n",
        )
        .unwrap();
        let intent = &plan.intents[0];
        assert!(
            intent.invariants.is_empty()
                && intent.non_goals.is_empty()
                && intent.criteria.is_empty()
        );
        assert!(
            plan.acceptance_checks[0].purpose.is_none()
                && plan.acceptance_checks[0].environment.is_none()
        );
        assert!(plan.issues[0].intent.is_none() && plan.issues[0].serves.is_empty());
        assert!(plan.critiques[0].revision().is_none() && plan.critiques[0].findings.is_empty());
        assert_eq!(parse_text("{}").unwrap(), Plan::default());
        assert_eq!(parse_text("intents: []\n").unwrap(), Plan::default());
    }

    #[test]
    fn schema_errors_name_line_column_and_key() {
        let text = "intents:\n  - id: I\n    statement: s\n    status: active\n    criteria:\n      - id: C1\n        criterion: c\n        evidence: [a]\n        weight: 3\n";
        let (line, column, key, message) = schema(text);
        assert_eq!((line, column), (Some(9), Some(9)));
        assert_eq!(key, "intents[0].criteria[0].weight");
        assert!(
            message.starts_with(
                "unknown field `weight`, expected one of `id`, `criterion`, `evidence`"
            ),
            "{message}"
        );

        let (line, _, key, message) = schema("checks:\n  - id: c\n    sources: [a]\n");
        assert_eq!((line, key.as_str()), (Some(2), "checks[0].command"));
        assert_eq!(message, "missing field `command`");

        let (line, _, key, message) = schema(
            "intents:\n  - id: I\n    statement: s\n    status: active\n    criteria:\n      - id: C1\n        criterion: c\n        evidence: [a, [b]]\n",
        );
        assert_eq!(
            (line, key.as_str()),
            (Some(8), "intents[0].criteria[0].evidence[1]")
        );
        assert!(message.contains("expected a string"), "{message}");

        let (_, _, key, message) =
            schema("intents:\n  - id: I\n    statement: s\n    status: done\n");
        assert_eq!(key, "intents[0].status");
        assert_eq!(
            message,
            "unknown variant `done`, expected `active` or `retired`"
        );

        let (_, _, key, message) = schema(
            "critiques:\n  - intent: I\n    reviewed_at: 2026-01-01\n    findings:\n      - id: F1\n        blocking: yes\n        text: t\n",
        );
        assert_eq!(key, "critiques[0].findings[0].blocking");
        assert!(message.contains("expected a boolean"), "{message}");

        let (_, _, key, _) = schema("checks: {}\n");
        assert_eq!(key, "checks");
        let (_, _, key, message) = schema("- a\n");
        assert_eq!(key, "");
        assert!(message.contains("expected a plan mapping"), "{message}");
    }

    #[test]
    fn numeric_issue_id_hints_to_quote_it() {
        let (line, column, key, message) =
            schema("issues:\n  - id: 42\n    title: t\n    paths: []\n    status: open\n");
        assert_eq!((line, column), (Some(2), Some(9)));
        assert_eq!(key, "issues[0].id");
        assert_eq!(
            message,
            "expected a string, found the number 42; quote it: id: \"42\""
        );
        let err = parse_text("issues:\n  - id: 42\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            ".gate/plan.yaml:2:9: issues[0].id: expected a string, found the number 42; quote it: id: \"42\""
        );
    }

    #[test]
    fn crlf_and_bom_plans() {
        let crlf = EXAMPLE_PLAN.replace('\n', "\r\n");
        assert_eq!(
            parse_text(&crlf).unwrap(),
            parse_text(EXAMPLE_PLAN).unwrap()
        );
        let bad = crlf.replace("id: C1", "id: 1C");
        let (line, key, _) = invalid(&bad);
        assert_eq!((line, key.as_str()), (Some(9), "intents[0].criteria[0].id"));
        let bom = format!("\u{feff}{}", EXAMPLE_PLAN.replace("id: C1", "id: 1C"));
        let (line, _, _) = invalid(&bom);
        assert_eq!(line, Some(9));
    }

    #[test]
    fn bad_ids_are_refused() {
        let cases = [
            ("id: I-binding\n", "id: I binding\n", 3, "intents[0].id"),
            ("id: C1\n", "id: C.1\n", 9, "intents[0].criteria[0].id"),
            ("id: binding-tests\n", "id: 9tests\n", 13, "checks[0].id"),
            ("id: \"42\"\n", "id: \"-42\"\n", 19, "issues[0].id"),
            ("id: F1\n", "id: F/1\n", 30, "critiques[0].findings[0].id"),
        ];
        for (from, to, line, key) in cases {
            let text = EXAMPLE_PLAN.replacen(from, to, 1);
            assert_ne!(text, EXAMPLE_PLAN, "{from}");
            let (got_line, got_key, message) = invalid(&text);
            assert_eq!((got_line, got_key.as_str()), (Some(line), key), "{message}");
        }
    }

    #[test]
    fn duplicate_ids_are_refused() {
        let intent = "  - id: I\n    statement: s\n    status: active\n";
        let (line, key, message) = invalid(&format!("intents:\n{intent}{intent}"));
        assert_eq!((line, key.as_str()), (Some(5), "intents[1].id"));
        assert_eq!(
            message,
            "intent \"I\" is declared twice (first at intents[0].id)"
        );

        let check = "  - id: c\n    command: x\n    sources: [a]\n";
        let (line, key, _) = invalid(&format!("checks:\n{check}{check}{check}"));
        assert_eq!((line, key.as_str()), (Some(5), "checks[1].id"));

        let issue = "  - id: \"1\"\n    title: t\n    paths: []\n    status: open\n";
        let (line, key, _) = invalid(&format!("issues:\n{issue}{issue}"));
        assert_eq!((line, key.as_str()), (Some(6), "issues[1].id"));

        let (line, key, _) = invalid(
            "intents:\n  - id: I\n    statement: s\n    status: active\n    criteria:\n      - {id: C1, criterion: a}\n      - {id: C1, criterion: b}\n",
        );
        assert_eq!((line, key.as_str()), (Some(7), "intents[0].criteria[1].id"));

        // The same criterion id under two intents is fine.
        parse_text(
            "intents:\n  - id: I\n    statement: s\n    status: active\n    criteria: [{id: C1, criterion: a}]\n  - id: J\n    statement: s\n    status: active\n    criteria: [{id: C1, criterion: a}]\n",
        )
        .unwrap();

        let (line, key, _) = invalid(
            "critiques:\n  - intent: I\n    reviewed_at: 2026-01-01\n    findings:\n      - {id: F1, blocking: false, text: a}\n      - {id: F1, blocking: true, text: b}\n",
        );
        assert_eq!(
            (line, key.as_str()),
            (Some(6), "critiques[0].findings[1].id")
        );
    }

    #[test]
    fn bad_sources_are_refused() {
        for bad in [
            "/abs",
            "../x",
            "a/../b",
            "a/..",
            ".git",
            ".git/hooks",
            "sub/.git/x",
            ".GIT",
            "a\\b",
            "",
            "./src",
            "a//b",
            "a/./b",
        ] {
            let text = format!(
                "checks:\n  - id: c\n    command: x\n    sources:\n      - ok\n      - {bad:?}\n"
            );
            let (line, key, message) = invalid(&text);
            assert_eq!(
                (line, key.as_str()),
                (Some(6), "checks[0].sources[1]"),
                "{bad:?}: {message}"
            );
        }
        for good in [
            "src",
            "src/",
            "Cargo.toml",
            "a/b/c.rs",
            ".github/workflows",
            ".gitignore",
            "a..b",
        ] {
            assert_eq!(check_source(good), Ok(()), "{good}");
        }
        let (line, key, _) = invalid("checks:\n  - id: c\n    command: x\n    sources: []\n");
        assert_eq!((line, key.as_str()), (Some(4), "checks[0].sources"));
        let (_, key, _) = invalid("checks:\n  - id: c\n    command: \" \"\n    sources: [a]\n");
        assert_eq!(key, "checks[0].command");
    }

    #[test]
    fn bad_globs_are_refused() {
        for bad in [
            "src/[a", "src/{a", "/src/**", "../x/**", "src/../x", "./src", "src/", "", "a\\",
        ] {
            let text = format!(
                "issues:\n  - id: \"1\"\n    title: t\n    paths:\n      - \"ok/**\"\n      - {bad:?}\n    status: open\n"
            );
            let (line, key, message) = invalid(&text);
            assert_eq!(
                (line, key.as_str()),
                (Some(6), "issues[0].paths[1]"),
                "{bad:?}: {message}"
            );
        }
        assert!(compile_glob("src/").unwrap_err().contains("\"src/**\""));
    }

    #[test]
    fn glob_dialect() {
        let m = |pattern: &str, path: &str| {
            compile_glob(pattern)
                .unwrap()
                .compile_matcher()
                .is_match(path)
        };
        assert!(m("src/*.rs", "src/a.rs"));
        assert!(!m("src/*.rs", "src/x/a.rs"));
        assert!(m("src/**", "src/x/a.rs"));
        assert!(m("src/**/*.rs", "src/a.rs"));
        assert!(m("**/*.md", "a/b/c.md"));
        assert!(m("**/*.md", "c.md"));
        assert!(!m("docs", "docs/a.md"));
        assert!(m("docs/{a,b}.md", "docs/b.md"));
        assert!(m("a\\*", "a*"));
        assert!(!m("a\\*", "ab"));
        assert!(!m("?", "/"));
    }

    #[test]
    fn a_critique_without_a_revision_is_a_lint() {
        let plan = parse_text(
            "critiques:\n  - intent: I\n    reviewed_at: 2026-11-20\n  - intent: J\n    reviewed_at: 2026-11-20\n    intent_revision: ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff\n",
        )
        .unwrap();
        let lints: Vec<_> = plan
            .critique_lints()
            .into_iter()
            .map(|f| (f.cause, f.key))
            .collect();
        assert_eq!(
            lints,
            [(cause::CRITIQUE_NOT_STAMPED, "critiques[0]".to_string())]
        );
    }

    #[test]
    fn a_source_no_fingerprint_covers_is_a_fault() {
        let plan = parse_text(
            "checks:\n  - id: a\n    command: make\n    sources: [src, .gate/policy.yaml]\n",
        )
        .unwrap();
        let faults: Vec<_> = plan
            .source_faults()
            .into_iter()
            .map(|f| (f.cause, f.key))
            .collect();
        assert_eq!(
            faults,
            [(cause::SOURCE_UNDER_GATE, "checks[0].sources[1]".to_string())]
        );
    }

    #[test]
    fn critique_dates_and_revisions_are_validated() {
        let critique = |reviewed: &str, revision: &str| {
            format!("critiques:\n  - intent: I\n    reviewed_at: {reviewed}\n{revision}")
        };
        for ok in [
            "2026-11-20",
            "abcdef0",
            "\"1234567\"",
            &"a".repeat(40),
            &"0".repeat(64).replace('0', "f"),
        ] {
            parse_text(&critique(ok, "")).unwrap();
        }
        for bad in [
            "2026-02-30",
            "2026-11",
            "abcdef",
            "ABCDEF0",
            "yesterday",
            &"a".repeat(65),
        ] {
            let (line, key, _) = invalid(&critique(bad, ""));
            assert_eq!(
                (line, key.as_str()),
                (Some(3), "critiques[0].reviewed_at"),
                "{bad}"
            );
        }
        let (_, _, key, message) = schema(&critique("1234567", ""));
        assert_eq!(key, "critiques[0].reviewed_at");
        assert!(message.contains("quote it"), "{message}");

        let good = format!("    plan_revision: {}\n", "ab".repeat(32));
        parse_text(&critique("2026-01-01", &good)).unwrap();
        for bad in ["abc".to_string(), "AB".repeat(32), "ab".repeat(33)] {
            let (line, key, _) = invalid(&critique(
                "2026-01-01",
                &format!("    plan_revision: {bad}\n"),
            ));
            assert_eq!(
                (line, key.as_str()),
                (Some(4), "critiques[0].plan_revision")
            );
        }
        // The new name, and never both.
        let good = format!("    intent_revision: {}\n", "ab".repeat(32));
        let plan = parse_text(&critique("2026-01-01", &good)).unwrap();
        assert_eq!(plan.critiques[0].revision(), Some("ab".repeat(32).as_str()));
        let (line, key, _) = invalid(&critique(
            "2026-01-01",
            &format!(
                "    intent_revision: {}\n    plan_revision: {}\n",
                "ab".repeat(32),
                "ab".repeat(32)
            ),
        ));
        assert_eq!(
            (line, key.as_str()),
            (Some(5), "critiques[0].plan_revision")
        );
        let (line, key, _) = invalid(&critique("2026-01-01", "    intent_revision: abc\n"));
        assert_eq!(
            (line, key.as_str()),
            (Some(4), "critiques[0].intent_revision")
        );
    }

    #[test]
    fn blank_texts_are_refused() {
        let (_, key, _) =
            invalid("intents:\n  - id: I\n    statement: \"  \"\n    status: active\n");
        assert_eq!(key, "intents[0].statement");
        let (_, key, _) =
            invalid("issues:\n  - id: \"1\"\n    title: \"\"\n    paths: []\n    status: open\n");
        assert_eq!(key, "issues[0].title");
    }

    #[test]
    fn every_reference_fault_has_its_cause_key_and_line() {
        let text = "\
intents:
  - id: I
    statement: s
    status: active
    criteria:
      - id: C1
        criterion: c
        evidence: [known, unknown-check]
      - id: C2
        criterion: c
  - id: J
    statement: s
    status: active
    criteria:
      - id: J1
        criterion: c
checks:
  - id: known
    command: x
    sources: [a]
issues:
  - id: \"1\"
    title: unknown intent
    intent: Nope
    serves: [C1]
    paths: []
    status: open
  - id: \"2\"
    title: serves without intent
    serves: [C1]
    paths: []
    status: open
  - id: \"3\"
    title: serves unknown and another
    intent: I
    serves: [C1, C9, J1]
    paths: []
    status: open
  - id: \"4\"
    title: serves nothing
    intent: J
    paths: []
    status: open
  - id: \"5\"
    title: maintenance
    paths: []
    status: open
critiques:
  - intent: Gone
    reviewed_at: 2026-01-01
";
        let faults = loaded(text).reference_faults();
        let got: Vec<(&str, &str, Option<usize>)> = faults
            .iter()
            .map(|f| (f.cause, f.key.as_str(), f.line))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "unknown_check",
                    "intents[0].criteria[0].evidence[1]",
                    Some(8)
                ),
                ("unknown_intent", "issues[0].intent", Some(24)),
                ("serves_without_intent", "issues[1].serves", Some(30)),
                ("serves_unknown_criterion", "issues[2].serves[1]", Some(36)),
                ("serves_another_intent", "issues[2].serves[2]", Some(36)),
                ("issue_serves_nothing", "issues[3].serves", Some(39)),
                ("unknown_intent", "critiques[0].intent", Some(49)),
            ]
        );
        assert!(
            faults[4]
                .message
                .contains("which belongs to intent J, not I"),
            "{}",
            faults[4].message
        );
        // Without the text, the same faults without lines.
        let bare = parse_text(text).unwrap().reference_faults();
        assert_eq!(bare.len(), faults.len());
        assert!(bare.iter().all(|f| f.line.is_none()));
    }

    #[test]
    fn locating_many_faults_is_bounded() {
        let mut parses = 2;
        let text = "issues:\n  - id: \"1\"\n";
        assert_eq!(
            locate_nearest(text, "issues[0].serves", &mut parses),
            Some((2, 5))
        );
        assert_eq!(parses, 0);
        assert_eq!(locate_nearest(text, "issues[0].id", &mut parses), None);
    }

    #[test]
    fn contract_digest_is_stable_under_key_order_and_moves_with_every_field() {
        let base = "checks:\n  - id: t\n    command: cargo test\n    sources: [src, Cargo.toml]\n    purpose: p\n    environment: local\n";
        let reordered = "checks:\n  - environment: local\n    sources:\n      - src\n      - Cargo.toml\n    purpose: p\n    command: 'cargo test'\n    id: t\n";
        let digest = |text: &str| parse_text(text).unwrap().acceptance_checks[0].contract_digest();
        let d = digest(base);
        assert_eq!(d.len(), 64);
        assert_eq!(digest(reordered), d);
        // The encoding is a public contract: pin it.
        assert_eq!(
            digest::canonical_json(&serde_json::json!({
                "id": "t", "command": "cargo test", "sources": ["src", "Cargo.toml"],
                "purpose": "p", "environment": "local"
            })),
            r#"{"command":"cargo test","environment":"local","id":"t","purpose":"p","sources":["src","Cargo.toml"]}"#
        );
        assert_eq!(
            d,
            digest::sha256_hex(
                br#"{"command":"cargo test","environment":"local","id":"t","purpose":"p","sources":["src","Cargo.toml"]}"#
            )
        );
        let edits = [
            base.replace("id: t", "id: u"),
            base.replace("cargo test", "cargo test --all"),
            base.replace("[src, Cargo.toml]", "[src]"),
            base.replace("[src, Cargo.toml]", "[Cargo.toml, src]"),
            base.replace("purpose: p", "purpose: q"),
            base.replace("    purpose: p\n", ""),
            base.replace("environment: local", "environment: ci"),
            base.replace("    environment: local\n", ""),
        ];
        let mut seen = vec![d];
        for edit in edits {
            let moved = digest(&edit);
            assert!(!seen.contains(&moved), "{edit}");
            seen.push(moved);
        }
        // An absent optional and an empty one differ.
        assert_ne!(
            digest(&base.replace("purpose: p", "purpose: \"\"")),
            digest(&base.replace("    purpose: p\n", ""))
        );
    }

    #[test]
    fn load_reads_the_file_or_returns_none() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load(dir.path()).unwrap().is_none());
        std::fs::create_dir(dir.path().join(".gate")).unwrap();
        std::fs::write(
            dir.path().join(PLAN_PATH),
            format!("\u{feff}{EXAMPLE_PLAN}"),
        )
        .unwrap();
        let loaded = load(dir.path()).unwrap().unwrap();
        assert_eq!(loaded.file, Path::new(PLAN_PATH));
        assert!(!loaded.text.starts_with('\u{feff}'));
        assert_eq!(loaded.plan.issues[0].id, "42");

        std::fs::write(
            dir.path().join(PLAN_PATH),
            "checks:\n  - id: c\n    command: x\n    sources: [/etc]\n",
        )
        .unwrap();
        let err = load(dir.path()).unwrap_err();
        assert_eq!(
            err.to_string(),
            ".gate/plan.yaml:4:15: checks[0].sources[0]: \"/etc\" is absolute; sources are relative to the repository root"
        );
        std::fs::write(dir.path().join(PLAN_PATH), "").unwrap();
        assert!(matches!(load(dir.path()), Err(LoadError::Schema { .. })));
    }
}
