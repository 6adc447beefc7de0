//! The stat cache: what a file's SHA-256 was when its stat looked like this.
//!
//! One file per work tree under the cache directory, named after a hash of
//! the canonical work tree path. Like git's index, an entry is trusted only
//! when the file's stat (size, mtime and ctime to the nanosecond, inode,
//! device, mode, link count) is exactly as recorded *and* the recorded mtime and ctime
//! are strictly older than both
//!
//! - the cache's *stamp*: the file-system time of a file created just
//!   before any file of that run was read, and
//! - the cache file's own modification time.
//!
//! A file changed after it was read gets an mtime or ctime no older than the
//! stamp, so its stat differs from the record even on file systems whose
//! timestamps are coarse; a file changed in the same clock tick as it was
//! read is "racy" and is never recorded, so the next run reads it again. The
//! ctime cannot be set back by anyone, so restoring an mtime does not hide
//! an edit.
//!
//! Format (little-endian), checked whole on load; anything off and the
//! cache is ignored, never trusted:
//!
//! ```text
//! "gate-stat-cache\n" u32 version=3
//! stamp: i64 seconds, u32 nanoseconds
//! u32 length, work tree path bytes
//! u32 length, monitor token bytes (empty: none; see `monitor`)
//! u32 length, the answer (empty, or 144 bytes: see `Answer`; only with a token)
//! u64 count, then count entries in strictly ascending path order:
//!   u32 length, path bytes, u64 size, i64 mtime s, u32 mtime ns,
//!   i64 ctime s, u32 ctime ns, u64 inode, u64 device, u32 mode, u64 links,
//!   [u8; 32] sha256
//! [u8; 32] SHA-256 of everything above
//! ```
//!
//! Writes go through [`crate::fsutil::write_atomic`]: concurrent writers
//! each replace the whole file, the last one wins, and a lost update only
//! costs a re-read.

use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

const MAGIC: &[u8] = b"gate-stat-cache\n";
const VERSION: u32 = 3;
/// Bytes of an entry besides its path.
const FIXED: usize = 4 + 8 + 8 + 4 + 8 + 4 + 8 + 8 + 4 + 8 + 32;
/// Most entries kept: entries of other checks' files are carried over, up
/// to this many, so that checks sharing a work tree do not evict each other.
/// A run's own entries are all kept, however many (`receipts.max_entries`
/// bounds them), and load as saved.
const MAX_ENTRIES: usize = 200_000;

pub(super) use crate::platform::{Stat, Time};

impl Stat {
    /// Whether the inode settled strictly before `limit`.
    pub(super) fn older_than(&self, limit: Time) -> bool {
        self.mtime < limit && self.ctime < limit
    }
}

/// One recorded file.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry<'a> {
    pub path: &'a [u8],
    pub stat: Stat,
    pub sha256: [u8; 32],
}

/// A loaded cache: the file's bytes, checked whole, and where each entry
/// starts; entries are decoded only when asked for.
pub(super) struct Cache {
    bytes: Vec<u8>,
    /// Offset of each entry (its path length), in path order.
    starts: Vec<usize>,
    /// Entries must have settled before this to be trusted.
    limit: Time,
    /// Where the monitor token is in `bytes`.
    token: Range<usize>,
    answer: Option<Answer>,
    /// Whether every entry settled before `limit` (as a saved cache's do)
    /// and has one link: whether a monitor can vouch for all of them.
    all_vouchable: bool,
}

/// What a listing of covered paths depended on, digested.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Listed {
    /// SHA-256 of the index checksum and the sources and paths looked at.
    pub key: [u8; 32],
    /// The listing's digest of the index entries below the walked sources.
    pub walked_index: [u8; 32],
    /// The digest of the walk's answer.
    pub untracked: [u8; 32],
}

/// A monitored record's fingerprint and what its listing depended on
/// (`fingerprint::recorded_answer` says when it still holds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Answer {
    pub listed: Listed,
    /// The fingerprint, raw.
    pub digest: [u8; 32],
    pub entries: u64,
    pub bytes: u64,
}

impl Answer {
    const LEN: usize = 4 * 32 + 2 * 8;

    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(Answer::LEN as u32).to_le_bytes());
        let l = &self.listed;
        for part in [&l.key, &l.walked_index, &l.untracked, &self.digest] {
            out.extend_from_slice(part);
        }
        out.extend_from_slice(&self.entries.to_le_bytes());
        out.extend_from_slice(&self.bytes.to_le_bytes());
    }

    fn read(r: &mut Reader) -> Option<Answer> {
        let mut hash = || r.take(32)?.try_into().ok();
        let (key, walked_index, untracked, digest) = (hash()?, hash()?, hash()?, hash()?);
        Some(Answer {
            listed: Listed {
                key,
                walked_index,
                untracked,
            },
            digest,
            entries: r.u64()?,
            bytes: r.u64()?,
        })
    }
}

impl Cache {
    pub(super) fn len(&self) -> usize {
        self.starts.len()
    }

    /// The path of entry `i`.
    pub(super) fn path(&self, i: usize) -> &[u8] {
        let mut r = Reader {
            bytes: &self.bytes,
            at: self.starts[i],
        };
        r.path().unwrap_or_default()
    }

    /// Entry `i` decoded (`None` cannot happen: [`parse`] checked the layout).
    pub(super) fn entry(&self, i: usize) -> Option<Entry<'_>> {
        let mut r = Reader {
            bytes: &self.bytes,
            at: self.starts[i],
        };
        let path = r.path()?;
        let stat = r.stat()?;
        let sha256 = r.take(32)?.try_into().ok()?;
        Some(Entry { path, stat, sha256 })
    }

    /// The recorded hash of entry `i` if the file now has stat `now` and the
    /// record can be trusted.
    pub(super) fn trusted(&self, i: usize, now: &Stat) -> Option<[u8; 32]> {
        let entry = self.entry(i)?;
        (entry.stat == *now && entry.stat.older_than(self.limit)).then_some(entry.sha256)
    }

    /// Whether a monitor's word that entry `i`'s file did not change is
    /// enough: the entry settled before the cache was written (so
    /// [`trusted`](Self::trusted) would vouch for it were its stat
    /// unchanged), and its file has no other name, through which a write
    /// would be reported under that name only.
    pub(super) fn vouchable(&self, i: usize) -> bool {
        self.all_vouchable
            || self
                .entry(i)
                .is_some_and(|e| vouchable(&e.stat, self.limit))
    }

    /// Whether every entry is [`vouchable`](Self::vouchable).
    pub(super) fn all_vouchable(&self) -> bool {
        self.all_vouchable
    }

    /// The index of the entry for `path`, if any.
    pub(super) fn find(&self, path: &[u8]) -> Option<usize> {
        let mut r = Reader {
            bytes: &self.bytes,
            at: 0,
        };
        self.starts
            .binary_search_by(|&start| {
                r.at = start;
                r.path().unwrap_or_default().cmp(path)
            })
            .ok()
    }

    /// The monitor token the cache was written with, if any.
    pub(super) fn token(&self) -> Option<&[u8]> {
        Some(&self.bytes[self.token.clone()]).filter(|t| !t.is_empty())
    }

    /// The answer the cache was written with, if any.
    pub(super) fn answer(&self) -> Option<&Answer> {
        self.answer.as_ref()
    }
}

/// The cache file of the work tree `workdir` under `dir`.
pub(super) fn file_for(dir: &Path, workdir: &Path) -> PathBuf {
    named(dir, "fingerprint", workdir.as_os_str().as_encoded_bytes())
}

/// `<dir>/<prefix>-<16 hex digits of the SHA-256 of key>.cache`.
pub(super) fn named(dir: &Path, prefix: &str, key: &[u8]) -> PathBuf {
    let key = crate::digest::sha256_hex(key);
    dir.join(format!("{prefix}-{}.cache", &key[..16]))
}

/// The bytes of a cache file and its mtime; `None` when absent,
/// unreadable, not a regular file (a FIFO is refused, not waited on) or
/// larger than gate's cap for caches (`fsutil::Kind::CACHE`), by
/// `fsutil`'s guarded read. One handle for the bytes and the time: a file
/// replaced in between would pair one file's entries with the other's time.
pub(super) fn read(file: &Path) -> Option<(Vec<u8>, Time)> {
    let (dir, name) = (file.parent()?, file.file_name()?);
    let (bytes, meta) =
        crate::fsutil::read_within_meta(dir, Path::new(name), crate::fsutil::Kind::CACHE)
            .ok()??;
    Some((bytes, Time::mtime_of(&meta)))
}

/// `bytes` without their trailing SHA-256 ([`write_sealed`]), when it checks.
pub(super) fn unseal(mut bytes: Vec<u8>) -> Option<Vec<u8>> {
    let body_len = bytes.len().checked_sub(32)?;
    if Sha256::digest(&bytes[..body_len]).as_slice() != &bytes[body_len..] {
        return None;
    }
    bytes.truncate(body_len);
    Some(bytes)
}

/// Append the SHA-256 of `out` and write it atomically; `false` on failure.
pub(super) fn write_sealed(file: &Path, mut out: Vec<u8>) -> bool {
    let sum = Sha256::digest(&out);
    out.extend_from_slice(&sum);
    crate::fsutil::write_atomic(file, &out, None).is_ok()
}

/// Load the cache for `workdir`; `None` when absent, unreadable or corrupt.
pub(super) fn load(file: &Path, workdir: &[u8]) -> Option<Cache> {
    let (bytes, written) = read(file)?;
    parse(bytes, workdir, written)
}

/// The token in the header of a cache file's `bytes` (as [`read`] gives
/// them), not yet checked against the seal: to ask the monitor while the
/// rest is checked and parsed.
pub(super) fn peek_token<'b>(bytes: &'b [u8], workdir: &[u8]) -> Option<&'b [u8]> {
    let mut r = Reader { bytes, at: 0 };
    let (_, token) = header(&mut r, workdir)?;
    Some(&bytes[token]).filter(|t| !t.is_empty())
}

/// The header up to the token: the stamp and where the token is.
fn header(r: &mut Reader, workdir: &[u8]) -> Option<(Time, Range<usize>)> {
    if r.take(MAGIC.len())? != MAGIC || r.u32()? != VERSION {
        return None;
    }
    let stamp = r.time()?;
    let len = r.u32()? as usize;
    if r.take(len)? != workdir {
        return None;
    }
    Some((stamp, range(r)?))
}

/// A cache from the `bytes` and mtime [`read`] gave; `None` when corrupt
/// or not for `workdir`.
pub(super) fn parse(bytes: Vec<u8>, workdir: &[u8], written: Time) -> Option<Cache> {
    let bytes = unseal(bytes)?;
    let body = bytes.as_slice();
    let mut r = Reader { bytes: body, at: 0 };
    let (stamp, token) = header(&mut r, workdir)?;
    let answer = match r.u32()? as usize {
        0 => None,
        Answer::LEN => Some(Answer::read(&mut r)?),
        _ => return None,
    };
    let count = usize::try_from(r.u64()?).ok()?;
    // Bounds the allocation below by the file's size. No cap on the count:
    // `save` caps only what it carries over, never a run's own entries.
    if count > body.len() / FIXED {
        return None;
    }
    let limit = stamp.min(written);
    let mut starts = Vec::with_capacity(count);
    let mut previous: &[u8] = &[];
    let mut all_vouchable = true;
    for i in 0..count {
        starts.push(r.at);
        let path = r.path()?;
        if i > 0 && previous >= path {
            return None;
        }
        previous = path;
        let stat = r.stat()?;
        all_vouchable &= vouchable(&stat, limit);
        r.take(32)?;
    }
    if r.at != body.len() {
        return None;
    }
    Some(Cache {
        bytes,
        starts,
        limit,
        token,
        answer,
        all_vouchable,
    })
}

fn vouchable(stat: &Stat, limit: Time) -> bool {
    stat.older_than(limit) && stat.nlink == 1
}

/// Where the next length-prefixed field is, read past it.
fn range(r: &mut Reader) -> Option<Range<usize>> {
    let len = r.u32()? as usize;
    let start = r.at;
    r.take(len)?;
    Some(start..r.at)
}

pub(super) struct Reader<'a> {
    pub bytes: &'a [u8],
    pub at: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let out = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(out)
    }

    pub(super) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    pub(super) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// A length-prefixed path.
    pub(super) fn path(&mut self) -> Option<&'a [u8]> {
        let len = self.u32()? as usize;
        self.take(len)
    }

    pub(super) fn stat(&mut self) -> Option<Stat> {
        Some(Stat {
            size: self.u64()?,
            mtime: self.time()?,
            ctime: self.time()?,
            ino: self.u64()?,
            dev: self.u64()?,
            mode: self.u32()?,
            nlink: self.u64()?,
        })
    }

    pub(super) fn time(&mut self) -> Option<Time> {
        let sec = i64::from_le_bytes(self.take(8)?.try_into().ok()?);
        let nsec = i64::from(self.u32()?);
        Some(Time { sec, nsec })
    }
}

/// The file-system time now, as the cache directory's file system sees it:
/// the mtime of a file created there. `None` when the directory cannot be
/// written (then no cache is written either).
pub(super) fn stamp(dir: &Path) -> Option<Time> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    fs::create_dir_all(dir).ok()?;
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let path = dir.join(format!(".stamp.{}.{n}", std::process::id()));
    let file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .ok()?;
    let meta = file.metadata();
    drop(file);
    let _ = fs::remove_file(&path);
    Some(Time::mtime_of(&meta.ok()?))
}

/// Write the cache: `entries` (sorted by path, no duplicates) that settled
/// before `stamp`, then, up to the size cap, the old cache's entries for
/// paths not in `entries`, with a monitor's `token` (empty for none) and
/// `answer`. Failures are ignored: the cache only saves time.
pub(super) fn save<'a>(
    file: &Path,
    workdir: &[u8],
    stamp: Time,
    entries: &[Entry<'a>],
    old: Option<&Cache>,
    token: &[u8],
    answer: Option<&Answer>,
) -> bool {
    let old_entries = old.map_or(0, Cache::len);
    let carry = entries.len() + old_entries <= MAX_ENTRIES;
    let mut merged: Vec<Entry<'_>> = Vec::with_capacity(entries.len() + old_entries);
    match old.filter(|_| carry) {
        Some(old) => {
            // Merge two sorted lists; the new record wins on equal paths.
            let (mut i, mut j) = (0, 0);
            while i < entries.len() || j < old.len() {
                let new = entries.get(i);
                let prior = (j < old.len()).then(|| old.entry(j)).flatten();
                match (new, prior) {
                    (Some(n), Some(o)) if n.path == o.path => {
                        merged.push(*n);
                        i += 1;
                        j += 1;
                    }
                    (Some(n), Some(o)) if o.path < n.path => {
                        merged.push(o);
                        j += 1;
                    }
                    (Some(n), _) => {
                        merged.push(*n);
                        i += 1;
                    }
                    (None, Some(o)) => {
                        merged.push(o);
                        j += 1;
                    }
                    (None, None) => break,
                }
            }
        }
        None => merged.extend_from_slice(entries),
    }
    // Racy entries (changed in the stamp's clock tick or later) are left
    // out: the next run reads them again.
    merged.retain(|e| e.stat.older_than(stamp));
    let size: usize = merged.iter().map(|e| FIXED + e.path.len()).sum();
    let mut out = Vec::with_capacity(MAGIC.len() + 64 + workdir.len() + size + 32);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    put_time(&mut out, stamp);
    let Ok(len) = u32::try_from(workdir.len()) else {
        return false;
    };
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(workdir);
    if !put_path(&mut out, token) {
        return false;
    }
    // An answer covers exactly the entries it was computed from, and comes
    // with the token that says when.
    match answer.filter(|_| merged.len() == entries.len() && !token.is_empty()) {
        Some(answer) => answer.put(&mut out),
        None => out.extend_from_slice(&0u32.to_le_bytes()),
    }
    out.extend_from_slice(&(merged.len() as u64).to_le_bytes());
    for e in &merged {
        if !put_path(&mut out, e.path) {
            return false;
        }
        put_stat(&mut out, &e.stat);
        out.extend_from_slice(&e.sha256);
    }
    write_sealed(file, out)
}

/// A length-prefixed path; `false` for one of 4 GiB or more.
pub(super) fn put_path(out: &mut Vec<u8>, path: &[u8]) -> bool {
    let Ok(len) = u32::try_from(path.len()) else {
        return false;
    };
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(path);
    true
}

/// A stat as [`Reader::stat`] reads it.
pub(super) fn put_stat(out: &mut Vec<u8>, stat: &Stat) {
    out.extend_from_slice(&stat.size.to_le_bytes());
    put_time(out, stat.mtime);
    put_time(out, stat.ctime);
    out.extend_from_slice(&stat.ino.to_le_bytes());
    out.extend_from_slice(&stat.dev.to_le_bytes());
    out.extend_from_slice(&stat.mode.to_le_bytes());
    out.extend_from_slice(&stat.nlink.to_le_bytes());
}

pub(super) fn put_time(out: &mut Vec<u8>, t: Time) {
    out.extend_from_slice(&t.sec.to_le_bytes());
    // Nanoseconds are 0..1e9; anything else was never written by us.
    let nsec = u32::try_from(t.nsec).unwrap_or(u32::MAX);
    out.extend_from_slice(&nsec.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(sec: i64, nsec: i64) -> Time {
        Time { sec, nsec }
    }

    fn stat(size: u64, m: Time, c: Time) -> Stat {
        Stat {
            size,
            mtime: m,
            ctime: c,
            ino: 7,
            dev: 9,
            mode: 0o100644,
            nlink: 1,
        }
    }

    fn entry(path: &[u8], s: Stat, byte: u8) -> Entry<'_> {
        Entry {
            path,
            stat: s,
            sha256: [byte; 32],
        }
    }

    #[test]
    fn round_trip_and_trust_rules() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c");
        let old = stat(3, t(100, 5), t(100, 5));
        let racy = stat(3, t(200, 0), t(100, 0));
        let racy_ctime = stat(3, t(100, 0), t(200, 0));
        let entries = [
            entry(b"a", old, 1),
            entry(b"b", racy, 2),
            entry(b"c", racy_ctime, 3),
        ];
        assert!(save(&file, b"/w", t(200, 0), &entries, None, b"", None));
        let cache = load(&file, b"/w").expect("loads");
        // Entries not strictly older than the stamp are not even written.
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.path(0), b"a");
        assert_eq!(cache.trusted(0, &old), Some([1; 32]));
        // Any difference in the stat: not trusted.
        for changed in [
            Stat { size: 4, ..old },
            Stat {
                mtime: t(100, 6),
                ..old
            },
            Stat {
                ctime: t(101, 5),
                ..old
            },
            Stat { ino: 8, ..old },
            Stat { dev: 1, ..old },
            Stat { nlink: 2, ..old },
            Stat {
                mode: 0o100755,
                ..old
            },
        ] {
            assert_eq!(cache.trusted(0, &changed), None, "{changed:?}");
        }
        // Another work tree's cache is not this one's.
        assert!(load(&file, b"/other").is_none());
    }

    #[test]
    fn an_entry_as_new_as_the_stamp_is_not_trusted() {
        let s = stat(1, t(50, 0), t(50, 0));
        let body = {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("c");
            assert!(save(
                &file,
                b"/w",
                t(50, 1),
                &[entry(b"a", s, 1)],
                None,
                b"",
                None
            ));
            fs::read(&file).unwrap()
        };
        // The file's own mtime is the limit too: written "at" 50.0, the
        // entry (50.0) is not strictly older.
        let cache = parse(body.clone(), b"/w", t(50, 0)).unwrap();
        assert_eq!(cache.trusted(0, &s), None);
        let cache = parse(body, b"/w", t(50, 1)).unwrap();
        assert_eq!(cache.trusted(0, &s), Some([1; 32]));
    }

    #[test]
    fn a_file_larger_than_any_cache_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("huge.cache");
        // Sparse: no disk, but reading it whole would take 2 GiB of memory.
        fs::File::create(&file).unwrap().set_len(2 << 30).unwrap();
        assert!(read(&file).is_none());
        assert!(load(&file, b"/w").is_none());
    }

    #[test]
    fn corruption_is_never_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c");
        let s = stat(1, t(1, 0), t(1, 0));
        assert!(save(
            &file,
            b"/w",
            t(9, 0),
            &[entry(b"a", s, 1)],
            None,
            b"",
            None
        ));
        let good = fs::read(&file).unwrap();
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x40;
            assert!(parse(bad, b"/w", t(9, 0)).is_none(), "byte {i}");
        }
        for len in 0..good.len() {
            assert!(parse(good[..len].to_vec(), b"/w", t(9, 0)).is_none());
        }
        assert!(parse(good, b"/w", t(9, 0)).is_some());
    }

    #[test]
    fn old_entries_are_carried_and_new_ones_win() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c");
        let s = stat(1, t(1, 0), t(1, 0));
        let first = [entry(b"a", s, 1), entry(b"c", s, 3)];
        assert!(save(&file, b"/w", t(9, 0), &first, None, b"", None));
        let old = load(&file, b"/w").unwrap();
        let second = [entry(b"b", s, 2), entry(b"c", s, 4)];
        assert!(save(&file, b"/w", t(9, 0), &second, Some(&old), b"", None));
        let cache = load(&file, b"/w").unwrap();
        let got: Vec<_> = (0..cache.len())
            .map(|i| (cache.path(i).to_vec(), cache.entry(i).unwrap().sha256[0]))
            .collect();
        assert_eq!(
            got,
            [(b"a".to_vec(), 1), (b"b".to_vec(), 2), (b"c".to_vec(), 4)]
        );
    }

    /// Regression: `save` writes every entry of a run even beyond
    /// MAX_ENTRIES (it caps only what it carries over), but `parse`
    /// rejected more than MAX_ENTRIES, so such a cache was written on
    /// every run and never used.
    #[test]
    fn a_cache_above_the_carry_cap_loads_as_saved() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c");
        let s = stat(1, t(1, 0), t(1, 0));
        let paths: Vec<String> = (0..=MAX_ENTRIES).map(|i| format!("{i:07}")).collect();
        let entries: Vec<Entry<'_>> = paths.iter().map(|p| entry(p.as_bytes(), s, 1)).collect();
        assert!(save(&file, b"/w", t(9, 0), &entries, None, b"", None));
        let cache = load(&file, b"/w").expect("what save writes, load reads");
        assert_eq!(cache.len(), MAX_ENTRIES + 1);
        assert_eq!(cache.trusted(MAX_ENTRIES, &s), Some([1; 32]));
    }

    #[test]
    fn stamps_come_from_the_file_system() {
        let dir = tempfile::tempdir().unwrap();
        let a = stamp(&dir.path().join("sub")).unwrap();
        let b = stamp(&dir.path().join("sub")).unwrap();
        assert!(a <= b);
        assert_eq!(fs::read_dir(dir.path().join("sub")).unwrap().count(), 0);
    }
}
