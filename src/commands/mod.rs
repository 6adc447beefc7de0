//! One module per verb. Each loads its inputs, calls the core, and returns
//! an exit code or a [`Failure`] (`crate::error`); printing goes through [`out`] and errors are
//! printed in one place, [`run`].

pub mod binding;
pub mod brief;
pub mod check;
pub mod doctor;
pub mod handover;
pub mod hook;
pub mod init;
pub mod install;
pub mod plan;
pub mod recorded;
pub mod start;
pub mod status;
pub mod task;
pub mod trusted;
pub mod verify;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

pub use crate::error::Failure;

use crate::cli::{Cli, Command};
use crate::git::{GitError, Repo};
use crate::plan::LoadedPlan;
use crate::policy::LoadedPolicy;
use crate::report::text::shown_line;
use crate::report::{BriefDigest, PolicyOrigin, TaskRef};
use crate::task::{self as tasks, Task};

/// Set once stdout's reader has gone away.
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Write to stdout. A closed pipe (`gate check --range A..B | head`) stops
/// the output quietly but not the verb: it still exits with its own code, so
/// a refused range piped into `head` is still refused.
pub fn out(text: &str) {
    use std::sync::atomic::Ordering;
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        && e.kind() == io::ErrorKind::BrokenPipe
    {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
}

/// Write a diagnostic line to stderr.
pub fn err(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// Whether the command line asked for `--json`: then stdout holds exactly
/// one JSON document in every outcome, a `gate.error/1` when the verb could
/// not run (docs/json.md).
pub fn wants_json(command: &Command) -> bool {
    use crate::cli::{PlanCommand, TaskCommand};
    match command {
        Command::Check(a) => a.json,
        Command::Binding(a) => a.json,
        Command::Handover(a) => a.json,
        Command::Status(a) => a.json,
        Command::Doctor(a) => a.json,
        Command::Task(TaskCommand::List { json }) => *json,
        Command::Task(TaskCommand::Validate(a)) => a.json,
        Command::Task(TaskCommand::Amend(a)) => a.json,
        Command::Task(TaskCommand::Ask(a)) => a.json,
        Command::Task(TaskCommand::Note(a)) => a.json,
        Command::Task(TaskCommand::Finish { json, .. }) => *json,
        Command::Task(TaskCommand::Abandon { json, .. }) => *json,
        Command::Task(TaskCommand::Scope(crate::cli::ScopeCommand::Add(a))) => a.json,
        Command::Plan(PlanCommand::Validate { json }) => *json,
        Command::Plan(PlanCommand::Critique(a)) => a.json,
        _ => false,
    }
}

/// A command line clap refused (or `--help`, `--version`): clap prints it
/// as usual; a refusal of one that asked for `--json` (before any `--`) is
/// also a `gate.error/1` on stdout, so `--json` keeps its promise even when
/// the rest of the line is wrong (docs/json.md). Returns the exit code.
pub fn command_line_error(e: &clap::Error, args: &[std::ffi::OsString]) -> i32 {
    use clap::error::ErrorKind;
    let informational = matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion);
    let json = args
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--json");
    if json && !informational {
        let message = match e.kind() {
            // clap prints the help here, not a sentence.
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                "the command line names no verb to run".to_string()
            }
            _ => e
                .render()
                .to_string()
                .lines()
                .next()
                .unwrap_or_default()
                .trim_start_matches("error: ")
                .to_string(),
        };
        let failure = Failure::usage(message).hint("`gate help` lists the verbs and their flags");
        out(&crate::report::json::to_string(
            &crate::report::json::error(&failure),
        ));
    }
    let _ = e.print();
    e.exit_code()
}

/// Run a parsed command line; returns the exit code.
pub fn run(cli: Cli) -> i32 {
    let dir = cli.dir.clone();
    let json = wants_json(&cli.command);
    let result = match cli.command {
        Command::Init(args) => init::run(dir.as_deref(), &args),
        Command::Install(args) => install::install(dir.as_deref(), &args),
        Command::Uninstall => install::uninstall(dir.as_deref()),
        Command::Check(args) => check::run(dir.as_deref(), &args),
        Command::Hook(hook) => hook::run(dir.as_deref(), &hook),
        Command::Start(args) => start::run(dir.as_deref(), &args),
        Command::Task(cmd) => task::run(dir.as_deref(), &cmd),
        Command::Plan(cmd) => plan::run(dir.as_deref(), &cmd),
        Command::Binding(args) => binding::run(dir.as_deref(), &args),
        Command::Handover(args) => handover::run(dir.as_deref(), &args),
        Command::Verify(args) => verify::run(dir.as_deref(), &args),
        Command::Status(args) => status::run(dir.as_deref(), &args),
        Command::Doctor(args) => doctor::run(dir.as_deref(), &args),
    };
    match result {
        Ok(code) => code,
        Err(f) => {
            if json {
                out(&crate::report::json::to_string(
                    &crate::report::json::error(&f),
                ));
            }
            // Messages quote what files hold: shown, never obeyed.
            let mut text = format!("gate: error: {}\n", shown_line(&f.message));
            if let Some(h) = &f.hint {
                text.push_str(&format!("gate: hint: {}\n", shown_line(h)));
            }
            err(&text);
            f.code
        }
    }
}

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
}

impl Ctx {
    /// Open the repository containing `dir` (default: the current directory).
    pub fn open(dir: Option<&Path>) -> Result<Ctx, Failure> {
        let start = match dir {
            Some(d) => d.to_path_buf(),
            None => std::env::current_dir()
                .map_err(|e| Failure::unknown(format!("cannot read the current directory: {e}")))?,
        };
        let repo = Repo::discover(&start)?;
        let root = repo
            .workdir()
            .map(Path::to_path_buf)
            .ok_or_else(|| GitError::NoWorkTree {
                path: repo.git_dir(),
            })?;
        Ok(Ctx {
            repo,
            root,
            start,
            staged: std::cell::OnceCell::new(),
            plan: std::cell::OnceCell::new(),
            index: std::cell::OnceCell::new(),
        })
    }

    /// The work tree root.
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

    /// The directory gate runs in, from the work tree's root (`""` at the root).
    fn cwd_prefix(&self) -> Result<String, String> {
        let real = |p: &Path| {
            std::fs::canonicalize(p).map_err(|e| format!("cannot resolve {}: {e}", p.display()))
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
        id: r.id.clone(),
        issue: r.issue.clone(),
        intent: r.intent.clone(),
        exemption: r
            .exemption
            .as_ref()
            .map(|e| format!("{} ({})", e.class, e.because)),
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
                Some((i, _)) => format!("{}…", &l[..i]),
                None => l.to_string(),
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
        latest: headings.last().cloned(),
    }
}
