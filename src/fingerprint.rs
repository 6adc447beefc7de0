//! The source fingerprint of a check (SPEC §4.3): one SHA-256 over the real
//! bytes of every file a check's receipt vouches for, or the reason there
//! can be none.
//!
//! Owns which paths are covered (`cover`), reading and hashing them on all
//! cores (`scan`), the stat cache that keeps a warm run from reading again
//! (`cache`), and the paths a task touched ([`touched_paths`]). It never
//! decides whether a receipt is fresh (the receipts check compares two
//! digests) and never prints, except a progress counter on a terminal.
//!
//! # What is covered
//!
//! - A `sources` entry that is a directory (in the work tree, or with tracked
//!   entries under it): its tracked files (index entries) and its untracked
//!   files that git does not ignore. Git's ignore rules apply here only.
//! - A `sources` entry that is not a directory: that path, ignored or not,
//!   present or missing.
//! - Every touched path, like an explicit file.
//! - Never anything under `.gate/`.
//!
//! # Unavailable, never fresh
//!
//! A covered path that is a symlink or lies below one, a nested repository
//! (a gitlink, or a directory holding `.git` at or above a covered path
//! inside the work tree), a FIFO, socket or device (never opened), a path
//! that escapes the repository (absolute, `..`, `.git`), a file whose stat
//! (size, mtime, ctime, inode, device, mode) differs before and after it is
//! read, a file that cannot be read, more than `max_entries` covered paths
//! or more than `max_bytes` bytes of content. When several problems exist,
//! the one reported is the first in this order: problems found while
//! listing paths (the first by path), the entry limit, problems found by
//! `lstat` (first by path), the byte limit, problems found while reading
//! (first by path). So the answer does not depend on thread timing.
//!
//! # The encoding (stable: receipts store its digest)
//!
//! The digest is the lowercase hex SHA-256 of this byte stream:
//!
//! ```text
//! "gate-source-fingerprint-v1\0"
//! then, for each covered path in ascending order of its bytes:
//!   u32 big-endian length of the path, the path bytes (repository-relative, '/')
//!   one kind byte: 'f' a regular file, 'x' an executable file (the owner's
//!                  x bit, as git's 100755), 'm' missing (nothing, or a
//!                  directory, at that path)
//!   for 'f' and 'x': the 32 raw bytes of the SHA-256 of the file's content
//! ```
//!
//! Length prefixes make the stream self-delimiting, so no two sets of
//! entries encode alike; sorting makes it independent of listing order.
//! Only real bytes are hashed: no clean or smudge filter, no line-ending
//! conversion, no git object header.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::git::{GitError, IndexSnapshot, Oid, Renames, Repo};
use crate::path::RepoPath;

mod cache;
mod cover;
mod scan;
mod walk;

/// What to fingerprint, and the limits.
#[derive(Clone, Copy, Debug)]
pub struct Inputs<'a> {
    /// A check's `sources`: repository-relative directories or files,
    /// validated by [`crate::plan::check_source`] (an entry that is not is
    /// reported as [`Unavailable::EscapesRepository`]).
    pub sources: &'a [String],
    /// The paths the task touched ([`touched_paths`]); `.gate/` paths are dropped.
    pub touched: &'a [RepoPath],
    /// Policy `receipts.max_entries`: most covered paths.
    pub max_entries: u64,
    /// Policy `receipts.max_bytes`: most bytes of content.
    pub max_bytes: u64,
}

/// The outcome: a digest, or why there cannot be one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fingerprint {
    Available {
        /// Lowercase hex SHA-256 of the encoding in the module doc.
        digest: String,
        /// Covered paths, missing ones included.
        entries: u64,
        /// Bytes of content covered.
        bytes: u64,
    },
    Unavailable {
        reason: Unavailable,
        /// The path concerned, when there is one (not for the limits).
        path: Option<RepoPath>,
    },
}

/// Why a fingerprint cannot be taken (cause `fingerprint_unavailable`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unavailable {
    /// A covered path is a symlink, or lies below one.
    Symlink,
    /// A gitlink, or a directory with its own `.git`.
    NestedRepository,
    /// A FIFO, socket or device.
    SpecialFile,
    /// A path outside the repository (absolute, `..`, inside `.git`).
    EscapesRepository,
    /// The file's stat differed before and after reading it.
    ChangedWhileRead,
    /// Reading failed; the system's message.
    Unreadable(String),
    TooManyEntries {
        limit: u64,
    },
    TooManyBytes {
        limit: u64,
    },
}

impl Unavailable {
    /// The stable snake_case name used in findings and JSON.
    pub fn as_str(&self) -> &'static str {
        match self {
            Unavailable::Symlink => "symlink",
            Unavailable::NestedRepository => "nested_repository",
            Unavailable::SpecialFile => "special_file",
            Unavailable::EscapesRepository => "escapes_repository",
            Unavailable::ChangedWhileRead => "changed_while_read",
            Unavailable::Unreadable(_) => "unreadable",
            Unavailable::TooManyEntries { .. } => "too_many_entries",
            Unavailable::TooManyBytes { .. } => "too_many_bytes",
        }
    }
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unavailable::Symlink => f.write_str("a symbolic link"),
            Unavailable::NestedRepository => f.write_str("a nested repository"),
            Unavailable::SpecialFile => f.write_str("a FIFO, socket or device"),
            Unavailable::EscapesRepository => f.write_str("a path outside the repository"),
            Unavailable::ChangedWhileRead => f.write_str("changed while it was read"),
            Unavailable::Unreadable(message) => write!(f, "unreadable ({message})"),
            Unavailable::TooManyEntries { limit } => {
                write!(f, "more than {limit} paths (receipts.max_entries)")
            }
            Unavailable::TooManyBytes { limit } => {
                write!(f, "more than {limit} bytes (receipts.max_bytes)")
            }
        }
    }
}

/// How the work was done, for tests and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Files read and hashed in this run.
    pub hashed: u64,
    /// Files whose hash came from the stat cache.
    pub from_cache: u64,
    /// Whether the stat cache was rewritten.
    pub cache_written: bool,
    /// Whether the untracked files came from the untracked cache (no walk).
    pub untracked_from_cache: bool,
}

/// The fingerprint of `inputs` in `repo`'s work tree.
///
/// `cache_dir` holds the stat cache (the caller passes
/// `<common-dir>/gate/cache/`; one file per work tree). A missing, corrupt
/// or unwritable cache only costs time. Errors are for what git could not
/// answer (the index, the directory walk); everything about the files
/// themselves is a [`Fingerprint::Unavailable`].
pub fn fingerprint(
    repo: &Repo,
    inputs: &Inputs,
    cache_dir: &Path,
) -> Result<Fingerprint, GitError> {
    fingerprint_with_stats(repo, inputs, cache_dir).map(|(fp, _)| fp)
}

/// [`fingerprint`], also saying how much was read and how much came from the cache.
pub fn fingerprint_with_stats(
    repo: &Repo,
    inputs: &Inputs,
    cache_dir: &Path,
) -> Result<(Fingerprint, Stats), GitError> {
    fingerprint_in(repo, &repo.read_index()?, inputs, cache_dir, None)
}

/// The stat cache loaded and its paths stat-ed on another core while the
/// caller reads the index and lists what is covered: start one before the
/// first [`fingerprint_in`] of an evaluation of the tree, and pass it to
/// each. Never across a change the caller makes to the files (the stats it
/// holds are from when it started).
pub struct Prefetch(scan::Prefetch);

impl Prefetch {
    /// Start for `repo`'s work tree and the stat cache under `cache_dir`;
    /// `None` in a bare repository.
    pub fn start(repo: &Repo, cache_dir: &Path) -> Option<Prefetch> {
        Some(Prefetch(scan::Prefetch::start(repo.workdir()?, cache_dir)))
    }
}

/// [`fingerprint_with_stats`] against an index already read (by
/// [`Repo::read_index`]), so that one reading serves the fingerprint and
/// the touched paths ([`Touched::for_sources_in`]) of the same moment, with
/// the stats a [`Prefetch`] took when there is one.
pub fn fingerprint_in(
    repo: &Repo,
    index: &IndexSnapshot,
    inputs: &Inputs,
    cache_dir: &Path,
    prefetch: Option<&Prefetch>,
) -> Result<(Fingerprint, Stats), GitError> {
    let prefetch = prefetch.map(|p| &p.0);
    let workdir = repo.workdir().ok_or_else(|| GitError::NoWorkTree {
        path: repo.git_dir(),
    })?;
    let mut stats = Stats::default();
    let mut listing = cover::list(repo, index, workdir, inputs)?;
    let tracked = std::mem::take(&mut listing.paths);
    // Stat what the index and the named paths give on other threads while
    // this one walks the source directories for untracked files (the walk
    // needs the repository, which stays on this thread). Not when there are
    // already too many paths: that is the answer, unless listing finds a
    // problem first.
    let early = tracked.len() as u64 <= inputs.max_entries;
    let (scan, untracked) = std::thread::scope(|s| {
        let stat = early
            .then(|| {
                std::thread::Builder::new()
                    .spawn_scoped(s, || {
                        scan::Scan::start(workdir, cache_dir, &tracked, prefetch)
                    })
                    .ok()
            })
            .flatten();
        let untracked = listing.untracked(repo, &tracked, cache_dir);
        let scan = stat.map(|handle| {
            handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        (scan, untracked)
    });
    let (untracked, from_cache) = untracked?;
    stats.untracked_from_cache = from_cache;
    let problems = listing.problems_above(tracked.iter().chain(&untracked).map(RepoPath::as_bytes));
    if let Some((path, reason)) = problems.into_iter().next() {
        return Ok((unavailable(reason, Some(path)), stats));
    }
    let entries = (tracked.len() + untracked.len()) as u64;
    if entries > inputs.max_entries {
        let limit = inputs.max_entries;
        return Ok((
            unavailable(Unavailable::TooManyEntries { limit }, None),
            stats,
        ));
    }
    let scan = match scan {
        Some(scan) => scan,
        None => scan::Scan::start(workdir, cache_dir, &tracked, prefetch),
    };
    let mut scan = match scan {
        Ok(scan) => scan,
        Err(reason) => return Ok((unavailable(reason, None), stats)),
    };
    scan.add(&untracked);
    let fp = match scan.finish(inputs.max_bytes, cache_dir, &mut stats) {
        scan::Outcome::Files(files) => Fingerprint::Available {
            digest: digest_of(files.iter().map(|f| (f.path.as_bytes(), f.content))),
            entries,
            bytes: files.iter().map(|f| f.size).sum(),
        },
        scan::Outcome::Unavailable(reason, path) => unavailable(reason, path),
    };
    Ok((fp, stats))
}

fn unavailable(reason: Unavailable, path: Option<RepoPath>) -> Fingerprint {
    Fingerprint::Unavailable { reason, path }
}

/// What is recorded for one covered path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Content {
    File { executable: bool, sha256: [u8; 32] },
    Missing,
}

/// The encoding of the module doc, hashed. `entries` must be sorted by path
/// bytes and free of duplicates.
pub(crate) fn digest_of<'a>(entries: impl IntoIterator<Item = (&'a [u8], Content)>) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"gate-source-fingerprint-v1\0");
    for (path, content) in entries {
        let len = u32::try_from(path.len()).expect("a path shorter than 4 GiB");
        hasher.update(len.to_be_bytes());
        hasher.update(path);
        match content {
            Content::File { executable, sha256 } => {
                hasher.update(if executable { b"x" } else { b"f" });
                hasher.update(sha256);
            }
            Content::Missing => hasher.update(b"m"),
        }
    }
    crate::digest::hex(&hasher.finalize())
}

/// Whether `path` is gate's own (`.gate` or below), never covered.
pub fn is_gate_path(path: &RepoPath) -> bool {
    path.is_under(".gate")
}

/// What a task touched (SPEC §4.3): every path changed in
/// `baseline..HEAD` (every commit, every parent, both sides of renames) or
/// staged, and — asked per check — the work tree's dirty paths (unstaged,
/// untracked non-ignored). `.gate/` paths never count.
///
/// Dirty paths inside a check's sources are covered by the sources anyway
/// (tracked and untracked non-ignored files of a source directory, an
/// explicit source file whatever its state), so
/// [`for_sources`](Touched::for_sources) asks git's status only about the
/// rest of the tree: on a warm run that is the difference between stat-ing
/// every file once and twice.
#[derive(Clone, Debug, Default)]
pub struct Touched {
    committed: BTreeSet<RepoPath>,
    dirty: bool,
}

impl Touched {
    /// Nothing touched: no task.
    pub fn none() -> Touched {
        Touched::default()
    }

    /// A task's: committed since `baseline`, staged, and dirty.
    pub fn of_task(repo: &Repo, baseline: Oid) -> Result<Touched, GitError> {
        Touched::of_task_in(repo, &repo.read_index()?, baseline)
    }

    /// [`of_task`](Self::of_task) with the staged paths of an index already read.
    pub fn of_task_in(
        repo: &Repo,
        index: &IndexSnapshot,
        baseline: Oid,
    ) -> Result<Touched, GitError> {
        let mut committed = BTreeSet::new();
        if let Some(head) = repo.head()?.id() {
            for commit in repo.walk(&[head], &[baseline])? {
                for diff in repo.changes(commit, Renames::Off)? {
                    for change in &diff.changes {
                        committed.extend(change.paths().cloned());
                    }
                }
            }
        }
        for change in repo.staged_changes_in(index, Renames::Off)? {
            committed.extend(change.paths().cloned());
        }
        Ok(Touched {
            committed,
            dirty: true,
        })
    }

    /// The touched paths a fingerprint of `sources` must add: the committed
    /// and staged ones, and the dirty ones outside `sources`.
    pub fn for_sources(&self, repo: &Repo, sources: &[String]) -> Result<Vec<RepoPath>, GitError> {
        if !self.dirty {
            return Ok(self.committed_outside_gate());
        }
        self.for_sources_in(repo, &repo.read_index()?, sources)
    }

    /// [`for_sources`](Self::for_sources) against an index already read.
    pub fn for_sources_in(
        &self,
        repo: &Repo,
        index: &IndexSnapshot,
        sources: &[String],
    ) -> Result<Vec<RepoPath>, GitError> {
        let mut paths = self.committed.clone();
        if self.dirty {
            let exclude: Vec<RepoPath> = sources
                .iter()
                .map(|s| RepoPath::from(s.trim_end_matches('/')))
                .filter(|p| !p.as_bytes().is_empty())
                .collect();
            for entry in repo.worktree_status_excluding(index, false, &exclude)? {
                paths.insert(entry.path);
            }
        }
        Ok(paths.into_iter().filter(|p| !is_gate_path(p)).collect())
    }

    fn committed_outside_gate(&self) -> Vec<RepoPath> {
        self.committed
            .iter()
            .filter(|p| !is_gate_path(p))
            .cloned()
            .collect()
    }
}

/// Every path the task touched since `baseline` (committed, staged or
/// dirty), whatever the sources: [`Touched::of_task`] for no source.
pub fn touched_paths(repo: &Repo, baseline: Oid) -> Result<Vec<RepoPath>, GitError> {
    Touched::of_task(repo, baseline)?.for_sources(repo, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(byte: u8) -> Content {
        Content::File {
            executable: false,
            sha256: [byte; 32],
        }
    }

    #[test]
    fn reason_names_are_stable() {
        let names: Vec<_> = [
            Unavailable::Symlink,
            Unavailable::NestedRepository,
            Unavailable::SpecialFile,
            Unavailable::EscapesRepository,
            Unavailable::ChangedWhileRead,
            Unavailable::Unreadable("x".into()),
            Unavailable::TooManyEntries { limit: 1 },
            Unavailable::TooManyBytes { limit: 1 },
        ]
        .iter()
        .map(Unavailable::as_str)
        .collect();
        assert_eq!(
            names,
            [
                "symlink",
                "nested_repository",
                "special_file",
                "escapes_repository",
                "changed_while_read",
                "unreadable",
                "too_many_entries",
                "too_many_bytes"
            ]
        );
    }

    #[test]
    fn the_encoding_is_pinned() {
        // Receipts store this digest: changing the encoding stales them all.
        assert_eq!(
            digest_of([]),
            crate::digest::sha256_hex(b"gate-source-fingerprint-v1\0")
        );
        let mut stream = b"gate-source-fingerprint-v1\0".to_vec();
        stream.extend_from_slice(&[0, 0, 0, 1, b'a', b'x']);
        stream.extend_from_slice(&[7; 32]);
        stream.extend_from_slice(&[0, 0, 0, 3, b'b', b'/', b'c', b'm']);
        let exec = Content::File {
            executable: true,
            sha256: [7; 32],
        };
        assert_eq!(
            digest_of([(&b"a"[..], exec), (&b"b/c"[..], Content::Missing)]),
            crate::digest::sha256_hex(&stream)
        );
    }

    #[test]
    fn kinds_and_boundaries_are_told_apart() {
        let one = |path: &'static [u8], c| digest_of([(path, c)]);
        let exec = Content::File {
            executable: true,
            sha256: [1; 32],
        };
        assert_ne!(one(b"a", file(1)), one(b"a", exec));
        assert_ne!(one(b"a", file(1)), one(b"a", Content::Missing));
        assert_ne!(one(b"a", file(1)), one(b"a", file(2)));
        assert_ne!(one(b"a", file(1)), one(b"b", file(1)));
        // Moving a byte between a path and the next entry changes the digest.
        assert_ne!(
            digest_of([
                (&b"ab"[..], Content::Missing),
                (&b"c"[..], Content::Missing)
            ]),
            digest_of([
                (&b"a"[..], Content::Missing),
                (&b"bc"[..], Content::Missing)
            ])
        );
    }

    #[test]
    fn gate_paths() {
        assert!(is_gate_path(&RepoPath::from(".gate")));
        assert!(is_gate_path(&RepoPath::from(".gate/tasks/T-1.md")));
        assert!(!is_gate_path(&RepoPath::from(".gatekeeper")));
        assert!(!is_gate_path(&RepoPath::from("src/.gate")));
    }
}
