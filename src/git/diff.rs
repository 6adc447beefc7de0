//! Tree-to-tree and tree-to-index diffs, mapped to the domain [`Change`].
//!
//! Owns the translation of gix's change records into file-level changes:
//! directories are dropped (gix reports them too, including whole-directory
//! renames), type changes are derived from entry kinds (gix has no such
//! status), and rename tracking is always set explicitly (gix otherwise
//! follows `diff.renames`, which defaults to on).

use super::packs::{Objects, Shared};
use std::cell::Cell;
use std::collections::VecDeque;
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
    /// The subtrees still to compare, and the buffers they are read into.
    pending: VecDeque<Pending>,
    /// The files the last plain diff added, and deleted: id and change.
    added: Vec<(gix::ObjectId, usize)>,
    deleted: Vec<(gix::ObjectId, usize)>,
    /// The tree of the last commit diffed.
    last: LastTree,
}

/// The tree of the last commit diffed, kept for the next one: a commit's
/// parent is usually the commit diffed just before it (a run is diffed
/// oldest first), whose tree is then not decoded from the pack a second
/// time. An id names its content, so the tree kept is the tree asked for,
/// whichever commit it was read for. Only the commit's own tree is kept:
/// consecutive commits seldom change the same directories (measured on the
/// three-level history, one subtree in six), and keeping every subtree read
/// cost more than it saved.
#[derive(Default)]
struct LastTree {
    /// `None` when no tree is kept.
    tree: Option<(gix::ObjectId, Shared)>,
}

impl LastTree {
    /// Tree `id`, if it is the one kept.
    fn get(&self, id: &gix::oid) -> Option<Shared> {
        match &self.tree {
            Some((kept, tree)) if kept.as_ref() == id => Some(Shared::clone(tree)),
            _ => None,
        }
    }
}

/// A directory still to compare: its tree on each side (`None` where that
/// side has none) and its path.
type Pending = (Option<gix::ObjectId>, Option<gix::ObjectId>, Vec<u8>);

impl DiffCache {
    /// The file-level changes turning `old` into `new` (raw tree objects),
    /// sorted by path.
    ///
    /// gate compares the trees itself ([`DiffCache::plain_changes`]); with
    /// [`Renames::Exact`] it pairs the renames where the answer is plain
    /// ([`DiffCache::pair_renames`]), and a diff where gix's rename tracker
    /// must choose is done again by it, whose pairing is the one gate
    /// reports.
    pub(super) fn tree_changes(
        &mut self,
        repo: &Objects<'_>,
        old: &[u8],
        new: &[u8],
        renames: Renames,
        context: impl Fn() -> String,
    ) -> Result<Vec<Change>, GitError> {
        let mut changes = Vec::new();
        self.plain_changes(repo, old, new, &mut changes, &context)?;
        if renames == Renames::Exact && !self.pair_renames(&mut changes) {
            changes = self.tracked_changes(repo, old, new, context)?;
        }
        changes.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        Ok(changes)
    }

    /// The changes of a commit whose tree is `new` from its parent's `old`
    /// (`None` for a root commit), as [`tree_changes`](Self::tree_changes)
    /// finds them, the two trees read here: `old` is usually the tree of the
    /// commit diffed just before ([`LastTree`]).
    pub(super) fn commit_changes(
        &mut self,
        repo: &Objects<'_>,
        old: Option<gix::ObjectId>,
        new: gix::ObjectId,
        renames: Renames,
        context: impl Fn() -> String,
    ) -> Result<Vec<Change>, GitError> {
        let root = |id: gix::ObjectId| move || GitError::MissingObject { id: id.to_string() };
        let new_tree = read_tree(repo, new, &context, root(new))?;
        let old_tree = match old {
            None => None,
            Some(id) => Some(match self.last.get(&id) {
                Some(tree) => tree,
                None => read_tree(repo, id, &context, root(id))?,
            }),
        };
        let old_bytes = old_tree.as_deref().map_or(&[][..], Vec::as_slice);
        let changes = self.tree_changes(repo, old_bytes, &new_tree, renames, &context)?;
        // The tree read is kept for the next commit.
        self.last = LastTree {
            tree: Some((new, new_tree)),
        };
        Ok(changes)
    }

    /// Pair the exact renames of the last [`plain_changes`](Self::plain_changes)
    /// in `changes` as gix's tracker does, where the answer is plain: a file
    /// added with the same id (content) as exactly one file deleted, that id
    /// on no other file added or deleted, and both of compatible kinds (a
    /// file, executable or not; a symlink; a gitlink). `false`, with
    /// `changes` untouched, when the tracker must decide: an id shared by
    /// more than two such files (it prefers the same file name), or kinds it
    /// would not pair.
    ///
    /// gix's tracker pairs identical ids only (no similarity: [`Renames`]),
    /// deletions only as sources (no copies), whole directories included,
    /// whose files then match one to one as well.
    fn pair_renames(&mut self, changes: &mut Vec<Change>) -> bool {
        let (added, deleted) = (&mut self.added, &mut self.deleted);
        if added.is_empty() || deleted.is_empty() {
            return true;
        }
        added.sort_unstable();
        deleted.sort_unstable();
        let once = |list: &[(gix::ObjectId, usize)], at: usize| {
            let id = list[at].0;
            (at == 0 || list[at - 1].0 != id) && list.get(at + 1).is_none_or(|next| next.0 != id)
        };
        let mut pairs = Vec::new();
        for (at, &(id, dest)) in added.iter().enumerate() {
            let Ok(found) = deleted.binary_search_by(|probe| probe.0.cmp(&id)) else {
                continue;
            };
            let source = deleted[found].1;
            let compatible = match (changes[source].old, changes[dest].new) {
                (Some(old), Some(new)) => {
                    let file = |kind| matches!(kind, EntryKind::File | EntryKind::Executable);
                    (file(old) && file(new)) || old == new
                }
                _ => false,
            };
            if !once(added, at) || !once(deleted, found) || !compatible {
                return false;
            }
            pairs.push((source, dest));
        }
        if pairs.is_empty() {
            return true;
        }
        let mut gone = vec![false; changes.len()];
        for &(source, dest) in &pairs {
            let (from, old) = (changes[source].path.clone(), changes[source].old);
            let change = &mut changes[dest];
            change.kind = ChangeKind::Renamed;
            change.old = old;
            change.from = Some(from);
            gone[source] = true;
        }
        let mut at = 0;
        changes.retain(|_| {
            at += 1;
            !gone[at - 1]
        });
        true
    }

    /// [`tree_changes`](Self::tree_changes) through gix, with exact rename
    /// tracking.
    fn tracked_changes(
        &mut self,
        repo: &Objects<'_>,
        old: &[u8],
        new: &[u8],
        context: impl Fn() -> String,
    ) -> Result<Vec<Change>, GitError> {
        let resources = match &mut self.resources {
            Some(resources) => resources,
            slot @ None => slot.insert(resource_cache(repo.repo).map_err(|err| {
                GitError::gix(format!("{}: preparing the diff", context()), &err)
            })?),
        };
        let options = gix::diff::tree_with_rewrites::Options {
            location: Some(gix::diff::tree::recorder::Location::Path),
            // Explicit every time: `None` never builds a rename tracker.
            rewrites: Some(exact_rewrites()),
        };
        let mut changes = Vec::new();
        let objects = Recording {
            repo,
            missing: Cell::new(None),
        };
        let outcome = gix::diff::tree_with_rewrites(
            gix::objs::TreeRefIter::from_bytes(old, repo.object_hash()),
            gix::objs::TreeRefIter::from_bytes(new, repo.object_hash()),
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
        Ok(changes)
    }

    /// Every file-level change from `old` to `new`, without renames, as
    /// gix's tree diff reports them (an entry compared by name in git's tree
    /// order, then by mode and id; a subtree equal by id is never read).
    ///
    /// Entries that are the same bytes on both sides are equal whatever they
    /// hold, and are stepped over without being decoded: the common run of
    /// bytes at the front is found 32 and then 8 bytes at a time, and only the
    /// entries it covers are delimited (their name's end found). After each
    /// entry that differs the rest is compared the same way, so a directory
    /// where one file changed costs one pass over its bytes, where a decoder
    /// would parse every entry of both sides (docs/performance.md,
    /// "Provenance on equal work").
    fn plain_changes(
        &mut self,
        repo: &Objects<'_>,
        old: &[u8],
        new: &[u8],
        changes: &mut Vec<Change>,
        context: &dyn Fn() -> String,
    ) -> Result<(), GitError> {
        let hash = repo.object_hash();
        self.pending.clear();
        self.added.clear();
        self.deleted.clear();
        let mut out = Out {
            pending: &mut self.pending,
            changes,
            added: &mut self.added,
            deleted: &mut self.deleted,
        };
        compare_dir(old, new, &[], hash, &mut out, context)?;
        while let Some((old_id, new_id, prefix)) = out.pending.pop_front() {
            let old = read_subtree(repo, old_id, context)?;
            let new = read_subtree(repo, new_id, context)?;
            compare_dir(bytes(&old), bytes(&new), &prefix, hash, &mut out, context)?;
        }
        Ok(())
    }
}

/// A subtree being compared: `None` when the side has none.
fn read_subtree(
    repo: &Objects<'_>,
    id: Option<gix::ObjectId>,
    context: &dyn Fn() -> String,
) -> Result<Option<Shared>, GitError> {
    let Some(id) = id else {
        return Ok(None);
    };
    read_tree(repo, id, context, || GitError::MissingInDiff {
        id: id.to_string(),
        context: context(),
    })
    .map(Some)
}

/// The bytes of a tree [`read_subtree`] read: none where there is none.
fn bytes(tree: &Option<Shared>) -> &[u8] {
    tree.as_deref().map_or(&[][..], Vec::as_slice)
}

/// Tree `id`, as the delta-base cache holds it where it does (never
/// copied); `missing` is the error when it is absent (a commit's own tree
/// is a missing object, as a missing commit is; a subtree is missing from
/// the diff that needed it).
fn read_tree(
    repo: &Objects<'_>,
    id: gix::ObjectId,
    context: &dyn Fn() -> String,
    missing: impl FnOnce() -> GitError,
) -> Result<Shared, GitError> {
    match repo.find_shared(&id) {
        Ok(Some((gix::objs::Kind::Tree, tree))) => Ok(tree),
        Ok(Some((kind, _))) => Err(GitError::other(
            context(),
            format_args!("object {id} is a {kind}, not a tree"),
        )),
        Ok(None) => Err(missing()),
        Err(err) => Err(GitError::other(
            context(),
            format_args!("reading tree {id}: {err:#}"),
        )),
    }
}

/// One tree entry, decoded as gix decodes it.
struct RawEntry<'a> {
    mode: gix::objs::tree::EntryMode,
    name: &'a [u8],
    id: &'a gix::oid,
    /// Its length in the tree's bytes.
    len: usize,
}

/// The length of the entry `data` starts with (mode, name, id), or `None`
/// when `data` holds no whole entry. The mode and name hold no NUL byte.
fn entry_len(data: &[u8], hash: gix::hash::Kind) -> Option<usize> {
    let len = find_nul(data)? + 1 + hash.len_in_bytes();
    (len <= data.len()).then_some(len)
}

/// Where the first NUL byte of `data` is, looked for eight bytes at a
/// time in one machine word (a mode and a name are some twenty bytes). A
/// byte is flagged where subtracting one from it borrows out of a byte
/// that was not high: the lowest flag is always a NUL byte (a false flag
/// can only sit above a real one), so the first NUL is exact. The 32-byte
/// block test this replaces compiled, without AVX2, to some sixty
/// instructions a block of shuffles building its bit mask (objdump), and
/// was an eighth of a range's instructions on git/git.
fn find_nul(data: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    while let Some(word) = data[at..].first_chunk::<8>() {
        let word = u64::from_le_bytes(*word);
        let zeros = word.wrapping_sub(ONES) & !word & HIGHS;
        if zeros != 0 {
            return Some(at + (zeros.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    data[at..].iter().position(|&b| b == 0).map(|p| at + p)
}

/// The entry `data` starts with, or `None` when it is malformed: the mode as
/// gix reads it (octal digits up to a space), the name up to the NUL byte,
/// then the id.
fn decode_entry(data: &[u8], hash: gix::hash::Kind) -> Option<RawEntry<'_>> {
    let len = entry_len(data, hash)?;
    let nul = len - 1 - hash.len_in_bytes();
    let mode = gix::objs::tree::EntryMode::from_bytes(data)?;
    let space = data[..nul].iter().position(|&b| b == b' ')?;
    Some(RawEntry {
        mode,
        name: &data[space + 1..nul],
        id: gix::oid::try_from_bytes(&data[nul + 1..len]).ok()?,
        len,
    })
}

/// How many bytes `a` and `b` have in common at their start.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let mut at = 0;
    while let (Some(x), Some(y)) = (a[at..].first_chunk::<32>(), b[at..].first_chunk::<32>()) {
        if x != y {
            break;
        }
        at += 32;
    }
    while let (Some(x), Some(y)) = (a[at..].first_chunk::<8>(), b[at..].first_chunk::<8>()) {
        let differ = u64::from_le_bytes(*x) ^ u64::from_le_bytes(*y);
        if differ != 0 {
            return at + (differ.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + a[at..]
        .iter()
        .zip(&b[at..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// Where [`compare_dir`] puts what it finds.
struct Out<'a> {
    /// Subtrees that differ, or are on one side only.
    pending: &'a mut VecDeque<Pending>,
    /// File-level changes.
    changes: &'a mut Vec<Change>,
    /// The files added, and deleted: id and index in `changes`.
    added: &'a mut Vec<(gix::ObjectId, usize)>,
    deleted: &'a mut Vec<(gix::ObjectId, usize)>,
}

/// One directory of [`DiffCache::plain_changes`]: the raw trees `old` and
/// `new` at `prefix`.
fn compare_dir(
    mut old: &[u8],
    mut new: &[u8],
    prefix: &[u8],
    hash: gix::hash::Kind,
    out: &mut Out<'_>,
    context: &dyn Fn() -> String,
) -> Result<(), GitError> {
    let malformed = || GitError::other(context(), "decoding a tree: a malformed entry");
    loop {
        // Step over the entries both sides start with, byte for byte.
        let mut same = common_prefix(old, new);
        if same == old.len() && same == new.len() {
            return Ok(());
        }
        while let Some(len) = entry_len(old, hash).filter(|&len| len <= same) {
            (old, new, same) = (&old[len..], &new[len..], same - len);
        }
        match (old.is_empty(), new.is_empty()) {
            (true, true) => return Ok(()),
            (true, false) => {
                let entry = decode_entry(new, hash).ok_or_else(malformed)?;
                one_side(&entry, true, prefix, out);
                new = &new[entry.len..];
            }
            (false, true) => {
                let entry = decode_entry(old, hash).ok_or_else(malformed)?;
                one_side(&entry, false, prefix, out);
                old = &old[entry.len..];
            }
            (false, false) => {
                let lhs = decode_entry(old, hash).ok_or_else(malformed)?;
                let rhs = decode_entry(new, hash).ok_or_else(malformed)?;
                let order = gix::objs::tree::name_order(
                    lhs.name,
                    lhs.mode.is_tree(),
                    rhs.name,
                    rhs.mode.is_tree(),
                );
                match order {
                    std::cmp::Ordering::Less => {
                        one_side(&lhs, false, prefix, out);
                        old = &old[lhs.len..];
                    }
                    std::cmp::Ordering::Greater => {
                        one_side(&rhs, true, prefix, out);
                        new = &new[rhs.len..];
                    }
                    std::cmp::Ordering::Equal => {
                        match (lhs.mode.is_tree(), rhs.mode.is_tree()) {
                            (true, true) => {
                                if lhs.id != rhs.id {
                                    out.pending.push_back((
                                        Some(lhs.id.to_owned()),
                                        Some(rhs.id.to_owned()),
                                        join(prefix, lhs.name),
                                    ));
                                }
                            }
                            (false, false) => {
                                if lhs.id != rhs.id || lhs.mode != rhs.mode {
                                    let kinds = entry_kind(lhs.mode).zip(entry_kind(rhs.mode));
                                    if let Some((was, is)) = kinds {
                                        out.changes.push(Change::modified(
                                            RepoPath::new(join(prefix, lhs.name)),
                                            was,
                                            is,
                                        ));
                                    }
                                }
                            }
                            // A directory where a file was, or the reverse.
                            _ => {
                                one_side(&lhs, false, prefix, out);
                                one_side(&rhs, true, prefix, out);
                            }
                        }
                        old = &old[lhs.len..];
                        new = &new[rhs.len..];
                    }
                }
            }
        }
    }
}

/// The object database as a tree diff reads it, remembering the last object
/// it could not find: gix reports an absent subtree only as a generic
/// failure, and gate must name it as missing (unknown), like any other
/// absent object.
struct Recording<'r> {
    repo: &'r Objects<'r>,
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
    repo: &Objects<'_>,
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
    repo: &Objects<'_>,
    tree: Option<gix::ObjectId>,
    parents: &[Option<gix::ObjectId>],
    prefix: &mut Vec<u8>,
    changes: &mut Vec<Change>,
    context: &dyn Fn() -> String,
) -> Result<(), GitError> {
    let mut bufs: Vec<Option<Shared>> = Vec::with_capacity(1 + parents.len());
    for &id in std::iter::once(&tree).chain(parents) {
        bufs.push(read_subtree(repo, id, context)?);
    }
    let mut trees: Vec<&[u8]> = bufs.iter().map(bytes).collect();
    let mut subs: Vec<Option<gix::ObjectId>> = Vec::with_capacity(parents.len());
    walk_aligned(&mut trees, repo.object_hash(), context, |name, slot| {
        let (ours, theirs) = (slot[0], &slot[1..]);
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
        subs.clear();
        subs.extend(theirs.iter().map(|&t| Entry::subtree(t)));
        if !subs.contains(&sub) {
            let below = subs.clone();
            combined_dir(repo, sub, &below, prefix, changes, context)?;
        }
        prefix.truncate(len);
        Ok(())
    })
}

/// Several raw trees walked side by side in git's tree order (a directory
/// sorts as its name and a `/`): `each` is called once per name and kind
/// with every tree's entry of it (`None` where a tree has none). A name a
/// tree holds as a directory and another as a file comes twice, once per
/// kind: a file-level comparison sees only the files, a subtree comparison
/// only the directories, so the two halves answer as one slot would.
///
/// Entries every tree starts with byte for byte are stepped over unread,
/// as [`compare_dir`] steps over them: an entry alike in every tree is
/// neither a change nor a subtree to read. So a merge touching one file of
/// a directory of a thousand compares that file, not a thousand names.
fn walk_aligned<'a>(
    trees: &mut [&'a [u8]],
    hash: gix::hash::Kind,
    context: &dyn Fn() -> String,
    mut each: impl FnMut(&'a [u8], &[Option<Entry>]) -> Result<(), GitError>,
) -> Result<(), GitError> {
    let malformed = || GitError::other(context(), "decoding a tree: a malformed entry");
    let mut slot: Vec<Option<Entry>> = vec![None; trees.len()];
    loop {
        // Step over the entries every tree starts with, byte for byte.
        if trees.len() > 1 && trees.iter().all(|t| !t.is_empty()) {
            let first: &'a [u8] = trees[0];
            let same = trees[1..]
                .iter()
                .map(|t| common_prefix(first, t))
                .min()
                .unwrap_or(0);
            let mut skip = 0;
            while let Some(len) = entry_len(&first[skip..], hash).filter(|&len| skip + len <= same)
            {
                skip += len;
            }
            if skip > 0 {
                for t in trees.iter_mut() {
                    *t = &t[skip..];
                }
            }
        }
        // The least head, in git's order.
        let mut least: Option<(&'a [u8], bool)> = None;
        for &t in trees.iter() {
            if t.is_empty() {
                continue;
            }
            let head = decode_entry(t, hash).ok_or_else(malformed)?;
            let is_tree = head.mode.is_tree();
            let less = least.is_none_or(|(name, tree)| {
                gix::objs::tree::name_order(head.name, is_tree, name, tree)
                    == std::cmp::Ordering::Less
            });
            if less {
                least = Some((head.name, is_tree));
            }
        }
        let Some((name, is_tree)) = least else {
            return Ok(());
        };
        for (at, t) in trees.iter_mut().enumerate() {
            slot[at] = None;
            let tree: &'a [u8] = t;
            if tree.is_empty() {
                continue;
            }
            let head = decode_entry(tree, hash).ok_or_else(malformed)?;
            if head.mode.is_tree() == is_tree && head.name == name {
                slot[at] = Some(Entry {
                    mode: head.mode,
                    id: head.id.to_owned(),
                });
                *t = &tree[head.len..];
            }
        }
        each(name, &slot)?;
    }
}

/// The trees a merge is judged by ([`merge_changes`]): its own, its
/// parents', and for each parent after the first the trees of the merge
/// bases it is merged on (those of that parent and the parents before it,
/// as git's octopus strategy merges them in turn; none where the histories
/// share no commit: the empty tree).
pub(super) struct MergeTrees<'a> {
    pub tree: gix::ObjectId,
    pub parents: &'a [gix::ObjectId],
    pub bases: &'a [Vec<gix::ObjectId>],
}

/// Where each tree of a [`MergeTrees`] sits in the list a directory's
/// entries are gathered into: the merge's first, then each parent's, then
/// the bases of each parent after the first, in `bases[k]` for parent
/// `k + 1`.
struct Layout {
    parents: usize,
    bases: Vec<std::ops::Range<usize>>,
}

impl Layout {
    /// What a clean merge of the parents gives, from `values` (one per
    /// tree, in layout order), as [`super::merged::clean_merge`] decides.
    fn clean<V: Copy + Eq>(&self, values: &[V]) -> Option<V> {
        let rest = self
            .bases
            .iter()
            .enumerate()
            .map(|(k, range)| (values[2 + k], &values[range.clone()]));
        super::merged::clean_merge(values[1], rest)
    }
}

/// The changes a merge made itself: every file-level path where its entry
/// is not what a clean merge of its parents gives (docs/provenance.md#merges,
/// decision 0023): where only one side changed a path since the merge base,
/// that side's version; where both made the same change, it; where both
/// changed it differently, nothing — the path is the merge's. Sorted by
/// path; each described against what a clean merge gives there, or where
/// none can be told against the first parent (else the first parent that
/// has it).
///
/// One walk over all the trees at once, as [`combined_changes`]: a subtree
/// whose id the rule already accepts (the side that changed it, both sides
/// equal) is never read, nor anything below it — no path below can be the
/// merge's own. A tree that several roles share (a parent that is the base)
/// is read once per directory.
pub(super) fn merge_changes(
    repo: &Objects<'_>,
    trees: &MergeTrees<'_>,
    context: impl Fn() -> String,
) -> Result<Vec<Change>, GitError> {
    let mut roles: Vec<Option<gix::ObjectId>> = vec![Some(trees.tree)];
    roles.extend(trees.parents.iter().copied().map(Some));
    let mut layout = Layout {
        parents: trees.parents.len(),
        bases: Vec::with_capacity(trees.bases.len()),
    };
    for bases in trees.bases {
        let start = roles.len();
        if bases.is_empty() {
            roles.push(None);
        } else {
            roles.extend(bases.iter().copied().map(Some));
        }
        layout.bases.push(start..roles.len());
    }
    let mut changes = Vec::new();
    let mut prefix = Vec::new();
    if layout.clean(&roles) != Some(roles[0]) {
        merge_dir(repo, &roles, &layout, &mut prefix, &mut changes, &context)?;
    }
    changes.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    Ok(changes)
}

/// One directory of [`merge_changes`]: the trees at `prefix`, one per role
/// of `layout` (`None` where that side has none).
fn merge_dir(
    repo: &Objects<'_>,
    roles: &[Option<gix::ObjectId>],
    layout: &Layout,
    prefix: &mut Vec<u8>,
    changes: &mut Vec<Change>,
    context: &dyn Fn() -> String,
) -> Result<(), GitError> {
    // Each distinct tree read once; each role points at its tree.
    let mut ids: Vec<gix::ObjectId> = Vec::new();
    let mut bufs: Vec<Option<Shared>> = Vec::new();
    let mut tree_of: Vec<Option<usize>> = Vec::with_capacity(roles.len());
    for role in roles {
        tree_of.push(match role {
            None => None,
            Some(id) => Some(match ids.iter().position(|seen| seen == id) {
                Some(at) => at,
                None => {
                    bufs.push(read_subtree(repo, Some(*id), context)?);
                    ids.push(*id);
                    ids.len() - 1
                }
            }),
        });
    }
    let hash = repo.object_hash();
    let empty: &[u8] = &[];
    let tree = |at: Option<usize>| at.map_or(empty, |t| bytes(&bufs[t]));
    // The names where a clean merge can differ from the merge itself: where
    // the merge differs from its first parent, or a later parent from one
    // of its bases. Anywhere else the merge, the first parent and the clean
    // merge agree (each later parent holds what its bases hold, so the
    // first parent's side is taken): nothing there, nor below, is the
    // merge's own. Each pair is walked on its own, stepping over the runs
    // the two trees hold alike; a topic merged into a busy branch differs
    // from its old base at every name the branch changed since, but the
    // merge differs from its first parent, and the topic from its base, at
    // few. Each pair says what its two trees hold at the names it found.
    let mut pairs: Vec<(usize, usize)> = vec![(0, 1)];
    for (k, range) in layout.bases.iter().enumerate() {
        pairs.extend(range.clone().map(|base| (2 + k, base)));
    }
    let mut found: Vec<Differs<'_>> = Vec::new();
    for (at, &(a, b)) in pairs.iter().enumerate() {
        if tree_of[a] != tree_of[b] {
            differing(
                tree(tree_of[a]),
                tree(tree_of[b]),
                hash,
                context,
                at,
                &mut found,
            )?;
        }
    }
    found.sort_by(|x, y| gix::objs::tree::name_order(x.name, x.is_tree, y.name, y.is_tree));
    // What a tree holds at a name no pair of it reported is looked up, its
    // cursor stepping on from the last name looked up there.
    let mut cursors: Vec<&[u8]> = bufs.iter().map(bytes).collect();
    let mut known: Vec<Option<Option<Entry>>> = vec![None; bufs.len()];
    let mut reported = vec![false; pairs.len()];
    let mut leaves: Vec<Option<Entry>> = vec![None; roles.len()];
    let mut subs: Vec<Option<gix::ObjectId>> = vec![None; roles.len()];
    let mut at = 0;
    while at < found.len() {
        let (name, is_tree) = (found[at].name, found[at].is_tree);
        known.fill(None);
        reported.fill(false);
        while let Some(d) = found
            .get(at)
            .filter(|d| d.name == name && d.is_tree == is_tree)
        {
            let (a, b) = pairs[d.pair];
            for (role, entry) in [(a, d.a), (b, d.b)] {
                if let Some(t) = tree_of[role] {
                    known[t] = Some(entry);
                }
            }
            reported[d.pair] = true;
            at += 1;
        }
        // A merge of two parents whose second holds here what its bases
        // hold: that side adds nothing to a clean merge, here or below (the
        // first parent's side is taken), so its entries are not looked up
        // and its subtrees not read; all of them count as absent, alike.
        let quiet = layout.parents == 2 && !reported[1..].iter().any(|&r| r);
        for (role, t) in tree_of.iter().enumerate() {
            let entry = match *t {
                _ if quiet && role >= 2 => None,
                None => None,
                Some(t) => match known[t] {
                    Some(entry) => entry,
                    None => {
                        let entry = look_up(&mut cursors[t], name, is_tree, hash, context)?;
                        known[t] = Some(entry);
                        entry
                    }
                },
            };
            leaves[role] = Entry::leaf(entry);
            subs[role] = Entry::subtree(entry);
        }
        let len = prefix.len();
        if !prefix.is_empty() {
            prefix.push(b'/');
        }
        prefix.extend_from_slice(name);
        let clean = layout.clean(&leaves);
        if clean != Some(leaves[0]) {
            let parents = &leaves[1..=layout.parents];
            let old = clean.unwrap_or_else(|| parents.iter().copied().flatten().next());
            let path = || RepoPath::new(prefix.clone());
            let change = match (
                old.and_then(|e| entry_kind(e.mode)),
                leaves[0].and_then(|e| entry_kind(e.mode)),
            ) {
                (None, Some(new)) => Some(Change::added(path(), new)),
                (Some(old), None) => Some(Change::deleted(path(), old)),
                (Some(old), Some(new)) => Some(Change::modified(path(), old, new)),
                (None, None) => None,
            };
            changes.extend(change);
        }
        if layout.clean(&subs) != Some(subs[0]) {
            let below = subs.clone();
            merge_dir(repo, &below, layout, prefix, changes, context)?;
        }
        prefix.truncate(len);
    }
    Ok(())
}

/// A name at which the two trees of a pair of [`merge_dir`] hold different
/// entries (or one holds none): what each holds there.
struct Differs<'a> {
    name: &'a [u8],
    /// Whether the name is a directory's, as git orders names.
    is_tree: bool,
    /// Which pair.
    pair: usize,
    a: Option<Entry>,
    b: Option<Entry>,
}

/// The entry tree `cursor` holds at `name` (a directory's when `is_tree`),
/// `None` when it holds none; `cursor` is stepped past every name before
/// it, reading only each name (the first byte decides most), and past the
/// entry when it is found. Names are looked up in git's order.
fn look_up(
    cursor: &mut &[u8],
    name: &[u8],
    is_tree: bool,
    hash: gix::hash::Kind,
    context: &dyn Fn() -> String,
) -> Result<Option<Entry>, GitError> {
    let malformed = || GitError::other(context(), "decoding a tree: a malformed entry");
    while let Some(len) = entry_len(cursor, hash) {
        let nul = len - 1 - hash.len_in_bytes();
        let Some(space) = cursor[..nul].iter().position(|&b| b == b' ') else {
            return Err(malformed());
        };
        let head = &cursor[space + 1..nul];
        let before = match (head.first(), name.first()) {
            (Some(h), Some(n)) if h != n => h < n,
            _ => {
                let head_tree = gix::objs::tree::EntryMode::from_bytes(cursor)
                    .is_some_and(|mode| mode.is_tree());
                gix::objs::tree::name_order(head, head_tree, name, is_tree)
                    == std::cmp::Ordering::Less
            }
        };
        if !before {
            break;
        }
        *cursor = &cursor[len..];
    }
    if cursor.is_empty() {
        return Ok(None);
    }
    let head = decode_entry(cursor, hash).ok_or_else(malformed)?;
    if head.name == name && head.mode.is_tree() == is_tree {
        *cursor = &cursor[head.len..];
        return Ok(Some(Entry {
            mode: head.mode,
            id: head.id.to_owned(),
        }));
    }
    Ok(None)
}

/// The names (with whether each is a directory's, as git orders them) at
/// which trees `a` and `b` hold different entries, or an entry on one side
/// only, appended to `out` in git's order with what each holds there, as
/// pair `pair`. Runs of entries both hold byte for byte are stepped over
/// as [`compare_dir`] steps over them.
fn differing<'a>(
    mut a: &'a [u8],
    mut b: &'a [u8],
    hash: gix::hash::Kind,
    context: &dyn Fn() -> String,
    pair: usize,
    out: &mut Vec<Differs<'a>>,
) -> Result<(), GitError> {
    let malformed = || GitError::other(context(), "decoding a tree: a malformed entry");
    let entry = |e: &RawEntry<'_>| {
        Some(Entry {
            mode: e.mode,
            id: e.id.to_owned(),
        })
    };
    loop {
        if !a.is_empty() && !b.is_empty() {
            let same = common_prefix(a, b);
            let mut skip = 0;
            while let Some(len) = entry_len(&a[skip..], hash).filter(|&len| skip + len <= same) {
                skip += len;
            }
            a = &a[skip..];
            b = &b[skip..];
        }
        let head = |t: &'a [u8]| -> Result<Option<RawEntry<'a>>, GitError> {
            if t.is_empty() {
                Ok(None)
            } else {
                decode_entry(t, hash).map(Some).ok_or_else(malformed)
            }
        };
        let (name, is_tree, x, y) = match (head(a)?, head(b)?) {
            (None, None) => return Ok(()),
            (Some(x), None) => {
                a = &a[x.len..];
                (x.name, x.mode.is_tree(), entry(&x), None)
            }
            (None, Some(y)) => {
                b = &b[y.len..];
                (y.name, y.mode.is_tree(), None, entry(&y))
            }
            (Some(x), Some(y)) => {
                let (xt, yt) = (x.mode.is_tree(), y.mode.is_tree());
                match gix::objs::tree::name_order(x.name, xt, y.name, yt) {
                    std::cmp::Ordering::Less => {
                        a = &a[x.len..];
                        (x.name, xt, entry(&x), None)
                    }
                    std::cmp::Ordering::Greater => {
                        b = &b[y.len..];
                        (y.name, yt, None, entry(&y))
                    }
                    std::cmp::Ordering::Equal => {
                        a = &a[x.len..];
                        b = &b[y.len..];
                        (x.name, xt, entry(&x), entry(&y))
                    }
                }
            }
        };
        out.push(Differs {
            name,
            is_tree,
            pair,
            a: x,
            b: y,
        });
    }
}

/// `name` below `prefix`.
fn join(prefix: &[u8], name: &[u8]) -> Vec<u8> {
    let mut path = Vec::with_capacity(prefix.len() + 1 + name.len());
    if !prefix.is_empty() {
        path.extend_from_slice(prefix);
        path.push(b'/');
    }
    path.extend_from_slice(name);
    path
}

/// An entry on one side only: the file, or everything below the directory,
/// was added (or deleted).
fn one_side(entry: &RawEntry<'_>, added: bool, prefix: &[u8], out: &mut Out<'_>) {
    if entry.mode.is_tree() {
        let id = Some(entry.id.to_owned());
        let (old, new) = if added { (None, id) } else { (id, None) };
        out.pending.push_back((old, new, join(prefix, entry.name)));
    } else if let Some(kind) = entry_kind(entry.mode) {
        let path = RepoPath::new(join(prefix, entry.name));
        let at = (entry.id.to_owned(), out.changes.len());
        if added {
            out.added.push(at);
            out.changes.push(Change::added(path, kind));
        } else {
            out.deleted.push(at);
            out.changes.push(Change::deleted(path, kind));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA1: gix::hash::Kind = gix::hash::Kind::Sha1;

    fn id(last: u8) -> [u8; 20] {
        let mut id = [0x5a; 20];
        id[19] = last;
        id
    }

    /// A raw tree object of `entries` (mode, name, id), in the order given.
    fn tree(entries: &[(&str, &str, [u8; 20])]) -> Vec<u8> {
        let mut out = Vec::new();
        for (mode, name, id) in entries {
            out.extend_from_slice(mode.as_bytes());
            out.push(b' ');
            out.extend_from_slice(name.as_bytes());
            out.push(0);
            out.extend_from_slice(id);
        }
        out
    }

    /// What [`compare_dir`] reports for `old` against `new` at `dir`: the
    /// changes as `kind path`, and the subtrees left to compare as `path`
    /// with the side(s) that have it.
    fn compare(old: &[u8], new: &[u8]) -> Result<(Vec<String>, Vec<String>), GitError> {
        let (mut pending, mut changes) = (VecDeque::new(), Vec::new());
        let (mut added, mut deleted) = (Vec::new(), Vec::new());
        let mut out = Out {
            pending: &mut pending,
            changes: &mut changes,
            added: &mut added,
            deleted: &mut deleted,
        };
        compare_dir(old, new, b"dir", SHA1, &mut out, &|| "test".into())?;
        let changes = changes
            .iter()
            .map(|c| format!("{} {}", c.kind.as_str(), c.path))
            .collect();
        let pending = pending
            .iter()
            .map(|(old, new, path)| {
                let sides = match (old, new) {
                    (Some(_), Some(_)) => "both",
                    (Some(_), None) => "old",
                    (None, Some(_)) => "new",
                    (None, None) => "none",
                };
                format!("{} {sides}", String::from_utf8_lossy(path))
            })
            .collect();
        Ok((changes, pending))
    }

    fn files(
        names: &[&str],
        changed: Option<(&str, [u8; 20])>,
    ) -> Vec<(&'static str, String, [u8; 20])> {
        names
            .iter()
            .map(|name| {
                let id = match changed {
                    Some((which, id)) if which == *name => id,
                    _ => id(1),
                };
                ("100644", (*name).to_string(), id)
            })
            .collect()
    }

    fn raw(entries: &[(&'static str, String, [u8; 20])]) -> Vec<u8> {
        let borrowed: Vec<(&str, &str, [u8; 20])> = entries
            .iter()
            .map(|(m, n, i)| (*m, n.as_str(), *i))
            .collect();
        tree(&borrowed)
    }

    #[test]
    fn an_id_differing_in_its_last_byte_is_a_change_and_the_rest_is_not() {
        let names = ["a.rs", "b.rs", "c.rs", "d.rs", "e.rs", "f.rs"];
        let old = raw(&files(&names, None));
        // The bytes are common up to the last byte of c.rs's id, and again
        // from there to the end.
        let new = raw(&files(&names, Some(("c.rs", id(2)))));
        assert_eq!(old.len(), new.len());
        let (changes, pending) = compare(&old, &new).unwrap();
        assert_eq!(changes, ["modified dir/c.rs"]);
        assert!(pending.is_empty());
    }

    #[test]
    fn the_first_and_the_last_entries_are_compared() {
        let names = ["a.rs", "b.rs", "c.rs"];
        let old = raw(&files(&names, None));
        let mut new = files(&names, Some(("a.rs", id(3))));
        new[2].2 = id(4);
        let (changes, _) = compare(&old, &raw(&new)).unwrap();
        assert_eq!(changes, ["modified dir/a.rs", "modified dir/c.rs"]);
    }

    #[test]
    fn a_mode_change_with_the_same_id_is_seen() {
        let old = tree(&[("100644", "run.sh", id(1)), ("100644", "z", id(1))]);
        let new = tree(&[("100755", "run.sh", id(1)), ("100644", "z", id(1))]);
        let (changes, _) = compare(&old, &new).unwrap();
        assert_eq!(changes, ["modified dir/run.sh"]);
    }

    #[test]
    fn entries_shifted_by_an_addition_or_a_deletion_are_still_equal() {
        let old = raw(&files(&["b", "c", "d"], None));
        let new = raw(&files(&["a", "b", "c", "d"], None));
        assert_eq!(compare(&old, &new).unwrap().0, ["added dir/a"]);
        assert_eq!(compare(&new, &old).unwrap().0, ["deleted dir/a"]);
        let shorter = raw(&files(&["b", "c"], None));
        assert_eq!(compare(&old, &shorter).unwrap().0, ["deleted dir/d"]);
        assert_eq!(compare(&old, &old).unwrap(), (vec![], vec![]));
    }

    #[test]
    fn a_file_that_became_a_directory_is_ordered_as_git_orders_trees() {
        // git sorts a tree named `a` as `a/`: after `a.txt`, where the file
        // `a` sorts before it.
        let old = tree(&[("100644", "a", id(1)), ("100644", "a.txt", id(1))]);
        let new = tree(&[("100644", "a.txt", id(1)), ("40000", "a", id(7))]);
        let (changes, pending) = compare(&old, &new).unwrap();
        assert_eq!(changes, ["deleted dir/a"]);
        assert_eq!(pending, ["dir/a new"]);
        let (changes, pending) = compare(&new, &old).unwrap();
        assert_eq!(changes, ["added dir/a"]);
        assert_eq!(pending, ["dir/a old"]);
    }

    #[test]
    fn a_changed_subtree_is_left_to_compare_and_an_equal_one_is_not() {
        let old = tree(&[("40000", "same", id(1)), ("40000", "sub", id(1))]);
        let new = tree(&[("40000", "same", id(1)), ("40000", "sub", id(2))]);
        let (changes, pending) = compare(&old, &new).unwrap();
        assert!(changes.is_empty());
        assert_eq!(pending, ["dir/sub both"]);
    }

    #[test]
    fn the_first_nul_byte_is_found_as_a_byte_by_byte_search_finds_it() {
        // Bytes near the word trick's edges (0, 1, 0x7f, 0x80, 0x81, 0xff)
        // and any other, in every length across a few words.
        let edges = [0u8, 1, 0x7f, 0x80, 0x81, 0xfe, 0xff];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for round in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = (state % 41) as usize;
            let data: Vec<u8> = (0..len)
                .map(|i| {
                    let r = state.rotate_left(i as u32 * 7 + round % 13);
                    if r.is_multiple_of(3) {
                        edges[(r >> 8) as usize % edges.len()]
                    } else if r.is_multiple_of(5) {
                        0
                    } else {
                        (r >> 16) as u8 | 1
                    }
                })
                .collect();
            let naive = data.iter().position(|&b| b == 0);
            assert_eq!(find_nul(&data), naive, "{data:?}");
        }
    }

    #[test]
    fn the_first_nul_byte_is_found_wherever_it_is() {
        for len in 0..40 {
            for at in 0..len {
                let mut data: Vec<u8> = (0..len).map(|i| (i % 250 + 1) as u8).collect();
                data[at] = 0;
                // Bytes that can flag falsely after a zero byte.
                if at + 1 < len {
                    data[at + 1] = 0x01;
                }
                assert_eq!(find_nul(&data), Some(at), "{len} {at}");
                data.iter_mut().skip(at + 1).for_each(|b| *b = 0);
                assert_eq!(find_nul(&data), Some(at), "{len} {at}");
            }
            let none: Vec<u8> = (0..len).map(|i| (i % 250 + 1) as u8).collect();
            assert_eq!(find_nul(&none), None);
        }
    }

    #[test]
    fn the_common_prefix_ends_at_the_first_differing_byte() {
        let a: Vec<u8> = (0..100u8).collect();
        for at in 0..100 {
            let mut b = a.clone();
            b[at] ^= 0x80;
            assert_eq!(common_prefix(&a, &b), at);
            assert_eq!(common_prefix(&a[..at], &b), at);
        }
        assert_eq!(common_prefix(&a, &a), 100);
        assert_eq!(common_prefix(&a[..70], &a), 70);
    }

    #[test]
    fn a_malformed_entry_that_differs_is_an_error() {
        let old = tree(&[("100644", "a", id(1))]);
        let mut new = old.clone();
        new.truncate(new.len() - 3);
        assert!(compare(&old, &new).is_err());
        let bad_mode = tree(&[("10x644", "a", id(2))]);
        assert!(compare(&old, &bad_mode).is_err());
    }
}
