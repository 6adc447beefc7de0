//! Shared helpers for the integration tests: real repositories in temporary
//! directories, driven by the git CLI in an environment isolated from the
//! machine (no system or global config, fixed identities, a fake clock), so
//! commit ids are deterministic and tests never see the developer's setup.

#![allow(dead_code)]

use std::cell::Cell;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// 2026-01-01T00:00:00Z.
const EPOCH: u64 = 1_767_225_600;

/// Variables that would point git (or gix, in-process) at another
/// repository, index or config: never inherited by what tests run. Those
/// that name another repository are gate's own list, which it clears when
/// it runs git ([`gate::git::REDIRECTING_VARS`]); these change discovery,
/// config and the object store besides.
const ISOLATING_GIT_VARS: &[&str] = &[
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_SHALLOW_FILE",
    "GIT_QUARANTINE_PATH",
];

/// Every variable a test's git or gate must not inherit.
fn inherited_git_vars() -> impl Iterator<Item = &'static str> {
    gate::git::REDIRECTING_VARS
        .iter()
        .chain(ISOLATING_GIT_VARS)
        .copied()
}

/// The text of `file` (relative to the repository's root) and the byte
/// range of the body of its block marked by the lines `begin` and `end`:
/// the docs whose examples a test runs (README.md's flow, docs/agents.md's
/// session).
pub fn marked_block(file: &str, begin: &str, end: &str) -> (String, std::ops::Range<usize>) {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file))
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    let start = text
        .find(begin)
        .unwrap_or_else(|| panic!("{file} marks no block's start ({begin})"))
        + begin.len();
    let len = text[start..]
        .find(end)
        .unwrap_or_else(|| panic!("{file} marks no block's end ({end})"));
    (text, start..start + len)
}

/// The isolated git environment: no system or global config, fixed names,
/// emails and dates. [`TestRepo`] advances the dates per git call.
pub fn git_env() -> Vec<(String, String)> {
    let date = format!("{EPOCH} +0000");
    [
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_CONFIG_GLOBAL", "/dev/null"),
        ("GIT_AUTHOR_NAME", "Test Author"),
        ("GIT_AUTHOR_EMAIL", "author@example.com"),
        ("GIT_COMMITTER_NAME", "Test Author"),
        ("GIT_COMMITTER_EMAIL", "author@example.com"),
        ("GIT_AUTHOR_DATE", date.as_str()),
        ("GIT_COMMITTER_DATE", date.as_str()),
        ("GIT_TERMINAL_PROMPT", "0"),
        ("LC_ALL", "C"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect()
}

/// A `git` command with the isolated environment and nothing inherited that
/// could redirect it.
pub fn git_command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir);
    for var in inherited_git_vars() {
        cmd.env_remove(var);
    }
    cmd.envs(git_env());
    cmd
}

/// Panic with everything git said unless it succeeded.
pub fn check(cmd: &Command, out: Output) -> Output {
    if !out.status.success() {
        panic!(
            "{cmd:?} failed ({}):\nstdout:\n{}\nstderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out
}

/// A repository in a temporary directory, removed on drop.
///
/// Layout: `<tmp>/repo` (the repository), `<tmp>/home` (an empty HOME for
/// the `gate` binary); other names under `<tmp>` are free for the test
/// ([`TestRepo::scratch`]).
pub struct TestRepo {
    tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    clock: Cell<u64>,
}

impl TestRepo {
    /// `git init -b main` in a fresh temporary directory.
    pub fn new() -> TestRepo {
        TestRepo::init(&["init", "-q", "-b", "main"])
    }

    /// A bare repository (a push target).
    pub fn bare() -> TestRepo {
        TestRepo::init(&["init", "-q", "--bare", "-b", "main"])
    }

    fn init(args: &[&str]) -> TestRepo {
        let tmp = tempfile::Builder::new()
            .prefix("gate-test-")
            .tempdir()
            .expect("create a temp dir");
        let base = tmp.path().canonicalize().expect("canonical temp dir");
        let root = base.join("repo");
        let home = base.join("home");
        std::fs::create_dir_all(&root).expect("create repo dir");
        std::fs::create_dir_all(&home).expect("create home dir");
        let repo = TestRepo {
            tmp,
            root,
            home,
            clock: Cell::new(0),
        };
        repo.git(args);
        repo.git(&["config", "core.autocrlf", "false"]);
        repo
    }

    /// The repository root (the git dir itself when bare).
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// A path under the temporary directory, beside the repository (not created).
    pub fn scratch(&self, name: &str) -> PathBuf {
        self.root.parent().expect("repo has a parent").join(name)
    }

    /// Run git in the repository; panic with its stderr on failure; stdout.
    pub fn git(&self, args: &[&str]) -> String {
        self.git_in(&self.root, args)
    }

    pub fn git_bytes(&self, args: &[&str]) -> Vec<u8> {
        self.run(&self.root, args, &[]).stdout
    }

    /// Run git with another current directory.
    pub fn git_in(&self, dir: &Path, args: &[&str]) -> String {
        String::from_utf8_lossy(&self.run(dir, args, &[]).stdout).into_owned()
    }

    /// Run git with extra environment variables (`GIT_INDEX_FILE`, …).
    pub fn git_env_bytes(&self, args: &[&str], envs: &[(&str, &OsStr)]) -> Vec<u8> {
        self.run(&self.root, args, envs).stdout
    }

    /// Run git with `input` on its stdin; panic with its stderr on
    /// failure; stdout.
    pub fn git_stdin(&self, args: &[&str], input: &str) -> String {
        use std::io::Write;
        let mut cmd = self.command(&self.root, args, &[]);
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|err| panic!("cannot run {cmd:?}: {err}"));
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("write stdin");
        let out = child.wait_with_output().expect("wait for git");
        String::from_utf8_lossy(&check(&cmd, out).stdout).into_owned()
    }

    /// Run git and report whether it exited 0 (for `merge-base --is-ancestor`).
    pub fn git_ok(&self, args: &[&str]) -> bool {
        let mut cmd = self.command(&self.root, args, &[]);
        cmd.output().expect("run git").status.success()
    }

    /// Run git, which may fail (a conflicting merge); its output either way.
    pub fn git_may_fail(&self, args: &[&str]) -> Output {
        let mut cmd = self.command(&self.root, args, &[]);
        cmd.output().expect("run git")
    }

    fn command(&self, dir: &Path, args: &[&str], envs: &[(&str, &OsStr)]) -> Command {
        // One tick per call: every commit gets a later date than the last.
        let tick = self.clock.get() + 1;
        self.clock.set(tick);
        let date = format!("{} +0000", EPOCH + tick);
        let mut cmd = git_command(dir);
        cmd.args(args)
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date);
        for (k, v) in envs {
            cmd.env(k, v);
        }
        cmd
    }

    fn run(&self, dir: &Path, args: &[&str], envs: &[(&str, &OsStr)]) -> Output {
        let mut cmd = self.command(dir, args, envs);
        let out = cmd
            .output()
            .unwrap_or_else(|err| panic!("cannot run {cmd:?}: {err}"));
        check(&cmd, out)
    }

    /// Write a file (creating parent directories).
    pub fn write(&self, rel: &str, contents: impl AsRef<[u8]>) {
        self.write_at(rel.as_bytes(), contents);
    }

    /// Write a file whose path is raw bytes (non-UTF-8, newlines, …).
    pub fn write_at(&self, rel: &[u8], contents: impl AsRef<[u8]>) {
        let path = self.abs(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent dirs");
        }
        // Replace a symlink rather than write through it.
        if path
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
        {
            std::fs::remove_file(&path).expect("remove symlink");
        }
        std::fs::write(&path, contents)
            .unwrap_or_else(|err| panic!("write {}: {err}", path.display()));
    }

    /// Replace whatever is at `rel` with a symlink to `target`.
    pub fn symlink(&self, rel: &[u8], target: &[u8]) {
        let path = self.abs(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent dirs");
        }
        self.remove(rel);
        std::os::unix::fs::symlink(OsStr::from_bytes(target), &path).expect("create symlink");
    }

    /// Remove a file, symlink or directory tree if present.
    pub fn remove(&self, rel: &[u8]) {
        let path = self.abs(rel);
        match path.symlink_metadata() {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path).expect("remove dir"),
            Ok(_) => std::fs::remove_file(&path).expect("remove file"),
            Err(_) => {}
        }
    }

    /// Set or clear the executable bits of a file.
    pub fn chmod(&self, rel: &[u8], executable: bool) {
        use std::os::unix::fs::PermissionsExt;
        let path = self.abs(rel);
        let mode = if executable { 0o755 } else { 0o644 };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }

    /// The absolute path of a repository-relative raw path.
    pub fn abs(&self, rel: &[u8]) -> PathBuf {
        self.root.join(OsStr::from_bytes(rel))
    }

    /// `git add -A` and commit everything; the new commit's full id.
    pub fn commit_all(&self, msg: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", msg]);
        self.head()
    }

    /// The full id of HEAD.
    pub fn head(&self) -> String {
        self.rev("HEAD")
    }

    /// The full commit id a revision names.
    pub fn rev(&self, spec: &str) -> String {
        self.git(&["rev-parse", "--verify", "-q", &format!("{spec}^{{commit}}")])
            .trim()
            .to_owned()
    }

    /// The `gate` binary: cwd the repository, a cleared environment with
    /// only the isolated git variables, PATH and a temporary HOME.
    pub fn gate(&self) -> assert_cmd::Command {
        let mut cmd = assert_cmd::Command::new(assert_cmd::cargo::cargo_bin!("gate"));
        cmd.current_dir(&self.root).env_clear().envs(git_env());
        cmd.env("PATH", std::env::var_os("PATH").unwrap_or_default());
        cmd.env("HOME", &self.home);
        cmd
    }
}

impl Default for TestRepo {
    fn default() -> TestRepo {
        TestRepo::new()
    }
}

/// Set in a child test process started by [`run_in_child`].
pub const CHILD_MARKER: &str = "GATE_TEST_CHILD";

/// Whether this is a child test process started by [`run_in_child`].
pub fn is_child() -> bool {
    std::env::var_os(CHILD_MARKER).is_some()
}

/// Run one test of this binary again in a child process, with `envs` set
/// and `cwd` as its current directory, and fail unless it ran and passed.
///
/// For tests of process-global state (environment variables such as
/// `GIT_INDEX_FILE`, the current directory) that must not leak into tests
/// running in parallel threads. `test` is the test's path as the harness
/// names it (`git_layer::some_test`); the child sees [`is_child`] true.
pub fn run_in_child(test: &str, cwd: &Path, envs: &[(&str, OsString)]) {
    let exe = std::env::current_exe().expect("current test binary");
    let mut cmd = Command::new(exe);
    cmd.args([test, "--exact", "--nocapture", "--test-threads=1"])
        .current_dir(cwd);
    for var in inherited_git_vars() {
        cmd.env_remove(var);
    }
    cmd.envs(git_env()).env(CHILD_MARKER, "1");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run the child test");
    let out = check(&cmd, out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("1 passed"),
        "the child did not run `{test}`:\n{stdout}"
    );
}

/// The path of the enclosing test function as the harness names it
/// (`git_layer::some_test`), for [`run_in_child`] and [`isolate`].
#[macro_export]
macro_rules! this_test {
    () => {{
        fn f() {}
        let name = ::std::any::type_name_of_val(&f);
        let name = name.strip_suffix("::f").unwrap_or(name);
        // Drop the crate name (`integration::`).
        name.split_once("::").map_or(name, |(_, rest)| rest)
    }};
}

/// Run the calling test in a child process whose environment is isolated
/// like the git commands' ([`git_env`]): code under test that reads git
/// configuration in-process (gix) then sees neither the machine's system
/// nor its global config, exactly as the git oracle does.
///
/// Returns `true` in that child (run the test body) and `false` in the
/// parent, once the child has passed:
///
/// ```ignore
/// #[test]
/// fn some_test() {
///     if !isolate(this_test!()) {
///         return;
///     }
///     // the body
/// }
/// ```
pub fn isolate(test: &str) -> bool {
    if is_child() {
        return true;
    }
    run_in_child(
        test,
        &std::env::current_dir().expect("current directory"),
        &[],
    );
    false
}

/// The switch for the full suite: `GATE_FULL_SUITE=1`, which `.ci/run`
/// always sets (CONTRIBUTING.md). Under it the long tests run (the
/// 100,000- and 10,000-commit histories, the real-history slice), and a
/// test that cannot run here (a tool missing, a terminal that cannot be
/// made) fails instead of skipping.
pub const FULL_SUITE: &str = "GATE_FULL_SUITE";

/// Whether the full suite is asked for ([`FULL_SUITE`]).
pub fn full_suite() -> bool {
    std::env::var(FULL_SUITE).as_deref() == Ok("1")
}

/// Test `test` does not run here, because `why`: said on the real stderr
/// (the harness captures only `print!`/`eprint!`, so `cargo test` shows
/// it) as `SKIPPED test: why`; a failure under the full suite, or when
/// `require`, a variable that makes this one test required, is set.
pub fn skip(test: &str, why: &str, require: Option<&str>) {
    if full_suite() {
        panic!("{test} cannot run here, and {FULL_SUITE}=1 needs it to: {why}");
    }
    if let Some(var) = require.filter(|var| std::env::var_os(var).is_some()) {
        panic!("{test} cannot run here, and {var} needs it to: {why}");
    }
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}

/// Whether long test `test` runs: under the full suite only; otherwise it
/// is skipped and says so.
pub fn long_test(test: &str) -> bool {
    if full_suite() {
        return true;
    }
    skip(
        test,
        &format!("a long test: {FULL_SUITE}=1 runs it (.ci/run does)"),
        None,
    );
    false
}

/// Split NUL-terminated output into its fields.
pub fn nul_fields(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut fields: Vec<Vec<u8>> = bytes.split(|b| *b == 0).map(<[u8]>::to_vec).collect();
    if fields.last().is_some_and(Vec::is_empty) {
        fields.pop();
    }
    fields
}

/// A deterministic pseudo-random generator (xorshift64*), so generated
/// histories are the same on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Wait for the file system's clock to tick: a file written after this
/// returns has a later modification time than every file written before
/// it was called. Checked, not assumed: a probe file is rewritten until
/// its time moves (a coarse clock ticks every few milliseconds).
pub fn tick() {
    let probe = std::env::temp_dir().join(format!(
        "gate-test-tick-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let stamp = || {
        std::fs::write(&probe, b"tick").expect("write the tick probe");
        std::fs::metadata(&probe)
            .and_then(|m| m.modified())
            .expect("the tick probe's time")
    };
    let first = stamp();
    for _ in 0..10_000 {
        std::thread::sleep(std::time::Duration::from_millis(1));
        if stamp() > first {
            let _ = std::fs::remove_file(&probe);
            return;
        }
    }
    panic!("the file system's clock did not move in 10,000 waits of 1 ms");
}

/// Feed `stream` to `git fast-import` in `repo` and fail unless it took it
/// (`--force`: a stream may move a branch back).
pub fn fast_import(repo: &TestRepo, stream: &[u8]) {
    use std::io::Write;
    let mut cmd = git_command(repo.path());
    cmd.args(["fast-import", "--quiet", "--force"])
        .stdin(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("spawn fast-import");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stream)
        .expect("feed fast-import");
    assert!(child.wait().expect("fast-import").success());
}

/// The names in `dir` a write left behind: a temporary file (gate's start
/// with a dot, or name `tmp`). A write that ended, or was never begun,
/// leaves none.
pub fn temporary_files_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("read the directory")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.starts_with('.') || name.contains("tmp"))
        .collect()
}
