//! `gate install`, `gate uninstall` and the installed hooks, driven by the
//! real git CLI: git finds the hooks, runs them with its own arguments,
//! stdin and environment (`GIT_INDEX_FILE` for `commit -a`), and the hook
//! scripts run the gate binary by the absolute path recorded at install.

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::fixture::{self, git_path, plan_repo, show};
use crate::golden::{assert_golden, transcript};
use crate::support::{self, TestRepo};

const HOOKS: [&str; 4] = [
    "pre-commit",
    "prepare-commit-msg",
    "pre-push",
    "post-checkout",
];
const MARKER: &str = "# gate-managed-hook";

/// The gate binary under test, as install records it.
fn gate_bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin!("gate")
        .canonicalize()
        .expect("the gate binary exists")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn install(repo: &TestRepo) -> Output {
    let out = repo.gate().arg("install").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    out
}

fn uninstall(repo: &TestRepo) -> Output {
    let out = repo.gate().arg("uninstall").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    out
}

/// The default hooks directory of a non-bare repository.
fn hooks_dir(repo: &TestRepo) -> PathBuf {
    repo.path().join(".git/hooks")
}

/// PATH without any directory holding a `gate`, so only the recorded path
/// can find it.
fn path_without_gate() -> OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| !d.join("gate").exists())
        .collect();
    std::env::join_paths(dirs).expect("PATH entries join")
}

/// Run git in `dir` with the isolated environment, PATH without gate, and
/// `envs`; it may fail.
fn git_at(dir: &Path, args: &[&str], envs: &[(&str, &OsStr)]) -> Output {
    let mut cmd = support::git_command(dir);
    cmd.args(args).env("PATH", path_without_gate());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.output().expect("run git")
}

/// Run git in the repository (PATH without gate); it may fail.
fn git(repo: &TestRepo, args: &[&str]) -> Output {
    git_at(repo.path(), args, &[])
}

/// Like [`git`] but it must succeed.
fn git_ok(repo: &TestRepo, args: &[&str]) -> Output {
    let out = git(repo, args);
    assert!(out.status.success(), "git {args:?}: {}", show(&out));
    out
}

fn write_exec(path: &Path, script: &str, mode: u32) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, script).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A foreign hook that appends `<name> <args…>` to `log`, copies its stdin
/// to `log.<name>.stdin`, and exits `status`.
fn foreign_hook(name: &str, log: &Path, status: i32) -> String {
    let log = log.display();
    format!(
        "#!/bin/sh\n# someone else's {name} hook\nprintf '%s' '{name}' >>'{log}'\nfor a in \"$@\"; do printf ' %s' \"$a\" >>'{log}'; done\necho >>'{log}'\ncat >'{log}.{name}.stdin'\necho 'foreign {name} says hello' >&2\nexit {status}\n"
    )
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).unwrap().mode() & 0o7777
}

/// Every entry of a directory with its kind, bytes (or link target) and mode.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>, u32)> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            let bytes = if meta.file_type().is_symlink() {
                let t = std::fs::read_link(e.path()).unwrap();
                [b"-> ".as_slice(), t.as_os_str().as_encoded_bytes()].concat()
            } else {
                std::fs::read(e.path()).unwrap()
            };
            (
                e.file_name().to_string_lossy().into_owned(),
                bytes,
                meta.mode(),
            )
        })
        .collect();
    entries.sort();
    entries
}

fn active(repo: &TestRepo) -> Option<String> {
    std::fs::read_to_string(git_path(repo, "gate/active"))
        .ok()
        .map(|s| s.trim().to_string())
}

// 1. install, reinstall, uninstall

#[test]
fn install_writes_four_executable_lf_hooks_recording_the_binary() {
    let repo = TestRepo::new();
    let out = install(&repo);
    assert_golden("hooks/install.txt", &transcript(Some(&repo), &out));
    let bin = gate_bin();
    let recorded = format!("recorded='{}'\n", bin.display());
    let mut before = Vec::new();
    for name in HOOKS {
        let path = hooks_dir(&repo).join(name);
        assert_eq!(mode(&path), 0o755, "{name}");
        let bytes = std::fs::read(&path).unwrap();
        let script = text(&bytes);
        assert!(script.starts_with("#!/bin/sh\n"), "{name}:\n{script}");
        assert!(!bytes.contains(&b'\r'), "{name} has CR");
        assert!(script.lines().nth(1).unwrap().starts_with(MARKER), "{name}");
        assert!(script.contains(&recorded), "{name}:\n{script}");
        assert!(!script.contains("@GATE_BIN@"), "{name}");
        let meta = std::fs::metadata(&path).unwrap();
        before.push((bytes, meta.ino(), meta.mtime_nsec(), meta.mtime()));
    }

    // Twice: nothing changes, not even the files' identity.
    let out = install(&repo);
    let stdout = text(&out.stdout);
    assert_eq!(
        stdout.matches("already installed").count(),
        HOOKS.len(),
        "{}",
        show(&out)
    );
    for (name, (bytes, ino, nsec, sec)) in HOOKS.iter().zip(&before) {
        let path = hooks_dir(&repo).join(name);
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!(&std::fs::read(&path).unwrap(), bytes, "{name}");
        assert_eq!(
            (meta.ino(), meta.mtime_nsec(), meta.mtime()),
            (*ino, *nsec, *sec),
            "{name} was rewritten"
        );
        assert!(
            !hooks_dir(&repo)
                .join(format!("{name}.gate-chained"))
                .exists()
        );
    }

    let out = uninstall(&repo);
    assert_golden("hooks/uninstall.txt", &transcript(Some(&repo), &out));
    for name in HOOKS {
        let path = hooks_dir(&repo).join(name);
        assert!(std::fs::symlink_metadata(&path).is_err(), "{name} remains");
    }
    // The samples git wrote are not gate's business.
    assert!(hooks_dir(&repo).join("pre-commit.sample").exists());
    let out = uninstall(&repo);
    assert_eq!(
        text(&out.stdout).matches("not installed").count(),
        HOOKS.len(),
        "{}",
        show(&out)
    );
}

#[test]
fn install_updates_a_gate_hook_recording_another_binary() {
    let repo = TestRepo::new();
    let other = repo.scratch("other-gate");
    write_exec(&other, "#!/bin/sh\nexit 0\n", 0o755);
    let out = repo
        .gate()
        .args(["install", "--binary"])
        .arg(&other)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let script = read(&hooks_dir(&repo).join("pre-commit"));
    assert!(script.contains(&other.display().to_string()), "{script}");
    let out = install(&repo);
    assert_eq!(
        text(&out.stdout).matches("updated").count(),
        HOOKS.len(),
        "{}",
        show(&out)
    );
    let script = read(&hooks_dir(&repo).join("pre-commit"));
    assert!(
        script.contains(&gate_bin().display().to_string()),
        "{script}"
    );
    assert!(!hooks_dir(&repo).join("pre-commit.gate-chained").exists());
}

// 2. where the hooks go

/// A repository whose commits need an active task: a commit refused for
/// `no_active_task` proves gate's pre-commit ran.
fn assert_pre_commit_runs(dir: &Path) {
    std::fs::write(dir.join("README.md"), "# changed\n").unwrap();
    let head = git_at(dir, &["rev-parse", "HEAD"], &[]).stdout;
    let out = git_at(dir, &["commit", "-q", "-am", "change"], &[]);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(
        text(&out.stderr).contains("no_active_task"),
        "{}",
        show(&out)
    );
    assert_eq!(git_at(dir, &["rev-parse", "HEAD"], &[]).stdout, head);
}

#[test]
fn relative_core_hooks_path_is_resolved_against_the_work_tree() {
    let repo = plan_repo("required");
    repo.git(&["config", "core.hooksPath", ".githooks"]);
    // From a subdirectory: still the work tree root, as git resolves it.
    std::fs::create_dir_all(repo.path().join("src/export")).unwrap();
    let out = repo
        .gate()
        .current_dir(repo.path().join("src/export"))
        .arg("install")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    for name in HOOKS {
        assert_eq!(mode(&repo.path().join(".githooks").join(name)), 0o755);
        assert!(!hooks_dir(&repo).join(name).exists(), "{name}");
    }
    assert_pre_commit_runs(repo.path());
    uninstall(&repo);
    assert!(!repo.path().join(".githooks/pre-commit").exists());
}

#[test]
fn absolute_core_hooks_path_is_used_as_is() {
    let repo = plan_repo("required");
    let dir = repo.scratch("shared-hooks");
    repo.git(&["config", "core.hooksPath", dir.to_str().unwrap()]);
    // Outside the repository: shared, so installed there only when asked.
    let out = repo.gate().args(["install", "--global"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    for name in HOOKS {
        assert_eq!(mode(&dir.join(name)), 0o755, "{name}");
        assert!(!hooks_dir(&repo).join(name).exists(), "{name}");
    }
    assert_pre_commit_runs(repo.path());
}

#[test]
fn linked_worktree_installs_into_the_common_hooks_and_runs_them() {
    let repo = plan_repo("required");
    let wt = repo.scratch("linked");
    repo.git(&["worktree", "add", "-q", "-b", "side", wt.to_str().unwrap()]);
    let out = repo
        .gate()
        .current_dir(&wt)
        .arg("install")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    for name in HOOKS {
        assert_eq!(mode(&hooks_dir(&repo).join(name)), 0o755, "{name}");
    }
    assert!(!repo.path().join(".git/worktrees/linked/hooks").exists());
    assert_pre_commit_runs(&wt);

    // A task started in the linked worktree governs its commits, read
    // through the index git hands the hook (`commit -a`: a temporary one).
    let out = repo
        .gate()
        .current_dir(&wt)
        .args(["start", "--issue", "42", "--brief", "-", "--id", "T-42"])
        .write_stdin("Export from the side branch.\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    std::fs::write(wt.join("README.md"), "# demo\n").unwrap();
    std::fs::write(wt.join("src/export/mod.rs"), "// export, side\n").unwrap();
    let out = git_at(&wt, &["commit", "-q", "-am", "in scope"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    std::fs::write(wt.join("src/lib.rs"), "// out of scope\n").unwrap();
    let out = git_at(&wt, &["commit", "-q", "-am", "out of scope"], &[]);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(text(&out.stderr).contains("src/lib.rs"), "{}", show(&out));
    // The main worktree has no active task: still refused there.
    assert_pre_commit_runs(repo.path());
}

// 3. chaining

#[test]
fn a_foreign_pre_commit_runs_first_and_its_failure_fails_the_commit() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    let log = repo.scratch("log");
    let hook = hooks_dir(&repo).join("pre-commit");
    write_exec(&hook, &foreign_hook("pre-commit", &log, 0), 0o755);
    let original = std::fs::read(&hook).unwrap();
    let out = install(&repo);
    assert!(
        text(&out.stdout).contains(
            "pre-commit: installed; your hook is kept as pre-commit.gate-chained and runs first"
        ),
        "{}",
        show(&out)
    );
    let chained = hooks_dir(&repo).join("pre-commit.gate-chained");
    assert_eq!(std::fs::read(&chained).unwrap(), original);
    assert_eq!(mode(&chained), 0o755);

    // Both pass: the commit happens, the foreign hook ran (no arguments).
    repo.write("src/export/csv.rs", "// csv\n");
    git_ok(&repo, &["add", "-A"]);
    let out = git_ok(&repo, &["commit", "-q", "-m", "csv"]);
    assert_eq!(read(&log), "pre-commit\n", "{}", show(&out));
    assert!(text(&out.stderr).contains("foreign pre-commit says hello"));

    // The foreign hook fails, gate would pass: refused, and gate never ran.
    write_exec(&chained, &foreign_hook("pre-commit", &log, 1), 0o755);
    repo.write("src/export/csv.rs", "// csv 2\n");
    git_ok(&repo, &["add", "-A"]);
    let head = repo.head();
    let out = git(&repo, &["commit", "-q", "-m", "csv 2"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(repo.head(), head);
    assert!(
        !text(&out.stdout).contains("gate") && !text(&out.stderr).contains("gate"),
        "gate ran after a failed chained hook: {}",
        show(&out)
    );
    // Gate fails, the foreign hook passes: refused, after the foreign hook.
    write_exec(&chained, &foreign_hook("pre-commit", &log, 0), 0o755);
    repo.write("README.md", "# out of scope\n");
    git_ok(&repo, &["add", "-A"]);
    let out = git(&repo, &["commit", "-q", "-m", "readme"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(repo.head(), head);
    let stderr = text(&out.stderr);
    let foreign_at = stderr.find("foreign pre-commit says hello").unwrap();
    let gate_at = stderr.find("path_outside_scope").unwrap();
    assert!(foreign_at < gate_at, "{stderr}");
}

/// A stand-in for gate that records its arguments and stdin, for checking
/// what the hook scripts hand over.
fn recording_gate(repo: &TestRepo, status: i32) -> PathBuf {
    let path = repo.scratch("recording-gate");
    let log = repo.scratch("gate-log");
    write_exec(
        &path,
        &format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >>'{log}'\ncat >'{log}.stdin'\nexit {status}\n",
            log = log.display()
        ),
        0o755,
    );
    path
}

#[test]
fn a_foreign_pre_push_gets_the_same_arguments_and_stdin_as_gate() {
    let repo = plan_repo("required");
    let remote = TestRepo::bare();
    repo.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
    repo.git(&["push", "-q", "origin", "main"]);
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write("src/export/csv.rs", "// csv\n");
    repo.commit_all("csv");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("docs/export.md", "# Export, more\n");
    repo.commit_all("docs");

    let log = repo.scratch("log");
    write_exec(
        &hooks_dir(&repo).join("pre-push"),
        &foreign_hook("pre-push", &log, 0),
        0o755,
    );
    let fake = recording_gate(&repo, 0);
    let out = repo
        .gate()
        .args(["install", "--binary"])
        .arg(&fake)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    let old_main = remote.rev("main");
    let out = git_ok(&repo, &["push", "-q", "origin", "main", "feat"]);
    let url = remote.path().display().to_string();
    assert_eq!(
        read(&log),
        format!("pre-push origin {url}\n"),
        "{}",
        show(&out)
    );
    let gate_log = repo.scratch("gate-log");
    assert_eq!(read(&gate_log), format!("hook pre-push origin {url}\n"));
    let zero = "0".repeat(40);
    let (main, feat) = (repo.rev("main"), repo.rev("feat"));
    let mut expected = vec![
        format!("refs/heads/main {main} refs/heads/main {old_main}"),
        format!("refs/heads/feat {feat} refs/heads/feat {zero}"),
    ];
    let foreign_stdin = read(&repo.scratch("log.pre-push.stdin"));
    let mut got: Vec<String> = foreign_stdin.lines().map(str::to_string).collect();
    got.sort();
    expected.sort();
    assert_eq!(got, expected, "{foreign_stdin}");
    assert_eq!(read(&repo.scratch("gate-log.stdin")), foreign_stdin);
    assert!(foreign_stdin.ends_with('\n'));

    // The foreign hook fails: the push is refused, gate is not asked.
    write_exec(
        &hooks_dir(&repo).join("pre-push.gate-chained"),
        &foreign_hook("pre-push", &log, 1),
        0o755,
    );
    repo.write("src/export/csv.rs", "// csv 2\n");
    let tip = repo.commit_all("csv 2");
    std::fs::remove_file(&gate_log).unwrap();
    let out = git(&repo, &["push", "-q", "origin", "main"]);
    assert!(!out.status.success(), "{}", show(&out));
    assert_ne!(remote.rev("main"), tip);
    assert!(!gate_log.exists());
}

#[test]
fn a_push_through_real_gate_and_a_chained_hook_succeeds() {
    let repo = plan_repo("required");
    let remote = TestRepo::bare();
    repo.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
    repo.git(&["push", "-q", "origin", "main"]);
    fixture::start_42(&repo);
    let log = repo.scratch("log");
    write_exec(
        &hooks_dir(&repo).join("pre-push"),
        &foreign_hook("pre-push", &log, 0),
        0o755,
    );
    install(&repo);
    repo.write("src/export/csv.rs", "// csv\n");
    git_ok(&repo, &["add", "-A"]);
    git_ok(&repo, &["commit", "-q", "-m", "csv"]);
    let out = git_ok(&repo, &["push", "origin", "main"]);
    assert_eq!(remote.rev("main"), repo.head(), "{}", show(&out));
    let stdin = read(&repo.scratch("log.pre-push.stdin"));
    assert!(stdin.starts_with("refs/heads/main "), "{stdin}");
    // git passes the hook's stdout through on pre-push.
    assert!(
        text(&out.stdout).contains("gate hook pre-push: pass"),
        "{}",
        show(&out)
    );
}

#[test]
fn a_foreign_post_checkout_status_is_kept_and_gate_still_runs() {
    let repo = plan_repo("required");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    fixture::start_42(&repo);
    let log = repo.scratch("log");
    write_exec(
        &hooks_dir(&repo).join("post-checkout"),
        &foreign_hook("post-checkout", &log, 3),
        0o755,
    );
    install(&repo);
    let (old, new) = (repo.rev("feat"), repo.rev("main"));
    let out = git(&repo, &["checkout", "-q", "main"]);
    // git fails when the hook does; the checkout itself happened.
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(
        repo.git(&["symbolic-ref", "HEAD"]).trim(),
        "refs/heads/main"
    );
    assert_eq!(read(&log), format!("post-checkout {old} {new} 1\n"));
    // gate's part ran too.
    assert_eq!(active(&repo), None, "{}", show(&out));
    assert!(text(&out.stderr).contains("cleared the active task"));
    // The hook's own status is the chained hook's, not just "failed".
    let hook = run_hook(&repo, "post-checkout", &[&new, &old, "1"]);
    assert_eq!(hook.status.code(), Some(3), "{}", show(&hook));
    assert!(text(&hook.stdout).contains("gate: "), "{}", show(&hook));
}

/// Run an installed hook by hand, as git would (cwd the work tree root).
fn run_hook(repo: &TestRepo, name: &str, args: &[&str]) -> Output {
    let mut cmd = std::process::Command::new(hooks_dir(repo).join(name));
    cmd.current_dir(repo.path())
        .args(args)
        .env_clear()
        .envs(support::git_env())
        .env("PATH", path_without_gate());
    cmd.output().expect("run the hook")
}

#[test]
fn uninstall_restores_foreign_hooks_byte_for_byte_with_their_modes() {
    let repo = TestRepo::new();
    let dir = hooks_dir(&repo);
    // Odd bytes: CRLF, non-UTF-8, no final newline; odd modes.
    let hooks: [(&str, &[u8], u32); 3] = [
        ("pre-commit", b"#!/bin/sh\r\nexit 0\r\n", 0o750),
        ("pre-push", b"#!/bin/sh\n# caf\xe9\nexit 0", 0o700),
        ("post-checkout", b"#!/bin/sh\nexit 0\n", 0o775),
    ];
    for (name, bytes, m) in hooks {
        std::fs::write(dir.join(name), bytes).unwrap();
        std::fs::set_permissions(dir.join(name), std::fs::Permissions::from_mode(m)).unwrap();
    }
    let before = snapshot(&dir);
    let out = install(&repo);
    assert_eq!(
        text(&out.stdout).matches("your hook is kept as").count(),
        3,
        "{}",
        show(&out)
    );
    for (name, bytes, m) in hooks {
        let chained = dir.join(format!("{name}.gate-chained"));
        assert_eq!(std::fs::read(&chained).unwrap(), bytes, "{name}");
        assert_eq!(mode(&chained), m, "{name}");
        assert!(read(&dir.join(name)).contains(MARKER));
    }
    // Reinstalling keeps the chain as it is.
    let chained_state = snapshot(&dir);
    install(&repo);
    assert_eq!(snapshot(&dir), chained_state);
    let out = uninstall(&repo);
    assert_eq!(
        text(&out.stdout)
            .matches("removed; your earlier hook is restored")
            .count(),
        3,
        "{}",
        show(&out)
    );
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn a_symlinked_foreign_hook_stays_a_symlink_and_runs() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    let log = repo.scratch("log");
    let target = repo.scratch("tools/my-pre-commit");
    write_exec(&target, &foreign_hook("pre-commit", &log, 0), 0o755);
    let hook = hooks_dir(&repo).join("pre-commit");
    // Relative, as hook managers write them: valid beside the hook only.
    let rel = Path::new("../../../tools/my-pre-commit");
    std::os::unix::fs::symlink(rel, &hook).unwrap();
    assert!(hook.exists(), "the test's symlink resolves");
    install(&repo);
    let chained = hooks_dir(&repo).join("pre-commit.gate-chained");
    assert!(
        std::fs::symlink_metadata(&chained)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_link(&chained).unwrap(), rel);
    repo.write("src/export/csv.rs", "// csv\n");
    git_ok(&repo, &["add", "-A"]);
    git_ok(&repo, &["commit", "-q", "-m", "csv"]);
    assert_eq!(read(&log), "pre-commit\n");
    uninstall(&repo);
    assert!(
        std::fs::symlink_metadata(&hook)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_link(&hook).unwrap(), rel);
    assert!(std::fs::symlink_metadata(&chained).is_err());
}

/// git ignores a hook that is not executable; chained, gate does the same,
/// says so at install, and restores it as it was.
#[test]
fn a_non_executable_foreign_hook_is_kept_but_not_run() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    let log = repo.scratch("log");
    let hook = hooks_dir(&repo).join("pre-commit");
    write_exec(&hook, &foreign_hook("pre-commit", &log, 1), 0o644);
    let before = std::fs::read(&hook).unwrap();
    let out = install(&repo);
    assert_golden("hooks/install-chained.txt", &transcript(Some(&repo), &out));
    assert!(
        text(&out.stdout).contains("not executable"),
        "install should say the kept hook does not run: {}",
        show(&out)
    );
    repo.write("src/export/csv.rs", "// csv\n");
    git_ok(&repo, &["add", "-A"]);
    git_ok(&repo, &["commit", "-q", "-m", "csv"]);
    assert_eq!(read(&log), "", "the non-executable hook ran");
    uninstall(&repo);
    assert_eq!(std::fs::read(&hook).unwrap(), before);
    assert_eq!(mode(&hook), 0o644);
}

#[test]
fn a_foreign_hook_beside_a_chained_one_makes_install_refuse_and_write_nothing() {
    let repo = TestRepo::new();
    let dir = hooks_dir(&repo);
    write_exec(&dir.join("pre-push"), "#!/bin/sh\nexit 0\n", 0o755);
    write_exec(
        &dir.join("pre-push.gate-chained"),
        "#!/bin/sh\nexit 1\n",
        0o755,
    );
    let before = snapshot(&dir);
    let out = repo.gate().arg("install").output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        text(&out.stderr).contains("pre-push.gate-chained"),
        "{}",
        show(&out)
    );
    assert_eq!(snapshot(&dir), before, "install wrote something");
}

// 4. pre-commit through git commit

#[test]
fn commit_in_scope_passes_and_out_of_scope_is_refused_naming_the_path() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    install(&repo);
    repo.write("src/export/csv.rs", "// csv\n");
    git_ok(&repo, &["add", "-A"]);
    let head = repo.head();
    git_ok(&repo, &["commit", "-q", "-m", "csv"]);
    assert_ne!(repo.head(), head);

    let head = repo.head();
    repo.write("README.md", "# changed\n");
    repo.write("src/export/csv.rs", "// csv 2\n");
    git_ok(&repo, &["add", "-A"]);
    let out = git(&repo, &["commit", "-q", "-m", "readme"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(repo.head(), head, "the refused commit happened");
    assert_golden("hooks/commit-refused.txt", &transcript(Some(&repo), &out));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("README.md"), "{stderr}");
    assert!(
        !stderr.contains("src/export/csv.rs (modified) is outside"),
        "{stderr}"
    );

    // --no-verify skips the hook altogether.
    git_ok(
        &repo,
        &["commit", "-q", "--no-verify", "-m", "readme anyway"],
    );
    assert_ne!(repo.head(), head);
}

#[test]
fn under_advisory_an_out_of_scope_commit_succeeds_with_the_finding() {
    let repo = plan_repo("advisory");
    fixture::start_42(&repo);
    install(&repo);
    repo.write("README.md", "# changed\n");
    git_ok(&repo, &["add", "-A"]);
    let head = repo.head();
    let out = git_ok(&repo, &["commit", "-q", "-m", "readme"]);
    assert_ne!(repo.head(), head);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("path_outside_scope"), "{stderr}");
    assert!(stderr.contains("README.md"), "{stderr}");
}

#[test]
fn commit_all_is_checked_against_the_index_git_is_about_to_commit() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    git_ok(&repo, &["add", "-A"]);
    git_ok(&repo, &["commit", "-q", "--no-verify", "-m", "task file"]);
    install(&repo);
    // The real index holds an in-scope change; the work tree also changes
    // a tracked file outside scope, which only `-a` would commit.
    repo.write("src/export/mod.rs", "// export 2\n");
    git_ok(&repo, &["add", "src/export/mod.rs"]);
    repo.write("README.md", "# changed\n");
    let head = repo.head();
    let out = git(&repo, &["commit", "-q", "-a", "-m", "all"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(text(&out.stderr).contains("README.md"), "{}", show(&out));
    assert_eq!(repo.head(), head);
    // Without -a: only the in-scope index, which passes.
    git_ok(&repo, &["commit", "-q", "-m", "index only"]);
    assert_ne!(repo.head(), head);
    assert_eq!(
        repo.git(&["diff", "--name-only", "HEAD~1", "HEAD"]).trim(),
        "src/export/mod.rs"
    );
}

#[test]
fn commit_of_named_paths_is_checked_against_those_paths_only() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    git_ok(&repo, &["add", "-A"]);
    git_ok(&repo, &["commit", "-q", "--no-verify", "-m", "task file"]);
    install(&repo);
    // The real index stages an out-of-scope change; `git commit <path>`
    // commits HEAD plus that path only, from a temporary index.
    repo.write("README.md", "# changed\n");
    git_ok(&repo, &["add", "README.md"]);
    repo.write("src/export/mod.rs", "// export 2\n");
    let head = repo.head();
    let out = git_ok(
        &repo,
        &["commit", "-q", "-m", "only", "--", "src/export/mod.rs"],
    );
    assert_ne!(repo.head(), head, "{}", show(&out));
    assert_eq!(
        repo.git(&["diff", "--name-only", "HEAD~1", "HEAD"]).trim(),
        "src/export/mod.rs"
    );
    // README.md is still staged, and a commit of it alone is refused.
    assert_eq!(
        repo.git(&["diff", "--cached", "--name-only"]).trim(),
        "README.md"
    );
    repo.write("src/export/mod.rs", "// export 3\n");
    let head = repo.head();
    let out = git(&repo, &["commit", "-q", "-m", "readme", "--", "README.md"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(repo.head(), head);
    assert!(text(&out.stderr).contains("README.md"), "{}", show(&out));
}

// 5. fail closed

#[test]
fn a_missing_binary_refuses_commits_and_pushes_but_not_checkouts() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    let remote = TestRepo::bare();
    repo.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
    let gone = repo.scratch("gone/gate");
    write_exec(&gone, "#!/bin/sh\nexit 0\n", 0o755);
    let out = repo
        .gate()
        .args(["install", "--binary"])
        .arg(&gone)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    std::fs::remove_dir_all(repo.scratch("gone")).unwrap();

    repo.write("src/export/csv.rs", "// csv\n");
    git_ok(&repo, &["add", "-A"]);
    let head = repo.head();
    let out = git(&repo, &["commit", "-q", "-m", "csv"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(repo.head(), head);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("the gate binary is missing"), "{stderr}");
    assert!(stderr.contains(&gone.display().to_string()), "{stderr}");
    assert!(stderr.contains("refusing the commit"), "{stderr}");

    let out = git(&repo, &["push", "-q", "origin", "main"]);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(
        text(&out.stderr).contains("refusing the push"),
        "{}",
        show(&out)
    );
    assert!(!remote.git_ok(&["rev-parse", "--verify", "-q", "main"]));

    let out = git(&repo, &["checkout", "-q", "-b", "other"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        text(&out.stderr).contains("the gate binary is missing"),
        "{}",
        show(&out)
    );
    assert_eq!(
        repo.git(&["symbolic-ref", "HEAD"]).trim(),
        "refs/heads/other"
    );
}

/// A recorded path that is a directory is as good as missing.
#[test]
fn a_recorded_path_that_is_a_directory_fails_closed_with_the_message() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    let odd = repo.scratch("odd/gate");
    write_exec(&odd, "#!/bin/sh\nexit 0\n", 0o755);
    let out = repo
        .gate()
        .args(["install", "--binary"])
        .arg(&odd)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    std::fs::remove_file(&odd).unwrap();
    std::fs::create_dir(&odd).unwrap();
    repo.write("src/export/csv.rs", "// csv\n");
    git_ok(&repo, &["add", "-A"]);
    let out = git(&repo, &["commit", "-q", "-m", "csv"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        text(&out.stderr).contains("the gate binary is missing"),
        "{}",
        show(&out)
    );
}

// 6. post-checkout

/// A repository with task T-42 started on `feat`, hooks installed, on `feat`.
fn feat_repo() -> TestRepo {
    let repo = plan_repo("required");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    fixture::start_42(&repo);
    install(&repo);
    repo
}

#[test]
fn checkout_re_points_the_active_task_to_the_branch_it_was_started_on() {
    let repo = feat_repo();
    assert_eq!(active(&repo).as_deref(), Some("T-42"));
    let recorded = read(&repo.path().join(".git/gate/started/T-42"));
    assert_eq!(recorded, "refs/heads/feat\n");

    let out = git_ok(&repo, &["checkout", "-q", "main"]);
    assert_eq!(active(&repo), None);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("no task was started on main; cleared the active task (was T-42)"),
        "{stderr}"
    );

    let out = git_ok(&repo, &["checkout", "-q", "feat"]);
    assert_eq!(active(&repo).as_deref(), Some("T-42"));
    assert!(
        text(&out.stderr).contains("active task T-42 (started on feat)"),
        "{}",
        show(&out)
    );
    // Back on main with nothing active: one short status all the same.
    git_ok(&repo, &["checkout", "-q", "main"]);
    let out = git_ok(&repo, &["checkout", "-q", "main"]);
    assert_eq!(active(&repo), None);
    assert_eq!(
        text(&out.stderr),
        "gate: no active task (none was started on main)\n"
    );
}

#[test]
fn two_tasks_started_on_one_branch_clear_the_pointer_naming_both() {
    let repo = feat_repo();
    let out = fixture::start(&repo, &["--issue", "7", "--id", "T-7"], "Fix the typos.\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    git_ok(&repo, &["checkout", "-q", "main"]);
    let out = git_ok(&repo, &["checkout", "-q", "feat"]);
    assert_eq!(active(&repo), None);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("T-42") && stderr.contains("T-7"),
        "{stderr}"
    );
    assert!(stderr.contains("cleared the active task"), "{stderr}");
}

#[test]
fn a_file_checkout_changes_nothing() {
    let repo = feat_repo();
    repo.write("README.md", "# scribble\n");
    let pointer = std::fs::read(git_path(&repo, "gate/active")).unwrap();
    let out = git_ok(&repo, &["checkout", "--", "README.md"]);
    assert_eq!(
        std::fs::read(git_path(&repo, "gate/active")).unwrap(),
        pointer
    );
    assert!(!text(&out.stderr).contains("gate"), "{}", show(&out));
    assert!(!text(&out.stdout).contains("gate"), "{}", show(&out));
}

#[test]
fn a_rebase_stopped_by_a_conflict_leaves_the_pointer_alone() {
    let repo = feat_repo();
    repo.write("src/export/mod.rs", "// feat side\n");
    git_ok(&repo, &["add", "-A"]);
    git_ok(&repo, &["commit", "-q", "-m", "feat side"]);
    git_ok(&repo, &["checkout", "-q", "main"]);
    repo.write("src/export/mod.rs", "// main side\n");
    git_ok(&repo, &["commit", "-q", "--no-verify", "-am", "main side"]);
    git_ok(&repo, &["checkout", "-q", "feat"]);
    assert_eq!(active(&repo).as_deref(), Some("T-42"));

    let out = git(&repo, &["rebase", "main"]);
    assert!(
        !out.status.success(),
        "the rebase should stop: {}",
        show(&out)
    );
    assert!(git_path(&repo, "rebase-merge").exists(), "{}", show(&out));
    assert_eq!(active(&repo).as_deref(), Some("T-42"), "{}", show(&out));
    assert!(!text(&out.stderr).contains("cleared"), "{}", show(&out));
    assert!(!text(&out.stdout).contains("cleared"), "{}", show(&out));

    git_ok(&repo, &["rebase", "--abort"]);
    assert_eq!(active(&repo).as_deref(), Some("T-42"));
}

/// Regression: `git rebase --apply` detaches HEAD (running post-checkout)
/// before it creates `rebase-apply`, which used to clear the pointer; so did
/// looking at a commit.
#[test]
fn a_detached_head_leaves_the_pointer_alone() {
    let repo = feat_repo();
    repo.write("src/export/mod.rs", "// feat side\n");
    git_ok(&repo, &["add", "-A"]);
    git_ok(&repo, &["commit", "-q", "-m", "feat side"]);
    git_ok(&repo, &["checkout", "-q", "main"]);
    repo.write("docs/export.md", "# main side\n");
    git_ok(&repo, &["commit", "-q", "--no-verify", "-am", "main side"]);
    for backend in ["--apply", "--merge"] {
        git_ok(&repo, &["checkout", "-q", "feat"]);
        assert_eq!(active(&repo).as_deref(), Some("T-42"));
        let out = git_ok(&repo, &["rebase", "-q", backend, "main"]);
        assert_eq!(
            active(&repo).as_deref(),
            Some("T-42"),
            "{backend}: {}",
            show(&out)
        );
        assert_eq!(
            repo.git(&["symbolic-ref", "HEAD"]).trim(),
            "refs/heads/feat"
        );
        git_ok(&repo, &["reset", "-q", "--hard", "ORIG_HEAD"]);
        git_ok(&repo, &["checkout", "-q", "main"]);
    }
    git_ok(&repo, &["checkout", "-q", "feat"]);
    assert_eq!(active(&repo).as_deref(), Some("T-42"));
    let out = git_ok(&repo, &["checkout", "-q", "--detach", "main"]);
    assert_eq!(active(&repo).as_deref(), Some("T-42"));
    assert_eq!(
        text(&out.stderr),
        "gate: HEAD is detached; the active task is still T-42\n"
    );
}

#[test]
fn post_checkout_never_fails_on_a_corrupt_policy() {
    let repo = feat_repo();
    repo.write(".gate/policy.yaml", "version: [unclosed\n");
    let out = git(&repo, &["checkout", "-q", "main"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(
        repo.git(&["symbolic-ref", "HEAD"]).trim(),
        "refs/heads/main"
    );
}

#[test]
fn post_checkout_never_fails_on_a_garbage_pointer_and_replaces_it() {
    let repo = feat_repo();
    let pointer = git_path(&repo, "gate/active");
    std::fs::write(&pointer, "../../not a task\n\0\n").unwrap();
    let out = git(&repo, &["checkout", "-q", "main"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    // Leaving the branch clears what cannot be a task, and says so.
    assert!(!pointer.exists(), "{}", show(&out));
    assert!(text(&out.stderr).contains("cleared"), "{}", show(&out));
    std::fs::write(&pointer, "../../not a task\n").unwrap();
    let out = git(&repo, &["checkout", "-q", "feat"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(active(&repo).as_deref(), Some("T-42"), "{}", show(&out));
}

#[test]
fn post_checkout_never_fails_on_unreadable_tasks() {
    let repo = feat_repo();
    // A corrupt task file beside the good one, then no tasks directory at
    // all but a file in its place.
    repo.write(".gate/tasks/T-bad.md", "---\nnot: [yaml\n");
    let out = git(&repo, &["checkout", "-q", "main"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = git(&repo, &["checkout", "-q", "feat"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(active(&repo).as_deref(), Some("T-42"), "{}", show(&out));
    repo.remove(b".gate/tasks");
    repo.write(".gate/tasks", "not a directory\n");
    let out = git(&repo, &["checkout", "-q", "main"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

/// A task started on the branch whose file cannot be read may be the one
/// to activate: the pointer is left as it was, and the hook says why.
#[test]
fn post_checkout_leaves_the_pointer_when_a_task_started_there_is_unreadable() {
    let repo = feat_repo();
    repo.write(".gate/tasks/T-bad.md", "---\nnot: [yaml\n");
    std::fs::write(
        repo.path().join(".git/gate/started/T-bad"),
        "refs/heads/main\n",
    )
    .unwrap();
    let out = git(&repo, &["checkout", "-q", "main"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(active(&repo).as_deref(), Some("T-42"), "{}", show(&out));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("cannot tell which tasks were started on main") && stderr.contains("T-bad"),
        "{stderr}"
    );
}

#[test]
fn worktree_add_of_a_task_branch_activates_its_task_there() {
    let repo = feat_repo();
    // The task file travels with the branch.
    git_ok(&repo, &["add", "-A"]);
    git_ok(&repo, &["commit", "-q", "-m", "task"]);
    git_ok(&repo, &["checkout", "-q", "main"]);
    let wt = repo.scratch("wt-feat");
    let out = git_ok(
        &repo,
        &["worktree", "add", "-q", wt.to_str().unwrap(), "feat"],
    );
    let wt_pointer = git_at(&wt, &["rev-parse", "--git-path", "gate/active"], &[]);
    let wt_pointer = wt.join(text(&wt_pointer.stdout).trim());
    assert_eq!(
        read(&wt_pointer).trim(),
        "T-42",
        "{}\n{}",
        wt_pointer.display(),
        show(&out)
    );
    // The main worktree's pointer is its own.
    assert_eq!(active(&repo), None);
}

/// Regression (issue 13): `git switch -c` / `git checkout -b` right after
/// `gate start` cleared the active task; the task follows HEAD onto the
/// new branch, which is recorded for it, and checking the branches out
/// again re-activates it on both.
#[test]
fn a_new_branch_right_after_start_keeps_the_task_and_is_recorded_for_it() {
    for create in [&["switch", "-q", "-c"][..], &["checkout", "-q", "-b"][..]] {
        let repo = plan_repo("required");
        install(&repo);
        fixture::start_42(&repo);
        let mut args = create.to_vec();
        args.push("work");
        let out = git_ok(&repo, &args);
        assert_eq!(active(&repo).as_deref(), Some("T-42"), "{}", show(&out));
        assert!(
            text(&out.stderr).contains("active task T-42 (follows HEAD onto the new branch work)"),
            "{}",
            show(&out)
        );
        let recorded = read(&repo.path().join(".git/gate/started/T-42"));
        assert_eq!(recorded, "refs/heads/main\nrefs/heads/work\n");
        git_ok(&repo, &["checkout", "-q", "main"]);
        assert_eq!(active(&repo).as_deref(), Some("T-42"), "started on main");
        git_ok(&repo, &["checkout", "-q", "work"]);
        assert_eq!(active(&repo).as_deref(), Some("T-42"));
        // An in-scope commit on the new branch passes the hook.
        repo.write("src/export/csv.rs", "// csv\n");
        git_ok(&repo, &["add", "-A"]);
        git_ok(&repo, &["commit", "-q", "-m", "csv"]);
        // A branch created elsewhere (another commit) is judged as any other.
        git_ok(&repo, &["checkout", "-q", "-b", "other", "main"]);
        assert_eq!(active(&repo), None);
    }
}

/// An existing branch at the same commit is not a new one: the pointer is
/// cleared as before.
#[test]
fn an_existing_branch_at_the_same_commit_still_clears_the_pointer() {
    let repo = plan_repo("required");
    repo.git(&["branch", "old"]);
    repo.git(&["commit", "-q", "--allow-empty", "-m", "second reflog entry"]);
    repo.git(&["branch", "-f", "old", "HEAD"]);
    install(&repo);
    fixture::start_42(&repo);
    let out = git_ok(&repo, &["switch", "-q", "old"]);
    assert_eq!(active(&repo), None, "{}", show(&out));
}

/// `gate task switch ID` ties the task to the current branch: checking
/// that branch out again makes it active.
#[test]
fn task_switch_ties_the_task_to_the_current_branch() {
    let repo = feat_repo();
    git_ok(&repo, &["add", "-A"]);
    git_ok(&repo, &["commit", "-q", "-m", "task"]);
    git_ok(&repo, &["checkout", "-q", "main"]);
    git_ok(&repo, &["merge", "-q", "--ff-only", "feat"]);
    assert_eq!(active(&repo), None);
    let out = repo
        .gate()
        .args(["task", "switch", "T-42"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        text(&out.stdout).contains("on branch main"),
        "{}",
        show(&out)
    );
    git_ok(&repo, &["checkout", "-q", "feat"]);
    git_ok(&repo, &["checkout", "-q", "main"]);
    assert_eq!(active(&repo).as_deref(), Some("T-42"));
    let recorded = read(&repo.path().join(".git/gate/started/T-42"));
    assert_eq!(recorded, "refs/heads/feat\nrefs/heads/main\n");
}
