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

use std::fmt;
use std::path::{Path, PathBuf};

use crate::path::RepoPath;

/// A git object id (SHA-1 today; the type does not assume a length).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Oid(gix::ObjectId);

impl Oid {
    /// Parse a full hexadecimal object id (40 hex digits for SHA-1, 64 for SHA-256).
    pub fn from_hex(hex: &str) -> Option<Oid> {
        unimplemented!("git layer: {hex}")
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
    /// Every path this change touches: both sides of a rename.
    pub fn paths(&self) -> impl Iterator<Item = &RepoPath> {
        self.from.iter().chain(std::iter::once(&self.path))
    }
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
    #[error("unknown revision `{spec}`")]
    UnknownRevision { spec: String },
    #[error("`{spec}` names a {kind}, not a commit")]
    NotACommit { spec: String, kind: String },
    #[error("object {id} is missing from the repository")]
    MissingObject { id: String },
    #[error("{context}: {message}")]
    Other { context: String, message: String },
}

impl GitError {
    pub(crate) fn other(context: impl Into<String>, err: impl fmt::Display) -> GitError {
        GitError::Other { context: context.into(), message: err.to_string() }
    }
}

/// An open repository.
pub struct Repo {
    repo: gix::Repository,
}

impl Repo {
    /// Find the repository containing `start`, as git would: walking up from
    /// any subdirectory, honouring `GIT_DIR`, `GIT_WORK_TREE` and
    /// `GIT_INDEX_FILE`, and following linked worktrees.
    pub fn discover(start: &Path) -> Result<Repo, GitError> {
        unimplemented!("git layer: {}", start.display())
    }

    /// The root of the work tree, `None` for a bare repository.
    pub fn workdir(&self) -> Option<&Path> {
        unimplemented!("git layer")
    }

    /// The per-worktree git directory (`.git`, or `.git/worktrees/<name>`), canonical.
    pub fn git_dir(&self) -> PathBuf {
        unimplemented!("git layer")
    }

    /// The directory shared by all worktrees, canonical.
    pub fn common_dir(&self) -> PathBuf {
        unimplemented!("git layer")
    }

    /// The hooks directory git really uses: `core.hooksPath` (relative values
    /// against the work tree root, `~/` expanded), else `<common-dir>/hooks`.
    pub fn hooks_dir(&self) -> Result<PathBuf, GitError> {
        unimplemented!("git layer")
    }

    /// A configuration value as a string (`user.name`), `None` when unset.
    pub fn config_string(&self, key: &str) -> Option<String> {
        unimplemented!("git layer: {key}")
    }

    pub fn head(&self) -> Result<Head, GitError> {
        unimplemented!("git layer")
    }

    /// Resolve a revision (`HEAD`, a branch, a full or abbreviated id,
    /// `main~2`) to a commit id, peeling tags.
    pub fn resolve_commit(&self, spec: &str) -> Result<Oid, GitError> {
        unimplemented!("git layer: {spec}")
    }

    /// Whether the object exists in the object database.
    pub fn has_object(&self, id: Oid) -> bool {
        unimplemented!("git layer: {id}")
    }

    /// Whether `ancestor` is `descendant` or one of its ancestors.
    pub fn is_ancestor(&self, ancestor: Oid, descendant: Oid) -> Result<bool, GitError> {
        unimplemented!("git layer: {ancestor} {descendant}")
    }

    /// Whether the repository is a shallow clone.
    pub fn is_shallow(&self) -> bool {
        unimplemented!("git layer")
    }

    /// The shallow boundary commits (whose parents are absent), empty when not shallow.
    pub fn shallow_commits(&self) -> Result<Vec<Oid>, GitError> {
        unimplemented!("git layer")
    }

    pub fn commit(&self, id: Oid) -> Result<CommitInfo, GitError> {
        unimplemented!("git layer: {id}")
    }

    /// Every commit reachable from `tips` and not from `hidden`, following all
    /// parents, newest first (`git rev-list tips ^hidden`).
    pub fn walk(&self, tips: &[Oid], hidden: &[Oid]) -> Result<Vec<Oid>, GitError> {
        unimplemented!("git layer: {tips:?} {hidden:?}")
    }

    /// The changes of commit `id` against each of its parents, in parent
    /// order; a root commit yields one diff against the empty tree. Every
    /// file-level path, no filter.
    pub fn changes(&self, id: Oid, renames: Renames) -> Result<Vec<ParentDiff>, GitError> {
        unimplemented!("git layer: {id} {renames:?}")
    }

    /// Staged changes: the index against HEAD's tree (the empty tree when
    /// HEAD is unborn).
    pub fn staged_changes(&self, renames: Renames) -> Result<Vec<Change>, GitError> {
        unimplemented!("git layer: {renames:?}")
    }

    /// The worktree against the index, plus untracked files (and ignored ones
    /// when `ignored` is true).
    pub fn worktree_status(&self, ignored: bool) -> Result<Vec<StatusEntry>, GitError> {
        unimplemented!("git layer: {ignored}")
    }

    /// The bytes of a blob.
    pub fn read_blob(&self, id: Oid) -> Result<Vec<u8>, GitError> {
        unimplemented!("git layer: {id}")
    }

    /// The entry at `path` in commit `commit`'s tree, `None` when absent.
    pub fn entry_at(&self, commit: Oid, path: &RepoPath) -> Result<Option<(Oid, EntryKind)>, GitError> {
        unimplemented!("git layer: {commit} {path}")
    }

    /// The full names and targets of the remote-tracking branches of `remote`
    /// (`refs/remotes/<remote>/*`).
    pub fn remote_branches(&self, remote: &str) -> Result<Vec<(String, Oid)>, GitError> {
        unimplemented!("git layer: {remote}")
    }
}
