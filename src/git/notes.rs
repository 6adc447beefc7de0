//! Git notes under one notes ref (docs/receipts.md, "Receipts on commits"):
//! read in git's layout, fanout included, and written as one commit per
//! change with the ref moved only from the value it was read at.
//!
//! A notes ref points at a commit whose tree maps each annotated commit's
//! hex id to a blob, the note. Git splits long lists into fanout
//! directories (`ab/cdef…`); gate reads any fanout and writes a flat tree,
//! which git reads as well (`git notes show`), keeping entries that are not
//! notes where they were.
//!
//! A note is read only when its blob is at most [`MAX_NOTE_BYTES`], a size
//! taken from the object's header before any of its bytes: a larger one is
//! [`GitError::NoteTooLarge`], whether this clone's or one being merged in.

use std::collections::BTreeMap;

use gix::bstr::BString;
use gix::objs::tree::{Entry, EntryKind as Mode};
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};

use super::{GitError, Oid, Repo};

/// The most bytes a note may hold: 1 MiB, the cap on a receipt file
/// (`crate::fsutil::Kind::RECEIPT`). gate's note on a commit holds one
/// entry of well under 1 KiB per acceptance check; a larger blob is not
/// gate's, and reading it whole could exhaust memory (a note is anyone's
/// to write, and travels with a fetch).
pub const MAX_NOTE_BYTES: u64 = 1 << 20;

/// How often a notes update is tried again when the ref moved or was
/// locked by another writer between reading and writing it.
const ATTEMPTS: u32 = 50;

/// Wait a little before reading a ref another writer moved, longer each
/// attempt, and not in step with the other writer.
fn back_off(attempt: u32) {
    std::thread::sleep(std::time::Duration::from_millis(
        5 + u64::from(attempt) * 5 + u64::from(std::process::id() % 7),
    ));
}

/// The notes of a notes ref, as it was read.
#[derive(Clone, Debug, Default)]
pub struct Notes {
    /// The notes commit, `None` when the ref does not exist.
    pub tip: Option<Oid>,
    /// Each annotated commit's note blob.
    notes: BTreeMap<Oid, Oid>,
    /// Entries of the root tree that are not notes (kept as they are).
    other: Vec<Entry>,
}

impl Notes {
    /// The id of the note blob on `commit`.
    pub fn blob(&self, commit: Oid) -> Option<Oid> {
        self.notes.get(&commit).copied()
    }

    /// Every annotated commit, with its note blob.
    pub fn iter(&self) -> impl Iterator<Item = (Oid, Oid)> + '_ {
        self.notes.iter().map(|(c, b)| (*c, *b))
    }
}

/// What an update wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotesUpdate {
    /// A notes commit, now the ref's value.
    Written(Oid),
    /// Nothing changed: the ref stays where it was.
    Unchanged,
}

impl Repo {
    /// The notes of `notes_ref` (a full name, `refs/notes/…`); empty when
    /// the ref does not exist.
    pub fn notes(&self, notes_ref: &str) -> Result<Notes, GitError> {
        match self.ref_target(notes_ref)? {
            Some(tip) => self.notes_at(tip),
            None => Ok(Notes::default()),
        }
    }

    /// The notes of the notes commit `tip`.
    pub fn notes_at(&self, tip: Oid) -> Result<Notes, GitError> {
        let tree = self.commit_tree(tip)?;
        let mut notes = Notes {
            tip: Some(tip),
            ..Notes::default()
        };
        self.read_notes_tree(tree, "", &mut notes, true)?;
        Ok(notes)
    }

    /// The bytes of the note on `commit` under `notes_ref`, `None` when it
    /// has none; [`GitError::NoteTooLarge`], unread, when it is over
    /// [`MAX_NOTE_BYTES`].
    pub fn note(&self, notes_ref: &str, commit: Oid) -> Result<Option<Vec<u8>>, GitError> {
        match self.notes(notes_ref)?.blob(commit) {
            Some(blob) => self.read_note(notes_ref, commit, blob).map(Some),
            None => Ok(None),
        }
    }

    /// The bytes of `blob`, the note on `commit` in `notes` (what to call
    /// the notes in an error): its size is read from the object's header
    /// first, and a note over [`MAX_NOTE_BYTES`] is never read.
    pub fn read_note(&self, notes: &str, commit: Oid, blob: Oid) -> Result<Vec<u8>, GitError> {
        self.note_fits(notes, commit, blob)?;
        let bytes = self.read_blob(blob)?;
        // The header said so; the bytes agree, or the object is not what
        // its header claims.
        self.note_size_fits(notes, commit, bytes.len() as u64)?;
        Ok(bytes)
    }

    /// An error unless the note `blob` on `commit` is at most
    /// [`MAX_NOTE_BYTES`], by its object header alone (no byte of it read:
    /// for a packed delta, the size its header records).
    fn note_fits(&self, notes: &str, commit: Oid, blob: Oid) -> Result<(), GitError> {
        let header = match self.repo.try_find_header(blob.0) {
            Ok(Some(header)) => header,
            Ok(None) => return Err(GitError::MissingObject { id: blob.to_hex() }),
            Err(err) => return Err(GitError::gix(format!("reading the header of {blob}"), &err)),
        };
        self.note_size_fits(notes, commit, header.size())
    }

    fn note_size_fits(&self, notes: &str, commit: Oid, size: u64) -> Result<(), GitError> {
        match size > MAX_NOTE_BYTES {
            true => Err(GitError::NoteTooLarge {
                commit: commit.to_hex(),
                notes: notes.to_string(),
                size,
                max: MAX_NOTE_BYTES,
            }),
            false => Ok(()),
        }
    }

    /// Change the notes of `notes_ref` in one notes commit: `edit` is given
    /// the notes as they are and answers each commit's new note bytes
    /// (nothing for no change). The ref moves only from the value the
    /// notes were read at; when another writer moved or locked it in
    /// between, the notes are read again and `edit` asked again.
    pub fn update_notes<E>(
        &self,
        notes_ref: &str,
        message: &str,
        mut edit: impl FnMut(&Repo, &Notes) -> Result<Vec<(Oid, Vec<u8>)>, E>,
    ) -> Result<Result<NotesUpdate, E>, GitError> {
        let mut last = None;
        for attempt in 0..ATTEMPTS {
            let notes = self.notes(notes_ref)?;
            let changes = match edit(self, &notes) {
                Ok(changes) => changes,
                Err(e) => return Ok(Err(e)),
            };
            let mut map = notes.notes.clone();
            let mut changed = false;
            for (commit, bytes) in changes {
                let blob = self.write_blob(&bytes)?;
                changed |= map.insert(commit, blob) != Some(blob);
            }
            if !changed {
                return Ok(Ok(NotesUpdate::Unchanged));
            }
            let tree = self.write_notes_tree(&map, &notes.other)?;
            let parents: Vec<Oid> = notes.tip.into_iter().collect();
            let commit = self.write_commit(tree, &parents, message)?;
            match self.move_ref(notes_ref, notes.tip, commit, message) {
                Ok(()) => return Ok(Ok(NotesUpdate::Written(commit))),
                Err(e) => last = Some(e),
            }
            // Another writer got there first: back off a little, read again.
            back_off(attempt);
        }
        Err(last.unwrap_or_else(|| GitError::other(notes_ref, "could not be updated")))
    }

    /// Merge the notes commit `theirs` (another clone's) into `notes_ref`:
    /// nothing when ours holds it already, a fast-forward when it holds
    /// ours, else a merge commit (ours, then theirs, as parents) whose tree
    /// holds every note of both sides — the note of a commit both annotate
    /// differently being what `merge` makes of the two (ours, theirs). The
    /// ref moves only from the value it was read at, retried as in
    /// [`Repo::update_notes`]: a concurrent writer's notes are never lost.
    pub fn merge_notes<E>(
        &self,
        notes_ref: &str,
        theirs: Oid,
        message: &str,
        mut merge: impl FnMut(Oid, &[u8], &[u8]) -> Result<Vec<u8>, E>,
    ) -> Result<Result<NotesUpdate, E>, GitError> {
        let incoming = self.notes_at(theirs)?;
        let theirs_named = format!("the notes commit {theirs}");
        let mut last = None;
        for attempt in 0..ATTEMPTS {
            let ours = self.notes(notes_ref)?;
            if let Some(tip) = ours.tip
                && self.is_ancestor(theirs, tip)?
            {
                return Ok(Ok(NotesUpdate::Unchanged));
            }
            // Every note this merge would take in (as it is, by a
            // fast-forward, or merged) fits the cap, by its header: an
            // oversized one stops the merge, taken neither whole nor in
            // place of ours.
            for (commit, blob) in incoming.iter() {
                if ours.blob(commit) != Some(blob) {
                    self.note_fits(&theirs_named, commit, blob)?;
                }
            }
            let (from, to) = match ours.tip {
                Some(tip) if self.is_ancestor(tip, theirs)? => (Some(tip), theirs),
                None => (None, theirs),
                Some(tip) => {
                    let mut map = ours.notes.clone();
                    for (commit, blob) in incoming.iter() {
                        let merged = match map.get(&commit) {
                            None => blob,
                            Some(held) if *held == blob => continue,
                            Some(held) => {
                                let a = self.read_note(notes_ref, commit, *held)?;
                                let b = self.read_note(&theirs_named, commit, blob)?;
                                match merge(commit, &a, &b) {
                                    Ok(bytes) => self.write_blob(&bytes)?,
                                    Err(e) => return Ok(Err(e)),
                                }
                            }
                        };
                        map.insert(commit, merged);
                    }
                    let mut other = ours.other.clone();
                    for entry in &incoming.other {
                        if !other.iter().any(|e| e.filename == entry.filename) {
                            other.push(entry.clone());
                        }
                    }
                    let tree = self.write_notes_tree(&map, &other)?;
                    (Some(tip), self.write_commit(tree, &[tip, theirs], message)?)
                }
            };
            match self.move_ref(notes_ref, from, to, message) {
                Ok(()) => return Ok(Ok(NotesUpdate::Written(to))),
                Err(e) => last = Some(e),
            }
            back_off(attempt);
        }
        Err(last.unwrap_or_else(|| GitError::other(notes_ref, "could not be updated")))
    }

    /// Point `name` at `to`, only if it is still at `from` (`None`: absent).
    pub(crate) fn move_ref(
        &self,
        name: &str,
        from: Option<Oid>,
        to: Oid,
        message: &str,
    ) -> Result<(), GitError> {
        let context = || format!("updating {name}");
        let expected = match from {
            Some(id) => PreviousValue::MustExistAndMatch(gix::refs::Target::Object(id.0)),
            None => PreviousValue::MustNotExist,
        };
        let edit = RefEdit {
            change: Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: message.lines().next().unwrap_or_default().into(),
                },
                expected,
                new: gix::refs::Target::Object(to.0),
            },
            name: name
                .try_into()
                .map_err(|err| GitError::other(context(), err))?,
            deref: false,
        };
        let signature = self.signature();
        let mut buf = gix::date::parse::TimeBuf::default();
        self.repo
            .edit_references_as([edit], Some(signature.to_ref(&mut buf)))
            .map_err(|err| GitError::gix(context(), &err))?;
        Ok(())
    }

    /// What `name` points at, peeled; `None` when there is no such ref.
    pub(crate) fn ref_target(&self, name: &str) -> Result<Option<Oid>, GitError> {
        let context = || format!("reading {name}");
        let Some(mut reference) = self
            .repo
            .try_find_reference(name)
            .map_err(|err| GitError::gix(context(), &err))?
        else {
            return Ok(None);
        };
        let id = reference
            .peel_to_id()
            .map_err(|err| GitError::gix(context(), &err))?;
        Ok(Some(Oid(id.detach())))
    }

    /// Write `bytes` as a blob.
    pub(crate) fn write_blob(&self, bytes: &[u8]) -> Result<Oid, GitError> {
        self.repo
            .write_blob(bytes)
            .map(|id| Oid(id.detach()))
            .map_err(|err| GitError::gix("writing a blob", &err))
    }

    /// A commit of `tree` with `parents`, by gate's signature.
    pub(crate) fn write_commit(
        &self,
        tree: Oid,
        parents: &[Oid],
        message: &str,
    ) -> Result<Oid, GitError> {
        let signature = self.signature();
        let commit = gix::objs::Commit {
            tree: tree.0,
            parents: parents.iter().map(|p| p.0).collect(),
            author: signature.clone(),
            committer: signature,
            encoding: None,
            message: message.into(),
            extra_headers: Vec::new(),
        };
        self.repo
            .write_object(commit)
            .map(|id| Oid(id.detach()))
            .map_err(|err| GitError::gix("writing a notes commit", &err))
    }

    /// The configured committer, or `gate <gate@localhost>` when none is
    /// (a CI runner): a notes commit's author says nothing a note relies on.
    fn signature(&self) -> gix::actor::Signature {
        let time = gix::date::Time::now_utc();
        match self.repo.committer().and_then(Result::ok) {
            Some(who) => gix::actor::Signature {
                name: who.name.to_owned(),
                email: who.email.to_owned(),
                time: who.time().unwrap_or(time),
            },
            None => gix::actor::Signature {
                name: "gate".into(),
                email: "gate@localhost".into(),
                time,
            },
        }
    }

    /// Collect the notes below tree `tree` at `prefix` (hex digits so
    /// far, fanout directories joined).
    fn read_notes_tree(
        &self,
        tree: gix::ObjectId,
        prefix: &str,
        notes: &mut Notes,
        root: bool,
    ) -> Result<(), GitError> {
        let what = || format!("the notes tree at `{prefix}`");
        let tree = self.find_tree(tree, what)?;
        let decoded = tree
            .decode()
            .map_err(|err| GitError::gix(format!("decoding {}", what()), &err))?;
        for entry in &decoded.entries {
            let name = std::str::from_utf8(entry.filename.as_ref()).ok();
            let hex = name
                .filter(|n| n.bytes().all(|b| b.is_ascii_hexdigit()))
                .map(|n| format!("{prefix}{n}"));
            match (hex, entry.mode.kind()) {
                (Some(hex), Mode::Blob | Mode::BlobExecutable) => {
                    if let Some(commit) = Oid::from_hex(&hex) {
                        notes.notes.insert(commit, Oid(entry.oid.to_owned()));
                        continue;
                    }
                }
                (Some(hex), Mode::Tree) if name.is_some_and(|n| n.len() == 2) && hex.len() < 40 => {
                    self.read_notes_tree(entry.oid.to_owned(), &hex, notes, false)?;
                    continue;
                }
                _ => {}
            }
            if root {
                notes.other.push(Entry {
                    mode: entry.mode,
                    filename: BString::from(AsRef::<[u8]>::as_ref(entry.filename)),
                    oid: entry.oid.to_owned(),
                });
            }
        }
        Ok(())
    }

    /// A flat notes tree: one entry per note, named by the commit's hex
    /// id, and the root's other entries.
    fn write_notes_tree(
        &self,
        notes: &BTreeMap<Oid, Oid>,
        other: &[Entry],
    ) -> Result<Oid, GitError> {
        let mut entries: Vec<Entry> = other.to_vec();
        for (commit, blob) in notes {
            entries.push(Entry {
                mode: Mode::Blob.into(),
                filename: commit.to_hex().into(),
                oid: blob.0,
            });
        }
        entries.sort();
        self.repo
            .write_object(gix::objs::Tree { entries })
            .map(|id| Oid(id.detach()))
            .map_err(|err| GitError::gix("writing a notes tree", &err))
    }
}
