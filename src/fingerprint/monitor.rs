//! An opt-in file-system monitor for the warm fingerprint: watchman, asked
//! over its socket which files changed since the clock the last run kept.
//!
//! A warm run without a monitor must `lstat` every covered file, because an
//! edit moves a file's mtime and not its directory's. With
//! `git config gate.fsmonitor watchman` (a machine's choice, like git's
//! `core.fsmonitor`; never the policy's), each set of sources keeps its own
//! stat cache record together with the watchman clock it was taken at, and
//! the next run asks watchman what changed since that clock: a cached path
//! watchman does not name, nor any directory above it, is taken as it was
//! recorded without a stat. Everything named is stat-ed (and read, if its
//! stat moved) as without a monitor.
//!
//! Watchman's answer counts only when it is complete: the query waits for
//! a synchronisation cookie (so every change made before the query is in
//! it), a fresh instance (a restarted daemon, a new watch) answers "cannot
//! say", and so do a clock from another watch root, a source at, above or
//! below a directory watchman is configured to ignore, a name it could not
//! encode, a missing daemon, an error, a timeout or a reply that does not
//! parse. "Cannot say" only costs time: every path is stat-ed.
//!
//! The socket is `$WATCHMAN_SOCK` when set (the variable watchman's own
//! clients honour); otherwise `watchman get-sockname` is asked once (which
//! starts the daemon if needed) and its answer kept under the cache
//! directory, and asked again when that socket does not answer.

use crate::platform::{LocalStream, connect_local};
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Value, json};

use crate::git::{GitError, Repo};

/// The git configuration key that turns the monitor on.
pub(crate) const KEY: &str = "gate.fsmonitor";

/// How long one exchange with the daemon may take before gate gives up on
/// it and stats everything (watchman 4.9 never answers a query whose
/// answer holds a name that is not UTF-8: that costs this long, once).
const TIMEOUT: Duration = Duration::from_secs(3);
/// How long watchman may wait for its synchronisation cookie, in ms (less
/// than [`TIMEOUT`], so that a slow daemon answers with an error).
const SYNC_MS: u64 = 2_000;
/// The longest answer read (a `since` query naming 100,000 files is a few
/// MB): anything longer is not an answer to trust.
const MAX_ANSWER: u64 = 64 << 20;
/// How long `watchman get-sockname` may take (it may start the daemon).
const SPAWN_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether `repo`'s configuration asks for a monitor: `Ok(true)` for
/// `watchman`, `Ok(false)` when unset or false; anything else is an error
/// naming the key.
pub(crate) fn enabled(repo: &Repo) -> Result<bool, GitError> {
    let Some(value) = repo.config_string(KEY) else {
        return Ok(false);
    };
    match value.trim().to_ascii_lowercase().as_str() {
        "watchman" => Ok(true),
        "" | "false" | "no" | "off" | "0" => Ok(false),
        _ => Err(GitError::other(
            format!("git config {KEY}"),
            format!("{value:?} is neither `watchman` nor false"),
        )),
    }
}

/// What the monitor said for one set of covered paths.
pub(super) struct Since {
    /// Where and when it was asked, to keep with what this run records.
    pub token: Vec<u8>,
    /// What changed since the token given; `None` when it cannot say.
    pub changed: Option<Changed>,
}

/// The paths watchman named as changed (files and directories, relative to
/// the work tree) among the sources it was asked about.
#[derive(Debug, Default)]
pub(super) struct Changed {
    names: HashSet<Vec<u8>>,
    /// The sources asked about, without a trailing `/`.
    scope: Vec<Vec<u8>>,
}

impl Changed {
    /// Whether the monitor vouches that `path` did not change: it is a
    /// source or lies below one, and neither it nor a directory above it
    /// was named (a directory is named when its list of names changes, and
    /// whatever happened below it is then looked at, as git does).
    pub(super) fn vouches(&self, path: &[u8]) -> bool {
        let in_scope = self.scope.iter().any(|s| {
            path.strip_prefix(s.as_slice())
                .is_some_and(|rest| rest.is_empty() || rest[0] == b'/')
        });
        if !in_scope {
            return false;
        }
        if self.names.is_empty() {
            return true;
        }
        !self.names.contains(path)
            && !path
                .iter()
                .enumerate()
                .filter(|&(_, &b)| b == b'/')
                .any(|(i, _)| self.names.contains(&path[..i]))
    }

    pub(super) fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Ask watchman what changed under `workdir` since `token` (from the last
/// run's record), among `sources` (directories or files); `None` when
/// watchman cannot be reached or fails (stat everything, keep no clock).
pub(super) fn since(
    cache_dir: &Path,
    workdir: &Path,
    token: Option<&[u8]>,
    sources: &[String],
) -> Option<Since> {
    let mut client = Client::connect(cache_dir)?;
    let workdir = workdir.to_str()?;
    let watched = client.call(&json!(["watch-project", workdir]))?;
    let root = watched.get("watch")?.as_str()?.to_owned();
    let relative = watched
        .get("relative_path")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let prefix = format!("{root}\0{relative}\0");
    let previous = token
        .and_then(|t| t.strip_prefix(prefix.as_bytes()))
        .and_then(|clock| std::str::from_utf8(clock).ok());
    // A directory watchman ignores is never reported on: nothing at, above
    // or below a source may be one.
    let config = client.call(&json!(["get-config", root]))?;
    let pid = client.call(&json!(["get-pid"]))?.get("pid")?.as_u64()?;
    let unwatched =
        match global_configs(pid).and_then(|globals| ignored(config.get("config"), &globals)) {
            Some(ignored) => ignored
                .iter()
                .any(|dir| overlaps_sources(dir, &relative, sources)),
            None => true,
        };
    let previous = previous.filter(|_| !unwatched);
    let Some(previous) = previous else {
        // No clock of this root: learn the current one; this run stats all.
        let answer = client.call(&json!(["clock", root, {"sync_timeout": SYNC_MS}]))?;
        let clock = answer.get("clock")?.as_str()?;
        return Some(Since {
            token: format!("{prefix}{clock}").into_bytes(),
            changed: None,
        });
    };
    let mut query = json!({
        "since": previous,
        "fields": ["name"],
        "empty_on_fresh_instance": true,
        "sync_timeout": SYNC_MS,
    });
    if !relative.is_empty() {
        query["relative_root"] = json!(relative);
    }
    if let Some(expression) = expression(sources) {
        query["expression"] = expression;
    }
    let answer = client.call(&json!(["query", root, query]))?;
    let clock = answer.get("clock")?.as_str()?;
    let fresh = answer
        .get("is_fresh_instance")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    let changed = if fresh {
        None
    } else {
        // A name watchman could not encode (U+FFFD in place of bytes that
        // are not UTF-8) is not the path that changed: it cannot say, but
        // the new clock holds.
        let names = answer
            .get("files")?
            .as_array()?
            .iter()
            .map(|name| name.as_str().filter(|s| !s.contains('\u{fffd}')))
            .map(|name| name.map(|s| s.as_bytes().to_vec()))
            .collect::<Option<HashSet<_>>>();
        let scope = sources
            .iter()
            .map(|s| s.trim_end_matches('/').as_bytes().to_vec())
            .collect();
        names.map(|names| Changed { names, scope })
    };
    Some(Since {
        token: format!("{prefix}{clock}").into_bytes(),
        changed,
    })
}

/// Every file the daemon `pid` may have read its global configuration
/// from when it started: `$WATCHMAN_CONFIG_FILE` in its environment and in
/// ours, and where packages put it, each that exists. `None` when one of
/// them changed after the daemon started (it read the file then, and not
/// since), or when the daemon's environment or start cannot be read on a
/// system that has `/proc` for it.
fn global_configs(pid: u64) -> Option<Vec<PathBuf>> {
    let mut files = vec![
        PathBuf::from("/etc/watchman.json"),
        PathBuf::from("/usr/local/etc/watchman.json"),
    ];
    files.extend(std::env::var_os("WATCHMAN_CONFIG_FILE").map(PathBuf::from));
    let started = if Path::new("/proc/self").exists() {
        let (file, started) = daemon_from_proc(pid)?;
        files.extend(file);
        Some(started)
    } else {
        None
    };
    let mut present = Vec::new();
    for file in files {
        match std::fs::metadata(&file) {
            Ok(meta) => {
                // Start times are known to the second: two seconds of doubt.
                let after = |start: SystemTime| {
                    meta.modified()
                        .map_or(true, |m| m + Duration::from_secs(2) >= start)
                };
                if started.is_some_and(after) {
                    return None;
                }
                if !present.contains(&file) {
                    present.push(file);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => return None,
        }
    }
    Some(present)
}

/// The daemon's `$WATCHMAN_CONFIG_FILE` and start time, from `/proc`.
fn daemon_from_proc(pid: u64) -> Option<(Option<PathBuf>, SystemTime)> {
    let dir = PathBuf::from(format!("/proc/{pid}"));
    let environ = std::fs::read(dir.join("environ")).ok()?;
    let file = environ
        .split(|b| *b == 0)
        .find_map(|kv| kv.strip_prefix(b"WATCHMAN_CONFIG_FILE="))
        .map(|v| crate::platform::path_from_bytes(v).into_owned());
    // Field 22, `starttime`, in clock ticks after boot; fields 3 on come
    // after the command name's closing parenthesis.
    let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    let ticks: u64 = after_name.split_whitespace().nth(19)?.parse().ok()?;
    let boot: u64 = std::fs::read_to_string("/proc/stat")
        .ok()?
        .lines()
        .find_map(|line| line.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()?;
    let hz = crate::platform::clock_ticks_per_second();
    let since_boot =
        Duration::from_secs(ticks / hz) + Duration::from_nanos((ticks % hz) * 1_000_000_000 / hz);
    Some((
        file,
        SystemTime::UNIX_EPOCH + Duration::from_secs(boot) + since_boot,
    ))
}

/// Every directory watchman does not report on, relative to the watch
/// root: `ignore_dirs` and `ignore_vcs` of the root's configuration (as
/// `get-config` gives it) and of each global configuration file, and
/// watchman's default `ignore_vcs` when none sets it. `None` when a
/// configuration cannot be read or has an unexpected shape.
fn ignored(root_config: Option<&Value>, globals: &[PathBuf]) -> Option<Vec<String>> {
    let mut configs = vec![root_config.cloned().unwrap_or_else(|| json!({}))];
    for file in globals {
        match std::fs::read(file) {
            Ok(bytes) => configs.push(serde_json::from_slice(&bytes).ok()?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => return None,
        }
    }
    let mut out = Vec::new();
    let mut vcs_set = false;
    for config in &configs {
        let config = config.as_object()?;
        for key in ["ignore_dirs", "ignore_vcs"] {
            let Some(list) = config.get(key) else {
                continue;
            };
            vcs_set |= key == "ignore_vcs";
            for dir in list.as_array()? {
                out.push(dir.as_str()?.trim_end_matches('/').to_owned());
            }
        }
    }
    if !vcs_set {
        out.extend([".git", ".hg", ".svn"].map(str::to_owned));
    }
    Some(out)
}

/// Whether the directory `dir` (relative to the watch root) is at, above
/// or below a source (relative to the work tree, which is `relative` below
/// the watch root). A form watchman might read otherwise than as a plain
/// relative path (absolute, `.` or `..` or empty components) is taken to
/// overlap.
fn overlaps_sources(dir: &str, relative: &str, sources: &[String]) -> bool {
    if dir.starts_with('/')
        || dir
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return true;
    }
    let under = |path: &str, dir: &str| {
        path.strip_prefix(dir)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    let dir = if dir.is_empty() {
        // The watch root itself.
        return true;
    } else if relative.is_empty() {
        dir
    } else if under(relative, dir) {
        // The work tree itself is ignored, or lies below what is.
        return true;
    } else {
        match dir.strip_prefix(relative).and_then(|d| d.strip_prefix('/')) {
            Some(inside) => inside,
            None => return false,
        }
    };
    sources.iter().any(|source| {
        let source = source.trim_end_matches('/');
        under(source, dir) || under(dir, source)
    })
}

/// Only the sources: each a directory and what is below it, or a file.
/// (Touched paths outside them are always stat-ed.) `None`, everything,
/// when there is no source.
fn expression(sources: &[String]) -> Option<Value> {
    if sources.is_empty() {
        return None;
    }
    let mut terms = vec![json!("anyof")];
    for source in sources {
        let source = source.trim_end_matches('/');
        terms.push(json!(["dirname", source]));
        terms.push(json!(["name", source, "wholename"]));
    }
    Some(Value::Array(terms))
}

/// One connection to the daemon, JSON one line each way.
struct Client {
    writer: LocalStream,
    reader: BufReader<LocalStream>,
}

impl Client {
    fn connect(cache_dir: &Path) -> Option<Client> {
        let stream = match std::env::var_os("WATCHMAN_SOCK") {
            Some(socket) => connect_local(socket).ok()?,
            None => {
                let remembered = cache_dir.join("watchman-socket");
                let known = crate::fsutil::read_file(&remembered, crate::fsutil::Kind::CACHE)
                    .ok()
                    .flatten()
                    .and_then(|bytes| String::from_utf8(bytes).ok());
                match known.and_then(|path| connect_local(path.trim_end()).ok()) {
                    Some(stream) => stream,
                    None => {
                        let socket = sockname()?;
                        let stream = connect_local(&socket).ok()?;
                        let _ = std::fs::create_dir_all(cache_dir);
                        let _ = crate::fsutil::write_atomic(
                            &remembered,
                            socket.as_os_str().as_encoded_bytes(),
                            None,
                        );
                        stream
                    }
                }
            }
        };
        stream.set_read_timeout(Some(TIMEOUT)).ok()?;
        stream.set_write_timeout(Some(TIMEOUT)).ok()?;
        let reader = BufReader::new(stream.try_clone().ok()?);
        Some(Client {
            writer: stream,
            reader,
        })
    }

    /// Send one command and read its answer; `None` on any error, when
    /// watchman answers with one, or when no answer of at most
    /// [`MAX_ANSWER`] bytes comes within [`TIMEOUT`] of asking.
    fn call(&mut self, command: &Value) -> Option<Value> {
        use std::io::Read;
        let deadline = Instant::now() + TIMEOUT;
        let mut line = serde_json::to_vec(command).ok()?;
        line.push(b'\n');
        self.writer.write_all(&line).ok()?;
        loop {
            if Instant::now() > deadline {
                TIMED_OUT.fetch_add(1, Ordering::Relaxed);
                return None;
            }
            let mut answer = Vec::new();
            if let Err(e) = (&mut self.reader)
                .take(MAX_ANSWER)
                .read_until(b'\n', &mut answer)
            {
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) {
                    TIMED_OUT.fetch_add(1, Ordering::Relaxed);
                }
                return None;
            }
            if answer.last() != Some(&b'\n') {
                // The connection closed, or the line did not end in time.
                return None;
            }
            let answer: Value = serde_json::from_slice(&answer).ok()?;
            // Unilateral messages (logs, subscriptions) are not the answer.
            if answer.get("unilateral").and_then(Value::as_bool) == Some(true)
                || answer.get("log").is_some()
            {
                continue;
            }
            if answer.get("error").is_some() {
                return None;
            }
            return Some(answer);
        }
    }
}

/// How many calls to watchman in this process waited out [`TIMEOUT`].
static TIMED_OUT: AtomicU64 = AtomicU64::new(0);

/// How many calls to watchman in this process so far gave up waiting for
/// an answer after [`TIMEOUT`]: what a slow or silent daemon cost, counted
/// rather than timed (tests/integration/fsmonitor.rs).
pub fn timeouts() -> u64 {
    TIMED_OUT.load(Ordering::Relaxed)
}

/// `watchman get-sockname`, which starts the daemon when none runs; `None`
/// when there is no `watchman`, it fails, or it takes longer than
/// [`SPAWN_TIMEOUT`].
fn sockname() -> Option<PathBuf> {
    let mut child = Command::new("watchman")
        .args(["--no-pretty", "get-sockname"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + SPAWN_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let output = child.wait_with_output().ok()?;
    if !output.status.success() {
        return None;
    }
    let answer: Value = serde_json::from_slice(&output.stdout).ok()?;
    Some(PathBuf::from(answer.get("sockname")?.as_str()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(names: &[&str]) -> Changed {
        Changed {
            names: names.iter().map(|n| n.as_bytes().to_vec()).collect(),
            scope: vec![b"src".to_vec(), b"docs".to_vec(), b"Cargo.toml".to_vec()],
        }
    }

    #[test]
    fn nothing_named_or_above_and_inside_the_sources() {
        let c = changed(&["src/a", "docs"]);
        assert!(!c.vouches(b"src/a"));
        assert!(!c.vouches(b"src/a/b.rs"));
        assert!(!c.vouches(b"docs/x/y.md"));
        assert!(c.vouches(b"src/ab"));
        assert!(c.vouches(b"src/b.rs"));
        assert!(c.vouches(b"src"));
        assert!(c.vouches(b"Cargo.toml"));
        // Outside the sources watchman was not asked.
        assert!(!c.vouches(b"README.md"));
        assert!(!c.vouches(b"srcx/a.rs"));
        assert!(!c.vouches(b"Cargo.toml.orig"));
        assert!(changed(&[]).vouches(b"src/a"));
        assert!(!changed(&[]).vouches(b"lib/a"));
    }

    #[test]
    fn ignored_directories_come_from_every_configuration() {
        let none = ignored(Some(&json!({})), &[]).unwrap();
        assert_eq!(none, [".git", ".hg", ".svn"]);
        let root = json!({"ignore_dirs": ["gen/", "build"], "ignore_vcs": [".git"]});
        assert_eq!(ignored(Some(&root), &[]).unwrap(), ["gen", "build", ".git"]);
        let dir = tempfile::tempdir().unwrap();
        let global = dir.path().join("watchman.json");
        std::fs::write(&global, r#"{"ignore_dirs": ["vendor"]}"#).unwrap();
        let both = ignored(Some(&json!({})), std::slice::from_ref(&global)).unwrap();
        assert_eq!(both, ["vendor", ".git", ".hg", ".svn"]);
        // Unreadable or odd: cannot say.
        std::fs::write(&global, "{not json").unwrap();
        assert_eq!(ignored(None, std::slice::from_ref(&global)), None);
        assert_eq!(ignored(Some(&json!({"ignore_dirs": "gen"})), &[]), None);
        assert_eq!(ignored(Some(&json!({"ignore_dirs": [1]})), &[]), None);
    }

    #[test]
    fn an_ignored_directory_at_above_or_below_a_source() {
        let sources = ["src/".to_owned(), "Cargo.toml".to_owned()];
        for dir in ["src", "src/gen", "Cargo.toml"] {
            assert!(overlaps_sources(dir, "", &sources), "{dir}");
        }
        for dir in ["srcx", "docs", ".git", "Cargo"] {
            assert!(!overlaps_sources(dir, "", &sources), "{dir}");
        }
        // The work tree lies at `proj` below the watch root.
        assert!(overlaps_sources("proj/src/gen", "proj", &sources));
        assert!(overlaps_sources("proj", "proj", &sources));
        assert!(overlaps_sources("", "proj", &sources));
        assert!(!overlaps_sources("other/src", "proj", &sources));
        assert!(!overlaps_sources("proj/docs", "proj", &sources));
        // Forms watchman might read otherwise: taken to overlap.
        for odd in ["./docs", "docs//x", "/abs/docs", "docs/..", ""] {
            assert!(overlaps_sources(odd, "", &sources), "{odd}");
        }
        let nested = ["a/b".to_owned()];
        assert!(overlaps_sources("a", "", &nested));
        assert!(!overlaps_sources("a/c", "", &nested));
    }

    #[test]
    fn the_expression_names_the_sources() {
        let sources = vec!["src/".to_owned(), "Cargo.toml".to_owned()];
        assert_eq!(
            expression(&sources).unwrap(),
            json!([
                "anyof",
                ["dirname", "src"],
                ["name", "src", "wholename"],
                ["dirname", "Cargo.toml"],
                ["name", "Cargo.toml", "wholename"]
            ])
        );
        assert_eq!(expression(&[]), None);
    }
}
