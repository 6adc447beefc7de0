//! Moving one ref to and from a remote: the one place gate runs the git
//! CLI, and only to carry bytes (docs/decisions/0019-notes-travel-through-git.md,
//! docs/architecture.md).
//!
//! gix 0.90 cannot push (its `remote::Connection` lists refs and fetches;
//! `Direction::Push` only names a remote's push URL), and fetching with it
//! would need its network features — a transport stack and an HTTP client —
//! for one ref, with credentials handled beside git's. So the bytes travel
//! through `git ls-remote`, `git fetch` and `git push --no-verify`, with the
//! user's remotes, URL rewrites, credential helpers and SSH configuration;
//! what arrives is read, merged and written with gix, and no hook runs.

use std::process::{Command, Output, Stdio};

use super::{GitError, Oid, Repo};

/// The variables by which git finds a repository: set by git for a hook
/// (`GIT_DIR` in a linked worktree, `GIT_INDEX_FILE` during a commit) or
/// by the user's shell. The repository is named with `--git-dir` instead.
/// (gix keeps its own list private, in gix-transport.)
pub const REDIRECTING_VARS: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_PREFIX",
    "GIT_NAMESPACE",
    "GIT_IMPLICIT_WORK_TREE",
];

/// What a push of one ref came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PushResult {
    /// The remote's ref now holds ours.
    Updated,
    /// The remote held it already.
    UpToDate,
    /// Not a fast-forward of what the remote holds (another clone pushed
    /// in between): fetch, merge and push again.
    NotFastForward(String),
    /// The remote refused the ref (a `pre-receive` rule, a host that takes
    /// only branches and tags): what it said.
    Refused(String),
}

impl Repo {
    /// `git` on this repository, nothing inherited that could redirect it.
    fn git_cli(&self) -> Command {
        let mut cmd = Command::new("git");
        for var in REDIRECTING_VARS {
            cmd.env_remove(var);
        }
        cmd.arg("--git-dir").arg(self.git_dir());
        cmd.stdin(Stdio::null());
        cmd
    }

    /// The remote receipts travel to and from when none is named: the
    /// current branch's (`branch.<name>.remote`), else `origin`.
    pub fn default_remote(&self) -> String {
        let branch = match self.head() {
            Ok(super::Head::Branch { branch, .. } | super::Head::Unborn { branch }) => branch,
            _ => return "origin".to_string(),
        };
        let short = branch.strip_prefix("refs/heads/").unwrap_or(&branch);
        self.config_string(&format!("branch.{short}.remote"))
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| "origin".to_string())
    }

    /// What `remote`'s ref `name` points at, `None` when it has no such ref.
    pub fn remote_ref(&self, remote: &str, name: &str) -> Result<Option<Oid>, GitError> {
        let what = format!("listing {name} on {remote} (git ls-remote)");
        let out = run(
            self.git_cli().args(["ls-remote", "--", remote, name]),
            &what,
        )?;
        if !out.status.success() {
            return Err(failed(&what, &out));
        }
        // ls-remote matches patterns by their tail: keep the exact name.
        let listed = String::from_utf8_lossy(&out.stdout);
        for line in listed.lines() {
            if let Some((id, listed_name)) = line.split_once('\t')
                && listed_name == name
            {
                return Oid::from_hex(id)
                    .map(Some)
                    .ok_or_else(|| GitError::other(&what, format!("unreadable line `{line}`")));
            }
        }
        Ok(None)
    }

    /// The branch `remote`'s `HEAD` names (`refs/heads/main`), as the remote
    /// says it now (`git ls-remote --symref REMOTE HEAD`); `None` when it
    /// names none (an empty remote, a detached HEAD).
    pub fn remote_head_branch(&self, remote: &str) -> Result<Option<String>, GitError> {
        let what = format!("asking {remote} for its HEAD (git ls-remote --symref)");
        let out = run(
            self.git_cli()
                .args(["ls-remote", "--symref", "--", remote, "HEAD"]),
            &what,
        )?;
        if !out.status.success() {
            return Err(failed(&what, &out));
        }
        let listed = String::from_utf8_lossy(&out.stdout);
        Ok(listed.lines().find_map(|line| {
            let (target, name) = line.strip_prefix("ref: ")?.split_once('\t')?;
            (name == "HEAD" && target.starts_with("refs/heads/")).then(|| target.to_string())
        }))
    }

    /// The configured remote whose URL (`remote.NAME.url`) is `url`: git
    /// hands pre-push the URL for the name when a push names a URL.
    pub fn remote_named_by_url(&self, url: &str) -> Option<String> {
        let names: Vec<String> = self
            .repo
            .remote_names()
            .iter()
            .map(|n| n.to_string())
            .collect();
        names
            .into_iter()
            .find(|name| self.config_string(&format!("remote.{name}.url")).as_deref() == Some(url))
    }

    /// Fetch `remote`'s ref `name` into the local ref `into` (forced: it
    /// is a tracking ref, never a user's).
    pub fn fetch_ref(&self, remote: &str, name: &str, into: &str) -> Result<(), GitError> {
        let what = format!("fetching {name} from {remote} (git fetch)");
        let out = run(
            self.git_cli()
                .args([
                    "fetch",
                    "--quiet",
                    "--no-tags",
                    "--no-write-fetch-head",
                    "--",
                    remote,
                ])
                .arg(format!("+{name}:{into}")),
            &what,
        )?;
        if !out.status.success() {
            return Err(failed(&what, &out));
        }
        Ok(())
    }

    /// Push the local ref `name` to the same name on `remote`, as a
    /// fast-forward only and without running hooks (`--no-verify`: gate's
    /// own pre-push never runs on it).
    pub fn push_ref(&self, remote: &str, name: &str) -> Result<PushResult, GitError> {
        let what = format!("pushing {name} to {remote} (git push)");
        let out = run(
            self.git_cli()
                .args(["push", "--porcelain", "--no-verify", "--", remote])
                .arg(format!("{name}:{name}")),
            &what,
        )?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        // `--porcelain`: `<flag>\t<from>:<to>\t<summary> (<reason>)`.
        let line = stdout.lines().find(|l| {
            l.split('\t')
                .nth(1)
                .is_some_and(|r| r.ends_with(&format!(":{name}")))
        });
        let Some(line) = line else {
            return Err(failed(&what, &out));
        };
        let mut fields = line.split('\t');
        let flag = fields.next().unwrap_or_default();
        let summary = fields.nth(1).unwrap_or_default().to_string();
        Ok(match flag {
            "=" => PushResult::UpToDate,
            "!" if raced(&summary) => PushResult::NotFastForward(summary),
            "!" => PushResult::Refused(said(&summary, &out)),
            _ if out.status.success() => PushResult::Updated,
            _ => return Err(failed(&what, &out)),
        })
    }
}

/// Whether a rejected push lost a race rather than met a rule: not a
/// fast-forward (`[rejected] (fetch first)`, `(non-fast-forward)`), or the
/// remote's ref moved while it was taking the push (its lock or
/// compare-and-swap failed).
fn raced(summary: &str) -> bool {
    summary.starts_with("[rejected]")
        || [
            "cannot lock ref",
            "failed to update ref",
            "incorrect old value",
        ]
        .iter()
        .any(|s| summary.contains(s))
}

/// Run `cmd`, or say that git could not be started.
fn run(cmd: &mut Command, what: &str) -> Result<Output, GitError> {
    cmd.output().map_err(|e| {
        GitError::other(
            what,
            format!("could not run `git` ({e}); gate needs git on PATH to move receipts"),
        )
    })
}

/// What git said when it failed.
fn failed(what: &str, out: &Output) -> GitError {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("hint:"))
        .collect();
    GitError::other(
        what,
        match lines.is_empty() {
            true => format!("git exited with {}", out.status),
            false => lines.join(" / "),
        },
    )
}

/// A refusal in the remote's words: the porcelain summary and any
/// `remote:` lines (a `pre-receive` hook's message).
fn said(summary: &str, out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let remote: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("remote:"))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    match remote.is_empty() {
        true => summary.to_string(),
        false => format!("{summary}: {}", remote.join(" / ")),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_remote_s_words_follow_the_summary() {
        let out = std::process::Output {
            status: std::os::unix::process::ExitStatusExt::from_raw(256),
            stdout: Vec::new(),
            stderr: b"remote: notes refused        \nerror: failed to push some refs\n".to_vec(),
        };
        assert_eq!(
            super::said("[remote rejected] (pre-receive hook declined)", &out),
            "[remote rejected] (pre-receive hook declined): notes refused"
        );
    }
}
