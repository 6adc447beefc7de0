//! What every verb shares and none owns: the open repository and the
//! places gate uses in it ([`Ctx`]), the task and policy as reports show
//! them, today's date, this worktree's receipt key, and the advice
//! to commit a changed task file (docs/tasks.md#committing-the-task-file).

use std::path::{Path, PathBuf};

use crate::clock::{Date, Timestamp};
use crate::error::Failure;
use crate::git::{GitError, Repo};
use crate::plan::LoadedPlan;
use crate::policy::LoadedPolicy;
use crate::task::{self as tasks, Task};
use crate::text::FileText;
use crate::verdict::{BriefDigest, PolicyOrigin, TaskRef};

/// What [`Ctx::remembered`] keeps: each value by its kind and key.
type Remembered = std::collections::HashMap<(&'static str, String), Box<dyn std::any::Any>>;

/// An open repository with a work tree, and the places gate uses in it.
pub struct Ctx {
    pub repo: Repo,
    root: PathBuf,
    /// The directory gate runs in (`-C DIR`, else the current directory):
    /// paths given on the command line are relative to it.
    start: PathBuf,
    /// The staged changes, once asked for: scope and the brief both read
    /// them in one pre-commit, and the index does not change under a run.
    staged: std::cell::OnceCell<Vec<crate::git::Change>>,
    /// The plan, once read: every check of a run judges the same plan, and
    /// it is parsed once.
    plan: std::cell::OnceCell<Option<LoadedPlan>>,
    /// The index, once read: the staged changes, the work tree's status and
    /// the receipts of one run read the same index state, once. (Not for
    /// `gate verify`'s after-run fingerprint, which reads it again.)
    index: std::cell::OnceCell<crate::git::IndexSnapshot>,
    /// HEAD, once read: the checks of one run judge one HEAD (a pre-commit
    /// asked for it ten times, each a read of HEAD, the branch and
    /// packed-refs). Only the checks read it here; what a run writes after
    /// running a command (`gate verify`'s receipt) reads HEAD again.
    head: std::cell::OnceCell<crate::git::Head>,
    /// What a run reads of HEAD's files and this clone's state, once read
    /// ([`Ctx::remembered`]): one pre-commit asked for task T's file at
    /// HEAD five times and whether this clone's state is another task's
    /// three times, each a tree lookup, a blob read and a parse. HEAD is
    /// read once a run ([`Ctx::head`]), so what it commits does not change
    /// under it. What could not be read is not kept: each ask reports it.
    remembered: std::cell::RefCell<Remembered>,
    /// Where long steps show their meters: the run's one progress sink.
    pub progress: crate::progress::Sink,
}

/// What [`Ctx::open_or_bare`] found.
pub enum Opened {
    Work(Box<Ctx>),
    /// A bare repository, and the refusal of a verb that needs a work tree.
    Bare(Box<Repo>, Failure),
}

impl Ctx {
    /// Let the repository handle go as [`Repo::leave`] says; the rest is
    /// dropped here.
    pub fn leave(self) {
        self.repo.leave();
    }

    /// Open the repository containing `dir` (default: the current directory).
    pub fn open(dir: Option<&Path>) -> Result<Ctx, Failure> {
        match Ctx::open_or_bare(dir)? {
            Opened::Work(ctx) => Ok(*ctx),
            Opened::Bare(_, refused) => Err(refused),
        }
    }

    /// [`open`](Self::open), or the repository itself where it is bare
    /// (`gate check --range` on a server): opened once either way (a
    /// second open cost a bare range's check 0.5 ms).
    pub fn open_or_bare(dir: Option<&Path>) -> Result<Opened, Failure> {
        let start = match dir {
            Some(d) => d.to_path_buf(),
            None => std::env::current_dir()
                .map_err(|e| Failure::unknown(format!("cannot read the current directory: {e}")))?,
        };
        let repo = Repo::discover(&start)?;
        let Some(root) = repo.workdir().map(Path::to_path_buf) else {
            let refused = GitError::NoWorkTree {
                path: repo.git_dir(),
            };
            return Ok(Opened::Bare(Box::new(repo), refused.into()));
        };
        // gate's state, never through a link (docs/tasks.md, "Local
        // state"): checked before any verb reads or writes it.
        let mut dirs = vec![repo.common_dir()];
        if repo.git_dir() != dirs[0] {
            dirs.push(repo.git_dir());
        }
        for dir in dirs {
            crate::fsutil::check_state_dir(&dir).map_err(state_refused)?;
        }
        repo.keep_commits_under(&crate::receipts::Store::new(&repo.common_dir()).cache_dir());
        Ok(Opened::Work(Box::new(Ctx {
            repo,
            root,
            start,
            staged: std::cell::OnceCell::new(),
            plan: std::cell::OnceCell::new(),
            index: std::cell::OnceCell::new(),
            head: std::cell::OnceCell::new(),
            remembered: Default::default(),
            progress: crate::progress::Sink::stderr(),
        })))
    }

    /// The work tree root.
    /// HEAD as this run's checks see it: read once, then the same answer
    /// (an error is not kept: asking again reads again).
    pub fn head(&self) -> Result<crate::git::Head, crate::git::GitError> {
        if let Some(head) = self.head.get() {
            return Ok(head.clone());
        }
        let head = self.repo.head()?;
        Ok(self.head.get_or_init(|| head).clone())
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A path or glob given with `flag`, made repository-relative as git
    /// reads a pathspec: from the directory gate runs in, or from the root
    /// after `:/` ([`crate::path::from_cwd`]). One that leaves the
    /// repository is a usage error.
    pub fn from_cwd(&self, flag: &str, given: &str) -> Result<String, Failure> {
        let prefix = if given.starts_with(":/") {
            String::new()
        } else {
            self.cwd_prefix().map_err(|m| {
                Failure::usage(format!("{flag} {given}: {m}"))
                    .hint("give the path from the repository root as :/PATH")
            })?
        };
        crate::path::from_cwd(&prefix, given).map_err(|m| Failure::usage(format!("{flag}: {m}")))
    }

    /// A path named by a person or an agent's tool call — relative to the
    /// directory gate runs in, from the root after `:/`, or absolute (as
    /// editors give it) — made repository-relative by where a write to it
    /// lands: resolved by [`crate::locate::resolve`], the one resolution
    /// Claude Code's hook uses too, so a symbolic link is judged by where it
    /// points. A path that need not exist yet (a file about to be written)
    /// resolves as well. `Err` says why it names no path of this work tree
    /// (a link out of it included).
    pub fn path_in_tree(&self, given: &str) -> Result<String, String> {
        let path = Path::new(given);
        let absolute = if path.is_absolute() {
            path.to_path_buf()
        } else {
            // Checked as a pathspec first: climbing out, the root itself and
            // pathspec magic say what to write instead.
            let prefix = if given.starts_with(":/") {
                String::new()
            } else {
                self.cwd_prefix()?
            };
            crate::path::from_cwd(&prefix, given)?;
            match given.strip_prefix(":/") {
                Some(rest) => self.root.join(rest),
                None => self.start.join(given),
            }
        };
        let root = crate::platform::canonicalize(&self.root)
            .map_err(|e| format!("cannot resolve {}: {e}", self.root.display()))?;
        let landed = crate::locate::resolve(&absolute).map_err(|m| format!("{given:?}: {m}"))?;
        let below = landed.strip_prefix(&root).map_err(|_| {
            if crate::locate::lexical(&absolute) == landed {
                format!("{given:?} is outside the work tree {}", root.display())
            } else {
                format!(
                    "{given:?} leads to {}, outside the work tree {}",
                    landed.display(),
                    root.display()
                )
            }
        })?;
        let below = below
            .to_str()
            .ok_or_else(|| format!("{given:?} is not UTF-8"))?;
        crate::path::from_cwd("", &format!(":/{below}"))
    }

    /// The directory gate runs in, from the work tree's root (`""` at the root).
    fn cwd_prefix(&self) -> Result<String, String> {
        let real = |p: &Path| {
            crate::platform::canonicalize(p)
                .map_err(|e| format!("cannot resolve {}: {e}", p.display()))
        };
        let (start, root) = (real(&self.start)?, real(&self.root)?);
        let below = start.strip_prefix(&root).map_err(|_| {
            format!(
                "the current directory {} is not in the work tree {}",
                start.display(),
                root.display()
            )
        })?;
        let prefix = below
            .to_str()
            .ok_or_else(|| format!("the current directory {} is not UTF-8", start.display()))?;
        Ok(prefix.to_string())
    }

    /// The index against HEAD, exact renames paired: computed once per run.
    pub fn staged_changes(&self) -> Result<&[crate::git::Change], GitError> {
        if let Some(changes) = self.staged.get() {
            return Ok(changes);
        }
        let changes = self
            .repo
            .staged_changes_in(self.index()?, crate::git::Renames::Exact)?;
        Ok(self.staged.get_or_init(|| changes))
    }

    /// HEAD's commit id as hex, `None` on an unborn branch; an unreadable
    /// HEAD is an error, never "no commit".
    pub fn head_hex(&self) -> Result<Option<String>, GitError> {
        Ok(self.repo.head()?.id().map(|o| o.to_hex()))
    }

    /// The index, read once per run.
    pub fn index(&self) -> Result<&crate::git::IndexSnapshot, GitError> {
        if let Some(index) = self.index.get() {
            return Ok(index);
        }
        let index = self.repo.read_index()?;
        Ok(self.index.get_or_init(|| index))
    }

    /// The work tree against the index: modified, deleted and untracked
    /// paths (ignored ones left out), from the run's one index reading.
    pub fn worktree_status(&self) -> Result<Vec<crate::git::StatusEntry>, GitError> {
        self.repo
            .worktree_status_excluding(self.index()?, false, &[])
    }

    /// gate's local state shared by the worktrees, `<common-dir>/gate`:
    /// writers of task files take their locks in `locks/` and keep their
    /// temporary files in `tmp/` there.
    pub fn state_dir(&self) -> std::path::PathBuf {
        self.repo.common_dir().join("gate")
    }

    pub fn policy(&self) -> Result<LoadedPolicy, Failure> {
        Ok(crate::policy::load(&self.root)?)
    }

    /// The plan (`None` when there is no `.gate/plan.yaml`), read once per
    /// run; an unreadable one is an error each time it is asked for.
    pub fn plan(&self) -> Result<Option<&LoadedPlan>, Failure> {
        if let Some(plan) = self.plan.get() {
            return Ok(plan.as_ref());
        }
        let loaded = crate::plan::load(&self.root)?;
        Ok(self.plan.get_or_init(|| loaded).as_ref())
    }

    /// What `read` gives for (`kind`, `key`) the first time it is asked
    /// this run, the same after (see `remembered`). Only for what a run
    /// does not change: HEAD's files, this clone's records read before
    /// anything is written.
    pub fn remembered<T: Clone + 'static>(
        &self,
        kind: &'static str,
        key: &str,
        read: impl FnOnce() -> Result<T, String>,
    ) -> Result<T, String> {
        let slot = (kind, key.to_string());
        if let Some(kept) = self.remembered.borrow().get(&slot)
            && let Some(value) = kept.downcast_ref::<T>()
        {
            return Ok(value.clone());
        }
        let value = read()?;
        self.remembered
            .borrow_mut()
            .insert(slot, Box::new(value.clone()));
        Ok(value)
    }

    /// The active task id of this worktree.
    pub fn active_id(&self) -> Result<Option<String>, Failure> {
        Ok(tasks::active::read(&self.repo.git_dir())?)
    }

    /// The task named by `id`, else the active one; `Ok(None)` when neither.
    pub fn task(&self, id: Option<&str>) -> Result<Option<Task>, Failure> {
        let id = match id {
            Some(id) => id.to_string(),
            None => match self.active_id()? {
                Some(id) => id,
                None => return Ok(None),
            },
        };
        Ok(Some(tasks::load(&self.root, &id)?))
    }

    /// Like [`task`](Self::task) but a task is required.
    pub fn require_task(&self, id: Option<&str>) -> Result<Task, Failure> {
        self.task(id)?.ok_or_else(|| {
            Failure::refused("no task named and no active task in this worktree")
                .hint("name one with an ID, `gate task switch ID`, or start one with `gate start`")
        })
    }
}

/// A state directory [`crate::fsutil::check_state_dir`] refused, as the
/// unknown it is: nothing was read or written through it.
fn state_refused(e: crate::fsutil::ReadError) -> Failure {
    match e {
        crate::fsutil::ReadError::Link { path } => Failure::unknown(format!(
            "{}: gate's state directory is a symbolic link; gate neither reads nor writes its state through a link, which could lead out of the repository: nothing was read or written",
            path.display()
        ))
        .hint(format!(
            "remove the link (`rm {}`; gate makes the directory again when it writes), or replace it with the directory it points to, then run gate again",
            path.display()
        )),
        e => Failure::unknown(format!("gate's state directory cannot be used: {e}")).hint(
            "make it a directory gate can read and write (or remove it: gate makes it again), then run gate again",
        ),
    }
}

pub fn policy_origin(p: &LoadedPolicy) -> PolicyOrigin {
    PolicyOrigin {
        file: match &p.source {
            crate::policy::PolicySource::Embedded => None,
            crate::policy::PolicySource::File(f) => Some(f.display().to_string()),
        },
        revision: p.revision.clone(),
    }
}

/// The task as reports show it, with its brief digest.
pub fn task_ref(task: &Task) -> TaskRef {
    let r = &task.record;
    TaskRef {
        id: FileText::from(&r.id),
        issue: r.issue.clone().map(FileText::from),
        intent: r.intent.clone().map(FileText::from),
        exemption: r
            .exemption
            .as_ref()
            .map(|e| FileText::from(format!("{} ({})", e.class, e.because))),
        brief: task.body.brief.as_ref().map(|b| digest(&b.text, task)),
    }
}

/// The first lines of a brief (three at most, each cut at 100 characters),
/// the number of addenda and the latest one's heading.
fn digest(brief: &str, task: &Task) -> BriefDigest {
    let lines: Vec<&str> = brief.lines().filter(|l| !l.trim().is_empty()).collect();
    let head = lines
        .iter()
        .take(3)
        .map(|l| {
            let l = l.trim_end();
            match l.char_indices().nth(100) {
                Some((i, _)) => FileText::from(format!("{}…", &l[..i])),
                None => FileText::from(l),
            }
        })
        .collect();
    let headings = task
        .body
        .addenda
        .as_ref()
        .map(|a| tasks::format::entry_headings(&a.text))
        .unwrap_or_default();
    BriefDigest {
        head,
        more: lines.len() > 3 || lines.iter().take(3).any(|l| l.chars().count() > 100),
        addenda: headings.len(),
        latest: headings.last().cloned().map(FileText::from),
    }
}

/// The work tree's key in receipts and running markers: `gate verify`
/// records it, `gate status` (and the binding's evidence) match it.
pub fn worktree_key(ctx: &Ctx) -> String {
    ctx.root().to_string_lossy().into_owned()
}

/// Today's date, or `--today`.
pub fn today(given: Option<&str>) -> Result<Date, Failure> {
    match given {
        Some(d) => Date::parse(d).map_err(|m| Failure::usage(format!("--today {d}: {m}"))),
        None => Ok(Timestamp::now().date()),
    }
}

/// How to commit a task file a verb just changed: a push sends the task as
/// it is committed (docs/tasks.md#committing-the-task-file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskCommit {
    /// The task file, repository-relative.
    pub path: String,
    /// A command that commits it from any directory of the work tree.
    pub command: String,
}

/// The commit that records `change` of task `id`'s file. The trailer is the
/// policy's (`Task` by default), so the commit is attributed to the task
/// even when no task is active any more.
pub fn commit_of(ctx: &Ctx, id: &str, change: &str) -> TaskCommit {
    // Advice only: an unreadable policy is the doors' to report.
    let key = ctx
        .policy()
        .ok()
        .and_then(|p| p.policy.provenance.trailer)
        .unwrap_or_else(|| "Task".to_string());
    let path = tasks::task_file(id).display().to_string();
    TaskCommit {
        command: format!(
            "git add -- ':/{path}' && git commit -m '{id}: {change}' -m '{key}: {id}'"
        ),
        path,
    }
}

/// Whether HEAD holds `task`'s file exactly as the work tree does. One
/// that cannot be read there counts as not committed: the advice to commit
/// it is then still right.
pub fn committed_as_is(ctx: &Ctx, task: &Task) -> bool {
    let path = crate::path::RepoPath::from(task.file.to_string_lossy().as_ref());
    let Ok(Some(head)) = ctx.head().map(|h| h.id()) else {
        return false;
    };
    match ctx.repo.entry_at(head, &path) {
        Ok(Some((blob, _))) => ctx
            .repo
            .read_blob(blob)
            .is_ok_and(|bytes| bytes == task.text.as_bytes()),
        _ => false,
    }
}

/// Whether gate governs this repository: `.gate/` in the work tree, or in
/// HEAD's tree (deleting it from the work tree does not silence the hooks).
/// What cannot be read counts as governed: the hook then runs and says why.
/// The git hooks and the agent hooks are silent where it is false
/// (docs/hooks.md, docs/agents.md).
pub fn governed(ctx: &Ctx) -> bool {
    if std::fs::symlink_metadata(ctx.root().join(".gate")).is_ok() {
        return true;
    }
    match ctx.head().map(|h| h.id()) {
        Ok(None) => false,
        Ok(Some(head)) => !matches!(
            ctx.repo
                .tree_id_at(head, &crate::path::RepoPath::new(".gate")),
            Ok(None)
        ),
        Err(_) => true,
    }
}
