//! The tree fingerprint: the source fingerprint of a commit's tree, from git
//! objects, in the same encoding as the work tree's (docs/receipts.md, "The
//! tree fingerprint"), so that the two compare by construction.
//!
//! What it covers is what the work-tree fingerprint covers when the work
//! tree is clean and holds the commit: each directory source's files (the
//! tree's entries below it, as the index's would be), each file source and
//! touched path (present or missing), nothing under `.gate/`. Each file's
//! content hash is the SHA-256 of its blob's bytes; the work tree hashes the
//! bytes on disk. They are the same bytes unless git converts them on
//! checkout (line endings, a smudge filter): then the two digests differ, and
//! a receipt made on the converted bytes is never taken for the commit's.
//! A symlink or a gitlink at or above a covered path makes it unavailable,
//! as in the work tree; so do the limits.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use super::{Content, Fingerprint, Inputs, Unavailable, digest_raw, is_gate_path, unavailable};
use crate::git::{EntryKind, GitError, Oid, Repo, TreePath};
use crate::path::RepoPath;

/// The fingerprint of `inputs` in commit `commit`'s tree.
///
/// Errors are for what git could not answer (a missing object); everything
/// about the covered entries is a [`Fingerprint::Unavailable`].
pub fn of_commit(repo: &Repo, commit: Oid, inputs: &Inputs) -> Result<Fingerprint, GitError> {
    let tree = repo.tree_of(commit)?;
    let mut covered: BTreeMap<RepoPath, Option<(Oid, bool)>> = BTreeMap::new();
    let mut problems: Vec<(RepoPath, Unavailable)> = Vec::new();
    let mut cover =
        |path: RepoPath, entry: Option<(Oid, EntryKind)>, problems: &mut Vec<_>| match entry {
            None => {
                covered.entry(path).or_insert(None);
            }
            Some((_, EntryKind::Symlink)) => problems.push((path, Unavailable::Symlink)),
            Some((_, EntryKind::Gitlink)) => problems.push((path, Unavailable::NestedRepository)),
            Some((id, kind)) => {
                covered.insert(path, Some((id, kind == EntryKind::Executable)));
            }
        };
    for source in inputs.sources {
        let path = match super::source_path(source) {
            Ok(Some(path)) => path,
            Ok(None) => continue,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        match repo.tree_path(tree, &path)? {
            TreePath::Dir(entries) => {
                for (entry, id, kind) in entries {
                    if !is_gate_path(&entry) {
                        cover(entry, Some((id, kind)), &mut problems);
                    }
                }
            }
            TreePath::Entry(id, kind) => cover(path, Some((id, kind)), &mut problems),
            TreePath::Absent => cover(path, None, &mut problems),
            TreePath::Below(above, kind) => problems.push(below(above, kind)),
        }
    }
    for path in inputs.touched {
        if is_gate_path(path) {
            continue;
        }
        if !super::cover::lexically_inside(path.as_bytes()) {
            problems.push((path.clone(), Unavailable::EscapesRepository));
            continue;
        }
        match repo.tree_path(tree, path)? {
            TreePath::Entry(id, kind) => cover(path.clone(), Some((id, kind)), &mut problems),
            // A directory at a touched path is missing, as in the work tree.
            TreePath::Dir(_) | TreePath::Absent => cover(path.clone(), None, &mut problems),
            TreePath::Below(above, kind) => problems.push(below(above, kind)),
        }
    }
    problems.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    if let Some((path, reason)) = problems.into_iter().next() {
        return Ok(unavailable(reason, Some(path)));
    }
    let entries = covered.len() as u64;
    if entries > inputs.max_entries {
        let limit = inputs.max_entries;
        return Ok(unavailable(Unavailable::TooManyEntries { limit }, None));
    }
    let mut bytes = 0u64;
    let mut hashed: Vec<(RepoPath, Content)> = Vec::with_capacity(covered.len());
    for (path, entry) in covered {
        let content = match entry {
            None => Content::Missing,
            Some((id, executable)) => {
                let blob = repo.read_blob(id)?;
                bytes += blob.len() as u64;
                if bytes > inputs.max_bytes {
                    let limit = inputs.max_bytes;
                    return Ok(unavailable(Unavailable::TooManyBytes { limit }, None));
                }
                Content::File {
                    executable,
                    sha256: Sha256::digest(&blob).into(),
                }
            }
        };
        hashed.push((path, content));
    }
    // `covered` is a map of path bytes: sorted, no duplicates.
    let digest = digest_raw(hashed.iter().map(|(p, c)| (p.as_bytes(), *c)));
    Ok(Fingerprint::Available {
        digest: crate::digest::hex(&digest),
        entries,
        bytes,
    })
}

/// A symlink or gitlink above a covered path.
fn below(above: RepoPath, kind: EntryKind) -> (RepoPath, Unavailable) {
    let reason = match kind {
        EntryKind::Gitlink => Unavailable::NestedRepository,
        _ => Unavailable::Symlink,
    };
    (above, reason)
}
