//! The source fingerprint of a check (docs/receipts.md): one SHA-256 over the real
//! bytes of every file a check's receipt vouches for, or the reason there
//! can be none.
//!
//! Owns which paths are covered (`cover`), reading and hashing them on all
//! cores (`scan`), the stat cache that keeps a warm run from reading again
//! (`cache`), the untracked cache (`walk`), the opt-in file-system monitor
//! that keeps it from stat-ing again (`monitor`, `gate.fsmonitor`), the
//! tree fingerprint of a commit (`tree`) and the blob cache that keeps it
//! from hashing a blob twice (`blobs`), and the paths a task touched
//! ([`touched_paths`]). It never
//! decides whether a receipt is fresh (the receipts check compares two
//! digests) and never prints, except a progress counter through the
//! progress sink it is given (`crate::progress`).
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
use std::sync::{Mutex, PoisonError};
use std::thread::JoinHandle;

use sha2::{Digest, Sha256};

use crate::git::{GitError, IndexSnapshot, Oid, Renames, Repo};
use crate::path::RepoPath;

mod blobs;
mod cache;
mod cover;
mod monitor;
mod scan;
mod tree;
mod walk;

pub use tree::of_commit as of_tree;
pub use tree::{TreeStats, Trees};

pub use monitor::timeouts as monitor_timeouts;

/// Whether this machine's configuration turns the file-system monitor on
/// (`gate.fsmonitor`: `watchman`, or off); another value is an error naming
/// the key (docs/receipts.md).
pub fn monitor_enabled(repo: &Repo) -> Result<bool, GitError> {
    monitor::enabled(repo)
}

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
    /// A covered tracked path git is told not to look at in the work tree
    /// (`skip-worktree`, a sparse checkout): the work tree need not hold
    /// what the commit holds.
    SkipWorktree,
    /// A covered tracked path marked `assume-unchanged`: an edit there is
    /// hidden from git, so from what is committed and pushed.
    AssumeUnchanged,
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
            Unavailable::SkipWorktree => "skip_worktree",
            Unavailable::AssumeUnchanged => "assume_unchanged",
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
            Unavailable::SkipWorktree => {
                f.write_str("marked skip-worktree (a sparse checkout): the work tree need not hold what the commit holds")
            }
            Unavailable::AssumeUnchanged => {
                f.write_str("marked assume-unchanged: git does not look at its edits")
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
    /// Of those, files taken without a stat on a file-system monitor's
    /// word that they did not change (`gate.fsmonitor`).
    pub from_monitor: u64,
    /// Whether the stat cache was rewritten.
    pub cache_written: bool,
    /// Whether the untracked files came from the untracked cache (no walk).
    pub untracked_from_cache: bool,
    /// Whether the whole answer came from a monitored record, nothing
    /// changed that it depends on (nothing listed or read; only touched
    /// paths outside the sources stat-ed).
    pub recorded: bool,
    /// A digest of every covered file's stat identity (device, inode, size,
    /// mtime, ctime) as this run saw it, and of every missing path: two
    /// runs with the same content digest but another identity saw a file
    /// replaced or rewritten in between, even with the same bytes again.
    /// `None` when the answer came whole from a monitored record (the
    /// monitor saw nothing change since it was made).
    pub identity: Option<[u8; 32]>,
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

/// [`fingerprint`], also saying how much was read and how much came from
/// the cache; its meter goes to stderr when that is a terminal.
pub fn fingerprint_with_stats(
    repo: &Repo,
    inputs: &Inputs,
    cache_dir: &Path,
) -> Result<(Fingerprint, Stats), GitError> {
    let progress = crate::progress::Sink::stderr();
    fingerprint_in(repo, &repo.read_index()?, inputs, cache_dir, None, progress)
}

/// What a fingerprint starts from, made ready on other cores while the
/// caller reads the index and lists what is covered: the stat cache loaded
/// and its paths stat-ed or, under a file-system monitor, each set of
/// sources' own record loaded and the monitor asked about it. Start one
/// before the first [`fingerprint_in`] of an evaluation of the tree, and
/// pass it to each. Never across a change the caller makes to the files
/// (what it holds is from when it started).
pub struct Prefetch(Ahead);

enum Ahead {
    Shared(scan::Prefetch),
    /// One thread per set of sources.
    Monitored(Mutex<Vec<(Vec<String>, JoinHandle<scan::Record<'static>>)>>),
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        // Records nobody asked for: let their threads end (one may be
        // writing down where the daemon's socket is) before the process does.
        if let Ahead::Monitored(ahead) = &mut self.0 {
            let ahead = ahead.get_mut().unwrap_or_else(PoisonError::into_inner);
            for (_, handle) in ahead.drain(..) {
                let _ = handle.join();
            }
        }
    }
}

impl Prefetch {
    /// Start for `repo`'s work tree, the caches under `cache_dir` and the
    /// checks' sets of `sources`; `None` in a bare repository or when the
    /// configuration cannot be read (the fingerprint will say why).
    pub fn start(repo: &Repo, cache_dir: &Path, sources: &[&[String]]) -> Option<Prefetch> {
        let workdir = repo.workdir()?;
        if !monitor::enabled(repo).ok()? {
            return Some(Prefetch(Ahead::Shared(scan::Prefetch::start(
                workdir, cache_dir,
            ))));
        }
        let mut ahead: Vec<(Vec<String>, JoinHandle<_>)> = Vec::new();
        for &set in sources {
            if ahead.iter().any(|(done, _)| done == set) {
                continue;
            }
            let (workdir, cache_dir, owned) =
                (workdir.to_path_buf(), cache_dir.to_path_buf(), set.to_vec());
            let spawned = std::thread::Builder::new()
                .spawn(move || monitored_record(&workdir, &cache_dir, &owned));
            if let Ok(handle) = spawned {
                ahead.push((set.to_vec(), handle));
            }
        }
        Some(Prefetch(Ahead::Monitored(Mutex::new(ahead))))
    }

    fn shared(&self) -> Option<&scan::Prefetch> {
        match &self.0 {
            Ahead::Shared(prefetch) => Some(prefetch),
            Ahead::Monitored(_) => None,
        }
    }

    /// The monitored record of `sources`, if it was started (once).
    fn monitored(&self, sources: &[String]) -> Option<scan::Record<'static>> {
        let Ahead::Monitored(ahead) = &self.0 else {
            return None;
        };
        let mut ahead = ahead.lock().unwrap_or_else(PoisonError::into_inner);
        let at = ahead.iter().position(|(set, _)| set == sources)?;
        ahead.swap_remove(at).1.join().ok()
    }
}

/// [`fingerprint_with_stats`] against an index already read (by
/// [`Repo::read_index`]), so that one reading serves the fingerprint and
/// the touched paths ([`Touched::for_sources_in`]) of the same moment, with
/// the stats a [`Prefetch`] took when there is one, and the run's progress
/// sink for its meter.
pub fn fingerprint_in(
    repo: &Repo,
    index: &IndexSnapshot,
    inputs: &Inputs,
    cache_dir: &Path,
    prefetch: Option<&Prefetch>,
    progress: crate::progress::Sink,
) -> Result<(Fingerprint, Stats), GitError> {
    let workdir = repo.workdir().ok_or_else(|| GitError::NoWorkTree {
        path: repo.git_dir(),
    })?;
    let mut stats = Stats::default();
    let monitored = monitor::enabled(repo)?;
    let mut looked = cover::look(workdir, inputs);
    // Under a monitor the record comes first: its answer may still hold.
    let mut ready = monitored.then(|| {
        prefetch
            .and_then(|p| p.monitored(inputs.sources))
            .unwrap_or_else(|| monitored_record(workdir, cache_dir, inputs.sources))
    });
    let key = listing_key(index, &looked);
    if looked.doubtful()
        && let Some(scan::Record::Monitored {
            since: Some(since), ..
        }) = &mut ready
    {
        // Something above or at a source could not be looked at: take no
        // word about what is below it.
        since.changed = None;
    }
    // The walk the recorded answer took, if it took one: the listing's too.
    let mut walked = None;
    if let (Some(record), Some(key)) = (&ready, key) {
        match recorded_answer(repo, index, cache_dir, inputs, &mut looked, record, key)? {
            Recorded::Holds { fp, files, walk } => {
                stats.recorded = true;
                stats.untracked_from_cache = walk.from_cache;
                (stats.from_cache, stats.from_monitor) = (files, files);
                return Ok((fp, stats));
            }
            Recorded::Not(walk) => walked = walk,
        }
    }
    let ready = Mutex::new(ready);
    let mut listing = cover::list(repo, index, looked)?;
    let tracked = std::mem::take(&mut listing.paths);
    // Stat what the index and the named paths give on other threads while
    // this one walks the source directories for untracked files (the walk
    // needs the repository, which stays on this thread). Not when there are
    // already too many paths: that is the answer, unless listing finds a
    // problem first.
    let early = tracked.len() as u64 <= inputs.max_entries;
    let record = || match monitored {
        true => ready
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .unwrap_or_else(|| monitored_record(workdir, cache_dir, inputs.sources)),
        false => scan::Record::Shared(prefetch.and_then(Prefetch::shared)),
    };
    let (scan, untracked) = std::thread::scope(|s| {
        let stat = early
            .then(|| {
                std::thread::Builder::new()
                    .spawn_scoped(s, || {
                        scan::Scan::start(workdir, cache_dir, &tracked, record())
                    })
                    .ok()
            })
            .flatten();
        let untracked = listing.untracked(repo, &tracked, cache_dir, walked);
        let scan = stat.map(|handle| {
            handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        (scan, untracked)
    });
    let (untracked, from_cache) = untracked?;
    stats.untracked_from_cache = from_cache;
    let listed = key.filter(|_| monitored).map(|key| cache::Listed {
        key,
        walked_index: listing.walked_index,
        untracked: listing.untracked_digest,
    });
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
        None => scan::Scan::start(workdir, cache_dir, &tracked, record()),
    };
    let mut scan = match scan {
        Ok(scan) => scan,
        Err(reason) => return Ok((unavailable(reason, None), stats)),
    };
    scan.add(&untracked);
    let fp = match scan.finish(
        inputs.max_bytes,
        cache_dir,
        &mut stats,
        listed,
        index,
        progress,
    ) {
        scan::Outcome::Available { digest, bytes } => Fingerprint::Available {
            digest,
            entries,
            bytes,
        },
        scan::Outcome::Unavailable(reason, path) => unavailable(reason, path),
    };
    Ok((fp, stats))
}

/// What [`recorded_answer`] found.
enum Recorded {
    /// The answer holds: the fingerprint, the files among its paths (those
    /// not missing), and the walk that showed the untracked files are the same.
    Holds {
        fp: Fingerprint,
        files: u64,
        walk: walk::Walk,
    },
    /// It does not, with the walk taken on the way, if any.
    Not(Option<walk::Walk>),
}

/// What a listing depends on besides the files below the sources: the
/// index (by its checksum), the directory sources and the paths that stand
/// for themselves. `None` without an index checksum.
fn listing_key(index: &IndexSnapshot, looked: &cover::Looked) -> Option<[u8; 32]> {
    let checksum = index.checksum()?;
    let mut hasher = Sha256::new();
    let mut part = |bytes: &[u8]| hash_part(&mut hasher, bytes);
    part(b"gate-listing-key-v1");
    part(&checksum);
    for dir in &looked.walked {
        part(dir.as_bytes());
    }
    part(b"\0named");
    for path in &looked.named {
        part(path.as_bytes());
    }
    Some(hasher.finalize().into())
}

/// `bytes` into `hasher`, length first: parts so fed never run together.
fn hash_part(hasher: &mut Sha256, bytes: &[u8]) {
    hasher.update((bytes.len() as u64).to_le_bytes());
    hasher.update(bytes);
}

/// A monitored record's answer, when nothing it depends on moved:
///
/// - watchman names nothing below the sources since the record's token,
///   and every entry had settled when it was written (so no file below
///   the sources changed: content, mode, presence, directories);
/// - the listing key is the same (the same index, the same sources and
///   touched paths, each source still what it was, nothing odd above one);
/// - each touched path outside the sources (which watchman was not asked
///   about) has the stat recorded for it, or is still missing, with no
///   symlink or repository above it;
/// - the untracked files are the same (from the untracked cache, or a walk
///   when it no longer holds: so no ignore rule outside the sources changed
///   what is covered);
/// - the answer is within the limits.
///
/// [`Recorded::Not`] otherwise: the fingerprint is then taken as without
/// it, with the walk taken here, if any.
fn recorded_answer(
    repo: &Repo,
    index: &IndexSnapshot,
    cache_dir: &Path,
    inputs: &Inputs,
    looked: &mut cover::Looked,
    record: &scan::Record,
    key: [u8; 32],
) -> Result<Recorded, GitError> {
    let scan::Record::Monitored {
        own: Some(own),
        since: Some(since),
        ..
    } = record
    else {
        return Ok(Recorded::Not(None));
    };
    let (Some(changed), Some(answer)) = (&since.changed, own.answer()) else {
        return Ok(Recorded::Not(None));
    };
    if !changed.is_empty()
        || !own.all_vouchable()
        || answer.listed.key != key
        || !looked.problems.is_empty()
        || answer.entries > inputs.max_entries
        || answer.bytes > inputs.max_bytes
    {
        return Ok(Recorded::Not(None));
    }
    let Some(workdir) = repo.workdir() else {
        return Ok(Recorded::Not(None));
    };
    let outside: Vec<RepoPath> = looked
        .named
        .iter()
        .filter(|p| !looked.in_sources(p))
        .cloned()
        .collect();
    for path in &outside {
        if looked.problem_above(path.as_bytes()).is_some() {
            return Ok(Recorded::Not(None));
        }
        let now = workdir.join(path.as_path()).symlink_metadata();
        let as_recorded = match (own.find(path.as_bytes()), now) {
            (Some(i), Ok(meta)) => own.trusted(i, &cache::Stat::of(&meta)).is_some(),
            (None, Err(e)) => e.kind() == std::io::ErrorKind::NotFound,
            _ => false,
        };
        if !as_recorded {
            return Ok(Recorded::Not(None));
        }
    }
    if looked.doubtful() {
        return Ok(Recorded::Not(None));
    }
    let walk = walk::untracked(
        repo,
        index,
        workdir,
        &looked.walked,
        &answer.listed.walked_index,
        cache_dir,
    )?;
    if walk.digest() != answer.listed.untracked {
        return Ok(Recorded::Not(Some(walk)));
    }
    let fp = Fingerprint::Available {
        digest: crate::digest::hex(&answer.digest),
        entries: answer.entries,
        bytes: answer.bytes,
    };
    // An answer is kept only with exactly the entries it was computed
    // from: the files among its paths.
    Ok(Recorded::Holds {
        fp,
        files: own.len() as u64,
        walk,
    })
}

/// The record of `sources` under a file-system monitor, and what the
/// monitor says changed below them since it was written.
fn monitored_record<'p>(workdir: &Path, cache_dir: &Path, sources: &[String]) -> scan::Record<'p> {
    let root = workdir.as_os_str().as_encoded_bytes();
    let mut key = root.to_vec();
    for source in sources {
        key.push(0);
        key.extend_from_slice(source.as_bytes());
    }
    let file = cache::named(cache_dir, "monitored", &key);
    // Ask the monitor with the token the record's header holds while the
    // record is checked and parsed; the answer counts only if the checked
    // record holds that token.
    let read = cache::read(&file);
    let token = read
        .as_ref()
        .and_then(|(bytes, _)| cache::peek_token(bytes, root))
        .map(<[u8]>::to_vec);
    let (own, since) = std::thread::scope(|s| {
        let asked = std::thread::Builder::new().spawn_scoped(s, || {
            monitor::since(cache_dir, workdir, token.as_deref(), sources)
        });
        let own = read
            .and_then(|(bytes, written)| cache::parse(bytes, root, written))
            .map(Box::new);
        let since = match asked {
            Ok(handle) => handle.join().ok().flatten(),
            Err(_) => monitor::since(cache_dir, workdir, token.as_deref(), sources),
        };
        (own, since)
    });
    let since = since.map(|mut since| {
        if own.as_ref().and_then(|own| own.token()) != token.as_deref() {
            since.changed = None;
        }
        since
    });
    scan::Record::Monitored { file, own, since }
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

#[cfg(test)]
/// The encoding of the module doc, hashed, in hex. `entries` must be
/// sorted by path bytes and free of duplicates.
pub(crate) fn digest_of<'a>(entries: impl IntoIterator<Item = (&'a [u8], Content)>) -> String {
    crate::digest::hex(&digest_raw(entries))
}

/// The encoding of the module doc, hashed. `entries` must be sorted by path
/// bytes and free of duplicates.
pub(crate) fn digest_raw<'a>(entries: impl IntoIterator<Item = (&'a [u8], Content)>) -> [u8; 32] {
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
    hasher.finalize().into()
}

pub use crate::plan::is_gate_path;

/// The path a plan source names, as the work-tree and the tree fingerprint
/// both read it ([`crate::plan::source_path`]), a source that escapes the
/// repository unavailable.
pub(crate) fn source_path(source: &str) -> Result<Option<RepoPath>, (RepoPath, Unavailable)> {
    crate::plan::source_path(source).map_err(|path| (path, Unavailable::EscapesRepository))
}

/// The paths of `sources` a fingerprint covers, in order ([`source_path`]):
/// a source under `.gate/` left out, one that escapes the repository
/// pushed to `problems` instead.
pub(crate) fn source_paths(
    sources: &[String],
    problems: &mut Vec<(RepoPath, Unavailable)>,
) -> Vec<RepoPath> {
    let mut paths = Vec::with_capacity(sources.len());
    for source in sources {
        match source_path(source) {
            Ok(Some(path)) => paths.push(path),
            Ok(None) => {}
            Err(problem) => problems.push(problem),
        }
    }
    paths
}

/// What a task touched (docs/receipts.md): every path changed in
/// `baseline..HEAD` (every commit, every parent, both sides of renames) or
/// staged, and — asked per acceptance check — the work tree's dirty paths
/// (unstaged, untracked non-ignored). `.gate/` paths never count.
///
/// Dirty paths inside an acceptance check's sources are covered by the
/// sources anyway (tracked and untracked non-ignored files of a source
/// directory, an explicit source file whatever its state), so
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

    /// A task's: its work committed since `baseline` ([`Work`]), staged,
    /// and dirty.
    pub fn of_task(
        repo: &Repo,
        baseline: Oid,
        work: Option<Work<'_>>,
    ) -> Result<Touched, GitError> {
        Touched::of_task_in(repo, &repo.read_index()?, baseline, work)
    }

    /// A task's as of commit `tip`: every path its work changed in
    /// `baseline..tip` ([`Work`]), nothing staged or dirty (what the tree
    /// fingerprint of `tip` covers besides the sources).
    pub fn of_commits(
        repo: &Repo,
        baseline: Oid,
        tip: Oid,
        work: Option<Work<'_>>,
    ) -> Result<Touched, GitError> {
        Ok(Touched {
            committed: work_paths(repo, tip, &[baseline], work, work.is_some())?,
            dirty: false,
        })
    }

    /// Every path changed by the commits reachable from `tip` and from none
    /// of `hidden` (a range: every commit, every parent).
    pub fn of_range(repo: &Repo, tip: Oid, hidden: &[Oid]) -> Result<Touched, GitError> {
        Ok(Touched {
            committed: work_paths(repo, tip, hidden, None, true)?,
            dirty: false,
        })
    }

    /// [`of_task`](Self::of_task) with the staged paths of an index already read.
    pub fn of_task_in(
        repo: &Repo,
        index: &IndexSnapshot,
        baseline: Oid,
        work: Option<Work<'_>>,
    ) -> Result<Touched, GitError> {
        let mut committed = match repo.head()?.id() {
            Some(head) => work_paths(repo, head, &[baseline], work, work.is_some())?,
            None => BTreeSet::new(),
        };
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

    /// The paths changed by the commits (and, for a task's, staged):
    /// not the dirty ones, which are asked per check.
    pub fn committed(&self) -> impl Iterator<Item = &RepoPath> + Clone {
        self.committed.iter().filter(|p| !is_gate_path(p))
    }

    fn committed_outside_gate(&self) -> Vec<RepoPath> {
        self.committed
            .iter()
            .filter(|p| !is_gate_path(p))
            .cloned()
            .collect()
    }
}

/// Whose commits of a range are a task's work (docs/receipts.md, "The
/// paths a task touched"): every commit but one whose trailer names other
/// tasks only — a teammate's commit a rebase or a merge of the main line
/// brought in — and of a merge only the paths it changed itself (where it
/// is not what a clean merge of its parents gives, decision 0023). Decided
/// from the commits alone, so every clone and CI agree.
#[derive(Clone, Copy, Debug)]
pub struct Work<'a> {
    /// The task's id.
    pub task: &'a str,
    /// The trailer that names a commit's task (`Task`, or the policy's).
    pub key: &'a str,
}

/// The paths changed by the commits reachable from `tip` and from none of
/// `hidden`: with `work`, the task's work only ([`Work`]); with
/// `own_merges`, of a merge only what it changed itself (decision 0023),
/// else against every parent.
fn work_paths(
    repo: &Repo,
    tip: Oid,
    hidden: &[Oid],
    work: Option<Work<'_>>,
    own_merges: bool,
) -> Result<BTreeSet<RepoPath>, GitError> {
    let mut committed = BTreeSet::new();
    for commit in repo.walk(&[tip], hidden)? {
        if work.is_some() || own_merges {
            let info = repo.commit(commit)?;
            if let Some(work) = work {
                let named = crate::git::trailers::trailer_values(&info.message, work.key);
                if !named.is_empty() && !named.iter().any(|n| n == work.task) {
                    continue;
                }
            }
            if own_merges && info.parents.len() > 1 {
                for change in repo.merge_changes(commit)? {
                    committed.extend(change.paths().cloned());
                }
                continue;
            }
        }
        for diff in repo.changes(commit, Renames::Off)? {
            for change in &diff.changes {
                committed.extend(change.paths().cloned());
            }
        }
    }
    Ok(committed)
}

/// Every path the task touched since `baseline` (committed, staged or
/// dirty), whatever the sources: [`Touched::of_task`] for no source.
pub fn touched_paths(repo: &Repo, baseline: Oid) -> Result<Vec<RepoPath>, GitError> {
    Touched::of_task(repo, baseline, None)?.for_sources(repo, &[])
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
