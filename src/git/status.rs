//! The worktree against the index: modified, deleted, type-changed and
//! conflicted tracked paths, plus untracked (and optionally ignored) files.
//!
//! Mirrors `git status --porcelain --untracked-files=all` (with
//! `--ignored=matching` when ignored files are asked for). gix reports in no
//! fixed order when it runs in parallel, so the result is sorted here.

use gix::status::plumbing::index_as_worktree::{Change as WtChange, EntryStatus};

use super::{GitError, StatusEntry, WorktreeState};
use crate::path::RepoPath;

pub(super) fn worktree_status(
    repo: &gix::Repository,
    index: &gix::index::File,
    ignored: bool,
) -> Result<Vec<StatusEntry>, GitError> {
    worktree_status_excluding(repo, index, ignored, &[])
}

/// As [`worktree_status`], leaving out `exclude` paths and everything below
/// them (pathspecs `:(top,exclude,literal)<path>`, whatever the current directory): neither stat-ed nor walked.
///
/// Two passes over one `index`: gix's status for the tracked files (it
/// skips excluded entries unstat-ed), then a directory walk for untracked
/// files that does not enter an excluded directory. gix's status runs its
/// own walk, which reads every excluded directory and looks each of its
/// entries up in the index before leaving it out: with the sources of a
/// check excluded, that was most of a warm fingerprint's time.
pub(super) fn worktree_status_excluding(
    repo: &gix::Repository,
    index: &gix::index::File,
    ignored: bool,
    exclude: &[RepoPath],
) -> Result<Vec<StatusEntry>, GitError> {
    let patterns: Vec<gix::bstr::BString> = exclude
        .iter()
        .filter(|p| !p.as_bytes().is_empty())
        .map(|p| super::files::top_literal("exclude", p))
        .collect();
    let context = || match repo.workdir() {
        Some(dir) => format!("computing the status of {}", dir.display()),
        None => "computing the worktree status".to_owned(),
    };
    // gix matches every entry against the pathspecs, a cost per entry even
    // for the excluded ones: give it only the entries that are not.
    let subset;
    let (tracked, tracked_patterns): (&gix::index::State, &[gix::bstr::BString]) =
        if exclude.is_empty() || index.is_sparse() {
            (index, &patterns)
        } else {
            subset = entries_outside(index, exclude);
            (&subset, &[])
        };
    let mut out = Vec::new();
    modifications(repo, tracked, tracked_patterns, &mut out)
        .map_err(|err| GitError::gix(context(), &err))?;
    // Untracked (and ignored) files, never entering an excluded directory.
    super::files::walk_files(repo, index, &patterns, ignored, &mut Walk { out: &mut out })
        .map_err(|err| GitError::gix(context(), &err))?;
    out.sort_unstable_by(|a, b| {
        a.path
            .cmp(&b.path)
            .then_with(|| rank(a.state).cmp(&rank(b.state)))
    });
    // A conflicted path has several index entries; report it once.
    out.dedup_by(|b, a| a.path == b.path);
    Ok(out)
}

/// The tracked files that differ from `index` (modified, deleted, changed
/// type, conflicted, intent-to-add) into `out`: gix's status of the index
/// against the work tree, without its directory walk.
///
/// Called directly rather than through `Repository::status`, which reads
/// the index from disk again (to look for `.gitmodules` in it) and spawns a
/// thread: with the sources of a check excluded, that setup cost more than
/// the status itself. Submodules are looked up only when there is a gitlink.
fn modifications(
    repo: &gix::Repository,
    index: &gix::index::State,
    patterns: &[gix::bstr::BString],
    out: &mut Vec<StatusEntry>,
) -> Result<(), gix::Error> {
    let has_gitlink = index
        .entries()
        .iter()
        .any(|e| e.mode == gix::index::entry::Mode::COMMIT);
    let submodules = if has_gitlink {
        Submodules::Builtin(Box::new(
            gix::status::index_worktree::BuiltinSubmoduleStatus::new(
                repo.clone().into_sync(),
                gix::status::Submodule::default(),
            )?,
        ))
    } else {
        Submodules::None
    };
    let interrupt = std::sync::atomic::AtomicBool::new(false);
    let mut visit = Modifications { out };
    repo.index_worktree_status(
        index,
        patterns,
        &mut visit,
        gix::status::plumbing::index_as_worktree::traits::FastEq,
        submodules,
        &mut gix::progress::Discard,
        &interrupt,
        gix::status::index_worktree::Options::default(),
    )?;
    Ok(())
}

/// The submodule status gix's own status would compute, or none at all
/// when the index holds no gitlink.
#[derive(Clone)]
enum Submodules {
    None,
    Builtin(Box<gix::status::index_worktree::BuiltinSubmoduleStatus>),
}

impl gix::status::plumbing::index_as_worktree::traits::SubmoduleStatus for Submodules {
    type Output = gix::submodule::Status;

    fn status(
        &mut self,
        entry: &gix::index::Entry,
        rela_path: &gix::bstr::BStr,
    ) -> Result<Option<Self::Output>, gix::Error> {
        match self {
            Submodules::None => Ok(None),
            Submodules::Builtin(builtin) => builtin.status(entry, rela_path),
        }
    }
}

struct Modifications<'a> {
    out: &'a mut Vec<StatusEntry>,
}

impl<'index> gix::status::plumbing::index_as_worktree_with_renames::VisitEntry<'index>
    for Modifications<'_>
{
    type ContentChange = ();
    type SubmoduleStatus = gix::submodule::Status;

    fn visit_entry(
        &mut self,
        entry: gix::status::plumbing::index_as_worktree_with_renames::Entry<
            'index,
            Self::ContentChange,
            Self::SubmoduleStatus,
        >,
    ) {
        use gix::status::plumbing::index_as_worktree_with_renames::Entry;
        match entry {
            Entry::Modification {
                rela_path, status, ..
            } => {
                let state = match status {
                    EntryStatus::Conflict { .. } => WorktreeState::Conflicted,
                    EntryStatus::Change(WtChange::Removed) => WorktreeState::Deleted,
                    EntryStatus::Change(WtChange::Type { .. }) => WorktreeState::TypeChanged,
                    EntryStatus::Change(
                        WtChange::Modification { .. } | WtChange::SubmoduleModification(_),
                    ) => WorktreeState::Modified,
                    // `git add -N`: a path with work not yet in the index.
                    EntryStatus::IntentToAdd => WorktreeState::Modified,
                    // Only the stat cache is stale; the content is unchanged.
                    EntryStatus::NeedsUpdate(_) => return,
                };
                self.out.push(StatusEntry {
                    path: RepoPath::new(rela_path.to_vec()),
                    state,
                });
            }
            // No directory walk and no rewrite tracking were asked for; the
            // walk below lists what is not tracked.
            Entry::DirectoryContents { .. } | Entry::Rewrite { .. } => {}
        }
    }
}

/// A copy of `index` with only its entries that are neither one of
/// `exclude` nor below one. Its timestamp is the original's, so that git's
/// racy-clean rule (an entry as new as the index is compared by content)
/// holds as it would have.
fn entries_outside(index: &gix::index::File, exclude: &[RepoPath]) -> gix::index::File {
    let excluded = |path: &[u8]| {
        exclude.iter().any(|e| {
            let e = e.as_bytes();
            path.starts_with(e) && (path.len() == e.len() || path[e.len()] == b'/')
        })
    };
    let mut state = gix::index::State::new(index.object_hash());
    state.set_timestamp(index.timestamp());
    for entry in index.entries() {
        let path = entry.path(index);
        if !excluded(path) {
            state.dangerously_push_entry(entry.stat, entry.id, entry.flags, entry.mode, path);
        }
    }
    // Entries were pushed in the index's own order: still sorted.
    gix::index::File::from_state(state, index.path().to_owned())
}

/// The walk's delegate: git's rules for entering a directory, except that
/// an excluded one is left unread.
struct Walk<'a> {
    out: &'a mut Vec<StatusEntry>,
}

impl gix::dir::walk::Delegate for Walk<'_> {
    fn emit(
        &mut self,
        entry: gix::dir::EntryRef<'_>,
        _collapsed_directory_status: Option<gix::dir::entry::Status>,
    ) -> gix::dir::walk::Action {
        if let Some(state) = dirwalk_state(entry.status, entry.disk_kind) {
            let path: &gix::bstr::BStr = entry.rela_path.as_ref();
            self.out.push(StatusEntry {
                path: RepoPath::new(path.to_vec()),
                state,
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
        entry.pathspec_match != Some(gix::dir::entry::PathspecMatch::Excluded)
            && super::files::git_enters(&entry, for_deletion, worktree_root_is_repository)
    }
}

/// What a directory-walk entry means for the status; `None` for entries git
/// would not list (tracked, pruned, sockets and other special files).
fn dirwalk_state(
    status: gix::dir::entry::Status,
    disk_kind: Option<gix::dir::entry::Kind>,
) -> Option<WorktreeState> {
    if disk_kind == Some(gix::dir::entry::Kind::Untrackable) {
        return None;
    }
    match status {
        gix::dir::entry::Status::Untracked => Some(WorktreeState::Untracked),
        gix::dir::entry::Status::Ignored(_) => Some(WorktreeState::Ignored),
        gix::dir::entry::Status::Tracked | gix::dir::entry::Status::Pruned => None,
    }
}

/// When one path has several states, which one wins (lowest first).
fn rank(state: WorktreeState) -> u8 {
    match state {
        WorktreeState::Conflicted => 0,
        WorktreeState::TypeChanged => 1,
        WorktreeState::Deleted => 2,
        WorktreeState::Modified => 3,
        WorktreeState::Untracked => 4,
        WorktreeState::Ignored => 5,
    }
}
