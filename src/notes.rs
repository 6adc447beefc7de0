//! Receipts on commits (docs/receipts.md, "Receipts on commits"): a fresh
//! receipt whose fingerprint equals a commit's tree fingerprint is recorded
//! in a git note on that commit under [`NOTES_REF`], so that it travels with
//! the commit and a clone that never ran the acceptance check can verify it.
//!
//! One note per commit, a `gate.note/1` JSON document holding one entry per
//! acceptance check; a newer attempt of one replaces its entry (the latest attempt
//! wins, ordered by `started_ns` as local receipts are).

use serde::{Deserialize, Serialize};

use crate::fingerprint::{self, Fingerprint, Inputs};
use crate::git::{GitError, NotesUpdate, Oid, PushResult, Repo};
use crate::receipts::Receipt;

/// The notes ref gate's receipts live under.
pub const NOTES_REF: &str = "refs/notes/gate";

pub const NOTE_SCHEMA: &str = "gate.note/1";

/// The note on one commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Note {
    pub schema: String,
    /// One entry per acceptance check, sorted by its id (the note's
    /// `checks`).
    #[serde(rename = "checks")]
    pub entries: Vec<Entry>,
}

/// One acceptance check's latest attempt on the commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The acceptance check's id (the entry's `check`).
    #[serde(rename = "check")]
    pub acceptance_id: String,
    pub evidence: String,
    /// The acceptance check's contract digest when it ran.
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
    /// The receipt's armored signature over [`Entry::payload`]; absent
    /// when it was made unsigned (docs/receipts.md, "Signed receipts").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// The evidence of a passing attempt another clone holds on the same
    /// content and contract, while this entry (a failure) stands: the two
    /// clones disagree, and no order of their clocks settles it
    /// (docs/receipts.md, "Receipts travel"). Not signed: it is the
    /// merge's record, not the run's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disputed_by: Option<String>,
    /// The evidence of the attempts this one replaced in the clone that
    /// attached it: a run made where they were known settles them, and a
    /// merge never sets them against it again. Not signed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supersedes: Vec<String>,
}

impl Entry {
    /// The entry for `receipt`, when it is fresh: the same available
    /// fingerprint before and after the run.
    pub fn of(receipt: &Receipt, log_digest: Option<String>) -> Option<Entry> {
        let fingerprint = receipt.fresh_digest()?.to_string();
        Some(Entry {
            acceptance_id: receipt.acceptance_id.clone(),
            evidence: receipt.evidence.clone(),
            contract: receipt.contract.clone(),
            fingerprint,
            exit_code: receipt.exit_code,
            signal: receipt.signal,
            passed: receipt.passed(),
            started_at: receipt.started_at.clone(),
            ended_at: receipt.ended_at.clone(),
            started_ns: receipt.started_ns,
            task: receipt.task.clone(),
            gate_version: env!("CARGO_PKG_VERSION").to_string(),
            log_digest,
            signature: receipt.signature.clone(),
            disputed_by: None,
            supersedes: Vec::new(),
        })
    }

    /// The bytes its signature covers: those of the receipt it was made
    /// from ([`Receipt::payload`]), rebuilt from the entry's own fields.
    pub fn payload(&self) -> Vec<u8> {
        crate::signing::Payload {
            schema: crate::signing::PAYLOAD_SCHEMA,
            check: &self.acceptance_id,
            evidence: &self.evidence,
            contract: &self.contract,
            fingerprint: &self.fingerprint,
            exit_code: self.exit_code,
            signal: self.signal,
            passed: self.passed,
            started_at: &self.started_at,
            ended_at: &self.ended_at,
            started_ns: self.started_ns.to_string(),
            task: self.task.as_deref(),
        }
        .bytes()
    }

    /// Whether this attempt came after `other` (a tie goes to the greater
    /// evidence id, so every clone picks the same one).
    fn later_than(&self, other: &Entry) -> bool {
        (self.started_ns, &self.evidence) > (other.started_ns, &other.evidence)
    }

    /// Whether this attempt replaced `other` where it was attached.
    fn settles(&self, other: &Entry) -> bool {
        self.supersedes.contains(&other.evidence)
    }

    /// Which of two attempts of one check, held by two clones, the merged
    /// note keeps (docs/receipts.md, "Receipts travel"): one that settles
    /// the other; else, when they ran on the same content under the same
    /// contract and disagree, the failure, marked as disputed by the pass —
    /// their clocks never decide that; else the later attempt. The same
    /// answer whichever side is `self`.
    fn merged_with(self, other: Entry) -> Entry {
        if self.evidence == other.evidence {
            // One attempt, merged by two clones: every record either kept.
            let mut one = self;
            one.disputed_by = one.disputed_by.max(other.disputed_by);
            one.supersedes.extend(other.supersedes);
            one.supersedes.sort();
            one.supersedes.dedup();
            return one;
        }
        if self.settles(&other) && !other.settles(&self) {
            return self;
        }
        if other.settles(&self) && !self.settles(&other) {
            return other;
        }
        let same_run_subject =
            self.contract == other.contract && self.fingerprint == other.fingerprint;
        if same_run_subject && self.passed != other.passed {
            let (mut failure, pass) = match self.passed {
                true => (other, self),
                false => (self, other),
            };
            // A failure disputed by two passes names the greater evidence,
            // so every clone keeps the same.
            if failure
                .disputed_by
                .as_ref()
                .is_none_or(|held| *held < pass.evidence)
            {
                failure.disputed_by = Some(pass.evidence);
            }
            return failure;
        }
        match other.later_than(&self) {
            true => other,
            false => self,
        }
    }
}

impl Note {
    pub fn empty() -> Note {
        Note {
            schema: NOTE_SCHEMA.to_string(),
            entries: Vec::new(),
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

    /// The entry of the acceptance check `acceptance_id`.
    pub fn entry(&self, acceptance_id: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.acceptance_id == acceptance_id)
    }

    /// Take `entry`, an attempt made in this clone, unless the note holds a
    /// later attempt of its acceptance check; whether the note changed. It
    /// settles what it replaces: the entry it replaces, and the pass that
    /// disputed it.
    pub fn merge(&mut self, mut entry: Entry) -> bool {
        match self
            .entries
            .iter_mut()
            .find(|e| e.acceptance_id == entry.acceptance_id)
        {
            Some(held) if entry.later_than(held) => {
                entry.supersedes = std::iter::once(held.evidence.clone())
                    .chain(held.disputed_by.clone())
                    .chain(held.supersedes.iter().cloned())
                    .filter(|e| *e != entry.evidence)
                    .collect();
                entry.supersedes.sort();
                entry.supersedes.dedup();
                *held = entry;
            }
            Some(_) => return false,
            None => {
                self.entries.push(entry);
                self.entries
                    .sort_by(|a, b| a.acceptance_id.cmp(&b.acceptance_id));
            }
        }
        true
    }
}

impl Note {
    /// Take `entry`, another clone's attempt, by [`Entry::merged_with`].
    fn merge_from_clone(&mut self, entry: Entry) {
        match self
            .entries
            .iter()
            .position(|e| e.acceptance_id == entry.acceptance_id)
        {
            Some(i) => {
                let held = self.entries.remove(i);
                self.entries.insert(i, held.merged_with(entry));
            }
            None => {
                self.entries.push(entry);
                self.entries
                    .sort_by(|a, b| a.acceptance_id.cmp(&b.acceptance_id));
            }
        }
    }
}

/// Why an update of the notes ref is not receipts gate can carry: what
/// is wrong, and what gets the receipts through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotesRejected {
    pub message: String,
    pub decide: &'static str,
}

const MERGE_INSTEAD: &str = "run `gate receipts push REMOTE` instead: it fetches the remote's receipts, merges them entry by entry and pushes a fast-forward";

/// Judge an update of `notes_ref` (as named to people) from `old` (`None`:
/// the ref is new there) to `new` (`None`: a deletion) as receipts, not as
/// code (docs/hooks.md, docs/ci.md): a fast-forward, so no clone's
/// receipts are dropped; and every note it adds or changes a readable
/// `gate.note/1` within the cap. The old side must be in this repository
/// (whether the update keeps it cannot be told otherwise). pre-push and a
/// server's `update` hook (`gate receipts accept`) judge by it.
pub fn judge_update(
    repo: &Repo,
    notes_ref: &str,
    old: Option<Oid>,
    new: Option<Oid>,
) -> Result<(), NotesRejected> {
    let rejected = |message: String, decide: &'static str| Err(NotesRejected { message, decide });
    let Some(new) = new else {
        return rejected(
            format!("the update deletes {notes_ref}: every clone's receipts there would go"),
            "leave the receipts in place; `git notes --ref gate remove COMMIT` and `gate receipts push REMOTE` drop one note",
        );
    };
    if let Some(old) = old {
        match repo.has_object(old).then(|| repo.is_ancestor(old, new)) {
            Some(Ok(true)) => {}
            Some(Ok(false)) => {
                return rejected(
                    format!(
                        "the update of {notes_ref} is not a fast-forward of {}: the receipts other clones pushed would be dropped",
                        old.short()
                    ),
                    MERGE_INSTEAD,
                );
            }
            _ => {
                return rejected(
                    format!(
                        "{notes_ref} was {} there, which is not in this repository, so whether the update keeps its receipts cannot be told",
                        old.short()
                    ),
                    MERGE_INSTEAD,
                );
            }
        }
    }
    let theirs = old.and_then(|old| repo.notes_at(old).ok());
    let ours = repo.notes_at(new).map_err(|e| NotesRejected {
        message: format!(
            "{notes_ref} at {} cannot be read as notes: {e}",
            new.short()
        ),
        decide: MERGE_INSTEAD,
    })?;
    for (commit, blob) in ours.iter() {
        // What the old side holds already was judged when it came.
        if theirs.as_ref().and_then(|t| t.blob(commit)) == Some(blob) {
            continue;
        }
        let problem = match repo.read_note(notes_ref, commit, blob) {
            Err(e) => Some(e.to_string()),
            Ok(bytes) => Note::parse(&bytes).err(),
        };
        if let Some(problem) = problem {
            return rejected(
                format!(
                    "the note on commit {} in {notes_ref} is not one gate can read: {problem}",
                    commit.short()
                ),
                "remove it (`git notes --ref gate remove COMMIT`), then push the receipts with `gate receipts push REMOTE`",
            );
        }
    }
    Ok(())
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
            .map(|e| e.acceptance_id.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        commit.short()
    );
    repo.update_notes(NOTES_REF, &message, |repo, notes| {
        let mut note = match notes.blob(commit) {
            None => Note::empty(),
            Some(blob) => {
                Note::parse(&repo.read_note(NOTES_REF, commit, blob)?).map_err(|problem| {
                    AttachError::Unreadable {
                        commit: commit.to_hex(),
                        problem,
                    }
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

/// What [`attach_latest`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attached {
    /// The note now holds the receipt.
    Written,
    /// The note held it, or a later attempt of its acceptance check, already.
    AlreadyHeld,
    /// The receipt is not fresh.
    NotFresh,
    /// The commit's tree fingerprint is another (or unavailable).
    Differs(Fingerprint),
}

/// What a receipt is compared with a commit by: the acceptance check's
/// sources, the task's baseline (its touched paths are those of
/// `baseline..commit`) and the policy's limits.
pub struct Subject<'a> {
    pub sources: &'a [String],
    pub baseline: Option<Oid>,
    /// Whose commits of `baseline..` are the task's work
    /// ([`fingerprint::Work`]); every commit's when `None`.
    pub work: Option<fingerprint::Work<'a>>,
    pub max_entries: u64,
    pub max_bytes: u64,
}

/// Attach to `commit` the latest fresh attempt among `candidates` (newest
/// first, one acceptance check's receipts made for one task, each with its
/// run's log) whose fingerprint is the commit's tree fingerprint over
/// `subject`: the one rule `gate verify` and pre-push attach by
/// (docs/receipts.md, "Receipts on commits"). The tree fingerprint is
/// computed once, through `trees` (the blob cache), and only when a
/// candidate is fresh. Even a note that holds the candidate already does
/// not spare it: git copies notes to rewritten commits
/// (`notes.rewriteRef`), so a note says nothing about its commit's tree.
pub fn attach_latest(
    repo: &Repo,
    commit: Oid,
    candidates: impl IntoIterator<Item = (Receipt, std::path::PathBuf)>,
    subject: &Subject,
    trees: &mut fingerprint::Trees,
) -> Result<Attached, AttachError> {
    let mut tree = None;
    for (receipt, log) in candidates {
        let Some(digest) = receipt.fresh_digest().map(str::to_string) else {
            continue;
        };
        let tree = match &tree {
            Some(tree) => tree,
            None => tree.insert(tree_fingerprint(repo, commit, subject, trees)?),
        };
        if !matches!(tree, Fingerprint::Available { digest: d, .. } if *d == digest) {
            continue;
        }
        let log_digest = std::fs::read(&log)
            .ok()
            .map(|bytes| crate::digest::sha256_hex(&bytes));
        let entry = Entry::of(&receipt, log_digest).expect("a fresh receipt has an entry");
        return Ok(match attach(repo, commit, &[entry])? {
            NotesUpdate::Written(_) => Attached::Written,
            NotesUpdate::Unchanged => Attached::AlreadyHeld,
        });
    }
    // The tree fingerprint was computed only for a fresh receipt.
    Ok(match tree {
        Some(tree) => Attached::Differs(tree),
        None => Attached::NotFresh,
    })
}

/// The tree fingerprint of `commit` over the subject's sources and the
/// task's paths as of that commit.
fn tree_fingerprint(
    repo: &Repo,
    commit: Oid,
    subject: &Subject,
    trees: &mut fingerprint::Trees,
) -> Result<Fingerprint, GitError> {
    let touched = match subject.baseline {
        Some(baseline) => fingerprint::Touched::of_commits(repo, baseline, commit, subject.work)?
            .for_sources(repo, subject.sources)?,
        None => Vec::new(),
    };
    let inputs = Inputs {
        sources: subject.sources,
        touched: &touched,
        max_entries: subject.max_entries,
        max_bytes: subject.max_bytes,
    };
    trees.of_commit(repo, commit, &inputs)
}

/// Pre-push's attach (docs/hooks.md, "pre-push sends the receipts with the
/// push"): for each of `tips`, each of `acceptance_checks`' latest fresh
/// receipt made under its current contract whose fingerprint is the tip's
/// tree fingerprint, by [`attach_latest`] — the rule `gate verify` attaches
/// by.
/// A task's receipts are compared over its paths as of the tip
/// (`baseline_of` the task id; `None`, a task that cannot be read: its
/// receipts are left out). Each tip's tree fingerprint over the same
/// inputs is taken once, through the blob cache under the store's cache
/// directory. Returns, per tip, the acceptance checks its note holds now.
pub fn attach_to_tips(
    repo: &Repo,
    store: &crate::receipts::Store,
    acceptance_checks: &[crate::plan::AcceptanceCheck],
    tips: &[Oid],
    limits: (u64, u64),
    key: &str,
    mut baseline_of: impl FnMut(&str) -> Option<Oid>,
) -> Result<Vec<(Oid, Vec<String>)>, AttachError> {
    let mut held: Vec<(Oid, Vec<String>)> = tips.iter().map(|t| (*t, Vec::new())).collect();
    let mut trees = fingerprint::Trees::cached(repo, &store.cache_dir());
    for acceptance in acceptance_checks {
        // This acceptance check's readable receipts, newest first, by the
        // task they were made for (each under the contract at that task's
        // baseline, below).
        let mut by_task: std::collections::BTreeMap<Option<String>, Vec<_>> = Default::default();
        let files = store
            .newest_first(&acceptance.id)
            .map_err(|e| GitError::other("reading the receipts", e))?;
        for file in files {
            if let Ok(receipt) = file.receipt {
                let log = store.log_path(&acceptance.id, &receipt.evidence).0;
                by_task
                    .entry(receipt.task.clone())
                    .or_default()
                    .push((receipt, log));
            }
        }
        for (task, candidates) in by_task {
            let baseline = match &task {
                None => None,
                Some(id) => match baseline_of(id) {
                    Some(baseline) => Some(baseline),
                    None => continue,
                },
            };
            let contract = acceptance.contract_at(baseline.map(|b| b.to_hex()).as_deref());
            let candidates: Vec<_> = candidates
                .into_iter()
                .filter(|(receipt, _)| receipt.contract == contract)
                .collect();
            if candidates.is_empty() {
                continue;
            }
            let subject = Subject {
                sources: &acceptance.sources,
                baseline,
                work: task.as_deref().map(|task| fingerprint::Work { task, key }),
                max_entries: limits.0,
                max_bytes: limits.1,
            };
            for (tip, acceptance_ids) in held.iter_mut() {
                let attached =
                    attach_latest(repo, *tip, candidates.iter().cloned(), &subject, &mut trees)?;
                if matches!(attached, Attached::Written | Attached::AlreadyHeld)
                    && !acceptance_ids.contains(&acceptance.id)
                {
                    acceptance_ids.push(acceptance.id.clone());
                }
            }
        }
    }
    Ok(held)
}

/// Where the notes fetched from a remote wait to be merged: a tracking
/// ref, forced by each fetch, never read as receipts.
pub const FETCHED_REF: &str = "refs/gate/fetched-notes";

/// How often `push` fetches, merges and pushes again when another clone
/// moved the remote's notes in between.
pub const PUSH_TRIES: u32 = 5;

/// Why receipts could not travel.
#[derive(Debug, thiserror::Error)]
pub enum TravelError {
    #[error(transparent)]
    Attach(#[from] AttachError),
    #[error(transparent)]
    Git(#[from] GitError),
    /// The remote refused the notes ref: what it said.
    #[error("{remote} refused {NOTES_REF}: {said}")]
    Refused { remote: String, said: String },
    /// Another clone moved the remote's notes before each push.
    #[error(
        "{remote} took no push of {NOTES_REF} in {tries} tries (another clone pushed each time): {said}"
    )]
    Raced {
        remote: String,
        tries: u32,
        said: String,
    },
}

/// What [`fetch`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fetched {
    /// The remote has no `refs/notes/gate`.
    NoneThere,
    /// This clone held every receipt of the remote's notes (`remote`) already.
    Held { remote: Oid },
    /// The remote's notes were merged in (or fast-forwarded to): `local`
    /// is this clone's notes commit now.
    Merged { remote: Oid, local: Oid },
}

/// Fetch `remote`'s `refs/notes/gate` and merge it into this clone's,
/// never overwriting: entry by entry, the latest attempt of each
/// acceptance check winning (docs/receipts.md, "Receipts travel").
pub fn fetch(repo: &Repo, remote: &str) -> Result<Fetched, TravelError> {
    match repo.remote_ref(remote, NOTES_REF)? {
        None => Ok(Fetched::NoneThere),
        Some(listed) => take(repo, remote, listed),
    }
}

/// Merge the remote's notes commit `listed` into this clone's, fetching it
/// first unless it is here already (pushed from here, or fetched before).
fn take(repo: &Repo, remote: &str, listed: Oid) -> Result<Fetched, TravelError> {
    let theirs = match repo.has_object(listed) {
        true => listed,
        false => {
            repo.fetch_ref(remote, NOTES_REF, FETCHED_REF)?;
            repo.ref_target(FETCHED_REF)?.ok_or_else(|| {
                GitError::other(
                    format!("fetching {NOTES_REF} from {remote}"),
                    format!("git fetch left no {FETCHED_REF}"),
                )
            })?
        }
    };
    let message = format!("gate: merge the receipts of {remote}");
    match repo.merge_notes(NOTES_REF, theirs, &message, merge_note)?? {
        NotesUpdate::Unchanged => Ok(Fetched::Held { remote: theirs }),
        NotesUpdate::Written(local) => Ok(Fetched::Merged {
            remote: theirs,
            local,
        }),
    }
}

/// The note of `commit` holding every acceptance check of `ours` and
/// `theirs`, one both hold merged by [`Entry::merged_with`].
fn merge_note(commit: Oid, ours: &[u8], theirs: &[u8]) -> Result<Vec<u8>, AttachError> {
    let unreadable = |problem| AttachError::Unreadable {
        commit: commit.to_hex(),
        problem,
    };
    let mut note = Note::parse(ours).map_err(unreadable)?;
    for entry in Note::parse(theirs).map_err(unreadable)?.entries {
        note.merge_from_clone(entry);
    }
    Ok(note.to_bytes())
}

/// What [`push`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pushed {
    /// Neither this clone nor the remote has any receipts on commits.
    Nothing,
    /// The remote's notes were this clone's already (after the merge).
    UpToDate { local: Oid, tries: u32 },
    /// The remote took this clone's notes, the remote's merged in.
    Sent { local: Oid, tries: u32 },
}

/// Merge `remote`'s notes into this clone's, then push `refs/notes/gate`
/// there as a fast-forward. A push that loses a race with another clone's
/// is fetched, merged and pushed again, [`PUSH_TRIES`] times at most.
pub fn push(repo: &Repo, remote: &str) -> Result<Pushed, TravelError> {
    let mut said = String::new();
    for tries in 1..=PUSH_TRIES {
        let listed = repo.remote_ref(remote, NOTES_REF)?;
        if let Some(listed) = listed {
            take(repo, remote, listed)?;
        }
        let Some(local) = repo.ref_target(NOTES_REF)? else {
            return Ok(Pushed::Nothing);
        };
        if listed == Some(local) {
            return Ok(Pushed::UpToDate { local, tries });
        }
        match repo.push_ref(remote, NOTES_REF)? {
            PushResult::Updated => return Ok(Pushed::Sent { local, tries }),
            PushResult::UpToDate => return Ok(Pushed::UpToDate { local, tries }),
            PushResult::NotFastForward(why) => said = why,
            PushResult::Refused(said) => {
                return Err(TravelError::Refused {
                    remote: remote.to_string(),
                    said,
                });
            }
        }
    }
    Err(TravelError::Raced {
        remote: remote.to_string(),
        tries: PUSH_TRIES,
        said,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(evidence: &str, started_ns: u128, passed: bool) -> Entry {
        Entry {
            acceptance_id: "unit".into(),
            evidence: evidence.into(),
            contract: "c".into(),
            fingerprint: "f".into(),
            exit_code: Some(if passed { 0 } else { 1 }),
            signal: None,
            passed,
            started_at: "2026-12-01T10:00:00Z".into(),
            ended_at: "2026-12-01T10:00:01Z".into(),
            started_ns,
            task: None,
            gate_version: "0.1.0".into(),
            log_digest: None,
            signature: None,
            disputed_by: None,
            supersedes: Vec::new(),
        }
    }

    /// `a` merged with `b`, checked to be `b` merged with `a`.
    fn merged(a: &Entry, b: &Entry) -> Entry {
        let one = a.clone().merged_with(b.clone());
        let other = b.clone().merged_with(a.clone());
        assert_eq!(one, other, "the merge depends on the side");
        one
    }

    #[test]
    fn a_later_pass_on_the_same_content_never_outweighs_a_failure_across_clones() {
        let failure = entry("ev-a", 100, false);
        // The other clone's clock runs ahead: its pass looks later.
        let pass = entry("ev-b", 200, true);
        let kept = merged(&failure, &pass);
        assert_eq!(kept.evidence, "ev-a");
        assert!(!kept.passed);
        assert_eq!(kept.disputed_by.as_deref(), Some("ev-b"));
        // And the other way round: the failure looks later.
        let kept = merged(&entry("ev-a", 300, false), &pass);
        assert_eq!(
            (kept.evidence.as_str(), kept.disputed_by.as_deref()),
            ("ev-a", Some("ev-b"))
        );
    }

    #[test]
    fn on_other_content_or_another_contract_the_later_attempt_wins() {
        let failure = entry("ev-a", 100, false);
        let mut pass = entry("ev-b", 200, true);
        pass.fingerprint = "g".into();
        assert_eq!(merged(&failure, &pass).evidence, "ev-b");
        let mut pass = entry("ev-b", 200, true);
        pass.contract = "d".into();
        assert_eq!(merged(&failure, &pass).evidence, "ev-b");
        // Two failures, two passes: the later.
        assert_eq!(merged(&failure, &entry("ev-c", 50, false)).evidence, "ev-a");
        assert_eq!(
            merged(&entry("ev-d", 1, true), &entry("ev-e", 2, true)).evidence,
            "ev-e"
        );
    }

    #[test]
    fn a_run_made_where_the_dispute_was_known_settles_it() {
        let mut note = Note::empty();
        note.merge_from_clone(entry("ev-a", 100, false));
        note.merge_from_clone(entry("ev-b", 200, true));
        assert_eq!(note.entries[0].disputed_by.as_deref(), Some("ev-b"));
        // A new run in this clone replaces the disputed failure.
        assert!(note.merge(entry("ev-c", 300, true)));
        let settled = note.entries[0].clone();
        assert_eq!(settled.supersedes, ["ev-a", "ev-b"]);
        // Merged with either side's old entries, it stays.
        assert_eq!(
            merged(&settled, &entry("ev-a", 100, false)).evidence,
            "ev-c"
        );
        assert_eq!(merged(&settled, &entry("ev-b", 200, true)).evidence, "ev-c");
        // A failure it never saw disputes it again.
        let unseen = merged(&settled, &entry("ev-z", 50, false));
        assert_eq!(
            (unseen.evidence.as_str(), unseen.disputed_by.as_deref()),
            ("ev-z", Some("ev-c"))
        );
    }

    #[test]
    fn the_same_attempt_keeps_its_dispute() {
        let mut disputed = entry("ev-a", 100, false);
        disputed.disputed_by = Some("ev-b".into());
        let plain = entry("ev-a", 100, false);
        assert_eq!(
            merged(&disputed, &plain).disputed_by.as_deref(),
            Some("ev-b")
        );
    }

    #[test]
    fn a_dispute_by_two_passes_names_the_same_one_everywhere() {
        let failure = entry("ev-a", 100, false);
        let (p1, p2) = (entry("ev-b", 200, true), entry("ev-c", 300, true));
        let one = merged(&merged(&failure, &p1), &p2);
        let other = merged(&merged(&failure, &p2), &p1);
        assert_eq!(one, other);
        assert_eq!(one.disputed_by.as_deref(), Some("ev-c"));
    }
}
