//! Objects read from the repository's packs through a delta-base cache
//! that keeps every link of a chain, as git's does (decision 0015).
//!
//! gix-pack's decoder (`data::File::decode_entry`) looks a delta chain up in
//! the delta-base cache link by link, but puts only the object it was asked
//! for: the next object of the same chain — the same directory one commit
//! older, exactly what a history walk asks for next — is inflated again from
//! the chain's base. git's cache (`unpack_entry` in `packfile.c`) keeps every
//! base it resolves. gate reads the packs itself with gix-pack's public
//! parts and decodes a chain from its base (or its nearest cached link) one
//! link at a time, so that each link is put in the cache on the way: every
//! delta of a chain is applied once, whichever of its objects is read first.
//! Until the 2026-12 release this was a patch of gix-pack carried in
//! `vendor/`, which no published crate may depend on.
//!
//! What gate does not read here — loose objects, alternates, a pack written
//! after the handle opened its packs — is read by gix, so nothing is missed.

use std::hash::{BuildHasherDefault, Hasher};
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use gix::odb::pack::{self, cache::DecodeEntry, data};

/// The delta-base cache: least recently used first out, weighed by the
/// memory each entry holds.
///
/// Keys (a pack's id and an entry's data offset) are hashed with one
/// multiply-rotate per word (rustc's `FxHasher`) instead of SipHash, which
/// cost more than the rest of a hit; the keys are few (the cache's entries)
/// and placed by the pack's layout, not chosen to collide. It evicts before
/// it inserts and keeps the evicted entries' buffers (up to
/// [`FREE_LIST_MAX`]) for the next objects put, where every put would
/// allocate and every eviction free; a buffer is taken for an object only
/// when it is at most twice the object's size, and an entry weighs its
/// buffer's capacity, not the object's size (weighed by size, recycled
/// buffers held the cap several times over).
///
/// An entry is shared ([`Shared`]), not copied: a result put is the
/// buffer the delta was applied into, and a hit hands out the entry
/// itself. Copying each link in and each hit out was a fifth of a range's
/// instructions on git/git (callgrind: 1.9 G of 9.8 G over 12,314
/// commits), where git moves its buffers in and out of its cache.
pub(super) struct DeltaBaseCache {
    inner: clru::CLruCache<Key, Entry, BuildHasherDefault<OffsetHasher>, Capacity>,
    /// The buffers its evictions gave back, where it is not shared: a
    /// cache the diff threads share gives them to the thread that put (the
    /// spare buffers of its [`Packs`]), which takes them without the lock.
    spare: Spare,
}

/// Buffers of evicted entries, kept for the next objects put.
#[derive(Default)]
pub(super) struct Spare {
    list: Vec<Vec<u8>>,
    /// What an eviction let go that is not kept, to be freed once the
    /// cache is unlocked ([`Spare::let_go`]).
    leaving: Vec<Shared>,
}

type Key = (u32, u64);

struct Entry {
    data: Shared,
    kind: gix::objs::Kind,
    /// The bytes the entry took in the pack (gix's decoder reports them).
    compressed_size: usize,
}

/// An object's bytes as the cache holds them and hands them out: read in
/// place by every holder, never copied.
pub(super) type Shared = Arc<Vec<u8>>;

/// An entry weighs the memory its buffer holds.
struct Capacity;

impl clru::WeightScale<Key, Entry> for Capacity {
    fn weight(&self, _key: &Key, value: &Entry) -> usize {
        value.data.capacity()
    }
}

#[derive(Default, Clone, Copy)]
struct OffsetHasher(u64);

impl OffsetHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for OffsetHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.add(u64::from(byte));
        }
    }
    fn write_u32(&mut self, word: u32) {
        self.add(u64::from(word));
    }
    fn write_u64(&mut self, word: u64) {
        self.add(word);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The most buffers of evicted entries kept for the next entries put.
const FREE_LIST_MAX: usize = 16;

impl DeltaBaseCache {
    /// A cache holding at most `bytes` of object data (at least one byte).
    pub(super) fn new(bytes: usize) -> DeltaBaseCache {
        let cap = NonZeroUsize::new(bytes).unwrap_or(NonZeroUsize::MIN);
        DeltaBaseCache {
            inner: clru::CLruCache::with_config(
                clru::CLruCacheConfig::new(cap)
                    .with_hasher(BuildHasherDefault::default())
                    .with_scale(Capacity),
            ),
            spare: Spare::default(),
        }
    }

    /// The object held for the entry at `offset` of pack `pack_id`, which
    /// becomes the most recently used: its kind, the bytes it took in the
    /// pack, and its bytes.
    fn get(&mut self, pack_id: u32, offset: u64) -> Option<(gix::objs::Kind, usize, Shared)> {
        self.inner.get(&(pack_id, offset)).map(|entry| {
            (
                entry.kind,
                entry.compressed_size,
                Shared::clone(&entry.data),
            )
        })
    }

    /// Whether the entry at `offset` of pack `pack_id` is held (without
    /// making it the most recently used).
    fn contains(&self, pack_id: u32, offset: u64) -> bool {
        self.inner.peek(&(pack_id, offset)).is_some()
    }

    /// Hold `data`, the object at `offset` of pack `pack_id`, of `kind`
    /// (`compressed_size` bytes in the pack), evicting the least recently
    /// used first; an object larger than the whole cache is not held. The
    /// buffers of what goes are kept in its own spare buffers.
    fn put(
        &mut self,
        pack_id: u32,
        offset: u64,
        data: Shared,
        kind: gix::objs::Kind,
        compressed_size: usize,
    ) {
        let entry = Entry {
            data,
            kind,
            compressed_size,
        };
        let mut spare = std::mem::take(&mut self.spare);
        self.put_sparing((pack_id, offset), entry, &mut spare);
        spare.let_go();
        self.spare = spare;
    }

    /// [`put`](Self::put) `entry` under `key`, the buffers of what goes
    /// kept in `spare`.
    fn put_sparing(&mut self, key: Key, entry: Entry, spare: &mut Spare) {
        let weight = entry.data.capacity();
        // Evict as `put_with_weight` would, keeping the evicted buffers.
        while self.inner.len() + self.inner.weight() + weight >= self.inner.capacity()
            && weight < self.inner.capacity()
        {
            let Some((_key, evicted)) = self.inner.pop_back() else {
                break;
            };
            spare.keep(evicted.data);
        }
        match self.inner.put_with_weight(key, entry) {
            Ok(Some(previous)) => spare.keep(previous.data),
            Err((_key, refused)) => spare.keep(refused.data),
            Ok(None) => {}
        }
    }
}

/// A delta-base cache, locked for a chain's way down or for putting what
/// it made ([`resolve`]): never held while an object is inflated, so that
/// the threads sharing it inflate at once. A thread that panicked holding
/// it left it whole (no operation on it panics half-way), so its lock is
/// taken anyway.
fn lock(cache: &Mutex<DeltaBaseCache>) -> MutexGuard<'_, DeltaBaseCache> {
    cache
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Spare {
    /// An empty buffer with room for an object of `len` bytes: one an
    /// evicted entry gave back when it holds `len` to twice that (a buffer
    /// much larger than the object would hold memory its weight does not
    /// count for long; a smaller one would be grown, and growing copies
    /// all it held), else a new one; `None` when the memory cannot be had.
    /// When none fits, the oldest kept goes, so that the list follows the
    /// sizes being read.
    fn take(&mut self, len: usize) -> Option<Vec<u8>> {
        let fits = |b: &Vec<u8>| b.capacity() >= len && b.capacity() <= 2 * len.max(64);
        if let Some(at) = self.list.iter().rposition(fits) {
            let mut buffer = self.list.swap_remove(at);
            buffer.clear();
            return Some(buffer);
        }
        if self.list.len() == FREE_LIST_MAX {
            self.list.remove(0);
        }
        let mut buffer = Vec::new();
        buffer.try_reserve_exact(len).ok()?;
        Some(buffer)
    }

    /// Keep a buffer no one else holds for [`take`](Self::take); one
    /// that is not kept waits in `leaving`.
    fn keep(&mut self, data: Shared) {
        if self.list.len() >= FREE_LIST_MAX {
            self.leaving.push(data);
            return;
        }
        match Shared::try_unwrap(data) {
            Ok(buffer) => self.list.push(buffer),
            Err(held) => self.leaving.push(held),
        }
    }

    /// Free what [`keep`](Self::keep) did not keep. Called with the cache
    /// unlocked: freeing a buffer another diff thread allocated takes its
    /// allocator arena's lock, and under the cache's lock that made both
    /// threads wait (moby's 10k range with a commit-graph: some 850
    /// wake-ups of a waiter on the cache's lock as it was unlocked).
    fn let_go(&mut self) {
        self.leaving.clear();
    }
}

/// `source` copied into `vec`, or `None` when the memory cannot be had.
fn copy_into(vec: &mut Vec<u8>, source: &[u8]) -> Option<()> {
    vec.clear();
    vec.try_reserve(source.len()).ok()?;
    vec.extend_from_slice(source);
    Some(())
}

/// gix's own decoder (a chain through a delta that names its base by id,
/// an object gate leaves to gix) reads through this cache too, copying in
/// and out as its interface asks.
impl DecodeEntry for DeltaBaseCache {
    fn put(
        &mut self,
        pack_id: u32,
        offset: u64,
        data: &[u8],
        kind: gix::objs::Kind,
        compressed_size: usize,
    ) {
        if let Some(mut buffer) = self.spare.take(data.len())
            && copy_into(&mut buffer, data).is_some()
        {
            let data = Shared::new(buffer);
            DeltaBaseCache::put(self, pack_id, offset, data, kind, compressed_size);
        }
    }

    fn get(
        &mut self,
        pack_id: u32,
        offset: u64,
        out: &mut Vec<u8>,
    ) -> Option<(gix::objs::Kind, usize)> {
        let (kind, packed, data) = DeltaBaseCache::get(self, pack_id, offset)?;
        copy_into(out, &data)?;
        Some((kind, packed))
    }
}

/// The longest chain gate resolves itself; a longer one (git's default
/// `pack.depth` is 50, `--aggressive` 50 too) is left to gix's decoder.
const MAX_CHAIN: usize = 10_000;

/// The repository's packs as one handle reads them: opened on the first
/// read, each with its index.
pub(super) struct Packs {
    /// `objects/pack` of the repository.
    dir: PathBuf,
    hash: gix::hash::Kind,
    /// Opened on the first read, and shared by every handle made from this
    /// one ([`Packs::sibling`]): one mapping of each pack for the process,
    /// as gix's store keeps (a mapping a thread would count its pages again
    /// in the resident memory, and fault them again).
    bundles: Arc<OnceLock<Opened>>,
    /// The packs' pages kept resident at most ([`Opened::touch`]).
    kept: usize,
    /// The order this handle asks the packs in: the last that answered
    /// first (a history's objects are mostly in one pack).
    order: Vec<usize>,
    /// The handle's delta-base cache, or one it shares with its siblings
    /// ([`Packs::siblings_sharing_cache`]).
    cache: Arc<Mutex<DeltaBaseCache>>,
    work: Resolving,
    /// The objects this handle located last ([`Located`]).
    located: Located,
}

impl Packs {
    /// The packs of `repo`, with a delta-base cache of `cache_bytes`.
    pub(super) fn new(repo: &gix::Repository, cache_bytes: usize) -> Packs {
        Packs {
            dir: repo.objects.store_ref().path().join("pack"),
            hash: repo.object_hash(),
            bundles: Arc::default(),
            kept: PAGES_KEPT,
            order: Vec::new(),
            cache: Arc::new(Mutex::new(DeltaBaseCache::new(cache_bytes))),
            work: Resolving::default(),
            located: Located::default(),
        }
    }

    /// Empty the handle's delta-base cache (shared with its siblings,
    /// where it is), and the buffers it keeps for reuse.
    pub(super) fn clear_cache(&self) {
        let mut cache = lock(&self.cache);
        cache.inner.clear();
        cache.spare = Spare::default();
    }

    /// Open the packs now, as the first read would.
    pub(super) fn open(&self) {
        open_once(&self.bundles, &self.dir, self.hash, self.kept);
    }

    /// Whether a read has opened the packs.
    fn is_open(&self) -> bool {
        self.bundles.get().is_some()
    }

    /// Another handle's reader of the same packs (mapped once for both),
    /// with a cache of its own.
    pub(super) fn sibling(&self) -> Packs {
        let bytes = lock(&self.cache).inner.capacity();
        self.sibling_with(Arc::new(Mutex::new(DeltaBaseCache::new(bytes))))
    }

    /// `n` readers of the same packs, for `n` threads, that share one
    /// delta-base cache as large as their `n` own caches would be. The
    /// diff threads take turns at runs of neighbouring commits, whose trees
    /// lie on the same delta chains: with a cache each, each thread
    /// inflated the same bases again (git/git's whole history: 651k
    /// objects inflated against 474k by git, whose one cache is 96 MiB).
    pub(super) fn siblings_sharing_cache(&self, n: usize) -> Vec<Packs> {
        let bytes = lock(&self.cache).inner.capacity().saturating_mul(n);
        let cache = Arc::new(Mutex::new(DeltaBaseCache::new(bytes)));
        (0..n)
            .map(|_| self.sibling_with(Arc::clone(&cache)))
            .collect()
    }

    /// Another handle's reader of the same packs sharing this one's
    /// delta-base cache.
    pub(super) fn sibling_sharing_cache(&self) -> Packs {
        self.sibling_with(Arc::clone(&self.cache))
    }

    fn sibling_with(&self, cache: Arc<Mutex<DeltaBaseCache>>) -> Packs {
        Packs {
            dir: self.dir.clone(),
            hash: self.hash,
            bundles: Arc::clone(&self.bundles),
            kept: self.kept,
            order: Vec::new(),
            cache,
            work: Resolving::default(),
            located: Located::default(),
        }
    }

    /// Object `id` decoded into `out`, and its kind; `None` when gate leaves
    /// it to gix: no pack this handle opened holds it (loose objects,
    /// alternates, a pack written since), its chain goes through a delta
    /// that names its base by id, or an entry is not as gate expects (gix
    /// then reads it, and says what is wrong with it).
    pub(super) fn find(&mut self, id: &gix::oid, out: &mut Vec<u8>) -> Option<gix::objs::Kind> {
        // No object is longer than that: always read whole.
        self.find_head(id, out, usize::MAX).map(|(kind, _)| kind)
    }

    /// Object `id` as [`find`](Self::find) reads it, where the delta-base
    /// cache holds it: shared with the cache, not copied (a tree a diff
    /// reads). An object stored whole is read into a buffer of its own.
    pub(super) fn find_shared(&mut self, id: &gix::oid) -> Option<(gix::objs::Kind, Shared)> {
        let (at, entry) = self.locate(id)?;
        let opened = self.bundles.get()?;
        let pack = &opened.bundles[at].pack;
        let mut whole = Vec::new();
        let (kind, held) = resolve(
            pack,
            &|from, to| opened.touch(at, from, to),
            entry,
            &mut whole,
            &self.cache,
            &mut self.work,
        )?;
        Some((kind, held.unwrap_or_else(|| Shared::new(whole))))
    }

    /// The first `len` bytes of object `id` into `out`, or all of it when
    /// it is no longer, its kind, and whether `out` holds all of it; `None`
    /// as [`find`](Self::find) says. Only an object stored whole in a pack
    /// is cut short (the rest of it is never inflated: a commit's headers
    /// without its message); a delta is resolved whole.
    pub(super) fn find_head(
        &mut self,
        id: &gix::oid,
        out: &mut Vec<u8>,
        len: usize,
    ) -> Option<(gix::objs::Kind, bool)> {
        self.find_head_until(id, out, Head::Bytes(len))
    }

    /// [`find_head`](Self::find_head) of `head`'s length: the first bytes,
    /// and more of the same stream where they are not enough.
    pub(super) fn find_head_until(
        &mut self,
        id: &gix::oid,
        out: &mut Vec<u8>,
        head: Head,
    ) -> Option<(gix::objs::Kind, bool)> {
        let (first, most) = match head {
            Head::Bytes(len) => (len, len),
            Head::Until { first, most, .. } => (first, most),
        };
        let (at, entry) = self.locate(id)?;
        let opened = self.bundles.get()?;
        let pack = &opened.bundles[at].pack;
        if let Some(kind) = entry.header.as_kind()
            && entry.decompressed_size > first as u64
        {
            let end = u64::try_from(pack.pack_end()).ok()?;
            let input = pack.entry_slice(entry.data_offset..end)?;
            out.clear();
            out.resize(first, 0);
            let inflate = &mut self.work.inflate;
            inflate.reset();
            let (status, consumed, written) = inflate.prefix(input, out).ok()?;
            // A stream that ends short of its stated size is gix's to
            // read and report.
            if status == gix::zlib::Status::StreamEnd || written != first {
                opened.touch(at, entry.pack_offset(), entry.data_offset + consumed as u64);
                return None;
            }
            let more = matches!(head, Head::Until { enough, .. } if most > first && !enough(out));
            if !more {
                opened.touch(at, entry.pack_offset(), entry.data_offset + consumed as u64);
                return Some((kind, false));
            }
            if entry.decompressed_size > most as u64 {
                // The same stream on to `most` bytes, not inflated again.
                let prefix = std::mem::take(out);
                let written = inflate.rest(&input[consumed..], &prefix, 0, out, most);
                // What it read past the first part is not told: the pages
                // up to as many bytes again as it wrote are counted, read
                // whole or not.
                let read = consumed + (most - first);
                opened.touch(at, entry.pack_offset(), entry.data_offset + read as u64);
                if written.ok() != Some(most) {
                    return None;
                }
                return Some((kind, false));
            }
            opened.touch(at, entry.pack_offset(), entry.data_offset + consumed as u64);
            // No longer than `most`: read whole below.
        }
        let (kind, held) = resolve(
            pack,
            &|from, to| opened.touch(at, from, to),
            entry,
            out,
            &self.cache,
            &mut self.work,
        )?;
        if let Some(held) = held {
            copy_into(out, &held)?;
        }
        Some((kind, true))
    }

    /// Which pack holds object `id` (by its place in the bundles) and its
    /// entry there: the pack that answered last is asked first.
    fn locate(&mut self, id: &gix::oid) -> Option<(usize, data::Entry)> {
        let bundles = &open_once(&self.bundles, &self.dir, self.hash, self.kept).bundles;
        if let Some(found) = self.located.get(id) {
            return Some(found);
        }
        if self.order.len() != bundles.len() {
            self.order = (0..bundles.len()).collect();
        }
        let (at, offset) = self.order.iter().enumerate().find_map(|(at, &n)| {
            let index = &bundles[n].index;
            Some((at, index.pack_offset_at_index(place_in(index, id)?)))
        })?;
        if at != 0 {
            self.order.swap(0, at);
        }
        let pack = &bundles[self.order[0]].pack;
        let entry = pack.entry(offset).ok()?;
        self.located.put(id, self.order[0], &entry);
        Some((self.order[0], entry))
    }

    /// Keep at most `bytes` of the packs' pages resident, for the handles
    /// that open them from here on (tests: the pages are let go on a small
    /// pack too).
    pub(super) fn keep_pages(&mut self, bytes: usize) {
        self.kept = bytes;
    }

    /// Let the packs' pages go now, if a read opened them: the reads that
    /// needed them are over (a long range's diffs, before the findings
    /// are made), and a later read maps them again from the page cache.
    pub(super) fn let_pages_go(&self) {
        if let Some(opened) = self.bundles.get() {
            opened.let_go();
        }
    }

    /// How many times the packs' pages were let go since they were opened.
    pub(super) fn pages_let_go(&self) -> usize {
        self.bundles
            .get()
            .map_or(0, |opened| opened.let_go.load(Ordering::Relaxed))
    }

    /// For object `id` in a pack: read by the first of two siblings that
    /// share a cache ([`siblings_sharing_cache`](Self::siblings_sharing_cache)),
    /// its chain as the second one holds it (tests see the cache shared).
    pub(super) fn chain_held_by_a_sharing_sibling(&self, id: &gix::oid) -> Option<(usize, usize)> {
        let mut siblings = self.siblings_sharing_cache(2);
        siblings[0].find(id, &mut Vec::new())?;
        siblings[1].chain_held(id)
    }

    /// For object `id` in a pack: how many links its delta chain has below
    /// it, and how many of them the cache holds (tests see the chain kept).
    pub(super) fn chain_held(&mut self, id: &gix::oid) -> Option<(usize, usize)> {
        let bundles = &open_once(&self.bundles, &self.dir, self.hash, self.kept).bundles;
        let (bundle, at) = bundles
            .iter()
            .find_map(|b| Some((b, place_in(&b.index, id)?)))?;
        let offset = bundle.index.pack_offset_at_index(at);
        let mut cursor = bundle.pack.entry(offset).ok()?;
        let (mut links, mut held) = (0, 0);
        while let data::entry::Header::OfsDelta { base_distance } = cursor.header {
            let base = cursor.checked_base_pack_offset(base_distance)?;
            cursor = bundle.pack.entry(base).ok()?;
            links += 1;
            held += usize::from(lock(&self.cache).contains(bundle.pack.id, cursor.data_offset));
        }
        Some((links, held))
    }
}

/// How much of an object [`Packs::find_head_until`] inflates.
#[derive(Clone, Copy)]
pub(super) enum Head {
    /// The first this many bytes (all of a shorter object).
    Bytes(usize),
    /// The first `first` bytes, and up to `most` where `enough` says the
    /// first are not enough (a commit whose committer line runs past
    /// them): the same stream carried on, not inflated again.
    Until {
        first: usize,
        most: usize,
        enough: fn(&[u8]) -> bool,
    },
}

/// Object `id`'s place in pack index `index` ([`find_in_index`]).
/// The objects a handle located last, each by its id: which pack holds it
/// and its entry there. A diff reads most trees twice, as the newer side of
/// one commit and the older of the next (moby/moby's 10k range with a
/// commit-graph: 107k look-ups of 52k objects), and each look-up in a pack
/// index is a miss of the caches and the TLB, and reading the entry's
/// header touches a page of the pack. A table of [`LOCATED`] places, an
/// object's place taken from its id's first bytes (ids are uniform), one
/// object a place, the last located there kept (no order to keep up):
/// 40 % of that range's look-ups are answered here, against 41 % for the
/// last 4,096 objects kept in the order they were used. The packs a
/// handle reads never change once opened, so an entry kept is never
/// stale.
///
/// Each place is [`WORDS`] words, all zero while empty: the table is
/// asked of the allocator zeroed, so a handle that reads a few objects
/// (a hook's) has only the pages it wrote made resident, and 192 KiB at
/// most. An id that is not SHA-1's, a delta naming its base by id (gate
/// leaves those to gix), and a pack past a handle's 256th are not kept.
#[derive(Default)]
struct Located {
    /// Empty until the first object is kept.
    words: Vec<u64>,
}

/// How many objects a handle keeps located: a power of two.
const LOCATED: usize = 4096;
/// A place's words: the id's first 16 bytes, its last 4 and what says
/// the place is taken, the pack, the kind and the header's length; the
/// entry's data offset, its size, and a delta's distance to its base.
const WORDS: usize = 6;
const TAKEN: u64 = 1 << 63;

impl Located {
    fn place(id: &gix::oid) -> usize {
        let bytes = id.as_bytes();
        let first = u16::from_be_bytes([bytes[0], bytes.get(1).copied().unwrap_or(0)]);
        usize::from(first) & (LOCATED - 1)
    }

    /// The id's 20 bytes as the place's first three words hold them (the
    /// third's low half); `None` for an id of another length.
    fn id_words(id: &gix::oid) -> Option<[u64; 3]> {
        let bytes: &[u8; 20] = id.as_bytes().try_into().ok()?;
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let last = u32::from_le_bytes(bytes[16..20].try_into().expect("4 bytes"));
        Some([word(0), word(8), u64::from(last)])
    }

    fn get(&self, id: &gix::oid) -> Option<(usize, data::Entry)> {
        let at = Self::place(id) * WORDS;
        let place = self.words.get(at..at + WORDS)?;
        let [first, second, last] = Self::id_words(id)?;
        let meta = place[2];
        if meta & TAKEN == 0
            || place[0] != first
            || place[1] != second
            || meta & 0xffff_ffff != last
        {
            return None;
        }
        let header = match (meta >> 56) & 0x7 {
            1 => data::entry::Header::Commit,
            2 => data::entry::Header::Tree,
            3 => data::entry::Header::Blob,
            4 => data::entry::Header::Tag,
            6 => data::entry::Header::OfsDelta {
                base_distance: place[5],
            },
            _ => return None,
        };
        let entry = data::Entry {
            header,
            decompressed_size: place[4],
            data_offset: place[3],
            encoded_header_size: ((meta >> 32) & 0xffff) as u16,
        };
        Some((((meta >> 48) & 0xff) as usize, entry))
    }

    fn put(&mut self, id: &gix::oid, pack: usize, entry: &data::Entry) {
        let Some([first, second, last]) = Self::id_words(id) else {
            return;
        };
        let (kind, distance) = match entry.header {
            data::entry::Header::Commit => (1, 0),
            data::entry::Header::Tree => (2, 0),
            data::entry::Header::Blob => (3, 0),
            data::entry::Header::Tag => (4, 0),
            data::entry::Header::OfsDelta { base_distance } => (6, base_distance),
            data::entry::Header::RefDelta { .. } => return,
        };
        let Ok(pack) = u8::try_from(pack) else {
            return;
        };
        if self.words.is_empty() {
            // Written, not only zeroed by the allocator: a fresh mapping's
            // pages read before they are written map the kernel's shared
            // zero page, and the first write then replaces it, flushing
            // the other cores' TLBs (the diff threads' look-ups hit every
            // one of its 48 pages: 3 % of moby's 1k run in those faults).
            // (`vec![0; n]` asks for a zeroed allocation whenever the
            // value is zero; `black_box` keeps the fill from being folded
            // into one.)
            let mut words = Vec::with_capacity(LOCATED * WORDS);
            words.resize(LOCATED * WORDS, std::hint::black_box(0));
            self.words = words;
        }
        let meta = TAKEN
            | (kind << 56)
            | (u64::from(pack) << 48)
            | (u64::from(entry.encoded_header_size) << 32)
            | last;
        let at = Self::place(id) * WORDS;
        self.words[at..at + WORDS].copy_from_slice(&[
            first,
            second,
            meta,
            entry.data_offset,
            entry.decompressed_size,
            distance,
        ]);
    }
}

fn place_in(index: &pack::index::File, id: &gix::oid) -> Option<u32> {
    find_in_index(index.num_objects(), id.as_bytes(), |i| {
        index.oid_at_index(i).as_bytes()
    })
}

/// Where object `id` sits among the `n` sorted ids of a pack index,
/// `id_at(i)` the `i`-th: what gix's `lookup` answers, in fewer probes.
///
/// gix bisects the ids that share `id`'s first byte: some ten probes a
/// look-up on moby/moby's index (637k objects, 12 MB of ids), the first
/// few of them each a miss of the caches and the TLB, and the look-ups
/// were 16-19 % of a 10k range's samples with a commit-graph (perf:
/// `memcmp` under `Packs::locate`). Object ids are uniform, so an id's
/// place is about its first eight bytes' share of what is left times the
/// ids left: the first [`GUESSES`] probes go there (4.4 on average for
/// 637k uniform ids), and bisection takes what is left after them, so ids
/// that are not uniform (made to share their first bytes) cost at most
/// `GUESSES` probes more than bisecting the whole index. Fewer probes far
/// apart: cachegrind, with a 1 MiB last-level cache, counted 15-23 % fewer
/// last-level read misses on that range, 8 % fewer first-level misses and
/// 1.6 % fewer instructions (decision 0036).
fn find_in_index<'a>(n: u32, id: &[u8], id_at: impl Fn(u32) -> &'a [u8]) -> Option<u32> {
    /// Probes by interpolation before bisecting.
    const GUESSES: u32 = 8;
    fn prefix(id: &[u8]) -> u64 {
        match id.first_chunk::<8>() {
            Some(first) => u64::from_be_bytes(*first),
            None => {
                let mut first = [0u8; 8];
                first[..id.len()].copy_from_slice(id);
                u64::from_be_bytes(first)
            }
        }
    }
    let key = prefix(id);
    // The ids left are `lo..hi`; their first eight bytes lie within
    // `low..=high`, and so do `id`'s.
    let (mut lo, mut hi) = (0u32, n);
    let (mut low, mut high) = (0u64, u64::MAX);
    let mut probes = 0;
    while lo < hi {
        let left = hi - lo;
        probes += 1;
        let probe = if probes <= GUESSES {
            let span = u128::from(high - low) + 1;
            let share = u128::from(key - low) * u128::from(left) / span;
            lo + u32::try_from(share).unwrap_or(u32::MAX).min(left - 1)
        } else {
            lo + left / 2
        };
        let found = id_at(probe);
        let first = prefix(found);
        match key.cmp(&first).then_with(|| id.cmp(found)) {
            std::cmp::Ordering::Equal => return Some(probe),
            std::cmp::Ordering::Less => (hi, high) = (probe, first),
            std::cmp::Ordering::Greater => (lo, low) = (probe + 1, first),
        }
    }
    None
}

/// How much of the packs' mappings reads may have made resident before
/// their pages are let go ([`Opened::touch`]): about what the last
/// thousand commits of git/git read (12-19 MiB).
const PAGES_KEPT: usize = 16 << 20;

/// The unit pages are counted in: what one read's page fault can map at
/// most (the kernel's fault-around, 64 KiB, maps the cached pages beside
/// the one read).
const BLOCK: u64 = 64 << 10;

/// The packs, opened once for every handle of the process, and which
/// blocks of each one's mapping reads touched since the process last let
/// its pages go.
///
/// A pack is mapped whole, and a walk down a long history reads ever older
/// parts of it: the pages it read stayed resident, so resident memory grew
/// with the range (227 MiB of pack on git/git's whole history, 16 MiB on
/// its last thousand commits). git bounds its mapped windows the same way
/// (`core.packedGitLimit`). Past [`PAGES_KEPT`] of blocks touched, every
/// pack's pages are let go (decision 0032): the kernel keeps them in its
/// page cache, and a read maps them again from there.
struct Opened {
    bundles: Vec<pack::Bundle>,
    /// One bit per [`BLOCK`] of each pack.
    blocks: Vec<Vec<AtomicU64>>,
    /// Blocks touched since the pages were last let go.
    touched: AtomicUsize,
    /// The pages kept resident at most.
    kept: usize,
    /// How many times the pages were let go.
    let_go: AtomicUsize,
}

impl Opened {
    fn new(bundles: Vec<pack::Bundle>, kept: usize) -> Opened {
        let blocks = bundles
            .iter()
            .map(|b| {
                let words = (b.pack.data_len() as u64).div_ceil(BLOCK).div_ceil(64);
                (0..words).map(|_| AtomicU64::new(0)).collect()
            })
            .collect();
        Opened {
            bundles,
            blocks,
            touched: AtomicUsize::new(0),
            kept,
            let_go: AtomicUsize::new(0),
        }
    }

    /// Bytes `from..to` of pack `at` were read; past [`PAGES_KEPT`] of
    /// blocks read, every pack's pages are let go. Threads reading meanwhile
    /// read the same bytes, mapped again.
    fn touch(&self, at: usize, from: u64, to: u64) {
        let Some(bits) = self.blocks.get(at) else {
            return;
        };
        let mut new = 0;
        for block in from / BLOCK..=to.saturating_sub(1).max(from) / BLOCK {
            let (word, bit) = ((block / 64) as usize, 1u64 << (block % 64));
            let Some(word) = bits.get(word) else {
                break;
            };
            if word.load(Ordering::Relaxed) & bit == 0
                && word.fetch_or(bit, Ordering::Relaxed) & bit == 0
            {
                new += 1;
            }
        }
        if new == 0 {
            return;
        }
        let touched = self.touched.fetch_add(new, Ordering::Relaxed) + new;
        if touched * (BLOCK as usize) < self.kept {
            return;
        }
        self.let_go();
    }

    /// Let every pack's pages go, and count the blocks touched from none.
    fn let_go(&self) {
        self.touched.store(0, Ordering::Relaxed);
        self.let_go.fetch_add(1, Ordering::Relaxed);
        for word in self.blocks.iter().flatten() {
            word.store(0, Ordering::Relaxed);
        }
        for bundle in &self.bundles {
            let pack = &bundle.pack;
            if let Some(mapped) = pack.entry_slice(0..pack.data_len() as u64) {
                // SAFETY: a `data::File` holds its pack as a `memmap2::Mmap`
                // (gix-pack's `MMap`), which gix maps from the file
                // read-only, and nothing writes a pack once written.
                let _ = unsafe { crate::platform::let_go_of_mapped_pages(mapped) };
            }
        }
    }
}

/// The packs of `dir` as `bundles` holds them, opened on the first call.
fn open_once<'a>(
    bundles: &'a OnceLock<Opened>,
    dir: &std::path::Path,
    hash: gix::hash::Kind,
    kept: usize,
) -> &'a Opened {
    bundles.get_or_init(|| Opened::new(open_bundles(dir, hash), kept))
}

/// Every pack of `dir` that opens with its index, the newest first (as git
/// looks them up). One that does not open is left to gix, which reports it
/// if an object is read from it.
fn open_bundles(dir: &std::path::Path, hash: gix::hash::Kind) -> Vec<pack::Bundle> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let path = entry.path();
            if path.extension()? != "idx" {
                return None;
            }
            let modified = entry.metadata().ok()?.modified().ok()?;
            Some((modified, path))
        })
        .collect();
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    found
        .into_iter()
        .filter_map(|(_, path)| pack::Bundle::at(&path, hash).ok())
        .collect()
}

/// `entry` of `pack` decoded, as git's `unpack_entry` does: down its delta
/// chain to the first link the cache holds or to the chain's base, then
/// each delta applied in turn from there, and every result on the way put
/// in the cache (the base read from the pack too) — so that the next
/// object of the same chain starts from its nearest link instead of the
/// base. An object stored whole (no delta) is inflated into `whole` and
/// not held; anything else comes back as the cache holds it, never
/// copied. `None` where gix's decoder is to answer (see [`Packs::find`]).
///
/// The cache is locked twice, once for the way down and once to put the
/// results, never while inflating: two diff threads share it
/// ([`Packs::siblings_sharing_cache`]), and a lock taken at every link
/// made the other thread wait (`lock_contended` and the futex were 3-4 %
/// of a run with a commit-graph).
fn resolve(
    pack: &data::File,
    touch: &dyn Fn(u64, u64),
    entry: data::Entry,
    whole: &mut Vec<u8>,
    cache: &Mutex<DeltaBaseCache>,
    work: &mut Resolving,
) -> Option<(gix::objs::Kind, Option<Shared>)> {
    use data::entry::Header;
    if let Some(kind) = entry.header.as_kind() {
        // Not a delta: inflated where it is, as gix would.
        inflate_entry(pack, touch, &entry, &mut work.inflate, whole)?;
        return Some((kind, None));
    }
    let Resolving {
        inflate,
        chain,
        delta,
        spare,
        results,
    } = work;
    chain.clear();
    results.clear();
    // Down the chain, each link's base strictly before it in the pack (so
    // the walk ends), to the first link held or the base.
    let (kind, mut base) = {
        let mut held = lock(cache);
        let mut cursor = entry;
        loop {
            if let Some((kind, _, data)) = held.get(pack.id, cursor.data_offset) {
                break (kind, data);
            }
            match cursor.header {
                Header::OfsDelta { base_distance } => {
                    let at = cursor
                        .checked_base_pack_offset(base_distance)
                        .filter(|&at| at < cursor.pack_offset())?;
                    if chain.len() == MAX_CHAIN {
                        return None;
                    }
                    let next = pack.entry(at).ok()?;
                    chain.push(std::mem::replace(&mut cursor, next));
                }
                Header::RefDelta { .. } => return None,
                _ => {
                    drop(held);
                    let kind = cursor.header.as_kind()?;
                    let size = usize::try_from(cursor.decompressed_size).ok()?;
                    let mut out = spare.take(size)?;
                    let packed = inflate_entry(pack, touch, &cursor, inflate, &mut out)?;
                    let base = Shared::new(out);
                    results.push((cursor.data_offset, Shared::clone(&base), packed));
                    break (kind, base);
                }
            }
        }
    };
    // Up the chain: each delta applied to the result below it, into a
    // buffer of its own, which is then the base of the next.
    for link in chain.drain(..).rev() {
        let packed = inflate_entry(pack, touch, &link, inflate, delta)?;
        let mut out = spare.take(result_size(delta)?)?;
        apply_delta(&base, delta, &mut out)?;
        base = Shared::new(out);
        results.push((link.data_offset, Shared::clone(&base), packed));
    }
    if !results.is_empty() {
        let mut held = lock(cache);
        for (offset, data, compressed_size) in results.drain(..) {
            let entry = Entry {
                data,
                kind,
                compressed_size,
            };
            held.put_sparing((pack.id, offset), entry, spare);
        }
        drop(held);
        spare.let_go();
    }
    Some((kind, Some(base)))
}

/// What a handle keeps between the objects it resolves: its inflater, the
/// chain being resolved, a delta's instructions, the buffers its
/// evictions gave back, and the results waiting to be put.
#[derive(Default)]
pub(super) struct Resolving {
    inflate: gix::zlib::Inflate,
    /// The links of the chain being resolved, the object asked for first.
    chain: Vec<data::Entry>,
    /// A delta's instructions.
    delta: Vec<u8>,
    spare: Spare,
    /// Each result of the chain and the bytes it took in the pack, by its
    /// offset there, until they are put.
    results: Vec<(u64, Shared, usize)>,
}

/// The data of `entry` inflated into `out` (the whole of it), and the
/// bytes it took in the pack; `touch` is told which bytes of the pack were
/// read, its header's too.
fn inflate_entry(
    pack: &data::File,
    touch: &dyn Fn(u64, u64),
    entry: &data::Entry,
    inflate: &mut gix::zlib::Inflate,
    out: &mut Vec<u8>,
) -> Option<usize> {
    let size = usize::try_from(entry.decompressed_size).ok()?;
    out.clear();
    out.try_reserve(size).ok()?;
    out.resize(size, 0);
    let packed = pack.decompress_entry(entry, inflate, out).ok()?;
    touch(entry.pack_offset(), entry.data_offset + packed as u64);
    Some(packed)
}

/// One of the sizes a delta starts with, at `at` of `data` (moved past it).
fn size(data: &[u8], at: &mut usize) -> Option<usize> {
    let mut value = 0usize;
    let mut shift = 0;
    loop {
        let byte = *data.get(*at)?;
        *at += 1;
        if shift > 56 {
            return None;
        }
        value |= usize::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
}

/// The size of the object delta `instructions` make (its second size).
fn result_size(instructions: &[u8]) -> Option<usize> {
    let mut at = 0;
    size(instructions, &mut at)?;
    size(instructions, &mut at)
}

/// git's delta `instructions` applied to `base`, the result in `out`
/// (`patch_delta` in git's `patch-delta.c`): the base's size and the
/// result's, then copies from the base and bytes inserted. `None` for a
/// delta that does not fit its base or its stated size.
fn apply_delta(base: &[u8], instructions: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let mut at = 0;
    if size(instructions, &mut at)? != base.len() {
        return None;
    }
    let result = size(instructions, &mut at)?;
    out.clear();
    out.try_reserve(result).ok()?;
    while let Some(&op) = instructions.get(at) {
        at += 1;
        if op & 0x80 != 0 {
            // Copy from the base: which offset and size bytes follow is
            // said by the op's low seven bits.
            let mut field = |bit: u8, shift: u32| -> Option<usize> {
                if op & bit == 0 {
                    return Some(0);
                }
                let byte = *instructions.get(at)?;
                at += 1;
                Some(usize::from(byte) << shift)
            };
            let offset = field(0x01, 0)? | field(0x02, 8)? | field(0x04, 16)? | field(0x08, 24)?;
            let mut len = field(0x10, 0)? | field(0x20, 8)? | field(0x40, 16)?;
            if len == 0 {
                len = 0x10000;
            }
            let end = offset.checked_add(len)?;
            out.extend_from_slice(base.get(offset..end)?);
        } else if op != 0 {
            // Insert the next `op` bytes.
            let end = at + usize::from(op);
            out.extend_from_slice(instructions.get(at..end)?);
            at = end;
        } else {
            // Reserved.
            return None;
        }
        if out.len() > result {
            return None;
        }
    }
    (out.len() == result).then_some(())
}

/// A repository's objects as gate reads them: from its packs through
/// [`Packs`] first, then through gix (loose objects, alternates, packs
/// written since).
pub(super) struct Objects<'r> {
    pub(super) repo: &'r gix::Repository,
    packs: &'r std::cell::RefCell<Packs>,
    /// Whether a read may open the packs. A single read (a policy, a task
    /// file, the commit a revision names) is left to gix until a walk or a
    /// diff has opened them: gix opens the packs for its own reads anyway,
    /// and a hook reading a file or two would map each pack twice.
    bulk: bool,
}

impl<'r> Objects<'r> {
    /// For a walk, a diff or a run of blobs: opens the packs on first read.
    pub(super) fn new(repo: &'r gix::Repository, packs: &'r std::cell::RefCell<Packs>) -> Self {
        Objects {
            repo,
            packs,
            bulk: true,
        }
    }

    /// For one read: through the packs only once they are open.
    pub(super) fn single(repo: &'r gix::Repository, packs: &'r std::cell::RefCell<Packs>) -> Self {
        Objects {
            repo,
            packs,
            bulk: false,
        }
    }

    pub(super) fn object_hash(&self) -> gix::hash::Kind {
        self.repo.object_hash()
    }
}

impl gix::objs::Find for Objects<'_> {
    fn try_find<'a>(
        &self,
        id: &gix::oid,
        buffer: &'a mut Vec<u8>,
    ) -> gix::Result<Option<gix::objs::Data<'a>>> {
        // Never re-entered, but a read that finds the packs busy still has
        // gix.
        let found = match self.packs.try_borrow_mut() {
            Ok(mut packs) if self.bulk || packs.is_open() => packs.find(id, buffer),
            _ => None,
        };
        match found {
            Some(kind) => Ok(Some(gix::objs::Data {
                kind,
                data: buffer,
                object_hash: self.repo.object_hash(),
            })),
            None => gix::objs::Find::try_find(self.repo, id, buffer),
        }
    }
}

impl Objects<'_> {
    /// The first bytes of object `id` that `head` asks for (all of it
    /// when no longer), its kind, and whether `buffer` holds all of it: as
    /// [`Packs::find_head_until`] reads it, else whole by gix.
    pub(super) fn find_head(
        &self,
        id: &gix::oid,
        buffer: &mut Vec<u8>,
        head: Head,
    ) -> gix::Result<Option<(gix::objs::Kind, bool)>> {
        let found = match self.packs.try_borrow_mut() {
            Ok(mut packs) if self.bulk || packs.is_open() => {
                packs.find_head_until(id, buffer, head)
            }
            _ => None,
        };
        if found.is_some() {
            return Ok(found);
        }
        Ok(gix::objs::Find::try_find(self.repo, id, buffer)?.map(|data| (data.kind, true)))
    }
}

impl Objects<'_> {
    /// Object `id` and its kind, as [`Packs::find_shared`] reads it (never
    /// copied where the delta-base cache holds it), else whole by gix;
    /// `None` when there is no such object.
    pub(super) fn find_shared(
        &self,
        id: &gix::oid,
    ) -> gix::Result<Option<(gix::objs::Kind, Shared)>> {
        let found = match self.packs.try_borrow_mut() {
            Ok(mut packs) if self.bulk || packs.is_open() => packs.find_shared(id),
            _ => None,
        };
        if found.is_some() {
            return Ok(found);
        }
        let mut buffer = Vec::new();
        let kind = match gix::objs::Find::try_find(self.repo, id, &mut buffer)? {
            Some(data) => data.kind,
            None => return Ok(None),
        };
        Ok(Some((kind, Shared::new(buffer))))
    }
}

impl gix::objs::FindHeader for Objects<'_> {
    fn try_header(&self, id: &gix::oid) -> gix::Result<Option<gix::objs::Header>> {
        gix::objs::FindHeader::try_header(self.repo, id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sorted ids and a probe counter over them, for [`find_in_index`].
    fn index_of(ids: &[[u8; 20]], id: &[u8; 20]) -> (Option<u32>, u32) {
        let probes = std::cell::Cell::new(0);
        let found = find_in_index(ids.len() as u32, id, |i| {
            probes.set(probes.get() + 1);
            &ids[i as usize][..]
        });
        (found, probes.get())
    }

    fn uniform_ids(n: u32) -> Vec<[u8; 20]> {
        let mut ids: Vec<[u8; 20]> = (0..n)
            .map(|i| {
                use sha2::Digest;
                let digest = sha2::Sha256::digest(i.to_le_bytes());
                digest[..20].try_into().expect("20 bytes")
            })
            .collect();
        ids.sort_unstable();
        ids
    }

    #[test]
    fn an_index_look_up_finds_every_id_at_its_place_and_no_other() {
        for n in [0u32, 1, 2, 3, 17, 1000, 100_000] {
            let ids = uniform_ids(n);
            let mut most = 0;
            for (at, id) in ids.iter().enumerate() {
                let (found, probes) = index_of(&ids, id);
                assert_eq!(found, Some(at as u32), "{n} ids, id {at}");
                most = most.max(probes);
            }
            // Ids that are not there, below, between and above them.
            for absent in [[0u8; 20], [0xff; 20], [0x80; 20]] {
                if !ids.contains(&absent) {
                    assert_eq!(index_of(&ids, &absent).0, None);
                }
            }
            for pair in ids.windows(2).step_by(97) {
                let mut between = pair[0];
                between[19] = between[19].wrapping_add(1);
                if between != pair[1] {
                    assert_eq!(index_of(&ids, &between).0, None);
                }
            }
            let bisection = 32 - n.leading_zeros();
            assert!(most <= 8 + bisection, "{n} ids: {most} probes");
        }
    }

    #[test]
    fn uniform_ids_take_a_few_probes_and_crafted_ones_a_few_more_than_bisection() {
        let ids = uniform_ids(100_000);
        let probes: u32 = ids.iter().map(|id| index_of(&ids, id).1).sum();
        // Bisection takes 16-17 here, 8-9 within a first byte.
        assert!(probes < 5 * ids.len() as u32, "{probes} probes in all");
        // Ids sharing their first eight bytes, or crowded at one end: what
        // a repository made to defeat the interpolation would hold.
        let mut crafted: Vec<[u8; 20]> = (0..50_000u32)
            .map(|i| {
                let mut id = [0xab; 20];
                id[16..].copy_from_slice(&i.to_be_bytes());
                id
            })
            .chain((0..50_000u32).map(|i| {
                let mut id = [0u8; 20];
                id[0] = 0xff;
                id[4..8].copy_from_slice(&i.to_be_bytes());
                id
            }))
            .collect();
        crafted.push([0; 20]);
        crafted.sort_unstable();
        let bisection = 32 - (crafted.len() as u32).leading_zeros();
        for (at, id) in crafted.iter().enumerate() {
            let (found, probes) = index_of(&crafted, id);
            assert_eq!(found, Some(at as u32));
            assert!(probes <= 8 + bisection, "id {at}: {probes} probes");
        }
    }

    fn get(cache: &mut DeltaBaseCache, offset: u64) -> Option<Vec<u8>> {
        let mut out = vec![0xff; 3];
        DecodeEntry::get(cache, 7, offset, &mut out).map(|(kind, packed)| {
            assert_eq!((kind, packed), (gix::objs::Kind::Tree, 11));
            out
        })
    }

    fn entry_at(offset: u64) -> data::Entry {
        data::Entry {
            header: data::entry::Header::Tree,
            decompressed_size: 100,
            data_offset: offset,
            encoded_header_size: 2,
        }
    }

    #[test]
    fn a_located_object_is_answered_only_for_its_own_id() {
        let mut located = Located::default();
        let one = gix::ObjectId::from_bytes_or_panic(&[7; 20]);
        assert!(located.get(&one).is_none(), "nothing kept yet");
        located.put(&one, 1, &entry_at(40));
        assert_eq!(located.get(&one), Some((1, entry_at(40))));
        // Another id at the same place (its first two bytes agree) is not
        // taken for the one kept, and takes the place.
        let mut bytes = [7u8; 20];
        bytes[19] = 8;
        let same_place = gix::ObjectId::from_bytes_or_panic(&bytes);
        assert_eq!(Located::place(&one), Located::place(&same_place));
        assert!(located.get(&same_place).is_none());
        located.put(&same_place, 0, &entry_at(90));
        assert_eq!(located.get(&same_place), Some((0, entry_at(90))));
        assert!(located.get(&one).is_none(), "one object a place");
        // Ids whose places differ are kept side by side.
        let other = gix::ObjectId::from_bytes_or_panic(&[9; 20]);
        assert_ne!(Located::place(&other), Located::place(&same_place));
        located.put(&other, 2, &entry_at(7));
        assert_eq!(located.get(&other), Some((2, entry_at(7))));
        assert_eq!(located.get(&same_place), Some((0, entry_at(90))));
        assert_eq!(located.words.len(), LOCATED * WORDS);
        assert!(LOCATED.is_power_of_two());
    }

    /// The table's pages are written when it is made, not mapped from the
    /// kernel's zero page on a read and replaced on the first write (a TLB
    /// flush on every other core each): `/proc/self/pagemap` says each page
    /// is present and this process's own.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_located_table_is_written_when_made() {
        use std::io::{Read, Seek, SeekFrom};
        let mut located = Located::default();
        let one = gix::ObjectId::from_bytes_or_panic(&[7; 20]);
        located.put(&one, 1, &entry_at(40));
        let Ok(mut pagemap) = std::fs::File::open("/proc/self/pagemap") else {
            panic!("/proc/self/pagemap does not open");
        };
        let page = 4096;
        let start = located.words.as_ptr() as usize;
        let end = start + located.words.len() * 8;
        let (first, last) = (start.div_ceil(page), end / page);
        assert!(last - first >= 40, "{first}..{last}");
        for at in first..last {
            let mut entry = [0u8; 8];
            pagemap.seek(SeekFrom::Start(at as u64 * 8)).expect("seek");
            pagemap.read_exact(&mut entry).expect("read");
            let entry = u64::from_le_bytes(entry);
            // Bit 63: present; bit 56: mapped by this process alone (not
            // the shared zero page).
            assert!(
                entry & (1 << 63) != 0,
                "page {} of the table not present",
                at - first
            );
            assert!(
                entry & (1 << 56) != 0,
                "page {} of the table not its own",
                at - first
            );
        }
    }

    #[test]
    fn a_located_entry_comes_back_as_it_was_put_of_every_kind_kept() {
        let mut located = Located::default();
        let headers = [
            data::entry::Header::Commit,
            data::entry::Header::Tree,
            data::entry::Header::Blob,
            data::entry::Header::Tag,
            data::entry::Header::OfsDelta { base_distance: 1 },
            data::entry::Header::OfsDelta {
                base_distance: u64::MAX >> 1,
            },
        ];
        for (n, header) in headers.into_iter().enumerate() {
            let id = gix::ObjectId::from_bytes_or_panic(&[n as u8 * 37 + 1; 20]);
            let entry = data::Entry {
                header,
                decompressed_size: u64::MAX - n as u64,
                data_offset: (1 << 40) + n as u64,
                encoded_header_size: 0xffff - n as u16,
            };
            located.put(&id, 255 - n, &entry);
            assert_eq!(located.get(&id), Some((255 - n, entry)), "{n}");
        }
        // Not kept: a delta naming its base by id, and a pack past the
        // 256th.
        let by_id = gix::ObjectId::from_bytes_or_panic(&[200; 20]);
        let entry = data::Entry {
            header: data::entry::Header::RefDelta {
                base_id: gix::ObjectId::from_bytes_or_panic(&[1; 20]),
            },
            decompressed_size: 1,
            data_offset: 12,
            encoded_header_size: 2,
        };
        located.put(&by_id, 0, &entry);
        assert!(located.get(&by_id).is_none());
        let far = gix::ObjectId::from_bytes_or_panic(&[201; 20]);
        located.put(&far, 256, &entry_at(12));
        assert!(located.get(&far).is_none());
        located.put(&far, 3, &entry_at(12));
        assert_eq!(located.get(&far), Some((3, entry_at(12))));
    }

    #[test]
    fn an_object_put_is_got_back_whole_under_its_pack_and_offset() {
        let mut cache = DeltaBaseCache::new(1024);
        DecodeEntry::put(&mut cache, 7, 100, b"tree bytes", gix::objs::Kind::Tree, 11);
        assert!(cache.contains(7, 100));
        assert!(!cache.contains(8, 100), "another pack");
        assert!(!cache.contains(7, 101), "another offset");
        assert_eq!(get(&mut cache, 100).as_deref(), Some(&b"tree bytes"[..]));
        assert_eq!(get(&mut cache, 101), None);
    }

    #[test]
    fn the_least_recently_used_goes_first_when_the_memory_is_spent() {
        // Each entry weighs at least its 100 bytes; 350 hold three.
        let mut cache = DeltaBaseCache::new(350);
        for offset in 0..3 {
            DecodeEntry::put(
                &mut cache,
                7,
                offset,
                &[offset as u8; 100],
                gix::objs::Kind::Tree,
                11,
            );
        }
        // 0 is used again, so 1 is the least recently used.
        assert!(get(&mut cache, 0).is_some());
        DecodeEntry::put(&mut cache, 7, 3, &[3; 100], gix::objs::Kind::Tree, 11);
        assert!(cache.contains(7, 0));
        assert!(!cache.contains(7, 1), "the least recently used went");
        assert!(cache.contains(7, 2) && cache.contains(7, 3));
        assert_eq!(get(&mut cache, 3), Some(vec![3; 100]));
    }

    #[test]
    fn an_object_larger_than_the_cache_is_not_held_and_evicts_nothing() {
        let mut cache = DeltaBaseCache::new(256);
        DecodeEntry::put(&mut cache, 7, 1, &[1; 100], gix::objs::Kind::Tree, 11);
        DecodeEntry::put(&mut cache, 7, 2, &[2; 300], gix::objs::Kind::Tree, 11);
        assert!(!cache.contains(7, 2));
        assert!(cache.contains(7, 1));
    }

    #[test]
    fn a_recycled_buffer_much_larger_than_the_object_is_not_reused() {
        let mut cache = DeltaBaseCache::new(4096);
        DecodeEntry::put(&mut cache, 7, 1, &[1; 3000], gix::objs::Kind::Tree, 11);
        // Evicts the first: its 3,000-byte buffer is kept for later puts,
        // but one of 100 bytes does not take it (it would weigh 3,000).
        DecodeEntry::put(&mut cache, 7, 2, &[2; 2000], gix::objs::Kind::Tree, 11);
        DecodeEntry::put(&mut cache, 7, 3, &[3; 100], gix::objs::Kind::Tree, 11);
        let weight = |cache: &DeltaBaseCache| cache.inner.weight();
        assert!(weight(&cache) < 3000 + 2000, "{}", weight(&cache));
        assert_eq!(get(&mut cache, 3), Some(vec![3; 100]));
        assert_eq!(get(&mut cache, 2), Some(vec![2; 2000]));
    }

    #[test]
    fn a_recycled_buffer_smaller_than_the_object_is_not_grown() {
        let mut cache = DeltaBaseCache::new(1500);
        cache.put(7, 1, Shared::new(vec![1; 1000]), gix::objs::Kind::Tree, 1);
        cache.put(7, 2, Shared::new(vec![2; 1000]), gix::objs::Kind::Tree, 1);
        assert_eq!(cache.spare.list.len(), 1, "the first one's buffer is kept");
        // Growing it would copy what it held: a new one is made instead.
        let big = cache.spare.take(1500).expect("memory");
        assert!(big.capacity() >= 1500);
        assert_eq!(cache.spare.list.len(), 1);
        // One it fits takes it.
        let small = cache.spare.take(900).expect("memory");
        assert!(small.capacity() >= 1000 && small.is_empty());
        assert!(cache.spare.list.is_empty());
        // A size no memory can hold is refused, not an abort.
        assert!(cache.spare.take(usize::MAX).is_none());
    }

    #[test]
    fn a_key_put_again_replaces_what_it_held() {
        let mut cache = DeltaBaseCache::new(1024);
        DecodeEntry::put(&mut cache, 7, 5, b"old", gix::objs::Kind::Tree, 11);
        DecodeEntry::put(&mut cache, 7, 5, b"new bytes", gix::objs::Kind::Tree, 11);
        assert_eq!(get(&mut cache, 5).as_deref(), Some(&b"new bytes"[..]));
        assert_eq!(cache.inner.len(), 1);
    }

    #[test]
    fn a_shared_entry_is_handed_out_itself_not_copied() {
        let mut cache = DeltaBaseCache::new(4096);
        let tree = Shared::new(b"tree bytes".to_vec());
        cache.put(7, 1, Shared::clone(&tree), gix::objs::Kind::Tree, 11);
        let (kind, packed, got) = cache.get(7, 1).expect("held");
        assert_eq!(kind, gix::objs::Kind::Tree);
        assert!(Shared::ptr_eq(&tree, &got), "the same buffer, not a copy");
        assert_eq!(packed, 11);
    }

    #[test]
    fn an_evicted_entry_a_reader_holds_stays_whole_and_is_not_recycled() {
        // Room for one entry of 1,000 bytes at a time.
        let mut cache = DeltaBaseCache::new(1500);
        let held = Shared::new(vec![1; 1000]);
        cache.put(7, 1, Shared::clone(&held), gix::objs::Kind::Tree, 1);
        cache.put(7, 2, Shared::new(vec![2; 1000]), gix::objs::Kind::Tree, 1);
        assert!(!cache.contains(7, 1), "evicted");
        assert_eq!(*held, vec![1; 1000], "still whole for its reader");
        assert!(
            cache.spare.list.is_empty(),
            "a buffer a reader holds is not reused"
        );
        // One no reader holds is kept for the next object.
        cache.put(7, 3, Shared::new(vec![3; 1000]), gix::objs::Kind::Tree, 1);
        assert_eq!(cache.spare.list.len(), 1);
        let buffer = cache.spare.take(1000).expect("memory");
        assert!(buffer.is_empty() && buffer.capacity() >= 1000);
        assert!(cache.spare.list.is_empty(), "the kept buffer was taken");
        assert_eq!(*cache.get(7, 3).expect("held").2, vec![3; 1000]);
    }

    #[test]
    fn what_an_eviction_does_not_keep_is_freed_only_when_let_go() {
        // Room for one entry of 1,000 bytes at a time, the spare list full.
        let mut cache = DeltaBaseCache::new(1500);
        let mut spare = Spare::default();
        for _ in 0..FREE_LIST_MAX {
            spare.list.push(Vec::with_capacity(8));
        }
        let first = Shared::new(vec![1; 1000]);
        let watch = Arc::downgrade(&first);
        let entry = |data| Entry {
            data,
            kind: gix::objs::Kind::Tree,
            compressed_size: 1,
        };
        cache.put_sparing((7, 1), entry(first), &mut spare);
        cache.put_sparing((7, 2), entry(Shared::new(vec![2; 1000])), &mut spare);
        assert!(!cache.contains(7, 1), "evicted");
        // Not kept (the list is full), and not freed under the lock.
        assert_eq!(spare.list.len(), FREE_LIST_MAX);
        assert!(
            watch.upgrade().is_some(),
            "freed while the cache was locked"
        );
        spare.let_go();
        assert!(watch.upgrade().is_none(), "freed once let go");
        assert!(spare.leaving.is_empty());
    }

    /// A delta as git writes one: the base's size, the result's, then
    /// `ops`.
    fn delta(base: usize, result: usize, ops: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for mut n in [base, result] {
            loop {
                let byte = (n & 0x7f) as u8;
                n >>= 7;
                if n == 0 {
                    out.push(byte);
                    break;
                }
                out.push(byte | 0x80);
            }
        }
        out.extend_from_slice(ops);
        out
    }

    fn apply(base: &[u8], instructions: &[u8]) -> Option<Vec<u8>> {
        let mut out = vec![9; 4];
        apply_delta(base, instructions, &mut out).map(|()| out)
    }

    #[test]
    fn a_delta_copies_from_its_base_and_inserts_its_own_bytes() {
        let base = b"hello, world";
        // Copy 5 bytes at 7 ("world"), insert "! ", copy 5 at 0 ("hello").
        let ops = [0x91, 7, 5, 2, b'!', b' ', 0x90, 5];
        assert_eq!(
            apply(base, &delta(12, 12, &ops)).as_deref(),
            Some(&b"world! hello"[..])
        );
    }

    #[test]
    fn offsets_and_sizes_take_the_bytes_their_bits_name() {
        // 300 bytes: a copy at offset 0x0102 (two offset bytes) of 0x0100
        // bytes (the second size byte only).
        let base: Vec<u8> = (0..600u32).map(|n| (n % 251) as u8).collect();
        let ops = [0x80 | 0x01 | 0x02 | 0x20, 0x02, 0x01, 0x01];
        assert_eq!(
            apply(&base, &delta(600, 256, &ops)),
            Some(base[0x0102..0x0202].to_vec())
        );
        // No size byte at all is 0x10000 bytes.
        let big = vec![7u8; 0x10000];
        assert_eq!(
            apply(&big, &delta(0x10000, 0x10000, &[0x80])),
            Some(big.clone())
        );
    }

    #[test]
    fn a_delta_that_does_not_fit_is_refused_not_applied() {
        let base = b"0123456789";
        // The base is not the size the delta names.
        assert_eq!(apply(base, &delta(9, 2, &[0x90, 2])), None);
        // A copy past the base's end.
        assert_eq!(apply(base, &delta(10, 4, &[0x91, 8, 4])), None);
        // More bytes than the result's size, or fewer.
        assert_eq!(apply(base, &delta(10, 1, &[0x90, 2])), None);
        assert_eq!(apply(base, &delta(10, 3, &[0x90, 2])), None);
        // An insert running past the instructions, the reserved op 0, and
        // a size cut short.
        assert_eq!(apply(base, &delta(10, 3, &[3, b'a'])), None);
        assert_eq!(apply(base, &delta(10, 0, &[0])), None);
        assert_eq!(apply(base, &[0x8a]), None);
        // A size longer than any that fits a machine word.
        assert_eq!(apply(base, &[0xff; 12]), None);
    }
}
