//! The brief at the doors (docs/brief.md): the `brief` check that
//! `gate check`, pre-commit and pre-push run, and the validation of one task
//! file that `gate task validate` reports.
//!
//! Validation weighs by age: a task created on or after
//! `brief.required_since` must have a valid brief (blocker); an older task is
//! never blocked — `info` under 30 days old, `warn` after. The append-only
//! rule is absolute: a commit (or a staged change, or an uncommitted edit)
//! that rewrites a brief, shortens or edits the addenda, or changes the front
//! matter beyond `status` and `pins` is refused, naming the commit.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::{Target, TaskState};
use crate::brief::{self, Weight};
use crate::clock::{Date, Timestamp};
use crate::ctx::Ctx;
use crate::git::{ChangeKind, Oid, Repo};
use crate::load::{self, LoadError};
use crate::path::RepoPath;
use crate::policy::Policy;
use crate::task::{TASKS_DIR, Task, TaskError};
use crate::verdict::{At, Finding, Severity, Subject};

pub const CHECK: &str = brief::CHECK;

fn severity(w: Weight) -> Severity {
    match w {
        Weight::Blocker => Severity::Blocker,
        Weight::Warn => Severity::Warn,
        Weight::Info => Severity::Info,
    }
}

fn decide(cause: &str) -> &'static str {
    match cause {
        "brief_missing" | "statement_empty" => {
            "record the operator's request: a task is started with `gate start --brief -` (the request on stdin)"
        }
        "schema_invalid" => "restore the task file's front matter to the 12 keys of gate.task/1",
        "qa_incomplete" => {
            "record the decision again with `gate task ask` (every field, both texts)"
        }
        "qa_rationale_too_short" => {
            "record it again with a rationale of at least 50 non-whitespace characters"
        }
        "addendum_malformed" => {
            "restore the entry as gate wrote it; add new ones with `gate task amend` or `gate task ask`"
        }
        "brief_rewritten" => {
            "restore the brief as first recorded; clarify with `gate task amend` instead"
        }
        "addenda_rewritten" => {
            "restore the earlier entries; the log only grows (`gate task amend`)"
        }
        _ => {
            "restore the task record; only `status` and `pins` may change (`gate task finish`, `gate handover`)"
        }
    }
}

/// Validate one loaded task, weighing each fault by the task's age; and
/// its open conflicts, which block whatever its age.
pub fn validate_task(task: &Task, policy: &Policy, today: Date) -> Vec<Finding> {
    let created = Timestamp::parse(&task.record.created_at)
        .ok()
        .map(|t| t.date());
    let mut findings = weigh(&task.file, brief::validate(task), created, policy, today);
    findings.extend(conflicts_open(task));
    findings
}

/// Each decision of the agent's that conflicts with the operator's words
/// and that no operator's answer has closed: a blocker, whatever the
/// task's age (docs/brief.md, "A conflict waits for the operator").
pub fn conflicts_open(task: &Task) -> Vec<Finding> {
    let Some(section) = &task.body.addenda else {
        return Vec::new();
    };
    let qa = brief::qa_entries(&section.text, section.line);
    let id = &task.record.id;
    brief::open_conflicts(&qa)
        .into_iter()
        .map(|q| {
            Finding::blocker(
                CHECK,
                "conflict_unresolved",
                format!(
                    "task {id}, round {} ({}): the agent decided \"{}\", which conflicts with the operator's words ({}), and no answer of the operator's closes it",
                    q.round,
                    q.stage.trim(),
                    q.summary.trim(),
                    q.conflict.trim()
                ),
                format!(
                    "ask the operator; their answer closes it: `gate task ask {id} --decided-by operator --resolves {} --stage review --question-file Q --answer-file A --summary S` (keeping or reversing the decision)",
                    q.round
                ),
            )
            .with_subject(Subject { task: Some(id.clone()), at: At { file: Some(task.file.display().to_string()), line: Some(q.line), ..At::default() }.boxed(), ..Subject::default() })
        })
        .collect()
}

/// The findings for a task file that was read but does not load as a task.
pub fn schema_findings(file: &Path, e: &TaskError, policy: &Policy, today: Date) -> Vec<Finding> {
    weigh(file, vec![brief::schema_invalid(e)], None, policy, today)
}

/// Faults of the task file `file` as findings, weighed by the day the task
/// was created.
fn weigh(
    file: &Path,
    faults: Vec<brief::Fault>,
    created: Option<Date>,
    policy: &Policy,
    today: Date,
) -> Vec<Finding> {
    let id = file.file_stem().map(|s| s.to_string_lossy().into_owned());
    faults
        .into_iter()
        .map(|f| {
            // A file whose age cannot be read is not "old": it blocks.
            let weight = created.map_or(Severity::Blocker, |c| {
                severity(brief::weight(c, policy.brief.required_since, today))
            });
            Finding::new(CHECK, f.cause, weight, f.message, decide(f.cause).into()).with_subject(
                Subject {
                    task: id.clone(),
                    at: At {
                        file: Some(file.display().to_string()),
                        line: f.line,
                        ..At::default()
                    }
                    .boxed(),
                    ..Subject::default()
                },
            )
        })
        .collect()
}

/// The append-only comparison of two versions of a task file as findings.
fn compare(
    path: &RepoPath,
    old: Option<&[u8]>,
    new: Option<&[u8]>,
    commit: Option<Oid>,
    place: &str,
) -> Vec<Finding> {
    let file = path.lossy();
    let subject = |line: Option<usize>| Subject {
        commit: commit.map(|c| c.to_hex()),
        path: Some(path.clone()),
        task: Path::new(&file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned()),
        at: At {
            line,
            ..At::default()
        }
        .boxed(),
        ..Subject::default()
    };
    let Some(old) = old else { return Vec::new() };
    let Some(new) = new else {
        let message = format!(
            "{place} deletes task file {file}: the brief and its log are kept, never removed"
        );
        let decide =
            "restore the task file; close the task with `gate task finish` or `gate task abandon`";
        return vec![
            Finding::blocker(CHECK, "brief_rewritten", message, decide.into())
                .with_subject(subject(None)),
        ];
    };
    let (Ok(old), Ok(new)) = (std::str::from_utf8(old), std::str::from_utf8(new)) else {
        return vec![
            Finding::blocker(
                CHECK,
                "schema_invalid",
                format!("{place}: {file} is not UTF-8"),
                decide("schema_invalid").into(),
            )
            .with_subject(subject(None)),
        ];
    };
    brief::compare(Path::new(&file), old, new)
        .into_iter()
        .map(|f| {
            Finding::blocker(
                CHECK,
                f.cause,
                format!("{place}: {file}: {}", f.message),
                decide(f.cause).into(),
            )
            .with_subject(subject(f.line))
        })
        .collect()
}

fn is_task_file(p: &RepoPath) -> bool {
    p.is_under(TASKS_DIR) && p.as_bytes().ends_with(b".md")
}

fn unreadable(e: impl std::fmt::Display) -> Finding {
    Finding::unknown(
        CHECK,
        "input_unreadable",
        e.to_string(),
        "repair the repository (git fsck), then check again".into(),
    )
}

/// The blob at `path` in `commit`, `None` when absent.
fn blob_at(
    repo: &Repo,
    commit: Oid,
    path: &RepoPath,
) -> Result<Option<Vec<u8>>, crate::git::GitError> {
    match repo.entry_at(commit, path)? {
        Some((oid, _)) => repo.read_blob(oid).map(Some),
        None => Ok(None),
    }
}

/// The summary of a range's brief check: how many commits changed task files.
pub fn commits_changing_tasks(n: usize) -> String {
    format!(
        "{n} commit{} changing task files",
        if n == 1 { "" } else { "s" }
    )
}

/// Every commit of a range (tip, hidden bases) that changes a task file is
/// compared with its parent: only what `.gate/tasks` trees differ in is read.
/// And each task file the range changes is read at the tip for its open
/// conflicts ([`conflicts_open`]), but for task `judged`'s, which its
/// caller judges from the task as it is now.
pub fn range_findings(
    repo: &Repo,
    tip: Oid,
    hidden: &[Oid],
    judged: Option<&str>,
) -> (usize, Vec<Finding>) {
    let dir = RepoPath::from(TASKS_DIR);
    let commits = match repo.walk(&[tip], hidden) {
        Ok(c) => c,
        Err(e) => return (0, vec![unreadable(e)]),
    };
    let mut findings = Vec::new();
    let mut touched = 0;
    let mut changed: BTreeSet<RepoPath> = BTreeSet::new();
    for id in commits {
        let result = (|| -> Result<(), crate::git::GitError> {
            let info = repo.commit(id)?;
            let own = repo.tree_id_at(id, &dir)?;
            let mut parent_trees = Vec::new();
            for p in &info.parents {
                parent_trees.push(repo.tree_id_at(*p, &dir)?);
            }
            // Unchanged against some parent: nothing this commit did itself.
            if parent_trees.contains(&own) || (info.parents.is_empty() && own.is_none()) {
                return Ok(());
            }
            if info.parents.is_empty() {
                return Ok(());
            }
            touched += 1;
            // Blob ids first: only a task file whose id differs from every
            // parent's is read (equal ids are equal bytes).
            let listing = |commit: Oid| -> Result<BTreeMap<RepoPath, Oid>, crate::git::GitError> {
                Ok(repo
                    .list_dir(commit, &dir)?
                    .into_iter()
                    .map(|(p, oid, _)| (p, oid))
                    .collect())
            };
            let own = listing(id)?;
            let parents = info
                .parents
                .iter()
                .map(|p| listing(*p))
                .collect::<Result<Vec<_>, _>>()?;
            let names: BTreeSet<&RepoPath> = own.keys().chain(parents[0].keys()).collect();
            for path in names.into_iter().filter(|p| is_task_file(p)) {
                let new_id = own.get(path);
                // A merge's version that matches any parent's was proved on that side.
                if parents.iter().any(|p| p.get(path) == new_id) {
                    continue;
                }
                changed.insert(path.clone());
                let new = new_id.map(|oid| repo.read_blob(*oid)).transpose()?;
                let old = parents[0]
                    .get(path)
                    .map(|oid| repo.read_blob(*oid))
                    .transpose()?;
                findings.extend(compare(
                    path,
                    old.as_deref(),
                    new.as_deref(),
                    Some(id),
                    &format!("commit {}", id.short()),
                ));
            }
            Ok(())
        })();
        if let Err(e) = result {
            findings.push(unreadable(e).with_subject(Subject {
                commit: Some(id.to_hex()),
                ..Subject::default()
            }));
        }
    }
    findings.extend(conflicts_at(repo, tip, &changed, judged));
    (touched, findings)
}

/// The open conflicts of the task files `paths` as `tip` holds them (a file
/// the tip deleted, or that does not read as a task, has none: the
/// comparison names what is wrong with it), but for task `judged`'s.
fn conflicts_at(
    repo: &Repo,
    tip: Oid,
    paths: &BTreeSet<RepoPath>,
    judged: Option<&str>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for path in paths {
        let file = Path::new(&*path.lossy()).to_path_buf();
        if judged.is_some_and(|id| file.file_stem().is_some_and(|s| s == id)) {
            continue;
        }
        let bytes = match blob_at(repo, tip, path) {
            Ok(Some(b)) => b,
            Ok(None) => continue,
            Err(e) => {
                out.push(unreadable(e));
                continue;
            }
        };
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        if let Ok(task) = crate::task::parse(&file, text) {
            out.extend(conflicts_open(&task).into_iter().map(|mut f| {
                f.subject.commit = Some(tip.to_hex());
                f
            }));
        }
    }
    out
}

/// Staged changes to task files against HEAD (pre-commit). A task file
/// renamed away counts as deleted: its old name loses what it held.
fn staged_findings(ctx: &Ctx) -> Vec<Finding> {
    let repo = &ctx.repo;
    let head = match repo.head() {
        Ok(h) => h.id(),
        Err(e) => return vec![unreadable(e)],
    };
    let Some(head) = head else { return Vec::new() };
    let changes = match ctx.staged_changes() {
        Ok(c) => c,
        Err(e) => return vec![unreadable(e)],
    };
    // Every task file HEAD holds that the index changes or no longer holds.
    let edited: Vec<&RepoPath> = changes
        .iter()
        .filter_map(|c| match c.kind {
            ChangeKind::Renamed => c.from.as_ref(),
            ChangeKind::Added => None,
            _ => Some(&c.path),
        })
        .filter(|path| is_task_file(path))
        .collect();
    if edited.is_empty() {
        return Vec::new();
    }
    let index = match ctx.index() {
        Ok(i) => i,
        Err(e) => return vec![unreadable(e)],
    };
    let mut out = Vec::new();
    for path in edited {
        let old = match blob_at(repo, head, path) {
            Ok(b) => b,
            Err(e) => {
                out.push(unreadable(e));
                continue;
            }
        };
        let new = match repo.index_blob(index, path) {
            Some((oid, _)) => match repo.read_blob(oid) {
                Ok(b) => Some(b),
                Err(e) => {
                    out.push(unreadable(e));
                    continue;
                }
            },
            None => None,
        };
        out.extend(compare(
            path,
            old.as_deref(),
            new.as_deref(),
            None,
            "the staged change",
        ));
    }
    out
}

/// Uncommitted edits of task files in the work tree against HEAD's commit
/// `head`. Each file is read as git would stage it: a regular file through
/// the guarded reader (size cap; a FIFO or device is reported, never
/// opened), then through git's filters when its bytes differ from the
/// commit's (a `core.autocrlf` checkout holds CRLF where the blob has LF:
/// that is no edit), a symbolic link as its target path.
fn worktree_findings(ctx: &Ctx, head: Oid) -> Vec<Finding> {
    let dir = RepoPath::from(TASKS_DIR);
    let listed = match ctx.repo.list_dir(head, &dir) {
        Ok(l) => l,
        Err(e) => return vec![unreadable(e)],
    };
    // Set up once, and only when a file's bytes differ from its blob.
    let mut to_git: Option<crate::git::ToGit<'_>> = None;
    let mut out = Vec::new();
    for (path, blob, _) in listed.into_iter().filter(|(p, _, _)| is_task_file(p)) {
        let old = match ctx.repo.read_blob(blob) {
            Ok(b) => b,
            Err(e) => {
                out.push(unreadable(e));
                continue;
            }
        };
        let (new, is_file) = match worktree_version(ctx, &path) {
            Ok(b) => b,
            Err(e) => {
                out.push(super::unreadable(CHECK, &e));
                continue;
            }
        };
        let new = match new {
            Some(bytes) if is_file && bytes != old => {
                let converted = match &mut to_git {
                    Some(t) => t.convert(&path, &bytes),
                    None => ctx
                        .repo
                        .to_git()
                        .and_then(|t| to_git.insert(t).convert(&path, &bytes)),
                };
                match converted {
                    Ok(c) => Some(c),
                    Err(e) => {
                        out.push(unreadable(e));
                        continue;
                    }
                }
            }
            other => other,
        };
        if new.as_deref() != Some(old.as_slice()) {
            out.extend(compare(
                &path,
                Some(&old),
                new.as_deref(),
                None,
                "the work tree",
            ));
        }
    }
    out
}

/// The work tree's version of `path` before git's filters (`None` when
/// absent), and whether it is a regular file (else a symbolic link's target,
/// which no filter touches).
fn worktree_version(ctx: &Ctx, path: &RepoPath) -> Result<(Option<Vec<u8>>, bool), LoadError> {
    let shown = path.as_path();
    let abs = ctx.root().join(path.as_path());
    let read_error = |source: std::io::Error| LoadError::Read {
        file: shown.to_path_buf(),
        source,
    };
    match std::fs::symlink_metadata(&abs) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let target = std::fs::read_link(&abs).map_err(read_error)?;
            Ok((Some(target.as_os_str().as_encoded_bytes().to_vec()), false))
        }
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(read_error(e)),
        _ => Ok((load::read_bytes_optional_as(&shown, &abs)?, true)),
    }
}

/// What the brief check spans.
pub enum Span<'a> {
    /// pre-commit: the active task, and staged changes to task files.
    Staged,
    /// `gate check`: the active task, baseline..HEAD, and uncommitted edits.
    Task,
    /// Ranges — `(tip, hidden bases, pushed ref)` — and, for a push, the
    /// active task too (`gate check --range` in CI checks commits only).
    Ranges {
        ranges: &'a [(Oid, Vec<Oid>, Option<String>)],
        with_task: bool,
    },
}

/// The brief check over a span.
pub fn check_span(
    ctx: &Ctx,
    policy: &Policy,
    task: &TaskState,
    span: Span,
    today: Date,
) -> (String, Vec<Finding>) {
    let mut findings = Vec::new();
    let mut parts = Vec::new();
    if !matches!(
        span,
        Span::Ranges {
            with_task: false,
            ..
        }
    ) {
        match task {
            TaskState::Loaded(t) => {
                findings.extend(validate_task(t, policy, today));
                parts.push(format!("task {} validated", t.record.id));
            }
            TaskState::Unreadable(_) => {
                findings.extend(super::loaded(CHECK, task).err().map(|f| *f))
            }
            TaskState::None => parts.push("no active task".into()),
        }
    }
    match span {
        Span::Staged => {
            findings.extend(staged_findings(ctx));
            parts.push("staged task files compared with HEAD".into());
        }
        Span::Task => match ctx.head() {
            // HEAD unreadable: gate cannot tell what changed, which is no pass.
            Err(e) => findings.push(unreadable(e)),
            // An unborn branch has no commits and nothing committed to edit.
            Ok(head) => {
                if let Some(tip) = head.id() {
                    if let TaskState::Loaded(t) = task {
                        match Oid::from_hex(&t.record.baseline) {
                            Some(base) => {
                                let (n, f) =
                                    range_findings(&ctx.repo, tip, &[base], Some(&t.record.id));
                                findings.extend(f);
                                parts.push(commits_changing_tasks(n));
                            }
                            None => findings.push(unreadable(format!(
                                "task {}: baseline {} is not a commit id this repository can read",
                                t.record.id, t.record.baseline
                            ))),
                        }
                    }
                    findings.extend(worktree_findings(ctx, tip));
                }
            }
        },
        Span::Ranges { ranges, with_task } => {
            let mut total = 0;
            let judged = match task {
                TaskState::Loaded(t) if with_task => Some(t.record.id.as_str()),
                _ => None,
            };
            for (tip, hidden, ref_name) in ranges {
                let (n, f) = range_findings(&ctx.repo, *tip, hidden, judged);
                total += n;
                findings.extend(f.into_iter().map(|mut f| {
                    f.subject.ref_name.clone_from(ref_name);
                    f
                }));
            }
            parts.push(commits_changing_tasks(total));
        }
    }
    (parts.join(" · "), findings)
}

/// The brief check for a target: the task's brief, and the append-only rule
/// over what the target holds. `today` weighs a missing brief
/// (`brief.required_since`); the caller reads it from `crate::clock`.
pub fn check(
    ctx: &Ctx,
    policy: &crate::policy::Policy,
    task: &TaskState,
    target: &Target,
    today: Date,
) -> (String, Vec<Finding>) {
    match target {
        Target::Staged => check_span(ctx, policy, task, Span::Staged, today),
        Target::Task => check_span(ctx, policy, task, Span::Task, today),
        Target::Range(spec) => match crate::provenance::parse_range(&ctx.repo, spec) {
            Ok(range) => {
                let hidden = range.base.hidden();
                let ranges = [(range.tip, hidden, None)];
                check_span(
                    ctx,
                    policy,
                    task,
                    Span::Ranges {
                        ranges: &ranges,
                        with_task: false,
                    },
                    today,
                )
            }
            Err(f) => (
                "range unreadable".into(),
                vec![f.reported_by(crate::brief::CHECK)],
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    //! `conflict_unresolved` on plain data (docs/causes.md): a task parsed
    //! from its text, no repository.

    use super::*;
    use crate::brief::{Decider, Qa, render_qa};
    use crate::task;

    fn qa(round: usize, decided_by: Decider, conflict: &str, resolves: Option<usize>) -> String {
        render_qa(&Qa {
            time: "2026-11-30T11:00:00Z",
            author: "Ada",
            stage: "design",
            question: "Which store?",
            answer: "The file one.",
            decided_by,
            summary: "a file store",
            conflict,
            rationale: Some(
                "the operator asked for no server, and a file store needs none at all here",
            ),
            round,
            resolves,
        })
    }

    fn task(addenda: &str) -> Task {
        let record = crate::task::sample_record();
        let body = crate::task::format::render_new_body("Do it.\n")
            .replace("## Addenda\n\n", &format!("## Addenda\n\n{addenda}"));
        task::parse(
            std::path::Path::new(".gate/tasks/T-1.md"),
            task::render(&record, &body),
        )
        .unwrap()
    }

    #[test]
    fn an_agents_conflicting_decision_blocks_until_the_operator_closes_it() {
        let open = task(&qa(1, Decider::Agent, "the brief says a database", None));
        let found = conflicts_open(&open);
        assert_eq!(found.len(), 1);
        let f = &found[0];
        assert_eq!(
            (f.cause, f.severity),
            ("conflict_unresolved", Severity::Blocker)
        );
        assert!(
            f.message
                .starts_with("task T-1, round 1 (design): the agent decided \"a file store\""),
            "{}",
            f.message
        );
        assert!(f.decide.contains("--resolves 1"), "{}", f.decide);
        assert!(f.subject.at().line.is_some());
        // The operator's answer naming round 1 closes it.
        let closed = task(&format!(
            "{}{}",
            qa(1, Decider::Agent, "the brief says a database", None),
            qa(2, Decider::Operator, "none", Some(1))
        ));
        assert!(conflicts_open(&closed).is_empty());
        // An agent's answer does not; nor does a decision with no conflict.
        let agent_only = task(&format!(
            "{}{}",
            qa(1, Decider::Agent, "the brief says a database", None),
            qa(2, Decider::Agent, "none", None)
        ));
        assert_eq!(conflicts_open(&agent_only).len(), 1);
        assert!(conflicts_open(&task(&qa(1, Decider::Agent, "none", None))).is_empty());
    }
}
