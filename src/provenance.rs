//! Commit-range provenance (SPEC §4.2): every changed path of every commit
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

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::{IsTerminal, Write};
use std::path::Path;

use crate::git::{Change, GitError, Oid, Renames, Repo};
use crate::path::RepoPath;
use crate::policy::{Merges, Policy};
use crate::report::{Finding, Severity, Subject};
use crate::scope::{self, Scope};
use crate::task::{self as tasks, Task, TaskStatus};

pub const CHECK: &str = "provenance";

/// Where a range starts.
#[derive(Debug, Clone)]
pub enum Base {
    /// An explicit base commit, which must be an ancestor of the tip.
    Commit(Oid),
    /// A new branch: the commits not reachable from any of these (may be empty).
    Hidden(Vec<Oid>),
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
    /// An empty range is `info` in a push (nothing new to prove), a blocker otherwise.
    pub push: bool,
}

fn finding(cause: &'static str, message: String, decide: &str, subject: Subject) -> Finding {
    Finding {
        check: CHECK,
        cause,
        severity: Severity::Blocker,
        unknown: false,
        message,
        decide: decide.into(),
        subject,
    }
}

fn unknown(cause: &'static str, message: String, decide: &str, subject: Subject) -> Finding {
    Finding::unknown(CHECK, cause, message, decide.into()).with_subject(subject)
}

fn git_unknown(e: &GitError, subject: Subject) -> Finding {
    let cause = match e {
        GitError::MissingObject { .. } => "object_missing",
        _ => "input_unreadable",
    };
    unknown(
        cause,
        e.to_string(),
        "fetch the missing history (git fetch), or repair the repository (git fsck)",
        subject,
    )
}

/// Resolve `A..B` (`A..` and `..B` mean HEAD on the empty side).
pub fn parse_range(repo: &Repo, spec: &str) -> Result<RangeSpec, Box<Finding>> {
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
    let base = repo
        .resolve_commit(a)
        .map_err(|e| base_unavailable(a, &e))?;
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

fn base_unavailable(spec: &str, e: &GitError) -> Finding {
    unknown(
        "baseline_unavailable",
        format!("the baseline `{spec}` is not available: {e}"),
        "fetch the history that holds it (git fetch), or correct the baseline",
        Subject {
            commit: Oid::from_hex(spec).map(|o| o.to_hex()),
            ..Subject::default()
        },
    )
}

/// A task's `baseline..HEAD`.
pub fn task_range(repo: &Repo, task: &Task) -> Result<RangeSpec, Box<Finding>> {
    let baseline = &task.record.baseline;
    let base = match Oid::from_hex(baseline) {
        Some(oid) if repo.has_object(oid) => oid,
        _ => {
            return Err(Box::new(base_unavailable(
                baseline,
                &GitError::MissingObject {
                    id: baseline.clone(),
                },
            )));
        }
    };
    let tip = repo
        .head()
        .map_err(|e| git_unknown(&e, Subject::default()))?
        .id()
        .ok_or_else(|| {
            unknown(
                "tip_unavailable",
                "HEAD has no commit".into(),
                "commit the work first",
                Subject::default(),
            )
        })?;
    Ok(RangeSpec {
        base: Base::Commit(base),
        tip,
        label: format!("{}..HEAD", &baseline[..12]),
        ref_name: None,
    })
}

/// One task as provenance sees it.
#[derive(Debug, Clone)]
pub struct TaskView {
    pub id: String,
    /// The compiled scope, or why it could not be read.
    pub scope: Result<Scope, String>,
    pub status: Option<TaskStatus>,
}

/// The tasks commits can belong to.
#[derive(Debug, Clone, Default)]
pub struct TaskSet {
    tasks: BTreeMap<String, TaskView>,
    /// The task of commits without a trailer (`--task`, the active task).
    default: Option<String>,
}

impl TaskSet {
    /// Tasks from the tip's tree (`.gate/tasks/*.md`), then from the work
    /// tree when given (a local task not committed yet), plus `default`.
    /// The work tree's copy wins when `prefer_worktree`, else the tip's.
    pub fn gather(
        repo: &Repo,
        worktree: Option<&Path>,
        tip: Oid,
        default: Option<&Task>,
    ) -> TaskSet {
        let mut set = TaskSet::default();
        if let Ok(entries) = repo.list_dir(tip, &RepoPath::from(tasks::TASKS_DIR)) {
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
                        id,
                        String::from_utf8(bytes).map_err(|_| "not UTF-8".to_string()),
                        path.as_path(),
                    ),
                    Err(e) => TaskView {
                        id: id.into(),
                        scope: Err(e.to_string()),
                        status: None,
                    },
                };
                set.tasks.insert(id.to_string(), view);
            }
        }
        if let Some(root) = worktree
            && let Ok(list) = tasks::list(root)
        {
            for task in list.into_iter().flatten() {
                set.tasks
                    .entry(task.record.id.clone())
                    .or_insert_with(|| view_of(&task));
            }
        }
        if let Some(t) = default {
            set.tasks.insert(t.record.id.clone(), view_of(t));
            set.default = Some(t.record.id.clone());
        }
        set
    }

    pub fn get(&self, id: &str) -> Option<&TaskView> {
        self.tasks.get(id)
    }
}

fn view_of(task: &Task) -> TaskView {
    TaskView {
        id: task.record.id.clone(),
        scope: Scope::new(&task.record.scope, &task.record.id),
        status: Some(task.record.status),
    }
}

fn view_from_text(id: &str, text: Result<String, String>, file: &Path) -> TaskView {
    match text.and_then(|t| tasks::parse(file, t).map_err(|e| e.to_string())) {
        Ok(task) => view_of(&task),
        Err(e) => TaskView {
            id: id.into(),
            scope: Err(e),
            status: None,
        },
    }
}

/// The values of trailer `key` (case-insensitive) in a commit message's
/// last paragraph.
pub fn trailer_values(message: &[u8], key: &str) -> Vec<String> {
    let text = String::from_utf8_lossy(message);
    let last = text.trim_end().rsplit("\n\n").next().unwrap_or("");
    last.lines()
        .filter_map(|line| {
            let (k, v) = line.split_once(':')?;
            (k.trim().eq_ignore_ascii_case(key) && !k.contains(' ')).then(|| v.trim().to_string())
        })
        .filter(|v| !v.is_empty())
        .collect()
}

/// Prove a range. Returns a one-line summary and the findings.
pub fn check(
    repo: &Repo,
    policy: &Policy,
    tasks: &TaskSet,
    range: &RangeSpec,
    opts: &Options,
) -> (String, Vec<Finding>) {
    let mut findings = Vec::new();
    let base_subject = Subject {
        ref_name: range.ref_name.clone(),
        ..Subject::default()
    };
    let subject = |commit: Option<Oid>| Subject {
        commit: commit.map(|c| c.to_hex()),
        ..base_subject.clone()
    };
    let hidden: Vec<Oid> = match &range.base {
        Base::Commit(base) => {
            match repo.is_ancestor(*base, range.tip) {
                Ok(true) => {}
                Ok(false) if repo.is_shallow() => {
                    findings.push(unknown(
                        "shallow_history",
                        format!(
                            "the clone is shallow and the baseline {} is not within its history",
                            base.short()
                        ),
                        "fetch the full history (git fetch --unshallow) and check again",
                        subject(Some(*base)),
                    ));
                    return (format!("{} not provable", range.label), findings);
                }
                Ok(false) => {
                    findings.push(finding(
                        "baseline_not_ancestor",
                        format!("the baseline {} is not an ancestor of {}", base.short(), range.tip.short()),
                        "rebase the work onto its baseline, or start a new task from the current HEAD",
                        subject(Some(*base)),
                    ));
                    return (format!("{} not a range", range.label), findings);
                }
                Err(e) => {
                    findings.push(git_unknown(&e, subject(Some(*base))));
                    return (format!("{} unreadable", range.label), findings);
                }
            }
            vec![*base]
        }
        Base::Hidden(h) => h.clone(),
    };
    let commits = match repo.walk(&[range.tip], &hidden) {
        Ok(c) => c,
        Err(e) => {
            findings.push(git_unknown(&e, subject(Some(range.tip))));
            return (format!("{} unreadable", range.label), findings);
        }
    };
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
        findings.push(Finding {
            severity,
            ..finding(
                "empty_range",
                message,
                "commit the work, or check the range that holds it",
                subject(None),
            )
        });
        return (format!("{}: no commits", range.label), findings);
    }
    // Imported commits: reachable from the named upstream.
    let mut imported: HashSet<Oid> = HashSet::new();
    if let Some(upstream) = &policy.provenance.upstream {
        match repo.resolve_commit(upstream) {
            Ok(up) => match repo.walk(&[range.tip], &[hidden.clone(), vec![up]].concat()) {
                Ok(authored) => {
                    let authored: HashSet<Oid> = authored.into_iter().collect();
                    imported = commits
                        .iter()
                        .filter(|c| !authored.contains(c))
                        .copied()
                        .collect();
                }
                Err(e) => findings.push(git_unknown(&e, subject(Some(up)))),
            },
            Err(e) => findings.push(unknown(
                "upstream_unavailable",
                format!("the policy's upstream `{upstream}` does not resolve: {e}"),
                "fetch it, or correct provenance.upstream in .gate/policy.yaml",
                subject(None),
            )),
        }
    }
    let shallow: HashSet<Oid> = if repo.is_shallow() {
        repo.shallow_commits()
            .unwrap_or_default()
            .into_iter()
            .collect()
    } else {
        HashSet::new()
    };
    let trailer_key = policy.provenance.trailer.clone();
    let attribution_key = trailer_key.clone().unwrap_or_else(|| "Task".into());
    let progress = Progress::new(commits.len());

    // First pass: read every commit's changes once; note which task files the range touches.
    struct Seen {
        id: Oid,
        parents: usize,
        trailers: Vec<String>,
        diffs: Vec<Vec<Change>>,
    }
    let mut seen: Vec<Seen> = Vec::with_capacity(commits.len());
    let mut touched_tasks: BTreeSet<String> = BTreeSet::new();
    for (i, &id) in commits.iter().enumerate() {
        progress.tick(i);
        if imported.contains(&id) {
            findings.push(Finding {
                severity: Severity::Info,
                ..finding(
                    "imported_commit",
                    format!(
                        "{} is reachable from {}: imported, not scope-checked",
                        id.short(),
                        policy.provenance.upstream.as_deref().unwrap_or("upstream")
                    ),
                    "",
                    subject(Some(id)),
                )
            });
            continue;
        }
        if shallow.contains(&id) {
            findings.push(unknown(
                "shallow_history",
                format!(
                    "{} is a shallow boundary: its parents are not in this clone",
                    id.short()
                ),
                "fetch the full history (git fetch --unshallow) and check again",
                subject(Some(id)),
            ));
            continue;
        }
        let info = match repo.commit(id) {
            Ok(i) => i,
            Err(e) => {
                findings.push(git_unknown(&e, subject(Some(id))));
                continue;
            }
        };
        let diffs = match repo.changes(id, Renames::Exact) {
            Ok(d) => d.into_iter().map(|p| p.changes).collect::<Vec<_>>(),
            Err(e) => {
                findings.push(git_unknown(&e, subject(Some(id))));
                continue;
            }
        };
        for changes in &diffs {
            for c in changes {
                for p in c.paths() {
                    if let Some(task) = task_of_path(p) {
                        touched_tasks.insert(task);
                    }
                }
            }
        }
        seen.push(Seen {
            id,
            parents: info.parents.len(),
            trailers: trailer_values(&info.message, &attribution_key),
            diffs,
        });
    }
    progress.done();
    let fallback = tasks.default.clone().or_else(|| {
        (touched_tasks.len() == 1)
            .then(|| touched_tasks.iter().next().cloned())
            .flatten()
    });

    let mut merges = 0;
    for s in &seen {
        let sub = subject(Some(s.id));
        let is_merge = s.parents > 1;
        if is_merge {
            merges += 1;
            if policy.provenance.merges == Merges::Refuse {
                findings.push(finding(
                    "merge_commit",
                    format!("{} is a merge commit, and the policy refuses merges", s.id.short()),
                    "rebase instead of merging, or set provenance.merges: inspect (with provenance.upstream) in .gate/policy.yaml",
                    Subject { change: Some("merge"), ..sub.clone() },
                ));
                continue;
            }
        }
        // Which task does the commit belong to?
        let task_id = match s.trailers.as_slice() {
            [one] => Some(one.clone()),
            [] => {
                if trailer_key.is_some() && !is_merge {
                    findings.push(finding(
                        "missing_trailer",
                        format!("{} carries no `{attribution_key}:` trailer", s.id.short()),
                        &format!("amend the commit message with `{attribution_key}: <task id>` (git commit --amend, or rebase -i)"),
                        sub.clone(),
                    ));
                }
                fallback.clone()
            }
            many => {
                findings.push(finding(
                    "unattributed_commit",
                    format!("{} names several tasks: {}", s.id.short(), many.join(", ")),
                    "split the commit so each names one task",
                    sub.clone(),
                ));
                continue;
            }
        };
        let Some(task_id) = task_id else {
            findings.push(finding(
                "unattributed_commit",
                format!(
                    "{} belongs to no task: no `{attribution_key}:` trailer, no task given, and the range touches {} task files",
                    s.id.short(),
                    touched_tasks.len()
                ),
                &format!("add a `{attribution_key}: <task id>` trailer, or pass --task ID"),
                sub.clone(),
            ));
            continue;
        };
        let Some(view) = tasks.get(&task_id) else {
            findings.push(finding(
                "unknown_task",
                format!(
                    "{} names task `{task_id}`, which has no task file here",
                    s.id.short()
                ),
                "commit the task's file, or correct the trailer",
                Subject {
                    task: Some(task_id.clone()),
                    ..sub.clone()
                },
            ));
            continue;
        };
        let scope = match &view.scope {
            Ok(s) => s,
            Err(m) => {
                findings.push(unknown(
                    "task_unreadable",
                    format!("task {task_id} could not be read: {m}"),
                    "fix the task file",
                    Subject {
                        task: Some(task_id.clone()),
                        ..sub.clone()
                    },
                ));
                continue;
            }
        };
        let changes: Vec<Change> = if is_merge {
            merge_own_changes(&s.diffs)
        } else {
            s.diffs.concat()
        };
        for mut f in scope::check_changes(scope, &task_id, &changes, Some(&s.id.to_hex())) {
            f.check = CHECK;
            f.subject.ref_name = range.ref_name.clone();
            if is_merge {
                f.message.push_str(" (changed by the merge itself)");
            }
            findings.push(f);
        }
    }
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
    if !imported.is_empty() {
        extra.push(format!("{} imported", imported.len()));
    }
    if !extra.is_empty() {
        summary.push_str(&format!(" ({})", extra.join(", ")));
    }
    (summary, findings)
}

/// The changes a merge made itself: paths that differ from every parent.
fn merge_own_changes(diffs: &[Vec<Change>]) -> Vec<Change> {
    let Some((first, rest)) = diffs.split_first() else {
        return Vec::new();
    };
    let others: Vec<HashSet<&RepoPath>> = rest
        .iter()
        .map(|d| d.iter().flat_map(|c| c.paths()).collect())
        .collect();
    first
        .iter()
        .filter(|c| c.paths().any(|p| others.iter().all(|o| o.contains(p))))
        .cloned()
        .collect()
}

/// `.gate/tasks/<ID>.md` → `ID`.
fn task_of_path(p: &RepoPath) -> Option<String> {
    let s = p.to_str()?;
    let name = s.strip_prefix(tasks::TASKS_DIR)?.strip_prefix('/')?;
    let id = name.strip_suffix(".md")?;
    (!id.contains('/') && crate::ids::task_id(id).is_ok()).then(|| id.to_string())
}

/// Progress on stderr for long walks, only on a terminal.
struct Progress {
    total: usize,
    on: bool,
}

impl Progress {
    fn new(total: usize) -> Progress {
        Progress {
            total,
            on: total >= 500 && std::io::stderr().is_terminal(),
        }
    }

    fn tick(&self, i: usize) {
        if self.on && i.is_multiple_of(250) {
            let _ = write!(
                std::io::stderr(),
                "\rgate: provenance {i}/{} commits",
                self.total
            );
        }
    }

    fn done(&self) {
        if self.on {
            let _ = write!(std::io::stderr(), "\r\x1b[2K");
        }
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
    }
}
