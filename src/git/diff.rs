//! Tree-to-tree and tree-to-index diffs, mapped to the domain [`Change`].
//!
//! Owns the translation of gix's change records into file-level changes:
//! directories are dropped (gix reports them too, including whole-directory
//! renames), type changes are derived from entry kinds (gix has no such
//! status), and rename tracking is always set explicitly (gix otherwise
//! follows `diff.renames`, which defaults to on).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::ops::ControlFlow;

use gix::diff::tree_with_rewrites::ChangeRef;

use super::{
    Change, ChangeKind, EntryKind, GitError, Renames, entry_kind, exact_rewrites, index_entry_kind,
};
use crate::path::RepoPath;

/// State reused across tree diffs so the per-commit loop does not allocate
/// it again: the tree-traversal buffers, and the blob resource cache the
/// rename tracker requires (identity matching never reads from it, and it is
/// cleared after each diff, keeping its allocation).
#[derive(Default)]
pub(super) struct DiffCache {
    state: gix::diff::tree::State,
    resources: Option<gix::diff::blob::Platform>,
}

impl DiffCache {
    /// The file-level changes turning `old` into `new`, sorted by path.
    pub(super) fn tree_changes(
        &mut self,
        repo: &gix::Repository,
        old: &gix::Tree<'_>,
        new: &gix::Tree<'_>,
        renames: Renames,
        context: impl Fn() -> String,
    ) -> Result<Vec<Change>, GitError> {
        let resources = match &mut self.resources {
            Some(resources) => resources,
            slot @ None => slot.insert(resource_cache(repo).map_err(|err| {
                GitError::gix(format!("{}: preparing the diff", context()), &err)
            })?),
        };
        let options = gix::diff::tree_with_rewrites::Options {
            location: Some(gix::diff::tree::recorder::Location::Path),
            // Explicit every time: `None` never builds a rename tracker.
            rewrites: match renames {
                Renames::Off => None,
                Renames::Exact => Some(exact_rewrites()),
            },
        };
        let mut changes = Vec::new();
        let objects = Recording {
            repo,
            missing: Cell::new(None),
        };
        let outcome = gix::diff::tree_with_rewrites(
            gix::objs::TreeRefIter::from_bytes(&old.data, old.id.kind()),
            gix::objs::TreeRefIter::from_bytes(&new.data, new.id.kind()),
            resources,
            &mut self.state,
            &objects,
            |change| {
                if let Some(change) = from_tree_change(change) {
                    changes.push(change);
                }
                Ok(ControlFlow::Continue(()))
            },
            options,
        );
        resources.clear_resource_cache_keep_allocation();
        outcome.map_err(|err| match objects.missing.get() {
            // A subtree that is not there: say which object, as every other
            // read of the git layer does.
            Some(id) => GitError::MissingInDiff {
                id: id.to_string(),
                context: context(),
            },
            None => GitError::other(context(), format_args!("{err:#}")),
        })?;
        changes.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        Ok(changes)
    }
}

/// The object database as a tree diff reads it, remembering the last object
/// it could not find: gix reports an absent subtree only as a generic
/// failure, and gate must name it as missing (unknown), like any other
/// absent object.
struct Recording<'r> {
    repo: &'r gix::Repository,
    missing: Cell<Option<gix::ObjectId>>,
}

impl gix::objs::Find for Recording<'_> {
    fn try_find<'a>(
        &self,
        id: &gix::oid,
        buffer: &'a mut Vec<u8>,
    ) -> gix::Result<Option<gix::objs::Data<'a>>> {
        let found = gix::objs::Find::try_find(self.repo, id, buffer)?;
        if found.is_none() {
            self.missing.set(Some(id.to_owned()));
        }
        Ok(found)
    }
}

impl gix::objs::FindHeader for Recording<'_> {
    fn try_header(&self, id: &gix::oid) -> gix::Result<Option<gix::objs::Header>> {
        let found = gix::objs::FindHeader::try_header(self.repo, id)?;
        if found.is_none() {
            self.missing.set(Some(id.to_owned()));
        }
        Ok(found)
    }
}

/// A blob resource cache that needs no index: exact rename tracking compares
/// object ids only, so neither attributes from the work tree nor filters are
/// ever consulted. This avoids loading (or, when bare, building) an index.
fn resource_cache(repo: &gix::Repository) -> gix::Result<gix::diff::blob::Platform> {
    let index = gix::index::State::new(repo.object_hash());
    let attributes = repo
        .attributes_only(
            &index,
            gix::worktree::stack::state::attributes::Source::IdMapping,
        )?
        .detach();
    gix::diff::resource_cache(
        repo,
        gix::diff::blob::pipeline::Mode::ToGit,
        attributes,
        Default::default(),
    )
}

/// One tree change as a file-level [`Change`]; `None` for directories.
fn from_tree_change(change: ChangeRef<'_>) -> Option<Change> {
    Some(match change {
        ChangeRef::Addition {
            location,
            entry_mode,
            ..
        } => Change::added(path(location), entry_kind(entry_mode)?),
        ChangeRef::Deletion {
            location,
            entry_mode,
            ..
        } => Change::deleted(path(location), entry_kind(entry_mode)?),
        ChangeRef::Modification {
            location,
            previous_entry_mode,
            entry_mode,
            ..
        } => Change::modified(
            path(location),
            entry_kind(previous_entry_mode)?,
            entry_kind(entry_mode)?,
        ),
        ChangeRef::Rewrite {
            source_location,
            source_entry_mode,
            location,
            entry_mode,
            copy,
            ..
        } => {
            let (old, new) = (entry_kind(source_entry_mode)?, entry_kind(entry_mode)?);
            rewrite(source_location, old, location, new, copy)
        }
    })
}

/// A rename as a [`Change`]. Copies are never asked for; should one appear,
/// its destination is reported as the addition it is (the source did not
/// change).
fn rewrite(source: &[u8], old: EntryKind, dest: &[u8], new: EntryKind, copy: bool) -> Change {
    if copy {
        return Change::added(path(dest), new);
    }
    Change {
        kind: ChangeKind::Renamed,
        path: path(dest),
        from: Some(path(source)),
        old: Some(old),
        new: Some(new),
    }
}

fn path(location: &[u8]) -> RepoPath {
    RepoPath::new(location.to_vec())
}

/// The staged changes: `head_tree` against `index`. Through the cache-tree
/// when it can answer ([`super::staged`]), else gix's full comparison.
pub(super) fn staged_changes(
    repo: &gix::Repository,
    index: &gix::index::State,
    head_tree: gix::ObjectId,
    renames: Renames,
) -> Result<Vec<Change>, GitError> {
    if let Some(changes) = super::staged::changes(repo, index, head_tree, renames)? {
        return Ok(changes);
    }
    // No patterns and `false`: the whole index, whatever the current
    // directory (gix's default pathspec would limit it to the cwd's prefix).
    let mut pathspec = repo
        .pathspec(
            false,
            None::<&str>,
            false,
            &gix::index::State::new(repo.object_hash()),
            gix::worktree::stack::state::attributes::Source::IdMapping,
        )
        .map_err(|err| GitError::gix("preparing the staged diff", &err))?;
    let track = match renames {
        Renames::Off => gix::status::tree_index::TrackRenames::Disabled,
        Renames::Exact => gix::status::tree_index::TrackRenames::Given(exact_rewrites()),
    };
    let mut changes = Vec::new();
    repo.tree_index_status(
        &head_tree,
        index,
        Some(&mut pathspec),
        track,
        |change, _, _| {
            if let Some(change) = from_index_change(&change) {
                changes.push(change);
            }
            Ok(ControlFlow::Continue(()))
        },
    )
    .map_err(|err| GitError::gix(format!("diffing the index against tree {head_tree}"), &err))?;
    changes.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    Ok(changes)
}

fn from_index_change(change: &gix::diff::index::ChangeRef<'_, '_>) -> Option<Change> {
    use gix::diff::index::ChangeRef as C;
    Some(match change {
        C::Addition {
            location,
            entry_mode,
            ..
        } => Change::added(path(location), index_entry_kind(*entry_mode)?),
        C::Deletion {
            location,
            entry_mode,
            ..
        } => Change::deleted(path(location), index_entry_kind(*entry_mode)?),
        C::Modification {
            location,
            previous_entry_mode,
            entry_mode,
            ..
        } => Change::modified(
            path(location),
            index_entry_kind(*previous_entry_mode)?,
            index_entry_kind(*entry_mode)?,
        ),
        C::Rewrite {
            source_location,
            source_entry_mode,
            location,
            entry_mode,
            copy,
            ..
        } => {
            let (old, new) = (
                index_entry_kind(*source_entry_mode)?,
                index_entry_kind(*entry_mode)?,
            );
            rewrite(source_location, old, location, new, *copy)
        }
    })
}

/// A tree entry as the combined diff compares it: git compares mode and id.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Entry {
    mode: gix::objs::tree::EntryMode,
    id: gix::ObjectId,
}

impl Entry {
    /// The entry as a file-level path sees it: `None` for a directory.
    fn leaf(entry: Option<Entry>) -> Option<Entry> {
        entry.filter(|e| !e.mode.is_tree())
    }

    /// The subtree it holds: `None` for anything else.
    fn subtree(entry: Option<Entry>) -> Option<gix::ObjectId> {
        entry.filter(|e| e.mode.is_tree()).map(|e| e.id)
    }
}

/// The changes a merge made itself: every file-level path whose entry in
/// `tree` differs from its entry in each of `parents` (git's combined diff,
/// `git diff-tree -c`), described against the first parent, sorted by path.
///
/// One walk over all the trees at once. A subtree that is identical (by id)
/// to the same subtree of any parent is never read: no path below it can
/// differ from that parent. A path absent from the merge and from a parent
/// is equal there too. Diffing each parent in full and intersecting would
/// read every subtree any single parent changed.
pub(super) fn combined_changes(
    repo: &gix::Repository,
    tree: gix::ObjectId,
    parents: &[gix::ObjectId],
    context: impl Fn() -> String,
) -> Result<Vec<Change>, GitError> {
    let mut changes = Vec::new();
    let parents: Vec<Option<gix::ObjectId>> = parents.iter().copied().map(Some).collect();
    let mut prefix = Vec::new();
    combined_dir(
        repo,
        Some(tree),
        &parents,
        &mut prefix,
        &mut changes,
        &context,
    )?;
    changes.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    Ok(changes)
}

/// One directory of [`combined_changes`]: `tree` (the merge's, `None` when
/// it has none here) against the parents' (likewise), at `prefix`.
fn combined_dir(
    repo: &gix::Repository,
    tree: Option<gix::ObjectId>,
    parents: &[Option<gix::ObjectId>],
    prefix: &mut Vec<u8>,
    changes: &mut Vec<Change>,
    context: &dyn Fn() -> String,
) -> Result<(), GitError> {
    let read = |id: Option<gix::ObjectId>| -> Result<Vec<u8>, GitError> {
        let Some(id) = id else {
            return Ok(Vec::new());
        };
        match repo.try_find_object(id) {
            Ok(Some(object)) if object.kind == gix::objs::Kind::Tree => Ok(object.detach().data),
            Ok(Some(object)) => Err(GitError::other(
                context(),
                format_args!("object {id} is a {}, not a tree", object.kind),
            )),
            Ok(None) => Err(GitError::MissingInDiff {
                id: id.to_string(),
                context: context(),
            }),
            Err(err) => Err(GitError::gix(
                format!("{}: reading tree {id}", context()),
                &err,
            )),
        }
    };
    let ours = read(tree)?;
    let theirs = parents
        .iter()
        .map(|&p| read(p))
        .collect::<Result<Vec<_>, _>>()?;
    // Every name in any of the trees: the merge's entry and each parent's.
    type Slot = (Option<Entry>, Vec<Option<Entry>>);
    let mut names: BTreeMap<&[u8], Slot> = BTreeMap::new();
    let kind = repo.object_hash();
    for (side, data) in std::iter::once(&ours).chain(&theirs).enumerate() {
        for entry in gix::objs::TreeRefIter::from_bytes(data, kind) {
            let entry = entry.map_err(|err| {
                GitError::other(context(), format_args!("decoding a tree: {err}"))
            })?;
            let slot = names
                .entry(entry.filename.as_ref())
                .or_insert_with(|| (None, vec![None; parents.len()]));
            let value = Some(Entry {
                mode: entry.mode,
                id: entry.oid.to_owned(),
            });
            match side {
                0 => slot.0 = value,
                n => slot.1[n - 1] = value,
            }
        }
    }
    for (name, (ours, theirs)) in names {
        let len = prefix.len();
        if !prefix.is_empty() {
            prefix.push(b'/');
        }
        prefix.extend_from_slice(name);
        let leaf = Entry::leaf(ours);
        if theirs.iter().all(|&t| Entry::leaf(t) != leaf) {
            let path = || RepoPath::new(prefix.clone());
            let first = Entry::leaf(theirs[0]);
            let change = match (
                first.and_then(|e| entry_kind(e.mode)),
                leaf.and_then(|e| entry_kind(e.mode)),
            ) {
                (None, Some(new)) => Some(Change::added(path(), new)),
                (Some(old), None) => Some(Change::deleted(path(), old)),
                (Some(old), Some(new)) => Some(Change::modified(path(), old, new)),
                (None, None) => None,
            };
            changes.extend(change);
        }
        let sub = Entry::subtree(ours);
        let subs: Vec<Option<gix::ObjectId>> = theirs.iter().map(|&t| Entry::subtree(t)).collect();
        if !subs.contains(&sub) {
            combined_dir(repo, sub, &subs, prefix, changes, context)?;
        }
        prefix.truncate(len);
    }
    Ok(())
}
