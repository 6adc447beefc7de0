//! The merge bases of a range's two-parent merges, read off the walked
//! range itself: no search.
//!
//! Every merge a range inspects needs the merge bases of its parents
//! (decision 0023). Searched one merge at a time (src/git/bases.rs), the
//! first parent's side paints everything merged since the second parent
//! forked: on git/git some 1,500 commits a merge on average, and 70,000 for
//! a merge of a subtree with a history of its own (gitk, git-gui), whose
//! last merged commit is nearly as low in generations as the root — a
//! third of a 10,000-commit range's time.
//!
//! Most merges sit on the tip's first-parent line (git/git: 2,561 of a
//! range's 3,358), and there the walk already holds the answer. Number the
//! line oldest first, `m1 … mn`, and give each commit of the range the
//! first `k` whose `mk` reaches it (its *landing*): the commits that land at
//! `k` are `mk` and what `mk`'s other parents bring that `m(k-1)` does not
//! reach. So the commits a merge `mk`'s second parent reaches and its first
//! does not are those it reaches through commits landing at `k`, and the
//! commits of lower landing they stand on are the common ancestors no other
//! common ancestor sits above: every merge base is one of them (a base's
//! child on a path from the second parent is not an ancestor of the first,
//! or the base would not be a base). Where there is one, it is the merge
//! base; where there are several, some may sit below others (a topic that
//! merged the line, a subtree whose contributors forked from old commits),
//! and the bases are those no other reaches.
//!
//! Which candidate reaches which is mostly told by the range itself
//! ([`Several`]): a path from one commit of the range to another stays in
//! it, and a line commit `mj` reaches every commit of landing `j` or lower,
//! the bottom and so every commit outside the range. So a walk from the
//! candidates' parents goes only through commits off the line (a topic's
//! own), stops at each line commit it meets, and settles every candidate in
//! the range; and every candidate outside it, unless no candidate reaches
//! the bottom and the bottom is not one of them (a subtree's contributors
//! forking from its old commits, as gitk's do). Those are left to a walk
//! below the range from where the range's candidates leave it
//! (`Bases::settle`), or with generation numbers to `Bases::reduce`.
//!
//! A merge off the line (a topic merging another, or the line into
//! itself) gets its candidates the same way (`Settling::off_line`): what
//! its first parent reaches is its walk through the commits off the line,
//! every commit of landing up to the highest line commit that walk meets,
//! and, outside the range, what it meets there (all of it, past the
//! bottom); a walk from its second parent through commits the first does
//! not reach stops at the common ancestors it meets, and at a line commit
//! the first does not reach, which stands above what the first parent
//! holds of landing up to it. Where the range cannot tell (the walk meets
//! a commit outside the range the first parent may reach below it), that
//! commit is taken as reached and asked ([`Asked`]): a walk below the
//! range confirms it when the merge's bases are wanted, or the merge is
//! searched.
//!
//! A commit outside the range counts as landing before `m1`, in the
//! ancestry of the line's bottom `m1`'s first parent: true when every
//! hidden commit is that commit or one of its ancestors (the usual range,
//! `B..tip` with `B` on the tip's first-parent line, and the whole history),
//! which the caller checks; otherwise there is no landing, and every merge
//! is searched.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};

use super::Oid;
use super::places::Places;

/// Of each main-line merge with two parents, the commits its merge bases
/// are among (see the module's comment): one is the merge base, none means
/// the parents share no history.
#[derive(Debug, Default)]
pub(super) struct Landing {
    candidates: HashMap<gix::ObjectId, Box<[gix::ObjectId]>>,
    several: HashMap<gix::ObjectId, Several>,
    asked: HashMap<gix::ObjectId, Asked>,
    levels: Option<Arc<Levels>>,
}

impl Landing {
    /// The commits the merge bases of merge `id`'s two parents are among:
    /// `None` for an octopus, or a merge off the line the range cannot
    /// tell. One is the merge base; none means no shared history; of
    /// several, those no other reaches are.
    pub(super) fn candidates(&self, id: &gix::oid) -> Option<&[gix::ObjectId]> {
        self.candidates.get(id).map(|c| &c[..])
    }

    /// Of merge `id`'s several candidates, what the range settles: `None`
    /// where there are fewer than two.
    pub(super) fn several(&self, id: &gix::oid) -> Option<&Several> {
        self.several.get(id)
    }

    /// Of an off-line merge `id`, the commits below the range its first
    /// parent must reach for its candidates to hold: `None` where there
    /// are none to ask.
    pub(super) fn asked(&self, id: &gix::oid) -> Option<&Asked> {
        self.asked.get(id)
    }

    /// The range's levels, where they were asked for ([`Levels`]).
    pub(super) fn levels(&self) -> Option<&Arc<Levels>> {
        self.levels.as_ref()
    }
}

/// Each commit of a range that nothing outside it reaches, its level:
/// one more than its highest parent's, 1 for a root. A commit that reaches
/// another has the higher level, as with a commit-graph's generations, so
/// a merge-base search without a commit-graph can stop as early as one
/// with it (src/git/bases.rs). Only for such a range: where a commit
/// outside the range (level 0) could reach one in it, a level would not
/// prove that it does not. The caller makes sure (every commit outside the
/// range is a root, or there is none: a whole history).
///
/// Kept as the range's own list of commits and the table of their places
/// (both shared with the walk, not copied) and a level a place: 0.33 MB
/// of its own at git/git's whole history, where a map from id to level
/// took 3.3 MB.
#[derive(Debug, Default)]
pub(super) struct Levels {
    ids: Arc<[Oid]>,
    places: Arc<Places>,
    level: Vec<u32>,
}

impl Levels {
    /// Commit `id`'s level: 0 outside the range.
    pub(super) fn get(&self, id: &gix::oid) -> u32 {
        self.places
            .get(id, |p| self.ids[p as usize].0.as_ref())
            .map_or(0, |p| self.level[p as usize])
    }

    /// Levels as given (for tests of the searches that order by them).
    #[cfg(test)]
    pub(super) fn given(levels: impl IntoIterator<Item = (gix::ObjectId, u32)>) -> Levels {
        let (ids, level): (Vec<Oid>, Vec<u32>) =
            levels.into_iter().map(|(id, l)| (Oid(id), l)).unzip();
        let places = Arc::new(Places::of(&ids));
        Levels {
            ids: ids.into(),
            places,
            level,
        }
    }

    /// The levels of `graph`'s range; `None` for a cycle (no history has
    /// one; a corrupt one might).
    fn of(graph: &Graph) -> Option<Levels> {
        /// Waiting on the stack.
        const PUSHED: u32 = u32::MAX;
        /// Its parents pushed, itself not levelled yet: on the path the
        /// walk down is on.
        const ENTERED: u32 = u32::MAX - 1;
        let n = graph.ids.len();
        let mut level = vec![0u32; n];
        let mut stack = Vec::new();
        for start in 0..n as u32 {
            if level[start as usize] != 0 {
                continue;
            }
            stack.push(start);
            while let Some(&at) = stack.last() {
                if !matches!(level[at as usize], 0 | PUSHED | ENTERED) {
                    // Levelled since it was pushed (again).
                    stack.pop();
                    continue;
                }
                level[at as usize] = ENTERED;
                let mut waits = false;
                let mut top = 0;
                for &p in graph.parents(at) {
                    if !graph.inside(p) {
                        continue;
                    }
                    match level[p as usize] {
                        // A parent that reaches its child.
                        ENTERED => return None,
                        0 | PUSHED => {
                            level[p as usize] = PUSHED;
                            stack.push(p);
                            waits = true;
                        }
                        l => top = top.max(l),
                    }
                }
                if !waits {
                    level[at as usize] = top.checked_add(1).filter(|&l| l < ENTERED)?;
                    stack.pop();
                }
            }
        }
        Some(Levels {
            ids: graph.ids.clone(),
            places: Arc::clone(graph.places),
            level,
        })
    }
}

/// A line merge's several candidates, as far as the range tells which
/// reaches which (see the module's comment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Several {
    /// Candidates no other one reaches: merge bases.
    pub(super) bases: Box<[gix::ObjectId]>,
    /// Candidates outside the range no candidate reaches through it, below
    /// a bottom no candidate reaches: each is a base unless another
    /// candidate reaches it below the range.
    pub(super) unsettled: Box<[gix::ObjectId]>,
    /// The commits outside the range that the candidates in it reach
    /// through it: with the unsettled candidates' parents, where a walk
    /// below the range that settles them starts.
    pub(super) frontier: Box<[gix::ObjectId]>,
}

/// What an off-line merge's candidates stand on below the range: its second
/// parent's walk met `targets` outside the range, which its first parent's
/// walk met none of and reaches, if at all, only below the range from
/// where it left it (`from`). The candidates hold where the first parent
/// reaches every target (a walk below the range from `from`); otherwise
/// the merge is searched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Asked {
    pub(super) targets: Box<[gix::ObjectId]>,
    pub(super) from: Box<[gix::ObjectId]>,
}

/// A walked range as the landing reads it: its commits in walk order, their
/// places by id, and each one's parents as written.
pub(super) struct Range<'a> {
    pub(super) commits: &'a Arc<[Oid]>,
    pub(super) places: &'a Arc<Places>,
    pub(super) parents: &'a super::walk::ParentLists,
}

impl Range<'_> {
    /// Commit `id`'s place in the range.
    pub(super) fn place(&self, id: &gix::oid) -> Option<usize> {
        self.places
            .get(id, |p| self.commits[p as usize].0.as_ref())
            .map(|p| p as usize)
    }
}

/// The bottom of the tip's first-parent line in the range: the first parent
/// of its oldest commit, `None` when that commit is a root.
pub(super) fn bottom(tip: gix::ObjectId, range: &Range<'_>) -> Option<Option<gix::ObjectId>> {
    let mut at = range.place(&tip)?;
    loop {
        match range.parents.get(at)?.first() {
            None => return Some(None),
            Some(first) => match range.place(first) {
                Some(next) => at = next,
                None => return Some(Some(*first)),
            },
        }
    }
}

/// The landing of the walked `range` on `tip`'s first-parent line:
/// `None` when `tip` is not in the range. The caller has checked the
/// hidden commits against `bottom` ([`bottom`]'s answer): each is it or
/// one of its ancestors. With `levels`, the landing also holds the range's
/// [`Levels`], which the caller has checked the range may have.
pub(super) fn landing(
    tip: gix::ObjectId,
    bottom: Option<gix::ObjectId>,
    range: &Range<'_>,
    levels: bool,
) -> Option<Landing> {
    let tip = u32::try_from(range.place(&tip)?).ok()?;
    let graph = Graph::new(range)?;
    let levels = levels.then(|| Levels::of(&graph).map(Arc::new)).flatten();
    // The line, newest first.
    let mut line = vec![tip];
    while let Some(&next) = graph.parents(*line.last()?).first() {
        if !graph.inside(next) {
            break;
        }
        line.push(next);
    }
    line.reverse();
    /// Not reached by the line yet.
    const NONE: u32 = u32::MAX;
    let mut landed = vec![NONE; graph.ids.len()];
    let mut candidates = HashMap::new();
    let mut several = HashMap::new();
    let mut asked = HashMap::new();
    let mut stack = Vec::new();
    let nodes = graph.nodes();
    let mut settling = Settling {
        bottom: bottom.and_then(|b| graph.node(&b)),
        line_at: vec![0; graph.ids.len()],
        line: line.clone(),
        seen: vec![0; nodes],
        reached: vec![0; nodes],
        stamp: 0,
        stack: Vec::new(),
        budget: OFF_LINE_BUDGET.max(64 * nodes),
    };
    for (k, &at) in line.iter().enumerate() {
        settling.line_at[at as usize] = k as u32 + 1;
    }
    for (k, &at) in line.iter().enumerate() {
        // Landing 0 is outside the range; the line starts at 1.
        let k = k as u32 + 1;
        landed[at as usize] = k;
        let mut found: Vec<u32> = Vec::new();
        // A commit of lower landing, or outside the range, met from the
        // other parents: a common ancestor.
        let mut meet = |p: u32, landed: &[u32]| {
            if graph.inside(p) && matches!(landed[p as usize], NONE) {
                return false;
            }
            if graph.inside(p) && landed[p as usize] == k {
                return false;
            }
            if !found.contains(&p) {
                found.push(p);
            }
            true
        };
        for &other in graph.parents(at).iter().skip(1) {
            if meet(other, &landed) {
                continue;
            }
            if landed[other as usize] == k {
                continue;
            }
            landed[other as usize] = k;
            stack.push(other);
            while let Some(i) = stack.pop() {
                for &p in graph.parents(i) {
                    if meet(p, &landed) {
                        continue;
                    }
                    if landed[p as usize] == NONE {
                        landed[p as usize] = k;
                        stack.push(p);
                    }
                }
            }
        }
        // An octopus's later parents are each merged on the ones before:
        // left to the search.
        if graph.parents(at).len() == 2 {
            settling.put(&graph, at, found, &landed, &mut candidates, &mut several);
        }
    }
    // The merges off the line, once every commit has its landing.
    for at in 0..graph.ids.len() as u32 {
        if let [a, b] = *graph.parents(at)
            && settling.line_at[at as usize] == 0
            && let Some(off) = settling.off_line(&graph, a, b, &landed)
        {
            if !off.asked.is_empty() {
                let targets = graph.ids(&off.asked);
                let from = graph.ids(&off.from);
                asked.insert(graph.id(at), Asked { targets, from });
            }
            settling.put(
                &graph,
                at,
                off.found,
                &landed,
                &mut candidates,
                &mut several,
            );
        }
    }
    Some(Landing {
        candidates,
        several,
        asked,
        levels,
    })
}

/// How many commits the two walks for one merge off the line may meet
/// before it is left to the search (a merge on a long-lived branch off the
/// line, git/git's `maint`, whose own history meets the line only at old
/// releases); all of them together may meet 64 times the range's commits.
const OFF_LINE_BUDGET: usize = 2048;

/// The range's commits and the parents outside it, numbered: a commit of
/// the range is its place in the walk, one outside comes after them all.
struct Graph<'a> {
    /// The range's commits by place, shared with the walk.
    ids: Arc<[Oid]>,
    /// Their places by id.
    places: &'a Arc<Places>,
    /// The parents outside the range, from `ids.len()` on.
    outside: Vec<gix::ObjectId>,
    outside_at: HashMap<gix::ObjectId, u32>,
    /// Where each commit's parents start in `edges` (one more at the end).
    starts: Vec<u32>,
    edges: Vec<u32>,
}

impl<'a> Graph<'a> {
    fn new(range: &Range<'a>) -> Option<Graph<'a>> {
        let parents = range.parents;
        if parents.len() != range.commits.len() {
            return None;
        }
        let n = u32::try_from(parents.len()).ok()?;
        let mut graph = Graph {
            ids: range.commits.clone(),
            places: range.places,
            outside: Vec::new(),
            outside_at: HashMap::new(),
            starts: Vec::with_capacity(parents.len() + 1),
            edges: Vec::with_capacity(parents.len() * 2),
        };
        for ps in parents.iter() {
            graph.starts.push(u32::try_from(graph.edges.len()).ok()?);
            for p in ps {
                let node = match range.place(p) {
                    Some(i) => u32::try_from(i).ok()?,
                    None => match graph.outside_at.get(p) {
                        Some(&o) => o,
                        None => {
                            let o = n.checked_add(u32::try_from(graph.outside.len()).ok()?)?;
                            graph.outside.push(*p);
                            graph.outside_at.insert(*p, o);
                            o
                        }
                    },
                };
                graph.edges.push(node);
            }
        }
        graph.starts.push(u32::try_from(graph.edges.len()).ok()?);
        Some(graph)
    }

    /// How many commits are numbered, in the range and outside it.
    fn nodes(&self) -> usize {
        self.ids.len() + self.outside.len()
    }

    fn inside(&self, node: u32) -> bool {
        (node as usize) < self.ids.len()
    }

    /// The parents of `node` (none for one outside the range).
    fn parents(&self, node: u32) -> &[u32] {
        let at = node as usize;
        match (self.starts.get(at), self.starts.get(at + 1)) {
            (Some(&from), Some(&to)) if self.inside(node) => {
                &self.edges[from as usize..to as usize]
            }
            _ => &[],
        }
    }

    fn node(&self, id: &gix::ObjectId) -> Option<u32> {
        self.outside_at.get(id).copied()
    }

    fn id(&self, node: u32) -> gix::ObjectId {
        let at = node as usize;
        match self.ids.get(at) {
            Some(id) => id.0,
            None => self.outside[at - self.ids.len()],
        }
    }

    fn ids(&self, nodes: &[u32]) -> Box<[gix::ObjectId]> {
        nodes.iter().map(|&n| self.id(n)).collect()
    }
}

/// What settling a merge's several candidates, and finding an off-line
/// merge's, needs of the range.
struct Settling {
    /// The line's bottom, when the range has parents outside it: every
    /// commit outside the range is it or below it.
    bottom: Option<u32>,
    /// Each line commit's place on the line (1 for the oldest), 0 off it.
    line_at: Vec<u32>,
    /// The line, oldest first.
    line: Vec<u32>,
    /// The walk that last met each commit (its stamp).
    seen: Vec<u32>,
    /// The walk from an off-line merge's first parent that last reached
    /// each commit (its stamp).
    reached: Vec<u32>,
    stamp: u32,
    stack: Vec<u32>,
    /// How many more commits the off-line merges' walks may meet.
    budget: usize,
}

/// An off-line merge's candidates ([`Settling::off_line`]).
struct OffLine {
    found: Vec<u32>,
    /// Those outside the range its first parent must reach below it.
    asked: Vec<u32>,
    /// Where its first parent's walk left the range, when any is asked.
    from: Vec<u32>,
}

/// What a walk from a commit through the commits off the line reached.
#[derive(Default)]
struct Reach {
    /// The commits off the line it reached, itself among them.
    off: Vec<u32>,
    /// The highest line commit's place (0: none).
    line: u32,
    /// The commits outside the range it met.
    outside: Vec<u32>,
    /// Whether it reaches the bottom (so every commit outside the range).
    bottom: bool,
}

impl Settling {
    /// Keep merge `at`'s candidates `found`, settled where there are
    /// several.
    fn put(
        &mut self,
        graph: &Graph,
        at: u32,
        found: Vec<u32>,
        landed: &[u32],
        candidates: &mut HashMap<gix::ObjectId, Box<[gix::ObjectId]>>,
        several: &mut HashMap<gix::ObjectId, Several>,
    ) {
        let id = graph.id(at);
        if found.len() > 1 {
            several.insert(id, self.settle(graph, &found, landed));
        }
        candidates.insert(id, graph.ids(&found));
    }

    /// Of a merge's `candidates` (common ancestors of its parents, each in
    /// the range or outside it), which no other reaches, as far as the
    /// range tells: one walk from the candidates' parents through the
    /// commits off the line, stopping at each line commit (which reaches
    /// all of lower landing and the bottom) and at the range's edge.
    fn settle(&mut self, graph: &Graph, candidates: &[u32], landed: &[u32]) -> Several {
        self.stamp += 1;
        let k = self.stamp;
        // The highest line commit the walk met (0: none), whether it met
        // the bottom, and the commits outside the range it met.
        let mut line_met = 0;
        let mut bottom_met = false;
        let mut frontier: Vec<u32> = Vec::new();
        let mut meet = |p: u32, this: &mut Self| {
            if this.seen[p as usize] == k {
                return;
            }
            this.seen[p as usize] = k;
            if !graph.inside(p) {
                bottom_met |= this.bottom == Some(p);
                frontier.push(p);
                return;
            }
            match this.line_at[p as usize] {
                0 => this.stack.push(p),
                j => {
                    line_met = line_met.max(j);
                    bottom_met = true;
                }
            }
        };
        for &c in candidates {
            for &p in graph.parents(c) {
                meet(p, self);
            }
        }
        while let Some(i) = self.stack.pop() {
            for &p in graph.parents(i) {
                meet(p, self);
            }
        }
        // A candidate in the range is reached only through the range: met
        // off the line, or of landing up to the highest line commit met.
        let mut bases: Vec<u32> = candidates
            .iter()
            .copied()
            .filter(|&c| {
                graph.inside(c) && self.seen[c as usize] != k && landed[c as usize] > line_met
            })
            .collect();
        let mut unsettled = Vec::new();
        if bottom_met {
            // Every commit outside the range is reached.
        } else if let Some(bottom) = self.bottom.filter(|b| candidates.contains(b)) {
            // The bottom, unreached, stands above every other outside.
            bases.push(bottom);
        } else {
            unsettled.extend(
                candidates
                    .iter()
                    .copied()
                    .filter(|&c| !graph.inside(c) && self.seen[c as usize] != k),
            );
        }
        if unsettled.is_empty() {
            frontier.clear();
        }
        Several {
            bases: graph.ids(&bases),
            unsettled: graph.ids(&unsettled),
            frontier: graph.ids(&frontier),
        }
    }

    /// The commits the merge bases of `a` and `b` (an off-line merge's
    /// parents) are among, found as a line merge's are: the common
    /// ancestors a walk from `b` meets first, through commits `a` does not
    /// reach. What `a` reaches is its walk through the commits off the
    /// line ([`Reach`]), every commit of landing up to the highest line
    /// commit that walk meets, and outside the range what it meets there
    /// (all of it, past the bottom). A line commit `mj` the walk from `b`
    /// meets that `a` does not reach stands above `a`'s highest line
    /// commit (or what `a` meets outside the range) and `a`'s own commits
    /// of landing `j` or lower: those are candidates, and the walk does
    /// not go below it. A commit outside the range the walk from `b` meets
    /// that `a` may reach only below it is taken as reached, and asked
    /// ([`Asked`]). `None` where the walks pass [`OFF_LINE_BUDGET`]
    /// commits.
    fn off_line(&mut self, graph: &Graph, a: u32, b: u32, landed: &[u32]) -> Option<OffLine> {
        let budget = self.budget.min(OFF_LINE_BUDGET);
        let mut met = 0;
        self.stamp += 1;
        let from_a = self.stamp;
        let mut reach = Reach::default();
        let meet_a = |p: u32, this: &mut Self, reach: &mut Reach| {
            if this.reached[p as usize] == from_a {
                return;
            }
            this.reached[p as usize] = from_a;
            if !graph.inside(p) {
                reach.bottom |= this.bottom == Some(p);
                reach.outside.push(p);
                return;
            }
            match this.line_at[p as usize] {
                0 => {
                    reach.off.push(p);
                    this.stack.push(p);
                }
                j => {
                    reach.line = reach.line.max(j);
                    reach.bottom = true;
                }
            }
        };
        meet_a(a, self, &mut reach);
        while let Some(i) = self.stack.pop() {
            met += 1;
            if met > budget {
                self.stack.clear();
                self.budget -= budget;
                return None;
            }
            for &p in graph.parents(i) {
                meet_a(p, self, &mut reach);
            }
        }
        // Whether `a` reaches `c`: `None` where the range cannot tell.
        let reaches_a = |c: u32, this: &Self| {
            if graph.inside(c) {
                Some(this.reached[c as usize] == from_a || landed[c as usize] <= reach.line)
            } else if reach.bottom || this.reached[c as usize] == from_a {
                Some(true)
            } else if reach.outside.is_empty() {
                // `a`'s history never leaves the range.
                Some(false)
            } else {
                None
            }
        };
        self.stamp += 1;
        let from_b = self.stamp;
        let mut found: Vec<u32> = Vec::new();
        let mut asked: Vec<u32> = Vec::new();
        // The highest line commit met that `a` does not reach.
        let mut above = 0;
        let mut meet_b = |c: u32, this: &mut Self| {
            if this.seen[c as usize] == from_b {
                return;
            }
            this.seen[c as usize] = from_b;
            match reaches_a(c, this) {
                Some(true) => found.push(c),
                None => {
                    found.push(c);
                    asked.push(c);
                }
                Some(false) if graph.inside(c) => match this.line_at[c as usize] {
                    0 => this.stack.push(c),
                    j => above = above.max(j),
                },
                Some(false) => {}
            }
        };
        let walked = (|| {
            meet_b(b, self);
            while let Some(i) = self.stack.pop() {
                met += 1;
                if met > budget {
                    return None;
                }
                for &p in graph.parents(i) {
                    meet_b(p, self);
                }
            }
            Some(())
        })();
        self.stack.clear();
        self.budget -= met.min(budget);
        walked?;
        if above > 0 {
            // What the line commit holds of `a`'s.
            if reach.line > 0 {
                found.push(self.line[reach.line as usize - 1]);
            } else {
                found.extend_from_slice(&reach.outside);
            }
            found.extend(reach.off.iter().filter(|&&c| landed[c as usize] <= above));
        }
        found.sort_unstable();
        found.dedup();
        let from = if asked.is_empty() {
            Vec::new()
        } else {
            reach.outside
        };
        Some(OffLine { found, asked, from })
    }
}

/// A [`Landing`] handed from the walk to the diff threads, which start
/// before the walk ends: a thread that needs it waits until it is put.
#[derive(Default)]
pub(super) struct Shared {
    /// `Some` once put: the landing, or `None` where there is none.
    slot: Mutex<Option<Option<Arc<Landing>>>>,
    ready: Condvar,
}

impl Shared {
    /// Put the landing (`None`: there is none, every merge is searched);
    /// the first put stands.
    pub(super) fn put(&self, landing: Option<Landing>) {
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(landing.map(Arc::new));
            self.ready.notify_all();
        }
    }

    /// Whether the landing (or that there is none) was put.
    pub(super) fn is_put(&self) -> bool {
        self.slot
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// The landing, once it is put.
    pub(super) fn get(&self) -> Option<Arc<Landing>> {
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(landing) = &*slot {
                return landing.clone();
            }
            slot = self.ready.wait(slot).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Puts "no landing" when dropped before one was put, so that no diff
/// thread waits for a walk that failed.
pub(super) struct Putter(pub(super) Arc<Shared>);

impl Drop for Putter {
    fn drop(&mut self) {
        self.0.put(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> gix::ObjectId {
        gix::ObjectId::from_bytes_or_panic(&[n; 20])
    }

    /// The landing with the line's bottom as the range gives it.
    fn land(tip: gix::ObjectId, walked: &Walked) -> Option<Landing> {
        let range = walked.range();
        landing(tip, bottom(tip, &range).flatten(), &range, true)
    }

    /// A walked range's commits, their places and their parents.
    struct Walked {
        commits: Arc<[Oid]>,
        places: Arc<Places>,
        parents: super::super::walk::ParentLists,
    }

    impl Walked {
        fn range(&self) -> Range<'_> {
            Range {
                commits: &self.commits,
                places: &self.places,
                parents: &self.parents,
            }
        }
    }

    /// A range from `(commit, parents)` pairs in walk order (newest first).
    fn range(commits: &[(u8, &[u8])]) -> Walked {
        let mut parents = super::super::walk::ParentLists::default();
        for (_, ps) in commits {
            parents.push(&ps.iter().map(|&p| id(p)).collect::<Vec<_>>());
        }
        let ids: Vec<Oid> = commits.iter().map(|(c, _)| Oid(id(*c))).collect();
        let places = Arc::new(Places::of(&ids));
        Walked {
            commits: ids.into(),
            places,
            parents,
        }
    }

    #[test]
    fn a_topic_merged_into_the_line_has_its_fork_point_as_base() {
        // 1 (outside) - 2 - 3 - 6 (merge of 5)
        //                \- 4 - 5
        let walked = range(&[(6, &[3, 5]), (5, &[4]), (4, &[2]), (3, &[2]), (2, &[1])]);
        let landing = land(id(6), &walked).expect("tip in range");
        assert_eq!(landing.candidates(&id(6)), Some(&[id(2)][..]));
    }

    #[test]
    fn a_topic_forked_below_the_range_stands_on_a_commit_outside_it() {
        // 1 (outside) - 2 - 4 (merge of 3); 3's parent is 1.
        let walked = range(&[(4, &[2, 3]), (3, &[1]), (2, &[1])]);
        let landing = land(id(4), &walked).expect("tip in range");
        assert_eq!(landing.candidates(&id(4)), Some(&[id(1)][..]));
        assert_eq!(bottom(id(4), &walked.range()), Some(Some(id(1))));
    }

    #[test]
    fn a_second_parent_the_line_already_reaches_is_the_base() {
        // 2 - 3 - 4 (merge of 2, already below 3)
        let walked = range(&[(4, &[3, 2]), (3, &[2]), (2, &[1])]);
        let landing = land(id(4), &walked).expect("tip in range");
        assert_eq!(landing.candidates(&id(4)), Some(&[id(2)][..]));
    }

    #[test]
    fn a_history_of_its_own_merged_again_meets_its_last_merge() {
        // The line 2 - 3 - 5 - 7; a separate root 10 - 11, merged at 3 (11)
        // and again at 7 (12, on 11).
        let walked = range(&[
            (7, &[5, 12]),
            (12, &[11]),
            (5, &[3]),
            (3, &[2, 11]),
            (11, &[10]),
            (10, &[]),
            (2, &[1]),
        ]);
        let landing = land(id(7), &walked).expect("tip in range");
        assert_eq!(
            landing.candidates(&id(3)),
            Some(&[][..]),
            "no shared history yet"
        );
        assert_eq!(landing.candidates(&id(7)), Some(&[id(11)][..]));
    }

    #[test]
    fn a_topic_that_merged_the_line_meets_it_twice() {
        // Line 2 - 3 - 4 - 8; topic 5 (on 2) - 6 (merges 3) - 7; 8 merges 7.
        let walked = range(&[
            (8, &[4, 7]),
            (7, &[6]),
            (6, &[5, 3]),
            (5, &[2]),
            (4, &[3]),
            (3, &[2]),
            (2, &[1]),
        ]);
        let landing = land(id(8), &walked).expect("tip in range");
        let mut found = landing.candidates(&id(8)).expect("a line merge").to_vec();
        found.sort();
        assert_eq!(found, vec![id(2), id(3)], "2 sits below 3: reduced later");
        // The line commit 3 reaches 2 and the bottom 1: the range settles it.
        assert_eq!(several(&landing, 8), (vec![3], vec![], vec![]));
        assert_eq!(
            landing.candidates(&id(6)),
            Some(&[id(2)][..]),
            "off the line: 5 reaches the line at 2, and 3 is a line commit above"
        );
    }

    fn several(landing: &Landing, merge: u8) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
        let several = landing.several(&id(merge)).expect("several candidates");
        let numbers = |ids: &[gix::ObjectId]| {
            let mut n: Vec<u8> = ids.iter().map(|i| i.as_bytes()[0]).collect();
            n.sort();
            n
        };
        (
            numbers(&several.bases),
            numbers(&several.unsettled),
            numbers(&several.frontier),
        )
    }

    #[test]
    fn topics_that_reach_no_candidate_are_all_bases() {
        // Line 2 - 3 - 4 - 9. Topic 5 (on 2) and topic 6 (on 3) are merged
        // into 7 and 8, which cross-merge them (a criss-cross off the
        // line): 9 merges 8, which stands on 5 and 6 (of lower
        // landing: 4 merged 7, which holds them).
        let walked = range(&[
            (9, &[4, 8]),
            (8, &[6, 5]),
            (4, &[3, 7]),
            (7, &[5, 6]),
            (6, &[3]),
            (5, &[2]),
            (3, &[2]),
            (2, &[1]),
        ]);
        let landing = land(id(9), &walked).expect("tip in range");
        // 5 and 6 landed at 4 with 7; neither reaches the other. The walk
        // meets line commits 2 and 3: the bottom is reached.
        assert_eq!(several(&landing, 9), (vec![5, 6], vec![], vec![]));
    }

    #[test]
    fn outside_candidates_are_settled_by_the_bottom_or_left_with_a_frontier() {
        // The bottom 1 stands on 11 and 10, a history of its own outside
        // the range (11 on 10). Line 2 (on 1) - 3 - 4 - 5.
        // 3 merges 20 (on 10).
        // 4 merges 21 (on 20 and 11): candidates 20 (in the range, off the
        //   line, reaching 10 only) and 11 (outside): 11 is unsettled, and
        //   the walk below starts from 10.
        // 5 merges 22 (on 1 and 11): 1, the bottom, is a base and 11 below
        //   it is not.
        let walked = range(&[
            (5, &[4, 22]),
            (22, &[1, 11]),
            (4, &[3, 21]),
            (21, &[20, 11]),
            (3, &[2, 20]),
            (20, &[10]),
            (2, &[1]),
        ]);
        let landing = land(id(5), &walked).expect("tip in range");
        assert_eq!(several(&landing, 4), (vec![20], vec![11], vec![10]));
        assert_eq!(several(&landing, 5), (vec![1], vec![], vec![]));
        // 23 (on 11 and 10) merged with 24 (on 2 and 10): candidates 2, 10
        // and 11; the walk from 2 meets the bottom, so every outside
        // candidate is reached.
        let walked = range(&[
            (6, &[2, 25]),
            (25, &[23, 24]),
            (24, &[2, 10]),
            (23, &[11, 10]),
            (2, &[1]),
        ]);
        let landing = land(id(6), &walked).expect("tip in range");
        assert_eq!(landing.candidates(&id(6)).map(<[_]>::len), Some(3));
        assert_eq!(several(&landing, 6), (vec![2], vec![], vec![]));
    }

    #[test]
    fn a_merge_off_the_line_is_answered_where_the_range_tells() {
        // Line 2 (on the bottom 1) - 3, merging 7 = (5, 6); 5 stands on 10
        // and 6 on 11, both outside the range and below the bottom: whether
        // 5 reaches 11 below the range, the range cannot tell; it asks.
        let walked = range(&[
            (3, &[2, 7]),
            (7, &[5, 6]),
            (6, &[11]),
            (5, &[10]),
            (2, &[1]),
        ]);
        let landing = land(id(3), &walked).expect("tip in range");
        assert_eq!(landing.candidates(&id(7)), Some(&[id(11)][..]));
        assert_eq!(
            landing
                .asked(&id(7))
                .map(|asked| (&asked.targets[..], &asked.from[..])),
            Some((&[id(11)][..], &[id(10)][..]))
        );
        // The whole history: 4, a root of its own, under both sides of 7.
        let walked = range(&[
            (8, &[3, 7]),
            (7, &[5, 6]),
            (6, &[4]),
            (5, &[4]),
            (4, &[]),
            (3, &[2]),
            (2, &[]),
        ]);
        let landing = land(id(8), &walked).expect("tip in range");
        assert_eq!(landing.candidates(&id(7)), Some(&[id(4)][..]));
        // 9 = (6, 3) off the line (merged by 10): 6 holds 4 and 3 holds 2,
        // two roots: no common ancestor.
        let walked = range(&[
            (10, &[8, 9]),
            (9, &[6, 3]),
            (8, &[3, 7]),
            (7, &[5, 6]),
            (6, &[4]),
            (5, &[4]),
            (4, &[]),
            (3, &[2]),
            (2, &[]),
        ]);
        let landing = land(id(10), &walked).expect("tip in range");
        assert_eq!(landing.candidates(&id(9)), Some(&[][..]));
    }

    #[test]
    fn an_octopus_is_left_to_the_search_and_a_tip_outside_has_no_landing() {
        let walked = range(&[(5, &[2, 3, 4]), (4, &[1]), (3, &[1]), (2, &[1])]);
        let landing = land(id(5), &walked).expect("tip in range");
        assert_eq!(landing.candidates(&id(5)), None);
        assert!(land(id(9), &walked).is_none());
        assert_eq!(bottom(id(9), &walked.range()), None);
    }

    #[test]
    fn a_line_down_to_a_root_has_no_bottom() {
        let walked = range(&[(3, &[2]), (2, &[])]);
        assert_eq!(bottom(id(3), &walked.range()), Some(None));
        let landing = land(id(3), &walked).expect("tip in range");
        assert!(landing.candidates.is_empty(), "no merge");
    }

    #[test]
    fn an_off_line_merge_meeting_below_the_range_asks_what_its_first_parent_reaches() {
        // Outside: 4 (the line's old merge of 20's history), 5 (the
        // bottom), 20. In the range: the line 6 - 7 (merge of 13); 13
        // merges 22 (20 - 21 - 22) into the topic 4 - 11 - 12, whose walk
        // meets only 4 outside the range: whether 4 reaches 20 is asked.
        let walked = range(&[
            (7, &[6, 13]),
            (6, &[5]),
            (13, &[12, 22]),
            (12, &[11]),
            (11, &[4]),
            (22, &[21]),
            (21, &[20]),
        ]);
        let landing = land(id(7), &walked).expect("tip in range");
        assert_eq!(landing.candidates(&id(13)), Some(&[id(20)][..]));
        assert_eq!(
            landing.asked(&id(13)),
            Some(&Asked {
                targets: [id(20)].into(),
                from: [id(4)].into(),
            })
        );
        // The line merge meets both outside the range, and asks nothing.
        assert_eq!(landing.candidates(&id(7)), Some(&[id(20), id(4)][..]));
        assert!(landing.asked(&id(7)).is_none());
    }

    #[test]
    fn levels_count_up_from_the_roots_in_any_walk_order() {
        // 1 (outside) - 2 - 3 - 6 (merge of 5, a duplicate parent too);
        // 2 - 4 - 5, and 7 a root of its own merged by 5. Listed with
        // parents before children (a walk misled by dates).
        let walked = range(&[
            (2, &[1]),
            (4, &[2]),
            (6, &[3, 5, 5]),
            (3, &[2]),
            (5, &[4, 7]),
            (7, &[]),
        ]);
        let landing = landing(id(6), None, &walked.range(), true).expect("tip in range");
        let levels = landing.levels().expect("asked for");
        let got: Vec<u32> = [1, 2, 3, 4, 5, 6, 7, 8]
            .iter()
            .map(|&n| levels.get(&id(n)))
            .collect();
        // Outside the range (1) and unknown (8): 0.
        assert_eq!(got, [0, 1, 2, 2, 3, 4, 1, 0]);
        let unasked = super::landing(id(6), None, &walked.range(), false).expect("tip in range");
        assert!(unasked.levels().is_none());
    }

    #[test]
    fn a_cycle_has_no_levels() {
        // 3 and 4 name each other (no history can; a corrupt one might).
        let walked = range(&[(5, &[4]), (4, &[3]), (3, &[4, 2]), (2, &[])]);
        let graph = Graph::new(&walked.range()).expect("numbered");
        assert!(Levels::of(&graph).is_none());
        let walked = range(&[(5, &[4]), (4, &[3]), (3, &[2]), (2, &[])]);
        let graph = Graph::new(&walked.range()).expect("numbered");
        assert_eq!(Levels::of(&graph).map(|l| l.get(&id(5))), Some(4));
    }

    #[test]
    fn a_waiting_thread_gets_the_landing_put_or_none_on_drop() {
        let shared = Arc::new(Shared::default());
        let waiter = {
            let shared = shared.clone();
            std::thread::spawn(move || shared.get().is_none())
        };
        drop(Putter(shared.clone()));
        assert!(waiter.join().expect("joined"), "no landing");
        // The first put stands.
        shared.put(Some(Landing::default()));
        assert!(shared.get().is_none());
    }
}
