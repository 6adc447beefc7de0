//! Which paths a fingerprint covers, and the problems seen while listing them.
//!
//! Directory sources expand to their index entries and their untracked,
//! non-ignored files (git's rules, through the git layer); file sources and
//! touched paths stand for themselves. Every covered path is checked for
//! what lies above it in the work tree: a symlinked directory or a nested
//! repository is a problem reported here, before any file is opened.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::walk::Walk;
use super::{Inputs, Unavailable, is_gate_path};
use crate::git::{EntryKind, GitError, IndexSnapshot, Repo, Unlooked, UntrackedKind};
use crate::path::RepoPath;

/// The sources and touched paths looked at, before the index is: what the
/// listing, and a monitored record's answer, start from.
pub(super) struct Looked {
    /// Paths that stand for themselves: file sources and touched paths,
    /// sorted, no duplicates.
    pub named: Vec<RepoPath>,
    /// Sources that are directories in the work tree (walked for untracked files).
    pub walked: Vec<RepoPath>,
    /// Every source that passed its checks (queried in the index).
    sources: Vec<RepoPath>,
    /// Problems found, each with the path it concerns.
    pub problems: Vec<(RepoPath, Unavailable)>,
    ancestry: Ancestry,
}

impl Looked {
    /// Whether some path could not be looked at (an `lstat` failed for
    /// another reason than nothing being there): the listing reports what
    /// the files say, but a monitor's word about what is below cannot be
    /// taken.
    pub(super) fn doubtful(&self) -> bool {
        self.ancestry.doubtful.get()
    }
}

/// Look at each source in the work tree (its kind, what is above it) and
/// check each touched path: no index, no directory read.
pub(super) fn look(workdir: &Path, inputs: &Inputs) -> Looked {
    let mut problems = Vec::new();
    let mut ancestry = Ancestry::new(workdir);
    let mut named: Vec<RepoPath> = Vec::new();
    let mut walked: Vec<RepoPath> = Vec::new();
    let mut sources: Vec<RepoPath> = Vec::new();
    for path in super::source_paths(inputs.sources, &mut problems) {
        if let Some(problem) = ancestry.check_above(path.as_bytes()) {
            problems.push(problem);
            continue;
        }
        match ancestry.kind(path.as_bytes()) {
            Kind::Symlink => problems.push((path, Unavailable::Symlink)),
            Kind::Directory => {
                if ancestry.holds_git(path.as_bytes()) {
                    problems.push((path, Unavailable::NestedRepository));
                } else {
                    walked.push(path.clone());
                    sources.push(path);
                }
            }
            Kind::Other => {
                named.push(path.clone());
                sources.push(path);
            }
        }
    }
    for path in inputs.touched {
        if is_gate_path(path) {
            continue;
        }
        if !lexically_inside(path.as_bytes()) {
            problems.push((path.clone(), Unavailable::EscapesRepository));
            continue;
        }
        named.push(path.clone());
    }
    named.sort();
    named.dedup();
    Looked {
        named,
        walked,
        sources,
        problems,
        ancestry,
    }
}

impl Looked {
    /// Whether `path` is a source or lies below one.
    pub(super) fn in_sources(&self, path: &RepoPath) -> bool {
        let path = path.as_bytes();
        self.sources.iter().any(|s| {
            path.strip_prefix(s.as_bytes())
                .is_some_and(|rest| rest.is_empty() || rest[0] == b'/')
        })
    }

    /// The first symlinked directory or nested repository above `path`.
    pub(super) fn problem_above(&mut self, path: &[u8]) -> Option<(RepoPath, Unavailable)> {
        self.ancestry.check_above(path)
    }
}

/// The listing in three steps: [`look`], [`list`] (the index), then
/// [`Listing::untracked`] (the directory walk), so that the caller can
/// stat the second step's paths while the walk runs.
pub(super) struct Listing<'i> {
    /// Tracked files under directory sources, file sources and touched
    /// paths: sorted by bytes, no duplicates, nothing under `.gate/`.
    pub paths: Vec<RepoPath>,
    /// Problems found while listing, each with the path it concerns.
    pub problems: Vec<(RepoPath, Unavailable)>,
    /// Sources that are directories in the work tree.
    walked: Vec<RepoPath>,
    /// SHA-256 of the index entries (path and kind, gitlinks included) at
    /// or below `walked`: what the walk's answer depends on in the index.
    pub walked_index: [u8; 32],
    /// The walk's [`digest`](super::walk::Walk::digest), once
    /// [`Listing::untracked`] ran.
    pub untracked_digest: [u8; 32],
    index: &'i IndexSnapshot,
    ancestry: Ancestry,
}

/// Everything but the untracked files.
pub(super) fn list<'i>(
    repo: &Repo,
    index: &'i IndexSnapshot,
    looked: Looked,
) -> Result<Listing<'i>, GitError> {
    let Looked {
        named,
        walked,
        sources,
        mut problems,
        ancestry,
    } = looked;

    let mut paths: Vec<RepoPath> = Vec::new();
    // Index entries at or under the sources, and exactly at touched paths.
    let mut prefixes = sources.clone();
    prefixes.extend(named.iter().cloned());
    prefixes.sort();
    prefixes.dedup();
    let mut tracked_dirs: Vec<&RepoPath> = Vec::new();
    // The sources as text for `RepoPath::is_under` (they came from the
    // plan's strings, so this is exact), made once rather than per entry.
    let source_dirs: Vec<String> = sources.iter().map(RepoPath::lossy).collect();
    let mut walked_index = Sha256::new();
    for entry in repo.index_entries_under(index, &prefixes)? {
        let below_source = sources
            .iter()
            .zip(&source_dirs)
            .find(|(_, dir)| entry.path.is_under(dir))
            .map(|(source, _)| source);
        if below_source.is_some_and(|s| walked.contains(s)) {
            super::hash_part(&mut walked_index, entry.path.as_bytes());
            walked_index.update([match entry.kind {
                EntryKind::File => b'f',
                EntryKind::Executable => b'x',
                EntryKind::Symlink => b'l',
                EntryKind::Gitlink => b'g',
            }]);
        }
        let wanted = below_source.is_some() || named.binary_search(&entry.path).is_ok();
        if !wanted || is_gate_path(&entry.path) {
            continue;
        }
        if let Some(source) = below_source.filter(|s| **s != entry.path) {
            tracked_dirs.push(source);
        }
        if entry.kind == EntryKind::Gitlink {
            problems.push((entry.path, Unavailable::NestedRepository));
        } else if let Some(flag) = entry.unlooked {
            // What the check ran on need not be what is committed: git
            // hides this path's work-tree copy (docs/receipts.md).
            problems.push((
                entry.path,
                match flag {
                    Unlooked::SkipWorktree => Unavailable::SkipWorktree,
                    Unlooked::AssumeUnchanged => Unavailable::AssumeUnchanged,
                },
            ));
        } else {
            paths.push(entry.path);
        }
    }
    // A file source with tracked entries below it is a directory that was
    // removed from the work tree: its tracked files (missing now) cover it.
    tracked_dirs.sort();
    tracked_dirs.dedup();
    let is_tracked_dir = |p: &RepoPath| tracked_dirs.binary_search(&p).is_ok();
    paths.extend(
        named
            .iter()
            .filter(|p| !(sources.contains(p) && is_tracked_dir(p)))
            .cloned(),
    );
    paths.sort();
    paths.dedup();
    Ok(Listing {
        paths,
        problems,
        walked,
        walked_index: walked_index.finalize().into(),
        untracked_digest: [0; 32],
        index,
        ancestry,
    })
}

impl Listing<'_> {
    /// The untracked, non-ignored files under the directory sources that
    /// are not in `known` (sorted) already, sorted, and whether they came
    /// from the untracked cache. Symlinks, nested
    /// repositories and special files met become problems. `earlier` is a
    /// walk already taken in this run, used when it was for the same index
    /// entries.
    pub(super) fn untracked(
        &mut self,
        repo: &Repo,
        known: &[RepoPath],
        cache_dir: &Path,
        earlier: Option<Walk>,
    ) -> Result<(Vec<RepoPath>, bool), GitError> {
        let mut files = Vec::new();
        let walk = match earlier.filter(|w| w.walked_index == self.walked_index) {
            Some(walk) => walk,
            None => super::walk::untracked(
                repo,
                self.index,
                &self.ancestry.root,
                &self.walked,
                &self.walked_index,
                cache_dir,
            )?,
        };
        self.untracked_digest = walk.digest();
        for entry in walk.entries {
            if is_gate_path(&entry.path) {
                continue;
            }
            let problem = match entry.kind {
                UntrackedKind::File => {
                    if known.binary_search(&entry.path).is_err() {
                        files.push(entry.path);
                    }
                    continue;
                }
                UntrackedKind::Symlink => Unavailable::Symlink,
                UntrackedKind::Repository => Unavailable::NestedRepository,
                UntrackedKind::Special => Unavailable::SpecialFile,
            };
            self.problems.push((entry.path, problem));
        }
        Ok((files, walk.from_cache))
    }

    /// Look above each of `paths` (sorted) for symlinked directories and
    /// nested repositories; then every problem found, sorted by path.
    pub(super) fn problems_above(
        mut self,
        paths: impl IntoIterator<Item = impl AsRef<[u8]>>,
    ) -> Vec<(RepoPath, Unavailable)> {
        // Sorted paths share parents: each directory is looked at once.
        let mut last_parent: Vec<u8> = Vec::new();
        let mut first = true;
        for path in paths {
            let path = path.as_ref();
            let parent = parent_of(path);
            if !first && last_parent == parent {
                continue;
            }
            first = false;
            last_parent.clear();
            last_parent.extend_from_slice(parent);
            if let Some(problem) = self.ancestry.check_above(path) {
                self.problems.push(problem);
            }
        }
        self.problems.sort_by(|a, b| a.0.cmp(&b.0));
        self.problems.dedup();
        self.problems
    }
}

/// The directory part of a repository-relative path (empty at the root).
fn parent_of(path: &[u8]) -> &[u8] {
    match path.iter().rposition(|b| *b == b'/') {
        Some(i) => &path[..i],
        None => &[],
    }
}

/// Whether a path from git stays inside the work tree: relative, no empty,
/// `.` or `..` component, nothing inside a `.git`, no NUL.
pub(super) fn lexically_inside(path: &[u8]) -> bool {
    !path.is_empty()
        && !path.contains(&0)
        && path.split(|b| *b == b'/').all(|part| {
            !part.is_empty() && part != b"." && part != b".." && !part.eq_ignore_ascii_case(b".git")
        })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Symlink,
    Directory,
    /// A file, something special, nothing at all, or unreadable: the scan decides.
    Other,
}

/// What is at `path`, and whether that could be told: `Other` with
/// `false` when `lstat` failed for another reason than nothing being there.
fn lstat_kind(path: &Path) -> (Kind, bool) {
    match path.symlink_metadata() {
        Ok(m) if m.file_type().is_symlink() => (Kind::Symlink, true),
        Ok(m) if m.is_dir() => (Kind::Directory, true),
        Ok(_) => (Kind::Other, true),
        Err(e) => (Kind::Other, is_absent(&e)),
    }
}

/// Nothing at that path, or a file where a directory above it should be.
fn is_absent(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

/// What a directory above a covered path is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Above {
    /// A plain directory (or nothing: the path below is then missing).
    Plain,
    Symlink,
    Repository,
}

/// Remembers what each directory of the work tree is, so that many paths
/// below one directory cost one look at it.
struct Ancestry {
    root: PathBuf,
    seen: HashMap<Vec<u8>, Above>,
    /// Set when an `lstat` failed for another reason than absence.
    doubtful: std::cell::Cell<bool>,
}

impl Ancestry {
    fn new(root: &Path) -> Ancestry {
        Ancestry {
            root: root.to_path_buf(),
            seen: HashMap::new(),
            doubtful: std::cell::Cell::new(false),
        }
    }

    fn abs(&self, rel: &[u8]) -> PathBuf {
        self.root.join(crate::platform::path_from_bytes(rel))
    }

    /// What is at `rel`, noting when that cannot be told.
    fn kind(&self, rel: &[u8]) -> Kind {
        let (kind, told) = lstat_kind(&self.abs(rel));
        if !told {
            self.doubtful.set(true);
        }
        kind
    }

    /// Whether the directory `rel` holds a `.git` (file or directory).
    fn holds_git(&self, rel: &[u8]) -> bool {
        match self.abs(rel).join(".git").symlink_metadata() {
            Ok(_) => true,
            Err(e) => {
                if !is_absent(&e) {
                    self.doubtful.set(true);
                }
                false
            }
        }
    }

    /// The first directory strictly above `path` (from the root down) that
    /// is a symlink or a nested repository.
    fn check_above(&mut self, path: &[u8]) -> Option<(RepoPath, Unavailable)> {
        let mut end = 0;
        while let Some(offset) = path[end..].iter().position(|b| *b == b'/') {
            end += offset;
            let dir = &path[..end];
            let above = match self.seen.get(dir) {
                Some(above) => *above,
                None => {
                    let above = match self.kind(dir) {
                        Kind::Symlink => Above::Symlink,
                        Kind::Directory if self.holds_git(dir) => Above::Repository,
                        _ => Above::Plain,
                    };
                    self.seen.insert(dir.to_vec(), above);
                    above
                }
            };
            match above {
                Above::Plain => {}
                Above::Symlink => return Some((RepoPath::new(dir), Unavailable::Symlink)),
                Above::Repository => {
                    return Some((RepoPath::new(dir), Unavailable::NestedRepository));
                }
            }
            end += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_checks() {
        assert!(lexically_inside(b"a/b.txt"));
        assert!(lexically_inside(b"a b/\n"));
        assert!(lexically_inside(b".gitignore"));
        for bad in [
            &b""[..],
            b"/etc/passwd",
            b"a//b",
            b"a/./b",
            b"../x",
            b"a/..",
            b".git/config",
            b"sub/.GIT/config",
            b"a\0b",
        ] {
            assert!(!lexically_inside(bad), "{bad:?}");
        }
    }

    #[test]
    fn at_or_under_respects_components() {
        // What the coverage relies on `RepoPath::is_under` for.
        let dir = "src";
        assert!(RepoPath::from("src").is_under(dir));
        assert!(RepoPath::from("src/a").is_under(dir));
        assert!(!RepoPath::from("src2/a").is_under(dir));
        assert!(!RepoPath::from("sr").is_under(dir));
    }

    #[test]
    fn parents() {
        assert_eq!(parent_of(b"a/b/c"), b"a/b");
        assert_eq!(parent_of(b"a"), b"");
    }

    #[test]
    fn a_look_that_fails_is_doubtful_and_absence_is_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("file"), "x").unwrap();
        let ancestry = Ancestry::new(dir.path());
        assert_eq!(ancestry.kind(b"missing/x"), Kind::Other);
        assert_eq!(ancestry.kind(b"file/below"), Kind::Other);
        assert!(!ancestry.holds_git(b"missing"));
        assert!(!ancestry.doubtful.get());
        // A name longer than any file system allows: lstat fails otherwise.
        let long = "n".repeat(300);
        assert_eq!(ancestry.kind(long.as_bytes()), Kind::Other);
        assert!(ancestry.doubtful.get());
    }

    #[test]
    fn ancestry_finds_symlinks_and_repositories_above() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir_all(root.join("n/.git")).unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("l")).unwrap();
        let mut ancestry = Ancestry::new(root);
        assert_eq!(ancestry.check_above(b"a/b/c.txt"), None);
        assert_eq!(ancestry.check_above(b"top.txt"), None);
        assert_eq!(ancestry.check_above(b"missing/x/y"), None);
        assert_eq!(
            ancestry.check_above(b"l/b/c.txt"),
            Some((RepoPath::from("l"), Unavailable::Symlink))
        );
        assert_eq!(
            ancestry.check_above(b"n/src/x"),
            Some((RepoPath::from("n"), Unavailable::NestedRepository))
        );
        // The path itself is not looked at.
        assert_eq!(ancestry.check_above(b"l"), None);
    }
}
