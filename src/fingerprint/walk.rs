//! The untracked cache: the last walk's list of untracked files under a
//! check's source directories, kept for as long as nothing it depends on
//! has moved.
//!
//! A walk's answer depends on the names in each directory it entered, on
//! the ignore rules, and on which paths the index tracks. Adding, removing
//! or renaming a name changes its directory's mtime and ctime; editing a
//! file does not, and need not (a file's content is the stat cache's
//! business). So the cache records, under a key:
//!
//! - the key: a SHA-256 of the work tree's path, the walked directories,
//!   the resolved git configuration (as text: `core.excludesFile`,
//!   `core.ignoreCase` and the rest), the paths of the ignore files outside
//!   the work tree, and every index entry at or below a walked directory
//!   (path and kind, gitlinks included);
//! - the stat of every directory the walk looked at, entered or not (a
//!   nested repository among them; `lstat`), of the `.gitignore`
//!   in each directory looked at and in each directory above a walked one
//!   up to the root, and of `info/exclude`, `core.excludesFile` and the
//!   user's `git/ignore` (`stat`, following a symlink to its file), each
//!   present or missing;
//! - the untracked entries the walk found.
//!
//! It is used only when the key is the same and every recorded stat is
//! exactly as it is now and settled strictly before the cache's stamp (as
//! in the stat cache: a file-system time taken before the walk began) and
//! the cache file's own mtime. A directory changed while it was walked gets
//! a time no older than the stamp, so that walk is never trusted.
//!
//! One file per work tree and set of walked directories, so that checks
//! with different sources keep their own. Format (little-endian), checked
//! whole on load; anything off and the cache is ignored:
//!
//! ```text
//! "gate-walk-cache\n" u32 version=2  [u8; 32] key  stamp: i64 s, u32 ns
//! u64 count, then count watched paths: u32 length, path bytes,
//!   u8 present (0 or 1), if present the stat as in the stat cache
//! u64 count, then count entries: u32 length, path bytes, u8 kind
//! [u8; 32] SHA-256 of everything above
//! ```

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::cache::{self, Reader, Stat, Time};
use crate::git::{GitError, IndexSnapshot, Repo, UntrackedEntry, UntrackedKind};
use crate::path::RepoPath;

const MAGIC: &[u8] = b"gate-walk-cache\n";
const VERSION: u32 = 2;

/// How a watched path is looked at.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Look {
    /// A directory: `lstat`.
    Dir,
    /// An ignore file: `stat`, so that an edit behind a symlink is seen.
    File,
}

/// A walk's answer: the untracked, non-ignored files under the walked
/// directories, for the index entries `walked_index` digests.
pub(super) struct Walk {
    pub walked_index: [u8; 32],
    pub entries: Vec<UntrackedEntry>,
    /// Whether it came from the cache (no directory read).
    pub from_cache: bool,
}

impl Walk {
    /// SHA-256 of the answer: each entry's path and kind.
    pub(super) fn digest(&self) -> [u8; 32] {
        let mut hasher = Sha256::new();
        for entry in &self.entries {
            super::hash_part(&mut hasher, entry.path.as_bytes());
            hasher.update([kind_code(entry.kind)]);
        }
        hasher.finalize().into()
    }
}

/// The untracked, non-ignored files under `walked` (as
/// [`Repo::untracked_under`] lists them), from the cache when it holds,
/// else from a walk whose answer is then recorded. `walked_index` digests
/// the index entries at or below `walked` (part of the key).
pub(super) fn untracked(
    repo: &Repo,
    index: &IndexSnapshot,
    workdir: &Path,
    walked: &[RepoPath],
    walked_index: &[u8; 32],
    cache_dir: &Path,
) -> Result<Walk, GitError> {
    let answer = |entries, from_cache| Walk {
        walked_index: *walked_index,
        entries,
        from_cache,
    };
    if walked.is_empty() {
        return Ok(answer(Vec::new(), false));
    }
    let (config, rule_files) = repo.walk_rules();
    let key = key(workdir, walked, &config, &rule_files, walked_index);
    let file = file_for(cache_dir, workdir, walked);
    if let Some(entries) = load(&file, &key) {
        return Ok(answer(entries, true));
    }
    // Taken before the walk reads any directory: see the trust rule.
    let stamp = cache::stamp(cache_dir);
    let walk = repo.untracked_walk(index, walked)?;
    if let Some(stamp) = stamp {
        let watched = watched(workdir, walked, &walk.seen_dirs, &rule_files);
        save(&file, &key, stamp, &watched, &walk.entries);
    }
    Ok(answer(walk.entries, false))
}

/// How an entry's kind is written, in the record and in the digest.
fn kind_code(kind: UntrackedKind) -> u8 {
    match kind {
        UntrackedKind::File => b'f',
        UntrackedKind::Symlink => b'l',
        UntrackedKind::Repository => b'r',
        UntrackedKind::Special => b's',
    }
}

/// The cache file of the work tree `workdir` and the directories `walked`.
fn file_for(dir: &Path, workdir: &Path, walked: &[RepoPath]) -> PathBuf {
    let mut name = workdir.as_os_str().as_encoded_bytes().to_vec();
    for w in walked {
        name.push(0);
        name.extend_from_slice(w.as_bytes());
    }
    cache::named(dir, "walk", &name)
}

fn key(
    workdir: &Path,
    walked: &[RepoPath],
    config: &[u8],
    rule_files: &[PathBuf],
    walked_index: &[u8; 32],
) -> [u8; 32] {
    let mut hasher = Sha256::new();
    let mut part = |bytes: &[u8]| super::hash_part(&mut hasher, bytes);
    part(b"gate-walk-key-v1");
    part(workdir.as_os_str().as_encoded_bytes());
    part(config);
    for dir in walked {
        part(dir.as_bytes());
    }
    part(b"\0rules");
    for file in rule_files {
        part(file.as_os_str().as_encoded_bytes());
    }
    part(b"\0index");
    part(walked_index);
    hasher.finalize().into()
}

/// Every path whose stat the answer depends on, absolute, with how to look.
fn watched(
    workdir: &Path,
    walked: &[RepoPath],
    seen_dirs: &[RepoPath],
    rule_files: &[PathBuf],
) -> Vec<(PathBuf, Look)> {
    let abs = |rel: &[u8]| workdir.join(crate::platform::path_from_bytes(rel));
    let mut out: Vec<(PathBuf, Look)> = Vec::new();
    // `.gitignore` above each walked directory, from the root down.
    let mut above: Vec<&[u8]> = vec![b""];
    for dir in walked {
        let dir = dir.as_bytes();
        above.extend(
            dir.iter()
                .enumerate()
                .filter(|(_, b)| **b == b'/')
                .map(|(i, _)| &dir[..i]),
        );
    }
    above.sort();
    above.dedup();
    for dir in above {
        out.push((abs(dir).join(".gitignore"), Look::File));
    }
    for dir in seen_dirs {
        out.push((abs(dir.as_bytes()), Look::Dir));
        out.push((abs(dir.as_bytes()).join(".gitignore"), Look::File));
    }
    out.extend(rule_files.iter().map(|f| (f.clone(), Look::File)));
    out
}

/// What is at `path` now: `Ok(None)` for nothing, `Err` when it cannot be told.
fn look(path: &Path, how: Look) -> Result<Option<Stat>, ()> {
    let meta = match how {
        Look::Dir => fs::symlink_metadata(path),
        Look::File => fs::metadata(path),
    };
    match meta {
        Ok(m) => Ok(Some(Stat::of(&m))),
        // Nothing there, or a file where a directory above it should be.
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(None)
        }
        Err(_) => Err(()),
    }
}

fn save(
    file: &Path,
    key: &[u8; 32],
    stamp: Time,
    watched: &[(PathBuf, Look)],
    entries: &[UntrackedEntry],
) -> bool {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(key);
    cache::put_time(&mut out, stamp);
    out.extend_from_slice(&(watched.len() as u64).to_le_bytes());
    for (path, how) in watched {
        let Ok(stat) = look(path, *how) else {
            return false;
        };
        if !cache::put_path(&mut out, path.as_os_str().as_encoded_bytes()) {
            return false;
        }
        out.push(u8::from(*how == Look::File));
        match stat {
            // Changed in the stamp's clock tick or later: the walk may not
            // have seen it as it is now. Not recorded; the next run walks.
            Some(stat) if !stat.older_than(stamp) => return false,
            Some(stat) => {
                out.push(1);
                cache::put_stat(&mut out, &stat);
            }
            None => out.push(0),
        }
    }
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for entry in entries {
        if !cache::put_path(&mut out, entry.path.as_bytes()) {
            return false;
        }
        out.push(kind_code(entry.kind));
    }
    cache::write_sealed(file, out)
}

/// The recorded entries, when the record is for `key` and every watched
/// path is as recorded and settled before the record's limit.
fn load(file: &Path, key: &[u8; 32]) -> Option<Vec<UntrackedEntry>> {
    let (bytes, written) = cache::read(file)?;
    let bytes = cache::unseal(bytes)?;
    let body = bytes.as_slice();
    let mut r = Reader { bytes: body, at: 0 };
    if r.take(MAGIC.len())? != MAGIC || r.u32()? != VERSION || r.take(32)? != key {
        return None;
    }
    let limit = r.time()?.min(written);
    let count = usize::try_from(r.u64()?).ok()?;
    for _ in 0..count {
        let path = crate::platform::path_from_bytes(r.path()?);
        let how = match r.take(1)?[0] {
            0 => Look::Dir,
            1 => Look::File,
            _ => return None,
        };
        let recorded = match r.take(1)?[0] {
            0 => None,
            1 => Some(r.stat()?),
            _ => return None,
        };
        if recorded.is_some_and(|s| !s.older_than(limit)) {
            return None;
        }
        if look(&path, how).ok()? != recorded {
            return None;
        }
    }
    let count = usize::try_from(r.u64()?).ok()?;
    // Bounds the allocation by the file's size (an entry is at least 5 bytes).
    if count > body.len() / 5 {
        return None;
    }
    let mut entries = Vec::with_capacity(count);
    for _ in 0..count {
        let path = RepoPath::new(r.path()?.to_vec());
        let code = r.take(1)?[0];
        let kind = [
            UntrackedKind::File,
            UntrackedKind::Symlink,
            UntrackedKind::Repository,
            UntrackedKind::Special,
        ]
        .into_iter()
        .find(|k| kind_code(*k) == code)?;
        entries.push(UntrackedEntry { path, kind });
    }
    (r.at == body.len()).then_some(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries() -> Vec<UntrackedEntry> {
        vec![UntrackedEntry {
            path: RepoPath::from("src/new.rs"),
            kind: UntrackedKind::File,
        }]
    }

    #[test]
    fn round_trip_and_trust_rules() {
        let dir = tempfile::tempdir().unwrap();
        let watched_dir = dir.path().join("w");
        fs::create_dir(&watched_dir).unwrap();
        let watched = vec![
            (watched_dir.clone(), Look::Dir),
            (watched_dir.join(".gitignore"), Look::File),
        ];
        let file = dir.path().join("c");
        let key = [7; 32];
        let future = Time {
            sec: i64::from(u32::MAX),
            nsec: 0,
        };
        // A watched path as new as the stamp: the walk may have missed it.
        assert!(!save(
            &file,
            &key,
            Time { sec: 0, nsec: 0 },
            &watched,
            &entries()
        ));
        assert!(save(&file, &key, future, &watched, &entries()));
        assert_eq!(load(&file, &key), Some(entries()));
        assert_eq!(load(&file, &[8; 32]), None, "another key");
        // The cache file's own time bounds trust too: written before the
        // directory last changed, it cannot vouch for it.
        let past = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1);
        fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(past)
            .unwrap();
        assert_eq!(load(&file, &key), None);
        // A watched path that moved.
        assert!(save(&file, &key, future, &watched, &entries()));
        fs::write(watched_dir.join(".gitignore"), "x\n").unwrap();
        assert_eq!(load(&file, &key), None);
        // Any flipped byte.
        assert!(save(&file, &key, future, &watched, &entries()));
        let mut bytes = fs::read(&file).unwrap();
        let at = bytes.len() / 2;
        bytes[at] ^= 1;
        fs::write(&file, &bytes).unwrap();
        assert_eq!(load(&file, &key), None);
    }
}
