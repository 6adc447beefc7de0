//! What a commit's tree holds at a path: the files the tree fingerprint of
//! an acceptance check's sources covers (docs/receipts.md, "The tree
//! fingerprint"); and what a commit changed below one directory, comparing
//! that directory's subtree only (the task records a range touches,
//! docs/ci.md).

use super::{Change, EntryKind, GitError, Oid, ParentDiff, Renames, Repo, entry_kind};
use crate::path::RepoPath;

/// What a commit's tree holds at one path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TreePath {
    /// Nothing: no entry, or a file where a directory above it would be.
    Absent,
    /// A file-level entry (a file, an executable, a symlink or a gitlink).
    Entry(Oid, EntryKind),
    /// A directory: every file-level entry below it, at any depth, sorted
    /// by path bytes.
    Dir(Vec<(RepoPath, Oid, EntryKind)>),
    /// A symlink or a gitlink at a directory above the path: what lies
    /// below it is another file's or another repository's business.
    Below(RepoPath, EntryKind),
}

impl Repo {
    /// The id of commit `commit`'s tree.
    pub fn tree_of(&self, commit: Oid) -> Result<Oid, GitError> {
        Ok(Oid(self.commit_tree(commit)?))
    }

    /// What tree `tree` holds at `path` (repository-relative, `/`-separated).
    pub fn tree_path(&self, tree: Oid, path: &RepoPath) -> Result<TreePath, GitError> {
        if path.as_bytes().is_empty() {
            return self.files_below(tree.0, Vec::new()).map(TreePath::Dir);
        }
        let mut at = tree.0;
        let mut walked: Vec<u8> = Vec::new();
        let components: Vec<&[u8]> = path.as_bytes().split(|b| *b == b'/').collect();
        for (n, name) in components.iter().enumerate() {
            let last = n + 1 == components.len();
            let found = self.entry_named(at, name, &walked)?;
            if !walked.is_empty() {
                walked.push(b'/');
            }
            walked.extend_from_slice(name);
            let Some((mode, id)) = found else {
                return Ok(TreePath::Absent);
            };
            match (entry_kind(mode), last) {
                (None, true) => return self.files_below(id, walked).map(TreePath::Dir),
                (None, false) => at = id,
                (Some(kind), true) => return Ok(TreePath::Entry(Oid(id), kind)),
                (Some(kind @ (EntryKind::Symlink | EntryKind::Gitlink)), false) => {
                    return Ok(TreePath::Below(RepoPath::new(walked), kind));
                }
                (Some(_), false) => return Ok(TreePath::Absent),
            }
        }
        Ok(TreePath::Absent)
    }

    /// The entry called `name` in tree `tree` (at `dir`, for messages).
    fn entry_named(
        &self,
        tree: gix::ObjectId,
        name: &[u8],
        dir: &[u8],
    ) -> Result<Option<(gix::objs::tree::EntryMode, gix::ObjectId)>, GitError> {
        let what = || format!("the tree at `{}`", String::from_utf8_lossy(dir));
        let tree = self.find_tree(tree, what)?;
        let decoded = tree
            .decode()
            .map_err(|err| GitError::gix(format!("decoding {}", what()), &err))?;
        Ok(decoded
            .entries
            .iter()
            .find(|e| AsRef::<[u8]>::as_ref(e.filename) == name)
            .map(|e| (e.mode, e.oid.to_owned())))
    }

    /// Every file-level entry below tree `tree`, whose path is `prefix`,
    /// sorted by path bytes.
    fn files_below(
        &self,
        tree: gix::ObjectId,
        prefix: Vec<u8>,
    ) -> Result<Vec<(RepoPath, Oid, EntryKind)>, GitError> {
        let mut out = Vec::new();
        let mut pending = vec![(tree, prefix)];
        while let Some((id, dir)) = pending.pop() {
            let what = || format!("the tree at `{}`", String::from_utf8_lossy(&dir));
            let tree = self.find_tree(id, what)?;
            let decoded = tree
                .decode()
                .map_err(|err| GitError::gix(format!("decoding {}", what()), &err))?;
            for entry in &decoded.entries {
                let mut path = dir.clone();
                if !path.is_empty() {
                    path.push(b'/');
                }
                path.extend_from_slice(entry.filename);
                match entry_kind(entry.mode) {
                    Some(kind) => out.push((RepoPath::new(path), Oid(entry.oid.to_owned()), kind)),
                    None => pending.push((entry.oid.to_owned(), path)),
                }
            }
        }
        out.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        Ok(out)
    }
}

impl Repo {
    /// The changes of commit `id` below directory `dir` against each of its
    /// parents: what [`changes`](Self::changes) gives without renames (a
    /// rename is a deletion and an addition), restricted to the paths below
    /// `dir` (`dir` itself excluded), the same records in the same order.
    ///
    /// Only `dir`'s subtree is compared: a parent holding the same subtree
    /// there (by id) has no changes, and below it only subtrees that differ
    /// are read. `dir` missing, or not a directory, holds nothing. Absent
    /// parents fail as in `changes`.
    pub fn changes_under(&self, id: Oid, dir: &RepoPath) -> Result<Vec<ParentDiff>, GitError> {
        let (tree, parents, _) = self.decode_commit(id)?;
        let new = self.subtree(tree, dir)?;
        if parents.is_empty() {
            let changes = self.subtree_changes(None, new, dir, || {
                format!("diffing root commit {id} below `{dir}`")
            })?;
            return Ok(vec![ParentDiff {
                parent: None,
                changes,
            }]);
        }
        let parent_trees = parents
            .iter()
            .map(|&parent| self.parent_tree(id, Oid(parent)))
            .collect::<Result<Vec<_>, _>>()?;
        let mut out = Vec::with_capacity(parents.len());
        for (&parent, parent_tree) in parents.iter().zip(parent_trees) {
            let parent = Oid(parent);
            let old = if parent_tree == tree {
                new
            } else {
                self.subtree(parent_tree, dir)?
            };
            let changes = if old == new {
                Vec::new()
            } else {
                self.subtree_changes(old, new, dir, || {
                    format!("diffing commit {id} against parent {parent} below `{dir}`")
                })?
            };
            out.push(ParentDiff {
                parent: Some(parent),
                changes,
            });
        }
        Ok(out)
    }

    /// The subtree of tree `tree` at directory `dir`; `None` where there is
    /// no directory (no entry, or a file-level one, at `dir` or above it).
    fn subtree(
        &self,
        tree: gix::ObjectId,
        dir: &RepoPath,
    ) -> Result<Option<gix::ObjectId>, GitError> {
        if dir.as_bytes().is_empty() {
            return Ok(Some(tree));
        }
        let mut at = tree;
        let mut walked: Vec<u8> = Vec::new();
        for name in dir.as_bytes().split(|b| *b == b'/') {
            match self.entry_named(at, name, &walked)? {
                Some((mode, id)) if mode.is_tree() => at = id,
                _ => return Ok(None),
            }
            if !walked.is_empty() {
                walked.push(b'/');
            }
            walked.extend_from_slice(name);
        }
        Ok(Some(at))
    }

    /// The file-level changes turning subtree `old` into `new` (`None`: an
    /// empty one), with their paths below `dir`.
    fn subtree_changes(
        &self,
        old: Option<gix::ObjectId>,
        new: Option<gix::ObjectId>,
        dir: &RepoPath,
        context: impl Fn() -> String,
    ) -> Result<Vec<Change>, GitError> {
        let tree = |id: Option<gix::ObjectId>| match id {
            Some(id) => self.find_tree(id, || format!("{}: the tree at `{dir}`", context())),
            None => Ok(self.repo.empty_tree()),
        };
        let (old, new) = (tree(old)?, tree(new)?);
        let changes = self.diff.borrow_mut().tree_changes(
            &self.objects(),
            &old.data,
            &new.data,
            Renames::Off,
            &context,
        )?;
        let under = |path: &RepoPath| {
            let mut full = dir.as_bytes().to_vec();
            if !full.is_empty() {
                full.push(b'/');
            }
            full.extend_from_slice(path.as_bytes());
            RepoPath::new(full)
        };
        Ok(changes
            .into_iter()
            .map(|change| Change {
                path: under(&change.path),
                from: change.from.as_ref().map(under),
                ..change
            })
            .collect())
    }
}
