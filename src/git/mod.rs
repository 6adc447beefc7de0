//! The git layer: the only module that imports `gix`.
//!
//! It opens a repository the way git itself would find it (any subdirectory,
//! linked worktrees, `GIT_DIR`/`GIT_WORK_TREE`/`GIT_INDEX_FILE` as git sets
//! them for hooks) and answers questions in domain types: object ids
//! ([`Oid`]), paths as raw bytes ([`RepoPath`]), the changes of a commit
//! against each parent, staged changes, worktree status, ancestry.
//!
//! It never filters paths, never decides policy and never prints. Anything
//! it cannot read is an error that names the object or path, so callers can
//! report it as *unknown* rather than guess.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use crate::path::RepoPath;

mod bases;
mod commits_cache;
mod corrected;
mod diff;
mod files;
mod landing;
mod merged;
mod notes;
mod packs;
mod places;
mod staged;
mod status;
pub mod trailers;
mod transport;
mod tree;
mod walk;

pub use notes::{MAX_NOTE_BYTES, Notes, NotesUpdate};
pub use transport::{PushResult, REDIRECTING_VARS};
pub use tree::TreePath;

pub use files::{
    IndexEntry, IndexSnapshot, ToGit, Unlooked, UntrackedEntry, UntrackedKind, UntrackedWalk,
};

/// A git object id (SHA-1 today; the type does not assume a length).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Oid(gix::ObjectId);

impl Oid {
    /// Parse a full hexadecimal object id (40 hex digits for SHA-1, 64 for SHA-256).
    ///
    /// Anything else (abbreviations, other lengths, non-hex characters, a
    /// 64-digit id when this build has no SHA-256 support) is `None`.
    pub fn from_hex(hex: &str) -> Option<Oid> {
        gix::ObjectId::from_hex(hex.as_bytes()).ok().map(Oid)
    }

    pub fn to_hex(&self) -> String {
        self.0.to_hex().to_string()
    }

    /// The first 12 hex digits, for people.
    pub fn short(&self) -> String {
        let mut s = self.to_hex();
        s.truncate(12);
        s
    }

    /// Whether every digit is zero (git's "no object" in hook input).
    pub fn is_null(&self) -> bool {
        self.0.is_null()
    }

    /// The raw bytes of the id: 20 for SHA-1, 32 for SHA-256.
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_slice()
    }
}

impl AsRef<gix::oid> for Oid {
    fn as_ref(&self) -> &gix::oid {
        &self.0
    }
}

impl fmt::Display for Oid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Oid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Oid({})", self.short())
    }
}

/// What HEAD points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Head {
    /// A branch with no commit yet (a fresh `git init`, an orphan branch).
    Unborn { branch: String },
    /// A detached HEAD.
    Detached { id: Oid },
    /// On a branch; `branch` is the full ref name (`refs/heads/main`).
    Branch { branch: String, id: Oid },
}

impl Head {
    pub fn id(&self) -> Option<Oid> {
        match self {
            Head::Unborn { .. } => None,
            Head::Detached { id } | Head::Branch { id, .. } => Some(*id),
        }
    }
}

/// One commit's header facts.
#[derive(Clone, Debug)]
pub struct CommitInfo {
    pub id: Oid,
    pub parents: Vec<Oid>,
    /// The raw message bytes, trailers included.
    pub message: Vec<u8>,
}

/// What kind of thing a tree entry is. Mode 644 vs 755 are both files
/// (`File` / `Executable`); switching between them is a modification, as in git.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntryKind {
    File,
    Executable,
    Symlink,
    /// A submodule commit.
    Gitlink,
}

impl EntryKind {
    /// Whether going from `self` to `other` is a type change in git's sense
    /// (file ↔ symlink ↔ gitlink; not 644 ↔ 755).
    pub fn is_type_change_to(self, other: EntryKind) -> bool {
        let class = |k: EntryKind| match k {
            EntryKind::File | EntryKind::Executable => 0,
            EntryKind::Symlink => 1,
            EntryKind::Gitlink => 2,
        };
        class(self) != class(other)
    }
}

/// How a path changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ChangeKind {
    Added,
    Deleted,
    Modified,
    TypeChanged,
    /// `path` is the destination; [`Change::from`] the source.
    Renamed,
}

impl ChangeKind {
    /// The stable snake_case name used in findings and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Deleted => "deleted",
            ChangeKind::Modified => "modified",
            ChangeKind::TypeChanged => "type_changed",
            ChangeKind::Renamed => "renamed",
        }
    }
}

/// One changed file-level path (directories are never reported).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub kind: ChangeKind,
    /// The path after the change (for a deletion, the deleted path).
    pub path: RepoPath,
    /// For a rename, the source path.
    pub from: Option<RepoPath>,
    /// The entry before, `None` for an addition.
    pub old: Option<EntryKind>,
    /// The entry after, `None` for a deletion.
    pub new: Option<EntryKind>,
}

impl Change {
    pub(crate) fn added(path: RepoPath, new: EntryKind) -> Change {
        Change {
            kind: ChangeKind::Added,
            path,
            from: None,
            old: None,
            new: Some(new),
        }
    }

    pub(crate) fn deleted(path: RepoPath, old: EntryKind) -> Change {
        Change {
            kind: ChangeKind::Deleted,
            path,
            from: None,
            old: Some(old),
            new: None,
        }
    }

    /// A path present on both sides: modified, or type-changed.
    pub(crate) fn modified(path: RepoPath, old: EntryKind, new: EntryKind) -> Change {
        Change {
            kind: modification_kind(old, new),
            path,
            from: None,
            old: Some(old),
            new: Some(new),
        }
    }

    /// Every path this change touches: both sides of a rename.
    pub fn paths(&self) -> impl Iterator<Item = &RepoPath> {
        self.from.iter().chain(std::iter::once(&self.path))
    }
}

/// A commit's header and its changes: against its parent (a root commit:
/// against the empty tree), or for a merge what
/// [`Repo::for_each_commit_changes`] was asked for.
#[derive(Clone, Debug)]
pub struct CommitChanges {
    pub info: CommitInfo,
    pub changes: Vec<Change>,
}

/// What [`Repo::for_each_commit_changes`] computes for a merge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergeChanges {
    /// Nothing: the merge is judged without its changes.
    Skip,
    /// The paths that differ from every parent ([`Repo::combined_changes`]).
    Combined,
    /// The paths where the merge is not what a clean merge of its parents
    /// gives ([`Repo::merge_changes`]): what provenance judges a merge by.
    Own,
}

/// The changes of a commit against one parent (`parent: None` for a root
/// commit, diffed against the empty tree).
#[derive(Clone, Debug)]
pub struct ParentDiff {
    pub parent: Option<Oid>,
    pub changes: Vec<Change>,
}

/// How to describe renames. The set of touched paths is the same either way
/// (a rename is a deletion plus an addition); only the pairing differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Renames {
    /// Report deletions and additions.
    Off,
    /// Pair a deletion and an addition whose contents are identical.
    Exact,
}

/// A path whose worktree state differs from the index, or is not tracked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusEntry {
    pub path: RepoPath,
    pub state: WorktreeState,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorktreeState {
    /// Tracked, content or mode differs from the index.
    Modified,
    /// Tracked, missing from the worktree.
    Deleted,
    /// Tracked, file ↔ symlink ↔ directory changed.
    TypeChanged,
    /// An unmerged (conflicted) index entry.
    Conflicted,
    /// Not tracked and not ignored. A wholly untracked directory is reported
    /// file by file, never collapsed.
    Untracked,
    /// Not tracked and ignored (only when asked for).
    Ignored,
}

/// Everything that can go wrong talking to git, naming what was asked for.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("not inside a git repository (searched from {})", path.display())]
    NotARepository { path: PathBuf },
    #[error("the repository at {} has no work tree", path.display())]
    NoWorkTree { path: PathBuf },
    /// The place to start from is not a directory (or is not there).
    #[error("{} {problem}", path.display())]
    NotADirectory { path: PathBuf, problem: String },
    /// A repository whose object ids gate cannot read (SHA-256).
    #[error("the repository at {} uses {format} object ids, which gate does not read", path.display())]
    UnsupportedObjectFormat { path: PathBuf, format: String },
    #[error("unknown revision `{spec}`")]
    UnknownRevision { spec: String },
    #[error("`{spec}` names a {kind}, not a commit")]
    NotACommit { spec: String, kind: String },
    #[error("object {id} is missing from the repository")]
    MissingObject { id: String },
    /// An object absent where a diff needed it (a subtree), with what was
    /// being diffed.
    #[error("{context}: object {id} is missing from the repository")]
    MissingInDiff { id: String, context: String },
    /// A commit at the edge of a shallow clone: its parent is not here, so
    /// its changes cannot be computed (git would show it as a root commit).
    #[error(
        "commit {commit} is at the shallow-clone boundary: its parent {parent} is not in this clone"
    )]
    ShallowBoundary { commit: String, parent: String },
    /// A merge whose parents share no commit in a shallow clone: their
    /// merge base may lie beyond the boundary, so what a clean merge gives
    /// cannot be told.
    #[error(
        "merge {commit}'s parents share no commit in this shallow clone: their merge base may lie beyond its boundary"
    )]
    ShallowMergeBase { commit: String },
    /// A note larger than gate reads ([`MAX_NOTE_BYTES`]): not gate's,
    /// and never read (its size comes from the object's header).
    #[error(
        "the note on commit {commit} in {notes} is {size} bytes, over the {max}-byte (1 MiB) cap on a note: gate does not read it"
    )]
    NoteTooLarge {
        commit: String,
        notes: String,
        size: u64,
        max: u64,
    },
    #[error("{context}: {message}")]
    Other { context: String, message: String },
}

impl GitError {
    pub(crate) fn other(context: impl Into<String>, err: impl fmt::Display) -> GitError {
        GitError::Other {
            context: context.into(),
            message: err.to_string(),
        }
    }

    /// Wrap a gix error, keeping its whole chain of causes in the message.
    fn gix(context: impl Into<String>, err: &gix::Error) -> GitError {
        GitError::Other {
            context: context.into(),
            message: plain_chain(err),
        }
    }
}

/// An open repository.
///
/// `Send` but not `Sync`: it keeps per-repository caches (object cache,
/// tree-diff state) behind interior mutability so the per-commit diff loop
/// allocates as little as possible. Open one per thread to work in parallel.
pub struct Repo {
    repo: gix::Repository,
    /// Canonical per-worktree git directory.
    git_dir: PathBuf,
    /// Canonical common directory.
    common_dir: PathBuf,
    /// Canonical work tree root, `None` when bare.
    workdir: Option<PathBuf>,
    /// Reused across [`Repo::changes`] calls.
    diff: RefCell<diff::DiffCache>,
    /// The trees of the commits this handle decoded last (at most
    /// [`KNOWN_TREES`]): a commit's parent is usually the next commit of
    /// the run being diffed, so its tree is known without reading it again.
    trees: RefCell<HashMap<gix::ObjectId, gix::ObjectId>>,
    /// The packs this handle reads trees and blobs from (decision 0015).
    packs: RefCell<packs::Packs>,
    /// The directory of the commit cache (src/git/commits_cache.rs), once
    /// the caller names it; without one, a run keeps nothing.
    commit_cache: std::cell::OnceCell<PathBuf>,
    /// How many commits the last range's walk and searches read from the
    /// objects (for tests of the commit cache).
    commits_read: std::cell::Cell<usize>,
    /// The record of the commits read from the objects, shared by every
    /// walk and search of this handle once the commit cache is named.
    heads: std::cell::OnceCell<std::sync::Arc<bases::Heads>>,
    /// The commit cache's writes under way beside the rest of the run
    /// ([`keep_read_commits`](Self::keep_read_commits)): joined when the
    /// handle goes, so that a run never ends with a write half done (its
    /// temporary file left behind). Two may overlap: each takes the
    /// cache's lock and writes what the file holds with what it adds.
    saving: RefCell<Vec<std::thread::JoinHandle<()>>>,
    /// The commit-graph, opened once for the revisions this handle
    /// resolves (`None` inside: there is none, or it does not read).
    graph: std::cell::OnceCell<Option<gix::commitgraph::Graph>>,
}

impl Repo {
    /// Let this handle go as [`crate::exiting::let_go`] says: its commit
    /// cache's writes handed over first, as when it is dropped; what else
    /// it holds (the packs' mappings, the caches, the records of commits
    /// read) is plain data, left to the kernel in a process that exits
    /// after its answer.
    pub fn leave(self) {
        self.hand_over_writes();
        crate::exiting::let_go(self);
    }

    /// Hand the commit cache's writes under way to the process
    /// ([`defer_cache_writes`]), or wait for them.
    fn hand_over_writes(&self) {
        let handles = std::mem::take(&mut *self.saving.borrow_mut());
        let mut deferred = DEFERRED.lock().unwrap_or_else(|p| p.into_inner());
        match deferred.as_mut() {
            Some(kept) => {
                kept.retain(|handle| !handle.is_finished());
                kept.extend(handles);
            }
            None => {
                drop(deferred);
                for handle in handles {
                    let _ = handle.join();
                }
            }
        }
    }
}

impl Drop for Repo {
    /// The commit cache's writes under way are handed to the process
    /// ([`defer_cache_writes`]) or waited for.
    fn drop(&mut self) {
        self.hand_over_writes();
    }
}

/// In a debug build, wait as many milliseconds as the variable `name`
/// says (at most ten seconds): the tests' way to hold a step back.
/// Release builds have none.
fn test_delay(name: &str) {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok()) {
        std::thread::sleep(std::time::Duration::from_millis(ms.min(10_000)));
    }
    #[cfg(not(debug_assertions))]
    let _ = name;
}

/// `GATE_TEST_SLOW_CACHE_WRITE` before a commit cache write: the tests'
/// way to see the process wait for it (tests/integration/provenance.rs).
fn slow_cache_write() {
    test_delay("GATE_TEST_SLOW_CACHE_WRITE");
}

/// The commit cache's writes a dropped handle left under way, once the
/// process takes them ([`defer_cache_writes`]); `None` until then, when a
/// handle waits for its own.
static DEFERRED: std::sync::Mutex<Option<Vec<std::thread::JoinHandle<()>>>> =
    std::sync::Mutex::new(None);

/// Let a repository handle that goes leave its commit cache's writes
/// running, for [`finish_cache_writes`] to wait for: the binary's `main`
/// does, so that a check's report is made and printed while the cache is
/// written (its handle goes before the report is rendered). Every caller
/// must then call [`finish_cache_writes`] before the process exits, or a
/// write may be cut short (its temporary file left behind).
pub fn defer_cache_writes() {
    let mut deferred = DEFERRED.lock().unwrap_or_else(|p| p.into_inner());
    deferred.get_or_insert_with(Vec::new);
}

/// Wait for every commit cache write the process took
/// ([`defer_cache_writes`]).
pub fn finish_cache_writes() {
    let handles = DEFERRED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_mut()
        .map(std::mem::take)
        .unwrap_or_default();
    for handle in handles {
        let _ = handle.join();
    }
}

/// How many commit trees a handle remembers (flat memory over any range).
const KNOWN_TREES: usize = 1024;

/// How many commits below a range a line merge's walk for candidates the
/// range leaves unsettled may read before the merge is searched instead
/// (src/git/landing.rs): where no candidate reaches another, that walk
/// reads all their history, which the search may not.
const SETTLE_BUDGET: usize = 16_384;

/// How much memory the object cache may use: tree diffs over long histories
/// read the same trees again and again (see GIX-NOTES, pitfall 5). Measured
/// on a 10,000-commit history: 4 MiB is as fast as 64 MiB for consecutive
/// commits (which share their trees) and spares the page faults and copies
/// of a large cache.
const OBJECT_CACHE_BYTES: usize = 4 * 1024 * 1024;

/// The delta-base cache per thread: 8 MiB measured faster than 96 MiB (git's
/// default) on the same history, where the larger cache cost page faults.
const DELTA_BASE_CACHE_BYTES: usize = 8 * 1024 * 1024;

/// Give a repository handle gate's object caches. Called again on every
/// clone: cloning a `gix::Repository` resets its caches from configuration.
fn set_caches(repo: &mut gix::Repository) {
    repo.object_cache_size_if_unset(OBJECT_CACHE_BYTES);
    set_delta_base_cache(repo);
}

/// The room each diff thread makes in its allocator arena as it starts
/// (`platform::make_room_in_thread_arena`): a thread grew its arena by 3
/// MiB on moby's 1k range, 12-15 MiB on git/git's 1k and 10k ranges, and 4,
/// 8 and 16 MiB took the same time on both (decision 0041).
const DIFF_THREAD_ARENA: usize = 8 << 20;

/// The caches of a diff thread of [`Repo::walk_changes`]: the delta-base
/// cache alone. It already keeps every object a chain decodes, the last one
/// included (decision 0015), so an object cache beside it only copied each
/// tree in and out a second time: measured without one, taking turns with
/// the same binary, the walk's CPU time fell by 10-19 % (the three-level
/// history 735 -> 660 ms, the flat one 600 -> 485 ms, ripgrep 70 -> 60 ms;
/// docs/performance.md).
fn set_diff_thread_caches(repo: &mut gix::Repository) {
    repo.object_cache_size(None);
    set_delta_base_cache(repo);
}

fn set_delta_base_cache(repo: &mut gix::Repository) {
    // A delta-base cache keyed by pack offset, like git's own, for what gix
    // reads itself (commits, loose objects' neighbours): without it, the
    // trees of a long delta chain are inflated again and again. Trees and
    // blobs are read through [`packs::Packs`], whose cache keeps every link
    // of a chain.
    let bytes = delta_base_cache_bytes(repo);
    repo.objects
        .set_pack_cache(move || Box::new(packs::DeltaBaseCache::new(bytes)));
}

/// The delta-base cache of a handle: `core.deltaBaseCacheLimit` when set
/// (as git reads it), else [`DELTA_BASE_CACHE_BYTES`].
fn delta_base_cache_bytes(repo: &gix::Repository) -> usize {
    repo.config_snapshot()
        .integer("core.deltaBaseCacheLimit")
        .and_then(|limit| usize::try_from(limit).ok())
        .filter(|&limit| limit > 0)
        .unwrap_or(DELTA_BASE_CACHE_BYTES)
}

/// Most threads [`Repo::each_blob`] reads on.
const BLOB_THREADS: usize = 8;
/// Fewest blobs worth a thread of their own.
const BLOBS_PER_THREAD: usize = 32;

/// The bytes of blob `id` in `objects`.
fn read_blob_in(objects: &packs::Objects<'_>, id: Oid) -> Result<Vec<u8>, GitError> {
    let (kind, data) = read_object_in(objects, id.0)?;
    if kind != gix::objs::Kind::Blob {
        return Err(GitError::other(
            format!("reading blob {id}"),
            format_args!("it is a {kind}, not a blob"),
        ));
    }
    Ok(data)
}

/// Object `id` of `objects`, its kind and its bytes, or
/// [`GitError::MissingObject`].
fn read_object_in(
    objects: &packs::Objects<'_>,
    id: gix::ObjectId,
) -> Result<(gix::objs::Kind, Vec<u8>), GitError> {
    let mut data = Vec::new();
    match gix::objs::Find::try_find(objects, &id, &mut data) {
        Ok(Some(found)) => {
            let kind = found.kind;
            Ok((kind, data))
        }
        Ok(None) => Err(GitError::MissingObject { id: id.to_string() }),
        Err(err) => Err(GitError::gix(format!("reading object {id}"), &err)),
    }
}

/// Canonicalise a path git gave us, keeping it as is when that fails (a
/// directory that vanished is reported later, by whatever reads it).
fn canonical(path: &Path) -> PathBuf {
    crate::platform::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// `path` with `.` and `..` components resolved without touching the file
/// system, as git normalises `core.hooksPath`.
fn lexically_normal(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(component),
            },
            other => out.push(other),
        }
    }
    out
}

/// Whether a gix error means "there is no repository here".
/// A gix error and its causes as one line of text, `: `-separated: each
/// cause's own message, never Rust debug text (a cause that repeats the one
/// before it is said once).
fn plain_chain(err: &gix::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in err.iter_errors() {
        let text = cause.to_string();
        let text = text.trim();
        if text.is_empty() || parts.iter().any(|p| p.contains(text)) {
            continue;
        }
        parts.push(text.to_string());
    }
    if parts.is_empty() {
        return err.to_string();
    }
    parts.join(": ")
}

/// The object format named by `extensions.objectFormat` when that is what
/// made opening fail (a SHA-256 repository: gix is built for SHA-1 only).
fn unsupported_object_format(err: &gix::Error) -> Option<String> {
    if !err.is_unsupported() {
        return None;
    }
    let values = err.metadata_merged();
    // Values display quoted (`"sha256"`).
    let text = |name: &str| {
        values
            .get(name)
            .map(|v| v.to_string().trim_matches('"').to_string())
    };
    text("key")?
        .eq_ignore_ascii_case("extensions.objectFormat")
        .then(|| text("input"))
        .flatten()
}

fn is_not_found(err: &gix::Error) -> bool {
    use gix::discover::upwards::Error as Up;
    err.downcast_any_ref::<Up>().is_some_and(|up| {
        matches!(
            up,
            Up::NoGitRepository { .. }
                | Up::NoGitRepositoryWithinCeiling { .. }
                | Up::NoGitRepositoryWithinFs { .. }
        )
    })
}

impl Repo {
    /// Find the repository containing `start`, as git would: walking up from
    /// any subdirectory, honouring `GIT_DIR`, `GIT_WORK_TREE` and
    /// `GIT_INDEX_FILE`, and following linked worktrees.
    pub fn discover(start: &Path) -> Result<Repo, GitError> {
        let mut repo = gix::discover_with_environment_overrides(start).map_err(|err| {
            let path = start.to_path_buf();
            let problem = match std::fs::metadata(start) {
                Ok(m) if m.is_dir() => None,
                Ok(_) => Some("is not a directory".to_string()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    Some("does not exist".to_string())
                }
                Err(e) => Some(format!("cannot be read: {e}")),
            };
            if let Some(problem) = problem {
                GitError::NotADirectory { path, problem }
            } else if let Some(format) = unsupported_object_format(&err) {
                GitError::UnsupportedObjectFormat { path, format }
            } else if is_not_found(&err) {
                GitError::NotARepository { path }
            } else {
                GitError::gix(
                    format!("opening the repository at {}", start.display()),
                    &err,
                )
            }
        })?;
        set_caches(&mut repo);
        Ok(Repo::from_gix(repo))
    }

    fn from_gix(repo: gix::Repository) -> Repo {
        let packs = packs::Packs::new(&repo, delta_base_cache_bytes(&repo));
        Repo::with_packs(repo, packs)
    }

    /// A handle on `repo` reading its packs through `packs` (a sibling of
    /// another handle's, so that each pack is mapped once).
    fn with_packs(repo: gix::Repository, packs: packs::Packs) -> Repo {
        let git_dir = canonical(repo.git_dir());
        // One resolution when they are the same directory (the main work
        // tree): each costs a readlink per component, on every hook.
        let common_dir = if repo.common_dir() == repo.git_dir() {
            git_dir.clone()
        } else {
            canonical(repo.common_dir())
        };
        let workdir = repo.workdir().map(canonical);
        let packs = RefCell::new(packs);
        Repo {
            repo,
            git_dir,
            common_dir,
            workdir,
            diff: RefCell::new(diff::DiffCache::default()),
            trees: RefCell::new(HashMap::new()),
            packs,
            commit_cache: std::cell::OnceCell::new(),
            commits_read: std::cell::Cell::new(0),
            heads: std::cell::OnceCell::new(),
            saving: RefCell::new(Vec::new()),
            graph: std::cell::OnceCell::new(),
        }
    }

    /// How many commits the last range walked with its merges' own changes
    /// ([`walk_changes`](Self::walk_changes), once its diffs are taken)
    /// read from the object database rather than from the commit-graph,
    /// the commit cache or another reader of the range. For tests.
    #[doc(hidden)]
    pub fn commits_read_last(&self) -> usize {
        self.commits_read.get()
    }

    /// Keep the commits a range's walk and searches read from the objects
    /// in the commit cache under `dir` (gate's cache directory), and read
    /// them from there in later runs (src/git/commits_cache.rs, decision
    /// 0034). Only the first directory named counts.
    pub fn keep_commits_under(&self, dir: &Path) {
        let _ = self.commit_cache.set(dir.to_path_buf());
    }

    /// The record of the commits this handle's walks and searches read,
    /// kept in the commit cache when there is one: one record for them all.
    fn heads(&self) -> std::sync::Arc<bases::Heads> {
        self.heads
            .get_or_init(|| {
                let hash = self.repo.object_hash();
                let file = self
                    .commit_cache
                    .get()
                    .and_then(|dir| commits_cache::file_in(dir, hash.len_in_bytes()));
                std::sync::Arc::new(bases::Heads::kept_in(file, hash))
            })
            .clone()
    }

    /// [`heads`](Self::heads) once the commit cache is named, for a walk or
    /// a search that otherwise keeps nothing: without the cache, it reads
    /// what it needs as before.
    fn cached_heads(&self) -> Option<std::sync::Arc<bases::Heads>> {
        self.commit_cache.get().map(|_| self.heads())
    }

    /// Keep what this handle's walks and searches read in the commit cache,
    /// when it is worth a write (src/git/commits_cache.rs); a range's diffs
    /// do so once taken ([`WalkedChanges::each`]). A failed write costs only
    /// reading those commits again.
    ///
    /// The write goes on beside what the run does next (judging, the
    /// report): at a cold cache it is a megabyte or more, encoded and
    /// hashed (git/git's 1k range: some 8 ms with the syncs it no longer
    /// makes, on the main thread while nothing else ran). Where no thread
    /// can be started it is written here.
    pub fn keep_read_commits(&self) {
        if let Some(heads) = self.heads.get() {
            self.save_beside(heads.clone());
        }
    }

    /// Write `heads` to the commit cache on a thread of its own.
    fn save_beside(&self, heads: std::sync::Arc<bases::Heads>) {
        let kept = heads.clone();
        let spawned = std::thread::Builder::new()
            .name("gate-cache".to_owned())
            .spawn(move || {
                slow_cache_write();
                kept.save();
            });
        match spawned {
            Ok(handle) => self.saving.borrow_mut().push(handle),
            Err(_) => {
                heads.save();
            }
        }
    }

    /// The root of the work tree, `None` for a bare repository.
    pub fn workdir(&self) -> Option<&Path> {
        self.workdir.as_deref()
    }

    /// The length in bytes of this repository's object ids: 20 for SHA-1
    /// (`extensions.objectFormat` unset), 32 for SHA-256.
    pub fn object_id_len(&self) -> usize {
        self.repo.object_hash().len_in_bytes()
    }

    /// The per-worktree git directory (`.git`, or `.git/worktrees/<name>`), canonical.
    pub fn git_dir(&self) -> PathBuf {
        self.git_dir.clone()
    }

    /// The directory shared by all worktrees, canonical.
    pub fn common_dir(&self) -> PathBuf {
        self.common_dir.clone()
    }

    /// The hooks directory git really uses: `core.hooksPath` (relative values
    /// against the work tree root, `~/` expanded), else `<common-dir>/hooks`.
    ///
    /// Git runs hooks from the work tree root (the git directory when bare),
    /// so that is what a relative `core.hooksPath` is relative to. Hooks are
    /// shared by linked worktrees, hence the common directory by default.
    pub fn hooks_dir(&self) -> Result<PathBuf, GitError> {
        let configured = self
            .repo
            .config_snapshot()
            .trusted_path("core.hooksPath")
            .map_err(|err| GitError::gix("reading core.hooksPath", &err))?;
        Ok(match configured {
            Some(path) if path.is_absolute() => lexically_normal(&path),
            Some(path) => {
                let base = self.workdir.as_deref().unwrap_or(&self.git_dir);
                lexically_normal(&base.join(path))
            }
            None => self.common_dir.join("hooks"),
        })
    }

    /// A configuration value as a string (`user.name`), `None` when unset.
    pub fn config_string(&self, key: &str) -> Option<String> {
        self.repo
            .config_snapshot()
            .string(key)
            .map(|value| String::from_utf8_lossy(value.as_ref()).into_owned())
    }

    pub fn head(&self) -> Result<Head, GitError> {
        let head = self
            .repo
            .head()
            .map_err(|err| GitError::gix("reading HEAD", &err))?;
        match &head.kind {
            gix::head::Kind::Unborn(name) => Ok(Head::Unborn {
                branch: name.as_bstr().to_string(),
            }),
            gix::head::Kind::Detached { .. } => {
                let id = head
                    .id()
                    .ok_or_else(|| GitError::other("reading HEAD", "detached HEAD has no id"))?;
                Ok(Head::Detached {
                    id: Oid(id.detach()),
                })
            }
            gix::head::Kind::Symbolic(reference) => {
                let branch = reference.name.as_bstr().to_string();
                let id = head.id().ok_or_else(|| {
                    GitError::other(
                        format!("reading HEAD ({branch})"),
                        "the branch points to no object",
                    )
                })?;
                Ok(Head::Branch {
                    branch,
                    id: Oid(id.detach()),
                })
            }
        }
    }

    /// Resolve a revision (`HEAD`, a branch, a full or abbreviated id,
    /// `main~2`) to a commit id, peeling tags.
    ///
    /// Errors: [`GitError::MissingObject`] for a well-formed full id (or a ref)
    /// naming an absent object, [`GitError::UnknownRevision`] when `spec` does
    /// not resolve, [`GitError::NotACommit`] when it names a tree or a blob.
    pub fn resolve_commit(&self, spec: &str) -> Result<Oid, GitError> {
        let id = match Oid::from_hex(spec) {
            // A whole id names that object, as git takes it (a ref of the
            // same name only warns there): gix would look it up as a
            // prefix, opening every pack index to rule out another.
            Some(id) if self.repo.has_object(id.0) => id.0,
            Some(id) => return Err(GitError::MissingObject { id: id.to_hex() }),
            None => {
                if let Some(id) = self.resolve_steps(spec) {
                    return Ok(id);
                }
                if let Some(id) = self.resolve_ref_name(spec) {
                    return self.peel_to_commit(id, spec);
                }
                self.repo
                    .rev_parse_single(gix::bstr::BStr::new(spec.as_bytes()))
                    .map_err(|_| GitError::UnknownRevision {
                        spec: spec.to_owned(),
                    })?
                    .detach()
            }
        };
        self.peel_to_commit(id, spec)
    }

    /// `spec` as the name of a ref, as git's rev-parse looks names up
    /// (`HEAD`, `main`, `refs/…`, then under `refs/tags/`, `refs/heads/`,
    /// `refs/remotes/`, and a remote's `HEAD`; gix's order), followed
    /// through symbolic refs to the object it names. `None` for anything
    /// that is not a plain name (`@`, `:`, `{`…) or names no ref: gix's
    /// rev-parse takes those. gix's rev-parse looks the object up as
    /// well, opening every pack index (0.5 ms for moby's `HEAD`); the
    /// object is read once, when it is peeled, and not at all when the
    /// commit-graph holds it.
    fn resolve_ref_name(&self, spec: &str) -> Option<gix::ObjectId> {
        let plain = |c: char| c.is_ascii_alphanumeric() || "/_.-+".contains(c);
        if spec.is_empty() || !spec.chars().all(plain) {
            return None;
        }
        let name: &gix::refs::PartialNameRef = spec.try_into().ok()?;
        let mut reference = self.repo.try_find_reference(name).ok()??;
        Some(reference.follow_to_object().ok()?.detach())
    }

    /// Object `id` (what `spec` names) as a commit: itself, or what the
    /// annotated tags it starts (nested, if so) point at.
    fn peel_to_commit(&self, id: gix::ObjectId, spec: &str) -> Result<Oid, GitError> {
        // A commit-graph holds commits only.
        if self
            .commit_graph()
            .is_some_and(|graph| graph.commit_by_id(id).is_some())
        {
            return Ok(Oid(id));
        }
        // Peel annotated tags (possibly nested) down to what they point at.
        let mut current = id;
        for _ in 0..64 {
            let object = self.find_object(current)?;
            match object.kind {
                gix::objs::Kind::Commit => return Ok(Oid(current)),
                gix::objs::Kind::Tag => {
                    let tag = object.into_tag();
                    current = tag
                        .target_id()
                        .map_err(|err| {
                            GitError::gix(format!("reading tag {current} (from `{spec}`)"), &err)
                        })?
                        .detach();
                }
                kind => {
                    return Err(GitError::NotACommit {
                        spec: spec.to_owned(),
                        kind: kind.to_string(),
                    });
                }
            }
        }
        Err(GitError::other(
            format!("resolving `{spec}`"),
            "tag chain too long",
        ))
    }

    /// `spec` as a name followed by steps to parents (`~N`, `^N`, `~`,
    /// `^`: `HEAD~3000`, `main^2~5`), resolved through the commit-graph
    /// where it holds the commits, else by reading each commit's first
    /// lines as the walk does (decision 0037): gix reads each commit on
    /// the way whole without a graph, 3,000 of them for a range's
    /// `HEAD~3000..`, and looks each one up by id with one. `None` for
    /// any other shape, where the name does not resolve, a step finds no
    /// such parent or a commit cannot be read, and in a clone whose
    /// parents git may see otherwise (shallow, grafted, with replaced
    /// objects): gix resolves those and says what is wrong.
    fn resolve_steps(&self, spec: &str) -> Option<Oid> {
        let at = spec.find(['~', '^'])?;
        let (name, steps) = spec.split_at(at);
        let mut parsed = Vec::new();
        let mut rest = steps.as_bytes();
        while let Some((&step, after)) = rest.split_first() {
            let digits = after.iter().take_while(|b| b.is_ascii_digit()).count();
            let n: usize = match digits {
                0 => 1,
                _ => std::str::from_utf8(&after[..digits]).ok()?.parse().ok()?,
            };
            match step {
                b'~' => parsed.push((true, n)),
                b'^' => parsed.push((false, n)),
                _ => return None,
            }
            rest = &after[digits..];
        }
        if name.is_empty()
            || self.is_shallow()
            || self.common_dir.join("info/grafts").exists()
            || self.has_replaced_objects()
        {
            return None;
        }
        // A commit the commit-graph holds is stepped through there, by
        // places (no id looked up on the way): gix's own steps cost moby's
        // `HEAD~300` 0.9 ms, on the main thread before the walk starts,
        // and looking each parent up by id 0.55 ms.
        let graph = self.commit_graph();
        enum At {
            Graph(gix::commitgraph::Position),
            Id(gix::ObjectId),
        }
        let place = |id: gix::ObjectId| match graph.and_then(|g| g.lookup(id)) {
            Some(at) => At::Graph(at),
            None => At::Id(id),
        };
        let mut at = place(self.resolve_commit(name).ok()?.0);
        let objects = self.objects();
        let mut buf = Vec::new();
        let context = || format!("resolving `{spec}`");
        // Parent `n` (from 0) of the commit at `at`.
        let mut parent = |at: &At, n: usize| -> Option<At> {
            match (at, graph) {
                (At::Graph(pos), Some(graph)) => {
                    let parent = graph.commit_at(*pos).iter_parents().nth(n)?.ok()?;
                    Some(At::Graph(parent))
                }
                (At::Id(id), _) => {
                    let (_, _, parents) =
                        bases::read_dated_parents(&objects, *id, &mut buf, &context).ok()?;
                    Some(place(*parents.get(n)?))
                }
                (At::Graph(_), None) => None,
            }
        };
        for (first_parents, n) in parsed {
            if first_parents {
                for _ in 0..n {
                    at = parent(&at, 0)?;
                }
            } else if n > 0 {
                at = parent(&at, n - 1)?;
            }
        }
        let id = match (at, graph) {
            (At::Graph(pos), Some(graph)) => graph.id_at(pos).to_owned(),
            (At::Id(id), _) => id,
            (At::Graph(_), None) => return None,
        };
        Some(Oid(id))
    }

    /// The commit-graph, as gix opens it where git would read it (not
    /// where objects are replaced: `None` there).
    fn commit_graph(&self) -> Option<&gix::commitgraph::Graph> {
        self.graph
            .get_or_init(|| self.repo.commit_graph_if_enabled().ok().flatten())
            .as_ref()
    }

    /// Open this handle's readers of the packs now (decision 0015), as a
    /// walk's first read would: the single reads before a walk (a range's
    /// tip's task files) then go through them rather than gix's, which
    /// maps the packs and checks each index a second time (0.3 ms for
    /// moby's 17 MB index, and its pages faulted in twice).
    pub fn open_packs(&self) {
        self.packs.borrow().open();
    }

    /// Whether any ref replaces an object (`refs/replace/`), or one cannot
    /// be told: git then follows the replacement's parents.
    fn has_replaced_objects(&self) -> bool {
        let Ok(platform) = self.repo.references() else {
            return true;
        };
        match platform.prefixed("refs/replace/") {
            Ok(mut refs) => refs.next().is_some(),
            Err(_) => true,
        }
    }

    /// Whether the object exists in the object database.
    pub fn has_object(&self, id: Oid) -> bool {
        self.repo.has_object(id.0)
    }

    /// Whether `ancestor` is `descendant` or one of its ancestors.
    ///
    /// Unrelated histories answer `false`. Either id being absent is
    /// [`GitError::MissingObject`].
    pub fn is_ancestor(&self, ancestor: Oid, descendant: Oid) -> Result<bool, GitError> {
        for id in [ancestor, descendant] {
            if !self.repo.has_object(id.0) {
                return Err(GitError::MissingObject { id: id.to_hex() });
            }
        }
        if ancestor == descendant {
            return Ok(true);
        }
        // One reader (the commit-graph opened once) for both questions,
        // ordered by the graph's levels: a question asked once per ref (a
        // push's hidden refs, each remote branch) does not read the graph's
        // commit list for its corrected dates. Without a graph, commits
        // the commit cache holds are taken from there (the two named here
        // are in the objects: asked above).
        let graph = self.bases().with_heads(self.cached_heads());
        // A commit reaches only commits of a lower level: with the
        // commit-graph's levels, no search is needed to say no.
        if let [Some(a), Some(d)] = graph.levels_of(&[ancestor.0, descendant.0])[..]
            && a >= d
        {
            return Ok(false);
        }
        // When `ancestor` is reachable from `descendant`, it is their only
        // best common ancestor.
        if self.merge_bases_by(graph, ancestor, &[descendant])?.first() == Some(&ancestor) {
            return Ok(true);
        }
        // Another answer is not a no: without a commit-graph the search goes
        // by committer date, as git's does, and under clock skew (a commit
        // dated before its parent) a best common ancestor can come out
        // wrong (tests/integration/git_layer.rs, the clock-skew walk). The
        // walk between them decides, exactly (`walk_from_base`).
        Ok(self.walk_from_base(descendant, ancestor)?.1)
    }

    /// The commit-graph's topological levels of `ids`, each `None` where
    /// the graph does not hold the commit (or there is none, or the clone
    /// is shallow): a commit reaches only commits of a lower level, so a
    /// level at most another's proves it does not reach that one.
    pub fn levels(&self, ids: &[Oid]) -> Vec<Option<u32>> {
        // A shallow clone's reader has no graph (`Bases::new`).
        let ids: Vec<gix::ObjectId> = ids.iter().map(|id| id.0).collect();
        self.bases().levels_of(&ids)
    }

    /// The committer dates of `ids` (seconds), `None` for a commit that
    /// cannot be read: from the commit-graph where it holds them, else
    /// from what this handle's walks read or the objects.
    pub fn commit_dates(&self, ids: &[Oid]) -> Vec<Option<i64>> {
        let ids: Vec<gix::ObjectId> = ids.iter().map(|id| id.0).collect();
        self.bases().with_heads(self.cached_heads()).dates_of(&ids)
    }

    /// A best common ancestor of `a` and `b` (`git merge-base a b`: the
    /// first of [`merge_bases_all`](Self::merge_bases_all)), `None` when
    /// their histories share nothing.
    pub fn merge_base(&self, a: Oid, b: Oid) -> Result<Option<Oid>, GitError> {
        Ok(self.merge_bases_all(a, &[b])?.into_iter().next())
    }

    /// The merge bases of `one` and `others` (`git merge-base --all one
    /// others…`: the best common ancestors of `one` and a merge of all of
    /// `others`), newest first; empty when they share no commit. Searched
    /// as git searches (src/git/bases.rs), with the commit-graph's
    /// generation numbers where there is one.
    pub fn merge_bases_all(&self, one: Oid, others: &[Oid]) -> Result<Vec<Oid>, GitError> {
        self.merge_bases_by(self.dated_bases(), one, others)
    }

    /// [`merge_bases_all`](Self::merge_bases_all) searched by `graph`.
    fn merge_bases_by(
        &self,
        mut graph: bases::Bases<'_>,
        one: Oid,
        others: &[Oid],
    ) -> Result<Vec<Oid>, GitError> {
        let others: Vec<gix::ObjectId> = others.iter().map(|o| o.0).collect();
        let bases = graph.merge_bases(one.0, &others, &|| {
            let others: Vec<String> = others.iter().map(|o| o.to_string()).collect();
            format!("finding the merge bases of {one} and {}", others.join(", "))
        })?;
        Ok(bases.into_iter().map(Oid).collect())
    }

    /// What the merge-base searches order commits by: `"corrected dates"`
    /// (the commit-graph's generation numbers v2), `"levels"` (v1), or
    /// `"none"` without a commit-graph. For tests.
    #[doc(hidden)]
    pub fn merge_base_generations(&self) -> &'static str {
        self.dated_bases().generations()
    }

    /// Whether the repository is a shallow clone.
    pub fn is_shallow(&self) -> bool {
        self.repo.is_shallow().unwrap_or_else(|_| {
            self.common_dir
                .join("shallow")
                .metadata()
                .is_ok_and(|m| m.len() > 0)
        })
    }

    /// The shallow boundary commits (whose parents are absent), empty when not shallow.
    pub fn shallow_commits(&self) -> Result<Vec<Oid>, GitError> {
        let commits = self.repo.shallow_commits().map_err(|err| {
            let file = self.common_dir.join("shallow");
            GitError::gix(format!("reading {}", file.display()), &err)
        })?;
        Ok(commits
            .map(|c| c.iter().map(|id| Oid(*id)).collect())
            .unwrap_or_default())
    }

    pub fn commit(&self, id: Oid) -> Result<CommitInfo, GitError> {
        let commit = self.find_commit(id)?;
        let decoded = commit
            .decode()
            .map_err(|err| GitError::gix(format!("decoding commit {id}"), &err))?;
        Ok(CommitInfo {
            id,
            parents: decoded.parents().map(Oid).collect(),
            message: decoded.message.to_vec(),
        })
    }

    /// Every commit reachable from `tips` and not from `hidden`, following all
    /// parents, newest first (`git rev-list tips ^hidden`).
    ///
    /// Order: by committer time, newest first (ties in discovery order), like
    /// `git rev-list` without `--topo-order`. In a shallow clone the walk
    /// stops at the boundary commits (they are listed; their absent parents
    /// are not). An absent tip or hidden commit is [`GitError::MissingObject`].
    ///
    /// Exactness: the frontier between tips and hidden commits is found by
    /// committer date, with or without a commit-graph, as git's own
    /// `rev-list` finds it; under clock skew (a commit dated before its
    /// parent) it may, like git's, also list a few commits that are
    /// reachable from `hidden`. It never leaves out one that is not.
    pub fn walk(&self, tips: &[Oid], hidden: &[Oid]) -> Result<Vec<Oid>, GitError> {
        let mut out = Vec::new();
        self.walk_each(tips, hidden, |id, _| out.push(id))?;
        Ok(out)
    }

    /// The commits of `base..tip` ([`walk`](Self::walk) from `tip` hiding
    /// `base`), and whether `base` is an ancestor of `tip` (as
    /// [`is_ancestor`](Self::is_ancestor) answers), from the same walk: it is
    /// exactly when `base` is `tip` or a parent of a walked commit. On any
    /// path from `tip` down to `base`, the child of `base` is not reachable
    /// from `base`, so it is walked; a walked commit listing `base` as a
    /// parent is such a path.
    pub fn walk_from_base(&self, tip: Oid, base: Oid) -> Result<(Vec<Oid>, bool), GitError> {
        let mut out = Vec::new();
        let mut reached = tip == base;
        self.walk_each(&[tip], &[base], |id, parents| {
            out.push(id);
            reached |= parents.contains(&base.0);
        })?;
        Ok((out, reached))
    }

    /// Of each of `wanted`, the first of `tips` (its place there) that
    /// reaches it and does not reach `tip`, among the commits of one walk of
    /// them all hiding `hidden` ([`walk`](Self::walk)); a wanted commit no
    /// such tip reaches is not named. Each tip's reach is what its own walk
    /// would give: a commit a tip reaches and `hidden` does not is reached
    /// through commits `hidden` does not reach either (an ancestor of one
    /// of them would be reachable from `hidden`), all of which the one walk
    /// shows; under clock skew, like `git rev-list`, a walk may also show a
    /// few that `hidden` reaches.
    ///
    /// One walk instead of a walk per tip (and a search for `tip` in
    /// each): the walks of branches left behind long ago each go down the
    /// hidden side's history to their own date, on moby/moby without a
    /// commit-graph 0.2–0.4 s a branch. Only the first tip is kept for a
    /// commit, not every tip's list: with hundreds of branches holding a
    /// whole refused history those lists were hundreds of megabytes.
    pub fn first_reached_from(
        &self,
        tips: &[Oid],
        hidden: &[Oid],
        tip: Oid,
        wanted: &HashSet<Oid>,
    ) -> Result<HashMap<Oid, usize>, GitError> {
        let mut index: HashMap<gix::ObjectId, u32> = HashMap::new();
        let mut walked: Vec<walk::Parents> = Vec::new();
        self.walk_each(tips, hidden, |id, parents| {
            index.insert(id.0, walked.len() as u32);
            walked.push(parents.iter().copied().collect());
        })?;
        // Each walked commit's walked parents (a parent is walked after it).
        let parents: Vec<Vec<u32>> = walked
            .iter()
            .map(|ps| ps.iter().filter_map(|p| index.get(p).copied()).collect())
            .collect();
        let place = |id: Oid| index.get(&id.0).map(|&at| at as usize);
        // Wanted commits the walk shows: no tip reaches the others.
        let mut left: Vec<(Oid, usize)> = wanted
            .iter()
            .filter_map(|&w| place(w).map(|at| (w, at)))
            .collect();
        let mut first = HashMap::new();
        // Sixty-four tips at a time, in order, a bit each, painted down the
        // parents: a commit's bits are the tips that reach it.
        for (chunk, group) in tips.chunks(64).enumerate() {
            if left.is_empty() {
                break;
            }
            let mut bits = vec![0u64; walked.len()];
            let mut pending: Vec<(usize, u64)> = group
                .iter()
                .enumerate()
                .filter_map(|(k, t)| place(*t).map(|at| (at, 1u64 << k)))
                .collect();
            while let Some((at, add)) = pending.pop() {
                let new = add & !bits[at];
                if new == 0 {
                    continue;
                }
                bits[at] |= new;
                pending.extend(parents[at].iter().map(|&p| (p as usize, new)));
            }
            let holding_tip = place(tip).map_or(0, |at| bits[at]);
            left.retain(|&(w, at)| {
                let by = bits[at] & !holding_tip;
                if by == 0 {
                    return true;
                }
                first.insert(w, chunk * 64 + by.trailing_zeros() as usize);
                false
            });
        }
        Ok(first)
    }

    /// [`walk`](Self::walk), handing each commit of the walk and its
    /// parents to `each`, in walk order (walk.rs).
    fn walk_each(
        &self,
        tips: &[Oid],
        hidden: &[Oid],
        mut each: impl FnMut(Oid, &[gix::ObjectId]),
    ) -> Result<(), GitError> {
        if tips.is_empty() {
            return Ok(());
        }
        let mut walked: Vec<(gix::ObjectId, walk::Parents)> = Vec::new();
        let ended = walk::walk(
            &self.repo,
            &self.packs,
            tips,
            hidden,
            self.shallow_set()?,
            self.cached_heads().as_deref(),
            &|| walk_context(tips, hidden),
            |commit| walked.push((commit.id, commit.parents)),
        )?;
        for (id, parents) in walked {
            if !ended.dropped.contains(&id) {
                each(Oid(id), &parents);
            }
        }
        Ok(())
    }

    /// The shallow boundary commits (none in a full clone).
    fn shallow_set(&self) -> Result<HashSet<gix::ObjectId>, GitError> {
        if !self.is_shallow() {
            return Ok(HashSet::new());
        }
        Ok(self.shallow_commits()?.into_iter().map(|id| id.0).collect())
    }

    /// A reader for merge-base searches, kept across the merges of a run.
    /// A shallow boundary that cannot be read is left out: its missing
    /// parents then fail the search instead of passing it.
    ///
    /// Ordered by the commit-graph's levels: reading its corrected dates
    /// (src/git/corrected.rs) means reading and comparing its whole commit
    /// list, some 10 ms on git/git, which a single question (a hook's
    /// merge, a ref's ancestry, a short range) should not pay; the
    /// searches of a long range's diff threads use them
    /// ([`dated_bases`](Self::dated_bases)).
    fn bases(&self) -> bases::Bases<'_> {
        self.dated_bases().levels_only()
    }

    /// A reader for many searches: ordered by the commit-graph's corrected
    /// commit dates where it holds them, read on the first search.
    fn dated_bases(&self) -> bases::Bases<'_> {
        bases::Bases::new(
            &self.repo,
            &self.packs,
            self.shallow_set().unwrap_or_default(),
        )
    }

    /// [`dated_bases`](Self::dated_bases) over the graph and dates of
    /// `share`, mapped and read once for every reader sharing it.
    fn dated_bases_sharing(&self, share: bases::GraphShare) -> bases::Bases<'_> {
        bases::Bases::sharing(
            &self.repo,
            &self.packs,
            self.shallow_set().unwrap_or_default(),
            share,
        )
    }

    /// The changes of commit `id` against each of its parents, in parent
    /// order; a root commit yields one diff against the empty tree. Every
    /// file-level path, no filter.
    ///
    /// A parent that is absent fails: [`GitError::ShallowBoundary`] in a
    /// shallow clone, [`GitError::MissingObject`] otherwise. Never a silent
    /// diff against the empty tree.
    pub fn changes(&self, id: Oid, renames: Renames) -> Result<Vec<ParentDiff>, GitError> {
        let (tree_id, parents, _) = self.decode_commit(id)?;
        self.changes_of(id, tree_id, &parents, renames)
    }

    /// The paths merge `id` changed itself: each file-level path whose entry
    /// differs from its entry in every parent (git's combined diff,
    /// `git diff-tree -c --raw`), described against the first parent, as
    /// [`changes`](Self::changes) would describe it without renames. Subtrees
    /// equal to any parent's are not read. A commit with one parent or none
    /// gets its plain changes; absent parents fail as in `changes`.
    pub fn combined_changes(&self, id: Oid) -> Result<Vec<Change>, GitError> {
        let (tree_id, parents, _) = self.decode_commit(id)?;
        self.combined_changes_of(id, tree_id, &parents)
    }

    fn combined_changes_of(
        &self,
        id: Oid,
        tree_id: gix::ObjectId,
        parents: &[gix::ObjectId],
    ) -> Result<Vec<Change>, GitError> {
        if parents.len() < 2 {
            let diffs = self.changes_of(id, tree_id, parents, Renames::Off)?;
            return Ok(diffs.into_iter().flat_map(|d| d.changes).collect());
        }
        let trees = parents
            .iter()
            .map(|&parent| self.parent_tree(id, Oid(parent)))
            .collect::<Result<Vec<_>, _>>()?;
        diff::combined_changes(&self.objects(), tree_id, &trees, || {
            format!("diffing merge {id} against its parents")
        })
    }

    /// The paths merge `id` changed itself: each file-level path where its
    /// entry is not what a clean merge of its parents gives — where only one
    /// side changed the path since the merge base, that side's version;
    /// where both made the same change, it; a path both changed differently
    /// is always the merge's (decision 0023). Parents after the first are
    /// merged in turn, each on its merge bases with the parents before it,
    /// as git's octopus strategy does. Described against the clean merge's
    /// entry, else the first parent's, without renames; subtrees the rule
    /// accepts by id are not read. A commit with one parent or none gets
    /// its plain changes; absent parents fail as in
    /// [`changes`](Self::changes), and a merge base beyond a shallow
    /// clone's boundary is [`GitError::ShallowMergeBase`].
    pub fn merge_changes(&self, id: Oid) -> Result<Vec<Change>, GitError> {
        let (tree_id, parents, _) = self.decode_commit(id)?;
        if parents.len() < 2 {
            let diffs = self.changes_of(id, tree_id, &parents, Renames::Off)?;
            return Ok(diffs.into_iter().flat_map(|d| d.changes).collect());
        }
        let trees = parents
            .iter()
            .map(|&parent| self.parent_tree(id, Oid(parent)))
            .collect::<Result<Vec<_>, _>>()?;
        let mut graph = self.bases();
        self.merge_changes_of(id, tree_id, &parents, &trees, &mut graph, None)
    }

    /// Of `paths`, those where `index` does not hold what a clean merge of
    /// `head` and `merging` (the commits `MERGE_HEAD` names) gives — what
    /// concluding the merge makes itself, by the rule
    /// [`merge_changes`](Self::merge_changes) judges a merge commit with
    /// (decision 0023), so pre-commit and the push agree.
    pub fn staged_merge_own(
        &self,
        index: &IndexSnapshot,
        head: Oid,
        merging: &[Oid],
        paths: &[RepoPath],
    ) -> Result<Vec<RepoPath>, GitError> {
        let parents: Vec<gix::ObjectId> = std::iter::once(head)
            .chain(merging.iter().copied())
            .map(|o| o.0)
            .collect();
        let mut bases = Vec::with_capacity(parents.len() - 1);
        let mut graph = self.bases();
        for k in 1..parents.len() {
            bases.push(self.merge_bases(head, parents[k], &parents[..k], &mut graph, None)?);
        }
        let mut own = Vec::new();
        for path in paths {
            let value = |commit: gix::ObjectId| self.entry_at(Oid(commit), path);
            let first = value(parents[0])?;
            let mut rest = Vec::with_capacity(bases.len());
            for (k, commits) in bases.iter().enumerate() {
                let mut at_bases = Vec::with_capacity(commits.len().max(1));
                for base in commits {
                    at_bases.push(value(*base)?);
                }
                if at_bases.is_empty() {
                    // No common history: git merges from the empty tree.
                    at_bases.push(None);
                }
                rest.push((value(parents[k + 1])?, at_bases));
            }
            let clean = merged::clean_merge(
                first,
                rest.iter().map(|(theirs, at)| (*theirs, at.as_slice())),
            );
            if clean != Some(self.index_blob(index, path)) {
                own.push(path.clone());
            }
        }
        Ok(own)
    }

    /// [`merge_changes`](Self::merge_changes) of a merge whose parents'
    /// trees are known.
    fn merge_changes_of(
        &self,
        id: Oid,
        tree: gix::ObjectId,
        parents: &[gix::ObjectId],
        parent_trees: &[gix::ObjectId],
        graph: &mut bases::Bases<'_>,
        landing: Option<&landing::Shared>,
    ) -> Result<Vec<Change>, GitError> {
        let mut bases = Vec::with_capacity(parents.len() - 1);
        for k in 1..parents.len() {
            let commits = self.merge_bases(id, parents[k], &parents[..k], graph, landing)?;
            let trees = commits
                .into_iter()
                .map(|base| self.commit_tree(Oid(base)))
                .collect::<Result<Vec<_>, _>>()?;
            bases.push(trees);
        }
        let trees = diff::MergeTrees {
            tree,
            parents: parent_trees,
            bases: &bases,
        };
        diff::merge_changes(&self.objects(), &trees, || {
            format!("diffing merge {id} against a clean merge of its parents")
        })
    }

    /// The merge bases of `one` and `others` (`git merge-base --all one
    /// others…`), for merge `id`: empty when they share no commit. In a
    /// shallow clone no base is no answer: it may lie beyond the boundary.
    ///
    /// `graph` keeps the commits it has read: the merges of a run share
    /// most of the history below them, which is then read once (without a
    /// commit-graph, reading it again for each merge cost git/git some 80
    /// ms a merge).
    fn merge_bases(
        &self,
        id: Oid,
        one: gix::ObjectId,
        others: &[gix::ObjectId],
        graph: &mut bases::Bases<'_>,
        landing: Option<&landing::Shared>,
    ) -> Result<Vec<gix::ObjectId>, GitError> {
        if let Some(landing) = landing.and_then(|shared| shared.get()) {
            if let Some(levels) = landing.levels() {
                graph.with_levels(levels);
            }
            // A merge on the range's main line: read off the walk.
            if let [other] = others
                && let Some(bases) = Self::landed_bases(&landing, id, (one, *other), graph)?
            {
                return Ok(bases);
            }
        }
        let bases = graph.merge_bases(one, others, &|| {
            format!("finding the merge bases of merge {id}'s parents")
        })?;
        if bases.is_empty() && self.is_shallow() {
            return Err(GitError::ShallowMergeBase {
                commit: id.to_hex(),
            });
        }
        Ok(bases)
    }

    /// The merge bases of merge `id` (its parents `one` and `other`) from
    /// the walk's landing (src/git/landing.rs): its one candidate, or of
    /// several those no other reaches, as the range settles them, else
    /// with the commit-graph's generations, else as a run before found
    /// them, else by a walk below the range; an off-line merge whose
    /// candidates stand on commits below the range once a walk there
    /// finds its first parent reaches them; `None` where the landing does
    /// not tell (an octopus, a merge off the line the range cannot tell,
    /// a walk below it longer than [`SETTLE_BUDGET`], or one that finds
    /// the first parent does not reach what was asked).
    fn landed_bases(
        landing: &landing::Landing,
        id: Oid,
        (one, other): (gix::ObjectId, gix::ObjectId),
        graph: &mut bases::Bases<'_>,
    ) -> Result<Option<Vec<gix::ObjectId>>, GitError> {
        let context = || format!("finding the merge bases of merge {id}'s parents");
        // An off-line merge whose candidates hold if its first parent
        // reaches what the second met below the range: a run before
        // searched it, or a walk below the range tells (with a graph too:
        // the same answers, whatever the clone).
        if let Some(asked) = landing.asked(&id.0) {
            if let Some(kept) = graph.kept(one, other) {
                return Ok(Some(kept));
            }
            let reached =
                graph.reaches_all(&asked.targets, &asked.from, SETTLE_BUDGET, &context)?;
            if reached != Some(true) {
                return Ok(None);
            }
        }
        let several = match landing.candidates(&id.0) {
            None => return Ok(None),
            Some(one @ [] | one @ [_]) => return Ok(Some(one.to_vec())),
            Some(several) => several,
        };
        let Some(settled) = landing.several(&id.0) else {
            return graph.reduce(several, &context);
        };
        if settled.unsettled.is_empty() {
            return Ok(Some(settled.bases.to_vec()));
        }
        if let Some(reduced) = graph.reduce(several, &context)? {
            return Ok(Some(reduced));
        }
        // A run before searched it (the walk below found too much): kept.
        if let Some(kept) = graph.kept(one, other) {
            return Ok(Some(kept));
        }
        let below = graph.settle(
            &settled.unsettled,
            &settled.frontier,
            settled.bases.is_empty(),
            SETTLE_BUDGET,
            &context,
        )?;
        Ok(below.map(|mut below| {
            let mut bases = settled.bases.to_vec();
            bases.append(&mut below);
            bases
        }))
    }

    /// Commit `id`'s tree, parents and message.
    fn decode_commit(
        &self,
        id: Oid,
    ) -> Result<(gix::ObjectId, Vec<gix::ObjectId>, Vec<u8>), GitError> {
        let commit = self.find_commit(id)?;
        let commit = walk::decode_commit(&commit.data, id.0.kind())
            .map_err(|err| GitError::other(format!("decoding commit {id}"), err))?;
        let (tree, parents, message) = (commit.tree, commit.parents, commit.message);
        let mut trees = self.trees.borrow_mut();
        if trees.len() >= KNOWN_TREES {
            trees.clear();
        }
        trees.insert(id.0, tree);
        Ok((tree, parents, message))
    }

    /// The tree of `parent`, a parent of commit `id`: absent, it fails as
    /// [`changes`](Self::changes) says.
    fn parent_tree(&self, id: Oid, parent: Oid) -> Result<gix::ObjectId, GitError> {
        if let Some(&tree) = self.trees.borrow().get(&parent.0) {
            return Ok(tree);
        }
        let parent_commit = match self.try_find_object(parent.0) {
            Ok(Some(object)) => object,
            Ok(None) => return Err(self.missing_parent(id, parent)),
            Err(err) => {
                return Err(GitError::gix(
                    format!("reading parent {parent} of commit {id}"),
                    &err,
                ));
            }
        };
        if parent_commit.kind != gix::objs::Kind::Commit {
            return Err(GitError::other(
                format!("reading parent {parent} of commit {id}"),
                format_args!("it is a {}, not a commit", parent_commit.kind),
            ));
        }
        Ok(parent_commit
            .into_commit()
            .tree_id()
            .map_err(|err| GitError::gix(format!("decoding commit {parent}"), &err))?
            .detach())
    }

    /// [`changes`](Self::changes) of a decoded commit.
    fn changes_of(
        &self,
        id: Oid,
        tree_id: gix::ObjectId,
        parents: &[gix::ObjectId],
        renames: Renames,
    ) -> Result<Vec<ParentDiff>, GitError> {
        let parent_trees = parents
            .iter()
            .map(|&parent| self.parent_tree(id, Oid(parent)))
            .collect::<Result<Vec<_>, _>>()?;
        self.changes_against(id, tree_id, parents, &parent_trees, renames)
    }

    /// [`changes`](Self::changes) of a commit whose parents' trees are known.
    fn changes_against(
        &self,
        id: Oid,
        tree_id: gix::ObjectId,
        parents: &[gix::ObjectId],
        parent_trees: &[gix::ObjectId],
        renames: Renames,
    ) -> Result<Vec<ParentDiff>, GitError> {
        let mut cache = self.diff.borrow_mut();
        let mut out = Vec::with_capacity(parents.len().max(1));
        if parents.is_empty() {
            let changes = cache.commit_changes(&self.objects(), None, tree_id, renames, || {
                format!("diffing root commit {id}")
            })?;
            out.push(ParentDiff {
                parent: None,
                changes,
            });
            return Ok(out);
        }
        for (&parent, &parent_tree_id) in parents.iter().zip(parent_trees) {
            let parent = Oid(parent);
            let old = Some(parent_tree_id);
            let changes = cache.commit_changes(&self.objects(), old, tree_id, renames, || {
                format!("diffing commit {id} against parent {parent}")
            })?;
            out.push(ParentDiff {
                parent: Some(parent),
                changes,
            });
        }
        Ok(out)
    }

    /// The changes of each commit of a run handed on by the walk, computed
    /// oldest first (a commit's parent is usually the one before it, whose
    /// trees the caches still hold) and returned in walk order; `graph`
    /// keeps the commits the merge-base searches read, from run to run.
    fn diff_run(
        &self,
        run: Vec<Queued>,
        renames: Renames,
        merges: MergeChanges,
        graph: &mut bases::Bases<'_>,
        landing: Option<&landing::Shared>,
    ) -> RunResults {
        let done = self.diff_run_part(run, renames, merges, graph, landing, false);
        self.finish_run(done, renames, merges, graph, landing)
    }

    /// The changes of a run's commits, as [`diff_run`](Self::diff_run)
    /// computes them, at their places; with `leave_merges`, a merge whose
    /// own changes need the landing is left at its place for
    /// [`finish_run`](Self::finish_run) (the landing is not put yet).
    fn diff_run_part(
        &self,
        run: Vec<Queued>,
        renames: Renames,
        merges: MergeChanges,
        graph: &mut bases::Bases<'_>,
        landing: Option<&landing::Shared>,
        leave_merges: bool,
    ) -> Aside {
        if leave_merges {
            RUNS_SET_ASIDE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        let mut aside = Aside {
            results: Vec::with_capacity(run.len()),
            merges: Vec::new(),
        };
        aside.results.resize_with(run.len(), || None);
        for (at, queued) in run.into_iter().enumerate().rev() {
            let commit = match queued {
                Queued::Whole(commit) => *commit,
                Queued::Again(id) => match self.walked_again(id, graph) {
                    Ok(commit) => commit,
                    Err(error) => {
                        aside.results[at] = Some((id, Err(error)));
                        continue;
                    }
                },
            };
            if leave_merges && commit.parents.len() > 1 && merges == MergeChanges::Own {
                aside.merges.push((at, commit));
                continue;
            }
            let id = commit.id;
            aside.results[at] = Some((
                id,
                self.walked_changes(commit, renames, merges, graph, landing),
            ));
        }
        aside
    }

    /// A run [`diff_run_part`](Self::diff_run_part) left merges of, its
    /// merges diffed now: its results in walk order.
    fn finish_run(
        &self,
        aside: Aside,
        renames: Renames,
        merges: MergeChanges,
        graph: &mut bases::Bases<'_>,
        landing: Option<&landing::Shared>,
    ) -> RunResults {
        let Aside {
            mut results,
            merges: left,
        } = aside;
        for (at, commit) in left {
            let id = commit.id;
            results[at] = Some((
                id,
                self.walked_changes(commit, renames, merges, graph, landing),
            ));
        }
        results.into_iter().flatten().collect()
    }

    /// Commit `id` as the walk handed it on, read again on a diff thread
    /// ([`Queued::Again`]): its tree, parents and message from the commit
    /// itself, each parent's tree from the commit-graph, the commits the
    /// range's readers read ([`bases::Heads`]), a commit this thread
    /// decoded, or the parent itself.
    fn walked_again(
        &self,
        id: gix::ObjectId,
        graph: &bases::Bases<'_>,
    ) -> Result<walk::Walked, GitError> {
        let (tree, parents, message) = self.decode_commit(Oid(id))?;
        let parent_trees = parents
            .iter()
            .map(|&parent| match graph.tree_of(parent) {
                Some(tree) => Ok(tree),
                None => self.parent_tree(Oid(id), Oid(parent)),
            })
            .collect::<Result<walk::Parents, GitError>>()?;
        Ok(walk::Walked {
            id,
            tree,
            parents: parents.into_iter().collect(),
            parent_trees,
            message: Some(message),
        })
    }

    fn walked_changes(
        &self,
        commit: walk::Walked,
        renames: Renames,
        merges: MergeChanges,
        graph: &mut bases::Bases<'_>,
        landing: Option<&landing::Shared>,
    ) -> Result<CommitChanges, GitError> {
        let id = Oid(commit.id);
        // A shallow boundary's parents were not read: it fails as
        // `changes` says.
        if commit.parent_trees.len() != commit.parents.len() {
            return Err(self.missing_parent(id, Oid(commit.parents[0])));
        }
        let changes = match (commit.parents.len() > 1, merges) {
            (true, MergeChanges::Skip) => Vec::new(),
            (true, MergeChanges::Combined) => {
                diff::combined_changes(&self.objects(), commit.tree, &commit.parent_trees, || {
                    format!("diffing merge {id} against its parents")
                })?
            }
            (true, MergeChanges::Own) => self.merge_changes_of(
                id,
                commit.tree,
                &commit.parents,
                &commit.parent_trees,
                graph,
                landing,
            )?,
            (false, _) => self
                .changes_against(
                    id,
                    commit.tree,
                    &commit.parents,
                    &commit.parent_trees,
                    renames,
                )?
                .into_iter()
                .flat_map(|d| d.changes)
                .collect(),
        };
        // Read from the commit-graph, the walk has no message: read here,
        // on the diff thread.
        let message = match commit.message {
            Some(message) => message,
            None => self.decode_commit(id)?.2,
        };
        Ok(CommitChanges {
            info: CommitInfo {
                id,
                parents: commit.parents.into_iter().map(Oid).collect(),
                message,
            },
            changes,
        })
    }

    /// The commits of `tips` hiding `hidden` ([`walk`](Self::walk)), and for
    /// each that `diff` accepts its header and changes ([`changes`](Self::changes)
    /// with `renames`; for a merge what `merges` asks for: none, its
    /// combined diff ([`combined_changes`](Self::combined_changes)), or its
    /// own changes ([`merge_changes`](Self::merge_changes)), whose merge
    /// bases are found on the diff threads).
    ///
    /// Each commit is read once, by the walk, which hands it on with its
    /// tree, its parents' trees and its message. The diffs run on two
    /// threads while the walk goes on, in runs of consecutive commits, which
    /// share most of their trees, so each thread's object cache stays warm;
    /// a range too short to pay for threads is diffed on this one, after the
    /// walk. The results wait until [`WalkedChanges::each`] takes them.
    pub fn walk_changes(
        &self,
        tips: &[Oid],
        hidden: &[Oid],
        diff: impl Fn(Oid) -> bool,
        renames: Renames,
        merges: MergeChanges,
    ) -> Result<WalkedChanges<'_>, GitError> {
        let mut commits = Vec::new();
        let mut parents = walk::ParentLists::default();
        // The main-line merges' bases, read off the walk once it ends
        // (src/git/landing.rs); none in a shallow clone, whose searches
        // must fail where the boundary hides a base.
        let shared = (merges == MergeChanges::Own && !self.is_shallow())
            .then(|| std::sync::Arc::new(landing::Shared::default()));
        // The commits the walk reads from the objects, kept for the
        // merges' searches (src/git/bases.rs, `Heads`).
        let heads = (merges == MergeChanges::Own).then(|| self.heads());
        let mut runs = Runs {
            repo: &self.repo,
            packs: &self.packs,
            renames,
            merges,
            landing: shared.clone(),
            heads: heads.clone(),
            run: Vec::new(),
            run_at: Vec::new(),
            waiting: Vec::new(),
            workers: None,
            sent: Vec::new(),
            added: 0,
        };
        // Declared after `runs`, so dropped before it: a walk that fails
        // puts "no landing" before the threads are joined, and none
        // waits for it.
        let putter = shared.clone().map(landing::Putter);
        let ended = if tips.is_empty() {
            walk::Ended {
                dropped: HashSet::new(),
                graph: false,
            }
        } else {
            walk::walk(
                &self.repo,
                &self.packs,
                tips,
                hidden,
                self.shallow_set()?,
                heads.as_deref(),
                &|| walk_context(tips, hidden),
                |commit| {
                    // Its place in the walk: what its diff's result is
                    // handed on with.
                    let at = u32::try_from(commits.len()).unwrap_or(u32::MAX);
                    commits.push(Oid(commit.id));
                    parents.push(&commit.parents);
                    if diff(Oid(commit.id)) {
                        runs.add(commit, at);
                    }
                },
            )?
        };
        // The walk's own record of every commit it read is gone; on a long
        // range that is tens of megabytes the diff threads' allocations
        // would not reuse (each thread allocates in an arena of its own).
        if commits.len() >= LONG_WALK {
            crate::platform::return_freed_memory();
        }
        // Places in the range are `u32`s (the landing, the table of
        // places): a range past that is an error, never a short index.
        if !parents.whole() || u32::try_from(commits.len()).is_err() {
            return Err(GitError::other(
                walk_context(tips, hidden),
                "more commits or parents than a walk can number",
            ));
        }
        // The commits handed on that turned out hidden leave the range
        // (rare: a date older than a hidden commit's), and each place in
        // the walk moves to its place in the range; without any, the lists
        // stay as they are, not copied.
        let (commits, parents, moved) = if ended.dropped.is_empty() {
            (commits, parents, None)
        } else {
            let mut moved = Vec::with_capacity(commits.len());
            let mut kept = 0u32;
            for id in &commits {
                if ended.dropped.contains(&id.0) {
                    moved.push(u32::MAX);
                } else {
                    moved.push(kept);
                    kept += 1;
                }
            }
            let mut kept_parents = walk::ParentLists::default();
            for (id, ps) in commits.iter().zip(parents.iter()) {
                if !ended.dropped.contains(&id.0) {
                    kept_parents.push(ps);
                }
            }
            commits.retain(|id| !ended.dropped.contains(&id.0));
            (commits, kept_parents, Some(moved))
        };
        let commits: std::sync::Arc<[Oid]> = commits.into();
        // The range's commits by id, only while the landing and the
        // parents' answers are read from it: the diffs' results come back
        // with their places. A table of places, 655 KB on git/git's whole
        // history, where a map from id to place took 4.3 MB
        // (src/git/places.rs).
        let index = std::sync::Arc::new(places::Places::of(&commits));
        let range = landing::Range {
            commits: &commits,
            places: &index,
            parents: &parents,
        };
        if let Some(putter) = &putter {
            // A range without a two-parent merge needs none (and spares
            // the hidden commits' ancestry checks).
            let landing = match tips.first() {
                Some(tip) if parents.iter().any(|p| p.len() == 2) => {
                    // Levels where the searches have no commit-graph's
                    // generations and nothing outside the range reaches
                    // into it (src/git/landing.rs, `Levels`).
                    let levels = !ended.graph && self.closed(hidden, heads.as_deref());
                    self.landing(tip.0, hidden, &range, levels)
                }
                _ => None,
            };
            slow_landing();
            putter.0.put(landing);
        }
        let pending = runs.finish();
        // What `reaches` asks of the parents, kept instead of every
        // commit's parents (2.4 MB on git/git's whole history).
        let mut parented = vec![false; commits.len()];
        let mut outside = HashSet::new();
        for parent in parents.all() {
            match range.place(parent) {
                Some(at) => parented[at] = true,
                None => {
                    outside.insert(*parent);
                }
            }
        }
        drop(parents);
        drop(index);
        Ok(WalkedChanges {
            commits,
            parented,
            outside,
            moved,
            dropped: ended.dropped,
            pending,
            repo: self,
            renames,
            merges,
            landing: shared,
            heads,
        })
    }

    /// The landing of a walked range on `tip`'s first-parent line
    /// (src/git/landing.rs), where every hidden commit is the line's
    /// bottom or below it: then no commit outside the range that the line
    /// reaches lies above the bottom. `None` otherwise, or when that cannot
    /// be told: every merge is then searched.
    fn landing(
        &self,
        tip: gix::ObjectId,
        hidden: &[Oid],
        range: &landing::Range<'_>,
        levels: bool,
    ) -> Option<landing::Landing> {
        let bottom = landing::bottom(tip, range)?;
        let below = match bottom {
            // The line starts at a root: only a range that hides nothing
            // has nothing outside it.
            None => hidden.is_empty(),
            Some(bottom) => hidden
                .iter()
                .all(|h| h.0 == bottom || self.is_ancestor(*h, Oid(bottom)).unwrap_or(false)),
        };
        if !below {
            return None;
        }
        landing::landing(tip, bottom, range, levels)
    }

    /// Whether nothing outside a walked range reaches a commit in it: it
    /// hides nothing, or a few roots (a whole history hidden below its
    /// first commit). Those reach no other commit, so the range is all
    /// their tips reach but them, whatever the dates; a range that hides
    /// more may hold a commit a hidden one reaches, where dates mislead
    /// the walk as they mislead git's (src/git/walk.rs, `SLOP`).
    fn closed(&self, hidden: &[Oid], heads: Option<&bases::Heads>) -> bool {
        /// How many hidden commits are read to tell.
        const ROOTS_READ: usize = 8;
        hidden.len() <= ROOTS_READ
            && hidden
                .iter()
                .all(|&id| match heads.and_then(|h| h.get(&id.0)) {
                    Some(head) => head.parents.is_empty(),
                    None => self
                        .decode_commit(id)
                        .is_ok_and(|(_, parents, _)| parents.is_empty()),
                })
    }

    /// Staged changes: the index against HEAD's tree (the empty tree when
    /// HEAD is unborn).
    ///
    /// The index is the one git would use (`GIT_INDEX_FILE` honoured).
    /// Unmerged (conflicted) and intent-to-add entries are not staged changes
    /// and are skipped, as `git diff --cached` does; a sparse index is an error.
    pub fn staged_changes(&self, renames: Renames) -> Result<Vec<Change>, GitError> {
        self.staged_changes_in(&self.read_index()?, renames)
    }

    /// [`staged_changes`](Self::staged_changes) of an index already read
    /// ([`Repo::read_index`]).
    pub fn staged_changes_in(
        &self,
        index: &IndexSnapshot,
        renames: Renames,
    ) -> Result<Vec<Change>, GitError> {
        self.require_workdir()?;
        let head_tree = match self.head()?.id() {
            None => gix::ObjectId::empty_tree(self.repo.object_hash()),
            Some(head) => self.commit_tree(head)?,
        };
        diff::staged_changes(&self.repo, index.file(), head_tree, renames)
    }

    /// The index against commit `commit`'s tree: what a commit of the index
    /// would change relative to that commit (used for each parent of a merge
    /// being concluded).
    pub fn index_changes_against(
        &self,
        index: &IndexSnapshot,
        commit: Oid,
        renames: Renames,
    ) -> Result<Vec<Change>, GitError> {
        self.require_workdir()?;
        let tree = self.commit_tree(commit)?;
        diff::staged_changes(&self.repo, index.file(), tree, renames)
    }

    /// The commits being merged into HEAD when a merge is in progress
    /// (`MERGE_HEAD`), empty otherwise.
    pub fn merge_heads(&self) -> Result<Vec<Oid>, GitError> {
        let path = self.git_dir().join("MERGE_HEAD");
        // Guarded: a FIFO there must not hang a hook.
        let text = match crate::fsutil::read_file(&path, crate::fsutil::Kind::GIT_STATE) {
            Ok(Some(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
            Ok(None) => return Ok(Vec::new()),
            Err(e) => return Err(GitError::other(format!("reading {}", path.display()), e)),
        };
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let hex = l.split_whitespace().next().unwrap_or("");
                Oid::from_hex(hex).ok_or_else(|| {
                    GitError::other(
                        format!("reading {}", path.display()),
                        format_args!("`{l}` is not an object id"),
                    )
                })
            })
            .collect()
    }

    /// The worktree against the index, plus untracked files (and ignored ones
    /// when `ignored` is true).
    ///
    /// Like `git status --porcelain --untracked-files=all` (plus
    /// `--ignored=matching` when `ignored`): untracked files are listed one by
    /// one, never as a collapsed directory; a nested repository is listed as
    /// its directory (`nested`, without a slash), as git does; an ignored
    /// directory matched by a pattern is listed as that directory, its files
    /// are not. An intent-to-add entry (`git add -N`) counts as
    /// [`WorktreeState::Modified`]. Sorted by path, one entry per path.
    pub fn worktree_status(&self, ignored: bool) -> Result<Vec<StatusEntry>, GitError> {
        self.require_workdir()?;
        let index = self.read_index()?;
        status::worktree_status(&self.repo, index.file(), ignored)
    }

    /// [`worktree_status`](Self::worktree_status) against `index` (read by
    /// [`Repo::read_index`]) without `exclude` and what lies below each (not
    /// stat-ed, not walked): `git status -- ':!<path>'…`.
    pub fn worktree_status_excluding(
        &self,
        index: &IndexSnapshot,
        ignored: bool,
        exclude: &[RepoPath],
    ) -> Result<Vec<StatusEntry>, GitError> {
        self.require_workdir()?;
        status::worktree_status_excluding(&self.repo, index.file(), ignored, exclude)
    }

    /// The bytes of a blob.
    /// Any object's kind (`blob`, `tree`, `commit`, `tag`) and its bytes,
    /// decoded from the pack (through the delta-base cache) or loose.
    pub fn read_object(&self, id: Oid) -> Result<(String, Vec<u8>), GitError> {
        let (kind, data) = read_object_in(&self.objects(), id.0)?;
        Ok((kind.to_string(), data))
    }

    pub fn read_blob(&self, id: Oid) -> Result<Vec<u8>, GitError> {
        read_blob_in(&self.single(), id)
    }

    /// For object `id`, stored as a delta in a pack: how many links of its
    /// chain lie below it, and how many of them this handle's delta-base
    /// cache holds. `None` when it is no delta in a pack. For tests: after
    /// reading an object, every link below it is held (decision 0015).
    #[doc(hidden)]
    pub fn delta_chain_held(&self, id: Oid) -> Option<(usize, usize)> {
        self.packs.borrow_mut().chain_held(&id.0)
    }

    /// As [`delta_chain_held`](Self::delta_chain_held), for the diff
    /// threads' readers: `id` read by one of them, its chain as the other's
    /// cache holds it (they share one). This handle's own cache is not
    /// theirs. For tests.
    #[doc(hidden)]
    pub fn delta_chain_held_by_diff_threads(&self, id: Oid) -> Option<(usize, usize)> {
        self.packs.borrow().chain_held_by_a_sharing_sibling(&id.0)
    }

    /// Keep at most `bytes` of the packs' pages resident before letting
    /// them go (16 MiB unless told; decision 0032). Only before the first
    /// read opens the packs. For tests, which need no 16 MiB pack to see
    /// the pages let go.
    #[doc(hidden)]
    pub fn keep_pack_pages(&self, bytes: usize) {
        self.packs.borrow_mut().keep_pages(bytes);
    }

    /// Let the packs' pages go ([`packs`]'s mapping, decision 0032) once
    /// the reads that needed them are over: a whole history's diffs leave
    /// up to 16 MiB of pack resident, which the findings made after them
    /// would stack on. A later read maps them again from the page cache.
    pub fn let_pack_pages_go(&self) {
        self.packs.borrow().let_pages_go();
    }

    /// How many times the process let the packs' pages go since this
    /// handle opened them. For tests.
    #[doc(hidden)]
    pub fn pack_pages_let_go(&self) -> usize {
        self.packs.borrow().pages_let_go()
    }

    /// This handle's objects, packs first ([`packs::Objects`]).
    fn objects(&self) -> packs::Objects<'_> {
        packs::Objects::new(&self.repo, &self.packs)
    }

    /// This handle's objects for one read: through the packs once a walk or
    /// a diff has opened them, else gix ([`packs::Objects::single`]).
    fn single(&self) -> packs::Objects<'_> {
        packs::Objects::single(&self.repo, &self.packs)
    }

    /// `each` of the bytes of each blob of `ids` ([`read_blob`](Self::read_blob)),
    /// on all cores when there are enough of them to pay for threads (each
    /// with its own handle and caches): the answers in the order of `ids`.
    pub fn each_blob<T: Send>(
        &self,
        ids: &[Oid],
        each: &(dyn Fn(&[u8]) -> T + Sync),
    ) -> Vec<Result<T, GitError>> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = cores.min(BLOB_THREADS).min(ids.len() / BLOBS_PER_THREAD);
        if threads <= 1 {
            return ids
                .iter()
                .map(|id| self.read_blob(*id).map(|b| each(&b)))
                .collect();
        }
        let next = std::sync::atomic::AtomicUsize::new(0);
        let work = |objects: &packs::Objects<'_>| {
            let mut done = Vec::new();
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(id) = ids.get(i) else {
                    return done;
                };
                done.push((i, read_blob_in(objects, *id).map(|b| each(&b))));
            }
        };
        let work = &work;
        let mut answers: Vec<Option<Result<T, GitError>>> = ids.iter().map(|_| None).collect();
        std::thread::scope(|s| {
            let handles: Vec<_> = (1..threads)
                .filter_map(|_| {
                    let mut own = self.repo.clone();
                    set_diff_thread_caches(&mut own);
                    let packs = self.packs.borrow().sibling();
                    // A thread that cannot start leaves its share to the others.
                    std::thread::Builder::new()
                        .spawn_scoped(s, move || {
                            let packs = RefCell::new(packs);
                            work(&packs::Objects::new(&own, &packs))
                        })
                        .ok()
                })
                .collect();
            let mut take = |done: Vec<(usize, Result<T, GitError>)>| {
                for (i, answer) in done {
                    answers[i] = Some(answer);
                }
            };
            take(work(&self.objects()));
            for handle in handles {
                take(
                    handle
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                );
            }
        });
        answers
            .into_iter()
            .map(|a| a.expect("every blob was taken by a thread"))
            .collect()
    }

    /// The entry at `path` in commit `commit`'s tree, `None` when absent.
    ///
    /// Directories are not entries here: a path naming a tree is `None`.
    pub fn entry_at(
        &self,
        commit: Oid,
        path: &RepoPath,
    ) -> Result<Option<(Oid, EntryKind)>, GitError> {
        let tree_id = self.commit_tree(commit)?;
        let tree = self.find_tree(tree_id, || format!("the tree of commit {commit}"))?;
        if path.as_bytes().is_empty() {
            return Ok(None);
        }
        let entry = tree
            .lookup_entry(path.as_bytes().split(|b| *b == b'/'))
            .map_err(|err| GitError::gix(format!("looking up {path} in commit {commit}"), &err))?;
        Ok(entry
            .and_then(|entry| entry_kind(entry.mode()).map(|kind| (Oid(entry.object_id()), kind))))
    }

    /// The id of the tree at directory `dir` in commit `commit`, `None` when
    /// absent (or not a directory). Equal ids mean identical contents.
    pub fn tree_id_at(&self, commit: Oid, dir: &RepoPath) -> Result<Option<Oid>, GitError> {
        let tree_id = self.commit_tree(commit)?;
        if dir.as_bytes().is_empty() {
            return Ok(Some(Oid(tree_id)));
        }
        let root = self.find_tree(tree_id, || format!("the tree of commit {commit}"))?;
        let entry = root
            .lookup_entry(dir.as_bytes().split(|b| *b == b'/'))
            .map_err(|err| GitError::gix(format!("looking up {dir} in commit {commit}"), &err))?;
        Ok(entry
            .filter(|e| e.mode().is_tree())
            .map(|e| Oid(e.object_id())))
    }

    /// The file-level entries directly inside directory `dir` of commit
    /// `commit`'s tree, as full paths, sorted as git sorts them; empty when
    /// the directory is absent. Subdirectories are left out.
    pub fn list_dir(
        &self,
        commit: Oid,
        dir: &RepoPath,
    ) -> Result<Vec<(RepoPath, Oid, EntryKind)>, GitError> {
        let tree_id = self.commit_tree(commit)?;
        let root = self.find_tree(tree_id, || format!("the tree of commit {commit}"))?;
        let dir_tree = if dir.as_bytes().is_empty() {
            root
        } else {
            let entry = root
                .lookup_entry(dir.as_bytes().split(|b| *b == b'/'))
                .map_err(|err| {
                    GitError::gix(format!("looking up {dir} in commit {commit}"), &err)
                })?;
            match entry {
                Some(entry) if entry.mode().is_tree() => {
                    self.find_tree(entry.object_id(), || format!("{dir} in commit {commit}"))?
                }
                _ => return Ok(Vec::new()),
            }
        };
        let decoded = dir_tree
            .decode()
            .map_err(|err| GitError::gix(format!("decoding {dir} in commit {commit}"), &err))?;
        let mut out = Vec::new();
        for entry in &decoded.entries {
            if let Some(kind) = entry_kind(entry.mode) {
                let mut path = dir.as_bytes().to_vec();
                if !path.is_empty() {
                    path.push(b'/');
                }
                path.extend_from_slice(entry.filename);
                out.push((RepoPath::new(path), Oid(entry.oid.to_owned()), kind));
            }
        }
        Ok(out)
    }

    /// Whether `branch` (a full ref name) was just created: its reflog holds
    /// exactly one entry, the one `git branch`, `git checkout -b` and
    /// `git switch -c` write (`branch: Created from …`). A branch with no
    /// reflog, or more entries, is not a new one; an unreadable reflog is an
    /// error.
    pub fn branch_just_created(&self, branch: &str) -> Result<bool, GitError> {
        let context = || format!("reading the reflog of {branch}");
        let Some(reference) = self
            .repo
            .try_find_reference(branch)
            .map_err(|err| GitError::gix(context(), &err))?
        else {
            return Ok(false);
        };
        let mut platform = reference.log_iter();
        let Some(lines) = platform
            .all()
            .map_err(|err| GitError::other(context(), err))?
        else {
            return Ok(false);
        };
        let mut first = None;
        for (n, line) in lines.enumerate() {
            let line = line.map_err(|err| GitError::other(context(), err))?;
            if n > 0 {
                return Ok(false);
            }
            first = Some(line.message.starts_with(b"branch: Created from"));
        }
        Ok(first == Some(true))
    }

    /// The full names and targets of the remote-tracking branches of `remote`
    /// (`refs/remotes/<remote>/*`).
    ///
    /// Targets are peeled (an annotated tag yields its commit). Symbolic refs
    /// (`refs/remotes/<remote>/HEAD`) are left out. Sorted by name.
    pub fn remote_branches(&self, remote: &str) -> Result<Vec<(String, Oid)>, GitError> {
        let context = format!("listing the branches of remote `{remote}`");
        if !is_remote_name(remote) {
            return Err(GitError::other(context, "not a valid remote name"));
        }
        self.refs_under(&format!("refs/remotes/{remote}/"), &context)
    }

    /// Every remote-tracking branch (`refs/remotes/*/*`, symbolic ones left
    /// out), peeled, sorted by name: what this clone knows the remotes hold.
    pub fn tracking_branches(&self) -> Result<Vec<(String, Oid)>, GitError> {
        self.refs_under("refs/remotes/", "listing the remote-tracking branches")
    }

    /// The names of the configured remotes (`remote.<name>.url`…).
    pub fn remote_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .repo
            .remote_names()
            .iter()
            .map(|n| n.to_string())
            .collect();
        names.sort();
        names
    }

    /// The direct refs under `prefix`, peeled to their objects' ids.
    fn refs_under(&self, prefix: &str, context: &str) -> Result<Vec<(String, Oid)>, GitError> {
        let platform = self
            .repo
            .references()
            .map_err(|err| GitError::gix(context, &err))?;
        let iter = platform
            .prefixed(prefix)
            .map_err(|err| GitError::gix(context, &err))?;
        let mut out = Vec::new();
        for reference in iter {
            let mut reference = reference.map_err(|err| GitError::gix(context, &err))?;
            if matches!(reference.target(), gix::refs::TargetRef::Symbolic(_)) {
                continue;
            }
            let name = reference.name().as_bstr().to_string();
            let id = reference
                .peel_to_id()
                .map_err(|err| GitError::gix(format!("peeling {name}"), &err))?;
            out.push((name, Oid(id.detach())));
        }
        out.sort();
        Ok(out)
    }

    /// The full names and targets of every local branch (`refs/heads/*`)
    /// and every remote-tracking branch (`refs/remotes/*/*`): the tips whose
    /// trees this clone can see.
    ///
    /// Targets are peeled; symbolic refs (`refs/remotes/<remote>/HEAD`) are
    /// left out. Sorted by name. A ref that cannot be read or peeled (its
    /// object missing) is an error, never left out.
    pub fn branch_tips(&self) -> Result<Vec<(String, Oid)>, GitError> {
        let context = "listing the local and remote-tracking branches";
        let mut out = self.refs_under("refs/heads/", context)?;
        out.extend(self.refs_under("refs/remotes/", context)?);
        out.sort();
        Ok(out)
    }

    /// The ref the symbolic ref `name` names (`refs/remotes/origin/HEAD` →
    /// `refs/remotes/origin/main`), whether or not that one exists; `None`
    /// when there is no ref `name`, or it names an object directly.
    pub fn symbolic_target(&self, name: &str) -> Result<Option<String>, GitError> {
        let reference = self
            .repo
            .try_find_reference(name)
            .map_err(|err| GitError::gix(format!("reading {name}"), &err))?;
        Ok(reference.and_then(|r| match r.target() {
            gix::refs::TargetRef::Symbolic(target) => Some(target.as_bstr().to_string()),
            gix::refs::TargetRef::Object(_) => None,
        }))
    }
}

/// Whether `name` can name a remote (git passes a URL as the remote's name
/// when a push names no configured remote).
/// A git boolean (`true`, `yes`, `on`, `1`; `false`, `no`, `off`, `0`,
/// any case), `None` for anything else.
pub fn config_bool(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" | "" => Some(false),
        _ => None,
    }
}

pub fn is_remote_name(name: &str) -> bool {
    !(name.is_empty()
        || name.contains(['*', '?', '[', '\\'])
        || name.split('/').any(|c| c.is_empty() || c == ".."))
}

/// Private helpers.
impl Repo {
    fn require_workdir(&self) -> Result<&Path, GitError> {
        self.workdir.as_deref().ok_or_else(|| GitError::NoWorkTree {
            path: self.git_dir.clone(),
        })
    }

    /// The object `id`, or [`GitError::MissingObject`].
    fn find_object(&self, id: gix::ObjectId) -> Result<gix::Object<'_>, GitError> {
        match self.try_find_object(id) {
            Ok(Some(object)) => Ok(object),
            Ok(None) => Err(GitError::MissingObject { id: id.to_string() }),
            Err(err) => Err(GitError::gix(format!("reading object {id}"), &err)),
        }
    }

    /// The object `id` if there is one, read as gix's `try_find_object`
    /// does: through [`packs::Packs`] once a walk or a diff has opened the
    /// packs (a merge's parents in a diff thread), else by gix.
    fn try_find_object(&self, id: gix::ObjectId) -> gix::Result<Option<gix::Object<'_>>> {
        // From gix's free list, where the object puts its buffer back when
        // dropped: a buffer not taken from there would grow the list by one
        // every read.
        let mut data = std::mem::take(&mut *self.repo.empty_reusable_buffer());
        let Some(found) = gix::objs::Find::try_find(&self.single(), &id, &mut data)? else {
            return Ok(None);
        };
        let kind = found.kind;
        Ok(Some(gix::Object {
            id,
            kind,
            data,
            repo: &self.repo,
        }))
    }

    /// The commit `id`: [`GitError::MissingObject`] when absent,
    /// [`GitError::NotACommit`] when it is something else.
    fn find_commit(&self, id: Oid) -> Result<gix::Commit<'_>, GitError> {
        let object = self.find_object(id.0)?;
        if object.kind != gix::objs::Kind::Commit {
            return Err(GitError::NotACommit {
                spec: id.to_hex(),
                kind: object.kind.to_string(),
            });
        }
        Ok(object.into_commit())
    }

    /// The id of commit `id`'s tree.
    fn commit_tree(&self, id: Oid) -> Result<gix::ObjectId, GitError> {
        Ok(self
            .find_commit(id)?
            .tree_id()
            .map_err(|err| GitError::gix(format!("decoding commit {id}"), &err))?
            .detach())
    }

    fn find_tree(
        &self,
        id: gix::ObjectId,
        what: impl FnOnce() -> String,
    ) -> Result<gix::Tree<'_>, GitError> {
        let object = self.find_object(id)?;
        if object.kind != gix::objs::Kind::Tree {
            return Err(GitError::other(
                what(),
                format_args!("object {id} is a {}, not a tree", object.kind),
            ));
        }
        Ok(object.into_tree())
    }

    fn missing_parent(&self, commit: Oid, parent: Oid) -> GitError {
        let shallow = self
            .shallow_commits()
            .is_ok_and(|boundary| boundary.contains(&commit));
        if shallow {
            GitError::ShallowBoundary {
                commit: commit.to_hex(),
                parent: parent.to_hex(),
            }
        } else {
            GitError::MissingObject {
                id: parent.to_hex(),
            }
        }
    }
}

/// The kind of an index entry; `None` for a sparse directory entry.
fn index_entry_kind(mode: gix::index::entry::Mode) -> Option<EntryKind> {
    entry_kind(mode.to_tree_entry_mode()?)
}

/// The kind of a tree entry; `None` for a tree (directory).
fn entry_kind(mode: gix::objs::tree::EntryMode) -> Option<EntryKind> {
    use gix::objs::tree::EntryKind as K;
    match mode.kind() {
        K::Tree => None,
        K::Blob => Some(EntryKind::File),
        K::BlobExecutable => Some(EntryKind::Executable),
        K::Link => Some(EntryKind::Symlink),
        K::Commit => Some(EntryKind::Gitlink),
    }
}

/// The [`ChangeKind`] of a path present on both sides.
fn modification_kind(old: EntryKind, new: EntryKind) -> ChangeKind {
    if old.is_type_change_to(new) {
        ChangeKind::TypeChanged
    } else {
        ChangeKind::Modified
    }
}

/// Rename tracking for [`Renames::Exact`]: identical content only, no copies.
///
/// Empty files take part, as in git (`--rename-empty` is git's default).
fn exact_rewrites() -> gix::diff::Rewrites {
    gix::diff::Rewrites {
        copies: None,
        percentage: None,
        limit: 0,
        track_empty: true,
    }
}

/// The text that names a walk in its errors.
fn walk_context(tips: &[Oid], hidden: &[Oid]) -> String {
    let mut range = String::from("walking");
    for id in tips {
        range.push_str(&format!(" {}", id.short()));
    }
    for id in hidden {
        range.push_str(&format!(" ^{}", id.short()));
    }
    range
}

/// A walk this long hands the memory it freed back when it ends
/// ([`Repo::walk_changes`]), past this many commits its queue lets their
/// messages go ([`Runs::add`]), and its diff threads are waited for once
/// their results are in ([`WalkedChanges::each`]), so that its caller can
/// hand back what they freed (a shorter walk's end on their own).
pub(crate) const LONG_WALK: usize = 4096;

/// How many consecutive commits one thread diffs at a time.
const RUN: usize = 128;

/// How long a range's first runs are, one a diff thread: the threads start
/// once these are cut (a range shorter than all of them is diffed on the
/// calling thread), so they start after 64 commits of the walk instead of
/// 256. moby's 1k range with a commit-graph: 0.3 ms less wall (31 runs);
/// its 232-commit range, which had no threads, 16.3 -> 13.8 ms (git 21.3)
/// for 2.6 ms more CPU (git 20.9). Runs of 16 started the threads for a
/// 51-commit range too, for 1.2 ms more CPU, near git's whole run
/// (decision 0042).
const FIRST_RUN: usize = 32;

/// How many runs' results a diff thread keeps waiting to be taken before it
/// waits itself.
const RESULTS_AHEAD: usize = 4;

/// How many diff threads a long range has.
const DIFF_THREADS: usize = 2;

/// The shortest run the end of a range is cut into ([`tail_runs`]).
const TAIL_RUN: usize = 16;

type RunResults = Vec<(gix::ObjectId, Result<CommitChanges, GitError>)>;

/// What a diff thread hands back: a run's results with its number, or
/// the numbers of the runs it held when it stopped (a panic).
enum Done {
    Run(usize, RunResults),
    Lost(Vec<usize>),
}

/// The runs waiting for a diff thread, numbered in walk order and taken
/// by whichever thread is free first. Runs went to the two threads in
/// turn before: a range's last runs left one thread idle while the other
/// finished (moby's 1k range with a commit-graph: 3.3 ms of 26 with one
/// core idle, `perf sched`), and a run of costly merges held the thread
/// that had it while the other waited to hand on its results in order.
struct Jobs {
    state: std::sync::Mutex<JobsState>,
    changed: std::sync::Condvar,
}

#[derive(Default)]
struct JobsState {
    runs: std::collections::VecDeque<Vec<Queued>>,
    /// The number of the first run in `runs`.
    first: usize,
    /// How many runs' results were taken, in order: a run may be taken
    /// only while fewer than [`Jobs::ahead`] runs past these are out,
    /// so results waiting to be taken stay few whatever the range.
    taken: usize,
    /// No run comes after those queued.
    closed: bool,
    stopped: bool,
}

/// What a diff thread asking for a run gets.
enum Take {
    Run(usize, Vec<Queued>),
    /// None may be taken now ([`Jobs::take`] asked not to wait for it).
    NotNow,
    End,
}

impl Jobs {
    fn lock(&self) -> std::sync::MutexGuard<'_, JobsState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How many runs past those taken may be out: while the landing is
    /// not put the threads set runs aside (up to [`ASIDE_MAX`] each),
    /// after that each keeps [`RESULTS_AHEAD`] results and one run.
    fn ahead(landing_put: bool) -> usize {
        match landing_put {
            false => DIFF_THREADS * ASIDE_MAX,
            true => DIFF_THREADS * (RESULTS_AHEAD + 1),
        }
    }

    /// The next run. A thread that holds runs set aside asks with
    /// `wait_ahead` false: when the run it may not take yet is past the
    /// results taken, it must finish those it holds first (the caller
    /// may be waiting for one), and it is told [`Take::NotNow`].
    fn take(&self, landing_put: bool, wait_ahead: bool) -> Take {
        let mut state = self.lock();
        loop {
            if state.stopped {
                return Take::End;
            }
            if !state.runs.is_empty() {
                if state.first < state.taken + Jobs::ahead(landing_put) {
                    let run = state.runs.pop_front().expect("not empty");
                    state.first += 1;
                    return Take::Run(state.first - 1, run);
                }
                if !wait_ahead {
                    return Take::NotNow;
                }
            } else if state.closed {
                return Take::End;
            }
            state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }

    fn change(&self, change: impl FnOnce(&mut JobsState)) {
        change(&mut self.lock());
        self.changed.notify_all();
    }
}

/// The sizes the last `len` commits of a range are cut into once its
/// walk has ended and it is known how many are left: each run a quarter
/// of what is left (between [`TAIL_RUN`] and [`RUN`] commits), so the
/// two threads end together, give or take a short run.
fn tail_runs(len: usize) -> Vec<usize> {
    let mut sizes = Vec::new();
    let mut left = len;
    while left > 0 {
        let size = (left / (2 * DIFF_THREADS)).clamp(TAIL_RUN, RUN).min(left);
        sizes.push(size);
        left -= size;
    }
    sizes
}

/// A diff thread's runs not handed back yet: when it stops unwinding
/// (a panic), the caller is told which, and says so for each commit.
struct Held {
    runs: Vec<usize>,
    done: std::sync::mpsc::Sender<Done>,
}

impl Drop for Held {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let _ = self.done.send(Done::Lost(std::mem::take(&mut self.runs)));
        }
    }
}

/// The diff threads: one queue of runs that each takes from, and one of
/// results that the caller puts back in walk order.
struct Workers {
    jobs: std::sync::Arc<Jobs>,
    results: std::sync::mpsc::Receiver<Done>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Whether a thread may still set runs aside ([`Aside`]).
    early: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// A reader sharing the threads' delta-base cache.
    packs: Box<packs::Packs>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

/// A run's results at their places, and the merges left to diff, each at
/// its place: those whose own changes need the landing, when the run was
/// diffed before the landing was put (set aside). Without a commit-graph the walk reads every commit from
/// the packs on the main thread while both diff threads waited at a run's
/// first merge: git/git's cold 1k range spent 90 ms of each thread's 150
/// waiting (`perf sched`).
struct Aside {
    results: Vec<Option<(gix::ObjectId, Result<CommitChanges, GitError>)>>,
    merges: Vec<(usize, walk::Walked)>,
}

/// Most runs a diff thread sets aside while it waits for the landing:
/// their results wait with it (2,048 commits' changes and messages).
const ASIDE_MAX: usize = 16;

/// How many commits a walk hands on before the diff threads stop setting
/// runs aside. A range longer than that (a whole history) would otherwise
/// hold the threads' delta-base cache and the packs' pages while the walk
/// goes on holding its own record of every commit: at that point the
/// cache is emptied and the pages let go, and the walk's record grows
/// alone, as it did before runs were set aside (git/git's whole history:
/// a peak of 100-102 MiB with the cache kept, 94-96 without it and as
/// before).
const EARLY_WALK: usize = 4 * LONG_WALK;

/// [`EARLY_WALK`], or in a debug build `GATE_TEST_EARLY_WALK`: the tests'
/// way to cross it on a short history.
fn early_walk() -> usize {
    #[cfg(debug_assertions)]
    if let Some(n) = std::env::var("GATE_TEST_EARLY_WALK")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        return n;
    }
    EARLY_WALK
}

/// `GATE_TEST_SLOW_LANDING` before the landing is put: the tests' way to
/// make the diff threads set runs aside.
fn slow_landing() {
    test_delay("GATE_TEST_SLOW_LANDING");
}

/// `GATE_TEST_SLOW_EVEN_RUNS` before a diff thread diffs a run whose
/// number is even: the tests' way to make the threads take runs out of
/// turn and hand their results back out of order.
fn slow_even_run(n: usize) {
    if n.is_multiple_of(2) {
        test_delay("GATE_TEST_SLOW_EVEN_RUNS");
    }
}

/// How many runs' results came back before a run ahead of them.
static RESULTS_OUT_OF_TURN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many runs' results the diff threads of this process handed back
/// before those of a run ahead of them ([`Jobs`]), for tests that need to
/// know it happened.
#[doc(hidden)]
pub fn results_out_of_turn() -> usize {
    RESULTS_OUT_OF_TURN.load(std::sync::atomic::Ordering::Relaxed)
}

/// How many times this process started a walk's diff threads.
static DIFF_THREADS_STARTED: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

/// How many times this process started a walk's diff threads
/// ([`FIRST_RUN`]), for tests that need to know a range was diffed by
/// them, not on the calling thread.
#[doc(hidden)]
pub fn diff_threads_started() -> usize {
    DIFF_THREADS_STARTED.load(std::sync::atomic::Ordering::Relaxed)
}

/// How many runs the diff threads of this process set aside
/// ([`Aside`]).
static RUNS_SET_ASIDE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many runs the diff threads of this process have set aside while
/// they waited for a landing, for tests that need to know it happened.
#[doc(hidden)]
pub fn runs_set_aside() -> usize {
    RUNS_SET_ASIDE.load(std::sync::atomic::Ordering::Relaxed)
}

/// A commit waiting for its diff: as the walk handed it on, or only its
/// id, read again by the diff thread ([`Repo::walked_again`]).
enum Queued {
    Whole(Box<walk::Walked>),
    Again(gix::ObjectId),
}

/// The runs of a walk being cut and handed to the diff threads.
struct Runs<'r> {
    repo: &'r gix::Repository,
    /// The packs the diff threads read (each a sibling: mapped once).
    packs: &'r RefCell<packs::Packs>,
    renames: Renames,
    merges: MergeChanges,
    /// The landing the threads wait for at a merge.
    landing: Option<std::sync::Arc<landing::Shared>>,
    /// The commits read from the objects, for every search.
    heads: Option<std::sync::Arc<bases::Heads>>,
    run: Vec<Queued>,
    /// The place in the walk of each commit of `run`.
    run_at: Vec<u32>,
    /// Runs held until there are enough to start the threads, with their
    /// commits' places.
    waiting: Vec<(Vec<Queued>, Vec<u32>)>,
    workers: Option<Workers>,
    /// The places of the commits of each run sent, in order: the results
    /// come back in that order.
    sent: Vec<Vec<u32>>,
    /// How many commits were added.
    added: usize,
}

impl Runs<'_> {
    fn add(&mut self, commit: walk::Walked, at: u32) {
        // A range's queue can hold the whole range (the threads wait for
        // the walk's end at a merge whose bases it gives). Past the first
        // LONG_WALK, it keeps only the commit's id and the diff thread
        // reads the commit again (it read the message again already: each
        // commit read from a graph has none, and git/git's are 42 MB):
        // 176 bytes a commit held were 13 MB of the whole git/git
        // history's peak. A shallow boundary, whose parents are not read,
        // is kept whole.
        self.added += 1;
        // Past EARLY_WALK the threads set no more runs aside, and what the
        // ones set aside filled (the shared delta-base cache, the packs'
        // pages) is let go while the walk's own record grows.
        if self.added == early_walk()
            && let Some(workers) = &self.workers
        {
            workers
                .early
                .store(false, std::sync::atomic::Ordering::Relaxed);
            workers.packs.clear_cache();
            self.packs.borrow().let_pages_go();
            crate::platform::return_freed_memory();
        }
        let queued = if self.added > LONG_WALK && commit.parent_trees.len() == commit.parents.len()
        {
            Queued::Again(commit.id)
        } else {
            Queued::Whole(Box::new(commit))
        };
        self.run.push(queued);
        self.run_at.push(at);
        let length = match self.workers {
            None => FIRST_RUN,
            Some(_) => RUN,
        };
        if self.run.len() < length {
            return;
        }
        let run = std::mem::take(&mut self.run);
        let run_at = std::mem::take(&mut self.run_at);
        if self.workers.is_none() {
            self.waiting.push((run, run_at));
            if self.waiting.len() < DIFF_THREADS {
                return;
            }
            self.workers = Some(self.start());
            for (run, run_at) in std::mem::take(&mut self.waiting) {
                self.send(run, run_at);
            }
            return;
        }
        self.send(run, run_at);
    }

    fn start(&self) -> Workers {
        DIFF_THREADS_STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let early = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(
            self.added < early_walk(),
        ));
        let siblings = self.packs.borrow().siblings_sharing_cache(DIFF_THREADS);
        let jobs = std::sync::Arc::new(Jobs {
            state: std::sync::Mutex::new(JobsState::default()),
            changed: std::sync::Condvar::new(),
        });
        let (done_tx, done_rx) = std::sync::mpsc::channel::<Done>();
        let mut workers = Workers {
            jobs: jobs.clone(),
            results: done_rx,
            stop: stop.clone(),
            early: early.clone(),
            packs: Box::new(siblings[0].sibling_sharing_cache()),
            threads: Vec::new(),
        };
        // One mapping of the commit-graph for both threads' searches, and
        // one record of the commits they and the walk read.
        let share = bases::GraphShare::open(self.repo).with_heads(self.heads.clone());
        // One delta-base cache for both threads, the size of two: they
        // diff neighbouring runs, whose trees lie on the same chains.
        for packs in siblings {
            // Results wait until they are taken, at most Jobs::ahead runs
            // past those taken: memory stays flat in the range's length
            // (the walk's queue holds commits to diff, not their changes).
            let mut clone = self.repo.clone();
            set_diff_thread_caches(&mut clone);
            let (renames, merges, stop) = (self.renames, self.merges, stop.clone());
            let early = early.clone();
            let landing = self.landing.clone();
            let share = share.clone();
            let jobs = jobs.clone();
            let done = done_tx.clone();
            workers.threads.push(std::thread::spawn(move || {
                crate::platform::make_room_in_thread_arena(DIFF_THREAD_ARENA);
                let repo = Repo::with_packs(clone, packs);
                // One reader for every merge base this thread looks for.
                let mut graph = repo.dated_bases_sharing(share);
                let mut held = Held {
                    runs: Vec::new(),
                    done,
                };
                // A run's merges wait for the landing, which is put once
                // the walk ends: until then the thread diffs the other
                // commits of the runs it takes and sets them aside (up to
                // ASIDE_MAX, and while the walk is shorter than
                // EARLY_WALK), instead of waiting at the first merge with
                // a core idle.
                let mut aside: Vec<(usize, Aside)> = Vec::new();
                loop {
                    if stop.load(std::sync::atomic::Ordering::Relaxed) {
                        return;
                    }
                    let put = landing.as_deref().is_none_or(|shared| shared.is_put());
                    let taken = jobs.take(put, aside.is_empty());
                    let leave_merges = matches!(taken, Take::Run(..))
                        && aside.len() < ASIDE_MAX
                        && early.load(std::sync::atomic::Ordering::Relaxed)
                        && !put;
                    if let Take::Run(n, run) = taken {
                        held.runs.push(n);
                        slow_even_run(n);
                        aside.push((
                            n,
                            repo.diff_run_part(
                                run,
                                renames,
                                merges,
                                &mut graph,
                                landing.as_deref(),
                                leave_merges,
                            ),
                        ));
                    } else if let Take::End = taken
                        && aside.is_empty()
                    {
                        return;
                    }
                    if leave_merges {
                        continue;
                    }
                    for (n, set) in aside.drain(..) {
                        if stop.load(std::sync::atomic::Ordering::Relaxed) {
                            return;
                        }
                        let results =
                            repo.finish_run(set, renames, merges, &mut graph, landing.as_deref());
                        if held.done.send(Done::Run(n, results)).is_err() {
                            return;
                        }
                        held.runs.retain(|&held| held != n);
                    }
                }
            }));
        }
        workers
    }

    fn send(&mut self, run: Vec<Queued>, run_at: Vec<u32>) {
        let workers = self.workers.as_ref().expect("started");
        self.sent.push(run_at);
        workers.jobs.change(|state| state.runs.push_back(run));
    }

    /// Hand on the last run; what is left to take.
    fn finish(mut self) -> Pending {
        let last = std::mem::take(&mut self.run);
        let last_at = std::mem::take(&mut self.run_at);
        match self.workers.take() {
            Some(workers) => {
                // The runs no thread has taken yet and the last one are
                // cut again, shorter towards the end ([`tail_runs`]).
                let mut sent = self.sent;
                workers.jobs.change(|state| {
                    let first = state.first;
                    let mut commits: Vec<Queued> = state.runs.drain(..).flatten().collect();
                    let mut places: Vec<u32> = sent.drain(first..).flatten().collect();
                    commits.extend(last);
                    places.extend(last_at);
                    let mut commits = commits.into_iter();
                    let mut places = places.into_iter();
                    for size in tail_runs(commits.len()) {
                        state.runs.push_back(commits.by_ref().take(size).collect());
                        sent.push(places.by_ref().take(size).collect());
                    }
                    state.closed = true;
                });
                Pending::Threads {
                    workers,
                    runs: sent,
                }
            }
            None => {
                let mut runs = self.waiting;
                if !last.is_empty() {
                    runs.push((last, last_at));
                }
                Pending::Here(runs, self.heads)
            }
        }
    }
}

/// The diffs of a walk not taken yet.
enum Pending {
    /// Runs to diff on the calling thread, with their commits' places in
    /// the walk, and the commits the walk read.
    Here(
        Vec<(Vec<Queued>, Vec<u32>)>,
        Option<std::sync::Arc<bases::Heads>>,
    ),
    /// Runs sent to the threads, in turn.
    Threads {
        workers: Workers,
        /// The places in the walk of the commits of each run sent, in
        /// order.
        runs: Vec<Vec<u32>>,
    },
}

impl Workers {
    /// Let the threads end on their own, not waited for when the workers
    /// go (they are told to stop, as always).
    fn let_threads_end(&mut self) {
        self.threads.clear();
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.jobs.change(|state| state.stopped = true);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// A merge and its merge bases.
pub type MergeBases = (Oid, Vec<Oid>);

/// A walked range ([`Repo::walk_changes`]) whose diffs may still be running.
pub struct WalkedChanges<'r> {
    /// Shared with the caller ([`commits`](Self::commits)), not copied.
    commits: std::sync::Arc<[Oid]>,
    /// Whether each commit is a parent of another of the range.
    parented: Vec<bool>,
    /// The parents of the range's commits that are not in it.
    outside: HashSet<gix::ObjectId>,
    /// Each place in the walk's place in the range (`u32::MAX`: dropped),
    /// when the walk dropped a commit; `None` when they are the same.
    moved: Option<Vec<u32>>,
    dropped: HashSet<gix::ObjectId>,
    pending: Pending,
    repo: &'r Repo,
    renames: Renames,
    merges: MergeChanges,
    landing: Option<std::sync::Arc<landing::Shared>>,
    /// The commits read from the objects, kept in the commit cache once
    /// every diff is taken.
    heads: Option<std::sync::Arc<bases::Heads>>,
}

impl WalkedChanges<'_> {
    /// The merge bases of each merge the walk's landing answers for
    /// (src/git/landing.rs: two-parent merges on the first tip's
    /// first-parent line and those off it the range tells, as the diff
    /// threads take them), in walk order;
    /// `None` without a landing. For tests of the landing against git.
    #[doc(hidden)]
    pub fn landing_merge_bases(&self) -> Result<Option<Vec<MergeBases>>, GitError> {
        let Some(landing) = self.landing.as_ref().and_then(|shared| shared.get()) else {
            return Ok(None);
        };
        let mut graph = self.repo.bases();
        let mut out = Vec::new();
        for &id in self.commits.iter() {
            if landing.candidates(&id.0).is_none() {
                continue;
            }
            let parents = self.repo.commit(id)?.parents;
            let [first, second] = parents[..] else {
                continue;
            };
            if let Some(bases) = Repo::landed_bases(&landing, id, (second.0, first.0), &mut graph)?
            {
                out.push((id, bases.into_iter().map(Oid).collect()));
            }
        }
        Ok(Some(out))
    }

    /// The merge bases of `one` and `others` as a diff thread searches
    /// them, ordered by the range's levels (src/git/landing.rs,
    /// `Levels`): `None` where the walk has none. For tests of the search
    /// against git.
    #[doc(hidden)]
    pub fn merge_bases_by_levels(
        &self,
        one: Oid,
        others: &[Oid],
    ) -> Result<Option<Vec<Oid>>, GitError> {
        let Some(landing) = self.landing.as_ref().and_then(|shared| shared.get()) else {
            return Ok(None);
        };
        let Some(levels) = landing.levels() else {
            return Ok(None);
        };
        let mut graph = self.repo.bases();
        graph.with_levels(levels);
        let others: Vec<gix::ObjectId> = others.iter().map(|o| o.0).collect();
        let bases = graph.merge_bases(one.0, &others, &|| "the test".to_owned())?;
        Ok(Some(bases.into_iter().map(Oid).collect()))
    }

    /// Of the merges the landing answers for, how many have several
    /// candidates, and how many of those the range leaves to a walk below
    /// it (src/git/landing.rs, `Several`). For tests of the landing.
    #[doc(hidden)]
    pub fn landing_several(&self) -> Option<(usize, usize)> {
        let landing = self.landing.as_ref().and_then(|shared| shared.get())?;
        let mut counts = (0, 0);
        for id in self.commits.iter() {
            if let Some(several) = landing.several(&id.0) {
                counts.0 += 1;
                counts.1 += usize::from(!several.unsettled.is_empty());
            }
        }
        Some(counts)
    }

    /// Of the merges off the line whose candidates hold if their first
    /// parent reaches commits below the range (src/git/landing.rs,
    /// `Asked`), how many there are and how many a walk below the range
    /// finds it does. For tests of the landing.
    #[doc(hidden)]
    pub fn landing_asked(&self) -> Result<Option<(usize, usize)>, GitError> {
        let Some(landing) = self.landing.as_ref().and_then(|shared| shared.get()) else {
            return Ok(None);
        };
        let mut graph = self.repo.bases();
        let mut counts = (0, 0);
        for id in self.commits.iter() {
            if let Some(asked) = landing.asked(&id.0) {
                counts.0 += 1;
                let reached =
                    graph.reaches_all(&asked.targets, &asked.from, SETTLE_BUDGET, &|| {
                        format!("asking below the range for merge {id}")
                    })?;
                counts.1 += usize::from(reached == Some(true));
            }
        }
        Ok(Some(counts))
    }

    /// Every commit of the range, in walk order (newest first), shared.
    pub fn commits(&self) -> std::sync::Arc<[Oid]> {
        self.commits.clone()
    }

    /// Whether `base` is one of the tips or a parent of a walked commit:
    /// with `base` the hidden commit, whether it is an ancestor of the tip
    /// ([`Repo::walk_from_base`]). Asked once a range: found by a scan of
    /// the range, which keeps no index of its commits.
    pub fn reaches(&self, base: Oid) -> bool {
        match self.commits.iter().position(|id| *id == base) {
            Some(at) => self.parented[at],
            None => self.outside.contains(&base.0),
        }
    }

    /// Each diffed commit's header and changes, handed to `each` in walk
    /// order with its index in [`commits`](Self::commits).
    pub fn each(self, mut each: impl FnMut(usize, Oid, Result<CommitChanges, GitError>)) {
        let WalkedChanges {
            commits,
            moved,
            dropped,
            pending,
            repo,
            renames,
            merges,
            landing,
            heads,
            ..
        } = self;
        // A place in the walk's place in the range; `None` for a commit
        // dropped from it.
        let place = |at: u32| match &moved {
            None => Some(at as usize),
            Some(moved) => moved
                .get(at as usize)
                .filter(|&&to| to != u32::MAX)
                .map(|&to| to as usize),
        };
        // Each result in the order of its run's places.
        let mut hand = |results: RunResults, places: Vec<u32>| {
            debug_assert_eq!(results.len(), places.len());
            for ((id, result), at) in results.into_iter().zip(places) {
                if dropped.contains(&id) {
                    continue;
                }
                if let Some(index) = place(at) {
                    each(index, Oid(id), result);
                }
            }
        };
        match pending {
            Pending::Here(runs, heads) => {
                let mut graph = repo.bases().with_heads(heads);
                for (run, places) in runs {
                    let results =
                        repo.diff_run(run, renames, merges, &mut graph, landing.as_deref());
                    hand(results, places);
                }
            }
            Pending::Threads { mut workers, runs } => {
                // Results come back in the order the threads finish
                // their runs; those ahead of the next wait here.
                let mut ahead: HashMap<usize, RunResults> = HashMap::new();
                let mut lost: HashSet<usize> = HashSet::new();
                for (n, places) in runs.into_iter().enumerate() {
                    let results = loop {
                        if let Some(results) = ahead.remove(&n) {
                            break Some(results);
                        }
                        if lost.contains(&n) {
                            break None;
                        }
                        match workers.results.recv() {
                            Ok(Done::Run(at, results)) => {
                                if at != n {
                                    RESULTS_OUT_OF_TURN
                                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                }
                                ahead.insert(at, results);
                            }
                            Ok(Done::Lost(runs)) => lost.extend(runs),
                            // Every thread has stopped.
                            Err(_) => break None,
                        }
                    };
                    workers.jobs.change(|state| state.taken = n + 1);
                    match results {
                        Some(results) => hand(results, places),
                        // The thread died: say so for each commit it owed.
                        None => {
                            let results = places
                                .iter()
                                .filter_map(|&at| place(at).map(|index| commits[index].0))
                                .map(|id| {
                                    let error = GitError::other(
                                        format!("reading commit {id}"),
                                        "the worker thread stopped",
                                    );
                                    (id, Err(error))
                                })
                                .collect::<RunResults>();
                            let places = places
                                .into_iter()
                                .filter(|&at| place(at).is_some())
                                .collect();
                            hand(results, places);
                        }
                    }
                }
                // Every result is in: the threads only end now (their
                // handles, caches and stacks go: 0.4 ms on moby's 1k
                // range), beside what the caller does next. A long
                // range's are waited for: its caller hands their freed
                // memory back once they have ended.
                if commits.len() < LONG_WALK {
                    workers.let_threads_end();
                }
            }
        }
        // What the walk and the searches read, kept for the next run (a
        // failed write costs only reading it again).
        if let Some(heads) = heads {
            repo.commits_read.set(heads.read_from_objects());
            repo.save_beside(heads);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_hex_accepts_only_full_ids() {
        let hex = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(
            Oid::from_hex(hex).map(|id| id.to_hex()),
            Some(hex.to_owned())
        );
        assert_eq!(
            Oid::from_hex(&hex.to_uppercase()).map(|id| id.to_hex()),
            Some(hex.to_owned())
        );
        assert!(Oid::from_hex(&hex[..39]).is_none());
        assert!(Oid::from_hex(&format!("{hex}0")).is_none());
        assert!(Oid::from_hex("").is_none());
        assert!(Oid::from_hex("0123456789abcdef0123456789abcdef0123456g").is_none());
        assert!(Oid::from_hex("é123456789abcdef0123456789abcdef0123456").is_none());
        // 64 digits only parse when the build supports SHA-256 (it does not).
        assert!(Oid::from_hex(&"ab".repeat(32)).is_none());
    }

    #[test]
    fn a_range_s_tail_is_cut_shorter_towards_its_end() {
        assert_eq!(tail_runs(0), Vec::<usize>::new());
        assert_eq!(tail_runs(10), vec![10]);
        assert_eq!(tail_runs(104), vec![26, 19, 16, 16, 16, 11]);
        assert_eq!(tail_runs(600)[..3], [128, 118, 88]);
        for len in 0..3000 {
            let sizes = tail_runs(len);
            assert_eq!(sizes.iter().sum::<usize>(), len, "{len}");
            assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{len}: {sizes:?}");
            assert!(sizes.iter().all(|&s| (1..=RUN).contains(&s)), "{len}");
            let (last, rest) = sizes.split_last().unwrap_or((&0, &[]));
            assert!(rest.iter().all(|&s| s >= TAIL_RUN) && *last <= TAIL_RUN.max(len));
        }
    }

    fn jobs_of(runs: usize) -> Jobs {
        let jobs = Jobs {
            state: std::sync::Mutex::new(JobsState::default()),
            changed: std::sync::Condvar::new(),
        };
        let id = gix::ObjectId::null(gix::hash::Kind::Sha1);
        jobs.change(|state| {
            state.runs = (0..runs).map(|_| vec![Queued::Again(id)]).collect();
        });
        jobs
    }

    fn number(take: Take) -> Option<usize> {
        match take {
            Take::Run(n, _) => Some(n),
            _ => None,
        }
    }

    #[test]
    fn runs_are_taken_in_order_and_never_too_far_past_the_results_taken() {
        let ahead = Jobs::ahead(true);
        let jobs = jobs_of(ahead + 3);
        for n in 0..ahead {
            assert_eq!(number(jobs.take(true, true)), Some(n));
        }
        // A thread holding runs set aside is told to finish them first.
        assert!(matches!(jobs.take(true, false), Take::NotNow));
        // While the landing is not put, threads may set more runs aside.
        assert_eq!(number(jobs.take(false, false)), Some(ahead));
        // Once results are taken, the next runs may go.
        jobs.change(|state| state.taken = 2);
        assert_eq!(number(jobs.take(true, true)), Some(ahead + 1));
        assert!(matches!(jobs.take(true, false), Take::NotNow));
        // Closed, the queue ends once empty; stopped, at once.
        jobs.change(|state| {
            state.closed = true;
            state.taken = ahead + 3;
        });
        assert_eq!(number(jobs.take(true, true)), Some(ahead + 2));
        assert!(matches!(jobs.take(true, true), Take::End));
        let jobs = jobs_of(3);
        jobs.change(|state| state.stopped = true);
        assert!(matches!(jobs.take(true, true), Take::End));
    }

    #[test]
    fn a_thread_waiting_for_a_run_takes_it_once_results_are_taken() {
        let ahead = Jobs::ahead(true);
        let jobs = jobs_of(ahead + 1);
        for _ in 0..ahead {
            jobs.take(true, true);
        }
        std::thread::scope(|scope| {
            let waiting = scope.spawn(|| number(jobs.take(true, true)));
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert!(!waiting.is_finished(), "took a run too far ahead");
            jobs.change(|state| state.taken = 1);
            assert_eq!(waiting.join().ok().flatten(), Some(ahead));
        });
        // And one waiting for a run at all, once the queue is closed.
        let jobs = jobs_of(0);
        std::thread::scope(|scope| {
            let waiting = scope.spawn(|| matches!(jobs.take(true, true), Take::End));
            std::thread::sleep(std::time::Duration::from_millis(20));
            jobs.change(|state| state.closed = true);
            assert_eq!(waiting.join().ok(), Some(true));
        });
    }

    #[test]
    fn null_id() {
        let id = Oid::from_hex(&"0".repeat(40)).expect("valid");
        assert!(id.is_null());
        assert_eq!(id.short(), "000000000000");
    }

    #[test]
    fn a_repo_can_move_to_another_thread() {
        fn assert_send<T: Send>() {}
        assert_send::<Repo>();
        assert_send::<GitError>();
    }

    #[test]
    fn type_changes_and_modifications() {
        use EntryKind::*;
        assert_eq!(modification_kind(File, Executable), ChangeKind::Modified);
        assert_eq!(modification_kind(File, Symlink), ChangeKind::TypeChanged);
        assert_eq!(
            modification_kind(Gitlink, Executable),
            ChangeKind::TypeChanged
        );
        assert_eq!(modification_kind(Symlink, Symlink), ChangeKind::Modified);
    }

    #[test]
    fn entry_modes_map_to_kinds() {
        use gix::objs::tree::EntryKind as K;
        assert_eq!(entry_kind(K::Blob.into()), Some(EntryKind::File));
        assert_eq!(
            entry_kind(K::BlobExecutable.into()),
            Some(EntryKind::Executable)
        );
        assert_eq!(entry_kind(K::Link.into()), Some(EntryKind::Symlink));
        assert_eq!(entry_kind(K::Commit.into()), Some(EntryKind::Gitlink));
        assert_eq!(entry_kind(K::Tree.into()), None);
    }
}
