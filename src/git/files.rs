//! Which files git knows under given paths: index entries at or under
//! prefixes, and untracked, non-ignored files under directories.
//!
//! These answer "what does a directory hold, by git's rules" for the source
//! fingerprint: tracked files come from the index (as `git ls-files --stage`),
//! untracked ones from a directory walk restricted to the directories asked
//! about (as `git ls-files --others --exclude-standard`), with symlinks,
//! nested repositories and special files reported for what they are rather
//! than followed or skipped. Nothing here reads file contents; [`ToGit`]
//! converts contents read elsewhere as `git add` would.

use std::sync::atomic::AtomicBool;

use gix::bstr::{BStr, BString, ByteSlice};

use super::{EntryKind, GitError, Oid, Repo};
use crate::path::RepoPath;

/// The index as read once, to answer several questions about one state of it.
pub struct IndexSnapshot {
    file: gix::index::File,
}

impl IndexSnapshot {
    /// The decoded index with its path, for this layer's diffs, status
    /// and walks.
    pub(super) fn file(&self) -> &gix::index::File {
        &self.file
    }

    /// The checksum git wrote at the end of the index file: the same bytes
    /// mean the same index. `None` for an index written without one
    /// (`index.skipHash`) or not read from a file.
    pub fn checksum(&self) -> Option<Vec<u8>> {
        self.file
            .checksum()
            .filter(|id| !id.is_null())
            .map(|id| id.as_bytes().to_vec())
    }

    /// Whether the index records `path` as an executable file (`100755`):
    /// where files have no executable bit of their own, the index keeps
    /// it (git's `core.fileMode false`). `false` for a path not tracked.
    pub fn executable(&self, path: &[u8]) -> bool {
        use gix::bstr::ByteSlice;
        self.file
            .entry_by_path(path.as_bstr())
            .is_some_and(|e| e.mode == gix::index::entry::Mode::FILE_EXECUTABLE)
    }
}

/// One path in the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    pub path: RepoPath,
    pub kind: EntryKind,
    /// Git is told not to look at the work tree's copy: `skip-worktree`
    /// (a sparse checkout) or `assume-unchanged`. What the work tree holds
    /// there need not be what the index and the commit hold.
    pub unlooked: Option<Unlooked>,
}

/// Why git does not look at a tracked path's work-tree copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unlooked {
    SkipWorktree,
    AssumeUnchanged,
}

/// What an untracked path is on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UntrackedKind {
    /// A regular file, executable or not.
    File,
    /// A symbolic link (never followed).
    Symlink,
    /// A directory holding its own `.git`: one entry, never entered.
    Repository,
    /// A FIFO, socket or device.
    Special,
}

/// An untracked, non-ignored path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UntrackedEntry {
    pub path: RepoPath,
    pub kind: UntrackedKind,
}

/// Work-tree contents as `git add` would store them: through the
/// repository's filters (`core.autocrlf`, `core.eol`, the `text`, `eol` and
/// `ident` attributes, configured filter drivers), set up once for several
/// files.
pub struct ToGit<'repo> {
    pipeline: gix::filter::Pipeline<'repo>,
    index: gix::worktree::IndexPersistedOrInMemory,
}

impl ToGit<'_> {
    /// `bytes`, read from the work tree at `path`, as the blob git would
    /// commit for them.
    pub fn convert(&mut self, path: &RepoPath, bytes: &[u8]) -> Result<Vec<u8>, GitError> {
        use gix::filter::plumbing::pipeline::convert::ToGitOutcome;
        use std::io::Read as _;
        let context = || format!("passing {path} through git's filters");
        let outcome = self
            .pipeline
            .convert_to_git(bytes, &path.as_path(), &self.index)
            .map_err(|e| GitError::gix(context(), &e))?;
        Ok(match outcome {
            ToGitOutcome::Unchanged(_) => bytes.to_vec(),
            ToGitOutcome::Buffer(converted) => converted.to_vec(),
            ToGitOutcome::Process(mut read) => {
                let mut converted = Vec::new();
                read.read_to_end(&mut converted)
                    .map_err(|e| GitError::other(context(), e))?;
                converted
            }
        })
    }
}

impl Repo {
    /// The filters `git add` would pass work-tree files through, with the
    /// index they consult (a CRLF already committed stays, as in git).
    pub fn to_git(&self) -> Result<ToGit<'_>, GitError> {
        let (pipeline, index) = self
            .repo
            .filter_pipeline(None)
            .map_err(|e| GitError::gix("reading git's filter configuration", &e))?;
        Ok(ToGit { pipeline, index })
    }

    /// The staged blob at `path` (stage 0), `None` when the index has no
    /// such file entry (absent, conflicted, or a directory).
    pub fn index_blob(&self, index: &IndexSnapshot, path: &RepoPath) -> Option<(Oid, EntryKind)> {
        let entry = index.file.entry_by_path_and_stage(
            path.as_bytes().as_bstr(),
            gix::index::entry::Stage::Unconflicted,
        )?;
        let kind = super::index_entry_kind(entry.mode)?;
        Some((Oid(entry.id), kind))
    }

    /// The index git would use (`GIT_INDEX_FILE` honoured), read now; an
    /// absent index file is an empty index.
    ///
    /// Like git outside `git fsck`, the file's trailing checksum is not
    /// verified (gix's collision-detecting SHA-1 over the whole file would
    /// double the cost); a damaged index still fails to decode.
    pub fn read_index(&self) -> Result<IndexSnapshot, GitError> {
        let path = self.repo.index_path();
        let hash = self.repo.object_hash();
        // Look first with the guarded open (`fsutil`): a FIFO or a link in
        // place of the index is refused rather than waited on or followed,
        // and gix only opens a regular file.
        let (dir, name) = (
            path.parent().unwrap_or(std::path::Path::new(".")),
            path.file_name()
                .map_or(path.as_path(), std::path::Path::new),
        );
        match crate::fsutil::open_within(dir, name, crate::fsutil::Kind::INDEX) {
            Ok(Some(_)) => {}
            Ok(None) => {
                let state = gix::index::State::new(hash);
                return Ok(IndexSnapshot {
                    file: gix::index::File::from_state(state, path),
                });
            }
            Err(e) => {
                return Err(GitError::other(
                    format!("reading the index {}", path.display()),
                    e,
                ));
            }
        }
        let file = gix::index::File::at(&path, hash, true, Default::default())
            .map_err(|err| GitError::gix(format!("reading the index {}", path.display()), &err))?;
        Ok(IndexSnapshot { file })
    }

    /// The entries of `index` whose path is one of `prefixes` or lies below
    /// one (component-wise: `src` covers `src/a.rs`, not `src2/a.rs`),
    /// sorted by path, one per path.
    ///
    /// Like `git ls-files --stage -- <prefixes>` with literal pathspecs. A
    /// conflicted path is listed once (the kind of its lowest stage); an
    /// intent-to-add entry is listed. A sparse index (directory entries) is
    /// an error rather than a silent gap. An empty prefix means the whole index.
    pub fn index_entries_under(
        &self,
        index: &IndexSnapshot,
        prefixes: &[RepoPath],
    ) -> Result<Vec<IndexEntry>, GitError> {
        let index = &index.file;
        let entries = index.entries();
        let mut out = Vec::new();
        let mut push = |entry: &gix::index::Entry| -> Result<(), GitError> {
            let path = entry.path(index);
            let Some(tree_mode) = entry.mode.to_tree_entry_mode() else {
                return Err(GitError::other(
                    format!("reading the index {}", index.path().display()),
                    format_args!(
                        "{path} is a sparse-index directory entry; run `git sparse-checkout disable` or `git update-index --no-sparse-index`"
                    ),
                ));
            };
            if let Some(kind) = super::entry_kind(tree_mode) {
                let flags = entry.flags;
                let unlooked = if flags.contains(gix::index::entry::Flags::SKIP_WORKTREE) {
                    Some(Unlooked::SkipWorktree)
                } else if flags.contains(gix::index::entry::Flags::ASSUME_VALID) {
                    Some(Unlooked::AssumeUnchanged)
                } else {
                    None
                };
                out.push(IndexEntry {
                    path: RepoPath::new(path.to_vec()),
                    kind,
                    unlooked,
                });
            }
            Ok(())
        };
        for prefix in prefixes {
            let prefix = prefix.as_bytes();
            if prefix.is_empty() {
                for entry in entries {
                    push(entry)?;
                }
                continue;
            }
            // The entry named exactly `prefix` (any stage), and every entry
            // below `prefix/` (not `prefix.rs`, not `prefix2/…`).
            for entry in index.prefixed_entries(prefix.as_bstr()).unwrap_or_default() {
                let path = entry.path(index);
                if path.len() == prefix.len() || path[prefix.len()] == b'/' {
                    push(entry)?;
                }
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out.dedup_by(|b, a| a.path == b.path);
        Ok(out)
    }

    /// The untracked files under the directories `dirs` that git does not
    /// ignore, one by one (never a collapsed directory), sorted by path.
    ///
    /// Like `git ls-files -z --others --exclude-standard -- <dirs>` with
    /// literal pathspecs: a nested repository is one
    /// [`UntrackedKind::Repository`] entry (git lists it as `dir/`; here
    /// without the slash) and is not entered; symlinks are listed, never
    /// followed; FIFOs, sockets and devices, which git leaves out, are listed
    /// as [`UntrackedKind::Special`]. Ignored directories are not entered.
    /// Only the directories asked about are walked; no `dirs`, no walk.
    /// `index` tells tracked from untracked ([`Repo::read_index`]).
    pub fn untracked_under(
        &self,
        index: &IndexSnapshot,
        dirs: &[RepoPath],
    ) -> Result<Vec<UntrackedEntry>, GitError> {
        Ok(self.untracked_walk(index, dirs)?.entries)
    }

    /// [`untracked_under`](Self::untracked_under), also saying which
    /// directories the walk looked at (sorted): with [`Repo::walk_rules`],
    /// everything its answer depends on besides the index.
    pub fn untracked_walk(
        &self,
        index: &IndexSnapshot,
        dirs: &[RepoPath],
    ) -> Result<UntrackedWalk, GitError> {
        let workdir = self.require_workdir()?;
        if dirs.is_empty() {
            return Ok(UntrackedWalk::default());
        }
        let context = || format!("listing untracked files in {}", workdir.display());
        let patterns: Vec<BString> = dirs.iter().map(|d| top_literal("", d)).collect();
        let mut collect = Collect::default();
        walk_files(&self.repo, &index.file, &patterns, false, &mut collect)
            .map_err(|err| GitError::gix(context(), &err))?;
        let mut out = collect.entries;
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out.dedup_by(|b, a| a.path == b.path);
        let mut seen_dirs = collect.seen_dirs;
        seen_dirs.extend(dirs.iter().cloned());
        seen_dirs.sort();
        seen_dirs.dedup();
        Ok(UntrackedWalk {
            entries: out,
            seen_dirs,
        })
    }

    /// What git's ignore rules depend on besides the work tree's own
    /// `.gitignore` files: the resolved configuration (as text: any change,
    /// `core.excludesFile` or `core.ignoreCase` among them, changes it) and
    /// the paths of the files that may hold repository-wide and user-wide
    /// patterns (`info/exclude`, `core.excludesFile`, `$XDG_CONFIG_HOME/git/ignore`,
    /// `~/.config/git/ignore`), present or not.
    pub fn walk_rules(&self) -> (Vec<u8>, Vec<std::path::PathBuf>) {
        let config = self.repo.config_snapshot();
        let mut text = config.plumbing().to_bstring().to_vec();
        let mut files = vec![
            self.repo.git_dir().join("info").join("exclude"),
            self.repo.common_dir().join("info").join("exclude"),
        ];
        match config.trusted_path("core.excludesFile") {
            Ok(Some(path)) => files.push(path),
            Ok(None) => {}
            // The walk decides what that means; the key only has to differ.
            Err(err) => text.extend_from_slice(format!("\0{err}").as_bytes()),
        }
        if let Some(xdg) = std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
            files.push(std::path::PathBuf::from(xdg).join("git").join("ignore"));
        }
        if let Some(home) = std::env::var_os("HOME").filter(|v| !v.is_empty()) {
            files.push(std::path::PathBuf::from(home).join(".config/git/ignore"));
        }
        (text, files)
    }
}

/// A literal pathspec for the repository-relative `path`, from the top of
/// the work tree whatever the current directory (`top`), the path as it is
/// (`literal`: a source named `a[1]` or `*` is that path, not a pattern),
/// with any `extra` magic (`exclude`).
pub(super) fn top_literal(extra: &str, path: &RepoPath) -> BString {
    let mut spec = BString::from(format!(
        ":(top,literal{}{extra})",
        if extra.is_empty() { "" } else { "," }
    ));
    spec.extend_from_slice(path.as_bytes());
    spec
}

/// gix's directory walk over the work tree for `patterns`, emitting
/// untracked files one by one (never a collapsed directory, whatever
/// `status.showUntrackedFiles` says), ignored ones too when `ignored`, a
/// nested repository as one entry, to `delegate`.
pub(super) fn walk_files(
    repo: &gix::Repository,
    index: &gix::index::State,
    patterns: &[BString],
    ignored: bool,
    delegate: &mut dyn gix::dir::walk::Delegate,
) -> Result<(), gix::Error> {
    use gix::dir::walk::EmissionMode;
    let options = repo
        .dirwalk_options()?
        .emit_untracked(EmissionMode::Matching)
        .emit_ignored(ignored.then_some(EmissionMode::Matching))
        .emit_collapsed(None)
        .emit_pruned(false)
        .emit_tracked(false)
        .emit_empty_directories(false)
        .recurse_repositories(false)
        // Patterns are repository-relative whatever the current directory.
        .empty_patterns_match_prefix(false);
    let interrupt = AtomicBool::new(false);
    repo.dirwalk(
        index,
        patterns.iter().map(|p| p.as_bstr()),
        &interrupt,
        options,
        delegate,
    )?;
    Ok(())
}

/// Whether git would enter the directory `entry` (gix's own rule).
pub(super) fn git_enters(
    entry: &gix::dir::EntryRef<'_>,
    for_deletion: Option<gix::dir::walk::ForDeletionMode>,
    worktree_root_is_repository: bool,
) -> bool {
    entry.status.can_recurse(
        entry.disk_kind,
        entry.pathspec_match,
        for_deletion,
        worktree_root_is_repository,
    )
}

/// The untracked files of a walk and the directories it looked at.
#[derive(Clone, Debug, Default)]
pub struct UntrackedWalk {
    /// As [`Repo::untracked_under`] lists them.
    pub entries: Vec<UntrackedEntry>,
    /// The directories the walk looked at, entered or not, the walked
    /// ones included, sorted.
    pub seen_dirs: Vec<RepoPath>,
}

/// Collects untracked entries as they are emitted, and the directories seen.
#[derive(Default)]
struct Collect {
    entries: Vec<UntrackedEntry>,
    seen_dirs: Vec<RepoPath>,
}

impl gix::dir::walk::Delegate for Collect {
    fn emit(
        &mut self,
        entry: gix::dir::EntryRef<'_>,
        _collapsed_directory_status: Option<gix::dir::entry::Status>,
    ) -> gix::dir::walk::Action {
        use gix::dir::entry::{Kind, Status};
        if entry.status != Status::Untracked {
            return std::ops::ControlFlow::Continue(());
        }
        let kind = match entry.disk_kind {
            Some(Kind::File) => Some(UntrackedKind::File),
            Some(Kind::Symlink) => Some(UntrackedKind::Symlink),
            Some(Kind::Repository) => Some(UntrackedKind::Repository),
            Some(Kind::Untrackable) => Some(UntrackedKind::Special),
            // Empty directories are not emitted; a directory here is one
            // the walk chose not to enter. Not a file: nothing to list.
            Some(Kind::Directory) | None => None,
        };
        if let Some(kind) = kind {
            let path: &BStr = entry.rela_path.as_ref();
            self.entries.push(UntrackedEntry {
                path: RepoPath::new(path.to_vec()),
                kind,
            });
        }
        std::ops::ControlFlow::Continue(())
    }

    fn can_recurse(
        &mut self,
        entry: gix::dir::EntryRef<'_>,
        for_deletion: Option<gix::dir::walk::ForDeletionMode>,
        worktree_root_is_repository: bool,
    ) -> bool {
        let enter = git_enters(&entry, for_deletion, worktree_root_is_repository);
        // Entered or not: a directory not entered (ignored, or a nested
        // repository) changes what the walk says when its names change.
        // One outside the walked directories (pruned) does not.
        if entry.status != gix::dir::entry::Status::Pruned {
            let path: &BStr = entry.rela_path.as_ref();
            self.seen_dirs.push(RepoPath::new(path.to_vec()));
        }
        enter
    }
}
