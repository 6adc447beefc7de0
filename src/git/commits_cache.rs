//! The commit cache: by commit id, the committer date, tree and parents
//! of each commit a range's walk and merge-base searches read from the
//! object database, kept between runs (decision 0034). It is gate's own
//! small commit-graph for a repository that has none: without one, the
//! searches of a range with merges read most of the history below it, each
//! commit inflated from the packs (git/git's 1k range: some 65,000 commits,
//! half the check's CPU), and the next run would read them all again.
//!
//! A commit's id is git's hash of its bytes, so what an id maps to is a
//! pure function of the id: an entry never goes stale, whatever branch,
//! range or clone it was met in. One file per object format,
//! `commits-sha1.cache` or `commits-sha256.cache` under the cache
//! directory, whose header must name the same id length.
//!
//! Format (little-endian), checked whole on load; anything off — the
//! magic, the version, the id length, the counts, the order, a parent
//! list out of bounds, the length, the checksum — and the file is ignored,
//! never trusted, and replaced by the next write:
//!
//! ```text
//! "gate-commit-cache\n" u32 version=2
//! u32 id length (20 or 32)
//! u64 count (at most MAX_COMMITS), u64 parents (at most MAX_PARENTS)
//! count records in strictly ascending id order:
//!   [u8; id length] commit id, [u8; id length] tree id,
//!   i64 committer date (seconds), u32 first parent's index, u32 parent count
//! parents ids: [u8; id length] each, the records' lists one after another
//! [u8; 32] SHA-256 of everything above
//! ```
//!
//! Parents are as written in the commit: a shallow clone's boundary keeps
//! them here, and each reader drops them itself, as it does for a commit
//! read from the objects.
//!
//! Bounded: at most [`MAX_COMMITS`] commits and [`MAX_PARENTS`] parents
//! (a file of at most 72 MB with SHA-256 ids, 48 MB with SHA-1), and a
//! larger file is not read; a write that would hold more keeps the newest
//! commits by date, which the walks and searches of recent ranges read.
//!
//! Written only when a run read at least [`WORTH_WRITING`] commits the
//! file did not hold (a short push reads a few; rewriting megabytes for
//! them would cost more than reading them again). Writes are
//! read-merge-replace under an OS lock (`commits-<format>.lock` beside the
//! file), atomic but not synced ([`crate::fsutil::write_transient`]: a
//! crash may leave the renamed file short or zeroed, which its checksum
//! refuses, and the next run reads those commits again and rewrites it); a
//! run that cannot take the lock within [`LOCK_WAIT`] skips its write,
//! which only costs reading the commits again. The write goes on beside
//! the rest of the run, on a thread of its own (src/git/mod.rs,
//! `keep_read_commits`), joined before the process ends.
//!
//! What it does not protect: the cache is the local user's, as the blob
//! cache is. A file someone rewrote with a valid checksum and false
//! parents would mislead this clone's checks (never CI's, whose clone has
//! its own); and a commit whose object was pruned is still answered from
//! here. Named commits (a range's tip and base) are always read from the
//! objects, so a missing tip or base is still refused.

use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::walk::Parents;

/// 2 since the tree moved before the date in a commit record (version 1
/// files, written by main for a few commits, are ignored and replaced).
const VERSION: u32 = 2;
/// Most commits a file holds.
pub(super) const MAX_COMMITS: usize = 500_000;
/// Most parents a file holds.
pub(super) const MAX_PARENTS: usize = 1_000_000;
/// Most pairs the merge-bases file holds.
pub(super) const MAX_PAIRS: usize = 250_000;
/// Most bases the merge-bases file holds.
const MAX_BASES: usize = 500_000;
/// The largest id (SHA-256).
const MAX_ID: usize = 32;
/// How long a write waits for another run's write to end.
const LOCK_WAIT: Duration = Duration::from_secs(2);
/// Fewest commits read from the objects, not held by the file, that make a
/// write worth its cost.
pub(super) const WORTH_WRITING: usize = 1024;
/// Fewest new answers worth a write of the merge-bases file (each is a
/// search, often of thousands of commits).
pub(super) const BASES_WORTH_WRITING: usize = 64;

/// The shape both files share: a header (magic, version, id length, the
/// number of records, the length of the list), then records in strictly
/// ascending order of their key — a key of `key_ids` ids, a payload of
/// `payload_ids` ids and `payload_bytes` bytes, the span (u32 first, u32
/// count) of their ids in the list — then the list of ids, then the SHA-256
/// of everything before it.
struct Layout {
    magic: &'static [u8],
    what: &'static str,
    key_ids: usize,
    payload_ids: usize,
    payload_bytes: usize,
    max_records: usize,
    max_list: usize,
}

impl Layout {
    fn header(&self) -> usize {
        self.magic.len() + 4 + 4 + 8 + 8
    }

    fn record_len(&self, id_len: usize) -> usize {
        (self.key_ids + self.payload_ids) * id_len + self.payload_bytes + 8
    }

    /// The largest file of this layout: nothing larger is read.
    fn max_file(&self) -> u64 {
        (self.header() + self.max_records * self.record_len(MAX_ID) + self.max_list * MAX_ID + 32)
            as u64
    }
}

/// The commit cache: a commit's id; its date and tree; its parents.
const COMMITS: Layout = Layout {
    magic: b"gate-commit-cache\n",
    what: "the commit cache",
    key_ids: 1,
    payload_ids: 1,
    payload_bytes: 8,
    max_records: MAX_COMMITS,
    max_list: MAX_PARENTS,
};

/// The merge bases kept ([`BasesTable`]): the two commits asked about; the
/// bases, newest first.
const BASES: Layout = Layout {
    magic: b"gate-merge-bases\n",
    what: "the merge-bases cache",
    key_ids: 2,
    payload_ids: 0,
    payload_bytes: 0,
    max_records: MAX_PAIRS,
    max_list: MAX_BASES,
};

/// The merge bases kept from searches ordered by a commit-graph's
/// generations: [`BASES`]'s layout under another magic, in a file of its
/// own ([`Ordered::Generations`]).
const GRAPH_BASES: Layout = Layout {
    magic: b"gate-graph-bases\n",
    what: "the commit-graph's merge-bases cache",
    ..BASES
};

/// Which search found the merge bases a file keeps. Each is kept apart:
/// under clock skew the two can answer one question differently, and each
/// door must answer as its own search would.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ordered {
    /// Without a commit-graph, by committer date alone, in a full clone
    /// (`merge-bases-*.cache`): a function of the commits' dates and
    /// parents.
    Dates,
    /// With a commit-graph, between two commits it holds with generations
    /// it computed (`graph-bases-*.cache`): every commit such a search
    /// visits is below them, in the graph, and visited in an order no
    /// parent comes before its child in, so its answer is the merge bases
    /// themselves, a function of the parents alone. Likewise without one,
    /// between two commits of a range ordered by its levels (decision
    /// 0035) whose search stayed in the range.
    Generations,
}

impl Ordered {
    fn layout(self) -> &'static Layout {
        match self {
            Ordered::Dates => &BASES,
            Ordered::Generations => &GRAPH_BASES,
        }
    }
}

/// A checked file of one [`Layout`], records decoded when asked for.
struct Records {
    layout: &'static Layout,
    /// The file without its checksum.
    body: Vec<u8>,
    id_len: usize,
    count: usize,
    /// Where the list of ids starts in `body`.
    list_at: usize,
}

impl Records {
    fn record(&self, i: usize) -> &[u8] {
        let len = self.layout.record_len(self.id_len);
        let start = self.layout.header() + i * len;
        &self.body[start..start + len]
    }

    fn key(&self, i: usize) -> &[u8] {
        &self.record(i)[..self.layout.key_ids * self.id_len]
    }

    fn payload(&self, i: usize) -> &[u8] {
        let r = self.record(i);
        &r[self.layout.key_ids * self.id_len..r.len() - 8]
    }

    fn span(&self, i: usize) -> (usize, usize) {
        let r = self.record(i);
        let n = r.len() - 8;
        let first = u32::from_le_bytes(r[n..n + 4].try_into().expect("4 bytes")) as usize;
        let count = u32::from_le_bytes(r[n + 4..].try_into().expect("4 bytes")) as usize;
        (first, count)
    }

    /// Record `i`'s ids in the list.
    fn list(&self, i: usize) -> impl Iterator<Item = gix::ObjectId> + '_ {
        let (first, count) = self.span(i);
        (first..first + count).map(move |at| {
            let at = self.list_at + at * self.id_len;
            gix::ObjectId::from_bytes_or_panic(&self.body[at..at + self.id_len])
        })
    }

    /// The record whose key is `key`, if there is one.
    fn find(&self, key: &[u8]) -> Option<usize> {
        let (mut low, mut high) = (0, self.count);
        while low < high {
            let mid = low + (high - low) / 2;
            match self.key(mid).cmp(key) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The `n`th id of record `i`'s key or payload (keys first).
    fn id_at(&self, i: usize, n: usize) -> gix::ObjectId {
        let at = n * self.id_len;
        gix::ObjectId::from_bytes_or_panic(&self.record(i)[at..at + self.id_len])
    }
}

/// The file `file` of `layout` for ids of `hash`; `None` when absent,
/// unreadable, larger than such a file can be, or not one to trust.
fn load_records(layout: &'static Layout, file: &Path, hash: gix::hash::Kind) -> Option<Records> {
    let (dir, name) = (file.parent()?, file.file_name()?);
    let kind = crate::fsutil::Kind {
        what: layout.what,
        max: layout.max_file(),
    };
    let bytes = crate::fsutil::read_within(dir, Path::new(name), kind).ok()??;
    parse_records(layout, bytes, hash)
}

/// The records in `bytes`, when they are a whole, sealed file of `layout`
/// for `hash`'s ids within its bounds, in strictly ascending order of key,
/// every span within the list.
fn parse_records(
    layout: &'static Layout,
    mut bytes: Vec<u8>,
    hash: gix::hash::Kind,
) -> Option<Records> {
    let id_len = hash.len_in_bytes();
    let body_len = bytes.len().checked_sub(32)?;
    if Sha256::digest(&bytes[..body_len]).as_slice() != &bytes[body_len..] {
        return None;
    }
    bytes.truncate(body_len);
    let body = bytes;
    let field = |at: usize, len: usize| body.get(at..at + len);
    if field(0, layout.magic.len())? != layout.magic {
        return None;
    }
    let u32_at = |at: usize| Some(u32::from_le_bytes(field(at, 4)?.try_into().ok()?));
    let u64_at = |at: usize| Some(u64::from_le_bytes(field(at, 8)?.try_into().ok()?));
    let at = layout.magic.len();
    if u32_at(at)? != VERSION || u32_at(at + 4)? as usize != id_len {
        return None;
    }
    file_in(Path::new(""), id_len)?;
    let count = usize::try_from(u64_at(at + 8)?).ok()?;
    let list = usize::try_from(u64_at(at + 16)?).ok()?;
    if count > layout.max_records || list > layout.max_list {
        return None;
    }
    let list_at = layout.header() + count * layout.record_len(id_len);
    if body.len() != list_at + list * id_len {
        return None;
    }
    let records = Records {
        layout,
        body,
        id_len,
        count,
        list_at,
    };
    for i in 0..count {
        let (first, n) = records.span(i);
        if (i > 0 && records.key(i - 1) >= records.key(i)) || first + n > list {
            return None;
        }
    }
    Some(records)
}

/// One record to write: its key and payload bytes, and its ids.
struct Row {
    key_and_payload: Vec<u8>,
    list: Vec<gix::ObjectId>,
}

/// The sealed bytes of a file of `layout` holding `rows`, which are in
/// strictly ascending order of key and within the bounds.
fn encode_records(layout: &Layout, id_len: usize, rows: &[Row]) -> Vec<u8> {
    encode_records_with(
        layout,
        id_len,
        rows,
        |row, out| out.extend_from_slice(&row.key_and_payload),
        |row| row.list.len(),
        |row, out| {
            for id in &row.list {
                out.extend_from_slice(id.as_bytes());
            }
        },
    )
}

/// [`encode_records`] of records as `head` writes each one's key and
/// payload and `list` its ids (`count` of them), written straight into
/// the file's bytes: no record is made again to be written.
fn encode_records_with<R>(
    layout: &Layout,
    id_len: usize,
    rows: &[R],
    head: impl Fn(&R, &mut Vec<u8>),
    count: impl Fn(&R) -> usize,
    list: impl Fn(&R, &mut Vec<u8>),
) -> Vec<u8> {
    let total: usize = rows.iter().map(&count).sum();
    let mut out = Vec::with_capacity(
        layout.header() + rows.len() * layout.record_len(id_len) + total * id_len + 32,
    );
    out.extend_from_slice(layout.magic);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(id_len as u32).to_le_bytes());
    out.extend_from_slice(&(rows.len() as u64).to_le_bytes());
    out.extend_from_slice(&(total as u64).to_le_bytes());
    let mut first = 0u32;
    for row in rows {
        head(row, &mut out);
        let n = count(row) as u32;
        out.extend_from_slice(&first.to_le_bytes());
        out.extend_from_slice(&n.to_le_bytes());
        first += n;
    }
    for row in rows {
        list(row, &mut out);
    }
    let sum = Sha256::digest(&out);
    out.extend_from_slice(&sum);
    out
}

/// Under the lock beside `file`, write what `build` makes of the file as
/// it is now (another run's writes since this one loaded included), read
/// again under the lock; `false` when nothing was written (the lock not
/// taken, a write failed). Failures cost time only.
fn write_locked(
    layout: &'static Layout,
    file: &Path,
    hash: gix::hash::Kind,
    build: impl FnOnce(Option<Records>) -> Vec<u8>,
) -> bool {
    let Some(lock) = lock_file(file) else {
        return false;
    };
    let Ok(_lock) = crate::fsutil::lock(&lock, LOCK_WAIT) else {
        return false;
    };
    let bytes = build(load_records(layout, file, hash));
    crate::fsutil::write_transient(file, &bytes).is_ok()
}

/// The lock beside a cache file: `commits-sha1.lock` for
/// `commits-sha1.cache`.
fn lock_file(file: &Path) -> Option<PathBuf> {
    let mut name = file.file_stem()?.to_os_string();
    name.push(".lock");
    Some(file.with_file_name(name))
}

/// What the cache says of one commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Head {
    pub time: i64,
    pub tree: gix::ObjectId,
    /// As written in the commit.
    pub parents: Parents,
}

/// The cache file for ids of `id_len` bytes under `dir`; `None` for
/// another length.
pub(super) fn file_in(dir: &Path, id_len: usize) -> Option<PathBuf> {
    let name = match id_len {
        20 => "commits-sha1.cache",
        32 => "commits-sha256.cache",
        _ => return None,
    };
    Some(dir.join(name))
}

/// A checked commit cache.
pub(super) struct Table(Records);

impl Table {
    /// How many commits the file holds.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.0.count
    }

    /// The record of commit `i` (in id order).
    fn head(&self, i: usize) -> Head {
        let payload = self.0.payload(i);
        Head {
            time: i64::from_le_bytes(payload[self.0.id_len..].try_into().expect("8 bytes")),
            tree: self.0.id_at(i, 1),
            parents: self.0.list(i).collect(),
        }
    }

    /// What the file says of commit `id`, if it holds it.
    pub(super) fn get(&self, id: &gix::oid) -> Option<Head> {
        let i = self.0.find(id.as_bytes())?;
        Some(self.head(i))
    }
}

/// The commit cache at `file` for ids of `hash`; `None` when absent,
/// unreadable, larger than a cache can be, or not one to trust.
pub(super) fn load(file: &Path, hash: gix::hash::Kind) -> Option<Table> {
    load_records(&COMMITS, file, hash).map(Table)
}

/// [`load`]'s check of `bytes`.
#[cfg(test)]
fn parse(bytes: Vec<u8>, hash: gix::hash::Kind) -> Option<Table> {
    parse_records(&COMMITS, bytes, hash).map(Table)
}

/// The commits a run read from the objects, as compactly as the file
/// keeps them: each one's id, date and tree and where its parents are in
/// one list of ids, in the order they were read, found by id through a
/// table of their places. A [`Head`] for each, with its parents inline
/// (88 bytes and its id), took 14 MB at git/git's whole history without a
/// commit-graph, and a write copied them twice more; a map from id to the
/// rest (64 bytes a slot, 131,072 slots) 8.4 MB, and this 5.3 MB
/// (docs/performance.md, "Real histories").
#[derive(Default)]
pub(super) struct Read {
    kept: Vec<Kept>,
    places: super::places::Places,
    parents: Vec<gix::ObjectId>,
}

/// One commit of [`Read`] (56 bytes).
#[derive(Clone, Copy)]
struct Kept {
    id: gix::ObjectId,
    tree: gix::ObjectId,
    time: i64,
    /// Its parents: `count` ids from `first` in [`Read::parents`].
    first: u32,
    count: u32,
}

impl Read {
    /// How many commits it holds.
    pub(super) fn len(&self) -> usize {
        self.kept.len()
    }

    /// What it holds of commit `id`.
    pub(super) fn get(&self, id: &gix::oid) -> Option<Head> {
        let at = self.places.get(id, |p| &self.kept[p as usize].id)?;
        let kept = &self.kept[at as usize];
        Some(Head {
            time: kept.time,
            tree: kept.tree,
            parents: self.parents_of(kept).iter().copied().collect(),
        })
    }

    fn parents_of(&self, kept: &Kept) -> &[gix::ObjectId] {
        let first = kept.first as usize;
        &self.parents[first..first + kept.count as usize]
    }

    /// Keep commit `id`'s date, tree and parents (as written), unless it is
    /// kept already; a list of parents past what a `u32` counts, or a
    /// commit past as many, is not kept (the commit is read again where it
    /// is asked for).
    pub(super) fn put(
        &mut self,
        id: gix::ObjectId,
        time: i64,
        tree: gix::ObjectId,
        parents: &[gix::ObjectId],
    ) {
        let kept = &self.kept;
        if self.places.get(&id, |p| &kept[p as usize].id).is_some() {
            return;
        }
        let (Ok(first), Ok(count), Ok(at)) = (
            u32::try_from(self.parents.len()),
            u32::try_from(parents.len()),
            u32::try_from(self.kept.len()),
        ) else {
            return;
        };
        if first.checked_add(count).is_none() {
            return;
        }
        self.parents.extend_from_slice(parents);
        self.kept.push(Kept {
            id,
            tree,
            time,
            first,
            count,
        });
        let kept = &self.kept;
        self.places.insert_new(at, |p| &kept[p as usize].id);
    }

    /// A copy to write to the file: the commits in a list (56 bytes each)
    /// and the list of parents, taken while the record is locked and
    /// written after.
    pub(super) fn to_write(&self) -> Added {
        Added {
            commits: self.kept.clone(),
            parents: self.parents.clone(),
        }
    }
}

/// Commits to write to the file ([`Read::to_write`]).
pub(super) struct Added {
    commits: Vec<Kept>,
    parents: Vec<gix::ObjectId>,
}

impl Added {
    /// How many commits it holds.
    pub(super) fn len(&self) -> usize {
        self.commits.len()
    }

    fn parents_of(&self, kept: &Kept) -> &[gix::ObjectId] {
        let first = kept.first as usize;
        &self.parents[first..first + kept.count as usize]
    }
}

/// Where a record to write comes from: the file as it is, or this run.
#[derive(Clone, Copy)]
enum From {
    File(u32),
    Run(u32),
}

/// The bytes of a cache holding `added` and what `file` holds (`added`'s
/// commit where both hold one), one record per id, at most
/// [`MAX_COMMITS`] commits and [`MAX_PARENTS`] parents, the newest kept.
/// The two are merged in id order into a list of where each record comes
/// from (8 bytes a commit), and each record is written from there.
fn encode(id_len: usize, file: Option<&Records>, mut added: Added) -> Vec<u8> {
    added.commits.sort_unstable_by_key(|kept| kept.id);
    let in_file = file.map_or(0, |records| records.count);
    let mut order: Vec<From> = Vec::with_capacity(in_file + added.commits.len());
    let (mut f, mut r) = (0, 0);
    while f < in_file || r < added.commits.len() {
        let from_file = match (file, added.commits.get(r)) {
            (Some(records), Some(kept)) if f < in_file => {
                match records.key(f).cmp(kept.id.as_bytes()) {
                    std::cmp::Ordering::Less => true,
                    std::cmp::Ordering::Equal => {
                        f += 1;
                        false
                    }
                    std::cmp::Ordering::Greater => false,
                }
            }
            (_, None) => true,
            _ => false,
        };
        if from_file {
            order.push(From::File(f as u32));
            f += 1;
        } else {
            order.push(From::Run(r as u32));
            r += 1;
        }
    }
    let count = |from: &From| match *from {
        From::File(i) => file.map_or(0, |records| records.span(i as usize).1),
        From::Run(i) => added.commits[i as usize].count as usize,
    };
    let time = |from: &From| match *from {
        From::File(i) => file.map_or(0, |records| {
            let payload = records.payload(i as usize);
            i64::from_le_bytes(payload[records.id_len..].try_into().expect("8 bytes"))
        }),
        From::Run(i) => added.commits[i as usize].time,
    };
    let id = |from: &From| -> &[u8] {
        match *from {
            From::File(i) => file.map_or(&[][..], |records| records.key(i as usize)),
            From::Run(i) => added.commits[i as usize].id.as_bytes(),
        }
    };
    let parents: usize = order.iter().map(count).sum();
    if order.len() > MAX_COMMITS || parents > MAX_PARENTS {
        order.sort_unstable_by(|a, b| time(b).cmp(&time(a)).then(id(a).cmp(id(b))));
        let mut kept_parents = 0;
        let keep = order
            .iter()
            .take(MAX_COMMITS)
            .take_while(|from| {
                kept_parents += count(from);
                kept_parents <= MAX_PARENTS
            })
            .count();
        order.truncate(keep);
        order.sort_unstable_by(|a, b| id(a).cmp(id(b)));
    }
    encode_records_with(
        &COMMITS,
        id_len,
        &order,
        |from, out| match *from {
            From::File(i) => {
                let records = file.expect("a record of the file");
                let record = records.record(i as usize);
                out.extend_from_slice(&record[..record.len() - 8]);
            }
            From::Run(i) => {
                let kept = &added.commits[i as usize];
                out.extend_from_slice(kept.id.as_bytes());
                out.extend_from_slice(kept.tree.as_bytes());
                out.extend_from_slice(&kept.time.to_le_bytes());
            }
        },
        count,
        |from, out| match *from {
            From::File(i) => {
                let records = file.expect("a record of the file");
                let (first, n) = records.span(i as usize);
                let at = records.list_at + first * records.id_len;
                out.extend_from_slice(&records.body[at..at + n * records.id_len]);
            }
            From::Run(i) => {
                for parent in added.parents_of(&added.commits[i as usize]) {
                    out.extend_from_slice(parent.as_bytes());
                }
            }
        },
    )
}

/// Write `added` (commits this run read from the objects) to the cache at
/// `file`, merged with what the file holds now (another run's writes since
/// this one loaded included: a write keeps what the file held, so it holds
/// what this run loaded unless the bound let it go), or with `loaded` when
/// the file no longer reads; within the bounds. `false` when nothing was
/// written.
pub(super) fn save(
    file: &Path,
    hash: gix::hash::Kind,
    loaded: Option<&Table>,
    added: Added,
) -> bool {
    write_locked(&COMMITS, file, hash, |current| {
        let current = current.map(Table);
        let held = current.as_ref().or(loaded).map(|table| &table.0);
        encode(hash.len_in_bytes(), held, added)
    })
}

/// The merge bases of two commits as one kind of search finds them
/// ([`Ordered`]), kept beside the commits: by date in a full clone without
/// a commit-graph (`merge-bases-sha1.cache`), a function of the commits'
/// dates and parents; by a commit-graph's generations between two commits
/// it grades (`graph-bases-sha1.cache`), the merge bases themselves.
/// Neither goes stale; each kind reads only its own file (under clock skew
/// the two can differ); in a shallow clone the boundary changes the graph
/// and nothing is kept or answered. The layout is the commit cache's (a
/// magic of its own per kind, the key the ordered pair of commits asked
/// about, no payload, the bases newest first as the list), bounded at
/// [`MAX_PAIRS`] pairs and 500,000 bases.
pub(super) struct BasesTable(Records);

/// The pair a search answered, and its bases.
pub(super) type Answer = ((gix::ObjectId, gix::ObjectId), Vec<gix::ObjectId>);

/// The file of `order`'s merge bases for ids of `id_len` bytes under `dir`.
pub(super) fn bases_file_in(dir: &Path, id_len: usize, order: Ordered) -> Option<PathBuf> {
    let name = match (order, id_len) {
        (Ordered::Dates, 20) => "merge-bases-sha1.cache",
        (Ordered::Dates, 32) => "merge-bases-sha256.cache",
        (Ordered::Generations, 20) => "graph-bases-sha1.cache",
        (Ordered::Generations, 32) => "graph-bases-sha256.cache",
        _ => return None,
    };
    Some(dir.join(name))
}

impl BasesTable {
    /// The bases the file holds for `one` and `other`, if it does.
    pub(super) fn get(&self, one: &gix::oid, other: &gix::oid) -> Option<Vec<gix::ObjectId>> {
        let i = self.0.find(&[one.as_bytes(), other.as_bytes()].concat())?;
        Some(self.0.list(i).collect())
    }

    fn each(&self) -> impl Iterator<Item = Answer> + '_ {
        (0..self.0.count).map(|i| {
            let pair = (self.0.id_at(i, 0), self.0.id_at(i, 1));
            (pair, self.0.list(i).collect())
        })
    }
}

/// The merge-bases file at `file`; `None` when absent, unreadable, too
/// large or not one to trust.
pub(super) fn load_bases(file: &Path, hash: gix::hash::Kind, order: Ordered) -> Option<BasesTable> {
    load_records(order.layout(), file, hash).map(BasesTable)
}

/// [`load_bases`]'s check of `bytes`.
#[cfg(test)]
fn parse_bases(bytes: Vec<u8>, hash: gix::hash::Kind, order: Ordered) -> Option<BasesTable> {
    parse_records(order.layout(), bytes, hash).map(BasesTable)
}

/// The bytes of a merge-bases file holding `answers` (any order,
/// duplicates allowed), one record per pair. Past the bounds the pairs
/// kept are the lowest ids, which is as good as any for a cache that only
/// saves a search.
fn encode_bases(id_len: usize, order: Ordered, mut answers: Vec<Answer>) -> Vec<u8> {
    answers.sort_unstable_by_key(|a| a.0);
    answers.dedup_by(|later, first| later.0 == first.0);
    let mut kept_bases = 0;
    let keep = answers
        .iter()
        .take(MAX_PAIRS)
        .take_while(|(_, b)| {
            kept_bases += b.len();
            kept_bases <= MAX_BASES
        })
        .count();
    answers.truncate(keep);
    let rows: Vec<Row> = answers
        .into_iter()
        .map(|((one, other), bases)| Row {
            key_and_payload: [one.as_bytes(), other.as_bytes()].concat(),
            list: bases,
        })
        .collect();
    encode_records(order.layout(), id_len, &rows)
}

/// Write `added` answers to the merge-bases file at `file`, merged with
/// what it holds now or `loaded`, as [`save`] writes commits.
pub(super) fn save_bases(
    file: &Path,
    hash: gix::hash::Kind,
    order: Ordered,
    loaded: Option<&BasesTable>,
    added: Vec<Answer>,
) -> bool {
    write_locked(order.layout(), file, hash, |current| {
        let mut answers = added;
        if let Some(table) = current.map(BasesTable).as_ref().or(loaded) {
            answers.extend(table.each());
        }
        encode_bases(hash.len_in_bytes(), order, answers)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA1: gix::hash::Kind = gix::hash::Kind::Sha1;

    fn id(n: u32) -> gix::ObjectId {
        let mut bytes = [0u8; 20];
        bytes[..4].copy_from_slice(&n.to_be_bytes());
        bytes[19] = 1;
        gix::ObjectId::from_bytes_or_panic(&bytes)
    }

    /// `heads` as a run's record gives them to write (one per id: a
    /// record of 500,003 made with `Read::put` takes minutes in a debug
    /// build, these ids all hashing alike).
    fn added(heads: Vec<(gix::ObjectId, Head)>) -> Added {
        let mut parents = Vec::new();
        let commits = heads
            .into_iter()
            .map(|(id, head)| {
                let first = parents.len() as u32;
                parents.extend_from_slice(&head.parents);
                Kept {
                    id,
                    tree: head.tree,
                    time: head.time,
                    first,
                    count: head.parents.len() as u32,
                }
            })
            .collect();
        Added { commits, parents }
    }

    fn head(time: i64, parents: &[u32]) -> Head {
        Head {
            time,
            tree: id(1_000_000 + time as u32),
            parents: parents.iter().map(|&p| id(p)).collect(),
        }
    }

    #[test]
    fn what_is_saved_loads_whole_and_merges_with_what_the_file_held() {
        let dir = tempfile::tempdir().unwrap();
        let file = file_in(dir.path(), 20).unwrap();
        assert!(load(&file, SHA1).is_none());
        assert!(save(
            &file,
            SHA1,
            None,
            added(vec![
                (id(3), head(30, &[2])),
                (id(1), head(10, &[])),
                (id(2), head(20, &[1]))
            ])
        ));
        let table = load(&file, SHA1).expect("a cache");
        assert_eq!(table.len(), 3);
        assert_eq!(table.get(&id(2)), Some(head(20, &[1])));
        assert_eq!(table.get(&id(1)), Some(head(10, &[])));
        assert_eq!(table.get(&id(9)), None);
        // A second run adds a merge; the first run's commits stay.
        assert!(save(
            &file,
            SHA1,
            Some(&table),
            added(vec![(id(4), head(40, &[3, 2])), (id(2), head(20, &[1]))])
        ));
        let table = load(&file, SHA1).expect("a cache");
        assert_eq!(table.len(), 4);
        assert_eq!(table.get(&id(4)), Some(head(40, &[3, 2])));
        assert_eq!(table.get(&id(3)), Some(head(30, &[2])));
        // A file that no longer reads: what this run loaded is kept.
        let mut spoiled = std::fs::read(&file).unwrap();
        spoiled[COMMITS.header()] ^= 1;
        std::fs::write(&file, &spoiled).unwrap();
        assert!(load(&file, SHA1).is_none());
        assert!(save(
            &file,
            SHA1,
            Some(&table),
            added(vec![(id(5), head(50, &[4]))])
        ));
        let table = load(&file, SHA1).expect("a cache");
        assert_eq!(table.len(), 5);
        assert_eq!(table.get(&id(1)), Some(head(10, &[])));
        // Another object format's ids go to another file (this build reads
        // SHA-1 repositories only).
        assert_ne!(file_in(dir.path(), 32), Some(file.clone()));
        assert_eq!(file_in(dir.path(), 16), None);
        // The lock stays beside the file; nothing else is left.
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["commits-sha1.cache", "commits-sha1.lock"]);
    }

    #[test]
    fn a_runs_record_keeps_each_commit_once_and_writes_what_it_keeps() {
        let mut read = Read::default();
        read.put(id(2), 20, id(102), &[id(1)]);
        read.put(id(1), 10, id(101), &[]);
        read.put(id(3), 30, id(103), &[id(2), id(1), id(9)]);
        // The first reading of a commit stands (commits never change).
        read.put(id(2), 99, id(199), &[]);
        assert_eq!(read.len(), 3);
        assert_eq!(
            read.get(&id(2)),
            Some(Head {
                time: 20,
                tree: id(102),
                parents: [id(1)].into_iter().collect()
            })
        );
        assert_eq!(
            read.get(&id(3)).unwrap().parents.as_slice(),
            &[id(2), id(1), id(9)]
        );
        assert_eq!(read.get(&id(4)), None);
        let table = parse(encode(20, None, read.to_write()), SHA1).expect("a cache");
        assert_eq!(table.len(), 3);
        for n in 1..=3 {
            assert_eq!(table.get(&id(n)), read.get(&id(n)));
        }
        // Merged with a file: one record per id, in id order.
        let mut more = Read::default();
        more.put(id(0), 5, id(100), &[]);
        more.put(id(2), 20, id(102), &[id(1)]);
        more.put(id(7), 70, id(107), &[id(3), id(0)]);
        let merged = parse(encode(20, Some(&table.0), more.to_write()), SHA1).expect("a cache");
        assert_eq!(merged.len(), 5);
        for n in [0, 1, 2, 3, 7] {
            assert_eq!(merged.get(&id(n)), read.get(&id(n)).or(more.get(&id(n))));
        }
    }

    #[test]
    fn a_file_that_is_not_whole_and_checked_is_never_trusted() {
        let bytes = encode(
            20,
            None,
            added(vec![(id(1), head(10, &[])), (id(2), head(20, &[1]))]),
        );
        assert!(parse(bytes.clone(), SHA1).is_some());
        // Any byte changed: the checksum no longer holds.
        for at in [
            0,
            COMMITS.magic.len(),
            COMMITS.header(),
            bytes.len() - 40,
            bytes.len() - 1,
        ] {
            let mut bad = bytes.clone();
            bad[at] ^= 1;
            assert!(parse(bad, SHA1).is_none(), "byte {at} changed");
        }
        // Cut short, or empty.
        assert!(parse(bytes[..bytes.len() - 1].to_vec(), SHA1).is_none());
        assert!(parse(Vec::new(), SHA1).is_none());
        // Sealed, but out of order: refused.
        let mut body = bytes[..bytes.len() - 32].to_vec();
        let (a, b) = (COMMITS.header(), COMMITS.header() + 56);
        let first: Vec<u8> = body[a..a + 56].to_vec();
        let second: Vec<u8> = body[b..b + 56].to_vec();
        body[a..a + 56].copy_from_slice(&second);
        body[b..b + 56].copy_from_slice(&first);
        let sum = Sha256::digest(&body);
        body.extend_from_slice(&sum);
        assert!(parse(body, SHA1).is_none());
        // Sealed, but another version's (1 kept the date before the tree):
        // refused.
        let mut body = bytes[..bytes.len() - 32].to_vec();
        let at = COMMITS.magic.len();
        body[at..at + 4].copy_from_slice(&1u32.to_le_bytes());
        let sum = Sha256::digest(&body);
        body.extend_from_slice(&sum);
        assert!(parse(body, SHA1).is_none());
        // Sealed, but a parent list past the parents: refused.
        let mut body = bytes[..bytes.len() - 32].to_vec();
        let span = COMMITS.header() + 56 + 48;
        body[span..span + 4].copy_from_slice(&7u32.to_le_bytes());
        let sum = Sha256::digest(&body);
        body.extend_from_slice(&sum);
        assert!(parse(body, SHA1).is_none());
    }

    #[test]
    fn past_the_bound_the_newest_commits_are_kept() {
        let many: Vec<(gix::ObjectId, Head)> = (0..MAX_COMMITS as u32 + 3)
            .map(|n| (id(n), head(i64::from(n), &[])))
            .collect();
        let table = parse(encode(20, None, added(many)), SHA1).expect("a cache");
        assert_eq!(table.len(), MAX_COMMITS);
        assert!(table.get(&id(0)).is_none());
        assert!(table.get(&id(2)).is_none());
        assert!(table.get(&id(3)).is_some());
        assert!(table.get(&id(MAX_COMMITS as u32 + 2)).is_some());
    }

    #[test]
    fn merge_bases_are_kept_by_pair_and_a_spoiled_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = bases_file_in(dir.path(), 20, Ordered::Dates).unwrap();
        assert!(load_bases(&file, SHA1, Ordered::Dates).is_none());
        assert!(save_bases(
            &file,
            SHA1,
            Ordered::Dates,
            None,
            vec![
                ((id(5), id(6)), vec![id(2), id(1)]),
                ((id(3), id(4)), vec![])
            ]
        ));
        let table = load_bases(&file, SHA1, Ordered::Dates).expect("a cache");
        assert_eq!(table.get(&id(5), &id(6)), Some(vec![id(2), id(1)]));
        assert_eq!(table.get(&id(3), &id(4)), Some(vec![]));
        // The pair is ordered: the other way round is another question.
        assert_eq!(table.get(&id(6), &id(5)), None);
        assert!(save_bases(
            &file,
            SHA1,
            Ordered::Dates,
            Some(&table),
            vec![((id(7), id(8)), vec![id(1)])]
        ));
        let table = load_bases(&file, SHA1, Ordered::Dates).expect("a cache");
        assert_eq!(table.get(&id(7), &id(8)), Some(vec![id(1)]));
        assert_eq!(table.get(&id(5), &id(6)), Some(vec![id(2), id(1)]));
        let bytes = std::fs::read(&file).unwrap();
        for at in [0, BASES.header(), bytes.len() / 2, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[at] ^= 1;
            assert!(
                parse_bases(bad, SHA1, Ordered::Dates).is_none(),
                "byte {at} changed"
            );
        }
        assert!(parse_bases(bytes[..bytes.len() - 1].to_vec(), SHA1, Ordered::Dates).is_none());
        // A file of one search's answers is never read as the other's.
        assert!(parse_bases(bytes.clone(), SHA1, Ordered::Generations).is_none());
        let graph_file = bases_file_in(dir.path(), 20, Ordered::Generations).unwrap();
        assert_ne!(graph_file, file);
        assert!(load_bases(&graph_file, SHA1, Ordered::Generations).is_none());
        assert!(save_bases(
            &graph_file,
            SHA1,
            Ordered::Generations,
            None,
            vec![((id(5), id(6)), vec![id(3)])]
        ));
        let graded = load_bases(&graph_file, SHA1, Ordered::Generations).expect("a cache");
        assert_eq!(graded.get(&id(5), &id(6)), Some(vec![id(3)]));
        assert!(load_bases(&graph_file, SHA1, Ordered::Dates).is_none());
        let dated = load_bases(&file, SHA1, Ordered::Dates).expect("a cache");
        assert_eq!(dated.get(&id(5), &id(6)), Some(vec![id(2), id(1)]));
    }
}
