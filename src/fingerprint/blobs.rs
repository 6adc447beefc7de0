//! The blob cache: by blob id, the size and SHA-256 of the blob's bytes, so
//! that a tree fingerprint (`tree`) hashes each blob once in a clone, not
//! once per push and per `gate verify`.
//!
//! A blob's id is git's hash of its bytes (behind the object header), so
//! what an id maps to is a pure function of the id: an entry never goes
//! stale, whatever commit, path or work tree it was met in. The key is the
//! raw id, whose length names the object format (20 bytes SHA-1, 32 bytes
//! SHA-256): one file per format, `blobs-sha1.cache` or
//! `blobs-sha256.cache` under the cache directory, whose header must name
//! the same length, so an entry of one format never answers for the other.
//!
//! Format (little-endian), checked whole on load; anything off — the
//! magic, the version, the id length, the count, the order, a generation,
//! the length, the checksum — and the file is ignored, never trusted, and
//! replaced by the next write:
//!
//! ```text
//! "gate-blob-cache\n" u32 version=1
//! u32 id length (20 or 32)
//! u32 generation: one more at each write
//! u64 count (at most MAX_ENTRIES), then count entries in strictly ascending id order:
//!   [u8; id length] blob id, u64 size, [u8; 32] SHA-256 of the blob's bytes,
//!   u32 generation of the last write that added or used it
//! [u8; 32] SHA-256 of everything above
//! ```
//!
//! Bounded: at most [`MAX_ENTRIES`] entries (64 bytes each with SHA-1 ids,
//! 76 with SHA-256: 16 MB, 19 MB), and a file larger than that is not read. A write
//! that would hold more keeps the entries of the latest generations — this
//! run's first — so the blobs of the trees in use stay, and those no recent
//! writing run used go (hashed again if they are ever met again).
//!
//! Writes are read-merge-replace under an OS lock (`blobs-<format>.lock`
//! beside the file): a run adds what it hashed to what the file holds when
//! it writes, so overlapping runs lose none of each other's entries; the
//! replace is atomic ([`crate::fsutil::write_atomic`]: a reader sees a
//! whole file, old or new, and a crash leaves at most gate's own temporary
//! file, never a torn cache). A run that cannot take the lock within
//! [`LOCK_WAIT`] skips its write: that only costs hashing again.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::cache;

const MAGIC: &[u8] = b"gate-blob-cache\n";
const VERSION: u32 = 1;
/// Magic, version, id length, generation, count.
const HEADER: usize = MAGIC.len() + 4 + 4 + 4 + 8;
/// Bytes of an entry besides its id: size, SHA-256, generation.
const FIXED: usize = 8 + 32 + 4;
/// Most entries a cache file holds.
pub(super) const MAX_ENTRIES: usize = 250_000;
/// The largest id (SHA-256).
const MAX_ID: usize = 32;
/// The largest file a cache of [`MAX_ENTRIES`] can be: nothing larger is read.
const MAX_FILE: u64 = (HEADER + MAX_ENTRIES * (MAX_ID + FIXED) + 32) as u64;
/// How long a write waits for another run's write to end.
pub(super) const LOCK_WAIT: Duration = Duration::from_secs(2);

/// What a blob's bytes are, as far as a fingerprint is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Known {
    pub size: u64,
    pub sha256: [u8; 32],
}

impl Known {
    pub(super) fn of(bytes: &[u8]) -> Known {
        Known {
            size: bytes.len() as u64,
            sha256: Sha256::digest(bytes).into(),
        }
    }
}

/// The cache of one object format: loaded at the first lookup, written by
/// [`Blobs::save`] when this run hashed a blob it did not hold.
pub(super) struct Blobs {
    /// The cache file; `None`: kept in memory only, never read or written.
    file: Option<PathBuf>,
    /// The length of this repository's ids.
    id_len: usize,
    /// Most entries written.
    cap: usize,
    /// The file as loaded: `None` before the first lookup, `Some(None)`
    /// when it is absent or not a cache to trust.
    loaded: Option<Option<Table>>,
    /// Which entries of the loaded table this run used.
    used: Vec<bool>,
    /// What this run hashed.
    added: HashMap<Vec<u8>, Known>,
    /// Whether `added` holds what the file does not yet.
    dirty: bool,
}

impl Blobs {
    /// The cache under `dir` for ids of `id_len` bytes (20 SHA-1, 32
    /// SHA-256); in memory only for another length.
    pub(super) fn under(dir: &Path, id_len: usize) -> Blobs {
        let file = file_name(id_len).map(|name| dir.join(name));
        Blobs {
            file,
            ..Blobs::in_memory(id_len)
        }
    }

    /// A cache that never touches a file: what one process hashed, for
    /// the rest of that process.
    pub(super) fn in_memory(id_len: usize) -> Blobs {
        Blobs {
            file: None,
            id_len,
            cap: cap(),
            loaded: None,
            used: Vec::new(),
            added: HashMap::new(),
            dirty: false,
        }
    }

    /// What blob `id` is, if this run or the file knows it.
    pub(super) fn get(&mut self, id: &[u8]) -> Option<Known> {
        if id.len() != self.id_len {
            return None;
        }
        if let Some(known) = self.added.get(id) {
            return Some(*known);
        }
        let table = self.table()?;
        let i = table.find(id)?;
        let known = table.known(i);
        self.used[i] = true;
        Some(known)
    }

    /// Record what blob `id` is (hashed from its bytes by the caller).
    pub(super) fn add(&mut self, id: &[u8], known: Known) {
        if id.len() == self.id_len && self.added.insert(id.to_vec(), known).is_none() {
            self.dirty = true;
        }
    }

    /// The loaded table, loading it the first time.
    fn table(&mut self) -> Option<&Table> {
        if self.loaded.is_none() {
            let table = self.file.as_deref().and_then(|f| load(f, self.id_len));
            self.used = vec![false; table.as_ref().map_or(0, |t| t.count)];
            self.loaded = Some(table);
        }
        self.loaded.as_ref()?.as_ref()
    }

    /// Write what this run hashed, merged with what the file holds now and
    /// what this run loaded, within the bound; `false` when nothing was
    /// written (nothing new, in memory, the lock not taken, a write
    /// failed). Failures cost time only.
    pub(super) fn save(&mut self) -> bool {
        let Some(file) = self.file.clone() else {
            return false;
        };
        if !self.dirty {
            return false;
        }
        let Some(lock) = lock_file(&file) else {
            return false;
        };
        let Ok(_lock) = crate::fsutil::lock(&lock, LOCK_WAIT) else {
            return false;
        };
        // Under the lock: what the file holds now, another run's writes since
        // this one loaded included.
        let current = load(&file, self.id_len);
        let loaded = self.loaded.as_ref().and_then(Option::as_ref);
        let generation = current
            .iter()
            .chain(loaded)
            .map(|t| t.generation)
            .max()
            .unwrap_or(0)
            .saturating_add(1);
        let mut ours: HashSet<&[u8]> = self.added.keys().map(Vec::as_slice).collect();
        if let Some(loaded) = loaded {
            ours.extend(
                (0..loaded.count)
                    .filter(|i| self.used[*i])
                    .map(|i| loaded.id(i)),
            );
        }
        let mut merged: Vec<(&[u8], Known, u32)> = Vec::new();
        for table in current.iter().chain(loaded) {
            merged.extend((0..table.count).map(|i| {
                let id = table.id(i);
                let at = match ours.contains(id) {
                    true => generation,
                    false => table.generation_of(i),
                };
                (id, table.known(i), at)
            }));
        }
        merged.extend(
            self.added
                .iter()
                .map(|(id, known)| (id.as_slice(), *known, generation)),
        );
        let out = encode(self.id_len, generation, merged, self.cap);
        let written = cache::write_sealed(&file, out);
        if written {
            self.dirty = false;
        }
        written
    }
}

/// The entries to write, from `merged` (any order, duplicates allowed):
/// one per id, the latest generation of each, at most `cap` of them, the
/// latest generations kept.
fn encode(
    id_len: usize,
    generation: u32,
    mut merged: Vec<(&[u8], Known, u32)>,
    cap: usize,
) -> Vec<u8> {
    // By id, the latest generation first, then one per id.
    merged.sort_unstable_by(|a, b| a.0.cmp(b.0).then(b.2.cmp(&a.2)));
    merged.dedup_by(|later, first| later.0 == first.0);
    if merged.len() > cap {
        merged.sort_unstable_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(b.0)));
        merged.truncate(cap);
        merged.sort_unstable_by(|a, b| a.0.cmp(b.0));
    }
    let mut out = Vec::with_capacity(HEADER + merged.len() * (id_len + FIXED) + 32);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(id_len as u32).to_le_bytes());
    out.extend_from_slice(&generation.to_le_bytes());
    out.extend_from_slice(&(merged.len() as u64).to_le_bytes());
    for (id, known, at) in merged {
        out.extend_from_slice(id);
        out.extend_from_slice(&known.size.to_le_bytes());
        out.extend_from_slice(&known.sha256);
        out.extend_from_slice(&at.to_le_bytes());
    }
    out
}

/// `blobs-sha1.cache` or `blobs-sha256.cache`; `None` for another length.
fn file_name(id_len: usize) -> Option<&'static str> {
    match id_len {
        20 => Some("blobs-sha1.cache"),
        32 => Some("blobs-sha256.cache"),
        _ => None,
    }
}

/// The lock beside the cache file: `blobs-sha1.lock` for `blobs-sha1.cache`.
fn lock_file(file: &Path) -> Option<PathBuf> {
    let stem = file.file_stem()?;
    let mut name = stem.to_os_string();
    name.push(".lock");
    Some(file.with_file_name(name))
}

/// Most entries a write keeps: [`MAX_ENTRIES`]; in a debug build,
/// `GATE_TEST_BLOB_CACHE_MAX` when it is a smaller number (the tests' way
/// to reach the bound: tests/integration/tree_fingerprint.rs). Release
/// builds have none.
fn cap() -> usize {
    #[cfg(debug_assertions)]
    if let Some(n) = std::env::var("GATE_TEST_BLOB_CACHE_MAX")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        return n.min(MAX_ENTRIES);
    }
    MAX_ENTRIES
}

/// A checked cache file, entries decoded when asked for.
struct Table {
    /// The file without its checksum.
    body: Vec<u8>,
    id_len: usize,
    count: usize,
    generation: u32,
}

impl Table {
    fn at(&self, i: usize) -> &[u8] {
        let start = HEADER + i * (self.id_len + FIXED);
        &self.body[start..start + self.id_len + FIXED]
    }

    fn id(&self, i: usize) -> &[u8] {
        &self.at(i)[..self.id_len]
    }

    fn known(&self, i: usize) -> Known {
        let entry = &self.at(i)[self.id_len..];
        Known {
            size: u64::from_le_bytes(entry[..8].try_into().expect("8 bytes")),
            sha256: entry[8..40].try_into().expect("32 bytes"),
        }
    }

    fn generation_of(&self, i: usize) -> u32 {
        let entry = &self.at(i)[self.id_len..];
        u32::from_le_bytes(entry[40..44].try_into().expect("4 bytes"))
    }

    fn find(&self, id: &[u8]) -> Option<usize> {
        let (mut low, mut high) = (0, self.count);
        while low < high {
            let mid = low + (high - low) / 2;
            match self.id(mid).cmp(id) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }
}

/// The cache at `file` for ids of `id_len` bytes; `None` when absent,
/// unreadable, larger than a cache can be, or not one to trust.
fn load(file: &Path, id_len: usize) -> Option<Table> {
    let kind = crate::fsutil::Kind {
        what: "the blob cache",
        max: MAX_FILE,
    };
    let bytes = crate::fsutil::read_file(file, kind).ok()??;
    parse(bytes, id_len)
}

/// The table in `bytes`, when they are a whole, sealed cache of `id_len`
/// ids within the bound, in strictly ascending order, no entry newer than
/// the file.
fn parse(bytes: Vec<u8>, id_len: usize) -> Option<Table> {
    let body = cache::unseal(bytes)?;
    let mut r = cache::Reader {
        bytes: &body,
        at: 0,
    };
    if r.take(MAGIC.len())? != MAGIC || r.u32()? != VERSION || r.u32()? as usize != id_len {
        return None;
    }
    file_name(id_len)?;
    let generation = r.u32()?;
    let count = usize::try_from(r.u64()?).ok()?;
    if count > MAX_ENTRIES || body.len() != HEADER + count * (id_len + FIXED) {
        return None;
    }
    let table = Table {
        body,
        id_len,
        count,
        generation,
    };
    for i in 0..count {
        if (i > 0 && table.id(i - 1) >= table.id(i)) || table.generation_of(i) > generation {
            return None;
        }
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(byte: u8) -> Known {
        Known {
            size: u64::from(byte),
            sha256: [byte; 32],
        }
    }

    fn id(n: u32) -> Vec<u8> {
        let mut id = vec![0u8; 20];
        id[..4].copy_from_slice(&n.to_be_bytes());
        id
    }

    fn with_cap(dir: &Path, cap: usize) -> Blobs {
        Blobs {
            cap,
            ..Blobs::under(dir, 20)
        }
    }

    #[test]
    fn round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let mut blobs = Blobs::under(dir.path(), 20);
        assert_eq!(blobs.get(&id(1)), None);
        blobs.add(&id(2), known(2));
        blobs.add(&id(1), known(1));
        assert_eq!(blobs.get(&id(1)), Some(known(1)));
        assert!(blobs.save());
        // Nothing new: nothing written.
        assert!(!blobs.save());
        let mut again = Blobs::under(dir.path(), 20);
        assert_eq!(again.get(&id(1)), Some(known(1)));
        assert_eq!(again.get(&id(2)), Some(known(2)));
        assert_eq!(again.get(&id(3)), None);
        // Another object format's ids are never looked up here.
        let mut sha256 = Blobs::under(dir.path(), 32);
        assert_eq!(sha256.get(&[0; 32]), None);
        assert_eq!(sha256.get(&id(1)), None);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        assert_eq!(names, ["blobs-sha1.cache", "blobs-sha1.lock"]);
    }

    #[test]
    fn in_memory_never_touches_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut blobs = Blobs::in_memory(20);
        blobs.add(&id(1), known(1));
        assert_eq!(blobs.get(&id(1)), Some(known(1)));
        assert!(!blobs.save());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn corruption_is_never_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let mut blobs = Blobs::under(dir.path(), 20);
        blobs.add(&id(1), known(1));
        blobs.add(&id(2), known(2));
        assert!(blobs.save());
        let good = std::fs::read(dir.path().join("blobs-sha1.cache")).unwrap();
        assert!(parse(good.clone(), 20).is_some());
        assert!(parse(good.clone(), 32).is_none());
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x40;
            assert!(parse(bad, 20).is_none(), "byte {i}");
        }
        for len in 0..good.len() {
            assert!(parse(good[..len].to_vec(), 20).is_none(), "length {len}");
        }
    }

    /// Sealed, yet not a cache to trust: out of order, a duplicate id, an
    /// entry newer than the file, another version.
    #[test]
    fn well_sealed_nonsense_is_not_trusted() {
        let sealed = |mut body: Vec<u8>| {
            let sum = Sha256::digest(&body);
            body.extend_from_slice(&sum);
            body
        };
        let good = encode(
            20,
            5,
            vec![(&id(1), known(1), 5), (&id(2), known(2), 4)],
            10,
        );
        assert!(parse(sealed(good.clone()), 20).is_some());
        let entry = |n: u32, at: u32| {
            let mut e = id(n);
            e.extend_from_slice(&1u64.to_le_bytes());
            e.extend_from_slice(&[1; 32]);
            e.extend_from_slice(&at.to_le_bytes());
            e
        };
        let header = |version: u32, count: u64| {
            let mut h = MAGIC.to_vec();
            h.extend_from_slice(&version.to_le_bytes());
            h.extend_from_slice(&20u32.to_le_bytes());
            h.extend_from_slice(&5u32.to_le_bytes());
            h.extend_from_slice(&count.to_le_bytes());
            h
        };
        for (version, entries) in [
            (1, vec![entry(2, 1), entry(1, 1)]),
            (1, vec![entry(1, 1), entry(1, 1)]),
            (1, vec![entry(1, 6)]),
            (2, vec![entry(1, 1)]),
        ] {
            let mut body = header(version, entries.len() as u64);
            body.extend(entries.concat());
            assert!(parse(sealed(body), 20).is_none());
        }
        let mut body = header(1, 1);
        body.extend(entry(1, 1));
        assert!(parse(sealed(body), 20).is_some());
        // A count beyond the bound is refused before anything is read.
        let body = header(1, MAX_ENTRIES as u64 + 1);
        assert!(parse(sealed(body), 20).is_none());
    }

    #[test]
    fn writers_merge_what_each_hashed() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = Blobs::under(dir.path(), 20);
        let mut second = Blobs::under(dir.path(), 20);
        // Both loaded the (absent) file before either wrote.
        assert_eq!(first.get(&id(9)), None);
        assert_eq!(second.get(&id(9)), None);
        first.add(&id(1), known(1));
        second.add(&id(2), known(2));
        assert!(first.save());
        assert!(second.save());
        let mut after = Blobs::under(dir.path(), 20);
        assert_eq!(after.get(&id(1)), Some(known(1)));
        assert_eq!(after.get(&id(2)), Some(known(2)));
    }

    #[test]
    fn a_garbage_file_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("blobs-sha1.cache");
        std::fs::write(&file, b"garbage").unwrap();
        let mut blobs = Blobs::under(dir.path(), 20);
        assert_eq!(blobs.get(&id(1)), None);
        blobs.add(&id(1), known(1));
        assert!(blobs.save());
        assert!(parse(std::fs::read(&file).unwrap(), 20).is_some());
    }

    #[test]
    fn the_bound_keeps_the_latest_runs_entries() {
        let dir = tempfile::tempdir().unwrap();
        // Run 1 adds 1..=3; run 2 uses 1 and adds 4 and 5: with room for 4,
        // the one nobody used since run 1 goes.
        let mut run = with_cap(dir.path(), 4);
        for n in 1..=3 {
            run.add(&id(n), known(n as u8));
        }
        assert!(run.save());
        let mut run = with_cap(dir.path(), 4);
        assert_eq!(run.get(&id(1)), Some(known(1)));
        run.add(&id(4), known(4));
        run.add(&id(5), known(5));
        assert!(run.save());
        let table = load(&dir.path().join("blobs-sha1.cache"), 20).unwrap();
        assert_eq!(table.count, 4);
        let kept: Vec<Vec<u8>> = (0..table.count).map(|i| table.id(i).to_vec()).collect();
        assert_eq!(kept.len(), 4);
        assert!(kept.contains(&id(1)) && kept.contains(&id(4)) && kept.contains(&id(5)));
        // A run that hashed more than the bound keeps only the bound.
        let mut run = with_cap(dir.path(), 4);
        for n in 10..20 {
            run.add(&id(n), known(n as u8));
        }
        assert!(run.save());
        assert_eq!(
            load(&dir.path().join("blobs-sha1.cache"), 20)
                .unwrap()
                .count,
            4
        );
    }

    #[test]
    fn a_file_larger_than_any_cache_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("blobs-sha1.cache");
        std::fs::File::create(&file)
            .unwrap()
            .set_len(MAX_FILE + 1)
            .unwrap();
        assert!(load(&file, 20).is_none());
    }
}
