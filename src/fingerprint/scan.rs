//! Stat and hash the covered paths, on all cores, through the stat cache.
//!
//! Two passes over the sorted paths, each split into chunks that worker
//! threads take in turn (files differ in size, so a fixed split would leave
//! one core idle). The stat pass `lstat`s every path and takes what it can
//! from the cache; the read pass opens the rest — without following a
//! symlink and without blocking on a FIFO swapped in since the stat — reads
//! each into one buffer per thread, hashes it, and compares its stat before
//! and after (`fstat` once open, `lstat` by the whole path once read).
//!
//! Sorted paths come directory by directory, so each thread keeps a handle
//! on the current directory and stats and opens names relative to it
//! (`statat`, `openat`): one path lookup per file instead of one per
//! component. Nothing in the loops allocates per file.

use std::collections::HashSet;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Instant;

use sha2::{Digest, Sha256};

use super::cache::{self, Cache, Stat};
use super::monitor::{Changed, Since};
use super::{Content, Stats, Unavailable};
use crate::path::RepoPath;
use crate::platform::{self, Dir, FileKind, OsError};

pub(super) enum Outcome {
    /// The digest of the module doc's encoding, and the bytes covered.
    Available {
        digest: String,
        bytes: u64,
    },
    Unavailable(Unavailable, Option<RepoPath>),
}

/// Read buffer per thread.
const BUFFER: usize = 256 * 1024;
/// Paths per chunk handed to a worker.
const STAT_CHUNK: usize = 256;
const READ_CHUNK: usize = 16;
/// Show progress on a terminal when more files than this must be read.
const PROGRESS_OVER: usize = 2_000;

struct Item<'a> {
    path: &'a RepoPath,
    /// The cache entry for this path, if any.
    cached: Option<usize>,
    state: State,
}

#[derive(Clone, Debug)]
enum State {
    Pending,
    Missing,
    /// A regular file whose stat (before reading) is `stat`.
    Hash {
        stat: Stat,
    },
    Known {
        stat: Stat,
        sha256: [u8; 32],
        from: Source,
    },
    /// As cache entry `i` records it, on a monitor's word (decoded only
    /// when needed: on a warm run, that is every path).
    Vouched(usize),
    Problem(Unavailable),
}

/// Where a known hash came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// The file was read in this run.
    Read,
    /// The cache, the file's stat being as recorded.
    Stat,
}

/// The stat cache a scan starts from and writes.
pub(super) enum Record<'p> {
    /// The work tree's shared stat cache, perhaps loaded (and its paths
    /// stat-ed) ahead by a [`Prefetch`].
    Shared(Option<&'p Prefetch>),
    /// One set of sources' own record, kept with a monitor's token: `own`
    /// as loaded (the shared cache serves until there is one), and what
    /// the monitor said since its token (`None`: it could not be asked).
    Monitored {
        file: PathBuf,
        own: Option<Box<Cache>>,
        since: Option<Since>,
    },
}

/// A scan in progress: the work tree opened, the cache loaded, and the
/// paths given so far stat'ed.
pub(super) struct Scan<'a> {
    workdir: &'a Path,
    root_fd: Dir,
    cache_file: PathBuf,
    old: Option<Arc<Cache>>,
    /// The `lstat` of cache entry `i`, when a [`Prefetch`] took it.
    early: Arc<Vec<Option<Result<Stat, OsError>>>>,
    /// Sorted by path.
    items: Vec<Item<'a>>,
    /// `None` for the shared stat cache; with a monitor, its record's state.
    monitor: Option<Monitored>,
    /// What changed since `old` was written, when a monitor vouches for
    /// the rest (only when `old` is the monitored record itself).
    changed: Option<Changed>,
}

/// A scan writing a monitored record.
struct Monitored {
    /// The token to write the record with; `None` when the monitor could
    /// not be asked (the record then keeps none).
    token: Option<Vec<u8>>,
    /// Whether `old` is that record (the shared stat cache serves until
    /// there is one).
    own: bool,
}

impl<'a> Scan<'a> {
    /// Open the work tree, load the stat cache `record` names (or take
    /// it, and the stats of its paths, from a prefetch), and stat `paths`
    /// (sorted).
    pub(super) fn start(
        workdir: &'a Path,
        cache_dir: &Path,
        paths: &'a [RepoPath],
        record: Record,
    ) -> Result<Scan<'a>, Unavailable> {
        let root_fd = Dir::open_to_look(workdir).map_err(unreadable)?;
        let shared_file = cache::file_for(cache_dir, workdir);
        let load_shared = || cache::load(&shared_file, platform::path_bytes(workdir)).map(Arc::new);
        let (cache_file, old, early, monitor, changed) = match record {
            Record::Shared(prefetch) => {
                let (old, early) = match prefetch.and_then(|p| p.finish(&shared_file, workdir)) {
                    Some(done) => (Some(done.cache.clone()), done.stats.clone()),
                    None => (load_shared(), Arc::default()),
                };
                (shared_file.clone(), old, early, None, None)
            }
            Record::Monitored { file, own, since } => {
                let (token, changed) = match since {
                    Some(since) => (Some(since.token), since.changed),
                    None => (None, None),
                };
                let monitor = Monitored {
                    token,
                    own: own.is_some(),
                };
                // The monitor can vouch only for its own record.
                let (old, changed) = match own {
                    Some(own) => (Some(Arc::from(own)), changed),
                    None => (load_shared(), None),
                };
                (file, old, Arc::default(), Some(monitor), changed)
            }
        };
        let mut scan = Scan {
            workdir,
            root_fd,
            cache_file,
            old,
            early,
            items: Vec::new(),
            monitor,
            changed,
        };
        scan.items = scan.stat(paths);
        Ok(scan)
    }

    /// Stat `more` (sorted, none of them given before) and merge them in.
    pub(super) fn add(&mut self, more: &'a [RepoPath]) {
        if more.is_empty() {
            return;
        }
        let added = self.stat(more);
        let old = std::mem::take(&mut self.items);
        let mut merged = Vec::with_capacity(old.len() + added.len());
        let (mut a, mut b) = (old.into_iter().peekable(), added.into_iter().peekable());
        loop {
            let take_a = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) => x.path <= y.path,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            merged.extend(if take_a { a.next() } else { b.next() });
        }
        self.items = merged;
    }

    fn stat(&self, paths: &'a [RepoPath]) -> Vec<Item<'a>> {
        let old = self.old.as_deref();
        let mut items = with_cache_entries(paths, old);
        let early = &self.early;
        let changed = self.changed.as_ref();
        parallel(
            &mut items,
            STAT_CHUNK,
            || Scratch::new(&self.root_fd, 0),
            |scratch, item| {
                if let (Some(changed), Some(i), Some(old)) = (changed, item.cached, old)
                    && changed.vouches(item.path.as_bytes())
                    && old.vouchable(i)
                {
                    item.state = State::Vouched(i);
                    return;
                }
                let taken = item.cached.and_then(|i| early.get(i).copied().flatten());
                item.state = stat_path(scratch, item, old, taken);
                // A file to read is compared with its stat when opened and
                // after: that stat must be taken now, not ahead.
                if taken.is_some() && matches!(item.state, State::Hash { .. }) {
                    item.state = stat_path(scratch, item, old, None);
                }
            },
            &Progress::off(),
        );
        items
    }

    /// Read what the cache could not vouch for, update the cache, and give
    /// the result: problems found by stat first, then the byte limit, then
    /// problems found while reading. With a monitor, `listed` is what the
    /// listing depended on, kept with the answer in the record.
    pub(super) fn finish(
        mut self,
        max_bytes: u64,
        cache_dir: &Path,
        stats: &mut Stats,
        listed: Option<cache::Listed>,
        index: &crate::git::IndexSnapshot,
        progress: crate::progress::Sink,
    ) -> Outcome {
        self.stat_new_links();
        if let Some(problem) = first_problem(&self.items) {
            return problem;
        }
        if let Some(answer) = self.recorded() {
            if answer.bytes > max_bytes {
                return too_many_bytes(max_bytes);
            }
            stats.from_cache = self.items.len() as u64;
            stats.from_monitor = stats.from_cache;
            let answer = cache::Answer {
                listed: listed.unwrap_or(answer.listed),
                ..answer
            };
            self.save_if_needed(None, Some(answer), cache_dir, stats);
            return Outcome::Available {
                digest: crate::digest::hex(&answer.digest),
                bytes: answer.bytes,
            };
        }
        let bytes: u64 = self
            .items
            .iter()
            .map(|item| match &item.state {
                State::Hash { stat } => stat.size,
                _ => self.known(item).map_or(0, |(stat, _)| stat.size),
            })
            .sum();
        if bytes > max_bytes {
            return too_many_bytes(max_bytes);
        }

        let mut todo: Vec<&mut Item> = self
            .items
            .iter_mut()
            .filter(|item| matches!(item.state, State::Hash { .. }))
            .collect();
        let mut stamp = None;
        if !todo.is_empty() {
            // Taken before the first read: see the cache's trust rule.
            stamp = Some(cache::stamp(cache_dir));
            let progress = Progress::new(todo.len(), progress);
            let root_fd = &self.root_fd;
            parallel(
                &mut todo,
                READ_CHUNK,
                || Scratch::new(root_fd, BUFFER),
                |scratch, item| {
                    if let State::Hash { stat } = item.state {
                        item.state = match read(scratch, item.path, &stat) {
                            Ok(sha256) => State::Known {
                                stat,
                                sha256,
                                from: Source::Read,
                            },
                            Err(reason) => State::Problem(reason),
                        };
                    }
                },
                &progress,
            );
            progress.finish();
        }
        for item in &self.items {
            match item.state {
                State::Known {
                    from: Source::Read, ..
                } => stats.hashed += 1,
                State::Known { .. } => stats.from_cache += 1,
                State::Vouched(_) => {
                    stats.from_cache += 1;
                    stats.from_monitor += 1;
                }
                _ => {}
            }
        }
        let outcome = match first_problem(&self.items) {
            Some(problem) => problem,
            None => {
                let files = self.items.iter().map(|item| match self.known(item) {
                    Some((stat, sha256)) => (
                        item.path.as_bytes(),
                        Content::File {
                            // Where files carry no executable bit, the
                            // index's (as git with `core.fileMode false`).
                            executable: match platform::EXEC_BITS {
                                true => stat.mode & 0o100 != 0,
                                false => index.executable(item.path.as_bytes()),
                            },
                            sha256,
                        },
                    ),
                    None => (item.path.as_bytes(), Content::Missing),
                });
                let digest = super::digest_raw(files);
                stats.identity = Some(self.identity());
                let answer = listed.map(|listed| cache::Answer {
                    listed,
                    digest,
                    entries: self.items.len() as u64,
                    bytes,
                });
                self.save_if_needed(stamp, answer, cache_dir, stats);
                return Outcome::Available {
                    digest: crate::digest::hex(&digest),
                    bytes,
                };
            }
        };
        // Unavailable: what was read is still worth keeping.
        self.save_if_needed(stamp, None, cache_dir, stats);
        outcome
    }

    /// Write the cache when this run read files (`read_stamp`, the stamp
    /// taken before the first read; `Some(None)` when none could be taken)
    /// or when a monitored record would not say what this run found:
    /// another answer, or another token that matters (a clock after which
    /// something was named, none at all, or one where there was none).
    fn save_if_needed(
        &self,
        read_stamp: Option<Option<cache::Time>>,
        answer: Option<cache::Answer>,
        cache_dir: &Path,
        stats: &mut Stats,
    ) {
        // Only a record with a token keeps an answer (`cache::save`).
        let answer = answer.filter(|_| self.monitor.as_ref().is_some_and(|m| m.token.is_some()));
        let stamp = match read_stamp {
            Some(stamp) => stamp,
            None => {
                let Some(monitor) = &self.monitor else {
                    return;
                };
                let own = self.old.as_deref().filter(|_| monitor.own);
                let as_recorded = own.is_some_and(|own| {
                    own.answer() == answer.as_ref()
                        && (self.changed.as_ref().is_some_and(Changed::is_empty)
                            || own.token() == monitor.token.as_deref())
                });
                if as_recorded {
                    return;
                }
                // Nothing was read since the stats: a stamp taken now is
                // as good as one taken before.
                cache::stamp(cache_dir)
            }
        };
        if let Some(stamp) = stamp {
            stats.cache_written = self.save(stamp, answer.as_ref());
        }
    }

    /// Stat the vouched items that a file stat-ed in this run shares its
    /// inode with (a hard link made since the record: watchman named the
    /// new name only, and the old one's record says one link).
    fn stat_new_links(&mut self) {
        let linked: HashSet<(u64, u64)> = self
            .items
            .iter()
            .filter_map(|item| match &item.state {
                State::Hash { stat } | State::Known { stat, .. } if stat.nlink > 1 => {
                    Some((stat.dev, stat.ino))
                }
                _ => None,
            })
            .collect();
        if linked.is_empty() {
            return;
        }
        let old = self.old.as_deref();
        let mut scratch = Scratch::new(&self.root_fd, 0);
        for item in &mut self.items {
            if let State::Vouched(i) = item.state
                && let Some(entry) = old.and_then(|old| old.entry(i))
                && linked.contains(&(entry.stat.dev, entry.stat.ino))
            {
                item.state = stat_path(&mut scratch, item, old, None);
            }
        }
    }

    /// What is known of `item`: its stat and its hash.
    fn known(&self, item: &Item) -> Option<(Stat, [u8; 32])> {
        match item.state {
            State::Known { stat, sha256, .. } => Some((stat, sha256)),
            State::Vouched(i) => {
                // `Vouched` is given only with `old`, whose layout `parse` checked.
                let old = self.old.as_deref().expect("a vouched item has a record");
                let entry = old.entry(i).expect("a checked record decodes");
                Some((entry.stat, entry.sha256))
            }
            _ => None,
        }
    }

    /// The digest of every item's stat identity ([`Stats::identity`]):
    /// for a file, its device, inode, size, mtime and ctime; for a missing
    /// path, a mark.
    fn identity(&self) -> [u8; 32] {
        use sha2::Digest;
        let mut hasher = sha2::Sha256::new();
        hasher.update(b"gate-stat-identity-v1\0");
        for item in &self.items {
            let path = item.path.as_bytes();
            hasher.update((path.len() as u64).to_be_bytes());
            hasher.update(path);
            match self.known(item) {
                Some((stat, _)) => {
                    hasher.update(b"f");
                    for n in [stat.dev, stat.ino, stat.size] {
                        hasher.update(n.to_be_bytes());
                    }
                    for t in [stat.mtime, stat.ctime] {
                        hasher.update(t.sec.to_be_bytes());
                        hasher.update(t.nsec.to_be_bytes());
                    }
                }
                None => hasher.update(b"m"),
            }
        }
        hasher.finalize().into()
    }

    /// The monitored record's answer when it is this run's: every item is
    /// one of its entries (so, being as many, all of them), the monitor
    /// vouched for each, and the answer covered no more paths than that.
    fn recorded(&self) -> Option<cache::Answer> {
        let old = self.old.as_deref().filter(|_| self.changed.is_some())?;
        let answer = *old.answer()?;
        let all_vouched = self.items.len() == old.len()
            && answer.entries == self.items.len() as u64
            && self
                .items
                .iter()
                .all(|item| matches!(item.state, State::Vouched(_)));
        all_vouched.then_some(answer)
    }

    /// Write every file known now (read or from the cache): to the shared
    /// stat cache with the entries of other paths it holds, or as the
    /// monitored record, whole.
    fn save(&self, stamp: cache::Time, answer: Option<&cache::Answer>) -> bool {
        let entries: Vec<cache::Entry> = self
            .items
            .iter()
            .filter_map(|item| {
                self.known(item).map(|(stat, sha256)| cache::Entry {
                    path: item.path.as_bytes(),
                    stat,
                    sha256,
                })
            })
            .collect();
        let root = platform::path_bytes(self.workdir);
        if let Some(monitor) = &self.monitor {
            // A monitored record holds this run's entries only, each as the
            // file was when the token's clock was taken or later (read or
            // stat-ed since, or unchanged since an earlier clock on the
            // monitor's word): what lets the next run take the ones the
            // monitor does not name unseen.
            let token = monitor.token.as_deref().unwrap_or_default();
            return cache::save(&self.cache_file, root, stamp, &entries, None, token, answer);
        }
        // Carried over: what the file holds now, not what this scan
        // started from. Another check of the same run (whose cache came
        // from one prefetch) or a concurrent run may have saved since.
        let current = cache::load(&self.cache_file, root);
        let carried = current.as_ref().or(self.old.as_deref());
        cache::save(&self.cache_file, root, stamp, &entries, carried, b"", None)
    }
}

/// The items for `paths`, each with its cache entry (both lists are sorted:
/// one merge, no lookups).
fn with_cache_entries<'a>(paths: &'a [RepoPath], cache: Option<&Cache>) -> Vec<Item<'a>> {
    let mut j = 0;
    let len = cache.map_or(0, Cache::len);
    paths
        .iter()
        .map(|path| {
            let mut cached = None;
            if let Some(cache) = cache {
                while j < len && cache.path(j) < path.as_bytes() {
                    j += 1;
                }
                if j < len && cache.path(j) == path.as_bytes() {
                    cached = Some(j);
                }
            }
            Item {
                path,
                cached,
                state: State::Pending,
            }
        })
        .collect()
}

fn too_many_bytes(limit: u64) -> Outcome {
    Outcome::Unavailable(Unavailable::TooManyBytes { limit }, None)
}

/// The first problem by path (items are sorted by path).
fn first_problem(items: &[Item<'_>]) -> Option<Outcome> {
    items.iter().find_map(|item| match &item.state {
        State::Problem(reason) => Some(Outcome::Unavailable(
            reason.clone(),
            Some(item.path.clone()),
        )),
        _ => None,
    })
}

/// The stat cache loaded, and its paths `lstat`-ed, ahead of the listing:
/// started before the index is read, on the core the single-threaded
/// listing leaves idle; whoever needs the result first helps finish it.
///
/// On a warm run nearly every covered path is in the cache, so by the time
/// the listing is ready most stats are taken. A stat taken a few
/// milliseconds early is as good an observation as one taken now when the
/// cache vouches for it; a file that must be read is stat-ed again first
/// (the read compares that stat with the file it opens). Only for one evaluation
/// of the tree (`gate status`, `gate check`), never across a command that
/// changes files (`gate verify` fingerprints before and after without it).
pub(crate) struct Prefetch {
    shared: Arc<Shared>,
    worker: Mutex<Option<std::thread::JoinHandle<()>>>,
    done: OnceLock<Option<Prefetched>>,
}

/// The prefetch's result.
#[derive(Clone)]
struct Prefetched {
    cache: Arc<Cache>,
    /// The `lstat` of cache entry `i`.
    stats: Arc<Vec<Option<Result<Stat, OsError>>>>,
}

struct Shared {
    workdir: PathBuf,
    cache_file: PathBuf,
    loaded: OnceLock<Option<Loaded>>,
    next: AtomicUsize,
    stop: AtomicBool,
}

struct Loaded {
    cache: Arc<Cache>,
    root_fd: Dir,
    stats: Mutex<Vec<Option<Result<Stat, OsError>>>>,
}

impl Prefetch {
    /// Start loading `cache_dir`'s stat cache for `workdir` and stat-ing
    /// its paths on another thread.
    pub(crate) fn start(workdir: &Path, cache_dir: &Path) -> Prefetch {
        let shared = Arc::new(Shared {
            workdir: workdir.to_path_buf(),
            cache_file: cache::file_for(cache_dir, workdir),
            loaded: OnceLock::new(),
            next: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
        });
        let worker = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .spawn(move || shared.drain())
                .ok()
        };
        Prefetch {
            shared,
            worker: Mutex::new(worker),
            done: OnceLock::new(),
        }
    }

    /// Help finish, then the result; `None` when there is no cache, or it
    /// is not for `cache_file` and `workdir`.
    fn finish(&self, cache_file: &Path, workdir: &Path) -> Option<Prefetched> {
        if cache_file != self.shared.cache_file || workdir != self.shared.workdir {
            return None;
        }
        self.done
            .get_or_init(|| {
                self.shared.drain();
                let worker = self
                    .worker
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take();
                if let Some(worker) = worker {
                    let _ = worker.join();
                }
                let loaded = self.shared.loaded.get()?.as_ref()?;
                let stats = std::mem::take(
                    &mut *loaded.stats.lock().unwrap_or_else(PoisonError::into_inner),
                );
                Some(Prefetched {
                    cache: Arc::clone(&loaded.cache),
                    stats: Arc::new(stats),
                })
            })
            .clone()
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        // Unused: stop early rather than stat for nobody.
        self.shared.stop.store(true, Ordering::Relaxed);
        let worker = self
            .worker
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(worker) = worker {
            let _ = worker.join();
        }
    }
}

impl Shared {
    /// Load the cache (once, whoever comes first), then stat its paths a
    /// chunk at a time until none are left.
    fn drain(&self) {
        let loaded = self.loaded.get_or_init(|| {
            let cache = cache::load(&self.cache_file, platform::path_bytes(&self.workdir))?;
            let root_fd = Dir::open_to_look(&self.workdir).ok()?;
            let stats = Mutex::new(vec![None; cache.len()]);
            Some(Loaded {
                cache: Arc::new(cache),
                root_fd,
                stats,
            })
        });
        let Some(loaded) = loaded else { return };
        let len = loaded.cache.len();
        let mut scratch = Scratch::new(&loaded.root_fd, 0);
        let mut chunk = Vec::with_capacity(STAT_CHUNK);
        while !self.stop.load(Ordering::Relaxed) {
            let start = self.next.fetch_add(STAT_CHUNK, Ordering::Relaxed);
            if start >= len {
                break;
            }
            let end = (start + STAT_CHUNK).min(len);
            chunk.clear();
            for i in start..end {
                let (dir, name) = scratch.dir_of(loaded.cache.path(i));
                chunk.push(dir.and_then(|dir| lstat_at(dir, name)));
            }
            let mut stats = loaded.stats.lock().unwrap_or_else(PoisonError::into_inner);
            for (slot, stat) in stats[start..end].iter_mut().zip(chunk.drain(..)) {
                *slot = Some(stat);
            }
        }
    }
}

/// Per-thread state: an open handle on the directory of the last path seen
/// (sorted paths come directory by directory), and the read buffer.
struct Scratch<'r> {
    root: &'r Dir,
    /// Repository-relative directory `dir_fd` is open on.
    dir: Vec<u8>,
    dir_fd: Option<Result<Dir, OsError>>,
    buf: Vec<u8>,
}

impl<'r> Scratch<'r> {
    fn new(root: &'r Dir, buffer: usize) -> Scratch<'r> {
        Scratch {
            root,
            dir: Vec::with_capacity(256),
            dir_fd: None,
            buf: vec![0; buffer],
        }
    }

    /// A handle on the directory holding `path`, and the file's name in it.
    fn dir_of<'p>(&mut self, bytes: &'p [u8]) -> (Result<&Dir, OsError>, &'p [u8]) {
        let (dir, name) = match bytes.iter().rposition(|b| *b == b'/') {
            Some(i) => (&bytes[..i], &bytes[i + 1..]),
            None => (&[][..], bytes),
        };
        if dir.is_empty() {
            return (Ok(self.root), name);
        }
        if self.dir_fd.is_none() || self.dir != dir {
            self.dir.clear();
            self.dir.extend_from_slice(dir);
            // The last component must be a directory, not a symlink to one
            // (the listing checked; this holds it to that).
            self.dir_fd = Some(self.root.sub_to_look(dir));
        }
        match &self.dir_fd {
            Some(Ok(dir)) => (Ok(dir), name),
            Some(Err(e)) => (Err(*e), name),
            None => unreachable!("a handle was just opened"),
        }
    }
}

/// `lstat` of `name` in `dir`.
fn lstat_at(dir: &Dir, name: &[u8]) -> Result<Stat, OsError> {
    dir.stat(name)
}

/// What is at `item`'s path: its `lstat` taken `early` (by a [`Prefetch`])
/// or now.
fn stat_path(
    scratch: &mut Scratch,
    item: &Item,
    cache: Option<&Cache>,
    early: Option<Result<Stat, OsError>>,
) -> State {
    let (dir, name) = scratch.dir_of(item.path.as_bytes());
    let stat = match early.unwrap_or_else(|| dir.and_then(|dir| lstat_at(dir, name))) {
        Ok(stat) => stat,
        Err(e) if e.is_not_found() => return State::Missing,
        // A file where a directory was expected, or the directory became a
        // symlink since the listing looked: nothing is at this path.
        Err(e) if e.is_not_dir() => return State::Missing,
        Err(e) => return State::Problem(unreadable(e)),
    };
    match stat.kind() {
        FileKind::Regular => match item
            .cached
            .and_then(|i| cache.and_then(|c| c.trusted(i, &stat)))
        {
            Some(sha256) => State::Known {
                stat,
                sha256,
                from: Source::Stat,
            },
            None => State::Hash { stat },
        },
        FileKind::Symlink => State::Problem(Unavailable::Symlink),
        FileKind::Directory => {
            // No file here. A directory holding `.git` is a repository.
            let (dir, _) = scratch.dir_of(item.path.as_bytes());
            let mut git = name.to_vec();
            git.extend_from_slice(b"/.git");
            if dir.and_then(|dir| dir.stat(git.as_slice())).is_ok() {
                State::Problem(Unavailable::NestedRepository)
            } else {
                State::Missing
            }
        }
        // A FIFO, socket or device: never opened.
        _ => State::Problem(Unavailable::SpecialFile),
    }
}

fn unreadable(e: OsError) -> Unavailable {
    Unavailable::Unreadable(io::Error::from(e).to_string())
}

/// SHA-256 of the file at `path`, which the stat pass saw as `before`.
fn read(scratch: &mut Scratch, path: &RepoPath, before: &Stat) -> Result<[u8; 32], Unavailable> {
    let changed = Err(Unavailable::ChangedWhileRead);
    let root = scratch.root;
    let (dir, name) = scratch.dir_of(path.as_bytes());
    // A symlink or FIFO swapped in since the stat: fail, never follow or wait.
    let mut file = match dir.and_then(|dir| dir.open_file(platform::path_from_bytes(name))) {
        Ok(file) => file,
        Err(e) if e.is_not_found() || e.is_not_dir() || e.is_link() => return changed,
        Err(e) => return Err(unreadable(e)),
    };
    match platform::file_stat(&file) {
        Ok(stat) if stat == *before => {}
        Ok(_) => return changed,
        Err(e) => return Err(unreadable(e)),
    }
    let mut hasher = Sha256::new();
    let mut total: u64 = 0;
    // Read exactly the size seen: growth shows in the stat after.
    while total < before.size {
        match file.read(&mut scratch.buf) {
            Ok(0) => return changed,
            Ok(n) => {
                hasher.update(&scratch.buf[..n]);
                total += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Unavailable::Unreadable(e.to_string())),
        }
    }
    drop(file);
    // By the whole path from the root: a directory swapped since the stat
    // shows here too.
    match root.stat(path.as_bytes()) {
        Ok(stat) if stat == *before => Ok(hasher.finalize().into()),
        _ => changed,
    }
}

/// Run `work` on every item, on up to as many threads as there are cores,
/// handing out `chunk` items at a time.
fn parallel<T: Send, S>(
    items: &mut [T],
    chunk: usize,
    scratch: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, &mut T) + Sync,
    progress: &Progress,
) {
    // Asked once per process: the answer reads cgroup files each time.
    static CORES: OnceLock<usize> = OnceLock::new();
    let cores =
        *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(8)));
    let threads = cores.min(items.len().div_ceil(chunk));
    let queue = Mutex::new(items.chunks_mut(chunk));
    let drain = || {
        let mut s = scratch();
        loop {
            let next = queue.lock().unwrap_or_else(PoisonError::into_inner).next();
            let Some(chunk) = next else { break };
            for item in chunk.iter_mut() {
                work(&mut s, item);
            }
            progress.add(chunk.len());
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..threads {
            // Should a thread not start, the others (and this one) do its share.
            let _ = std::thread::Builder::new().spawn_scoped(scope, drain);
        }
        drain();
    });
}

/// A `\r` counter while files are read, through the run's progress sink.
struct Progress {
    sink: crate::progress::Sink,
    total: usize,
    done: AtomicU64,
    /// Milliseconds since `start` of the last print.
    last: AtomicU64,
    start: Instant,
}

impl Progress {
    fn off() -> Progress {
        Progress {
            sink: crate::progress::Sink::off(),
            total: 0,
            done: AtomicU64::new(0),
            last: AtomicU64::new(0),
            start: Instant::now(),
        }
    }

    fn new(total: usize, sink: crate::progress::Sink) -> Progress {
        Progress {
            sink: if total > PROGRESS_OVER {
                sink
            } else {
                crate::progress::Sink::off()
            },
            total,
            ..Progress::off()
        }
    }

    fn add(&self, n: usize) {
        if !self.sink.is_on() {
            return;
        }
        let done = self.done.fetch_add(n as u64, Ordering::Relaxed) + n as u64;
        let now = self.start.elapsed().as_millis() as u64;
        let last = self.last.load(Ordering::Relaxed);
        if now >= last + 100
            && self
                .last
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            self.sink.write(format_args!(
                "\rfingerprint: {done}/{} files read",
                self.total
            ));
        }
    }

    /// Clear the counter line, if one was printed.
    fn finish(&self) {
        if self.last.load(Ordering::Relaxed) > 0 {
            self.sink.write(format_args!("\r\x1b[K"));
        }
    }
}
