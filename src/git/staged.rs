//! The staged changes read the way git reads them: through the index's
//! cache-tree, so a commit of one file reads the trees on that file's path
//! and nothing else.
//!
//! The cache-tree (the index's `TREE` extension) records, for every
//! directory it still vouches for, the tree object its index entries make;
//! `git add` invalidates the directories above what it changes, and a commit
//! writes the trees the cache-tree names. Where a directory's recorded tree
//! is the HEAD tree's own subtree, nothing below it is staged, so no tree
//! below it is read. Elsewhere the HEAD tree and the index entries are
//! merged level by level, in git's order.
//!
//! This is a shortcut beside gix's full comparison (which builds an index
//! from the whole HEAD tree): [`changes`] answers `None` whenever the index
//! holds what the merge does not model — conflict stages, intent-to-add
//! entries, a sparse or split index — and, for exact rename tracking, when
//! a staged addition has the content of a staged deletion or rewrite (a
//! rename to pair). The caller then takes the full path; the oracle tests
//! compare both with `git diff --cached`.

use std::cmp::Ordering;
use std::collections::HashSet;

use gix::index::extension::Tree as CacheTree;
use gix::index::{Entry, State};
use gix::objs::TreeRefIter;

use super::{Change, ChangeKind, EntryKind, GitError, Renames, entry_kind, index_entry_kind};
use crate::path::RepoPath;

/// The changes from `head_tree` to `index`, sorted by path; `None` when the
/// full comparison must answer.
pub(super) fn changes(
    repo: &gix::Repository,
    index: &State,
    head_tree: gix::ObjectId,
    renames: Renames,
) -> Result<Option<Vec<Change>>, GitError> {
    if index.is_sparse() || index.link().is_some() || index.entries().iter().any(unusual) {
        return Ok(None);
    }
    let mut walk = Walk {
        repo,
        index,
        changes: Vec::new(),
        prefix: Vec::new(),
    };
    walk.dir(head_tree, index.entries(), index.tree())?;
    let Walk { changes, .. } = walk;
    if renames == Renames::Exact && has_rename_candidate(&changes) {
        return Ok(None);
    }
    let mut changes: Vec<Change> = changes.into_iter().map(|c| c.change).collect();
    changes.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    Ok(Some(changes))
}

/// An entry the level-by-level merge does not model.
fn unusual(entry: &Entry) -> bool {
    entry.stage_raw() != 0
        || entry
            .flags
            .contains(gix::index::entry::Flags::INTENT_TO_ADD)
        || index_kind(entry).is_none()
}

fn index_kind(entry: &Entry) -> Option<EntryKind> {
    index_entry_kind(entry.mode)
}

/// A change with the object ids exact rename tracking would pair by.
struct Found {
    change: Change,
    old: Option<gix::ObjectId>,
    new: Option<gix::ObjectId>,
}

/// Whether an added object is also a deleted one: a pair exact rename
/// tracking could make (conservatively: it may not). Without copy tracking,
/// gix (like git) takes rename sources from deletions only.
fn has_rename_candidate(changes: &[Found]) -> bool {
    let old: HashSet<_> = changes
        .iter()
        .filter(|c| c.change.kind == ChangeKind::Deleted)
        .filter_map(|c| c.old)
        .collect();
    changes
        .iter()
        .any(|c| c.change.kind == ChangeKind::Added && c.new.is_some_and(|id| old.contains(&id)))
}

struct Walk<'a> {
    repo: &'a gix::Repository,
    index: &'a State,
    changes: Vec<Found>,
    /// The directory being compared: empty at the root, else ending in `/`.
    prefix: Vec<u8>,
}

/// One name at a directory level, from the tree or from the index.
#[derive(Clone, Copy)]
struct Key<'k> {
    name: &'k [u8],
    dir: bool,
}

impl Key<'_> {
    /// Git's order: a directory sorts as its name followed by `/`.
    fn cmp(&self, other: &Key<'_>) -> Ordering {
        let slash = |dir: bool| dir.then_some(&b'/');
        self.name
            .iter()
            .chain(slash(self.dir))
            .cmp(other.name.iter().chain(slash(other.dir)))
    }
}

/// The children of cache-tree node `cache`, sorted by name for
/// [`child_named`]. git writes them shortest name first, not in a tree's
/// order, and a directory can have thousands: a scan of them for each
/// subdirectory made a commit under a directory of 2,000 subdirectories
/// cost 4 million name comparisons.
fn by_name(cache: Option<&CacheTree>) -> Vec<&CacheTree> {
    let mut children: Vec<&CacheTree> =
        cache.map_or_else(Vec::new, |c| c.children.iter().collect());
    // Stable: of two children with one name (a damaged index), the first
    // written is found, as a scan would find it.
    children.sort_by(|a, b| a.name.as_slice().cmp(b.name.as_slice()));
    children
}

/// The child named `name` among `children` ([`by_name`]'s order).
fn child_named<'c>(children: &[&'c CacheTree], name: &[u8]) -> Option<&'c CacheTree> {
    let at = children.partition_point(|c| c.name.as_slice() < name);
    children
        .get(at)
        .filter(|c| c.name.as_slice() == name)
        .copied()
}

impl<'a> Walk<'a> {
    fn path(&self, entry: &'a Entry) -> &'a [u8] {
        entry.path(self.index)
    }

    /// Compare the directory at `self.prefix`, HEAD's tree `tree`, against
    /// `entries` (every index entry below the prefix), with the cache-tree
    /// node for the directory, if any.
    fn dir(
        &mut self,
        tree: gix::ObjectId,
        entries: &'a [Entry],
        cache: Option<&CacheTree>,
    ) -> Result<(), GitError> {
        if let Some(cache) = cache
            && cache.id == tree
            && cache
                .num_entries
                .is_some_and(|n| n as usize == entries.len())
        {
            // The index's entries here make exactly HEAD's tree: unchanged.
            return Ok(());
        }
        let data = if tree.is_empty_tree() {
            Vec::new()
        } else {
            self.read_tree(tree)?
        };
        let kind = self.repo.object_hash();
        let mut from_tree = TreeRefIter::from_bytes(&data, kind).peekable();
        let children = by_name(cache);
        let mut rest = entries;
        loop {
            let tree_entry = match from_tree.peek() {
                Some(Ok(entry)) => Some(*entry),
                Some(Err(err)) => {
                    return Err(GitError::other(
                        format!("decoding tree {tree}"),
                        format_args!("{err}"),
                    ));
                }
                None => None,
            };
            let index_group = self.next_group(rest);
            let order = match (&tree_entry, &index_group) {
                (None, None) => return Ok(()),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (Some(t), Some((key, _))) => Key {
                    name: t.filename,
                    dir: t.mode.is_tree(),
                }
                .cmp(key),
            };
            match order {
                Ordering::Less => {
                    let t = tree_entry.expect("a tree entry sorts first");
                    from_tree.next();
                    self.deleted(t.filename, t.mode, t.oid.to_owned())?;
                }
                Ordering::Greater => {
                    let (_, group) = index_group.expect("an index entry sorts first");
                    rest = &rest[group.len()..];
                    for entry in group {
                        self.added(entry);
                    }
                }
                Ordering::Equal => {
                    let t = tree_entry.expect("equal keys");
                    let (key, group) = index_group.expect("equal keys");
                    from_tree.next();
                    rest = &rest[group.len()..];
                    if key.dir {
                        let len = self.prefix.len();
                        self.prefix.extend_from_slice(t.filename);
                        self.prefix.push(b'/');
                        let child = child_named(&children, t.filename);
                        let result = self.dir(t.oid.to_owned(), group, child);
                        self.prefix.truncate(len);
                        result?;
                    } else {
                        self.compared(t.mode, t.oid, &group[0]);
                    }
                }
            }
        }
    }

    /// The next name at this level among `rest`: one file entry, or every
    /// entry of one subdirectory (contiguous: the index is sorted by path).
    fn next_group(&self, rest: &'a [Entry]) -> Option<(Key<'a>, &'a [Entry])> {
        let first = rest.first()?;
        let relative = &self.path(first)[self.prefix.len()..];
        match relative.iter().position(|b| *b == b'/') {
            None => Some((
                Key {
                    name: relative,
                    dir: false,
                },
                &rest[..1],
            )),
            Some(slash) => {
                let below = &self.path(first)[..self.prefix.len() + slash + 1];
                let end = rest.partition_point(|e| self.path(e).starts_with(below));
                let name = &relative[..slash];
                Some((Key { name, dir: true }, &rest[..end]))
            }
        }
    }

    fn read_tree(&self, id: gix::ObjectId) -> Result<Vec<u8>, GitError> {
        let object = match self.repo.try_find_object(id) {
            Ok(Some(object)) => object,
            Ok(None) => {
                return Err(GitError::MissingInDiff {
                    id: id.to_string(),
                    context: "diffing the index against HEAD".into(),
                });
            }
            Err(err) => return Err(GitError::gix(format!("reading object {id}"), &err)),
        };
        if object.kind != gix::objs::Kind::Tree {
            return Err(GitError::other(
                format!("reading tree {id}"),
                format_args!("object {id} is a {}, not a tree", object.kind),
            ));
        }
        Ok(object.detach().data)
    }

    fn full(&self, name: &[u8]) -> RepoPath {
        let mut path = Vec::with_capacity(self.prefix.len() + name.len());
        path.extend_from_slice(&self.prefix);
        path.extend_from_slice(name);
        RepoPath::new(path)
    }

    /// HEAD's `name` (a file or a whole subtree) is not in the index.
    fn deleted(
        &mut self,
        name: &[u8],
        mode: gix::objs::tree::EntryMode,
        id: gix::ObjectId,
    ) -> Result<(), GitError> {
        if mode.is_tree() {
            let len = self.prefix.len();
            self.prefix.extend_from_slice(name);
            self.prefix.push(b'/');
            let result = self.dir(id, &[], None);
            self.prefix.truncate(len);
            return result;
        }
        let Some(old) = entry_kind(mode) else {
            return Ok(());
        };
        let change = Change::deleted(self.full(name), old);
        self.changes.push(Found {
            change,
            old: Some(id),
            new: None,
        });
        Ok(())
    }

    fn added(&mut self, entry: &'a Entry) {
        let Some(new) = index_kind(entry) else {
            return;
        };
        let change = Change::added(RepoPath::new(self.path(entry).to_vec()), new);
        self.changes.push(Found {
            change,
            old: None,
            new: Some(entry.id),
        });
    }

    /// A file present on both sides.
    fn compared(&mut self, mode: gix::objs::tree::EntryMode, id: &gix::oid, entry: &'a Entry) {
        let (Some(old), Some(new)) = (entry_kind(mode), index_kind(entry)) else {
            return;
        };
        if old == new && id == entry.id {
            return;
        }
        let change = Change::modified(RepoPath::new(self.path(entry).to_vec()), old, new);
        self.changes.push(Found {
            change,
            old: Some(id.to_owned()),
            new: Some(entry.id),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, id: u8, children: Vec<CacheTree>) -> CacheTree {
        CacheTree {
            name: name.as_bytes().into(),
            id: gix::ObjectId::from_bytes_or_panic(&[id; 20]),
            num_entries: Some(1),
            children,
        }
    }

    #[test]
    fn a_child_is_found_by_name_in_any_written_order() {
        // git writes a node's children shortest name first.
        let names = ["b", "z", "aa", "a-b", "a.b", "a0", "zz", "abc", "a"];
        let root = node(
            "",
            0,
            names
                .iter()
                .enumerate()
                .map(|(i, name)| node(name, i as u8 + 1, Vec::new()))
                .collect(),
        );
        let children = by_name(Some(&root));
        for (i, name) in names.iter().enumerate() {
            let found = child_named(&children, name.as_bytes()).expect(name);
            assert_eq!(
                found.id,
                gix::ObjectId::from_bytes_or_panic(&[i as u8 + 1; 20]),
                "{name}"
            );
        }
        for missing in ["", "ab", "a/", "c", "zzz", "a-"] {
            assert!(
                child_named(&children, missing.as_bytes()).is_none(),
                "{missing}"
            );
        }
        assert!(by_name(None).is_empty());
    }

    #[test]
    fn of_two_children_with_one_name_the_first_written_is_found() {
        let root = node(
            "",
            0,
            vec![node("x", 1, Vec::new()), node("x", 2, Vec::new())],
        );
        let children = by_name(Some(&root));
        let found = child_named(&children, b"x").expect("x");
        assert_eq!(found.id, gix::ObjectId::from_bytes_or_panic(&[1; 20]));
    }
}
