//! Merge bases, searched as git searches them (`commit-reach.c`), for the
//! merge rule of decision 0023: every merge a range inspects needs the
//! merge bases of its parents.
//!
//! One [`Bases`] serves every search of a diff thread, and keeps what it
//! has read: a commit is read once, however many merges sit above it.
//! Commits are numbered: a commit the commit-graph holds by its position
//! there (parents, generation and date come from the graph, no object is
//! read; the generation is the commit's corrected commit date where the
//! graph holds those, as git orders by them, else its topological level:
//! src/git/corrected.rs), any other by a number after those, read from
//! the object database once (its first lines only, where they suffice).
//! The marks a search paints are kept in a flat array by number and
//! only the marks it set are cleared after it, so a search costs what it
//! walks, not the size of everything read before (gix's `merge_base`
//! clears the marks of its whole graph twice a search: on git/git, a fifth
//! of a 1,000-commit range's time).
//!
//! Commits the commit-graph does not hold get git's "infinite" generation
//! and are ordered by date among themselves, as git orders them; a
//! commit-graph is closed under ancestry, so no such commit lies below one
//! it holds. A shallow clone's boundary commits have no parents here (git's
//! grafts), and no commit-graph is used there, as `walk` does.
//!
//! Without a commit-graph, a range nothing outside reaches (a whole
//! history) gives its commits levels that serve as generations
//! ([`Bases::with_levels`], decision 0035): its searches stop as a
//! graph's do.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use super::GitError;
use super::walk::Parents;

/// The commit reaches the first tip.
const PARENT1: u8 = 1;
/// The commit reaches one of the other tips.
const PARENT2: u8 = 2;
/// The commit is below a common ancestor already found.
const STALE: u8 = 4;
/// The commit was recorded as a common ancestor.
const RESULT: u8 = 8;
/// The commit waits in the queue.
const ENQUEUED: u8 = 16;

/// How much of a commit a search or the walk inflates: its `tree`,
/// `parent`, `author` and `committer` lines, 288 bytes first, carried on
/// to 384 where the committer line is not whole by then (the same stream,
/// not inflated again); a longer head is read whole. The committer line
/// ends within 288 bytes in 99.85 % of the 85,361 commits of git/git's
/// refs (median 219 bytes; a whole commit some 890) and 96.5 % of
/// moby/moby's 67,279, and within 320 in all of moby's and all but 11 of
/// git/git's. Inflating 384 bytes of each, git/git's cold 1k range took
/// 161.0 ms against 154.0 (30 interleaved runs; moby's unchanged).
pub(super) const COMMIT_HEAD: super::packs::Head = super::packs::Head::Until {
    first: 288,
    most: 384,
    enough: super::walk::head_is_whole,
};

/// The generation of a commit the commit-graph does not hold.
const INFINITY: u64 = u64::MAX;

/// A commit read from the object database.
struct Loose {
    time: i64,
    /// Its level in the range ([`Bases::with_levels`]): 0 without, or
    /// outside the range.
    level: u32,
    parents: Parents,
    /// The parents' numbers, once they are asked for.
    numbered: Option<Box<[u32]>>,
}

/// The merge-base searches of one thread (see the module's comment).
pub(super) struct Bases<'r> {
    repo: &'r gix::Repository,
    /// Commits are read from the packs as trees are, through one mapping.
    packs: &'r std::cell::RefCell<super::packs::Packs>,
    graph: Option<Arc<gix::commitgraph::Graph>>,
    /// The graph's corrected commit dates, read on the first search; `None`
    /// inside when it has none: its topological levels are used
    /// (src/git/corrected.rs).
    corrected: Option<Option<Arc<super::corrected::CorrectedDates>>>,
    /// Where the corrected dates are read once for every reader that
    /// shares this one's graph ([`GraphShare`]).
    dates: Arc<OnceLock<Option<Arc<super::corrected::CorrectedDates>>>>,
    /// How many commits the commit-graph holds: the first number of a
    /// loose commit.
    in_graph: u32,
    shallow: HashSet<gix::ObjectId>,
    /// Commits read from the object database by any reader of this range
    /// or by its walk ([`Heads`]); `None` for a reader on its own.
    heads: Option<Arc<Heads>>,
    /// Without a commit-graph, the levels of a range nothing outside it
    /// reaches (src/git/landing.rs, `Levels`): its commits' generations.
    levels: Option<Arc<super::landing::Levels>>,
    numbers: gix::hashtable::HashMap<gix::ObjectId, u32>,
    loose: Vec<(gix::ObjectId, Loose)>,
    /// The marks of the search under way, by number (grown on demand).
    marks: Vec<u8>,
    /// The numbers whose marks the search set, to clear after it.
    marked: Vec<u32>,
    queued: u64,
    /// Whether the last search queued a commit without a generation the
    /// commit-graph computed: its answer is not kept as a graph's.
    ungraded: bool,
    buf: Vec<u8>,
}

/// A queued commit: highest generation first, then newest, then first
/// queued (git's `compare_commits_by_gen_then_commit_date` on its
/// insertion-stable `prio_queue`).
type Queued = (u64, i64, Reverse<u64>, u32);

/// The commits waiting to be painted, with how many of them are not stale
/// on each side (a commit both sides reach counts on both).
struct Queue {
    heap: BinaryHeap<Queued>,
    fresh: [usize; 2],
}

impl Queue {
    fn count(&mut self, marks: u8, add: bool) {
        if marks & STALE != 0 {
            return;
        }
        for (side, fresh) in [PARENT1, PARENT2].into_iter().zip(&mut self.fresh) {
            if marks & side != 0 {
                if add {
                    *fresh += 1;
                } else {
                    *fresh -= 1;
                }
            }
        }
    }
}

/// A commit-graph mapped once and its corrected dates read once, for
/// readers on several threads (the diff threads of a long range): each
/// reader opening its own mapped the graph again, its pages counted again
/// in the resident memory (11 MiB on git/git), and read the dates again.
#[derive(Clone, Default)]
pub(super) struct GraphShare {
    graph: Option<Arc<gix::commitgraph::Graph>>,
    dates: Arc<OnceLock<Option<Arc<super::corrected::CorrectedDates>>>>,
    heads: Option<Arc<Heads>>,
}

impl GraphShare {
    /// `repo`'s commit-graph, if it has one that reads.
    pub(super) fn open(repo: &gix::Repository) -> GraphShare {
        GraphShare {
            graph: repo.commit_graph_if_enabled().ok().flatten().map(Arc::new),
            dates: Arc::default(),
            heads: None,
        }
    }

    /// This share, its readers also sharing the commits `heads` holds.
    pub(super) fn with_heads(mut self, heads: Option<Arc<Heads>>) -> GraphShare {
        self.heads = heads;
        self
    }
}

/// The date, tree and parents of every commit a range's readers and its
/// walk read from the object database (none the commit-graph holds), as
/// written (a shallow boundary's parents too: each reader drops those
/// itself), and the commit cache those are kept in between runs
/// (src/git/commits_cache.rs). Without a commit-graph, each diff thread's
/// searches read most of the same history below the range, each commit
/// inflated from the packs, and the walk has read the range and the hidden
/// commits near it before them: on git/git's 1k range, 98,878 reads by the
/// searches and 17,140 by the walk, for what one reading of each commit
/// tells. Commits never change, so what one reader put here answers every
/// other.
#[derive(Default)]
pub(super) struct Heads {
    /// What this run read from the objects.
    read: Mutex<super::commits_cache::Read>,
    /// The commit cache's file, `None` for a run that keeps none.
    file: Option<(std::path::PathBuf, gix::hash::Kind)>,
    /// The file as loaded, once this run has read [`LOAD_AFTER`] commits
    /// from the objects.
    table: OnceLock<Option<super::commits_cache::Table>>,
    /// How many commits are read from the objects before the file is
    /// loaded (tests: none).
    load_after: usize,
    /// How many of `read` the last write kept.
    saved: std::sync::atomic::AtomicUsize,
    /// The merge bases this run's searches found without a commit-graph,
    /// and with one ([`Ordered`]).
    dated: Answers,
    graded: Answers,
}

/// The merge bases one kind of search found, by pair
/// (src/git/commits_cache.rs, `BasesTable`).
#[derive(Default)]
struct Answers {
    /// This run's.
    kept: Mutex<gix::hashtable::HashMap<(gix::ObjectId, gix::ObjectId), Vec<gix::ObjectId>>>,
    /// The file as loaded ([`GRAPH_FILE_AFTER`]).
    file: OnceLock<Option<super::commits_cache::BasesTable>>,
    /// How many of `kept` the last write kept.
    saved: std::sync::atomic::AtomicUsize,
    /// How many questions were asked before the file was loaded.
    asked: std::sync::atomic::AtomicUsize,
}

/// How many questions a run asks a commit-graph's searches before it
/// loads their kept answers. With generations a search stops early and
/// costs less than loading the file would (git/git's: 388 KB, read and
/// checked whole) for the few a push asks; a long range asks thousands.
/// A date-ordered search paints down to the roots, so its file is loaded
/// at the first question.
const GRAPH_FILE_AFTER: usize = 64;

use super::commits_cache::Ordered;

pub(super) use super::commits_cache::Head;

/// How many commits a run reads from the objects before it loads the
/// commit cache: loading and checking git/git's (6.65 MB) takes some 11 ms,
/// which a short range (a push of a few commits, whose walk reads a
/// handful below them) would pay for nothing; 256 commits read cost about
/// 1.5 ms, and a search that needs the cache reads tens of thousands.
const LOAD_AFTER: usize = 256;

impl Heads {
    /// A record kept in the commit cache `file` of `hash`'s ids between runs.
    pub(super) fn kept_in(file: Option<std::path::PathBuf>, hash: gix::hash::Kind) -> Heads {
        Heads {
            file: file.map(|file| (file, hash)),
            load_after: LOAD_AFTER,
            ..Heads::default()
        }
    }

    /// This record, loading its file at the first commit not read yet.
    #[cfg(test)]
    fn loading_at_once(mut self) -> Heads {
        self.load_after = 0;
        self
    }

    /// What was read of commit `id`, by this run or one before it.
    pub(super) fn get(&self, id: &gix::ObjectId) -> Option<Head> {
        {
            let read = self
                .read
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if let Some(head) = read.get(id) {
                return Some(head);
            }
            if self.table.get().is_none() && read.len() < self.load_after {
                return None;
            }
        }
        let table = self.table.get_or_init(|| {
            let (file, hash) = self.file.as_ref()?;
            super::commits_cache::load(file, *hash)
        });
        table.as_ref()?.get(id)
    }

    /// Keep commit `id`'s date, tree and parents (as written) for every
    /// reader.
    pub(super) fn put(
        &self,
        id: gix::ObjectId,
        time: i64,
        tree: gix::ObjectId,
        parents: &[gix::ObjectId],
    ) {
        self.read
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .put(id, time, tree, parents);
    }

    /// The answers `order`'s searches found.
    fn answers(&self, order: Ordered) -> &Answers {
        match order {
            Ordered::Dates => &self.dated,
            Ordered::Generations => &self.graded,
        }
    }

    /// The merge bases of `one` and `other` a search ordered as `order`
    /// found, in this run or one before it; `None` without a cache to keep
    /// them. With `graph`, the searches stop on a commit-graph's
    /// generations and read no object: a file of generation-ordered
    /// answers is loaded only after [`GRAPH_FILE_AFTER`] questions. A
    /// search ordered by a range's levels reads its commits, so that file
    /// is loaded at the first question.
    fn answer(
        &self,
        order: Ordered,
        one: &gix::ObjectId,
        other: &gix::ObjectId,
        graph: bool,
    ) -> Option<Vec<gix::ObjectId>> {
        let (file, hash) = self.file.as_ref()?;
        let answers = self.answers(order);
        {
            let kept = answers
                .kept
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if let Some(bases) = kept.get(&(*one, *other)) {
                return Some(bases.clone());
            }
        }
        if order == Ordered::Generations
            && graph
            && answers.file.get().is_none()
            && answers
                .asked
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                < GRAPH_FILE_AFTER
        {
            return None;
        }
        let table = answers.file.get_or_init(|| {
            let file =
                super::commits_cache::bases_file_in(file.parent()?, hash.len_in_bytes(), order)?;
            let table = super::commits_cache::load_bases(&file, *hash, order)?;
            // What this run searched before the file was loaded and the
            // file holds is not new: no write for it. What is left, the
            // file does not hold, whatever an earlier write of this run
            // counted as saved.
            answers
                .kept
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .retain(|(one, other), _| table.get(one, other).is_none());
            answers.saved.store(0, std::sync::atomic::Ordering::Relaxed);
            Some(table)
        });
        table.as_ref()?.get(one, other)
    }

    /// Keep what a search ordered as `order` found for `one` and `other`.
    fn answered(
        &self,
        order: Ordered,
        one: gix::ObjectId,
        other: gix::ObjectId,
        bases: &[gix::ObjectId],
    ) {
        if self.file.is_none() {
            return;
        }
        let mut kept = self
            .answers(order)
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        kept.entry((one, other)).or_insert_with(|| bases.to_vec());
    }

    /// How many commits this run read from the objects.
    pub(super) fn read_from_objects(&self) -> usize {
        self.read
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .len()
    }

    /// Write what this run read to the commit cache, when it read enough
    /// the cache did not hold to be worth it
    /// ([`WORTH_WRITING`](super::commits_cache::WORTH_WRITING)), and the
    /// merge bases its date-ordered searches found beside it; whether it
    /// wrote either.
    pub(super) fn save(&self) -> bool {
        let commits = self.save_commits();
        let answers = self.save_answers();
        commits || answers
    }

    /// The commits' part of [`save`](Self::save).
    fn save_commits(&self) -> bool {
        let Some((file, hash)) = &self.file else {
            return false;
        };
        let added = {
            let read = self
                .read
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if read.len()
                < self.saved.load(std::sync::atomic::Ordering::Relaxed)
                    + super::commits_cache::WORTH_WRITING
            {
                return false;
            }
            read.to_write()
        };
        self.saved
            .store(added.len(), std::sync::atomic::Ordering::Relaxed);
        let loaded = self.table.get().and_then(Option::as_ref);
        super::commits_cache::save(file, *hash, loaded, added)
    }

    /// Write this run's merge bases beside the commits, each search's in
    /// its own file, when enough are new
    /// ([`BASES_WORTH_WRITING`](super::commits_cache::BASES_WORTH_WRITING)).
    fn save_answers(&self) -> bool {
        let mut wrote = false;
        for order in [Ordered::Dates, Ordered::Generations] {
            wrote |= self.save_answers_of(order);
        }
        wrote
    }

    fn save_answers_of(&self, order: Ordered) -> bool {
        let Some((file, hash)) = &self.file else {
            return false;
        };
        let Some(bases_file) = file
            .parent()
            .and_then(|dir| super::commits_cache::bases_file_in(dir, hash.len_in_bytes(), order))
        else {
            return false;
        };
        let answers = self.answers(order);
        let Some(added) = new_since(
            &answers.kept,
            &answers.saved,
            super::commits_cache::BASES_WORTH_WRITING,
        ) else {
            return false;
        };
        let loaded = answers.file.get().and_then(Option::as_ref);
        super::commits_cache::save_bases(&bases_file, *hash, order, loaded, added)
    }
}

/// Everything `kept` holds, when it holds at least `worth` more than at the
/// last write (`saved`, then moved on): what was read stays in memory for
/// the rest of the run (the file as loaded does not hold it), and a later
/// write is worth it only for as many more.
fn new_since<K: Copy + Eq + std::hash::Hash, V: Clone>(
    kept: &Mutex<gix::hashtable::HashMap<K, V>>,
    saved: &std::sync::atomic::AtomicUsize,
    worth: usize,
) -> Option<Vec<(K, V)>> {
    let kept = kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if kept.len() < saved.load(std::sync::atomic::Ordering::Relaxed) + worth {
        return None;
    }
    saved.store(kept.len(), std::sync::atomic::Ordering::Relaxed);
    Some(kept.iter().map(|(k, v)| (*k, v.clone())).collect())
}

impl<'r> Bases<'r> {
    /// Searches over `repo`'s history; `shallow` the boundary commits of a
    /// shallow clone (empty in a full one).
    pub(super) fn new(
        repo: &'r gix::Repository,
        packs: &'r std::cell::RefCell<super::packs::Packs>,
        shallow: HashSet<gix::ObjectId>,
    ) -> Self {
        let share = if shallow.is_empty() {
            GraphShare::open(repo)
        } else {
            GraphShare::default()
        };
        Bases::sharing(repo, packs, shallow, share)
    }

    /// [`new`](Self::new), with the graph and dates of `share` (none in a
    /// shallow clone, as `new` opens none there).
    pub(super) fn sharing(
        repo: &'r gix::Repository,
        packs: &'r std::cell::RefCell<super::packs::Packs>,
        shallow: HashSet<gix::ObjectId>,
        share: GraphShare,
    ) -> Self {
        let graph = share.graph.filter(|_| shallow.is_empty());
        let in_graph = graph.as_ref().map_or(0, |g| g.num_commits());
        Bases {
            repo,
            packs,
            graph,
            corrected: None,
            dates: share.dates,
            in_graph,
            shallow,
            heads: share.heads,
            levels: None,
            numbers: Default::default(),
            loose: Vec::new(),
            marks: Vec::new(),
            marked: Vec::new(),
            queued: 0,
            ungraded: false,
            buf: Vec::new(),
        }
    }

    /// The merge bases of `one` and `others` (`git merge-base --all one
    /// others…`), newest first: empty when they share no commit. `context`
    /// names what the search is for in errors.
    pub(super) fn merge_bases(
        &mut self,
        one: gix::ObjectId,
        others: &[gix::ObjectId],
        context: &dyn Fn() -> String,
    ) -> Result<Vec<gix::ObjectId>, GitError> {
        self.read_corrected_dates();
        // Ordered by date alone (no commit-graph) in a full clone, or by
        // the graph's generations between two commits it grades, a
        // search's answer is a function of the commits alone: one found
        // before is kept, each kind apart (src/git/commits_cache.rs,
        // `Ordered`).
        let memo = self.memo(&one, others);
        if let Some((heads, other, order)) = &memo
            && let Some(bases) = heads.answer(*order, &one, other, self.graph.is_some())
        {
            return Ok(bases);
        }
        self.ungraded = false;
        let bases = self.search(one, others, context)?;
        // A graph's search that met a commit without a computed generation
        // (a layer written before generations were), or one by a range's
        // levels that left the range, ordered part of its walk by date: its
        // answer is not kept.
        if let Some((heads, other, order)) = memo
            && (order == Ordered::Dates || !self.ungraded)
        {
            heads.answered(order, one, other, &bases);
        }
        Ok(bases)
    }

    /// The answer a search for `one` and `other` found in an earlier run
    /// and kept ([`merge_bases`](Self::merge_bases)), without searching:
    /// `None` where none is kept.
    pub(super) fn kept(
        &mut self,
        one: gix::ObjectId,
        other: gix::ObjectId,
    ) -> Option<Vec<gix::ObjectId>> {
        self.read_corrected_dates();
        let (heads, other, order) = self.memo(&one, &[other])?;
        heads.answer(order, &one, &other, self.graph.is_some())
    }

    /// Where a search for `one` and `others` keeps its answer: the record,
    /// the other commit and the kind of order; `None` where it is not
    /// kept (several others, a shallow clone, mixed orders).
    fn memo(
        &self,
        one: &gix::ObjectId,
        others: &[gix::ObjectId],
    ) -> Option<(Arc<Heads>, gix::ObjectId, Ordered)> {
        match (&self.heads, others) {
            (Some(heads), [other]) if self.shallow.is_empty() => self
                .kept_as(one, other)
                .map(|order| (heads.clone(), *other, order)),
            _ => None,
        }
    }

    /// How the answer for `one` and `other` is kept: by date without a
    /// commit-graph; by generation where the graph holds both with
    /// generations it computed (so it holds all below them, graded too),
    /// or without one, where the range's levels hold both (so nothing
    /// outside the range reaches them, and the search is ordered as a
    /// graph's); not at all where the graph or the levels hold one and not
    /// the other, whose search mixes the two orders.
    fn kept_as(&self, one: &gix::ObjectId, other: &gix::ObjectId) -> Option<Ordered> {
        let Some(graph) = &self.graph else {
            let Some(levels) = &self.levels else {
                return Some(Ordered::Dates);
            };
            return match (levels.get(one) > 0, levels.get(other) > 0) {
                (true, true) => Some(Ordered::Generations),
                (false, false) => Some(Ordered::Dates),
                _ => None,
            };
        };
        let graded = |id: &gix::ObjectId| {
            graph
                .lookup(id)
                .is_some_and(|at| self.graded(self.generation(at.0)))
        };
        (graded(one) && graded(other)).then_some(Ordered::Generations)
    }

    /// [`merge_bases`](Self::merge_bases), searched.
    fn search(
        &mut self,
        one: gix::ObjectId,
        others: &[gix::ObjectId],
        context: &dyn Fn() -> String,
    ) -> Result<Vec<gix::ObjectId>, GitError> {
        let first = self.number(one, context)?;
        let mut twos = Vec::with_capacity(others.len());
        for &other in others {
            twos.push(self.number(other, context)?);
        }
        // git: one of the others is the first tip itself.
        if twos.contains(&first) {
            return Ok(vec![one]);
        }
        let found = self.paint(first, &twos, 0, context);
        let found = found.map(|found| {
            found
                .into_iter()
                .filter(|&n| self.mark(n) & STALE == 0)
                .collect::<Vec<_>>()
        });
        self.clear();
        let mut bases = found?;
        if bases.len() > 1 {
            bases = self.remove_redundant(&bases, context)?;
        }
        Ok(bases.into_iter().map(|n| self.id(n)).collect())
    }

    /// Of `candidates` (common ancestors of two commits, a merge base
    /// among them), those no other one reaches: the merge bases, as git's
    /// `remove_redundant_with_gen` finds them. One walk down from the
    /// candidates' parents, each commit once, never below the lowest
    /// candidate's generation (no path from one candidate to another goes
    /// lower); a candidate it meets sits below another. `None` when a
    /// candidate has no generation to stop on (no commit-graph holds it,
    /// nor the range's levels): the caller then searches.
    pub(super) fn reduce(
        &mut self,
        candidates: &[gix::ObjectId],
        context: &dyn Fn() -> String,
    ) -> Result<Option<Vec<gix::ObjectId>>, GitError> {
        if !self.shallow.is_empty() {
            return Ok(None);
        }
        self.read_corrected_dates();
        let mut numbered = Vec::with_capacity(candidates.len());
        for &id in candidates {
            let n = self.number(id, context)?;
            if !self.graded(self.generation(n)) {
                return Ok(None);
            }
            numbered.push(n);
        }
        let min_generation = numbered
            .iter()
            .map(|&n| self.generation(n))
            .min()
            .unwrap_or(0);
        let walked = (|| {
            let mut stack = Vec::new();
            let mut parents = Vec::new();
            for &n in &numbered {
                parents.clear();
                self.parents(n, &mut parents, context)?;
                stack.extend_from_slice(&parents);
            }
            while let Some(n) = stack.pop() {
                if self.mark(n) & STALE != 0 || self.generation(n) < min_generation {
                    continue;
                }
                self.set(n, STALE);
                parents.clear();
                self.parents(n, &mut parents, context)?;
                stack.extend_from_slice(&parents);
            }
            Ok(())
        })();
        let kept: Vec<u32> = numbered
            .iter()
            .copied()
            .filter(|&n| self.mark(n) & STALE == 0)
            .collect();
        self.clear();
        walked?;
        Ok(Some(kept.into_iter().map(|n| self.id(n)).collect()))
    }

    /// Of `unsettled`, candidates for merge bases below a range that no
    /// candidate reaches through it (src/git/landing.rs, `Several`), those
    /// no other candidate reaches: one walk down from `frontier` (where the
    /// range's candidates leave it) and the unsettled ones' parents, newest
    /// first, each commit once. It stops once every one is reached, or,
    /// when no other candidate is a base (`alone`), once one is left: one
    /// of them is a base. Exact in any order, dates only choose what is
    /// read first. `None` once it has walked `budget` commits with neither:
    /// the caller then searches.
    pub(super) fn settle(
        &mut self,
        unsettled: &[gix::ObjectId],
        frontier: &[gix::ObjectId],
        alone: bool,
        budget: usize,
        context: &dyn Fn() -> String,
    ) -> Result<Option<Vec<gix::ObjectId>>, GitError> {
        self.walk_to(unsettled, frontier, true, alone, budget, context)
    }

    /// Whether `from` reaches every one of `targets` (src/git/landing.rs,
    /// `Asked`): one walk down from `from`, newest first, each commit once,
    /// stopping once every one is reached. `None` once it has walked
    /// `budget` commits without: the caller then searches.
    pub(super) fn reaches_all(
        &mut self,
        targets: &[gix::ObjectId],
        from: &[gix::ObjectId],
        budget: usize,
        context: &dyn Fn() -> String,
    ) -> Result<Option<bool>, GitError> {
        let left = self.walk_to(targets, from, false, false, budget, context)?;
        Ok(left.map(|left| left.is_empty()))
    }

    /// Of `targets`, those a walk down from `from` (and, with
    /// `parents_too`, from the targets' own parents) does not reach: newest first, each
    /// commit once, until every target is reached, or with `alone` one is
    /// left; `None` past `budget` commits.
    fn walk_to(
        &mut self,
        targets: &[gix::ObjectId],
        from: &[gix::ObjectId],
        parents_too: bool,
        alone: bool,
        budget: usize,
        context: &dyn Fn() -> String,
    ) -> Result<Option<Vec<gix::ObjectId>>, GitError> {
        let walked = (|| {
            let mut numbered = Vec::with_capacity(targets.len());
            for &id in targets {
                numbered.push(self.number(id, context)?);
            }
            let targets = numbered;
            let mut left = targets.len();
            let mut queue: BinaryHeap<(i64, u32)> = BinaryHeap::new();
            let mut parents = Vec::new();
            // Mark `n` reached and queue it, once.
            fn reach(
                this: &mut Bases<'_>,
                n: u32,
                targets: &[u32],
                left: &mut usize,
                queue: &mut BinaryHeap<(i64, u32)>,
            ) {
                if this.mark(n) & STALE == 0 {
                    this.set(n, STALE);
                    if targets.contains(&n) {
                        *left -= 1;
                    }
                    queue.push((this.time(n), n));
                }
            }
            for &id in from {
                let n = self.number(id, context)?;
                reach(self, n, &targets, &mut left, &mut queue);
            }
            if parents_too {
                for &t in &targets {
                    parents.clear();
                    self.parents(t, &mut parents, context)?;
                    for &p in &parents {
                        reach(self, p, &targets, &mut left, &mut queue);
                    }
                }
            }
            let mut walked = 0;
            while left > 0 && !(alone && left == 1) {
                let Some((_, n)) = queue.pop() else {
                    break;
                };
                if walked == budget {
                    return Ok(None);
                }
                walked += 1;
                parents.clear();
                self.parents(n, &mut parents, context)?;
                for &p in &parents {
                    reach(self, p, &targets, &mut left, &mut queue);
                }
            }
            Ok(Some(
                targets
                    .iter()
                    .filter(|&&n| self.mark(n) & STALE == 0)
                    .map(|&n| self.id(n))
                    .collect(),
            ))
        })();
        self.clear();
        walked
    }

    /// git's `paint_down_to_common`: the common ancestors of `one` and
    /// `twos` reached before any older one, newest first, marks left set
    /// for the caller to read and clear. Stops below `min_generation`.
    ///
    /// A commit is queued once, its marks growing while it waits (as gix
    /// queues), and the queue counts the commits it holds that are not
    /// stale, for each side. git walks on while any is not stale; with the
    /// commit-graph's generations (children always before parents) the walk
    /// also stops once one side has none left, as gix's does: no commit
    /// can then gain both sides' marks without being stale, and the
    /// ancestors of the first tip's branch below the last base are not
    /// walked. On git/git that is most of a merge's search: its first
    /// parent's history down to a topic's old base.
    fn paint(
        &mut self,
        one: u32,
        twos: &[u32],
        min_generation: u64,
        context: &dyn Fn() -> String,
    ) -> Result<Vec<u32>, GitError> {
        let mut queue = Queue {
            heap: BinaryHeap::new(),
            fresh: [0; 2],
        };
        let mut found: Vec<u32> = Vec::new();
        self.enqueue(&mut queue, one, PARENT1);
        for &two in twos {
            self.enqueue(&mut queue, two, PARENT2);
        }
        let mut parents = Vec::new();
        while let Some((generation, n)) = self.dequeue(&mut queue) {
            if generation < min_generation {
                break;
            }
            let mut flags = self.mark(n) & (PARENT1 | PARENT2 | STALE);
            if flags == PARENT1 | PARENT2 {
                if self.mark(n) & RESULT == 0 {
                    self.set(n, RESULT);
                    found.push(n);
                }
                // The parents of a common ancestor are stale.
                flags |= STALE;
            }
            parents.clear();
            self.parents(n, &mut parents, context)?;
            for &p in &parents {
                if self.mark(p) & flags != flags {
                    self.enqueue(&mut queue, p, flags);
                }
            }
        }
        // git keeps the list by date, newest first (ties: first found first).
        found.sort_by_key(|&n| Reverse(self.time(n)));
        Ok(found)
    }

    /// Add `flags` to commit `n`'s marks and queue it unless it waits
    /// already, keeping the queue's counts.
    fn enqueue(&mut self, queue: &mut Queue, n: u32, flags: u8) {
        let before = self.mark(n);
        if before & ENQUEUED != 0 {
            queue.count(before, false);
        } else {
            self.queued += 1;
            let (generation, time) = self.key(n);
            self.ungraded |= !self.graded(generation);
            queue.heap.push((generation, time, Reverse(self.queued), n));
            self.set(n, ENQUEUED);
        }
        self.set(n, flags);
        queue.count(self.mark(n), true);
    }

    /// The next commit to paint, or `None` when the walk is over (see
    /// [`paint`](Self::paint)). Its counts are dropped only after the test,
    /// so a last candidate is still painted.
    fn dequeue(&mut self, queue: &mut Queue) -> Option<(u64, u32)> {
        let (generation, _, _, n) = queue.heap.pop()?;
        if queue.fresh == [0, 0] || (queue.fresh.contains(&0) && self.graded(generation)) {
            return None;
        }
        let marks = self.mark(n);
        queue.count(marks, false);
        self.marks[n as usize] = marks & !ENQUEUED;
        Some((generation, n))
    }

    /// git's `remove_redundant`: of `candidates`, those no other one
    /// reaches, in their order.
    fn remove_redundant(
        &mut self,
        candidates: &[u32],
        context: &dyn Fn() -> String,
    ) -> Result<Vec<u32>, GitError> {
        let mut redundant = vec![false; candidates.len()];
        for i in 0..candidates.len() {
            if redundant[i] {
                continue;
            }
            let mut min_generation = self.generation(candidates[i]);
            let mut others = Vec::with_capacity(candidates.len() - 1);
            let mut at = Vec::with_capacity(candidates.len() - 1);
            for (j, &c) in candidates.iter().enumerate() {
                if i == j || redundant[j] {
                    continue;
                }
                others.push(c);
                at.push(j);
                min_generation = min_generation.min(self.generation(c));
            }
            let painted = self.paint(candidates[i], &others, min_generation, context);
            if painted.is_ok() {
                if self.mark(candidates[i]) & PARENT2 != 0 {
                    redundant[i] = true;
                }
                for (k, &c) in others.iter().enumerate() {
                    if self.mark(c) & PARENT1 != 0 {
                        redundant[at[k]] = true;
                    }
                }
            }
            self.clear();
            painted?;
        }
        Ok(candidates
            .iter()
            .zip(&redundant)
            .filter(|(_, r)| !**r)
            .map(|(&c, _)| c)
            .collect())
    }

    fn mark(&self, n: u32) -> u8 {
        self.marks.get(n as usize).copied().unwrap_or(0)
    }

    fn set(&mut self, n: u32, flags: u8) {
        let i = n as usize;
        if i >= self.marks.len() {
            self.marks.resize(i + 1, 0);
        }
        if self.marks[i] == 0 {
            self.marked.push(n);
        }
        self.marks[i] |= flags;
    }

    /// Clear every mark the last search set.
    fn clear(&mut self) {
        for n in self.marked.drain(..) {
            self.marks[n as usize] = 0;
        }
    }

    fn graph_commit(&self, n: u32) -> Option<gix::commitgraph::file::Commit<'_>> {
        if n < self.in_graph {
            let graph = self.graph.as_ref()?;
            Some(graph.commit_at(gix::commitgraph::Position(n)))
        } else {
            None
        }
    }

    fn loose(&self, n: u32) -> &Loose {
        &self.loose[(n - self.in_graph) as usize].1
    }

    fn generation(&self, n: u32) -> u64 {
        self.key(n).0
    }

    /// Commit `n`'s generation and committer date: its corrected commit
    /// date where the graph has them, else its topological level; for a
    /// commit the graph does not hold, [`INFINITY`]. Without a graph but
    /// with the range's levels, its level there (0, not graded, outside
    /// it: below every commit of the range, which none of those reaches).
    fn key(&self, n: u32) -> (u64, i64) {
        if self.levels.is_some() {
            let loose = self.loose(n);
            return (u64::from(loose.level), loose.time);
        }
        match self.graph_commit(n) {
            Some(c) => {
                let date = c.committer_timestamp();
                let generation = match &self.corrected {
                    Some(Some(dates)) => dates.at(n, date),
                    _ => u64::from(c.generation()),
                };
                (generation, i64::try_from(date).unwrap_or(i64::MAX))
            }
            None => (INFINITY, self.loose(n).time),
        }
    }

    /// Whether `generation` is a number the commit-graph computed (git's
    /// "graded"): a search may stop on it. A commit the graph does not
    /// hold has none; nor, in a graph of levels, one whose level is zero
    /// (written before levels were) or past what a level can say.
    fn graded(&self, generation: u64) -> bool {
        match &self.corrected {
            Some(Some(_)) => generation > 0 && generation != INFINITY,
            _ => generation > 0 && generation < u64::from(gix::commitgraph::GENERATION_NUMBER_MAX),
        }
    }

    /// The commit-graph's topological levels of `ids`, each `None` where
    /// the graph does not hold the commit or gives it no level. A commit
    /// that reaches another has the higher level, so a level at most
    /// another's proves a commit does not reach that one. Levels, not
    /// corrected dates: those need the graph's commit list read and
    /// compared first (src/git/corrected.rs), which a search pays once and
    /// a single question should not.
    pub(super) fn levels_of(&self, ids: &[gix::ObjectId]) -> Vec<Option<u32>> {
        ids.iter()
            .map(|id| {
                let graph = self.graph.as_ref()?;
                let level = graph.commit_at(graph.lookup(id)?).generation();
                (level > 0 && level < gix::commitgraph::GENERATION_NUMBER_MAX).then_some(level)
            })
            .collect()
    }

    /// The committer dates of `ids`: from the commit-graph where it holds
    /// them, else from the commits this range's readers read ([`Heads`])
    /// or from the objects; `None` for a commit that cannot be read.
    pub(super) fn dates_of(&mut self, ids: &[gix::ObjectId]) -> Vec<Option<i64>> {
        let context = || "reading committer dates".to_owned();
        ids.iter()
            .map(|&id| self.number(id, &context).ok().map(|n| self.time(n)))
            .collect()
    }

    /// The tree of commit `id`, where the commit-graph or the commits this
    /// range's readers read ([`Heads`]) hold it.
    pub(super) fn tree_of(&self, id: gix::ObjectId) -> Option<gix::ObjectId> {
        if let Some(graph) = &self.graph
            && let Some(position) = graph.lookup(id)
        {
            return Some(graph.commit_at(position).root_tree_id().to_owned());
        }
        self.heads.as_ref()?.get(&id).map(|head| head.tree)
    }

    /// Order this reader's searches by `levels`, the levels of the range
    /// its searches are for (src/git/landing.rs, `Levels`), where it has
    /// no commit-graph: they stop as early as with a graph's generations.
    /// The commits it read before get theirs too.
    pub(super) fn with_levels(&mut self, levels: &Arc<super::landing::Levels>) {
        if self.graph.is_some() || self.levels.is_some() {
            return;
        }
        for (id, loose) in &mut self.loose {
            loose.level = levels.get(id);
        }
        self.levels = Some(levels.clone());
    }

    /// This reader, sharing the commits `heads` holds ([`Heads`]).
    pub(super) fn with_heads(mut self, heads: Option<Arc<Heads>>) -> Self {
        self.heads = heads;
        self
    }

    /// This reader, its searches ordered by the commit-graph's levels
    /// even where it holds corrected dates: for a single question, which
    /// should not pay for reading and comparing the graph's commit list.
    pub(super) fn levels_only(mut self) -> Self {
        self.corrected = Some(None);
        self
    }

    /// What this reader's searches order by: `"corrected dates"`,
    /// `"levels"`, or `"none"` without a commit-graph (for tests).
    pub(super) fn generations(&mut self) -> &'static str {
        self.read_corrected_dates();
        match (&self.graph, &self.corrected) {
            (None, _) => "none",
            (Some(_), Some(Some(_))) => "corrected dates",
            (Some(_), _) => "levels",
        }
    }

    /// Read the graph's corrected commit dates, once, before the first
    /// search: every search of this reader orders by the same numbers.
    fn read_corrected_dates(&mut self) {
        if self.corrected.is_some() {
            return;
        }
        let dates = self.dates.get_or_init(|| {
            self.graph.as_ref().and_then(|graph| {
                let info = self.repo.objects.store_ref().path().join("info");
                super::corrected::CorrectedDates::load(&info, graph).map(Arc::new)
            })
        });
        self.corrected = Some(dates.clone());
    }

    fn time(&self, n: u32) -> i64 {
        self.key(n).1
    }

    fn id(&self, n: u32) -> gix::ObjectId {
        match (&self.graph, n < self.in_graph) {
            (Some(graph), true) => graph.id_at(gix::commitgraph::Position(n)).to_owned(),
            _ => self.loose[(n - self.in_graph) as usize].0,
        }
    }

    /// The number of commit `id`, reading it when the commit-graph does not
    /// hold it and it was not read before.
    fn number(&mut self, id: gix::ObjectId, context: &dyn Fn() -> String) -> Result<u32, GitError> {
        if let Some(graph) = &self.graph
            && let Some(pos) = graph.lookup(id)
        {
            return Ok(pos.0);
        }
        if let Some(&n) = self.numbers.get(&id) {
            return Ok(n);
        }
        let (time, parents) = match self.heads.as_ref().and_then(|heads| heads.get(&id)) {
            Some(head) => (head.time, head.parents),
            None => {
                let (time, tree, parents) = self.read(id, context)?;
                if let Some(heads) = &self.heads {
                    heads.put(id, time, tree, &parents);
                }
                (time, parents)
            }
        };
        // A shallow clone's boundary has no parents here (git's grafts).
        let parents = if self.shallow.contains(&id) {
            Parents::new()
        } else {
            parents
        };
        let loose = Loose {
            time,
            level: self.levels.as_ref().map_or(0, |levels| levels.get(&id)),
            parents,
            numbered: None,
        };
        let n = self.in_graph + u32::try_from(self.loose.len()).unwrap_or(u32::MAX);
        self.loose.push((id, loose));
        self.numbers.insert(id, n);
        Ok(n)
    }

    /// The parents of commit `n`, appended to `out`.
    fn parents(
        &mut self,
        n: u32,
        out: &mut Vec<u32>,
        context: &dyn Fn() -> String,
    ) -> Result<(), GitError> {
        if let Some(commit) = self.graph_commit(n) {
            for parent in commit.iter_parents() {
                let pos = parent.map_err(|err| {
                    GitError::other(
                        context(),
                        format_args!("reading a commit's parents from the commit-graph: {err}"),
                    )
                })?;
                out.push(pos.0);
            }
            return Ok(());
        }
        let i = (n - self.in_graph) as usize;
        if let Some(numbered) = &self.loose[i].1.numbered {
            out.extend_from_slice(numbered);
            return Ok(());
        }
        let ids = self.loose[i].1.parents.clone();
        let mut numbered = Vec::with_capacity(ids.len());
        for id in ids.iter() {
            numbered.push(self.number(*id, context)?);
        }
        out.extend_from_slice(&numbered);
        self.loose[i].1.numbered = Some(numbered.into_boxed_slice());
        Ok(())
    }

    /// Commit `id`'s date, tree and parents from the object database, as
    /// written.
    fn read(
        &mut self,
        id: gix::ObjectId,
        context: &dyn Fn() -> String,
    ) -> Result<(i64, gix::ObjectId, Parents), GitError> {
        let objects = super::packs::Objects::new(self.repo, self.packs);
        let (time, tree, parents) = read_dated_parents(&objects, id, &mut self.buf, context)?;
        Ok((time, tree, Parents::from_vec(parents)))
    }
}

/// Commit `id`'s committer date, tree and parents (as written) from
/// `objects`: its first lines where they are whole (most commits: the
/// message, some two thirds of a commit, is not inflated), else the whole
/// commit. `buf` is the reader's to reuse.
pub(super) fn read_dated_parents(
    objects: &super::packs::Objects<'_>,
    id: gix::ObjectId,
    buf: &mut Vec<u8>,
    context: &dyn Fn() -> String,
) -> Result<(i64, gix::ObjectId, Vec<gix::ObjectId>), GitError> {
    let read_error =
        |err: gix::Error| GitError::other(context(), format_args!("reading commit {id}: {err}"));
    // The first lines are enough where they are whole (most commits:
    // the message, some two thirds of a commit, is not inflated).
    let (kind, whole) = match objects.find_head(&id, buf, COMMIT_HEAD) {
        Ok(Some(found)) => found,
        Ok(None) => return Err(GitError::MissingObject { id: id.to_string() }),
        Err(err) => return Err(read_error(err)),
    };
    if kind != gix::objs::Kind::Commit {
        return Err(GitError::other(
            context(),
            format_args!("{id} is a {kind}, not a commit"),
        ));
    }
    let head = super::walk::head_dated_parents(buf, id.kind());
    let (time, tree, parents) = match head {
        Some(read) => read,
        None => {
            if !whole {
                gix::objs::Find::try_find(objects, &id, buf)
                    .map_err(read_error)?
                    .ok_or_else(|| GitError::MissingObject { id: id.to_string() })?;
            }
            super::walk::decode_dated_parents(buf, id.kind()).map_err(|err| {
                GitError::other(context(), format_args!("decoding commit {id}: {err}"))
            })?
        }
    };
    Ok((time, tree, parents))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> gix::ObjectId {
        gix::ObjectId::from_bytes_or_panic(&[n; 20])
    }

    /// Commit `n` at `time` with `parents`, its tree `n + 100`.
    fn put(heads: &Heads, n: u8, time: i64, parents: &[u8]) {
        let parents: Vec<gix::ObjectId> = parents.iter().map(|&p| id(p)).collect();
        heads.put(id(n), time, id(n + 100), &parents);
    }

    #[test]
    fn what_one_reader_put_answers_every_other_and_the_first_read_stays() {
        let heads = Heads::default();
        assert!(heads.get(&id(1)).is_none());
        put(&heads, 1, 100, &[2, 3]);
        // Commits never change: a second put of the same commit is the same
        // read and keeps the first.
        put(&heads, 1, 7, &[]);
        let head = heads.get(&id(1)).expect("put");
        assert_eq!((head.time, head.tree), (100, id(101)));
        assert_eq!(head.parents.as_slice(), &[id(2), id(3)]);
        assert_eq!(heads.read_from_objects(), 1);
        // No file: nothing is saved.
        assert!(!heads.save());
    }

    /// A reader sharing [`Heads`] takes a commit from there and reads no
    /// object: the commits here are in no object database (the repository
    /// is empty), so a search over them succeeds only from what was put,
    /// and the same search by a reader on its own fails on the first one.
    #[test]
    fn a_search_takes_what_another_reader_read_and_reads_no_object() {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = gix::init_bare(dir.path()).expect("init");
        let packs = std::cell::RefCell::new(super::super::packs::Packs::new(&repo, 1 << 20));
        // 1 <- 2 <- 3, 2 <- 4: the merge base of 3 and 4 is 2.
        let heads = Arc::new(Heads::default());
        put(&heads, 1, 10, &[]);
        put(&heads, 2, 20, &[1]);
        put(&heads, 3, 30, &[2]);
        put(&heads, 4, 40, &[2]);
        let context = || "the test".to_owned();
        let mut shared = Bases::new(&repo, &packs, HashSet::new()).with_heads(Some(heads.clone()));
        assert_eq!(
            shared
                .merge_bases(id(3), &[id(4)], &context)
                .expect("bases"),
            vec![id(2)]
        );
        assert_eq!(
            heads.read_from_objects(),
            4,
            "nothing read besides what was put"
        );
        let mut alone = Bases::new(&repo, &packs, HashSet::new());
        assert!(matches!(
            alone.merge_bases(id(3), &[id(4)], &context),
            Err(GitError::MissingObject { .. })
        ));
        // A shallow boundary's parents are dropped by the reader, not by
        // what is shared: 5 and 6 share 1, unless 5 is a boundary.
        put(&heads, 5, 50, &[1]);
        put(&heads, 6, 60, &[1]);
        let mut full = Bases::new(&repo, &packs, HashSet::new()).with_heads(Some(heads.clone()));
        assert_eq!(
            full.merge_bases(id(5), &[id(6)], &context).expect("bases"),
            vec![id(1)]
        );
        let shallow: HashSet<gix::ObjectId> = [id(5)].into_iter().collect();
        let mut grafted = Bases::new(&repo, &packs, shallow).with_heads(Some(heads.clone()));
        assert!(
            grafted
                .merge_bases(id(5), &[id(6)], &context)
                .expect("bases")
                .is_empty()
        );
        assert_eq!(heads.get(&id(5)).map(|h| h.parents.len()), Some(1));
    }

    /// Candidates below a range are settled by a walk that stops once one
    /// is left alone, once every one is reached, or at its budget.
    #[test]
    fn candidates_below_a_range_are_settled_by_one_walk() {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = gix::init_bare(dir.path()).expect("init");
        let packs = std::cell::RefCell::new(super::super::packs::Packs::new(&repo, 1 << 20));
        // A chain 1 <- 2 <- ... <- 10, and 20 on 1.
        let heads = Arc::new(Heads::default());
        put(&heads, 1, 10, &[]);
        for n in 2..=10 {
            put(&heads, n, i64::from(n) * 10, &[n - 1]);
        }
        put(&heads, 20, 25, &[1]);
        let context = || "the test".to_owned();
        let mut bases = Bases::new(&repo, &packs, HashSet::new()).with_heads(Some(heads.clone()));
        let mut settle = |unsettled: &[u8], frontier: &[u8], alone: bool, budget: usize| {
            let ids = |ns: &[u8]| ns.iter().map(|&n| id(n)).collect::<Vec<_>>();
            bases
                .settle(&ids(unsettled), &ids(frontier), alone, budget, &context)
                .expect("settled")
                .map(|found| found.iter().map(|i| i.as_bytes()[0]).collect::<Vec<u8>>())
        };
        // 9 reaches 4 in four steps: 9 is left alone.
        assert_eq!(settle(&[9, 4], &[], true, 4), Some(vec![9]));
        assert_eq!(settle(&[9, 4], &[], true, 3), None, "past the budget");
        // With another base known, 4 must be reached: from 5, in one.
        assert_eq!(settle(&[4], &[5], false, 1), Some(vec![]));
        // 10 and 20 reach neither: both, once their history is walked.
        assert_eq!(settle(&[10, 20], &[], true, 100), Some(vec![10, 20]));
        // From the frontier 20, 2 is never reached.
        assert_eq!(settle(&[2], &[20], false, 100), Some(vec![2]));
        // Each walk cleared its marks: the first answer again.
        assert_eq!(settle(&[9, 4], &[], true, 4), Some(vec![9]));
        // Whether 9 reaches 4 and 2: yes, in seven steps; 20: no, once
        // all of 9's history is walked.
        let ids = |ns: &[u8]| ns.iter().map(|&n| id(n)).collect::<Vec<_>>();
        let mut reaches = |targets: &[u8], budget: usize| {
            bases
                .reaches_all(&ids(targets), &ids(&[9]), budget, &context)
                .expect("walked")
        };
        assert_eq!(reaches(&[4, 2], 7), Some(true));
        assert_eq!(reaches(&[4, 2], 6), None, "past the budget");
        assert_eq!(reaches(&[4, 20], 100), Some(false));
        assert_eq!(reaches(&[9], 0), Some(true), "itself");
    }

    /// What one run read is kept in the commit cache for the next: a new
    /// record over the same file answers a search over commits no object
    /// database holds. Below the bound nothing is written.
    #[test]
    fn the_next_run_searches_over_what_this_one_kept() {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = gix::init_bare(dir.path().join("repo")).expect("init");
        let packs = std::cell::RefCell::new(super::super::packs::Packs::new(&repo, 1 << 20));
        let file = dir.path().join("cache").join("commits-sha1.cache");
        let sha1 = gix::hash::Kind::Sha1;
        let few = Heads::kept_in(Some(file.clone()), sha1);
        put(&few, 1, 10, &[]);
        assert!(!few.save(), "one commit is not worth a write");
        assert!(!file.exists());
        // A chain of WORTH_WRITING commits over 1 .. 4 as above.
        let heads = Heads::kept_in(Some(file.clone()), sha1);
        put(&heads, 1, 10, &[]);
        put(&heads, 2, 20, &[1]);
        put(&heads, 3, 30, &[2]);
        put(&heads, 4, 40, &[2]);
        for n in 0..super::super::commits_cache::WORTH_WRITING as u32 {
            let mut bytes = [0xee; 20];
            bytes[..4].copy_from_slice(&n.to_be_bytes());
            heads.put(
                gix::ObjectId::from_bytes_or_panic(&bytes),
                1,
                id(0),
                &[id(1)],
            );
        }
        assert!(heads.save());
        assert!(!heads.save(), "nothing new since: nothing written");
        // A run that has read few commits does not load the file yet.
        let short = Heads::kept_in(Some(file.clone()), sha1);
        assert!(short.get(&id(3)).is_none());
        let next = Arc::new(Heads::kept_in(Some(file), sha1).loading_at_once());
        let context = || "the test".to_owned();
        let mut bases = Bases::new(&repo, &packs, HashSet::new()).with_heads(Some(next.clone()));
        assert_eq!(
            bases.merge_bases(id(3), &[id(4)], &context).expect("bases"),
            vec![id(2)]
        );
        assert_eq!(
            next.read_from_objects(),
            0,
            "every commit came from the file"
        );
        assert_eq!(next.get(&id(3)).map(|h| h.tree), Some(id(103)));
    }

    /// Without a commit-graph, a search's answer is kept beside the
    /// commits and answers the next run's question without a search: here
    /// no commit is in any object database nor in the cache, so only the
    /// kept answer can give the bases. With a shallow boundary (which
    /// changes the answer) it is not used.
    #[test]
    fn a_date_ordered_search_is_answered_from_what_a_run_before_found() {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = gix::init_bare(dir.path().join("repo")).expect("init");
        let packs = std::cell::RefCell::new(super::super::packs::Packs::new(&repo, 1 << 20));
        let file = dir.path().join("cache").join("commits-sha1.cache");
        let sha1 = gix::hash::Kind::Sha1;
        let heads = Heads::kept_in(Some(file.clone()), sha1);
        heads.answered(Ordered::Dates, id(3), id(4), &[id(2)]);
        assert!(!heads.save(), "one answer is not worth a write");
        for n in 0..super::super::commits_cache::BASES_WORTH_WRITING as u8 {
            heads.answered(Ordered::Dates, id(200), id(n), &[]);
        }
        assert!(heads.save());
        assert!(!heads.save(), "nothing new since: nothing written");
        let next = Arc::new(Heads::kept_in(Some(file), sha1));
        let context = || "the test".to_owned();
        let mut bases = Bases::new(&repo, &packs, HashSet::new()).with_heads(Some(next.clone()));
        assert_eq!(
            bases.merge_bases(id(3), &[id(4)], &context).expect("kept"),
            vec![id(2)]
        );
        // The other way round is another question: searched, and nothing
        // is there to read.
        assert!(matches!(
            bases.merge_bases(id(4), &[id(3)], &context),
            Err(GitError::MissingObject { .. })
        ));
        let shallow: HashSet<gix::ObjectId> = [id(9)].into_iter().collect();
        let mut grafted = Bases::new(&repo, &packs, shallow).with_heads(Some(next));
        assert!(matches!(
            grafted.merge_bases(id(3), &[id(4)], &context),
            Err(GitError::MissingObject { .. })
        ));
    }

    /// A graph's answers are loaded only past the run's
    /// [`GRAPH_FILE_AFTER`]th question; what the run kept before that and
    /// the file holds is not new, and what it finds after still reaches
    /// the file, even when the run wrote once before loading it.
    #[test]
    fn a_graphs_answers_load_late_and_new_ones_are_still_written() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("cache").join("commits-sha1.cache");
        let sha1 = gix::hash::Kind::Sha1;
        let worth = super::super::commits_cache::BASES_WORTH_WRITING as u8;
        let heads = Heads::kept_in(Some(file.clone()), sha1);
        for n in 0..worth {
            heads.answered(Ordered::Generations, id(200), id(n), &[id(1)]);
        }
        assert!(heads.save(), "written before the file is loaded");
        // A run whose searches are ordered by a range's levels (no graph:
        // each search reads commits) loads it at the first question.
        let levelled = Heads::kept_in(Some(file), sha1);
        assert_eq!(
            levelled.answer(Ordered::Generations, &id(200), &id(1), false),
            Some(vec![id(1)])
        );
        // The kept answers are this run's own; the file is not read for
        // the first questions.
        assert_eq!(
            heads.answer(Ordered::Generations, &id(200), &id(0), true),
            Some(vec![id(1)])
        );
        for _ in 0..GRAPH_FILE_AFTER {
            assert_eq!(
                heads.answer(Ordered::Generations, &id(201), &id(0), true),
                None
            );
        }
        assert!(heads.graded.file.get().is_none(), "not loaded yet");
        // The next question loads it: everything kept is in the file.
        assert_eq!(
            heads.answer(Ordered::Generations, &id(201), &id(0), true),
            None
        );
        assert!(heads.graded.file.get().is_some_and(Option::is_some));
        assert!(heads.graded.kept.lock().expect("lock").is_empty());
        assert_eq!(
            heads.answer(Ordered::Generations, &id(200), &id(1), true),
            Some(vec![id(1)]),
            "answered from the file"
        );
        assert!(!heads.save(), "nothing new");
        for n in 0..worth {
            heads.answered(Ordered::Generations, id(202), id(n), &[id(2)]);
        }
        assert!(heads.save(), "new answers are written");
        // The date-ordered file was never written.
        assert!(heads.dated.kept.lock().expect("lock").is_empty());
        assert!(
            heads
                .answer(Ordered::Dates, &id(200), &id(0), true)
                .is_none()
        );
    }

    /// A search ordered by a range's levels finds what one ordered by
    /// dates finds, and what the definition gives (the common ancestors no
    /// other one reaches), on a history whose dates run every way; and it
    /// stops sooner. The range hides its first root (level 0), as a whole
    /// history hidden below its first commit does.
    #[test]
    fn a_search_by_the_ranges_levels_finds_what_one_by_dates_finds() {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = gix::init_bare(dir.path()).expect("init");
        let packs = std::cell::RefCell::new(super::super::packs::Packs::new(&repo, 1 << 20));
        let file = dir.path().join("cache").join("commits-sha1.cache");
        let heads = Arc::new(Heads::kept_in(Some(file), gix::hash::Kind::Sha1));
        // Commit n (1 to 90) has one or two parents among the commits
        // before it, mostly close ones (a root now and then); dates are
        // skewed by up to 40 commits' worth either way.
        let count = 90u8;
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |below: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % below
        };
        let mut parents: Vec<Vec<u8>> = vec![Vec::new(); usize::from(count) + 1];
        let mut ancestors = vec![0u128; usize::from(count) + 1];
        let mut level = vec![0u32; usize::from(count) + 1];
        for n in 1..=count {
            let arity = if n < 3 || next(30) == 0 {
                0
            } else {
                1 + next(2)
            };
            for _ in 0..arity {
                let span = u64::from(n - 1).min(if next(3) == 0 { 40 } else { 8 });
                let p = n - 1 - next(span) as u8;
                if !parents[usize::from(n)].contains(&p) {
                    parents[usize::from(n)].push(p);
                }
            }
            let n_at = usize::from(n);
            ancestors[n_at] = 1u128 << n;
            for &p in &parents[n_at].clone() {
                ancestors[n_at] |= ancestors[usize::from(p)];
                level[n_at] = level[n_at].max(level[usize::from(p)]);
            }
            level[n_at] += 1;
            let time = i64::from(n) * 10 + next(800) as i64 - 400;
            put(&heads, n, time, &parents[n_at]);
        }
        // Commit 1 is hidden: outside the range, level 0.
        let levels = Arc::new(super::super::landing::Levels::given(
            (2..=count).map(|n| (id(n), level[usize::from(n)])),
        ));
        let context = || "the test".to_owned();
        let mut dated = Bases::new(&repo, &packs, HashSet::new()).with_heads(Some(heads.clone()));
        let mut levelled =
            Bases::new(&repo, &packs, HashSet::new()).with_heads(Some(heads.clone()));
        // A commit read before the levels came gets its level too.
        levelled
            .merge_bases(id(count), &[id(count - 1)], &context)
            .expect("bases");
        levelled.with_levels(&levels);
        let read_before = levelled.number(id(count), &context).expect("read");
        assert_eq!(
            levelled.generation(read_before),
            u64::from(level[usize::from(count)])
        );
        levelled.queued = 0;
        let mut compared = 0;
        let mut kept_apart = 0;
        for a in (2..=count).step_by(3) {
            for b in (a + 1..=count).step_by(2) {
                let common = ancestors[usize::from(a)] & ancestors[usize::from(b)];
                let mut defined: Vec<u8> = (1..=count)
                    .filter(|&c| common & (1u128 << c) != 0)
                    .filter(|&c| {
                        !(1..=count).any(|d| {
                            d != c
                                && common & (1u128 << d) != 0
                                && ancestors[usize::from(d)] & (1u128 << c) != 0
                        })
                    })
                    .collect();
                defined.sort_unstable();
                let found = |bases: &mut Bases<'_>| {
                    let mut found: Vec<u8> = bases
                        .merge_bases(id(a), &[id(b)], &context)
                        .expect("bases")
                        .iter()
                        .map(|i| i.as_bytes()[0])
                        .collect();
                    found.sort_unstable();
                    found
                };
                assert_eq!(found(&mut dated), defined, "{a} and {b} by dates");
                assert_eq!(found(&mut levelled), defined, "{a} and {b} by levels");
                // Kept as a graph's answers are, where the search stayed in
                // the range.
                if let Some(kept) = heads.answer(Ordered::Generations, &id(a), &id(b), false) {
                    let mut kept: Vec<u8> = kept.iter().map(|i| i.as_bytes()[0]).collect();
                    kept.sort_unstable();
                    assert_eq!(kept, defined, "{a} and {b} kept");
                    kept_apart += 1;
                }
                compared += usize::from(defined.len() > 1);
            }
        }
        assert!(compared > 10, "only {compared} pairs with several bases");
        assert!(kept_apart > 100, "only {kept_apart} answers kept by levels");
        // Ignoring the levels, it would queue what the search by dates does.
        assert!(
            levelled.queued < dated.queued,
            "levels queued {} commits, dates {}",
            levelled.queued,
            dated.queued
        );
    }
}
