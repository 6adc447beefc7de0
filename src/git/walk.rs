//! The commits of a range, `git rev-list TIPS ^HIDDEN`, newest first by
//! committer date, each commit read once (a commit's message, where the
//! walk did not read it, is read by the diff thread that diffs it).
//!
//! The walk is git's own (`limit_list` in git's `revision.c`): commits come
//! off a queue ordered by committer date; a hidden commit hides its parents,
//! and the walk ends when everything queued is hidden and no queued commit is
//! newer than the last one shown (with git's five commits of slop for clocks
//! that went backwards). A commit is handed on as soon as it is taken off the
//! queue, with its tree, its parents' trees and what it read of its
//! message, so the diffs can start before the walk ends
//! (docs/performance.md, "Provenance on equal work"); one that a later
//! hidden commit turns out to reach (only possible when committer dates go
//! backwards) is named at the end and dropped, as git drops it.
//!
//! A shallow clone's boundary commits are walked without their parents, as
//! git grafts them; their parents are not read.
//!
//! With a commit-graph (`git commit-graph write --reachable`; docs/ci.md),
//! the walk reads each commit's parents, date and tree from it and no
//! commit object at all: the messages are read by the diff threads, in
//! parallel. It numbers such a commit by its place in the graph and keeps
//! a byte of flags for it, reading the rest from the graph again when
//! asked (a few bytes at a known place). A record of each commit read,
//! kept by id in a hash table (about 250 bytes a commit), took 33 MB at
//! git/git's whole history and most of the walk's time on its shorter
//! ranges (docs/performance.md, "Real histories").

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

use super::{GitError, Oid};

/// A commit's parents, or their trees: inline up to two (all but octopus
/// merges), as the walk keeps one per commit of the range.
pub(super) type Parents = smallvec::SmallVec<[gix::ObjectId; 2]>;

/// Each commit of a walk's parents as it names them, one list after
/// another: 20 bytes a parent and 4 a commit, where a list of [`Parents`]
/// took 48 bytes a commit (3.9 MB at git/git's whole history, against
/// 2.4 MB).
#[derive(Debug, Default)]
pub(super) struct ParentLists {
    ids: Vec<gix::ObjectId>,
    /// Where each commit's parents end in `ids`.
    ends: Vec<u32>,
    /// Whether a list was left out: more parents than a `u32` counts.
    overflowed: bool,
}

impl ParentLists {
    /// Add the next commit's parents.
    pub(super) fn push(&mut self, parents: &[gix::ObjectId]) {
        match u32::try_from(self.ids.len() + parents.len()) {
            Ok(end) => {
                self.ids.extend_from_slice(parents);
                self.ends.push(end);
            }
            Err(_) => self.overflowed = true,
        }
    }

    /// Whether every list pushed is held.
    pub(super) fn whole(&self) -> bool {
        !self.overflowed
    }

    /// How many commits' parents it holds.
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The parents of the `at`-th commit pushed.
    pub(super) fn get(&self, at: usize) -> Option<&[gix::ObjectId]> {
        let end = *self.ends.get(at)? as usize;
        let start = match at {
            0 => 0,
            _ => self.ends[at - 1] as usize,
        };
        self.ids.get(start..end)
    }

    /// Each commit's parents, in the order pushed.
    pub(super) fn iter(&self) -> impl Iterator<Item = &[gix::ObjectId]> + '_ {
        (0..self.len()).filter_map(|at| self.get(at))
    }

    /// Every parent of every commit, one list after another.
    pub(super) fn all(&self) -> &[gix::ObjectId] {
        &self.ids
    }
}

/// A commit as the walk hands it on: enough to diff it without reading it
/// again.
pub(super) struct Walked {
    pub id: gix::ObjectId,
    pub tree: gix::ObjectId,
    /// The parents as the commit names them (a shallow boundary's too).
    pub parents: Parents,
    /// Each parent's tree, in parent order; empty for a shallow boundary,
    /// whose parents are not read.
    pub parent_trees: Parents,
    /// `None` when the walk read the commit from the commit-graph.
    pub message: Option<Vec<u8>>,
}

/// How the walk ended: the commits handed on that turned out to be hidden
/// (the others are the range, in the order they were handed on).
pub(super) struct Ended {
    pub dropped: HashSet<gix::ObjectId>,
    /// Whether a commit-graph was there to read commits from.
    pub graph: bool,
}

const SEEN: u8 = 1;
const HIDDEN: u8 = 2;
const QUEUED: u8 = 4;
/// Read: its parents are known (a hidden mark can reach a commit not read
/// yet).
const READ: u8 = 8;
/// git's `SLOP`: how many more hidden commits are taken off the queue once
/// only hidden ones are left, in case a commit's date is older than its
/// parent's.
const SLOP: u32 = 5;

/// A commit as the walk numbers it: its position in the commit-graph
/// where the graph has it (below [`Walk::in_graph`]), else one more than
/// the commits numbered before it, past the graph's. A commit in the graph
/// is read from it whenever it is asked about (a few bytes at a known
/// place), so the walk keeps no more than a byte of flags for it.
type Key = u32;

/// Keys of a commit's parents, inline up to two.
type Keys = smallvec::SmallVec<[Key; 2]>;

/// A commit the commit-graph does not have (or every commit, without one):
/// its id, and once read (the [`READ`] flag) its date, tree and where its
/// parents' keys are in [`Walk::parent_keys_of`]. A commit's parents as it
/// names them are those keys' ids, so they are not kept again: at
/// git/git's whole history without a graph the walk keeps 82k of these,
/// and a record of 160 bytes with its parents in an allocation of their
/// own took 20 MB more of the run's peak than these 56 bytes
/// (docs/performance.md, "Real histories").
struct Extra {
    id: gix::ObjectId,
    tree: gix::ObjectId,
    time: i64,
    /// The first of its parents' keys in [`Walk::parent_keys_of`].
    first_parent: u32,
    parents: u32,
}

/// A commit as the walk reads it from the objects: date, tree, parents
/// and, where it was read whole, message.
type Read = (i64, gix::ObjectId, Vec<gix::ObjectId>, Option<Vec<u8>>);

/// A commit as [`decode_commit`] reads it.
pub(super) struct Decoded {
    pub time: i64,
    pub tree: gix::ObjectId,
    pub parents: Vec<gix::ObjectId>,
    pub message: Vec<u8>,
}

struct Walk<'r> {
    repo: &'r gix::Repository,
    /// Commits are read from the packs as trees are, through one mapping.
    packs: &'r std::cell::RefCell<super::packs::Packs>,
    graph: Option<gix::commitgraph::Graph>,
    /// How many commits the graph has: the keys below are its positions.
    in_graph: u32,
    /// Each key's flags.
    flags: Vec<u8>,
    /// The commits the graph does not have, from key `in_graph` on.
    extras: Vec<Extra>,
    /// The parents' keys of each read commit of `extras`, in parent
    /// order, one after another.
    parent_keys_of: Vec<Key>,
    /// The messages of commits read whole, until they are handed on (or
    /// hidden): few are (most commits are read by their first lines).
    messages: std::collections::HashMap<Key, Vec<u8>>,
    /// Where each of `extras` is, by id.
    extra_keys: super::places::Places,
    /// Newest first; among equal dates, first queued first (git's
    /// `commit_list_insert_by_date`).
    queue: BinaryHeap<(i64, Reverse<u64>, Key)>,
    queued: u64,
    /// Queued commits not hidden (git's `everybody_uninteresting`, counted).
    queued_shown: usize,
    shallow: HashSet<gix::ObjectId>,
    /// Where each commit read from the objects is kept for the range's
    /// merge-base searches (src/git/bases.rs, `Heads`).
    heads: Option<&'r super::bases::Heads>,
    buf: Vec<u8>,
    context: &'r dyn Fn() -> String,
}

/// Walk `tips` hiding `hidden`, handing each commit shown to `each` as it is
/// taken off the queue. Each commit read from the objects is put in
/// `heads`, when given, for the range's merge-base searches.
#[allow(clippy::too_many_arguments)]
pub(super) fn walk(
    repo: &gix::Repository,
    packs: &std::cell::RefCell<super::packs::Packs>,
    tips: &[Oid],
    hidden: &[Oid],
    shallow: HashSet<gix::ObjectId>,
    heads: Option<&super::bases::Heads>,
    context: &dyn Fn() -> String,
    mut each: impl FnMut(Walked),
) -> Result<Ended, GitError> {
    // Each commit is read once: an object cache would only copy each one in
    // and out again (the diff threads keep none either).
    let mut own = repo.clone();
    super::set_diff_thread_caches(&mut own);
    let repo = &own;
    // git writes no commit-graph for a shallow clone's grafted history, nor
    // trusts one where objects are replaced (gix declines those itself). One
    // that cannot be read leaves the objects to read.
    let graph = if shallow.is_empty() {
        repo.commit_graph_if_enabled().ok().flatten()
    } else {
        None
    };
    let in_graph = graph.as_ref().map_or(0, |g| g.num_commits());
    let mut walk = Walk {
        repo,
        packs,
        graph,
        in_graph,
        // A byte a commit of the graph (82 kB for git/git's).
        flags: vec![0; in_graph as usize],
        extras: Vec::new(),
        parent_keys_of: Vec::new(),
        messages: Default::default(),
        extra_keys: Default::default(),
        queue: BinaryHeap::new(),
        queued: 0,
        queued_shown: 0,
        shallow,
        heads,
        buf: Vec::new(),
        context,
    };
    // Every tip and hidden commit must be a commit there is (as git's
    // `rev-list` refuses a name it cannot read).
    let named = |walk: &mut Walk, ids: &[Oid]| -> Result<Vec<Key>, GitError> {
        ids.iter()
            .map(|id| {
                let key = walk.key(id.0)?;
                walk.read(key, true)?;
                Ok(key)
            })
            .collect()
    };
    let tips = named(&mut walk, tips)?;
    let hidden = named(&mut walk, hidden)?;
    for &key in &hidden {
        walk.hide(key)?;
    }
    for &key in tips.iter().chain(&hidden) {
        walk.push(key);
    }
    let mut shown: Vec<Key> = Vec::new();
    let mut slop = SLOP;
    let mut last_shown = i64::MAX;
    while let Some((_, _, key)) = walk.queue.pop() {
        let flags = walk.flags[key as usize];
        walk.flags[key as usize] = flags & !QUEUED;
        let hidden = flags & HIDDEN != 0;
        if !hidden {
            walk.queued_shown -= 1;
        }
        let parents = walk.walked_parents(key)?;
        if hidden {
            walk.messages.remove(&key);
            for &parent in &parents {
                // A hidden commit's absent parent is skipped, as git does
                // (`parse_commit_gently`): nothing shown can come from it.
                if walk.read(parent, false).is_err() {
                    continue;
                }
                walk.hide(parent)?;
                walk.push(parent);
            }
            slop = match walk.queue.peek() {
                None => 0,
                Some(&(newest, _, _)) if last_shown <= newest => SLOP,
                Some(_) if walk.queued_shown > 0 => SLOP,
                Some(_) => slop - 1,
            };
            if slop == 0 {
                break;
            }
            continue;
        }
        let mut parent_trees = Parents::with_capacity(parents.len());
        for &parent in &parents {
            walk.read(parent, false)?;
            parent_trees.push(walk.tree(parent));
            walk.push(parent);
        }
        last_shown = walk.time(key);
        let (tree, parents, message) = walk.shown(key);
        shown.push(key);
        each(Walked {
            id: walk.id(key),
            tree,
            parents,
            parent_trees,
            message,
        });
    }
    let dropped: HashSet<gix::ObjectId> = shown
        .into_iter()
        .filter(|&key| walk.flags[key as usize] & HIDDEN != 0)
        .map(|key| walk.id(key))
        .collect();
    Ok(Ended {
        dropped,
        graph: walk.graph.is_some(),
    })
}

impl Walk<'_> {
    /// The key of commit `id`: its place in the commit-graph where the
    /// graph has it (a bisection of the graph's ids), else the key it was
    /// given, or a new one.
    fn key(&mut self, id: gix::ObjectId) -> Result<Key, GitError> {
        if let Some(place) = self.graph.as_ref().and_then(|g| g.lookup(id)) {
            return Ok(place.0);
        }
        let extras = &self.extras;
        if let Some(at) = self.extra_keys.get(&id, |p| &extras[p as usize].id) {
            return Ok(self.in_graph + at);
        }
        let (at, key) = u32::try_from(self.extras.len())
            .ok()
            .and_then(|n| Some((n, self.in_graph.checked_add(n)?)))
            .ok_or_else(|| {
                GitError::other((self.context)(), "more commits than a walk can number")
            })?;
        self.extras.push(Extra {
            id,
            tree: gix::ObjectId::null(id.kind()),
            time: 0,
            first_parent: 0,
            parents: 0,
        });
        let extras = &self.extras;
        self.extra_keys.insert_new(at, |p| &extras[p as usize].id);
        self.flags.push(0);
        Ok(key)
    }

    fn graph_commit(&self, key: Key) -> Option<gix::commitgraph::file::Commit<'_>> {
        (key < self.in_graph).then(|| {
            let graph = self
                .graph
                .as_ref()
                .expect("keys below in_graph are the graph's");
            graph.commit_at(gix::commitgraph::Position(key))
        })
    }

    fn extra(&self, key: Key) -> &Extra {
        &self.extras[(key - self.in_graph) as usize]
    }

    /// Commit `key`, not in the graph, read from the objects.
    fn read_extra(&self, key: Key) -> &Extra {
        debug_assert!(self.flags[key as usize] & READ != 0, "read before use");
        self.extra(key)
    }

    fn id(&self, key: Key) -> gix::ObjectId {
        match self.graph_commit(key) {
            Some(commit) => commit.id().to_owned(),
            None => self.extra(key).id,
        }
    }

    fn time(&self, key: Key) -> i64 {
        match self.graph_commit(key) {
            Some(commit) => i64::try_from(commit.committer_timestamp()).unwrap_or(i64::MAX),
            None => self.read_extra(key).time,
        }
    }

    fn tree(&self, key: Key) -> gix::ObjectId {
        match self.graph_commit(key) {
            Some(commit) => commit.root_tree_id().to_owned(),
            None => self.read_extra(key).tree,
        }
    }

    /// The keys of a read commit's parents: for one in the graph, the
    /// places its entry names (gix checks each is in the graph).
    fn parent_keys(&self, key: Key) -> Result<Keys, GitError> {
        match self.graph_commit(key) {
            Some(commit) => commit
                .iter_parents()
                .map(|place| place.map(|place| place.0))
                .collect::<Result<Keys, _>>()
                .map_err(|err| {
                    GitError::other(
                        (self.context)(),
                        format_args!(
                            "reading commit {} from the commit-graph: {err}",
                            self.id(key)
                        ),
                    )
                }),
            None => Ok(Keys::from_slice(self.extra_parents(key))),
        }
    }

    /// The parents the walk follows: none for a shallow boundary.
    fn walked_parents(&self, key: Key) -> Result<Keys, GitError> {
        if !self.shallow.is_empty() && self.shallow.contains(&self.id(key)) {
            return Ok(Keys::new());
        }
        self.parent_keys(key)
    }

    /// A shown commit's tree, parents as it names them and message (taken).
    fn shown(&mut self, key: Key) -> (gix::ObjectId, Parents, Option<Vec<u8>>) {
        match self.graph_commit(key) {
            Some(commit) => {
                let graph = self.graph.as_ref().expect("in the graph");
                // Its parents' places were checked when it was read.
                let parents = commit
                    .iter_parents()
                    .filter_map(Result::ok)
                    .map(|place| graph.id_at(place).to_owned())
                    .collect();
                (commit.root_tree_id().to_owned(), parents, None)
            }
            None => {
                let parents = self
                    .extra_parents(key)
                    .iter()
                    .map(|&parent| self.id(parent))
                    .collect();
                let message = self.messages.remove(&key);
                (self.read_extra(key).tree, parents, message)
            }
        }
    }

    /// The keys of `parents`, numbering those not seen before.
    fn keys_of(&mut self, parents: &[gix::ObjectId]) -> Result<Keys, GitError> {
        parents.iter().map(|&parent| self.key(parent)).collect()
    }

    /// The keys of read commit `key`'s parents (not in the graph).
    fn extra_parents(&self, key: Key) -> &[Key] {
        let extra = self.read_extra(key);
        let first = extra.first_parent as usize;
        &self.parent_keys_of[first..first + extra.parents as usize]
    }

    /// Queue `key` (read) unless it was queued before.
    fn push(&mut self, key: Key) {
        let flags = self.flags[key as usize];
        debug_assert!(flags & READ != 0, "read before queued");
        if flags & SEEN != 0 {
            return;
        }
        self.flags[key as usize] = flags | SEEN | QUEUED;
        if flags & HIDDEN == 0 {
            self.queued_shown += 1;
        }
        let time = self.time(key);
        self.queue.push((time, Reverse(self.queued), key));
        self.queued += 1;
    }

    /// Mark `key` and every ancestor already read as hidden (git's
    /// `mark_parents_uninteresting`).
    fn hide(&mut self, key: Key) -> Result<(), GitError> {
        let mut pending = vec![key];
        while let Some(key) = pending.pop() {
            let flags = self.flags[key as usize];
            if flags & HIDDEN != 0 {
                continue;
            }
            self.flags[key as usize] = flags | HIDDEN;
            if flags & QUEUED != 0 {
                self.queued_shown -= 1;
            }
            if flags & READ != 0 {
                pending.extend(self.walked_parents(key)?);
            }
        }
        Ok(())
    }

    /// Commit `id` as this range's searches or the commit cache have it
    /// (src/git/bases.rs, `Heads`), without its message: a commit shown is
    /// read again by its diff thread, as one from the commit-graph is. A
    /// named commit (a tip, a hidden one) is always read from the objects,
    /// so that one that is not there is refused.
    fn cached(&self, id: gix::ObjectId, named: bool) -> Option<(i64, gix::ObjectId, Parents)> {
        if named {
            return None;
        }
        let head = self.heads?.get(&id)?;
        Some((head.time, head.tree, head.parents))
    }

    /// Commit `id` read from the object database: its first lines where
    /// they are whole (the message, some two-thirds of a commit on
    /// git/git, is then read by its diff thread, in parallel, as one from
    /// the commit-graph is), else the whole of it, message and all.
    fn object_commit(&mut self, id: gix::ObjectId, named: bool) -> Result<Read, GitError> {
        let objects = super::packs::Objects::new(self.repo, self.packs);
        let read_error = |err: gix::Error| {
            GitError::other((self.context)(), format_args!("reading commit {id}: {err}"))
        };
        let (kind, whole) = match objects.find_head(&id, &mut self.buf, super::bases::COMMIT_HEAD) {
            Ok(Some(found)) => found,
            Ok(None) => return Err(GitError::MissingObject { id: id.to_string() }),
            Err(err) => return Err(read_error(err)),
        };
        if kind != gix::objs::Kind::Commit {
            if named {
                return Err(GitError::NotACommit {
                    spec: id.to_string(),
                    kind: kind.to_string(),
                });
            }
            return Err(GitError::other(
                (self.context)(),
                format_args!("{id} is a {kind}, not a commit"),
            ));
        }
        let head = if whole {
            None
        } else {
            head_dated_parents(&self.buf, id.kind())
        };
        let read = match head {
            Some((time, tree, parents)) => (time, tree, parents, None),
            None => {
                if !whole {
                    gix::objs::Find::try_find(&objects, &id, &mut self.buf)
                        .map_err(read_error)?
                        .ok_or_else(|| GitError::MissingObject { id: id.to_string() })?;
                }
                let commit = decode_commit(&self.buf, id.kind()).map_err(|err| {
                    GitError::other(
                        (self.context)(),
                        format_args!("decoding commit {id}: {err}"),
                    )
                })?;
                (
                    commit.time,
                    commit.tree,
                    commit.parents,
                    Some(commit.message),
                )
            }
        };
        if let Some(heads) = self.heads {
            heads.put(id, read.0, read.1, &read.2);
        }
        Ok(read)
    }

    /// Read commit `key` unless it was: one in the commit-graph has its
    /// parents checked there, one outside it is decoded (its message, where
    /// it was read, kept until it is handed on).
    fn read(&mut self, key: Key, named: bool) -> Result<(), GitError> {
        let flags = self.flags[key as usize];
        if flags & READ != 0 {
            return Ok(());
        }
        if key < self.in_graph {
            // Its parents' places are checked once, here.
            self.parent_keys(key)?;
        } else {
            let id = self.extra(key).id;
            let (time, tree, keys, message) = match self.cached(id, named) {
                Some((time, tree, parents)) => (time, tree, self.keys_of(&parents)?, None),
                None => {
                    let (time, tree, parents, message) = self.object_commit(id, named)?;
                    (time, tree, self.keys_of(&parents)?, message)
                }
            };
            let first_parent = u32::try_from(self.parent_keys_of.len())
                .ok()
                .filter(|first| first.checked_add(keys.len() as u32).is_some())
                .ok_or_else(|| {
                    GitError::other((self.context)(), "more parents than a walk can keep")
                })?;
            self.parent_keys_of.extend_from_slice(&keys);
            let extra = &mut self.extras[(key - self.in_graph) as usize];
            extra.time = time;
            extra.tree = tree;
            extra.first_parent = first_parent;
            extra.parents = keys.len() as u32;
            if let Some(message) = message {
                self.messages.insert(key, message);
            }
        }
        self.flags[key as usize] = flags | READ;
        // Hidden before it was read: its parents are hidden too.
        if flags & HIDDEN != 0 {
            for parent in self.walked_parents(key)? {
                self.hide(parent)?;
            }
        }
        Ok(())
    }
}

/// Commit `data`'s tree, parents, committer date and message: by
/// [`plain_commit`] where the commit is plain, else by gix's full decoder,
/// whose error says why it cannot be read.
pub(super) fn decode_commit(data: &[u8], hash: gix::hash::Kind) -> Result<Decoded, String> {
    if let Some(commit) = plain_commit(data, hash) {
        return Ok(commit);
    }
    let commit = gix::objs::CommitRef::from_bytes(data, hash).map_err(|err| format!("{err:#}"))?;
    Ok(Decoded {
        time: commit
            .committer()
            .map_err(|err| format!("{err:#}"))?
            .seconds(),
        tree: commit.tree(),
        parents: commit.parents().collect(),
        message: commit.message.to_vec(),
    })
}

/// Commit `data`'s tree, parents, committer date and message, as
/// `CommitRef::from_bytes` reads them, decoding only what the walk needs:
/// the `tree` and `parent` lines, the committer's signature (by gix), and
/// not the author's nor the headers after the committer (a signature alone
/// runs to a kilobyte or more, and gix unfolds it into a new buffer). The
/// message starts after the first blank line, which no header holds (a
/// header's further lines start with a space), where git's own parser
/// looks for it. `None` when the commit is not that plain, for the full
/// decoder to read or refuse.
fn plain_commit(data: &[u8], hash: gix::hash::Kind) -> Option<Decoded> {
    let (time, tree, parents, message) = plain_parts(data, hash)?;
    Some(Decoded {
        time,
        tree,
        parents,
        message: message.to_vec(),
    })
}

/// Commit `data`'s committer date, tree and parents, as [`decode_commit`]
/// reads them, without copying its message (the merge-base searches read
/// only these, from thousands of commits).
pub(super) fn decode_dated_parents(
    data: &[u8],
    hash: gix::hash::Kind,
) -> Result<(i64, gix::ObjectId, Vec<gix::ObjectId>), String> {
    if let Some((time, tree, parents, _)) = plain_parts(data, hash) {
        return Ok((time, tree, parents));
    }
    let commit = decode_commit(data, hash)?;
    Ok((commit.time, commit.tree, commit.parents))
}

/// Commit `data`'s committer date, tree and parents from its first lines alone
/// (`data` may be the start of the commit only: the merge-base searches
/// inflate no more of a packed commit): the `tree`, `parent`, `author` and
/// `committer` lines, each whole, as [`plain_commit`] reads them. This is
/// what git's own `parse_commit_buffer` reads of a commit (the headers
/// after the committer and the message are not looked at). `None` when the
/// lines are not that plain or not all there, for the whole commit to be
/// read by [`decode_dated_parents`].
pub(super) fn head_dated_parents(
    data: &[u8],
    hash: gix::hash::Kind,
) -> Option<(i64, gix::ObjectId, Vec<gix::ObjectId>)> {
    let (time, tree, parents, _) = plain_head(data, hash)?;
    Some((time, tree, parents))
}

/// [`plain_commit`]'s reading, the message left in `data`.
#[allow(clippy::type_complexity)]
fn plain_parts(
    data: &[u8],
    hash: gix::hash::Kind,
) -> Option<(i64, gix::ObjectId, Vec<gix::ObjectId>, &[u8])> {
    let (time, tree, parents, mut rest) = plain_head(data, hash)?;
    // The headers after the committer, up to the blank line.
    while !line(&mut rest)?.is_empty() {}
    Some((time, tree, parents, rest))
}

/// The `tree`, `parent`, `author` and `committer` lines [`plain_parts`]
/// reads, and what follows them.
#[allow(clippy::type_complexity)]
fn plain_head(
    data: &[u8],
    hash: gix::hash::Kind,
) -> Option<(i64, gix::ObjectId, Vec<gix::ObjectId>, &[u8])> {
    let id = |hex: &[u8]| {
        let lower = hex.len() == hash.len_in_hex()
            && hex
                .iter()
                .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'));
        lower.then(|| gix::ObjectId::from_hex(hex).ok()).flatten()
    };
    let mut rest = data;
    let tree = id(line(&mut rest)?.strip_prefix(b"tree ")?)?;
    let mut parents = Vec::new();
    let mut next = line(&mut rest)?;
    while let Some(hex) = next.strip_prefix(b"parent ") {
        parents.push(id(hex)?);
        next = line(&mut rest)?;
    }
    next.strip_prefix(b"author ")?;
    let committer = line(&mut rest)?.strip_prefix(b"committer ")?;
    let time = gix::actor::SignatureRef::from_bytes(committer)
        .ok()?
        .seconds();
    Some((time, tree, parents, rest))
}

/// Whether the start of a commit `data` holds its first lines whole, as
/// far as [`plain_head`] reads them: up to the committer line's end, or to
/// a line that is not one of them (the commit is then not plain, and is
/// read whole whatever more of it is inflated).
pub(super) fn head_is_whole(data: &[u8]) -> bool {
    let mut rest = data;
    while let Some(next) = line(&mut rest) {
        let known = [&b"tree "[..], b"parent ", b"author "]
            .iter()
            .any(|start| next.starts_with(start));
        if !known {
            return true;
        }
    }
    false
}

/// The line `rest` starts with, without its newline, and `rest` moved past
/// it; `None` when no newline ends it.
fn line<'a>(rest: &mut &'a [u8]) -> Option<&'a [u8]> {
    use gix::bstr::ByteSlice;
    let end = rest.find_byte(b'\n')?;
    let line = &rest[..end];
    *rest = &rest[end + 1..];
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parent_lists_give_each_commit_its_own_parents_roots_and_octopuses_too() {
        let id = |n: u8| gix::ObjectId::from_bytes_or_panic(&[n; 20]);
        let mut lists = ParentLists::default();
        lists.push(&[id(2), id(3)]);
        lists.push(&[]);
        lists.push(&[id(4), id(5), id(6)]);
        lists.push(&[id(7)]);
        assert!(lists.whole());
        assert_eq!(lists.len(), 4);
        assert_eq!(lists.get(0), Some(&[id(2), id(3)][..]));
        assert_eq!(lists.get(1), Some(&[][..]));
        assert_eq!(lists.get(2), Some(&[id(4), id(5), id(6)][..]));
        assert_eq!(lists.get(3), Some(&[id(7)][..]));
        assert_eq!(lists.get(4), None);
        let lens: Vec<usize> = lists.iter().map(<[_]>::len).collect();
        assert_eq!(lens, [2, 0, 3, 1]);
        assert_eq!(lists.all().len(), 6);
    }

    const TREE: &str = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n";
    const PARENT: &str = "parent 0123456789abcdef0123456789abcdef01234567\n";
    const OTHER: &str = "parent 89abcdef0123456789abcdef0123456789abcdef\n";
    const AUTHOR: &str = "author A U Thor <a@example.com> 1700000000 +0100\n";
    const COMMITTER: &str = "committer C O Mitter <c@example.com> 1700000123 -0700\n";
    const SIGNATURE: &str = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n";

    /// What the fast decoder reads, next to what gix's full decoder reads.
    fn both(commit: &str) -> (Option<Decoded>, Decoded) {
        let data = commit.as_bytes();
        let full = gix::objs::CommitRef::from_bytes(data, gix::hash::Kind::Sha1).unwrap();
        let expected = Decoded {
            time: full.committer().unwrap().seconds(),
            tree: full.tree(),
            parents: full.parents().collect(),
            message: full.message.to_vec(),
        };
        (plain_commit(data, gix::hash::Kind::Sha1), expected)
    }

    fn same(a: &Decoded, b: &Decoded) -> bool {
        (a.time, a.tree, &a.parents, &a.message) == (b.time, b.tree, &b.parents, &b.message)
    }

    #[test]
    fn a_commit_decodes_as_gix_decodes_it_whatever_its_headers() {
        let commits = [
            format!("{TREE}{AUTHOR}{COMMITTER}\nroot\n"),
            format!("{TREE}{PARENT}{OTHER}{AUTHOR}{COMMITTER}\nMerge\n\nbody\n\nTask: T-1\n"),
            format!("{TREE}{PARENT}{AUTHOR}{COMMITTER}{SIGNATURE}\nsigned\n"),
            format!(
                "{TREE}{PARENT}{AUTHOR}{COMMITTER}encoding ISO-8859-1\nmergetag object x\n type commit\n\nwith headers\n"
            ),
            format!("{TREE}{PARENT}{AUTHOR}{COMMITTER}\n"),
            format!("{TREE}{PARENT}{AUTHOR}{COMMITTER}\n\n\nafter blank lines\n\n\n"),
        ];
        for commit in &commits {
            let (fast, full) = both(commit);
            let fast = fast.unwrap_or_else(|| panic!("not decoded: {commit:?}"));
            assert!(same(&fast, &full), "{commit:?}");
        }
    }

    #[test]
    fn a_head_is_whole_once_its_committer_line_ends_or_it_is_not_plain() {
        let head = format!("{TREE}{PARENT}{OTHER}{AUTHOR}{COMMITTER}");
        let hash = gix::hash::Kind::Sha1;
        // Every cut short of the committer line's end asks for more, and
        // every cut at or past it is enough, and reads as the whole does.
        let end = head.len();
        for cut in 0..end {
            assert!(!head_is_whole(&head.as_bytes()[..cut]), "cut at {cut}");
        }
        let whole = format!("{head}\nmessage\n");
        for cut in end..whole.len() {
            let data = &whole.as_bytes()[..cut];
            assert!(head_is_whole(data), "cut at {cut}");
            assert!(head_dated_parents(data, hash).is_some(), "cut at {cut}");
        }
        // A line that is none of the first lines ends the asking: the
        // commit is read whole.
        assert!(head_is_whole(format!("{TREE}encoding x\n").as_bytes()));
        assert!(head_is_whole(b"\n"));
        assert!(!head_is_whole(b""));
    }

    #[test]
    fn a_commit_that_is_not_plain_is_left_to_the_full_decoder() {
        let data = format!("{TREE}{PARENT}{AUTHOR}{COMMITTER}");
        assert!(plain_commit(data.as_bytes(), gix::hash::Kind::Sha1).is_none());
        // No committer before the blank line.
        let data = format!("{TREE}{AUTHOR}\n{COMMITTER}\nmessage\n");
        assert!(plain_commit(data.as_bytes(), gix::hash::Kind::Sha1).is_none());
        let data = format!("tree nothex\n{AUTHOR}{COMMITTER}\nmessage\n");
        assert!(plain_commit(data.as_bytes(), gix::hash::Kind::Sha1).is_none());
        let data = format!("{}{AUTHOR}{COMMITTER}\nmessage\n", TREE.to_uppercase());
        assert!(plain_commit(data.as_bytes(), gix::hash::Kind::Sha1).is_none());
        let data = format!("{TREE}{COMMITTER}{AUTHOR}\nmessage\n");
        assert!(plain_commit(data.as_bytes(), gix::hash::Kind::Sha1).is_none());
    }

    #[test]
    fn the_first_lines_of_a_commit_give_its_date_and_parents_as_the_whole_does() {
        let sha1 = gix::hash::Kind::Sha1;
        let whole = format!("{TREE}{PARENT}{OTHER}{AUTHOR}{COMMITTER}{SIGNATURE}\nMerge\n");
        let (_, full) = both(&whole);
        let head_len = TREE.len() + PARENT.len() + OTHER.len() + AUTHOR.len() + COMMITTER.len();
        // Cut anywhere after the committer's line: the same answer.
        for cut in head_len..=whole.len() {
            let got = head_dated_parents(&whole.as_bytes()[..cut], sha1);
            assert_eq!(
                got,
                Some((full.time, full.tree, full.parents.clone())),
                "cut at {cut}"
            );
        }
        // Cut before the committer's line ends: no answer, the whole is read.
        for cut in 0..head_len {
            assert_eq!(
                head_dated_parents(&whole.as_bytes()[..cut], sha1),
                None,
                "cut at {cut}"
            );
        }
        // Not plain: no answer either.
        let swapped = format!("{TREE}{COMMITTER}{AUTHOR}\nmessage\n");
        assert_eq!(head_dated_parents(swapped.as_bytes(), sha1), None);
    }
}
