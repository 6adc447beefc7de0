//! Commit-range provenance (docs/provenance.md): every changed path of every commit
//! in BASE..TIP lies in the scope of the task the commit belongs to.
//!
//! What it proves, in order: BASE resolves and is an ancestor of TIP; the
//! range is not empty; for every commit reachable from TIP and not from BASE
//! (all parents), every path changed against its parent — additions,
//! modifications, deletions, mode and type changes, gitlinks, both sides of
//! renames — is in scope. The range's net diff is never used: a path changed
//! and later restored is still refused. Merges are refused, or inspected for
//! the paths the merge itself changed. Commits reachable from the policy's
//! `upstream` ref are imported: listed, not scope-checked.
//!
//! Attribution: a commit belongs to the task its `Task:` trailer names; else
//! to the task given (`--task`, the active task); else to the one task whose
//! file the range adds or changes. So a CI run needs no local state.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use crate::git::{Change, ChangeKind, GitError, MergeChanges, Oid, Renames, Repo, WalkedChanges};
use crate::path::RepoPath;
use crate::policy::{Merges, Policy};
use crate::scope::{self, Scope};
use crate::task::{self as tasks, Task};
use crate::verdict::{Finding, Severity, Subject};

pub const CHECK: &str = "provenance";

/// Where a range starts.
#[derive(Debug, Clone)]
pub enum Base {
    /// An explicit base commit, which must be an ancestor of the tip.
    Commit(Oid),
    /// A task's own range (`gate check`): its baseline, an ancestor of the
    /// tip, and the commits the remotes already hold (`others`, the
    /// remote-tracking branches): another's commit a rebase or a merge of
    /// the main line brought in is not the task's work.
    Within { base: Oid, others: Vec<Oid> },
    /// A new branch: the commits not reachable from any of these (may be empty).
    Hidden(Vec<Oid>),
}

impl Base {
    /// The commits whose history the range leaves out (`rev-list ^…`).
    pub fn hidden(&self) -> Vec<Oid> {
        match self {
            Base::Commit(b) => vec![*b],
            Base::Within { base, others } => std::iter::once(*base)
                .chain(others.iter().copied())
                .collect(),
            Base::Hidden(h) => h.clone(),
        }
    }
}

/// A range to prove.
#[derive(Debug, Clone)]
pub struct RangeSpec {
    pub base: Base,
    pub tip: Oid,
    /// How to name the range to people (`A..B`, a ref name).
    pub label: String,
    /// The pushed ref, attached to findings.
    pub ref_name: Option<String>,
}

/// How the check runs.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// A push (docs/provenance.md#pre-push): an empty range is `info`
    /// (nothing new to prove), a blocker otherwise; a commit a task's
    /// baseline already holds belongs to that task only by its trailer; the
    /// summary counts the attributed commits.
    pub push: bool,
    /// A task's own range, `baseline..HEAD` (`gate check` without
    /// `--range`): an empty one is a task with no commits yet, `info`
    /// (docs/provenance.md).
    pub task_range: bool,
    /// Where the walk's meter goes (docs: `crate::progress`); off by default.
    pub progress: crate::progress::Sink,
}

fn finding(cause: &'static str, message: String, decide: &str, subject: Subject) -> Finding {
    weighed(Severity::Blocker, cause, message, decide, subject)
}

fn weighed(
    severity: Severity,
    cause: &'static str,
    message: String,
    decide: &str,
    subject: Subject,
) -> Finding {
    Finding::new(CHECK, cause, severity, message, decide.into()).with_subject(subject)
}

/// `unattributed_commit` with the rules' advice, shared by every such
/// finding rather than copied (a whole history's range holds one a commit).
fn unattributed(message: String, rules: &Rules, subject: Subject) -> Finding {
    Finding {
        decide: rules.unattributed_decide.clone(),
        ..finding("unattributed_commit", message, "", subject)
    }
}

fn unknown(cause: &'static str, message: String, decide: &str, subject: Subject) -> Finding {
    Finding::unknown(CHECK, cause, message, decide.into()).with_subject(subject)
}

fn git_unknown(e: &GitError, subject: Subject) -> Finding {
    match e {
        GitError::ShallowBoundary { .. } | GitError::ShallowMergeBase { .. } => {
            unknown("shallow_history", e.to_string(), SHALLOW_DECIDE, subject)
        }
        GitError::MissingObject { .. } | GitError::MissingInDiff { .. } => unknown(
            "object_missing",
            e.to_string(),
            "fetch the missing history (git fetch), or repair the repository (git fsck)",
            subject,
        ),
        _ => unknown(
            "input_unreadable",
            e.to_string(),
            "repair the repository (git fsck), then check again",
            subject,
        ),
    }
}

/// `range` with the commits of each of `not` left out (`gate check --range
/// A..B --not REV`), as [`parse_range`] reads it: `A..B ^REV…`.
pub fn with_exclusions(range: &str, not: &[String]) -> String {
    let mut spec = range.to_string();
    for rev in not {
        spec.push_str(" ^");
        spec.push_str(rev);
    }
    spec
}

/// Resolve `A..B` (`A..` and `..B` mean HEAD on the empty side), followed
/// by any `^REV` whose commits are left out too ([`with_exclusions`]).
pub fn parse_range(repo: &Repo, spec: &str) -> Result<RangeSpec, Box<Finding>> {
    let (range, left_out) = range_words(spec)?;
    let mut others = Vec::new();
    for &rev in &left_out {
        let id = repo.resolve_commit(rev).map_err(|e| {
            unknown(
                "range_invalid",
                format!("--not {rev}: does not resolve: {e}"),
                "name a commit or a ref that exists here (git fetch)",
                Subject::default(),
            )
        })?;
        others.push(id);
    }
    let mut range = parse_plain_range(repo, range)?;
    if let Base::Commit(base) = range.base
        && !others.is_empty()
    {
        range.base = Base::Within { base, others };
        range.label = format!("{}, less {}", range.label, left_out.join(", "));
    }
    // Its walk opens gate's readers of the packs: the reads before it (the
    // tip's task files) go through them too, not through gix's, which
    // would map the packs and check their index a second time.
    repo.open_packs();
    Ok(range)
}

/// A range as [`parse_range`] reads it, by its words alone: the range
/// (`A..B`) and the revisions after it whose commits are left out
/// (`^REV`); any other word is `range_invalid`.
fn range_words(spec: &str) -> Result<(&str, Vec<&str>), Box<Finding>> {
    let mut words = spec.split(' ');
    let range = words.next().unwrap_or_default();
    let mut left_out = Vec::new();
    for word in words.filter(|w| !w.is_empty()) {
        let Some(rev) = word.strip_prefix('^') else {
            return Err(Box::new(unknown(
                "range_invalid",
                format!("`{spec}` is not a range A..B"),
                "give the range as BASE..TIP",
                Subject::default(),
            )));
        };
        left_out.push(rev);
    }
    Ok((range, left_out))
}

/// `A..B`'s two sides, an empty one `HEAD`; not `A..B`, or `A...B`, is
/// `range_invalid`.
fn range_sides(spec: &str) -> Result<(&str, &str), Box<Finding>> {
    let Some((a, b)) = spec.split_once("..") else {
        return Err(Box::new(unknown(
            "range_invalid",
            format!("`{spec}` is not a range A..B"),
            "give the range as BASE..TIP",
            Subject::default(),
        )));
    };
    if b.starts_with('.') {
        return Err(Box::new(unknown(
            "range_invalid",
            format!("`{spec}`: symmetric ranges (A...B) are not provenance ranges"),
            "give the range as BASE..TIP",
            Subject::default(),
        )));
    }
    let a = if a.is_empty() { "HEAD" } else { a };
    let b = if b.is_empty() { "HEAD" } else { b };
    Ok((a, b))
}

fn parse_plain_range(repo: &Repo, spec: &str) -> Result<RangeSpec, Box<Finding>> {
    let (a, b) = range_sides(spec)?;
    let base = repo
        .resolve_commit(a)
        .map_err(|e| base_unavailable(repo, a, &e))?;
    let tip = repo.resolve_commit(b).map_err(|e| {
        unknown(
            "tip_unavailable",
            format!("the tip `{b}` does not resolve: {e}"),
            "name a commit that exists here",
            Subject::default(),
        )
    })?;
    Ok(RangeSpec {
        base: Base::Commit(base),
        tip,
        label: format!("{a}..{b}"),
        ref_name: None,
    })
}

/// A baseline that cannot be read. In a shallow clone the likeliest cause is
/// the boundary, and the remedy is to fetch: `shallow_history`.
fn base_unavailable(repo: &Repo, spec: &str, e: &GitError) -> Finding {
    let subject = Subject {
        commit: Oid::from_hex(spec).map(|o| o.to_hex()),
        ..Subject::default()
    };
    let absent = matches!(
        e,
        GitError::MissingObject { .. } | GitError::UnknownRevision { .. }
    );
    if absent && repo.is_shallow() {
        return unknown(
            "shallow_history",
            format!(
                "the baseline `{spec}` is not in this shallow clone ({e}): it may lie beyond the clone's boundary"
            ),
            SHALLOW_DECIDE,
            subject,
        );
    }
    unknown(
        "baseline_unavailable",
        format!("the baseline `{spec}` is not available: {e}"),
        "fetch the history that holds it (git fetch), or correct the baseline",
        subject,
    )
}

const SHALLOW_DECIDE: &str = "fetch the full history (git fetch --unshallow, or a full-depth checkout in CI) and check again";

/// A task's own range (docs/provenance.md, "A task's range"): the commits
/// of HEAD that are neither in its baseline nor on any remote-tracking
/// branch — what this clone knows the remotes already hold. So after `git
/// rebase origin/main` or `git merge origin/main` a teammate's commits are
/// not the task's work, and once the work is pushed there is nothing new
/// to prove. A baseline a rebase rewrote (no longer an ancestor of HEAD)
/// stops choosing commits: the range starts where it meets HEAD, and the
/// label says so.
pub fn task_range(repo: &Repo, task: &Task) -> Result<RangeSpec, Box<Finding>> {
    let baseline = &task.record.baseline;
    let base = repo
        .resolve_commit(baseline)
        .map_err(|e| base_unavailable(repo, baseline, &e))?;
    let tip = repo
        .head()
        .map_err(|e| git_unknown(&e, Subject::default()))?
        .id()
        .ok_or_else(|| {
            unknown(
                "tip_unavailable",
                "HEAD is an unborn branch: it has no commit yet".into(),
                "commit the work first, or check out the branch that holds it",
                Subject::default(),
            )
        })?;
    let others: Vec<Oid> = repo
        .tracking_branches()
        .map_err(|e| git_unknown(&e, Subject::default()))?
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    let mut label = format!("{}..HEAD", base.short());
    let mut from = base;
    // Whether the baseline still leads to HEAD; what cannot be read is the
    // walk's to report, from the baseline as recorded.
    if tip != base
        && let Ok(false) = repo.is_ancestor(base, tip)
        && let Ok(Some(meet)) = repo.merge_base(base, tip)
    {
        label = format!(
            "{}..HEAD (the baseline {} was rewritten, by a rebase: from where it meets HEAD)",
            meet.short(),
            base.short()
        );
        from = meet;
    }
    if !others.is_empty() {
        label.push_str(", less the remote-tracking branches");
    }
    Ok(RangeSpec {
        base: Base::Within { base: from, others },
        tip,
        label,
        ref_name: None,
    })
}

/// One task as provenance sees it.
#[derive(Debug, Clone)]
pub struct TaskView {
    /// The compiled scope, or why it could not be read.
    pub scope: Result<Scope, String>,
    /// The task's recorded baseline (absent when the task is unreadable).
    pub baseline: Option<String>,
    /// The scope additions its scope includes (`gate task scope add`).
    pub added: Vec<crate::brief::ScopeAddition>,
    /// Whether it is closed (completed or abandoned) at the tip: a commit
    /// naming it is asked whether it was closed before that commit.
    pub closed: bool,
}

/// The tasks commits can belong to.
#[derive(Debug, Clone, Default)]
pub struct TaskSet {
    tasks: BTreeMap<String, TaskView>,
    /// The task of commits without a trailer (`--task`, the active task).
    default: Option<String>,
    /// Task listings that could not be read: every answer that depends on
    /// which tasks exist is unknown.
    unreadable: Vec<String>,
}

impl TaskSet {
    /// Tasks from the tip's tree (`.gate/tasks/*.md`), then from the work
    /// tree when given (a local task not committed yet), plus `default`.
    /// The tip's copy of a task wins over the work tree's (it is what the
    /// range holds); `default` (`--task`, the active task) wins over both.
    pub fn gather(
        repo: &Repo,
        worktree: Option<&Path>,
        tip: Oid,
        default: Option<&Task>,
    ) -> TaskSet {
        TaskSet::gather_held(repo, worktree, tip, default, &[])
    }

    /// [`gather`](Self::gather), each task's frozen fields (its scope, its
    /// baseline, its names) held to its record at the first of `bases` that
    /// holds its file: a range that rewrites a task's `scope` (to `**`, say)
    /// is judged by the scope recorded before it, whatever the brief check's
    /// mode (docs/trust.md). Its scope additions are the tip's: appended,
    /// they are judged as the task's own widening, and listed for review.
    pub fn gather_held(
        repo: &Repo,
        worktree: Option<&Path>,
        tip: Oid,
        default: Option<&Task>,
        bases: &[Oid],
    ) -> TaskSet {
        let mut set = TaskSet::default();
        match repo.list_dir(tip, &RepoPath::from(tasks::TASKS_DIR)) {
            Ok(entries) => {
                for (path, blob, _) in entries {
                    let Some(id) = path
                        .to_str()
                        .and_then(|p| p.rsplit('/').next())
                        .and_then(|n| n.strip_suffix(".md"))
                    else {
                        continue;
                    };
                    let view = match repo.read_blob(blob) {
                        Ok(bytes) => view_from_text(
                            String::from_utf8(bytes).map_err(|_| "not UTF-8".to_string()),
                            &path.as_path(),
                            recorded_at(repo, bases, &path),
                        ),
                        Err(e) => TaskView {
                            scope: Err(e.to_string()),
                            baseline: None,
                            added: Vec::new(),
                            closed: false,
                        },
                    };
                    set.tasks.insert(id.to_string(), view);
                }
            }
            // A task the listing did not give would leave its commits
            // `unknown_task` where the answer is "cannot tell".
            Err(e) => set.unreadable.push(format!(
                "the task files of {} could not be listed: {e}",
                tip.short()
            )),
        }
        if let Some(root) = worktree {
            match tasks::ids(root) {
                Ok(ids) => {
                    for id in ids {
                        if set.tasks.contains_key(&id) {
                            continue;
                        }
                        let view = match tasks::load(root, &id) {
                            Ok(task) => view_of(&task),
                            Err(e) => TaskView {
                                scope: Err(e.to_string()),
                                baseline: None,
                                added: Vec::new(),
                                closed: false,
                            },
                        };
                        set.tasks.insert(id, view);
                    }
                }
                Err(e) => set.unreadable.push(format!(
                    "the work tree's task files could not be listed: {e}"
                )),
            }
        }
        if let Some(t) = default {
            let file = tasks::task_file(&t.record.id);
            let path = RepoPath::from(file.to_string_lossy().as_ref());
            let mut held = t.clone();
            held.record = held_to(&t.record, recorded_at(repo, bases, &path));
            let view = view_of(&held);
            set.tasks.insert(t.record.id.clone(), view);
            set.default = Some(t.record.id.clone());
        }
        set
    }

    pub fn get(&self, id: &str) -> Option<&TaskView> {
        self.tasks.get(id)
    }

    /// Make the gathered task `id` the one commits without a trailer
    /// belong to (`--task` where no work tree holds task files); `false`
    /// when no such task was gathered.
    pub fn set_default(&mut self, id: &str) -> bool {
        let known = self.tasks.contains_key(id);
        if known {
            self.default = Some(id.to_string());
        }
        known
    }
}

fn view_of(task: &Task) -> TaskView {
    TaskView {
        closed: task.record.status != tasks::TaskStatus::Active,
        scope: Scope::new(&task.scope(), &task.record.id),
        added: task.scope_added.clone(),
        baseline: Some(task.record.baseline.clone()),
    }
}

/// The task record the file at `path` holds in the first of `bases` that
/// has it, when it parses (what a range's rewrite of it is judged against).
fn recorded_at(repo: &Repo, bases: &[Oid], path: &RepoPath) -> Option<tasks::TaskRecord> {
    bases.iter().find_map(|base| {
        let (blob, _) = repo.entry_at(*base, path).ok()??;
        let text = String::from_utf8(repo.read_blob(blob).ok()?).ok()?;
        tasks::parse(&path.as_path(), text).ok().map(|t| t.record)
    })
}

/// `record` with the frozen fields of `recorded`, the same task's record
/// before the range. A closed task's record under the same id with another
/// `created_at` (its file deleted, a task started again under the id)
/// holds nothing; an active one holds whatever `created_at` the range
/// writes (rewriting it is a rewrite like any other).
fn held_to(record: &tasks::TaskRecord, recorded: Option<tasks::TaskRecord>) -> tasks::TaskRecord {
    match recorded {
        Some(r) if r.created_at == record.created_at || r.status == tasks::TaskStatus::Active => {
            record.with_frozen_of(&r)
        }
        _ => record.clone(),
    }
}

fn view_from_text(
    text: Result<String, String>,
    file: &Path,
    recorded: Option<tasks::TaskRecord>,
) -> TaskView {
    match text.and_then(|t| tasks::parse(file, t).map_err(|e| e.to_string())) {
        Ok(mut task) => {
            task.record = held_to(&task.record, recorded);
            view_of(&task)
        }
        Err(e) => TaskView {
            scope: Err(e),
            baseline: None,
            added: Vec::new(),
            closed: false,
        },
    }
}

pub use crate::git::trailers::trailer_values;

/// One commit read and diffed, waiting for its task: the range's task
/// files decide it (CI, a fresh clone) once every commit has been read.
struct Pending {
    index: usize,
    id: Oid,
    merge: bool,
    /// `None` once let go ([`Tally::hold`]): read again if the one task
    /// the range touches needs them ([`attribute_pending`]).
    changes: Option<Vec<Change>>,
}

/// A [`Pending`] commit as the tally keeps it: its id is the range's at
/// its index, its changes (while held) in [`Tally::held_changes`]. A whole
/// history's commits wait (git/git: 80,000): 12 bytes each, where with
/// the id, a `usize` index and the changes inline they took 56.
struct Waiting {
    index: u32,
    /// Its changes' place in [`Tally::held_changes`]; [`NOT_HELD`] once
    /// let go.
    changes: u32,
    merge: bool,
}

/// A waiting commit whose changes were let go.
const NOT_HELD: u32 = u32::MAX;

impl Waiting {
    fn holds(&self) -> bool {
        self.changes != NOT_HELD
    }
}

/// A range this long hands back the memory its diff threads freed once
/// they end (`platform::return_freed_memory`): the walk's own length past
/// which it waits for them to end.
const LONG_RANGE: usize = crate::git::LONG_WALK;

/// How many changes the pending commits hold at most. Past it, every
/// pending commit lets its changes go and stops holding them, so memory
/// stays flat over a long range whose commits name no task (a whole
/// history has hundreds of thousands of changes). They are needed only
/// when exactly one task's file is in the range, and are then read again
/// (one more walk of the range, diffing only those commits).
const PENDING_HELD: usize = 20_000;

/// Prove a range. Returns a one-line summary and the findings, grouped by
/// commit in walk order (newest first).
///
/// Each commit is read once and diffed once; its changes are checked as
/// soon as its task is known (a trailer, `--task` or the active task) and
/// then dropped, so memory stays flat over long ranges. Only commits whose
/// task depends on the whole range are kept until the end.
pub fn check(
    repo: &Repo,
    policy: &Policy,
    tasks: &TaskSet,
    range: &RangeSpec,
    opts: &Options,
) -> (String, Vec<Finding>) {
    let (summary, findings, _) = check_walked(repo, policy, tasks, range, opts);
    (summary, findings)
}

/// The task files a range's commits change, as [`check_walked`]'s diffs
/// saw them, so that a caller asking which tasks a range touches need not
/// diff the range again (pre-push, docs/tasks.md#closing-a-task).
#[derive(Debug, Default)]
pub struct ChangedTasks {
    /// The task of every path a diffed commit changed: deletions and both
    /// sides of a rename too.
    pub tasks: BTreeSet<String>,
    /// The commits of the range not diffed against each parent here
    /// (merges, imported commits, shallow boundaries).
    pub undiffed: Vec<Oid>,
    /// Whether a commit's changes could not be read.
    pub failed: bool,
}

/// [`check`], and the task files the range's commits change — `None` when
/// the proof ended before it diffed the range (an unreadable or empty
/// range, a baseline that is not an ancestor).
///
/// The steps, in order: the task listings that could not be read; the
/// shallow boundaries ([`shallow_set`]); the imported commits
/// ([`imported_set`]); the walk and the range's shape ([`walk_range`]); the
/// commits the walk does not diff ([`undiffed_findings`]); each diffed
/// commit as the walk hands it over ([`judge_walked`], which calls the pure
/// [`judge_commit`]); the commits whose task only the whole range tells
/// ([`attribute_pending`]); the widened scopes ([`widened_findings`]); the
/// summary ([`summary`]).
pub fn check_walked(
    repo: &Repo,
    policy: &Policy,
    tasks: &TaskSet,
    range: &RangeSpec,
    opts: &Options,
) -> (String, Vec<Finding>, Option<ChangedTasks>) {
    // A long range frees large buffers as it goes; the allocator should not
    // keep them resident for it (`platform::keep_allocator_thresholds`).
    crate::platform::keep_allocator_thresholds();
    let mut findings = Vec::new();
    for why in &tasks.unreadable {
        findings.push(unknown(
            "task_unreadable",
            why.clone(),
            "repair the repository or the task files, then check again",
            commit_subject(range, None),
        ));
    }
    let shallow = match shallow_set(repo) {
        Ok(shallow) => shallow,
        Err(e) => {
            findings.push(git_unknown(&e, commit_subject(range, None)));
            return (format!("{} unreadable", range.label), findings, None);
        }
    };
    let hidden = range.base.hidden();
    let mut upstream = imported_set(repo, policy, range, &hidden);
    let (walked, commits) =
        match walk_range(repo, policy, range, &hidden, &shallow, &upstream, opts) {
            Ok(walked) => walked,
            Err(ended) => {
                findings.push(ended.finding);
                return (ended.summary, findings, None);
            }
        };
    findings.append(&mut upstream.findings);
    let imported: HashSet<Oid> = commits
        .iter()
        .filter(|c| upstream.imports(c))
        .copied()
        .collect();
    let rules = Rules::new(policy, range, opts.push);
    // In a push, a commit the task's baseline already holds was made before
    // the task: only its trailer can say it is that task's.
    let default = tasks
        .default
        .as_deref()
        .map(|t| (t, held_by(repo, tasks, &hidden, opts.push, t)));
    let mut tally = Tally::default();
    // At most every commit waits: room for all at once (unused room of a
    // long range is never touched), not twice as many.
    tally.pending.reserve_exact(commits.len());
    let upstream_name = policy.provenance.upstream.as_deref().unwrap_or("upstream");
    undiffed_findings(
        &commits,
        &imported,
        &shallow,
        upstream_name,
        &rules,
        &mut tally,
    );
    let progress = Progress::new(commits.len(), opts.progress);
    judge_walked(
        repo,
        walked,
        &rules,
        tasks,
        default.as_ref().map(|(t, held)| (*t, held)),
        &progress,
        &mut tally,
    );
    progress.done();
    // The diff threads have ended: what their allocator arenas hold free
    // goes back, and so do the pack's pages they read (up to 16 MiB),
    // before the findings of the commits still waiting are made.
    if commits.len() >= LONG_RANGE {
        crate::platform::return_freed_memory();
        repo.let_pack_pages_go();
    }
    // Commits with no trailer and no task given: the one task whose file the
    // range adds or changes, if there is exactly one.
    let fallback = match tally.touched_tasks.len() {
        1 => tally.touched_tasks.iter().next().cloned(),
        _ => None,
    };
    let fallback_held = fallback
        .as_deref()
        .map(|t| (t, held_by(repo, tasks, &hidden, opts.push, t)));
    let again = Again {
        repo,
        commits: &commits,
        tip: range.tip,
        hidden: &hidden,
        merges: merge_changes(policy),
    };
    attribute_pending(
        &again,
        &rules,
        tasks,
        fallback_held.as_ref().map(|(t, held)| (*t, held)),
        &mut tally,
    );
    let Tally {
        out,
        touched_tasks,
        merges,
        attributed,
        unattributed,
        walked_tasks,
        ..
    } = tally;
    // The range's own findings (few) go first, into the commits' list:
    // extending theirs would copy a whole history's findings.
    let mut judged = Tally::into_sorted(out);
    judged.splice(0..0, std::mem::take(&mut findings));
    findings = judged;
    findings.extend(widened_findings(tasks, &touched_tasks, range));
    on_remote_refs(repo, range, &hidden, &mut findings);
    // What the advice's walks read, kept for the next run's (the range's
    // own were kept once its diffs were taken).
    repo.keep_read_commits();
    let counts = Counts {
        commits: &commits,
        merges,
        imported: imported.len(),
        attributed,
        unattributed,
    };
    let summary = summary(range, opts.push, hidden.is_empty(), counts);
    (summary, findings, Some(walked_tasks))
}

/// `values` of the branches' tips (the first `tips`) and of the refused
/// commits (the rest): the tips', and the lowest of the refused commits'
/// when every one of them is known.
fn tips_and_lowest<T: Ord + Copy>(
    mut values: Vec<Option<T>>,
    tips: usize,
) -> (Vec<Option<T>>, Option<T>) {
    let lowest = values
        .split_off(tips)
        .into_iter()
        .collect::<Option<Vec<T>>>()
        .and_then(|rest| rest.into_iter().min());
    (values, lowest)
}

/// How long before every refused commit a remote-tracking branch's tip
/// may be dated and still be walked for them where no commit-graph gives
/// levels: git name-rev's `CUTOFF_DATE_SLOP`, one day.
const CUTOFF_DATE_SLOP: i64 = 86_400;

/// A refused commit a remote already holds — on a remote-tracking branch
/// that does not hold the range's tip — is someone's pushed work, not
/// the range's to amend (docs/provenance.md, "Refused commits a remote
/// holds"): its finding says where it is and what helps — never "add it
/// to your scope", never "reword it". Asked only when a commit is refused.
fn on_remote_refs(repo: &Repo, range: &RangeSpec, hidden: &[Oid], findings: &mut [Finding]) {
    const AMENDABLE: [&str; 4] = [
        "path_outside_scope",
        "unattributed_commit",
        "missing_trailer",
        "unknown_task",
    ];
    let amendable = |f: &&Finding| f.severity == Severity::Blocker && AMENDABLE.contains(&f.cause);
    let refused_commits = || {
        findings
            .iter()
            .filter(amendable)
            .filter_map(|f| f.subject.commit.as_deref().and_then(Oid::from_hex))
    };
    if refused_commits().next().is_none() {
        return;
    }
    let Ok(tracking) = repo.tracking_branches() else {
        return;
    };
    // A branch at the range's tip holds it (CI's clone of the branch under
    // judgement): not walked, as its walk would be the whole range again.
    // Where no other is left there is nothing to ask, and the refused
    // commits are neither gathered nor given their levels (8,654 look-ups
    // in the commit-graph on moby/moby's 10k range, on the main thread
    // once the diffs are done).
    let tracking: Vec<(String, Oid)> = tracking
        .into_iter()
        .filter(|(_, tip)| *tip != range.tip)
        .collect();
    if tracking.is_empty() {
        return;
    }
    let refused: HashSet<Oid> = refused_commits().collect();
    // Each refused commit, with the first remote-tracking branch (by name)
    // that holds it. With the commit-graph's levels, a branch whose tip's
    // level is below the lowest refused commit's holds none of them (a
    // commit reaches only lower levels): it is not walked. The others are
    // walked down to where they forked, all in one walk: without a
    // commit-graph a branch left behind long ago takes its walk down the
    // range's hidden side to its own date (on moby/moby 0.2-0.4 s a
    // branch, as long as git's own `rev-list`), which one walk pays once.
    // One question for both (the commit-graph opened once): the tips'
    // levels, then the refused commits'.
    let ids: Vec<Oid> = (tracking.iter().map(|(_, tip)| *tip))
        .chain(refused.iter().copied())
        .collect();
    let (tip_levels, lowest) = tips_and_lowest(repo.levels(&ids), tracking.len());
    let mut kept: Vec<(&(String, Oid), bool)> = tracking
        .iter()
        .zip(tip_levels)
        .filter(
            |(_, level)| !matches!((lowest, level), (Some(lowest), Some(level)) if *level < lowest),
        )
        .map(|(branch, level)| (branch, lowest.is_some() && level.is_some()))
        .collect();
    // Where levels do not tell (no commit-graph, or a tip it does not
    // hold), git name-rev's rule: a branch whose tip is dated more than a
    // day before every refused commit holds none of them (a commit is
    // dated after its parents, give or take a clock; `CUTOFF_DATE_SLOP`).
    // Without it a branch left behind years ago is walked down the hidden
    // side's history to its own date (on moby/moby as fetched, two such
    // branches made a cold 1k check 4x git's CPU). Under a clock skew of
    // more than a day such a branch goes unnamed, and the finding gives
    // the range's own remedy (docs/provenance.md).
    if kept.iter().any(|(_, by_level)| !by_level) {
        let ids: Vec<Oid> = (kept.iter().map(|((_, tip), _)| *tip))
            .chain(refused.iter().copied())
            .collect();
        let (dates, oldest) = tips_and_lowest(repo.commit_dates(&ids), kept.len());
        if let Some(oldest) = oldest {
            let cutoff = oldest.saturating_sub(CUTOFF_DATE_SLOP);
            kept = kept
                .into_iter()
                .zip(dates)
                .filter(|((_, by_level), date)| {
                    *by_level || !matches!(date, Some(date) if *date < cutoff)
                })
                .map(|(branch, _)| branch)
                .collect();
        }
    }
    let walked: Vec<&(String, Oid)> = kept.into_iter().map(|(branch, _)| branch).collect();
    // The branches left are walked together, once
    // (`Repo::first_reached_from`); where that walk fails (a branch whose
    // commits are not all there), each is walked alone and one that fails
    // is passed over.
    let tips: Vec<Oid> = walked.iter().map(|(_, tip)| *tip).collect();
    let first = repo
        .first_reached_from(&tips, hidden, range.tip, &refused)
        .unwrap_or_else(|_| {
            let mut first = std::collections::HashMap::new();
            for (at, &tip) in tips.iter().enumerate() {
                // A branch that holds the range's tip, or where that cannot
                // be told, is passed over.
                if !matches!(repo.is_ancestor(range.tip, tip), Ok(false)) {
                    continue;
                }
                for c in repo.walk(&[tip], hidden).unwrap_or_default() {
                    if refused.contains(&c) {
                        first.entry(c).or_insert(at);
                    }
                }
            }
            first
        });
    // A branch that holds the range's tip is the work's own (CI's clone of
    // the branch under judgement), not someone else's: it names nothing.
    let held: std::collections::HashMap<Oid, &str> = first
        .into_iter()
        .map(|(c, at)| {
            let name = &walked[at].0;
            (c, name.strip_prefix("refs/remotes/").unwrap_or(name))
        })
        .collect();
    for f in findings.iter_mut() {
        let Some(commit) = f.subject.commit.as_deref().and_then(Oid::from_hex) else {
            continue;
        };
        if f.severity != Severity::Blocker || !AMENDABLE.contains(&f.cause) {
            continue;
        }
        if let Some(on) = held.get(&commit) {
            f.message.push_str(&format!(
                " — {} is on {on} already: pushed work, not this range's to amend",
                commit.short()
            ));
            f.decide = format!(
                "leave it out of this work: rebase onto a branch that does not carry it (`git rebase --onto <target> {on}` drops what {on} brought in), or wait until {on} lands on the target and rebase onto that; it is proved where it was made{}",
                match range.ref_name {
                    Some(_) => "",
                    None => " (in CI, pass `--not` that branch)",
                }
            )
            .into();
        }
    }
}

/// The subject of a finding about the range, or one of its commits.
fn commit_subject(range: &RangeSpec, commit: Option<Oid>) -> Subject {
    Subject {
        commit: commit.map(|c| c.to_hex()),
        ref_name: range.ref_name.clone(),
        ..Subject::default()
    }
}

/// The boundaries of a shallow clone (none when the clone is whole): their
/// parents are absent, so their changes cannot be told. An error when which
/// commits they are cannot be read — a boundary would pass as a root commit.
fn shallow_set(repo: &Repo) -> Result<HashSet<Oid>, GitError> {
    if !repo.is_shallow() {
        return Ok(HashSet::new());
    }
    Ok(repo.shallow_commits()?.into_iter().collect())
}

/// The policy's `upstream` as the range sees it (docs/provenance.md).
struct Upstream {
    /// The range's commits the upstream does not reach, when one is named
    /// and could be read; every other commit of the range is imported.
    authored: Option<HashSet<Oid>>,
    /// Why the upstream could not be read: reported once the range is known
    /// not to be empty.
    findings: Vec<Finding>,
}

impl Upstream {
    /// Whether commit `id` is reachable from the upstream: imported, listed,
    /// not scope-checked.
    fn imports(&self, id: &Oid) -> bool {
        self.authored.as_ref().is_some_and(|a| !a.contains(id))
    }
}

/// What the policy's `upstream` names here (docs/provenance.md, "Upstream:
/// imported commits"): for a branch, `refs/heads/X`, the target branch
/// wherever this clone keeps it — every configured remote's `X`
/// (`refs/remotes/<remote>/X`: a developer's clone, the checkout a forge's
/// CI makes), else the local branch (a bare server, a clone with no remote).
/// A stale or moved local `X` never imports a commit the remote does not
/// have. Any other ref is resolved as named. Each as (name, commit); an
/// error when nothing resolves.
pub fn resolve_upstream(repo: &Repo, name: &str) -> Result<Vec<(String, Oid)>, GitError> {
    if let Some(branch) = name.strip_prefix("refs/heads/") {
        let mut found = Vec::new();
        for remote in repo.remote_names() {
            let tracking = format!("refs/remotes/{remote}/{branch}");
            match repo.resolve_commit(&tracking) {
                Ok(id) => found.push((tracking, id)),
                Err(GitError::UnknownRevision { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        if !found.is_empty() {
            return Ok(found);
        }
    }
    Ok(vec![(name.to_string(), repo.resolve_commit(name)?)])
}

/// The imported commits: reachable from the policy's `upstream`
/// ([`resolve_upstream`]). Known before the walk, which diffs only the
/// others.
fn imported_set(repo: &Repo, policy: &Policy, range: &RangeSpec, hidden: &[Oid]) -> Upstream {
    let mut upstream = Upstream {
        authored: None,
        findings: Vec::new(),
    };
    let Some(name) = &policy.provenance.upstream else {
        return upstream;
    };
    match resolve_upstream(repo, name) {
        Ok(ups) => {
            let ups: Vec<Oid> = ups.into_iter().map(|(_, id)| id).collect();
            match repo.walk(&[range.tip], &[hidden.to_vec(), ups.clone()].concat()) {
                Ok(commits) => upstream.authored = Some(commits.into_iter().collect()),
                Err(e) => upstream
                    .findings
                    .push(git_unknown(&e, commit_subject(range, ups.first().copied()))),
            }
        }
        Err(e) => upstream.findings.push(unknown(
            "upstream_unavailable",
            format!("the policy's upstream `{name}` does not resolve: {e}"),
            "fetch it (git fetch), or correct provenance.upstream in .gate/policy.yaml",
            commit_subject(range, None),
        )),
    }
    upstream
}

/// How a proof ends before it judges a commit: its summary, and the
/// finding that says why.
struct Ended {
    summary: String,
    finding: Finding,
}

/// The walk of the range — its commits newest first, their diffs running
/// beside it (not the imported ones, not shallow boundaries) — once the
/// range's shape holds: an explicit base is an ancestor of the tip (else
/// `baseline_not_ancestor`, or `shallow_history` where the clone's boundary
/// hides the answer), and the range holds a commit (else `no_commits_yet`
/// for a task's own range, `empty_range` otherwise).
fn walk_range<'r>(
    repo: &'r Repo,
    policy: &Policy,
    range: &RangeSpec,
    hidden: &[Oid],
    shallow: &HashSet<Oid>,
    upstream: &Upstream,
    opts: &Options,
) -> Result<(WalkedChanges<'r>, std::sync::Arc<[Oid]>), Box<Ended>> {
    let ended = |summary: String, finding: Finding| Box::new(Ended { summary, finding });
    let subject = |commit: Option<Oid>| commit_subject(range, commit);
    // A merge is judged by the paths it changed itself — where it is not
    // what a clean merge of its parents gives (decision 0023) — path by
    // path: rename pairing would tie a path of the merge to one of a
    // parent. Refused merges need no diff at all.
    let merge_changes = merge_changes(policy);
    // One walk gives the range and, for an explicit base, whether the base
    // is an ancestor of the tip; the diffs of its commits (not the imported
    // ones, not shallow boundaries) run while it goes on.
    let walked = repo
        .walk_changes(
            &[range.tip],
            hidden,
            |id| !shallow.contains(&id) && !upstream.imports(&id),
            Renames::Exact,
            merge_changes,
        )
        .map(|walked| {
            let ancestor = match &range.base {
                Base::Commit(base) => range.tip == *base || walked.reaches(*base),
                // The walk may stop at a left-out branch before it
                // reaches the base: asked directly (what cannot be read is
                // the walk's to report).
                Base::Within { base, .. } => {
                    range.tip == *base
                        || walked.reaches(*base)
                        || !matches!(repo.is_ancestor(*base, range.tip), Ok(false))
                }
                Base::Hidden(_) => true,
            };
            let commits = walked.commits();
            (walked, commits, ancestor)
        });
    let (walked, commits, ancestor) = match walked {
        Ok(walked) => walked,
        Err(e) => {
            // The message names the absent object; the base is not it.
            return Err(ended(
                format!("{} unreadable", range.label),
                git_unknown(&e, subject(None)),
            ));
        }
    };
    judge_shape(range, &commits, ancestor, shallow, opts)?;
    Ok((walked, commits))
}

/// The range's shape, judged from what its walk found: `commits` (newest
/// first), whether the base is an ancestor of the tip, the clone's shallow
/// boundaries. A base the tip does not descend from is
/// `baseline_not_ancestor` (`shallow_history` when the walk met the
/// boundary first); an empty range is `empty_range` — a blocker, `info` in
/// a push or for a task whose commits the remotes already hold — or, for
/// a task's own range, `no_commits_yet`. Pure: the walk gathers, this
/// judges.
fn judge_shape(
    range: &RangeSpec,
    commits: &[Oid],
    ancestor: bool,
    shallow: &HashSet<Oid>,
    opts: &Options,
) -> Result<(), Box<Ended>> {
    let ended = |summary: String, finding: Finding| Box::new(Ended { summary, finding });
    let subject = |commit: Option<Oid>| commit_subject(range, commit);
    // A new branch's range (`Base::Hidden`) has no base to descend from.
    if let (false, Base::Commit(base) | Base::Within { base, .. }) = (ancestor, &range.base) {
        let base = *base;
        // In a shallow clone the answer is only definite when the walk
        // from the tip never reached the boundary.
        if commits.iter().any(|id| shallow.contains(id)) {
            return Err(ended(
                format!("{} not provable", range.label),
                unknown(
                    "shallow_history",
                    format!(
                        "the clone is shallow: whether the baseline {} is an ancestor of {} lies beyond its boundary",
                        base.short(),
                        range.tip.short()
                    ),
                    SHALLOW_DECIDE,
                    subject(Some(base)),
                ),
            ));
        }
        return Err(ended(
            format!("{} not a range", range.label),
            finding(
                "baseline_not_ancestor",
                format!(
                    "the baseline {} is not an ancestor of {}",
                    base.short(),
                    range.tip.short()
                ),
                "rebase the work onto its baseline, or check a range whose base the tip descends from",
                subject(Some(base)),
            ),
        ));
    }
    if commits.is_empty()
        && opts.task_range
        && let Base::Within { base, .. } = &range.base
        && *base != range.tip
    {
        return Err(ended(
            format!("{}: nothing new", range.label),
            weighed(
                Severity::Info,
                "empty_range",
                format!(
                    "{}: every commit of the task is on a remote-tracking branch already (pushed, and proved by that push): nothing new to prove",
                    range.label
                ),
                "",
                subject(None),
            ),
        ));
    }
    if commits.is_empty() && opts.task_range {
        return Err(ended(
            format!("{}: no commits yet", range.label),
            weighed(
                Severity::Info,
                "no_commits_yet",
                format!(
                    "{}: the task has no commits yet, so there is nothing to prove until its first",
                    range.label
                ),
                "",
                subject(None),
            ),
        ));
    }
    if commits.is_empty() {
        let (severity, message) = if opts.push {
            (
                Severity::Info,
                format!("{} adds no commit: nothing new to prove", range.label),
            )
        } else {
            (
                Severity::Blocker,
                format!(
                    "{} holds no commit: an empty range proves nothing",
                    range.label
                ),
            )
        };
        return Err(ended(
            format!("{}: no commits", range.label),
            weighed(
                severity,
                "empty_range",
                message,
                if opts.push {
                    ""
                } else {
                    "commit the work, or check the range that holds it"
                },
                subject(None),
            ),
        ));
    }
    Ok(())
}

/// What the judgement of a range's commits gathers as it goes.
#[derive(Default)]
struct Tally {
    /// Findings keyed by their commit's index and then the order they came
    /// in ([`Tally::push`]), so the deferred ones land in walk order too.
    out: Vec<(u64, Finding)>,
    /// The commits whose task the range's task files decide.
    pending: Vec<Waiting>,
    /// The tasks whose files the range adds or changes.
    touched_tasks: BTreeSet<String>,
    merges: usize,
    attributed: usize,
    unattributed: Vec<Oid>,
    /// The task files the diffs saw, for the caller ([`ChangedTasks`]).
    walked_tasks: ChangedTasks,
    /// The changes the pending commits hold, each at its [`Waiting`]'s
    /// place.
    held_changes: Vec<Vec<Change>>,
    /// How many changes `pending` holds.
    held: usize,
    /// Whether `pending` let its changes go (past [`PENDING_HELD`], or
    /// once two tasks' files are in the range).
    let_go: bool,
}

impl Tally {
    /// Add `finding`, about the commit at `index` of the range. Its key is
    /// unique (the index, then how many came before), so an unstable sort
    /// — in place, where a stable one takes a scratch buffer half the
    /// findings' size — keeps the order they came in. Its message gives
    /// back what formatting reserved beyond it (twice the text's literal
    /// part): a whole history holds one finding a commit.
    fn push(&mut self, index: usize, mut finding: Finding) {
        finding.message.shrink_to_fit();
        let key = (index as u64) << 32 | (self.out.len() as u64 & u64::from(u32::MAX));
        self.out.push((key, finding));
    }

    fn extend(&mut self, index: usize, findings: Vec<Finding>) {
        for finding in findings {
            self.push(index, finding);
        }
    }

    /// The findings in walk order: by commit, each commit's in the order
    /// they came in.
    fn into_sorted(mut out: Vec<(u64, Finding)>) -> Vec<Finding> {
        // Mostly in walk order already (a range whose commits all wait for
        // their task is judged in it): then not sorted at all.
        if !out.is_sorted_by_key(|(key, _)| *key) {
            out.sort_unstable_by_key(|(key, _)| *key);
        }
        // Collected in place (a range of 80,000 unattributed commits holds
        // as many findings, and a second list of them was a fifth of the
        // peak).
        out.into_iter().map(|(_, f)| f).collect()
    }

    /// Keep `p` until the range's task files are known, with its changes
    /// while they may matter and fit: they matter only if exactly one
    /// task's file is in the range, so none are held once two are, and
    /// none past [`PENDING_HELD`] (they are then read again if needed).
    fn hold(&mut self, p: Pending) {
        if !self.let_go {
            self.held += p.changes.as_ref().map_or(0, Vec::len);
            if self.touched_tasks.len() > 1 || self.held > PENDING_HELD {
                self.let_go = true;
                self.held_changes = Vec::new();
                for q in &mut self.pending {
                    q.changes = NOT_HELD;
                }
            }
        }
        let changes = match p.changes {
            Some(changes) if !self.let_go => {
                self.held_changes.push(changes);
                u32::try_from(self.held_changes.len() - 1).unwrap_or(NOT_HELD)
            }
            _ => NOT_HELD,
        };
        self.pending.push(Waiting {
            // The range's places fit (the walk counts them in `u32`).
            index: p.index as u32,
            changes,
            merge: p.merge,
        });
    }

    /// Record a pending commit's judgement.
    fn settle(&mut self, index: usize, id: Oid, judged: Judged) {
        match judged.attribution {
            Attribution::Task => self.attributed += 1,
            Attribution::Unattributed => self.unattributed.push(id),
            Attribution::Undecided | Attribution::Pending => {}
        }
        self.extend(index, judged.findings);
    }
}

/// The commits the walk does not diff: imported ones (`imported_commit`,
/// info) and shallow boundaries (`shallow_history`, their changes unknown).
fn undiffed_findings(
    commits: &[Oid],
    imported: &HashSet<Oid>,
    shallow: &HashSet<Oid>,
    upstream_name: &str,
    rules: &Rules,
    tally: &mut Tally,
) {
    for (index, &id) in commits.iter().enumerate() {
        let sub = rules.subject(Some(id));
        if imported.contains(&id) || shallow.contains(&id) {
            tally.walked_tasks.undiffed.push(id);
        }
        if imported.contains(&id) {
            tally.push(
                index,
                weighed(
                    Severity::Info,
                    "imported_commit",
                    format!(
                        "{} is reachable from {upstream_name}: imported, not scope-checked",
                        id.short()
                    ),
                    "",
                    sub,
                ),
            );
        } else if shallow.contains(&id) {
            tally.push(
                index,
                unknown(
                    "shallow_history",
                    format!(
                        "{} is a shallow boundary: its parents are not in this clone, so its changes are unknown",
                        id.short()
                    ),
                    SHALLOW_DECIDE,
                    sub,
                ),
            );
        }
    }
}

/// Each diffed commit as the walk hands it over: the task files it
/// changes, then its judgement ([`judge_commit`]). Its changes are dropped
/// once judged, unless its task waits for the whole range.
fn judge_walked(
    repo: &Repo,
    walked: WalkedChanges<'_>,
    rules: &Rules,
    tasks: &TaskSet,
    default: Option<(&str, &HeldBy)>,
    progress: &Progress,
    tally: &mut Tally,
) {
    walked.each(|index, id, result| {
        progress.tick(index);
        let (info, changes) = match result {
            Ok(c) => (c.info, c.changes),
            Err(e) => {
                tally.walked_tasks.failed = true;
                tally.push(index, git_unknown(&e, rules.subject(Some(id))));
                return;
            }
        };
        let merge = info.parents.len() > 1;
        if merge {
            tally.walked_tasks.undiffed.push(id);
            tally.merges += 1;
        } else {
            for c in &changes {
                tally
                    .walked_tasks
                    .tasks
                    .extend(c.paths().filter_map(task_of_path));
            }
        }
        // A refused merge's changes are not read: it names no task file.
        if !(merge && rules.merges == Merges::Refuse) {
            for c in &changes {
                if c.kind != ChangeKind::Deleted
                    && let Some(task) = task_of_path(&c.path)
                {
                    tally.touched_tasks.insert(task);
                }
            }
        }
        let trailers = trailer_values(&info.message, rules.key);
        // A closed task takes no new work: a commit naming a task closed
        // before it (at its first parent) belongs to no task.
        if let [named] = trailers.as_slice()
            && tasks.get(named).is_some_and(|t| t.closed)
            && let Some(parent) = info.parents.first()
            && closed_at(repo, *parent, named)
        {
            tally.push(
                index,
                finding(
                    "unattributed_commit",
                    format!(
                        "{} names task {named}, which was closed before it: a closed task takes no new work",
                        id.short()
                    ),
                    "start a task for the work (`gate start`) and name it in the commit's trailer (git commit --amend, or git rebase -i to reword)",
                    rules.subject(Some(id)),
                ),
            );
            tally.unattributed.push(id);
            return;
        }
        let judged = judge_commit(
            rules,
            tasks,
            default,
            id,
            info.parents.len(),
            &trailers,
            &changes,
        );
        tally.extend(index, judged.findings);
        match judged.attribution {
            Attribution::Task => tally.attributed += 1,
            Attribution::Unattributed => tally.unattributed.push(id),
            Attribution::Undecided => {}
            Attribution::Pending => tally.hold(Pending {
                index,
                id,
                merge,
                changes: Some(changes),
            }),
        }
    });
}

/// Whether task `id`'s file at `commit` records it closed (completed or
/// abandoned). What cannot be read says no: the commit is then judged as
/// before, by the task's scope.
fn closed_at(repo: &Repo, commit: Oid, id: &str) -> bool {
    let file = tasks::task_file(id);
    let path = RepoPath::from(file.to_string_lossy().as_ref());
    let Ok(Some((blob, _))) = repo.entry_at(commit, &path) else {
        return false;
    };
    repo.read_blob(blob)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| tasks::parse(&file, text).ok())
        .is_some_and(|t| t.record.status != tasks::TaskStatus::Active)
}

/// What every commit of a range is judged by: the policy's provenance
/// rules, how the check runs, and the range.
struct Rules<'a> {
    range: &'a RangeSpec,
    /// `provenance.merges`: refused, or inspected for their own changes.
    merges: Merges,
    /// `provenance.empty_commits`: how a commit that changes no path is
    /// said.
    empty_commits: crate::policy::EmptyCommits,
    /// Whether the policy names the trailer (`provenance.trailer`), which
    /// then every commit but a merge must carry (`missing_trailer`).
    trailer_required: bool,
    /// The trailer that names a commit's task: the policy's, else `Task`.
    key: &'a str,
    /// What gets an unattributed commit through: in a push, also how to
    /// leave history that predates gate out of the range.
    unattributed_decide: std::sync::Arc<str>,
}

impl<'a> Rules<'a> {
    fn new(policy: &'a Policy, range: &'a RangeSpec, push: bool) -> Rules<'a> {
        let trailer = policy.provenance.trailer.as_deref();
        let key = trailer.unwrap_or("Task");
        let unattributed_decide = if push {
            format!(
                "add a `{key}: <task id>` trailer naming the task it belongs to (git rebase -i to reword); for history that predates gate, tag its last commit and name the tag in provenance.upstream (docs/provenance.md#history-that-predates-gate)"
            )
        } else {
            format!(
                "add a `{key}: <task id>` trailer to the commit, or name the task with --task ID"
            )
        }
        .into();
        Rules {
            range,
            merges: policy.provenance.merges,
            empty_commits: policy.provenance.empty_commits,
            trailer_required: trailer.is_some(),
            key,
            unattributed_decide,
        }
    }

    fn subject(&self, commit: Option<Oid>) -> Subject {
        commit_subject(self.range, commit)
    }
}

/// What a range's merges are diffed for: their own changes where the
/// policy inspects them, nothing where it refuses them.
fn merge_changes(policy: &Policy) -> MergeChanges {
    match policy.provenance.merges {
        Merges::Inspect => MergeChanges::Own,
        Merges::Refuse => MergeChanges::Skip,
    }
}

/// Whom a judged commit belongs to.
#[derive(Debug, PartialEq, Eq)]
enum Attribution {
    /// A task, whose scope its changes were checked against.
    Task,
    /// No task: it names several, or was made before the task it would
    /// belong to.
    Unattributed,
    /// Not told: a merge the policy refuses, or a baseline that could not
    /// be read.
    Undecided,
    /// No trailer and no task given: the range's task files decide
    /// ([`attribute_pending`]).
    Pending,
}

/// One commit's findings and whom it belongs to.
#[derive(Debug)]
struct Judged {
    findings: Vec<Finding>,
    attribution: Attribution,
}

/// One commit's judgement: a pure decision over what the walk read of it —
/// its number of parents, the values of its trailer (`rules.key`), its
/// changes (a merge's own) — the tasks, and `default`, the task given
/// (`--task`, the active task) with the commits its baseline already holds.
///
/// In order: a merge the policy refuses (`merge_commit`); a missing trailer
/// the policy requires (`missing_trailer`); the task — the one its trailer
/// names, several (`unattributed_commit`), else the task given unless its
/// baseline holds the commit (`unattributed_commit`), else
/// [`Attribution::Pending`]; then its changes against that task's scope
/// ([`scope_findings`]).
fn judge_commit(
    rules: &Rules,
    tasks: &TaskSet,
    default: Option<(&str, &HeldBy)>,
    id: Oid,
    parents: usize,
    trailers: &[String],
    changes: &[Change],
) -> Judged {
    let sub = rules.subject(Some(id));
    let merge = parents > 1;
    let key = rules.key;
    let mut findings = Vec::new();
    let judged = |findings, attribution| Judged {
        findings,
        attribution,
    };
    if merge && rules.merges == Merges::Refuse {
        findings.push(finding(
            "merge_commit",
            format!(
                "{} is a merge commit, and the policy refuses merges",
                id.short()
            ),
            "rebase instead of merging, or set provenance.merges: inspect (with provenance.upstream) in .gate/policy.yaml",
            Subject {
                change: Some("merge"),
                ..sub
            },
        ));
        return judged(findings, Attribution::Undecided);
    }
    // A merge that changed nothing itself (a clean merge, decision 0023)
    // has no work of its own to attribute: it needs no trailer, and every
    // door says the same of it (docs/hooks.md).
    if merge && trailers.is_empty() && changes.is_empty() {
        return judged(findings, Attribution::Undecided);
    }
    // A commit that is not a merge and changes no path (`git commit
    // --allow-empty`) is said as the policy says; it is still judged for
    // its task below.
    if !merge && changes.is_empty() {
        use crate::policy::EmptyCommits;
        let severity = match rules.empty_commits {
            EmptyCommits::Refuse => Some(Severity::Blocker),
            EmptyCommits::Report => Some(Severity::Warn),
            EmptyCommits::Allow => None,
        };
        if let Some(severity) = severity {
            findings.push(weighed(
                severity,
                "empty_commit",
                format!("{} changes no path", id.short()),
                "drop the commit (git rebase -i), or fold its message into a commit with changes; to allow empty commits, set provenance.empty_commits: allow in .gate/policy.yaml",
                sub.clone(),
            ));
        }
    }
    let task = match trailers {
        [one] => one.clone(),
        [] => {
            if rules.trailer_required && !merge {
                findings.push(finding(
                    "missing_trailer",
                    format!("{} carries no `{key}:` trailer", id.short()),
                    &format!(
                        "add `{key}: <task id>` to the commit message (git commit --amend, or git rebase -i to reword)"
                    ),
                    sub.clone(),
                ));
            }
            let Some((task, held)) = default else {
                return judged(findings, Attribution::Pending);
            };
            match held.precedes(id) {
                Ok(false) => task.to_string(),
                Ok(true) => {
                    findings.push(unattributed(
                        format!(
                            "{} precedes task {task}'s baseline and has no `{key}:` trailer: it is no task's work",
                            id.short()
                        ),
                        rules,
                        sub,
                    ));
                    return judged(findings, Attribution::Unattributed);
                }
                Err(f) => {
                    findings.push(f.with_subject(sub));
                    return judged(findings, Attribution::Undecided);
                }
            }
        }
        many => {
            findings.push(finding(
                "unattributed_commit",
                format!("{} names several tasks: {}", id.short(), many.join(", ")),
                "split the commit so that each names one task",
                sub,
            ));
            return judged(findings, Attribution::Unattributed);
        }
    };
    findings.extend(scope_findings(
        tasks,
        &task,
        id,
        merge,
        changes,
        rules.range,
    ));
    judged(findings, Attribution::Task)
}

/// The commits with no trailer and no task given, once the whole range is
/// read: each belongs to `fallback` — the one task whose file the range
/// adds or changes, with the commits its baseline holds — unless that
/// baseline holds it ([`judge_pending`]).
fn attribute_pending(
    again: &Again,
    rules: &Rules,
    tasks: &TaskSet,
    fallback: Option<(&str, &HeldBy)>,
    tally: &mut Tally,
) {
    // Commits that let their changes go and now need them, by id: their
    // place in the range and whether each is a merge.
    let mut reread: HashMap<Oid, (usize, bool)> = HashMap::new();
    let pending = std::mem::take(&mut tally.pending);
    let mut held_changes = std::mem::take(&mut tally.held_changes);
    // Most waiting commits get one finding (a whole history's, each
    // `unattributed_commit`): room for them at once, not twice what they
    // take, as growing one at a time leaves.
    tally.out.reserve_exact(pending.len());
    for w in pending {
        // Every index is the range's: the walk handed it on.
        let index = w.index as usize;
        let id = again.commits[index];
        let changes = w
            .holds()
            .then(|| std::mem::take(&mut held_changes[w.changes as usize]));
        let p = Pending {
            index,
            id,
            merge: w.merge,
            changes,
        };
        if p.changes.is_none()
            && let Some((_, held)) = fallback
            && matches!(held.precedes(p.id), Ok(false))
        {
            reread.insert(p.id, (p.index, p.merge));
            continue;
        }
        let judged = judge_pending(rules, tasks, fallback, &tally.touched_tasks, &p);
        tally.settle(p.index, p.id, judged);
    }
    if reread.is_empty() {
        return;
    }
    // Read again by the walk that read them: each judged as its changes
    // arrive, none held.
    let walked = again.repo.walk_changes(
        &[again.tip],
        again.hidden,
        |id| reread.contains_key(&id),
        Renames::Exact,
        again.merges,
    );
    let walked = match walked {
        Ok(walked) => walked,
        Err(e) => {
            for (id, (index, _)) in reread {
                tally.push(index, git_unknown(&e, rules.subject(Some(id))));
            }
            return;
        }
    };
    walked.each(|_, id, result| {
        let Some((index, merge)) = reread.remove(&id) else {
            return;
        };
        match result {
            Ok(c) => {
                let p = Pending {
                    index,
                    id,
                    merge,
                    changes: Some(c.changes),
                };
                let judged = judge_pending(rules, tasks, fallback, &tally.touched_tasks, &p);
                tally.settle(index, id, judged);
            }
            Err(e) => tally.push(index, git_unknown(&e, rules.subject(Some(id)))),
        }
    });
    // The same walk hands on the same commits; one it did not is unknown.
    for (id, (index, _)) in reread {
        tally.push(
            index,
            unknown(
                "input_unreadable",
                format!(
                    "{}'s changes could not be read again: the range's second walk did not reach it",
                    id.short()
                ),
                "check again; if it persists, repair the repository (git fsck)",
                rules.subject(Some(id)),
            ),
        );
    }
}

/// The range's walk once more, for the pending commits that let their
/// changes go ([`Tally::hold`]), and the range's commits.
struct Again<'a> {
    repo: &'a Repo,
    commits: &'a [Oid],
    tip: Oid,
    hidden: &'a [Oid],
    merges: MergeChanges,
}

/// One pending commit's judgement, pure: against the scope of `fallback`
/// unless its baseline holds the commit; with no fallback, no task's
/// (`unattributed_commit`, naming the tasks the range touches, `touched`).
fn judge_pending(
    rules: &Rules,
    tasks: &TaskSet,
    fallback: Option<(&str, &HeldBy)>,
    touched: &BTreeSet<String>,
    p: &Pending,
) -> Judged {
    let key = rules.key;
    let sub = rules.subject(Some(p.id));
    let Some((task, held)) = fallback else {
        let message = match touched.len() {
            0 => format!(
                "{} belongs to no task: it has no `{key}:` trailer, no task is given or active, and the range adds or changes no task file",
                p.id.short()
            ),
            n => format!(
                "{} could belong to any of {n} tasks whose files the range adds or changes ({}): it has no `{key}:` trailer",
                p.id.short(),
                touched.iter().cloned().collect::<Vec<_>>().join(", ")
            ),
        };
        return Judged {
            findings: vec![unattributed(message, rules, sub)],
            attribution: Attribution::Unattributed,
        };
    };
    match held.precedes(p.id) {
        // Changes let go and not read again are not "no changes".
        Ok(false) => match p.changes.as_deref() {
            Some(changes) => Judged {
                findings: scope_findings(tasks, task, p.id, p.merge, changes, rules.range),
                attribution: Attribution::Task,
            },
            None => Judged {
                findings: vec![unknown(
                    "input_unreadable",
                    format!(
                        "{}'s changes were not read again to judge it against task {task}'s scope",
                        p.id.short()
                    ),
                    "check again; if it persists, repair the repository (git fsck)",
                    sub,
                )],
                attribution: Attribution::Undecided,
            },
        },
        Ok(true) => Judged {
            findings: vec![unattributed(
                format!(
                    "{} precedes the baseline of task {task} (the one task whose file the range adds or changes) and has no `{key}:` trailer: it is no task's work",
                    p.id.short()
                ),
                rules,
                sub,
            )],
            attribution: Attribution::Unattributed,
        },
        Err(f) => Judged {
            findings: vec![f.with_subject(sub)],
            attribution: Attribution::Undecided,
        },
    }
}

/// A widened scope judged these commits: shown wherever the range changes
/// the task's file (docs/tasks.md#widening-the-scope).
fn widened_findings(
    tasks: &TaskSet,
    touched: &BTreeSet<String>,
    range: &RangeSpec,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for task in touched {
        for added in tasks.get(task).map_or(&[][..], |v| &v.added) {
            findings.push(
                Finding::new(
                    CHECK,
                    "scope_widened",
                    Severity::Info,
                    format!(
                        "task {task}'s scope adds {} ({}, {}): {}",
                        added.glob, added.author, added.time, added.because
                    ),
                    "review the addition with the task's file; it is judged as part of the scope"
                        .into(),
                )
                .with_subject(Subject {
                    task: Some(task.clone()),
                    ..commit_subject(range, None)
                }),
            );
        }
    }
    findings
}

/// What the summary counts.
struct Counts<'a> {
    /// The range's commits in walk order (newest first).
    commits: &'a [Oid],
    merges: usize,
    imported: usize,
    attributed: usize,
    unattributed: Vec<Oid>,
}

/// The one-line summary: the commits, the merges and imported ones among
/// them, and in a push (`whole_history`: nothing hidden) how many were
/// attributed to a task and which were not.
fn summary(range: &RangeSpec, push: bool, whole_history: bool, counts: Counts) -> String {
    let Counts {
        commits,
        merges,
        imported,
        attributed,
        mut unattributed,
    } = counts;
    let mut summary = format!(
        "{} commit{} in {}",
        commits.len(),
        if commits.len() == 1 { "" } else { "s" },
        range.label
    );
    let mut extra = Vec::new();
    if merges > 0 {
        extra.push(format!(
            "{merges} merge{}",
            if merges == 1 { "" } else { "s" }
        ));
    }
    if imported > 0 {
        extra.push(format!("{imported} imported"));
    }
    if !extra.is_empty() {
        summary.push_str(&format!(" ({})", extra.join(", ")));
    }
    if push {
        if whole_history {
            summary = format!("the whole history, {summary}");
        }
        summary.push_str(&format!(": {attributed} attributed to a task"));
        // `unattributed` is in walk order (newest first) only for the
        // commits decided in the walk; order them by the walk again.
        let order: std::collections::HashMap<Oid, usize> =
            commits.iter().enumerate().map(|(i, c)| (*c, i)).collect();
        unattributed.sort_by_key(|c| std::cmp::Reverse(order.get(c).copied()));
        match unattributed.as_slice() {
            [] => {}
            [one] => summary.push_str(&format!(", 1 unattributed ({})", one.short())),
            [oldest, .., newest] => summary.push_str(&format!(
                ", {} unattributed (oldest {}, newest {})",
                unattributed.len(),
                oldest.short(),
                newest.short()
            )),
        }
    }
    summary
}

/// The commits of a range that a task's baseline already holds.
struct HeldBy(Result<HashSet<Oid>, Box<Finding>>);

impl HeldBy {
    /// Whether commit `id` was made before the task (its baseline holds it).
    fn precedes(&self, id: Oid) -> Result<bool, Box<Finding>> {
        match &self.0 {
            Ok(held) => Ok(held.contains(&id)),
            Err(f) => Err(f.clone()),
        }
    }
}

/// In a push, the commits not hidden that task `task`'s baseline already
/// holds: made before the task, they are its work only by their trailer
/// (docs/provenance.md#pre-push). Outside a push, none. A task gate cannot
/// read holds none here: its commits are `task_unreadable` anyway.
fn held_by(repo: &Repo, tasks: &TaskSet, hidden: &[Oid], push: bool, task: &str) -> HeldBy {
    let baseline = match tasks.get(task).and_then(|v| v.baseline.as_deref()) {
        Some(b) if push => b,
        _ => return HeldBy(Ok(HashSet::new())),
    };
    let walked = repo
        .resolve_commit(baseline)
        .and_then(|b| repo.walk(&[b], hidden));
    HeldBy(match walked {
        Ok(held) => Ok(held.into_iter().collect()),
        Err(e) => Err(Box::new(unknown(
            "baseline_unavailable",
            format!(
                "task {task}'s baseline {baseline} cannot be read ({e}): whether the commit was made before the task cannot be told"
            ),
            "fetch the history that holds the baseline (git fetch), or give the commit a trailer naming its task",
            Subject::default(),
        ))),
    })
}

/// The findings of one commit against the scope of task `task_id`.
fn scope_findings(
    tasks: &TaskSet,
    task_id: &str,
    id: Oid,
    merge: bool,
    changes: &[Change],
    range: &RangeSpec,
) -> Vec<Finding> {
    let sub = || Subject {
        commit: Some(id.to_hex()),
        task: Some(task_id.to_string()),
        ref_name: range.ref_name.clone(),
        ..Subject::default()
    };
    let Some(view) = tasks.get(task_id) else {
        return vec![finding(
            "unknown_task",
            format!(
                "{} names task `{task_id}`, which has no task file in {} or in the work tree",
                id.short(),
                range.tip.short()
            ),
            "commit the task's file with the work, or correct the trailer",
            sub(),
        )];
    };
    let scope = match &view.scope {
        Ok(s) => s,
        Err(m) => {
            return vec![unknown(
                "task_unreadable",
                format!("task {task_id} could not be read: {m}"),
                "fix the task file",
                sub(),
            )];
        }
    };
    let mut found = scope::check_changes(scope, task_id, changes, Some(&id.to_hex()));
    if found.is_empty() {
        return found;
    }
    let decide: std::sync::Arc<str> = if merge {
        format!(
            "add the path to task {task_id}'s scope (`gate task scope add PATH --because \"…\"`, then commit the task file), or redo the merge without this change (a merge may change only what its task may)"
        )
    } else {
        format!(
            "add the path to task {task_id}'s scope (`gate task scope add PATH --because \"…\"`, then commit the task file), or split the commit (git rebase -i) and give this change to a task whose scope covers it — start one for the issue that owns the path"
        )
    }
    .into();
    for f in &mut found {
        f.check = CHECK;
        f.decide = decide.clone();
        f.subject.ref_name = range.ref_name.clone();
        if merge {
            f.message.push_str(" (changed by the merge itself)");
        }
    }
    found
}

/// `.gate/tasks/<ID>.md` → `ID`.
pub fn task_of_path(p: &RepoPath) -> Option<String> {
    // Asked of every changed path of a range: the directory is compared
    // first, and only a path under it is read as text (the directory is
    // ASCII, so the rest is text exactly when the whole is).
    let rest = p.as_bytes().strip_prefix(tasks::TASKS_DIR.as_bytes())?;
    let name = std::str::from_utf8(rest.strip_prefix(b"/")?).ok()?;
    let id = name.strip_suffix(".md")?;
    (!id.contains('/') && crate::ids::task_id(id).is_ok()).then(|| id.to_string())
}

/// The meter of long walks, through the run's progress sink.
struct Progress {
    total: usize,
    sink: crate::progress::Sink,
}

impl Progress {
    fn new(total: usize, sink: crate::progress::Sink) -> Progress {
        let sink = if total >= 500 {
            sink
        } else {
            crate::progress::Sink::off()
        };
        Progress { total, sink }
    }

    fn tick(&self, i: usize) {
        if i.is_multiple_of(250) {
            self.sink.write(format_args!(
                "\rgate: provenance {i}/{} commits",
                self.total
            ));
        }
    }

    fn done(&self) {
        self.sink.write(format_args!("\r\x1b[2K"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailers_come_from_the_last_paragraph() {
        let msg =
            b"Subject\n\nBody mentions Task: nope in prose.\n\nTask: T-1\nSigned-off-by: A <a@b>\n";
        assert_eq!(trailer_values(msg, "Task"), vec!["T-1"]);
        assert_eq!(trailer_values(msg, "task"), vec!["T-1"]);
        assert!(trailer_values(b"Subject only", "Task").is_empty());
        assert!(trailer_values(b"Subject\n\nTask: \n", "Task").is_empty());
        assert_eq!(
            trailer_values(b"S\n\nTask: A\nTask: B\n", "Task"),
            vec!["A", "B"]
        );
    }

    #[test]
    fn task_files_are_recognised() {
        assert_eq!(
            task_of_path(&".gate/tasks/T-1.md".into()),
            Some("T-1".into())
        );
        assert_eq!(task_of_path(&".gate/tasks/sub/T-1.md".into()), None);
        assert_eq!(task_of_path(&".gate/plan.yaml".into()), None);
        assert_eq!(task_of_path(&".gate/tasksT-1.md".into()), None);
        // Bytes that are not text, under the directory or elsewhere.
        assert_eq!(
            task_of_path(&RepoPath::new(&b".gate/tasks/T-\xff.md"[..])),
            None
        );
        assert_eq!(task_of_path(&RepoPath::new(&b"src/\xff.md"[..])), None);
    }

    // The per-commit judgement, with no repository: plain inputs in,
    // findings and an attribution out.

    const TIP: &str = "1111111111111111111111111111111111111111";
    const COMMIT: &str = "2222222222222222222222222222222222222222";

    fn oid(hex: &str) -> Oid {
        Oid::from_hex(hex).expect("a full hex id")
    }

    fn range() -> RangeSpec {
        RangeSpec {
            base: Base::Hidden(vec![]),
            tip: oid(TIP),
            label: "main".into(),
            ref_name: Some("refs/heads/main".into()),
        }
    }

    fn rules(range: &RangeSpec, merges: Merges, trailer_required: bool) -> Rules<'_> {
        Rules {
            range,
            merges,
            empty_commits: crate::policy::EmptyCommits::Report,
            trailer_required,
            key: "Task",
            unattributed_decide: "name the task".into(),
        }
    }

    /// Task T-1, whose scope is `src/**`.
    fn tasks() -> TaskSet {
        let mut set = TaskSet::default();
        set.tasks.insert(
            "T-1".into(),
            TaskView {
                scope: Scope::new(&["src/**".to_string()], "T-1"),
                baseline: None,
                added: Vec::new(),
                closed: false,
            },
        );
        set
    }

    fn modified(path: &str) -> Change {
        Change {
            kind: ChangeKind::Modified,
            path: path.into(),
            from: None,
            old: Some(crate::git::EntryKind::File),
            new: Some(crate::git::EntryKind::File),
        }
    }

    fn causes(judged: &Judged) -> Vec<&'static str> {
        judged.findings.iter().map(|f| f.cause).collect()
    }

    /// Judge [`COMMIT`], with `parents` and `trailers`, against [`tasks`].
    fn judge(
        rules: &Rules,
        default: Option<(&str, &HeldBy)>,
        parents: usize,
        trailers: &[&str],
        changes: &[&str],
    ) -> Judged {
        let trailers: Vec<String> = trailers.iter().map(|v| v.to_string()).collect();
        let changes: Vec<Change> = changes.iter().map(|p| modified(p)).collect();
        judge_commit(
            rules,
            &tasks(),
            default,
            oid(COMMIT),
            parents,
            &trailers,
            &changes,
        )
    }

    #[test]
    fn a_commit_belongs_to_the_task_its_trailer_names() {
        let range = range();
        let judged = judge(
            &rules(&range, Merges::Refuse, false),
            None,
            1,
            &["T-1"],
            &["src/a.rs"],
        );
        assert_eq!(judged.attribution, Attribution::Task);
        assert!(judged.findings.is_empty(), "{:?}", judged.findings);
    }

    #[test]
    fn a_commit_naming_several_tasks_is_unattributed() {
        let range = range();
        let judged = judge(
            &rules(&range, Merges::Refuse, false),
            None,
            1,
            &["T-1", "T-2"],
            &["src/a.rs"],
        );
        assert_eq!(judged.attribution, Attribution::Unattributed);
        assert_eq!(causes(&judged), ["unattributed_commit"]);
        assert!(judged.findings[0].message.contains("T-1, T-2"));
        assert_eq!(
            judged.findings[0].subject.commit.as_deref(),
            Some(COMMIT),
            "the finding names its commit"
        );
    }

    #[test]
    fn a_commit_without_a_trailer_belongs_to_the_task_given_unless_its_baseline_holds_it() {
        let range = range();
        let rules = rules(&range, Merges::Refuse, false);
        let given = |held: &HeldBy| judge(&rules, Some(("T-1", held)), 1, &[], &["src/a.rs"]);
        let fresh = given(&HeldBy(Ok(HashSet::new())));
        assert_eq!(fresh.attribution, Attribution::Task);
        assert!(fresh.findings.is_empty(), "{:?}", fresh.findings);

        let older = given(&HeldBy(Ok(HashSet::from([oid(COMMIT)]))));
        assert_eq!(older.attribution, Attribution::Unattributed);
        assert_eq!(causes(&older), ["unattributed_commit"]);

        let unreadable = given(&HeldBy(Err(Box::new(unknown(
            "baseline_unavailable",
            "cannot read".into(),
            "fetch",
            Subject::default(),
        )))));
        assert_eq!(unreadable.attribution, Attribution::Undecided);
        assert_eq!(causes(&unreadable), ["baseline_unavailable"]);
        assert_eq!(unreadable.findings[0].severity, Severity::Unknown);
    }

    #[test]
    fn a_commit_with_no_trailer_and_no_task_given_waits_for_the_range() {
        let range = range();
        let waiting = judge(
            &rules(&range, Merges::Refuse, false),
            None,
            1,
            &[],
            &["src/a.rs"],
        );
        assert_eq!(waiting.attribution, Attribution::Pending);
        assert!(waiting.findings.is_empty());

        let held = HeldBy(Ok(HashSet::new()));
        let required = judge(
            &rules(&range, Merges::Refuse, true),
            Some(("T-1", &held)),
            1,
            &[],
            &["src/a.rs"],
        );
        assert_eq!(required.attribution, Attribution::Task);
        assert_eq!(causes(&required), ["missing_trailer"]);
    }

    /// The commit-scope source refuses a commit that changes no path; gate
    /// says it as the policy asks: a blocker, a warning (the default), or
    /// nothing. The commit is still its task's; a clean merge is not empty.
    #[test]
    fn an_empty_commit_is_said_as_the_policy_asks() {
        use crate::policy::EmptyCommits;
        let range = range();
        for (policy, severity) in [
            (EmptyCommits::Refuse, Some(Severity::Blocker)),
            (EmptyCommits::Report, Some(Severity::Warn)),
            (EmptyCommits::Allow, None),
        ] {
            let rules = Rules {
                empty_commits: policy,
                ..rules(&range, Merges::Inspect, false)
            };
            let empty = judge(&rules, None, 1, &["T-1"], &[]);
            assert_eq!(empty.attribution, Attribution::Task, "{policy:?}");
            let said: Vec<_> = empty
                .findings
                .iter()
                .map(|f| (f.cause, f.severity))
                .collect();
            match severity {
                Some(severity) => assert_eq!(said, [("empty_commit", severity)], "{policy:?}"),
                None => assert!(said.is_empty(), "{policy:?}: {said:?}"),
            }
            let clean_merge = judge(&rules, None, 2, &[], &[]);
            assert!(clean_merge.findings.is_empty(), "{policy:?}");
            let with_changes = judge(&rules, None, 1, &["T-1"], &["src/a.rs"]);
            assert!(with_changes.findings.is_empty(), "{policy:?}");
        }
    }

    #[test]
    fn a_merge_is_refused_or_judged_by_its_own_changes() {
        let range = range();
        let refused = judge(
            &rules(&range, Merges::Refuse, true),
            None,
            2,
            &["T-1"],
            &["docs/a.md"],
        );
        assert_eq!(refused.attribution, Attribution::Undecided);
        assert_eq!(causes(&refused), ["merge_commit"]);
        assert_eq!(refused.findings[0].subject.change, Some("merge"));

        // A merge needs no trailer of its own; with no task it waits.
        let inspected = judge(
            &rules(&range, Merges::Inspect, true),
            None,
            2,
            &[],
            &["docs/a.md"],
        );
        assert_eq!(inspected.attribution, Attribution::Pending);
        assert!(inspected.findings.is_empty());

        let outside = judge(
            &rules(&range, Merges::Inspect, false),
            None,
            2,
            &["T-1"],
            &["docs/a.md"],
        );
        assert_eq!(causes(&outside), ["path_outside_scope"]);
        assert!(
            outside.findings[0]
                .message
                .ends_with("(changed by the merge itself)")
        );
    }

    #[test]
    fn a_change_outside_the_task_scope_is_a_finding_on_its_commit() {
        let range = range();
        let judged = judge(
            &rules(&range, Merges::Refuse, false),
            None,
            1,
            &["T-1"],
            &["src/a.rs", "docs/b.md"],
        );
        assert_eq!(judged.attribution, Attribution::Task);
        assert_eq!(causes(&judged), ["path_outside_scope"]);
        let f = &judged.findings[0];
        assert_eq!(f.check, CHECK);
        assert_eq!(f.severity, Severity::Blocker);
        assert_eq!(f.subject.path, Some(RepoPath::from("docs/b.md")));
        assert_eq!(f.subject.commit.as_deref(), Some(COMMIT));
        assert_eq!(f.subject.task.as_deref(), Some("T-1"));
        assert_eq!(f.subject.ref_name.as_deref(), Some("refs/heads/main"));
        assert!(f.decide.contains("split the commit"), "{}", f.decide);
    }

    #[test]
    fn a_trailer_naming_no_known_task_is_an_unknown_task() {
        let range = range();
        let judged = judge(
            &rules(&range, Merges::Refuse, false),
            None,
            1,
            &["T-9"],
            &["src/a.rs"],
        );
        assert_eq!(judged.attribution, Attribution::Task);
        assert_eq!(causes(&judged), ["unknown_task"]);
    }

    #[test]
    fn a_pending_commit_belongs_to_the_one_task_the_range_touches() {
        let range = range();
        let rules = rules(&range, Merges::Refuse, false);
        let pending = Pending {
            index: 0,
            id: oid(COMMIT),
            merge: false,
            changes: Some(vec![modified("docs/b.md")]),
        };
        let none = judge_pending(&rules, &tasks(), None, &BTreeSet::new(), &pending);
        assert_eq!(none.attribution, Attribution::Unattributed);
        assert_eq!(causes(&none), ["unattributed_commit"]);
        assert!(none.findings[0].message.contains("belongs to no task"));

        let touched = BTreeSet::from(["T-1".to_string()]);
        let held = HeldBy(Ok(HashSet::new()));
        let one = judge_pending(&rules, &tasks(), Some(("T-1", &held)), &touched, &pending);
        assert_eq!(one.attribution, Attribution::Task);
        assert_eq!(causes(&one), ["path_outside_scope"]);

        // Changes let go and not read again: unknown, never a pass.
        let let_go = Pending {
            changes: None,
            ..pending
        };
        let unread = judge_pending(&rules, &tasks(), Some(("T-1", &held)), &touched, &let_go);
        assert_eq!(unread.attribution, Attribution::Undecided);
        assert_eq!(causes(&unread), ["input_unreadable"]);
        assert_eq!(unread.findings[0].severity, Severity::Unknown);
    }

    #[test]
    fn findings_land_in_walk_order_each_commits_in_the_order_they_came() {
        let mut tally = Tally::default();
        // A message with room to spare, as `format!` leaves one.
        let say = || {
            let mut message = String::with_capacity(64);
            message.push('m');
            finding("unattributed_commit", message, "", Subject::default())
        };
        for (index, name) in [(5, "a"), (2, "b"), (5, "c"), (2, "d"), (0, "e")] {
            let mut f = say();
            f.decide = name.into();
            tally.push(index, f);
        }
        // Each message gives back the room formatting reserved beyond it.
        assert!(tally.out.iter().all(|(_, f)| f.message.capacity() == 1));
        let order: Vec<String> = Tally::into_sorted(tally.out)
            .iter()
            .map(|f| f.decide.to_string())
            .collect();
        assert_eq!(order, ["e", "b", "d", "a", "c"]);
        // Sorted already, they stay as they came.
        let mut tally = Tally::default();
        for (index, name) in [(0, "x"), (0, "y"), (3, "z")] {
            let mut f = say();
            f.decide = name.into();
            tally.extend(index, vec![f]);
        }
        let order: Vec<String> = Tally::into_sorted(tally.out)
            .iter()
            .map(|f| f.decide.to_string())
            .collect();
        assert_eq!(order, ["x", "y", "z"]);
    }

    #[test]
    fn a_waiting_commit_takes_twelve_bytes() {
        // A whole history's commits wait in the tally (git/git: 80,000).
        assert!(std::mem::size_of::<Waiting>() <= 12);
    }

    #[test]
    fn pending_commits_hold_their_changes_while_they_may_matter_and_fit() {
        let pending = |index: usize, changes: usize| Pending {
            index,
            id: oid(COMMIT),
            merge: false,
            changes: Some(vec![modified("docs/b.md"); changes]),
        };
        let held =
            |tally: &Tally| -> Vec<bool> { tally.pending.iter().map(Waiting::holds).collect() };
        // Up to PENDING_HELD changes are held; the one past it lets every
        // pending commit's go, and later ones hold none.
        let mut tally = Tally::default();
        tally.hold(pending(0, PENDING_HELD - 1));
        tally.hold(pending(1, 1));
        assert_eq!(held(&tally), [true, true]);
        tally.hold(pending(2, 1));
        assert_eq!(held(&tally), [false, false, false]);
        tally.hold(pending(3, 0));
        assert_eq!(held(&tally), [false, false, false, false]);
        // Two tasks' files in the range: no pending commit's changes can
        // matter.
        let mut tally = Tally::default();
        tally.hold(pending(0, 3));
        tally.touched_tasks = BTreeSet::from(["T-1".to_string(), "T-2".to_string()]);
        tally.hold(pending(1, 3));
        assert_eq!(held(&tally), [false, false]);
    }

    // The range's own judgements: its words, its shape, the commits it
    // does not diff, the scope additions it brings, what git could not
    // give. Plain data in, findings out.

    const BASE: &str = "3333333333333333333333333333333333333333";

    fn ranged(base: Base) -> RangeSpec {
        RangeSpec {
            base,
            tip: oid(TIP),
            label: "B..T".into(),
            ref_name: None,
        }
    }

    /// What [`judge_shape`] ends with: (cause, severity), or `None`.
    fn shape(
        base: Base,
        commits: &[Oid],
        ancestor: bool,
        shallow: &[Oid],
        push: bool,
        task_range: bool,
    ) -> Option<(&'static str, Severity)> {
        let opts = Options {
            push,
            task_range,
            ..Options::default()
        };
        let shallow: HashSet<Oid> = shallow.iter().copied().collect();
        judge_shape(&ranged(base), commits, ancestor, &shallow, &opts)
            .err()
            .map(|e| (e.finding.cause, e.finding.severity))
    }

    #[test]
    fn a_base_the_tip_does_not_descend_from_is_refused_unless_the_clone_hides_it() {
        let commits = [oid(COMMIT)];
        assert_eq!(
            shape(Base::Commit(oid(BASE)), &commits, false, &[], false, false),
            Some(("baseline_not_ancestor", Severity::Blocker))
        );
        let within = || Base::Within {
            base: oid(BASE),
            others: vec![],
        };
        assert_eq!(
            shape(within(), &commits, false, &[], false, true),
            Some(("baseline_not_ancestor", Severity::Blocker))
        );
        // The walk met the shallow boundary before it could tell.
        assert_eq!(
            shape(
                Base::Commit(oid(BASE)),
                &commits,
                false,
                &commits,
                false,
                false
            ),
            Some(("shallow_history", Severity::Unknown))
        );
        assert_eq!(
            shape(Base::Commit(oid(BASE)), &commits, true, &[], false, false),
            None
        );
        // A new branch's range has no base to descend from.
        assert_eq!(
            shape(Base::Hidden(vec![]), &commits, false, &[], true, false),
            None
        );
    }

    #[test]
    fn an_empty_range_is_said_as_where_it_is_checked_asks() {
        let base = || Base::Commit(oid(BASE));
        assert_eq!(
            shape(base(), &[], true, &[], false, false),
            Some(("empty_range", Severity::Blocker))
        );
        assert_eq!(
            shape(base(), &[], true, &[], true, false),
            Some(("empty_range", Severity::Info))
        );
        assert_eq!(
            shape(base(), &[], true, &[], false, true),
            Some(("no_commits_yet", Severity::Info))
        );
        // A task's range whose commits the remotes already hold.
        let pushed = Base::Within {
            base: oid(BASE),
            others: vec![oid(TIP)],
        };
        assert_eq!(
            shape(pushed, &[], true, &[], false, true),
            Some(("empty_range", Severity::Info))
        );
        // A task started at the tip has no commits yet.
        let at_tip = Base::Within {
            base: oid(TIP),
            others: vec![],
        };
        assert_eq!(
            shape(at_tip, &[], true, &[], false, true),
            Some(("no_commits_yet", Severity::Info))
        );
    }

    #[test]
    fn a_range_is_two_sides_and_left_out_revisions() {
        let cause = |r: Result<(&str, &str), Box<Finding>>| r.err().map(|f| f.cause);
        assert_eq!(range_sides("a..b").ok(), Some(("a", "b")));
        assert_eq!(range_sides("..b").ok(), Some(("HEAD", "b")));
        assert_eq!(range_sides("a..").ok(), Some(("a", "HEAD")));
        assert_eq!(cause(range_sides("a")), Some("range_invalid"));
        assert_eq!(cause(range_sides("a...b")), Some("range_invalid"));
        let (range, not) = range_words("a..b ^c  ^d").expect("words");
        assert_eq!((range, not), ("a..b", vec!["c", "d"]));
        assert_eq!(
            range_words("a..b c").err().map(|f| f.cause),
            Some("range_invalid")
        );
    }

    #[test]
    fn commits_the_walk_does_not_diff_are_imported_or_unknown() {
        let range = range();
        let rules = rules(&range, Merges::Inspect, false);
        let (imported, boundary, plain) = (oid(COMMIT), oid(BASE), oid(TIP));
        let mut tally = Tally::default();
        undiffed_findings(
            &[plain, imported, boundary],
            &HashSet::from([imported]),
            &HashSet::from([boundary]),
            "upstream/main",
            &rules,
            &mut tally,
        );
        let found: Vec<_> = tally
            .out
            .iter()
            .map(|(key, f)| (key >> 32, f.cause, f.severity, f.subject.commit.clone()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    1,
                    "imported_commit",
                    Severity::Info,
                    Some(COMMIT.to_string())
                ),
                (
                    2,
                    "shallow_history",
                    Severity::Unknown,
                    Some(BASE.to_string())
                ),
            ]
        );
        assert_eq!(tally.walked_tasks.undiffed, [imported, boundary]);
    }

    #[test]
    fn each_scope_addition_a_range_brings_is_said() {
        let mut set = tasks();
        if let Some(view) = set.tasks.get_mut("T-1") {
            view.added.push(crate::brief::ScopeAddition {
                time: "2026-12-01T10:00:00Z".into(),
                author: "Ada".into(),
                glob: "docs/**".into(),
                because: "the guide".into(),
            });
        }
        let touched = BTreeSet::from(["T-1".to_string(), "T-2".to_string()]);
        let found = widened_findings(&set, &touched, &range());
        let found: Vec<_> = found
            .iter()
            .map(|f| (f.cause, f.severity, f.subject.task.clone()))
            .collect();
        assert_eq!(
            found,
            [("scope_widened", Severity::Info, Some("T-1".to_string()))]
        );
    }

    #[test]
    fn what_git_could_not_give_is_unknown_by_what_would_decide_it() {
        let cause = |e: GitError| git_unknown(&e, Subject::default()).cause;
        assert_eq!(
            cause(GitError::MissingObject { id: COMMIT.into() }),
            "object_missing"
        );
        assert_eq!(
            cause(GitError::MissingInDiff {
                id: COMMIT.into(),
                context: "diffing".into()
            }),
            "object_missing"
        );
        assert_eq!(
            cause(GitError::ShallowBoundary {
                commit: COMMIT.into(),
                parent: BASE.into()
            }),
            "shallow_history"
        );
        assert_eq!(
            cause(GitError::ShallowMergeBase {
                commit: COMMIT.into()
            }),
            "shallow_history"
        );
        assert_eq!(
            cause(GitError::UnknownRevision { spec: "x".into() }),
            "input_unreadable"
        );
    }
}
