//! The worktree against the index: modified, deleted, type-changed and
//! conflicted tracked paths, plus untracked (and optionally ignored) files.
//!
//! Mirrors `git status --porcelain --untracked-files=all` (with
//! `--ignored=matching` when ignored files are asked for). gix reports in no
//! fixed order when it runs in parallel, so the result is sorted here.

use gix::status::index_worktree::Item;
use gix::status::plumbing::index_as_worktree::{Change as WtChange, EntryStatus};

use super::{GitError, StatusEntry, WorktreeState};
use crate::path::RepoPath;

pub(super) fn worktree_status(
    repo: &gix::Repository,
    ignored: bool,
) -> Result<Vec<StatusEntry>, GitError> {
    worktree_status_excluding(repo, ignored, &[])
}

/// As [`worktree_status`], leaving out `exclude` paths and everything below
/// them (pathspecs `:(exclude,literal)<path>`): neither stat-ed nor walked.
pub(super) fn worktree_status_excluding(
    repo: &gix::Repository,
    ignored: bool,
    exclude: &[RepoPath],
) -> Result<Vec<StatusEntry>, GitError> {
    let patterns: Vec<gix::bstr::BString> = exclude
        .iter()
        .filter(|p| !p.as_bytes().is_empty())
        .map(|p| {
            let mut spec = b":(exclude,literal)".to_vec();
            spec.extend_from_slice(p.as_bytes());
            gix::bstr::BString::from(spec)
        })
        .collect();
    let context = || match repo.workdir() {
        Some(dir) => format!("computing the status of {}", dir.display()),
        None => "computing the worktree status".to_owned(),
    };
    let iter = repo
        .status(gix::progress::Discard)
        .map_err(|err| GitError::gix(context(), &err))?
        // Explicit, whatever `status.showUntrackedFiles` says: file by file.
        .untracked_files(gix::status::UntrackedFiles::Files)
        .index_worktree_rewrites(None)
        .dirwalk_options(|options| {
            options
                .emit_untracked(gix::dir::walk::EmissionMode::Matching)
                .emit_ignored(ignored.then_some(gix::dir::walk::EmissionMode::Matching))
                .emit_collapsed(None)
                .emit_pruned(false)
                .emit_tracked(false)
                .emit_empty_directories(false)
                // A nested repository is one untracked entry, as in git.
                .recurse_repositories(false)
                .empty_patterns_match_prefix(false)
        })
        .into_index_worktree_iter(patterns)
        .map_err(|err| GitError::gix(context(), &err))?;

    let mut out = Vec::new();
    for item in iter {
        let item = item.map_err(|err| GitError::gix(context(), &err))?;
        match item {
            Item::Modification {
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
                    EntryStatus::NeedsUpdate(_) => continue,
                };
                out.push(StatusEntry {
                    path: RepoPath::new(Vec::from(rela_path)),
                    state,
                });
            }
            Item::DirectoryContents { entry, .. } => {
                if let Some(state) = dirwalk_state(&entry) {
                    out.push(StatusEntry {
                        path: RepoPath::new(Vec::from(entry.rela_path)),
                        state,
                    });
                }
            }
            // Rewrite tracking is off; should one come anyway, both sides are
            // still reported for what they are.
            Item::Rewrite {
                source,
                dirwalk_entry,
                ..
            } => {
                out.push(StatusEntry {
                    path: RepoPath::new(source.rela_path().to_vec()),
                    state: WorktreeState::Deleted,
                });
                if let Some(state) = dirwalk_state(&dirwalk_entry) {
                    out.push(StatusEntry {
                        path: RepoPath::new(Vec::from(dirwalk_entry.rela_path)),
                        state,
                    });
                }
            }
        }
    }
    out.sort_unstable_by(|a, b| {
        a.path
            .cmp(&b.path)
            .then_with(|| rank(a.state).cmp(&rank(b.state)))
    });
    // A conflicted path has several index entries; report it once.
    out.dedup_by(|b, a| a.path == b.path);
    Ok(out)
}

/// What a directory-walk entry means for the status; `None` for entries git
/// would not list (tracked, pruned, sockets and other special files).
fn dirwalk_state(entry: &gix::dir::Entry) -> Option<WorktreeState> {
    if entry.disk_kind == Some(gix::dir::entry::Kind::Untrackable) {
        return None;
    }
    match entry.status {
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
