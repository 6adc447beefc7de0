//! `gate hook claude-code pre-tool-use|stop`: Claude Code's hooks
//! (docs/agents.md). The contract (what is on stdin, what Claude Code
//! honours) is `crate::agent_hooks`; this reads stdin, asks the checks, and
//! answers.
//!
//! - pre-tool-use: a file-writing tool's path is judged in the repository
//!   that owns where it lands (`crate::locate`, the resolution `gate
//!   may-touch` uses), not the session's: outside that repository's active
//!   task's scope, or inside a git directory, it is denied before the
//!   edit; in no repository, or one gate does not govern, it passes. A Bash
//!   call in which the guard finds a way past gate's hooks (skipping them,
//!   overriding or changing core.hooksPath, uninstalling them, removing or
//!   changing a hook's file) is denied when it may run in a governed
//!   repository: the session's directory or any its `cd`s and `-C`s name.
//!   Other tools pass without opening the repository.
//! - stop: while an acceptance check the task depends on is not passed on
//!   the current sources, the stop is blocked with the `gate verify`
//!   commands to run — once: when Claude is already continuing because of
//!   this hook (`stop_hook_active`), it may stop, and the user is told what
//!   is left.
//!
//! Fails closed: input gate cannot read, or a repository gate governs whose
//! state cannot be read, is exit 2 with the reason on stderr, which Claude
//! Code honours as a refusal (any other non-zero exit would let the call
//! through). A directory gate does not govern (no `.gate/`, as for the git
//! hooks) or outside any repository is not gate's business: silence.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::agent_hooks::{self, Finding, Host, PreToolUse, StopVerdict, ToolCall, Verdict};
use crate::cli::{Agent, AgentEvent};
use crate::ctx::Ctx;
use crate::error::Failure;
use crate::path::RepoPath;
use crate::policy::Mode;
use crate::receipts::State;
use crate::report::human;
use crate::ui::Answer;
use crate::verdict::{ExitCode, Outcome};

/// Most bytes read from stdin: a hook input is a small JSON document (a
/// Write's content included); more is refused, never read without end.
const MAX_INPUT: u64 = 64 << 20;

pub fn run(dir: Option<&Path>, agent: Agent, event: &AgentEvent) -> Result<Answer, Failure> {
    let host = Host::from(agent);
    let answer = read_stdin().and_then(|input| match event {
        AgentEvent::PreToolUse => {
            let call = host.parse_call(&input).map_err(Failure::usage)?;
            judge_call(dir, &call).map(|v| host.answer_call(&v))
        }
        AgentEvent::Stop => {
            let stop = host.parse_stop(&input).map_err(Failure::usage)?;
            judge_stop(dir, stop.cwd.as_deref(), stop.already_blocked).map(|v| host.answer_stop(&v))
        }
    });
    match answer {
        Ok(Some(document)) => Ok(Answer::text(ExitCode::Pass, format!("{document}\n"))),
        Ok(None) => Ok(Answer::quiet(ExitCode::Pass)),
        // Exit 2, the reason on stderr, is what every host gate has hooks
        // for honours as "refuse" (docs/agents.md).
        Err(f) => Err(Failure {
            code: ExitCode::Usage,
            hint: Some(f.hint.unwrap_or_else(|| {
                format!(
                    "gate refuses what it cannot read; check the hook entries `gate install --agent {}` wrote in {}",
                    agent.name(),
                    host.config()
                )
            })),
            ..f
        }),
    }
}

fn read_stdin() -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(MAX_INPUT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::usage(format!("cannot read the hook input on stdin: {e}")))?;
    if bytes.len() as u64 > MAX_INPUT {
        return Err(Failure::usage(format!(
            "the hook input on stdin is over {MAX_INPUT} bytes"
        )));
    }
    Ok(bytes)
}

/// The repository the call is about: `-C`, else the input's `cwd`, else
/// this process's directory. `None` when that is not gate's business: no
/// repository, or one without gate's files.
fn governed_ctx(dir: Option<&Path>, cwd: Option<&str>) -> Result<Option<Ctx>, Failure> {
    let start = dir
        .map(Path::to_path_buf)
        .or_else(|| cwd.map(PathBuf::from));
    match Ctx::open(start.as_deref()) {
        Ok(ctx) if crate::ctx::governed(&ctx) => Ok(Some(ctx)),
        Ok(_) => Ok(None),
        Err(f) => {
            let here = match start {
                Some(s) => s,
                None => match std::env::current_dir() {
                    Ok(d) => d,
                    Err(_) => return Err(f),
                },
            };
            match crate::git::Repo::discover(&here) {
                Err(crate::git::GitError::NotARepository { .. }) => Ok(None),
                _ => Err(f),
            }
        }
    }
}

fn deny(reason: String) -> Verdict {
    Verdict::Deny(reason)
}

/// What gate answers a tool call `call` (the host's, read into the shared
/// shape), whatever the host: the core every adapter asks.
pub fn judge_call(dir: Option<&Path>, call: &PreToolUse) -> Result<Verdict, Failure> {
    match &call.call {
        ToolCall::Other { .. } => Ok(Verdict::Pass),
        ToolCall::Bash { command } => {
            let base = match (dir, &call.cwd) {
                (Some(d), _) => d.to_path_buf(),
                (None, Some(cwd)) => PathBuf::from(cwd),
                (None, None) => std::env::current_dir().map_err(|e| {
                    Failure::usage(format!("cannot read the current directory: {e}"))
                })?,
            };
            bash(&base, command)
        }
        ToolCall::Write { tool, path } => {
            let base = match &call.cwd {
                Some(cwd) => PathBuf::from(cwd),
                None => std::env::current_dir().map_err(|e| {
                    Failure::usage(format!("cannot read the current directory: {e}"))
                })?,
            };
            let session = governed_ctx(dir, call.cwd.as_deref())?;
            write(session.as_ref(), tool, path, &base)
        }
        ToolCall::Writes { tool, paths } => {
            let base = match &call.cwd {
                Some(cwd) => PathBuf::from(cwd),
                None => std::env::current_dir().map_err(|e| {
                    Failure::usage(format!("cannot read the current directory: {e}"))
                })?,
            };
            let session = governed_ctx(dir, call.cwd.as_deref())?;
            // The first denial answers for the whole call; reports are
            // said together.
            let mut reports = Vec::new();
            for path in paths {
                match write(session.as_ref(), tool, path, &base)? {
                    Verdict::Pass => {}
                    Verdict::Deny(reason) => return Ok(Verdict::Deny(reason)),
                    Verdict::Report(message) => reports.push(message),
                }
            }
            Ok(if reports.is_empty() {
                Verdict::Pass
            } else {
                Verdict::Report(reports.join("\n"))
            })
        }
    }
}

/// Most directories a Bash call is judged in: the session's and those its
/// `cd`s and `-C`s may lead to.
const MAX_BASES: usize = 64;

/// A Bash call run from `base`: what the guard finds in it
/// ([`agent_hooks::guard`]) is denied when it may run in a repository gate
/// governs — the session's directory, or any directory the command `cd`s
/// to or names with `git -C` (each from the session's and from those
/// before it), or one the guard cannot read — and so is a path it removes
/// or changes that may reach such a repository's hooks.
fn bash(base: &Path, command: &str) -> Result<Verdict, Failure> {
    let guard = agent_hooks::guard(command);
    if guard.findings.is_empty() && guard.changes.is_empty() {
        return Ok(Verdict::Pass);
    }
    let mut bases = vec![base.to_path_buf()];
    let mut unreadable_dir = false;
    for dir in &guard.dirs {
        match dir {
            Some(d) => {
                let more: Vec<PathBuf> = bases.iter().map(|b| b.join(d)).collect();
                for b in more {
                    if !bases.contains(&b) && bases.len() < MAX_BASES {
                        bases.push(b);
                    }
                }
            }
            None => unreadable_dir = true,
        }
    }
    let mut governed = Vec::new();
    for b in &bases {
        if let Some(ctx) = governed_at(b)? {
            governed.push(ctx);
        }
    }
    if let Some(finding) = guard.findings.first()
        && (!governed.is_empty() || unreadable_dir)
    {
        return Ok(deny(match finding {
            Finding::Bypass { subcommand, how } => human::bypass_denied(subcommand, how),
            Finding::Unreadable { subcommand, via } => human::unreadable_denied(subcommand, via),
            Finding::HooksPath { how } => human::hooks_path_denied(how),
            Finding::Uninstall { how } => human::hooks_removal_denied(how),
        }));
    }
    for change in &guard.changes {
        for b in &bases {
            if reaches_hooks(&b.join(&change.path), &governed)? {
                return Ok(deny(human::hooks_removal_denied(&change.how)));
            }
        }
    }
    Ok(Verdict::Pass)
}

/// The repository gate governs that holds `path` (which need not exist).
fn governed_at(path: &Path) -> Result<Option<Ctx>, Failure> {
    let Ok(landed) = crate::locate::resolve(path) else {
        return Ok(None);
    };
    match crate::locate::work_tree_of(&landed) {
        Some(owner) => governed_ctx(Some(&owner), None),
        None => Ok(None),
    }
}

/// Whether removing or changing `path` (as a command names it, glob
/// characters included) may reach the hooks of a repository gate governs:
/// the one that owns the path, or one of `governed`.
fn reaches_hooks(path: &Path, governed: &[Ctx]) -> Result<bool, Failure> {
    // The part before the first glob component is resolved; the rest is
    // matched as the shell would expand it.
    let components: Vec<_> = path.components().collect();
    let glob = components
        .iter()
        .position(|c| c.as_os_str().to_string_lossy().contains(['*', '?', '[']))
        .unwrap_or(components.len());
    let literal: PathBuf = components[..glob].iter().collect();
    let landed = crate::locate::resolve(&literal)
        .map_err(|m| Failure::usage(format!("{}: {m}", path.display())))?;
    let mut full = landed.clone();
    full.extend(&components[glob..]);
    let owner = governed_at(&landed)?;
    for ctx in governed.iter().chain(owner.as_ref()) {
        let mut hooks = vec![ctx.repo.common_dir().join("hooks")];
        hooks.extend(ctx.repo.hooks_dir().ok());
        if hooks
            .iter()
            .any(|h| agent_hooks::guard::reaches(&full, &real(h)))
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A write of `given` (from `base`), judged in the repository that owns
/// where it lands — not the session's: a path in another repository gate
/// governs is judged by that repository's task and policy, a path in a
/// repository gate does not govern or in none is not gate's business
/// (docs/agents.md). Nothing is ever written in the session's git
/// directory or in the owning repository's.
fn write(session: Option<&Ctx>, tool: &str, given: &str, base: &Path) -> Result<Verdict, Failure> {
    let absolute = base.join(given);
    let landed = crate::locate::resolve(&absolute)
        .map_err(|m| Failure::usage(format!("{tool} {given}: {m}")))?;
    if session.is_some_and(|s| in_git_dir(s, &absolute, &landed)) {
        return Ok(deny(human::git_dir_denied(tool, given)));
    }
    let Some(owner) = crate::locate::work_tree_of(&landed) else {
        return external(session, tool, &landed);
    };
    let Some(ctx) = governed_ctx(Some(&owner), None)? else {
        return external(session, tool, &landed);
    };
    if in_git_dir(&ctx, &absolute, &landed) {
        return Ok(deny(human::git_dir_denied(tool, given)));
    }
    let rel = match ctx.path_in_tree(&landed.to_string_lossy()) {
        Ok(rel) => rel,
        // Outside this work tree (a `GIT_DIR` that names another
        // repository): nothing there can be committed to it.
        Err(_) if !landed.starts_with(real(ctx.root())) => {
            return external(session, tool, &landed);
        }
        Err(m) => return Err(Failure::usage(format!("{tool} {given}: {m}"))),
    };
    let (policy, _) = crate::checks::trusted::local(&ctx, false)?;
    if policy.policy.scope == Mode::Off {
        return Ok(Verdict::Pass);
    }
    let task = crate::checks::task_state(&ctx, None);
    let (touches, _) =
        crate::checks::scope::may_touch(&ctx, &task, &[RepoPath::from(rel.as_str())]);
    let Some(touch) = touches.first() else {
        return Err(Failure::unknown(format!(
            "{tool} {given}: the scope gave no answer"
        )));
    };
    Ok(match touch.verdict {
        Outcome::Pass => Verdict::Pass,
        Outcome::Refused | Outcome::Unknown => deny(human::scope_denied(
            tool,
            &rel,
            &touch.reason,
            touch.decide.as_deref(),
        )),
    })
}

/// A write from a governed session that lands outside its repository, in
/// no repository gate governs (docs/agents.md, "Edits outside the
/// repository"): the session's trusted policy decides, by
/// `agents.external_edits` — `deny` before the edit; `report` lets it
/// through, tells the user, and records it for `gate context`; `allow`
/// says nothing. A session gate does not govern is not its business.
fn external(session: Option<&Ctx>, tool: &str, landed: &Path) -> Result<Verdict, Failure> {
    use crate::policy::ExternalEdits;
    let Some(ctx) = session else {
        return Ok(Verdict::Pass);
    };
    let (policy, _) = crate::checks::trusted::local(ctx, false)?;
    let shown = landed.to_string_lossy();
    match policy.policy.agents.external_edits {
        ExternalEdits::Allow => Ok(Verdict::Pass),
        ExternalEdits::Deny => Ok(deny(human::external_denied(tool, &shown))),
        ExternalEdits::Report => {
            let task = match ctx.task(None) {
                Ok(task) => task.map(|t| t.record.id),
                Err(f) => return Err(f),
            };
            crate::external_edits::record(
                &ctx.repo.common_dir(),
                task.as_deref(),
                tool,
                &shown,
                &crate::clock::Timestamp::now().to_string(),
            )
            .map_err(|e| {
                Failure::unknown(format!(
                    "{tool} {shown}: the edit outside the repository could not be recorded: {e}"
                ))
            })?;
            Ok(Verdict::Report(human::external_reported(tool, &shown)))
        }
    }
}

/// Whether a write to `absolute` (which lands at `landed`) is inside the
/// repository's git directory (or is the `.git` file of a linked
/// worktree), as written or where it lands.
fn in_git_dir(ctx: &Ctx, absolute: &Path, landed: &Path) -> bool {
    let lexical = crate::locate::lexical(absolute);
    let mut dirs = vec![ctx.root().join(".git")];
    dirs.extend([ctx.repo.git_dir(), ctx.repo.common_dir()]);
    dirs.iter().any(|dir| {
        let dir = crate::locate::lexical(dir);
        let real = real(&dir);
        [&lexical, landed]
            .iter()
            .any(|p| p.starts_with(&dir) || p.starts_with(&real))
    })
}

/// `path` with its links resolved, or as it is when it cannot be.
fn real(path: &Path) -> PathBuf {
    crate::locate::resolve(path).unwrap_or_else(|_| path.to_path_buf())
}

/// What gate answers an agent about to stop in `cwd` (`already_blocked`:
/// it is continuing because a stop was blocked before), whatever the
/// host: the core every adapter asks.
pub fn judge_stop(
    dir: Option<&Path>,
    cwd: Option<&str>,
    already_blocked: bool,
) -> Result<StopVerdict, Failure> {
    let left = match governed_ctx(dir, cwd) {
        Ok(None) => return Ok(StopVerdict::Pass),
        Ok(Some(ctx)) => unfinished(&ctx),
        Err(f) => Err(f),
    };
    let reason = match left {
        Ok(Left {
            work: None,
            conflicts: None,
        }) => return Ok(StopVerdict::Pass),
        // Only the operator can close a conflict: the agent stops, and the
        // operator reads why.
        Ok(Left {
            work: None,
            conflicts: Some(conflicts),
        }) => return Ok(StopVerdict::Warn(conflicts)),
        Ok(Left {
            work: Some(work),
            conflicts,
        }) => match conflicts {
            Some(conflicts) => format!("{work}\n{conflicts}"),
            None => work,
        },
        Err(f) => human::work_left_unknown(&f.message, f.hint.as_deref()),
    };
    if already_blocked {
        // Blocked once already: blocking again could loop without end.
        return Ok(StopVerdict::Warn(human::stopping_with_work_left(&reason)));
    }
    Ok(StopVerdict::Block(reason))
}

/// What is left before the active task stands.
struct Left {
    /// The checks it depends on that have not passed on the current
    /// sources; `None` when every one has, or there is nothing to judge
    /// (no task, receipts `off`, no plan).
    work: Option<String>,
    /// Its decisions that conflict with the operator's words and that no
    /// answer of theirs has closed (brief `off`: none are judged).
    conflicts: Option<String>,
}

fn unfinished(ctx: &Ctx) -> Result<Left, Failure> {
    let (policy, _) = crate::checks::trusted::local(ctx, false)?;
    let mut left = Left {
        work: None,
        conflicts: None,
    };
    let Some(task) = ctx.task(None)? else {
        return Ok(left);
    };
    if policy.policy.brief.mode != Mode::Off {
        let open: Vec<String> = crate::checks::brief::conflicts_open(&task)
            .into_iter()
            .map(|f| format!("- {} ({})", f.message, f.decide))
            .collect();
        if !open.is_empty() {
            left.conflicts = Some(human::conflicts_open(&task.record.id, &open));
        }
    }
    left.work = work_left(ctx, &policy.policy, &task)?;
    Ok(left)
}

/// The checks `task` depends on that have not passed on the current
/// sources, as the Stop hook lists them.
fn work_left(
    ctx: &Ctx,
    policy: &crate::policy::Policy,
    task: &crate::task::Task,
) -> Result<Option<String>, Failure> {
    if policy.receipts.mode == Mode::Off {
        return Ok(None);
    }
    let Some(plan) = ctx.plan()?.map(|p| p.plan.clone()) else {
        return Ok(None);
    };
    let receipts_status = crate::checks::receipts::status(ctx, policy, &plan, Some(task))?;
    let left: Vec<(&str, &State)> = receipts_status
        .acceptance_checks
        .iter()
        .filter(|a| !matches!(a.state, State::Passed { .. }))
        .map(|a| (a.id.as_str(), &a.state))
        .collect();
    if left.is_empty() {
        return Ok(None);
    }
    Ok(Some(human::work_left(&task.record.id, &left)))
}
