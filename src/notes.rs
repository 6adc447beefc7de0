//! Receipts on commits (docs/receipts.md, "Receipts on commits"): a fresh
//! receipt whose fingerprint equals a commit's tree fingerprint is recorded
//! in a git note on that commit under [`NOTES_REF`], so that it travels with
//! the commit and a clone that never ran the check can verify it.
//!
//! One note per commit, a `gate.note/1` JSON document holding one entry per
//! check; a newer attempt of a check replaces its entry (the latest attempt
//! wins, ordered by `started_ns` as local receipts are).

use serde::{Deserialize, Serialize};

use crate::fingerprint::{self, Fingerprint, Inputs};
use crate::git::{GitError, NotesUpdate, Oid, Repo};
use crate::path::RepoPath;
use crate::receipts::Receipt;

/// The notes ref gate's receipts live under.
pub const NOTES_REF: &str = "refs/notes/gate";

pub const NOTE_SCHEMA: &str = "gate.note/1";

/// The note on one commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Note {
    pub schema: String,
    /// One entry per check, sorted by check id.
    pub checks: Vec<Entry>,
}

/// One check's latest attempt on the commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub check: String,
    pub evidence: String,
    /// The check's contract digest when it ran.
    pub contract: String,
    /// The source fingerprint it ran on: the commit's tree fingerprint.
    pub fingerprint: String,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub passed: bool,
    pub started_at: String,
    pub ended_at: String,
    /// Orders attempts, as in the receipt.
    pub started_ns: u128,
    /// The task the run was made for.
    pub task: Option<String>,
    pub gate_version: String,
    /// SHA-256 of the run's log, `None` when it could not be read.
    pub log_digest: Option<String>,
}

impl Entry {
    /// The entry for `receipt`, when it is fresh: the same available
    /// fingerprint before and after the run.
    pub fn of(receipt: &Receipt, log_digest: Option<String>) -> Option<Entry> {
        let before = receipt.fingerprint_before.digest.as_ref()?;
        let after = receipt.fingerprint_after.digest.as_ref()?;
        (before == after).then(|| Entry {
            check: receipt.check.clone(),
            evidence: receipt.evidence.clone(),
            contract: receipt.contract.clone(),
            fingerprint: after.clone(),
            exit_code: receipt.exit_code,
            signal: receipt.signal,
            passed: receipt.passed(),
            started_at: receipt.started_at.clone(),
            ended_at: receipt.ended_at.clone(),
            started_ns: receipt.started_ns,
            task: receipt.task.clone(),
            gate_version: env!("CARGO_PKG_VERSION").to_string(),
            log_digest,
        })
    }

    /// Whether this attempt came after `other` (a tie goes to the greater
    /// evidence id, so every clone picks the same one).
    fn later_than(&self, other: &Entry) -> bool {
        (self.started_ns, &self.evidence) > (other.started_ns, &other.evidence)
    }
}

impl Note {
    pub fn empty() -> Note {
        Note {
            schema: NOTE_SCHEMA.to_string(),
            checks: Vec::new(),
        }
    }

    /// A note's bytes, or why they are not a note gate can read.
    pub fn parse(bytes: &[u8]) -> Result<Note, String> {
        let note: Note = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        if note.schema != NOTE_SCHEMA {
            return Err(format!(
                "schema `{}` (this gate reads {NOTE_SCHEMA})",
                note.schema
            ));
        }
        Ok(note)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("a note serialises");
        bytes.push(b'\n');
        bytes
    }

    /// The entry of `check`.
    pub fn entry(&self, check: &str) -> Option<&Entry> {
        self.checks.iter().find(|e| e.check == check)
    }

    /// Take `entry` unless the note holds a later attempt of its check;
    /// whether the note changed.
    pub fn merge(&mut self, entry: Entry) -> bool {
        match self.checks.iter_mut().find(|e| e.check == entry.check) {
            Some(held) if entry.later_than(held) => *held = entry,
            Some(_) => return false,
            None => {
                self.checks.push(entry);
                self.checks.sort_by(|a, b| a.check.cmp(&b.check));
            }
        }
        true
    }
}

/// Why a note could not be written.
#[derive(Debug, thiserror::Error)]
pub enum AttachError {
    #[error(transparent)]
    Git(#[from] GitError),
    /// The note already on the commit is not one gate can read: replacing
    /// it would lose it.
    #[error("the note on commit {commit} under {NOTES_REF} cannot be read: {problem}")]
    Unreadable { commit: String, problem: String },
}

/// The note on `commit`, `None` when there is none.
pub fn read(repo: &Repo, commit: Oid) -> Result<Option<Note>, AttachError> {
    match repo.note(NOTES_REF, commit)? {
        None => Ok(None),
        Some(bytes) => Note::parse(&bytes)
            .map(Some)
            .map_err(|problem| AttachError::Unreadable {
                commit: commit.to_hex(),
                problem,
            }),
    }
}

/// Record `entries` in the note on `commit`, merged with what it holds.
pub fn attach(repo: &Repo, commit: Oid, entries: &[Entry]) -> Result<NotesUpdate, AttachError> {
    let message = format!(
        "gate: receipts of {} on {}",
        entries
            .iter()
            .map(|e| e.check.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        commit.short()
    );
    repo.update_notes(NOTES_REF, &message, |repo, notes| {
        let mut note = match notes.blob(commit) {
            None => Note::empty(),
            Some(blob) => {
                Note::parse(&repo.read_blob(blob)?).map_err(|problem| AttachError::Unreadable {
                    commit: commit.to_hex(),
                    problem,
                })?
            }
        };
        let mut changed = false;
        for entry in entries {
            changed |= note.merge(entry.clone());
        }
        Ok(match changed {
            true => vec![(commit, note.to_bytes())],
            false => Vec::new(),
        })
    })?
}

/// Whether a receipt can be attached to a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Match {
    /// Its fingerprint is the commit's tree fingerprint.
    Same(Box<Entry>),
    /// The receipt is not fresh: it vouches for no one state of the sources.
    NotFresh,
    /// The commit's tree holds other bytes (uncommitted changes, or bytes
    /// git converts on checkout), or its fingerprint is unavailable.
    Differs(Fingerprint),
}

/// Compare `receipt` with the tree fingerprint of `commit` over `sources`
/// and `touched` (the task's paths as of that commit).
pub fn matches(
    repo: &Repo,
    commit: Oid,
    receipt: &Receipt,
    sources: &[String],
    touched: &[RepoPath],
    limits: (u64, u64),
    log_digest: Option<String>,
) -> Result<Match, GitError> {
    let Some(entry) = Entry::of(receipt, log_digest) else {
        return Ok(Match::NotFresh);
    };
    let inputs = Inputs {
        sources,
        touched,
        max_entries: limits.0,
        max_bytes: limits.1,
    };
    let tree = fingerprint::of_tree(repo, commit, &inputs)?;
    Ok(match &tree {
        Fingerprint::Available { digest, .. } if *digest == entry.fingerprint => {
            Match::Same(Box::new(entry))
        }
        _ => Match::Differs(tree),
    })
}

/// What [`attach_receipt`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attached {
    /// The note now holds the receipt.
    Written,
    /// The note held it, or a later attempt of its check, already.
    AlreadyHeld,
    /// The receipt is not fresh.
    NotFresh,
    /// The commit's tree fingerprint is another (or unavailable).
    Differs(Fingerprint),
}

/// What a receipt is compared with a commit by: the check's sources, the
/// task's baseline (its touched paths are those of `baseline..commit`) and
/// the policy's limits.
pub struct Subject<'a> {
    pub sources: &'a [String],
    pub baseline: Option<Oid>,
    pub max_entries: u64,
    pub max_bytes: u64,
}

/// Attach `receipt` to `commit` when its fingerprint is the commit's tree
/// fingerprint; `log` is the run's log (its digest goes in the note).
pub fn attach_receipt(
    repo: &Repo,
    commit: Oid,
    receipt: &Receipt,
    subject: &Subject,
    log: &std::path::Path,
) -> Result<Attached, AttachError> {
    let touched = match subject.baseline {
        Some(baseline) => fingerprint::Touched::of_commits(repo, baseline, commit)?
            .for_sources(repo, subject.sources)?,
        None => Vec::new(),
    };
    let log_digest = std::fs::read(log)
        .ok()
        .map(|bytes| crate::digest::sha256_hex(&bytes));
    let found = matches(
        repo,
        commit,
        receipt,
        subject.sources,
        &touched,
        (subject.max_entries, subject.max_bytes),
        log_digest,
    )?;
    match found {
        Match::NotFresh => Ok(Attached::NotFresh),
        Match::Differs(tree) => Ok(Attached::Differs(tree)),
        Match::Same(entry) => Ok(match attach(repo, commit, &[*entry])? {
            NotesUpdate::Written(_) => Attached::Written,
            NotesUpdate::Unchanged => Attached::AlreadyHeld,
        }),
    }
}
