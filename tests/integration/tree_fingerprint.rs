//! The tree fingerprint (docs/receipts.md, "The tree fingerprint"): computed
//! from a commit's objects, it equals the work-tree fingerprint of a clean
//! checkout of that commit, and git's own listing of the commit (`git ls-tree`,
//! `git cat-file`) is the oracle for what it covers.

use std::path::PathBuf;

use gate::fingerprint::{Fingerprint, Inputs, Touched, Unavailable, fingerprint, of_tree};
use gate::git::{Oid, Repo};
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

fn inputs<'a>(sources: &'a [String], touched: &'a [RepoPath]) -> Inputs<'a> {
    Inputs {
        sources,
        touched,
        max_entries: MAX_ENTRIES,
        max_bytes: MAX_BYTES,
    }
}

fn owned(sources: &[&str], touched: &[&str]) -> (Vec<String>, Vec<RepoPath>) {
    (
        sources.iter().map(|s| (*s).to_owned()).collect(),
        touched.iter().map(|p| RepoPath::from(*p)).collect(),
    )
}

/// The work tree's fingerprint and the tree fingerprint of `commit`.
fn both(
    repo: &TestRepo,
    commit: &str,
    sources: &[&str],
    touched: &[&str],
) -> (Fingerprint, Fingerprint) {
    let (sources, touched) = owned(sources, touched);
    let inputs = inputs(&sources, &touched);
    let git = open(repo);
    let work = fingerprint(&git, &inputs, &cache_dir(repo)).expect("work-tree fingerprint");
    let commit = Oid::from_hex(&repo.rev(commit)).expect("a commit id");
    let tree = of_tree(&git, commit, &inputs).expect("tree fingerprint");
    (work, tree)
}

fn digest(fp: &Fingerprint) -> &str {
    match fp {
        Fingerprint::Available { digest, .. } => digest,
        other => panic!("expected a digest, got {other:?}"),
    }
}

fn tree_unavailable(repo: &TestRepo, sources: &[&str], touched: &[&str]) -> (Unavailable, String) {
    let (sources, touched) = owned(sources, touched);
    let commit = Oid::from_hex(&repo.head()).expect("HEAD");
    match of_tree(&open(repo), commit, &inputs(&sources, &touched)).expect("tree fingerprint") {
        Fingerprint::Unavailable { reason, path } => {
            (reason, path.map(|p| p.lossy()).unwrap_or_default())
        }
        other => panic!("expected unavailable, got {other:?}"),
    }
}

/// The digest the documented encoding gives for what git lists at `commit`
/// under `sources` (directories or files; `.gate/` left out) and at
/// `named` paths (missing when git has nothing there).
fn oracle(repo: &TestRepo, commit: &str, sources: &[&str], named: &[&str]) -> String {
    use sha2::{Digest, Sha256};
    use std::collections::BTreeMap;
    let mut entries: BTreeMap<Vec<u8>, Option<(bool, Vec<u8>)>> = BTreeMap::new();
    let mut args = vec!["ls-tree", "-r", "-z", "--full-tree", commit, "--"];
    args.extend(sources);
    args.extend(named);
    for line in nul_fields(&repo.git_bytes(&args)) {
        let tab = line.iter().position(|b| *b == b'\t').expect("a tab");
        let (meta, path) = (&line[..tab], line[tab + 1..].to_vec());
        let fields: Vec<&[u8]> = meta.split(|b| *b == b' ').collect();
        let id = String::from_utf8(fields[2].to_vec()).expect("hex");
        if path.starts_with(b".gate/") {
            continue;
        }
        let blob = repo.git_bytes(&["cat-file", "blob", &id]);
        entries.insert(
            path,
            Some((fields[0] == b"100755", Sha256::digest(&blob).to_vec())),
        );
    }
    for path in sources.iter().chain(named) {
        let under = format!("{path}/");
        if !entries
            .keys()
            .any(|k| k == path.as_bytes() || k.starts_with(under.as_bytes()))
        {
            entries.insert(path.as_bytes().to_vec(), None);
        }
    }
    let mut stream = b"gate-source-fingerprint-v1\0".to_vec();
    for (path, content) in entries {
        stream.extend_from_slice(&(path.len() as u32).to_be_bytes());
        stream.extend_from_slice(&path);
        match content {
            Some((exec, sha)) => {
                stream.push(if exec { b'x' } else { b'f' });
                stream.extend_from_slice(&sha);
            }
            None => stream.push(b'm'),
        }
    }
    gate::digest::sha256_hex(&stream)
}

/// Sources, executables, nested directories, an ignored file, `.gate/`, a
/// file source that does not exist and a touched path outside the sources.
fn project() -> TestRepo {
    let repo = TestRepo::new();
    repo.write(".gitignore", "*.log\n");
    repo.write("src/main.rs", "fn main() {}\n");
    repo.write("src/lib/mod.rs", "pub mod a;\n");
    repo.write("src/lib/deep/a.rs", "pub fn a() {}\n");
    repo.write("src/run.sh", "#!/bin/sh\n");
    repo.chmod(b"src/run.sh", true);
    repo.write("src/debug.log", "ignored, untracked\n");
    repo.write("Cargo.toml", "[package]\n");
    repo.write("README.md", "readme\n");
    repo.write(".gate/plan.yaml", "version: 1\n");
    repo.commit_all("initial");
    repo
}

const SOURCES: &[&str] = &["src", "Cargo.toml", "absent.toml"];
const TOUCHED: &[&str] = &["README.md", "gone.txt"];

#[test]
fn a_clean_checkout_and_its_commit_fingerprint_alike() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    let (work, tree) = both(&repo, "HEAD", SOURCES, TOUCHED);
    assert_eq!(digest(&work), digest(&tree));
    assert_eq!(work, tree, "entries and bytes too");
    assert_eq!(
        digest(&tree),
        oracle(
            &repo,
            "HEAD",
            &["src", "Cargo.toml", "absent.toml"],
            TOUCHED
        )
    );
    // After more commits: a deletion, a rename, a mode change, a new directory.
    repo.git(&["rm", "-q", "src/lib/mod.rs"]);
    repo.git(&["mv", "src/main.rs", "src/bin.rs"]);
    repo.chmod(b"src/run.sh", false);
    repo.write("src/new/b.rs", "b\n");
    repo.write("gone.txt", "now here\n");
    repo.commit_all("second");
    let (work, tree) = both(&repo, "HEAD", SOURCES, TOUCHED);
    assert_eq!(digest(&work), digest(&tree));
    assert_eq!(
        digest(&tree),
        oracle(
            &repo,
            "HEAD",
            &["src", "Cargo.toml", "absent.toml"],
            TOUCHED
        )
    );
    // An older commit's tree is its own, whatever the work tree holds.
    let (work, first) = both(&repo, "HEAD~1", SOURCES, TOUCHED);
    assert_ne!(digest(&work), digest(&first));
    assert_eq!(
        digest(&first),
        oracle(
            &repo,
            "HEAD~1",
            &["src", "Cargo.toml", "absent.toml"],
            TOUCHED
        )
    );
}

#[test]
fn what_is_not_committed_tells_the_work_tree_from_the_commit() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    let differs = |what: &str| {
        let (work, tree) = both(&repo, "HEAD", SOURCES, TOUCHED);
        assert_ne!(digest(&work), digest(&tree), "{what}");
    };
    repo.write("src/main.rs", "fn main() { edited() }\n");
    differs("an edit not committed");
    repo.git(&["checkout", "--", "src/main.rs"]);
    repo.chmod(b"src/main.rs", true);
    differs("an execute bit not committed");
    repo.chmod(b"src/main.rs", false);
    repo.write("src/extra.rs", "untracked\n");
    differs("an untracked file under a source");
    repo.remove(b"src/extra.rs");
    repo.write("absent.toml", "created\n");
    differs("a missing file source created");
    repo.remove(b"absent.toml");
    let (work, tree) = both(&repo, "HEAD", SOURCES, TOUCHED);
    assert_eq!(digest(&work), digest(&tree), "everything restored");
}

#[test]
fn bytes_git_converts_on_checkout_are_not_the_commits() {
    if !isolate(this_test!()) {
        return;
    }
    // The work tree holds CRLF where the blob holds LF: a check ran on other
    // bytes than the commit's, so the digests differ.
    let repo = TestRepo::new();
    repo.write(".gitattributes", "*.txt text eol=crlf\n");
    repo.write("src/a.txt", "one\ntwo\n");
    repo.commit_all("initial");
    repo.remove(b"src/a.txt");
    repo.git(&["checkout", "--", "src/a.txt"]);
    assert_eq!(
        std::fs::read(repo.abs(b"src/a.txt")).unwrap(),
        b"one\r\ntwo\r\n"
    );
    let (work, tree) = both(&repo, "HEAD", &["src"], &[]);
    assert_ne!(digest(&work), digest(&tree));
    assert_eq!(digest(&tree), oracle(&repo, "HEAD", &["src"], &[]));
}

#[test]
fn symlinks_and_submodules_in_the_tree_are_unavailable() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    repo.symlink(b"src/link", b"main.rs");
    repo.symlink(b"linked", b"src");
    repo.commit_all("links");
    assert_eq!(
        tree_unavailable(&repo, &["src"], &[]),
        (Unavailable::Symlink, "src/link".into())
    );
    assert_eq!(
        tree_unavailable(&repo, &["linked/lib"], &[]),
        (Unavailable::Symlink, "linked".into())
    );
    assert_eq!(
        tree_unavailable(&repo, &["Cargo.toml"], &["linked"]),
        (Unavailable::Symlink, "linked".into())
    );
    repo.git(&["rm", "-q", "src/link"]);
    let head = repo.head();
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{head},src/vendor"),
    ]);
    repo.git(&["commit", "-q", "-m", "a submodule"]);
    assert_eq!(
        tree_unavailable(&repo, &["src"], &[]),
        (Unavailable::NestedRepository, "src/vendor".into())
    );
    assert_eq!(
        tree_unavailable(&repo, &["src/vendor/x"], &[]),
        (Unavailable::NestedRepository, "src/vendor".into())
    );
    assert_eq!(
        tree_unavailable(&repo, &["../up"], &[]),
        (Unavailable::EscapesRepository, "../up".into())
    );
}

#[test]
fn the_limits_hold_in_the_tree() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    let commit = Oid::from_hex(&repo.head()).unwrap();
    let (sources, touched) = owned(&["src"], &[]);
    let limited = |max_entries, max_bytes| {
        let inputs = Inputs {
            sources: &sources,
            touched: &touched,
            max_entries,
            max_bytes,
        };
        of_tree(&open(&repo), commit, &inputs).expect("tree fingerprint")
    };
    assert!(matches!(
        limited(2, MAX_BYTES),
        Fingerprint::Unavailable {
            reason: Unavailable::TooManyEntries { limit: 2 },
            ..
        }
    ));
    assert!(matches!(
        limited(MAX_ENTRIES, 10),
        Fingerprint::Unavailable {
            reason: Unavailable::TooManyBytes { limit: 10 },
            ..
        }
    ));
}

#[test]
fn a_tasks_paths_as_of_a_commit_are_those_its_commits_changed() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = project();
    let baseline = Oid::from_hex(&repo.head()).unwrap();
    repo.write("README.md", "changed\n");
    repo.write(".gate/tasks/T-1.md", "task\n");
    repo.commit_all("one");
    repo.git(&["mv", "Cargo.toml", "Other.toml"]);
    repo.commit_all("two");
    repo.write("dirty.txt", "not committed\n");
    let git = open(&repo);
    let tip = Oid::from_hex(&repo.head()).unwrap();
    let touched = Touched::of_commits(&git, baseline, tip, None)
        .and_then(|t| t.for_sources(&git, &[]))
        .expect("touched");
    let names: Vec<String> = touched.iter().map(RepoPath::lossy).collect();
    assert_eq!(names, ["Cargo.toml", "Other.toml", "README.md"]);
}
