//! The source fingerprint on real repositories: what moves the digest and
//! what does not, every reason it is unavailable, the stat cache, the
//! touched paths, and the git layer's file listings against the git CLI.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use gate::fingerprint::{
    Fingerprint, Inputs, Stats, Unavailable, fingerprint, fingerprint_with_stats, touched_paths,
};
use gate::git::{EntryKind, Oid, Repo, UntrackedKind};
use gate::path::RepoPath;

use crate::support::{TestRepo, isolate, nul_fields};
use crate::this_test;

const MAX_ENTRIES: u64 = 20_000;
const MAX_BYTES: u64 = 128 * 1024 * 1024;

fn open(repo: &TestRepo) -> Repo {
    Repo::discover(repo.path()).expect("discover the test repository")
}

fn cache_dir(repo: &TestRepo) -> PathBuf {
    repo.scratch("cache")
}

fn paths(list: &[&str]) -> Vec<RepoPath> {
    list.iter().map(|p| RepoPath::from(*p)).collect()
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

/// The fingerprint with default limits.
fn fp(repo: &TestRepo, sources: &[&str], touched: &[&str]) -> Fingerprint {
    fp_stats(repo, sources, touched).0
}

fn fp_stats(repo: &TestRepo, sources: &[&str], touched: &[&str]) -> (Fingerprint, Stats) {
    let sources = strings(sources);
    let touched = paths(touched);
    let inputs = Inputs {
        sources: &sources,
        touched: &touched,
        max_entries: MAX_ENTRIES,
        max_bytes: MAX_BYTES,
    };
    fingerprint_with_stats(&open(repo), &inputs, &cache_dir(repo)).expect("fingerprint")
}

/// The digest, or a panic naming why there is none.
fn digest(repo: &TestRepo, sources: &[&str], touched: &[&str]) -> String {
    match fp(repo, sources, touched) {
        Fingerprint::Available { digest, .. } => digest,
        other => panic!("expected a digest, got {other:?}"),
    }
}

/// The reason and path of an unavailable fingerprint, computed on another
/// thread with a deadline so that a hang fails the test instead of stalling it.
fn unavailable(repo: &TestRepo, sources: &[&str], touched: &[&str]) -> (Unavailable, String) {
    let (tx, rx) = mpsc::channel();
    let root = repo.path().to_path_buf();
    let cache = cache_dir(repo);
    let sources = strings(sources);
    let touched = paths(touched);
    std::thread::spawn(move || {
        let inputs = Inputs {
            sources: &sources,
            touched: &touched,
            max_entries: MAX_ENTRIES,
            max_bytes: MAX_BYTES,
        };
        let repo = Repo::discover(&root).expect("discover");
        let _ = tx.send(fingerprint(&repo, &inputs, &cache).expect("fingerprint"));
    });
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(Fingerprint::Unavailable { reason, path }) => {
            (reason, path.map(|p| p.lossy()).unwrap_or_default())
        }
        Ok(other) => panic!("expected unavailable, got {other:?}"),
        Err(_) => panic!("the fingerprint hung"),
    }
}

/// Files written just now share the clock tick of the first fingerprint
/// and are not cached ("racy"); waiting lets the cache take them.
fn settle() {
    crate::support::tick();
}

/// A repository with `src/` (tracked, one ignored file, one untracked),
/// `docs/`, a root file and an ignored `local.env`.
fn project() -> TestRepo {
    let repo = TestRepo::new();
    repo.write(".gitignore", "*.log\nlocal.env\ntarget/\n");
    repo.write("src/main.rs", "fn main() {}\n");
    repo.write("src/lib/mod.rs", "pub mod a;\n");
    repo.write("src/lib/a.rs", "pub fn a() {}\n");
    repo.write("docs/guide.md", "# Guide\n");
    repo.write("README.md", "readme\n");
    repo.write(".gate/plan.yaml", "version: 1\n");
    repo.commit_all("initial");
    repo.write("src/debug.log", "ignored\n");
    repo.write("src/new.rs", "// untracked\n");
    repo.write("local.env", "SECRET=1\n");
    repo
}

const SOURCES: &[&str] = &["src", "Cargo.toml", "local.env"];

#[test]
fn stable_and_independent_of_listing_order() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    let a = digest(&repo, SOURCES, &["README.md", "docs/guide.md"]);
    let b = digest(&repo, SOURCES, &["README.md", "docs/guide.md"]);
    assert_eq!(a, b);
    let c = digest(
        &repo,
        &["local.env", "Cargo.toml", "src/"],
        &["docs/guide.md", "README.md", "README.md"],
    );
    assert_eq!(a, c);
    // Overlapping entries count once.
    let d = digest(
        &repo,
        &["src", "src/lib", "src/main.rs", "Cargo.toml", "local.env"],
        &["README.md", "docs/guide.md", "src/main.rs"],
    );
    assert_eq!(a, d);
    match fp(&repo, SOURCES, &["README.md", "docs/guide.md"]) {
        Fingerprint::Available { entries, bytes, .. } => {
            // src: main.rs, lib/mod.rs, lib/a.rs, new.rs; Cargo.toml
            // (missing); local.env; README.md; docs/guide.md.
            assert_eq!(entries, 8);
            let expected = ["fn main() {}\n", "pub mod a;\n", "pub fn a() {}\n"]
                .iter()
                .chain(&["// untracked\n", "SECRET=1\n", "readme\n", "# Guide\n"])
                .map(|s| s.len() as u64)
                .sum::<u64>();
            assert_eq!(bytes, expected);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_digest_follows_the_documented_encoding() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = TestRepo::new();
    repo.write("s/a", "A");
    repo.write("s/b", "B");
    repo.chmod(b"s/b", true);
    repo.commit_all("c");
    let sha = |b: &[u8]| {
        use sha2::{Digest, Sha256};
        Sha256::digest(b).to_vec()
    };
    let mut stream = b"gate-source-fingerprint-v1\0".to_vec();
    for (path, kind, content) in [
        ("m", b'm', None),
        ("s/a", b'f', Some("A")),
        ("s/b", b'x', Some("B")),
    ] {
        stream.extend_from_slice(&(path.len() as u32).to_be_bytes());
        stream.extend_from_slice(path.as_bytes());
        stream.push(kind);
        if let Some(content) = content {
            stream.extend_from_slice(&sha(content.as_bytes()));
        }
    }
    assert_eq!(
        digest(&repo, &["s", "m"], &[]),
        gate::digest::sha256_hex(&stream)
    );
}

/// Assert that `change` moves the digest of `SOURCES` + `touched`.
fn assert_moves(repo: &TestRepo, touched: &[&str], what: &str, change: impl FnOnce()) {
    let before = digest(repo, SOURCES, touched);
    change();
    let after = digest(repo, SOURCES, touched);
    assert_ne!(before, after, "{what} did not move the digest");
    // And the cache agrees with a cold run.
    std::fs::remove_dir_all(cache_dir(repo)).ok();
    assert_eq!(after, digest(repo, SOURCES, touched), "{what}: warm ≠ cold");
}

fn assert_stays(repo: &TestRepo, touched: &[&str], what: &str, change: impl FnOnce()) {
    let before = digest(repo, SOURCES, touched);
    change();
    assert_eq!(
        before,
        digest(repo, SOURCES, touched),
        "{what} moved the digest"
    );
}

#[test]
fn real_changes_move_the_digest() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    let t = &["README.md"];
    assert_moves(&repo, t, "a content edit", || {
        repo.write("src/main.rs", "fn main() { run() }\n")
    });
    assert_moves(&repo, t, "a chmod +x", || repo.chmod(b"src/main.rs", true));
    assert_moves(&repo, t, "a chmod -x", || repo.chmod(b"src/main.rs", false));
    assert_moves(
        &repo,
        t,
        "a new untracked file in a source directory",
        || repo.write("src/lib/b.rs", "// b\n"),
    );
    assert_moves(
        &repo,
        t,
        "a new untracked directory in a source directory",
        || repo.write("src/more/deep/c.rs", "// c\n"),
    );
    assert_moves(&repo, t, "deleting a tracked file", || {
        repo.remove(b"src/lib/a.rs")
    });
    assert_moves(&repo, t, "deleting an untracked file", || {
        repo.remove(b"src/new.rs")
    });
    assert_moves(&repo, t, "creating a missing explicit file", || {
        repo.write("Cargo.toml", "[package]\n")
    });
    assert_moves(&repo, t, "an edit to an ignored explicit file", || {
        repo.write("local.env", "SECRET=2\n")
    });
    assert_moves(&repo, t, "an edit to a touched file", || {
        repo.write("README.md", "changed\n")
    });
    assert_moves(&repo, t, "deleting a touched file", || {
        repo.remove(b"README.md")
    });
    assert_moves(&repo, t, "an empty file appearing", || {
        repo.write("src/empty", "")
    });
}

#[test]
fn a_same_size_edit_with_the_same_mtime_moves_the_digest() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    let file = repo.abs(b"src/main.rs");
    // Immediately (the racy window: same clock tick as the cache) and after
    // the cache has settled.
    for round in 0..20 {
        if round % 2 == 1 {
            settle();
        }
        let before = digest(&repo, SOURCES, &[]);
        let mtime = std::fs::metadata(&file).unwrap().modified().unwrap();
        let old = std::fs::read(&file).unwrap();
        let mut new = old.clone();
        new[0] = if old[0] == b'f' { b'g' } else { b'f' };
        std::fs::write(&file, &new).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        let meta = std::fs::metadata(&file).unwrap();
        assert_eq!(meta.modified().unwrap(), mtime);
        assert_eq!(meta.len() as usize, old.len());
        let after = digest(&repo, SOURCES, &[]);
        assert_ne!(before, after, "round {round}: the edit was not seen");
    }
}

/// (size, mtime, ctime, inode) of a file.
fn stat_of(path: &std::path::Path) -> (u64, i64, i64, i64, i64, u64) {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(path).unwrap();
    (
        m.size(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
        m.ino(),
    )
}

#[test]
fn an_edit_in_the_clock_tick_of_the_read_is_seen() {
    if !isolate(this_test!()) {
        return;
    }
    // File-system timestamps are coarse (a few milliseconds): an edit right
    // after the read can leave size, mtime, ctime and inode all unchanged.
    // Only the cache's stamp rule sees it; count how often that happened.
    let repo = TestRepo::new();
    let file = repo.abs(b"racy.txt");
    let mut identical = 0;
    for round in 0..100u32 {
        std::fs::write(&file, format!("{:08}", 2 * round)).unwrap();
        let before = digest(&repo, &["racy.txt"], &[]);
        let seen = stat_of(&file);
        std::fs::write(&file, format!("{:08}", 2 * round + 1)).unwrap();
        if stat_of(&file) == seen {
            identical += 1;
        }
        let after = digest(&repo, &["racy.txt"], &[]);
        assert_ne!(before, after, "round {round}: the edit was not seen");
    }
    eprintln!("{identical} of 100 edits left the stat unchanged");
}

#[test]
fn what_is_not_covered_does_not_move_the_digest() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    let t = &["README.md"];
    assert_stays(
        &repo,
        t,
        "an edit to an ignored file in a source dir",
        || repo.write("src/debug.log", "more\n"),
    );
    assert_stays(&repo, t, "a new ignored directory in a source dir", || {
        repo.write("src/target/out.bin", "x")
    });
    assert_stays(&repo, t, "an edit outside sources, not touched", || {
        repo.write("docs/guide.md", "# Other\n")
    });
    assert_stays(&repo, t, "an edit under .gate/", || {
        repo.write(".gate/plan.yaml", "version: 2\n")
    });
    assert_stays(&repo, t, "a new file under .gate/", || {
        repo.write(".gate/receipts/x", "r")
    });
    // `.gate/` paths in the touched list or the sources are dropped.
    let plain = digest(&repo, SOURCES, t);
    let with_gate = digest(
        &repo,
        &["src", "Cargo.toml", "local.env", ".gate", ".gate/plan.yaml"],
        &["README.md", ".gate/plan.yaml", ".gate"],
    );
    assert_eq!(plain, with_gate);
    assert_stays(&repo, t, "a touch that changes nothing", || {
        let f = std::fs::File::options()
            .write(true)
            .open(repo.abs(b"src/main.rs"))
            .unwrap();
        f.set_modified(std::time::SystemTime::now()).unwrap();
    });
}

#[test]
fn a_directory_source_removed_from_the_work_tree_covers_its_tracked_files_as_missing() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    let before = digest(&repo, &["src/lib"], &[]);
    repo.remove(b"src/lib");
    let gone = digest(&repo, &["src/lib"], &[]);
    assert_ne!(before, gone);
    match fp(&repo, &["src/lib"], &[]) {
        Fingerprint::Available { entries, bytes, .. } => assert_eq!((entries, bytes), (2, 0)),
        other => panic!("{other:?}"),
    }
    repo.git(&["checkout", "--", "src/lib"]);
    assert_eq!(before, digest(&repo, &["src/lib"], &[]));
}

#[test]
fn a_missing_source_is_covered_as_missing() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    match fp(&repo, &["nothing/here", "nothing/"], &["gone.txt"]) {
        Fingerprint::Available { entries, bytes, .. } => assert_eq!((entries, bytes), (3, 0)),
        other => panic!("{other:?}"),
    }
    // A file where a directory is expected: the path below is missing.
    let before = digest(&repo, &["README.md/x"], &[]);
    repo.remove(b"README.md");
    repo.write("README.md/x", "now a file\n");
    assert_ne!(before, digest(&repo, &["README.md/x"], &[]));
}

#[test]
fn symlinks_are_unavailable() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    // An untracked symlink in a source directory.
    repo.symlink(b"src/link.rs", b"main.rs");
    assert_eq!(
        unavailable(&repo, SOURCES, &[]),
        (Unavailable::Symlink, "src/link.rs".into())
    );
    // Tracked, too.
    repo.commit_all("link");
    assert_eq!(
        unavailable(&repo, SOURCES, &[]),
        (Unavailable::Symlink, "src/link.rs".into())
    );
    repo.git(&["rm", "-q", "src/link.rs"]);
    repo.commit_all("no link");
    // An explicit file that is a symlink, even a dangling one.
    repo.symlink(b"Cargo.toml", b"/etc/passwd");
    assert_eq!(
        unavailable(&repo, SOURCES, &[]),
        (Unavailable::Symlink, "Cargo.toml".into())
    );
    repo.remove(b"Cargo.toml");
    // A symlinked source directory.
    repo.symlink(b"alias", b"src");
    assert_eq!(
        unavailable(&repo, &["alias"], &[]),
        (Unavailable::Symlink, "alias".into())
    );
    assert_eq!(
        unavailable(&repo, &["alias/"], &[]),
        (Unavailable::Symlink, "alias".into())
    );
    // A path below a symlinked directory, as a source or a touched path.
    assert_eq!(
        unavailable(&repo, &["alias/main.rs"], &[]),
        (Unavailable::Symlink, "alias".into())
    );
    assert_eq!(
        unavailable(&repo, &[], &["alias/main.rs"]),
        (Unavailable::Symlink, "alias".into())
    );
    // A tracked directory replaced by a symlink pointing out of the repository.
    repo.remove(b"alias");
    let outside = repo.scratch("outside");
    std::fs::create_dir_all(outside.join("lib")).unwrap();
    std::fs::write(outside.join("lib/a.rs"), "x").unwrap();
    repo.remove(b"src/lib");
    repo.symlink(b"src/lib", outside.join("lib").as_os_str().as_bytes());
    assert_eq!(
        unavailable(&repo, SOURCES, &[]),
        (Unavailable::Symlink, "src/lib".into())
    );
    assert_eq!(
        unavailable(&repo, &["src/lib"], &[]),
        (Unavailable::Symlink, "src/lib".into())
    );
}

#[test]
fn nested_repositories_are_unavailable() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    // An untracked repository inside a source directory.
    std::fs::create_dir_all(repo.abs(b"src/vendor")).unwrap();
    repo.git_in(&repo.abs(b"src/vendor"), &["init", "-q"]);
    repo.write("src/vendor/x.c", "int x;\n");
    assert_eq!(
        unavailable(&repo, SOURCES, &[]),
        (Unavailable::NestedRepository, "src/vendor".into())
    );
    // The source itself, or a path inside it.
    assert_eq!(
        unavailable(&repo, &["src/vendor"], &[]),
        (Unavailable::NestedRepository, "src/vendor".into())
    );
    assert_eq!(
        unavailable(&repo, &[], &["src/vendor/x.c"]),
        (Unavailable::NestedRepository, "src/vendor".into())
    );
    repo.remove(b"src/vendor");
    // A tracked directory that became a repository.
    repo.git_in(&repo.abs(b"src/lib"), &["init", "-q"]);
    assert_eq!(
        unavailable(&repo, SOURCES, &[]),
        (Unavailable::NestedRepository, "src/lib".into())
    );
    repo.remove(b"src/lib/.git");
    // A gitlink (submodule entry), checked out or not.
    let head = repo.head();
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{head},src/sub"),
    ]);
    assert_eq!(
        unavailable(&repo, SOURCES, &[]),
        (Unavailable::NestedRepository, "src/sub".into())
    );
    assert_eq!(
        unavailable(&repo, &[], &["src/sub"]),
        (Unavailable::NestedRepository, "src/sub".into())
    );
}

fn mkfifo(repo: &TestRepo, rel: &str) {
    let status = Command::new("mkfifo")
        .arg(repo.abs(rel.as_bytes()))
        .status()
        .expect("run mkfifo");
    assert!(status.success());
}

#[test]
fn special_files_are_unavailable_and_never_opened() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    // No writer ever opens these FIFOs: reading one would block forever.
    mkfifo(&repo, "src/pipe");
    assert_eq!(
        unavailable(&repo, SOURCES, &[]),
        (Unavailable::SpecialFile, "src/pipe".into())
    );
    repo.remove(b"src/pipe");
    mkfifo(&repo, "Cargo.toml");
    assert_eq!(
        unavailable(&repo, SOURCES, &[]),
        (Unavailable::SpecialFile, "Cargo.toml".into())
    );
    repo.remove(b"Cargo.toml");
    // A tracked file replaced by a FIFO.
    repo.remove(b"src/main.rs");
    mkfifo(&repo, "src/main.rs");
    assert_eq!(
        unavailable(&repo, SOURCES, &[]),
        (Unavailable::SpecialFile, "src/main.rs".into())
    );
    assert_eq!(
        unavailable(&repo, &[], &["src/main.rs"]),
        (Unavailable::SpecialFile, "src/main.rs".into())
    );
    repo.remove(b"src/main.rs");
    // A socket.
    let _socket = std::os::unix::net::UnixListener::bind(repo.abs(b"src/sock")).unwrap();
    assert_eq!(
        unavailable(&repo, SOURCES, &[]),
        (Unavailable::SpecialFile, "src/sock".into())
    );
}

/// Set in a copy of a test re-run without root's privileges.
const UNPRIVILEGED: &str = "GATE_TEST_UNPRIVILEGED";

/// Run this test again as `nobody` (root reads a mode-000 file); `false`
/// when that is not possible here.
fn rerun_unprivileged(test: &str) -> bool {
    if std::env::var_os(UNPRIVILEGED).is_some()
        || Command::new("setpriv").arg("--version").output().is_err()
    {
        return false;
    }
    let exe = std::env::current_exe().unwrap();
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .envs(crate::support::git_env())
        .env(crate::support::CHILD_MARKER, "1")
        .env(UNPRIVILEGED, "1")
        .env("HOME", std::env::temp_dir())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "as nobody: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    true
}

#[test]
fn an_unreadable_file_is_unavailable() {
    if !isolate(this_test!()) {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let mode = |path: &std::path::Path, mode| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    let repo = project();
    let file = repo.abs(b"src/main.rs");
    mode(&file, 0o000);
    if std::fs::File::open(&file).is_ok() {
        if !rerun_unprivileged(this_test!()) {
            crate::support::skip(
                this_test!(),
                "a mode-000 file is readable here (root) and setpriv (util-linux) is missing",
                None,
            );
        }
        return;
    }
    assert_eq!(
        unavailable(&repo, SOURCES, &[]),
        (
            Unavailable::Unreadable("Permission denied (os error 13)".into()),
            "src/main.rs".into()
        )
    );
    mode(&file, 0o644);
    // A directory that cannot be searched: the files below cannot be stat'ed.
    let dir = repo.abs(b"src/lib");
    mode(&dir, 0o600);
    let (reason, path) = unavailable(&repo, &[], &["src/lib/a.rs"]);
    assert_eq!(
        (reason.as_str(), path.as_str()),
        ("unreadable", "src/lib/a.rs")
    );
    // Nor listed: git's walk cannot tell what is untracked in there.
    mode(&dir, 0o000);
    let sources = strings(SOURCES);
    let inputs = Inputs {
        sources: &sources,
        touched: &[],
        max_entries: MAX_ENTRIES,
        max_bytes: MAX_BYTES,
    };
    let result = fingerprint(&open(&repo), &inputs, &cache_dir(&repo));
    mode(&dir, 0o755);
    match result {
        Err(_) => {}
        Ok(Fingerprint::Unavailable { reason, .. }) => assert_eq!(reason.as_str(), "unreadable"),
        Ok(other) => panic!("an unreadable directory gave {other:?}"),
    }
}

#[test]
fn a_file_changing_while_read_is_unavailable() {
    if !isolate(this_test!()) {
        return;
    }
    use std::os::unix::fs::FileExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    let repo = project();
    // Big enough that reading it takes a while; written to all along.
    repo.write("src/big.bin", vec![b'x'; 32 << 20]);
    let file = std::fs::File::options()
        .write(true)
        .open(repo.abs(b"src/big.bin"))
        .unwrap();
    let stop = AtomicBool::new(false);
    let mut results = Vec::new();
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut i: u64 = 0;
            while !stop.load(Ordering::Relaxed) {
                file.write_at(&i.to_le_bytes(), (i * 4096) % (32 << 20))
                    .unwrap();
                i += 1;
                std::thread::sleep(Duration::from_micros(300));
            }
        });
        // Almost always the first run sees a change; a stalled writer
        // (a busy machine) may let a read through, which is then right.
        let changed = Fingerprint::Unavailable {
            reason: Unavailable::ChangedWhileRead,
            path: Some(RepoPath::from("src/big.bin")),
        };
        for _ in 0..20 {
            std::fs::remove_dir_all(cache_dir(&repo)).ok();
            let result = fp(&repo, SOURCES, &[]);
            let done = result == changed;
            results.push(result);
            if done {
                break;
            }
        }
        stop.store(true, Ordering::Relaxed);
    });
    let (last, others) = results.split_last().unwrap();
    assert!(
        matches!(last, Fingerprint::Unavailable { reason: Unavailable::ChangedWhileRead, path: Some(p) } if p.as_bytes() == b"src/big.bin"),
        "{results:?}"
    );
    for other in others {
        assert!(matches!(other, Fingerprint::Available { .. }), "{other:?}");
    }
    // Once the writer is done, the fingerprint is available again.
    assert!(matches!(
        fp(&repo, SOURCES, &[]),
        Fingerprint::Available { .. }
    ));
}

#[test]
fn escaping_paths_are_unavailable() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    for source in [
        "../outside",
        "/etc/passwd",
        "src/../..",
        ".git/config",
        "a//b",
    ] {
        let (reason, _) = unavailable(&repo, &[source], &[]);
        assert_eq!(reason, Unavailable::EscapesRepository, "{source}");
    }
    for touched in ["../outside", "/etc/passwd", ".git/HEAD"] {
        assert_eq!(
            unavailable(&repo, &[], &[touched]),
            (Unavailable::EscapesRepository, touched.into())
        );
    }
}

#[test]
fn limits_are_unavailable() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    let run = |max_entries, max_bytes| {
        let sources = strings(&["src"]);
        let inputs = Inputs {
            sources: &sources,
            touched: &[],
            max_entries,
            max_bytes,
        };
        fingerprint(&open(&repo), &inputs, &cache_dir(&repo)).unwrap()
    };
    // src: main.rs, lib/mod.rs, lib/a.rs, new.rs = 4 files, 51 bytes.
    let bytes = 13 + 11 + 14 + 13;
    assert!(matches!(
        run(4, bytes),
        Fingerprint::Available { entries: 4, .. }
    ));
    assert_eq!(
        run(3, bytes),
        Fingerprint::Unavailable {
            reason: Unavailable::TooManyEntries { limit: 3 },
            path: None
        }
    );
    assert_eq!(
        run(4, bytes - 1),
        Fingerprint::Unavailable {
            reason: Unavailable::TooManyBytes { limit: bytes - 1 },
            path: None
        }
    );
}

#[test]
fn the_warm_run_reads_nothing_and_equals_the_cold_run() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    for i in 0..50 {
        repo.write(
            &format!("src/gen/f{i}.txt"),
            format!("file {i}\n").repeat(i),
        );
    }
    settle();
    let (cold, stats) = fp_stats(&repo, SOURCES, &["README.md"]);
    assert_eq!(stats.from_cache, 0);
    assert_eq!(stats.hashed, 56);
    assert!(stats.cache_written);
    let (warm, stats) = fp_stats(&repo, SOURCES, &["README.md"]);
    assert_eq!(cold, warm);
    assert_eq!((stats.hashed, stats.from_cache), (0, 56), "{stats:?}");
    assert!(!stats.cache_written);

    // One file changes: only it is read again.
    repo.write("src/gen/f3.txt", "changed\n");
    settle();
    let (changed, stats) = fp_stats(&repo, SOURCES, &["README.md"]);
    assert_ne!(changed, warm);
    assert_eq!((stats.hashed, stats.from_cache), (1, 55), "{stats:?}");

    // Another check of the same work tree keeps the first one's entries.
    let (_, stats) = fp_stats(&repo, &["docs"], &[]);
    assert_eq!(stats.hashed, 1);
    let (_, stats) = fp_stats(&repo, SOURCES, &["README.md"]);
    assert_eq!(stats.hashed, 0, "{stats:?}");
}

/// The one stat cache file of the test repository.
fn cache_file(repo: &TestRepo) -> PathBuf {
    cache_file_named(repo, "fingerprint-")
}

/// The one untracked (walk) cache file of the test repository.
fn walk_cache_file(repo: &TestRepo) -> PathBuf {
    cache_file_named(repo, "walk-")
}

fn cache_file_named(repo: &TestRepo, prefix: &str) -> PathBuf {
    let files: Vec<PathBuf> = std::fs::read_dir(cache_dir(repo))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
        })
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files.into_iter().next().unwrap()
}

#[test]
fn a_corrupt_cache_is_ignored() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    settle();
    let (cold, _) = fp_stats(&repo, SOURCES, &[]);
    let file = cache_file(&repo);
    let good = std::fs::read(&file).unwrap();
    // Flip a byte inside a recorded hash (the last entry's, before the checksum).
    let mut bad = good.clone();
    let at = bad.len() - 40;
    bad[at] ^= 1;
    for corrupt in [
        bad,
        b"garbage".to_vec(),
        Vec::new(),
        good[..good.len() / 2].to_vec(),
    ] {
        std::fs::write(&file, &corrupt).unwrap();
        let (again, stats) = fp_stats(&repo, SOURCES, &[]);
        assert_eq!(cold, again);
        assert_eq!(stats.from_cache, 0, "a corrupt cache was trusted");
        assert!(stats.cache_written);
    }
    // A cache that is a directory cannot even be read.
    std::fs::remove_file(&file).unwrap();
    std::fs::create_dir(&file).unwrap();
    assert_eq!(cold, fp_stats(&repo, SOURCES, &[]).0);
}

#[test]
fn concurrent_runs_agree_and_leave_a_valid_cache() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    for i in 0..300 {
        repo.write(&format!("src/gen/f{i}.txt"), format!("{i}\n").repeat(50));
    }
    std::fs::remove_dir_all(cache_dir(&repo)).ok();
    let expected = digest(&repo, SOURCES, &[]);
    std::fs::remove_dir_all(cache_dir(&repo)).ok();
    let root = repo.path().to_path_buf();
    let cache = cache_dir(&repo);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    let sources = strings(SOURCES);
                    let inputs = Inputs {
                        sources: &sources,
                        touched: &[],
                        max_entries: MAX_ENTRIES,
                        max_bytes: MAX_BYTES,
                    };
                    let repo = Repo::discover(&root).unwrap();
                    (0..5)
                        .map(|_| fingerprint(&repo, &inputs, &cache).unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for handle in handles {
            for fp in handle.join().unwrap() {
                match fp {
                    Fingerprint::Available { digest, .. } => assert_eq!(digest, expected),
                    other => panic!("{other:?}"),
                }
            }
        }
    });
    settle();
    let (again, stats) = fp_stats(&repo, SOURCES, &[]);
    assert_eq!(again, fp(&repo, SOURCES, &[]));
    assert!(matches!(again, Fingerprint::Available { ref digest, .. } if *digest == expected));
    // The cache left behind is whole (it loads) and no temporary is left.
    assert!(stats.from_cache > 0 || stats.hashed > 0);
    cache_file(&repo);
}

// ---------------------------------------------------------------------------
// Touched paths against the git CLI.

fn git_touched(repo: &TestRepo, baseline: &str) -> BTreeSet<Vec<u8>> {
    let mut out = BTreeSet::new();
    let log = repo.git_bytes(&[
        "log",
        "--name-only",
        "--format=",
        "-m",
        "--no-renames",
        "-z",
        &format!("{baseline}..HEAD"),
    ]);
    for field in nul_fields(&log) {
        let field: Vec<u8> = field.into_iter().skip_while(|b| *b == b'\n').collect();
        if !field.is_empty() {
            out.insert(field);
        }
    }
    let status = repo.git_bytes(&["status", "--porcelain=v1", "-z", "-uall", "--no-renames"]);
    for field in nul_fields(&status) {
        out.insert(field[3..].to_vec());
    }
    out.retain(|p| !(p == b".gate" || p.starts_with(b".gate/")));
    out
}

fn gate_touched(repo: &TestRepo, baseline: &str) -> BTreeSet<Vec<u8>> {
    let baseline = Oid::from_hex(baseline).unwrap();
    let list = touched_paths(&open(repo), baseline).unwrap();
    let set: BTreeSet<Vec<u8>> = list.iter().map(|p| p.as_bytes().to_vec()).collect();
    assert_eq!(set.len(), list.len(), "duplicates in {list:?}");
    set
}

fn show(set: &BTreeSet<Vec<u8>>) -> String {
    set.iter()
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn touched_paths_match_git_log_and_status() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = TestRepo::new();
    repo.write(".gitignore", "*.log\n");
    for name in [
        "keep.txt",
        "edit.txt",
        "gone.txt",
        "move-me.txt",
        "mode.sh",
        "side.txt",
    ] {
        repo.write(&format!("lib/{name}"), format!("{name}\n"));
    }
    repo.write(".gate/plan.yaml", "v: 1\n");
    let baseline = repo.commit_all("baseline");
    assert!(gate_touched(&repo, &baseline).is_empty());

    repo.write("lib/edit.txt", "edited\n");
    repo.remove(b"lib/gone.txt");
    repo.git(&["mv", "lib/move-me.txt", "lib/moved.txt"]);
    repo.chmod(b"lib/mode.sh", true);
    repo.write(".gate/tasks/T-1.md", "task\n");
    repo.write("weird name\twith tab.txt", "x\n");
    repo.write_at(b"caf\xe9.txt", "latin-1\n");
    repo.commit_all("work");
    // A side branch merged back: the merge's diffs against both parents.
    repo.git(&["checkout", "-q", "-b", "side", "HEAD~1"]);
    repo.write("lib/side.txt", "from side\n");
    repo.write("side-only.txt", "side\n");
    repo.commit_all("side work");
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "-m", "merge side", "side"]);
    // A change that is undone later still counts.
    repo.write("temp.txt", "temp\n");
    repo.commit_all("temp");
    repo.remove(b"temp.txt");
    repo.commit_all("untemp");
    // Dirty now: staged, unstaged, deleted, untracked, ignored, .gate.
    repo.write("staged.txt", "s\n");
    repo.git(&["add", "staged.txt"]);
    repo.write("lib/keep.txt", "unstaged\n");
    repo.remove(b"lib/moved.txt");
    repo.write("new/dir/untracked.txt", "u\n");
    repo.write("debug.log", "ignored\n");
    repo.write(".gate/active", "T-1\n");
    repo.git(&["mv", "side-only.txt", "renamed-staged.txt"]);

    let git = git_touched(&repo, &baseline);
    let gate = gate_touched(&repo, &baseline);
    assert_eq!(show(&gate), show(&git));
    for expected in [
        "lib/edit.txt",
        "lib/gone.txt",
        "lib/move-me.txt",
        "lib/moved.txt",
        "lib/mode.sh",
        "lib/side.txt",
        "temp.txt",
        "staged.txt",
        "lib/keep.txt",
        "new/dir/untracked.txt",
        "side-only.txt",
        "renamed-staged.txt",
    ] {
        assert!(gate.contains(expected.as_bytes()), "{expected} missing");
    }
    assert!(!gate.iter().any(|p| p.starts_with(b".gate")));
    assert!(!gate.contains(&b"debug.log"[..]));
    // HEAD as the baseline: only what is dirty.
    let head = repo.head();
    assert_eq!(
        show(&gate_touched(&repo, &head)),
        show(&git_touched(&repo, &head))
    );
}

#[test]
fn touched_paths_feed_the_fingerprint() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    let baseline = repo.head();
    repo.write("docs/guide.md", "# Edited\n");
    repo.commit_all("docs");
    let touched = touched_paths(&open(&repo), Oid::from_hex(&baseline).unwrap()).unwrap();
    let names: Vec<String> = touched.iter().map(RepoPath::lossy).collect();
    assert_eq!(names, ["docs/guide.md", "src/new.rs"]);
    let list: Vec<&str> = names.iter().map(String::as_str).collect();
    let before = digest(&repo, &["src"], &list);
    repo.write("docs/guide.md", "# Edited again\n");
    assert_ne!(before, digest(&repo, &["src"], &list));
}

// ---------------------------------------------------------------------------
// The git layer's listings against the git CLI.

fn literal(paths: &[&str]) -> Vec<String> {
    paths.iter().map(|p| format!(":(literal){p}")).collect()
}

#[test]
fn index_entries_under_match_git_ls_files_stage() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = TestRepo::new();
    repo.write("a/x.txt", "x");
    repo.write("a/b/y.sh", "y");
    repo.chmod(b"a/b/y.sh", true);
    repo.symlink(b"a/link", b"x.txt");
    repo.write("a2/z.txt", "z");
    repo.write("ab", "ab");
    repo.write("glob[1]/star*.txt", "g");
    repo.write("globs/other.txt", "o");
    repo.write_at(b"a/caf\xe9", "c");
    repo.write("top.txt", "t");
    repo.commit_all("c");
    let head = repo.head();
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{head},a/sub"),
    ]);
    repo.write("a/new.txt", "staged");
    repo.git(&["add", "a/new.txt"]);
    repo.write("a/intent.txt", "later");
    repo.git(&["add", "-N", "a/intent.txt"]);
    let gate_repo = open(&repo);
    for prefixes in [
        &["a"][..],
        &["a/b", "top.txt"],
        &["glob[1]"],
        &["a/x.txt", "missing", "a/sub"],
        &["ab", "a2"],
        &["nothing"],
    ] {
        let mut args = vec![
            "ls-files".to_owned(),
            "-z".into(),
            "--stage".into(),
            "--".into(),
        ];
        args.extend(literal(prefixes));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let git: Vec<(Vec<u8>, &str)> = nul_fields(&repo.git_bytes(&args))
            .into_iter()
            .map(|f| {
                let tab = f.iter().position(|b| *b == b'\t').unwrap();
                let mode = match &f[..6] {
                    b"100644" => "file",
                    b"100755" => "exec",
                    b"120000" => "link",
                    b"160000" => "gitlink",
                    other => panic!("{other:?}"),
                };
                (f[tab + 1..].to_vec(), mode)
            })
            .collect();
        let gate: Vec<(Vec<u8>, &str)> = gate_repo
            .index_entries_under(&gate_repo.read_index().unwrap(), &paths(prefixes))
            .unwrap()
            .into_iter()
            .map(|e| {
                let mode = match e.kind {
                    EntryKind::File => "file",
                    EntryKind::Executable => "exec",
                    EntryKind::Symlink => "link",
                    EntryKind::Gitlink => "gitlink",
                };
                (e.path.as_bytes().to_vec(), mode)
            })
            .collect();
        assert_eq!(gate, git, "{prefixes:?}");
    }
}

#[test]
fn untracked_under_matches_git_ls_files_others() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = TestRepo::new();
    repo.write(".gitignore", "*.log\nbuild/\n/src/gen.rs\n");
    repo.write("src/.gitignore", "local/\n!keep.log\n");
    repo.write("src/tracked.rs", "t");
    repo.write("out/tracked-in-ignored.txt", "t");
    repo.commit_all("c");
    repo.write("out/.gitignore", "*\n");
    repo.git(&["add", "-f", "out/.gitignore"]);
    repo.write("src/new.rs", "n");
    repo.write("src/deep/er/new.rs", "n");
    repo.write("src/debug.log", "ignored");
    repo.write("src/keep.log", "re-included");
    repo.write("src/gen.rs", "anchored ignore");
    repo.write("src/local/x.rs", "ignored dir");
    repo.write("src/build/x.rs", "ignored dir");
    repo.write("out/new.txt", "ignored by out/.gitignore");
    repo.write("src/glob[1]/a.rs", "literal");
    repo.write("srcs/not-below.rs", "sibling");
    repo.write_at(b"src/caf\xe9.rs", "latin-1");
    repo.write("src/sp ace\nnl.rs", "odd");
    repo.symlink(b"src/link", b"tracked.rs");
    std::fs::create_dir_all(repo.abs(b"src/nested")).unwrap();
    repo.git_in(&repo.abs(b"src/nested"), &["init", "-q"]);
    repo.write("src/nested/inner.rs", "inside nested");
    std::fs::create_dir_all(repo.abs(b"src/empty")).unwrap();
    mkfifo(&repo, "src/fifo");
    let gate_repo = open(&repo);
    for dirs in [
        &["src"][..],
        &["src/deep", "out"],
        &["src/glob[1]"],
        &["srcs", "src/local"],
    ] {
        let mut args = vec![
            "ls-files".to_owned(),
            "-z".into(),
            "--others".into(),
            "--exclude-standard".into(),
            "--".into(),
        ];
        args.extend(literal(dirs));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let git: Vec<Vec<u8>> = nul_fields(&repo.git_bytes(&args))
            .into_iter()
            .map(|mut f| {
                if f.last() == Some(&b'/') {
                    f.pop();
                }
                f
            })
            .collect();
        let index = gate_repo.read_index().unwrap();
        let listed = gate_repo.untracked_under(&index, &paths(dirs)).unwrap();
        // git leaves FIFOs out; the git layer reports them as special.
        let gate: Vec<Vec<u8>> = listed
            .iter()
            .filter(|e| e.kind != UntrackedKind::Special)
            .map(|e| e.path.as_bytes().to_vec())
            .collect();
        let show = |v: &[Vec<u8>]| {
            v.iter()
                .map(|p| String::from_utf8_lossy(p).into_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(show(&gate), show(&git), "{dirs:?}");
        if dirs == ["src"] {
            let kind = |p: &str| {
                listed
                    .iter()
                    .find(|e| e.path.as_bytes() == p.as_bytes())
                    .map(|e| e.kind)
            };
            assert_eq!(kind("src/link"), Some(UntrackedKind::Symlink));
            assert_eq!(kind("src/nested"), Some(UntrackedKind::Repository));
            assert_eq!(kind("src/fifo"), Some(UntrackedKind::Special));
            assert_eq!(kind("src/new.rs"), Some(UntrackedKind::File));
        }
    }
    let index = gate_repo.read_index().unwrap();
    assert!(gate_repo.untracked_under(&index, &[]).unwrap().is_empty());
}

#[test]
fn listings_do_not_depend_on_the_current_directory() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    let from_root = digest(&repo, SOURCES, &["README.md"]);
    let sub = repo.abs(b"src/lib");
    crate::support::run_in_child(
        "fingerprint::from_a_subdirectory",
        &sub,
        &[("GATE_TEST_EXPECT", from_root.into())],
    );
}

#[test]
fn from_a_subdirectory() {
    if !crate::support::is_child() {
        return;
    }
    let Some(expected) = std::env::var_os("GATE_TEST_EXPECT") else {
        return;
    };
    let cwd = std::env::current_dir().unwrap();
    let repo = Repo::discover(&cwd).unwrap();
    let sources = strings(SOURCES);
    let touched = paths(&["README.md"]);
    let inputs = Inputs {
        sources: &sources,
        touched: &touched,
        max_entries: MAX_ENTRIES,
        max_bytes: MAX_BYTES,
    };
    let cache = cwd.join("../../../cache");
    match fingerprint(&repo, &inputs, &cache).unwrap() {
        Fingerprint::Available { digest, .. } => {
            assert_eq!(OsStr::new(&digest), expected.as_os_str());
        }
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------
// Benchmark driver.

/// Not a test: `scripts/bench-fingerprint.sh` runs this (release build) to
/// time one fingerprint of the repository in `GATE_BENCH_REPO`, sources
/// `GATE_BENCH_SOURCES` (comma-separated), cache `GATE_BENCH_CACHE`. With
/// `GATE_BENCH_BASELINE` it also computes the touched paths since that
/// commit. Without `GATE_BENCH_REPO` it does nothing (process overhead).
#[test]
#[ignore = "a benchmark driver, run by scripts/bench-fingerprint.sh"]
fn bench_driver() {
    let Some(root) = std::env::var_os("GATE_BENCH_REPO") else {
        return;
    };
    let var = |name| std::env::var(name).unwrap_or_default();
    let sources: Vec<String> = var("GATE_BENCH_SOURCES")
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    let repo = Repo::discover(std::path::Path::new(&root)).unwrap();
    let touched = match Oid::from_hex(&var("GATE_BENCH_BASELINE")) {
        Some(baseline) => touched_paths(&repo, baseline).unwrap(),
        None => Vec::new(),
    };
    let inputs = Inputs {
        sources: &sources,
        touched: &touched,
        max_entries: MAX_ENTRIES,
        max_bytes: MAX_BYTES,
    };
    let cache = PathBuf::from(var("GATE_BENCH_CACHE"));
    let (fp, stats) = fingerprint_with_stats(&repo, &inputs, &cache).unwrap();
    println!("{fp:?} {stats:?} touched={}", touched.len());
}

/// The touched paths a check adds leave out dirty paths inside its sources
/// (git's status is not asked about them): the digest is the same as with
/// every dirty path named.
#[test]
fn touched_for_sources_gives_the_same_digest_as_every_touched_path() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    let base = repo.head();
    repo.write("docs/guide.md", "# Guide, edited and committed\n");
    repo.commit_all("docs");
    repo.write("src/main.rs", "fn main() { edited() }\n");
    repo.write("src/lib/b.rs", "// untracked in a source\n");
    repo.write("README.md", "readme, dirty outside the sources\n");
    repo.write("notes/todo.txt", "untracked outside the sources\n");
    repo.remove(b"src/lib/a.rs");
    let gate = open(&repo);
    let baseline = Oid::from_hex(&base).unwrap();
    let every = gate::fingerprint::touched_paths(&gate, baseline).unwrap();
    let touched = gate::fingerprint::Touched::of_task(&gate, baseline, None).unwrap();
    for sources in [
        &["src", "Cargo.toml", "local.env"][..],
        &["src/lib"],
        &["docs", "README.md"],
    ] {
        let sources = strings(sources);
        let some = touched.for_sources(&gate, &sources).unwrap();
        assert!(some.len() <= every.len());
        let print = |touched: &[RepoPath]| {
            let inputs = Inputs {
                sources: &sources,
                touched,
                max_entries: MAX_ENTRIES,
                max_bytes: MAX_BYTES,
            };
            fingerprint_with_stats(&gate, &inputs, &cache_dir(&repo))
                .unwrap()
                .0
        };
        assert_eq!(print(&some), print(&every), "sources {sources:?}");
    }
    // Outside the sources, every kind of touch is still there.
    let some = touched.for_sources(&gate, &strings(&["src"])).unwrap();
    for p in ["docs/guide.md", "README.md", "notes/todo.txt"] {
        assert!(some.contains(&RepoPath::from(p)), "{p} in {some:?}");
    }
}

// ---------------------------------------------------------------------------
// The untracked cache: a warm run skips the walk, never a real change.

/// The fingerprint now, warm (caches as they are), and whether the
/// untracked files came from the untracked cache; then the same with the
/// untracked cache removed, which must agree.
fn warm_against_cold(repo: &TestRepo) -> (Fingerprint, bool) {
    let (warm, stats) = fp_stats(repo, SOURCES, &[]);
    std::fs::remove_file(walk_cache_file(repo)).ok();
    let (cold, cold_stats) = fp_stats(repo, SOURCES, &[]);
    assert!(!cold_stats.untracked_from_cache);
    assert_eq!(warm, cold, "the untracked cache hid a change");
    (warm, stats.untracked_from_cache)
}

#[test]
fn the_untracked_cache_skips_the_walk_but_never_a_change() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    settle();
    let (first, stats) = fp_stats(&repo, SOURCES, &[]);
    assert!(!stats.untracked_from_cache);
    settle();
    let (again, stats) = fp_stats(&repo, SOURCES, &[]);
    assert_eq!(first, again);
    assert!(stats.untracked_from_cache, "nothing moved: no walk");

    let mut last = first;
    let mut step = |what: &str, change: &dyn Fn(), same_digest: bool| {
        settle();
        change();
        settle();
        let (now, _) = warm_against_cold(&repo);
        if same_digest {
            assert_eq!(now, last, "{what}");
        } else {
            assert_ne!(now, last, "{what}: not seen");
        }
        settle();
        // And the cache written by the cold run is used and right.
        let (cached, stats) = fp_stats(&repo, SOURCES, &[]);
        assert_eq!(cached, now, "{what}");
        assert!(stats.untracked_from_cache, "{what}: cache not reused");
        last = now;
    };
    step("a new file", &|| repo.write("src/lib/b.rs", "b\n"), false);
    step("a removed file", &|| repo.remove(b"src/new.rs"), false);
    step(
        "a new directory",
        &|| repo.write("src/deep/er/c.rs", "c\n"),
        false,
    );
    step(
        "a .gitignore edited",
        &|| repo.write(".gitignore", "*.log\nlocal.env\ntarget/\nb.rs\n"),
        false,
    );
    step(
        "a .gitignore added below",
        &|| repo.write("src/deep/.gitignore", "er/\n"),
        false,
    );
    // Same name, same directory: only the file's own stat moves.
    step(
        "a .gitignore below edited",
        &|| repo.write("src/deep/.gitignore", "nothing\n"),
        false,
    );
    step(
        "info/exclude edited",
        &|| repo.write(".git/info/exclude", "src/deep/.gitignore\n"),
        false,
    );
    // Untracking a file moves no directory; it stays covered, now untracked.
    step(
        "a file untracked in the index only",
        &|| {
            repo.git(&["rm", "-q", "--cached", "src/main.rs"]);
        },
        true,
    );
    // An ignored file becoming tracked, then untracked again.
    step(
        "an ignored file force-added",
        &|| {
            repo.git(&["add", "-f", "src/debug.log"]);
        },
        false,
    );
    step(
        "an ignored file untracked again",
        &|| {
            repo.git(&["rm", "-q", "--cached", "src/debug.log"]);
        },
        false,
    );
}

#[test]
fn the_untracked_cache_sees_a_nested_repository_come_and_go() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    repo.write("src/inner/x.rs", "x\n");
    settle();
    let (plain, _) = warm_against_cold(&repo);
    assert!(matches!(plain, Fingerprint::Available { .. }));
    repo.git_in(&repo.abs(b"src/inner"), &["init", "-q"]);
    settle();
    let (nested, _) = warm_against_cold(&repo);
    assert!(
        matches!(
            nested,
            Fingerprint::Unavailable {
                reason: Unavailable::NestedRepository,
                ..
            }
        ),
        "{nested:?}"
    );
    settle();
    let (_, from_cache) = warm_against_cold(&repo);
    assert!(from_cache);
    std::fs::remove_dir_all(repo.abs(b"src/inner/.git")).unwrap();
    settle();
    let (back, _) = warm_against_cold(&repo);
    assert_eq!(back, plain);
    // A gitlink dropped from the index only: no directory moves, yet the
    // repository it pointed at is now an untracked one.
    repo.git_in(&repo.abs(b"src/inner"), &["init", "-q"]);
    repo.git_in(&repo.abs(b"src/inner"), &["add", "x.rs"]);
    repo.git_in(&repo.abs(b"src/inner"), &["commit", "-q", "-m", "inner"]);
    repo.git(&["add", "src/inner"]);
    settle();
    let (gitlink, _) = warm_against_cold(&repo);
    settle();
    let (_, from_cache) = warm_against_cold(&repo);
    assert!(from_cache);
    repo.git(&["rm", "-q", "-f", "--cached", "src/inner"]);
    settle();
    let (untracked, _) = warm_against_cold(&repo);
    for fp in [&gitlink, &untracked] {
        assert!(
            matches!(
                fp,
                Fingerprint::Unavailable {
                    reason: Unavailable::NestedRepository,
                    ..
                }
            ),
            "{fp:?}"
        );
    }
}

/// The fingerprint of `sources` against `index`, with the stats `prefetch` took.
fn fp_prefetched(
    repo: &TestRepo,
    gate: &Repo,
    index: &gate::git::IndexSnapshot,
    prefetch: &gate::fingerprint::Prefetch,
    sources: &[&str],
) -> (Fingerprint, Stats) {
    let sources = strings(sources);
    let inputs = Inputs {
        sources: &sources,
        touched: &[],
        max_entries: MAX_ENTRIES,
        max_bytes: MAX_BYTES,
    };
    gate::fingerprint::fingerprint_in(
        gate,
        index,
        &inputs,
        &cache_dir(repo),
        Some(prefetch),
        gate::progress::Sink::stderr(),
    )
    .unwrap()
}

/// Stats taken ahead by a prefetch give the same answer as stats taken by
/// the fingerprint itself, a change made before the prefetch included.
#[test]
fn a_prefetch_answers_as_the_fingerprint_would() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    for i in 0..600 {
        repo.write(&format!("src/gen/d{}/f{i}.txt", i % 7), format!("{i}\n"));
    }
    settle();
    let with_prefetch = |repo: &TestRepo| {
        let gate = open(repo);
        let prefetch = gate::fingerprint::Prefetch::start(&gate, &cache_dir(repo), &[]).unwrap();
        let index = gate.read_index().unwrap();
        fp_prefetched(repo, &gate, &index, &prefetch, SOURCES)
    };
    // No cache yet: nothing to prefetch.
    let (cold, _) = with_prefetch(&repo);
    assert_eq!(cold, fp(&repo, SOURCES, &[]));
    settle();
    let (warm, stats) = with_prefetch(&repo);
    assert_eq!(warm, cold);
    assert_eq!(stats.hashed, 0, "{stats:?}");
    // Edited, removed, added: each seen.
    repo.write("src/gen/d3/f3.txt", "changed\n");
    repo.remove(b"src/gen/d4/f4.txt");
    repo.write("src/gen/d5/new.txt", "new\n");
    let (changed, stats) = with_prefetch(&repo);
    assert_ne!(changed, cold);
    assert!(stats.hashed >= 2, "{stats:?}");
    std::fs::remove_dir_all(cache_dir(&repo)).unwrap();
    assert_eq!(changed, fp(&repo, SOURCES, &[]));
    // A file edited again after its stat was taken ahead is read as it is
    // when read, not found "changed while read".
    settle();
    fp(&repo, SOURCES, &[]);
    settle();
    repo.write("src/gen/d1/f1.txt", "edited once\n");
    let gate = open(&repo);
    let prefetch = gate::fingerprint::Prefetch::start(&gate, &cache_dir(&repo), &[]).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    repo.write("src/gen/d1/f1.txt", "edited twice, longer\n");
    let index = gate.read_index().unwrap();
    let (late, _) = fp_prefetched(&repo, &gate, &index, &prefetch, SOURCES);
    drop(prefetch);
    std::fs::remove_dir_all(cache_dir(&repo)).unwrap();
    assert_eq!(late, fp(&repo, SOURCES, &[]));
    // A prefetch dropped unused stops and leaves nothing behind.
    drop(gate::fingerprint::Prefetch::start(
        &gate,
        &cache_dir(&repo),
        &[],
    ));
}

#[test]
fn checks_with_different_sources_keep_their_own_untracked_cache() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    settle();
    fp_stats(&repo, &["src"], &[]);
    fp_stats(&repo, &["docs"], &[]);
    settle();
    for sources in [&["src"], &["docs"]] {
        let (_, stats) = fp_stats(&repo, sources, &[]);
        assert!(stats.untracked_from_cache, "{sources:?}");
    }
}

/// Two checks of one evaluation share a prefetch: what the first one read
/// and saved is not lost when the second one saves.
#[test]
fn checks_sharing_a_prefetch_keep_each_others_saved_hashes() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    repo.write("docs/more.md", "more\n");
    settle();
    fp(&repo, &["src"], &[]);
    fp(&repo, &["docs"], &[]);
    settle();
    repo.write("src/main.rs", "fn main() { edited() }\n");
    repo.write("docs/guide.md", "# Guide, edited\n");
    settle();
    let gate = open(&repo);
    let prefetch = gate::fingerprint::Prefetch::start(&gate, &cache_dir(&repo), &[]).unwrap();
    let index = gate.read_index().unwrap();
    for sources in [&["src"], &["docs"]] {
        let (_, stats) = fp_prefetched(&repo, &gate, &index, &prefetch, sources);
        assert_eq!(stats.hashed, 1, "{sources:?}: {stats:?}");
    }
    drop(prefetch);
    settle();
    for sources in [&["src"], &["docs"]] {
        let (_, stats) = fp_stats(&repo, sources, &[]);
        assert_eq!(stats.hashed, 0, "{sources:?}: {stats:?}");
    }
}
