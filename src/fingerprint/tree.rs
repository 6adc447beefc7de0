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
//!
//! Each blob's size and SHA-256 come from the blob cache (`blobs`) when it
//! holds them: a tree fingerprint then costs the walk of the trees below
//! the sources and one lookup per file; only blobs never met before are
//! read and hashed, and added. [`Trees`] holds that cache for a run, and
//! each answer it gave, so a run asks for each commit's fingerprint over
//! the same inputs once.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use super::blobs::{Blobs, Known};
use super::{Content, Fingerprint, Inputs, Unavailable, digest_raw, is_gate_path, unavailable};
use crate::git::{EntryKind, GitError, Oid, Repo, TreePath};
use crate::path::RepoPath;

/// The fingerprint of `inputs` in commit `commit`'s tree, every blob read
/// and hashed from the objects (nothing read from or written to a cache
/// file): what a judge that trusts no local state takes (CI's
/// `gate check --range`).
///
/// Errors are for what git could not answer (a missing object); everything
/// about the covered entries is a [`Fingerprint::Unavailable`].
pub fn of_commit(repo: &Repo, commit: Oid, inputs: &Inputs) -> Result<Fingerprint, GitError> {
    Trees::in_memory(repo).of_commit(repo, commit, inputs)
}

/// Tree fingerprints through a blob cache: the blobs a run hashed, and
/// (for [`Trees::cached`]) the blob cache file of the repository; each
/// (commit, inputs) answered once. Writes what it hashed when dropped, or
/// at [`Trees::save`].
pub struct Trees {
    blobs: Blobs,
    answered: Vec<(Oid, Asked, Fingerprint)>,
    stats: TreeStats,
}

/// How a [`Trees`] did its work, for tests and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeStats {
    /// Blobs read from the objects and hashed.
    pub hashed: u64,
    /// Covered files whose blob the cache knew before the walk that needed
    /// it (from the file, or hashed by an earlier walk of this run).
    pub from_cache: u64,
    /// Fingerprints answered again without a walk.
    pub answered_again: u64,
}

/// The inputs of an answer, owned.
#[derive(PartialEq, Eq)]
struct Asked {
    sources: Vec<String>,
    touched: Vec<RepoPath>,
    max_entries: u64,
    max_bytes: u64,
}

impl Asked {
    fn of(inputs: &Inputs) -> Asked {
        Asked {
            sources: inputs.sources.to_vec(),
            touched: inputs.touched.to_vec(),
            max_entries: inputs.max_entries,
            max_bytes: inputs.max_bytes,
        }
    }
}

impl Trees {
    /// Through the blob cache file of `repo`'s object format under
    /// `cache_dir` (the caller passes `<common-dir>/gate/cache/`, as for the
    /// stat cache). A missing, corrupt or unwritable file only costs time.
    pub fn cached(repo: &Repo, cache_dir: &Path) -> Trees {
        Trees::with(Blobs::under(cache_dir, repo.object_id_len()))
    }

    /// Through what this process hashes only: no file read or written.
    pub fn in_memory(repo: &Repo) -> Trees {
        Trees::with(Blobs::in_memory(repo.object_id_len()))
    }

    fn with(blobs: Blobs) -> Trees {
        Trees {
            blobs,
            answered: Vec::new(),
            stats: TreeStats::default(),
        }
    }

    /// What the work took so far.
    pub fn stats(&self) -> TreeStats {
        self.stats
    }

    /// Write the blobs hashed so far to the cache file (also done on
    /// drop); whether it was written. Failures cost time only.
    pub fn save(&mut self) -> bool {
        self.blobs.save()
    }

    /// The fingerprint of `inputs` in commit `commit`'s tree: as
    /// [`of_commit`] gives it, from the cache where it knows a blob.
    pub fn of_commit(
        &mut self,
        repo: &Repo,
        commit: Oid,
        inputs: &Inputs,
    ) -> Result<Fingerprint, GitError> {
        let asked = Asked::of(inputs);
        if let Some((_, _, fp)) = self
            .answered
            .iter()
            .find(|(c, a, _)| *c == commit && *a == asked)
        {
            self.stats.answered_again += 1;
            return Ok(fp.clone());
        }
        let fp = self.walk(repo, commit, inputs)?;
        self.answered.push((commit, asked, fp.clone()));
        Ok(fp)
    }

    fn walk(&mut self, repo: &Repo, commit: Oid, inputs: &Inputs) -> Result<Fingerprint, GitError> {
        let tree = repo.tree_of(commit)?;
        let mut covered: BTreeMap<RepoPath, Option<(Oid, bool)>> = BTreeMap::new();
        let mut problems: Vec<(RepoPath, Unavailable)> = Vec::new();
        let mut cover =
            |path: RepoPath, entry: Option<(Oid, EntryKind)>, problems: &mut Vec<_>| match entry {
                None => {
                    covered.entry(path).or_insert(None);
                }
                Some((_, EntryKind::Symlink)) => problems.push((path, Unavailable::Symlink)),
                Some((_, EntryKind::Gitlink)) => {
                    problems.push((path, Unavailable::NestedRepository))
                }
                Some((id, kind)) => {
                    covered.insert(path, Some((id, kind == EntryKind::Executable)));
                }
            };
        for path in super::source_paths(inputs.sources, &mut problems) {
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
        // `covered` is a map of path bytes: sorted, no duplicates.
        let covered: Vec<(RepoPath, Option<(Oid, bool)>)> = covered.into_iter().collect();
        // What the cache knew before this walk; the rest is read in
        // batches, on all cores, as the limit check in path order reaches it.
        let known: Vec<Option<Known>> = covered
            .iter()
            .map(|(_, entry)| {
                let known = self.blobs.get(entry.as_ref()?.0.as_bytes());
                self.stats.from_cache += u64::from(known.is_some());
                known
            })
            .collect();
        let mut failed: HashMap<Oid, GitError> = HashMap::new();
        let mut bytes = 0u64;
        let mut hashed: Vec<(&RepoPath, Content)> = Vec::with_capacity(covered.len());
        for (i, (path, entry)) in covered.iter().enumerate() {
            let content = match entry {
                None => Content::Missing,
                Some((id, executable)) => {
                    let blob = match known[i].or_else(|| self.blobs.get(id.as_bytes())) {
                        Some(blob) => blob,
                        None => {
                            if let Some(e) = failed.remove(id) {
                                return Err(e);
                            }
                            self.read_batch(repo, &covered[i..], &known[i..], &mut failed);
                            match self.blobs.get(id.as_bytes()) {
                                Some(blob) => blob,
                                None => {
                                    return Err(failed.remove(id).unwrap_or_else(|| {
                                        GitError::MissingObject { id: id.to_hex() }
                                    }));
                                }
                            }
                        }
                    };
                    bytes += blob.size;
                    if bytes > inputs.max_bytes {
                        let limit = inputs.max_bytes;
                        return Ok(unavailable(Unavailable::TooManyBytes { limit }, None));
                    }
                    Content::File {
                        executable: *executable,
                        sha256: blob.sha256,
                    }
                }
            };
            hashed.push((path, content));
        }
        let digest = digest_raw(hashed.iter().map(|(p, c)| (p.as_bytes(), *c)));
        Ok(Fingerprint::Available {
            digest: crate::digest::hex(&digest),
            entries,
            bytes,
        })
    }

    /// Read and hash, on all cores, up to [`BATCH`] blobs of `ahead` (the
    /// covered entries from the walk's position on, with what the cache
    /// knew of each) that the cache does not know, and add them; a blob
    /// that cannot be read goes to `failed`, for the walk to report when it
    /// reaches it.
    fn read_batch(
        &mut self,
        repo: &Repo,
        ahead: &[(RepoPath, Option<(Oid, bool)>)],
        known: &[Option<Known>],
        failed: &mut HashMap<Oid, GitError>,
    ) {
        let mut ids: Vec<Oid> = Vec::new();
        let mut taken: HashSet<Oid> = HashSet::new();
        for ((_, entry), known) in ahead.iter().zip(known) {
            if ids.len() == BATCH {
                break;
            }
            let Some((id, _)) = entry else { continue };
            if known.is_none()
                && !failed.contains_key(id)
                && !taken.contains(id)
                && self.blobs.get(id.as_bytes()).is_none()
            {
                taken.insert(*id);
                ids.push(*id);
            }
        }
        for (id, read) in ids.iter().zip(repo.each_blob(&ids, &Known::of)) {
            match read {
                Ok(known) => {
                    self.blobs.add(id.as_bytes(), known);
                    self.stats.hashed += 1;
                }
                Err(e) => {
                    failed.insert(*id, e);
                }
            }
        }
    }
}

/// Most blobs read in one go: past the byte limit, at most this many more
/// are read than the answer needs.
const BATCH: usize = 1024;

impl Drop for Trees {
    fn drop(&mut self) {
        self.blobs.save();
    }
}

/// A symlink or gitlink above a covered path.
fn below(above: RepoPath, kind: EntryKind) -> (RepoPath, Unavailable) {
    let reason = match kind {
        EntryKind::Gitlink => Unavailable::NestedRepository,
        _ => Unavailable::Symlink,
    };
    (above, reason)
}
