//! The opt-in file-system monitor (`gate.fsmonitor = watchman`) against a
//! real watchman daemon, one per test with its own socket and state: a warm
//! run takes unchanged files on watchman's word, every kind of change is
//! still seen (the oracle is the same fingerprint without a monitor), and
//! anything watchman cannot vouch for — no daemon, a restarted one, a
//! clock from another run — means every file is stat-ed again.
//!
//! Needs `watchman` on the PATH. Without it each test says so on the
//! terminal (`skipped: …`, not captured by the test harness) before
//! building anything, and passes, unless `GATE_REQUIRE_WATCHMAN` is set, as
//! `.ci/run` (which installs watchman) does: there they fail.

use std::path::{Path, PathBuf};
use std::process::Command;

use gate::fingerprint::{Fingerprint, Inputs, Stats, fingerprint_with_stats};
use gate::git::Repo;
use gate::path::RepoPath;

use crate::support::{TestRepo, isolate};
use crate::this_test;

const MAX_ENTRIES: u64 = 20_000;
const MAX_BYTES: u64 = 128 * 1024 * 1024;
const SOURCES: &[&str] = &["src", "Cargo.toml"];
/// Where a test's daemon keeps its socket and state (below its scratch).
const DAEMON: &str = "watchman";

/// Whether test `test` runs here: `watchman` is probed first, before any
/// repository is built; without it the skip is written to the real
/// stderr (the harness captures only `print!`/`eprint!`) so `cargo test`
/// shows it, unless `GATE_REQUIRE_WATCHMAN` is set, which makes it a
/// failure. Then the test runs in its own child process.
fn runs(test: &str) -> bool {
    static FOUND: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    let found = FOUND.get_or_init(
        || match Command::new("watchman").arg("--version").output() {
            Ok(out) if out.status.success() => Ok(()),
            Ok(out) => Err(format!("`watchman --version` failed: {out:?}")),
            Err(e) => Err(format!("no watchman ({e})")),
        },
    );
    if let Err(why) = found {
        crate::support::skip(
            test,
            &format!("{why}; apt-get install watchman to run it"),
            Some("GATE_REQUIRE_WATCHMAN"),
        );
        return false;
    }
    isolate(test)
}

/// A watchman daemon of the test's own, found through `WATCHMAN_SOCK`;
/// shut down on drop. Only in an isolated child (it sets the variable).
struct Daemon {
    dir: PathBuf,
}

impl Daemon {
    /// Start one; `None` (the test then stops, passing) when there is no
    /// `watchman` and `GATE_REQUIRE_WATCHMAN` is unset.
    fn start(dir: &Path) -> Option<Daemon> {
        Daemon::start_with(dir, None)
    }

    /// [`start`](Self::start), the daemon reading its global configuration
    /// from `config` (`WATCHMAN_CONFIG_FILE` in its environment only).
    fn start_with(dir: &Path, config: Option<&Path>) -> Option<Daemon> {
        std::fs::create_dir_all(dir).expect("daemon dir");
        let daemon = Daemon {
            dir: dir.to_path_buf(),
        };
        let mut command = Command::new("watchman");
        command
            .args(daemon.args())
            .args(["--no-pretty", "get-sockname"]);
        if let Some(config) = config {
            command.env("WATCHMAN_CONFIG_FILE", config);
        }
        // A daemon of the same socket still shutting down, or a machine too
        // loaded for watchman's own spawn wait, fails one start: try again a
        // few times before calling it a failure (seen under a load of 12).
        let mut attempts = 0;
        let out = loop {
            let out = match command.output() {
                Ok(out) => out,
                Err(e)
                    if std::env::var_os("GATE_REQUIRE_WATCHMAN").is_none()
                        && !crate::support::full_suite() =>
                {
                    crate::support::skip(
                        "this watchman test",
                        &format!("no watchman ({e}); apt-get install watchman to run it"),
                        None,
                    );
                    return None;
                }
                Err(e) => {
                    panic!("watchman is needed for these tests (apt-get install watchman): {e}")
                }
            };
            attempts += 1;
            if out.status.success() || attempts == 5 {
                break out;
            }
            std::thread::sleep(std::time::Duration::from_millis(200 * attempts));
        };
        assert!(
            out.status.success(),
            "watchman did not start in {attempts} attempts: {out:?}"
        );
        // SAFETY: an isolated child runs this one test on one thread.
        unsafe { std::env::set_var("WATCHMAN_SOCK", daemon.socket()) };
        Some(daemon)
    }

    fn socket(&self) -> PathBuf {
        self.dir.join("sock")
    }

    fn args(&self) -> Vec<String> {
        let at = |name: &str| self.dir.join(name).display().to_string();
        vec![
            format!("--sockname={}", at("sock")),
            format!("--statefile={}", at("state")),
            format!("--logfile={}", at("log")),
            format!("--pidfile={}", at("pid")),
            "--no-save-state".to_owned(),
        ]
    }

    fn stop(&self) {
        // The daemon's pid, before it goes (its pid file may stay behind).
        let pid = std::fs::read_to_string(self.dir.join("pid"))
            .ok()
            .and_then(|text| text.trim().parse::<u32>().ok());
        let _ = Command::new("watchman")
            .args(self.args())
            .arg("shutdown-server")
            .output();
        // Wait for the daemon to exit (up to 10 s on a loaded machine) so a
        // restart binds the socket anew. Not by asking it: `watchman
        // --no-spawn version` answers from the client, daemon or not.
        let Some(pid) = pid else { return };
        for _ in 0..1000 {
            let alive = Command::new("kill")
                .args(["-0", &pid.to_string()])
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if !alive {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.stop();
    }
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

/// The fingerprint of `sources` and `touched` with the cache under `cache`.
fn fp_with(repo: &TestRepo, cache: &str, touched: &[&str]) -> (Fingerprint, Stats) {
    let sources = strings(SOURCES);
    let touched: Vec<RepoPath> = touched.iter().map(|p| RepoPath::from(*p)).collect();
    let inputs = Inputs {
        sources: &sources,
        touched: &touched,
        max_entries: MAX_ENTRIES,
        max_bytes: MAX_BYTES,
    };
    let gate = Repo::discover(repo.path()).expect("discover");
    fingerprint_with_stats(&gate, &inputs, &repo.scratch(cache)).expect("fingerprint")
}

/// Through the monitor, with the cache the monitored runs share.
fn monitored(repo: &TestRepo, touched: &[&str]) -> (Fingerprint, Stats) {
    fp_with(repo, "cache", touched)
}

/// A run that records, then the warm run after it.
fn warm(repo: &TestRepo, touched: &[&str]) -> (Fingerprint, Stats) {
    monitored(repo, touched);
    settle();
    monitored(repo, touched)
}

/// The oracle: no monitor, no cache (every file read).
fn oracle(repo: &TestRepo, touched: &[&str]) -> Fingerprint {
    repo.git(&["config", "gate.fsmonitor", "false"]);
    let oracle_cache = repo.scratch("oracle-cache");
    let _ = std::fs::remove_dir_all(&oracle_cache);
    let (fp, stats) = fp_with(repo, "oracle-cache", touched);
    assert_eq!(stats.from_cache, 0, "the oracle reads every file");
    repo.git(&["config", "gate.fsmonitor", "watchman"]);
    fp
}

/// Settled: every file's times strictly older than the next run's stamp.
fn settle() {
    crate::support::tick();
}

/// 300 files in 10 directories under `src/`, committed, monitor on.
fn project() -> TestRepo {
    let repo = TestRepo::new();
    repo.write(".gitignore", "*.log\n");
    for i in 0..300 {
        repo.write(&format!("src/d{}/f{i}.txt", i % 10), format!("file {i}\n"));
    }
    repo.write("Cargo.toml", "[package]\n");
    repo.write("README.md", "readme\n");
    repo.commit_all("initial");
    repo.git(&["config", "gate.fsmonitor", "watchman"]);
    repo
}

/// Cold, then warm: the first run stats and reads everything and keeps
/// watchman's clock and its answer; the second finds nothing changed and
/// gives that answer.
#[test]
fn a_warm_run_takes_unchanged_files_on_the_monitors_word() {
    if !runs(this_test!()) {
        return;
    }
    let repo = project();
    let Some(_daemon) = Daemon::start(&repo.scratch(DAEMON)) else {
        return;
    };
    let (cold, stats) = monitored(&repo, &[]);
    assert_eq!((stats.hashed, stats.from_monitor), (301, 0));
    assert!(stats.cache_written);
    settle();
    let (warm, stats) = monitored(&repo, &[]);
    assert_eq!(warm, cold);
    assert_eq!(
        (stats.hashed, stats.from_cache, stats.from_monitor),
        (0, 301, 301)
    );
    assert!(stats.recorded, "{stats:?}");
    // Nothing changed: the record and its clock stay as they are.
    assert!(!stats.cache_written);
    assert_eq!(warm, oracle(&repo, &[]));
    // Asked ahead, by a prefetch, the answer is the same.
    let gate = Repo::discover(repo.path()).unwrap();
    let index = gate.read_index().unwrap();
    let cache = repo.scratch("cache");
    let sources = strings(SOURCES);
    let prefetch = gate::fingerprint::Prefetch::start(&gate, &cache, &[&sources]).unwrap();
    let inputs = Inputs {
        sources: &sources,
        touched: &[],
        max_entries: MAX_ENTRIES,
        max_bytes: MAX_BYTES,
    };
    let (ahead, stats) = gate::fingerprint::fingerprint_in(
        &gate,
        &index,
        &inputs,
        &cache,
        Some(&prefetch),
        gate::progress::Sink::stderr(),
    )
    .unwrap();
    assert_eq!(ahead, cold);
    assert_eq!((stats.hashed, stats.from_monitor), (0, 301));
    assert!(stats.recorded);
}

/// A change to make, named.
type Change<'a> = (&'static str, Box<dyn Fn() + 'a>);

/// A covered path that is missing (a tracked file deleted) is in the
/// answer, not counted as a file taken from the record.
#[test]
fn a_missing_path_is_covered_but_not_counted_as_a_file() {
    if !runs(this_test!()) {
        return;
    }
    let repo = project();
    repo.remove(b"src/d0/f0.txt");
    let Some(_daemon) = Daemon::start(&repo.scratch(DAEMON)) else {
        return;
    };
    let (fp, stats) = warm(&repo, &[]);
    assert!(stats.recorded);
    assert!(
        matches!(fp, Fingerprint::Available { entries: 301, .. }),
        "{fp:?}"
    );
    assert_eq!((stats.from_cache, stats.from_monitor), (300, 300));
    assert_eq!(fp, oracle(&repo, &[]));
}

/// A file with another name (a hard link, inside the sources or out) is
/// never taken on watchman's word: a write through the other name is
/// reported under that name only.
#[test]
fn a_file_with_hard_links_is_always_stat_ed() {
    if !runs(this_test!()) {
        return;
    }
    let repo = project();
    let path = |rel: &str| repo.path().join(rel);
    std::fs::hard_link(path("src/d1/f1.txt"), path("src/d1/link.txt")).unwrap();
    std::fs::hard_link(path("src/d2/f2.txt"), path("outside.txt")).unwrap();
    let Some(_daemon) = Daemon::start(&repo.scratch(DAEMON)) else {
        return;
    };
    let (before, stats) = warm(&repo, &[]);
    assert!(!stats.recorded);
    // 302 covered files, 3 of them with two names.
    assert_eq!((stats.hashed, stats.from_monitor), (0, 299));
    // Same size, mtime set back: only the link's name is reported.
    std::fs::write(path("src/d1/link.txt"), "FILE 1\n").unwrap();
    touch_back(&repo, "src/d1/link.txt");
    std::fs::write(path("outside.txt"), "FILE 2\n").unwrap();
    touch_back(&repo, "outside.txt");
    let (after, stats) = monitored(&repo, &[]);
    assert_ne!(after, before);
    assert_eq!(after, oracle(&repo, &[]));
    assert_eq!(stats.hashed, 3, "{stats:?}");
}

/// The daemon's own global configuration (`WATCHMAN_CONFIG_FILE` in its
/// environment, not in gate's) ignores a directory below a source; and
/// once that file changes after the daemon started, watchman's word is not
/// taken at all (the daemon read it only then).
#[test]
fn the_daemons_global_configuration_is_the_one_read() {
    if !runs(this_test!()) {
        return;
    }
    let repo = project();
    let config = repo.scratch("watchman.json");
    std::fs::write(&config, r#"{"ignore_dirs": ["src/d9"]}"#).unwrap();
    // Its mtime well before the daemon starts.
    touch_back_abs(&config);
    let Some(daemon) = Daemon::start_with(&repo.scratch(DAEMON), Some(&config)) else {
        return;
    };
    let (_, stats) = warm(&repo, &[]);
    assert_eq!((stats.hashed, stats.from_monitor), (0, 0), "{stats:?}");
    daemon.stop();

    std::fs::write(&config, "{}").unwrap();
    touch_back_abs(&config);
    let Some(daemon) = Daemon::start_with(&repo.scratch(DAEMON), Some(&config)) else {
        return;
    };
    assert!(warm(&repo, &[]).1.recorded, "nothing ignored: warm");
    // Edited after the daemon read it: what it holds is unknown.
    std::fs::write(&config, r#"{"ignore_dirs": []}"#).unwrap();
    let (_, stats) = monitored(&repo, &[]);
    assert!(!stats.recorded);
    assert_eq!(stats.from_monitor, 0, "{stats:?}");
    drop(daemon);
}

/// A hard link made after the record, between two source directories:
/// watchman names the new name only; the old name's record says one link,
/// so the new name's link count sends the old one to be stat-ed.
#[test]
fn a_hard_link_made_after_the_record_is_seen() {
    if !runs(this_test!()) {
        return;
    }
    let repo = project();
    let path = |rel: &str| repo.path().join(rel);
    let Some(_daemon) = Daemon::start(&repo.scratch(DAEMON)) else {
        return;
    };
    assert!(warm(&repo, &[]).1.recorded);
    std::fs::hard_link(path("src/d1/f1.txt"), path("src/d2/link.txt")).unwrap();
    let (linked, _) = monitored(&repo, &[]);
    assert_eq!(linked, oracle(&repo, &[]));
    settle();
    // Written through the new name only, same size, mtime set back.
    std::fs::write(path("src/d2/link.txt"), "FILE 1\n").unwrap();
    touch_back(&repo, "src/d2/link.txt");
    let (after, _) = monitored(&repo, &[]);
    assert_ne!(after, linked);
    assert_eq!(after, oracle(&repo, &[]));
}

/// A directory watchman is configured to ignore (`.watchmanconfig`
/// `ignore_dirs`, here below a source) is never reported on: nothing is
/// taken on watchman's word.
#[test]
fn a_source_watchman_ignores_is_always_stat_ed() {
    if !runs(this_test!()) {
        return;
    }
    let repo = project();
    repo.write(".watchmanconfig", r#"{"ignore_dirs": ["src/d9"]}"#);
    let Some(_daemon) = Daemon::start(&repo.scratch(DAEMON)) else {
        return;
    };
    let (before, stats) = warm(&repo, &[]);
    assert!(!stats.recorded);
    assert_eq!((stats.hashed, stats.from_monitor), (0, 0), "{stats:?}");
    repo.write("src/d9/f9.txt", "FILE 9\n");
    touch_back(&repo, "src/d9/f9.txt");
    let (after, stats) = monitored(&repo, &[]);
    assert_ne!(after, before);
    assert_eq!(after, oracle(&repo, &[]));
    assert_eq!(stats.hashed, 1);
}

/// A changed name that is not UTF-8 (watchman 4.9 then sends no answer):
/// one timeout, every file stat-ed, the right fingerprint; the run after
/// takes a new clock, and the one after that is warm again.
#[test]
fn a_name_watchman_cannot_encode_costs_one_timeout() {
    if !runs(this_test!()) {
        return;
    }
    let repo = project();
    let Some(_daemon) = Daemon::start(&repo.scratch(DAEMON)) else {
        return;
    };
    assert!(warm(&repo, &[]).1.recorded);
    repo.write_at(b"src/d1/bad\xff.txt", "not utf-8\n");
    let waited = gate::fingerprint::monitor_timeouts();
    let (fp, stats) = monitored(&repo, &[]);
    assert_eq!(
        gate::fingerprint::monitor_timeouts() - waited,
        1,
        "one timeout"
    );
    assert_eq!(stats.from_monitor, 0);
    assert_eq!(fp, oracle(&repo, &[]));
    settle();
    assert_eq!(monitored(&repo, &[]).1.from_monitor, 0, "a new clock first");
    settle();
    let (again, stats) = monitored(&repo, &[]);
    assert!(stats.from_monitor > 0, "{stats:?}");
    assert_eq!(again, fp);
}

/// Every kind of change, each after a warm run: the monitored fingerprint
/// is the oracle's, and only what watchman named is stat-ed again.
#[test]
fn every_change_is_seen_through_the_monitor() {
    if !runs(this_test!()) {
        return;
    }
    let repo = project();
    let Some(_daemon) = Daemon::start(&repo.scratch(DAEMON)) else {
        return;
    };
    monitored(&repo, &[]);
    settle();
    let changes: Vec<Change> = vec![
        (
            "same-size edit, mtime set back",
            Box::new(|| {
                repo.write("src/d3/f3.txt", "FILE 3\n");
                touch_back(&repo, "src/d3/f3.txt");
            }),
        ),
        (
            "new untracked file",
            Box::new(|| repo.write("src/d4/new.txt", "new\n")),
        ),
        (
            "new ignored file",
            Box::new(|| repo.write("src/d4/x.log", "ignored\n")),
        ),
        ("deleted file", Box::new(|| repo.remove(b"src/d5/f5.txt"))),
        (
            "executable bit",
            Box::new(|| {
                let path = repo.path().join("src/d6/f6.txt");
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            }),
        ),
        (
            "directory renamed",
            Box::new(|| {
                std::fs::rename(repo.path().join("src/d7"), repo.path().join("src/d7b")).unwrap()
            }),
        ),
        (
            "file replaced by a directory",
            Box::new(|| {
                repo.remove(b"src/d8/f8.txt");
                repo.write("src/d8/f8.txt/inner.txt", "inner\n");
            }),
        ),
        (
            "explicit source file edited",
            Box::new(|| repo.write("Cargo.toml", "[package]\nname = \"x\"\n")),
        ),
        (
            "file edited and restored",
            Box::new(|| {
                repo.write("src/d9/f9.txt", "other\n");
                repo.write("src/d9/f9.txt", "file 9\n");
            }),
        ),
    ];
    for (what, change) in changes {
        let (before, _) = monitored(&repo, &[]);
        settle();
        change();
        let (after, stats) = monitored(&repo, &[]);
        assert_eq!(
            after,
            oracle(&repo, &[]),
            "{what}: the monitored fingerprint is wrong"
        );
        // An ignored file is not covered; a restored one is as it was.
        if what == "new ignored file" || what == "file edited and restored" {
            assert_eq!(after, before, "{what}: the digest moved");
        } else {
            assert_ne!(after, before, "{what}: not seen");
        }
        // A directory whose list of names changed is named too, and, as
        // git does with watchman's answers, everything below a named
        // directory is stat-ed again: renaming `src/d7` names `src`.
        let vouched = if what == "directory renamed" { 1 } else { 250 };
        assert!(
            stats.from_monitor >= vouched,
            "{what}: the rest was not taken on the monitor's word ({stats:?})"
        );
        assert!(!stats.recorded, "{what}: the recorded answer was given");
        settle();
    }
}

/// A touched path outside the sources is covered like a source file, and
/// always stat-ed: watchman is asked about the sources only.
#[test]
fn a_touched_file_outside_the_sources_is_watched() {
    if !runs(this_test!()) {
        return;
    }
    let repo = project();
    let Some(_daemon) = Daemon::start(&repo.scratch(DAEMON)) else {
        return;
    };
    let touched = ["README.md"];
    let (warm, stats) = warm(&repo, &touched);
    assert!(stats.recorded);
    repo.write("README.md", "README\n");
    touch_back(&repo, "README.md");
    let (after, stats) = monitored(&repo, &touched);
    assert_ne!(after, warm);
    assert_eq!(after, oracle(&repo, &touched));
    assert_eq!((stats.hashed, stats.from_monitor), (1, 301));
    assert!(!stats.recorded);
}

/// A warm run, then `change`, then the recorded answer must not be given
/// and the fingerprint is the oracle's; the run after that gives the
/// answer again.
fn answer_after(
    repo: &TestRepo,
    touched: &[&str],
    change: impl FnOnce(),
) -> (Fingerprint, Fingerprint) {
    let (before, stats) = warm(repo, touched);
    assert!(stats.recorded, "not warm: {stats:?}");
    change();
    let (after, stats) = monitored(repo, touched);
    assert!(!stats.recorded, "the recorded answer outlived the change");
    assert_eq!(after, oracle(repo, touched));
    settle();
    let (again, stats) = warm(repo, touched);
    assert!(
        stats.recorded,
        "the answer is not recorded again: {stats:?}"
    );
    assert_eq!(again, after);
    (before, after)
}

/// What the recorded answer depends on outside the sources, where watchman
/// is not asked: the index, ignore rules, the touched paths and what is
/// above them. Each change makes a run take the fingerprint again.
#[test]
fn the_recorded_answer_holds_only_while_what_it_depends_on_does() {
    if !runs(this_test!()) {
        return;
    }
    let repo = project();
    repo.write("src/d1/kept.log", "ignored, then not\n");
    repo.write("src/d2/untracked.txt", "untracked, then excluded\n");
    repo.write("docs/x.md", "touched\n");
    let Some(_daemon) = Daemon::start(&repo.scratch(DAEMON)) else {
        return;
    };

    // The index changes outside the sources: same fingerprint, new key.
    let (before, after) = answer_after(&repo, &[], || {
        repo.write("README.md", "staged\n");
        repo.git(&["add", "README.md"]);
    });
    assert_eq!(before, after);

    // A rule outside the sources un-ignores a file below them.
    let (before, after) = answer_after(&repo, &[], || repo.write(".gitignore", "*.tmp\n"));
    assert_ne!(before, after);

    // `info/exclude` ignores an untracked file below them.
    let (before, after) = answer_after(&repo, &[], || {
        let exclude = repo.path().join(".git/info/exclude");
        std::fs::create_dir_all(exclude.parent().unwrap()).unwrap();
        std::fs::write(exclude, "src/d2/untracked.txt\n").unwrap();
    });
    assert_ne!(before, after);

    // A touched path outside the sources is edited (its stat moves).
    let (before, after) = answer_after(&repo, &["docs/x.md"], || {
        repo.write("docs/x.md", "TOUCHED\n");
    });
    assert_ne!(before, after);

    // Another set of touched paths is another key.
    assert!(warm(&repo, &["docs/x.md"]).1.recorded);
    let (other, stats) = monitored(&repo, &["README.md"]);
    assert!(!stats.recorded);
    assert_eq!(other, oracle(&repo, &["README.md"]));
}

/// A change outside the sources that the untracked cache depends on (a new
/// file at the root, whose directory the walk looks at) but that leaves the
/// untracked files the same: one walk shows it, and the answer holds.
#[test]
fn a_walk_that_finds_the_same_untracked_files_keeps_the_answer() {
    if !runs(this_test!()) {
        return;
    }
    let repo = project();
    let Some(_daemon) = Daemon::start(&repo.scratch(DAEMON)) else {
        return;
    };
    let (before, stats) = warm(&repo, &[]);
    assert!(stats.recorded && stats.untracked_from_cache, "{stats:?}");
    repo.write("NOTES.txt", "outside the sources\n");
    let (after, stats) = monitored(&repo, &[]);
    assert!(stats.recorded, "{stats:?}");
    assert!(!stats.untracked_from_cache, "the walk was taken again");
    assert_eq!(after, before);
    assert_eq!(after, oracle(&repo, &[]));
}

/// A touched path outside the sources whose directory became a symlink
/// (its own stat unchanged, seen through the link): unavailable, as
/// without a monitor.
#[test]
fn a_symlink_above_a_touched_path_is_seen() {
    if !runs(this_test!()) {
        return;
    }
    let repo = project();
    // Deeper than the root, whose directory the untracked walk watches.
    repo.write("docs/deep/x.md", "touched\n");
    let Some(_daemon) = Daemon::start(&repo.scratch(DAEMON)) else {
        return;
    };
    let touched = ["docs/deep/x.md"];
    assert!(warm(&repo, &touched).1.recorded);
    let docs = repo.path().join("docs");
    std::fs::rename(docs.join("deep"), docs.join("deep.real")).unwrap();
    std::os::unix::fs::symlink("deep.real", docs.join("deep")).unwrap();
    let (fp, stats) = monitored(&repo, &touched);
    assert!(!stats.recorded);
    assert!(
        matches!(
            &fp,
            Fingerprint::Unavailable {
                reason: gate::fingerprint::Unavailable::Symlink,
                ..
            }
        ),
        "{fp:?}"
    );
    assert_eq!(fp, oracle(&repo, &touched));
}

/// Lower limits than the answer's: the limit is the answer, as without
/// a monitor.
#[test]
fn lower_limits_are_not_answered_from_the_record() {
    if !runs(this_test!()) {
        return;
    }
    let repo = project();
    let Some(_daemon) = Daemon::start(&repo.scratch(DAEMON)) else {
        return;
    };
    assert!(warm(&repo, &[]).1.recorded);
    let sources = strings(SOURCES);
    let gate = Repo::discover(repo.path()).unwrap();
    for (max_entries, max_bytes) in [(300, MAX_BYTES), (MAX_ENTRIES, 1000)] {
        let inputs = Inputs {
            sources: &sources,
            touched: &[],
            max_entries,
            max_bytes,
        };
        let (fp, stats) = fingerprint_with_stats(&gate, &inputs, &repo.scratch("cache")).unwrap();
        assert!(!stats.recorded);
        assert!(
            matches!(fp, Fingerprint::Unavailable { path: None, .. }),
            "{fp:?}"
        );
    }
}

/// The mtime of `rel` set back to 2020 (the ctime still moves).
fn touch_back(repo: &TestRepo, rel: &str) {
    touch_back_abs(&repo.path().join(rel));
}

fn touch_back_abs(path: &Path) {
    let status = Command::new("touch")
        .args(["-d", "2020-01-01 00:00:00"])
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

/// No daemon, a restarted daemon (a fresh instance: its clock cannot
/// answer for the old one's), or a record without a clock: every file is
/// stat-ed, and a change made meanwhile is seen.
#[test]
fn what_watchman_cannot_vouch_for_is_stat_ed() {
    if !runs(this_test!()) {
        return;
    }
    let repo = project();
    let Some(daemon) = Daemon::start(&repo.scratch(DAEMON)) else {
        return;
    };
    assert_eq!(warm(&repo, &[]).1.from_monitor, 301);

    // Down: the record serves as a stat cache; the clock is dropped.
    daemon.stop();
    repo.write("src/d1/f1.txt", "edited while down\n");
    settle();
    let (fp, stats) = monitored(&repo, &[]);
    assert_eq!(fp, oracle(&repo, &[]));
    assert_eq!(
        (stats.hashed, stats.from_cache, stats.from_monitor),
        (1, 300, 0)
    );
    settle();
    // Still down, nothing changed: nothing to write.
    let (again, stats) = monitored(&repo, &[]);
    assert_eq!(again, fp);
    assert_eq!((stats.hashed, stats.from_cache), (0, 301));
    assert!(!stats.cache_written, "the record was rewritten as it was");

    // Back, a new instance: the record has no clock, so one is taken now.
    let daemon = Daemon::start(&repo.scratch(DAEMON)).expect("watchman ran a moment ago");
    settle();
    let (_, stats) = monitored(&repo, &[]);
    assert_eq!(stats.from_monitor, 0);
    assert!(stats.cache_written, "the new clock is kept");
    settle();
    assert_eq!(monitored(&repo, &[]).1.from_monitor, 301);

    // Restarted between two runs: the kept clock is of another instance.
    daemon.stop();
    let _daemon = Daemon::start(&repo.scratch(DAEMON)).expect("watchman ran a moment ago");
    repo.write("src/d2/f2.txt", "edited across a restart\n");
    touch_back(&repo, "src/d2/f2.txt");
    let (fp, stats) = monitored(&repo, &[]);
    assert_eq!(
        stats.from_monitor, 0,
        "a fresh instance vouches for nothing"
    );
    assert_eq!(fp, oracle(&repo, &[]));
}

/// Without `WATCHMAN_SOCK`, `watchman get-sockname` finds the daemon once
/// and its answer is kept for the next runs.
#[test]
fn the_socket_is_found_once_and_kept() {
    if !runs(this_test!()) {
        return;
    }
    let repo = project();
    let Some(daemon) = Daemon::start(&repo.scratch(DAEMON)) else {
        return;
    };
    // SAFETY: an isolated child runs this one test on one thread.
    unsafe { std::env::remove_var("WATCHMAN_SOCK") };
    // A `watchman` on the PATH that talks to the test's daemon.
    let bin = repo.scratch("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let real = String::from_utf8(
        Command::new("sh")
            .args(["-c", "command -v watchman"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let shim = bin.join("watchman");
    std::fs::write(
        &shim,
        format!(
            "#!/bin/sh\necho run >> '{}'\nexec '{}' {} \"$@\"\n",
            repo.scratch("shim-runs").display(),
            real.trim(),
            daemon.args().join(" ")
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    // SAFETY: as above.
    unsafe { std::env::set_var("PATH", path) };

    assert_eq!(warm(&repo, &[]).1.from_monitor, 301);
    let runs = std::fs::read_to_string(repo.scratch("shim-runs")).unwrap();
    assert_eq!(runs.lines().count(), 1, "asked once, then remembered");
    let kept = std::fs::read_to_string(repo.scratch("cache").join("watchman-socket")).unwrap();
    assert_eq!(Path::new(&kept), daemon.socket());
}

/// A value gate does not know is an error naming the key, not a silent
/// fallback.
#[test]
fn an_unknown_setting_is_an_error_naming_the_key() {
    if !runs(this_test!()) {
        return;
    }
    let repo = project();
    repo.git(&["config", "gate.fsmonitor", "inotify"]);
    let sources = strings(SOURCES);
    let inputs = Inputs {
        sources: &sources,
        touched: &[],
        max_entries: MAX_ENTRIES,
        max_bytes: MAX_BYTES,
    };
    let gate = Repo::discover(repo.path()).unwrap();
    let err = fingerprint_with_stats(&gate, &inputs, &repo.scratch("cache")).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("gate.fsmonitor") && message.contains("inotify"),
        "{message}"
    );
}
