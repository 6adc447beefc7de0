//! The rules a range's tasks are judged by in CI (docs/trust.md, "The
//! plan's trust"): the plan and task records of the range's tip, and those
//! of each **trusted** revision — the range's base or `--policy-from REV`,
//! and a bare repository's HEAD — which the change under judgement cannot
//! reach. The receipts and binding checks of `gate check --range` read them
//! here and judge by the union of what each side requires; nothing here
//! decides.

use std::collections::BTreeSet;

use crate::git::{Oid, Repo};
use crate::plan::Plan;
use crate::task::Task;
use crate::verdict::{At, Finding, Subject};

/// A revision whose rules the range cannot change, named for people
/// (`the range's base (1a2b3c4d5e6f)`).
#[derive(Debug, Clone)]
pub struct Trusted {
    pub commit: Oid,
    pub named: String,
}

/// The plans a range is judged by: TIP's and each trusted revision's
/// (`None` where a revision holds no `.gate/plan.yaml`).
pub struct Plans<'t> {
    pub tip: Option<Plan>,
    pub trusted: Vec<(&'t Trusted, Option<Plan>)>,
}

/// A task's records: TIP's, and each trusted revision's that holds one (by
/// its index in [`Plans::trusted`]). None there: the task is new in the
/// range, and TIP's record is its only one.
pub struct Records {
    pub tip: Task,
    pub trusted: Vec<(usize, Task)>,
}

impl Records {
    pub fn new_in_range(&self) -> bool {
        self.trusted.is_empty()
    }
}

/// TIP's plan and every trusted revision's; a plan that cannot be read is
/// the finding (unknown), never an empty plan.
pub fn plans<'t>(
    repo: &Repo,
    tip: Oid,
    trusted: &'t [Trusted],
    check: &'static str,
) -> Result<Plans<'t>, Box<Finding>> {
    let tip_named = format!("the tip {}", tip.short());
    let tip_plan = plan_at(repo, tip, &tip_named, check)?;
    let mut sides = Vec::new();
    for t in trusted {
        sides.push((t, plan_at(repo, t.commit, &t.named, check)?));
    }
    Ok(Plans {
        tip: tip_plan,
        trusted: sides,
    })
}

/// Task `id`'s records: TIP's (which must be there) and each trusted
/// revision's, or why they cannot be read.
pub fn records(repo: &Repo, tip: Oid, plans: &Plans, id: &str) -> Result<Records, String> {
    let tip_task = task_at(repo, tip, id)?
        .ok_or_else(|| format!("{} holds no record {}", tip.short(), file_of(id)))?;
    let mut trusted = Vec::new();
    for (n, (side, _)) in plans.trusted.iter().enumerate() {
        if let Some(task) =
            task_at(repo, side.commit, id).map_err(|why| format!("at {}: {why}", side.named))?
        {
            trusted.push((n, task));
        }
    }
    Ok(Records {
        tip: tip_task,
        trusted,
    })
}

/// The tasks `tip` hiding `hidden` touches: named by a commit's `key:`
/// trailer, or whose record a commit added or changed against its parent
/// (a merge: against every parent; a rename is a deletion and an
/// addition). Sorted.
///
/// Only the records' directory is compared, commit by commit: CI runs this
/// on every range it checks, and a full diff of each commit would repeat
/// the provenance walk's work (docs/ci.md).
pub fn tasks_touched(
    repo: &Repo,
    tip: Oid,
    hidden: &[Oid],
    key: &str,
) -> Result<Vec<String>, crate::git::GitError> {
    let records = crate::path::RepoPath::from(crate::task::TASKS_DIR);
    let mut ids = BTreeSet::new();
    for commit in repo.walk(&[tip], hidden)? {
        let info = repo.commit(commit)?;
        ids.extend(crate::provenance::trailer_values(&info.message, key));
        // A merge touches a record only where its result differs from
        // every parent: a record one side brought in is that side's
        // commits' (docs/provenance.md, "Merges").
        let mut per_parent = repo
            .changes_under(commit, &records)?
            .into_iter()
            .map(|diff| {
                diff.changes
                    .iter()
                    .filter(|c| c.kind != crate::git::ChangeKind::Deleted)
                    .filter_map(|c| crate::provenance::task_of_path(&c.path))
                    .collect::<BTreeSet<String>>()
            });
        let first = per_parent.next().unwrap_or_default();
        ids.extend(per_parent.fold(first, |all, next| &all & &next));
    }
    Ok(ids.into_iter().collect())
}

/// The plan at `commit` (named for people), `None` when it holds none; an
/// unreadable one is the finding.
fn plan_at(
    repo: &Repo,
    commit: Oid,
    named: &str,
    check: &'static str,
) -> Result<Option<Plan>, Box<Finding>> {
    let path = crate::path::RepoPath::from(crate::plan::PLAN_PATH);
    let unreadable = |why: String| {
        Box::new(
            Finding::unknown(
                check,
                "input_unreadable",
                format!("{} in {named}: {why}", crate::plan::PLAN_PATH),
                "fix .gate/plan.yaml, then check again".into(),
            )
            .with_subject(Subject {
                commit: Some(commit.to_hex()),
                at: At {
                    file: Some(crate::plan::PLAN_PATH.into()),
                    ..At::default()
                }
                .boxed(),
                ..Subject::default()
            }),
        )
    };
    let text = match repo.entry_at(commit, &path) {
        // A directory where the plan goes is not "no plan": unknown.
        Ok(None) if matches!(repo.tree_id_at(commit, &path), Ok(Some(_))) => {
            return Err(unreadable("a directory, not a file".into()));
        }
        Ok(None) => return Ok(None),
        Ok(Some((blob, crate::git::EntryKind::File | crate::git::EntryKind::Executable))) => repo
            .read_blob(blob)
            .map_err(|e| unreadable(e.to_string()))
            .and_then(|b| String::from_utf8(b).map_err(|_| unreadable("not UTF-8".into())))?,
        Ok(Some(_)) => return Err(unreadable("not a regular file".into())),
        Err(e) => return Err(unreadable(e.to_string())),
    };
    crate::plan::parse(std::path::Path::new(crate::plan::PLAN_PATH), &text)
        .map(Some)
        .map_err(|e| unreadable(e.to_string()))
}

fn file_of(id: &str) -> String {
    crate::task::task_file(id).display().to_string()
}

/// Task `id`'s record in `commit`'s tree, `None` when it holds none.
fn task_at(repo: &Repo, commit: Oid, id: &str) -> Result<Option<Task>, String> {
    crate::ids::task_id(id).map_err(|m| format!("`{id}` is not a task id: {m}"))?;
    let file = crate::task::task_file(id);
    let path = crate::path::RepoPath::from(file.to_string_lossy().as_ref());
    match repo.entry_at(commit, &path) {
        Ok(Some((blob, _))) => {
            let bytes = repo.read_blob(blob).map_err(|e| e.to_string())?;
            let text =
                String::from_utf8(bytes).map_err(|_| "its record is not UTF-8".to_string())?;
            crate::task::parse(&file, text)
                .map(Some)
                .map_err(|e| e.to_string())
        }
        Ok(None) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// Whether `tip`'s declaration of a check proves less than `trusted`'s:
/// another command or environment, or a trusted source no source of the
/// tip covers (docs/trust.md). What it loosens, for the message.
pub fn contract_loosened(
    trusted: &crate::plan::AcceptanceCheck,
    tip: &crate::plan::AcceptanceCheck,
) -> Option<String> {
    let mut what = Vec::new();
    if trusted.command != tip.command {
        what.push(format!(
            "its command `{}` becomes `{}`",
            trusted.command, tip.command
        ));
    }
    if trusted.environment != tip.environment {
        what.push("its environment changes".to_string());
    }
    let dropped: Vec<&str> = trusted
        .sources
        .iter()
        .filter(|s| !tip.sources.iter().any(|t| covers(t, s)))
        .map(String::as_str)
        .collect();
    if !dropped.is_empty() {
        what.push(format!("it no longer covers {}", dropped.join(", ")));
    }
    (!what.is_empty()).then(|| what.join("; "))
}

/// Whether source entry `outer` covers `inner`: the same path, or a
/// directory above it (docs/receipts.md, "What is covered").
fn covers(outer: &str, inner: &str) -> bool {
    let outer = outer.trim_end_matches('/');
    let inner = inner.trim_end_matches('/');
    outer == inner
        || inner
            .strip_prefix(outer)
            .is_some_and(|r| r.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::covers;

    #[test]
    fn a_source_covers_itself_and_what_lies_below_it() {
        assert!(covers("src", "src"));
        assert!(covers("src/", "src"));
        assert!(covers("src", "src/export/mod.rs"));
        assert!(!covers("src/export", "src"));
        assert!(!covers("src", "srcs/a"));
    }
}
